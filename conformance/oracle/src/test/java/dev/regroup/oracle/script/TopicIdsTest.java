package dev.regroup.oracle.script;

import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

class TopicIdsTest {
    @Test
    void derivedIdsMatchRegroupsPinnedValues() {
        Uuid foo = TopicIds.derived("foo");
        // The same values are pinned on the Rust side (coordinator/src/topics.rs and
        // scenarios/tests/conformance_cli.rs).
        assertEquals(0xdcb27518fed9d577L, foo.getMostSignificantBits());
        assertEquals("3LJ1GP7Z1XdhwA33Mpi-rQ", foo.toString());
        assertNotEquals(foo, TopicIds.derived("bar"));
        assertEquals(1L, TopicIds.derived("").getLeastSignificantBits() & 1L);
    }
}

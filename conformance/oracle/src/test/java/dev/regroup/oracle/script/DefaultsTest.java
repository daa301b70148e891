package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.kafka.common.message.StreamsGroupHeartbeatRequestData;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class DefaultsTest {
    @Test
    void missingFieldsTakeTheirDefaultsAndUnknownKeysAreRefused() throws Exception {
        JsonNode given = ScriptRun.MAPPER.readTree(
            "{\"groupId\":\"g\",\"memberId\":\"m\",\"topology\":{\"epoch\":3,\"subtopologies\":[{\"subtopologyId\":\"s\"}]}}");
        JsonNode filled = Defaults.fill(StreamsGroupHeartbeatRequestData.class, given, (short) 1, "");
        StreamsGroupHeartbeatRequestData data =
            MessageJson.read(StreamsGroupHeartbeatRequestData.class, filled, (short) 1);
        assertEquals(-1, data.rebalanceTimeoutMs());
        assertEquals(null, data.activeTasks());
        assertEquals(3, data.topology().epoch());
        assertTrue(data.topology().subtopologies().get(0).sourceTopics().isEmpty());
        ScriptException e = assertThrows(ScriptException.class, () -> Defaults.fill(
            StreamsGroupHeartbeatRequestData.class,
            ScriptRun.MAPPER.readTree("{\"topology\":{\"subtopologies\":[{\"sourceTopic\":[]}]}}"), (short) 1, ""));
        assertEquals("topology.subtopologies[0]: unknown field \"sourceTopic\"", e.getMessage());
        assertThrows(ScriptException.class, () -> Defaults.fill(
            StreamsGroupHeartbeatRequestData.class, ScriptRun.MAPPER.readTree("{\"unknownTaggedFields\":[]}"),
            (short) 1, ""));
    }
}

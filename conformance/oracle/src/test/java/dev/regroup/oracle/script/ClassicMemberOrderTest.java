package dev.regroup.oracle.script;

import org.junit.jupiter.api.Test;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;

class ClassicMemberOrderTest {
    @Test
    void aKeyPutRightAfterARemovalTakesItsPlace() {
        Map<String, Integer> init = new LinkedHashMap<>();
        init.put("a", 1);
        init.put("b", 2);
        init.put("c", 3);
        ClassicMemberOrder.PlaceKeepingMap<String, Integer> m = new ClassicMemberOrder.PlaceKeepingMap<>(init);
        m.remove("b");
        m.put("b2", 4);
        assertEquals(List.of("a", "b2", "c"), List.copyOf(m.keySet()));
        // Anything in between (here a read) ends the replacement: the next key goes last.
        m.remove("a");
        m.get("c");
        m.put("d", 5);
        assertEquals(List.of("b2", "c", "d"), List.copyOf(m.keySet()));
    }
}

package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Small scripts with exact outcomes, run through Kafka's coordinator. */
class ScriptRunTest {
    private static List<JsonNode> run(String... lines) throws IOException {
        List<String> out = ScriptMain.runToLines(List.of(lines));
        List<JsonNode> parsed = new ArrayList<>();
        for (String l : out) {
            if (l.startsWith("error: ")) throw new AssertionError(l);
            parsed.add(ScriptRun.MAPPER.readTree(l));
        }
        return parsed;
    }

    @Test
    void streamsJoinHeartbeatAndSessionTimeout() throws IOException {
        List<JsonNode> out = run(
            "{\"at\":0,\"config\":{\"group.streams.initial.rebalance.delay.ms\":0}}",
            "{\"at\":0,\"metadata\":{\"topics\":[{\"name\":\"foo\",\"partitions\":2}]}}",
            "{\"at\":10,\"request\":{\"api\":\"StreamsGroupHeartbeat\",\"version\":1,\"body\":{\"groupId\":\"g\","
                + "\"memberId\":\"m\",\"memberEpoch\":0,\"rebalanceTimeoutMs\":1500,\"processId\":\"p\",\"topology\":"
                + "{\"epoch\":0,\"subtopologies\":[{\"subtopologyId\":\"s0\",\"sourceTopics\":[\"foo\"]}]},"
                + "\"activeTasks\":[],\"standbyTasks\":[],\"warmupTasks\":[]}},\"context\":{\"clientId\":\"c\"}}",
            "{\"at\":20,\"request\":{\"api\":\"StreamsGroupHeartbeat\",\"version\":1,\"body\":{\"groupId\":\"g\","
                + "\"memberId\":\"m\",\"memberEpoch\":2}}}",
            "{\"at\":50000}");
        assertEquals(3, out.size());
        JsonNode join = out.get(0);
        assertEquals(3, join.get("line").asInt());
        assertEquals(2, join.at("/response/memberEpoch").asInt());
        assertEquals("[0,1]", join.at("/response/activeTasks/0/partitions").toString());
        List<String> types = new ArrayList<>();
        join.get("records").forEach(r -> types.add(r.get("type").asText()));
        assertEquals(List.of("StreamsGroupMemberMetadata", "StreamsGroupTopology", "StreamsGroupMetadata",
            "StreamsGroupTargetAssignmentMember", "StreamsGroupTargetAssignmentMetadata",
            "StreamsGroupCurrentMemberAssignment"), types);
        // The metadata hash covers foo's derived id: the value regroup computes for the same image.
        assertEquals(-179727054782814722L, join.at("/records/2/value/metadataHash").asLong());
        assertTrue(out.get(1).at("/response/activeTasks").isNull());
        assertEquals("session-timeout-g-m", out.get(2).get("timer").asText());
        assertEquals(45020, out.get(2).get("at").asLong());
    }

    @Test
    void generatedMemberIdsAreNamedAfterTheirJoinLine() throws IOException {
        String join = "{\"at\":%d,\"request\":{\"api\":\"JoinGroup\",\"version\":9,\"body\":{\"groupId\":\"cg\","
            + "\"sessionTimeoutMs\":10000,\"rebalanceTimeoutMs\":30000,\"memberId\":\"%s\",\"protocolType\":\"consumer\","
            + "\"protocols\":[{\"name\":\"range\",\"metadata\":\"\"}]}},\"context\":{\"clientId\":\"c1\"}}";
        List<JsonNode> out = run(
            "{\"at\":0,\"config\":{\"group.initial.rebalance.delay.ms\":0}}",
            String.format(join, 10, ""),
            String.format(join, 11, "$gen:2"),
            "{\"at\":12}");
        // MEMBER_ID_REQUIRED hands out the id of line 2; the rejoin with that name is parked, then
        // completed by the join timer.
        assertEquals(79, out.get(0).at("/response/errorCode").asInt());
        assertEquals("$gen:2", out.get(0).at("/response/memberId").asText());
        assertTrue(out.get(1).get("response").isNull());
        assertEquals("join-cg", out.get(2).get("timer").asText());
        assertEquals(3, out.get(3).get("line").asInt());
        assertEquals("$gen:2", out.get(3).at("/response/leader").asText());
        assertEquals(1, out.get(3).at("/response/generationId").asInt());
    }

    @Test
    void configsMustComeFirst() throws IOException {
        List<String> out = ScriptMain.runToLines(List.of(
            "{\"at\":0,\"metadata\":{\"topics\":[]}}",
            "{\"at\":1,\"config\":{\"group.initial.rebalance.delay.ms\":0}}"));
        assertEquals(List.of("error: line 2: broker configs must come before the first metadata, groupConfig or "
            + "request line (Kafka reads them once, at start-up)"), out);
    }
}

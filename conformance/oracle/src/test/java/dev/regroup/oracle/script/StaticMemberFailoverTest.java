package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka 4.4.0's coordinator on a coordinator fail-over in the middle of a static member's rejoin (the
 * swarm-classic-static failures of seeds 1012, 1031, 1074, 1201, 1310, 1350, 2033, 2038 and swarm-mixed
 * 2035). A JoinGroup hands the member a new member id that only the generation's GroupMetadata record,
 * written at the leader's SyncGroup, persists; a coordinator that loads the partition before that record
 * is committed maps the instance to the old id and fences the member (FENCED_INSTANCE_ID, fatal for the
 * Java consumer) until the old id's session, armed at load, expires. regroup's
 * {@code classic_load::a_static_member_id_not_yet_written_is_fenced_by_the_next_coordinator} is the same
 * sequence.
 */
class StaticMemberFailoverTest {
    private static final short FENCED_INSTANCE_ID = 82;
    private static final short UNKNOWN_MEMBER_ID = 25;
    /** A consumer-protocol subscription (v0) to "orders". */
    private static final String SUBSCRIPTION = Base64.getEncoder().encodeToString(new byte[] {
        0, 0, 0, 0, 0, 1, 0, 6, 'o', 'r', 'd', 'e', 'r', 's', (byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff});

    private static ObjectNode join(String memberId, String instance) {
        ObjectNode b = ScriptRun.MAPPER.createObjectNode();
        b.put("groupId", "billing");
        b.put("sessionTimeoutMs", 10000);
        b.put("rebalanceTimeoutMs", 20000);
        b.put("memberId", memberId);
        b.put("groupInstanceId", instance);
        b.put("protocolType", "consumer");
        ObjectNode p = b.putArray("protocols").addObject();
        p.put("name", "range");
        p.put("metadata", SUBSCRIPTION);
        return b;
    }

    private static ObjectNode sync(String memberId, String instance, int generation, List<String> assigned) {
        ObjectNode b = ScriptRun.MAPPER.createObjectNode();
        b.put("groupId", "billing");
        b.put("generationId", generation);
        b.put("memberId", memberId);
        b.put("groupInstanceId", instance);
        b.put("protocolType", "consumer");
        b.put("protocolName", "range");
        var a = b.putArray("assignments");
        for (String m : assigned) {
            a.addObject().put("memberId", m).put("assignment", "");
        }
        return b;
    }

    private static ObjectNode heartbeat(String memberId, String instance, int generation) {
        ObjectNode b = ScriptRun.MAPPER.createObjectNode();
        b.put("groupId", "billing");
        b.put("generationId", generation);
        b.put("memberId", memberId);
        b.put("groupInstanceId", instance);
        return b;
    }

    private static CompletableFuture<JsonNode> send(KafkaCoordinator k, String api, short version, JsonNode body) {
        return k.request(api, version, body, "client", "/10.0.0.1");
    }

    private static void fireUntil(KafkaCoordinator k, long atMs) {
        while (k.fireNext(atMs) != null) {
            // every timer due by atMs, at its deadline
        }
        k.setTime(atMs);
    }

    /** The code of a completed response. */
    private static int error(CompletableFuture<JsonNode> response) {
        assertTrue(response.isDone(), "answered");
        return response.join().get("errorCode").asInt();
    }

    /** Two static members i0 (leader) and i1 in a stable generation 1, its GroupMetadata committed. */
    private record Stable(KafkaCoordinator coordinator, List<MemoryLog.Written> committed, String leader, String follower) { }

    private static Stable stableGroup() {
        KafkaCoordinator a = new KafkaCoordinator(Map.of());
        a.setTime(0);
        var j0 = send(a, "JoinGroup", (short) 9, join("", "i0"));
        var j1 = send(a, "JoinGroup", (short) 9, join("", "i1"));
        fireUntil(a, 6000); // the initial rebalance delay, extended once by the second join
        String m0 = j0.join().get("memberId").asText();
        String m1 = j1.join().get("memberId").asText();
        assertEquals(m0, j0.join().get("leader").asText());
        assertEquals(0, error(send(a, "SyncGroup", (short) 5, sync(m0, "i0", 1, List.of(m0, m1)))));
        assertEquals(0, error(send(a, "SyncGroup", (short) 5, sync(m1, "i1", 1, List.of()))));
        List<MemoryLog.Written> committed = new ArrayList<>(a.drainRecords());
        assertEquals("GroupMetadata", RecordJson.of(committed.get(committed.size() - 1)).get("type").asText());
        return new Stable(a, committed, m0, m1);
    }

    /** The coordinator that loads {@code committed} fences {@code newId} until the old id expires. */
    private static void assertFencedByTheNextCoordinator(List<MemoryLog.Written> committed, String newId, int generation) {
        KafkaCoordinator b = new KafkaCoordinator(Map.of(), committed);
        b.setTime(100);
        assertEquals(FENCED_INSTANCE_ID, error(send(b, "JoinGroup", (short) 9, join(newId, "i1"))));
        assertEquals(FENCED_INSTANCE_ID, error(send(b, "Heartbeat", (short) 4, heartbeat(newId, "i1", generation))));
        assertEquals(FENCED_INSTANCE_ID, error(send(b, "SyncGroup", (short) 5, sync(newId, "i1", generation, List.of()))));

        KafkaCoordinator c = new KafkaCoordinator(Map.of(), committed);
        fireUntil(c, 10_001); // the loaded members' sessions (10 s from the load) expire
        assertEquals(UNKNOWN_MEMBER_ID, error(send(c, "JoinGroup", (short) 9, join(newId, "i1"))));
    }

    /** seeds 1012, 1074, 1201, 1310, 2038: a restarted process replaces i1 while the group rebalances. */
    @Test
    void replacementDuringARebalanceIsFencedAfterFailover() {
        Stable s = stableGroup();
        KafkaCoordinator a = s.coordinator();
        a.setTime(7000);
        var leader = send(a, "JoinGroup", (short) 9, join(s.leader(), "i0"));
        var restarted = send(a, "JoinGroup", (short) 9, join("", "i1"));
        fireUntil(a, 7000);
        assertEquals(0, error(restarted));
        assertEquals(0, error(leader));
        String newId = restarted.join().get("memberId").asText();
        assertNotEquals(s.follower(), newId);
        assertEquals(2, restarted.join().get("generationId").asInt());
        assertTrue(a.drainRecords().isEmpty(), "the replacement is not written before the sync");
        assertFencedByTheNextCoordinator(s.committed(), newId, 2);
    }

    /** seeds 1031, 1350, 2033, swarm-mixed 2035: i1's session expired, it joins again as a new member. */
    @Test
    void newMemberAfterSessionExpiryIsFencedAfterFailover() {
        Stable s = stableGroup();
        KafkaCoordinator a = s.coordinator();
        for (long t = 7000; t <= 17000; t += 1000) {
            fireUntil(a, t);
            // NONE, then REBALANCE_IN_PROGRESS once i1's session expired (at 16000).
            send(a, "Heartbeat", (short) 4, heartbeat(s.leader(), "i0", 1));
        }
        assertEquals(UNKNOWN_MEMBER_ID, error(send(a, "Heartbeat", (short) 4, heartbeat(s.follower(), "i1", 1))));
        var rejoined = send(a, "JoinGroup", (short) 9, join("", "i1"));
        var leader = send(a, "JoinGroup", (short) 9, join(s.leader(), "i0"));
        assertEquals(0, error(rejoined));
        assertEquals(0, error(leader));
        String newId = rejoined.join().get("memberId").asText();
        assertEquals(2, rejoined.join().get("generationId").asInt());
        assertTrue(a.drainRecords().isEmpty(), "the new member is not written before the sync");
        assertFencedByTheNextCoordinator(s.committed(), newId, 2);
    }
}

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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Kafka 4.4.0's coordinator hands a classic group's generation numbers out again after a coordinator
 * fail-over. {@code GroupMetadataManager.completeClassicGroupJoin} bumps the generation in memory
 * ({@code ClassicGroup.initNextGeneration}) and writes a GroupMetadata record only when the group is left
 * empty; for a non-empty group the generation is written only by the leader's SyncGroup
 * ({@code GroupMetadataManager.classicGroupSyncToClassicGroup}). A generation whose leader never
 * synced (or whose write is lost with the coordinator) exists only in the memory of the coordinator that
 * handed it out. The sequence, with one dynamic member M:
 * <ol>
 *   <li>M joins the new group "billing" (MEMBER_ID_REQUIRED, then the join completes after the initial
 *       rebalance delay at generation 1) and syncs as leader: generation 1 is written; those records are the
 *       committed log.</li>
 *   <li>M, the leader of the Stable group, rejoins ({@code classicGroupJoinExistingMember}: a leader's join
 *       in Stable rebalances): the join completes at once with generation 2, nothing written.</li>
 *   <li>M rejoins with a new subscription while the group is CompletingRebalance: generation 3, nothing
 *       written. An OffsetCommit carrying generation 2 gets ILLEGAL_GENERATION from this coordinator (one
 *       carrying 3, REBALANCE_IN_PROGRESS).</li>
 *   <li>A second coordinator loads the committed records only (Stable, generation 1, M the leader). M's
 *       SyncGroup of generation 3 gets ILLEGAL_GENERATION; M rejoins with its member id and the join
 *       completes at generation 2 again (lower than the 3 M was given; the number of the lost 2, now with
 *       another subscription and, after the sync, an assignment the lost one never had). An OffsetCommit
 *       carrying the lost generation 2 gets REBALANCE_IN_PROGRESS until the leader syncs, then is accepted;
 *       one carrying 3 gets ILLEGAL_GENERATION ({@code ClassicGroup.validateOffsetCommit} compares only the
 *       number).</li>
 * </ol>
 * regroup's {@code classic_load::a_generation_not_yet_written_is_numbered_again_by_the_next_coordinator}
 * is the same sequence.
 */
class ClassicGenerationReuseTest {
    private static final short NONE = 0;
    private static final short ILLEGAL_GENERATION = 22;
    private static final short REBALANCE_IN_PROGRESS = 27;
    private static final short MEMBER_ID_REQUIRED = 79;

    /** A consumer-protocol subscription (v0) to {@code topics}, without user data. */
    private static String subscription(String... topics) {
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream data = new java.io.DataOutputStream(out);
        try {
            data.writeShort(0);
            data.writeInt(topics.length);
            for (String t : topics) data.writeUTF(t);
            data.writeInt(-1);
        } catch (java.io.IOException e) {
            throw new IllegalStateException(e);
        }
        return Base64.getEncoder().encodeToString(out.toByteArray());
    }

    private static final String ORDERS = subscription("orders");
    private static final String ORDERS_AND_PAYMENTS = subscription("orders", "payments");
    private static final String ASSIGNMENT_1 = Base64.getEncoder().encodeToString(new byte[] {1});
    private static final String ASSIGNMENT_2 = Base64.getEncoder().encodeToString(new byte[] {2});

    private static ObjectNode join(String memberId, String metadata) {
        ObjectNode b = ScriptRun.MAPPER.createObjectNode();
        b.put("groupId", "billing");
        b.put("sessionTimeoutMs", 10000);
        b.put("rebalanceTimeoutMs", 20000);
        b.put("memberId", memberId);
        b.putNull("groupInstanceId");
        b.put("protocolType", "consumer");
        ObjectNode p = b.putArray("protocols").addObject();
        p.put("name", "range");
        p.put("metadata", metadata);
        return b;
    }

    private static ObjectNode sync(String memberId, int generation, String assignment) {
        ObjectNode b = ScriptRun.MAPPER.createObjectNode();
        b.put("groupId", "billing");
        b.put("generationId", generation);
        b.put("memberId", memberId);
        b.putNull("groupInstanceId");
        b.put("protocolType", "consumer");
        b.put("protocolName", "range");
        var a = b.putArray("assignments");
        if (assignment != null) a.addObject().put("memberId", memberId).put("assignment", assignment);
        return b;
    }

    private static ObjectNode commit(String memberId, int generation, long offset) {
        ObjectNode b = ScriptRun.MAPPER.createObjectNode();
        b.put("groupId", "billing");
        b.put("generationIdOrMemberEpoch", generation);
        b.put("memberId", memberId);
        b.putNull("groupInstanceId");
        ObjectNode t = b.putArray("topics").addObject();
        t.put("name", "orders");
        t.putArray("partitions").addObject().put("partitionIndex", 0).put("committedOffset", offset);
        return b;
    }

    private static ObjectNode topics() {
        ObjectNode m = ScriptRun.MAPPER.createObjectNode();
        m.putArray("topics").addObject().put("name", "orders").put("partitions", 1);
        return m;
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

    /** The answered JoinGroup. */
    private static JsonNode joined(CompletableFuture<JsonNode> response) {
        assertTrue(response.isDone(), "answered");
        return response.join();
    }

    /** The code of a completed response. */
    private static int error(CompletableFuture<JsonNode> response) {
        return joined(response).get("errorCode").asInt();
    }

    /** The code of the one partition of a completed OffsetCommit response. */
    private static int commitError(CompletableFuture<JsonNode> response) {
        return joined(response).get("topics").get(0).get("partitions").get(0).get("errorCode").asInt();
    }

    private static JsonNode lastGroupMetadata(List<MemoryLog.Written> records) {
        JsonNode last = null;
        for (MemoryLog.Written w : records) {
            ObjectNode r = RecordJson.of(w);
            if (r.get("type").asText().equals("GroupMetadata")) last = r;
        }
        return last;
    }

    @Test
    void aGenerationNotYetWrittenIsNumberedAgainByTheNextCoordinator() {
        // 1. M joins the new group and syncs as leader: generation 1 is written.
        KafkaCoordinator a = new KafkaCoordinator(Map.of());
        a.setTopics(topics());
        a.setTime(0);
        var first = send(a, "JoinGroup", (short) 9, join("", ORDERS));
        assertEquals(MEMBER_ID_REQUIRED, error(first));
        String m = joined(first).get("memberId").asText();
        var j1 = send(a, "JoinGroup", (short) 9, join(m, ORDERS));
        assertFalse(j1.isDone(), "the initial rebalance delay");
        fireUntil(a, 3000);
        assertEquals(NONE, error(j1));
        assertEquals(1, joined(j1).get("generationId").asInt());
        assertEquals(m, joined(j1).get("leader").asText());
        var s1 = send(a, "SyncGroup", (short) 5, sync(m, 1, ASSIGNMENT_1));
        assertEquals(NONE, error(s1));
        assertEquals(ASSIGNMENT_1, joined(s1).get("assignment").asText());
        List<MemoryLog.Written> committed = new ArrayList<>(a.drainRecords());
        JsonNode written = lastGroupMetadata(committed);
        assertEquals(1, written.get("value").get("generation").asInt());
        assertEquals(m, written.get("value").get("leader").asText());

        // 2. The leader rejoins the Stable group: the join completes at once, generation 2, no record.
        a.setTime(4000);
        var j2 = send(a, "JoinGroup", (short) 9, join(m, ORDERS));
        assertEquals(NONE, error(j2));
        assertEquals(2, joined(j2).get("generationId").asInt());
        assertEquals(m, joined(j2).get("leader").asText());
        assertTrue(a.drainRecords().isEmpty(), "completing the join of a non-empty group writes nothing");

        // 3. New metadata while CompletingRebalance: generation 3, no record; generation 2 is stale here.
        a.setTime(5000);
        var j3 = send(a, "JoinGroup", (short) 9, join(m, ORDERS_AND_PAYMENTS));
        assertEquals(NONE, error(j3));
        assertEquals(3, joined(j3).get("generationId").asInt());
        assertTrue(a.drainRecords().isEmpty(), "completing the join of a non-empty group writes nothing");
        assertEquals(ILLEGAL_GENERATION, commitError(send(a, "OffsetCommit", (short) 8, commit(m, 2, 5))));
        assertEquals(REBALANCE_IN_PROGRESS, commitError(send(a, "OffsetCommit", (short) 8, commit(m, 3, 5))));
        assertTrue(a.drainRecords().isEmpty(), "no commit admitted");

        // 4. The partition moves before generation 2 or 3 is written: the next coordinator knows generation 1.
        KafkaCoordinator b = new KafkaCoordinator(Map.of(), committed);
        b.setTopics(topics());
        b.setTime(6000);
        // M's SyncGroup of generation 3 reaches the new coordinator.
        assertEquals(ILLEGAL_GENERATION, error(send(b, "SyncGroup", (short) 5, sync(m, 3, ASSIGNMENT_2))));
        var j4 = send(b, "JoinGroup", (short) 9, join(m, ORDERS_AND_PAYMENTS));
        assertEquals(NONE, error(j4));
        assertEquals(2, joined(j4).get("generationId").asInt(), "generation 2 handed out again");
        assertEquals(m, joined(j4).get("leader").asText());
        assertEquals(ORDERS_AND_PAYMENTS, joined(j4).get("members").get(0).get("metadata").asText());
        assertTrue(b.drainRecords().isEmpty(), "completing the join of a non-empty group writes nothing");

        // A commit carrying the lost generation 2 (or the 3 M was given).
        assertEquals(REBALANCE_IN_PROGRESS, commitError(send(b, "OffsetCommit", (short) 8, commit(m, 2, 7))));
        assertEquals(ILLEGAL_GENERATION, commitError(send(b, "OffsetCommit", (short) 8, commit(m, 3, 7))));
        var s4 = send(b, "SyncGroup", (short) 5, sync(m, 2, ASSIGNMENT_2));
        assertEquals(NONE, error(s4));
        assertEquals(ASSIGNMENT_2, joined(s4).get("assignment").asText());
        JsonNode generation2 = lastGroupMetadata(b.drainRecords());
        assertEquals(2, generation2.get("value").get("generation").asInt());
        assertEquals(ASSIGNMENT_2, generation2.get("value").get("members").get(0).get("assignment").asText());
        assertEquals(NONE, commitError(send(b, "OffsetCommit", (short) 8, commit(m, 2, 7))),
            "a commit carrying the number of a lost generation is admitted");
        assertEquals("OffsetCommit", RecordJson.of(b.drainRecords().get(0)).get("type").asText());
        assertEquals(ILLEGAL_GENERATION, commitError(send(b, "OffsetCommit", (short) 8, commit(m, 3, 8))));
        a.close();
        b.close();
    }
}

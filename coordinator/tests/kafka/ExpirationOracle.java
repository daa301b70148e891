// Runs Apache Kafka 4.4.0's own GroupCoordinatorShard (the released kafka-group-coordinator jar) on the
// offset-expiration and topic-deletion scenarios of coordinator/tests/offset_expiration.rs and prints
// the records it produces, in order, so that the Rust tests can assert exactly Kafka's records.
//
// Run from the repository root (after `mvn -q -f conformance/oracle/pom.xml package`, which fetches the
// jars):
//   javac -d /tmp/expiration-oracle -cp 'conformance/oracle/target/lib/*' coordinator/tests/kafka/ExpirationOracle.java
//   java -cp '/tmp/expiration-oracle:conformance/oracle/target/lib/*' ExpirationOracle
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.internals.ConsumerProtocol;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.common.runtime.CoordinatorExecutor;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorResult;
import org.apache.kafka.coordinator.common.runtime.CoordinatorTimer;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordHelpers;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard.DeletedTopic;
import org.apache.kafka.coordinator.group.OffsetAndMetadata;
import org.apache.kafka.coordinator.group.generated.GroupMetadataKey;
import org.apache.kafka.coordinator.group.generated.GroupMetadataValue;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;
import org.apache.kafka.coordinator.group.streams.StreamsCoordinatorRecordHelpers;
import org.apache.kafka.server.common.ApiMessageAndVersion;
import org.apache.kafka.timeline.SnapshotRegistry;

import com.yammer.metrics.core.MetricsRegistry;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

public final class ExpirationOracle {
    /** A clock the scenarios move by hand. */
    static final class ManualTime implements Time {
        long now;
        public long milliseconds() { return now; }
        public long nanoseconds() { return now * 1_000_000L; }
        public void sleep(long ms) { now += ms; }
        public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) { throw new UnsupportedOperationException(); }
    }

    /** Records the timers the shard schedules (key -> deadline); nothing fires by itself. */
    static final class Timers implements CoordinatorTimer<CoordinatorRecord> {
        final ManualTime time;
        final TreeMap<String, Long> deadlines = new TreeMap<>();
        Timers(ManualTime time) { this.time = time; }
        public void schedule(String key, long delay, TimeUnit unit, boolean retry, TimeoutOperation<CoordinatorRecord> op) {
            deadlines.put(key, time.now + unit.toMillis(delay));
        }
        public void schedule(String key, long delay, TimeUnit unit, boolean retry, long backoff, TimeoutOperation<CoordinatorRecord> op) {
            deadlines.put(key, time.now + unit.toMillis(delay));
        }
        public void scheduleIfAbsent(String key, long delay, TimeUnit unit, boolean retry, TimeoutOperation<CoordinatorRecord> op) {
            deadlines.putIfAbsent(key, time.now + unit.toMillis(delay));
        }
        public void cancel(String key) { deadlines.remove(key); }
        public boolean isScheduled(String key) { return deadlines.containsKey(key); }
    }

    static final class NoExecutor implements CoordinatorExecutor<CoordinatorRecord> {
        public <R> boolean schedule(String key, TaskRunnable<R> task, TaskOperation<CoordinatorRecord, R> op) { return false; }
        public boolean isScheduled(String key) { return false; }
        public void cancel(String key) { }
    }

    final ManualTime time = new ManualTime();
    final Timers timers = new Timers(time);
    final GroupCoordinatorShard shard;
    long offset = 0;

    ExpirationOracle(int retentionMinutes) {
        Map<String, Object> props = Map.of(
            GroupCoordinatorConfig.OFFSETS_RETENTION_MINUTES_CONFIG, retentionMinutes,
            GroupCoordinatorConfig.OFFSETS_RETENTION_CHECK_INTERVAL_MS_CONFIG, 600_000L);
        GroupCoordinatorConfig config = GroupCoordinatorConfig.fromProps(props);
        GroupConfigManager configs = new GroupConfigManager(config, ShareGroupConfig.fromProps(Map.of()));
        SnapshotRegistry registry = new SnapshotRegistry(new LogContext());
        GroupCoordinatorShard.Builder builder = new GroupCoordinatorShard.Builder(config, configs);
        builder.withAuthorizerPlugin(Optional.empty());
        builder.withLogContext(new LogContext())
            .withSnapshotRegistry(registry)
            .withTime(time)
            .withTimer(timers)
            .withExecutor(new NoExecutor())
            .withCoordinatorMetrics(new GroupCoordinatorMetrics(new MetricsRegistry(), new Metrics()))
            .withTopicPartition(new TopicPartition("__consumer_offsets", 0));
        shard = builder.build();
        shard.onLoaded(CoordinatorMetadataImage.EMPTY);
    }

    void replay(CoordinatorRecord record) { shard.replay(offset++, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, record); }
    void replayTxn(long producerId, CoordinatorRecord record) { shard.replay(offset++, producerId, (short) 0, record); }

    static CoordinatorRecord commit(String group, String topic, int partition, long committed, long timestamp, Uuid topicId) {
        return GroupCoordinatorRecordHelpers.newOffsetCommitRecord(group, topic, partition,
            new OffsetAndMetadata(committed, OptionalInt.empty(), "", timestamp, OptionalLong.empty(), topicId));
    }

    static CoordinatorRecord commit(String group, String topic, int partition, long committed, long timestamp) {
        return commit(group, topic, partition, committed, timestamp, Uuid.ZERO_UUID);
    }

    /** A consumer-protocol classic group: Stable with one member subscribed to `topics`, or Empty. */
    static CoordinatorRecord classicGroup(String group, long stateTimestamp, String... topics) {
        GroupMetadataValue value = new GroupMetadataValue()
            .setProtocolType("consumer")
            .setGeneration(1)
            .setCurrentStateTimestamp(stateTimestamp);
        if (topics.length > 0) {
            ByteBuffer sub = ConsumerProtocol.serializeSubscription(new ConsumerPartitionAssignor.Subscription(List.of(topics)));
            byte[] bytes = new byte[sub.remaining()];
            sub.get(bytes);
            value.setProtocol("range").setLeader("member")
                .setMembers(List.of(new GroupMetadataValue.MemberMetadata()
                    .setMemberId("member").setClientId("client").setClientHost("host")
                    .setRebalanceTimeout(10000).setSessionTimeout(10000)
                    .setSubscription(bytes).setAssignment(new byte[0])));
        }
        return CoordinatorRecord.record(new GroupMetadataKey().setGroup(group), new ApiMessageAndVersion(value, (short) 3));
    }

    static String render(CoordinatorRecord r) {
        String key = r.key().toString();
        return key + (r.value() == null ? " null" : " " + r.value().message().getClass().getSimpleName());
    }

    List<CoordinatorRecord> sweep(String label) {
        CoordinatorResult<Void, CoordinatorRecord> result = shard.cleanupGroupMetadata();
        System.out.println("== " + label + " at " + time.now + " (next sweep at "
            + timers.deadlines.get("expire-group-metadata") + ")");
        for (CoordinatorRecord r : result.records()) System.out.println(render(r));
        result.records().forEach(this::replay);
        return result.records();
    }

    void deleteTopics(String label, List<DeletedTopic> topics) {
        CoordinatorResult<Void, CoordinatorRecord> result = shard.onTopicsDeleted(topics);
        System.out.println("== " + label);
        for (CoordinatorRecord r : result.records()) System.out.println(render(r));
        result.records().forEach(this::replay);
    }

    public static void main(String[] args) {
        // testCleanupExpiredOffsets with a real group: Stable, consumer protocol, subscribed to firstTopic.
        ExpirationOracle o = new ExpirationOracle(1);
        o.replay(classicGroup("group-id", 0, "firstTopic"));
        o.replay(commit("group-id", "firstTopic", 0, 100, 0));
        o.replay(commit("group-id", "secondTopic", 0, 100, 0));
        o.replay(commit("group-id", "secondTopic", 1, 100, 500));
        o.time.now = 60_000;
        o.sweep("cleanup-expired-offsets 1");
        o.time.now = 60_500;
        o.sweep("cleanup-expired-offsets 2");
        o.replay(classicGroup("group-id", 0, "otherTopic"));
        o.replay(commit("group-id", "firstTopic", 1, 100, 500));
        o.replay(commit("group-id", "secondTopic", 0, 101, 500));
        o.sweep("cleanup-expired-offsets 3");

        // testCleanupExpiredOffsetsWithPendingTransactionalOffsetsOnly (a simple group).
        o = new ExpirationOracle(1);
        o.replay(commit("group-id", "foo", 0, 100, 0));
        o.replayTxn(10, commit("group-id", "foo", 1, 101, 500));
        o.time.now = 60_000;
        o.sweep("pending-only 1");
        o.sweep("pending-only 2");
        o.shard.replayEndTransactionMarker(10, (short) 0, TransactionResult.ABORT);
        o.sweep("pending-only 3 (after abort)");

        // testCleanupExpiredOffsetsWithPendingTransactionalOffsets.
        o = new ExpirationOracle(1);
        o.replay(commit("group-id", "foo", 0, 100, 0));
        o.replayTxn(10, commit("group-id", "foo", 0, 101, 500));
        o.time.now = 60_000;
        o.sweep("pending same partition");

        // testOnTopicsDeleted{ZeroTopicId,MatchingTopicId,MismatchedTopicId,MixedTopicIds}.
        Uuid foo = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAQ");
        Uuid other = Uuid.fromString("AAAAAAAAAAAAAAAAAAAAAg");
        o = new ExpirationOracle(1);
        for (int p = 1; p <= 3; p++) o.replay(commit("grp-0", "foo", p, 100L * p, 0));
        for (int p = 1; p <= 3; p++) o.replay(commit("grp-1", "bar", p, 100L * p, 0));
        for (int p = 1; p <= 3; p++) o.replayTxn(100, commit("grp-2", "foo", p, 100L * p, 0));
        o.deleteTopics("zero topic id", List.of(new DeletedTopic(foo, "foo")));
        o = new ExpirationOracle(1);
        o.replay(commit("grp-0", "foo", 1, 100, 0, foo));
        o.replay(commit("grp-0", "foo", 2, 200, 0, foo));
        o.deleteTopics("matching topic id", List.of(new DeletedTopic(foo, "foo")));
        o = new ExpirationOracle(1);
        o.replay(commit("grp-0", "foo", 1, 100, 0, other));
        o.replay(commit("grp-0", "foo", 2, 200, 0, other));
        o.deleteTopics("mismatched topic id", List.of(new DeletedTopic(foo, "foo")));
        o = new ExpirationOracle(1);
        o.replay(commit("grp-0", "foo", 1, 100, 0, foo));
        o.replay(commit("grp-0", "foo", 2, 200, 0, Uuid.ZERO_UUID));
        o.deleteTopics("mixed topic ids", List.of(new DeletedTopic(foo, "foo")));

        // A committed and a pending offset of one partition, two deleted topics.
        o = new ExpirationOracle(1);
        o.replay(commit("g", "foo", 0, 1, 0, foo));
        o.replayTxn(7, commit("g", "foo", 0, 2, 0, foo));
        o.replay(commit("g", "bar", 4, 3, 0, other));
        o.replay(commit("g", "bar", 0, 3, 0));
        o.replay(commit("h", "bar", 1, 3, 0, other));
        o.deleteTopics("two topics, committed and pending", List.of(new DeletedTopic(foo, "foo"), new DeletedTopic(other, "bar")));

        // Every group type in one sweep.
        o = new ExpirationOracle(1);
        o.replay(commit("simple", "foo", 0, 1, 0));
        o.replay(commit("simple", "foo", 1, 1, 30_000));
        o.replay(classicGroup("empty-classic", 30_000));
        o.replay(commit("empty-classic", "foo", 0, 1, 0));
        o.replay(classicGroup("stable-classic", 0, "foo"));
        o.replay(commit("stable-classic", "foo", 0, 1, 0));
        o.replay(commit("stable-classic", "bar", 0, 1, 0));
        o.replay(StreamsCoordinatorRecordHelpers.newStreamsGroupMetadataRecord("streams-empty", 3, 0L, 0, Map.of(), -1, -1));
        o.replay(commit("streams-empty", "foo", 0, 1, 0));
        o.replay(classicGroup("no-offsets", 0));
        o.time.now = 60_000;
        o.sweep("all group types 1");
        o.time.now = 90_000;
        o.sweep("all group types 2");
    }
}

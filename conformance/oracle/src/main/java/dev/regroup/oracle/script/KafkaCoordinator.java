package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;
import com.yammer.metrics.core.MetricsRegistry;

import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.metrics.Metrics;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.record.internal.CompressionType;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.utils.internals.LogContext;
import org.apache.kafka.coordinator.common.runtime.CoordinatorLoader;
import org.apache.kafka.coordinator.common.runtime.CoordinatorPlayback;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRuntime;
import org.apache.kafka.coordinator.group.Group;
import org.apache.kafka.coordinator.group.GroupConfig;
import org.apache.kafka.coordinator.group.GroupConfigManager;
import org.apache.kafka.coordinator.group.GroupCoordinatorConfig;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.GroupCoordinatorService;
import org.apache.kafka.coordinator.group.GroupCoordinatorShard;
import org.apache.kafka.coordinator.group.InlineServiceFactory;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorMetrics;
import org.apache.kafka.coordinator.group.metrics.GroupCoordinatorRuntimeMetrics;
import org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig;
import org.apache.kafka.server.share.persister.NoOpStatePersister;
import org.apache.kafka.server.util.PartitionMetadataClient;
import org.apache.kafka.server.util.timer.TimerTask;
import org.apache.kafka.server.util.timer.TimerTaskEntry;

import java.lang.reflect.Field;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.AbstractExecutorService;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Apache Kafka's group coordinator, in-process: Kafka's GroupCoordinatorService over Kafka's
 * CoordinatorRuntime and GroupCoordinatorShard, with the broker's surroundings replaced by simulated ones —
 * a clock the script sets ({@link SimTime}), a timer the script fires ({@link SimTimer}), an event processor
 * that runs every event inline ({@link InlineEventProcessor}), a one-replica in-memory log that commits each
 * write at once ({@link MemoryLog}), a KRaft metadata image built from the script's topics ({@link Topics}).
 * One {@code __consumer_offsets} partition, so every group lives in the same shard, as in a regroup script.
 */
final class KafkaCoordinator implements AutoCloseable {
    /** Kafka's periodic housekeeping timers: not printed when they write nothing (see the README). */
    static final Set<String> HOUSEKEEPING_TIMERS = Set.of("group-size-counter", "expire-group-metadata");

    private final SimTime time = new SimTime();
    private final SimTimer timer = new SimTimer(time);
    private final MemoryLog log = new MemoryLog();
    private final InlineEventProcessor processor = new InlineEventProcessor();
    private final Topics topics = new Topics();
    private final Metrics metrics = new Metrics();
    private final MetricsRegistry registry = new MetricsRegistry();
    private final GroupCoordinatorConfig config;
    private final ShareGroupConfig shareConfig;
    private final GroupConfigManager groupConfigs;
    private final GroupCoordinatorService service;
    private final Apis apis;
    private final ClassicMemberOrder memberOrder;
    /** Member and pending member ids of every classic group after the last step. */
    private List<String> classicMemberIds = List.of();
    private final Map<String, Map<String, String>> groupOverrides = new TreeMap<>();
    private int correlationId;

    /** The broker configs the coordinator reads: Kafka's group coordinator and share group definitions. */
    static ConfigDef brokerConfigDef() {
        ConfigDef def = new ConfigDef(GroupCoordinatorConfig.CONFIG_DEF);
        for (ConfigDef.ConfigKey key : ShareGroupConfig.CONFIG_DEF.configKeys().values()) {
            if (!def.names().contains(key.name)) def.define(key);
        }
        return def;
    }

    /** KafkaConfig's reading of `group.coordinator.rebalance.protocols` (classic cannot be disabled). */
    private static Set<Group.GroupType> rebalanceProtocols(AbstractConfig broker) {
        Set<Group.GroupType> out = new java.util.HashSet<>();
        for (String p : broker.getList(GroupCoordinatorConfig.GROUP_COORDINATOR_REBALANCE_PROTOCOLS_CONFIG)) {
            out.add(Group.GroupType.valueOf(p.toUpperCase(java.util.Locale.ROOT)));
        }
        if (!out.contains(Group.GroupType.CLASSIC)) {
            throw new ScriptException("Disabling the 'classic' protocol is not supported.");
        }
        return out;
    }

    KafkaCoordinator(Map<String, String> brokerConfigs) {
        this(brokerConfigs, List.of());
    }

    /**
     * A coordinator that takes over a partition holding {@code committed} (records another coordinator
     * wrote, as {@link #drainRecords} returned them): they are replayed when the partition is loaded, as
     * Kafka's CoordinatorLoaderImpl replays the log.
     */
    KafkaCoordinator(Map<String, String> brokerConfigs, List<MemoryLog.Written> committed) {
        log.startAfter(committed.size());
        ConfigDef def = brokerConfigDef();
        for (String k : brokerConfigs.keySet()) {
            if (!def.names().contains(k)) throw new ScriptException("unknown config " + k);
        }
        AbstractConfig broker;
        try {
            broker = new AbstractConfig(def, brokerConfigs, false);
            this.config = new GroupCoordinatorConfig(broker);
            this.shareConfig = new ShareGroupConfig(broker);
        } catch (ConfigException | IllegalArgumentException e) {
            throw new ScriptException(e.getMessage());
        }
        this.groupConfigs = new GroupConfigManager(config, shareConfig);

        GroupCoordinatorMetrics groupMetrics = new GroupCoordinatorMetrics(registry, metrics);
        CoordinatorRuntime<GroupCoordinatorShard, CoordinatorRecord> runtime =
            new CoordinatorRuntime.Builder<GroupCoordinatorShard, CoordinatorRecord>()
                .withTime(time)
                .withTimer(timer)
                .withLogPrefix("oracle")
                .withLogContext(new LogContext("[oracle] "))
                .withEventProcessor(processor)
                .withPartitionWriter(log)
                .withLoader(new LogLoader(committed))
                .withCoordinatorShardBuilderSupplier(() ->
                    new GroupCoordinatorShard.Builder(config, groupConfigs).withAuthorizerPlugin(Optional.empty()))
                .withWriteTimeout(Duration.ofMillis(config.offsetCommitTimeoutMs()))
                .withCoordinatorRuntimeMetrics(new GroupCoordinatorRuntimeMetrics(metrics))
                .withCoordinatorMetrics(groupMetrics)
                .withSerializer(new GroupCoordinatorRecordSerde())
                .withCompression(Compression.of(config.offsetTopicCompressionType() == null
                    ? CompressionType.NONE : config.offsetTopicCompressionType()).build())
                .withAppendLingerMs(config.appendLingerMs())
                .withExecutorService(new InlineExecutor())
                .withCachedBufferMaxBytesSupplier(config::cachedBufferMaxBytes)
                .build();
        this.service = InlineServiceFactory.create(config, runtime, groupMetrics, groupConfigs,
            new NoOpStatePersister(), timer, new NoPartitionMetadata(), time);
        this.memberOrder = new ClassicMemberOrder(runtime);
        this.apis = new Apis(service, rebalanceProtocols(broker).contains(Group.GroupType.STREAMS),
            rebalanceProtocols(broker).contains(Group.GroupType.CONSUMER), topics);

        service.startup(() -> 1);
        Topics.Update initial = topics.replace(List.of());
        service.onMetadataUpdate(initial.delta(), initial.image());
        service.onElection(0, 0);
        // Loading wrote nothing.
        log.drain();
    }

    List<String> classicMemberIds() {
        return classicMemberIds;
    }

    void setTime(long ms) {
        time.set(ms);
    }

    long now() {
        return time.milliseconds();
    }

    List<MemoryLog.Written> drainRecords() {
        return log.drain();
    }

    void setTopics(JsonNode metadata) {
        Topics.Update u = topics.replace(Topics.parse(metadata));
        service.onMetadataUpdate(u.delta(), u.image());
    }

    /** IncrementalAlterConfigs SET on a group: the merged overrides are validated, then applied. */
    void setGroupConfig(String groupId, Map<String, String> configs) {
        Map<String, String> merged = new TreeMap<>(groupOverrides.getOrDefault(groupId, Map.of()));
        merged.putAll(configs);
        try {
            GroupConfig.validate(merged, config, shareConfig);
        } catch (InvalidConfigurationException | ConfigException e) {
            throw new ScriptException(e.getMessage());
        }
        groupOverrides.put(groupId, merged);
        Properties props = new Properties();
        props.putAll(merged);
        service.updateGroupConfig(groupId, props);
    }

    /** A fired timer: Kafka's timer key (null for a runtime-internal task) and its deadline. */
    record Fired(String key, long deadlineMs) { }

    /** Runs the earliest timer due at or before {@code atMs}, at its own deadline; null when none is due. */
    Fired fireNext(long atMs) {
        TimerTaskEntry entry = timer.pollDue(atMs);
        if (entry == null) return null;
        time.set(Math.max(time.milliseconds(), entry.expirationMs));
        entry.timerTask.run();
        classicMemberIds = memberOrder.pin();
        return new Fired(timerKey(entry.timerTask), entry.expirationMs);
    }

    /** The key CoordinatorTimerImpl scheduled the task under (the anonymous task captures it). */
    private static String timerKey(TimerTask task) {
        for (Class<?> c = task.getClass(); c != null && c != TimerTask.class; c = c.getSuperclass()) {
            try {
                Field f = c.getDeclaredField("val$key");
                f.setAccessible(true);
                return (String) f.get(task);
            } catch (NoSuchFieldException e) {
                // not a coordinator timer task
            } catch (IllegalAccessException e) {
                throw new IllegalStateException(e);
            }
        }
        return null;
    }

    /** Sends one request; the future completes with the response JSON when the broker would send it. */
    CompletableFuture<JsonNode> request(String apiName, short version, JsonNode body, String clientId, String clientHost) {
        ApiKeys api = MessageJson.api(apiName);
        if (api == null) throw new ScriptException("unknown api \"" + apiName + "\"");
        if (version < api.oldestVersion() || version > api.latestVersion(false)) {
            throw new ScriptException(api.name + " does not support version " + version);
        }
        AbstractRequest request;
        try {
            request = MessageJson.request(api, version, body);
        } catch (RuntimeException e) {
            throw new ScriptException(api.name + " v" + version + " body: " + e.getMessage());
        }
        RequestHeader header = new RequestHeader(api, version, clientId, ++correlationId);
        RequestContext ctx = new RequestContext(header, "oracle-connection", address(clientHost),
            KafkaPrincipal.ANONYMOUS, ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT),
            SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, false);
        CompletableFuture<AbstractResponse> response = apis.handle(ctx, request);
        if (response == null) throw new ScriptException(api.name + " is not a group coordinator api");
        classicMemberIds = memberOrder.pin();
        return response.thenApply(r -> MessageJson.response(api, version, r));
    }

    /** The client address whose {@code toString()} is {@code host} ("/1.2.3.4" or "name/1.2.3.4"). */
    static InetAddress address(String host) {
        int slash = host.indexOf('/');
        if (slash < 0) throw new ScriptException("clientHost must look like \"/127.0.0.1\" or \"name/127.0.0.1\", found " + host);
        String name = host.substring(0, slash);
        String literal = host.substring(slash + 1);
        if (!literal.matches("[0-9]{1,3}(\\.[0-9]{1,3}){3}") && !literal.contains(":")) {
            throw new ScriptException("clientHost " + host + ": the part after '/' must be an IP address");
        }
        try {
            // A literal address is parsed, never resolved.
            byte[] bytes = InetAddress.getByName(literal).getAddress();
            InetAddress a = InetAddress.getByAddress(name.isEmpty() ? null : name, bytes);
            if (!a.toString().equals(host)) {
                throw new ScriptException("clientHost " + host + " is not in Java's InetAddress form (" + a + ")");
            }
            return a;
        } catch (UnknownHostException e) {
            throw new ScriptException("clientHost " + host + ": " + e.getMessage());
        }
    }

    @Override
    public void close() {
        try {
            service.shutdown();
        } catch (RuntimeException ignored) {
            // shutting down a finished script; nothing depends on it
        }
        processor.close();
        timer.close();
        metrics.close();
        registry.shutdown();
    }

    /** Replays the partition's records when it is loaded (none for a script: it starts empty). */
    private static final class LogLoader implements CoordinatorLoader<CoordinatorRecord> {
        private final List<MemoryLog.Written> records;

        LogLoader(List<MemoryLog.Written> records) {
            this.records = List.copyOf(records);
        }

        @Override
        public CompletableFuture<LoadSummary> load(TopicPartition tp, CoordinatorPlayback<CoordinatorRecord> coordinator) {
            long offset = 0;
            for (MemoryLog.Written w : records) {
                if (w.transactional()) {
                    coordinator.replay(offset, w.producerId(), w.producerEpoch(), w.record());
                } else {
                    coordinator.replay(offset, RecordBatch.NO_PRODUCER_ID, RecordBatch.NO_PRODUCER_EPOCH, w.record());
                }
                offset++;
            }
            if (offset > 0) {
                coordinator.updateLastWrittenOffset(offset);
                coordinator.updateLastCommittedOffset(offset);
            }
            return CompletableFuture.completedFuture(new LoadSummary(0, 0, 0, records.size(), 0));
        }

        @Override
        public void close() { }
    }

    /** Share groups only; never called for the groups a script drives. */
    private static final class NoPartitionMetadata implements PartitionMetadataClient {
        @Override
        public Map<TopicPartition, CompletableFuture<OffsetResponse>> listLatestOffsets(Set<TopicPartition> partitions) {
            Map<TopicPartition, CompletableFuture<OffsetResponse>> out = new HashMap<>();
            for (TopicPartition tp : partitions) {
                out.put(tp, CompletableFuture.failedFuture(new UnsupportedOperationException("no share groups")));
            }
            return out;
        }

        @Override
        public void close() { }
    }

    /** Background work of the runtime (regex resolution of consumer groups) runs inline too. */
    private static final class InlineExecutor extends AbstractExecutorService {
        private boolean shutdown;

        @Override
        public void execute(Runnable command) {
            command.run();
        }

        @Override
        public void shutdown() {
            shutdown = true;
        }

        @Override
        public List<Runnable> shutdownNow() {
            shutdown = true;
            return List.of();
        }

        @Override
        public boolean isShutdown() {
            return shutdown;
        }

        @Override
        public boolean isTerminated() {
            return shutdown;
        }

        @Override
        public boolean awaitTermination(long timeout, TimeUnit unit) {
            return true;
        }
    }
}

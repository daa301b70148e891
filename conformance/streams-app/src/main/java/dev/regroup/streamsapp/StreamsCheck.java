package dev.regroup.streamsapp;

import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;

/**
 * Runs two Kafka Streams 4.4 application instances with {@code group.protocol=streams} against a
 * broker (meant for {@code regroup serve}) and checks, from the client side, what a KIP-1071
 * streams group must give them.
 *
 * <p>Usage: {@code StreamsCheck BOOTSTRAP WORKDIR}. The broker must have a topic {@value #INPUT}
 * with {@value #INPUT_PARTITIONS} partitions. The topology re-keys the input and counts per key, so
 * it has two subtopologies (the source, and the count behind a repartition topic), a repartition
 * topic and a changelog topic, both of which the broker must create when the group first asks for
 * them (MISSING_INTERNAL_TOPICS), and {@value #TASKS} tasks.
 *
 * <p>Prints one {@code ok   name} line per passed check. On the first failure it prints
 * {@code FAIL name: detail} with what the client saw (instance states, local tasks, the group as
 * the broker describes it) and exits 1. Every wait is bounded.
 */
public final class StreamsCheck {
    static final String INPUT = "words";
    static final int INPUT_PARTITIONS = 4;
    static final int TASKS = 2 * INPUT_PARTITIONS;
    static final Duration WAIT = Duration.ofSeconds(60);

    private final String bootstrap;
    private final File workDir;
    private final Admin admin;
    private final List<Instance> running = new ArrayList<>();

    /** One KafkaStreams instance, with the last state it reported. */
    static final class Instance {
        final String name;
        final KafkaStreams streams;
        volatile KafkaStreams.State state = KafkaStreams.State.CREATED;
        volatile Throwable uncaught;

        Instance(String name, KafkaStreams streams) {
            this.name = name;
            this.streams = streams;
        }

        Set<String> activeTasks() {
            Set<String> tasks = new TreeSet<>();
            try {
                for (ThreadMetadata t : streams.metadataForLocalThreads()) {
                    for (TaskMetadata task : t.activeTasks()) {
                        tasks.add(task.taskId().toString());
                    }
                }
            } catch (RuntimeException e) {
                // Not running: no tasks.
            }
            return tasks;
        }

        @Override
        public String toString() {
            return name + "{state=" + state + ", active=" + activeTasks()
                + (uncaught == null ? "" : ", uncaught=" + uncaught) + "}";
        }
    }

    StreamsCheck(String bootstrap, File workDir) {
        this.bootstrap = bootstrap;
        this.workDir = workDir;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "regroup-streams-check-admin");
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 10000);
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 20000);
        this.admin = Admin.create(p);
    }

    static Topology topology() {
        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(INPUT, Consumed.with(Serdes.String(), Serdes.String()))
            .groupBy((key, value) -> value, Grouped.with("by-word", Serdes.String(), Serdes.String()))
            .count(Materialized.as("word-counts"));
        return builder.build();
    }

    /** Every task id of {@link #topology()}: subtopology 0 reads the input, 1 the repartition topic. */
    static Set<String> allTasks() {
        Set<String> tasks = new TreeSet<>();
        for (int sub = 0; sub < 2; sub++) {
            for (int p = 0; p < INPUT_PARTITIONS; p++) {
                tasks.add(sub + "_" + p);
            }
        }
        return tasks;
    }

    Instance start(String appId, String name, String instanceId) {
        Properties p = new Properties();
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, appId);
        p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        p.put(StreamsConfig.STATE_DIR_CONFIG, new File(workDir, appId + "/" + name).getPath());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.CLIENT_ID_CONFIG, appId + "-" + name);
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        p.put(StreamsConfig.consumerPrefix("metadata.max.age.ms"), 2000);
        if (instanceId != null) {
            p.put(StreamsConfig.mainConsumerPrefix("group.instance.id"), instanceId);
        }
        KafkaStreams streams = new KafkaStreams(topology(), p);
        Instance instance = new Instance(name, streams);
        streams.setStateListener((now, before) -> instance.state = now);
        streams.setUncaughtExceptionHandler(e -> {
            instance.uncaught = e;
            return org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler
                .StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        streams.start();
        running.add(instance);
        return instance;
    }

    void close(Instance instance) {
        instance.streams.close(Duration.ofSeconds(30));
        running.remove(instance);
    }

    StreamsGroupDescription describe(String appId) {
        try {
            return admin.describeStreamsGroups(List.of(appId)).all().get(20, TimeUnit.SECONDS).get(appId);
        } catch (Exception e) {
            throw new IllegalStateException("describeStreamsGroups(" + appId + ") failed: " + e, e);
        }
    }

    String describeText(String appId) {
        try {
            StreamsGroupDescription d = describe(appId);
            StringBuilder s = new StringBuilder();
            s.append("group ").append(d.groupId()).append(" state=").append(d.groupState())
                .append(" groupEpoch=").append(d.groupEpoch())
                .append(" targetAssignmentEpoch=").append(d.targetAssignmentEpoch())
                .append(" topologyEpoch=").append(d.topologyEpoch());
            for (StreamsGroupMemberDescription m : d.members()) {
                s.append("\n  member ").append(m.memberId())
                    .append(" instance=").append(m.instanceId().orElse("-"))
                    .append(" process=").append(m.processId())
                    .append(" memberEpoch=").append(m.memberEpoch())
                    .append(" assignment=").append(m.assignment().activeTasks())
                    .append(" target=").append(m.targetAssignment().activeTasks());
            }
            return s.toString();
        } catch (RuntimeException e) {
            return e.toString();
        }
    }

    void fail(String name, String detail, String appId) {
        System.out.println("FAIL " + name + ": " + detail);
        System.out.println("--- what the client saw");
        for (Instance i : running) {
            System.out.println("  " + i);
        }
        if (appId != null) {
            System.out.println("  " + describeText(appId).replace("\n", "\n  "));
        }
        System.out.flush();
        Runtime.getRuntime().halt(1);
    }

    void check(String name, boolean ok, Supplier<String> detail, String appId) {
        if (!ok) {
            fail(name, detail.get(), appId);
        }
        System.out.println("ok   " + name);
        System.out.flush();
    }

    void waitFor(String name, BooleanSupplier condition, Supplier<String> detail, String appId) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (!condition.getAsBoolean()) {
            for (Instance i : running) {
                if (i.state == KafkaStreams.State.ERROR || i.uncaught != null) {
                    fail(name, i.name + " failed: " + i, appId);
                }
            }
            if (System.nanoTime() > deadline) {
                fail(name, "not within " + WAIT.toSeconds() + " s: " + detail.get(), appId);
            }
            sleep(200);
        }
        System.out.println("ok   " + name);
        System.out.flush();
    }

    static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Whether the instances run and their active tasks are disjoint and cover every task. */
    static boolean coversAllTasks(List<Instance> instances) {
        Set<String> union = new TreeSet<>();
        int count = 0;
        for (Instance i : instances) {
            if (i.state != KafkaStreams.State.RUNNING) {
                return false;
            }
            Set<String> tasks = i.activeTasks();
            if (tasks.isEmpty()) {
                return false;
            }
            union.addAll(tasks);
            count += tasks.size();
        }
        return count == TASKS && union.equals(allTasks());
    }

    static String show(List<Instance> instances) {
        return instances.toString();
    }

    /** Partition counts of the topics whose names start with the application id. */
    Map<String, Integer> internalTopics(String appId) {
        try {
            Set<String> names = new TreeSet<>();
            for (String t : admin.listTopics().names().get(20, TimeUnit.SECONDS)) {
                if (t.startsWith(appId + "-")) {
                    names.add(t);
                }
            }
            Map<String, Integer> counts = new TreeMap<>();
            Map<String, TopicDescription> described =
                admin.describeTopics(names).allTopicNames().get(20, TimeUnit.SECONDS);
            for (Map.Entry<String, TopicDescription> e : described.entrySet()) {
                counts.put(e.getKey(), e.getValue().partitions().size());
            }
            return counts;
        } catch (Exception e) {
            throw new IllegalStateException("listing topics failed: " + e, e);
        }
    }

    static Set<String> memberTasks(StreamsGroupMemberDescription m) {
        Set<String> tasks = new TreeSet<>();
        m.assignment().activeTasks().forEach(t -> {
            for (int p : t.partitions()) {
                tasks.add(t.subtopologyId() + "_" + p);
            }
        });
        return tasks;
    }

    /** Two dynamic instances share the tasks; one closes and the other takes them all. */
    void dynamicInstances() {
        String app = "regroup-streams-dynamic";
        Instance a = start(app, "a", null);
        Instance b = start(app, "b", null);
        List<Instance> both = List.of(a, b);
        waitFor("streams: two instances reach RUNNING with disjoint active tasks covering all " + TASKS,
            () -> coversAllTasks(both), () -> show(both), app);

        Map<String, Integer> topics = internalTopics(app);
        Map<String, Integer> expected = new TreeMap<>();
        expected.put(app + "-by-word-repartition", INPUT_PARTITIONS);
        expected.put(app + "-word-counts-changelog", INPUT_PARTITIONS);
        check("streams: the broker created the repartition and changelog topics with "
                + INPUT_PARTITIONS + " partitions",
            topics.equals(expected), () -> "topics " + topics + ", expected " + expected, app);

        StreamsGroupDescription d = describe(app);
        Collection<StreamsGroupMemberDescription> members = d.members();
        Set<String> described = new TreeSet<>();
        int count = 0;
        for (StreamsGroupMemberDescription m : members) {
            described.addAll(memberTasks(m));
            count += memberTasks(m).size();
        }
        final int total = count;
        check("streams: describeStreamsGroups shows a stable group of two members owning every task once",
            d.groupState() == GroupState.STABLE && members.size() == 2
                && total == TASKS && described.equals(allTasks()),
            () -> "state " + d.groupState() + ", members " + members.size() + ", tasks " + described
                + " (" + total + ")", app);

        close(b);
        List<Instance> one = List.of(a);
        waitFor("streams: after one instance closes the other owns all " + TASKS + " tasks",
            () -> coversAllTasks(one), () -> show(one), app);
        StreamsGroupDescription after = describe(app);
        check("streams: the closed instance left the group (one member)",
            after.members().size() == 1, () -> describeText(app), app);
        close(a);
    }

    /**
     * Two static instances (group.instance.id); one closes and restarts within the session timeout
     * and gets its tasks back without a new group epoch.
     */
    void staticInstances() {
        String app = "regroup-streams-static";
        Instance a = start(app, "a", "inst-a");
        Instance b = start(app, "b", "inst-b");
        List<Instance> both = List.of(a, b);
        waitFor("streams static: two instances reach RUNNING with disjoint active tasks covering all "
                + TASKS, () -> coversAllTasks(both), () -> show(both), app);
        // Wait until the group has settled (every member at the group epoch).
        waitFor("streams static: every member reached the group epoch", () -> {
            StreamsGroupDescription d = describe(app);
            return d.members().size() == 2
                && d.members().stream().allMatch(m -> m.memberEpoch() == d.groupEpoch());
        }, () -> describeText(app), app);
        StreamsGroupDescription before = describe(app);
        Set<String> instances = new TreeSet<>();
        before.members().forEach(m -> instances.add(m.instanceId().orElse("-")));
        check("streams static: describeStreamsGroups shows the instance ids",
            instances.equals(Set.of("inst-a-1", "inst-b-1")), () -> "instance ids " + instances, app);
        Set<String> tasksOfB = b.activeTasks();

        close(b);
        Instance b2 = start(app, "b", "inst-b");
        List<Instance> again = List.of(a, b2);
        waitFor("streams static: the restarted instance runs again with the same tasks",
            () -> coversAllTasks(again) && b2.activeTasks().equals(tasksOfB),
            () -> show(again) + ", before the restart b had " + tasksOfB, app);
        StreamsGroupDescription after = describe(app);
        check("streams static: the restart within the session timeout kept the group epoch ("
                + before.groupEpoch() + ")",
            after.groupEpoch() == before.groupEpoch() && after.members().size() == 2,
            () -> "group epoch " + before.groupEpoch() + " before, " + after.groupEpoch() + " after", app);
        close(b2);
        close(a);
    }

    public static void main(String[] args) {
        if (args.length != 2) {
            System.err.println("usage: StreamsCheck BOOTSTRAP WORKDIR");
            System.exit(2);
        }
        StreamsCheck c = new StreamsCheck(args[0], new File(args[1]));
        c.dynamicInstances();
        c.staticInstances();
        c.admin.close(Duration.ofSeconds(5));
        System.out.println("streams: all checks passed");
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}

package dev.regroup.streamsapp;

import java.time.Duration;
import java.util.ArrayList;
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
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Kafka's Java consumer 4.4.0 with group.protocol=consumer (KIP-848) against regroup serve: two
 * dynamic members share a 6-partition topic, Admin.describeConsumerGroups shows the group and its
 * epochs, a commit is read back, and when one member closes the other owns everything and reads the
 * leaver's commits. The consumers are polled in turn from this thread (each is used by one thread
 * only; the KIP-848 consumer heartbeats from its own background thread).
 *
 * Usage: ConsumerCheck BOOTSTRAP   (the server has a topic t6 with 6 partitions)
 */
public final class ConsumerCheck {
    static final String TOPIC = "t6";
    static final int PARTITIONS = 6;
    static final String GROUP = "java848-dyn";

    final String bootstrap;
    final Admin admin;
    final List<KafkaConsumer<byte[], byte[]>> live = new ArrayList<>();

    ConsumerCheck(String bootstrap) {
        this.bootstrap = bootstrap;
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, "regroup-java848-admin");
        this.admin = Admin.create(p);
    }

    static void fail(String name, String detail) {
        System.out.println("FAIL " + name + ": " + detail);
        System.out.flush();
        Runtime.getRuntime().halt(1);
    }

    static void check(String name, boolean cond, Supplier<String> detail) {
        if (!cond) {
            fail(name, detail.get());
        }
        System.out.println("ok   " + name);
        System.out.flush();
    }

    /** Polls every live consumer until `cond` holds, at most 30 s. */
    void waitFor(String name, BooleanSupplier cond, Supplier<String> detail) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!cond.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                fail(name, "not within 30 s: " + detail.get());
            }
            for (KafkaConsumer<byte[], byte[]> c : live) {
                c.poll(Duration.ofMillis(100));
            }
        }
        System.out.println("ok   " + name);
        System.out.flush();
    }

    KafkaConsumer<byte[], byte[]> consumer(String clientId) {
        KafkaConsumer<byte[], byte[]> c = unsubscribed(clientId, GROUP);
        c.subscribe(List.of(TOPIC));
        return c;
    }

    KafkaConsumer<byte[], byte[]> unsubscribed(String clientId, String group) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        p.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        KafkaConsumer<byte[], byte[]> c = new KafkaConsumer<>(p);
        live.add(c);
        return c;
    }

    static Set<Integer> owned(KafkaConsumer<byte[], byte[]> c) {
        Set<Integer> out = new TreeSet<>();
        c.assignment().forEach(tp -> out.add(tp.partition()));
        return out;
    }

    static Set<Integer> owned(MemberDescription m) {
        Set<Integer> out = new TreeSet<>();
        m.assignment().topicPartitions().forEach(tp -> out.add(tp.partition()));
        return out;
    }

    ConsumerGroupDescription describe() {
        return describe(GROUP);
    }

    ConsumerGroupDescription describe(String group) {
        try {
            return admin.describeConsumerGroups(List.of(group)).all().get(10, TimeUnit.SECONDS).get(group);
        } catch (Exception e) {
            fail("describeConsumerGroups", e.toString());
            return null;
        }
    }

    /** Both members own partitions, disjoint, covering all of t6, and the group is stable. */
    boolean settled(List<KafkaConsumer<byte[], byte[]>> members) {
        Set<Integer> union = new TreeSet<>();
        int total = 0;
        for (KafkaConsumer<byte[], byte[]> c : members) {
            Set<Integer> o = owned(c);
            if (o.isEmpty()) {
                return false;
            }
            union.addAll(o);
            total += o.size();
        }
        if (total != PARTITIONS || union.size() != PARTITIONS) {
            return false;
        }
        ConsumerGroupDescription d = describe();
        return d.groupState() == GroupState.STABLE && d.members().size() == members.size()
            && d.members().stream().allMatch(m -> m.memberEpoch().equals(d.groupEpoch()));
    }

    static Map<TopicPartition, OffsetAndMetadata> offsets(Set<Integer> partitions, long base) {
        Map<TopicPartition, OffsetAndMetadata> out = new TreeMap<>(
            (x, y) -> Integer.compare(x.partition(), y.partition()));
        partitions.forEach(p -> out.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(base + p)));
        return out;
    }

    static Map<Integer, Long> committed(KafkaConsumer<byte[], byte[]> c, Set<Integer> partitions) {
        Set<TopicPartition> tps = new TreeSet<>((x, y) -> Integer.compare(x.partition(), y.partition()));
        partitions.forEach(p -> tps.add(new TopicPartition(TOPIC, p)));
        Map<Integer, Long> out = new TreeMap<>();
        c.committed(tps, Duration.ofSeconds(10)).forEach(
            (tp, om) -> out.put(tp.partition(), om == null ? null : om.offset()));
        return out;
    }

    static Map<Integer, Long> expected(Set<Integer> partitions, long base) {
        Map<Integer, Long> out = new TreeMap<>();
        partitions.forEach(p -> out.put(p, base + p));
        return out;
    }

    void run() {
        KafkaConsumer<byte[], byte[]> a = consumer("regroup-java848-a");
        KafkaConsumer<byte[], byte[]> b = consumer("regroup-java848-b");
        waitFor("java consumer protocol: two dynamic members own t6's 6 partitions, each exactly once",
            () -> settled(List.of(a, b)), () -> owned(a) + " / " + owned(b) + ", " + describe());
        check("java consumer protocol: the uniform assignor gives each member 3 partitions",
            owned(a).size() == 3 && owned(b).size() == 3, () -> owned(a) + " / " + owned(b));

        ConsumerGroupDescription d = describe();
        Map<String, Set<Integer>> described = new TreeMap<>();
        List<Integer> memberEpochs = new ArrayList<>();
        for (MemberDescription m : d.members()) {
            described.put(m.clientId(), owned(m));
            memberEpochs.add(m.memberEpoch().orElse(null));
        }
        check("java consumer protocol: describeConsumerGroups shows a CONSUMER group, STABLE, assignor "
                + "uniform, group epoch 3, target assignment epoch 3, members at epoch 3",
            d.type() == GroupType.CONSUMER && d.groupState() == GroupState.STABLE
                && "uniform".equals(d.partitionAssignor())
                && d.groupEpoch().orElse(-1) == 3 && d.targetAssignmentEpoch().orElse(-1) == 3
                && memberEpochs.equals(List.of(3, 3)),
            d::toString);
        check("java consumer protocol: the described assignments are what the consumers own",
            described.equals(Map.of("regroup-java848-a", owned(a), "regroup-java848-b", owned(b))),
            () -> described + " vs " + owned(a) + " / " + owned(b));

        Set<Integer> aOwned = owned(a);
        a.commitSync(offsets(aOwned, 100));
        check("java consumer protocol: a member's commit (OffsetCommit with its member epoch) is read back",
            committed(a, aOwned).equals(expected(aOwned, 100)), () -> committed(a, aOwned).toString());

        a.close(Duration.ofSeconds(10));
        live.remove(a);
        Set<Integer> all = new TreeSet<>();
        for (int p = 0; p < PARTITIONS; p++) {
            all.add(p);
        }
        waitFor("java consumer protocol: when a member leaves, the other owns all 6 partitions",
            () -> owned(b).equals(all) && settled(List.of(b)), () -> owned(b) + ", " + describe());
        ConsumerGroupDescription after = describe();
        check("java consumer protocol: after the leave the group epoch is 4",
            after.groupEpoch().orElse(-1) == 4 && after.members().size() == 1, after::toString);
        check("java consumer protocol: the member that took the partitions over reads the leaver's commits",
            committed(b, aOwned).equals(expected(aOwned, 100)), () -> committed(b, aOwned).toString());
        b.close(Duration.ofSeconds(10));
        live.remove(b);
        regexMember();
    }

    /**
     * A broker-side regular expression (`SubscriptionPattern`, sent as SubscribedTopicRegex in RE2J syntax):
     * the coordinator resolves it after the join and the member owns the partitions of the topics it
     * matches (t6, the server's only topic); the resolution bumps the group to epoch 2.
     */
    void regexMember() {
        String group = "java848-regex";
        KafkaConsumer<byte[], byte[]> r = unsubscribed("regroup-java848-regex", group);
        r.subscribe(new SubscriptionPattern("t[0-9]+"));
        waitFor("java consumer protocol: a SubscriptionPattern (t[0-9]+) member owns every partition of t6",
            () -> r.assignment().size() == PARTITIONS && describe(group).groupState() == GroupState.STABLE,
            () -> r.assignment() + ", " + describe(group));
        ConsumerGroupDescription d = describe(group);
        check("java consumer protocol: the regex group and its member are at epoch 2",
            d.groupEpoch().orElse(-1) == 2 && d.targetAssignmentEpoch().orElse(-1) == 2
                && d.members().size() == 1 && d.members().iterator().next().memberEpoch().orElse(-1) == 2,
            d::toString);
        r.close(Duration.ofSeconds(10));
        live.remove(r);
    }

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: ConsumerCheck BOOTSTRAP");
            System.exit(2);
        }
        ConsumerCheck c = new ConsumerCheck(args[0]);
        c.run();
        c.admin.close(Duration.ofSeconds(5));
        System.out.println("java consumer: all checks passed");
        System.out.flush();
        Runtime.getRuntime().halt(0);
    }
}

// The smoke test's streams-group probe, run by java's source launcher (no build step):
//
//   java -cp 'target/lib/*' StreamsProbe.java BOOTSTRAP INPUT OUTPUT RECORDS STATE_DIR TIMEOUT_SECS
//
// It writes RECORDS keyed records to INPUT, runs a one-instance Kafka Streams 4.4.0 application with
// group.protocol=streams (INPUT -> repartition -> mapValues -> OUTPUT), reads OUTPUT back until every
// record came through, and then asks the cluster (Admin.describeStreamsGroups) for the group: it must be
// a STABLE streams group with one member that owns every task of both subtopologies, and the repartition
// topic must exist (with streams groups the broker, not the client, creates internal topics). Prints one
// "probe:" line per check; exits 0 when all passed, 1 otherwise.
import java.io.File;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.StreamsGroupDescription;
import org.apache.kafka.clients.admin.StreamsGroupMemberAssignment;
import org.apache.kafka.clients.admin.StreamsGroupMemberDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.Repartitioned;

public class StreamsProbe {
    static final String APP_ID = "regroup-smoke";

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: StreamsProbe BOOTSTRAP INPUT OUTPUT RECORDS STATE_DIR TIMEOUT_SECS");
            System.exit(2);
        }
        String bootstrap = args[0];
        String input = args[1];
        String output = args[2];
        int records = Integer.parseInt(args[3]);
        File stateDir = new File(args[4]);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(Long.parseLong(args[5]));
        int failures = 0;

        produce(bootstrap, input, records);
        System.out.println("probe: wrote " + records + " records to " + input);

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.String(), Serdes.String()))
                .repartition(Repartitioned.<String, String>as("by-key").withKeySerde(Serdes.String())
                        .withValueSerde(Serdes.String()))
                .mapValues(v -> "seen:" + v)
                .to(output, Produced.with(Serdes.String(), Serdes.String()));
        Properties sp = new Properties();
        sp.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        sp.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        sp.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        sp.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.getAbsolutePath());
        sp.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 500);
        sp.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);

        try (KafkaStreams streams = new KafkaStreams(builder.build(), sp)) {
            streams.start();
            int seen = consume(bootstrap, output, records, deadline);
            if (seen >= records) {
                System.out.println("probe: ok, all " + records + " records came through the streams application");
            } else {
                System.out.println("probe: FAIL, only " + seen + " of " + records + " records reached " + output
                        + " (application state " + streams.state() + ")");
                failures++;
            }
            failures += checkGroup(bootstrap, input, deadline);
            streams.close(Duration.ofSeconds(20));
        }
        System.out.println(failures == 0 ? "probe: all checks passed" : "probe: " + failures + " check(s) failed");
        System.exit(failures == 0 ? 0 : 1);
    }

    static void produce(String bootstrap, String topic, int records) throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
            for (int i = 0; i < records; i++) {
                producer.send(new ProducerRecord<>(topic, "key-" + i, "value-" + i)).get(30, TimeUnit.SECONDS);
            }
        }
    }

    // Reads OUTPUT from the beginning of every partition (no group) until RECORDS distinct keys arrived.
    static int consume(String bootstrap, String topic, int records, long deadline) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Set<String> keys = new HashSet<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(p)) {
            List<TopicPartition> parts = new ArrayList<>();
            for (PartitionInfo info : consumer.partitionsFor(topic, Duration.ofSeconds(30))) {
                parts.add(new TopicPartition(topic, info.partition()));
            }
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            while (keys.size() < records && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.value() != null && r.value().startsWith("seen:")) {
                        keys.add(r.key());
                    }
                }
            }
        }
        return keys.size();
    }

    // The group as the coordinator describes it; retried until it is stable with its tasks assigned.
    static int checkGroup(String bootstrap, String input, long deadline) throws Exception {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(p)) {
            int inputPartitions = admin.describeTopics(List.of(input)).allTopicNames().get(30, TimeUnit.SECONDS)
                    .get(input).partitions().size();
            String last = "no description";
            while (System.nanoTime() < deadline) {
                StreamsGroupDescription d = admin.describeStreamsGroups(List.of(APP_ID)).all()
                        .get(30, TimeUnit.SECONDS).get(APP_ID);
                int active = 0;
                for (StreamsGroupMemberDescription m : d.members()) {
                    for (StreamsGroupMemberAssignment.TaskIds t : m.assignment().activeTasks()) {
                        active += t.partitions().size();
                    }
                }
                last = "state " + d.groupState() + ", " + d.members().size() + " member(s), "
                        + d.subtopologies().size() + " subtopologies, " + active + " active tasks, group epoch "
                        + d.groupEpoch() + ", coordinator " + d.coordinator().id();
                if (d.groupState() == GroupState.STABLE && d.members().size() == 1 && d.subtopologies().size() == 2
                        && active == 2 * inputPartitions) {
                    System.out.println("probe: ok, streams group " + APP_ID + ": " + last);
                    Set<String> topics = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                    String repartition = APP_ID + "-by-key-repartition";
                    if (topics.contains(repartition)) {
                        System.out.println("probe: ok, the cluster created internal topic " + repartition);
                        return 0;
                    }
                    System.out.println("probe: FAIL, internal topic " + repartition + " is missing: " + topics);
                    return 1;
                }
                Thread.sleep(500);
            }
            System.out.println("probe: FAIL, streams group " + APP_ID + " never became stable with all "
                    + (2 * inputPartitions) + " tasks assigned; last seen: " + last);
            return 1;
        }
    }
}

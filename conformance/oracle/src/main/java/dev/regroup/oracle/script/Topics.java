package dev.regroup.oracle.script;

import com.fasterxml.jackson.databind.JsonNode;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.metadata.PartitionChangeRecord;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.RegisterBrokerRecord;
import org.apache.kafka.common.metadata.RemoveTopicRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The cluster's topics as a script describes them, turned into KRaft metadata: each {@code metadata} line
 * replaces the topic list, and the difference from the previous list is replayed as the metadata records a
 * controller would write (topics created, deleted, partitions added, replicas moved), so the coordinator
 * gets a real delta and a real image. Racks: every partition's replicas are placed on brokers carrying the
 * racks the script lists for it (one broker per rack and occurrence); a partition without racks has one
 * replica on a broker without a rack.
 */
final class Topics {
    record Spec(String name, Uuid id, int partitions, List<List<String>> racks) { }

    record Update(MetadataDelta delta, MetadataImage image) { }

    private static final int RACKLESS_BROKER = 0;

    private MetadataImage image = MetadataImage.EMPTY;
    private long version;
    private final Map<String, Spec> current = new LinkedHashMap<>();
    private final Map<String, Integer> brokersByRackSlot = new HashMap<>();
    private int nextBroker = RACKLESS_BROKER + 1;

    MetadataImage image() {
        return image;
    }

    Optional<String> name(Uuid id) {
        for (Spec s : current.values()) if (s.id().equals(id)) return Optional.of(s.name());
        return Optional.empty();
    }

    Uuid id(String name) {
        Spec s = current.get(name);
        return s == null ? Uuid.ZERO_UUID : s.id();
    }

    boolean contains(String name) {
        return current.containsKey(name);
    }

    boolean hasPartition(String name, int partition) {
        Spec s = current.get(name);
        return s != null && partition >= 0 && partition < s.partitions();
    }

    static List<Spec> parse(JsonNode metadata) {
        JsonNode topics = metadata == null ? null : metadata.get("topics");
        if (metadata == null || !metadata.isObject() || topics == null || !topics.isArray()) {
            throw new ScriptException("\"metadata\" must be {\"topics\":[...]}");
        }
        Iterator<String> keys = metadata.fieldNames();
        while (keys.hasNext()) {
            String k = keys.next();
            if (!k.equals("topics")) throw new ScriptException("unknown metadata field \"" + k + "\"");
        }
        List<Spec> specs = new ArrayList<>();
        for (JsonNode t : topics) {
            if (!t.isObject()) throw new ScriptException("a topic must be an object");
            Iterator<String> names = t.fieldNames();
            while (names.hasNext()) {
                String k = names.next();
                if (!List.of("name", "partitions", "topicId", "partitionRacks").contains(k)) {
                    throw new ScriptException("unknown topic field \"" + k + "\"");
                }
            }
            JsonNode name = t.get("name");
            if (name == null || !name.isTextual()) throw new ScriptException("a topic needs a \"name\"");
            JsonNode partitions = t.get("partitions");
            if (partitions == null || !partitions.canConvertToLong() || !partitions.isIntegralNumber()
                || partitions.asLong() < 1 || partitions.asLong() > Integer.MAX_VALUE) {
                throw new ScriptException("topic " + name.asText() + ": \"partitions\" must be a positive integer");
            }
            Uuid id;
            JsonNode idNode = t.get("topicId");
            if (idNode != null) {
                try {
                    id = Uuid.fromString(idNode.asText());
                } catch (IllegalArgumentException e) {
                    throw new ScriptException("topic " + name.asText() + ": bad topicId " + idNode);
                }
            } else {
                id = TopicIds.derived(name.asText());
            }
            List<List<String>> racks = new ArrayList<>();
            JsonNode racksNode = t.get("partitionRacks");
            if (racksNode != null) {
                if (!racksNode.isArray()) throw new ScriptException("topic " + name.asText() + ": partitionRacks must be an array");
                for (JsonNode p : racksNode) {
                    List<String> list = new ArrayList<>();
                    if (!p.isArray()) throw new ScriptException("topic " + name.asText() + ": partitionRacks entries must be arrays");
                    for (JsonNode r : p) {
                        if (!r.isTextual()) throw new ScriptException("topic " + name.asText() + ": racks must be strings");
                        list.add(r.asText());
                    }
                    racks.add(list);
                }
            }
            specs.add(new Spec(name.asText(), id, partitions.asInt(), racks));
        }
        return specs;
    }

    /** The replicas of partition {@code p} of {@code spec}, registering brokers for new racks in {@code delta}. */
    private List<Integer> replicas(Spec spec, int p, MetadataDelta delta) {
        List<String> racks = p < spec.racks().size() ? spec.racks().get(p) : List.of();
        if (racks.isEmpty()) return List.of(RACKLESS_BROKER);
        List<Integer> out = new ArrayList<>();
        Map<String, Integer> seen = new HashMap<>();
        for (String rack : racks) {
            int occurrence = seen.merge(rack, 1, Integer::sum);
            String slot = occurrence + "/" + rack;
            Integer broker = brokersByRackSlot.get(slot);
            if (broker == null) {
                broker = nextBroker++;
                brokersByRackSlot.put(slot, broker);
                delta.replay(new RegisterBrokerRecord().setBrokerId(broker).setBrokerEpoch(1)
                    .setIncarnationId(new Uuid(0, broker + 1)).setRack(rack).setFenced(false));
            }
            out.add(broker);
        }
        return out;
    }

    private void createTopic(Spec spec, MetadataDelta delta) {
        delta.replay(new TopicRecord().setTopicId(spec.id()).setName(spec.name()));
        for (int p = 0; p < spec.partitions(); p++) addPartition(spec, p, delta);
    }

    private void addPartition(Spec spec, int p, MetadataDelta delta) {
        List<Integer> replicas = replicas(spec, p, delta);
        delta.replay(new PartitionRecord().setTopicId(spec.id()).setPartitionId(p)
            .setReplicas(replicas).setIsr(replicas).setLeader(replicas.get(0))
            .setLeaderEpoch(0).setPartitionEpoch(0));
    }

    /** Replaces the topic list; returns the delta and the new image. */
    Update replace(List<Spec> specs) {
        Map<String, Spec> next = new LinkedHashMap<>();
        Map<Uuid, String> ids = new HashMap<>();
        for (Spec s : specs) {
            if (next.put(s.name(), s) != null) throw new ScriptException("topic " + s.name() + " is listed twice");
            String other = ids.put(s.id(), s.name());
            if (other != null) throw new ScriptException("topics " + other + " and " + s.name() + " have the same topicId");
        }
        MetadataDelta delta = new MetadataDelta.Builder().setImage(image).build();
        if (version == 0) {
            delta.replay(new RegisterBrokerRecord().setBrokerId(RACKLESS_BROKER).setBrokerEpoch(1)
                .setIncarnationId(new Uuid(0, 1)).setRack(null).setFenced(false));
        }
        for (Spec old : current.values()) {
            Spec now = next.get(old.name());
            if (now == null || !now.id().equals(old.id())) delta.replay(new RemoveTopicRecord().setTopicId(old.id()));
        }
        for (Spec now : next.values()) {
            Spec old = current.get(now.name());
            if (old == null || !old.id().equals(now.id())) {
                createTopic(now, delta);
                continue;
            }
            if (now.partitions() < old.partitions()) {
                throw new ScriptException("topic " + now.name() + ": a KRaft topic cannot lose partitions ("
                    + old.partitions() + " -> " + now.partitions() + "); give it a new topicId to recreate it");
            }
            for (int p = 0; p < old.partitions(); p++) {
                List<String> before = p < old.racks().size() ? old.racks().get(p) : List.of();
                List<String> after = p < now.racks().size() ? now.racks().get(p) : List.of();
                if (!before.equals(after)) {
                    List<Integer> replicas = replicas(now, p, delta);
                    delta.replay(new PartitionChangeRecord().setTopicId(now.id()).setPartitionId(p)
                        .setReplicas(replicas).setIsr(replicas).setLeader(replicas.get(0)));
                }
            }
            for (int p = old.partitions(); p < now.partitions(); p++) addPartition(now, p, delta);
        }
        version++;
        image = delta.apply(new MetadataProvenance(version, 0, 0L, true));
        current.clear();
        current.putAll(next);
        return new Update(delta, image);
    }
}

package dev.regroup.oracle.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import dev.regroup.oracle.InputFormat;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.coordinator.group.api.assignor.ConsumerGroupPartitionAssignor;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.RangeAssignor;
import org.apache.kafka.coordinator.group.assignor.UniformAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;

import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The consumer-group form of the `regroup assign` JSON ("kind":"consumer", docs/consumer.md) on the Java side:
 * builds what TargetAssignmentBuilder#build hands Kafka's own UniformAssignor / RangeAssignor, and renders the
 * result the way regroup prints it.
 *
 * Members go into a `new HashMap<>()` in input order (as TargetAssignmentBuilder#build does); a member's
 * subscription and previous assignment are LinkedHashSet / LinkedHashMap, so that they iterate in the listed
 * order, which is what the input format means by a list.
 */
public final class ConsumerInputFormat {
    private ConsumerInputFormat() { }

    /** One parsed input. */
    public record Input(ConsumerGroupPartitionAssignor assignor, GroupSpecImpl groupSpec, SubscribedTopicDescriber topics) { }

    /** The metadata image as the assignors see it: partition counts (-1 for an unknown topic) and racks. */
    public record Topics(Map<Uuid, Integer> partitions, Map<Uuid, Map<Integer, List<String>>> racks)
            implements SubscribedTopicDescriber {
        @Override
        public int numPartitions(Uuid topicId) {
            return partitions.getOrDefault(topicId, -1);
        }

        @Override
        public Set<String> racksForPartition(Uuid topicId, int partition) {
            Map<Integer, List<String>> r = racks.get(topicId);
            if (r == null || !r.containsKey(partition)) return Set.of();
            return new HashSet<>(r.get(partition));
        }
    }

    public static Input parse(JsonNode root) {
        String name = root.has("assignor") ? root.get("assignor").asText() : UniformAssignor.NAME;
        ConsumerGroupPartitionAssignor assignor = switch (name) {
            case UniformAssignor.NAME -> new UniformAssignor();
            case RangeAssignor.NAME -> new RangeAssignor();
            default -> throw new IllegalArgumentException("unknown assignor " + name);
        };
        Map<Uuid, Integer> partitions = new HashMap<>();
        Map<Uuid, Map<Integer, List<String>>> racks = new HashMap<>();
        if (root.has("topics")) {
            for (JsonNode t : root.get("topics")) {
                Uuid id = Uuid.fromString(t.get("id").asText());
                partitions.put(id, t.get("partitions").asInt());
                if (t.has("racks")) {
                    Map<Integer, List<String>> byPartition = new HashMap<>();
                    t.get("racks").fields().forEachRemaining(e -> {
                        List<String> list = new java.util.ArrayList<>();
                        for (JsonNode r : e.getValue()) list.add(r.asText());
                        byPartition.put(Integer.parseInt(e.getKey()), list);
                    });
                    racks.put(id, byPartition);
                }
            }
        }

        Map<String, MemberSubscriptionAndAssignmentImpl> members = new HashMap<>();
        List<Set<Uuid>> subscriptions = new java.util.ArrayList<>();
        for (JsonNode m : root.get("members")) {
            Set<Uuid> subscribed = new LinkedHashSet<>();
            if (m.has("subscribedTopicIds")) {
                for (JsonNode t : m.get("subscribedTopicIds")) subscribed.add(Uuid.fromString(t.asText()));
            }
            subscriptions.add(subscribed);
            Assignment assignment = Assignment.EMPTY;
            if (m.has("assignment") && m.get("assignment").size() > 0) {
                Map<Uuid, Set<Integer>> map = new LinkedHashMap<>();
                for (Iterator<Map.Entry<String, JsonNode>> it = m.get("assignment").fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    Set<Integer> ps = new LinkedHashSet<>();
                    for (JsonNode p : e.getValue()) ps.add(p.asInt());
                    map.put(Uuid.fromString(e.getKey()), Collections.unmodifiableSet(ps));
                }
                assignment = new Assignment(map);
            }
            members.put(m.get("memberId").asText(), new MemberSubscriptionAndAssignmentImpl(
                optionalText(m, "rackId"),
                optionalText(m, "instanceId"),
                subscribed,
                assignment));
        }

        SubscriptionType type;
        if (root.has("subscriptionType")) {
            type = switch (root.get("subscriptionType").asText()) {
                case "homogeneous" -> SubscriptionType.HOMOGENEOUS;
                case "heterogeneous" -> SubscriptionType.HETEROGENEOUS;
                default -> throw new IllegalArgumentException("unknown subscription type");
            };
        } else {
            // Homogeneous iff every member subscribes to the same set (docs/consumer.md).
            type = SubscriptionType.HOMOGENEOUS;
            for (Set<Uuid> s : subscriptions) {
                if (!s.equals(subscriptions.get(0))) type = SubscriptionType.HETEROGENEOUS;
            }
        }

        // The inverted target assignment, from the members' current targets.
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        members.forEach((memberId, spec) -> spec.partitions().forEach((topicId, ps) -> {
            Map<Integer, String> byPartition = inverted.computeIfAbsent(topicId, k -> new HashMap<>());
            for (Integer p : ps) byPartition.put(p, memberId);
        }));

        GroupSpecImpl spec = new GroupSpecImpl(Collections.unmodifiableMap(members), type, inverted);
        return new Input(assignor, spec, new Topics(partitions, racks));
    }

    private static Optional<String> optionalText(JsonNode m, String field) {
        JsonNode n = m.get(field);
        return n == null || n.isNull() ? Optional.empty() : Optional.of(n.asText());
    }

    /** Kafka's assignment rendered as regroup prints it. */
    public static String render(GroupAssignment assignment) {
        TreeMap<String, MemberAssignment> sorted = new TreeMap<>(InputFormat.CODE_POINT_ORDER);
        sorted.putAll(assignment.members());
        ObjectNode root = InputFormat.MAPPER.createObjectNode();
        ObjectNode membersNode = root.putObject("members");
        for (Map.Entry<String, MemberAssignment> e : sorted.entrySet()) {
            ObjectNode m = membersNode.putObject(e.getKey());
            TreeMap<String, Set<Integer>> topics = new TreeMap<>();
            e.getValue().partitions().forEach((t, ps) -> topics.put(t.toString(), ps));
            for (Map.Entry<String, Set<Integer>> t : topics.entrySet()) {
                ArrayNode list = m.putArray(t.getKey());
                for (int p : new TreeSet<>(t.getValue())) list.add(p);
            }
        }
        return root.toString();
    }

    /** Runs the input's assignor; an exception (Kafka's PartitionAssignorException or any other) is an error line. */
    public static String run(JsonNode root) {
        Input in = parse(root);
        GroupAssignment result = in.assignor().assign(in.groupSpec(), in.topics());
        return render(result);
    }
}

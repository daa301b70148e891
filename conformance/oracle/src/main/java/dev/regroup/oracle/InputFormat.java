package dev.regroup.oracle;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The `regroup assign` JSON format on the Java side: builds Kafka's own assignor inputs from it and renders
 * Kafka's output the way regroup prints it (member ids, subtopology ids and partitions sorted, strings by
 * code point as Rust sorts them).
 */
public final class InputFormat {
    public static final ObjectMapper MAPPER = new ObjectMapper();

    /** Strings in code point order (Rust's `str` order), not Java's UTF-16 unit order. */
    public static final Comparator<String> CODE_POINT_ORDER = (a, b) -> {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i), cb = b.codePointAt(j);
            if (ca != cb) return Integer.compare(ca, cb);
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    };

    private InputFormat() { }

    /** One parsed input: what TargetAssignmentBuilder would pass to the assignor. */
    public record Input(GroupSpecImpl groupSpec, TopologyDescriber topology) { }

    /** A topology describer over a sorted map, like Kafka's TopologyMetadata. */
    public record Topology(TreeMap<String, int[]> subs) implements TopologyDescriber {
        @Override
        public List<String> subtopologies() {
            return List.copyOf(subs.keySet());
        }

        @Override
        public int maxNumInputPartitions(String subtopologyId) {
            int[] s = subs.get(subtopologyId);
            if (s == null) throw new NoSuchElementException("Topology does not contain subtopology " + subtopologyId);
            return s[0];
        }

        @Override
        public boolean isStateful(String subtopologyId) {
            int[] s = subs.get(subtopologyId);
            if (s == null) throw new NoSuchElementException("Topology does not contain subtopology " + subtopologyId);
            return s[1] != 0;
        }
    }

    public static Input parse(String json) throws Exception {
        return parse(MAPPER.readTree(json));
    }

    public static Input parse(JsonNode root) {
        TreeMap<String, int[]> subs = new TreeMap<>();
        for (JsonNode s : root.get("subtopologies")) {
            subs.put(s.get("id").asText(), new int[] {s.get("tasks").asInt(), s.get("stateful").asBoolean() ? 1 : 0});
        }
        int numStandby = root.has("numStandbyReplicas") ? root.get("numStandbyReplicas").asInt() : 0;
        List<String> tags = new ArrayList<>();
        if (root.has("rackAwareAssignmentTags")) {
            for (JsonNode t : root.get("rackAwareAssignmentTags")) tags.add(t.asText());
        }
        // TargetAssignmentBuilder.build: `new HashMap<>()` filled with put in the coordinator's member order.
        Map<String, MemberMetadataAndStateImpl> members = new HashMap<>();
        for (JsonNode m : root.get("members")) {
            members.put(m.get("memberId").asText(), new MemberMetadataAndStateImpl(
                optionalText(m, "instanceId"),
                optionalText(m, "rackId"),
                m.get("processId").asText(),
                stringMap(m.get("clientTags")),
                tasks(m.get("activeTasks")),
                tasks(m.get("standbyTasks")),
                tasks(m.get("warmupTasks")),
                offsets(m.get("taskOffsets")),
                offsets(m.get("taskEndOffsets"))));
        }
        return new Input(new GroupSpecImpl(members, new AssignmentConfigsImpl(numStandby, tags)), new Topology(subs));
    }

    private static Optional<String> optionalText(JsonNode m, String field) {
        JsonNode n = m.get(field);
        return n == null || n.isNull() ? Optional.empty() : Optional.of(n.asText());
    }

    private static Map<String, String> stringMap(JsonNode n) {
        Map<String, String> out = new HashMap<>();
        if (n != null) n.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
        return out;
    }

    private static Map<String, Set<Integer>> tasks(JsonNode n) {
        Map<String, Set<Integer>> out = new HashMap<>();
        if (n == null) return out;
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Set<Integer> set = new HashSet<>();
            for (JsonNode p : e.getValue()) set.add(p.asInt());
            out.put(e.getKey(), set);
        }
        return out;
    }

    private static Map<String, Map<Integer, Long>> offsets(JsonNode n) {
        Map<String, Map<Integer, Long>> out = new HashMap<>();
        if (n == null) return out;
        for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            Map<Integer, Long> m = new HashMap<>();
            e.getValue().fields().forEachRemaining(o -> m.put(Integer.parseInt(o.getKey()), o.getValue().asLong()));
            out.put(e.getKey(), m);
        }
        return out;
    }

    /** Kafka's assignment rendered as regroup prints it. */
    public static String render(GroupAssignment assignment) {
        TreeMap<String, MemberAssignment> sorted = new TreeMap<>(CODE_POINT_ORDER);
        sorted.putAll(assignment.members());
        ObjectNode root = MAPPER.createObjectNode();
        ObjectNode members = root.putObject("members");
        for (Map.Entry<String, MemberAssignment> e : sorted.entrySet()) {
            ObjectNode m = members.putObject(e.getKey());
            putTasks(m.putObject("activeTasks"), e.getValue().activeTasks());
            putTasks(m.putObject("standbyTasks"), e.getValue().standbyTasks());
            m.putObject("warmupTasks");
        }
        return root.toString();
    }

    private static void putTasks(ObjectNode node, Map<String, Set<Integer>> tasks) {
        TreeMap<String, Set<Integer>> sorted = new TreeMap<>(CODE_POINT_ORDER);
        sorted.putAll(tasks);
        for (Map.Entry<String, Set<Integer>> e : sorted.entrySet()) {
            ArrayNode list = node.putArray(e.getKey());
            for (int p : new TreeSet<>(e.getValue())) list.add(p);
        }
    }

    /** The error line regroup prints in --lines mode when the assignor throws. */
    public static String renderError(String message) {
        ObjectNode root = MAPPER.createObjectNode();
        root.put("error", message);
        return root.toString();
    }
}

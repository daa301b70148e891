package dev.regroup.assignor43;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.coordinator.group.streams.assignor.AssignmentMemberSpec;
import org.apache.kafka.coordinator.group.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.assignor.TaskAssignorException;
import org.apache.kafka.coordinator.group.streams.assignor.TaskId;
import org.apache.kafka.coordinator.group.streams.assignor.TopologyDescriber;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * `Assign43 [FILE|-]`: one `regroup assign` input per line in, one output per line out, computed by Apache Kafka
 * 4.3.0's StickyTaskAssignor (the released jar). The input is built the way the project's 4.4 oracle builds it
 * (conformance/oracle, InputFormat): members put into a `HashMap` in the listed order, task sets as `HashSet`s,
 * the topology over a sorted map; the 4.3 API differs only in its types (AssignmentMemberSpec, TaskId-keyed
 * offsets, the configs as a plain map). The output is rendered as regroup prints it.
 */
public final class Assign43 {
    private static final ObjectMapper MAPPER = new ObjectMapper();

    /** Strings in code point order (Rust's `str` order). */
    private static final Comparator<String> CODE_POINT_ORDER = (a, b) -> {
        int i = 0, j = 0;
        while (i < a.length() && j < b.length()) {
            int ca = a.codePointAt(i), cb = b.codePointAt(j);
            if (ca != cb) return Integer.compare(ca, cb);
            i += Character.charCount(ca);
            j += Character.charCount(cb);
        }
        return Integer.compare(a.length() - i, b.length() - j);
    };

    private Assign43() { }

    private record Topology(TreeMap<String, int[]> subs) implements TopologyDescriber {
        @Override
        public List<String> subtopologies() {
            return List.copyOf(subs.keySet());
        }

        @Override
        public int maxNumInputPartitions(String id) {
            int[] s = subs.get(id);
            if (s == null) throw new NoSuchElementException("Topology does not contain subtopology " + id);
            return s[0];
        }

        @Override
        public boolean isStateful(String id) {
            int[] s = subs.get(id);
            if (s == null) throw new NoSuchElementException("Topology does not contain subtopology " + id);
            return s[1] != 0;
        }
    }

    public static void main(String[] args) throws Exception {
        String input = args.length > 0 ? args[0] : "-";
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        StickyTaskAssignor assignor = new StickyTaskAssignor();
        int status = 0;
        try (BufferedReader reader = input.equals("-")
                ? new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8))
                : Files.newBufferedReader(Path.of(input), StandardCharsets.UTF_8)) {
            String line;
            while ((line = reader.readLine()) != null) {
                if (line.isBlank()) continue;
                try {
                    out.println(run(assignor, MAPPER.readTree(line)));
                } catch (TaskAssignorException e) {
                    ObjectNode err = MAPPER.createObjectNode();
                    err.put("error", e.getMessage());
                    out.println(err);
                    status = 2;
                }
            }
        }
        out.flush();
        System.exit(status);
    }

    static String run(StickyTaskAssignor assignor, JsonNode root) {
        TreeMap<String, int[]> subs = new TreeMap<>();
        for (JsonNode s : root.get("subtopologies")) {
            subs.put(s.get("id").asText(), new int[] {s.get("tasks").asInt(), s.get("stateful").asBoolean() ? 1 : 0});
        }
        int numStandby = root.has("numStandbyReplicas") ? root.get("numStandbyReplicas").asInt() : 0;
        Map<String, AssignmentMemberSpec> members = new HashMap<>();
        for (JsonNode m : root.get("members")) {
            members.put(m.get("memberId").asText(), new AssignmentMemberSpec(
                optionalText(m, "instanceId"),
                optionalText(m, "rackId"),
                tasks(m.get("activeTasks")),
                tasks(m.get("standbyTasks")),
                tasks(m.get("warmupTasks")),
                m.get("processId").asText(),
                stringMap(m.get("clientTags")),
                offsets(m.get("taskOffsets")),
                offsets(m.get("taskEndOffsets"))));
        }
        Map<String, String> configs = new HashMap<>();
        configs.put("num.standby.replicas", Integer.toString(numStandby));
        GroupAssignment result = assignor.assign(new GroupSpecImpl(members, configs), new Topology(subs));
        return render(result);
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

    private static Map<TaskId, Long> offsets(JsonNode n) {
        Map<TaskId, Long> out = new HashMap<>();
        if (n == null) return out;
        n.fields().forEachRemaining(sub -> sub.getValue().fields().forEachRemaining(o ->
            out.put(new TaskId(sub.getKey(), Integer.parseInt(o.getKey())), o.getValue().asLong())));
        return out;
    }

    private static String render(GroupAssignment assignment) {
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
}

package dev.regroup.oracle;

import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Times Kafka 4.4.0's StickyTaskAssignor on the inputs of regroup's criterion benchmark
 * (coordinator/benches/assignor.rs): 10/100/1000 members x 100/1,000/10,000 tasks in 10 stateful
 * subtopologies, one standby replica, member i with id hex(mix(i)) in process i / 2 (id hex(mix(1e6 + j))).
 * Cold: nobody owns anything; warm: every member owns what the cold run gave it.
 *
 * Each case is warmed up (JIT) for WARMUP_MS, then timed call by call for at least MEASURE_MS and 15 calls;
 * the medians of wall time and of the thread's CPU time (less disturbed on a shared machine) are printed.
 * Only `assign` is timed, as in the Rust benchmark.
 *
 * Usage: AssignorBench [--emit DIR] [--only MxT,...] [WARMUP_MS MEASURE_MS]; --only limits the sizes; --emit writes each input as DIR/cold-MxT.json and
 * DIR/warm-MxT.json in the `regroup assign` format, to check both sides see the same input.
 */
public final class AssignorBench {
    private AssignorBench() { }

    static long mix(long x) {
        long z = x + 0x9E3779B97F4A7C15L;
        z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
        z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
        return z ^ (z >>> 31);
    }

    static InputFormat.Topology topology(int tasks) {
        TreeMap<String, int[]> subs = new TreeMap<>();
        for (int s = 0; s < 10; s++) subs.put(Integer.toString(s), new int[] {tasks / 10, 1});
        return new InputFormat.Topology(subs);
    }

    static String memberId(int i) {
        return String.format("%016x", mix(i));
    }

    static String processId(int i) {
        return String.format("%016x", mix(1_000_000L + i / 2));
    }

    /** The members map as TargetAssignmentBuilder builds it, with the given current assignment. */
    static GroupSpecImpl group(int members, GroupAssignment current) {
        Map<String, MemberMetadataAndStateImpl> map = new HashMap<>();
        for (int i = 0; i < members; i++) {
            String id = memberId(i);
            MemberAssignment a = current == null ? null : current.members().get(id);
            map.put(id, new MemberMetadataAndStateImpl(Optional.empty(), Optional.empty(), processId(i), Map.of(),
                a == null ? Map.of() : a.activeTasks(), a == null ? Map.of() : a.standbyTasks(), Map.of(), Map.of(), Map.of()));
        }
        return new GroupSpecImpl(map, new AssignmentConfigsImpl(1, List.of()));
    }

    static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory.getThreadMXBean();

    /** Median wall time and median thread CPU time of one assign call, in ms. */
    static double[] medianMs(StickyTaskAssignor assignor, GroupSpecImpl spec, InputFormat.Topology topo, long warmupMs, long measureMs) {
        long end = System.nanoTime() + warmupMs * 1_000_000L;
        long sink = 0;
        while (System.nanoTime() < end) sink += assignor.assign(spec, topo).members().size();
        long[] samples = new long[1 << 16];
        long[] cpu = new long[1 << 16];
        int n = 0;
        end = System.nanoTime() + measureMs * 1_000_000L;
        while ((System.nanoTime() < end || n < 15) && n < samples.length) {
            long c0 = THREADS.getCurrentThreadCpuTime();
            long t0 = System.nanoTime();
            GroupAssignment a = assignor.assign(spec, topo);
            samples[n] = System.nanoTime() - t0;
            cpu[n++] = THREADS.getCurrentThreadCpuTime() - c0;
            sink += a.members().size();
        }
        if (sink == 42) System.out.println();
        return new double[] {median(samples, n) / 1e6, median(cpu, n) / 1e6};
    }

    static double median(long[] samples, int n) {
        long[] s = Arrays.copyOf(samples, n);
        Arrays.sort(s);
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
    }

    static void emit(Path dir, String name, int members, int tasks, GroupAssignment current) throws Exception {
        ObjectNode root = InputFormat.MAPPER.createObjectNode();
        ArrayNode subs = root.putArray("subtopologies");
        for (int s = 0; s < 10; s++) subs.addObject().put("id", Integer.toString(s)).put("tasks", tasks / 10).put("stateful", true);
        root.put("numStandbyReplicas", 1);
        ArrayNode ms = root.putArray("members");
        for (int i = 0; i < members; i++) {
            ObjectNode m = ms.addObject();
            m.put("memberId", memberId(i)).put("processId", processId(i));
            MemberAssignment a = current == null ? null : current.members().get(memberId(i));
            putTasks(m.putObject("activeTasks"), a == null ? Map.of() : a.activeTasks());
            putTasks(m.putObject("standbyTasks"), a == null ? Map.of() : a.standbyTasks());
            m.putObject("warmupTasks");
        }
        Files.writeString(dir.resolve(name + "-" + members + "x" + tasks + ".json"), root.toString());
    }

    private static void putTasks(ObjectNode node, Map<String, Set<Integer>> tasks) {
        new TreeMap<>(tasks).forEach((sub, parts) -> {
            ArrayNode list = node.putArray(sub);
            parts.stream().sorted().forEach(list::add);
        });
    }

    public static void main(String[] args) throws Exception {
        Path emitDir = null;
        long warmupMs = 3000, measureMs = 3000;
        int pos = 0;
        if (args.length >= 2 && args[0].equals("--emit")) {
            emitDir = Path.of(args[1]);
            Files.createDirectories(emitDir);
            pos = 2;
        }
        java.util.Set<String> only = null;
        if (args.length >= pos + 2 && args[pos].equals("--only")) {
            only = java.util.Set.of(args[pos + 1].split(","));
            pos += 2;
        }
        if (args.length >= pos + 2) {
            warmupMs = Long.parseLong(args[pos]);
            measureMs = Long.parseLong(args[pos + 1]);
        }
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        StickyTaskAssignor assignor = new StickyTaskAssignor();
        out.println("Kafka 4.4.0 StickyTaskAssignor, median ms per assign (Java " + System.getProperty("java.version") + ")");
        out.println(String.format("%-15s %12s %12s %12s %12s", "members x tasks", "cold wall", "warm wall", "cold cpu", "warm cpu"));
        for (int members : new int[] {10, 100, 1000}) {
            for (int tasks : new int[] {100, 1_000, 10_000}) {
                if (only != null && !only.contains(members + "x" + tasks)) continue;
                InputFormat.Topology topo = topology(tasks);
                GroupSpecImpl cold = group(members, null);
                GroupAssignment coldResult = assignor.assign(cold, topo);
                GroupSpecImpl warm = group(members, coldResult);
                if (emitDir != null) {
                    emit(emitDir, "cold", members, tasks, null);
                    emit(emitDir, "warm", members, tasks, coldResult);
                    continue;
                }
                double[] c = medianMs(assignor, cold, topo, warmupMs, measureMs);
                double[] w = medianMs(assignor, warm, topo, warmupMs, measureMs);
                out.println(String.format("%-15s %12.4f %12.4f %12.4f %12.4f", members + "x" + tasks, c[0], w[0], c[1], w[1]));
            }
        }
    }
}

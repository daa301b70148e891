package dev.regroup.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * `RandomInputs COUNT SEED MAX_MEMBERS`: prints COUNT random `regroup assign` inputs, one per line, from a
 * seeded generator (the same seed always gives the same inputs). The inputs aim at the assignor's tie-breaks:
 * several members per process, hash-colliding member ids (to fill single HashMap buckets and force resizes
 * and tree bins), current assignments that are partial, stale (shrunk topics) or conflicting, standbys,
 * reported offsets with ties, odd subtopology ids whose UTF-16 and code point orders differ.
 */
public final class RandomInputs {
    private static final String[] SUBTOPOLOGY_IDS = {
        "0", "1", "2", "3", "10", "11", "s", "sub-a", "sub-b", "\u00e9t\u00e9", "\uff61", "\ud83d\ude00", "Aa", "BB"
    };

    private RandomInputs() { }

    public static void main(String[] args) {
        int count = Integer.parseInt(args[0]);
        long seed = Long.parseLong(args[1]);
        int maxMembers = Integer.parseInt(args[2]);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < count; i++) {
            out.println(generate(random.split(), maxMembers).toString());
        }
        out.flush();
    }

    static ObjectNode generate(SplittableRandom r, int maxMembers) {
        ObjectNode root = InputFormat.MAPPER.createObjectNode();
        // Topology.
        int numSubs = 1 + r.nextInt(r.nextInt(4) == 0 ? 6 : 3);
        List<String> pool = new ArrayList<>(List.of(SUBTOPOLOGY_IDS));
        boolean oddIds = r.nextInt(4) == 0;
        List<String> subs = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        List<Boolean> stateful = new ArrayList<>();
        ArrayNode subsNode = root.putArray("subtopologies");
        for (int s = 0; s < numSubs; s++) {
            String id = oddIds ? pool.remove(r.nextInt(pool.size())) : pool.remove(0);
            int tasks = r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(r.nextInt(5) == 0 ? 64 : 12);
            boolean isStateful = r.nextInt(4) != 0;
            subs.add(id);
            counts.add(tasks);
            stateful.add(isStateful);
            ObjectNode sn = subsNode.addObject();
            sn.put("id", id);
            sn.put("tasks", tasks);
            sn.put("stateful", isStateful);
        }
        int[] standbyWeights = {0, 0, 0, 1, 1, 1, 1, 2, 2, 3};
        root.put("numStandbyReplicas", standbyWeights[r.nextInt(standbyWeights.length)]);

        // Members and processes.
        int numMembers = r.nextInt(50) == 0 ? 0 : 1 + r.nextInt(r.nextInt(3) == 0 ? maxMembers : Math.min(maxMembers, 12));
        int numProcesses = 1 + r.nextInt(numMembers == 0 ? 1 : (r.nextBoolean() ? numMembers : Math.max(1, numMembers / 3)));
        int idStyle = r.nextInt(4);
        List<String> processIds = new ArrayList<>();
        for (int p = 0; p < numProcesses; p++) processIds.add(idStyle == 3 ? collidingId(p, 100) : uuidLike(r));
        List<String> memberIds = new ArrayList<>();
        for (int m = 0; m < numMembers; m++) {
            switch (idStyle) {
                case 0 -> memberIds.add(uuidLike(r));
                case 1 -> memberIds.add("m" + m);
                default -> memberIds.add(collidingId(m, 0));
            }
        }
        // Current assignment style: 0 cold, 1 warm from a plausible previous assignment, 2 random and messy.
        int style = r.nextInt(3);
        int totalTasks = counts.stream().mapToInt(Integer::intValue).sum();
        int[] owner = new int[totalTasks];
        for (int t = 0; t < totalTasks; t++) owner[t] = numMembers == 0 ? -1 : r.nextInt(numMembers);
        ArrayNode membersNode = root.putArray("members");
        for (int m = 0; m < numMembers; m++) {
            ObjectNode mn = membersNode.addObject();
            mn.put("memberId", memberIds.get(m));
            mn.put("processId", processIds.get(r.nextInt(numProcesses)));
            if (r.nextInt(8) == 0) mn.put("instanceId", "instance-" + m);
            if (r.nextInt(8) == 0) mn.put("rackId", "rack-" + r.nextInt(3));
            if (r.nextInt(8) == 0) mn.putObject("clientTags").put("zone", "z" + r.nextInt(3));
            ObjectNode active = mn.putObject("activeTasks");
            ObjectNode standby = mn.putObject("standbyTasks");
            ObjectNode warmup = mn.putObject("warmupTasks");
            ObjectNode offsets = null;
            if (style != 0 || r.nextInt(3) == 0) {
                int base = 0;
                for (int s = 0; s < numSubs; s++) {
                    ArrayNode a = null, sb = null, w = null;
                    for (int p = 0; p < counts.get(s) + (style == 2 && r.nextInt(6) == 0 ? 2 : 0); p++) {
                        boolean inRange = p < counts.get(s);
                        boolean own = inRange ? (style == 1 ? owner[base + p] == m && r.nextInt(10) != 0 : r.nextInt(numMembers + 1) == 0)
                                              : r.nextInt(2) == 0;
                        if (style == 0) own = false;
                        if (own) {
                            if (a == null) a = active.putArray(subs.get(s));
                            a.add(p);
                        } else if (style != 0 && stateful.get(s) && r.nextInt(Math.max(2, numMembers / 2)) == 0) {
                            if (sb == null) sb = standby.putArray(subs.get(s));
                            sb.add(p);
                        } else if (style == 2 && r.nextInt(40) == 0) {
                            if (w == null) w = warmup.putArray(subs.get(s));
                            w.add(p);
                        }
                        if (r.nextInt(style == 0 ? 3 : 6) == 0) {
                            if (offsets == null) offsets = mn.putObject("taskOffsets");
                            ObjectNode so = offsets.has(subs.get(s)) ? (ObjectNode) offsets.get(subs.get(s)) : offsets.putObject(subs.get(s));
                            so.put(Integer.toString(p), (long) r.nextInt(4) * 100);
                        }
                    }
                    base += counts.get(s);
                }
            }
            if (offsets != null && r.nextInt(3) == 0) mn.set("taskEndOffsets", offsets.deepCopy());
        }
        return root;
    }

    /** A 22-character id like Kafka's base64 member ids. */
    static String uuidLike(SplittableRandom r) {
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < 22; i++) b.append(alphabet.charAt(r.nextInt(64)));
        return b.toString();
    }

    /**
     * Ids whose hashCodes collide: "Aa" and "BB" hash alike, so every string of n such blocks has the same
     * hash; the index picks the blocks, a suffix spreads groups of 16 over a few buckets.
     */
    static String collidingId(int index, int salt) {
        StringBuilder b = new StringBuilder();
        int bits = index % 16;
        for (int i = 0; i < 4; i++) b.append(((bits >> i) & 1) == 0 ? "Aa" : "BB");
        b.append('-').append(index / 16 + salt);
        return b.toString();
    }
}

package dev.regroup.oracle;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.Uuid;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * `ConsumerRandomInputs COUNT SEED MAX_MEMBERS`: prints 2 x COUNT random consumer-group `regroup assign`
 * inputs ("kind":"consumer"), one per line, alternately for the uniform and the range assignor, from a seeded
 * generator (the same seed always gives the same inputs).
 *
 * The inputs aim at the assignors' tie-breaks and corners: topic ids whose hash codes share a HashSet bucket
 * (insertion order decides), signed Uuid order, members in the same HashMap bucket, homogeneous and
 * heterogeneous subscriptions listed in shuffled orders, explicit subscription types that disagree with the
 * subscriptions, static members (instance ids that tie, or compare differently in UTF-16 and code points),
 * member and partition racks, previous assignments that are plausible (topics grown, members gone,
 * unbalanced), or messy (unsubscribed and deleted topics, partitions held twice, empty lists, the rare
 * partition past a topic's end), and the rare subscribed topic missing from the image.
 */
public final class ConsumerRandomInputs {
    private static final String[] INSTANCE_PREFIXES = {"instance-", "i", "\uff61", "\ud83d\ude00", "\u00e9"};

    private ConsumerRandomInputs() { }

    public static void main(String[] args) {
        int count = Integer.parseInt(args[0]);
        long seed = Long.parseLong(args[1]);
        int maxMembers = Integer.parseInt(args[2]);
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < count; i++) {
            out.println(generate(random.split(), maxMembers, "uniform").toString());
            out.println(generate(random.split(), maxMembers, "range").toString());
        }
        out.flush();
    }

    static ObjectNode generate(SplittableRandom r, int maxMembers, String assignor) {
        ObjectNode root = InputFormat.MAPPER.createObjectNode();
        root.put("kind", "consumer");
        root.put("assignor", assignor);

        // Topics.
        // Up to 30 topics: a HashSet copied from 12 or 24 of them gets a larger table than one filled from empty.
        int numTopics = 1 + r.nextInt(r.nextInt(4) == 0 ? (r.nextInt(3) == 0 ? 30 : 12) : 4);
        boolean collidingTopics = r.nextInt(3) == 0;
        int bucket = r.nextInt(16);
        List<Uuid> topics = new ArrayList<>();
        List<Integer> counts = new ArrayList<>();
        List<Integer> previousCounts = new ArrayList<>();
        for (int t = 0; t < numTopics; t++) {
            topics.add(collidingTopics ? collidingUuid(r, 16 * r.nextInt(8) + bucket) : new Uuid(r.nextLong(), r.nextLong()));
            int n = r.nextInt(12) == 0 ? 0 : 1 + r.nextInt(r.nextInt(5) == 0 ? 48 : 8);
            counts.add(n);
            previousCounts.add(r.nextInt(4) == 0 ? r.nextInt(n + 1) : n);
        }
        boolean racks = r.nextInt(4) == 0;
        ArrayNode topicsNode = root.putArray("topics");
        for (int t = 0; t < numTopics; t++) {
            ObjectNode tn = topicsNode.addObject();
            tn.put("id", topics.get(t).toString());
            tn.put("partitions", counts.get(t));
            if (racks && counts.get(t) > 0) {
                ObjectNode rn = tn.putObject("racks");
                for (int p = 0; p < counts.get(t); p++) {
                    ArrayNode list = rn.putArray(Integer.toString(p));
                    for (int k = 0; k < 1 + r.nextInt(3); k++) list.add("rack-" + r.nextInt(3));
                }
            }
        }
        // A subscribed topic the image does not have, and stale topics only previous assignments name.
        Uuid missing = r.nextInt(25) == 0 ? new Uuid(r.nextLong(), r.nextLong()) : null;
        List<Uuid> stale = new ArrayList<>();
        if (r.nextInt(5) == 0) stale.add(new Uuid(r.nextLong(), r.nextLong()));

        // Members.
        int numMembers = r.nextInt(40) == 0 ? 0 : 1 + r.nextInt(r.nextInt(3) == 0 ? maxMembers : Math.min(maxMembers, 8));
        int idStyle = r.nextInt(4);
        List<String> memberIds = new ArrayList<>();
        for (int m = 0; m < numMembers; m++) {
            switch (idStyle) {
                case 0 -> memberIds.add(RandomInputs.uuidLike(r));
                case 1 -> memberIds.add("m" + m);
                default -> memberIds.add(RandomInputs.collidingId(m, 0));
            }
        }
        boolean statics = r.nextInt(3) == 0;
        // One prefix, or a mix whose UTF-16 and code point orders differ ("\uff61" vs an emoji).
        boolean mixedPrefixes = r.nextBoolean();
        String prefix = INSTANCE_PREFIXES[r.nextInt(INSTANCE_PREFIXES.length)];
        boolean memberRacks = r.nextInt(4) == 0;

        // Subscriptions: 0 homogeneous, 1 independent subsets, 2 a few shared subsets.
        int subscriptionStyle = r.nextInt(3);
        List<Set<Uuid>> shapes = new ArrayList<>();
        int numShapes = subscriptionStyle == 0 ? 1 : subscriptionStyle == 2 ? 2 + r.nextInt(2) : 0;
        for (int s = 0; s < numShapes; s++) shapes.add(randomSubset(r, topics, r.nextInt(20) == 0));
        List<List<Uuid>> subscriptions = new ArrayList<>();
        for (int m = 0; m < numMembers; m++) {
            Set<Uuid> set = subscriptionStyle == 1 ? randomSubset(r, topics, r.nextInt(6) == 0) : shapes.get(r.nextInt(numShapes));
            List<Uuid> list = new ArrayList<>(set);
            Collections.shuffle(list, new java.util.Random(r.nextLong()));
            subscriptions.add(list);
        }
        if (missing != null && numMembers > 0) {
            if (subscriptionStyle == 0) {
                for (List<Uuid> s : subscriptions) s.add(r.nextInt(s.size() + 1), missing);
            } else {
                List<Uuid> s = subscriptions.get(r.nextInt(numMembers));
                s.add(r.nextInt(s.size() + 1), missing);
            }
        }
        int typeDraw = r.nextInt(30);
        if (typeDraw < 4) root.put("subscriptionType", "heterogeneous");
        else if (typeDraw == 4) root.put("subscriptionType", "homogeneous");

        // Previous assignments: 0 none, 1 plausible, 2 messy.
        int style = r.nextInt(4) == 0 ? 0 : r.nextInt(3) == 0 ? 2 : 1;
        List<Map<Uuid, List<Integer>>> previous = new ArrayList<>();
        for (int m = 0; m < numMembers; m++) previous.add(new LinkedHashMap<>());
        if (numMembers > 0 && style == 1) {
            boolean skewed = r.nextBoolean();
            for (int t = 0; t < numTopics; t++) {
                List<Integer> subscribers = new ArrayList<>();
                for (int m = 0; m < numMembers; m++) if (subscriptions.get(m).contains(topics.get(t))) subscribers.add(m);
                for (int p = 0; p < previousCounts.get(t); p++) {
                    if (r.nextInt(8) == 0) continue; // its owner left
                    int owner;
                    if (subscribers.isEmpty() || r.nextInt(12) == 0) owner = r.nextInt(numMembers);
                    else owner = subscribers.get(skewed ? r.nextInt(1 + r.nextInt(subscribers.size())) : r.nextInt(subscribers.size()));
                    previous.get(owner).computeIfAbsent(topics.get(t), k -> new ArrayList<>()).add(p);
                }
            }
        } else if (numMembers > 0 && style == 2) {
            boolean outOfRange = r.nextInt(6) == 0;
            List<Uuid> pool = new ArrayList<>(topics);
            pool.addAll(stale);
            for (int m = 0; m < numMembers; m++) {
                for (Uuid t : pool) {
                    if (r.nextInt(3) != 0) continue;
                    int index = topics.indexOf(t);
                    int n = index < 0 ? 1 + r.nextInt(6) : counts.get(index);
                    List<Integer> ps = new ArrayList<>();
                    for (int p = 0; p < n + (outOfRange ? 2 : 0); p++) {
                        if (r.nextInt(Math.max(2, numMembers / 2 + 1)) == 0) ps.add(p);
                    }
                    previous.get(m).put(t, ps);
                }
            }
        }
        if (!stale.isEmpty() && style == 1 && numMembers > 0) {
            previous.get(r.nextInt(numMembers)).put(stale.get(0), new ArrayList<>(List.of(0, 1)));
        }

        ArrayNode membersNode = root.putArray("members");
        for (int m = 0; m < numMembers; m++) {
            ObjectNode mn = membersNode.addObject();
            mn.put("memberId", memberIds.get(m));
            if (statics && r.nextBoolean()) {
                String p = mixedPrefixes ? INSTANCE_PREFIXES[r.nextInt(INSTANCE_PREFIXES.length)] : prefix;
                mn.put("instanceId", p + (r.nextInt(10) == 0 ? 0 : r.nextInt(Math.max(1, numMembers))));
            }
            if (memberRacks && r.nextInt(4) != 0) mn.put("rackId", "rack-" + r.nextInt(3));
            ArrayNode subs = mn.putArray("subscribedTopicIds");
            for (Uuid t : subscriptions.get(m)) subs.add(t.toString());
            if (!previous.get(m).isEmpty() || r.nextInt(4) == 0) {
                ObjectNode an = mn.putObject("assignment");
                List<Uuid> order = new ArrayList<>(previous.get(m).keySet());
                Collections.shuffle(order, new java.util.Random(r.nextLong()));
                for (Uuid t : order) {
                    List<Integer> ps = new ArrayList<>(new LinkedHashSet<>(previous.get(m).get(t)));
                    if (r.nextBoolean()) Collections.shuffle(ps, new java.util.Random(r.nextLong()));
                    ArrayNode list = an.putArray(t.toString());
                    for (int p : ps) list.add(p);
                }
            }
        }
        return root;
    }

    /** A random subset of the topics, possibly empty. */
    static Set<Uuid> randomSubset(SplittableRandom r, List<Uuid> topics, boolean allowEmpty) {
        Set<Uuid> out = new LinkedHashSet<>();
        if (r.nextInt(4) == 0) {
            out.addAll(topics);
            return out;
        }
        for (Uuid t : topics) if (r.nextBoolean()) out.add(t);
        if (out.isEmpty() && !allowEmpty) out.add(topics.get(r.nextInt(topics.size())));
        return out;
    }

    /** A Uuid whose hashCode() is `hash` (so that such ids share a HashSet bucket when their hashes do). */
    static Uuid collidingUuid(SplittableRandom r, int hash) {
        int high = r.nextInt();
        int low = high ^ hash;
        long xor = ((long) high << 32) | (low & 0xffffffffL);
        long msb = r.nextLong();
        return new Uuid(msb, msb ^ xor);
    }
}

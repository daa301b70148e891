package dev.regroup.oracle;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

/**
 * Prints the JVM's own answers for regroup's Java-order emulation tests, one per input line:
 * `put CAP k1 k2 ...` / `cia CAP k1 k2 ...` (HashMap key iteration order after put / computeIfAbsent in that
 * order; CAP -1 = `new HashMap<>()`), and `pq v1 v2 ...` (the poll order of a PriorityQueue of the given
 * integer keys, offered in order, printed as their positions).
 */
public final class HashOrder {
    private HashOrder() { }

    public static void main(String[] args) throws Exception {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = reader.readLine()) != null) {
            String[] parts = line.trim().split(" ");
            if (parts[0].equals("pq")) {
                PriorityQueue<int[]> q = new PriorityQueue<>((a, b) -> Integer.compare(a[0], b[0]));
                for (int i = 1; i < parts.length; i++) q.add(new int[] {Integer.parseInt(parts[i]), i - 1});
                List<String> order = new ArrayList<>();
                while (!q.isEmpty()) order.add(Integer.toString(q.poll()[1]));
                System.out.println(String.join(" ", order));
                continue;
            }
            int cap = Integer.parseInt(parts[1]);
            Map<String, Integer> map = cap < 0 ? new HashMap<>() : new HashMap<>(cap);
            for (int i = 2; i < parts.length; i++) {
                final int index = i - 2;
                if (parts[0].equals("put")) map.put(parts[i], index);
                else map.computeIfAbsent(parts[i], k -> index);
            }
            List<String> order = new ArrayList<>();
            for (String k : map.keySet()) order.add(k);
            System.out.println(String.join(" ", order));
        }
    }
}

//! The Java collection emulation against the JVM's own answers (tests/data/java_order_probe.txt, produced
//! by `dev.regroup.oracle.HashOrder` on Java 17): HashMap key order after `put` and `computeIfAbsent`,
//! including threshold resizes, the early resize of a crowded bucket in a small table, tree bins, tree
//! splits, and PriorityQueue poll order with ties.

use std::cmp::Ordering;

use coordinator::java::{JavaHashMapOrder, JavaPriorityQueue};

fn run_probe(line: &str) -> String {
    let mut parts = line.split(' ');
    let kind = parts.next().expect("probe kind");
    if kind == "pq" {
        let values: Vec<i32> = parts.map(|v| v.parse().expect("integer")).collect();
        let cmp = |a: &(i32, usize), b: &(i32, usize)| -> Ordering { a.0.cmp(&b.0) };
        let mut q = JavaPriorityQueue::with_capacity(values.len());
        for (i, &v) in values.iter().enumerate() {
            q.offer((v, i), cmp);
        }
        let mut order = Vec::new();
        while let Some((_, i)) = q.poll(cmp) {
            order.push(i.to_string());
        }
        return order.join(" ");
    }
    let capacity: i32 = parts.next().expect("capacity").parse().expect("integer");
    let keys: Vec<&str> = parts.collect();
    let mut map = if capacity < 0 {
        JavaHashMapOrder::new()
    } else {
        JavaHashMapOrder::with_capacity(capacity)
    };
    let mut first_index = Vec::new();
    for &k in &keys {
        let (idx, inserted) = if kind == "put" {
            map.put(k)
        } else {
            map.compute_if_absent(k)
        };
        if inserted {
            assert_eq!(idx as usize, first_index.len());
            first_index.push(k);
        }
    }
    map.iteration_order()
        .into_iter()
        .map(|i| first_index[i as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn java_collections_order_matches_the_jvm() {
    let data = include_str!("data/java_order_probe.txt");
    let mut probes = 0;
    let mut lines = data.lines().filter(|l| !l.starts_with('#'));
    while let Some(probe) = lines.next() {
        let probe = probe.strip_prefix("> ").expect("probe line");
        let expected = lines
            .next()
            .and_then(|l| l.strip_prefix("< "))
            .expect("answer line");
        assert_eq!(run_probe(probe), expected, "probe: {probe}");
        probes += 1;
    }
    assert_eq!(probes, 9);
}

//! Where a group lives (`GroupCoordinatorService.partitionFor`) and the Java hash-map order Kafka's
//! multi-group answers come back in.

/// Java's `String.hashCode`: 31-based fold over UTF-16 code units with 32-bit wrapping.
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16()
        .fold(0i32, |h, u| h.wrapping_mul(31).wrapping_add(i32::from(u)))
}

/// Kafka's `Utils.abs`: 0 for `i32::MIN`, else the absolute value.
pub fn kafka_abs(n: i32) -> i32 {
    if n == i32::MIN { 0 } else { n.abs() }
}

/// The `__consumer_offsets` partition of `group_id` among `partitions` partitions.
pub fn partition_for(group_id: &str, partitions: i32) -> i32 {
    kafka_abs(java_string_hash(group_id)) % partitions.max(1)
}

/// Java's `TopicPartition.hashCode`.
pub fn topic_partition_hash(topic: &str, partition: i32) -> i32 {
    31i32
        .wrapping_add(partition)
        .wrapping_mul(31)
        .wrapping_add(java_string_hash(topic))
}

/// The order a `java.util.HashMap` built by inserting `hashes` (in this order) iterates them:
/// returns the insertion indexes in iteration order. Buckets are walked in index order and a
/// bucket keeps insertion order; the table starts at 16 buckets and doubles whenever the size
/// passes three quarters of it (tree bins, which keep that order here, are not modelled).
pub fn java_hash_map_order(hashes: &[i32]) -> Vec<usize> {
    let mut capacity: usize = 16;
    while hashes.len() > capacity * 3 / 4 {
        capacity *= 2;
    }
    let mut order: Vec<(usize, usize)> = hashes
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let spread = (*h as u32) ^ ((*h as u32) >> 16);
            ((spread as usize) & (capacity - 1), i)
        })
        .collect();
    order.sort();
    order.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partition_for_matches_kafka() {
        // Values verified against Java 17's String.hashCode (kraft-and-wire.md §4.1).
        for (group, hash, partition) in [
            ("my-group", -1906497762, 12),
            ("g1", 3242, 42),
            ("test-group", 627841412, 12),
            ("streams-app", 1643830855, 5),
            ("wordcount-app", 1073128601, 1),
            ("", 0, 0),
            ("polygenelubricants", i32::MIN, 0),
            ("é", 233, 33),
        ] {
            assert_eq!(java_string_hash(group), hash, "{group}");
            assert_eq!(partition_for(group, 50), partition, "{group}");
        }
    }

    #[test]
    fn hash_map_order_matches_java() {
        // Printed by jshell with kafka-clients 4.4.0: the values (insertion indexes) of a
        // HashMap<TopicPartition, Integer> filled in this order.
        let order_of = |partitions: &[i32]| {
            let hashes: Vec<i32> = partitions
                .iter()
                .map(|p| topic_partition_hash("__consumer_offsets", *p))
                .collect();
            java_hash_map_order(&hashes)
        };
        assert_eq!(
            order_of(&[12, 42, 5, 33, 0, 49, 17, 8, 21]),
            vec![4, 0, 1, 7, 2, 8, 3, 5, 6]
        );
        let fifty: Vec<i32> = (0..50).map(|i| (i * 7) % 50).collect();
        assert_eq!(
            order_of(&fifty),
            vec![
                9, 28, 37, 6, 3, 31, 40, 18, 15, 34, 43, 12, 38, 35, 16, 13, 32, 10, 7, 0, 47, 25,
                44, 41, 22, 19, 45, 14, 23, 42, 39, 17, 26, 4, 1, 20, 29, 48, 21, 2, 49, 30, 46,
                24, 33, 11, 27, 8, 5, 36
            ]
        );
    }
}

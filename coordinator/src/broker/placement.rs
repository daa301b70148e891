//! Where a group lives (`GroupCoordinatorService.partitionFor`).

use crate::java::string_hash;

/// Kafka's `Utils.abs`: 0 for `i32::MIN`, else the absolute value.
pub fn kafka_abs(n: i32) -> i32 {
    if n == i32::MIN { 0 } else { n.abs() }
}

/// The `__consumer_offsets` partition of `group_id` among `partitions` partitions.
pub fn partition_for(group_id: &str, partitions: i32) -> i32 {
    kafka_abs(string_hash(group_id)) % partitions.max(1)
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
            assert_eq!(string_hash(group), hash, "{group}");
            assert_eq!(partition_for(group, 50), partition, "{group}");
        }
    }
}

//! `hashCode()` of the key types Kafka keeps in hash maps.

use super::string::string_hash;

/// Java's `hashCode()` of a key type.
pub trait JavaHash {
    fn java_hash(&self) -> i32;
}

impl JavaHash for str {
    fn java_hash(&self) -> i32 {
        string_hash(self)
    }
}

impl JavaHash for String {
    fn java_hash(&self) -> i32 {
        string_hash(self)
    }
}

/// `Integer.hashCode()`: the value.
impl JavaHash for i32 {
    fn java_hash(&self) -> i32 {
        *self
    }
}

/// `Long.hashCode()`: the two halves xor-ed.
impl JavaHash for i64 {
    fn java_hash(&self) -> i32 {
        (*self ^ ((*self as u64) >> 32) as i64) as i32
    }
}

/// Java's `TopicPartition.hashCode`.
pub fn topic_partition_hash(topic: &str, partition: i32) -> i32 {
    31i32
        .wrapping_add(partition)
        .wrapping_mul(31)
        .wrapping_add(string_hash(topic))
}

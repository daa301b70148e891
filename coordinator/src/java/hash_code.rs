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

/// Kafka's `Uuid.hashCode()`: the xor of the two 64-bit halves, folded to 32 bits (`(int) (x >> 32) ^ (int) x`
/// with `x = msb ^ lsb`; checked with javap on kafka-clients 4.4.0).
impl JavaHash for uuid::Uuid {
    fn java_hash(&self) -> i32 {
        let (high, low) = self.as_u64_pair();
        let xor = high ^ low;
        ((xor >> 32) as u32 ^ xor as u32) as i32
    }
}

/// Kafka's `Uuid.compareTo`: the most significant 64 bits compared as a signed `long`, then the least
/// significant ones.
pub fn uuid_compare(a: &uuid::Uuid, b: &uuid::Uuid) -> std::cmp::Ordering {
    let (a_high, a_low) = a.as_u64_pair();
    let (b_high, b_low) = b.as_u64_pair();
    (a_high as i64, a_low as i64).cmp(&(b_high as i64, b_low as i64))
}

/// A string whose `String.compareTo` order is `Uuid.compareTo`'s (both halves in hex with the sign bit
/// flipped), for the tree bins of [`super::hash_map::java_hash_order_of`].
pub fn uuid_tree_key(id: &uuid::Uuid) -> String {
    let (high, low) = id.as_u64_pair();
    format!("{:016x}{:016x}", high ^ (1 << 63), low ^ (1 << 63))
}

/// A string whose `String.compareTo` order is `Integer.compareTo`'s, for the tree bins of
/// [`super::hash_map::java_hash_order_of`].
pub fn integer_tree_key(value: i32) -> String {
    format!("{:08x}", (value as u32) ^ (1 << 31))
}

//! Java's standard-library behaviour that decides Kafka's outputs, in one place: where Kafka's answer
//! depends on how a `String` hashes or compares, how a `java.util.HashMap` or `HashSet` iterates, or
//! how a `java.util.PriorityQueue` sifts equal elements, regroup reproduces that order exactly.
//!
//! * [`string`]: `String.hashCode` and `String.compareTo`, defined over UTF-16 code units (which
//!   differs from Rust's UTF-8 byte order for characters above U+FFFF).
//! * [`hash_code`]: the `hashCode()` of the key types Kafka puts in hash maps (`JavaHash`), and
//!   `TopicPartition.hashCode`.
//! * [`hash_map`]: where a `HashMap<String, _>` keeps each key (bucket index, position inside the
//!   bucket, red-black tree bins included), for both ways Kafka inserts (`put` appends to a bucket,
//!   `computeIfAbsent` prepends and resizes lazily), with the table growth of the JDK (load factor
//!   0.75, `tableSizeFor` for an initial capacity, early resize instead of treeifying a bucket in a
//!   table smaller than 64); and the iteration orders built on it.
//! * [`priority_queue`]: the binary heap of `PriorityQueue` with its exact `siftUp`/`siftDown` rules,
//!   so equal elements come out in the same order as in the JVM.
//!
//! Nothing here is a general-purpose collection: it records placement and order only; values live
//! with the caller (except `streams::timeline_map`, Kafka's `TimelineHashMap`, built on these).

pub mod hash_code;
pub mod hash_map;
pub mod priority_queue;
pub mod string;

pub use hash_code::{
    JavaHash, integer_tree_key, topic_partition_hash, uuid_compare, uuid_tree_key,
};
pub use hash_map::{
    JavaHashMapOrder, SMALL_MAP_MAX_KEYS, hash_map_order_of_hashes, hash_set_copy_capacity,
    java_hash_map_order, java_hash_order_of, java_hash_set_copy_order, small_map_bucket,
};
pub use priority_queue::{JavaPriorityQueue, heap_offer, heap_poll};
pub use string::{compare_strings, string_hash};

//! Test support: an in-memory network and a one-shard broker running the real coordinator code.

#![allow(dead_code)]

pub mod broker;
pub mod net;
pub mod scripted;

use std::collections::BTreeMap;

use coordinator::topics::{TopicMetadata, TopicsImage};

#[allow(unused_imports)]
pub use broker::TestBroker;
#[allow(unused_imports)]
pub use net::{Fabric, MemNet};

/// The address the test broker listens on.
pub const BROKER: &str = "broker-0:9092";

/// A topics image with `(name, partitions)`.
pub fn topics(list: &[(&str, i32)]) -> TopicsImage {
    TopicsImage::from_topics(list.iter().map(|(n, p)| TopicMetadata::new(*n, *p)))
}

/// Counts of something per key, for assertions.
pub fn count<K: Ord>(items: impl IntoIterator<Item = K>) -> BTreeMap<K, usize> {
    let mut map = BTreeMap::new();
    for k in items {
        *map.entry(k).or_insert(0) += 1;
    }
    map
}

//! The metadata hash of a streams group (Kafka 4.4 `Utils.computeTopicHash` / `computeGroupHash`):
//! XXH3-64 (seed 0) over a byte stream written the way hash4j's `HashStream64` writes it —
//! little-endian integers, strings as their UTF-16 code units (little-endian) followed by their
//! length as an int.

use xxhash_rust::xxh3::Xxh3;

use crate::topics::{TopicMetadata, TopicsImage};

/// Version byte at the start of every topic hash.
const TOPIC_HASH_MAGIC_BYTE: u8 = 0;

struct Stream(Xxh3);

impl Stream {
    fn new() -> Self {
        Stream(Xxh3::new())
    }
    fn byte(&mut self, b: u8) -> &mut Self {
        self.0.update(&[b]);
        self
    }
    fn int(&mut self, v: i32) -> &mut Self {
        self.0.update(&v.to_le_bytes());
        self
    }
    fn long(&mut self, v: i64) -> &mut Self {
        self.0.update(&v.to_le_bytes());
        self
    }
    /// hash4j `putString`: the chars, then the length in chars.
    fn string(&mut self, s: &str) -> &mut Self {
        let mut units = 0i32;
        for u in s.encode_utf16() {
            self.0.update(&u.to_le_bytes());
            units += 1;
        }
        self.int(units)
    }
    fn finish(&self) -> i64 {
        self.0.digest() as i64
    }
}

/// `computeTopicHash` of one existing topic.
pub fn topic_hash(topic: &TopicMetadata) -> i64 {
    let (msb, lsb) = topic.id.as_u64_pair();
    let mut s = Stream::new();
    s.byte(TOPIC_HASH_MAGIC_BYTE)
        .long(msb as i64)
        .long(lsb as i64)
        .string(&topic.name)
        .int(topic.partitions);
    for p in 0..topic.partitions.max(0) {
        s.int(p);
        let mut racks: Vec<&String> = topic
            .partition_racks
            .get(p as usize)
            .map(|r| r.iter().collect())
            .unwrap_or_default();
        // Java sorts with String.compareTo (UTF-16 order).
        racks.sort_by(|a, b| crate::java::compare_strings(a, b));
        for rack in racks {
            s.int(rack.encode_utf16().count() as i32).string(rack);
        }
    }
    s.finish()
}

/// `computeGroupHash` over the topics of `names` that exist in `image`: 0 when none exists, else
/// XXH3 over their topic hashes in name order.
pub fn group_hash<'a>(names: impl IntoIterator<Item = &'a String>, image: &TopicsImage) -> i64 {
    group_hash_cached(names, image, &mut TopicHashCache::default())
}

/// Topic hashes already computed, each kept with the metadata it was computed from (Kafka's
/// `topicHashCache`; an entry is reused only while the topic's metadata is unchanged).
#[derive(Debug, Clone, Default)]
pub struct TopicHashCache {
    entries: std::collections::BTreeMap<String, (TopicMetadata, i64)>,
}

impl TopicHashCache {
    fn hash(&mut self, topic: &TopicMetadata) -> i64 {
        if let Some((cached, h)) = self.entries.get(&topic.name)
            && cached == topic
        {
            return *h;
        }
        let h = topic_hash(topic);
        self.entries.insert(topic.name.clone(), (topic.clone(), h));
        h
    }

    /// Forgets topics that no longer exist or changed (bounds the cache by the image).
    pub fn retain_current(&mut self, image: &TopicsImage) {
        self.entries
            .retain(|name, (cached, _)| image.get(name).is_some_and(|t| t == cached));
    }
}

/// [`group_hash`] with a topic hash cache. `names` must be sorted in Java string order and distinct.
pub fn group_hash_cached<'a>(
    names: impl IntoIterator<Item = &'a String>,
    image: &TopicsImage,
    cache: &mut TopicHashCache,
) -> i64 {
    let mut s = Stream::new();
    let mut any = false;
    let mut previous: Option<&str> = None;
    let mut sorted = true;
    let mut hashes: Vec<(&str, i64)> = Vec::new();
    for n in names {
        if let Some(t) = image.get(n) {
            if previous.is_some_and(|p| crate::java::compare_strings(p, n).is_ge()) {
                sorted = false;
            }
            previous = Some(n.as_str());
            hashes.push((n.as_str(), cache.hash(t)));
            any = true;
        }
    }
    if !any {
        return 0;
    }
    if !sorted {
        hashes.sort_by(|a, b| crate::java::compare_strings(a.0, b.0));
        hashes.dedup_by(|a, b| a.0 == b.0);
    }
    for (_, h) in hashes {
        s.long(h);
    }
    s.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_group_hash_is_zero() {
        let image = TopicsImage::new();
        assert_eq!(group_hash([&"foo".to_string()], &image), 0);
    }

    #[test]
    fn matches_hash4j_byte_stream() {
        // Values computed with hash4j 0.22.0 (Kafka 4.4's dependency) for the same puts.
        let mut topic = TopicMetadata::new("foo", 2);
        topic.id = uuid::Uuid::from_bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
        topic.partition_racks = vec![vec!["rack1".to_string()], vec![]];
        let t = topic_hash(&topic);
        assert_eq!(t, 27127765018631126);
        let mut s = Stream::new();
        s.long(t).long(42);
        assert_eq!(s.finish(), 585857160479627120);
    }

    #[test]
    fn hash_changes_with_partition_count() {
        let a = topic_hash(&TopicMetadata::new("foo", 3));
        let b = topic_hash(&TopicMetadata::new("foo", 6));
        assert_ne!(a, b);
    }
}

//! Topic metadata as the shard sees it: an input (in Kafka, the broker's metadata image), never derived
//! by the shard itself.

use std::collections::BTreeMap;

use uuid::Uuid;

/// One topic: name, id and partition count (and, for rack-aware hashing, the racks of each partition's
/// replicas; empty when the cluster has no racks).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    pub name: String,
    pub id: Uuid,
    pub partitions: i32,
    /// `partition_racks[p]` = sorted racks of partition p's replicas.
    pub partition_racks: Vec<Vec<String>>,
}

impl TopicMetadata {
    /// A topic whose id is derived from its name (see [`derived_topic_id`]), without racks.
    pub fn new(name: impl Into<String>, partitions: i32) -> Self {
        let name = name.into();
        Self {
            id: derived_topic_id(&name),
            name,
            partitions,
            partition_racks: Vec::new(),
        }
    }
}

/// The shard's view of the cluster's topics, looked up by name or id.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TopicsImage {
    by_name: BTreeMap<String, TopicMetadata>,
    names_by_id: BTreeMap<Uuid, String>,
}

impl TopicsImage {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn from_topics(topics: impl IntoIterator<Item = TopicMetadata>) -> Self {
        let mut image = Self::new();
        for topic in topics {
            image.upsert(topic);
        }
        image
    }

    /// Adds or replaces a topic.
    pub fn upsert(&mut self, topic: TopicMetadata) {
        if let Some(old) = self.by_name.get(&topic.name) {
            self.names_by_id.remove(&old.id);
        }
        self.names_by_id.insert(topic.id, topic.name.clone());
        self.by_name.insert(topic.name.clone(), topic);
    }

    pub fn remove(&mut self, name: &str) -> Option<TopicMetadata> {
        let topic = self.by_name.remove(name)?;
        self.names_by_id.remove(&topic.id);
        Some(topic)
    }

    pub fn get(&self, name: &str) -> Option<&TopicMetadata> {
        self.by_name.get(name)
    }

    pub fn get_by_id(&self, id: &Uuid) -> Option<&TopicMetadata> {
        self.names_by_id.get(id).and_then(|n| self.by_name.get(n))
    }

    /// Topics in name order.
    pub fn iter(&self) -> impl Iterator<Item = &TopicMetadata> {
        self.by_name.values()
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// The topic id regroup gives a topic when none is specified (scripts, scenarios): the two halves are
/// 64-bit FNV-1a hashes of the UTF-8 name with two different offset bases. Deterministic, never nil, and
/// simple to reproduce in the Java differential oracle.
pub fn derived_topic_id(name: &str) -> Uuid {
    fn fnv1a(bytes: &[u8], basis: u64) -> u64 {
        bytes.iter().fold(basis, |h, b| {
            (h ^ u64::from(*b)).wrapping_mul(0x0000_0100_0000_01b3)
        })
    }
    let hi = fnv1a(name.as_bytes(), 0xcbf2_9ce4_8422_2325);
    let lo = fnv1a(name.as_bytes(), 0x8422_2325_cbf2_9ce4) | 1;
    Uuid::from_u64_pair(hi, lo)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_distinct_and_not_nil() {
        let a = derived_topic_id("foo");
        assert_eq!(a, derived_topic_id("foo"));
        assert_ne!(a, derived_topic_id("bar"));
        assert!(!derived_topic_id("").is_nil());
        // Pinned so the Java oracle's copy of the rule can be checked against it.
        assert_eq!(a.as_u64_pair().0, 0xdcb27518fed9d577);
    }

    #[test]
    fn lookups_by_name_and_id_follow_replacement() {
        let mut image = TopicsImage::new();
        image.upsert(TopicMetadata::new("foo", 3));
        let id = image.get("foo").unwrap().id;
        assert_eq!(image.get_by_id(&id).unwrap().partitions, 3);
        let mut replaced = TopicMetadata::new("foo", 6);
        replaced.id = Uuid::from_u64_pair(1, 2);
        image.upsert(replaced);
        assert!(image.get_by_id(&id).is_none());
        assert_eq!(image.get("foo").unwrap().partitions, 6);
        assert_eq!(image.remove("foo").map(|t| t.partitions), Some(6));
        assert!(image.is_empty());
    }
}

//! Committed offsets of every group (Kafka's `OffsetMetadataManager.Offsets`) and the transactional
//! offsets still waiting for their transaction to end. Changed only by replaying OffsetCommit records.
//!
//! The maps are [`TimelineMap`]s nested exactly as Kafka nests its `TimelineHashMap`s (group -> topic ->
//! partition, created empty and filled with `computeIfAbsent`/`put`, emptied levels removed), because
//! the order Kafka walks them is the order of the tombstones it writes when offsets expire, when a
//! topic is deleted and when a group is deleted. Since the store changes only through replay, two
//! shards that replay the same records walk them identically, and identically to Kafka.

use std::collections::BTreeSet;

use uuid::Uuid;

use crate::records::offsets::{OffsetCommitKey, OffsetCommitValue};
use crate::streams::timeline_map::TimelineMap;

/// One committed offset (Kafka's `OffsetAndMetadata`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetAndMetadata {
    /// Position of the record that committed it among the shard's offset records (Kafka uses the log
    /// offset; only the order matters: a transactional commit never overrides a later regular one).
    pub record_offset: u64,
    pub committed_offset: i64,
    pub leader_epoch: Option<i32>,
    pub metadata: String,
    pub commit_timestamp: i64,
    pub expire_timestamp: Option<i64>,
    /// The committed topic's id; nil when unknown (old records).
    pub topic_id: Uuid,
}

impl OffsetAndMetadata {
    fn from_record(record_offset: u64, value: &OffsetCommitValue) -> Self {
        Self {
            record_offset,
            committed_offset: value.offset,
            leader_epoch: (value.leader_epoch != -1).then_some(value.leader_epoch),
            metadata: value.metadata.clone(),
            commit_timestamp: value.commit_timestamp,
            expire_timestamp: value.expire_timestamp,
            topic_id: value.topic_id,
        }
    }
}

/// partition -> offset.
pub type PartitionOffsets = TimelineMap<OffsetAndMetadata, i32>;

/// topic -> partition -> offset.
pub type TopicOffsets = TimelineMap<PartitionOffsets>;

/// Kafka's `Offsets`: group -> topic -> partition -> offset. Levels that become empty are removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Offsets {
    by_group: TimelineMap<TopicOffsets>,
}

impl Offsets {
    pub fn get(&self, group: &str, topic: &str, partition: i32) -> Option<&OffsetAndMetadata> {
        self.by_group.get(group)?.get(topic)?.get(&partition)
    }

    /// The offsets of one group, by topic and partition.
    pub fn group(&self, group: &str) -> Option<&TopicOffsets> {
        self.by_group.get(group)
    }

    /// Every group's offsets, in Kafka's iteration order.
    pub fn groups(&self) -> impl Iterator<Item = (&String, &TopicOffsets)> {
        self.by_group.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.by_group.is_empty()
    }

    fn put(&mut self, group: &str, topic: &str, partition: i32, offset: OffsetAndMetadata) {
        self.by_group
            .get_or_insert_with(group.to_string(), TimelineMap::new)
            .get_or_insert_with(topic.to_string(), TimelineMap::new)
            .insert(partition, offset);
    }

    fn remove(&mut self, group: &str, topic: &str, partition: i32) -> Option<OffsetAndMetadata> {
        let topics = self.by_group.get_mut(group)?;
        let partitions = topics.get_mut(topic)?;
        let removed = partitions.remove(&partition);
        if partitions.is_empty() {
            topics.remove(topic);
        }
        if topics.is_empty() {
            self.by_group.remove(group);
        }
        removed
    }
}

/// group -> topic -> partition -> producer ids with a pending offset for the partition (Kafka's
/// `OpenTransactions`). Levels are never empty.
type OpenTransactions = TimelineMap<TimelineMap<TimelineMap<BTreeSet<i64>, i32>>>;

/// The committed offsets of every group in the shard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetStore {
    committed: Offsets,
    /// Pending transactional offsets by producer id. A producer's entry stays (possibly emptied by
    /// tombstones) until its transaction ends, as in Kafka.
    pending: TimelineMap<Offsets, i64>,
    open_transactions: OpenTransactions,
    /// Number of offset records replayed so far.
    records_replayed: u64,
}

impl OffsetStore {
    /// The committed offset of a partition.
    pub fn get(&self, group: &str, topic: &str, partition: i32) -> Option<&OffsetAndMetadata> {
        self.committed.get(group, topic, partition)
    }

    /// Every committed offset of a group, by topic and partition, in Kafka's iteration order.
    pub fn group(&self, group: &str) -> Option<&TopicOffsets> {
        self.committed.group(group)
    }

    /// Every committed offset of every group.
    pub fn committed(&self) -> &Offsets {
        &self.committed
    }

    /// The pending transactional offsets by producer id, in Kafka's iteration order.
    pub fn pending(&self) -> impl Iterator<Item = (i64, &Offsets)> {
        self.pending
            .iter()
            .map(|(producer, offsets)| (*producer, offsets))
    }

    /// Whether a transaction holds an offset for the partition.
    pub fn has_pending(&self, group: &str, topic: &str, partition: i32) -> bool {
        self.open_transactions
            .get(group)
            .and_then(|topics| topics.get(topic))
            .is_some_and(|partitions| partitions.contains_key(&partition))
    }

    /// Whether a transaction holds an offset for any partition of the group.
    pub fn group_has_pending(&self, group: &str) -> bool {
        self.open_transactions.contains_key(group)
    }

    /// The (topic, partition) pairs of a group with a pending transactional offset, in Kafka's order
    /// (`OpenTransactions.forEachTopicPartition`).
    pub fn pending_partitions(&self, group: &str) -> Vec<(String, i32)> {
        let Some(topics) = self.open_transactions.get(group) else {
            return Vec::new();
        };
        topics
            .iter()
            .flat_map(|(topic, partitions)| partitions.keys().map(|p| (topic.clone(), *p)))
            .collect()
    }

    /// Applies an OffsetCommit record, transactional (`producer_id` set) or not. A tombstone deletes the
    /// committed offset and every pending one of the partition.
    pub fn replay(
        &mut self,
        key: &OffsetCommitKey,
        value: Option<&OffsetCommitValue>,
        producer_id: Option<i64>,
    ) {
        let record_offset = self.records_replayed;
        self.records_replayed += 1;
        let (group, topic, partition) = (&key.group, &key.topic, key.partition);
        match (value, producer_id) {
            (Some(value), None) => {
                self.committed.put(
                    group,
                    topic,
                    partition,
                    OffsetAndMetadata::from_record(record_offset, value),
                );
            }
            (Some(value), Some(producer)) => {
                self.pending
                    .get_or_insert_with(producer, Offsets::default)
                    .put(
                        group,
                        topic,
                        partition,
                        OffsetAndMetadata::from_record(record_offset, value),
                    );
                self.open_transactions
                    .get_or_insert_with(group.clone(), TimelineMap::new)
                    .get_or_insert_with(topic.clone(), TimelineMap::new)
                    .get_or_insert_with(partition, BTreeSet::new)
                    .insert(producer);
            }
            (None, _) => {
                self.committed.remove(group, topic, partition);
                let producers = self
                    .open_transactions
                    .get(group)
                    .and_then(|topics| topics.get(topic))
                    .and_then(|partitions| partitions.get(&partition))
                    .cloned()
                    .unwrap_or_default();
                for producer in producers {
                    if let Some(offsets) = self.pending.get_mut(&producer) {
                        offsets.remove(group, topic, partition);
                    }
                }
                self.clear_open(group, topic, partition);
            }
        }
    }

    /// `OpenTransactions.clear`: forgets every producer of the partition, removing emptied levels.
    fn clear_open(&mut self, group: &str, topic: &str, partition: i32) {
        let Some(topics) = self.open_transactions.get_mut(group) else {
            return;
        };
        let Some(partitions) = topics.get_mut(topic) else {
            return;
        };
        partitions.remove(&partition);
        if partitions.is_empty() {
            topics.remove(topic);
            if topics.is_empty() {
                self.open_transactions.remove(group);
            }
        }
    }

    /// `OpenTransactions.remove`: forgets one producer of the partition.
    fn remove_open(&mut self, group: &str, topic: &str, partition: i32, producer: i64) {
        let emptied = match self
            .open_transactions
            .get_mut(group)
            .and_then(|topics| topics.get_mut(topic))
            .and_then(|partitions| partitions.get_mut(&partition))
        {
            Some(producers) => {
                producers.remove(&producer);
                producers.is_empty()
            }
            None => false,
        };
        if emptied {
            self.clear_open(group, topic, partition);
        }
    }

    /// Applies the end of a transaction: its pending offsets become committed (unless a later regular
    /// commit exists) or are dropped.
    pub fn end_transaction(&mut self, producer_id: i64, commit: bool) {
        let Some(offsets) = self.pending.remove(&producer_id) else {
            return;
        };
        for (group, topics) in offsets.groups() {
            for (topic, partitions) in topics.iter() {
                for partition in partitions.keys() {
                    self.remove_open(group, topic, *partition, producer_id);
                }
            }
        }
        if !commit {
            return;
        }
        for (group, topics) in offsets.groups() {
            for (topic, partitions) in topics.iter() {
                for (partition, offset) in partitions.iter() {
                    let newer = self
                        .get(group, topic, *partition)
                        .is_none_or(|existing| offset.record_offset > existing.record_offset);
                    if newer {
                        self.committed.put(group, topic, *partition, offset.clone());
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(group: &str, topic: &str, partition: i32) -> OffsetCommitKey {
        OffsetCommitKey {
            group: group.to_string(),
            topic: topic.to_string(),
            partition,
        }
    }

    fn value(offset: i64) -> OffsetCommitValue {
        OffsetCommitValue {
            offset,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp: 0,
            expire_timestamp: None,
            topic_id: Uuid::nil(),
        }
    }

    #[test]
    fn tombstones_clear_pending_offsets_but_keep_the_producer_entry() {
        let mut store = OffsetStore::default();
        store.replay(&key("g", "foo", 0), Some(&value(1)), None);
        store.replay(&key("g", "foo", 0), Some(&value(2)), Some(7));
        store.replay(&key("g", "foo", 1), Some(&value(3)), Some(7));
        assert!(store.has_pending("g", "foo", 0));
        assert_eq!(
            store.pending_partitions("g"),
            [("foo".to_string(), 0), ("foo".to_string(), 1)]
        );
        store.replay(&key("g", "foo", 0), None, None);
        assert!(store.get("g", "foo", 0).is_none());
        assert!(!store.has_pending("g", "foo", 0));
        assert!(store.has_pending("g", "foo", 1));
        store.replay(&key("g", "foo", 1), None, None);
        assert!(!store.group_has_pending("g"));
        // Kafka keeps the producer's (now empty) pending offsets until the transaction ends.
        let producers: Vec<(i64, bool)> = store.pending().map(|(p, o)| (p, o.is_empty())).collect();
        assert_eq!(producers, [(7, true)]);
        store.end_transaction(7, true);
        assert_eq!(store.pending().count(), 0);
        assert!(store.group("g").is_none());
    }

    #[test]
    fn committed_transaction_keeps_a_later_regular_commit() {
        let mut store = OffsetStore::default();
        store.replay(&key("g", "foo", 0), Some(&value(5)), Some(1));
        store.replay(&key("g", "foo", 0), Some(&value(6)), None);
        store.replay(&key("g", "foo", 1), Some(&value(7)), Some(1));
        store.end_transaction(1, true);
        assert_eq!(
            store.get("g", "foo", 0).map(|o| o.committed_offset),
            Some(6)
        );
        assert_eq!(
            store.get("g", "foo", 1).map(|o| o.committed_offset),
            Some(7)
        );
        assert!(!store.group_has_pending("g"));
    }
}

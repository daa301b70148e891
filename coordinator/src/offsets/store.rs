//! Committed offsets of every group (Kafka's `OffsetMetadataManager.Offsets`) and the transactional
//! offsets still waiting for their transaction to end. Changed only by replaying OffsetCommit records.

use std::collections::{BTreeMap, BTreeSet};

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

/// group -> topic -> partition -> offset.
pub type GroupOffsets = BTreeMap<String, BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>>;

/// A group's committed offsets, topic -> partition -> offset, iterating as Kafka's nested
/// `TimelineHashMap<String, TimelineHashMap<Integer, OffsetAndMetadata>>` does: the order of OffsetFetch
/// of all offsets and of the offset tombstones of DeleteGroups.
pub type TopicOffsets = TimelineMap<TimelineMap<OffsetAndMetadata, i32>>;

/// A group's open transactions, topic -> partition -> producer ids, in Kafka's `openTransactionsByGroup`
/// order.
type OpenTopics = TimelineMap<TimelineMap<BTreeSet<i64>, i32>>;

/// The committed offsets of every group in the shard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetStore {
    committed: BTreeMap<String, TopicOffsets>,
    /// Pending transactional offsets by producer id.
    pending: BTreeMap<i64, GroupOffsets>,
    /// group -> topic -> partition -> producer ids with a pending offset for it.
    open_transactions: BTreeMap<String, OpenTopics>,
    /// Number of offset records replayed so far.
    records_replayed: u64,
}

impl OffsetStore {
    /// The committed offset of a partition.
    pub fn get(&self, group: &str, topic: &str, partition: i32) -> Option<&OffsetAndMetadata> {
        self.committed.get(group)?.get(topic)?.get(&partition)
    }

    /// Every committed offset of a group, by topic and partition, in Kafka's iteration order.
    pub fn group(&self, group: &str) -> Option<&TopicOffsets> {
        self.committed.get(group)
    }

    /// Every committed offset of every group.
    pub fn committed(&self) -> &BTreeMap<String, TopicOffsets> {
        &self.committed
    }

    /// The pending transactional offsets by producer id.
    pub fn pending(&self) -> &BTreeMap<i64, GroupOffsets> {
        &self.pending
    }

    /// Whether a transaction holds an offset for the partition.
    pub fn has_pending(&self, group: &str, topic: &str, partition: i32) -> bool {
        self.open_transactions
            .get(group)
            .and_then(|t| t.get(topic))
            .is_some_and(|p| p.contains_key(&partition))
    }

    /// The (topic, partition) pairs of a group with a pending transactional offset, in Kafka's order.
    pub fn pending_partitions(&self, group: &str) -> Vec<(String, i32)> {
        let mut out = Vec::new();
        if let Some(topics) = self.open_transactions.get(group) {
            for (t, partitions) in topics.iter() {
                for p in partitions.keys() {
                    out.push((t.clone(), *p));
                }
            }
        }
        out
    }

    fn open(&mut self, group: &str, topic: &str, partition: i32, producer: i64) {
        let topics = self.open_transactions.entry(group.to_string()).or_default();
        if topics.get(topic).is_none() {
            topics.insert(topic.to_string(), TimelineMap::new());
        }
        if let Some(partitions) = topics.get_mut(topic) {
            if partitions.get(&partition).is_none() {
                partitions.insert(partition, BTreeSet::new());
            }
            if let Some(producers) = partitions.get_mut(&partition) {
                producers.insert(producer);
            }
        }
    }

    /// Takes the producers of a partition's open transactions (all of them, or only `producer`).
    fn close(
        &mut self,
        group: &str,
        topic: &str,
        partition: i32,
        producer: Option<i64>,
    ) -> BTreeSet<i64> {
        let mut taken = BTreeSet::new();
        let Some(topics) = self.open_transactions.get_mut(group) else {
            return taken;
        };
        if let Some(partitions) = topics.get_mut(topic) {
            match producer {
                None => taken = partitions.remove(&partition).unwrap_or_default(),
                Some(id) => {
                    if let Some(producers) = partitions.get_mut(&partition) {
                        if producers.remove(&id) {
                            taken.insert(id);
                        }
                        if producers.is_empty() {
                            partitions.remove(&partition);
                        }
                    }
                }
            }
            if partitions.is_empty() {
                topics.remove(topic);
            }
        }
        if topics.is_empty() {
            self.open_transactions.remove(group);
        }
        taken
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
                put_committed(
                    &mut self.committed,
                    group,
                    topic,
                    partition,
                    OffsetAndMetadata::from_record(record_offset, value),
                );
            }
            (Some(value), Some(producer)) => {
                put(
                    self.pending.entry(producer).or_default(),
                    group,
                    topic,
                    partition,
                    OffsetAndMetadata::from_record(record_offset, value),
                );
                self.open(group, topic, partition, producer);
            }
            (None, _) => {
                remove_committed(&mut self.committed, group, topic, partition);
                let producers = self.close(group, topic, partition, None);
                {
                    for producer in producers {
                        if let Some(offsets) = self.pending.get_mut(&producer) {
                            remove(offsets, group, topic, partition);
                            if offsets.is_empty() {
                                self.pending.remove(&producer);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Applies the end of a transaction: its pending offsets become committed (unless a later regular
    /// commit exists) or are dropped.
    pub fn end_transaction(&mut self, producer_id: i64, commit: bool) {
        let Some(offsets) = self.pending.remove(&producer_id) else {
            return;
        };
        for (group, topics) in offsets {
            for (topic, partitions) in topics {
                for (partition, offset) in partitions {
                    self.close(&group, &topic, partition, Some(producer_id));
                    if commit {
                        let newer = self
                            .get(&group, &topic, partition)
                            .is_none_or(|existing| offset.record_offset > existing.record_offset);
                        if newer {
                            put_committed(&mut self.committed, &group, &topic, partition, offset);
                        }
                    }
                }
            }
        }
    }
}

fn put(offsets: &mut GroupOffsets, group: &str, topic: &str, partition: i32, o: OffsetAndMetadata) {
    offsets
        .entry(group.to_string())
        .or_default()
        .entry(topic.to_string())
        .or_default()
        .insert(partition, o);
}

/// Kafka's `Offsets.put`: the topic and partition maps are created when first needed.
fn put_committed(
    offsets: &mut BTreeMap<String, TopicOffsets>,
    group: &str,
    topic: &str,
    partition: i32,
    o: OffsetAndMetadata,
) {
    let topics = offsets.entry(group.to_string()).or_default();
    if topics.get(topic).is_none() {
        topics.insert(topic.to_string(), TimelineMap::new());
    }
    if let Some(partitions) = topics.get_mut(topic) {
        partitions.insert(partition, o);
    }
}

/// Kafka's `Offsets.remove`: empty partition and topic maps are dropped.
fn remove_committed(
    offsets: &mut BTreeMap<String, TopicOffsets>,
    group: &str,
    topic: &str,
    partition: i32,
) {
    let Some(topics) = offsets.get_mut(group) else {
        return;
    };
    if let Some(partitions) = topics.get_mut(topic) {
        if partitions.remove(&partition).is_none() {
            return;
        }
        if partitions.is_empty() {
            topics.remove(topic);
        }
    }
    if topics.is_empty() {
        offsets.remove(group);
    }
}

fn remove(offsets: &mut GroupOffsets, group: &str, topic: &str, partition: i32) {
    if let Some(topics) = offsets.get_mut(group) {
        if let Some(partitions) = topics.get_mut(topic) {
            partitions.remove(&partition);
            if partitions.is_empty() {
                topics.remove(topic);
            }
        }
        if topics.is_empty() {
            offsets.remove(group);
        }
    }
}

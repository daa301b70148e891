//! Committed offsets of every group (Kafka's `OffsetMetadataManager.Offsets`) and the transactional
//! offsets still waiting for their transaction to end. Changed only by replaying OffsetCommit records.

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use crate::records::offsets::{OffsetCommitKey, OffsetCommitValue};

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

/// The committed offsets of every group in the shard.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetStore {
    committed: GroupOffsets,
    /// Pending transactional offsets by producer id.
    pending: BTreeMap<i64, GroupOffsets>,
    /// (group, topic, partition) -> producer ids with a pending offset for it.
    open_transactions: BTreeMap<(String, String, i32), BTreeSet<i64>>,
    /// Number of offset records replayed so far.
    records_replayed: u64,
}

impl OffsetStore {
    /// The committed offset of a partition.
    pub fn get(&self, group: &str, topic: &str, partition: i32) -> Option<&OffsetAndMetadata> {
        self.committed.get(group)?.get(topic)?.get(&partition)
    }

    /// Every committed offset of a group, by topic and partition.
    pub fn group(
        &self,
        group: &str,
    ) -> Option<&BTreeMap<String, BTreeMap<i32, OffsetAndMetadata>>> {
        self.committed.get(group)
    }

    /// Every committed offset of every group.
    pub fn committed(&self) -> &GroupOffsets {
        &self.committed
    }

    /// The pending transactional offsets by producer id.
    pub fn pending(&self) -> &BTreeMap<i64, GroupOffsets> {
        &self.pending
    }

    /// Whether a transaction holds an offset for the partition.
    pub fn has_pending(&self, group: &str, topic: &str, partition: i32) -> bool {
        self.open_transactions
            .contains_key(&(group.to_string(), topic.to_string(), partition))
    }

    /// The (topic, partition) pairs of a group with a pending transactional offset.
    pub fn pending_partitions(&self, group: &str) -> Vec<(String, i32)> {
        self.open_transactions
            .keys()
            .filter(|(g, _, _)| g == group)
            .map(|(_, t, p)| (t.clone(), *p))
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
                put(
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
                self.open_transactions
                    .entry((group.clone(), topic.clone(), partition))
                    .or_default()
                    .insert(producer);
            }
            (None, _) => {
                remove(&mut self.committed, group, topic, partition);
                let slot = (group.clone(), topic.clone(), partition);
                if let Some(producers) = self.open_transactions.remove(&slot) {
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
                    let slot = (group.clone(), topic.clone(), partition);
                    if let Some(producers) = self.open_transactions.get_mut(&slot) {
                        producers.remove(&producer_id);
                        if producers.is_empty() {
                            self.open_transactions.remove(&slot);
                        }
                    }
                    if commit {
                        let newer = self
                            .get(&group, &topic, partition)
                            .is_none_or(|existing| offset.record_offset > existing.record_offset);
                        if newer {
                            put(&mut self.committed, &group, &topic, partition, offset);
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

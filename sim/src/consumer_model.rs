//! Consumer groups (KIP-848) as their committed records describe them: the group and assignment
//! epochs, each member's subscription record and current assignment (with the per-partition
//! assignment epochs of KIP-1251), its target, and the short per-member history the commit check
//! needs. Part of [`crate::model::Model`]; an independent reading of the records, like the rest.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use coordinator::Record;
use coordinator::records::consumer::{
    ConsumerGroupCurrentMemberAssignmentValue, ConsumerGroupMemberMetadataValue,
    CurrentTopicPartitions,
};
use uuid::Uuid;

/// How many past states per member are kept to judge commits written a little earlier than the
/// client reports them.
const HISTORY: usize = 32;

/// A partition by topic id.
pub type IdPartition = (Uuid, i32);

/// A consumer-group member as the committed records describe it.
#[derive(Debug, Clone, Default)]
pub struct ConsumerMember {
    pub metadata: Option<ConsumerGroupMemberMetadataValue>,
    pub assignment: Option<ConsumerGroupCurrentMemberAssignmentValue>,
}

impl ConsumerMember {
    pub fn epoch(&self) -> i32 {
        self.assignment.as_ref().map_or(0, |a| a.member_epoch)
    }

    /// Assigned partitions (not those pending revocation).
    pub fn assigned(&self) -> BTreeSet<IdPartition> {
        self.assignment
            .as_ref()
            .map(|a| flatten(&a.assigned_partitions).into_keys().collect())
            .unwrap_or_default()
    }

    /// The assignment epoch of every partition assigned or pending revocation (KIP-1251: a
    /// record without the tagged field means the member's epoch).
    pub fn partition_epochs(&self) -> BTreeMap<IdPartition, i32> {
        let Some(a) = &self.assignment else {
            return BTreeMap::new();
        };
        let mut out = BTreeMap::new();
        for list in [&a.partitions_pending_revocation, &a.assigned_partitions] {
            for (p, e) in flatten(list) {
                out.insert(p, e.unwrap_or(a.member_epoch));
            }
        }
        out
    }
}

fn flatten(list: &[CurrentTopicPartitions]) -> BTreeMap<IdPartition, Option<i32>> {
    let mut out = BTreeMap::new();
    for t in list {
        for (i, p) in t.partitions.iter().enumerate() {
            let e = t.assignment_epochs.as_ref().and_then(|e| e.get(i).copied());
            out.insert((t.topic_id, *p), e);
        }
    }
    out
}

/// What decides whether a member may commit: present, its epoch, and the assignment epoch of
/// each partition it holds or is revoking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerSnap {
    pub present: bool,
    pub epoch: i32,
    pub partition_epochs: BTreeMap<IdPartition, i32>,
}

/// A consumer group as the committed records describe it.
#[derive(Debug, Clone, Default)]
pub struct ConsumerGroup {
    pub partition: i32,
    /// The group metadata record exists (not tombstoned).
    pub exists: bool,
    pub epoch: i32,
    pub assignment_epoch: i32,
    pub members: BTreeMap<String, ConsumerMember>,
    /// Target partitions per member.
    pub targets: BTreeMap<String, BTreeSet<IdPartition>>,
    /// Per member: (log offset, state from that offset on).
    pub history: BTreeMap<String, VecDeque<(i64, ConsumerSnap)>>,
}

impl ConsumerGroup {
    /// Members with a subscription record.
    pub fn live_members(&self) -> impl Iterator<Item = (&String, &ConsumerMember)> {
        self.members.iter().filter(|(_, m)| m.metadata.is_some())
    }

    pub fn is_member(&self, member_id: &str) -> bool {
        self.members
            .get(member_id)
            .is_some_and(|m| m.metadata.is_some())
    }

    /// The member's state just before log offset `pos` (None if it never existed before it).
    pub fn member_at(&self, member_id: &str, pos: i64) -> Option<&ConsumerSnap> {
        self.history
            .get(member_id)?
            .iter()
            .rev()
            .find(|(at, _)| *at < pos)
            .map(|(_, s)| s)
    }

    /// How many members existed just before log offset `pos`.
    pub fn live_at(&self, pos: i64) -> usize {
        self.history
            .keys()
            .filter(|m| self.member_at(m, pos).is_some_and(|s| s.present))
            .count()
    }

    fn snap(&self, member_id: &str) -> ConsumerSnap {
        match self.members.get(member_id) {
            Some(m) => ConsumerSnap {
                present: m.metadata.is_some(),
                epoch: m.epoch(),
                partition_epochs: m.partition_epochs(),
            },
            None => ConsumerSnap {
                present: false,
                epoch: 0,
                partition_epochs: BTreeMap::new(),
            },
        }
    }

    fn remember(&mut self, member_id: &str, pos: i64) {
        let snap = self.snap(member_id);
        let h = self.history.entry(member_id.to_string()).or_default();
        if h.back().is_some_and(|(_, s)| *s == snap) {
            return;
        }
        h.push_back((pos, snap));
        while h.len() > HISTORY {
            h.pop_front();
        }
    }
}

/// Applies one committed consumer-group record to `groups` (other records are ignored).
pub fn apply(
    groups: &mut BTreeMap<String, ConsumerGroup>,
    partition: i32,
    offset: i64,
    record: &Record,
) {
    match record {
        Record::ConsumerGroupMetadata { key, value } => {
            let g = entry(groups, &key.group_id, partition);
            match value {
                Some(v) => {
                    g.exists = true;
                    g.epoch = v.epoch;
                }
                None => {
                    *g = ConsumerGroup {
                        partition,
                        history: std::mem::take(&mut g.history),
                        ..ConsumerGroup::default()
                    };
                }
            }
        }
        Record::ConsumerGroupTargetAssignmentMetadata { key, value } => {
            let g = entry(groups, &key.group_id, partition);
            g.assignment_epoch = value.as_ref().map_or(0, |v| v.assignment_epoch);
        }
        Record::ConsumerGroupTargetAssignmentMember { key, value } => {
            let g = entry(groups, &key.group_id, partition);
            match value {
                Some(v) => {
                    let parts = v
                        .topic_partitions
                        .iter()
                        .flat_map(|t| t.partitions.iter().map(move |p| (t.topic_id, *p)))
                        .collect();
                    g.targets.insert(key.member_id.clone(), parts);
                }
                None => {
                    g.targets.remove(&key.member_id);
                }
            }
        }
        Record::ConsumerGroupMemberMetadata { key, value } => {
            let g = entry(groups, &key.group_id, partition);
            let m = g.members.entry(key.member_id.clone()).or_default();
            m.metadata = value.clone();
            if value.is_none() && m.assignment.is_none() {
                g.members.remove(&key.member_id);
            }
            g.remember(&key.member_id, offset);
        }
        Record::ConsumerGroupCurrentMemberAssignment { key, value } => {
            let g = entry(groups, &key.group_id, partition);
            let m = g.members.entry(key.member_id.clone()).or_default();
            m.assignment = value.clone();
            if value.is_none() && m.metadata.is_none() {
                g.members.remove(&key.member_id);
            }
            g.remember(&key.member_id, offset);
        }
        _ => {}
    }
}

fn entry<'a>(
    groups: &'a mut BTreeMap<String, ConsumerGroup>,
    id: &str,
    partition: i32,
) -> &'a mut ConsumerGroup {
    let g = groups.entry(id.to_string()).or_default();
    g.partition = partition;
    g
}

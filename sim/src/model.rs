//! The coordinator's committed state, rebuilt by the harness from the committed records of the
//! offsets partitions ([`crate::mirror`]): streams groups (epochs, members, their current
//! assignments, the topology), classic groups (generation, members, assignments) and committed
//! offsets, plus the short histories the invariants need to judge a commit at the log position it
//! was written at.
//!
//! This is an independent reading of the records, not the coordinator's own code, so the
//! invariants compare the coordinator's behaviour against what its log says.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use coordinator::Record;
use coordinator::records::classic::GroupMetadataValue;
use coordinator::records::streams::{
    StreamsGroupCurrentMemberAssignmentValue, StreamsGroupMemberMetadataValue,
    StreamsGroupTargetAssignmentMemberValue, StreamsGroupTopologyValue, TaskIds,
};
use members::observer::TopicPartition;

/// How many past states per member (streams) or per group (classic) are kept to judge commits
/// written a little earlier than the client reports them.
const HISTORY: usize = 32;

/// A task: (subtopology, partition).
pub type Task = (String, i32);

/// A streams member as the committed records describe it.
#[derive(Debug, Clone, Default)]
pub struct StreamsMember {
    pub metadata: Option<StreamsGroupMemberMetadataValue>,
    pub assignment: Option<StreamsGroupCurrentMemberAssignmentValue>,
}

impl StreamsMember {
    pub fn epoch(&self) -> i32 {
        self.assignment.as_ref().map_or(0, |a| a.member_epoch)
    }

    pub fn active(&self) -> BTreeSet<Task> {
        self.assignment
            .as_ref()
            .map(|a| tasks(&a.active_tasks))
            .unwrap_or_default()
    }

    pub fn standby(&self) -> BTreeSet<Task> {
        self.assignment
            .as_ref()
            .map(|a| tasks(&a.standby_tasks))
            .unwrap_or_default()
    }
}

/// What decides whether a streams member may commit: present, its epoch, and the assignment
/// epoch of each active task it holds or is revoking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSnap {
    pub present: bool,
    pub epoch: i32,
    pub active_epochs: BTreeMap<Task, i32>,
}

/// A streams group as the committed records describe it.
#[derive(Debug, Clone, Default)]
pub struct StreamsGroup {
    pub partition: i32,
    /// The group metadata record exists (not tombstoned).
    pub exists: bool,
    pub epoch: i32,
    /// The metadata hash and validated topology epoch of the last group-epoch record.
    pub metadata_hash: i64,
    pub validated_topology_epoch: i32,
    pub assignment_epoch: i32,
    /// The last target assignment metadata's timestamp (when the coordinator computed it; 0: none).
    pub assignment_timestamp: i64,
    pub topology: Option<StreamsGroupTopologyValue>,
    pub members: BTreeMap<String, StreamsMember>,
    pub targets: BTreeMap<String, StreamsGroupTargetAssignmentMemberValue>,
    /// Per member: (log offset, state from that offset on).
    pub history: BTreeMap<String, VecDeque<(i64, MemberSnap)>>,
}

impl StreamsGroup {
    /// Members with a metadata record.
    pub fn live_members(&self) -> impl Iterator<Item = (&String, &StreamsMember)> {
        self.members.iter().filter(|(_, m)| m.metadata.is_some())
    }

    pub fn is_member(&self, member_id: &str) -> bool {
        self.members
            .get(member_id)
            .is_some_and(|m| m.metadata.is_some())
    }

    /// The member's state just before log offset `pos` (None if it never existed before it).
    pub fn member_at(&self, member_id: &str, pos: i64) -> Option<&MemberSnap> {
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

    /// The subtopology reading `topic` (a source or repartition source topic).
    pub fn subtopology_of(&self, topic: &str) -> Option<&str> {
        let t = self.topology.as_ref()?;
        t.subtopologies
            .iter()
            .find(|s| {
                s.source_topics.iter().any(|x| x == topic)
                    || s.repartition_source_topics.iter().any(|x| x.name == topic)
            })
            .map(|s| s.subtopology_id.as_str())
    }

    fn snap(&self, member_id: &str) -> MemberSnap {
        let Some(m) = self.members.get(member_id) else {
            return MemberSnap {
                present: false,
                epoch: 0,
                active_epochs: BTreeMap::new(),
            };
        };
        let mut active_epochs = BTreeMap::new();
        if let Some(a) = &m.assignment {
            for list in [&a.active_tasks, &a.active_tasks_pending_revocation] {
                for t in list {
                    for (i, p) in t.partitions.iter().enumerate() {
                        let e = t
                            .assignment_epochs
                            .as_ref()
                            .and_then(|e| e.get(i).copied())
                            .unwrap_or(a.member_epoch);
                        active_epochs.insert((t.subtopology_id.clone(), *p), e);
                    }
                }
            }
        }
        MemberSnap {
            present: m.metadata.is_some(),
            epoch: m.epoch(),
            active_epochs,
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

/// A classic group member as its last GroupMetadata record describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMember {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub partitions: Vec<TopicPartition>,
    /// The session timeout it joined with.
    pub session_timeout_ms: i32,
}

/// A classic group as its last GroupMetadata record describes it.
#[derive(Debug, Clone, Default)]
pub struct ClassicGroup {
    pub partition: i32,
    pub exists: bool,
    pub generation: i32,
    pub protocol_type: String,
    pub members: Vec<ClassicMember>,
    /// The leader's member id, per the last record.
    pub leader: Option<String>,
    /// (log offset, generation, member ids) of past records.
    pub history: VecDeque<(i64, i32, BTreeSet<String>)>,
}

impl ClassicGroup {
    pub fn is_member(&self, member_id: &str) -> bool {
        self.members.iter().any(|m| m.member_id == member_id)
    }

    /// (generation, members) just before log offset `pos`.
    pub fn at(&self, pos: i64) -> Option<(i32, &BTreeSet<String>)> {
        self.history
            .iter()
            .rev()
            .find(|(at, _, _)| *at < pos)
            .map(|(_, g, m)| (*g, m))
    }
}

/// One committed offset-commit write (one batch of OffsetCommit records of one group).
#[derive(Debug, Clone)]
pub struct CommitWrite {
    pub partition: i32,
    pub batch: i64,
    /// Sorted (topic, partition, offset).
    pub offsets: Vec<(String, i32, i64)>,
    /// Matched to a client's CommitAccepted already.
    pub claimed: bool,
    /// When the harness saw it committed (simulated ms).
    pub seen_ms: i64,
}

/// A committed offset's history: (simulated ms the harness saw it committed, value; None =
/// deleted).
pub type OffsetHistory = Vec<(i64, Option<i64>)>;

/// Everything the committed records say.
#[derive(Debug, Default)]
pub struct Model {
    pub streams: BTreeMap<String, StreamsGroup>,
    pub classic: BTreeMap<String, ClassicGroup>,
    /// Consumer groups (KIP-848), [`crate::consumer_model`].
    pub consumer: BTreeMap<String, crate::consumer_model::ConsumerGroup>,
    /// Topic names by id, as the controller's metadata has them (fed by the harness between steps
    /// when the cluster runs consumer groups, whose records name topics by id).
    pub topic_names: BTreeMap<uuid::Uuid, String>,
    pub offsets: BTreeMap<(String, TopicPartition), OffsetHistory>,
    /// Recent commit writes per group, oldest first.
    pub commits: BTreeMap<String, VecDeque<CommitWrite>>,
}

/// How long an unclaimed commit write is kept for matching a client's acknowledgement (simulated
/// ms). A client sees a commit acknowledged within its request timeout of sending it (Kafka's
/// default `request.timeout.ms` is 30 s; no simulated client waits longer), and the write was
/// committed after it was sent, so a write seen committed longer ago than this can no longer be
/// claimed. The bound is time, not a count: a count (it was 4,096 writes) is exceeded when many
/// writes commit at once, as when 10,000 members' commits wait out a stalled ISR change and the
/// high watermark then passes all of them, and the harness then forgot writes whose
/// acknowledgements were still on their way (a false offsets-durable violation).
const COMMIT_WRITE_HORIZON_MS: i64 = 10 * 60 * 1000;

pub fn tasks(list: &[TaskIds]) -> BTreeSet<Task> {
    list.iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(move |p| (t.subtopology_id.clone(), *p))
        })
        .collect()
}

impl Model {
    /// Applies one committed record; `now_ms` is the simulated time the harness saw it.
    pub fn apply(&mut self, partition: i32, offset: i64, batch: i64, record: &Record, now_ms: i64) {
        match record {
            Record::StreamsGroupMetadata { key, value } => {
                let g = self.streams_group(&key.group_id, partition);
                match value {
                    Some(v) => {
                        g.exists = true;
                        g.epoch = v.epoch;
                        g.metadata_hash = v.metadata_hash;
                        g.validated_topology_epoch = v.validated_topology_epoch;
                    }
                    None => {
                        // The group is deleted (all its records are tombstoned with it).
                        *g = StreamsGroup {
                            partition,
                            history: std::mem::take(&mut g.history),
                            ..StreamsGroup::default()
                        };
                    }
                }
            }
            Record::StreamsGroupTargetAssignmentMetadata { key, value } => {
                let g = self.streams_group(&key.group_id, partition);
                g.assignment_epoch = value.as_ref().map_or(0, |v| v.assignment_epoch);
                g.assignment_timestamp = value.as_ref().map_or(0, |v| v.assignment_timestamp);
            }
            Record::StreamsGroupTopology { key, value } => {
                self.streams_group(&key.group_id, partition).topology = value.clone();
            }
            Record::StreamsGroupTargetAssignmentMember { key, value } => {
                let g = self.streams_group(&key.group_id, partition);
                match value {
                    Some(v) => {
                        g.targets.insert(key.member_id.clone(), v.clone());
                    }
                    None => {
                        g.targets.remove(&key.member_id);
                    }
                }
            }
            Record::StreamsGroupMemberMetadata { key, value } => {
                let g = self.streams_group(&key.group_id, partition);
                let m = g.members.entry(key.member_id.clone()).or_default();
                m.metadata = value.clone();
                if value.is_none() && m.assignment.is_none() {
                    g.members.remove(&key.member_id);
                }
                g.remember(&key.member_id, offset);
            }
            Record::StreamsGroupCurrentMemberAssignment { key, value } => {
                let g = self.streams_group(&key.group_id, partition);
                let m = g.members.entry(key.member_id.clone()).or_default();
                m.assignment = value.clone();
                if value.is_none() && m.metadata.is_none() {
                    g.members.remove(&key.member_id);
                }
                g.remember(&key.member_id, offset);
            }
            Record::GroupMetadata { key, value } => {
                let g = self.classic.entry(key.group.clone()).or_default();
                g.partition = partition;
                match value {
                    Some(v) => apply_group_metadata(g, v),
                    None => {
                        g.exists = false;
                        g.generation = 0;
                        g.members.clear();
                    }
                }
                let ids = g.members.iter().map(|m| m.member_id.clone()).collect();
                g.history.push_back((offset, g.generation, ids));
                while g.history.len() > HISTORY {
                    g.history.pop_front();
                }
            }
            Record::OffsetCommit { key, value } => {
                let tp = TopicPartition::new(key.topic.as_str(), key.partition);
                let v = value.as_ref().map(|v| v.offset);
                self.offsets
                    .entry((key.group.clone(), tp))
                    .or_default()
                    .push((now_ms, v));
                if let Some(offset_value) = v {
                    let writes = self.commits.entry(key.group.clone()).or_default();
                    let entry = (key.topic.clone(), key.partition, offset_value);
                    match writes.back_mut() {
                        Some(w) if w.partition == partition && w.batch == batch => {
                            w.offsets.push(entry);
                            w.offsets.sort();
                        }
                        _ => {
                            writes.push_back(CommitWrite {
                                partition,
                                batch,
                                offsets: vec![entry],
                                claimed: false,
                                seen_ms: now_ms,
                            });
                            while writes.front().is_some_and(|w| {
                                w.claimed || w.seen_ms < now_ms - COMMIT_WRITE_HORIZON_MS
                            }) {
                                writes.pop_front();
                            }
                        }
                    }
                }
            }
            // Transactional commits stay pending until their transaction ends; the simulated
            // clients never use transactions.
            Record::TxnOffsetCommit { .. } => {}
            Record::ConsumerGroupMetadata { .. }
            | Record::ConsumerGroupPartitionMetadata { .. }
            | Record::ConsumerGroupMemberMetadata { .. }
            | Record::ConsumerGroupTargetAssignmentMetadata { .. }
            | Record::ConsumerGroupTargetAssignmentMember { .. }
            | Record::ConsumerGroupCurrentMemberAssignment { .. }
            | Record::ConsumerGroupRegularExpression { .. } => {
                crate::consumer_model::apply(&mut self.consumer, partition, offset, record)
            }
        }
    }

    fn streams_group(&mut self, group_id: &str, partition: i32) -> &mut StreamsGroup {
        let g = self.streams.entry(group_id.to_string()).or_default();
        g.partition = partition;
        g
    }

    /// The latest committed offset of (group, tp) as of simulated time `at_ms` (None: none).
    pub fn offset_at(&self, group: &str, tp: &TopicPartition, at_ms: i64) -> Option<i64> {
        self.offsets
            .get(&(group.to_string(), tp.clone()))?
            .iter()
            .rev()
            .find(|(t, _)| *t <= at_ms)
            .and_then(|(_, v)| *v)
    }

    /// Every value (group, tp) took after simulated time `at_ms`.
    pub fn offsets_after(&self, group: &str, tp: &TopicPartition, at_ms: i64) -> Vec<Option<i64>> {
        self.offsets
            .get(&(group.to_string(), tp.clone()))
            .map(|h| {
                h.iter()
                    .filter(|(t, _)| *t > at_ms)
                    .map(|(_, v)| *v)
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn apply_group_metadata(g: &mut ClassicGroup, v: &GroupMetadataValue) {
    g.exists = true;
    g.generation = v.generation;
    g.leader = v.leader.clone();
    g.protocol_type = v.protocol_type.clone();
    g.members = v
        .members
        .iter()
        .map(|m| ClassicMember {
            member_id: m.member_id.clone(),
            instance_id: m.group_instance_id.clone(),
            // A consumer-protocol assignment; anything else (or garbage) counts as no partitions.
            partitions: members::classic::protocol::decode_assignment(&m.assignment)
                .unwrap_or_default(),
            session_timeout_ms: m.session_timeout,
        })
        .collect();
}

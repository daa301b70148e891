//! One streams group (Kafka's `StreamsGroup`): the persistent state rebuilt by replaying records, and
//! the soft state that only the handlers set (lost on fail-over, as in Kafka).

use std::collections::{BTreeMap, BTreeSet};

use crate::group::OffsetExpirationCondition;
use crate::streams::configure::ConfiguredTopology;
use crate::streams::member::StreamsGroupMember;
use crate::streams::tasks::{TasksTuple, TasksWithEpochs};
use crate::streams::timeline_map::TimelineMap;
use crate::streams::topology::StreamsTopology;

/// `StreamsGroupState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum StreamsGroupState {
    Empty,
    NotReady,
    Assigning,
    Reconciling,
    Stable,
    Dead,
}

impl StreamsGroupState {
    /// Kafka's `toString()` (DescribeGroups, ListGroups, StreamsGroupDescribe).
    pub fn name(self) -> &'static str {
        match self {
            StreamsGroupState::Empty => "Empty",
            StreamsGroupState::NotReady => "NotReady",
            StreamsGroupState::Assigning => "Assigning",
            StreamsGroupState::Reconciling => "Reconciling",
            StreamsGroupState::Stable => "Stable",
            StreamsGroupState::Dead => "Dead",
        }
    }
}

/// Who owns which task, by process id (`currentActiveTaskToProcessId` and friends).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Ownership {
    pub active: BTreeMap<String, BTreeMap<i32, String>>,
    pub standby: BTreeMap<String, BTreeMap<i32, BTreeSet<String>>>,
    pub warmup: BTreeMap<String, BTreeMap<i32, BTreeSet<String>>>,
}

impl Ownership {
    pub fn active_owner(&self, subtopology: &str, partition: i32) -> Option<&str> {
        self.active
            .get(subtopology)
            .and_then(|m| m.get(&partition))
            .map(String::as_str)
    }

    pub fn standby_held_by(&self, subtopology: &str, partition: i32, process: &str) -> bool {
        held(&self.standby, subtopology, partition, process)
    }

    pub fn warmup_held_by(&self, subtopology: &str, partition: i32, process: &str) -> bool {
        held(&self.warmup, subtopology, partition, process)
    }

    fn add(&mut self, tasks: &TasksWithEpochs, process: &str) {
        for (sub, parts) in &tasks.active {
            let m = self.active.entry(sub.clone()).or_default();
            for p in parts.keys() {
                m.insert(*p, process.to_string());
            }
        }
        add_sets(&mut self.standby, &tasks.standby, process);
        add_sets(&mut self.warmup, &tasks.warmup, process);
    }

    fn remove(&mut self, tasks: &TasksWithEpochs, process: &str) {
        for (sub, parts) in &tasks.active {
            if let Some(m) = self.active.get_mut(sub) {
                for p in parts.keys() {
                    // Only the entry this process still holds is removed (another process may have
                    // claimed the task in the meantime).
                    if m.get(p).is_some_and(|owner| owner == process) {
                        m.remove(p);
                    }
                }
                if m.is_empty() {
                    self.active.remove(sub);
                }
            }
        }
        remove_sets(&mut self.standby, &tasks.standby, process);
        remove_sets(&mut self.warmup, &tasks.warmup, process);
    }
}

fn held(
    map: &BTreeMap<String, BTreeMap<i32, BTreeSet<String>>>,
    subtopology: &str,
    partition: i32,
    process: &str,
) -> bool {
    map.get(subtopology)
        .and_then(|m| m.get(&partition))
        .is_some_and(|s| s.contains(process))
}

fn add_sets(
    map: &mut BTreeMap<String, BTreeMap<i32, BTreeSet<String>>>,
    tasks: &crate::streams::tasks::Tasks,
    process: &str,
) {
    for (sub, parts) in tasks {
        let m = map.entry(sub.clone()).or_default();
        for p in parts {
            m.entry(*p).or_default().insert(process.to_string());
        }
    }
}

fn remove_sets(
    map: &mut BTreeMap<String, BTreeMap<i32, BTreeSet<String>>>,
    tasks: &crate::streams::tasks::Tasks,
    process: &str,
) {
    for (sub, parts) in tasks {
        if let Some(m) = map.get_mut(sub) {
            for p in parts {
                // Kafka leaves an empty process set behind; an absent and an empty set answer
                // every look-up the same way, so the entry is dropped here.
                if let Some(set) = m.get_mut(p) {
                    set.remove(process);
                    if set.is_empty() {
                        m.remove(p);
                    }
                }
            }
            if m.is_empty() {
                map.remove(sub);
            }
        }
    }
}

/// Everything replaying the group's records rebuilds. Two shards that replayed the same records have
/// equal `Persistent` states, including the members' iteration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persistent {
    pub state: StreamsGroupState,
    pub group_epoch: i32,
    pub metadata_hash: i64,
    pub validated_topology_epoch: i32,
    pub stored_description_topology_epoch: i32,
    pub failed_description_topology_epoch: i32,
    pub assignment_epoch: i32,
    pub assignment_timestamp: i64,
    pub members: TimelineMap<StreamsGroupMember>,
    /// Instance id -> member id.
    pub static_members: BTreeMap<String, String>,
    /// Member id -> target (Kafka keeps it in a `TimelineHashMap` too).
    pub target_assignment: TimelineMap<TasksTuple>,
    pub topology: Option<StreamsTopology>,
    pub last_assignment_configs: BTreeMap<String, String>,
    pub ownership: Ownership,
}

/// The deadline after which the group's metadata hash is recomputed, with the group epoch it was
/// set at (`DeadlineAndEpoch`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefreshDeadline {
    pub deadline_ms: i64,
    pub epoch: i32,
}

/// A member's last reported changelog offsets (`MemberTaskOffsets`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemberTaskOffsets {
    pub task_offsets: BTreeMap<String, BTreeMap<i32, i64>>,
    pub task_end_offsets: BTreeMap<String, BTreeMap<i32, i64>>,
}

/// State only handlers set, never persisted (Kafka's soft state).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Soft {
    pub configured_topology: Option<std::sync::Arc<ConfiguredTopology>>,
    /// `configured_topology` as of the shard's last write. Kafka's reads (StreamsGroupDescribe) run at the
    /// last committed offset, and soft state a heartbeat changes without writing records only becomes
    /// visible there with the shard's next write (of any group), which takes the next snapshot.
    pub committed_configured_topology: Option<std::sync::Arc<ConfiguredTopology>>,
    pub metadata_refresh_deadline: RefreshDeadline,
    pub shutdown_requester: Option<String>,
    pub endpoint_information_epoch: i32,
    /// Member id -> its cached entry of PartitionsByUserEndpoint.
    pub endpoint_cache: BTreeMap<
        String,
        protocol::messages::streams_group_heartbeat_response::EndpointToPartitions,
    >,
    pub task_offsets: BTreeMap<String, MemberTaskOffsets>,
    /// The group's metadata hash for the topic image of the given generation (regroup's shortcut
    /// for recomputing it from Kafka's per-topic hash cache on every heartbeat after a load).
    pub metadata_hash_cache: Option<(u64, i64)>,
}

/// One streams group.
#[derive(Debug, Clone)]
pub struct StreamsGroup {
    pub group_id: String,
    pub persistent: Persistent,
    pub soft: Soft,
}

impl StreamsGroup {
    /// A new group object (`new StreamsGroup(...)`): epoch 1, assignment epoch 1.
    pub fn new(group_id: impl Into<String>) -> Self {
        Self {
            group_id: group_id.into(),
            persistent: Persistent {
                state: StreamsGroupState::Empty,
                group_epoch: 1,
                metadata_hash: 0,
                validated_topology_epoch: -1,
                stored_description_topology_epoch: -1,
                failed_description_topology_epoch: -1,
                assignment_epoch: 1,
                assignment_timestamp: 0,
                members: TimelineMap::new(),
                static_members: BTreeMap::new(),
                target_assignment: TimelineMap::new(),
                topology: None,
                last_assignment_configs: BTreeMap::new(),
                ownership: Ownership::default(),
            },
            soft: Soft::default(),
        }
    }

    pub fn state(&self) -> StreamsGroupState {
        self.persistent.state
    }

    pub fn group_epoch(&self) -> i32 {
        self.persistent.group_epoch
    }

    pub fn is_empty(&self) -> bool {
        self.persistent.state == StreamsGroupState::Empty
    }

    /// `offsetExpirationCondition`: a streams group's offsets expire by commit time (only those of
    /// topics it does not consume, which is every topic while it is empty).
    pub fn offset_expiration_condition(&self) -> OffsetExpirationCondition {
        OffsetExpirationCondition::SinceCommit
    }

    pub fn member(&self, member_id: &str) -> Option<&StreamsGroupMember> {
        self.persistent.members.get(member_id)
    }

    /// The member registered under a static instance id.
    pub fn static_member(&self, instance_id: &str) -> Option<&StreamsGroupMember> {
        self.persistent
            .static_members
            .get(instance_id)
            .and_then(|id| self.persistent.members.get(id))
    }

    pub fn topology_epoch(&self) -> i32 {
        self.persistent.topology.as_ref().map_or(-1, |t| t.epoch)
    }

    /// `updateMember`: replaces or adds the member and keeps ownership, static ids and state in step.
    pub fn update_member(&mut self, member: StreamsGroupMember) {
        let member_id = member.member_id.clone();
        let new_instance = member.instance_id.clone();
        let p = &mut self.persistent;
        let old = p.members.insert(member_id.clone(), member);
        if let Some(old) = &old {
            p.ownership.remove(&old.assigned, &old.process_id);
            p.ownership.remove(&old.pending_revocation, &old.process_id);
        }
        if let Some(new) = p.members.get(&member_id) {
            p.ownership.add(&new.assigned, &new.process_id);
            p.ownership.add(&new.pending_revocation, &new.process_id);
        }
        if let Some(i) = old.as_ref().and_then(|o| o.instance_id.as_ref()) {
            p.static_members.remove(i);
        }
        if let Some(i) = new_instance {
            p.static_members.insert(i, member_id.clone());
        }
        self.soft.endpoint_cache.remove(&member_id);
        self.update_state();
    }

    /// `removeMember`.
    pub fn remove_member(&mut self, member_id: &str) {
        if let Some(old) = self.persistent.members.remove(member_id) {
            self.persistent
                .ownership
                .remove(&old.assigned, &old.process_id);
            self.persistent
                .ownership
                .remove(&old.pending_revocation, &old.process_id);
            if let Some(i) = &old.instance_id {
                self.persistent.static_members.remove(i);
            }
        }
        self.soft.endpoint_cache.remove(member_id);
        self.soft.task_offsets.remove(member_id);
        self.update_state();
    }

    /// `maybeUpdateGroupState`.
    pub fn update_state(&mut self) {
        let p = &self.persistent;
        let state = if p.members.is_empty() {
            StreamsGroupState::Empty
        } else if p.topology.as_ref().map(|t| t.epoch) != Some(p.validated_topology_epoch) {
            StreamsGroupState::NotReady
        } else if p.group_epoch > p.assignment_epoch {
            StreamsGroupState::Assigning
        } else if p
            .members
            .values()
            .any(|m| !m.is_reconciled_to(p.assignment_epoch))
        {
            StreamsGroupState::Reconciling
        } else {
            StreamsGroupState::Stable
        };
        if state == StreamsGroupState::Empty {
            self.soft.shutdown_requester = None;
        }
        self.persistent.state = state;
    }

    /// The member's target, or an empty one.
    pub fn target(&self, member_id: &str) -> TasksTuple {
        self.persistent
            .target_assignment
            .get(member_id)
            .cloned()
            .unwrap_or_default()
    }
}

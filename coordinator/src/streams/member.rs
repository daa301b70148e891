//! A streams group member (Kafka's `StreamsGroupMember`) and its reconciliation state.

use std::collections::BTreeMap;

use crate::records::streams::{
    Endpoint, KeyValue, StreamsGroupCurrentMemberAssignmentValue, StreamsGroupMemberMetadataValue,
};
use crate::streams::tasks::{TasksWithEpochs, active_to_record, tasks_to_record};

/// `MemberState`, persisted as int8.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemberState {
    Stable,
    UnrevokedTasks,
    UnreleasedTasks,
    /// Any value this version does not know (forward compatibility).
    Unknown,
}

impl MemberState {
    pub fn value(self) -> i8 {
        match self {
            MemberState::Stable => 1,
            MemberState::UnrevokedTasks => 2,
            MemberState::UnreleasedTasks => 3,
            MemberState::Unknown => 127,
        }
    }

    pub fn from_value(v: i8) -> Self {
        match v {
            1 => MemberState::Stable,
            2 => MemberState::UnrevokedTasks,
            3 => MemberState::UnreleasedTasks,
            _ => MemberState::Unknown,
        }
    }

    /// Kafka's `MemberState.toString()`.
    pub fn name(self) -> &'static str {
        match self {
            MemberState::Stable => "STABLE",
            MemberState::UnrevokedTasks => "UNREVOKED_TASKS",
            MemberState::UnreleasedTasks => "UNRELEASED_TASKS",
            MemberState::Unknown => "UNKNOWN",
        }
    }
}

/// One member of a streams group. Equality is Kafka's record equality (every field).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsGroupMember {
    pub member_id: String,
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    pub state: MemberState,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub topology_epoch: i32,
    pub process_id: String,
    pub user_endpoint: Option<Endpoint>,
    pub client_tags: BTreeMap<String, String>,
    pub assigned: TasksWithEpochs,
    pub pending_revocation: TasksWithEpochs,
}

impl StreamsGroupMember {
    /// `StreamsGroupMember.Builder.withDefaults(memberId)`: a member that has not joined yet.
    pub fn with_defaults(member_id: impl Into<String>) -> Self {
        Self {
            member_id: member_id.into(),
            member_epoch: 0,
            previous_member_epoch: 0,
            state: MemberState::Stable,
            instance_id: None,
            rack_id: None,
            client_id: String::new(),
            client_host: String::new(),
            rebalance_timeout_ms: -1,
            topology_epoch: -1,
            process_id: String::new(),
            user_endpoint: None,
            client_tags: BTreeMap::new(),
            assigned: TasksWithEpochs::default(),
            pending_revocation: TasksWithEpochs::default(),
        }
    }

    /// `isReconciledTo`: stable at the given epoch.
    pub fn is_reconciled_to(&self, target_epoch: i32) -> bool {
        self.state == MemberState::Stable && self.member_epoch == target_epoch
    }

    /// Applies a member-metadata record (`Builder.updateWith(StreamsGroupMemberMetadataValue)`).
    pub fn apply_metadata(&mut self, v: &StreamsGroupMemberMetadataValue) {
        self.instance_id = v.instance_id.clone();
        self.rack_id = v.rack_id.clone();
        self.client_id = v.client_id.clone();
        self.client_host = v.client_host.clone();
        self.rebalance_timeout_ms = v.rebalance_timeout_ms;
        self.topology_epoch = v.topology_epoch;
        self.process_id = v.process_id.clone();
        self.user_endpoint = v.user_endpoint.clone();
        self.client_tags = v
            .client_tags
            .iter()
            .map(|kv| (kv.key.clone(), kv.value.clone()))
            .collect();
    }

    /// Applies a current-assignment record (`Builder.updateWith(StreamsGroupCurrentMemberAssignmentValue)`).
    pub fn apply_assignment(&mut self, v: &StreamsGroupCurrentMemberAssignmentValue) {
        self.member_epoch = v.member_epoch;
        self.previous_member_epoch = v.previous_member_epoch;
        self.state = MemberState::from_value(v.state);
        self.assigned = TasksWithEpochs::from_record(
            &v.active_tasks,
            &v.standby_tasks,
            &v.warmup_tasks,
            v.member_epoch,
        );
        self.pending_revocation = TasksWithEpochs::from_record(
            &v.active_tasks_pending_revocation,
            &v.standby_tasks_pending_revocation,
            &v.warmup_tasks_pending_revocation,
            v.member_epoch,
        );
    }

    /// The member-metadata record value (`newStreamsGroupMemberRecord`; client tags sorted by key).
    pub fn metadata_value(&self) -> StreamsGroupMemberMetadataValue {
        StreamsGroupMemberMetadataValue {
            instance_id: self.instance_id.clone(),
            rack_id: self.rack_id.clone(),
            client_id: self.client_id.clone(),
            client_host: self.client_host.clone(),
            rebalance_timeout_ms: self.rebalance_timeout_ms,
            topology_epoch: self.topology_epoch,
            process_id: self.process_id.clone(),
            user_endpoint: self.user_endpoint.clone(),
            client_tags: self
                .client_tags
                .iter()
                .map(|(k, v)| KeyValue {
                    key: k.clone(),
                    value: v.clone(),
                })
                .collect(),
        }
    }

    /// The current-assignment record value (`newStreamsGroupCurrentAssignmentRecord`).
    pub fn assignment_value(&self) -> StreamsGroupCurrentMemberAssignmentValue {
        StreamsGroupCurrentMemberAssignmentValue {
            member_epoch: self.member_epoch,
            previous_member_epoch: self.previous_member_epoch,
            state: self.state.value(),
            active_tasks: active_to_record(&self.assigned.active),
            standby_tasks: tasks_to_record(&self.assigned.standby),
            warmup_tasks: tasks_to_record(&self.assigned.warmup),
            active_tasks_pending_revocation: active_to_record(&self.pending_revocation.active),
            standby_tasks_pending_revocation: tasks_to_record(&self.pending_revocation.standby),
            warmup_tasks_pending_revocation: tasks_to_record(&self.pending_revocation.warmup),
        }
    }

    /// `hasEpochRelevantMemberConfigChanged`: what bumps the group epoch for a static member.
    pub fn has_epoch_relevant_change(&self, updated: &StreamsGroupMember) -> bool {
        self.topology_epoch != updated.topology_epoch
            || self.rack_id != updated.rack_id
            || self.client_tags != updated.client_tags
            || self.process_id != updated.process_id
    }
}

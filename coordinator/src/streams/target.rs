//! Computing a new target assignment (Kafka 4.4's `TargetAssignmentBuilder` behind the
//! `UpdatedMembersAndTargetAssignmentView`): the assignor's input is every member's *current*
//! assignment and reported task offsets, the heartbeating member taken in its updated form; the
//! output records are the changed per-member targets followed by the target-assignment metadata.

use std::collections::BTreeMap;

use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;

use crate::error::ApiError;
use crate::java::java_hash_map_order;
use crate::records::Record;
use crate::records::streams::{
    StreamsGroupTargetAssignmentMemberValue, StreamsGroupTargetAssignmentMetadataValue,
    StreamsMemberKey,
};
use crate::streams::assignor::{
    AssignmentConfigs, GroupSpec, MemberSpec, TaskAssignor, TopologyDescriber,
};
use crate::streams::configure::ConfiguredTopology;
use crate::streams::group::{MemberTaskOffsets, Persistent};
use crate::streams::member::StreamsGroupMember;
use crate::streams::tasks::{TasksTuple, tasks_to_record};

/// The members and targets as the assignment code sees them: the group's own, with the heartbeating
/// member put in (replacing a departed static member it takes over).
pub struct MembersView<'a> {
    /// Members in the iteration order of Kafka's `OverlayMap` over the group's member map.
    pub members: Vec<&'a StreamsGroupMember>,
    /// Member id -> target, with a replaced static member's target moved to its successor.
    pub targets: BTreeMap<&'a str, &'a TasksTuple>,
}

impl<'a> MembersView<'a> {
    /// `UpdatedMembersAndTargetAssignmentView` with `addOrUpdateMember(updated)` applied.
    pub fn new(p: &'a Persistent, updated: Option<&'a StreamsGroupMember>) -> Self {
        let mut targets: BTreeMap<&'a str, &'a TasksTuple> = p
            .target_assignment
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        let mut removed: Option<&str> = None;
        if let Some(u) = updated
            && let Some(instance) = &u.instance_id
            && let Some(previous) = p.static_members.get(instance)
            && *previous != u.member_id
        {
            // A previous member under this instance id that is replaced: its target moves.
            if let Some(t) = p.target_assignment.get(previous) {
                targets.insert(u.member_id.as_str(), t);
            }
            targets.remove(previous.as_str());
            removed = Some(previous.as_str());
        }
        let mut members = Vec::with_capacity(p.members.len() + 1);
        let mut added = updated;
        for (id, m) in p.members.iter() {
            if Some(id.as_str()) == removed {
                continue;
            }
            match updated {
                Some(u) if u.member_id == *id => {
                    members.push(u);
                    added = None;
                }
                _ => members.push(m),
            }
        }
        if let Some(u) = added {
            members.push(u);
        }
        Self { members, targets }
    }

    pub fn target(&self, member_id: &str) -> Option<&'a TasksTuple> {
        self.targets.get(member_id).copied()
    }
}

/// The target of the heartbeating member as [`MembersView`] would give it, without building the
/// view: a member taking over a departed static member's instance id inherits that member's target.
pub fn updated_member_target<'a>(
    p: &'a Persistent,
    updated: &StreamsGroupMember,
) -> Option<&'a TasksTuple> {
    if let Some(instance) = &updated.instance_id
        && let Some(previous) = p.static_members.get(instance)
        && *previous != updated.member_id
    {
        return p.target_assignment.get(previous);
    }
    p.target_assignment.get(&updated.member_id)
}

/// What a new target assignment produced.
pub struct TargetResult {
    pub records: Vec<Record>,
    pub targets: BTreeMap<String, TasksTuple>,
}

/// `TargetAssignmentBuilder.build` at `group_epoch`. `Err` carries Kafka's UNKNOWN_SERVER_ERROR for a
/// failing assignor (its message is kept for callers and tests; the wire drops it).
#[allow(clippy::too_many_arguments)]
pub fn build_target_assignment(
    group_id: &str,
    task_offsets: &BTreeMap<String, MemberTaskOffsets>,
    view: &MembersView<'_>,
    group_epoch: i32,
    configured: &ConfiguredTopology,
    assignment_configs: &BTreeMap<String, String>,
    assignor: &dyn TaskAssignor,
    bugs: &KafkaBugs,
    now_ms: i64,
) -> Result<TargetResult, ApiError> {
    let fail = |message: String| {
        ApiError::new(
            ErrorCode::UnknownServerError,
            format!("Failed to compute a new target assignment for epoch {group_epoch}: {message}"),
        )
    };
    let assignment = if configured.is_ready() {
        let configs =
            AssignmentConfigs::from_map(assignment_configs).map_err(|e| fail(e.to_string()))?;
        let members = view
            .members
            .iter()
            .map(|m| {
                let offsets = task_offsets.get(&m.member_id);
                MemberSpec {
                    member_id: m.member_id.clone(),
                    instance_id: m.instance_id.clone(),
                    rack_id: m.rack_id.clone(),
                    process_id: m.process_id.clone(),
                    client_tags: m.client_tags.clone(),
                    active_tasks: m.assigned.active_tasks(),
                    standby_tasks: m.assigned.standby.clone(),
                    warmup_tasks: m.assigned.warmup.clone(),
                    task_offsets: offsets.map(|o| o.task_offsets.clone()).unwrap_or_default(),
                    task_end_offsets: offsets
                        .map(|o| o.task_end_offsets.clone())
                        .unwrap_or_default(),
                }
            })
            .collect();
        let spec = GroupSpec { members, configs };
        let subtopologies = configured.subtopologies.as_ref().ok_or_else(|| {
            // Kafka: IllegalStateException "Subtopologies must be present if topology is ready."
            ApiError::bare(ErrorCode::UnknownServerError)
        })?;
        let describer = TopologyDescriber::new(subtopologies.iter().map(|(id, s)| {
            (
                id.clone(),
                s.number_of_tasks,
                !s.state_changelog_topics.is_empty(),
            )
        }));
        Some(
            assignor
                .assign_with_bugs(&spec, &describer, bugs)
                .map_err(|e| fail(e.to_string()))?,
        )
    } else {
        None
    };

    let mut records = Vec::new();
    let mut targets = BTreeMap::new();
    // Records follow the iteration order of the `HashMap` the members were put into.
    let order = java_hash_map_order(view.members.iter().map(|m| m.member_id.as_str()));
    for member_id in order {
        let new_target = match &assignment {
            Some(a) => a
                .get(member_id)
                .map(|m| TasksTuple {
                    active: m.active().to_tasks(),
                    standby: m.standby().to_tasks(),
                    warmup: Default::default(),
                })
                .unwrap_or_default(),
            None => TasksTuple::default(),
        };
        let changed = match view.target(member_id) {
            None => true,
            Some(old) => *old != new_target,
        };
        if changed {
            records.push(target_member_record(group_id, member_id, &new_target));
        }
        targets.insert(member_id.to_string(), new_target);
    }
    records.push(target_metadata_record(group_id, group_epoch, now_ms));
    Ok(TargetResult { records, targets })
}

/// `newStreamsGroupTargetAssignmentRecord`.
pub fn target_member_record(group_id: &str, member_id: &str, target: &TasksTuple) -> Record {
    Record::StreamsGroupTargetAssignmentMember {
        key: StreamsMemberKey {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        },
        value: Some(StreamsGroupTargetAssignmentMemberValue {
            active_tasks: tasks_to_record(&target.active),
            standby_tasks: tasks_to_record(&target.standby),
            warmup_tasks: tasks_to_record(&target.warmup),
        }),
    }
}

/// `newStreamsGroupTargetAssignmentMetadataRecord`.
pub fn target_metadata_record(group_id: &str, epoch: i32, timestamp_ms: i64) -> Record {
    Record::StreamsGroupTargetAssignmentMetadata {
        key: crate::records::streams::StreamsGroupKey {
            group_id: group_id.to_string(),
        },
        value: Some(StreamsGroupTargetAssignmentMetadataValue {
            assignment_epoch: epoch,
            assignment_timestamp: timestamp_ms,
        }),
    }
}

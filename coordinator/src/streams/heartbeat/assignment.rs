//! The target assignment of a heartbeat and the member's reconciliation to it (Kafka's steps 4 and
//! 5 of `streamsGroupHeartbeat`: `updateStreamsTargetAssignment` and `maybeReconcile`).

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use protocol::messages::StreamsGroupHeartbeatRequest;
use protocol::messages::streams_group_heartbeat_request as req;

use super::Heartbeat;
use super::epoch::{AssignmentConfigsView, GroupEpoch};
use super::records::current_assignment_record;
use super::response::status;
use crate::error::ApiError;
use crate::outcome::TimerTask;
use crate::streams::assignor::TaskAssignor;
use crate::streams::config::EffectiveConfig;
use crate::streams::configure::ConfiguredTopology;
use crate::streams::group::{Persistent, Soft};
use crate::streams::member::{MemberState, StreamsGroupMember};
use crate::streams::reconcile::Reconciler;
use crate::streams::target::{MembersView, build_target_assignment, target_metadata_record};
use crate::streams::tasks::{Tasks, TasksTuple};
use crate::streams::timers;
use crate::timer::Timers;
use protocol::streams_status::StreamsStatus;

/// `canComputeNextTargetAssignment`.
pub(crate) fn can_compute(assignment_timestamp: i64, interval_ms: i32, now_ms: i64) -> bool {
    assignment_timestamp == 0
        || interval_ms == 0
        || now_ms >= assignment_timestamp + i64::from(interval_ms)
}

/// `streamsGroupAssignor`: the group's configured assignor if registered, else the default (first).
pub(crate) fn select_assignor(
    assignors: &[Arc<dyn TaskAssignor>],
    effective: &crate::streams::config::EffectiveConfig,
) -> Arc<dyn TaskAssignor> {
    if let Some(name) = &effective.assignor_name
        && let Some(a) = assignors.iter().find(|a| a.name() == name)
    {
        return a.clone();
    }
    assignors
        .first()
        .cloned()
        .unwrap_or_else(|| Arc::new(crate::streams::assignor::StickyTaskAssignor))
}

/// What the target assignment step needs besides the group and the member.
pub(super) struct TargetInputs<'a> {
    pub group_epoch: &'a GroupEpoch,
    pub configured: &'a ConfiguredTopology,
    pub configs: &'a AssignmentConfigsView<'a>,
    pub effective: &'a EffectiveConfig,
    pub assignors: &'a [Arc<dyn TaskAssignor>],
    /// Groups whose initial rebalance delay is still running.
    pub initial_delay_pending: &'a BTreeSet<String>,
}

/// `updateStreamsTargetAssignment`: the target epoch and the member's target. Nothing is computed
/// while the initial rebalance delay runs or the assignment interval has not passed (both answer
/// ASSIGNMENT_DELAYED); a refinement of a group whose target is current only moves the target
/// epoch; otherwise the assignor computes the whole group's target.
pub(super) fn update_target_assignment<'p>(
    p: &'p Persistent,
    soft: &Soft,
    hb: &mut Heartbeat<'_>,
    member: &StreamsGroupMember,
    inputs: TargetInputs<'_>,
) -> Result<(i32, Cow<'p, TasksTuple>), ApiError> {
    let gid = hb.gid;
    let group_epoch = inputs.group_epoch.epoch;
    if inputs.initial_delay_pending.contains(gid) {
        hb.statuses.push(status(
            StreamsStatus::AssignmentDelayed,
            "Assignment delayed due to the configured initial rebalance delay.",
        ));
        return Ok((p.assignment_epoch, Cow::Owned(TasksTuple::default())));
    }
    let current = || -> Cow<'p, TasksTuple> {
        crate::streams::target::updated_member_target(p, member)
            .map(Cow::Borrowed)
            .unwrap_or_default()
    };
    if p.assignment_epoch >= group_epoch {
        return Ok((p.assignment_epoch, current()));
    }
    if inputs.group_epoch.refined && p.assignment_epoch >= p.group_epoch {
        hb.records.push(target_metadata_record(
            gid,
            group_epoch,
            p.assignment_timestamp,
        ));
        return Ok((group_epoch, current()));
    }
    if !can_compute(
        p.assignment_timestamp,
        inputs.effective.assignment_interval_ms,
        hb.now_ms,
    ) {
        hb.statuses.push(status(
            StreamsStatus::AssignmentDelayed,
            "Assignment delayed due to the configured assignment interval.",
        ));
        return Ok((p.assignment_epoch, current()));
    }
    let assignor = select_assignor(inputs.assignors, inputs.effective);
    let view = MembersView::new(p, Some(member));
    let result = build_target_assignment(
        gid,
        &soft.task_offsets,
        &view,
        group_epoch,
        inputs.configured,
        &inputs.configs.to_map(),
        assignor.as_ref(),
        hb.bugs,
        hb.now_ms,
    )?;
    hb.records.extend(result.records);
    let t = result
        .targets
        .get(member.member_id.as_str())
        .cloned()
        .unwrap_or_default();
    Ok((group_epoch, Cow::Owned(t)))
}

/// Owned tasks from the request when all three lists are present (`TasksTuple.fromHeartbeatRequest`).
fn owned_tasks(r: &StreamsGroupHeartbeatRequest) -> Option<TasksTuple> {
    let (Some(a), Some(s), Some(w)) = (&r.active_tasks, &r.standby_tasks, &r.warmup_tasks) else {
        return None;
    };
    let conv = |list: &Vec<req::TaskIds>| -> Tasks {
        let mut out = Tasks::new();
        for t in list {
            out.insert(
                t.subtopology_id.to_string(),
                t.partitions.iter().copied().collect(),
            );
        }
        out
    };
    Some(TasksTuple {
        active: conv(a),
        standby: conv(s),
        warmup: conv(w),
    })
}

/// `maybeReconcile`: moves the member toward its target (`CurrentAssignmentBuilder`), writes its
/// current assignment if that changed, and arms or cancels its rebalance timeout.
pub(super) fn maybe_reconcile<'p>(
    p: &Persistent,
    hb: &mut Heartbeat<'_>,
    member: Cow<'p, StreamsGroupMember>,
    target_epoch: i32,
    target: &TasksTuple,
    timers: &mut Timers<TimerTask>,
) -> Result<Cow<'p, StreamsGroupMember>, ApiError> {
    if member.is_reconciled_to(target_epoch) {
        return Ok(member);
    }
    let owned = owned_tasks(hb.r);
    let next = Reconciler {
        member: &member,
        target_epoch,
        target,
        ownership: &p.ownership,
        owned: owned.as_ref(),
    }
    .build()?;
    if next == *member {
        return Ok(member);
    }
    hb.records.push(current_assignment_record(hb.gid, &next));
    if next.state == MemberState::UnrevokedTasks {
        timers::schedule_rebalance(
            timers,
            hb.gid,
            &next.member_id,
            next.member_epoch,
            hb.now_ms + i64::from(next.rebalance_timeout_ms),
        );
    } else {
        timers.cancel(&timers::rebalance_key(hb.gid, &next.member_id));
    }
    Ok(Cow::Owned(next))
}

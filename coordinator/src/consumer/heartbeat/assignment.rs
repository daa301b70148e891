//! The target assignment of a heartbeat and the member's reconciliation to it (Kafka's steps 2 and 3
//! of `consumerGroupHeartbeat`: `maybeUpdateTargetAssignment` and `maybeReconcile`).

use std::borrow::Cow;

use super::Heartbeat;
use super::subscription::{preferred_assignor_name, unknown_assignor};
use crate::consumer::assignor::{ConsumerGroupPartitionAssignor, SubscriptionType, builtin};
use crate::consumer::group::ConsumerGroup;
use crate::consumer::member::{ConsumerGroupMember, MemberState, Partitions};
use crate::consumer::reconcile::Reconciler;
use crate::consumer::records::current_assignment_record;
use crate::consumer::target::{MembersView, build, subscribed_topic_ids};
use crate::consumer::timers;
use crate::error::ApiError;
use crate::outcome::TimerTask;
use crate::timer::Timers;
use crate::topics::TopicsImage;

/// `canComputeNextTargetAssignment` (KIP-1263): no previous computation (timestamp 0), no interval,
/// or the interval has passed.
pub(crate) fn can_compute(assignment_timestamp: i64, interval_ms: i32, now_ms: i64) -> bool {
    assignment_timestamp == 0
        || interval_ms == 0
        || now_ms >= assignment_timestamp + i64::from(interval_ms)
}

/// What the target step needs besides the group and the member.
pub(super) struct TargetInputs<'a> {
    pub group_epoch: i32,
    pub subscription_type: SubscriptionType,
    pub assignment_interval_ms: i32,
    /// `group.consumer.assignors`; the first is the default.
    pub assignors: &'a [String],
    pub topics: &'a TopicsImage,
}

/// `maybeUpdateTargetAssignment`: the target epoch and the member's target. Nothing is computed while
/// the target is current or the assignment interval has not passed (the member keeps the last target,
/// a static member the one of its instance id); otherwise the preferred assignor computes the whole
/// group's target over the members as this heartbeat leaves them.
pub(super) fn maybe_update_target_assignment<'g>(
    group: &'g ConsumerGroup,
    hb: &mut Heartbeat<'_>,
    member: &ConsumerGroupMember,
    updated: &ConsumerGroupMember,
    inputs: TargetInputs<'_>,
) -> Result<(i32, Cow<'g, Partitions>), ApiError> {
    let p = &group.persistent;
    let last = || -> (i32, Cow<'g, Partitions>) {
        (
            p.assignment_epoch,
            Cow::Owned(group.target_of(&updated.member_id, updated.instance_id.as_deref())),
        )
    };
    if p.assignment_epoch >= inputs.group_epoch {
        return Ok(last());
    }
    if !can_compute(
        p.assignment_timestamp,
        inputs.assignment_interval_ms,
        hb.now_ms,
    ) {
        return Ok(last());
    }
    let default = inputs.assignors.first().map_or("uniform", String::as_str);
    let name = preferred_assignor_name(p, member, updated, default);
    // A stored preference the broker no longer configures finds no assignor: Kafka's builder then
    // fails with a NullPointerException, an UNKNOWN_SERVER_ERROR.
    let assignor: &dyn ConsumerGroupPartitionAssignor = match builtin(&name) {
        Some(a) if inputs.assignors.contains(&name) => a,
        _ => return Err(unknown_assignor()),
    };
    let view = MembersView::new(p, updated);
    let result = build(
        hb.gid,
        inputs.group_epoch,
        &view,
        inputs.subscription_type,
        &p.resolved_regexes,
        inputs.topics,
        assignor,
        hb.now_ms,
    )
    // Kafka wraps the PartitionAssignorException in an UnknownServerException, whose message the
    // service does not send.
    .map_err(|_| ApiError::bare(protocol::ErrorCode::UnknownServerError))?;
    hb.records.extend(result.records);
    let target = result
        .targets
        .get(&updated.member_id)
        .cloned()
        .unwrap_or_default();
    Ok((inputs.group_epoch, Cow::Owned(target)))
}

/// `maybeReconcile`: moves the member toward its target (`CurrentAssignmentBuilder`) unless it is
/// already reconciled and its subscription did not change; a changed member gets its record, and a
/// consumer-protocol member its rebalance timeout armed (UNREVOKED_PARTITIONS) or cancelled.
#[allow(clippy::too_many_arguments)]
pub(super) fn maybe_reconcile(
    group: &ConsumerGroup,
    hb: &mut Heartbeat<'_>,
    member: ConsumerGroupMember,
    target_epoch: i32,
    target: &Partitions,
    has_subscription_changed: bool,
    topics: &TopicsImage,
    timers: &mut Timers<TimerTask>,
) -> Result<ConsumerGroupMember, ApiError> {
    if !has_subscription_changed && member.is_reconciled_to(target_epoch) {
        return Ok(member);
    }
    let subscribed = subscribed_topic_ids(&member, &group.persistent.resolved_regexes, topics);
    let regex_topics = member
        .regex()
        .and_then(|r| group.persistent.resolved_regexes.get(r))
        .is_some_and(|r| !r.topics.is_empty());
    let subscribes_to_nothing = member.subscribed_topic_names.is_empty() && !regex_topics;
    let epoch_of = |t: &uuid::Uuid, p: i32| group.current_partition_epoch(t, p);
    let next = Reconciler {
        member: &member,
        target_epoch,
        target,
        has_subscription_changed,
        subscribed_topic_ids: &subscribed,
        subscribes_to_nothing,
        current_partition_epoch: &epoch_of,
        owned: hb.r.topic_partitions.as_deref(),
    }
    .build()?;
    if next == member {
        return Ok(member);
    }
    hb.records.push(current_assignment_record(hb.gid, &next));
    if !next.use_classic_protocol() {
        if next.state == MemberState::UnrevokedPartitions {
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
    }
    Ok(next)
}

//! The rebalance machinery shared by every classic api and timer (Kafka's `GroupMetadataManager`):
//! starting a rebalance, completing the join phase (generation bump, leader election, answering the
//! parked JoinGroups), propagating the leader's assignment, heartbeat / join / sync expiry, and member
//! removal.

use std::collections::BTreeMap;

use bytes::Bytes;
use kafka_bugs::KafkaBug;
use protocol::ErrorCode;

use super::config::NEW_MEMBER_JOIN_TIMEOUT_MS;
use super::ctx::{ClassicTimer, Ctx, heartbeat_key, join_key, sync_key};
use super::group::{ClassicGroup, IllegalState};
use super::persist;
use super::responses::{
    answer_parked_join, answer_parked_sync, current_members, join_error, join_success, sync_success,
};
use super::state::GroupState;

pub(crate) type Step = Result<(), IllegalState>;

/// (Re)arms the member's heartbeat expiry with its session timeout.
pub(crate) fn reschedule_heartbeat(group: &ClassicGroup, member_id: &str, ctx: &mut Ctx) {
    if let Some(member) = group.member(member_id) {
        let timeout = member.session_timeout_ms;
        reschedule_heartbeat_after(group.group_id(), member_id, i64::from(timeout), ctx);
    }
}

pub(crate) fn reschedule_heartbeat_after(
    group_id: &str,
    member_id: &str,
    timeout_ms: i64,
    ctx: &mut Ctx,
) {
    ctx.schedule(
        heartbeat_key(group_id, member_id),
        timeout_ms,
        ClassicTimer::Heartbeat {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        },
    );
}

/// The new-member join timeout a member added by JoinGroup gets instead of its session timeout.
pub(crate) fn schedule_new_member_expiry(group_id: &str, member_id: &str, ctx: &mut Ctx) {
    reschedule_heartbeat_after(
        group_id,
        member_id,
        i64::from(NEW_MEMBER_JOIN_TIMEOUT_MS),
        ctx,
    );
}

/// `maybePrepareRebalanceOrCompleteJoin`.
pub(crate) fn maybe_prepare_rebalance_or_complete_join(
    group: &mut ClassicGroup,
    ctx: &mut Ctx,
) -> Step {
    if group.can_rebalance() {
        prepare_rebalance(group, ctx)
    } else {
        maybe_complete_join_phase(group, ctx)
    }
}

/// `prepareRebalance`: cancel a sync phase in progress, start the join phase (with the initial delay for
/// an empty group), and complete it at once if every member is already waiting.
pub(crate) fn prepare_rebalance(group: &mut ClassicGroup, ctx: &mut Ctx) -> Step {
    if group.is_in_state(GroupState::CompletingRebalance) {
        reset_and_propagate_assignment_with_error(group, ErrorCode::RebalanceInProgress, ctx)?;
    }
    remove_sync_expiration(group, ctx);

    let initial = group.is_in_state(GroupState::Empty);
    if initial {
        let delay = ctx.config.initial_rebalance_delay_ms;
        let remaining = group.rebalance_timeout_ms().saturating_sub(delay).max(0);
        ctx.schedule(
            join_key(group.group_id()),
            i64::from(delay),
            ClassicTimer::InitialJoin {
                group_id: group.group_id().to_string(),
                delay_ms: delay,
                remaining_ms: remaining,
            },
        );
    }
    group.transition_to(GroupState::PreparingRebalance, ctx.now)?;
    if initial {
        Ok(())
    } else {
        maybe_complete_join_else_schedule(group, ctx)
    }
}

fn maybe_complete_join_else_schedule(group: &mut ClassicGroup, ctx: &mut Ctx) -> Step {
    if group.has_all_members_joined() {
        complete_join(group, ctx)
    } else {
        schedule_join_timeout(group, ctx);
        Ok(())
    }
}

fn schedule_join_timeout(group: &ClassicGroup, ctx: &mut Ctx) {
    let timeout = group.rebalance_timeout_ms();
    ctx.schedule(
        join_key(group.group_id()),
        i64::from(timeout),
        ClassicTimer::Join {
            group_id: group.group_id().to_string(),
        },
    );
}

/// `maybeCompleteJoinPhase`: only in PreparingRebalance, never during the initial rebalance, and only
/// once every member (and no pending member) has joined.
pub(crate) fn maybe_complete_join_phase(group: &mut ClassicGroup, ctx: &mut Ctx) -> Step {
    if !group.is_in_state(GroupState::PreparingRebalance)
        || group.previous_state() == GroupState::Empty
        || !group.has_all_members_joined()
    {
        return Ok(());
    }
    complete_join(group, ctx)
}

/// `tryCompleteInitialRebalanceElseSchedule`: the initial-delay timer fired.
pub(crate) fn try_complete_initial_rebalance_else_schedule(
    group: &mut ClassicGroup,
    delay_ms: i32,
    remaining_ms: i32,
    ctx: &mut Ctx,
) -> Step {
    if group.new_member_added() && remaining_ms != 0 {
        group.set_new_member_added(false);
        let new_delay = ctx.config.initial_rebalance_delay_ms.min(remaining_ms);
        let new_remaining = remaining_ms.saturating_sub(delay_ms).max(0);
        ctx.schedule(
            join_key(group.group_id()),
            i64::from(new_delay),
            ClassicTimer::InitialJoin {
                group_id: group.group_id().to_string(),
                delay_ms: new_delay,
                remaining_ms: new_remaining,
            },
        );
        Ok(())
    } else {
        complete_join(group, ctx)
    }
}

/// `completeClassicGroupJoin`: drop dynamic members that did not rejoin, elect a leader among the
/// rejoined ones, bump the generation, answer every parked JoinGroup and start the sync phase. A group
/// left without members becomes Empty and is written.
pub(crate) fn complete_join(group: &mut ClassicGroup, ctx: &mut Ctx) -> Step {
    let group_id = group.group_id().to_string();
    ctx.cancel(&join_key(&group_id));

    for member_id in group.not_yet_rejoined_members() {
        let is_dynamic = group.member(&member_id).is_some_and(|m| !m.is_static());
        // KAFKA-8220 (fixed by apache/kafka#6666): before the fix every member that had not
        // rejoined was removed here, static members too (the fix also added the leader election
        // and the re-armed join timer below, which then have nothing to do).
        if is_dynamic || ctx.bugs.on(KafkaBug::Kafka8220) {
            group.remove(&member_id);
            ctx.cancel(&heartbeat_key(&group_id, &member_id));
        }
    }

    if group.is_in_state(GroupState::Dead) {
        return Ok(());
    }
    if !group.maybe_elect_new_joined_leader() && group.num_members() > 0 {
        // Nobody rejoined (only silent static members are left): wait another rebalance timeout.
        schedule_join_timeout(group, ctx);
        return Ok(());
    }

    group.init_next_generation(ctx.now)?;
    if group.is_in_state(GroupState::Empty) {
        let record = persist::metadata_record(group, &BTreeMap::new())?;
        // A failed write only leaves the previous generation in the log; Kafka just logs it.
        let _ = ctx.append(vec![record]);
        return Ok(());
    }

    for member_id in group.member_ids() {
        let members = if group.is_leader(&member_id) {
            current_members(group)
        } else {
            Vec::new()
        };
        let response = join_success(group, &member_id, group.leader_id(), members, false);
        if let Some(parked) = group.take_join(&member_id) {
            answer_parked_join(ctx.out, parked, response);
        }
        reschedule_heartbeat(group, &member_id, ctx);
        if let Some(member) = group.member_mut(&member_id) {
            member.is_new = false;
        }
        group.add_pending_sync_member(&member_id);
    }
    schedule_pending_sync(group, ctx);
    Ok(())
}

fn schedule_pending_sync(group: &ClassicGroup, ctx: &mut Ctx) {
    let timeout = group.rebalance_timeout_ms();
    ctx.schedule(
        sync_key(group.group_id()),
        i64::from(timeout),
        ClassicTimer::Sync {
            group_id: group.group_id().to_string(),
            generation_id: group.generation_id(),
        },
    );
}

/// `removeSyncExpiration`.
pub(crate) fn remove_sync_expiration(group: &mut ClassicGroup, ctx: &mut Ctx) {
    group.clear_pending_sync_members();
    ctx.cancel(&sync_key(group.group_id()));
}

/// `removePendingSyncMember`: the member synced; the sync timer goes once everyone has.
pub(crate) fn remove_pending_sync_member(group: &mut ClassicGroup, member_id: &str, ctx: &mut Ctx) {
    group.remove_pending_sync_member(member_id);
    let cancel = match group.state() {
        GroupState::Dead | GroupState::Empty | GroupState::PreparingRebalance => true,
        GroupState::CompletingRebalance | GroupState::Stable => {
            group.has_received_sync_from_all_members()
        }
    };
    if cancel {
        ctx.cancel(&sync_key(group.group_id()));
    }
}

/// `resetAndPropagateAssignmentWithError`: every assignment cleared, every parked SyncGroup answered
/// with `error`.
pub(crate) fn reset_and_propagate_assignment_with_error(
    group: &mut ClassicGroup,
    error: ErrorCode,
    ctx: &mut Ctx,
) -> Step {
    if !group.is_in_state(GroupState::CompletingRebalance) {
        return Err(IllegalState(format!(
            "Group {} must be in CompletingRebalance state but is in {}.",
            group.group_id(),
            group.state()
        )));
    }
    for member_id in group.member_ids() {
        if let Some(m) = group.member_mut(&member_id) {
            m.assignment = Bytes::new();
        }
    }
    propagate_assignment(group, error, ctx);
    Ok(())
}

/// `setAndPropagateAssignment`: the leader's assignment stored and sent to every parked SyncGroup.
pub(crate) fn set_and_propagate_assignment(
    group: &mut ClassicGroup,
    assignment: &BTreeMap<String, Bytes>,
    ctx: &mut Ctx,
) -> Step {
    if !group.is_in_state(GroupState::CompletingRebalance) {
        return Err(IllegalState(
            "The group must be in CompletingRebalance state to set and propagate assignment."
                .into(),
        ));
    }
    for member_id in group.member_ids() {
        let a = assignment.get(&member_id).cloned().unwrap_or_default();
        if let Some(m) = group.member_mut(&member_id) {
            m.assignment = a;
        }
    }
    propagate_assignment(group, ErrorCode::None, ctx);
    Ok(())
}

/// `propagateAssignment`: answers every parked SyncGroup (with the protocol fields only on success) and
/// re-arms the answered members' heartbeats.
fn propagate_assignment(group: &mut ClassicGroup, error: ErrorCode, ctx: &mut Ctx) {
    let (protocol_type, protocol_name) = if error == ErrorCode::None {
        (
            group.protocol_type().map(str::to_string),
            group.protocol_name().map(str::to_string),
        )
    } else {
        (None, None)
    };
    for member_id in group.member_ids() {
        let assignment = group
            .member(&member_id)
            .map(|m| m.assignment.clone())
            .unwrap_or_default();
        if let Some(parked) = group.take_sync(&member_id) {
            let response = sync_success(
                protocol_type.as_deref(),
                protocol_name.as_deref(),
                assignment,
            )
            .with_error_code(error.code());
            answer_parked_sync(ctx.out, parked, response);
            reschedule_heartbeat(group, &member_id, ctx);
        }
    }
}

/// `expirePendingSync`: members that did not send SyncGroup within the rebalance timeout are removed and
/// a rebalance starts.
pub(crate) fn expire_pending_sync(
    group: &mut ClassicGroup,
    generation_id: i32,
    ctx: &mut Ctx,
) -> Step {
    if generation_id != group.generation_id() {
        return Ok(());
    }
    match group.state() {
        GroupState::CompletingRebalance | GroupState::Stable => {
            if !group.has_received_sync_from_all_members() {
                let pending: Vec<String> = group.pending_sync_members().iter().cloned().collect();
                let group_id = group.group_id().to_string();
                for member_id in pending {
                    group.remove(&member_id);
                    ctx.cancel(&heartbeat_key(&group_id, &member_id));
                }
                return prepare_rebalance(group, ctx);
            }
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `expireClassicGroupMemberHeartbeat`.
pub(crate) fn expire_heartbeat(group: &mut ClassicGroup, member_id: &str, ctx: &mut Ctx) -> Step {
    if group.is_in_state(GroupState::Dead) {
        return Ok(());
    }
    if group.is_pending_member(member_id) {
        return remove_pending_member_and_update(group, member_id, ctx);
    }
    match group.member(member_id) {
        Some(member) if !member.has_satisfied_heartbeat() => {
            remove_member_and_update(group, member_id, ctx)
        }
        _ => Ok(()),
    }
}

/// `removeMemberAndUpdateClassicGroup`: an expired member's parked JoinGroup is answered
/// UNKNOWN_MEMBER_ID, it is removed, and the group rebalances or completes its join phase.
pub(crate) fn remove_member_and_update(
    group: &mut ClassicGroup,
    member_id: &str,
    ctx: &mut Ctx,
) -> Step {
    if let Some(parked) = group.take_join(member_id) {
        answer_parked_join(ctx.out, parked, join_error("", ErrorCode::UnknownMemberId));
    }
    group.remove(member_id);
    if group.is_in_state(GroupState::Stable) || group.is_in_state(GroupState::CompletingRebalance) {
        maybe_prepare_rebalance_or_complete_join(group, ctx)
    } else if group.is_in_state(GroupState::PreparingRebalance) && group.has_all_members_joined() {
        complete_join(group, ctx)
    } else {
        Ok(())
    }
}

/// `removePendingMemberAndUpdateClassicGroup`.
pub(crate) fn remove_pending_member_and_update(
    group: &mut ClassicGroup,
    member_id: &str,
    ctx: &mut Ctx,
) -> Step {
    group.remove(member_id);
    if group.is_in_state(GroupState::PreparingRebalance) && group.has_all_members_joined() {
        complete_join(group, ctx)
    } else {
        Ok(())
    }
}

/// Answers a parked JoinGroup of a removed member with UNKNOWN_MEMBER_ID and removes it (LeaveGroup).
pub(crate) fn remove_current_member(group: &mut ClassicGroup, member_id: &str, ctx: &mut Ctx) {
    ctx.cancel(&heartbeat_key(group.group_id(), member_id));
    if let Some(parked) = group.take_join(member_id) {
        answer_parked_join(ctx.out, parked, join_error("", ErrorCode::UnknownMemberId));
    }
    group.remove(member_id);
}

//! JoinGroup (Kafka's `classicGroupJoin*`): new dynamic members (with the KIP-394 MEMBER_ID_REQUIRED
//! round trip from v4), new and returning static members (KIP-345 replacement), existing members, the
//! group-size limit, and the creation of a group by its first join.

use std::collections::BTreeMap;

use kafka_bugs::KafkaBug;
use protocol::ErrorCode;

use super::ctx::{Ctx, append_error_to_response_error};
use super::group::{ClassicGroup, IllegalState};
use super::member::{ClassicMember, ParkedJoin, Protocol};
use super::member_id::MemberIdGenerator;
use super::persist;
use super::rebalance::{
    Step, maybe_complete_join_phase, maybe_prepare_rebalance_or_complete_join, prepare_rebalance,
    reschedule_heartbeat, reschedule_heartbeat_after, schedule_new_member_expiry,
};
use super::responses::{
    answer_parked_join, answer_parked_sync, current_members, join_error, join_success, reply_join,
    sync_error,
};
use super::state::GroupState;
use crate::outcome::RequestToken;
use crate::records::Record;

/// A JoinGroup as the coordinator sees it (v0's rebalance timeout already replaced by the session
/// timeout).
#[derive(Debug, Clone)]
pub(crate) struct JoinRequest {
    pub token: RequestToken,
    pub version: i16,
    pub client_id: String,
    pub client_host: String,
    pub group_id: String,
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub protocol_type: String,
    pub protocols: Vec<Protocol>,
    pub session_timeout_ms: i32,
    pub rebalance_timeout_ms: i32,
}

impl JoinRequest {
    fn parked(&self) -> ParkedJoin {
        ParkedJoin {
            token: self.token,
            version: self.version,
        }
    }

    fn reply(&self, ctx: &mut Ctx, response: protocol::messages::JoinGroupResponse) {
        reply_join(ctx.out, self.token, self.version, response);
    }
}

/// `classicGroupJoinToClassicGroup`. `conversion` holds the tombstones of an empty streams group the
/// join replaces (written together with the new group's record).
pub(crate) fn join(
    groups: &mut BTreeMap<String, ClassicGroup>,
    ids: &mut MemberIdGenerator,
    conversion: Vec<Record>,
    req: &JoinRequest,
    ctx: &mut Ctx,
) -> Step {
    let is_unknown_member = req.member_id.is_empty();
    let is_new_group = !groups.contains_key(&req.group_id);
    if is_new_group && !is_unknown_member {
        req.reply(ctx, join_error(&req.member_id, ErrorCode::UnknownMemberId));
        return Ok(());
    }
    let group = groups.entry(req.group_id.clone()).or_insert_with(|| {
        ClassicGroup::new(req.group_id.clone(), GroupState::Empty, Some(ctx.now))
    });

    let records_before = ctx.out.records.len();
    let step = if !accept_joining_member(group, &req.member_id, ctx.config.max_size) {
        group.remove(&req.member_id);
        req.reply(ctx, join_error("", ErrorCode::GroupMaxSizeReached));
        Ok(())
    } else if is_unknown_member {
        join_new_member(group, ids, req, ctx)
    } else {
        join_existing_member(group, req, ctx)
    };
    if let Err(e) = step {
        if is_new_group {
            groups.remove(&req.group_id);
        }
        return Err(e);
    }

    if is_new_group && ctx.out.records.len() == records_before {
        let Some(group) = groups.get(&req.group_id) else {
            return Ok(());
        };
        let mut records = conversion;
        records.push(persist::empty_group_record(group));
        if let Err(error) = ctx.append(records) {
            // The write failed: the new group is rolled back with it.
            groups.remove(&req.group_id);
            if !ctx.out.replies.iter().any(|r| r.token == req.token) {
                let response = protocol::messages::JoinGroupResponse::default()
                    .with_error_code(append_error_to_response_error(error).code());
                req.reply(ctx, response);
            }
        }
    }
    Ok(())
}

/// `acceptJoiningMember`: the `group.max.size` check.
fn accept_joining_member(group: &ClassicGroup, member_id: &str, max_size: i32) -> bool {
    let max = i64::from(max_size);
    match group.state() {
        GroupState::Empty | GroupState::Dead => true,
        GroupState::PreparingRebalance => {
            group
                .member(member_id)
                .is_some_and(ClassicMember::is_awaiting_join)
                || (group.num_awaiting_join() as i64) < max
        }
        GroupState::CompletingRebalance | GroupState::Stable => {
            group.has_member(member_id) || (group.num_members() as i64) < max
        }
    }
}

/// `classicGroupJoinNewMember`: a JoinGroup with an empty member id.
fn join_new_member(
    group: &mut ClassicGroup,
    ids: &mut MemberIdGenerator,
    req: &JoinRequest,
    ctx: &mut Ctx,
) -> Step {
    if group.is_in_state(GroupState::Dead) {
        req.reply(ctx, join_error("", ErrorCode::CoordinatorNotAvailable));
        return Ok(());
    }
    if !group.supports_protocols(&req.protocol_type, &req.protocols) {
        req.reply(ctx, join_error("", ErrorCode::InconsistentGroupProtocol));
        return Ok(());
    }
    let new_member_id = ids.next_member_id(&req.client_id, req.group_instance_id.as_deref());
    match &req.group_instance_id {
        Some(instance) => match group.static_member_id(instance).map(str::to_string) {
            // KAFKA-8500 (fixed by apache/kafka#6899): before the fix the member id was replaced only
            // in Stable; in any other state the known instance was updated under its old member id
            // and rebalanced (`updateMemberAndRebalance`): nothing fenced, the JoinGroup parked on
            // the old id silently dropped, and the newcomer answered with the old member id.
            Some(existing)
                if ctx.bugs.on(KafkaBug::Kafka8500) && !group.is_in_state(GroupState::Stable) =>
            {
                group.update_member(
                    &existing,
                    req.protocols.clone(),
                    req.rebalance_timeout_ms,
                    req.session_timeout_ms,
                    Some(req.parked()),
                );
                maybe_prepare_rebalance_or_complete_join(group, ctx)
            }
            Some(existing) => update_static_member_then_rebalance(
                group,
                instance,
                &existing,
                &new_member_id,
                req,
                ctx,
            ),
            None => add_member_then_rebalance(group, &new_member_id, req, ctx),
        },
        None if req.version >= 4 => {
            group.add_pending_member(&new_member_id)?;
            reschedule_heartbeat_after(
                group.group_id(),
                &new_member_id,
                i64::from(req.session_timeout_ms),
                ctx,
            );
            req.reply(ctx, join_error(&new_member_id, ErrorCode::MemberIdRequired));
            Ok(())
        }
        None => add_member_then_rebalance(group, &new_member_id, req, ctx),
    }
}

/// `classicGroupJoinExistingMember`: a JoinGroup naming a member id.
fn join_existing_member(group: &mut ClassicGroup, req: &JoinRequest, ctx: &mut Ctx) -> Step {
    let member_id = req.member_id.as_str();
    if group.is_in_state(GroupState::Dead) {
        req.reply(
            ctx,
            join_error(member_id, ErrorCode::CoordinatorNotAvailable),
        );
        return Ok(());
    }
    if !group.supports_protocols(&req.protocol_type, &req.protocols) {
        req.reply(
            ctx,
            join_error(member_id, ErrorCode::InconsistentGroupProtocol),
        );
        return Ok(());
    }
    if group.is_pending_member(member_id) {
        // A pending member can never be static.
        if let Some(instance) = &req.group_instance_id {
            return Err(IllegalState(format!(
                "Received unexpected JoinGroup with groupInstanceId={instance} for pending member with memberId={member_id}"
            )));
        }
        return add_member_then_rebalance(group, member_id, req, ctx);
    }
    if let Err(error) = group.validate_member(member_id, req.group_instance_id.as_deref()) {
        req.reply(ctx, join_error(member_id, error));
        return Ok(());
    }
    let matches = group
        .member(member_id)
        .is_some_and(|m| m.matches(&req.protocols));
    match group.state() {
        GroupState::PreparingRebalance => update_member_then_rebalance(group, req, ctx),
        GroupState::CompletingRebalance => {
            if matches {
                // The member probably lost the first response: give it the current generation again.
                let members = if group.is_leader(member_id) {
                    current_members(group)
                } else {
                    Vec::new()
                };
                let response = join_success(group, member_id, group.leader_id(), members, false);
                req.reply(ctx, response);
                Ok(())
            } else {
                update_member_then_rebalance(group, req, ctx)
            }
        }
        GroupState::Stable => {
            if group.is_leader(member_id) || !matches {
                // The leader may rejoin to force a new assignment; a follower only with new metadata.
                update_member_then_rebalance(group, req, ctx)
            } else {
                let response = join_success(group, member_id, group.leader_id(), Vec::new(), false);
                req.reply(ctx, response);
                Ok(())
            }
        }
        GroupState::Empty | GroupState::Dead => {
            req.reply(ctx, join_error(member_id, ErrorCode::UnknownMemberId));
            Ok(())
        }
    }
}

/// `updateMemberThenRebalanceOrCompleteJoin`.
fn update_member_then_rebalance(
    group: &mut ClassicGroup,
    req: &JoinRequest,
    ctx: &mut Ctx,
) -> Step {
    group.update_member(
        &req.member_id,
        req.protocols.clone(),
        req.rebalance_timeout_ms,
        req.session_timeout_ms,
        Some(req.parked()),
    );
    maybe_prepare_rebalance_or_complete_join(group, ctx)
}

/// `addMemberThenRebalanceOrCompleteJoin`: a new member object, parked in JoinGroup, with the new-member
/// join timeout.
fn add_member_then_rebalance(
    group: &mut ClassicGroup,
    member_id: &str,
    req: &JoinRequest,
    ctx: &mut Ctx,
) -> Step {
    let mut member = ClassicMember::new(
        member_id.to_string(),
        req.group_instance_id.clone(),
        req.client_id.clone(),
        req.client_host.clone(),
        req.rebalance_timeout_ms,
        req.session_timeout_ms,
        req.protocol_type.clone(),
        req.protocols.clone(),
    );
    member.is_new = true;
    if group.is_in_state(GroupState::PreparingRebalance)
        && group.previous_state() == GroupState::Empty
    {
        group.set_new_member_added(true);
    }
    group.add(member, Some(req.parked()))?;
    schedule_new_member_expiry(group.group_id(), member_id, ctx);
    maybe_prepare_rebalance_or_complete_join(group, ctx)
}

/// `updateStaticMemberThenRebalanceOrCompleteJoin`: a known instance joins with an unknown member id. The
/// old member id is replaced (its parked requests fenced); in a Stable group whose selected protocol
/// stays the same the group is written and answered without a rebalance.
///
/// Two Kafka bug switches restore what this did before its fixes: KAFKA-9801 (no rebalance in
/// CompletingRebalance) and KAFKA-10284 (nothing written in Stable).
fn update_static_member_then_rebalance(
    group: &mut ClassicGroup,
    instance: &str,
    old_member_id: &str,
    new_member_id: &str,
    req: &JoinRequest,
    ctx: &mut Ctx,
) -> Step {
    let current_leader = group.leader_id().map(str::to_string);
    let (fenced_join, fenced_sync) =
        group.replace_static_member(instance, old_member_id, new_member_id)?;
    if let Some(parked) = fenced_join {
        let response = join_error(old_member_id, ErrorCode::FencedInstanceId)
            .with_protocol_name(None)
            .with_protocol_type(None);
        answer_parked_join(ctx.out, parked, response);
    }
    if let Some(parked) = fenced_sync {
        answer_parked_sync(ctx.out, parked, sync_error(ErrorCode::FencedInstanceId));
    }
    // The old member id's heartbeat timer is left to fire harmlessly.
    reschedule_heartbeat(group, new_member_id, ctx);

    let (old_protocols, old_rebalance, old_session) = match group.member(new_member_id) {
        Some(m) => (
            m.protocols.clone(),
            m.rebalance_timeout_ms,
            m.session_timeout_ms,
        ),
        None => return Err(IllegalState(format!("member {new_member_id} vanished"))),
    };
    group.update_member(
        new_member_id,
        req.protocols.clone(),
        req.rebalance_timeout_ms,
        req.session_timeout_ms,
        Some(req.parked()),
    );

    match group.state() {
        // Before KAFKA-10284's fix (apache/kafka#9270, 2.6.1 and 2.7.0) a Stable group neither checked
        // the protocol the next generation would select nor wrote anything: the new member id lived
        // only in memory, and the join was answered at once with the old leader id and no members
        // (the answer 4.4.0 still gives before v9; KIP-814's v9 answer came later, after the write).
        GroupState::Stable if ctx.bugs.on(KafkaBug::Kafka10284) => {
            answer_as_follower(group, new_member_id, current_leader.as_deref(), ctx);
            Ok(())
        }
        GroupState::Stable => {
            let selected = group.select_protocol()?;
            if group.protocol_name().unwrap_or("") != selected {
                return maybe_prepare_rebalance_or_complete_join(group, ctx);
            }
            // The selected protocol stays: persist the new member id (KAFKA-10284), no rebalance.
            let assignment = group.group_assignment();
            let record = persist::metadata_record(group, &assignment)?;
            match ctx.append(vec![record]) {
                Err(error) => {
                    group.update_member(
                        new_member_id,
                        old_protocols,
                        old_rebalance,
                        old_session,
                        None,
                    );
                    group.replace_static_member(instance, new_member_id, old_member_id)?;
                    reschedule_heartbeat(group, old_member_id, ctx);
                    let response =
                        join_success(group, "", current_leader.as_deref(), Vec::new(), false)
                            .with_error_code(append_error_to_response_error(error).code());
                    req.reply(ctx, response);
                }
                Ok(()) if req.version >= 9 => {
                    let is_leader = group.is_leader(new_member_id);
                    let members = if is_leader {
                        current_members(group)
                    } else {
                        Vec::new()
                    };
                    let response =
                        join_success(group, new_member_id, group.leader_id(), members, is_leader);
                    if let Some(parked) = group.take_join(new_member_id) {
                        answer_parked_join(ctx.out, parked, response);
                    }
                }
                Ok(()) => {
                    // Before v9 a returning leader is told the old leader id, so it acts as a follower
                    // and does not compute an assignment the Stable group would ignore (KAFKA-8500).
                    answer_as_follower(group, new_member_id, current_leader.as_deref(), ctx);
                }
            }
            Ok(())
        }
        // Before KAFKA-9801's fix (apache/kafka#8405, 2.5.0) CompletingRebalance was answered like
        // Stable: at once, at the current generation, no rebalance. The leader then assigns to the
        // old member id, and the new one gets an empty assignment at SyncGroup.
        GroupState::CompletingRebalance if ctx.bugs.on(KafkaBug::Kafka9801) => {
            answer_as_follower(group, new_member_id, current_leader.as_deref(), ctx);
            Ok(())
        }
        // The leader may already be assigning to the old member id (KAFKA-9801): rebalance again.
        GroupState::CompletingRebalance => prepare_rebalance(group, ctx),
        GroupState::Empty | GroupState::Dead => Err(IllegalState(format!(
            "Group {} was not supposed to be in the state {} when the unknown static member {} rejoins.",
            group.group_id(),
            group.state(),
            instance
        ))),
        GroupState::PreparingRebalance => maybe_complete_join_phase(group, ctx),
    }
}

/// Answers the replacing member's parked JoinGroup at once at the current generation, with no
/// members and `leader` (the leader before the replacement), so that even a returning leader acts
/// as a follower.
fn answer_as_follower(
    group: &mut ClassicGroup,
    new_member_id: &str,
    leader: Option<&str>,
    ctx: &mut Ctx,
) {
    let response = join_success(group, new_member_id, leader, Vec::new(), false);
    if let Some(parked) = group.take_join(new_member_id) {
        answer_parked_join(ctx.out, parked, response);
    }
}

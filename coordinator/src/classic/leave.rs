//! LeaveGroup (Kafka's `classicGroupLeaveToClassicGroup`): members leave by member id (checked against
//! the instance id when one is given), pending members by their pending id, and an admin removes static
//! members by instance id with an empty member id. Each entry is answered on its own.

use protocol::ErrorCode;
use protocol::messages::leave_group_response::MemberResponse;

use super::ctx::Ctx;
use super::group::ClassicGroup;
use super::rebalance::{
    Step, maybe_complete_join_phase, maybe_prepare_rebalance_or_complete_join,
    remove_current_member,
};
use super::responses::{opt_sb, sb};
use super::state::GroupState;
use crate::classic::ctx::heartbeat_key;

/// One entry of a LeaveGroup (v0-2 requests are normalised to a single entry without instance id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LeavingMember {
    pub member_id: String,
    pub group_instance_id: Option<String>,
}

fn entry(m: &LeavingMember, error: ErrorCode) -> MemberResponse {
    MemberResponse::default()
        .with_member_id(sb(&m.member_id))
        .with_group_instance_id(opt_sb(m.group_instance_id.as_deref()))
        .with_error_code(error.code())
}

/// The per-member answers, or `Err(top-level error)` for a Dead group.
pub(crate) fn leave(
    group: &mut ClassicGroup,
    members: &[LeavingMember],
    ctx: &mut Ctx,
) -> Result<Result<Vec<MemberResponse>, ErrorCode>, super::group::IllegalState> {
    if group.is_in_state(GroupState::Dead) {
        return Ok(Err(ErrorCode::CoordinatorNotAvailable));
    }
    let mut responses = Vec::with_capacity(members.len());
    let mut any_left = false;
    for m in members {
        let error = if m.member_id.is_empty() {
            // Admin removal by instance id.
            match m
                .group_instance_id
                .as_deref()
                .and_then(|i| group.static_member_id(i))
                .map(str::to_string)
            {
                Some(current) => {
                    remove_current_member(group, &current, ctx);
                    ErrorCode::None
                }
                None => ErrorCode::UnknownMemberId,
            }
        } else if group.is_pending_member(&m.member_id) {
            group.remove(&m.member_id);
            ctx.cancel(&heartbeat_key(group.group_id(), &m.member_id));
            ErrorCode::None
        } else {
            match group.validate_member(&m.member_id, m.group_instance_id.as_deref()) {
                Ok(()) => {
                    remove_current_member(group, &m.member_id, ctx);
                    ErrorCode::None
                }
                Err(error) => error,
            }
        };
        any_left |= error == ErrorCode::None;
        responses.push(entry(m, error));
    }
    if any_left {
        let step: Step = match group.state() {
            GroupState::Stable | GroupState::CompletingRebalance => {
                maybe_prepare_rebalance_or_complete_join(group, ctx)
            }
            GroupState::PreparingRebalance => maybe_complete_join_phase(group, ctx),
            _ => Ok(()),
        };
        step?;
    }
    Ok(Ok(responses))
}

//! Heartbeat (Kafka's `classicGroupHeartbeatToClassicGroup`): keeps a member's session alive and tells it
//! whether a rebalance is under way.

use protocol::ErrorCode;

use super::ctx::Ctx;
use super::group::{ClassicGroup, IllegalState};
use super::rebalance::reschedule_heartbeat;
use super::state::GroupState;

/// The heartbeat's error code (NONE on success); re-arms the session timer of a valid member.
pub(crate) fn heartbeat(
    group: &ClassicGroup,
    member_id: &str,
    group_instance_id: Option<&str>,
    generation_id: i32,
    ctx: &mut Ctx,
) -> Result<ErrorCode, IllegalState> {
    if group.is_in_state(GroupState::Dead) {
        return Ok(ErrorCode::CoordinatorNotAvailable);
    }
    if let Err(error) = group.validate_member(member_id, group_instance_id) {
        return Ok(error);
    }
    if generation_id != group.generation_id() {
        return Ok(ErrorCode::IllegalGeneration);
    }
    match group.state() {
        GroupState::Empty => Ok(ErrorCode::UnknownMemberId),
        GroupState::PreparingRebalance => {
            reschedule_heartbeat(group, member_id, ctx);
            Ok(ErrorCode::RebalanceInProgress)
        }
        GroupState::CompletingRebalance | GroupState::Stable => {
            // Members may heartbeat between their JoinGroup and SyncGroup responses.
            reschedule_heartbeat(group, member_id, ctx);
            Ok(ErrorCode::None)
        }
        GroupState::Dead => Err(IllegalState(format!(
            "Reached unexpected state Dead for group {}",
            group.group_id()
        ))),
    }
}

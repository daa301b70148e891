//! SyncGroup (Kafka's `classicGroupSyncToClassicGroup`): followers wait for the leader's assignment; the
//! leader's SyncGroup writes the group and moves it to Stable; in Stable the stored assignment is
//! returned at once.

use std::collections::BTreeMap;

use bytes::Bytes;
use protocol::ErrorCode;

use super::ctx::{Ctx, append_error_to_response_error};
use super::group::{ClassicGroup, IllegalState};
use super::member::ParkedSync;
use super::persist;
use super::rebalance::{
    Step, maybe_prepare_rebalance_or_complete_join, remove_pending_sync_member,
    reset_and_propagate_assignment_with_error, set_and_propagate_assignment,
};
use super::responses::{sync_error, sync_success};
use super::state::GroupState;
use crate::outcome::RequestToken;

/// A SyncGroup as the coordinator sees it.
#[derive(Debug, Clone)]
pub(crate) struct SyncRequest {
    pub token: RequestToken,
    pub version: i16,
    pub group_id: String,
    pub generation_id: i32,
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub protocol_type: Option<String>,
    pub protocol_name: Option<String>,
    pub assignments: Vec<(String, Bytes)>,
}

/// `validateSyncGroup`.
fn validate(group: &ClassicGroup, req: &SyncRequest) -> Option<ErrorCode> {
    if group.is_in_state(GroupState::Dead) {
        return Some(ErrorCode::CoordinatorNotAvailable);
    }
    if let Err(error) = group.validate_member(&req.member_id, req.group_instance_id.as_deref()) {
        return Some(error);
    }
    if req.generation_id != group.generation_id() {
        return Some(ErrorCode::IllegalGeneration);
    }
    if inconsistent(req.protocol_type.as_deref(), group.protocol_type())
        || inconsistent(req.protocol_name.as_deref(), group.protocol_name())
    {
        return Some(ErrorCode::InconsistentGroupProtocol);
    }
    None
}

/// Only a value the request and the group both have can disagree.
fn inconsistent(request: Option<&str>, group: Option<&str>) -> bool {
    matches!((request, group), (Some(r), Some(g)) if r != g)
}

pub(crate) fn sync(group: &mut ClassicGroup, req: &SyncRequest, ctx: &mut Ctx) -> Step {
    if let Some(error) = validate(group, req) {
        ctx.out.reply(req.token, sync_error(error));
        return Ok(());
    }
    let member_id = req.member_id.as_str();
    match group.state() {
        GroupState::PreparingRebalance => {
            ctx.out
                .reply(req.token, sync_error(ErrorCode::RebalanceInProgress));
            Ok(())
        }
        GroupState::CompletingRebalance => {
            if let Some(member) = group.member_mut(member_id) {
                member.awaiting_sync = Some(ParkedSync {
                    token: req.token,
                    version: req.version,
                });
            }
            remove_pending_sync_member(group, member_id, ctx);
            if group.is_leader(member_id) {
                complete_sync_phase(group, req, ctx)?;
            }
            Ok(())
        }
        GroupState::Stable => {
            remove_pending_sync_member(group, member_id, ctx);
            let assignment = group
                .member(member_id)
                .map(|m| m.assignment.clone())
                .unwrap_or_default();
            let response = sync_success(group.protocol_type(), group.protocol_name(), assignment);
            ctx.out.reply(req.token, response);
            Ok(())
        }
        GroupState::Dead | GroupState::Empty => Err(IllegalState(format!(
            "Reached unexpected condition for Dead group {}",
            req.group_id
        ))),
    }
}

/// The leader's assignment: members it left out get an empty assignment. The group is written; once
/// written every parked SyncGroup gets its assignment and the group is Stable.
fn complete_sync_phase(group: &mut ClassicGroup, req: &SyncRequest, ctx: &mut Ctx) -> Step {
    let mut assignment: BTreeMap<String, Bytes> = BTreeMap::new();
    for (member_id, bytes) in &req.assignments {
        assignment.insert(member_id.clone(), bytes.clone());
    }
    for member_id in group.member_ids() {
        assignment.entry(member_id).or_default();
    }
    let record = persist::metadata_record(group, &assignment)?;
    let written = ctx.append(vec![record]);
    if group.is_in_state(GroupState::CompletingRebalance)
        && req.generation_id == group.generation_id()
    {
        match written {
            Ok(()) => {
                set_and_propagate_assignment(group, &assignment, ctx)?;
                group.transition_to(GroupState::Stable, ctx.now)?;
            }
            Err(error) => {
                let error = append_error_to_response_error(error);
                reset_and_propagate_assignment_with_error(group, error, ctx)?;
                maybe_prepare_rebalance_or_complete_join(group, ctx)?;
            }
        }
    }
    Ok(())
}

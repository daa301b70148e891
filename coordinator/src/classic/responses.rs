//! Building and sending classic-group responses. A response is shaped for the version of the request it
//! answers the way Kafka's response classes do (`new JoinGroupResponse(data, version)`), and pushed to
//! the outcome under the request's token.

use bytes::Bytes;
use protocol::ErrorCode;
use protocol::messages::{
    JoinGroupResponse, StrBytes, SyncGroupResponse, join_group_response::JoinGroupResponseMember,
};

use super::group::ClassicGroup;
use super::member::{ParkedJoin, ParkedSync};
use crate::outcome::{Outcome, RequestToken};

pub(crate) fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

pub(crate) fn opt_sb(s: Option<&str>) -> Option<StrBytes> {
    s.map(sb)
}

/// A JoinGroup response carrying only an error and a member id (all other fields at their defaults).
pub(crate) fn join_error(member_id: &str, error: ErrorCode) -> JoinGroupResponse {
    JoinGroupResponse::default()
        .with_member_id(sb(member_id))
        .with_error_code(error.code())
}

/// A successful JoinGroup response for the group's current generation.
pub(crate) fn join_success(
    group: &ClassicGroup,
    member_id: &str,
    leader: Option<&str>,
    members: Vec<JoinGroupResponseMember>,
    skip_assignment: bool,
) -> JoinGroupResponse {
    JoinGroupResponse::default()
        .with_members(members)
        .with_member_id(sb(member_id))
        .with_generation_id(group.generation_id())
        .with_protocol_name(opt_sb(group.protocol_name()))
        .with_protocol_type(opt_sb(group.protocol_type()))
        .with_leader(sb(leader.unwrap_or("")))
        .with_skip_assignment(skip_assignment)
}

/// `currentClassicGroupMembers`: every member with its instance id and its metadata for the selected
/// protocol, in member order.
pub(crate) fn current_members(group: &ClassicGroup) -> Vec<JoinGroupResponseMember> {
    let protocol = group.protocol_name().unwrap_or("");
    group
        .members()
        .map(|m| {
            JoinGroupResponseMember::default()
                .with_member_id(sb(&m.member_id))
                .with_group_instance_id(opt_sb(m.group_instance_id.as_deref()))
                .with_metadata(m.metadata(protocol).cloned().unwrap_or_default())
        })
        .collect()
}

/// Kafka's `JoinGroupResponse(data, version)`: before v7 a null protocol name is sent as "", from v7 an
/// empty one is sent as null.
pub(crate) fn shape_join(mut response: JoinGroupResponse, version: i16) -> JoinGroupResponse {
    if version < 7 && response.protocol_name.is_none() {
        response.protocol_name = Some(StrBytes::default());
    }
    if version >= 7
        && response
            .protocol_name
            .as_ref()
            .is_some_and(|n| n.is_empty())
    {
        response.protocol_name = None;
    }
    response
}

pub(crate) fn reply_join(
    out: &mut Outcome,
    token: RequestToken,
    version: i16,
    r: JoinGroupResponse,
) {
    out.reply(token, shape_join(r, version));
}

pub(crate) fn answer_parked_join(out: &mut Outcome, parked: ParkedJoin, r: JoinGroupResponse) {
    reply_join(out, parked.token, parked.version, r);
}

pub(crate) fn sync_error(error: ErrorCode) -> SyncGroupResponse {
    SyncGroupResponse::default().with_error_code(error.code())
}

pub(crate) fn sync_success(
    protocol_type: Option<&str>,
    protocol_name: Option<&str>,
    assignment: Bytes,
) -> SyncGroupResponse {
    SyncGroupResponse::default()
        .with_protocol_type(opt_sb(protocol_type))
        .with_protocol_name(opt_sb(protocol_name))
        .with_assignment(assignment)
}

pub(crate) fn answer_parked_sync(out: &mut Outcome, parked: ParkedSync, r: SyncGroupResponse) {
    out.reply(parked.token, r);
}

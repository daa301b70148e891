//! The classic apis as a broker answers them: the request checks of `KafkaApis` and
//! `GroupCoordinatorService` (SyncGroup v5 protocol fields, empty group id, session-timeout bounds, the
//! error mapping of failed operations), the group-type dispatch of `GroupMetadataManager` (a streams group
//! with the same id), and version shaping of the responses (LeaveGroup v0-2, DescribeGroups v6).

use kafka_bugs::KafkaBugs;
use protocol::messages::describe_groups_response::DescribedGroup;
use protocol::messages::leave_group_response::MemberResponse;
use protocol::messages::{
    DescribeGroupsRequest, DescribeGroupsResponse, HeartbeatRequest, HeartbeatResponse,
    JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest, LeaveGroupResponse, SyncGroupRequest,
};
use protocol::{ErrorCode, Request};

use super::ClassicGroups;
use super::config::ClassicConfig;
use super::describe::{self, ALL_GROUP_OPERATIONS, NotClassic};
use super::heartbeat::heartbeat;
use super::join::{self, JoinRequest};
use super::leave::{self, LeavingMember};
use super::member::Protocol;
use super::responses::{join_error, opt_sb, reply_join, sb, shape_join, sync_error};
use super::sync::{self, SyncRequest};
use crate::context::RequestContext;
use crate::group::OtherGroupType;
use crate::outcome::{Outcome, RequestToken, TimerTask};
use crate::timer::Timers;

/// What a classic request may touch: the classic groups with their configs and timers, and the
/// streams groups, which a JoinGroup replaces when an empty one has its id (`maybeDeleteEmptyStreamsGroup`)
/// and DescribeGroups names.
pub(crate) struct ClassicEnv<'a> {
    pub config: &'a ClassicConfig,
    /// The Kafka bugs switched on (the shard's `kafka_bugs`); the classic rules read them from `Ctx`.
    pub bugs: &'a KafkaBugs,
    pub classic: &'a mut ClassicGroups,
    pub streams: &'a mut dyn OtherGroupType,
    pub timers: &'a mut Timers<TimerTask>,
}

/// Runs one classic request (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, DescribeGroups); other
/// requests produce an empty outcome.
pub(crate) fn handle(
    env: &mut ClassicEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    request: &Request,
    now_ms: i64,
) -> Outcome {
    let mut out = Outcome::default();
    match request {
        Request::JoinGroup(r) => join_group(env, token, rctx, r, now_ms, &mut out),
        Request::SyncGroup(r) => sync_group(env, token, rctx, r, now_ms, &mut out),
        Request::Heartbeat(r) => heartbeat_request(env, token, r, now_ms, &mut out),
        Request::LeaveGroup(r) => leave_group(env, token, rctx, r, now_ms, &mut out),
        Request::DescribeGroups(r) => describe_groups(env, token, rctx, r, &mut out),
        _ => {}
    }
    out
}

fn join_group(
    env: &mut ClassicEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    r: &JoinGroupRequest,
    now_ms: i64,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    let group_id = r.group_id.as_str();
    let member_id = r.member_id.as_str();
    if group_id.is_empty() {
        reply_join(
            out,
            token,
            version,
            join_error(member_id, ErrorCode::InvalidGroupId),
        );
        return;
    }
    let config = env.config;
    if r.session_timeout_ms < config.min_session_timeout_ms
        || r.session_timeout_ms > config.max_session_timeout_ms
    {
        reply_join(
            out,
            token,
            version,
            join_error(member_id, ErrorCode::InvalidSessionTimeout),
        );
        return;
    }
    // A classic join may replace an empty streams group, never a live one.
    let conversion = if env.streams.holds(group_id) {
        if !env.streams.is_empty(group_id) {
            reply_join(
                out,
                token,
                version,
                join_error("", ErrorCode::InconsistentGroupProtocol),
            );
            return;
        }
        // `maybeDeleteEmptyStreamsGroup` cancels the group's timers as it writes its tombstones.
        let records = env.streams.tombstones(group_id);
        env.streams.cancel_timers(group_id, env.timers);
        records
    } else {
        Vec::new()
    };
    let req = JoinRequest {
        token,
        version,
        client_id: rctx.client_id.clone(),
        client_host: rctx.client_host.clone(),
        group_id: group_id.to_string(),
        member_id: member_id.to_string(),
        group_instance_id: r.group_instance_id.as_ref().map(|s| s.to_string()),
        protocol_type: r.protocol_type.to_string(),
        protocols: r
            .protocols
            .iter()
            .map(|p| Protocol {
                name: p.name.to_string(),
                metadata: p.metadata.clone(),
            })
            .collect(),
        session_timeout_ms: r.session_timeout_ms,
        // Version 0 has no rebalance timeout: the session timeout stands in for it.
        rebalance_timeout_ms: if version == 0 {
            r.session_timeout_ms
        } else {
            r.rebalance_timeout_ms
        },
    };
    let ClassicEnv {
        classic,
        timers,
        config,
        bugs,
        ..
    } = env;
    let result = classic.run(config, bugs, timers, now_ms, out, |groups, ids, ctx| {
        join::join(groups, ids, conversion, &req, ctx)
    });
    if result.is_err() {
        let response = shape_join(
            JoinGroupResponse::default().with_error_code(ErrorCode::UnknownServerError.code()),
            version,
        );
        classic.answer_failed(out, token, response);
    }
}

fn sync_group(
    env: &mut ClassicEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    r: &SyncGroupRequest,
    now_ms: i64,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    if version >= 5 && (r.protocol_type.is_none() || r.protocol_name.is_none()) {
        out.reply(token, sync_error(ErrorCode::InconsistentGroupProtocol));
        return;
    }
    let group_id = r.group_id.as_str();
    if group_id.is_empty() {
        out.reply(token, sync_error(ErrorCode::InvalidGroupId));
        return;
    }
    // Unknown groups, empty groups and groups of another type: UNKNOWN_MEMBER_ID.
    if !env.classic.contains(group_id) || env.classic.is_empty_group(group_id) {
        out.reply(token, sync_error(ErrorCode::UnknownMemberId));
        return;
    }
    let req = SyncRequest {
        token,
        version,
        group_id: group_id.to_string(),
        generation_id: r.generation_id,
        member_id: r.member_id.to_string(),
        group_instance_id: r.group_instance_id.as_ref().map(|s| s.to_string()),
        protocol_type: r.protocol_type.as_ref().map(|s| s.to_string()),
        protocol_name: r.protocol_name.as_ref().map(|s| s.to_string()),
        assignments: r
            .assignments
            .iter()
            .map(|a| (a.member_id.to_string(), a.assignment.clone()))
            .collect(),
    };
    let ClassicEnv {
        classic,
        timers,
        config,
        bugs,
        ..
    } = env;
    let result = classic.run(
        config,
        bugs,
        timers,
        now_ms,
        out,
        |groups, _, ctx| match groups.get_mut(&req.group_id) {
            Some(group) => sync::sync(group, &req, ctx),
            None => Ok(()),
        },
    );
    if result.is_err() {
        classic.answer_failed(out, token, sync_error(ErrorCode::UnknownServerError));
    }
}

fn heartbeat_request(
    env: &mut ClassicEnv<'_>,
    token: RequestToken,
    r: &HeartbeatRequest,
    now_ms: i64,
    out: &mut Outcome,
) {
    let group_id = r.group_id.as_str();
    let error = if group_id.is_empty() {
        ErrorCode::InvalidGroupId
    } else if !env.classic.contains(group_id) {
        // "Group <id> not found." (unknown, or not a classic group) surfaces as UNKNOWN_MEMBER_ID.
        ErrorCode::UnknownMemberId
    } else {
        let ClassicEnv {
            classic,
            timers,
            config,
            bugs,
            ..
        } = env;
        classic
            .run(
                config,
                bugs,
                timers,
                now_ms,
                out,
                |groups, _, ctx| match groups.get(group_id) {
                    Some(group) => heartbeat(
                        group,
                        r.member_id.as_str(),
                        r.group_instance_id.as_deref(),
                        r.generation_id,
                        ctx,
                    ),
                    None => Ok(ErrorCode::UnknownMemberId),
                },
            )
            .unwrap_or(ErrorCode::UnknownServerError)
    };
    out.reply(
        token,
        HeartbeatResponse::default().with_error_code(error.code()),
    );
}

fn leave_group(
    env: &mut ClassicEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    r: &LeaveGroupRequest,
    now_ms: i64,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    let group_id = r.group_id.as_str();
    // Versions 0-2 name a single member by id.
    let members: Vec<LeavingMember> = if version >= 3 {
        r.members
            .iter()
            .map(|m| LeavingMember {
                member_id: m.member_id.to_string(),
                group_instance_id: m.group_instance_id.as_ref().map(|s| s.to_string()),
            })
            .collect()
    } else {
        vec![LeavingMember {
            member_id: r.member_id.to_string(),
            group_instance_id: None,
        }]
    };
    let result: Result<Vec<MemberResponse>, ErrorCode> = if group_id.is_empty() {
        Err(ErrorCode::InvalidGroupId)
    } else if !env.classic.contains(group_id) {
        Ok(members
            .iter()
            .map(|m| {
                MemberResponse::default()
                    .with_member_id(sb(&m.member_id))
                    .with_group_instance_id(opt_sb(m.group_instance_id.as_deref()))
                    .with_error_code(ErrorCode::UnknownMemberId.code())
            })
            .collect())
    } else {
        let ClassicEnv {
            classic,
            timers,
            config,
            bugs,
            ..
        } = env;
        classic
            .run(
                config,
                bugs,
                timers,
                now_ms,
                out,
                |groups, _, ctx| match groups.get_mut(group_id) {
                    Some(group) => leave::leave(group, &members, ctx),
                    None => Ok(Err(ErrorCode::UnknownMemberId)),
                },
            )
            .unwrap_or(Err(ErrorCode::UnknownServerError))
    };
    out.reply(token, leave_response(result, version));
}

/// Kafka's `LeaveGroupResponse(data, version)`: before v3 only one error code, the top-level one or else
/// the single member's.
pub(crate) fn leave_response(
    result: Result<Vec<MemberResponse>, ErrorCode>,
    version: i16,
) -> LeaveGroupResponse {
    match result {
        Err(top) => LeaveGroupResponse::default().with_error_code(top.code()),
        Ok(members) if version >= 3 => LeaveGroupResponse::default().with_members(members),
        Ok(members) => {
            let error = members
                .first()
                .map(|m| m.error_code)
                .unwrap_or(ErrorCode::None.code());
            LeaveGroupResponse::default().with_error_code(error)
        }
    }
}

fn describe_groups(
    env: &mut ClassicEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    r: &DescribeGroupsRequest,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    let mut groups: Vec<DescribedGroup> = Vec::with_capacity(r.groups.len());
    for group_id in &r.groups {
        let group_id = group_id.as_str();
        let described = match env.classic.get(group_id) {
            Some(group) => match describe::describe_group(group) {
                Ok(d) => d,
                Err(_) => {
                    // An unexpected state fails the whole read: every group gets UNKNOWN_SERVER_ERROR.
                    groups = r
                        .groups
                        .iter()
                        .map(|g| {
                            DescribedGroup::default()
                                .with_group_id(g.clone())
                                .with_error_code(ErrorCode::UnknownServerError.code())
                        })
                        .collect();
                    out.reply(token, DescribeGroupsResponse::default().with_groups(groups));
                    return;
                }
            },
            None if env.streams.holds(group_id) => {
                describe::describe_missing(group_id, NotClassic::OtherType, version)
            }
            None => describe::describe_missing(group_id, NotClassic::Unknown, version),
        };
        groups.push(described);
    }
    if version >= 3 && r.include_authorized_operations {
        for g in &mut groups {
            if g.error_code == ErrorCode::None.code() {
                g.authorized_operations = ALL_GROUP_OPERATIONS;
            }
        }
    }
    out.reply(token, DescribeGroupsResponse::default().with_groups(groups));
}

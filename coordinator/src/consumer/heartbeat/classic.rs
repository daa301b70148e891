//! Classic-protocol members inside a consumer group (KIP-848's online migration): JoinGroup,
//! SyncGroup, Heartbeat and LeaveGroup served by a consumer group, as Kafka 4.4.0's
//! `GroupMetadataManager.classicGroupJoinToConsumerGroup`, `classicGroupSyncToConsumerGroup`,
//! `classicGroupHeartbeatToConsumerGroup` and `classicGroupLeaveToConsumerGroup` serve them.
//!
//! A classic member is a consumer-group member with `ClassicMemberMetadata` (its session timeout and
//! protocols). Its JoinGroup runs the consumer heartbeat's steps (member record, subscription
//! metadata, target assignment, reconciliation) with the subscription read from its embedded
//! protocol; its generation is its member epoch. It has no rebalance timer: its session timer uses
//! its classic session timeout, and join and sync timers fence it when it does not come back.
//!
//! A classic static member replacing the last consumer-protocol member downgrades the group
//! (`validateOnlineDowngradeWithReplacedMember`); the shard installs the classic group.

use std::collections::BTreeSet;

use protocol::ErrorCode;
use protocol::messages::consumer_group_heartbeat_request::TopicPartitions as OwnedTopic;
use protocol::messages::leave_group_response::MemberResponse;
use protocol::messages::{
    ConsumerGroupHeartbeatRequest, GroupId, HeartbeatRequest, JoinGroupRequest, JoinGroupResponse,
    LeaveGroupRequest, StrBytes, SyncGroupRequest, SyncGroupResponse,
};

use super::errors::{fenced_instance, unknown_instance, unknown_member};
use super::{Heartbeat, assignment, subscription};
use crate::consumer::group::ConsumerGroup;
use crate::consumer::member::{ConsumerGroupMember, MemberState, topic_order};
use crate::consumer::migration::{deserialize_subscription, serialize_assignment};
use crate::consumer::records::{
    current_assignment_record, member_subscription_record, member_tombstones,
    target_assignment_record,
};
use crate::consumer::{ConsumerEnv, ConsumerGroups, timers};
use crate::error::ApiError;
use crate::records::Record;
use crate::records::consumer::{ClassicMemberMetadata, ClassicProtocol};

/// A JoinGroup as the consumer group reads it (the request's fields the classic api already
/// checked, with Kafka's version-0 rebalance timeout).
pub struct ClassicJoin<'a> {
    pub r: &'a JoinGroupRequest,
    pub version: i16,
    pub client_id: &'a str,
    pub client_host: &'a str,
    /// The request's rebalance timeout, the session timeout at version 0 (`JoinGroupRequest`).
    pub rebalance_timeout_ms: i32,
}

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// `throwIfClassicMemberCannotJoinConsumerGroup` (KAFKA-20640).
fn migration_disabled(group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::InconsistentGroupProtocol,
        format!(
            "Cannot join the consumer group {group_id} with the classic protocol because the group migration is disabled."
        ),
    )
}

/// `ConsumerGroup.supportsClassicProtocols`: the protocol type is `consumer`, and the group is empty
/// with at least one protocol, or one of the protocols is supported by every classic member.
pub fn supports_classic_protocols(
    group: &ConsumerGroup,
    protocol_type: &str,
    names: &BTreeSet<String>,
) -> bool {
    if protocol_type != crate::classic::group::CONSUMER_PROTOCOL_TYPE {
        return false;
    }
    if group.is_empty() {
        return !names.is_empty();
    }
    let classic: Vec<&ClassicMemberMetadata> = group
        .persistent
        .members
        .values()
        .filter_map(|m| m.classic.as_ref())
        .collect();
    names.iter().any(|name| {
        classic
            .iter()
            .all(|c| c.supported_protocols.iter().any(|p| &p.name == name))
    })
}

/// `validateConsumerGroupMember`: the member by id, or by instance id (UNKNOWN_MEMBER_ID when absent,
/// FENCED_INSTANCE_ID when another member id holds it).
fn validate_consumer_group_member<'g>(
    group: &'g ConsumerGroup,
    member_id: &str,
    instance_id: Option<&str>,
) -> Result<&'g ConsumerGroupMember, ApiError> {
    match instance_id {
        None => group
            .member(member_id)
            .ok_or_else(|| unknown_member(member_id, &group.group_id)),
        Some(i) => {
            let m = group.static_member(i).ok_or_else(|| {
                ApiError::new(
                    ErrorCode::UnknownMemberId,
                    format!(
                        "Member with instance id {i} is not a member of group {}.",
                        group.group_id
                    ),
                )
            })?;
            if m.member_id != member_id {
                return Err(fenced_instance(member_id, i, &m.member_id));
            }
            Ok(m)
        }
    }
}

/// `throwIfMemberDoesNotUseClassicProtocol`.
fn throw_if_not_classic(member: &ConsumerGroupMember) -> Result<(), ApiError> {
    if member.use_classic_protocol() {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::UnknownMemberId,
        format!(
            "Member {} does not use the classic protocol.",
            member.member_id
        ),
    ))
}

/// `throwIfGenerationIdUnmatched`.
fn throw_if_generation_unmatched(
    member: &ConsumerGroupMember,
    generation: i32,
) -> Result<(), ApiError> {
    if member.member_epoch == generation {
        return Ok(());
    }
    Err(ApiError::new(
        ErrorCode::IllegalGeneration,
        format!(
            "The request generation id {generation} is not equal to the member epoch {} of member {}.",
            member.member_epoch, member.member_id
        ),
    ))
}

/// The name of the member's first classic protocol (the one its join response named).
fn first_protocol(member: &ConsumerGroupMember) -> Option<&ClassicProtocol> {
    member
        .classic
        .as_ref()
        .and_then(|c| c.supported_protocols.first())
}

/// `throwIfClassicProtocolUnmatched`.
fn throw_if_protocol_unmatched(
    member: &ConsumerGroupMember,
    protocol_type: Option<&str>,
    protocol_name: Option<&str>,
) -> Result<(), ApiError> {
    let name = first_protocol(member).map_or("", |p| p.name.as_str());
    if let Some(t) = protocol_type.filter(|t| *t != crate::classic::group::CONSUMER_PROTOCOL_TYPE) {
        return Err(ApiError::new(
            ErrorCode::InconsistentGroupProtocol,
            format!(
                "The protocol type {t} from member {} request is not equal to the group protocol type consumer.",
                member.member_id
            ),
        ));
    }
    if let Some(n) = protocol_name.filter(|n| *n != name) {
        return Err(ApiError::new(
            ErrorCode::InconsistentGroupProtocol,
            format!(
                "The protocol name {n} from member {} request is not equal to the protocol name {name} returned in the join response.",
                member.member_id
            ),
        ));
    }
    Ok(())
}

/// `ConsumerGroup.waitingOnUnreleasedPartition`: an UNRELEASED member has a target partition it does
/// not hold and another member still holds.
fn waiting_on_unreleased_partition(group: &ConsumerGroup, member: &ConsumerGroupMember) -> bool {
    if member.state != MemberState::UnreleasedPartitions {
        return false;
    }
    let Some(target) = group.persistent.target_assignment.get(&member.member_id) else {
        return false;
    };
    target.iter().any(|(topic, parts)| {
        parts.iter().any(|p| {
            !member
                .assigned
                .get(topic)
                .is_some_and(|held| held.contains_key(p))
                && group.current_partition_epoch(topic, *p) != -1
        })
    })
}

impl ConsumerGroups {
    /// `classicGroupJoinToConsumerGroup`: a JoinGroup into a non-empty consumer group. `Err` is the
    /// exception Kafka's handler throws (the service answers it with only the error code).
    pub(crate) fn classic_join(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        j: &ClassicJoin<'_>,
        now_ms: i64,
    ) -> Result<(JoinGroupResponse, Vec<Record>), ApiError> {
        let r = j.r;
        let gid = r.group_id.as_str();
        let config = &env.config.consumer;
        if !config.migration_policy.upgrade_enabled()
            && !config.migration_policy.downgrade_enabled()
        {
            return Err(migration_disabled(gid));
        }
        let instance_id = r.group_instance_id.as_deref();
        let unknown_member_id = r.member_id.is_empty();
        let generated;
        let member_id: &str = if unknown_member_id {
            generated = self.generate_member_id(gid, now_ms);
            &generated
        } else {
            r.member_id.as_str()
        };
        let effective = config.effective(env.config.group_overrides.get(gid));
        let last_image_with_new_topics = self.last_image_with_new_topics();
        let cache = &mut self.topic_hash_cache;
        let executor = &mut self.executor;
        let group: &ConsumerGroup = self
            .groups
            .get(gid)
            .ok_or_else(|| super::errors::not_consumer_group(gid))?;
        super::member::throw_if_group_is_full(
            &group.persistent,
            member_id,
            instance_id,
            config.max_size,
        )?;
        let names: BTreeSet<String> = r.protocols.iter().map(|p| p.name.to_string()).collect();
        if !supports_classic_protocols(group, r.protocol_type.as_str(), &names) {
            return Err(ApiError::new(
                ErrorCode::InconsistentGroupProtocol,
                format!("Member {member_id}'s protocols are not supported."),
            ));
        }
        // `JoinGroupRequest.requiresKnownMemberId`: a v4+ dynamic member first learns its id.
        if j.version >= 4 && unknown_member_id && instance_id.is_none() {
            let response = JoinGroupResponse::default()
                .with_member_id(sb(member_id))
                .with_error_code(ErrorCode::MemberIdRequired.code());
            return Ok((response, Vec::new()));
        }

        // The member: dynamic (created if new, no epoch check) or static (a classic join with an
        // unknown member id replaces the holder of the instance id, whatever its epoch).
        let mut records = Vec::new();
        let member: ConsumerGroupMember = match instance_id {
            None => group
                .member(member_id)
                .cloned()
                .unwrap_or_else(|| ConsumerGroupMember::new(member_id)),
            Some(i) => {
                let existing = group.static_member(i);
                if unknown_member_id {
                    match existing {
                        None => group
                            .member(member_id)
                            .cloned()
                            .unwrap_or_else(|| ConsumerGroupMember::new(member_id)),
                        Some(existing) => {
                            let mut new = existing.clone();
                            new.member_id = member_id.to_string();
                            new.member_epoch = 0;
                            new.previous_member_epoch = 0;
                            // `replaceMember`.
                            records.extend(member_tombstones(gid, &existing.member_id));
                            records.push(member_subscription_record(gid, &new));
                            let old_target = group
                                .persistent
                                .target_assignment
                                .get(&existing.member_id)
                                .cloned()
                                .unwrap_or_default();
                            records.push(target_assignment_record(gid, member_id, &old_target));
                            records.push(current_assignment_record(gid, &new));
                            new
                        }
                    }
                } else {
                    let existing = existing.ok_or_else(|| unknown_instance(i))?;
                    if existing.member_id != member_id {
                        return Err(fenced_instance(member_id, i, &existing.member_id));
                    }
                    existing.clone()
                }
            }
        };

        // A classic static member replacing the last consumer-protocol member downgrades the group
        // (`validateOnlineDowngradeWithReplacedMember`).
        let replaced: Option<String> = instance_id
            .and_then(|i| group.static_member(i))
            .filter(|existing| {
                let p = &group.persistent;
                let all_others_classic = !existing.use_classic_protocol()
                    && p.members
                        .values()
                        .filter(|m| m.member_id != existing.member_id)
                        .all(|m| m.use_classic_protocol());
                all_others_classic
                    && config.migration_policy.downgrade_enabled()
                    && p.members.len() as i64 <= i64::from(env.config.classic.max_size)
            })
            .map(|existing| existing.member_id.clone());

        // `deserializeSubscription`: every protocol carries the same subscription; the first is read.
        let metadata = r
            .protocols
            .first()
            .map(|p| p.metadata.clone())
            .unwrap_or_default();
        let subscription = deserialize_subscription(&metadata).map_err(|_| {
            ApiError::new(
                ErrorCode::InconsistentGroupProtocol,
                "Malformed embedded consumer protocol in subscription deserialization.",
            )
        })?;

        let mut updated = member.clone();
        if let Some(i) = instance_id {
            updated.instance_id = Some(i.to_string());
        }
        if let Some(rack) = subscription.rack_id.as_deref().filter(|r| !r.is_empty()) {
            updated.rack_id = Some(rack.to_string());
        }
        if j.rebalance_timeout_ms != -1 {
            updated.rebalance_timeout_ms = j.rebalance_timeout_ms;
        }
        updated.subscribed_topic_names =
            subscription.topics.iter().map(|t| t.to_string()).collect();
        updated.subscribed_topic_regex = Some(String::new());
        updated.client_id = j.client_id.to_string();
        updated.client_host = j.client_host.to_string();
        updated.classic = Some(ClassicMemberMetadata {
            session_timeout_ms: r.session_timeout_ms,
            supported_protocols: r
                .protocols
                .iter()
                .map(|p| ClassicProtocol {
                    name: p.name.to_string(),
                    metadata: p.metadata.to_vec(),
                })
                .collect(),
        });

        // The owned partitions the subscription reports (`Utils.toTopicPartitions`: topics unknown to
        // the image are left out; none for the eager protocol or a version-0 subscription).
        let owned: Vec<OwnedTopic> = subscription
            .owned_partitions
            .iter()
            .filter_map(|tp| {
                env.topics.get(tp.topic.as_str()).map(|t| {
                    OwnedTopic::default()
                        .with_topic_id(t.id)
                        .with_partitions(tp.partitions.clone())
                })
            })
            .collect();
        let synthetic = ConsumerGroupHeartbeatRequest::default()
            .with_group_id(GroupId(sb(gid)))
            .with_member_id(sb(member_id))
            .with_member_epoch(updated.member_epoch)
            .with_topic_partitions(Some(owned));
        let mut hb = Heartbeat {
            gid,
            r: &synthetic,
            member_id,
            joining: false,
            now_ms,
            records,
        };

        let names_changed =
            subscription::has_member_subscription_changed(&mut hb, &member, &updated);
        // The group is only read from here on; the regex bookkeeping needs it mutable.
        let group: &mut ConsumerGroup = self
            .groups
            .get_mut(gid)
            .ok_or_else(|| super::errors::not_consumer_group(gid))?;
        let regex_status = subscription::maybe_update_regular_expressions(
            group,
            &mut hb,
            &member,
            &updated,
            subscription::RegexScheduling {
                executor,
                last_image_with_new_topics,
                refresh_interval_ms: i64::from(config.regex_refresh_interval_ms),
            },
        )?;
        let bump = names_changed || regex_status.regex_updated();
        let (group_epoch, subscription_type) = if bump || group.has_metadata_expired(now_ms) {
            let m = subscription::update_subscription_metadata(
                group, &mut hb, bump, &member, &updated, env.topics, cache,
            );
            (m.group_epoch, m.subscription_type)
        } else {
            (
                group.persistent.group_epoch,
                group.persistent.subscription_type,
            )
        };
        if let Some(replaced_id) = replaced {
            // `convertToClassicGroup` with the joiner: reconciled first unless the assignment is stale
            // (KAFKA-20273), which makes the classic group rebalance at once.
            let group: &ConsumerGroup = group;
            let stale = group.persistent.assignment_epoch < group_epoch;
            let updated = if stale {
                updated
            } else {
                let target = group.target_of(&updated.member_id, updated.instance_id.as_deref());
                assignment::maybe_reconcile(
                    group,
                    &mut hb,
                    updated,
                    group.persistent.assignment_epoch,
                    &target,
                    bump,
                    env.topics,
                    env.timers,
                )?
            };
            hb.records.extend(
                crate::consumer::migration::group_tombstones_with_replaced_member(
                    group,
                    Some((&replaced_id, member_id)),
                ),
            );
            let reason = stale.then(|| {
                format!("Downgrade group {gid} from consumer to classic with stale assignment.")
            });
            self.downgrades
                .push(crate::consumer::migration::downgraded_group_with_joiner(
                    group,
                    &[],
                    Some(&updated),
                    env.topics,
                    reason,
                ));
            timers::cancel_join(env.timers, gid, member_id);
            let response = JoinGroupResponse::default()
                .with_member_id(sb(member_id))
                .with_generation_id(updated.member_epoch)
                .with_protocol_type(Some(sb(crate::classic::group::CONSUMER_PROTOCOL_TYPE)))
                .with_protocol_name(first_protocol(&updated).map(|p| sb(&p.name)))
                .with_leader(StrBytes::default());
            return Ok((response, hb.records));
        }
        let inputs = assignment::TargetInputs {
            group_epoch,
            subscription_type,
            assignment_interval_ms: effective.assignment_interval_ms,
            assignors: &config.assignors,
            topics: env.topics,
        };
        let group: &ConsumerGroup = group;
        let (target_epoch, target) =
            assignment::maybe_update_target_assignment(group, &mut hb, &member, &updated, inputs)?;
        let updated = assignment::maybe_reconcile(
            group,
            &mut hb,
            updated,
            target_epoch,
            &target,
            bump,
            env.topics,
            env.timers,
        )?;

        // On commit: the join timer goes, the session (classic timeout) and sync timers start.
        timers::cancel_join(env.timers, gid, member_id);
        timers::schedule_session(
            env.timers,
            gid,
            member_id,
            now_ms + i64::from(r.session_timeout_ms),
        );
        timers::schedule_sync(
            env.timers,
            gid,
            member_id,
            now_ms + i64::from(j.rebalance_timeout_ms),
        );
        let response = JoinGroupResponse::default()
            .with_member_id(sb(member_id))
            .with_generation_id(updated.member_epoch)
            .with_protocol_type(Some(sb(crate::classic::group::CONSUMER_PROTOCOL_TYPE)))
            .with_protocol_name(first_protocol(&updated).map(|p| sb(&p.name)))
            .with_leader(StrBytes::default());
        Ok((response, hb.records))
    }

    /// `classicGroupSyncToConsumerGroup`: no records; the assignment is the member's assigned
    /// partitions in the ConsumerProtocol version of its first protocol.
    pub(crate) fn classic_sync(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        r: &SyncGroupRequest,
        now_ms: i64,
    ) -> Result<SyncGroupResponse, ApiError> {
        let gid = r.group_id.as_str();
        let group = self
            .groups
            .get(gid)
            .filter(|g| !g.is_empty())
            .ok_or_else(|| ApiError::bare(ErrorCode::UnknownMemberId))?;
        let member = validate_consumer_group_member(
            group,
            r.member_id.as_str(),
            r.group_instance_id.as_deref(),
        )?;
        throw_if_not_classic(member)?;
        throw_if_generation_unmatched(member, r.generation_id)?;
        throw_if_protocol_unmatched(
            member,
            r.protocol_type.as_deref(),
            r.protocol_name.as_deref(),
        )?;
        // `throwIfRebalanceInProgress` (KAFKA-20272: against the assignment epoch).
        if group.persistent.assignment_epoch > member.member_epoch
            && member.state != MemberState::UnrevokedPartitions
        {
            timers::schedule_join_if_absent(
                env.timers,
                gid,
                &member.member_id,
                now_ms + i64::from(member.rebalance_timeout_ms),
            );
            return Err(ApiError::new(
                ErrorCode::RebalanceInProgress,
                format!(
                    "A new rebalance is triggered in group {gid} and member {} should rejoin to catch up.",
                    member.member_id
                ),
            ));
        }
        timers::cancel_sync(env.timers, gid, &member.member_id);
        let session = member.classic.as_ref().map_or(0, |c| c.session_timeout_ms);
        timers::schedule_session(
            env.timers,
            gid,
            &member.member_id,
            now_ms + i64::from(session),
        );
        // `prepareAssignment`.
        let version = first_protocol(member).map_or(0, |p| {
            crate::consumer::migration::subscription_version(&p.metadata)
        });
        let assigned: Vec<(String, Vec<i32>)> = topic_order(&member.assigned)
            .into_iter()
            .filter_map(|t| {
                env.topics.get_by_id(&t).map(|meta| {
                    (
                        meta.name.clone(),
                        member.assigned[&t].keys().copied().collect(),
                    )
                })
            })
            .collect();
        Ok(SyncGroupResponse::default()
            .with_protocol_type(r.protocol_type.clone())
            .with_protocol_name(r.protocol_name.clone())
            .with_assignment(serialize_assignment(version, &assigned)))
    }

    /// `classicGroupHeartbeatToConsumerGroup`: the session is renewed; REBALANCE_IN_PROGRESS (with a
    /// join timer if none) while the member is behind the target, revoking, or waiting for nothing.
    pub(crate) fn classic_heartbeat(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        r: &HeartbeatRequest,
        now_ms: i64,
    ) -> Result<ErrorCode, ApiError> {
        let gid = r.group_id.as_str();
        let group = self.groups.get(gid).ok_or_else(|| {
            ApiError::new(
                ErrorCode::UnknownMemberId,
                format!("Group {gid} not found."),
            )
        })?;
        let member = validate_consumer_group_member(
            group,
            r.member_id.as_str(),
            r.group_instance_id.as_deref(),
        )?;
        throw_if_not_classic(member)?;
        throw_if_generation_unmatched(member, r.generation_id)?;
        let session = member.classic.as_ref().map_or(0, |c| c.session_timeout_ms);
        timers::schedule_session(
            env.timers,
            gid,
            &member.member_id,
            now_ms + i64::from(session),
        );
        let rejoin = member.member_epoch < group.persistent.assignment_epoch
            || member.state == MemberState::UnrevokedPartitions
            || (member.state == MemberState::UnreleasedPartitions
                && !waiting_on_unreleased_partition(group, member));
        if !rejoin {
            return Ok(ErrorCode::None);
        }
        timers::schedule_join_if_absent(
            env.timers,
            gid,
            &member.member_id,
            now_ms + i64::from(member.rebalance_timeout_ms),
        );
        Ok(ErrorCode::RebalanceInProgress)
    }

    /// `classicGroupLeaveToConsumerGroup` (KAFKA-18188): every member named (classic or not) is
    /// checked; the valid ones are fenced together. Returns one entry per request member and the
    /// records.
    pub(crate) fn classic_leave(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        r: &LeaveGroupRequest,
        members: &[(String, Option<String>)],
    ) -> (Vec<MemberResponse>, Vec<Record>) {
        let gid = r.group_id.as_str();
        let Some(group) = self.groups.get(gid) else {
            return (Vec::new(), Vec::new());
        };
        let mut responses = Vec::new();
        let mut valid: Vec<String> = Vec::new();
        for (member_id, instance_id) in members {
            let found = match instance_id.as_deref() {
                None => group
                    .member(member_id)
                    .ok_or_else(|| unknown_member(member_id, gid)),
                Some(i) => group
                    .static_member(i)
                    .ok_or_else(|| unknown_instance(i))
                    .and_then(|m| {
                        if !member_id.is_empty() && m.member_id != *member_id {
                            Err(fenced_instance(member_id, i, &m.member_id))
                        } else {
                            Ok(m)
                        }
                    }),
            };
            let mut entry = MemberResponse::default()
                .with_member_id(sb(member_id))
                .with_group_instance_id(instance_id.as_deref().map(sb));
            match found {
                Ok(m) => {
                    if !valid.contains(&m.member_id) {
                        valid.push(m.member_id.clone());
                    }
                }
                Err(e) => entry = entry.with_error_code(e.code.code()),
            }
            responses.push(entry);
        }
        let ids: Vec<&str> = valid.iter().map(String::as_str).collect();
        let (records, downgrade) = super::leave::fence_members_or_downgrade(
            group,
            &ids,
            env.topics,
            &mut self.topic_hash_cache,
            env.timers,
            super::leave::DowngradePolicy::of(env.config),
        );
        self.downgrades.extend(downgrade);
        (responses, records)
    }
}

/// Whether a classic api request goes to the consumer group of its id (`GroupMetadataManager`'s
/// dispatch by group type), once the service checks the classic path makes first have passed: a
/// JoinGroup with a valid session timeout into a non-empty consumer group, a complete SyncGroup to a
/// non-empty one, a Heartbeat or LeaveGroup to any.
pub(crate) fn serves(
    groups: &ConsumerGroups,
    classic: &crate::classic::ClassicConfig,
    ctx: &crate::context::RequestContext,
    request: &protocol::Request,
) -> bool {
    use protocol::Request;
    let non_empty = |g: &str| groups.contains(g) && !groups.is_empty_group(g);
    match request {
        Request::JoinGroup(r) => {
            non_empty(r.group_id.as_str())
                && r.session_timeout_ms >= classic.min_session_timeout_ms
                && r.session_timeout_ms <= classic.max_session_timeout_ms
        }
        Request::SyncGroup(r) => {
            !(ctx.api_version >= 5 && (r.protocol_type.is_none() || r.protocol_name.is_none()))
                && non_empty(r.group_id.as_str())
        }
        Request::Heartbeat(r) => groups.contains(r.group_id.as_str()),
        Request::LeaveGroup(r) => groups.contains(r.group_id.as_str()),
        _ => false,
    }
}

/// Runs a classic api request [`serves`] gave to the consumer group, with the responses shaped for
/// the request's version as the classic apis shape them.
pub(crate) fn handle(
    groups: &mut ConsumerGroups,
    env: &mut ConsumerEnv<'_>,
    token: crate::outcome::RequestToken,
    ctx: &crate::context::RequestContext,
    request: &protocol::Request,
    now_ms: i64,
) -> crate::outcome::Outcome {
    use protocol::Request;
    use protocol::messages::{HeartbeatResponse, LeaveGroupResponse};
    let mut out = crate::outcome::Outcome::default();
    let version = ctx.api_version;
    match request {
        Request::JoinGroup(r) => {
            let j = ClassicJoin {
                r,
                version,
                client_id: &ctx.client_id,
                client_host: &ctx.client_host,
                rebalance_timeout_ms: if version == 0 {
                    r.session_timeout_ms
                } else {
                    r.rebalance_timeout_ms
                },
            };
            let (response, records) = match groups.classic_join(env, &j, now_ms) {
                Ok(ok) => ok,
                Err(e) => (
                    JoinGroupResponse::default().with_error_code(e.code.code()),
                    Vec::new(),
                ),
            };
            out.records = records;
            out.reply(
                token,
                crate::classic::responses::shape_join(response, version),
            );
        }
        Request::SyncGroup(r) => {
            let response = groups
                .classic_sync(env, r, now_ms)
                .unwrap_or_else(|e| SyncGroupResponse::default().with_error_code(e.code.code()));
            out.reply(token, response);
        }
        Request::Heartbeat(r) => {
            let code = groups
                .classic_heartbeat(env, r, now_ms)
                .unwrap_or_else(|e| e.code);
            out.reply(
                token,
                HeartbeatResponse::default().with_error_code(code.code()),
            );
        }
        Request::LeaveGroup(r) => {
            // Versions 0-2 name a single member by id.
            let members: Vec<(String, Option<String>)> = if version >= 3 {
                r.members
                    .iter()
                    .map(|m| {
                        (
                            m.member_id.to_string(),
                            m.group_instance_id.as_ref().map(|s| s.to_string()),
                        )
                    })
                    .collect()
            } else {
                vec![(r.member_id.to_string(), None)]
            };
            let (responses, records) = groups.classic_leave(env, r, &members);
            out.records = records;
            let response: LeaveGroupResponse =
                crate::classic::api::leave_response(Ok(responses), version);
            out.reply(token, response);
        }
        _ => {}
    }
    out
}

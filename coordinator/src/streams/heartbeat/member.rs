//! The member of a heartbeat: found or created, its epoch checked, its static identity resolved, and
//! its metadata updated from the request (Kafka's `getOrMaybeCreateDynamicStreamsGroupMember`,
//! `getOrMaybeCreateStaticStreamsGroupMember`, `throwIfStreamsGroupMemberEpochIsInvalid`,
//! `StreamsGroupMember.Builder.maybeUpdate*`, `hasStreamsMemberMetadataChanged`).

use std::borrow::Cow;
use std::collections::BTreeMap;

use kafka_bugs::{KafkaBug, KafkaBugs};
use protocol::ErrorCode;
use protocol::messages::StreamsGroupHeartbeatRequest;
use protocol::messages::streams_group_heartbeat_request as req;

use super::Heartbeat;
use super::errors::{fenced_instance, unknown_instance, unknown_member};
use super::records::{current_assignment_record, member_record, member_tombstones};
use crate::error::ApiError;
use crate::records::streams::Endpoint;
use crate::streams::group::Persistent;
use crate::streams::member::StreamsGroupMember;
use crate::streams::target::target_member_record;

/// Whether two possibly borrowed members are the same object or equal.
pub(super) fn same_member(a: &StreamsGroupMember, b: &StreamsGroupMember) -> bool {
    std::ptr::eq(a, b) || a == b
}

/// `throwIfStreamsGroupIsFull`: a join beyond `group.streams.max.size`, unless it is a known
/// member or a static member's instance id the group holds.
pub(super) fn throw_if_streams_group_is_full(
    p: &Persistent,
    r: &StreamsGroupHeartbeatRequest,
    max: i32,
    bugs: &KafkaBugs,
) -> Result<(), ApiError> {
    let member_id = r.member_id.as_str();
    let has_static = r
        .instance_id
        .as_deref()
        .is_some_and(|i| p.static_members.contains_key(i));
    let full = p.members.len() >= max as usize;
    // 4.1 to 4.3 refused every join of a full group, a member rejoining under its own id included;
    // 4.4 exempts the group's own members and static instances (KAFKA-20169, apache/kafka#22245).
    if bugs.on(KafkaBug::Kafka20169) && full {
        return Err(ApiError::new(
            ErrorCode::GroupMaxSizeReached,
            format!("The streams group has reached its maximum capacity of {max} members."),
        ));
    }
    if !has_static && full && (member_id.is_empty() || !p.members.contains_key(member_id)) {
        return Err(ApiError::new(
            ErrorCode::GroupMaxSizeReached,
            format!("The streams group has reached its maximum capacity of {max} members."),
        ));
    }
    Ok(())
}

/// `throwIfStreamsGroupMemberEpochIsInvalid`.
fn throw_if_member_epoch_is_invalid(
    member: &StreamsGroupMember,
    received: i32,
    r: &StreamsGroupHeartbeatRequest,
    bugs: &KafkaBugs,
) -> Result<(), ApiError> {
    // Epoch 0 is a rejoin, accepted whatever the member's epoch (KAFKA-19233, apache/kafka#21312).
    // Before that fix, 4.1 let it fall into the smaller-epoch test below, so a member whose previous
    // epoch is not 0 was fenced on every rejoin until its session expired.
    if received == 0 && !bugs.on(KafkaBug::Kafka19233) {
        return Ok(());
    }
    if received > member.member_epoch {
        return Err(ApiError::new(
            ErrorCode::FencedMemberEpoch,
            format!(
                "The streams group member has a greater member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                member.member_epoch
            ),
        ));
    }
    if received < member.member_epoch {
        let contained = |owned: &Option<Vec<req::TaskIds>>, check: &dyn Fn(&str, i32) -> bool| {
            owned.as_ref().is_some_and(|list| {
                list.iter().all(|t| {
                    t.partitions
                        .iter()
                        .all(|p| check(t.subtopology_id.as_str(), *p))
                })
            })
        };
        let a = &member.assigned;
        let ok = received == member.previous_member_epoch
            && contained(&r.active_tasks, &|s, p| {
                a.active.get(s).is_some_and(|m| m.contains_key(&p))
            })
            && contained(&r.standby_tasks, &|s, p| {
                a.standby.get(s).is_some_and(|m| m.contains(&p))
            })
            && contained(&r.warmup_tasks, &|s, p| {
                a.warmup.get(s).is_some_and(|m| m.contains(&p))
            });
        // Kafka looks the subtopology up before the partitions, so an owned subtopology with no
        // partitions that the member is not assigned also fails.
        let subtopologies_known = |owned: &Option<Vec<req::TaskIds>>,
                                   known: &dyn Fn(&str) -> bool| {
            owned
                .as_ref()
                .is_some_and(|l| l.iter().all(|t| known(t.subtopology_id.as_str())))
        };
        let ok = ok
            && subtopologies_known(&r.active_tasks, &|s| a.active.contains_key(s))
            && subtopologies_known(&r.standby_tasks, &|s| a.standby.contains_key(s))
            && subtopologies_known(&r.warmup_tasks, &|s| a.warmup.contains_key(s));
        if !ok {
            return Err(ApiError::new(
                ErrorCode::FencedMemberEpoch,
                format!(
                    "The streams group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                    member.member_epoch
                ),
            ));
        }
    }
    Ok(())
}

/// `getOrMaybeCreateDynamicStreamsGroupMember`: a joining member is created with defaults if the
/// group does not know it; any other heartbeat needs a known member with a valid epoch.
pub(super) fn get_or_maybe_create_dynamic_member<'p>(
    p: &'p Persistent,
    hb: &Heartbeat<'_>,
) -> Result<Cow<'p, StreamsGroupMember>, ApiError> {
    let member_id = hb.r.member_id.as_str();
    let m = if hb.joining {
        match p.members.get(member_id) {
            Some(m) => Cow::Borrowed(m),
            None => Cow::Owned(StreamsGroupMember::with_defaults(member_id)),
        }
    } else {
        Cow::Borrowed(
            p.members
                .get(member_id)
                .ok_or_else(|| unknown_member(member_id, hb.gid))?,
        )
    };
    throw_if_member_epoch_is_invalid(&m, hb.r.member_epoch, hb.r, hb.bugs)?;
    Ok(m)
}

/// A static member as the heartbeat found it, and the static member it replaces, if another.
pub(super) type StaticMember<'p> = (Cow<'p, StreamsGroupMember>, Option<&'p StreamsGroupMember>);

/// `getOrMaybeCreateStaticStreamsGroupMember`: a join with an instance id takes over the
/// departed (epoch -2) member holding it (`replaceStreamsMember`, whose records go to `hb`), or
/// is refused while that member is still in the group; a heartbeat must come from the member
/// holding the instance id.
pub(super) fn get_or_maybe_create_static_member<'p>(
    p: &'p Persistent,
    hb: &mut Heartbeat<'_>,
    instance_id: &str,
) -> Result<StaticMember<'p>, ApiError> {
    let (gid, member_id) = (hb.gid, hb.r.member_id.as_str());
    let old = p
        .static_members
        .get(instance_id)
        .and_then(|id| p.members.get(id));
    let replaced = old.filter(|o| o.member_id != member_id);
    if !hb.joining {
        let old = old.ok_or_else(|| unknown_instance(instance_id))?;
        if old.member_id != member_id {
            return Err(fenced_instance(member_id, instance_id, &old.member_id));
        }
        throw_if_member_epoch_is_invalid(old, hb.r.member_epoch, hb.r, hb.bugs)?;
        return Ok((Cow::Borrowed(old), replaced));
    }
    let Some(old) = old else {
        let m = match p.members.get(member_id) {
            Some(m) => Cow::Borrowed(m),
            None => Cow::Owned(StreamsGroupMember::with_defaults(member_id)),
        };
        return Ok((m, replaced));
    };
    if old.member_epoch != -2 {
        return Err(ApiError::new(
            ErrorCode::UnreleasedInstanceId,
            format!(
                "Static member {member_id} with instance id {instance_id} cannot join the group because the instance id is owned by {} member.",
                old.member_id
            ),
        ));
    }
    let mut new = old.clone();
    new.member_id = member_id.to_string();
    new.member_epoch = 0;
    new.previous_member_epoch = 0;
    // replaceStreamsMember.
    hb.records.extend(member_tombstones(gid, &old.member_id));
    hb.records.push(member_record(gid, &new));
    let old_target = p
        .target_assignment
        .get(&old.member_id)
        .cloned()
        .unwrap_or_default();
    hb.records
        .push(target_member_record(gid, member_id, &old_target));
    hb.records.push(current_assignment_record(gid, &new));
    Ok((Cow::Owned(new), replaced))
}

/// `new StreamsGroupMember.Builder(member).maybeUpdate*(...)`: the member with what the request
/// changes (still borrowed when nothing does).
pub(super) fn updated_member<'p>(
    member: &Cow<'p, StreamsGroupMember>,
    hb: &Heartbeat<'_>,
    client_id: &str,
    client_host: &str,
) -> Result<Cow<'p, StreamsGroupMember>, ApiError> {
    let r = hb.r;
    let mut updated: Cow<'p, StreamsGroupMember> = member.clone();
    let client_tags = match &r.client_tags {
        Some(list) => {
            let mut m = BTreeMap::new();
            for kv in list {
                // Collectors.toMap throws on a duplicate key: an unexpected exception.
                if m.insert(kv.key.to_string(), kv.value.to_string()).is_some() {
                    return Err(ApiError::bare(ErrorCode::UnknownServerError));
                }
            }
            Some(m)
        }
        None => None,
    };
    let endpoint = r.user_endpoint.as_ref().map(|e| Endpoint {
        host: e.host.to_string(),
        port: e.port,
    });
    let u = &*updated;
    let changes = r
        .instance_id
        .as_deref()
        .is_some_and(|i| u.instance_id.as_deref() != Some(i))
        || r.rack_id
            .as_deref()
            .is_some_and(|v| u.rack_id.as_deref() != Some(v))
        || (r.rebalance_timeout_ms != -1 && u.rebalance_timeout_ms != r.rebalance_timeout_ms)
        || r.topology
            .as_ref()
            .is_some_and(|t| u.topology_epoch != t.epoch)
        || u.client_id != client_id
        || u.client_host != client_host
        || r.process_id.as_deref().is_some_and(|v| u.process_id != v)
        || client_tags.as_ref().is_some_and(|t| *t != u.client_tags)
        || if hb.joining {
            u.user_endpoint != endpoint
        } else {
            endpoint.is_some() && u.user_endpoint != endpoint
        };
    if changes {
        let m = updated.to_mut();
        if let Some(i) = r.instance_id.as_deref() {
            m.instance_id = Some(i.to_string());
        }
        if let Some(v) = r.rack_id.as_deref() {
            m.rack_id = Some(v.to_string());
        }
        if r.rebalance_timeout_ms != -1 {
            m.rebalance_timeout_ms = r.rebalance_timeout_ms;
        }
        if let Some(t) = &r.topology {
            m.topology_epoch = t.epoch;
        }
        m.client_id = client_id.to_string();
        m.client_host = client_host.to_string();
        if let Some(v) = r.process_id.as_deref() {
            m.process_id = v.to_string();
        }
        if let Some(t) = client_tags {
            m.client_tags = t;
        }
        if hb.joining || endpoint.is_some() {
            m.user_endpoint = endpoint;
        }
    }
    Ok(updated)
}

/// `hasStreamsMemberMetadataChanged`: writes the member's record if it changed and says whether
/// that bumps the group epoch (always for a dynamic member; for a static one only a change that
/// matters to the assignment, 4.4).
pub(super) fn has_streams_member_metadata_changed(
    hb: &mut Heartbeat<'_>,
    member: &StreamsGroupMember,
    updated: &StreamsGroupMember,
) -> bool {
    if same_member(updated, member) {
        return false;
    }
    hb.records.push(member_record(hb.gid, updated));
    match hb.r.instance_id {
        None => true,
        Some(_) => member.has_epoch_relevant_change(updated),
    }
}

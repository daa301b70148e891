//! The member of a heartbeat: the group's size check, the member found or created (dynamic or
//! static, a departed static member replaced), its epoch checked, and its updated copy
//! (`throwIfConsumerGroupIsFull`, `getOrMaybeSubscribeDynamicConsumerGroupMember`,
//! `getOrMaybeSubscribeStaticConsumerGroupMember`, `replaceMember`,
//! `throwIfConsumerGroupMemberEpochIsInvalid`, `ConsumerGroupMember.Builder.maybeUpdate*`).

use std::borrow::Cow;

use protocol::ErrorCode;
use protocol::messages::consumer_group_heartbeat_request::TopicPartitions as OwnedTopic;

use super::Heartbeat;
use super::errors::{fenced_instance, unknown_instance, unknown_member, unreleased_instance};
use crate::consumer::group::Persistent;
use crate::consumer::member::ConsumerGroupMember;
use crate::consumer::records::{
    current_assignment_record, member_subscription_record, member_tombstones,
    target_assignment_record,
};
use crate::error::ApiError;

/// `throwIfConsumerGroupIsFull`: a known instance id is never refused (KAFKA-20601); otherwise a
/// full group refuses an empty or unknown member id, whatever the epoch.
pub(super) fn throw_if_group_is_full(
    p: &Persistent,
    member_id: &str,
    instance_id: Option<&str>,
    max_size: i32,
) -> Result<(), ApiError> {
    if instance_id.is_some_and(|i| p.static_members.contains_key(i)) {
        return Ok(());
    }
    if p.members.len() >= max_size as usize
        && (member_id.is_empty() || !p.members.contains_key(member_id))
    {
        return Err(ApiError::new(
            ErrorCode::GroupMaxSizeReached,
            format!("The consumer group has reached its maximum capacity of {max_size} members."),
        ));
    }
    Ok(())
}

/// `isSubset`: every owned partition is among the member's assigned ones (pending revocations do not
/// count); a null list is not a subset.
fn is_subset(owned: Option<&[OwnedTopic]>, member: &ConsumerGroupMember) -> bool {
    let Some(owned) = owned else {
        return false;
    };
    owned.iter().all(|t| {
        t.partitions.iter().all(|p| {
            member
                .assigned
                .get(&t.topic_id)
                .is_some_and(|parts| parts.contains_key(p))
        })
    })
}

/// `throwIfConsumerGroupMemberEpochIsInvalid`: epoch 0 always rejoins (KAFKA-19233); a greater epoch
/// is fenced; a smaller one is accepted only as the previous epoch with owned partitions the member
/// still holds (its last response was lost).
fn throw_if_member_epoch_is_invalid(
    member: &ConsumerGroupMember,
    received: i32,
    owned: Option<&[OwnedTopic]>,
) -> Result<(), ApiError> {
    if received == 0 {
        return Ok(());
    }
    if received > member.member_epoch {
        return Err(ApiError::new(
            ErrorCode::FencedMemberEpoch,
            format!(
                "The consumer group member has a greater member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                member.member_epoch
            ),
        ));
    }
    if received < member.member_epoch
        && (received != member.previous_member_epoch || !is_subset(owned, member))
    {
        return Err(ApiError::new(
            ErrorCode::FencedMemberEpoch,
            format!(
                "The consumer group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                member.member_epoch
            ),
        ));
    }
    Ok(())
}

/// `getOrMaybeSubscribeDynamicConsumerGroupMember`.
pub(super) fn get_or_maybe_subscribe_dynamic<'p>(
    p: &'p Persistent,
    hb: &Heartbeat<'_>,
) -> Result<Cow<'p, ConsumerGroupMember>, ApiError> {
    let member = match p.members.get(hb.member_id) {
        Some(m) => Cow::Borrowed(m),
        None if hb.joining => Cow::Owned(ConsumerGroupMember::new(hb.member_id)),
        None => return Err(unknown_member(hb.member_id, hb.gid)),
    };
    throw_if_member_epoch_is_invalid(&member, hb.r.member_epoch, hb.r.topic_partitions.as_deref())?;
    Ok(member)
}

/// `getOrMaybeSubscribeStaticConsumerGroupMember`: a join with an instance id held by a member that
/// left with epoch -2 replaces it (`replaceMember`, whose records go to `hb`); held by a member
/// still in the group, it is refused (UNRELEASED_INSTANCE_ID, even under its own member id); any other
/// heartbeat must come from the member holding the instance id.
pub(super) fn get_or_maybe_subscribe_static<'p>(
    p: &'p Persistent,
    hb: &mut Heartbeat<'_>,
    instance_id: &str,
) -> Result<Cow<'p, ConsumerGroupMember>, ApiError> {
    let member_id = hb.member_id;
    let existing = p
        .static_members
        .get(instance_id)
        .and_then(|id| p.members.get(id));
    if !hb.joining {
        let existing = existing.ok_or_else(|| unknown_instance(instance_id))?;
        if existing.member_id != member_id {
            return Err(fenced_instance(member_id, instance_id, &existing.member_id));
        }
        throw_if_member_epoch_is_invalid(
            existing,
            hb.r.member_epoch,
            hb.r.topic_partitions.as_deref(),
        )?;
        return Ok(Cow::Borrowed(existing));
    }
    let Some(existing) = existing else {
        return Ok(match p.members.get(member_id) {
            Some(m) => Cow::Borrowed(m),
            None => Cow::Owned(ConsumerGroupMember::new(member_id)),
        });
    };
    // Both use the consumer protocol: the instance id must have been released with epoch -2.
    if !existing.use_classic_protocol() && existing.member_epoch != -2 {
        return Err(unreleased_instance(
            member_id,
            instance_id,
            &existing.member_id,
        ));
    }
    let mut new = existing.clone();
    new.member_id = member_id.to_string();
    new.member_epoch = 0;
    new.previous_member_epoch = 0;
    // replaceMember: the old member's tombstones (its timers are left to find no member), then the
    // new member with the old one's target.
    hb.records
        .extend(member_tombstones(hb.gid, &existing.member_id));
    hb.records.push(member_subscription_record(hb.gid, &new));
    let old_target = p
        .target_assignment
        .get(&existing.member_id)
        .cloned()
        .unwrap_or_default();
    hb.records
        .push(target_assignment_record(hb.gid, member_id, &old_target));
    hb.records.push(current_assignment_record(hb.gid, &new));
    Ok(Cow::Owned(new))
}

/// `new ConsumerGroupMember.Builder(member).maybeUpdate*(...)`: the fields the request carries
/// (null or -1 means unchanged), the client id and host of the request, classic metadata cleared.
pub(super) fn updated_member(
    member: &ConsumerGroupMember,
    hb: &Heartbeat<'_>,
    client_id: &str,
    client_host: &str,
) -> ConsumerGroupMember {
    let r = hb.r;
    let mut u = member.clone();
    if let Some(i) = r.instance_id.as_deref() {
        u.instance_id = Some(i.to_string());
    }
    if let Some(v) = r.rack_id.as_deref() {
        u.rack_id = Some(v.to_string());
    }
    if r.rebalance_timeout_ms != -1 {
        u.rebalance_timeout_ms = r.rebalance_timeout_ms;
    }
    if let Some(a) = r.server_assignor.as_deref() {
        u.server_assignor = Some(a.to_string());
    }
    if let Some(names) = &r.subscribed_topic_names {
        u.subscribed_topic_names = names.iter().map(|n| n.as_str().to_string()).collect();
    }
    if let Some(regex) = r.subscribed_topic_regex.as_deref() {
        u.subscribed_topic_regex = Some(regex.to_string());
    }
    u.client_id = client_id.to_string();
    u.client_host = client_host.to_string();
    u.classic = None;
    u
}

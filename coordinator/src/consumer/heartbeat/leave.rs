//! Leaving and fencing (Kafka's `consumerGroupLeave`, `consumerGroupStaticMemberGroupLeave` and
//! `consumerGroupFenceMembers`).

use protocol::messages::{ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, StrBytes};

use super::errors::{fenced_instance, unknown_instance, unknown_member};
use crate::consumer::group::{ConsumerGroup, change_regex_count, update_subscribed_topic_names};
use crate::consumer::member::PartitionEpochs;
use crate::consumer::records::{
    current_assignment_record, group_epoch_record, member_tombstones, regex_tombstone,
    target_metadata_record,
};
use crate::consumer::timers;
use crate::error::ApiError;
use crate::outcome::TimerTask;
use crate::records::Record;
use crate::streams::hash::{TopicHashCache, group_hash_cached};
use crate::timer::Timers;
use crate::topics::TopicsImage;

/// `consumerGroupFenceMembers` past its downgrade branch ([`fence_members_or_downgrade`]): each
/// member's tombstones, the tombstones of the regexes nobody else uses, one
/// group-epoch bump with the hash recomputed without them,
/// and, when every member goes, the assignment epoch moved along with timestamp 0 (KAFKA-20442); their
/// timers are cancelled. The target is not recomputed here.
pub fn fence_members(
    group: &ConsumerGroup,
    member_ids: &[&str],
    topics: &TopicsImage,
    cache: &mut TopicHashCache,
    timers: &mut Timers<TimerTask>,
) -> Vec<Record> {
    if member_ids.is_empty() {
        return Vec::new();
    }
    let gid = group.group_id.as_str();
    let p = &group.persistent;
    let mut records = Vec::new();
    let mut names = p.subscribed_topic_names.clone();
    for id in member_ids {
        records.extend(member_tombstones(gid, id));
        if let Some(m) = p.members.get(*id) {
            update_subscribed_topic_names(&mut names, Some(m), None);
        }
    }
    // `maybeDeleteResolvedRegularExpressions`: a regex whose every member leaves is tombstoned (in
    // the order of Kafka's `HashMap` of counts), and its topics leave the subscription
    // (`computeSubscribedTopicNamesWithoutDeletedMembers`).
    let mut counts: std::collections::BTreeMap<&str, i32> = Default::default();
    let mut first_seen: Vec<&str> = Vec::new();
    for id in member_ids {
        if let Some(r) = p.members.get(*id).and_then(|m| m.regex()) {
            let c = counts.entry(r).or_insert(0);
            if *c == 0 {
                first_seen.push(r);
            }
            *c += 1;
        }
    }
    // `compute` puts a new key at the front of its bucket.
    let mut order = crate::java::JavaHashMapOrder::new();
    for r in &first_seen {
        order.compute_if_absent(r);
    }
    let ordered: Vec<&str> = order
        .iteration_order()
        .into_iter()
        .map(|i| first_seen[i as usize])
        .collect();
    for regex in ordered {
        if group.num_subscribed_members(regex) == counts[regex] {
            records.push(regex_tombstone(gid, regex));
            if let Some(r) = p.resolved_regexes.get(regex) {
                for t in &r.topics {
                    change_regex_count(&mut names, t, -1);
                }
            }
        }
    }
    let hash = group_hash_cached(names.keys(), topics, cache);
    let epoch = p.group_epoch + 1;
    records.push(group_epoch_record(gid, epoch, hash));
    if p.members.len() == member_ids.len() {
        records.push(target_metadata_record(gid, epoch, 0));
    }
    for id in member_ids {
        timers::cancel_member(timers, gid, id);
    }
    records
}

/// What the downgrade checks read of the shard's config.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DowngradePolicy {
    /// `group.consumer.migration.policy` allows downgrades.
    pub enabled: bool,
    /// `group.max.size` (classic groups).
    pub classic_max_size: i32,
}

impl DowngradePolicy {
    pub fn of(config: &crate::config::ShardConfig) -> Self {
        Self {
            enabled: config.consumer.migration_policy.downgrade_enabled(),
            classic_max_size: config.classic.max_size,
        }
    }
}

/// `validateOnlineDowngradeWithFencedMembers`: every member that stays uses the classic protocol, at
/// least one stays, the policy allows downgrades and the rest fits in a classic group.
pub fn validate_online_downgrade_with_fenced_members(
    group: &ConsumerGroup,
    fenced: &[&str],
    policy: DowngradePolicy,
) -> bool {
    let p = &group.persistent;
    let staying: Vec<_> = p
        .members
        .values()
        .filter(|m| !fenced.contains(&m.member_id.as_str()))
        .collect();
    let all_classic = staying.iter().all(|m| m.use_classic_protocol());
    let remaining = staying.len();
    all_classic
        && remaining > 0
        && policy.enabled
        && remaining as i64 <= i64::from(policy.classic_max_size)
}

/// `consumerGroupFenceMembers`: the downgrade when the fenced members are the last consumer-protocol
/// ones and it is allowed (`convertToClassicGroup`: the whole group's tombstones, the fenced members
/// left out of the classic group, which rebalances at once; no timer is cancelled), else
/// [`fence_members`].
pub fn fence_members_or_downgrade(
    group: &ConsumerGroup,
    member_ids: &[&str],
    topics: &TopicsImage,
    cache: &mut TopicHashCache,
    timers: &mut Timers<TimerTask>,
    policy: DowngradePolicy,
) -> (Vec<Record>, Option<crate::group::DowngradedGroup>) {
    if !member_ids.is_empty()
        && validate_online_downgrade_with_fenced_members(group, member_ids, policy)
    {
        let records = crate::consumer::migration::group_tombstones(group);
        let downgraded = crate::consumer::migration::downgraded_group(
            group,
            member_ids,
            topics,
            Some(format!(
                "Downgrade group {} from consumer to classic for member leaving.",
                group.group_id
            )),
        );
        return (records, Some(downgraded));
    }
    (
        fence_members(group, member_ids, topics, cache, timers),
        None,
    )
}

/// A leave's response, its records and the downgrade it caused, if any.
pub type LeaveOutcome = (
    ConsumerGroupHeartbeatResponse,
    Vec<Record>,
    Option<crate::group::DowngradedGroup>,
);

/// `consumerGroupLeave`: epoch -1 (leave for good, dynamic or static) or -2 (a static member leaving
/// for now: one record, epoch -2, nothing pending, assignment epochs reset to 0, timers untouched).
pub(super) fn leave(
    group: &ConsumerGroup,
    r: &ConsumerGroupHeartbeatRequest,
    topics: &TopicsImage,
    cache: &mut TopicHashCache,
    timers: &mut Timers<TimerTask>,
    policy: DowngradePolicy,
) -> Result<LeaveOutcome, ApiError> {
    let gid = group.group_id.as_str();
    let member_id = r.member_id.as_str();
    let response = ConsumerGroupHeartbeatResponse::default()
        .with_member_id(Some(r.member_id.clone()))
        .with_member_epoch(r.member_epoch);
    match r.instance_id.as_deref() {
        None => {
            if group.member(member_id).is_none() {
                return Err(unknown_member(member_id, gid));
            }
            let (records, downgrade) =
                fence_members_or_downgrade(group, &[member_id], topics, cache, timers, policy);
            Ok((response, records, downgrade))
        }
        Some(instance_id) => {
            let member = group
                .static_member(instance_id)
                .ok_or_else(|| unknown_instance(instance_id))?;
            if member.member_id != member_id {
                return Err(fenced_instance(member_id, instance_id, &member.member_id));
            }
            if r.member_epoch == -2 {
                let mut leaving = member.clone();
                leaving.member_epoch = -2;
                leaving.pending_revocation = PartitionEpochs::new();
                for parts in leaving.assigned.values_mut() {
                    parts.values_mut().for_each(|e| *e = 0);
                }
                let response = ConsumerGroupHeartbeatResponse::default()
                    .with_member_id(Some(StrBytes::from_string(member.member_id.clone())))
                    .with_member_epoch(-2);
                Ok((
                    response,
                    vec![current_assignment_record(gid, &leaving)],
                    None,
                ))
            } else {
                let id = member.member_id.clone();
                let (records, downgrade) = fence_members_or_downgrade(
                    group,
                    &[id.as_str()],
                    topics,
                    cache,
                    timers,
                    policy,
                );
                Ok((response, records, downgrade))
            }
        }
    }
}

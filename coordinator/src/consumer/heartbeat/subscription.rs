//! What the member's change does to the group: its record, its regular expression, the preferred
//! assignor, the subscription metadata and the group epoch (`hasMemberSubscriptionChanged`,
//! `maybeUpdateRegularExpressions`, `hasPreferredServerAssignorChanged`,
//! `updateSubscriptionMetadata`).

use std::collections::BTreeMap;

use protocol::ErrorCode;

use super::Heartbeat;
use crate::consumer::assignor::SubscriptionType;
use crate::consumer::group::{
    ConsumerGroup, Persistent, RefreshDeadline, SubscribedTopics, change_regex_count, max_count,
    subscription_type, update_subscribed_topic_names,
};
use crate::consumer::member::ConsumerGroupMember;
use crate::consumer::records::{
    group_epoch_record, member_subscription_record, regex_tombstone,
    subscription_metadata_tombstone,
};
use crate::consumer::regex_refresh::{
    REGEX_BATCH_REFRESH_MIN_INTERVAL_MS, RegexRefresh, subscribed_regexes_after_change,
};
use crate::consumer::topic_regex::throw_if_regular_expression_is_invalid;
use crate::error::ApiError;
use crate::java::JavaHashMapOrder;
use crate::streams::hash::{TopicHashCache, group_hash_cached};
use crate::topics::TopicsImage;

/// The refresh interval Kafka sets at every recomputation (`Integer.MAX_VALUE` ms).
const METADATA_REFRESH_INTERVAL_MS: i64 = i32::MAX as i64;

/// `hasMemberSubscriptionChanged`: writes the member's record if anything of it changed; true when
/// its subscribed topic names changed.
pub(super) fn has_member_subscription_changed(
    hb: &mut Heartbeat<'_>,
    member: &ConsumerGroupMember,
    updated: &ConsumerGroupMember,
) -> bool {
    if updated == member {
        return false;
    }
    hb.records.push(member_subscription_record(hb.gid, updated));
    updated.subscribed_topic_names != member.subscribed_topic_names
}

/// `UpdateRegularExpressionStatus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RegexStatus {
    NoChange,
    Updated,
    UpdatedAndResolved,
}

impl RegexStatus {
    pub fn regex_updated(self) -> bool {
        self != RegexStatus::NoChange
    }
}

/// What [`maybe_update_regular_expressions`] reads besides the group and the member.
pub(super) struct RegexScheduling<'a> {
    /// The shard's executor: the refresh is scheduled here.
    pub executor: &'a mut Vec<RegexRefresh>,
    /// `lastMetadataImageWithNewTopics`.
    pub last_image_with_new_topics: i64,
    /// `group.consumer.regex.refresh.interval.ms`.
    pub refresh_interval_ms: i64,
}

/// `maybeUpdateRegularExpressions`: whether the member changed its regex (and whether the new one is
/// already resolved), the tombstone of a regex its last member leaves, the validation of a regex new
/// to the group (INVALID_REGULAR_EXPRESSION), and the scheduling of a refresh of all the group's
/// regexes when one is due: the group has regexes, none is being resolved, the last refresh is more
/// than 10 s old, and some regex is unresolved, a topic was created since, or the refresh interval
/// has passed.
pub(super) fn maybe_update_regular_expressions(
    group: &ConsumerGroup,
    hb: &mut Heartbeat<'_>,
    member: &ConsumerGroupMember,
    updated: &ConsumerGroupMember,
    sched: RegexScheduling<'_>,
) -> Result<RegexStatus, ApiError> {
    let old = member.regex();
    let new = updated.regex();
    let mut require_refresh = false;
    let mut status = RegexStatus::NoChange;
    if member.subscribed_topic_regex != updated.subscribed_topic_regex {
        status = RegexStatus::Updated;
        if let Some(o) = old
            && group.num_subscribed_members(o) == 1
        {
            hb.records.push(regex_tombstone(hb.gid, o));
        }
        match new {
            Some(n) => {
                if group.num_subscribed_members(n) == 0 {
                    throw_if_regular_expression_is_invalid(n)?;
                    require_refresh = true;
                } else if group.persistent.resolved_regexes.contains_key(n) {
                    status = RegexStatus::UpdatedAndResolved;
                }
            }
            None if old.is_some() => status = RegexStatus::UpdatedAndResolved,
            None => {}
        }
    }

    // 0. The group uses regexes (or the member just brought one).
    if !require_refresh && group.persistent.subscribed_regexes.is_empty() {
        return Ok(status);
    }
    // 1. No refresh is running.
    let key = format!("{}-regex", hb.gid);
    if sched.executor.iter().any(|t| t.key() == key) {
        return Ok(status);
    }
    // 2. The last refresh is more than 10 s old.
    let last_refresh = group.last_resolved_regex_refresh_time_ms();
    if hb.now_ms <= last_refresh.wrapping_add(REGEX_BATCH_REFRESH_MIN_INTERVAL_MS) {
        return Ok(status);
    }
    // 3. Unresolved regexes, new topics, or the refresh interval passed.
    let regexes = subscribed_regexes_after_change(group, old, new);
    require_refresh |= regexes.len() != group.persistent.resolved_regexes.len();
    require_refresh |= group.last_resolved_regex_version() < sched.last_image_with_new_topics;
    require_refresh |= hb.now_ms > last_refresh.wrapping_add(sched.refresh_interval_ms);
    if require_refresh && !regexes.is_empty() {
        sched.executor.push(RegexRefresh {
            group_id: hb.gid.to_string(),
            member_id: hb.member_id.to_string(),
            regexes: regexes.into_iter().map(|(r, _)| r).collect(),
        });
    }
    Ok(status)
}

/// The preferred assignor after replacing `old` with `new` (`computePreferredServerAssignor`): Kafka
/// copies the group's counts into a `new HashMap<>(serverAssignors)`, applies the change with
/// `compute` (a new name goes to the front of its bucket, a count reaching zero is removed) and takes
/// the first largest count in that map's iteration order.
fn preferred_after_change(
    p: &Persistent,
    old: &ConsumerGroupMember,
    new: &ConsumerGroupMember,
) -> Option<String> {
    let mut counts: BTreeMap<&str, i32> = BTreeMap::new();
    let copied: Vec<&str> = p.server_assignors.keys().map(String::as_str).collect();
    // HashMap(Map) sizes its table for the copied entries: tableSizeFor(size / 0.75 + 1); an empty
    // source leaves the table to its default size.
    let mut order = if copied.is_empty() {
        JavaHashMapOrder::new()
    } else {
        JavaHashMapOrder::with_capacity((copied.len() as f32 / 0.75 + 1.0) as i32)
    };
    for (k, v) in p.server_assignors.iter() {
        counts.insert(k, *v);
    }
    // `Utils.decValue` removes a count reaching zero from the map; a name added back afterwards (the
    // member kept its preference) goes to the front of its bucket, so an unchanged member can flip a tie.
    let mut removed: Option<&str> = None;
    if let Some(n) = old.server_assignor.as_deref() {
        match counts.get(n).copied() {
            Some(1) => {
                counts.remove(n);
                removed = Some(n);
            }
            Some(c) => {
                counts.insert(n, c - 1);
            }
            None => {}
        }
    }
    let mut keys: Vec<&str> = Vec::new();
    for k in copied.iter().copied().filter(|k| Some(*k) != removed) {
        order.put(k);
        keys.push(k);
    }
    if let Some(n) = new.server_assignor.as_deref() {
        let (idx, added) = order.compute_if_absent(n);
        if added {
            keys.push(n);
        }
        debug_assert_eq!(keys[idx as usize], n);
        *counts.entry(n).or_insert(0) += 1;
    }
    let ordered: Vec<(String, i32)> = order
        .iteration_order()
        .into_iter()
        .filter_map(|i| {
            let k = keys[i as usize];
            counts.get(k).map(|c| (k.to_string(), *c))
        })
        .collect();
    max_count(ordered.iter().map(|(k, v)| (k, v)))
}

/// `computePreferredServerAssignor(member, updated)` or the default assignor.
pub(super) fn preferred_assignor_name(
    p: &Persistent,
    old: &ConsumerGroupMember,
    new: &ConsumerGroupMember,
    default: &str,
) -> String {
    preferred_after_change(p, old, new).unwrap_or_else(|| default.to_string())
}

/// `hasPreferredServerAssignorChanged` (KAFKA-20434): the effective assignor before and after the
/// member's change differ.
pub(super) fn has_preferred_server_assignor_changed(
    group: &ConsumerGroup,
    old: &ConsumerGroupMember,
    new: &ConsumerGroupMember,
    default: &str,
) -> bool {
    let current = group
        .preferred_server_assignor()
        .unwrap_or_else(|| default.to_string());
    current != preferred_assignor_name(&group.persistent, old, new, default)
}

/// What [`update_subscription_metadata`] decided.
pub(super) struct SubscriptionMetadata {
    pub group_epoch: i32,
    pub subscription_type: SubscriptionType,
}

/// `updateSubscriptionMetadata`: the subscribed topics and metadata hash with the member's change
/// applied; a changed hash also bumps the epoch; a bump writes the group's epoch record; the refresh
/// deadline moves to `now + Integer.MAX_VALUE`; a legacy subscription-metadata record is tombstoned.
#[allow(clippy::too_many_arguments)]
pub(super) fn update_subscription_metadata(
    group: &mut ConsumerGroup,
    hb: &mut Heartbeat<'_>,
    mut bump: bool,
    member: &ConsumerGroupMember,
    updated: &ConsumerGroupMember,
    topics: &TopicsImage,
    cache: &mut TopicHashCache,
) -> SubscriptionMetadata {
    let p = &group.persistent;
    // `computeSubscribedTopicNames`: the member's names, and the topics of the regex it was the last
    // to use.
    let mut names: SubscribedTopics = p.subscribed_topic_names.clone();
    update_subscribed_topic_names(&mut names, Some(member), Some(updated));
    if let Some(o) = member.regex()
        && member.regex() != updated.regex()
        && group.num_subscribed_members(o) == 1
        && let Some(r) = p.resolved_regexes.get(o)
    {
        for t in &r.topics {
            change_regex_count(&mut names, t, -1);
        }
    }
    // `computeSubscribedRegularExpressions`: only its first count is read, and only when it covers
    // every member, i.e. when it is the only one, so its order does not matter here.
    let first_regex_count = if member.regex() != updated.regex() {
        subscribed_regexes_after_change(group, member.regex(), updated.regex())
            .first()
            .map(|(_, c)| *c)
    } else {
        p.subscribed_regexes.values().next().copied()
    };
    let hash = group_hash_cached(names.keys(), topics, cache);
    let mut members = p.members.len();
    let known_instance = updated
        .instance_id
        .as_ref()
        .is_some_and(|i| p.static_members.contains_key(i));
    if !p.members.contains_key(&updated.member_id) && !known_instance {
        members += 1;
    }
    let subscription_type = subscription_type(first_regex_count, &names, members);
    if hash != p.metadata_hash {
        bump = true;
    }
    let mut epoch = p.group_epoch;
    if bump {
        epoch += 1;
        hb.records.push(group_epoch_record(hb.gid, epoch, hash));
    }
    let has_legacy = p.has_subscription_metadata_record;
    group.soft.metadata_refresh_deadline = RefreshDeadline {
        deadline_ms: hb.now_ms + METADATA_REFRESH_INTERVAL_MS,
        epoch,
    };
    if has_legacy {
        hb.records.push(subscription_metadata_tombstone(hb.gid));
    }
    SubscriptionMetadata {
        group_epoch: epoch,
        subscription_type,
    }
}

/// The error Kafka's assignor lookup ends in when the stored preferred assignor is not configured.
pub(super) fn unknown_assignor() -> ApiError {
    ApiError::bare(ErrorCode::UnknownServerError)
}

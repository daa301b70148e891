//! One consumer group (Kafka's `ConsumerGroup` over `ModernGroup`): the persistent state rebuilt by
//! replaying records, and the soft state only handlers set (lost on fail-over, as in Kafka).

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use crate::consumer::assignor::SubscriptionType;
use crate::consumer::member::{ConsumerGroupMember, PartitionEpochs, Partitions};
use crate::streams::timeline_map::TimelineMap;

/// `ConsumerGroup.ConsumerGroupState` (DEAD is never assigned).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConsumerGroupState {
    Empty,
    Assigning,
    Reconciling,
    Stable,
}

impl ConsumerGroupState {
    /// Kafka's `toString()` (ListGroups, DescribeGroups, ConsumerGroupDescribe).
    pub fn name(self) -> &'static str {
        match self {
            ConsumerGroupState::Empty => "Empty",
            ConsumerGroupState::Assigning => "Assigning",
            ConsumerGroupState::Reconciling => "Reconciling",
            ConsumerGroupState::Stable => "Stable",
        }
    }
}

/// `SubscriptionCount`: how many members name a topic, and how many resolved regexes match it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SubscriptionCount {
    pub by_name: i32,
    pub by_regex: i32,
}

/// Topic name -> its subscription count (`ModernGroup.subscribedTopicNames`).
pub type SubscribedTopics = BTreeMap<String, SubscriptionCount>;

/// `SubscriptionCount.incNameCount` / `decNameCount` on a map (an entry whose counts reach zero goes).
pub fn change_name_count(map: &mut SubscribedTopics, topic: &str, delta: i32) {
    change_count(map, topic, delta, 0);
}

/// `SubscriptionCount.incRegexCount` / `decRegexCount`.
pub fn change_regex_count(map: &mut SubscribedTopics, topic: &str, delta: i32) {
    change_count(map, topic, 0, delta);
}

fn change_count(map: &mut SubscribedTopics, topic: &str, by_name: i32, by_regex: i32) {
    let c = map.get(topic).copied();
    let removes = match c {
        None => by_name < 0 || by_regex < 0,
        Some(c) => {
            (by_name < 0 && c.by_name == 1 && c.by_regex == 0)
                || (by_regex < 0 && c.by_regex == 1 && c.by_name == 0)
        }
    };
    if removes {
        map.remove(topic);
        return;
    }
    let c = c.unwrap_or_default();
    map.insert(
        topic.to_string(),
        SubscriptionCount {
            by_name: c.by_name + by_name,
            by_regex: c.by_regex + by_regex,
        },
    );
}

/// A resolved regular expression (`ResolvedRegularExpression`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedRegex {
    pub topics: BTreeSet<String>,
    pub version: i64,
    pub timestamp: i64,
}

/// Everything replaying the group's records rebuilds. Two shards that replayed the same records have
/// equal `Persistent` states, including the members' iteration order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Persistent {
    pub state: ConsumerGroupState,
    pub group_epoch: i32,
    pub metadata_hash: i64,
    pub assignment_epoch: i32,
    pub assignment_timestamp: i64,
    pub members: TimelineMap<ConsumerGroupMember>,
    /// Instance id -> member id.
    pub static_members: BTreeMap<String, String>,
    /// Server assignor name -> members preferring it (a `TimelineHashMap` in Kafka: its order breaks
    /// ties in ConsumerGroupDescribe's assignor name).
    pub server_assignors: TimelineMap<i32>,
    pub subscribed_topic_names: SubscribedTopics,
    /// Regex -> members subscribed to it (a `TimelineHashMap` in Kafka: its order is the order the
    /// regexes of a refresh are resolved and written in).
    pub subscribed_regexes: TimelineMap<i32>,
    pub resolved_regexes: TimelineMap<ResolvedRegex>,
    /// Member id -> target (a `TimelineHashMap` in Kafka too).
    pub target_assignment: TimelineMap<Partitions>,
    /// `currentPartitionEpoch`: topic -> partition -> epoch of the member that holds it (assigned or
    /// pending revocation).
    pub partition_epochs: BTreeMap<Uuid, BTreeMap<i32, i32>>,
    /// A legacy ConsumerGroupPartitionMetadata record was replayed and not yet tombstoned.
    pub has_subscription_metadata_record: bool,
    pub subscription_type: SubscriptionType,
}

/// The deadline after which the group's metadata hash is recomputed, with the group epoch it was set
/// at (`DeadlineAndEpoch`; `(0, 0)` for every new or loaded group object).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RefreshDeadline {
    pub deadline_ms: i64,
    pub epoch: i32,
}

/// State only handlers set, never persisted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Soft {
    pub metadata_refresh_deadline: RefreshDeadline,
}

/// One consumer group.
#[derive(Debug, Clone)]
pub struct ConsumerGroup {
    pub group_id: String,
    pub persistent: Persistent,
    pub soft: Soft,
}

impl ConsumerGroup {
    /// A new group object (`new ConsumerGroup(...)`, KAFKA-20268): epoch 1, assignment epoch 1 at
    /// timestamp 0.
    pub fn new(group_id: impl Into<String>) -> Self {
        Self {
            group_id: group_id.into(),
            persistent: Persistent {
                state: ConsumerGroupState::Empty,
                group_epoch: 1,
                metadata_hash: 0,
                assignment_epoch: 1,
                assignment_timestamp: 0,
                members: TimelineMap::new(),
                static_members: BTreeMap::new(),
                server_assignors: TimelineMap::new(),
                subscribed_topic_names: SubscribedTopics::new(),
                subscribed_regexes: TimelineMap::new(),
                resolved_regexes: TimelineMap::new(),
                target_assignment: TimelineMap::new(),
                partition_epochs: BTreeMap::new(),
                has_subscription_metadata_record: false,
                subscription_type: SubscriptionType::Homogeneous,
            },
            soft: Soft::default(),
        }
    }

    pub fn state(&self) -> ConsumerGroupState {
        self.persistent.state
    }

    pub fn is_empty(&self) -> bool {
        self.persistent.state == ConsumerGroupState::Empty
    }

    pub fn member(&self, member_id: &str) -> Option<&ConsumerGroupMember> {
        self.persistent.members.get(member_id)
    }

    /// `staticMember`: the member registered under the instance id.
    pub fn static_member(&self, instance_id: &str) -> Option<&ConsumerGroupMember> {
        self.persistent
            .static_members
            .get(instance_id)
            .and_then(|id| self.persistent.members.get(id))
    }

    /// `hasMetadataExpired`.
    pub fn has_metadata_expired(&self, now_ms: i64) -> bool {
        let d = self.soft.metadata_refresh_deadline;
        now_ms >= d.deadline_ms || self.persistent.group_epoch < d.epoch
    }

    /// `currentPartitionEpoch`: the epoch of the member holding the partition, -1 if free.
    pub fn current_partition_epoch(&self, topic: &Uuid, partition: i32) -> i32 {
        self.persistent
            .partition_epochs
            .get(topic)
            .and_then(|m| m.get(&partition))
            .copied()
            .unwrap_or(-1)
    }

    /// `targetAssignment(memberId, instanceId)`: a static member's target is the one of the member
    /// holding its instance id.
    pub fn target_of(&self, member_id: &str, instance_id: Option<&str>) -> Partitions {
        let id = match instance_id {
            None => Some(member_id),
            Some(i) => self.persistent.static_members.get(i).map(String::as_str),
        };
        id.and_then(|id| self.persistent.target_assignment.get(id))
            .cloned()
            .unwrap_or_default()
    }

    /// `preferredServerAssignor`: the assignor most members prefer, the first of equal counts in the
    /// map's iteration order; `None` when no member names one.
    pub fn preferred_server_assignor(&self) -> Option<String> {
        max_count(self.persistent.server_assignors.iter())
    }

    /// `updateMember`: replaces or adds the member and keeps the counts, owner epochs, static ids,
    /// state and subscription type in step.
    pub fn update_member(&mut self, member: ConsumerGroupMember) {
        let member_id = member.member_id.clone();
        let old = self.persistent.members.insert(member_id.clone(), member);
        let p = &mut self.persistent;
        let new = p
            .members
            .get(&member_id)
            .cloned()
            .unwrap_or_else(|| ConsumerGroupMember::new(""));
        update_subscribed_topic_names(&mut p.subscribed_topic_names, old.as_ref(), Some(&new));
        update_server_assignors(&mut p.server_assignors, old.as_ref(), Some(&new));
        if let Some(old) = &old {
            remove_partition_epochs(&mut p.partition_epochs, &old.assigned, old.member_epoch);
            remove_partition_epochs(
                &mut p.partition_epochs,
                &old.pending_revocation,
                old.member_epoch,
            );
        }
        add_partition_epochs(&mut p.partition_epochs, &new.assigned, new.member_epoch);
        add_partition_epochs(
            &mut p.partition_epochs,
            &new.pending_revocation,
            new.member_epoch,
        );
        update_subscribed_regexes(&mut p.subscribed_regexes, old.as_ref(), Some(&new));
        if let Some(i) = old.as_ref().and_then(|o| o.instance_id.as_ref()) {
            p.static_members.remove(i);
        }
        if let Some(i) = &new.instance_id {
            p.static_members.insert(i.clone(), member_id);
        }
        self.update_state();
        self.update_subscription_type();
    }

    /// `removeMember`.
    pub fn remove_member(&mut self, member_id: &str) {
        let Some(old) = self.persistent.members.remove(member_id) else {
            return;
        };
        let p = &mut self.persistent;
        update_subscribed_topic_names(&mut p.subscribed_topic_names, Some(&old), None);
        update_server_assignors(&mut p.server_assignors, Some(&old), None);
        remove_partition_epochs(&mut p.partition_epochs, &old.assigned, old.member_epoch);
        remove_partition_epochs(
            &mut p.partition_epochs,
            &old.pending_revocation,
            old.member_epoch,
        );
        update_subscribed_regexes(&mut p.subscribed_regexes, Some(&old), None);
        if let Some(i) = &old.instance_id {
            p.static_members.remove(i);
        }
        self.update_state();
        self.update_subscription_type();
    }

    /// `updateResolvedRegularExpression` (`None`: `removeResolvedRegularExpression`): the resolved topics
    /// and their counts.
    pub fn update_resolved_regex(&mut self, regex: &str, resolved: Option<ResolvedRegex>) {
        let p = &mut self.persistent;
        if let Some(old) = p.resolved_regexes.remove(regex) {
            for t in &old.topics {
                change_regex_count(&mut p.subscribed_topic_names, t, -1);
            }
        }
        if let Some(new) = resolved {
            for t in &new.topics {
                change_regex_count(&mut p.subscribed_topic_names, t, 1);
            }
            p.resolved_regexes.insert(regex.to_string(), new);
        }
        // Kafka does not recompute the subscription type here (`maybeUpdateGroupSubscriptionType` runs
        // on member changes only), so the type can lag behind the regex counts until the next member
        // change: a member whose regex's topics went keeps the group heterogeneous, which the target
        // assignment then sees.
    }

    /// `maybeUpdateGroupState`.
    pub fn update_state(&mut self) {
        let p = &self.persistent;
        let state = if p.members.is_empty() {
            ConsumerGroupState::Empty
        } else if p.group_epoch > p.assignment_epoch {
            ConsumerGroupState::Assigning
        } else if p
            .members
            .values()
            .any(|m| !m.is_reconciled_to(p.assignment_epoch))
        {
            ConsumerGroupState::Reconciling
        } else {
            ConsumerGroupState::Stable
        };
        self.persistent.state = state;
    }

    /// `maybeUpdateGroupSubscriptionType`.
    fn update_subscription_type(&mut self) {
        let p = &self.persistent;
        let first_regex_count = p.subscribed_regexes.values().next().copied();
        let kind = subscription_type(
            first_regex_count,
            &p.subscribed_topic_names,
            p.members.len(),
        );
        self.persistent.subscription_type = kind;
    }

    /// `numSubscribedMembers(regex)`.
    pub fn num_subscribed_members(&self, regex: &str) -> i32 {
        self.persistent
            .subscribed_regexes
            .get(regex)
            .copied()
            .unwrap_or(0)
    }

    /// `lastResolvedRegularExpressionRefreshTimeMs`: the timestamp of the first resolved regex in the
    /// map's order (they are resolved together), `Long.MIN_VALUE` when none is.
    pub fn last_resolved_regex_refresh_time_ms(&self) -> i64 {
        self.persistent
            .resolved_regexes
            .values()
            .next()
            .map_or(i64::MIN, |r| r.timestamp)
    }

    /// `lastResolvedRegularExpressionVersion`: the first resolved regex's image version, 0 when none.
    pub fn last_resolved_regex_version(&self) -> i64 {
        self.persistent
            .resolved_regexes
            .values()
            .next()
            .map_or(0, |r| r.version)
    }

    /// Whether the group consumes `topic` (`isSubscribedToTopic`).
    pub fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        self.persistent.subscribed_topic_names.contains_key(topic)
    }
}

/// The key of the largest count, the first of equal ones in iteration order (`Stream.max` keeps the
/// first maximum).
pub fn max_count<'a>(entries: impl Iterator<Item = (&'a String, &'a i32)>) -> Option<String> {
    let mut best: Option<(&String, i32)> = None;
    for (k, v) in entries {
        if best.is_none_or(|(_, b)| *v > b) {
            best = Some((k, *v));
        }
    }
    best.map(|(k, _)| k.clone())
}

/// `ConsumerGroup.subscriptionType`; `first_regex_count` is the first count of the subscribed regexes
/// in their map's order (`None` when no member uses one).
pub fn subscription_type(
    first_regex_count: Option<i32>,
    topics: &SubscribedTopics,
    members: usize,
) -> SubscriptionType {
    let members = members as i32;
    match first_regex_count {
        None => {
            if topics.values().all(|c| c.by_name == members) {
                SubscriptionType::Homogeneous
            } else {
                SubscriptionType::Heterogeneous
            }
        }
        Some(count) => {
            if count == members && topics.values().all(|c| c.by_regex == 1 && c.by_name == 0) {
                SubscriptionType::Homogeneous
            } else {
                SubscriptionType::Heterogeneous
            }
        }
    }
}

/// `maybeUpdateSubscribedTopicNames` on a map.
pub fn update_subscribed_topic_names(
    map: &mut SubscribedTopics,
    old: Option<&ConsumerGroupMember>,
    new: Option<&ConsumerGroupMember>,
) {
    if let Some(old) = old {
        for t in &old.subscribed_topic_names {
            change_name_count(map, t, -1);
        }
    }
    if let Some(new) = new {
        for t in &new.subscribed_topic_names {
            change_name_count(map, t, 1);
        }
    }
}

/// `maybeUpdateServerAssignors` on a map (counts reaching zero are removed, `Utils.decValue`).
pub fn update_server_assignors(
    map: &mut TimelineMap<i32>,
    old: Option<&ConsumerGroupMember>,
    new: Option<&ConsumerGroupMember>,
) {
    if let Some(name) = old.and_then(|m| m.server_assignor.as_ref()) {
        dec(map, name);
    }
    if let Some(name) = new.and_then(|m| m.server_assignor.as_ref()) {
        *map.get_or_insert_with(name.clone(), || 0) += 1;
    }
}

fn dec(map: &mut TimelineMap<i32>, key: &str) {
    match map.get(key).copied() {
        None | Some(1) => {
            map.remove(key);
        }
        Some(v) => {
            map.insert(key.to_string(), v - 1);
        }
    }
}

/// `maybeUpdateSubscribedRegularExpression` (`compute` with `Utils.decValue`/`incValue`: a count
/// reaching zero is removed, a changed count stays in place).
fn update_subscribed_regexes(
    map: &mut TimelineMap<i32>,
    old: Option<&ConsumerGroupMember>,
    new: Option<&ConsumerGroupMember>,
) {
    if let Some(r) = old.and_then(ConsumerGroupMember::regex) {
        match map.get(r).copied() {
            None | Some(1) => {
                map.remove(r);
            }
            Some(v) => {
                map.insert(r.to_string(), v - 1);
            }
        }
    }
    if let Some(r) = new.and_then(ConsumerGroupMember::regex) {
        // `Map.compute`'s default: a `get`, then a `put` (which may grow the table).
        let count = map.get(r).copied().unwrap_or(0);
        map.insert(r.to_string(), count + 1);
    }
}

/// `removePartitionEpochs`: only entries still at `expected` go (KAFKA-19862 tolerates the others).
fn remove_partition_epochs(
    map: &mut BTreeMap<Uuid, BTreeMap<i32, i32>>,
    assignment: &PartitionEpochs,
    expected: i32,
) {
    for (topic, parts) in assignment {
        if let Some(m) = map.get_mut(topic) {
            for p in parts.keys() {
                if m.get(p) == Some(&expected) {
                    m.remove(p);
                }
            }
            if m.is_empty() {
                map.remove(topic);
            }
        }
    }
}

/// `addPartitionEpochs`. Kafka throws when a partition is still held at an epoch at least as high
/// (which no coordinator's records produce); regroup keeps the higher epoch.
fn add_partition_epochs(
    map: &mut BTreeMap<Uuid, BTreeMap<i32, i32>>,
    assignment: &PartitionEpochs,
    epoch: i32,
) {
    for (topic, parts) in assignment {
        let m = map.entry(*topic).or_default();
        for p in parts.keys() {
            if m.get(p).is_none_or(|prev| *prev < epoch) {
                m.insert(*p, epoch);
            }
        }
    }
}

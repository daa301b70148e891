//! KIP-848 consumer groups, as Apache Kafka 4.4.0's group coordinator runs them: the group and member
//! model, ConsumerGroupHeartbeat (join, heartbeat, static membership, leave), the target assignment
//! with the server-side assignors ([`assignor`]), reconciliation, timers, ConsumerGroupDescribe, the
//! offset admission of a consumer group, and the replay of the consumer-group records.
//!
//! [`ConsumerGroups`] holds every consumer group of a shard. Each group keeps its persistent state
//! (rebuilt only by [`ConsumerGroups::replay`]) apart from its soft state (set by handlers, lost on
//! fail-over), so that replaying a shard's records into a fresh shard can be checked to give the same
//! persistent state ([`ConsumerGroups::persistent_state`]).
//!
//! Regular-expression subscriptions: [`topic_regex`] reads RE2J's syntax, [`regex_refresh`] resolves
//! a group's regexes after the heartbeat that scheduled it (Kafka's executor task).
//!
//! Online migration from and to classic groups ([`migration`], [`heartbeat::classic`]): the upgrade
//! by a consumer join, classic members inside a consumer group, the downgrade.

pub mod assignor;
pub mod describe;
pub mod group;
pub mod heartbeat;
pub mod member;
pub mod migration;
pub mod offset_admission;
pub mod reconcile;
pub mod records;
pub mod regex_refresh;
pub mod request_checks;
pub mod target;
pub mod timers;
pub mod topic_regex;

pub use crate::config::consumer as config;

use std::collections::BTreeMap;

use protocol::messages::{ConsumerGroupHeartbeatResponse, StrBytes};
use protocol::{ErrorCode, Request, Response};
use uuid::Uuid;

use crate::config::ShardConfig;
use crate::context::RequestContext;
use crate::error::ApiError;
use crate::group::{GroupListing, GroupType, GroupValidation, OtherGroupType};
use crate::outcome::{ConsumerTimer, TimerTask};
use crate::records::Record;
use crate::streams::hash::TopicHashCache;
use crate::timer::Timers;
use crate::topics::TopicsImage;
use group::{ConsumerGroup, Persistent, ResolvedRegex};
use member::{ConsumerGroupMember, MemberState, Partitions};

/// What the consumer code may read or change of the rest of the shard while handling a request.
pub struct ConsumerEnv<'a> {
    pub config: &'a ShardConfig,
    pub topics: &'a TopicsImage,
    /// The other group types of the shard (classic, streams): a consumer join replaces an empty
    /// classic group; any other group of the id is "not a consumer group".
    pub other_types: Vec<&'a dyn OtherGroupType>,
    pub timers: &'a mut Timers<TimerTask>,
}

/// Every consumer group of the shard.
#[derive(Debug, Clone, Default)]
pub struct ConsumerGroups {
    groups: BTreeMap<String, ConsumerGroup>,
    /// Topic hashes of the metadata image (Kafka's `topicHashCache`).
    topic_hash_cache: TopicHashCache,
    /// How many member ids this shard generated (v0 joins without one): makes them unique and
    /// deterministic where Kafka draws a random `Uuid`.
    generated_ids: u64,
    /// The regex resolutions scheduled and not run yet (Kafka's `CoordinatorExecutor` tasks), run
    /// by [`Self::run_regex_refreshes`] right after the heartbeat that scheduled them.
    executor: Vec<regex_refresh::RegexRefresh>,
    /// How many metadata images the shard was given after the first: the image version Kafka reads
    /// (`MetadataImage.offset()`, 1 for the first image of a script) is one more.
    image_updates: i64,
    /// `lastMetadataImageWithNewTopics` as an update count (0: the first image).
    last_update_with_new_topics: i64,
    /// Classic groups a heartbeat started to upgrade (past `validateOnlineUpgrade`) whose parked
    /// JoinGroups and SyncGroups the shard must answer REBALANCE_IN_PROGRESS.
    upgrade_attempts: Vec<String>,
    /// Consumer groups the last operation turned into classic groups (online downgrade), for the
    /// shard to install on the classic side.
    downgrades: Vec<crate::group::DowngradedGroup>,
}

impl ConsumerGroups {
    /// Whether a consumer group with this id exists.
    pub fn contains(&self, group_id: &str) -> bool {
        self.groups.contains_key(group_id)
    }

    /// Whether the consumer group exists and has no members.
    pub fn is_empty_group(&self, group_id: &str) -> bool {
        self.groups
            .get(group_id)
            .is_some_and(ConsumerGroup::is_empty)
    }

    /// A group, for inspection.
    pub fn group(&self, group_id: &str) -> Option<&ConsumerGroup> {
        self.groups.get(group_id)
    }

    /// Group ids in order.
    pub fn group_ids(&self) -> impl Iterator<Item = &String> {
        self.groups.keys()
    }

    /// The group's answers to offset and deletion validation.
    pub fn validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        self.groups.get(group_id).map(|g| g as &dyn GroupValidation)
    }

    /// The persistent state of every group, for checking that replay rebuilds it.
    pub fn persistent_state(&self) -> BTreeMap<&str, &Persistent> {
        self.groups
            .iter()
            .map(|(k, g)| (k.as_str(), &g.persistent))
            .collect()
    }

    /// One ListGroups row per consumer group, sorted by group id.
    pub fn listings(&self) -> Vec<GroupListing> {
        self.groups
            .values()
            .map(|g| GroupListing {
                group_id: g.group_id.clone(),
                protocol_type: "consumer".to_string(),
                state: g.state().name().to_string(),
                group_type: GroupType::Consumer,
            })
            .collect()
    }

    /// The records that delete the group (`ConsumerGroup.createGroupTombstoneRecords`).
    pub fn tombstones(&self, group_id: &str) -> Vec<Record> {
        self.groups
            .get(group_id)
            .map(migration::group_tombstones)
            .unwrap_or_default()
    }

    /// A member id for a v0 join that sent none: Kafka's `Uuid.randomUuid().toString()` form, drawn
    /// from the group id, the time and a counter instead of the OS's randomness.
    fn generate_member_id(&mut self, group_id: &str, now_ms: i64) -> String {
        self.generated_ids += 1;
        let seed = format!("{group_id}/{now_ms}/{}", self.generated_ids);
        let high = xxhash_rust::xxh3::xxh3_64_with_seed(seed.as_bytes(), 1);
        let low = xxhash_rust::xxh3::xxh3_64_with_seed(seed.as_bytes(), 2);
        let id = Uuid::from_u64_pair(high, low);
        crate::records::json::kafka_uuid_string(&id)
    }

    /// The version of the current metadata image (`metadataImage.version()`).
    pub fn image_version(&self) -> i64 {
        self.image_updates + 1
    }

    /// `lastMetadataImageWithNewTopics`.
    pub fn last_image_with_new_topics(&self) -> i64 {
        self.last_update_with_new_topics + 1
    }

    /// Runs the regex resolutions heartbeats scheduled (each `resolveRegularExpressions` over the
    /// current image, then `handleRegularExpressionsResult`), returning each one's records, which the
    /// caller appends and replays in order. See [`regex_refresh`] for when this runs.
    pub fn run_regex_refreshes(
        &mut self,
        topics: &TopicsImage,
        now_ms: i64,
    ) -> Option<(regex_refresh::RegexRefresh, Vec<Record>)> {
        if self.executor.is_empty() {
            return None;
        }
        let task = self.executor.remove(0);
        let resolved = regex_refresh::resolve(&task.regexes, topics, self.image_version(), now_ms);
        let records = regex_refresh::handle_result(
            self.groups.get_mut(&task.group_id),
            resolved,
            topics,
            &mut self.topic_hash_cache,
            now_ms,
        );
        Some((task, records))
    }

    /// The classic groups the last request started to upgrade (`convertToConsumerGroup` completes their
    /// join and sync futures first), emptied.
    pub fn take_upgrade_attempts(&mut self) -> Vec<String> {
        std::mem::take(&mut self.upgrade_attempts)
    }

    /// The downgrades the last operation decided (`convertToClassicGroup`'s classic half), emptied.
    pub fn take_downgrades(&mut self) -> Vec<crate::group::DowngradedGroup> {
        std::mem::take(&mut self.downgrades)
    }

    /// `CoordinatorExecutor.cancelAll` (the shard is unloaded).
    pub fn cancel_regex_refreshes(&mut self) {
        self.executor.clear();
    }

    /// Runs a consumer api; `None` for apis that are not consumer apis.
    pub fn handle(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        ctx: &RequestContext,
        request: &Request,
        now_ms: i64,
    ) -> Option<(Response, Vec<Record>)> {
        match request {
            Request::ConsumerGroupHeartbeat(r) => {
                if !env.config.consumer.protocol_enabled {
                    let response = ConsumerGroupHeartbeatResponse::default()
                        .with_error_code(ErrorCode::UnsupportedVersion.code());
                    return Some((response.into(), Vec::new()));
                }
                let result = request_checks::validate_heartbeat(
                    r,
                    ctx.api_version,
                    &env.config.consumer.assignors,
                )
                .and_then(|()| {
                    self.heartbeat_inner(env, &ctx.client_id, &ctx.client_host, r, now_ms)
                });
                let (response, records) = match result {
                    Ok(ok) => ok,
                    Err(e) => (error_response(&e), Vec::new()),
                };
                Some((response.into(), records))
            }
            Request::ConsumerGroupDescribe(r) => {
                if !env.config.consumer.protocol_enabled {
                    let response = protocol::messages::ConsumerGroupDescribeResponse::default()
                        .with_groups(
                            r.group_ids
                                .iter()
                                .map(|g| {
                                    protocol::messages::consumer_group_describe_response::DescribedGroup::default()
                                        .with_group_id(g.clone())
                                        .with_error_code(ErrorCode::UnsupportedVersion.code())
                                })
                                .collect(),
                        );
                    return Some((response.into(), Vec::new()));
                }
                let others = &env.other_types;
                let holds_other = |g: &str| others.iter().any(|o| o.holds(g));
                let response = self.describe(
                    r,
                    env.config.consumer.default_assignor(),
                    env.topics,
                    &holds_other,
                );
                Some((response.into(), Vec::new()))
            }
            _ => None,
        }
    }

    /// Like the heartbeat of [`Self::handle`] but returns the handler's error with its full message
    /// (Kafka's exception), before the service maps it for the wire. For tests.
    pub fn heartbeat_result(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        ctx: &RequestContext,
        r: &protocol::messages::ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Result<(ConsumerGroupHeartbeatResponse, Vec<Record>), ApiError> {
        request_checks::validate_heartbeat(r, ctx.api_version, &env.config.consumer.assignors)?;
        self.heartbeat_inner(env, &ctx.client_id, &ctx.client_host, r, now_ms)
    }

    /// Applies one consumer-group record (Kafka's `GroupMetadataManager.replay` for types 3-8 and 16).
    /// Kafka's loader throws on tombstones that arrive out of order (a member's metadata before its
    /// current assignment, the group's epoch before its target metadata); regroup ignores them, as a
    /// coordinator never writes them so.
    pub fn replay(&mut self, record: &Record) {
        match record {
            Record::ConsumerGroupMetadata { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    g.persistent.group_epoch = v.epoch;
                    g.persistent.metadata_hash = v.metadata_hash;
                    g.update_state();
                }
                None => {
                    let removable = self.groups.get(&key.group_id).is_some_and(|g| {
                        g.persistent.members.is_empty()
                            && g.persistent.target_assignment.is_empty()
                            && g.persistent.assignment_epoch == -1
                    });
                    if removable {
                        self.groups.remove(&key.group_id);
                    }
                }
            },
            Record::ConsumerGroupPartitionMetadata { key, value } => match value {
                Some(_) => {
                    self.persisted_group(&key.group_id)
                        .persistent
                        .has_subscription_metadata_record = true;
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id) {
                        g.persistent.has_subscription_metadata_record = false;
                    }
                }
            },
            Record::ConsumerGroupMemberMetadata { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    let mut m = g
                        .member(&key.member_id)
                        .cloned()
                        .unwrap_or_else(|| ConsumerGroupMember::new(&key.member_id));
                    m.apply_metadata(v);
                    g.update_member(m);
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id)
                        && g.member(&key.member_id)
                            .is_some_and(|m| m.member_epoch == -1)
                        && !g.persistent.target_assignment.contains_key(&key.member_id)
                    {
                        g.remove_member(&key.member_id);
                    }
                }
            },
            Record::ConsumerGroupTargetAssignmentMetadata { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    g.persistent.assignment_epoch = v.assignment_epoch;
                    g.persistent.assignment_timestamp = v.assignment_timestamp;
                    g.update_state();
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id)
                        && g.persistent.target_assignment.is_empty()
                    {
                        g.persistent.assignment_epoch = -1;
                        g.persistent.assignment_timestamp = 0;
                        g.update_state();
                    }
                }
            },
            Record::ConsumerGroupTargetAssignmentMember { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    let mut target = Partitions::new();
                    for tp in &v.topic_partitions {
                        target
                            .entry(tp.topic_id)
                            .or_default()
                            .extend(tp.partitions.iter().copied());
                    }
                    g.persistent
                        .target_assignment
                        .insert(key.member_id.clone(), target);
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id) {
                        g.persistent.target_assignment.remove(&key.member_id);
                    }
                }
            },
            Record::ConsumerGroupCurrentMemberAssignment { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    let mut m = g
                        .member(&key.member_id)
                        .cloned()
                        .unwrap_or_else(|| ConsumerGroupMember::new(&key.member_id));
                    m.apply_assignment(v);
                    g.update_member(m);
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id)
                        && let Some(old) = g.member(&key.member_id)
                    {
                        let mut m = old.clone();
                        m.member_epoch = -1;
                        m.previous_member_epoch = -1;
                        m.assigned = Default::default();
                        m.pending_revocation = Default::default();
                        g.update_member(m);
                    }
                }
            },
            Record::ConsumerGroupRegularExpression { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    g.update_resolved_regex(
                        &key.regular_expression,
                        Some(ResolvedRegex {
                            topics: v.topics.iter().cloned().collect(),
                            version: v.version,
                            timestamp: v.timestamp,
                        }),
                    );
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id) {
                        g.update_resolved_regex(&key.regular_expression, None);
                    }
                }
            },
            _ => {}
        }
    }

    /// `getOrMaybeCreatePersistedConsumerGroup(groupId, true)`.
    fn persisted_group(&mut self, group_id: &str) -> &mut ConsumerGroup {
        self.groups
            .entry(group_id.to_string())
            .or_insert_with(|| ConsumerGroup::new(group_id))
    }

    /// Runs a consumer timer that fired at `now_ms`; returns the records to append.
    pub fn run_timer(&mut self, timer: ConsumerTimer, env: &mut ConsumerEnv<'_>) -> Vec<Record> {
        let (group_id, member_id, epoch) = match &timer {
            ConsumerTimer::SessionTimeout {
                group_id,
                member_id,
            }
            | ConsumerTimer::JoinTimeout {
                group_id,
                member_id,
            }
            | ConsumerTimer::SyncTimeout {
                group_id,
                member_id,
            } => (group_id, member_id, None),
            ConsumerTimer::RebalanceTimeout {
                group_id,
                member_id,
                member_epoch,
            } => (group_id, member_id, Some(*member_epoch)),
        };
        match self.groups.get(group_id) {
            Some(g)
                if g.member(member_id)
                    .is_some_and(|m| epoch.is_none_or(|e| m.member_epoch == e)) =>
            {
                let (records, downgrade) = heartbeat::leave::fence_members_or_downgrade(
                    g,
                    &[member_id.as_str()],
                    env.topics,
                    &mut self.topic_hash_cache,
                    env.timers,
                    heartbeat::leave::DowngradePolicy::of(env.config),
                );
                self.downgrades.extend(downgrade);
                records
            }
            _ => Vec::new(),
        }
    }

    /// `onLoaded`: session timeouts for every member (the consumer session timeout), rebalance
    /// timeouts for members still revoking.
    pub fn on_loaded(&mut self, env: &mut ConsumerEnv<'_>, now_ms: i64) {
        for (group_id, g) in &self.groups {
            let effective = env
                .config
                .consumer
                .effective(env.config.group_overrides.get(group_id));
            for m in g.persistent.members.values() {
                timers::schedule_session(
                    env.timers,
                    group_id,
                    &m.member_id,
                    now_ms + i64::from(effective.session_timeout_ms),
                );
                if m.state == MemberState::UnrevokedPartitions {
                    timers::schedule_rebalance(
                        env.timers,
                        group_id,
                        &m.member_id,
                        m.member_epoch,
                        now_ms + i64::from(m.rebalance_timeout_ms),
                    );
                }
            }
        }
    }

    /// `onMetadataUpdate`: groups subscribed to a created, changed or deleted topic recompute their
    /// metadata hash at their next heartbeat (`requestMetadataRefresh`).
    pub fn on_topics_changed(&mut self, old: &TopicsImage, new: &TopicsImage) {
        self.topic_hash_cache.retain_current(new);
        // A new image version; a topic id the old image lacks is a created topic, which makes the
        // next heartbeat of a regex group refresh its regexes (`lastMetadataImageWithNewTopics`).
        self.image_updates += 1;
        if new.iter().any(|t| old.get_by_id(&t.id).is_none()) {
            self.last_update_with_new_topics = self.image_updates;
        }
        let mut changed: std::collections::BTreeSet<&str> = Default::default();
        for t in new.iter() {
            if old.get(&t.name) != Some(t) {
                changed.insert(&t.name);
            }
        }
        for t in old.iter() {
            if new.get(&t.name).is_none() {
                changed.insert(&t.name);
            }
        }
        for g in self.groups.values_mut() {
            if changed.iter().any(|t| g.is_subscribed_to_topic(t)) {
                g.soft.metadata_refresh_deadline = Default::default();
            }
        }
    }
}

/// The response Kafka's service builds for a failed heartbeat: the error code and its message (none
/// for UNKNOWN_SERVER_ERROR, none when it is the code's default text).
pub(crate) fn error_response(e: &ApiError) -> ConsumerGroupHeartbeatResponse {
    let (code, message) = crate::streams::request_checks::wire_error(e);
    ConsumerGroupHeartbeatResponse::default()
        .with_error_code(code.code())
        .with_error_message(message.map(StrBytes::from_string))
}

impl OtherGroupType for ConsumerGroups {
    fn holds(&self, group_id: &str) -> bool {
        self.contains(group_id)
    }

    fn is_empty(&self, group_id: &str) -> bool {
        self.is_empty_group(group_id)
    }

    fn tombstones(&self, group_id: &str) -> Vec<Record> {
        ConsumerGroups::tombstones(self, group_id)
    }

    /// An empty consumer group has no member timers left to cancel.
    fn cancel_timers(&mut self, _group_id: &str, _timers: &mut Timers<TimerTask>) {}
}

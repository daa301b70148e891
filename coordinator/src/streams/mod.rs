//! KIP-1071 streams groups, as Apache Kafka 4.4's group coordinator runs them: group and member
//! model, StreamsGroupHeartbeat (join, heartbeat, static membership, leave), reconciliation, topology
//! configuration, target assignment with the sticky task assignor, StreamsGroupDescribe,
//! StreamsGroupTopologyDescriptionUpdate, timers, and the replay of the streams records.
//!
//! [`StreamsGroups`] holds every streams group of a shard. Each group keeps its persistent state
//! (rebuilt only by [`StreamsGroups::replay`]) apart from its soft state (set by handlers, lost on
//! fail-over), so that replaying a shard's records into a fresh shard can be checked to give the same
//! persistent state ([`StreamsGroups::persistent_state`]).

pub mod assignor;
pub use crate::config::streams as config;
pub mod configure;
pub mod describe;
pub mod endpoints;
pub mod front_door;
pub mod group;
pub mod hash;
pub mod heartbeat;
pub mod member;
pub mod offset_admission;
pub mod reconcile;
pub mod request_checks;
pub mod target;
pub mod tasks;
pub mod timeline_map;
pub mod timers;
pub mod topology;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use protocol::messages::{
    StrBytes, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse,
    StreamsGroupTopologyDescriptionUpdateResponse,
};
use protocol::{ErrorCode, Request, Response};

pub use config::StreamsConfig;

use crate::config::ShardConfig;
use crate::context::RequestContext;
use crate::error::ApiError;
use crate::group::{GroupListing, GroupType, GroupValidation};
use crate::outcome::TimerTask;
use crate::records::Record;
use crate::records::streams::StreamsGroupKey;
use crate::streams::assignor::{StickyTaskAssignor, TaskAssignor};
use crate::streams::configure::CreatableTopic;
use crate::streams::group::{Persistent, StreamsGroup};
use crate::streams::member::{MemberState, StreamsGroupMember};
use crate::streams::tasks::TasksTuple;
use crate::streams::timers::StreamsTimer;
use crate::timer::Timers;
use crate::topics::TopicsImage;

/// What the streams code may read or change of the rest of the shard while handling a request.
pub struct StreamsEnv<'a> {
    pub config: &'a ShardConfig,
    pub topics: &'a TopicsImage,
    /// The classic groups, which a streams join may replace when empty.
    pub classic: &'a dyn crate::group::OtherGroupType,
    pub timers: &'a mut Timers<TimerTask>,
}

/// Every streams group of the shard. The shard and the offsets code use the methods below.
#[derive(Clone)]
pub struct StreamsGroups {
    groups: BTreeMap<String, StreamsGroup>,
    /// The registered task assignors; the first is the default (`group.streams.assignors`).
    assignors: Vec<Arc<dyn TaskAssignor>>,
    /// The internal topics the last heartbeat asked to create (KafkaApis creates them).
    internal_topics_to_create: Vec<CreatableTopic>,
    /// Topic hashes of the metadata image (Kafka's `topicHashCache`).
    topic_hash_cache: hash::TopicHashCache,
    /// Incremented whenever the topic image changes (through `Shard::set_topics`).
    image_generation: u64,
    /// Groups whose `initial-rebalance-timeout-<group>` timer is scheduled.
    initial_delay_pending: BTreeSet<String>,
}

impl Default for StreamsGroups {
    fn default() -> Self {
        Self {
            groups: BTreeMap::new(),
            assignors: vec![Arc::new(StickyTaskAssignor)],
            internal_topics_to_create: Vec::new(),
            topic_hash_cache: Default::default(),
            image_generation: 0,
            initial_delay_pending: BTreeSet::new(),
        }
    }
}

impl std::fmt::Debug for StreamsGroups {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StreamsGroups")
            .field("groups", &self.groups)
            .field(
                "assignors",
                &self
                    .assignors
                    .iter()
                    .map(|a| a.name().to_string())
                    .collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl StreamsGroups {
    /// Whether a streams group with this id exists.
    pub fn contains(&self, group_id: &str) -> bool {
        self.groups.contains_key(group_id)
    }

    /// Whether the streams group exists and has no members.
    pub fn is_empty_group(&self, group_id: &str) -> bool {
        self.groups
            .get(group_id)
            .is_some_and(StreamsGroup::is_empty)
    }

    /// The group's answers to offset and deletion validation.
    pub fn validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        self.groups.get(group_id).map(|g| g as &dyn GroupValidation)
    }

    /// `StreamsGroup.cancelTimers`, for a group about to be deleted: its initial-rebalance timer. (An
    /// empty group has no member timers.)
    pub fn cancel_timers(&mut self, group_id: &str, timers: &mut Timers<TimerTask>) {
        timers.cancel(&timers::initial_rebalance_key(group_id));
        self.initial_delay_pending.remove(group_id);
    }

    /// The records that delete the group (`StreamsGroup.createGroupTombstoneRecords`).
    pub fn tombstones(&self, group_id: &str) -> Vec<Record> {
        let Some(group) = self.groups.get(group_id) else {
            return Vec::new();
        };
        let key = |m: &str| crate::records::streams::StreamsMemberKey {
            group_id: group_id.to_string(),
            member_id: m.to_string(),
        };
        let gkey = || StreamsGroupKey {
            group_id: group_id.to_string(),
        };
        let members: Vec<&String> = group.persistent.members.keys().collect();
        let mut out = Vec::new();
        for m in &members {
            out.push(Record::StreamsGroupCurrentMemberAssignment {
                key: key(m),
                value: None,
            });
        }
        for m in &members {
            out.push(Record::StreamsGroupTargetAssignmentMember {
                key: key(m),
                value: None,
            });
        }
        out.push(Record::StreamsGroupTargetAssignmentMetadata {
            key: gkey(),
            value: None,
        });
        for m in &members {
            out.push(Record::StreamsGroupMemberMetadata {
                key: key(m),
                value: None,
            });
        }
        out.push(Record::StreamsGroupMetadata {
            key: gkey(),
            value: None,
        });
        out.push(Record::StreamsGroupTopology {
            key: gkey(),
            value: None,
        });
        out
    }

    /// One ListGroups row per streams group, sorted by group id.
    pub fn listings(&self) -> Vec<GroupListing> {
        self.groups
            .values()
            .map(|g| GroupListing {
                group_id: g.group_id.clone(),
                protocol_type: "streams".to_string(),
                state: g.state().name().to_string(),
                group_type: GroupType::Streams,
            })
            .collect()
    }

    /// A group, for inspection.
    pub fn group(&self, group_id: &str) -> Option<&StreamsGroup> {
        self.groups.get(group_id)
    }

    /// Group ids in order.
    pub fn group_ids(&self) -> impl Iterator<Item = &String> {
        self.groups.keys()
    }

    /// The persistent state of every group, for checking that replay rebuilds it.
    pub fn persistent_state(&self) -> BTreeMap<&str, &Persistent> {
        self.groups
            .iter()
            .map(|(k, g)| (k.as_str(), &g.persistent))
            .collect()
    }

    /// Replaces the registered task assignors (the first becomes the default), e.g. with a mock in
    /// tests. An empty list falls back to the sticky assignor.
    pub fn set_assignors(&mut self, assignors: Vec<Arc<dyn TaskAssignor>>) {
        self.assignors = if assignors.is_empty() {
            vec![Arc::new(StickyTaskAssignor)]
        } else {
            assignors
        };
    }

    /// Called after the shard wrote records (of any group): Kafka then takes a snapshot, and reads at the
    /// committed offset see the soft state as it is now.
    pub fn on_write(&mut self) {
        for group in self.groups.values_mut() {
            if group.soft.committed_configured_topology != group.soft.configured_topology {
                group.soft.committed_configured_topology = group.soft.configured_topology.clone();
            }
        }
    }

    /// The internal topics (repartition and changelog) the last heartbeat found missing, for the
    /// broker to create (Kafka returns them to KafkaApis with the heartbeat result).
    pub fn internal_topics_to_create(&self) -> &[CreatableTopic] {
        &self.internal_topics_to_create
    }

    /// Runs a streams api; `None` for apis that are not streams apis.
    pub fn handle(
        &mut self,
        env: &mut StreamsEnv<'_>,
        ctx: &RequestContext,
        request: &Request,
        now_ms: i64,
    ) -> Option<(Response, Vec<Record>)> {
        match request {
            Request::StreamsGroupHeartbeat(r) => {
                // Only this heartbeat's topology configuration may ask for topics.
                self.internal_topics_to_create.clear();
                if let Some(refused) = front_door::check_heartbeat(r) {
                    return Some((refused.into(), Vec::new()));
                }
                let (response, records) = self.heartbeat(env, ctx, r, now_ms);
                Some((response.into(), records))
            }
            Request::StreamsGroupDescribe(r) => Some((self.describe(env, r).into(), Vec::new())),
            Request::StreamsGroupTopologyDescriptionUpdate(_) => {
                // No topology description plugin can be configured in regroup (Kafka 4.4 answers
                // this way when none is).
                let response = StreamsGroupTopologyDescriptionUpdateResponse::default()
                    .with_error_code(ErrorCode::UnsupportedVersion.code())
                    .with_error_message(Some(StrBytes::from_static_str(
                        "The broker has no streams group topology description plugin configured.",
                    )));
                Some((response.into(), Vec::new()))
            }
            _ => None,
        }
    }

    /// StreamsGroupHeartbeat: the response and the records to append.
    pub fn heartbeat(
        &mut self,
        env: &mut StreamsEnv<'_>,
        ctx: &RequestContext,
        r: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> (StreamsGroupHeartbeatResponse, Vec<Record>) {
        let result = request_checks::validate_heartbeat(r).and_then(|()| {
            self.heartbeat_inner(
                env,
                &ctx.client_id,
                &ctx.client_host,
                ctx.api_version,
                r,
                now_ms,
            )
        });
        match result {
            Ok(out) => (out.response, out.records),
            Err(e) => (error_response(&e), Vec::new()),
        }
    }

    /// Like [`Self::heartbeat`] but returns the handler's error with its full message (Kafka's
    /// exception), before the service maps it for the wire. For tests.
    pub fn heartbeat_result(
        &mut self,
        env: &mut StreamsEnv<'_>,
        ctx: &RequestContext,
        r: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Result<(StreamsGroupHeartbeatResponse, Vec<Record>), ApiError> {
        request_checks::validate_heartbeat(r)?;
        let out = self.heartbeat_inner(
            env,
            &ctx.client_id,
            &ctx.client_host,
            ctx.api_version,
            r,
            now_ms,
        )?;
        Ok((out.response, out.records))
    }

    /// Applies one streams record.
    pub fn replay(&mut self, record: &Record) {
        match record {
            Record::StreamsGroupMetadata { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    let p = &mut g.persistent;
                    p.group_epoch = v.epoch;
                    p.metadata_hash = v.metadata_hash;
                    p.validated_topology_epoch = v.validated_topology_epoch;
                    p.stored_description_topology_epoch = v.stored_description_topology_epoch;
                    p.failed_description_topology_epoch = v.failed_description_topology_epoch;
                    p.last_assignment_configs = v
                        .last_assignment_configs
                        .iter()
                        .flatten()
                        .map(|kv| (kv.key.clone(), kv.value.clone()))
                        .collect();
                    g.update_state();
                }
                None => {
                    let removable = self.groups.get(&key.group_id).is_some_and(|g| {
                        g.persistent.members.is_empty() && g.persistent.assignment_epoch == -1
                    });
                    if removable {
                        // Its timers were cancelled by whoever wrote the tombstones
                        // ([`StreamsGroups::cancel_timers`]).
                        self.groups.remove(&key.group_id);
                    }
                }
            },
            Record::StreamsGroupTopology { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    // A record with duplicate subtopology ids cannot be written by a coordinator.
                    if let Ok(t) = topology::StreamsTopology::from_record(v) {
                        g.persistent.topology = Some(t);
                    }
                    g.soft.metadata_hash_cache = None;
                    g.update_state();
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id) {
                        g.persistent.topology = None;
                        g.update_state();
                    }
                }
            },
            Record::StreamsGroupMemberMetadata { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    let mut m = g
                        .persistent
                        .members
                        .get(&key.member_id)
                        .cloned()
                        .unwrap_or_else(|| StreamsGroupMember::with_defaults(&key.member_id));
                    m.apply_metadata(v);
                    g.update_member(m);
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id)
                        && g.persistent.members.contains_key(&key.member_id)
                    {
                        g.remove_member(&key.member_id);
                    }
                }
            },
            Record::StreamsGroupTargetAssignmentMetadata { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    g.persistent.assignment_epoch = v.assignment_epoch;
                    g.persistent.assignment_timestamp = v.assignment_timestamp;
                    g.update_state();
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id) {
                        g.persistent.assignment_epoch = -1;
                        g.persistent.assignment_timestamp = 0;
                        g.update_state();
                    }
                }
            },
            Record::StreamsGroupTargetAssignmentMember { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    g.persistent.target_assignment.insert(
                        key.member_id.clone(),
                        TasksTuple::from_record(&v.active_tasks, &v.standby_tasks, &v.warmup_tasks),
                    );
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id) {
                        g.persistent.target_assignment.remove(&key.member_id);
                    }
                }
            },
            Record::StreamsGroupCurrentMemberAssignment { key, value } => match value {
                Some(v) => {
                    let g = self.persisted_group(&key.group_id);
                    let mut m = g
                        .persistent
                        .members
                        .get(&key.member_id)
                        .cloned()
                        .unwrap_or_else(|| StreamsGroupMember::with_defaults(&key.member_id));
                    m.apply_assignment(v);
                    g.update_member(m);
                }
                None => {
                    if let Some(g) = self.groups.get_mut(&key.group_id)
                        && let Some(old) = g.persistent.members.get(&key.member_id)
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
            _ => {}
        }
    }

    /// `getOrMaybeCreatePersistedStreamsGroup(groupId, true)`.
    fn persisted_group(&mut self, group_id: &str) -> &mut StreamsGroup {
        self.groups
            .entry(group_id.to_string())
            .or_insert_with(|| StreamsGroup::new(group_id))
    }

    /// Runs a streams timer that fired at `now_ms`; returns the records to append.
    pub fn run_timer(
        &mut self,
        timer: StreamsTimer,
        env: &mut StreamsEnv<'_>,
        now_ms: i64,
    ) -> Vec<Record> {
        match timer {
            StreamsTimer::SessionTimeout {
                group_id,
                member_id,
            } => match self.groups.get(&group_id) {
                Some(g) if g.member(&member_id).is_some() => {
                    heartbeat::fence_member(g, &member_id, env)
                }
                _ => Vec::new(),
            },
            StreamsTimer::RebalanceTimeout {
                group_id,
                member_id,
                member_epoch,
            } => match self.groups.get(&group_id) {
                Some(g)
                    if g.member(&member_id)
                        .is_some_and(|m| m.member_epoch == member_epoch) =>
                {
                    heartbeat::fence_member(g, &member_id, env)
                }
                _ => Vec::new(),
            },
            StreamsTimer::InitialRebalance { group_id } => {
                self.initial_delay_pending.remove(&group_id);
                self.delayed_target_assignment(&group_id, env, now_ms)
            }
        }
    }

    /// `computeDelayedTargetAssignment`.
    fn delayed_target_assignment(
        &mut self,
        group_id: &str,
        env: &mut StreamsEnv<'_>,
        now_ms: i64,
    ) -> Vec<Record> {
        let Some(group) = self.groups.get(group_id) else {
            return Vec::new();
        };
        let p = &group.persistent;
        if group.is_empty() || p.group_epoch <= p.assignment_epoch {
            return Vec::new();
        }
        let Some(configured) = group.soft.configured_topology.clone() else {
            return Vec::new();
        };
        let effective = env
            .config
            .streams
            .effective(env.config.group_overrides.get(group_id));
        if !heartbeat::assignment::can_compute(
            p.assignment_timestamp,
            effective.assignment_interval_ms,
            now_ms,
        ) {
            return Vec::new();
        }
        let view = target::MembersView::new(p, None);
        let assignor = heartbeat::select_assignor(&self.assignors, &effective);
        match target::build_target_assignment(
            group_id,
            &group.soft.task_offsets,
            &view,
            p.group_epoch,
            &configured,
            &p.last_assignment_configs,
            assignor.as_ref(),
            &env.config.kafka_bugs,
            now_ms,
        ) {
            Ok(result) => result.records,
            Err(_) => Vec::new(),
        }
    }

    /// `onLoaded`: session timeouts for every member, rebalance timeouts for members still revoking.
    pub fn on_loaded(&mut self, env: &mut StreamsEnv<'_>, now_ms: i64) {
        for (group_id, g) in &self.groups {
            let effective = env
                .config
                .streams
                .effective(env.config.group_overrides.get(group_id));
            for m in g.persistent.members.values() {
                timers::schedule_session(
                    env.timers,
                    group_id,
                    &m.member_id,
                    now_ms + i64::from(effective.session_timeout_ms),
                );
                if m.state == MemberState::UnrevokedTasks {
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

    /// `onUnloaded`: nothing streams-specific survives but the groups themselves.
    pub fn on_unloaded(&mut self) {
        self.internal_topics_to_create.clear();
        self.initial_delay_pending.clear();
    }

    /// `onMetadataUpdate`: groups that need a created, changed or deleted topic re-check their
    /// metadata hash at their next heartbeat.
    pub fn on_topics_changed(&mut self, old: &TopicsImage, new: &TopicsImage) {
        self.topic_hash_cache.retain_current(new);
        self.image_generation += 1;
        let mut changed: BTreeSet<&str> = BTreeSet::new();
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
        if changed.is_empty() {
            return;
        }
        for g in self.groups.values_mut() {
            let subscribed = g
                .persistent
                .topology
                .as_ref()
                .is_some_and(|t| changed.iter().any(|c| t.requires_topic(c)));
            if subscribed {
                g.soft.metadata_refresh_deadline = Default::default();
            }
        }
    }
}

/// The response Kafka's service builds for a failed heartbeat.
pub(crate) fn error_response(e: &ApiError) -> StreamsGroupHeartbeatResponse {
    let (code, message) = request_checks::wire_error(e);
    StreamsGroupHeartbeatResponse::default()
        .with_error_code(code.code())
        .with_error_message(message.map(StrBytes::from_string))
}

impl crate::group::OtherGroupType for StreamsGroups {
    fn holds(&self, group_id: &str) -> bool {
        self.contains(group_id)
    }

    fn is_empty(&self, group_id: &str) -> bool {
        self.is_empty_group(group_id)
    }

    fn tombstones(&self, group_id: &str) -> Vec<Record> {
        StreamsGroups::tombstones(self, group_id)
    }

    fn cancel_timers(&mut self, group_id: &str, timers: &mut Timers<TimerTask>) {
        StreamsGroups::cancel_timers(self, group_id, timers)
    }
}

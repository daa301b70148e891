//! Classic consumer groups with KIP-345 static membership: the state machine (Empty, PreparingRebalance,
//! CompletingRebalance, Stable, Dead), joins, syncs, heartbeats, leaves and their timers, faithful to
//! Kafka 4.4's `GroupMetadataManager` / `ClassicGroup`.
//!
//! # State and records
//! As in Kafka, a classic group lives in memory and is changed directly by the handlers; the
//! GroupMetadata record a handler writes (a completed sync phase, a static replacement in Stable, a group
//! that became empty, a new group) is *not* replayed into the live group (Kafka's `replayRecords =
//! false`). Replaying it into a shard that did not write it (a load after fail-over) rebuilds the group
//! from it. [`ClassicGroups`] tells the two apart by remembering its own writes until the shard replays
//! them. Every replay, own or not, updates the persisted view ([`ClassicGroups::persisted`]): what a
//! coordinator taking over would load.

pub use crate::config::classic as config;
pub mod consumer_protocol;
pub mod ctx;
pub mod group;
pub mod member;
pub mod member_id;
pub mod persist;
pub mod state;

pub(crate) mod api;
pub(crate) mod describe;
mod heartbeat;
mod join;
mod leave;
mod offset_admission;
mod rebalance;
pub(crate) mod responses;
mod sync;

use std::collections::{BTreeMap, BTreeSet, VecDeque};

pub use config::ClassicConfig;
pub use ctx::ClassicTimer;
pub use group::{ClassicGroup, IllegalState};
pub use member::ClassicMember;
pub use state::GroupState;

use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;
use protocol::messages::{JoinGroupResponse, SyncGroupResponse};

use crate::group::{GroupListing, GroupType, GroupValidation};
use crate::outcome::{Outcome, Reply, RequestToken, TimerTask};
use crate::records::Record;
use crate::records::classic::{GroupMetadataKey, GroupMetadataValue};
use crate::timer::Timers;
use ctx::Ctx;
use member_id::MemberIdGenerator;
use responses::sb;

/// Every classic group of the shard. The shard, the streams code and the offsets code use the methods
/// below; the handlers live in this module.
#[derive(Debug, Clone, Default)]
pub struct ClassicGroups {
    groups: BTreeMap<String, ClassicGroup>,
    ids: MemberIdGenerator,
    /// The last GroupMetadata value replayed for each group.
    persisted: BTreeMap<String, GroupMetadataValue>,
    /// GroupMetadata values this shard wrote and the shard has not replayed yet.
    own_writes: VecDeque<(String, GroupMetadataValue)>,
    /// Test hook: the errors the next GroupMetadata writes fail with.
    write_failures: VecDeque<ErrorCode>,
    /// Requests answered with an error by a failed operation while still parked on a member: Kafka's
    /// completed future ignores a later completion, so later answers to them are dropped.
    dead_tokens: BTreeSet<RequestToken>,
}

impl ClassicGroups {
    /// Whether a classic group with this id exists.
    pub fn contains(&self, group_id: &str) -> bool {
        self.groups.contains_key(group_id)
    }

    /// Whether the classic group exists and is empty (a streams join may then replace it).
    pub fn is_empty_group(&self, group_id: &str) -> bool {
        self.groups
            .get(group_id)
            .is_some_and(ClassicGroup::is_empty)
    }

    /// The records that delete the group (Kafka's `createGroupTombstoneRecords`): one GroupMetadata
    /// tombstone. Its replay removes the group.
    pub fn tombstones(&self, group_id: &str) -> Vec<Record> {
        if self.groups.contains_key(group_id) {
            vec![persist::tombstone(group_id)]
        } else {
            Vec::new()
        }
    }

    /// The group's answers to offset and deletion validation.
    pub fn validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        self.groups.get(group_id).map(|g| g as &dyn GroupValidation)
    }

    /// One ListGroups row per classic group, sorted by group id.
    pub fn listings(&self) -> Vec<GroupListing> {
        self.groups
            .values()
            .map(|g| GroupListing {
                group_id: g.group_id().to_string(),
                protocol_type: g.protocol_type().unwrap_or("").to_string(),
                state: g.state().name().to_string(),
                group_type: GroupType::Classic,
            })
            .collect()
    }

    /// The group, if it exists.
    pub fn get(&self, group_id: &str) -> Option<&ClassicGroup> {
        self.groups.get(group_id)
    }

    /// Every group, by id.
    pub fn groups(&self) -> impl Iterator<Item = &ClassicGroup> {
        self.groups.values()
    }

    /// What a coordinator loading this shard's records would start from: the last GroupMetadata value of
    /// every group.
    pub fn persisted(&self) -> &BTreeMap<String, GroupMetadataValue> {
        &self.persisted
    }

    /// Seeds the generator of member ids (see [`member_id`]).
    pub fn set_member_id_seed(&mut self, seed: u64) {
        self.ids = MemberIdGenerator::new(seed);
    }

    /// Gives this shard the member-id generator of one coordinator load (see
    /// [`MemberIdGenerator::for_load`]).
    pub fn set_member_ids(&mut self, ids: MemberIdGenerator) {
        self.ids = ids;
    }

    /// Creates an empty group without writing anything, as Kafka's `getOrMaybeCreateClassicGroup(id,
    /// true)` does for offset commits of simple consumers (and Kafka's unit tests do to set up a group).
    pub fn create_empty_group(&mut self, group_id: &str, now_ms: Option<i64>) -> &mut ClassicGroup {
        self.groups
            .entry(group_id.to_string())
            .or_insert_with(|| ClassicGroup::new(group_id, GroupState::Empty, now_ms))
    }

    /// Removes the group if it is a simple group (no protocol type, Empty, nobody pending: a group only
    /// holding offsets), as replaying another group type's records over it does in Kafka
    /// (`getOrMaybeCreatePersisted*Group`). Returns whether it was removed.
    pub fn remove_simple_group(&mut self, group_id: &str) -> bool {
        let simple = self.groups.get(group_id).is_some_and(|g| {
            g.protocol_type().is_none()
                && g.is_in_state(GroupState::Empty)
                && g.pending_join_members().is_empty()
        });
        if simple {
            self.groups.remove(group_id);
        }
        simple
    }

    /// `ClassicGroup.completeAllJoinFutures(error)` then `completeAllSyncFutures(error)`: every parked
    /// JoinGroup is answered with `error` and the member's id, every parked SyncGroup with `error`
    /// (an online upgrade does this before converting the group, whether or not the conversion then
    /// succeeds). The replies go to `out`.
    pub fn complete_all_join_and_sync_futures(
        &mut self,
        group_id: &str,
        error: ErrorCode,
        out: &mut Outcome,
    ) {
        let Some(group) = self.groups.get_mut(group_id) else {
            return;
        };
        for member_id in group.member_ids() {
            if let Some(parked) = group.take_join(&member_id) {
                responses::answer_parked_join(
                    out,
                    parked,
                    responses::join_error(&member_id, error),
                );
            }
        }
        for member_id in group.member_ids() {
            if let Some(parked) = group.take_sync(&member_id) {
                responses::answer_parked_sync(out, parked, responses::sync_error(error));
            }
        }
        let dead = &self.dead_tokens;
        out.replies.retain(|r| !dead.contains(&r.token));
    }

    /// The classic side of an online downgrade (`GroupMetadataManager.convertToClassicGroup` after the
    /// consumer group's tombstones): `ClassicGroup.fromConsumerGroup` (a Stable group at the consumer
    /// group's epoch, protocol type `consumer`, the members in order, the first leading, the protocol
    /// voted, each member's target serialized in the ConsumerProtocol version of its metadata for that
    /// protocol), its GroupMetadata record (returned, to be appended and replayed as this shard's own
    /// write: the live group is not rebuilt from it), a heartbeat timer per member, and a rebalance
    /// when `rebalance_reason` is set.
    pub fn install_downgraded(
        &mut self,
        d: &crate::group::DowngradedGroup,
        config: &ClassicConfig,
        bugs: &KafkaBugs,
        timers: &mut Timers<TimerTask>,
        now_ms: i64,
    ) -> Result<Vec<Record>, IllegalState> {
        let gid = d.group_id.as_str();
        let mut group = ClassicGroup::loaded(
            gid,
            GroupState::Stable,
            d.generation_id,
            Some(group::CONSUMER_PROTOCOL_TYPE.to_string()),
            None,
            None,
            Some(now_ms),
        );
        for (m, _) in &d.members {
            group.add(
                ClassicMember::new(
                    m.member_id.clone(),
                    m.instance_id.clone(),
                    m.client_id.clone(),
                    m.client_host.clone(),
                    m.rebalance_timeout_ms,
                    m.session_timeout_ms,
                    group::CONSUMER_PROTOCOL_TYPE.to_string(),
                    m.protocols
                        .iter()
                        .map(|(name, metadata)| member::Protocol {
                            name: name.clone(),
                            metadata: bytes::Bytes::copy_from_slice(metadata),
                        })
                        .collect(),
                ),
                None,
            )?;
        }
        let protocol = group.select_protocol()?;
        group.set_protocol_name(Some(protocol.clone()));
        group.set_subscribed_topics(group.compute_subscribed_topics());
        let mut assignments = BTreeMap::new();
        for (m, target) in &d.members {
            let version = group
                .member(&m.member_id)
                .and_then(|c| c.metadata(&protocol))
                .map_or(0, |b| crate::consumer::migration::subscription_version(b));
            let bytes = crate::consumer::migration::serialize_assignment(version, target);
            if let Some(c) = group.member_mut(&m.member_id) {
                c.assignment = bytes.clone();
            }
            assignments.insert(m.member_id.clone(), bytes);
        }
        let record = persist::metadata_record(&group, &assignments)?;
        if let Record::GroupMetadata {
            value: Some(value), ..
        } = &record
        {
            self.own_writes.push_back((gid.to_string(), value.clone()));
        }
        self.groups.insert(gid.to_string(), group);
        let mut out = Outcome {
            records: vec![record],
            ..Outcome::default()
        };
        let reason = d.rebalance_reason.is_some();
        self.run(config, bugs, timers, now_ms, &mut out, |groups, _, ctx| {
            let Some(group) = groups.get_mut(gid) else {
                return Ok(());
            };
            for member_id in group.member_ids() {
                rebalance::reschedule_heartbeat(group, &member_id, ctx);
            }
            if reason {
                rebalance::prepare_rebalance(group, ctx)?;
            }
            Ok(())
        })?;
        Ok(out.records)
    }

    /// Test hook: the next GroupMetadata write a classic handler makes fails with `error` (Kafka's
    /// append future completing exceptionally), with the handler's failure path.
    pub fn fail_next_write(&mut self, error: ErrorCode) {
        self.write_failures.push_back(error);
    }

    /// Test hook mirroring Kafka tests that force a group into a state.
    pub fn force_state(
        &mut self,
        group_id: &str,
        state: GroupState,
        now_ms: i64,
    ) -> Result<(), IllegalState> {
        match self.groups.get_mut(group_id) {
            Some(group) => group.force_state(state, now_ms),
            None => Err(IllegalState(format!("no group {group_id}"))),
        }
    }

    /// Test hook mirroring Kafka tests that call `prepareRebalance(group)` directly: starts a rebalance of
    /// the group without any member rejoining. The caller replays the outcome's records, as
    /// `Shard::handle` does.
    pub fn prepare_rebalance(
        &mut self,
        group_id: &str,
        config: &ClassicConfig,
        timers: &mut Timers<TimerTask>,
        now_ms: i64,
    ) -> Result<Outcome, IllegalState> {
        let mut out = Outcome::default();
        self.run(
            config,
            &KafkaBugs::none(),
            timers,
            now_ms,
            &mut out,
            |groups, _, ctx| match groups.get_mut(group_id) {
                Some(group) => rebalance::prepare_rebalance(group, ctx),
                None => Err(IllegalState(format!("no group {group_id}"))),
            },
        )?;
        Ok(out)
    }

    /// Applies a GroupMetadata record. A tombstone removes the group. A value this shard wrote only
    /// updates the persisted view; any other value (a load) replaces the group by the one it describes.
    pub fn replay(&mut self, key: &GroupMetadataKey, value: Option<&GroupMetadataValue>) {
        let group_id = key.group.as_str();
        match value {
            None => {
                self.groups.remove(group_id);
                self.persisted.remove(group_id);
            }
            Some(value) => {
                self.persisted.insert(group_id.to_string(), value.clone());
                let own = self
                    .own_writes
                    .front()
                    .is_some_and(|(g, v)| g == group_id && v == value);
                if own {
                    self.own_writes.pop_front();
                } else {
                    self.groups.insert(
                        group_id.to_string(),
                        persist::group_from_value(group_id, value),
                    );
                }
            }
        }
    }

    /// After a load: every member's heartbeat is re-armed with its session timeout, and a group over
    /// `group.max.size` starts a rebalance.
    pub fn on_loaded(
        &mut self,
        config: &ClassicConfig,
        bugs: &KafkaBugs,
        timers: &mut Timers<TimerTask>,
        now_ms: i64,
    ) {
        let mut scratch = Outcome::default();
        let ids: Vec<String> = self.groups.keys().cloned().collect();
        for group_id in ids {
            let _ = self.run(
                config,
                bugs,
                timers,
                now_ms,
                &mut scratch,
                |groups, _, ctx| {
                    let Some(group) = groups.get_mut(&group_id) else {
                        return Ok(());
                    };
                    for member_id in group.member_ids() {
                        rebalance::reschedule_heartbeat(group, &member_id, ctx);
                    }
                    if group.num_members() as i64 > i64::from(ctx.config.max_size) {
                        rebalance::prepare_rebalance(group, ctx)?;
                    }
                    Ok(())
                },
            );
        }
    }

    /// On unload every group is Dead; parked JoinGroups (PreparingRebalance) or SyncGroups
    /// (CompletingRebalance, Stable) are answered NOT_COORDINATOR.
    pub fn on_unloaded(&mut self) -> Vec<Reply> {
        let mut out = Outcome::default();
        for group in self.groups.values_mut() {
            let previous = group.state();
            let timestamp = group.current_state_timestamp_or_default();
            group.mark_dead(timestamp);
            for member_id in group.member_ids() {
                match previous {
                    GroupState::PreparingRebalance => {
                        if let Some(parked) = group.take_join(&member_id) {
                            responses::answer_parked_join(
                                &mut out,
                                parked,
                                JoinGroupResponse::default()
                                    .with_member_id(sb(&member_id))
                                    .with_error_code(ErrorCode::NotCoordinator.code()),
                            );
                        }
                    }
                    GroupState::CompletingRebalance | GroupState::Stable => {
                        if let Some(parked) = group.take_sync(&member_id) {
                            out.reply(
                                parked.token,
                                SyncGroupResponse::default()
                                    .with_error_code(ErrorCode::NotCoordinator.code()),
                            );
                        }
                    }
                    GroupState::Empty | GroupState::Dead => {}
                }
            }
        }
        out.replies.retain(|r| !self.dead_tokens.contains(&r.token));
        out.replies
    }

    /// Runs a classic timer at `now_ms`.
    pub fn run_timer(
        &mut self,
        config: &ClassicConfig,
        bugs: &KafkaBugs,
        timers: &mut Timers<TimerTask>,
        timer: ClassicTimer,
        now_ms: i64,
    ) -> Outcome {
        let mut out = Outcome::default();
        let _ = self.run(config, bugs, timers, now_ms, &mut out, |groups, _, ctx| {
            let group_id = match &timer {
                ClassicTimer::Heartbeat { group_id, .. }
                | ClassicTimer::InitialJoin { group_id, .. }
                | ClassicTimer::Join { group_id }
                | ClassicTimer::Sync { group_id, .. } => group_id,
            };
            let Some(group) = groups.get_mut(group_id) else {
                return Ok(());
            };
            match &timer {
                ClassicTimer::Heartbeat { member_id, .. } => {
                    rebalance::expire_heartbeat(group, member_id, ctx)
                }
                ClassicTimer::InitialJoin {
                    delay_ms,
                    remaining_ms,
                    ..
                } => rebalance::try_complete_initial_rebalance_else_schedule(
                    group,
                    *delay_ms,
                    *remaining_ms,
                    ctx,
                ),
                ClassicTimer::Join { .. } => rebalance::complete_join(group, ctx),
                ClassicTimer::Sync { generation_id, .. } => {
                    rebalance::expire_pending_sync(group, *generation_id, ctx)
                }
            }
        });
        out
    }

    /// Runs one operation with a fresh handler environment. A failed operation's records are dropped (the
    /// replies it already sent stand); the GroupMetadata values it wrote are remembered as own writes.
    pub(crate) fn run<R>(
        &mut self,
        config: &ClassicConfig,
        bugs: &KafkaBugs,
        timers: &mut Timers<TimerTask>,
        now_ms: i64,
        out: &mut Outcome,
        op: impl FnOnce(
            &mut BTreeMap<String, ClassicGroup>,
            &mut MemberIdGenerator,
            &mut Ctx,
        ) -> Result<R, IllegalState>,
    ) -> Result<R, IllegalState> {
        let records_mark = out.records.len();
        let replies_mark = out.replies.len();
        let result = {
            let mut ctx = Ctx {
                config,
                bugs,
                timers,
                now: now_ms,
                out: &mut *out,
                failures: &mut self.write_failures,
            };
            op(&mut self.groups, &mut self.ids, &mut ctx)
        };
        if result.is_err() {
            out.records.truncate(records_mark);
        }
        for record in &out.records[records_mark..] {
            if let Record::GroupMetadata {
                key,
                value: Some(value),
            } = record
            {
                self.own_writes
                    .push_back((key.group.clone(), value.clone()));
            }
        }
        if !self.dead_tokens.is_empty() {
            let dead = &self.dead_tokens;
            let mut i = 0;
            out.replies.retain(|r| {
                i += 1;
                i <= replies_mark || !dead.contains(&r.token)
            });
        }
        result
    }

    /// Answers a request whose operation failed, unless it was already answered; a request still parked
    /// on a member is marked so that no second answer is sent later.
    pub(crate) fn answer_failed(
        &mut self,
        out: &mut Outcome,
        token: RequestToken,
        response: impl Into<protocol::Response>,
    ) {
        if !out.replies.iter().any(|r| r.token == token) {
            out.reply(token, response);
            self.dead_tokens.insert(token);
        }
    }

    /// An accepted offset commit keeps a classic member's session alive while the group is Stable or
    /// PreparingRebalance.
    pub(crate) fn refresh_session_on_commit(
        &mut self,
        group_id: &str,
        member_id: &str,
        config: &ClassicConfig,
        timers: &mut Timers<TimerTask>,
        now_ms: i64,
    ) {
        let Some(group) = self.groups.get(group_id) else {
            return;
        };
        if !(group.is_in_state(GroupState::Stable)
            || group.is_in_state(GroupState::PreparingRebalance))
        {
            return;
        }
        let mut scratch = Outcome::default();
        let mut failures = VecDeque::new();
        // Only a heartbeat timer is re-armed here: no switch reads the set.
        let bugs = KafkaBugs::none();
        let mut ctx = Ctx {
            config,
            bugs: &bugs,
            timers,
            now: now_ms,
            out: &mut scratch,
            failures: &mut failures,
        };
        rebalance::reschedule_heartbeat(group, member_id, &mut ctx);
    }
}

impl crate::group::OtherGroupType for ClassicGroups {
    fn holds(&self, group_id: &str) -> bool {
        self.contains(group_id)
    }

    fn is_empty(&self, group_id: &str) -> bool {
        self.is_empty_group(group_id)
    }

    fn tombstones(&self, group_id: &str) -> Vec<Record> {
        ClassicGroups::tombstones(self, group_id)
    }

    /// Kafka cancels no timers of a classic group it deletes.
    fn cancel_timers(&mut self, _group_id: &str, _timers: &mut Timers<TimerTask>) {}

    fn is_classic(&self) -> bool {
        true
    }

    fn protocol_type(&self, group_id: &str) -> Option<String> {
        self.get(group_id)
            .and_then(|g| g.protocol_type().map(str::to_string))
    }

    fn member_count(&self, group_id: &str) -> usize {
        self.get(group_id).map_or(0, |g| g.members().count())
    }

    fn classic_view(&self, group_id: &str) -> Option<crate::group::ClassicGroupView> {
        let g = self.get(group_id)?;
        Some(crate::group::ClassicGroupView {
            generation_id: g.generation_id(),
            protocol_name: g.protocol_name().map(str::to_string),
            members: g
                .members()
                .map(|m| crate::group::ClassicMemberView {
                    member_id: m.member_id.clone(),
                    instance_id: m.group_instance_id.clone(),
                    client_id: m.client_id.clone(),
                    client_host: m.client_host.clone(),
                    rebalance_timeout_ms: m.rebalance_timeout_ms,
                    session_timeout_ms: m.session_timeout_ms,
                    protocols: m
                        .protocols
                        .iter()
                        .map(|p| (p.name.clone(), p.metadata.to_vec()))
                        .collect(),
                    assignment: m.assignment.to_vec(),
                })
                .collect(),
        })
    }
}

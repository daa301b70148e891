//! Coverage goals ("sometimes" assertions): states a sweep should reach at least once somewhere,
//! and the counters that show what a run exercised.
//!
//! An invariant must hold on every event of every run; a goal must hold on some event of some run.
//! A green sweep that never fenced a zombie, never moved a coordinator during a rebalance and
//! never answered UNRELEASED_INSTANCE_ID says nothing about those paths, so scenarios declare the
//! goals their fault mix exists to reach (`Expect::goals` in the catalogue) and
//! `regroup sweep --coverage` fails when no seed reached one.
//!
//! The [`Tracker`] sees every event the hub logs, in log order, and remembers when each goal was
//! first reached in the run. It records every goal it can detect, declared or not; the sweep
//! compares what was reached with what each scenario declared. Nothing here feeds the trace hash
//! or a verdict of the run: coverage only reports.

use std::collections::{BTreeMap, BTreeSet};

use coordinator::Record;
use coordinator::events::EventKind as ClusterKind;
use members::observer::{ClientKind, Event as ClientEvent, EventKind as ClientEventKind, TaskId};
use protocol::{Api, ErrorCode};
use serde::Serialize;

use crate::event::FaultEvent;
use crate::model::{self, Model};

/// A state a sweep should reach at least once.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Goal {
    /// A client received a response carrying this error code (top-level or first).
    Answered(ErrorCode),
    /// An OffsetCommit was refused because its sender was no longer the member it claimed to be
    /// (FENCED_MEMBER_EPOCH, STALE_MEMBER_EPOCH, ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID,
    /// FENCED_INSTANCE_ID).
    ZombieCommitRejected,
    /// A static member came back as a new member (new member id, same instance id) and joined with
    /// the epoch (generation) its previous incarnation had: KIP-345's rejoin without a rebalance.
    StaticMemberBackWithoutRebalance,
    /// A streams member was removed from its group (its assignment tombstoned) while its committed
    /// state was UNREVOKED_TASKS and it had not left: the revocation timed out (or its session did
    /// mid-revocation).
    RemovedWhileRevoking,
    /// An offsets partition was loaded again (its coordinator moved or restarted) while a group
    /// it hosts was rebalancing: a streams group Assigning or Reconciling per its committed
    /// records, or a classic group with a member in PREPARING_REBALANCE or COMPLETING_REBALANCE.
    CoordinatorMovedDuringRebalance,
    /// The controller fenced a broker that it later unfenced.
    BrokerFencedAndUnfenced,
    /// A broker went through controlled shutdown.
    ControlledShutdown,
    /// A streams group's committed topology was replaced by one with a higher epoch.
    TopologyEpochChanged,
    /// A streams member started a task as active that it held as a standby just before.
    StandbyPromoted,
    /// A coordinator write failed (timed out, or its partition was lost before it committed).
    CoordinatorWriteFailed,
    /// A follower truncated its copy of a partition to follow a new leader.
    ReplicaTruncated,
    /// A fault of this kind (the schedule's fault name, e.g. `crash`) was injected.
    FaultInjected(&'static str),
}

impl Goal {
    /// The goal's name in tables and JSON, e.g. `answered-FENCED_INSTANCE_ID`, `fault-crash`.
    pub fn name(&self) -> String {
        match self {
            Goal::Answered(e) => format!("answered-{}", e.name()),
            Goal::ZombieCommitRejected => "zombie-commit-rejected".into(),
            Goal::StaticMemberBackWithoutRebalance => "static-member-back-without-rebalance".into(),
            Goal::RemovedWhileRevoking => "removed-while-revoking".into(),
            Goal::CoordinatorMovedDuringRebalance => "coordinator-moved-during-rebalance".into(),
            Goal::BrokerFencedAndUnfenced => "broker-fenced-and-unfenced".into(),
            Goal::ControlledShutdown => "controlled-shutdown".into(),
            Goal::TopologyEpochChanged => "topology-epoch-changed".into(),
            Goal::StandbyPromoted => "standby-promoted".into(),
            Goal::CoordinatorWriteFailed => "coordinator-write-failed".into(),
            Goal::ReplicaTruncated => "replica-truncated".into(),
            Goal::FaultInjected(kind) => format!("fault-{kind}"),
        }
    }
}

/// The error codes that refuse a commit from a member that is no longer what it claims.
const ZOMBIE_COMMIT_ERRORS: &[ErrorCode] = &[
    ErrorCode::FencedMemberEpoch,
    ErrorCode::StaleMemberEpoch,
    ErrorCode::IllegalGeneration,
    ErrorCode::UnknownMemberId,
    ErrorCode::FencedInstanceId,
];

/// What one run reached and exercised.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCoverage {
    /// Goal name → the simulated ms it was first reached at.
    pub goals: BTreeMap<String, i64>,
    /// `Api/ERROR` (`NONE` for success) → responses received.
    pub answers: BTreeMap<String, u64>,
    /// `streams:FROM->TO` and `classic:FROM->TO` → times a group's state moved so, as its
    /// committed records show it (Kafka's `StreamsGroup.maybeUpdateGroupState` applied to the
    /// committed state; classic groups persist only Empty and Stable).
    pub group_states: BTreeMap<String, u64>,
    /// `streams-member:FROM->TO` and `consumer:FROM->TO` → client state-machine moves.
    pub member_states: BTreeMap<String, u64>,
}

/// Follows one run's events and records what they reached.
#[derive(Debug, Default)]
pub struct Tracker {
    goals: BTreeMap<Goal, i64>,
    answers: BTreeMap<(Api, Option<ErrorCode>), u64>,
    group_states: BTreeMap<(&'static str, &'static str, &'static str), u64>,
    member_states: BTreeMap<(&'static str, &'static str, &'static str), u64>,
    /// Per streams group: its state as last derived from the committed records.
    streams_states: BTreeMap<String, &'static str>,
    /// Per classic group: Empty or Stable, as last committed.
    classic_states: BTreeMap<String, &'static str>,
    topology_epochs: BTreeMap<String, i32>,
    /// Per streams thread (client name): the standby tasks of its last owned-tasks snapshot.
    standbys: BTreeMap<String, BTreeSet<TaskId>>,
    /// Per (group, instance id): the member id and epoch of the static member's last join.
    statics: BTreeMap<(String, String), (String, i32)>,
    /// Member ids that sent a leave.
    left: BTreeSet<String>,
    /// Per classic consumer (client name): (group, state) of its state machine.
    consumer_states: BTreeMap<String, (String, &'static str)>,
    /// Offsets partitions loaded at least once.
    loaded: BTreeSet<i32>,
    fenced_brokers: BTreeSet<i32>,
}

impl Tracker {
    fn reach(&mut self, goal: Goal, at_ms: i64) {
        self.goals.entry(goal).or_insert(at_ms);
    }

    /// Whether `goal` has been reached so far.
    pub fn reached(&self, goal: Goal) -> bool {
        self.goals.contains_key(&goal)
    }

    /// A client model's event; `at_ms` is its simulated time.
    pub fn on_client(&mut self, at_ms: i64, event: &ClientEvent) {
        match &event.kind {
            ClientEventKind::ResponseReceived { api, error, .. } => {
                *self.answers.entry((*api, *error)).or_default() += 1;
                if let Some(e) = error {
                    self.reach(Goal::Answered(*e), at_ms);
                }
            }
            ClientEventKind::CommitRejected { error, .. }
                if ZOMBIE_COMMIT_ERRORS.contains(error) =>
            {
                self.reach(Goal::ZombieCommitRejected, at_ms);
            }
            ClientEventKind::StateChanged { from, to } => {
                let kind = match event.client.kind {
                    ClientKind::StreamsMember => "streams-member",
                    ClientKind::Consumer => "consumer",
                    ClientKind::AsyncConsumer => "async-consumer",
                    ClientKind::Admin | ClientKind::Raw => "client",
                };
                *self.member_states.entry((kind, from, to)).or_default() += 1;
                if event.client.kind == ClientKind::Consumer {
                    self.consumer_states.insert(
                        event.client.name.clone(),
                        (event.client.group_id.clone(), to),
                    );
                }
            }
            ClientEventKind::Joined { epoch } => {
                if let Some(instance) = &event.client.instance_id {
                    let key = (event.client.group_id.clone(), instance.clone());
                    if let Some((member, before)) = self.statics.get(&key)
                        && *member != event.member_id
                        && *before == *epoch
                    {
                        self.reach(Goal::StaticMemberBackWithoutRebalance, at_ms);
                    }
                    self.statics.insert(key, (event.member_id.clone(), *epoch));
                }
            }
            ClientEventKind::EpochChanged { to, .. } => {
                // Only a known member moving on: a classic consumer reports its first generation
                // before it learns its member id, and that is its join, judged on `Joined`.
                if let Some(instance) = &event.client.instance_id {
                    let key = (event.client.group_id.clone(), instance.clone());
                    if let Some((member, epoch)) = self.statics.get_mut(&key)
                        && *member == event.member_id
                    {
                        *epoch = *to;
                    }
                }
            }
            ClientEventKind::OwnedTasks {
                active, standby, ..
            } => {
                let before = self.standbys.get(&event.client.name);
                if before.is_some_and(|b| active.iter().any(|t| b.contains(t))) {
                    self.reach(Goal::StandbyPromoted, at_ms);
                }
                self.standbys
                    .insert(event.client.name.clone(), standby.iter().cloned().collect());
            }
            ClientEventKind::Stopped { .. } => {
                // A restarted thread starts from nothing: its old standbys are not warm state.
                self.standbys.remove(&event.client.name);
                self.consumer_states.remove(&event.client.name);
            }
            ClientEventKind::LeaveSent { .. } => {
                self.left.insert(event.member_id.clone());
            }
            _ => {}
        }
    }

    /// A broker's or the controller's event.
    pub fn on_cluster(&mut self, at_ms: i64, kind: &ClusterKind, model: &Model) {
        match kind {
            ClusterKind::BrokerFenced { broker, .. } => {
                self.fenced_brokers.insert(*broker);
            }
            // Removing ends the fence either way; only a fenced broker's return counts.
            ClusterKind::BrokerUnfenced { broker, .. } if self.fenced_brokers.remove(broker) => {
                self.reach(Goal::BrokerFencedAndUnfenced, at_ms);
            }
            ClusterKind::ControlledShutdownStarted { .. } => {
                self.reach(Goal::ControlledShutdown, at_ms)
            }
            ClusterKind::WriteFailed { .. } => self.reach(Goal::CoordinatorWriteFailed, at_ms),
            ClusterKind::ReplicaTruncated { .. } => self.reach(Goal::ReplicaTruncated, at_ms),
            ClusterKind::CoordinatorLoading { partition, .. }
                if self.loaded.contains(partition) && self.rebalancing_on(*partition, model) =>
            {
                self.reach(Goal::CoordinatorMovedDuringRebalance, at_ms);
            }
            ClusterKind::CoordinatorLoaded { partition, .. } => {
                self.loaded.insert(*partition);
            }
            _ => {}
        }
    }

    /// Whether a group hosted by offsets partition `partition` is rebalancing.
    fn rebalancing_on(&self, partition: i32, model: &Model) -> bool {
        let streams = model.streams.iter().any(|(group, g)| {
            g.partition == partition
                && matches!(
                    self.streams_states.get(group).copied(),
                    Some("ASSIGNING" | "RECONCILING")
                )
        });
        let classic = self.consumer_states.values().any(|(group, state)| {
            matches!(*state, "PREPARING_REBALANCE" | "COMPLETING_REBALANCE")
                && model
                    .classic
                    .get(group)
                    .is_some_and(|g| g.partition == partition)
        });
        streams || classic
    }

    /// A committed record, before the model applies it.
    pub fn on_record(&mut self, at_ms: i64, record: &Record, model: &Model) {
        match record {
            Record::StreamsGroupTopology {
                key,
                value: Some(v),
            } => {
                let before = self.topology_epochs.insert(key.group_id.clone(), v.epoch);
                if before.is_some_and(|e| v.epoch > e) {
                    self.reach(Goal::TopologyEpochChanged, at_ms);
                }
            }
            Record::StreamsGroupCurrentMemberAssignment { key, value: None } => {
                let revoking = model
                    .streams
                    .get(&key.group_id)
                    .and_then(|g| g.members.get(&key.member_id))
                    .and_then(|m| m.assignment.as_ref())
                    .is_some_and(|a| a.state == UNREVOKED_TASKS);
                if revoking && !self.left.contains(&key.member_id) {
                    self.reach(Goal::RemovedWhileRevoking, at_ms);
                }
            }
            Record::GroupMetadata { key, value } => {
                let state = match value {
                    None => "Dead",
                    Some(v) if v.members.is_empty() => "Empty",
                    Some(_) => "Stable",
                };
                let before = self
                    .classic_states
                    .insert(key.group.clone(), state)
                    .unwrap_or("Empty");
                if before != state {
                    *self
                        .group_states
                        .entry(("classic", before, state))
                        .or_default() += 1;
                }
            }
            _ => {}
        }
    }

    /// The end of a committed batch (one coordinator write) that touched streams group `group`:
    /// its state as the committed records now give it.
    pub fn on_streams_batch(&mut self, group: &str, model: &Model) {
        let state = model.streams.get(group).map_or("DEAD", streams_state);
        let before = self
            .streams_states
            .insert(group.to_string(), state)
            .unwrap_or("EMPTY");
        if before != state {
            *self
                .group_states
                .entry(("streams", before, state))
                .or_default() += 1;
        }
    }

    /// A fault event.
    pub fn on_fault(&mut self, at_ms: i64, event: &FaultEvent) {
        if let FaultEvent::Injected { fault, .. } = event {
            self.reach(Goal::FaultInjected(fault), at_ms);
        }
    }

    /// What the run reached, by name.
    pub fn finish(&self) -> RunCoverage {
        RunCoverage {
            goals: self.goals.iter().map(|(g, at)| (g.name(), *at)).collect(),
            answers: self
                .answers
                .iter()
                .map(|((api, error), n)| {
                    let error = error.map_or("NONE", ErrorCode::name);
                    (format!("{}/{error}", api.name()), *n)
                })
                .collect(),
            group_states: counted(&self.group_states),
            member_states: counted(&self.member_states),
        }
    }
}

fn counted(map: &BTreeMap<(&str, &str, &str), u64>) -> BTreeMap<String, u64> {
    map.iter()
        .map(|((kind, from, to), n)| (format!("{kind}:{from}->{to}"), *n))
        .collect()
}

/// `StreamsGroupCurrentMemberAssignmentValue.state` of a member with tasks pending revocation.
const UNREVOKED_TASKS: i8 = 2;
/// ... and of a reconciled member.
const STABLE: i8 = 1;

/// A streams group's state from its committed records: Kafka's `maybeUpdateGroupState` (the
/// coordinator's `update_state`) over the persisted fields it reads.
pub fn streams_state(g: &model::StreamsGroup) -> &'static str {
    if !g.exists {
        return "DEAD";
    }
    // Called after every streams batch: walk the members without collecting them (2,000 of them
    // in a large group), stopping at the first one that decides.
    if g.live_members().next().is_none() {
        "EMPTY"
    } else if g.topology.as_ref().map(|t| t.epoch) != Some(g.validated_topology_epoch) {
        "NOT_READY"
    } else if g.epoch > g.assignment_epoch {
        "ASSIGNING"
    } else if g.live_members().any(|(_, m)| {
        m.assignment
            .as_ref()
            .is_none_or(|a| a.state != STABLE || a.member_epoch != g.assignment_epoch)
    }) {
        "RECONCILING"
    } else {
        "STABLE"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordinator::records::streams::{
        StreamsGroupCurrentMemberAssignmentValue, StreamsGroupKey, StreamsGroupMemberMetadataValue,
        StreamsGroupMetadataValue, StreamsGroupTargetAssignmentMetadataValue,
        StreamsGroupTopologyValue, StreamsMemberKey,
    };
    use members::observer::ClientRef;

    fn consumer(instance: &str, member: &str, kind: ClientEventKind) -> ClientEvent {
        ClientEvent {
            at_ms: 0,
            client: ClientRef {
                kind: ClientKind::Consumer,
                name: format!("{instance}/consumer"),
                group_id: "g".into(),
                instance_id: Some(instance.into()),
                process_id: String::new(),
            },
            member_id: member.into(),
            kind,
        }
    }

    fn thread(kind: ClientEventKind) -> ClientEvent {
        ClientEvent {
            at_ms: 0,
            client: ClientRef {
                kind: ClientKind::StreamsMember,
                name: "p/StreamThread-1".into(),
                group_id: "g".into(),
                instance_id: None,
                process_id: "p".into(),
            },
            member_id: "m".into(),
            kind,
        }
    }

    fn task(p: i32) -> TaskId {
        TaskId {
            subtopology: "0".into(),
            partition: p,
        }
    }

    fn owned(active: Vec<TaskId>, standby: Vec<TaskId>) -> ClientEventKind {
        ClientEventKind::OwnedTasks {
            epoch: 1,
            active,
            standby,
            warmup: vec![],
        }
    }

    #[test]
    fn a_static_member_back_with_its_generation_reaches_the_goal_and_a_rebalance_does_not() {
        let mut t = Tracker::default();
        // First join: the generation is reported before the member id is known.
        t.on_client(
            1,
            &consumer("i", "", ClientEventKind::EpochChanged { from: -1, to: 1 }),
        );
        t.on_client(
            1,
            &consumer("i", "m1", ClientEventKind::Joined { epoch: 1 }),
        );
        t.on_client(
            2,
            &consumer("i", "m1", ClientEventKind::EpochChanged { from: 1, to: 2 }),
        );
        // A new incarnation joining with a new generation: a rebalance happened.
        t.on_client(
            3,
            &consumer("i", "m2", ClientEventKind::Joined { epoch: 3 }),
        );
        assert!(!t.reached(Goal::StaticMemberBackWithoutRebalance));
        // The next one comes back at generation 3: no rebalance.
        t.on_client(
            4,
            &consumer("i", "m3", ClientEventKind::Joined { epoch: 3 }),
        );
        assert_eq!(
            t.finish().goals.get("static-member-back-without-rebalance"),
            Some(&4)
        );
    }

    #[test]
    fn a_standby_started_as_active_is_a_promotion_unless_the_thread_restarted_in_between() {
        let mut t = Tracker::default();
        t.on_client(1, &thread(owned(vec![task(0)], vec![task(1)])));
        t.on_client(2, &thread(ClientEventKind::Stopped { graceful: false }));
        t.on_client(3, &thread(owned(vec![task(1)], vec![])));
        assert!(!t.reached(Goal::StandbyPromoted));
        t.on_client(4, &thread(owned(vec![task(1)], vec![task(2)])));
        t.on_client(5, &thread(owned(vec![task(1), task(2)], vec![])));
        assert_eq!(t.finish().goals.get("standby-promoted"), Some(&5));
    }

    #[test]
    fn answers_and_zombie_commits_are_counted_by_api_and_error() {
        let mut t = Tracker::default();
        let answer = |error| {
            thread(ClientEventKind::ResponseReceived {
                broker: "b".into(),
                api: Api::OffsetCommit,
                correlation_id: 1,
                error,
            })
        };
        t.on_client(1, &answer(None));
        t.on_client(2, &answer(Some(ErrorCode::StaleMemberEpoch)));
        t.on_client(3, &answer(Some(ErrorCode::StaleMemberEpoch)));
        t.on_client(
            4,
            &thread(ClientEventKind::CommitRejected {
                epoch: 1,
                error: ErrorCode::NotCoordinator,
                partitions: vec![],
            }),
        );
        assert!(!t.reached(Goal::ZombieCommitRejected));
        t.on_client(
            5,
            &thread(ClientEventKind::CommitRejected {
                epoch: 1,
                error: ErrorCode::StaleMemberEpoch,
                partitions: vec![],
            }),
        );
        let c = t.finish();
        assert_eq!(c.answers["OffsetCommit/NONE"], 1);
        assert_eq!(c.answers["OffsetCommit/STALE_MEMBER_EPOCH"], 2);
        assert_eq!(c.goals["answered-STALE_MEMBER_EPOCH"], 2);
        assert_eq!(c.goals["zombie-commit-rejected"], 5);
    }

    fn key() -> StreamsGroupKey {
        StreamsGroupKey {
            group_id: "g".into(),
        }
    }

    fn member_key() -> StreamsMemberKey {
        StreamsMemberKey {
            group_id: "g".into(),
            member_id: "m".into(),
        }
    }

    fn assignment(epoch: i32, state: i8) -> Record {
        Record::StreamsGroupCurrentMemberAssignment {
            key: member_key(),
            value: Some(StreamsGroupCurrentMemberAssignmentValue {
                member_epoch: epoch,
                previous_member_epoch: epoch - 1,
                state,
                active_tasks: vec![],
                standby_tasks: vec![],
                warmup_tasks: vec![],
                active_tasks_pending_revocation: vec![],
                standby_tasks_pending_revocation: vec![],
                warmup_tasks_pending_revocation: vec![],
            }),
        }
    }

    /// Applies `records` as one batch each, the way the hub does.
    fn commit(t: &mut Tracker, model: &mut Model, records: Vec<Record>) {
        for (i, r) in records.iter().enumerate() {
            t.on_record(i as i64, r, model);
            model.apply(0, i as i64, 0, r, 0);
        }
        t.on_streams_batch("g", model);
    }

    fn group_records(group_epoch: i32, assignment_epoch: i32, topology_epoch: i32) -> Vec<Record> {
        vec![
            Record::StreamsGroupTopology {
                key: key(),
                value: Some(StreamsGroupTopologyValue {
                    epoch: topology_epoch,
                    subtopologies: vec![],
                }),
            },
            Record::StreamsGroupMemberMetadata {
                key: member_key(),
                value: Some(StreamsGroupMemberMetadataValue {
                    instance_id: None,
                    rack_id: None,
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    rebalance_timeout_ms: 1000,
                    topology_epoch,
                    process_id: "p".into(),
                    user_endpoint: None,
                    client_tags: vec![],
                }),
            },
            Record::StreamsGroupMetadata {
                key: key(),
                value: Some(StreamsGroupMetadataValue {
                    epoch: group_epoch,
                    metadata_hash: 0,
                    validated_topology_epoch: topology_epoch,
                    last_assignment_configs: None,
                    stored_description_topology_epoch: -1,
                    failed_description_topology_epoch: -1,
                }),
            },
            Record::StreamsGroupTargetAssignmentMetadata {
                key: key(),
                value: Some(StreamsGroupTargetAssignmentMetadataValue {
                    assignment_epoch,
                    assignment_timestamp: 0,
                }),
            },
        ]
    }

    #[test]
    fn streams_group_states_follow_the_committed_records_as_kafka_derives_them() {
        let mut t = Tracker::default();
        let mut model = Model::default();
        // A member joins: epoch 1, target at 1, the member not reconciled yet.
        let mut first = group_records(1, 1, 0);
        first.push(assignment(0, UNREVOKED_TASKS));
        commit(&mut t, &mut model, first);
        commit(&mut t, &mut model, vec![assignment(1, STABLE)]);
        // A new group epoch without a new target: assigning.
        commit(&mut t, &mut model, group_records(2, 1, 1));
        let c = t.finish();
        assert_eq!(c.group_states["streams:EMPTY->RECONCILING"], 1);
        assert_eq!(c.group_states["streams:RECONCILING->STABLE"], 1);
        assert_eq!(c.group_states["streams:STABLE->ASSIGNING"], 1);
        assert_eq!(c.goals["topology-epoch-changed"], 0);
    }

    #[test]
    fn a_member_removed_mid_revocation_reaches_the_goal_unless_it_left() {
        for left in [false, true] {
            let mut t = Tracker::default();
            let mut model = Model::default();
            let mut records = group_records(2, 2, 0);
            records.push(assignment(1, UNREVOKED_TASKS));
            commit(&mut t, &mut model, records);
            if left {
                t.on_client(1, &thread(ClientEventKind::LeaveSent { epoch: -1 }));
            }
            let tombstone = Record::StreamsGroupCurrentMemberAssignment {
                key: member_key(),
                value: None,
            };
            commit(&mut t, &mut model, vec![tombstone]);
            assert_eq!(t.reached(Goal::RemovedWhileRevoking), !left);
        }
    }

    #[test]
    fn a_reload_counts_as_a_move_during_a_rebalance_only_after_a_first_load() {
        let mut t = Tracker::default();
        let model = Model::default();
        let loading = ClusterKind::CoordinatorLoading {
            partition: 0,
            epoch: 1,
        };
        t.on_client(
            1,
            &consumer(
                "i",
                "m",
                ClientEventKind::StateChanged {
                    from: "STABLE",
                    to: "PREPARING_REBALANCE",
                },
            ),
        );
        let mut model = model;
        model.apply(
            0,
            0,
            0,
            &Record::GroupMetadata {
                key: coordinator::records::classic::GroupMetadataKey { group: "g".into() },
                value: None,
            },
            0,
        );
        t.on_cluster(2, &loading, &model);
        assert!(!t.reached(Goal::CoordinatorMovedDuringRebalance));
        t.on_cluster(
            3,
            &ClusterKind::CoordinatorLoaded {
                partition: 0,
                epoch: 1,
                records: 0,
            },
            &model,
        );
        t.on_cluster(4, &loading, &model);
        assert_eq!(t.finish().goals["coordinator-moved-during-rebalance"], 4);
        assert_eq!(
            t.finish().member_states["consumer:STABLE->PREPARING_REBALANCE"],
            1
        );
    }
}

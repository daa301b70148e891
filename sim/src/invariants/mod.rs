//! The invariants checked on every event of a run, and the liveness check after the last fault
//! heals.
//!
//! | # | name | checked |
//! |---|------|---------|
//! | 1 | `exclusive-active-ownership` | client ownership snapshots against the committed group state |
//! | 2 | `monotonic-epochs` | committed records, controller events, client epoch changes |
//! | 3 | `fenced-commit-rejected` | every accepted commit, at the log position it was written |
//! | 4 | `offsets-durable` | replicas' committed prefixes, acknowledged commits, fetched offsets |
//! | 5 | `broker-fencing` | the controller's sessions and offsets-partition leaders, every step |
//! | 6 | `convergence` | after the final heal, within the stated bound |
//! | 7 | `coordinator-answers` | answers and committed states Kafka's rules never produce |
//! | 8 | `partition-state` | every partition change the controller writes, record by record |
//! | 9 | `coordinator-load` | each coordinator load: the soft state Kafka's `onLoaded` re-creates |
//!
//! [`Checker`] keeps what the clients last reported (their member ids, epochs, states and owned
//! tasks or partitions) and runs the per-event checks; the committed group state comes from
//! [`crate::model::Model`]. The first violation stops the run.

pub mod answers;
pub mod brokers;
pub mod commits;
pub mod consumer;
pub mod convergence;
pub mod durability;
pub mod epochs;
pub mod loads;
pub mod observed;
pub mod ownership;
pub mod partitions;

use std::collections::{BTreeMap, BTreeSet};

use members::observer::{ClientKind, ClientRef, EventKind as ClientEvent};
use protocol::{Api, ErrorCode};
use serde::Serialize;

use crate::model::Model;

/// The invariants, by the names the issue and `--json` use.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Invariant {
    ExclusiveActiveOwnership,
    MonotonicEpochs,
    FencedCommitRejected,
    OffsetsDurable,
    BrokerFencing,
    Convergence,
    CoordinatorAnswers,
    PartitionState,
    CoordinatorLoad,
    /// Not an invariant of the issue: a host's software failed (a panic or an error return),
    /// which stops the simulation.
    HostFailure,
    /// A scenario's own expectation failed (e.g. a scheduled fault could not be injected).
    Expectation,
    /// `--check-determinism`: two runs of one seed produced different traces.
    Determinism,
    /// `--assignor-oracle`: a streams target assignment the brokers computed differs from what
    /// Kafka 4.4.0's own `StickyTaskAssignor` computes on the same input (checked after the run,
    /// [`crate::assignor_log`]).
    AssignorOracle,
}

impl Invariant {
    pub fn name(self) -> &'static str {
        match self {
            Invariant::ExclusiveActiveOwnership => "exclusive-active-ownership",
            Invariant::MonotonicEpochs => "monotonic-epochs",
            Invariant::FencedCommitRejected => "fenced-commit-rejected",
            Invariant::OffsetsDurable => "offsets-durable",
            Invariant::BrokerFencing => "broker-fencing",
            Invariant::Convergence => "convergence",
            Invariant::CoordinatorAnswers => "coordinator-answers",
            Invariant::PartitionState => "partition-state",
            Invariant::CoordinatorLoad => "coordinator-load",
            Invariant::HostFailure => "host-failure",
            Invariant::Expectation => "expectation",
            Invariant::Determinism => "determinism",
            Invariant::AssignorOracle => "assignor-oracle",
        }
    }
}

/// A violated invariant: which, when (simulated ms), and what the harness saw.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    pub invariant: Invariant,
    pub at_ms: i64,
    pub detail: String,
    /// The kind of detail, where the check that fired can name it (e.g.
    /// [`convergence::STREAMS_ASSIGNMENT_LOST_IN_FLIGHT`]): with the invariant, the fingerprint
    /// `crate::known` matches against Kafka's documented behaviours.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<&'static str>,
}

impl Violation {
    pub fn new(invariant: Invariant, at_ms: i64, detail: impl Into<String>) -> Self {
        Self {
            invariant,
            at_ms,
            detail: detail.into(),
            kind: None,
        }
    }

    /// The same violation with the kind of its detail.
    pub fn with_kind(mut self, kind: Option<&'static str>) -> Self {
        self.kind = kind;
        self
    }
}

/// What a task or a partition is called in the ownership index: `"<sub>_<p>"` for streams
/// tasks, `"<topic>-<p>"` for classic partitions.
pub type Item = String;

/// What the harness knows about one client (keyed by its name, which a restarted process reuses).
#[derive(Debug, Clone)]
pub struct ClientState {
    pub host: String,
    pub kind: ClientKind,
    pub group: String,
    pub instance_id: Option<String>,
    pub process_id: String,
    pub member_id: String,
    /// Member epoch (streams) or generation (classic) as the client last reported it.
    pub epoch: i32,
    /// The client's membership state name (`STABLE`, `JOINING`, ...).
    pub state: &'static str,
    /// Epoch of the last ownership snapshot.
    pub owned_epoch: i32,
    pub active: BTreeSet<Item>,
    pub standby: BTreeSet<Item>,
    pub stopped: bool,
    /// When the client last sent an OffsetFetch (simulated ms).
    pub last_fetch_sent_ms: Option<i64>,
    /// Streams: the (active, standby) task lists of the last heartbeat response that carried
    /// them (`AssignmentReceived`): what the coordinator last told this member.
    pub delivered: Option<(BTreeSet<Item>, BTreeSet<Item>)>,
    /// Streams: heartbeats since that response which got no successful answer (the request
    /// failed, or the response carried an error), each a response that may have carried an
    /// assignment the member never saw.
    pub heartbeats_unanswered_since_delivery: u32,
    /// Classic: when the client last sent a JoinGroup (simulated ms).
    pub last_join_sent_ms: Option<i64>,
    /// Classic: when the JoinGroup that handed out the client's current member id was sent.
    pub id_join_sent_ms: Option<i64>,
    /// Classic: whether that JoinGroup's answer carried a generation newer than the group's
    /// committed GroupMetadata when it arrived, so that the id could reach the log only with that
    /// generation's record, written at the leader's SyncGroup (`None` until its `Joined`).
    pub id_generation_uncommitted: Option<bool>,
    /// Classic: the broker that answered the client's last JoinGroup.
    pub last_join_broker: Option<String>,
    /// Classic: the broker whose JoinGroup answer gave the client its current generation.
    pub epoch_broker: Option<String>,
    /// Classic: the client died of FENCED_INSTANCE_ID with the mark of Kafka's static-member
    /// fencing after a coordinator move ([`convergence::CLASSIC_STATIC_MEMBER_FENCED_AFTER_MOVE`]).
    pub fenced_after_coordinator_move: bool,
    /// Classic: group requests in flight, by correlation id: (api, when sent).
    pub in_flight: BTreeMap<i32, (Api, i64)>,
    /// Classic: the last request that re-armed the member's session at the coordinator for sure
    /// (a Heartbeat answered NONE or REBALANCE_IN_PROGRESS, a JoinGroup answered NONE).
    pub session_renewed: Option<answers::SessionRenewal>,
    /// Classic: (member id, generation) of the last assignment it received (SyncGroup).
    pub synced: Option<(String, i32)>,
    /// Classic: member ids it sent a LeaveGroup for.
    pub left: BTreeSet<String>,
    /// Consumer protocol: the client died of UNRELEASED_INSTANCE_ID
    /// ([`consumer::CONSUMER_STATIC_MEMBER_UNRELEASED`]).
    pub died_unreleased_instance: bool,
}

/// The per-event checks and the state they need.
#[derive(Debug, Default)]
pub struct Checker {
    pub clients: BTreeMap<String, ClientState>,
    /// (group, item) -> clients holding it active, with the log position they acquired it at.
    pub holders: BTreeMap<(String, Item), BTreeMap<String, u64>>,
    pub epochs: epochs::ClusterEpochs,
    /// When each `__consumer_offsets` partition was last loaded by a coordinator (simulated ms).
    pub coordinator_loaded_ms: BTreeMap<i32, i64>,
    /// The broker host that last loaded each `__consumer_offsets` partition.
    pub coordinator_loaded_by: BTreeMap<i32, String>,
    /// Whether an admin client ever sent a LeaveGroup (static members removed by instance id).
    pub admin_left: bool,
    /// No committed state is known (`regroup drive`: the brokers' logs are out of reach), so the
    /// checks that judge a client against it (ownership against the coordinator's members,
    /// accepted commits against the written ones, fetched offsets against the committed ones)
    /// stand down; the checks of what the clients alone show still run.
    pub observed_only: bool,
    /// The client-visible forms of ownership, fenced commits and durability, judged instead when
    /// `observed_only`.
    pub observed: observed::Observed,
}

impl Checker {
    pub fn new() -> Self {
        Self::default()
    }

    /// A client model's event (its time converted to simulated ms). `seq` is its position in the
    /// log, which orders acquisitions.
    pub fn on_client(
        &mut self,
        seq: u64,
        host: &str,
        event: &members::Event,
        model: &mut Model,
    ) -> Result<(), Violation> {
        let at_ms = event.at_ms - crate::net::EPOCH_MS;
        self.on_client_parts(
            seq,
            at_ms,
            host,
            &event.client,
            &event.member_id,
            &event.kind,
            model,
        )
    }

    #[allow(clippy::too_many_arguments)]
    pub(crate) fn on_client_parts(
        &mut self,
        seq: u64,
        at_ms: i64,
        host: &str,
        client: &ClientRef,
        member_id: &str,
        kind: &ClientEvent,
        model: &mut Model,
    ) -> Result<(), Violation> {
        if client.kind == ClientKind::Admin || client.kind == ClientKind::Raw {
            if self.observed_only {
                self.observed.on_admin(kind);
            }
            if matches!(
                kind,
                ClientEvent::RequestSent {
                    api: Api::LeaveGroup,
                    ..
                }
            ) {
                self.admin_left = true;
            }
            return Ok(());
        }
        let state = self
            .clients
            .entry(client.name.clone())
            .or_insert_with(|| ClientState {
                host: host.to_string(),
                kind: client.kind,
                group: client.group_id.clone(),
                instance_id: client.instance_id.clone(),
                process_id: client.process_id.clone(),
                member_id: member_id.to_string(),
                epoch: 0,
                state: "UNSUBSCRIBED",
                owned_epoch: 0,
                active: BTreeSet::new(),
                standby: BTreeSet::new(),
                stopped: false,
                last_fetch_sent_ms: None,
                delivered: None,
                heartbeats_unanswered_since_delivery: 0,
                last_join_sent_ms: None,
                id_join_sent_ms: None,
                id_generation_uncommitted: None,
                last_join_broker: None,
                epoch_broker: None,
                fenced_after_coordinator_move: false,
                in_flight: BTreeMap::new(),
                session_renewed: None,
                synced: None,
                left: BTreeSet::new(),
                died_unreleased_instance: false,
            });
        if state.stopped && !matches!(kind, ClientEvent::Stopped { .. }) {
            // A new incarnation of a restarted process (same client name), which may speak the
            // other protocol (a consumer group's rolling upgrade or downgrade).
            state.stopped = false;
            state.kind = client.kind;
            state.epoch = 0;
            state.state = "UNSUBSCRIBED";
            state.host = host.to_string();
            state.process_id = client.process_id.clone();
            state.delivered = None;
            state.heartbeats_unanswered_since_delivery = 0;
            state.last_join_sent_ms = None;
            state.id_join_sent_ms = None;
            state.id_generation_uncommitted = None;
            state.last_join_broker = None;
            state.epoch_broker = None;
            state.fenced_after_coordinator_move = false;
            state.died_unreleased_instance = false;
            state.in_flight.clear();
        }
        if state.member_id != member_id && !member_id.is_empty() {
            // A new member id comes from the answer to the JoinGroup in flight.
            state.id_join_sent_ms = state.last_join_sent_ms;
            state.id_generation_uncommitted = None;
        }
        state.member_id = member_id.to_string();
        if client.kind == ClientKind::Consumer {
            answers::track_session(state, kind, at_ms);
        }
        match kind {
            ClientEvent::StateChanged { to, .. } => state.state = to,
            ClientEvent::Joined { epoch } => {
                state.epoch = *epoch;
                if client.kind == ClientKind::Consumer && state.id_generation_uncommitted.is_none()
                {
                    let committed = model
                        .classic
                        .get(&client.group_id)
                        .filter(|g| g.exists)
                        .map_or(-1, |g| g.generation);
                    state.id_generation_uncommitted = Some(*epoch > committed);
                }
            }
            ClientEvent::EpochChanged { to, .. } => state.epoch = *to,
            ClientEvent::RequestSent { api, .. } if *api == Api::OffsetFetch => {
                state.last_fetch_sent_ms = Some(at_ms);
            }
            ClientEvent::RequestSent { api, .. } if *api == Api::JoinGroup => {
                state.last_join_sent_ms = Some(at_ms);
            }
            ClientEvent::ResponseReceived { api, broker, .. } if *api == Api::JoinGroup => {
                state.last_join_broker = Some(broker.clone());
            }
            ClientEvent::Fatal {
                error: Some(ErrorCode::FencedInstanceId),
                ..
            } if client.kind == ClientKind::Consumer => {
                state.fenced_after_coordinator_move = convergence::fenced_after_coordinator_move(
                    state,
                    model,
                    &self.coordinator_loaded_ms,
                );
            }
            ClientEvent::Fatal {
                error: Some(ErrorCode::UnreleasedInstanceId),
                ..
            } if client.kind == ClientKind::AsyncConsumer => {
                state.died_unreleased_instance = true;
            }
            ClientEvent::AssignmentReceived {
                active, standby, ..
            } => {
                state.delivered = Some((
                    active.iter().map(|t| t.to_string()).collect(),
                    standby.iter().map(|t| t.to_string()).collect(),
                ));
                state.heartbeats_unanswered_since_delivery = 0;
            }
            ClientEvent::RequestFailed { api, .. }
            | ClientEvent::ResponseReceived {
                api,
                error: Some(_),
                ..
            } if *api == Api::StreamsGroupHeartbeat => {
                state.heartbeats_unanswered_since_delivery += 1;
            }
            _ => {}
        }
        let fetch_sent = state.last_fetch_sent_ms;
        if self.observed_only {
            self.observed.on_client(at_ms, client, member_id, kind)?;
            let out = match kind {
                ClientEvent::Fenced { .. }
                | ClientEvent::Fatal { .. }
                | ClientEvent::TasksLost { .. }
                | ClientEvent::PartitionsLost { .. }
                | ClientEvent::LeaveSent { .. } => true,
                ClientEvent::StateChanged { to, .. } => {
                    matches!(*to, "FENCED" | "FATAL" | "STALE" | "UNSUBSCRIBED")
                }
                _ => false,
            };
            if out {
                self.observed.out_of_group(&client.name);
            }
            if let ClientEvent::OffsetsFetched { offsets } = kind {
                let sent = fetch_sent.unwrap_or(at_ms);
                self.observed
                    .fetched(at_ms, &client.group_id, &client.name, sent, offsets)?;
            }
        }
        let from_broker = state.epoch_broker.clone();
        let to_broker = state.last_join_broker.clone();
        if client.kind == ClientKind::Consumer
            && matches!(
                kind,
                ClientEvent::EpochChanged { .. } | ClientEvent::Joined { .. }
            )
        {
            state.epoch_broker = state.last_join_broker.clone();
        }
        match kind {
            ClientEvent::EpochChanged { from, to } => {
                epochs::check_client_epoch(at_ms, &client.name, member_id, *from, *to).map_err(
                    |v| {
                        let reused = client.kind == ClientKind::Consumer
                            && epochs::generation_reused_after_coordinator_move(
                                model.classic.get(&client.group_id),
                                from_broker.as_deref(),
                                to_broker.as_deref(),
                                *from,
                                *to,
                            );
                        v.with_kind(reused.then_some(epochs::CLASSIC_GENERATION_REUSED_AFTER_MOVE))
                    },
                )
            }
            ClientEvent::OwnedTasks {
                epoch,
                active,
                standby,
                ..
            } => {
                let active: BTreeSet<Item> = active.iter().map(|t| t.to_string()).collect();
                let standby: BTreeSet<Item> = standby.iter().map(|t| t.to_string()).collect();
                self.set_owned(seq, at_ms, &client.name, *epoch, active, standby, model)
            }
            ClientEvent::OwnedPartitions {
                generation,
                partitions,
            } => {
                let active: BTreeSet<Item> = partitions.iter().map(|t| t.to_string()).collect();
                self.set_owned(
                    seq,
                    at_ms,
                    &client.name,
                    *generation,
                    active,
                    BTreeSet::new(),
                    model,
                )
            }
            ClientEvent::Stopped { .. } => {
                self.drop_client(&client.name);
                Ok(())
            }
            ClientEvent::Fenced { error, epoch } => {
                answers::check_fenced(at_ms, client.kind, &client.name, member_id, *error, *epoch)
            }
            // Without committed state (`observed_only`) there is no write to match a commit to
            // and no committed offset to compare a fetch with.
            ClientEvent::CommitAccepted { .. } | ClientEvent::OffsetsFetched { .. }
                if self.observed_only =>
            {
                Ok(())
            }
            ClientEvent::CommitAccepted { epoch, offsets } => {
                let group = &client.group_id;
                let write = durability::claim_commit(at_ms, group, member_id, offsets, model)?;
                commits::check_accepted(
                    at_ms,
                    client.kind,
                    group,
                    member_id,
                    *epoch,
                    offsets,
                    &write,
                    model,
                )
            }
            ClientEvent::OffsetsFetched { offsets } => {
                let sent = fetch_sent.unwrap_or(at_ms);
                durability::check_fetched(
                    at_ms,
                    &client.group_id,
                    &client.name,
                    sent,
                    offsets,
                    model,
                )
            }
            _ => Ok(()),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn set_owned(
        &mut self,
        seq: u64,
        at_ms: i64,
        name: &str,
        epoch: i32,
        active: BTreeSet<Item>,
        standby: BTreeSet<Item>,
        model: &Model,
    ) -> Result<(), Violation> {
        let Some(state) = self.clients.get_mut(name) else {
            return Ok(());
        };
        let group = state.group.clone();
        let old = std::mem::replace(&mut state.active, active.clone());
        state.standby = standby;
        state.owned_epoch = epoch;
        for item in old.difference(&active) {
            if let Some(h) = self.holders.get_mut(&(group.clone(), item.clone())) {
                h.remove(name);
            }
        }
        let added: Vec<Item> = active.difference(&old).cloned().collect();
        if self.observed_only {
            // Whether the older holder was still the coordinator's member needs the committed
            // state; the client-visible form waits for what the holder shows later.
            let (member_id, kind) = (state.member_id.clone(), state.kind);
            for item in added {
                let holders = self
                    .holders
                    .entry((group.clone(), item.clone()))
                    .or_default();
                let others: Vec<String> = holders.keys().cloned().collect();
                holders.insert(name.to_string(), seq);
                for other in others {
                    if let Some(o) = self.clients.get(&other).filter(|o| !o.stopped) {
                        self.observed.overlap(
                            kind,
                            &group,
                            &item,
                            name,
                            &member_id,
                            epoch,
                            &other,
                            &o.member_id,
                            o.owned_epoch,
                            at_ms,
                        );
                    }
                }
            }
            return Ok(());
        }
        for item in added {
            let holders = self
                .holders
                .entry((group.clone(), item.clone()))
                .or_default();
            let others: Vec<String> = holders.keys().cloned().collect();
            holders.insert(name.to_string(), seq);
            for other in others {
                ownership::check_exclusive(
                    at_ms,
                    &self.clients,
                    &group,
                    &item,
                    name,
                    &other,
                    model,
                )?;
            }
        }
        Ok(())
    }

    /// A client stopped (or its host died): it owns nothing any more.
    /// A cluster event the checks keep track of (coordinator loads).
    pub fn on_cluster(&mut self, at_ms: i64, host: &str, event: &coordinator::events::EventKind) {
        if let coordinator::events::EventKind::CoordinatorLoaded { partition, .. } = event {
            self.coordinator_loaded_ms.insert(*partition, at_ms);
            self.coordinator_loaded_by
                .insert(*partition, host.to_string());
        }
    }

    pub fn drop_client(&mut self, name: &str) {
        self.observed.out_of_group(name);
        let Some(state) = self.clients.get_mut(name) else {
            return;
        };
        state.stopped = true;
        state.state = "STOPPED";
        let group = state.group.clone();
        for item in std::mem::take(&mut state.active) {
            if let Some(h) = self.holders.get_mut(&(group.clone(), item)) {
                h.remove(name);
            }
        }
        state.standby.clear();
    }

    /// Every client on `host` died with it (a crash sends no events).
    pub fn host_crashed(&mut self, host: &str) {
        let names: Vec<String> = self
            .clients
            .iter()
            .filter(|(_, c)| c.host == host && !c.stopped)
            .map(|(n, _)| n.clone())
            .collect();
        for n in names {
            self.drop_client(&n);
        }
    }

    /// Clients currently alive.
    pub fn live_clients(&self) -> impl Iterator<Item = (&String, &ClientState)> {
        self.clients.iter().filter(|(_, c)| !c.stopped)
    }
}

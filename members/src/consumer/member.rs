//! One consumer-protocol consumer (Kafka's `AsyncKafkaConsumer` with `group.protocol=consumer`):
//! its background thread (coordinator lookup, `ConsumerHeartbeatRequestManager`,
//! `CommitRequestManager`, metadata) and the application thread's side (rebalance callbacks,
//! auto-commit, simulated consumption), as one single-threaded task on the shared event loop
//! ([`crate::event_loop`]).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::future::Future;
use std::rc::Rc;

use protocol::messages::ConsumerGroupHeartbeatResponse;
use protocol::net::Net;
use protocol::{Api, ErrorCode, Request, Response};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::config::AsyncConsumerConfig;
use super::errors::{HeartbeatErrorAction, heartbeat_error_action};
use super::membership::{
    LeaveOperation, MemberState, Membership, ReconcilePlan, ReconcileStep, Subscription,
};
use crate::backoff::ExponentialBackoff;
use crate::conn::{ConnectionConfig, KafkaClient};
use crate::coordinator::{CoordinatorNode, CoordinatorTracker, FindFailure, find_coordinator};
use crate::event_loop::{self, Inbox, Model};
use crate::ids::kafka_uuid_string;
use crate::observer::{
    ClientKind, ClientRef, Emitter, EventKind, Observer, RequestFailure, TopicPartition,
};
use crate::offsets::{
    Committer, MetadataSnapshot, TopicIds, build_commit, build_fetch, commit_result,
    fetch_metadata, fetch_result, version_cap_for,
};
use crate::request_state::{HeartbeatRequestState, RequestState};

/// What the owner asks of the consumer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    /// `close()`: commit, revoke, leave with this operation, stop.
    Close(LeaveOperation),
    /// Stop (true) or resume (false) heartbeating while consuming and committing go on.
    StallHeartbeats(bool),
    /// The application stops (true) or resumes (false) calling `poll()`.
    StallPoll(bool),
}

enum Msg {
    Coordinator(Result<CoordinatorNode, FindFailure>),
    Heartbeat {
        result: Result<Response, RequestFailure>,
        leave: bool,
    },
    Commit {
        id: u64,
        result: Result<Response, RequestFailure>,
    },
    Fetch {
        partitions: BTreeSet<TopicPartition>,
        result: Result<Response, RequestFailure>,
    },
    Metadata(Result<MetadataSnapshot, RequestFailure>),
}

/// A partition being consumed: its position advances with time once its committed offset is
/// known.
#[derive(Debug, Clone)]
struct Owned {
    base: Option<i64>,
    started_ms: i64,
    committed: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
enum CommitOutcome {
    Accepted,
    Rejected(ErrorCode),
    GaveUp(String),
}

#[derive(Debug, Clone, PartialEq)]
enum CommitState {
    Waiting { not_before_ms: i64 },
    InFlight,
    Done(CommitOutcome),
}

/// Auto-commit on the timer is one asynchronous attempt; the commits before a revocation and on
/// close are synchronous: retried on retriable errors until their deadline
/// (`CommitRequestManager.maybeAutoCommitSyncBeforeRebalance`, `autoCommitSync`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CommitKind {
    Async,
    Sync,
}

#[derive(Debug, Clone)]
struct CommitOp {
    id: u64,
    offsets: Vec<(TopicPartition, i64)>,
    kind: CommitKind,
    deadline_ms: i64,
    retry: RequestState,
    state: CommitState,
    /// The epoch of the last attempt.
    epoch: i32,
}

#[derive(Debug, Clone)]
enum ReconcilePhase {
    Committing(CommitOp),
    Revoking { until_ms: i64 },
    Assigning { until_ms: i64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterLost {
    /// Fenced: rejoin with epoch 0.
    Rejoin,
    /// Fatal error: stop.
    Fatal,
    /// The member left for an expired poll timer and is STALE (its assignment already cleared).
    Stale,
}

/// Work of the application thread, one at a time.
#[derive(Debug, Clone)]
enum Job {
    Reconcile {
        plan: Box<ReconcilePlan>,
        phase: ReconcilePhase,
    },
    Commit {
        op: CommitOp,
        close: Option<LeaveOperation>,
    },
    Lose {
        until_ms: i64,
        then: AfterLost,
    },
}

/// Heartbeats one member may send within one millisecond (see the streams member: a zero-latency
/// transport must not spin).
const MAX_HEARTBEATS_PER_MS: u32 = 64;

struct Member<N: Net> {
    client: Rc<KafkaClient<N>>,
    emitter: Emitter,
    rng: Rc<RefCell<ChaCha8Rng>>,
    config: Rc<AsyncConsumerConfig>,
    subscription: Subscription,
    inbox: Inbox<Control, Msg>,
    tx: mpsc::UnboundedSender<Msg>,
    children: Vec<JoinHandle<()>>,
    membership: Membership,
    hb: HeartbeatRequestState,
    coordinator: CoordinatorTracker,
    topic_ids: TopicIds,
    metadata: RequestState,
    metadata_wanted: bool,
    metadata_in_flight: bool,
    owned: BTreeMap<TopicPartition, Owned>,
    job: Option<Job>,
    queued: VecDeque<Job>,
    next_auto_commit_ms: i64,
    next_commit_id: u64,
    fetch: RequestState,
    fetch_in_flight: bool,
    close_requested: Option<LeaveOperation>,
    close_started: bool,
    leave_in_flight: bool,
    leave_deadline_ms: Option<i64>,
    exit: bool,
    last_epoch: i32,
    heartbeats_stalled: bool,
    same_ms_sends: (i64, u32),
    /// The application thread does not call `poll()` ([`AsyncConsumer::stall_poll`]).
    poll_stalled: bool,
    /// When the poll timer expires (`max.poll.interval.ms` after the last poll).
    poll_deadline_ms: i64,
}

/// A running consumer-protocol consumer. Runs as a local task (`spawn_local`): start it inside a
/// `LocalSet`.
pub struct AsyncConsumer {
    name: String,
    member_id: String,
    control: mpsc::UnboundedSender<Control>,
    emitter: Emitter,
    handle: Option<JoinHandle<()>>,
}

impl AsyncConsumer {
    /// Starts a consumer that finds its coordinator through `bootstrap`, joins
    /// `config.group_id` with a member id it makes itself (KIP-1082) and consumes its assigned
    /// partitions until closed. Its events report as client `name`; the member id and the
    /// backoff jitter come from `rng`.
    pub fn start<N: Net>(
        net: N,
        bootstrap: Vec<String>,
        config: AsyncConsumerConfig,
        name: &str,
        rng: &mut impl RngCore,
        observer: Rc<dyn Observer>,
    ) -> Self {
        let clock_net = net.clone();
        let emitter = Emitter::new(
            observer,
            Rc::new(move || clock_net.now_ms()),
            ClientRef {
                kind: ClientKind::AsyncConsumer,
                name: name.to_string(),
                group_id: config.group_id.clone(),
                instance_id: config.group_instance_id.clone(),
                process_id: String::new(),
            },
        );
        let member_id = kafka_uuid_string(rng);
        let (control, rx) = mpsc::unbounded_channel();
        let member = Member::new(
            net,
            bootstrap,
            config,
            &member_id,
            emitter.clone(),
            ChaCha8Rng::from_rng(rng),
            rx,
        );
        let handle = tokio::task::spawn_local(member.run());
        Self {
            name: name.to_string(),
            member_id,
            control,
            emitter,
            handle: Some(handle),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The member id the consumer made for itself.
    pub fn member_id(&self) -> &str {
        &self.member_id
    }

    /// Whether the consumer stopped (closed, or failed with a fatal error).
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// `close()`: commit (auto-commit), revoke the partitions, leave (-1 for a dynamic member, -2
    /// for a static one), disconnect.
    pub async fn close(self) {
        self.close_with(LeaveOperation::Default).await;
    }

    /// `close(CloseOptions.groupMembershipOperation(op))`.
    pub async fn close_with(mut self, op: LeaveOperation) {
        let _ = self.control.send(Control::Close(op));
        if let Some(h) = self.handle.take() {
            let _ = h.await;
        }
    }

    /// Stalls (true) or resumes (false) the heartbeats while the consumer keeps consuming and
    /// committing with its last epoch (a stuck background thread).
    pub fn stall_heartbeats(&self, stalled: bool) {
        let _ = self.control.send(Control::StallHeartbeats(stalled));
    }

    /// The application stops (true) or resumes (false) calling `poll()`: its callbacks, commits and
    /// consumption stop while the background thread heartbeats; past `max.poll.interval.ms` the
    /// member leaves the group and goes STALE (`transitionToSendingLeaveGroup(true)`), and the next
    /// poll rejoins it (`maybeRejoinStaleMember`).
    pub fn stall_poll(&self, stalled: bool) {
        let _ = self.control.send(Control::StallPoll(stalled));
    }

    /// Waits until the consumer stopped on its own (fatal error).
    pub async fn wait(mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.await;
        }
    }

    /// The process dies: no commit, no leave, connections drop.
    pub fn kill(mut self) {
        if let Some(h) = self.handle.take()
            && !h.is_finished()
        {
            h.abort();
            self.emitter.emit(EventKind::Stopped { graceful: false });
        }
    }
}

impl Drop for AsyncConsumer {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.abort();
        }
    }
}

impl<N: Net> Member<N> {
    fn new(
        net: N,
        bootstrap: Vec<String>,
        config: AsyncConsumerConfig,
        member_id: &str,
        emitter: Emitter,
        rng: ChaCha8Rng,
        control: mpsc::UnboundedReceiver<Control>,
    ) -> Self {
        emitter.set_member_id(member_id);
        let rng = Rc::new(RefCell::new(rng));
        let mut conn = ConnectionConfig::new(config.client_id.clone());
        conn.request_timeout_ms = config.request_timeout_ms;
        conn.reconnect_backoff_ms = config.reconnect_backoff_ms;
        conn.reconnect_backoff_max_ms = config.reconnect_backoff_max_ms;
        conn.version_caps = config.version_caps.clone();
        let client = KafkaClient::new(net, conn, bootstrap, emitter.clone(), rng.clone());
        let now = emitter.now_ms();
        let retry = ExponentialBackoff::retry(config.retry_backoff_ms, config.retry_backoff_max_ms);
        let (inbox, tx) = Inbox::new(control);
        let subscription = Subscription {
            topics: config.topics.iter().cloned().collect(),
            regex: config.topic_regex.clone(),
            rebalance_timeout_ms: config.max_poll_interval_ms,
            server_assignor: config.server_assignor.clone(),
            rack_id: config.rack_id.clone(),
        };
        Self {
            client,
            rng,
            subscription,
            inbox,
            tx,
            children: Vec::new(),
            membership: Membership::new(
                &config.group_id,
                member_id,
                config.group_instance_id.as_deref(),
            ),
            hb: HeartbeatRequestState::new(0, retry, now),
            coordinator: CoordinatorTracker::new(
                config.retry_backoff_ms,
                config.retry_backoff_max_ms,
            ),
            topic_ids: TopicIds::new(),
            metadata: RequestState::new(retry),
            metadata_wanted: true,
            metadata_in_flight: false,
            owned: BTreeMap::new(),
            job: None,
            queued: VecDeque::new(),
            next_auto_commit_ms: now + config.auto_commit_interval_ms as i64,
            next_commit_id: 0,
            fetch: RequestState::new(retry),
            fetch_in_flight: false,
            close_requested: None,
            close_started: false,
            leave_in_flight: false,
            leave_deadline_ms: None,
            exit: false,
            last_epoch: 0,
            heartbeats_stalled: false,
            same_ms_sends: (0, 0),
            poll_stalled: false,
            poll_deadline_ms: now + i64::from(config.max_poll_interval_ms),
            emitter,
            config: Rc::new(config),
        }
    }

    async fn run(mut self) {
        self.membership.subscribe();
        self.sync_events();
        event_loop::drive(&mut self).await;
        self.client.close_all("consumer closed");
        self.emitter.emit(EventKind::Stopped {
            graceful: self.membership.state() != MemberState::Fatal,
        });
    }

    // ---------------------------------------------------------------------------------------
    // The poll.

    fn poll(&mut self, now: i64) {
        self.children.retain(|h| !h.is_finished());
        if !self.poll_stalled {
            // The application polls continuously: the poll timer restarts.
            self.poll_deadline_ms = now + i64::from(self.config.max_poll_interval_ms);
        }
        self.poll_coordinator(now);
        self.poll_metadata(now);
        self.poll_heartbeat(now);
        if self.exit || self.poll_stalled {
            // A stuck application thread runs no callbacks, commits or fetches.
            return;
        }
        self.poll_jobs(now);
        self.poll_fetch(now);
        if self.exit {
            return;
        }
        if self.close_started && !self.leave_in_flight && self.close_done(now) {
            self.exit = true;
        }
    }

    /// After close started: true once nothing is left to wait for.
    fn close_done(&self, now: i64) -> bool {
        if self.job.is_some() || !self.queued.is_empty() {
            return false;
        }
        match self.membership.state() {
            MemberState::Leaving | MemberState::PrepareLeaving => {
                self.leave_deadline_ms.is_some_and(|d| now >= d)
            }
            _ => true,
        }
    }

    fn poll_coordinator(&mut self, now: i64) {
        if self.coordinator.should_send(now) {
            self.coordinator.on_send(now);
            let client = self.client.clone();
            let group = self.membership.group_id().to_string();
            self.spawn(
                async move { find_coordinator(&client, &group).await },
                Msg::Coordinator,
            );
        }
    }

    fn poll_metadata(&mut self, now: i64) {
        if self.metadata_wanted && !self.metadata_in_flight && self.metadata.can_send_request(now) {
            self.metadata_wanted = false;
            self.metadata_in_flight = true;
            self.metadata.on_send_attempt(now);
            let client = self.client.clone();
            // A pattern subscription names no topics: the assignment's topic ids are looked up in
            // the metadata of every topic.
            let topics = self
                .config
                .topic_regex
                .is_none()
                .then(|| self.config.topics.clone());
            self.spawn(
                async move { fetch_metadata(&client, topics.as_deref()).await },
                Msg::Metadata,
            );
        }
    }

    /// Kafka's `AbstractHeartbeatRequestManager.poll`.
    fn poll_heartbeat(&mut self, now: i64) {
        if self.coordinator.node().is_none() || self.membership.should_skip_heartbeat() {
            self.membership.on_heartbeat_request_skipped();
            self.sync_events();
            return;
        }
        if self.membership.state() == MemberState::Leaving
            && self.membership.should_skip_leave_heartbeat()
        {
            self.membership.on_heartbeat_request_skipped();
            self.sync_events();
            return;
        }
        if self.heartbeats_stalled || self.heartbeat_throttled(now) {
            return;
        }
        // `AbstractHeartbeatRequestManager.poll`: the poll timer expired, so leave at once.
        if self.poll_stalled
            && now >= self.poll_deadline_ms
            && self.membership.leave_on_expired_poll_timer()
        {
            let mut rng = self.rng.borrow_mut();
            self.hb.reset(&mut *rng);
        }
        if self.should_heartbeat_before_interval_expires() || self.hb.can_send_request(now) {
            self.send_heartbeat(now);
            if self.membership.state() == MemberState::Stale {
                // `transitionToStale`: `onPartitionsLost` runs on the application thread.
                let until_ms = now + self.config.lost_latency_ms as i64;
                self.queued.push_back(Job::Lose {
                    until_ms,
                    then: AfterLost::Stale,
                });
            }
        }
    }

    fn heartbeat_throttled(&self, now: i64) -> bool {
        self.same_ms_sends.0 == now && self.same_ms_sends.1 >= MAX_HEARTBEATS_PER_MS
    }

    /// `shouldHeartbeatBeforeIntervalExpires`: a leave goes at once; a join or acknowledgement
    /// goes at once unless a heartbeat is already in flight.
    fn should_heartbeat_before_interval_expires(&self) -> bool {
        let state = self.membership.state();
        (state == MemberState::Leaving && !self.membership.should_skip_leave_heartbeat())
            || (matches!(state, MemberState::Joining | MemberState::Acknowledging)
                && !self.hb.request_in_flight())
    }

    fn send_heartbeat(&mut self, now: i64) {
        let Some(node) = self.coordinator.node().cloned() else {
            return;
        };
        let leave = self.membership.state() == MemberState::Leaving;
        let request = self.membership.build_heartbeat(&self.subscription);
        let epoch = request.member_epoch;
        if self.same_ms_sends.0 == now {
            self.same_ms_sends.1 += 1;
        } else {
            self.same_ms_sends = (now, 1);
        }
        self.hb.on_send_attempt(now);
        self.membership.on_heartbeat_request_generated();
        self.hb.reset_timer(now);
        if leave {
            self.leave_in_flight = true;
            self.emitter.emit(EventKind::LeaveSent { epoch });
        }
        self.sync_events();
        let client = self.client.clone();
        self.spawn(
            async move {
                client
                    .send(&node.broker, Request::ConsumerGroupHeartbeat(request))
                    .await
            },
            move |result| Msg::Heartbeat { result, leave },
        );
    }

    // ---------------------------------------------------------------------------------------
    // The application thread's work.

    fn poll_jobs(&mut self, now: i64) {
        for _ in 0..8 {
            if self.job.is_none() {
                if let Some(next) = self.queued.pop_front() {
                    self.job = Some(next);
                } else {
                    self.maybe_start_job(now);
                }
            }
            if self.job.is_none() || !self.advance_job(now) {
                break;
            }
        }
    }

    fn names_by_id(&self) -> BTreeMap<Uuid, String> {
        self.topic_ids
            .iter()
            .map(|(n, id)| (*id, n.clone()))
            .collect()
    }

    /// Starts the next job if none runs: close, a reconciliation, or an auto-commit.
    fn maybe_start_job(&mut self, now: i64) {
        if self.exit || self.close_started {
            return;
        }
        if let Some(op) = self.close_requested {
            self.start_close(op, now);
            return;
        }
        if self.membership.reconcile_due() {
            let names = self.names_by_id();
            if !self.membership.unresolved_topics(&names).is_empty() {
                self.metadata_wanted = true;
            }
            let owned: BTreeSet<TopicPartition> = self.owned.keys().cloned().collect();
            match self.membership.maybe_reconcile(&owned, &names) {
                ReconcileStep::Idle => {}
                ReconcileStep::AcknowledgedPartial => self.sync_events(),
                ReconcileStep::Run(plan) => {
                    // `signalReconciliationStarted`: with auto-commit, commit every consumed
                    // position first, retried until the rebalance timeout.
                    let deadline = now + i64::from(self.config.max_poll_interval_ms);
                    let commit = if self.config.enable_auto_commit {
                        self.prepare_commit(now, CommitKind::Sync, deadline)
                    } else {
                        None
                    };
                    let phase = match commit {
                        Some(op) => ReconcilePhase::Committing(op),
                        None => ReconcilePhase::Revoking {
                            until_ms: self.revocation_until(&plan, now),
                        },
                    };
                    self.job = Some(Job::Reconcile {
                        plan: Box::new(plan),
                        phase,
                    });
                }
            }
            return;
        }
        if self.config.enable_auto_commit
            && now >= self.next_auto_commit_ms
            && self.membership.member_epoch() > 0
        {
            self.next_auto_commit_ms = now + self.config.auto_commit_interval_ms as i64;
            if let Some(op) = self.prepare_commit(now, CommitKind::Async, now) {
                self.job = Some(Job::Commit { op, close: None });
            }
        }
    }

    fn revocation_until(&self, plan: &ReconcilePlan, now: i64) -> i64 {
        if plan.revoked.is_empty() {
            now
        } else {
            now + self.config.revocation_latency_ms as i64
        }
    }

    /// Advances the current job; returns true if it finished (so the next may start).
    fn advance_job(&mut self, now: i64) -> bool {
        let Some(job) = self.job.take() else {
            return false;
        };
        match job {
            Job::Reconcile { plan, phase } => self.advance_reconcile(plan, phase, now),
            Job::Commit { mut op, close } => match self.drive_commit(&mut op, now) {
                None => {
                    self.job = Some(Job::Commit { op, close });
                    false
                }
                Some(outcome) => {
                    self.finish_commit(&op, &outcome);
                    if let Some(leave) = close {
                        self.revoke_all_and_leave(leave, now);
                    }
                    true
                }
            },
            Job::Lose { until_ms, then } => {
                if now < until_ms {
                    self.job = Some(Job::Lose { until_ms, then });
                    return false;
                }
                self.drop_all_partitions();
                match then {
                    AfterLost::Rejoin => self.membership.on_all_partitions_lost(),
                    AfterLost::Fatal => {
                        self.membership.on_fatal_partitions_lost();
                        self.exit = true;
                    }
                    AfterLost::Stale => {}
                }
                self.sync_events();
                true
            }
        }
    }

    /// Kafka's `maybeReconcile` continuation: commit -> `onPartitionsRevoked` ->
    /// `onPartitionsAssigned`, checking after each step that the reconciliation still applies.
    fn advance_reconcile(
        &mut self,
        plan: Box<ReconcilePlan>,
        phase: ReconcilePhase,
        now: i64,
    ) -> bool {
        match phase {
            ReconcilePhase::Committing(mut op) => match self.drive_commit(&mut op, now) {
                None => {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Committing(op),
                    });
                    false
                }
                Some(outcome) => {
                    // Kafka proceeds with the reconciliation whatever the commit's outcome.
                    self.finish_commit(&op, &outcome);
                    if self.membership.on_commit_done() {
                        let until_ms = self.revocation_until(&plan, now);
                        self.job = Some(Job::Reconcile {
                            plan,
                            phase: ReconcilePhase::Revoking { until_ms },
                        });
                    }
                    true
                }
            },
            ReconcilePhase::Revoking { until_ms } => {
                if now < until_ms {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Revoking { until_ms },
                    });
                    return false;
                }
                let revoked: Vec<TopicPartition> = plan
                    .revoked
                    .iter()
                    .filter(|tp| self.owned.remove(*tp).is_some())
                    .cloned()
                    .collect();
                if !revoked.is_empty() {
                    self.emitter.emit(EventKind::PartitionsRevoked {
                        partitions: revoked,
                    });
                    self.emit_owned();
                }
                if self.membership.on_revocation_done() {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Assigning {
                            until_ms: now + self.config.assignment_latency_ms as i64,
                        },
                    });
                }
                true
            }
            ReconcilePhase::Assigning { until_ms } => {
                if now < until_ms {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Assigning { until_ms },
                    });
                    return false;
                }
                // A reconciliation aborted meanwhile (fenced, leaving) takes nothing on: its
                // partitions would be lost at once.
                if self.membership.state() == MemberState::Reconciling {
                    let added: Vec<TopicPartition> = plan
                        .added
                        .iter()
                        .filter(|tp| !self.owned.contains_key(*tp))
                        .cloned()
                        .collect();
                    for tp in &added {
                        self.owned.insert(
                            tp.clone(),
                            Owned {
                                base: None,
                                started_ms: now,
                                committed: None,
                            },
                        );
                    }
                    if !added.is_empty() {
                        self.emitter
                            .emit(EventKind::PartitionsAssigned { partitions: added });
                        self.emit_owned();
                    }
                }
                self.membership.on_assignment_done(&plan);
                self.sync_events();
                true
            }
        }
    }

    fn drop_all_partitions(&mut self) {
        if self.owned.is_empty() {
            return;
        }
        let partitions: Vec<TopicPartition> = std::mem::take(&mut self.owned).into_keys().collect();
        self.emitter.emit(EventKind::PartitionsLost { partitions });
        self.emit_owned();
    }

    fn emit_owned(&self) {
        self.emitter.emit(EventKind::OwnedPartitions {
            generation: self.membership.member_epoch(),
            partitions: self.owned.keys().cloned().collect(),
        });
    }

    // ---------------------------------------------------------------------------------------
    // Commits (Kafka's `CommitRequestManager`).

    fn position(&self, owned: &Owned, now: i64) -> Option<i64> {
        let base = owned.base?;
        let processed = ((now - owned.started_ms).max(0) as u64)
            .saturating_mul(self.config.records_per_second)
            / 1000;
        Some(base + processed as i64)
    }

    /// A commit of the consumed positions that moved since their last commit, or `None`.
    fn prepare_commit(&mut self, now: i64, kind: CommitKind, deadline_ms: i64) -> Option<CommitOp> {
        let offsets: Vec<(TopicPartition, i64)> = self
            .owned
            .iter()
            .filter_map(|(tp, o)| {
                let pos = self.position(o, now)?;
                (o.committed != Some(pos)).then(|| (tp.clone(), pos))
            })
            .collect();
        if offsets.is_empty() {
            return None;
        }
        self.next_commit_id += 1;
        Some(CommitOp {
            id: self.next_commit_id,
            offsets,
            kind,
            deadline_ms,
            retry: RequestState::new(ExponentialBackoff::retry(
                self.config.retry_backoff_ms,
                self.config.retry_backoff_max_ms,
            )),
            state: CommitState::Waiting { not_before_ms: now },
            epoch: self.membership.member_epoch(),
        })
    }

    /// Sends the commit when it may go; returns its outcome once known.
    fn drive_commit(&mut self, op: &mut CommitOp, now: i64) -> Option<CommitOutcome> {
        match &op.state {
            CommitState::Done(outcome) => Some(outcome.clone()),
            CommitState::InFlight => None,
            CommitState::Waiting { not_before_ms } => {
                if op.kind == CommitKind::Sync && now >= op.deadline_ms {
                    return Some(CommitOutcome::GaveUp(
                        "commit not completed before its deadline".into(),
                    ));
                }
                // The commit carries the member's epoch; a member out of the group has none and
                // its commit fails (`CommitRequestManager`: the member's epoch is required).
                let epoch = self.membership.member_epoch();
                if epoch <= 0 {
                    return Some(CommitOutcome::GaveUp("the member has no epoch".into()));
                }
                if now < *not_before_ms {
                    return None;
                }
                let Some(node) = self.coordinator.node().cloned() else {
                    if op.kind == CommitKind::Async {
                        return Some(CommitOutcome::GaveUp("coordinator unknown".into()));
                    }
                    return None;
                };
                op.epoch = epoch;
                let committer = Committer {
                    group_id: self.membership.group_id().to_string(),
                    member_id: self.membership.member_id().to_string(),
                    generation_or_epoch: epoch,
                    instance_id: self.membership.instance_id().map(str::to_string),
                };
                let cap =
                    version_cap_for(op.offsets.iter().map(|(tp, _)| &tp.topic), &self.topic_ids);
                let request = build_commit(&committer, &op.offsets, &self.topic_ids);
                op.retry.on_send_attempt(now);
                op.state = CommitState::InFlight;
                let client = self.client.clone();
                let id = op.id;
                let timeout = self.config.request_timeout_ms;
                self.spawn(
                    async move {
                        client
                            .send_built_capped(
                                &node.broker,
                                Api::OffsetCommit,
                                Some(cap),
                                timeout,
                                |_| Request::OffsetCommit(request),
                            )
                            .await
                    },
                    move |result| Msg::Commit { id, result },
                );
                None
            }
        }
    }

    fn current_commit_mut(&mut self, id: u64) -> Option<&mut CommitOp> {
        match self.job.as_mut()? {
            Job::Commit { op, .. } if op.id == id => Some(op),
            Job::Reconcile {
                phase: ReconcilePhase::Committing(op),
                ..
            } if op.id == id => Some(op),
            _ => None,
        }
    }

    /// `OffsetCommitRequestState.onResponse`: a synchronous commit retries retriable errors and
    /// STALE_MEMBER_EPOCH (with the member's latest epoch); an asynchronous one never retries.
    fn on_commit_response(&mut self, id: u64, result: Result<Response, RequestFailure>, now: i64) {
        let names = self.names_by_id();
        let mut mark_unknown = false;
        let rng_cell = self.rng.clone();
        let Some(op) = self.current_commit_mut(id) else {
            return;
        };
        let mut rng = rng_cell.borrow_mut();
        let retry_or = |op: &mut CommitOp, rng: &mut ChaCha8Rng, outcome: CommitOutcome| {
            if op.kind == CommitKind::Sync {
                op.retry.on_failed_attempt(now, rng);
                op.state = CommitState::Waiting {
                    not_before_ms: now + op.retry.remaining_backoff_ms(now),
                };
            } else {
                op.state = CommitState::Done(outcome);
            }
        };
        match result {
            Ok(Response::OffsetCommit(r)) => match commit_result(&r, &names) {
                Ok(()) => op.state = CommitState::Done(CommitOutcome::Accepted),
                Err((code, _)) => match code {
                    ErrorCode::CoordinatorNotAvailable
                    | ErrorCode::NotCoordinator
                    | ErrorCode::RequestTimedOut => {
                        mark_unknown = true;
                        retry_or(op, &mut rng, CommitOutcome::Rejected(code));
                    }
                    ErrorCode::CoordinatorLoadInProgress
                    | ErrorCode::UnknownTopicOrPartition
                    | ErrorCode::UnknownTopicId
                    | ErrorCode::StaleMemberEpoch => {
                        retry_or(op, &mut rng, CommitOutcome::Rejected(code))
                    }
                    other => op.state = CommitState::Done(CommitOutcome::Rejected(other)),
                },
            },
            Ok(_) => op.state = CommitState::Done(CommitOutcome::GaveUp("wrong response".into())),
            Err(failure) => {
                if matches!(failure, RequestFailure::Disconnected(_)) {
                    mark_unknown = true;
                }
                if failure == RequestFailure::UnsupportedVersion {
                    op.state =
                        CommitState::Done(CommitOutcome::Rejected(ErrorCode::UnsupportedVersion));
                } else {
                    let reason = failure.to_string();
                    retry_or(op, &mut rng, CommitOutcome::GaveUp(reason));
                }
            }
        }
        drop(rng);
        if mark_unknown {
            self.mark_coordinator_unknown("OffsetCommit failed");
        }
    }

    /// Reports a finished commit and records what it committed.
    fn finish_commit(&mut self, op: &CommitOp, outcome: &CommitOutcome) {
        match outcome {
            CommitOutcome::Accepted => {
                for (tp, offset) in &op.offsets {
                    if let Some(o) = self.owned.get_mut(tp) {
                        o.committed = Some(*offset);
                    }
                }
                self.emitter.emit(EventKind::CommitAccepted {
                    epoch: op.epoch,
                    offsets: op.offsets.clone(),
                });
            }
            CommitOutcome::Rejected(code) => {
                self.emitter.emit(EventKind::CommitRejected {
                    epoch: op.epoch,
                    error: *code,
                    partitions: op.offsets.iter().map(|(tp, _)| tp.clone()).collect(),
                });
                if *code == ErrorCode::FencedInstanceId {
                    self.fatal(
                        Some(*code),
                        "The consumer's group instance id was fenced by another instance".into(),
                    );
                }
            }
            CommitOutcome::GaveUp(reason) => {
                self.emitter.emit(EventKind::CommitFailed {
                    epoch: op.epoch,
                    reason: reason.clone(),
                });
            }
        }
    }

    // ---------------------------------------------------------------------------------------
    // Committed offsets of new partitions.

    fn poll_fetch(&mut self, now: i64) {
        if self.fetch_in_flight || !self.fetch.can_send_request(now) {
            return;
        }
        let Some(node) = self.coordinator.node().cloned() else {
            return;
        };
        if self.membership.member_epoch() <= 0 {
            return;
        }
        let partitions: BTreeSet<TopicPartition> = self
            .owned
            .iter()
            .filter(|(_, o)| o.base.is_none())
            .map(|(tp, _)| tp.clone())
            .collect();
        if partitions.is_empty() {
            return;
        }
        let list: Vec<TopicPartition> = partitions.iter().cloned().collect();
        let cap = version_cap_for(list.iter().map(|tp| &tp.topic), &self.topic_ids);
        let group = self.membership.group_id().to_string();
        let member_id = self.membership.member_id().to_string();
        let epoch = self.membership.member_epoch();
        let ids = self.topic_ids.clone();
        self.fetch_in_flight = true;
        self.fetch.on_send_attempt(now);
        let client = self.client.clone();
        let timeout = self.config.request_timeout_ms;
        self.spawn(
            async move {
                client
                    .send_built_capped(&node.broker, Api::OffsetFetch, Some(cap), timeout, |v| {
                        Request::OffsetFetch(build_fetch(
                            v,
                            &group,
                            Some((&member_id, epoch)),
                            &list,
                            &ids,
                        ))
                    })
                    .await
            },
            move |result| Msg::Fetch { partitions, result },
        );
    }

    fn on_fetch_response(
        &mut self,
        partitions: BTreeSet<TopicPartition>,
        result: Result<Response, RequestFailure>,
        now: i64,
    ) {
        self.fetch_in_flight = false;
        let names = self.names_by_id();
        let fetched = match result {
            Ok(Response::OffsetFetch(r)) => fetch_result(&r, &names).map_err(|c| format!("{c:?}")),
            Ok(_) => Err("wrong response".to_string()),
            Err(f) => Err(f.to_string()),
        };
        let mut rng = self.rng.borrow_mut();
        match fetched {
            Ok(offsets) => {
                self.fetch.on_successful_attempt(now, &mut *rng);
                drop(rng);
                let mut reported = Vec::new();
                for tp in &partitions {
                    let Some(o) = self.owned.get_mut(tp) else {
                        continue;
                    };
                    if o.base.is_some() {
                        continue;
                    }
                    let base = offsets.get(tp).copied().unwrap_or(-1).max(0);
                    o.base = Some(base);
                    o.committed = Some(base);
                    o.started_ms = now;
                    reported.push((tp.clone(), base));
                }
                if !reported.is_empty() {
                    self.emitter
                        .emit(EventKind::OffsetsFetched { offsets: reported });
                }
            }
            Err(_) => self.fetch.on_failed_attempt(now, &mut *rng),
        }
    }

    // ---------------------------------------------------------------------------------------
    // Responses.

    fn handle(&mut self, msg: Msg, now: i64) {
        match msg {
            Msg::Coordinator(result) => {
                let outcome = {
                    let mut rng = self.rng.borrow_mut();
                    self.coordinator.on_result(result, now, &mut *rng)
                };
                match outcome {
                    Ok(event) => self.emitter.emit(event),
                    Err(failure) if !failure.is_retriable() => {
                        let (code, message) = match failure {
                            FindFailure::Error(code, m) => (Some(code), m.unwrap_or_default()),
                            FindFailure::Transport(f) => (None, f.to_string()),
                        };
                        self.fatal(code, format!("FindCoordinator failed: {message}"));
                    }
                    Err(_) => {}
                }
            }
            Msg::Heartbeat { result, leave } => self.on_heartbeat_result(result, leave, now),
            Msg::Commit { id, result } => self.on_commit_response(id, result, now),
            Msg::Fetch { partitions, result } => self.on_fetch_response(partitions, result, now),
            Msg::Metadata(result) => {
                self.metadata_in_flight = false;
                let mut rng = self.rng.borrow_mut();
                match result {
                    Ok(snapshot) => {
                        self.metadata.on_successful_attempt(now, &mut *rng);
                        self.topic_ids.extend(snapshot.topic_ids());
                    }
                    Err(_) => {
                        self.metadata.on_failed_attempt(now, &mut *rng);
                        self.metadata_wanted = true;
                    }
                }
            }
        }
    }

    fn on_heartbeat_result(
        &mut self,
        result: Result<Response, RequestFailure>,
        leave: bool,
        now: i64,
    ) {
        match result {
            Ok(Response::ConsumerGroupHeartbeat(r)) => match ErrorCode::from_code(r.error_code) {
                Some(ErrorCode::None) => self.on_heartbeat_success(r, now),
                code => self.on_heartbeat_error(
                    code.unwrap_or(ErrorCode::UnknownServerError),
                    r.error_message.map(|m| m.to_string()),
                    now,
                ),
            },
            Ok(_) => self.on_heartbeat_failure(RequestFailure::Wire("wrong response".into()), now),
            Err(failure) => self.on_heartbeat_failure(failure, now),
        }
        if leave {
            self.leave_in_flight = false;
        }
    }

    fn on_heartbeat_success(&mut self, r: ConsumerGroupHeartbeatResponse, now: i64) {
        let was_joining = self.membership.state() == MemberState::Joining;
        self.hb
            .update_interval_ms(i64::from(r.heartbeat_interval_ms), now);
        {
            let mut rng = self.rng.borrow_mut();
            self.hb.on_successful_attempt(now, &mut *rng);
        }
        // Topic ids the metadata does not name yet: ask for it
        // (`findResolvableAssignmentAndTriggerMetadataUpdate`).
        if let Some(a) = &r.assignment
            && a.topic_partitions
                .iter()
                .any(|t| !self.topic_ids.values().any(|id| *id == t.topic_id))
        {
            self.metadata_wanted = true;
        }
        self.membership.on_heartbeat_success(&r);
        if let Some(id) = &r.member_id {
            self.emitter.set_member_id(id.as_str());
        }
        if was_joining
            && self.membership.state() != MemberState::Joining
            && self.membership.state() != MemberState::Fatal
            && r.member_epoch > 0
        {
            self.emitter.emit(EventKind::Joined {
                epoch: r.member_epoch,
            });
        }
        self.sync_events();
    }

    /// `onErrorResponse` (Kafka 4.4.0's consumer table, [`heartbeat_error_action`]).
    fn on_heartbeat_error(&mut self, error: ErrorCode, message: Option<String>, now: i64) {
        self.membership.reset_sent_fields();
        let mut rng = self.rng.borrow_mut();
        self.hb.on_failed_attempt(now, &mut *rng);
        match heartbeat_error_action(error) {
            HeartbeatErrorAction::Rediscover => {
                self.hb.reset(&mut *rng);
                drop(rng);
                self.mark_coordinator_unknown(&format!("heartbeat failed with {}", error.name()));
            }
            HeartbeatErrorAction::Retry | HeartbeatErrorAction::Report => {}
            HeartbeatErrorAction::Fenced => {
                self.hb.reset(&mut *rng);
                drop(rng);
                let epoch = self.membership.member_epoch();
                let in_group = !matches!(
                    self.membership.state(),
                    MemberState::Unsubscribed
                        | MemberState::Leaving
                        | MemberState::PrepareLeaving
                        | MemberState::Fenced
                        | MemberState::Fatal
                        | MemberState::Stale
                );
                if in_group {
                    self.emitter.emit(EventKind::Fenced { error, epoch });
                }
                if self.membership.on_fenced() {
                    let until_ms = now + self.config.lost_latency_ms as i64;
                    self.queued.push_back(Job::Lose {
                        until_ms,
                        then: AfterLost::Rejoin,
                    });
                }
                self.sync_events();
            }
            HeartbeatErrorAction::Fatal => {
                drop(rng);
                let message = message.unwrap_or_else(|| error.default_message().to_string());
                self.fatal(Some(error), message);
            }
        }
    }

    /// No response (`onFailure`): retriable failures back off (a disconnect also forgets the
    /// coordinator); an unsupported version is fatal.
    fn on_heartbeat_failure(&mut self, failure: RequestFailure, now: i64) {
        {
            let mut rng = self.rng.borrow_mut();
            self.hb.on_failed_attempt(now, &mut *rng);
        }
        self.membership.reset_sent_fields();
        match failure {
            RequestFailure::UnsupportedVersion => self.fatal(
                Some(ErrorCode::UnsupportedVersion),
                "The cluster does not support the new CONSUMER group protocol. Set \
                 group.protocol=classic on the consumer configs to revert to the CLASSIC protocol \
                 until the cluster is upgraded."
                    .into(),
            ),
            RequestFailure::Disconnected(why) => self.mark_coordinator_unknown(&why),
            RequestFailure::TimedOut | RequestFailure::Wire(_) => {}
        }
    }

    fn mark_coordinator_unknown(&mut self, reason: &str) {
        if self.coordinator.mark_unknown() {
            self.emitter.emit(EventKind::CoordinatorUnknown {
                reason: reason.to_string(),
            });
        }
    }

    // ---------------------------------------------------------------------------------------
    // Fatal errors and close.

    /// The member is FATAL: report, drop its partitions (`onPartitionsLost`), stop.
    fn fatal(&mut self, error: Option<ErrorCode>, message: String) {
        if self.membership.state() == MemberState::Fatal {
            return;
        }
        self.membership.transition_to_fatal();
        self.sync_events();
        self.emitter.emit(EventKind::Fatal { error, message });
        let until_ms = self.now() + self.config.lost_latency_ms as i64;
        self.queued.clear();
        self.job = None;
        self.queued.push_back(Job::Lose {
            until_ms,
            then: AfterLost::Fatal,
        });
    }

    /// `AsyncKafkaConsumer.close`: auto-commit synchronously, revoke every partition, leave.
    fn start_close(&mut self, op: LeaveOperation, now: i64) {
        self.close_started = true;
        let deadline = now + self.config.default_api_timeout_ms as i64;
        let commit = if self.config.enable_auto_commit && self.membership.member_epoch() > 0 {
            self.prepare_commit(now, CommitKind::Sync, deadline)
        } else {
            None
        };
        match commit {
            Some(commit) => {
                self.job = Some(Job::Commit {
                    op: commit,
                    close: Some(op),
                })
            }
            None => self.revoke_all_and_leave(op, now),
        }
    }

    /// `releaseAssignmentAndLeaveGroup`: `onPartitionsRevoked` for everything owned (lost if the
    /// member is no longer in the group), then the leave heartbeat.
    fn revoke_all_and_leave(&mut self, op: LeaveOperation, now: i64) {
        self.close_started = true;
        if !self.owned.is_empty() {
            let partitions: Vec<TopicPartition> =
                std::mem::take(&mut self.owned).into_keys().collect();
            let in_group = self.membership.member_epoch() > 0;
            self.emitter.emit(if in_group {
                EventKind::PartitionsRevoked { partitions }
            } else {
                EventKind::PartitionsLost { partitions }
            });
            self.emit_owned();
        }
        if self.membership.leave_group(op) {
            self.leave_deadline_ms = Some(now + self.config.request_timeout_ms as i64);
        }
        self.sync_events();
    }

    // ---------------------------------------------------------------------------------------
    // Helpers.

    fn spawn<F>(&mut self, fut: F, wrap: impl FnOnce(F::Output) -> Msg + 'static)
    where
        F: Future + 'static,
    {
        let tx = self.tx.clone();
        let fut = Box::pin(fut);
        self.children.push(tokio::task::spawn_local(async move {
            let out = fut.await;
            let _ = tx.send(wrap(out));
        }));
    }

    /// Reports state transitions and epoch changes since the last call.
    fn sync_events(&mut self) {
        for t in self.membership.take_transitions() {
            self.emitter.emit(EventKind::StateChanged {
                from: t.from.name(),
                to: t.to.name(),
            });
        }
        let epoch = self.membership.member_epoch();
        if epoch != self.last_epoch {
            self.emitter.emit(EventKind::EpochChanged {
                from: self.last_epoch,
                to: epoch,
            });
            self.last_epoch = epoch;
        }
    }

    /// The next time something may be due.
    fn next_wake(&self, now: i64) -> i64 {
        let far = now + 3_600_000;
        let mut wake = far;
        let coordinator_known = self.coordinator.node().is_some();
        let mut at = |t: i64| wake = wake.min(t);
        if let Some(t) = self.coordinator.next_send_ms(now) {
            at(t);
        }
        if self.metadata_wanted && !self.metadata_in_flight {
            at(now + self.metadata.remaining_backoff_ms(now));
        }
        if coordinator_known && !self.membership.should_skip_heartbeat() && !self.heartbeats_stalled
        {
            if self.heartbeat_throttled(now) {
                at(now + 1);
            } else if self.should_heartbeat_before_interval_expires() {
                at(now);
            } else if !self.hb.request_in_flight() {
                at(now + self.hb.time_to_next_heartbeat_ms(now));
            }
        }
        if self.job.is_none()
            && (!self.queued.is_empty()
                || self.membership.reconcile_due()
                || (self.close_requested.is_some() && !self.close_started))
        {
            at(now);
        }
        match &self.job {
            Some(Job::Reconcile { phase, .. }) => match phase {
                ReconcilePhase::Revoking { until_ms } | ReconcilePhase::Assigning { until_ms } => {
                    at(*until_ms)
                }
                ReconcilePhase::Committing(op) => commit_wake(op, coordinator_known, &mut at),
            },
            Some(Job::Commit { op, .. }) => commit_wake(op, coordinator_known, &mut at),
            Some(Job::Lose { until_ms, .. }) => at(*until_ms),
            None => {
                if self.config.enable_auto_commit && !self.owned.is_empty() {
                    at(self.next_auto_commit_ms);
                }
            }
        }
        if !self.fetch_in_flight
            && coordinator_known
            && self.membership.member_epoch() > 0
            && self.owned.values().any(|o| o.base.is_none())
        {
            at(now + self.fetch.remaining_backoff_ms(now));
        }
        if let Some(d) = self.leave_deadline_ms {
            at(d);
        }
        if self.poll_stalled
            && !self.membership.should_skip_heartbeat()
            && !matches!(
                self.membership.state(),
                MemberState::PrepareLeaving | MemberState::Leaving
            )
        {
            at(self.poll_deadline_ms);
        }
        wake.max(now)
    }
}

/// When a waiting commit may move: its retry time (only with a known coordinator) or its
/// deadline.
fn commit_wake(op: &CommitOp, coordinator_known: bool, at: &mut impl FnMut(i64)) {
    if let CommitState::Waiting { not_before_ms } = op.state {
        if coordinator_known {
            at(not_before_ms);
        }
        if op.kind == CommitKind::Sync {
            at(op.deadline_ms);
        }
    }
}

impl<N: Net> Model for Member<N> {
    type Control = Control;
    type Result = Msg;

    fn inbox(&mut self) -> &mut Inbox<Control, Msg> {
        &mut self.inbox
    }

    fn now(&self) -> i64 {
        self.emitter.now_ms()
    }

    fn poll_due(&mut self, now: i64) {
        self.poll(now);
    }

    fn finished(&self) -> bool {
        self.exit
    }

    fn next_wake_ms(&self, now: i64) -> i64 {
        self.next_wake(now)
    }

    fn on_control(&mut self, control: Control) {
        match control {
            Control::StallHeartbeats(stalled) => self.heartbeats_stalled = stalled,
            Control::StallPoll(stalled) => {
                let now = self.now();
                if !stalled && self.poll_stalled {
                    // `resetPollTimer`: an expired timer rejoins a STALE member.
                    if now >= self.poll_deadline_ms {
                        self.membership.maybe_rejoin_stale_member();
                        self.sync_events();
                    }
                    self.poll_deadline_ms = now + i64::from(self.config.max_poll_interval_ms);
                }
                self.poll_stalled = stalled;
            }
            Control::Close(op) => {
                self.close_requested.get_or_insert(op);
            }
        }
    }

    /// The handle is gone: close as on `close()`.
    fn on_control_closed(&mut self) {
        self.close_requested.get_or_insert(LeaveOperation::Default);
    }

    fn on_result(&mut self, msg: Msg, now: i64) {
        self.handle(msg, now);
    }
}

impl<N: Net> Drop for Member<N> {
    fn drop(&mut self) {
        for h in self.children.drain(..) {
            h.abort();
        }
    }
}

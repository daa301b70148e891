//! One Kafka Streams member thread: the consumer's background thread (coordinator lookup,
//! heartbeats, reconciliation) and the stream thread's side of it (rebalance callbacks, commits,
//! simulated processing), as one single-threaded task.
//!
//! The task loops: `poll` does everything that is due now (like one run of Kafka's network thread
//! followed by one iteration of the stream thread), then it sleeps until the next deadline, a
//! response, or a control signal, with `select!` biased so the order is fixed. Requests run in
//! their own local tasks and report back over a channel.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::future::Future;
use std::rc::Rc;

use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{StreamsGroupHeartbeatResponse, TopicName};
use protocol::net::Net;
use protocol::streams_status::StreamsStatus;
use protocol::{Api, ErrorCode, Request, Response};
use rand_chacha::ChaCha8Rng;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use uuid::Uuid;

use super::config::{FatalErrorPolicy, StreamsConfig};
use super::errors::{HeartbeatErrorAction, heartbeat_error_action};
use super::membership::{
    JoinInfo, LeaveOperation, MemberState, Membership, ReconcilePlan, tasks_of,
};
use super::state_dir::StateDirectory;
use crate::backoff::ExponentialBackoff;
use crate::conn::KafkaClient;
use crate::coordinator::{CoordinatorNode, CoordinatorTracker, FindFailure, find_coordinator};
use crate::event_loop::{self, Inbox, Model};
use crate::observer::Emitter;
use crate::observer::{EndpointPartitions, EventKind, RequestFailure, TaskId, TopicPartition};
use crate::offsets::{
    Committer, MetadataSnapshot, TopicIds, build_commit, build_fetch, commit_result,
    fetch_metadata, fetch_result, version_cap_for,
};
use crate::request_state::{HeartbeatRequestState, RequestState};

/// What the process asks of its member threads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Control {
    /// Commit, close the tasks and leave with this operation, then stop.
    Stop(LeaveOperation),
    /// Stop (true) or resume (false) heartbeating while everything else goes on (a stalled
    /// heartbeat thread: the member keeps processing and committing with its last epoch).
    StallHeartbeats(bool),
}

/// State every member thread of one process shares.
pub(crate) struct ProcessShared {
    /// One control channel per thread. (Not a `watch`: tokio's watch wakes its receivers in a
    /// randomised order, which would make runs differ.)
    pub(crate) controls: RefCell<Vec<mpsc::UnboundedSender<Control>>>,
    pub(crate) shutdown_application: Cell<bool>,
    /// IQ endpoint information, the latest any member received (epoch, endpoints).
    pub(crate) endpoints: RefCell<Option<(i32, Vec<EndpointPartitions>)>>,
}

impl ProcessShared {
    /// Asks every thread to stop (in thread order).
    pub(crate) fn stop_all(&self, operation: LeaveOperation) {
        for tx in self.controls.borrow().iter() {
            let _ = tx.send(Control::Stop(operation));
        }
    }
}

/// Everything one member thread needs.
pub(crate) struct MemberParams<N: Net> {
    pub(crate) net: N,
    pub(crate) bootstrap: Vec<String>,
    pub(crate) config: Rc<StreamsConfig>,
    pub(crate) state_dir: StateDirectory,
    pub(crate) shared: Rc<ProcessShared>,
    pub(crate) control: mpsc::UnboundedReceiver<Control>,
    pub(crate) emitter: Emitter,
    pub(crate) rng: ChaCha8Rng,
    pub(crate) member_id: String,
    pub(crate) instance_id: Option<String>,
    pub(crate) client_id: String,
}

/// A response or result handed back to the member loop.
pub(crate) enum Msg {
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
        tasks: BTreeSet<TaskId>,
        result: Result<Response, RequestFailure>,
    },
    Metadata(Result<MetadataSnapshot, RequestFailure>),
}

/// An active task the thread runs. Its input positions advance with time at the configured rate
/// once the committed offsets are known.
#[derive(Debug, Clone)]
struct ActiveTask {
    partitions: Vec<TopicPartition>,
    stateful: bool,
    /// Offsets processing started from (the committed offsets, 0 where none).
    base: Option<BTreeMap<TopicPartition, i64>>,
    started_ms: i64,
    committed: BTreeMap<TopicPartition, i64>,
}

impl ActiveTask {
    fn positions(&self, now_ms: i64, rate: u64) -> Option<BTreeMap<TopicPartition, i64>> {
        let base = self.base.as_ref()?;
        let processed = ((now_ms - self.started_ms).max(0) as u64).saturating_mul(rate) / 1000;
        Some(
            base.iter()
                .map(|(tp, b)| (tp.clone(), b + processed as i64))
                .collect(),
        )
    }
}

/// How a commit ended.
#[derive(Debug, Clone, PartialEq)]
enum CommitOutcome {
    Accepted,
    /// UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH: Kafka's `CommitFailedException`, which Kafka
    /// Streams treats as a task migration.
    Fenced(ErrorCode),
    /// Any other error: fatal for the thread.
    Failed(ErrorCode),
    /// No answer before `default.api.timeout.ms`.
    GaveUp(String),
}

#[derive(Debug, Clone, PartialEq)]
enum CommitState {
    Waiting { not_before_ms: i64 },
    InFlight,
    Done(CommitOutcome),
}

/// A commit being made, retried on retriable errors until its deadline (Kafka's `commitSync`).
#[derive(Debug, Clone)]
struct CommitOp {
    id: u64,
    offsets: Vec<(TopicPartition, i64)>,
    tasks: BTreeSet<TaskId>,
    deadline_ms: i64,
    retry: RequestState,
    state: CommitState,
    /// The epoch of the last attempt.
    epoch: i32,
}

#[derive(Debug, Clone)]
enum ReconcilePhase {
    Revoking { until_ms: i64 },
    Committing(CommitOp),
    Assigning { until_ms: i64 },
}

/// What follows dropping all tasks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AfterLost {
    /// Fenced: rejoin with epoch 0.
    Rejoin,
    /// Fatal error: stop.
    Fatal,
    /// A commit was fenced (task migrated): leave, then rejoin.
    Migrated,
}

/// Work on the stream thread, one at a time.
#[derive(Debug, Clone)]
enum Job {
    Reconcile {
        plan: Box<ReconcilePlan>,
        phase: ReconcilePhase,
    },
    Commit {
        op: CommitOp,
        shutdown: Option<LeaveOperation>,
    },
    Lose {
        until_ms: i64,
        then: AfterLost,
    },
}

pub(crate) struct Member<N: Net> {
    client: Rc<KafkaClient<N>>,
    emitter: Emitter,
    rng: Rc<RefCell<ChaCha8Rng>>,
    config: Rc<StreamsConfig>,
    join: JoinInfo,
    state_dir: StateDirectory,
    shared: Rc<ProcessShared>,
    inbox: Inbox<Control, Msg>,
    membership: Membership,
    hb: HeartbeatRequestState,
    coordinator: CoordinatorTracker,
    tx: mpsc::UnboundedSender<Msg>,
    children: Vec<JoinHandle<()>>,
    topic_ids: TopicIds,
    metadata: RequestState,
    metadata_wanted: bool,
    active: BTreeMap<TaskId, ActiveTask>,
    standby: BTreeSet<TaskId>,
    warmup: BTreeSet<TaskId>,
    job: Option<Job>,
    queued: VecDeque<Job>,
    next_commit_ms: i64,
    next_commit_id: u64,
    fetch: RequestState,
    fetch_in_flight: bool,
    stop_requested: Option<LeaveOperation>,
    shutdown_started: bool,
    leave_in_flight: bool,
    leave_deadline_ms: Option<i64>,
    rejoin_after_leave: bool,
    exit: bool,
    last_epoch: i32,
    last_statuses: Vec<(i8, String)>,
    missing_topics_since: Option<(i64, String)>,
    shutdown_application_sent: bool,
    /// No heartbeat before this time (UNRELEASED_INSTANCE_ID with the retry policy).
    hold_heartbeats_until_ms: i64,
    /// Heartbeats are stalled ([`Control::StallHeartbeats`]).
    heartbeats_stalled: bool,
    /// Heartbeats sent at `same_ms_sends.0`, to stop a zero-latency transport from spinning.
    same_ms_sends: (i64, u32),
}

/// Heartbeats one member may send within one millisecond. Kafka retries a failed join at once
/// (JOINING heartbeats skip the backoff), which with a transport of zero latency would never let
/// time advance; real networks and turmoil's never get near this.
const MAX_HEARTBEATS_PER_MS: u32 = 64;

impl<N: Net> Member<N> {
    pub(crate) fn new(params: MemberParams<N>) -> Self {
        let MemberParams {
            net,
            bootstrap,
            config,
            state_dir,
            shared,
            control,
            emitter,
            rng,
            member_id,
            instance_id,
            client_id,
        } = params;
        emitter.set_member_id(&member_id);
        let rng = Rc::new(RefCell::new(rng));
        let mut conn_config = crate::conn::ConnectionConfig::new(client_id);
        conn_config.request_timeout_ms = config.request_timeout_ms;
        conn_config.reconnect_backoff_ms = config.reconnect_backoff_ms;
        conn_config.reconnect_backoff_max_ms = config.reconnect_backoff_max_ms;
        conn_config.version_caps = config.version_caps.clone();
        let client = KafkaClient::new(net, conn_config, bootstrap, emitter.clone(), rng.clone());
        let now = emitter.now_ms();
        let retry = ExponentialBackoff::retry(config.retry_backoff_ms, config.retry_backoff_max_ms);
        let join = JoinInfo {
            process_id: state_dir.process_id(),
            topology: config.topology.clone(),
            rebalance_timeout_ms: config.max_poll_interval_ms,
            user_endpoint: config.application_server.clone(),
            rack_id: config.rack_id.clone(),
            client_tags: config.client_tags.clone(),
        };
        let (inbox, tx) = Inbox::new(control);
        Self {
            client,
            rng,
            join,
            state_dir,
            inbox,
            membership: Membership::new(&config.application_id, &member_id, instance_id.as_deref()),
            hb: HeartbeatRequestState::new(0, retry, now),
            coordinator: CoordinatorTracker::new(
                config.retry_backoff_ms,
                config.retry_backoff_max_ms,
            ),
            tx,
            children: Vec::new(),
            topic_ids: TopicIds::new(),
            metadata: RequestState::new(retry),
            metadata_wanted: true,
            active: BTreeMap::new(),
            standby: BTreeSet::new(),
            warmup: BTreeSet::new(),
            job: None,
            queued: VecDeque::new(),
            next_commit_ms: now + config.commit_interval_ms as i64,
            next_commit_id: 0,
            fetch: RequestState::new(retry),
            fetch_in_flight: false,
            stop_requested: None,
            shutdown_started: false,
            leave_in_flight: false,
            leave_deadline_ms: None,
            rejoin_after_leave: false,
            exit: false,
            last_epoch: 0,
            last_statuses: Vec::new(),
            missing_topics_since: None,
            shutdown_application_sent: false,
            hold_heartbeats_until_ms: 0,
            heartbeats_stalled: false,
            same_ms_sends: (0, 0),
            emitter,
            config,
            shared,
        }
    }

    /// Runs the member until it stopped (gracefully or after a fatal error).
    pub(crate) async fn run(mut self) {
        self.membership.subscribe();
        self.sync_events();
        event_loop::drive(&mut self).await;
        self.client.close_all("member stopped");
        self.emitter.emit(EventKind::Stopped {
            graceful: self.membership.state() != MemberState::Fatal,
        });
    }

    // ---------------------------------------------------------------------------------------
    // The poll.

    fn poll(&mut self, now: i64) {
        self.children.retain(|h| !h.is_finished());
        if self.shared.shutdown_application.get() && !self.shutdown_application_sent {
            self.shutdown_application_sent = true;
            self.membership.request_shutdown();
        }
        self.poll_coordinator(now);
        self.poll_metadata(now);
        self.poll_heartbeat(now);
        self.poll_missing_topics(now);
        if self.exit {
            return;
        }
        self.poll_jobs(now);
        self.poll_fetch(now);
        if self.exit {
            return;
        }
        // The leave of a stopping member completed (or timed out): done.
        if self.shutdown_started && !self.leave_in_flight && self.leave_pending_or_done(now) {
            self.exit = true;
        }
    }

    /// After shutdown started: true once nothing is left to wait for.
    fn leave_pending_or_done(&self, now: i64) -> bool {
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
        if self.metadata_wanted && self.metadata.can_send_request(now) {
            self.metadata_wanted = false;
            self.metadata.on_send_attempt(now);
            let client = self.client.clone();
            let topics = self.input_topics();
            self.spawn(
                async move { fetch_metadata(&client, Some(&topics)).await },
                Msg::Metadata,
            );
        }
    }

    fn input_topics(&self) -> Vec<String> {
        let mut topics: BTreeSet<String> = BTreeSet::new();
        for s in &self.config.topology.subtopologies {
            topics.extend(s.input_topics().map(str::to_string));
        }
        topics.into_iter().collect()
    }

    /// Kafka's `StreamsGroupHeartbeatRequestManager.poll`.
    fn poll_heartbeat(&mut self, now: i64) {
        if self.coordinator.node().is_none() || self.membership.should_skip_heartbeat() {
            let was_leaving = self.membership.state() == MemberState::Leaving;
            self.membership.on_heartbeat_request_skipped();
            self.sync_events();
            if was_leaving {
                self.on_leave_completed();
            }
            return;
        }
        if self.membership.state() == MemberState::Leaving
            && self.membership.should_skip_leave_heartbeat()
        {
            self.membership.on_heartbeat_request_skipped();
            self.sync_events();
            self.on_leave_completed();
            return;
        }
        if self.heartbeats_stalled
            || now < self.hold_heartbeats_until_ms
            || self.heartbeat_throttled(now)
        {
            return;
        }
        if self.should_heartbeat_before_interval_expires() || self.hb.can_send_request(now) {
            self.send_heartbeat(now);
        }
    }

    fn heartbeat_throttled(&self, now: i64) -> bool {
        self.same_ms_sends.0 == now && self.same_ms_sends.1 >= MAX_HEARTBEATS_PER_MS
    }

    fn should_heartbeat_before_interval_expires(&self) -> bool {
        let state = self.membership.state();
        (state == MemberState::Leaving && !self.membership.should_skip_leave_heartbeat())
            || (matches!(state, MemberState::Joining | MemberState::Acknowledging)
                && !self.hb.request_in_flight())
    }

    fn task_offset_snapshot(&self) -> (BTreeMap<TaskId, i64>, BTreeMap<TaskId, i64>) {
        let mut sums = self.state_dir.task_offset_sums();
        // Running active tasks are caught up by definition (Kafka leaves them out).
        for (task, t) in &self.active {
            if t.base.is_some() {
                sums.remove(task);
            }
        }
        (sums, BTreeMap::new())
    }

    fn send_heartbeat(&mut self, now: i64) {
        let Some(node) = self.coordinator.node().cloned() else {
            return;
        };
        let leave = self.membership.state() == MemberState::Leaving;
        let (offsets, end_offsets) = if self.membership.heartbeat_reads_task_offsets(now) {
            self.task_offset_snapshot()
        } else {
            (BTreeMap::new(), BTreeMap::new())
        };
        let request = self
            .membership
            .build_heartbeat(&self.join, offsets, end_offsets, now);
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
                    .send(&node.broker, Request::StreamsGroupHeartbeat(request))
                    .await
            },
            move |result| Msg::Heartbeat { result, leave },
        );
    }

    /// MISSING_SOURCE_TOPICS for longer than two heartbeat intervals fails the thread, as Kafka
    /// Streams' `handleMissingSourceTopicsWithTimeout` does.
    fn poll_missing_topics(&mut self, now: i64) {
        if let Some((since, detail)) = self.missing_topics_since.clone() {
            let timeout = 2 * i64::from(self.membership.heartbeat_interval_ms());
            if now - since >= timeout && !self.shutdown_started {
                self.missing_topics_since = None;
                self.fatal(
                    None,
                    format!("Missing source topics: {detail}. Timeout exceeded after {timeout}ms."),
                );
            }
        }
    }

    fn poll_jobs(&mut self, now: i64) {
        // Progress the current job as far as it goes now.
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

    /// Starts the next job if none runs: a reconciliation, a shutdown, or a periodic commit.
    fn maybe_start_job(&mut self, now: i64) {
        if self.exit || self.shutdown_started {
            return;
        }
        if let Some(op) = self.stop_requested {
            self.start_shutdown(op, now);
            return;
        }
        if let Some(plan) = self.membership.maybe_reconcile() {
            let until_ms = if plan.revoke.is_empty() {
                now
            } else {
                now + self.config.revocation_latency_ms as i64
            };
            self.job = Some(Job::Reconcile {
                plan: Box::new(plan),
                phase: ReconcilePhase::Revoking { until_ms },
            });
            return;
        }
        if now >= self.next_commit_ms {
            self.next_commit_ms = now + self.config.commit_interval_ms as i64;
            let tasks: BTreeSet<TaskId> = self.active.keys().cloned().collect();
            if let Some(op) = self.prepare_commit(&tasks, now) {
                self.job = Some(Job::Commit { op, shutdown: None });
            }
        }
    }

    /// Advances the current job; returns true if it finished (so the next may start).
    fn advance_job(&mut self, now: i64) -> bool {
        let Some(job) = self.job.take() else {
            return false;
        };
        match job {
            Job::Reconcile { plan, phase } => self.advance_reconcile(plan, phase, now),
            Job::Commit { mut op, shutdown } => match self.drive_commit(&mut op, now) {
                None => {
                    self.job = Some(Job::Commit { op, shutdown });
                    false
                }
                Some(outcome) => {
                    self.finish_commit(&op, &outcome, now);
                    if let Some(leave) = shutdown {
                        self.close_tasks_and_leave(leave, now);
                    } else {
                        self.after_commit_outcome(outcome);
                    }
                    true
                }
            },
            Job::Lose { until_ms, then } => {
                if now < until_ms {
                    self.job = Some(Job::Lose { until_ms, then });
                    return false;
                }
                self.drop_all_tasks();
                match then {
                    AfterLost::Rejoin => self.membership.on_all_tasks_lost(),
                    AfterLost::Fatal => {
                        self.membership.on_fatal_tasks_lost();
                        self.exit = true;
                    }
                    AfterLost::Migrated => {
                        if self.membership.leave_group(LeaveOperation::Default) {
                            self.rejoin_after_leave = true;
                            self.leave_deadline_ms =
                                Some(now + self.config.request_timeout_ms as i64);
                        } else {
                            self.membership.subscribe();
                        }
                    }
                }
                self.sync_events();
                true
            }
        }
    }

    fn advance_reconcile(
        &mut self,
        plan: Box<ReconcilePlan>,
        phase: ReconcilePhase,
        now: i64,
    ) -> bool {
        match phase {
            ReconcilePhase::Revoking { until_ms } => {
                if now < until_ms {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Revoking { until_ms },
                    });
                    return false;
                }
                // Kafka Streams commits the revoked tasks (and every other task that needs a
                // commit) only if a revoked task needs one.
                let revoked_need_commit = plan.revoke.iter().any(|t| self.commit_needed(t, now));
                let commit = if revoked_need_commit {
                    let tasks: BTreeSet<TaskId> = self.active.keys().cloned().collect();
                    self.prepare_commit(&tasks, now)
                } else {
                    None
                };
                let phase = match commit {
                    Some(op) => ReconcilePhase::Committing(op),
                    None => {
                        self.close_revoked(&plan, false);
                        if !self.membership.on_revocation_done() {
                            return true;
                        }
                        ReconcilePhase::Assigning {
                            until_ms: now + self.config.assignment_latency_ms as i64,
                        }
                    }
                };
                self.job = Some(Job::Reconcile { plan, phase });
                true
            }
            ReconcilePhase::Committing(mut op) => match self.drive_commit(&mut op, now) {
                None => {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Committing(op),
                    });
                    false
                }
                Some(outcome) => {
                    self.finish_commit(&op, &outcome, now);
                    match outcome {
                        CommitOutcome::Accepted | CommitOutcome::GaveUp(_) => {
                            self.close_revoked(&plan, false);
                            if self.membership.on_revocation_done() {
                                self.job = Some(Job::Reconcile {
                                    plan,
                                    phase: ReconcilePhase::Assigning {
                                        until_ms: now + self.config.assignment_latency_ms as i64,
                                    },
                                });
                            }
                        }
                        other => {
                            // The revocation callback failed: the revoked tasks are closed
                            // dirty, the reconciliation fails, and the thread handles the
                            // exception (task migrated, or fatal).
                            self.close_revoked(&plan, true);
                            self.membership.on_reconciliation_failed();
                            self.after_commit_outcome(other);
                        }
                    }
                    true
                }
            },
            ReconcilePhase::Assigning { until_ms } => {
                if now < until_ms {
                    self.job = Some(Job::Reconcile {
                        plan,
                        phase: ReconcilePhase::Assigning { until_ms },
                    });
                    return false;
                }
                self.apply_assignment(&plan, now);
                self.membership.on_assignment_done(&plan);
                self.sync_events();
                true
            }
        }
    }

    /// Closes the revoked active tasks (after their commit, or dirty if it failed).
    fn close_revoked(&mut self, plan: &ReconcilePlan, dirty: bool) {
        let mut closed = Vec::new();
        for task in &plan.revoke {
            if self.active.remove(task).is_some() {
                closed.push(task.clone());
            }
        }
        if closed.is_empty() {
            return;
        }
        let kind = if dirty {
            EventKind::TasksLost {
                active: closed,
                standby: Vec::new(),
                warmup: Vec::new(),
            }
        } else {
            EventKind::TasksRevoked {
                active: closed,
                standby: Vec::new(),
                warmup: Vec::new(),
            }
        };
        self.emitter.emit(kind);
        self.emit_owned();
    }

    /// The assignment callback: start the new tasks, drop replicas no longer assigned.
    fn apply_assignment(&mut self, plan: &ReconcilePlan, now: i64) {
        let target = &plan.assign;
        let mut added_active = Vec::new();
        for task in &target.active {
            if !self.active.contains_key(task) {
                let partitions = self.config.topology.task_partitions(task);
                let stateful = self
                    .config
                    .topology
                    .subtopology(&task.subtopology)
                    .is_some_and(|s| s.is_stateful());
                self.active.insert(
                    task.clone(),
                    ActiveTask {
                        partitions,
                        stateful,
                        base: None,
                        started_ms: now,
                        committed: BTreeMap::new(),
                    },
                );
                added_active.push(task.clone());
            }
        }
        let removed_standby: Vec<TaskId> =
            self.standby.difference(&target.standby).cloned().collect();
        let removed_warmup: Vec<TaskId> = self.warmup.difference(&target.warmup).cloned().collect();
        let added_standby: Vec<TaskId> =
            target.standby.difference(&self.standby).cloned().collect();
        let added_warmup: Vec<TaskId> = target.warmup.difference(&self.warmup).cloned().collect();
        self.standby = target.standby.clone();
        self.warmup = target.warmup.clone();
        let changed = !removed_standby.is_empty()
            || !removed_warmup.is_empty()
            || !added_active.is_empty()
            || !added_standby.is_empty()
            || !added_warmup.is_empty();
        if !removed_standby.is_empty() || !removed_warmup.is_empty() {
            self.emitter.emit(EventKind::TasksRevoked {
                active: Vec::new(),
                standby: removed_standby,
                warmup: removed_warmup,
            });
        }
        if !added_active.is_empty() || !added_standby.is_empty() || !added_warmup.is_empty() {
            self.emitter.emit(EventKind::TasksAcquired {
                active: added_active,
                standby: added_standby,
                warmup: added_warmup,
            });
        }
        if changed {
            self.emit_owned();
        }
    }

    fn drop_all_tasks(&mut self) {
        if self.active.is_empty() && self.standby.is_empty() && self.warmup.is_empty() {
            return;
        }
        let active: Vec<TaskId> = std::mem::take(&mut self.active).into_keys().collect();
        let standby: Vec<TaskId> = std::mem::take(&mut self.standby).into_iter().collect();
        let warmup: Vec<TaskId> = std::mem::take(&mut self.warmup).into_iter().collect();
        self.emitter.emit(EventKind::TasksLost {
            active,
            standby,
            warmup,
        });
        self.emit_owned();
    }

    fn emit_owned(&self) {
        self.emitter.emit(EventKind::OwnedTasks {
            epoch: self.membership.member_epoch(),
            active: self.active.keys().cloned().collect(),
            standby: self.standby.iter().cloned().collect(),
            warmup: self.warmup.iter().cloned().collect(),
        });
    }

    // ---------------------------------------------------------------------------------------
    // Commits.

    fn commit_needed(&self, task: &TaskId, now: i64) -> bool {
        let Some(t) = self.active.get(task) else {
            return false;
        };
        let Some(pos) = t.positions(now, self.config.records_per_second) else {
            return false;
        };
        pos.iter().any(|(tp, o)| t.committed.get(tp) != Some(o))
    }

    /// A commit of the positions of those of `tasks` that processed something since their last
    /// commit, or `None` if none did.
    fn prepare_commit(&mut self, tasks: &BTreeSet<TaskId>, now: i64) -> Option<CommitOp> {
        let mut offsets = Vec::new();
        let mut committed_tasks = BTreeSet::new();
        for task in tasks {
            if !self.commit_needed(task, now) {
                continue;
            }
            let t = &self.active[task];
            if let Some(pos) = t.positions(now, self.config.records_per_second) {
                offsets.extend(pos);
                committed_tasks.insert(task.clone());
            }
        }
        if offsets.is_empty() {
            return None;
        }
        self.next_commit_id += 1;
        Some(CommitOp {
            id: self.next_commit_id,
            offsets,
            tasks: committed_tasks,
            deadline_ms: now + self.config.default_api_timeout_ms as i64,
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
                if now >= op.deadline_ms {
                    return Some(CommitOutcome::GaveUp(
                        "commit not completed within default.api.timeout.ms".into(),
                    ));
                }
                if now < *not_before_ms {
                    return None;
                }
                let node = self.coordinator.node().cloned()?;
                // The consumer knows an epoch only once it is positive; otherwise it commits
                // with the default generation -1 (`CommitRequestManager.MemberInfo`).
                op.epoch = match self.membership.member_epoch() {
                    e if e > 0 => e,
                    _ => -1,
                };
                let committer = Committer {
                    group_id: self.membership.group_id().to_string(),
                    member_id: self.membership.member_id().to_string(),
                    generation_or_epoch: op.epoch,
                    instance_id: self.membership.instance_id().map(str::to_string),
                };
                let cap =
                    version_cap_for(op.offsets.iter().map(|(tp, _)| &tp.topic), &self.topic_ids);
                if cap < 10 {
                    self.metadata_wanted = true;
                }
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

    fn on_commit_response(&mut self, id: u64, result: Result<Response, RequestFailure>, now: i64) {
        let names = self.names_by_id();
        let retry_backoff = |op: &mut CommitOp, rng: &mut ChaCha8Rng| {
            op.retry.on_failed_attempt(now, rng);
            op.state = CommitState::Waiting {
                not_before_ms: now + op.retry.remaining_backoff_ms(now),
            };
        };
        let mut mark_unknown = false;
        {
            let rng_cell = self.rng.clone();
            let Some(op) = self.current_commit_mut(id) else {
                return;
            };
            let mut rng = rng_cell.borrow_mut();
            match result {
                Ok(Response::OffsetCommit(r)) => match commit_result(&r, &names) {
                    Ok(()) => op.state = CommitState::Done(CommitOutcome::Accepted),
                    Err((code, partitions)) => {
                        let _ = partitions;
                        match code {
                            ErrorCode::CoordinatorNotAvailable
                            | ErrorCode::NotCoordinator
                            | ErrorCode::RequestTimedOut => {
                                mark_unknown = true;
                                retry_backoff(op, &mut rng);
                            }
                            ErrorCode::CoordinatorLoadInProgress
                            | ErrorCode::UnknownTopicOrPartition
                            | ErrorCode::UnknownTopicId => retry_backoff(op, &mut rng),
                            ErrorCode::UnknownMemberId | ErrorCode::StaleMemberEpoch => {
                                op.state = CommitState::Done(CommitOutcome::Fenced(code));
                            }
                            other => op.state = CommitState::Done(CommitOutcome::Failed(other)),
                        }
                    }
                },
                Ok(_) => {
                    op.state = CommitState::Done(CommitOutcome::GaveUp("wrong response".into()))
                }
                Err(failure) => {
                    if matches!(failure, RequestFailure::Disconnected(_)) {
                        mark_unknown = true;
                    }
                    if failure == RequestFailure::UnsupportedVersion {
                        op.state =
                            CommitState::Done(CommitOutcome::Failed(ErrorCode::UnsupportedVersion));
                    } else {
                        retry_backoff(op, &mut rng);
                    }
                }
            }
        }
        if mark_unknown {
            self.mark_coordinator_unknown("OffsetCommit failed");
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

    /// Reports a finished commit and records what it committed.
    fn finish_commit(&mut self, op: &CommitOp, outcome: &CommitOutcome, _now: i64) {
        match outcome {
            CommitOutcome::Accepted => {
                for (tp, offset) in &op.offsets {
                    for task in &op.tasks {
                        if let Some(t) = self.active.get_mut(task)
                            && t.partitions.contains(tp)
                        {
                            t.committed.insert(tp.clone(), *offset);
                        }
                    }
                }
                for task in &op.tasks {
                    if let Some(t) = self.active.get(task)
                        && t.stateful
                    {
                        let sum: i64 = t.committed.values().sum();
                        self.state_dir.checkpoint(task, sum);
                    }
                }
                self.emitter.emit(EventKind::CommitAccepted {
                    epoch: op.epoch,
                    offsets: op.offsets.clone(),
                });
            }
            CommitOutcome::Fenced(code) | CommitOutcome::Failed(code) => {
                self.emitter.emit(EventKind::CommitRejected {
                    epoch: op.epoch,
                    error: *code,
                    partitions: op.offsets.iter().map(|(tp, _)| tp.clone()).collect(),
                });
            }
            CommitOutcome::GaveUp(reason) => {
                self.emitter.emit(EventKind::CommitFailed {
                    epoch: op.epoch,
                    reason: reason.clone(),
                });
            }
        }
    }

    /// What the stream thread does with a failed commit: a fenced one is a task migration (drop
    /// every task, leave, rejoin), another error kills the thread.
    fn after_commit_outcome(&mut self, outcome: CommitOutcome) {
        match outcome {
            CommitOutcome::Fenced(_) => {
                let until_ms = self.now() + self.config.lost_latency_ms as i64;
                self.queued.push_back(Job::Lose {
                    until_ms,
                    then: AfterLost::Migrated,
                });
            }
            CommitOutcome::Failed(code) => {
                self.fatal(
                    Some(code),
                    format!("Unexpected error in commit: {}", code.default_message()),
                );
            }
            CommitOutcome::Accepted | CommitOutcome::GaveUp(_) => {}
        }
    }

    // ---------------------------------------------------------------------------------------
    // Committed offsets of new tasks.

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
        let tasks: BTreeSet<TaskId> = self
            .active
            .iter()
            .filter(|(_, t)| t.base.is_none())
            .map(|(k, _)| k.clone())
            .collect();
        if tasks.is_empty() {
            return;
        }
        let partitions: Vec<TopicPartition> = tasks
            .iter()
            .flat_map(|t| self.active[t].partitions.clone())
            .collect();
        let cap = version_cap_for(partitions.iter().map(|tp| &tp.topic), &self.topic_ids);
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
                            &partitions,
                            &ids,
                        ))
                    })
                    .await
            },
            move |result| Msg::Fetch { tasks, result },
        );
    }

    fn on_fetch_response(
        &mut self,
        tasks: BTreeSet<TaskId>,
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
                for task in &tasks {
                    let Some(t) = self.active.get_mut(task) else {
                        continue;
                    };
                    if t.base.is_some() {
                        continue;
                    }
                    let base: BTreeMap<TopicPartition, i64> = t
                        .partitions
                        .iter()
                        .map(|tp| (tp.clone(), offsets.get(tp).copied().unwrap_or(-1).max(0)))
                        .collect();
                    for (tp, o) in &base {
                        reported.push((tp.clone(), *o));
                        t.committed.insert(tp.clone(), *o);
                    }
                    t.base = Some(base);
                    t.started_ms = now;
                }
                if !reported.is_empty() {
                    self.emitter
                        .emit(EventKind::OffsetsFetched { offsets: reported });
                }
            }
            Err(_) => self.fetch.on_failed_attempt(now, &mut *rng),
        }
    }

    fn names_by_id(&self) -> BTreeMap<Uuid, String> {
        self.topic_ids
            .iter()
            .map(|(n, id)| (*id, n.clone()))
            .collect()
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
                        // Kafka propagates a non-retriable FindCoordinator error to the
                        // application, which fails the thread.
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
            Msg::Fetch { tasks, result } => self.on_fetch_response(tasks, result, now),
            Msg::Metadata(result) => {
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
            Ok(Response::StreamsGroupHeartbeat(r)) => match ErrorCode::from_code(r.error_code) {
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
            self.on_leave_completed();
        }
    }

    fn on_heartbeat_success(&mut self, r: StreamsGroupHeartbeatResponse, now: i64) {
        let was_joining = self.membership.state() == MemberState::Joining;
        self.hb
            .update_interval_ms(i64::from(r.heartbeat_interval_ms), now);
        {
            let mut rng = self.rng.borrow_mut();
            self.hb.on_successful_attempt(now, &mut *rng);
        }
        self.membership
            .set_endpoint_information_epoch(r.endpoint_information_epoch);
        if let Some(eps) = &r.partitions_by_user_endpoint {
            let endpoints = endpoints_of(eps);
            *self.shared.endpoints.borrow_mut() =
                Some((r.endpoint_information_epoch, endpoints.clone()));
            self.emitter.emit(EventKind::EndpointsUpdated {
                epoch: r.endpoint_information_epoch,
                endpoints,
            });
        }
        if let Some(statuses) = &r.status {
            let list: Vec<(i8, String)> = statuses
                .iter()
                .map(|s| (s.status_code, s.status_detail.to_string()))
                .collect();
            if list != self.last_statuses {
                self.last_statuses = list.clone();
                self.emitter.emit(EventKind::Statuses { statuses: list });
            }
        }
        if let (Some(active), Some(standby), Some(warmup)) =
            (&r.active_tasks, &r.standby_tasks, &r.warmup_tasks)
        {
            self.emitter.emit(EventKind::AssignmentReceived {
                epoch: r.member_epoch,
                active: tasks_of(active).into_iter().collect(),
                standby: tasks_of(standby).into_iter().collect(),
                warmup: tasks_of(warmup).into_iter().collect(),
            });
        }
        let result = self
            .membership
            .on_heartbeat_success(&r, &self.config.topology);
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
        if let Err(reason) = result {
            self.fatal_after_transition(None, reason.0);
            return;
        }
        self.act_on_statuses(r.status.as_deref(), now);
    }

    /// SHUTDOWN_APPLICATION stops the process; INCORRECTLY_PARTITIONED_TOPICS fails the thread;
    /// MISSING_SOURCE_TOPICS starts the timeout (Kafka Streams' `handleStreamsRebalanceData`).
    fn act_on_statuses(&mut self, statuses: Option<&[resp::Status]>, now: i64) {
        let Some(statuses) = statuses else {
            return;
        };
        if self.shutdown_started || self.exit {
            return;
        }
        let mut missing = None;
        for s in statuses {
            match StreamsStatus::from_code(s.status_code) {
                Some(StreamsStatus::ShutdownApplication) => {
                    self.emitter.emit(EventKind::Fatal {
                        error: None,
                        message: format!(
                            "The group requested the shutdown of the application: {}",
                            s.status_detail
                        ),
                    });
                    self.shared.stop_all(LeaveOperation::Default);
                    return;
                }
                Some(StreamsStatus::MissingSourceTopics) => {
                    missing = Some(s.status_detail.to_string())
                }
                Some(StreamsStatus::IncorrectlyPartitionedTopics) => {
                    self.fatal(None, s.status_detail.to_string());
                    return;
                }
                _ => {}
            }
        }
        match missing {
            Some(detail) => {
                if self.missing_topics_since.is_none() {
                    self.missing_topics_since = Some((now, detail));
                }
            }
            None => self.missing_topics_since = None,
        }
    }

    /// Kafka 4.4.0's `onErrorResponse`.
    fn on_heartbeat_error(&mut self, error: ErrorCode, message: Option<String>, now: i64) {
        self.membership.reset_sent_fields();
        let mut rng = self.rng.borrow_mut();
        self.hb.on_failed_attempt(now, &mut *rng);
        match heartbeat_error_action(error, self.config.unreleased_instance_id) {
            HeartbeatErrorAction::Rediscover => {
                self.hb.reset(&mut *rng);
                drop(rng);
                self.mark_coordinator_unknown(&format!("heartbeat failed with {}", error.name()));
            }
            HeartbeatErrorAction::Retry => {
                // A joining member would heartbeat again at once (Kafka skips the backoff while
                // JOINING); UNRELEASED_INSTANCE_ID under the retry policy waits for it.
                if error == ErrorCode::UnreleasedInstanceId {
                    self.hold_heartbeats_until_ms =
                        now + self.hb.request().remaining_backoff_ms(now);
                }
            }
            HeartbeatErrorAction::Report => {}
            HeartbeatErrorAction::Fenced => {
                self.hb.reset(&mut *rng);
                drop(rng);
                let epoch = self.membership.member_epoch();
                let leaving = matches!(
                    self.membership.state(),
                    MemberState::PrepareLeaving | MemberState::Leaving
                );
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
                if leaving {
                    // Fenced before its leave went out: Kafka's `onFenced` goes UNSUBSCRIBED and
                    // completes the leave in progress (`maybeCompleteLeaveInProgress`), so an
                    // `unsubscribe()` waiting on it returns (and a migrated thread subscribes again).
                    self.on_leave_completed();
                }
            }
            HeartbeatErrorAction::Fatal => {
                drop(rng);
                let message = message.unwrap_or_else(|| error.default_message().to_string());
                self.fatal(Some(error), message);
            }
        }
    }

    /// No response (`onFailure`): retriable failures back off (and a disconnect forgets the
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
                "The cluster does not support the STREAMS group protocol or does not support the \
                 versions of the STREAMS group protocol used by this client (used versions: 0 to 1)."
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

    fn on_leave_completed(&mut self) {
        if self.rejoin_after_leave && !self.shutdown_started {
            self.rejoin_after_leave = false;
            self.leave_deadline_ms = None;
            self.membership.subscribe();
            self.sync_events();
        }
    }

    // ---------------------------------------------------------------------------------------
    // Fatal errors and shutdown.

    fn fatal(&mut self, error: Option<ErrorCode>, message: String) {
        if self.membership.state() == MemberState::Fatal {
            return;
        }
        self.membership.transition_to_fatal();
        self.fatal_after_transition(error, message);
    }

    /// The member is FATAL: report, drop its tasks, stop (and by default the whole process).
    fn fatal_after_transition(&mut self, error: Option<ErrorCode>, message: String) {
        self.sync_events();
        self.emitter.emit(EventKind::Fatal { error, message });
        let until_ms = self.now() + self.config.lost_latency_ms as i64;
        self.queued.clear();
        self.job = None;
        self.queued.push_back(Job::Lose {
            until_ms,
            then: AfterLost::Fatal,
        });
        if self.config.on_fatal == FatalErrorPolicy::ShutdownClient {
            self.shared.stop_all(LeaveOperation::Default);
        }
    }

    /// Kafka Streams' clean shutdown: commit every task, close them, then the consumer leaves.
    fn start_shutdown(&mut self, op: LeaveOperation, now: i64) {
        self.shutdown_started = true;
        let tasks: BTreeSet<TaskId> = self.active.keys().cloned().collect();
        match self.prepare_commit(&tasks, now) {
            Some(commit) => {
                self.job = Some(Job::Commit {
                    op: commit,
                    shutdown: Some(op),
                })
            }
            None => self.close_tasks_and_leave(op, now),
        }
    }

    fn close_tasks_and_leave(&mut self, op: LeaveOperation, now: i64) {
        self.shutdown_started = true;
        if !self.active.is_empty() || !self.standby.is_empty() || !self.warmup.is_empty() {
            let active: Vec<TaskId> = std::mem::take(&mut self.active).into_keys().collect();
            let standby: Vec<TaskId> = std::mem::take(&mut self.standby).into_iter().collect();
            let warmup: Vec<TaskId> = std::mem::take(&mut self.warmup).into_iter().collect();
            self.emitter.emit(EventKind::TasksRevoked {
                active,
                standby,
                warmup,
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
        // Boxed: a request's future is several kilobytes (a heartbeat's about 7 KB), and tokio
        // moves a task's future by value several times while spawning, polling and completing
        // it; those copies were about a fifth of a simulated run's instructions (callgrind).
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
        if self.metadata_wanted {
            at(now + self.metadata.remaining_backoff_ms(now));
        }
        if self.coordinator.node().is_some()
            && !self.membership.should_skip_heartbeat()
            && !self.heartbeats_stalled
        {
            if now < self.hold_heartbeats_until_ms {
                at(self.hold_heartbeats_until_ms);
            } else if self.heartbeat_throttled(now) {
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
                || (self.stop_requested.is_some() && !self.shutdown_started))
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
                if !self.active.is_empty() {
                    at(self.next_commit_ms);
                }
            }
        }
        // A fetch goes out only with a coordinator and a positive epoch (see `poll_fetch`).
        if !self.fetch_in_flight
            && coordinator_known
            && self.membership.member_epoch() > 0
            && self.active.values().any(|t| t.base.is_none())
        {
            at(now + self.fetch.remaining_backoff_ms(now));
        }
        if let Some(d) = self.leave_deadline_ms {
            at(d);
        }
        if let Some((since, _)) = &self.missing_topics_since {
            at(since + 2 * i64::from(self.membership.heartbeat_interval_ms()));
        }
        wake.max(now)
    }
}

/// When a waiting commit may move: its retry time (only with a known coordinator to send it to;
/// otherwise finding the coordinator wakes the member) or its deadline.
fn commit_wake(op: &CommitOp, coordinator_known: bool, at: &mut impl FnMut(i64)) {
    if let CommitState::Waiting { not_before_ms } = op.state {
        if coordinator_known {
            at(not_before_ms);
        }
        at(op.deadline_ms);
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
            // A second stop keeps the first one's leave operation.
            Control::Stop(op) => {
                self.stop_requested.get_or_insert(op);
            }
        }
    }

    /// The process handle is gone: stop as on close.
    fn on_control_closed(&mut self) {
        self.stop_requested.get_or_insert(LeaveOperation::Default);
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

fn endpoints_of(list: &[resp::EndpointToPartitions]) -> Vec<EndpointPartitions> {
    let parts = |tps: &[resp::TopicPartition]| -> Vec<TopicPartition> {
        let mut v: Vec<TopicPartition> = tps
            .iter()
            .flat_map(|t| {
                let topic: &TopicName = &t.topic;
                t.partitions
                    .iter()
                    .map(move |p| TopicPartition::new(topic.as_str(), *p))
            })
            .collect();
        v.sort();
        v
    };
    list.iter()
        .map(|e| EndpointPartitions {
            host: e.user_endpoint.host.to_string(),
            port: e.user_endpoint.port,
            active: parts(&e.active_partitions),
            standby: parts(&e.standby_partitions),
        })
        .collect()
}

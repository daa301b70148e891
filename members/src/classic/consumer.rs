//! A classic consumer (Kafka's `ConsumerCoordinator`/`AbstractCoordinator` with the eager
//! protocol): FindCoordinator, the JoinGroup/SyncGroup rebalance with a leader-side assignor,
//! heartbeats, auto-commit with the generation, and close (LeaveGroup only for dynamic members).
//!
//! Like the streams member it is one single-threaded task: `poll` does what is due, then the task
//! sleeps until a deadline, a response or a control signal (`select!` biased).

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::future::Future;
use std::rc::Rc;

use bytes::Bytes;
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::leave_group_request::MemberIdentity;
use protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use protocol::messages::{
    HeartbeatRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest, StrBytes,
    SyncGroupRequest,
};
use protocol::net::Net;
use protocol::{Api, ErrorCode, Request, Response};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

use super::assignor::{Assignor, MemberSubscription};
use super::config::ConsumerConfig;
use super::protocol::{
    Subscription, decode_assignment, decode_subscription, encode_assignment, encode_subscription,
};
use crate::backoff::ExponentialBackoff;
use crate::conn::{ConnectionConfig, KafkaClient};
use crate::coordinator::{CoordinatorNode, CoordinatorTracker, FindFailure, find_coordinator};
use crate::event_loop::{self, Inbox, Model};
use crate::observer::{
    ClientKind, ClientRef, Emitter, EventKind, Observer, RequestFailure, TopicPartition,
};
use crate::offsets::{
    Committer, MetadataSnapshot, TopicIds, build_commit, build_fetch, commit_result,
    fetch_metadata, fetch_result,
};
use crate::request_state::RequestState;

/// `AbstractCoordinator.MemberState`, plus FATAL.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ConsumerState {
    Unjoined,
    PreparingRebalance,
    CompletingRebalance,
    Stable,
    Fatal,
}

impl ConsumerState {
    pub fn name(self) -> &'static str {
        match self {
            ConsumerState::Unjoined => "UNJOINED",
            ConsumerState::PreparingRebalance => "PREPARING_REBALANCE",
            ConsumerState::CompletingRebalance => "COMPLETING_REBALANCE",
            ConsumerState::Stable => "STABLE",
            ConsumerState::Fatal => "FATAL",
        }
    }
}

/// Kafka's "no generation".
const NO_GENERATION: i32 = -1;
/// `JoinGroupRequest.JOIN_GROUP_TIMEOUT_LAPSE`.
const JOIN_GROUP_TIMEOUT_LAPSE_MS: u64 = 5_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Control {
    Close,
    /// Stop (true) or resume (false) heartbeating while polling and committing go on.
    StallHeartbeats(bool),
    /// Hold (true) or release (false) the leader's assignment: a stuck assignor.
    StallAssignment(bool),
}

enum Msg {
    Coordinator(Result<CoordinatorNode, FindFailure>),
    Join {
        result: Result<Response, RequestFailure>,
    },
    Metadata {
        result: Result<MetadataSnapshot, RequestFailure>,
    },
    Sync {
        result: Result<Response, RequestFailure>,
    },
    Heartbeat {
        generation: i32,
        member_id: String,
        result: Result<Response, RequestFailure>,
    },
    Commit {
        id: u64,
        result: Result<Response, RequestFailure>,
    },
    Fetch {
        result: Result<Response, RequestFailure>,
    },
    Leave,
}

/// Where the member is in a rebalance round.
#[derive(Debug)]
enum JoinPhase {
    Idle,
    JoinInFlight,
    /// The leader fetches metadata for the group's topics before assigning.
    AwaitingMetadata(Box<JoinGroupResponse>),
    /// The leader's assignor has not returned ([`Consumer::stall_assignment`]): the SyncGroup
    /// with these assignments waits for it while the heartbeat thread goes on.
    AssignmentHeld(Vec<SyncGroupRequestAssignment>),
    SyncInFlight,
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
enum CommitState {
    Waiting { not_before_ms: i64 },
    InFlight,
    Done(Result<(), ErrorCode>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum CommitPurpose {
    /// Auto-commit on the timer: one attempt.
    Auto,
    /// Before a rebalance (`onJoinPrepare`): retried until the rebalance timeout.
    JoinPrepare,
    /// On close: retried until `default.api.timeout.ms`.
    Close,
}

#[derive(Debug, Clone)]
struct CommitOp {
    id: u64,
    offsets: Vec<(TopicPartition, i64)>,
    generation: i32,
    deadline_ms: i64,
    retry: RequestState,
    state: CommitState,
    purpose: CommitPurpose,
}

/// Work the application thread does, one at a time.
#[derive(Debug, Clone)]
enum Job {
    Commit(CommitOp),
    /// `onPartitionsRevoked` / `onPartitionsLost` before a join.
    Revoke {
        until_ms: i64,
        lost: bool,
    },
    /// `onPartitionsAssigned` after a sync.
    Assign {
        until_ms: i64,
        partitions: Vec<TopicPartition>,
    },
}

struct Member<N: Net> {
    config: Rc<ConsumerConfig>,
    client: Rc<KafkaClient<N>>,
    emitter: Emitter,
    rng: Rc<RefCell<ChaCha8Rng>>,
    inbox: Inbox<Control, Msg>,
    tx: mpsc::UnboundedSender<Msg>,
    children: Vec<JoinHandle<()>>,
    coordinator: CoordinatorTracker,
    /// One signal per coordinator request queued or in flight, fired in order when the coordinator
    /// is dropped other than by a disconnect: the request then fails as disconnected
    /// (`disconnectAsync`). Not a `watch` channel: tokio wakes its waiters in a random order.
    coordinator_requests: Vec<oneshot::Sender<()>>,
    state: ConsumerState,
    member_id: String,
    generation: i32,
    protocol_name: Option<String>,
    rejoin_needed: bool,
    /// Why the member rejoins (sent as the JoinGroup reason, as Kafka's `rejoinReason`).
    rejoin_reason: String,
    needs_join_prepare: bool,
    join: JoinPhase,
    join_retry: RequestState,
    // Heartbeat (Kafka's `Heartbeat`).
    heartbeat_enabled: bool,
    heartbeat_due_ms: i64,
    heartbeat_attempts: u32,
    heartbeat_backoff: ExponentialBackoff,
    session_deadline_ms: i64,
    heartbeat_in_flight: bool,
    /// Heartbeats are stalled (`Consumer::stall_heartbeats`).
    heartbeats_stalled: bool,
    /// The leader's assignor is stuck (`Consumer::stall_assignment`).
    assignment_stalled: bool,
    owned: BTreeMap<TopicPartition, Owned>,
    topic_ids: TopicIds,
    job: Option<Job>,
    next_auto_commit_ms: i64,
    next_commit_id: u64,
    fetch_in_flight: bool,
    fetch: RequestState,
    closing: bool,
    close_started: bool,
    leave_in_flight: bool,
    exit: bool,
}

/// A running classic consumer. Runs as a local task (`spawn_local`): start it inside a
/// `LocalSet`.
pub struct Consumer {
    name: String,
    control: mpsc::UnboundedSender<Control>,
    emitter: Emitter,
    handle: Option<JoinHandle<()>>,
}

impl Consumer {
    /// Starts a consumer that finds its coordinator through `bootstrap`, joins
    /// `config.group_id` and consumes its assigned partitions until closed. Its events report
    /// as client `name`; backoff jitter comes from `rng`.
    pub fn start<N: Net>(
        net: N,
        bootstrap: Vec<String>,
        config: ConsumerConfig,
        name: &str,
        rng: &mut impl RngCore,
        observer: Rc<dyn Observer>,
    ) -> Self {
        let clock_net = net.clone();
        let emitter = Emitter::new(
            observer,
            Rc::new(move || clock_net.now_ms()),
            ClientRef {
                kind: ClientKind::Consumer,
                name: name.to_string(),
                group_id: config.group_id.clone(),
                instance_id: config.group_instance_id.clone(),
                process_id: String::new(),
            },
        );
        let (control, rx) = mpsc::unbounded_channel();
        let member = Member::new(
            net,
            bootstrap,
            config,
            emitter.clone(),
            ChaCha8Rng::from_rng(rng),
            rx,
        );
        let handle = tokio::task::spawn_local(member.run());
        Self {
            name: name.to_string(),
            control,
            emitter,
            handle: Some(handle),
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the consumer stopped (closed, or failed with a fatal error).
    pub fn is_finished(&self) -> bool {
        self.handle.as_ref().is_none_or(|h| h.is_finished())
    }

    /// `KafkaConsumer.close()`: commit, revoke the partitions, send LeaveGroup if the member is
    /// dynamic (a static member sends nothing and lets its session expire), disconnect.
    pub async fn close(mut self) {
        let _ = self.control.send(Control::Close);
        if let Some(h) = self.handle.take() {
            let _ = h.await;
        }
    }

    /// Stalls (true) or resumes (false) the consumer's heartbeats while it keeps consuming and
    /// committing with its generation, as when the heartbeat thread is stuck.
    pub fn stall_heartbeats(&self, stalled: bool) {
        let _ = self.control.send(Control::StallHeartbeats(stalled));
    }

    /// Stalls (true) or releases (false) the consumer's assignor, as a slow or stuck partition
    /// assignor on the poll thread: a leader elected meanwhile computes its assignment but sends
    /// no SyncGroup until the stall ends, while the heartbeat thread keeps its session alive (the
    /// coordinator's pending-sync timeout, the rebalance timeout, is what removes it).
    pub fn stall_assignment(&self, stalled: bool) {
        let _ = self.control.send(Control::StallAssignment(stalled));
    }

    /// Waits until the consumer stopped on its own (fatal error).
    pub async fn wait(mut self) {
        if let Some(h) = self.handle.take() {
            let _ = h.await;
        }
    }

    /// The process dies: no commit, no LeaveGroup, connections drop.
    pub fn kill(mut self) {
        if let Some(h) = self.handle.take()
            && !h.is_finished()
        {
            h.abort();
            self.emitter.emit(EventKind::Stopped { graceful: false });
        }
    }
}

impl Drop for Consumer {
    fn drop(&mut self) {
        if let Some(h) = self.handle.take() {
            h.abort();
        }
    }
}

fn s(text: &str) -> StrBytes {
    StrBytes::from_string(text.to_string())
}

impl<N: Net> Member<N> {
    fn new(
        net: N,
        bootstrap: Vec<String>,
        config: ConsumerConfig,
        emitter: Emitter,
        rng: ChaCha8Rng,
        control: mpsc::UnboundedReceiver<Control>,
    ) -> Self {
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
        Self {
            client,
            emitter,
            rng,
            inbox,
            tx,
            children: Vec::new(),
            coordinator: CoordinatorTracker::new(
                config.retry_backoff_ms,
                config.retry_backoff_max_ms,
            ),
            coordinator_requests: Vec::new(),
            state: ConsumerState::Unjoined,
            member_id: String::new(),
            generation: NO_GENERATION,
            protocol_name: None,
            rejoin_needed: true,
            rejoin_reason: String::new(),
            needs_join_prepare: true,
            join: JoinPhase::Idle,
            // `joinGroupIfNeeded` sleeps `retry.backoff.ms` between failed rounds (no growth,
            // no jitter).
            join_retry: RequestState::new(ExponentialBackoff::new(
                config.retry_backoff_ms,
                1,
                config.retry_backoff_ms,
                0.0,
            )),
            heartbeat_enabled: false,
            heartbeat_due_ms: now,
            heartbeat_attempts: 0,
            heartbeat_backoff: retry,
            session_deadline_ms: now + i64::from(config.session_timeout_ms),
            heartbeat_in_flight: false,
            heartbeats_stalled: false,
            assignment_stalled: false,
            owned: BTreeMap::new(),
            topic_ids: TopicIds::new(),
            job: None,
            next_auto_commit_ms: now + config.auto_commit_interval_ms as i64,
            next_commit_id: 0,
            fetch_in_flight: false,
            fetch: RequestState::new(retry),
            closing: false,
            close_started: false,
            leave_in_flight: false,
            exit: false,
            config: Rc::new(config),
        }
    }

    async fn run(mut self) {
        event_loop::drive(&mut self).await;
        self.client.close_all("consumer closed");
        self.emitter.emit(EventKind::Stopped {
            graceful: self.state != ConsumerState::Fatal,
        });
    }

    fn set_state(&mut self, next: ConsumerState) {
        if next != self.state {
            self.emitter.emit(EventKind::StateChanged {
                from: self.state.name(),
                to: next.name(),
            });
            self.state = next;
        }
    }

    fn set_generation(&mut self, generation: i32, member_id: &str) {
        if generation != self.generation {
            self.emitter.emit(EventKind::EpochChanged {
                from: self.generation,
                to: generation,
            });
        }
        self.generation = generation;
        self.member_id = member_id.to_string();
        self.emitter.set_member_id(member_id);
    }

    // ---------------------------------------------------------------------------------------

    fn poll(&mut self, now: i64) {
        self.children.retain(|h| !h.is_finished());
        if self.state == ConsumerState::Fatal {
            if self.job.is_none() {
                self.exit = true;
            }
            return;
        }
        if self.coordinator.should_send(now) {
            self.coordinator.on_send(now);
            let client = self.client.clone();
            let group = self.config.group_id.clone();
            self.spawn(
                async move { find_coordinator(&client, &group).await },
                Msg::Coordinator,
            );
        }
        self.poll_heartbeat(now);
        self.poll_job(now);
        if self.closing {
            self.poll_close(now);
            return;
        }
        self.poll_join(now);
        self.poll_auto_commit(now);
        self.poll_fetch(now);
    }

    fn poll_heartbeat(&mut self, now: i64) {
        let joined = matches!(
            self.state,
            ConsumerState::CompletingRebalance | ConsumerState::Stable
        );
        if !self.heartbeat_enabled || !joined || self.coordinator.node().is_none() {
            return;
        }
        if self.heartbeats_stalled {
            // A stuck heartbeat thread: nothing is sent and nothing is noticed until it resumes.
            if now >= self.heartbeat_due_ms {
                self.heartbeat_due_ms = now + self.config.heartbeat_interval_ms as i64;
            }
            return;
        }
        if now >= self.session_deadline_ms {
            // No successful heartbeat for a session timeout: the coordinator may be gone.
            self.session_deadline_ms = now + i64::from(self.config.session_timeout_ms);
            self.drop_coordinator("session timed out without receiving a heartbeat response");
            return;
        }
        if now < self.heartbeat_due_ms {
            return;
        }
        self.heartbeat_due_ms = now + self.config.heartbeat_interval_ms as i64;
        self.heartbeat_in_flight = true;
        let node = self.coordinator.node().cloned().expect("checked");
        let instance = self
            .config
            .group_instance_id
            .as_deref()
            .filter(|_| self.config.instance_id_in_heartbeats)
            .map(s);
        let request = HeartbeatRequest::default()
            .with_group_id(s(&self.config.group_id).into())
            .with_generation_id(self.generation)
            .with_member_id(s(&self.member_id))
            .with_group_instance_id(instance);
        let generation = self.generation;
        let member_id = self.member_id.clone();
        let client = self.client.clone();
        let dropped = self.coordinator_dropped();
        self.spawn(
            async move {
                let timeout = client.config().request_timeout_ms;
                client
                    .send_built_capped_until(
                        &node.broker,
                        Api::Heartbeat,
                        None,
                        timeout,
                        |_| Request::Heartbeat(request),
                        dropped,
                    )
                    .await
            },
            move |result| Msg::Heartbeat {
                generation,
                member_id,
                result,
            },
        );
    }

    /// `ensureActiveGroup`: prepare (commit and revoke), then JoinGroup.
    fn poll_join(&mut self, now: i64) {
        if !self.rejoin_needed
            || !matches!(self.join, JoinPhase::Idle)
            || self.job.is_some()
            || self.coordinator.node().is_none()
        {
            return;
        }
        if self.needs_join_prepare {
            self.start_join_prepare(now);
            return;
        }
        if !self.join_retry.can_send_request(now) {
            return;
        }
        self.send_join(now);
    }

    /// `onJoinPrepare`: commit if the member is in a stable generation, then revoke every
    /// partition (eager protocol), or report them lost if the generation was reset.
    fn start_join_prepare(&mut self, now: i64) {
        self.needs_join_prepare = false;
        if self.config.enable_auto_commit && self.state == ConsumerState::Stable {
            let deadline = now + i64::from(self.config.max_poll_interval_ms);
            if let Some(op) = self.prepare_commit(now, deadline, CommitPurpose::JoinPrepare) {
                self.job = Some(Job::Commit(op));
                return;
            }
        }
        self.start_revoke(now);
    }

    fn start_revoke(&mut self, now: i64) {
        let lost = self.generation == NO_GENERATION || self.member_id.is_empty();
        if self.owned.is_empty() {
            return;
        }
        self.job = Some(Job::Revoke {
            until_ms: now + self.config.revocation_latency_ms as i64,
            lost,
        });
    }

    fn subscription(&self) -> Bytes {
        encode_subscription(&Subscription {
            topics: self.config.topics.clone(),
            // Eager: everything was revoked before joining.
            owned_partitions: Vec::new(),
            generation_id: self.generation,
            rack_id: self.config.rack_id.clone(),
        })
    }

    fn send_join(&mut self, now: i64) {
        let Some(node) = self.coordinator.node().cloned() else {
            return;
        };
        self.set_state(ConsumerState::PreparingRebalance);
        self.join = JoinPhase::JoinInFlight;
        self.join_retry.on_send_attempt(now);
        let metadata = self.subscription();
        let request = JoinGroupRequest::default()
            .with_group_id(s(&self.config.group_id).into())
            .with_session_timeout_ms(self.config.session_timeout_ms)
            .with_rebalance_timeout_ms(self.config.max_poll_interval_ms)
            .with_member_id(s(&self.member_id))
            .with_group_instance_id(self.config.group_instance_id.as_deref().map(s))
            .with_protocol_type(s("consumer"))
            .with_protocols(
                self.config
                    .assignors
                    .iter()
                    .map(|a| {
                        JoinGroupRequestProtocol::default()
                            .with_name(s(a.name()))
                            .with_metadata(metadata.clone())
                    })
                    .collect(),
            );
        let reason = self.rejoin_reason.clone();
        let timeout = self
            .config
            .request_timeout_ms
            .max(self.config.max_poll_interval_ms.max(0) as u64 + JOIN_GROUP_TIMEOUT_LAPSE_MS);
        let client = self.client.clone();
        let dropped = self.coordinator_dropped();
        self.spawn(
            async move {
                client
                    .send_built_capped_until(
                        &node.broker,
                        Api::JoinGroup,
                        None,
                        timeout,
                        |version| {
                            // The reason field exists from v8.
                            let r = if version >= 8 {
                                request.with_reason(Some(s(truncate_reason(&reason))))
                            } else {
                                request
                            };
                            Request::JoinGroup(r)
                        },
                        dropped,
                    )
                    .await
            },
            |result| Msg::Join { result },
        );
    }

    fn on_join_response(&mut self, result: Result<Response, RequestFailure>, now: i64) {
        if !matches!(self.join, JoinPhase::JoinInFlight) {
            return;
        }
        self.join = JoinPhase::Idle;
        let r = match result {
            Ok(Response::JoinGroup(r)) => r,
            Ok(_) => return self.join_failed_retriable(now, None, ErrorCode::UnknownServerError),
            Err(failure) => return self.join_failed_transport(failure, now),
        };
        let error = ErrorCode::from_code(r.error_code).unwrap_or(ErrorCode::UnknownServerError);
        match error {
            ErrorCode::None => {
                self.join_retry.reset(&mut *self.rng.borrow_mut());
                let member_id = r.member_id.to_string();
                self.set_generation(r.generation_id, &member_id);
                self.protocol_name = r.protocol_name.as_ref().map(|p| p.to_string());
                self.set_state(ConsumerState::CompletingRebalance);
                self.emitter.emit(EventKind::Joined {
                    epoch: r.generation_id,
                });
                // The heartbeat thread is enabled with fresh timers.
                self.heartbeat_enabled = true;
                self.heartbeat_attempts = 0;
                self.heartbeat_due_ms = now + self.config.heartbeat_interval_ms as i64;
                self.session_deadline_ms = now + i64::from(self.config.session_timeout_ms);
                let leader = r.leader.as_str() == member_id;
                if leader && !r.skip_assignment {
                    let topics: BTreeSet<String> = r
                        .members
                        .iter()
                        .filter_map(|m| decode_subscription(&m.metadata).ok())
                        .flat_map(|s| s.topics)
                        .collect();
                    self.join = JoinPhase::AwaitingMetadata(Box::new(r));
                    let client = self.client.clone();
                    let topics: Vec<String> = topics.into_iter().collect();
                    self.spawn(
                        async move { fetch_metadata(&client, Some(&topics)).await },
                        |result| Msg::Metadata { result },
                    );
                } else {
                    // A follower, or a static leader told to skip the assignment (KIP-814).
                    self.send_sync(Vec::new());
                }
            }
            ErrorCode::MemberIdRequired => {
                // KIP-394: rejoin at once with the member id the coordinator chose.
                self.join_retry.reset(&mut *self.rng.borrow_mut());
                let member_id = r.member_id.to_string();
                self.set_generation(NO_GENERATION, &member_id);
                self.request_rejoin(format!(
                    "need to re-join with the given member-id: {member_id}"
                ));
            }
            ErrorCode::UnknownMemberId => {
                self.join_retry.reset(&mut *self.rng.borrow_mut());
                self.reset_generation(true, error, "JOIN_GROUP");
                self.rebalance_failed(&exception_name(error));
            }
            ErrorCode::RebalanceInProgress => {
                self.join_retry.reset(&mut *self.rng.borrow_mut());
                self.rebalance_failed(&exception_name(error));
            }
            ErrorCode::CoordinatorLoadInProgress => self.join_failed_retriable(now, None, error),
            ErrorCode::CoordinatorNotAvailable | ErrorCode::NotCoordinator => {
                self.join_failed_retriable(now, Some(error), error);
            }
            fatal => {
                let message = format!("JoinGroup failed: {}", fatal.default_message());
                self.fatal(Some(fatal), message);
            }
        }
    }

    /// The join loop's reaction to a failed round (`joinGroupIfNeeded`): the next JoinGroup's
    /// reason names the exception.
    fn rebalance_failed(&mut self, exception: &str) {
        self.request_rejoin(format!("rebalance failed due to {exception}"));
    }

    fn join_failed_retriable(&mut self, now: i64, rediscover: Option<ErrorCode>, error: ErrorCode) {
        self.rebalance_failed(&exception_name(error));
        {
            let mut rng = self.rng.borrow_mut();
            self.join_retry.on_failed_attempt(now, &mut *rng);
        }
        if let Some(error) = rediscover {
            self.drop_coordinator(&format!("error response {}", error.name()));
        }
    }

    fn join_failed_transport(&mut self, failure: RequestFailure, now: i64) {
        if failure == RequestFailure::UnsupportedVersion {
            self.fatal(
                Some(ErrorCode::UnsupportedVersion),
                "JoinGroup is not supported by the broker".into(),
            );
            return;
        }
        {
            let mut rng = self.rng.borrow_mut();
            self.join_retry.on_failed_attempt(now, &mut *rng);
        }
        let exception = if is_disconnect(&failure) {
            "DisconnectException"
        } else {
            "KafkaException"
        };
        self.rebalance_failed(exception);
        if is_disconnect(&failure) {
            self.mark_coordinator_unknown(&failure.to_string());
        }
    }

    fn on_metadata_for_assignment(
        &mut self,
        result: Result<MetadataSnapshot, RequestFailure>,
        now: i64,
    ) {
        let JoinPhase::AwaitingMetadata(r) = std::mem::replace(&mut self.join, JoinPhase::Idle)
        else {
            return;
        };
        let snapshot = match result {
            Ok(snapshot) => snapshot,
            Err(_) => {
                // Without metadata the leader cannot assign: start the round again.
                self.join_failed_retriable(now, None, ErrorCode::RequestTimedOut);
                return;
            }
        };
        self.topic_ids.extend(snapshot.topic_ids());
        let partitions: BTreeMap<String, i32> = snapshot
            .topics
            .iter()
            .filter(|(_, t)| t.error == ErrorCode::None)
            .map(|(n, t)| (n.clone(), t.partitions))
            .collect();
        let members: Vec<MemberSubscription> = r
            .members
            .iter()
            .map(|m| MemberSubscription {
                member_id: m.member_id.to_string(),
                instance_id: m.group_instance_id.as_ref().map(|i| i.to_string()),
                topics: decode_subscription(&m.metadata)
                    .map(|s| s.topics.into_iter().collect())
                    .unwrap_or_default(),
            })
            .collect();
        let assignor = self
            .protocol_name
            .as_deref()
            .and_then(Assignor::from_name)
            .unwrap_or(Assignor::Range);
        let assignment = assignor.assign(&partitions, &members);
        let assignments = assignment
            .into_iter()
            .map(|(member, parts)| {
                SyncGroupRequestAssignment::default()
                    .with_member_id(s(&member))
                    .with_assignment(encode_assignment(&parts))
            })
            .collect();
        if self.assignment_stalled {
            self.join = JoinPhase::AssignmentHeld(assignments);
            return;
        }
        self.send_sync(assignments);
    }

    fn send_sync(&mut self, assignments: Vec<SyncGroupRequestAssignment>) {
        let Some(node) = self.coordinator.node().cloned() else {
            self.join = JoinPhase::Idle;
            return;
        };
        self.join = JoinPhase::SyncInFlight;
        let request = SyncGroupRequest::default()
            .with_group_id(s(&self.config.group_id).into())
            .with_generation_id(self.generation)
            .with_member_id(s(&self.member_id))
            .with_group_instance_id(self.config.group_instance_id.as_deref().map(s))
            .with_assignments(assignments);
        let protocol_name = self.protocol_name.clone();
        let client = self.client.clone();
        let dropped = self.coordinator_dropped();
        self.spawn(
            async move {
                client
                    .send_built_capped_until(
                        &node.broker,
                        Api::SyncGroup,
                        None,
                        client.config().request_timeout_ms,
                        |version| {
                            // Protocol type and name exist from v5.
                            let r = if version >= 5 {
                                request
                                    .with_protocol_type(Some(s("consumer")))
                                    .with_protocol_name(protocol_name.as_deref().map(s))
                            } else {
                                request
                            };
                            Request::SyncGroup(r)
                        },
                        dropped,
                    )
                    .await
            },
            |result| Msg::Sync { result },
        );
    }

    fn on_sync_response(&mut self, result: Result<Response, RequestFailure>, now: i64) {
        if !matches!(self.join, JoinPhase::SyncInFlight) {
            return;
        }
        self.join = JoinPhase::Idle;
        let r = match result {
            Ok(Response::SyncGroup(r)) => r,
            Ok(_) => return self.join_failed_retriable(now, None, ErrorCode::UnknownServerError),
            Err(failure) => return self.join_failed_transport(failure, now),
        };
        let error = ErrorCode::from_code(r.error_code).unwrap_or(ErrorCode::UnknownServerError);
        match error {
            ErrorCode::None => {
                if self.state != ConsumerState::CompletingRebalance {
                    // The generation was reset meanwhile (heartbeat error): retry at once.
                    return;
                }
                let partitions = match decode_assignment(&r.assignment) {
                    Ok(p) => p,
                    Err(e) => {
                        self.fatal(None, e.to_string());
                        return;
                    }
                };
                self.set_state(ConsumerState::Stable);
                self.rejoin_needed = false;
                self.rejoin_reason.clear();
                // The next rebalance prepares again (commit, revoke).
                self.needs_join_prepare = true;
                self.job = Some(Job::Assign {
                    until_ms: now + self.config.assignment_latency_ms as i64,
                    partitions,
                });
            }
            ErrorCode::RebalanceInProgress => {
                self.join_retry.reset(&mut *self.rng.borrow_mut());
                self.rebalance_failed(&exception_name(error));
            }
            ErrorCode::UnknownMemberId | ErrorCode::IllegalGeneration => {
                self.join_retry.reset(&mut *self.rng.borrow_mut());
                self.emitter.emit(EventKind::Fenced {
                    error,
                    epoch: self.generation,
                });
                self.reset_generation(error == ErrorCode::UnknownMemberId, error, "SYNC_GROUP");
                self.rebalance_failed(&exception_name(error));
            }
            ErrorCode::CoordinatorNotAvailable | ErrorCode::NotCoordinator => {
                self.join_failed_retriable(now, Some(error), error);
            }
            fatal => {
                let message = format!("SyncGroup failed: {}", fatal.default_message());
                self.fatal(Some(fatal), message);
            }
        }
    }

    /// `resetStateAndRejoin`: back to UNJOINED with no generation (and no member id when asked),
    /// prepare again before the next join (partitions are then lost, not revoked).
    fn request_rejoin(&mut self, reason: String) {
        self.rejoin_needed = true;
        self.rejoin_reason = reason;
    }

    fn reset_generation(&mut self, reset_member_id: bool, error: ErrorCode, api: &str) {
        let member_id = if reset_member_id {
            String::new()
        } else {
            self.member_id.clone()
        };
        self.set_generation(NO_GENERATION, &member_id);
        self.protocol_name = None;
        self.set_state(ConsumerState::Unjoined);
        self.heartbeat_enabled = false;
        self.request_rejoin(format!("encountered {} from {api} response", error.name()));
        self.needs_join_prepare = true;
    }

    fn on_heartbeat_response(
        &mut self,
        generation: i32,
        member_id: String,
        result: Result<Response, RequestFailure>,
        now: i64,
    ) {
        self.heartbeat_in_flight = false;
        let generation_unchanged = generation == self.generation && member_id == self.member_id;
        let error = match result {
            Ok(Response::Heartbeat(r)) => {
                ErrorCode::from_code(r.error_code).unwrap_or(ErrorCode::UnknownServerError)
            }
            Ok(_) => ErrorCode::UnknownServerError,
            Err(failure) => {
                if is_disconnect(&failure) {
                    self.mark_coordinator_unknown(&failure.to_string());
                }
                self.fail_heartbeat(now);
                return;
            }
        };
        match error {
            ErrorCode::None => self.receive_heartbeat(now),
            ErrorCode::CoordinatorNotAvailable | ErrorCode::NotCoordinator => {
                self.drop_coordinator(&format!("error response {}", error.name()));
                self.fail_heartbeat(now);
            }
            ErrorCode::RebalanceInProgress => {
                // Heartbeating goes on during a rebalance; a stable member rejoins.
                if self.state == ConsumerState::Stable {
                    self.request_rejoin("group is already rebalancing".into());
                }
                self.receive_heartbeat(now);
            }
            ErrorCode::IllegalGeneration | ErrorCode::UnknownMemberId => {
                if generation_unchanged {
                    self.emitter.emit(EventKind::Fenced {
                        error,
                        epoch: generation,
                    });
                    self.reset_generation(error == ErrorCode::UnknownMemberId, error, "HEARTBEAT");
                }
                self.fail_heartbeat(now);
            }
            ErrorCode::FencedInstanceId => {
                if generation_unchanged {
                    self.fatal(
                        Some(error),
                        format!(
                            "The group instance id {} has been fenced by another instance",
                            self.config.group_instance_id.as_deref().unwrap_or("")
                        ),
                    );
                } else {
                    self.receive_heartbeat(now);
                }
            }
            other => {
                let message = format!(
                    "Unexpected error in heartbeat response: {}",
                    other.default_message()
                );
                self.fatal(Some(other), message);
            }
        }
    }

    fn receive_heartbeat(&mut self, now: i64) {
        self.heartbeat_attempts = 0;
        self.session_deadline_ms = now + i64::from(self.config.session_timeout_ms);
    }

    fn fail_heartbeat(&mut self, now: i64) {
        let wait = {
            let mut rng = self.rng.borrow_mut();
            self.heartbeat_backoff
                .backoff(self.heartbeat_attempts, &mut *rng)
        };
        self.heartbeat_attempts = self.heartbeat_attempts.saturating_add(1);
        self.heartbeat_due_ms = now + wait as i64;
    }

    // ---------------------------------------------------------------------------------------
    // Jobs.

    fn poll_job(&mut self, now: i64) {
        let Some(job) = self.job.take() else {
            return;
        };
        match job {
            Job::Commit(mut op) => match self.drive_commit(&mut op, now) {
                None => self.job = Some(Job::Commit(op)),
                Some(result) => self.finish_commit(op, result, now),
            },
            Job::Revoke { until_ms, lost } => {
                if now < until_ms {
                    self.job = Some(Job::Revoke { until_ms, lost });
                    return;
                }
                let partitions: Vec<TopicPartition> =
                    std::mem::take(&mut self.owned).into_keys().collect();
                if !partitions.is_empty() {
                    self.emitter.emit(if lost {
                        EventKind::PartitionsLost { partitions }
                    } else {
                        EventKind::PartitionsRevoked { partitions }
                    });
                    self.emit_owned();
                }
            }
            Job::Assign {
                until_ms,
                partitions,
            } => {
                if now < until_ms {
                    self.job = Some(Job::Assign {
                        until_ms,
                        partitions,
                    });
                    return;
                }
                if self.state != ConsumerState::Stable {
                    return;
                }
                for tp in &partitions {
                    self.owned.insert(
                        tp.clone(),
                        Owned {
                            base: None,
                            started_ms: now,
                            committed: None,
                        },
                    );
                }
                self.emitter
                    .emit(EventKind::PartitionsAssigned { partitions });
                self.emit_owned();
            }
        }
    }

    fn emit_owned(&self) {
        self.emitter.emit(EventKind::OwnedPartitions {
            generation: self.generation,
            partitions: self.owned.keys().cloned().collect(),
        });
    }

    fn position(&self, owned: &Owned, now: i64) -> Option<i64> {
        let base = owned.base?;
        let processed = ((now - owned.started_ms).max(0) as u64)
            .saturating_mul(self.config.records_per_second)
            / 1000;
        Some(base + processed as i64)
    }

    fn prepare_commit(
        &mut self,
        now: i64,
        deadline_ms: i64,
        purpose: CommitPurpose,
    ) -> Option<CommitOp> {
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
            generation: self.generation,
            deadline_ms,
            retry: RequestState::new(ExponentialBackoff::retry(
                self.config.retry_backoff_ms,
                self.config.retry_backoff_max_ms,
            )),
            state: CommitState::Waiting { not_before_ms: now },
            purpose,
        })
    }

    fn poll_auto_commit(&mut self, now: i64) {
        if !self.config.enable_auto_commit
            || self.job.is_some()
            || self.state != ConsumerState::Stable
            || now < self.next_auto_commit_ms
        {
            return;
        }
        self.next_auto_commit_ms = now + self.config.auto_commit_interval_ms as i64;
        if let Some(op) = self.prepare_commit(now, now, CommitPurpose::Auto) {
            self.job = Some(Job::Commit(op));
            self.poll_job(now);
        }
    }

    fn drive_commit(&mut self, op: &mut CommitOp, now: i64) -> Option<Result<(), ErrorCode>> {
        match &op.state {
            CommitState::Done(r) => Some(*r),
            CommitState::InFlight => None,
            CommitState::Waiting { not_before_ms } => {
                if now > op.deadline_ms && op.purpose != CommitPurpose::Auto {
                    return Some(Err(ErrorCode::RequestTimedOut));
                }
                if now < *not_before_ms {
                    return None;
                }
                let Some(node) = self.coordinator.node().cloned() else {
                    if op.purpose == CommitPurpose::Auto {
                        return Some(Err(ErrorCode::CoordinatorNotAvailable));
                    }
                    return None;
                };
                op.generation = self.generation;
                let committer = Committer {
                    group_id: self.config.group_id.clone(),
                    member_id: self.member_id.clone(),
                    generation_or_epoch: self.generation,
                    instance_id: self
                        .config
                        .group_instance_id
                        .clone()
                        .filter(|_| self.config.instance_id_in_heartbeats),
                };
                let request = build_commit(&committer, &op.offsets, &self.topic_ids);
                op.retry.on_send_attempt(now);
                op.state = CommitState::InFlight;
                let id = op.id;
                let client = self.client.clone();
                let timeout = self.config.request_timeout_ms;
                let dropped = self.coordinator_dropped();
                // The classic consumer names topics (`forTopicNames`): OffsetCommit v9 at most.
                self.spawn(
                    async move {
                        client
                            .send_built_capped_until(
                                &node.broker,
                                Api::OffsetCommit,
                                Some(9),
                                timeout,
                                |_| Request::OffsetCommit(request),
                                dropped,
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
        let Some(Job::Commit(op)) = self.job.as_mut() else {
            return;
        };
        if op.id != id {
            return;
        }
        let retriable = op.purpose != CommitPurpose::Auto;
        let mut rediscover = None;
        let mut disconnected = false;
        let outcome = match result {
            Ok(Response::OffsetCommit(r)) => match commit_result(&r, &BTreeMap::new()) {
                Ok(()) => Some(Ok(())),
                Err((code, _)) => match code {
                    ErrorCode::CoordinatorNotAvailable
                    | ErrorCode::NotCoordinator
                    | ErrorCode::RequestTimedOut => {
                        rediscover = Some(code);
                        (!retriable).then_some(Err(code))
                    }
                    ErrorCode::CoordinatorLoadInProgress | ErrorCode::UnknownTopicOrPartition => {
                        (!retriable).then_some(Err(code))
                    }
                    other => Some(Err(other)),
                },
            },
            Ok(_) => Some(Err(ErrorCode::UnknownServerError)),
            Err(failure) => {
                if is_disconnect(&failure) {
                    rediscover = Some(ErrorCode::NetworkException);
                    disconnected = true;
                }
                (!retriable).then_some(Err(ErrorCode::RequestTimedOut))
            }
        };
        match outcome {
            Some(r) => op.state = CommitState::Done(r),
            None => {
                let mut rng = self.rng.borrow_mut();
                op.retry.on_failed_attempt(now, &mut *rng);
                op.state = CommitState::Waiting {
                    not_before_ms: now + op.retry.remaining_backoff_ms(now),
                };
            }
        }
        if let Some(code) = rediscover {
            let reason = format!("OffsetCommit failed with {}", code.name());
            if disconnected {
                self.mark_coordinator_unknown(&reason);
            } else {
                self.drop_coordinator(&reason);
            }
        }
        self.poll_job(now);
    }

    fn finish_commit(&mut self, op: CommitOp, result: Result<(), ErrorCode>, now: i64) {
        match result {
            Ok(()) => {
                for (tp, offset) in &op.offsets {
                    if let Some(o) = self.owned.get_mut(tp) {
                        o.committed = Some(*offset);
                    }
                }
                self.emitter.emit(EventKind::CommitAccepted {
                    epoch: op.generation,
                    offsets: op.offsets.clone(),
                });
            }
            Err(error) => {
                let partitions = op.offsets.iter().map(|(tp, _)| tp.clone()).collect();
                let rejected = !matches!(
                    error,
                    ErrorCode::RequestTimedOut
                        | ErrorCode::CoordinatorNotAvailable
                        | ErrorCode::NotCoordinator
                        | ErrorCode::CoordinatorLoadInProgress
                );
                if rejected {
                    self.emitter.emit(EventKind::CommitRejected {
                        epoch: op.generation,
                        error,
                        partitions,
                    });
                } else {
                    self.emitter.emit(EventKind::CommitFailed {
                        epoch: op.generation,
                        reason: error.name().to_string(),
                    });
                }
                let generation_unchanged = op.generation == self.generation;
                match error {
                    ErrorCode::FencedInstanceId if generation_unchanged => {
                        self.fatal(
                            Some(error),
                            "The group instance id has been fenced by another instance".into(),
                        );
                        return;
                    }
                    ErrorCode::RebalanceInProgress => self.request_rejoin(
                        "offset commit failed since group is already rebalancing".into(),
                    ),
                    ErrorCode::UnknownMemberId | ErrorCode::IllegalGeneration
                        if generation_unchanged
                            || self.state != ConsumerState::PreparingRebalance =>
                    {
                        self.emitter.emit(EventKind::Fenced {
                            error,
                            epoch: op.generation,
                        });
                        self.reset_generation(
                            error == ErrorCode::UnknownMemberId,
                            error,
                            "OFFSET_COMMIT",
                        );
                    }
                    _ => {}
                }
            }
        }
        // What the commit was for continues.
        match op.purpose {
            CommitPurpose::Auto => {}
            CommitPurpose::JoinPrepare => self.start_revoke(now),
            CommitPurpose::Close => self.finish_close(now),
        }
    }

    // ---------------------------------------------------------------------------------------
    // Committed offsets of newly assigned partitions.

    fn poll_fetch(&mut self, now: i64) {
        if self.fetch_in_flight
            || self.state != ConsumerState::Stable
            || !self.fetch.can_send_request(now)
        {
            return;
        }
        let Some(node) = self.coordinator.node().cloned() else {
            return;
        };
        let partitions: Vec<TopicPartition> = self
            .owned
            .iter()
            .filter(|(_, o)| o.base.is_none())
            .map(|(tp, _)| tp.clone())
            .collect();
        if partitions.is_empty() {
            return;
        }
        self.fetch_in_flight = true;
        self.fetch.on_send_attempt(now);
        let group = self.config.group_id.clone();
        let ids = self.topic_ids.clone();
        let client = self.client.clone();
        let timeout = self.config.request_timeout_ms;
        let dropped = self.coordinator_dropped();
        self.spawn(
            async move {
                client
                    .send_built_capped_until(
                        &node.broker,
                        Api::OffsetFetch,
                        Some(9),
                        timeout,
                        |v| Request::OffsetFetch(build_fetch(v, &group, None, &partitions, &ids)),
                        dropped,
                    )
                    .await
            },
            |result| Msg::Fetch { result },
        );
    }

    fn on_fetch_response(&mut self, result: Result<Response, RequestFailure>, now: i64) {
        self.fetch_in_flight = false;
        let fetched = match result {
            Ok(Response::OffsetFetch(r)) => match fetch_result(&r, &BTreeMap::new()) {
                Ok(offsets) => Some(offsets),
                Err(ErrorCode::NotCoordinator) => {
                    // `OffsetFetchResponseHandler`: rediscover, then retry.
                    self.drop_coordinator("error response NOT_COORDINATOR");
                    None
                }
                Err(_) => None,
            },
            Err(failure) if is_disconnect(&failure) => {
                self.mark_coordinator_unknown(&failure.to_string());
                None
            }
            _ => None,
        };
        let mut rng = self.rng.borrow_mut();
        let Some(offsets) = fetched else {
            self.fetch.on_failed_attempt(now, &mut *rng);
            return;
        };
        self.fetch.on_successful_attempt(now, &mut *rng);
        drop(rng);
        let mut reported = Vec::new();
        for (tp, o) in self.owned.iter_mut() {
            if o.base.is_some() {
                continue;
            }
            // No committed offset (-1, or the partition missing from the answer): start from
            // the beginning (`auto.offset.reset=earliest`).
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

    // ---------------------------------------------------------------------------------------
    // Close.

    /// `close()`: commit synchronously, revoke, LeaveGroup if dynamic, stop.
    fn poll_close(&mut self, now: i64) {
        if self.close_started {
            if !self.leave_in_flight && self.job.is_none() {
                self.exit = true;
            }
            return;
        }
        // Let the current application step finish (a rebalance in flight is abandoned).
        if self.job.is_some() {
            return;
        }
        self.close_started = true;
        let deadline = now + self.config.default_api_timeout_ms as i64;
        if self.config.enable_auto_commit
            && self.state == ConsumerState::Stable
            && let Some(op) = self.prepare_commit(now, deadline, CommitPurpose::Close)
        {
            self.job = Some(Job::Commit(op));
            self.poll_job(now);
            return;
        }
        self.finish_close(now);
    }

    fn finish_close(&mut self, _now: i64) {
        let partitions: Vec<TopicPartition> = std::mem::take(&mut self.owned).into_keys().collect();
        if !partitions.is_empty() {
            self.emitter
                .emit(EventKind::PartitionsRevoked { partitions });
            self.emit_owned();
        }
        // `maybeLeaveGroup(DEFAULT)`: only a dynamic member that joined sends LeaveGroup.
        let dynamic = self.config.group_instance_id.is_none();
        if dynamic
            && self.state != ConsumerState::Unjoined
            && !self.member_id.is_empty()
            && let Some(node) = self.coordinator.node().cloned()
        {
            self.leave_in_flight = true;
            self.emitter.emit(EventKind::LeaveSent {
                epoch: self.generation,
            });
            let request =
                LeaveGroupRequest::default().with_group_id(s(&self.config.group_id).into());
            let member_id = self.member_id.clone();
            let client = self.client.clone();
            let dropped = self.coordinator_dropped();
            self.spawn(
                async move {
                    let _ = client
                        .send_built_capped_until(
                            &node.broker,
                            Api::LeaveGroup,
                            None,
                            client.config().request_timeout_ms,
                            |version| {
                                Request::LeaveGroup(if version >= 3 {
                                    request.with_members(vec![
                                        MemberIdentity::default()
                                            .with_member_id(s(&member_id))
                                            .with_reason(if version >= 5 {
                                                Some(s("the consumer is being closed"))
                                            } else {
                                                None
                                            }),
                                    ])
                                } else {
                                    request.with_member_id(s(&member_id))
                                })
                            },
                            dropped,
                        )
                        .await;
                },
                |_| Msg::Leave,
            );
        }
        self.set_generation(NO_GENERATION, "");
        self.set_state(ConsumerState::Unjoined);
        self.heartbeat_enabled = false;
        self.rejoin_needed = false;
    }

    // ---------------------------------------------------------------------------------------

    fn handle(&mut self, msg: Msg, now: i64) {
        match msg {
            Msg::Coordinator(result) => {
                let outcome = {
                    let mut rng = self.rng.borrow_mut();
                    self.coordinator.on_result(result, now, &mut *rng)
                };
                match outcome {
                    Ok(event) => self.emitter.emit(event),
                    Err(f) if !f.is_retriable() => {
                        let (code, message) = match f {
                            FindFailure::Error(c, m) => (Some(c), m.unwrap_or_default()),
                            FindFailure::Transport(t) => (None, t.to_string()),
                        };
                        self.fatal(code, format!("FindCoordinator failed: {message}"));
                    }
                    Err(_) => {}
                }
            }
            Msg::Join { result } => self.on_join_response(result, now),
            Msg::Metadata { result } => self.on_metadata_for_assignment(result, now),
            Msg::Sync { result } => self.on_sync_response(result, now),
            Msg::Heartbeat {
                generation,
                member_id,
                result,
            } => self.on_heartbeat_response(generation, member_id, result, now),
            Msg::Commit { id, result } => self.on_commit_response(id, result, now),
            Msg::Fetch { result } => self.on_fetch_response(result, now),
            Msg::Leave => self.leave_in_flight = false,
        }
    }

    /// `markCoordinatorUnknown(isDisconnected = true, ...)`: the coordinator's connection broke,
    /// which failed the requests on it already.
    fn mark_coordinator_unknown(&mut self, reason: &str) -> bool {
        let known = self.coordinator.mark_unknown();
        if known {
            self.emitter.emit(EventKind::CoordinatorUnknown {
                reason: reason.to_string(),
            });
        }
        known
    }

    /// `markCoordinatorUnknown(isDisconnected = false, ...)` (an error response, a session
    /// without heartbeat answers): Kafka also disconnects from the old coordinator
    /// (`client.disconnectAsync`), so every request queued for or in flight to it fails with a
    /// `DisconnectException` and its answer, if one still comes, is never seen.
    fn drop_coordinator(&mut self, reason: &str) {
        if self.mark_coordinator_unknown(reason) {
            for request in self.coordinator_requests.drain(..) {
                let _ = request.send(());
            }
        }
    }

    /// Resolves, with the failure's reason, when the coordinator a request is sent to now is
    /// dropped ([`Self::drop_coordinator`]).
    fn coordinator_dropped(&mut self) -> impl Future<Output = String> + 'static {
        self.coordinator_requests.retain(|r| !r.is_closed());
        let (tx, rx) = oneshot::channel();
        self.coordinator_requests.push(tx);
        async move {
            if rx.await.is_err() {
                // The member is gone; its tasks are aborted with it.
                std::future::pending::<()>().await;
            }
            "coordinator marked unknown".to_string()
        }
    }

    fn fatal(&mut self, error: Option<ErrorCode>, message: String) {
        if self.state == ConsumerState::Fatal {
            return;
        }
        self.emitter.emit(EventKind::Fatal { error, message });
        let partitions: Vec<TopicPartition> = std::mem::take(&mut self.owned).into_keys().collect();
        if !partitions.is_empty() {
            self.emitter.emit(EventKind::PartitionsLost { partitions });
            self.emit_owned();
        }
        self.job = None;
        self.heartbeat_enabled = false;
        self.set_state(ConsumerState::Fatal);
    }

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

    fn next_wake(&self, now: i64) -> i64 {
        let mut wake = now + 3_600_000;
        let mut at = |t: i64| wake = wake.min(t);
        if let Some(t) = self.coordinator.next_send_ms(now) {
            at(t);
        }
        if self.heartbeat_enabled && self.coordinator.node().is_some() {
            at(self.heartbeat_due_ms);
            at(self.session_deadline_ms);
        }
        match &self.job {
            Some(Job::Commit(op)) => {
                if let CommitState::Waiting { not_before_ms } = op.state {
                    // Without a coordinator only an auto-commit moves (it gives up); a manual
                    // commit waits for the coordinator, whose discovery wakes the member.
                    if self.coordinator.node().is_some() || op.purpose == CommitPurpose::Auto {
                        at(not_before_ms);
                    }
                    at(op.deadline_ms + 1);
                }
            }
            Some(Job::Revoke { until_ms, .. }) | Some(Job::Assign { until_ms, .. }) => {
                at(*until_ms)
            }
            None => {
                if self.closing {
                    at(now);
                }
                if self.rejoin_needed
                    && matches!(self.join, JoinPhase::Idle)
                    && self.coordinator.node().is_some()
                {
                    if self.needs_join_prepare {
                        at(now);
                    } else {
                        at(now + self.join_retry.remaining_backoff_ms(now));
                    }
                }
                if self.config.enable_auto_commit && self.state == ConsumerState::Stable {
                    at(self.next_auto_commit_ms);
                }
            }
        }
        // A fetch goes out only when stable with a coordinator (see `poll_fetch`).
        if !self.fetch_in_flight
            && self.state == ConsumerState::Stable
            && self.coordinator.node().is_some()
            && self.owned.values().any(|o| o.base.is_none())
        {
            at(now + self.fetch.remaining_backoff_ms(now));
        }
        if self.state == ConsumerState::Fatal && self.job.is_none() {
            at(now);
        }
        wake.max(now)
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
            Control::Close => self.closing = true,
            Control::StallHeartbeats(stalled) => self.heartbeats_stalled = stalled,
            Control::StallAssignment(stalled) => {
                self.assignment_stalled = stalled;
                if !stalled
                    && let JoinPhase::AssignmentHeld(assignments) =
                        std::mem::replace(&mut self.join, JoinPhase::Idle)
                {
                    // As Java's onJoinLeader when the assignor returns: the SyncGroup carries
                    // the generation as it is now, reset if the heartbeat thread was told the
                    // member is gone (the coordinator then refuses it and the member rejoins).
                    self.send_sync(assignments);
                }
            }
        }
    }

    /// The `Consumer` handle was dropped: close as if asked to.
    fn on_control_closed(&mut self) {
        self.closing = true;
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

/// Whether a coordinator request's failure is Kafka's `DisconnectException`, which makes
/// `CoordinatorResponseHandler.onFailure` mark the coordinator unknown. A request that timed out
/// is one: `NetworkClient` closes the connection and answers it as disconnected
/// (`InFlightRequest.timedOut` builds a response with `disconnected = true`), and
/// `ConsumerNetworkClient`'s completion handler raises `DisconnectException` for it.
fn is_disconnect(failure: &RequestFailure) -> bool {
    matches!(
        failure,
        RequestFailure::TimedOut | RequestFailure::Disconnected(_)
    )
}

/// `JoinGroupRequest.maybeTruncateReason`: at most 255 characters.
fn truncate_reason(reason: &str) -> &str {
    match reason.char_indices().nth(255) {
        Some((i, _)) => &reason[..i],
        None => reason,
    }
}

/// The simple name of the Java exception an error code maps to (`UNKNOWN_MEMBER_ID` ->
/// `UnknownMemberIdException`), as the consumer names it in its rejoin reason.
fn exception_name(error: ErrorCode) -> String {
    let mut out = String::new();
    for word in error.name().split('_') {
        let mut chars = word.chars();
        if let Some(first) = chars.next() {
            out.push(first);
            out.extend(chars.map(|c| c.to_ascii_lowercase()));
        }
    }
    out.push_str("Exception");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_names_follow_kafkas_classes() {
        assert_eq!(
            exception_name(ErrorCode::UnknownMemberId),
            "UnknownMemberIdException"
        );
        assert_eq!(
            exception_name(ErrorCode::RebalanceInProgress),
            "RebalanceInProgressException"
        );
        assert_eq!(
            exception_name(ErrorCode::NotCoordinator),
            "NotCoordinatorException"
        );
        assert_eq!(truncate_reason(&"x".repeat(300)).len(), 255);
        assert_eq!(truncate_reason("short"), "short");
    }
}

//! The broker's shared state and its handle. Everything runs on one thread: the tasks of a broker
//! share one [`Node`] through an `Rc`, its mutable state sits in one `RefCell<Core>` that is
//! borrowed only between awaits, and tasks wake each other with `Notify`.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::io;
use std::rc::Rc;

use tokio::sync::{Notify, oneshot};
use tokio::task::JoinHandle;

use protocol::{Request, Response};

use super::config::BrokerConfig;
use super::published::{MetadataAnswers, PublishedImage};
use super::replica::ReplicaState;
use super::runtime::CoordinatorRuntime;
use super::storage::BrokerStorage;
use crate::controller::image::MetadataImage;
use crate::events::{BrokerState, ClusterEvent, EventKind, Events};
use crate::net::{Net, NetListener};

use crate::outcome::RequestToken;
use crate::rpc::{AlterPartitionRequest, RpcClient};

/// A request waiting for its response (parked in a shard or waiting for its records to commit).
pub(crate) struct PendingResponse {
    pub tx: oneshot::Sender<Response>,
    pub request: Request,
    pub version: i16,
}

/// The mutable state of a broker.
pub(crate) struct Core {
    pub state: BrokerState,
    pub broker_epoch: i64,
    pub ready_to_unfence: bool,
    /// Whether the initial catch-up (IsCaughtUp) happened.
    pub caught_up: bool,
    /// Changed only through its methods, which move its generation ([`super::published`]).
    pub image: PublishedImage,
    /// Metadata response bodies built from the current generation of `image`.
    pub metadata_answers: MetadataAnswers,
    /// While the metadata follower has not yet caught up with the controller's log once: the
    /// records fetched so far, not yet applied ([`super::metadata`]: nothing is published before
    /// the broker reached the log's end). `None` once caught up.
    pub unpublished: Option<Vec<crate::rpc::OffsetRecord>>,
    pub runtime: CoordinatorRuntime,
    /// Replica state of the `__consumer_offsets` partitions this broker holds.
    pub replicas: BTreeMap<i32, ReplicaState>,
    pub pending: BTreeMap<RequestToken, PendingResponse>,
    pub next_token: u64,
    /// Leaders a fetcher task currently replicates from.
    pub fetchers: BTreeSet<i32>,
    /// Topics whose creation was asked of the controller and not yet answered.
    pub creating: BTreeSet<String>,
    pub stopped: bool,
}

/// Everything a broker's tasks share.
pub(crate) struct Node<N: Net> {
    pub net: N,
    pub config: BrokerConfig,
    pub events: Events,
    pub storage: BrokerStorage,
    /// (host, port) advertised for the client listener.
    pub advertised: (String, u16),
    /// The address the client listener is bound to (`ip:port`).
    pub bound: String,
    pub core: RefCell<Core>,
    /// The clean-shutdown epoch read at start (PreviousBrokerEpoch), -1 if none.
    pub previous_broker_epoch: i64,
    /// Registration and heartbeats (Kafka's heartbeat channel).
    pub heartbeat_rpc: RpcClient<N>,
    /// CreateTopics forwarding and AlterPartition (Kafka's forwarding / alter-partition channels).
    pub forward_rpc: RpcClient<N>,
    /// The metadata fetch.
    pub metadata_rpc: RpcClient<N>,
    /// Wakes the lifecycle manager for an immediate heartbeat.
    pub lifecycle_wakeup: Notify,
    /// Metadata was applied.
    pub metadata_applied: Notify,
    /// A partition log grew or a high watermark moved (parked replica fetches wake on it).
    pub log_changed: Notify,
    /// Shard timers or write deadlines may have changed.
    pub timers_changed: Notify,
    /// The broker reached RUNNING.
    pub running: Notify,
    /// The broker stopped.
    pub stopped: Notify,
    pub tasks: RefCell<Vec<JoinHandle<()>>>,
    pub listener_started: Cell<bool>,
    /// AlterPartition requests waiting to be sent, in order.
    pub alter_partition_queue: RefCell<VecDeque<(i32, AlterPartitionRequest)>>,
    pub alter_partition_wakeup: Notify,
    /// Topics to ask the controller to create: (name, partitions, replication factor).
    pub topic_creation_queue: RefCell<VecDeque<(String, i32, i16)>>,
    pub topic_creation_wakeup: Notify,
    /// An immediate heartbeat was asked for while one was in flight.
    pub heartbeat_requested: Cell<bool>,
    /// A controlled shutdown was asked for (the lifecycle manager acts on it).
    pub shutdown_requested: Cell<bool>,
}

impl<N: Net> Node<N> {
    pub fn now(&self) -> i64 {
        self.net.now_ms()
    }

    pub fn id(&self) -> i32 {
        self.config.node_id
    }

    pub fn emit(&self, kind: EventKind) {
        self.events.emit(ClusterEvent {
            at_ms: self.now(),
            node: self.config.node_id,
            kind,
        });
    }

    /// Spawns a task tied to the broker's lifetime.
    pub fn spawn(&self, fut: impl std::future::Future<Output = ()> + 'static) {
        let handle = tokio::task::spawn_local(fut);
        let mut tasks = self.tasks.borrow_mut();
        tasks.retain(|t| !t.is_finished());
        tasks.push(handle);
    }

    pub fn set_state(&self, core: &mut Core, to: BrokerState) {
        let from = core.state;
        if from != to {
            core.state = to;
            tracing::info!(broker = self.id(), from = %from, to = %to, "broker state change");
            self.emit(EventKind::BrokerStateChanged { from, to });
        }
    }
}

/// A running broker, for whoever started it (the simulator, `regroup serve`, tests).
pub struct BrokerHandle<N: Net> {
    pub(crate) node: Rc<Node<N>>,
}

impl<N: Net> Clone for BrokerHandle<N> {
    fn clone(&self) -> Self {
        Self {
            node: self.node.clone(),
        }
    }
}

impl<N: Net> BrokerHandle<N> {
    pub fn node_id(&self) -> i32 {
        self.node.config.node_id
    }

    /// The advertised client address `host:port`.
    pub fn addr(&self) -> String {
        format!("{}:{}", self.node.advertised.0, self.node.advertised.1)
    }

    /// The address the client listener is bound to (the advertised one may differ: a proxy).
    pub fn listen_addr(&self) -> String {
        self.node.bound.clone()
    }

    pub fn state(&self) -> BrokerState {
        self.node.core.borrow().state
    }

    /// The broker epoch of the current registration (-1 before the first success).
    pub fn broker_epoch(&self) -> i64 {
        self.node.core.borrow().broker_epoch
    }

    /// A copy of the broker's metadata image.
    pub fn metadata(&self) -> MetadataImage {
        MetadataImage::clone(&self.node.core.borrow().image)
    }

    /// The state of the coordinator of `__consumer_offsets` partition `partition` on this broker,
    /// with its leader epoch.
    pub fn coordinator_state(&self, partition: i32) -> Option<(super::runtime::ContextState, i32)> {
        self.node.core.borrow().runtime.context_state(partition)
    }

    /// Partitions whose coordinator is active on this broker.
    pub fn active_coordinators(&self) -> Vec<i32> {
        self.node.core.borrow().runtime.active_partitions()
    }

    /// The storage handle (logs survive a restart when the same storage is passed again).
    pub fn storage(&self) -> BrokerStorage {
        self.node.storage.clone()
    }

    /// Waits until the broker is RUNNING (unfenced, client listener open).
    pub async fn wait_running(&self) {
        loop {
            let notified = self.node.running.notified();
            if self.state() == BrokerState::Running || self.node.core.borrow().stopped {
                return;
            }
            notified.await;
        }
    }

    /// Starts a controlled shutdown (Kafka's `beginControlledShutdown`); the broker stops once
    /// the controller says ShouldShutDown (or the controlled-shutdown timeout passes).
    pub fn begin_controlled_shutdown(&self) {
        super::lifecycle::begin_controlled_shutdown(&self.node);
    }

    /// Waits until the broker stopped.
    pub async fn wait_stopped(&self) {
        loop {
            let notified = self.node.stopped.notified();
            if self.node.core.borrow().stopped {
                return;
            }
            notified.await;
        }
    }

    /// Controlled shutdown, then stop (Kafka's orderly `BrokerServer.shutdown`).
    pub async fn shutdown(&self) {
        self.begin_controlled_shutdown();
        let wait = self.node.config.controlled_shutdown_timeout_ms;
        if tokio::time::timeout(std::time::Duration::from_millis(wait), self.wait_stopped())
            .await
            .is_err()
        {
            tracing::warn!(
                broker = self.node_id(),
                "controlled shutdown timed out; stopping anyway"
            );
            super::lifecycle::stop(&self.node);
        }
    }

    /// Kills the broker at once (a crash): tasks stop, nothing is answered, nothing is flushed,
    /// no clean-shutdown marker is written.
    pub fn abort(&self) {
        let tasks: Vec<JoinHandle<()>> = self.node.tasks.borrow_mut().drain(..).collect();
        for t in tasks {
            t.abort();
        }
        let mut core = self.node.core.borrow_mut();
        core.stopped = true;
        core.pending.clear();
        drop(core);
        self.node.stopped.notify_waiters();
    }
}

/// Starts a broker: binds its client listener (requests are served once it is RUNNING) and
/// starts the lifecycle manager, the metadata follower and the coordinator runtime. Must run
/// inside a `LocalSet`.
pub async fn start_broker<N: Net>(
    net: N,
    config: BrokerConfig,
    storage: BrokerStorage,
    events: Events,
) -> io::Result<BrokerHandle<N>> {
    let listener = net.bind(&config.listen).await?;
    let bound = listener.local_addr()?;
    let advertised = config.advertised_endpoint(&bound);
    let previous_broker_epoch = storage.take_clean_shutdown_epoch().unwrap_or(-1);
    let client_id = format!("broker-{}", config.node_id);
    let node = Rc::new(Node {
        heartbeat_rpc: RpcClient::new(net.clone(), config.controller.clone(), client_id.clone()),
        forward_rpc: RpcClient::new(net.clone(), config.controller.clone(), client_id.clone()),
        metadata_rpc: RpcClient::new(net.clone(), config.controller.clone(), client_id),
        core: RefCell::new(Core {
            state: BrokerState::NotRunning,
            broker_epoch: -1,
            ready_to_unfence: false,
            caught_up: false,
            image: PublishedImage::new(),
            metadata_answers: MetadataAnswers::default(),
            unpublished: Some(Vec::new()),
            runtime: CoordinatorRuntime::new(
                config.offsets_topic_partitions,
                config.offsets_commit_timeout_ms,
            ),
            replicas: BTreeMap::new(),
            pending: BTreeMap::new(),
            next_token: 0,
            fetchers: BTreeSet::new(),
            creating: BTreeSet::new(),
            stopped: false,
        }),
        net,
        config,
        events,
        storage,
        advertised,
        bound: bound.clone(),
        previous_broker_epoch,
        lifecycle_wakeup: Notify::new(),
        metadata_applied: Notify::new(),
        log_changed: Notify::new(),
        timers_changed: Notify::new(),
        running: Notify::new(),
        stopped: Notify::new(),
        tasks: RefCell::new(Vec::new()),
        listener_started: Cell::new(false),
        alter_partition_queue: RefCell::new(VecDeque::new()),
        alter_partition_wakeup: Notify::new(),
        topic_creation_queue: RefCell::new(VecDeque::new()),
        topic_creation_wakeup: Notify::new(),
        heartbeat_requested: Cell::new(false),
        shutdown_requested: Cell::new(false),
    });
    tracing::info!(
        broker = node.id(),
        listen = %bound,
        advertised = %format!("{}:{}", node.advertised.0, node.advertised.1),
        controller = %node.config.controller,
        previous_broker_epoch,
        "broker starting"
    );
    let n = node.clone();
    node.spawn(async move { super::lifecycle::run(n).await });
    let n = node.clone();
    node.spawn(async move { super::metadata::run(n).await });
    let n = node.clone();
    node.spawn(async move { super::runtime_shell::run_timers(n).await });
    let n = node.clone();
    node.spawn(async move { super::replica::run_isr_checks(n).await });
    let n = node.clone();
    node.spawn(async move { super::replica::run_alter_partition(n).await });
    let n = node.clone();
    node.spawn(async move { super::metadata::run_topic_creation(n).await });
    let n = node.clone();
    node.spawn(async move { super::server::run(n, listener).await });
    Ok(BrokerHandle { node })
}

/// Starts a broker and runs it until it stops (after a controlled shutdown, a registration
/// timeout, or never). The simulator's broker hosts run this.
pub async fn run_broker<N: Net>(
    net: N,
    config: BrokerConfig,
    storage: BrokerStorage,
    events: Events,
) -> io::Result<()> {
    let handle = start_broker(net, config, storage, events).await?;
    handle.wait_stopped().await;
    Ok(())
}

//! Typed events the controller and brokers report to an observer (the simulator's global event
//! log, a test, or nothing). Every event carries the reporting node and its clock.
//!
//! Reporting never blocks and never fails: a sink is a plain callback.

use std::fmt;
use std::rc::Rc;

use serde::Serialize;

/// The lifecycle state of a broker (`BrokerState`, with Kafka's numeric values).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BrokerState {
    NotRunning = 0,
    Starting = 1,
    Recovery = 2,
    Running = 3,
    PendingControlledShutdown = 6,
    ShuttingDown = 7,
}

impl BrokerState {
    /// Kafka's name, e.g. `PENDING_CONTROLLED_SHUTDOWN`.
    pub fn name(self) -> &'static str {
        match self {
            BrokerState::NotRunning => "NOT_RUNNING",
            BrokerState::Starting => "STARTING",
            BrokerState::Recovery => "RECOVERY",
            BrokerState::Running => "RUNNING",
            BrokerState::PendingControlledShutdown => "PENDING_CONTROLLED_SHUTDOWN",
            BrokerState::ShuttingDown => "SHUTTING_DOWN",
        }
    }
}

impl fmt::Display for BrokerState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why the controller fenced a broker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FenceReason {
    /// The session expired (no heartbeat for more than `broker.session.timeout.ms`).
    SessionExpired,
    /// The broker asked to be fenced (WantFence).
    Requested,
    /// Controlled shutdown completed or a fenced/leaderless broker asked to shut down.
    ShutdownNow,
}

/// What happened.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum EventKind {
    // ---- controller ----
    /// A broker incarnation registered (or re-registered) with this epoch.
    BrokerRegistered {
        broker: i32,
        epoch: i64,
        incarnation: String,
    },
    /// A registration was refused (e.g. DUPLICATE_BROKER_REGISTRATION).
    RegistrationRejected {
        broker: i32,
        error: String,
    },
    BrokerFenced {
        broker: i32,
        epoch: i64,
        reason: FenceReason,
        /// For a session expiry: when the controller last heard from this broker epoch (so a
        /// test can check the 9.0-10.125 s window without an event per heartbeat).
        last_contact_ms: Option<i64>,
    },
    BrokerUnfenced {
        broker: i32,
        epoch: i64,
    },
    /// The broker entered controlled shutdown (its leaderships are being moved).
    ControlledShutdownStarted {
        broker: i32,
        epoch: i64,
    },
    /// The controller told the broker to shut down (ShouldShutDown).
    ShutdownGranted {
        broker: i32,
        epoch: i64,
    },
    /// A heartbeat was refused (e.g. STALE_BROKER_EPOCH).
    HeartbeatRejected {
        broker: i32,
        epoch: i64,
        error: String,
    },
    TopicCreated {
        topic: String,
        partitions: i32,
        replication_factor: i16,
    },
    /// Partitions were added to a topic (CreatePartitions): it now has `partitions`.
    PartitionsAdded {
        topic: String,
        partitions: i32,
    },
    /// A topic was deleted (DeleteTopics).
    TopicDeleted {
        topic: String,
    },
    /// A partition's leader or ISR changed (or the partition was created).
    PartitionChanged {
        topic: String,
        partition: i32,
        leader: i32,
        leader_epoch: i32,
        isr: Vec<i32>,
        elr: Vec<i32>,
    },
    // ---- broker ----
    BrokerStateChanged {
        from: BrokerState,
        to: BrokerState,
    },
    /// The broker applied metadata up to this offset (reported when it changes).
    MetadataApplied {
        offset: i64,
    },
    CoordinatorLoading {
        partition: i32,
        epoch: i32,
    },
    CoordinatorLoaded {
        partition: i32,
        epoch: i32,
        records: usize,
    },
    CoordinatorLoadFailed {
        partition: i32,
        epoch: i32,
        error: String,
    },
    CoordinatorUnloaded {
        partition: i32,
        epoch: i32,
    },
    /// A coordinator write became durable (high watermark passed `end_offset`).
    WriteAcknowledged {
        partition: i32,
        end_offset: i64,
        records: usize,
    },
    /// A coordinator write failed (timeout, leadership lost, unload).
    WriteFailed {
        partition: i32,
        end_offset: i64,
        error: String,
    },
    /// A follower truncated its copy of a partition to follow a new leader.
    ReplicaTruncated {
        topic: String,
        partition: i32,
        to_offset: i64,
    },
    /// The leader asked the controller to change a partition's ISR.
    IsrChangeRequested {
        topic: String,
        partition: i32,
        isr: Vec<i32>,
    },
    /// A connection was closed because of bad input (malformed frame, unknown api, version).
    ConnectionClosed {
        peer: String,
        reason: String,
    },
    /// The broker stopped (after a controlled shutdown or because it was told to).
    BrokerStopped,
}

/// One event: when, where, what.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ClusterEvent {
    pub at_ms: i64,
    /// The reporting node (broker id or controller node id).
    pub node: i32,
    #[serde(flatten)]
    pub kind: EventKind,
}

/// Where events go.
pub trait EventSink {
    fn emit(&self, event: ClusterEvent);

    /// Test hook for the simulator's invariants: broker `node` finished loading the coordinator of
    /// `__consumer_offsets` partition `partition` (its `CoordinatorLoaded` event has been emitted);
    /// `runtime` is the broker's runtime right after the shard's `onLoaded`, before any request or
    /// timer runs on it. Read-only: nothing may change the broker from here. Does nothing unless a
    /// sink overrides it.
    fn coordinator_loaded(
        &self,
        _node: i32,
        _partition: i32,
        _runtime: &crate::broker::runtime::CoordinatorRuntime,
        _now_ms: i64,
    ) {
    }
}

/// Drops every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoEvents;

impl EventSink for NoEvents {
    fn emit(&self, _event: ClusterEvent) {}
}

impl EventSink for tokio::sync::mpsc::UnboundedSender<ClusterEvent> {
    fn emit(&self, event: ClusterEvent) {
        // A closed receiver means nobody listens any more; that is not an error.
        let _ = self.send(event);
    }
}

/// A sink calling a closure.
pub struct FnSink<F>(pub F);

impl<F: Fn(ClusterEvent)> EventSink for FnSink<F> {
    fn emit(&self, event: ClusterEvent) {
        (self.0)(event)
    }
}

/// A shared sink, as components hold it.
pub type Events = Rc<dyn EventSink>;

/// A sink that drops everything.
pub fn no_events() -> Events {
    Rc::new(NoEvents)
}

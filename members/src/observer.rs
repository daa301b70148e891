//! What the client models report: typed events, stamped with the transport's clock, sent to an
//! [`Observer`] the caller hands in (the simulator's global event log, a test's recorder, ...).
//!
//! Ownership events come in two forms: deltas (`TasksAcquired`, `TasksRevoked`, `TasksLost`,
//! `Partitions*`) and, after every change, a snapshot (`OwnedTasks`, `OwnedPartitions`), so an
//! invariant checker can read the current ownership of every member from the last snapshot.

use std::cell::RefCell;
use std::fmt;
use std::rc::Rc;

use protocol::{Api, ErrorCode};

/// A streams task: a subtopology and a partition number.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TaskId {
    pub subtopology: String,
    pub partition: i32,
}

impl TaskId {
    pub fn new(subtopology: impl Into<String>, partition: i32) -> Self {
        Self {
            subtopology: subtopology.into(),
            partition,
        }
    }
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.subtopology, self.partition)
    }
}

/// A topic partition.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TopicPartition {
    pub topic: String,
    pub partition: i32,
}

impl TopicPartition {
    pub fn new(topic: impl Into<String>, partition: i32) -> Self {
        Self {
            topic: topic.into(),
            partition,
        }
    }
}

impl fmt::Display for TopicPartition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.topic, self.partition)
    }
}

/// Which kind of client produced an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ClientKind {
    /// One member thread of a streams process.
    StreamsMember,
    /// A classic consumer.
    Consumer,
    /// An admin client.
    Admin,
    /// A bare connection client (`KafkaClient::standalone`).
    Raw,
    /// A consumer-protocol (KIP-848) consumer: Kafka's `AsyncKafkaConsumer`.
    AsyncConsumer,
}

/// The client an event comes from. `name` is unique per client instance in a run (for a streams
/// thread: `<process name>/StreamThread-<n>`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientRef {
    pub kind: ClientKind,
    pub name: String,
    pub group_id: String,
    pub instance_id: Option<String>,
    /// The streams process id (empty for other clients).
    pub process_id: String,
}

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RequestFailure {
    /// No response within the request timeout; the connection was closed.
    TimedOut,
    /// The connection closed (or could not be opened) before the response arrived.
    Disconnected(String),
    /// The broker does not serve the api at a version this client speaks.
    UnsupportedVersion,
    /// The frame could not be encoded or the response could not be decoded.
    Wire(String),
}

impl fmt::Display for RequestFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RequestFailure::TimedOut => f.write_str("request timed out"),
            RequestFailure::Disconnected(why) => write!(f, "disconnected: {why}"),
            RequestFailure::UnsupportedVersion => f.write_str("unsupported version"),
            RequestFailure::Wire(why) => write!(f, "wire error: {why}"),
        }
    }
}

/// One IQ endpoint and the partitions it serves, as a streams member last received them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EndpointPartitions {
    pub host: String,
    pub port: u16,
    pub active: Vec<TopicPartition>,
    pub standby: Vec<TopicPartition>,
}

/// What happened.
#[derive(Debug, Clone, PartialEq)]
pub enum EventKind {
    // --- transport -------------------------------------------------------------------------
    Connected {
        broker: String,
    },
    ConnectFailed {
        broker: String,
        error: String,
    },
    Disconnected {
        broker: String,
        reason: String,
    },
    RequestSent {
        broker: String,
        api: Api,
        version: i16,
        correlation_id: i32,
    },
    /// A response arrived; `error` is its top-level (or first) error code, if any.
    ResponseReceived {
        broker: String,
        api: Api,
        correlation_id: i32,
        error: Option<ErrorCode>,
    },
    RequestFailed {
        broker: String,
        api: Api,
        correlation_id: i32,
        failure: RequestFailure,
    },
    CoordinatorFound {
        node_id: i32,
        broker: String,
    },
    CoordinatorUnknown {
        reason: String,
    },

    // --- membership ------------------------------------------------------------------------
    /// The client's membership state machine moved (Kafka's `MemberState` names for streams
    /// members, `AbstractCoordinator.MemberState` names for consumers).
    StateChanged {
        from: &'static str,
        to: &'static str,
    },
    /// A join succeeded: the first successful heartbeat after an epoch-0 join (streams, with the
    /// epoch it returned) or a successful JoinGroup (classic, with the generation).
    Joined {
        epoch: i32,
    },
    /// The member epoch (streams) or generation (classic) changed.
    EpochChanged {
        from: i32,
        to: i32,
    },
    TasksAcquired {
        active: Vec<TaskId>,
        standby: Vec<TaskId>,
        warmup: Vec<TaskId>,
    },
    TasksRevoked {
        active: Vec<TaskId>,
        standby: Vec<TaskId>,
        warmup: Vec<TaskId>,
    },
    /// Tasks dropped without a commit (fenced, fatal error, crash of the member's view).
    TasksLost {
        active: Vec<TaskId>,
        standby: Vec<TaskId>,
        warmup: Vec<TaskId>,
    },
    /// A successful streams heartbeat response carried the member's task lists: the assignment the
    /// coordinator told the member about (Kafka 4.4 sends them only on a join or when that very
    /// heartbeat changed the member's assigned tasks), before the member reconciles to it.
    AssignmentReceived {
        epoch: i32,
        active: Vec<TaskId>,
        standby: Vec<TaskId>,
        warmup: Vec<TaskId>,
    },
    /// The member's owned tasks after a change (the snapshot invariants read).
    OwnedTasks {
        epoch: i32,
        active: Vec<TaskId>,
        standby: Vec<TaskId>,
        warmup: Vec<TaskId>,
    },
    PartitionsAssigned {
        partitions: Vec<TopicPartition>,
    },
    PartitionsRevoked {
        partitions: Vec<TopicPartition>,
    },
    PartitionsLost {
        partitions: Vec<TopicPartition>,
    },
    /// A consumer's owned partitions after a change, with its generation.
    OwnedPartitions {
        generation: i32,
        partitions: Vec<TopicPartition>,
    },
    /// An OffsetCommit was accepted for every partition.
    CommitAccepted {
        epoch: i32,
        offsets: Vec<(TopicPartition, i64)>,
    },
    /// The coordinator answered an OffsetCommit with an error.
    CommitRejected {
        epoch: i32,
        error: ErrorCode,
        partitions: Vec<TopicPartition>,
    },
    /// An OffsetCommit got no answer (timeout, disconnect, no coordinator) and was given up.
    CommitFailed {
        epoch: i32,
        reason: String,
    },
    /// Committed offsets read when tasks or partitions were started.
    OffsetsFetched {
        offsets: Vec<(TopicPartition, i64)>,
    },
    /// The member learned it is no longer part of the group (FENCED_MEMBER_EPOCH or
    /// UNKNOWN_MEMBER_ID for streams; ILLEGAL_GENERATION / UNKNOWN_MEMBER_ID for classic).
    Fenced {
        error: ErrorCode,
        epoch: i32,
    },
    /// A fatal error: the member stops taking part in the group.
    Fatal {
        error: Option<ErrorCode>,
        message: String,
    },
    /// A streams heartbeat response's status list changed.
    Statuses {
        statuses: Vec<(i8, String)>,
    },
    /// New IQ endpoint information.
    EndpointsUpdated {
        epoch: i32,
        endpoints: Vec<EndpointPartitions>,
    },
    /// A leave was sent (streams: heartbeat with epoch -1 or -2; classic: LeaveGroup).
    LeaveSent {
        epoch: i32,
    },
    /// The client stopped (gracefully or not).
    Stopped {
        graceful: bool,
    },
}

/// One event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The transport's clock when the event happened.
    pub at_ms: i64,
    pub client: ClientRef,
    /// The member id at the time (empty before a classic member got one).
    pub member_id: String,
    pub kind: EventKind,
}

/// Receives every event of the clients it was handed to.
pub trait Observer {
    fn observe(&self, event: Event);
}

/// Discards events.
#[derive(Debug, Default, Clone, Copy)]
pub struct NullObserver;

impl Observer for NullObserver {
    fn observe(&self, _event: Event) {}
}

/// Keeps every event in order; clones share the same log.
#[derive(Debug, Default, Clone)]
pub struct EventLog {
    events: Rc<RefCell<Vec<Event>>>,
}

impl EventLog {
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of every event so far.
    pub fn events(&self) -> Vec<Event> {
        self.events.borrow().clone()
    }

    pub fn len(&self) -> usize {
        self.events.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.events.borrow().is_empty()
    }

    /// The events for which `f` is true.
    pub fn filter(&self, f: impl Fn(&Event) -> bool) -> Vec<Event> {
        self.events
            .borrow()
            .iter()
            .filter(|e| f(e))
            .cloned()
            .collect()
    }
}

impl Observer for EventLog {
    fn observe(&self, event: Event) {
        self.events.borrow_mut().push(event);
    }
}

/// The clock events are stamped with (the transport's `now_ms`).
pub(crate) type Clock = Rc<dyn Fn() -> i64>;

/// Stamps and sends one client's events.
#[derive(Clone)]
pub(crate) struct Emitter {
    observer: Rc<dyn Observer>,
    clock: Clock,
    client: Rc<ClientRef>,
    member_id: Rc<RefCell<String>>,
}

impl Emitter {
    pub(crate) fn new(observer: Rc<dyn Observer>, clock: Clock, client: ClientRef) -> Self {
        Self {
            observer,
            clock,
            client: Rc::new(client),
            member_id: Rc::new(RefCell::new(String::new())),
        }
    }

    pub(crate) fn now_ms(&self) -> i64 {
        (self.clock)()
    }

    pub(crate) fn set_member_id(&self, member_id: &str) {
        if *self.member_id.borrow() != member_id {
            *self.member_id.borrow_mut() = member_id.to_string();
        }
    }

    pub(crate) fn emit(&self, kind: EventKind) {
        tracing::debug!(client = %self.client.name, ?kind, "event");
        self.observer.observe(Event {
            at_ms: self.now_ms(),
            client: (*self.client).clone(),
            member_id: self.member_id.borrow().clone(),
            kind,
        });
    }
}

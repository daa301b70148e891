//! Faults: what a scenario schedules (or swarm mode draws) and the runner injects between steps.
//!
//! A [`FaultWindow`] starts at `at_ms` and, when it has a duration, heals itself at
//! `at_ms + duration_ms` (a crashed host restarts, a partition is repaired, a paused process is
//! released, ...). Hosts are named through [`HostRef`], resolved when the fault fires: "the
//! coordinator of group g" is whichever broker leads g's offsets partition at that moment, and
//! the heal acts on the hosts the start resolved. Every start and heal is recorded in the event
//! log with the resolved hosts, so a test can assert the fault happened.
//!
//! Overlapping network faults on one link share turmoil's single link state: the first heal
//! repairs the link for both. When the last window has ended the runner heals everything (repairs
//! and releases every link, restarts every crashed host, resumes stalled heartbeats), so the
//! liveness phase starts from a healthy cluster.

use serde::{Deserialize, Serialize};

/// A host, by name or by role.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "ref", content = "value")]
pub enum HostRef {
    /// A host by name (`controller`, `broker-2`, `streams-app-0`, `classic-g-1`, `admin`).
    Named(String),
    Controller,
    /// Broker `node id`.
    Broker(i32),
    /// The broker leading the `__consumer_offsets` partition of this group when the fault fires.
    CoordinatorOf(String),
    /// The process running the leader of classic group `group` when the fault fires.
    ClassicLeaderOf(String),
    /// Process `index` (from 0) of the streams application or classic group `group`.
    Process {
        group: String,
        index: usize,
    },
    /// Every process of the streams application or classic group `group`.
    Group(String),
    /// Every broker.
    Brokers,
}

impl HostRef {
    pub fn named(name: impl Into<String>) -> Self {
        HostRef::Named(name.into())
    }

    pub fn process(group: impl Into<String>, index: usize) -> Self {
        HostRef::Process {
            group: group.into(),
            index,
        }
    }

    pub fn coordinator_of(group: impl Into<String>) -> Self {
        HostRef::CoordinatorOf(group.into())
    }

    pub fn group(group: impl Into<String>) -> Self {
        HostRef::Group(group.into())
    }
}

/// What goes wrong. Faults naming one `host` act on every host it resolves to (a
/// [`HostRef::Group`] crashes, pauses, ... every process of the group).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "kind"
)]
pub enum FaultKind {
    /// Both directions between every host of `a` and every host of `b` drop (in-flight messages
    /// too). Heal: repair.
    Partition { a: Vec<HostRef>, b: Vec<HostRef> },
    /// Messages from `from` to `to` drop; the other direction flows. Heal: repair that direction.
    PartitionOneway {
        from: Vec<HostRef>,
        to: Vec<HostRef>,
    },
    /// `host` is cut off from every other host. Heal: repair.
    Isolate { host: HostRef },
    /// Messages between `a` and `b` are parked (in-flight ones too). Heal: release (delivered
    /// late, in order).
    Hold { a: Vec<HostRef>, b: Vec<HostRef> },
    /// Links between `a` and `b` get a maximum latency of `max_ms`. Heal: the cluster's latency.
    Latency {
        a: Vec<HostRef>,
        b: Vec<HostRef>,
        max_ms: u64,
    },
    /// Links between `a` and `b` fail with probability `rate` per message (turmoil's link flap:
    /// the link drops everything in flight; TCP streams on it stall). Heal: rate 0.
    FailRate {
        a: Vec<HostRef>,
        b: Vec<HostRef>,
        rate: f64,
    },
    /// The host's software crashes (sockets close; peers see FIN). Heal: restart.
    Crash { host: HostRef },
    /// The host is isolated, then crashed: peers see nothing (half-open connections). Heal:
    /// restart, then repair.
    SilentDeath { host: HostRef },
    /// Every link of the host is held: its members keep running as zombies but nothing they
    /// send or are sent arrives. Heal: release.
    Pause { host: HostRef },
    /// The member threads (`thread` from 1, or all) of a process stop heartbeating but keep
    /// processing and committing. Heal: heartbeats resume.
    StallHeartbeats {
        host: HostRef,
        thread: Option<usize>,
    },
    /// The partition assignor of a classic group's process is stuck (a slow custom assignor, a
    /// long pause of the poll thread): a consumer of the process elected leader meanwhile sends
    /// no SyncGroup while its heartbeats go on, so the coordinator's pending-sync timeout (the
    /// rebalance timeout) is what removes it. No effect on a streams process (its assignment is
    /// the coordinator's). Heal: the held assignment is sent.
    StallAssignment { host: HostRef },
    /// The broker loses its links to the controller only, so the controller fences it while its
    /// clients can still reach it. Heal: repair.
    FenceBroker { broker: HostRef },
    /// A process closes gracefully (commits, leaves). Heal: it starts again with the same state.
    StopProcess { host: HostRef },
    /// A topic is created through a broker (CreateTopics).
    CreateTopic { name: String, partitions: i32 },
    /// A dormant process starts (scale-out). Instantaneous.
    StartProcess { host: HostRef },
    /// A process closes gracefully for good (scale-in): its members leave and are no longer
    /// expected when the groups converge. Instantaneous.
    RemoveProcess { host: HostRef },
    /// A streams process asks its group to shut the whole application down (Kafka Streams'
    /// SHUTDOWN_APPLICATION): every member of the group is expected to leave. Instantaneous.
    ShutdownApplication { host: HostRef },
    /// The broker begins a controlled shutdown (its leaderships move first) and stops. Heal:
    /// restart.
    ControlledShutdown { broker: HostRef },
    /// The admin client removes static members by instance id (LeaveGroup with member id "").
    /// Instantaneous.
    RemoveStaticMembers {
        group: String,
        instance_ids: Vec<String>,
    },
    /// A late heartbeat of the broker's previous incarnation (its previous broker epoch) reaches
    /// the controller (sent by the admin host on the old incarnation's behalf). Instantaneous.
    StaleBrokerHeartbeat { broker: HostRef },
    /// A topic grows to `total` partitions (CreatePartitions at the controller).
    AddPartitions { topic: String, total: i32 },
    /// A topic is deleted (DeleteTopics at the controller).
    DeleteTopic { name: String },
    /// A consumer group's process closes gracefully and starts again speaking `protocol`
    /// (`group.protocol`): one step of Kafka's rolling upgrade from the classic protocol to the
    /// consumer protocol, or of the rolling downgrade back (KIP-848, online migration).
    /// Instantaneous, it restarts at once; with a duration it stays down until the heal (a static
    /// member away past its session). A stopped process starts with it at its next start.
    SwitchProtocol {
        host: HostRef,
        protocol: crate::spec::GroupProtocol,
    },
    /// The admin client makes one group administration call; its answer is recorded in the event
    /// log (`HarnessEvent::AdminAnswered`) for the scenario's check. Instantaneous (the calls run
    /// one after another on the admin host, each retrying until Kafka's admin timeout).
    GroupAdmin { group: String, call: GroupAdminCall },
}

/// A group administration call of Kafka's `Admin` client.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "call"
)]
pub enum GroupAdminCall {
    /// `describeConsumerGroups` (DescribeGroups) of a classic group, `describeStreamsGroups`
    /// (StreamsGroupDescribe) of a streams application's group.
    Describe,
    /// `listGroups`: ListGroups to every broker.
    List,
    /// `listConsumerGroupOffsets`: OffsetFetch of every partition.
    FetchOffsets,
    /// `deleteConsumerGroupOffsets`: OffsetDelete.
    DeleteOffsets { topic: String, partitions: Vec<i32> },
    /// `alterConsumerGroupOffsets`: OffsetCommit with generation -1 and no member id.
    AlterOffsets {
        topic: String,
        partitions: Vec<i32>,
        offset: i64,
    },
    /// `deleteConsumerGroups`: DeleteGroups.
    Delete,
    /// The rude client: the request lines of a `regroup script` (JSON lines, as the oracle's
    /// corpus holds them), each sent once, in order, at exactly its version, to the coordinator of
    /// the group its body names; each answer is logged as that line's response JSON. Bad
    /// requests, old versions and inputs no modelled client sends reach the coordinator this way;
    /// the script's `expect`s say what Kafka answers, and the scenario's check holds them
    /// (sim/src/rude.rs).
    Scripted { script: String },
}

impl GroupAdminCall {
    /// A short name (the event log's `call` field).
    pub fn name(&self) -> &'static str {
        match self {
            GroupAdminCall::Describe => "describe",
            GroupAdminCall::List => "list",
            GroupAdminCall::FetchOffsets => "fetch-offsets",
            GroupAdminCall::DeleteOffsets { .. } => "delete-offsets",
            GroupAdminCall::AlterOffsets { .. } => "alter-offsets",
            GroupAdminCall::Delete => "delete",
            GroupAdminCall::Scripted { .. } => "scripted",
        }
    }
}

impl FaultKind {
    /// A short name (the swarm's kind names, the event log's `fault` field).
    pub fn name(&self) -> &'static str {
        match self {
            FaultKind::Partition { .. } => "partition",
            FaultKind::PartitionOneway { .. } => "partition-oneway",
            FaultKind::Isolate { .. } => "isolate",
            FaultKind::Hold { .. } => "hold",
            FaultKind::Latency { .. } => "latency",
            FaultKind::FailRate { .. } => "fail-rate",
            FaultKind::Crash { .. } => "crash",
            FaultKind::SilentDeath { .. } => "silent-death",
            FaultKind::Pause { .. } => "pause",
            FaultKind::StallHeartbeats { .. } => "stall-heartbeats",
            FaultKind::StallAssignment { .. } => "stall-assignment",
            FaultKind::FenceBroker { .. } => "fence-broker",
            FaultKind::StopProcess { .. } => "stop-process",
            FaultKind::CreateTopic { .. } => "create-topic",
            FaultKind::StartProcess { .. } => "start-process",
            FaultKind::RemoveProcess { .. } => "remove-process",
            FaultKind::ShutdownApplication { .. } => "shutdown-application",
            FaultKind::ControlledShutdown { .. } => "controlled-shutdown",
            FaultKind::RemoveStaticMembers { .. } => "remove-static-members",
            FaultKind::StaleBrokerHeartbeat { .. } => "stale-broker-heartbeat",
            FaultKind::AddPartitions { .. } => "add-partitions",
            FaultKind::DeleteTopic { .. } => "delete-topic",
            FaultKind::GroupAdmin { .. } => "group-admin",
            FaultKind::SwitchProtocol { .. } => "switch-protocol",
        }
    }
}

/// One fault: when it starts, how long it lasts (`None`: it is instantaneous, or lasts until the
/// final heal).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaultWindow {
    pub at_ms: u64,
    pub duration_ms: Option<u64>,
    /// An epilogue fault (instantaneous): it starts at `at_ms` or later, once the final heal is
    /// past and every group has converged; the run then waits, within the convergence bound, for
    /// the groups to converge to what it implies (a group asked to shut down ends empty). For a
    /// fault that must find the cluster settled: a lingering after-effect of the faults would
    /// decide its outcome otherwise.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub after_convergence: bool,
    #[serde(flatten)]
    pub kind: FaultKind,
}

impl FaultWindow {
    pub fn at(at_ms: u64, kind: FaultKind) -> Self {
        Self {
            at_ms,
            duration_ms: None,
            after_convergence: false,
            kind,
        }
    }

    /// Makes the window an epilogue fault (see [`FaultWindow::after_convergence`]).
    pub fn after_convergence(mut self) -> Self {
        self.after_convergence = true;
        self.duration_ms = None;
        self
    }

    pub fn lasting(mut self, duration_ms: u64) -> Self {
        self.duration_ms = Some(duration_ms);
        self
    }

    /// When the window heals itself (its start for instantaneous faults).
    pub fn end_ms(&self) -> u64 {
        self.at_ms + self.duration_ms.unwrap_or(0)
    }
}

/// The faults of one run, in start order.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultSchedule {
    pub windows: Vec<FaultWindow>,
}

impl FaultSchedule {
    pub fn new(mut windows: Vec<FaultWindow>) -> Self {
        // Stable: windows starting at the same time keep the order they were written in.
        windows.sort_by_key(|w| w.at_ms);
        Self { windows }
    }

    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// When the last window has ended (0 without faults): the final heal, and the start of the
    /// liveness phase. Epilogue windows come after it.
    pub fn heal_ms(&self) -> u64 {
        self.windows
            .iter()
            .filter(|w| !w.after_convergence)
            .map(FaultWindow::end_ms)
            .max()
            .unwrap_or(0)
    }

    /// The earliest time the epilogue may start (the latest start of its windows), if it has any.
    pub fn epilogue_ms(&self) -> Option<u64> {
        self.windows
            .iter()
            .filter(|w| w.after_convergence)
            .map(|w| w.at_ms)
            .max()
    }
}

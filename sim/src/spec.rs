//! What a simulated cluster is made of: the declarative description a scenario writes and the
//! builder ([`crate::cluster`]) turns into turmoil hosts.

use std::collections::{BTreeMap, BTreeSet};

use kafka_bugs::{KafkaBug, KafkaBugs};
use members::classic::Assignor;
use members::streams::topology::Topology;
use serde::{Deserialize, Serialize};

/// A topic created when the cluster starts (before any member process starts).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicSpec {
    pub name: String,
    pub partitions: i32,
    /// Defaults to the cluster's broker count, at most 3.
    pub replication_factor: Option<i16>,
}

impl TopicSpec {
    pub fn new(name: impl Into<String>, partitions: i32) -> Self {
        Self {
            name: name.into(),
            partitions,
            replication_factor: None,
        }
    }
}

/// A Kafka Streams application: `processes` processes (one turmoil host each) of `threads`
/// member threads.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsAppSpec {
    /// `application.id` (the group id).
    pub application_id: String,
    pub processes: usize,
    pub threads: usize,
    pub topology: Topology,
    /// `streams.num.standby.replicas` for this group.
    pub num_standby_replicas: i32,
    /// Static members (`group.instance.id` = `<app>-<process index>`, threads `-1`, `-2`, ...).
    pub static_membership: bool,
    /// `streams.session.timeout.ms` for this group.
    pub session_timeout_ms: i32,
    /// `streams.heartbeat.interval.ms` for this group.
    pub heartbeat_interval_ms: i32,
    /// `streams.initial.rebalance.delay.ms` for this group.
    pub initial_rebalance_delay_ms: i32,
    /// `max.poll.interval.ms` of the clients (the rebalance timeout they send).
    pub max_poll_interval_ms: i32,
    /// `commit.interval.ms` of the clients.
    pub commit_interval_ms: u64,
    /// `request.timeout.ms` of the clients.
    pub request_timeout_ms: u64,
    /// Processes (by index) that do not start with the cluster: a `start-process` fault starts
    /// them (scale-out).
    pub dormant: Vec<usize>,
    /// Per process index: how long its revocation callback takes (default 0).
    pub revocation_latency_ms: BTreeMap<usize, u64>,
    /// Per process index: the topology epoch it sends instead of the topology's own.
    pub topology_epochs: BTreeMap<usize, i32>,
    /// Every process advertises an IQ endpoint (`application.server` = `<host>:8080`).
    pub application_server: bool,
}

impl StreamsAppSpec {
    /// An application with simulation-friendly timeouts: 10 s sessions, 1 s heartbeats, no
    /// initial delay, 20 s rebalance timeout, 5 s commits and request timeouts.
    pub fn new(
        application_id: impl Into<String>,
        topology: Topology,
        processes: usize,
        threads: usize,
    ) -> Self {
        Self {
            application_id: application_id.into(),
            processes,
            threads,
            topology,
            num_standby_replicas: 0,
            static_membership: false,
            session_timeout_ms: 10_000,
            heartbeat_interval_ms: 1_000,
            initial_rebalance_delay_ms: 0,
            max_poll_interval_ms: 20_000,
            commit_interval_ms: 5_000,
            request_timeout_ms: 5_000,
            dormant: Vec::new(),
            revocation_latency_ms: BTreeMap::new(),
            topology_epochs: BTreeMap::new(),
            application_server: false,
        }
    }

    /// Processes `indexes` start only when a `start-process` fault starts them.
    pub fn with_dormant(mut self, indexes: impl IntoIterator<Item = usize>) -> Self {
        self.dormant.extend(indexes);
        self
    }

    pub fn with_standbys(mut self, n: i32) -> Self {
        self.num_standby_replicas = n;
        self
    }

    pub fn with_static_membership(mut self) -> Self {
        self.static_membership = true;
        self
    }

    /// The number of member threads of the application.
    pub fn members(&self) -> usize {
        self.processes * self.threads
    }
}

/// A classic consumer group: `processes` hosts running `consumers_per_process` consumers each.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassicGroupSpec {
    pub group_id: String,
    pub processes: usize,
    pub consumers_per_process: usize,
    pub topics: Vec<String>,
    /// Static members (`group.instance.id` = `<group>-<process>-<consumer>`).
    pub static_membership: bool,
    pub assignors: Vec<Assignor>,
    pub session_timeout_ms: i32,
    pub heartbeat_interval_ms: u64,
    /// `max.poll.interval.ms`: the rebalance timeout.
    pub max_poll_interval_ms: i32,
    pub auto_commit_interval_ms: u64,
    pub request_timeout_ms: u64,
    /// Processes (by index) that start only when a `start-process` fault starts them.
    pub dormant: Vec<usize>,
    /// With static membership: only these processes' consumers are static (`None`: all).
    pub static_processes: Option<Vec<usize>>,
    /// Process `a` (key) reuses the instance ids of process `b` (value): duplicate instance ids.
    pub instance_ids_of: BTreeMap<usize, usize>,
    /// The consumers of process `index` (key) list these assignors instead of `assignors`: a group
    /// whose members prefer different protocols (a rolling change of assignor).
    pub assignors_of: BTreeMap<usize, Vec<Assignor>>,
}

impl ClassicGroupSpec {
    /// A group with simulation-friendly timeouts: 10 s sessions, 1 s heartbeats, 20 s rebalance
    /// timeout, 2 s auto-commit, 5 s request timeouts, range assignor.
    pub fn new(
        group_id: impl Into<String>,
        topics: &[&str],
        processes: usize,
        consumers_per_process: usize,
    ) -> Self {
        Self {
            group_id: group_id.into(),
            processes,
            consumers_per_process,
            topics: topics.iter().map(|t| t.to_string()).collect(),
            static_membership: false,
            assignors: vec![Assignor::Range],
            session_timeout_ms: 10_000,
            heartbeat_interval_ms: 1_000,
            max_poll_interval_ms: 20_000,
            auto_commit_interval_ms: 2_000,
            request_timeout_ms: 5_000,
            dormant: Vec::new(),
            static_processes: None,
            instance_ids_of: BTreeMap::new(),
            assignors_of: BTreeMap::new(),
        }
    }

    /// Processes `indexes` start only when a `start-process` fault starts them.
    pub fn with_dormant(mut self, indexes: impl IntoIterator<Item = usize>) -> Self {
        self.dormant.extend(indexes);
        self
    }

    /// The instance id of consumer `n` of process `index`, if it is static.
    pub fn instance_id(&self, index: usize, n: usize) -> Option<String> {
        let is_static = self.static_membership
            && self
                .static_processes
                .as_ref()
                .is_none_or(|p| p.contains(&index));
        let owner = self.instance_ids_of.get(&index).copied().unwrap_or(index);
        is_static.then(|| format!("{}-{owner}-{n}", self.group_id))
    }

    pub fn with_static_membership(mut self) -> Self {
        self.static_membership = true;
        self
    }

    pub fn members(&self) -> usize {
        self.processes * self.consumers_per_process
    }
}

/// A consumer-protocol (KIP-848) group: `processes` hosts running `consumers_per_process`
/// consumers each (Kafka's `AsyncKafkaConsumer` with `group.protocol=consumer`).
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerGroupSpec {
    pub group_id: String,
    pub processes: usize,
    pub consumers_per_process: usize,
    pub topics: Vec<String>,
    /// A broker-side regular expression the members subscribe with instead of `topics`
    /// (`subscribe(SubscriptionPattern)`): the coordinator resolves it over the cluster's topics.
    pub topic_regex: Option<String>,
    /// Static members (`group.instance.id` = `<group>-<process>-<consumer>`).
    pub static_membership: bool,
    /// `group.remote.assignor` (None: the coordinator's default, `uniform`).
    pub server_assignor: Option<String>,
    /// `consumer.session.timeout.ms` for this group.
    pub session_timeout_ms: i32,
    /// `consumer.heartbeat.interval.ms` for this group.
    pub heartbeat_interval_ms: i32,
    /// `max.poll.interval.ms` of the clients: the rebalance timeout.
    pub max_poll_interval_ms: i32,
    pub auto_commit_interval_ms: u64,
    pub request_timeout_ms: u64,
    /// Processes (by index) that start only when a `start-process` fault starts them.
    pub dormant: Vec<usize>,
    /// Per process index: how long its `onPartitionsRevoked` takes (default 0).
    pub revocation_latency_ms: BTreeMap<usize, u64>,
    /// Processes (by index) whose first incarnation speaks the classic protocol (Kafka's
    /// `ClassicKafkaConsumer`, `group.protocol=classic`) instead of the consumer protocol; a
    /// `switch-protocol` fault restarts a process with the other one (online migration, KIP-848's
    /// rolling upgrade and downgrade). Their configs come from the same group settings
    /// ([`crate::cluster::classic_configs_of`]); a static member keeps its instance id in both.
    pub classic_processes: BTreeSet<usize>,
    /// The assignors a classic incarnation lists (its JoinGroup protocols).
    pub classic_assignors: Vec<Assignor>,
}

/// The rebalance protocol a consumer speaks (`group.protocol`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum GroupProtocol {
    /// JoinGroup / SyncGroup / Heartbeat / LeaveGroup.
    Classic,
    /// ConsumerGroupHeartbeat (KIP-848).
    Consumer,
}

impl GroupProtocol {
    pub fn name(self) -> &'static str {
        match self {
            GroupProtocol::Classic => "classic",
            GroupProtocol::Consumer => "consumer",
        }
    }
}

impl ConsumerGroupSpec {
    /// A group with simulation-friendly timeouts: 10 s sessions, 1 s heartbeats, 20 s rebalance
    /// timeout, 2 s auto-commit, 5 s request timeouts, the default (uniform) assignor.
    pub fn new(
        group_id: impl Into<String>,
        topics: &[&str],
        processes: usize,
        consumers_per_process: usize,
    ) -> Self {
        Self {
            group_id: group_id.into(),
            processes,
            consumers_per_process,
            topics: topics.iter().map(|t| t.to_string()).collect(),
            topic_regex: None,
            static_membership: false,
            server_assignor: None,
            session_timeout_ms: 10_000,
            heartbeat_interval_ms: 1_000,
            max_poll_interval_ms: 20_000,
            auto_commit_interval_ms: 2_000,
            request_timeout_ms: 5_000,
            dormant: Vec::new(),
            revocation_latency_ms: BTreeMap::new(),
            classic_processes: BTreeSet::new(),
            classic_assignors: vec![Assignor::Range],
        }
    }

    /// Processes `indexes` start only when a `start-process` fault starts them.
    pub fn with_dormant(mut self, indexes: impl IntoIterator<Item = usize>) -> Self {
        self.dormant.extend(indexes);
        self
    }

    pub fn with_static_membership(mut self) -> Self {
        self.static_membership = true;
        self
    }

    /// Processes `indexes` start speaking the classic protocol.
    pub fn with_classic_processes(mut self, indexes: impl IntoIterator<Item = usize>) -> Self {
        self.classic_processes.extend(indexes);
        self
    }

    /// The protocol process `index` starts with.
    pub fn protocol_of(&self, index: usize) -> GroupProtocol {
        if self.classic_processes.contains(&index) {
            GroupProtocol::Classic
        } else {
            GroupProtocol::Consumer
        }
    }

    pub fn with_server_assignor(mut self, assignor: &str) -> Self {
        self.server_assignor = Some(assignor.to_string());
        self
    }

    /// The members subscribe with the RE2J pattern `regex` and no topic names.
    pub fn with_topic_regex(mut self, regex: &str) -> Self {
        self.topics.clear();
        self.topic_regex = Some(regex.to_string());
        self
    }

    /// The instance id of consumer `n` of process `index`, if the group is static.
    pub fn instance_id(&self, index: usize, n: usize) -> Option<String> {
        self.static_membership
            .then(|| format!("{}-{index}-{n}", self.group_id))
    }

    pub fn members(&self) -> usize {
        self.processes * self.consumers_per_process
    }
}

/// Message latency of every link: uniform between the bounds is not what turmoil does; it draws
/// `min + (max - min) * Exp(λ = 5)` capped at `max` (mean about `min + 0.2 (max - min)`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Latency {
    pub min_ms: u64,
    pub max_ms: u64,
}

/// The whole cluster.
#[derive(Debug, Clone, PartialEq)]
pub struct ClusterSpec {
    /// Broker count (node ids 1..=N, hosts `broker-1`..).
    pub brokers: usize,
    /// `offsets.topic.num.partitions` (Kafka's default is 50; few partitions keep runs cheap).
    pub offsets_partitions: i32,
    /// `offsets.topic.replication.factor` (defaults to min(brokers, 3)).
    pub offsets_replication: Option<i16>,
    /// Broker configs by Kafka's names, for every broker (the controller takes the keys it knows,
    /// e.g. `broker.session.timeout.ms`).
    pub broker_configs: BTreeMap<String, String>,
    pub topics: Vec<TopicSpec>,
    pub streams_apps: Vec<StreamsAppSpec>,
    pub classic_groups: Vec<ClassicGroupSpec>,
    /// Consumer-protocol groups (KIP-848).
    pub consumer_groups: Vec<ConsumerGroupSpec>,
    /// Simulated time per turmoil step. Timers inside a host fire at their exact times whatever
    /// the tick; messages are delivered at step boundaries, so the tick bounds the network's time
    /// resolution. The default, 20 ms, was chosen from measurements (docs/cost.md): every host
    /// costs about a microsecond per step even when idle, so 25 hosts at 10 ms spend 2.5 ms of
    /// each simulated second on stepping alone; at 20 ms a round trip (at most two ticks) is still
    /// 25x shorter than the shortest heartbeat interval the catalogue uses (1 s).
    pub tick_ms: u64,
    pub latency: Latency,
    /// turmoil's `tcp_capacity` (per-stream buffer and listener backlog); `None` sizes it from
    /// the connection count.
    pub tcp_capacity: Option<usize>,
    /// The Kafka bugs switched on in every broker and client (`regroup bugs` lists them); none by
    /// default, which is Kafka 4.4.0.
    pub kafka_bugs: KafkaBugs,
}

impl Default for ClusterSpec {
    fn default() -> Self {
        Self {
            brokers: 3,
            offsets_partitions: 3,
            offsets_replication: None,
            broker_configs: BTreeMap::new(),
            topics: Vec::new(),
            streams_apps: Vec::new(),
            classic_groups: Vec::new(),
            consumer_groups: Vec::new(),
            tick_ms: 20,
            latency: Latency {
                min_ms: 1,
                max_ms: 10,
            },
            tcp_capacity: None,
            kafka_bugs: KafkaBugs::none(),
        }
    }
}

impl ClusterSpec {
    pub fn with_brokers(mut self, n: usize) -> Self {
        self.brokers = n;
        self
    }

    pub fn with_topic(mut self, name: &str, partitions: i32) -> Self {
        self.topics.push(TopicSpec::new(name, partitions));
        self
    }

    pub fn with_streams(mut self, app: StreamsAppSpec) -> Self {
        self.streams_apps.push(app);
        self
    }

    pub fn with_classic(mut self, group: ClassicGroupSpec) -> Self {
        self.classic_groups.push(group);
        self
    }

    pub fn with_consumer(mut self, group: ConsumerGroupSpec) -> Self {
        self.consumer_groups.push(group);
        self
    }

    pub fn with_broker_config(mut self, key: &str, value: impl ToString) -> Self {
        self.broker_configs
            .insert(key.to_string(), value.to_string());
        self
    }

    /// Switches a Kafka bug on (see the `kafka_bugs` crate).
    pub fn with_kafka_bug(mut self, bug: KafkaBug) -> Self {
        self.kafka_bugs.insert(bug);
        self
    }

    pub fn with_tick_ms(mut self, tick_ms: u64) -> Self {
        self.tick_ms = tick_ms;
        self
    }

    /// Member threads and consumers of every group.
    pub fn member_count(&self) -> usize {
        self.streams_apps
            .iter()
            .map(StreamsAppSpec::members)
            .sum::<usize>()
            + self
                .classic_groups
                .iter()
                .map(ClassicGroupSpec::members)
                .sum::<usize>()
            + self
                .consumer_groups
                .iter()
                .map(ConsumerGroupSpec::members)
                .sum::<usize>()
    }

    /// The replication factor of `__consumer_offsets`.
    pub fn offsets_rf(&self) -> i16 {
        self.offsets_replication
            .unwrap_or_else(|| self.brokers.min(3) as i16)
    }

    /// turmoil's `tcp_capacity`: every member keeps up to one connection per broker and a
    /// reconnect storm may put all their SYNs into one listener's backlog in one tick (turmoil
    /// panics when the backlog is full), so the capacity covers every member connecting to every
    /// broker at once, with room for the brokers' own links.
    pub fn effective_tcp_capacity(&self) -> usize {
        self.tcp_capacity.unwrap_or_else(|| {
            let peers = self.member_count() + self.brokers + 4;
            (peers * 2).max(64)
        })
    }
}

//! A classic consumer's configuration (Kafka's `ConsumerConfig` names and defaults), plus the
//! knobs standing in for the application's work.

use std::collections::BTreeMap;

use protocol::Api;

use super::assignor::Assignor;

/// A classic consumer's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct ConsumerConfig {
    /// `group.id`.
    pub group_id: String,
    /// `group.instance.id`: set for a static member.
    pub group_instance_id: Option<String>,
    /// `client.id`.
    pub client_id: String,
    /// The subscribed topics.
    pub topics: Vec<String>,
    /// `partition.assignment.strategy`, in preference order.
    pub assignors: Vec<Assignor>,
    /// `client.rack`.
    pub rack_id: Option<String>,
    /// `session.timeout.ms` (45000).
    pub session_timeout_ms: i32,
    /// `heartbeat.interval.ms` (3000).
    pub heartbeat_interval_ms: u64,
    /// `max.poll.interval.ms` (300000): the rebalance timeout.
    pub max_poll_interval_ms: i32,
    /// `request.timeout.ms` (30000).
    pub request_timeout_ms: u64,
    /// `default.api.timeout.ms` (60000): how long a synchronous commit is retried.
    pub default_api_timeout_ms: u64,
    /// `retry.backoff.ms` (100) and `retry.backoff.max.ms` (1000).
    pub retry_backoff_ms: u64,
    pub retry_backoff_max_ms: u64,
    /// `reconnect.backoff.ms` (50) and `reconnect.backoff.max.ms` (1000).
    pub reconnect_backoff_ms: u64,
    pub reconnect_backoff_max_ms: u64,
    /// `enable.auto.commit` (true) and `auto.commit.interval.ms` (5000).
    pub enable_auto_commit: bool,
    pub auto_commit_interval_ms: u64,
    /// Highest version per api (e.g. librdkafka's JoinGroup v5, SyncGroup v3, Heartbeat v3).
    pub version_caps: BTreeMap<Api, i16>,
    /// Whether heartbeats and commits carry the instance id (aiokafka's don't).
    pub instance_id_in_heartbeats: bool,
    /// Records consumed per second per assigned partition (drives the committed offsets).
    pub records_per_second: u64,
    /// Time `onPartitionsRevoked` takes.
    pub revocation_latency_ms: u64,
    /// Time `onPartitionsAssigned` takes.
    pub assignment_latency_ms: u64,
}

impl ConsumerConfig {
    /// Kafka's defaults for a dynamic member of `group_id` subscribed to `topics`, offering the
    /// range assignor.
    pub fn new(group_id: impl Into<String>, client_id: impl Into<String>, topics: &[&str]) -> Self {
        Self {
            group_id: group_id.into(),
            group_instance_id: None,
            client_id: client_id.into(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
            assignors: vec![Assignor::Range],
            rack_id: None,
            session_timeout_ms: 45_000,
            heartbeat_interval_ms: 3_000,
            max_poll_interval_ms: 300_000,
            request_timeout_ms: 30_000,
            default_api_timeout_ms: 60_000,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1_000,
            reconnect_backoff_ms: 50,
            reconnect_backoff_max_ms: 1_000,
            enable_auto_commit: true,
            auto_commit_interval_ms: 5_000,
            version_caps: BTreeMap::new(),
            instance_id_in_heartbeats: true,
            records_per_second: 100,
            revocation_latency_ms: 0,
            assignment_latency_ms: 0,
        }
    }

    /// A static member with `instance_id`.
    pub fn with_instance_id(mut self, instance_id: impl Into<String>) -> Self {
        self.group_instance_id = Some(instance_id.into());
        self
    }

    pub fn with_assignors(mut self, assignors: &[Assignor]) -> Self {
        self.assignors = assignors.to_vec();
        self
    }
}

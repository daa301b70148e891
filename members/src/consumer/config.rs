//! A consumer-protocol consumer's configuration (Kafka's `ConsumerConfig` names and defaults for
//! `group.protocol=consumer`), plus the knobs standing in for the application's work.

use std::collections::BTreeMap;

use protocol::Api;

/// A KIP-848 consumer's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct AsyncConsumerConfig {
    /// `group.id`.
    pub group_id: String,
    /// `group.instance.id`: set for a static member.
    pub group_instance_id: Option<String>,
    /// `client.id`.
    pub client_id: String,
    /// The subscribed topics (`subscribe(Collection<String>)`).
    pub topics: Vec<String>,
    /// A broker-side regular expression (`subscribe(SubscriptionPattern)`, RE2J syntax), in place
    /// of `topics`.
    pub topic_regex: Option<String>,
    /// `group.remote.assignor` (null: the coordinator's default, `uniform`).
    pub server_assignor: Option<String>,
    /// `client.rack`.
    pub rack_id: Option<String>,
    /// `max.poll.interval.ms` (300000): sent as the rebalance timeout.
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
    /// Highest version per api.
    pub version_caps: BTreeMap<Api, i16>,
    /// Records consumed per second per assigned partition (drives the committed offsets).
    pub records_per_second: u64,
    /// Time `onPartitionsRevoked` takes.
    pub revocation_latency_ms: u64,
    /// Time `onPartitionsAssigned` takes.
    pub assignment_latency_ms: u64,
    /// Time `onPartitionsLost` takes.
    pub lost_latency_ms: u64,
}

impl AsyncConsumerConfig {
    /// Kafka's defaults for a dynamic member of `group_id` subscribed to `topics`.
    pub fn new(group_id: impl Into<String>, client_id: impl Into<String>, topics: &[&str]) -> Self {
        Self {
            group_id: group_id.into(),
            group_instance_id: None,
            client_id: client_id.into(),
            topics: topics.iter().map(|t| t.to_string()).collect(),
            topic_regex: None,
            server_assignor: None,
            rack_id: None,
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
            records_per_second: 100,
            revocation_latency_ms: 0,
            assignment_latency_ms: 0,
            lost_latency_ms: 0,
        }
    }

    /// A static member with `instance_id`.
    pub fn with_instance_id(mut self, instance_id: impl Into<String>) -> Self {
        self.group_instance_id = Some(instance_id.into());
        self
    }

    /// Subscribes to the topics the coordinator resolves `regex` to, instead of named topics.
    pub fn with_topic_regex(mut self, regex: impl Into<String>) -> Self {
        self.topics.clear();
        self.topic_regex = Some(regex.into());
        self
    }

    /// Asks the coordinator for this server assignor (`uniform`, `range`).
    pub fn with_server_assignor(mut self, assignor: impl Into<String>) -> Self {
        self.server_assignor = Some(assignor.into());
        self
    }
}

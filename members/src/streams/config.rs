//! A streams process's configuration: what Kafka Streams would be configured with, plus the knobs
//! that stand in for the work a real application does (processing rate, callback latencies).

use std::collections::BTreeMap;

use protocol::Api;

use super::topology::Topology;

/// What a member does when a heartbeat is answered UNRELEASED_INSTANCE_ID (a static member
/// joins while the previous incarnation with its instance id has not left with epoch -2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum UnreleasedInstanceIdPolicy {
    /// Kafka Streams 4.4.0: a fatal error for the member (and, by default, the client).
    #[default]
    Fatal,
    /// Retry the join after the retry backoff (until the old member's session times out).
    RetryAfterBackoff,
}

/// What happens to the process when one member thread fails fatally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum FatalErrorPolicy {
    /// Kafka Streams' default uncaught-exception handling (SHUTDOWN_CLIENT): every thread of the
    /// process shuts down (committing and leaving the group).
    #[default]
    ShutdownClient,
    /// Only the failed thread stops.
    ShutdownThread,
}

/// A streams process's configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamsConfig {
    /// `application.id`: the group id.
    pub application_id: String,
    /// `num.stream.threads`: member threads per process.
    pub num_threads: usize,
    /// `group.instance.id`: thread `n` (from 1) uses `<id>-<n>`, as Kafka Streams does. `None`
    /// makes the members dynamic.
    pub group_instance_id: Option<String>,
    /// `application.server`: the IQ endpoint (host, port).
    pub application_server: Option<(String, u16)>,
    /// `client.rack`.
    pub rack_id: Option<String>,
    /// `client.tag.*`.
    pub client_tags: BTreeMap<String, String>,
    pub topology: Topology,
    /// `client.id`; default `<application id>-<process id>`. Thread `n`'s consumer uses
    /// `<client id>-StreamThread-<n>-consumer`.
    pub client_id: Option<String>,
    /// `request.timeout.ms` (30000).
    pub request_timeout_ms: u64,
    /// `default.api.timeout.ms` (60000): how long a commit is retried.
    pub default_api_timeout_ms: u64,
    /// `max.poll.interval.ms` (300000): sent as the rebalance timeout.
    pub max_poll_interval_ms: i32,
    /// `retry.backoff.ms` (100) and `retry.backoff.max.ms` (1000).
    pub retry_backoff_ms: u64,
    pub retry_backoff_max_ms: u64,
    /// `reconnect.backoff.ms` (50) and `reconnect.backoff.max.ms` (1000).
    pub reconnect_backoff_ms: u64,
    pub reconnect_backoff_max_ms: u64,
    /// `commit.interval.ms` (30000 under at-least-once).
    pub commit_interval_ms: u64,
    /// Highest version per api (below Kafka 4.4's).
    pub version_caps: BTreeMap<Api, i16>,
    /// Records each active task processes per second per input partition (drives the offsets
    /// the member commits and the changelog offsets it reports).
    pub records_per_second: u64,
    /// Time the revocation callback spends before committing (flushing state stores, closing).
    pub revocation_latency_ms: u64,
    /// Time the assignment callback takes (creating tasks).
    pub assignment_latency_ms: u64,
    /// Time dropping all tasks takes (fenced, fatal, task migrated).
    pub lost_latency_ms: u64,
    pub unreleased_instance_id: UnreleasedInstanceIdPolicy,
    pub on_fatal: FatalErrorPolicy,
}

impl StreamsConfig {
    /// Kafka Streams' defaults for `application_id` running `topology` on one thread.
    pub fn new(application_id: impl Into<String>, topology: Topology) -> Self {
        Self {
            application_id: application_id.into(),
            num_threads: 1,
            group_instance_id: None,
            application_server: None,
            rack_id: None,
            client_tags: BTreeMap::new(),
            topology,
            client_id: None,
            request_timeout_ms: 30_000,
            default_api_timeout_ms: 60_000,
            max_poll_interval_ms: 300_000,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1_000,
            reconnect_backoff_ms: 50,
            reconnect_backoff_max_ms: 1_000,
            commit_interval_ms: 30_000,
            version_caps: BTreeMap::new(),
            records_per_second: 100,
            revocation_latency_ms: 0,
            assignment_latency_ms: 0,
            lost_latency_ms: 0,
            unreleased_instance_id: UnreleasedInstanceIdPolicy::default(),
            on_fatal: FatalErrorPolicy::default(),
        }
    }

    pub fn with_threads(mut self, n: usize) -> Self {
        self.num_threads = n;
        self
    }

    pub fn with_instance_id(mut self, id: impl Into<String>) -> Self {
        self.group_instance_id = Some(id.into());
        self
    }

    pub fn with_application_server(mut self, host: impl Into<String>, port: u16) -> Self {
        self.application_server = Some((host.into(), port));
        self
    }

    /// The instance id of thread `n` (1-based).
    pub fn thread_instance_id(&self, thread: usize) -> Option<String> {
        self.group_instance_id
            .as_ref()
            .map(|id| format!("{id}-{thread}"))
    }

    /// The consumer client id of thread `n` of the process `process_id`.
    pub fn thread_client_id(&self, process_id: &str, thread: usize) -> String {
        let base = self
            .client_id
            .clone()
            .unwrap_or_else(|| format!("{}-{process_id}", self.application_id));
        format!("{base}-StreamThread-{thread}-consumer")
    }
}

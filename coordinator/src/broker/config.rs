//! The broker's configuration: Kafka 4.4's broker configs the broker slice reads, with Kafka's
//! defaults, plus the shard's group configs.

use uuid::Uuid;

use crate::config::{ConfigError, ShardConfig, parse_i64};
use crate::controller::config::DEFAULT_CLUSTER_ID;
use crate::topics::derived_topic_id;

/// The listener name regroup brokers advertise (Kafka's default `PLAINTEXT`).
pub const LISTENER_NAME: &str = "PLAINTEXT";

/// A broker's settings.
#[derive(Debug, Clone)]
pub struct BrokerConfig {
    /// `node.id`.
    pub node_id: i32,
    pub cluster_id: String,
    /// Address the client listener binds (`host:port`).
    pub listen: String,
    /// Host and port advertised in registration, Metadata and FindCoordinator; `None` = the
    /// bound address.
    pub advertised: Option<(String, u16)>,
    /// `broker.rack`.
    pub rack: Option<String>,
    /// The controller's address (`controller.quorum.bootstrap.servers`, one node).
    pub controller: String,
    /// The incarnation id of this process start (Kafka draws it at random; the caller passes
    /// one from its seeded generator).
    pub incarnation_id: Uuid,
    /// The id of the broker's single log directory (persistent in Kafka's `meta.properties`).
    pub log_dir_id: Uuid,
    /// `broker.heartbeat.interval.ms`: heartbeat cadence and the fixed retry after a failure.
    pub heartbeat_interval_ms: u64,
    /// `broker.session.timeout.ms` (the broker uses it only for logging and the shutdown bound).
    pub session_timeout_ms: u64,
    /// `initial.broker.registration.timeout.ms`.
    pub initial_registration_timeout_ms: u64,
    /// Timeout of one registration or heartbeat RPC (4.4: the heartbeat interval).
    pub controller_rpc_timeout_ms: u64,
    /// How long a controlled shutdown may wait for the controller's permission.
    pub controlled_shutdown_timeout_ms: u64,
    /// `offsets.topic.num.partitions`.
    pub offsets_topic_partitions: i32,
    /// `offsets.topic.replication.factor`.
    pub offsets_topic_replication_factor: i16,
    /// `offsets.commit.timeout.ms`: a write not committed by then fails (COORDINATOR_NOT_AVAILABLE).
    pub offsets_commit_timeout_ms: i64,
    /// `auto.create.topics.enable`.
    pub auto_create_topics: bool,
    /// `replica.fetch.wait.max.ms`.
    pub replica_fetch_wait_max_ms: i32,
    /// `replica.fetch.max.bytes`.
    pub replica_fetch_max_bytes: i32,
    /// `replica.socket.timeout.ms`: timeout of one replica fetch round trip.
    pub replica_socket_timeout_ms: u64,
    /// `replica.lag.time.max.ms`: a follower not caught up for this long leaves the ISR.
    pub replica_lag_time_max_ms: i64,
    /// `replica.fetch.backoff.ms`.
    pub replica_fetch_backoff_ms: u64,
    /// `min.insync.replicas` (the broker's default for every topic; regroup's topics take no
    /// override): a leader under it does not advance its high watermark.
    pub min_insync_replicas: i32,
    /// How long loading a coordinator takes on top of replaying its records (regroup-specific,
    /// so COORDINATOR_LOAD_IN_PROGRESS can be observed; `regroup.coordinator.load.delay.ms`).
    pub coordinator_load_delay_ms: u64,
    /// `metadata.max.idle`-like cadence: how long a metadata fetch waits at the controller.
    pub metadata_fetch_wait_ms: i64,
    /// The group coordinator shard's configs (`group.*`, `offsets.*`, `group.streams.*`).
    pub shard: ShardConfig,
}

impl BrokerConfig {
    /// A broker with Kafka's defaults, listening on `listen`, following the controller at
    /// `controller`.
    pub fn new(node_id: i32, listen: impl Into<String>, controller: impl Into<String>) -> Self {
        Self {
            node_id,
            cluster_id: DEFAULT_CLUSTER_ID.to_string(),
            listen: listen.into(),
            advertised: None,
            rack: None,
            controller: controller.into(),
            incarnation_id: Uuid::from_u64_pair(node_id as u64, 1),
            log_dir_id: derived_topic_id(&format!("regroup-log-dir-{node_id}")),
            heartbeat_interval_ms: 2000,
            session_timeout_ms: 9000,
            initial_registration_timeout_ms: 60_000,
            controller_rpc_timeout_ms: 2000,
            controlled_shutdown_timeout_ms: 30_000,
            offsets_topic_partitions: 50,
            offsets_topic_replication_factor: 3,
            offsets_commit_timeout_ms: 5000,
            auto_create_topics: true,
            replica_fetch_wait_max_ms: 500,
            replica_fetch_max_bytes: 1_048_576,
            replica_socket_timeout_ms: 30_000,
            replica_lag_time_max_ms: 30_000,
            replica_fetch_backoff_ms: 1000,
            min_insync_replicas: 1,
            coordinator_load_delay_ms: 0,
            metadata_fetch_wait_ms: 500,
            shard: ShardConfig::default(),
        }
    }

    /// Sets one config by Kafka's name: broker configs first, then the shard's. Controller configs
    /// are not known here (see [`crate::controller::ControllerConfig::try_set`]).
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        let int = || parse_i64(key, value);
        let positive = |v: i64| -> Result<u64, ConfigError> {
            if v < 0 {
                Err(ConfigError::invalid(key, value, "must not be negative"))
            } else {
                Ok(v as u64)
            }
        };
        match key {
            "broker.heartbeat.interval.ms" => {
                self.heartbeat_interval_ms = positive(int()?)?;
                self.controller_rpc_timeout_ms = self.heartbeat_interval_ms;
            }
            "broker.session.timeout.ms" => self.session_timeout_ms = positive(int()?)?,
            "initial.broker.registration.timeout.ms" => {
                self.initial_registration_timeout_ms = positive(int()?)?
            }
            "offsets.topic.num.partitions" => {
                let v = int()?;
                if v < 1 {
                    return Err(ConfigError::invalid(key, value, "must be at least 1"));
                }
                self.offsets_topic_partitions = v as i32;
            }
            "offsets.topic.replication.factor" => {
                let v = int()?;
                if v < 1 {
                    return Err(ConfigError::invalid(key, value, "must be at least 1"));
                }
                self.offsets_topic_replication_factor = v as i16;
            }
            "offsets.commit.timeout.ms" => self.offsets_commit_timeout_ms = int()?,
            "auto.create.topics.enable" => {
                self.auto_create_topics = match value {
                    "true" => true,
                    "false" => false,
                    _ => return Err(ConfigError::invalid(key, value, "must be true or false")),
                }
            }
            "replica.fetch.wait.max.ms" => self.replica_fetch_wait_max_ms = int()? as i32,
            "replica.fetch.max.bytes" => self.replica_fetch_max_bytes = int()? as i32,
            "replica.socket.timeout.ms" => self.replica_socket_timeout_ms = positive(int()?)?,
            "replica.lag.time.max.ms" => self.replica_lag_time_max_ms = int()?,
            "replica.fetch.backoff.ms" => self.replica_fetch_backoff_ms = positive(int()?)?,
            "min.insync.replicas" => {
                let v = int()?;
                if !(1..=i32::MAX as i64).contains(&v) {
                    return Err(ConfigError::invalid(key, value, "must be at least 1"));
                }
                self.min_insync_replicas = v as i32;
            }
            "regroup.coordinator.load.delay.ms" => {
                self.coordinator_load_delay_ms = positive(int()?)?
            }
            "broker.rack" => self.rack = Some(value.to_string()),
            _ => return self.shard.set(key, value),
        }
        Ok(())
    }

    /// The advertised (host, port), given the address the listener actually bound.
    pub fn advertised_endpoint(&self, bound: &str) -> (String, u16) {
        if let Some(a) = &self.advertised {
            return a.clone();
        }
        match crate::net::split_host_port(bound) {
            Some((h, p)) => (h.to_string(), p),
            None => (bound.to_string(), 0),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn min_insync_replicas_is_a_broker_config_of_at_least_one() {
        let mut c = BrokerConfig::new(1, "b1:9092", "controller:9093");
        assert_eq!(c.min_insync_replicas, 1);
        c.set("min.insync.replicas", "2").unwrap();
        assert_eq!(c.min_insync_replicas, 2);
        let err = c.set("min.insync.replicas", "0").unwrap_err();
        assert!(err.to_string().contains("must be at least 1"), "{err}");
        assert_eq!(c.min_insync_replicas, 2);
    }
}

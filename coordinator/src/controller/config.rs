//! The controller's configuration: the KRaft and replication configs of Kafka 4.4 it reads, with
//! Kafka's defaults.

use crate::config::{ConfigError, parse_i64};

/// Kafka's default cluster id format is a 22-character base64 uuid; this is regroup's default.
pub const DEFAULT_CLUSTER_ID: &str = "cmVncm91cC1jbHVzdGVyAA";

/// `metadata.version` feature level of `IBP_4_3_IV0`, Kafka 4.4's latest production version.
pub const METADATA_VERSION_LEVEL: i16 = 30;
/// The lowest `metadata.version` a KRaft broker supports (`IBP_3_3_IV3`).
pub const MIN_METADATA_VERSION_LEVEL: i16 = 7;

/// The finalized features a freshly formatted Kafka 4.4 cluster has, as (name, level).
pub const BOOTSTRAP_FEATURES: &[(&str, i16)] = &[
    ("metadata.version", METADATA_VERSION_LEVEL),
    ("eligible.leader.replicas.version", 1),
    ("group.version", 1),
    ("streams.version", 1),
    ("transaction.version", 2),
];

/// The feature ranges a Kafka 4.4 broker announces at registration (`BrokerFeatures`):
/// `metadata.version` from the KRaft minimum to the latest production level, every other
/// production feature from 0 to its latest production level, as (name, min, max).
pub const BROKER_SUPPORTED_FEATURES: &[(&str, i16, i16)] = &[
    (
        "metadata.version",
        MIN_METADATA_VERSION_LEVEL,
        METADATA_VERSION_LEVEL,
    ),
    ("eligible.leader.replicas.version", 0, 1),
    ("group.version", 0, 1),
    ("streams.version", 0, 1),
    ("transaction.version", 0, 2),
];

/// The controller's settings.
#[derive(Debug, Clone)]
pub struct ControllerConfig {
    /// `node.id` of the controller.
    pub node_id: i32,
    pub cluster_id: String,
    /// Address the controller listener binds (`host:port`).
    pub listen: String,
    /// `broker.session.timeout.ms`.
    pub session_timeout_ms: i64,
    /// `broker.heartbeat.interval.ms` (reported for completeness; the brokers use their own).
    pub heartbeat_interval_ms: i64,
    /// `eligible.leader.replicas.version` >= 1 (on by default in Kafka 4.4).
    pub elr_enabled: bool,
    /// `min.insync.replicas`.
    pub min_insync_replicas: i32,
    /// Whether the controller's properties set `min.insync.replicas` (the source a CreateTopics
    /// answer names for it when eligible leader replicas are off).
    pub min_insync_replicas_configured: bool,
    /// `num.partitions`.
    pub default_num_partitions: i32,
    /// `default.replication.factor`.
    pub default_replication_factor: i16,
    /// `auto.leader.rebalance.enable` with `leader.imbalance.check.interval.seconds` (None = off).
    pub leader_imbalance_check_interval_ms: Option<i64>,
    /// Preferred-leader elections per run of the balancing task.
    pub max_elections_per_imbalance: usize,
    /// How long a metadata fetch waits for new records.
    pub metadata_fetch_max_wait_ms: i64,
}

impl Default for ControllerConfig {
    fn default() -> Self {
        Self {
            node_id: 3000,
            cluster_id: DEFAULT_CLUSTER_ID.to_string(),
            listen: "127.0.0.1:9093".to_string(),
            session_timeout_ms: 9000,
            heartbeat_interval_ms: 2000,
            elr_enabled: true,
            min_insync_replicas: 1,
            min_insync_replicas_configured: false,
            default_num_partitions: 1,
            default_replication_factor: 1,
            leader_imbalance_check_interval_ms: Some(300_000),
            max_elections_per_imbalance: 1000,
            metadata_fetch_max_wait_ms: 500,
        }
    }
}

impl ControllerConfig {
    /// Period of the stale-broker scan (`QuorumController.maybeFenceStaleBrokerPeriodNs`):
    /// session / 8, at least 1 ms.
    pub fn fence_scan_period_ms(&self) -> i64 {
        (self.session_timeout_ms / 8).max(1)
    }

    /// Sets one config by Kafka's name; `None` if the key is not a controller config.
    pub fn try_set(&mut self, key: &str, value: &str) -> Option<Result<(), ConfigError>> {
        let v = || parse_i64(key, value);
        let result = match key {
            "broker.session.timeout.ms" => v().map(|v| self.session_timeout_ms = v),
            "broker.heartbeat.interval.ms" => v().map(|v| self.heartbeat_interval_ms = v),
            "min.insync.replicas" => v().map(|v| {
                self.min_insync_replicas = v as i32;
                self.min_insync_replicas_configured = true;
            }),
            "num.partitions" => v().map(|v| self.default_num_partitions = v as i32),
            "default.replication.factor" => v().map(|v| self.default_replication_factor = v as i16),
            "cluster.id" => {
                self.cluster_id = value.to_string();
                Ok(())
            }
            "auto.leader.rebalance.enable" => match value {
                "true" => {
                    self.leader_imbalance_check_interval_ms
                        .get_or_insert(300_000);
                    Ok(())
                }
                "false" => {
                    self.leader_imbalance_check_interval_ms = None;
                    Ok(())
                }
                _ => Err(ConfigError::invalid(key, value, "must be true or false")),
            },
            "leader.imbalance.check.interval.seconds" => {
                v().map(|v| self.leader_imbalance_check_interval_ms = Some(v * 1000))
            }
            _ => return None,
        };
        Some(result)
    }
}

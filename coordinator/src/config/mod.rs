//! The shard's configuration: Kafka's `group.*` / `offsets.*` broker configs that the group coordinator
//! reads, grouped by the part of the shard that uses them, plus per-group overrides (Kafka's dynamic
//! `GroupConfig`). Each part parses its own keys with Kafka's defaults and bounds.

use std::collections::BTreeMap;

use std::sync::Arc;

use kafka_bugs::KafkaBugs;

use crate::streams::assignor::TaskAssignor;

pub mod classic;
pub mod consumer;
pub mod offsets;
pub mod streams;
pub mod values;

pub use classic::ClassicConfig;
pub use consumer::ConsumerConfig;
pub use offsets::OffsetsConfig;
pub use streams::StreamsConfig;
pub use values::{ConfigError, parse_i32_in, parse_i64};

/// Everything a shard is configured with.
#[derive(Debug, Clone, Default)]
pub struct ShardConfig {
    pub streams: StreamsConfig,
    pub consumer: ConsumerConfig,
    pub classic: ClassicConfig,
    pub offsets: OffsetsConfig,
    /// Per-group dynamic configs (`streams.session.timeout.ms`, ...), by group id, as given.
    pub group_overrides: BTreeMap<String, BTreeMap<String, String>>,
    /// The Kafka bugs switched on (`kafka_bugs`): none for Kafka 4.4.0. Each switch reads it where
    /// its rule is.
    pub kafka_bugs: KafkaBugs,
    /// The task assignors streams groups may name (Kafka's pluggable `TaskAssignor`s, KIP-1357), the
    /// first the default; empty: the built-in `sticky` alone. A harness registers a wrapper here to
    /// see every assignment computed (the simulator's assignor oracle).
    pub task_assignors: TaskAssignors,
}

/// The registered task assignors of a shard (a `Vec` of trait objects, shown by name).
#[derive(Clone, Default)]
pub struct TaskAssignors(pub Vec<Arc<dyn TaskAssignor>>);

impl std::fmt::Debug for TaskAssignors {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.0.iter().map(|a| a.name().to_string()))
            .finish()
    }
}

impl ShardConfig {
    /// Sets one broker-level config from its textual value (JSON numbers and booleans are passed in
    /// their textual form). Each part of the shard recognises its own keys.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        if let Some(result) = self.streams.try_set(key, value) {
            return result;
        }
        if let Some(result) = self.consumer.try_set(key, value) {
            return result;
        }
        if let Some(result) = self.classic.try_set(key, value) {
            return result;
        }
        if let Some(result) = self.offsets.try_set(key, value) {
            return result;
        }
        Err(ConfigError::UnknownKey(key.to_string()))
    }

    /// Sets a per-group override (validated when the group reads it, as Kafka's GroupConfig does).
    pub fn set_group_config(&mut self, group_id: &str, key: &str, value: &str) {
        self.group_overrides
            .entry(group_id.to_string())
            .or_default()
            .insert(key.to_string(), value.to_string());
    }

    /// The per-group override for `key`, if any.
    pub fn group_config(&self, group_id: &str, key: &str) -> Option<&str> {
        self.group_overrides
            .get(group_id)
            .and_then(|m| m.get(key))
            .map(String::as_str)
    }
}

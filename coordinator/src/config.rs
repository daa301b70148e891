//! The shard's configuration: Kafka's `group.*` / `offsets.*` broker configs that the group coordinator
//! reads, grouped by the part of the shard that uses them, plus per-group overrides (Kafka's dynamic
//! `GroupConfig`). Each part parses its own keys with Kafka's defaults and bounds.

use std::collections::BTreeMap;

use crate::classic::ClassicConfig;
use crate::offsets::OffsetsConfig;
use crate::streams::StreamsConfig;

/// A config key or value the shard refuses, with Kafka's wording where Kafka has one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error("unknown config {0}")]
    UnknownKey(String),
    #[error("invalid value {value} for config {key}: {reason}")]
    InvalidValue {
        key: String,
        value: String,
        reason: String,
    },
}

impl ConfigError {
    pub fn invalid(key: &str, value: impl std::fmt::Display, reason: impl Into<String>) -> Self {
        ConfigError::InvalidValue {
            key: key.to_string(),
            value: value.to_string(),
            reason: reason.into(),
        }
    }
}

/// Everything a shard is configured with.
#[derive(Debug, Clone, Default)]
pub struct ShardConfig {
    pub streams: StreamsConfig,
    pub classic: ClassicConfig,
    pub offsets: OffsetsConfig,
    /// Per-group dynamic configs (`streams.session.timeout.ms`, ...), by group id, as given.
    pub group_overrides: BTreeMap<String, BTreeMap<String, String>>,
}

impl ShardConfig {
    /// Sets one broker-level config from its textual value (JSON numbers and booleans are passed in
    /// their textual form). Each part of the shard recognises its own keys.
    pub fn set(&mut self, key: &str, value: &str) -> Result<(), ConfigError> {
        if let Some(result) = self.streams.try_set(key, value) {
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

/// Parses an integer config value (shared by the parts' `try_set`).
pub fn parse_i64(key: &str, value: &str) -> Result<i64, ConfigError> {
    value
        .trim()
        .parse::<i64>()
        .map_err(|_| ConfigError::invalid(key, value, "not an integer"))
}

/// Parses an int config value and checks `min <= v <= max`.
pub fn parse_i32_in(key: &str, value: &str, min: i32, max: i32) -> Result<i32, ConfigError> {
    let v = parse_i64(key, value)?;
    if v < i64::from(min) || v > i64::from(max) {
        return Err(ConfigError::invalid(
            key,
            value,
            format!("must be in the range {min} to {max}"),
        ));
    }
    Ok(v as i32)
}

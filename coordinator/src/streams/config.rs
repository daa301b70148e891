//! `group.streams.*` broker configs (Kafka 4.4 `GroupCoordinatorConfig`) and their per-group overrides.
//! Placeholder: the streams shard work fills in every key of streams-44-delta.md §6.11.

use crate::config::ConfigError;

/// The streams part of the shard config.
#[derive(Debug, Clone, Default)]
pub struct StreamsConfig {}

impl StreamsConfig {
    /// `Some(result)` if `key` is a streams config, `None` otherwise.
    pub fn try_set(&mut self, _key: &str, _value: &str) -> Option<Result<(), ConfigError>> {
        None
    }
}

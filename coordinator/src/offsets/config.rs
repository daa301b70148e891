//! Offset configs (`offset.metadata.max.bytes`, `offsets.retention.minutes`, ...). Placeholder: the
//! offsets work fills it in.

use crate::config::ConfigError;

/// The offsets part of the shard config.
#[derive(Debug, Clone, Default)]
pub struct OffsetsConfig {}

impl OffsetsConfig {
    /// `Some(result)` if `key` is an offsets config, `None` otherwise.
    pub fn try_set(&mut self, _key: &str, _value: &str) -> Option<Result<(), ConfigError>> {
        None
    }
}

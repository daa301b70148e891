//! Classic-group broker configs (`group.min.session.timeout.ms`, `group.max.session.timeout.ms`,
//! `group.initial.rebalance.delay.ms`, `group.max.size`). Placeholder: the classic shard work fills it in.

use crate::config::ConfigError;

/// The classic part of the shard config.
#[derive(Debug, Clone, Default)]
pub struct ClassicConfig {}

impl ClassicConfig {
    /// `Some(result)` if `key` is a classic-group config, `None` otherwise.
    pub fn try_set(&mut self, _key: &str, _value: &str) -> Option<Result<(), ConfigError>> {
        None
    }
}

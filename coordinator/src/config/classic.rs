//! Classic-group broker configs, with Kafka 4.4's defaults and bounds (`GroupCoordinatorConfig`):
//! `group.min.session.timeout.ms`, `group.max.session.timeout.ms`, `group.initial.rebalance.delay.ms`
//! and `group.max.size`. Kafka has no per-group overrides for classic groups.

use super::values::{ConfigError, parse_i32_in};

/// How long a new member may wait in JoinGroup before it is expired (Kafka's
/// `CLASSIC_GROUP_NEW_MEMBER_JOIN_TIMEOUT_MS`, not configurable).
pub const NEW_MEMBER_JOIN_TIMEOUT_MS: i32 = 300_000;

/// The classic part of the shard config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicConfig {
    /// `group.min.session.timeout.ms` (default 6000): JoinGroup below it gets INVALID_SESSION_TIMEOUT.
    pub min_session_timeout_ms: i32,
    /// `group.max.session.timeout.ms` (default 1 800 000).
    pub max_session_timeout_ms: i32,
    /// `group.initial.rebalance.delay.ms` (default 3000): how long the first join phase of an empty
    /// group waits for more members.
    pub initial_rebalance_delay_ms: i32,
    /// `group.max.size` (default `Integer.MAX_VALUE`, at least 1).
    pub max_size: i32,
}

impl Default for ClassicConfig {
    fn default() -> Self {
        Self {
            min_session_timeout_ms: 6000,
            max_session_timeout_ms: 1_800_000,
            initial_rebalance_delay_ms: 3000,
            max_size: i32::MAX,
        }
    }
}

impl ClassicConfig {
    /// `Some(result)` if `key` is a classic-group config, `None` otherwise.
    pub fn try_set(&mut self, key: &str, value: &str) -> Option<Result<(), ConfigError>> {
        let slot = match key {
            "group.min.session.timeout.ms" => &mut self.min_session_timeout_ms,
            "group.max.session.timeout.ms" => &mut self.max_session_timeout_ms,
            "group.initial.rebalance.delay.ms" => &mut self.initial_rebalance_delay_ms,
            "group.max.size" => {
                return Some(parse_i32_in(key, value, 1, i32::MAX).map(|v| self.max_size = v));
            }
            _ => return None,
        };
        // Kafka defines the three timeouts as INT without a validator.
        Some(parse_i32_in(key, value, i32::MIN, i32::MAX).map(|v| *slot = v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_bounds_follow_kafka() {
        let mut c = ClassicConfig::default();
        assert_eq!(c.max_size, i32::MAX);
        assert_eq!(c.try_set("group.max.size", "10"), Some(Ok(())));
        assert_eq!(c.max_size, 10);
        assert!(matches!(c.try_set("group.max.size", "0"), Some(Err(_))));
        assert_eq!(
            c.try_set("group.min.session.timeout.ms", "10"),
            Some(Ok(()))
        );
        assert_eq!(c.min_session_timeout_ms, 10);
        assert!(matches!(
            c.try_set("group.initial.rebalance.delay.ms", "x"),
            Some(Err(_))
        ));
        assert_eq!(c.try_set("offsets.retention.minutes", "1"), None);
    }
}

//! Offset configs with Kafka 4.4's defaults and bounds (`GroupCoordinatorConfig`):
//! `offset.metadata.max.bytes`, `offsets.retention.minutes`, `offsets.retention.check.interval.ms`.

use super::values::{ConfigError, parse_i32_in, parse_i64};

/// The offsets part of the shard config.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetsConfig {
    /// `offset.metadata.max.bytes` (default 4096): longer commit metadata gets OFFSET_METADATA_TOO_LARGE.
    /// Kafka compares it with `String.length()`, i.e. UTF-16 code units.
    pub metadata_max_size: i32,
    /// `offsets.retention.minutes` (default 7 days, at least 1).
    pub retention_minutes: i32,
    /// `offsets.retention.check.interval.ms` (default 600 000, at least 1).
    pub retention_check_interval_ms: i64,
}

impl Default for OffsetsConfig {
    fn default() -> Self {
        Self {
            metadata_max_size: 4096,
            retention_minutes: 7 * 24 * 60,
            retention_check_interval_ms: 600_000,
        }
    }
}

impl OffsetsConfig {
    /// `Some(result)` if `key` is an offsets config, `None` otherwise.
    pub fn try_set(&mut self, key: &str, value: &str) -> Option<Result<(), ConfigError>> {
        Some(match key {
            "offset.metadata.max.bytes" => {
                parse_i32_in(key, value, i32::MIN, i32::MAX).map(|v| self.metadata_max_size = v)
            }
            "offsets.retention.minutes" => {
                parse_i32_in(key, value, 1, i32::MAX).map(|v| self.retention_minutes = v)
            }
            "offsets.retention.check.interval.ms" => parse_i64(key, value).and_then(|v| {
                if v < 1 {
                    Err(ConfigError::invalid(key, value, "must be at least 1"))
                } else {
                    self.retention_check_interval_ms = v;
                    Ok(())
                }
            }),
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_defaults_and_bounds() {
        let mut c = OffsetsConfig::default();
        assert_eq!(c.metadata_max_size, 4096);
        assert_eq!(c.try_set("offset.metadata.max.bytes", "10"), Some(Ok(())));
        assert_eq!(c.metadata_max_size, 10);
        assert!(matches!(
            c.try_set("offsets.retention.minutes", "0"),
            Some(Err(_))
        ));
        assert!(matches!(
            c.try_set("offsets.retention.check.interval.ms", "0"),
            Some(Err(_))
        ));
        assert_eq!(c.try_set("group.max.size", "1"), None);
    }
}

//! The errors and number parsing of config values, shared by every group type's configs (a leaf:
//! the per-type configs depend on it, and the shard's config on them).

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

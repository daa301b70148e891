//! `group.streams.*` broker configs (Kafka 4.4 `GroupCoordinatorConfig`) and their per-group overrides
//! (`streams.*` keys of Kafka's dynamic `GroupConfig`).
//!
//! Broker keys are checked one by one when set (type and `atLeast` bounds, with Kafka's wording); the
//! cross-key rules Kafka enforces at broker start-up are checked by [`StreamsConfig::validate`].
//! Group overrides are stored as given and evaluated when read, the way Kafka's `GroupConfig` clamps
//! stored values that fall outside the broker's bounds (`GroupConfig.evaluate`).

use std::collections::BTreeMap;

use super::values::{ConfigError, parse_i64};

/// The streams part of the shard config, with Kafka 4.4's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsConfig {
    pub session_timeout_ms: i32,
    pub min_session_timeout_ms: i32,
    pub max_session_timeout_ms: i32,
    pub heartbeat_interval_ms: i32,
    pub min_heartbeat_interval_ms: i32,
    pub max_heartbeat_interval_ms: i32,
    pub max_size: i32,
    pub num_standby_replicas: i32,
    pub max_standby_replicas: i32,
    pub initial_rebalance_delay_ms: i32,
    pub assignment_interval_ms: i32,
    pub min_assignment_interval_ms: i32,
    pub max_assignment_interval_ms: i32,
    pub assignor_offload_enable: bool,
    /// `group.streams.assignors`: registered assignor names; the first is the default.
    pub assignors: Vec<String>,
    /// `group.streams.rack.aware.assignment.tags`.
    pub rack_aware_assignment_tags: Vec<String>,
    pub task_offset_interval_ms: i32,
    pub min_task_offset_interval_ms: i32,
    pub num_warmup_replicas: i32,
    pub max_warmup_replicas: i32,
    pub acceptable_recovery_lag: i64,
    /// `group.streams.topology.description.plugin.class`; regroup has no plugin, so this stays `None`.
    pub topology_description_plugin_class: Option<String>,
}

impl Default for StreamsConfig {
    fn default() -> Self {
        Self {
            session_timeout_ms: 45_000,
            min_session_timeout_ms: 45_000,
            max_session_timeout_ms: 60_000,
            heartbeat_interval_ms: 5_000,
            min_heartbeat_interval_ms: 5_000,
            max_heartbeat_interval_ms: 15_000,
            max_size: i32::MAX,
            num_standby_replicas: 0,
            max_standby_replicas: 2,
            initial_rebalance_delay_ms: 3_000,
            assignment_interval_ms: 1_000,
            min_assignment_interval_ms: 0,
            max_assignment_interval_ms: 15_000,
            assignor_offload_enable: true,
            assignors: vec!["sticky".to_string()],
            rack_aware_assignment_tags: Vec::new(),
            task_offset_interval_ms: 60_000,
            min_task_offset_interval_ms: 15_000,
            num_warmup_replicas: 2,
            max_warmup_replicas: 20,
            acceptable_recovery_lag: 10_000,
            topology_description_plugin_class: None,
        }
    }
}

/// Kafka's `ConfigDef.Range.atLeast` message.
fn at_least(key: &str, value: &str, min: i64) -> ConfigError {
    ConfigError::invalid(key, value, format!("Value must be at least {min}"))
}

pub(super) fn parse_int_at_least(key: &str, value: &str, min: i32) -> Result<i32, ConfigError> {
    let v = parse_i64(key, value)?;
    if v > i64::from(i32::MAX) || v < i64::from(i32::MIN) {
        return Err(ConfigError::invalid(key, value, "not a 32-bit integer"));
    }
    if v < i64::from(min) {
        return Err(at_least(key, value, i64::from(min)));
    }
    Ok(v as i32)
}

/// A group config override bounded by the broker's range (`GroupConfig.validate`'s message); the
/// value must first parse as an int.
pub(super) fn int_in_range(key: &str, value: &str, min: i32, max: i32) -> Result<(), ConfigError> {
    let v = parse_int_at_least(key, value, i32::MIN)?;
    if v < min || v > max {
        return Err(ConfigError::invalid(
            key,
            value,
            format!("{key} must be in the range {min} to {max} inclusive."),
        ));
    }
    Ok(())
}

fn parse_long_at_least(key: &str, value: &str, min: i64) -> Result<i64, ConfigError> {
    let v = parse_i64(key, value)?;
    if v < min {
        return Err(at_least(key, value, min));
    }
    Ok(v)
}

pub(super) fn parse_bool(key: &str, value: &str) -> Result<bool, ConfigError> {
    match value.trim().to_ascii_lowercase().as_str() {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(ConfigError::invalid(
            key,
            value,
            "Expected value to be either true or false",
        )),
    }
}

/// Splits a Kafka LIST value at commas, trimming each element (ConfigDef's `LIST` parsing); an empty
/// string is the empty list.
pub fn parse_list(value: &str) -> Vec<String> {
    let trimmed = value.trim();
    if trimmed.is_empty() {
        return Vec::new();
    }
    trimmed.split(',').map(|s| s.trim().to_string()).collect()
}

/// `ValidList.anyNonDuplicateValues(emptyAllowed, nullAllowed = false)` plus the raw duplicate check
/// Kafka 4.4 adds for the rack-aware tags.
fn parse_tag_list(key: &str, value: &str, empty_allowed: bool) -> Result<Vec<String>, ConfigError> {
    let list = parse_list(value);
    if list.is_empty() && !empty_allowed {
        return Err(ConfigError::invalid(
            key,
            value,
            "Configuration must not be empty",
        ));
    }
    if list.iter().any(String::is_empty) {
        return Err(ConfigError::invalid(
            key,
            value,
            "Configuration must not contain empty elements",
        ));
    }
    let mut seen = std::collections::BTreeSet::new();
    if !list.iter().all(|t| seen.insert(t.as_str())) {
        return Err(ConfigError::invalid(
            key,
            value,
            format!("{key} must not contain duplicate tag keys."),
        ));
    }
    Ok(list)
}

impl StreamsConfig {
    /// `Some(result)` if `key` is a streams config, `None` otherwise.
    pub fn try_set(&mut self, key: &str, value: &str) -> Option<Result<(), ConfigError>> {
        let result = match key {
            "group.streams.session.timeout.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.session_timeout_ms = v)
            }
            "group.streams.min.session.timeout.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.min_session_timeout_ms = v)
            }
            "group.streams.max.session.timeout.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.max_session_timeout_ms = v)
            }
            "group.streams.heartbeat.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.heartbeat_interval_ms = v)
            }
            "group.streams.min.heartbeat.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.min_heartbeat_interval_ms = v)
            }
            "group.streams.max.heartbeat.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.max_heartbeat_interval_ms = v)
            }
            "group.streams.max.size" => {
                parse_int_at_least(key, value, 1).map(|v| self.max_size = v)
            }
            "group.streams.num.standby.replicas" => {
                parse_int_at_least(key, value, 0).map(|v| self.num_standby_replicas = v)
            }
            "group.streams.max.standby.replicas" => {
                parse_int_at_least(key, value, 0).map(|v| self.max_standby_replicas = v)
            }
            "group.streams.initial.rebalance.delay.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.initial_rebalance_delay_ms = v)
            }
            "group.streams.assignment.interval.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.assignment_interval_ms = v)
            }
            "group.streams.min.assignment.interval.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.min_assignment_interval_ms = v)
            }
            "group.streams.max.assignment.interval.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.max_assignment_interval_ms = v)
            }
            "group.streams.assignor.offload.enable" => {
                parse_bool(key, value).map(|v| self.assignor_offload_enable = v)
            }
            "group.streams.assignors" => parse_tag_list(key, value, false).and_then(|names| {
                // regroup has no class loading: only the built-in assignor names are known.
                match names.iter().find(|n| n.as_str() != "sticky") {
                    Some(unknown) => Err(ConfigError::invalid(
                        key,
                        value,
                        format!("Class {unknown} cannot be found"),
                    )),
                    None => {
                        self.assignors = names;
                        Ok(())
                    }
                }
            }),
            "group.streams.rack.aware.assignment.tags" => {
                parse_tag_list(key, value, true).map(|v| self.rack_aware_assignment_tags = v)
            }
            "group.streams.task.offset.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.task_offset_interval_ms = v)
            }
            "group.streams.min.task.offset.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.min_task_offset_interval_ms = v)
            }
            "group.streams.num.warmup.replicas" => {
                parse_int_at_least(key, value, 0).map(|v| self.num_warmup_replicas = v)
            }
            "group.streams.max.warmup.replicas" => {
                parse_int_at_least(key, value, 0).map(|v| self.max_warmup_replicas = v)
            }
            "group.streams.acceptable.recovery.lag" => {
                parse_long_at_least(key, value, 0).map(|v| self.acceptable_recovery_lag = v)
            }
            "group.streams.topology.description.plugin.class" => {
                if value.trim().is_empty() {
                    self.topology_description_plugin_class = None;
                    Ok(())
                } else {
                    // No plugin can be loaded into regroup.
                    Err(ConfigError::invalid(
                        key,
                        value,
                        format!("Class {} cannot be found", value.trim()),
                    ))
                }
            }
            _ => return None,
        };
        Some(result)
    }

    /// Kafka's `verifyStreamsGroupConfigs`: the cross-key rules checked at broker start-up, with
    /// Kafka's messages.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn require(ok: bool, message: String) -> Result<(), ConfigError> {
            if ok {
                Ok(())
            } else {
                Err(ConfigError::InvalidValue {
                    key: "group.streams.*".to_string(),
                    value: String::new(),
                    reason: message,
                })
            }
        }
        let ge = |a: &str, b: &str| format!("{a} must be greater than or equal to {b}");
        let le = |a: &str, b: &str| format!("{a} must be less than or equal to {b}");
        require(
            self.max_heartbeat_interval_ms >= self.min_heartbeat_interval_ms,
            ge(
                "group.streams.max.heartbeat.interval.ms",
                "group.streams.min.heartbeat.interval.ms",
            ),
        )?;
        require(
            self.heartbeat_interval_ms >= self.min_heartbeat_interval_ms,
            ge(
                "group.streams.heartbeat.interval.ms",
                "group.streams.min.heartbeat.interval.ms",
            ),
        )?;
        require(
            self.heartbeat_interval_ms <= self.max_heartbeat_interval_ms,
            le(
                "group.streams.heartbeat.interval.ms",
                "group.streams.max.heartbeat.interval.ms",
            ),
        )?;
        require(
            self.max_session_timeout_ms >= self.min_session_timeout_ms,
            ge(
                "group.streams.max.session.timeout.ms",
                "group.streams.min.session.timeout.ms",
            ),
        )?;
        require(
            self.session_timeout_ms >= self.min_session_timeout_ms,
            ge(
                "group.streams.session.timeout.ms",
                "group.streams.min.session.timeout.ms",
            ),
        )?;
        require(
            self.session_timeout_ms <= self.max_session_timeout_ms,
            le(
                "group.streams.session.timeout.ms",
                "group.streams.max.session.timeout.ms",
            ),
        )?;
        require(
            self.heartbeat_interval_ms < self.session_timeout_ms,
            "group.streams.heartbeat.interval.ms must be less than group.streams.session.timeout.ms"
                .to_string(),
        )?;
        require(
            self.max_assignment_interval_ms >= self.min_assignment_interval_ms,
            ge(
                "group.streams.max.assignment.interval.ms",
                "group.streams.min.assignment.interval.ms",
            ),
        )?;
        require(
            self.assignment_interval_ms >= self.min_assignment_interval_ms,
            ge(
                "group.streams.assignment.interval.ms",
                "group.streams.min.assignment.interval.ms",
            ),
        )?;
        require(
            self.assignment_interval_ms <= self.max_assignment_interval_ms,
            le(
                "group.streams.assignment.interval.ms",
                "group.streams.max.assignment.interval.ms",
            ),
        )?;
        require(
            self.num_standby_replicas <= self.max_standby_replicas,
            le(
                "group.streams.num.standby.replicas",
                "group.streams.max.standby.replicas",
            ),
        )?;
        require(
            self.task_offset_interval_ms >= self.min_task_offset_interval_ms,
            ge(
                "group.streams.task.offset.interval.ms",
                "group.streams.min.task.offset.interval.ms",
            ),
        )?;
        require(
            self.num_warmup_replicas <= self.max_warmup_replicas,
            le(
                "group.streams.num.warmup.replicas",
                "group.streams.max.warmup.replicas",
            ),
        )
    }

    /// The values one group works with: the group's overrides (clamped to the broker's bounds as
    /// Kafka's `GroupConfig.evaluate` does) or the broker defaults.
    pub fn effective(&self, overrides: Option<&BTreeMap<String, String>>) -> EffectiveConfig {
        let mut e = EffectiveConfig {
            session_timeout_ms: self.session_timeout_ms,
            heartbeat_interval_ms: self.heartbeat_interval_ms,
            num_standby_replicas: self.num_standby_replicas,
            initial_rebalance_delay_ms: self.initial_rebalance_delay_ms,
            assignment_interval_ms: self.assignment_interval_ms,
            rack_aware_assignment_tags: None,
            task_offset_interval_ms: self.task_offset_interval_ms,
            num_warmup_replicas: self.num_warmup_replicas,
            acceptable_recovery_lag: self.acceptable_recovery_lag,
            assignor_name: None,
        };
        let Some(overrides) = overrides else {
            return e;
        };
        // One pass over the group's overrides (each key sets its own field, so the order does
        // not matter) instead of a map look-up per key: this runs on every heartbeat.
        let int = |v: &str| {
            v.trim()
                .parse::<i64>()
                .ok()
                .map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
        };
        for (key, v) in overrides {
            match key.as_str() {
                "streams.session.timeout.ms" => {
                    if let Some(v) = int(v) {
                        e.session_timeout_ms =
                            v.clamp(self.min_session_timeout_ms, self.max_session_timeout_ms);
                    }
                }
                "streams.heartbeat.interval.ms" => {
                    if let Some(v) = int(v) {
                        e.heartbeat_interval_ms = v.clamp(
                            self.min_heartbeat_interval_ms,
                            self.max_heartbeat_interval_ms,
                        );
                    }
                }
                "streams.num.standby.replicas" => {
                    if let Some(v) = int(v) {
                        e.num_standby_replicas = v.min(self.max_standby_replicas);
                    }
                }
                "streams.initial.rebalance.delay.ms" => {
                    if let Some(v) = int(v) {
                        e.initial_rebalance_delay_ms = v;
                    }
                }
                "streams.assignment.interval.ms" => {
                    if let Some(v) = int(v) {
                        e.assignment_interval_ms = v.clamp(
                            self.min_assignment_interval_ms,
                            self.max_assignment_interval_ms,
                        );
                    }
                }
                "streams.task.offset.interval.ms" => {
                    if let Some(v) = int(v) {
                        e.task_offset_interval_ms = v.max(self.min_task_offset_interval_ms);
                    }
                }
                "streams.num.warmup.replicas" => {
                    if let Some(v) = int(v) {
                        e.num_warmup_replicas = v.min(self.max_warmup_replicas);
                    }
                }
                "streams.acceptable.recovery.lag" => {
                    if let Ok(v) = v.trim().parse::<i64>() {
                        e.acceptable_recovery_lag = v;
                    }
                }
                "streams.rack.aware.assignment.tags" => {
                    e.rack_aware_assignment_tags = Some(parse_list(v));
                }
                "streams.assignor.name" => {
                    e.assignor_name = Some(v.trim().to_string());
                }
                _ => {}
            }
        }
        e
    }

    /// The rack-aware tags one group works with.
    pub fn tags<'a>(&'a self, effective: &'a EffectiveConfig) -> &'a [String] {
        effective
            .rack_aware_assignment_tags
            .as_deref()
            .unwrap_or(&self.rack_aware_assignment_tags)
    }
}

/// The streams configs of one group after applying its overrides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EffectiveConfig {
    pub session_timeout_ms: i32,
    pub heartbeat_interval_ms: i32,
    pub num_standby_replicas: i32,
    pub initial_rebalance_delay_ms: i32,
    pub assignment_interval_ms: i32,
    /// `None` when the group does not override the broker's tags.
    pub rack_aware_assignment_tags: Option<Vec<String>>,
    pub task_offset_interval_ms: i32,
    pub num_warmup_replicas: i32,
    pub acceptable_recovery_lag: i64,
    pub assignor_name: Option<String>,
}

/// Validates one per-group `streams.*` override the way Kafka's `GroupConfig.validate` does on
/// IncrementalAlterConfigs (Kafka's messages). Returns `None` for keys that are not streams group
/// configs.
pub fn validate_group_config(
    broker: &StreamsConfig,
    key: &str,
    value: &str,
) -> Option<Result<(), ConfigError>> {
    let range = |min: i32, max: i32| int_in_range(key, value, min, max);
    let result = match key {
        "streams.session.timeout.ms" => parse_int_at_least(key, value, 1)
            .and_then(|_| range(broker.min_session_timeout_ms, broker.max_session_timeout_ms)),
        "streams.heartbeat.interval.ms" => parse_int_at_least(key, value, 1).and_then(|_| {
            range(
                broker.min_heartbeat_interval_ms,
                broker.max_heartbeat_interval_ms,
            )
        }),
        "streams.num.standby.replicas" => parse_int_at_least(key, value, 0).and_then(|v| {
            if v > broker.max_standby_replicas {
                Err(ConfigError::invalid(
                    key,
                    value,
                    format!(
                        "{key} must be less than or equal to {}",
                        broker.max_standby_replicas
                    ),
                ))
            } else {
                Ok(())
            }
        }),
        "streams.initial.rebalance.delay.ms" => parse_int_at_least(key, value, 0).map(|_| ()),
        "streams.assignment.interval.ms" => parse_int_at_least(key, value, 0).and_then(|_| {
            range(
                broker.min_assignment_interval_ms,
                broker.max_assignment_interval_ms,
            )
        }),
        "streams.assignor.offload.enable" => parse_bool(key, value).map(|_| ()),
        "streams.task.offset.interval.ms" => parse_int_at_least(key, value, 1).and_then(|v| {
            if v < broker.min_task_offset_interval_ms {
                Err(ConfigError::invalid(
                    key,
                    value,
                    format!(
                        "{key} must be greater than or equal to {}",
                        broker.min_task_offset_interval_ms
                    ),
                ))
            } else {
                Ok(())
            }
        }),
        "streams.num.warmup.replicas" => parse_int_at_least(key, value, 0).and_then(|v| {
            if v > broker.max_warmup_replicas {
                Err(ConfigError::invalid(
                    key,
                    value,
                    format!(
                        "{key} must be less than or equal to {}",
                        broker.max_warmup_replicas
                    ),
                ))
            } else {
                Ok(())
            }
        }),
        "streams.rack.aware.assignment.tags" => parse_tag_list(key, value, true).map(|_| ()),
        "streams.acceptable.recovery.lag" => parse_long_at_least(key, value, 0).map(|_| ()),
        "streams.assignor.name" => {
            if broker.assignors.iter().any(|a| a == value) {
                Ok(())
            } else {
                Err(ConfigError::invalid(
                    key,
                    value,
                    format!(
                        "{key} '{value}' is not a registered task assignor. Registered assignors are: [{}].",
                        broker.assignors.join(", ")
                    ),
                ))
            }
        }
        _ => return None,
    };
    Some(result)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_kafkas() {
        let c = StreamsConfig::default();
        assert_eq!(c.session_timeout_ms, 45_000);
        assert_eq!(c.heartbeat_interval_ms, 5_000);
        assert_eq!(c.initial_rebalance_delay_ms, 3_000);
        assert_eq!(c.assignment_interval_ms, 1_000);
        assert_eq!(c.task_offset_interval_ms, 60_000);
        assert_eq!(c.acceptable_recovery_lag, 10_000);
        assert_eq!(c.assignors, vec!["sticky"]);
        assert!(c.validate().is_ok());
    }

    #[test]
    fn stored_group_values_are_clamped_on_read() {
        // GroupMetadataManagerTest#testStreamsGroupEvaluatedConfigs.
        let c = StreamsConfig::default();
        let overrides: BTreeMap<String, String> = [
            ("streams.session.timeout.ms", "70000"),
            ("streams.heartbeat.interval.ms", "1"),
            ("streams.num.standby.replicas", "100"),
            ("streams.task.offset.interval.ms", "100"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let e = c.effective(Some(&overrides));
        assert_eq!(e.session_timeout_ms, 60_000);
        assert_eq!(e.heartbeat_interval_ms, 5_000);
        assert_eq!(e.num_standby_replicas, 2);
        assert_eq!(e.task_offset_interval_ms, 15_000);
    }

    #[test]
    fn every_group_override_is_read_and_bad_values_are_ignored() {
        let c = StreamsConfig::default();
        let overrides: BTreeMap<String, String> = [
            ("consumer.session.timeout.ms", "1"),
            ("streams.acceptable.recovery.lag", " 42 "),
            ("streams.assignment.interval.ms", "x"),
            ("streams.assignor.name", " sticky "),
            ("streams.initial.rebalance.delay.ms", "99999999999"),
            ("streams.num.warmup.replicas", "0"),
            ("streams.rack.aware.assignment.tags", "zone, rack"),
            ("streams.session.timeout.ms", "not a number"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        let e = c.effective(Some(&overrides));
        let defaults = c.effective(None);
        assert_eq!(
            e,
            EffectiveConfig {
                acceptable_recovery_lag: 42,
                assignor_name: Some("sticky".to_string()),
                initial_rebalance_delay_ms: i32::MAX,
                num_warmup_replicas: 0,
                rack_aware_assignment_tags: Some(vec!["zone".to_string(), "rack".to_string()]),
                ..defaults
            }
        );
    }

    #[test]
    fn broker_keys_are_bounded_and_cross_checked() {
        let mut c = StreamsConfig::default();
        assert!(c.try_set("group.streams.max.size", "0").unwrap().is_err());
        assert!(c.try_set("unrelated", "1").is_none());
        c.try_set("group.streams.num.standby.replicas", "3")
            .unwrap()
            .unwrap();
        let err = c.validate().unwrap_err().to_string();
        assert!(err.contains(
            "group.streams.num.standby.replicas must be less than or equal to group.streams.max.standby.replicas"
        ));
        assert!(
            c.try_set("group.streams.rack.aware.assignment.tags", "zone,zone")
                .unwrap()
                .is_err()
        );
        assert!(
            c.try_set("group.streams.rack.aware.assignment.tags", "zone,,cluster")
                .unwrap()
                .is_err()
        );
    }

    #[test]
    fn group_config_validation_uses_kafkas_messages() {
        let c = StreamsConfig::default();
        let err = validate_group_config(&c, "streams.session.timeout.ms", "70000")
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(
            err.contains(
                "streams.session.timeout.ms must be in the range 45000 to 60000 inclusive."
            )
        );
        let err = validate_group_config(&c, "streams.assignor.name", "custom")
            .unwrap()
            .unwrap_err()
            .to_string();
        assert!(err.contains(
            "streams.assignor.name 'custom' is not a registered task assignor. Registered assignors are: [sticky]."
        ));
    }
}

//! `group.consumer.*` broker configs (Kafka 4.4 `GroupCoordinatorConfig`) and their per-group overrides
//! (`consumer.*` keys of Kafka's dynamic `GroupConfig`), with Kafka's defaults and bounds.
//!
//! Broker keys are checked one by one when set (type and `atLeast` bounds); the cross-key rules Kafka
//! enforces at broker start-up are [`ConsumerConfig::validate`] (`verifyConsumerGroupConfigs`). Group
//! overrides are stored as given and evaluated when read, clamped to the broker's bounds
//! (`GroupConfig.evaluate`).

use std::collections::BTreeMap;

use super::streams::{int_in_range, parse_bool, parse_int_at_least, parse_list};
use super::values::ConfigError;

/// `group.consumer.migration.policy` (`ConsumerGroupMigrationPolicy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MigrationPolicy {
    Bidirectional,
    Upgrade,
    Downgrade,
    Disabled,
}

impl MigrationPolicy {
    /// `ConsumerGroupMigrationPolicy.parse`: case-insensitive.
    pub fn parse(value: &str) -> Option<Self> {
        match value.trim().to_ascii_lowercase().as_str() {
            "bidirectional" => Some(Self::Bidirectional),
            "upgrade" => Some(Self::Upgrade),
            "downgrade" => Some(Self::Downgrade),
            "disabled" => Some(Self::Disabled),
            _ => None,
        }
    }

    /// `isUpgradeEnabled`.
    pub fn upgrade_enabled(self) -> bool {
        matches!(self, Self::Bidirectional | Self::Upgrade)
    }

    /// `isDowngradeEnabled`.
    pub fn downgrade_enabled(self) -> bool {
        matches!(self, Self::Bidirectional | Self::Downgrade)
    }
}

/// The consumer part of the shard config, with Kafka 4.4's defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerConfig {
    pub session_timeout_ms: i32,
    pub min_session_timeout_ms: i32,
    pub max_session_timeout_ms: i32,
    pub heartbeat_interval_ms: i32,
    pub min_heartbeat_interval_ms: i32,
    pub max_heartbeat_interval_ms: i32,
    pub max_size: i32,
    /// `group.consumer.assignors`: the built-in names (`uniform`, `range`); the first is the default.
    pub assignors: Vec<String>,
    pub migration_policy: MigrationPolicy,
    pub assignment_interval_ms: i32,
    pub min_assignment_interval_ms: i32,
    pub max_assignment_interval_ms: i32,
    /// Read by no code path in 4.4 (`consumerGroupAssignorOffloadEnable` has no caller).
    pub assignor_offload_enable: bool,
    /// Internal: the longest time between two refreshes of a group's regular expressions.
    pub regex_refresh_interval_ms: i32,
    /// `group.coordinator.rebalance.protocols` contains `consumer` (Kafka's default): otherwise
    /// ConsumerGroupHeartbeat and ConsumerGroupDescribe answer UNSUPPORTED_VERSION.
    pub protocol_enabled: bool,
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        Self {
            session_timeout_ms: 45_000,
            min_session_timeout_ms: 45_000,
            max_session_timeout_ms: 60_000,
            heartbeat_interval_ms: 5_000,
            min_heartbeat_interval_ms: 5_000,
            max_heartbeat_interval_ms: 15_000,
            max_size: i32::MAX,
            assignors: vec!["uniform".to_string(), "range".to_string()],
            migration_policy: MigrationPolicy::Bidirectional,
            assignment_interval_ms: 1_000,
            min_assignment_interval_ms: 0,
            max_assignment_interval_ms: 15_000,
            assignor_offload_enable: true,
            regex_refresh_interval_ms: 600_000,
            protocol_enabled: true,
        }
    }
}

/// The values one consumer group works with: its overrides, clamped, or the broker's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EffectiveConsumerConfig {
    pub session_timeout_ms: i32,
    pub heartbeat_interval_ms: i32,
    pub assignment_interval_ms: i32,
}

impl ConsumerConfig {
    /// `Some(result)` if `key` is a consumer config, `None` otherwise.
    pub fn try_set(&mut self, key: &str, value: &str) -> Option<Result<(), ConfigError>> {
        let result = match key {
            "group.consumer.session.timeout.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.session_timeout_ms = v)
            }
            "group.consumer.min.session.timeout.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.min_session_timeout_ms = v)
            }
            "group.consumer.max.session.timeout.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.max_session_timeout_ms = v)
            }
            "group.consumer.heartbeat.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.heartbeat_interval_ms = v)
            }
            "group.consumer.min.heartbeat.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.min_heartbeat_interval_ms = v)
            }
            "group.consumer.max.heartbeat.interval.ms" => {
                parse_int_at_least(key, value, 1).map(|v| self.max_heartbeat_interval_ms = v)
            }
            "group.consumer.max.size" => {
                parse_int_at_least(key, value, 1).map(|v| self.max_size = v)
            }
            "group.consumer.assignment.interval.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.assignment_interval_ms = v)
            }
            "group.consumer.min.assignment.interval.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.min_assignment_interval_ms = v)
            }
            "group.consumer.max.assignment.interval.ms" => {
                parse_int_at_least(key, value, 0).map(|v| self.max_assignment_interval_ms = v)
            }
            "group.consumer.assignor.offload.enable" => {
                parse_bool(key, value).map(|v| self.assignor_offload_enable = v)
            }
            "group.consumer.regex.refresh.interval.ms" => {
                parse_int_at_least(key, value, 10_000).map(|v| self.regex_refresh_interval_ms = v)
            }
            "group.consumer.migration.policy" => match MigrationPolicy::parse(value) {
                Some(p) => {
                    self.migration_policy = p;
                    Ok(())
                }
                None => Err(ConfigError::invalid(
                    key,
                    value,
                    "String must be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL",
                )),
            },
            "group.consumer.assignors" => {
                let names = parse_list(value);
                let mut seen = std::collections::BTreeSet::new();
                if names.is_empty() {
                    Err(ConfigError::invalid(
                        key,
                        value,
                        "Configuration must not be empty",
                    ))
                } else if !names.iter().all(|n| seen.insert(n.as_str())) {
                    Err(ConfigError::invalid(
                        key,
                        value,
                        "Configuration contains duplicate values",
                    ))
                } else if let Some(unknown) = names
                    .iter()
                    .find(|n| crate::consumer::assignor::builtin(n).is_none())
                {
                    // regroup has no class loading: only the built-in assignor names are known.
                    Err(ConfigError::invalid(
                        key,
                        value,
                        format!("Class {unknown} cannot be found"),
                    ))
                } else {
                    self.assignors = names;
                    Ok(())
                }
            }
            "group.coordinator.rebalance.protocols" => {
                let names = parse_list(value);
                self.protocol_enabled = names.iter().any(|n| n.eq_ignore_ascii_case("consumer"));
                // The other group types read their own switches; this config is accepted whatever it
                // names (classic is always served by regroup).
                return Some(Ok(()));
            }
            _ => return None,
        };
        Some(result)
    }

    /// The default assignor: the first configured (`GroupCoordinatorConfig.consumerGroupAssignors`).
    pub fn default_assignor(&self) -> &str {
        self.assignors.first().map_or("uniform", String::as_str)
    }

    /// Kafka's `verifyConsumerGroupConfigs` cross-key rules, with Kafka's messages.
    pub fn validate(&self) -> Result<(), ConfigError> {
        fn require(ok: bool, message: String) -> Result<(), ConfigError> {
            if ok {
                Ok(())
            } else {
                Err(ConfigError::InvalidValue {
                    key: "group.consumer.*".to_string(),
                    value: String::new(),
                    reason: message,
                })
            }
        }
        let ge = |a: &str, b: &str| format!("{a} must be greater than or equal to {b}");
        let le = |a: &str, b: &str| format!("{a} must be less than or equal to {b}");
        let k = |s: &str| format!("group.consumer.{s}");
        require(
            self.max_heartbeat_interval_ms >= self.min_heartbeat_interval_ms,
            ge(
                &k("max.heartbeat.interval.ms"),
                &k("min.heartbeat.interval.ms"),
            ),
        )?;
        require(
            self.heartbeat_interval_ms >= self.min_heartbeat_interval_ms,
            ge(&k("heartbeat.interval.ms"), &k("min.heartbeat.interval.ms")),
        )?;
        require(
            self.heartbeat_interval_ms <= self.max_heartbeat_interval_ms,
            le(&k("heartbeat.interval.ms"), &k("max.heartbeat.interval.ms")),
        )?;
        require(
            self.max_session_timeout_ms >= self.min_session_timeout_ms,
            ge(&k("max.session.timeout.ms"), &k("min.session.timeout.ms")),
        )?;
        require(
            self.session_timeout_ms >= self.min_session_timeout_ms,
            ge(&k("session.timeout.ms"), &k("min.session.timeout.ms")),
        )?;
        require(
            self.session_timeout_ms <= self.max_session_timeout_ms,
            le(&k("session.timeout.ms"), &k("max.session.timeout.ms")),
        )?;
        require(
            self.heartbeat_interval_ms < self.session_timeout_ms,
            format!(
                "{} must be less than {}",
                k("heartbeat.interval.ms"),
                k("session.timeout.ms")
            ),
        )?;
        require(
            self.max_assignment_interval_ms >= self.min_assignment_interval_ms,
            ge(
                &k("max.assignment.interval.ms"),
                &k("min.assignment.interval.ms"),
            ),
        )?;
        require(
            self.assignment_interval_ms >= self.min_assignment_interval_ms,
            ge(
                &k("assignment.interval.ms"),
                &k("min.assignment.interval.ms"),
            ),
        )?;
        require(
            self.assignment_interval_ms <= self.max_assignment_interval_ms,
            le(
                &k("assignment.interval.ms"),
                &k("max.assignment.interval.ms"),
            ),
        )
    }

    /// The values one group works with (`consumerGroupSessionTimeoutMs` and friends: the group's
    /// override, clamped to the broker's bounds as `GroupConfig.evaluate` does, else the broker's).
    pub fn effective(
        &self,
        overrides: Option<&BTreeMap<String, String>>,
    ) -> EffectiveConsumerConfig {
        let mut e = EffectiveConsumerConfig {
            session_timeout_ms: self.session_timeout_ms,
            heartbeat_interval_ms: self.heartbeat_interval_ms,
            assignment_interval_ms: self.assignment_interval_ms,
        };
        let Some(overrides) = overrides else {
            return e;
        };
        let int = |k: &str| {
            overrides
                .get(k)
                .and_then(|v| v.trim().parse::<i64>().ok())
                .map(|v| v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
        };
        if let Some(v) = int("consumer.session.timeout.ms") {
            e.session_timeout_ms =
                v.clamp(self.min_session_timeout_ms, self.max_session_timeout_ms);
        }
        if let Some(v) = int("consumer.heartbeat.interval.ms") {
            e.heartbeat_interval_ms = v.clamp(
                self.min_heartbeat_interval_ms,
                self.max_heartbeat_interval_ms,
            );
        }
        if let Some(v) = int("consumer.assignment.interval.ms") {
            e.assignment_interval_ms = v.clamp(
                self.min_assignment_interval_ms,
                self.max_assignment_interval_ms,
            );
        }
        e
    }
}

/// Validates one `consumer.*` group config as Kafka's `GroupConfig.validate` does for
/// IncrementalAlterConfigs; `None` for a key that is not a consumer group config. The cross-key rule
/// (session above heartbeat) is [`validate_group_configs`].
pub fn validate_group_config(
    broker: &ConsumerConfig,
    key: &str,
    value: &str,
) -> Option<Result<(), ConfigError>> {
    let range = |min: i32, max: i32| int_in_range(key, value, min, max);
    let result = match key {
        "consumer.session.timeout.ms" => parse_int_at_least(key, value, 1)
            .and_then(|_| range(broker.min_session_timeout_ms, broker.max_session_timeout_ms)),
        "consumer.heartbeat.interval.ms" => parse_int_at_least(key, value, 1).and_then(|_| {
            range(
                broker.min_heartbeat_interval_ms,
                broker.max_heartbeat_interval_ms,
            )
        }),
        "consumer.assignment.interval.ms" => parse_int_at_least(key, value, 0).and_then(|_| {
            range(
                broker.min_assignment_interval_ms,
                broker.max_assignment_interval_ms,
            )
        }),
        "consumer.assignor.offload.enable" => parse_bool(key, value).map(|_| ()),
        _ => return None,
    };
    Some(result)
}

/// `GroupConfig.validate`'s cross-key rule for consumer groups: when either is set, the effective
/// session timeout must exceed the effective heartbeat interval (broker defaults for the one not set).
pub fn validate_group_configs(
    broker: &ConsumerConfig,
    configs: &BTreeMap<String, String>,
) -> Result<(), ConfigError> {
    let session = configs.get("consumer.session.timeout.ms");
    let heartbeat = configs.get("consumer.heartbeat.interval.ms");
    if session.is_none() && heartbeat.is_none() {
        return Ok(());
    }
    let parse = |v: Option<&String>, d: i32| {
        v.and_then(|v| v.trim().parse::<i64>().ok())
            .unwrap_or(i64::from(d))
    };
    let s = parse(session, broker.session_timeout_ms);
    let h = parse(heartbeat, broker.heartbeat_interval_ms);
    if s <= h {
        return Err(ConfigError::invalid(
            "consumer.session.timeout.ms",
            s,
            "consumer.session.timeout.ms must be greater than consumer.heartbeat.interval.ms",
        ));
    }
    Ok(())
}

//! The topic configs a successful CreateTopics (v5+) answer lists
//! (`ReplicationControlManager.createTopic` with `ConfigurationControlManager.computeEffectiveTopicConfigs`):
//! every topic config of Kafka 4.4.0's `LogConfig` with its effective value and where the value
//! comes from, sorted by name.
//!
//! regroup stores no topic configs (docs/divergences.md, "Topic configs"), so the values are Kafka
//! 4.4.0's defaults, except `min.insync.replicas`, which the controller's own config gives, and a
//! config the request names, which the answer lists as the topic's own (the request's value is
//! neither validated nor kept). The table is what a Kafka 4.4.0 cluster with no topic-config
//! overrides answered (`conformance/real_kafka/rude-admin.jsonl`, line 1).

use protocol::messages::StrBytes;
use protocol::messages::create_topics_response::CreatableTopicConfigs;

/// `DescribeConfigsResponse.ConfigSource` ids, as `KafkaConfigSchema.translateConfigSource` gives them.
pub mod source {
    /// A config set on the topic.
    pub const DYNAMIC_TOPIC_CONFIG: i8 = 1;
    /// A cluster-wide dynamic default (the controller writes `min.insync.replicas` as one when
    /// eligible leader replicas are on).
    pub const DYNAMIC_DEFAULT_BROKER_CONFIG: i8 = 3;
    /// The controller's static config (its properties file).
    pub const STATIC_BROKER_CONFIG: i8 = 4;
    /// The schema's default.
    pub const DEFAULT_CONFIG: i8 = 5;
}

/// Kafka 4.4.0's topic configs and their defaults, sorted by name (`min.insync.replicas` is
/// filled in from the controller's config).
const DEFAULTS: &[(&str, &str)] = &[
    ("cleanup.policy", "delete"),
    ("compression.gzip.level", "-1"),
    ("compression.lz4.level", "9"),
    ("compression.type", "producer"),
    ("compression.zstd.level", "3"),
    ("delete.retention.ms", "86400000"),
    ("errors.deadletterqueue.group.enable", "false"),
    ("file.delete.delay.ms", "60000"),
    ("flush.messages", "9223372036854775807"),
    ("flush.ms", "9223372036854775807"),
    ("follower.replication.throttled.replicas", ""),
    ("index.interval.bytes", "4096"),
    ("leader.replication.throttled.replicas", ""),
    ("local.retention.bytes", "-2"),
    ("local.retention.ms", "-2"),
    ("max.compaction.lag.ms", "9223372036854775807"),
    ("max.decompressed.message.bytes", "2147483639"),
    ("max.message.bytes", "1048588"),
    ("message.timestamp.after.max.ms", "3600000"),
    ("message.timestamp.before.max.ms", "9223372036854775807"),
    ("message.timestamp.type", "CreateTime"),
    ("min.cleanable.dirty.ratio", "0.5"),
    ("min.compaction.lag.ms", "0"),
    ("min.insync.replicas", "1"),
    ("preallocate", "false"),
    ("remote.copy.lag.bytes", "-1"),
    ("remote.copy.lag.ms", "0"),
    ("remote.log.copy.disable", "false"),
    ("remote.log.delete.on.disable", "false"),
    ("remote.storage.enable", "false"),
    ("retention.bytes", "-1"),
    ("retention.ms", "604800000"),
    ("segment.bytes", "1073741824"),
    ("segment.index.bytes", "10485760"),
    ("segment.jitter.ms", "0"),
    ("segment.ms", "604800000"),
    ("unclean.leader.election.enable", "false"),
];

/// Where the controller's `min.insync.replicas` comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinInsyncReplicas {
    pub value: i32,
    /// Eligible leader replicas are on: the controller has written the value as the cluster's
    /// dynamic default.
    pub elr_enabled: bool,
    /// The controller's properties set it.
    pub configured: bool,
}

impl MinInsyncReplicas {
    fn source(self) -> i8 {
        if self.elr_enabled {
            source::DYNAMIC_DEFAULT_BROKER_CONFIG
        } else if self.configured {
            source::STATIC_BROKER_CONFIG
        } else {
            source::DEFAULT_CONFIG
        }
    }
}

/// The configs of a new topic as the answer lists them: `requested` (the request's name/value
/// pairs; a name that is not a topic config is left out) over the defaults.
pub fn effective_topic_configs(
    min_insync: MinInsyncReplicas,
    requested: &[(String, Option<String>)],
) -> Vec<CreatableTopicConfigs> {
    DEFAULTS
        .iter()
        .map(|&(name, default)| {
            let own = requested
                .iter()
                .rev()
                .find(|(n, v)| n == name && v.is_some())
                .and_then(|(_, v)| v.clone());
            let (value, source) = match own {
                Some(v) => (v, source::DYNAMIC_TOPIC_CONFIG),
                None if name == "min.insync.replicas" => {
                    (min_insync.value.to_string(), min_insync.source())
                }
                None => (default.to_string(), source::DEFAULT_CONFIG),
            };
            CreatableTopicConfigs::default()
                .with_name(StrBytes::from_string(name.to_string()))
                .with_value(Some(StrBytes::from_string(value)))
                .with_read_only(false)
                .with_config_source(source)
                .with_is_sensitive(false)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(c: &CreatableTopicConfigs) -> (String, String, i8) {
        (
            c.name.to_string(),
            c.value.as_ref().map(|v| v.to_string()).unwrap_or_default(),
            c.config_source,
        )
    }

    #[test]
    fn lists_every_topic_config_sorted_with_kafkas_sources() {
        let mir = MinInsyncReplicas {
            value: 2,
            elr_enabled: true,
            configured: true,
        };
        let configs = effective_topic_configs(mir, &[]);
        assert_eq!(configs.len(), 37);
        let names: Vec<String> = configs.iter().map(|c| c.name.to_string()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted);
        assert_eq!(
            row(&configs[0]),
            ("cleanup.policy".into(), "delete".into(), 5)
        );
        let min = configs
            .iter()
            .find(|c| c.name.as_str() == "min.insync.replicas")
            .unwrap();
        assert_eq!(row(min), ("min.insync.replicas".into(), "2".into(), 3));
        // Without eligible leader replicas the value is the static config's, or the default.
        let stat = effective_topic_configs(
            MinInsyncReplicas {
                elr_enabled: false,
                ..mir
            },
            &[],
        );
        assert_eq!(row(&stat[23]).2, 4);
        let dflt = effective_topic_configs(
            MinInsyncReplicas {
                value: 1,
                elr_enabled: false,
                configured: false,
            },
            &[],
        );
        assert_eq!(
            row(&dflt[23]),
            ("min.insync.replicas".into(), "1".into(), 5)
        );
    }

    #[test]
    fn a_requested_config_is_the_topics_own() {
        let mir = MinInsyncReplicas {
            value: 1,
            elr_enabled: true,
            configured: false,
        };
        let configs = effective_topic_configs(
            mir,
            &[
                ("cleanup.policy".into(), Some("compact".into())),
                ("min.insync.replicas".into(), Some("2".into())),
                ("retention.ms".into(), None),
                ("no.such.config".into(), Some("x".into())),
            ],
        );
        assert_eq!(configs.len(), 37);
        assert_eq!(
            row(&configs[0]),
            ("cleanup.policy".into(), "compact".into(), 1)
        );
        assert_eq!(
            row(&configs[23]),
            ("min.insync.replicas".into(), "2".into(), 1)
        );
        let retention = configs
            .iter()
            .find(|c| c.name.as_str() == "retention.ms")
            .unwrap();
        assert_eq!(
            row(retention),
            ("retention.ms".into(), "604800000".into(), 5)
        );
    }
}

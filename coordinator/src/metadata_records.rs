//! The records of regroup's metadata log, modelled on KRaft's metadata records
//! (`metadata/src/main/resources/common/metadata/*.json`): the controller writes them, every
//! broker replays them in offset order, and the offset of a record is its position in the log.
//!
//! Only the records and fields the broker lifecycle and partition leadership need are modelled
//! (feature levels, broker registrations and their changes, topics, partitions and partition
//! changes). They travel to brokers as JSON over regroup's internal metadata fetch (see
//! `rpc.rs`); their field names follow Kafka's record schemas.

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// `PartitionChangeRecord.Leader` value meaning "the leader does not change".
pub const NO_LEADER_CHANGE: i32 = -2;
/// No leader.
pub const NO_LEADER: i32 = -1;

/// Kafka's `LeaderRecoveryState`: 0 RECOVERED, 1 RECOVERING (after an unclean election).
pub const LEADER_RECOVERED: i8 = 0;
pub const LEADER_RECOVERING: i8 = 1;

/// One listener of a broker (`RegisterBrokerRecord.EndPoints`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub name: String,
    pub host: String,
    pub port: u16,
    pub security_protocol: i16,
}

/// A supported feature range of a broker (`RegisterBrokerRecord.Features`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FeatureRange {
    pub name: String,
    pub min_supported_version: i16,
    pub max_supported_version: i16,
}

/// One metadata record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum MetadataRecord {
    /// `FeatureLevelRecord`: a finalized feature level.
    FeatureLevel { name: String, feature_level: i16 },
    /// `RegisterBrokerRecord`: a broker incarnation registered (or amended its registration).
    RegisterBroker {
        broker_id: i32,
        #[serde(with = "kafka_uuid")]
        incarnation_id: Uuid,
        broker_epoch: i64,
        end_points: Vec<Endpoint>,
        features: Vec<FeatureRange>,
        rack: Option<String>,
        fenced: bool,
        in_controlled_shutdown: bool,
        #[serde(with = "kafka_uuids")]
        log_dirs: Vec<Uuid>,
    },
    /// `BrokerRegistrationChangeRecord`: `fenced` is +1 fence, -1 unfence, 0 no change;
    /// `in_controlled_shutdown` is 1 to enter controlled shutdown, 0 no change;
    /// `cordoned_log_dirs` replaces the registration's cordoned directories when present.
    BrokerRegistrationChange {
        broker_id: i32,
        broker_epoch: i64,
        fenced: i8,
        in_controlled_shutdown: i8,
        #[serde(
            default,
            with = "opt_kafka_uuids",
            skip_serializing_if = "Option::is_none"
        )]
        cordoned_log_dirs: Option<Vec<Uuid>>,
    },
    /// `TopicRecord`.
    Topic {
        name: String,
        #[serde(with = "kafka_uuid")]
        topic_id: Uuid,
    },
    /// `PartitionRecord`: a new partition.
    Partition {
        #[serde(with = "kafka_uuid")]
        topic_id: Uuid,
        partition_id: i32,
        replicas: Vec<i32>,
        isr: Vec<i32>,
        eligible_leader_replicas: Vec<i32>,
        last_known_elr: Vec<i32>,
        leader: i32,
        leader_recovery_state: i8,
        leader_epoch: i32,
        partition_epoch: i32,
    },
    /// `RemoveTopicRecord`: the topic and all its partitions are gone.
    RemoveTopic {
        #[serde(with = "kafka_uuid")]
        topic_id: Uuid,
    },
    /// `PartitionChangeRecord`: absent fields do not change; `leader` is
    /// [`NO_LEADER_CHANGE`] when the leader stays (a changed leader bumps the leader epoch).
    PartitionChange {
        #[serde(with = "kafka_uuid")]
        topic_id: Uuid,
        partition_id: i32,
        leader: i32,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        isr: Option<Vec<i32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        eligible_leader_replicas: Option<Vec<i32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        last_known_elr: Option<Vec<i32>>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        leader_recovery_state: Option<i8>,
    },
}

impl MetadataRecord {
    /// The (topic id, partition) a `PartitionRecord` or `PartitionChangeRecord` is about.
    pub fn partition_key(&self) -> Option<(Uuid, i32)> {
        match self {
            MetadataRecord::Partition {
                topic_id,
                partition_id,
                ..
            }
            | MetadataRecord::PartitionChange {
                topic_id,
                partition_id,
                ..
            } => Some((*topic_id, *partition_id)),
            _ => None,
        }
    }

    /// Kafka's name of the record type, for logs.
    pub fn type_name(&self) -> &'static str {
        match self {
            MetadataRecord::FeatureLevel { .. } => "FeatureLevelRecord",
            MetadataRecord::RegisterBroker { .. } => "RegisterBrokerRecord",
            MetadataRecord::BrokerRegistrationChange { .. } => "BrokerRegistrationChangeRecord",
            MetadataRecord::Topic { .. } => "TopicRecord",
            MetadataRecord::Partition { .. } => "PartitionRecord",
            MetadataRecord::PartitionChange { .. } => "PartitionChangeRecord",
            MetadataRecord::RemoveTopic { .. } => "RemoveTopicRecord",
        }
    }
}

/// Uuids in Kafka's string form (URL-safe base64, 22 characters).
mod kafka_uuid {
    use serde::{Deserialize, Deserializer, Serializer};
    use uuid::Uuid;

    pub fn serialize<S: Serializer>(id: &Uuid, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&crate::records::json::kafka_uuid_string(id))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
        let text = String::deserialize(d)?;
        crate::records::json::parse_kafka_uuid(&text)
            .ok_or_else(|| serde::de::Error::custom(format!("invalid uuid {text:?}")))
    }
}

mod kafka_uuids {
    use serde::{Deserialize, Deserializer, Serializer, ser::SerializeSeq};
    use uuid::Uuid;

    pub fn serialize<S: Serializer>(ids: &[Uuid], s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(ids.len()))?;
        for id in ids {
            seq.serialize_element(&crate::records::json::kafka_uuid_string(id))?;
        }
        seq.end()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Uuid>, D::Error> {
        let texts = Vec::<String>::deserialize(d)?;
        texts
            .iter()
            .map(|t| {
                crate::records::json::parse_kafka_uuid(t)
                    .ok_or_else(|| serde::de::Error::custom(format!("invalid uuid {t:?}")))
            })
            .collect()
    }
}

mod opt_kafka_uuids {
    use serde::{Deserialize, Deserializer, Serializer};
    use uuid::Uuid;

    pub fn serialize<S: Serializer>(ids: &Option<Vec<Uuid>>, s: S) -> Result<S::Ok, S::Error> {
        match ids {
            Some(ids) => super::kafka_uuids::serialize(ids, s),
            None => s.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Uuid>>, D::Error> {
        let texts = Option::<Vec<String>>::deserialize(d)?;
        match texts {
            None => Ok(None),
            Some(texts) => texts
                .iter()
                .map(|t| {
                    crate::records::json::parse_kafka_uuid(t)
                        .ok_or_else(|| serde::de::Error::custom(format!("invalid uuid {t:?}")))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip_through_json_with_kafka_field_names() {
        let records = vec![
            MetadataRecord::FeatureLevel {
                name: "metadata.version".into(),
                feature_level: 30,
            },
            MetadataRecord::BrokerRegistrationChange {
                broker_id: 1,
                broker_epoch: 5,
                fenced: 1,
                in_controlled_shutdown: 0,
                cordoned_log_dirs: Some(vec![]),
            },
            MetadataRecord::PartitionChange {
                topic_id: Uuid::from_u64_pair(1, 2),
                partition_id: 0,
                leader: NO_LEADER_CHANGE,
                isr: Some(vec![1, 2]),
                eligible_leader_replicas: None,
                last_known_elr: None,
                leader_recovery_state: None,
            },
        ];
        let text = serde_json::to_string(&records).unwrap();
        assert!(text.contains("\"type\":\"PartitionChange\""), "{text}");
        assert!(text.contains("\"brokerEpoch\":5"), "{text}");
        assert!(
            text.contains("\"topicId\":\"AAAAAAAAAAEAAAAAAAAAAg\""),
            "{text}"
        );
        let back: Vec<MetadataRecord> = serde_json::from_str(&text).unwrap();
        assert_eq!(back, records);
    }
}

//! The consumer-group records of `__consumer_offsets` (record types 3, 4, 5, 6, 7, 8 and 16), with the
//! fields of Kafka 4.4's `ConsumerGroup*Key`/`ConsumerGroup*Value` schemas
//! (`group-coordinator/src/main/resources/common/message/`). Every value is written at version 0.
//! Serialised to JSON the way Kafka's generated JsonConverter does: lowerCamelCase names, uuids in
//! `Uuid.toString()` form, tagged fields only when they differ from their default (a nullable tagged
//! struct or array is written even when null, as the converter does).

use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::json::{base64_bytes, kafka_uuid};

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// Key of every consumer record that belongs to the group as a whole (types 3, 4, 6).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupKey {
    pub group_id: String,
}

/// Key of every consumer record that belongs to one member (types 5, 7, 8).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerMemberKey {
    pub group_id: String,
    pub member_id: String,
}

/// Key of a resolved regular expression (type 16).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerRegexKey {
    pub group_id: String,
    pub regular_expression: String,
}

/// ConsumerGroupMetadataValue (type 3): the group epoch and the metadata hash (tag 0, 4.1+).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupMetadataValue {
    pub epoch: i32,
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub metadata_hash: i64,
}

/// The racks of one partition in the legacy subscription metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PartitionMetadata {
    pub partition: i32,
    pub racks: Vec<String>,
}

/// One topic of the legacy subscription metadata.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicMetadata {
    #[serde(with = "kafka_uuid")]
    pub topic_id: Uuid,
    pub topic_name: String,
    pub num_partitions: i32,
    pub partition_metadata: Vec<PartitionMetadata>,
}

/// ConsumerGroupPartitionMetadataValue (type 4): the subscription metadata Kafka wrote before 4.1.
/// 4.4 never writes one; it replays it (only to remember that one exists) and tombstones it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupPartitionMetadataValue {
    pub topics: Vec<TopicMetadata>,
}

/// One protocol of a classic-protocol member (name and its embedded subscription bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassicProtocol {
    pub name: String,
    #[serde(with = "base64_bytes")]
    pub metadata: Vec<u8>,
}

/// What a member that joined with the classic protocol keeps (tag 0 of the member metadata).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClassicMemberMetadata {
    pub session_timeout_ms: i32,
    pub supported_protocols: Vec<ClassicProtocol>,
}

/// ConsumerGroupMemberMetadataValue (type 5): the member's subscription and identity.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupMemberMetadataValue {
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    /// Sorted (`newConsumerGroupMemberSubscriptionRecord` sorts them).
    pub subscribed_topic_names: Vec<String>,
    pub subscribed_topic_regex: Option<String>,
    pub rebalance_timeout_ms: i32,
    pub server_assignor: Option<String>,
    /// Tag 0, nullable.
    #[serde(default)]
    pub classic_member_metadata: Option<ClassicMemberMetadata>,
}

/// ConsumerGroupTargetAssignmentMetadataValue (type 6).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupTargetAssignmentMetadataValue {
    pub assignment_epoch: i32,
    /// Tag 0 (4.3+): when the assignment computation finished, in the coordinator's clock.
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub assignment_timestamp: i64,
}

/// The partitions of one topic of a target assignment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetTopicPartitions {
    #[serde(with = "kafka_uuid")]
    pub topic_id: Uuid,
    pub partitions: Vec<i32>,
}

/// ConsumerGroupTargetAssignmentMemberValue (type 7): the member's target.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupTargetAssignmentMemberValue {
    pub topic_partitions: Vec<TargetTopicPartitions>,
}

/// The partitions of one topic of a current assignment, with the epoch each was assigned at
/// (`AssignmentEpochs`, tag 0, KIP-1251; same length as `partitions`, always written by 4.4).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrentTopicPartitions {
    #[serde(with = "kafka_uuid")]
    pub topic_id: Uuid,
    pub partitions: Vec<i32>,
    #[serde(default)]
    pub assignment_epochs: Option<Vec<i32>>,
}

/// ConsumerGroupCurrentMemberAssignmentValue (type 8): the member's epochs, reconciliation state,
/// what it owns and what it must still give up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupCurrentMemberAssignmentValue {
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    /// MemberState as int8: 0 STABLE, 1 UNREVOKED_PARTITIONS, 2 UNRELEASED_PARTITIONS (any other: UNKNOWN).
    pub state: i8,
    pub assigned_partitions: Vec<CurrentTopicPartitions>,
    pub partitions_pending_revocation: Vec<CurrentTopicPartitions>,
}

/// ConsumerGroupRegularExpressionValue (type 16): a resolved regular expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConsumerGroupRegularExpressionValue {
    /// Sorted.
    pub topics: Vec<String>,
    pub version: i64,
    pub timestamp: i64,
}

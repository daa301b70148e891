//! The records a coordinator shard appends to its `__consumer_offsets` partition. A `None` value is a
//! tombstone. Replaying the records of a partition in order rebuilds the shard's persistent state, which
//! is how a coordinator loads after fail-over.

pub mod classic;
pub mod codec;
pub mod consumer;
pub mod json;
pub mod offsets;
pub mod streams;
pub mod wire;

use serde_json::{Value, json};

use classic::{GroupMetadataKey, GroupMetadataValue};
use consumer::{
    ConsumerGroupCurrentMemberAssignmentValue, ConsumerGroupKey, ConsumerGroupMemberMetadataValue,
    ConsumerGroupMetadataValue, ConsumerGroupPartitionMetadataValue,
    ConsumerGroupRegularExpressionValue, ConsumerGroupTargetAssignmentMemberValue,
    ConsumerGroupTargetAssignmentMetadataValue, ConsumerMemberKey, ConsumerRegexKey,
};
use offsets::{OffsetCommitKey, OffsetCommitValue};
use streams::{
    StreamsGroupCurrentMemberAssignmentValue, StreamsGroupKey, StreamsGroupMemberMetadataValue,
    StreamsGroupMetadataValue, StreamsGroupTargetAssignmentMemberValue,
    StreamsGroupTargetAssignmentMetadataValue, StreamsGroupTopologyValue, StreamsMemberKey,
};

/// One record of a `__consumer_offsets` partition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Record {
    OffsetCommit {
        key: OffsetCommitKey,
        value: Option<OffsetCommitValue>,
    },
    /// An OffsetCommit record in a transactional batch of `producer_id` (TxnOffsetCommit): the offset stays
    /// pending until the producer's transaction ends.
    TxnOffsetCommit {
        producer_id: i64,
        producer_epoch: i16,
        key: OffsetCommitKey,
        value: Option<OffsetCommitValue>,
    },
    GroupMetadata {
        key: GroupMetadataKey,
        value: Option<GroupMetadataValue>,
    },
    ConsumerGroupMetadata {
        key: ConsumerGroupKey,
        value: Option<ConsumerGroupMetadataValue>,
    },
    ConsumerGroupPartitionMetadata {
        key: ConsumerGroupKey,
        value: Option<ConsumerGroupPartitionMetadataValue>,
    },
    ConsumerGroupMemberMetadata {
        key: ConsumerMemberKey,
        value: Option<ConsumerGroupMemberMetadataValue>,
    },
    ConsumerGroupTargetAssignmentMetadata {
        key: ConsumerGroupKey,
        value: Option<ConsumerGroupTargetAssignmentMetadataValue>,
    },
    ConsumerGroupTargetAssignmentMember {
        key: ConsumerMemberKey,
        value: Option<ConsumerGroupTargetAssignmentMemberValue>,
    },
    ConsumerGroupCurrentMemberAssignment {
        key: ConsumerMemberKey,
        value: Option<ConsumerGroupCurrentMemberAssignmentValue>,
    },
    ConsumerGroupRegularExpression {
        key: ConsumerRegexKey,
        value: Option<ConsumerGroupRegularExpressionValue>,
    },
    StreamsGroupMetadata {
        key: StreamsGroupKey,
        value: Option<StreamsGroupMetadataValue>,
    },
    StreamsGroupMemberMetadata {
        key: StreamsMemberKey,
        value: Option<StreamsGroupMemberMetadataValue>,
    },
    StreamsGroupTargetAssignmentMetadata {
        key: StreamsGroupKey,
        value: Option<StreamsGroupTargetAssignmentMetadataValue>,
    },
    StreamsGroupTargetAssignmentMember {
        key: StreamsMemberKey,
        value: Option<StreamsGroupTargetAssignmentMemberValue>,
    },
    StreamsGroupCurrentMemberAssignment {
        key: StreamsMemberKey,
        value: Option<StreamsGroupCurrentMemberAssignmentValue>,
    },
    StreamsGroupTopology {
        key: StreamsGroupKey,
        value: Option<StreamsGroupTopologyValue>,
    },
}

impl Record {
    /// The record as read from a batch written by `producer`: an offset commit in a transactional
    /// batch is a transactional offset commit (Kafka's loader tells them apart by the batch, not the
    /// record). Both the coordinator's load and the simulator's mirror read batches this way.
    pub fn with_producer(self, producer: Option<(i64, i16)>) -> Record {
        match (self, producer) {
            (Record::OffsetCommit { key, value }, Some((producer_id, producer_epoch))) => {
                Record::TxnOffsetCommit {
                    producer_id,
                    producer_epoch,
                    key,
                    value,
                }
            }
            (record, _) => record,
        }
    }

    /// Kafka's record type (the `apiKey` of the coordinator-key schema).
    pub fn record_type(&self) -> i16 {
        match self {
            Record::OffsetCommit { .. } | Record::TxnOffsetCommit { .. } => 1,
            Record::GroupMetadata { .. } => 2,
            Record::ConsumerGroupMetadata { .. } => 3,
            Record::ConsumerGroupPartitionMetadata { .. } => 4,
            Record::ConsumerGroupMemberMetadata { .. } => 5,
            Record::ConsumerGroupTargetAssignmentMetadata { .. } => 6,
            Record::ConsumerGroupTargetAssignmentMember { .. } => 7,
            Record::ConsumerGroupCurrentMemberAssignment { .. } => 8,
            Record::ConsumerGroupRegularExpression { .. } => 16,
            Record::StreamsGroupMetadata { .. } => 17,
            Record::StreamsGroupMemberMetadata { .. } => 19,
            Record::StreamsGroupTargetAssignmentMetadata { .. } => 20,
            Record::StreamsGroupTargetAssignmentMember { .. } => 21,
            Record::StreamsGroupCurrentMemberAssignment { .. } => 22,
            Record::StreamsGroupTopology { .. } => 23,
        }
    }

    /// The record's name without the Key/Value suffix, as `regroup script` prints it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Record::OffsetCommit { .. } | Record::TxnOffsetCommit { .. } => "OffsetCommit",
            Record::GroupMetadata { .. } => "GroupMetadata",
            Record::ConsumerGroupMetadata { .. } => "ConsumerGroupMetadata",
            Record::ConsumerGroupPartitionMetadata { .. } => "ConsumerGroupPartitionMetadata",
            Record::ConsumerGroupMemberMetadata { .. } => "ConsumerGroupMemberMetadata",
            Record::ConsumerGroupTargetAssignmentMetadata { .. } => {
                "ConsumerGroupTargetAssignmentMetadata"
            }
            Record::ConsumerGroupTargetAssignmentMember { .. } => {
                "ConsumerGroupTargetAssignmentMember"
            }
            Record::ConsumerGroupCurrentMemberAssignment { .. } => {
                "ConsumerGroupCurrentMemberAssignment"
            }
            Record::ConsumerGroupRegularExpression { .. } => "ConsumerGroupRegularExpression",
            Record::StreamsGroupMetadata { .. } => "StreamsGroupMetadata",
            Record::StreamsGroupMemberMetadata { .. } => "StreamsGroupMemberMetadata",
            Record::StreamsGroupTargetAssignmentMetadata { .. } => {
                "StreamsGroupTargetAssignmentMetadata"
            }
            Record::StreamsGroupTargetAssignmentMember { .. } => {
                "StreamsGroupTargetAssignmentMember"
            }
            Record::StreamsGroupCurrentMemberAssignment { .. } => {
                "StreamsGroupCurrentMemberAssignment"
            }
            Record::StreamsGroupTopology { .. } => "StreamsGroupTopology",
        }
    }

    /// True for a tombstone (null value).
    pub fn is_tombstone(&self) -> bool {
        match self {
            Record::OffsetCommit { value, .. } | Record::TxnOffsetCommit { value, .. } => {
                value.is_none()
            }
            Record::GroupMetadata { value, .. } => value.is_none(),
            Record::ConsumerGroupMetadata { value, .. } => value.is_none(),
            Record::ConsumerGroupPartitionMetadata { value, .. } => value.is_none(),
            Record::ConsumerGroupMemberMetadata { value, .. } => value.is_none(),
            Record::ConsumerGroupTargetAssignmentMetadata { value, .. } => value.is_none(),
            Record::ConsumerGroupTargetAssignmentMember { value, .. } => value.is_none(),
            Record::ConsumerGroupCurrentMemberAssignment { value, .. } => value.is_none(),
            Record::ConsumerGroupRegularExpression { value, .. } => value.is_none(),
            Record::StreamsGroupMetadata { value, .. } => value.is_none(),
            Record::StreamsGroupMemberMetadata { value, .. } => value.is_none(),
            Record::StreamsGroupTargetAssignmentMetadata { value, .. } => value.is_none(),
            Record::StreamsGroupTargetAssignmentMember { value, .. } => value.is_none(),
            Record::StreamsGroupCurrentMemberAssignment { value, .. } => value.is_none(),
            Record::StreamsGroupTopology { value, .. } => value.is_none(),
        }
    }

    /// The group the record belongs to.
    pub fn group_id(&self) -> &str {
        match self {
            Record::OffsetCommit { key, .. } | Record::TxnOffsetCommit { key, .. } => &key.group,
            Record::GroupMetadata { key, .. } => &key.group,
            Record::ConsumerGroupMetadata { key, .. }
            | Record::ConsumerGroupPartitionMetadata { key, .. }
            | Record::ConsumerGroupTargetAssignmentMetadata { key, .. } => &key.group_id,
            Record::ConsumerGroupMemberMetadata { key, .. }
            | Record::ConsumerGroupTargetAssignmentMember { key, .. }
            | Record::ConsumerGroupCurrentMemberAssignment { key, .. } => &key.group_id,
            Record::ConsumerGroupRegularExpression { key, .. } => &key.group_id,
            Record::StreamsGroupMetadata { key, .. }
            | Record::StreamsGroupTargetAssignmentMetadata { key, .. }
            | Record::StreamsGroupTopology { key, .. } => &key.group_id,
            Record::StreamsGroupMemberMetadata { key, .. }
            | Record::StreamsGroupTargetAssignmentMember { key, .. }
            | Record::StreamsGroupCurrentMemberAssignment { key, .. } => &key.group_id,
        }
    }

    /// `{"type": ..., "key": {...}, "value": {...} | null}` with keys and values in the form Kafka's
    /// generated JsonConverter writes them; a transactional offset commit also carries its batch's
    /// `producerId` and `producerEpoch`.
    pub fn to_json(&self) -> Value {
        fn ser<T: serde::Serialize>(v: &T) -> Value {
            // The record types are plain data; serialising them cannot fail.
            serde_json::to_value(v).unwrap_or(Value::Null)
        }
        fn opt<T: serde::Serialize>(v: &Option<T>) -> Value {
            v.as_ref().map(ser).unwrap_or(Value::Null)
        }
        let (key, value) = match self {
            Record::OffsetCommit { key, value } => (
                ser(key),
                value.as_ref().map(|v| v.to_json()).unwrap_or(Value::Null),
            ),
            Record::TxnOffsetCommit {
                producer_id,
                producer_epoch,
                key,
                value,
            } => {
                return json!({
                    "type": self.type_name(),
                    "key": ser(key),
                    "value": value.as_ref().map(|v| v.to_json()).unwrap_or(Value::Null),
                    "producerId": producer_id,
                    "producerEpoch": producer_epoch,
                });
            }
            Record::GroupMetadata { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupMetadata { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupPartitionMetadata { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupMemberMetadata { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupTargetAssignmentMetadata { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupTargetAssignmentMember { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupCurrentMemberAssignment { key, value } => (ser(key), opt(value)),
            Record::ConsumerGroupRegularExpression { key, value } => (ser(key), opt(value)),
            Record::StreamsGroupMetadata { key, value } => (ser(key), opt(value)),
            Record::StreamsGroupMemberMetadata { key, value } => (ser(key), opt(value)),
            Record::StreamsGroupTargetAssignmentMetadata { key, value } => (ser(key), opt(value)),
            Record::StreamsGroupTargetAssignmentMember { key, value } => (ser(key), opt(value)),
            Record::StreamsGroupCurrentMemberAssignment { key, value } => (ser(key), opt(value)),
            Record::StreamsGroupTopology { key, value } => (ser(key), opt(value)),
        };
        json!({"type": self.type_name(), "key": key, "value": value})
    }
}

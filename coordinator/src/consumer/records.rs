//! The records a consumer group writes (Kafka's `GroupCoordinatorRecordHelpers.newConsumerGroup*`).

use crate::consumer::member::{ConsumerGroupMember, Partitions, topic_order};
use crate::records::Record;
use crate::records::consumer::{
    ConsumerGroupKey, ConsumerGroupMetadataValue, ConsumerGroupRegularExpressionValue,
    ConsumerGroupTargetAssignmentMemberValue, ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerMemberKey, ConsumerRegexKey, TargetTopicPartitions,
};

fn gkey(group_id: &str) -> ConsumerGroupKey {
    ConsumerGroupKey {
        group_id: group_id.to_string(),
    }
}

fn mkey(group_id: &str, member_id: &str) -> ConsumerMemberKey {
    ConsumerMemberKey {
        group_id: group_id.to_string(),
        member_id: member_id.to_string(),
    }
}

/// `newConsumerGroupEpochRecord`.
pub fn group_epoch_record(group_id: &str, epoch: i32, metadata_hash: i64) -> Record {
    Record::ConsumerGroupMetadata {
        key: gkey(group_id),
        value: Some(ConsumerGroupMetadataValue {
            epoch,
            metadata_hash,
        }),
    }
}

/// `newConsumerGroupEpochTombstoneRecord`.
pub fn group_epoch_tombstone(group_id: &str) -> Record {
    Record::ConsumerGroupMetadata {
        key: gkey(group_id),
        value: None,
    }
}

/// `newConsumerGroupSubscriptionMetadataTombstoneRecord`.
pub fn subscription_metadata_tombstone(group_id: &str) -> Record {
    Record::ConsumerGroupPartitionMetadata {
        key: gkey(group_id),
        value: None,
    }
}

/// `newConsumerGroupMemberSubscriptionRecord`.
pub fn member_subscription_record(group_id: &str, member: &ConsumerGroupMember) -> Record {
    Record::ConsumerGroupMemberMetadata {
        key: mkey(group_id, &member.member_id),
        value: Some(member.metadata_value()),
    }
}

/// `newConsumerGroupMemberSubscriptionTombstoneRecord`.
pub fn member_subscription_tombstone(group_id: &str, member_id: &str) -> Record {
    Record::ConsumerGroupMemberMetadata {
        key: mkey(group_id, member_id),
        value: None,
    }
}

/// `newConsumerGroupTargetAssignmentRecord`.
pub fn target_assignment_record(group_id: &str, member_id: &str, target: &Partitions) -> Record {
    Record::ConsumerGroupTargetAssignmentMember {
        key: mkey(group_id, member_id),
        value: Some(ConsumerGroupTargetAssignmentMemberValue {
            topic_partitions: topic_order(target)
                .into_iter()
                .map(|t| TargetTopicPartitions {
                    topic_id: t,
                    partitions: target[&t].iter().copied().collect(),
                })
                .collect(),
        }),
    }
}

/// `newConsumerGroupTargetAssignmentTombstoneRecord`.
pub fn target_assignment_tombstone(group_id: &str, member_id: &str) -> Record {
    Record::ConsumerGroupTargetAssignmentMember {
        key: mkey(group_id, member_id),
        value: None,
    }
}

/// `newConsumerGroupTargetAssignmentMetadataRecord`.
pub fn target_metadata_record(group_id: &str, epoch: i32, timestamp: i64) -> Record {
    Record::ConsumerGroupTargetAssignmentMetadata {
        key: gkey(group_id),
        value: Some(ConsumerGroupTargetAssignmentMetadataValue {
            assignment_epoch: epoch,
            assignment_timestamp: timestamp,
        }),
    }
}

/// `newConsumerGroupTargetAssignmentMetadataTombstoneRecord`.
pub fn target_metadata_tombstone(group_id: &str) -> Record {
    Record::ConsumerGroupTargetAssignmentMetadata {
        key: gkey(group_id),
        value: None,
    }
}

/// `newConsumerGroupCurrentAssignmentRecord`.
pub fn current_assignment_record(group_id: &str, member: &ConsumerGroupMember) -> Record {
    Record::ConsumerGroupCurrentMemberAssignment {
        key: mkey(group_id, &member.member_id),
        value: Some(member.assignment_value()),
    }
}

/// `newConsumerGroupCurrentAssignmentTombstoneRecord`.
pub fn current_assignment_tombstone(group_id: &str, member_id: &str) -> Record {
    Record::ConsumerGroupCurrentMemberAssignment {
        key: mkey(group_id, member_id),
        value: None,
    }
}

/// `newConsumerGroupRegularExpressionRecord` (topics sorted).
pub fn regex_record(
    group_id: &str,
    regex: &str,
    topics: impl IntoIterator<Item = String>,
    version: i64,
    timestamp: i64,
) -> Record {
    let mut topics: Vec<String> = topics.into_iter().collect();
    topics.sort_by(|a, b| crate::java::compare_strings(a, b));
    Record::ConsumerGroupRegularExpression {
        key: ConsumerRegexKey {
            group_id: group_id.to_string(),
            regular_expression: regex.to_string(),
        },
        value: Some(ConsumerGroupRegularExpressionValue {
            topics,
            version,
            timestamp,
        }),
    }
}

/// `newConsumerGroupRegularExpressionTombstone`.
pub fn regex_tombstone(group_id: &str, regex: &str) -> Record {
    Record::ConsumerGroupRegularExpression {
        key: ConsumerRegexKey {
            group_id: group_id.to_string(),
            regular_expression: regex.to_string(),
        },
        value: None,
    }
}

/// `removeMember` of the heartbeat and fence paths: the current-assignment, target and member
/// tombstones, in that order.
pub fn member_tombstones(group_id: &str, member_id: &str) -> [Record; 3] {
    [
        current_assignment_tombstone(group_id, member_id),
        target_assignment_tombstone(group_id, member_id),
        member_subscription_tombstone(group_id, member_id),
    ]
}

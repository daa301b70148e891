//! The records a streams heartbeat writes (Kafka's `StreamsCoordinatorRecordHelpers`).

use std::collections::BTreeMap;

use crate::records::Record;
use crate::records::streams::{
    KeyValue, StreamsGroupKey, StreamsGroupMetadataValue, StreamsMemberKey,
};
use crate::streams::member::StreamsGroupMember;

/// `newStreamsGroupMetadataRecord`.
pub fn group_metadata_record(
    group_id: &str,
    epoch: i32,
    metadata_hash: i64,
    validated_topology_epoch: i32,
    configs: &BTreeMap<String, String>,
    stored_description_epoch: i32,
    failed_description_epoch: i32,
) -> Record {
    Record::StreamsGroupMetadata {
        key: StreamsGroupKey {
            group_id: group_id.to_string(),
        },
        value: Some(StreamsGroupMetadataValue {
            epoch,
            metadata_hash,
            validated_topology_epoch,
            last_assignment_configs: Some(
                configs
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: k.clone(),
                        value: v.clone(),
                    })
                    .collect(),
            ),
            stored_description_topology_epoch: stored_description_epoch,
            failed_description_topology_epoch: failed_description_epoch,
        }),
    }
}

fn member_key(group_id: &str, member_id: &str) -> StreamsMemberKey {
    StreamsMemberKey {
        group_id: group_id.to_string(),
        member_id: member_id.to_string(),
    }
}

/// `newStreamsGroupMemberRecord`.
pub(crate) fn member_record(group_id: &str, m: &StreamsGroupMember) -> Record {
    Record::StreamsGroupMemberMetadata {
        key: member_key(group_id, &m.member_id),
        value: Some(m.metadata_value()),
    }
}

/// `newStreamsGroupCurrentAssignmentRecord`.
pub(crate) fn current_assignment_record(group_id: &str, m: &StreamsGroupMember) -> Record {
    Record::StreamsGroupCurrentMemberAssignment {
        key: member_key(group_id, &m.member_id),
        value: Some(m.assignment_value()),
    }
}

/// `removeStreamsMember`: current assignment, target assignment and member tombstones.
pub fn member_tombstones(group_id: &str, member_id: &str) -> [Record; 3] {
    [
        Record::StreamsGroupCurrentMemberAssignment {
            key: member_key(group_id, member_id),
            value: None,
        },
        Record::StreamsGroupTargetAssignmentMember {
            key: member_key(group_id, member_id),
            value: None,
        },
        Record::StreamsGroupMemberMetadata {
            key: member_key(group_id, member_id),
            value: None,
        },
    ]
}

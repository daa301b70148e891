//! The GroupMetadata record of a classic group: how a group is written (Kafka's
//! `GroupCoordinatorRecordHelpers.newGroupMetadataRecord` / `newEmptyGroupMetadataRecord` /
//! `newGroupMetadataTombstoneRecord`) and how a loading shard rebuilds it (`replay(GroupMetadataKey,
//! GroupMetadataValue)`).

use std::collections::BTreeMap;

use bytes::Bytes;

use super::group::{ClassicGroup, IllegalState};
use super::member::{ClassicMember, Protocol};
use super::state::GroupState;
use crate::records::Record;
use crate::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};

/// The group's metadata with `assignment` as the members' assignments.
pub fn metadata_value(
    group: &ClassicGroup,
    assignment: &BTreeMap<String, Bytes>,
) -> Result<GroupMetadataValue, IllegalState> {
    let mut members = Vec::with_capacity(group.num_members());
    for member in group.members() {
        let Some(subscription) = group.protocol_name().and_then(|p| member.metadata(p)) else {
            return Err(IllegalState(
                "Attempted to write non-empty group metadata with no defined protocol.".into(),
            ));
        };
        let Some(member_assignment) = assignment.get(&member.member_id) else {
            return Err(IllegalState(format!(
                "Attempted to write member {} of group {} with no assignment.",
                member.member_id,
                group.group_id()
            )));
        };
        members.push(MemberMetadata {
            member_id: member.member_id.clone(),
            group_instance_id: member.group_instance_id.clone(),
            client_id: member.client_id.clone(),
            client_host: member.client_host.clone(),
            rebalance_timeout: member.rebalance_timeout_ms,
            session_timeout: member.session_timeout_ms,
            subscription: subscription.to_vec(),
            assignment: member_assignment.to_vec(),
        });
    }
    Ok(GroupMetadataValue {
        protocol_type: group.protocol_type().unwrap_or("").to_string(),
        generation: group.generation_id(),
        protocol: group.protocol_name().map(str::to_string),
        leader: group.leader_id().map(str::to_string),
        current_state_timestamp: group.current_state_timestamp_or_default(),
        members,
    })
}

/// The GroupMetadata record of the group with `assignment`.
pub fn metadata_record(
    group: &ClassicGroup,
    assignment: &BTreeMap<String, Bytes>,
) -> Result<Record, IllegalState> {
    Ok(Record::GroupMetadata {
        key: GroupMetadataKey {
            group: group.group_id().to_string(),
        },
        value: Some(metadata_value(group, assignment)?),
    })
}

/// The record that commits a newly created group: generation 0, no protocol, no members.
pub fn empty_group_record(group: &ClassicGroup) -> Record {
    Record::GroupMetadata {
        key: GroupMetadataKey {
            group: group.group_id().to_string(),
        },
        value: Some(GroupMetadataValue {
            protocol_type: String::new(),
            generation: 0,
            protocol: None,
            leader: None,
            current_state_timestamp: group.current_state_timestamp_or_default(),
            members: Vec::new(),
        }),
    }
}

/// The record that deletes the group.
pub fn tombstone(group_id: &str) -> Record {
    Record::GroupMetadata {
        key: GroupMetadataKey {
            group: group_id.to_string(),
        },
        value: None,
    }
}

/// The group a loading shard builds from its last GroupMetadata value: Stable with the recorded members
/// (each supporting only the recorded protocol, with its recorded subscription and assignment), or Empty
/// without members. A recorded rebalance timeout of -1 (old record versions) means the session timeout.
pub fn group_from_value(group_id: &str, value: &GroupMetadataValue) -> ClassicGroup {
    let protocol_type = (!value.protocol_type.is_empty()).then(|| value.protocol_type.clone());
    let state = if value.members.is_empty() {
        GroupState::Empty
    } else {
        GroupState::Stable
    };
    let timestamp = (value.current_state_timestamp != -1).then_some(value.current_state_timestamp);
    let mut group = ClassicGroup::loaded(
        group_id,
        state,
        value.generation,
        protocol_type,
        value.protocol.clone(),
        value.leader.clone(),
        timestamp,
    );
    for m in &value.members {
        let rebalance_timeout = if m.rebalance_timeout == -1 {
            m.session_timeout
        } else {
            m.rebalance_timeout
        };
        let mut member = ClassicMember::new(
            m.member_id.clone(),
            m.group_instance_id.clone(),
            m.client_id.clone(),
            m.client_host.clone(),
            rebalance_timeout,
            m.session_timeout,
            value.protocol_type.clone(),
            vec![Protocol {
                name: value.protocol.clone().unwrap_or_default(),
                metadata: Bytes::from(m.subscription.clone()),
            }],
        );
        member.assignment = Bytes::from(m.assignment.clone());
        // A record can only hold members that were valid together; a record naming an instance twice
        // keeps the first such member (Kafka would fail the load).
        let _ = group.add(member, None);
    }
    let topics = group.compute_subscribed_topics();
    group.set_subscribed_topics(topics);
    group
}

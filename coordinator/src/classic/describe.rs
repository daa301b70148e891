//! DescribeGroups (Kafka's `GroupMetadataManager.describeGroups` plus the authorized-operations field
//! `KafkaApis` fills in).

use protocol::ErrorCode;
use protocol::messages::describe_groups_response::{DescribedGroup, DescribedGroupMember};

use super::group::ClassicGroup;
use super::responses::{opt_sb, sb};
use super::state::GroupState;

pub(crate) use crate::group::ALL_GROUP_OPERATIONS;

/// Why a group id cannot be described as a classic group.
pub(crate) enum NotClassic {
    Unknown,
    OtherType,
}

/// The entry for a classic group.
pub(crate) fn describe_group(group: &ClassicGroup) -> Result<DescribedGroup, String> {
    let mut described = DescribedGroup::default()
        .with_group_id(sb(group.group_id()).into())
        .with_group_state(sb(group.state().name()))
        .with_protocol_type(sb(group.protocol_type().unwrap_or("")));
    if group.is_in_state(GroupState::Stable) {
        let Some(protocol) = group.protocol_name() else {
            return Err("Invalid null group protocol for stable group".into());
        };
        let mut members = Vec::with_capacity(group.num_members());
        for m in group.members() {
            let Some(metadata) = m.metadata(protocol) else {
                return Err(format!("Member does not support protocol {protocol}"));
            };
            members.push(member(m).with_member_metadata(metadata.clone()));
        }
        described = described
            .with_protocol_data(sb(protocol))
            .with_members(members);
    } else {
        described = described.with_members(group.members().map(member).collect());
    }
    Ok(described)
}

fn member(m: &super::member::ClassicMember) -> DescribedGroupMember {
    DescribedGroupMember::default()
        .with_member_id(sb(&m.member_id))
        .with_group_instance_id(opt_sb(m.group_instance_id.as_deref()))
        .with_client_id(sb(&m.client_id))
        .with_client_host(sb(&m.client_host))
        .with_member_assignment(m.assignment.clone())
}

/// The entry for a group id that is not a classic group: "Dead", and from v6 GROUP_ID_NOT_FOUND with
/// Kafka's message.
pub(crate) fn describe_missing(group_id: &str, why: NotClassic, version: i16) -> DescribedGroup {
    let described = DescribedGroup::default()
        .with_group_id(sb(group_id).into())
        .with_group_state(sb(GroupState::Dead.name()));
    if version >= 6 {
        let message = match why {
            NotClassic::Unknown => format!("Group {group_id} not found."),
            NotClassic::OtherType => format!("Group {group_id} is not a classic group."),
        };
        described
            .with_error_code(ErrorCode::GroupIdNotFound.code())
            .with_error_message(Some(sb(&message)))
    } else {
        described
    }
}

//! The errors of the consumer heartbeat, with Kafka's messages (`GroupMetadataManager`).

use protocol::ErrorCode;

use crate::error::ApiError;

/// `ConsumerGroup.getOrMaybeCreateMember` for an unknown member.
pub fn unknown_member(member_id: &str, group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownMemberId,
        format!("Member {member_id} is not a member of group {group_id}."),
    )
}

/// `throwIfStaticMemberIsUnknown`.
pub fn unknown_instance(instance_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownMemberId,
        format!("Instance id {instance_id} is unknown."),
    )
}

/// `throwIfInstanceIdIsFenced`.
pub fn fenced_instance(member_id: &str, instance_id: &str, owner: &str) -> ApiError {
    ApiError::new(
        ErrorCode::FencedInstanceId,
        format!(
            "Static member {member_id} with instance id {instance_id} was fenced by member {owner}."
        ),
    )
}

/// `throwIfInstanceIdIsUnreleased`.
pub fn unreleased_instance(member_id: &str, instance_id: &str, owner: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnreleasedInstanceId,
        format!(
            "Static member {member_id} with instance id {instance_id} cannot join the group because the instance id is owned by {owner} member."
        ),
    )
}

/// `consumerGroup(groupId)` on a group of another type.
pub fn not_consumer_group(group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::GroupIdNotFound,
        format!("Group {group_id} is not a consumer group."),
    )
}

/// `group(groupId)` on a group that does not exist.
pub fn group_not_found(group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::GroupIdNotFound,
        format!("Group {group_id} not found."),
    )
}

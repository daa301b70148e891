//! The errors of a streams heartbeat, with Kafka's messages.

use protocol::ErrorCode;

use crate::error::ApiError;

/// `getStreamsGroupMemberOrThrow`.
pub(super) fn unknown_member(member_id: &str, group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownMemberId,
        format!("Member {member_id} is not a member of group {group_id}."),
    )
}

/// `throwIfInstanceIdIsUnknown`.
pub(super) fn unknown_instance(instance_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownMemberId,
        format!("Instance id {instance_id} is unknown."),
    )
}

/// `throwIfInstanceIdIsFenced`.
pub(super) fn fenced_instance(member_id: &str, instance_id: &str, owner: &str) -> ApiError {
    ApiError::new(
        ErrorCode::FencedInstanceId,
        format!(
            "Static member {member_id} with instance id {instance_id} was fenced by member {owner}."
        ),
    )
}

/// `getOrMaybeCreateStreamsGroup` on a group of another type.
pub(super) fn not_streams_group(group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::GroupIdNotFound,
        format!("Group {group_id} is not a streams group."),
    )
}

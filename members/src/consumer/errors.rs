//! How a consumer-protocol member reacts to an error in a ConsumerGroupHeartbeat response:
//! Kafka 4.4.0's `ConsumerHeartbeatRequestManager` / `AbstractHeartbeatRequestManager.onErrorResponse`,
//! as a table.

use protocol::ErrorCode;

pub use crate::streams::errors::HeartbeatErrorAction;

/// The reaction to `error` (never `ErrorCode::None`). Unlike Kafka Streams, the consumer has no
/// policy for UNRELEASED_INSTANCE_ID: it is fatal, as FENCED_INSTANCE_ID is.
pub fn heartbeat_error_action(error: ErrorCode) -> HeartbeatErrorAction {
    use HeartbeatErrorAction::*;
    match error {
        ErrorCode::NotCoordinator | ErrorCode::CoordinatorNotAvailable => Rediscover,
        ErrorCode::CoordinatorLoadInProgress => Retry,
        ErrorCode::FencedMemberEpoch | ErrorCode::UnknownMemberId => Fenced,
        ErrorCode::TopicAuthorizationFailed => Report,
        // GROUP_AUTHORIZATION_FAILED, INVALID_REQUEST, GROUP_MAX_SIZE_REACHED,
        // UNSUPPORTED_ASSIGNOR, UNRELEASED_INSTANCE_ID, FENCED_INSTANCE_ID, UNSUPPORTED_VERSION
        // and anything unexpected.
        _ => Fatal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HeartbeatErrorAction::*;

    #[test]
    fn kafka_4_4_consumer_error_table() {
        let table = [
            (ErrorCode::NotCoordinator, Rediscover),
            (ErrorCode::CoordinatorNotAvailable, Rediscover),
            (ErrorCode::CoordinatorLoadInProgress, Retry),
            (ErrorCode::FencedMemberEpoch, Fenced),
            (ErrorCode::UnknownMemberId, Fenced),
            (ErrorCode::TopicAuthorizationFailed, Report),
            (ErrorCode::GroupAuthorizationFailed, Fatal),
            (ErrorCode::InvalidRequest, Fatal),
            (ErrorCode::GroupMaxSizeReached, Fatal),
            (ErrorCode::UnsupportedAssignor, Fatal),
            (ErrorCode::UnreleasedInstanceId, Fatal),
            (ErrorCode::FencedInstanceId, Fatal),
            (ErrorCode::UnsupportedVersion, Fatal),
            (ErrorCode::UnknownServerError, Fatal),
        ];
        for (error, action) in table {
            assert_eq!(heartbeat_error_action(error), action, "{error:?}");
        }
    }
}

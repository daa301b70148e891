//! How a streams member reacts to an error in a StreamsGroupHeartbeat response: Kafka Streams
//! 4.4.0's `StreamsGroupHeartbeatRequestManager.onErrorResponse`, as a table.

use protocol::ErrorCode;

use super::config::UnreleasedInstanceIdPolicy;

/// What to do about a heartbeat error. Every error first clears the last-sent fields and counts
/// as a failed attempt (the retry backs off) unless the action says otherwise.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeartbeatErrorAction {
    /// Forget the coordinator, find it again, and heartbeat as soon as it is known (no backoff).
    Rediscover,
    /// Keep the coordinator and retry after the backoff.
    Retry,
    /// Drop every task and rejoin with epoch 0 and the same member id, without backoff.
    Fenced,
    /// Report the error and stay in the group (TOPIC_AUTHORIZATION_FAILED).
    Report,
    /// The member stops for good.
    Fatal,
}

/// The reaction to `error` (never `ErrorCode::None`).
pub fn heartbeat_error_action(
    error: ErrorCode,
    unreleased: UnreleasedInstanceIdPolicy,
) -> HeartbeatErrorAction {
    use HeartbeatErrorAction::*;
    match error {
        ErrorCode::NotCoordinator | ErrorCode::CoordinatorNotAvailable => Rediscover,
        ErrorCode::CoordinatorLoadInProgress => Retry,
        ErrorCode::FencedMemberEpoch | ErrorCode::UnknownMemberId => Fenced,
        ErrorCode::TopicAuthorizationFailed => Report,
        ErrorCode::UnreleasedInstanceId => match unreleased {
            UnreleasedInstanceIdPolicy::Fatal => Fatal,
            UnreleasedInstanceIdPolicy::RetryAfterBackoff => Retry,
        },
        // GROUP_AUTHORIZATION_FAILED, INVALID_REQUEST, GROUP_MAX_SIZE_REACHED,
        // STREAMS_INVALID_TOPOLOGY, STREAMS_INVALID_TOPOLOGY_EPOCH, STREAMS_TOPOLOGY_FENCED,
        // FENCED_INSTANCE_ID, UNSUPPORTED_VERSION and anything unexpected.
        _ => Fatal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use HeartbeatErrorAction::*;

    #[test]
    fn kafka_4_4_error_table() {
        let default = UnreleasedInstanceIdPolicy::Fatal;
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
            (ErrorCode::StreamsInvalidTopology, Fatal),
            (ErrorCode::StreamsInvalidTopologyEpoch, Fatal),
            (ErrorCode::StreamsTopologyFenced, Fatal),
            (ErrorCode::UnreleasedInstanceId, Fatal),
            (ErrorCode::FencedInstanceId, Fatal),
            (ErrorCode::UnsupportedVersion, Fatal),
            (ErrorCode::UnknownServerError, Fatal),
            (ErrorCode::RebalanceInProgress, Fatal),
        ];
        for (error, action) in table {
            assert_eq!(heartbeat_error_action(error, default), action, "{error:?}");
        }
        assert_eq!(
            heartbeat_error_action(
                ErrorCode::UnreleasedInstanceId,
                UnreleasedInstanceIdPolicy::RetryAfterBackoff
            ),
            Retry
        );
    }
}

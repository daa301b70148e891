//! Request checks Kafka's `GroupCoordinatorService` makes before a streams request reaches the shard
//! (`throwIfStreamsGroupHeartbeatRequestIsUsingUnsupportedFeatures`,
//! `throwIfStreamsGroupHeartbeatRequestIsInvalid`), with Kafka's messages, and the mapping of errors to
//! what the client receives (`CoordinatorOperationExceptionHelper` + `ApiError.fromThrowable`).

use protocol::ErrorCode;
use protocol::messages::StreamsGroupHeartbeatRequest;

use crate::error::ApiError;

/// Java's `String.trim().isEmpty()`: every char is at most U+0020.
pub fn is_blank(s: &str) -> bool {
    s.chars().all(|c| c <= ' ')
}

fn empty_string(value: Option<&str>, message: &str) -> Result<(), ApiError> {
    match value {
        Some(v) if is_blank(v) => Err(ApiError::invalid_request(message)),
        _ => Ok(()),
    }
}

fn not_empty_collection<T>(value: Option<&Vec<T>>, message: &str) -> Result<(), ApiError> {
    match value {
        Some(v) if v.is_empty() => Ok(()),
        _ => Err(ApiError::invalid_request(message)),
    }
}

/// The service-level checks of a StreamsGroupHeartbeat, in Kafka's order.
pub fn validate_heartbeat(r: &StreamsGroupHeartbeatRequest) -> Result<(), ApiError> {
    // Unsupported features (4.4 keeps only the regex check).
    if let Some(t) = &r.topology
        && t.subtopologies
            .iter()
            .any(|s| !s.source_topic_regex.is_empty())
    {
        return Err(ApiError::invalid_request(
            "Regular expressions for source topics are not supported yet.",
        ));
    }
    empty_string(Some(r.member_id.as_str()), "MemberId can't be empty.")?;
    empty_string(Some(r.group_id.as_str()), "GroupId can't be empty.")?;
    empty_string(r.instance_id.as_deref(), "InstanceId can't be empty.")?;
    empty_string(r.rack_id.as_deref(), "RackId can't be empty.")?;
    if r.member_epoch == 0 {
        if r.rebalance_timeout_ms == -1 {
            return Err(ApiError::invalid_request(
                "RebalanceTimeoutMs must be provided in first request.",
            ));
        }
        not_empty_collection(
            r.active_tasks.as_ref(),
            "ActiveTasks must be empty when (re-)joining.",
        )?;
        not_empty_collection(
            r.standby_tasks.as_ref(),
            "StandbyTasks must be empty when (re-)joining.",
        )?;
        not_empty_collection(
            r.warmup_tasks.as_ref(),
            "WarmupTasks must be empty when (re-)joining.",
        )?;
        let Some(topology) = &r.topology else {
            return Err(ApiError::invalid_request(
                "Topology must be non-null when (re-)joining.",
            ));
        };
        for s in &topology.subtopologies {
            for t in &s.state_changelog_topics {
                if t.partitions != 0 {
                    return Err(ApiError::new(
                        ErrorCode::StreamsInvalidTopology,
                        format!(
                            "Changelog topic {} must have an undefined partition count, but it is set to {}.",
                            t.name.as_str(),
                            t.partitions
                        ),
                    ));
                }
            }
        }
    } else if r.member_epoch == -2 {
        if r.instance_id.is_none() {
            return Err(ApiError::invalid_request("InstanceId can't be null."));
        }
    } else if r.member_epoch < -2 {
        return Err(ApiError::invalid_request(format!(
            "MemberEpoch is {}, but must be greater than or equal to -2.",
            r.member_epoch
        )));
    }
    if (r.active_tasks.is_some() || r.standby_tasks.is_some() || r.warmup_tasks.is_some())
        && (r.active_tasks.is_none() || r.standby_tasks.is_none() || r.warmup_tasks.is_none())
    {
        return Err(ApiError::invalid_request(
            "If one task-type is non-null, all must be non-null.",
        ));
    }
    if r.member_epoch != 0 && r.topology.is_some() {
        return Err(ApiError::invalid_request(
            "Topology can only be provided when (re-)joining.",
        ));
    }
    Ok(())
}

/// What the client receives for an error: Kafka sends no message for UNKNOWN_SERVER_ERROR, none when
/// the message is the code's default one, and maps a few storage errors (`handleOperationException`).
pub fn wire_error(e: &ApiError) -> (ErrorCode, Option<String>) {
    match e.code {
        ErrorCode::UnknownServerError
        | ErrorCode::MessageTooLarge
        | ErrorCode::RecordListTooLarge
        | ErrorCode::InvalidFetchSize => (ErrorCode::UnknownServerError, None),
        ErrorCode::NetworkException => (ErrorCode::CoordinatorLoadInProgress, None),
        ErrorCode::UnknownTopicOrPartition
        | ErrorCode::NotEnoughReplicas
        | ErrorCode::RequestTimedOut => (ErrorCode::CoordinatorNotAvailable, None),
        ErrorCode::NotLeaderOrFollower | ErrorCode::KafkaStorageError => {
            (ErrorCode::NotCoordinator, None)
        }
        code => (
            code,
            e.message
                .as_ref()
                .filter(|m| m.as_str() != code.default_message())
                .cloned(),
        ),
    }
}

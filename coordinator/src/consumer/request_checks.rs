//! The checks Kafka's `GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid` makes
//! before a ConsumerGroupHeartbeat reaches the shard, in Kafka's order and with its messages.

use protocol::ErrorCode;
use protocol::messages::ConsumerGroupHeartbeatRequest;

use crate::error::ApiError;
use crate::streams::request_checks::is_blank;

/// From this version the client generates its member id (KIP-1082,
/// `CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION`).
const CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION: i16 = 1;

/// `Utils.throwIfEmptyString`: non-null and blank after `trim()`.
fn throw_if_empty_string(value: Option<&str>, message: &str) -> Result<(), ApiError> {
    match value {
        Some(v) if is_blank(v) => Err(ApiError::invalid_request(message)),
        _ => Ok(()),
    }
}

/// The service-level checks of a ConsumerGroupHeartbeat at `api_version`; `assignors` are the
/// configured `group.consumer.assignors`.
pub fn validate_heartbeat(
    r: &ConsumerGroupHeartbeatRequest,
    api_version: i16,
    assignors: &[String],
) -> Result<(), ApiError> {
    if api_version >= CONSUMER_GENERATED_MEMBER_ID_REQUIRED_VERSION
        || r.member_epoch > 0
        || r.member_epoch == -1
    {
        throw_if_empty_string(Some(r.member_id.as_str()), "MemberId can't be empty.")?;
    }
    throw_if_empty_string(Some(r.group_id.as_str()), "GroupId can't be empty.")?;
    throw_if_empty_string(r.instance_id.as_deref(), "InstanceId can't be empty.")?;
    throw_if_empty_string(r.rack_id.as_deref(), "RackId can't be empty.")?;
    if r.member_epoch == 0 {
        if r.rebalance_timeout_ms == -1 {
            return Err(ApiError::invalid_request(
                "RebalanceTimeoutMs must be provided in first request.",
            ));
        }
        if r.topic_partitions.as_ref().is_none_or(|t| !t.is_empty()) {
            return Err(ApiError::invalid_request(
                "TopicPartitions must be empty when (re-)joining.",
            ));
        }
        // An empty list of names or an empty regex is accepted: subscribed to nothing.
        if r.subscribed_topic_names.is_none() && r.subscribed_topic_regex.is_none() {
            return Err(ApiError::invalid_request(
                "Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.",
            ));
        }
    } else if r.member_epoch == -2 {
        if r.instance_id.is_none() {
            return Err(ApiError::invalid_request("InstanceId can't be null."));
        }
    } else if r.member_epoch < -2 {
        return Err(ApiError::invalid_request("MemberEpoch is invalid."));
    }
    if let Some(a) = r.server_assignor.as_deref()
        && !assignors.iter().any(|n| n == a)
    {
        return Err(ApiError::new(
            ErrorCode::UnsupportedAssignor,
            format!(
                "ServerAssignor {a} is not supported. Supported assignors: {}.",
                supported_assignors(assignors)
            ),
        ));
    }
    Ok(())
}

/// `String.join(", ", consumerGroupAssignors)` over the `HashSet<String>` of configured names: in that
/// set's iteration order.
fn supported_assignors(assignors: &[String]) -> String {
    crate::java::java_hash_set_copy_order(assignors.iter().map(String::as_str)).join(", ")
}

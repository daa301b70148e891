//! The answers a group request gets when it does not reach an active coordinator or its write
//! fails, built as Kafka's `GroupCoordinatorService` builds them: the runtime's exception goes
//! through `CoordinatorOperationExceptionHelper.handleOperationException` (or
//! `handleOffsetFetchException`) and then into the api's own error response.

use protocol::messages::{
    ConsumerGroupDescribeResponse, ConsumerGroupHeartbeatResponse, DeleteGroupsResponse,
    DescribeGroupsResponse, HeartbeatResponse, JoinGroupResponse, LeaveGroupResponse,
    ListGroupsResponse, OffsetCommitResponse, OffsetDeleteResponse, OffsetFetchResponse, StrBytes,
    StreamsGroupDescribeResponse, StreamsGroupHeartbeatResponse,
    StreamsGroupTopologyDescriptionUpdateResponse, SyncGroupResponse, TxnOffsetCommitResponse,
    consumer_group_describe_response::DescribedGroup as ConsumerDescribedGroup,
    delete_groups_response::DeletableGroupResult,
    describe_groups_response::DescribedGroup,
    offset_commit_response::{OffsetCommitResponsePartition, OffsetCommitResponseTopic},
    offset_fetch_response::{
        OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponseTopic,
    },
    streams_group_describe_response::DescribedGroup as StreamsDescribedGroup,
    txn_offset_commit_response::{TxnOffsetCommitResponsePartition, TxnOffsetCommitResponseTopic},
};
use protocol::{ErrorCode, Request, Response};

/// How a group operation failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OperationError {
    pub code: ErrorCode,
    /// The exception's message (Kafka's `Errors.X.exception()` carries the default message).
    pub message: Option<String>,
    /// An answer of the service itself rather than of the runtime (not started, or a request
    /// check before routing): no message, not remapped, and JoinGroup echoes the member id.
    pub not_active: bool,
}

impl OperationError {
    /// `isActive` is false (the broker has not caught up with metadata yet).
    pub fn not_active() -> Self {
        Self {
            code: ErrorCode::CoordinatorNotAvailable,
            message: None,
            not_active: true,
        }
    }

    /// An exception raised by the runtime or the write path, e.g. `Errors.NOT_COORDINATOR.exception()`.
    pub fn from_runtime(code: ErrorCode) -> Self {
        Self {
            code,
            message: Some(code.default_message().to_string()),
            not_active: false,
        }
    }

    /// `handleOperationException`: the code and message the api's handler is called with.
    pub fn mapped(&self, offset_fetch: bool) -> (ErrorCode, Option<String>) {
        if self.not_active {
            return (self.code, None);
        }
        match self.code {
            ErrorCode::UnknownTopicOrPartition
            | ErrorCode::NotEnoughReplicas
            | ErrorCode::RequestTimedOut => {
                if offset_fetch {
                    // handleOffsetFetchException: pre-3.9 consumers retry NOT_COORDINATOR only.
                    (ErrorCode::NotCoordinator, None)
                } else {
                    (ErrorCode::CoordinatorNotAvailable, None)
                }
            }
            ErrorCode::NotLeaderOrFollower | ErrorCode::KafkaStorageError => {
                (ErrorCode::NotCoordinator, None)
            }
            ErrorCode::MessageTooLarge
            | ErrorCode::RecordListTooLarge
            | ErrorCode::InvalidFetchSize
            | ErrorCode::UnknownServerError => (ErrorCode::UnknownServerError, None),
            ErrorCode::NetworkException => (ErrorCode::CoordinatorLoadInProgress, None),
            other => (other, self.message.clone()),
        }
    }
}

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// The error response of a group request (its api and version) for `error`.
pub fn error_response(request: &Request, version: i16, error: &OperationError) -> Response {
    let offset_fetch = matches!(request, Request::OffsetFetch(_));
    let (code, message) = error.mapped(offset_fetch);
    let c = code.code();
    match request {
        Request::JoinGroup(r) => {
            let mut resp = JoinGroupResponse::default().with_error_code(c);
            if error.not_active {
                resp = resp.with_member_id(r.member_id.clone());
            }
            // JoinGroupResponse(data, version): from v7 an empty protocol name is sent as null.
            resp.protocol_name = if version >= 7 { None } else { Some(sb("")) };
            resp.into()
        }
        Request::SyncGroup(_) => SyncGroupResponse::default().with_error_code(c).into(),
        Request::Heartbeat(_) => {
            // "The group is still loading, so blindly respond" (GroupCoordinatorService.heartbeat).
            let c = if code == ErrorCode::CoordinatorLoadInProgress && !error.not_active {
                0
            } else {
                c
            };
            HeartbeatResponse::default().with_error_code(c).into()
        }
        Request::LeaveGroup(_) => LeaveGroupResponse::default().with_error_code(c).into(),
        Request::DescribeGroups(r) => DescribeGroupsResponse::default()
            .with_groups(
                r.groups
                    .iter()
                    .map(|g| {
                        DescribedGroup::default()
                            .with_group_id(g.clone())
                            .with_error_code(c)
                    })
                    .collect(),
            )
            .into(),
        Request::ListGroups(_) => ListGroupsResponse::default().with_error_code(c).into(),
        Request::DeleteGroups(r) => DeleteGroupsResponse::default()
            .with_results(
                r.groups_names
                    .iter()
                    .map(|g| {
                        DeletableGroupResult::default()
                            .with_group_id(g.clone())
                            .with_error_code(c)
                    })
                    .collect(),
            )
            .into(),
        Request::OffsetCommit(r) => OffsetCommitResponse::default()
            .with_topics(
                r.topics
                    .iter()
                    .map(|t| {
                        OffsetCommitResponseTopic::default()
                            .with_name(t.name.clone())
                            .with_topic_id(t.topic_id)
                            .with_partitions(
                                t.partitions
                                    .iter()
                                    .map(|p| {
                                        OffsetCommitResponsePartition::default()
                                            .with_partition_index(p.partition_index)
                                            .with_error_code(c)
                                    })
                                    .collect(),
                            )
                    })
                    .collect(),
            )
            .into(),
        Request::TxnOffsetCommit(r) => TxnOffsetCommitResponse::default()
            .with_topics(
                r.topics
                    .iter()
                    .map(|t| {
                        TxnOffsetCommitResponseTopic::default()
                            .with_name(t.name.clone())
                            .with_topic_id(t.topic_id)
                            .with_partitions(
                                t.partitions
                                    .iter()
                                    .map(|p| {
                                        TxnOffsetCommitResponsePartition::default()
                                            .with_partition_index(p.partition_index)
                                            .with_error_code(c)
                                    })
                                    .collect(),
                            )
                    })
                    .collect(),
            )
            .into(),
        Request::OffsetFetch(r) => offset_fetch_error(r, version, code).into(),
        // The service's error answer carries only the code, and it replaces the partition errors
        // `KafkaApis` prepared (`OffsetDeleteResponse.Builder.merge`).
        Request::OffsetDelete(_) => OffsetDeleteResponse::default().with_error_code(c).into(),
        Request::StreamsGroupHeartbeat(_) => StreamsGroupHeartbeatResponse::default()
            .with_error_code(c)
            .with_error_message(message.as_deref().map(sb))
            .into(),
        Request::StreamsGroupDescribe(r) => StreamsGroupDescribeResponse::default()
            .with_groups(
                r.group_ids
                    .iter()
                    .map(|g| {
                        StreamsDescribedGroup::default()
                            .with_group_id(g.clone())
                            .with_error_code(c)
                    })
                    .collect(),
            )
            .into(),
        // `GroupCoordinatorService.consumerGroupHeartbeat`: code and message, nothing else.
        Request::ConsumerGroupHeartbeat(_) => ConsumerGroupHeartbeatResponse::default()
            .with_error_code(c)
            .with_error_message(message.as_deref().map(sb))
            .into(),
        // `ConsumerGroupDescribeRequest.getErrorDescribedGroupList`: each group id with the code.
        Request::ConsumerGroupDescribe(r) => ConsumerGroupDescribeResponse::default()
            .with_groups(
                r.group_ids
                    .iter()
                    .map(|g| {
                        ConsumerDescribedGroup::default()
                            .with_group_id(g.clone())
                            .with_error_code(c)
                    })
                    .collect(),
            )
            .into(),
        Request::StreamsGroupTopologyDescriptionUpdate(_) => {
            StreamsGroupTopologyDescriptionUpdateResponse::default()
                .with_error_code(c)
                .with_error_message(message.as_deref().map(sb))
                .into()
        }
        // Not a group api: callers never ask. The mismatched answer fails to encode and the
        // connection is closed, which is what Kafka does with a request it cannot handle.
        other => {
            tracing::error!(api = %other.api(), "error response asked for a non-group api");
            protocol::messages::ApiVersionsResponse::default()
                .with_error_code(c)
                .into()
        }
    }
}

/// `OffsetFetchResponse.groupError` in the layout of the request's version: v8+ one entry per
/// group; v2-7 the top-level error; v1 an error on every requested partition.
fn offset_fetch_error(
    r: &protocol::messages::OffsetFetchRequest,
    version: i16,
    code: ErrorCode,
) -> OffsetFetchResponse {
    let c = code.code();
    if version >= 8 {
        return OffsetFetchResponse::default().with_groups(
            r.groups
                .iter()
                .map(|g| {
                    OffsetFetchResponseGroup::default()
                        .with_group_id(g.group_id.clone())
                        .with_error_code(c)
                })
                .collect(),
        );
    }
    if version >= 2 {
        return OffsetFetchResponse::default().with_error_code(c);
    }
    OffsetFetchResponse::default().with_topics(
        r.topics
            .iter()
            .flatten()
            .map(|t| {
                OffsetFetchResponseTopic::default()
                    .with_name(t.name.clone())
                    .with_partitions(
                        t.partition_indexes
                            .iter()
                            .map(|p| {
                                OffsetFetchResponsePartition::default()
                                    .with_partition_index(*p)
                                    .with_committed_offset(-1)
                                    .with_committed_leader_epoch(-1)
                                    .with_metadata(Some(sb("")))
                                    .with_error_code(c)
                            })
                            .collect(),
                    )
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::messages::{HeartbeatRequest, JoinGroupRequest, OffsetFetchRequest};

    #[test]
    fn runtime_errors_map_like_kafka() {
        let hb = Request::Heartbeat(HeartbeatRequest::default());
        let resp = error_response(
            &hb,
            4,
            &OperationError::from_runtime(ErrorCode::CoordinatorLoadInProgress),
        );
        assert_eq!(resp, Response::Heartbeat(HeartbeatResponse::default()));
        let resp = error_response(
            &hb,
            4,
            &OperationError::from_runtime(ErrorCode::RequestTimedOut),
        );
        assert_eq!(
            resp,
            Response::Heartbeat(HeartbeatResponse::default().with_error_code(15))
        );
        let join = Request::JoinGroup(JoinGroupRequest::default().with_member_id(sb("m")));
        match error_response(&join, 5, &OperationError::not_active()) {
            Response::JoinGroup(r) => {
                assert_eq!((r.error_code, r.member_id.as_str()), (15, "m"));
            }
            other => panic!("{other:?}"),
        }
        match error_response(
            &join,
            5,
            &OperationError::from_runtime(ErrorCode::NotCoordinator),
        ) {
            Response::JoinGroup(r) => assert_eq!((r.error_code, r.member_id.as_str()), (16, "")),
            other => panic!("{other:?}"),
        }
        let fetch = Request::OffsetFetch(OffsetFetchRequest::default());
        match error_response(
            &fetch,
            7,
            &OperationError::from_runtime(ErrorCode::RequestTimedOut),
        ) {
            Response::OffsetFetch(r) => assert_eq!(r.error_code, 16),
            other => panic!("{other:?}"),
        }
    }

    /// OffsetDelete's error answer is the code alone: no topics, whatever the request named.
    #[test]
    fn offset_delete_errors_are_top_level_only() {
        use protocol::messages::OffsetDeleteRequest;
        use protocol::messages::offset_delete_request::OffsetDeleteRequestTopic;
        let request = Request::OffsetDelete(
            OffsetDeleteRequest::default()
                .with_group_id(sb("g").into())
                .with_topics(vec![
                    OffsetDeleteRequestTopic::default().with_name(sb("foo").into()),
                ]),
        );
        let resp = error_response(
            &request,
            0,
            &OperationError::from_runtime(ErrorCode::NotEnoughReplicas),
        );
        assert_eq!(
            resp,
            Response::OffsetDelete(OffsetDeleteResponse::default().with_error_code(15))
        );
        let resp = error_response(&request, 0, &OperationError::not_active());
        assert_eq!(
            resp,
            Response::OffsetDelete(OffsetDeleteResponse::default().with_error_code(15))
        );
        let resp = error_response(
            &request,
            0,
            &OperationError::from_runtime(ErrorCode::NotLeaderOrFollower),
        );
        assert_eq!(
            resp,
            Response::OffsetDelete(OffsetDeleteResponse::default().with_error_code(16))
        );
    }
}

//! Group requests on the broker (Kafka's `GroupCoordinatorService` in front of the runtime): the
//! group id picks the `__consumer_offsets` partition (`partitionFor`), the request runs on that
//! partition's coordinator, and requests naming several groups are split by partition and their
//! answers combined in Kafka's order.
//!
//! Reads (DescribeGroups, StreamsGroupDescribe, ConsumerGroupDescribe, ListGroups, OffsetFetch
//! without RequireStable) answer at once; everything else is a write and answers once its records are committed.

use std::collections::BTreeMap;
use std::rc::Rc;

use tokio::sync::oneshot;

use protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, DeleteGroupsRequest,
    DeleteGroupsResponse, DescribeGroupsRequest, DescribeGroupsResponse, GroupId,
    ListGroupsResponse, OffsetFetchRequest, OffsetFetchResponse, StrBytes,
    StreamsGroupDescribeRequest, StreamsGroupDescribeResponse,
    consumer_group_describe_response::DescribedGroup as ConsumerDescribedGroup,
    streams_group_describe_response::DescribedGroup as StreamsDescribedGroup,
};
use protocol::{ErrorCode, Request, Response};

use super::errors::{OperationError, error_response};
use super::node::{Node, PendingResponse};
use super::placement::partition_for;
use crate::context::RequestContext;
use crate::controller::GROUP_METADATA_TOPIC;
use crate::java::{hash_map_order_of_hashes, topic_partition_hash};
use crate::net::Net;
use crate::outcome::RequestToken;

/// The group id a single-group request names.
fn single_group(request: &Request) -> Option<&str> {
    Some(match request {
        Request::JoinGroup(r) => r.group_id.as_str(),
        Request::SyncGroup(r) => r.group_id.as_str(),
        Request::Heartbeat(r) => r.group_id.as_str(),
        Request::LeaveGroup(r) => r.group_id.as_str(),
        Request::OffsetCommit(r) => r.group_id.as_str(),
        Request::TxnOffsetCommit(r) => r.group_id.as_str(),
        Request::OffsetDelete(r) => r.group_id.as_str(),
        Request::ConsumerGroupHeartbeat(r) => r.group_id.as_str(),
        Request::StreamsGroupHeartbeat(r) => r.group_id.as_str(),
        Request::StreamsGroupTopologyDescriptionUpdate(r) => r.group_id.as_str(),
        _ => return None,
    })
}

/// Groups by partition, partitions in the order Kafka's `HashMap<TopicPartition, List<String>>`
/// iterates them.
fn by_partition(groups: &[String], partitions: i32) -> Vec<(i32, Vec<String>)> {
    let mut order: Vec<i32> = Vec::new();
    let mut map: BTreeMap<i32, Vec<String>> = BTreeMap::new();
    for g in groups {
        let p = partition_for(g, partitions);
        if !map.contains_key(&p) {
            order.push(p);
        }
        map.entry(p).or_default().push(g.clone());
    }
    let hashes: Vec<i32> = order
        .iter()
        .map(|p| topic_partition_hash(GROUP_METADATA_TOPIC, *p))
        .collect();
    hash_map_order_of_hashes(&hashes)
        .into_iter()
        .map(|i| (order[i], map.remove(&order[i]).unwrap_or_default()))
        .collect()
}

/// The group ids of a describe naming several groups: the empty ones (answered first with
/// INVALID_GROUP_ID, without a coordinator) and the others in [`by_partition`]'s blocks.
fn describe_blocks(ids: &[GroupId], partitions: i32) -> (Vec<GroupId>, Vec<(i32, Vec<GroupId>)>) {
    let empty = ids
        .iter()
        .filter(|g| g.as_str().is_empty())
        .cloned()
        .collect();
    let names: Vec<String> = ids
        .iter()
        .filter(|g| !g.as_str().is_empty())
        .map(|g| g.as_str().to_string())
        .collect();
    let blocks = by_partition(&names, partitions)
        .into_iter()
        .map(|(p, groups)| {
            let ids = groups
                .into_iter()
                .map(|g| GroupId(StrBytes::from_string(g)))
                .collect();
            (p, ids)
        })
        .collect();
    (empty, blocks)
}

impl<N: Net> Node<N> {
    /// Runs a group request and returns its answer.
    pub(crate) async fn group_request(
        self: &Rc<Self>,
        request: Request,
        version: i16,
        ctx: &RequestContext,
    ) -> Response {
        let partitions = self.core.borrow().runtime.num_partitions;
        if let Some(response) = self.precheck(&request, version) {
            return response;
        }
        if let Some(response) = self.consumer_precheck(&request, version) {
            return response;
        }
        if let Some(group) = single_group(&request) {
            let p = partition_for(group, partitions);
            return self.run_on_partition(p, request, version, ctx, false).await;
        }
        match request {
            Request::OffsetFetch(r) => self.offset_fetch(r, version, ctx, partitions).await,
            Request::DescribeGroups(r) => self.describe_groups(r, version, ctx, partitions).await,
            Request::StreamsGroupDescribe(r) => {
                self.streams_group_describe(r, version, ctx, partitions)
                    .await
            }
            Request::ConsumerGroupDescribe(r) => {
                self.consumer_group_describe(r, version, ctx, partitions)
                    .await
            }
            Request::DeleteGroups(r) => self.delete_groups(r, version, ctx, partitions).await,
            Request::ListGroups(r) => self.list_groups(Request::ListGroups(r), version, ctx).await,
            other => {
                let api = other.api();
                tracing::error!(api = %api, "not a group api");
                error_response(
                    &other,
                    version,
                    &OperationError::from_runtime(ErrorCode::UnknownServerError),
                )
            }
        }
    }

    /// The checks `GroupCoordinatorService` makes before routing a classic request or an
    /// OffsetDelete (so a bad request is refused the same way on every broker): an inactive
    /// service, an empty group id, a JoinGroup session timeout outside the configured bounds.
    fn precheck(&self, request: &Request, version: i16) -> Option<Response> {
        let checked_before_routing = matches!(
            request,
            Request::JoinGroup(_)
                | Request::SyncGroup(_)
                | Request::Heartbeat(_)
                | Request::LeaveGroup(_)
                | Request::OffsetDelete(_)
        );
        if !checked_before_routing {
            return None;
        }
        if !self.core.borrow().runtime.started {
            return Some(error_response(
                request,
                version,
                &OperationError::not_active(),
            ));
        }
        let group_empty = single_group(request).is_some_and(str::is_empty);
        let bad_session = match request {
            Request::JoinGroup(r) => {
                let c = &self.config.shard.classic;
                r.session_timeout_ms < c.min_session_timeout_ms
                    || r.session_timeout_ms > c.max_session_timeout_ms
            }
            _ => false,
        };
        let code = if group_empty {
            ErrorCode::InvalidGroupId
        } else if bad_session {
            ErrorCode::InvalidSessionTimeout
        } else {
            return None;
        };
        let mut error = OperationError::not_active();
        error.code = code;
        Some(error_response(request, version, &error))
    }

    /// What a consumer-group api gets before it is routed, in Kafka's order: UNSUPPORTED_VERSION
    /// when the `consumer` rebalance protocol is disabled (`KafkaApis.handleConsumerGroupHeartbeat`
    /// and `handleConsumerGroupDescribe`, `isConsumerGroupProtocolEnabled`), COORDINATOR_NOT_AVAILABLE
    /// when the service is not active, then, for a heartbeat, the service's field checks
    /// (`GroupCoordinatorService.consumerGroupHeartbeat`,
    /// `throwIfConsumerGroupHeartbeatRequestIsInvalid`), so a malformed heartbeat is refused the
    /// same way by every broker, coordinator or not.
    fn consumer_precheck(&self, request: &Request, version: i16) -> Option<Response> {
        let consumer = &self.config.shard.consumer;
        match request {
            Request::ConsumerGroupHeartbeat(r) => {
                if !consumer.protocol_enabled {
                    // `ConsumerGroupHeartbeatRequest.getErrorResponse`: the code alone.
                    return Some(
                        protocol::messages::ConsumerGroupHeartbeatResponse::default()
                            .with_error_code(ErrorCode::UnsupportedVersion.code())
                            .into(),
                    );
                }
                if !self.core.borrow().runtime.started {
                    return Some(error_response(
                        request,
                        version,
                        &OperationError::not_active(),
                    ));
                }
                crate::consumer::request_checks::validate_heartbeat(r, version, &consumer.assignors)
                    .err()
                    .map(|e| crate::consumer::error_response(&e).into())
            }
            Request::ConsumerGroupDescribe(r) => {
                let code = if !consumer.protocol_enabled {
                    // `ConsumerGroupDescribeRequest.getErrorResponse`: every group id, the code.
                    ErrorCode::UnsupportedVersion
                } else if !self.core.borrow().runtime.started {
                    // `getErrorDescribedGroupList(groupIds, COORDINATOR_NOT_AVAILABLE)`.
                    ErrorCode::CoordinatorNotAvailable
                } else {
                    return None;
                };
                Some(
                    ConsumerGroupDescribeResponse::default()
                        .with_groups(
                            r.group_ids
                                .iter()
                                .map(|g| {
                                    ConsumerDescribedGroup::default()
                                        .with_group_id(g.clone())
                                        .with_error_code(code.code())
                                })
                                .collect(),
                        )
                        .into(),
                )
            }
            _ => None,
        }
    }

    /// Runs `request` on the coordinator of partition `p` and waits for its answer.
    pub(crate) async fn run_on_partition(
        self: &Rc<Self>,
        p: i32,
        request: Request,
        version: i16,
        ctx: &RequestContext,
        read_only: bool,
    ) -> Response {
        let (tx, rx) = oneshot::channel();
        let result = {
            let mut core = self.core.borrow_mut();
            let core = &mut *core;
            let token = RequestToken(core.next_token);
            core.next_token += 1;
            core.pending.insert(
                token,
                PendingResponse {
                    tx,
                    request: request.clone(),
                    version,
                },
            );
            let result = self.submit(core, p, token, &request, ctx, read_only);
            if result.is_err() {
                core.pending.remove(&token);
            }
            result
        };
        if let Err(error) = result {
            return error_response(&request, version, &error);
        }
        match rx.await {
            Ok(response) => response,
            // The broker stopped without answering.
            Err(_) => error_response(
                &request,
                version,
                &OperationError::from_runtime(ErrorCode::NotCoordinator),
            ),
        }
    }

    async fn offset_fetch(
        self: &Rc<Self>,
        r: OffsetFetchRequest,
        version: i16,
        ctx: &RequestContext,
        partitions: i32,
    ) -> Response {
        let read_only = !r.require_stable;
        if version < 8 {
            let p = partition_for(r.group_id.as_str(), partitions);
            return self
                .run_on_partition(p, Request::OffsetFetch(r), version, ctx, read_only)
                .await;
        }
        if r.groups.len() == 1 {
            let p = partition_for(r.groups[0].group_id.as_str(), partitions);
            return self
                .run_on_partition(p, Request::OffsetFetch(r), version, ctx, read_only)
                .await;
        }
        // One sub-request per group, answers in request order (KafkaApis combines per group).
        let mut groups = Vec::with_capacity(r.groups.len());
        for g in &r.groups {
            let sub = r.clone().with_groups(vec![g.clone()]);
            let p = partition_for(g.group_id.as_str(), partitions);
            match self
                .run_on_partition(p, Request::OffsetFetch(sub), version, ctx, read_only)
                .await
            {
                Response::OffsetFetch(resp) => groups.extend(resp.groups),
                other => tracing::error!(api = %other.api(), "unexpected answer to OffsetFetch"),
            }
        }
        OffsetFetchResponse::default().with_groups(groups).into()
    }

    async fn describe_groups(
        self: &Rc<Self>,
        r: DescribeGroupsRequest,
        version: i16,
        ctx: &RequestContext,
        partitions: i32,
    ) -> Response {
        let names: Vec<String> = r.groups.iter().map(|g| g.as_str().to_string()).collect();
        let mut out = Vec::new();
        for (p, groups) in by_partition(&names, partitions) {
            let sub = r.clone().with_groups(
                groups
                    .iter()
                    .map(|g| GroupId(StrBytes::from_string(g.clone())))
                    .collect(),
            );
            match self
                .run_on_partition(p, Request::DescribeGroups(sub), version, ctx, true)
                .await
            {
                Response::DescribeGroups(resp) => out.extend(resp.groups),
                other => tracing::error!(api = %other.api(), "unexpected answer to DescribeGroups"),
            }
        }
        DescribeGroupsResponse::default().with_groups(out).into()
    }

    async fn streams_group_describe(
        self: &Rc<Self>,
        r: StreamsGroupDescribeRequest,
        version: i16,
        ctx: &RequestContext,
        partitions: i32,
    ) -> Response {
        let (empty, blocks) = describe_blocks(&r.group_ids, partitions);
        let mut out: Vec<StreamsDescribedGroup> = empty
            .into_iter()
            .map(|g| {
                StreamsDescribedGroup::default()
                    .with_group_id(g)
                    .with_error_code(ErrorCode::InvalidGroupId.code())
            })
            .collect();
        for (p, groups) in blocks {
            let sub = r.clone().with_group_ids(groups);
            match self
                .run_on_partition(p, Request::StreamsGroupDescribe(sub), version, ctx, true)
                .await
            {
                Response::StreamsGroupDescribe(resp) => out.extend(resp.groups),
                other => {
                    tracing::error!(api = %other.api(), "unexpected answer to StreamsGroupDescribe")
                }
            }
        }
        StreamsGroupDescribeResponse::default()
            .with_groups(out)
            .into()
    }

    /// `GroupCoordinatorService.consumerGroupDescribe`: empty group ids answered first with
    /// INVALID_GROUP_ID, then one read per `__consumer_offsets` partition in Java's `HashMap` order,
    /// each block in request order; a partition that is not active here answers its error for each
    /// of its groups (`handleOperationException`, `getErrorDescribedGroupList`).
    async fn consumer_group_describe(
        self: &Rc<Self>,
        r: ConsumerGroupDescribeRequest,
        version: i16,
        ctx: &RequestContext,
        partitions: i32,
    ) -> Response {
        let (empty, blocks) = describe_blocks(&r.group_ids, partitions);
        let mut out: Vec<ConsumerDescribedGroup> = empty
            .into_iter()
            .map(|g| {
                ConsumerDescribedGroup::default()
                    .with_group_id(g)
                    .with_error_code(ErrorCode::InvalidGroupId.code())
            })
            .collect();
        for (p, groups) in blocks {
            let sub = r.clone().with_group_ids(groups);
            match self
                .run_on_partition(p, Request::ConsumerGroupDescribe(sub), version, ctx, true)
                .await
            {
                Response::ConsumerGroupDescribe(resp) => out.extend(resp.groups),
                other => {
                    tracing::error!(api = %other.api(), "unexpected answer to ConsumerGroupDescribe")
                }
            }
        }
        ConsumerGroupDescribeResponse::default()
            .with_groups(out)
            .into()
    }

    async fn delete_groups(
        self: &Rc<Self>,
        r: DeleteGroupsRequest,
        version: i16,
        ctx: &RequestContext,
        partitions: i32,
    ) -> Response {
        let names: Vec<String> = r
            .groups_names
            .iter()
            .map(|g| g.as_str().to_string())
            .collect();
        let mut out = Vec::new();
        for (p, groups) in by_partition(&names, partitions) {
            let sub = r.clone().with_groups_names(
                groups
                    .iter()
                    .map(|g| GroupId(StrBytes::from_string(g.clone())))
                    .collect(),
            );
            match self
                .run_on_partition(p, Request::DeleteGroups(sub), version, ctx, false)
                .await
            {
                Response::DeleteGroups(resp) => out.extend(resp.results),
                other => tracing::error!(api = %other.api(), "unexpected answer to DeleteGroups"),
            }
        }
        DeleteGroupsResponse::default().with_results(out).into()
    }

    /// ListGroups over every coordinator of this broker (Kafka's `scheduleReadAllOperation`),
    /// partitions in ascending order.
    async fn list_groups(
        self: &Rc<Self>,
        request: Request,
        version: i16,
        ctx: &RequestContext,
    ) -> Response {
        let (started, partitions, loading) = {
            let core = self.core.borrow();
            let loading = core.runtime.partitions().into_iter().any(|p| {
                matches!(
                    core.runtime.context_state(p),
                    Some((super::runtime::ContextState::Loading, _))
                )
            });
            (
                core.runtime.started,
                core.runtime.active_partitions(),
                loading,
            )
        };
        if !started {
            return error_response(&request, version, &OperationError::not_active());
        }
        if loading {
            return ListGroupsResponse::default()
                .with_error_code(ErrorCode::CoordinatorLoadInProgress.code())
                .into();
        }
        let mut out = Vec::new();
        for p in partitions {
            match self
                .run_on_partition(p, request.clone(), version, ctx, true)
                .await
            {
                Response::ListGroups(resp) => {
                    if resp.error_code != 0 {
                        return resp.into();
                    }
                    out.extend(resp.groups);
                }
                other => tracing::error!(api = %other.api(), "unexpected answer to ListGroups"),
            }
        }
        ListGroupsResponse::default().with_groups(out).into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_are_split_by_partition_in_hash_map_order() {
        let groups: Vec<String> = ["g1", "my-group", "test-group", "streams-app"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let split = by_partition(&groups, 50);
        // my-group and test-group share partition 12.
        let flat: Vec<(i32, Vec<&str>)> = split
            .iter()
            .map(|(p, g)| (*p, g.iter().map(String::as_str).collect()))
            .collect();
        // Java's HashMap<TopicPartition, _> iterates __consumer_offsets-12, -42, -5 in this order
        // (see java::hash_map::tests::hash_map_order_matches_java).
        assert_eq!(
            flat,
            vec![
                (12, vec!["my-group", "test-group"]),
                (42, vec!["g1"]),
                (5, vec!["streams-app"]),
            ]
        );
    }
}

//! Admin operations on groups (Kafka's `Admin` client): describe streams and classic groups,
//! remove static members by instance id (LeaveGroup v3+), delete groups. Each call finds the
//! group's coordinator and retries retriable errors with backoff until `default.api.timeout.ms`.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use protocol::messages::consumer_group_describe_response::DescribedGroup as DescribedConsumerGroup;
use protocol::messages::describe_groups_response::DescribedGroup;
use protocol::messages::leave_group_request::MemberIdentity;
use protocol::messages::offset_delete_request::{
    OffsetDeleteRequestPartition, OffsetDeleteRequestTopic,
};
use protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use protocol::messages::streams_group_describe_response::DescribedGroup as DescribedStreamsGroup;
use protocol::messages::{
    ConsumerGroupDescribeRequest, DeleteGroupsRequest, DescribeGroupsRequest, LeaveGroupRequest,
    ListGroupsRequest, OffsetDeleteRequest, OffsetFetchRequest, StrBytes,
    StreamsGroupDescribeRequest,
};
use protocol::net::Net;
use protocol::{Api, ErrorCode, Request, Response};
use rand::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

use crate::backoff::ExponentialBackoff;
use crate::conn::{ConnectionConfig, KafkaClient};
use crate::coordinator::{CoordinatorNode, FindFailure, find_coordinator};
use crate::observer::{ClientKind, ClientRef, Emitter, Observer, RequestFailure, TopicPartition};
use crate::offsets::{Committer, build_commit, fetch_result, version_cap_for};

/// Why an admin call failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdminError {
    /// The coordinator answered with a non-retriable error.
    #[error("{}: {}", .0.name(), .1)]
    Error(ErrorCode, String),
    /// Retriable errors or missing answers until the call's timeout.
    #[error("timed out: {0}")]
    TimedOut(String),
    /// The broker answered something this client cannot use.
    #[error("unexpected response: {0}")]
    Unexpected(String),
}

/// One member's result in a removal by instance id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberRemoval {
    pub instance_id: String,
    pub error: ErrorCode,
}

/// One row of a ListGroups answer.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct ListedGroup {
    pub group_id: String,
    /// `consumer`, `streams`, `classic` (ListGroups v5+; empty below).
    pub group_type: String,
    /// The classic protocol type (`consumer`, or empty for a group with offsets only).
    pub protocol_type: String,
    /// ListGroups v4+; empty below.
    pub state: String,
}

/// The answer to an OffsetDelete: the group-level error, then each partition's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetDeletion {
    pub error: ErrorCode,
    pub partitions: Vec<(TopicPartition, ErrorCode)>,
}

/// Admin settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AdminConfig {
    pub client_id: String,
    /// `request.timeout.ms` (30000).
    pub request_timeout_ms: u64,
    /// `default.api.timeout.ms` (60000).
    pub default_api_timeout_ms: u64,
    /// `retry.backoff.ms` (100) and `retry.backoff.max.ms` (1000).
    pub retry_backoff_ms: u64,
    pub retry_backoff_max_ms: u64,
}

impl AdminConfig {
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            request_timeout_ms: 30_000,
            default_api_timeout_ms: 60_000,
            retry_backoff_ms: 100,
            retry_backoff_max_ms: 1_000,
        }
    }
}

/// An admin client.
pub struct Admin<N: Net> {
    client: Rc<KafkaClient<N>>,
    config: AdminConfig,
    rng: Rc<RefCell<ChaCha8Rng>>,
    emitter: Emitter,
}

fn s(text: &str) -> StrBytes {
    StrBytes::from_string(text.to_string())
}

/// What one attempt of a call produced.
enum Attempt<T> {
    Done(T),
    /// Retry after the backoff; `true` = find the coordinator again first.
    Retry(bool, String),
    Fail(AdminError),
}

fn code(c: i16) -> ErrorCode {
    ErrorCode::from_code(c).unwrap_or(ErrorCode::UnknownServerError)
}

/// The retry a coordinator error calls for (Kafka's admin handlers: a moved or unavailable
/// coordinator is looked up again, a loading one is asked again), or `None` for any other code.
fn coordinator_retry<T>(error: ErrorCode) -> Option<Attempt<T>> {
    match error {
        ErrorCode::NotCoordinator | ErrorCode::CoordinatorNotAvailable => {
            Some(Attempt::Retry(true, error.name().to_string()))
        }
        ErrorCode::CoordinatorLoadInProgress => {
            Some(Attempt::Retry(false, error.name().to_string()))
        }
        _ => None,
    }
}

/// How a group-level error code is handled: the coordinator errors are retried, NONE is done,
/// everything else is the answer.
fn classify<T>(error: ErrorCode, message: Option<&str>, done: impl FnOnce() -> T) -> Attempt<T> {
    if let Some(retry) = coordinator_retry(error) {
        return retry;
    }
    match error {
        ErrorCode::None => Attempt::Done(done()),
        other => Attempt::Fail(AdminError::Error(
            other,
            message.unwrap_or(other.default_message()).to_string(),
        )),
    }
}

impl<N: Net> Admin<N> {
    /// An admin client reporting as `name`.
    pub fn new(
        net: N,
        bootstrap: Vec<String>,
        config: AdminConfig,
        name: &str,
        rng: &mut impl RngCore,
        observer: Rc<dyn Observer>,
    ) -> Self {
        let clock_net = net.clone();
        let emitter = Emitter::new(
            observer,
            Rc::new(move || clock_net.now_ms()),
            ClientRef {
                kind: ClientKind::Admin,
                name: name.to_string(),
                group_id: String::new(),
                instance_id: None,
                process_id: String::new(),
            },
        );
        let rng = Rc::new(RefCell::new(ChaCha8Rng::from_rng(rng)));
        let mut conn = ConnectionConfig::new(config.client_id.clone());
        conn.request_timeout_ms = config.request_timeout_ms;
        let client = KafkaClient::new(net, conn, bootstrap, emitter.clone(), rng.clone());
        Self {
            client,
            config,
            rng,
            emitter,
        }
    }

    /// Runs `attempt` against the coordinator of `group_id` until it is done, fails, or the
    /// call's timeout passes.
    async fn with_coordinator<T, F, Fut>(&self, group_id: &str, attempt: F) -> Result<T, AdminError>
    where
        F: Fn(CoordinatorNode) -> Fut,
        Fut: std::future::Future<Output = Attempt<T>>,
    {
        let deadline = self.emitter.now_ms() + self.config.default_api_timeout_ms as i64;
        let backoff = ExponentialBackoff::retry(
            self.config.retry_backoff_ms,
            self.config.retry_backoff_max_ms,
        );
        let mut attempts = 0u32;
        let mut coordinator: Option<CoordinatorNode> = None;
        let mut last = String::new();
        loop {
            if self.emitter.now_ms() >= deadline {
                return Err(AdminError::TimedOut(last));
            }
            let node = match coordinator.clone() {
                Some(n) => Some(n),
                None => match find_coordinator(&self.client, group_id).await {
                    Ok(n) => Some(n),
                    Err(FindFailure::Error(c, m)) if !c.is_retriable() => {
                        return Err(AdminError::Error(c, m.unwrap_or_default()));
                    }
                    Err(f) => {
                        last = format!("{f:?}");
                        None
                    }
                },
            };
            if let Some(node) = node {
                coordinator = Some(node.clone());
                match attempt(node).await {
                    Attempt::Done(t) => return Ok(t),
                    Attempt::Fail(e) => return Err(e),
                    Attempt::Retry(rediscover, why) => {
                        last = why;
                        if rediscover {
                            coordinator = None;
                        }
                    }
                }
            }
            let wait = backoff.backoff(attempts, &mut *self.rng.borrow_mut());
            attempts = attempts.saturating_add(1);
            tokio::time::sleep(Duration::from_millis(wait)).await;
        }
    }

    fn transport<T>(f: RequestFailure) -> Attempt<T> {
        match f {
            RequestFailure::UnsupportedVersion => Attempt::Fail(AdminError::Error(
                ErrorCode::UnsupportedVersion,
                f.to_string(),
            )),
            RequestFailure::Disconnected(_) => Attempt::Retry(true, f.to_string()),
            other => Attempt::Retry(false, other.to_string()),
        }
    }

    /// The rude client's call: `request` sent once at exactly `version` to the coordinator of
    /// `group_id`, whatever it holds. Only a missing coordinator or connection is retried; any
    /// response, errors included, is the answer. A broker that does not serve `version` fails
    /// the call with UNSUPPORTED_VERSION (as Kafka's clients do before sending).
    pub async fn raw(
        &self,
        group_id: &str,
        request: Request,
        version: i16,
    ) -> Result<Response, AdminError> {
        let api = request.api();
        self.with_coordinator(group_id, |node| {
            let request = request.clone();
            async move {
                let sent_at = std::cell::Cell::new(version);
                let result = self
                    .client
                    .send_built_capped(
                        &node.broker,
                        api,
                        Some(version),
                        self.config.request_timeout_ms,
                        |negotiated| {
                            sent_at.set(negotiated);
                            request
                        },
                    )
                    .await;
                if sent_at.get() != version {
                    return Attempt::Fail(AdminError::Error(
                        ErrorCode::UnsupportedVersion,
                        format!("the broker serves {api} only below v{version}"),
                    ));
                }
                match result {
                    Ok(response) => Attempt::Done(response),
                    Err(f) => Self::transport(f),
                }
            }
        })
        .await
    }

    /// One describe request for `group_id` at its coordinator (`request`, built again for each
    /// attempt), and the one group its answer holds (`groups` takes the api's answer apart, or
    /// names the api that answered instead; `error` reads a group's error code and message).
    async fn describe_one<G>(
        &self,
        group_id: &str,
        request: impl Fn() -> Request,
        groups: impl Fn(Response) -> Result<Vec<G>, Api>,
        error: impl Fn(&G) -> (i16, Option<String>),
    ) -> Result<G, AdminError> {
        self.with_coordinator(group_id, |node| {
            let (request, groups, error) = (&request, &groups, &error);
            async move {
                match self.client.send(&node.broker, request()).await {
                    Ok(response) => match groups(response) {
                        Ok(gs) => match gs.into_iter().next() {
                            Some(g) => {
                                let (c, message) = error(&g);
                                classify(code(c), message.as_deref(), || g)
                            }
                            None => Attempt::Fail(AdminError::Unexpected(
                                "no group in the answer".into(),
                            )),
                        },
                        Err(api) => Attempt::Fail(AdminError::Unexpected(format!("{api:?}"))),
                    },
                    Err(f) => Self::transport(f),
                }
            }
        })
        .await
    }

    /// StreamsGroupDescribe of one group.
    pub async fn describe_streams_group(
        &self,
        group_id: &str,
    ) -> Result<DescribedStreamsGroup, AdminError> {
        self.describe_one(
            group_id,
            || {
                Request::StreamsGroupDescribe(
                    StreamsGroupDescribeRequest::default().with_group_ids(vec![s(group_id).into()]),
                )
            },
            |response| match response {
                Response::StreamsGroupDescribe(r) => Ok(r.groups),
                other => Err(other.api()),
            },
            |g| {
                (
                    g.error_code,
                    g.error_message.as_ref().map(|m| m.to_string()),
                )
            },
        )
        .await
    }

    /// ConsumerGroupDescribe of one consumer-protocol group (KIP-848; Kafka's
    /// `KafkaAdminClient.describeConsumerGroups`, which sends it to the group's coordinator).
    pub async fn describe_consumer_group(
        &self,
        group_id: &str,
    ) -> Result<DescribedConsumerGroup, AdminError> {
        self.describe_one(
            group_id,
            || {
                Request::ConsumerGroupDescribe(
                    ConsumerGroupDescribeRequest::default()
                        .with_group_ids(vec![s(group_id).into()]),
                )
            },
            |response| match response {
                Response::ConsumerGroupDescribe(r) => Ok(r.groups),
                other => Err(other.api()),
            },
            |g| {
                (
                    g.error_code,
                    g.error_message.as_ref().map(|m| m.to_string()),
                )
            },
        )
        .await
    }

    /// DescribeGroups of one classic group (members carry their metadata and assignment bytes;
    /// read them with [`crate::classic::protocol`]).
    pub async fn describe_classic_group(
        &self,
        group_id: &str,
    ) -> Result<DescribedGroup, AdminError> {
        self.describe_one(
            group_id,
            || {
                Request::DescribeGroups(
                    DescribeGroupsRequest::default().with_groups(vec![s(group_id).into()]),
                )
            },
            |response| match response {
                Response::DescribeGroups(r) => Ok(r.groups),
                other => Err(other.api()),
            },
            |g| {
                (
                    g.error_code,
                    g.error_message.as_ref().map(|m| m.to_string()),
                )
            },
        )
        .await
    }

    /// `removeMembersFromConsumerGroup` by instance id: LeaveGroup v3+ with member id "" and each
    /// instance id. Returns each member's result.
    pub async fn remove_static_members(
        &self,
        group_id: &str,
        instance_ids: &[&str],
    ) -> Result<Vec<MemberRemoval>, AdminError> {
        self.with_coordinator(group_id, |node| async move {
            let members: Vec<MemberIdentity> = instance_ids
                .iter()
                .map(|i| {
                    MemberIdentity::default()
                        .with_member_id(s(""))
                        .with_group_instance_id(Some(s(i)))
                })
                .collect();
            let result = self
                .client
                .send_built(
                    &node.broker,
                    Api::LeaveGroup,
                    self.config.request_timeout_ms,
                    |version| {
                        let mut members = members.clone();
                        if version >= 5 {
                            for m in &mut members {
                                m.reason = Some(s("member was removed by an admin"));
                            }
                        }
                        Request::LeaveGroup(
                            LeaveGroupRequest::default()
                                .with_group_id(s(group_id).into())
                                .with_members(members),
                        )
                    },
                )
                .await;
            match result {
                Ok(Response::LeaveGroup(r)) => {
                    let top = code(r.error_code);
                    classify(top, None, || {
                        r.members
                            .iter()
                            .map(|m| MemberRemoval {
                                instance_id: m
                                    .group_instance_id
                                    .as_ref()
                                    .map(|i| i.to_string())
                                    .unwrap_or_default(),
                                error: code(m.error_code),
                            })
                            .collect()
                    })
                }
                Ok(other) => Attempt::Fail(AdminError::Unexpected(format!("{:?}", other.api()))),
                // LeaveGroup below v3 cannot name instance ids.
                Err(RequestFailure::UnsupportedVersion) => Attempt::Fail(AdminError::Error(
                    ErrorCode::UnsupportedVersion,
                    "the broker does not support LeaveGroup v3+".into(),
                )),
                Err(f) => Self::transport(f),
            }
        })
        .await
    }

    /// DeleteGroups of one group; returns its per-group error (NONE when deleted).
    pub async fn delete_group(&self, group_id: &str) -> Result<ErrorCode, AdminError> {
        self.with_coordinator(group_id, |node| async move {
            let request =
                DeleteGroupsRequest::default().with_groups_names(vec![s(group_id).into()]);
            match self
                .client
                .send(&node.broker, Request::DeleteGroups(request))
                .await
            {
                Ok(Response::DeleteGroups(r)) => match r.results.first() {
                    Some(g) => {
                        let e = code(g.error_code);
                        coordinator_retry(e).unwrap_or(Attempt::Done(e))
                    }
                    None => Attempt::Fail(AdminError::Unexpected("no group in the answer".into())),
                },
                Ok(other) => Attempt::Fail(AdminError::Unexpected(format!("{:?}", other.api()))),
                Err(f) => Self::transport(f),
            }
        })
        .await
    }

    /// `listGroups`: ListGroups sent to every bootstrap broker (each answers for the coordinator
    /// shards it leads), the rows merged and sorted by group id. A broker that answers a
    /// retriable error or nothing is asked again until the call's timeout, as Kafka's admin
    /// retries each node's call.
    pub async fn list_groups(&self) -> Result<Vec<ListedGroup>, AdminError> {
        let deadline = self.emitter.now_ms() + self.config.default_api_timeout_ms as i64;
        let backoff = ExponentialBackoff::retry(
            self.config.retry_backoff_ms,
            self.config.retry_backoff_max_ms,
        );
        let mut rows = Vec::new();
        for broker in self.client.bootstrap() {
            let mut attempts = 0u32;
            loop {
                if self.emitter.now_ms() >= deadline {
                    return Err(AdminError::TimedOut(format!("ListGroups to {broker}")));
                }
                let last = match self
                    .client
                    .send(&broker, Request::ListGroups(ListGroupsRequest::default()))
                    .await
                {
                    Ok(Response::ListGroups(r)) => match code(r.error_code) {
                        ErrorCode::None => {
                            rows.extend(r.groups.iter().map(|g| ListedGroup {
                                group_id: g.group_id.to_string(),
                                group_type: g.group_type.to_string(),
                                protocol_type: g.protocol_type.to_string(),
                                state: g.group_state.to_string(),
                            }));
                            break;
                        }
                        e if e.is_retriable() => e.name().to_string(),
                        e => {
                            return Err(AdminError::Error(e, e.default_message().to_string()));
                        }
                    },
                    Ok(other) => {
                        return Err(AdminError::Unexpected(format!("{:?}", other.api())));
                    }
                    Err(RequestFailure::UnsupportedVersion) => {
                        return Err(AdminError::Error(
                            ErrorCode::UnsupportedVersion,
                            "ListGroups".into(),
                        ));
                    }
                    Err(f) => f.to_string(),
                };
                tracing::debug!(broker = %broker, why = %last, "ListGroups retried");
                let wait = backoff.backoff(attempts, &mut *self.rng.borrow_mut());
                attempts = attempts.saturating_add(1);
                tokio::time::sleep(Duration::from_millis(wait)).await;
            }
        }
        rows.sort();
        Ok(rows)
    }

    /// `listConsumerGroupOffsets` of every partition: OffsetFetch with no topic list and
    /// `require_stable`. Capped at v9, which names topics (v10 answers by topic id only).
    pub async fn fetch_offsets(
        &self,
        group_id: &str,
    ) -> Result<BTreeMap<TopicPartition, i64>, AdminError> {
        self.with_coordinator(group_id, |node| async move {
            let result = self
                .client
                .send_built_capped(
                    &node.broker,
                    Api::OffsetFetch,
                    Some(9),
                    self.config.request_timeout_ms,
                    |version| {
                        Request::OffsetFetch(if version >= 8 {
                            OffsetFetchRequest::default()
                                .with_groups(vec![
                                    OffsetFetchRequestGroup::default()
                                        .with_group_id(s(group_id).into())
                                        .with_topics(None),
                                ])
                                .with_require_stable(true)
                        } else {
                            OffsetFetchRequest::default()
                                .with_group_id(s(group_id).into())
                                .with_topics(None)
                                .with_require_stable(version >= 7)
                        })
                    },
                )
                .await;
            match result {
                Ok(Response::OffsetFetch(r)) => match fetch_result(&r, &BTreeMap::new()) {
                    Ok(offsets) => Attempt::Done(offsets),
                    Err(e) => classify(e, None, BTreeMap::new),
                },
                Ok(other) => Attempt::Fail(AdminError::Unexpected(format!("{:?}", other.api()))),
                Err(f) => Self::transport(f),
            }
        })
        .await
    }

    /// `deleteConsumerGroupOffsets`: OffsetDelete of `partitions` of `topic`.
    pub async fn delete_offsets(
        &self,
        group_id: &str,
        topic: &str,
        partitions: &[i32],
    ) -> Result<OffsetDeletion, AdminError> {
        self.with_coordinator(group_id, |node| async move {
            let request = OffsetDeleteRequest::default()
                .with_group_id(s(group_id).into())
                .with_topics(vec![
                    OffsetDeleteRequestTopic::default()
                        .with_name(s(topic).into())
                        .with_partitions(
                            partitions
                                .iter()
                                .map(|p| {
                                    OffsetDeleteRequestPartition::default().with_partition_index(*p)
                                })
                                .collect(),
                        ),
                ]);
            match self
                .client
                .send(&node.broker, Request::OffsetDelete(request))
                .await
            {
                Ok(Response::OffsetDelete(r)) => match coordinator_retry(code(r.error_code)) {
                    Some(retry) => retry,
                    None => {
                        let error = code(r.error_code);
                        let mut partitions = Vec::new();
                        for t in &r.topics {
                            for p in &t.partitions {
                                partitions.push((
                                    TopicPartition::new(t.name.to_string(), p.partition_index),
                                    code(p.error_code),
                                ));
                            }
                        }
                        Attempt::Done(OffsetDeletion { error, partitions })
                    }
                },
                Ok(other) => Attempt::Fail(AdminError::Unexpected(format!("{:?}", other.api()))),
                Err(f) => Self::transport(f),
            }
        })
        .await
    }

    /// `alterConsumerGroupOffsets`: an OffsetCommit with generation -1 and no member id, which
    /// the coordinator accepts only for an empty or missing group (a missing one becomes a
    /// "simple" group holding only offsets). Returns each partition's error.
    pub async fn alter_offsets(
        &self,
        group_id: &str,
        offsets: &[(TopicPartition, i64)],
    ) -> Result<Vec<(TopicPartition, ErrorCode)>, AdminError> {
        let committer = Committer {
            group_id: group_id.to_string(),
            member_id: String::new(),
            generation_or_epoch: -1,
            instance_id: None,
        };
        let no_ids = BTreeMap::new();
        let cap = version_cap_for(offsets.iter().map(|(tp, _)| tp.topic.as_str()), &no_ids);
        self.with_coordinator(group_id, |node| {
            let request = build_commit(&committer, offsets, &no_ids);
            async move {
                let result = self
                    .client
                    .send_built_capped(
                        &node.broker,
                        Api::OffsetCommit,
                        Some(cap),
                        self.config.request_timeout_ms,
                        |_| Request::OffsetCommit(request),
                    )
                    .await;
                match result {
                    Ok(Response::OffsetCommit(r)) => {
                        let errors: Vec<(TopicPartition, ErrorCode)> = r
                            .topics
                            .iter()
                            .flat_map(|t| {
                                t.partitions.iter().map(|p| {
                                    (
                                        TopicPartition::new(t.name.to_string(), p.partition_index),
                                        code(p.error_code),
                                    )
                                })
                            })
                            .collect();
                        // The first error, in answer order, sends the call again when it is a
                        // coordinator error (they answer every partition alike).
                        let first = errors
                            .iter()
                            .map(|(_, e)| *e)
                            .find(|e| *e != ErrorCode::None);
                        match first.and_then(coordinator_retry) {
                            Some(retry) => retry,
                            None => Attempt::Done(errors),
                        }
                    }
                    Ok(other) => {
                        Attempt::Fail(AdminError::Unexpected(format!("{:?}", other.api())))
                    }
                    Err(f) => Self::transport(f),
                }
            }
        })
        .await
    }

    /// Closes the admin client's connections.
    pub fn close(&self) {
        self.client.close_all("admin closed");
    }
}

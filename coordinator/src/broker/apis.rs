//! The client-facing apis a broker answers itself (Kafka's `KafkaApis`): ApiVersions, Metadata,
//! FindCoordinator, ListOffsets, Fetch, Produce, CreateTopics (forwarded to the controller) and
//! DescribeCluster. Group apis go to the coordinator ([`super::groups`]).
//!
//! Regular topics exist in metadata but hold no data: Fetch answers empty (non-null) record sets
//! after waiting `max_wait_ms`, ListOffsets answers offset 0, and an actual Produce gets a clean
//! INVALID_REQUEST per partition (Produce is advertised because librdkafka only fetches from
//! brokers that advertise Produce >= 3).

use std::rc::Rc;
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use protocol::error::WireError;
use protocol::messages::api_versions_response::{
    ApiVersion, FinalizedFeatureKey, SupportedFeatureKey,
};
use protocol::messages::describe_cluster_response::DescribeClusterBroker;
use protocol::messages::fetch_response::{FetchableTopicResponse, LeaderIdAndEpoch, PartitionData};
use protocol::messages::find_coordinator_response::Coordinator;
use protocol::messages::list_offsets_response::{
    ListOffsetsPartitionResponse, ListOffsetsTopicResponse,
};
use protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use protocol::messages::produce_response::{PartitionProduceResponse, TopicProduceResponse};
use protocol::messages::{
    ApiVersionsRequest, ApiVersionsResponse, BrokerId, CreatePartitionsRequest,
    CreatePartitionsResponse, CreateTopicsRequest, CreateTopicsResponse, DescribeClusterRequest,
    DescribeClusterResponse, FetchRequest, FetchResponse, FindCoordinatorRequest,
    FindCoordinatorResponse, ListOffsetsRequest, ListOffsetsResponse, MetadataRequest,
    MetadataResponse, ProduceRequest, ProduceResponse, StrBytes, TopicName,
};
use protocol::{Api, ErrorCode, Request, Response};
use uuid::Uuid;

use super::config::LISTENER_NAME;
use super::node::{Core, Node};
use super::placement::partition_for;
use crate::controller::GROUP_METADATA_TOPIC;
use crate::controller::config::BROKER_SUPPORTED_FEATURES;
use crate::controller::image::{MetadataImage, PartitionRegistration};
use crate::net::Net;

/// The apis of a broker's client listener, as ApiVersions advertises them.
pub const CLIENT_APIS: &[Api] = &[
    Api::Produce,
    Api::Fetch,
    Api::ListOffsets,
    Api::Metadata,
    Api::OffsetCommit,
    Api::OffsetFetch,
    Api::FindCoordinator,
    Api::JoinGroup,
    Api::Heartbeat,
    Api::LeaveGroup,
    Api::SyncGroup,
    Api::DescribeGroups,
    Api::ListGroups,
    Api::ApiVersions,
    Api::CreateTopics,
    Api::TxnOffsetCommit,
    Api::CreatePartitions,
    Api::DeleteGroups,
    Api::OffsetDelete,
    Api::DescribeCluster,
    // Kafka 4.4.0's broker advertises these whenever its coordinator runs the `consumer` rebalance
    // protocol (`group.coordinator.rebalance.protocols`, default `classic,consumer,streams`); a
    // broker with it disabled still lists them and answers UNSUPPORTED_VERSION (`KafkaApis`).
    Api::ConsumerGroupHeartbeat,
    Api::ConsumerGroupDescribe,
    Api::StreamsGroupHeartbeat,
    Api::StreamsGroupDescribe,
    Api::StreamsGroupTopologyDescriptionUpdate,
];

/// Kafka's error message for a produce regroup does not store.
pub const PRODUCE_REFUSED_MESSAGE: &str = "regroup does not store produced records";

/// The bitfield of topic operations Kafka reports without an authorizer (every operation a topic
/// supports: READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS).
const ALL_TOPIC_OPERATIONS: i32 =
    (1 << 3) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 10) | (1 << 11);

/// Why a Metadata request got no body.
#[derive(Debug)]
pub(crate) enum MetadataFailure {
    /// The request is invalid: the connection is closed with this reason.
    Refused(String),
    /// The response could not be encoded at the request's version.
    Encode(WireError),
}

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

fn topic_name(s: &str) -> TopicName {
    TopicName(sb(s))
}

/// Kafka's `ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN`.
fn valid_software_field(s: &str) -> bool {
    let b = s.as_bytes();
    let edge = |c: &u8| c.is_ascii_alphanumeric();
    let inner = |c: &u8| c.is_ascii_alphanumeric() || *c == b'-' || *c == b'.';
    match b {
        [] => false,
        [one] => edge(one),
        [first, mid @ .., last] => edge(first) && edge(last) && mid.iter().all(inner),
    }
}

fn alive_endpoint(image: &MetadataImage, broker: i32) -> Option<(String, u16)> {
    let b = image.broker(broker).filter(|b| !b.fenced)?;
    let e = b
        .endpoint(Some(LISTENER_NAME))
        .or_else(|| b.endpoint(None))?;
    Some((e.host.clone(), e.port))
}

impl<N: Net> Node<N> {
    pub(crate) fn api_versions(
        &self,
        request: &ApiVersionsRequest,
        version: i16,
    ) -> ApiVersionsResponse {
        if version >= 3
            && (!valid_software_field(request.client_software_name.as_str())
                || !valid_software_field(request.client_software_version.as_str()))
        {
            return ApiVersionsResponse::default()
                .with_error_code(ErrorCode::InvalidRequest.code());
        }
        if version >= 5
            && let Some(cluster) = &request.cluster_id
            && (cluster.as_str() != self.config.cluster_id || request.node_id != self.id())
        {
            return ApiVersionsResponse::default()
                .with_error_code(ErrorCode::RebootstrapRequired.code());
        }
        let core = self.core.borrow();
        ApiVersionsResponse::default()
            .with_api_keys(
                CLIENT_APIS
                    .iter()
                    .map(|api| {
                        ApiVersion::default()
                            .with_api_key(api.key())
                            .with_min_version(api.min_version())
                            .with_max_version(api.max_version())
                    })
                    .collect(),
            )
            .with_supported_features(
                BROKER_SUPPORTED_FEATURES
                    .iter()
                    .map(|(name, min, max)| {
                        SupportedFeatureKey::default()
                            .with_name(sb(name))
                            .with_min_version(*min)
                            .with_max_version(*max)
                    })
                    .collect(),
            )
            .with_finalized_features_epoch(core.image.last_offset)
            .with_finalized_features(
                core.image
                    .features
                    .iter()
                    .map(|(name, level)| {
                        FinalizedFeatureKey::default()
                            .with_name(sb(name))
                            .with_min_version_level(*level)
                            .with_max_version_level(*level)
                    })
                    .collect(),
            )
    }

    /// Metadata (`KafkaApis.handleTopicMetadataRequest`), encoded at `version`: the response
    /// body. The answer depends only on the image, the request and the broker's configuration,
    /// so the body built for a request is remembered until the image changes
    /// ([`super::published`]) and sent again for an equal request at the same version, unless
    /// building it asked the controller to create a topic (that request must be made again).
    pub(crate) fn metadata_body(
        &self,
        request: &MetadataRequest,
        version: i16,
    ) -> Result<Bytes, MetadataFailure> {
        let mut core = self.core.borrow_mut();
        let core = &mut *core;
        let generation = core.image.generation();
        if let Some(body) = core.metadata_answers.get(generation, version, request) {
            return Ok(body);
        }
        let (response, asked_creation) = self
            .metadata(core, request, version)
            .map_err(MetadataFailure::Refused)?;
        let mut body = BytesMut::new();
        Response::from(response)
            .encode(version, &mut body)
            .map_err(MetadataFailure::Encode)?;
        let body = body.freeze();
        if !asked_creation {
            core.metadata_answers
                .put(generation, version, request, body.clone());
        }
        Ok(body)
    }

    /// Metadata (`KafkaApis.handleTopicMetadataRequest`): the response, and whether building it
    /// asked the controller to create a topic.
    fn metadata(
        &self,
        core: &mut Core,
        request: &MetadataRequest,
        version: i16,
    ) -> Result<(MetadataResponse, bool), String> {
        let mut asked_creation = false;
        if let Some(topics) = &request.topics {
            for t in topics {
                if t.name.is_none() && version < 12 {
                    return Err(format!("Topic name can not be null for version {version}"));
                }
                if !t.topic_id.is_nil() && version < 12 {
                    return Err(format!(
                        "Topic IDs are not supported in requests for version {version}"
                    ));
                }
            }
        }
        let all_topics = match &request.topics {
            None => true,
            Some(t) => version == 0 && t.is_empty(),
        };
        let mut entries: Vec<MetadataResponseTopic> = Vec::new();
        if all_topics {
            let names: Vec<String> = core.image.topics.keys().cloned().collect();
            for name in names {
                entries.push(self.topic_metadata(&core.image, &name, version));
            }
        } else {
            let allow_auto = self.config.auto_create_topics
                && (version < 4 || request.allow_auto_topic_creation);
            for t in request.topics.iter().flatten() {
                if !t.topic_id.is_nil() {
                    match core.image.topic_by_id(&t.topic_id).map(|x| x.name.clone()) {
                        Some(name) => {
                            entries.push(self.topic_metadata(&core.image, &name, version))
                        }
                        None => entries.push(
                            MetadataResponseTopic::default()
                                .with_error_code(ErrorCode::UnknownTopicId.code())
                                .with_name(None)
                                .with_topic_id(t.topic_id),
                        ),
                    }
                    continue;
                }
                let Some(name) = t.name.as_ref().map(|n| n.as_str().to_string()) else {
                    continue;
                };
                if core.image.topic(&name).is_some() {
                    entries.push(self.topic_metadata(&core.image, &name, version));
                } else if allow_auto
                    && crate::controller::state::invalid_topic_reason(&name).is_none()
                {
                    let (partitions, rf) = if name == GROUP_METADATA_TOPIC {
                        (
                            self.config.offsets_topic_partitions,
                            self.config.offsets_topic_replication_factor,
                        )
                    } else {
                        (-1, -1)
                    };
                    self.request_topic_creation(core, &name, partitions, rf);
                    asked_creation = true;
                    entries.push(
                        MetadataResponseTopic::default()
                            .with_error_code(ErrorCode::LeaderNotAvailable.code())
                            .with_name(Some(topic_name(&name)))
                            .with_is_internal(name == GROUP_METADATA_TOPIC),
                    );
                } else {
                    let code = if crate::controller::state::invalid_topic_reason(&name).is_some() {
                        ErrorCode::InvalidTopicException
                    } else {
                        ErrorCode::UnknownTopicOrPartition
                    };
                    entries.push(
                        MetadataResponseTopic::default()
                            .with_error_code(code.code())
                            .with_name(Some(topic_name(&name))),
                    );
                }
            }
        }
        if version >= 8 && request.include_topic_authorized_operations {
            for e in &mut entries {
                if e.error_code == 0 {
                    e.topic_authorized_operations = ALL_TOPIC_OPERATIONS;
                }
            }
        }
        let brokers: Vec<MetadataResponseBroker> = core
            .image
            .brokers
            .values()
            .filter(|b| !b.fenced)
            .filter_map(|b| {
                let e = b
                    .endpoint(Some(LISTENER_NAME))
                    .or_else(|| b.endpoint(None))?;
                Some(
                    MetadataResponseBroker::default()
                        .with_node_id(BrokerId(b.id))
                        .with_host(sb(&e.host))
                        .with_port(i32::from(e.port))
                        .with_rack(b.rack.as_deref().map(sb)),
                )
            })
            .collect();
        // KRaft brokers report a random live broker as the controller; regroup picks the lowest id.
        let controller_id = brokers.first().map(|b| b.node_id.0).unwrap_or(-1);
        let response = MetadataResponse::default()
            .with_brokers(brokers)
            .with_cluster_id(Some(sb(&self.config.cluster_id)))
            .with_controller_id(BrokerId(controller_id))
            .with_topics(entries);
        Ok((response, asked_creation))
    }

    fn topic_metadata(
        &self,
        image: &MetadataImage,
        name: &str,
        version: i16,
    ) -> MetadataResponseTopic {
        let Some(topic) = image.topic(name) else {
            return MetadataResponseTopic::default()
                .with_error_code(ErrorCode::UnknownTopicOrPartition.code())
                .with_name(Some(topic_name(name)));
        };
        let alive = |b: &i32| image.broker(*b).is_some_and(|r| !r.fenced);
        // KRaftMetadataCache.partitionMetadata: the leader is reported if it is registered with
        // this listener (fenced or not); v0 drops replicas of fenced brokers from the lists and
        // says REPLICA_NOT_AVAILABLE.
        let partitions = topic
            .partitions
            .iter()
            .map(|(p, reg)| {
                let (replicas, isr): (Vec<i32>, Vec<i32>) = if version == 0 {
                    (
                        reg.replicas.iter().copied().filter(alive).collect(),
                        reg.isr.iter().copied().filter(alive).collect(),
                    )
                } else {
                    (reg.replicas.clone(), reg.isr.clone())
                };
                let leader = image.broker(reg.leader).filter(|_| reg.leader >= 0);
                let has_listener = leader.is_some_and(|b| {
                    b.endpoint(Some(LISTENER_NAME))
                        .or_else(|| b.endpoint(None))
                        .is_some()
                });
                let (error, leader_id) = match leader {
                    None => (ErrorCode::LeaderNotAvailable, -1),
                    Some(_) if !has_listener => (
                        if version >= 6 {
                            ErrorCode::ListenerNotFound
                        } else {
                            ErrorCode::LeaderNotAvailable
                        },
                        -1,
                    ),
                    Some(_) if replicas.len() < reg.replicas.len() || isr.len() < reg.isr.len() => {
                        (ErrorCode::ReplicaNotAvailable, reg.leader)
                    }
                    Some(_) => (ErrorCode::None, reg.leader),
                };
                MetadataResponsePartition::default()
                    .with_error_code(error.code())
                    .with_partition_index(*p)
                    .with_leader_id(BrokerId(leader_id))
                    .with_leader_epoch(reg.leader_epoch)
                    .with_replica_nodes(replicas.into_iter().map(BrokerId).collect())
                    .with_isr_nodes(isr.into_iter().map(BrokerId).collect())
                    .with_offline_replicas(
                        reg.replicas
                            .iter()
                            .copied()
                            .filter(|b| !alive(b))
                            .map(BrokerId)
                            .collect(),
                    )
            })
            .collect();
        MetadataResponseTopic::default()
            .with_name(Some(topic_name(name)))
            .with_topic_id(topic.id)
            .with_is_internal(name == GROUP_METADATA_TOPIC)
            .with_partitions(partitions)
    }

    /// FindCoordinator v0-6 (`KafkaApis.getCoordinator`).
    pub(crate) fn find_coordinator(
        &self,
        request: &FindCoordinatorRequest,
        version: i16,
    ) -> Result<FindCoordinatorResponse, String> {
        let key_type = request.key_type;
        if !(0..=2).contains(&key_type) {
            return Err(format!("Unknown coordinator type received: {key_type}"));
        }
        let mut core = self.core.borrow_mut();
        let core = &mut *core;
        if version < 4 {
            let (code, node) = self.coordinator_for(core, key_type, request.key.as_str(), version);
            return Ok(match node {
                Some((id, host, port)) => FindCoordinatorResponse::default()
                    .with_error_code(0)
                    .with_error_message(Some(sb(ErrorCode::None.default_message())))
                    .with_node_id(BrokerId(id))
                    .with_host(sb(&host))
                    .with_port(i32::from(port)),
                None => FindCoordinatorResponse::default()
                    .with_error_code(code.code())
                    .with_error_message(Some(sb(code.default_message())))
                    .with_node_id(BrokerId(-1))
                    .with_host(sb(""))
                    .with_port(-1),
            });
        }
        let coordinators = request
            .coordinator_keys
            .iter()
            .map(|key| {
                let (code, node) = self.coordinator_for(core, key_type, key.as_str(), version);
                let (id, host, port) = node.unwrap_or((-1, String::new(), 0));
                let port = if code == ErrorCode::None {
                    i32::from(port)
                } else {
                    -1
                };
                Coordinator::default()
                    .with_key(key.clone())
                    .with_node_id(BrokerId(id))
                    .with_host(sb(&host))
                    .with_port(port)
                    .with_error_code(code.code())
                    .with_error_message(None)
            })
            .collect();
        Ok(FindCoordinatorResponse::default().with_coordinators(coordinators))
    }

    fn coordinator_for(
        &self,
        core: &mut Core,
        key_type: i8,
        key: &str,
        version: i16,
    ) -> (ErrorCode, Option<(i32, String, u16)>) {
        match key_type {
            0 => {}
            // Share groups need v6; regroup has no transaction or share coordinator.
            2 if version < 6 => return (ErrorCode::InvalidRequest, None),
            _ => return (ErrorCode::CoordinatorNotAvailable, None),
        }
        let partition = partition_for(key, core.runtime.num_partitions);
        let Some(topic) = core.image.topic(GROUP_METADATA_TOPIC) else {
            self.request_topic_creation(
                core,
                GROUP_METADATA_TOPIC,
                self.config.offsets_topic_partitions,
                self.config.offsets_topic_replication_factor,
            );
            return (ErrorCode::CoordinatorNotAvailable, None);
        };
        let leader = topic
            .partitions
            .get(&partition)
            .map(|p| p.leader)
            .unwrap_or(-1);
        if leader < 0 {
            return (ErrorCode::CoordinatorNotAvailable, None);
        }
        match alive_endpoint(&core.image, leader) {
            Some((host, port)) => (ErrorCode::None, Some((leader, host, port))),
            None => (ErrorCode::CoordinatorNotAvailable, None),
        }
    }

    /// Checks that this broker leads (topic, partition) for a client request.
    fn leader_check(
        &self,
        image: &MetadataImage,
        reg: Option<&PartitionRegistration>,
        current_leader_epoch: i32,
    ) -> ErrorCode {
        let Some(reg) = reg else {
            return ErrorCode::UnknownTopicOrPartition;
        };
        if reg.leader != self.id() {
            let _ = image;
            return ErrorCode::NotLeaderOrFollower;
        }
        if current_leader_epoch >= 0 && current_leader_epoch != reg.leader_epoch {
            return if current_leader_epoch < reg.leader_epoch {
                ErrorCode::FencedLeaderEpoch
            } else {
                ErrorCode::UnknownLeaderEpoch
            };
        }
        ErrorCode::None
    }

    /// ListOffsets: every partition regroup serves is empty. The leader epoch is reported from v4
    /// on only (`ReplicaManager.fetchOffset` sets it for `version >= 4`; the field does not exist
    /// before, so a v1-3 answer carrying it could not be written).
    pub(crate) fn list_offsets(
        &self,
        request: &ListOffsetsRequest,
        version: i16,
    ) -> ListOffsetsResponse {
        let core = self.core.borrow();
        let topics = request
            .topics
            .iter()
            .map(|t| {
                let topic = core.image.topic(t.name.as_str());
                let partitions = t
                    .partitions
                    .iter()
                    .map(|p| {
                        let reg = topic.and_then(|x| x.partitions.get(&p.partition_index));
                        let code = self.leader_check(&core.image, reg, p.current_leader_epoch);
                        let mut r = ListOffsetsPartitionResponse::default()
                            .with_partition_index(p.partition_index)
                            .with_error_code(code.code())
                            .with_timestamp(-1)
                            .with_offset(-1)
                            .with_leader_epoch(-1);
                        if code == ErrorCode::None {
                            let epoch = reg.map(|r| r.leader_epoch).unwrap_or(-1);
                            // LATEST (-1), EARLIEST (-2), EARLIEST_LOCAL (-4) of an empty log: 0.
                            if matches!(p.timestamp, -1 | -2 | -4) {
                                r = r.with_offset(0);
                                if version >= 4 {
                                    r = r.with_leader_epoch(epoch);
                                }
                            }
                        }
                        r
                    })
                    .collect();
                ListOffsetsTopicResponse::default()
                    .with_name(t.name.clone())
                    .with_partitions(partitions)
            })
            .collect();
        ListOffsetsResponse::default().with_topics(topics)
    }

    /// A consumer's Fetch: empty record sets after waiting `max_wait_ms` (Kafka parks a fetch that
    /// has no data until its wait expires).
    pub(crate) async fn client_fetch(&self, request: &FetchRequest, version: i16) -> FetchResponse {
        if request.session_id != 0 || request.session_epoch > 0 {
            // regroup never creates fetch sessions (like a broker whose session cache is full).
            return FetchResponse::default()
                .with_error_code(ErrorCode::FetchSessionIdNotFound.code())
                .with_session_id(0);
        }
        let response = {
            let core = self.core.borrow();
            let topics = request
                .topics
                .iter()
                .map(|t| {
                    let topic = if version >= 13 {
                        core.image.topic_by_id(&t.topic_id)
                    } else {
                        core.image.topic(t.topic.as_str())
                    };
                    let partitions = t
                        .partitions
                        .iter()
                        .map(|p| {
                            let mut pd = PartitionData::default()
                                .with_partition_index(p.partition)
                                .with_high_watermark(-1)
                                .with_last_stable_offset(-1)
                                .with_log_start_offset(-1)
                                .with_records(Some(Default::default()));
                            let Some(topic) = topic else {
                                let code = if version >= 13 {
                                    ErrorCode::UnknownTopicId
                                } else {
                                    ErrorCode::UnknownTopicOrPartition
                                };
                                return pd.with_error_code(code.code());
                            };
                            let reg = topic.partitions.get(&p.partition);
                            let code = self.leader_check(&core.image, reg, p.current_leader_epoch);
                            if code != ErrorCode::None {
                                if let Some(reg) = reg {
                                    pd = pd.with_current_leader(
                                        LeaderIdAndEpoch::default()
                                            .with_leader_id(BrokerId(reg.leader))
                                            .with_leader_epoch(reg.leader_epoch),
                                    );
                                }
                                return pd.with_error_code(code.code());
                            }
                            pd = pd
                                .with_high_watermark(0)
                                .with_last_stable_offset(0)
                                .with_log_start_offset(0);
                            if request.isolation_level == 1 {
                                pd = pd.with_aborted_transactions(Some(Vec::new()));
                            } else {
                                pd = pd.with_aborted_transactions(None);
                            }
                            if p.fetch_offset > 0 {
                                pd = pd.with_error_code(ErrorCode::OffsetOutOfRange.code());
                            }
                            pd
                        })
                        .collect();
                    FetchableTopicResponse::default()
                        .with_topic(t.topic.clone())
                        .with_topic_id(t.topic_id)
                        .with_partitions(partitions)
                })
                .collect::<Vec<_>>();
            FetchResponse::default()
                .with_responses(topics)
                .with_session_id(0)
        };
        let has_error = response
            .responses
            .iter()
            .any(|t| t.partitions.iter().any(|p| p.error_code != 0));
        if !has_error && request.max_wait_ms > 0 {
            tokio::time::sleep(Duration::from_millis(request.max_wait_ms as u64)).await;
        }
        response
    }

    /// Produce: `None` for acks=0 (Kafka sends no response), otherwise an error per partition.
    pub(crate) fn produce(
        &self,
        request: &ProduceRequest,
        version: i16,
    ) -> Option<ProduceResponse> {
        if request.acks == 0 {
            return None;
        }
        let core = self.core.borrow();
        let responses = request
            .topic_data
            .iter()
            .map(|t| {
                let topic = if version >= 13 {
                    core.image.topic_by_id(&t.topic_id)
                } else {
                    core.image.topic(t.name.as_str())
                };
                let partitions = t
                    .partition_data
                    .iter()
                    .map(|p| {
                        let reg = topic.and_then(|x| x.partitions.get(&p.index));
                        let mut code = self.leader_check(&core.image, reg, -1);
                        if topic.is_none() && version >= 13 {
                            code = ErrorCode::UnknownTopicId;
                        }
                        let (code, message) = if code == ErrorCode::None {
                            (ErrorCode::InvalidRequest, Some(sb(PRODUCE_REFUSED_MESSAGE)))
                        } else {
                            (code, None)
                        };
                        PartitionProduceResponse::default()
                            .with_index(p.index)
                            .with_error_code(code.code())
                            .with_base_offset(-1)
                            .with_log_append_time_ms(-1)
                            .with_log_start_offset(-1)
                            .with_error_message(message)
                    })
                    .collect();
                TopicProduceResponse::default()
                    .with_name(t.name.clone())
                    .with_topic_id(t.topic_id)
                    .with_partition_responses(partitions)
            })
            .collect();
        Some(ProduceResponse::default().with_responses(responses))
    }

    /// DescribeCluster v0-2.
    pub(crate) fn describe_cluster(
        &self,
        request: &DescribeClusterRequest,
        version: i16,
    ) -> DescribeClusterResponse {
        let core = self.core.borrow();
        // AuthHelper.computeDescribeClusterResponse: 1 = BROKER, 2 = CONTROLLER.
        let invalid = if version == 0 {
            ErrorCode::InvalidRequest
        } else {
            ErrorCode::UnsupportedEndpointType
        };
        let mismatched = if version == 0 {
            ErrorCode::InvalidRequest
        } else {
            ErrorCode::MismatchedEndpointType
        };
        match request.endpoint_type {
            1 => {}
            2 => {
                return DescribeClusterResponse::default()
                    .with_error_code(mismatched.code())
                    .with_error_message(Some(sb("The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type CONTROLLER")));
            }
            other => {
                return DescribeClusterResponse::default()
                    .with_error_code(invalid.code())
                    .with_error_message(Some(sb(&format!("Unsupported endpoint type {other}"))));
            }
        }
        let include_fenced = version >= 2 && request.include_fenced_brokers;
        let brokers: Vec<DescribeClusterBroker> = core
            .image
            .brokers
            .values()
            .filter(|b| include_fenced || !b.fenced)
            .filter_map(|b| {
                let e = b
                    .endpoint(Some(LISTENER_NAME))
                    .or_else(|| b.endpoint(None))?;
                Some(
                    DescribeClusterBroker::default()
                        .with_broker_id(BrokerId(b.id))
                        .with_host(sb(&e.host))
                        .with_port(i32::from(e.port))
                        .with_rack(b.rack.as_deref().map(sb))
                        .with_is_fenced(b.fenced),
                )
            })
            .collect();
        let controller_id = brokers
            .iter()
            .find(|b| !b.is_fenced)
            .map(|b| b.broker_id.0)
            .unwrap_or(-1);
        DescribeClusterResponse::default()
            .with_endpoint_type(1)
            .with_cluster_id(sb(&self.config.cluster_id))
            .with_controller_id(BrokerId(controller_id))
            .with_brokers(brokers)
    }

    /// CreateTopics: forwarded to the controller (Kafka's forwarding), the answer relayed.
    pub(crate) async fn create_topics(
        self: &Rc<Self>,
        request: CreateTopicsRequest,
        version: i16,
    ) -> CreateTopicsResponse {
        let names: Vec<TopicName> = request.topics.iter().map(|t| t.name.clone()).collect();
        let timeout = (request.timeout_ms.max(0) as u64).max(self.config.controller_rpc_timeout_ms);
        match self
            .forward_rpc
            .call(Request::CreateTopics(request), version, timeout)
            .await
        {
            Ok(Response::CreateTopics(r)) => r,
            _ => CreateTopicsResponse::default().with_topics(
                names
                    .into_iter()
                    .map(|name| {
                        protocol::messages::create_topics_response::CreatableTopicResult::default()
                            .with_name(name)
                            .with_error_code(ErrorCode::RequestTimedOut.code())
                            .with_error_message(Some(sb(
                                ErrorCode::RequestTimedOut.default_message()
                            )))
                            .with_topic_id(Uuid::nil())
                            .with_num_partitions(-1)
                            .with_replication_factor(-1)
                    })
                    .collect(),
            ),
        }
    }
    /// CreatePartitions: forwarded to the controller like CreateTopics (KafkaApis
    /// `handleCreatePartitionsRequest` forwards it in KRaft mode), the answer relayed; a controller
    /// that does not answer in time gives every topic REQUEST_TIMED_OUT.
    pub(crate) async fn create_partitions(
        self: &Rc<Self>,
        request: CreatePartitionsRequest,
        version: i16,
    ) -> CreatePartitionsResponse {
        let names: Vec<TopicName> = request.topics.iter().map(|t| t.name.clone()).collect();
        let timeout = (request.timeout_ms.max(0) as u64).max(self.config.controller_rpc_timeout_ms);
        match self
            .forward_rpc
            .call(Request::CreatePartitions(request), version, timeout)
            .await
        {
            Ok(Response::CreatePartitions(r)) => r,
            _ => CreatePartitionsResponse::default().with_results(
                names
                    .into_iter()
                    .map(|name| {
                        protocol::messages::create_partitions_response::CreatePartitionsTopicResult::default()
                            .with_name(name)
                            .with_error_code(ErrorCode::RequestTimedOut.code())
                            .with_error_message(Some(sb(
                                ErrorCode::RequestTimedOut.default_message()
                            )))
                    })
                    .collect(),
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn software_name_pattern_matches_kafka() {
        for ok in [
            "librdkafka",
            "kafka-python",
            "a",
            "1.2.3",
            "apache-kafka-java",
        ] {
            assert!(valid_software_field(ok), "{ok}");
        }
        for bad in ["", "-a", "a-", "a b", ".x", "x_y"] {
            assert!(!valid_software_field(bad), "{bad}");
        }
    }
}

//! Every api the client listener advertises answers at every version it advertises: a response
//! the broker cannot write for the version a client negotiated closes the connection (Kafka's
//! behaviour for a failed send), which a real client sees as a broken broker. The requests carry
//! data where the answer has version-dependent fields (an existing topic and partition, a group with
//! a member, a topic to create), so the fields a version lacks are exercised.
//!
//! Also the regressions real clients found this way (aiokafka's ListOffsets v3).

use bytes::Bytes;
use coordinator::broker::apis::CLIENT_APIS;
use coordinator::rpc::RpcClient;
use protocol::messages::create_topics_request::CreatableTopic;
use protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use protocol::messages::offset_fetch_request::OffsetFetchRequestGroup;
use protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use protocol::messages::*;
use protocol::net::TokioNet;
use protocol::{Api, Request, Response};
use uuid::Uuid;

mod serve_support;

use serve_support::Server;

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// A request of `api` at `version` whose answer has content: topic `orders` (3 partitions) exists,
/// `topic_id` is its id, and group `described` has one member (joined with JoinGroup v0).
fn request(api: Api, version: i16, topic_id: Uuid) -> Request {
    let orders = || TopicName(s("orders"));
    match api {
        Api::Produce => ProduceRequest::default()
            .with_acks(-1)
            .with_timeout_ms(1000)
            .with_topic_data(vec![
                TopicProduceData::default()
                    .with_name(if version < 13 {
                        orders()
                    } else {
                        TopicName(s(""))
                    })
                    .with_topic_id(if version >= 13 { topic_id } else { Uuid::nil() })
                    .with_partition_data(vec![
                        PartitionProduceData::default()
                            .with_index(0)
                            .with_records(Some(Bytes::new())),
                    ]),
            ])
            .into(),
        Api::Fetch => FetchRequest::default()
            .with_max_wait_ms(0)
            .with_max_bytes(1 << 20)
            .with_session_epoch(-1)
            .with_topics(vec![
                FetchTopic::default()
                    .with_topic(if version < 13 {
                        orders()
                    } else {
                        TopicName(s(""))
                    })
                    .with_topic_id(if version >= 13 { topic_id } else { Uuid::nil() })
                    .with_partitions(vec![
                        FetchPartition::default()
                            .with_partition(0)
                            .with_partition_max_bytes(1 << 20),
                    ]),
            ])
            .into(),
        Api::ListOffsets => ListOffsetsRequest::default()
            .with_replica_id(BrokerId(-1))
            .with_topics(vec![
                ListOffsetsTopic::default()
                    .with_name(orders())
                    .with_partitions(vec![
                        ListOffsetsPartition::default()
                            .with_partition_index(0)
                            .with_timestamp(-1),
                    ]),
            ])
            .into(),
        // v0 asks for every topic with an empty list (its list is not nullable).
        Api::Metadata if version == 0 => {
            MetadataRequest::default().with_topics(Some(vec![])).into()
        }
        Api::Metadata => MetadataRequest::default().with_topics(None).into(),
        Api::OffsetCommit => OffsetCommitRequest::default()
            .with_group_id(GroupId(s(&format!("sweep-commit-{version}"))))
            .with_generation_id_or_member_epoch(-1)
            .with_topics(vec![
                OffsetCommitRequestTopic::default()
                    .with_name(if version < 10 {
                        orders()
                    } else {
                        TopicName(s(""))
                    })
                    .with_topic_id(if version >= 10 { topic_id } else { Uuid::nil() })
                    .with_partitions(vec![
                        OffsetCommitRequestPartition::default()
                            .with_partition_index(0)
                            .with_committed_offset(5),
                    ]),
            ])
            .into(),
        // v1 names its partitions (all partitions, a null list, needs v2).
        Api::OffsetFetch if version < 2 => OffsetFetchRequest::default()
            .with_group_id(GroupId(s("sweep-commit-8")))
            .with_topics(Some(vec![
                offset_fetch_request::OffsetFetchRequestTopic::default()
                    .with_name(orders())
                    .with_partition_indexes(vec![0]),
            ]))
            .into(),
        Api::OffsetFetch if version < 8 => OffsetFetchRequest::default()
            .with_group_id(GroupId(s("sweep-commit-8")))
            .with_topics(None)
            .into(),
        Api::OffsetFetch => OffsetFetchRequest::default()
            .with_groups(vec![
                OffsetFetchRequestGroup::default()
                    .with_group_id(GroupId(s("sweep-commit-8")))
                    .with_topics(None),
            ])
            .into(),
        Api::FindCoordinator if version < 4 => FindCoordinatorRequest::default()
            .with_key(s("described"))
            .into(),
        Api::FindCoordinator => FindCoordinatorRequest::default()
            .with_coordinator_keys(vec![s("described"), s("other")])
            .into(),
        // A group per version: a new dynamic member before v4 (no MEMBER_ID_REQUIRED) would
        // otherwise wait for the previous one to rejoin.
        Api::JoinGroup => join(&format!("sweep-join-{version}"), ""),
        Api::Heartbeat => HeartbeatRequest::default()
            .with_group_id(GroupId(s("described")))
            .with_generation_id(1)
            .with_member_id(s("nobody"))
            .into(),
        Api::LeaveGroup if version < 3 => LeaveGroupRequest::default()
            .with_group_id(GroupId(s("described")))
            .with_member_id(s("nobody"))
            .into(),
        Api::LeaveGroup => LeaveGroupRequest::default()
            .with_group_id(GroupId(s("described")))
            .with_members(vec![
                leave_group_request::MemberIdentity::default().with_member_id(s("nobody")),
            ])
            .into(),
        Api::SyncGroup => SyncGroupRequest::default()
            .with_group_id(GroupId(s("described")))
            .with_generation_id(1)
            .with_member_id(s("nobody"))
            .into(),
        Api::DescribeGroups => DescribeGroupsRequest::default()
            .with_groups(vec![GroupId(s("described")), GroupId(s("missing"))])
            .into(),
        Api::ListGroups => ListGroupsRequest::default().into(),
        Api::ApiVersions => ApiVersionsRequest::default()
            .with_client_software_name(s("regroup-test"))
            .with_client_software_version(s("1.0"))
            .into(),
        Api::CreateTopics => CreateTopicsRequest::default()
            .with_timeout_ms(5000)
            .with_topics(vec![
                CreatableTopic::default()
                    .with_name(TopicName(s(&format!("sweep-created-{version}"))))
                    .with_num_partitions(1)
                    .with_replication_factor(1),
                CreatableTopic::default()
                    .with_name(orders())
                    .with_num_partitions(1)
                    .with_replication_factor(1),
            ])
            .into(),
        // A count `orders` already has: INVALID_PARTITIONS, answered by the controller.
        Api::CreatePartitions => CreatePartitionsRequest::default()
            .with_timeout_ms(5000)
            .with_topics(vec![
                create_partitions_request::CreatePartitionsTopic::default()
                    .with_name(orders())
                    .with_count(1),
            ])
            .into(),
        Api::TxnOffsetCommit => TxnOffsetCommitRequest::default()
            .with_transactional_id(TransactionalId(s("txn")))
            .with_group_id(GroupId(s("described")))
            .into(),
        Api::DeleteGroups => DeleteGroupsRequest::default()
            .with_groups_names(vec![GroupId(s("missing"))])
            .into(),
        // `described` is a consumer group subscribed to `orders`: answered per partition
        // (GROUP_SUBSCRIBED_TO_TOPIC), not with a top-level error.
        Api::OffsetDelete => OffsetDeleteRequest::default()
            .with_group_id(GroupId(s("described")))
            .with_topics(vec![
                offset_delete_request::OffsetDeleteRequestTopic::default()
                    .with_name(orders())
                    .with_partitions(vec![
                        offset_delete_request::OffsetDeleteRequestPartition::default()
                            .with_partition_index(0),
                    ]),
            ])
            .into(),
        Api::DescribeCluster => DescribeClusterRequest::default()
            .with_endpoint_type(1)
            .into(),
        // A join with a subscription, so the answer carries an assignment of `orders`.
        Api::ConsumerGroupHeartbeat => consumer_join(&format!("sweep-consumer-{version}"), "m"),
        // Groups the heartbeat sweep created (members, assignments), a classic group and none.
        Api::ConsumerGroupDescribe => ConsumerGroupDescribeRequest::default()
            .with_group_ids(vec![
                GroupId(s("sweep-consumer-0")),
                GroupId(s("described")),
                GroupId(s("missing")),
            ])
            .into(),
        Api::StreamsGroupHeartbeat => StreamsGroupHeartbeatRequest::default()
            .with_group_id(GroupId(s("sweep-streams")))
            .with_member_id(s("m"))
            .with_member_epoch(1)
            .into(),
        Api::StreamsGroupDescribe => StreamsGroupDescribeRequest::default()
            .with_group_ids(vec![GroupId(s("described")), GroupId(s("missing"))])
            .into(),
        Api::StreamsGroupTopologyDescriptionUpdate => {
            StreamsGroupTopologyDescriptionUpdateRequest::default()
                .with_group_id(GroupId(s("sweep-streams")))
                .into()
        }
        other => panic!("{other} is not a client api"),
    }
}

/// A ConsumerGroupHeartbeat join of `member` to `group`, subscribed to `orders`.
fn consumer_join(group: &str, member: &str) -> Request {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s(group)))
        .with_member_id(s(member))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(10_000)
        .with_subscribed_topic_names(Some(vec![TopicName(s("orders"))]))
        .with_topic_partitions(Some(vec![]))
        .into()
}

fn join(group: &str, member: &str) -> Request {
    JoinGroupRequest::default()
        .with_group_id(GroupId(s(group)))
        .with_session_timeout_ms(10_000)
        .with_rebalance_timeout_ms(10_000)
        .with_member_id(s(member))
        .with_protocol_type(s("consumer"))
        .with_protocols(vec![
            JoinGroupRequestProtocol::default()
                .with_name(s("range"))
                .with_metadata(Bytes::from_static(
                    b"\x00\x00\x00\x00\x00\x01\x00\x06orders",
                )),
        ])
        .into()
}

async fn orders_topic_id(c: &RpcClient<TokioNet>) -> Uuid {
    let Ok(Response::Metadata(md)) = c
        .call(
            MetadataRequest::default().with_topics(None).into(),
            12,
            10_000,
        )
        .await
    else {
        panic!("metadata")
    };
    md.topics
        .iter()
        .find(|t| t.name.as_ref().map(|n| n.as_str()) == Some("orders"))
        .expect("orders")
        .topic_id
}

#[test]
fn every_advertised_api_version_gets_an_answer() {
    let server = Server::start(&["--config", "group.initial.rebalance.delay.ms=0"]);
    let rt = runtime();
    let failures = rt.block_on(async {
        let net = TokioNet::new(0);
        let c = RpcClient::new(net.clone(), server.addr.clone(), "sweep");
        let topic_id = orders_topic_id(&c).await;
        // A group with one member, so DescribeGroups answers with member fields at every version.
        let joined = c.call(join("described", ""), 0, 10_000).await;
        assert!(
            matches!(&joined, Ok(Response::JoinGroup(r)) if r.error_code == 0),
            "{joined:?}"
        );
        // A commit to read back at every OffsetFetch version.
        c.call(request(Api::OffsetCommit, 8, topic_id), 8, 10_000)
            .await
            .expect("commit");

        let mut failures = Vec::new();
        let mut answered = 0;
        for api in CLIENT_APIS {
            for version in api.min_version()..=api.max_version() {
                let r = c
                    .call(request(*api, version, topic_id), version, 10_000)
                    .await;
                match r {
                    Ok(response) if response.api() == *api => answered += 1,
                    other => failures.push(format!("{api} v{version}: {other:?}")),
                }
            }
        }
        let advertised: usize = CLIENT_APIS
            .iter()
            .map(|a| (a.max_version() - a.min_version() + 1) as usize)
            .sum();
        assert_eq!(answered + failures.len(), advertised);
        failures
    });
    assert!(failures.is_empty(), "unanswered:\n{}", failures.join("\n"));
}

/// aiokafka 0.14 asks ListOffsets v3: the answer has no leader epoch field (v4+), so the broker
/// must not set one (it used to, and the connection closed on every aiokafka offset lookup).
#[test]
fn list_offsets_reports_the_leader_epoch_from_v4_only() {
    let server = Server::start(&[]);
    let rt = runtime();
    rt.block_on(async {
        let c = RpcClient::new(TokioNet::new(0), server.addr.clone(), "list-offsets");
        for version in 1..=Api::ListOffsets.max_version() {
            let r = c
                .call(
                    request(Api::ListOffsets, version, Uuid::nil()),
                    version,
                    10_000,
                )
                .await;
            let Ok(Response::ListOffsets(r)) = r else {
                panic!("ListOffsets v{version}: {r:?}")
            };
            let p = &r.topics[0].partitions[0];
            let epoch = if version >= 4 { 0 } else { -1 };
            assert_eq!(
                (p.error_code, p.offset, p.timestamp, p.leader_epoch),
                (0, 0, -1, epoch),
                "ListOffsets v{version}"
            );
        }
    });
}

/// The two consumer-group apis over real TCP at both versions, where they differ: a v0 join may
/// leave the member id to the coordinator (a Kafka `Uuid` string) while v1 requires it (KIP-1082), and
/// ConsumerGroupDescribe's MemberType exists from v1 only (-1 at v0, the field's default).
#[test]
fn consumer_group_apis_differ_by_version_as_kafka_4_4s() {
    let server = Server::start(&["--config", "group.consumer.assignment.interval.ms=0"]);
    let rt = runtime();
    rt.block_on(async {
        let c = RpcClient::new(TokioNet::new(0), server.addr.clone(), "consumer-versions");
        let heartbeat = |version: i16, member: &'static str| {
            let c = &c;
            async move {
                match c.call(consumer_join("cg", member), version, 10_000).await {
                    Ok(Response::ConsumerGroupHeartbeat(r)) => r,
                    other => panic!("v{version}: {other:?}"),
                }
            }
        };
        let v1 = heartbeat(1, "").await;
        assert_eq!(v1.error_code, protocol::ErrorCode::InvalidRequest.code());
        assert_eq!(
            v1.error_message.as_ref().map(|m| m.as_str()),
            Some("MemberId can't be empty.")
        );
        let v0 = heartbeat(0, "").await;
        assert_eq!((v0.error_code, v0.member_epoch), (0, 2));
        let id = v0.member_id.expect("a generated member id").to_string();
        // Kafka's `Uuid.randomUuid().toString()`: 16 bytes in URL-safe base64, unpadded.
        assert_eq!(id.len(), 22, "{id}");
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "{id}"
        );
        let mut owned = v0.assignment.expect("assignment").topic_partitions[0]
            .partitions
            .clone();
        owned.sort();
        assert_eq!(owned, vec![0, 1, 2]);

        for (version, member_type) in [(0i16, -1i8), (1, 1)] {
            let r = c
                .call(
                    ConsumerGroupDescribeRequest::default()
                        .with_group_ids(vec![GroupId(s("cg"))])
                        .into(),
                    version,
                    10_000,
                )
                .await;
            let Ok(Response::ConsumerGroupDescribe(d)) = r else {
                panic!("v{version}: {r:?}")
            };
            let g = &d.groups[0];
            assert_eq!((g.error_code, g.group_epoch), (0, 2), "v{version}");
            assert_eq!(g.members.len(), 1);
            assert_eq!(g.members[0].member_id.as_str(), id);
            assert_eq!(g.members[0].client_id.as_str(), "consumer-versions");
            assert_eq!(g.members[0].member_type, member_type, "v{version}");
        }
    });
}

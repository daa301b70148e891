//! `regroup serve` over real loopback TCP: the binary is started on an ephemeral port and driven
//! with raw Kafka requests; bad frames close only their own connection; Ctrl-C (SIGINT) stops it
//! cleanly. Every wait is bounded.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use bytes::Bytes;
use coordinator::rpc::RpcClient;
use protocol::messages::fetch_request::{FetchPartition, FetchTopic};
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::list_offsets_request::{ListOffsetsPartition, ListOffsetsTopic};
use protocol::messages::metadata_request::MetadataRequestTopic;
use protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use protocol::messages::offset_fetch_request::{OffsetFetchRequestGroup, OffsetFetchRequestTopics};
use protocol::messages::produce_request::{PartitionProduceData, TopicProduceData};
use protocol::messages::streams_group_heartbeat_request as sreq;
use protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use protocol::messages::{
    ApiVersionsRequest, FetchRequest, FindCoordinatorRequest, GroupId, ListOffsetsRequest,
    MetadataRequest, ProduceRequest, StrBytes, StreamsGroupDescribeRequest,
    StreamsGroupHeartbeatRequest, TopicName,
};
use protocol::messages::{
    HeartbeatRequest, JoinGroupRequest, OffsetCommitRequest, OffsetFetchRequest, SyncGroupRequest,
};
use protocol::net::TokioNet;
use protocol::{ErrorCode, Request, Response};

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

async fn call(c: &RpcClient<TokioNet>, request: impl Into<Request>, version: i16) -> Response {
    c.call(request.into(), version, 10_000)
        .await
        .unwrap_or_else(|e| panic!("request failed: {e}"))
}

/// Writes raw bytes on a fresh connection and reports whether the server closed it without
/// answering.
fn closed_without_answer(addr: &str, bytes: &[u8]) -> bool {
    let mut stream = TcpStream::connect(addr).unwrap();
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(bytes).unwrap();
    let mut buf = [0u8; 64];
    match stream.read(&mut buf) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => e.kind() == std::io::ErrorKind::ConnectionReset,
    }
}

async fn api_versions_ok(c: &RpcClient<TokioNet>) {
    let Response::ApiVersions(r) = call(
        c,
        ApiVersionsRequest::default()
            .with_client_software_name(s("regroup-test"))
            .with_client_software_version(s("1.0")),
        3,
    )
    .await
    else {
        panic!()
    };
    assert_eq!(r.error_code, 0);
}

#[test]
fn serve_answers_clients_and_survives_bad_frames() {
    let mut server = Server::start(&[
        "--config",
        "group.streams.initial.rebalance.delay.ms=0",
        "--config",
        "group.initial.rebalance.delay.ms=0",
    ]);
    let addr = server.addr.clone();
    let rt = runtime();
    rt.block_on(async {
        let net = TokioNet::new(0);
        let c = RpcClient::new(net.clone(), addr.clone(), "smoke");

        // ApiVersions: Produce is advertised; an unsupported version gets the v0 fallback.
        let Response::ApiVersions(av) = call(
            &c,
            ApiVersionsRequest::default()
                .with_client_software_name(s("regroup-test"))
                .with_client_software_version(s("1.0")),
            4,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(av.error_code, 0);
        let key = |k: i16| {
            av.api_keys
                .iter()
                .find(|a| a.api_key == k)
                .map(|a| (a.min_version, a.max_version))
        };
        assert_eq!(key(0), Some((3, 13)), "Produce");
        assert_eq!(key(1), Some((4, 18)), "Fetch");
        assert_eq!(key(88), Some((0, 1)), "StreamsGroupHeartbeat");
        assert_eq!(key(62), None, "BrokerRegistration is a controller api");
        assert!(
            av.finalized_features
                .iter()
                .any(|f| f.name.as_str() == "metadata.version" && f.max_version_level == 30)
        );
        let Response::ApiVersions(bad) = call(
            &c,
            ApiVersionsRequest::default()
                .with_client_software_name(s("x"))
                .with_client_software_version(s("1"))
                .with_cluster_id(Some(s("another-cluster"))),
            5,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(bad.error_code, ErrorCode::RebootstrapRequired.code());

        // Metadata names the broker and the topic created by --topic.
        let Response::Metadata(md) = call(
            &c,
            MetadataRequest::default()
                .with_topics(Some(vec![
                    MetadataRequestTopic::default().with_name(Some(TopicName(s("orders")))),
                ]))
                .with_allow_auto_topic_creation(false),
            12,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(md.brokers.len(), 1);
        assert_eq!(md.brokers[0].node_id.0, 1);
        assert_eq!(
            format!("{}:{}", md.brokers[0].host.as_str(), md.brokers[0].port),
            addr
        );
        assert_eq!(md.controller_id.0, 1);
        let orders = &md.topics[0];
        assert_eq!(orders.error_code, 0);
        assert_eq!(orders.partitions.len(), 3);
        assert!(
            orders
                .partitions
                .iter()
                .all(|p| p.leader_id.0 == 1 && p.error_code == 0)
        );
        let topic_id = orders.topic_id;
        let Response::Metadata(unknown) = call(
            &c,
            MetadataRequest::default()
                .with_topics(Some(vec![
                    MetadataRequestTopic::default().with_name(Some(TopicName(s("nope")))),
                ]))
                .with_allow_auto_topic_creation(false),
            12,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(
            unknown.topics[0].error_code,
            ErrorCode::UnknownTopicOrPartition.code()
        );

        // FindCoordinator (v3 single key, v4 batched) points at this broker.
        let Response::FindCoordinator(fc) =
            call(&c, FindCoordinatorRequest::default().with_key(s("app")), 3).await
        else {
            panic!()
        };
        assert_eq!((fc.error_code, fc.node_id.0), (0, 1));
        assert_eq!(fc.error_message.as_ref().map(|m| m.as_str()), Some("NONE"));
        assert_eq!(format!("{}:{}", fc.host.as_str(), fc.port), addr);
        let Response::FindCoordinator(fc4) = call(
            &c,
            FindCoordinatorRequest::default().with_coordinator_keys(vec![s("app"), s("other")]),
            6,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(fc4.coordinators.len(), 2);
        assert!(
            fc4.coordinators
                .iter()
                .all(|k| k.error_code == 0 && k.node_id.0 == 1)
        );

        // ListOffsets and Fetch see an empty partition; Fetch's records are empty, not null.
        let Response::ListOffsets(lo) = call(
            &c,
            ListOffsetsRequest::default()
                .with_replica_id(protocol::messages::BrokerId(-1))
                .with_topics(vec![
                    ListOffsetsTopic::default()
                        .with_name(TopicName(s("orders")))
                        .with_partitions(vec![
                            ListOffsetsPartition::default()
                                .with_partition_index(0)
                                .with_timestamp(-1),
                        ]),
                ]),
            7,
        )
        .await
        else {
            panic!()
        };
        let p = &lo.topics[0].partitions[0];
        assert_eq!((p.error_code, p.offset), (0, 0));
        let Response::Fetch(f) = call(
            &c,
            FetchRequest::default()
                .with_max_wait_ms(10)
                .with_session_epoch(-1)
                .with_topics(vec![
                    FetchTopic::default()
                        .with_topic_id(topic_id)
                        .with_partitions(vec![
                            FetchPartition::default()
                                .with_partition(0)
                                .with_partition_max_bytes(1 << 20),
                        ]),
                ]),
            16,
        )
        .await
        else {
            panic!()
        };
        let pd = &f.responses[0].partitions[0];
        assert_eq!(pd.error_code, 0);
        assert_eq!(pd.records.as_ref().map(|r| r.len()), Some(0));

        // An actual produce gets a clean per-partition error.
        let Response::Produce(pr) = call(
            &c,
            ProduceRequest::default()
                .with_acks(1)
                .with_timeout_ms(1000)
                .with_topic_data(vec![
                    TopicProduceData::default()
                        .with_name(TopicName(s("orders")))
                        .with_partition_data(vec![
                            PartitionProduceData::default()
                                .with_index(1)
                                .with_records(Some(Default::default())),
                        ]),
                ]),
            9,
        )
        .await
        else {
            panic!()
        };
        let pp = &pr.responses[0].partition_responses[0];
        assert_eq!(pp.error_code, ErrorCode::InvalidRequest.code());
        assert_eq!(
            pp.error_message.as_ref().map(|m| m.as_str()),
            Some("regroup does not store produced records")
        );

        // A streams member joins and gets all three tasks.
        let join = StreamsGroupHeartbeatRequest::default()
            .with_group_id(GroupId(s("app")))
            .with_member_id(s("m-1"))
            .with_member_epoch(0)
            .with_rebalance_timeout_ms(30_000)
            .with_process_id(Some(s("p-1")))
            .with_topology(Some(sreq::Topology::default().with_subtopologies(vec![
                    sreq::Subtopology::default()
                        .with_subtopology_id(s("0"))
                        .with_source_topics(vec![TopicName(s("orders"))]),
                ])))
            .with_active_tasks(Some(Vec::new()))
            .with_standby_tasks(Some(Vec::new()))
            .with_warmup_tasks(Some(Vec::new()));
        let Response::StreamsGroupHeartbeat(hb) = call(&c, join, 0).await else {
            panic!()
        };
        assert_eq!(hb.error_code, 0, "{:?}", hb.error_message);
        assert!(hb.member_epoch >= 1);
        let tasks: Vec<i32> = hb
            .active_tasks
            .iter()
            .flatten()
            .flat_map(|t| t.partitions.clone())
            .collect();
        assert_eq!(tasks, vec![0, 1, 2]);
        let Response::StreamsGroupDescribe(d) = call(
            &c,
            StreamsGroupDescribeRequest::default().with_group_ids(vec![GroupId(s("app"))]),
            0,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(d.groups[0].members.len(), 1);
        assert_eq!(d.groups[0].members[0].member_epoch, hb.member_epoch);

        // A topology with a changelog topic: the coordinator asks for it (MISSING_INTERNAL_TOPICS)
        // and the broker creates it with the source topic's partition count.
        let join2 = StreamsGroupHeartbeatRequest::default()
            .with_group_id(GroupId(s("app2")))
            .with_member_id(s("m-2"))
            .with_member_epoch(0)
            .with_rebalance_timeout_ms(30_000)
            .with_process_id(Some(s("p-2")))
            .with_topology(Some(sreq::Topology::default().with_subtopologies(vec![
                    sreq::Subtopology::default()
                        .with_subtopology_id(s("0"))
                        .with_source_topics(vec![TopicName(s("orders"))])
                        .with_state_changelog_topics(vec![
                            sreq::TopicInfo::default()
                                .with_name(TopicName(s("app2-store-changelog"))),
                        ]),
                ])))
            .with_active_tasks(Some(Vec::new()))
            .with_standby_tasks(Some(Vec::new()))
            .with_warmup_tasks(Some(Vec::new()));
        let Response::StreamsGroupHeartbeat(hb2) = call(&c, join2, 0).await else {
            panic!()
        };
        assert_eq!(hb2.error_code, 0);
        let statuses: Vec<i8> = hb2
            .status
            .iter()
            .flatten()
            .map(|st| st.status_code)
            .collect();
        assert!(
            statuses.contains(&3),
            "MISSING_INTERNAL_TOPICS in {statuses:?}"
        );
        let mut created = None;
        for _ in 0..100 {
            let Response::Metadata(md) = call(
                &c,
                MetadataRequest::default()
                    .with_topics(Some(vec![
                        MetadataRequestTopic::default()
                            .with_name(Some(TopicName(s("app2-store-changelog")))),
                    ]))
                    .with_allow_auto_topic_creation(false),
                12,
            )
            .await
            else {
                panic!()
            };
            if md.topics[0].error_code == 0 {
                created = Some(md.topics[0].partitions.len());
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            created,
            Some(3),
            "the changelog topic was created with 3 partitions"
        );

        // A classic static member joins (no MEMBER_ID_REQUIRED), syncs, heartbeats, commits and
        // reads its offsets back; a dynamic member without a member id is asked for one.
        let join = JoinGroupRequest::default()
            .with_group_id(GroupId(s("cg")))
            .with_session_timeout_ms(10_000)
            .with_rebalance_timeout_ms(30_000)
            .with_member_id(s(""))
            .with_group_instance_id(Some(s("inst-1")))
            .with_protocol_type(s("consumer"))
            .with_protocols(vec![
                JoinGroupRequestProtocol::default()
                    .with_name(s("range"))
                    .with_metadata(Bytes::from_static(&[1])),
            ]);
        let Response::JoinGroup(j) = call(&c, join, 7).await else {
            panic!()
        };
        assert_eq!(j.error_code, 0);
        assert_eq!(j.generation_id, 1);
        assert_eq!(j.leader, j.member_id);
        assert_eq!(j.protocol_name.as_ref().map(|p| p.as_str()), Some("range"));
        assert_eq!(j.members.len(), 1);
        assert_eq!(
            j.members[0].group_instance_id.as_ref().map(|i| i.as_str()),
            Some("inst-1")
        );
        let member = j.member_id.clone();
        let Response::SyncGroup(sg) = call(
            &c,
            SyncGroupRequest::default()
                .with_group_id(GroupId(s("cg")))
                .with_generation_id(1)
                .with_member_id(member.clone())
                .with_group_instance_id(Some(s("inst-1")))
                .with_protocol_type(Some(s("consumer")))
                .with_protocol_name(Some(s("range")))
                .with_assignments(vec![
                    SyncGroupRequestAssignment::default()
                        .with_member_id(member.clone())
                        .with_assignment(Bytes::from_static(&[7])),
                ]),
            5,
        )
        .await
        else {
            panic!()
        };
        assert_eq!((sg.error_code, &sg.assignment[..]), (0, &[7u8][..]));
        let Response::Heartbeat(h) = call(
            &c,
            HeartbeatRequest::default()
                .with_group_id(GroupId(s("cg")))
                .with_generation_id(1)
                .with_member_id(member.clone())
                .with_group_instance_id(Some(s("inst-1"))),
            4,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(h.error_code, 0);
        let Response::OffsetCommit(oc) = call(
            &c,
            OffsetCommitRequest::default()
                .with_group_id(GroupId(s("cg")))
                .with_generation_id_or_member_epoch(1)
                .with_member_id(member.clone())
                .with_group_instance_id(Some(s("inst-1")))
                .with_topics(vec![
                    OffsetCommitRequestTopic::default()
                        .with_name(TopicName(s("orders")))
                        .with_partitions(vec![
                            OffsetCommitRequestPartition::default()
                                .with_partition_index(2)
                                .with_committed_offset(17),
                        ]),
                ]),
            8,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(oc.topics[0].partitions[0].error_code, 0);
        let Response::OffsetFetch(of) = call(
            &c,
            OffsetFetchRequest::default().with_groups(vec![
                OffsetFetchRequestGroup::default()
                    .with_group_id(GroupId(s("cg")))
                    .with_topics(Some(vec![
                        OffsetFetchRequestTopics::default()
                            .with_name(TopicName(s("orders")))
                            .with_partition_indexes(vec![2]),
                    ])),
            ]),
            8,
        )
        .await
        else {
            panic!()
        };
        let p = &of.groups[0].topics[0].partitions[0];
        assert_eq!((p.error_code, p.committed_offset), (0, 17));
        let Response::JoinGroup(dynamic) = call(
            &c,
            JoinGroupRequest::default()
                .with_group_id(GroupId(s("dyn")))
                .with_session_timeout_ms(10_000)
                .with_rebalance_timeout_ms(30_000)
                .with_member_id(s(""))
                .with_protocol_type(s("consumer"))
                .with_protocols(vec![
                    JoinGroupRequestProtocol::default().with_name(s("range")),
                ]),
            7,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(dynamic.error_code, ErrorCode::MemberIdRequired.code());
        assert!(!dynamic.member_id.is_empty());

        // Bad input closes only its own connection.
        // Unknown api key 999 (header v2 shape).
        let unknown_key = [0u8, 0, 0, 11, 0x03, 0xe7, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        assert!(closed_without_answer(&addr, &unknown_key));
        // Negative size prefix.
        assert!(closed_without_answer(&addr, &[0xff, 0xff, 0xff, 0xfe]));
        // Metadata v12 whose body is garbage.
        let garbage_metadata = [0u8, 0, 0, 12, 0, 3, 0, 12, 0, 0, 0, 2, 0xff, 0xff, 0, 0x7f];
        assert!(closed_without_answer(&addr, &garbage_metadata));
        // Fetch v3 is below Kafka 4.4's range: closed, no answer.
        let old_fetch = [0u8, 0, 0, 10, 0, 1, 0, 3, 0, 0, 0, 3, 0xff, 0xff];
        assert!(closed_without_answer(&addr, &old_fetch));
        // The first connection is still served, and so is a new one.
        api_versions_ok(&c).await;
        api_versions_ok(&RpcClient::new(net, addr.clone(), "after")).await;
    });
    drop(rt);
    let status = server.interrupt();
    assert!(status.success(), "exit status {status}");
}

//! Round trips of the streams-group messages written in this crate (apis 88, 89, 93).

use bytes::BytesMut;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use protocol::messages::streams_group_describe_response as describe;
use protocol::messages::streams_group_heartbeat_request as hb_req;
use protocol::messages::streams_group_heartbeat_response as hb_resp;
use protocol::messages::streams_group_topology_description_update_request as update;
use protocol::messages::*;

fn s(v: &'static str) -> StrBytes {
    StrBytes::from_static_str(v)
}

fn round_trip<T: Encodable + Decodable + PartialEq + std::fmt::Debug>(msg: &T, version: i16) -> T {
    let mut buf = BytesMut::new();
    msg.encode(&mut buf, version).unwrap();
    assert_eq!(msg.compute_size(version).unwrap(), buf.len());
    let mut bytes = buf.freeze();
    let back = T::decode(&mut bytes, version).unwrap();
    assert!(bytes.is_empty(), "bytes left after decoding");
    back
}

fn full_heartbeat_request() -> StreamsGroupHeartbeatRequest {
    let topic = hb_req::TopicInfo::default()
        .with_name(TopicName(s("app-store-changelog")))
        .with_partitions(0)
        .with_replication_factor(3)
        .with_topic_configs(vec![
            hb_req::KeyValue::default()
                .with_key(s("cleanup.policy"))
                .with_value(s("compact")),
        ]);
    let subtopology = hb_req::Subtopology::default()
        .with_subtopology_id(s("0"))
        .with_source_topics(vec![TopicName(s("input"))])
        .with_source_topic_regex(vec![s("in-.*")])
        .with_state_changelog_topics(vec![topic.clone()])
        .with_repartition_sink_topics(vec![TopicName(s("app-repartition"))])
        .with_repartition_source_topics(vec![topic])
        .with_copartition_groups(vec![
            hb_req::CopartitionGroup::default()
                .with_source_topics(vec![0])
                .with_source_topic_regex(vec![0])
                .with_repartition_source_topics(vec![0]),
        ]);
    StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("app")))
        .with_member_id(s("m-1"))
        .with_member_epoch(0)
        .with_endpoint_information_epoch(3)
        .with_instance_id(Some(s("instance-1")))
        .with_rack_id(Some(s("rack-a")))
        .with_rebalance_timeout_ms(30_000)
        .with_topology(Some(
            hb_req::Topology::default()
                .with_epoch(1)
                .with_subtopologies(vec![subtopology]),
        ))
        .with_active_tasks(Some(vec![
            hb_req::TaskIds::default()
                .with_subtopology_id(s("0"))
                .with_partitions(vec![0, 1]),
        ]))
        .with_standby_tasks(Some(vec![]))
        .with_warmup_tasks(None)
        .with_process_id(Some(s("p-1")))
        .with_user_endpoint(Some(
            hb_req::Endpoint::default()
                .with_host(s("localhost"))
                .with_port(8080),
        ))
        .with_client_tags(Some(vec![
            hb_req::KeyValue::default()
                .with_key(s("zone"))
                .with_value(s("z1")),
        ]))
        .with_task_offsets(Some(vec![
            hb_req::TaskOffset::default()
                .with_subtopology_id(s("0"))
                .with_partition(1)
                .with_offset(42),
        ]))
        .with_task_end_offsets(Some(vec![]))
        .with_shutdown_application(true)
}

#[test]
fn heartbeat_request_round_trips_in_both_versions() {
    let req = full_heartbeat_request();
    for v in 0..=1 {
        assert_eq!(round_trip(&req, v), req);
    }
    let minimal = StreamsGroupHeartbeatRequest::default();
    assert_eq!(minimal.rebalance_timeout_ms, -1);
    assert_eq!(minimal.instance_id, None);
    assert_eq!(round_trip(&minimal, 1), minimal);
}

#[test]
fn heartbeat_response_fields_follow_the_version() {
    let resp = StreamsGroupHeartbeatResponse::default()
        .with_member_id(s("m-1"))
        .with_member_epoch(2)
        .with_heartbeat_interval_ms(5000)
        .with_task_offset_interval_ms(60_000)
        .with_status(Some(vec![
            hb_resp::Status::default()
                .with_status_code(1)
                .with_status_detail(s("missing")),
        ]))
        .with_active_tasks(Some(vec![
            hb_resp::TaskIds::default()
                .with_subtopology_id(s("0"))
                .with_partitions(vec![0]),
        ]))
        .with_endpoint_information_epoch(1)
        .with_partitions_by_user_endpoint(Some(vec![
            hb_resp::EndpointToPartitions::default()
                .with_user_endpoint(hb_resp::Endpoint::default().with_host(s("h")).with_port(1))
                .with_active_partitions(vec![
                    hb_resp::TopicPartition::default()
                        .with_topic(TopicName(s("input")))
                        .with_partitions(vec![0]),
                ]),
        ]));
    // Defaults from the 4.4 schema.
    assert_eq!(
        StreamsGroupHeartbeatResponse::default().acceptable_recovery_lag,
        -1
    );
    assert_eq!(
        StreamsGroupHeartbeatResponse::default().status,
        Some(vec![])
    );

    let v1 = resp
        .clone()
        .with_acceptable_recovery_lag(10_000)
        .with_topology_description_required(true);
    assert_eq!(round_trip(&v1, 1), v1);

    // v0 carries the int32 legacy field; the ignorable int64 field is dropped on the way.
    let v0 = resp
        .clone()
        .with_acceptable_recovery_lag(10_000)
        .with_acceptable_recovery_lag_legacy(7);
    let back = round_trip(&v0, 0);
    assert_eq!(back.acceptable_recovery_lag, -1);
    assert_eq!(back.acceptable_recovery_lag_legacy, 7);

    // TopologyDescriptionRequired is not ignorable: setting it at v0 is an encoding error,
    // and so is the v0-only legacy field at v1.
    let mut buf = BytesMut::new();
    assert!(
        resp.clone()
            .with_topology_description_required(true)
            .encode(&mut buf, 0)
            .is_err()
    );
    assert!(
        resp.clone()
            .with_acceptable_recovery_lag_legacy(1)
            .encode(&mut buf, 1)
            .is_err()
    );
}

fn description() -> describe::TopologyDescription {
    let node = describe::TopologyDescriptionNode::default()
        .with_name(s("KSTREAM-SOURCE-0000000000"))
        .with_node_type(1)
        .with_source_topics(vec![TopicName(s("input"))])
        .with_sink_topic(None)
        .with_successors(vec![s("KSTREAM-PROCESSOR-0000000001")]);
    describe::TopologyDescription::default()
        .with_subtopologies(vec![
            describe::TopologyDescriptionSubtopology::default()
                .with_subtopology_id(s("0"))
                .with_nodes(vec![node.clone()]),
        ])
        .with_global_stores(vec![
            describe::TopologyDescriptionGlobalStore::default()
                .with_source(node.clone())
                .with_processor(node.with_node_type(2)),
        ])
}

#[test]
fn describe_round_trips_and_v1_fields_are_checked() {
    let req = StreamsGroupDescribeRequest::default()
        .with_group_ids(vec![GroupId(s("app"))])
        .with_include_authorized_operations(true);
    assert_eq!(round_trip(&req, 0), req);
    let req1 = req.clone().with_include_topology_description(true);
    assert_eq!(round_trip(&req1, 1), req1);
    assert!(req1.encode(&mut BytesMut::new(), 0).is_err());

    let member = describe::Member::default()
        .with_member_id(s("m-1"))
        .with_member_epoch(-2)
        .with_instance_id(Some(s("i")))
        .with_process_id(s("p"))
        .with_user_endpoint(Some(
            describe::Endpoint::default()
                .with_host(s("h"))
                .with_port(65535),
        ))
        .with_task_offsets(vec![
            describe::TaskOffset::default()
                .with_subtopology_id(s("0"))
                .with_offset(9),
        ])
        .with_assignment(describe::Assignment::default().with_active_tasks(
            vec![describe::TaskIds::default().with_subtopology_id(s("0")).with_partitions(vec![2])],
        ));
    let group = describe::DescribedGroup::default()
        .with_group_id(GroupId(s("app")))
        .with_group_state(s("Stable"))
        .with_group_epoch(3)
        .with_assignment_epoch(3)
        .with_topology(Some(
            describe::Topology::default()
                .with_epoch(1)
                .with_subtopologies(None),
        ))
        .with_members(vec![member]);
    assert_eq!(
        describe::DescribedGroup::default().authorized_operations,
        i32::MIN
    );
    let resp = StreamsGroupDescribeResponse::default().with_groups(vec![group.clone()]);
    assert_eq!(round_trip(&resp, 0), resp);
    let resp1 = StreamsGroupDescribeResponse::default().with_groups(vec![
        group
            .with_topology_description(Some(description()))
            .with_topology_description_status(3)
            .with_assignor_name(Some(s("sticky"))),
    ]);
    assert_eq!(round_trip(&resp1, 1), resp1);
}

#[test]
fn topology_description_update_round_trips() {
    let req = StreamsGroupTopologyDescriptionUpdateRequest::default()
        .with_group_id(GroupId(s("app")))
        .with_member_id(s("m-1"))
        .with_topology_epoch(4)
        .with_topology_description(
            // The update request has its own copy of the description structs.
            update::TopologyDescription::default().with_subtopologies(vec![
                update::TopologyDescriptionSubtopology::default()
                    .with_subtopology_id(s("0"))
                    .with_nodes(vec![
                        update::TopologyDescriptionNode::default()
                            .with_name(s("n"))
                            .with_node_type(3)
                            .with_sink_topic(Some(TopicName(s("out")))),
                    ]),
            ]),
        );
    assert_eq!(round_trip(&req, 0), req);
    let resp = StreamsGroupTopologyDescriptionUpdateResponse::default()
        .with_error_code(135)
        .with_error_message(Some(s("plugin failed")));
    assert_eq!(round_trip(&resp, 0), resp);
    assert!(req.encode(&mut BytesMut::new(), 1).is_err());
}

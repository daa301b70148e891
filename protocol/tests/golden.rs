//! Golden byte vectors: whole frames (size prefix included) that regroup must produce and parse
//! byte for byte.
//!
//! Sources: `shared/reference/kraft-and-wire.md` §5.5 (A..I2), `kraft-44-delta.md` §1.5 (A2, A3,
//! C2), the seed page `broker-heartbeat-wire-layout.txt` (its two v1 sample frames), and
//! StreamsGroupHeartbeat frames designed for this test and explained field by field below.
//! Every vector was cross-checked against kafka-clients 4.4.0: a throwaway Java program built
//! the same messages with the generated `*Data` classes and wrote header + body with
//! `ObjectSerializationCache`/`ByteBufferAccessor`; its hex output is what is pinned here.

use bytes::Bytes;
use kafka_protocol::protocol::StrBytes;
use protocol::messages::*;
use protocol::request::{IncomingRequest, decode_request_frame, encode_request_frame};
use protocol::response::{
    api_versions_unsupported_response, decode_response_frame, encode_response_frame,
};
use protocol::{Api, Request, Response};
use uuid::Uuid;

fn s(v: &'static str) -> StrBytes {
    StrBytes::from_static_str(v)
}

/// Reads an annotated hex literal: on every line, the whitespace-separated hex tokens up to the
/// first word that is not hex (the comment); `|` separators are skipped.
fn unhex(text: &str) -> Vec<u8> {
    let mut clean = String::new();
    for line in text.lines() {
        for token in line.split_whitespace() {
            if token == "|" {
                continue;
            }
            if !token.chars().all(|c| c.is_ascii_hexdigit()) {
                break;
            }
            clean.push_str(token);
        }
    }
    hex::decode(clean).unwrap()
}

const U1: Uuid = Uuid::from_u128(0x000102030405060708090a0b0c0d0e0f);
const U2: Uuid = Uuid::from_u128(0x101112131415161718191a1b1c1d1e1f);

/// Encodes the request frame and checks it against `expected`, then decodes `expected` and
/// checks it gives back the same header and request.
fn check_request(
    corr: i32,
    client: Option<&'static str>,
    version: i16,
    request: Request,
    expected: &str,
) {
    let expected = unhex(expected);
    let header = RequestHeader::default()
        .with_request_api_key(request.api().key())
        .with_request_api_version(version)
        .with_correlation_id(corr)
        .with_client_id(client.map(s));
    let frame = encode_request_frame(&header, &request).unwrap();
    assert_eq!(
        hex::encode(&frame),
        hex::encode(&expected),
        "{} v{version} encode",
        request.api()
    );
    let size = i32::from_be_bytes(expected[..4].try_into().unwrap()) as usize;
    assert_eq!(size, expected.len() - 4, "size prefix");
    match decode_request_frame(Bytes::from(expected[4..].to_vec())).unwrap() {
        IncomingRequest::Request {
            header: h,
            request: r,
        } => {
            assert_eq!(h, header);
            assert_eq!(r, request);
        }
        other => panic!("unexpected {other:?}"),
    }
}

fn check_response(corr: i32, version: i16, response: Response, expected: &str) {
    let expected = unhex(expected);
    let api = response.api();
    let frame = encode_response_frame(corr, api, version, &response).unwrap();
    assert_eq!(
        hex::encode(&frame),
        hex::encode(&expected),
        "{api} v{version} encode"
    );
    let (header, back) =
        decode_response_frame(api, version, Bytes::from(expected[4..].to_vec())).unwrap();
    assert_eq!(header.correlation_id, corr);
    assert_eq!(back, response);
}

fn heartbeat(epoch: i64) -> BrokerHeartbeatRequest {
    BrokerHeartbeatRequest::default()
        .with_broker_id(BrokerId(1))
        .with_broker_epoch(epoch)
        .with_current_metadata_offset(100)
}

#[test]
fn vector_a_broker_heartbeat_v1_minimal() {
    check_request(
        7,
        None,
        1,
        heartbeat(42).into(),
        "00000022 003f 0001 00000007 ffff 00 | 00000001 000000000000002a 0000000000000064 00 00 | 00",
    );
}

#[test]
fn vectors_b_and_b2_broker_heartbeat_responses() {
    check_response(
        7,
        1,
        BrokerHeartbeatResponse::default()
            .with_is_caught_up(true)
            .with_is_fenced(false)
            .into(),
        "0000000f 00000007 00 00000000 0000 01 00 00 00",
    );
    // The controller's error answer fills only the error code, so IsFenced keeps its default (true).
    check_response(
        8,
        1,
        BrokerHeartbeatResponse::default()
            .with_error_code(77)
            .into(),
        "0000000f 00000008 00 00000000 004d 00 01 00 00",
    );
}

#[test]
fn vector_c_broker_heartbeat_with_offline_dir() {
    check_request(
        9,
        None,
        1,
        heartbeat(42)
            .with_want_fence(true)
            .with_offline_log_dirs(vec![U1])
            .into(),
        "00000035 003f 0001 00000009 ffff 00
         00000001 000000000000002a 0000000000000064 01 00
         01 00 11 02 000102030405060708090a0b0c0d0e0f",
    );
}

#[test]
fn vectors_d_to_g_find_coordinator() {
    let by_key = FindCoordinatorRequest::default()
        .with_key(s("g1"))
        .with_key_type(0);
    check_request(
        1,
        Some("c"),
        3,
        by_key.clone().into(),
        "00000011 000a 0003 00000001 0001 63 00   03 6731 00 00",
    );
    check_request(
        1,
        Some("c"),
        0,
        by_key.into(),
        "0000000f 000a 0000 00000001 0001 63  0002 6731",
    );
    check_response(
        1,
        0,
        FindCoordinatorResponse::default()
            .with_error_code(15)
            .with_node_id(BrokerId(-1))
            .with_host(s(""))
            .with_port(-1)
            .into(),
        "00000010 00000001  000f ffffffff 0000 ffffffff",
    );
    check_request(
        2,
        Some("c"),
        4,
        FindCoordinatorRequest::default()
            .with_key_type(0)
            .with_coordinator_keys(vec![s("g1")])
            .into(),
        "00000012 000a 0004 00000002 0001 63 00  00 02 03 6731 00",
    );
    check_response(
        2,
        4,
        FindCoordinatorResponse::default()
            .with_coordinators(vec![
                find_coordinator_response::Coordinator::default()
                    .with_key(s("g1"))
                    .with_node_id(BrokerId(2))
                    .with_host(s("b2"))
                    .with_port(9092)
                    .with_error_message(None),
            ])
            .into(),
        "0000001d 00000002 00  00000000 02 03 6731 00000002 03 6232 00002384 0000 00 00 00",
    );
}

#[test]
fn vectors_h_and_h2_api_versions() {
    check_request(
        0,
        Some("c"),
        3,
        ApiVersionsRequest::default()
            .with_client_software_name(s("k"))
            .with_client_software_version(s("1"))
            .into(),
        "00000011 0012 0003 00000000 0001 63 00  02 6b 02 31 00",
    );
    // Response header v0 even though v3 is flexible.
    check_response(
        0,
        3,
        ApiVersionsResponse::default()
            .with_api_keys(vec![
                api_versions_response::ApiVersion::default()
                    .with_api_key(18)
                    .with_min_version(0)
                    .with_max_version(4),
            ])
            .into(),
        "00000013 00000000  0000 02 0012 0000 0004 00 00000000 00",
    );
}

#[test]
fn vectors_i_and_i2_broker_registration() {
    let request = BrokerRegistrationRequest::default()
        .with_broker_id(BrokerId(1))
        .with_cluster_id(s("c"))
        .with_incarnation_id(U1)
        .with_listeners(vec![
            broker_registration_request::Listener::default()
                .with_name(s("P"))
                .with_host(s("h"))
                .with_port(9092)
                .with_security_protocol(0),
        ])
        .with_rack(None)
        .with_log_dirs(vec![U1])
        .with_previous_broker_epoch(-1);
    check_request(
        3,
        None,
        4,
        request.into(),
        "00000048 003e 0004 00000003 ffff 00
         00000001 02 63 000102030405060708090a0b0c0d0e0f
         02  02 50 02 68 2384 0000 00
         01
         00
         00
         02 000102030405060708090a0b0c0d0e0f
         ffffffffffffffff
         00",
    );
    check_response(
        3,
        4,
        BrokerRegistrationResponse::default()
            .with_broker_epoch(4242)
            .into(),
        "00000014 00000003 00  00000000 0000 0000000000001092 00",
    );
}

#[test]
fn vectors_a2_a3_c2_broker_heartbeat_v2() {
    // CordonedLogDirs null (before RECOVERY): same as A except the version.
    check_request(
        7,
        None,
        2,
        heartbeat(42).into(),
        "00000022 003f 0002 00000007 ffff 00 | 00000001 000000000000002a 0000000000000064 00 00 | 00",
    );
    // CordonedLogDirs = []: tag 1 is written because its default is null, not empty.
    check_request(
        7,
        None,
        2,
        heartbeat(42).with_cordoned_log_dirs(Some(vec![])).into(),
        "00000025 003f 0002 00000007 ffff 00 | 00000001 000000000000002a 0000000000000064 00 00 | 01 01 01 01",
    );
    check_request(
        9,
        None,
        2,
        heartbeat(42)
            .with_want_fence(true)
            .with_offline_log_dirs(vec![U1])
            .with_cordoned_log_dirs(Some(vec![U2]))
            .into(),
        "00000048 003f 0002 00000009 ffff 00 | 00000001 000000000000002a 0000000000000064 01 00 |
         02 00 11 02 000102030405060708090a0b0c0d0e0f 01 11 02 101112131415161718191a1b1c1d1e1f",
    );
    // CordonedLogDirs is not ignorable: a non-null value cannot be written at v1.
    let frame = encode_request_frame(
        &RequestHeader::default()
            .with_request_api_key(63)
            .with_request_api_version(1),
        &heartbeat(42).with_cordoned_log_dirs(Some(vec![])).into(),
    );
    assert!(frame.is_err());
}

#[test]
fn seed_page_broker_heartbeat_v1_frames() {
    // The seed's smallest legal instances: every number zero, client id "" (not null).
    check_request(
        0,
        Some(""),
        1,
        heartbeat(0)
            .with_broker_id(BrokerId(0))
            .with_current_metadata_offset(0)
            .into(),
        "00000022003f0001000000000000000000000000000000000000000000000000000000000000",
    );
    check_response(
        0,
        1,
        BrokerHeartbeatResponse::default()
            .with_is_fenced(false)
            .into(),
        "0000000f000000000000000000000000000000",
    );
}

#[test]
fn api_versions_unsupported_answer_is_a_v0_body_with_only_api_versions() {
    check_response(
        11,
        0,
        api_versions_unsupported_response(),
        "00000010 0000000b | 0023 | 00000001 0012 0000 0005",
    );
    // And an ApiVersions request at a version regroup does not know is sorted out before its
    // body is read.
    let body = unhex("0012 0063 0000000b 0001 63 00 | ff ff ff");
    match decode_request_frame(Bytes::from(body)).unwrap() {
        IncomingRequest::UnsupportedApiVersions { header } => {
            assert_eq!(header.correlation_id, 11);
            assert_eq!(header.request_api_version, 99);
        }
        other => panic!("unexpected {other:?}"),
    }
}

use protocol::messages::streams_group_heartbeat_request as hb_req;
use protocol::messages::streams_group_heartbeat_response as hb_resp;

/// StreamsGroupHeartbeatRequest v0: a member joining with its topology.
#[test]
fn streams_group_heartbeat_request_v0_join() {
    let request = StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s("m"))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(30_000)
        .with_topology(Some(
            hb_req::Topology::default()
                .with_epoch(1)
                .with_subtopologies(vec![
                    hb_req::Subtopology::default()
                        .with_subtopology_id(s("0"))
                        .with_source_topics(vec![TopicName(s("t"))]),
                ]),
        ))
        .with_active_tasks(Some(vec![]))
        .with_standby_tasks(Some(vec![]))
        .with_warmup_tasks(Some(vec![]))
        .with_process_id(Some(s("p")))
        .with_client_tags(Some(vec![]));
    check_request(
        5,
        Some("c"),
        0,
        request.into(),
        "0000003b               size: 59 bytes follow
         0058 0000 00000005     header v2: api key 88, version 0, correlation id 5
         0001 63                client id \"c\" (int16 length even in header v2)
         00                     header tagged fields: none
         02 67                  GroupId \"g\" (compact string: uvarint length+1)
         02 6d                  MemberId \"m\"
         00000000               MemberEpoch 0 = join
         00000000               EndpointInformationEpoch 0
         00                     InstanceId null (compact: 0 = null)
         00                     RackId null
         00007530               RebalanceTimeoutMs 30000
         01                     Topology present (nullable struct: int8 1, null would be ff)
           00000001             Topology.Epoch 1
           02                   Topology.Subtopologies: 1 element (uvarint count+1)
             02 30              SubtopologyId \"0\"
             02 02 74           SourceTopics [\"t\"]
             01 01 01 01 01     SourceTopicRegex, StateChangelogTopics, RepartitionSinkTopics,
                                RepartitionSourceTopics, CopartitionGroups: all empty
             00                 Subtopology tagged fields
           00                   Topology tagged fields
         01 01 01               ActiveTasks, StandbyTasks, WarmupTasks: empty (not null)
         02 70                  ProcessId \"p\"
         ff                     UserEndpoint null
         01                     ClientTags []
         00 00                  TaskOffsets, TaskEndOffsets: null
         00                     ShutdownApplication false
         00                     tagged fields: none",
    );
}

/// StreamsGroupHeartbeatRequest v1 (same schema as v0): a regular heartbeat reporting tasks.
#[test]
fn streams_group_heartbeat_request_v1_heartbeat() {
    let request = StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s("m"))
        .with_member_epoch(3)
        .with_endpoint_information_epoch(2)
        .with_active_tasks(Some(vec![
            hb_req::TaskIds::default()
                .with_subtopology_id(s("0"))
                .with_partitions(vec![0, 1]),
        ]))
        .with_user_endpoint(Some(
            hb_req::Endpoint::default()
                .with_host(s("h"))
                .with_port(8080),
        ))
        .with_task_offsets(Some(vec![
            hb_req::TaskOffset::default()
                .with_subtopology_id(s("0"))
                .with_partition(1)
                .with_offset(100),
        ]));
    check_request(
        6,
        Some("c"),
        1,
        request.into(),
        "00000049               size: 73
         0058 0001 00000006 0001 63 00   header v2: api 88, version 1, corr 6, client \"c\"
         02 67 02 6d            GroupId \"g\", MemberId \"m\"
         00000003               MemberEpoch 3
         00000002               EndpointInformationEpoch 2
         00 00                  InstanceId, RackId: null (unchanged)
         ffffffff               RebalanceTimeoutMs -1 (unchanged)
         ff                     Topology null (only sent with epoch 0)
         02                     ActiveTasks: 1 element
           02 30                SubtopologyId \"0\"
           03 00000000 00000001 Partitions [0, 1]
           00                   TaskIds tagged fields
         00 00                  StandbyTasks, WarmupTasks: null (unchanged)
         00                     ProcessId null
         01 02 68 1f90 00       UserEndpoint present: Host \"h\", Port 8080 (uint16), tags
         00                     ClientTags null
         02                     TaskOffsets: 1 element
           02 30 00000001 0000000000000064 00   \"0\", partition 1, offset 100, tags
         00                     TaskEndOffsets null
         00                     ShutdownApplication false
         00                     tagged fields",
    );
}

fn heartbeat_response() -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse::default()
        .with_member_id(s("m"))
        .with_heartbeat_interval_ms(5000)
        .with_task_offset_interval_ms(60_000)
        .with_acceptable_recovery_lag(10_000)
}

/// StreamsGroupHeartbeatResponse v0: AcceptableRecoveryLagLegacy is an int32 (4.4 leaves it 0)
/// and the int64 AcceptableRecoveryLag (ignorable, v1+) is dropped.
#[test]
fn streams_group_heartbeat_response_v0() {
    let response = heartbeat_response()
        .with_member_epoch(1)
        .with_status(Some(vec![]))
        .with_active_tasks(Some(vec![
            hb_resp::TaskIds::default()
                .with_subtopology_id(s("0"))
                .with_partitions(vec![0]),
        ]))
        .with_standby_tasks(Some(vec![]))
        .with_warmup_tasks(Some(vec![]));
    let expected = "00000030               size: 48
         00000005 00            response header v1: correlation id 5, no tags
         00000000               ThrottleTimeMs 0
         0000                   ErrorCode 0
         00                     ErrorMessage null
         02 6d                  MemberId \"m\"
         00000001               MemberEpoch 1
         00001388               HeartbeatIntervalMs 5000
         00000000               AcceptableRecoveryLagLegacy 0 (int32, v0 only)
         0000ea60               TaskOffsetIntervalMs 60000
         01                     Status []
         02 02 30 02 00000000 00   ActiveTasks [{\"0\", [0]}]
         01 01                  StandbyTasks [], WarmupTasks []
         00000000               EndpointInformationEpoch 0
         00                     PartitionsByUserEndpoint null
         00                     tagged fields";
    // Decoding gives the v0 view: the int64 field is back at its default (-1).
    let mut as_decoded = response.clone();
    as_decoded.acceptable_recovery_lag = -1;
    let api = Api::StreamsGroupHeartbeat;
    let frame = encode_response_frame(5, api, 0, &response.into()).unwrap();
    assert_eq!(hex::encode(&frame), hex::encode(unhex(expected)));
    let (_, back) =
        decode_response_frame(api, 0, Bytes::from(unhex(expected)[4..].to_vec())).unwrap();
    assert_eq!(back, Response::StreamsGroupHeartbeat(as_decoded));
}

/// StreamsGroupHeartbeatResponse v1: the legacy int32 is gone, AcceptableRecoveryLag int64
/// follows TaskOffsetIntervalMs, and TopologyDescriptionRequired follows WarmupTasks.
#[test]
fn streams_group_heartbeat_response_v1() {
    let response = heartbeat_response()
        .with_member_epoch(4)
        .with_status(Some(vec![
            hb_resp::Status::default()
                .with_status_code(1)
                .with_status_detail(s("t")),
        ]))
        .with_active_tasks(None)
        .with_topology_description_required(true);
    check_response(
        6,
        1,
        response.into(),
        "00000031               size: 49
         00000006 00            response header v1: correlation id 6
         00000000 0000 00       ThrottleTimeMs 0, ErrorCode 0, ErrorMessage null
         02 6d                  MemberId \"m\"
         00000004               MemberEpoch 4
         00001388               HeartbeatIntervalMs 5000
         0000ea60               TaskOffsetIntervalMs 60000
         0000000000002710       AcceptableRecoveryLag 10000 (int64, v1+)
         02 01 02 74 00         Status [{StatusCode 1 MISSING_SOURCE_TOPICS, StatusDetail \"t\"}]
         00 00 00               ActiveTasks, StandbyTasks, WarmupTasks: null (unchanged)
         01                     TopologyDescriptionRequired true (v1+)
         00000000               EndpointInformationEpoch 0
         00                     PartitionsByUserEndpoint null
         00                     tagged fields",
    );
}

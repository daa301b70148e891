//! JSON conversion: hand-written expectations in Kafka's JsonConverter conventions, and the
//! documented leniencies and strictnesses. (Random round trips are in proptests.rs; the same
//! conversion was cross-checked against kafka-clients 4.4.0's `*JsonConverter` classes on 6972
//! random messages covering every api, version and direction.)

use kafka_protocol::protocol::StrBytes;
use protocol::json::{
    JsonError, request_from_json, request_to_json, response_from_json, response_to_json,
};
use protocol::messages::*;
use protocol::{Api, Request, Response};
use serde_json::json;
use uuid::Uuid;

fn s(v: &'static str) -> StrBytes {
    StrBytes::from_static_str(v)
}

#[test]
fn broker_heartbeat_v2_written_like_kafka() {
    let req = Request::BrokerHeartbeat(
        BrokerHeartbeatRequest::default()
            .with_broker_id(BrokerId(1))
            .with_broker_epoch(42)
            .with_current_metadata_offset(100)
            .with_offline_log_dirs(vec![Uuid::from_u128(0x000102030405060708090a0b0c0d0e0f)])
            .with_cordoned_log_dirs(Some(vec![])),
    );
    // int64 as plain numbers, uuids in Kafka's base64 form, the empty (non-null) tagged array
    // present because its default is null.
    assert_eq!(
        request_to_json(&req, 2).unwrap().to_string(),
        r#"{"brokerId":1,"brokerEpoch":42,"currentMetadataOffset":100,"wantFence":false,"wantShutDown":false,"offlineLogDirs":["AAECAwQFBgcICQoLDA0ODw"],"cordonedLogDirs":[]}"#
    );
    // At v1 CordonedLogDirs does not exist and tagged fields at their default are left out.
    let v1 =
        Request::BrokerHeartbeat(BrokerHeartbeatRequest::default().with_broker_id(BrokerId(1)));
    assert_eq!(
        request_to_json(&v1, 1).unwrap().to_string(),
        r#"{"brokerId":1,"brokerEpoch":-1,"currentMetadataOffset":0,"wantFence":false,"wantShutDown":false}"#
    );
}

#[test]
fn streams_heartbeat_response_versions_in_json() {
    let resp = Response::StreamsGroupHeartbeat(
        StreamsGroupHeartbeatResponse::default()
            .with_member_id(s("m"))
            .with_member_epoch(3)
            .with_acceptable_recovery_lag(10_000)
            .with_status(None),
    );
    let v0 = response_to_json(&resp, 0).unwrap();
    assert_eq!(v0["acceptableRecoveryLagLegacy"], json!(0));
    assert!(v0.get("acceptableRecoveryLag").is_none());
    assert!(v0.get("topologyDescriptionRequired").is_none());
    assert_eq!(v0["status"], json!(null));
    let v1 = response_to_json(&resp, 1).unwrap();
    assert_eq!(v1["acceptableRecoveryLag"], json!(10_000));
    assert_eq!(v1["topologyDescriptionRequired"], json!(false));
    assert!(v1.get("acceptableRecoveryLagLegacy").is_none());
    assert_eq!(
        v1.as_object().unwrap().keys().collect::<Vec<_>>(),
        [
            "throttleTimeMs",
            "errorCode",
            "errorMessage",
            "memberId",
            "memberEpoch",
            "heartbeatIntervalMs",
            "taskOffsetIntervalMs",
            "acceptableRecoveryLag",
            "status",
            "activeTasks",
            "standbyTasks",
            "warmupTasks",
            "topologyDescriptionRequired",
            "endpointInformationEpoch",
            "partitionsByUserEndpoint"
        ]
    );
}

#[test]
fn missing_fields_take_schema_defaults() {
    // Kafka's reader would reject this (mandatory fields missing); regroup fills in defaults.
    let resp = response_from_json(
        Api::StreamsGroupHeartbeat,
        1,
        &json!({"memberId": "m", "memberEpoch": 3}),
    )
    .unwrap();
    let Response::StreamsGroupHeartbeat(r) = resp else {
        panic!()
    };
    assert_eq!(r.member_id, s("m"));
    assert_eq!(r.member_epoch, 3);
    assert_eq!(r.acceptable_recovery_lag, -1);
    assert_eq!(r.error_message, None);
    assert_eq!(r.status, Some(vec![]));
    assert_eq!(r.active_tasks, None);

    let req = request_from_json(Api::BrokerHeartbeat, 1, &json!({"brokerId": 3})).unwrap();
    assert_eq!(
        req,
        Request::BrokerHeartbeat(BrokerHeartbeatRequest::default().with_broker_id(BrokerId(3)))
    );
}

#[test]
fn bad_json_is_rejected_with_the_field_named() {
    let unknown = request_from_json(Api::Heartbeat, 4, &json!({"groupId": "g", "generation": 1}))
        .unwrap_err();
    assert_eq!(
        unknown,
        JsonError::UnknownField {
            path: "HeartbeatRequest".into(),
            field: "generation".into()
        }
    );
    let nested = request_from_json(
        Api::StreamsGroupHeartbeat,
        0,
        &json!({"activeTasks": [{"subtopologyId": "0", "partition": [1]}]}),
    )
    .unwrap_err();
    assert_eq!(
        nested.to_string(),
        "activeTasks[0]: unknown field 'partition'"
    );

    let wrong = request_from_json(Api::Heartbeat, 4, &json!({"generationId": "1"})).unwrap_err();
    assert_eq!(
        wrong.to_string(),
        "generationId: expected an integer, found a string"
    );
    let range = request_from_json(
        Api::Heartbeat,
        4,
        &json!({"generationId": 4_294_967_296i64}),
    )
    .unwrap_err();
    assert_eq!(
        range.to_string(),
        "generationId: value 4294967296 does not fit in int32"
    );
    let null = request_from_json(Api::Heartbeat, 4, &json!({"groupId": null})).unwrap_err();
    assert_eq!(
        null.to_string(),
        "groupId: null is not allowed here in version 4"
    );

    // GroupInstanceId exists from v3; a non-default value at v2 is refused...
    let absent =
        request_from_json(Api::Heartbeat, 2, &json!({"groupInstanceId": "i"})).unwrap_err();
    assert_eq!(
        absent,
        JsonError::NotInVersion {
            path: "groupInstanceId".into(),
            version: 2
        }
    );
    // ... its default (null) is accepted, and so is an ignorable field (ThrottleTimeMs of
    // OffsetCommitResponse exists from v3 and is ignorable).
    assert!(request_from_json(Api::Heartbeat, 2, &json!({"groupInstanceId": null})).is_ok());
    assert!(response_from_json(Api::OffsetCommit, 2, &json!({"throttleTimeMs": 5})).is_ok());
}

#[test]
fn bytes_and_records_are_base64() {
    let req = request_from_json(
        Api::SyncGroup,
        3,
        &json!({"groupId": "g", "assignments": [{"memberId": "m", "assignment": "AAEC"}]}),
    )
    .unwrap();
    let Request::SyncGroup(r) = &req else {
        panic!()
    };
    assert_eq!(&r.assignments[0].assignment[..], &[0, 1, 2]);
    assert_eq!(
        request_to_json(&req, 3).unwrap()["assignments"][0]["assignment"],
        json!("AAEC")
    );

    let batch = protocol::json::base64_encode(&protocol::schema::empty_record_batch());
    let produce = request_from_json(
        Api::Produce,
        9,
        &json!({"topicData": [{"name": "t", "partitionData": [{"index": 0, "records": batch}]}]}),
    )
    .unwrap();
    let back = request_to_json(&produce, 9).unwrap();
    assert_eq!(
        back["topicData"][0]["partitionData"][0]["records"],
        json!(batch)
    );
    assert_eq!(back["transactionalId"], json!(null));
    let bad = request_from_json(
        Api::SyncGroup,
        3,
        &json!({"assignments": [{"assignment": "!!"}]}),
    )
    .unwrap_err();
    assert_eq!(
        bad.to_string(),
        "assignments[0].assignment: expected base64 text, found a string"
    );
}

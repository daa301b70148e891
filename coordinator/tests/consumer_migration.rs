//! Online migration between classic and consumer groups (KIP-848, consumer-groups-44.md section 5),
//! with the values of Kafka 4.4.0's `GroupMetadataManagerTest` (section 9.8). The classic groups are
//! loaded from GroupMetadata records, so their member ids are the ones Kafka's tests choose; the
//! corpus scripts `conformance/corpus/cg5-*` compare the same flows with Kafka's coordinator.

mod classic_support;

use classic_support::*;
use coordinator::consumer::member::MemberState;
use coordinator::records::Record;
use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
use coordinator::records::consumer::{ClassicMemberMetadata, ClassicProtocol};
use coordinator::topics::derived_topic_id;
use protocol::messages::{ConsumerGroupHeartbeatRequest, GroupId, StrBytes, TopicName};
use protocol::{ErrorCode, Response};

/// A ConsumerProtocolAssignment v0 of `partitions`, with `user_data` (`None`: null).
fn assignment_bytes(partitions: &[(&str, &[i32])], user_data: Option<&[u8]>) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&0i16.to_be_bytes());
    out.extend_from_slice(&(partitions.len() as i32).to_be_bytes());
    for (t, ps) in partitions {
        out.extend_from_slice(&(t.len() as i16).to_be_bytes());
        out.extend_from_slice(t.as_bytes());
        out.extend_from_slice(&(ps.len() as i32).to_be_bytes());
        for p in *ps {
            out.extend_from_slice(&p.to_be_bytes());
        }
    }
    match user_data {
        None => out.extend_from_slice(&(-1i32).to_be_bytes()),
        Some(u) => {
            out.extend_from_slice(&(u.len() as i32).to_be_bytes());
            out.extend_from_slice(u);
        }
    }
    out
}

/// A Stable classic group `GROUP` at `generation` with one member `member-id-1` (session 5000,
/// rebalance 10000, protocol range with `subscription_bytes`) holding `assignment`.
fn classic_group_record(
    generation: i32,
    assignment: Vec<u8>,
    subscription_bytes: Vec<u8>,
) -> Record {
    classic_group_record_of(
        generation,
        &[("member-id-1", assignment)],
        subscription_bytes,
    )
}

/// [`classic_group_record`] with several members, the first leading.
fn classic_group_record_of(
    generation: i32,
    members: &[(&str, Vec<u8>)],
    subscription_bytes: Vec<u8>,
) -> Record {
    Record::GroupMetadata {
        key: GroupMetadataKey {
            group: GROUP.to_string(),
        },
        value: Some(GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation,
            protocol: Some("range".into()),
            leader: Some(members[0].0.to_string()),
            current_state_timestamp: 0,
            members: members
                .iter()
                .map(|(id, assignment)| MemberMetadata {
                    member_id: id.to_string(),
                    group_instance_id: None,
                    client_id: "client".into(),
                    client_host: "localhost/127.0.0.1".into(),
                    rebalance_timeout: 10000,
                    session_timeout: 5000,
                    subscription: subscription_bytes.clone(),
                    assignment: assignment.clone(),
                })
                .collect(),
        }),
    }
}

fn consumer_join(member: &str, topics: &[&str]) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(StrBytes::from_string(GROUP.to_string())))
        .with_member_id(StrBytes::from_string(member.to_string()))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(5000)
        .with_subscribed_topic_names(Some(
            topics
                .iter()
                .map(|t| TopicName(StrBytes::from_string(t.to_string())))
                .collect(),
        ))
        .with_topic_partitions(Some(Vec::new()))
}

fn heartbeat_response(
    ctx: &mut TestContext,
    r: ConsumerGroupHeartbeatRequest,
) -> (
    protocol::messages::ConsumerGroupHeartbeatResponse,
    Vec<Record>,
) {
    let sent = ctx.send(1, r);
    match ctx.answer(&sent) {
        Some(Response::ConsumerGroupHeartbeat(resp)) => (resp, sent.records),
        other => panic!("expected a heartbeat response, got {other:?}"),
    }
}

/// (record type, member id or "", tombstone)
fn shape(records: &[Record]) -> Vec<(String, String, bool)> {
    records
        .iter()
        .map(|r| {
            let v = r.to_json();
            let ty = v["type"].as_str().unwrap().to_string();
            let member = v["key"]["memberId"].as_str().unwrap_or("").to_string();
            (ty, member, r.is_tombstone())
        })
        .collect()
}

fn context() -> TestContext {
    TestContext::new()
        .with_config("group.consumer.migration.policy", "upgrade")
        .with_topics(&[("foo", 1), ("bar", 1)])
}

/// `GroupMetadataManagerTest#testConsumerGroupHeartbeatWithStableClassicGroup`: the tombstone, the
/// classic member converted at the generation (0/0, STABLE, its classic assignment at epoch 0, its
/// session timeout and protocols kept), then the joiner's records on top; the converted member's
/// session timer uses its classic session timeout, the joiner's the consumer one (45 s).
#[test]
fn a_consumer_join_upgrades_a_stable_classic_group() {
    let mut ctx = context();
    let sub = subscription(&["foo", "bar"]).to_vec();
    ctx.load(classic_group_record(
        0,
        assignment_bytes(&[("foo", &[0]), ("bar", &[0])], None),
        sub.clone(),
    ));
    ctx.now = 1000;
    let (resp, records) =
        heartbeat_response(&mut ctx, consumer_join("member-id-2", &["foo", "bar"]));
    assert_eq!(resp.error_code, 0);
    assert_eq!(resp.member_epoch, 1);
    let s = |t: &str, m: &str, tomb: bool| (t.to_string(), m.to_string(), tomb);
    assert_eq!(
        shape(&records),
        vec![
            s("GroupMetadata", "", true),
            s("ConsumerGroupMemberMetadata", "member-id-1", false),
            s("ConsumerGroupMetadata", "", false),
            s("ConsumerGroupTargetAssignmentMember", "member-id-1", false),
            s("ConsumerGroupTargetAssignmentMetadata", "", false),
            s("ConsumerGroupCurrentMemberAssignment", "member-id-1", false),
            s("ConsumerGroupMemberMetadata", "member-id-2", false),
            s("ConsumerGroupMetadata", "", false),
            s("ConsumerGroupTargetAssignmentMember", "member-id-2", false),
            s("ConsumerGroupTargetAssignmentMember", "member-id-1", false),
            s("ConsumerGroupTargetAssignmentMetadata", "", false),
            s("ConsumerGroupCurrentMemberAssignment", "member-id-2", false),
        ]
    );
    let (foo, bar) = (derived_topic_id("foo"), derived_topic_id("bar"));
    // The converted member's metadata.
    let Record::ConsumerGroupMemberMetadata {
        value: Some(mm), ..
    } = &records[1]
    else {
        panic!("{:?}", records[1]);
    };
    assert_eq!(mm.subscribed_topic_names, vec!["bar", "foo"]);
    assert_eq!(mm.rebalance_timeout_ms, 10000);
    assert_eq!(mm.subscribed_topic_regex.as_deref(), Some(""));
    assert_eq!(
        mm.classic_member_metadata,
        Some(ClassicMemberMetadata {
            session_timeout_ms: 5000,
            supported_protocols: vec![ClassicProtocol {
                name: "range".into(),
                metadata: sub.clone(),
            }],
        })
    );
    // The group at the generation, the same hash before and after the join (same topics).
    let epoch_and_hash = |r: &Record| match r {
        Record::ConsumerGroupMetadata { value: Some(v), .. } => (v.epoch, v.metadata_hash),
        other => panic!("{other:?}"),
    };
    let (e0, h0) = epoch_and_hash(&records[2]);
    let (e1, h1) = epoch_and_hash(&records[7]);
    assert_eq!((e0, e1), (0, 1));
    assert_eq!(h0, h1);
    assert_ne!(h0, 0);
    match &records[4] {
        Record::ConsumerGroupTargetAssignmentMetadata { value: Some(v), .. } => {
            assert_eq!((v.assignment_epoch, v.assignment_timestamp), (0, 0));
        }
        other => panic!("{other:?}"),
    }
    match &records[10] {
        Record::ConsumerGroupTargetAssignmentMetadata { value: Some(v), .. } => {
            assert_eq!((v.assignment_epoch, v.assignment_timestamp), (1, 1000));
        }
        other => panic!("{other:?}"),
    }
    // The converted member's current assignment: STABLE 0/0, foo-0 and bar-0 at epoch 0.
    match &records[5] {
        Record::ConsumerGroupCurrentMemberAssignment { value: Some(v), .. } => {
            assert_eq!((v.member_epoch, v.previous_member_epoch), (0, 0));
            assert_eq!(v.state, MemberState::Stable.value());
            let mut got: Vec<_> = v
                .assigned_partitions
                .iter()
                .map(|t| {
                    (
                        t.topic_id,
                        t.partitions.clone(),
                        t.assignment_epochs.clone(),
                    )
                })
                .collect();
            got.sort();
            let mut want = vec![(foo, vec![0], Some(vec![0])), (bar, vec![0], Some(vec![0]))];
            want.sort();
            assert_eq!(got, want);
        }
        other => panic!("{other:?}"),
    }
    // The joiner waits for what member-id-1 must give up: UNRELEASED at 1/0 with nothing.
    match &records[11] {
        Record::ConsumerGroupCurrentMemberAssignment { value: Some(v), .. } => {
            assert_eq!((v.member_epoch, v.previous_member_epoch), (1, 0));
            assert_eq!(v.state, MemberState::UnreleasedPartitions.value());
            assert!(v.assigned_partitions.is_empty());
        }
        other => panic!("{other:?}"),
    }
    assert!(!ctx.shard.classic.contains(GROUP));
    assert!(ctx.shard.consumer.contains(GROUP));
    let timers = &ctx.shard.timers;
    assert_eq!(
        timers.deadline(&format!("session-timeout-{GROUP}-member-id-1")),
        Some(6000)
    );
    assert_eq!(
        timers.deadline(&format!("session-timeout-{GROUP}-member-id-2")),
        Some(46000)
    );
}

/// `#testConsumerGroupHeartbeatWithPreparingRebalanceClassicGroup`: the classic JoinGroup waiting in the
/// rebalance is answered REBALANCE_IN_PROGRESS with its member id, and the group is converted.
#[test]
fn the_upgrade_answers_a_parked_join() {
    let mut ctx = context();
    ctx.load(classic_group_record_of(
        1,
        &[
            ("member-id-1", assignment_bytes(&[("foo", &[0])], None)),
            ("member-id-3", Vec::new()),
        ],
        subscription(&["foo"]).to_vec(),
    ));
    // The leader rejoins: a rebalance starts and its JoinGroup waits for member-id-3.
    let parked = ctx.join_v(
        join_request()
            .member("member-id-1")
            .no_instance()
            .protocols(&["range"])
            .build(),
        9,
    );
    assert!(!ctx.is_done(&parked));
    let (resp, records) = heartbeat_response(&mut ctx, consumer_join("member-id-2", &["bar"]));
    assert_eq!(resp.error_code, 0);
    let joined = ctx.joined(&parked);
    assert_eq!(joined.error_code, ErrorCode::RebalanceInProgress.code());
    assert_eq!(joined.member_id.as_str(), "member-id-1");
    assert!(matches!(
        records[0],
        Record::GroupMetadata { value: None, .. }
    ));
    assert!(ctx.shard.consumer.contains(GROUP));
}

/// `#testConsumerGroupHeartbeatWithCustomAssignorClassicGroup`: null or 0-byte user data upgrades, a
/// 1-byte one is refused (GROUP_ID_NOT_FOUND with Kafka's message) and writes nothing.
#[test]
fn user_data_of_a_custom_assignor_refuses_the_upgrade() {
    for (user_data, upgrades) in [
        (None, true),
        (Some(&b""[..]), true),
        (Some(&b"x"[..]), false),
    ] {
        let mut ctx = context();
        ctx.load(classic_group_record(
            1,
            assignment_bytes(&[("foo", &[0])], user_data),
            subscription(&["foo"]).to_vec(),
        ));
        let sent = ctx.send(1, consumer_join("member-id-2", &["bar"]));
        let Some(Response::ConsumerGroupHeartbeat(resp)) = ctx.answer(&sent) else {
            panic!()
        };
        if upgrades {
            assert_eq!(resp.error_code, 0, "{user_data:?}");
            assert!(ctx.shard.consumer.contains(GROUP));
        } else {
            assert_eq!(resp.error_code, ErrorCode::GroupIdNotFound.code());
            assert_eq!(
                resp.error_message.as_deref(),
                Some(
                    "Cannot upgrade classic group group-id to consumer group because an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade."
                )
            );
            assert!(sent.records.is_empty());
            assert!(ctx.shard.classic.contains(GROUP));
        }
    }
}

/// `validateOnlineUpgrade` in order (policy, protocol type, size), then a malformed subscription.
#[test]
fn upgrade_refusals_carry_kafkas_messages() {
    let msg = |why: &str| {
        format!("Cannot upgrade classic group group-id to consumer group because {why}.")
    };
    let cases: Vec<(&str, &str, Vec<u8>, String)> = vec![
        (
            "group.consumer.migration.policy",
            "downgrade",
            subscription(&["foo"]).to_vec(),
            msg("online upgrade is disabled"),
        ),
        (
            "group.consumer.max.size",
            "1",
            subscription(&["foo"]).to_vec(),
            msg("the group size exceeds the consumer group maximum size"),
        ),
        (
            "group.consumer.migration.policy",
            "bidirectional",
            vec![0, 0, 0xff],
            msg("the embedded consumer protocol is malformed"),
        ),
    ];
    for (key, value, metadata, want) in cases {
        let mut ctx = context().with_config(key, value);
        ctx.load(classic_group_record_of(
            1,
            &[
                ("member-id-1", assignment_bytes(&[("foo", &[0])], None)),
                ("member-id-3", Vec::new()),
            ],
            metadata,
        ));
        let (resp, records) = heartbeat_response(&mut ctx, consumer_join("member-id-2", &["foo"]));
        assert_eq!(
            resp.error_code,
            ErrorCode::GroupIdNotFound.code(),
            "{key}={value}"
        );
        assert_eq!(resp.error_message.as_deref(), Some(want.as_str()));
        assert!(records.is_empty());
        assert!(ctx.shard.classic.contains(GROUP));
    }
}

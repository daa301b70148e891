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

// ---- Classic members inside a consumer group (section 5.3) -------------------------------------------

fn raw_protocol(
    name: &str,
    topics: &[&str],
) -> protocol::messages::join_group_request::JoinGroupRequestProtocol {
    protocol::messages::join_group_request::JoinGroupRequestProtocol::default()
        .with_name(sb(name))
        .with_metadata(subscription(topics))
}

/// A consumer group `GROUP` with the consumer-protocol member `m` (subscribed to foo) at epoch 2.
fn consumer_group(policy: &str) -> TestContext {
    let mut ctx = TestContext::new()
        .with_config("group.consumer.migration.policy", policy)
        .with_topics(&[("foo", 2), ("bar", 1)]);
    let (resp, _) = heartbeat_response(&mut ctx, consumer_join("m", &["foo"]));
    assert_eq!(resp.member_epoch, 2);
    ctx
}

fn classic_join(
    member: &str,
    session: i32,
    rebalance: i32,
) -> protocol::messages::JoinGroupRequest {
    join_request()
        .member(member)
        .raw_protocols(vec![raw_protocol("range", &["bar"])])
        .session(session)
        .rebalance(rebalance)
        .build()
}

/// `#testJoiningConsumerGroupWithNewDynamicMember`: MEMBER_ID_REQUIRED with a new id and no records,
/// then the join: the member's record with its classic metadata, the epoch bump, the target, the
/// current assignment (STABLE at the new epoch with bar-0); the response's generation is the member
/// epoch; the session timer uses the request's session timeout, the sync timer its rebalance timeout.
#[test]
fn a_classic_member_joins_a_consumer_group() {
    let mut ctx = consumer_group("upgrade");
    ctx.now = 1000;
    let first = ctx.join_now(classic_join("", 8000, 6000), 9);
    assert_eq!(first.error_code, ErrorCode::MemberIdRequired.code());
    let id = first.member_id.to_string();
    assert!(!id.is_empty());
    assert!(ctx.log.len() == 5, "no records for MEMBER_ID_REQUIRED");
    let sent = ctx.join_v(classic_join(&id, 8000, 6000), 9);
    let joined = ctx.joined(&sent);
    assert_eq!(joined.error_code, 0);
    assert_eq!(joined.member_id.as_str(), id);
    assert_eq!(joined.generation_id, 3);
    assert_eq!(joined.protocol_type.as_deref(), Some("consumer"));
    assert_eq!(joined.protocol_name.as_deref(), Some("range"));
    assert_eq!(joined.leader.as_str(), "");
    assert!(joined.members.is_empty());
    let s = |t: &str, m: &str| (t.to_string(), m.to_string(), false);
    assert_eq!(
        shape(&sent.records),
        vec![
            s("ConsumerGroupMemberMetadata", &id),
            s("ConsumerGroupMetadata", ""),
            s("ConsumerGroupTargetAssignmentMember", &id),
            s("ConsumerGroupTargetAssignmentMetadata", ""),
            s("ConsumerGroupCurrentMemberAssignment", &id),
        ]
    );
    match &sent.records[0] {
        Record::ConsumerGroupMemberMetadata { value: Some(v), .. } => {
            assert_eq!(v.subscribed_topic_names, vec!["bar"]);
            assert_eq!(v.rebalance_timeout_ms, 6000);
            let c = v
                .classic_member_metadata
                .as_ref()
                .expect("classic metadata");
            assert_eq!(c.session_timeout_ms, 8000);
            assert_eq!(c.supported_protocols[0].name, "range");
        }
        other => panic!("{other:?}"),
    }
    match &sent.records[4] {
        Record::ConsumerGroupCurrentMemberAssignment { value: Some(v), .. } => {
            assert_eq!((v.member_epoch, v.previous_member_epoch), (3, 0));
            assert_eq!(v.state, MemberState::Stable.value());
            assert_eq!(v.assigned_partitions.len(), 1);
            assert_eq!(v.assigned_partitions[0].topic_id, derived_topic_id("bar"));
            assert_eq!(v.assigned_partitions[0].partitions, vec![0]);
            assert_eq!(v.assigned_partitions[0].assignment_epochs, Some(vec![3]));
        }
        other => panic!("{other:?}"),
    }
    let timers = &ctx.shard.timers;
    assert_eq!(
        timers.deadline(&format!("session-timeout-{GROUP}-{id}")),
        Some(9000)
    );
    assert_eq!(timers.deadline(&format!("sync-{GROUP}-{id}")), Some(7000));

    // SyncGroup: the generation must be the member epoch; the protocol name the one of the join.
    let sent = ctx.sync(sync_request(&id, 2));
    assert_eq!(
        ctx.synced(&sent).error_code,
        ErrorCode::IllegalGeneration.code()
    );
    let sent = ctx.sync(sync_request(&id, 3).with_protocol_name(Some(sb("roundrobin"))));
    assert_eq!(
        ctx.synced(&sent).error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    ctx.now = 2000;
    let sent = ctx.sync(sync_request(&id, 3));
    let synced = ctx.synced(&sent);
    assert_eq!(synced.error_code, 0);
    assert!(sent.records.is_empty());
    assert_eq!(synced.protocol_name.as_deref(), Some("range"));
    // A ConsumerProtocolAssignment at the version of the member's subscription (3 here): bar-0, null
    // user data (the fields are those of version 0).
    let mut want = assignment_bytes(&[("bar", &[0])], None);
    want[..2].copy_from_slice(&subscription(&["bar"])[..2]);
    assert_eq!(&subscription(&["bar"])[..2], &[0, 3]);
    assert_eq!(synced.assignment.to_vec(), want);
    let timers = &ctx.shard.timers;
    assert!(!timers.is_scheduled(&format!("sync-{GROUP}-{id}")));
    assert_eq!(
        timers.deadline(&format!("session-timeout-{GROUP}-{id}")),
        Some(10000)
    );

    // Heartbeat: NONE at its epoch, ILLEGAL_GENERATION otherwise; a consumer-protocol member is not
    // a classic one.
    assert_eq!(ctx.heartbeat_error(&id, 3), ErrorCode::None);
    assert_eq!(ctx.heartbeat_error(&id, 2), ErrorCode::IllegalGeneration);
    assert_eq!(ctx.heartbeat_error("m", 2), ErrorCode::UnknownMemberId);
    assert_eq!(ctx.heartbeat_error("nobody", 3), ErrorCode::UnknownMemberId);
}

/// `#testClassicGroupHeartbeatToConsumerGroupRebalanceInProgress` and
/// `#testConsumerGroupMemberUsingClassicProtocolFencedWhenJoinTimeout`: once the target moves past the
/// member's epoch its heartbeat answers REBALANCE_IN_PROGRESS and starts the join timer (its rebalance
/// timeout); if it does not rejoin, the timer fences it (CA, TA, MM tombstones, the epoch bumped).
#[test]
fn a_classic_member_behind_the_target_must_rejoin_or_is_fenced() {
    let mut ctx = consumer_group("upgrade");
    ctx.now = 1000;
    let id = ctx
        .join_now(classic_join("", 30000, 4000), 9)
        .member_id
        .to_string();
    let joined = ctx.join_now(classic_join(&id, 30000, 4000), 9);
    assert_eq!(joined.generation_id, 3);
    ctx.sync(sync_request(&id, 3));
    // bar grows: the consumer member's heartbeat moves the target to epoch 4.
    ctx.now = 3000;
    ctx.set_topics(coordinator::topics::TopicsImage::from_topics([
        coordinator::topics::TopicMetadata::new("foo", 2),
        coordinator::topics::TopicMetadata::new("bar", 2),
    ]));
    let (resp, _) = heartbeat_response(
        &mut ctx,
        ConsumerGroupHeartbeatRequest::default()
            .with_group_id(GroupId(StrBytes::from_string(GROUP.to_string())))
            .with_member_id(StrBytes::from_string("m".to_string()))
            .with_member_epoch(3),
    );
    assert_eq!(resp.error_code, ErrorCode::FencedMemberEpoch.code());
    let (resp, records) = heartbeat_response(
        &mut ctx,
        ConsumerGroupHeartbeatRequest::default()
            .with_group_id(GroupId(StrBytes::from_string(GROUP.to_string())))
            .with_member_id(StrBytes::from_string("m".to_string()))
            .with_member_epoch(2),
    );
    assert_eq!(resp.member_epoch, 4);
    assert!(!records.is_empty());
    assert_eq!(ctx.heartbeat_error(&id, 3), ErrorCode::RebalanceInProgress);
    let join_key = format!("join-{GROUP}-{id}");
    assert_eq!(ctx.shard.timers.deadline(&join_key), Some(7000));
    ctx.now = 3500;
    assert_eq!(ctx.heartbeat_error(&id, 3), ErrorCode::RebalanceInProgress);
    assert_eq!(
        ctx.shard.timers.deadline(&join_key),
        Some(7000),
        "scheduled if absent"
    );
    let fired = ctx.sleep(3500);
    let fence = fired
        .iter()
        .find(|f| f.key == join_key)
        .expect("join timer fired");
    let s = |t: &str, m: &str, tomb: bool| (t.to_string(), m.to_string(), tomb);
    assert_eq!(
        shape(&fence.outcome.records),
        vec![
            s("ConsumerGroupCurrentMemberAssignment", &id, true),
            s("ConsumerGroupTargetAssignmentMember", &id, true),
            s("ConsumerGroupMemberMetadata", &id, true),
            s("ConsumerGroupMetadata", "", false),
        ]
    );
    assert!(
        ctx.shard
            .consumer
            .group(GROUP)
            .unwrap()
            .member(&id)
            .is_none()
    );
}

/// `#testClassicMemberJoinToConsumerGroupWithDisabledMigrationPolicy` (KAFKA-20640): with the policy
/// `disabled` a new classic member is refused with INCONSISTENT_GROUP_PROTOCOL; the consumer group
/// keeps serving Heartbeat and LeaveGroup.
#[test]
fn a_classic_join_is_refused_when_migration_is_disabled() {
    let mut ctx = consumer_group("disabled");
    let joined = ctx.join_now(classic_join("", 8000, 6000), 9);
    assert_eq!(
        joined.error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    let joined = ctx.join_now(classic_join("x", 8000, 6000), 9);
    assert_eq!(
        joined.error_code,
        ErrorCode::InconsistentGroupProtocol.code()
    );
    assert_eq!(ctx.heartbeat_error("m", 2), ErrorCode::UnknownMemberId);
}

/// `classicGroupLeaveToConsumerGroup` (KAFKA-18188): LeaveGroup fences a consumer-protocol member too;
/// unknown members are answered UNKNOWN_MEMBER_ID, a mismatched instance FENCED_INSTANCE_ID.
#[test]
fn leave_group_removes_members_of_a_consumer_group() {
    let mut ctx = consumer_group("upgrade");
    let (r, records) = ctx.leave(leave_request(vec![
        leave_member("m", None),
        leave_member("nobody", None),
        leave_member("", Some("unknown-instance")),
    ]));
    let codes: Vec<i16> = r.members.iter().map(|m| m.error_code).collect();
    assert_eq!(
        codes,
        vec![
            0,
            ErrorCode::UnknownMemberId.code(),
            ErrorCode::UnknownMemberId.code()
        ]
    );
    // The last member: its tombstones, the epoch bumped, the target metadata at that epoch.
    let s = |t: &str, m: &str, tomb: bool| (t.to_string(), m.to_string(), tomb);
    assert_eq!(
        shape(&records),
        vec![
            s("ConsumerGroupCurrentMemberAssignment", "m", true),
            s("ConsumerGroupTargetAssignmentMember", "m", true),
            s("ConsumerGroupMemberMetadata", "m", true),
            s("ConsumerGroupMetadata", "", false),
            s("ConsumerGroupTargetAssignmentMetadata", "", false),
        ]
    );
    assert!(ctx.shard.consumer.group(GROUP).unwrap().is_empty());
}

// ---- Downgrade (section 5.4) ----------------------------------------------------------------------

/// A consumer group `GROUP` of the consumer-protocol member `m2` (foo) and the classic member `m1`
/// (bar-0 and bar-1) at epoch 3, under `policy`.
fn mixed_group(policy: &str) -> TestContext {
    let mut ctx = TestContext::new()
        .with_config("group.consumer.migration.policy", policy)
        .with_topics(&[("foo", 3), ("bar", 2)]);
    let (resp, _) = heartbeat_response(&mut ctx, consumer_join("m2", &["foo"]));
    assert_eq!(resp.member_epoch, 2);
    ctx.now = 2000;
    let joined = ctx.join_now(classic_join("m1", 8000, 6000), 9);
    assert_eq!((joined.error_code, joined.generation_id), (0, 3));
    ctx
}

fn leave_request_consumer(member: &str) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(StrBytes::from_string(GROUP.to_string())))
        .with_member_id(StrBytes::from_string(member.to_string()))
        .with_member_epoch(-1)
}

/// `#testLastConsumerProtocolMemberLeavingConsumerGroup`: the last consumer-protocol member leaves; the
/// consumer group's tombstones (both members), then GroupMetadata at the group epoch with the classic
/// member leading and its target as assignment; the classic group rebalances (heartbeat and join
/// timers).
#[test]
fn the_last_consumer_protocol_member_leaving_downgrades_the_group() {
    let mut ctx = mixed_group("downgrade");
    ctx.now = 3000;
    let (resp, records) = heartbeat_response(&mut ctx, leave_request_consumer("m2"));
    assert_eq!((resp.error_code, resp.member_epoch), (0, -1));
    let t = |r: &Record| {
        let v = r.to_json();
        (v["type"].as_str().unwrap().to_string(), r.is_tombstone())
    };
    let kinds: Vec<(String, bool)> = records.iter().map(t).collect();
    let want: Vec<(String, bool)> = [
        ("ConsumerGroupCurrentMemberAssignment", true),
        ("ConsumerGroupCurrentMemberAssignment", true),
        ("ConsumerGroupTargetAssignmentMember", true),
        ("ConsumerGroupTargetAssignmentMember", true),
        ("ConsumerGroupTargetAssignmentMetadata", true),
        ("ConsumerGroupMemberMetadata", true),
        ("ConsumerGroupMemberMetadata", true),
        ("ConsumerGroupPartitionMetadata", true),
        ("ConsumerGroupMetadata", true),
        ("GroupMetadata", false),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), *b))
    .collect();
    assert_eq!(kinds, want);
    let value = metadata_value(records.last().unwrap());
    assert_eq!(value.protocol_type, "consumer");
    assert_eq!(value.generation, 3);
    assert_eq!(value.protocol.as_deref(), Some("range"));
    assert_eq!(value.leader.as_deref(), Some("m1"));
    assert_eq!(value.current_state_timestamp, 3000);
    assert_eq!(value.members.len(), 1);
    let mut want_assignment = assignment_bytes(&[("bar", &[0, 1])], None);
    want_assignment[..2].copy_from_slice(&[0, 3]);
    assert_eq!(value.members[0].assignment, want_assignment);
    assert_eq!(value.members[0].session_timeout, 8000);
    assert!(!ctx.shard.consumer.contains(GROUP));
    let group = ctx.group();
    assert_eq!(
        group.state(),
        coordinator::classic::GroupState::PreparingRebalance
    );
    assert_eq!(group.generation_id(), 3);
    assert!(
        ctx.shard
            .timers
            .is_scheduled(&format!("heartbeat-{GROUP}-m1"))
    );
    assert!(ctx.shard.timers.is_scheduled(&format!("join-{GROUP}")));
    // The classic member rejoins the classic group: generation 4.
    let joined = ctx.join_now(classic_join("m1", 8000, 6000), 9);
    assert_eq!((joined.error_code, joined.generation_id), (0, 4));
}

/// With the policy `upgrade` the same leave is a plain fence: the group stays a consumer group of
/// its classic member.
#[test]
fn no_downgrade_when_the_policy_forbids_it() {
    let mut ctx = mixed_group("upgrade");
    let (_, records) = heartbeat_response(&mut ctx, leave_request_consumer("m2"));
    assert!(
        records
            .iter()
            .all(|r| !matches!(r, Record::GroupMetadata { .. }))
    );
    assert!(ctx.shard.consumer.contains(GROUP));
    assert!(!ctx.shard.classic.contains(GROUP));
}

/// `#testJoiningConsumerGroupReplacingExistingStaticMember` with a downgrade
/// (`validateOnlineDowngradeWithReplacedMember`): a classic static JoinGroup with an unknown member id
/// replaces the last consumer-protocol member (a static one); the group becomes a classic group whose
/// members are the classic member and the joiner (last), the joiner taking the replaced member's
/// target; its subscription is unchanged, so the assignment is not stale and the group stays Stable.
#[test]
fn a_classic_static_member_replacing_the_last_consumer_member_downgrades_the_group() {
    let mut ctx = TestContext::new()
        .with_config("group.consumer.migration.policy", "downgrade")
        .with_topics(&[("foo", 3), ("bar", 2)]);
    let (resp, _) = heartbeat_response(
        &mut ctx,
        consumer_join("m2", &["foo"]).with_instance_id(Some(StrBytes::from_string("I".into()))),
    );
    assert_eq!(resp.member_epoch, 2);
    ctx.now = 2000;
    let joined = ctx.join_now(classic_join("m1", 8000, 6000), 9);
    assert_eq!(joined.generation_id, 3);
    ctx.now = 3000;
    let sent = ctx.join_v(
        join_request()
            .instance("I")
            .raw_protocols(vec![raw_protocol("range", &["foo"])])
            .session(8000)
            .rebalance(6000)
            .build(),
        9,
    );
    let joined = ctx.joined(&sent);
    assert_eq!(joined.error_code, 0);
    let joiner = joined.member_id.to_string();
    assert_ne!(joiner, "m2");
    assert_eq!(joined.generation_id, 3);
    let value = metadata_value(sent.records.last().unwrap());
    assert_eq!(value.generation, 3);
    assert_eq!(value.leader.as_deref(), Some("m1"));
    let ids: Vec<&str> = value.members.iter().map(|m| m.member_id.as_str()).collect();
    assert_eq!(ids, vec!["m1", joiner.as_str()]);
    let mut foo_all = assignment_bytes(&[("foo", &[0, 1, 2])], None);
    foo_all[..2].copy_from_slice(&[0, 3]);
    assert_eq!(value.members[1].assignment, foo_all);
    assert!(!ctx.shard.consumer.contains(GROUP));
    assert_eq!(
        ctx.group().state(),
        coordinator::classic::GroupState::Stable
    );
    // No consumer timers for the joiner: its group is classic now.
    assert!(
        !ctx.shard
            .timers
            .is_scheduled(&format!("sync-{GROUP}-{joiner}"))
    );
}

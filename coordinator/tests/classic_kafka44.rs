//! What Kafka 4.4 changed or pinned for classic groups (classic-44-delta.md §4.1 items 1, 2, 9, 10, 26,
//! 27) and Kafka's broker-level JoinGroupRequestTest, whose fenced-static-member part is scenario 45 of
//! static-membership.md §6.

mod classic_support;

use bytes::Bytes;
use classic_support::*;
use coordinator::classic::ctx::append_error_to_response_error;
use coordinator::classic::member::Protocol;
use coordinator::classic::{ClassicGroup, ClassicMember, GroupState};
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::{
    DeleteGroupsRequest, JoinGroupRequest, JoinGroupResponse, LeaveGroupRequest,
};
use protocol::{ErrorCode, Response};

/// classic-44-delta.md §4.1 #1 testDescribeGroupsBeforeV6GroupIdNotFoundException.
#[test]
fn describe_groups_before_v6_returns_dead_group() {
    let mut ctx = TestContext::new();
    for version in 0..=5 {
        let r = ctx.describe(version, &["group-id"]);
        assert_eq!(r.groups.len(), 1);
        let g = &r.groups[0];
        assert_eq!(g.group_id.as_str(), "group-id");
        assert_eq!(g.group_state.as_str(), "Dead");
        assert_eq!(g.error_code, 0);
        assert_eq!(g.error_message, None);
        assert!(g.members.is_empty());
    }
}

/// classic-44-delta.md §4.1 #2 verifyDescribeGroupsReturnsDeadGroup: v6 reports GROUP_ID_NOT_FOUND.
#[test]
fn describe_groups_v6_returns_group_id_not_found() {
    let mut ctx = TestContext::new();
    let r = ctx.describe(6, &["group-id"]);
    let g = &r.groups[0];
    assert_eq!(g.group_state.as_str(), "Dead");
    assert_eq!(g.error_code, code(ErrorCode::GroupIdNotFound));
    assert_eq!(
        g.error_message.as_deref(),
        Some("Group group-id not found.")
    );
}

/// classic-44-delta.md §4.1 #9 testComputeSubscribedTopicsHandlesMalformedMemberMetadata: malformed
/// subscription bytes leave the subscribed topics unknown (no failure), and a consumer group whose topics
/// are unknown counts as subscribed to every topic.
#[test]
fn compute_subscribed_topics_handles_malformed_member_metadata() {
    let mut group = ClassicGroup::new("group-id", GroupState::Empty, Some(0));
    group
        .add(
            ClassicMember::new(
                "member".into(),
                None,
                "client".into(),
                "host".into(),
                100,
                100,
                "consumer".into(),
                vec![Protocol {
                    name: "range".into(),
                    metadata: Bytes::from_static(&[0, 1, 0xff, 0xff, 0xff, 0xff]),
                }],
            ),
            None,
        )
        .unwrap();
    group
        .transition_to(GroupState::PreparingRebalance, 1)
        .unwrap();
    group.init_next_generation(2).unwrap();
    assert_eq!(group.compute_subscribed_topics(), None);
    assert_eq!(group.subscribed_topics(), None);
    assert!(group.is_subscribed_to_topic("anything"));
}

/// classic-44-delta.md §4.1 #10 testJoinGroupAppendErrorConversion.
#[test]
fn join_group_append_error_conversion() {
    use ErrorCode::*;
    for (append, answered) in [
        (UnknownTopicOrPartition, CoordinatorNotAvailable),
        (NotEnoughReplicas, CoordinatorNotAvailable),
        (RequestTimedOut, CoordinatorNotAvailable),
        (NotLeaderOrFollower, NotCoordinator),
        (KafkaStorageError, NotCoordinator),
        (MessageTooLarge, UnknownServerError),
        (RecordListTooLarge, UnknownServerError),
        (InvalidFetchSize, UnknownServerError),
        (LeaderNotAvailable, LeaderNotAvailable),
    ] {
        assert_eq!(append_error_to_response_error(append), answered);
    }
}

/// classic-44-delta.md §4.1 #26 testRebalanceTimeoutDefaultsToSessionTimeoutV0: JoinGroup v0 has no
/// rebalance timeout; the session timeout stands in for it.
#[test]
fn rebalance_timeout_defaults_to_session_timeout_v0() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .default_protocols()
        .no_instance()
        .session(30000)
        .rebalance(1)
        .build();
    let sent = ctx.join_v(request, 0);
    assert!(!ctx.is_done(&sent));
    let member = ctx.group().members().next().unwrap();
    assert_eq!(member.rebalance_timeout_ms, 30000);
    assert_eq!(member.session_timeout_ms, 30000);
    assert_eq!(ctx.group().rebalance_timeout_ms(), 30000);
}

// Kafka's JoinGroupRequestTest drives a real broker (initial delay 1000 ms) through every JoinGroup
// version; the requests carry protocol "consumer-range" and, from the client builder, session
// 600 000 ms and rebalance 250 000 ms.

fn jg(
    group: &str,
    member: &str,
    instance: Option<&str>,
    protocol_type: &str,
    metadata: &Bytes,
) -> JoinGroupRequest {
    JoinGroupRequest::default()
        .with_group_id(sb(group).into())
        .with_member_id(sb(member))
        .with_group_instance_id(instance.map(sb))
        .with_rebalance_timeout_ms(250_000)
        .with_session_timeout_ms(600_000)
        .with_protocol_type(sb(protocol_type))
        .with_protocols(vec![
            JoinGroupRequestProtocol::default()
                .with_name(sb("consumer-range"))
                .with_metadata(metadata.clone()),
        ])
}

fn join_now_wire(
    ctx: &mut TestContext,
    request: JoinGroupRequest,
    version: i16,
) -> JoinGroupResponse {
    let sent = ctx.join_v(request, version);
    ctx.joined_on_wire(&sent)
}

/// (error, generation, protocol type, protocol name, leader, member id, members).
type JoinFields = (
    i16,
    i32,
    Option<String>,
    Option<String>,
    String,
    String,
    Vec<(String, Option<String>)>,
);

/// The fields of a JoinGroup response, members sorted by member id (Kafka's `normalize`).
fn norm(r: &JoinGroupResponse) -> JoinFields {
    let mut members: Vec<(String, Option<String>)> = r
        .members
        .iter()
        .map(|m| {
            (
                m.member_id.to_string(),
                m.group_instance_id.as_ref().map(|s| s.to_string()),
            )
        })
        .collect();
    members.sort();
    (
        r.error_code,
        r.generation_id,
        r.protocol_type.as_ref().map(|s| s.to_string()),
        r.protocol_name.as_ref().map(|s| s.to_string()),
        r.leader.to_string(),
        r.member_id.to_string(),
        members,
    )
}

fn sync_old(
    ctx: &mut TestContext,
    member: &str,
    generation: i32,
    assignments: Vec<(&str, u8)>,
) -> Bytes {
    let request = protocol::messages::SyncGroupRequest::default()
        .with_group_id(sb("grp").into())
        .with_member_id(sb(member))
        .with_generation_id(generation)
        .with_protocol_type(Some(sb("consumer")))
        .with_protocol_name(Some(sb("consumer-range")))
        .with_assignments(
            assignments
                .into_iter()
                .map(|(m, b)| assignment(m, &[b]))
                .collect(),
        );
    let sent = ctx.send(5, request);
    let r = ctx.synced(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.protocol_type.as_deref(), Some("consumer"));
    assert_eq!(r.protocol_name.as_deref(), Some("consumer-range"));
    r.assignment
}

/// classic-44-delta.md §4.1 #27 testJoinGroupWithOldConsumerGroupProtocol, at every JoinGroup version
/// 0-9: two-step join from v4, immediate join before; unknown member id, empty group id and inconsistent
/// protocol type errors; a follower joining a rebalance; an unchanged follower rejoin; from v5 the fenced
/// static member of §6 #45; leave and delete.
#[test]
fn join_group_with_old_consumer_group_protocol() {
    let mut ctx = TestContext::new()
        .with_config("group.initial.rebalance.delay.ms", "1000")
        .with_config("group.min.session.timeout.ms", "6000");
    let metadata = subscription(&["foo"]);
    let null_or_empty = |version: i16| {
        if version >= 7 {
            None
        } else {
            Some(String::new())
        }
    };
    let type_if_v7 = |version: i16| (version >= 7).then(|| "consumer".to_string());
    for version in 0..=9i16 {
        // A dynamic member without member id.
        let first = ctx.join_v(jg("grp", "", None, "consumer", &metadata), version);
        let leader_id;
        if version >= 4 {
            let r = ctx.joined_on_wire(&first);
            leader_id = r.member_id.to_string();
            assert_eq!(
                norm(&r),
                (
                    code(ErrorCode::MemberIdRequired),
                    -1,
                    None,
                    null_or_empty(version),
                    String::new(),
                    leader_id.clone(),
                    vec![]
                )
            );
            let rejoin = ctx.join_v(jg("grp", &leader_id, None, "consumer", &metadata), version);
            ctx.sleep(1000);
            assert_eq!(
                norm(&ctx.joined_on_wire(&rejoin)),
                (
                    0,
                    1,
                    type_if_v7(version),
                    Some("consumer-range".into()),
                    leader_id.clone(),
                    leader_id.clone(),
                    vec![(leader_id.clone(), None)]
                )
            );
        } else {
            ctx.sleep(1000);
            let r = ctx.joined_on_wire(&first);
            leader_id = r.member_id.to_string();
            assert!(leader_id.starts_with("client-"));
            assert_eq!(
                norm(&r),
                (
                    0,
                    1,
                    type_if_v7(version),
                    Some("consumer-range".into()),
                    leader_id.clone(),
                    leader_id.clone(),
                    vec![(leader_id.clone(), None)]
                )
            );
        }
        assert_eq!(
            sync_old(&mut ctx, &leader_id, 1, vec![(&leader_id, 1)]),
            Bytes::from_static(&[1])
        );

        let r = join_now_wire(
            &mut ctx,
            jg("grp", "member-id-unknown", None, "consumer", &Bytes::new()),
            version,
        );
        assert_eq!(
            norm(&r),
            (
                code(ErrorCode::UnknownMemberId),
                -1,
                None,
                null_or_empty(version),
                String::new(),
                "member-id-unknown".into(),
                vec![]
            )
        );
        let r = join_now_wire(
            &mut ctx,
            jg("", "", None, "consumer", &Bytes::new()),
            version,
        );
        assert_eq!(
            norm(&r),
            (
                code(ErrorCode::InvalidGroupId),
                -1,
                None,
                null_or_empty(version),
                String::new(),
                String::new(),
                vec![]
            )
        );
        let r = join_now_wire(
            &mut ctx,
            jg("grp", "", None, "connect", &Bytes::new()),
            version,
        );
        assert_eq!(
            norm(&r),
            (
                code(ErrorCode::InconsistentGroupProtocol),
                -1,
                None,
                null_or_empty(version),
                String::new(),
                String::new(),
                vec![]
            )
        );

        // A second member; only v4 needs the member id round trip (v5+ joins as a static member).
        let instance = (version >= 5).then_some("group-instance-id");
        let follower_member = if version == 4 {
            let r = join_now_wire(
                &mut ctx,
                jg("grp", "", None, "consumer", &metadata),
                version,
            );
            r.member_id.to_string()
        } else {
            String::new()
        };
        let follower = ctx.join_v(
            jg("grp", &follower_member, instance, "consumer", &metadata),
            version,
        );
        assert!(!ctx.is_done(&follower));
        assert_eq!(
            ctx.describe(5, &["grp"]).groups[0].group_state.as_str(),
            "PreparingRebalance"
        );
        let leader = ctx.join_v(jg("grp", &leader_id, None, "consumer", &metadata), version);
        let f = ctx.joined_on_wire(&follower);
        let follower_id = f.member_id.to_string();
        assert_eq!(
            norm(&f),
            (
                0,
                2,
                type_if_v7(version),
                Some("consumer-range".into()),
                leader_id.clone(),
                follower_id.clone(),
                vec![]
            )
        );
        let mut expected_members = vec![
            (leader_id.clone(), None),
            (follower_id.clone(), instance.map(str::to_string)),
        ];
        expected_members.sort();
        assert_eq!(
            norm(&ctx.joined_on_wire(&leader)),
            (
                0,
                2,
                type_if_v7(version),
                Some("consumer-range".into()),
                leader_id.clone(),
                leader_id.clone(),
                expected_members
            )
        );
        assert_eq!(
            sync_old(
                &mut ctx,
                &leader_id,
                2,
                vec![(&leader_id, 1), (&follower_id, 2)]
            ),
            Bytes::from_static(&[1])
        );
        assert_eq!(
            sync_old(&mut ctx, &follower_id, 2, vec![]),
            Bytes::from_static(&[2])
        );
        // An unchanged follower rejoin does not rebalance.
        let r = join_now_wire(
            &mut ctx,
            jg("grp", &follower_id, instance, "consumer", &metadata),
            version,
        );
        assert_eq!(
            norm(&r),
            (
                0,
                2,
                type_if_v7(version),
                Some("consumer-range".into()),
                leader_id.clone(),
                follower_id.clone(),
                vec![]
            )
        );

        let follower_id = if version >= 5 {
            fenced_static_group(&mut ctx, version, &leader_id, &follower_id, &metadata)
        } else {
            follower_id
        };

        for member in [&leader_id, &follower_id] {
            let sent = ctx.send(
                5,
                LeaveGroupRequest::default()
                    .with_group_id(sb("grp").into())
                    .with_members(vec![leave_member(member, None)]),
            );
            match ctx.answer(&sent) {
                Some(Response::LeaveGroup(r)) => assert_eq!(r.members[0].error_code, 0),
                other => panic!("{other:?}"),
            }
        }
        let sent = ctx.send(
            3,
            DeleteGroupsRequest::default().with_groups_names(vec![sb("grp").into()]),
        );
        match ctx.answer(&sent) {
            Some(Response::DeleteGroups(r)) => assert_eq!(r.results[0].error_code, 0, "v{version}"),
            other => panic!("{other:?}"),
        }
        assert!(ctx.shard.classic.get("grp").is_none());
    }
}

/// §6 #45 testFencedStaticGroup: while the leader's rejoin holds the group in PreparingRebalance, a new
/// process joins with the follower's instance id: the join completes at once (generation +1, the new id
/// in the leader's list) and the old follower's JoinGroup is fenced. Returns the new follower id.
fn fenced_static_group(
    ctx: &mut TestContext,
    version: i16,
    leader_id: &str,
    follower_id: &str,
    metadata: &Bytes,
) -> String {
    let type_if_v7 = (version >= 7).then(|| "consumer".to_string());
    let leader = ctx.join_v(jg("grp", leader_id, None, "consumer", metadata), version);
    assert_eq!(
        ctx.describe(5, &["grp"]).groups[0].group_state.as_str(),
        "PreparingRebalance"
    );
    let new_follower = ctx.join_v(
        jg("grp", "", Some("group-instance-id"), "consumer", metadata),
        version,
    );
    assert_eq!(
        ctx.describe(5, &["grp"]).groups[0].group_state.as_str(),
        "CompletingRebalance"
    );
    let old = ctx.join_v(
        jg(
            "grp",
            follower_id,
            Some("group-instance-id"),
            "consumer",
            metadata,
        ),
        version,
    );
    let n = ctx.joined_on_wire(&new_follower);
    let new_id = n.member_id.to_string();
    let mut expected_members = vec![
        (leader_id.to_string(), None),
        (new_id.clone(), Some("group-instance-id".to_string())),
    ];
    expected_members.sort();
    assert_eq!(
        norm(&ctx.joined_on_wire(&leader)),
        (
            0,
            3,
            type_if_v7.clone(),
            Some("consumer-range".into()),
            leader_id.to_string(),
            leader_id.to_string(),
            expected_members
        )
    );
    assert_eq!(
        norm(&n),
        (
            0,
            3,
            type_if_v7,
            Some("consumer-range".into()),
            leader_id.to_string(),
            new_id.clone(),
            vec![]
        )
    );
    assert_eq!(
        norm(&ctx.joined_on_wire(&old)),
        (
            code(ErrorCode::FencedInstanceId),
            -1,
            None,
            if version >= 7 {
                None
            } else {
                Some(String::new())
            },
            String::new(),
            follower_id.to_string(),
            vec![]
        )
    );
    new_id
}

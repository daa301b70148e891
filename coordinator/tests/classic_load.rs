//! Loading and unloading classic groups (Kafka's replay of GroupMetadata, `onLoaded`, `onUnloaded`),
//! the records of new groups and the failure paths of GroupMetadata writes, and fail-over of a static
//! replacement (KAFKA-10284, Kafka's test_static_consumer_persisted_after_rejoin).

mod classic_support;

use classic_support::*;
use coordinator::RequestContext;
use coordinator::classic::GroupState;
use coordinator::records::Record;
use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
use coordinator::shard::{RequestToken, Shard};
use protocol::messages::{HeartbeatRequest, JoinGroupResponse, SyncGroupResponse};
use protocol::{ErrorCode, Response};

fn two_member_record(rebalance_timeout: i32) -> Record {
    Record::GroupMetadata {
        key: GroupMetadataKey {
            group: GROUP.into(),
        },
        value: Some(GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation: 1,
            protocol: Some("range".into()),
            leader: Some("member-0".into()),
            current_state_timestamp: 1234,
            members: (0..2)
                .map(|i| MemberMetadata {
                    member_id: format!("member-{i}"),
                    group_instance_id: Some(format!("group-instance-id-{i}")),
                    client_id: format!("client-{i}"),
                    client_host: format!("host-{i}"),
                    rebalance_timeout,
                    session_timeout: 4000,
                    subscription: subscription(&["foo"]).to_vec(),
                    assignment: vec![2],
                })
                .collect(),
        }),
    }
}

/// Kafka's testReplayGroupMetadataRecords (with a rebalance timeout of -1, the session timeout stands
/// in) and testOnLoadedSchedulesClassicGroupMemberHeartbeats.
#[test]
fn replay_group_metadata_records_and_on_loaded() {
    for rebalance_timeout in [9000, -1] {
        let mut ctx = TestContext::new();
        ctx.now = 500;
        ctx.load(two_member_record(rebalance_timeout));
        let group = ctx.group();
        assert_eq!(group.state(), GroupState::Stable);
        assert_eq!(group.generation_id(), 1);
        assert_eq!(group.protocol_type(), Some("consumer"));
        assert_eq!(group.protocol_name(), Some("range"));
        assert_eq!(group.leader_id(), Some("member-0"));
        assert_eq!(group.current_state_timestamp_or_default(), 1234);
        assert_eq!(group.member_ids(), vec!["member-0", "member-1"]);
        for (i, m) in group.members().enumerate() {
            assert_eq!(
                m.group_instance_id.as_deref(),
                Some(format!("group-instance-id-{i}").as_str())
            );
            assert_eq!(m.client_id, format!("client-{i}"));
            assert_eq!(m.client_host, format!("host-{i}"));
            assert_eq!(m.session_timeout_ms, 4000);
            assert_eq!(
                m.rebalance_timeout_ms,
                if rebalance_timeout == -1 { 4000 } else { 9000 }
            );
            assert_eq!(m.protocols.len(), 1);
            assert_eq!(m.protocols[0].name, "range");
            assert_eq!(m.protocols[0].metadata, subscription(&["foo"]));
            assert_eq!(m.assignment.to_vec(), vec![2]);
        }
        assert_eq!(
            ctx.group()
                .subscribed_topics()
                .map(|t| t.iter().cloned().collect::<Vec<_>>()),
            Some(vec!["foo".to_string()])
        );
        for i in 0..2 {
            assert_eq!(
                ctx.shard
                    .timers
                    .deadline(&format!("heartbeat-group-id-member-{i}")),
                Some(500 + 4000)
            );
        }
    }
}

/// Kafka's testOnLoadedExceedGroupMaxSizeTriggersRebalance.
#[test]
fn on_loaded_exceed_group_max_size_triggers_rebalance() {
    let mut ctx = TestContext::new().with_config("group.max.size", "1");
    ctx.load(two_member_record(9000));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
}

/// Kafka's testGenerateRecordsOnNewClassicGroup: the first join of a new group writes it (generation 0,
/// no protocol, no members).
#[test]
fn generate_records_on_new_classic_group() {
    let mut ctx = TestContext::new();
    ctx.now = 77;
    let sent = ctx.join_v(join_request().default_protocols().build(), 4);
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::MemberIdRequired)
    );
    assert_eq!(sent.records.len(), 1);
    assert_eq!(
        metadata_value(&sent.records[0]),
        GroupMetadataValue {
            protocol_type: String::new(),
            generation: 0,
            protocol: None,
            leader: None,
            current_state_timestamp: 77,
            members: Vec::new(),
        }
    );
}

/// Kafka's testGenerateRecordsOnNewClassicGroupFailureTransformsError: the new group's write fails; the
/// parked static join gets the mapped error and the group does not exist.
#[test]
fn generate_records_on_new_classic_group_failure_transforms_error() {
    let mut ctx = TestContext::new();
    ctx.shard
        .classic
        .fail_next_write(ErrorCode::NotLeaderOrFollower);
    let sent = ctx.join_v(
        join_request()
            .instance("group-instance-id")
            .default_protocols()
            .build(),
        4,
    );
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::NotCoordinator)
    );
    assert!(ctx.shard.classic.get(GROUP).is_none());
    // The timers of the rolled-back group fire harmlessly.
    assert_no_records(&ctx.sleep(300_000));
}

/// Kafka's testSyncGroupAsLeaderAppendFailureTransformsError: the leader's sync cannot be written: the
/// parked syncs get the mapped error and the group rebalances.
#[test]
fn sync_group_as_leader_append_failure_transforms_error() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let r = ctx.join_and_complete_join(
        join_request()
            .instance("leader-instance-id")
            .default_protocols()
            .build(),
        true,
        true,
    );
    ctx.shard
        .classic
        .fail_next_write(ErrorCode::NotLeaderOrFollower);
    let sync = ctx.sync(sync_request(&r.member_id, 1));
    assert!(sync.records.is_empty());
    let answer = ctx.synced(&sync);
    assert_eq!(answer.error_code, code(ErrorCode::NotCoordinator));
    assert_eq!(answer.protocol_name, None);
    // The single member is not waiting in JoinGroup: the group waits for it to rejoin.
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
}

/// Kafka's testClassicGroupOnUnloadedEmptyAndPreparingRebalance: parked joins get NOT_COORDINATOR.
#[test]
fn classic_group_on_unloaded_empty_and_preparing_rebalance() {
    let mut ctx = TestContext::new();
    ctx.create_group("empty-group");
    ctx.create_group(GROUP);
    let request = join_request().default_protocols().build();
    let first = ctx.join(request.clone());
    let second = ctx.join(request);
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    let first_id = ctx.group().member_ids()[0].clone();
    let replies = ctx.shard.on_unloaded();
    assert_eq!(ctx.group_named("empty-group").state(), GroupState::Dead);
    assert_eq!(ctx.group().state(), GroupState::Dead);
    assert_eq!(replies.len(), 2);
    assert_eq!(replies[0].token, first.token);
    assert_eq!(replies[1].token, second.token);
    match &replies[0].response {
        Response::JoinGroup(r) => {
            assert_eq!(
                r,
                &JoinGroupResponse::default()
                    .with_member_id(sb(&first_id))
                    .with_error_code(code(ErrorCode::NotCoordinator))
            );
        }
        other => panic!("{other:?}"),
    }
    assert!(ctx.shard.timers.is_empty());
    ctx.check_replay_on_drop = false;
}

/// Kafka's testClassicGroupOnUnloadedCompletingRebalance: parked syncs get NOT_COORDINATOR.
#[test]
fn classic_group_on_unloaded_completing_rebalance() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .default_protocols()
        .rebalance(10000)
        .session(5000)
        .build();
    let leader = ctx.join_dynamic_and_complete_join(request.clone());
    let follower = ctx.join(request.clone());
    assert!(!ctx.is_done(&follower));
    let leader_again = ctx.join(request.clone().with_member_id(leader.member_id.clone()));
    assert_eq!(ctx.joined(&follower).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let generation = ctx.joined(&leader_again).generation_id;
    let syncs: Vec<_> = ctx
        .group()
        .member_ids()
        .into_iter()
        .filter(|id| *id != leader.member_id.as_str())
        .map(|id| ctx.sync(sync_request(&id, generation)))
        .collect();
    assert!(syncs.iter().all(|s| !ctx.is_done(s)));
    let replies = ctx.shard.on_unloaded();
    assert_eq!(ctx.group().state(), GroupState::Dead);
    assert_eq!(replies.len(), syncs.len());
    for reply in replies {
        assert_eq!(
            reply.response,
            Response::SyncGroup(
                SyncGroupResponse::default().with_error_code(code(ErrorCode::NotCoordinator))
            )
        );
    }
    ctx.check_replay_on_drop = false;
}

fn heartbeat_on(shard: &mut Shard, member: &str, instance: Option<&str>, now: i64) -> i16 {
    let request = HeartbeatRequest::default()
        .with_group_id(sb(GROUP).into())
        .with_member_id(sb(member))
        .with_generation_id(1)
        .with_group_instance_id(instance.map(sb));
    let outcome = shard
        .handle(
            RequestToken(1_000_000),
            &RequestContext::new(CLIENT_ID, CLIENT_HOST, 4),
            &request.into(),
            now,
        )
        .unwrap();
    match &outcome.replies[0].response {
        Response::Heartbeat(r) => r.error_code,
        other => panic!("{other:?}"),
    }
}

/// KAFKA-10284 (Kafka's test_static_consumer_persisted_after_rejoin): a restarted static member's new id
/// is written, so after the coordinator moves it is the valid one and the old id stays fenced; the
/// loaded group re-arms every member's session.
#[test]
fn static_replacement_survives_coordinator_failover() {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(
        "leader-instance-id",
        "follower-instance-id",
        10000,
        5000,
    );
    let restarted = ctx.join_now(
        join_request()
            .instance("follower-instance-id")
            .protocol_superset()
            .rebalance(10000)
            .session(5000)
            .build(),
        9,
    );
    assert_eq!(restarted.error_code, 0);
    ctx.sleep(1000);

    let mut taken_over = Shard::new(ctx.shard.config.clone());
    taken_over.replay_all(&ctx.log);
    taken_over.on_loaded(ctx.now);
    let group = taken_over.classic.get(GROUP).unwrap();
    assert_eq!(group.state(), GroupState::Stable);
    assert_eq!(group.generation_id(), 1);
    assert_eq!(
        group.static_member_id("follower-instance-id"),
        Some(restarted.member_id.as_str())
    );
    assert_eq!(
        group
            .member(&restarted.member_id)
            .unwrap()
            .assignment
            .to_vec(),
        vec![2]
    );
    let now = ctx.now;
    assert_eq!(
        heartbeat_on(
            &mut taken_over,
            &restarted.member_id,
            Some("follower-instance-id"),
            now
        ),
        0
    );
    assert_eq!(
        heartbeat_on(
            &mut taken_over,
            &rebalance.follower_id,
            Some("follower-instance-id"),
            now
        ),
        code(ErrorCode::FencedInstanceId)
    );
    assert_eq!(
        taken_over
            .timers
            .deadline(&format!("heartbeat-group-id-{}", rebalance.leader_id)),
        Some(now + 5000)
    );
}

fn join_on(shard: &mut Shard, request: protocol::messages::JoinGroupRequest, now: i64) -> i16 {
    let outcome = shard
        .handle(
            RequestToken(1_000_001),
            &RequestContext::new(CLIENT_ID, CLIENT_HOST, 9),
            &request.into(),
            now,
        )
        .unwrap();
    match &outcome.replies[0].response {
        Response::JoinGroup(r) => r.error_code,
        other => panic!("{other:?}"),
    }
}

/// Kafka 4.4.0 behaviour regroup keeps (seen in swarm-classic-static seeds 1012, 1031, 1074, 1201,
/// 1310, 1350, 2033, 2038 and swarm-mixed 2035): a static member's new member id, handed out by a
/// JoinGroup that replaces it (or adds it) while the group rebalances, is written only with the
/// generation's GroupMetadata, at the leader's SyncGroup. A coordinator that loads the partition
/// before that record is committed maps the instance to the old id, so the member's next JoinGroup,
/// Heartbeat or SyncGroup gets FENCED_INSTANCE_ID, which the Java consumer treats as fatal; only after
/// the old id's session timeout (armed at load) is the instance unknown (UNKNOWN_MEMBER_ID).
/// Kafka's coordinator answers the same: conformance/oracle's StaticMemberFailoverTest runs this
/// sequence through Kafka 4.4.0's GroupCoordinatorService.
#[test]
fn a_static_member_id_not_yet_written_is_fenced_by_the_next_coordinator() {
    let mut ctx = TestContext::new();
    let first = ctx.static_members_join_and_rebalance(
        "leader-instance-id",
        "follower-instance-id",
        10000,
        5000,
    );
    let persisted = ctx.log.len();
    // The leader rejoins (a rebalance starts), then the follower's process restarts and joins with
    // no member id: it replaces the old member, the join phase completes, nothing is written.
    let leader_join = ctx.join(
        join_request()
            .member(&first.leader_id)
            .instance("leader-instance-id")
            .protocol_superset()
            .rebalance(10000)
            .session(5000)
            .build(),
    );
    let restarted = ctx.join(
        join_request()
            .instance("follower-instance-id")
            .protocol_superset()
            .rebalance(10000)
            .session(5000)
            .build(),
    );
    let restarted = ctx.joined(&restarted);
    assert_eq!(restarted.error_code, 0);
    assert_eq!(restarted.generation_id, 2);
    assert_eq!(ctx.joined(&leader_join).generation_id, 2);
    let new_id = restarted.member_id.to_string();
    assert_ne!(new_id, first.follower_id);
    assert_eq!(ctx.log.len(), persisted, "nothing written before the sync");

    // The coordinator moves before the leader's SyncGroup is committed.
    let mut taken_over = Shard::new(ctx.shard.config.clone());
    taken_over.replay_all(&ctx.log);
    let loaded = ctx.now;
    taken_over.on_loaded(loaded);
    assert_eq!(
        taken_over
            .classic
            .get(GROUP)
            .unwrap()
            .static_member_id("follower-instance-id"),
        Some(first.follower_id.as_str())
    );
    let rejoin = join_request()
        .member(&new_id)
        .instance("follower-instance-id")
        .protocol_superset()
        .rebalance(10000)
        .session(5000)
        .build();
    assert_eq!(
        join_on(&mut taken_over, rejoin.clone(), loaded),
        code(ErrorCode::FencedInstanceId)
    );
    assert_eq!(
        heartbeat_on(
            &mut taken_over,
            &new_id,
            Some("follower-instance-id"),
            loaded
        ),
        code(ErrorCode::FencedInstanceId)
    );
    // After the old id's session (armed at load) the instance is unknown.
    let expired = loaded + 5000;
    let _ = taken_over.expire(expired);
    assert_eq!(
        join_on(&mut taken_over, rejoin, expired),
        code(ErrorCode::UnknownMemberId)
    );
}

/// Sends `request` at `version` to `shard`: its one answer and the records it wrote.
fn send_on(
    shard: &mut Shard,
    request: impl Into<protocol::Request>,
    version: i16,
    now: i64,
) -> (Response, Vec<Record>) {
    let outcome = shard
        .handle(
            RequestToken(1_000_002),
            &RequestContext::new(CLIENT_ID, CLIENT_HOST, version),
            &request.into(),
            now,
        )
        .unwrap();
    assert_eq!(outcome.replies.len(), 1, "answered at once");
    (outcome.replies[0].response.clone(), outcome.records)
}

fn commit_error_on(shard: &mut Shard, member: &str, generation: i32, now: i64) -> ErrorCode {
    let (response, records) = send_on(
        shard,
        commit_request(GROUP, member, None, generation, "foo", 0, 7),
        8,
        now,
    );
    let error = match &response {
        Response::OffsetCommit(r) => commit_errors(r)[0].2,
        other => panic!("{other:?}"),
    };
    assert_eq!(records.is_empty(), error != ErrorCode::None);
    error
}

/// Kafka 4.4.0 behaviour regroup keeps: a classic group's generation numbers are handed out again after
/// a coordinator fail-over. `completeClassicGroupJoin` bumps the generation in memory and writes a
/// GroupMetadata record only when the group is left empty; a non-empty group's generation is written
/// by the leader's SyncGroup (`classicGroupSyncToClassicGroup`). So generations 2 and 3, whose leader
/// never synced, exist only in the first coordinator's memory; the next coordinator loads generation 1
/// and numbers the member's next rebalance 2 again (lower than the 3 it was given, and the number of
/// the lost 2, now with another subscription and an assignment the lost one never had). A commit
/// carrying the lost generation 2 is then admitted once the new generation 2 is Stable
/// (REBALANCE_IN_PROGRESS before the leader's sync), as the admission compares only the number.
/// Kafka's coordinator answers the same:
/// conformance/oracle's ClassicGenerationReuseTest runs this sequence through Kafka 4.4.0's
/// GroupCoordinatorService.
#[test]
fn a_generation_not_yet_written_is_numbered_again_by_the_next_coordinator() {
    use protocol::messages::join_group_request::JoinGroupRequestProtocol;
    let mut ctx = TestContext::new().with_topics(&[("foo", 1)]);
    let foo = join_request()
        .default_protocols()
        .session(10000)
        .rebalance(20000)
        .build();
    let foo_and_bar = join_request()
        .raw_protocols(vec![
            JoinGroupRequestProtocol::default()
                .with_name(sb("range"))
                .with_metadata(subscription(&["foo", "bar"])),
        ])
        .session(10000)
        .rebalance(20000)
        .build();

    // 1. The member joins the new group and syncs as leader: generation 1 is written.
    let first = ctx.join_now(foo.clone(), 9);
    assert_eq!(first.error_code, code(ErrorCode::MemberIdRequired));
    let m = first.member_id.to_string();
    let j1 = ctx.join_v(foo.clone().with_member_id(sb(&m)), 9);
    assert!(!ctx.is_done(&j1), "the initial rebalance delay");
    ctx.sleep(3000);
    let j1 = ctx.joined(&j1);
    assert_eq!(
        (j1.error_code, j1.generation_id, j1.leader.to_string()),
        (0, 1, m.clone())
    );
    let s1 = ctx.sync(sync_request(&m, 1).with_assignments(vec![assignment(&m, &[1])]));
    assert_eq!(ctx.synced(&s1).error_code, 0);
    assert_eq!(ctx.synced(&s1).assignment.to_vec(), vec![1]);
    assert_eq!(s1.records.len(), 1);
    assert_eq!(metadata_value(&s1.records[0]).generation, 1);
    let committed = ctx.log.clone();

    // 2. The leader rejoins the Stable group: the join completes at once, generation 2, no record.
    ctx.sleep(1000);
    let j2 = ctx.join_v(foo.clone().with_member_id(sb(&m)), 9);
    assert!(j2.records.is_empty());
    let j2 = ctx.joined(&j2);
    assert_eq!(
        (j2.error_code, j2.generation_id, j2.leader.to_string()),
        (0, 2, m.clone())
    );

    // 3. New metadata while CompletingRebalance: generation 3, no record; generation 2 is stale here.
    ctx.sleep(1000);
    let j3 = ctx.join_v(foo_and_bar.clone().with_member_id(sb(&m)), 9);
    assert!(j3.records.is_empty());
    let j3 = ctx.joined(&j3);
    assert_eq!((j3.error_code, j3.generation_id), (0, 3));
    assert_eq!(
        ctx.log.len(),
        committed.len(),
        "nothing written since generation 1"
    );
    let now = ctx.now;
    assert_eq!(
        commit_error_on(&mut ctx.shard, &m, 2, now),
        ErrorCode::IllegalGeneration
    );
    assert_eq!(
        commit_error_on(&mut ctx.shard, &m, 3, now),
        ErrorCode::RebalanceInProgress
    );

    // 4. The partition moves before generation 2 or 3 is written: the next coordinator knows 1.
    let mut taken_over = Shard::new(ctx.shard.config.clone());
    taken_over.set_topics(ctx.shard.topics.clone());
    taken_over.replay_all(&committed);
    taken_over.on_loaded(now);
    let (sync3, _) = send_on(
        &mut taken_over,
        sync_request(&m, 3).with_assignments(vec![assignment(&m, &[2])]),
        5,
        now,
    );
    match &sync3 {
        Response::SyncGroup(r) => assert_eq!(r.error_code, code(ErrorCode::IllegalGeneration)),
        other => panic!("{other:?}"),
    }
    let (j4, records) = send_on(
        &mut taken_over,
        foo_and_bar.clone().with_member_id(sb(&m)),
        9,
        now,
    );
    assert!(records.is_empty());
    let j4 = match j4 {
        Response::JoinGroup(r) => r,
        other => panic!("{other:?}"),
    };
    assert_eq!(
        (j4.error_code, j4.generation_id, j4.leader.to_string()),
        (0, 2, m.clone()),
        "generation 2 handed out again"
    );
    assert_eq!(j4.members[0].metadata, subscription(&["foo", "bar"]));

    // A commit carrying the lost generation 2 (or the 3 the member was given).
    assert_eq!(
        commit_error_on(&mut taken_over, &m, 2, now),
        ErrorCode::RebalanceInProgress
    );
    assert_eq!(
        commit_error_on(&mut taken_over, &m, 3, now),
        ErrorCode::IllegalGeneration
    );
    let (s4, records) = send_on(
        &mut taken_over,
        sync_request(&m, 2).with_assignments(vec![assignment(&m, &[2])]),
        5,
        now,
    );
    match &s4 {
        Response::SyncGroup(r) => {
            assert_eq!(r.error_code, 0);
            assert_eq!(r.assignment.to_vec(), vec![2]);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(records.len(), 1);
    let generation2 = metadata_value(&records[0]);
    assert_eq!(generation2.generation, 2);
    assert_eq!(generation2.members[0].assignment, vec![2]);
    assert_eq!(
        commit_error_on(&mut taken_over, &m, 2, now),
        ErrorCode::None,
        "a commit carrying the number of a lost generation is admitted"
    );
    assert_eq!(
        commit_error_on(&mut taken_over, &m, 3, now),
        ErrorCode::IllegalGeneration
    );
}

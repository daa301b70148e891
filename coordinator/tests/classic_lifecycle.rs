//! Removal paths and timers of classic groups: silent static members during rebalances, session and
//! new-member expiry, pending (KIP-394) members, the sync-phase timeout, group.max.size, LeaveGroup in
//! all its forms. Scenarios 32-42 and 46-49 of static-membership.md §6 (Kafka's
//! GroupMetadataManagerTest, and the deleted Scala tests 33/34 continuing 32), at shard level.
//!
//! Kafka's mock timer fires every due timer at the time the test advanced to, so follow-up timers are
//! scheduled from there; the shard fires each timer at its own deadline. Where a Kafka test advances the
//! clock past a deadline by more than the follow-up timers' delay, the sleeps here stop at the deadline
//! (each such place says so).

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use protocol::ErrorCode;
use protocol::Response;

const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";

/// §6 #32 testGroupStuckInRebalanceTimeoutDueToNonjoinedStaticMember: after the follower's LeaveGroup
/// only the silent static leader is left and the join phase keeps being extended.
fn group_stuck_in_rebalance(ctx: &mut TestContext) -> RebalanceResult {
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 5000, 10000);
    let dynamic = ctx.join(join_request().protocol_superset().session(10000).build());
    assert_no_records(&ctx.sleep(5000));
    let r = ctx.joined(&dynamic);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.leader, r.member_id);
    assert_eq!(r.members.len(), 3);
    assert_eq!(r.generation_id, 2);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let mut ids = ctx.group().member_ids();
    ids.sort();
    let mut expected = vec![
        rebalance.leader_id.clone(),
        rebalance.follower_id.clone(),
        r.member_id.to_string(),
    ];
    expected.sort();
    assert_eq!(ids, expected);
    assert_eq!(ctx.group().static_members().len(), 2);

    let (leave, records) = ctx.leave(leave_request(vec![leave_member(
        &rebalance.follower_id,
        Some(FOLLOWER),
    )]));
    assert!(records.is_empty());
    assert_eq!(leave.members.len(), 1);
    assert_eq!(leave.members[0].member_id.as_str(), rebalance.follower_id);
    assert_eq!(
        leave.members[0].group_instance_id.as_deref(),
        Some(FOLLOWER)
    );
    assert_eq!(leave.members[0].error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);

    ctx.sleep(5000);
    assert_eq!(ctx.group().member_ids(), vec![rebalance.leader_id.clone()]);
    assert_eq!(ctx.group().generation_id(), 2);
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    rebalance
}

#[test]
fn group_stuck_in_rebalance_timeout_due_to_nonjoined_static_member() {
    let mut ctx = TestContext::new();
    group_stuck_in_rebalance(&mut ctx);
}

/// §6 #33 testLeaderFailToRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout (Scala): the silent
/// static leader's session expires; the group becomes Empty at generation 3, without leader.
#[test]
fn leader_fail_to_rejoin_before_final_rebalance_timeout_with_long_session_timeout() {
    let mut ctx = TestContext::new();
    group_stuck_in_rebalance(&mut ctx);
    let fired = ctx.sleep(5001);
    let records: Vec<_> = fired
        .iter()
        .flat_map(|f| f.outcome.records.clone())
        .collect();
    assert_eq!(records.len(), 1);
    let value = metadata_value(&records[0]);
    assert_eq!(value.generation, 3);
    assert!(value.members.is_empty());
    assert_eq!(value.leader, None);
    assert_eq!(value.protocol, None);
    assert_eq!(value.protocol_type, "consumer");
    assert_eq!(ctx.group().num_members(), 0);
    assert_eq!(ctx.group().leader_id(), None);
    assert_eq!(ctx.group().generation_id(), 3);
    assert_eq!(ctx.group().state(), GroupState::Empty);
}

/// §6 #34 testLeaderRejoinBeforeFinalRebalanceTimeoutWithLongSessionTimeout (Scala): the leader's
/// instance rejoins without member id and completes generation 3 alone.
#[test]
fn leader_rejoin_before_final_rebalance_timeout_with_long_session_timeout() {
    let mut ctx = TestContext::new();
    group_stuck_in_rebalance(&mut ctx);
    let sent = ctx.join_v(
        join_request().instance(LEADER).default_protocols().build(),
        9,
    );
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 3);
    assert_eq!(instance_ids(&r), vec![Some(LEADER.to_string())]);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().member_ids(), vec![r.member_id.to_string()]);
    assert!(ctx.group().leader_id().is_some());
    assert_eq!(ctx.group().generation_id(), 3);
}

/// §6 #35 testRebalanceCompletesBeforeMemberJoins: a silent static member survives the join phase (and
/// gets ILLEGAL_GENERATION afterwards) until its session expires.
///
/// Kafka advances 8000 ms to complete the join phase; the join timer is due after 5000 of them, and the
/// new leader's 2500 ms session would expire before 8000 here, so the clock stops at the deadline.
#[test]
fn rebalance_completes_before_member_joins() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .instance(LEADER)
        .default_protocols()
        .rebalance(10000)
        .session(5000)
        .build();
    let leader = ctx.join_and_complete_join(request.clone(), true, true);
    let first_id = leader.member_id.to_string();
    assert_eq!(leader.generation_id, 1);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let sync = ctx.sync(sync_request(&first_id, 1));
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);

    let second = ctx.join(
        request
            .clone()
            .with_group_instance_id(None)
            .with_session_timeout_ms(2500),
    );
    assert!(second.records.is_empty());
    assert!(!ctx.is_done(&second));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    for _ in 0..2 {
        assert_no_records(&ctx.sleep(2500));
        assert_eq!(
            ctx.heartbeat_error(&first_id, 1),
            ErrorCode::RebalanceInProgress
        );
    }
    assert_no_records(&ctx.sleep(5000));
    let r = ctx.joined(&second);
    assert_eq!(r.error_code, 0);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().generation_id(), 2);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let other_id = r.member_id.to_string();
    assert_eq!(r.leader.as_str(), other_id);

    let sync = ctx.sync(sync_request(&other_id, 2));
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    // The static member is still there, one generation behind.
    assert_eq!(
        ctx.heartbeat_error(&first_id, 1),
        ErrorCode::IllegalGeneration
    );

    for expected in [
        ErrorCode::None,
        ErrorCode::None,
        ErrorCode::RebalanceInProgress,
    ] {
        assert_no_records(&ctx.sleep(2000));
        assert_eq!(ctx.heartbeat_error(&other_id, 2), expected);
    }
    assert_eq!(ctx.group().num_members(), 1);
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);

    let rejoin = ctx.join(
        request
            .with_member_id(sb(&other_id))
            .with_group_instance_id(None)
            .with_session_timeout_ms(2500),
    );
    assert!(rejoin.records.is_empty());
    let r = ctx.joined(&rejoin);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 3);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let sync = ctx.sync(sync_request(&other_id, 3));
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    for _ in 0..20 {
        assert_no_records(&ctx.sleep(2000));
        assert_eq!(ctx.heartbeat_error(&other_id, 3), ErrorCode::None);
    }
}

/// §6 #36 testSecondMemberPartiallyJoinAndTimeout: a MEMBER_ID_REQUIRED member that never comes back
/// expires without disturbing the Stable group.
#[test]
fn second_member_partially_join_and_timeout() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .instance(LEADER)
        .default_protocols()
        .rebalance(10000)
        .session(5000)
        .build();
    let leader = ctx.join_and_complete_join(request.clone(), true, true);
    let first_id = leader.member_id.to_string();
    let sync = ctx.sync(sync_request(&first_id, 1));
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);

    let pending = ctx.join_v(
        request
            .with_group_instance_id(None)
            .with_session_timeout_ms(5000),
        9,
    );
    assert!(pending.records.is_empty());
    assert_eq!(
        ctx.joined(&pending).error_code,
        code(ErrorCode::MemberIdRequired)
    );
    assert_eq!(ctx.group().num_pending_join_members(), 1);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    for _ in 0..2 {
        assert_no_records(&ctx.sleep(2500));
        assert_eq!(ctx.heartbeat_error(&first_id, 1), ErrorCode::None);
    }
    assert_eq!(ctx.group().num_pending_join_members(), 0);
    assert_eq!(ctx.group().member_ids(), vec![first_id]);
    assert_eq!(ctx.group().generation_id(), 1);
    assert_eq!(ctx.group().state(), GroupState::Stable);
}

/// §6 #37 testStaticMembersJoinGroupWithMaxSize: 11 instances, group.max.size 10.
#[test]
fn static_members_join_group_with_max_size() {
    let mut ctx = TestContext::new()
        .with_config("group.max.size", "10")
        .with_config("group.initial.rebalance.delay.ms", "50");
    ctx.create_group(GROUP);
    let instances: Vec<String> = (0..11).map(|i| format!("instance-id-{i}")).collect();
    let request = join_request().default_protocols().build();
    let first: Vec<Sent> = instances
        .iter()
        .map(|i| ctx.join(request.clone().with_group_instance_id(Some(sb(i)))))
        .collect();
    assert_eq!(ctx.group().num_members(), 10);
    assert_eq!(ctx.group().num_awaiting_join(), 10);
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    // The first delay is extended once (new members kept arriving), then the join phase completes.
    assert_no_records(&ctx.sleep(50));
    assert_no_records(&ctx.sleep(50));

    let verify = |ctx: &TestContext, sent: &[Sent]| -> Vec<String> {
        let mut ok = 0;
        let ids = sent
            .iter()
            .map(|s| {
                let r = ctx.joined(s);
                if r.error_code == 0 {
                    ok += 1;
                } else {
                    assert_eq!(r.error_code, code(ErrorCode::GroupMaxSizeReached));
                    assert_eq!(r.member_id.as_str(), "");
                }
                r.member_id.to_string()
            })
            .collect();
        assert_eq!(ok, 10);
        ids
    };
    let member_ids = verify(&ctx, &first);
    assert_eq!(member_ids[10], "");

    let second: Vec<Sent> = (0..11)
        .map(|i| {
            ctx.join(
                request
                    .clone()
                    .with_member_id(sb(&member_ids[i]))
                    .with_group_instance_id(Some(sb(&instances[i]))),
            )
        })
        .collect();
    verify(&ctx, &second);
    assert_eq!(ctx.group().num_members(), 10);
    assert_eq!(ctx.group().num_awaiting_join(), 0);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

fn single_static_member(ctx: &mut TestContext) -> String {
    ctx.create_group(GROUP);
    let r = ctx.join_and_complete_join(
        join_request()
            .instance("group-instance-id")
            .default_protocols()
            .build(),
        true,
        true,
    );
    r.member_id.to_string()
}

/// §6 #38 testLeaveGroupWithFencedInstanceId.
#[test]
fn leave_group_with_fenced_instance_id() {
    let mut ctx = TestContext::new();
    single_static_member(&mut ctx);
    let (leave, records) = ctx.leave(leave_request(vec![leave_member(
        "other-member-id",
        Some("group-instance-id"),
    )]));
    assert!(records.is_empty());
    assert_eq!(leave.error_code, 0);
    assert_eq!(leave.members.len(), 1);
    assert_eq!(leave.members[0].member_id.as_str(), "other-member-id");
    assert_eq!(
        leave.members[0].group_instance_id.as_deref(),
        Some("group-instance-id")
    );
    assert_eq!(
        leave.members[0].error_code,
        code(ErrorCode::FencedInstanceId)
    );
    assert_eq!(ctx.group().num_members(), 1);
}

/// §6 #39 testLeaveGroupStaticMemberWithUnknownMemberId: admin removal by instance id.
#[test]
fn leave_group_static_member_with_unknown_member_id() {
    let mut ctx = TestContext::new();
    single_static_member(&mut ctx);
    let (leave, _) = ctx.leave(leave_request(vec![leave_member(
        "",
        Some("group-instance-id"),
    )]));
    assert_eq!(leave.members.len(), 1);
    assert_eq!(leave.members[0].member_id.as_str(), "");
    assert_eq!(
        leave.members[0].group_instance_id.as_deref(),
        Some("group-instance-id")
    );
    assert_eq!(leave.members[0].error_code, 0);
    assert_eq!(ctx.group().num_members(), 0);
}

/// §6 #40 testStaticMembersValidBatchLeaveGroup: both leave; the group becomes Empty (and is written).
#[test]
fn static_members_valid_batch_leave_group() {
    let mut ctx = TestContext::new();
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let (leave, records) = ctx.leave(leave_request(vec![
        leave_member("", Some(LEADER)),
        leave_member("", Some(FOLLOWER)),
    ]));
    assert_eq!(
        leave
            .members
            .iter()
            .map(|m| (
                m.member_id.to_string(),
                m.group_instance_id.as_deref().map(str::to_string),
                m.error_code
            ))
            .collect::<Vec<_>>(),
        vec![
            (String::new(), Some(LEADER.to_string()), 0),
            (String::new(), Some(FOLLOWER.to_string()), 0)
        ]
    );
    assert_eq!(records.len(), 1);
    let value = metadata_value(&records[0]);
    assert_eq!(value.generation, 2);
    assert!(value.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::Empty);
}

/// §6 #40 testStaticMembersFencedInstanceBatchLeaveGroup.
#[test]
fn static_members_fenced_instance_batch_leave_group() {
    let mut ctx = TestContext::new();
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let (leave, _) = ctx.leave(leave_request(vec![
        leave_member("", Some(LEADER)),
        leave_member("invalid-member-id", Some(FOLLOWER)),
    ]));
    assert_eq!(leave.members[0].error_code, 0);
    assert_eq!(leave.members[1].member_id.as_str(), "invalid-member-id");
    assert_eq!(
        leave.members[1].error_code,
        code(ErrorCode::FencedInstanceId)
    );
    // The leader left: the follower, still a member, starts a rebalance.
    assert_eq!(ctx.group().num_members(), 1);
    assert!(ctx.group().has_static_member(FOLLOWER));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
}

/// §6 #40 testStaticMembersUnknownInstanceBatchLeaveGroup.
#[test]
fn static_members_unknown_instance_batch_leave_group() {
    let mut ctx = TestContext::new();
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let (leave, records) = ctx.leave(leave_request(vec![
        leave_member("", Some("unknown-instance-id")),
        leave_member("", Some(FOLLOWER)),
    ]));
    assert!(records.is_empty());
    assert_eq!(
        leave.members[0].error_code,
        code(ErrorCode::UnknownMemberId)
    );
    assert_eq!(
        leave.members[0].group_instance_id.as_deref(),
        Some("unknown-instance-id")
    );
    assert_eq!(leave.members[1].error_code, 0);
}

/// §6 #41 testStaticMembersLeaveUnknownGroup: every entry UNKNOWN_MEMBER_ID, top level NONE.
#[test]
fn static_members_leave_unknown_group() {
    let mut ctx = TestContext::new();
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let (leave, records) = ctx.leave(
        leave_request(vec![
            leave_member("", Some(LEADER)),
            leave_member("", Some(FOLLOWER)),
        ])
        .with_group_id(sb("invalid-group-id").into()),
    );
    assert!(records.is_empty());
    assert_eq!(leave.error_code, 0);
    assert_eq!(leave.members.len(), 2);
    assert!(
        leave
            .members
            .iter()
            .all(|m| m.error_code == code(ErrorCode::UnknownMemberId))
    );
    assert_eq!(ctx.group().num_members(), 2);
}

/// Kafka's `setupGroupWithPendingMember`: two dynamic members Stable at generation 2, the leader
/// rejoins (PreparingRebalance), a third member is pending (MEMBER_ID_REQUIRED, session 2500) and the
/// follower rejoins. Returns (leader id, follower id, pending id).
fn setup_group_with_pending_member(ctx: &mut TestContext) -> (String, String, String) {
    ctx.create_group(GROUP);
    let request = join_request()
        .default_protocols()
        .rebalance(10000)
        .session(5000)
        .build();
    let leader = ctx.join_dynamic_and_complete_join(request.clone());
    let leader_id = leader.member_id.to_string();
    let sync = ctx.sync(
        sync_request(&leader_id, leader.generation_id)
            .with_assignments(vec![assignment(&leader_id, &[])]),
    );
    assert_eq!(sync.records.len(), 1);
    assert_eq!(ctx.synced(&sync).error_code, 0);

    let follower = ctx.join(request.clone());
    assert!(follower.records.is_empty());
    assert!(!ctx.is_done(&follower));
    let leader_again = ctx.join(request.clone().with_member_id(sb(&leader_id)));
    assert!(leader_again.records.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let l = ctx.joined(&leader_again);
    let f = ctx.joined(&follower);
    assert_eq!(l.error_code, 0);
    assert_eq!(f.error_code, 0);
    assert_eq!(l.generation_id, f.generation_id);
    assert_eq!(l.leader.as_str(), leader_id);
    assert_eq!(f.leader.as_str(), leader_id);
    let follower_id = f.member_id.to_string();
    let sync = ctx.sync(sync_request(&leader_id, l.generation_id));
    assert_eq!(sync.records.len(), 1);
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);

    let leader_again = ctx.join(request.clone().with_member_id(sb(&leader_id)));
    assert!(!ctx.is_done(&leader_again));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    let pending = ctx.join_v(request.clone().with_session_timeout_ms(2500), 4);
    assert!(pending.records.is_empty());
    let p = ctx.joined(&pending);
    assert_eq!(p.error_code, code(ErrorCode::MemberIdRequired));
    assert_eq!(ctx.group().num_pending_join_members(), 1);
    let follower_again = ctx.join(request.with_member_id(sb(&follower_id)));
    assert!(!ctx.is_done(&follower_again));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().num_pending_join_members(), 1);
    (leader_id, follower_id, p.member_id.to_string())
}

/// §6 #42 testPendingMembersLeaveGroup: the pending member's leave lets the join phase complete.
#[test]
fn pending_members_leave_group() {
    let mut ctx = TestContext::new();
    let (_, _, pending_id) = setup_group_with_pending_member(&mut ctx);
    let (leave, records) = ctx.leave(leave_request(vec![leave_member(&pending_id, None)]));
    assert!(records.is_empty());
    assert_eq!(leave.members.len(), 1);
    assert_eq!(leave.members[0].member_id.as_str(), pending_id);
    assert_eq!(leave.members[0].group_instance_id, None);
    assert_eq!(leave.members[0].error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    assert!(ctx.group().static_members().is_empty());
    assert_eq!(ctx.group().num_pending_join_members(), 0);
}

/// §6 #46 testJoinGroupExistingMemberDoesNotTriggerRebalanceInStableState.
#[test]
fn join_group_existing_member_does_not_trigger_rebalance_in_stable_state() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request().default_protocols().build();
    let leader = ctx.join_dynamic_and_complete_join(request.clone());
    assert_eq!(leader.error_code, 0);
    let leader_id = leader.leader.to_string();
    assert_eq!(ctx.group().generation_id(), 1);

    let member = ctx.join(request.clone());
    assert!(member.records.is_empty());
    assert!(!ctx.is_done(&member));
    let leader_again = ctx.join(request.clone().with_member_id(sb(&leader_id)));
    assert!(leader_again.records.is_empty());
    assert!(ctx.is_done(&leader_again));
    assert!(ctx.is_done(&member));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().generation_id(), 2);
    let member_id = ctx.joined(&member).member_id.to_string();

    ctx.force_state(GroupState::Stable);
    let again = ctx.join(request.with_member_id(sb(&member_id)));
    assert!(again.records.is_empty());
    let r = ctx.joined(&again);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 2);
    assert_eq!(ctx.group().state(), GroupState::Stable);
}

/// §6 #46 testJoinGroupFromUnchangedLeaderShouldRebalance.
#[test]
fn join_group_from_unchanged_leader_should_rebalance() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .default_protocols()
        .rebalance(10000)
        .session(5000)
        .build();
    let leader = ctx.join_dynamic_and_complete_join(request.clone());
    let sync = ctx.sync(sync_request(&leader.member_id, leader.generation_id));
    assert_eq!(sync.records.len(), 1);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    let again = ctx.join(request.with_member_id(leader.member_id.clone()));
    assert!(again.records.is_empty());
    let r = ctx.joined(&again);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, leader.generation_id + 1);
}

/// §6 #47 testJoinGroupCompletionWhenPendingMemberTimesOut.
#[test]
fn join_group_completion_when_pending_member_times_out() {
    let mut ctx = TestContext::new();
    setup_group_with_pending_member(&mut ctx);
    assert_no_records(&ctx.sleep(3000));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().num_pending_join_members(), 0);
}

/// §6 #48a testHeartbeatExpirationShouldRemoveMember: a new member parked in the (10 minute) initial
/// rebalance expires after the 5 minute new-member join timeout; the empty group completes generation 1.
#[test]
fn heartbeat_expiration_should_remove_member() {
    let mut ctx = TestContext::new().with_config("group.initial.rebalance.delay.ms", "600000");
    ctx.create_group(GROUP);
    let sent = ctx.join(join_request().default_protocols().build());
    assert!(sent.records.is_empty());
    assert!(!ctx.is_done(&sent));
    assert_eq!(ctx.group().num_members(), 1);
    let member_id = ctx.group().leader_id().unwrap().to_string();

    let fired = ctx.sleep(300_000);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].key, format!("heartbeat-group-id-{member_id}"));
    assert_eq!(fired[0].outcome.records.len(), 1);
    let value = metadata_value(&fired[0].outcome.records[0]);
    assert_eq!(value.generation, 1);
    assert!(value.members.is_empty());
    assert_eq!(value.protocol_type, "consumer");
    assert_eq!(value.current_state_timestamp, 300_000);
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, code(ErrorCode::UnknownMemberId));
    assert_eq!(r.member_id.as_str(), "");
    assert_eq!(ctx.group().num_members(), 0);
    assert_eq!(ctx.group().state(), GroupState::Empty);
}

/// §6 #48b testNewMemberTimeoutCompletion: once the join phase completed, the new-member timeout no
/// longer applies; the member's own session timeout removes it.
#[test]
fn new_member_timeout_completion() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let sent = ctx.join(
        join_request()
            .default_protocols()
            .session(300_000 + 5000)
            .build(),
    );
    assert!(sent.records.is_empty());
    assert_no_records(&ctx.sleep(3000));
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(ctx.group().generation_id(), 1);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert!(ctx.group().members().all(|m| !m.is_new));
    let sync = ctx.sync(sync_request(&r.member_id, 1));
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().num_members(), 1);

    assert_no_records(&ctx.sleep(300_000));
    assert_eq!(ctx.group().num_members(), 1);
    let fired = ctx.sleep(5000);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].key, format!("heartbeat-group-id-{}", r.member_id));
    assert_eq!(fired[0].outcome.records.len(), 1);
    let value = metadata_value(&fired[0].outcome.records[0]);
    assert_eq!(value.generation, 2);
    assert!(value.members.is_empty());
    assert_eq!(value.leader, None);
    assert_eq!(value.protocol, None);
    assert_eq!(value.protocol_type, "consumer");
    assert_eq!(value.current_state_timestamp, ctx.now);
    assert_eq!(ctx.group().num_members(), 0);
    assert_eq!(ctx.group().state(), GroupState::Empty);
}

/// Kafka's `joinWithNMembers`: n dynamic members (MEMBER_ID_REQUIRED round trip at v4) complete the
/// initial rebalance. Kafka advances the initial delay and then the whole rebalance timeout; the extended
/// delay actually ends `rebalance - delay` after the first, which is where the clock stops here.
fn join_with_n_members(
    ctx: &mut TestContext,
    n: usize,
    rebalance: i32,
    session: i32,
) -> Vec<String> {
    ctx.create_group(GROUP);
    let request = join_request()
        .default_protocols()
        .rebalance(rebalance)
        .session(session)
        .build();
    let ids: Vec<String> = (0..n)
        .map(|_| {
            let sent = ctx.join_v(request.clone(), 4);
            assert!(sent.records.is_empty());
            ctx.joined(&sent).member_id.to_string()
        })
        .collect();
    let second: Vec<Sent> = ids
        .iter()
        .map(|id| {
            let sent = ctx.join_v(request.clone().with_member_id(sb(id)), 4);
            assert!(sent.records.is_empty());
            assert!(!ctx.is_done(&sent));
            sent
        })
        .collect();
    assert_no_records(&ctx.sleep(3000));
    assert!(second.iter().all(|s| !ctx.is_done(s)));
    assert_no_records(&ctx.sleep(i64::from(rebalance) - 3000));
    for s in &second {
        assert_eq!(ctx.joined(s).error_code, 0);
    }
    assert_eq!(ctx.group().num_members(), n);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    ids
}

/// §6 #49 testRebalanceTimesOutWhenSyncRequestIsNotReceivedFromLeaders: the leader never syncs; at the
/// rebalance timeout it is removed and the followers' parked syncs get REBALANCE_IN_PROGRESS.
#[test]
fn rebalance_times_out_when_sync_request_is_not_received_from_leaders() {
    let mut ctx = TestContext::new();
    let ids = join_with_n_members(&mut ctx, 3, 5000, 5000);
    let leader_id = ctx.group().leader_id().unwrap().to_string();
    assert_eq!(leader_id, ids[0]);
    assert_no_records(&ctx.sleep(2500));
    for id in &ids {
        assert_eq!(ctx.heartbeat_error(id, 1), ErrorCode::None);
    }
    let follower_syncs: Vec<Sent> = ids[1..]
        .iter()
        .map(|id| {
            let sent = ctx.sync(sync_request(id, 1));
            assert!(sent.records.is_empty());
            assert!(!ctx.is_done(&sent));
            sent
        })
        .collect();
    let fired = ctx.sleep(2500);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].key, "sync-group-id");
    assert!(fired[0].outcome.records.is_empty());
    for s in &follower_syncs {
        assert_eq!(
            ctx.synced(s).error_code,
            code(ErrorCode::RebalanceInProgress)
        );
    }
    assert_eq!(ctx.heartbeat_error(&ids[0], 1), ErrorCode::UnknownMemberId);
    for id in &ids[1..] {
        assert_eq!(ctx.heartbeat_error(id, 1), ErrorCode::RebalanceInProgress);
    }
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
}

/// The leave of a static member by member id only (KIP-1092 `LEAVE_GROUP` close, and @platformatic's
/// LeaveGroup v5 with a null instance id) removes it at once (classic-44-delta.md §2.7).
#[test]
fn static_member_leaving_without_instance_id_is_removed() {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let (leave, _) = ctx.leave(leave_request(vec![leave_member(
        &rebalance.follower_id,
        None,
    )]));
    assert_eq!(leave.members[0].error_code, 0);
    assert_eq!(leave.members[0].group_instance_id, None);
    assert!(!ctx.group().has_static_member(FOLLOWER));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
}

/// LeaveGroup v0-2 name one member and answer one error code (the member's).
#[test]
fn leave_group_v0_to_v2_collapse_to_one_error() {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    for (version, member, expected) in [
        (0, "unknown", ErrorCode::UnknownMemberId),
        (1, rebalance.follower_id.as_str(), ErrorCode::None),
        (
            2,
            rebalance.follower_id.as_str(),
            ErrorCode::UnknownMemberId,
        ),
    ] {
        let request = protocol::messages::LeaveGroupRequest::default()
            .with_group_id(sb(GROUP).into())
            .with_member_id(sb(member));
        let sent = ctx.send(version, request);
        match ctx.answer(&sent) {
            Some(Response::LeaveGroup(r)) => {
                assert_eq!(r.error_code, code(expected), "v{version}");
                assert!(r.members.is_empty());
            }
            other => panic!("{other:?}"),
        }
    }
    let sent = ctx.send(
        1,
        protocol::messages::LeaveGroupRequest::default()
            .with_group_id(sb("").into())
            .with_member_id(sb("x")),
    );
    match ctx.answer(&sent) {
        Some(Response::LeaveGroup(r)) => assert_eq!(r.error_code, code(ErrorCode::InvalidGroupId)),
        other => panic!("{other:?}"),
    }
}

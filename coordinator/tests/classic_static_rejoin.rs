//! Static members rejoining a classic group with known or unknown member ids, protocol changes, member
//! validation (UNKNOWN_MEMBER_ID vs FENCED_INSTANCE_ID), and static members that miss a rebalance.
//! Scenarios 13-31 of static-membership.md §6 (Kafka's GroupMetadataManagerTest), at shard level.

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use protocol::ErrorCode;

const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";

/// A group whose static leader and follower joined and synced (rebalance timeout 10000 ms,
/// session `session_ms`): Stable at generation 1.
fn stable_pair_with_session(session_ms: i32) -> (TestContext, RebalanceResult) {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, session_ms);
    (ctx, rebalance)
}

/// The usual stable pair, with 5000 ms sessions.
fn stable_pair() -> (TestContext, RebalanceResult) {
    stable_pair_with_session(5000)
}

/// A v9 join of `instance` with member id `member` ("" for unknown), offering range and roundrobin.
fn join_superset_v9(ctx: &mut TestContext, instance: &str, member: &str) -> Sent {
    let request = join_request()
        .instance(instance)
        .member(member)
        .protocol_superset()
        .build();
    ctx.join_v(request, 9)
}

/// The instance ids a join response should list, in `instance_ids` form.
fn listed(instances: &[&str]) -> Vec<Option<String>> {
    instances.iter().map(|i| Some(i.to_string())).collect()
}

/// §6 #13 testStaticMemberRejoinWithLeaderIdAndKnownMemberId: the leader's rejoin rebalances; the silent
/// follower's session (5000 ms) expires and the leader completes generation 2 alone.
///
/// Kafka's test advances its mock clock by 10 000 ms at once; here the clock stops when the follower's
/// session expires (5000 ms), because timers fire at their deadline and the leader's own re-armed 500 ms
/// heartbeat would expire later.
#[test]
fn static_member_rejoin_with_leader_id_and_known_member_id() {
    let (mut ctx, rebalance) = stable_pair();
    let sent = ctx.join_v(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .default_protocols()
            .rebalance(10000)
            .build(),
        9,
    );
    assert!(!ctx.is_done(&sent));
    ctx.sleep(5000);
    assert!(!ctx.group().has_member(&rebalance.follower_id));
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.member_id.as_str(), rebalance.leader_id);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(r.protocol_name.as_deref(), Some("range"));
    assert_eq!(instance_ids(&r), listed(&[LEADER]));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #14 testStaticMemberRejoinWithLeaderIdAndUnexpectedDeadGroup.
#[test]
fn static_member_rejoin_with_leader_id_and_unexpected_dead_group() {
    let (mut ctx, rebalance) = stable_pair();
    ctx.force_state(GroupState::Dead);
    let sent = ctx.join_v(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .default_protocols()
            .build(),
        9,
    );
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::CoordinatorNotAvailable)
    );
}

/// §6 #15 testStaticMemberRejoinWithLeaderIdAndUnexpectedEmptyGroup.
#[test]
fn static_member_rejoin_with_leader_id_and_unexpected_empty_group() {
    let (mut ctx, rebalance) = stable_pair();
    ctx.force_state(GroupState::PreparingRebalance);
    ctx.force_state(GroupState::Empty);
    let sent = ctx.join_v(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .default_protocols()
            .build(),
        9,
    );
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::UnknownMemberId)
    );
}

/// §6 #16 testStaticMemberRejoinWithFollowerIdAndChangeOfProtocol: the follower's new protocol starts a
/// rebalance; the leader does not rejoin; at the rebalance timeout the follower leads generation 2 with
/// "roundrobin" and the silent static leader is kept.
#[test]
fn static_member_rejoin_with_follower_id_and_change_of_protocol() {
    let (mut ctx, rebalance) = stable_pair_with_session(15000);
    let sent = ctx.join(
        join_request()
            .instance(FOLLOWER)
            .member(&rebalance.follower_id)
            .protocols(&["roundrobin"])
            .rebalance(10000)
            .session(15000)
            .build(),
    );
    assert!(sent.records.is_empty());
    assert!(!ctx.is_done(&sent));
    assert_no_records(&ctx.sleep(10000));
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert!(ctx.group().has_static_member(LEADER));
    assert!(ctx.group().is_leader(&rebalance.follower_id));
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.member_id.as_str(), rebalance.follower_id);
    assert_eq!(r.leader.as_str(), rebalance.follower_id);
    assert_eq!(r.protocol_name.as_deref(), Some("roundrobin"));
    assert_eq!(instance_ids(&r), listed(&[LEADER, FOLLOWER]));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #17 testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWithSelectedProtocolChanged.
#[test]
fn static_member_rejoin_with_unknown_member_id_and_change_of_protocol_with_selected_protocol_changed()
 {
    let (mut ctx, rebalance) = stable_pair_with_session(15000);
    assert_ne!(ctx.group().select_protocol().unwrap(), "roundrobin");
    let sent = ctx.join(
        join_request()
            .instance(FOLLOWER)
            .protocols(&["roundrobin"])
            .rebalance(10000)
            .session(15000)
            .build(),
    );
    assert!(sent.records.is_empty());
    assert!(!ctx.is_done(&sent));
    assert_eq!(ctx.group().select_protocol().unwrap(), "roundrobin");
    assert_no_records(&ctx.sleep(10000));
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert!(ctx.group().has_static_member(LEADER));
    assert!(ctx.group().is_leader(&r.member_id));
    assert_ne!(r.member_id.as_str(), rebalance.follower_id);
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.leader, r.member_id);
    assert_eq!(r.protocol_name.as_deref(), Some("roundrobin"));
    assert_eq!(instance_ids(&r), listed(&[LEADER, FOLLOWER]));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #18 testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchangedPersistenceFailure:
/// the replacement's write fails (MESSAGE_TOO_LARGE -> UNKNOWN_SERVER_ERROR); the old follower id stays
/// valid through the next rebalance.
#[test]
fn static_member_rejoin_with_unknown_member_id_while_select_protocol_unchanged_persistence_failure()
{
    let (mut ctx, rebalance) = stable_pair();
    let selected = ctx.group().select_protocol().unwrap();
    let request = join_request()
        .instance(FOLLOWER)
        .protocols(&[selected.as_str()])
        .build();
    ctx.shard
        .classic
        .fail_next_write(ErrorCode::MessageTooLarge);
    let sent = ctx.join_v(request.clone(), 9);
    assert!(sent.records.is_empty());
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, code(ErrorCode::UnknownServerError));
    assert_eq!(r.generation_id, 1);
    assert_eq!(r.member_id.as_str(), "");
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(r.protocol_name.as_deref(), Some("range"));
    assert_eq!(r.protocol_type.as_deref(), Some("consumer"));
    assert!(!r.skip_assignment);
    assert!(r.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::Stable);
    assert_eq!(
        ctx.group().static_member_id(FOLLOWER),
        Some(rebalance.follower_id.as_str())
    );

    // The old follower id is still valid: its rejoin (new metadata) starts a rebalance.
    let follower = ctx.join(request.clone().with_member_id(sb(&rebalance.follower_id)));
    assert!(follower.records.is_empty());
    let leader = ctx.join(
        request
            .with_group_instance_id(Some(sb(LEADER)))
            .with_member_id(sb(&rebalance.leader_id)),
    );
    assert!(leader.records.is_empty());
    assert_eq!(ctx.joined(&leader).error_code, 0);
    assert_eq!(ctx.joined(&follower).error_code, 0);

    let leader_sync =
        ctx.sync(sync_request(&rebalance.leader_id, 2).with_group_instance_id(Some(sb(LEADER))));
    assert_eq!(leader_sync.records.len(), 1);
    let value = metadata_value(&leader_sync.records[0]);
    assert_eq!(value.generation, 2);
    assert!(value.members.iter().all(|m| m.assignment.is_empty()));
    assert_eq!(ctx.synced(&leader_sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    let old_sync = ctx
        .sync(sync_request(&rebalance.follower_id, 2).with_group_instance_id(Some(sb(FOLLOWER))));
    assert!(old_sync.records.is_empty());
    assert_eq!(ctx.synced(&old_sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);
}

/// §6 #19 testStaticMemberRejoinWithUnknownMemberIdAndChangeOfProtocolWhileSelectProtocolUnchanged.
#[test]
fn static_member_rejoin_with_unknown_member_id_and_change_of_protocol_while_select_protocol_unchanged()
 {
    let (mut ctx, rebalance) = stable_pair();
    let selected = ctx.group().select_protocol().unwrap();
    let request = join_request()
        .instance(FOLLOWER)
        .protocols(&[selected.as_str()])
        .build();
    let sent = ctx.join_v(request.clone(), 9);
    assert_eq!(sent.records.len(), 1);
    let r = ctx.joined(&sent);
    let new_follower_id = r.member_id.to_string();
    let value = metadata_value(&sent.records[0]);
    assert_eq!(
        value
            .members
            .iter()
            .map(|m| m.member_id.clone())
            .collect::<Vec<_>>(),
        vec![rebalance.leader_id.clone(), new_follower_id.clone()]
    );
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 1);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(r.protocol_name.as_deref(), Some("range"));
    assert!(!r.skip_assignment);
    assert!(r.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::Stable);
    assert_ne!(new_follower_id, rebalance.follower_id);

    let old = ctx.join(request.with_member_id(sb(&rebalance.follower_id)));
    assert!(old.records.is_empty());
    assert_eq!(
        ctx.joined(&old).error_code,
        code(ErrorCode::FencedInstanceId)
    );
    let sync = sync_request(&rebalance.follower_id, 1).with_group_instance_id(Some(sb(FOLLOWER)));
    let old_sync = ctx.sync(sync.clone());
    assert!(old_sync.records.is_empty());
    assert_eq!(
        ctx.synced(&old_sync).error_code,
        code(ErrorCode::FencedInstanceId)
    );
    let new_sync = ctx.sync(sync.with_member_id(sb(&new_follower_id)));
    assert!(new_sync.records.is_empty());
    let answer = ctx.synced(&new_sync);
    assert_eq!(answer.error_code, 0);
    // The replacement inherited the old member's assignment.
    assert_eq!(answer.assignment, rebalance.follower_assignment);
}

/// §6 #20 testStaticMemberRejoinWithKnownLeaderIdToTriggerRebalanceAndFollowerWithChangeOfProtocol.
#[test]
fn static_member_rejoin_with_known_leader_id_to_trigger_rebalance_and_follower_with_change_of_protocol()
 {
    let (mut ctx, rebalance) = stable_pair();
    let request = join_request()
        .instance(LEADER)
        .member(&rebalance.leader_id)
        .protocol_superset()
        .rebalance(10000)
        .session(5000)
        .build();
    let leader = ctx.join_v(request.clone(), 9);
    assert!(leader.records.is_empty());
    assert!(!ctx.is_done(&leader));
    let follower = ctx.join_v(
        request
            .clone()
            .with_group_instance_id(Some(sb(FOLLOWER)))
            .with_member_id(sb(&rebalance.follower_id)),
        9,
    );
    assert!(follower.records.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().generation_id(), 2);
    let l = ctx.joined(&leader);
    assert_eq!(l.generation_id, 2);
    assert_eq!(l.leader.as_str(), rebalance.leader_id);
    assert!(!l.skip_assignment);
    assert_eq!(instance_ids(&l), listed(&[LEADER, FOLLOWER]));
    let f = ctx.joined(&follower);
    assert_eq!(f.generation_id, 2);
    assert_eq!(f.leader.as_str(), rebalance.leader_id);
    assert!(f.members.is_empty());

    // The follower's protocols change: PreparingRebalance.
    let follower = ctx.join_v(
        request
            .with_group_instance_id(Some(sb(FOLLOWER)))
            .with_member_id(sb(&rebalance.follower_id))
            .with_protocols(protocols(&["range"])),
        9,
    );
    assert!(follower.records.is_empty());
    assert!(!ctx.is_done(&follower));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);

    // The leader's session expires: the follower alone completes generation 3 as leader.
    let fired = ctx.sleep(5000);
    assert!(fired.len() <= 2);
    let f = ctx.joined(&follower);
    assert_eq!(f.error_code, 0);
    assert_eq!(f.generation_id, 3);
    assert_eq!(f.member_id.as_str(), rebalance.follower_id);
    assert_eq!(f.leader.as_str(), rebalance.follower_id);
    assert_eq!(instance_ids(&f), listed(&[FOLLOWER]));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #21 testStaticMemberRejoinAsFollowerWithUnknownMemberId.
#[test]
fn static_member_rejoin_as_follower_with_unknown_member_id() {
    let (mut ctx, rebalance) = stable_pair();
    let sent = join_superset_v9(&mut ctx, FOLLOWER, "");
    assert_eq!(sent.records.len(), 1);
    assert!(ctx.group().has_static_member(LEADER));
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 1);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(r.protocol_name.as_deref(), Some("range"));
    assert!(!r.skip_assignment);
    assert!(r.members.is_empty());
    assert_ne!(r.member_id.as_str(), rebalance.follower_id);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    let sync = ctx.sync(sync_request(&r.member_id, 1).with_group_instance_id(Some(sb(FOLLOWER))));
    assert!(sync.records.is_empty());
    let answer = ctx.synced(&sync);
    assert_eq!(answer.error_code, 0);
    assert_eq!(answer.assignment, rebalance.follower_assignment);
}

/// §6 #22 testStaticMemberRejoinAsFollowerWithKnownMemberIdAndNoProtocolChange.
#[test]
fn static_member_rejoin_as_follower_with_known_member_id_and_no_protocol_change() {
    let (mut ctx, rebalance) = stable_pair();
    let sent = join_superset_v9(&mut ctx, FOLLOWER, &rebalance.follower_id);
    assert!(sent.records.is_empty());
    assert!(ctx.group().has_static_member(LEADER));
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 1);
    assert_eq!(r.member_id.as_str(), rebalance.follower_id);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(r.protocol_name.as_deref(), Some("range"));
    assert!(r.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::Stable);
}

/// §6 #23 testStaticMemberRejoinAsFollowerWithMismatchedInstanceId.
#[test]
fn static_member_rejoin_as_follower_with_mismatched_instance_id() {
    let (mut ctx, rebalance) = stable_pair();
    let sent = join_superset_v9(&mut ctx, LEADER, &rebalance.follower_id);
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::FencedInstanceId)
    );
}

/// §6 #23 testStaticMemberRejoinAsLeaderWithMismatchedInstanceId.
#[test]
fn static_member_rejoin_as_leader_with_mismatched_instance_id() {
    let (mut ctx, rebalance) = stable_pair();
    let sent = join_superset_v9(&mut ctx, FOLLOWER, &rebalance.leader_id);
    assert!(sent.records.is_empty());
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, code(ErrorCode::FencedInstanceId));
    // The error answer carries no protocol (v9: null).
    assert_eq!(r.protocol_name, None);
    assert_eq!(r.protocol_type, None);
}

/// §6 #24 testStaticMemberSyncAsLeaderWithInvalidMemberId.
#[test]
fn static_member_sync_as_leader_with_invalid_member_id() {
    let (mut ctx, _) = stable_pair();
    let sent =
        ctx.sync(sync_request("invalid-member-id", 0).with_group_instance_id(Some(sb(FOLLOWER))));
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.synced(&sent).error_code,
        code(ErrorCode::FencedInstanceId)
    );
}

/// §6 #25 testStaticMemberHeartbeatLeaderWithInvalidMemberId: without an instance id the member id
/// alone is checked; with the instance id a wrong member id is fenced.
#[test]
fn static_member_heartbeat_leader_with_invalid_member_id() {
    let (mut ctx, rebalance) = stable_pair();
    let sync =
        ctx.sync(sync_request(&rebalance.leader_id, 1).with_group_instance_id(Some(sb(LEADER))));
    assert!(sync.records.is_empty());
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(
        ctx.heartbeat_error(&rebalance.leader_id, 1),
        ErrorCode::None
    );
    let r = ctx.heartbeat(
        heartbeat_request("invalid-member-id", 1).with_group_instance_id(Some(sb(LEADER))),
    );
    assert_eq!(r.error_code, code(ErrorCode::FencedInstanceId));
}

/// §6 #26 testGetDifferentStaticMemberIdAfterEachRejoin.
#[test]
fn get_different_static_member_id_after_each_rejoin() {
    let (mut ctx, rebalance) = stable_pair();
    let mut last = rebalance.leader_id.clone();
    for _ in 0..5 {
        let sent = join_superset_v9(&mut ctx, LEADER, "");
        assert_eq!(sent.records.len(), 1);
        let r = ctx.joined(&sent);
        assert_eq!(r.error_code, 0);
        assert_eq!(
            ctx.group().static_member_id(LEADER),
            Some(r.member_id.as_str())
        );
        assert_ne!(r.member_id.as_str(), last);
        assert_eq!(
            metadata_value(&sent.records[0]).leader.as_deref(),
            Some(r.member_id.as_str())
        );
        last = r.member_id.to_string();
    }
}

/// §6 #27 testStaticMemberJoinWithUnknownInstanceIdAndKnownMemberId.
#[test]
fn static_member_join_with_unknown_instance_id_and_known_member_id() {
    let (mut ctx, rebalance) = stable_pair();
    let sent = join_superset_v9(&mut ctx, "unknown-instance-id", &rebalance.leader_id);
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::UnknownMemberId)
    );
}

/// §6 #28 testStaticMemberReJoinWithIllegalStateAsUnknownMember: a group forced Empty while it still has
/// static members hits Kafka's IllegalStateException (naming the group and the instance), answered
/// UNKNOWN_SERVER_ERROR.
#[test]
fn static_member_rejoin_with_illegal_state_as_unknown_member() {
    let (mut ctx, _) = stable_pair();
    ctx.force_state(GroupState::PreparingRebalance);
    ctx.force_state(GroupState::Empty);
    let sent = join_superset_v9(&mut ctx, FOLLOWER, "");
    assert!(sent.records.is_empty());
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, code(ErrorCode::UnknownServerError));
    assert_eq!(r.member_id.as_str(), "");
    // The artificial state cannot be replayed faithfully (a record was never written for it).
    ctx.check_replay_on_drop = false;
}

/// §6 #29 testStaticMemberFollowerFailToRejoinBeforeRebalanceTimeout: the silent static follower is kept
/// and listed to the leader with the two members that rejoined.
#[test]
fn static_member_follower_fail_to_rejoin_before_rebalance_timeout() {
    let (mut ctx, rebalance) = stable_pair_with_session(15000);
    let request = join_request()
        .instance("new-member-instance-id")
        .protocol_superset()
        .build();
    let new_member = ctx.join_v(request.clone(), 9);
    assert!(new_member.records.is_empty());
    assert!(!ctx.is_done(&new_member));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    let leader = ctx.join_v(
        request
            .with_group_instance_id(Some(sb(LEADER)))
            .with_member_id(sb(&rebalance.leader_id)),
        9,
    );
    assert!(leader.records.is_empty());
    assert!(!ctx.is_done(&leader));
    assert_no_records(&ctx.sleep(10000));

    let l = ctx.joined(&leader);
    assert_eq!(l.error_code, 0);
    assert_eq!(l.generation_id, 2);
    assert_eq!(l.member_id.as_str(), rebalance.leader_id);
    assert_eq!(l.leader.as_str(), rebalance.leader_id);
    assert_eq!(l.protocol_name.as_deref(), Some("range"));
    assert_eq!(
        instance_ids(&l),
        listed(&[LEADER, FOLLOWER, "new-member-instance-id"])
    );
    let n = ctx.joined(&new_member);
    assert_eq!(n.error_code, 0);
    assert_eq!(n.generation_id, 2);
    assert_eq!(n.leader.as_str(), rebalance.leader_id);
    assert!(n.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #30 testStaticMemberLeaderFailToRejoinBeforeRebalanceTimeout: one of the rejoined members leads
/// (regroup's rule: the first rejoined member in member order, here the old follower).
#[test]
fn static_member_leader_fail_to_rejoin_before_rebalance_timeout() {
    let (mut ctx, rebalance) = stable_pair_with_session(15000);
    let request = join_request()
        .instance("new-member-instance-id")
        .protocol_superset()
        .build();
    let new_member = ctx.join_v(request.clone(), 9);
    assert!(!ctx.is_done(&new_member));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    let old_follower = ctx.join_v(
        request
            .with_group_instance_id(Some(sb(FOLLOWER)))
            .with_member_id(sb(&rebalance.follower_id)),
        9,
    );
    assert!(!ctx.is_done(&old_follower));
    assert_no_records(&ctx.sleep(10000));

    let f = ctx.joined(&old_follower);
    let n = ctx.joined(&new_member);
    let (leader, follower) = if f.leader == f.member_id {
        (f, n)
    } else {
        (n, f)
    };
    assert_eq!(leader.member_id.as_str(), rebalance.follower_id);
    assert_eq!(leader.generation_id, 2);
    assert_eq!(leader.leader, leader.member_id);
    assert_eq!(
        instance_ids(&leader),
        listed(&[LEADER, FOLLOWER, "new-member-instance-id"])
    );
    assert_eq!(follower.generation_id, 2);
    assert_eq!(follower.leader, leader.member_id);
    assert!(follower.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #31 testCompleteJoinPhaseNoMembersRejoinedExtendsJoinPhase: with nobody rejoining, each rebalance
/// timeout re-arms the join timer; both rejoining completes generation 3.
#[test]
fn complete_join_phase_no_members_rejoined_extends_join_phase() {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .instance("first-instance-id")
        .default_protocols()
        .session(30000)
        .rebalance(10000)
        .build();
    let first = ctx.join_and_complete_join(request.clone(), true, true);
    let first_id = first.member_id.to_string();
    let second = ctx.join(
        request
            .clone()
            .with_group_instance_id(Some(sb("second-instance-id"))),
    );
    assert!(second.records.is_empty());
    assert!(!ctx.is_done(&second));
    let first_again = ctx.join(
        request
            .clone()
            .with_member_id(sb(&first_id))
            .with_group_instance_id(Some(sb("first-instance-id"))),
    );
    assert!(first_again.records.is_empty());
    assert_eq!(ctx.joined(&first_again).error_code, 0);
    assert_eq!(ctx.joined(&second).error_code, 0);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().generation_id(), 2);
    let second_id = ctx.joined(&second).member_id.to_string();

    ctx.prepare_rebalance();
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert_eq!(ctx.group().num_awaiting_join(), 0);

    for _ in 0..2 {
        assert_no_records(&ctx.sleep(10000));
        assert_eq!(
            ctx.shard.timers.deadline("join-group-id").unwrap() - ctx.now,
            10000
        );
    }
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().generation_id(), 2);

    let first_again = ctx.join(
        request
            .clone()
            .with_member_id(sb(&first_id))
            .with_group_instance_id(Some(sb("first-instance-id"))),
    );
    assert!(first_again.records.is_empty());
    assert!(!ctx.is_done(&first_again));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    let second_again = ctx.join(
        request
            .with_member_id(sb(&second_id))
            .with_group_instance_id(Some(sb("second-instance-id"))),
    );
    assert!(second_again.records.is_empty());
    assert_eq!(ctx.joined(&first_again).error_code, 0);
    assert_eq!(ctx.joined(&second_again).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(ctx.group().generation_id(), 3);
}

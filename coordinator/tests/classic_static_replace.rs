//! Static membership (KIP-345) in classic groups: first joins, replacement of a static member by a join
//! with an unknown member id in every state, fencing of the replaced member id. Scenarios 1-12 of
//! static-membership.md §6 (Kafka's GroupMetadataManagerTest), at shard level.

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use protocol::ErrorCode;

const INSTANCE: &str = "group-instance-id";
const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";

/// A context with the empty classic group `GROUP` created.
fn new_group() -> TestContext {
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    ctx
}

/// A group whose static leader and follower joined and synced (rebalance timeout 10000 ms, session
/// 5000 ms): Stable at generation 1.
fn stable_pair() -> (TestContext, RebalanceResult) {
    let mut ctx = TestContext::new();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    (ctx, rebalance)
}

/// The instance ids a join response should list, in `instance_ids` form.
fn listed(instances: &[&str]) -> Vec<Option<String>> {
    instances.iter().map(|i| Some(i.to_string())).collect()
}

/// §6 #1 testStaticMemberJoinAsFirstMember.
#[test]
fn static_member_join_as_first_member() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .default_protocols()
        .build();
    let r = ctx.join_and_complete_join(request, false, true);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 1);
    assert!(r.member_id.starts_with("group-instance-id-"));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #2 testStaticMemberRejoinWithExplicitUnknownMemberId.
#[test]
fn static_member_rejoin_with_explicit_unknown_member_id() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .default_protocols()
        .session(5000)
        .rebalance(5000)
        .build();
    let r = ctx.join_and_complete_join(request.clone(), false, true);
    assert_eq!(r.error_code, 0);
    let sent = ctx.join(request.with_member_id(sb("unknown-member-id")));
    assert!(sent.records.is_empty());
    assert_eq!(
        ctx.joined(&sent).error_code,
        code(ErrorCode::FencedInstanceId)
    );
}

/// §6 #3 testJoinGroupReplaceStaticMember: two id-less joins of the same instance during the initial
/// delay; the first is fenced at once, the second completes after the delay.
#[test]
fn join_group_replace_static_member() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .default_protocols()
        .session(5000)
        .build();
    let old = ctx.join(request.clone());
    assert!(old.records.is_empty());
    assert!(!ctx.is_done(&old));
    assert_eq!(ctx.group().num_awaiting_join(), 1);
    assert_eq!(ctx.group().num_members(), 1);

    let new = ctx.join(request);
    assert!(new.records.is_empty());
    assert!(!ctx.is_done(&new));
    let fenced = ctx.joined(&old);
    assert_eq!(fenced.error_code, code(ErrorCode::FencedInstanceId));
    assert_eq!(ctx.group().num_awaiting_join(), 1);
    assert_eq!(ctx.group().num_members(), 1);

    assert_no_records(&ctx.sleep(3000));
    let joined = ctx.joined(&new);
    assert_eq!(joined.error_code, 0);
    assert_eq!(joined.generation_id, 1);
    assert_ne!(joined.member_id, fenced.member_id);
    assert_eq!(ctx.group().num_awaiting_join(), 0);
    assert_eq!(ctx.group().num_members(), 1);
}

fn replace_in_stable_no_error(version: i16) {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .protocols(&["range"])
        .build();
    let r = ctx.join_and_complete_join(request.clone(), true, version >= 9);
    assert_eq!(r.error_code, 0);
    let old_member_id = r.member_id.to_string();
    assert_eq!(ctx.group().num_members(), 1);
    assert_eq!(ctx.group().generation_id(), 1);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    // Simulate a successful sync phase.
    ctx.force_state(GroupState::Stable);

    let new_protocols = protocols(&["range", "roundrobin"]);
    let sent = ctx.join_v(
        request
            .with_protocols(new_protocols.clone())
            .with_rebalance_timeout_ms(7000)
            .with_session_timeout_ms(4500),
        version,
    );
    // One GroupMetadata record persisting the new member id, no rebalance.
    assert_eq!(sent.records.len(), 1);
    let value = metadata_value(&sent.records[0]);
    let new_member_id = ctx.group().static_member_id(INSTANCE).unwrap().to_string();
    assert_eq!(value.generation, 1);
    assert_eq!(value.protocol.as_deref(), Some("range"));
    assert_eq!(value.members.len(), 1);
    assert_eq!(value.members[0].member_id, new_member_id);
    assert_eq!(value.members[0].rebalance_timeout, 7000);
    assert_eq!(value.members[0].session_timeout, 4500);

    let response = ctx.joined(&sent);
    assert_eq!(response.error_code, 0);
    assert_eq!(response.generation_id, 1);
    assert_eq!(response.member_id.as_str(), new_member_id.as_str());
    assert_eq!(response.protocol_name.as_deref(), Some("range"));
    assert_eq!(response.protocol_type.as_deref(), Some("consumer"));
    if version >= 9 {
        // KIP-814: the returning leader is told it leads, with the members, and to skip the assignment.
        assert_eq!(response.leader.as_str(), new_member_id.as_str());
        assert!(response.skip_assignment);
        assert_eq!(member_ids(&response), vec![new_member_id.clone()]);
        assert_eq!(instance_ids(&response), listed(&[INSTANCE]));
        assert_eq!(response.members[0].metadata, new_protocols[0].metadata);
    } else {
        // Before v9 it is told the old leader id, so it behaves as a follower.
        assert_eq!(response.leader.as_str(), old_member_id.as_str());
        assert!(!response.skip_assignment);
        assert!(response.members.is_empty());
    }
    let member = ctx.group().member(&new_member_id).unwrap();
    assert_eq!(member.rebalance_timeout_ms, 7000);
    assert_eq!(member.session_timeout_ms, 4500);
    assert_eq!(member.protocols.len(), 2);
    assert_eq!(ctx.group().num_members(), 1);
    assert_eq!(ctx.group().generation_id(), 1);
    assert_eq!(ctx.group().state(), GroupState::Stable);
}

/// §6 #4 testReplaceStaticMemberInStableStateNoError (JoinGroup v4).
#[test]
fn replace_static_member_in_stable_state_no_error_v4() {
    replace_in_stable_no_error(4);
}

/// §6 #4 testReplaceStaticMemberInStableStateNoError (JoinGroup v9, KIP-814).
#[test]
fn replace_static_member_in_stable_state_no_error_v9() {
    replace_in_stable_no_error(9);
}

/// §6 #5 testReplaceStaticMemberInStableStateWithUpdatedProtocolTriggersRebalance.
#[test]
fn replace_static_member_in_stable_state_with_updated_protocol_triggers_rebalance() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .protocols(&["range", "roundrobin"])
        .build();
    let r = ctx.join_and_complete_join(request.clone(), true, true);
    assert_eq!(r.error_code, 0);
    assert_eq!(ctx.group().generation_id(), 1);
    ctx.force_state(GroupState::Stable);

    let sent = ctx.join(request.with_protocols(protocols(&["roundrobin"])));
    assert!(sent.records.is_empty());
    let response = ctx.joined(&sent);
    assert_eq!(response.error_code, 0);
    assert_eq!(response.generation_id, 2);
    assert_eq!(response.protocol_name.as_deref(), Some("roundrobin"));
    assert_eq!(ctx.group().num_members(), 1);
    assert_eq!(ctx.group().generation_id(), 2);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #6 testReplaceStaticMemberInStableStateErrors: the write fails, the member is reverted to its old
/// id, protocols and timeouts, and the joiner gets the mapped error.
#[test]
fn replace_static_member_in_stable_state_errors() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .protocols(&["range"])
        .rebalance(4000)
        .session(3000)
        .build();
    let r = ctx.join_and_complete_join(request.clone(), false, false);
    assert_eq!(r.error_code, 0);
    let old_member_id = r.member_id.to_string();
    ctx.force_state(GroupState::Stable);

    ctx.shard
        .classic
        .fail_next_write(ErrorCode::UnknownTopicOrPartition);
    let sent = ctx.join(
        request
            .with_protocols(protocols(&["range", "roundrobin"]))
            .with_rebalance_timeout_ms(7000)
            .with_session_timeout_ms(6000),
    );
    assert!(sent.records.is_empty(), "the failed write appends nothing");
    let response = ctx.joined(&sent);
    assert_eq!(
        response.error_code,
        code(ErrorCode::CoordinatorNotAvailable)
    );
    assert_eq!(response.member_id.as_str(), "");
    assert_eq!(response.leader.as_str(), old_member_id.as_str());
    assert_eq!(response.generation_id, 1);
    assert_eq!(response.protocol_name.as_deref(), Some("range"));
    assert_eq!(response.protocol_type.as_deref(), Some("consumer"));
    assert!(!response.skip_assignment);
    assert!(response.members.is_empty());

    let group = ctx.group();
    assert_eq!(
        group.static_member_id(INSTANCE),
        Some(old_member_id.as_str())
    );
    let member = group.member(&old_member_id).unwrap();
    assert_eq!(member.rebalance_timeout_ms, 4000);
    assert_eq!(member.session_timeout_ms, 3000);
    // (Kafka's test also sees "roundrobin" here only because it mutates the request object the member
    // aliases; the member's own protocols are restored.)
    assert_eq!(member.protocols.len(), 1);
    assert_eq!(group.num_members(), 1);
    assert_eq!(group.generation_id(), 1);
    assert_eq!(group.state(), GroupState::Stable);
}

/// Kafka's testReplaceStaticMemberInStableStateSucceeds (v4 and v9), the success twin of #6.
#[test]
fn replace_static_member_in_stable_state_succeeds() {
    for version in [4, 9] {
        let mut ctx = new_group();
        let request = join_request()
            .instance(INSTANCE)
            .protocols(&["range"])
            .build();
        let r = ctx.join_and_complete_join(request.clone(), true, version == 9);
        let old_member_id = r.member_id.to_string();
        ctx.force_state(GroupState::Stable);
        let sent = ctx.join_v(
            request
                .with_protocols(protocols(&["range", "roundrobin"]))
                .with_rebalance_timeout_ms(7000)
                .with_session_timeout_ms(6000),
            version,
        );
        assert_eq!(sent.records.len(), 1);
        let response = ctx.joined(&sent);
        let new_member_id = response.member_id.to_string();
        assert_ne!(new_member_id, old_member_id);
        assert_eq!(response.generation_id, 1);
        assert_eq!(response.skip_assignment, version == 9);
        if version == 9 {
            assert_eq!(response.leader.as_str(), new_member_id.as_str());
            assert_eq!(member_ids(&response), vec![new_member_id.clone()]);
        } else {
            assert_eq!(response.leader.as_str(), old_member_id.as_str());
            assert!(response.members.is_empty());
        }
        let member = ctx.group().member(&new_member_id).unwrap();
        assert_eq!(member.rebalance_timeout_ms, 7000);
        assert_eq!(member.session_timeout_ms, 6000);
        assert_eq!(ctx.group().state(), GroupState::Stable);
    }
}

/// §6 #7 testReplaceStaticMemberInCompletingRebalanceStateTriggersRebalance.
#[test]
fn replace_static_member_in_completing_rebalance_state_triggers_rebalance() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .default_protocols()
        .build();
    let r = ctx.join_and_complete_join(request.clone(), true, true);
    assert_eq!(r.error_code, 0);
    assert_eq!(ctx.group().generation_id(), 1);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);

    let sent = ctx.join(request);
    assert!(sent.records.is_empty());
    let response = ctx.joined(&sent);
    assert_eq!(response.error_code, 0);
    assert_eq!(response.generation_id, 2);
    assert_eq!(ctx.group().num_members(), 1);
    assert_eq!(ctx.group().generation_id(), 2);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #8 testStaticMemberFenceDuplicateRejoinedFollower: a follower parked in JoinGroup with its known id
/// is fenced when its instance joins again without id.
#[test]
fn static_member_fence_duplicate_rejoined_follower() {
    let (mut ctx, rebalance) = stable_pair();
    // A third (dynamic) member joins: rebalance.
    let request = join_request().default_protocols().build();
    ctx.join(request.clone());
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);

    let old_follower = ctx.join(
        request
            .clone()
            .with_member_id(sb(&rebalance.follower_id))
            .with_group_instance_id(Some(sb(FOLLOWER))),
    );
    assert!(old_follower.records.is_empty());
    assert!(!ctx.is_done(&old_follower));

    ctx.join(request.with_group_instance_id(Some(sb(FOLLOWER))));
    let fenced = ctx.joined(&old_follower);
    assert_eq!(fenced.error_code, code(ErrorCode::FencedInstanceId));
    assert_eq!(fenced.member_id.as_str(), rebalance.follower_id.as_str());
    assert_eq!(fenced.leader.as_str(), "");
    assert_eq!(fenced.generation_id, -1);
    assert_eq!(fenced.protocol_type, None);
    // Sent at v3, where a null protocol name is written as "".
    assert_eq!(fenced.protocol_name.as_deref(), Some(""));
    assert!(fenced.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
}

/// §6 #9 testStaticMemberFenceDuplicateSyncingFollowerAfterMemberIdChanged: a follower parked in
/// SyncGroup is fenced by the duplicate's join, which also restarts the rebalance; the leader, which
/// does not rejoin, is expired and the duplicate completes the next generation alone, as leader.
///
/// Kafka's mock timer fires every due timer at the time the test advanced to (10 000 ms later); regroup
/// fires each at its deadline, when the leader's 500 ms session expires, so the check is made then: a
/// heartbeat re-armed by the completed join would otherwise expire before 10 000 ms.
#[test]
fn static_member_fence_duplicate_syncing_follower_after_member_id_changed() {
    let (mut ctx, rebalance) = stable_pair();
    let request = join_request()
        .instance(LEADER)
        .member(&rebalance.leader_id)
        .protocol_superset()
        .rebalance(10000)
        .build();
    let leader_join = ctx.join(request.clone());
    assert!(leader_join.records.is_empty());
    assert!(!ctx.is_done(&leader_join));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);

    let old_follower_join = ctx.join(
        request
            .clone()
            .with_member_id(sb(&rebalance.follower_id))
            .with_group_instance_id(Some(sb(FOLLOWER))),
    );
    assert!(old_follower_join.records.is_empty());
    let leader = ctx.joined(&leader_join);
    assert_eq!(leader.error_code, 0);
    assert_eq!(leader.generation_id, 2);
    assert_eq!(leader.member_id.as_str(), rebalance.leader_id.as_str());
    assert_eq!(leader.leader.as_str(), rebalance.leader_id.as_str());
    assert_eq!(leader.protocol_name.as_deref(), Some("range"));
    assert_eq!(instance_ids(&leader), listed(&[LEADER, FOLLOWER]));
    let follower = ctx.joined(&old_follower_join);
    assert_eq!(follower.error_code, 0);
    assert_eq!(follower.generation_id, 2);
    assert_eq!(follower.member_id.as_str(), rebalance.follower_id.as_str());
    assert_eq!(follower.leader.as_str(), rebalance.leader_id.as_str());
    assert!(follower.members.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);

    let old_follower_sync = ctx
        .sync(sync_request(&rebalance.follower_id, 2).with_group_instance_id(Some(sb(FOLLOWER))));
    assert!(old_follower_sync.records.is_empty());
    assert!(!ctx.is_done(&old_follower_sync));

    let duplicate = ctx.join(
        request
            .with_member_id(sb(""))
            .with_group_instance_id(Some(sb(FOLLOWER))),
    );
    assert!(duplicate.records.is_empty());
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert!(!ctx.is_done(&duplicate));
    assert_eq!(
        ctx.synced(&old_follower_sync).error_code,
        code(ErrorCode::FencedInstanceId)
    );

    // The leader's and the old follower id's heartbeats expire; only the leader is a member to remove.
    let fired = ctx.sleep(500);
    assert_eq!(fired.len(), 2);
    assert_no_records(&fired);
    let duplicate_response = ctx.joined(&duplicate);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().generation_id(), 3);
    assert_eq!(ctx.group().num_members(), 1);
    assert!(ctx.group().has_member(&duplicate_response.member_id));
    assert_eq!(duplicate_response.member_id, duplicate_response.leader);
}

/// §6 #10 testStaticMemberFenceDuplicateRejoiningFollowerAfterMemberIdChanged.
#[test]
fn static_member_fence_duplicate_rejoining_follower_after_member_id_changed() {
    let (mut ctx, rebalance) = stable_pair();
    let request = join_request()
        .instance(LEADER)
        .member(&rebalance.leader_id)
        .default_protocols()
        .rebalance(10000)
        .build();
    let leader_join = ctx.join(request.clone());
    assert!(leader_join.records.is_empty());
    assert!(!ctx.is_done(&leader_join));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);

    // The duplicate follower replaces the follower; everyone has joined: the join phase completes.
    let duplicate = ctx.join(
        request
            .clone()
            .with_member_id(sb(""))
            .with_group_instance_id(Some(sb(FOLLOWER))),
    );
    assert!(duplicate.records.is_empty());
    assert!(ctx.is_done(&duplicate));

    let old_follower = ctx.join(
        request
            .with_member_id(sb(&rebalance.follower_id))
            .with_group_instance_id(Some(sb(FOLLOWER))),
    );
    assert!(old_follower.records.is_empty());
    let leader = ctx.joined(&leader_join);
    assert_eq!(leader.error_code, 0);
    assert_eq!(leader.generation_id, 2);
    assert_eq!(leader.leader.as_str(), rebalance.leader_id.as_str());
    assert_eq!(leader.protocol_name.as_deref(), Some("range"));
    assert_eq!(instance_ids(&leader), listed(&[LEADER, FOLLOWER]));
    let duplicate_response = ctx.joined(&duplicate);
    assert_eq!(duplicate_response.error_code, 0);
    assert_eq!(duplicate_response.generation_id, 2);
    assert_eq!(
        duplicate_response.leader.as_str(),
        rebalance.leader_id.as_str()
    );
    assert_ne!(
        duplicate_response.member_id.as_str(),
        rebalance.follower_id.as_str()
    );
    assert!(duplicate_response.members.is_empty());
    let fenced = ctx.joined(&old_follower);
    assert_eq!(fenced.error_code, code(ErrorCode::FencedInstanceId));
    assert_eq!(fenced.generation_id, -1);
    assert_eq!(fenced.member_id.as_str(), rebalance.follower_id.as_str());
    assert_eq!(fenced.leader.as_str(), "");
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// §6 #11 testStaticMemberRejoinWithKnownMemberId: same metadata during CompletingRebalance returns the
/// current generation at once.
#[test]
fn static_member_rejoin_with_known_member_id() {
    let mut ctx = new_group();
    let request = join_request()
        .instance(INSTANCE)
        .default_protocols()
        .build();
    let r = ctx.join_and_complete_join(request.clone(), false, false);
    let member_id = r.member_id.to_string();
    let rejoin = ctx.join(request.with_member_id(sb(&member_id)));
    assert!(rejoin.records.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    let again = ctx.joined(&rejoin);
    assert_eq!(again.error_code, 0);
    assert_eq!(again.generation_id, 1);
    // The leader gets the member list again.
    assert_eq!(member_ids(&again), vec![member_id.clone()]);

    let sync = ctx.sync(sync_request(&member_id, 1).with_group_instance_id(Some(sb(INSTANCE))));
    assert_eq!(sync.records.len(), 1);
    assert_eq!(ctx.synced(&sync).error_code, 0);
    assert_eq!(ctx.group().state(), GroupState::Stable);
}

fn leader_rejoins_with_unknown_id(version: i16) {
    let (mut ctx, rebalance) = stable_pair();
    let request = join_request().instance(LEADER).protocol_superset().build();
    let sent = ctx.join_v(request.clone(), version);
    assert_eq!(sent.records.len(), 1);
    let value = metadata_value(&sent.records[0]);
    let response = ctx.joined(&sent);
    let new_leader_id = response.member_id.to_string();
    assert_eq!(value.leader.as_deref(), Some(new_leader_id.as_str()));
    assert_eq!(value.generation, 1);
    assert_eq!(
        value
            .members
            .iter()
            .map(|m| (m.member_id.clone(), m.assignment.clone()))
            .collect::<Vec<_>>(),
        vec![
            (new_leader_id.clone(), vec![1]),
            (rebalance.follower_id.clone(), vec![2])
        ]
    );
    assert_eq!(response.error_code, 0);
    assert_eq!(response.generation_id, 1);
    assert_eq!(response.protocol_name.as_deref(), Some("range"));
    assert_eq!(response.skip_assignment, version >= 9);
    if version >= 9 {
        assert_eq!(response.leader.as_str(), new_leader_id.as_str());
        assert_eq!(instance_ids(&response), listed(&[LEADER, FOLLOWER]));
    } else {
        assert_eq!(response.leader.as_str(), rebalance.leader_id.as_str());
        assert!(response.members.is_empty());
    }
    assert_eq!(ctx.group().state(), GroupState::Stable);

    let old_leader_join = ctx.join_v(request.with_member_id(sb(&rebalance.leader_id)), version);
    assert!(old_leader_join.records.is_empty());
    assert_eq!(
        ctx.joined(&old_leader_join).error_code,
        code(ErrorCode::FencedInstanceId)
    );
    let old_leader_sync =
        sync_request(&rebalance.leader_id, 1).with_group_instance_id(Some(sb(LEADER)));
    let sync = ctx.sync(old_leader_sync.clone());
    assert!(sync.records.is_empty());
    assert_eq!(
        ctx.synced(&sync).error_code,
        code(ErrorCode::FencedInstanceId)
    );
    // Without its instance id the stale id is simply unknown.
    let sync = ctx.sync(old_leader_sync.with_group_instance_id(None));
    assert!(sync.records.is_empty());
    assert_eq!(
        ctx.synced(&sync).error_code,
        code(ErrorCode::UnknownMemberId)
    );
}

/// §6 #12 testStaticMemberRejoinWithLeaderIdAndUnknownMemberId (JoinGroup v4).
#[test]
fn static_member_rejoin_with_leader_id_and_unknown_member_id_v4() {
    leader_rejoins_with_unknown_id(4);
}

/// §6 #12 testStaticMemberRejoinWithLeaderIdAndUnknownMemberId (JoinGroup v9).
#[test]
fn static_member_rejoin_with_leader_id_and_unknown_member_id_v9() {
    leader_rejoins_with_unknown_id(9);
}

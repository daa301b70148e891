//! Two classic-group Kafka bug switches, each branch with its exact outcome: with the switch off the
//! shard answers as Kafka 4.4.0 does (the sequences of classic_static_replace.rs and
//! classic_static_rejoin.rs); with it on, as the Scala coordinator did before the fix.
//!
//! * KAFKA-8500 (apache/kafka#6899, 2.3.0): a known static instance joining with an unknown member
//!   id outside Stable was updated under its old member id (no replacement, nothing fenced).
//! * KAFKA-8220 (apache/kafka#6666, 2.3.0): the join phase's rebalance timeout removed every member
//!   that had not rejoined, static members too.

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use kafka_bugs::{KafkaBug, KafkaBugs};
use protocol::ErrorCode;

const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";
const INSTANCE: &str = "group-instance-id";

/// The static leader and follower of `static_members_join_and_rebalance` (rebalance timeout
/// 10000 ms, session `session_ms`), Stable at generation 1, with `bugs` switched on.
fn stable_pair(bugs: &[KafkaBug], session_ms: i32) -> (TestContext, RebalanceResult) {
    let mut ctx = TestContext::new();
    ctx.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, session_ms);
    (ctx, rebalance)
}

/// The stable pair, then a dynamic member joins (JoinGroup v3, no MEMBER_ID_REQUIRED round trip):
/// PreparingRebalance. Then the follower rejoins with its known member id (parked) and a duplicate of
/// the follower's instance joins with no member id. Returns the two follower joins.
fn duplicate_follower_while_preparing(
    bugs: &[KafkaBug],
) -> (TestContext, RebalanceResult, Sent, Sent) {
    let (mut ctx, rebalance) = stable_pair(bugs, 5000);
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
    let duplicate = ctx.join(request.with_group_instance_id(Some(sb(FOLLOWER))));
    assert!(duplicate.records.is_empty());
    assert!(!ctx.is_done(&duplicate));
    (ctx, rebalance, old_follower, duplicate)
}

/// The leader rejoins with its member id: every member has joined, so the join phase completes.
fn leader_rejoins(ctx: &mut TestContext, rebalance: &RebalanceResult) -> Sent {
    let sent = ctx.join(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .default_protocols()
            .build(),
    );
    assert!(sent.records.is_empty());
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().generation_id(), 2);
    sent
}

/// Kafka 4.4.0: the duplicate replaces the follower's member id at once, and the follower's parked
/// JoinGroup is answered FENCED_INSTANCE_ID (§6 #8 testStaticMemberFenceDuplicateRejoinedFollower).
#[test]
fn kafka_8500_off_a_duplicate_instance_while_preparing_gets_a_new_member_id_and_fences_the_old() {
    let (mut ctx, rebalance, old_follower, duplicate) = duplicate_follower_while_preparing(&[]);
    let fenced = ctx.joined(&old_follower);
    assert_eq!(fenced.error_code, code(ErrorCode::FencedInstanceId));
    assert_eq!(fenced.member_id.as_str(), rebalance.follower_id);
    assert_eq!(fenced.generation_id, -1);
    let new_id = ctx
        .group()
        .static_member_id(FOLLOWER)
        .expect("the instance is mapped")
        .to_string();
    assert_ne!(new_id, rebalance.follower_id);
    assert!(!ctx.group().has_member(&rebalance.follower_id));
    assert_eq!(ctx.group().num_members(), 3);

    let leader = leader_rejoins(&mut ctx, &rebalance);
    assert_eq!(ctx.joined(&leader).error_code, 0);
    let r = ctx.joined(&duplicate);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.member_id.as_str(), new_id);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
}

/// KAFKA-8500 on: the duplicate is the old member: the follower's member id stays, its parked
/// JoinGroup is silently replaced by the duplicate's (never answered), and at the join completion the
/// duplicate is handed the follower's member id. Two consumers now share one member id.
#[test]
fn kafka_8500_on_a_duplicate_instance_while_preparing_takes_the_old_member_id() {
    let (mut ctx, rebalance, old_follower, duplicate) =
        duplicate_follower_while_preparing(&[KafkaBug::Kafka8500]);
    assert!(!ctx.is_done(&old_follower));
    assert_eq!(
        ctx.group().static_member_id(FOLLOWER),
        Some(rebalance.follower_id.as_str())
    );
    assert!(ctx.group().has_member(&rebalance.follower_id));
    assert_eq!(ctx.group().num_members(), 3);

    let leader = leader_rejoins(&mut ctx, &rebalance);
    assert_eq!(ctx.joined(&leader).error_code, 0);
    let r = ctx.joined(&duplicate);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.member_id.as_str(), rebalance.follower_id);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert!(!ctx.is_done(&old_follower));

    // The consumer whose JoinGroup was dropped retries it under the same member id (its request
    // timed out): the group is CompletingRebalance and the protocols match, so it is given the
    // current generation at once, as the duplicate was.
    let retry = ctx.join(
        join_request()
            .default_protocols()
            .instance(FOLLOWER)
            .member(&rebalance.follower_id)
            .build(),
    );
    let again = ctx.joined(&retry);
    assert_eq!(again.error_code, 0);
    assert_eq!(again.generation_id, 2);
    assert_eq!(again.member_id.as_str(), rebalance.follower_id);
}

/// A lone static member in CompletingRebalance rejoins with no member id. Kafka 4.4.0 replaces its
/// member id and rebalances (KAFKA-9801's rule); with KAFKA-8500 on, it keeps the old member id and
/// rebalances (updateMemberAndRebalance). Either way the join phase completes at once: generation 2.
#[test]
fn kafka_8500_a_static_rejoin_in_completing_rebalance_keeps_the_member_id_only_with_the_switch() {
    for bugs in [&[][..], &[KafkaBug::Kafka8500][..]] {
        let mut ctx = TestContext::new();
        ctx.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
        ctx.create_group(GROUP);
        let request = join_request()
            .instance(INSTANCE)
            .default_protocols()
            .build();
        let first = ctx.join_and_complete_join(request.clone(), true, true);
        assert_eq!(first.error_code, 0);
        assert_eq!(ctx.group().generation_id(), 1);
        assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);

        let sent = ctx.join(request);
        assert!(sent.records.is_empty());
        let r = ctx.joined(&sent);
        assert_eq!(r.error_code, 0);
        assert_eq!(r.generation_id, 2);
        assert_eq!(ctx.group().num_members(), 1);
        assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
        if bugs.is_empty() {
            assert_ne!(r.member_id, first.member_id);
        } else {
            assert_eq!(r.member_id, first.member_id);
        }
        assert_eq!(
            ctx.group().static_member_id(INSTANCE),
            Some(r.member_id.as_str())
        );
    }
}

/// In Stable the pre-fix coordinator replaced the member id too: the switch does not act there
/// (the replacement is written and answered at once, with a new member id, either way).
#[test]
fn kafka_8500_a_static_rejoin_in_stable_is_replaced_with_or_without_the_switch() {
    for bugs in [&[][..], &[KafkaBug::Kafka8500][..]] {
        let (mut ctx, rebalance) = stable_pair(bugs, 5000);
        let sent = ctx.join(
            join_request()
                .instance(FOLLOWER)
                .protocol_superset()
                .build(),
        );
        assert_eq!(sent.records.len(), 1);
        let r = ctx.joined(&sent);
        assert_eq!(r.error_code, 0);
        assert_eq!(r.generation_id, 1);
        assert_ne!(r.member_id.as_str(), rebalance.follower_id);
        assert_eq!(ctx.group().state(), GroupState::Stable);
        assert!(!ctx.group().has_member(&rebalance.follower_id));
    }
}

/// The leader rejoins with its member id in Stable (a rebalance) and the follower stays silent (its
/// session is 15000 ms, longer than the 10000 ms rebalance timeout): the join phase completes at the
/// rebalance timeout.
fn silent_follower_at_rebalance_timeout(bugs: &[KafkaBug]) -> (TestContext, RebalanceResult, Sent) {
    let (mut ctx, rebalance) = stable_pair(bugs, 15000);
    let sent = ctx.join(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .protocol_superset()
            .rebalance(10000)
            .session(15000)
            .build(),
    );
    assert!(sent.records.is_empty());
    assert!(!ctx.is_done(&sent));
    assert_no_records(&ctx.sleep(9999));
    assert!(!ctx.is_done(&sent));
    assert_no_records(&ctx.sleep(1));
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().generation_id(), 2);
    (ctx, rebalance, sent)
}

/// Kafka 4.4.0: the silent static follower is kept with its old metadata; the leader's response
/// lists it, and it is still a member (its heartbeat at the old generation is ILLEGAL_GENERATION).
#[test]
fn kafka_8220_off_a_static_member_that_did_not_rejoin_is_kept() {
    let (mut ctx, rebalance, sent) = silent_follower_at_rebalance_timeout(&[]);
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(
        instance_ids(&r),
        vec![Some(LEADER.to_string()), Some(FOLLOWER.to_string())]
    );
    assert_eq!(ctx.group().num_members(), 2);
    assert_eq!(
        ctx.group().static_member_id(FOLLOWER),
        Some(rebalance.follower_id.as_str())
    );
    assert_eq!(
        ctx.heartbeat_error(&rebalance.follower_id, 1),
        ErrorCode::IllegalGeneration
    );
}

/// KAFKA-8220 on: the silent static follower is removed at the rebalance timeout like a dynamic
/// member; the leader leads generation 2 alone and the follower's next heartbeat is told
/// UNKNOWN_MEMBER_ID (its instance is no longer mapped).
#[test]
fn kafka_8220_on_a_static_member_that_did_not_rejoin_is_removed() {
    let (mut ctx, rebalance, sent) = silent_follower_at_rebalance_timeout(&[KafkaBug::Kafka8220]);
    let r = ctx.joined(&sent);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.generation_id, 2);
    assert_eq!(r.leader.as_str(), rebalance.leader_id);
    assert_eq!(instance_ids(&r), vec![Some(LEADER.to_string())]);
    assert_eq!(ctx.group().num_members(), 1);
    assert!(!ctx.group().has_static_member(FOLLOWER));
    assert!(!ctx.group().has_member(&rebalance.follower_id));
    assert_eq!(
        ctx.heartbeat_error(&rebalance.follower_id, 1),
        ErrorCode::UnknownMemberId
    );
}

/// KAFKA-8220 on, the silent member is the leader: it is removed and the rejoined follower leads
/// generation 2 alone (Kafka 4.4.0 keeps the leader as a member and elects the follower leader).
#[test]
fn kafka_8220_a_silent_static_leader_is_kept_or_removed() {
    for bugs in [&[][..], &[KafkaBug::Kafka8220][..]] {
        let (mut ctx, rebalance) = stable_pair(bugs, 15000);
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
        assert_no_records(&ctx.sleep(10000));
        let r = ctx.joined(&sent);
        assert_eq!(r.error_code, 0);
        assert_eq!(r.generation_id, 2);
        assert_eq!(r.leader.as_str(), rebalance.follower_id);
        assert!(ctx.group().is_leader(&rebalance.follower_id));
        if bugs.is_empty() {
            assert_eq!(
                instance_ids(&r),
                vec![Some(LEADER.to_string()), Some(FOLLOWER.to_string())]
            );
            assert!(ctx.group().has_static_member(LEADER));
            assert_eq!(ctx.group().num_members(), 2);
        } else {
            assert_eq!(instance_ids(&r), vec![Some(FOLLOWER.to_string())]);
            assert!(!ctx.group().has_static_member(LEADER));
            assert_eq!(ctx.group().num_members(), 1);
        }
    }
}

/// Dynamic members that did not rejoin are removed with or without the switch.
#[test]
fn kafka_8220_a_dynamic_member_that_did_not_rejoin_is_removed_either_way() {
    for bugs in [&[][..], &[KafkaBug::Kafka8220][..]] {
        let mut ctx = TestContext::new();
        ctx.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
        ctx.create_group(GROUP);
        let request = join_request()
            .no_instance()
            .default_protocols()
            .rebalance(10000)
            .session(15000)
            .build();
        let a = ctx.join(request.clone());
        let b = ctx.join(request.clone());
        let delay = i64::from(ctx.shard.config.classic.initial_rebalance_delay_ms);
        ctx.sleep(delay);
        ctx.sleep(delay);
        let a = ctx.joined(&a);
        let b = ctx.joined(&b);
        assert_eq!(ctx.group().generation_id(), 1);
        let a_id = a.member_id.to_string();
        let b_id = b.member_id.to_string();
        let (leader, follower) = if a.leader == a.member_id {
            (a_id, b_id)
        } else {
            (b_id, a_id)
        };
        let sync = ctx.sync(sync_request(&leader, 1));
        assert_eq!(ctx.synced(&sync).error_code, 0);
        assert_eq!(ctx.group().state(), GroupState::Stable);

        let rejoin = ctx.join(request.with_member_id(sb(&leader)));
        assert_no_records(&ctx.sleep(10000));
        let r = ctx.joined(&rejoin);
        assert_eq!(r.generation_id, 2);
        assert_eq!(ctx.group().num_members(), 1);
        assert!(!ctx.group().has_member(&follower));
    }
}

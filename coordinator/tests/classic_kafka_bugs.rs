//! The classic Kafka bug switches, both branches of each: KAFKA-9801 (a static member replaced while
//! the group completes a rebalance) and KAFKA-10284 (a static member replaced in a Stable group), with
//! the switch off (Kafka 4.4.0) and on (the logic before the fix, `kafka_bugs` in the shard config).

mod classic_support;

use classic_support::*;
use coordinator::classic::GroupState;
use coordinator::shard::{RequestToken, Shard};
use coordinator::{RequestContext, records::Record};
use kafka_bugs::{KafkaBug, KafkaBugs};
use protocol::messages::HeartbeatResponse;
use protocol::{ErrorCode, Response};

const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";

fn with_bug(bug: Option<KafkaBug>) -> TestContext {
    let mut ctx = TestContext::new();
    ctx.shard.config.kafka_bugs = KafkaBugs::of(bug);
    ctx
}

fn static_join(instance: &str) -> protocol::messages::JoinGroupRequest {
    join_request()
        .instance(instance)
        .protocol_superset()
        .rebalance(10000)
        .session(5000)
        .build()
}

/// Two static members joined (unknown ids, two initial delays): CompletingRebalance at generation 1,
/// nobody synced yet. Returns (leader id, follower id, the member ids the leader was given).
fn completing_pair(ctx: &mut TestContext) -> (String, String, Vec<String>) {
    ctx.create_group(GROUP);
    let leader = ctx.join(static_join(LEADER));
    let follower = ctx.join(static_join(FOLLOWER));
    let delay = i64::from(ctx.shard.config.classic.initial_rebalance_delay_ms);
    assert_no_records(&ctx.sleep(delay));
    assert_no_records(&ctx.sleep(delay));
    let leader = ctx.joined(&leader);
    let follower = ctx.joined(&follower);
    assert_eq!(leader.generation_id, 1);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    (
        leader.member_id.to_string(),
        follower.member_id.to_string(),
        member_ids(&leader),
    )
}

/// The leader's SyncGroup for generation 1 with assignments [1] for itself and [2] for `follower`.
fn leader_sync(ctx: &mut TestContext, leader: &str, follower: &str) -> Sent {
    ctx.sync(
        sync_request(leader, 1)
            .with_group_instance_id(Some(sb(LEADER)))
            .with_assignments(vec![assignment(leader, &[1]), assignment(follower, &[2])]),
    )
}

/// KAFKA-9801 off (Kafka 4.4.0): the follower's instance rejoining with no member id while the group
/// completes generation 1 starts a new rebalance; the leader's SyncGroup, whose assignment names the
/// old member id, is refused and the next generation lists the new id.
#[test]
fn kafka_9801_off_a_replacement_while_completing_rebalances_again() {
    let mut ctx = with_bug(None);
    let (leader_id, old_follower, listed) = completing_pair(&mut ctx);
    assert_eq!(listed, vec![leader_id.clone(), old_follower.clone()]);

    let restarted = ctx.join(static_join(FOLLOWER));
    assert!(restarted.records.is_empty());
    assert!(!ctx.is_done(&restarted), "parked for the new join phase");
    let new_follower = ctx.group().static_member_id(FOLLOWER).unwrap().to_string();
    assert_ne!(new_follower, old_follower);
    assert!(!ctx.group().has_member(&old_follower));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    assert_eq!(ctx.group().generation_id(), 1);

    let sync = leader_sync(&mut ctx, &leader_id, &old_follower);
    assert!(sync.records.is_empty());
    assert_eq!(
        ctx.synced(&sync).error_code,
        code(ErrorCode::RebalanceInProgress)
    );

    let rejoin = ctx.join(static_join(LEADER).with_member_id(sb(&leader_id)));
    let leader = ctx.joined(&rejoin);
    let follower = ctx.joined(&restarted);
    assert_eq!(leader.generation_id, 2);
    assert_eq!(follower.generation_id, 2);
    assert_eq!(follower.member_id.as_str(), new_follower);
    assert_eq!(member_ids(&leader), vec![leader_id, new_follower]);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
}

/// KAFKA-9801 on (before apache/kafka#8405): the same join is answered at once at generation 1 with
/// the current leader and no members; the leader's SyncGroup stores its assignment for the old
/// member id, which is gone, so the new id is given an empty assignment and the group is Stable.
#[test]
fn kafka_9801_on_a_replacement_while_completing_is_answered_at_once() {
    let mut ctx = with_bug(Some(KafkaBug::Kafka9801));
    let (leader_id, old_follower, _) = completing_pair(&mut ctx);

    let restarted = ctx.join(static_join(FOLLOWER));
    assert!(restarted.records.is_empty());
    let response = ctx.joined(&restarted);
    let new_follower = ctx.group().static_member_id(FOLLOWER).unwrap().to_string();
    assert_eq!(response.error_code, 0);
    assert_eq!(response.member_id.as_str(), new_follower);
    assert_ne!(new_follower, old_follower);
    assert_eq!(response.generation_id, 1);
    assert_eq!(response.leader.as_str(), leader_id);
    assert_eq!(response.protocol_name.as_deref(), Some("range"));
    assert!(response.members.is_empty());
    assert!(!response.skip_assignment);
    assert_eq!(ctx.group().state(), GroupState::CompletingRebalance);
    assert_eq!(ctx.group().generation_id(), 1);

    let follower_sync =
        ctx.sync(sync_request(&new_follower, 1).with_group_instance_id(Some(sb(FOLLOWER))));
    assert!(!ctx.is_done(&follower_sync));
    let sync = leader_sync(&mut ctx, &leader_id, &old_follower);
    assert_eq!(sync.records.len(), 1);
    let value = metadata_value(&sync.records[0]);
    assert_eq!(value.generation, 1);
    let members: Vec<(&str, &[u8])> = value
        .members
        .iter()
        .map(|m| (m.member_id.as_str(), &m.assignment[..]))
        .collect();
    assert_eq!(
        members,
        vec![
            (leader_id.as_str(), &[1u8][..]),
            (new_follower.as_str(), &[][..])
        ]
    );
    assert_eq!(ctx.synced(&sync).assignment.to_vec(), vec![1]);
    let follower = ctx.synced(&follower_sync);
    assert_eq!(follower.error_code, 0);
    assert!(follower.assignment.is_empty(), "the old id's share is lost");
    assert_eq!(ctx.group().state(), GroupState::Stable);
    assert_eq!(ctx.group().generation_id(), 1);
}

fn heartbeat_on(shard: &mut Shard, member_id: &str, instance: &str, now: i64) -> ErrorCode {
    let request = heartbeat_request(member_id, 1).with_group_instance_id(Some(sb(instance)));
    let outcome = shard
        .handle(
            RequestToken(1_000_001),
            &RequestContext::new(CLIENT_ID, CLIENT_HOST, 4),
            &request.into(),
            now,
        )
        .unwrap();
    match &outcome.replies[0].response {
        Response::Heartbeat(HeartbeatResponse { error_code, .. }) => {
            ErrorCode::from_code(*error_code).unwrap()
        }
        other => panic!("{other:?}"),
    }
}

/// A coordinator that loads the partition from the log `ctx` wrote.
fn taken_over(ctx: &TestContext) -> Shard {
    let mut shard = Shard::new(ctx.shard.config.clone());
    shard.replay_all(&ctx.log);
    shard.on_loaded(ctx.now);
    shard
}

/// KAFKA-10284 off (Kafka 4.4.0): the follower's restart in the Stable group writes the group with the
/// new member id before answering, so a coordinator loading the log knows the new id.
#[test]
fn kafka_10284_off_a_stable_replacement_is_written() {
    for version in [4, 9] {
        let mut ctx = with_bug(None);
        let first = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
        let restarted = ctx.join_v(static_join(FOLLOWER), version);
        assert_eq!(restarted.records.len(), 1);
        let new_follower = ctx.joined(&restarted).member_id.to_string();
        let value = metadata_value(&restarted.records[0]);
        assert_eq!(value.generation, 1);
        let ids: Vec<&str> = value.members.iter().map(|m| m.member_id.as_str()).collect();
        assert_eq!(ids, vec![first.leader_id.as_str(), new_follower.as_str()]);

        let mut shard = taken_over(&ctx);
        let group = shard.classic.get(GROUP).unwrap();
        assert_eq!(
            group.static_member_id(FOLLOWER),
            Some(new_follower.as_str())
        );
        let now = ctx.now;
        assert_eq!(
            heartbeat_on(&mut shard, &new_follower, FOLLOWER, now),
            ErrorCode::None
        );
    }
}

/// KAFKA-10284 on (before apache/kafka#9270): nothing is written and the join is answered at once at
/// generation 1 with the old leader id and no members, at v9 too. The group in memory maps the
/// instance to the new id, the log to the old one: the next coordinator fences the new id.
#[test]
fn kafka_10284_on_a_stable_replacement_is_not_written() {
    for version in [4, 9] {
        let mut ctx = with_bug(Some(KafkaBug::Kafka10284));
        let first = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
        let restarted = ctx.join_v(static_join(FOLLOWER), version);
        assert!(restarted.records.is_empty(), "nothing written");
        let response = ctx.joined(&restarted);
        let new_follower = response.member_id.to_string();
        assert_ne!(new_follower, first.follower_id);
        assert_eq!(response.error_code, 0);
        assert_eq!(response.generation_id, 1);
        assert_eq!(response.leader.as_str(), first.leader_id);
        assert!(response.members.is_empty());
        assert!(!response.skip_assignment);
        assert_eq!(ctx.group().state(), GroupState::Stable);
        assert_eq!(
            ctx.group().static_member_id(FOLLOWER),
            Some(new_follower.as_str())
        );
        // The group's persisted view still has the old member id.
        let persisted = &ctx.shard.classic.persisted()[GROUP];
        let ids: Vec<&str> = persisted
            .members
            .iter()
            .map(|m| m.member_id.as_str())
            .collect();
        assert_eq!(
            ids,
            vec![first.leader_id.as_str(), first.follower_id.as_str()]
        );

        let mut shard = taken_over(&ctx);
        let group = shard.classic.get(GROUP).unwrap();
        assert_eq!(
            group.static_member_id(FOLLOWER),
            Some(first.follower_id.as_str())
        );
        let now = ctx.now;
        assert_eq!(
            heartbeat_on(&mut shard, &new_follower, FOLLOWER, now),
            ErrorCode::FencedInstanceId
        );
    }
}

/// KAFKA-10284 on: the selected protocol of the next generation is not consulted either, so a
/// restart whose new protocols would change it is answered without a rebalance (Kafka 4.4.0
/// rebalances: `replace_static_member_in_stable_state_with_updated_protocol_triggers_rebalance`).
#[test]
fn kafka_10284_on_a_stable_replacement_changing_the_protocol_does_not_rebalance() {
    let mut ctx = with_bug(Some(KafkaBug::Kafka10284));
    ctx.create_group(GROUP);
    let request = join_request()
        .instance(FOLLOWER)
        .protocols(&["range", "roundrobin"])
        .build();
    let first = ctx.join_and_complete_join(request.clone(), true, true);
    ctx.force_state(GroupState::Stable);

    let sent = ctx.join(request.with_protocols(protocols(&["roundrobin"])));
    assert!(sent.records.is_empty());
    let response = ctx.joined(&sent);
    assert_eq!(response.error_code, 0);
    assert_eq!(response.generation_id, 1);
    assert_eq!(response.protocol_name.as_deref(), Some("range"));
    assert_eq!(response.leader.as_str(), first.member_id.as_str());
    assert_eq!(ctx.group().generation_id(), 1);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    assert_eq!(ctx.group().protocol_name(), Some("range"));
}

/// A switch changes only its own state's rule: KAFKA-9801 leaves the Stable replacement written,
/// KAFKA-10284 leaves the CompletingRebalance replacement rebalancing.
#[test]
fn each_switch_acts_in_its_own_state_only() {
    let mut ctx = with_bug(Some(KafkaBug::Kafka9801));
    ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let restarted = ctx.join_v(static_join(FOLLOWER), 9);
    assert_eq!(restarted.records.len(), 1);
    assert!(matches!(restarted.records[0], Record::GroupMetadata { .. }));

    let mut ctx = with_bug(Some(KafkaBug::Kafka10284));
    completing_pair(&mut ctx);
    let restarted = ctx.join(static_join(FOLLOWER));
    assert!(!ctx.is_done(&restarted));
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
}

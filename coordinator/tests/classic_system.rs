//! Kafka's static-membership system tests (static-membership.md §6 #50-#52) as shard-level scenarios:
//! consumers are driven by a small client model (join, sync, heartbeat every 3 s, bounce) against one
//! shard with a manual clock.

mod classic_support;

use bytes::Bytes;
use classic_support::*;
use coordinator::classic::GroupState;
use protocol::ErrorCode;
use protocol::messages::JoinGroupRequest;

const SESSION_MS: i32 = 60_000;
const HEARTBEAT_MS: i64 = 3000;

/// A consumer process of the model: static when it has an instance id.
#[derive(Debug, Clone)]
struct Consumer {
    instance: Option<String>,
    member_id: String,
    generation: i32,
    assignment: Bytes,
    /// How many times it had to give up its partitions (eager protocol: every rebalance it sees).
    revocations: u32,
    alive: bool,
}

impl Consumer {
    fn new(instance: Option<&str>) -> Self {
        Self {
            instance: instance.map(str::to_string),
            member_id: String::new(),
            generation: -1,
            assignment: Bytes::new(),
            revocations: 0,
            alive: true,
        }
    }

    fn join_request(&self) -> JoinGroupRequest {
        let mut b = join_request()
            .member(&self.member_id)
            .default_protocols()
            .session(SESSION_MS)
            .rebalance(30_000);
        if let Some(i) = &self.instance {
            b = b.instance(i);
        }
        b.build()
    }
}

/// Sends the JoinGroup (v5) of the consumers `idxs` (a dynamic consumer first gets its id), then waits
/// for the join phase, second by second; the other live consumers keep heartbeating meanwhile and rejoin
/// when told a rebalance is in progress. Then everybody who joined syncs: the leader assigns byte `n + 1`
/// to the n-th member of its list.
fn rebalance(ctx: &mut TestContext, consumers: &mut [Consumer], idxs: &[usize]) {
    let mut sent = Vec::new();
    let send_join = |ctx: &mut TestContext, c: &mut Consumer| {
        if c.instance.is_none() && c.member_id.is_empty() {
            let r = ctx.join_now(c.join_request(), 5);
            assert_eq!(r.error_code, code(ErrorCode::MemberIdRequired));
            c.member_id = r.member_id.to_string();
        }
        ctx.join_v(c.join_request(), 5)
    };
    for &i in idxs {
        let s = send_join(ctx, &mut consumers[i]);
        sent.push((i, s));
    }
    for _ in 0..60 {
        if sent.iter().all(|(_, s)| ctx.is_done(s)) {
            break;
        }
        ctx.sleep(1000);
        for (i, c) in consumers.iter_mut().enumerate() {
            if !c.alive || sent.iter().any(|(j, _)| *j == i) {
                continue;
            }
            let mut request = heartbeat_request(&c.member_id, c.generation);
            request.group_instance_id = c.instance.as_deref().map(sb);
            let error = ErrorCode::from_code(ctx.heartbeat(request).error_code).unwrap();
            if error == ErrorCode::RebalanceInProgress {
                c.revocations += 1;
                let s = send_join(ctx, c);
                sent.push((i, s));
            } else {
                assert_eq!(error, ErrorCode::None, "consumer {i}");
            }
        }
    }
    let mut syncs = Vec::new();
    for (i, s) in &sent {
        let r = ctx.joined(s);
        assert_eq!(r.error_code, 0);
        let c = &mut consumers[*i];
        c.member_id = r.member_id.to_string();
        c.generation = r.generation_id;
        let assignments = if r.leader == r.member_id {
            r.members
                .iter()
                .enumerate()
                .map(|(n, m)| assignment(&m.member_id, &[n as u8 + 1]))
                .collect()
        } else {
            Vec::new()
        };
        let mut request = sync_request(&c.member_id, c.generation).with_assignments(assignments);
        request.group_instance_id = c.instance.as_deref().map(sb);
        syncs.push((*i, ctx.sync(request)));
    }
    for (i, s) in syncs {
        let r = ctx.synced(&s);
        assert_eq!(r.error_code, 0, "consumer {i}");
        consumers[i].assignment = r.assignment;
    }
}

/// Every live consumer heartbeats; one that learns of a rebalance gives up its partitions and rejoins.
fn heartbeat_round(ctx: &mut TestContext, consumers: &mut [Consumer]) -> Vec<usize> {
    let mut rejoin = Vec::new();
    for (i, c) in consumers.iter_mut().enumerate() {
        if !c.alive {
            continue;
        }
        let mut request = heartbeat_request(&c.member_id, c.generation);
        request.group_instance_id = c.instance.as_deref().map(sb);
        let r = ctx.heartbeat(request);
        match ErrorCode::from_code(r.error_code).unwrap() {
            ErrorCode::None => {}
            ErrorCode::RebalanceInProgress | ErrorCode::IllegalGeneration => {
                c.revocations += 1;
                rejoin.push(i);
            }
            other => panic!("consumer {i}: unexpected heartbeat error {other:?}"),
        }
    }
    rejoin
}

fn run_for(ctx: &mut TestContext, consumers: &mut [Consumer], ms: i64) {
    let mut elapsed = 0;
    while elapsed < ms {
        ctx.sleep(HEARTBEAT_MS);
        elapsed += HEARTBEAT_MS;
        let rejoin = heartbeat_round(ctx, consumers);
        if !rejoin.is_empty() {
            let everyone: Vec<usize> = (0..consumers.len())
                .filter(|i| consumers[*i].alive)
                .collect();
            rebalance(ctx, consumers, &everyone);
        }
    }
}

/// A restart: a static consumer just disappears and comes back with no member id; a dynamic one leaves
/// the group on close and joins again as a new member.
fn bounce(ctx: &mut TestContext, consumers: &mut [Consumer], idxs: &[usize]) {
    for &i in idxs {
        let c = &mut consumers[i];
        if c.instance.is_none() {
            let (r, _) = ctx.leave(leave_request(vec![leave_member(&c.member_id, None)]));
            assert_eq!(r.members[0].error_code, 0);
        }
        c.alive = false;
        c.member_id.clear();
    }
    run_for(ctx, consumers, 6000);
    for &i in idxs {
        consumers[i].alive = true;
    }
    rebalance(ctx, consumers, idxs);
    // Anyone who notices a rebalance rejoins.
    run_for(ctx, consumers, 9000);
}

fn bounce_all_but_one(static_members: bool, rolling: bool) -> (u32, i32) {
    let mut ctx = TestContext::new();
    let mut consumers: Vec<Consumer> = (0..3)
        .map(|i| {
            let instance = format!("consumer-{i}");
            Consumer::new(static_members.then_some(instance.as_str()))
        })
        .collect();
    rebalance(&mut ctx, &mut consumers, &[0, 1, 2]);
    assert_eq!(ctx.group().generation_id(), 1);
    run_for(&mut ctx, &mut consumers, 9000);
    for _ in 0..5 {
        if rolling {
            bounce(&mut ctx, &mut consumers, &[1]);
            bounce(&mut ctx, &mut consumers, &[2]);
        } else {
            bounce(&mut ctx, &mut consumers, &[1, 2]);
        }
    }
    assert_eq!(ctx.group().num_members(), 3);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    (consumers[0].revocations, ctx.group().generation_id())
}

/// §6 #50 test_static_consumer_bounce_with_eager_assignment (rolling and all-at-once bounces): static
/// consumers that come back within their session replace themselves without a rebalance, so the consumer
/// that stays up never gives up its partitions; with dynamic consumers it does.
#[test]
fn static_consumer_bounce_with_eager_assignment() {
    for rolling in [true, false] {
        let (revocations, generation) = bounce_all_but_one(true, rolling);
        assert_eq!(revocations, 0, "static, rolling={rolling}");
        assert_eq!(generation, 1, "static, rolling={rolling}");
        let (revocations, generation) = bounce_all_but_one(false, rolling);
        assert!(revocations > 0, "dynamic, rolling={rolling}");
        assert!(generation > 1, "dynamic, rolling={rolling}");
    }
}

/// §6 #51 test_fencing_static_consumer: conflicting consumers with the same instance ids take over the
/// originals' membership (and assignments) without a rebalance; the originals are fenced on their next
/// heartbeat and commit. Started at the same time, the later JoinGroup of each instance wins and the
/// earlier is fenced while it waits.
#[test]
fn fencing_static_consumer() {
    let mut ctx = TestContext::new().with_topics(&[("foo", 3)]);
    let mut originals: Vec<Consumer> = (0..3)
        .map(|i| Consumer::new(Some(&format!("consumer-{i}"))))
        .collect();
    rebalance(&mut ctx, &mut originals, &[0, 1, 2]);
    run_for(&mut ctx, &mut originals, 6000);
    let generation = ctx.group().generation_id();

    let mut conflicting: Vec<Consumer> = (0..3)
        .map(|i| Consumer::new(Some(&format!("consumer-{i}"))))
        .collect();
    rebalance(&mut ctx, &mut conflicting, &[0, 1, 2]);
    assert_eq!(ctx.group().generation_id(), generation);
    assert_eq!(ctx.group().state(), GroupState::Stable);
    for (original, newcomer) in originals.iter().zip(&conflicting) {
        assert_eq!(newcomer.assignment, original.assignment);
        assert_ne!(newcomer.member_id, original.member_id);
        let mut hb = heartbeat_request(&original.member_id, original.generation);
        hb.group_instance_id = original.instance.as_deref().map(sb);
        assert_eq!(
            ctx.heartbeat(hb).error_code,
            code(ErrorCode::FencedInstanceId)
        );
        let r = ctx.commit(
            8,
            commit_request(
                GROUP,
                &original.member_id,
                original.instance.as_deref(),
                original.generation,
                "foo",
                0,
                1,
            ),
        );
        assert_eq!(commit_errors(&r)[0].2, ErrorCode::FencedInstanceId);
    }
    run_for(&mut ctx, &mut conflicting, 9000);
    assert!(conflicting.iter().all(|c| c.revocations == 0));

    // The newcomers stop; after their session the group is Empty.
    for c in &mut conflicting {
        c.alive = false;
    }
    ctx.sleep(i64::from(SESSION_MS));
    assert_eq!(ctx.group().state(), GroupState::Empty);

    // Started simultaneously: two id-less joins of the same instance; the first is fenced.
    let mut ctx = TestContext::new();
    ctx.create_group(GROUP);
    let request = join_request()
        .instance("consumer-0")
        .default_protocols()
        .session(SESSION_MS)
        .build();
    let first = ctx.join_v(request.clone(), 5);
    let second = ctx.join_v(request, 5);
    assert_eq!(
        ctx.joined(&first).error_code,
        code(ErrorCode::FencedInstanceId)
    );
    ctx.sleep(3000);
    assert_eq!(ctx.joined(&second).error_code, 0);
}

/// §6 #52 test_rolling_bounces_will_not_trigger_rebalance_under_static_membership: 3 Streams instances
/// with 3 stream threads each (9 static members, session 60 s) go through 3 rolling bounces; the
/// generation never changes.
#[test]
fn rolling_bounces_will_not_trigger_rebalance_under_static_membership() {
    let mut ctx = TestContext::new();
    let mut threads: Vec<Consumer> = (0..3)
        .flat_map(|instance| {
            (0..3).map(move |thread| {
                Consumer::new(Some(&format!("instance-{instance}-thread-{thread}")))
            })
        })
        .collect();
    let everyone: Vec<usize> = (0..9).collect();
    rebalance(&mut ctx, &mut threads, &everyone);
    let generation = ctx.group().generation_id();
    assert_eq!(generation, 1);
    let mut generations_seen = Vec::new();
    for _ in 0..3 {
        for instance in 0..3 {
            let idxs: Vec<usize> = (0..3).map(|t| instance * 3 + t).collect();
            bounce(&mut ctx, &mut threads, &idxs);
            generations_seen.extend(idxs.iter().map(|i| threads[*i].generation));
        }
    }
    assert_eq!(generations_seen.len(), 27);
    assert!(generations_seen.iter().all(|g| *g == generation));
    assert!(threads.iter().all(|t| t.revocations == 0));
    assert_eq!(ctx.group().generation_id(), generation);
    assert_eq!(ctx.group().num_members(), 9);
}

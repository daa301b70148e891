//! Random sequences of classic and offset requests (any version, member ids that exist or not, instance
//! ids shared between "processes", failed writes, time jumps) never panic, every answer can be encoded
//! at its request's version, no request is answered twice, and replaying the records rebuilds the same
//! persisted groups and offsets (checked by the harness when the context is dropped).

mod classic_support;

use classic_support::*;
use proptest::prelude::*;
use protocol::ErrorCode;
use protocol::messages::JoinGroupRequest;

#[derive(Debug, Clone)]
enum Op {
    Join {
        version: i16,
        member: usize,
        instance: Option<usize>,
        protocols: usize,
        session: i32,
    },
    Sync {
        member: usize,
        instance: Option<usize>,
        generation: i32,
        assign: bool,
    },
    Heartbeat {
        member: usize,
        instance: Option<usize>,
        generation: i32,
    },
    Leave {
        version: i16,
        member: usize,
        instance: Option<usize>,
    },
    Commit {
        version: i16,
        member: usize,
        instance: Option<usize>,
        generation: i32,
    },
    Describe,
    FailNextWrite,
    Sleep(i64),
}

fn op() -> impl Strategy<Value = Op> {
    let instance = proptest::option::of(0usize..3);
    prop_oneof![
        4 => (0i16..=9, 0usize..6, instance.clone(), 0usize..3, prop_oneof![Just(500), Just(5000), Just(30000)])
            .prop_map(|(version, member, instance, protocols, session)| Op::Join {
                version,
                member,
                instance: if version >= 5 { instance } else { None },
                protocols,
                session,
            }),
        3 => (0usize..6, instance.clone(), -1i32..4, any::<bool>())
            .prop_map(|(member, instance, generation, assign)| Op::Sync { member, instance, generation, assign }),
        3 => (0usize..6, instance.clone(), -1i32..4)
            .prop_map(|(member, instance, generation)| Op::Heartbeat { member, instance, generation }),
        1 => (0i16..=5, 0usize..6, instance.clone())
            .prop_map(|(version, member, instance)| Op::Leave { version, member, instance }),
        1 => (2i16..=10, 0usize..6, instance, -1i32..4)
            .prop_map(|(version, member, instance, generation)| Op::Commit { version, member, instance, generation }),
        1 => Just(Op::Describe),
        1 => Just(Op::FailNextWrite),
        3 => prop_oneof![Just(100i64), Just(1000), Just(3000), Just(6000), Just(300_000)].prop_map(Op::Sleep),
    ]
}

/// Member slot 0 is "no member id"; the others name ids the shard handed out (or stale ones).
fn member_id(known: &[String], slot: usize) -> String {
    if slot == 0 {
        String::new()
    } else {
        known
            .get(slot - 1)
            .cloned()
            .unwrap_or_else(|| format!("stale-{slot}"))
    }
}

fn run(ops: Vec<Op>) {
    let mut ctx = TestContext::new().with_topics(&[("foo", 2)]);
    let mut known: Vec<String> = Vec::new();
    let names = [
        ["range"].as_slice(),
        &["roundrobin"],
        &["range", "roundrobin"],
    ];
    for op in ops {
        let instance_of = |i: Option<usize>| i.map(|i| format!("instance-{i}"));
        match op {
            Op::Join {
                version,
                member,
                instance,
                protocols,
                session,
            } => {
                let mut request: JoinGroupRequest = join_request()
                    .member(&member_id(&known, member))
                    .protocols(names[protocols])
                    .session(session)
                    .rebalance(10000)
                    .build();
                request.group_instance_id = instance_of(instance).as_deref().map(sb);
                let sent = ctx.join_v(request, version);
                if let Some(r) = ctx.join_response(&sent)
                    && !r.member_id.is_empty()
                    && !known.contains(&r.member_id.to_string())
                {
                    known.push(r.member_id.to_string());
                }
            }
            Op::Sync {
                member,
                instance,
                generation,
                assign,
            } => {
                let id = member_id(&known, member);
                let assignments = if assign {
                    known.iter().map(|m| assignment(m, &[1])).collect()
                } else {
                    Vec::new()
                };
                let request = sync_request(&id, generation)
                    .with_group_instance_id(instance_of(instance).as_deref().map(sb))
                    .with_assignments(assignments);
                ctx.sync(request);
            }
            Op::Heartbeat {
                member,
                instance,
                generation,
            } => {
                let id = member_id(&known, member);
                ctx.heartbeat(
                    heartbeat_request(&id, generation)
                        .with_group_instance_id(instance_of(instance).as_deref().map(sb)),
                );
            }
            Op::Leave {
                version,
                member,
                instance,
            } => {
                let id = member_id(&known, member);
                let request = if version >= 3 {
                    leave_request(vec![leave_member(&id, instance_of(instance).as_deref())])
                } else {
                    protocol::messages::LeaveGroupRequest::default()
                        .with_group_id(sb(GROUP).into())
                        .with_member_id(sb(&id))
                };
                ctx.send(version, request);
            }
            Op::Commit {
                version,
                member,
                instance,
                generation,
            } => {
                let id = member_id(&known, member);
                let instance = if version >= 7 {
                    instance_of(instance)
                } else {
                    None
                };
                ctx.commit(
                    version,
                    commit_request(GROUP, &id, instance.as_deref(), generation, "foo", 0, 1),
                );
            }
            Op::Describe => {
                ctx.describe(6, &[GROUP]);
            }
            Op::FailNextWrite => ctx
                .shard
                .classic
                .fail_next_write(ErrorCode::NotLeaderOrFollower),
            Op::Sleep(ms) => {
                ctx.sleep(ms);
            }
        }
    }
    // Everything parked is answered when the coordinator unloads; nothing is answered twice.
    let parked: Vec<_> = ctx.shard.on_unloaded();
    let mut tokens: Vec<_> = parked.iter().map(|r| r.token).collect();
    tokens.sort();
    tokens.dedup();
    assert_eq!(tokens.len(), parked.len());
    assert!(tokens.iter().all(|t| !ctx.answers.contains_key(t)));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1024, ..ProptestConfig::default() })]

    #[test]
    fn random_classic_traffic_keeps_the_invariants(ops in proptest::collection::vec(op(), 1..60)) {
        run(ops);
    }
}

//! Classic groups through `Shard::handle`, at 10/100/1000 static members:
//! * `rebalance/<n>`: n static members join an empty group (JoinGroup v9, no member id), the initial
//!   delay passes, the leader syncs an assignment for everyone and the followers sync; one iteration
//!   is the whole rebalance on a fresh shard;
//! * `replace/<n>`: in a Stable group of n static members, one member restarts (JoinGroup v9 without
//!   member id: a replacement without rebalance, which writes the whole group) and syncs; one iteration
//!   is one restart.
//!
//! `cargo bench -p coordinator --bench classic`; medians are in
//! target/criterion/classic/<rebalance|replace>/<n>/new/estimates.json.

use std::time::Duration;

use bytes::Bytes;
use coordinator::{RequestContext, RequestToken, Shard};
use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use protocol::Response;
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use protocol::messages::{JoinGroupRequest, StrBytes, SyncGroupRequest};

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

fn join(instance: &str) -> JoinGroupRequest {
    JoinGroupRequest::default()
        .with_group_id(sb("g").into())
        .with_member_id(sb(""))
        .with_group_instance_id(Some(sb(instance)))
        .with_session_timeout_ms(45_000)
        .with_rebalance_timeout_ms(300_000)
        .with_protocol_type(sb("consumer"))
        .with_protocols(vec![
            JoinGroupRequestProtocol::default()
                .with_name(sb("range"))
                .with_metadata(Bytes::from_static(&[
                    0, 3, 0, 0, 0, 1, 0, 3, b'f', b'o', b'o',
                ])),
        ])
}

fn sync(
    member: &str,
    generation: i32,
    assignments: Vec<SyncGroupRequestAssignment>,
) -> SyncGroupRequest {
    SyncGroupRequest::default()
        .with_group_id(sb("g").into())
        .with_member_id(sb(member))
        .with_generation_id(generation)
        .with_protocol_type(Some(sb("consumer")))
        .with_protocol_name(Some(sb("range")))
        .with_assignments(assignments)
}

struct Driver {
    shard: Shard,
    token: u64,
}

impl Driver {
    fn send(
        &mut self,
        version: i16,
        request: impl Into<protocol::Request>,
    ) -> Vec<(RequestToken, Response)> {
        self.token += 1;
        let ctx = RequestContext::new("client", "/127.0.0.1", version);
        let outcome = self
            .shard
            .handle(RequestToken(self.token), &ctx, &request.into(), 0)
            .expect("coordinator api");
        outcome
            .replies
            .into_iter()
            .map(|r| (r.token, r.response))
            .collect()
    }
}

/// Runs a full rebalance of `n` static members; returns the driver and the member ids.
fn rebalance(n: usize) -> (Driver, Vec<String>) {
    let mut d = Driver {
        shard: Shard::default(),
        token: 0,
    };
    for i in 0..n {
        d.send(9, join(&format!("instance-{i}")));
    }
    let mut joined = Vec::new();
    // The initial delay (3 s) is extended once while members keep arriving.
    for fired in d.shard.expire(6000) {
        for r in fired.outcome.replies {
            if let Response::JoinGroup(j) = r.response {
                joined.push(j);
            }
        }
    }
    let ids: Vec<String> = joined.iter().map(|j| j.member_id.to_string()).collect();
    let leader = joined
        .iter()
        .find(|j| j.leader == j.member_id)
        .expect("a leader");
    let assignments = leader
        .members
        .iter()
        .map(|m| {
            SyncGroupRequestAssignment::default()
                .with_member_id(m.member_id.clone())
                .with_assignment(Bytes::from_static(&[0, 0, 0, 0]))
        })
        .collect();
    let generation = leader.generation_id;
    d.send(5, sync(&leader.member_id, generation, assignments));
    for id in &ids {
        d.send(5, sync(id, generation, Vec::new()));
    }
    (d, ids)
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("classic");
    group.measurement_time(Duration::from_secs(3));
    group.sample_size(20);
    for n in [10usize, 100, 1000] {
        group.bench_with_input(BenchmarkId::new("rebalance", n), &n, |b, &n| {
            b.iter(|| std::hint::black_box(rebalance(n)));
        });
        let (mut d, _) = rebalance(n);
        let mut next = 0usize;
        group.bench_with_input(BenchmarkId::new("replace", n), &n, |b, &n| {
            b.iter(|| {
                let instance = format!("instance-{}", next % n);
                next += 1;
                let replies = d.send(9, join(&instance));
                let Some((_, Response::JoinGroup(j))) = replies.into_iter().next() else {
                    panic!("the replacement is answered at once");
                };
                let replies = d.send(5, sync(&j.member_id, j.generation_id, Vec::new()));
                std::hint::black_box(replies);
            });
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

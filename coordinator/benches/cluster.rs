//! Wall time of simulated cluster runs (turmoil, 1 ms ticks, controller + 3 brokers + a client):
//! * `boot`: brokers register, unfence, `__consumer_offsets` (3 partitions, RF 3) is created and
//!   every coordinator loads (~0.5 s simulated);
//! * `failover`: boot, a streams member joins, the coordinator's broker crashes, the controller
//!   fences it (9-10 s later) and the member continues on the new coordinator (~13 s simulated).
//!
//! `cargo bench -p coordinator --bench cluster`

#[path = "../tests/cluster_support/mod.rs"]
mod cluster_support;

use std::time::Duration;

use cluster_support::*;
use criterion::{Criterion, criterion_group, criterion_main};
use protocol::Response;
use protocol::messages::streams_group_heartbeat_request as sreq;
use protocol::messages::{
    FindCoordinatorRequest, GroupId, StrBytes, StreamsGroupHeartbeatRequest, TopicName,
};

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

async fn coordinator_of(host: &str, group: &str) -> i32 {
    loop {
        if let Ok(Response::FindCoordinator(r)) = client(host)
            .call(
                FindCoordinatorRequest::default().with_key(s(group)).into(),
                3,
                5_000,
            )
            .await
            && r.error_code == 0
        {
            return r.node_id.0;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

fn join(member: &str) -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("app")))
        .with_member_id(s(member))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(30_000)
        .with_process_id(Some(s(member)))
        .with_topology(Some(sreq::Topology::default().with_subtopologies(vec![
            sreq::Subtopology::default()
                .with_subtopology_id(s("0"))
                .with_source_topics(vec![TopicName(s("__consumer_offsets"))]),
        ])))
        .with_active_tasks(Some(Vec::new()))
        .with_standby_tasks(Some(Vec::new()))
        .with_warmup_tasks(Some(Vec::new()))
}

fn run(crash: bool) {
    let mut cluster = Cluster::new(ClusterSpec::new(3, 3, 3), 120);
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let leader = coordinator_of("broker-1", "app").await;
        if crash {
            let _ = client(&broker_host(leader))
                .call(join("m").into(), 0, 5_000)
                .await;
            control.ask(Action::Crash(broker_host(leader)));
            let survivor = broker_host(if leader == 1 { 2 } else { 1 });
            while coordinator_of(&survivor, "app").await == leader {
                tokio::time::sleep(Duration::from_millis(250)).await;
            }
        }
        Ok(())
    });
    cluster.run().unwrap();
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("cluster");
    g.sample_size(10);
    g.bench_function("boot", |b| b.iter(|| run(false)));
    g.bench_function("failover", |b| b.iter(|| run(true)));
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

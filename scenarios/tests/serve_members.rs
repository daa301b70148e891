//! regroup's own client models (the members crate) against the `regroup serve` binary over
//! loopback TCP: three static classic consumers share a topic, and one of them restarts without a
//! rebalance (KIP-345). Real time, every wait bounded.

mod serve_support;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::{Duration, Instant};

use members::classic::{Consumer, ConsumerConfig};
use members::observer::{ClientKind, Event, EventKind, EventLog, TopicPartition};
use protocol::net::TokioNet;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serve_support::Server;

const GROUP: &str = "members-app";

/// The last owned-partitions snapshot and generation of every consumer.
fn owned(events: &[Event]) -> BTreeMap<String, (i32, BTreeSet<TopicPartition>)> {
    let mut map = BTreeMap::new();
    for e in events {
        if e.client.kind != ClientKind::Consumer {
            continue;
        }
        if let EventKind::OwnedPartitions {
            generation,
            partitions,
        } = &e.kind
        {
            map.insert(
                e.client.name.clone(),
                (*generation, partitions.iter().cloned().collect()),
            );
        }
    }
    map
}

/// Waits until `n` consumers own disjoint sets covering `orders6` in one generation.
async fn converged(log: &EventLog, names: &[&str], deadline: Instant) -> i32 {
    loop {
        let snapshot = owned(&log.events());
        let complete = names.iter().all(|n| snapshot.contains_key(*n));
        if complete {
            let generations: BTreeSet<i32> = names.iter().map(|n| snapshot[*n].0).collect();
            let all: Vec<&TopicPartition> =
                names.iter().flat_map(|n| snapshot[*n].1.iter()).collect();
            let distinct: BTreeSet<&TopicPartition> = all.iter().copied().collect();
            if generations.len() == 1 && all.len() == 6 && distinct.len() == 6 {
                return *generations.iter().next().unwrap();
            }
        }
        assert!(Instant::now() < deadline, "no convergence: {snapshot:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[test]
fn static_consumers_from_the_members_crate_share_a_topic_and_restart_without_a_rebalance() {
    let mut server = Server::start(&[
        "--topic",
        "orders6:6",
        "--config",
        "group.initial.rebalance.delay.ms=0",
    ]);
    let addr = server.addr.clone();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let local = tokio::task::LocalSet::new();
    local.block_on(&rt, async {
        let net = TokioNet::new(0);
        let log = EventLog::new();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let config = |i: usize| {
            let mut c = ConsumerConfig::new(GROUP, format!("consumer-{i}"), &["orders6"])
                .with_instance_id(format!("instance-{i}"));
            c.session_timeout_ms = 10_000;
            c.heartbeat_interval_ms = 500;
            c
        };
        let mut consumers: Vec<Option<Consumer>> = (0..3)
            .map(|i| {
                Some(Consumer::start(
                    net.clone(),
                    vec![addr.clone()],
                    config(i),
                    &format!("c{i}"),
                    &mut rng,
                    Rc::new(log.clone()),
                ))
            })
            .collect();
        let names = ["c0", "c1", "c2"];
        let generation = converged(&log, &names, Instant::now() + Duration::from_secs(30)).await;
        // c1 goes away without LeaveGroup (a static member's close) and comes back with the
        // same instance id: it gets its partitions back in the same generation.
        let before = owned(&log.events())["c1"].1.clone();
        consumers[1].take().unwrap().kill();
        tokio::time::sleep(Duration::from_millis(500)).await;
        let mark = log.events().len();
        consumers[1] = Some(Consumer::start(
            net.clone(),
            vec![addr.clone()],
            config(1),
            "c1",
            &mut rng,
            Rc::new(log.clone()),
        ));
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            // Only what the new incarnation reported counts.
            let snapshot = owned(&log.events()[mark..]);
            if let Some((g, parts)) = snapshot.get("c1")
                && *g == generation
                && *parts == before
            {
                break;
            }
            assert!(
                Instant::now() < deadline,
                "c1 did not come back: {snapshot:?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(
            converged(&log, &names, Instant::now() + Duration::from_secs(5)).await,
            generation
        );
        for c in consumers.into_iter().flatten() {
            c.kill();
        }
    });
    drop(local);
    drop(rt);
    let status = server.interrupt();
    assert!(status.success());
}

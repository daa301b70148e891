//! Consumer-protocol consumers (KIP-848) against the real coordinator shard, over the in-memory
//! transport.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use coordinator::config::ShardConfig;
use members::consumer::{AsyncConsumer, AsyncConsumerConfig};
use members::observer::{ClientKind, Event, EventKind, EventLog, TopicPartition};
use protocol::Request;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::{BROKER, Fabric, TestBroker, topics};
use tokio::task::LocalSet;

const GROUP: &str = "payments";

fn start(
    fabric: &Fabric,
    name: &str,
    config: AsyncConsumerConfig,
    rng: &mut ChaCha8Rng,
    log: &EventLog,
) -> AsyncConsumer {
    AsyncConsumer::start(
        fabric.host(name),
        vec![BROKER.to_string()],
        config,
        name,
        rng,
        Rc::new(log.clone()),
    )
}

/// The last owned-partitions snapshot of every consumer, by client name.
fn owned(events: &[Event]) -> BTreeMap<String, BTreeSet<TopicPartition>> {
    let mut map = BTreeMap::new();
    for e in events {
        if e.client.kind != ClientKind::AsyncConsumer {
            continue;
        }
        if let EventKind::OwnedPartitions { partitions, .. } = &e.kind {
            map.insert(e.client.name.clone(), partitions.iter().cloned().collect());
        }
    }
    map
}

fn group_epoch(broker: &TestBroker) -> i32 {
    broker.with_shard(|s| {
        s.consumer
            .group(GROUP)
            .map(|g| g.persistent.group_epoch)
            .unwrap_or(-1)
    })
}

/// The member epochs of the heartbeats the broker received (leaves are -1 or -2).
fn heartbeat_epochs(broker: &TestBroker) -> Vec<i32> {
    broker
        .log()
        .iter()
        .filter_map(|x| match &x.request {
            Request::ConsumerGroupHeartbeat(r) => Some(r.member_epoch),
            _ => None,
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn three_consumers_converge_then_one_leaves_and_the_others_take_its_partitions() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("orders", 6)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            let config = |i: usize| AsyncConsumerConfig::new(GROUP, format!("c-{i}"), &["orders"]);
            let mut consumers: Vec<Option<AsyncConsumer>> = (0..3)
                .map(|i| Some(start(&fabric, &format!("c{i}"), config(i), &mut rng, &log)))
                .collect();
            tokio::time::sleep(Duration::from_secs(30)).await;
            let before = owned(&log.events());
            assert_eq!(before.len(), 3, "{before:?}");
            assert!(before.values().all(|p| p.len() == 2), "{before:?}");
            let all: BTreeSet<&TopicPartition> = before.values().flatten().collect();
            assert_eq!(all.len(), 6);
            let epoch = group_epoch(&broker);
            assert!(epoch >= 2, "group epoch {epoch}");
            // Every member is STABLE at the group epoch.
            let stable: Vec<(String, i32)> = log
                .events()
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::EpochChanged { to, .. } => Some((e.client.name.clone(), to)),
                    _ => None,
                })
                .collect::<BTreeMap<_, _>>()
                .into_iter()
                .collect();
            assert!(stable.iter().all(|(_, e)| *e == epoch), "{stable:?}");

            // c2 closes: commit, revoke, leave with -1; the other two take 3 partitions each.
            let leaving_id = consumers[2].as_ref().unwrap().member_id().to_string();
            consumers[2].take().unwrap().close().await;
            tokio::time::sleep(Duration::from_secs(20)).await;
            let events = log.events();
            let after = owned(&events);
            assert!(after["c2"].is_empty());
            assert_eq!(after["c0"].len() + after["c1"].len(), 6, "{after:?}");
            assert_eq!((after["c0"].len(), after["c1"].len()), (3, 3));
            assert!(group_epoch(&broker) > epoch);
            assert!(heartbeat_epochs(&broker).contains(&-1));
            let leave = events
                .iter()
                .find(|e| matches!(e.kind, EventKind::LeaveSent { .. }))
                .expect("a leave");
            assert_eq!(
                (leave.member_id.as_str(), &leave.kind),
                (leaving_id.as_str(), &EventKind::LeaveSent { epoch: -1 })
            );
            // The leaving consumer committed before it revoked.
            let c2: Vec<&EventKind> = events
                .iter()
                .filter(|e| e.client.name == "c2")
                .map(|e| &e.kind)
                .collect();
            let committed = c2
                .iter()
                .rposition(|k| matches!(k, EventKind::CommitAccepted { .. }))
                .expect("a commit");
            let revoked = c2
                .iter()
                .rposition(|k| matches!(k, EventKind::PartitionsRevoked { .. }))
                .expect("a revocation");
            assert!(committed < revoked);
            for c in consumers.into_iter().flatten() {
                c.close().await;
            }
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_static_member_closes_with_epoch_minus_two_and_returns_to_its_partitions() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("orders", 4)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(8);
            let config = |i: usize| {
                AsyncConsumerConfig::new(GROUP, format!("c-{i}"), &["orders"])
                    .with_instance_id(format!("instance-{i}"))
            };
            let mut consumers: Vec<Option<AsyncConsumer>> = (0..2)
                .map(|i| Some(start(&fabric, &format!("c{i}"), config(i), &mut rng, &log)))
                .collect();
            tokio::time::sleep(Duration::from_secs(20)).await;
            let before = owned(&log.events());
            let epoch = group_epoch(&broker);
            consumers[1].take().unwrap().close().await;
            assert_eq!(heartbeat_epochs(&broker).last(), Some(&-2));
            tokio::time::sleep(Duration::from_secs(5)).await;
            consumers[1] = Some(start(&fabric, "c1", config(1), &mut rng, &log));
            tokio::time::sleep(Duration::from_secs(20)).await;
            let after = owned(&log.events());
            assert_eq!(after, before, "each owns what it owned before");
            assert_eq!(group_epoch(&broker), epoch, "no new group epoch");
            for c in consumers.into_iter().flatten() {
                c.close().await;
            }
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_consumer_past_its_poll_timeout_leaves_goes_stale_and_rejoins_when_it_polls_again() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("orders", 4)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            let config = |i: usize| {
                let mut c = AsyncConsumerConfig::new(GROUP, format!("c-{i}"), &["orders"]);
                c.max_poll_interval_ms = 10_000;
                c
            };
            let consumers: Vec<AsyncConsumer> = (0..2)
                .map(|i| start(&fabric, &format!("c{i}"), config(i), &mut rng, &log))
                .collect();
            tokio::time::sleep(Duration::from_secs(20)).await;
            let member_id = consumers[1].member_id().to_string();
            let epoch = group_epoch(&broker);
            consumers[1].stall_poll(true);
            tokio::time::sleep(Duration::from_secs(15)).await;
            // Past max.poll.interval.ms the background thread left (-1) and the member is STALE;
            // the other consumer took every partition.
            assert!(heartbeat_epochs(&broker).contains(&-1));
            let states: Vec<&str> = log
                .events()
                .iter()
                .filter(|e| e.client.name == "c1")
                .filter_map(|e| match e.kind {
                    EventKind::StateChanged { to, .. } => Some(to),
                    _ => None,
                })
                .collect();
            assert_eq!(states.last(), Some(&"STALE"), "{states:?}");
            assert_eq!(owned(&log.events())["c0"].len(), 4);
            assert!(group_epoch(&broker) > epoch);
            // The next poll rejoins with epoch 0 and the same member id; the lost partitions are
            // dropped first and the group is balanced again.
            consumers[1].stall_poll(false);
            tokio::time::sleep(Duration::from_secs(15)).await;
            let events = log.events();
            let after = owned(&events);
            assert_eq!((after["c0"].len(), after["c1"].len()), (2, 2), "{after:?}");
            let c1: Vec<&Event> = events.iter().filter(|e| e.client.name == "c1").collect();
            assert!(c1.iter().all(|e| e.member_id == member_id));
            assert!(
                c1.iter()
                    .any(|e| matches!(e.kind, EventKind::PartitionsLost { .. }))
            );
            assert!(c1.iter().any(|e| matches!(
                e.kind,
                EventKind::StateChanged {
                    from: "STALE",
                    to: "JOINING"
                }
            )));
            for c in consumers {
                c.close().await;
            }
        })
        .await;
}

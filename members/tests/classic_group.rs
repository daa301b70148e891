//! Classic consumers against the real coordinator shard, over the in-memory transport.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use coordinator::config::ShardConfig;
use members::classic::{Assignor, Consumer, ConsumerConfig};
use members::observer::{ClientKind, Event, EventKind, EventLog, TopicPartition};
use protocol::ErrorCode;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::{BROKER, Fabric, TestBroker, topics};
use tokio::task::LocalSet;

const GROUP: &str = "orders-app";

fn start(
    fabric: &Fabric,
    name: &str,
    config: ConsumerConfig,
    rng: &mut ChaCha8Rng,
    log: &EventLog,
) -> Consumer {
    Consumer::start(
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
        if e.client.kind != ClientKind::Consumer {
            continue;
        }
        if let EventKind::OwnedPartitions { partitions, .. } = &e.kind {
            map.insert(e.client.name.clone(), partitions.iter().cloned().collect());
        }
    }
    map
}

fn generation(broker: &TestBroker) -> i32 {
    broker.with_shard(|s| {
        s.classic
            .get(GROUP)
            .map(|g| g.generation_id())
            .unwrap_or(-1)
    })
}

async fn broker(fabric: &Fabric) -> TestBroker {
    TestBroker::start(
        fabric.host("broker-0"),
        BROKER,
        ShardConfig::default(),
        topics(&[("orders", 6)]),
    )
    .await
}

#[tokio::test(start_paused = true)]
async fn static_group_of_three_bounces_one_member_without_a_generation_bump() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = broker(&fabric).await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let config = |i: usize| {
                ConsumerConfig::new(GROUP, format!("consumer-{i}"), &["orders"])
                    .with_instance_id(format!("instance-{i}"))
            };
            let mut consumers: Vec<Option<Consumer>> = (0..3)
                .map(|i| Some(start(&fabric, &format!("c{i}"), config(i), &mut rng, &log)))
                .collect();
            tokio::time::sleep(Duration::from_secs(30)).await;
            let before = owned(&log.events());
            let all: BTreeSet<TopicPartition> = before.values().flatten().cloned().collect();
            assert_eq!(all.len(), 6);
            assert!(before.values().all(|p| p.len() == 2), "{before:?}");
            let generation_before = generation(&broker);
            assert!(generation_before >= 1);

            // c1 closes (a static member sends no LeaveGroup) and comes back 10 s later.
            let mark = log.len();
            consumers[1].take().unwrap().close().await;
            tokio::time::sleep(Duration::from_secs(10)).await;
            consumers[1] = Some(start(&fabric, "c1", config(1), &mut rng, &log));
            tokio::time::sleep(Duration::from_secs(20)).await;

            let events = log.events();
            let after_mark = &events[mark..];
            if std::env::var("DUMP").is_ok() {
                for e in after_mark {
                    println!(
                        "{} {} {:?}",
                        e.at_ms - 1_700_000_000_000,
                        e.client.name,
                        e.kind
                    );
                }
            }
            let leave_groups = broker
                .log()
                .iter()
                .filter(|x| matches!(x.request, protocol::Request::LeaveGroup(_)))
                .count();
            assert_eq!(leave_groups, 0, "static members never send LeaveGroup");
            assert_eq!(generation(&broker), generation_before, "no generation bump");
            assert_eq!(owned(&events), before, "everyone owns what it owned before");
            // The other two members never rebalanced.
            let disturbed: Vec<&Event> = after_mark
                .iter()
                .filter(|e| e.client.name != "c1")
                .filter(|e| {
                    matches!(
                        e.kind,
                        EventKind::PartitionsRevoked { .. }
                            | EventKind::PartitionsLost { .. }
                            | EventKind::Joined { .. }
                    )
                })
                .collect();
            assert!(disturbed.is_empty(), "{disturbed:?}");
            // The new incarnation joined the current generation under a new member id.
            let rejoin: Vec<i32> = after_mark
                .iter()
                .filter(|e| e.client.name == "c1")
                .filter_map(|e| match e.kind {
                    EventKind::Joined { epoch } => Some(epoch),
                    _ => None,
                })
                .collect();
            assert_eq!(rejoin, vec![generation_before]);
            for c in consumers.into_iter().flatten() {
                c.close().await;
            }
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_second_consumer_with_the_same_instance_id_fences_the_first() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = broker(&fabric).await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(5);
            let config = |client: &str| {
                ConsumerConfig::new(GROUP, client, &["orders"])
                    .with_instance_id("instance-dup")
                    .with_assignors(&[Assignor::RoundRobin, Assignor::Range])
            };
            let first = start(&fabric, "first", config("first"), &mut rng, &log);
            tokio::time::sleep(Duration::from_secs(10)).await;
            let second = start(&fabric, "second", config("second"), &mut rng, &log);
            tokio::time::sleep(Duration::from_secs(20)).await;

            let events = log.events();
            if std::env::var("DUMP").is_ok() {
                for e in &events {
                    println!(
                        "{} {} {:?}",
                        e.at_ms - 1_700_000_000_000,
                        e.client.name,
                        e.kind
                    );
                }
            }
            let fatal: Vec<(String, Option<ErrorCode>)> = events
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Fatal { error, .. } => Some((e.client.name.clone(), *error)),
                    _ => None,
                })
                .collect();
            assert_eq!(
                fatal,
                vec![("first".to_string(), Some(ErrorCode::FencedInstanceId))]
            );
            assert!(first.is_finished());
            assert!(!second.is_finished());
            let owned = owned(&events);
            assert_eq!(owned["first"], BTreeSet::new());
            assert_eq!(owned["second"].len(), 6);
            broker.with_shard(|s| {
                let g = s.classic.get(GROUP).unwrap();
                assert_eq!(g.members().count(), 1);
            });
            second.close().await;
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn admin_describes_removes_a_static_member_and_deletes_the_group() {
    use members::admin::{Admin, AdminConfig, AdminError, MemberRemoval};
    use members::classic::protocol::decode_assignment;
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let _broker = broker(&fabric).await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let config = |i: usize| {
                ConsumerConfig::new(GROUP, format!("consumer-{i}"), &["orders"])
                    .with_instance_id(format!("instance-{i}"))
            };
            let consumers: Vec<Consumer> = (0..2)
                .map(|i| start(&fabric, &format!("c{i}"), config(i), &mut rng, &log))
                .collect();
            tokio::time::sleep(Duration::from_secs(10)).await;
            let admin = Admin::new(
                fabric.host("admin"),
                vec![BROKER.to_string()],
                AdminConfig::new("admin-1"),
                "admin",
                &mut rng,
                Rc::new(log.clone()),
            );
            let described = admin.describe_classic_group(GROUP).await.unwrap();
            assert_eq!(described.group_state.as_str(), "Stable");
            assert_eq!(described.protocol_type.as_str(), "consumer");
            assert_eq!(described.protocol_data.as_str(), "range");
            let mut instances: Vec<String> = described
                .members
                .iter()
                .map(|m| m.group_instance_id.as_ref().unwrap().to_string())
                .collect();
            instances.sort();
            assert_eq!(instances, vec!["instance-0", "instance-1"]);
            let assigned: usize = described
                .members
                .iter()
                .map(|m| decode_assignment(&m.member_assignment).unwrap().len())
                .sum();
            assert_eq!(assigned, 6);

            // A group with members cannot be deleted.
            assert_eq!(
                admin.delete_group(GROUP).await.unwrap(),
                ErrorCode::NonEmptyGroup
            );
            // Close both (static: no LeaveGroup), then remove them by instance id.
            for c in consumers {
                c.close().await;
            }
            let removed = admin
                .remove_static_members(GROUP, &["instance-0", "instance-1", "instance-9"])
                .await
                .unwrap();
            assert_eq!(
                removed,
                vec![
                    MemberRemoval {
                        instance_id: "instance-0".into(),
                        error: ErrorCode::None
                    },
                    MemberRemoval {
                        instance_id: "instance-1".into(),
                        error: ErrorCode::None
                    },
                    MemberRemoval {
                        instance_id: "instance-9".into(),
                        error: ErrorCode::UnknownMemberId
                    },
                ]
            );
            let described = admin.describe_classic_group(GROUP).await.unwrap();
            assert_eq!(described.group_state.as_str(), "Empty");
            assert!(described.members.is_empty());
            assert_eq!(admin.delete_group(GROUP).await.unwrap(), ErrorCode::None);
            assert_eq!(
                admin.delete_group(GROUP).await.unwrap(),
                ErrorCode::GroupIdNotFound
            );
            let missing = admin.describe_streams_group("no-such-group").await;
            assert!(
                matches!(
                    missing,
                    Err(AdminError::Error(ErrorCode::GroupIdNotFound, _))
                ),
                "{missing:?}"
            );
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn admin_lists_groups_and_fetches_deletes_and_alters_offsets() {
    use members::admin::{Admin, AdminConfig, ListedGroup, OffsetDeletion};
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let _broker = broker(&fabric).await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            let consumer = start(
                &fabric,
                "c0",
                ConsumerConfig::new(GROUP, "consumer-0", &["orders"]),
                &mut rng,
                &log,
            );
            tokio::time::sleep(Duration::from_secs(10)).await;
            let admin = Admin::new(
                fabric.host("admin"),
                vec![BROKER.to_string()],
                AdminConfig::new("admin-1"),
                "admin",
                &mut rng,
                Rc::new(log.clone()),
            );
            let listed = |state: &str, protocol_type: &str, group: &str| ListedGroup {
                group_id: group.into(),
                group_type: "classic".into(),
                protocol_type: protocol_type.into(),
                state: state.into(),
            };
            assert_eq!(
                admin.list_groups().await.unwrap(),
                vec![listed("Stable", "consumer", GROUP)]
            );
            let tp = |p: i32| TopicPartition::new("orders", p);
            // A live group: its topic is subscribed, and offsets cannot be altered.
            assert_eq!(
                admin.delete_offsets(GROUP, "orders", &[0]).await.unwrap(),
                OffsetDeletion {
                    error: ErrorCode::None,
                    partitions: vec![(tp(0), ErrorCode::GroupSubscribedToTopic)],
                }
            );
            assert_eq!(
                admin.alter_offsets(GROUP, &[(tp(1), 5)]).await.unwrap(),
                vec![(tp(1), ErrorCode::UnknownMemberId)]
            );
            // The dynamic consumer leaves: the empty group takes everything.
            consumer.close().await;
            let committed = admin.fetch_offsets(GROUP).await.unwrap();
            assert_eq!(committed.len(), 6, "{committed:?}");
            assert_eq!(
                admin.alter_offsets(GROUP, &[(tp(1), 5)]).await.unwrap(),
                vec![(tp(1), ErrorCode::None)]
            );
            assert_eq!(
                admin.delete_offsets(GROUP, "orders", &[0]).await.unwrap(),
                OffsetDeletion {
                    error: ErrorCode::None,
                    partitions: vec![(tp(0), ErrorCode::None)],
                }
            );
            let mut expected = committed.clone();
            expected.remove(&tp(0));
            expected.insert(tp(1), 5);
            assert_eq!(admin.fetch_offsets(GROUP).await.unwrap(), expected);
            // Offsets altered for a group nobody joined make a "simple" group.
            assert_eq!(
                admin.alter_offsets("audit", &[(tp(2), 9)]).await.unwrap(),
                vec![(tp(2), ErrorCode::None)]
            );
            assert_eq!(
                admin.list_groups().await.unwrap(),
                vec![
                    listed("Empty", "", "audit"),
                    listed("Empty", "consumer", GROUP)
                ]
            );
            // An unknown group: OffsetDelete's group-level error.
            assert_eq!(
                admin
                    .delete_offsets("nobody", "orders", &[0])
                    .await
                    .unwrap(),
                OffsetDeletion {
                    error: ErrorCode::GroupIdNotFound,
                    partitions: vec![],
                }
            );
            assert!(admin.fetch_offsets("nobody").await.unwrap().is_empty());
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn dynamic_members_rebalance_on_join_and_leave() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = broker(&fabric).await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(13);
            let config = |i: usize| {
                ConsumerConfig::new(GROUP, format!("consumer-{i}"), &["orders"])
                    .with_assignors(&[Assignor::RoundRobin])
            };
            let c0 = start(&fabric, "c0", config(0), &mut rng, &log);
            tokio::time::sleep(Duration::from_secs(10)).await;
            assert_eq!(owned(&log.events())["c0"].len(), 6);
            let c1 = start(&fabric, "c1", config(1), &mut rng, &log);
            tokio::time::sleep(Duration::from_secs(15)).await;
            let events = log.events();
            let now = owned(&events);
            assert_eq!(now["c0"].len(), 3, "{now:?}");
            assert_eq!(now["c1"].len(), 3, "{now:?}");
            assert!(now["c0"].is_disjoint(&now["c1"]));
            // The newcomer made c0 rebalance: it committed, revoked everything (eager) and rejoined.
            let c0_kinds: Vec<&str> = events
                .iter()
                .filter(|e| e.client.name == "c0")
                .filter_map(|e| match e.kind {
                    EventKind::PartitionsRevoked { .. } => Some("revoked"),
                    EventKind::Joined { .. } => Some("joined"),
                    _ => None,
                })
                .collect();
            assert_eq!(c0_kinds, vec!["joined", "revoked", "joined"]);
            let generation_two = generation(&broker);
            assert_eq!(generation_two, 2);
            // Both joined with the two-step join: a MEMBER_ID_REQUIRED answer first.
            let member_id_required = events
                .iter()
                .filter(|e| {
                    matches!(
                        e.kind,
                        EventKind::ResponseReceived {
                            api: protocol::Api::JoinGroup,
                            error: Some(ErrorCode::MemberIdRequired),
                            ..
                        }
                    )
                })
                .count();
            assert_eq!(member_id_required, 2);
            // c1 leaves with LeaveGroup; c0 takes everything back in generation 3.
            c1.close().await;
            tokio::time::sleep(Duration::from_secs(10)).await;
            assert_eq!(owned(&log.events())["c0"].len(), 6);
            assert_eq!(generation(&broker), 3);
            let leaves = broker
                .log()
                .iter()
                .filter(|x| matches!(x.request, protocol::Request::LeaveGroup(_)))
                .count();
            assert_eq!(leaves, 1);
            c0.close().await;
        })
        .await;
}

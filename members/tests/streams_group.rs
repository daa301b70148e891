//! Streams processes against the real coordinator shard, over the in-memory transport.

mod support;

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use coordinator::config::ShardConfig;
use members::observer::{ClientKind, Event, EventKind, EventLog, TaskId};
use members::streams::{
    InternalTopic, StateDirectory, StreamsConfig, StreamsProcess, Subtopology, Topology,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::{BROKER, Fabric, TestBroker, topics};
use tokio::task::LocalSet;

const APP: &str = "wordcount";

fn topology() -> Topology {
    Topology::new(vec![
        Subtopology::new("0", &["input"]).with_repartition_sink("wordcount-repartition"),
        Subtopology::new("1", &[])
            .with_repartition_source(InternalTopic::new("wordcount-repartition"))
            .with_changelog(InternalTopic::new("wordcount-store-changelog")),
    ])
}

fn all_tasks(partitions: i32) -> BTreeSet<TaskId> {
    (0..partitions)
        .flat_map(|p| [TaskId::new("0", p), TaskId::new("1", p)])
        .collect()
}

/// The last `OwnedTasks` snapshot of every streams member that has not stopped.
fn owned_active(events: &[Event]) -> BTreeMap<String, BTreeSet<TaskId>> {
    let mut owned = BTreeMap::new();
    for e in events {
        if e.client.kind != ClientKind::StreamsMember {
            continue;
        }
        match &e.kind {
            EventKind::OwnedTasks { active, .. } => {
                owned.insert(e.client.name.clone(), active.iter().cloned().collect());
            }
            EventKind::Stopped { .. } => {
                owned.remove(&e.client.name);
            }
            _ => {}
        }
    }
    owned
}

fn start(
    fabric: &Fabric,
    name: &str,
    config: StreamsConfig,
    dir: StateDirectory,
    rng: &mut ChaCha8Rng,
    log: &EventLog,
) -> StreamsProcess {
    StreamsProcess::start(
        fabric.host(name),
        vec![BROKER.to_string()],
        config,
        dir,
        name,
        rng,
        Rc::new(log.clone()),
    )
}

#[tokio::test(start_paused = true)]
async fn three_processes_of_two_threads_converge_with_one_owner_per_task() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("input", 6)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(42);
            let mut processes = Vec::new();
            for i in 0..3 {
                let dir = StateDirectory::new(&mut rng);
                let config = StreamsConfig::new(APP, topology()).with_threads(2);
                processes.push(start(
                    &fabric,
                    &format!("p{i}"),
                    config,
                    dir,
                    &mut rng,
                    &log,
                ));
            }
            tokio::time::sleep(Duration::from_secs(60)).await;

            let events = log.events();
            if std::env::var("DUMP").is_ok() {
                for e in &events {
                    if e.client.name == "p0/StreamThread-1" {
                        println!("{} {:?}", e.at_ms - 1_700_000_000_000, e.kind);
                    }
                }
            }
            let owned = owned_active(&events);
            assert_eq!(owned.len(), 6, "six member threads own tasks: {owned:?}");
            let mut owners: BTreeMap<TaskId, Vec<String>> = BTreeMap::new();
            for (member, tasks) in &owned {
                assert_eq!(tasks.len(), 2, "{member} owns {tasks:?}");
                for t in tasks {
                    owners.entry(t.clone()).or_default().push(member.clone());
                }
            }
            assert_eq!(
                owners.keys().cloned().collect::<BTreeSet<_>>(),
                all_tasks(6)
            );
            for (task, who) in &owners {
                assert_eq!(who.len(), 1, "{task} has owners {who:?}");
            }
            // Every member joined and is stable at the group's epoch.
            let group_epoch =
                broker.with_shard(|s| s.streams.group(APP).map(|g| g.group_epoch()).unwrap_or(-1));
            assert!(group_epoch > 0);
            let joined = events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::Joined { .. }))
                .count();
            assert_eq!(joined, 6);
            // Commits went through with the members' epochs.
            let accepted = events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::CommitAccepted { .. }))
                .count();
            assert!(accepted >= 6, "{accepted} commits accepted");
            let rejected: Vec<&Event> = events
                .iter()
                .filter(|e| matches!(e.kind, EventKind::CommitRejected { .. }))
                .collect();
            assert!(rejected.is_empty(), "{rejected:?}");
            // The admin view agrees.
            let admin = members::admin::Admin::new(
                fabric.host("admin"),
                vec![BROKER.to_string()],
                members::admin::AdminConfig::new("admin"),
                "admin",
                &mut rng,
                Rc::new(log.clone()),
            );
            let described = admin.describe_streams_group(APP).await.unwrap();
            assert_eq!(described.group_state.as_str(), "Stable");
            assert_eq!(described.group_epoch, group_epoch);
            assert_eq!(described.assignment_epoch, group_epoch);
            assert_eq!(described.members.len(), 6);
            let process_ids: BTreeSet<String> = described
                .members
                .iter()
                .map(|m| m.process_id.to_string())
                .collect();
            let expected: BTreeSet<String> = processes.iter().map(|p| p.process_id()).collect();
            assert_eq!(process_ids, expected);
            for m in &described.members {
                assert_eq!(m.member_epoch, group_epoch);
                assert_eq!(
                    m.assignment
                        .active_tasks
                        .iter()
                        .map(|t| t.partitions.len())
                        .sum::<usize>(),
                    2
                );
            }
            for p in processes {
                p.stop().await;
            }
        })
        .await;
}

/// Active tasks per instance id, from the last snapshots.
fn owned_by_instance(events: &[Event]) -> BTreeMap<String, BTreeSet<TaskId>> {
    let mut owned = BTreeMap::new();
    for e in events {
        let Some(instance) = &e.client.instance_id else {
            continue;
        };
        match &e.kind {
            EventKind::OwnedTasks { active, .. } => {
                owned.insert(instance.clone(), active.iter().cloned().collect());
            }
            EventKind::Stopped { .. } => {
                owned.remove(instance);
            }
            _ => {}
        }
    }
    owned
}

fn group_epoch(broker: &TestBroker) -> i32 {
    broker.with_shard(|s| s.streams.group(APP).map(|g| g.group_epoch()).unwrap_or(-1))
}

#[tokio::test(start_paused = true)]
async fn static_process_restart_within_session_timeout_keeps_tasks_without_epoch_bump() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("input", 6)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(7);
            let config = |i: usize| {
                StreamsConfig::new(APP, topology())
                    .with_threads(2)
                    .with_instance_id(format!("instance-{i}"))
            };
            let mut processes = Vec::new();
            let mut dirs = Vec::new();
            for i in 0..3 {
                let dir = StateDirectory::new(&mut rng);
                dirs.push(dir.clone());
                processes.push(Some(start(
                    &fabric,
                    &format!("p{i}"),
                    config(i),
                    dir,
                    &mut rng,
                    &log,
                )));
            }
            tokio::time::sleep(Duration::from_secs(60)).await;
            let before = owned_by_instance(&log.events());
            assert_eq!(before.len(), 6);
            let epoch_before = group_epoch(&broker);
            let old_ids = processes[1].as_ref().unwrap().member_ids();

            // Bounce p1: a clean close (commit, then leave with epoch -2), restart 10 s later
            // with the same state directory and instance ids.
            let p1 = processes[1].take().unwrap();
            let dir = p1.stop().await;
            let leaves: Vec<i32> = log
                .events()
                .iter()
                .filter(|e| e.client.name.starts_with("p1/"))
                .filter_map(|e| match e.kind {
                    EventKind::LeaveSent { epoch } => Some(epoch),
                    _ => None,
                })
                .collect();
            assert_eq!(leaves, vec![-2, -2]);
            tokio::time::sleep(Duration::from_secs(10)).await;
            let restarted = start(&fabric, "p1", config(1), dir, &mut rng, &log);
            assert_eq!(restarted.process_id(), dirs[1].process_id());
            assert_ne!(
                restarted.member_ids(),
                old_ids,
                "new incarnations get new member ids"
            );
            processes[1] = Some(restarted);
            tokio::time::sleep(Duration::from_secs(30)).await;

            let after = owned_by_instance(&log.events());
            assert_eq!(
                after, before,
                "every instance owns the tasks it owned before"
            );
            assert_eq!(group_epoch(&broker), epoch_before, "no group epoch bump");
            let new_ids = processes[1].as_ref().unwrap().member_ids();
            broker.with_shard(|s| {
                let group = s.streams.group(APP).unwrap();
                for id in &new_ids {
                    let m = group.member(id).expect("replacement member");
                    assert_eq!(m.member_epoch, epoch_before);
                }
                for id in &old_ids {
                    assert!(group.member(id).is_none());
                }
            });
            for p in processes.into_iter().flatten() {
                p.stop().await;
            }
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn fenced_member_rejoins_and_its_late_commit_is_rejected() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("input", 4)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(11);
            let config = || {
                let mut c = StreamsConfig::new(APP, topology());
                c.commit_interval_ms = 10_000;
                c.default_api_timeout_ms = 300_000;
                c
            };
            let p0 = start(
                &fabric,
                "p0",
                config(),
                StateDirectory::new(&mut rng),
                &mut rng,
                &log,
            );
            let p1 = start(
                &fabric,
                "p1",
                config(),
                StateDirectory::new(&mut rng),
                &mut rng,
                &log,
            );
            tokio::time::sleep(Duration::from_secs(31)).await;
            let member = p1.member_ids()[0].clone();
            let epoch_before = broker.with_shard(|s| {
                s.streams
                    .group(APP)
                    .unwrap()
                    .member(&member)
                    .unwrap()
                    .member_epoch
            });
            let mark = log.len();

            // p1 is cut off for 60 s: longer than the 45 s session timeout, shorter than its
            // commit's retry budget. Its heartbeat and commit stall; the coordinator fences it.
            fabric.partition("p1");
            tokio::time::sleep(Duration::from_secs(60)).await;
            broker.with_shard(|s| {
                assert!(
                    s.streams.group(APP).unwrap().member(&member).is_none(),
                    "fenced by session timeout"
                );
            });
            fabric.heal("p1");
            tokio::time::sleep(Duration::from_secs(30)).await;

            let events = log.events();
            let after: Vec<&Event> = events[mark..]
                .iter()
                .filter(|e| e.client.name == "p1/StreamThread-1")
                .collect();
            if std::env::var("DUMP").is_ok() {
                for e in &after {
                    println!("{} {:?}", e.at_ms - 1_700_000_000_000, e.kind);
                }
            }
            let fenced: Vec<(protocol::ErrorCode, i32)> = after
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Fenced { error, epoch } => Some((error, epoch)),
                    _ => None,
                })
                .collect();
            assert_eq!(
                fenced[0],
                (protocol::ErrorCode::UnknownMemberId, epoch_before)
            );
            let rejected: Vec<(i32, protocol::ErrorCode)> = after
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::CommitRejected { epoch, error, .. } => Some((*epoch, *error)),
                    _ => None,
                })
                .collect();
            assert_eq!(
                rejected,
                vec![(epoch_before, protocol::ErrorCode::UnknownMemberId)]
            );
            // It rejoined with the same member id and owns tasks again.
            let rejoined = after
                .iter()
                .filter_map(|e| match e.kind {
                    EventKind::Joined { epoch } => Some((e.member_id.clone(), epoch)),
                    _ => None,
                })
                .next_back()
                .expect("rejoined");
            assert_eq!(rejoined.0, member);
            assert!(rejoined.1 > epoch_before);
            let owned = owned_active(&events);
            let mut all = BTreeSet::new();
            for tasks in owned.values() {
                assert_eq!(tasks.len(), 4);
                for t in tasks {
                    assert!(all.insert(t.clone()), "{t} owned twice");
                }
            }
            assert_eq!(all, all_tasks(4));
            p0.stop().await;
            p1.stop().await;
        })
        .await;
}

/// The debug form of every event of one run of a 2-process group with a restart.
async fn scripted_run(seed: u64) -> Vec<String> {
    let fabric = Fabric::new(1_700_000_000_000);
    let _broker = TestBroker::start(
        fabric.host("broker-0"),
        BROKER,
        ShardConfig::default(),
        topics(&[("input", 4), ("orders", 3)]),
    )
    .await;
    let log = EventLog::new();
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let config = || StreamsConfig::new(APP, topology()).with_threads(2);
    let d0 = StateDirectory::new(&mut rng);
    let d1 = StateDirectory::new(&mut rng);
    let p0 = start(&fabric, "p0", config(), d0, &mut rng, &log);
    let p1 = start(&fabric, "p1", config(), d1, &mut rng, &log);
    // A classic group next to it: one static and one dynamic consumer.
    let consumer = |name: &str, rng: &mut ChaCha8Rng, instance: Option<&str>| {
        let mut c = members::classic::ConsumerConfig::new("orders-app", name, &["orders"]);
        c.group_instance_id = instance.map(str::to_string);
        members::classic::Consumer::start(
            fabric.host(name),
            vec![BROKER.to_string()],
            c,
            name,
            rng,
            Rc::new(log.clone()),
        )
    };
    let c0 = consumer("c0", &mut rng, Some("i-0"));
    let c1 = consumer("c1", &mut rng, None);
    tokio::time::sleep(Duration::from_secs(20)).await;
    let d1 = p1.kill();
    c1.kill();
    tokio::time::sleep(Duration::from_secs(5)).await;
    let p1 = start(&fabric, "p1", config(), d1, &mut rng, &log);
    let c1 = consumer("c1", &mut rng, None);
    tokio::time::sleep(Duration::from_secs(60)).await;
    p0.stop().await;
    p1.stop().await;
    c0.close().await;
    c1.close().await;
    log.events().iter().map(|e| format!("{e:?}")).collect()
}

/// One run on a fresh single-threaded runtime with a paused clock (a fresh scheduler, as each
/// turmoil simulation has: the interleaving of local tasks depends on the scheduler's history).
fn fresh_run(seed: u64) -> Vec<String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    LocalSet::new().block_on(&rt, scripted_run(seed))
}

#[test]
fn the_same_seed_gives_the_same_events() {
    let a = fresh_run(99);
    let b = fresh_run(99);
    assert!(a.len() > 100);
    if let Some(i) = (0..a.len().min(b.len())).find(|&i| a[i] != b[i]) {
        panic!(
            "runs differ at event {i} of {}/{}:\n{}\nvs\n{}",
            a.len(),
            b.len(),
            a[i],
            b[i]
        );
    }
    assert_eq!(a.len(), b.len());
    let c = fresh_run(100);
    assert_ne!(a, c, "another seed draws other member ids");
}

#[tokio::test(start_paused = true)]
async fn members_learn_every_iq_endpoint_and_its_partitions() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let _broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("input", 4)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(31);
            let mut processes = Vec::new();
            for i in 0..2 {
                let config = StreamsConfig::new(APP, topology())
                    .with_application_server(format!("host-{i}"), 7070);
                let dir = StateDirectory::new(&mut rng);
                processes.push(start(
                    &fabric,
                    &format!("p{i}"),
                    config,
                    dir,
                    &mut rng,
                    &log,
                ));
            }
            tokio::time::sleep(Duration::from_secs(30)).await;
            let (_, endpoints) = processes[0].endpoints().expect("endpoint information");
            let hosts: BTreeSet<(String, u16)> =
                endpoints.iter().map(|e| (e.host.clone(), e.port)).collect();
            assert_eq!(
                hosts,
                [("host-0".to_string(), 7070), ("host-1".to_string(), 7070)].into()
            );
            let active: BTreeSet<members::observer::TopicPartition> = endpoints
                .iter()
                .flat_map(|e| e.active.iter().cloned())
                .collect();
            let expected: BTreeSet<members::observer::TopicPartition> = (0..4)
                .flat_map(|p| {
                    [
                        members::observer::TopicPartition::new("input", p),
                        members::observer::TopicPartition::new("wordcount-repartition", p),
                    ]
                })
                .collect();
            assert_eq!(active, expected);
            // Both processes see the same picture.
            assert_eq!(processes[1].endpoints().unwrap().1.len(), 2);
            for p in processes {
                p.stop().await;
            }
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn a_shutdown_request_stops_every_process_of_the_application() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                ShardConfig::default(),
                topics(&[("input", 4)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(37);
            let d0 = StateDirectory::new(&mut rng);
            let d1 = StateDirectory::new(&mut rng);
            let p0 = start(
                &fabric,
                "p0",
                StreamsConfig::new(APP, topology()),
                d0,
                &mut rng,
                &log,
            );
            let p1 = start(
                &fabric,
                "p1",
                StreamsConfig::new(APP, topology()),
                d1,
                &mut rng,
                &log,
            );
            tokio::time::sleep(Duration::from_secs(20)).await;
            p0.request_shutdown_application();
            tokio::time::sleep(Duration::from_secs(20)).await;
            assert!(p0.is_finished() && p1.is_finished());
            let events = log.events();
            for name in ["p0/StreamThread-1", "p1/StreamThread-1"] {
                assert!(
                    events.iter().any(|e| e.client.name == name
                        && matches!(&e.kind, EventKind::Statuses { statuses }
                            if statuses.iter().any(|(code, _)| *code == 4))),
                    "{name} saw SHUTDOWN_APPLICATION"
                );
                let leaves: Vec<i32> = events
                    .iter()
                    .filter(|e| e.client.name == name)
                    .filter_map(|e| match e.kind {
                        EventKind::LeaveSent { epoch } => Some(epoch),
                        _ => None,
                    })
                    .collect();
                assert_eq!(leaves, vec![-1], "{name} left the group");
            }
            broker.with_shard(|s| {
                assert!(s.streams.group(APP).unwrap().is_empty());
            });
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn standby_replicas_of_stateful_tasks_live_on_other_processes() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(1_700_000_000_000);
            let mut shard_config = ShardConfig::default();
            shard_config
                .set("group.streams.num.standby.replicas", "1")
                .unwrap();
            let _broker = TestBroker::start(
                fabric.host("broker-0"),
                BROKER,
                shard_config,
                topics(&[("input", 4)]),
            )
            .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(41);
            let mut processes = Vec::new();
            for i in 0..2 {
                let dir = StateDirectory::new(&mut rng);
                let config = StreamsConfig::new(APP, topology());
                processes.push(start(
                    &fabric,
                    &format!("p{i}"),
                    config,
                    dir,
                    &mut rng,
                    &log,
                ));
            }
            tokio::time::sleep(Duration::from_secs(30)).await;
            let mut active: BTreeMap<String, BTreeSet<TaskId>> = BTreeMap::new();
            let mut standby: BTreeMap<String, BTreeSet<TaskId>> = BTreeMap::new();
            for e in log.events() {
                if let EventKind::OwnedTasks {
                    active: a,
                    standby: s,
                    ..
                } = &e.kind
                {
                    active.insert(e.client.name.clone(), a.iter().cloned().collect());
                    standby.insert(e.client.name.clone(), s.iter().cloned().collect());
                }
            }
            // Only subtopology 1 is stateful: each of its tasks has one standby, on the other
            // process than its active task.
            let all_standby: BTreeSet<TaskId> = standby.values().flatten().cloned().collect();
            let expected: BTreeSet<TaskId> = (0..4).map(|p| TaskId::new("1", p)).collect();
            assert_eq!(all_standby, expected);
            for (member, tasks) in &standby {
                for t in tasks {
                    assert!(!active[member].contains(t), "{member} has {t} twice");
                }
            }
            for p in processes {
                p.stop().await;
            }
        })
        .await;
}

//! Streams groups (KIP-1071) through their life: scaling, rolling bounces, members that go away,
//! stall or never revoke, coordinator fail-over, topics that appear late, application shutdown,
//! IQ endpoints, group limits and a 200-member group.
//!
//! Every app here uses 10 s sessions, 1 s heartbeats and a 20 s rebalance timeout
//! (`max.poll.interval.ms`), so "longer than the session" means more than 10 s.

use std::collections::{BTreeMap, BTreeSet};

use coordinator::events::EventKind as ClusterKind;
use members::observer::EventKind as ClientKind;
use members::streams::topology::{InternalTopic, Subtopology, Topology};
use protocol::ErrorCode;
use protocol::streams_status::StreamsStatus;
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClusterSpec, StreamsAppSpec};

use super::basic::{stateful_topology, two_stage_topology};
use super::check::{View, ensure, host};
use super::{Expect, Faults, Scenario, rolling_bounce};

pub(crate) const APP: &str = "app";

/// Status codes of StreamsGroupHeartbeat (KIP-1071).
const STALE_TOPOLOGY: i8 = 0;
const MISSING_SOURCE_TOPICS: i8 = StreamsStatus::MissingSourceTopics.code();
const SHUTDOWN_APPLICATION: i8 = StreamsStatus::ShutdownApplication.code();

pub(crate) fn injected() -> Expect {
    Expect {
        faults_injected: true,
        ..Expect::default()
    }
}

pub(crate) fn p(index: usize) -> HostRef {
    HostRef::process(APP, index)
}

fn start(at: u64, index: usize) -> FaultWindow {
    FaultWindow::at(at, FaultKind::StartProcess { host: p(index) })
}

pub(crate) fn stop(at: u64, index: usize, ms: u64) -> FaultWindow {
    super::stop_process(APP, index, at, ms)
}

pub(crate) fn h(index: usize) -> String {
    host(APP, index)
}

/// `app` reading `input` (6 partitions) with one stateful subtopology.
pub(crate) fn app(processes: usize, threads: usize) -> StreamsAppSpec {
    StreamsAppSpec::new(APP, stateful_topology(APP), processes, threads)
}

pub(crate) fn cluster(app: StreamsAppSpec, partitions: i32) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("input", partitions)
        .with_streams(app)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "streams-scale-out",
            description: "2 processes x 2 threads own 12 tasks; 4 more processes start at 20 s: \
                          the first two keep 2 of their tasks each and only the 8 others move",
            default_seed: 1,
            cluster: || cluster(app(6, 2).with_dormant(2..6), 12),
            faults: Faults::Schedule(|| (2..6).map(|i| start(20_000, i)).collect()),
            expect: injected(),
            check: scale_out,
        },
        Scenario {
            name: "streams-scale-in",
            description: "4 processes x 2 threads; two close for good at 20 s and 25 s (leaving \
                          with epoch -1): the survivors keep their tasks and take the rest",
            default_seed: 1,
            cluster: || cluster(app(4, 2), 12),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(20_000, FaultKind::RemoveProcess { host: p(2) }),
                    FaultWindow::at(25_000, FaultKind::RemoveProcess { host: p(3) }),
                ]
            }),
            expect: injected(),
            check: scale_in,
        },
        Scenario {
            name: "streams-static-rolling-bounce",
            description: "3 static processes x 2 threads (one standby) close and restart one \
                          after another within the session timeout: no group-epoch bump, every \
                          process gets its tasks back, survivors are untouched (Kafka's streams \
                          static-membership system test)",
            default_seed: 1,
            cluster: || cluster(app(3, 2).with_standbys(1).with_static_membership(), 6),
            faults: Faults::Schedule(|| rolling_bounce(APP, 3, 20_000, 10_000, 4_000)),
            expect: injected(),
            check: static_rolling_bounce,
        },
        Scenario {
            name: "streams-dynamic-rolling-bounce",
            description: "3 dynamic processes x 2 threads close and restart one after another: \
                          each close and each return bumps the group epoch, and the group \
                          converges with every process owning tasks",
            default_seed: 1,
            cluster: || cluster(app(3, 2).with_standbys(1), 6),
            faults: Faults::Schedule(|| rolling_bounce(APP, 3, 20_000, 10_000, 4_000)),
            expect: injected(),
            check: dynamic_rolling_bounce,
        },
        Scenario {
            name: "streams-static-member-away",
            description: "a static process closes (epoch -2) and stays away 18 s, longer than \
                          its 10 s session: its members expire, others take its tasks, and it \
                          rejoins as new members",
            default_seed: 1,
            cluster: || cluster(app(3, 2).with_static_membership(), 6),
            faults: Faults::Schedule(|| vec![stop(20_000, 0, 18_000)]),
            expect: injected(),
            check: static_member_away,
        },
        Scenario {
            name: "streams-session-timeout",
            description: "a process is cut off from everyone for 20 s: the coordinator expires \
                          its members 10 s after their last heartbeat; back, they are fenced and \
                          rejoin",
            default_seed: 1,
            cluster: || cluster(app(3, 2), 6),
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(20_000, FaultKind::Isolate { host: p(1) }).lasting(20_000)]
            }),
            expect: injected(),
            check: session_timeout,
        },
        Scenario {
            name: "streams-rebalance-timeout",
            description: "a third process starts at 15 s; process 0's revocation takes 30 s, \
                          longer than its 20 s rebalance timeout: the coordinator fences it and \
                          gives its tasks away",
            default_seed: 1,
            cluster: || {
                let mut a = app(3, 1).with_dormant([2]);
                a.revocation_latency_ms.insert(0, 30_000);
                cluster(a, 6)
            },
            faults: Faults::Schedule(|| vec![start(15_000, 2)]),
            expect: injected(),
            check: rebalance_timeout,
        },
        Scenario {
            name: "streams-partition-during-revocation",
            description: "while process 0 revokes tasks for a newcomer (a 3 s revocation), it is \
                          cut off from the brokers for 15 s: it is expired, its tasks move only \
                          after that, and it is fenced when it comes back",
            default_seed: 1,
            cluster: || {
                let mut a = app(3, 1).with_dormant([2]);
                a.revocation_latency_ms.insert(0, 3_000);
                cluster(a, 6)
            },
            faults: Faults::Schedule(|| {
                vec![
                    start(15_000, 2),
                    FaultWindow::at(
                        16_000,
                        FaultKind::Partition {
                            a: vec![p(0)],
                            b: (1..=3).map(HostRef::Broker).collect(),
                        },
                    )
                    .lasting(15_000),
                ]
            }),
            expect: injected(),
            check: partition_during_revocation,
        },
        Scenario {
            name: "streams-lost-heartbeat-responses",
            description: "process 2 closes for 10 s at 15 s, so the others' next heartbeats bump \
                          their epochs and add tasks; the brokers' answers to process 0 are lost \
                          for 3 s: it retries with its previous epoch, which the coordinator \
                          tolerates, so it is never fenced (Kafka 4.4 echoes a streams \
                          assignment only on join or change, so the lost task reaches it with \
                          process 2's return)",
            default_seed: 1,
            cluster: || cluster(app(3, 1), 6),
            faults: Faults::Schedule(|| {
                vec![
                    stop(15_000, 2, 10_000),
                    FaultWindow::at(
                        15_000,
                        FaultKind::PartitionOneway {
                            from: (1..=3).map(HostRef::Broker).collect(),
                            to: vec![p(0)],
                        },
                    )
                    .lasting(3_000),
                ]
            }),
            expect: injected(),
            check: lost_heartbeat_responses,
        },
        Scenario {
            name: "streams-coordinator-failover-mid-rebalance",
            description: "a newcomer starts a rebalance at 15 s and the coordinator's broker \
                          crashes 200 ms later for 12 s: another broker takes over and no \
                          acknowledged offset is lost",
            default_seed: 1,
            cluster: || cluster(app(3, 2).with_dormant([2]), 6),
            faults: Faults::Schedule(|| {
                vec![
                    start(15_000, 2),
                    FaultWindow::at(
                        15_200,
                        FaultKind::Crash {
                            host: HostRef::coordinator_of(APP),
                        },
                    )
                    .lasting(12_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45_000,
                ..Expect::default()
            },
            check: failover_mid_rebalance,
        },
        Scenario {
            name: "streams-standby-promotion",
            description: "3 processes x 1 thread with one standby per task; process 0 dies for \
                          20 s: each of its tasks becomes active on the process holding its \
                          standby (while that process has room under its active quota)",
            default_seed: 1,
            cluster: || cluster(app(3, 1).with_standbys(1), 6),
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(20_000, FaultKind::Crash { host: p(0) }).lasting(20_000)]
            }),
            expect: injected(),
            check: standby_promotion,
        },
        Scenario {
            name: "streams-missing-source-topic",
            description: "the application reads `clicks`, created only at 20 s: its members \
                          hear MISSING_SOURCE_TOPICS, own nothing and fail after two heartbeat \
                          intervals (as Kafka Streams does); restarted after the creation, they \
                          get all 4 tasks",
            default_seed: 1,
            cluster: || {
                let topology = Topology::new(vec![Subtopology::new("0", &["clicks"])]);
                ClusterSpec::default().with_streams(StreamsAppSpec::new(APP, topology, 2, 1))
            },
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        20_000,
                        FaultKind::CreateTopic {
                            name: "clicks".into(),
                            partitions: 4,
                        },
                    ),
                    FaultWindow::at(21_000, FaultKind::Crash { host: p(0) }).lasting(500),
                    FaultWindow::at(21_000, FaultKind::Crash { host: p(1) }).lasting(500),
                ]
            }),
            expect: injected(),
            check: missing_source_topic,
        },
        Scenario {
            name: "streams-source-partitions-increase",
            description: "a stateless application (3 processes x 2 threads) reads `input` with 6 \
                          partitions; at 20 s the topic grows to 8 (CreatePartitions at the \
                          controller): the group's metadata hash changes, the epoch is bumped and \
                          tasks 0_6 and 0_7 get exactly one active owner",
            default_seed: 1,
            cluster: || {
                let topology = Topology::new(vec![Subtopology::new("0", &["input"])]);
                cluster(StreamsAppSpec::new(APP, topology, 3, 2), 6)
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    20_000,
                    FaultKind::AddPartitions {
                        topic: "input".into(),
                        total: 8,
                    },
                )]
            }),
            expect: injected(),
            check: source_partitions_increase,
        },
        Scenario {
            name: "streams-internal-topics",
            description: "a two-subtopology application: the repartition and changelog topics \
                          are created with the input's 6 partitions and the downstream \
                          subtopology's tasks are assigned",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("input", 6).with_streams(
                    StreamsAppSpec::new(APP, two_stage_topology(APP), 2, 2).with_standbys(1),
                )
            },
            faults: Faults::None,
            expect: Expect::default(),
            check: internal_topics,
        },
        Scenario {
            name: "streams-copartitioned-join",
            description: "a join of re-keyed `orders` (6 partitions) with `customers` and \
                          `addresses` (4 each), the three co-partitioned: the repartition topic \
                          is created with the co-partitioned 4 partitions, not the upstream 6, \
                          and the join has 4 tasks",
            default_seed: 1,
            cluster: || copartitioned_cluster(4),
            faults: Faults::None,
            expect: Expect::default(),
            check: copartitioned_join_check,
        },
        Scenario {
            name: "streams-incorrectly-partitioned-topics",
            description: "the same join with `addresses` at 3 partitions and `customers` at 4: \
                          every member is told INCORRECTLY_PARTITIONED_TOPICS naming \
                          {addresses=3, customers=4}, which Kafka Streams treats as fatal: every \
                          thread stops and the group ends empty, no internal topic created",
            default_seed: 1,
            cluster: || copartitioned_cluster(3),
            faults: Faults::None,
            // An empty group is converged from the start: run long enough for every thread
            // to join and hear the status.
            expect: Expect {
                members: &[(APP, 0)],
                min_duration_ms: 10_000,
                ..Expect::default()
            },
            check: incorrectly_partitioned_check,
        },
        Scenario {
            name: "streams-shutdown-application",
            description: "one process asks for SHUTDOWN_APPLICATION at 20 s: every member of \
                          every process hears it, closes and leaves; the group ends empty",
            default_seed: 1,
            cluster: || cluster(app(3, 2), 6),
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    20_000,
                    FaultKind::ShutdownApplication { host: p(1) },
                )]
            }),
            expect: injected(),
            check: shutdown_application,
        },
        Scenario {
            name: "streams-iq-endpoints",
            description: "processes advertise IQ endpoints; after a process restarts, every \
                          process's last endpoint map (10 s after the group \
                          converged) names exactly the partitions each endpoint's tasks own",
            default_seed: 1,
            cluster: || {
                let mut a = app(3, 2).with_standbys(1);
                a.application_server = true;
                cluster(a, 6)
            },
            faults: Faults::Schedule(|| vec![stop(20_000, 2, 15_000)]),
            // Endpoint maps travel on heartbeat responses: after the group converges, give every
            // member time for two heartbeats (group.streams.heartbeat.interval.ms is at most 5 s
            // here) to hear the final one.
            expect: Expect {
                settle_ms: 10_000,
                ..injected()
            },
            check: iq_endpoints,
        },
        Scenario {
            name: "streams-max-group-size",
            description: "group.streams.max.size = 4 and a fifth process starts at 15 s: its \
                          member is refused with GROUP_MAX_SIZE_REACHED and the 4 others keep \
                          all tasks",
            default_seed: 1,
            cluster: || {
                cluster(app(5, 1).with_dormant([4]), 6)
                    .with_broker_config("group.streams.max.size", 4)
            },
            faults: Faults::Schedule(|| vec![start(15_000, 4)]),
            expect: Expect {
                faults_injected: true,
                members: &[(APP, 4)],
                ..Expect::default()
            },
            check: max_group_size,
        },
        Scenario {
            name: "streams-stale-topology-epoch",
            description: "the group's topology has epoch 1; a process still on epoch 0 joins at \
                          10 s: only it is told STALE_TOPOLOGY, and it still takes part",
            default_seed: 1,
            cluster: || {
                let mut a = app(3, 2).with_dormant([2]);
                a.topology.epoch = 1;
                a.topology_epochs.insert(2, 0);
                cluster(a, 6)
            },
            faults: Faults::Schedule(|| vec![start(10_000, 2)]),
            expect: injected(),
            check: stale_topology_epoch,
        },
        Scenario {
            name: "streams-200-members",
            description: "20 processes x 10 threads (one standby, 100 tasks) form a group; one \
                          process crashes for 15 s and the group re-forms",
            default_seed: 1,
            cluster: || {
                let mut spec = cluster(app(20, 10).with_standbys(1), 100);
                spec.tick_ms = 5;
                spec
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(20_000, FaultKind::Crash { host: p(7) }).lasting(15_000)]
            }),
            expect: injected(),
            check: two_hundred,
        },
    ]
}

fn scale_out(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("start-process")?;
    let mut kept = 0;
    for i in 0..2 {
        let before = v.process_owned_at(&h(i), at - 1);
        let after = v.process_owned_final(APP, &h(i))?;
        ensure(before.len() == 6, || {
            format!("process {i} owned {before:?} before")
        })?;
        ensure(after.is_subset(&before) && after.len() == 2, || {
            format!("process {i} owned {before:?}, then {after:?}: 2 of its own expected")
        })?;
        kept += after.len();
    }
    let total: usize = (0..6)
        .map(|i| v.process_owned_final(APP, &h(i)).map(|s| s.len()))
        .sum::<Result<usize, String>>()?;
    ensure(total == 12 && kept == 4, || {
        format!("{total} tasks, {kept} kept")
    })
}

fn scale_in(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("remove-process")?;
    for i in 0..2 {
        let before = v.process_owned_at(&h(i), at - 1);
        let after = v.process_owned_final(APP, &h(i))?;
        ensure(before.is_subset(&after) && after.len() == 6, || {
            format!("survivor {i} owned {before:?}, then {after:?}")
        })?;
    }
    for i in 2..4 {
        let left = v
            .client_events(&h(i))
            .filter(|(_, _, k)| matches!(k, ClientKind::LeaveSent { epoch: -1 }))
            .count();
        ensure(left == 2, || {
            format!("process {i}: {left} leaves with epoch -1")
        })?;
    }
    ensure(v.group(APP)?.members.len() == 4, || {
        "4 members expected".into()
    })
}

/// Everything (active and standby) process `i` owned at `t`.
fn all_tasks_at(v: &View, i: usize, t: i64) -> BTreeSet<String> {
    let mut s = v.process_owned_at(&h(i), t);
    s.extend(v.standby_at(&h(i), t));
    s
}

fn static_rolling_bounce(v: &View) -> Result<(), String> {
    let bounces = v.injections("stop-process");
    ensure(bounces.len() == 3, || format!("{} bounces", bounces.len()))?;
    let first = bounces[0].0;
    let epoch = v.epoch_at(APP, first - 1);
    let after: Vec<i32> = v
        .streams_epochs(APP)
        .into_iter()
        .filter(|(t, _)| *t >= first)
        .map(|(_, e)| e)
        .collect();
    ensure(after.is_empty() && v.group(APP)?.epoch == epoch, || {
        format!("group epoch {epoch} before the bounces, then {after:?}")
    })?;
    let names = v.member_names();
    let g = v.group(APP)?;
    for i in 0..3 {
        let before = all_tasks_at(v, i, first - 1);
        let now: BTreeSet<String> = g
            .members
            .iter()
            .filter(|m| {
                names
                    .get(&m.member_id)
                    .is_some_and(|n| n.starts_with(&format!("{}/", h(i))))
            })
            .flat_map(|m| m.active_tasks.iter().chain(&m.standby_tasks).cloned())
            .collect();
        ensure(before == now, || {
            format!("process {i} had {before:?}, now {now:?}")
        })?;
        let left = v
            .client_events(&h(i))
            .filter(|(_, _, k)| matches!(k, ClientKind::LeaveSent { epoch: -2 }))
            .count();
        ensure(left == 2, || {
            format!("process {i}: {left} leaves with epoch -2")
        })?;
    }
    // Survivors never revoked or lost anything during a bounce.
    for (at, hosts) in &bounces {
        for i in 0..3 {
            if hosts[0] == h(i) {
                continue;
            }
            let touched = v.client_events(&h(i)).any(|(t, _, k)| {
                t >= *at
                    && t <= at + 6_000
                    && matches!(
                        k,
                        ClientKind::TasksRevoked { .. } | ClientKind::TasksLost { .. }
                    )
            });
            ensure(!touched, || {
                format!("survivor {i} lost tasks during the bounce of {}", hosts[0])
            })?;
        }
    }
    Ok(())
}

fn dynamic_rolling_bounce(v: &View) -> Result<(), String> {
    let bounces = v.injections("stop-process");
    ensure(bounces.len() == 3, || format!("{} bounces", bounces.len()))?;
    for (at, hosts) in &bounces {
        let before = v.epoch_at(APP, at - 1);
        let after = v.epoch_at(APP, at + 9_000);
        // Two members leave, two join: at least two bumps.
        ensure(after >= before + 2, || {
            format!(
                "epoch {before} before the bounce of {}, {after} after",
                hosts[0]
            )
        })?;
        let left = v
            .client_events(&hosts[0])
            .filter(|(t, _, k)| *t >= *at && matches!(k, ClientKind::LeaveSent { epoch: -1 }))
            .count();
        ensure(left >= 2, || {
            format!("{}: {left} leaves with epoch -1", hosts[0])
        })?;
    }
    for i in 0..3 {
        ensure(!v.process_owned_final(APP, &h(i))?.is_empty(), || {
            format!("process {i} owns nothing")
        })?;
    }
    Ok(())
}

fn static_member_away(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("stop-process")?;
    let back = v.healed("stop-process")?;
    let before = v.epoch_at(APP, at - 1);
    ensure(v.epoch_at(APP, at + 8_000) == before, || {
        "the group epoch changed within the session timeout".into()
    })?;
    let bump = v
        .streams_epochs(APP)
        .into_iter()
        .find(|(t, e)| *t >= at && *e > before)
        .ok_or("the group epoch never changed")?;
    // The session runs from the last heartbeat (at most 1 s before the close).
    ensure(bump.0 >= at + 9_000 && bump.0 < back, || {
        format!("first bump at {} ms (away from {at} to {back})", bump.0)
    })?;
    let away = v.process_owned_at(&h(0), at - 1);
    let mut others = v.process_owned_at(&h(1), back - 1);
    others.extend(v.process_owned_at(&h(2), back - 1));
    ensure(away.is_subset(&others), || {
        format!("process 0's tasks {away:?} not taken over: {others:?}")
    })?;
    ensure(!v.process_owned_final(APP, &h(0))?.is_empty(), || {
        "process 0 owns nothing after its return".into()
    })
}

fn session_timeout(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("isolate")?;
    let before = v.epoch_at(APP, at - 1);
    let bump = v
        .streams_epochs(APP)
        .into_iter()
        .find(|(t, e)| *t >= at && *e > before)
        .ok_or("the group epoch never changed")?;
    // The last heartbeat was at most one interval (1 s) before the isolation.
    ensure((at + 9_000..=at + 11_500).contains(&bump.0), || {
        format!("members expired {} ms after the isolation", bump.0 - at)
    })?;
    let fenced = v.fencings(&h(1));
    ensure(
        fenced
            .iter()
            .any(|(_, e)| matches!(e, ErrorCode::UnknownMemberId | ErrorCode::FencedMemberEpoch)),
        || format!("the returning members were not fenced: {fenced:?}"),
    )?;
    ensure(!v.process_owned_final(APP, &h(1))?.is_empty(), || {
        "process 1 owns nothing after its return".into()
    })
}

fn rebalance_timeout(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("start-process")?;
    let fenced = v
        .fencings(&h(0))
        .into_iter()
        .find(|(t, _)| *t >= at)
        .ok_or("process 0 was never fenced")?;
    // The revocation started once the newcomer joined (shortly after `at`); the coordinator
    // removes the member when the 20 s rebalance timeout passes.
    ensure((at + 20_000..at + 25_000).contains(&fenced.0), || {
        format!("fenced {} ms after the newcomer started", fenced.0 - at)
    })?;
    ensure(!v.process_owned_final(APP, &h(2))?.is_empty(), || {
        "the newcomer owns nothing".into()
    })
}

fn partition_during_revocation(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("partition")?;
    let healed = v.healed("partition")?;
    let before = v.process_owned_at(&h(0), at - 1_500);
    let mut others = v.process_owned_at(&h(1), healed - 1);
    others.extend(v.process_owned_at(&h(2), healed - 1));
    ensure(before.iter().all(|t| others.contains(t)), || {
        format!("process 0's tasks {before:?} not all taken over: {others:?}")
    })?;
    let fenced = v.fencings(&h(0));
    ensure(fenced.iter().any(|(t, _)| *t >= at), || {
        format!("process 0 was not fenced after the partition: {fenced:?}")
    })
}

fn lost_heartbeat_responses(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("partition-oneway")?;
    let failed = v
        .client_events(&h(0))
        .any(|(t, _, k)| t >= at && matches!(k, ClientKind::RequestFailed { .. }));
    ensure(failed, || "no request of process 0 went unanswered".into())?;
    ensure(
        v.epoch_at(APP, at + 3_000) > v.epoch_at(APP, at - 1),
        || "the departure did not bump the group epoch during the loss".into(),
    )?;
    // Back in touch, its heartbeat at the previous epoch is accepted: it moves to the new
    // epoch without being fenced. (Kafka 4.4 echoes no assignment then, so a task added in the
    // lost answer can later cost it a rebalance timeout; that is not checked here.)
    let back = v.healed("stop-process")?;
    let caught_up = v.client_events(&h(0)).any(|(t, _, k)| {
        t >= at + 3_000
            && t < back
            && matches!(k, ClientKind::EpochChanged { from, to } if *from > 0 && to > from)
    });
    ensure(caught_up, || {
        "process 0 never moved to the new epoch".into()
    })?;
    let early: Vec<_> = v
        .fencings(&h(0))
        .into_iter()
        .filter(|(t, _)| *t < back)
        .collect();
    ensure(early.is_empty(), || {
        format!("process 0 was fenced: {early:?}")
    })
}

fn failover_mid_rebalance(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("crash")?;
    let old: i32 = hosts[0].trim_start_matches("broker-").parse().unwrap_or(-1);
    v.coordinator_moved(APP, at, old)
        .map_err(|e| format!("no other broker took the group over: {e}"))?;
    // The last acknowledged offset of each partition before the crash.
    let mut acked: BTreeMap<String, i64> = BTreeMap::new();
    let mut fetched_after = 0;
    for e in v.log() {
        if let sim::event::SimEventKind::Client { kind, .. } = &e.kind {
            match kind {
                ClientKind::CommitAccepted { offsets, .. } if e.at_ms < at => {
                    for (tp, o) in offsets {
                        acked.insert(tp.to_string(), *o);
                    }
                }
                ClientKind::OffsetsFetched { offsets } if e.at_ms > at => {
                    for (tp, o) in offsets {
                        if let Some(a) = acked.get(&tp.to_string()) {
                            fetched_after += 1;
                            ensure(o >= a, || {
                                format!(
                                    "{tp} fetched at {o} after the fail-over, {a} was acknowledged"
                                )
                            })?;
                        }
                    }
                }
                _ => {}
            }
        }
    }
    ensure(fetched_after > 0, || {
        "no committed offset was fetched after the fail-over".into()
    })?;
    ensure(v.commits_accepted(&h(2)).iter().any(|t| *t > at), || {
        "the newcomer never committed".into()
    })
}

fn standby_promotion(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("crash")?;
    let back = v.healed("crash")?;
    let dead = v.process_owned_at(&h(0), at - 1);
    ensure(dead.len() == 2, || format!("process 0 owned {dead:?}"))?;
    let mut promoted = 0;
    for task in &dead {
        let standby = (1..3)
            .find(|i| v.standby_at(&h(*i), at - 1).contains(task))
            .ok_or(format!("task {task} had no standby"))?;
        let now = v.process_owned_at(&h(standby), back - 1);
        // A process takes a promoted task while under its active quota (3 of the 6 tasks).
        ensure(now.contains(task) || now.len() >= 3, || {
            format!("task {task}: its standby process {standby} owns {now:?}")
        })?;
        promoted += usize::from(now.contains(task));
    }
    ensure(promoted >= 1, || "no standby was promoted".into())
}

fn missing_source_topic(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("create-topic")?;
    for i in 0..2 {
        ensure(
            v.statuses(&h(i))
                .iter()
                .any(|(t, c)| *t < at && *c == MISSING_SOURCE_TOPICS),
            || format!("process {i} never heard MISSING_SOURCE_TOPICS"),
        )?;
        ensure(v.process_owned_at(&h(i), at - 1).is_empty(), || {
            format!("process {i} owned tasks before the topic existed")
        })?;
        let failed = v.client_events(&h(i)).any(|(t, _, k)| {
            t < at && matches!(k, ClientKind::Fatal { message, .. } if message.contains("Missing source topics"))
        });
        ensure(failed, || {
            format!("process {i} did not fail on the missing topic")
        })?;
    }
    let owners = v.final_active_owners(APP)?;
    let tasks: Vec<&String> = owners.keys().collect();
    ensure(tasks == ["0_0", "0_1", "0_2", "0_3"], || {
        format!("tasks {tasks:?}")
    })
}

fn internal_topics(v: &View) -> Result<(), String> {
    for topic in ["app-by-key-repartition", "app-counts-changelog"] {
        let created = v.cluster_events().any(|(_, _, k)| {
            matches!(k, ClusterKind::TopicCreated { topic: t, partitions: 6, .. } if t == topic)
        });
        ensure(created, || {
            format!("{topic} was not created with 6 partitions")
        })?;
    }
    let owners = v.final_active_owners(APP)?;
    ensure(
        (0..6).all(|p| owners.contains_key(&format!("1_{p}"))),
        || format!("downstream tasks not all assigned: {owners:?}"),
    )
}

/// Orders re-keyed by customer (subtopology 0) joined with two tables (subtopology 1): the
/// repartition topic has no partition count of its own, so `enforceCopartitioning` gives it the
/// count of the external topics it is co-partitioned with.
fn copartitioned_join(app: &str) -> Topology {
    let repartition = format!("{app}-orders-by-customer-repartition");
    Topology::new(vec![
        Subtopology::new("0", &["orders"]).with_repartition_sink(repartition.clone()),
        Subtopology::new("1", &["customers", "addresses"])
            .with_repartition_source(InternalTopic::new(repartition.clone()))
            .with_changelog(InternalTopic::new(format!("{app}-join-store-changelog")))
            .with_copartition_group(&["customers", "addresses", &repartition]),
    ])
}

fn copartitioned_cluster(addresses: i32) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 6)
        .with_topic("customers", 4)
        .with_topic("addresses", addresses)
        .with_streams(StreamsAppSpec::new(APP, copartitioned_join(APP), 2, 2))
}

const JOIN_TOPICS: [&str; 2] = [
    "app-orders-by-customer-repartition",
    "app-join-store-changelog",
];

/// The partition counts the internal topic `topic` was created with, in order.
fn created(v: &View, topic: &str) -> Vec<i32> {
    v.cluster_events()
        .filter_map(|(_, _, k)| match k {
            ClusterKind::TopicCreated {
                topic: name,
                partitions,
                ..
            } if name == topic => Some(*partitions),
            _ => None,
        })
        .collect()
}

fn copartitioned_join_check(v: &View) -> Result<(), String> {
    for topic in JOIN_TOPICS {
        let created = created(v, topic);
        ensure(created == [4], || {
            format!("{topic} created with {created:?} partitions; want one creation with 4")
        })?;
    }
    let owners = v.final_active_owners(APP)?;
    let tasks: Vec<&str> = owners.keys().map(String::as_str).collect();
    let want: Vec<String> = (0..6)
        .map(|p| format!("0_{p}"))
        .chain((0..4).map(|p| format!("1_{p}")))
        .collect();
    ensure(tasks == want, || {
        format!("active tasks at the end {tasks:?}, want {want:?}")
    })
}

fn incorrectly_partitioned_check(v: &View) -> Result<(), String> {
    let expected =
        "Following topics do not have the same number of partitions: [{addresses=3, customers=4}]";
    for i in 0..2 {
        let told = v.client_events(&h(i)).any(|(_, _, k)| match k {
            ClientKind::Statuses { statuses } => statuses.iter().any(|(c, detail)| {
                *c == StreamsStatus::IncorrectlyPartitionedTopics.code() && detail == expected
            }),
            _ => false,
        });
        ensure(told, || {
            format!("process {i} was not told INCORRECTLY_PARTITIONED_TOPICS: {expected}")
        })?;
        // The first thread to hear it dies of it; the client then shuts down its other thread
        // (the default uncaught-exception response, SHUTDOWN_CLIENT).
        let fatal = v
            .client_events(&h(i))
            .filter(
                |(_, _, k)| matches!(k, ClientKind::Fatal { message, .. } if message == expected),
            )
            .count();
        let stopped = v
            .client_events(&h(i))
            .filter(|(_, _, k)| matches!(k, ClientKind::Stopped { .. }))
            .count();
        ensure(fatal >= 1 && stopped == 2, || {
            format!("process {i}: {fatal} threads failed on the status and {stopped} stopped")
        })?;
    }
    for topic in JOIN_TOPICS {
        let created = created(v, topic);
        ensure(created.is_empty(), || {
            format!("{topic} created with {created:?} partitions")
        })?;
    }
    Ok(())
}

fn shutdown_application(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("shutdown-application")?;
    for i in 0..3 {
        let heard = v
            .statuses(&h(i))
            .iter()
            .filter(|(t, c)| *t >= at && *c == SHUTDOWN_APPLICATION)
            .count();
        ensure(heard >= 1, || {
            format!("process {i} never heard SHUTDOWN_APPLICATION")
        })?;
        let stopped = v
            .client_events(&h(i))
            .filter(|(t, _, k)| *t >= at && matches!(k, ClientKind::Stopped { .. }))
            .count();
        ensure(stopped == 2, || {
            format!("process {i}: {stopped} threads stopped")
        })?;
    }
    let left = v.group(APP).map(|g| g.members.len()).unwrap_or(0);
    ensure(left == 0, || format!("{left} members left"))
}

fn iq_endpoints(v: &View) -> Result<(), String> {
    v.injected("stop-process")?;
    // Partition p of `input` belongs to task 0_p.
    let owners = v.final_active_owners(APP)?;
    let mut want: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (task, client) in &owners {
        let process = client.split('/').next().unwrap_or_default().to_string();
        let partition = task.trim_start_matches("0_");
        want.entry(process)
            .or_default()
            .insert(format!("input-{partition}"));
    }
    for i in 0..3 {
        let last = v
            .client_events(&h(i))
            .filter_map(|(_, _, k)| match k {
                ClientKind::EndpointsUpdated { endpoints, .. } => Some(endpoints),
                _ => None,
            })
            .last()
            .ok_or(format!("process {i} never received endpoints"))?;
        // One entry per member: a process's threads share its endpoint.
        let mut got: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for e in last.iter() {
            got.entry(e.host.clone()).or_default().extend(
                e.active
                    .iter()
                    .map(|tp| tp.to_string())
                    .filter(|p| p.starts_with("input-")),
            );
        }
        got.retain(|_, s| !s.is_empty());
        ensure(got == want, || {
            format!("process {i} knows endpoints {got:?}, the assignment is {want:?}")
        })?;
    }
    Ok(())
}

fn source_partitions_increase(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("add-partitions")?;
    let owners = v.final_active_owners(APP)?;
    let tasks: Vec<&str> = owners.keys().map(String::as_str).collect();
    let want: Vec<String> = (0..8).map(|p| format!("0_{p}")).collect();
    ensure(tasks == want, || {
        format!("active tasks at the end {tasks:?}, want {want:?}")
    })?;
    // The new tasks came with a group epoch bump after the topic grew.
    let bumped = v.streams_epochs(APP).iter().any(|(t, _)| *t >= at);
    ensure(bumped, || {
        format!("no group epoch change after the topic grew at {at} ms")
    })
}

fn max_group_size(v: &View) -> Result<(), String> {
    v.injected("start-process")?;
    let refused = v
        .response_errors(&h(4))
        .iter()
        .any(|(_, e)| *e == ErrorCode::GroupMaxSizeReached);
    ensure(refused, || "the fifth member was not refused".into())?;
    ensure(v.process_owned_final(APP, &h(4))?.is_empty(), || {
        "the refused process owns tasks".into()
    })?;
    let g = v.group(APP)?;
    ensure(g.members.len() == 4, || {
        format!("{} members", g.members.len())
    })
}

fn stale_topology_epoch(v: &View) -> Result<(), String> {
    v.injected("start-process")?;
    ensure(
        v.statuses(&h(2)).iter().any(|(_, c)| *c == STALE_TOPOLOGY),
        || "the stale process never heard STALE_TOPOLOGY".into(),
    )?;
    for i in 0..2 {
        ensure(
            !v.statuses(&h(i)).iter().any(|(_, c)| *c == STALE_TOPOLOGY),
            || format!("process {i} heard STALE_TOPOLOGY"),
        )?;
    }
    ensure(!v.process_owned_final(APP, &h(2))?.is_empty(), || {
        "the stale process owns nothing".into()
    })
}

fn two_hundred(v: &View) -> Result<(), String> {
    v.injected("crash")?;
    let g = v.group(APP)?;
    ensure(g.members.len() == 200, || {
        format!("{} members", g.members.len())
    })?;
    let active: usize = g.members.iter().map(|m| m.active_tasks.len()).sum();
    let standby: usize = g.members.iter().map(|m| m.standby_tasks.len()).sum();
    ensure(active == 100 && standby == 100, || {
        format!("{active} active, {standby} standby tasks")
    })?;
    let names = v.member_names();
    let back = g
        .members
        .iter()
        .filter(|m| {
            names
                .get(&m.member_id)
                .is_some_and(|n| n.starts_with("app-7/"))
        })
        .count();
    ensure(back == 10, || {
        format!("{back} members of the crashed process rejoined")
    })
}

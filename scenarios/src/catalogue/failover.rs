//! Scheduled faults around the coordinator and the members: fail-over, zombies, fencing.

use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

use super::basic::stateful_topology;
use coordinator::events::{EventKind as ClusterKind, FenceReason};
use members::observer::EventKind as ClientKind;
use protocol::ErrorCode;

use super::check::{View, ensure};
use super::{Expect, Faults, Scenario};

fn streams_cluster() -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("input", 6)
        .with_streams(StreamsAppSpec::new("app", stateful_topology("app"), 3, 2).with_standbys(1))
}

fn injected() -> Expect {
    Expect {
        faults_injected: true,
        ..Expect::default()
    }
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "coordinator-crash-streams",
            description: "the broker coordinating a streams group crashes for 12 s and restarts; \
                          the group fails over and converges",
            default_seed: 1,
            cluster: streams_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::Crash {
                            host: HostRef::coordinator_of("app"),
                        },
                    )
                    .lasting(12_000),
                ]
            }),
            expect: injected(),
            check: coordinator_moved,
        },
        Scenario {
            name: "fenced-coordinator-streams",
            description: "the coordinator's broker loses the controller for 20 s (clients still \
                          reach it): the controller fences it and moves the group's partition",
            default_seed: 1,
            cluster: streams_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::FenceBroker {
                            broker: HostRef::coordinator_of("app"),
                        },
                    )
                    .lasting(20_000),
                ]
            }),
            expect: injected(),
            check: fenced_coordinator,
        },
        Scenario {
            name: "zombie-process-streams",
            description: "a streams process is paused for 25 s (all links held): its members are \
                          removed and keep running as zombies, then resume and are fenced",
            default_seed: 1,
            cluster: streams_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        12_000,
                        FaultKind::Pause {
                            host: HostRef::process("app", 0),
                        },
                    )
                    .lasting(25_000),
                ]
            }),
            expect: injected(),
            check: zombie_fenced,
        },
        Scenario {
            name: "stalled-heartbeats-streams",
            description: "the heartbeats of one streams process stall for 25 s while its threads \
                          keep committing: the coordinator removes them and rejects their commits",
            default_seed: 1,
            cluster: streams_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        12_000,
                        FaultKind::StallHeartbeats {
                            host: HostRef::process("app", 1),
                            thread: None,
                        },
                    )
                    .lasting(25_000),
                ]
            }),
            expect: injected(),
            check: stalled_streams,
        },
        Scenario {
            name: "stalled-heartbeats-classic",
            description: "one static consumer's heartbeats stall for 20 s while it keeps \
                          auto-committing; as in Kafka, its commits keep its classic session alive",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("orders", 6).with_classic(
                    ClassicGroupSpec::new("billing", &["orders"], 3, 1).with_static_membership(),
                )
            },
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        12_000,
                        FaultKind::StallHeartbeats {
                            host: HostRef::process("billing", 1),
                            thread: None,
                        },
                    )
                    .lasting(20_000),
                ]
            }),
            expect: injected(),
            check: stalled_classic,
        },
        Scenario {
            name: "controller-crash",
            description: "the controller crashes for 15 s and restarts from its metadata log; \
                          brokers keep serving and re-register",
            default_seed: 1,
            cluster: streams_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        10_000,
                        FaultKind::Crash {
                            host: HostRef::Controller,
                        },
                    )
                    .lasting(15_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 40_000,
                ..Expect::default()
            },
            check: controller_back,
        },
        Scenario {
            name: "silent-coordinator-death",
            description: "the coordinator's broker is cut off and then crashes (no FIN reaches \
                          anyone); it comes back 15 s later",
            default_seed: 1,
            cluster: streams_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        12_000,
                        FaultKind::SilentDeath {
                            host: HostRef::coordinator_of("app"),
                        },
                    )
                    .lasting(15_000),
                ]
            }),
            expect: injected(),
            check: silent_death,
        },
        Scenario {
            name: "topic-created-mid-run",
            description: "a classic group subscribed to two topics starts with one; the second is \
                          created at 15 s; a member down for longer than its session from 20 s \
                          on makes the next rebalance assign its partitions",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("orders", 4).with_classic(
                    ClassicGroupSpec::new("billing", &["orders", "refunds"], 2, 1)
                        .with_static_membership(),
                )
            },
            // The client model does not refresh metadata periodically (Kafka's leader notices a
            // new subscribed topic within metadata.max.age.ms, 5 min by default), so a member
            // expiring brings the rebalance that picks the topic up (a static member back within
            // its session would not rebalance the group).
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::CreateTopic {
                            name: "refunds".into(),
                            partitions: 2,
                        },
                    ),
                    FaultWindow::at(
                        20_000,
                        FaultKind::Crash {
                            host: HostRef::process("billing", 1),
                        },
                    )
                    .lasting(14_000),
                ]
            }),
            expect: injected(),
            check: topic_created,
        },
    ]
}

fn broker_id(host: &str) -> i32 {
    sim::cluster::broker_id_of(host).unwrap_or(-1)
}

/// Another broker loaded the group's offsets partition after `fault` hit its coordinator
/// ([`View::coordinator_moved`]).
fn loaded_elsewhere(v: &View, fault: &str, group: &str) -> Result<(), String> {
    let (at, hosts) = v.injected(fault)?;
    v.coordinator_moved(group, at - 1, broker_id(&hosts[0]))
        .map_err(|e| format!("{e} after the {fault}"))
}

fn coordinator_moved(v: &View) -> Result<(), String> {
    loaded_elsewhere(v, "crash", "app")
}

/// The controller fences the isolated coordinator by session expiry: its 9 s session runs from
/// its last heartbeat (at most one 2 s interval before the isolation) and the controller notices
/// within one scan period (9 s / 8); another broker takes the group over.
fn fenced_coordinator(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("fence-broker")?;
    let broker = broker_id(&hosts[0]);
    if v.driven {
        // The controller's fencing is not in a driven run's log: what the clients see is the
        // group's coordinator moving off the fenced broker.
        return loaded_elsewhere(v, "fence-broker", "app");
    }
    let fenced = v
        .cluster_events()
        .find(|(_, _, k)| {
            matches!(k, ClusterKind::BrokerFenced { broker: b, reason: FenceReason::SessionExpired, .. } if *b == broker)
        })
        .ok_or("the controller never fenced the isolated coordinator")?;
    let after = fenced.0 - at;
    ensure((7_000..=9_000 + 1_125 + 10).contains(&after), || {
        format!("fenced {after} ms after the isolation")
    })?;
    loaded_elsewhere(v, "fence-broker", "app")
}

/// While paused, other processes take the zombie's tasks over; released, the zombies' commits
/// are refused (UNKNOWN_MEMBER_ID or STALE_MEMBER_EPOCH) and none of theirs is accepted between
/// their removal and their rejoin.
fn zombie_fenced(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("pause")?;
    let zombie = &hosts[0];
    let others_acquired = v.log().iter().any(|e| {
        e.at_ms > at
            && e.host != *zombie
            && matches!(&e.kind, sim::event::SimEventKind::Client { kind: ClientKind::TasksAcquired { active, .. }, .. } if !active.is_empty())
    });
    ensure(others_acquired, || {
        "no other process took a task over".into()
    })?;
    let rejected = v.commits_rejected(zombie);
    ensure(
        rejected
            .iter()
            .any(|(_, e)| matches!(e, ErrorCode::UnknownMemberId | ErrorCode::StaleMemberEpoch)),
        || format!("no zombie commit was refused: {rejected:?}"),
    )
}

/// Commits of the stalled members are accepted until the coordinator removes them (10 s
/// session), then refused.
fn stalled_streams(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("stall-heartbeats")?;
    let stalled = &hosts[0];
    ensure(v.commits_accepted(stalled).iter().any(|t| *t > at), || {
        "no commit accepted while the heartbeats stalled".into()
    })?;
    let rejected = v
        .commits_rejected(stalled)
        .into_iter()
        .find(|(t, e)| {
            *t > at && matches!(e, ErrorCode::UnknownMemberId | ErrorCode::StaleMemberEpoch)
        })
        .ok_or("no commit of a stalled member was rejected")?;
    ensure(rejected.0 - at >= 10_000, || {
        format!("rejected {} ms after the stall", rejected.0 - at)
    })
}

/// A classic member's commits keep its session alive (Kafka completes the heartbeat on a commit
/// from a member of the current generation): the generation never changes and nothing is
/// rejected.
fn stalled_classic(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("stall-heartbeats")?;
    let before = v.epoch_at("billing", at);
    let g = v.group("billing")?;
    ensure(g.epoch == before, || {
        format!(
            "generation {before} before the stall, {} at the end",
            g.epoch
        )
    })?;
    ensure(v.commits_rejected(&hosts[0]).is_empty(), || {
        format!("commits refused: {:?}", v.commits_rejected(&hosts[0]))
    })
}

/// The restarted controller recovers the brokers from its log: any broker it fences after its
/// return is unfenced again, and the group keeps all 6 members.
fn controller_back(v: &View) -> Result<(), String> {
    let healed = v.healed("crash")?;
    let mut fenced: std::collections::BTreeSet<i32> = std::collections::BTreeSet::new();
    for (t, _, k) in v.cluster_events() {
        if t < healed {
            continue;
        }
        match k {
            ClusterKind::BrokerFenced { broker, .. } => {
                fenced.insert(*broker);
            }
            ClusterKind::BrokerUnfenced { broker, .. } => {
                fenced.remove(broker);
            }
            _ => {}
        }
    }
    ensure(fenced.is_empty(), || {
        format!("brokers {fenced:?} stayed fenced")
    })?;
    ensure(v.group("app")?.members.len() == 6, || "members lost".into())
}

fn silent_death(v: &View) -> Result<(), String> {
    loaded_elsewhere(v, "silent-death", "app")
}

/// The topic created mid-run ends up assigned.
fn topic_created(v: &View) -> Result<(), String> {
    v.injected("create-topic")?;
    let g = v.group("billing")?;
    let parts: Vec<&String> = g.members.iter().flat_map(|m| &m.partitions).collect();
    ensure(parts.iter().any(|p| p.starts_with("refunds-")), || {
        format!("no refunds partition assigned: {parts:?}")
    })
}

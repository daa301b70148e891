//! Scheduled faults around the coordinator and the members: fail-over, zombies, fencing.

use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

use super::basic::stateful_topology;
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
            expect: injected(),
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
        },
    ]
}

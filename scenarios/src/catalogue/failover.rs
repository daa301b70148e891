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
            name: "stalled-heartbeats-classic",
            description: "one static consumer's heartbeats stall for 20 s while it keeps \
                          committing; its stale commits must be rejected",
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
    ]
}

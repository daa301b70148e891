//! Swarm-mode scenarios: each seed draws its own fault mix.

use sim::spec::{ClassicGroupSpec, ClusterSpec, ConsumerGroupSpec, StreamsAppSpec};
use sim::swarm::{SwarmConfig, SwarmKind};

use super::basic::{stateful_topology, two_stage_topology};
use super::check::{View, ensure};
use std::sync::LazyLock;

use super::{Expect, Faults, Scenario};
use protocol::ErrorCode;
use sim::coverage::Goal;

fn swarm_expect(goals: &'static [Goal]) -> Expect {
    Expect {
        faults_injected: false,
        goals,
        ..Expect::default()
    }
}

/// Every fault the swarm draws, by the name it is injected under (`coordinator-crash` injects a
/// `crash`, `topic-change` the three topic faults, `admin-probe` a `group-admin` describe).
const FAULTS: &[Goal] = &[
    Goal::FaultInjected("partition"),
    Goal::FaultInjected("partition-oneway"),
    Goal::FaultInjected("isolate"),
    Goal::FaultInjected("hold"),
    Goal::FaultInjected("latency"),
    Goal::FaultInjected("fail-rate"),
    Goal::FaultInjected("crash"),
    Goal::FaultInjected("silent-death"),
    Goal::FaultInjected("pause"),
    Goal::FaultInjected("stall-heartbeats"),
    Goal::FaultInjected("fence-broker"),
    Goal::FaultInjected("stop-process"),
    Goal::FaultInjected("create-topic"),
    Goal::FaultInjected("add-partitions"),
    Goal::FaultInjected("delete-topic"),
    Goal::FaultInjected("controlled-shutdown"),
    Goal::FaultInjected("group-admin"),
];

/// What the fault mix exists to reach in any group: the coordinator moving under a rebalance,
/// zombies refused, the broker lifecycle's fence and return and its controlled shutdown, writes
/// lost with their leader.
const CLUSTER: &[Goal] = &[
    Goal::CoordinatorMovedDuringRebalance,
    Goal::ZombieCommitRejected,
    Goal::BrokerFencedAndUnfenced,
    Goal::ControlledShutdown,
    Goal::CoordinatorWriteFailed,
    Goal::ReplicaTruncated,
    Goal::Answered(ErrorCode::NotCoordinator),
    Goal::Answered(ErrorCode::CoordinatorNotAvailable),
    Goal::Answered(ErrorCode::UnknownMemberId),
];

/// A streams group under faults: fenced members, revocations cut short, standbys taking over.
const STREAMS: &[Goal] = &[
    Goal::Answered(ErrorCode::FencedMemberEpoch),
    Goal::RemovedWhileRevoking,
    Goal::StandbyPromoted,
    // A shutdown request after the faults (`shutdown-request`).
    Goal::FaultInjected("shutdown-application"),
];

/// A classic group of static members: rejoins inside the session cost no rebalance, rebalances
/// answered to the members still in the old generation.
const CLASSIC_STATIC: &[Goal] = &[
    Goal::StaticMemberBackWithoutRebalance,
    Goal::Answered(ErrorCode::RebalanceInProgress),
    // A duplicate instance (`duplicate-instance`): the newcomer's start, the older one fenced.
    Goal::FaultInjected("start-process"),
    Goal::Answered(ErrorCode::FencedInstanceId),
];

/// Answers rarer than the ones above, which the single-group swarms reach (5/200 and 11/200 seeds
/// of the CI sweep) and the mixed one barely (1/200 each), so only the former declare them.
const STREAMS_RARE: &[Goal] = &[Goal::Answered(ErrorCode::StaleMemberEpoch)];
const CLASSIC_RARE: &[Goal] = &[Goal::Answered(ErrorCode::IllegalGeneration)];

/// The three swarm scenarios' goals: the lists above joined once per process.
static STREAMS_GOALS: LazyLock<Vec<Goal>> =
    LazyLock::new(|| [FAULTS, CLUSTER, STREAMS, STREAMS_RARE].concat());
static CLASSIC_GOALS: LazyLock<Vec<Goal>> =
    LazyLock::new(|| [FAULTS, CLUSTER, CLASSIC_STATIC, CLASSIC_RARE].concat());
/// A consumer-protocol group: fenced members (session expiry, zombies) and refused commits.
const CONSUMER: &[Goal] = &[Goal::Answered(ErrorCode::FencedMemberEpoch)];
/// The goals of `swarm-consumer`: every fault but the admin probe (DescribeGroups describes classic
/// groups), the cluster's goals but the coordinator moving during a rebalance (judged on the streams
/// and classic group states), and a fenced consumer.
static CONSUMER_GOALS: LazyLock<Vec<Goal>> = LazyLock::new(|| {
    let faults = FAULTS
        .iter()
        .filter(|g| **g != Goal::FaultInjected("group-admin"));
    let cluster = CLUSTER
        .iter()
        .filter(|g| **g != Goal::CoordinatorMovedDuringRebalance);
    faults.chain(cluster).chain(CONSUMER).copied().collect()
});
static MIXED_GOALS: LazyLock<Vec<Goal>> =
    LazyLock::new(|| [FAULTS, CLUSTER, STREAMS, CLASSIC_STATIC].concat());

fn goals(list: &'static LazyLock<Vec<Goal>>) -> &'static [Goal] {
    LazyLock::force(list).as_slice()
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "swarm-streams",
            description: "a streams application (2-5 processes x 2 threads, one standby) under a \
                          per-seed fault mix",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("input", 6).with_streams(
                    StreamsAppSpec::new("wordcount", two_stage_topology("wordcount"), 3, 2)
                        .with_standbys(1),
                )
            },
            faults: Faults::Swarm(|| SwarmConfig {
                processes: Some((2, 5)),
                ..SwarmConfig::default()
            }),
            expect: swarm_expect(goals(&STREAMS_GOALS)),
            check: every_input_owned_once,
        },
        Scenario {
            name: "swarm-classic-static",
            description: "a classic group of static members (2-4 processes x 2 consumers) under \
                          a per-seed fault mix",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("orders", 8).with_classic(
                    ClassicGroupSpec::new("billing", &["orders"], 3, 2).with_static_membership(),
                )
            },
            faults: Faults::Swarm(|| SwarmConfig {
                processes: Some((2, 4)),
                ..SwarmConfig::default()
            }),
            expect: swarm_expect(goals(&CLASSIC_GOALS)),
            check: every_input_owned_once,
        },
        Scenario {
            name: "swarm-mixed",
            description: "a streams group and a classic static group sharing the cluster under a \
                          per-seed fault mix",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("input", 4)
                    .with_topic("orders", 4)
                    .with_streams(
                        StreamsAppSpec::new("app", stateful_topology("app"), 2, 2).with_standbys(1),
                    )
                    .with_classic(
                        ClassicGroupSpec::new("billing", &["orders"], 2, 1)
                            .with_static_membership(),
                    )
            },
            faults: Faults::Swarm(SwarmConfig::default),
            expect: swarm_expect(goals(&MIXED_GOALS)),
            check: every_input_owned_once,
        },
        Scenario {
            name: "swarm-consumer",
            description: "a consumer-protocol group (2-4 processes x 2 dynamic consumers) under a \
                          per-seed fault mix (static members are the targeted scenarios': under \
                          crashes a third of the seeds end with members dead of Kafka's \
                          UNRELEASED_INSTANCE_ID, a known behaviour)",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 8)
                    .with_consumer(ConsumerGroupSpec::new("payments", &["orders"], 3, 2))
            },
            faults: Faults::Swarm(|| SwarmConfig {
                kinds: SwarmKind::ALL
                    .iter()
                    .copied()
                    .filter(|k| *k != SwarmKind::AdminProbe)
                    .collect(),
                processes: Some((2, 4)),
                ..SwarmConfig::default()
            }),
            expect: swarm_expect(goals(&CONSUMER_GOALS)),
            check: every_input_owned_once,
        },
    ]
}

/// Under any fault mix, each group ends with every task (partition) owned exactly once by a
/// member of the final group, and at least one drawn fault actually happened.
fn every_input_owned_once(v: &View) -> Result<(), String> {
    let injected: u32 = v.outcome.faults.values().map(|c| c.injected).sum();
    ensure(injected >= 1, || {
        format!("no fault injected: {:?}", v.outcome.faults)
    })?;
    let shut_down = v
        .outcome
        .faults
        .get("shutdown-application")
        .is_some_and(|c| c.injected > 0);
    for g in &v.outcome.groups {
        if shut_down && g.kind == "streams" {
            // The application asked for its shutdown (`shutdown-request`): the convergence
            // invariant required its group to end with no member, so nothing is owned.
            ensure(g.members.is_empty(), || {
                format!(
                    "group {}: {} members after the application's shutdown",
                    g.group_id,
                    g.members.len()
                )
            })?;
            continue;
        }
        let mut owned: Vec<&String> = g
            .members
            .iter()
            .flat_map(|m| m.active_tasks.iter().chain(&m.partitions))
            .collect();
        let n = owned.len();
        owned.sort();
        owned.dedup();
        ensure(n == owned.len() && n > 0, || {
            format!(
                "group {}: {n} owned items, {} distinct",
                g.group_id,
                owned.len()
            )
        })?;
    }
    Ok(())
}

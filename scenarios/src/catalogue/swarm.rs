//! Swarm-mode scenarios: each seed draws its own fault mix.

use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};
use sim::swarm::SwarmConfig;

use super::basic::{stateful_topology, two_stage_topology};
use super::check::{View, ensure};
use super::{Expect, Faults, Scenario};

fn swarm_expect() -> Expect {
    Expect {
        faults_injected: false,
        ..Expect::default()
    }
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
            expect: swarm_expect(),
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
            expect: swarm_expect(),
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
            expect: swarm_expect(),
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
    for g in &v.outcome.groups {
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

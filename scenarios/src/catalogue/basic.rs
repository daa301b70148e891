//! Fault-free scenarios: groups forming from a cold start.

use members::streams::topology::{InternalTopic, Subtopology, Topology};
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

use super::{Expect, Faults, Scenario};

/// A word-count-like topology: a stateless subtopology feeding a stateful one through a
/// repartition topic.
pub fn two_stage_topology(app: &str) -> Topology {
    let repartition = format!("{app}-by-key-repartition");
    Topology::new(vec![
        Subtopology::new("0", &["input"]).with_repartition_sink(repartition.clone()),
        Subtopology::new("1", &[])
            .with_repartition_source(InternalTopic::new(repartition))
            .with_changelog(InternalTopic::new(format!("{app}-counts-changelog"))),
    ])
}

/// A single stateful subtopology reading `input`.
pub fn stateful_topology(app: &str) -> Topology {
    Topology::new(vec![
        Subtopology::new("0", &["input"])
            .with_changelog(InternalTopic::new(format!("{app}-store-changelog"))),
    ])
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "cold-start-streams",
            description: "a streams application (3 processes x 2 threads, one standby) forms its \
                          group on a 3-broker cluster; no faults",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("input", 6).with_streams(
                    StreamsAppSpec::new("wordcount", two_stage_topology("wordcount"), 3, 2)
                        .with_standbys(1),
                )
            },
            faults: Faults::None,
            expect: Expect::default(),
        },
        Scenario {
            name: "cold-start-classic-static",
            description: "a classic consumer group of 4 static members (2 processes x 2 \
                          consumers) forms on a 3-broker cluster; no faults",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("orders", 8).with_classic(
                    ClassicGroupSpec::new("billing", &["orders"], 2, 2).with_static_membership(),
                )
            },
            faults: Faults::None,
            expect: Expect::default(),
        },
        Scenario {
            name: "demo-failing-run",
            description: "deliberately fails: a 1 s convergence bound no cluster meets (shows \
                          what a failure report and its replay command look like)",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 2)
                    .with_classic(ClassicGroupSpec::new("billing", &["orders"], 1, 1))
            },
            faults: Faults::None,
            expect: Expect {
                convergence_bound_ms: Some(1_000),
                ..Expect::default()
            },
        },
    ]
}

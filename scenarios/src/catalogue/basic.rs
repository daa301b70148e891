//! Fault-free scenarios: groups forming from a cold start.

use members::streams::topology::{InternalTopic, Subtopology, Topology};
use sim::coverage::Goal;
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

use super::check::{View, ensure, host};
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
            description: "a streams application (4 processes x 2 threads, 2 subtopologies, one \
                          standby) forms its group on a 3-broker cluster; no faults",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("input", 6).with_streams(
                    StreamsAppSpec::new("wordcount", two_stage_topology("wordcount"), 4, 2)
                        .with_standbys(1),
                )
            },
            faults: Faults::None,
            expect: Expect::default(),
            check: cold_start_streams,
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
            check: cold_start_classic,
        },
    ]
}

/// The demos' cluster: one classic consumer on a two-partition topic.
fn one_consumer() -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 2)
        .with_classic(ClassicGroupSpec::new("billing", &["orders"], 1, 1))
}

/// Demonstrations outside the catalogue.
pub fn demos() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "demo-failing-run",
            description: "deliberately fails: a 1 s convergence bound no cluster meets (shows \
                          what a failure report and its replay command look like)",
            default_seed: 1,
            cluster: one_consumer,
            faults: Faults::None,
            expect: Expect {
                convergence_bound_ms: Some(1_000),
                ..Expect::default()
            },
            check: |_| Ok(()),
        },
        Scenario {
            name: "demo-unreached-goal",
            description: "passes every run but declares coverage goals its quiet cluster never \
                          reaches (shows how `sweep --coverage` fails on an unreached goal)",
            default_seed: 1,
            cluster: one_consumer,
            faults: Faults::None,
            expect: Expect {
                goals: &[Goal::FaultInjected("crash"), Goal::ControlledShutdown],
                ..Expect::default()
            },
            check: |_| Ok(()),
        },
    ]
}

/// 8 members over 4 processes; both subtopologies' 6 tasks run once, each member has 1 or 2 of
/// the 12; the stateful subtopology's 6 tasks have one standby each; nobody was fenced.
fn cold_start_streams(v: &View) -> Result<(), String> {
    let g = v.group("wordcount")?;
    ensure(g.members.len() == 8, || {
        format!("{} members", g.members.len())
    })?;
    let active: usize = g.members.iter().map(|m| m.active_tasks.len()).sum();
    let standby: usize = g.members.iter().map(|m| m.standby_tasks.len()).sum();
    ensure(active == 12 && standby == 6, || {
        format!("{active} active and {standby} standby tasks, 12 and 6 expected")
    })?;
    for m in &g.members {
        ensure((1..=2).contains(&m.active_tasks.len()), || {
            format!("member {} has {:?}", m.member_id, m.active_tasks)
        })?;
    }
    for i in 0..4 {
        ensure(
            !v.process_owned_final("wordcount", &host("wordcount", i))?
                .is_empty(),
            || format!("process {i} owns no task"),
        )?;
    }
    ensure(v.fencings("").is_empty(), || {
        format!("fencings: {:?}", v.fencings(""))
    })
}

/// Four static members with their instance ids, two of the 8 partitions each, all from the
/// first generation: the initial rebalance delay gathers every member into one rebalance.
fn cold_start_classic(v: &View) -> Result<(), String> {
    let g = v.group("billing")?;
    ensure(g.members.len() == 4, || {
        format!("{} members", g.members.len())
    })?;
    for m in &g.members {
        ensure(m.instance_id.is_some() && m.partitions.len() == 2, || {
            format!("member {:?} owns {:?}", m.instance_id, m.partitions)
        })?;
    }
    ensure(g.epoch == 1, || {
        format!("generation {}, 1 expected", g.epoch)
    })
}

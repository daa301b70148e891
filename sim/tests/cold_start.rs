//! A fault-free cluster converges: a streams group and a classic static group form, every
//! invariant holds, and the groups end as expected.

use members::streams::topology::{InternalTopic, Subtopology, Topology};
use sim::faults::FaultSchedule;
use sim::runner::{RunOptions, run};
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

fn topology() -> Topology {
    Topology::new(vec![
        Subtopology::new("0", &["in"]).with_changelog(InternalTopic::new("app-store-changelog")),
    ])
}

#[test]
fn streams_and_classic_groups_converge_from_a_cold_start() {
    sim::logging::init();
    let spec = ClusterSpec::default()
        .with_topic("in", 4)
        .with_topic("events", 3)
        .with_streams(StreamsAppSpec::new("app", topology(), 2, 2).with_standbys(1))
        .with_classic(ClassicGroupSpec::new("cg", &["events"], 3, 1).with_static_membership());
    let outcome = run(spec, FaultSchedule::default(), &RunOptions::new(1)).unwrap();
    assert!(outcome.passed, "{:?}", outcome.violations);
    assert!(outcome.converged_at_ms.is_some());
    eprintln!(
        "converged at {:?}, {} events",
        outcome.converged_at_ms, outcome.events
    );
    let app = outcome.groups.iter().find(|g| g.group_id == "app").unwrap();
    assert_eq!(app.members.len(), 4);
    let active: usize = app.members.iter().map(|m| m.active_tasks.len()).sum();
    let standby: usize = app.members.iter().map(|m| m.standby_tasks.len()).sum();
    assert_eq!((active, standby), (4, 4));
    let cg = outcome.groups.iter().find(|g| g.group_id == "cg").unwrap();
    assert_eq!(cg.kind, "classic");
    assert_eq!(cg.members.len(), 3);
    assert!(
        cg.members
            .iter()
            .all(|m| m.instance_id.is_some() && m.partitions.len() == 1)
    );
}

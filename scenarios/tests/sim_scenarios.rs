//! Catalogue scenarios in the simulator: the swarm scenarios pass with every invariant checked,
//! each scheduled fault visibly happens and has its effect, and runs are deterministic.
//!
//! `REGROUP_SEED=N cargo test -p scenarios --test sim_scenarios` runs every scenario with seed N.

use coordinator::events::{EventKind as ClusterKind, FenceReason};
use members::observer::EventKind as ClientKind;
use protocol::ErrorCode;
use scenarios::catalogue::{self, Scenario};
use scenarios::run::{ScenarioRun, run_scenario};
use sim::event::{FaultEvent, SimEvent, SimEventKind};

fn scenario(name: &str) -> Scenario {
    catalogue::find(name).unwrap_or_else(|| panic!("no scenario {name}"))
}

/// Runs a scenario with its test seed, keeping the log; panics with the report if it failed.
fn passing(name: &str) -> ScenarioRun {
    let s = scenario(name);
    let run = run_scenario(&s, s.test_seed(), true).expect("setup");
    assert!(run.passed(), "{}", run.summary());
    run
}

/// The hosts the first injected fault of kind `fault` resolved to, and when.
fn injected(log: &[SimEvent], fault: &str) -> (i64, Vec<String>) {
    log.iter()
        .find_map(|e| match &e.kind {
            SimEventKind::Fault(FaultEvent::Injected {
                fault: f, hosts, ..
            }) if *f == fault => Some((e.at_ms, hosts.clone())),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no {fault} fault was injected"))
}

fn broker_id(host: &str) -> i32 {
    host.strip_prefix("broker-").unwrap().parse().unwrap()
}

#[test]
fn swarm_streams_group_passes_under_its_fault_mix() {
    let run = passing("swarm-streams");
    let injected: u32 = run.outcome.faults.values().map(|c| c.injected).sum();
    assert!(injected >= 1, "{:?}", run.outcome.faults);
    assert!(run.swarm.is_some());
    let g = &run.outcome.groups[0];
    assert_eq!((g.group_id.as_str(), g.kind), ("wordcount", "streams"));
    let processes = run.swarm.as_ref().unwrap().processes["wordcount"];
    assert_eq!(g.members.len(), processes * 2);
    // Both subtopologies' 6 tasks run exactly once.
    let mut active: Vec<&String> = g.members.iter().flat_map(|m| &m.active_tasks).collect();
    active.sort();
    assert_eq!(active.len(), 12, "{active:?}");
    active.dedup();
    assert_eq!(active.len(), 12);
}

#[test]
fn swarm_classic_static_group_passes_under_its_fault_mix() {
    let run = passing("swarm-classic-static");
    let injected: u32 = run.outcome.faults.values().map(|c| c.injected).sum();
    assert!(injected >= 1, "{:?}", run.outcome.faults);
    let g = &run.outcome.groups[0];
    assert_eq!((g.group_id.as_str(), g.kind), ("billing", "classic"));
    assert!(g.members.iter().all(|m| m.instance_id.is_some()));
    let mut parts: Vec<&String> = g.members.iter().flat_map(|m| &m.partitions).collect();
    parts.sort();
    parts.dedup();
    assert_eq!(parts.len(), 8);
}

#[test]
fn a_crashed_coordinator_fails_over_to_another_broker() {
    let run = passing("coordinator-crash-streams");
    let log = &run.outcome.log;
    let (at, hosts) = injected(log, "crash");
    let crashed = broker_id(&hosts[0]);
    let partition = coordinator::broker::placement::partition_for("app", 3);
    let moved = log.iter().any(|e| {
        e.at_ms > at
            && matches!(&e.kind, SimEventKind::Cluster { node, kind: ClusterKind::CoordinatorLoaded { partition: p, .. } }
                if *node != crashed && *p == partition)
    });
    assert!(
        moved,
        "no other broker loaded the group's coordinator after the crash"
    );
}

#[test]
fn a_coordinator_cut_off_from_the_controller_is_fenced() {
    let run = passing("fenced-coordinator-streams");
    let log = &run.outcome.log;
    let (at, hosts) = injected(log, "fence-broker");
    let broker = broker_id(&hosts[0]);
    let fenced = log.iter().find(|e| {
        matches!(&e.kind, SimEventKind::Cluster { kind: ClusterKind::BrokerFenced { broker: b, reason: FenceReason::SessionExpired, .. }, .. } if *b == broker)
    });
    let fenced = fenced.expect("the controller never fenced the isolated coordinator");
    // Its session (9 s) runs from its last heartbeat, up to one interval (2 s) before the
    // isolation; the controller notices within one scan period (9 s / 8).
    let after = fenced.at_ms - at;
    assert!(
        (7_000..=9_000 + 1_125 + 10).contains(&after),
        "fenced {after} ms after isolation"
    );
}

#[test]
fn zombie_members_lose_their_tasks_and_their_commits_are_rejected() {
    let run = passing("zombie-process-streams");
    let log = &run.outcome.log;
    let (at, hosts) = injected(log, "pause");
    let zombie = &hosts[0];
    // While paused, the other processes took the zombie's tasks over.
    let others_acquired = log.iter().any(|e| {
        e.at_ms > at
            && e.host != *zombie
            && matches!(&e.kind, SimEventKind::Client { kind: ClientKind::TasksAcquired { active, .. }, .. } if !active.is_empty())
    });
    assert!(others_acquired);
    // Released, the zombies learn they were removed; their last commits are refused.
    let rejected = log.iter().filter(|e| {
        e.host == *zombie
            && matches!(&e.kind, SimEventKind::Client { kind: ClientKind::CommitRejected { error, .. }, .. }
                if matches!(error, ErrorCode::UnknownMemberId | ErrorCode::StaleMemberEpoch))
    });
    assert!(rejected.count() >= 1);
}

#[test]
fn members_with_stalled_heartbeats_are_removed_and_their_commits_rejected() {
    let run = passing("stalled-heartbeats-streams");
    let log = &run.outcome.log;
    let (at, hosts) = injected(log, "stall-heartbeats");
    let stalled = &hosts[0];
    // Commits keep being accepted for a while, then the coordinator has removed the members.
    let accepted_during = log.iter().any(|e| {
        e.at_ms > at
            && e.host == *stalled
            && matches!(
                &e.kind,
                SimEventKind::Client {
                    kind: ClientKind::CommitAccepted { .. },
                    ..
                }
            )
    });
    assert!(accepted_during);
    let rejected = log.iter().find(|e| {
        e.at_ms > at
            && e.host == *stalled
            && matches!(&e.kind, SimEventKind::Client { kind: ClientKind::CommitRejected { error, .. }, .. }
                if matches!(error, ErrorCode::UnknownMemberId | ErrorCode::StaleMemberEpoch))
    });
    let rejected = rejected.expect("no commit of a stalled member was rejected");
    // The session timeout is 10 s.
    assert!(rejected.at_ms - at >= 10_000, "{}", rejected.at_ms - at);
}

#[test]
fn topic_changes_controller_and_silent_deaths_converge() {
    for name in [
        "controller-crash",
        "silent-coordinator-death",
        "topic-created-mid-run",
    ] {
        let run = passing(name);
        assert!(run.outcome.converged_at_ms.is_some(), "{name}");
    }
    let run = passing("topic-created-mid-run");
    let parts: Vec<&String> = run.outcome.groups[0]
        .members
        .iter()
        .flat_map(|m| &m.partitions)
        .collect();
    assert!(parts.iter().any(|p| p.starts_with("refunds-")), "{parts:?}");
}

#[test]
fn same_seed_same_trace_other_seed_other_trace() {
    for name in [
        "cold-start-streams",
        "coordinator-crash-streams",
        "swarm-classic-static",
        "swarm-streams",
    ] {
        let s = scenario(name);
        let seed = s.test_seed();
        let a = run_scenario(&s, seed, false).unwrap();
        let b = run_scenario(&s, seed, false).unwrap();
        let c = run_scenario(&s, seed + 1, false).unwrap();
        assert_eq!(
            a.outcome.trace_hash, b.outcome.trace_hash,
            "{name} seed {seed}"
        );
        assert_eq!(a.outcome.events, b.outcome.events, "{name}");
        assert_ne!(
            a.outcome.trace_hash,
            c.outcome.trace_hash,
            "{name} seeds {seed} and {}",
            seed + 1
        );
    }
}

#[test]
fn every_scenario_but_the_demo_passes_with_its_seed() {
    for s in catalogue::all() {
        if s.name.starts_with("swarm-") || s.name == "demo-failing-run" {
            continue;
        }
        let run = run_scenario(&s, s.test_seed(), false).unwrap();
        assert!(run.passed(), "{}", run.summary());
    }
    let demo = scenario("demo-failing-run");
    let run = run_scenario(&demo, demo.default_seed, false).unwrap();
    assert!(!run.passed());
    assert_eq!(run.violations[0].invariant.name(), "convergence");
}

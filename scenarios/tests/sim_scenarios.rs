//! The simulator under catalogue scenarios: runs are deterministic, and the failing demo fails
//! the way a report should. (Each scenario's own expectations are checked by its check function
//! and run by `tests/catalogue.rs`.)
//!
//! `REGROUP_SEED=N cargo test -p scenarios --test sim_scenarios` uses seed N.

use scenarios::catalogue::{self, Scenario};
use scenarios::run::run_scenario;

fn scenario(name: &str) -> Scenario {
    catalogue::find(name).unwrap_or_else(|| panic!("no scenario {name}"))
}

#[test]
fn same_seed_same_trace_other_seed_other_trace() {
    for name in [
        "cold-start-streams",
        "coordinator-crash-streams",
        "swarm-classic-static",
        "swarm-streams",
        // Classic consumers that drop their coordinator with several requests in flight (the order
        // in which those fail was once random).
        "broker-rolling-restart",
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
        assert_eq!(a.summary, b.summary, "{name}");
        assert_ne!(
            a.outcome.trace_hash,
            c.outcome.trace_hash,
            "{name} seeds {seed} and {}",
            seed + 1
        );
    }
}

#[test]
fn the_demo_fails_on_convergence_and_a_check_failure_is_an_expectation_violation() {
    let demo = scenario("demo-failing-run");
    let run = run_scenario(&demo, demo.default_seed, false).unwrap();
    assert!(!run.passed());
    assert_eq!(run.violations[0].invariant.name(), "convergence");
    assert!(!run.summary.passed);
    // A scenario whose own check fails reports an `expectation` violation naming it.
    let mut strict = scenario("cold-start-classic-static");
    strict.check = |_| Err("deliberately unmet".into());
    let run = run_scenario(&strict, 1, false).unwrap();
    assert_eq!(run.violations.len(), 1);
    assert_eq!(run.violations[0].invariant.name(), "expectation");
    assert!(
        run.violations[0]
            .detail
            .contains("cold-start-classic-static: deliberately unmet"),
        "{}",
        run.violations[0].detail
    );
}

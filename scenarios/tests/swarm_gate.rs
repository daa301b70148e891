//! A bounded sweep as a test: the swarm scenarios over their first seeds, each run passed or
//! only a documented Kafka 4.4.0 behaviour. This is the "bounded sweep" part of the mutation test
//! command (`.cargo/mutants.toml`): the catalogue runs each scenario at one seed, this adds the swarm's
//! fault mixes. It is ignored by `cargo test` because CI sweeps the same scenarios over 200 seeds
//! with the release binary (`.ci/steps/sweep.sh`); `cargo test --test swarm_gate -- --ignored` runs
//! it, and `SWARM_GATE_SEEDS=N` changes how many seeds (default 12). `SWARM_GATE_ASSIGNOR_ORACLE=1`
//! also checks every streams target assignment against Kafka's own assignor (`--assignor-oracle`:
//! needs Java and `mvn -f conformance/oracle/pom.xml package`).

use scenarios::catalogue;
use scenarios::run::{Verdict, run_scenario};

fn gate(name: &str) {
    if std::env::var_os("SWARM_GATE_ASSIGNOR_ORACLE").is_some() {
        scenarios::assignor_oracle::enable_default().expect("the assignor oracle");
    }
    let scenario = catalogue::find(name).expect("a swarm scenario");
    let seeds: u64 = std::env::var("SWARM_GATE_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(12);
    for seed in 1..=seeds {
        let run = run_scenario(&scenario, seed, false).expect("setup");
        assert_ne!(
            run.verdict(),
            Verdict::Failed,
            "{name} seed {seed}:\n{}",
            run.summary()
        );
    }
}

#[test]
#[ignore = "CI sweeps these scenarios over 200 seeds in release (.ci/steps/sweep.sh)"]
fn swarm_streams() {
    gate("swarm-streams");
}

#[test]
#[ignore = "CI sweeps these scenarios over 200 seeds in release (.ci/steps/sweep.sh)"]
fn swarm_classic_static() {
    gate("swarm-classic-static");
}

#[test]
#[ignore = "CI sweeps these scenarios over 200 seeds in release (.ci/steps/sweep.sh)"]
fn swarm_mixed() {
    gate("swarm-mixed");
}

#[test]
#[ignore = "CI sweeps these scenarios over 200 seeds in release (.ci/steps/sweep.sh)"]
fn swarm_consumer() {
    gate("swarm-consumer");
}

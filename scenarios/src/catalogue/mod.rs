//! The scenario catalogue: every scenario `regroup run` and the test suites know, by name.
//!
//! A scenario is a declarative [`Scenario`] value: a name, a one-line description, the seed it
//! runs with by default, a function building its cluster, its faults (none, a fixed schedule, or
//! swarm mode) and its expectations. Adding one means writing such a value in one of the modules
//! below (grouped by theme) and listing it in [`all`]:
//!
//! ```ignore
//! Scenario {
//!     name: "coordinator-crash-streams",
//!     description: "the broker coordinating a streams group crashes and comes back",
//!     default_seed: 1,
//!     cluster: || ClusterSpec::default().with_topic("in", 6).with_streams(app(3, 2)),
//!     faults: Faults::Schedule(|| vec![
//!         FaultWindow::at(15_000, FaultKind::Crash { host: HostRef::coordinator_of("app") })
//!             .lasting(12_000),
//!     ]),
//!     expect: Expect::default(),
//! }
//! ```

pub mod basic;
pub mod failover;
pub mod swarm;

use sim::faults::{FaultSchedule, FaultWindow};
use sim::runner::RunOptions;
use sim::spec::ClusterSpec;
use sim::swarm::{SwarmConfig, SwarmOptions};

/// How a scenario's faults are chosen.
#[derive(Clone, Copy)]
pub enum Faults {
    /// No faults: the liveness phase starts at once.
    None,
    /// A fixed schedule (the seed still drives everything else).
    Schedule(fn() -> Vec<FaultWindow>),
    /// Swarm mode: the seed draws the fault mix (see [`sim::swarm`]).
    Swarm(fn() -> SwarmConfig),
}

/// What a run of the scenario must show beyond the invariants.
#[derive(Debug, Clone, Copy, Default)]
pub struct Expect {
    /// Liveness bound after the final heal (`None`: the default formula,
    /// [`sim::runner::default_convergence_bound_ms`]).
    pub convergence_bound_ms: Option<u64>,
    /// The run lasts at least this long (simulated ms).
    pub min_duration_ms: u64,
    /// Every scheduled fault must actually be injected (none skipped), and at least one must be.
    pub faults_injected: bool,
}

/// A scenario of the catalogue.
#[derive(Clone, Copy)]
pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
    pub default_seed: u64,
    pub cluster: fn() -> ClusterSpec,
    pub faults: Faults,
    pub expect: Expect,
}

/// A scenario made concrete for one seed.
#[derive(Debug, Clone)]
pub struct Prepared {
    pub spec: ClusterSpec,
    pub schedule: FaultSchedule,
    pub swarm: Option<SwarmOptions>,
    pub options: RunOptions,
}

impl Scenario {
    /// The seed to use in cargo tests: `REGROUP_SEED` if set, else the scenario's default.
    pub fn test_seed(&self) -> u64 {
        sim::seed::seed_from_env().unwrap_or(self.default_seed)
    }

    /// The cluster, faults and run options for `seed` (swarm options are drawn here).
    pub fn prepare(&self, seed: u64) -> Prepared {
        let mut spec = (self.cluster)();
        let mut swarm = None;
        let schedule = match self.faults {
            Faults::None => FaultSchedule::default(),
            Faults::Schedule(windows) => FaultSchedule::new(windows()),
            Faults::Swarm(config) => {
                let mut rng = sim::seed::rng(seed, "swarm");
                let mut options = SwarmOptions::draw(&config(), &spec, &mut rng);
                options.apply(&mut spec);
                let schedule = options.schedule(&spec, &mut rng);
                swarm = Some(options);
                schedule
            }
        };
        let mut options = RunOptions::new(seed);
        options.convergence_bound_ms = self.expect.convergence_bound_ms;
        options.min_duration_ms = self.expect.min_duration_ms;
        Prepared {
            spec,
            schedule,
            swarm,
            options,
        }
    }
}

/// Every scenario, in the order `regroup` lists them.
pub fn all() -> Vec<Scenario> {
    let mut v = Vec::new();
    v.extend(basic::scenarios());
    v.extend(failover::scenarios());
    v.extend(swarm::scenarios());
    v
}

/// The scenario called `name`.
pub fn find(name: &str) -> Option<Scenario> {
    all().into_iter().find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn names_are_unique_and_well_formed() {
        let mut seen = BTreeSet::new();
        for s in all() {
            assert!(seen.insert(s.name), "duplicate scenario {}", s.name);
            assert!(
                s.name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'),
                "{}",
                s.name
            );
            assert!(!s.description.is_empty());
        }
        assert!(find("cold-start-streams").is_some());
        assert!(find("no-such-scenario").is_none());
    }
}

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

pub mod admin;
pub mod basic;
pub mod brokers;
pub mod check;
pub mod classic;
pub mod consumer;
pub mod failover;
pub mod migration;
pub mod rude;
pub mod streams;
pub mod swarm;
pub mod zoo;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sim::coverage::Goal;
use sim::faults::{FaultKind, FaultSchedule, FaultWindow, HostRef};
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
    /// Members a group must have when it converges, where the spec and schedule do not say
    /// (e.g. a member refused by `group.max.size`).
    pub members: &'static [(&'static str, usize)],
    /// How long the run goes on after the groups converged (see
    /// [`sim::runner::RunOptions::settle_ms`]).
    pub settle_ms: u64,
    /// Coverage goals ([`sim::coverage::Goal`]): states some seed of a sweep of this scenario must
    /// reach (`regroup sweep --coverage` fails naming a goal no seed reached). Unlike the fields
    /// above these are not judged per run.
    pub goals: &'static [Goal],
}

/// A scenario's own expectation, checked on the finished run (with its event log) after the
/// global invariants: `Err` says what was not as expected.
pub type Check = fn(&check::View) -> Result<(), String>;

/// A scenario of the catalogue.
#[derive(Clone, Copy)]
pub struct Scenario {
    pub name: &'static str,
    pub description: &'static str,
    pub default_seed: u64,
    pub cluster: fn() -> ClusterSpec,
    pub faults: Faults,
    pub expect: Expect,
    pub check: Check,
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
        self.prepared(spec, schedule, swarm, seed)
    }

    /// The scenario for `seed` with everything its seed would draw given explicitly by `case`
    /// (a shrunk failure): the case's swarm options, then its size overrides, applied to the
    /// scenario's cluster, and its schedule instead of the drawn one.
    pub fn prepare_case(&self, seed: u64, case: &Case) -> Prepared {
        let mut spec = (self.cluster)();
        if let Some(options) = &case.swarm {
            options.apply(&mut spec);
        }
        case.apply(&mut spec);
        let schedule = FaultSchedule::new(case.schedule.clone());
        self.prepared(spec, schedule, case.swarm.clone(), seed)
    }

    fn prepared(
        &self,
        spec: ClusterSpec,
        schedule: FaultSchedule,
        swarm: Option<SwarmOptions>,
        seed: u64,
    ) -> Prepared {
        let mut options = RunOptions::new(seed);
        options.convergence_bound_ms = self.expect.convergence_bound_ms;
        options.min_duration_ms = self.expect.min_duration_ms;
        options.settle_ms = self.expect.settle_ms;
        options.expected_members = self
            .expect
            .members
            .iter()
            .map(|(g, n)| (g.to_string(), *n))
            .collect();
        Prepared {
            spec,
            schedule,
            swarm,
            options,
        }
    }
}

/// What a seed draws, made explicit: the swarm options (process counts, latency), the fault
/// schedule, and sizes overridden by shrinking. A failure file that carries one replays it instead
/// of drawing (`regroup shrink` writes such files).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    pub swarm: Option<SwarmOptions>,
    pub schedule: Vec<FaultWindow>,
    /// Member threads per process (streams) or consumers per process (classic), per group id.
    #[serde(default)]
    pub threads: BTreeMap<String, usize>,
    /// Partitions per topic created at start.
    #[serde(default)]
    pub partitions: BTreeMap<String, i32>,
}

impl Case {
    /// The case `prepared` runs.
    pub fn of(prepared: &Prepared) -> Case {
        Case {
            swarm: prepared.swarm.clone(),
            schedule: prepared.schedule.windows.clone(),
            threads: BTreeMap::new(),
            partitions: BTreeMap::new(),
        }
    }

    /// Applies the size overrides to `spec`.
    pub fn apply(&self, spec: &mut ClusterSpec) {
        for app in &mut spec.streams_apps {
            if let Some(n) = self.threads.get(&app.application_id) {
                app.threads = *n;
            }
        }
        for g in &mut spec.classic_groups {
            if let Some(n) = self.threads.get(&g.group_id) {
                g.consumers_per_process = *n;
            }
        }
        for g in &mut spec.consumer_groups {
            if let Some(n) = self.threads.get(&g.group_id) {
                g.consumers_per_process = *n;
            }
        }
        for t in &mut spec.topics {
            if let Some(n) = self.partitions.get(&t.name) {
                t.partitions = *n;
            }
        }
    }
}

/// Dormant process `index` of `group` starts at `at_ms` (scale-out).
pub(crate) fn start_process(group: &str, index: usize, at_ms: u64) -> FaultWindow {
    FaultWindow::at(
        at_ms,
        FaultKind::StartProcess {
            host: HostRef::process(group, index),
        },
    )
}

/// Process `index` of `group` closes at `at_ms` and starts again `down_ms` later.
fn stop_process(group: &str, index: usize, at_ms: u64, down_ms: u64) -> FaultWindow {
    FaultWindow::at(
        at_ms,
        FaultKind::StopProcess {
            host: HostRef::process(group, index),
        },
    )
    .lasting(down_ms)
}

/// A rolling bounce: processes `0..processes` of `group` close one after another, the first at
/// `first_ms` and each next `every_ms` later, each staying down `down_ms`.
pub(crate) fn rolling_bounce(
    group: &str,
    processes: usize,
    first_ms: u64,
    every_ms: u64,
    down_ms: u64,
) -> Vec<FaultWindow> {
    (0..processes)
        .map(|i| stop_process(group, i, first_ms + i as u64 * every_ms, down_ms))
        .collect()
}

/// Every scenario of the catalogue, in the order `regroup list` shows them. (Each passes at
/// seeds 1..=3; the main job and `sweep --all` run these.)
pub fn all() -> Vec<Scenario> {
    let mut v = Vec::new();
    v.extend(basic::scenarios());
    v.extend(streams::scenarios());
    v.extend(classic::scenarios());
    v.extend(consumer::scenarios());
    v.extend(migration::scenarios());
    v.extend(brokers::scenarios());
    v.extend(failover::scenarios());
    v.extend(admin::scenarios());
    v.extend(rude::scenarios());
    v.extend(swarm::scenarios());
    v.extend(zoo::scenarios());
    v
}

/// Scenarios outside the catalogue that `regroup run` still knows: demonstrations (one fails on
/// purpose).
pub fn demos() -> Vec<Scenario> {
    basic::demos()
}

/// The scenario called `name` (catalogue or demo).
pub fn find(name: &str) -> Option<Scenario> {
    all().into_iter().chain(demos()).find(|s| s.name == name)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;

    #[test]
    fn names_are_unique_and_well_formed() {
        let mut seen = BTreeSet::new();
        assert!(all().len() >= 30, "{} scenarios", all().len());
        for s in all().into_iter().chain(demos()) {
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

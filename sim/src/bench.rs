//! The cost workload: one streams application on 3 brokers and a controller under swarm faults,
//! sized by process count, threads per process and tick. `regroup bench sim` times it (simulated
//! seconds per wall second) and the criterion bench `sim_speed` guards it against regressions;
//! both build it here so they measure the same thing.

use members::streams::topology::{InternalTopic, Subtopology, Topology};

use crate::faults::FaultSchedule;
use crate::runner::RunOptions;
use crate::spec::{ClusterSpec, StreamsAppSpec};
use crate::swarm::{SwarmConfig, SwarmOptions};

/// One point of the cost measurement.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Workload {
    /// Streams processes (one turmoil host each).
    pub processes: usize,
    /// Member threads per process.
    pub threads: usize,
    /// Simulated time per turmoil step.
    pub tick_ms: u64,
    /// The run lasts at least this long; swarm faults fall in its first part.
    pub sim_ms: u64,
    /// Draw swarm faults (otherwise the cluster runs fault-free).
    pub faults: bool,
    pub seed: u64,
}

impl Workload {
    pub fn members(&self) -> usize {
        self.processes * self.threads
    }

    /// The cluster, the faults and the run options. The input topic has one partition per member
    /// so every member owns a task; one standby per stateful task.
    pub fn prepare(&self) -> (ClusterSpec, FaultSchedule, RunOptions) {
        let topology = Topology::new(vec![
            Subtopology::new("0", &["input"])
                .with_changelog(InternalTopic::new("app-store-changelog")),
        ]);
        let mut spec = ClusterSpec::default()
            .with_topic("input", self.members().max(1) as i32)
            .with_streams(
                StreamsAppSpec::new("app", topology, self.processes, self.threads).with_standbys(1),
            )
            .with_tick_ms(self.tick_ms);
        let schedule = if self.faults {
            let mut rng = crate::seed::rng(self.seed, "swarm");
            // Faults start within the first two thirds so the run ends healed and converged.
            let phase = (self.sim_ms * 2 / 3).max(10_000);
            let config = SwarmConfig {
                fault_phase_ms: (phase, phase),
                ..SwarmConfig::default()
            };
            let mut options = SwarmOptions::draw(&config, &spec, &mut rng);
            options.apply(&mut spec);
            options.schedule(&spec, &mut rng)
        } else {
            FaultSchedule::default()
        };
        let mut options = RunOptions::new(self.seed);
        options.min_duration_ms = self.sim_ms;
        (spec, schedule, options)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_workload_has_one_task_per_member_and_faults_inside_the_run() {
        let w = Workload {
            processes: 4,
            threads: 3,
            tick_ms: 5,
            sim_ms: 60_000,
            faults: true,
            seed: 9,
        };
        let (spec, schedule, options) = w.prepare();
        assert_eq!(spec.member_count(), 12);
        assert_eq!(spec.topics[0].partitions, 12);
        assert_eq!(spec.tick_ms, 5);
        assert_eq!(options.min_duration_ms, 60_000);
        assert!(!schedule.is_empty());
        assert!(schedule.windows.iter().all(|w| w.at_ms < 40_000));
        let (_, none, _) = Workload { faults: false, ..w }.prepare();
        assert!(none.is_empty());
    }
}

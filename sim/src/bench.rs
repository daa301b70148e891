//! The cost workload: one streams application on 3 brokers and a controller under swarm faults,
//! sized by process count, threads per process and tick. `regroup bench sim` times it (simulated
//! seconds per wall second) and the criterion bench `sim_speed` guards it against regressions;
//! both build it here so they measure the same thing.

use members::streams::topology::{InternalTopic, Subtopology, Topology};

use crate::faults::FaultSchedule;
use crate::runner::RunOptions;
use crate::spec::{ClusterSpec, StreamsAppSpec};
use crate::swarm::{SwarmConfig, SwarmKind, SwarmOptions};

/// The group and client timings of the workload's application.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Timings {
    /// The catalogue's simulation-friendly timings ([`StreamsAppSpec::new`]): 1 s heartbeats,
    /// 10 s sessions, 20 s rebalance timeout, 5 s commits. Five times the heartbeat traffic of
    /// Kafka's defaults.
    #[default]
    Catalogue,
    /// Apache Kafka 4.4's defaults: `group.streams.heartbeat.interval.ms` 5 s,
    /// `group.streams.session.timeout.ms` 45 s, `group.streams.initial.rebalance.delay.ms` 3 s,
    /// Kafka Streams' `commit.interval.ms` 30 s, the consumer's `max.poll.interval.ms` 300 s and
    /// `request.timeout.ms` 30 s.
    Kafka,
}

impl Timings {
    fn apply(self, app: &mut StreamsAppSpec) {
        if self == Timings::Kafka {
            app.heartbeat_interval_ms = 5_000;
            app.session_timeout_ms = 45_000;
            app.initial_rebalance_delay_ms = 3_000;
            app.commit_interval_ms = 30_000;
            app.max_poll_interval_ms = 300_000;
            app.request_timeout_ms = 30_000;
        }
    }
}

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
    pub timings: Timings,
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
        let mut app =
            StreamsAppSpec::new("app", topology, self.processes, self.threads).with_standbys(1);
        self.timings.apply(&mut app);
        let mut spec = ClusterSpec::default()
            .with_topic("input", self.members().max(1) as i32)
            .with_streams(app)
            .with_tick_ms(self.tick_ms);
        let schedule = if self.faults {
            let mut rng = crate::seed::rng(self.seed, "swarm");
            // Faults start within the first two thirds so the run ends healed and converged.
            let phase = (self.sim_ms * 2 / 3).max(10_000);
            let config = SwarmConfig {
                fault_phase_ms: (phase, phase),
                // The workload keeps its timings' commit interval: the bench measures those.
                commit_interval_ms: None,
                streams_size_limit: false,
                rebalance_timeout_ms: None,
                // A shut-down application would end the workload early.
                kinds: SwarmKind::ALL
                    .iter()
                    .copied()
                    .filter(|k| *k != SwarmKind::ShutdownRequest)
                    .collect(),
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
            timings: Timings::Catalogue,
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
        let (kafka, _, _) = Workload {
            timings: Timings::Kafka,
            ..w
        }
        .prepare();
        let app = &kafka.streams_apps[0];
        assert_eq!(
            (
                app.heartbeat_interval_ms,
                app.session_timeout_ms,
                app.commit_interval_ms
            ),
            (5_000, 45_000, 30_000)
        );
        assert_eq!(spec.streams_apps[0].heartbeat_interval_ms, 1_000);
    }
}

//! regroup's turmoil harness: cluster builder, one seed, faults, observer, invariants,
//! determinism.
//!
//! * [`spec`]: what a cluster is made of ([`spec::ClusterSpec`]); [`cluster`] builds it on
//!   turmoil (controller, brokers, member processes, admin), [`net::TurmoilNet`] is the
//!   transport and clock the components run on.
//! * [`faults`]: fault windows a scenario schedules; [`swarm`] draws them per seed.
//! * [`hub`]: the observer — one ordered event log ([`event`]) with a trace hash, every event
//!   checked by the [`invariants`] against the committed group state ([`model`], rebuilt from the
//!   offsets partitions by [`mirror`]).
//! * [`runner`]: steps the simulation, injects and heals faults, checks convergence after the
//!   final heal.
//! * [`known`]: Kafka 4.4.0's own behaviours that fail a check, each with its proof; sweeps and runs
//!   report a violation that matches one as known instead of failing.
//! * [`seed`]: one `u64` seed, one ChaCha8 stream per consumer of randomness.
//! * [`drive`]: the same clients, faults, loop and checks in real time against a real cluster
//!   (`regroup drive`).
//! * [`logging`]: `tracing` output stamped with simulated time and host.

pub mod assignor_log;
pub mod bench;
pub mod cluster;
pub mod consumer_model;
pub mod coverage;
pub mod drive;
pub mod event;
pub mod faults;
pub mod hub;
pub mod invariants;
pub mod known;
pub mod links;
pub mod logging;
pub mod mirror;
pub mod model;
pub mod net;
pub mod rude;
pub mod runner;
pub mod seed;
pub mod spec;
pub mod swarm;

/// The build's identity, for failure reports.
pub mod build_info {
    /// The git revision the binary was built from (`unknown` outside a git checkout).
    pub const REVISION: &str = env!("REGROUP_GIT_REVISION");
    /// The crate version.
    pub const VERSION: &str = env!("CARGO_PKG_VERSION");
}

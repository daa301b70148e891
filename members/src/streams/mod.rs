//! Kafka Streams processes speaking the streams rebalance protocol (KIP-1071).

pub mod config;
pub mod errors;
mod member;
pub mod membership;
mod process;
pub mod state_dir;
pub mod topology;

pub use config::{FatalErrorPolicy, StreamsConfig, UnreleasedInstanceIdPolicy};
pub use membership::{Assignment, LeaveOperation, MemberState, Membership};
pub use process::StreamsProcess;
pub use state_dir::StateDirectory;
pub use topology::{InternalTopic, Subtopology, Topology};

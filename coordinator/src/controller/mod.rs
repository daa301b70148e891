//! The KRaft controller of a regroup cluster: one node, no Raft quorum.
//!
//! * [`state::Controller`]: the sans-IO state machine (registrations, broker epochs = metadata-log
//!   offsets, heartbeats with Kafka 4.4's transition table, the periodic stale-broker scan,
//!   controlled shutdown, topic creation, partition leadership with ELR, AlterPartition,
//!   preferred-leader balancing). Time is an argument.
//! * [`server`]: the async shell serving the controller listener over any [`crate::net::Net`].
//! * [`records`], [`image`]: the metadata log's records and the image they replay into, shared
//!   with the brokers (which follow the log).

pub mod config;
pub mod election;
pub mod heartbeat;
pub mod image;
pub use crate::metadata_records as records;
pub mod server;
pub mod state;
pub mod topic_configs;

pub use config::ControllerConfig;
pub use server::{AdminOp, ControllerHandle, ControllerStorage, run_controller, start_controller};
pub use state::{Controller, GROUP_METADATA_TOPIC, incarnation_topic_id};

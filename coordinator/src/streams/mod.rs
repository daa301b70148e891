//! KIP-1071 streams groups: group and member model, heartbeat handling, reconciliation, topology
//! configuration and the sticky task assignor.

pub mod assignor;
pub mod config;

pub use config::StreamsConfig;

//! Classic-protocol consumers (JoinGroup/SyncGroup/Heartbeat), static (KIP-345) or dynamic.

pub mod assignor;
pub mod config;
mod consumer;
pub mod protocol;

pub use assignor::Assignor;
pub use config::ConsumerConfig;
pub use consumer::{Consumer, ConsumerState};

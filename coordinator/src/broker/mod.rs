//! A regroup broker: an async shell over any [`crate::net::Net`] that registers with the
//! controller and heartbeats ([`lifecycle`]), follows the metadata log ([`metadata`]), replicates
//! the `__consumer_offsets` partitions ([`replica`], [`log`]), hosts one coordinator shard per
//! partition it leads ([`runtime`]), and serves clients ([`server`], [`apis`], [`groups`]).
//!
//! Start one with [`start_broker`] (or [`run_broker`] to run it until it stops) inside a
//! `tokio::task::LocalSet`; keep its [`BrokerStorage`] to restart it with its logs.

pub mod apis;
pub mod config;
pub mod errors;
pub mod groups;
pub mod lifecycle;
pub mod log;
pub mod metadata;
pub mod node;
pub mod placement;
mod published;
pub mod replica;
pub mod runtime;
mod runtime_shell;
pub mod server;
pub mod storage;

pub use config::BrokerConfig;
pub use node::{BrokerHandle, run_broker, start_broker};
pub use runtime::ContextState;
pub use storage::BrokerStorage;

//! regroup's broker slice: group coordinator shards (streams and classic groups), offsets, the KRaft
//! controller and the broker shell.
//!
//! The shard is sans-IO and event-sourced (docs/architecture.md): it decides, emits records, and
//! changes state only by replaying records, so loading after fail-over is the same code path.

pub mod broker;
pub mod classic;
pub mod config;
pub mod consumer;
pub mod context;
pub mod controller;
pub mod error;
pub mod events;
pub mod group;
pub mod group_admin;
pub mod group_deletion;
pub mod java;
pub mod metadata_records;
pub mod net;
pub mod offsets;
pub mod outcome;
pub mod records;
pub mod rpc;
pub mod shard;
pub mod streams;
pub mod timer;
pub mod topics;

pub use context::RequestContext;
pub use error::ApiError;
pub use outcome::{Fired, Outcome, Reply, RequestToken, ShardError, TopicToCreate};
pub use records::Record;
pub use shard::Shard;

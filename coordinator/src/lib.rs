//! regroup's broker slice: group coordinator shards (streams and classic groups), offsets, the KRaft
//! controller and the broker shell.
//!
//! The shard is sans-IO and event-sourced (see `../shared/DESIGN.md`): it decides, emits records, and
//! changes state only by replaying records, so loading after fail-over is the same code path.

pub mod records;
pub mod streams;
pub mod timer;
pub mod topics;

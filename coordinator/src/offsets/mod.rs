//! Committed offsets of every group in the shard: OffsetCommit, TxnOffsetCommit, OffsetFetch and
//! OffsetDelete with the per-group-type validation rules.

pub mod config;

pub use config::OffsetsConfig;

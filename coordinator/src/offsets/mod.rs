//! Committed offsets of every group in the shard: OffsetCommit, TxnOffsetCommit, OffsetFetch and
//! OffsetDelete with the per-group-type validation rules.

pub mod config;

pub use config::OffsetsConfig;

/// The committed offsets of every group in the shard. The offsets work owns this type.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OffsetStore {}

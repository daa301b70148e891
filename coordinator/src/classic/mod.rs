//! Classic consumer groups with KIP-345 static membership: the state machine (Empty, PreparingRebalance,
//! CompletingRebalance, Stable, Dead), joins, syncs, heartbeats, leaves and their timers.

pub mod config;

pub use config::ClassicConfig;

use crate::group::GroupValidation;
use crate::records::Record;

/// Every classic group of the shard. The classic work owns this type; the shard, the streams code and
/// the offsets code use only the methods below.
#[derive(Debug, Clone, Default)]
pub struct ClassicGroups {}

impl ClassicGroups {
    /// Whether a classic group with this id exists.
    pub fn contains(&self, group_id: &str) -> bool {
        let _ = group_id;
        false
    }

    /// Whether the classic group exists and is empty (a streams join may then replace it).
    pub fn is_empty_group(&self, group_id: &str) -> bool {
        let _ = group_id;
        false
    }

    /// The records that delete the group (Kafka's `createGroupTombstoneRecords`).
    pub fn tombstones(&self, group_id: &str) -> Vec<Record> {
        let _ = group_id;
        Vec::new()
    }

    /// The group's answers to offset and deletion validation.
    pub fn validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        let _ = group_id;
        None
    }

    /// One ListGroups row per classic group, sorted by group id.
    pub fn listings(&self) -> Vec<crate::group::GroupListing> {
        Vec::new()
    }
}

//! KIP-1071 streams groups: group and member model, heartbeat handling, reconciliation, topology
//! configuration and the sticky task assignor.

pub mod assignor;
pub mod config;

pub use config::StreamsConfig;

use crate::group::GroupValidation;

/// Every streams group of the shard. The streams work owns this type; the shard and the offsets code
/// use only the methods below.
#[derive(Debug, Clone, Default)]
pub struct StreamsGroups {}

impl StreamsGroups {
    /// Whether a streams group with this id exists.
    pub fn contains(&self, group_id: &str) -> bool {
        let _ = group_id;
        false
    }

    /// Whether the streams group exists and has no members.
    pub fn is_empty_group(&self, group_id: &str) -> bool {
        let _ = group_id;
        false
    }

    /// The group's answers to offset and deletion validation.
    pub fn validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        let _ = group_id;
        None
    }

    /// The records that delete the group (tombstones for every record of the group).
    pub fn tombstones(&self, group_id: &str) -> Vec<crate::records::Record> {
        let _ = group_id;
        Vec::new()
    }

    /// One ListGroups row per streams group, sorted by group id.
    pub fn listings(&self) -> Vec<crate::group::GroupListing> {
        Vec::new()
    }
}

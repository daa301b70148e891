//! The classic-group record of `__consumer_offsets` (record type 2, GroupMetadata). Kafka 4.4 always writes
//! the value at version 3 (`GROUP_METADATA_VALUE_VERSION` in `GroupCoordinatorRecordHelpers`), where every
//! field of the schema exists, so the JSON form is a plain lowerCamelCase object; byte fields are base64 as
//! Kafka's JsonConverter writes them.

use serde::{Deserialize, Serialize};

use super::json::base64_bytes;

/// The value version Kafka 4.4 writes for GroupMetadataValue.
pub const GROUP_METADATA_VALUE_VERSION: i16 = 3;

/// GroupMetadataKey: Kafka's schema names the single field `group`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct GroupMetadataKey {
    pub group: String,
}

/// One member of a classic group as persisted when a generation completes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberMetadata {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout: i32,
    pub session_timeout: i32,
    /// The member's metadata for the selected protocol.
    #[serde(with = "base64_bytes")]
    pub subscription: Vec<u8>,
    /// The assignment the leader gave this member.
    #[serde(with = "base64_bytes")]
    pub assignment: Vec<u8>,
}

/// GroupMetadataValue: the whole group, written at the end of a sync phase, when the group becomes empty
/// (generation 0 form written by `newEmptyGroupMetadataRecord`) and tombstoned on deletion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupMetadataValue {
    pub protocol_type: String,
    pub generation: i32,
    pub protocol: Option<String>,
    pub leader: Option<String>,
    pub current_state_timestamp: i64,
    pub members: Vec<MemberMetadata>,
}

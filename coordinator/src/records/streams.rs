//! The streams-group records of `__consumer_offsets` (record types 17, 19, 20, 21, 22 and 23), with the
//! fields of Kafka 4.4's `StreamsGroup*Key`/`StreamsGroup*Value` schemas. Every value is written at
//! version 0. Serialised to JSON the way Kafka's generated JsonConverter does: lowerCamelCase names,
//! tagged fields only when they differ from their default.

use serde::{Deserialize, Serialize};

fn is_minus_one_i32(v: &i32) -> bool {
    *v == -1
}

fn is_zero_i64(v: &i64) -> bool {
    *v == 0
}

/// Key of every streams record that belongs to the group as a whole (types 17, 20, 23).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupKey {
    pub group_id: String,
}

/// Key of every streams record that belongs to one member (types 19, 21, 22).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsMemberKey {
    pub group_id: String,
    pub member_id: String,
}

/// A key/value pair (client tags, assignment configs).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyValue {
    pub key: String,
    pub value: String,
}

/// StreamsGroupMetadataValue (type 17): the group epoch and what the epoch was computed from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupMetadataValue {
    pub epoch: i32,
    pub metadata_hash: i64,
    /// Tag 0: the topology epoch whose topics were validated against the metadata, -1 if none.
    #[serde(default = "minus_one_i32", skip_serializing_if = "is_minus_one_i32")]
    pub validated_topology_epoch: i32,
    /// Tag 1: the assignment configs used for the last target assignment, sorted by key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_assignment_configs: Option<Vec<KeyValue>>,
    /// Tag 2: the topology epoch a description plugin holds (-1 none, -2 uncertain).
    #[serde(default = "minus_one_i32", skip_serializing_if = "is_minus_one_i32")]
    pub stored_description_topology_epoch: i32,
    /// Tag 3: the topology epoch whose description push the plugin rejected for good, -1 if none.
    #[serde(default = "minus_one_i32", skip_serializing_if = "is_minus_one_i32")]
    pub failed_description_topology_epoch: i32,
}

fn minus_one_i32() -> i32 {
    -1
}

/// Host and port of a member's interactive-query endpoint.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    pub host: String,
    pub port: u16,
}

/// StreamsGroupMemberMetadataValue (type 19): what the member told the coordinator about itself.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupMemberMetadataValue {
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub topology_epoch: i32,
    pub process_id: String,
    pub user_endpoint: Option<Endpoint>,
    pub client_tags: Vec<KeyValue>,
}

/// StreamsGroupTargetAssignmentMetadataValue (type 20).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupTargetAssignmentMetadataValue {
    pub assignment_epoch: i32,
    /// Tag 0 (4.3+): when the assignment computation finished, in the coordinator's clock.
    #[serde(default, skip_serializing_if = "is_zero_i64")]
    pub assignment_timestamp: i64,
}

/// The tasks of one subtopology. `assignment_epochs` (tag 0) exists only in the current-assignment record
/// and only for active tasks: the epoch at which each partition was assigned, same length as
/// `partitions`, used to fence zombie offset commits.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskIds {
    pub subtopology_id: String,
    pub partitions: Vec<i32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignment_epochs: Option<Vec<i32>>,
}

/// StreamsGroupTargetAssignmentMemberValue (type 21): the member's target assignment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupTargetAssignmentMemberValue {
    pub active_tasks: Vec<TaskIds>,
    pub standby_tasks: Vec<TaskIds>,
    pub warmup_tasks: Vec<TaskIds>,
}

/// StreamsGroupCurrentMemberAssignmentValue (type 22): the member's epochs, reconciliation state, what it
/// owns and what it must still give up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupCurrentMemberAssignmentValue {
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    /// MemberState as int8: 1 STABLE, 2 UNREVOKED_TASKS, 3 UNRELEASED_TASKS, 127 UNKNOWN.
    pub state: i8,
    pub active_tasks: Vec<TaskIds>,
    pub standby_tasks: Vec<TaskIds>,
    pub warmup_tasks: Vec<TaskIds>,
    pub active_tasks_pending_revocation: Vec<TaskIds>,
    pub standby_tasks_pending_revocation: Vec<TaskIds>,
    pub warmup_tasks_pending_revocation: Vec<TaskIds>,
}

/// A topic the topology needs created or checked (changelog and repartition topics).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TopicInfo {
    pub name: String,
    pub partitions: i32,
    pub replication_factor: i16,
    /// Kafka's schema names the fields of this struct `key` and `value` in lower case already.
    pub topic_configs: Vec<KeyValue>,
}

/// Source topics (by index into the subtopology's lists) that must have the same partition count.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CopartitionGroup {
    pub source_topics: Vec<i16>,
    pub source_topic_regex: Vec<i16>,
    pub repartition_source_topics: Vec<i16>,
}

/// One subtopology of the persisted topology.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Subtopology {
    pub subtopology_id: String,
    pub source_topics: Vec<String>,
    pub source_topic_regex: Vec<String>,
    pub state_changelog_topics: Vec<TopicInfo>,
    pub repartition_sink_topics: Vec<String>,
    pub repartition_source_topics: Vec<TopicInfo>,
    pub copartition_groups: Vec<CopartitionGroup>,
}

/// StreamsGroupTopologyValue (type 23): the topology the group was initialised with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StreamsGroupTopologyValue {
    pub epoch: i32,
    pub subtopologies: Vec<Subtopology>,
}

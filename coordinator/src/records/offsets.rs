//! The offset-commit record of `__consumer_offsets` (record type 1). Kafka 4.4 writes the value at version 4,
//! or at version 1 when the commit carries an expire timestamp (OffsetCommit v2-4 with a retention time);
//! the two versions have different fields, so the JSON form is written per version like Kafka's
//! JsonConverter does.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use uuid::Uuid;

use super::json::kafka_uuid_string;

/// OffsetCommitKey: group, topic name and partition (Kafka's schema names are lower case).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct OffsetCommitKey {
    pub group: String,
    pub topic: String,
    pub partition: i32,
}

/// OffsetCommitValue. `expire_timestamp` is `Some` only for commits that asked for a retention time, and
/// then the value is written at version 1 (which has no leader epoch and no topic id).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OffsetCommitValue {
    pub offset: i64,
    /// -1 when the client did not send one.
    pub leader_epoch: i32,
    pub metadata: String,
    pub commit_timestamp: i64,
    pub expire_timestamp: Option<i64>,
    /// The committed topic's id, nil when unknown.
    pub topic_id: Uuid,
}

impl OffsetCommitValue {
    /// The value version Kafka writes for this commit (`offsetCommitValueVersion`).
    pub fn version(&self) -> i16 {
        if self.expire_timestamp.is_some() {
            1
        } else {
            4
        }
    }

    /// The JsonConverter form at [`Self::version`]: v1 has offset, metadata, commitTimestamp and
    /// expireTimestamp; v4 has offset, leaderEpoch, metadata, commitTimestamp and the tagged topicId,
    /// written only when it is not the nil uuid.
    pub fn to_json(&self) -> Value {
        let mut m = Map::new();
        m.insert("offset".into(), json!(self.offset));
        match self.expire_timestamp {
            Some(expire) => {
                m.insert("metadata".into(), json!(self.metadata));
                m.insert("commitTimestamp".into(), json!(self.commit_timestamp));
                m.insert("expireTimestamp".into(), json!(expire));
            }
            None => {
                m.insert("leaderEpoch".into(), json!(self.leader_epoch));
                m.insert("metadata".into(), json!(self.metadata));
                m.insert("commitTimestamp".into(), json!(self.commit_timestamp));
                if !self.topic_id.is_nil() {
                    m.insert("topicId".into(), json!(kafka_uuid_string(&self.topic_id)));
                }
            }
        }
        Value::Object(m)
    }
}

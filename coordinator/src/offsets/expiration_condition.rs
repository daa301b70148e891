//! When an offset has expired under its group's condition (Kafka's `OffsetExpirationConditionImpl`).

use super::store::OffsetAndMetadata;

pub use crate::group::OffsetExpirationCondition;

impl OffsetExpirationCondition {
    /// `isOffsetExpired`, in Java `long` arithmetic.
    pub fn is_offset_expired(
        &self,
        offset: &OffsetAndMetadata,
        now_ms: i64,
        retention_ms: i64,
    ) -> bool {
        if let Some(expire) = offset.expire_timestamp {
            return now_ms >= expire;
        }
        let base = match self {
            OffsetExpirationCondition::SinceCommit => offset.commit_timestamp,
            OffsetExpirationCondition::SinceEmpty(state) => {
                state.unwrap_or(offset.commit_timestamp)
            }
        };
        now_ms.wrapping_sub(base) >= retention_ms
    }
}

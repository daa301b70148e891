//! Offset retention and the expiry of empty groups: Kafka 4.4's periodic `cleanupGroupMetadata`
//! (`GroupCoordinatorShard`, every `offsets.retention.check.interval.ms`), `cleanupExpiredOffsets`
//! (`OffsetMetadataManager`) and `OffsetExpirationConditionImpl`.
//!
//! Each run visits every group: offsets of topics the group no longer consumes expire once
//! `offsets.retention.minutes` have passed since their base timestamp (see
//! [`OffsetExpirationCondition`]) unless a transaction still holds an offset for the partition; a group
//! left with no offsets and no pending transactional offsets is deleted if it is empty (Kafka's
//! `maybeDeleteGroup`, which also cancels the group's timers).

use crate::outcome::{Outcome, TimerTask};
use crate::records::Record;
use crate::shard::Shard;

use super::deletion::tombstone;
use super::store::OffsetAndMetadata;

/// Kafka's `GroupCoordinatorShard.GROUP_EXPIRATION_KEY`.
pub const GROUP_EXPIRATION_KEY: &str = "expire-group-metadata";

/// From when an offset's retention runs (Kafka's `OffsetExpirationConditionImpl` and its base
/// timestamp function). An offset committed with an explicit expire timestamp (OffsetCommit v2-4
/// retention) expires at that timestamp instead, whatever the condition.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetExpirationCondition {
    /// Since the offset was committed.
    SinceCommit,
    /// Since the group became empty (its current state timestamp); since the commit when the group
    /// has no state timestamp (loaded from a GroupMetadata record without one).
    SinceEmpty(Option<i64>),
}

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

/// `offsets.retention.minutes` in milliseconds (`GroupCoordinatorConfig.offsetsRetentionMs`).
fn retention_ms(shard: &Shard) -> i64 {
    i64::from(shard.config.offsets.retention_minutes) * 60 * 1000
}

/// The group's offset expiration condition (`Group.offsetExpirationCondition`); `None` when its offsets
/// must not expire now, or when there is no such group.
fn condition(shard: &Shard, group_id: &str) -> Option<OffsetExpirationCondition> {
    if let Some(group) = shard.streams.group(group_id) {
        return Some(group.offset_expiration_condition());
    }
    shard.classic.get(group_id)?.offset_expiration_condition()
}

/// `cleanupExpiredOffsets`: appends a tombstone for every expired offset of the group (in Kafka's
/// iteration order) and returns whether the group is left with no offsets, committed or pending.
pub fn cleanup_expired_offsets(
    shard: &Shard,
    group_id: &str,
    now_ms: i64,
    records: &mut Vec<Record>,
) -> bool {
    let store = &shard.offsets;
    let Some(topics) = store.group(group_id) else {
        return !store.group_has_pending(group_id);
    };
    // Kafka expects the owner of committed offsets to exist (a commit creates a simple group).
    let (Some(condition), Some(group)) =
        (condition(shard, group_id), shard.group_validation(group_id))
    else {
        return false;
    };
    let retention = retention_ms(shard);
    let mut all_expired = true;
    for (topic, partitions) in topics.iter() {
        if group.is_subscribed_to_topic(topic) {
            all_expired = false;
            continue;
        }
        for (partition, offset) in partitions.iter() {
            // An offset a transaction still writes to stays until the transaction ends.
            if condition.is_offset_expired(offset, now_ms, retention)
                && !store.has_pending(group_id, topic, *partition)
            {
                records.push(tombstone(group_id, topic, *partition));
            } else {
                all_expired = false;
            }
        }
    }
    all_expired && !store.group_has_pending(group_id)
}

/// `GroupCoordinatorShard.cleanupGroupMetadata` at `now_ms`: expires offsets group by group and deletes
/// the empty groups left without offsets. Groups are visited in group id order (Kafka visits them in
/// the order of its group map; the records of different groups touch different keys). Every group
/// may expire (`Group.shouldExpire`): regroup has no topology description plugin to pin a streams
/// group. The records are not replayed here.
pub(crate) fn cleanup_group_metadata(shard: &mut Shard, now_ms: i64) -> Vec<Record> {
    let mut group_ids: Vec<String> = shard
        .classic
        .groups()
        .map(|g| g.group_id().to_string())
        .chain(shard.streams.group_ids().cloned())
        .collect();
    group_ids.sort();
    let mut records = Vec::new();
    for group_id in group_ids {
        if !cleanup_expired_offsets(shard, &group_id, now_ms, &mut records) {
            continue;
        }
        // `maybeDeleteGroup`: only an empty group is deleted.
        let empty =
            shard.classic.is_empty_group(&group_id) || shard.streams.is_empty_group(&group_id);
        if empty {
            shard.delete_group(&group_id, &mut records);
        }
    }
    records
}

/// `scheduleGroupMetadataExpiration`: the next run, `offsets.retention.check.interval.ms` from now
/// (replacing a scheduled one).
pub(crate) fn schedule(shard: &mut Shard, now_ms: i64) {
    let deadline = now_ms.saturating_add(shard.config.offsets.retention_check_interval_ms);
    shard
        .timers
        .schedule(GROUP_EXPIRATION_KEY, deadline, TimerTask::GroupExpiration);
}

/// One run at `now_ms` (the timer firing, or a direct call): its records, not replayed yet; the next run
/// is scheduled, as Kafka's `cleanupGroupMetadata` reschedules itself.
pub(crate) fn run(shard: &mut Shard, now_ms: i64) -> Outcome {
    let records = cleanup_group_metadata(shard, now_ms);
    schedule(shard, now_ms);
    Outcome {
        records,
        ..Outcome::default()
    }
}

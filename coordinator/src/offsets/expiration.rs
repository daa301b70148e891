//! Offset retention and the expiry of empty groups: Kafka 4.4's periodic `cleanupGroupMetadata`
//! (`GroupCoordinatorShard`, every `offsets.retention.check.interval.ms`), `cleanupExpiredOffsets`
//! (`OffsetMetadataManager`) and `OffsetExpirationConditionImpl`.
//!
//! Each run visits every group: offsets of topics the group no longer consumes expire once
//! `offsets.retention.minutes` have passed since their base timestamp (see
//! [`OffsetExpirationCondition`]) unless a transaction still holds an offset for the partition; a group
//! left with no offsets and no pending transactional offsets is deleted if it is empty (Kafka's
//! `maybeDeleteGroup`, which also cancels the group's timers).

use super::config::OffsetsConfig;
use super::store::OffsetStore;
use crate::classic::ClassicGroups;
use crate::consumer::ConsumerGroups;
use crate::group::GroupValidation;
use crate::group_deletion::delete_group_records;
use crate::outcome::{Outcome, TimerTask};
use crate::records::Record;
use crate::streams::StreamsGroups;
use crate::timer::Timers;

/// The groups of every type, read-only: whether one exists and how its offsets age.
#[derive(Clone, Copy)]
pub struct GroupsView<'a> {
    pub streams: &'a StreamsGroups,
    pub classic: &'a ClassicGroups,
}

impl<'a> GroupsView<'a> {
    fn validation(&self, group_id: &str) -> Option<&'a dyn GroupValidation> {
        self.streams
            .validation(group_id)
            .or_else(|| self.classic.validation(group_id))
    }
}

/// What the periodic expiration may touch: the offsets (read: its tombstones are records), the
/// groups (a deleted streams group cancels its timers), and its own timer.
pub(crate) struct ExpirationEnv<'a> {
    pub config: &'a OffsetsConfig,
    pub offsets: &'a OffsetStore,
    pub streams: &'a mut StreamsGroups,
    pub consumer: &'a mut ConsumerGroups,
    pub classic: &'a ClassicGroups,
    pub timers: &'a mut Timers<TimerTask>,
}

use super::deletion::tombstone;

/// Kafka's `GroupCoordinatorShard.GROUP_EXPIRATION_KEY`.
pub const GROUP_EXPIRATION_KEY: &str = "expire-group-metadata";

pub use super::expiration_condition::OffsetExpirationCondition;

/// `offsets.retention.minutes` in milliseconds (`GroupCoordinatorConfig.offsetsRetentionMs`).
pub fn retention_ms(config: &OffsetsConfig) -> i64 {
    i64::from(config.retention_minutes) * 60 * 1000
}

/// The group's offset expiration condition (`Group.offsetExpirationCondition`); `None` when its offsets
/// must not expire now, or when there is no such group.
fn condition(groups: GroupsView<'_>, group_id: &str) -> Option<OffsetExpirationCondition> {
    if let Some(group) = groups.streams.group(group_id) {
        return Some(group.offset_expiration_condition());
    }
    groups.classic.get(group_id)?.offset_expiration_condition()
}

/// `cleanupExpiredOffsets`: appends a tombstone for every expired offset of the group (in Kafka's
/// iteration order) and returns whether the group is left with no offsets, committed or pending.
pub fn cleanup_expired_offsets(
    groups: GroupsView<'_>,
    store: &OffsetStore,
    retention_ms: i64,
    group_id: &str,
    now_ms: i64,
    records: &mut Vec<Record>,
) -> bool {
    cleanup_offsets_of(
        condition(groups, group_id),
        groups.validation(group_id),
        store,
        retention_ms,
        group_id,
        now_ms,
        records,
    )
}

/// [`cleanup_expired_offsets`] given the group's expiration condition and validation.
#[allow(clippy::too_many_arguments)]
fn cleanup_offsets_of(
    condition: Option<OffsetExpirationCondition>,
    group: Option<&dyn GroupValidation>,
    store: &OffsetStore,
    retention_ms: i64,
    group_id: &str,
    now_ms: i64,
    records: &mut Vec<Record>,
) -> bool {
    let Some(topics) = store.group(group_id) else {
        return !store.group_has_pending(group_id);
    };
    // Kafka expects the owner of committed offsets to exist (a commit creates a simple group).
    let (Some(condition), Some(group)) = (condition, group) else {
        return false;
    };
    let retention = retention_ms;
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
pub(crate) fn cleanup_group_metadata(env: &mut ExpirationEnv<'_>, now_ms: i64) -> Vec<Record> {
    let mut group_ids: Vec<String> = env
        .classic
        .groups()
        .map(|g| g.group_id().to_string())
        .chain(env.streams.group_ids().cloned())
        .chain(env.consumer.group_ids().cloned())
        .collect();
    group_ids.sort();
    let retention = retention_ms(env.config);
    let mut records = Vec::new();
    for group_id in group_ids {
        let groups = GroupsView {
            streams: env.streams,
            classic: env.classic,
        };
        // A consumer group's offsets age from their commit (`ConsumerGroup.offsetExpirationCondition`).
        let consumer = env.consumer.validation(&group_id);
        let (condition, validation) = match consumer {
            Some(v) => (Some(OffsetExpirationCondition::SinceCommit), Some(v)),
            None => (condition(groups, &group_id), groups.validation(&group_id)),
        };
        if !cleanup_offsets_of(
            condition,
            validation,
            env.offsets,
            retention,
            &group_id,
            now_ms,
            &mut records,
        ) {
            continue;
        }
        // `maybeDeleteGroup`: only an empty group is deleted.
        let empty = env.classic.is_empty_group(&group_id)
            || env.streams.is_empty_group(&group_id)
            || env.consumer.is_empty_group(&group_id);
        if empty {
            delete_group_records(
                env.streams,
                env.consumer,
                env.classic,
                env.timers,
                &group_id,
                &mut records,
            );
        }
    }
    records
}

/// `scheduleGroupMetadataExpiration`: the next run, `offsets.retention.check.interval.ms` from now
/// (replacing a scheduled one).
pub(crate) fn schedule(config: &OffsetsConfig, timers: &mut Timers<TimerTask>, now_ms: i64) {
    let deadline = now_ms.saturating_add(config.retention_check_interval_ms);
    timers.schedule(GROUP_EXPIRATION_KEY, deadline, TimerTask::GroupExpiration);
}

/// One run at `now_ms` (the timer firing, or a direct call): its records, not replayed yet; the next run
/// is scheduled, as Kafka's `cleanupGroupMetadata` reschedules itself.
pub(crate) fn run(env: &mut ExpirationEnv<'_>, now_ms: i64) -> Outcome {
    let records = cleanup_group_metadata(env, now_ms);
    schedule(env.config, env.timers, now_ms);
    Outcome {
        records,
        ..Outcome::default()
    }
}

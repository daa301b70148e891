//! Offset retention, the expiry of empty groups and the deletion of offsets of deleted topics:
//! classic-44-delta.md §2.4 and §4.1 items 14 and 16, with the 4.4 tests of `OffsetMetadataManagerTest`
//! (OMMT) and `GroupCoordinatorShardTest` (GCST) that concern classic and streams groups.
//!
//! Where a test states Kafka's records, they are the ones Apache Kafka 4.4.0's own
//! `GroupCoordinatorShard` produces for the same records and calls: coordinator/tests/kafka/
//! ExpirationOracle.java runs every scenario below on the released jar and prints them. Kafka's unit
//! tests mock the group (its expiration condition and subscriptions); here real groups stand in: a
//! simple group (no protocol type) expires offsets by commit time and consumes nothing, a Stable
//! consumer group consumes the topics of its members' subscriptions. Not carried over: OMMT
//! testCleanupExpiredOffsetsGroupDoesNotExist (offsets of a group that does not exist cannot occur:
//! replaying a commit creates its group) and testOffsetsExpiredSensor (regroup has no metrics); GCST
//! testCleanupGroupMetadataKeepsOffsetTombstonesWhenGroupRefusesToExpire needs a topology-description
//! plugin (every regroup group may expire, as testCleanupGroupMetadataTombstonesWhenGroupAgreesToExpire
//! and cleanup_group_metadata_every_group_type show) and the share-group test has no counterpart.

mod classic_support;

use classic_support::*;
use coordinator::offsets::expiration;
use coordinator::offsets::{DeletedTopic, GROUP_EXPIRATION_KEY};
use coordinator::records::Record;
use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
use coordinator::records::offsets::{OffsetCommitKey, OffsetCommitValue};
use coordinator::records::streams::{StreamsGroupKey, StreamsGroupMetadataValue};
use coordinator::shard::Outcome;
use coordinator::topics::{TopicMetadata, TopicsImage};
use protocol::ErrorCode;
use uuid::Uuid;

const MINUTE: i64 = 60_000;

fn context() -> TestContext {
    TestContext::new().with_config("offsets.retention.minutes", "1")
}

fn commit_record(group: &str, topic: &str, partition: i32, offset: i64, at: i64) -> Record {
    commit_record_with_id(group, topic, partition, offset, at, Uuid::nil())
}

fn commit_record_with_id(
    group: &str,
    topic: &str,
    partition: i32,
    offset: i64,
    at: i64,
    topic_id: Uuid,
) -> Record {
    Record::OffsetCommit {
        key: OffsetCommitKey {
            group: group.to_string(),
            topic: topic.to_string(),
            partition,
        },
        value: Some(OffsetCommitValue {
            offset,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp: at,
            expire_timestamp: None,
            topic_id,
        }),
    }
}

/// The same commit written in a transaction of `producer_id` (pending until the transaction ends).
fn transactional(producer_id: i64, record: Record) -> Record {
    match record {
        Record::OffsetCommit { key, value } => Record::TxnOffsetCommit {
            producer_id,
            producer_epoch: 0,
            key,
            value,
        },
        other => other,
    }
}

/// A consumer-protocol classic group as its GroupMetadata record loads it: Stable with one member
/// subscribed to `topics`, or Empty (no topics) since `state_timestamp`.
fn classic_group(group: &str, state_timestamp: i64, topics: &[&str]) -> Record {
    let members = if topics.is_empty() {
        Vec::new()
    } else {
        vec![MemberMetadata {
            member_id: "member".into(),
            group_instance_id: None,
            client_id: CLIENT_ID.into(),
            client_host: CLIENT_HOST.into(),
            rebalance_timeout: 10000,
            session_timeout: 10000,
            subscription: subscription(topics).to_vec(),
            assignment: Vec::new(),
        }]
    };
    Record::GroupMetadata {
        key: GroupMetadataKey {
            group: group.to_string(),
        },
        value: Some(GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation: 1,
            protocol: (!members.is_empty()).then(|| "range".into()),
            leader: (!members.is_empty()).then(|| "member".into()),
            current_state_timestamp: state_timestamp,
            members,
        }),
    }
}

/// An empty streams group at epoch 3, as its StreamsGroupMetadata record loads it.
fn streams_group(group: &str) -> Record {
    Record::StreamsGroupMetadata {
        key: StreamsGroupKey {
            group_id: group.to_string(),
        },
        value: Some(StreamsGroupMetadataValue {
            epoch: 3,
            metadata_hash: 0,
            validated_topology_epoch: 0,
            last_assignment_configs: None,
            stored_description_topology_epoch: -1,
            failed_description_topology_epoch: -1,
        }),
    }
}

/// Replays a record into the shard and its log (Kafka's test contexts' `replay`).
fn replay(ctx: &mut TestContext, record: Record) {
    ctx.shard.replay(&record);
    ctx.log.push(record);
}

/// Records in the form ExpirationOracle.java prints Kafka's: the key and, for tombstones, `null`.
fn show(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .map(|r| {
            let key = match r {
                Record::OffsetCommit { key, .. } | Record::TxnOffsetCommit { key, .. } => format!(
                    "OffsetCommitKey(group='{}', topic='{}', partition={})",
                    key.group, key.topic, key.partition
                ),
                Record::GroupMetadata { key, .. } => {
                    format!("GroupMetadataKey(group='{}')", key.group)
                }
                other => format!("{}Key(groupId='{}')", other.type_name(), other.group_id()),
            };
            if r.is_tombstone() {
                format!("{key} null")
            } else {
                format!("{key} value")
            }
        })
        .collect()
}

/// `OMMT.cleanupExpiredOffsets`: the expired offsets' tombstones (replayed, as the test context does)
/// and whether the group is left without offsets.
fn cleanup(ctx: &mut TestContext, group: &str) -> (Vec<String>, bool) {
    let mut records = Vec::new();
    let groups = expiration::GroupsView {
        streams: &ctx.shard.streams,
        classic: &ctx.shard.classic,
    };
    let retention = expiration::retention_ms(&ctx.shard.config.offsets);
    let all_expired = expiration::cleanup_expired_offsets(
        groups,
        &ctx.shard.offsets,
        retention,
        group,
        ctx.now,
        &mut records,
    );
    let shown = show(&records);
    for r in records {
        replay(ctx, r);
    }
    (shown, all_expired)
}

/// `GroupCoordinatorShard.cleanupGroupMetadata` at the current time, its records kept in the log.
fn sweep(ctx: &mut TestContext) -> Vec<String> {
    let outcome = ctx.shard.cleanup_group_metadata(ctx.now);
    ctx.log.extend(outcome.records.iter().cloned());
    show(&outcome.records)
}

fn strings(lines: &[&str]) -> Vec<String> {
    lines.iter().map(|s| s.to_string()).collect()
}

/// GCST testScheduleCleanupGroupMetadata: loading the shard schedules `expire-group-metadata` one
/// `offsets.retention.check.interval.ms` ahead; each run schedules the next; unloading cancels it.
#[test]
fn schedule_cleanup_group_metadata() {
    let mut ctx = context().with_config("offsets.retention.check.interval.ms", "1000");
    assert!(!ctx.shard.timers.is_scheduled(GROUP_EXPIRATION_KEY));
    ctx.shard.on_loaded(ctx.now);
    assert_eq!(ctx.shard.timers.deadline(GROUP_EXPIRATION_KEY), Some(1000));
    let fired = ctx.sleep(1000);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].key, GROUP_EXPIRATION_KEY);
    assert_eq!(fired[0].deadline_ms, 1000);
    assert!(fired[0].outcome.records.is_empty());
    assert_eq!(ctx.shard.timers.deadline(GROUP_EXPIRATION_KEY), Some(2000));
    assert!(ctx.shard.on_unloaded().is_empty());
    assert!(!ctx.shard.timers.is_scheduled(GROUP_EXPIRATION_KEY));
}

/// GCST testCleanupGroupMetadataForConsumerGroup, with a classic group: a group whose offsets all
/// expired is deleted after its offset tombstones; another keeps its unexpired offset; the run
/// reschedules itself (default interval 600 000 ms).
#[test]
fn cleanup_group_metadata_deletes_a_group_whose_offsets_all_expired() {
    let mut ctx = context();
    replay(&mut ctx, commit_record("group-id", "topic", 0, 100, 0));
    replay(
        &mut ctx,
        commit_record("other-group-id", "topic", 0, 100, 30_000),
    );
    ctx.now = MINUTE;
    assert!(!ctx.shard.timers.is_scheduled(GROUP_EXPIRATION_KEY));
    assert_eq!(
        sweep(&mut ctx),
        strings(&[
            "OffsetCommitKey(group='group-id', topic='topic', partition=0) null",
            "GroupMetadataKey(group='group-id') null",
        ])
    );
    assert_eq!(
        ctx.shard.timers.deadline(GROUP_EXPIRATION_KEY),
        Some(MINUTE + 600_000)
    );
    assert!(!ctx.shard.classic.contains("group-id"));
    assert!(ctx.shard.classic.contains("other-group-id"));
    assert!(
        ctx.shard
            .offsets
            .get("other-group-id", "topic", 0)
            .is_some()
    );
}

/// OMMT testCleanupExpiredOffsetsGroupHasNoOffsets.
#[test]
fn cleanup_expired_offsets_group_has_no_offsets() {
    let mut ctx = context();
    assert_eq!(cleanup(&mut ctx, "unknown-group-id"), (Vec::new(), true));
}

/// OMMT testCleanupExpiredOffsetsEmptyOffsetExpirationCondition: a classic group in the middle of a
/// rebalance has no expiration condition: nothing expires and the group is not "all expired".
#[test]
fn cleanup_expired_offsets_empty_offset_expiration_condition() {
    let mut ctx = context();
    ctx.load(stable_group_record(1, &[("member", None)]));
    ctx.prepare_rebalance();
    replay(&mut ctx, commit_record(GROUP, "topic", 0, 100, 0));
    ctx.now = 10 * MINUTE;
    assert_eq!(cleanup(&mut ctx, GROUP), (Vec::new(), false));
}

/// OMMT testCleanupExpiredOffsets: offsets of a topic the group consumes never expire; the others
/// expire one minute after their commit; once the group stops consuming firstTopic, all go.
#[test]
fn cleanup_expired_offsets() {
    let mut ctx = context();
    replay(&mut ctx, classic_group("group-id", 0, &["firstTopic"]));
    replay(&mut ctx, commit_record("group-id", "firstTopic", 0, 100, 0));
    replay(
        &mut ctx,
        commit_record("group-id", "secondTopic", 0, 100, 0),
    );
    replay(
        &mut ctx,
        commit_record("group-id", "secondTopic", 1, 100, 500),
    );
    ctx.now = MINUTE;
    assert_eq!(
        cleanup(&mut ctx, "group-id"),
        (
            strings(&["OffsetCommitKey(group='group-id', topic='secondTopic', partition=0) null"]),
            false
        )
    );
    ctx.now += 500;
    assert_eq!(
        cleanup(&mut ctx, "group-id"),
        (
            strings(&["OffsetCommitKey(group='group-id', topic='secondTopic', partition=1) null"]),
            false
        )
    );
    // The group rebalanced onto another topic; two more commits.
    replay(&mut ctx, classic_group("group-id", 0, &["otherTopic"]));
    replay(
        &mut ctx,
        commit_record("group-id", "firstTopic", 1, 100, 500),
    );
    replay(
        &mut ctx,
        commit_record("group-id", "secondTopic", 0, 101, 500),
    );
    assert_eq!(
        cleanup(&mut ctx, "group-id"),
        (
            strings(&[
                "OffsetCommitKey(group='group-id', topic='firstTopic', partition=0) null",
                "OffsetCommitKey(group='group-id', topic='firstTopic', partition=1) null",
                "OffsetCommitKey(group='group-id', topic='secondTopic', partition=0) null",
            ]),
            true
        )
    );
    // A Stable group is never deleted, even without offsets.
    assert!(sweep(&mut ctx).is_empty());
    assert!(ctx.shard.classic.contains("group-id"));
}

/// OMMT testCleanupExpiredOffsetsWithPendingTransactionalOffsets: an expired offset stays while a
/// transaction holds an offset for the same partition.
#[test]
fn cleanup_expired_offsets_with_pending_transactional_offsets() {
    let mut ctx = context();
    replay(&mut ctx, commit_record("group-id", "foo", 0, 100, 0));
    replay(
        &mut ctx,
        transactional(10, commit_record("group-id", "foo", 0, 101, 500)),
    );
    ctx.now = MINUTE;
    assert_eq!(cleanup(&mut ctx, "group-id"), (Vec::new(), false));
    assert!(sweep(&mut ctx).is_empty());
    assert!(ctx.shard.offsets.get("group-id", "foo", 0).is_some());
}

/// classic-44-delta.md §4.1 #14, OMMT testCleanupExpiredOffsetsWithPendingTransactionalOffsetsOnly
/// (KAFKA-19163): foo-0 expires, but the group is not deleted while a transaction holds foo-1; once
/// the transaction is aborted the next run deletes the group.
#[test]
fn cleanup_expired_offsets_with_pending_transactional_offsets_only() {
    let mut ctx = context();
    replay(&mut ctx, commit_record("group-id", "foo", 0, 100, 0));
    replay(
        &mut ctx,
        transactional(10, commit_record("group-id", "foo", 1, 101, 500)),
    );
    ctx.now = MINUTE;
    assert_eq!(
        cleanup(&mut ctx, "group-id"),
        (
            strings(&["OffsetCommitKey(group='group-id', topic='foo', partition=0) null"]),
            false
        )
    );
    assert_eq!(cleanup(&mut ctx, "group-id"), (Vec::new(), false));
    // The same through the shard's periodic run: nothing left to expire, the group stays.
    assert!(sweep(&mut ctx).is_empty());
    assert!(ctx.shard.classic.contains("group-id"));
    ctx.shard.offsets.end_transaction(10, false);
    assert_eq!(
        sweep(&mut ctx),
        strings(&["GroupMetadataKey(group='group-id') null"])
    );
    assert!(!ctx.shard.classic.contains("group-id"));
    // The log no longer holds what the transaction's end did to the store.
    ctx.check_replay_on_drop = false;
}

fn foo_id() -> Uuid {
    Uuid::from_u64_pair(0, 1)
}

fn other_id() -> Uuid {
    Uuid::from_u64_pair(0, 2)
}

fn delete_foo(ctx: &mut TestContext) -> Vec<String> {
    let outcome = ctx.shard.on_topics_deleted(&[DeletedTopic {
        id: foo_id(),
        name: "foo".to_string(),
    }]);
    ctx.log.extend(outcome.records.iter().cloned());
    show(&outcome.records)
}

/// classic-44-delta.md §4.1 #16, OMMT testOnTopicsDeletedWithZeroTopicId: offsets stored without a
/// topic id (records written before ids were stored) are deleted with the topic, committed and pending
/// alike; other topics keep theirs.
#[test]
fn on_topics_deleted_with_zero_topic_id() {
    let mut ctx = context();
    for p in 1..=3 {
        replay(
            &mut ctx,
            commit_record("grp-0", "foo", p, 100 * i64::from(p), 0),
        );
    }
    for p in 1..=3 {
        replay(
            &mut ctx,
            commit_record("grp-1", "bar", p, 100 * i64::from(p), 0),
        );
    }
    for p in 1..=3 {
        let record = commit_record("grp-2", "foo", p, 100 * i64::from(p), 0);
        replay(&mut ctx, transactional(100, record));
    }
    assert_eq!(
        delete_foo(&mut ctx),
        strings(&[
            "OffsetCommitKey(group='grp-0', topic='foo', partition=2) null",
            "OffsetCommitKey(group='grp-0', topic='foo', partition=1) null",
            "OffsetCommitKey(group='grp-0', topic='foo', partition=3) null",
            "OffsetCommitKey(group='grp-2', topic='foo', partition=2) null",
            "OffsetCommitKey(group='grp-2', topic='foo', partition=1) null",
            "OffsetCommitKey(group='grp-2', topic='foo', partition=3) null",
        ])
    );
    for p in 1..=3 {
        assert!(ctx.shard.offsets.get("grp-0", "foo", p).is_none());
        assert!(ctx.shard.offsets.get("grp-1", "bar", p).is_some());
        assert!(!ctx.shard.offsets.has_pending("grp-2", "foo", p));
    }
}

/// §4.1 #16, OMMT testOnTopicsDeletedWithMatchingTopicId.
#[test]
fn on_topics_deleted_with_matching_topic_id() {
    let mut ctx = context();
    replay(
        &mut ctx,
        commit_record_with_id("grp-0", "foo", 1, 100, 0, foo_id()),
    );
    replay(
        &mut ctx,
        commit_record_with_id("grp-0", "foo", 2, 200, 0, foo_id()),
    );
    assert_eq!(
        delete_foo(&mut ctx),
        strings(&[
            "OffsetCommitKey(group='grp-0', topic='foo', partition=2) null",
            "OffsetCommitKey(group='grp-0', topic='foo', partition=1) null",
        ])
    );
    assert!(ctx.shard.offsets.group("grp-0").is_none());
}

/// §4.1 #16, OMMT testOnTopicsDeletedWithMismatchedTopicId: offsets of a re-created topic (another id)
/// survive the deletion of the old one.
#[test]
fn on_topics_deleted_with_mismatched_topic_id() {
    let mut ctx = context();
    replay(
        &mut ctx,
        commit_record_with_id("grp-0", "foo", 1, 100, 0, other_id()),
    );
    replay(
        &mut ctx,
        commit_record_with_id("grp-0", "foo", 2, 200, 0, other_id()),
    );
    assert!(delete_foo(&mut ctx).is_empty());
    assert!(ctx.shard.offsets.get("grp-0", "foo", 1).is_some());
    assert!(ctx.shard.offsets.get("grp-0", "foo", 2).is_some());
}

/// §4.1 #16, OMMT testOnTopicsDeletedWithMixedTopicIds: the matching id and the zero id both go.
#[test]
fn on_topics_deleted_with_mixed_topic_ids() {
    let mut ctx = context();
    replay(
        &mut ctx,
        commit_record_with_id("grp-0", "foo", 1, 100, 0, foo_id()),
    );
    replay(
        &mut ctx,
        commit_record_with_id("grp-0", "foo", 2, 200, 0, Uuid::nil()),
    );
    assert_eq!(
        delete_foo(&mut ctx),
        strings(&[
            "OffsetCommitKey(group='grp-0', topic='foo', partition=2) null",
            "OffsetCommitKey(group='grp-0', topic='foo', partition=1) null",
        ])
    );
    assert!(ctx.shard.offsets.group("grp-0").is_none());
}

/// Two topics deleted at once: groups in Kafka's order, topics in the given order, committed offsets
/// before pending ones; a partition with both gets two tombstones, as in Kafka.
#[test]
fn on_topics_deleted_committed_and_pending_offsets_of_two_topics() {
    let mut ctx = context();
    replay(
        &mut ctx,
        commit_record_with_id("g", "foo", 0, 1, 0, foo_id()),
    );
    replay(
        &mut ctx,
        transactional(7, commit_record_with_id("g", "foo", 0, 2, 0, foo_id())),
    );
    replay(
        &mut ctx,
        commit_record_with_id("g", "bar", 4, 3, 0, other_id()),
    );
    replay(&mut ctx, commit_record("g", "bar", 0, 3, 0));
    replay(
        &mut ctx,
        commit_record_with_id("h", "bar", 1, 3, 0, other_id()),
    );
    let outcome = ctx.shard.on_topics_deleted(&[
        DeletedTopic {
            id: foo_id(),
            name: "foo".to_string(),
        },
        DeletedTopic {
            id: other_id(),
            name: "bar".to_string(),
        },
    ]);
    ctx.log.extend(outcome.records.iter().cloned());
    assert_eq!(
        show(&outcome.records),
        strings(&[
            "OffsetCommitKey(group='h', topic='bar', partition=1) null",
            "OffsetCommitKey(group='g', topic='foo', partition=0) null",
            "OffsetCommitKey(group='g', topic='bar', partition=0) null",
            "OffsetCommitKey(group='g', topic='bar', partition=4) null",
            "OffsetCommitKey(group='g', topic='foo', partition=0) null",
        ])
    );
    assert!(ctx.shard.offsets.committed().is_empty());
    assert!(!ctx.shard.offsets.group_has_pending("g"));
}

/// `Shard::set_topics` acts as Kafka's onMetadataUpdate: ids that left the image delete their offsets
/// (a deleted topic, the old incarnation of a re-created one); commits made for the new incarnation
/// carry its id and survive.
#[test]
fn set_topics_deletes_offsets_of_deleted_and_recreated_topics() {
    let mut ctx = TestContext::new().with_topics(&[("foo", 2), ("bar", 1)]);
    for (topic, partition) in [("foo", 0), ("foo", 1), ("bar", 0)] {
        let r = ctx.commit(9, commit_request("g", "", None, -1, topic, partition, 5));
        assert_eq!(commit_errors(&r)[0].2, ErrorCode::None);
    }
    let mut foo = TopicMetadata::new("foo", 2);
    foo.id = Uuid::from_u64_pair(7, 7);
    let outcome: Outcome = ctx.set_topics(TopicsImage::from_topics([foo.clone()]));
    let mut shown = show(&outcome.records);
    shown.sort();
    assert_eq!(
        shown,
        strings(&[
            "OffsetCommitKey(group='g', topic='bar', partition=0) null",
            "OffsetCommitKey(group='g', topic='foo', partition=0) null",
            "OffsetCommitKey(group='g', topic='foo', partition=1) null",
        ])
    );
    assert!(ctx.shard.offsets.group("g").is_none());
    // A commit for the new incarnation records its id; a metadata update without deletions keeps it.
    let r = ctx.commit(9, commit_request("g", "", None, -1, "foo", 0, 6));
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::None);
    assert_eq!(
        ctx.shard.offsets.get("g", "foo", 0).map(|o| o.topic_id),
        Some(foo.id)
    );
    let outcome = ctx.set_topics(TopicsImage::from_topics([
        foo,
        TopicMetadata::new("bar", 3),
    ]));
    assert!(outcome.records.is_empty());
    assert!(ctx.shard.offsets.get("g", "foo", 0).is_some());
}

/// Every group type in one periodic run (the last scenario of ExpirationOracle.java): a simple group, an
/// Empty consumer group (offsets expire from the time it became empty), a Stable consumer group (only
/// offsets of topics it does not consume expire; never deleted), an empty streams group (its offsets
/// and the group expire) and an Empty group without offsets (deleted at once).
///
/// Kafka 4.4.0 writes, at 60 000: simple foo-0; streams-empty foo-0 and the streams group's tombstones
/// (target assignment metadata, metadata, topology); stable-classic bar-0; the no-offsets group. regroup
/// writes the same records per group in the same order, but visits the groups in group id order where
/// Kafka visits them in the order of its group map (docs/divergences.md).
#[test]
fn cleanup_group_metadata_every_group_type() {
    let mut ctx = context();
    replay(&mut ctx, commit_record("simple", "foo", 0, 1, 0));
    replay(&mut ctx, commit_record("simple", "foo", 1, 1, 30_000));
    replay(&mut ctx, classic_group("empty-classic", 30_000, &[]));
    replay(&mut ctx, commit_record("empty-classic", "foo", 0, 1, 0));
    replay(&mut ctx, classic_group("stable-classic", 0, &["foo"]));
    replay(&mut ctx, commit_record("stable-classic", "foo", 0, 1, 0));
    replay(&mut ctx, commit_record("stable-classic", "bar", 0, 1, 0));
    replay(&mut ctx, streams_group("streams-empty"));
    replay(&mut ctx, commit_record("streams-empty", "foo", 0, 1, 0));
    replay(&mut ctx, classic_group("no-offsets", 0, &[]));
    ctx.now = MINUTE;
    let kafka = strings(&[
        "OffsetCommitKey(group='simple', topic='foo', partition=0) null",
        "OffsetCommitKey(group='streams-empty', topic='foo', partition=0) null",
        "StreamsGroupTargetAssignmentMetadataKey(groupId='streams-empty') null",
        "StreamsGroupMetadataKey(groupId='streams-empty') null",
        "StreamsGroupTopologyKey(groupId='streams-empty') null",
        "OffsetCommitKey(group='stable-classic', topic='bar', partition=0) null",
        "GroupMetadataKey(group='no-offsets') null",
    ]);
    let ours = sweep(&mut ctx);
    assert_eq!(
        ours,
        strings(&[
            "GroupMetadataKey(group='no-offsets') null",
            "OffsetCommitKey(group='simple', topic='foo', partition=0) null",
            "OffsetCommitKey(group='stable-classic', topic='bar', partition=0) null",
            "OffsetCommitKey(group='streams-empty', topic='foo', partition=0) null",
            "StreamsGroupTargetAssignmentMetadataKey(groupId='streams-empty') null",
            "StreamsGroupMetadataKey(groupId='streams-empty') null",
            "StreamsGroupTopologyKey(groupId='streams-empty') null",
        ])
    );
    let (mut a, mut b) = (ours.clone(), kafka);
    a.sort();
    b.sort();
    assert_eq!(a, b, "the same records as Kafka's");
    assert!(!ctx.shard.streams.contains("streams-empty"));
    assert!(!ctx.shard.classic.contains("no-offsets"));
    assert!(ctx.shard.classic.contains("stable-classic"));
    assert!(ctx.shard.classic.contains("empty-classic"));
    ctx.now = 90_000;
    assert_eq!(
        sweep(&mut ctx),
        strings(&[
            "OffsetCommitKey(group='empty-classic', topic='foo', partition=0) null",
            "GroupMetadataKey(group='empty-classic') null",
            "OffsetCommitKey(group='simple', topic='foo', partition=1) null",
            "GroupMetadataKey(group='simple') null",
        ])
    );
    let groups: Vec<&str> = ctx.shard.classic.groups().map(|g| g.group_id()).collect();
    assert_eq!(groups, ["stable-classic"]);
}

/// A classic group whose members left: its offsets expire `offsets.retention.minutes` after it became
/// Empty (not after the commits), then the periodic run deletes it.
#[test]
fn classic_group_expires_after_it_became_empty() {
    let mut ctx = TestContext::new()
        .with_config("offsets.retention.minutes", "1")
        .with_config("offsets.retention.check.interval.ms", "10000")
        .with_config("group.initial.rebalance.delay.ms", "0")
        .with_topics(&[("foo", 1)]);
    ctx.shard.on_loaded(ctx.now);
    let joined = ctx.join_and_complete_join(
        join_request()
            .group(GROUP)
            .instance("instance")
            .default_protocols()
            .session(60_000)
            .rebalance(60_000)
            .build(),
        true,
        false,
    );
    assert_eq!(joined.error_code, 0);
    let member = joined.member_id.to_string();
    let sync = ctx.sync(
        sync_request(&member, joined.generation_id)
            .with_group_instance_id(Some(sb("instance")))
            .with_assignments(vec![assignment(&member, b"a")]),
    );
    assert_eq!(ctx.synced(&sync).error_code, 0);
    let r = ctx.commit(
        7,
        commit_request(
            GROUP,
            &member,
            Some("instance"),
            joined.generation_id,
            "foo",
            0,
            5,
        ),
    );
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::None);
    // The member leaves at 30 s (its session would otherwise time out); the group is Empty from then.
    let _ = ctx.sleep(20_000);
    let (left, _) = ctx.leave(leave_request(vec![leave_member("", Some("instance"))]));
    assert_eq!(left.error_code, 0);
    assert_eq!(ctx.group().state(), coordinator::classic::GroupState::Empty);
    let emptied_at = ctx.now;
    // Runs at 30 s, 40 s, ..., 80 s: the offset is a minute old at 60 s but the group only a minute
    // empty at 80 s.
    let mut expired = Vec::new();
    while ctx.now < emptied_at + MINUTE {
        for f in ctx.sleep(10_000) {
            if f.key == GROUP_EXPIRATION_KEY {
                expired.extend(show(&f.outcome.records));
            }
        }
        if ctx.now < emptied_at + MINUTE {
            assert!(
                expired.is_empty(),
                "nothing expires before {}",
                emptied_at + MINUTE
            );
        }
    }
    assert_eq!(ctx.now, emptied_at + MINUTE);
    assert_eq!(
        expired,
        strings(&[
            "OffsetCommitKey(group='group-id', topic='foo', partition=0) null",
            "GroupMetadataKey(group='group-id') null",
        ])
    );
    assert!(!ctx.shard.classic.contains(GROUP));
}

/// OffsetCommit v2-4 retention: an offset with an expire timestamp expires at it, whatever the group's
/// condition says.
#[test]
fn offset_with_expire_timestamp_expires_at_it() {
    let mut ctx = context().with_topics(&[("foo", 1)]);
    let mut request = commit_request("simple", "", None, -1, "foo", 0, 5);
    request.retention_time_ms = 5_000;
    let r = ctx.commit(2, request);
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::None);
    assert_eq!(
        ctx.shard
            .offsets
            .get("simple", "foo", 0)
            .and_then(|o| o.expire_timestamp),
        Some(5_000)
    );
    ctx.now = 4_999;
    assert!(sweep(&mut ctx).is_empty());
    ctx.now = 5_000;
    assert_eq!(
        sweep(&mut ctx),
        strings(&[
            "OffsetCommitKey(group='simple', topic='foo', partition=0) null",
            "GroupMetadataKey(group='simple') null",
        ])
    );
}

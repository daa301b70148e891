//! Deleting a streams group cancels its timers, whichever path deletes it (Kafka's
//! `createGroupTombstoneRecordsAndCancelTimers` → `StreamsGroup.cancelTimers`): DeleteGroups, the
//! periodic expiry of empty groups, and a classic JoinGroup converting an empty streams group. An empty
//! streams group can still have its initial-rebalance timer: a member joined during the delay and left.
//! Also the offset expiry of a streams group (only offsets of topics it does not consume expire) and
//! OffsetDelete on a streams group (only offsets of topics it does not consume can be deleted).

mod streams_common;

use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::{DeleteGroupsRequest, JoinGroupRequest};
use protocol::{Request, Response};
use streams_common::*;

const DELAY_KEY: &str = "initial-rebalance-timeout-fooup";

/// A group whose only member joined at 0 (initial delay 1000 ms, timer due at 1000) and left at 100.
fn emptied_group() -> H {
    let mut h = H::with_configs(&[("group.streams.initial.rebalance.delay.ms", "1000")]);
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 1);
    assert_eq!(h.timer_deadline(DELAY_KEY), Some(1000));
    h.now = 100;
    let (r, _) = h.hb(hb("m", -1));
    assert_eq!(r.member_epoch, -1);
    assert_eq!(
        h.state(),
        coordinator::streams::group::StreamsGroupState::Empty
    );
    assert_eq!(h.timer_deadline(DELAY_KEY), Some(1000));
    h
}

fn group_tombstones() -> Vec<coordinator::records::Record> {
    vec![
        coordinator::records::Record::StreamsGroupTargetAssignmentMetadata {
            key: gkey(GROUP),
            value: None,
        },
        coordinator::records::Record::StreamsGroupMetadata {
            key: gkey(GROUP),
            value: None,
        },
        coordinator::records::Record::StreamsGroupTopology {
            key: gkey(GROUP),
            value: None,
        },
    ]
}

/// The record of offset 10 committed for `topic`-`partition` by the group, at time 0.
fn committed(topic: &str, partition: i32) -> coordinator::records::Record {
    coordinator::records::Record::OffsetCommit {
        key: coordinator::records::offsets::OffsetCommitKey {
            group: GROUP.to_string(),
            topic: topic.to_string(),
            partition,
        },
        value: Some(coordinator::records::offsets::OffsetCommitValue {
            offset: 10,
            leader_epoch: -1,
            metadata: String::new(),
            commit_timestamp: 0,
            expire_timestamp: None,
            topic_id: uuid::Uuid::nil(),
        }),
    }
}

/// DeleteGroups on the emptied group: its tombstones, and its initial-rebalance timer is gone, so
/// nothing fires at 1000. A new group under the same id gets its own delay (from its own first join),
/// not the deleted group's.
#[test]
fn delete_groups_cancels_the_streams_group_timers() {
    let mut h = emptied_group();
    let (response, records) = h.request(Request::DeleteGroups(
        DeleteGroupsRequest::default().with_groups_names(vec![s(GROUP).into()]),
    ));
    match response {
        Response::DeleteGroups(r) => {
            assert_eq!(r.results.len(), 1);
            assert_eq!(r.results[0].error_code, 0);
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(records, group_tombstones());
    assert!(!h.shard.streams.contains(GROUP));
    assert_eq!(h.timer_deadline(DELAY_KEY), None);
    assert!(
        h.sleep(1_000).is_empty(),
        "no timer of the deleted group fires"
    );

    // The group is created again at 1100: its own delay runs to 2100.
    let (r, _) = h.hb(join("m2", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 1);
    assert_eq!(h.timer_deadline(DELAY_KEY), Some(2100));
    assert!(h.sleep(999).is_empty());
    let fired = h.sleep(1);
    assert_eq!(fired.len(), 1);
    assert_eq!(
        (fired[0].key.as_str(), fired[0].deadline_ms),
        (DELAY_KEY, 2100)
    );
}

/// The periodic expiry deletes the emptied group (no offsets) and cancels its timer the same way.
#[test]
fn expired_streams_group_timers_never_fire() {
    let mut h = emptied_group();
    h.now = 500;
    let outcome = h.shard.cleanup_group_metadata(h.now);
    h.log.extend(outcome.records.iter().cloned());
    assert_eq!(outcome.records, group_tombstones());
    assert!(!h.shard.streams.contains(GROUP));
    assert_eq!(h.timer_deadline(DELAY_KEY), None);
    let fired = h.sleep(10_000);
    assert!(
        fired.iter().all(|f| f.key == "expire-group-metadata"),
        "only the expiration timer itself fires: {:?}",
        fired.iter().map(|f| &f.key).collect::<Vec<_>>()
    );
}

/// A classic JoinGroup converting the emptied group cancels the streams group's timer
/// (`maybeDeleteEmptyStreamsGroup`).
#[test]
fn classic_join_converting_an_empty_streams_group_cancels_its_timers() {
    let mut h = emptied_group();
    h.version = 4;
    let join = JoinGroupRequest::default()
        .with_group_id(s(GROUP).into())
        .with_member_id(s(""))
        .with_protocol_type(s("consumer"))
        .with_session_timeout_ms(45_000)
        .with_rebalance_timeout_ms(60_000)
        .with_protocols(vec![
            JoinGroupRequestProtocol::default()
                .with_name(s("range"))
                .with_metadata(bytes::Bytes::new()),
        ]);
    let (response, records) = h.request(Request::JoinGroup(join));
    match response {
        Response::JoinGroup(r) => {
            assert_eq!(r.error_code, protocol::ErrorCode::MemberIdRequired.code())
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(records[..3], group_tombstones()[..]);
    assert!(!h.shard.streams.contains(GROUP));
    assert!(h.shard.classic.contains(GROUP));
    assert_eq!(h.timer_deadline(DELAY_KEY), None);
    let fired = h.sleep(1_000);
    assert!(
        fired.iter().all(|f| f.key != DELAY_KEY),
        "the streams group's initial-rebalance timer must not fire"
    );
}

/// A live streams group consumes the source topics of its topology: their offsets never expire, the
/// offsets of other topics expire by commit time, and the group is kept. Once empty, all of its offsets
/// expire and the group goes.
#[test]
fn streams_group_offsets_expire_unless_consumed() {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("offsets.retention.minutes", "1"),
    ]);
    h.topics(&[("foo", 2), ("bar", 1)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 2);
    h.setup(vec![committed("foo", 0), committed("bar", 0)]);
    h.now = 60_000;
    let outcome = h.shard.cleanup_group_metadata(h.now);
    h.log.extend(outcome.records.iter().cloned());
    assert_eq!(outcome.records, vec![tombstone_of("bar", 0)]);
    assert!(h.shard.streams.contains(GROUP));
    let (r, _) = h.hb(hb("m", -1));
    assert_eq!(r.member_epoch, -1);
    let outcome = h.shard.cleanup_group_metadata(h.now);
    h.log.extend(outcome.records.iter().cloned());
    let mut expected = vec![tombstone_of("foo", 0)];
    expected.extend(group_tombstones());
    assert_eq!(outcome.records, expected);
    assert!(!h.shard.streams.contains(GROUP));
}

fn tombstone_of(topic: &str, partition: i32) -> coordinator::records::Record {
    coordinator::records::Record::OffsetCommit {
        key: coordinator::records::offsets::OffsetCommitKey {
            group: GROUP.to_string(),
            topic: topic.to_string(),
            partition,
        },
        value: None,
    }
}

fn offset_delete(
    h: &mut H,
    topics: &[(&str, &[i32])],
) -> (
    protocol::messages::OffsetDeleteResponse,
    Vec<coordinator::records::Record>,
) {
    use protocol::messages::offset_delete_request::{
        OffsetDeleteRequestPartition, OffsetDeleteRequestTopic,
    };
    let request = protocol::messages::OffsetDeleteRequest::default()
        .with_group_id(s(GROUP).into())
        .with_topics(
            topics
                .iter()
                .map(|(name, partitions)| {
                    OffsetDeleteRequestTopic::default()
                        .with_name(s(name).into())
                        .with_partitions(
                            partitions
                                .iter()
                                .map(|p| {
                                    OffsetDeleteRequestPartition::default().with_partition_index(*p)
                                })
                                .collect(),
                        )
                })
                .collect(),
        );
    h.version = 0;
    match h.request(Request::OffsetDelete(request)) {
        (Response::OffsetDelete(r), records) => (r, records),
        other => panic!("{other:?}"),
    }
}

/// (topic, [(partition, error code)]) of an OffsetDelete response.
fn offset_delete_answers(
    r: &protocol::messages::OffsetDeleteResponse,
) -> Vec<(String, Vec<(i32, i16)>)> {
    r.topics
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.partitions
                    .iter()
                    .map(|p| (p.partition_index, p.error_code))
                    .collect(),
            )
        })
        .collect()
}

/// testStreamsGroupOffsetDeleteWithErrors / testStreamsGroupOffsetDelete: a streams group admits
/// OffsetDelete in every state; while it has members, the source topics of its topology answer
/// GROUP_SUBSCRIBED_TO_TOPIC (86) and keep their offsets; once empty it consumes nothing and every offset
/// can be deleted. The group itself stays.
#[test]
fn streams_group_offset_delete_spares_consumed_topics() {
    let mut h = H::new();
    h.topics(&[("foo", 2), ("bar", 1)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 2);
    h.setup(vec![committed("foo", 0), committed("bar", 0)]);

    let (r, records) = offset_delete(&mut h, &[("foo", &[0]), ("bar", &[0])]);
    assert_eq!(r.error_code, 0);
    assert_eq!(
        offset_delete_answers(&r),
        vec![
            ("foo".to_string(), vec![(0, 86)]),
            ("bar".to_string(), vec![(0, 0)])
        ]
    );
    assert_eq!(records, vec![tombstone_of("bar", 0)]);

    h.version = 1;
    let (r, _) = h.hb(hb("m", -1));
    assert_eq!(r.member_epoch, -1);
    let (r, records) = offset_delete(&mut h, &[("foo", &[0])]);
    assert_eq!(r.error_code, 0);
    assert_eq!(
        offset_delete_answers(&r),
        vec![("foo".to_string(), vec![(0, 0)])]
    );
    assert_eq!(records, vec![tombstone_of("foo", 0)]);
    assert!(h.shard.streams.contains(GROUP));
}

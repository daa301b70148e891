//! OffsetDelete (api 47) on classic and simple groups: Kafka's `OffsetMetadataManagerTest`
//! testGenericGroupOffsetDelete* and `ClassicGroupTest.testValidateOffsetDelete`, reached through
//! `Shard::handle`, so the front-end topic checks of `KafkaApis.handleOffsetDeleteRequest` and the group id
//! check of `GroupCoordinatorService.deleteOffsets` run too.

mod classic_support;

use classic_support::*;
use coordinator::records::Record;
use coordinator::records::classic::GroupMetadataKey;
use coordinator::records::offsets::OffsetCommitKey;
use protocol::messages::offset_delete_request::{
    OffsetDeleteRequestPartition, OffsetDeleteRequestTopic,
};
use protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use protocol::messages::{
    OffsetDeleteRequest, OffsetDeleteResponse, ProducerId, TxnOffsetCommitRequest,
};
use protocol::{ErrorCode, Response};

use ErrorCode::{
    GroupIdNotFound, GroupSubscribedToTopic, InvalidGroupId, NonEmptyGroup, None as NoError,
    UnknownTopicOrPartition,
};

fn with_topics() -> TestContext {
    TestContext::new().with_topics(&[("foo", 2), ("bar", 2)])
}

fn request(group: &str, topics: &[(&str, &[i32])]) -> OffsetDeleteRequest {
    OffsetDeleteRequest::default()
        .with_group_id(sb(group).into())
        .with_topics(
            topics
                .iter()
                .map(|(name, partitions)| {
                    OffsetDeleteRequestTopic::default()
                        .with_name(sb(name).into())
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
        )
}

/// Sends OffsetDelete v0: the response (as the client decodes it) and the records written.
fn delete(ctx: &mut TestContext, r: OffsetDeleteRequest) -> (OffsetDeleteResponse, Vec<Record>) {
    let sent = ctx.send(0, r);
    match ctx.wire_answers.get(&sent.token) {
        Some(Response::OffsetDelete(resp)) => (resp.clone(), sent.records),
        other => panic!("expected an OffsetDelete response, got {other:?}"),
    }
}

type Answer = (ErrorCode, Vec<(String, Vec<(i32, ErrorCode)>)>);

/// The top-level error and the (topic, [(partition, error)]) answers, in response order.
fn answer(r: &OffsetDeleteResponse) -> Answer {
    let top = ErrorCode::from_code(r.error_code).expect("known code");
    let topics = r
        .topics
        .iter()
        .map(|t| {
            (
                t.name.to_string(),
                t.partitions
                    .iter()
                    .map(|p| {
                        (
                            p.partition_index,
                            ErrorCode::from_code(p.error_code).expect("known code"),
                        )
                    })
                    .collect(),
            )
        })
        .collect();
    (top, topics)
}

fn topics(list: &[(&str, &[(i32, ErrorCode)])]) -> Vec<(String, Vec<(i32, ErrorCode)>)> {
    list.iter()
        .map(|(t, ps)| (t.to_string(), ps.to_vec()))
        .collect()
}

fn tombstone(group: &str, topic: &str, partition: i32) -> Record {
    Record::OffsetCommit {
        key: OffsetCommitKey {
            group: group.to_string(),
            topic: topic.to_string(),
            partition,
        },
        value: None,
    }
}

/// testGenericGroupOffsetDelete: a simple group's committed offset is deleted with one tombstone; the
/// group itself stays (OffsetDelete never deletes a group) until the periodic expiration finds it empty
/// and without offsets.
#[test]
fn simple_group_offset_delete_writes_a_tombstone_and_keeps_the_group() {
    let mut ctx = with_topics();
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 0, 100));
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 1, 100));
    let (r, records) = delete(&mut ctx, request("simple", &[("foo", &[0])]));
    assert_eq!(answer(&r), (NoError, topics(&[("foo", &[(0, NoError)])])));
    assert_eq!(records, vec![tombstone("simple", "foo", 0)]);
    assert!(ctx.shard.offsets.get("simple", "foo", 0).is_none());
    assert!(ctx.shard.offsets.get("simple", "foo", 1).is_some());

    // The last offset goes too: the group is still there, empty and without offsets.
    let (r, records) = delete(&mut ctx, request("simple", &[("foo", &[1])]));
    assert_eq!(answer(&r), (NoError, topics(&[("foo", &[(1, NoError)])])));
    assert_eq!(records, vec![tombstone("simple", "foo", 1)]);
    assert!(ctx.shard.classic.contains("simple"));
    let outcome = ctx.shard.cleanup_group_metadata(ctx.now);
    ctx.log.extend(outcome.records.iter().cloned());
    assert_eq!(
        outcome.records,
        vec![Record::GroupMetadata {
            key: GroupMetadataKey {
                group: "simple".to_string()
            },
            value: None,
        }]
    );
    assert!(!ctx.shard.classic.contains("simple"));
}

/// A partition without an offset is answered NONE and writes nothing; a partition named twice is
/// answered twice and, having an offset, gets two tombstones (Kafka checks the state before the request).
#[test]
fn partitions_without_offsets_and_repeated_partitions() {
    let mut ctx = with_topics();
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 0, 100));
    let (r, records) = delete(&mut ctx, request("simple", &[("foo", &[1]), ("bar", &[0])]));
    assert_eq!(
        answer(&r),
        (
            NoError,
            topics(&[("foo", &[(1, NoError)]), ("bar", &[(0, NoError)])])
        )
    );
    assert!(records.is_empty());

    let (r, records) = delete(&mut ctx, request("simple", &[("foo", &[0, 0])]));
    assert_eq!(
        answer(&r),
        (NoError, topics(&[("foo", &[(0, NoError), (0, NoError)])]))
    );
    assert_eq!(
        records,
        vec![tombstone("simple", "foo", 0), tombstone("simple", "foo", 0)]
    );
}

/// testGenericGroupOffsetDeleteWithPendingTransactionalOffsets: a partition only a pending transaction
/// holds gets a tombstone, which also drops the pending offset.
#[test]
fn pending_transactional_offset_gets_a_tombstone() {
    let mut ctx = with_topics();
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 0, 100));
    let txn = TxnOffsetCommitRequest::default()
        .with_transactional_id(sb("txn").into())
        .with_group_id(sb("simple").into())
        .with_producer_id(ProducerId(10))
        .with_producer_epoch(1)
        .with_generation_id_or_member_epoch(-1)
        .with_topics(vec![
            TxnOffsetCommitRequestTopic::default()
                .with_name(sb("bar").into())
                .with_partitions(vec![
                    TxnOffsetCommitRequestPartition::default()
                        .with_partition_index(1)
                        .with_committed_offset(7),
                ]),
        ]);
    let sent = ctx.send(3, txn);
    assert_eq!(sent.records.len(), 1);
    assert!(ctx.shard.offsets.has_pending("simple", "bar", 1));
    let (r, records) = delete(&mut ctx, request("simple", &[("bar", &[1])]));
    assert_eq!(answer(&r), (NoError, topics(&[("bar", &[(1, NoError)])])));
    assert_eq!(records, vec![tombstone("simple", "bar", 1)]);
    assert!(!ctx.shard.offsets.has_pending("simple", "bar", 1));
}

/// An unknown group: GROUP_ID_NOT_FOUND at the top level, no topics (the front end's partition errors are
/// dropped by the merge), nothing written.
#[test]
fn unknown_group_is_group_id_not_found() {
    let mut ctx = with_topics();
    let (r, records) = delete(
        &mut ctx,
        request("unknown", &[("foo", &[0]), ("missing", &[0])]),
    );
    assert_eq!(answer(&r), (GroupIdNotFound, vec![]));
    assert!(records.is_empty());
}

/// An empty group id: INVALID_GROUP_ID at the top level, before any group lookup.
#[test]
fn empty_group_id_is_invalid_group_id() {
    let mut ctx = with_topics();
    ctx.commit(9, commit_request("", "", None, -1, "foo", 0, 1));
    let (r, records) = delete(&mut ctx, request("", &[("foo", &[0])]));
    assert_eq!(answer(&r), (InvalidGroupId, vec![]));
    assert!(records.is_empty());
}

/// The front end answers unknown topics (even one naming no partition) and missing partitions with
/// UNKNOWN_TOPIC_OR_PARTITION; a known topic naming no partition is neither forwarded nor answered; the
/// coordinator's answers are appended to the topic entries the front end made, in request order.
#[test]
fn unknown_topics_and_partitions_are_answered_by_the_front_end() {
    let mut ctx = with_topics();
    ctx.commit(9, commit_request("simple", "", None, -1, "foo", 0, 100));
    let (r, records) = delete(
        &mut ctx,
        request(
            "simple",
            &[
                ("nope", &[0, 1]),
                ("foo", &[2, 0, -1]),
                ("bar", &[]),
                ("ghost", &[]),
            ],
        ),
    );
    assert_eq!(
        answer(&r),
        (
            NoError,
            topics(&[
                (
                    "nope",
                    &[(0, UnknownTopicOrPartition), (1, UnknownTopicOrPartition)]
                ),
                (
                    "foo",
                    &[
                        (2, UnknownTopicOrPartition),
                        (-1, UnknownTopicOrPartition),
                        (0, NoError)
                    ]
                ),
                ("ghost", &[]),
            ])
        )
    );
    assert_eq!(records, vec![tombstone("simple", "foo", 0)]);
}

/// A Stable consumer group (subscribed to "foo"): the topic it consumes gets GROUP_SUBSCRIBED_TO_TOPIC
/// on every partition and keeps its offsets; another topic's offsets are deleted.
#[test]
fn stable_consumer_group_keeps_the_offsets_of_subscribed_topics() {
    let mut ctx = with_topics();
    ctx.load(stable_group_record(1, &[("member", None)]));
    for (topic, partition) in [("foo", 0), ("bar", 0)] {
        let r = ctx.commit(
            9,
            commit_request(GROUP, "member", None, 1, topic, partition, 5),
        );
        assert_eq!(
            commit_errors(&r),
            vec![(topic.to_string(), partition, NoError)]
        );
    }
    let (r, records) = delete(&mut ctx, request(GROUP, &[("foo", &[0, 1]), ("bar", &[0])]));
    assert_eq!(
        answer(&r),
        (
            NoError,
            topics(&[
                (
                    "foo",
                    &[(0, GroupSubscribedToTopic), (1, GroupSubscribedToTopic)]
                ),
                ("bar", &[(0, NoError)]),
            ])
        )
    );
    assert_eq!(records, vec![tombstone(GROUP, "bar", 0)]);
    assert!(ctx.shard.offsets.get(GROUP, "foo", 0).is_some());
}

/// testValidateOffsetDelete: a classic group with members whose protocol type is not "consumer" refuses
/// with NON_EMPTY_GROUP (its subscriptions cannot be known).
#[test]
fn classic_group_with_members_of_another_protocol_type_is_non_empty_group() {
    let mut ctx = with_topics();
    let mut record = stable_group_record(1, &[("member", None)]);
    if let Record::GroupMetadata {
        value: Some(value), ..
    } = &mut record
    {
        value.protocol_type = "connect".into();
    }
    ctx.load(record);
    ctx.commit(9, commit_request(GROUP, "member", None, 1, "bar", 0, 5));
    let (r, records) = delete(&mut ctx, request(GROUP, &[("bar", &[0])]));
    assert_eq!(answer(&r), (NonEmptyGroup, vec![]));
    assert!(records.is_empty());
    assert!(ctx.shard.offsets.get(GROUP, "bar", 0).is_some());
}

/// An Empty consumer group (its last member left) subscribes to nothing: every offset can be deleted.
#[test]
fn empty_consumer_group_subscribes_to_nothing() {
    let mut ctx = with_topics();
    ctx.load(stable_group_record(1, &[("member", None)]));
    ctx.commit(9, commit_request(GROUP, "member", None, 1, "foo", 0, 5));
    let (leave, _) = ctx.leave(leave_request(vec![leave_member("member", None)]));
    assert_eq!(leave.error_code, 0);
    assert_eq!(ctx.group().state(), coordinator::classic::GroupState::Empty);
    let (r, records) = delete(&mut ctx, request(GROUP, &[("foo", &[0])]));
    assert_eq!(answer(&r), (NoError, topics(&[("foo", &[(0, NoError)])])));
    assert_eq!(records, vec![tombstone(GROUP, "foo", 0)]);
}

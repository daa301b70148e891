//! Offset commits and fetches of classic groups: generation, member id and instance id validation with
//! Kafka's errors, simple (protocol-less) groups, TxnOffsetCommit version rules, topic ids, pending
//! transactional offsets. Scenarios 43-44 of static-membership.md §6 and classic-44-delta.md §4.1
//! items 11-13, 15 and 17, at shard level.

mod classic_support;

use bytes::Bytes;
use classic_support::*;
use coordinator::classic::{ClassicGroup, ClassicMember, GroupState};
use coordinator::group::GroupValidation;
use coordinator::records::Record;
use coordinator::records::offsets::{OffsetCommitKey, OffsetCommitValue};
use coordinator::topics::{TopicMetadata, TopicsImage};
use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;
use protocol::Response;
use protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use protocol::messages::offset_fetch_request::{
    OffsetFetchRequestGroup, OffsetFetchRequestTopic, OffsetFetchRequestTopics,
};
use protocol::messages::txn_offset_commit_request::{
    TxnOffsetCommitRequestPartition, TxnOffsetCommitRequestTopic,
};
use protocol::messages::{
    OffsetCommitRequest, OffsetFetchRequest, ProducerId, TxnOffsetCommitRequest,
};
use uuid::Uuid;

const LEADER: &str = "leader-instance-id";
const FOLLOWER: &str = "follower-instance-id";

fn with_topics() -> TestContext {
    TestContext::new().with_topics(&[("topic", 2), ("foo", 2), ("bar", 2)])
}

/// §6 #43 staticMemberCommitOffsetWithInvalidMemberId (Scala): the leader commits; a commit naming the
/// leader's instance with another member id is fenced.
#[test]
fn static_member_commit_offset_with_invalid_member_id() {
    let mut ctx = with_topics();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    let r = ctx.commit(
        9,
        commit_request(GROUP, &rebalance.leader_id, None, 1, "topic", 0, 0),
    );
    assert_eq!(
        commit_errors(&r),
        vec![("topic".to_string(), 0, ErrorCode::None)]
    );
    let r = ctx.commit(
        9,
        commit_request(GROUP, "invalid-member-id", Some(LEADER), 1, "topic", 0, 0),
    );
    assert_eq!(
        commit_errors(&r),
        vec![("topic".to_string(), 0, ErrorCode::FencedInstanceId)]
    );
    // Only the accepted commit was written.
    assert_eq!(
        ctx.log
            .iter()
            .filter(|r| matches!(r, Record::OffsetCommit { .. }))
            .count(),
        1
    );
}

fn member(id: &str, instance: Option<&str>) -> ClassicMember {
    ClassicMember::new(
        id.into(),
        instance.map(Into::into),
        String::new(),
        String::new(),
        100,
        100,
        "consumer".into(),
        vec![coordinator::classic::member::Protocol {
            name: "roundrobin".into(),
            metadata: Bytes::new(),
        }],
    )
}

fn commit_error(
    group: &ClassicGroup,
    m: &str,
    i: Option<&str>,
    generation: i32,
    txn: bool,
) -> ErrorCode {
    match group.validate_offset_commit(m, i, generation, txn, 9, &KafkaBugs::none()) {
        Ok(_) => ErrorCode::None,
        Err(e) => e.code,
    }
}

/// §6 #44 testValidateOffsetCommit (Kafka's ClassicGroupTest): the validation table of a classic group.
#[test]
fn validate_offset_commit() {
    let mut group = ClassicGroup::new("group-id", GroupState::Empty, Some(0));
    // An admin commit without anything: accepted by an empty group.
    assert_eq!(
        commit_error(&group, "", Some(""), -1, false),
        ErrorCode::None
    );
    group
        .add(member("member-id", Some("instance-id")), None)
        .unwrap();
    group
        .transition_to(GroupState::PreparingRebalance, 1)
        .unwrap();
    group.init_next_generation(2).unwrap();
    assert_eq!(group.state(), GroupState::CompletingRebalance);
    // No member information and a non-empty group ("" is a present instance id).
    assert_eq!(
        commit_error(&group, "", Some(""), -1, false),
        ErrorCode::UnknownMemberId
    );
    // Transactional commits without member information are accepted.
    assert_eq!(commit_error(&group, "", None, -1, true), ErrorCode::None);
    assert_eq!(
        commit_error(&group, "unknown", Some("unknown"), -1, false),
        ErrorCode::UnknownMemberId
    );
    assert_eq!(
        commit_error(&group, "member-id", Some("unknown"), -1, false),
        ErrorCode::UnknownMemberId
    );
    assert_eq!(
        commit_error(&group, "member-id", Some("instance-id"), 0, false),
        ErrorCode::IllegalGeneration
    );
    assert_eq!(
        commit_error(&group, "member-id", Some("instance-id"), 1, false),
        ErrorCode::RebalanceInProgress
    );
    group.transition_to(GroupState::Stable, 3).unwrap();
    assert_eq!(
        commit_error(&group, "member-id", Some("instance-id"), 1, false),
        ErrorCode::None
    );
    group
        .replace_static_member("instance-id", "member-id", "new-member-id")
        .unwrap();
    assert_eq!(
        commit_error(&group, "member-id", Some("instance-id"), 1, false),
        ErrorCode::FencedInstanceId
    );
    group.remove("new-instance-id");
    group.transition_to(GroupState::Dead, 4).unwrap();
    assert_eq!(
        commit_error(&group, "member-id", Some("new-instance-id"), 1, false),
        ErrorCode::CoordinatorNotAvailable
    );
}

/// Kafka's testGenericGroupOffsetCommitWithFencedInstanceId: an instance id the group does not know is
/// UNKNOWN_MEMBER_ID, never FENCED_INSTANCE_ID.
#[test]
fn generic_group_offset_commit_with_unknown_instance_id() {
    let mut ctx = with_topics();
    ctx.load(stable_group_record(
        10,
        &[("member", Some("new-instance-id"))],
    ));
    let r = ctx.commit(
        9,
        commit_request(GROUP, "member", Some("old-instance-id"), 10, "bar", 0, 100),
    );
    assert_eq!(
        commit_errors(&r),
        vec![("bar".to_string(), 0, ErrorCode::UnknownMemberId)]
    );
}

/// classic-44-delta.md §4.1 #17 testSimpleGroupOffsetCommitWithInstanceId: an unknown group with
/// generation -1 becomes a simple group; the instance id is ignored. (Kafka's unit test calls the
/// coordinator directly and sees topic id ZERO; through the broker the topic id is resolved.)
#[test]
fn simple_group_offset_commit_with_instance_id() {
    let mut ctx = with_topics();
    ctx.now = 12345;
    let r = ctx.commit(
        9,
        commit_request("foo", "", Some("instance-id"), -1, "bar", 0, 100),
    );
    assert_eq!(
        commit_errors(&r),
        vec![("bar".to_string(), 0, ErrorCode::None)]
    );
    let bar_id = ctx.shard.topics.get("bar").unwrap().id;
    match ctx.log.last().unwrap() {
        Record::OffsetCommit {
            key,
            value: Some(value),
        } => {
            assert_eq!(
                (key.group.as_str(), key.topic.as_str(), key.partition),
                ("foo", "bar", 0)
            );
            assert_eq!(value.offset, 100);
            assert_eq!(value.leader_epoch, -1);
            assert_eq!(value.metadata, "");
            assert_eq!(value.commit_timestamp, 12345);
            assert_eq!(value.expire_timestamp, None);
            assert_eq!(value.topic_id, bar_id);
        }
        other => panic!("{other:?}"),
    }
    let group = ctx.group_named("foo");
    assert!(is_simple_group(group));
    assert_eq!(group.state(), GroupState::Empty);
}

/// OffsetCommit to an unknown group with a generation: GROUP_ID_NOT_FOUND from v9, ILLEGAL_GENERATION
/// before; nothing is created.
#[test]
fn offset_commit_unknown_group_errors_by_version() {
    let mut ctx = with_topics();
    for version in 2..=9 {
        let r = ctx.commit(version, commit_request("nope", "m", None, 1, "bar", 0, 1));
        let expected = if version >= 9 {
            ErrorCode::GroupIdNotFound
        } else {
            ErrorCode::IllegalGeneration
        };
        assert_eq!(commit_errors(&r)[0].2, expected, "v{version}");
    }
    assert!(ctx.shard.classic.get("nope").is_none());
    assert!(ctx.log.is_empty());
}

/// Commits during a rebalance: accepted in PreparingRebalance (and the session refreshed),
/// REBALANCE_IN_PROGRESS in CompletingRebalance; aiokafka-style commits without instance id from a
/// static member are accepted.
#[test]
fn offset_commit_by_group_state_and_without_instance_id() {
    let mut ctx = with_topics();
    let rebalance = ctx.static_members_join_and_rebalance(LEADER, FOLLOWER, 10000, 5000);
    // Stable, v3 commit (no instance id field) from the static follower.
    let r = ctx.commit(
        3,
        commit_request(GROUP, &rebalance.follower_id, None, 1, "foo", 1, 7),
    );
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::None);
    // The leader rejoins: PreparingRebalance; commits with the old generation still go through and keep
    // the follower's session alive.
    let leader = ctx.join(
        join_request()
            .instance(LEADER)
            .member(&rebalance.leader_id)
            .protocol_superset()
            .rebalance(10000)
            .session(5000)
            .build(),
    );
    assert_eq!(ctx.group().state(), GroupState::PreparingRebalance);
    ctx.sleep(4000);
    let r = ctx.commit(
        8,
        commit_request(
            GROUP,
            &rebalance.follower_id,
            Some(FOLLOWER),
            1,
            "foo",
            1,
            8,
        ),
    );
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::None);
    assert_eq!(
        ctx.shard
            .timers
            .deadline(&format!("heartbeat-group-id-{}", rebalance.follower_id)),
        Some(ctx.now + 5000)
    );
    // The follower rejoins: CompletingRebalance at generation 2.
    let follower = ctx.join(
        join_request()
            .instance(FOLLOWER)
            .member(&rebalance.follower_id)
            .protocol_superset()
            .rebalance(10000)
            .session(5000)
            .build(),
    );
    assert_eq!(ctx.joined(&leader).generation_id, 2);
    assert_eq!(ctx.joined(&follower).generation_id, 2);
    let r = ctx.commit(
        8,
        commit_request(
            GROUP,
            &rebalance.follower_id,
            Some(FOLLOWER),
            2,
            "foo",
            1,
            9,
        ),
    );
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::RebalanceInProgress);
    let r = ctx.commit(
        8,
        commit_request(
            GROUP,
            &rebalance.follower_id,
            Some(FOLLOWER),
            1,
            "foo",
            1,
            9,
        ),
    );
    assert_eq!(commit_errors(&r)[0].2, ErrorCode::IllegalGeneration);
    let committed = ctx.shard.offsets.get(GROUP, "foo", 1).unwrap();
    assert_eq!(committed.committed_offset, 8);
}

/// The per-partition checks in front of the coordinator: unknown topics and partitions, metadata size,
/// retention time (v2-4) and topic ids (v10).
#[test]
fn offset_commit_partition_checks_and_topic_ids() {
    let mut ctx = with_topics().with_config("offset.metadata.max.bytes", "5");
    ctx.now = 1000;
    let foo_id = ctx.shard.topics.get("foo").unwrap().id;
    let request = OffsetCommitRequest::default()
        .with_group_id(sb("simple").into())
        .with_generation_id_or_member_epoch(-1)
        .with_retention_time_ms(60_000)
        .with_topics(vec![
            OffsetCommitRequestTopic::default()
                .with_name(sb("foo").into())
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(0)
                        .with_committed_offset(10)
                        .with_committed_metadata(Some(sb("ok"))),
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(1)
                        .with_committed_offset(11)
                        .with_committed_metadata(Some(sb("too long"))),
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(7)
                        .with_committed_offset(12),
                ]),
            OffsetCommitRequestTopic::default()
                .with_name(sb("missing").into())
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(0)
                        .with_committed_offset(1),
                ]),
        ]);
    let r = ctx.commit(2, request);
    // Rejected-up-front partitions come first, the coordinator's answers are merged into their topic.
    assert_eq!(
        commit_errors(&r),
        vec![
            ("foo".to_string(), 7, ErrorCode::UnknownTopicOrPartition),
            ("foo".to_string(), 0, ErrorCode::None),
            ("foo".to_string(), 1, ErrorCode::OffsetMetadataTooLarge),
            ("missing".to_string(), 0, ErrorCode::UnknownTopicOrPartition),
        ]
    );
    let stored = ctx.shard.offsets.get("simple", "foo", 0).unwrap();
    assert_eq!(stored.committed_offset, 10);
    assert_eq!(stored.expire_timestamp, Some(61_000));
    assert_eq!(stored.topic_id, foo_id);
    assert!(ctx.shard.offsets.get("simple", "foo", 1).is_none());

    // v10 names topics by id.
    let request = OffsetCommitRequest::default()
        .with_group_id(sb("simple").into())
        .with_generation_id_or_member_epoch(-1)
        .with_topics(vec![
            OffsetCommitRequestTopic::default()
                .with_topic_id(foo_id)
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(1)
                        .with_committed_offset(21)
                        .with_committed_leader_epoch(3),
                ]),
            OffsetCommitRequestTopic::default()
                .with_topic_id(Uuid::from_u64_pair(1, 2))
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(0)
                        .with_committed_offset(1),
                ]),
        ]);
    let r = ctx.commit(10, request);
    assert_eq!(r.topics.len(), 2);
    assert_eq!(r.topics[0].topic_id, Uuid::from_u64_pair(1, 2));
    assert_eq!(
        r.topics[0].partitions[0].error_code,
        code(ErrorCode::UnknownTopicId)
    );
    assert_eq!(r.topics[1].topic_id, foo_id);
    assert_eq!(r.topics[1].name.as_str(), "foo");
    assert_eq!(r.topics[1].partitions[0].error_code, 0);
    let stored = ctx.shard.offsets.get("simple", "foo", 1).unwrap();
    assert_eq!(stored.committed_offset, 21);
    assert_eq!(stored.leader_epoch, Some(3));
    assert_eq!(stored.expire_timestamp, None);
}

fn txn_request(version: i16, group: &str, member: &str, generation: i32) -> TxnOffsetCommitRequest {
    let topic = if version >= 6 {
        TxnOffsetCommitRequestTopic::default().with_topic_id(TopicMetadata::new("bar", 2).id)
    } else {
        TxnOffsetCommitRequestTopic::default().with_name(sb("bar").into())
    };
    TxnOffsetCommitRequest::default()
        .with_transactional_id(sb("txn").into())
        .with_group_id(sb(group).into())
        .with_producer_id(ProducerId(10))
        .with_producer_epoch(1)
        .with_member_id(sb(member))
        .with_generation_id_or_member_epoch(generation)
        .with_topics(vec![topic.with_partitions(vec![
            TxnOffsetCommitRequestPartition::default()
                .with_partition_index(0)
                .with_committed_offset(100)
                .with_committed_leader_epoch(10)
                .with_committed_metadata(Some(sb("metadata"))),
        ])])
}

fn txn_error(ctx: &mut TestContext, version: i16, request: TxnOffsetCommitRequest) -> ErrorCode {
    let sent = ctx.send(version, request);
    match ctx.answer(&sent) {
        Some(Response::TxnOffsetCommit(r)) => {
            ErrorCode::from_code(r.topics[0].partitions[0].error_code).unwrap()
        }
        other => panic!("{other:?}"),
    }
}

/// classic-44-delta.md §4.1 #11/#12 testGenericGroupTransactionalOffsetCommitWithUnknownGroupId /
/// testTransactionalOffsetCommitWithUnknownGroupId: GROUP_ID_NOT_FOUND from v6, ILLEGAL_GENERATION before.
#[test]
fn transactional_offset_commit_with_unknown_group_id() {
    let mut ctx = with_topics();
    for version in 0..=6 {
        let expected = if version >= 6 {
            ErrorCode::GroupIdNotFound
        } else {
            ErrorCode::IllegalGeneration
        };
        assert_eq!(
            txn_error(&mut ctx, version, txn_request(version, "foo", "member", 10)),
            expected,
            "v{version}"
        );
    }
    assert!(ctx.log.is_empty());
}

/// classic-44-delta.md §4.1 #13 testGenericGroupTransactionalOffsetCommitWithIllegalGenerationId: a
/// classic generation mismatch is ILLEGAL_GENERATION at every version.
#[test]
fn transactional_offset_commit_with_illegal_generation_id() {
    let mut ctx = with_topics();
    ctx.load(stable_group_record(1, &[("member", None)]));
    for version in 0..=6 {
        assert_eq!(
            txn_error(
                &mut ctx,
                version,
                txn_request(version, GROUP, "member", 100)
            ),
            ErrorCode::IllegalGeneration,
            "v{version}"
        );
    }
}

/// A valid transactional commit is written in the producer's transactional batch and stays pending:
/// regular fetches do not see it, a require-stable fetch gets UNSTABLE_OFFSET_COMMIT, and deleting the
/// group tombstones it.
#[test]
fn transactional_offsets_stay_pending() {
    let mut ctx = with_topics();
    ctx.load(stable_group_record(1, &[("member", None)]));
    assert_eq!(
        txn_error(&mut ctx, 3, txn_request(3, GROUP, "member", 1)),
        ErrorCode::None
    );
    match ctx.log.last().unwrap() {
        Record::TxnOffsetCommit {
            producer_id,
            producer_epoch,
            key,
            value: Some(value),
        } => {
            assert_eq!((*producer_id, *producer_epoch), (10, 1));
            assert_eq!(key.topic, "bar");
            assert_eq!(value.offset, 100);
            assert_eq!(value.leader_epoch, 10);
            assert_eq!(value.metadata, "metadata");
        }
        other => panic!("{other:?}"),
    }
    assert!(ctx.shard.offsets.get(GROUP, "bar", 0).is_none());
    assert!(ctx.shard.offsets.has_pending(GROUP, "bar", 0));
    let fetch = |stable: bool| {
        OffsetFetchRequest::default()
            .with_require_stable(stable)
            .with_groups(vec![
                OffsetFetchRequestGroup::default()
                    .with_group_id(sb(GROUP).into())
                    .with_topics(Some(vec![
                        OffsetFetchRequestTopics::default()
                            .with_name(sb("bar").into())
                            .with_partition_indexes(vec![0]),
                    ])),
            ])
    };
    let r = ctx.fetch(8, fetch(false));
    let p = &r.groups[0].topics[0].partitions[0];
    assert_eq!((p.committed_offset, p.error_code), (-1, 0));
    let r = ctx.fetch(8, fetch(true));
    let p = &r.groups[0].topics[0].partitions[0];
    assert_eq!(
        (p.committed_offset, p.error_code),
        (-1, code(ErrorCode::UnstableOffsetCommit))
    );
}

fn fetch_v10(group: &str, topic_id: Uuid, partitions: Vec<i32>) -> OffsetFetchRequest {
    OffsetFetchRequest::default().with_groups(vec![
        OffsetFetchRequestGroup::default()
            .with_group_id(sb(group).into())
            .with_topics(Some(vec![
                OffsetFetchRequestTopics::default()
                    .with_topic_id(topic_id)
                    .with_partition_indexes(partitions),
            ])),
    ])
}

/// classic-44-delta.md §4.1 #15 testFetchOffsetsWithRecreatedTopic: offsets committed for one incarnation
/// of a topic are not returned for another. (Through the broker, the old id no longer resolves once the
/// topic is re-created: UNKNOWN_TOPIC_ID.)
#[test]
fn fetch_offsets_with_recreated_topic() {
    let mut ctx = with_topics();
    let foo_a = ctx.shard.topics.get("foo").unwrap().id;
    for partition in [0, 1] {
        let mut request = commit_request("group", "", None, -1, "foo", partition, 100);
        request.topics[0].partitions[0].committed_leader_epoch = 1;
        request.topics[0].partitions[0].committed_metadata = Some(sb("metadata"));
        assert_eq!(commit_errors(&ctx.commit(9, request))[0].2, ErrorCode::None);
    }
    let r = ctx.fetch(10, fetch_v10("group", foo_a, vec![0, 1]));
    let topic = &r.groups[0].topics[0];
    assert_eq!(topic.topic_id, foo_a);
    assert_eq!(topic.name.as_str(), "foo");
    for (i, p) in topic.partitions.iter().enumerate() {
        assert_eq!(p.partition_index, i as i32);
        assert_eq!(p.committed_offset, 100);
        assert_eq!(p.committed_leader_epoch, 1);
        assert_eq!(p.metadata.as_deref(), Some("metadata"));
        assert_eq!(p.error_code, 0);
    }
    // The topic is deleted and re-created: a new id. The deletion of the old id deletes the offsets
    // committed for it (Kafka's onTopicsDeleted; see offset_expiration.rs).
    let mut recreated = TopicMetadata::new("foo", 2);
    recreated.id = Uuid::from_u64_pair(0xfeed, 0xbeef);
    let foo_b = recreated.id;
    let outcome = ctx.set_topics(TopicsImage::from_topics([
        recreated,
        TopicMetadata::new("topic", 2),
        TopicMetadata::new("bar", 2),
    ]));
    assert_eq!(outcome.records.len(), 2);
    assert!(ctx.shard.offsets.group("group").is_none());
    // An offset still stored for the old incarnation (here: loaded from an older record) is not
    // returned for the new one.
    ctx.load(Record::OffsetCommit {
        key: OffsetCommitKey {
            group: "group".to_string(),
            topic: "foo".to_string(),
            partition: 0,
        },
        value: Some(OffsetCommitValue {
            offset: 100,
            leader_epoch: 1,
            metadata: "metadata".to_string(),
            commit_timestamp: 0,
            expire_timestamp: None,
            topic_id: foo_a,
        }),
    });
    let r = ctx.fetch(10, fetch_v10("group", foo_b, vec![0, 1]));
    let topic = &r.groups[0].topics[0];
    assert_eq!(topic.topic_id, foo_b);
    for p in &topic.partitions {
        assert_eq!(
            (p.committed_offset, p.committed_leader_epoch, p.error_code),
            (-1, -1, 0)
        );
        assert_eq!(p.metadata.as_deref(), Some(""));
    }
    let r = ctx.fetch(10, fetch_v10("group", foo_a, vec![0]));
    let p = &r.groups[0].topics[0].partitions[0];
    assert_eq!(
        (p.committed_offset, p.error_code),
        (-1, code(ErrorCode::UnknownTopicId))
    );
    // Versions before 10 send no topic id: the stored offset is returned.
    let r = ctx.fetch(
        7,
        OffsetFetchRequest::default()
            .with_group_id(sb("group").into())
            .with_topics(Some(vec![
                OffsetFetchRequestTopic::default()
                    .with_name(sb("foo").into())
                    .with_partition_indexes(vec![0]),
            ])),
    );
    assert_eq!(r.error_code, 0);
    assert_eq!(r.topics[0].partitions[0].committed_offset, 100);
}

/// OffsetFetch of every offset of a group (null topics) before and from v8, and of an unknown group.
#[test]
fn offset_fetch_all_and_unknown_group() {
    let mut ctx = with_topics();
    for (topic, partition, offset) in [("foo", 1, 5), ("bar", 0, 6), ("foo", 0, 4)] {
        ctx.commit(
            9,
            commit_request("g", "", None, -1, topic, partition, offset),
        );
    }
    let r = ctx.fetch(
        7,
        OffsetFetchRequest::default()
            .with_group_id(sb("g").into())
            .with_topics(None),
    );
    let flat: Vec<(String, i32, i64)> = r
        .topics
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(move |p| (t.name.to_string(), p.partition_index, p.committed_offset))
        })
        .collect();
    assert_eq!(
        flat,
        vec![
            ("bar".to_string(), 0, 6),
            ("foo".to_string(), 0, 4),
            ("foo".to_string(), 1, 5)
        ]
    );
    let r = ctx.fetch(
        10,
        OffsetFetchRequest::default().with_groups(vec![
            OffsetFetchRequestGroup::default()
                .with_group_id(sb("g").into())
                .with_topics(None),
        ]),
    );
    assert_eq!(
        r.groups[0].topics[0].topic_id,
        ctx.shard.topics.get("bar").unwrap().id
    );
    // Unknown group: every requested partition without offset; fetch-all: nothing.
    let r = ctx.fetch(
        1,
        OffsetFetchRequest::default()
            .with_group_id(sb("unknown").into())
            .with_topics(Some(vec![
                OffsetFetchRequestTopic::default()
                    .with_name(sb("foo").into())
                    .with_partition_indexes(vec![0, 1]),
            ])),
    );
    assert_eq!(r.topics[0].partitions.len(), 2);
    assert!(
        r.topics[0]
            .partitions
            .iter()
            .all(|p| p.committed_offset == -1 && p.error_code == 0)
    );
    let r = ctx.fetch(
        9,
        OffsetFetchRequest::default().with_groups(vec![
            OffsetFetchRequestGroup::default()
                .with_group_id(sb("unknown").into())
                .with_topics(None),
        ]),
    );
    assert!(r.groups[0].topics.is_empty());
    assert_eq!(r.groups[0].error_code, 0);
}

/// `OffsetCommitResponse.Builder.addPartitions` creates the topic entry before adding partitions: an
/// unknown topic (by name, or by id from v10) that names no partition is still answered, with no
/// partitions; a known topic naming none is not answered at all.
#[test]
fn offset_commit_unknown_topic_without_partitions_is_answered_empty() {
    let mut ctx = with_topics();
    let request = OffsetCommitRequest::default()
        .with_group_id(sb("simple").into())
        .with_generation_id_or_member_epoch(-1)
        .with_topics(vec![
            OffsetCommitRequestTopic::default().with_name(sb("missing").into()),
            OffsetCommitRequestTopic::default().with_name(sb("bar").into()),
            OffsetCommitRequestTopic::default()
                .with_name(sb("foo").into())
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(0)
                        .with_committed_offset(1),
                ]),
        ]);
    let r = ctx.commit(9, request);
    let shape: Vec<(String, Vec<(i32, i16)>)> = r
        .topics
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
        .collect();
    assert_eq!(
        shape,
        vec![
            ("missing".to_string(), vec![]),
            ("foo".to_string(), vec![(0, 0)])
        ]
    );

    let unknown_id = Uuid::from_u64_pair(1, 2);
    let request = OffsetCommitRequest::default()
        .with_group_id(sb("simple").into())
        .with_generation_id_or_member_epoch(-1)
        .with_topics(vec![
            OffsetCommitRequestTopic::default().with_topic_id(unknown_id),
        ]);
    let r = ctx.commit(10, request);
    assert_eq!(r.topics.len(), 1);
    assert_eq!(r.topics[0].topic_id, unknown_id);
    assert!(r.topics[0].partitions.is_empty());
}

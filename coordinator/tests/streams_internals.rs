//! streams-protocol.md §8 scenarios 53-55 (group internals) and 77-78 (topic configuration).

mod streams_common;

use coordinator::streams::configure::configure_topics;
use coordinator::streams::group::StreamsGroupState;
use coordinator::streams::topology::{StreamsTopology, record_from_request};
use coordinator::topics::{TopicMetadata, TopicsImage};
use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;
use protocol::messages::streams_group_heartbeat_request as req;
use streams_common::*;

#[test]
fn s8_53_group_state() {
    let mut h = H::new();
    h.setup(vec![rec_group(GROUP, 1, 0, -1, &default_configs())]);
    assert_eq!(h.state(), StreamsGroupState::Empty);
    let m1 = with_epochs(member("m1"), 1, 0);
    h.setup(vec![rec_member(GROUP, &m1), rec_current(GROUP, &m1)]);
    assert_eq!(h.state(), StreamsGroupState::NotReady);
    h.setup(vec![
        rec_topology(GROUP, &topology(vec![sub("s1", &["foo"])]).with_epoch(1)),
        rec_group(GROUP, 1, 0, 1, &default_configs()),
    ]);
    // Group epoch 1 equals the initial assignment epoch 1, member 1 is stable at 1.
    assert_eq!(h.state(), StreamsGroupState::Stable);
    let m2 = with_epochs(member("m2"), 1, 0);
    h.setup(vec![
        rec_member(GROUP, &m2),
        rec_current(GROUP, &m2),
        rec_group(GROUP, 3, 0, 1, &default_configs()),
    ]);
    assert_eq!(h.state(), StreamsGroupState::Assigning);
    h.setup(vec![rec_target_meta(GROUP, 3, 0)]);
    assert_eq!(h.state(), StreamsGroupState::Reconciling);
    let m1 = with_epochs(member("m1"), 3, 1);
    let m2 = with_epochs(member("m2"), 3, 1);
    h.setup(vec![rec_current(GROUP, &m1), rec_current(GROUP, &m2)]);
    assert_eq!(h.state(), StreamsGroupState::Stable);
    let mut t = tombstones(GROUP, "m1");
    t.extend(tombstones(GROUP, "m2"));
    h.setup(t);
    assert_eq!(h.state(), StreamsGroupState::Empty);
}

#[test]
fn s8_54_updating_member_updates_task_process_id_when_partition_is_not_released() {
    let mut h = H::new();
    let mut m1 = with_epochs(member("m1"), 1, 0);
    m1.process_id = "process1".into();
    m1.assigned = twe_active(1, &[("foo", &[1])]);
    let mut m2 = with_epochs(member("m2"), 1, 0);
    m2.process_id = "process2".into();
    h.setup(vec![
        rec_member(GROUP, &m1),
        rec_current(GROUP, &m1),
        rec_member(GROUP, &m2),
        rec_current(GROUP, &m2),
    ]);
    let g = h.shard.streams.group(GROUP).unwrap();
    assert_eq!(
        g.persistent.ownership.active_owner("foo", 1),
        Some("process1")
    );
    m2.assigned = twe_active(1, &[("foo", &[1])]);
    h.setup(vec![rec_current(GROUP, &m2)]);
    let g = h.shard.streams.group(GROUP).unwrap();
    assert_eq!(
        g.persistent.ownership.active_owner("foo", 1),
        Some("process2")
    );
}

#[test]
fn s8_55_build_empty_assignment_when_topology_not_ready() {
    // A member joins while the source topic is missing: every member gets an empty target and the
    // target-assignment metadata is written.
    let mut h = H::new();
    h.now = 7;
    let (r, records) = h.hb(join("m", topology(vec![sub("s1", &["missing"])])));
    assert_eq!(r.member_epoch, 2);
    assert!(records.contains(&rec_target(GROUP, "m", &Default::default())));
    assert!(records.contains(&rec_target_meta(GROUP, 2, 7)));
    // The assignor was not consulted.
    assert!(h.assignor.last_spec.lock().unwrap().is_none());
}

fn configure(
    t: &req::Topology,
    topics: &[(&str, i32)],
) -> Result<coordinator::streams::configure::ConfiguredTopology, coordinator::ApiError> {
    let topology = StreamsTopology::from_record(&record_from_request(t)).unwrap();
    let image = TopicsImage::from_topics(topics.iter().map(|(n, p)| TopicMetadata::new(*n, *p)));
    configure_topics(&topology, 0, &image)
}

#[test]
fn s8_77_configure_topics_sets_configuration_exception_when_source_topic_is_missing() {
    let t = topology(vec![
        sub("subtopology1", &["source_topic1"]),
        sub("subtopology2", &["source_topic2"]),
    ]);
    let c = configure(&t, &[("source_topic1", 2)]).unwrap();
    assert!(c.subtopologies.is_none());
    let e = c.error.unwrap();
    assert_eq!(
        e.status,
        protocol::streams_status::StreamsStatus::MissingSourceTopics
    );
    assert_eq!(e.message, "Source topics source_topic2 are missing.");
}

#[test]
fn s8_77b_configure_topics_creates_missing_internal_topics() {
    // InternalTopicManagerTest#testConfigureTopics.
    let t = topology(vec![
        sub("subtopology1", &["source_topic1"])
            .with_repartition_sink_topics(vec![protocol::messages::TopicName(s(
                "repartition_topic",
            ))])
            .with_state_changelog_topics(vec![topic_info("changelog1", 0).with_topic_configs(
                vec![
                req::KeyValue::default().with_key(s("cleanup.policy")).with_value(s("compact")),
            ],
            )]),
        sub("subtopology2", &["source_topic2"])
            .with_repartition_source_topics(vec![
                topic_info("repartition_topic", 0).with_replication_factor(3),
            ])
            .with_state_changelog_topics(vec![topic_info("changelog2", 0)])
            .with_copartition_groups(vec![
                req::CopartitionGroup::default()
                    .with_source_topics(vec![0])
                    .with_repartition_source_topics(vec![0]),
            ]),
    ]);
    let c = configure(
        &t,
        &[
            ("source_topic1", 2),
            ("source_topic2", 2),
            ("changelog2", 2),
        ],
    )
    .unwrap();
    let subs = c.subtopologies.as_ref().unwrap();
    assert_eq!(subs["subtopology1"].number_of_tasks, 2);
    assert_eq!(subs["subtopology2"].number_of_tasks, 2);
    type Created = (String, i32, i16, Vec<(String, String)>);
    let mut created: Vec<Created> = c
        .internal_topics_to_create
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.num_partitions,
                t.replication_factor,
                t.configs.clone(),
            )
        })
        .collect();
    created.sort();
    assert_eq!(
        created,
        vec![
            (
                "changelog1".to_string(),
                2,
                -1,
                vec![("cleanup.policy".to_string(), "compact".to_string())]
            ),
            ("repartition_topic".to_string(), 2, 3, vec![]),
        ]
    );
    assert_eq!(
        c.error.as_ref().unwrap().status,
        protocol::streams_status::StreamsStatus::MissingInternalTopics
    );
}

#[test]
fn s8_78_invalid_topology_when_repartition_counts_cannot_be_computed() {
    // A loop between two subtopologies through repartition topics.
    let loop_topology = topology(vec![
        sub("s1", &[])
            .with_repartition_source_topics(vec![topic_info("r1", 0)])
            .with_repartition_sink_topics(vec![protocol::messages::TopicName(s("r2"))]),
        sub("s2", &[])
            .with_repartition_source_topics(vec![topic_info("r2", 0)])
            .with_repartition_sink_topics(vec![protocol::messages::TopicName(s("r1"))]),
    ]);
    let e = configure(&loop_topology, &[]).unwrap_err();
    assert_eq!(e.code, ErrorCode::StreamsInvalidTopology);
    assert_eq!(
        e.message.as_deref(),
        Some(
            "Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved."
        )
    );
    // A repartition source topic that no subtopology writes.
    let missing_sink = topology(vec![
        sub("s1", &["foo"]).with_repartition_source_topics(vec![topic_info("r1", 0)]),
    ]);
    let e = configure(&missing_sink, &[("foo", 2)]).unwrap_err();
    assert_eq!(e.code, ErrorCode::StreamsInvalidTopology);
    assert_eq!(
        e.message.as_deref(),
        Some(
            "Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic."
        )
    );
    // Through a heartbeat the error fails the request with nothing written.
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    let (r, records) = h.hb(join("m", missing_sink));
    assert_eq!(r.error_code, ErrorCode::StreamsInvalidTopology.code());
    assert!(records.is_empty());
}

#[test]
fn offset_commit_and_fetch_validation_of_streams_members() {
    // streams-protocol.md §3.12 with 4.4's per-task assignment epochs.
    let mut h = H::new();
    h.topics(&[("foo", 4)]);
    let mut m = with_epochs(member("m"), 12, 11);
    m.assigned = coordinator::streams::tasks::TasksWithEpochs {
        active: active_with(&[("s1", &[(0, 10), (1, 12)])]),
        ..Default::default()
    };
    h.setup(vec![
        rec_topology(GROUP, &topology(vec![sub("s1", &["foo"])])),
        rec_member(GROUP, &m),
        rec_current(GROUP, &m),
    ]);
    let v = h.shard.group_validation(GROUP).unwrap();
    assert_eq!(v.group_type(), coordinator::group::GroupType::Streams);
    // Old OffsetCommit versions are refused for streams members.
    let e = v
        .validate_offset_commit("m", None, 12, false, 8, &KafkaBugs::none())
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::UnsupportedVersion);
    assert_eq!(
        e.message.as_deref(),
        Some(
            "OffsetCommit version 9 or above must be used by members using the streams group protocol"
        )
    );
    let e = v
        .validate_offset_commit("x", None, 12, false, 10, &KafkaBugs::none())
        .unwrap_err();
    assert_eq!(
        e.message.as_deref(),
        Some("Member x is not a member of group fooup.")
    );
    let e = v
        .validate_offset_commit("m", None, 13, false, 10, &KafkaBugs::none())
        .unwrap_err();
    assert_eq!(
        e.message.as_deref(),
        Some("Received member epoch 13 is newer than current member epoch 12.")
    );
    assert!(
        v.validate_offset_commit("m", None, 12, false, 10, &KafkaBugs::none())
            .is_ok()
    );
    // An older epoch is checked per partition against the task's assignment epoch.
    let check = v
        .validate_offset_commit("m", None, 11, false, 10, &KafkaBugs::none())
        .unwrap();
    let id = uuid::Uuid::nil();
    assert!(check.validate("foo", id, 0).is_ok());
    let e = check.validate("foo", id, 1).unwrap_err();
    assert_eq!(
        e.message.as_deref(),
        Some("Received member epoch 11 is older than assignment epoch 12 for task s1-1.")
    );
    let e = check.validate("foo", id, 2).unwrap_err();
    assert_eq!(
        e.message.as_deref(),
        Some("Task s1-2 is not assigned or pending revocation for member.")
    );
    let e = check.validate("bar", id, 0).unwrap_err();
    assert_eq!(
        e.message.as_deref(),
        Some("Topic bar is not in the topology.")
    );
    // Fetch needs the exact epoch.
    assert!(v.validate_offset_fetch(None, -1).is_ok());
    let e = v.validate_offset_fetch(Some("m"), 11).unwrap_err();
    assert_eq!(e.code, ErrorCode::StaleMemberEpoch);
    assert_eq!(
        e.message.as_deref(),
        Some("The received member epoch 11 does not match the expected member epoch 12.")
    );
    // A non-empty group cannot be deleted.
    let e = v.validate_delete_group().unwrap_err();
    assert_eq!(e.code, ErrorCode::NonEmptyGroup);
    assert!(v.is_subscribed_to_topic("foo"));
}

#[test]
fn deleting_an_empty_group_tombstones_everything() {
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("s1", &[0, 1])]))]);
    h.hb(join("m", topology(vec![sub("s1", &["foo"])])));
    h.hb(hb("m", -1));
    assert!(h.shard.streams.is_empty_group(GROUP));
    let tombstones = h.shard.streams.tombstones(GROUP);
    let types: Vec<&str> = tombstones.iter().map(|r| r.type_name()).collect();
    assert_eq!(
        types,
        [
            "StreamsGroupTargetAssignmentMetadata",
            "StreamsGroupMetadata",
            "StreamsGroupTopology"
        ]
    );
    h.setup(tombstones);
    assert!(!h.shard.streams.contains(GROUP));
}

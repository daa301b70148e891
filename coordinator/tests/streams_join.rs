//! streams-protocol.md §8 scenarios 1-21 and 33-34, 36: joining, validation of members and epochs,
//! topology configuration statuses, target assignment triggers. Epochs and outcomes are Kafka 4.4's.

mod streams_common;

use coordinator::streams::group::StreamsGroupState;
use coordinator::streams::member::MemberState;
use protocol::ErrorCode;
use streams_common::*;

fn two_subtopologies() -> protocol::messages::streams_group_heartbeat_request::Topology {
    topology(vec![
        sub("subtopology1", &["foo"]),
        sub("subtopology2", &["bar"]),
    ])
}

#[test]
fn s8_01_unknown_streams_group_id() {
    let mut h = H::new();
    let (r, records) = h.hb(hb("m", 100));
    assert_eq!(
        err(&r),
        (
            ErrorCode::GroupIdNotFound,
            Some("Streams group fooup not found.".into())
        )
    );
    assert!(records.is_empty());
}

#[test]
fn s8_02_unknown_member_id_joins_streams_group() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    h.prepare(&[("A", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    let (r, _) = h.hb(join("A", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.error_code, 0);
    let (r, _) = h.hb(hb("B", 1));
    assert_eq!(
        err(&r),
        (
            ErrorCode::UnknownMemberId,
            Some("Member B is not a member of group fooup.".into())
        )
    );
}

#[test]
fn s8_03_member_epoch_validation() {
    let mut h = H::new();
    h.topics(&[("foo", 3)]);
    let t = topology(vec![sub("subtopology1", &["foo"])]);
    let hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 100, 99);
    m.assigned = twe_active(99, &[("subtopology1", &[1, 2, 3])]);
    h.setup(
        GroupBuilder::new(100)
            .member(m.clone())
            .target("m", tt_active(&[("subtopology1", &[1, 2, 3])]))
            .topology(t)
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(100)
            .build(),
    );
    let (r, _) = h.hb(hb("m", 200));
    assert_eq!(
        err(&r),
        (
            ErrorCode::FencedMemberEpoch,
            Some("The streams group member has a greater member epoch (200) than the one known by the group coordinator (100). The member must abandon all its partitions and rejoin.".into())
        )
    );
    let (r, _) = h.hb(hb("m", 50));
    assert_eq!(
        err(&r),
        (
            ErrorCode::FencedMemberEpoch,
            Some("The streams group member has a smaller member epoch (50) than the one known by the group coordinator (100). The member must abandon all its partitions and rejoin.".into())
        )
    );
    // The previous epoch without the owned task lists is fenced too.
    let (r, _) = h.hb(hb("m", 99));
    assert_eq!(r.error_code, ErrorCode::FencedMemberEpoch.code());
    // The previous epoch owning a subset of the assignment is accepted.
    let (r, _) = h.hb(hb_owned("m", 99, &[("subtopology1", &[1, 2])], &[]));
    assert_eq!(r.error_code, 0);
    assert_eq!(r.member_epoch, 100);
}

#[test]
fn s8_04_owned_tasks_validation() {
    let mut h = H::new();
    h.topics(&[("foo", 3)]);
    let t = topology(vec![sub("subtopology1", &["foo"])]);
    let hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 10, 9);
    m.assigned = twe_active(10, &[("subtopology1", &[0, 1, 2])]);
    h.setup(
        GroupBuilder::new(10)
            .member(m)
            .target("m", tt_active(&[("subtopology1", &[0, 1, 2])]))
            .topology(t)
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    let (r, _) = h.hb(hb_owned("m", 10, &[("subtopologyMissing", &[0])], &[]));
    assert_eq!(
        err(&r),
        (
            ErrorCode::InvalidRequest,
            Some("Subtopology subtopologyMissing does not exist in the topology.".into())
        )
    );
    let (r, _) = h.hb(hb_owned("m", 10, &[("subtopology1", &[3])], &[]));
    assert_eq!(
        err(&r),
        (
            ErrorCode::InvalidRequest,
            Some("Task 3 for subtopology subtopology1 is invalid. Number of tasks for this subtopology: 3".into())
        )
    );
}

#[test]
fn s8_05_new_member_rejected_when_maximum_members_reached() {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.max.size", "2"),
    ]);
    h.topics(&[("foo", 6)]);
    let t = topology(vec![sub("subtopology1", &["foo"])]);
    h.hb(join("m1", t.clone()));
    h.hb(join("m2", t.clone()));
    let (r, records) = h.hb(join("m3", t));
    assert_eq!(
        err(&r),
        (
            ErrorCode::GroupMaxSizeReached,
            Some("The streams group has reached its maximum capacity of 2 members.".into())
        )
    );
    assert!(records.is_empty());
}

#[test]
fn s8_06_member_joins_empty_streams_group() {
    let mut h = H::new();
    h.topics(&[("foo", 6), ("bar", 3)]);
    h.now = 12345;
    h.prepare(&[(
        "m",
        tt_active(&[
            ("subtopology1", &[0, 1, 2, 3, 4, 5]),
            ("subtopology2", &[0, 1, 2]),
        ]),
    )]);
    let t = two_subtopologies();
    let (r, records) = h.hb(join("m", t.clone()));
    assert_eq!(
        r,
        with_tasks(
            ok_response("m", 2),
            &[
                ("subtopology1", &[0, 1, 2, 3, 4, 5]),
                ("subtopology2", &[0, 1, 2])
            ],
            &[]
        )
    );
    let mut expected = with_epochs(member("m"), 2, 0);
    expected.assigned = twe_active(
        2,
        &[
            ("subtopology1", &[0, 1, 2, 3, 4, 5]),
            ("subtopology2", &[0, 1, 2]),
        ],
    );
    let hash = hash_of(&h, &["foo", "bar"]);
    assert_eq!(
        records,
        vec![
            rec_member(GROUP, &expected),
            rec_topology(GROUP, &t),
            rec_group(GROUP, 2, hash, 0, &default_configs()),
            rec_target(
                GROUP,
                "m",
                &tt_active(&[
                    ("subtopology1", &[0, 1, 2, 3, 4, 5]),
                    ("subtopology2", &[0, 1, 2])
                ])
            ),
            rec_target_meta(GROUP, 2, 12345),
            rec_current(GROUP, &expected),
        ]
    );
}

#[test]
fn s8_07_join_empty_streams_group_and_describe() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    let d = h.describe(&[GROUP], false);
    assert_eq!(d.groups.len(), 1);
    let g = &d.groups[0];
    assert_eq!(g.error_code, 0);
    assert_eq!(g.group_state.as_str(), "Stable");
    assert_eq!(g.group_epoch, 2);
    assert_eq!(g.assignment_epoch, 2);
    let topo = g.topology.as_ref().unwrap();
    assert_eq!(topo.epoch, 0);
    let subs = topo.subtopologies.as_ref().unwrap();
    assert_eq!(subs.len(), 1);
    assert_eq!(subs[0].subtopology_id.as_str(), "subtopology1");
    assert_eq!(subs[0].source_topics.len(), 1);
    assert_eq!(subs[0].source_topics[0].as_str(), "foo");
    assert_eq!(g.members.len(), 1);
    assert_eq!(g.members[0].member_epoch, 2);
    assert_eq!(
        g.assignor_name.as_deref().map(|s| s.to_string()),
        Some("sticky".to_string())
    );
    // Authorized operations only when asked for; then, as a broker without authorizer, every group
    // operation (READ, DESCRIBE, DELETE, DESCRIBE_CONFIGS, ALTER_CONFIGS), as Kafka's KafkaApis fills them.
    assert_eq!(g.authorized_operations, i32::MIN);
    let r = protocol::messages::StreamsGroupDescribeRequest::default()
        .with_group_ids(vec![
            protocol::messages::GroupId(GROUP.into()),
            protocol::messages::GroupId("nope".into()),
        ])
        .with_include_authorized_operations(true);
    match h.request(protocol::Request::StreamsGroupDescribe(r)) {
        (protocol::Response::StreamsGroupDescribe(d), _) => {
            assert_eq!(d.groups[0].authorized_operations, 3400);
            assert_eq!(d.groups[1].error_code, ErrorCode::GroupIdNotFound.code());
            assert_eq!(d.groups[1].authorized_operations, i32::MIN);
        }
        other => panic!("unexpected response {other:?}"),
    }
}

#[test]
fn s8_08_member_joining_with_missing_source_topic() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    h.now = 100;
    let t = two_subtopologies();
    let (r, records) = h.hb(join("m", t.clone()));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(
        r.status,
        Some(status_list(&[(1, "Source topics bar are missing.")]))
    );
    let hash = hash_of(&h, &["foo", "bar"]);
    let mut expected = with_epochs(member("m"), 2, 0);
    expected.topology_epoch = 0;
    assert_eq!(
        records,
        vec![
            rec_member(GROUP, &expected),
            rec_topology(GROUP, &t),
            rec_group(GROUP, 2, hash, -1, &default_configs()),
            rec_target(GROUP, "m", &Default::default()),
            rec_target_meta(GROUP, 2, 100),
            rec_current(GROUP, &expected),
        ]
    );
}

#[test]
fn s8_09_member_joining_with_missing_internal_topic() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    let t = topology(vec![
        sub("subtopology1", &["foo"]).with_state_changelog_topics(vec![topic_info("bar", 0)]),
    ]);
    let (r, _) = h.hb(join("m", t));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(
        r.status,
        Some(status_list(&[(3, "Internal topics are missing: bar")]))
    );
    let created = h.shard.streams.internal_topics_to_create();
    assert_eq!(created.len(), 1);
    assert_eq!(created[0].name, "bar");
    assert_eq!(created[0].num_partitions, 6);
    assert_eq!(created[0].replication_factor, -1);
    assert_eq!(h.state(), StreamsGroupState::NotReady);
}

#[test]
fn s8_10_member_joining_with_incorrectly_partitioned_topic() {
    let mut h = H::new();
    h.topics(&[("foo", 6), ("bar", 3)]);
    let t = topology(vec![
        sub("subtopology1", &["foo", "bar"]).with_copartition_groups(vec![
            protocol::messages::streams_group_heartbeat_request::CopartitionGroup::default()
                .with_source_topics(vec![0, 1]),
        ]),
    ]);
    let (r, _) = h.hb(join("m", t));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        r.status,
        Some(status_list(&[(
            2,
            "Following topics do not have the same number of partitions: [{bar=3, foo=6}]"
        )]))
    );
    assert_eq!(h.state(), StreamsGroupState::NotReady);
}

#[test]
fn s8_11_member_joining_with_stale_topology() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    let t1 = topology(vec![sub("subtopology1", &["foo"])]).with_epoch(1);
    let hash = hash_of(&h, &["foo"]);
    let mut m1 = with_epochs(member("m1"), 10, 9);
    m1.topology_epoch = 1;
    m1.assigned = twe_active(10, &[("subtopology1", &[0, 1, 2, 3, 4, 5])]);
    h.setup(
        GroupBuilder::new(10)
            .member(m1)
            .target("m1", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))
            .topology(t1)
            .hash(hash)
            .validated(1)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h.prepare(&[
        ("m1", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])])),
        ("m2", Default::default()),
    ]);
    let t0 = topology(vec![sub("subtopology1", &["foo"])]).with_epoch(0);
    let (r, records) = h.hb(join("m2", t0));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        r.status,
        Some(status_list(&[(
            0,
            "The member's topology epoch 0 is behind the group's topology epoch 1."
        )]))
    );
    assert!(
        !records
            .iter()
            .any(|r| matches!(r, coordinator::Record::StreamsGroupTopology { .. }))
    );
    assert!(records.contains(&rec_group(GROUP, 11, hash, 1, &default_configs())));
}

#[test]
fn s8_12_member_requesting_shutdown_application() {
    let mut h = stable_two_member_group();
    let (r, records) = h.hb(hb("m1", 10).with_shutdown_application(true));
    let detail = "Streams group member m1 encountered a fatal error and requested a shutdown for the entire application.";
    assert_eq!(r.status, Some(status_list(&[(4, detail)])));
    assert!(records.is_empty());
    let (r, records) = h.hb(hb("m2", 10));
    assert_eq!(r.status, Some(status_list(&[(4, detail)])));
    assert!(records.is_empty());
}

/// Group epoch 10, two stable members m1 {s1:0,1,2; s2:0,1} and m2 {s1:3,4,5; s2:2}, reconfigured by
/// a first heartbeat of each so that the soft state is there.
pub fn stable_two_member_group() -> H {
    let mut h = H::new();
    h.topics(&[("foo", 6), ("bar", 3)]);
    let hash = hash_of(&h, &["foo", "bar"]);
    let mut m1 = with_epochs(member("m1"), 10, 9);
    m1.assigned = twe_active(
        10,
        &[("subtopology1", &[0, 1, 2]), ("subtopology2", &[0, 1])],
    );
    let mut m2 = with_epochs(member("m2"), 10, 9);
    m2.assigned = twe_active(10, &[("subtopology1", &[3, 4, 5]), ("subtopology2", &[2])]);
    h.setup(
        GroupBuilder::new(10)
            .member(m1)
            .member(m2)
            .target(
                "m1",
                tt_active(&[("subtopology1", &[0, 1, 2]), ("subtopology2", &[0, 1])]),
            )
            .target(
                "m2",
                tt_active(&[("subtopology1", &[3, 4, 5]), ("subtopology2", &[2])]),
            )
            .topology(two_subtopologies())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h
}

#[test]
fn s8_13_member_requesting_shutdown_application_upon_leaving() {
    let mut h = stable_two_member_group();
    let (r, records) = h.hb(hb("m1", -1).with_shutdown_application(true));
    assert_eq!(r.member_epoch, -1);
    assert_eq!(r.status, Some(vec![]));
    let hash = hash_of(&h, &["foo", "bar"]);
    let mut expected = tombstones(GROUP, "m1");
    expected.push(rec_group(GROUP, 11, hash, 0, &default_configs()));
    assert_eq!(records, expected);
    h.prepare(&[(
        "m2",
        tt_active(&[
            ("subtopology1", &[0, 1, 2, 3, 4, 5]),
            ("subtopology2", &[0, 1, 2]),
        ]),
    )]);
    let (r, _) = h.hb(hb("m2", 10));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        r.status,
        Some(status_list(&[(
            4,
            "Streams group member m1 encountered a fatal error and requested a shutdown for the entire application."
        )]))
    );
}

#[test]
fn s8_14_updating_member_metadata_triggers_new_target_assignment() {
    let mut h = H::new();
    h.topics(&[("foo", 6), ("bar", 3)]);
    let hash = hash_of(&h, &["foo", "bar"]);
    let mut m = with_epochs(member("m"), 10, 9);
    m.assigned = twe_active(10, &[("subtopology1", &[0, 1, 2, 3, 4, 5])]);
    h.setup(
        GroupBuilder::new(10)
            .member(m)
            .target("m", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))
            .topology(two_subtopologies())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h.prepare(&[(
        "m",
        tt_active(&[
            ("subtopology1", &[0, 1, 2, 3, 4, 5]),
            ("subtopology2", &[0, 1, 2]),
        ]),
    )]);
    let (r, records) = h.hb(hb("m", 10).with_process_id(Some(s("process-id2"))));
    assert_eq!(
        r,
        with_tasks(
            ok_response("m", 11),
            &[
                ("subtopology1", &[0, 1, 2, 3, 4, 5]),
                ("subtopology2", &[0, 1, 2])
            ],
            &[]
        )
    );
    let mut updated = with_epochs(member("m"), 11, 10);
    updated.process_id = "process-id2".into();
    updated.assigned = coordinator::streams::tasks::TasksWithEpochs {
        active: active_with(&[
            (
                "subtopology1",
                &[(0, 10), (1, 10), (2, 10), (3, 10), (4, 10), (5, 10)],
            ),
            ("subtopology2", &[(0, 11), (1, 11), (2, 11)]),
        ]),
        ..Default::default()
    };
    assert_eq!(records[0], rec_member(GROUP, &updated));
    assert_eq!(
        records[1],
        rec_group(GROUP, 11, hash, 0, &default_configs())
    );
    assert_eq!(records.last().unwrap(), &rec_current(GROUP, &updated));
}

#[test]
fn s8_15_updating_partition_metadata_triggers_new_target_assignment() {
    let mut h = H::new();
    h.topics(&[("foo", 6), ("bar", 3)]);
    let old_hash = hash_of(&h, &["foo", "bar"]);
    let mut m = with_epochs(member("m"), 10, 9);
    m.assigned = twe_active(
        10,
        &[
            ("subtopology1", &[0, 1, 2, 3, 4, 5]),
            ("subtopology2", &[0, 1, 2]),
        ],
    );
    h.setup(
        GroupBuilder::new(10)
            .member(m)
            .target(
                "m",
                tt_active(&[
                    ("subtopology1", &[0, 1, 2, 3, 4, 5]),
                    ("subtopology2", &[0, 1, 2]),
                ]),
            )
            .topology(two_subtopologies())
            .hash(old_hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h.topics(&[("foo", 6), ("bar", 6)]);
    let new_hash = hash_of(&h, &["foo", "bar"]);
    assert_ne!(old_hash, new_hash);
    h.prepare(&[(
        "m",
        tt_active(&[
            ("subtopology1", &[0, 1, 2, 3, 4, 5]),
            ("subtopology2", &[0, 1, 2, 3, 4, 5]),
        ]),
    )]);
    let (r, records) = h.hb(hb("m", 10));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        records[0],
        rec_group(GROUP, 11, new_hash, 0, &default_configs())
    );
}

#[test]
fn s8_16_new_joining_member_triggers_new_target_assignment() {
    let mut h = stable_two_member_group();
    h.prepare(&[
        (
            "m1",
            tt_active(&[("subtopology1", &[0, 1]), ("subtopology2", &[0])]),
        ),
        (
            "m2",
            tt_active(&[("subtopology1", &[2, 3]), ("subtopology2", &[1])]),
        ),
        (
            "m3",
            tt_active(&[("subtopology1", &[4, 5]), ("subtopology2", &[2])]),
        ),
    ]);
    let (r, _) = h.hb(join("m3", two_subtopologies()));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(h.member("m3").state, MemberState::UnreleasedTasks);
}

#[test]
fn s8_17_leaving_member_removes_member_and_bumps_group_epoch() {
    let mut h = stable_two_member_group();
    let (r, records) = h.hb(hb("m2", -1));
    assert_eq!(r.member_epoch, -1);
    assert_eq!(r.member_id.as_str(), "m2");
    assert_eq!(r.status, Some(vec![]));
    assert_eq!(r.heartbeat_interval_ms, 0);
    let hash = hash_of(&h, &["foo", "bar"]);
    let mut expected = tombstones(GROUP, "m2");
    expected.push(rec_group(GROUP, 11, hash, 0, &default_configs()));
    assert_eq!(records, expected);
}

#[test]
fn s8_18_partial_response_when_nothing_changes() {
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 2);
    let (r, records) = h.hb(hb("m", 2));
    assert_eq!(r, ok_response("m", 2));
    assert!(records.is_empty());
}

#[test]
fn s8_19_heartbeat_always_sets_status() {
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.status, Some(vec![]));
    let (r, _) = h.hb(hb("m", 2));
    assert_eq!(r.status, Some(vec![]));
}

#[test]
fn s8_20_initial_rebalance_delay_empty_during_delay_assigns_after_timer() {
    let mut h = H::with_configs(&[("group.streams.initial.rebalance.delay.ms", "1000")]);
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 1);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(r.endpoint_information_epoch, 0);
    assert_eq!(
        r.status,
        Some(status_list(&[(
            5,
            "Assignment delayed due to the configured initial rebalance delay."
        )]))
    );
    assert_eq!(
        h.timer_deadline("initial-rebalance-timeout-fooup"),
        Some(1000)
    );
    let fired = h.sleep(10_000);
    // The timer finds no configured topology on the group (it was soft state of the throw-away group
    // object of the creating heartbeat), so it computes nothing.
    assert!(
        fired
            .iter()
            .any(|f| f.key == "initial-rebalance-timeout-fooup" && f.outcome.records.is_empty())
    );
    let (r, _) = h.hb(hb("m", 1));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1])]))
    );
}

#[test]
fn s8_21_rebalance_delay_when_joining_empty_group_with_nonzero_epoch() {
    let mut h = H::with_configs(&[("group.streams.initial.rebalance.delay.ms", "1000")]);
    h.topics(&[("foo", 2)]);
    let hash = hash_of(&h, &["foo"]);
    h.setup(
        GroupBuilder::new(10)
            .topology(topology(vec![sub("subtopology1", &["foo"])]))
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(r.member_epoch, 10);
    h.sleep(2000);
    let (r, _) = h.hb(hb("m", 10));
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1])]))
    );
    assert_eq!(r.member_epoch, 11);
}

#[test]
fn s8_33_heartbeat_with_non_empty_and_empty_classic_group() {
    // Classic groups are implemented by another part of the shard; with none present, a streams
    // heartbeat on an unknown id creates a streams group (the empty-classic conversion writes the
    // classic tombstones first, taken from `ClassicGroups::tombstones`).
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", topology(vec![sub("subtopology1", &["foo"])])));
    assert_eq!(r.member_epoch, 2);
}

#[test]
fn s8_34_member_can_rejoin_with_epoch_zero() {
    let mut h = H::new();
    h.topics(&[("foo", 3)]);
    let t = topology(vec![sub("subtopology1", &["foo"])]);
    let hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 100, 99);
    m.assigned = twe_active(100, &[("subtopology1", &[0, 1, 2])]);
    h.setup(
        GroupBuilder::new(100)
            .member(m)
            .target("m", tt_active(&[("subtopology1", &[0, 1, 2])]))
            .topology(t.clone())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(100)
            .build(),
    );
    let (r, records) = h.hb(join("m", t));
    assert_eq!(
        r,
        with_tasks(ok_response("m", 100), &[("subtopology1", &[0, 1, 2])], &[])
    );
    assert!(records.is_empty());
}

#[test]
fn s8_36_heartbeat_on_another_group_type() {
    // A group id that no streams group holds and that is not a classic group: not found.
    let mut h = H::new();
    let (r, _) = h.hb(hb("m", 3));
    assert_eq!(r.error_code, ErrorCode::GroupIdNotFound.code());
}

/// The broker learns which internal topics to create from the shard's outcome (Kafka hands
/// `StreamsGroupHeartbeatResult.creatableTopics` to `KafkaApis`); the next heartbeat that needs none
/// asks for none.
#[test]
fn outcome_carries_the_internal_topics_to_create() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    let t = topology(vec![
        sub("subtopology1", &["foo"]).with_state_changelog_topics(vec![topic_info("bar", 0)]),
    ]);
    let ctx = coordinator::RequestContext::new("client", "/127.0.0.1", 1);
    let outcome = h
        .shard
        .handle(
            coordinator::RequestToken(1),
            &ctx,
            &protocol::Request::StreamsGroupHeartbeat(join("m", t)),
            0,
        )
        .unwrap();
    let created: Vec<_> = outcome.topics_to_create.values().collect();
    assert_eq!(created.len(), 1);
    assert_eq!(created[0].name, "bar");
    assert_eq!(created[0].partitions, 6);
    assert_eq!(created[0].replication_factor, -1);
    h.log.extend(outcome.records);

    let outcome = h
        .shard
        .handle(
            coordinator::RequestToken(2),
            &ctx,
            &protocol::Request::StreamsGroupDescribe(Default::default()),
            0,
        )
        .unwrap();
    assert!(outcome.topics_to_create.is_empty());
}

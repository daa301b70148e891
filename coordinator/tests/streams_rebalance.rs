//! streams-protocol.md §8 scenarios 22-32, 35, 37 and 38: reconciliation through heartbeats, group
//! states, assignor failures, fail-over refresh, timeouts, endpoint information, assignment configs,
//! the assignment interval, and the service-level request validation. Outcomes are Kafka 4.4's.

mod streams_common;

use coordinator::streams::group::StreamsGroupState;
use coordinator::streams::member::MemberState;
use coordinator::streams::tasks::TasksWithEpochs;
use protocol::ErrorCode;
use protocol::messages::streams_group_heartbeat_request as req;
use streams_common::*;

fn two_subtopologies() -> req::Topology {
    topology(vec![
        sub("subtopology1", &["foo"]),
        sub("subtopology2", &["bar"]),
    ])
}

fn one_subtopology() -> req::Topology {
    topology(vec![sub("subtopology1", &["foo"])])
}

type MemberTasks<'a> = (&'a str, &'a [(&'a str, &'a [i32])]);

fn stable_group(members: &[MemberTasks<'_>], epoch: i32) -> H {
    let mut h = H::new();
    h.topics(&[("foo", 6), ("bar", 3)]);
    let hash = hash_of(&h, &["foo", "bar"]);
    let mut b = GroupBuilder::new(epoch)
        .topology(two_subtopologies())
        .hash(hash)
        .validated(0)
        .configs(default_configs())
        .target_epoch(epoch);
    for (id, tasks) in members {
        let mut m = with_epochs(member(id), epoch, epoch - 1);
        m.assigned = twe_active(epoch, tasks);
        b = b.member(m).target(id, tt_active(tasks));
    }
    h.setup(b.build());
    h
}

#[test]
fn s8_22_reconciliation_process() {
    let mut h = stable_group(
        &[
            (
                "m1",
                &[("subtopology1", &[0, 1, 2]), ("subtopology2", &[0, 1])],
            ),
            (
                "m2",
                &[("subtopology1", &[3, 4, 5]), ("subtopology2", &[2])],
            ),
        ],
        10,
    );
    h.prepare(&[
        (
            "m1",
            tt_active(&[("subtopology1", &[0, 1]), ("subtopology2", &[0])]),
        ),
        (
            "m2",
            tt_active(&[("subtopology1", &[2, 3]), ("subtopology2", &[2])]),
        ),
        (
            "m3",
            tt_active(&[("subtopology1", &[4, 5]), ("subtopology2", &[1])]),
        ),
    ]);
    // a. m3 joins.
    let (r, _) = h.hb(join("m3", two_subtopologies()));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(h.member("m3").state, MemberState::UnreleasedTasks);
    assert_eq!(h.state(), StreamsGroupState::Reconciling);
    // b. m1 must revoke s1-2 and s2-1.
    let (r, records) = h.hb(hb("m1", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[
            ("subtopology1", &[0, 1]),
            ("subtopology2", &[0])
        ]))
    );
    let m1 = h.member("m1");
    assert_eq!(m1.state, MemberState::UnrevokedTasks);
    assert_eq!((m1.member_epoch, m1.previous_member_epoch), (10, 10));
    assert_eq!(
        m1.pending_revocation,
        twe_active(10, &[("subtopology1", &[2]), ("subtopology2", &[1])])
    );
    assert_eq!(records, vec![rec_current(GROUP, &m1)]);
    // c. m2 must revoke s1-4 and s1-5.
    let (r, _) = h.hb(hb("m2", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[
            ("subtopology1", &[3]),
            ("subtopology2", &[2])
        ]))
    );
    assert_eq!(
        h.member("m2").pending_revocation,
        twe_active(10, &[("subtopology1", &[4, 5])])
    );
    // d. m3 waits, its previous epoch moves to 11.
    let (r, records) = h.hb(hb("m3", 11));
    assert_eq!(r.active_tasks, None);
    let m3 = h.member("m3");
    assert_eq!(
        (m3.state, m3.member_epoch, m3.previous_member_epoch),
        (MemberState::UnreleasedTasks, 11, 11)
    );
    assert_eq!(records, vec![rec_current(GROUP, &m3)]);
    // e. m1 acknowledges.
    let (r, _) = h.hb(hb_owned(
        "m1",
        10,
        &[("subtopology1", &[0, 1]), ("subtopology2", &[0])],
        &[],
    ));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(r.active_tasks, None);
    let m1 = h.member("m1");
    assert_eq!(m1.state, MemberState::Stable);
    assert_eq!(
        m1.assigned,
        twe_active(10, &[("subtopology1", &[0, 1]), ("subtopology2", &[0])])
    );
    // f. m2 without owned tasks: nothing happens.
    let (r, records) = h.hb(hb("m2", 10));
    assert_eq!(r.member_epoch, 10);
    assert!(records.is_empty());
    // g. m3 gets s2-1.
    let (r, _) = h.hb(hb("m3", 11));
    assert_eq!(r.active_tasks, Some(resp_tasks(&[("subtopology2", &[1])])));
    assert_eq!(h.member("m3").state, MemberState::UnreleasedTasks);
    assert_eq!(
        h.member("m3").assigned,
        twe_active(11, &[("subtopology2", &[1])])
    );
    // h. nothing new.
    let (r, records) = h.hb(hb("m3", 11));
    assert_eq!(r.active_tasks, None);
    assert!(records.is_empty());
    // i. m2 acknowledges and gets s1-2.
    let (r, _) = h.hb(hb_owned(
        "m2",
        10,
        &[("subtopology1", &[3]), ("subtopology2", &[2])],
        &[],
    ));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[
            ("subtopology1", &[2, 3]),
            ("subtopology2", &[2])
        ]))
    );
    assert_eq!(
        h.member("m2").assigned,
        TasksWithEpochs {
            active: active_with(&[
                ("subtopology1", &[(2, 11), (3, 10)]),
                ("subtopology2", &[(2, 10)])
            ]),
            ..Default::default()
        }
    );
    // j. m3 gets everything.
    let (r, _) = h.hb(hb_owned("m3", 11, &[("subtopology2", &[1])], &[]));
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[
            ("subtopology1", &[4, 5]),
            ("subtopology2", &[1])
        ]))
    );
    assert_eq!(h.member("m3").state, MemberState::Stable);
    assert_eq!(h.state(), StreamsGroupState::Stable);
}

#[test]
fn s8_23_group_states() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    h.setup(GroupBuilder::new(1).build());
    h.setup(vec![rec_group(GROUP, 1, 0, -1, &default_configs())]);
    assert_eq!(h.state(), StreamsGroupState::Empty);
    let m = with_epochs(member("m"), 0, 0);
    h.setup(vec![
        rec_topology(GROUP, &one_subtopology()),
        rec_member(GROUP, &m),
        rec_group(GROUP, 11, 0, -1, &default_configs()),
    ]);
    assert_eq!(h.state(), StreamsGroupState::NotReady);
    h.setup(vec![rec_group(GROUP, 11, 0, 0, &default_configs())]);
    assert_eq!(h.state(), StreamsGroupState::Assigning);
    h.setup(vec![rec_target_meta(GROUP, 11, 0)]);
    assert_eq!(h.state(), StreamsGroupState::Reconciling);
    let mut unrevoked = with_epochs(member("m"), 11, 10);
    unrevoked.state = MemberState::UnrevokedTasks;
    h.setup(vec![rec_current(GROUP, &unrevoked)]);
    assert_eq!(h.state(), StreamsGroupState::Reconciling);
    let stable = with_epochs(member("m"), 11, 10);
    h.setup(vec![rec_current(GROUP, &stable)]);
    assert_eq!(h.state(), StreamsGroupState::Stable);
}

#[test]
fn s8_24_task_assignor_exception_on_regular_heartbeat() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    *h.assignor.fail.lock().unwrap() = Some("Assignment failed.".into());
    let e = h.hb_error(join("m", one_subtopology()));
    assert_eq!(e.code, ErrorCode::UnknownServerError);
    assert_eq!(
        e.message.as_deref(),
        Some("Failed to compute a new target assignment for epoch 2: Assignment failed.")
    );
    // On the wire Kafka sends UNKNOWN_SERVER_ERROR without a message; nothing is written.
    let (r, records) = h.hb(join("m", one_subtopology()));
    assert_eq!(err(&r), (ErrorCode::UnknownServerError, None));
    assert!(records.is_empty());
}

#[test]
fn s8_25_partition_metadata_refreshed_after_group_is_loaded() {
    let mut h = H::new();
    h.topics(&[("foo", 3)]);
    let stale_hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 10, 9);
    m.assigned = twe_active(10, &[("subtopology1", &[0, 1, 2])]);
    h.setup(
        GroupBuilder::new(10)
            .member(m)
            .target("m", tt_active(&[("subtopology1", &[0, 1, 2])]))
            .topology(one_subtopology())
            .hash(stale_hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h.shard.on_loaded(h.now);
    // The image changed while the group was loaded (no metadata update reached the group).
    h.shard.topics =
        coordinator::topics::TopicsImage::from_topics([coordinator::topics::TopicMetadata::new(
            "foo", 6,
        )]);
    h.now = 5000;
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    let (r, _) = h.hb(hb("m", 10));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))
    );
    assert_eq!(
        h.member("m").assigned,
        TasksWithEpochs {
            active: active_with(&[(
                "subtopology1",
                &[(0, 10), (1, 10), (2, 10), (3, 11), (4, 11), (5, 11)]
            )]),
            ..Default::default()
        }
    );
    let d = h
        .shard
        .streams
        .group(GROUP)
        .unwrap()
        .soft
        .metadata_refresh_deadline;
    assert_eq!((d.deadline_ms, d.epoch), (5000 + i32::MAX as i64, 11));
}

#[test]
fn s8_26_session_timeout_lifecycle() {
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    h.hb(join("m", one_subtopology()));
    assert_eq!(h.timer_deadline("session-timeout-fooup-m"), Some(45_000));
    h.sleep(4000);
    h.hb(hb("m", 2));
    assert_eq!(h.timer_deadline("session-timeout-fooup-m"), Some(49_000));
    h.hb(hb("m", -1));
    assert_eq!(h.timer_deadline("session-timeout-fooup-m"), None);
    assert_eq!(h.timer_deadline("rebalance-timeout-fooup-m"), None);
}

#[test]
fn s8_27_session_timeout_expiration() {
    // 4.4: the last member's fencing also writes target-assignment metadata (epoch 3, timestamp 0).
    let mut h = H::new();
    h.topics(&[("foo", 6)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    let (r, _) = h.hb(join("m", one_subtopology()));
    assert_eq!(r.member_epoch, 2);
    let fired = h.sleep(45_001);
    assert_eq!(fired.len(), 1);
    assert_eq!(fired[0].key, "session-timeout-fooup-m");
    let hash = hash_of(&h, &["foo"]);
    let mut expected = tombstones(GROUP, "m");
    expected.push(rec_group(GROUP, 3, hash, 0, &default_configs()));
    expected.push(rec_target_meta(GROUP, 3, 0));
    assert_eq!(fired[0].outcome.records, expected);
}

fn rebalance_timeout_setup(timeout: i32) -> H {
    let mut h = H::new();
    h.topics(&[("foo", 3)]);
    h.prepare(&[("m1", tt_active(&[("subtopology1", &[0, 1, 2])]))]);
    let (r, _) = h.hb(join("m1", one_subtopology()).with_rebalance_timeout_ms(timeout));
    assert_eq!(r.member_epoch, 2);
    h.prepare(&[
        ("m1", tt_active(&[("subtopology1", &[0, 1])])),
        ("m2", tt_active(&[("subtopology1", &[2])])),
    ]);
    h.sleep(1000);
    let (r, _) = h.hb(join("m2", one_subtopology()).with_rebalance_timeout_ms(timeout));
    assert_eq!(r.member_epoch, 3);
    assert_eq!(r.active_tasks, Some(vec![]));
    let (r, _) = h.hb(hb("m1", 2));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1])]))
    );
    h
}

#[test]
fn s8_28_rebalance_timeout_lifecycle() {
    let mut h = rebalance_timeout_setup(12_000);
    assert_eq!(
        h.timer_deadline("rebalance-timeout-fooup-m1"),
        Some(1000 + 12_000)
    );
    let stale = h.timer_task("rebalance-timeout-fooup-m1").unwrap();
    let (r, _) = h.hb(hb_owned("m1", 2, &[("subtopology1", &[0, 1])], &[]));
    assert_eq!(r.member_epoch, 3);
    assert_eq!(h.timer_deadline("rebalance-timeout-fooup-m1"), None);
    // Running the cancelled timer's task does nothing: the member left epoch 2.
    let mut env = coordinator::streams::StreamsEnv {
        config: &h.shard.config,
        topics: &h.shard.topics,
        classic: &h.shard.classic,
        timers: &mut h.shard.timers,
    };
    let records = h.shard.streams.run_timer(stale, &mut env, 13_000);
    assert!(records.is_empty());
}

#[test]
fn s8_29_rebalance_timeout_expiration() {
    let mut h = rebalance_timeout_setup(10_000);
    let fired = h.sleep(10_001);
    let f = fired
        .iter()
        .find(|f| f.key == "rebalance-timeout-fooup-m1")
        .unwrap();
    let hash = hash_of(&h, &["foo"]);
    let mut expected = tombstones(GROUP, "m1");
    expected.push(rec_group(GROUP, 4, hash, 0, &default_configs()));
    assert_eq!(f.outcome.records, expected);
}

#[test]
fn s8_30_endpoint_information_only_when_epoch_greater() {
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    // An existing (empty) group, so that the endpoint epoch survives the join.
    let hash = hash_of(&h, &["foo"]);
    h.setup(
        GroupBuilder::new(1)
            .topology(one_subtopology())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .build(),
    );
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let join_req = join("m", one_subtopology()).with_user_endpoint(Some(
        req::Endpoint::default()
            .with_host(s("localhost"))
            .with_port(9092),
    ));
    let (r, _) = h.hb(join_req);
    let entries = r.partitions_by_user_endpoint.clone().unwrap();
    assert_eq!(entries.len(), 1);
    assert_eq!(entries[0].user_endpoint.host.as_str(), "localhost");
    assert_eq!(entries[0].user_endpoint.port, 9092);
    assert_eq!(entries[0].active_partitions.len(), 1);
    assert_eq!(entries[0].active_partitions[0].topic.as_str(), "foo");
    assert_eq!(entries[0].active_partitions[0].partitions, vec![0, 1]);
    assert!(entries[0].standby_partitions.is_empty());
    let epoch = r.endpoint_information_epoch;
    assert_eq!(epoch, 1);
    let (r, _) = h.hb(hb("m", r.member_epoch).with_endpoint_information_epoch(epoch));
    assert_eq!(r.partitions_by_user_endpoint, None);
}

#[test]
fn s8_31_endpoint_information_includes_new_member() {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.assignment.interval.ms", "0"),
    ]);
    h.topics(&[("foo", 4)]);
    let hash = hash_of(&h, &["foo"]);
    h.setup(
        GroupBuilder::new(1)
            .topology(one_subtopology())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .build(),
    );
    let ep =
        |host: &str, port: u16| Some(req::Endpoint::default().with_host(s(host)).with_port(port));
    h.prepare(&[("m1", tt_active(&[("subtopology1", &[0, 1])]))]);
    h.hb(join("m1", one_subtopology()).with_user_endpoint(ep("host1", 9092)));
    h.prepare(&[
        ("m1", tt_active(&[("subtopology1", &[0, 1])])),
        ("m2", tt_active(&[("subtopology1", &[2, 3])])),
    ]);
    let (r, _) = h.hb(join("m2", one_subtopology()).with_user_endpoint(ep("host2", 9093)));
    let entries = r.partitions_by_user_endpoint.unwrap();
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[0].user_endpoint.host.as_str(), "host1");
    assert_eq!(entries[0].active_partitions[0].partitions, vec![0, 1]);
    assert_eq!(entries[1].user_endpoint.host.as_str(), "host2");
    assert_eq!(entries[1].active_partitions[0].partitions, vec![2, 3]);
}

#[test]
fn s8_32_epoch_increase_with_assignment_config_changes() {
    let mut h = stable_group(&[("m", &[("subtopology1", &[0, 1, 2, 3, 4, 5])])], 10);
    h.group_config("streams.num.standby.replicas", "2");
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    let (r, records) = h.hb(hb("m", 10));
    assert_eq!(r.member_epoch, 11);
    let hash = hash_of(&h, &["foo", "bar"]);
    let configs = [("num.standby.replicas".to_string(), "2".to_string())]
        .into_iter()
        .collect();
    assert_eq!(records[0], rec_group(GROUP, 11, hash, 0, &configs));
}

#[test]
fn s8_35_assignment_interval() {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.assignment.interval.ms", "5000"),
    ]);
    h.topics(&[("foo", 6)]);
    h.now = 1000;
    h.prepare(&[("m1", tt_active(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))]);
    let (r, _) = h.hb(join("m1", one_subtopology()));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1, 2, 3, 4, 5])]))
    );
    h.now += 4995;
    let (r, records) = h.hb(join("m2", one_subtopology()));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.active_tasks, Some(vec![]));
    assert_eq!(
        r.status,
        Some(status_list(&[(
            5,
            "Assignment delayed due to the configured assignment interval."
        )]))
    );
    let hash = hash_of(&h, &["foo"]);
    assert!(records.contains(&rec_group(GROUP, 3, hash, 0, &default_configs())));
    h.now += 10;
    h.prepare(&[
        ("m1", tt_active(&[("subtopology1", &[0, 1, 2])])),
        ("m2", tt_active(&[("subtopology1", &[3, 4, 5])])),
    ]);
    let (r, records) = h.hb(hb("m2", 2));
    assert_eq!(r.member_epoch, 3);
    assert_eq!(h.member("m2").state, MemberState::UnreleasedTasks);
    assert!(records.contains(&rec_target(
        GROUP,
        "m1",
        &tt_active(&[("subtopology1", &[0, 1, 2])])
    )));
    assert!(records.contains(&rec_target(
        GROUP,
        "m2",
        &tt_active(&[("subtopology1", &[3, 4, 5])])
    )));
    assert!(records.contains(&rec_target_meta(GROUP, 3, h.now)));
}

fn invalid(
    h: &mut H,
    r: req::Topology,
    f: impl FnOnce(
        protocol::messages::StreamsGroupHeartbeatRequest,
    ) -> protocol::messages::StreamsGroupHeartbeatRequest,
) -> (ErrorCode, Option<String>) {
    let (resp, records) = h.hb(f(join("m", r)));
    assert!(records.is_empty());
    err(&resp)
}

#[test]
fn s8_37_heartbeat_request_validation() {
    let mut h = H::new();
    let t = one_subtopology();
    let ir = |m: &str| (ErrorCode::InvalidRequest, Some(m.to_string()));
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_member_id(s(""))),
        ir("MemberId can't be empty.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_member_id(s("  "))),
        ir("MemberId can't be empty.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r
            .with_group_id(protocol::messages::GroupId(s("")))),
        ir("GroupId can't be empty.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_rebalance_timeout_ms(-1)),
        ir("RebalanceTimeoutMs must be provided in first request.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_active_tasks(None)),
        ir("ActiveTasks must be empty when (re-)joining.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_standby_tasks(None)),
        ir("StandbyTasks must be empty when (re-)joining.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_warmup_tasks(None)),
        ir("WarmupTasks must be empty when (re-)joining.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_topology(None)),
        ir("Topology must be non-null when (re-)joining.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_rack_id(Some(s("")))),
        ir("RackId can't be empty.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r
            .with_member_epoch(-2)
            .with_topology(None)),
        ir("InstanceId can't be null.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r
            .with_member_epoch(-3)
            .with_topology(None)),
        ir("MemberEpoch is -3, but must be greater than or equal to -2.")
    );
    assert_eq!(
        invalid(&mut h, t.clone(), |r| r.with_member_epoch(1)),
        ir("Topology can only be provided when (re-)joining.")
    );
    let changelog = topology(vec![
        sub("subtopology1", &["foo"]).with_state_changelog_topics(vec![topic_info("changelog", 3)]),
    ]);
    assert_eq!(
        invalid(&mut h, changelog, |r| r),
        (
            ErrorCode::StreamsInvalidTopology,
            Some("Changelog topic changelog must have an undefined partition count, but it is set to 3.".into())
        )
    );
}

#[test]
fn s8_38_unsupported_features() {
    // 4.4 changed this: only source-topic regexes are still rejected; instance ids, task offsets and
    // warm-up tasks are accepted (see d7_07 and d7_08).
    let mut h = H::new();
    let regex = topology(vec![
        sub("subtopology1", &["foo"]).with_source_topic_regex(vec![s("foo.*")]),
    ]);
    assert_eq!(
        invalid(&mut h, regex, |r| r),
        (
            ErrorCode::InvalidRequest,
            Some("Regular expressions for source topics are not supported yet.".into())
        )
    );
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", one_subtopology()).with_instance_id(Some(s("i"))));
    assert_eq!(r.error_code, 0);
}

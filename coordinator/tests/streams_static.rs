//! streams-44-delta.md §7 scenarios 18-38: static membership of streams groups in Kafka 4.4 (instance
//! ids, the -2 temporary leave, replacement of a departed member, UNRELEASED_INSTANCE_ID,
//! FENCED_INSTANCE_ID, session expiry of a departed member) and mixed static/dynamic groups.

mod streams_common;

use coordinator::streams::group::StreamsGroupState;
use coordinator::streams::member::{MemberState, StreamsGroupMember};
use protocol::ErrorCode;
use protocol::messages::StreamsGroupHeartbeatRequest;
use protocol::messages::streams_group_heartbeat_request as req;
use streams_common::*;

const ALL: &[(&str, &[i32])] = &[("subtopology1", &[0, 1, 2, 3])];

fn one() -> req::Topology {
    topology(vec![sub("subtopology1", &["foo"])])
}

fn static_member(
    id: &str,
    instance: &str,
    epoch: i32,
    tasks_: &[(&str, &[i32])],
) -> StreamsGroupMember {
    let mut m = with_epochs(member(id), epoch, epoch - 1);
    m.instance_id = Some(instance.to_string());
    m.assigned = twe_active(epoch, tasks_);
    m
}

/// Group epoch 10 (assignment epoch 10) on topic foo with 4 partitions and the given members.
type Tasks<'a> = &'a [(&'a str, &'a [i32])];

fn group(members: Vec<(StreamsGroupMember, Tasks<'_>)>, configs: &[(&str, &str)]) -> H {
    let mut all = vec![("group.streams.initial.rebalance.delay.ms", "0")];
    all.extend_from_slice(configs);
    let mut h = H::with_configs(&all);
    h.topics(&[("foo", 4)]);
    let hash = hash_of(&h, &["foo"]);
    let mut b = GroupBuilder::new(10)
        .topology(one())
        .hash(hash)
        .validated(0)
        .configs(default_configs())
        .target_epoch(10);
    for (m, t) in members {
        let id = m.member_id.clone();
        b = b.member(m).target(&id, tt_active(t));
    }
    h.setup(b.build());
    h
}

fn static_hb(member_id: &str, instance: &str, epoch: i32) -> StreamsGroupHeartbeatRequest {
    hb(member_id, epoch).with_instance_id(Some(s(instance)))
}

fn static_join(member_id: &str, instance: &str) -> StreamsGroupHeartbeatRequest {
    join(member_id, one()).with_instance_id(Some(s(instance)))
}

#[test]
fn d7_18_unknown_static_member_leave() {
    let mut h = group(vec![(static_member("m1", "i1", 10, ALL), ALL)], &[]);
    let (r, _) = h.hb(static_hb("m2", "unknown", -2));
    assert_eq!(
        err(&r),
        (
            ErrorCode::UnknownMemberId,
            Some("Instance id unknown is unknown.".into())
        )
    );
}

fn full_group_with_departed() -> H {
    let mut active = static_member("m1", "i1", 10, &[("subtopology1", &[0, 1])]);
    active.instance_id = Some("i1".into());
    let mut left = static_member("m2", "i2", 10, &[("subtopology1", &[2, 3])]);
    left.member_epoch = -2;
    left.assigned = twe_active(0, &[("subtopology1", &[2, 3])]);
    group(
        vec![
            (active, &[("subtopology1", &[0, 1])]),
            (left, &[("subtopology1", &[2, 3])]),
        ],
        &[("group.streams.max.size", "2")],
    )
}

#[test]
fn d7_19_static_join_with_new_instance_at_max_size() {
    let mut h = full_group_with_departed();
    let (r, _) = h.hb(static_join("m3", "i3"));
    assert_eq!(
        err(&r),
        (
            ErrorCode::GroupMaxSizeReached,
            Some("The streams group has reached its maximum capacity of 2 members.".into())
        )
    );
}

#[test]
fn d7_20_static_rejoin_of_departed_member_at_max_size_succeeds() {
    let mut h = full_group_with_departed();
    h.prepare(&[
        ("m1", tt_active(&[("subtopology1", &[0, 1])])),
        ("m3", tt_active(&[("subtopology1", &[2, 3])])),
    ]);
    let (r, _) = h.hb(static_join("m3", "i2"));
    assert_eq!(r.error_code, 0);
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[2, 3])]))
    );
}

#[test]
fn d7_21_unreleased_and_fenced_instance_ids() {
    let mut h = full_group_with_departed();
    let (r, _) = h.hb(static_join("other", "i1"));
    assert_eq!(
        err(&r),
        (
            ErrorCode::UnreleasedInstanceId,
            Some("Static member other with instance id i1 cannot join the group because the instance id is owned by m1 member.".into())
        )
    );
    let (r, _) = h.hb(static_hb("other", "i1", 1000));
    assert_eq!(
        err(&r),
        (
            ErrorCode::FencedInstanceId,
            Some("Static member other with instance id i1 was fenced by member m1.".into())
        )
    );
}

#[test]
fn d7_22_static_member_join_then_revoke_and_receive_tasks() {
    let mut h = group(vec![(static_member("m1", "i1", 10, ALL), ALL)], &[]);
    h.prepare(&[
        ("m1", tt_active(&[("subtopology1", &[0, 1])])),
        ("m2", tt_active(&[("subtopology1", &[2, 3])])),
    ]);
    let (r, _) = h.hb(static_join("m2", "i2"));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(r.active_tasks, Some(vec![]));
    let (r, _) = h.hb(static_hb("m1", "i1", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1])]))
    );
    let (r, _) = h.hb(static_hb("m1", "i1", 10)
        .with_active_tasks(Some(task_ids(&[("subtopology1", &[0, 1])])))
        .with_standby_tasks(Some(vec![]))
        .with_warmup_tasks(Some(vec![])));
    assert_eq!(r.member_epoch, 11);
    let (r, _) = h.hb(static_hb("m2", "i2", 11));
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[2, 3])]))
    );
    let (r, _) = h.hb(static_hb("m2", "i2", -2));
    assert_eq!((r.member_epoch, r.heartbeat_interval_ms), (-2, 0));
    assert_eq!(r.status, Some(vec![]));
    let (r, _) = h.hb(static_join("m2-new", "i2"));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[2, 3])]))
    );
}

fn departed_single(rack: Option<&str>) -> H {
    let mut m = static_member("old", "i1", 10, ALL);
    m.rack_id = rack.map(str::to_string);
    let mut h = group(vec![(m, ALL)], &[]);
    let (r, records) = h.hb(static_hb("old", "i1", -2));
    assert_eq!(
        (r.member_epoch, r.member_id.to_string()),
        (-2, "old".to_string())
    );
    let mut left = h.member("old");
    assert_eq!(left.member_epoch, -2);
    left.member_epoch = -2;
    assert_eq!(records, vec![rec_current(GROUP, &left)]);
    h
}

#[test]
fn d7_23_static_rejoin_with_updated_process_id_bumps_group_epoch() {
    let mut h = departed_single(None);
    h.prepare(&[("new", tt_active(ALL))]);
    let (r, records) = h.hb(static_join("new", "i1").with_process_id(Some(s("process-2"))));
    assert_eq!(r.member_epoch, 11);
    let hash = hash_of(&h, &["foo"]);
    assert!(records.contains(&rec_group(GROUP, 11, hash, 0, &default_configs())));
}

#[test]
fn d7_24_static_rejoin_with_same_process_id_does_not_bump() {
    let mut h = departed_single(None);
    h.client_id = "client-2".into();
    h.client_host = "/10.0.0.2".into();
    let (r, records) = h.hb(static_join("new", "i1"));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(r.active_tasks, Some(resp_tasks(ALL)));
    assert!(
        !records
            .iter()
            .any(|r| matches!(r, coordinator::Record::StreamsGroupMetadata { .. }))
    );
    let m = h.member("new");
    assert_eq!(
        (m.client_id.as_str(), m.client_host.as_str()),
        ("client-2", "/10.0.0.2")
    );
}

#[test]
fn d7_25_static_leave_with_minus_one_fences_and_bumps() {
    let mut h = group(
        vec![
            (
                static_member("m1", "i1", 10, &[("subtopology1", &[0, 1])]),
                &[("subtopology1", &[0, 1])],
            ),
            (
                with_epochs(member("m2"), 10, 9),
                &[("subtopology1", &[2, 3])],
            ),
        ],
        &[],
    );
    let (r, records) = h.hb(static_hb("m1", "i1", -1));
    assert_eq!(r.member_epoch, -1);
    let hash = hash_of(&h, &["foo"]);
    let mut expected = tombstones(GROUP, "m1");
    expected.push(rec_group(GROUP, 11, hash, 0, &default_configs()));
    assert_eq!(records, expected);
}

#[test]
fn d7_26_static_leave_with_epoch_minus_two() {
    let mut h = group(vec![(static_member("m1", "i1", 10, ALL), ALL)], &[]);
    let (r, records) = h.hb(static_hb("m1", "i1", -2));
    assert_eq!(
        r,
        ok_response("m1", -2)
            .with_heartbeat_interval_ms(0)
            .with_task_offset_interval_ms(0)
            .with_acceptable_recovery_lag(-1)
    );
    let mut expected = static_member("m1", "i1", -2, ALL);
    expected.previous_member_epoch = 9;
    expected.assigned = twe_active(0, ALL);
    assert_eq!(records, vec![rec_current(GROUP, &expected)]);
    assert_eq!(h.shard.streams.group(GROUP).unwrap().group_epoch(), 10);
    // Idempotent.
    let (_, again) = h.hb(static_hb("m1", "i1", -2));
    assert_eq!(again, records);
}

#[test]
fn d7_27_static_leave_and_rejoin_with_new_and_same_member_id() {
    for new_id in ["new", "old"] {
        let mut h = departed_single(None);
        h.prepare(&[(new_id, tt_active(ALL))]);
        let (r, records) = h.hb(static_join(new_id, "i1"));
        assert_eq!(r, with_tasks(ok_response(new_id, 10), ALL, &[]));
        let mut copy = static_member(new_id, "i1", 0, ALL);
        copy.previous_member_epoch = 0;
        copy.assigned = twe_active(0, ALL);
        let mut reconciled = copy.clone();
        reconciled.member_epoch = 10;
        let mut expected = tombstones(GROUP, "old");
        expected.push(rec_member(GROUP, &copy));
        expected.push(rec_target(GROUP, new_id, &tt_active(ALL)));
        expected.push(rec_current(GROUP, &copy));
        expected.push(rec_current(GROUP, &reconciled));
        assert_eq!(records, expected, "member id {new_id}");
        assert_eq!(h.shard.streams.group(GROUP).unwrap().group_epoch(), 10);
    }
}

#[test]
fn d7_28_static_leave_from_unrevoked_state() {
    let mut m = static_member("m1", "i1", 10, &[("subtopology1", &[0, 1])]);
    m.state = MemberState::UnrevokedTasks;
    m.pending_revocation = twe_active(10, &[("subtopology1", &[2, 3])]);
    let mut h = group(vec![(m, &[("subtopology1", &[0, 1])])], &[]);
    let (_, records) = h.hb(static_hb("m1", "i1", -2));
    let left = h.member("m1");
    assert_eq!(left.state, MemberState::UnrevokedTasks);
    assert_eq!(left.member_epoch, -2);
    assert!(left.pending_revocation.is_empty());
    assert_eq!(left.assigned, twe_active(0, &[("subtopology1", &[0, 1])]));
    assert_eq!(records, vec![rec_current(GROUP, &left)]);
}

#[test]
fn d7_29_static_member_rejoins_after_temporary_leave_from_unreleased_state() {
    let mut m1 = static_member("m1", "i1", 10, &[("subtopology1", &[0, 1])]);
    m1.state = MemberState::UnreleasedTasks;
    let mut m2 = with_epochs(member("m2"), 10, 10);
    m2.process_id = "other".into();
    m2.state = MemberState::UnrevokedTasks;
    m2.assigned = twe_active(10, &[("subtopology1", &[3])]);
    m2.pending_revocation = twe_active(10, &[("subtopology1", &[2])]);
    let mut h = group(
        vec![
            (m1, &[("subtopology1", &[0, 1, 2])]),
            (m2, &[("subtopology1", &[3])]),
        ],
        &[],
    );
    h.hb(static_hb("m1", "i1", -2));
    let (r, _) = h.hb(static_join("m1-new", "i1"));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1])]))
    );
    assert_eq!(h.member("m1-new").state, MemberState::UnreleasedTasks);
}

#[test]
fn d7_30_static_leave_from_unrevoked_state_lets_unreleased_member_progress() {
    let mut m1 = static_member("m1", "i1", 10, &[("subtopology1", &[0, 1])]);
    m1.state = MemberState::UnrevokedTasks;
    m1.pending_revocation = twe_active(10, &[("subtopology1", &[2])]);
    let mut m2 = with_epochs(member("m2"), 10, 10);
    m2.process_id = "other".into();
    m2.state = MemberState::UnreleasedTasks;
    m2.assigned = twe_active(10, &[("subtopology1", &[3])]);
    let mut h = group(
        vec![
            (m1, &[("subtopology1", &[0, 1])]),
            (m2, &[("subtopology1", &[2, 3])]),
        ],
        &[],
    );
    h.hb(static_hb("m1", "i1", -2));
    let (r, records) = h.hb(hb("m2", 10));
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[2, 3])]))
    );
    let m2 = h.member("m2");
    assert_eq!((m2.state, m2.member_epoch), (MemberState::Stable, 10));
    assert_eq!(records, vec![rec_current(GROUP, &m2)]);
}

#[test]
fn d7_31_rejoin_with_other_rack_id_bumps_group_epoch() {
    let mut h = departed_single(Some("rack-a"));
    h.now = 777;
    h.prepare(&[("new", tt_active(ALL))]);
    let (r, records) = h.hb(static_join("new", "i1").with_rack_id(Some(s("rack-b"))));
    assert_eq!(r.member_epoch, 11);
    assert_eq!(r.active_tasks, Some(resp_tasks(ALL)));
    let mut copy = static_member("new", "i1", 0, ALL);
    copy.previous_member_epoch = 0;
    copy.rack_id = Some("rack-a".into());
    copy.assigned = twe_active(0, ALL);
    let mut joined = copy.clone();
    joined.rack_id = Some("rack-b".into());
    let mut reconciled = joined.clone();
    reconciled.member_epoch = 11;
    let hash = hash_of(&h, &["foo"]);
    let mut expected = tombstones(GROUP, "old");
    expected.push(rec_member(GROUP, &copy));
    expected.push(rec_target(GROUP, "new", &tt_active(ALL)));
    expected.push(rec_current(GROUP, &copy));
    expected.push(rec_member(GROUP, &joined));
    expected.push(rec_group(GROUP, 11, hash, 0, &default_configs()));
    expected.push(rec_target_meta(GROUP, 11, 777));
    expected.push(rec_current(GROUP, &reconciled));
    assert_eq!(records, expected);
}

#[test]
fn d7_32_fenced_instance_on_leave_and_unknown_instance_heartbeat() {
    let mut h = group(vec![(static_member("m1", "i1", 10, ALL), ALL)], &[]);
    let (r, _) = h.hb(static_hb("m2", "i1", -2));
    assert_eq!(
        err(&r),
        (
            ErrorCode::FencedInstanceId,
            Some("Static member m2 with instance id i1 was fenced by member m1.".into())
        )
    );
    let (r, _) = h.hb(static_hb("m2", "i9", 5));
    assert_eq!(
        err(&r),
        (
            ErrorCode::UnknownMemberId,
            Some("Instance id i9 is unknown.".into())
        )
    );
}

#[test]
fn d7_33_static_member_temporary_leave_session_timeout_expiration() {
    let mut h = H::new();
    h.topics(&[("foo", 4)]);
    h.prepare(&[("m1", tt_active(ALL))]);
    let (r, _) = h.hb(static_join("m1", "i1"));
    assert_eq!(r.member_epoch, 2);
    assert_eq!(h.timer_deadline("session-timeout-fooup-m1"), Some(45_000));
    h.hb(static_hb("m1", "i1", -2));
    assert_eq!(h.timer_deadline("session-timeout-fooup-m1"), Some(45_000));
    let fired = h.sleep(45_001);
    let hash = hash_of(&h, &["foo"]);
    let mut expected = tombstones(GROUP, "m1");
    expected.push(rec_group(GROUP, 3, hash, 0, &default_configs()));
    expected.push(rec_target_meta(GROUP, 3, 0));
    assert_eq!(fired[0].outcome.records, expected);
    assert!(h.shard.timers.is_empty());
}

#[test]
fn d7_34_replacement_relabels_cached_refined_assignment() {
    // With the identity refiner, the relabelled intermediate assignment is the relabelled target: the
    // replacing member reconciles to the departed member's target at the same epoch.
    let mut h = departed_single(None);
    let (r, _) = h.hb(static_join("new", "i1"));
    assert_eq!(
        (r.member_epoch, r.active_tasks.clone()),
        (10, Some(resp_tasks(ALL)))
    );
    assert_eq!(
        h.shard
            .streams
            .group(GROUP)
            .unwrap()
            .persistent
            .target_assignment
            .get("new"),
        Some(&tt_active(ALL))
    );
    assert!(
        !h.shard
            .streams
            .group(GROUP)
            .unwrap()
            .persistent
            .target_assignment
            .contains_key("old")
    );
}

#[test]
fn d7_35_static_rejoin_updates_user_endpoint_information_epoch() {
    let ep = |host: &str| Some(req::Endpoint::default().with_host(s(host)).with_port(8080));
    // (first endpoint, second endpoint, expected epoch after the first join, after the rejoin).
    let cases: [(Option<&str>, Option<&str>, i32, i32); 5] = [
        (None, None, 0, 0),
        (None, Some("bar.com"), 0, 1),
        (Some("foo.com"), None, 1, 2),
        (Some("foo.com"), Some("foo.com"), 1, 1),
        (Some("foo.com"), Some("bar.com"), 1, 2),
    ];
    for (first, second, e1, e2) in cases {
        let mut h = H::new();
        h.topics(&[("foo", 3)]);
        let hash = hash_of(&h, &["foo"]);
        h.setup(
            GroupBuilder::new(10)
                .topology(one())
                .hash(hash)
                .validated(0)
                .configs(default_configs())
                .target_epoch(10)
                .target("old-member-id", tt_active(&[("subtopology1", &[0, 1, 2])]))
                .build(),
        );
        h.prepare(&[("old-member-id", tt_active(&[("subtopology1", &[0, 1, 2])]))]);
        let (r, _) = h.hb(static_join("old-member-id", "i").with_user_endpoint(first.and_then(ep)));
        assert_eq!(
            r.endpoint_information_epoch, e1,
            "{first:?} then {second:?}"
        );
        h.hb(static_hb("old-member-id", "i", -2));
        h.prepare(&[("new-member-id", tt_active(&[("subtopology1", &[0, 1, 2])]))]);
        let (r, _) =
            h.hb(static_join("new-member-id", "i").with_user_endpoint(second.and_then(ep)));
        assert_eq!(
            r.endpoint_information_epoch, e2,
            "{first:?} then {second:?}"
        );
        match second {
            Some(host) => {
                let list = r.partitions_by_user_endpoint.unwrap();
                assert_eq!(list.len(), 1);
                assert_eq!(list[0].user_endpoint.host.as_str(), host);
            }
            None if e2 != 0 => assert_eq!(r.partitions_by_user_endpoint, Some(vec![])),
            None => assert_eq!(r.partitions_by_user_endpoint, None),
        }
    }
}

#[test]
fn d7_36_static_temporary_leave_does_not_transfer_tasks_to_dynamic_member() {
    let mut h = group(
        vec![
            (
                static_member("s", "i", 10, &[("subtopology1", &[0, 1])]),
                &[("subtopology1", &[0, 1])],
            ),
            (
                with_epochs(member("d"), 10, 9),
                &[("subtopology1", &[2, 3])],
            ),
        ],
        &[],
    );
    {
        let mut m = h.member("d");
        m.assigned = twe_active(10, &[("subtopology1", &[2, 3])]);
        h.setup(vec![rec_current(GROUP, &m)]);
    }
    h.hb(static_hb("s", "i", -2));
    let (r, records) = h.hb(hb("d", 10));
    assert_eq!(r.member_epoch, 10);
    assert_eq!(r.active_tasks, None);
    assert!(records.is_empty());
    assert_eq!(h.state(), StreamsGroupState::Reconciling);
}

#[test]
fn d7_37_dynamic_join_after_departed_static_member_session_timeout() {
    let mut h = group(
        vec![
            (
                static_member("s", "i", 10, &[("subtopology1", &[0, 1])]),
                &[("subtopology1", &[0, 1])],
            ),
            (
                with_epochs(member("d"), 10, 9),
                &[("subtopology1", &[2, 3])],
            ),
        ],
        &[("group.streams.max.size", "2")],
    );
    h.shard.on_loaded(0);
    h.hb(static_hb("s", "i", -2));
    h.sleep(1000);
    let (_, records) = h.hb(hb("d", 10));
    assert!(records.is_empty());
    // The departed member's session (armed at load, time 0) expires first.
    let fired = h.sleep(44_000);
    assert_eq!(fired.len(), 1);
    let f = fired
        .iter()
        .find(|f| f.key == "session-timeout-fooup-s")
        .unwrap();
    let hash = hash_of(&h, &["foo"]);
    let mut expected = tombstones(GROUP, "s");
    expected.push(rec_group(GROUP, 11, hash, 0, &default_configs()));
    assert_eq!(f.outcome.records, expected);
    h.prepare(&[
        ("new", tt_active(&[("subtopology1", &[0, 1])])),
        ("d", tt_active(&[("subtopology1", &[2, 3])])),
    ]);
    let (r, records) = h.hb(join("new", one()));
    assert_eq!(r.member_epoch, 12);
    assert_eq!(
        r.active_tasks,
        Some(resp_tasks(&[("subtopology1", &[0, 1])]))
    );
    let mut m = with_epochs(member("new"), 12, 0);
    m.assigned = twe_active(12, &[("subtopology1", &[0, 1])]);
    let mut joined = m.clone();
    joined.member_epoch = 0;
    joined.assigned = Default::default();
    assert_eq!(
        records,
        vec![
            rec_member(GROUP, &joined),
            rec_group(GROUP, 12, hash, 0, &default_configs()),
            rec_target(GROUP, "new", &tt_active(&[("subtopology1", &[0, 1])])),
            rec_target_meta(GROUP, 12, h.now),
            rec_current(GROUP, &m),
        ]
    );
}

#[test]
fn d7_38_old_static_member_id_fenced_after_replacement() {
    let mut h = departed_single(None);
    h.hb(static_join("new", "i1"));
    let (r, _) = h.hb(static_hb("old", "i1", 10));
    assert_eq!(
        err(&r),
        (
            ErrorCode::FencedInstanceId,
            Some("Static member old with instance id i1 was fenced by member new.".into())
        )
    );
}

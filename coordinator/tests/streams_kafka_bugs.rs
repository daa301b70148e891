//! The streams-group Kafka bug switches, each branch with its exact outcome: with the switch off
//! the shard answers as Kafka 4.4.0 does (the same sequences as streams_join.rs and streams_44.rs);
//! with it on, as the release before the fix did (the 4.1.0 and 4.3.0 jars, read with javap, and
//! the fix PRs; docs/bug-zoo.md).

mod streams_common;

use coordinator::Record;
use kafka_bugs::{KafkaBug, KafkaBugs};
use protocol::ErrorCode;
use protocol::messages::streams_group_heartbeat_request as req;
use streams_common::*;

fn one() -> req::Topology {
    topology(vec![sub("subtopology1", &["foo"])])
}

/// A group at epoch 100 whose member `m` is at epoch 100 (previous 99) and owns its three tasks.
fn reconciled_member(bugs: &[KafkaBug]) -> H {
    let mut h = H::new();
    h.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
    h.topics(&[("foo", 3)]);
    let hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 100, 99);
    m.assigned = twe_active(100, &[("subtopology1", &[0, 1, 2])]);
    h.setup(
        GroupBuilder::new(100)
            .member(m)
            .target("m", tt_active(&[("subtopology1", &[0, 1, 2])]))
            .topology(one())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(100)
            .build(),
    );
    h
}

#[test]
fn kafka_19233_an_epoch_0_rejoin_is_accepted_and_was_fenced_before_the_fix() {
    let mut h = reconciled_member(&[]);
    let (r, records) = h.hb(join("m", one()));
    assert_eq!(
        r,
        with_tasks(ok_response("m", 100), &[("subtopology1", &[0, 1, 2])], &[])
    );
    assert!(records.is_empty());

    let mut h = reconciled_member(&[KafkaBug::Kafka19233]);
    let (r, records) = h.hb(join("m", one()));
    assert_eq!(
        err(&r),
        (
            ErrorCode::FencedMemberEpoch,
            Some("The streams group member has a smaller member epoch (0) than the one known by the group coordinator (100). The member must abandon all its partitions and rejoin.".into())
        )
    );
    assert!(records.is_empty());
    // A member that never got past its first epoch (previous epoch 0) could rejoin even then.
    let mut h = H::new();
    h.shard.config.kafka_bugs = KafkaBugs::of([KafkaBug::Kafka19233]);
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", one()));
    assert_eq!((r.error_code, r.member_epoch), (0, 2));
    let (r, _) = h.hb(join("m", one()));
    assert_eq!((r.error_code, r.member_epoch), (0, 2));
}

/// The records of the last member's leave (epoch -1) of a one-member group at epoch 2.
fn last_leave(bugs: &[KafkaBug]) -> Vec<Record> {
    let mut h = H::new();
    h.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", one()));
    assert_eq!(r.member_epoch, 2);
    let (r, records) = h.hb(hb("m", -1));
    assert_eq!((r.error_code, r.member_epoch), (0, -1));
    records
}

#[test]
fn kafka_20442_the_last_leave_moves_the_assignment_epoch_and_did_not_before_the_fix() {
    let fixed = last_leave(&[]);
    assert_eq!(fixed.last(), Some(&rec_target_meta(GROUP, 3, 0)));
    let before = last_leave(&[KafkaBug::Kafka20442]);
    // The same records without the target assignment metadata: the group epoch goes to 3, the
    // assignment epoch stays at 2.
    assert_eq!(before.len() + 1, fixed.len());
    assert_eq!(before[..], fixed[..fixed.len() - 1]);
    assert!(
        !before
            .iter()
            .any(|r| matches!(r, Record::StreamsGroupTargetAssignmentMetadata { .. }))
    );
}

#[test]
fn kafka_19779_an_older_epoch_commit_is_checked_per_task_and_was_refused_before_the_fix() {
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
    let id = uuid::Uuid::nil();
    // 4.4.0: epoch 11 may commit task s1-0 (assigned at epoch 10).
    let check = v
        .validate_offset_commit("m", None, 11, false, 10, &KafkaBugs::none())
        .unwrap();
    assert!(check.validate("foo", id, 0).is_ok());
    // 4.1: anything but the member's epoch is stale, whatever the task.
    let before = KafkaBugs::of([KafkaBug::Kafka19779]);
    let e = v
        .validate_offset_commit("m", None, 11, false, 10, &before)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::StaleMemberEpoch);
    assert_eq!(
        e.message.as_deref(),
        Some("The received member epoch 11 does not match the expected member epoch 12.")
    );
    // The current epoch and the earlier exits are as they were.
    assert!(
        v.validate_offset_commit("m", None, 12, false, 10, &before)
            .is_ok()
    );
    let e = v
        .validate_offset_commit("x", None, 12, false, 10, &before)
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::UnknownMemberId);
}

/// A full group (`group.streams.max.size` 1) whose member `m` rejoins with epoch 0.
fn full_group_rejoin(bugs: &[KafkaBug]) -> protocol::messages::StreamsGroupHeartbeatResponse {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.max.size", "1"),
    ]);
    h.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", one()));
    assert_eq!((r.error_code, r.member_epoch), (0, 2));
    // A second member is refused either way.
    let (r, _) = h.hb(join("n", one()));
    assert_eq!(r.error_code, ErrorCode::GroupMaxSizeReached.code());
    h.hb(join("m", one())).0
}

#[test]
fn kafka_20169_a_full_group_takes_its_own_member_back_and_refused_it_before_4_4() {
    let r = full_group_rejoin(&[]);
    assert_eq!((r.error_code, r.member_epoch), (0, 2));
    let r = full_group_rejoin(&[KafkaBug::Kafka20169]);
    assert_eq!(
        err(&r),
        (
            ErrorCode::GroupMaxSizeReached,
            Some("The streams group has reached its maximum capacity of 1 members.".into())
        )
    );
}

/// Two members; `m` leaves (epoch -1) asking for SHUTDOWN_APPLICATION; the statuses `n`'s next
/// heartbeat hears.
fn statuses_after_shutdown_on_leave(bugs: &[KafkaBug]) -> Vec<i8> {
    let mut h = H::new();
    h.shard.config.kafka_bugs = KafkaBugs::of(bugs.iter().copied());
    h.topics(&[("foo", 2)]);
    h.prepare(&[
        ("m", tt_active(&[("subtopology1", &[0])])),
        ("n", tt_active(&[("subtopology1", &[1])])),
    ]);
    assert_eq!(h.hb(join("m", one())).0.error_code, 0);
    assert_eq!(h.hb(join("n", one())).0.error_code, 0);
    let epoch = h.member("n").member_epoch;
    let mut leave = hb("m", -1);
    leave.shutdown_application = true;
    let (r, _) = h.hb(leave);
    assert_eq!((r.error_code, r.member_epoch), (0, -1));
    let (r, _) = h.hb(hb("n", epoch));
    assert_eq!(r.error_code, 0);
    r.status
        .unwrap_or_default()
        .iter()
        .map(|s| s.status_code)
        .collect()
}

#[test]
fn kafka_19190_a_shutdown_request_on_a_leave_reaches_the_others_and_was_dropped_before_the_fix() {
    let shutdown = protocol::streams_status::StreamsStatus::ShutdownApplication.code();
    assert!(statuses_after_shutdown_on_leave(&[]).contains(&shutdown));
    assert!(!statuses_after_shutdown_on_leave(&[KafkaBug::Kafka19190]).contains(&shutdown));
}

/// The metadata hash the fence of the last member writes with its group epoch.
fn fence_hash(bugs: &[KafkaBug]) -> (i64, i64) {
    let records = last_leave(bugs);
    let written = records
        .iter()
        .find_map(|r| match r {
            Record::StreamsGroupMetadata { value: Some(v), .. } => Some(v.metadata_hash),
            _ => None,
        })
        .expect("the fence writes the group epoch");
    let mut h = H::new();
    h.topics(&[("foo", 2)]);
    (written, hash_of(&h, &["foo"]))
}

#[test]
fn kafka_19661_a_fence_keeps_the_metadata_hash_and_wrote_0_before_the_fix() {
    let (written, hash) = fence_hash(&[]);
    assert_eq!(written, hash);
    assert_ne!(hash, 0);
    let (written, _) = fence_hash(&[KafkaBug::Kafka19661]);
    assert_eq!(written, 0);
}

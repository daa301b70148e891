//! streams-44-delta.md §7 scenarios 1-16, 39-43: the wire changes of 4.4 (v0/v1 responses, client
//! tags), task offsets, configs, the refinement step, pluggable assignors, fencing records and the
//! topology-description feature as it behaves with no plugin configured (regroup has none).

mod streams_common;

use std::sync::Arc;

use bytes::BytesMut;
use coordinator::streams::member::MemberState;
use protocol::messages::streams_group_heartbeat_request as req;
use protocol::messages::{GroupId, StreamsGroupTopologyDescriptionUpdateRequest};
use protocol::{ErrorCode, Request, Response};
use streams_common::*;

fn one() -> req::Topology {
    topology(vec![sub("subtopology1", &["foo"])])
}

fn joined(
    versions: i16,
    configs: &[(&str, &str)],
) -> (H, protocol::messages::StreamsGroupHeartbeatResponse) {
    let mut all = vec![("group.streams.initial.rebalance.delay.ms", "0")];
    all.extend_from_slice(configs);
    let mut h = H::with_configs(&all);
    h.version = versions;
    h.topics(&[("foo", 2)]);
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1])]))]);
    let (r, _) = h.hb(join("m", one()));
    (h, r)
}

fn stable_member_group(tasks_: &[i32]) -> H {
    let mut h = H::new();
    h.topics(&[("foo", 3)]);
    let hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 10, 9);
    m.assigned = twe_active(10, &[("subtopology1", tasks_)]);
    h.setup(
        GroupBuilder::new(10)
            .member(m)
            .target("m", tt_active(&[("subtopology1", tasks_)]))
            .topology(one())
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .target_epoch(10)
            .build(),
    );
    h
}

fn offsets(list: &[(&str, i32, i64)]) -> Vec<req::TaskOffset> {
    list.iter()
        .map(|(sub, p, o)| {
            req::TaskOffset::default()
                .with_subtopology_id(s(sub))
                .with_partition(*p)
                .with_offset(*o)
        })
        .collect()
}

#[test]
fn d7_01_heartbeat_response_version_0() {
    let (_h, r) = joined(0, &[]);
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.acceptable_recovery_lag, 10_000);
    assert_eq!(r.acceptable_recovery_lag_legacy, 0);
    assert_eq!(r.task_offset_interval_ms, 60_000);
    // A v0 round trip drops the int64 lag (it is a v1 field).
    let mut buf = BytesMut::new();
    Response::StreamsGroupHeartbeat(r)
        .encode(0, &mut buf)
        .unwrap();
    let back = Response::decode(88, 0, &mut buf.freeze()).unwrap();
    let Response::StreamsGroupHeartbeat(back) = back else {
        panic!()
    };
    assert_eq!(back.acceptable_recovery_lag, -1);
    assert_eq!(back.acceptable_recovery_lag_legacy, 0);
}

#[test]
fn d7_02_heartbeat_response_version_1() {
    let (_h, r) = joined(1, &[]);
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.acceptable_recovery_lag, 10_000);
    assert_eq!(r.acceptable_recovery_lag_legacy, 0);
    assert_eq!(r.heartbeat_interval_ms, 5000);
    assert_eq!(r.task_offset_interval_ms, 60_000);
}

fn missing_tags(r: &protocol::messages::StreamsGroupHeartbeatResponse) -> Option<String> {
    r.status
        .as_ref()?
        .iter()
        .find(|s| s.status_code == 6)
        .map(|s| s.status_detail.to_string())
}

#[test]
fn d7_03_missing_client_tags_status_when_rack_aware_tags_configured() {
    let (_h, r) = joined(
        1,
        &[("group.streams.rack.aware.assignment.tags", "zone,cluster")],
    );
    assert_eq!(
        missing_tags(&r).as_deref(),
        Some(
            "Missing required client tags for rack-aware standby assignment: [zone, cluster]. Configure them via 'client.tag.<tagKey>' in your Streams config."
        )
    );
}

#[test]
fn d7_04_missing_client_tags_status_not_returned_to_version_0_clients() {
    let (_h, r) = joined(
        0,
        &[("group.streams.rack.aware.assignment.tags", "zone,cluster")],
    );
    assert_eq!(missing_tags(&r), None);
    assert_eq!(r.status, Some(vec![]));
}

#[test]
fn d7_05_missing_client_tags_reports_only_missing_tags() {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.rack.aware.assignment.tags", "zone,cluster"),
    ]);
    h.topics(&[("foo", 2)]);
    let tag = |k: &str, v: &str| req::KeyValue::default().with_key(s(k)).with_value(s(v));
    let (r, _) = h.hb(join("m", one()).with_client_tags(Some(vec![tag("cluster", "c1")])));
    let detail = missing_tags(&r).unwrap();
    assert!(detail.contains("[zone]"));
    assert!(!detail.contains("cluster"));
    // All tags present, or no tags configured: no status 6.
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.rack.aware.assignment.tags", "zone"),
    ]);
    h.topics(&[("foo", 2)]);
    let (r, _) = h.hb(join("m", one()).with_client_tags(Some(vec![tag("zone", "z")])));
    assert_eq!(missing_tags(&r), None);
    let (_h, r) = joined(1, &[]);
    assert_eq!(missing_tags(&r), None);
}

#[test]
fn d7_06_group_config_overrides_broker_rack_aware_assignment_tags() {
    let mut h = H::with_configs(&[
        ("group.streams.initial.rebalance.delay.ms", "0"),
        ("group.streams.rack.aware.assignment.tags", "zone"),
    ]);
    h.group_config("streams.rack.aware.assignment.tags", "rack");
    h.topics(&[("foo", 2)]);
    let tag = req::KeyValue::default()
        .with_key(s("zone"))
        .with_value(s("z"));
    let (r, records) = h.hb(join("m", one()).with_client_tags(Some(vec![tag])));
    let detail = missing_tags(&r).unwrap();
    assert!(detail.contains("[rack]"));
    assert!(!detail.contains("zone"));
    // The tags are part of the stored assignment configs.
    let configs = [
        ("num.standby.replicas".to_string(), "0".to_string()),
        ("rack.aware.assignment.tags".to_string(), "rack".to_string()),
    ]
    .into_iter()
    .collect();
    let hash = hash_of(&h, &["foo"]);
    assert!(records.contains(&rec_group(GROUP, 2, hash, 0, &configs)));
}

#[test]
fn d7_07_only_regex_rejected_as_unsupported() {
    let mut h = H::new();
    let regex = topology(vec![
        sub("subtopology1", &["foo"]).with_source_topic_regex(vec![s("f.*")]),
    ]);
    let (r, _) = h.hb(join("m", regex));
    assert_eq!(
        err(&r),
        (
            ErrorCode::InvalidRequest,
            Some("Regular expressions for source topics are not supported yet.".into())
        )
    );
}

#[test]
fn d7_08_accepts_task_offsets_and_warmup_tasks() {
    let mut h = stable_member_group(&[0, 1]);
    let r = hb(h_member(), 10)
        .with_active_tasks(Some(task_ids(&[("subtopology1", &[0, 1])])))
        .with_standby_tasks(Some(vec![]))
        .with_warmup_tasks(Some(task_ids(&[("subtopology1", &[2])])))
        .with_task_offsets(Some(offsets(&[("subtopology1", 2, 5)])))
        .with_task_end_offsets(Some(offsets(&[("subtopology1", 2, 9)])));
    let (r, _) = h.hb(r);
    assert_eq!(r.error_code, 0);
    assert_eq!(r.member_epoch, 10);
}

fn h_member() -> &'static str {
    "m"
}

#[test]
fn d7_09_stores_task_offsets_without_persisting() {
    let mut h = stable_member_group(&[0, 1, 2]);
    let (r, records) = h.hb(hb("m", 10)
        .with_task_offsets(Some(offsets(&[("subtopology1", 0, 10)])))
        .with_task_end_offsets(Some(offsets(&[("subtopology1", 0, 20)]))));
    assert_eq!(r.error_code, 0);
    assert!(records.is_empty());
    let (_, records) =
        h.hb(hb("m", 10).with_task_offsets(Some(offsets(&[("subtopology1", 0, 12)]))));
    assert!(records.is_empty());
    let d = h.describe(&[GROUP], false);
    let m = &d.groups[0].members[0];
    assert_eq!(m.task_offsets.len(), 1);
    assert_eq!(
        (
            m.task_offsets[0].subtopology_id.as_str(),
            m.task_offsets[0].partition,
            m.task_offsets[0].offset
        ),
        ("subtopology1", 0, 12)
    );
    assert_eq!(m.task_end_offsets.len(), 1);
    assert_eq!(m.task_end_offsets[0].offset, 20);
}

#[test]
fn d7_10_rejects_duplicate_task_offsets() {
    let mut h = stable_member_group(&[0, 1, 2]);
    let (r, _) = h.hb(hb("m", 10).with_task_offsets(Some(offsets(&[
        ("subtopology1", 0, 1),
        ("subtopology1", 0, 2),
    ]))));
    assert_eq!(
        err(&r),
        (
            ErrorCode::InvalidRequest,
            Some("Task offsets contain a duplicate entry for subtopology subtopology1 and partition 0.".into())
        )
    );
    let d = h.describe(&[GROUP], false);
    assert!(d.groups[0].members[0].task_offsets.is_empty());
}

#[test]
fn d7_11_does_not_store_task_offsets_when_owned_tasks_are_invalid() {
    let mut h = stable_member_group(&[0, 1, 2]);
    let (r, _) = h.hb(hb_owned("m", 10, &[("subtopology1", &[3])], &[])
        .with_task_offsets(Some(offsets(&[("subtopology1", 0, 1)]))));
    assert_eq!(r.error_code, ErrorCode::InvalidRequest.code());
    let d = h.describe(&[GROUP], false);
    assert!(d.groups[0].members[0].task_offsets.is_empty());
}

#[test]
fn d7_12_epoch_does_not_increase_with_acceptable_recovery_lag_config_change() {
    let mut h = stable_member_group(&[0, 1, 2]);
    h.group_config("streams.acceptable.recovery.lag", "50000");
    let (r, records) = h.hb(hb("m", 10));
    assert_eq!(r.acceptable_recovery_lag, 50_000);
    assert_eq!(r.member_epoch, 10);
    assert!(records.is_empty());
}

#[test]
fn d7_13_evaluated_configs() {
    let mut h = stable_member_group(&[0, 1, 2]);
    h.group_config("streams.session.timeout.ms", "70000");
    h.group_config("streams.heartbeat.interval.ms", "1");
    h.group_config("streams.num.standby.replicas", "100");
    h.group_config("streams.task.offset.interval.ms", "100");
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2])]))]);
    let (r, records) = h.hb(hb("m", 10));
    assert_eq!(r.heartbeat_interval_ms, 5000);
    assert_eq!(r.task_offset_interval_ms, 15_000);
    assert_eq!(h.timer_deadline("session-timeout-fooup-m"), Some(60_000));
    let configs = [("num.standby.replicas".to_string(), "2".to_string())]
        .into_iter()
        .collect();
    let hash = hash_of(&h, &["foo"]);
    assert!(records.contains(&rec_group(GROUP, 11, hash, 0, &configs)));
}

#[test]
fn d7_14_refinement_step_bumps_epoch_without_running_assignor() {
    let mut h = H::new();
    h.topics(&[("foo", 4)]);
    let hash = hash_of(&h, &["foo"]);
    let mut m = with_epochs(member("m"), 10, 10);
    m.assigned = twe_active(10, &[("subtopology1", &[0, 1, 2])]);
    h.setup(
        GroupBuilder::new(10)
            .member(m)
            .topology(one())
            .target("m", tt_active(&[("subtopology1", &[0, 1, 2, 3])]))
            .target_epoch(10)
            .target_ts(12345)
            .hash(hash)
            .validated(0)
            .configs(default_configs())
            .build(),
    );
    h.now = 20_000;
    let (r, records) = h.hb(hb_owned("m", 10, &[("subtopology1", &[0, 1, 2])], &[]));
    assert_eq!(r.member_epoch, 11);
    assert!(records.contains(&rec_group(GROUP, 11, hash, 0, &default_configs())));
    assert!(records.contains(&rec_target_meta(GROUP, 11, 12345)));
    assert!(!records.iter().any(|r| matches!(
        r,
        coordinator::Record::StreamsGroupTargetAssignmentMember { .. }
    )));
    assert!(h.assignor.last_spec.lock().unwrap().is_none());
}

#[test]
fn d7_15_no_refined_assignment_kept_when_warmups_disabled() {
    // With the identity refiner the outcome does not depend on `streams.num.warmup.replicas`; regroup
    // keeps no intermediate-assignment cache at all.
    let run = |warmups: &str| {
        let mut h = stable_member_group(&[0, 1, 2]);
        h.group_config("streams.num.warmup.replicas", warmups);
        let out = h.hb(hb("m", 10));
        (out.0.member_epoch, out.1)
    };
    assert_eq!(run("0"), run("2"));
    assert_eq!(run("0").0, 10);
}

#[test]
fn d7_16_assignor_selected_by_group_config() {
    let mut h = H::new();
    let custom = Arc::new(MockAssignor {
        name: "custom".into(),
        ..Default::default()
    });
    h.shard
        .streams
        .set_assignors(vec![h.assignor.clone(), custom.clone()]);
    h.topics(&[("foo", 2)]);
    h.group_config("streams.assignor.name", "custom");
    let (r, _) = h.hb(join("m", one()));
    assert_eq!(r.error_code, 0);
    assert!(custom.last_spec.lock().unwrap().is_some());
    assert!(h.assignor.last_spec.lock().unwrap().is_none());
    let d = h.describe(&[GROUP], false);
    assert_eq!(
        d.groups[0].assignor_name.as_deref().map(|s| s.to_string()),
        Some("custom".into())
    );
    // An unknown name falls back to the default (the first registered assignor).
    h.group_config("streams.assignor.name", "does-not-exist");
    let d = h.describe(&[GROUP], false);
    assert_eq!(
        d.groups[0].assignor_name.as_deref().map(|s| s.to_string()),
        Some("sticky".into())
    );
}

#[test]
fn d7_39_session_timeout_expiration_of_last_member_moves_assignment_epoch() {
    let (mut h, r) = joined(1, &[]);
    assert_eq!(r.member_epoch, 2);
    let fired = h.sleep(45_001);
    assert!(
        fired[0]
            .outcome
            .records
            .ends_with(&[rec_target_meta(GROUP, 3, 0)])
    );
}

#[test]
fn d7_40_assignor_input_warmups_come_from_current_assignment() {
    let mut h = stable_member_group(&[0, 1]);
    // The member reports a warm-up; a config change triggers a new assignment.
    let mut m = h.member("m");
    m.assigned.warmup = tasks(&[("subtopology1", &[2])]);
    h.setup(vec![rec_current(GROUP, &m)]);
    h.group_config("streams.num.standby.replicas", "1");
    h.prepare(&[("m", tt_active(&[("subtopology1", &[0, 1, 2])]))]);
    h.hb(hb("m", 10));
    let spec = h.assignor.last_spec.lock().unwrap().clone().unwrap();
    assert_eq!(
        spec.members[0].warmup_tasks,
        tasks(&[("subtopology1", &[2])])
    );
    assert_eq!(
        spec.members[0].active_tasks,
        tasks(&[("subtopology1", &[0, 1])])
    );
    assert_eq!(spec.configs.num_standby_replicas, 1);
}

#[test]
fn d7_41_topology_description_is_inert_without_plugin() {
    let (mut h, r) = joined(1, &[]);
    assert!(!r.topology_description_required);
    let update = StreamsGroupTopologyDescriptionUpdateRequest::default()
        .with_group_id(GroupId(s(GROUP)))
        .with_member_id(s("m"));
    let (resp, records) = h.request(Request::StreamsGroupTopologyDescriptionUpdate(update));
    let Response::StreamsGroupTopologyDescriptionUpdate(resp) = resp else {
        panic!()
    };
    assert_eq!(resp.error_code, ErrorCode::UnsupportedVersion.code());
    assert_eq!(
        resp.error_message.as_deref().map(|s| s.to_string()),
        Some("The broker has no streams group topology description plugin configured.".into())
    );
    assert!(records.is_empty());
    let d = h.describe(&[GROUP], true);
    assert_eq!(d.groups[0].topology_description_status, 1);
    assert!(d.groups[0].topology_description.is_none());
    let d = h.describe(&[GROUP], false);
    assert_eq!(d.groups[0].topology_description_status, 0);
}

#[test]
fn d7_42_heartbeat_never_solicits_a_description_without_plugin() {
    // The arm/suppress/re-solicit cycle needs a plugin; without one the flag is never set, at any
    // version and over time.
    let (mut h, r) = joined(1, &[]);
    assert!(!r.topology_description_required);
    for _ in 0..3 {
        h.sleep(30_000);
        let (r, _) = h.hb(hb("m", 2));
        assert!(!r.topology_description_required);
    }
}

#[test]
fn d7_43_no_plugin_records_without_plugin() {
    // Permanent/transient plugin failures and deletion failures need a plugin; without one, group
    // metadata records never carry description epochs and deletion is the 4.3 behaviour.
    let (mut h, _) = joined(1, &[]);
    let (_, records) = h.hb(hb("m", -1));
    for r in &records {
        if let coordinator::Record::StreamsGroupMetadata { value: Some(v), .. } = r {
            assert_eq!(v.stored_description_topology_epoch, -1);
            assert_eq!(v.failed_description_topology_epoch, -1);
        }
    }
    let g = h.shard.streams.group(GROUP).unwrap();
    assert_eq!(
        g.state(),
        coordinator::streams::group::StreamsGroupState::Empty
    );
    assert!(
        h.shard
            .group_validation(GROUP)
            .unwrap()
            .validate_delete_group()
            .is_ok()
    );
    let _ = MemberState::Stable;
}

//! Input the assignor refuses gets a typed error (no panic), and input Kafka tolerates is tolerated the
//! same way.

use coordinator::streams::assignor::{
    AssignmentConfigs, AssignorError, GroupSpec, MemberSpec, StickyTaskAssignor, TaskAssignor,
    TopologyDescriber, assign,
};

fn member(id: &str, process: &str) -> MemberSpec {
    MemberSpec::new(id, process)
}

fn group(members: Vec<MemberSpec>, standby: i32) -> GroupSpec {
    GroupSpec {
        members,
        configs: AssignmentConfigs {
            num_standby_replicas: standby,
            ..AssignmentConfigs::default()
        },
    }
}

#[test]
fn negative_task_count_is_rejected() {
    let topology = TopologyDescriber::new([("a", 2, true), ("b", -1, false)]);
    let err = assign(&group(vec![member("m1", "p1")], 0), &topology).unwrap_err();
    assert_eq!(
        err,
        AssignorError::NegativeTaskCount {
            subtopology_id: "b".into(),
            num_tasks: -1
        }
    );
    assert_eq!(
        err.to_string(),
        "subtopology b has a negative number of tasks: -1"
    );
}

#[test]
fn negative_standby_replicas_are_rejected() {
    let topology = TopologyDescriber::new([("a", 2, true)]);
    let err = assign(&group(vec![member("m1", "p1")], -2), &topology).unwrap_err();
    assert_eq!(err, AssignorError::NegativeStandbyReplicas(-2));
}

#[test]
fn duplicate_member_ids_are_rejected() {
    let topology = TopologyDescriber::new([("a", 2, true)]);
    let err = assign(
        &group(vec![member("m1", "p1"), member("m1", "p2")], 0),
        &topology,
    )
    .unwrap_err();
    assert_eq!(err, AssignorError::DuplicateMemberId("m1".into()));
}

#[test]
fn unknown_subtopology_in_current_tasks_is_rejected() {
    let topology = TopologyDescriber::new([("a", 2, true)]);
    let mut m = member("m1", "p1");
    m.standby_tasks.entry("zz".into()).or_default().insert(0);
    let err = assign(&group(vec![m], 0), &topology).unwrap_err();
    assert_eq!(
        err.to_string(),
        "member m1: unknown subtopology zz in its standbyTasks"
    );
}

#[test]
fn negative_partition_in_offsets_is_rejected() {
    let topology = TopologyDescriber::new([("a", 2, true)]);
    let mut m = member("m1", "p1");
    m.task_offsets.entry("a".into()).or_default().insert(-1, 5);
    let err = assign(&group(vec![m], 0), &topology).unwrap_err();
    assert_eq!(
        err,
        AssignorError::NegativePartition {
            member_id: "m1".into(),
            subtopology_id: "a".into(),
            partition: -1,
            field: "taskOffsets"
        }
    );
}

#[test]
fn too_many_task_copies_are_rejected_before_allocating() {
    let topology = TopologyDescriber::new([("a", i32::MAX, true)]);
    let err = assign(&group(vec![member("m1", "p1")], 1), &topology).unwrap_err();
    assert!(
        matches!(
            err,
            AssignorError::TooManyTasks {
                limit: 16_777_216,
                ..
            }
        ),
        "{err}"
    );
}

#[test]
fn tasks_without_members_fail_with_kafkas_message() {
    let topology = TopologyDescriber::new([("b", 1, false), ("a", 3, true)]);
    let err = StickyTaskAssignor
        .assign(&group(vec![], 1), &topology)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "No process available to assign active task a_0."
    );
}

#[test]
fn no_members_and_no_tasks_is_an_empty_assignment() {
    let topology = TopologyDescriber::new([("a", 0, true)]);
    let a = assign(&group(vec![], 1), &topology).expect("assignment");
    assert!(a.is_empty());
}

/// A partition beyond the subtopology's task count (a topic that shrank) is ignored, as Kafka ignores it.
#[test]
fn stale_partitions_are_ignored() {
    let topology = TopologyDescriber::new([("a", 2, true)]);
    let mut m1 = member("m1", "p1");
    m1.active_tasks
        .entry("a".into())
        .or_default()
        .extend([1, 7]);
    let m2 = member("m2", "p2");
    let a = assign(&group(vec![m1, m2], 0), &topology).expect("assignment");
    assert_eq!(
        a.to_map()["m1"].active_tasks["a"]
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        vec![1]
    );
    assert_eq!(
        a.to_map()["m2"].active_tasks["a"]
            .iter()
            .copied()
            .collect::<Vec<_>>(),
        vec![0]
    );
}

#[test]
fn assignment_configs_from_the_stored_map() {
    use std::collections::BTreeMap;
    assert_eq!(
        AssignmentConfigs::from_map(&BTreeMap::new()),
        Ok(AssignmentConfigs::default())
    );
    let map: BTreeMap<String, String> = [
        ("num.standby.replicas", "2"),
        ("rack.aware.assignment.tags", "zone,cluster"),
    ]
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .into();
    assert_eq!(
        AssignmentConfigs::from_map(&map),
        Ok(AssignmentConfigs {
            num_standby_replicas: 2,
            rack_aware_assignment_tags: vec!["zone".into(), "cluster".into()]
        })
    );
    let bad: BTreeMap<String, String> =
        [("num.standby.replicas".to_string(), "two".to_string())].into();
    assert_eq!(
        AssignmentConfigs::from_map(&bad).unwrap_err().to_string(),
        "assignment config num.standby.replicas is not an integer: \"two\""
    );
    let missing: BTreeMap<String, String> =
        [("rack.aware.assignment.tags".to_string(), "zone".to_string())].into();
    assert_eq!(
        AssignmentConfigs::from_map(&missing)
            .unwrap_err()
            .to_string(),
        "assignment config num.standby.replicas is missing"
    );
}

#[test]
fn sticky_assignor_is_registered_as_sticky() {
    assert_eq!(StickyTaskAssignor.name(), "sticky");
}

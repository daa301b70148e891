//! The scenarios of Kafka's `StickyTaskAssignorTest` (streams-protocol.md §8 items 56-76, named
//! `s8_NN_*`, and the 4.4 additions of streams-44-delta.md §5.3 / §7 item 17, named `d7_17_*`) with exact
//! expected assignments. Each expectation is the output of
//! Kafka 4.4.0's own `StickyTaskAssignor` (the released jar, through `conformance/oracle`) for the same
//! input, with members handed to it in a `HashMap` as the coordinator does; each also satisfies what
//! Kafka's test asserts (noted per test), and every result is checked against the §6.6 invariants.

mod assignor_support;

use coordinator::streams::assignor::assign;

fn check(input: &str, expected: &str) {
    let (group, topology) = assignor_support::parse(input);
    let result = assign(&group, &topology);
    if let Ok(a) = &result {
        assignor_support::check_invariants(&group, &topology, a).expect("invariants");
    }
    assert_eq!(assignor_support::render(&result), expected);
    // Same input, same output.
    assert_eq!(assign(&group, &topology), result);
}

/// Kafka's StickyTaskAssignorTest#shouldAssignOneActiveTaskToEachProcessWhenTaskCountSameAsProcessCount (§8 item 56).
#[test]
fn s8_56_one_active_task_per_process_when_task_count_equals_process_count() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignTopicGroupIdEvenlyAcrossClientsWithNoStandByTasks (item 57): each member exactly one active task.
#[test]
fn s8_57_subtopology_tasks_spread_evenly_without_standbys() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true},{"id":"1","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1_1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member1_2","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2_1","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2_2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3_1","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3_2","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1_1":{"activeTasks":{"1":[1]},"standbyTasks":{},"warmupTasks":{}},"member1_2":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member2_1":{"activeTasks":{"1":[0]},"standbyTasks":{},"warmupTasks":{}},"member2_2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member3_1":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},"member3_2":{"activeTasks":{"1":[2]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldNotMigrateActiveTaskToOtherProcess (item 58): member1 keeps 0, member2 keeps 1.
#[test]
fn s8_58_active_tasks_stay_on_their_process() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0,2]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldKeepActiveTaskStickinessWhenMoreClientThanActiveTasks (item 59).
#[test]
fn s8_59_active_stickiness_with_more_members_than_tasks() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member4","processId":"process4","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member5","processId":"process5","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member4":{"activeTasks":{},"standbyTasks":{},"warmupTasks":{}},"member5":{"activeTasks":{},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignTasksToClientWithPreviousStandbyTasks (item 60).
#[test]
fn s8_60_previous_standbys_get_the_active_tasks() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{"0":[2]},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{"0":[1]},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{"0":[0]},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldNotAssignStandbyTasksToClientWithPreviousStandbyTasksAndCurrentActiveTasks (item 61).
#[test]
fn s8_61_previous_standby_owner_gets_active_and_the_other_standby() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":2,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{"0":[0]},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{"0":[1]},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{"0":[1]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{"0":[0]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignBasedOnCapacityWhenMultipleClientHaveStandbyTasks (item 62).
#[test]
fn s8_62_capacity_decides_between_members_with_standbys() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0]},"standbyTasks":{"0":[1]},"warmupTasks":{}},{"memberId":"member2_1","processId":"process2","activeTasks":{"0":[2]},"standbyTasks":{"0":[1]},"warmupTasks":{}},{"memberId":"member2_2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},"member2_1":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member2_2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignMultipleReplicasOfStandbyTask (item 63).
#[test]
fn s8_63_multiple_standby_replicas() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":2,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{"0":[1,2]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{"0":[0,2]},"warmupTasks":{}},"member3":{"activeTasks":{"0":[2]},"standbyTasks":{"0":[0,1]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldNotAssignStandbyTaskReplicasWhenNoClientAvailableWithoutHavingTheTaskAssigned (item 64).
#[test]
fn s8_64_no_standbys_with_a_single_process() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":2,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[0,2]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignMoreTasksToClientWithMoreCapacity (item 65): the two-member process gets 8 of 12.
#[test]
fn s8_65_more_capacity_gets_more_tasks() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true},{"id":"1","tasks":3,"stateful":true},{"id":"2","tasks":3,"stateful":true},{"id":"3","tasks":3,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2_1","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2_2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0],"1":[0],"2":[0],"3":[0]},"standbyTasks":{},"warmupTasks":{}},"member2_1":{"activeTasks":{"0":[2],"1":[2],"2":[2],"3":[2]},"standbyTasks":{},"warmupTasks":{}},"member2_2":{"activeTasks":{"0":[1],"1":[1],"2":[1],"3":[1]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldReBalanceTasksAcrossClientsWhenCapacityLessThanTaskCount (item 66): 1/1/2, member3 keeps 2.
#[test]
fn s8_66_rebalance_when_one_member_held_everything() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{"0":[0,1,2,3]},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[3]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[0,1]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldMoveMinimalNumberOfTasksWhenPreviouslyAboveCapacityAndNewClientAdded (item 67).
#[test]
fn s8_67_minimal_movement_when_a_process_joins() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0,2]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[1,3]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0,2]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[3]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignNewTasksToNewClientWhenPreviousTasksAssignedToOldClients (item 68).
#[test]
fn s8_68_new_tasks_go_to_the_new_member() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":6,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[1,2]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[0,3]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[1,2]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[0,3]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[4,5]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignTasksNotPreviouslyActiveToNewClient (item 69), the exact result of Kafka's test.
#[test]
fn s8_69_tasks_not_previously_active_go_to_the_new_member() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true},{"id":"1","tasks":4,"stateful":true},{"id":"2","tasks":4,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[1],"1":[2,3]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[0],"1":[1],"2":[2]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{"2":[0,1,3]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member4","processId":"process4","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[1],"1":[2,3]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[0],"1":[1],"2":[2]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"2":[0,1,3]},"standbyTasks":{},"warmupTasks":{}},"member4":{"activeTasks":{"0":[2,3],"1":[0]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignTasksToNewClientWithoutFlippingAssignmentBetweenExistingAndBouncedClients (item 70).
#[test]
fn s8_70_no_flipping_between_existing_and_bounced_members() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":7,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0,1,2,6]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{"0":[3,4,5]},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0,1,2]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[3,4]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[5,6]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldHandleLargeNumberOfTasksWithStandbyAssignment (item 71): 20 active tasks each.
#[test]
fn s8_71_large_task_count_with_two_standbys() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":100,"stateful":true}],"numStandbyReplicas":2,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member4","processId":"process4","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member5","processId":"process5","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[3,5,13,15,23,25,33,35,43,45,53,55,63,65,73,75,83,85,93,95]},"standbyTasks":{"0":[1,2,7,8,11,12,17,18,21,22,27,28,31,32,37,38,41,42,47,48,51,52,57,58,61,62,67,68,71,72,76,79,80,82,86,90,91,92,97,98]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1,7,14,16,22,29,31,37,44,46,52,59,61,67,74,76,82,89,91,97]},"standbyTasks":{"0":[0,3,6,9,10,13,15,17,21,24,25,28,30,33,36,39,40,43,45,47,51,54,55,58,60,63,66,69,70,73,77,78,81,83,87,88,92,94,96,99]},"warmupTasks":{}},"member3":{"activeTasks":{"0":[2,9,11,17,24,26,32,39,41,47,54,56,62,69,71,77,84,86,92,99]},"standbyTasks":{"0":[1,4,5,8,10,13,16,19,20,23,25,27,31,34,35,38,40,43,46,49,50,53,55,57,61,64,65,68,70,74,75,76,82,83,85,88,91,94,95,98]},"warmupTasks":{}},"member4":{"activeTasks":{"0":[4,6,12,19,21,27,34,36,42,49,51,57,64,66,72,79,81,87,94,96]},"standbyTasks":{"0":[0,3,5,7,11,14,15,18,20,23,26,29,30,33,35,37,41,44,45,48,50,53,56,59,60,63,65,67,71,74,75,78,80,84,85,89,90,93,95,97]},"warmupTasks":{}},"member5":{"activeTasks":{"0":[0,8,10,18,20,28,30,38,40,48,50,58,60,68,70,78,80,88,90,98]},"standbyTasks":{"0":[2,4,6,9,12,14,16,19,22,24,26,29,32,34,36,39,42,44,46,49,52,54,56,59,62,64,66,69,72,73,77,79,81,84,86,87,89,93,96,99]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldHandleOddNumberOfClientsWithStandbyTasks (item 72): 2 active tasks each, 14 standbys.
#[test]
fn s8_72_odd_number_of_processes_with_standbys() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":14,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member4","processId":"process4","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member5","processId":"process5","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member6","processId":"process6","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member7","processId":"process7","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[4,12]},"standbyTasks":{"0":[1,9]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[6,8]},"standbyTasks":{"0":[5,7]},"warmupTasks":{}},"member3":{"activeTasks":{"0":[5,7]},"standbyTasks":{"0":[6,8]},"warmupTasks":{}},"member4":{"activeTasks":{"0":[3,13]},"standbyTasks":{"0":[0,10]},"warmupTasks":{}},"member5":{"activeTasks":{"0":[0,10]},"standbyTasks":{"0":[3,13]},"warmupTasks":{}},"member6":{"activeTasks":{"0":[2,9]},"standbyTasks":{"0":[4,11]},"warmupTasks":{}},"member7":{"activeTasks":{"0":[1,11]},"standbyTasks":{"0":[2,12]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldHandleEdgeCaseWithMoreStandbyReplicasThanAvailableClients (item 73): one standby per task.
#[test]
fn s8_73_more_standby_replicas_than_processes() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true}],"numStandbyReplicas":5,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0,2]},"standbyTasks":{"0":[1,3]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1,3]},"standbyTasks":{"0":[0,2]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldRangeAssignTasksWhenStartingEmpty (item 74).
#[test]
fn s8_74_range_assignment_when_starting_empty() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":2,"stateful":true},{"id":"1","tasks":2,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0],"1":[0]},"standbyTasks":{"0":[1],"1":[1]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1],"1":[1]},"standbyTasks":{"0":[0],"1":[0]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignStandbyTaskToPreviousOwnerBasedOnBelowQuotaCondition (item 75).
#[test]
fn s8_75_standby_to_previous_owner_below_quota() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":2,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0]},"standbyTasks":{"0":[1]},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{"0":[1]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{},"standbyTasks":{"0":[0]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#shouldAssignStandbyToPreviousStandbyThatDoesNotHoldTheActiveTask (item 76, relaxed in 4.4): with production HashMap order Kafka picks the option member1 {0}, member3 {}, member4 {1}.
#[test]
fn s8_76_standby_to_previous_standby_not_holding_the_active() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":3,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{"0":[2]},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{"0":[0]},"standbyTasks":{"0":[2]},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member4","processId":"process4","activeTasks":{},"standbyTasks":{},"warmupTasks":{}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[2]},"standbyTasks":{"0":[0]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[0]},"standbyTasks":{"0":[2]},"warmupTasks":{}},"member3":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member4":{"activeTasks":{},"standbyTasks":{"0":[1]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#4.4 shouldAssignTasksToMembersReportingTaskOffsetsOnColdStart.
#[test]
fn d7_17a_reported_offsets_win_tasks_on_cold_start() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"0":100,"1":100}}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"2":100,"3":100}}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0,1]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[2,3]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#4.4 shouldAssignTasksToProcessesReportingTaskOffsetsOnColdStartWithMultipleMembersPerProcess.
#[test]
fn d7_17b_reported_offsets_win_tasks_for_multi_member_processes() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1_1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"0":100,"1":100}}},{"memberId":"member1_2","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"0":100,"1":100}}},{"memberId":"member2_1","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"2":100,"3":100}}},{"memberId":"member2_2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"2":100,"3":100}}}]}"#,
        r#"{"members":{"member1_1":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member1_2":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},"member2_1":{"activeTasks":{"0":[3]},"standbyTasks":{},"warmupTasks":{}},"member2_2":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#4.4 shouldRankCurrentOwnersAheadOfReportedTaskOffsetsAndMostCaughtUpFirst.
#[test]
fn d7_17c_current_owners_rank_ahead_of_reported_offsets() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":4,"stateful":true}],"numStandbyReplicas":0,"members":[{"memberId":"member1","processId":"process1","activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{"0":[0,1]},"warmupTasks":{}},{"memberId":"member3","processId":"process3","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"0":1000000,"1":1000000,"2":100}}},{"memberId":"member4","processId":"process4","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"2":50}}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{},"warmupTasks":{}},"member3":{"activeTasks":{"0":[2]},"standbyTasks":{},"warmupTasks":{}},"member4":{"activeTasks":{"0":[3]},"standbyTasks":{},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#4.4 shouldAssignStandbysAwayFromProcessHoldingStateOnColdStart.
#[test]
fn d7_17d_standbys_away_from_the_process_holding_state_on_cold_start() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":2,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"member1","processId":"process1","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"0":100}}},{"memberId":"member2","processId":"process2","activeTasks":{},"standbyTasks":{},"warmupTasks":{},"taskOffsets":{"0":{"1":100}}}]}"#,
        r#"{"members":{"member1":{"activeTasks":{"0":[0]},"standbyTasks":{"0":[1]},"warmupTasks":{}},"member2":{"activeTasks":{"0":[1]},"standbyTasks":{"0":[0]},"warmupTasks":{}}}}"#,
    );
}

/// Kafka's StickyTaskAssignorTest#TaskAssignorException when there are tasks but no member.
#[test]
fn no_members_means_no_process_for_the_first_task() {
    check(
        r#"{"subtopologies":[{"id":"0","tasks":2,"stateful":true},{"id":"1","tasks":1,"stateful":true}],"numStandbyReplicas":0,"members":[]}"#,
        r#"{"error":"No process available to assign active task 0_0."}"#,
    );
}

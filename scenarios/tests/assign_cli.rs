//! `regroup assign` as a user runs it: the binary, standard input or a file, stdout, stderr, exit status.

use std::io::Write;
use std::process::{Command, Output, Stdio};

fn regroup_assign(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_regroup"))
        .arg("assign")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run regroup");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(stdin.as_bytes())
        .expect("write stdin");
    child.wait_with_output().expect("regroup exits")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8(bytes.to_vec()).expect("utf-8")
}

const TWO_PROCESSES: &str = r#"{"subtopologies":[{"id":"s0","tasks":4,"stateful":true}],"numStandbyReplicas":1,
  "members":[{"memberId":"m2","processId":"p2","activeTasks":{},"standbyTasks":{},"warmupTasks":{}},
             {"memberId":"m1","processId":"p1","activeTasks":{"s0":[0,1]},"standbyTasks":{},"warmupTasks":{}}]}"#;

/// Kafka 4.4.0's StickyTaskAssignor gives the same answer (conformance/oracle).
const TWO_PROCESSES_OUT: &str = r#"{"members":{"m1":{"activeTasks":{"s0":[0,1]},"standbyTasks":{"s0":[2,3]},"warmupTasks":{}},"m2":{"activeTasks":{"s0":[2,3]},"standbyTasks":{"s0":[0,1]},"warmupTasks":{}}}}"#;

#[test]
fn assigns_from_stdin_with_sorted_output() {
    let out = regroup_assign(&[], TWO_PROCESSES);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{TWO_PROCESSES_OUT}\n"));
}

#[test]
fn reads_a_file_and_dash_means_stdin() {
    let dir = std::env::temp_dir().join(format!("regroup-assign-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join("group.json");
    std::fs::write(&file, TWO_PROCESSES).expect("write input");
    let from_file = regroup_assign(&[file.to_str().expect("path")], "");
    let from_dash = regroup_assign(&["-"], TWO_PROCESSES);
    std::fs::remove_dir_all(&dir).ok();
    assert_eq!(from_file.status.code(), Some(0));
    assert_eq!(text(&from_file.stdout), format!("{TWO_PROCESSES_OUT}\n"));
    assert_eq!(text(&from_dash.stdout), format!("{TWO_PROCESSES_OUT}\n"));
}

#[test]
fn single_member_gets_every_active_task_and_no_standby() {
    let input = r#"{"subtopologies":[{"id":"s0","tasks":4,"stateful":true}],"numStandbyReplicas":1,"members":[{"memberId":"m1","processId":"p1","activeTasks":{"s0":[0,1]},"standbyTasks":{},"warmupTasks":{}}]}"#;
    let out = regroup_assign(&[], input);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        text(&out.stdout),
        "{\"members\":{\"m1\":{\"activeTasks\":{\"s0\":[0,1,2,3]},\"standbyTasks\":{},\"warmupTasks\":{}}}}\n"
    );
}

#[test]
fn optional_fields_are_accepted_and_offsets_are_used() {
    // m2 reports an offset for task 1 on a cold start and gets it back (Kafka 4.4's task-offset stickiness).
    let input = r#"{"subtopologies":[{"id":"s0","tasks":2,"stateful":false}],"rackAwareAssignmentTags":["zone"],
      "members":[{"memberId":"m1","processId":"p1","instanceId":"i1","rackId":"r1","clientTags":{"zone":"a"}},
                 {"memberId":"m2","processId":"p2","taskOffsets":{"s0":{"1":100}},"taskEndOffsets":{"s0":{"1":150}}}]}"#;
    let out = regroup_assign(&[], input);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "{\"members\":{\"m1\":{\"activeTasks\":{\"s0\":[0]},\"standbyTasks\":{},\"warmupTasks\":{}},\"m2\":{\"activeTasks\":{\"s0\":[1]},\"standbyTasks\":{},\"warmupTasks\":{}}}}\n"
    );
}

fn assert_invalid(input: &str, message: &str) {
    let out = regroup_assign(&[], input);
    assert_eq!(out.status.code(), Some(2), "input: {input}");
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert!(stderr.starts_with("regroup assign: "), "{stderr}");
    assert!(
        stderr.contains(message),
        "expected {message:?} in {stderr:?}"
    );
}

#[test]
fn invalid_input_exits_2_with_a_clear_message() {
    assert_invalid("{\"subtopologies\":[", "invalid input: EOF while parsing");
    assert_invalid(
        r#"{"subtopologies":[],"members":[],"numStandby":1}"#,
        "unknown field `numStandby`",
    );
    assert_invalid(r#"{"members":[]}"#, "missing field `subtopologies`");
    assert_invalid(
        r#"{"subtopologies":[{"id":"a","tasks":-3,"stateful":true}],"members":[]}"#,
        "subtopology a has a negative number of tasks: -3",
    );
    assert_invalid(
        r#"{"subtopologies":[{"id":"a","tasks":1,"stateful":true}],"members":[{"memberId":"m","processId":"p","activeTasks":{"b":[0]}}]}"#,
        "member m: unknown subtopology b in its activeTasks",
    );
    assert_invalid(
        r#"{"subtopologies":[{"id":"a","tasks":1,"stateful":true}],"members":[{"memberId":"m","processId":"p","activeTasks":{"a":[0,0]}}]}"#,
        "partition 0 of \"a\" listed twice in activeTasks",
    );
    assert_invalid(
        r#"{"subtopologies":[{"id":"a","tasks":1,"stateful":true}],"members":[{"memberId":"m","processId":"p","activeTasks":{"a":[0],"a":[0]}}]}"#,
        "duplicate key \"a\"",
    );
    assert_invalid(
        r#"{"subtopologies":[{"id":"a","tasks":1,"stateful":true},{"id":"a","tasks":2,"stateful":true}],"members":[]}"#,
        "duplicate subtopology id \"a\"",
    );
    assert_invalid(
        r#"{"subtopologies":[{"id":"a","tasks":1,"stateful":true}],"members":[]}"#,
        "No process available to assign active task a_0.",
    );
}

#[test]
fn lines_mode_answers_each_line_and_reports_failures_at_the_end() {
    let single = TWO_PROCESSES.replace('\n', " ");
    let input = format!(
        "{single}\n\n{{\"subtopologies\":[{{\"id\":\"a\",\"tasks\":1,\"stateful\":true}}],\"members\":[]}}\n{single}\n"
    );
    let out = regroup_assign(&["--lines"], &input);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{TWO_PROCESSES_OUT}\n{{\"error\":\"No process available to assign active task a_0.\"}}\n{TWO_PROCESSES_OUT}\n"
        )
    );
    assert_eq!(
        text(&out.stderr),
        "regroup assign: line 3: No process available to assign active task a_0.\n"
    );
}

#[test]
fn missing_file_exits_2() {
    let out = regroup_assign(&["/nonexistent/regroup-input.json"], "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr)
            .starts_with("regroup assign: cannot open /nonexistent/regroup-input.json: ")
    );
}

/// A consumer group (`"kind":"consumer"`): UniformHomogeneousAssignmentBuilderTest's
/// testFirstAssignmentTwoMembersTwoTopicsNoMemberRacks, as Kafka's 4.4.0 jar answers it.
const CONSUMER: &str = r#"{"kind":"consumer","topics":[{"id":"T1-A4s3VTwiI5CTbEp6POw","partitions":3},{"id":"T3-CU8fVTLCz5YMkLoDQsQ","partitions":2}],"members":[{"memberId":"A","subscribedTopicIds":["T1-A4s3VTwiI5CTbEp6POw","T3-CU8fVTLCz5YMkLoDQsQ"]},{"memberId":"B","subscribedTopicIds":["T1-A4s3VTwiI5CTbEp6POw","T3-CU8fVTLCz5YMkLoDQsQ"]}]}"#;
const CONSUMER_OUT: &str =
    r#"{"members":{"A":{"T3-CU8fVTLCz5YMkLoDQsQ":[0,1]},"B":{"T1-A4s3VTwiI5CTbEp6POw":[0,1,2]}}}"#;

#[test]
fn consumer_kind_runs_the_uniform_assignor() {
    let out = regroup_assign(&[], CONSUMER);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), format!("{CONSUMER_OUT}\n"));
}

#[test]
fn lines_mode_mixes_kinds_and_reports_consumer_errors() {
    let single = TWO_PROCESSES.replace('\n', " ");
    let missing = r#"{"kind":"consumer","assignor":"range","members":[{"memberId":"A","subscribedTopicIds":["T1-A4s3VTwiI5CTbEp6POw"]}]}"#;
    let explicit_streams = single.replacen('{', "{\"kind\":\"streams\",", 1);
    let input = format!("{CONSUMER}\n{missing}\n{explicit_streams}\n");
    let out = regroup_assign(&["--lines"], &input);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        text(&out.stdout),
        format!(
            "{CONSUMER_OUT}\n{{\"error\":\"Member is subscribed to a non-existent topic\"}}\n{TWO_PROCESSES_OUT}\n"
        )
    );
    assert_eq!(
        text(&out.stderr),
        "regroup assign: line 2: Member is subscribed to a non-existent topic\n"
    );
}

#[test]
fn invalid_consumer_input_exits_2_with_a_clear_message() {
    assert_invalid(
        r#"{"kind":"share","members":[]}"#,
        r#"unknown kind "share" ("streams" or "consumer")"#,
    );
    assert_invalid(
        r#"{"kind":"consumer","members":[],"subtopologies":[]}"#,
        "unknown field `subtopologies`",
    );
    assert_invalid(
        r#"{"kind":"consumer","subscriptionType":"mixed","members":[]}"#,
        "unknown variant `mixed`",
    );
    assert_invalid(
        r#"{"kind":"consumer","members":[{"memberId":"A","subscribedTopicIds":["T1-A4s3VTwiI5CTbEp6POw"]}]}"#,
        "Members are subscribed to topic T1-A4s3VTwiI5CTbEp6POw which doesn't exist in the topic metadata.",
    );
}

/// `input_json` writes what `regroup assign` reads: a group and topology written and read back
/// assign exactly as the original, every optional field included.
#[test]
fn input_json_round_trips_through_the_assign_format() {
    use std::collections::{BTreeMap, BTreeSet};

    use coordinator::streams::assignor::{
        self, AssignmentConfigs, GroupSpec, MemberSpec, TopologyDescriber,
    };
    use scenarios::assign_cli::{assign_json, input_json, output_json};

    let mut m1 = MemberSpec::new("m1", "p1");
    m1.instance_id = Some("i1".into());
    m1.rack_id = Some("r1".into());
    m1.client_tags = BTreeMap::from([("zone".to_string(), "z1".to_string())]);
    m1.active_tasks = BTreeMap::from([("s0".to_string(), BTreeSet::from([0, 2]))]);
    m1.standby_tasks = BTreeMap::from([("s1".to_string(), BTreeSet::from([1]))]);
    m1.task_offsets = BTreeMap::from([("s1".to_string(), BTreeMap::from([(1, 40), (3, 7)]))]);
    m1.task_end_offsets = BTreeMap::from([("s1".to_string(), BTreeMap::from([(1, 50)]))]);
    let mut m2 = MemberSpec::new("m2", "p2");
    m2.task_offsets = BTreeMap::from([("s1".to_string(), BTreeMap::from([(0, 9)]))]);
    let group = GroupSpec {
        members: vec![m2, m1],
        configs: AssignmentConfigs {
            num_standby_replicas: 1,
            rack_aware_assignment_tags: vec!["zone".into()],
        },
    };
    let topology = TopologyDescriber::new([("s0", 3, false), ("s1", 4, true)]);
    let input = input_json(&group, &topology);
    let direct = output_json(&assignor::assign(&group, &topology).map_err(|e| e.to_string()));
    assert_eq!(assign_json(&input).unwrap(), direct);
    // Members keep their order (it breaks hash-bucket ties); unset fields are left out.
    assert!(
        input.find("\"m2\"").unwrap() < input.find("\"m1\"").unwrap(),
        "{input}"
    );
    assert!(
        input.contains("\"taskOffsets\":{\"s1\":{\"1\":40,\"3\":7}}"),
        "{input}"
    );
    assert_eq!(input.matches("instanceId").count(), 1, "{input}");
    assert_eq!(
        output_json(&Err("no member".into())),
        "{\"error\":\"no member\"}"
    );
}

//! `regroup script` run as a process: a streams join, a heartbeat, a session timeout, error
//! responses, and exit code 2 naming the line for bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

fn run(stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_regroup"))
        .args(["script", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn lines(o: &Output) -> Vec<Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

const SETUP: &str = r#"{"at":0,"config":{"group.streams.initial.rebalance.delay.ms":0}}
{"at":0,"metadata":{"topics":[{"name":"foo","partitions":2}]}}
"#;

const JOIN: &str = r#"{"at":10,"request":{"api":"StreamsGroupHeartbeat","version":1,"body":{"groupId":"g","memberId":"m","memberEpoch":0,"rebalanceTimeoutMs":1500,"processId":"p","topology":{"epoch":0,"subtopologies":[{"subtopologyId":"s0","sourceTopics":["foo"]}]},"activeTasks":[],"standbyTasks":[],"warmupTasks":[]}},"context":{"clientId":"c","clientHost":"/127.0.0.1"}}
"#;

#[test]
fn join_heartbeat_and_session_timeout() {
    let hb = r#"{"at":20,"request":{"api":"StreamsGroupHeartbeat","version":1,"body":{"groupId":"g","memberId":"m","memberEpoch":2}},"context":{"clientId":"c","clientHost":"/127.0.0.1"}}
{"at":50000}
"#;
    let o = run(&format!("{SETUP}{JOIN}{hb}"));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = lines(&o);
    assert_eq!(out.len(), 3);
    // The join: epoch 2, tasks 0 and 1, six records in Kafka's order.
    assert_eq!(out[0]["at"], 10);
    assert_eq!(out[0]["line"], 3);
    assert_eq!(out[0]["response"]["memberEpoch"], 2);
    assert_eq!(
        out[0]["response"]["activeTasks"][0]["partitions"],
        serde_json::json!([0, 1])
    );
    let types: Vec<&str> = out[0]["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "StreamsGroupMemberMetadata",
            "StreamsGroupTopology",
            "StreamsGroupMetadata",
            "StreamsGroupTargetAssignmentMember",
            "StreamsGroupTargetAssignmentMetadata",
            "StreamsGroupCurrentMemberAssignment"
        ]
    );
    // The heartbeat: nothing changes, no task lists, no records.
    assert_eq!(out[1]["line"], 4);
    assert_eq!(out[1]["response"]["memberEpoch"], 2);
    assert_eq!(out[1]["response"]["activeTasks"], Value::Null);
    assert_eq!(out[1]["records"], serde_json::json!([]));
    // The session timeout fires 45 s after the last heartbeat, before the line at 50000.
    assert_eq!(out[2]["at"], 45_020);
    assert_eq!(out[2]["timer"], "session-timeout-g-m");
    let records = out[2]["records"].as_array().unwrap();
    assert_eq!(records.len(), 5);
    assert_eq!(records[0]["value"], Value::Null);
    assert_eq!(records[3]["value"]["epoch"], 3);
    assert_eq!(records[4]["value"]["assignmentEpoch"], 3);
}

#[test]
fn error_responses_are_lines_too() {
    let unknown = r#"{"at":5,"request":{"api":"StreamsGroupHeartbeat","version":0,"body":{"groupId":"nope","memberId":"m","memberEpoch":3}}}
{"at":6,"request":{"api":"StreamsGroupDescribe","version":1,"body":{"groupIds":["nope",""]}}}
"#;
    let o = run(&format!("{SETUP}{unknown}"));
    assert!(o.status.success(), "{}", stderr(&o));
    let out = lines(&o);
    assert_eq!(out[0]["response"]["errorCode"], 69);
    assert_eq!(
        out[0]["response"]["errorMessage"],
        "Streams group nope not found."
    );
    let groups = out[1]["response"]["groups"].as_array().unwrap();
    assert_eq!(groups[0]["errorCode"], 24);
    assert_eq!(groups[1]["errorCode"], 69);
    assert_eq!(groups[1]["errorMessage"], "Group nope not found.");
}

fn fails(input: &str, line: usize, needle: &str) {
    let o = run(input);
    assert_eq!(
        o.status.code(),
        Some(2),
        "stdout: {}",
        String::from_utf8_lossy(&o.stdout)
    );
    let e = stderr(&o);
    assert!(e.contains(&format!("line {line}:")), "{e}");
    assert!(e.contains(needle), "{e}");
}

#[test]
fn bad_input_exits_2_naming_the_line() {
    fails(&format!("{SETUP}not json\n"), 3, "malformed JSON");
    fails(
        &format!("{SETUP}{{\"at\":1,\"request\":{{\"api\":\"NoSuchApi\",\"version\":0}}}}\n"),
        3,
        "unknown api",
    );
    fails(
        &format!(
            "{SETUP}{{\"at\":1,\"request\":{{\"api\":\"StreamsGroupHeartbeat\",\"version\":7,\"body\":{{}}}}}}\n"
        ),
        3,
        "does not support version 7",
    );
    fails(
        &format!(
            "{SETUP}{{\"at\":1,\"request\":{{\"api\":\"StreamsGroupHeartbeat\",\"version\":1,\"body\":{{\"bogus\":1}}}}}}\n"
        ),
        3,
        "bogus",
    );
    fails(
        &format!("{SETUP}{JOIN}{{\"at\":5}}\n"),
        4,
        "before the previous line",
    );
    fails(
        "{\"at\":0,\"config\":{\"group.streams.no.such\":1}}\n",
        1,
        "unknown config",
    );
    fails(
        "{\"at\":0,\"groupConfig\":{\"groupId\":\"g\",\"configs\":{\"streams.session.timeout.ms\":\"1\"}}}\n",
        1,
        "must be in the range 45000 to 60000 inclusive.",
    );
    fails("{\"at\":0,\"surprise\":1}\n", 1, "unknown key");
}

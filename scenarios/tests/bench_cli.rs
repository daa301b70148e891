//! `regroup bench sim --baseline PATH` run as a process, with the binary itself as the baseline:
//! the table gets the baseline's columns and the ratio, the JSON objects a `baseline` member, and
//! the two runs are the same run.

mod cli_support;

use cli_support::{regroup, stdout};

const RUN: [&str; 10] = [
    "bench",
    "sim",
    "--layout",
    "1x2",
    "--sim-secs",
    "5",
    "--timings",
    "kafka",
    "--no-faults",
    "--baseline",
];

#[test]
fn the_table_compares_with_the_baseline() {
    let mut args = RUN.to_vec();
    args.push(env!("CARGO_BIN_EXE_regroup"));
    let out = regroup(&args);
    let text = stdout(&out);
    assert!(out.status.success(), "{text}");
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    for column in ["sim/wall", "base sim/wall", "ratio", "same"] {
        assert!(header.contains(column), "{header}");
    }
    let row: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(&row[..4], ["kafka", "2", "1x2", "20ms"], "{text}");
    assert!(row[row.len() - 2].ends_with('x'), "{text}");
    assert_eq!(row[row.len() - 1], "yes", "{text}");
}

#[test]
fn the_json_has_the_baseline() {
    let mut args = RUN.to_vec();
    args.push(env!("CARGO_BIN_EXE_regroup"));
    args.push("--json");
    let out = regroup(&args);
    assert!(out.status.success(), "{}", stdout(&out));
    let v: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let b = &v["baseline"];
    assert_eq!(b["events"], v["events"]);
    assert_eq!(b["sameRun"], true);
    assert!(b["ratio"].as_f64().unwrap() > 0.0);
}

#[test]
fn a_missing_baseline_is_a_usage_error() {
    let mut args = RUN.to_vec();
    args.push("/nonexistent/regroup");
    let out = regroup(&args);
    assert_eq!(out.status.code(), Some(2));
}

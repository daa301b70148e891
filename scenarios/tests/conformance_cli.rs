//! `regroup conformance` without Java: argument errors and an oracle that cannot run exit 2 with a clear
//! message (the comparison itself runs in `.ci/steps/conformance.sh`, where Java and Maven exist).

use std::process::Command;

fn run(args: &[&str]) -> (i32, String, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_regroup"))
        .arg("conformance")
        .args(args)
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).to_string(),
        String::from_utf8_lossy(&o.stderr).to_string(),
    )
}

#[test]
fn a_missing_oracle_is_a_usage_error() {
    let dir = std::env::temp_dir().join(format!("regroup-no-oracle-{}", std::process::id()));
    let (code, _, err) = run(&["--seeds", "0", "--oracle-dir", dir.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("the oracle is not built"), "{err}");
}

#[test]
fn bad_seed_ranges_and_empty_runs_are_refused() {
    let (code, _, err) = run(&["--seeds", "9..3", "--oracle-cmd", "true"]);
    assert_eq!(code, 2);
    assert!(err.contains("--seeds: expected A..B or N"), "{err}");
    let (code, _, err) = run(&["--oracle-cmd", "true"]);
    assert_eq!(code, 2);
    assert!(err.contains("nothing to run"), "{err}");
}

#[test]
fn an_oracle_that_fails_is_reported() {
    // `false` accepts any arguments and exits 1: the batch run of the oracle fails.
    let (code, _, err) = run(&[
        "--seeds",
        "0",
        "--groups",
        "classic",
        "--steps",
        "5",
        "--oracle-cmd",
        "false",
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("the oracle failed"), "{err}");
}

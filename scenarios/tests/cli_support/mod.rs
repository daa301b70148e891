//! Running the `regroup` binary from the CLI test suites.

#![allow(dead_code)] // each suite uses its own subset

use std::process::{Command, Output};

use serde_json::Value;

/// Runs `regroup` with `args` and extra environment variables (without `RUST_LOG` and
/// `JOB_COMPLETION_INDEX` from the test's own environment).
pub fn regroup_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_regroup"));
    cmd.args(args)
        .env_remove("RUST_LOG")
        .env_remove("JOB_COMPLETION_INDEX");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run regroup")
}

pub fn regroup(args: &[&str]) -> Output {
    regroup_env(args, &[])
}

pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The run's stdout as one JSON value (the test fails with stdout and stderr otherwise).
pub fn json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", stdout(out), stderr(out)))
}

//! regroup's side of the comparison: `regroup script` in-process.
//! TEMPORARY (until the script runner is in main): a subprocess of the binary named by
//! REGROUP_SCRIPT_BIN; generation against regroup is not available yet.

use std::process::{Command, Stdio};

use serde_json::Value;

use super::driver::Driver;

pub struct RegroupDriver;

impl RegroupDriver {
    pub fn new() -> Self {
        RegroupDriver
    }
}

impl Default for RegroupDriver {
    fn default() -> Self {
        Self::new()
    }
}

impl Driver for RegroupDriver {
    fn feed(&mut self, _line: usize, _text: &str) -> Result<Vec<Value>, String> {
        Err("generation against regroup needs the script runner".into())
    }
}

/// regroup's output of a whole script, ending with `{"error":"line N: ..."}` when a line was rejected.
pub fn run_text(script: &str) -> String {
    let bin = std::env::var("REGROUP_SCRIPT_BIN").unwrap_or_else(|_| "regroup".into());
    let dir = std::env::temp_dir().join(format!("regroup-side-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("script.jsonl");
    let _ = std::fs::write(&file, script);
    let out = Command::new(bin)
        .arg("script")
        .arg(&file)
        .stdin(Stdio::null())
        .output();
    match out {
        Ok(o) => {
            let mut text = String::from_utf8_lossy(&o.stdout).to_string();
            if !o.status.success() {
                let err = String::from_utf8_lossy(&o.stderr);
                let msg = err
                    .trim()
                    .trim_start_matches("regroup script: ")
                    .to_string();
                text.push_str(&serde_json::json!({"error": msg}).to_string());
                text.push('\n');
            }
            text
        }
        Err(e) => format!(
            "{}\n",
            serde_json::json!({"error": format!("cannot run regroup: {e}")})
        ),
    }
}

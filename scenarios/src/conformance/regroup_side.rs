//! regroup's side of the comparison: `regroup script`, in-process.

use serde_json::{Value, json};

use super::driver::Driver;
use crate::script::Script;

/// regroup's coordinator answering a generator line by line.
#[derive(Debug, Default)]
pub struct RegroupDriver {
    script: Script,
}

impl RegroupDriver {
    pub fn new() -> Self {
        Self::default()
    }
}

impl Driver for RegroupDriver {
    fn feed(&mut self, line: usize, text: &str) -> Result<Vec<Value>, String> {
        self.script.feed_line(line, text).map_err(|e| e.to_string())
    }
}

/// regroup's output of a whole script (as `regroup script` prints it), ending with
/// `{"error":"line N: ..."}` when a line was rejected.
pub fn run_text(script: &str) -> String {
    let mut runner = Script::new();
    let mut out = String::new();
    for (i, line) in script.lines().enumerate() {
        match runner.feed_line(i + 1, line) {
            Ok(values) => {
                for v in values {
                    out.push_str(&v.to_string());
                    out.push('\n');
                }
            }
            Err(e) => {
                out.push_str(&json!({"error": e.to_string()}).to_string());
                out.push('\n');
                break;
            }
        }
    }
    out
}

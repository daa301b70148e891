//! What a generator talks to while it writes a script: a coordinator that runs each line as it is written
//! and returns the line's output (`regroup script` output lines), so that the simulated clients can answer
//! with the epochs, member ids and tasks they were actually given.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::Value;

/// Runs script lines one at a time.
pub trait Driver {
    /// Runs input line `line` (1-based) and returns its output lines; an error ends the script.
    fn feed(&mut self, line: usize, text: &str) -> Result<Vec<Value>, String>;
}

/// The Java oracle in interactive mode (`ScriptMain --interactive`): Kafka's coordinator answers.
pub struct OracleProcess {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
}

impl OracleProcess {
    /// Starts `command` (program and arguments) with `--interactive` appended.
    pub fn start(command: &[String]) -> Result<Self, String> {
        let (program, args) = command
            .split_first()
            .ok_or_else(|| "empty oracle command".to_string())?;
        let mut child = Command::new(program)
            .args(args)
            .arg("--interactive")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|e| format!("cannot start {program}: {e}"))?;
        let stdin = child.stdin.take().ok_or("no stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no stdout")?);
        Ok(Self {
            child,
            stdin,
            stdout,
        })
    }
}

impl Driver for OracleProcess {
    fn feed(&mut self, line: usize, text: &str) -> Result<Vec<Value>, String> {
        writeln!(self.stdin, "{text}")
            .and_then(|()| self.stdin.flush())
            .map_err(|e| format!("oracle: cannot write: {e}"))?;
        let mut out = Vec::new();
        loop {
            let mut buf = String::new();
            let n = self
                .stdout
                .read_line(&mut buf)
                .map_err(|e| format!("oracle: cannot read: {e}"))?;
            if n == 0 {
                return Err(format!("oracle: ended while running line {line}"));
            }
            let v: Value = serde_json::from_str(buf.trim_end())
                .map_err(|e| format!("oracle: bad output {buf:?}: {e}"))?;
            if v.get("done").is_some() {
                return Ok(out);
            }
            if let Some(e) = v.get("error").and_then(Value::as_str) {
                return Err(e.to_string());
            }
            out.push(v);
        }
    }
}

impl Drop for OracleProcess {
    fn drop(&mut self) {
        // Closing stdin ends the oracle; wait so no process outlives the run.
        let _ = self.stdin.flush();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

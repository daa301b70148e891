//! A script being written: every line is run at once through a [`Driver`], so the generator can read the
//! answers before choosing the next line.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use super::driver::Driver;

/// The output of one script line, split by kind.
#[derive(Debug, Clone, Default)]
pub struct Step {
    /// The line number of the step.
    pub line: usize,
    /// Every output line of the step (fired timers, the line's own output, completed parked requests).
    pub out: Vec<Value>,
}

impl Step {
    /// The line's own response, when it was answered at once.
    pub fn response(&self) -> Option<&Value> {
        self.out
            .iter()
            .find(|v| {
                v.get("line").and_then(Value::as_u64) == Some(self.line as u64)
                    && v.get("records").is_some()
            })
            .and_then(|v| v.get("response"))
            .filter(|r| !r.is_null())
    }

    /// Responses to earlier (parked) requests that completed in this step: (line, response).
    pub fn completions(&self) -> impl Iterator<Item = (usize, &Value)> {
        self.out.iter().filter_map(|v| {
            if v.get("records").is_some() {
                return None;
            }
            let line = v.get("line")?.as_u64()? as usize;
            Some((line, v.get("response")?))
        })
    }

    /// The keys of the timers that fired in this step.
    pub fn timers(&self) -> impl Iterator<Item = &str> {
        self.out
            .iter()
            .filter_map(|v| v.get("timer").and_then(Value::as_str))
    }
}

/// A script under construction.
pub struct Session<'a> {
    driver: &'a mut dyn Driver,
    /// The script so far, one JSON text per line.
    pub lines: Vec<String>,
    /// The time of the last line.
    pub now: i64,
    /// Output lines, for the caller's record.
    pub outputs: Vec<Value>,
}

impl<'a> Session<'a> {
    pub fn new(driver: &'a mut dyn Driver) -> Self {
        Self {
            driver,
            lines: Vec::new(),
            now: 0,
            outputs: Vec::new(),
        }
    }

    /// The number the next line will have.
    pub fn next_line(&self) -> usize {
        self.lines.len() + 1
    }

    /// Appends and runs one line.
    pub fn emit(&mut self, line: Value) -> Result<Step, String> {
        let text = line.to_string();
        self.lines.push(text);
        let n = self.lines.len();
        let out = self.driver.feed(n, &self.lines[n - 1])?;
        self.outputs.extend(out.iter().cloned());
        Ok(Step { line: n, out })
    }

    /// Moves the clock forward by `delta_ms` (the next line's `at`).
    pub fn advance(&mut self, delta_ms: i64) {
        self.now += delta_ms.max(0);
    }

    pub fn config(&mut self, configs: Value) -> Result<Step, String> {
        self.emit(json!({"at": self.now, "config": configs}))
    }

    pub fn metadata(&mut self, topics: &BTreeMap<String, i32>) -> Result<Step, String> {
        let topics: Vec<Value> = topics
            .iter()
            .map(|(name, partitions)| json!({"name": name, "partitions": partitions}))
            .collect();
        self.emit(json!({"at": self.now, "metadata": {"topics": topics}}))
    }

    pub fn group_config(&mut self, group: &str, configs: Value) -> Result<Step, String> {
        self.emit(json!({"at": self.now, "groupConfig": {"groupId": group, "configs": configs}}))
    }

    /// A request line.
    pub fn request(
        &mut self,
        api: &str,
        version: i16,
        body: Value,
        client_id: &str,
    ) -> Result<Step, String> {
        self.emit(json!({
            "at": self.now,
            "request": {"api": api, "version": version, "body": body},
            "context": {"clientId": client_id, "clientHost": "/127.0.0.1"},
        }))
    }

    /// A line that only moves time (firing the timers due by then).
    pub fn tick(&mut self) -> Result<Step, String> {
        self.emit(json!({"at": self.now}))
    }
}

/// The error code of a response (0 when absent).
pub fn error_code(response: &Value) -> i64 {
    response
        .get("errorCode")
        .and_then(Value::as_i64)
        .unwrap_or(0)
}

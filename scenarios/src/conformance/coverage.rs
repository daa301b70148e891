//! What a run of the oracle exercised: the (api, error code) pairs seen in responses, the record types
//! written, the kinds of timers fired, and the streams heartbeat statuses.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

/// Coverage counters, merged over scripts.
#[derive(Debug, Clone, Default)]
pub struct Coverage {
    /// (api, error code) → number of responses carrying it (top-level or nested error codes).
    pub errors: BTreeMap<(String, i64), u64>,
    /// Record type (`GroupMetadata`, `StreamsGroupTopology`, ...; tombstones as `type/tombstone`) → count.
    pub records: BTreeMap<String, u64>,
    /// Timer kind (the key without its group and member ids) → count.
    pub timers: BTreeMap<String, u64>,
    /// Streams heartbeat status codes → count.
    pub statuses: BTreeMap<i64, u64>,
    pub scripts: u64,
    pub lines: u64,
}

fn collect_error_codes(v: &Value, out: &mut BTreeSet<i64>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "errorCode" {
                    if let Some(c) = x.as_i64() {
                        out.insert(c);
                    }
                } else {
                    collect_error_codes(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_error_codes(x, out)),
        _ => {}
    }
}

/// The timer kind of a key: the words before the group id (`session-timeout-app-m1` → `session-timeout`).
pub fn timer_kind(key: &str, groups: &[&str]) -> String {
    for g in groups {
        if let Some(pos) = key.find(&format!("-{g}")) {
            return key[..pos].to_string();
        }
        if key.ends_with(g) || key == *g {
            break;
        }
    }
    key.to_string()
}

impl Coverage {
    /// Adds one script's output; `apis[line]` is the api of each request line of the script.
    pub fn add(&mut self, apis: &BTreeMap<usize, String>, output: &[Value], groups: &[&str]) {
        self.scripts += 1;
        self.lines += output.len() as u64;
        for v in output {
            if let Some(key) = v.get("timer").and_then(Value::as_str) {
                *self.timers.entry(timer_kind(key, groups)).or_default() += 1;
            }
            for r in v
                .get("records")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let t = r.get("type").and_then(Value::as_str).unwrap_or("?");
                let name = if r.get("value").is_some_and(Value::is_null) {
                    format!("{t}/tombstone")
                } else {
                    t.to_string()
                };
                *self.records.entry(name).or_default() += 1;
            }
            let (Some(line), Some(resp)) = (
                v.get("line").and_then(Value::as_u64),
                v.get("response").filter(|r| !r.is_null()),
            ) else {
                continue;
            };
            let Some(api) = apis.get(&(line as usize)) else {
                continue;
            };
            let mut codes = BTreeSet::new();
            collect_error_codes(resp, &mut codes);
            if codes.is_empty() {
                codes.insert(0);
            }
            for c in codes {
                *self.errors.entry((api.clone(), c)).or_default() += 1;
            }
            for s in resp
                .get("status")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(c) = s.get("statusCode").and_then(Value::as_i64) {
                    *self.statuses.entry(c).or_default() += 1;
                }
            }
        }
    }

    pub fn merge(&mut self, other: &Coverage) {
        for (k, v) in &other.errors {
            *self.errors.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.records {
            *self.records.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.timers {
            *self.timers.entry(k.clone()).or_default() += v;
        }
        for (k, v) in &other.statuses {
            *self.statuses.entry(*k).or_default() += v;
        }
        self.scripts += other.scripts;
        self.lines += other.lines;
    }

    /// A human summary: counts, then every (api, error) pair with its error name.
    pub fn report(&self) -> String {
        let mut s = String::new();
        s.push_str(&format!(
            "coverage: {} scripts, {} output lines, {} distinct (api, error) pairs, {} record types, {} timer kinds, {} streams statuses\n",
            self.scripts,
            self.lines,
            self.errors.len(),
            self.records.len(),
            self.timers.len(),
            self.statuses.len()
        ));
        let mut by_api: BTreeMap<&str, Vec<String>> = BTreeMap::new();
        for ((api, code), n) in &self.errors {
            let name = i16::try_from(*code)
                .ok()
                .and_then(protocol::ErrorCode::from_code)
                .map(|e| e.name().to_string())
                .unwrap_or_else(|| code.to_string());
            by_api.entry(api).or_default().push(format!("{name}×{n}"));
        }
        for (api, codes) in by_api {
            s.push_str(&format!("  {api}: {}\n", codes.join(" ")));
        }
        let list = |m: &BTreeMap<String, u64>| {
            m.iter()
                .map(|(k, v)| format!("{k}×{v}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        s.push_str(&format!("  records: {}\n", list(&self.records)));
        s.push_str(&format!("  timers: {}\n", list(&self.timers)));
        if !self.statuses.is_empty() {
            let st: Vec<String> = self
                .statuses
                .iter()
                .map(|(k, v)| format!("{k}×{v}"))
                .collect();
            s.push_str(&format!("  streams statuses: {}\n", st.join(" ")));
        }
        s
    }
}

/// The api of each request line of a script.
pub fn request_apis(script: &[String]) -> BTreeMap<usize, String> {
    let mut out = BTreeMap::new();
    for (i, l) in script.iter().enumerate() {
        if let Ok(v) = serde_json::from_str::<Value>(l)
            && let Some(api) = v.pointer("/request/api").and_then(Value::as_str)
        {
            out.insert(i + 1, api.to_string());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_nested_errors_records_and_timer_kinds() {
        let script = vec![
            r#"{"at":0,"config":{}}"#.to_string(),
            r#"{"at":1,"request":{"api":"OffsetCommit","version":9,"body":{}}}"#.to_string(),
        ];
        let out = vec![
            json!({"at": 1, "line": 2, "response": {"topics": [{"partitions": [{"errorCode": 3}, {"errorCode": 0}]}]},
                   "records": [{"type": "OffsetCommit", "key": {}, "value": null}]}),
            json!({"at": 9, "timer": "heartbeat-cg-$gen:3", "records": []}),
        ];
        let mut c = Coverage::default();
        c.add(&request_apis(&script), &out, &["cg"]);
        assert_eq!(c.errors.get(&("OffsetCommit".to_string(), 3)), Some(&1));
        assert_eq!(c.errors.get(&("OffsetCommit".to_string(), 0)), Some(&1));
        assert_eq!(c.records.get("OffsetCommit/tombstone"), Some(&1));
        assert_eq!(c.timers.get("heartbeat"), Some(&1));
    }
}

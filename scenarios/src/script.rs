//! `regroup script`: drives one coordinator shard from JSON lines and reports every response, record
//! and fired timer as JSON lines. Generic over apis: a request line names any api regroup serves,
//! its body is read with Kafka's JSON field names (`protocol::json`) and handed to `Shard::handle`.
//!
//! Input, one JSON object per line (blank lines are skipped; line numbers count them):
//!
//! * `{"at":0,"config":{"group.streams.initial.rebalance.delay.ms":0}}` — broker configs (numbers,
//!   booleans, strings, or arrays of strings for list configs);
//! * `{"at":0,"metadata":{"topics":[{"name":"foo","partitions":6}]}}` — the topic metadata image,
//!   replacing the previous one (optional per topic: `"topicId"` in Kafka's base64 form, else derived
//!   from the name; `"partitionRacks"`: one list of racks per partition);
//! * `{"at":0,"groupConfig":{"groupId":"g","configs":{"streams.num.standby.replicas":"1"}}}` — a
//!   group's dynamic configs, checked as Kafka checks IncrementalAlterConfigs;
//! * `{"at":10,"request":{"api":"StreamsGroupHeartbeat","version":1,"body":{...}},
//!   "context":{"clientId":"c","clientHost":"/127.0.0.1"}}` — a request (context optional, with
//!   those defaults);
//! * `{"at":50000}` — only advances time.
//!
//! `at` (milliseconds, non-negative) must not decrease. Before each line, the timers due at or before
//! its `at` fire in deadline order.
//!
//! Output, one JSON object per event:
//!
//! * a request: `{"at":T,"line":N,"response":{...},"records":[...]}` (`"response":null` when the
//!   request is parked, e.g. a classic JoinGroup waiting for the rebalance);
//! * a parked request completed later: `{"at":T2,"line":N,"response":{...}}`, when it completes, in
//!   completion order (after the line of the request or timer that completed it);
//! * a fired timer: `{"at":D,"timer":"<kafka key>","records":[...]}`, then the responses it completed;
//! * config, metadata and groupConfig lines print nothing.
//!
//! Records are `{"type":...,"key":{...},"value":{...}}`, tombstones with `"value":null`.

use std::collections::BTreeMap;
use std::io::{BufRead, Write};

use coordinator::config::ConfigError;
use coordinator::topics::{TopicMetadata, TopicsImage, derived_topic_id};
use coordinator::{Outcome, RequestContext, RequestToken, Shard};
use protocol::Api;
use serde_json::{Map, Value, json};

/// Exit status for bad input.
pub const EXIT_INVALID_INPUT: i32 = 2;

/// A line that could not be run, with its 1-based number.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct ScriptError {
    pub line: usize,
    pub message: String,
}

/// One shard driven by script lines.
#[derive(Debug, Default)]
pub struct Script {
    pub shard: Shard,
    now: i64,
    /// Request version of each request still waiting for its response, by token (= line number).
    pending: BTreeMap<u64, i16>,
    /// The last config line, if broker configs changed since the last check.
    unchecked_config_line: Option<usize>,
}

fn config_value(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Array(items) => items
            .iter()
            .map(|i| i.as_str().map(str::to_string))
            .collect::<Option<Vec<_>>>()
            .map(|v| v.join(",")),
        _ => None,
    }
}

impl Script {
    pub fn new() -> Self {
        Self::default()
    }

    /// The current time of the script.
    pub fn now(&self) -> i64 {
        self.now
    }

    /// Runs one input line; returns the output lines it produced.
    pub fn feed_line(&mut self, line: usize, text: &str) -> Result<Vec<Value>, ScriptError> {
        let err = |message: String| ScriptError { line, message };
        if text.trim().is_empty() {
            return Ok(Vec::new());
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| err(format!("malformed JSON: {e}")))?;
        let Value::Object(obj) = value else {
            return Err(err("expected a JSON object".into()));
        };
        let at = obj
            .get("at")
            .and_then(Value::as_i64)
            .ok_or_else(|| err("missing or non-integer \"at\"".into()))?;
        if at < self.now {
            return Err(err(format!(
                "\"at\" {at} is before the previous line's {}",
                self.now
            )));
        }
        let kinds: Vec<&str> = obj
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "at" && *k != "context")
            .collect();
        for k in &kinds {
            if !matches!(*k, "config" | "metadata" | "groupConfig" | "request") {
                return Err(err(format!("unknown key \"{k}\"")));
            }
        }
        if kinds.len() > 1 {
            return Err(err(format!(
                "a line holds one of config, metadata, groupConfig, request; found {kinds:?}"
            )));
        }
        if obj.contains_key("context") && !obj.contains_key("request") {
            return Err(err("\"context\" is only allowed with \"request\"".into()));
        }
        let mut out = Vec::new();
        self.advance(at, &mut out).map_err(err)?;
        match kinds.first().copied() {
            None => {}
            Some("config") => {
                let Some(Value::Object(configs)) = obj.get("config") else {
                    return Err(err("\"config\" must be an object".into()));
                };
                for (k, v) in configs {
                    let v = config_value(v)
                        .ok_or_else(|| err(format!("config {k}: unsupported value {v}")))?;
                    self.shard
                        .config
                        .set(k, &v)
                        .map_err(|e| err(e.to_string()))?;
                }
                self.unchecked_config_line = Some(line);
            }
            Some("metadata") => self.set_metadata(obj.get("metadata")).map_err(err)?,
            Some("groupConfig") => self.set_group_config(obj.get("groupConfig")).map_err(err)?,
            Some(_) => {
                if let Some(config_line) = self.unchecked_config_line.take() {
                    self.shard
                        .config
                        .streams
                        .validate()
                        .map_err(|e: ConfigError| ScriptError {
                            line: config_line,
                            message: e.to_string(),
                        })?;
                }
                self.request(line, at, &obj, &mut out).map_err(err)?;
            }
        }
        Ok(out)
    }

    /// Fires every timer due at or before `at`.
    fn advance(&mut self, at: i64, out: &mut Vec<Value>) -> Result<(), String> {
        for fired in self.shard.expire(at) {
            out.push(json!({
                "at": fired.deadline_ms,
                "timer": fired.key,
                "records": records_json(&fired.outcome),
            }));
            self.completed(fired.deadline_ms, &fired.outcome, None, out)?;
        }
        self.now = at;
        Ok(())
    }

    /// Lines for replies in `outcome` to earlier requests (all but `own`).
    fn completed(
        &mut self,
        at: i64,
        outcome: &Outcome,
        own: Option<u64>,
        out: &mut Vec<Value>,
    ) -> Result<(), String> {
        for reply in &outcome.replies {
            if Some(reply.token.0) == own {
                continue;
            }
            let version = self
                .pending
                .remove(&reply.token.0)
                .ok_or_else(|| format!("a reply for unknown request token {}", reply.token.0))?;
            let response = protocol::json::response_to_json(&reply.response, version)
                .map_err(|e| format!("response of line {}: {e}", reply.token.0))?;
            out.push(json!({"at": at, "line": reply.token.0, "response": response}));
        }
        Ok(())
    }

    fn set_metadata(&mut self, v: Option<&Value>) -> Result<(), String> {
        let topics = v
            .and_then(|m| m.get("topics"))
            .and_then(Value::as_array)
            .ok_or("\"metadata\" must be {\"topics\":[...]}")?;
        let mut image = TopicsImage::new();
        for t in topics {
            let Value::Object(t) = t else {
                return Err("a topic must be an object".into());
            };
            for k in t.keys() {
                if !matches!(
                    k.as_str(),
                    "name" | "partitions" | "topicId" | "partitionRacks"
                ) {
                    return Err(format!("unknown topic field \"{k}\""));
                }
            }
            let name = t
                .get("name")
                .and_then(Value::as_str)
                .ok_or("a topic needs a \"name\"")?;
            let partitions = t
                .get("partitions")
                .and_then(Value::as_i64)
                .filter(|p| (1..=i64::from(i32::MAX)).contains(p))
                .ok_or_else(|| {
                    format!("topic {name}: \"partitions\" must be a positive integer")
                })?;
            let mut topic = TopicMetadata::new(name, partitions as i32);
            if let Some(id) = t.get("topicId") {
                let bytes = id
                    .as_str()
                    .and_then(protocol::json::parse_kafka_uuid)
                    .ok_or_else(|| format!("topic {name}: bad topicId {id}"))?;
                topic.id = uuid::Uuid::from_bytes(bytes);
            } else {
                topic.id = derived_topic_id(name);
            }
            if let Some(racks) = t.get("partitionRacks") {
                let racks: Vec<Vec<String>> = serde_json::from_value(racks.clone())
                    .map_err(|e| format!("topic {name}: partitionRacks: {e}"))?;
                topic.partition_racks = racks;
            }
            image.upsert(topic);
        }
        self.shard.set_topics(image);
        Ok(())
    }

    fn set_group_config(&mut self, v: Option<&Value>) -> Result<(), String> {
        let Some(Value::Object(g)) = v else {
            return Err("\"groupConfig\" must be an object".into());
        };
        for k in g.keys() {
            if !matches!(k.as_str(), "groupId" | "configs") {
                return Err(format!("unknown groupConfig field \"{k}\""));
            }
        }
        let group = g
            .get("groupId")
            .and_then(Value::as_str)
            .ok_or("groupConfig needs a \"groupId\"")?;
        let Some(Value::Object(configs)) = g.get("configs") else {
            return Err("groupConfig needs \"configs\"".into());
        };
        for (k, v) in configs {
            let v = config_value(v)
                .ok_or_else(|| format!("group config {k}: unsupported value {v}"))?;
            match coordinator::streams::config::validate_group_config(
                &self.shard.config.streams,
                k,
                &v,
            ) {
                Some(Ok(())) => self.shard.config.set_group_config(group, k, &v),
                Some(Err(e)) => return Err(e.to_string()),
                None => return Err(format!("unknown group config {k}")),
            }
        }
        Ok(())
    }

    fn request(
        &mut self,
        line: usize,
        at: i64,
        obj: &Map<String, Value>,
        out: &mut Vec<Value>,
    ) -> Result<(), String> {
        let Some(Value::Object(r)) = obj.get("request") else {
            return Err("\"request\" must be an object".into());
        };
        for k in r.keys() {
            if !matches!(k.as_str(), "api" | "version" | "body") {
                return Err(format!("unknown request field \"{k}\""));
            }
        }
        let api_name = r
            .get("api")
            .and_then(Value::as_str)
            .ok_or("request needs an \"api\" name")?;
        let api = Api::from_name(api_name).ok_or_else(|| format!("unknown api \"{api_name}\""))?;
        let version = r
            .get("version")
            .and_then(Value::as_i64)
            .and_then(|v| i16::try_from(v).ok())
            .ok_or("request needs an integer \"version\"")?;
        if !api.supports(version) {
            return Err(format!("{api} does not support version {version}"));
        }
        let body = r.get("body").cloned().unwrap_or_else(|| json!({}));
        let request = protocol::json::request_from_json(api, version, &body)
            .map_err(|e| format!("{api} v{version} body: {e}"))?;
        let (client_id, client_host) = match obj.get("context") {
            None => ("client".to_string(), "/127.0.0.1".to_string()),
            Some(Value::Object(c)) => {
                for k in c.keys() {
                    if !matches!(k.as_str(), "clientId" | "clientHost") {
                        return Err(format!("unknown context field \"{k}\""));
                    }
                }
                let get = |k: &str, d: &str| -> Result<String, String> {
                    match c.get(k) {
                        None => Ok(d.to_string()),
                        Some(Value::String(s)) => Ok(s.clone()),
                        Some(other) => Err(format!("context {k} must be a string, found {other}")),
                    }
                };
                (get("clientId", "client")?, get("clientHost", "/127.0.0.1")?)
            }
            Some(other) => return Err(format!("\"context\" must be an object, found {other}")),
        };
        let ctx = RequestContext::new(client_id, client_host, version);
        let token = line as u64;
        let outcome = self
            .shard
            .handle(RequestToken(token), &ctx, &request, at)
            .map_err(|e| e.to_string())?;
        let own = outcome.replies.iter().find(|r| r.token.0 == token);
        let response = match own {
            Some(reply) => protocol::json::response_to_json(&reply.response, version)
                .map_err(|e| format!("response: {e}"))?,
            None => {
                self.pending.insert(token, version);
                Value::Null
            }
        };
        out.push(json!({
            "at": at,
            "line": line,
            "response": response,
            "records": records_json(&outcome),
        }));
        self.completed(at, &outcome, Some(token), out)
    }
}

fn records_json(outcome: &Outcome) -> Vec<Value> {
    outcome.records.iter().map(|r| r.to_json()).collect()
}

/// Runs a whole script, writing one JSON line per event to `out`.
pub fn run_script(input: impl BufRead, out: &mut impl Write) -> Result<(), ScriptError> {
    let mut script = Script::new();
    for (i, line) in input.lines().enumerate() {
        let n = i + 1;
        let text = line.map_err(|e| ScriptError {
            line: n,
            message: format!("cannot read: {e}"),
        })?;
        for v in script.feed_line(n, &text)? {
            writeln!(out, "{v}").map_err(|e| ScriptError {
                line: n,
                message: format!("cannot write: {e}"),
            })?;
        }
    }
    Ok(())
}

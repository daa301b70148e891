//! The rude client: a `regroup script`'s request lines sent over the simulated network, one after
//! another, each at exactly its version, to the coordinator of the group it names.
//!
//! The modelled clients (streams processes, consumers, the admin) send what Kafka's clients send.
//! A broker also meets clients that send old versions, bad requests and inputs no Java client
//! sends; the coordinator's answers to those are rules too, and a rule no client exercises is one
//! no sweep can catch a regression in. The scripts this client runs are corpus scripts of the
//! differential oracle (`conformance/corpus`), whose `expect`s `regroup conformance` holds against
//! Kafka 4.4.0's own coordinator; here the same requests reach regroup's brokers through the
//! simulated network, and the scenario's check holds the same `expect`s against the answers.
//!
//! Only request lines are sent (`config`, `metadata` and empty lines belong to the oracle's
//! coordinator; a scenario that runs a script gives its cluster those topics and configs). Each
//! waits for the answer to the one before it and then for the time the script's clock moves
//! between the two lines (their `at`s), so a timer the oracle fires between two lines (an initial
//! rebalance delay, an assignment interval) has fired here too; a script for this client uses
//! requests the coordinator answers without another request's help. Member ids follow the script runner's
//! naming for the one way a script here learns them: the member id a JoinGroup response hands out
//! is named `$gen:L` (L: the line of that JoinGroup), later bodies' `$gen:L` strings are replaced
//! by the real id, and the real id in any response string by its name.

use std::collections::BTreeMap;

use protocol::{Api, Request};
use serde_json::Value;

use crate::event::AdminAnswer;
use protocol::net::Net;

/// One request line of a script.
#[derive(Debug, Clone, PartialEq)]
pub struct ScriptRequest {
    /// The 1-based line in the script.
    pub line: usize,
    /// When the line is due, in ms from the script's start (the line's `at`, 0 when absent).
    pub at_ms: u64,
    pub api: Api,
    pub version: i16,
    pub body: Value,
}

/// The request lines of `script` (JSON lines); other lines are skipped. A line that is not JSON,
/// or a request that names an unknown api or a version regroup does not speak, is an error
/// naming its line.
pub fn requests(script: &str) -> Result<Vec<ScriptRequest>, String> {
    let mut out = Vec::new();
    for (i, text) in script.lines().enumerate() {
        let line = i + 1;
        if text.trim().is_empty() {
            continue;
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| format!("script line {line}: {e}"))?;
        let Some(request) = value.get("request") else {
            continue;
        };
        let name = request
            .get("api")
            .and_then(Value::as_str)
            .ok_or_else(|| format!("script line {line}: a request needs an \"api\" name"))?;
        let api = Api::from_name(name)
            .ok_or_else(|| format!("script line {line}: unknown api {name:?}"))?;
        let version = request
            .get("version")
            .and_then(Value::as_i64)
            .and_then(|v| i16::try_from(v).ok())
            .ok_or_else(|| format!("script line {line}: a request needs an int16 \"version\""))?;
        if version < api.min_version() || version > api.max_version() {
            return Err(format!(
                "script line {line}: {name} v{version} is outside the versions regroup speaks \
                 (v{}-v{})",
                api.min_version(),
                api.max_version()
            ));
        }
        let body = request.get("body").cloned().unwrap_or(Value::Null);
        let at_ms = match value.get("at") {
            None => 0,
            Some(at) => at.as_u64().ok_or_else(|| {
                format!("script line {line}: \"at\" must be a non-negative integer")
            })?,
        };
        out.push(ScriptRequest {
            line,
            at_ms,
            api,
            version,
            body,
        });
    }
    Ok(out)
}

/// The group whose coordinator a request goes to: the body's `groupId`, the first of `groups`
/// (OffsetFetch v8+), `groupIds` (describes) or `groupsNames` (DeleteGroups); else `fallback`.
pub fn coordinator_key<'a>(body: &'a Value, fallback: &'a str) -> &'a str {
    let first = |key: &str| {
        body.get(key)
            .and_then(Value::as_array)
            .and_then(|a| a.first())
    };
    body.get("groupId")
        .and_then(Value::as_str)
        .or_else(|| first("groups").and_then(|g| g.get("groupId").and_then(Value::as_str)))
        .or_else(|| first("groups").and_then(Value::as_str))
        .or_else(|| first("groupIds").and_then(Value::as_str))
        .or_else(|| first("groupsNames").and_then(Value::as_str))
        .unwrap_or(fallback)
}

/// The member ids a script has learned: real id <-> `$gen:L`.
#[derive(Debug, Default)]
pub struct Names {
    by_name: BTreeMap<String, String>,
    by_id: BTreeMap<String, String>,
}

impl Names {
    /// `body` with every `$gen:L` string replaced by the real id; a name not learned yet is an error.
    pub fn bind(&self, body: &Value) -> Result<Value, String> {
        Ok(match body {
            Value::String(s) if s.starts_with("$gen:") => Value::String(
                self.by_name
                    .get(s)
                    .cloned()
                    .ok_or_else(|| format!("{s} names no member id the script was given"))?,
            ),
            Value::Array(items) => Value::Array(
                items
                    .iter()
                    .map(|v| self.bind(v))
                    .collect::<Result<_, _>>()?,
            ),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| Ok((k.clone(), self.bind(v)?)))
                    .collect::<Result<_, String>>()?,
            ),
            other => other.clone(),
        })
    }

    /// Learns the member id a JoinGroup response at `line` hands out, if it is new.
    pub fn learn(&mut self, api: Api, line: usize, response: &Value) {
        if api != Api::JoinGroup {
            return;
        }
        let Some(id) = response.get("memberId").and_then(Value::as_str) else {
            return;
        };
        if id.is_empty() || self.by_id.contains_key(id) {
            return;
        }
        let name = format!("$gen:{line}");
        self.by_id.insert(id.to_string(), name.clone());
        self.by_name.insert(name, id.to_string());
    }

    /// `response` with every learned id inside any string replaced by its name.
    pub fn name(&self, response: &Value) -> Value {
        match response {
            Value::String(s) => {
                let mut s = s.clone();
                for (id, name) in &self.by_id {
                    if s.contains(id.as_str()) {
                        s = s.replace(id.as_str(), name);
                    }
                }
                Value::String(s)
            }
            Value::Array(items) => Value::Array(items.iter().map(|v| self.name(v)).collect()),
            Value::Object(map) => {
                Value::Object(map.iter().map(|(k, v)| (k.clone(), self.name(v))).collect())
            }
            other => other.clone(),
        }
    }
}

/// Sends `script`'s request lines in order through `admin`, giving each line's answer to `answer`.
/// A script that does not parse is answered once, on line 0, with the reason.
pub async fn run<N: Net>(
    admin: &members::admin::Admin<N>,
    fallback_group: &str,
    script: &str,
    mut answer: impl FnMut(AdminAnswer),
) {
    let lines = match requests(script) {
        Ok(lines) => lines,
        Err(reason) => {
            answer(AdminAnswer::ScriptedFailed { line: 0, reason });
            return;
        }
    };
    let mut names = Names::default();
    let mut previous_at_ms = 0;
    for r in lines {
        // The oracle answers at once, so its clock only moves by the script's own steps; a line
        // here waits, after the answer before it, for the time its step adds.
        let gap = r.at_ms.saturating_sub(previous_at_ms);
        previous_at_ms = previous_at_ms.max(r.at_ms);
        if gap > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(gap)).await;
        }
        let line = r.line;
        let failed = |reason: String| AdminAnswer::ScriptedFailed { line, reason };
        let request = match names.bind(&r.body).and_then(|body| {
            protocol::json::request_from_json(r.api, r.version, &body)
                .map_err(|e| format!("{} v{} body: {e}", r.api, r.version))
        }) {
            Ok(request) => request,
            Err(reason) => {
                answer(failed(reason));
                continue;
            }
        };
        let group = coordinator_key(&r.body, fallback_group).to_string();
        let reply = send(admin, &group, request, r.version).await;
        answer(match reply {
            Ok(json) => {
                names.learn(r.api, line, &json);
                AdminAnswer::Scripted {
                    line,
                    response: names.name(&json).to_string(),
                }
            }
            Err(reason) => failed(reason),
        });
    }
}

async fn send<N: Net>(
    admin: &members::admin::Admin<N>,
    group: &str,
    request: Request,
    version: i16,
) -> Result<Value, String> {
    let response = admin
        .raw(group, request, version)
        .await
        .map_err(|e| e.to_string())?;
    protocol::json::response_to_json(&response, version)
        .map_err(|e| format!("the v{version} response has no JSON form: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_request_lines_and_names_their_errors() {
        let script = concat!(
            "{\"at\":0,\"metadata\":{\"topics\":[]}}\n",
            "\n",
            "{\"at\":0,\"request\":{\"api\":\"LeaveGroup\",\"version\":1,\"body\":{\"groupId\":\"g\"}}}\n",
        );
        let lines = requests(script).unwrap();
        assert_eq!(lines.len(), 1);
        assert_eq!(lines[0].line, 3);
        assert_eq!(lines[0].at_ms, 0);
        assert_eq!(lines[0].api, Api::LeaveGroup);
        assert_eq!(lines[0].version, 1);
        assert_eq!(
            requests("{\"request\":{\"api\":\"Nope\",\"version\":0}}").unwrap_err(),
            "script line 1: unknown api \"Nope\""
        );
        assert!(
            requests("{\"request\":{\"api\":\"JoinGroup\",\"version\":99}}")
                .unwrap_err()
                .starts_with("script line 1: JoinGroup v99 is outside")
        );
        assert!(
            requests("not json")
                .unwrap_err()
                .starts_with("script line 1:")
        );
        // A line's time is its `at`; one without is due at once; a negative one is refused.
        let timed = "{\"at\":3500,\"request\":{\"api\":\"LeaveGroup\",\"version\":1,\"body\":{}}}\n\
                     {\"request\":{\"api\":\"LeaveGroup\",\"version\":1,\"body\":{}}}";
        let lines = requests(timed).unwrap();
        assert_eq!((lines[0].at_ms, lines[1].at_ms), (3500, 0));
        assert_eq!(
            requests("{\"at\":-1,\"request\":{\"api\":\"LeaveGroup\",\"version\":1}}").unwrap_err(),
            "script line 1: \"at\" must be a non-negative integer"
        );
    }

    #[test]
    fn finds_the_group_of_each_request_shape() {
        assert_eq!(coordinator_key(&json!({"groupId": "a"}), "x"), "a");
        assert_eq!(
            coordinator_key(&json!({"groups": [{"groupId": "b"}]}), "x"),
            "b"
        );
        assert_eq!(coordinator_key(&json!({"groups": ["c"]}), "x"), "c");
        assert_eq!(coordinator_key(&json!({"groupIds": ["d"]}), "x"), "d");
        assert_eq!(coordinator_key(&json!({"groupsNames": ["e"]}), "x"), "e");
        assert_eq!(coordinator_key(&json!({}), "x"), "x");
    }

    #[test]
    fn names_join_handed_ids_and_binds_them_in_later_bodies() {
        let mut names = Names::default();
        assert_eq!(
            names.bind(&json!({"memberId": "$gen:4"})).unwrap_err(),
            "$gen:4 names no member id the script was given"
        );
        names.learn(Api::JoinGroup, 4, &json!({"memberId": "c-1234"}));
        // A second response with the same id keeps the first name; other apis teach nothing.
        names.learn(Api::JoinGroup, 9, &json!({"memberId": "c-1234"}));
        names.learn(Api::SyncGroup, 5, &json!({"memberId": "c-9"}));
        assert_eq!(
            names
                .bind(&json!({"memberId": "$gen:4", "members": [{"memberId": "$gen:4"}]}))
                .unwrap(),
            json!({"memberId": "c-1234", "members": [{"memberId": "c-1234"}]})
        );
        assert_eq!(
            names.name(&json!({"leader": "c-1234", "errorMessage": "member c-1234 is fenced"})),
            json!({"leader": "$gen:4", "errorMessage": "member $gen:4 is fenced"})
        );
    }
}

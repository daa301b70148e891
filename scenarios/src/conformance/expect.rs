//! Expectations a script states about its own responses: a request line's `"expect":{"response":{...}}`.
//!
//! The differential comparison shows that regroup and Kafka answer alike; an expectation also says *what*
//! they answer, so a corpus script can prove a fact about Kafka 4.4.0 itself (e.g. that a lost streams
//! assignment is never sent again: `kafka44-streams-lost-assignment.jsonl`). Both runners ignore the key;
//! `regroup conformance` checks every expectation against both outputs, and a failed one fails the run
//! like a divergence.
//!
//! Matching is partial: every key of an expected object must match the actual value (other keys are not
//! looked at); an expected `null` matches a null or absent value; arrays match element by element and
//! must have the same length; other values must be equal.

use serde_json::Value;

use super::compare::RunOutput;

/// One request line's expectation.
#[derive(Debug, Clone, PartialEq)]
pub struct Expectation {
    /// The 1-based script line of the request.
    pub line: usize,
    /// What its response must hold.
    pub response: Value,
}

/// The expectations of a script's lines; an `expect` that is not `{"response": {...}}` is an error.
pub fn of_script(lines: &[String]) -> Result<Vec<Expectation>, String> {
    let mut out = Vec::new();
    for (i, text) in lines.iter().enumerate() {
        let Ok(Value::Object(obj)) = serde_json::from_str::<Value>(text) else {
            continue;
        };
        let Some(expect) = obj.get("expect") else {
            continue;
        };
        let line = i + 1;
        let response = expect
            .as_object()
            .filter(|e| e.len() == 1)
            .and_then(|e| e.get("response"))
            .filter(|r| r.is_object())
            .ok_or_else(|| {
                format!("line {line}: \"expect\" must be {{\"response\": {{...}}}}, found {expect}")
            })?;
        out.push(Expectation {
            line,
            response: response.clone(),
        });
    }
    Ok(out)
}

/// Why `actual` does not hold `expected`, naming the first path that differs.
pub fn mismatch(expected: &Value, actual: Option<&Value>, path: &str) -> Option<String> {
    let at = |p: &str| {
        if p.is_empty() {
            "response".to_string()
        } else {
            p.to_string()
        }
    };
    match (expected, actual) {
        (Value::Null, None | Some(Value::Null)) => None,
        (Value::Object(want), Some(Value::Object(have))) => want.iter().find_map(|(k, v)| {
            let p = if path.is_empty() {
                format!("response.{k}")
            } else {
                format!("{path}.{k}")
            };
            mismatch(v, have.get(k), &p)
        }),
        (Value::Array(want), Some(Value::Array(have))) => {
            if want.len() != have.len() {
                return Some(format!(
                    "{} has {} elements, {} expected",
                    at(path),
                    have.len(),
                    want.len()
                ));
            }
            want.iter()
                .zip(have)
                .enumerate()
                .find_map(|(i, (w, h))| mismatch(w, Some(h), &format!("{}[{i}]", at(path))))
        }
        (Value::Object(_) | Value::Array(_), _) => Some(format!(
            "{} is {}, {expected} expected",
            at(path),
            actual
                .map(Value::to_string)
                .unwrap_or_else(|| "absent".into())
        )),
        (w, Some(h)) if w == h => None,
        (w, h) => Some(format!(
            "{} is {}, {w} expected",
            at(path),
            h.map(Value::to_string).unwrap_or_else(|| "absent".into())
        )),
    }
}

/// The expectations `output` does not meet, each as `line N: what differs`.
pub fn check(expectations: &[Expectation], output: &RunOutput) -> Vec<String> {
    let mut failed = Vec::new();
    for e in expectations {
        let response = output
            .lines
            .iter()
            .filter(|v| v.get("line").and_then(Value::as_u64) == Some(e.line as u64))
            .filter_map(|v| v.get("response"))
            .find(|r| !r.is_null());
        match response {
            None => failed.push(format!("line {}: no response", e.line)),
            Some(r) => {
                if let Some(why) = mismatch(&e.response, Some(r), "") {
                    failed.push(format!("line {}: {why}", e.line));
                }
            }
        }
    }
    failed
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn partial_objects_null_for_absent_and_exact_arrays() {
        let have = json!({"errorCode": 0, "memberEpoch": 3, "activeTasks": null,
                          "groups": [{"groupState": "Stable", "x": 1}]});
        assert_eq!(mismatch(&json!({"memberEpoch": 3}), Some(&have), ""), None);
        assert_eq!(
            mismatch(
                &json!({"activeTasks": null, "missing": null}),
                Some(&have),
                ""
            ),
            None
        );
        assert_eq!(
            mismatch(
                &json!({"groups": [{"groupState": "Stable"}]}),
                Some(&have),
                ""
            ),
            None
        );
        assert_eq!(
            mismatch(&json!({"memberEpoch": 4}), Some(&have), "").as_deref(),
            Some("response.memberEpoch is 3, 4 expected")
        );
        assert_eq!(
            mismatch(&json!({"activeTasks": []}), Some(&have), "").as_deref(),
            Some("response.activeTasks is null, [] expected")
        );
        assert_eq!(
            mismatch(&json!({"groups": [{}, {}]}), Some(&have), "").as_deref(),
            Some("response.groups has 1 elements, 2 expected")
        );
        assert_eq!(
            mismatch(
                &json!({"groups": [{"groupState": "Empty"}]}),
                Some(&have),
                ""
            )
            .as_deref(),
            Some("response.groups[0].groupState is \"Stable\", \"Empty\" expected")
        );
    }

    #[test]
    fn every_expectation_is_checked_against_its_own_line() {
        let lines = vec![
            r#"{"at":0,"config":{}}"#.to_string(),
            r#"{"at":0,"request":{},"expect":{"response":{"errorCode":0}}}"#.to_string(),
            r#"{"at":0,"request":{},"expect":{"response":{"errorCode":0}}}"#.to_string(),
        ];
        let expectations = of_script(&lines).unwrap();
        assert_eq!(expectations.len(), 2);
        let output = RunOutput::parse(
            "{\"at\":0,\"line\":2,\"response\":{\"errorCode\":0},\"records\":[]}\n\
             {\"at\":0,\"line\":3,\"response\":{\"errorCode\":15},\"records\":[]}",
        )
        .unwrap();
        assert_eq!(
            check(&expectations, &output),
            vec!["line 3: response.errorCode is 15, 0 expected".to_string()]
        );
        let bad = vec![r#"{"at":0,"request":{},"expect":{"errorCode":0}}"#.to_string()];
        assert!(of_script(&bad).unwrap_err().starts_with("line 1:"));
    }

    /// regroup's side of every corpus expectation, so `cargo test` catches a regression without Java
    /// (`.ci/steps/conformance.sh` checks Kafka's side too).
    #[test]
    fn regroup_meets_every_expectation_of_the_corpus() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../conformance/corpus");
        let mut checked = 0;
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|x| x != "jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let lines: Vec<String> = text.lines().map(str::to_string).collect();
            let expectations = of_script(&lines).unwrap();
            let output = RunOutput::parse(&super::super::regroup_side::run_text(&text)).unwrap();
            assert_eq!(
                check(&expectations, &output),
                Vec::<String>::new(),
                "{}",
                path.display()
            );
            checked += expectations.len();
        }
        assert!(checked >= 11, "only {checked} expectations in the corpus");
    }
}

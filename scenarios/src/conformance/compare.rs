//! Comparing the two runners' outputs of one script.
//!
//! Normalisation (besides the member-id names of [`super::ids`]):
//! * responses to parked requests that complete in the same step are compared in line order: Kafka
//!   completes them in the order it iterates its members, regroup in its own order; both deliver them at
//!   the same instant, so their order carries no meaning;
//! * the topic-partition entries of a StreamsGroupHeartbeat's `partitionsByUserEndpoint` are compared
//!   sorted by topic: Kafka lists them in the iteration order of an immutable map whose order is
//!   randomised per JVM (`ImmutableCollections.SALT`);
//! * the records of one periodic clean-up (`expire-group-metadata`) are compared group by group (a
//!   stable sort by group id): Kafka visits the groups in the order of its `groups` TimelineHashMap,
//!   regroup in group id order (docs/divergences.md); each group's records keep their order;
//! * consumer-group assignments are compared as sets: inside the ConsumerGroupTargetAssignmentMember
//!   and ConsumerGroupCurrentMemberAssignment records, the ConsumerGroupHeartbeat assignment and the
//!   ConsumerGroupDescribe members, topics are sorted by id and partitions ascending (each partition
//!   keeping its assignment epoch), and a described member's subscribed topic names sorted. Kafka
//!   lists them in the iteration order of `HashMap`s and `HashSet`s whose capacity depends on how each
//!   map was built (copied, filtered, merged); its own tests sort them too (`Assertions.java`).
//! * a run of consecutive consumer-group records of one type, one group and one kind (value or
//!   tombstone) of which at least one is keyed by a generated member id (`$gen:N`) is compared sorted by
//!   member id: Kafka writes them in the order of its members' `TimelineHashMap`, which for ids built
//!   from `Uuid.randomUuid()` (classic members converted by an online upgrade) is random; regroup's ids
//!   differ, hence so does its order; likewise the members of a described consumer group when one
//!   of them has a generated id; and the members of the GroupMetadata record of an online downgrade
//!   (one that follows a ConsumerGroupMetadata tombstone in the same output), which Kafka lists in the
//!   order of a classic group map built outside the oracle's ordered one (the leader, the first member
//!   added, is compared as it is).

use serde_json::Value;

/// One runner's output for a script.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunOutput {
    pub lines: Vec<Value>,
    /// `line N: message` when the runner rejected a line.
    pub error: Option<String>,
}

impl RunOutput {
    /// Parses output text: one JSON value per line; a final `{"error": ...}` is the runner's error.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut out = RunOutput::default();
        for (i, l) in text.lines().enumerate() {
            if l.trim().is_empty() {
                continue;
            }
            let v: Value =
                serde_json::from_str(l).map_err(|e| format!("output line {}: {e}", i + 1))?;
            if let Some(e) = v.get("error").and_then(Value::as_str)
                && v.as_object().is_some_and(|o| o.len() == 1)
            {
                out.error = Some(e.to_string());
                continue;
            }
            out.lines.push(v);
        }
        Ok(out)
    }

    /// The script line an error names (`line N: ...`).
    pub fn error_line(&self) -> Option<usize> {
        let e = self.error.as_deref()?;
        let rest = e.strip_prefix("line ")?;
        rest.split(':').next()?.trim().parse().ok()
    }
}

/// True for a line that opens a step (a request's own line or a fired timer).
fn opens_step(v: &Value) -> bool {
    v.get("records").is_some()
}

/// Sorts, in place, the topic-partition lists of every `partitionsByUserEndpoint` entry by topic.
fn sort_endpoint_partitions(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if let Some(Value::Array(entries)) = m.get_mut("partitionsByUserEndpoint") {
                for e in entries.iter_mut() {
                    for key in ["activePartitions", "standbyPartitions"] {
                        if let Some(Value::Array(tps)) = e.get_mut(key) {
                            tps.sort_by_key(|tp| {
                                (
                                    tp.get("topic")
                                        .and_then(Value::as_str)
                                        .unwrap_or("")
                                        .to_string(),
                                    tp.to_string(),
                                )
                            });
                        }
                    }
                }
            }
            m.values_mut().for_each(sort_endpoint_partitions);
        }
        Value::Array(a) => a.iter_mut().for_each(sort_endpoint_partitions),
        _ => {}
    }
}

/// The lines in comparison order: each run of completed responses sorted by their request line, endpoint
/// partition lists sorted by topic.
pub fn normalise(lines: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::with_capacity(lines.len());
    let mut run: Vec<Value> = Vec::new();
    let flush = |run: &mut Vec<Value>, out: &mut Vec<Value>| {
        run.sort_by_key(|v| v.get("line").and_then(Value::as_u64).unwrap_or(0));
        out.append(run);
    };
    for v in lines {
        if opens_step(v) {
            flush(&mut run, &mut out);
            out.push(v.clone());
        } else {
            run.push(v.clone());
        }
    }
    flush(&mut run, &mut out);
    for v in &mut out {
        sort_endpoint_partitions(v);
        sort_cleanup_records_by_group(v);
        sort_consumer_assignments(v);
        sort_generated_member_records(v);
    }
    out
}

/// The member id of a consumer-group record's key, with the record's type, group and kind, when it
/// has one.
fn member_record_class(r: &Value) -> Option<(String, String, bool, &str)> {
    let ty = r.get("type")?.as_str()?;
    if !ty.starts_with("ConsumerGroup") {
        return None;
    }
    let key = r.get("key")?;
    let member = key.get("memberId")?.as_str()?;
    let group = key.get("groupId")?.as_str()?;
    let tombstone = r.get("value").is_none_or(Value::is_null);
    Some((ty.to_string(), group.to_string(), tombstone, member))
}

fn sort_generated_member_records(v: &mut Value) {
    if let Some(Value::Array(groups)) = v.pointer_mut("/response/groups") {
        for g in groups {
            let Some(Value::Array(members)) = g.get_mut("members") else {
                continue;
            };
            let id = |m: &Value| {
                m.get("memberId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            };
            let consumer = members.iter().all(|m| m.get("memberType").is_some());
            if consumer && members.iter().any(|m| id(m).starts_with("$gen:")) {
                members.sort_by_key(id);
            }
        }
    }
    let Some(Value::Array(records)) = v.get_mut("records") else {
        return;
    };
    let mut after_consumer_tombstone = false;
    for r in records.iter_mut() {
        let ty = r.get("type").and_then(Value::as_str).unwrap_or("");
        if ty == "ConsumerGroupMetadata" && r.get("value").is_none_or(Value::is_null) {
            after_consumer_tombstone = true;
        } else if ty == "GroupMetadata"
            && after_consumer_tombstone
            && let Some(Value::Array(members)) = r.pointer_mut("/value/members")
        {
            members.sort_by_key(|m| {
                m.get("memberId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            });
        }
    }
    let mut start = 0;
    while start < records.len() {
        let class = member_record_class(&records[start]).map(|(t, g, k, _)| (t, g, k));
        let mut end = start + 1;
        while class.is_some()
            && end < records.len()
            && member_record_class(&records[end]).map(|(t, g, k, _)| (t, g, k)) == class
        {
            end += 1;
        }
        let generated = records[start..end]
            .iter()
            .any(|r| member_record_class(r).is_some_and(|(_, _, _, m)| m.starts_with("$gen:")));
        if end - start > 1 && generated {
            records[start..end].sort_by(|a, b| {
                let ma = member_record_class(a).map(|c| c.3.to_string());
                let mb = member_record_class(b).map(|c| c.3.to_string());
                ma.cmp(&mb)
            });
        }
        start = end;
    }
}

/// Sorts one list of `{topicId, partitions[, assignmentEpochs]}` entries by topic id, and each entry's
/// partitions ascending, moving the assignment epochs with their partitions.
fn sort_topic_partitions(list: &mut Value) {
    let Value::Array(entries) = list else {
        return;
    };
    for e in entries.iter_mut() {
        let parts: Vec<Value> = match e.get("partitions") {
            Some(Value::Array(p)) => p.clone(),
            _ => continue,
        };
        let epochs: Option<Vec<Value>> = match e.get("assignmentEpochs") {
            Some(Value::Array(a)) if a.len() == parts.len() => Some(a.clone()),
            _ => None,
        };
        let mut idx: Vec<usize> = (0..parts.len()).collect();
        idx.sort_by_key(|i| parts[*i].as_i64().unwrap_or(0));
        e["partitions"] = Value::Array(idx.iter().map(|i| parts[*i].clone()).collect());
        if let Some(epochs) = epochs {
            e["assignmentEpochs"] = Value::Array(idx.iter().map(|i| epochs[*i].clone()).collect());
        }
    }
    entries.sort_by(|a, b| {
        let key = |v: &Value| {
            v.get("topicId")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        key(a).cmp(&key(b))
    });
}

/// The consumer-group normalisation of one output line (see the module documentation).
fn sort_consumer_assignments(v: &mut Value) {
    if let Some(Value::Array(records)) = v.get_mut("records") {
        for r in records.iter_mut() {
            let ty = r
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string();
            let Some(value) = r.get_mut("value").filter(|x| x.is_object()) else {
                continue;
            };
            match ty.as_str() {
                "ConsumerGroupTargetAssignmentMember" => {
                    if let Some(l) = value.get_mut("topicPartitions") {
                        sort_topic_partitions(l);
                    }
                }
                "ConsumerGroupCurrentMemberAssignment" => {
                    for k in ["assignedPartitions", "partitionsPendingRevocation"] {
                        if let Some(l) = value.get_mut(k) {
                            sort_topic_partitions(l);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    let Some(response) = v.get_mut("response").filter(|r| r.is_object()) else {
        return;
    };
    // ConsumerGroupHeartbeat: the only response with both fields.
    if response.get("heartbeatIntervalMs").is_some()
        && let Some(l) = response
            .get_mut("assignment")
            .and_then(|a| a.get_mut("topicPartitions"))
    {
        sort_topic_partitions(l);
    }
    // ConsumerGroupDescribe: members with a member type.
    if let Some(Value::Array(groups)) = response.get_mut("groups") {
        for g in groups.iter_mut() {
            let Some(Value::Array(members)) = g.get_mut("members") else {
                continue;
            };
            for m in members.iter_mut().filter(|m| m.get("memberType").is_some()) {
                for k in ["assignment", "targetAssignment"] {
                    if let Some(l) = m.get_mut(k).and_then(|a| a.get_mut("topicPartitions")) {
                        sort_topic_partitions(l);
                    }
                }
                if let Some(Value::Array(names)) = m.get_mut("subscribedTopicNames") {
                    names.sort_by(|a, b| a.as_str().cmp(&b.as_str()));
                }
            }
        }
    }
}

/// The group a record is about (`group` in offset and classic records, `groupId` in streams ones).
fn record_group(record: &Value) -> &str {
    let key = &record["key"];
    key.get("group")
        .or_else(|| key.get("groupId"))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn sort_cleanup_records_by_group(v: &mut Value) {
    if v.get("timer").and_then(Value::as_str) != Some("expire-group-metadata") {
        return;
    }
    if let Some(Value::Array(records)) = v.get_mut("records") {
        records.sort_by(|a, b| record_group(a).cmp(record_group(b)));
    }
}

/// Where two outputs first differ.
#[derive(Debug, Clone, PartialEq)]
pub struct Divergence {
    /// Index of the first differing output line (0-based, after normalisation).
    pub index: usize,
    pub regroup: Option<Value>,
    pub kafka: Option<Value>,
    /// The script line that output line belongs to, when known.
    pub script_line: Option<usize>,
    /// What differs, in words.
    pub what: String,
}

fn script_line_of(v: Option<&Value>) -> Option<usize> {
    v.and_then(|v| v.get("line"))
        .and_then(Value::as_u64)
        .map(|l| l as usize)
}

/// The first difference between regroup's and Kafka's output of the same script, if any.
pub fn first_divergence(regroup: &RunOutput, kafka: &RunOutput) -> Option<Divergence> {
    let a = normalise(&regroup.lines);
    let b = normalise(&kafka.lines);
    for i in 0..a.len().max(b.len()) {
        let (x, y) = (a.get(i), b.get(i));
        if x != y {
            return Some(Divergence {
                index: i,
                script_line: script_line_of(x).or(script_line_of(y)),
                regroup: x.cloned(),
                kafka: y.cloned(),
                what: match (x, y) {
                    (Some(_), None) => "regroup printed more lines".into(),
                    (None, Some(_)) => "Kafka printed more lines".into(),
                    _ => describe_difference(
                        x.unwrap_or(&Value::Null),
                        y.unwrap_or(&Value::Null),
                        "",
                    ),
                },
            });
        }
    }
    match (regroup.error_line(), kafka.error_line()) {
        (a, b) if a == b => None,
        _ => Some(Divergence {
            index: a.len(),
            regroup: regroup.error.clone().map(Value::String),
            kafka: kafka.error.clone().map(Value::String),
            script_line: regroup.error_line().or(kafka.error_line()),
            what: "the runners rejected different lines".into(),
        }),
    }
}

/// The path of the first difference inside two JSON values, e.g. `response.members[1].memberId`.
pub fn describe_difference(a: &Value, b: &Value, path: &str) -> String {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, v) in x {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                match y.get(k) {
                    None => return format!("{p}: only regroup has it"),
                    Some(w) if w != v => return describe_difference(v, w, &p),
                    _ => {}
                }
            }
            for k in y.keys() {
                if !x.contains_key(k) {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    return format!("{p}: only Kafka has it");
                }
            }
            format!("{path}: equal")
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (v, w)) in x.iter().zip(y).enumerate() {
                if v != w {
                    return describe_difference(v, w, &format!("{path}[{i}]"));
                }
            }
            format!(
                "{path}: {} elements in regroup, {} in Kafka",
                x.len(),
                y.len()
            )
        }
        _ => format!("{path}: regroup {a}, Kafka {b}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn completions_of_one_step_compare_in_line_order() {
        let regroup = vec![
            json!({"at": 5, "line": 9, "response": {"e": 0}, "records": []}),
            json!({"at": 5, "line": 4, "response": {"x": 1}}),
            json!({"at": 5, "line": 3, "response": {"x": 2}}),
            json!({"at": 6, "timer": "t", "records": []}),
            json!({"at": 6, "line": 2, "response": {}}),
        ];
        let kafka = vec![
            regroup[0].clone(),
            regroup[2].clone(),
            regroup[1].clone(),
            regroup[3].clone(),
            regroup[4].clone(),
        ];
        let a = RunOutput {
            lines: regroup,
            error: None,
        };
        let b = RunOutput {
            lines: kafka,
            error: None,
        };
        assert_eq!(first_divergence(&a, &b), None);
        // But a completion moving to another step is a difference.
        let mut c = b.clone();
        c.lines.swap(3, 4);
        let d = first_divergence(&a, &c).unwrap();
        assert_eq!(d.index, 1);
    }

    #[test]
    fn endpoint_partitions_compare_by_topic() {
        let a = RunOutput::parse(r#"{"at":1,"line":3,"response":{"partitionsByUserEndpoint":[{"userEndpoint":{"host":"h","port":1},"activePartitions":[{"topic":"b","partitions":[0]},{"topic":"a","partitions":[1]}],"standbyPartitions":[]}]},"records":[]}"#).unwrap();
        let b = RunOutput::parse(r#"{"at":1,"line":3,"response":{"partitionsByUserEndpoint":[{"userEndpoint":{"host":"h","port":1},"activePartitions":[{"topic":"a","partitions":[1]},{"topic":"b","partitions":[0]}],"standbyPartitions":[]}]},"records":[]}"#).unwrap();
        assert_eq!(first_divergence(&a, &b), None);
        let c = RunOutput::parse(r#"{"at":1,"line":3,"response":{"partitionsByUserEndpoint":[{"userEndpoint":{"host":"h","port":1},"activePartitions":[{"topic":"a","partitions":[2]},{"topic":"b","partitions":[0]}],"standbyPartitions":[]}]},"records":[]}"#).unwrap();
        assert!(first_divergence(&a, &c).is_some());
    }

    #[test]
    fn a_cleanup_compares_group_by_group_keeping_each_groups_order() {
        let line = |records: &str| {
            RunOutput::parse(&format!(
                r#"{{"at":600000,"timer":"expire-group-metadata","records":[{records}]}}"#
            ))
            .unwrap()
        };
        let (g1a, g1b, g2) = (
            r#"{"type":"OffsetCommit","key":{"group":"g1","topic":"t","partition":0},"value":null}"#,
            r#"{"type":"GroupMetadata","key":{"group":"g1"},"value":null}"#,
            r#"{"type":"StreamsGroupMetadata","key":{"groupId":"g2"},"value":null}"#,
        );
        let ours = line(&format!("{g1a},{g1b},{g2}"));
        assert_eq!(
            first_divergence(&ours, &line(&format!("{g2},{g1a},{g1b}"))),
            None
        );
        // Inside one group the order still counts.
        assert!(first_divergence(&ours, &line(&format!("{g1b},{g1a},{g2}"))).is_some());
        // Other timers' records are compared as written.
        let other = |records: &str| {
            RunOutput::parse(&format!(r#"{{"at":1,"timer":"t","records":[{records}]}}"#)).unwrap()
        };
        assert!(
            first_divergence(
                &other(&format!("{g1a},{g2}")),
                &other(&format!("{g2},{g1a}"))
            )
            .is_some()
        );
    }

    #[test]
    fn records_of_generated_members_compare_sorted_by_member_id() {
        let line = |records: &str| {
            RunOutput::parse(&format!(
                r#"{{"at":1,"line":3,"response":null,"records":[{records}]}}"#
            ))
            .unwrap()
        };
        let mm = |m: &str| {
            format!(
                r#"{{"type":"ConsumerGroupMemberMetadata","key":{{"groupId":"g","memberId":"{m}"}},"value":{{"x":1}}}}"#
            )
        };
        let (a, b, named, other) = (mm("$gen:3"), mm("$gen:4"), mm("m1"), mm("m2"));
        // A run holding a generated id is compared as a set.
        assert_eq!(
            first_divergence(&line(&format!("{a},{b}")), &line(&format!("{b},{a}"))),
            None
        );
        // Named members alone keep their order.
        assert!(
            first_divergence(
                &line(&format!("{named},{other}")),
                &line(&format!("{other},{named}"))
            )
            .is_some()
        );
        // The members of a downgrade's GroupMetadata compare sorted, the leader as it is.
        let gm = |members: &str| {
            format!(
                r#"{{"type":"ConsumerGroupMetadata","key":{{"groupId":"g"}},"value":null}},{{"type":"GroupMetadata","key":{{"group":"g"}},"value":{{"leader":"$gen:3","members":[{members}]}}}}"#
            )
        };
        let (ma, mb) = (r#"{"memberId":"$gen:3"}"#, r#"{"memberId":"$gen:4"}"#);
        assert_eq!(
            first_divergence(
                &line(&gm(&format!("{ma},{mb}"))),
                &line(&gm(&format!("{mb},{ma}")))
            ),
            None
        );
    }

    #[test]
    fn the_first_differing_field_is_named() {
        let a = RunOutput::parse(r#"{"at":1,"line":3,"response":{"errorCode":0,"members":[{"memberId":"a"}]},"records":[]}"#).unwrap();
        let b = RunOutput::parse(r#"{"at":1,"line":3,"response":{"errorCode":0,"members":[{"memberId":"b"}]},"records":[]}"#).unwrap();
        let d = first_divergence(&a, &b).unwrap();
        assert_eq!(d.script_line, Some(3));
        assert_eq!(
            d.what,
            r#"response.members[0].memberId: regroup "a", Kafka "b""#
        );
    }

    #[test]
    fn errors_compare_by_line_only() {
        let a =
            RunOutput::parse("{\"at\":0}\n{\"error\":\"line 4: unknown api \\\"X\\\"\"}").unwrap();
        assert_eq!(a.error_line(), Some(4));
        assert_eq!(a.lines.len(), 1);
        let b = RunOutput {
            lines: a.lines.clone(),
            error: Some("line 4: something else".into()),
        };
        assert_eq!(first_divergence(&a, &b), None);
        let c = RunOutput {
            lines: a.lines.clone(),
            error: None,
        };
        assert_eq!(
            first_divergence(&a, &c).unwrap().what,
            "the runners rejected different lines"
        );
    }
}

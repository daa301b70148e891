//! `regroup assign [FILE|-]`: runs the sticky task assignor on a JSON description of a streams group,
//! or, when the input says `"kind":"consumer"`, a consumer-group assignor (`uniform` or `range`) on a
//! consumer group (the format is in [`crate::consumer_assign_cli`]). With `--lines` the kinds may mix.
//!
//! Streams input (one JSON object, `"kind":"streams"` optional; with `--lines`, one per line):
//!
//! ```json
//! {"subtopologies":[{"id":"s0","tasks":4,"stateful":true}],
//!  "numStandbyReplicas":1,
//!  "members":[{"memberId":"m1","processId":"p1",
//!              "activeTasks":{"s0":[0,1]},"standbyTasks":{},"warmupTasks":{}}]}
//! ```
//!
//! Optional fields: top level `rackAwareAssignmentTags` (list of strings); per member `instanceId`,
//! `rackId`, `clientTags` (object of strings), `taskOffsets` and `taskEndOffsets`
//! (`{"s0":{"0":120,"1":7}}`: subtopology -> partition -> offset). `numStandbyReplicas` defaults to 0 and
//! each task set to empty. Members are handed to the assignor in the order listed (the order the
//! coordinator would insert them into its member map).
//!
//! Output: `{"members":{"m1":{"activeTasks":{"s0":[0]},"standbyTasks":{"s0":[1]},"warmupTasks":{}}}}`,
//! member ids, subtopology ids and partitions sorted.
//!
//! `--kafka-bug NAME` (repeatable) runs the assignor with a Kafka bug switch on (KAFKA-20899,
//! KAFKA-20719: the 4.2/4.3 logic; others have no effect here), e.g. to compare with Kafka 4.3.0's
//! jar (`conformance/assignor-43`).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::io::{BufRead, Read, Write};
use std::marker::PhantomData;

use coordinator::streams::assignor::{
    self, AssignmentConfigs, GroupAssignment, GroupSpec, MemberSpec, SubtopologySpec, TaskOffsets,
    Tasks, TopologyDescriber,
};
use kafka_bugs::{KafkaBug, KafkaBugs};
use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

/// Arguments of `regroup assign`.
#[derive(Debug, clap::Args)]
pub struct AssignArgs {
    /// Input file, or `-` (the default) for standard input.
    #[arg(default_value = "-")]
    pub input: String,
    /// Read one input per line and print one output per line; a line whose assignment fails prints
    /// `{"error":"..."}` and the command exits 2 at the end.
    #[arg(long)]
    pub lines: bool,
    /// Switch a Kafka bug on (repeatable; `regroup bugs` lists them).
    #[arg(long = "kafka-bug", value_name = "NAME", value_parser = crate::bugs_cli::parse_bug)]
    pub kafka_bug: Vec<KafkaBug>,
}

/// The value of `"kind"` for a streams group (the default when absent).
pub const STREAMS_KIND: &str = "streams";

/// Exit status for invalid input.
pub const EXIT_INVALID_INPUT: i32 = 2;

/// Runs the command; returns the process exit status.
pub fn run(args: &AssignArgs) -> i32 {
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let bugs = KafkaBugs::of(args.kafka_bug.iter().copied());
    let result = if args.lines {
        run_lines(&args.input, &mut out, &bugs)
    } else {
        run_one(&args.input, &mut out, &bugs)
    };
    match result {
        Ok(status) => status,
        Err(message) => {
            eprintln!("regroup assign: {message}");
            EXIT_INVALID_INPUT
        }
    }
}

fn open(input: &str) -> Result<Box<dyn BufRead>, String> {
    if input == "-" {
        Ok(Box::new(std::io::BufReader::new(std::io::stdin())))
    } else {
        let file = std::fs::File::open(input).map_err(|e| format!("cannot open {input}: {e}"))?;
        Ok(Box::new(std::io::BufReader::new(file)))
    }
}

fn run_one(input: &str, out: &mut impl Write, bugs: &KafkaBugs) -> Result<i32, String> {
    let mut text = String::new();
    open(input)?
        .read_to_string(&mut text)
        .map_err(|e| format!("cannot read {input}: {e}"))?;
    let output = assign_json_with_bugs(&text, bugs)?;
    writeln!(out, "{output}").map_err(|e| format!("cannot write output: {e}"))?;
    Ok(0)
}

fn run_lines(input: &str, out: &mut impl Write, bugs: &KafkaBugs) -> Result<i32, String> {
    let mut status = 0;
    for (n, line) in open(input)?.lines().enumerate() {
        let line = line.map_err(|e| format!("cannot read {input}: {e}"))?;
        if line.trim().is_empty() {
            continue;
        }
        let output = assign_json_with_bugs(&line, bugs).unwrap_or_else(|message| {
            eprintln!("regroup assign: line {}: {message}", n + 1);
            status = EXIT_INVALID_INPUT;
            serde_json::json!({ "error": message }).to_string()
        });
        writeln!(out, "{output}").map_err(|e| format!("cannot write output: {e}"))?;
    }
    Ok(status)
}

/// Parses one input document, runs the assignor and renders the output document.
pub fn assign_json(text: &str) -> Result<String, String> {
    assign_json_with_bugs(text, &KafkaBugs::none())
}

/// [`assign_json`] with Kafka bug switches on (the streams assignor's; a consumer-group input ignores them).
pub fn assign_json_with_bugs(text: &str, bugs: &KafkaBugs) -> Result<String, String> {
    // `"kind"` picks the group type: absent or "streams" for a streams group, "consumer" for a consumer
    // group (crate::consumer_assign_cli). Each format is then read from the text itself, so that a key
    // given twice is still caught.
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("invalid input: {e}"))?;
    match value.get("kind") {
        None => {}
        Some(serde_json::Value::String(kind)) if kind == STREAMS_KIND => {}
        Some(serde_json::Value::String(kind)) if kind == crate::consumer_assign_cli::KIND => {
            return crate::consumer_assign_cli::assign_json(text);
        }
        Some(other) => {
            return Err(format!(
                "invalid input: unknown kind {other} (\"streams\" or \"consumer\")"
            ));
        }
    }
    let input: AssignInput =
        serde_json::from_str(text).map_err(|e| format!("invalid input: {e}"))?;
    let (group, topology) = input.into_spec()?;
    let assignment =
        assignor::assign_with_bugs(&group, &topology, bugs).map_err(|e| e.to_string())?;
    Ok(serde_json::to_string(&AssignOutput::from(assignment))
        .expect("serialising maps of strings cannot fail"))
}

/// The input document of `group` and `topology`, the inverse of what `regroup assign` reads:
/// members in the group's order, optional fields only when set.
pub fn input_json(group: &GroupSpec, topology: &TopologyDescriber) -> String {
    use serde_json::{Map, Value, json};
    let tasks = |t: &Tasks| -> Value {
        t.iter()
            .map(|(sub, parts)| (sub.clone(), json!(parts.iter().collect::<Vec<_>>())))
            .collect::<Map<_, _>>()
            .into()
    };
    let offsets = |o: &TaskOffsets| -> Value {
        o.iter()
            .map(|(sub, parts)| {
                let by_partition: Map<String, Value> = parts
                    .iter()
                    .map(|(p, off)| (p.to_string(), json!(off)))
                    .collect();
                (sub.clone(), Value::Object(by_partition))
            })
            .collect::<Map<_, _>>()
            .into()
    };
    let members: Vec<Value> = group
        .members
        .iter()
        .map(|m| {
            let mut o = Map::new();
            o.insert("memberId".into(), json!(m.member_id));
            o.insert("processId".into(), json!(m.process_id));
            if let Some(i) = &m.instance_id {
                o.insert("instanceId".into(), json!(i));
            }
            if let Some(r) = &m.rack_id {
                o.insert("rackId".into(), json!(r));
            }
            if !m.client_tags.is_empty() {
                o.insert("clientTags".into(), json!(m.client_tags));
            }
            o.insert("activeTasks".into(), tasks(&m.active_tasks));
            o.insert("standbyTasks".into(), tasks(&m.standby_tasks));
            o.insert("warmupTasks".into(), tasks(&m.warmup_tasks));
            if !m.task_offsets.is_empty() {
                o.insert("taskOffsets".into(), offsets(&m.task_offsets));
            }
            if !m.task_end_offsets.is_empty() {
                o.insert("taskEndOffsets".into(), offsets(&m.task_end_offsets));
            }
            Value::Object(o)
        })
        .collect();
    let subtopologies: Vec<Value> = topology
        .subtopologies
        .iter()
        .map(|(id, s)| json!({"id": id, "tasks": s.num_tasks, "stateful": s.stateful}))
        .collect();
    let mut doc = Map::new();
    doc.insert("subtopologies".into(), Value::Array(subtopologies));
    doc.insert(
        "numStandbyReplicas".into(),
        json!(group.configs.num_standby_replicas),
    );
    if !group.configs.rack_aware_assignment_tags.is_empty() {
        doc.insert(
            "rackAwareAssignmentTags".into(),
            json!(group.configs.rack_aware_assignment_tags),
        );
    }
    doc.insert("members".into(), Value::Array(members));
    Value::Object(doc).to_string()
}

/// The output document `regroup assign --lines` prints for `result` (an assignor error as
/// `{"error": message}`, as Kafka's harness prints its `TaskAssignorException`).
pub fn output_json(result: &Result<GroupAssignment, String>) -> String {
    match result {
        Ok(a) => serde_json::to_string(&AssignOutput::from(a.clone()))
            .expect("serialising maps of strings cannot fail"),
        Err(message) => serde_json::json!({ "error": message }).to_string(),
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct AssignInput {
    /// `"streams"` or absent (checked by [`assign_json_with_bugs`]).
    #[serde(default)]
    #[allow(dead_code)]
    kind: Option<String>,
    subtopologies: Vec<SubtopologyInput>,
    #[serde(default)]
    num_standby_replicas: i32,
    #[serde(default)]
    rack_aware_assignment_tags: Vec<String>,
    members: Vec<MemberInput>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SubtopologyInput {
    id: String,
    tasks: i32,
    stateful: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct MemberInput {
    member_id: String,
    process_id: String,
    #[serde(default)]
    instance_id: Option<String>,
    #[serde(default)]
    rack_id: Option<String>,
    #[serde(default)]
    client_tags: UniqueMap<String, String>,
    #[serde(default)]
    active_tasks: UniqueMap<String, Vec<i32>>,
    #[serde(default)]
    standby_tasks: UniqueMap<String, Vec<i32>>,
    #[serde(default)]
    warmup_tasks: UniqueMap<String, Vec<i32>>,
    #[serde(default)]
    task_offsets: UniqueMap<String, UniqueMap<i32, i64>>,
    #[serde(default)]
    task_end_offsets: UniqueMap<String, UniqueMap<i32, i64>>,
}

impl AssignInput {
    fn into_spec(self) -> Result<(GroupSpec, TopologyDescriber), String> {
        let mut topology = TopologyDescriber::default();
        for s in self.subtopologies {
            let spec = SubtopologySpec {
                num_tasks: s.tasks,
                stateful: s.stateful,
            };
            if topology.subtopologies.insert(s.id.clone(), spec).is_some() {
                return Err(format!("duplicate subtopology id {:?}", s.id));
            }
        }
        let members = self
            .members
            .into_iter()
            .map(|m| {
                let id = m.member_id.clone();
                Ok(MemberSpec {
                    active_tasks: tasks(&id, "activeTasks", m.active_tasks)?,
                    standby_tasks: tasks(&id, "standbyTasks", m.standby_tasks)?,
                    warmup_tasks: tasks(&id, "warmupTasks", m.warmup_tasks)?,
                    task_offsets: offsets(m.task_offsets),
                    task_end_offsets: offsets(m.task_end_offsets),
                    member_id: m.member_id,
                    process_id: m.process_id,
                    instance_id: m.instance_id,
                    rack_id: m.rack_id,
                    client_tags: m.client_tags.0,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let configs = AssignmentConfigs {
            num_standby_replicas: self.num_standby_replicas,
            rack_aware_assignment_tags: self.rack_aware_assignment_tags,
        };
        Ok((GroupSpec { members, configs }, topology))
    }
}

fn tasks(member: &str, field: &str, input: UniqueMap<String, Vec<i32>>) -> Result<Tasks, String> {
    input
        .0
        .into_iter()
        .map(|(sub, list)| {
            let mut set = BTreeSet::new();
            for p in list {
                if !set.insert(p) {
                    return Err(format!(
                        "member {member:?}: partition {p} of {sub:?} listed twice in {field}"
                    ));
                }
            }
            Ok((sub, set))
        })
        .collect()
}

fn offsets(input: UniqueMap<String, UniqueMap<i32, i64>>) -> TaskOffsets {
    input.0.into_iter().map(|(sub, o)| (sub, o.0)).collect()
}

#[derive(Serialize)]
struct AssignOutput {
    members: BTreeMap<String, MemberOutput>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct MemberOutput {
    active_tasks: Tasks,
    standby_tasks: Tasks,
    warmup_tasks: Tasks,
}

impl From<GroupAssignment> for AssignOutput {
    fn from(a: GroupAssignment) -> Self {
        let members = a
            .to_map()
            .into_iter()
            .map(|(id, m)| {
                let out = MemberOutput {
                    active_tasks: m.active_tasks,
                    standby_tasks: m.standby_tasks,
                    warmup_tasks: Tasks::new(),
                };
                (id, out)
            })
            .collect();
        AssignOutput { members }
    }
}

/// A JSON object read into a sorted map that rejects a key given twice (serde's maps keep the last one).
#[derive(Debug)]
struct UniqueMap<K, V>(BTreeMap<K, V>);

impl<K, V> Default for UniqueMap<K, V> {
    fn default() -> Self {
        UniqueMap(BTreeMap::new())
    }
}

impl<'de, K, V> Deserialize<'de> for UniqueMap<K, V>
where
    K: Deserialize<'de> + Ord + fmt::Debug,
    V: Deserialize<'de>,
{
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct UniqueVisitor<K, V>(PhantomData<(K, V)>);

        impl<'de, K, V> Visitor<'de> for UniqueVisitor<K, V>
        where
            K: Deserialize<'de> + Ord + fmt::Debug,
            V: Deserialize<'de>,
        {
            type Value = UniqueMap<K, V>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut map = BTreeMap::new();
                while let Some((k, v)) = access.next_entry::<K, V>()? {
                    if map.contains_key(&k) {
                        return Err(de::Error::custom(format!("duplicate key {k:?}")));
                    }
                    map.insert(k, v);
                }
                Ok(UniqueMap(map))
            }
        }

        deserializer.deserialize_map(UniqueVisitor(PhantomData))
    }
}

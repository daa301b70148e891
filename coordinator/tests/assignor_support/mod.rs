//! Shared by the assignor test suites: the `regroup assign` JSON format on the test side (to state
//! scenarios and Kafka's answers compactly), and the §6.6 invariants every assignment must satisfy.

#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};

use coordinator::streams::assignor::{
    AssignmentConfigs, AssignorError, GroupAssignment, GroupSpec, MemberSpec, SubtopologySpec,
    TaskOffsets, Tasks, TopologyDescriber,
};
use serde_json::Value;

/// Parses the `regroup assign` input format (the fields the scenarios use).
pub fn parse(input: &str) -> (GroupSpec, TopologyDescriber) {
    let v: Value = serde_json::from_str(input).expect("valid JSON");
    let mut topology = TopologyDescriber::default();
    for s in v["subtopologies"].as_array().expect("subtopologies") {
        topology.subtopologies.insert(
            s["id"].as_str().expect("id").to_string(),
            SubtopologySpec {
                num_tasks: s["tasks"].as_i64().expect("tasks") as i32,
                stateful: s["stateful"].as_bool().expect("stateful"),
            },
        );
    }
    let members = v["members"]
        .as_array()
        .expect("members")
        .iter()
        .map(|m| MemberSpec {
            active_tasks: tasks(&m["activeTasks"]),
            standby_tasks: tasks(&m["standbyTasks"]),
            warmup_tasks: tasks(&m["warmupTasks"]),
            task_offsets: offsets(&m["taskOffsets"]),
            ..MemberSpec::new(
                m["memberId"].as_str().expect("memberId"),
                m["processId"].as_str().expect("processId"),
            )
        })
        .collect();
    let configs = AssignmentConfigs {
        num_standby_replicas: v["numStandbyReplicas"].as_i64().unwrap_or(0) as i32,
        ..AssignmentConfigs::default()
    };
    (GroupSpec { members, configs }, topology)
}

fn tasks(v: &Value) -> Tasks {
    let Some(obj) = v.as_object() else {
        return Tasks::new();
    };
    obj.iter()
        .map(|(k, list)| {
            (
                k.clone(),
                list.as_array()
                    .expect("list")
                    .iter()
                    .map(|p| p.as_i64().expect("int") as i32)
                    .collect(),
            )
        })
        .collect()
}

fn offsets(v: &Value) -> TaskOffsets {
    let Some(obj) = v.as_object() else {
        return TaskOffsets::new();
    };
    obj.iter()
        .map(|(k, m)| {
            let parts = m.as_object().expect("object");
            (
                k.clone(),
                parts
                    .iter()
                    .map(|(p, o)| (p.parse().expect("partition"), o.as_i64().expect("offset")))
                    .collect(),
            )
        })
        .collect()
}

/// Renders a result in the `regroup assign` output format (or `{"error":...}`).
pub fn render(result: &Result<GroupAssignment, AssignorError>) -> String {
    match result {
        Err(e) => serde_json::json!({ "error": e.to_string() }).to_string(),
        Ok(a) => {
            let members: serde_json::Map<String, Value> = a
                .to_map()
                .into_iter()
                .map(|(id, m)| {
                    let v = serde_json::json!({
                        "activeTasks": m.active_tasks,
                        "standbyTasks": m.standby_tasks,
                        "warmupTasks": {},
                    });
                    (id, v)
                })
                .collect();
            serde_json::json!({ "members": members }).to_string()
        }
    }
}

/// Checks the invariants of streams-protocol.md §6.6 that hold for every input; returns a description of
/// the first violation.
pub fn check_invariants(
    group: &GroupSpec,
    topology: &TopologyDescriber,
    a: &GroupAssignment,
) -> Result<(), String> {
    let member_ids: BTreeSet<&str> = group.members.iter().map(|m| m.member_id.as_str()).collect();
    let map = a.to_map();
    let assigned_ids: BTreeSet<&str> = map.keys().map(String::as_str).collect();
    if member_ids != assigned_ids {
        return Err("the assignment must have exactly one entry per member".into());
    }
    let process: BTreeMap<&str, &str> = group
        .members
        .iter()
        .map(|m| (m.member_id.as_str(), m.process_id.as_str()))
        .collect();
    let processes: BTreeSet<&str> = process.values().copied().collect();
    let mut active_owner: BTreeMap<(&str, i32), &str> = BTreeMap::new();
    let mut copies_on_process: BTreeMap<(&str, i32, &str), u32> = BTreeMap::new();
    let mut standby_count: BTreeMap<(&str, i32), i32> = BTreeMap::new();
    let total: i64 = topology
        .subtopologies
        .values()
        .map(|s| i64::from(s.num_tasks))
        .sum();
    let quota = if member_ids.is_empty() {
        0
    } else {
        (total + member_ids.len() as i64 - 1) / member_ids.len() as i64
    };
    for (id, m) in &map {
        let p = process[id.as_str()];
        let mut actives = 0i64;
        for (sub, parts) in &m.active_tasks {
            let spec = topology
                .subtopologies
                .get(sub)
                .ok_or(format!("{id}: unknown subtopology {sub}"))?;
            for &part in parts {
                if part < 0 || part >= spec.num_tasks {
                    return Err(format!("{id}: task {sub}_{part} does not exist"));
                }
                if let Some(other) = active_owner.insert((sub, part), id) {
                    return Err(format!("task {sub}_{part} is active on {other} and {id}"));
                }
                *copies_on_process.entry((sub, part, p)).or_default() += 1;
                actives += 1;
            }
        }
        if actives > quota {
            return Err(format!(
                "{id} has {actives} active tasks, above the quota {quota}"
            ));
        }
        for (sub, parts) in &m.standby_tasks {
            let spec = topology
                .subtopologies
                .get(sub)
                .ok_or(format!("{id}: unknown subtopology {sub}"))?;
            if !spec.stateful {
                return Err(format!("{id}: standby of stateless subtopology {sub}"));
            }
            for &part in parts {
                if m.active_tasks.get(sub).is_some_and(|s| s.contains(&part)) {
                    return Err(format!("{id} holds {sub}_{part} as active and standby"));
                }
                *copies_on_process.entry((sub, part, p)).or_default() += 1;
                *standby_count.entry((sub, part)).or_default() += 1;
            }
        }
    }
    if let Some(((sub, part, p), n)) = copies_on_process.iter().find(|(_, n)| **n > 1) {
        return Err(format!("process {p} holds {n} copies of {sub}_{part}"));
    }
    let n = group.configs.num_standby_replicas;
    let expected_standbys = n.min(processes.len() as i32 - 1).max(0);
    for (sub, spec) in &topology.subtopologies {
        for part in 0..spec.num_tasks {
            if !member_ids.is_empty() && !active_owner.contains_key(&(sub.as_str(), part)) {
                return Err(format!("task {sub}_{part} has no active owner"));
            }
            let standbys = standby_count
                .get(&(sub.as_str(), part))
                .copied()
                .unwrap_or(0);
            let expected = if spec.stateful { expected_standbys } else { 0 };
            if standbys != expected {
                return Err(format!(
                    "task {sub}_{part} has {standbys} standbys, expected {expected}"
                ));
            }
        }
    }
    Ok(())
}

//! The summary of one run that the snapshot tests pin down (YAML under `snapshots/`): final
//! groups (members by client name, epochs, tasks or partitions), how often each group's epoch or
//! generation changed, fencings, errors by code, faults, time to converge. Everything in it comes
//! from simulated time and the seeded run — no wall clock, no raw trace — and every list and map
//! is sorted.

use std::collections::BTreeMap;

use coordinator::Record;
use coordinator::events::EventKind as ClusterKind;
use members::observer::EventKind as ClientKind;
use protocol::ErrorCode;
use serde::Serialize;
use sim::event::SimEventKind;
use sim::invariants::Violation;
use sim::runner::{FaultCount, RunOutcome};

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Summary {
    pub scenario: String,
    pub seed: u64,
    pub passed: bool,
    /// `invariant at <ms>: detail`.
    pub violations: Vec<String>,
    pub faults: BTreeMap<String, FaultCount>,
    /// When the last fault window ended (simulated ms).
    pub heal_ms: u64,
    /// How long after the final heal every group had converged (simulated ms).
    pub converged_after_heal_ms: Option<i64>,
    pub groups: Vec<GroupSnap>,
    /// Client fencings (`Fenced` events) by error code.
    pub fencings: BTreeMap<String, u32>,
    /// Error codes in responses the clients received.
    pub errors: BTreeMap<String, u32>,
    /// Offset commits refused by the coordinator, by error code.
    pub commits_rejected: BTreeMap<String, u32>,
    pub brokers: BrokerSnap,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct GroupSnap {
    pub group: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    /// Group epoch (streams) or generation (classic) at the end.
    pub epoch: i32,
    /// How many times the committed epoch (generation) changed during the run.
    pub epoch_changes: u32,
    pub members: Vec<MemberSnap>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MemberSnap {
    /// The client (`<process host>/StreamThread-<n>`, `<process host>/consumer-<n>`).
    pub client: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
    pub epoch: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub standby: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub partitions: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct BrokerSnap {
    pub registrations: u32,
    pub fenced: u32,
    pub unfenced: u32,
    pub heartbeats_rejected: u32,
    pub coordinator_loads: u32,
}

impl Summary {
    pub fn of(
        scenario: &str,
        seed: u64,
        outcome: &RunOutcome,
        heal_ms: u64,
        violations: &[Violation],
    ) -> Summary {
        let mut names: BTreeMap<&str, &str> = BTreeMap::new();
        let mut fencings = BTreeMap::new();
        let mut errors = BTreeMap::new();
        let mut commits_rejected = BTreeMap::new();
        let mut epochs: BTreeMap<(&str, bool), (i32, u32)> = BTreeMap::new();
        let mut brokers = BrokerSnap::default();
        let bump = |m: &mut BTreeMap<String, u32>, e: ErrorCode| {
            *m.entry(e.name().to_string()).or_default() += 1;
        };
        for e in &outcome.log {
            match &e.kind {
                SimEventKind::Client {
                    client,
                    member_id,
                    kind,
                } => {
                    if !member_id.is_empty() {
                        names.insert(member_id.as_str(), client.name.as_str());
                    }
                    match kind {
                        ClientKind::Fenced { error, .. } => bump(&mut fencings, *error),
                        ClientKind::ResponseReceived { error: Some(e), .. }
                            if *e != ErrorCode::None =>
                        {
                            bump(&mut errors, *e)
                        }
                        ClientKind::CommitRejected { error, .. } => {
                            bump(&mut commits_rejected, *error)
                        }
                        _ => {}
                    }
                }
                SimEventKind::Record { record, .. } => {
                    let (group, epoch, streams) = match record {
                        Record::StreamsGroupMetadata {
                            key,
                            value: Some(v),
                        } => (key.group_id.as_str(), v.epoch, true),
                        Record::GroupMetadata {
                            key,
                            value: Some(v),
                        } => (key.group.as_str(), v.generation, false),
                        _ => continue,
                    };
                    let entry = epochs.entry((group, streams)).or_insert((epoch, 0));
                    if entry.0 != epoch {
                        *entry = (epoch, entry.1 + 1);
                    }
                }
                SimEventKind::Cluster { kind, .. } => match kind {
                    ClusterKind::BrokerRegistered { .. } => brokers.registrations += 1,
                    ClusterKind::BrokerFenced { .. } => brokers.fenced += 1,
                    ClusterKind::BrokerUnfenced { .. } => brokers.unfenced += 1,
                    ClusterKind::HeartbeatRejected { .. } => brokers.heartbeats_rejected += 1,
                    ClusterKind::CoordinatorLoaded { .. } => brokers.coordinator_loads += 1,
                    _ => {}
                },
                _ => {}
            }
        }
        let groups = outcome
            .groups
            .iter()
            .map(|g| {
                let mut members: Vec<MemberSnap> = g
                    .members
                    .iter()
                    .map(|m| MemberSnap {
                        client: names
                            .get(m.member_id.as_str())
                            .map(|n| n.to_string())
                            .unwrap_or_else(|| format!("unknown member {}", m.member_id)),
                        instance: m.instance_id.clone(),
                        epoch: m.epoch,
                        active: m.active_tasks.clone(),
                        standby: m.standby_tasks.clone(),
                        partitions: m.partitions.clone(),
                    })
                    .collect();
                members.sort_by(|a, b| a.client.cmp(&b.client));
                GroupSnap {
                    group: g.group_id.clone(),
                    kind: g.kind,
                    epoch: g.epoch,
                    epoch_changes: epochs
                        .get(&(g.group_id.as_str(), g.kind == "streams"))
                        .map(|e| e.1)
                        .unwrap_or(0),
                    members,
                }
            })
            .collect();
        Summary {
            scenario: scenario.to_string(),
            seed,
            passed: violations.is_empty(),
            violations: violations
                .iter()
                .map(|v| format!("{} at {}: {}", v.invariant.name(), v.at_ms, v.detail))
                .collect(),
            faults: outcome.faults.clone(),
            heal_ms,
            converged_after_heal_ms: outcome.converged_at_ms.map(|t| t - heal_ms as i64),
            groups,
            fencings,
            errors,
            commits_rejected,
            brokers,
        }
    }
}

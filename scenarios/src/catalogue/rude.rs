//! The rude client: requests no modelled client sends (bad heartbeats, old versions, offsets of
//! unknown partitions, oversized metadata, transactional commits, static rejoins below JoinGroup
//! v9, a streams join on a classic group's id and a classic join on a streams group's), sent over
//! the simulated network and held to the answers Kafka 4.4.0 gives.
//!
//! The requests and their answers are one corpus script of the differential oracle,
//! `conformance/corpus/rude-client.jsonl` (written by `make_corpus.py`): `regroup conformance`
//! holds its `expect`s against Kafka's own coordinator, this scenario holds the same `expect`s
//! against what regroup's brokers answer through the simulated network ([`sim::rude`]). The two
//! cannot drift apart: both read the same file.

use sim::event::AdminAnswer;
use sim::faults::{FaultKind, FaultWindow, GroupAdminCall, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec};

use super::check::View;
use super::{Expect, Faults, Scenario};
use crate::conformance::expect;

/// The script, as the oracle runs it.
pub const SCRIPT: &str = include_str!("../../../conformance/corpus/rude-client.jsonl");

/// The rude admin's script: CreateTopics and CreatePartitions requests the controller must refuse
/// or answer in its own way (invalid and colliding names, bad partition counts and replication
/// factors, duplicates in one request, validate-only, manual assignments, old versions). The coordinator oracle has no controller, so its
/// `expect`s are what a real Kafka 4.4.0 cluster answered: `regroup drive rude-admin --cluster
/// real-kafka` holds them against that cluster again (docs/real-kafka.md).
pub const ADMIN_SCRIPT: &str = include_str!("../../../conformance/real_kafka/rude-admin.jsonl");

/// The rude client's second script: rules no modelled client reaches, each shown by an answer (a
/// dynamic classic member that does not rejoin in time, a static streams member's rack change, a
/// heartbeat without a rebalance timeout past the join, a heartbeat below v1 with rack-aware tags
/// configured, a rejoin with another topology epoch older than the group's); `make_corpus.py`'s
/// `rude_corners`, held to Kafka 4.4.0 by `regroup conformance`.
pub const CORNERS_SCRIPT: &str = include_str!("../../../conformance/corpus/rude-corners.jsonl");

/// The group the rude corners' host fault names (its requests name their own groups).
const CORNERS_GROUP: &str = "rude-corners";

/// The rude client's third script: a member that gives up a standby task and nothing else keeps
/// its epoch while it still reports the standby (`make_corpus.py`'s `rude_standbys`, held to Kafka
/// 4.4.0 by `regroup conformance`); one standby replica configured.
pub const STANDBYS_SCRIPT: &str = include_str!("../../../conformance/corpus/rude-standbys.jsonl");

/// The group the rude standbys' host fault names.
const STANDBYS_GROUP: &str = "rude-standbys";

/// The rude client's fourth script: three standby replicas over four processes and two stateful
/// tasks, so every process holds every task (`make_corpus.py`'s `rude_replicas`, held to Kafka
/// 4.4.0 by `regroup conformance`).
pub const REPLICAS_SCRIPT: &str = include_str!("../../../conformance/corpus/rude-replicas.jsonl");

/// The group the rude replicas' host fault names.
const REPLICAS_GROUP: &str = "rude-replicas";

/// The rude corners' streams group, whose coordinator fails over after the script.
const STREAMS_GROUP: &str = "rude-srack";

/// The group the rude admin's host fault names (CreateTopics names none; any broker forwards it).
const ADMIN_GROUP: &str = "rude-admin";

/// The group the admin host's fault names (its requests name their own groups).
const GROUP: &str = "rude-client";

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "rude-client",
            description: "beside a consumer group, a rude client sends the oracle's rude-client \
                      script (StreamsGroupHeartbeat validation, the broker's topology checks, \
                      fetches and commits with wrong members and epochs, unknown partitions and \
                      topic ids, oversized metadata, TxnOffsetCommit by version, pending \
                      transactional offsets, JoinGroup v3 and LeaveGroup v1, static rejoins at \
                      JoinGroup v5 and v9, one group id for both group types, a streams member's \
                      metadata changed past its join, offsets expiring by an explicit retention \
                      and by a version-0 subscription at the first clean-up, 10 minutes in): \
                      every answer holds \
                      what Kafka 4.4.0's coordinator answers",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_topic("foo", 3)
                    .with_topic("bar", 3)
                    .with_topic("rude-topo-changelog", 3)
                    .with_classic(ClassicGroupSpec::new("orders-app", &["orders"], 2, 1))
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    15_000,
                    FaultKind::GroupAdmin {
                        group: GROUP.into(),
                        call: GroupAdminCall::Scripted {
                            script: SCRIPT.into(),
                        },
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 760_000,
                ..Expect::default()
            },
            check: |v| script_check(v, SCRIPT, GROUP, "conformance/corpus/rude-client.jsonl"),
        },
        Scenario {
            name: "rude-corners",
            description: "a rude client sends the oracle's rude-corners script: a second dynamic \
                      classic member joins a Stable group whose only member never rejoins (its \
                      rebalance timeout shorter than its session), a static streams member \
                      changes its rack, then revokes a task past a heartbeat that carried no \
                      rebalance timeout, and a member joins with a heartbeat below v1 while \
                      rack-aware assignment tags are configured, a consumer group takes an \
                      offsets-only group's id, a member rejoins with an older topology epoch \
                      than its own: every answer holds what Kafka \
                      4.4.0's coordinator answers; then the streams group's coordinator crashes \
                      while a member still revokes, and the next one loads it",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("foo", 3)
                    .with_broker_config("group.streams.rack.aware.assignment.tags", "zone")
            },
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::GroupAdmin {
                            group: CORNERS_GROUP.into(),
                            call: GroupAdminCall::Scripted {
                                script: CORNERS_SCRIPT.into(),
                            },
                        },
                    ),
                    // After the script (about 60 s in), while rude-s1 still revokes a task (until
                    // its rebalance timeout, about 86 s): the coordinator that takes over loads a
                    // member in UNREVOKED_TASKS, whose timers `coordinator-load` checks.
                    FaultWindow::at(
                        68_000,
                        FaultKind::Crash {
                            host: HostRef::coordinator_of(STREAMS_GROUP),
                        },
                    )
                    .lasting(20_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 120_000,
                ..Expect::default()
            },
            check: |v| {
                script_check(
                    v,
                    CORNERS_SCRIPT,
                    CORNERS_GROUP,
                    "conformance/corpus/rude-corners.jsonl",
                )
            },
        },
        Scenario {
            name: "rude-standbys",
            description: "a rude client sends the oracle's rude-standbys script: with one standby \
                      replica, a third process joins and a member must give up a standby task \
                      and nothing else; it keeps its epoch while it still reports the standby, \
                      and moves on once it reports it gone; a fetch of every offset of a \
                      16-partition topic lists them in Kafka's map order: every answer holds what Kafka \
                      4.4.0's coordinator answers",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("foo", 3)
                    .with_topic("rude-sb-changelog", 3)
                    .with_topic("rude-wide", 16)
                    .with_broker_config("group.streams.num.standby.replicas", 1)
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    15_000,
                    FaultKind::GroupAdmin {
                        group: STANDBYS_GROUP.into(),
                        call: GroupAdminCall::Scripted {
                            script: STANDBYS_SCRIPT.into(),
                        },
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 60_000,
                ..Expect::default()
            },
            check: |v| {
                script_check(
                    v,
                    STANDBYS_SCRIPT,
                    STANDBYS_GROUP,
                    "conformance/corpus/rude-standbys.jsonl",
                )
            },
        },
        Scenario {
            name: "rude-replicas",
            description: "a rude client sends the oracle's rude-replicas script: with three \
                      standby replicas (the maximum raised to three), four processes join a \
                      group of two stateful tasks, and every process holds every task, active \
                      or standby: every answer holds what Kafka 4.4.0's coordinator answers",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("foo", 2)
                    .with_topic("rude-rp-changelog", 2)
                    .with_broker_config("group.streams.max.standby.replicas", 3)
                    .with_broker_config("group.streams.num.standby.replicas", 3)
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    15_000,
                    FaultKind::GroupAdmin {
                        group: REPLICAS_GROUP.into(),
                        call: GroupAdminCall::Scripted {
                            script: REPLICAS_SCRIPT.into(),
                        },
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45_000,
                ..Expect::default()
            },
            check: |v| {
                script_check(
                    v,
                    REPLICAS_SCRIPT,
                    REPLICAS_GROUP,
                    "conformance/corpus/rude-replicas.jsonl",
                )
            },
        },
        Scenario {
            name: "rude-admin",
            description: "a rude admin sends CreateTopics and CreatePartitions requests no modelled \
                      client sends (empty, '.', '..', too long and illegal names, a name colliding \
                      with an existing one, zero and negative partition counts and replication \
                      factors, more replicas than brokers, defaults, a name twice in one request, \
                      validate-only, the internal topics, counts that are no increase, unknown \
                      topics, bad manual assignments, every version): every answer holds what a \
                      real Kafka 4.4.0 cluster answered",
            default_seed: 1,
            cluster: || ClusterSpec::default().with_topic("orders", 3),
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    5_000,
                    FaultKind::GroupAdmin {
                        group: ADMIN_GROUP.into(),
                        call: GroupAdminCall::Scripted {
                            script: ADMIN_SCRIPT.into(),
                        },
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 20_000,
                ..Expect::default()
            },
            check: |v| {
                script_check(
                    v,
                    ADMIN_SCRIPT,
                    ADMIN_GROUP,
                    "conformance/real_kafka/rude-admin.jsonl",
                )
            },
        },
    ]
}

/// Every request line of `script` was answered, and every answer holds the line's `expect`.
pub(crate) fn script_check(v: &View, script: &str, group: &str, path: &str) -> Result<(), String> {
    let lines: Vec<String> = script.lines().map(str::to_string).collect();
    let requests = sim::rude::requests(script)?;
    let expectations = expect::of_script(&lines)?;
    let answers = v.admin_answers(group);
    let mut answered = std::collections::BTreeMap::new();
    for (_, _, answer) in &answers {
        match answer {
            AdminAnswer::Scripted { line, response } => {
                let json: serde_json::Value = serde_json::from_str(response)
                    .map_err(|e| format!("line {line}: the logged response is not JSON: {e}"))?;
                answered.insert(*line, json);
            }
            AdminAnswer::ScriptedFailed { line, reason } => {
                return Err(format!("script line {line} got no answer: {reason}"));
            }
            other => return Err(format!("an answer that is not the script's: {other:?}")),
        }
    }
    if answered.len() != requests.len() {
        return Err(format!(
            "{} of the script's {} requests were answered",
            answered.len(),
            requests.len()
        ));
    }
    for e in &expectations {
        if let Some(why) = expect::mismatch(&e.response, answered.get(&e.line), "") {
            return Err(format!(
                "script line {}: {why} ({path}; Kafka 4.4.0 answers as expected)",
                e.line
            ));
        }
    }
    Ok(())
}

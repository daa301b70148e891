//! Targeted scenarios of the assignor bug switches: KAFKA-20899 (a standby's previous holder lost
//! when the first listed one just got the active) and KAFKA-20719 (a cold start that ignores the
//! state on the members' disks). Both bugs only make the assignment less sticky, which no global
//! invariant looks at, so each scenario's own check asserts the stickiness the fix guarantees.

use std::collections::{BTreeMap, BTreeSet};

use members::observer::EventKind as ClientKind;
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClusterSpec, StreamsAppSpec};

use crate::catalogue::basic::stateful_topology;
use crate::catalogue::check::{View, ensure, host};
use crate::catalogue::{Expect, Faults, Scenario, stop_process};

const APP: &str = "app";

fn h(index: usize) -> String {
    host(APP, index)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "bug-standby-behind-new-active",
            description: "8 processes x 1 thread, 16 stateful tasks with two standbys each; \
                          process 0 leaves for good at 20 s: each of its tasks becomes active on \
                          one of its standby holders, and its other standby holder, which lacks \
                          it, keeps its standby (KAFKA-20899; two replicas, because with one a \
                          task has a single current standby holder)",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("input", 16).with_streams(
                    StreamsAppSpec::new(APP, stateful_topology(APP), 8, 1).with_standbys(2),
                )
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    20_000,
                    FaultKind::RemoveProcess {
                        host: HostRef::process(APP, 0),
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                ..Expect::default()
            },
            check: standby_behind_new_active,
        },
        Scenario {
            name: "bug-cold-start-not-sticky",
            description: "3 processes x 1 thread join one after another (0 s, 8 s, 16 s) and \
                          own 6 stateful tasks; at 30 s the whole application closes and comes \
                          back 5 s later with fresh member ids and its state on disk: every task \
                          whose state only one process has becomes that process's active again \
                          (KAFKA-20719)",
            default_seed: 1,
            cluster: || {
                let mut app =
                    StreamsAppSpec::new(APP, stateful_topology(APP), 3, 1).with_dormant([1, 2]);
                // The restarted members all join before the first assignment is computed.
                app.initial_rebalance_delay_ms = 3_000;
                ClusterSpec::default()
                    .with_topic("input", 6)
                    .with_streams(app)
            },
            faults: Faults::Schedule(|| {
                let mut v = vec![
                    FaultWindow::at(
                        8_000,
                        FaultKind::StartProcess {
                            host: HostRef::process(APP, 1),
                        },
                    ),
                    FaultWindow::at(
                        16_000,
                        FaultKind::StartProcess {
                            host: HostRef::process(APP, 2),
                        },
                    ),
                ];
                v.extend((0..3).map(|i| stop_process(APP, i, 30_000, 5_000)));
                v
            }),
            expect: Expect {
                faults_injected: true,
                ..Expect::default()
            },
            check: cold_start_sticky,
        },
    ]
}

/// One process's tasks: (active, standby).
type Roles = (BTreeSet<String>, BTreeSet<String>);

/// Each process's tasks in the final state, by process index.
fn final_roles(v: &View, processes: usize) -> Result<Vec<Roles>, String> {
    let names = v.member_names();
    let g = v.group(APP)?;
    let mut out = vec![(BTreeSet::new(), BTreeSet::new()); processes];
    for m in &g.members {
        let Some(name) = names.get(&m.member_id) else {
            continue;
        };
        if let Some(i) = (0..processes).find(|i| name.starts_with(&format!("{}/", h(*i)))) {
            out[i].0.extend(m.active_tasks.iter().cloned());
            out[i].1.extend(m.standby_tasks.iter().cloned());
        }
    }
    Ok(out)
}

/// Processes of `bug-standby-behind-new-active`.
const PROCESSES: usize = 8;

/// KAFKA-20899's guarantee: when a task's active goes to one of its previous standby holders, the
/// other previous standby holder (whose process lacks the task) keeps its standby. (The fix gives
/// it the standby while it is under the total quota, ceil(16 x 3 / 7) = 7 tasks; the scenario is
/// sized so that a member holds at most 2 or 3 actives and its previous standbys, 4 or 5, when the
/// standbys are placed, so it always has room.)
fn standby_behind_new_active(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("remove-process")?;
    let gone = v.process_owned_at(&h(0), at - 1);

    ensure(gone.len() == 2, || format!("process 0 owned {gone:?}"))?;
    let roles = final_roles(v, PROCESSES)?;
    let mut promoted = 0;
    for task in &gone {
        let holders: Vec<usize> = (1..PROCESSES)
            .filter(|i| v.standby_at(&h(*i), at - 1).contains(task))
            .collect();
        ensure(holders.len() == 2, || {
            format!("task {task} had standbys on processes {holders:?}")
        })?;
        let Some(&active) = holders.iter().find(|i| roles[**i].0.contains(task)) else {
            continue;
        };
        promoted += 1;
        let other = holders
            .iter()
            .copied()
            .find(|i| *i != active)
            .expect("two holders");
        ensure(roles[other].1.contains(task), || {
            format!(
                "task {task}: active now on process {active} (a previous standby holder); the \
                 other previous standby holder, process {other}, lost its standby (it holds \
                 active {:?}, standby {:?})",
                roles[other].0, roles[other].1
            )
        })?;
    }
    ensure(promoted >= 1, || "no standby was promoted".into())
}

/// The tasks whose state process `i`'s clients certainly have on disk before `before_ms`: owned
/// as active when one of their commits covering the task's partition was accepted.
fn state_on_disk(v: &View, i: usize, before_ms: i64) -> BTreeSet<String> {
    let mut owned: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    let mut out = BTreeSet::new();
    for (t, name, kind) in v.client_events(&h(i)) {
        if t >= before_ms {
            break;
        }
        match kind {
            ClientKind::OwnedTasks { active, .. } => {
                owned.insert(name, active.iter().map(|t| t.to_string()).collect());
            }
            ClientKind::CommitAccepted { offsets, .. } => {
                for (tp, _) in offsets {
                    let task = format!("0_{}", tp.partition);
                    if tp.topic == "input" && owned.get(name).is_some_and(|o| o.contains(&task)) {
                        out.insert(task);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// Every task process `i` owned as active at some point before `before_ms` (a superset of the
/// tasks whose state it can have).
fn ever_owned(v: &View, i: usize, before_ms: i64) -> BTreeSet<String> {
    v.client_events(&h(i))
        .filter(|(t, _, _)| *t < before_ms)
        .filter_map(|(_, _, k)| match k {
            ClientKind::OwnedTasks { active, .. } => Some(active),
            _ => None,
        })
        .flatten()
        .map(|t| t.to_string())
        .collect()
}

/// KAFKA-20719's guarantee: on a cold start, a task whose state only one process has (so only
/// it reports an offset for it) becomes that process's active, when the process has room under
/// its active quota (2 of the 6 tasks; the scenario checks that it does).
fn cold_start_sticky(v: &View) -> Result<(), String> {
    let stops = v.injections("stop-process");
    ensure(stops.len() == 3, || format!("{} stops", stops.len()))?;
    let at = stops[0].0;
    let roles = final_roles(v, 3)?;
    let mut checked = 0;
    for (i, (active, _)) in roles.iter().enumerate() {
        let others: BTreeSet<String> = (0..3)
            .filter(|j| *j != i)
            .flat_map(|j| ever_owned(v, j, at))
            .collect();
        let only_here: BTreeSet<String> = state_on_disk(v, i, at)
            .into_iter()
            .filter(|t| !others.contains(t))
            .collect();
        ensure(only_here.len() <= 2, || {
            format!("process {i} alone has the state of {only_here:?}: more than its quota")
        })?;
        let missing: Vec<&String> = only_here.difference(active).collect();
        ensure(missing.is_empty(), || {
            format!(
                "process {i} alone had the state of {only_here:?}, but after the restart it \
                 runs {active:?}: {missing:?} moved away from their state"
            )
        })?;
        checked += only_here.len();
    }
    ensure(checked >= 1, || {
        "no task had its state on exactly one process".into()
    })
}

//! Targeted scenarios of the classic bug switches KAFKA-8500 and KAFKA-8220. Each passes on Kafka
//! 4.4.0; the bug it was written for makes it fail.
//!
//! The group is `billing` on `orders` (6 partitions), static consumers with 10 s sessions and 1 s
//! heartbeats, as in catalogue/classic.rs.

use members::observer::EventKind as ClientKind;
use protocol::ErrorCode;
use sim::spec::{ClassicGroupSpec, ClusterSpec};

use crate::catalogue::check::{View, ensure, host};
use crate::catalogue::{Expect, Faults, Scenario, start_process};

const GROUP: &str = "billing";

fn h(index: usize) -> String {
    host(GROUP, index)
}

fn cluster(g: ClassicGroupSpec) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 6)
        .with_classic(g)
}

/// Five processes, 3 and 4 dormant; process 3 has the instance id of process `duplicated`.
fn duplicate_cluster(duplicated: usize) -> ClusterSpec {
    let mut g = ClassicGroupSpec::new(GROUP, &["orders"], 5, 1)
        .with_static_membership()
        .with_dormant([3, 4]);
    g.instance_ids_of.insert(3, duplicated);
    cluster(g)
}

/// Four processes, 3 dormant, with a 5 s rebalance timeout (`max.poll.interval.ms`), shorter
/// than the 10 s session.
fn short_rebalance_cluster() -> ClusterSpec {
    let mut g = ClassicGroupSpec::new(GROUP, &["orders"], 4, 1)
        .with_static_membership()
        .with_dormant([3]);
    g.max_poll_interval_ms = 5_000;
    cluster(g)
}

/// The process whose instance id process 3 duplicates.
const DUPLICATED: usize = 2;

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "bug-duplicate-instance-while-rebalancing",
            description: "process 1 closes for 30 s at 20 s and a new consumer (process 4) joins at \
                          22 s, so the join phase waits for process 1's session to expire; at \
                          25 s process 3 starts with the instance id of process 2, whose JoinGroup \
                          is parked: Kafka 4.4 gives the newcomer a new member id and fences \
                          process 2 (FENCED_INSTANCE_ID); before KAFKA-8500's fix the newcomer \
                          took process 2's member id and dropped its JoinGroup, and the two \
                          went on taking the id from each other, one rebalance per request \
                          timeout",
            default_seed: 1,
            cluster: || duplicate_cluster(DUPLICATED),
            faults: Faults::Schedule(|| {
                vec![
                    crate::catalogue::stop_process(GROUP, 1, 20_000, 30_000),
                    start_process(GROUP, 4, 22_000),
                    start_process(GROUP, 3, 25_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                members: &[(GROUP, 4)],
                ..Expect::default()
            },
            check: duplicate_instance_while_rebalancing,
        },
        Scenario {
            name: "bug-static-restart-misses-rebalance",
            description: "rebalance timeout 5 s, sessions 10 s: process 1 closes at 20 s for 7 s and \
                          a new consumer (process 3) joins at 21 s; the join phase times out \
                          without process 1, and Kafka 4.4 keeps it, so its return at 27 s \
                          replaces its member id without a rebalance (one new generation in \
                          all); before KAFKA-8220's fix it was removed at the timeout and its \
                          return started another rebalance",
            default_seed: 1,
            cluster: short_rebalance_cluster,
            faults: Faults::Schedule(|| {
                vec![
                    crate::catalogue::stop_process(GROUP, 1, 20_000, 7_000),
                    start_process(GROUP, 3, 21_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                ..Expect::default()
            },
            check: static_restart_misses_rebalance,
        },
    ]
}

fn duplicate_instance_while_rebalancing(v: &View) -> Result<(), String> {
    let starts = v.injections("start-process");
    ensure(starts.len() == 2, || format!("{} starts", starts.len()))?;
    let at = starts[1].0;
    let fenced = v.client_events(&h(DUPLICATED)).any(|(t, _, k)| {
        t >= at
            && matches!(
                k,
                ClientKind::Fenced {
                    error: ErrorCode::FencedInstanceId,
                    ..
                } | ClientKind::Fatal {
                    error: Some(ErrorCode::FencedInstanceId),
                    ..
                }
            )
    });
    ensure(fenced, || {
        format!("process {DUPLICATED} was not fenced by its duplicate")
    })?;
    let instance = format!("{GROUP}-{DUPLICATED}-0");
    let g = v.group(GROUP)?;
    let names = v.member_names();
    let holder = g
        .members
        .iter()
        .find(|m| m.instance_id.as_deref() == Some(instance.as_str()))
        .ok_or_else(|| format!("instance {instance} left the group"))?;
    let client = names.get(&holder.member_id).cloned().unwrap_or_default();
    ensure(client.starts_with(&format!("{}/", h(3))), || {
        format!("{instance} is held by {client}")
    })
}

fn static_restart_misses_rebalance(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("start-process")?;
    let before = v.epoch_at(GROUP, at - 1);
    let after: Vec<(i64, i32)> = v
        .generations(GROUP)
        .into_iter()
        .filter(|(t, _)| *t >= at)
        .collect();
    ensure(after.len() == 1 && after[0].1 == before + 1, || {
        format!(
            "generation {before} before the newcomer, then {after:?}: the restarted static \
             consumer cost a rebalance"
        )
    })?;
    ensure(!v.process_owned_final(GROUP, &h(1))?.is_empty(), || {
        "the restarted static consumer does not own its share".into()
    })
}

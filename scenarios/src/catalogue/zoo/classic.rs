//! Targeted scenarios of the classic bug switches. Both walk KIP-345's replacement of a static
//! member (a restarted process joins with its instance id and no member id) into the state whose
//! rule a fix changed (`update_static_member_then_rebalance` in coordinator/src/classic/join.rs).
//!
//! Each group is `billing` on `orders` (6 partitions), one static consumer per process, 10 s
//! sessions, 1 s heartbeats, a 20 s rebalance timeout and 5 s request timeouts.

use coordinator::events::EventKind as ClusterKind;
use members::observer::EventKind as ClientKind;
use protocol::{Api, ErrorCode};
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec};

use crate::catalogue::check::{View, ensure, host};
use crate::catalogue::{Expect, Faults, Scenario, start_process, stop_process};

const GROUP: &str = "billing";

fn h(index: usize) -> String {
    host(GROUP, index)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "bug-static-restart-while-completing",
            description: "KAFKA-9801: a static consumer restarts after the join responses went \
                          out and before the leader's SyncGroup (the leader's links held): the \
                          coordinator must rebalance again, not hand the leader's assignment for \
                          the old member id to nobody",
            default_seed: 1,
            cluster: || {
                // Process 0 starts alone and leads; 1 and 2 join it; 3 starts the rebalance.
                let g = ClassicGroupSpec::new(GROUP, &["orders"], 4, 1)
                    .with_static_membership()
                    .with_dormant([1, 2, 3]);
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_classic(g)
            },
            faults: Faults::Schedule(|| {
                vec![
                    start_process(GROUP, 1, 6_000),
                    start_process(GROUP, 2, 6_000),
                    // Consumer 1 is away while a rebalance starts, so the join phase waits for
                    // its instance.
                    stop_process(GROUP, 1, 20_000, 3_500),
                    start_process(GROUP, 3, 21_000),
                    // The leader has rejoined; its next answers arrive 4 s late.
                    FaultWindow::at(
                        22_500,
                        FaultKind::Hold {
                            a: vec![HostRef::process(GROUP, 0)],
                            b: vec![HostRef::Brokers],
                        },
                    )
                    .lasting(4_000),
                    // Consumer 1's return completes the join phase at 23.5 s; consumer 2
                    // restarts at 25 s, while the leader has not yet synced.
                    stop_process(GROUP, 2, 24_500, 500),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                ..Expect::default()
            },
            check: restart_while_completing,
        },
        Scenario {
            name: "bug-static-restart-then-failover",
            description: "KAFKA-10284: a static consumer restarts while its group is Stable (its \
                          new member id is written), then the coordinator crashes: the next \
                          coordinator knows the new id and the group keeps its generation",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("orders", 6).with_classic(
                    ClassicGroupSpec::new(GROUP, &["orders"], 3, 1).with_static_membership(),
                )
            },
            faults: Faults::Schedule(|| {
                vec![
                    // Consumer 1 restarts at 22 s and is answered at once (Stable). The
                    // coordinator crashes at 23 s, before its first auto-commit and before any
                    // other GroupMetadata write.
                    stop_process(GROUP, 1, 20_000, 2_000),
                    FaultWindow::at(
                        23_000,
                        FaultKind::Crash {
                            host: HostRef::coordinator_of(GROUP),
                        },
                    )
                    .lasting(12_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                ..Expect::default()
            },
            check: restart_then_failover,
        },
    ]
}

/// The generations of the JoinGroup answers the clients of `host` got from `from_ms` on.
fn join_generations(v: &View, host: &str, from_ms: i64) -> Vec<i32> {
    v.client_events(host)
        .filter(|(t, _, _)| *t >= from_ms)
        .filter_map(|(_, _, k)| match k {
            ClientKind::Joined { epoch } => Some(*epoch),
            _ => None,
        })
        .collect()
}

fn restart_while_completing(v: &View) -> Result<(), String> {
    let stops = v.injections("stop-process");
    ensure(stops.len() == 2, || format!("{} stops", stops.len()))?;
    let (late, _) = stops[1];
    // The generation consumer 1's return completed, which the leader had not synced yet.
    let completing = join_generations(v, &h(1), stops[0].0)
        .first()
        .copied()
        .ok_or("consumer 1 never rejoined")?;
    let committed = v.epoch_at(GROUP, late);
    ensure(committed < completing, || {
        format!(
            "generation {completing} was already committed ({committed}) when consumer 2 \
             restarted"
        )
    })?;
    let answers = join_generations(v, &h(2), late);
    ensure(answers.first().is_some_and(|g| *g > completing), || {
        format!(
            "consumer 2's restart during generation {completing} was answered with {answers:?}: \
             no new rebalance"
        )
    })?;
    for i in 0..4 {
        ensure(!v.process_owned_final(GROUP, &h(i))?.is_empty(), || {
            format!("consumer {i} owns nothing at the end")
        })?;
    }
    Ok(())
}

fn restart_then_failover(v: &View) -> Result<(), String> {
    let (stopped, _) = v.injected("stop-process")?;
    let (crashed, hosts) = v.injected("crash")?;
    let generation = v.epoch_at(GROUP, stopped - 1);
    ensure(v.epoch_at(GROUP, crashed) == generation, || {
        format!(
            "generation {generation} before the restart, {} at the crash",
            v.epoch_at(GROUP, crashed)
        )
    })?;
    let old: i32 = hosts[0].trim_start_matches("broker-").parse().unwrap_or(-1);
    let partition = coordinator::broker::placement::partition_for(GROUP, 3);
    let loaded = v.cluster_events().any(|(t, node, k)| {
        t > crashed
            && node != old
            && matches!(k, ClusterKind::CoordinatorLoaded { partition: p, .. } if *p == partition)
    });
    ensure(loaded, || "no other broker loaded the group".into())?;
    let fenced: Vec<(i64, ErrorCode)> = v
        .response_errors(&h(1))
        .into_iter()
        .filter(|(t, e)| *t >= stopped && *e == ErrorCode::FencedInstanceId)
        .collect();
    ensure(fenced.is_empty(), || {
        format!("the restarted consumer was fenced: {fenced:?}")
    })?;
    let rejoined = v.client_events(&h(1)).any(|(t, _, k)| {
        t > stopped
            && matches!(k, ClientKind::ResponseReceived { api: Api::JoinGroup, error, .. } if error.is_none_or(|e| e == ErrorCode::None))
    });
    ensure(rejoined, || "the restarted consumer never rejoined".into())?;
    ensure(v.group(GROUP)?.epoch == generation, || {
        format!(
            "generation {generation} before the restart, {} at the end",
            v.group(GROUP).map(|g| g.epoch).unwrap_or(-1)
        )
    })?;
    for i in 0..3 {
        ensure(v.process_owned_final(GROUP, &h(i))?.len() == 2, || {
            format!("consumer {i} does not own its share at the end")
        })?;
    }
    Ok(())
}

//! The KRaft broker lifecycle under the groups: heartbeat lapses and fencing, controlled
//! shutdown, restarts with new broker epochs, a rolling restart of every broker.
//!
//! Kafka's defaults: `broker.session.timeout.ms` 9000, `broker.heartbeat.interval.ms` 2000; the
//! controller scans for expired sessions every session / 8 = 1125 ms.

use std::collections::BTreeMap;

use coordinator::events::{EventKind as ClusterKind, FenceReason};
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

use super::basic::stateful_topology;
use super::check::{View, ensure, host};
use super::{Expect, Faults, Scenario};

fn injected() -> Expect {
    Expect {
        faults_injected: true,
        ..Expect::default()
    }
}

/// A streams group and a static classic group sharing 3 brokers.
fn groups() -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("input", 6)
        .with_topic("orders", 6)
        .with_streams(StreamsAppSpec::new("app", stateful_topology("app"), 2, 2).with_standbys(1))
        .with_classic(ClassicGroupSpec::new("billing", &["orders"], 2, 1).with_static_membership())
}

fn broker_id(host: &str) -> i32 {
    sim::cluster::broker_id_of(host).unwrap_or(-1)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "broker-heartbeat-lapse",
            description: "broker 3 loses the controller for 15 s: it is fenced 9.0-10.125 s \
                          after its last heartbeat and unfenced with the same epoch when it is \
                          back",
            default_seed: 1,
            cluster: groups,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::FenceBroker {
                            broker: HostRef::Broker(3),
                        },
                    )
                    .lasting(15_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45000,
                ..Expect::default()
            },
            check: heartbeat_lapse,
        },
        Scenario {
            name: "broker-controlled-shutdown",
            description: "the streams group's coordinator shuts down in a controlled way: its \
                          offsets partitions move to other brokers before it stops; it restarts \
                          10 s later",
            default_seed: 1,
            cluster: groups,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::ControlledShutdown {
                            broker: HostRef::coordinator_of("app"),
                        },
                    )
                    .lasting(10_000),
                ]
            }),
            expect: injected(),
            check: controlled_shutdown,
        },
        Scenario {
            name: "broker-restart-epoch",
            description: "broker 2 crashes and restarts: it registers with a higher broker \
                          epoch, and a late heartbeat carrying its old epoch gets \
                          STALE_BROKER_EPOCH",
            default_seed: 1,
            cluster: groups,
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::Crash {
                            host: HostRef::Broker(2),
                        },
                    )
                    .lasting(3_000),
                    FaultWindow::at(
                        40_000,
                        FaultKind::StaleBrokerHeartbeat {
                            broker: HostRef::Broker(2),
                        },
                    ),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45000,
                ..Expect::default()
            },
            check: restart_epoch,
        },
        Scenario {
            name: "broker-rolling-restart",
            description: "every broker crashes and restarts in turn (5 s down, 20 s apart) while \
                          a streams group and a classic group keep committing",
            default_seed: 1,
            cluster: groups,
            faults: Faults::Schedule(|| {
                (1..=3)
                    .map(|b| {
                        FaultWindow::at(
                            15_000 + 20_000 * (b as u64 - 1),
                            FaultKind::Crash {
                                host: HostRef::Broker(b),
                            },
                        )
                        .lasting(5_000)
                    })
                    .collect()
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 85000,
                ..Expect::default()
            },
            check: rolling_restart,
        },
        Scenario {
            name: "offsets-under-min-isr",
            description: "with min.insync.replicas 2, brokers 2 and 3 crash together for 25 s: \
                          once they are fenced every offsets partition is led by broker 1 alone, \
                          the one fenced second eligible (the first left an ISR still at min \
                          ISR); the high watermark stays, so no group \
                          write commits and none is acknowledged until a restarted broker is \
                          back in sync; their unclean restarts take them out of the ELR first",
            default_seed: 1,
            cluster: || groups().with_broker_config("min.insync.replicas", 2),
            faults: Faults::Schedule(|| {
                [2, 3]
                    .map(|b| {
                        FaultWindow::at(
                            15_000,
                            FaultKind::Crash {
                                host: HostRef::Broker(b),
                            },
                        )
                        .lasting(25_000)
                    })
                    .to_vec()
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 70_000,
                ..Expect::default()
            },
            check: under_min_isr,
        },
        Scenario {
            name: "broker-preferred-leader-election",
            description: "leader.imbalance.check.interval.seconds 10: broker 2 crashes at 12 s \
                          for 3 s and loses its leaderships; once it is back in sync, the \
                          controller's periodic balance task (every 10 s from its activation) \
                          gives each partition back to its preferred replica at its next run",
            default_seed: 1,
            cluster: || groups().with_broker_config("leader.imbalance.check.interval.seconds", 10),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        12_000,
                        FaultKind::Crash {
                            host: HostRef::Broker(2),
                        },
                    )
                    .lasting(3_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45_000,
                ..Expect::default()
            },
            check: preferred_leader_election,
        },
    ]
}

fn heartbeat_lapse(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("fence-broker")?;
    let healed = v.healed("fence-broker")?;
    let (fenced_at, epoch, last_contact) = v
        .cluster_events()
        .find_map(|(t, _, k)| match k {
            ClusterKind::BrokerFenced {
                broker: 3,
                epoch,
                reason: FenceReason::SessionExpired,
                last_contact_ms,
            } => Some((t, *epoch, *last_contact_ms)),
            _ => None,
        })
        .ok_or("broker 3 was never fenced")?;
    // The controller's clock is turmoil's plus the fixed epoch.
    let last_contact =
        last_contact.ok_or("a session expiry without a last contact time")? - sim::net::EPOCH_MS;
    // The cut stopped the heartbeats: the last one reached the controller before it.
    ensure(last_contact <= at, || {
        format!("the controller heard from broker 3 at {last_contact} ms, after the cut at {at} ms")
    })?;
    // broker.session.timeout.ms = 9 s, and the stale-broker scan runs every 9 s / 8 = 1.125 s:
    // fenced 9.0-10.125 s after the last contact (plus one 10 ms tick of delivery rounding).
    let after = fenced_at - last_contact;
    ensure((9_000..=10_125 + 10).contains(&after), || {
        format!("fenced {after} ms after its last heartbeat reached the controller")
    })?;
    let unfenced = v.cluster_events().any(|(t, _, k)| {
        t >= healed
            && matches!(k, ClusterKind::BrokerUnfenced { broker: 3, epoch: e } if *e == epoch)
    });
    ensure(unfenced, || {
        "broker 3 was not unfenced with its epoch".into()
    })
}

fn controlled_shutdown(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("controlled-shutdown")?;
    let broker = broker_id(&hosts[0]);
    if v.driven {
        // The controller's and the brokers' events are not in a driven run's log: what the
        // clients see is the group's coordinator moving to another broker.
        return v.coordinator_moved("app", at - 1, broker);
    }
    let started = v.cluster_events().any(|(t, _, k)| {
        t >= at
            && matches!(k, ClusterKind::ControlledShutdownStarted { broker: b, .. } if *b == broker)
    });
    ensure(started, || "no controlled shutdown started".into())?;
    let stopped = v
        .cluster_events()
        .find(|(t, node, k)| *t >= at && *node == broker && matches!(k, ClusterKind::BrokerStopped))
        .map(|(t, _, _)| t)
        .ok_or("the broker never stopped")?;
    // Every offsets partition it led had a new leader before it stopped.
    let mut led: BTreeMap<i32, i32> = BTreeMap::new();
    for (t, _, k) in v.cluster_events() {
        if let ClusterKind::PartitionChanged {
            topic,
            partition,
            leader,
            ..
        } = k
            && topic == "__consumer_offsets"
        {
            // Leaders before the shutdown, then changes up to the stop of partitions it led.
            if t < at || (t <= stopped && led.get(partition) == Some(&broker)) {
                led.insert(*partition, *leader);
            }
        }
    }
    let still: Vec<i32> = led
        .iter()
        .filter(|(_, l)| **l == broker)
        .map(|(p, _)| *p)
        .collect();
    ensure(still.is_empty(), || {
        format!("broker {broker} still led offsets partitions {still:?} when it stopped")
    })?;
    let partition = coordinator::broker::placement::partition_for("app", 3);
    let moved = v.cluster_events().any(|(t, node, k)| {
        t >= at
            && t <= stopped
            && node != broker
            && matches!(k, ClusterKind::CoordinatorLoaded { partition: p, .. } if *p == partition)
    });
    ensure(moved, || {
        "the group's coordinator did not move before the stop".into()
    })
}

fn registrations(v: &View, broker: i32) -> Vec<(i64, i64)> {
    v.cluster_events()
        .filter_map(|(t, _, k)| match k {
            ClusterKind::BrokerRegistered {
                broker: b, epoch, ..
            } if *b == broker => Some((t, *epoch)),
            _ => None,
        })
        .collect()
}

fn restart_epoch(v: &View) -> Result<(), String> {
    v.injected("crash")?;
    let (stale_at, _) = v.injected("stale-broker-heartbeat")?;
    let regs = registrations(v, 2);
    ensure(
        regs.len() >= 2 && regs.windows(2).all(|w| w[1].1 > w[0].1),
        || format!("broker 2 registered with {regs:?}"),
    )?;
    let old = regs[regs.len() - 2].1;
    let rejected = v.cluster_events().any(|(t, _, k)| {
        t >= stale_at
            && matches!(k, ClusterKind::HeartbeatRejected { broker: 2, epoch, error } if *epoch == old && error == "STALE_BROKER_EPOCH")
    });
    ensure(rejected, || {
        format!("the heartbeat with old epoch {old} was not refused with STALE_BROKER_EPOCH")
    })
}

fn rolling_restart(v: &View) -> Result<(), String> {
    let crashes = v.injections("crash");
    ensure(crashes.len() == 3, || format!("{} crashes", crashes.len()))?;
    // Registrations are the controller's events, which a driven run's log does not have; its
    // check is the clients' half below.
    for b in (1..=3).filter(|_| !v.driven) {
        let regs = registrations(v, b);
        ensure(
            regs.len() >= 2 && regs.windows(2).all(|w| w[1].1 > w[0].1),
            || format!("broker {b} registered with {regs:?}"),
        )?;
    }
    let last = crashes[2].0;
    for h in [host("app", 0), host("billing", 0)] {
        ensure(v.commits_accepted(&h).iter().any(|t| *t > last), || {
            format!("{h} committed nothing after the last restart")
        })?;
        for (at, _) in &crashes {
            ensure(
                v.commits_accepted(&h)
                    .iter()
                    .any(|t| *t > *at && *t < at + 20_000),
                || format!("{h} committed nothing within 20 s of the crash at {at}"),
            )?;
        }
    }
    Ok(())
}

/// One `__consumer_offsets` partition change as the checks read it.
#[derive(Debug)]
struct OffsetsChange {
    at: i64,
    leader: i32,
    isr: Vec<i32>,
    /// Sorted.
    elr: Vec<i32>,
}

/// The changes of each `__consumer_offsets` partition, in order. Only that topic is replicated
/// by the simulated brokers (other topics' followers never fetch, so their ISRs only shrink).
fn offsets_changes(v: &View) -> BTreeMap<i32, Vec<OffsetsChange>> {
    let mut out: BTreeMap<i32, Vec<OffsetsChange>> = BTreeMap::new();
    for (at, _, k) in v.cluster_events() {
        if let ClusterKind::PartitionChanged {
            topic,
            partition,
            leader,
            isr,
            elr,
            ..
        } = k
            && topic == "__consumer_offsets"
        {
            let mut elr = elr.clone();
            elr.sort_unstable();
            out.entry(*partition).or_default().push(OffsetsChange {
                at,
                leader: *leader,
                isr: isr.clone(),
                elr,
            });
        }
    }
    out
}

fn under_min_isr(v: &View) -> Result<(), String> {
    let crashes = v.injections("crash");
    ensure(crashes.len() == 2, || format!("{} crashes", crashes.len()))?;
    let healed = v.healed("crash")?;
    let changes = offsets_changes(v);
    ensure(!changes.is_empty(), || {
        "no offsets partition changed".into()
    })?;
    // When each offsets partition was down to broker 1 alone, the broker fenced second eligible
    // (`maybePopulateTargetElr` keeps the replicas that leave an ISR below min ISR; the first
    // fence left 2 in sync).
    let alone_now = |c: &OffsetsChange| c.isr == [1] && (c.elr == [2] || c.elr == [3]);
    let mut last_alone = 0;
    for (p, list) in &changes {
        let alone = list
            .iter()
            .find(|c| alone_now(c))
            .map(|c| c.at)
            .ok_or_else(|| {
                format!(
                    "__consumer_offsets-{p} never had isr [1] with the broker fenced second as \
                     its elr: {list:?}"
                )
            })?;
        // Both restarts register uncleanly (a crash leaves no clean-shutdown epoch), and
        // `handleBrokerUncleanShutdown` takes each out of the ELR before it is back in sync.
        let emptied = list
            .iter()
            .find(|c| c.at > alone && c.isr == [1] && c.elr.is_empty())
            .map(|c| c.at)
            .ok_or_else(|| {
                format!(
                    "__consumer_offsets-{p}: the restarted brokers were not taken out of the \
                     ELR before rejoining the ISR: {list:?}"
                )
            })?;
        ensure(
            list.iter().any(|c| c.at > emptied && c.isr.len() >= 2),
            || format!("__consumer_offsets-{p} never had 2 in sync again: {list:?}"),
        )?;
        ensure(emptied >= healed, || {
            format!(
                "__consumer_offsets-{p} lost its ELR at {emptied}, before the restarts at {healed}"
            )
        })?;
        ensure(list.last().is_some_and(|c| c.isr.len() == 3), || {
            format!("__consumer_offsets-{p} did not end with 3 in sync: {list:?}")
        })?;
        last_alone = last_alone.max(alone);
    }
    // Under min ISR the leader's high watermark stays: group writes time out, and no commit is
    // acknowledged while every offsets partition is under it (from the last partition down to
    // broker 1 alone until the first with 2 in sync again; each has one, checked above).
    let first_regrown = changes
        .values()
        .filter_map(|l| l.iter().find(|c| c.at > last_alone && c.isr.len() >= 2))
        .map(|c| c.at)
        .min()
        .unwrap_or(i64::MAX);
    let timed_out = v
        .cluster_events()
        .filter(|(t, _, k)| {
            *t > last_alone
                && *t < first_regrown
                && matches!(k, ClusterKind::WriteFailed { error, .. } if error == "REQUEST_TIMED_OUT")
        })
        .count();
    ensure(timed_out > 0, || {
        format!("no group write timed out under min ISR ({last_alone}..{first_regrown} ms)")
    })?;
    for h in [
        host("app", 0),
        host("app", 1),
        host("billing", 0),
        host("billing", 1),
    ] {
        let acked = v.commits_accepted(&h);
        if let Some(t) = acked
            .iter()
            .find(|t| **t > last_alone && **t < first_regrown)
        {
            return Err(format!(
                "{h}'s commit was acknowledged at {t} ms, under min ISR ({last_alone}..{first_regrown} ms)"
            ));
        }
        ensure(acked.iter().any(|t| *t > first_regrown), || {
            format!("{h} committed nothing after the ISR regrew at {first_regrown} ms")
        })?;
    }
    Ok(())
}

fn preferred_leader_election(v: &View) -> Result<(), String> {
    const PERIOD_MS: i64 = 10_000;
    let (crashed_at, _) = v.injected("crash")?;
    let changes = offsets_changes(v);
    let mut moved = 0;
    for (p, list) in &changes {
        // A partition broker 2 led from its creation has it as its preferred (first) replica.
        if list.first().map(|c| (c.leader, c.at < crashed_at)) != Some((2, true)) {
            continue;
        }
        moved += 1;
        let away = list
            .iter()
            .find(|c| c.at >= crashed_at && c.leader != 2)
            .ok_or_else(|| {
                format!("__consumer_offsets-{p} stayed with broker 2 through its crash: {list:?}")
            })?
            .at;
        let in_sync = list
            .iter()
            .find(|c| c.at > away && c.isr.contains(&2))
            .ok_or_else(|| {
                format!("__consumer_offsets-{p}: broker 2 never back in its isr: {list:?}")
            })?
            .at;
        let back = list
            .iter()
            .find(|c| c.at > away && c.leader == 2)
            .ok_or_else(|| format!("__consumer_offsets-{p} never led by broker 2 again: {list:?}"))?
            .at;
        // `PeriodicTaskControlManager` runs the balance task every period from the
        // controller's activation (at 0 ms here): the first run after broker 2 is back in sync.
        let next_run = (in_sync / PERIOD_MS + 1) * PERIOD_MS;
        ensure(back >= next_run && back < next_run + 100, || {
            format!(
                "__consumer_offsets-{p}: broker 2 back in sync at {in_sync} ms led it again at {back} ms, \
                 not at the balance task's run at {next_run} ms: {list:?}"
            )
        })?;
    }
    ensure(moved > 0, || {
        format!("broker 2 led no partition before its crash: {changes:?}")
    })
}

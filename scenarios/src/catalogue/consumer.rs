//! Consumer groups on the consumer rebalance protocol (KIP-848): the simulated clients are Kafka's
//! `AsyncKafkaConsumer` (`members::consumer::AsyncConsumer`) and the coordinator assigns
//! (uniform by default). Cold start, scale out and in, static members bouncing within and past
//! their session, a zombie, lost heartbeat responses, a coordinator fail-over mid reconciliation,
//! classic and consumer groups side by side.
//!
//! Every group here is `payments` on `orders` (6 partitions), one consumer per process, 10 s
//! sessions, 1 s heartbeats, 20 s rebalance timeout, 2 s auto-commit.

use std::collections::BTreeSet;

use coordinator::Record;
use members::observer::EventKind as ClientKind;
use protocol::{Api, ErrorCode};
use sim::event::SimEventKind;
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec, ConsumerGroupSpec};

use super::check::{View, ensure, host};
use super::{Expect, Faults, Scenario, rolling_bounce, start_process};

/// The classic group of `consumer-mixed-with-classic`.
const BILLING: &str = "billing";

fn injected() -> Expect {
    Expect {
        faults_injected: true,
        ..Expect::default()
    }
}

fn stop(at: u64, index: usize, ms: u64) -> FaultWindow {
    super::stop_process(GROUP, index, at, ms)
}

const GROUP: &str = "payments";

/// When `consumer-regex-new-topic` creates the topic its pattern will pick up.
const REGEX_TOPIC_AT_MS: u64 = 20_000;

fn h(index: usize) -> String {
    host(GROUP, index)
}

fn group(processes: usize) -> ConsumerGroupSpec {
    ConsumerGroupSpec::new(GROUP, &["orders"], processes, 1)
}

fn cluster(g: ConsumerGroupSpec) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 6)
        .with_consumer(g)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "consumer-cold-start",
            description: "3 consumer-protocol consumers start together: each joins with epoch 0 \
                          and a member id it made itself, reconciles the uniform assignor's \
                          target (2 partitions each) and acknowledges; the group settles STABLE \
                          at one epoch",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::None,
            // The check wants a commit: the run lasts at least one auto-commit interval past the
            // joins (in real time, `regroup drive`, the group can settle before anything was
            // committed; the simulator converges at 3.02 s, after its first commits, either way).
            expect: Expect {
                min_duration_ms: 3_000,
                ..Expect::default()
            },
            check: cold_start,
        },
        Scenario {
            name: "consumer-scale-out",
            description: "a third consumer starts at 20 s: the group epoch is bumped, the two \
                          owners commit and revoke a partition each before the newcomer gets \
                          them (revoke-before-assign), 2 partitions each at the end",
            default_seed: 1,
            cluster: || cluster(group(3).with_dormant([2])),
            faults: Faults::Schedule(|| vec![start_process(GROUP, 2, 20_000)]),
            expect: injected(),
            check: scale_out,
        },
        Scenario {
            name: "consumer-scale-in",
            description: "one of three dynamic consumers closes for good at 20 s: it commits, \
                          revokes its partitions and leaves with epoch -1; the other two take \
                          3 partitions each",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    20_000,
                    FaultKind::RemoveProcess {
                        host: HostRef::process(GROUP, 2),
                    },
                )]
            }),
            expect: injected(),
            check: scale_in,
        },
        Scenario {
            name: "consumer-static-rolling-bounce",
            description: "3 static consumers close (leave with epoch -2) and restart one after \
                          another within their session: each returns with a new member id under \
                          its instance id and gets its partitions back without a new group epoch",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| rolling_bounce(GROUP, 3, 20_000, 10_000, 3_000)),
            expect: injected(),
            check: static_rolling_bounce,
        },
        Scenario {
            name: "consumer-dynamic-rolling-bounce",
            description: "3 dynamic consumers close (leave with epoch -1) and restart one after \
                          another: every close and every return bumps the group epoch",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::Schedule(|| rolling_bounce(GROUP, 3, 20_000, 15_000, 5_000)),
            expect: injected(),
            check: dynamic_rolling_bounce,
        },
        Scenario {
            name: "consumer-static-member-away",
            description: "a static consumer closes for 16 s, past its 10 s session: the group \
                          keeps its epoch for the session, then the coordinator removes it and \
                          bumps the epoch, and again when it returns",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| vec![stop(20_000, 1, 16_000)]),
            expect: injected(),
            check: static_member_away,
        },
        Scenario {
            name: "consumer-zombie",
            description: "a consumer's process is paused for 20 s (all links held): its session \
                          expires, its partitions go to the others; when it resumes, the \
                          coordinator answers it UNKNOWN_MEMBER_ID, it loses its partitions and \
                          rejoins with epoch 0 and the same member id",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        20_000,
                        FaultKind::Pause {
                            host: HostRef::process(GROUP, 1),
                        },
                    )
                    .lasting(20_000),
                ]
            }),
            expect: injected(),
            check: zombie,
        },
        Scenario {
            name: "consumer-stalled-heartbeats",
            description: "one consumer's heartbeats stall for 15 s while it keeps consuming and \
                          auto-committing with its epoch: the coordinator removes it, refuses its \
                          commits, and it rejoins when its heartbeats resume",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        20_000,
                        FaultKind::StallHeartbeats {
                            host: HostRef::process(GROUP, 1),
                            thread: None,
                        },
                    )
                    .lasting(15_000),
                ]
            }),
            expect: injected(),
            check: stalled_heartbeats,
        },
        Scenario {
            name: "consumer-lost-heartbeat-responses",
            description: "every broker's messages to one consumer are dropped for 6 s (its \
                          requests still arrive): its heartbeats time out and it looks for the \
                          coordinator again, but its session never expires, so it keeps its \
                          partitions and epoch",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        20_000,
                        FaultKind::PartitionOneway {
                            from: (1..=3).map(HostRef::Broker).collect(),
                            to: vec![HostRef::process(GROUP, 0)],
                        },
                    )
                    .lasting(6_000),
                ]
            }),
            expect: injected(),
            check: lost_heartbeat_responses,
        },
        Scenario {
            name: "consumer-coordinator-failover-mid-reconciliation",
            description: "a newcomer starts a reconciliation at 20 s and the coordinator's broker \
                          crashes 300 ms later for 12 s: another broker loads the group from its \
                          records, the members find it and finish reconciling; no acknowledged \
                          offset is lost",
            default_seed: 1,
            cluster: || cluster(group(3).with_dormant([2])),
            faults: Faults::Schedule(|| {
                vec![
                    start_process(GROUP, 2, 20_000),
                    FaultWindow::at(
                        20_300,
                        FaultKind::Crash {
                            host: HostRef::coordinator_of(GROUP),
                        },
                    )
                    .lasting(12_000),
                ]
            }),
            expect: injected(),
            check: coordinator_failover,
        },
        Scenario {
            name: "consumer-mixed-with-classic",
            description: "a classic group and a consumer group consume the same topic in one \
                          cluster; one process of each restarts: each group rebalances on its \
                          own protocol and the other is untouched",
            default_seed: 1,
            cluster: || {
                cluster(group(3)).with_classic(ClassicGroupSpec::new(BILLING, &["orders"], 2, 1))
            },
            faults: Faults::Schedule(|| {
                vec![
                    stop(20_000, 0, 5_000),
                    super::stop_process(BILLING, 1, 35_000, 5_000),
                ]
            }),
            expect: injected(),
            check: mixed_with_classic,
        },
        Scenario {
            name: "consumer-range-assignor",
            description: "a group asking for the range assignor on two topics (6 and 3 \
                          partitions) scales out from 2 to 3 consumers: each member ends with a \
                          contiguous range of each topic",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_topic("refunds", 3)
                    .with_consumer(
                        ConsumerGroupSpec::new(GROUP, &["orders", "refunds"], 3, 1)
                            .with_dormant([2])
                            .with_server_assignor("range"),
                    )
            },
            faults: Faults::Schedule(|| vec![start_process(GROUP, 2, 20_000)]),
            expect: injected(),
            check: range_assignor,
        },
        Scenario {
            name: "consumer-regex-new-topic",
            description: "two consumers subscribe with the pattern `orders.*` (no names): the \
                          coordinator resolves it to `orders` (6), not `refunds` (3); `orders-eu` \
                          (4) is created at 20 s and the next regex refresh adds it: the group \
                          epoch moves and each member ends with 5 partitions of the two matching \
                          topics",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_topic("refunds", 3)
                    .with_consumer(
                        ConsumerGroupSpec::new(GROUP, &[], 2, 1).with_topic_regex("orders.*"),
                    )
            },
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    REGEX_TOPIC_AT_MS,
                    FaultKind::CreateTopic {
                        name: "orders-eu".into(),
                        partitions: 4,
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 40_000,
                ..Expect::default()
            },
            check: regex_new_topic,
        },
    ]
}

/// Every committed epoch of a consumer group (time, epoch), consecutive duplicates dropped (in a
/// driven run: the epochs drive's observer described and the members moved to,
/// [`View::observed_epochs`]).
pub fn consumer_epochs(v: &View, group: &str) -> Vec<(i64, i32)> {
    if v.driven {
        return v.observed_epochs(group, true);
    }
    let mut out: Vec<(i64, i32)> = Vec::new();
    for e in v.log() {
        if let SimEventKind::Record {
            record:
                Record::ConsumerGroupMetadata {
                    key,
                    value: Some(value),
                },
            ..
        } = &e.kind
            && key.group_id == group
            && out.last().is_none_or(|(_, last)| *last != value.epoch)
        {
            out.push((e.at_ms, value.epoch));
        }
    }
    out
}

/// The final group: `members` members, each owning `per_member` partitions, all 6 owned.
fn settled(v: &View, members: usize, per_member: usize) -> Result<i32, String> {
    let g = v.group(GROUP)?;
    ensure(g.kind == "consumer", || format!("group type {}", g.kind))?;
    ensure(g.members.len() == members, || {
        format!("{} members, {members} expected", g.members.len())
    })?;
    let mut all = BTreeSet::new();
    for m in &g.members {
        ensure(m.epoch == g.epoch, || {
            format!(
                "member {} at epoch {}, group epoch {}",
                m.member_id, m.epoch, g.epoch
            )
        })?;
        ensure(m.partitions.len() == per_member, || {
            format!("member {} owns {:?}", m.member_id, m.partitions)
        })?;
        all.extend(m.partitions.iter().cloned());
    }
    ensure(all.len() == 6, || format!("partitions owned: {all:?}"))?;
    Ok(g.epoch)
}

fn cold_start(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    for i in 0..3 {
        let joins: Vec<i32> = v
            .client_events(&h(i))
            .filter_map(|(_, _, k)| match k {
                ClientKind::Joined { epoch } => Some(*epoch),
                _ => None,
            })
            .collect();
        ensure(joins.len() == 1, || format!("{} joined {joins:?}", h(i)))?;
    }
    ensure(v.fencings("").is_empty(), || {
        format!("fencings: {:?}", v.fencings(""))
    })?;
    // Some consumer committed: the first to get partitions, which is consumer 0 in the simulator
    // but whichever joined first in real time (`regroup drive`).
    ensure(
        (0..3).any(|i| !v.commits_accepted(&h(i)).is_empty()),
        || "no consumer committed".to_string(),
    )
}

/// The committed epoch of `group` at `at_ms` (-1 before the first).
fn epoch_at(v: &View, at_ms: i64) -> i32 {
    consumer_epochs(v, GROUP)
        .iter()
        .rev()
        .find(|(t, _)| *t <= at_ms)
        .map_or(-1, |(_, e)| *e)
}

/// The leave epochs the clients of `host` sent.
fn leaves(v: &View, host: &str) -> Vec<i32> {
    v.client_events(host)
        .filter_map(|(_, _, k)| match k {
            ClientKind::LeaveSent { epoch } => Some(*epoch),
            _ => None,
        })
        .collect()
}

fn scale_out(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("start-process")?;
    let before = epoch_at(v, at);
    let end = settled(v, 3, 2)?;
    ensure(end > before, || {
        format!("group epoch {before} before the newcomer, {end} at the end")
    })?;
    ensure(v.process_owned_at(&h(2), at).is_empty(), || {
        format!("{} owned partitions before it started", h(2))
    })?;
    // Revoke before assign: each partition the newcomer got was revoked by its owner first.
    let first_assigned = v
        .client_events(&h(2))
        .find(|(_, _, k)| matches!(k, ClientKind::PartitionsAssigned { .. }))
        .map(|(t, _, _)| t)
        .ok_or("the newcomer never got a partition")?;
    for i in 0..2 {
        let revoked = v
            .client_events(&h(i))
            .filter(|(t, _, k)| *t >= at && matches!(k, ClientKind::PartitionsRevoked { .. }))
            .map(|(t, _, _)| t)
            .next();
        ensure(revoked.is_some_and(|t| t <= first_assigned), || {
            format!(
                "{} revoked at {revoked:?}, the newcomer was assigned at {first_assigned}",
                h(i)
            )
        })?;
    }
    Ok(())
}

fn scale_in(v: &View) -> Result<(), String> {
    settled(v, 2, 3)?;
    ensure(leaves(v, &h(2)) == vec![-1], || {
        format!("{} sent leaves {:?}", h(2), leaves(v, &h(2)))
    })?;
    let (at, _) = v.injected("remove-process")?;
    ensure(epoch_at(v, at + 1_000) > epoch_at(v, at - 1), || {
        "the leave did not bump the group epoch".to_string()
    })
}

fn static_rolling_bounce(v: &View) -> Result<(), String> {
    let end = settled(v, 3, 2)?;
    let first = v
        .injections("stop-process")
        .first()
        .map(|(t, _)| *t)
        .ok_or("no stop-process")?;
    let before = epoch_at(v, first - 1);
    ensure(end == before, || {
        format!(
            "group epoch {before} before the bounces, {end} at the end (epochs {:?})",
            consumer_epochs(v, GROUP)
        )
    })?;
    for i in 0..3 {
        ensure(leaves(v, &h(i)) == vec![-2], || {
            format!("{} sent leaves {:?}", h(i), leaves(v, &h(i)))
        })?;
        let owned_before = v.process_owned_at(&h(i), first - 1);
        let owned_after = v.process_owned_final(GROUP, &h(i))?;
        ensure(owned_before == owned_after, || {
            format!(
                "{} owned {owned_before:?} before its bounce and {owned_after:?} at the end",
                h(i)
            )
        })?;
    }
    Ok(())
}

fn dynamic_rolling_bounce(v: &View) -> Result<(), String> {
    let end = settled(v, 3, 2)?;
    let first = v
        .injections("stop-process")
        .first()
        .map(|(t, _)| *t)
        .ok_or("no stop-process")?;
    let before = epoch_at(v, first - 1);
    // Each of the 3 leaves and 3 returns bumps the epoch at least once.
    ensure(end >= before + 6, || {
        format!(
            "group epoch {before} before the bounces, {end} at the end (epochs {:?})",
            consumer_epochs(v, GROUP)
        )
    })?;
    for i in 0..3 {
        ensure(leaves(v, &h(i)) == vec![-1], || {
            format!("{} sent leaves {:?}", h(i), leaves(v, &h(i)))
        })?;
    }
    Ok(())
}

fn static_member_away(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    let (at, _) = v.injected("stop-process")?;
    let back = v.healed("stop-process")?;
    let before = epoch_at(v, at - 1);
    // Within the session nothing changes; past it the member is removed.
    ensure(epoch_at(v, at + 9_000) == before, || {
        format!(
            "the epoch moved within the session: {:?}",
            consumer_epochs(v, GROUP)
        )
    })?;
    let removed = epoch_at(v, back - 1);
    ensure(removed > before, || {
        format!(
            "no bump while the member was away past its session: {:?}",
            consumer_epochs(v, GROUP)
        )
    })?;
    let end = v.group(GROUP)?.epoch;
    ensure(end > removed, || {
        format!("no bump when it returned: {:?}", consumer_epochs(v, GROUP))
    })?;
    ensure(leaves(v, &h(1)) == vec![-2], || {
        format!("leaves {:?}", leaves(v, &h(1)))
    })
}

/// The member ids a client reported, in order, without repeats.
fn member_ids(v: &View, host: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for e in v.log() {
        if let SimEventKind::Client { member_id, .. } = &e.kind
            && e.host == host
            && !member_id.is_empty()
            && out.last() != Some(member_id)
        {
            out.push(member_id.clone());
        }
    }
    out
}

fn zombie(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    let (at, _) = v.injected("pause")?;
    let healed = v.healed("pause")?;
    ensure(epoch_at(v, healed - 1) > epoch_at(v, at - 1), || {
        format!(
            "the paused member was never removed: {:?}",
            consumer_epochs(v, GROUP)
        )
    })?;
    let fenced: Vec<(i64, ErrorCode)> = v
        .fencings(&h(1))
        .into_iter()
        .filter(|(t, _)| *t >= healed)
        .collect();
    ensure(
        fenced
            .iter()
            .any(|(_, e)| matches!(e, ErrorCode::UnknownMemberId | ErrorCode::FencedMemberEpoch)),
        || format!("the zombie was not fenced after it resumed: {fenced:?}"),
    )?;
    ensure(member_ids(v, &h(1)).len() == 1, || {
        format!(
            "the zombie rejoined with member ids {:?}; the same id expected",
            member_ids(v, &h(1))
        )
    })
}

fn stalled_heartbeats(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    let (at, _) = v.injected("stall-heartbeats")?;
    let healed = v.healed("stall-heartbeats")?;
    ensure(epoch_at(v, healed - 1) > epoch_at(v, at - 1), || {
        format!(
            "the stalled member was never removed: {:?}",
            consumer_epochs(v, GROUP)
        )
    })?;
    let rejected = v.commits_rejected(&h(1));
    ensure(
        rejected.iter().any(|(t, e)| {
            *t > at
                && *t < healed
                && matches!(e, ErrorCode::UnknownMemberId | ErrorCode::StaleMemberEpoch)
        }),
        || format!("no commit of the removed member was refused: {rejected:?}"),
    )?;
    ensure(v.fencings(&h(1)).iter().any(|(t, _)| *t >= healed), || {
        format!("not fenced after the stall: {:?}", v.fencings(&h(1)))
    })
}

fn lost_heartbeat_responses(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    let (at, _) = v.injected("partition-oneway")?;
    let failed = v.client_events(&h(0)).any(|(t, _, k)| {
        t > at
            && matches!(
                k,
                ClientKind::RequestFailed {
                    api: Api::ConsumerGroupHeartbeat,
                    ..
                }
            )
    });
    ensure(failed, || {
        "no heartbeat of the cut-off consumer failed".to_string()
    })?;
    ensure(v.fencings("").is_empty(), || {
        format!("fencings: {:?}", v.fencings(""))
    })?;
    let end = v.group(GROUP)?.epoch;
    ensure(end == epoch_at(v, at - 1), || {
        format!("the epoch moved: {:?}", consumer_epochs(v, GROUP))
    })
}

fn coordinator_failover(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    let (at, crashed) = v.injected("crash")?;
    if v.driven {
        // No broker's loads in a driven run: what the members saw ([`View::coordinator_moved`]).
        let old = crashed
            .first()
            .and_then(|h| sim::cluster::broker_id_of(h))
            .unwrap_or(-1);
        return v.coordinator_moved(GROUP, at - 1, old);
    }
    let loads: Vec<&str> = v
        .log()
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                SimEventKind::Cluster { kind: event, .. }
                    if matches!(event, coordinator::events::EventKind::CoordinatorLoaded { .. })
            )
        })
        .map(|e| e.host.as_str())
        .collect();
    ensure(
        loads.iter().any(|h| !crashed.contains(&h.to_string())),
        || format!("no other broker loaded a coordinator after {crashed:?} crashed: {loads:?}"),
    )
}

fn mixed_with_classic(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    let billing = v.group(BILLING)?;
    ensure(
        billing.kind == "classic" && billing.members.len() == 2,
        || {
            format!(
                "{BILLING}: {} with {} members",
                billing.kind,
                billing.members.len()
            )
        },
    )?;
    // The consumer group's bounce does not touch the classic group, and the other way round.
    let (stops, _): (Vec<i64>, Vec<Vec<String>>) = v.injections("stop-process").into_iter().unzip();
    let generations = v.generations(BILLING);
    let gen_at = |t: i64| {
        generations
            .iter()
            .rev()
            .find(|(at, _)| *at <= t)
            .map_or(-1, |(_, g)| *g)
    };
    ensure(gen_at(stops[1] - 1) == gen_at(stops[0] - 1), || {
        format!("the consumer group's bounce moved {BILLING}'s generation: {generations:?}")
    })?;
    ensure(epoch_at(v, i64::MAX) == epoch_at(v, stops[1] - 1), || {
        format!(
            "{BILLING}'s bounce moved the consumer group's epoch: {:?}",
            consumer_epochs(v, GROUP)
        )
    })
}

fn range_assignor(v: &View) -> Result<(), String> {
    let g = v.group(GROUP)?;
    ensure(g.members.len() == 3, || {
        format!("{} members", g.members.len())
    })?;
    let mut all = BTreeSet::new();
    for m in &g.members {
        for (topic, per) in [("orders", 2), ("refunds", 1)] {
            let mut parts: Vec<i32> = m
                .partitions
                .iter()
                .filter_map(|p| p.strip_prefix(&format!("{topic}-")))
                .filter_map(|p| p.parse().ok())
                .collect();
            parts.sort();
            ensure(
                parts.len() == per && parts.windows(2).all(|w| w[1] == w[0] + 1),
                || format!("member {} owns {:?}", m.member_id, m.partitions),
            )?;
        }
        all.extend(m.partitions.iter().cloned());
    }
    ensure(all.len() == 9, || format!("owned {all:?}"))
}

fn topic_of(partition: &str) -> &str {
    partition.rsplit_once('-').map_or(partition, |(t, _)| t)
}

/// Kafka's regex refresh (`GroupMetadataManager.maybeUpdateRegularExpressions`, at most every
/// `REGEX_BATCH_REFRESH_MIN_INTERVAL_MS` = 10 s, on a heartbeat after the metadata image moved):
/// the pattern's topics before and after a matching topic is created.
fn regex_new_topic(v: &View) -> Result<(), String> {
    let created = REGEX_TOPIC_AT_MS as i64;
    let before: BTreeSet<String> = (0..2)
        .flat_map(|i| v.process_owned_at(&h(i), created - 1))
        .collect();
    let orders: BTreeSet<String> = (0..6).map(|p| format!("orders-{p}")).collect();
    ensure(before == orders, || {
        format!("before orders-eu existed the group owned {before:?}, not orders' 6")
    })?;
    let epoch_before = epoch_at(v, created - 1);
    let g = v.group(GROUP)?;
    ensure(g.members.len() == 2 && g.epoch > epoch_before, || {
        format!(
            "{} members at epoch {} (epoch {epoch_before} before the topic)",
            g.members.len(),
            g.epoch
        )
    })?;
    let mut all = BTreeSet::new();
    for m in &g.members {
        ensure(m.partitions.len() == 5, || {
            format!("member {} owns {:?}", m.member_id, m.partitions)
        })?;
        all.extend(m.partitions.iter().cloned());
    }
    let topics: BTreeSet<&str> = all.iter().map(|p| topic_of(p)).collect();
    ensure(
        all.len() == 10 && topics == BTreeSet::from(["orders", "orders-eu"]),
        || format!("the group owns {all:?}"),
    )?;
    // The first heartbeat after the creation refreshes the pattern (the last refresh, at the
    // joins, is more than 10 s old): the new topic is owned within a few heartbeats, not a
    // metadata age.
    let hosts: Vec<String> = (0..2).map(h).collect();
    let first_owned = hosts
        .iter()
        .flat_map(|host| {
            v.client_events(host).filter_map(|(t, _, k)| match k {
                ClientKind::PartitionsAssigned { partitions }
                    if partitions.iter().any(|p| p.topic == "orders-eu") =>
                {
                    Some(t)
                }
                _ => None,
            })
        })
        .min()
        .ok_or_else(|| "no member was ever assigned a partition of orders-eu".to_string())?;
    ensure(
        first_owned > created && first_owned - created <= 5_000,
        || format!("orders-eu, created at {created} ms, was first assigned at {first_owned} ms"),
    )
}

//! Online migration between classic and consumer groups (KIP-848's rolling upgrade and
//! downgrade): one group id served by processes that each speak the classic protocol (Kafka's
//! `ClassicKafkaConsumer`, `members::classic::Consumer`) or the consumer protocol
//! (`AsyncKafkaConsumer`, `members::consumer::AsyncConsumer`) at each incarnation, a
//! `switch-protocol` fault restarting a process with the other one.
//!
//! The group is `payments` on `orders` (6 partitions), one consumer per process, 10 s sessions,
//! 1 s heartbeats, 20 s rebalance timeout, 2 s auto-commit; classic incarnations list the range
//! assignor.

use std::collections::BTreeSet;

use coordinator::Record;
use members::observer::EventKind as ClientKind;
use protocol::{Api, ErrorCode};
use sim::event::{FaultEvent, SimEventKind};
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClusterSpec, ConsumerGroupSpec, GroupProtocol};

use super::check::{View, ensure, host};
use super::{Expect, Faults, Scenario};

const GROUP: &str = "payments";

fn h(index: usize) -> String {
    host(GROUP, index)
}

fn injected() -> Expect {
    Expect {
        faults_injected: true,
        ..Expect::default()
    }
}

fn switch(at_ms: u64, index: usize, protocol: GroupProtocol) -> FaultWindow {
    FaultWindow::at(
        at_ms,
        FaultKind::SwitchProtocol {
            host: HostRef::process(GROUP, index),
            protocol,
        },
    )
}

fn cluster(g: ConsumerGroupSpec) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 6)
        .with_consumer(g)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "consumer-rolling-upgrade",
            description: "a classic group of 3 static consumers is restarted one by one with \
                          group.protocol=consumer (at 20 s, at 28 s for 12 s, past its session, \
                          and at 55 s), the coordinator's broker crashing for 4 s at 44 s: the \
                          first consumer-protocol join converts the classic group into a \
                          consumer group at its generation, the classic members are served \
                          inside it until they switch, the one away past its session is fenced, \
                          and the group ends with 3 consumer-protocol members owning 2 \
                          partitions each",
            default_seed: 1,
            cluster: || {
                cluster(
                    ConsumerGroupSpec::new(GROUP, &["orders"], 3, 1)
                        .with_static_membership()
                        .with_classic_processes([0, 1, 2]),
                )
            },
            faults: Faults::Schedule(|| {
                // Processes 0 and 2 restart at once: a consumer-protocol join replaces the
                // classic static member holding its instance id (Kafka 4.4 refuses it with
                // UNRELEASED_INSTANCE_ID only when the holder speaks the consumer protocol too).
                // Process 1 stays down 12 s, past its 10 s session: a classic static member
                // sends no LeaveGroup, so the consumer group fences it on its session timeout.
                vec![
                    switch(20_000, 0, GroupProtocol::Consumer),
                    switch(28_000, 1, GroupProtocol::Consumer).lasting(12_000),
                    FaultWindow::at(
                        44_000,
                        FaultKind::Crash {
                            host: HostRef::coordinator_of(GROUP),
                        },
                    )
                    .lasting(4_000),
                    switch(55_000, 2, GroupProtocol::Consumer),
                ]
            }),
            expect: injected(),
            check: rolling_upgrade,
        },
        Scenario {
            name: "consumer-rolling-downgrade",
            description: "a consumer group of 3 static consumers is restarted one by one with \
                          group.protocol=classic (at 20, 30 and 40 s): each classic join \
                          replaces the consumer-protocol member its instance id left with epoch \
                          -2 and is served inside the consumer group; the last one replaces the \
                          last consumer-protocol member, which converts the group into a classic \
                          group, and it converges with 3 classic members owning 2 partitions \
                          each",
            default_seed: 1,
            cluster: || {
                cluster(ConsumerGroupSpec::new(GROUP, &["orders"], 3, 1).with_static_membership())
            },
            faults: Faults::Schedule(|| {
                vec![
                    switch(20_000, 0, GroupProtocol::Classic),
                    switch(30_000, 1, GroupProtocol::Classic),
                    switch(40_000, 2, GroupProtocol::Classic),
                ]
            }),
            expect: injected(),
            check: rolling_downgrade,
        },
        Scenario {
            name: "consumer-mixed-members",
            description: "a consumer group whose process 2 speaks the classic protocol for the \
                          whole run: the classic member gets its share through JoinGroup and \
                          SyncGroup served by the consumer group; a fourth (consumer-protocol) \
                          process starts at 20 s and process 0 leaves for good at 40 s, so \
                          partitions move away from and back to the classic member",
            default_seed: 1,
            cluster: || {
                cluster(
                    ConsumerGroupSpec::new(GROUP, &["orders"], 4, 1)
                        .with_classic_processes([2])
                        .with_dormant([3]),
                )
            },
            faults: Faults::Schedule(|| {
                vec![
                    super::start_process(GROUP, 3, 20_000),
                    FaultWindow::at(
                        40_000,
                        FaultKind::RemoveProcess {
                            host: HostRef::process(GROUP, 0),
                        },
                    ),
                ]
            }),
            expect: injected(),
            check: mixed_members,
        },
    ]
}

/// Committed records of `GROUP` in time order: (ms, what), for the type changes.
fn type_changes(v: &View) -> Vec<(i64, &'static str, i32)> {
    let mut out = Vec::new();
    for e in v.log() {
        let SimEventKind::Record { record, .. } = &e.kind else {
            continue;
        };
        let change = match record {
            Record::GroupMetadata { key, value } if key.group == GROUP => match value {
                Some(v) => Some(("classic", v.generation)),
                None => Some(("classic-tombstone", -1)),
            },
            Record::ConsumerGroupMetadata { key, value } if key.group_id == GROUP => match value {
                Some(v) => Some(("consumer", v.epoch)),
                None => Some(("consumer-tombstone", -1)),
            },
            _ => None,
        };
        if let Some((kind, epoch)) = change {
            out.push((e.at_ms, kind, epoch));
        }
    }
    out
}

/// The first conversion from type `from` to type `to` (`"classic"` or `"consumer"`): when, the
/// epoch or generation of the last `from` record before it, and the first `to` record's.
fn conversion(v: &View, from: &str, to: &str) -> Result<(i64, i32, i32), String> {
    let changes = type_changes(v);
    let tombstone = format!("{from}-tombstone");
    for (i, (at, kind, _)) in changes.iter().enumerate() {
        if *kind != tombstone {
            continue;
        }
        let Some((to_at, _, to_epoch)) = changes[i + 1..].iter().find(|(_, k, _)| *k == to) else {
            continue;
        };
        let before = changes[..i]
            .iter()
            .rev()
            .find(|(_, k, _)| *k == from)
            .map(|(_, _, e)| *e)
            .ok_or_else(|| format!("no {from} record before the conversion"))?;
        ensure(to_at == at, || {
            format!("the {from} tombstone at {at} ms and the first {to} record at {to_at} ms")
        })?;
        return Ok((*at, before, *to_epoch));
    }
    Err(format!(
        "the group never converted from {from} to {to}: {changes:?}"
    ))
}

/// Member ids the clients of `kind` reported.
fn member_ids_of(v: &View, kind: members::observer::ClientKind) -> BTreeSet<String> {
    v.log()
        .iter()
        .filter_map(|e| match &e.kind {
            SimEventKind::Client {
                client, member_id, ..
            } if client.kind == kind && client.group_id == GROUP && !member_id.is_empty() => {
                Some(member_id.clone())
            }
            _ => None,
        })
        .collect()
}

/// When `host`'s first client of the consumer protocol got its first heartbeat answer.
fn first_consumer_heartbeat_answer(v: &View, host_: &str) -> Result<i64, String> {
    v.log()
        .iter()
        .find_map(|e| match &e.kind {
            SimEventKind::Client {
                client,
                kind:
                    ClientKind::ResponseReceived {
                        api: Api::ConsumerGroupHeartbeat,
                        error: None,
                        ..
                    },
                ..
            } if e.host == host_ && client.kind == members::observer::ClientKind::AsyncConsumer => {
                Some(e.at_ms)
            }
            _ => None,
        })
        .ok_or_else(|| format!("{host_} never got a ConsumerGroupHeartbeat answer"))
}

/// The final group: type `kind`, 3 members of 2 partitions each, every partition owned once,
/// every member at the group epoch.
fn settled(v: &View, kind: &str) -> Result<i32, String> {
    let g = v.group(GROUP)?;
    ensure(g.kind == kind, || {
        format!("group type {}, {kind} expected", g.kind)
    })?;
    ensure(g.members.len() == 3, || {
        format!("{} members, 3 expected", g.members.len())
    })?;
    let mut all = BTreeSet::new();
    for m in &g.members {
        ensure(m.epoch == g.epoch, || {
            format!(
                "member {} at epoch {}, group epoch {}",
                m.member_id, m.epoch, g.epoch
            )
        })?;
        ensure(m.partitions.len() == 2, || {
            format!("member {} owns {:?}", m.member_id, m.partitions)
        })?;
        all.extend(m.partitions.iter().cloned());
    }
    ensure(all.len() == 6, || format!("partitions owned: {all:?}"))?;
    Ok(g.epoch)
}

/// The final members' ids, each reported by a client of `kind`.
fn final_members_speak(v: &View, kind: members::observer::ClientKind) -> Result<(), String> {
    let ids = member_ids_of(v, kind);
    for m in &v.group(GROUP)?.members {
        ensure(ids.contains(&m.member_id), || {
            format!("final member {} is not a {kind:?} client's", m.member_id)
        })?;
    }
    Ok(())
}

fn rolling_upgrade(v: &View) -> Result<(), String> {
    let end = settled(v, "consumer")?;
    final_members_speak(v, members::observer::ClientKind::AsyncConsumer)?;
    // The conversion happened at the first consumer-protocol join (its answer comes from the
    // converted group), at the classic group's generation (`ConsumerGroup.fromClassicGroup`),
    // and never back.
    let (at, generation, epoch) = conversion(v, "classic", "consumer")?;
    let (switched, _) = v.injected("switch-protocol")?;
    let answered = first_consumer_heartbeat_answer(v, &h(0))?;
    ensure(at >= switched && at <= answered, || {
        format!(
            "converted at {at} ms; process 0 switched at {switched} ms, its first heartbeat was \
             answered at {answered} ms"
        )
    })?;
    ensure(epoch == generation, || {
        format!("classic generation {generation} became consumer group epoch {epoch}")
    })?;
    ensure(
        !type_changes(v)
            .iter()
            .any(|(t, k, _)| *t > at && k.starts_with("classic")),
        || {
            format!(
                "a classic record after the conversion: {:?}",
                type_changes(v)
            )
        },
    )?;
    ensure(end > epoch, || {
        format!("group epoch {end} at the end, {epoch} at the conversion")
    })?;
    // Process 1's classic member, away past its session, was fenced before it came back (a
    // tombstone of its member id, a classic client's).
    let classic = member_ids_of(v, members::observer::ClientKind::Consumer);
    let (away, _) = v
        .injections("switch-protocol")
        .get(1)
        .cloned()
        .ok_or("no second switch-protocol")?;
    let back = v
        .log()
        .iter()
        .find_map(|e| match &e.kind {
            SimEventKind::Fault(FaultEvent::Healed { fault, hosts, .. })
                if *fault == "switch-protocol" && hosts == &[h(1)] && e.at_ms > away =>
            {
                Some(e.at_ms)
            }
            _ => None,
        })
        .ok_or("process 1's switch never healed")?;
    let fenced = v.log().iter().any(|e| match &e.kind {
        SimEventKind::Record {
            record: Record::ConsumerGroupMemberMetadata { key, value: None },
            ..
        } => {
            e.at_ms > away
                && e.at_ms < back
                && classic.contains(&key.member_id)
                && v.member_names()
                    .get(&key.member_id)
                    .is_some_and(|n| n.starts_with(&format!("{}/", h(1))))
        }
        _ => false,
    });
    ensure(fenced, || {
        format!(
            "{}'s classic member was not fenced while it was away ({away}..{back} ms)",
            h(1)
        )
    })?;
    Ok(())
}

fn rolling_downgrade(v: &View) -> Result<(), String> {
    settled(v, "classic")?;
    final_members_speak(v, members::observer::ClientKind::Consumer)?;
    // The group became a classic group when the last consumer-protocol member was replaced
    // (the third switch), at the consumer group's epoch (`ClassicGroup.fromConsumerGroup`).
    let (at, epoch, generation) = conversion(v, "consumer", "classic")?;
    let switches = v.injections("switch-protocol");
    ensure(switches.len() == 3, || format!("switches {switches:?}"))?;
    let last = switches[2].0;
    ensure(at >= last, || {
        format!("downgraded at {at} ms, before the last switch at {last} ms")
    })?;
    ensure(generation == epoch, || {
        format!("consumer group epoch {epoch} became classic generation {generation}")
    })?;
    // Before the last switch the group stayed a consumer group: the first two classic members
    // were served inside it.
    ensure(
        !type_changes(v)
            .iter()
            .any(|(t, k, _)| *t < at && k.starts_with("classic")),
        || {
            format!(
                "a classic record before the downgrade: {:?}",
                type_changes(v)
            )
        },
    )?;
    let classic_inside = v.log().iter().any(|e| match &e.kind {
        SimEventKind::Record {
            record: Record::ConsumerGroupMemberMetadata { value: Some(m), .. },
            ..
        } => e.at_ms < last && m.classic_member_metadata.is_some(),
        _ => false,
    });
    ensure(classic_inside, || {
        "no classic member inside the consumer group before the last switch".to_string()
    })?;
    Ok(())
}

fn mixed_members(v: &View) -> Result<(), String> {
    settled(v, "consumer")?;
    let classic_host = h(2);
    // The classic member stayed one member of the consumer group all along (never fenced, never
    // re-created), with its classic metadata, and is in the final group.
    let names = v.member_names();
    let classic_ids: BTreeSet<String> = member_ids_of(v, members::observer::ClientKind::Consumer);
    ensure(classic_ids.len() == 1, || {
        format!("the classic client had member ids {classic_ids:?}")
    })?;
    let id = classic_ids.iter().next().cloned().unwrap_or_default();
    ensure(
        names
            .get(&id)
            .is_some_and(|n| n.starts_with(&format!("{classic_host}/"))),
        || format!("member {id} is not {classic_host}'s"),
    )?;
    ensure(
        v.group(GROUP)?.members.iter().any(|m| m.member_id == id),
        || format!("the classic member {id} is not in the final group"),
    )?;
    let classic_record = v.log().iter().any(|e| match &e.kind {
        SimEventKind::Record {
            record:
                Record::ConsumerGroupMemberMetadata {
                    key,
                    value: Some(m),
                },
            ..
        } => key.member_id == id && m.classic_member_metadata.is_some(),
        _ => false,
    });
    ensure(classic_record, || {
        format!("member {id} has no classic member metadata in the consumer group")
    })?;
    // Revocation both ways: the newcomer at 20 s takes one partition from the classic member
    // (6 over 4 members: it ends with at most 2, the newcomer with at least 1); after process
    // 0 leaves at 40 s it holds 2 again.
    let (started, _) = v.injected("start-process")?;
    let (removed, _) = v.injected("remove-process")?;
    let before = v.process_owned_at(&classic_host, started - 1);
    ensure(before.len() == 2, || {
        format!("{classic_host} owned {before:?} before the newcomer")
    })?;
    let between = v.process_owned_at(&classic_host, removed - 1);
    let newcomer = v.process_owned_at(&h(3), removed - 1);
    ensure(!newcomer.is_empty() && between.len() <= 2, || {
        format!("before the removal {classic_host} owned {between:?}, the newcomer {newcomer:?}")
    })?;
    ensure(newcomer.is_disjoint(&between), || {
        format!(
            "{classic_host} and the newcomer both own {:?}",
            newcomer.intersection(&between)
        )
    })?;
    let after = v.process_owned_final(GROUP, &classic_host)?;
    ensure(after.len() == 2, || {
        format!("{classic_host} owns {after:?} at the end")
    })?;
    // The classic member learned of each change through REBALANCE_IN_PROGRESS and rejoined.
    let rejoins = v
        .client_events(&classic_host)
        .filter(|(t, _, k)| {
            *t > started
                && matches!(
                    k,
                    ClientKind::ResponseReceived {
                        api: Api::Heartbeat,
                        error: Some(ErrorCode::RebalanceInProgress),
                        ..
                    }
                )
        })
        .count();
    ensure(rejoins >= 2, || {
        format!("{classic_host} was told REBALANCE_IN_PROGRESS {rejoins} time(s) after 20 s")
    })?;
    Ok(())
}

//! Classic consumer groups with static membership (KIP-345): rolling bounces with and without
//! instance ids, duplicate instance ids, the leader's bounce, admin removal, members away past
//! their session, coordinator fail-over, mixed groups.
//!
//! Every group here is `billing` on `orders` (6 partitions), one consumer per process, 10 s
//! sessions, 1 s heartbeats; a static consumer's close sends no LeaveGroup (as the Java client).

use std::collections::BTreeSet;

use coordinator::Record;
use coordinator::records::classic::GroupMetadataValue;
use members::classic::assignor::Assignor;
use members::observer::EventKind as ClientKind;
use protocol::ErrorCode;
use sim::event::SimEventKind;
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec};

use super::check::{View, ensure, host};
use super::{Expect, Faults, Scenario, rolling_bounce, start_process};

const GROUP: &str = "billing";
/// `group.initial.rebalance.delay.ms` of `classic-initial-rebalance-delay` (Kafka's default).
const INITIAL_DELAY_MS: i64 = 3_000;
/// The second group of `classic-assignor-vote`.
const AUDIT: &str = "audit";

fn injected() -> Expect {
    Expect {
        faults_injected: true,
        ..Expect::default()
    }
}

fn h(index: usize) -> String {
    host(GROUP, index)
}

fn stop(at: u64, index: usize, ms: u64) -> FaultWindow {
    super::stop_process(GROUP, index, at, ms)
}

fn group(processes: usize) -> ClassicGroupSpec {
    ClassicGroupSpec::new(GROUP, &["orders"], processes, 1)
}

fn cluster(g: ClassicGroupSpec) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 6)
        .with_classic(g)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "classic-static-rolling-bounce",
            description: "3 static consumers close and restart one after another within their \
                          session: the generation never changes and each gets its partitions \
                          back (Kafka's static consumer bounce test)",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| rolling_bounce(GROUP, 3, 20_000, 10_000, 3_000)),
            expect: injected(),
            check: static_rolling_bounce,
        },
        Scenario {
            name: "classic-dynamic-rolling-bounce",
            description: "3 dynamic consumers close (LeaveGroup) and restart one after another: \
                          every close and every return starts a new generation",
            default_seed: 1,
            cluster: || cluster(group(3)),
            faults: Faults::Schedule(|| rolling_bounce(GROUP, 3, 20_000, 15_000, 5_000)),
            expect: injected(),
            check: dynamic_rolling_bounce,
        },
        Scenario {
            name: "classic-duplicate-instance-id",
            description: "a third consumer starts at 20 s with the instance id of the first: the \
                          newcomer replaces it and the older one is fenced (FENCED_INSTANCE_ID)",
            default_seed: 1,
            cluster: || {
                let mut g = group(3).with_static_membership().with_dormant([2]);
                g.instance_ids_of.insert(2, 0);
                cluster(g)
            },
            faults: Faults::Schedule(|| vec![start_process(GROUP, 2, 20_000)]),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 40000,
                members: &[(GROUP, 2)],
                ..Expect::default()
            },
            check: duplicate_instance_id,
        },
        Scenario {
            name: "classic-max-group-size",
            description: "group.max.size = 3 and four dynamic consumers start together: the \
                          join that would make a fourth member is refused with \
                          GROUP_MAX_SIZE_REACHED (fatal for the consumer); a fifth starts at 20 s \
                          into the Stable group and is refused too, without a rebalance",
            default_seed: 1,
            cluster: || cluster(group(5).with_dormant([4])).with_broker_config("group.max.size", 3),
            faults: Faults::Schedule(|| vec![start_process(GROUP, 4, 20_000)]),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 40_000,
                members: &[(GROUP, 3)],
                ..Expect::default()
            },
            check: max_group_size,
        },
        Scenario {
            name: "classic-leader-stuck-assignor",
            description: "the leader's assignor is stuck from 15 s to 60 s and a fourth consumer \
                          joins at 16 s (request timeout 30 s, rebalance timeout 20 s): the \
                          leader sends no SyncGroup while its heartbeats go on; a rebalance \
                          timeout after the join the coordinator removes it (expirePendingSync) \
                          and the other three form the next generation. When the assignor \
                          returns, the SyncGroup carries the generation its heartbeat thread \
                          reset (no protocol name), the broker refuses it with \
                          INCONSISTENT_GROUP_PROTOCOL and the Java consumer dies of it",
            default_seed: 1,
            cluster: || {
                let mut g = group(4).with_dormant([3]);
                g.request_timeout_ms = 30_000;
                cluster(g)
            },
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        15_000,
                        FaultKind::StallAssignment {
                            host: HostRef::ClassicLeaderOf(GROUP.into()),
                        },
                    )
                    .lasting(45_000),
                    start_process(GROUP, 3, 16_000),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                members: &[(GROUP, 3)],
                ..Expect::default()
            },
            check: stuck_assignor,
        },
        Scenario {
            name: "classic-assignor-vote",
            description: "two groups whose consumers prefer different assignors: in `billing` \
                          two of three list roundrobin before range, in `audit` two of three list \
                          range first; each group runs the protocol most members voted for \
                          (selectProtocol), roundrobin and range",
            default_seed: 1,
            cluster: || {
                let prefer =
                    |g: ClassicGroupSpec, first: Assignor, second: Assignor, of: &[usize]| {
                        let mut g = g;
                        g.assignors = vec![second, first];
                        for i in of {
                            g.assignors_of.insert(*i, vec![first, second]);
                        }
                        g
                    };
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_classic(prefer(
                        group(3),
                        Assignor::RoundRobin,
                        Assignor::Range,
                        &[0, 1],
                    ))
                    .with_classic(prefer(
                        ClassicGroupSpec::new(AUDIT, &["orders"], 3, 1),
                        Assignor::Range,
                        Assignor::RoundRobin,
                        &[0, 2],
                    ))
            },
            faults: Faults::None,
            expect: Expect::default(),
            check: assignor_vote,
        },
        Scenario {
            name: "classic-static-leader-bounce",
            description: "the leader of a static group closes and restarts within its session: \
                          no rebalance, and its new member id inherits the leadership",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        20_000,
                        FaultKind::StopProcess {
                            host: HostRef::ClassicLeaderOf(GROUP.into()),
                        },
                    )
                    .lasting(3_000),
                ]
            }),
            expect: injected(),
            check: leader_bounce,
        },
        Scenario {
            name: "classic-admin-remove-static-member",
            description: "an admin removes static member billing-1-0 by instance id at 20 s: the \
                          group rebalances, the consumer hears UNKNOWN_MEMBER_ID and rejoins \
                          with a new member id",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| {
                vec![FaultWindow::at(
                    20_000,
                    FaultKind::RemoveStaticMembers {
                        group: GROUP.into(),
                        instance_ids: vec!["billing-1-0".into()],
                    },
                )]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45000,
                ..Expect::default()
            },
            check: admin_removal,
        },
        Scenario {
            name: "classic-static-member-away",
            description: "a static consumer closes for 16 s, past its 10 s session: the group \
                          keeps its generation for the session, then rebalances without it, \
                          and again when it returns",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| vec![stop(20_000, 1, 16_000)]),
            expect: injected(),
            check: static_member_away,
        },
        Scenario {
            name: "classic-coordinator-failover",
            description: "the coordinator of a static group crashes for 12 s: another broker \
                          loads the group and its members keep their generation and partitions",
            default_seed: 1,
            cluster: || cluster(group(3).with_static_membership()),
            faults: Faults::Schedule(|| {
                vec![
                    FaultWindow::at(
                        20_000,
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
            name: "classic-mixed-static-dynamic",
            description: "two static and two dynamic consumers: a static one restarting within \
                          its session changes nothing, a dynamic one restarting starts new \
                          generations",
            default_seed: 1,
            cluster: || {
                let mut g = group(4).with_static_membership();
                g.static_processes = Some(vec![0, 1]);
                cluster(g)
            },
            faults: Faults::Schedule(|| vec![stop(20_000, 0, 3_000), stop(30_000, 2, 3_000)]),
            expect: injected(),
            check: mixed,
        },
        Scenario {
            name: "classic-initial-rebalance-delay",
            description: "two consumers start an empty group together: the initial delay (3 s) \
                          is extended once because a second member joined during it; two more \
                          join the Stable group at 20 s; all four leave at 40 s and one returns \
                          alone at 50 s: its generation comes after one delay, not two (no \
                          member joined during that delay)",
            default_seed: 1,
            cluster: || {
                cluster(group(4).with_dormant([2, 3]))
                    .with_broker_config("group.initial.rebalance.delay.ms", INITIAL_DELAY_MS)
            },
            faults: Faults::Schedule(|| {
                vec![
                    start_process(GROUP, 2, 20_000),
                    start_process(GROUP, 3, 20_000),
                    stop(40_000, 0, 10_000),
                    stop(40_000, 1, 30_000),
                    stop(40_000, 2, 30_000),
                    stop(40_000, 3, 30_000),
                ]
            }),
            expect: injected(),
            check: initial_rebalance_delay,
        },
    ]
}

/// What process `i`'s consumer owned at `t`.
fn owned(v: &View, i: usize, t: i64) -> std::collections::BTreeSet<String> {
    v.process_owned_at(&h(i), t)
}

fn static_rolling_bounce(v: &View) -> Result<(), String> {
    let bounces = v.injections("stop-process");
    ensure(bounces.len() == 3, || format!("{} bounces", bounces.len()))?;
    let first = bounces[0].0;
    let generation = v.epoch_at(GROUP, first - 1);
    let later: Vec<(i64, i32)> = v
        .generations(GROUP)
        .into_iter()
        .filter(|(t, _)| *t >= first)
        .collect();
    ensure(
        later.is_empty() && v.group(GROUP)?.epoch == generation,
        || format!("generation {generation} before the bounces, then {later:?}"),
    )?;
    for i in 0..3 {
        let before = owned(v, i, first - 1);
        let after = v.process_owned_final(GROUP, &h(i))?;
        ensure(before == after && before.len() == 2, || {
            format!("consumer {i} owned {before:?}, then {after:?}")
        })?;
    }
    Ok(())
}

fn dynamic_rolling_bounce(v: &View) -> Result<(), String> {
    let bounces = v.injections("stop-process");
    ensure(bounces.len() == 3, || format!("{} bounces", bounces.len()))?;
    for (at, hosts) in &bounces {
        let before = v.epoch_at(GROUP, at - 1);
        let gone = v.epoch_at(GROUP, at + 4_900);
        let back = v.epoch_at(GROUP, at + 14_000);
        ensure(gone > before && back > gone, || {
            format!(
                "bounce of {}: generation {before}, {gone} while away, {back} after",
                hosts[0]
            )
        })?;
    }
    Ok(())
}

fn duplicate_instance_id(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("start-process")?;
    let fenced = v.client_events(&h(0)).any(|(t, _, k)| {
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
    ensure(fenced, || "the older consumer was not fenced".into())?;
    let g = v.group(GROUP)?;
    let names = v.member_names();
    let holder = g
        .members
        .iter()
        .find(|m| m.instance_id.as_deref() == Some("billing-0-0"))
        .ok_or("instance billing-0-0 left the group")?;
    let client = names.get(&holder.member_id).cloned().unwrap_or_default();
    ensure(client.starts_with(&format!("{}/", h(2))), || {
        format!("billing-0-0 is held by {client}")
    })?;
    ensure(holder.partitions.len() == 3, || {
        format!("the newcomer owns {:?}", holder.partitions)
    })
}

/// The group size limit, as Kafka's `acceptJoiningMember` applies it: in PreparingRebalance a
/// join counts against the members awaiting join, in Stable against the members; either way the
/// refused consumer hears GROUP_MAX_SIZE_REACHED, which is fatal, and the group neither grows nor
/// rebalances.
fn max_group_size(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("start-process")?;
    let refused = |index: usize| {
        v.client_events(&h(index))
            .filter(|(_, _, k)| {
                matches!(
                    k,
                    ClientKind::Fatal {
                        error: Some(ErrorCode::GroupMaxSizeReached),
                        ..
                    }
                )
            })
            .map(|(t, _, _)| t)
            .next()
    };
    let at_start: Vec<usize> = (0..4).filter(|i| refused(*i).is_some()).collect();
    ensure(at_start.len() == 1, || {
        format!("processes {at_start:?} of the first four were refused; exactly one expected")
    })?;
    ensure(refused(at_start[0]).is_some_and(|t| t < at), || {
        "the refusal of the first four came after 20 s".into()
    })?;
    ensure(refused(4).is_some_and(|t| t >= at), || {
        "the fifth consumer was not refused".into()
    })?;
    let before = v.epoch_at(GROUP, at - 1);
    let g = v.group(GROUP)?;
    ensure(g.epoch == before, || {
        format!(
            "generation {before} before the fifth joined, {} at the end",
            g.epoch
        )
    })?;
    ensure(g.members.len() == 3, || {
        format!("{} members", g.members.len())
    })?;
    let names = v.member_names();
    let holders: Vec<String> = g
        .members
        .iter()
        .map(|m| names.get(&m.member_id).cloned().unwrap_or_default())
        .collect();
    ensure(
        holders.iter().all(|c| {
            !c.starts_with(&format!("{}/", h(at_start[0]))) && !c.starts_with(&format!("{}/", h(4)))
        }),
        || format!("the members are {holders:?}"),
    )
}

/// The pending-sync timeout (Kafka's `expirePendingSync`): a rebalance timeout after the join
/// phase completed, the members that have not sent SyncGroup are removed and the group rebalances
/// without them. The generation the stuck
/// leader was to assign is never written (a leader's SyncGroup writes it).
fn stuck_assignor(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("stall-assignment")?;
    let healed = v.healed("stall-assignment")?;
    let stuck = &hosts[0];
    let before = v.epoch_at(GROUP, at);
    let during: Vec<(i64, i32)> = v
        .generations(GROUP)
        .into_iter()
        .filter(|(t, _)| *t > at && *t < healed)
        .collect();
    ensure(
        matches!(during.as_slice(), [(t, g)] if *t >= at + 20_000 && *g == before + 2),
        || {
            format!(
                "generations written while the assignor was stuck: {during:?}; one expected, \
                 {} (the held one, {}, never written), at least 20 s after {at} ms",
                before + 2,
                before + 1
            )
        },
    )?;
    let mut others = BTreeSet::new();
    for i in 0..4 {
        let owned = v.process_owned_at(&h(i), healed - 1);
        if h(i) == *stuck {
            ensure(owned.is_empty(), || {
                format!(
                    "the stuck leader {stuck} owned {owned:?} just before its assignor returned"
                )
            })?;
        } else {
            others.extend(owned);
        }
    }
    ensure(others.len() == 6, || {
        format!("the other three owned {others:?} just before the assignor returned")
    })?;
    // AbstractCoordinator.onLeaderElected builds the SyncGroup from `generation` once the
    // assignor returns, and the heartbeat thread's UNKNOWN_MEMBER_ID reset it to NO_GENERATION,
    // protocol name null; KafkaApis.handleSyncGroupRequest refuses a v5 request without one
    // (areMandatoryProtocolTypeAndNamePresent) and SyncGroupResponseHandler raises the
    // unexpected error as a KafkaException, which joinGroupIfNeeded throws to the application.
    let died = v.client_events(stuck).any(|(t, _, k)| {
        t >= healed
            && matches!(
                k,
                ClientKind::Fatal {
                    error: Some(ErrorCode::InconsistentGroupProtocol),
                    ..
                }
            )
    });
    ensure(died, || {
        format!("{stuck} did not fail with INCONSISTENT_GROUP_PROTOCOL when its assignor returned")
    })?;
    let g = v.group(GROUP)?;
    ensure(g.members.len() == 3 && g.epoch == before + 2, || {
        format!(
            "{} members at generation {} at the end; 3 at {} expected",
            g.members.len(),
            g.epoch,
            before + 2
        )
    })
}

/// The protocol vote (Kafka's `selectProtocol`): the candidates every member supports, one vote
/// per member for its first candidate, the most votes wins.
fn assignor_vote(v: &View) -> Result<(), String> {
    for (group, want) in [(GROUP, "roundrobin"), (AUDIT, "range")] {
        let protocol = last_recorded(v, group, |g| g.protocol.clone());
        ensure(protocol.as_deref() == Some(want), || {
            format!("{group} runs protocol {protocol:?}, {want} expected")
        })?;
    }
    Ok(())
}

/// `field` of the last GroupMetadata record of `group` that has it.
fn last_recorded<T>(
    v: &View,
    group: &str,
    field: impl Fn(&GroupMetadataValue) -> Option<T>,
) -> Option<T> {
    v.log().iter().rev().find_map(|e| match &e.kind {
        SimEventKind::Record {
            record:
                Record::GroupMetadata {
                    key,
                    value: Some(g),
                },
            ..
        } if key.group == group => field(g),
        _ => None,
    })
}

/// The leader named by the last GroupMetadata record of the group.
fn leader(v: &View) -> Option<String> {
    last_recorded(v, GROUP, |g| g.leader.clone())
}

fn leader_bounce(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("stop-process")?;
    let bounced = &hosts[0];
    let generation = v.epoch_at(GROUP, at - 1);
    ensure(v.group(GROUP)?.epoch == generation, || {
        format!(
            "generation {generation} before, {} after",
            v.group(GROUP).map(|g| g.epoch).unwrap_or(-1)
        )
    })?;
    let leader = leader(v).ok_or("no leader recorded")?;
    let names = v.member_names();
    let client = names.get(&leader).cloned().unwrap_or_default();
    ensure(client.starts_with(&format!("{bounced}/")), || {
        format!("the leader is {client}, the bounced leader was on {bounced}")
    })?;
    let restarted = v
        .client_events(bounced)
        .any(|(t, _, k)| t > at && matches!(k, ClientKind::Joined { .. }));
    ensure(restarted, || "the bounced leader never rejoined".into())
}

fn admin_removal(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("remove-static-members")?;
    let answered = v.client_events("admin").any(|(t, _, k)| {
        t >= at
            && matches!(k, ClientKind::ResponseReceived { api: protocol::Api::LeaveGroup, error, .. } if error.is_none_or(|e| e == ErrorCode::None))
    });
    ensure(answered, || {
        "the admin's LeaveGroup was not answered".into()
    })?;
    let before = v.epoch_at(GROUP, at - 1);
    ensure(v.group(GROUP)?.epoch > before, || {
        format!(
            "generation {before} before the removal, {} at the end",
            v.group(GROUP).map(|g| g.epoch).unwrap_or(-1)
        )
    })?;
    let told = v
        .response_errors(&h(1))
        .iter()
        .any(|(t, e)| *t >= at && *e == ErrorCode::UnknownMemberId);
    ensure(told, || {
        "the removed consumer never heard UNKNOWN_MEMBER_ID".into()
    })?;
    ensure(v.process_owned_final(GROUP, &h(1))?.len() == 2, || {
        "the removed consumer did not get its share back".into()
    })
}

fn static_member_away(v: &View) -> Result<(), String> {
    let (at, _) = v.injected("stop-process")?;
    let back = v.healed("stop-process")?;
    let before = v.epoch_at(GROUP, at - 1);
    let bump = v
        .generations(GROUP)
        .into_iter()
        .find(|(t, g)| *t >= at && *g > before)
        .ok_or("the generation never changed")?;
    ensure(bump.0 >= at + 9_000 && bump.0 < back, || {
        format!("first new generation {} ms after the close", bump.0 - at)
    })?;
    let mut others = owned(v, 0, back - 1);
    others.extend(owned(v, 2, back - 1));
    ensure(others.len() == 6, || {
        format!("while away the others owned {others:?}")
    })?;
    ensure(v.group(GROUP)?.epoch > v.epoch_at(GROUP, back - 1), || {
        "no rebalance after the return".into()
    })?;
    ensure(v.process_owned_final(GROUP, &h(1))?.len() == 2, || {
        "the returning consumer owns no share".into()
    })
}

fn coordinator_failover(v: &View) -> Result<(), String> {
    let (at, hosts) = v.injected("crash")?;
    let old: i32 = hosts[0].trim_start_matches("broker-").parse().unwrap_or(-1);
    v.coordinator_moved(GROUP, at, old)?;
    let generation = v.epoch_at(GROUP, at - 1);
    ensure(v.group(GROUP)?.epoch == generation, || {
        format!(
            "generation {generation} before the crash, {} at the end",
            v.group(GROUP).map(|g| g.epoch).unwrap_or(-1)
        )
    })?;
    for i in 0..3 {
        let before = owned(v, i, at - 1);
        let after = v.process_owned_final(GROUP, &h(i))?;
        ensure(before == after, || {
            format!("consumer {i}: {before:?} then {after:?}")
        })?;
    }
    Ok(())
}

fn mixed(v: &View) -> Result<(), String> {
    let bounces = v.injections("stop-process");
    ensure(bounces.len() == 2, || format!("{} bounces", bounces.len()))?;
    let (s_at, _) = &bounces[0];
    let (d_at, _) = &bounces[1];
    let before = v.epoch_at(GROUP, s_at - 1);
    ensure(v.epoch_at(GROUP, d_at - 1) == before, || {
        "the static consumer's restart changed the generation".into()
    })?;
    ensure(v.group(GROUP)?.epoch >= before + 2, || {
        "the dynamic consumer's restart did not rebalance twice".into()
    })?;
    let g = v.group(GROUP)?;
    let statics = g.members.iter().filter(|m| m.instance_id.is_some()).count();
    ensure(statics == 2 && g.members.len() == 4, || {
        format!("{statics} static of {} members", g.members.len())
    })
}

/// The JoinGroup exchanges of process `i`'s consumer that succeeded: (sent at, answered at).
fn successful_joins(v: &View, i: usize) -> Vec<(i64, i64)> {
    let mut sent: std::collections::BTreeMap<i32, i64> = std::collections::BTreeMap::new();
    let mut out = Vec::new();
    for (t, _, kind) in v.client_events(&h(i)) {
        match kind {
            ClientKind::RequestSent {
                api: protocol::Api::JoinGroup,
                correlation_id,
                ..
            } => {
                sent.insert(*correlation_id, t);
            }
            ClientKind::ResponseReceived {
                api: protocol::Api::JoinGroup,
                correlation_id,
                error: None,
                ..
            } => {
                if let Some(at) = sent.remove(correlation_id) {
                    out.push((at, t));
                }
            }
            _ => {}
        }
    }
    out
}

/// Kafka's `InitialDelayedJoin` (`tryCompleteInitialRebalanceElseSchedule`): the join phase of an
/// empty group waits `group.initial.rebalance.delay.ms`, and once more (up to the rebalance
/// timeout) only if a new member joined during the wait (`addMemberThenRebalanceOrCompleteJoin`
/// sets the flag in PreparingRebalance after Empty, not in a later rebalance).
fn initial_rebalance_delay(v: &View) -> Result<(), String> {
    // One tick for the answer to reach the client, plus the network's latency; in real time
    // (a driven run against a real cluster) the JVM's scheduling too.
    let slack = if v.driven { 400 } else { 100 };
    let within = |(sent, answered): (i64, i64), delays: i64| {
        let waited = answered - sent;
        waited >= delays * INITIAL_DELAY_MS - slack && waited <= delays * INITIAL_DELAY_MS + slack
    };
    let cold = successful_joins(v, 0);
    let first = *cold
        .first()
        .ok_or_else(|| "consumer 0 never completed a JoinGroup".to_string())?;
    let second = successful_joins(v, 1)
        .first()
        .copied()
        .ok_or_else(|| "consumer 1 never completed a JoinGroup".to_string())?;
    let leader = if first.0 <= second.0 { first } else { second };
    ensure(within(leader, 2), || {
        format!(
            "the cold start's first JoinGroup (sent at {} ms) was answered after {} ms, not two \
             initial delays ({} ms): a second member joined during the first",
            leader.0,
            leader.1 - leader.0,
            2 * INITIAL_DELAY_MS
        )
    })?;
    let returned = v.healed("stop-process")?;
    let alone = cold
        .iter()
        .copied()
        .find(|(sent, _)| *sent >= returned)
        .ok_or_else(|| {
            format!("consumer 0 completed no JoinGroup after returning at {returned} ms")
        })?;
    ensure(within(alone, 1), || {
        format!(
            "consumer 0, alone in the empty group, sent its JoinGroup at {} ms and was answered \
             after {} ms, not one initial delay ({INITIAL_DELAY_MS} ms): nobody joined during it",
            alone.0,
            alone.1 - alone.0
        )
    })?;
    let generations: Vec<i32> = v
        .generations(GROUP)
        .into_iter()
        .filter(|(t, _)| *t >= returned && *t < returned + 15_000)
        .map(|(_, g)| g)
        .collect();
    ensure(generations.len() == 1, || {
        format!("consumer 0 alone formed generations {generations:?}, not one")
    })
}

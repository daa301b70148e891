//! Group administration through Kafka's `Admin` calls, checked answer by answer: describe, list,
//! offset fetch, offset deletion, offset alteration and group deletion of a live group, of the
//! same group once it is empty, after it is deleted and after its coordinator failed over; the
//! same for a streams group; and offsets expiring from an empty group.
//!
//! The answers are what an operator's tooling sees (`kafka-consumer-groups.sh`, `kafka-streams-
//! groups.sh`), so each check compares them with what the members themselves observed: who is in
//! the group and what it owns, and the last commit each partition had accepted.

use std::collections::BTreeMap;

use serde_json::json;
use sim::event::{AdminAnswer, DescribedGroupView, ListedGroupView};
use sim::faults::{FaultKind, FaultWindow, GroupAdminCall, HostRef};
use sim::spec::{ClassicGroupSpec, ClusterSpec};

use super::check::{View, ensure, host};
use super::streams::{APP, app, cluster as streams_cluster};
use super::{Expect, Faults, Scenario};

const GROUP: &str = "billing";
/// The simple group of `classic-recreated-topic-offsets`.
const RECREATED: &str = "recreated-audit";
/// The simple group (offsets only, no members) the classic lifecycle creates.
const SIMPLE: &str = "billing-audit";

fn call(at: u64, group: &str, call: GroupAdminCall) -> FaultWindow {
    FaultWindow::at(
        at,
        FaultKind::GroupAdmin {
            group: group.into(),
            call,
        },
    )
}

fn remove(at: u64, group: &str, index: usize) -> FaultWindow {
    FaultWindow::at(
        at,
        FaultKind::RemoveProcess {
            host: HostRef::process(group, index),
        },
    )
}

fn delete_offsets(topic: &str, partitions: &[i32]) -> GroupAdminCall {
    GroupAdminCall::DeleteOffsets {
        topic: topic.into(),
        partitions: partitions.to_vec(),
    }
}

fn alter_offsets(topic: &str, partitions: &[i32], offset: i64) -> GroupAdminCall {
    GroupAdminCall::AlterOffsets {
        topic: topic.into(),
        partitions: partitions.to_vec(),
        offset,
    }
}

fn crash_coordinator(at: u64, group: &str, ms: u64) -> FaultWindow {
    FaultWindow::at(
        at,
        FaultKind::Crash {
            host: HostRef::coordinator_of(group),
        },
    )
    .lasting(ms)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![
        Scenario {
            name: "classic-admin-lifecycle",
            description: "an admin describes, lists, fetches and deletes the offsets of, and \
                          deletes a live static group (refused: subscribed, non-empty), removes \
                          its members, does it all again on the empty group (accepted), creates \
                          a simple group by altering offsets, and checks after a coordinator \
                          fail-over that the deleted group stays deleted",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default().with_topic("orders", 6).with_classic(
                    ClassicGroupSpec::new(GROUP, &["orders"], 3, 1).with_static_membership(),
                )
            },
            faults: Faults::Schedule(classic_lifecycle),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 60_000,
                ..Expect::default()
            },
            check: classic_lifecycle_check,
        },
        Scenario {
            name: "streams-admin-lifecycle",
            description: "an admin describes, lists, fetches offsets of, tries to delete and \
                          to alter the offsets of a live streams group, its processes leave, the \
                          empty group has an offset deleted and one altered, is deleted \
                          and stays deleted across a coordinator fail-over, and a new process \
                          starts the group afresh at epoch 1",
            default_seed: 1,
            cluster: || streams_cluster(app(3, 1).with_dormant([2]), 6),
            faults: Faults::Schedule(streams_lifecycle),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 60_000,
                ..Expect::default()
            },
            check: streams_lifecycle_check,
        },
        Scenario {
            name: "classic-deleted-topic-offsets",
            description: "dynamic consumers read `orders` (6 partitions) and `events` (3) and \
                          commit both; `events` is deleted at 20 s: the coordinator writes \
                          tombstones for its offsets (onTopicsDeleted), so the offsets fetched at \
                          40 s, and after a coordinator fail-over at 60 s, are those of `orders` \
                          alone",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_topic("events", 3)
                    .with_classic(ClassicGroupSpec::new(GROUP, &["orders", "events"], 3, 1))
            },
            faults: Faults::Schedule(|| {
                vec![
                    call(15_000, GROUP, GroupAdminCall::FetchOffsets),
                    FaultWindow::at(
                        20_000,
                        FaultKind::DeleteTopic {
                            name: "events".into(),
                        },
                    ),
                    call(40_000, GROUP, GroupAdminCall::FetchOffsets),
                    crash_coordinator(45_000, GROUP, 5_000),
                    call(60_000, GROUP, GroupAdminCall::FetchOffsets),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 65_000,
                ..Expect::default()
            },
            check: deleted_topic_check,
        },
        Scenario {
            name: "classic-recreated-topic-offsets",
            description: "a simple group commits an offset of `events` by name; its coordinator \
                          is cut off from the controller at 10 s and misses `events` deleted at \
                          12 s and created again (a new topic id) at 14 s; the broker that takes \
                          the group over loads the offset under the old id: fetched by the new \
                          id it is no offset (isMismatchedTopicId), by name it is still there",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_topic("events", 3)
                    .with_classic(ClassicGroupSpec::new(GROUP, &["orders"], 2, 1))
            },
            faults: Faults::Schedule(|| {
                vec![
                    call(
                        5_000,
                        RECREATED,
                        GroupAdminCall::Scripted {
                            script: recreated_commit_script(),
                        },
                    ),
                    FaultWindow::at(
                        10_000,
                        FaultKind::FenceBroker {
                            broker: HostRef::coordinator_of(RECREATED),
                        },
                    )
                    .lasting(20_000),
                    FaultWindow::at(
                        12_000,
                        FaultKind::DeleteTopic {
                            name: "events".into(),
                        },
                    ),
                    FaultWindow::at(
                        14_000,
                        FaultKind::CreateTopic {
                            name: "events".into(),
                            partitions: 3,
                        },
                    ),
                    call(
                        40_000,
                        RECREATED,
                        GroupAdminCall::Scripted {
                            script: recreated_fetch_script(),
                        },
                    ),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 45_000,
                ..Expect::default()
            },
            check: recreated_topic_check,
        },
        Scenario {
            name: "classic-offsets-retention",
            description: "dynamic consumers leave their group at 20 s; its coordinator fails \
                          over at 25 s (the new one loads the empty group, a consumer group \
                          still); with a 1 minute offsets retention its offsets are still there at \
                          40 s and gone, with the group, by 95 s",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_classic(ClassicGroupSpec::new(GROUP, &["orders"], 3, 1))
                    .with_broker_config("offsets.retention.minutes", 1)
                    .with_broker_config("offsets.retention.check.interval.ms", 5_000)
            },
            faults: Faults::Schedule(|| {
                vec![
                    remove(20_000, GROUP, 0),
                    remove(20_000, GROUP, 1),
                    remove(20_000, GROUP, 2),
                    crash_coordinator(25_000, GROUP, 5_000),
                    call(40_000, GROUP, GroupAdminCall::FetchOffsets),
                    call(40_100, GROUP, GroupAdminCall::List),
                    call(95_000, GROUP, GroupAdminCall::FetchOffsets),
                    call(95_100, GROUP, GroupAdminCall::List),
                    call(95_200, GROUP, GroupAdminCall::Describe),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 100_000,
                ..Expect::default()
            },
            check: retention_check,
        },
        Scenario {
            name: "streams-offsets-retention",
            description: "both processes of a streams application leave at 20 s; with a 1 \
                          minute offsets retention the empty group's offsets are still there at \
                          40 s and gone, with the group, by 95 s; a coordinator fail-over after \
                          that does not bring them back",
            default_seed: 1,
            cluster: || {
                streams_cluster(app(2, 1), 6)
                    .with_broker_config("offsets.retention.minutes", 1)
                    .with_broker_config("offsets.retention.check.interval.ms", 5_000)
            },
            faults: Faults::Schedule(|| {
                vec![
                    remove(20_000, APP, 0),
                    remove(20_000, APP, 1),
                    call(40_000, APP, GroupAdminCall::FetchOffsets),
                    call(40_100, APP, GroupAdminCall::List),
                    call(95_000, APP, GroupAdminCall::FetchOffsets),
                    call(95_100, APP, GroupAdminCall::List),
                    call(95_200, APP, GroupAdminCall::Describe),
                    crash_coordinator(100_000, APP, 5_000),
                    call(115_000, APP, GroupAdminCall::Describe),
                    call(115_100, APP, GroupAdminCall::FetchOffsets),
                ]
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 120_000,
                ..Expect::default()
            },
            check: streams_retention_check,
        },
        Scenario {
            name: "classic-unsubscribed-offsets-expire",
            description: "the consumers of a group subscribed to `orders` stop at 20 s; the admin \
                          commits offsets of `legacy` for the empty group at 24 s; the consumers \
                          are back, Stable, from 30 s: with a 1 minute retention the offsets of \
                          `legacy`, which no member subscribes to, expire by commit time while the \
                          group is Stable (still there at 60 s, gone by 100 s), those of `orders` \
                          stay",
            default_seed: 1,
            cluster: || {
                ClusterSpec::default()
                    .with_topic("orders", 6)
                    .with_topic("legacy", 2)
                    .with_classic(ClassicGroupSpec::new(GROUP, &["orders"], 3, 1))
                    .with_broker_config("offsets.retention.minutes", 1)
                    .with_broker_config("offsets.retention.check.interval.ms", 5_000)
            },
            faults: Faults::Schedule(|| {
                let mut faults: Vec<FaultWindow> = (0..3)
                    .map(|i| {
                        FaultWindow::at(
                            20_000,
                            FaultKind::StopProcess {
                                host: HostRef::process(GROUP, i),
                            },
                        )
                        .lasting(10_000)
                    })
                    .collect();
                faults.extend([
                    call(24_000, GROUP, alter_offsets("legacy", &[0, 1], 7)),
                    call(60_000, GROUP, GroupAdminCall::FetchOffsets),
                    call(100_000, GROUP, GroupAdminCall::FetchOffsets),
                    call(100_100, GROUP, GroupAdminCall::List),
                ]);
                faults
            }),
            expect: Expect {
                faults_injected: true,
                min_duration_ms: 105_000,
                ..Expect::default()
            },
            check: unsubscribed_expiry_check,
        },
    ]
}

fn classic_lifecycle() -> Vec<FaultWindow> {
    use GroupAdminCall::*;
    vec![
        // The live group: the refusals.
        call(20_000, GROUP, Describe),
        call(20_000, GROUP, List),
        call(20_000, GROUP, FetchOffsets),
        call(20_000, GROUP, delete_offsets("orders", &[0])),
        call(20_000, GROUP, Delete),
        call(20_000, GROUP, alter_offsets("orders", &[0], 1)),
        // Static consumers close without LeaveGroup; the admin removes them.
        remove(21_000, GROUP, 0),
        remove(21_000, GROUP, 1),
        remove(21_000, GROUP, 2),
        FaultWindow::at(
            22_000,
            FaultKind::RemoveStaticMembers {
                group: GROUP.into(),
                instance_ids: (0..3).map(|i| format!("{GROUP}-{i}-0")).collect(),
            },
        ),
        // The empty group: everything is accepted.
        call(25_000, GROUP, Describe),
        call(25_000, GROUP, List),
        call(25_000, GROUP, FetchOffsets),
        call(25_000, GROUP, delete_offsets("orders", &[0])),
        call(25_000, GROUP, FetchOffsets),
        call(25_000, GROUP, alter_offsets("orders", &[0], 7)),
        call(25_000, GROUP, FetchOffsets),
        call(25_000, GROUP, Delete),
        call(25_000, GROUP, List),
        call(25_000, GROUP, Describe),
        call(25_000, GROUP, FetchOffsets),
        call(25_000, GROUP, Delete),
        // A group that only holds offsets.
        call(26_000, SIMPLE, alter_offsets("orders", &[1, 2], 3)),
        call(26_000, SIMPLE, List),
        call(26_000, SIMPLE, Describe),
        // The deleted group's coordinator fails over: the new one replays the tombstones.
        crash_coordinator(28_000, GROUP, 10_000),
        call(45_000, GROUP, Describe),
        call(45_000, GROUP, FetchOffsets),
        call(45_000, GROUP, List),
        call(45_000, SIMPLE, FetchOffsets),
    ]
}

fn streams_lifecycle() -> Vec<FaultWindow> {
    use GroupAdminCall::*;
    vec![
        call(20_000, APP, Describe),
        call(20_000, APP, List),
        call(20_000, APP, FetchOffsets),
        call(20_000, APP, delete_offsets("input", &[0])),
        call(20_000, APP, Delete),
        call(20_000, APP, alter_offsets("input", &[0], 1)),
        remove(21_000, APP, 0),
        remove(21_000, APP, 1),
        call(25_000, APP, Describe),
        call(25_000, APP, List),
        call(25_000, APP, FetchOffsets),
        call(25_000, APP, delete_offsets("input", &[0])),
        call(25_000, APP, alter_offsets("input", &[1], 7)),
        call(25_000, APP, FetchOffsets),
        call(25_000, APP, Delete),
        call(25_000, APP, List),
        call(25_000, APP, Describe),
        crash_coordinator(28_000, APP, 10_000),
        call(45_000, APP, Describe),
        call(45_000, APP, FetchOffsets),
        FaultWindow::at(
            46_000,
            FaultKind::StartProcess {
                host: HostRef::process(APP, 2),
            },
        ),
    ]
}

/// The answers about `group`, checked one by one in order.
struct Answers<'v> {
    group: &'static str,
    list: Vec<(i64, &'static str, &'v AdminAnswer)>,
    next: usize,
}

impl<'v> Answers<'v> {
    fn of(v: &View<'v>, group: &'static str) -> Self {
        Self {
            group,
            list: v.admin_answers(group),
            next: 0,
        }
    }

    /// The next answer, which must be to `call`: (time answered, answer).
    fn take(&mut self, call: &str) -> Result<(i64, &'v AdminAnswer), String> {
        let n = self.next;
        self.next += 1;
        match self.list.get(n) {
            Some((t, c, a)) if *c == call => Ok((*t, a)),
            Some((t, c, _)) => Err(format!(
                "{}: answer {n} (at {t} ms) is to {c}, expected {call}",
                self.group
            )),
            None => Err(format!(
                "{}: no answer {n} (to {call}): the admin answered {} calls",
                self.group,
                self.list.len()
            )),
        }
    }

    fn described(&mut self) -> Result<(i64, &'v DescribedGroupView), String> {
        match self.take("describe")? {
            (t, AdminAnswer::Described(d)) => Ok((t, d)),
            (t, other) => Err(format!("{}: describe at {t} ms: {other:?}", self.group)),
        }
    }

    /// A describe answering the group in `state` with protocol type and protocol as given.
    fn described_as(
        &mut self,
        state: &str,
        protocol_type: &str,
        protocol: &str,
    ) -> Result<(i64, &'v DescribedGroupView), String> {
        let (t, d) = self.described()?;
        ensure(
            d.error == "NONE"
                && d.state == state
                && d.protocol_type == protocol_type
                && d.protocol == protocol,
            || {
                format!(
                    "{}: described at {t} ms as {} {:?} {:?} (error {}), expected {state} \
                     {protocol_type:?} {protocol:?}",
                    self.group, d.state, d.protocol_type, d.protocol, d.error
                )
            },
        )?;
        Ok((t, d))
    }

    /// A call that failed with `code` (e.g. describing a group that does not exist).
    fn failed_with(&mut self, call: &str, code: &str) -> Result<(), String> {
        let (t, a) = self.take(call)?;
        let group = self.group;
        match a {
            AdminAnswer::Failed { reason } if reason.starts_with(code) => Ok(()),
            other => Err(format!(
                "{group}: {call} at {t} ms answered {other:?}, expected {code}"
            )),
        }
    }

    fn listed(&mut self) -> Result<(i64, &'v [ListedGroupView]), String> {
        match self.take("list")? {
            (t, AdminAnswer::Listed { groups }) => Ok((t, groups)),
            (t, other) => Err(format!("{}: list at {t} ms: {other:?}", self.group)),
        }
    }

    /// A list whose rows are exactly `rows` (group id, type, protocol type, state).
    fn listed_exactly(&mut self, rows: &[(&str, &str, &str, &str)]) -> Result<(), String> {
        let (t, groups) = self.listed()?;
        let got: Vec<(&str, &str, &str, &str)> = groups
            .iter()
            .map(|g| {
                (
                    g.group_id.as_str(),
                    g.group_type.as_str(),
                    g.protocol_type.as_str(),
                    g.state.as_str(),
                )
            })
            .collect();
        ensure(got == rows, || {
            format!(
                "{}: listed at {t} ms {got:?}, expected {rows:?}",
                self.group
            )
        })
    }

    fn offsets(&mut self) -> Result<(i64, BTreeMap<String, i64>), String> {
        match self.take("fetch-offsets")? {
            (t, AdminAnswer::Offsets { offsets }) => Ok((t, offsets.iter().cloned().collect())),
            (t, other) => Err(format!(
                "{}: fetch-offsets at {t} ms: {other:?}",
                self.group
            )),
        }
    }

    /// A fetch answering exactly `expected`.
    fn offsets_exactly(&mut self, expected: &BTreeMap<String, i64>) -> Result<(), String> {
        let (t, got) = self.offsets()?;
        ensure(got == *expected, || {
            format!(
                "{}: fetched at {t} ms {got:?}, expected {expected:?}",
                self.group
            )
        })
    }

    /// An OffsetDelete answering group error NONE and `partitions`.
    fn offsets_deleted(&mut self, partitions: &[(&str, &str)]) -> Result<(), String> {
        let group = self.group;
        match self.take("delete-offsets")? {
            (
                _,
                AdminAnswer::OffsetsDeleted {
                    error,
                    partitions: got,
                },
            ) if *error == "NONE"
                && got
                    .iter()
                    .map(|(p, e)| (p.as_str(), *e))
                    .eq(partitions.iter().copied()) =>
            {
                Ok(())
            }
            (t, other) => Err(format!(
                "{group}: delete-offsets at {t} ms answered {other:?}, expected {partitions:?}"
            )),
        }
    }

    fn offsets_altered(&mut self, partitions: &[(&str, &str)]) -> Result<(), String> {
        let group = self.group;
        match self.take("alter-offsets")? {
            (_, AdminAnswer::OffsetsAltered { partitions: got })
                if got
                    .iter()
                    .map(|(p, e)| (p.as_str(), *e))
                    .eq(partitions.iter().copied()) =>
            {
                Ok(())
            }
            (t, other) => Err(format!(
                "{group}: alter-offsets at {t} ms answered {other:?}, expected {partitions:?}"
            )),
        }
    }

    fn deleted(&mut self, code: &str) -> Result<(), String> {
        let group = self.group;
        match self.take("delete")? {
            (_, AdminAnswer::Deleted { error }) if *error == code => Ok(()),
            (t, other) => Err(format!(
                "{group}: delete at {t} ms answered {other:?}, expected {code}"
            )),
        }
    }

    fn done(&self) -> Result<(), String> {
        ensure(self.next == self.list.len(), || {
            format!(
                "{}: {} answers, {} expected",
                self.group,
                self.list.len(),
                self.next
            )
        })
    }
}

fn hosts(group: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| host(group, i)).collect()
}

/// A fetch of a live group: every partition in `partitions` answered with an offset no older
/// than the last commit accepted before the call and no newer than the last one accepted before
/// the answer (commits only move forward here).
fn live_offsets(
    v: &View,
    answers: &mut Answers,
    hosts: &[String],
    called_ms: i64,
    partitions: usize,
) -> Result<(), String> {
    let (t, got) = answers.offsets()?;
    let before = v.committed_until(hosts, called_ms);
    let after = v.committed_until(hosts, t);
    ensure(got.len() == partitions, || {
        format!("{}: fetched {got:?} at {t} ms", answers.group)
    })?;
    for (p, o) in &got {
        let low = before.get(p).copied().unwrap_or(-1);
        let high = after.get(p).copied().unwrap_or(-1);
        ensure(low <= *o && *o <= high, || {
            format!(
                "{}: {p} fetched as {o} at {t} ms; the members' commits say {low}..={high}",
                answers.group
            )
        })?;
    }
    Ok(())
}

/// Each described member is one process of `group` (by instance id, or by what it owns) and is
/// assigned what that process owned when the answer came.
fn members_match(
    v: &View,
    group: &str,
    d: &DescribedGroupView,
    t: i64,
    processes: usize,
) -> Result<(), String> {
    let mut described: Vec<Vec<String>> = d.members.iter().map(|m| m.assigned.clone()).collect();
    let mut owned: Vec<Vec<String>> = (0..processes)
        .map(|i| v.process_owned_at(&host(group, i), t).into_iter().collect())
        .collect();
    described.sort();
    owned.sort();
    ensure(described == owned, || {
        format!("{group}: described members own {described:?} at {t} ms, the processes {owned:?}")
    })
}

fn classic_lifecycle_check(v: &View) -> Result<(), String> {
    let hosts = hosts(GROUP, 3);
    let mut a = Answers::of(v, GROUP);
    // Live.
    let (t, d) = a.described_as("Stable", "consumer", "range")?;
    let ids: Vec<Option<&str>> = d.members.iter().map(|m| m.instance_id.as_deref()).collect();
    ensure(
        ids == [
            Some("billing-0-0"),
            Some("billing-1-0"),
            Some("billing-2-0"),
        ],
        || format!("described instance ids {ids:?}"),
    )?;
    members_match(v, GROUP, d, t, 3)?;
    a.listed_exactly(&[(GROUP, "classic", "consumer", "Stable")])?;
    live_offsets(v, &mut a, &hosts, 20_000, 6)?;
    a.offsets_deleted(&[("orders-0", "GROUP_SUBSCRIBED_TO_TOPIC")])?;
    a.deleted("NON_EMPTY_GROUP")?;
    // Kafka's `ClassicGroup.validateOffsetCommit`: without a member id or generation, offsets
    // are accepted only while the group is empty.
    a.offsets_altered(&[("orders-0", "UNKNOWN_MEMBER_ID")])?;
    // Empty: the members closed (no commits after), the admin removed them.
    let (_, d) = a.described_as("Empty", "consumer", "")?;
    ensure(d.members.is_empty(), || {
        format!("members {:?} in an empty group", d.members)
    })?;
    a.listed_exactly(&[(GROUP, "classic", "consumer", "Empty")])?;
    let mut last = v.committed_until(&hosts, i64::MAX);
    ensure(last.len() == 6, || {
        format!("the members committed {last:?}")
    })?;
    a.offsets_exactly(&last)?;
    a.offsets_deleted(&[("orders-0", "NONE")])?;
    last.remove("orders-0");
    a.offsets_exactly(&last)?;
    a.offsets_altered(&[("orders-0", "NONE")])?;
    last.insert("orders-0".into(), 7);
    a.offsets_exactly(&last)?;
    a.deleted("NONE")?;
    a.listed_exactly(&[])?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    a.offsets_exactly(&BTreeMap::new())?;
    a.deleted("GROUP_ID_NOT_FOUND")?;
    // After the fail-over.
    v.injected("crash")?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    a.offsets_exactly(&BTreeMap::new())?;
    a.listed_exactly(&[(SIMPLE, "classic", "", "Empty")])?;
    a.done()?;
    // The simple group.
    let mut s = Answers::of(v, SIMPLE);
    s.offsets_altered(&[("orders-1", "NONE"), ("orders-2", "NONE")])?;
    s.listed_exactly(&[(SIMPLE, "classic", "", "Empty")])?;
    let (_, d) = s.described_as("Empty", "", "")?;
    ensure(d.members.is_empty(), || format!("members {:?}", d.members))?;
    s.offsets_exactly(&BTreeMap::from([
        ("orders-1".to_string(), 3),
        ("orders-2".to_string(), 3),
    ]))?;
    s.done()
}

fn streams_lifecycle_check(v: &View) -> Result<(), String> {
    let hosts = hosts(APP, 2);
    let mut a = Answers::of(v, APP);
    let (t, d) = a.described_as("Stable", "", "")?;
    ensure(
        d.epoch == v.epoch_at(APP, t) && d.members.len() == 2,
        || {
            format!(
                "described epoch {} with {} members at {t} ms; the records say epoch {}",
                d.epoch,
                d.members.len(),
                v.epoch_at(APP, t)
            )
        },
    )?;
    let live_epoch = d.epoch;
    members_match(v, APP, d, t, 2)?;
    a.listed_exactly(&[(APP, "streams", "streams", "Stable")])?;
    live_offsets(v, &mut a, &hosts, 20_000, 6)?;
    a.offsets_deleted(&[("input-0", "GROUP_SUBSCRIBED_TO_TOPIC")])?;
    a.deleted("NON_EMPTY_GROUP")?;
    // An admin commit (member epoch -1) is refused while the group has members.
    a.offsets_altered(&[("input-0", "UNKNOWN_MEMBER_ID")])?;
    // Both members left (epoch -1): the group is empty at a later epoch.
    let (t, d) = a.described_as("Empty", "", "")?;
    ensure(d.members.is_empty() && d.epoch > live_epoch, || {
        format!(
            "described at {t} ms: epoch {} with {:?}, after epoch {live_epoch}",
            d.epoch, d.members
        )
    })?;
    a.listed_exactly(&[(APP, "streams", "streams", "Empty")])?;
    let mut last = v.committed_until(&hosts, 46_000);
    ensure(last.len() == 6, || {
        format!("the members committed {last:?}")
    })?;
    a.offsets_exactly(&last)?;
    // The empty group takes offset deletion and an admin commit.
    a.offsets_deleted(&[("input-0", "NONE")])?;
    last.remove("input-0");
    a.offsets_altered(&[("input-1", "NONE")])?;
    last.insert("input-1".into(), 7);
    a.offsets_exactly(&last)?;
    a.deleted("NONE")?;
    a.listed_exactly(&[])?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    v.injected("crash")?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    a.offsets_exactly(&BTreeMap::new())?;
    a.done()?;
    // The process started at 46 s creates the group afresh: its first epoch is the one the
    // group began with at the start of the run, not one past the deleted group's.
    let epochs = v.streams_epochs(APP);
    let first = epochs.first().map(|(_, e)| *e);
    let again = epochs.iter().find(|(t, _)| *t >= 46_000).map(|(_, e)| *e);
    ensure(first.is_some() && again == first, || {
        format!("the group began at epoch {first:?} and began again at {again:?}")
    })
}

fn deleted_topic_check(v: &View) -> Result<(), String> {
    let hosts = hosts(GROUP, 3);
    let mut a = Answers::of(v, GROUP);
    live_offsets(v, &mut a, &hosts, 15_000, 9)?;
    let (deleted, _) = v.injected("delete-topic")?;
    // The consumers keep committing `events` with `orders` until their metadata says it is gone;
    // the broker refuses the deleted topic's partitions (UNKNOWN_TOPIC_OR_PARTITION) and the
    // commit fails as a whole for the consumer, but `orders` is stored: its offsets can only be at
    // or past what the consumers had committed by the deletion.
    let before = v.committed_until(&hosts, deleted);
    for _ in 0..2 {
        let (t, got) = a.offsets()?;
        let partitions: Vec<&str> = got.keys().map(String::as_str).collect();
        let want: Vec<String> = (0..6).map(|p| format!("orders-{p}")).collect();
        ensure(partitions == want, || {
            format!("{GROUP}: fetched {got:?} at {t} ms; the offsets of orders alone expected")
        })?;
        at_or_past(t, &got, &before, deleted)?;
    }
    a.done()
}

/// Every offset `got` (fetched at `t` ms) is at or past what the members had committed by `by_ms`
/// (`before`): they keep committing while the admin fetches.
fn at_or_past(
    t: i64,
    got: &BTreeMap<String, i64>,
    before: &BTreeMap<String, i64>,
    by_ms: i64,
) -> Result<(), String> {
    for (p, o) in got {
        let low = before.get(p).copied().unwrap_or(-1);
        ensure(*o >= low, || {
            format!("{GROUP}: {p} fetched as {o} at {t} ms, below {low} committed by {by_ms} ms")
        })?;
    }
    Ok(())
}

/// The expiration of a Stable consumer group's offsets (Kafka's `offsetExpirationCondition` and
/// `isSubscribedToTopic`: by commit time, for the topics its members' subscriptions do not name):
/// `legacy`'s offsets go, `orders`' stay, the group stays.
fn unsubscribed_expiry_check(v: &View) -> Result<(), String> {
    let hosts = hosts(GROUP, 3);
    let mut a = Answers::of(v, GROUP);
    a.offsets_altered(&[("legacy-0", "NONE"), ("legacy-1", "NONE")])?;
    // The members' offsets can only be at or past what they had committed when they stopped (20 s)
    // and, by 100 s, past what they had by 60 s; `legacy`'s are the admin's until they expire.
    let orders: Vec<String> = (0..6).map(|p| format!("orders-{p}")).collect();
    for (by_ms, with_legacy) in [(20_000, true), (60_000, false)] {
        let (t, mut got) = a.offsets()?;
        let legacy: Vec<(String, i64)> = ["legacy-0", "legacy-1"]
            .into_iter()
            .filter_map(|p| got.remove_entry(p))
            .collect();
        let want_legacy = if with_legacy { vec![7, 7] } else { vec![] };
        ensure(
            got.keys().eq(orders.iter())
                && legacy
                    .iter()
                    .map(|(_, o)| *o)
                    .eq(want_legacy.iter().copied()),
            || {
                format!(
                    "{GROUP}: fetched at {t} ms {got:?} and {legacy:?}, expected the partitions \
                     of orders and legacy at {want_legacy:?}"
                )
            },
        )?;
        at_or_past(t, &got, &v.committed_until(&hosts, by_ms), by_ms)?;
    }
    a.listed_exactly(&[(GROUP, "classic", "consumer", "Stable")])?;
    a.done()
}

fn retention_check(v: &View) -> Result<(), String> {
    let hosts = hosts(GROUP, 3);
    let mut a = Answers::of(v, GROUP);
    let last = v.committed_until(&hosts, i64::MAX);
    ensure(last.len() == 6, || {
        format!("the members committed {last:?}")
    })?;
    a.offsets_exactly(&last)?;
    // Listed after the fail-over: the empty group the new coordinator loaded from its GroupMetadata
    // record keeps the record's protocol type (`ClassicGroup.fromRecord`).
    v.injected("crash")?;
    a.listed_exactly(&[(GROUP, "classic", "consumer", "Empty")])?;
    a.offsets_exactly(&BTreeMap::new())?;
    a.listed_exactly(&[])?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    a.done()
}

/// The expiration of an empty streams group's offsets and then of the group: Kafka's periodic
/// clean-up covers streams groups too (the offsets go a retention after their commit, then the
/// group, which is empty, with them; the tombstones survive fail-over).
fn streams_retention_check(v: &View) -> Result<(), String> {
    let hosts = hosts(APP, 2);
    let mut a = Answers::of(v, APP);
    let last = v.committed_until(&hosts, i64::MAX);
    ensure(last.len() == 6, || {
        format!("the members committed {last:?}")
    })?;
    a.offsets_exactly(&last)?;
    a.listed_exactly(&[(APP, "streams", "streams", "Empty")])?;
    a.offsets_exactly(&BTreeMap::new())?;
    a.listed_exactly(&[])?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    v.injected("crash")?;
    a.failed_with("describe", "GROUP_ID_NOT_FOUND")?;
    a.offsets_exactly(&BTreeMap::new())?;
    a.done()
}

/// A topic id in Kafka's string form.
fn id_string(id: uuid::Uuid) -> String {
    protocol::json::kafka_uuid_string(id.as_bytes())
}

/// `classic-recreated-topic-offsets`' first call: line 1 commits offset 42 of `events`-0 by name
/// (the broker stores it under the topic's id, the first incarnation's).
fn recreated_commit_script() -> String {
    let partition = json!({"partitionIndex": 0, "committedOffset": 42});
    json!({
        "request": {"api": "OffsetCommit", "version": 9, "body": {
            "groupId": RECREATED, "generationIdOrMemberEpoch": -1, "memberId": "",
            "topics": [{"name": "events", "partitions": [partition]}],
        }},
        "expect": {"response": {"topics": [
            {"name": "events", "partitions": [{"partitionIndex": 0, "errorCode": 0}]},
        ]}},
    })
    .to_string()
}

/// Its second call (lines 2-4, after an empty line 1): `events`-0 fetched by the new incarnation's
/// id (no offset: Kafka's `isMismatchedTopicId`, both ids known and different), by name (the
/// stored offset: a name carries no id to compare) and by the old id (UNKNOWN_TOPIC_ID: no topic
/// has it any more).
fn recreated_fetch_script() -> String {
    let new_id = id_string(coordinator::controller::incarnation_topic_id("events", 1));
    let old_id = id_string(coordinator::topics::derived_topic_id("events"));
    // One OffsetFetch of `events`-0 named by `topic` (a JSON object holding `name` or `topicId`),
    // expecting `offset` and `error`.
    let fetch = |topic: serde_json::Value, version: i16, offset: i64, error: i16| {
        let mut asked = topic.clone();
        asked["partitionIndexes"] = json!([0]);
        let mut answered = topic;
        answered["partitions"] =
            json!([{"partitionIndex": 0, "committedOffset": offset, "errorCode": error}]);
        json!({
            "request": {"api": "OffsetFetch", "version": version, "body": {
                "groups": [{"groupId": RECREATED, "topics": [asked]}],
                "requireStable": false,
            }},
            "expect": {"response": {"groups": [
                {"groupId": RECREATED, "errorCode": 0, "topics": [answered]},
            ]}},
        })
        .to_string()
    };
    let by_new = fetch(json!({"topicId": new_id}), 10, -1, 0);
    let by_name = fetch(json!({"name": "events"}), 9, 42, 0);
    let by_old = fetch(json!({"topicId": old_id}), 10, -1, 100);
    format!("\n{by_new}\n{by_name}\n{by_old}")
}

fn recreated_topic_check(v: &View) -> Result<(), String> {
    let (cut_at, _) = v.injected("fence-broker")?;
    let deleted = v.injected("delete-topic")?.0;
    let created = v.injected("create-topic")?.0;
    ensure(cut_at < deleted && deleted < created, || {
        format!(
            "the cut ({cut_at} ms), deletion ({deleted} ms) and creation ({created} ms) are out of order"
        )
    })?;
    // The commit script is line 1 and the fetch script starts with an empty line, so their
    // concatenation numbers every request as it was sent.
    super::rude::script_check(
        v,
        &format!("{}{}", recreated_commit_script(), recreated_fetch_script()),
        RECREATED,
        "scenarios/src/catalogue/admin.rs (recreated_fetch_script)",
    )
}

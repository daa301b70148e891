//! 6. convergence: after the last fault heals, within the stated bound, every group is stable at
//!    its group epoch, every task has exactly one active owner, standbys are placed as
//!    configured, no member is stuck.
//!
//! [`check`] compares the committed group state with what every live client reports:
//! * streams: the group's target assignment epoch is its group epoch; the coordinator's members
//!   are exactly the live clients; every member is STABLE at the group epoch with nothing pending
//!   revocation, and owns exactly the tasks the coordinator lists for it; every task of the
//!   topology (partition counts of its input topics) has exactly one active owner; every stateful
//!   task has min(standby replicas, processes - 1) standbys on distinct processes other than the
//!   active's;
//! * classic: the generation's members are exactly the live clients, each STABLE at that
//!   generation owning the partitions the generation assigned it, and every partition of the
//!   subscribed topics is owned exactly once.

use std::collections::{BTreeMap, BTreeSet};

use members::observer::ClientKind;

use super::{Checker, ClientState};
use crate::model::Model;

/// What a group must converge to.
#[derive(Debug, Clone, PartialEq)]
pub enum Expectation {
    Streams {
        group: String,
        num_standby_replicas: i32,
        /// Member threads of all its processes (every process runs after the final heal).
        members: usize,
    },
    Classic {
        group: String,
        /// The subscribed topics.
        topics: Vec<String>,
        /// Subscribed topics that must exist by then (created at start or by a fault); a
        /// subscription to a topic nobody creates is legal and simply matches nothing.
        required: Vec<String>,
        /// Consumers of all its processes.
        members: usize,
    },
    /// A consumer-protocol group ([`super::consumer::converged`]).
    Consumer {
        group: String,
        /// The process hosts expected to speak the classic protocol at the end (classic members
        /// inside the consumer group, online migration); the others speak the consumer protocol.
        classic_hosts: BTreeSet<String>,
        /// The subscribed topics.
        topics: Vec<String>,
        /// Subscribed topics that must exist by then.
        required: Vec<String>,
        /// Consumers of all its processes.
        members: usize,
    },
}

impl Expectation {
    pub fn group(&self) -> &str {
        match self {
            Expectation::Streams { group, .. }
            | Expectation::Classic { group, .. }
            | Expectation::Consumer { group, .. } => group,
        }
    }

    pub fn members(&self) -> usize {
        match self {
            Expectation::Streams { members, .. }
            | Expectation::Classic { members, .. }
            | Expectation::Consumer { members, .. } => *members,
        }
    }

    pub fn set_members(&mut self, n: usize) {
        match self {
            Expectation::Streams { members, .. }
            | Expectation::Classic { members, .. }
            | Expectation::Consumer { members, .. } => *members = n,
        }
    }
}

/// The first thing not yet converged: what, in words, and when the harness can tell, the kind of
/// difference it is (a [`super::Violation::kind`], which `crate::known` matches).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotConverged {
    pub detail: String,
    pub kind: Option<&'static str>,
}

impl From<String> for NotConverged {
    fn from(detail: String) -> Self {
        Self { detail, kind: None }
    }
}

/// The kind of a streams member that owns exactly what the coordinator last told it, while the
/// coordinator has since changed its assignment (the member and the coordinator both STABLE at
/// the group epoch) and at least one of the member's heartbeats since got no successful answer:
/// the response that carried the change was lost, and Kafka 4.4 never sends it again
/// (docs/findings.md, "A lost streams assignment is never sent again").
pub const STREAMS_ASSIGNMENT_LOST_IN_FLIGHT: &str = "streams-assignment-lost-in-flight";

/// The kind of a classic group whose missing members all died of FENCED_INSTANCE_ID with the mark
/// of Kafka 4.4's static-member fencing after a coordinator move ([`fenced_after_coordinator_move`]),
/// while the rest of the group converged (docs/findings.md, "A static member's new id is lost when
/// the coordinator moves").
pub const CLASSIC_STATIC_MEMBER_FENCED_AFTER_MOVE: &str =
    "classic-static-member-fenced-after-coordinator-move";

/// Whether a static consumer that just died of FENCED_INSTANCE_ID bears the mark of Kafka 4.4's
/// fencing after a coordinator move: the committed GroupMetadata of its group (what a loading
/// coordinator starts from) maps its instance id to another member id than the one it holds, a
/// coordinator loaded the group's partition after the JoinGroup that handed out that id was sent (the
/// id lived only in the memory of a coordinator that is gone, or of a zombie), and that JoinGroup
/// was answered with a generation the committed records had not reached (a join phase completed:
/// Kafka writes the id only with that generation's record, at SyncGroup). A coordinator that fenced
/// a member whose id it had committed, or fenced without having moved, does not match; nor does an
/// id handed out at the committed generation (a Stable replacement, which Kafka 4.4 writes before
/// it answers: KAFKA-10284).
pub fn fenced_after_coordinator_move(
    c: &ClientState,
    model: &Model,
    loaded_ms: &BTreeMap<i32, i64>,
) -> bool {
    let Some(instance) = c.instance_id.as_deref() else {
        return false;
    };
    let Some(g) = model.classic.get(&c.group).filter(|g| g.exists) else {
        return false;
    };
    let committed_other = g
        .members
        .iter()
        .any(|m| m.instance_id.as_deref() == Some(instance) && m.member_id != c.member_id);
    let moved_since_join = match (c.id_join_sent_ms, loaded_ms.get(&g.partition)) {
        (Some(join), Some(load)) => *load >= join,
        _ => false,
    };
    committed_other && moved_since_join && c.id_generation_uncommitted == Some(true)
}

/// Checks every group; `Ok` carries (group, epoch) of each, `Err` the first thing not yet
/// converged.
pub fn check(
    expectations: &[Expectation],
    model: &Model,
    checker: &Checker,
    topic_partitions: &BTreeMap<String, i32>,
) -> Result<Vec<(String, i32)>, NotConverged> {
    let mut done = Vec::new();
    for e in expectations {
        let clients: Vec<(&String, &ClientState)> = checker
            .live_clients()
            .filter(|(_, c)| c.group == e.group())
            .filter(|(_, c)| {
                matches!(
                    c.kind,
                    ClientKind::StreamsMember | ClientKind::Consumer | ClientKind::AsyncConsumer
                )
            })
            .collect();
        if let Expectation::Classic {
            group,
            topics,
            required,
            members,
        } = e
            && clients.len() < *members
        {
            // A dead consumer whose instance id a running one holds (a duplicate instance that
            // fenced it) is not missing: the expectation counted the pair once.
            let held: BTreeSet<&str> = clients
                .iter()
                .filter_map(|(_, c)| c.instance_id.as_deref())
                .collect();
            let fenced: Vec<&String> = checker
                .clients
                .iter()
                .filter(|(_, c)| c.group == *group && c.stopped && c.fenced_after_coordinator_move)
                .filter(|(_, c)| c.instance_id.as_deref().is_none_or(|i| !held.contains(i)))
                .map(|(name, _)| name)
                .collect();
            if !fenced.is_empty() && clients.len() + fenced.len() == *members {
                // The rest of the group must still converge without them.
                let generation =
                    classic(group, topics, required, model, &clients, topic_partitions)
                        .map_err(NotConverged::from)?;
                return Err(NotConverged {
                    detail: format!(
                        "group {group}: {fenced:?} died of FENCED_INSTANCE_ID after a coordinator \
                         move (their member ids were never committed); the other {} members \
                         converged at generation {generation}",
                        clients.len()
                    ),
                    kind: Some(CLASSIC_STATIC_MEMBER_FENCED_AFTER_MOVE),
                });
            }
        }
        if let Expectation::Consumer {
            group,
            required,
            members,
            ..
        } = e
            && clients.len() < *members
        {
            super::consumer::check_unreleased_deaths(
                group,
                required,
                *members,
                model,
                checker,
                &clients,
                topic_partitions,
            )?;
        }
        if clients.len() != e.members() {
            return Err(format!(
                "group {}: {} of {} members are running",
                e.group(),
                clients.len(),
                e.members()
            )
            .into());
        }
        // Each live member speaks the protocol its process ends with (a process switching
        // protocols counts only once its new incarnation runs).
        for (name, c) in &clients {
            let expected = match e {
                Expectation::Streams { .. } => ClientKind::StreamsMember,
                Expectation::Classic { .. } => ClientKind::Consumer,
                Expectation::Consumer { classic_hosts, .. } if classic_hosts.contains(&c.host) => {
                    ClientKind::Consumer
                }
                Expectation::Consumer { .. } => ClientKind::AsyncConsumer,
            };
            if c.kind != expected {
                return Err(format!(
                    "group {}: {name} is a {:?} client, a {expected:?} one expected",
                    e.group(),
                    c.kind
                )
                .into());
            }
        }
        if e.members() == 0 {
            // A group expected to end empty (its application shut down): the coordinator must
            // have no member left.
            done.push((
                e.group().to_string(),
                empty(e, model).map_err(NotConverged::from)?,
            ));
            continue;
        }
        let epoch = match e {
            Expectation::Streams {
                group,
                num_standby_replicas,
                ..
            } => streams(
                group,
                *num_standby_replicas,
                model,
                &clients,
                topic_partitions,
            )?,
            Expectation::Classic {
                group,
                topics,
                required,
                ..
            } => classic(group, topics, required, model, &clients, topic_partitions)
                .map_err(NotConverged::from)?,
            Expectation::Consumer {
                group, required, ..
            } => super::consumer::converged(group, required, model, &clients, topic_partitions)
                .map_err(NotConverged::from)?,
        };
        done.push((e.group().to_string(), epoch));
    }
    Ok(done)
}

/// The epoch of a group that must have no member left (-1 if it does not exist).
fn empty(e: &Expectation, model: &Model) -> Result<i32, String> {
    let (count, epoch) = match e {
        Expectation::Streams { group, .. } => match model.streams.get(group).filter(|g| g.exists) {
            Some(g) => (g.live_members().count(), g.epoch),
            None => (0, -1),
        },
        Expectation::Classic { group, .. } => match model.classic.get(group).filter(|g| g.exists) {
            Some(g) => (g.members.len(), g.generation),
            None => (0, -1),
        },
        Expectation::Consumer { group, .. } => super::consumer::empty(group, model),
    };
    if count > 0 {
        return Err(format!(
            "group {}: {count} members left at the coordinator, none expected",
            e.group()
        ));
    }
    Ok(epoch)
}

fn same_members(
    group: &str,
    coordinator: BTreeSet<&str>,
    clients: &[(&String, &ClientState)],
) -> Result<(), String> {
    let live: BTreeSet<&str> = clients.iter().map(|(_, c)| c.member_id.as_str()).collect();
    if coordinator != live {
        let extra: Vec<&&str> = coordinator.difference(&live).collect();
        let missing: Vec<&&str> = live.difference(&coordinator).collect();
        return Err(format!(
            "group {group}: the coordinator's members differ from the live clients (only at the \
             coordinator: {extra:?}; only live: {missing:?})"
        ));
    }
    Ok(())
}

/// Whether a streams member's difference from its coordinator assignment is the mark of an
/// assignment lost in flight ([`STREAMS_ASSIGNMENT_LOST_IN_FLIGHT`]): the member owns exactly the
/// task lists of the last response that carried any (so the member did its part), they differ
/// from what the coordinator now assigns it (so the change reached no response the member read),
/// and a heartbeat of the member went unanswered since (the response that carried the change).
/// A coordinator that left a changed assignment out of a response that did arrive, or a member
/// that did not reconcile to a response it read, does not match.
fn assignment_lost_in_flight(
    c: &ClientState,
    assigned: (&BTreeSet<String>, &BTreeSet<String>),
) -> bool {
    let owned = (&c.active, &c.standby);
    match &c.delivered {
        Some((active, standby)) => {
            (active, standby) == owned
                && (active, standby) != assigned
                && c.heartbeats_unanswered_since_delivery > 0
        }
        None => false,
    }
}

fn streams(
    group: &str,
    num_standby: i32,
    model: &Model,
    clients: &[(&String, &ClientState)],
    topic_partitions: &BTreeMap<String, i32>,
) -> Result<i32, NotConverged> {
    let g = model
        .streams
        .get(group)
        .filter(|g| g.exists)
        .ok_or_else(|| format!("streams group {group} does not exist"))?;
    if g.assignment_epoch != g.epoch {
        return Err(format!(
            "streams group {group}: target assignment epoch {} behind group epoch {}",
            g.assignment_epoch, g.epoch
        )
        .into());
    }
    same_members(
        group,
        g.live_members().map(|(m, _)| m.as_str()).collect(),
        clients,
    )
    .map_err(NotConverged::from)?;
    for (id, m) in g.live_members() {
        let a = m
            .assignment
            .as_ref()
            .ok_or_else(|| format!("streams group {group}: member {id} has no assignment"))?;
        let pending = !a.active_tasks_pending_revocation.is_empty()
            || !a.standby_tasks_pending_revocation.is_empty()
            || !a.warmup_tasks_pending_revocation.is_empty();
        if a.member_epoch != g.epoch || a.state != 1 || pending {
            return Err(format!(
                "streams group {group}: member {id} at epoch {} (group epoch {}), state {}, \
                 pending revocation: {pending}",
                a.member_epoch, g.epoch, a.state
            )
            .into());
        }
    }
    let mut active_owner: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    let mut standby_procs: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for (name, c) in clients {
        if c.state != "STABLE" || c.epoch != g.epoch {
            return Err(format!(
                "streams group {group}: {name} is {} at epoch {} (group epoch {})",
                c.state, c.epoch, g.epoch
            )
            .into());
        }
        let m = &g.members[&c.member_id];
        let coord_active: BTreeSet<String> =
            m.active().iter().map(|(s, p)| format!("{s}_{p}")).collect();
        let coord_standby: BTreeSet<String> = m
            .standby()
            .iter()
            .map(|(s, p)| format!("{s}_{p}"))
            .collect();
        if c.active != coord_active || c.standby != coord_standby {
            let lost = assignment_lost_in_flight(c, (&coord_active, &coord_standby));
            let detail = format!(
                "streams group {group}: {name} owns active {:?} standby {:?}, the coordinator \
                 assigned active {:?} standby {:?}{}",
                c.active,
                c.standby,
                coord_active,
                coord_standby,
                if lost {
                    format!(
                        "; the last assignment a response delivered is what it owns, and {} of \
                         its heartbeats since went unanswered",
                        c.heartbeats_unanswered_since_delivery
                    )
                } else {
                    String::new()
                }
            );
            return Err(NotConverged {
                detail,
                kind: lost.then_some(STREAMS_ASSIGNMENT_LOST_IN_FLIGHT),
            });
        }
        for t in &c.active {
            active_owner
                .entry(t.clone())
                .or_default()
                .push(c.process_id.as_str());
        }
        for t in &c.standby {
            standby_procs
                .entry(t.clone())
                .or_default()
                .push(c.process_id.as_str());
        }
    }
    let topology = g
        .topology
        .as_ref()
        .ok_or_else(|| format!("streams group {group} has no topology"))?;
    let processes: BTreeSet<&str> = clients.iter().map(|(_, c)| c.process_id.as_str()).collect();
    let want_standbys = (num_standby.max(0) as usize).min(processes.len().saturating_sub(1));
    for s in &topology.subtopologies {
        let mut count = 0;
        for t in &s.source_topics {
            count = count.max(*topic_partitions.get(t).unwrap_or(&0));
        }
        for t in &s.repartition_source_topics {
            count = count.max(*topic_partitions.get(&t.name).unwrap_or(&t.partitions));
        }
        if count == 0 {
            return Err(format!(
                "streams group {group}: the input topics of subtopology {} do not exist",
                s.subtopology_id
            )
            .into());
        }
        let stateful = !s.state_changelog_topics.is_empty();
        for p in 0..count {
            let task = format!("{}_{p}", s.subtopology_id);
            let owners = active_owner.get(&task).cloned().unwrap_or_default();
            if owners.len() != 1 {
                return Err(format!(
                    "streams group {group}: task {task} has {} active owners",
                    owners.len()
                )
                .into());
            }
            if stateful {
                let standbys = standby_procs.get(&task).cloned().unwrap_or_default();
                let distinct: BTreeSet<&str> = standbys.iter().copied().collect();
                if standbys.len() != want_standbys
                    || distinct.len() != standbys.len()
                    || distinct.contains(owners[0])
                {
                    return Err(format!(
                        "streams group {group}: task {task} (active on process {}) has standbys \
                         on processes {standbys:?}; {want_standbys} expected on distinct other \
                         processes",
                        owners[0]
                    )
                    .into());
                }
            }
        }
    }
    Ok(g.epoch)
}

fn classic(
    group: &str,
    topics: &[String],
    required: &[String],
    model: &Model,
    clients: &[(&String, &ClientState)],
    topic_partitions: &BTreeMap<String, i32>,
) -> Result<i32, String> {
    let g = model
        .classic
        .get(group)
        .filter(|g| g.exists)
        .ok_or_else(|| format!("classic group {group} does not exist"))?;
    same_members(
        group,
        g.members.iter().map(|m| m.member_id.as_str()).collect(),
        clients,
    )?;
    let mut owners: BTreeMap<String, usize> = BTreeMap::new();
    for (name, c) in clients {
        if c.state != "STABLE" || c.epoch != g.generation || c.owned_epoch != g.generation {
            return Err(format!(
                "classic group {group}: {name} is {} at generation {} (group generation {})",
                c.state, c.epoch, g.generation
            ));
        }
        let assigned: BTreeSet<String> = g
            .members
            .iter()
            .find(|m| m.member_id == c.member_id)
            .map(|m| m.partitions.iter().map(|tp| tp.to_string()).collect())
            .unwrap_or_default();
        if c.active != assigned {
            return Err(format!(
                "classic group {group}: {name} owns {:?}, generation {} assigned it {:?}",
                c.active, g.generation, assigned
            ));
        }
        for p in &c.active {
            *owners.entry(p.clone()).or_default() += 1;
        }
    }
    for t in topics {
        let n = *topic_partitions.get(t).unwrap_or(&0);
        if n == 0 && required.contains(t) {
            return Err(format!(
                "classic group {group}: topic {t} does not exist yet"
            ));
        }
        for p in 0..n {
            let tp = format!("{t}-{p}");
            let count = owners.get(&tp).copied().unwrap_or(0);
            if count != 1 {
                return Err(format!("classic group {group}: {tp} has {count} owners"));
            }
        }
    }
    Ok(g.generation)
}

#[cfg(test)]
mod tests {
    use coordinator::Record;
    use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
    use members::observer::{ClientRef, EventKind, TopicPartition};

    use super::*;

    fn setup(assign_b: &[i32]) -> (Model, Checker) {
        let encode = |p: &[i32]| {
            let tps: Vec<TopicPartition> = p.iter().map(|p| TopicPartition::new("t", *p)).collect();
            members::classic::protocol::encode_assignment(&tps).to_vec()
        };
        let member = |id: &str, p: &[i32]| MemberMetadata {
            member_id: id.into(),
            group_instance_id: None,
            client_id: "c".into(),
            client_host: "/h".into(),
            rebalance_timeout: 1,
            session_timeout: 1,
            subscription: vec![],
            assignment: encode(p),
        };
        let mut model = Model::default();
        model.apply(
            0,
            0,
            0,
            &Record::GroupMetadata {
                key: GroupMetadataKey { group: "g".into() },
                value: Some(GroupMetadataValue {
                    protocol_type: "consumer".into(),
                    generation: 2,
                    protocol: Some("range".into()),
                    leader: Some("A".into()),
                    current_state_timestamp: 0,
                    members: vec![member("A", &[0]), member("B", assign_b)],
                }),
            },
            0,
        );
        let mut c = Checker::new();
        for (name, id, parts) in [("c1", "A", vec![0]), ("c2", "B", assign_b.to_vec())] {
            let client = ClientRef {
                kind: ClientKind::Consumer,
                name: name.into(),
                group_id: "g".into(),
                instance_id: None,
                process_id: String::new(),
            };
            let events = [
                EventKind::StateChanged {
                    from: "COMPLETING_REBALANCE",
                    to: "STABLE",
                },
                EventKind::EpochChanged { from: -1, to: 2 },
                EventKind::OwnedPartitions {
                    generation: 2,
                    partitions: parts.iter().map(|p| TopicPartition::new("t", *p)).collect(),
                },
            ];
            for (i, e) in events.iter().enumerate() {
                c.on_client_parts(i as u64, 1, "h", &client, id, e, &mut model)
                    .unwrap();
            }
        }
        (model, c)
    }

    /// A streams member's view as the checker builds it from the member's events: it is told
    /// `delivered` (active tasks of subtopology 0), then `failed` heartbeats get no successful
    /// answer, then it owns `owned`.
    fn streams_member(delivered: &[i32], failed: usize, owned: &[i32]) -> ClientState {
        let task = |p: &i32| members::observer::TaskId::new("0", *p);
        let client = ClientRef {
            kind: ClientKind::StreamsMember,
            name: "app-0/StreamThread-1".into(),
            group_id: "app".into(),
            instance_id: None,
            process_id: "p0".into(),
        };
        let heartbeat_failures = [
            EventKind::RequestFailed {
                broker: "broker-1:9092".into(),
                api: protocol::Api::StreamsGroupHeartbeat,
                correlation_id: 7,
                failure: members::observer::RequestFailure::TimedOut,
            },
            EventKind::ResponseReceived {
                broker: "broker-1:9092".into(),
                api: protocol::Api::StreamsGroupHeartbeat,
                correlation_id: 8,
                error: Some(protocol::ErrorCode::CoordinatorNotAvailable),
            },
        ];
        let mut events = vec![
            // Neither a failed commit nor a successful heartbeat counts.
            EventKind::RequestFailed {
                broker: "broker-1:9092".into(),
                api: protocol::Api::OffsetCommit,
                correlation_id: 5,
                failure: members::observer::RequestFailure::TimedOut,
            },
            EventKind::AssignmentReceived {
                epoch: 3,
                active: delivered.iter().map(task).collect(),
                standby: vec![],
                warmup: vec![],
            },
            EventKind::ResponseReceived {
                broker: "broker-1:9092".into(),
                api: protocol::Api::StreamsGroupHeartbeat,
                correlation_id: 6,
                error: None,
            },
        ];
        events.extend(heartbeat_failures.iter().cycle().take(failed).cloned());
        events.push(EventKind::OwnedTasks {
            epoch: 3,
            active: owned.iter().map(task).collect(),
            standby: vec![],
            warmup: vec![],
        });
        let mut c = Checker::new();
        let mut model = Model::default();
        for (i, e) in events.iter().enumerate() {
            c.on_client_parts(i as u64, 1, "app-0", &client, "m", e, &mut model)
                .unwrap();
        }
        c.clients["app-0/StreamThread-1"].clone()
    }

    #[test]
    fn an_assignment_lost_in_flight_is_told_apart_from_other_differences() {
        let set = |t: &[&str]| -> BTreeSet<String> { t.iter().map(|s| s.to_string()).collect() };
        let (assigned, none) = (set(&["0_0", "0_1"]), set(&[]));
        let lost = |c: &ClientState| assignment_lost_in_flight(c, (&assigned, &none));
        // Told {0_0}, owns {0_0}, one heartbeat timed out and one was answered with an error:
        // the coordinator's {0_0, 0_1} went out in a response the member never read.
        let c = streams_member(&[0], 2, &[0]);
        assert_eq!(c.heartbeats_unanswered_since_delivery, 2);
        assert!(lost(&c));
        // The same without any unanswered heartbeat: the coordinator never sent the change (a
        // response that arrived left it out), which is no behaviour of Kafka.
        assert!(!lost(&streams_member(&[0], 0, &[0])));
        // Told the whole assignment but owning less: the member did not reconcile.
        assert!(!lost(&streams_member(&[0, 1], 1, &[0])));
        // Owning something it was not told: not this either.
        assert!(!lost(&streams_member(&[0], 1, &[0, 2])));
        // Nothing delivered yet (e.g. a member that never joined).
        let mut c = streams_member(&[0], 1, &[0]);
        c.delivered = None;
        assert!(!lost(&c));
    }

    #[test]
    fn a_consumer_fenced_by_its_duplicate_is_not_missing() {
        // Live: c1 (A) and c2 (B, instance iB). Dead with the fencing-after-a-move mark: c3, whose
        // instance iB c2 now holds (a duplicate fenced it), and c4 (instance iX), really missing.
        let expect = vec![Expectation::Classic {
            group: "g".into(),
            topics: vec!["t".into()],
            required: vec!["t".into()],
            members: 3,
        }];
        let parts: BTreeMap<String, i32> = [("t".to_string(), 2)].into();
        let (model, mut c) = setup(&[1]);
        c.clients.get_mut("c2").unwrap().instance_id = Some("iB".into());
        let dead = |c: &Checker, instance: &str| {
            let mut d = c.clients["c1"].clone();
            d.member_id = format!("{instance}-old");
            d.instance_id = Some(instance.into());
            d.stopped = true;
            d.fenced_after_coordinator_move = true;
            d
        };
        let (c3, c4) = (dead(&c, "iB"), dead(&c, "iX"));
        c.clients.insert("c3".into(), c3);
        c.clients.insert("c4".into(), c4);
        let e = check(&expect, &model, &c, &parts).unwrap_err();
        assert_eq!(
            e.kind,
            Some(CLASSIC_STATIC_MEMBER_FENCED_AFTER_MOVE),
            "{e:?}"
        );
        assert!(
            e.detail.contains("[\"c4\"] died of FENCED_INSTANCE_ID"),
            "{e:?}"
        );
        // Without c4 nothing is missing but one member: c3 alone does not explain it.
        c.clients.remove("c4");
        let e = check(&expect, &model, &c, &parts).unwrap_err();
        assert_eq!(e.kind, None, "{e:?}");
        assert!(e.detail.contains("2 of 3 members are running"), "{e:?}");
    }

    #[test]
    fn a_static_member_fenced_after_a_coordinator_move_is_told_apart() {
        let mut model = Model::default();
        let member = |id: &str, instance: &str| MemberMetadata {
            member_id: id.into(),
            group_instance_id: Some(instance.into()),
            client_id: "c".into(),
            client_host: "/h".into(),
            rebalance_timeout: 1,
            session_timeout: 1,
            subscription: vec![],
            assignment: vec![],
        };
        model.apply(
            3,
            0,
            0,
            &Record::GroupMetadata {
                key: GroupMetadataKey { group: "g".into() },
                value: Some(GroupMetadataValue {
                    protocol_type: "consumer".into(),
                    generation: 2,
                    protocol: Some("range".into()),
                    leader: Some("i1-old".into()),
                    current_state_timestamp: 0,
                    members: vec![member("i1-old", "i1"), member("i2-x", "i2")],
                }),
            },
            0,
        );
        let partition = model.classic["g"].partition;
        let client = |member_id: &str, instance: Option<&str>, joined: Option<i64>| {
            let (_, mut c) = setup(&[1]);
            let mut state = c.clients.remove("c1").unwrap();
            state.group = "g".into();
            state.member_id = member_id.into();
            state.instance_id = instance.map(str::to_string);
            state.id_join_sent_ms = joined;
            state.id_generation_uncommitted = Some(true);
            state
        };
        let loads = |at: i64| -> BTreeMap<i32, i64> { [(partition, at)].into() };
        // Its JoinGroup at 10 s handed out i1-new; a coordinator loaded at 20 s from records that
        // map i1 to i1-old: Kafka's fencing after a move.
        let fenced = client("i1-new", Some("i1"), Some(10_000));
        assert!(fenced_after_coordinator_move(
            &fenced,
            &model,
            &loads(20_000)
        ));
        // The load came before that JoinGroup: the coordinator that fenced it handed out the id.
        assert!(!fenced_after_coordinator_move(
            &fenced,
            &model,
            &loads(5_000)
        ));
        // No load at all.
        assert!(!fenced_after_coordinator_move(
            &fenced,
            &model,
            &BTreeMap::new()
        ));
        // The id came with the committed generation (a Stable replacement, no join phase): Kafka
        // 4.4 writes it before answering, so the records would know it (KAFKA-10284's fix).
        let mut replaced = fenced.clone();
        replaced.id_generation_uncommitted = Some(false);
        assert!(!fenced_after_coordinator_move(
            &replaced,
            &model,
            &loads(20_000)
        ));
        replaced.id_generation_uncommitted = None;
        assert!(!fenced_after_coordinator_move(
            &replaced,
            &model,
            &loads(20_000)
        ));
        // The committed records know the member's own id: a fencing Kafka would not give.
        let committed = client("i1-old", Some("i1"), Some(10_000));
        assert!(!fenced_after_coordinator_move(
            &committed,
            &model,
            &loads(20_000)
        ));
        // A dynamic member, and an instance the records do not know.
        assert!(!fenced_after_coordinator_move(
            &client("i1-new", None, Some(10_000)),
            &model,
            &loads(20_000)
        ));
        assert!(!fenced_after_coordinator_move(
            &client("i3-new", Some("i3"), Some(10_000)),
            &model,
            &loads(20_000)
        ));
    }

    /// The checker notes, at the `Joined` that follows a new member id, whether the JoinGroup
    /// answer carried a generation past the committed one (a completed join phase) or the committed
    /// one itself (a Stable replacement).
    #[test]
    fn the_generation_of_the_answer_that_gave_a_member_id_is_told_apart() {
        let joined = |generation: i32| {
            let (mut model, mut c) = setup(&[1]);
            let client = ClientRef {
                kind: ClientKind::Consumer,
                name: "c3".into(),
                group_id: "g".into(),
                instance_id: Some("i3".into()),
                process_id: String::new(),
            };
            let sent = EventKind::RequestSent {
                broker: "broker-1:9092".into(),
                api: protocol::Api::JoinGroup,
                version: 9,
                correlation_id: 1,
            };
            c.on_client_parts(10, 5, "h3", &client, "", &sent, &mut model)
                .unwrap();
            let answered = [
                EventKind::StateChanged {
                    from: "PREPARING_REBALANCE",
                    to: "COMPLETING_REBALANCE",
                },
                EventKind::Joined { epoch: generation },
                // A later answer keeps what the first one said.
                EventKind::Joined { epoch: 9 },
            ];
            for (i, e) in answered.iter().enumerate() {
                c.on_client_parts(11 + i as u64, 6, "h3", &client, "i3-new", e, &mut model)
                    .unwrap();
            }
            let state = &c.clients["c3"];
            assert_eq!(state.id_join_sent_ms, Some(5));
            state.id_generation_uncommitted
        };
        // The group's committed generation is 2.
        assert_eq!(joined(3), Some(true));
        assert_eq!(joined(2), Some(false));
    }

    #[test]
    fn a_converged_classic_group_passes_and_an_orphan_partition_fails() {
        let expect = vec![Expectation::Classic {
            group: "g".into(),
            topics: vec!["t".into(), "later".into()],
            required: vec!["t".into()],
            members: 2,
        }];
        let parts: BTreeMap<String, i32> = [("t".to_string(), 2)].into();
        let (model, c) = setup(&[1]);
        assert_eq!(
            check(&expect, &model, &c, &parts),
            Ok(vec![("g".into(), 2)])
        );
        // Partition 1 assigned to nobody: not converged.
        let (model, c) = setup(&[]);
        let e = check(&expect, &model, &c, &parts).unwrap_err().detail;
        assert!(e.contains("t-1 has 0 owners"), "{e}");
        // A member the coordinator has but no live client backs: not converged.
        let (model, mut c) = setup(&[1]);
        c.host_crashed("h");
        let e = check(&expect, &model, &c, &parts).unwrap_err().detail;
        assert!(e.contains("0 of 2 members are running"), "{e}");
        // A required topic that does not exist yet: not converged.
        let (model, c) = setup(&[1]);
        let mut expect = expect;
        if let Expectation::Classic { required, .. } = &mut expect[0] {
            required.push("later".into());
        }
        let e = check(&expect, &model, &c, &parts).unwrap_err().detail;
        assert!(e.contains("topic later does not exist yet"), "{e}");
    }
}

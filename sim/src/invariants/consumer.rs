//! The invariants for consumer groups (KIP-848, [`members::consumer::AsyncConsumer`] clients),
//! judged against the committed consumer-group records ([`crate::consumer_model`]):
//!
//! * exclusive-active-ownership (1): a partition a consumer just acquired may not still be held by
//!   another live consumer that the committed records still list as a member. Kafka hands a
//!   partition to a new owner only after the old owner acknowledged its revocation, and the client
//!   reports the revocation before it acknowledges, so revoke-before-assign makes the old snapshot
//!   drop it first; a removed (fenced) holder is a zombie whose commits the coordinator refuses;
//! * monotonic-epochs (2): a consumer group's epoch never decreases, its target assignment epoch
//!   never passes the group epoch, and a member's epoch never decreases while its record lives
//!   (but for a static member's temporary leave, which Kafka records as epoch -2);
//! * fenced-commit-rejected (3): an accepted commit came from a member of the group, with its
//!   member epoch, or an older epoch no older than every committed partition's assignment epoch
//!   (KIP-1251); an epoch below 0 only into an empty group;
//! * convergence (6): the target assignment epoch is the group epoch, the coordinator's members are
//!   exactly the live consumers, each STABLE at the group epoch with nothing pending revocation and
//!   owning exactly its committed assignment, and every partition of the subscribed topics that
//!   exist is owned exactly once.

use std::collections::{BTreeMap, BTreeSet};

use coordinator::Record;
use members::observer::TopicPartition;

use super::convergence::NotConverged;
use super::{Checker, ClientState, Invariant, Violation};
use crate::consumer_model::{ConsumerGroup, IdPartition};
use crate::model::{CommitWrite, Model};

/// The id form of a named partition, if the model knows the topic's id.
fn id_of(model: &Model, tp: &TopicPartition) -> Option<IdPartition> {
    model
        .topic_names
        .iter()
        .find(|(_, name)| **name == tp.topic)
        .map(|(id, _)| (*id, tp.partition))
}

/// A partition's name as the model knows it.
fn name_of(model: &Model, (id, p): &IdPartition) -> String {
    match model.topic_names.get(id) {
        Some(name) => format!("{name}-{p}"),
        None => format!("{id}-{p}"),
    }
}

/// Exclusive ownership: why `old` (a consumer-protocol client still holding `item`) still owns it
/// per the committed records, if it does. As for streams members, membership decides: a member the
/// coordinator still has keeps what it holds until it reports it revoked (its acknowledgement), so
/// the coordinator may not have given `item` away meanwhile, whether or not its records still list
/// `item` for it (a client that acknowledged without revoking is caught here too).
pub fn still_owner(group: &str, item: &str, old: &ClientState, model: &Model) -> Option<String> {
    let g = model.consumer.get(group)?;
    let m = g
        .members
        .get(&old.member_id)
        .filter(|m| m.metadata.is_some())?;
    let listed = match item_partition(item).and_then(|tp| id_of(model, &tp)) {
        Some(p) if m.partition_epochs().contains_key(&p) => "its records still give it",
        Some(_) => "its records no longer give it",
        None => "the topic's id is unknown to the harness",
    };
    Some(format!(
        "the coordinator still has {} as a member at epoch {} (group epoch {}; {listed} {item})",
        old.member_id,
        m.epoch(),
        g.epoch
    ))
}

/// Whether `group` is a consumer group now, per the committed records (a group converted from or
/// to a classic group by online migration changes type with its records).
pub fn is_consumer_group(group: &str, model: &Model) -> bool {
    model.consumer.get(group).is_some_and(|g| g.exists)
}

/// Fenced commits of a classic member inside a consumer group: Kafka 4.4's
/// `ConsumerGroup.validateOffsetCommit` holds a member using the classic protocol to its exact
/// member epoch (its generation), with no KIP-1251 leniency. `None` when the committer was not
/// a member of the consumer group just before the write (the classic group's records judge it).
pub fn check_accepted_classic_member(
    at_ms: i64,
    where_: &str,
    group: &str,
    member_id: &str,
    generation: i32,
    pos: i64,
    model: &Model,
) -> Option<Result<(), Violation>> {
    let g = model.consumer.get(group)?;
    let snap = g.member_at(member_id, pos).filter(|s| s.present)?;
    if generation == snap.epoch {
        return Some(Ok(()));
    }
    Some(Err(commit_violation(
        at_ms,
        format!(
            "{where_} was accepted from classic member {member_id} of consumer group {group} \
             with generation {generation}, not its member epoch {}",
            snap.epoch
        ),
    )))
}

/// `topic-p` back to a partition.
fn item_partition(item: &str) -> Option<TopicPartition> {
    let (topic, p) = item.rsplit_once('-')?;
    Some(TopicPartition::new(topic, p.parse().ok()?))
}

fn commit_violation(at_ms: i64, detail: String) -> Violation {
    Violation::new(Invariant::FencedCommitRejected, at_ms, detail)
}

/// Fenced commits: Kafka 4.4's `ConsumerGroup.validateOffsetCommit` against the committed state
/// just before the write.
#[allow(clippy::too_many_arguments)]
pub fn check_accepted(
    at_ms: i64,
    where_: &str,
    group: &str,
    member_id: &str,
    epoch: i32,
    offsets: &[(TopicPartition, i64)],
    write: &CommitWrite,
    model: &Model,
) -> Result<(), Violation> {
    let Some(g) = model.consumer.get(group) else {
        return Ok(());
    };
    let pos = write.batch;
    let Some(snap) = g.member_at(member_id, pos).filter(|s| s.present) else {
        if epoch < 0 && g.live_at(pos) == 0 {
            return Ok(());
        }
        return Err(commit_violation(
            at_ms,
            format!(
                "{where_} was accepted from {member_id} (epoch {epoch}), which was not a member \
                 of consumer group {group}"
            ),
        ));
    };
    if epoch == snap.epoch {
        return Ok(());
    }
    if epoch > snap.epoch {
        return Err(commit_violation(
            at_ms,
            format!(
                "{where_} was accepted from {member_id} with epoch {epoch}, newer than its member \
                 epoch {}",
                snap.epoch
            ),
        ));
    }
    for (tp, _) in offsets {
        let assigned = id_of(model, tp).and_then(|p| snap.partition_epochs.get(&p));
        match assigned {
            Some(a) if *a <= epoch => {}
            Some(a) => {
                return Err(commit_violation(
                    at_ms,
                    format!(
                        "{where_} was accepted from {member_id} with stale epoch {epoch} (member \
                         epoch {}) for {tp}, assigned to it at epoch {a}",
                        snap.epoch
                    ),
                ));
            }
            None => {
                return Err(commit_violation(
                    at_ms,
                    format!(
                        "{where_} was accepted from {member_id} with stale epoch {epoch} (member \
                         epoch {}) for {tp}, which is not assigned to it",
                        snap.epoch
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The epoch Kafka stores for a static member that left temporarily.
const LEAVE_GROUP_STATIC_MEMBER_EPOCH: i32 = -2;

fn epoch_violation(at_ms: i64, detail: String) -> Violation {
    Violation::new(Invariant::MonotonicEpochs, at_ms, detail)
}

/// Monotonic epochs of a consumer-group record, against the state before it.
pub fn check_record(
    at_ms: i64,
    offset: i64,
    record: &Record,
    model: &Model,
) -> Result<(), Violation> {
    match record {
        Record::ConsumerGroupMetadata {
            key,
            value: Some(v),
        } => {
            if let Some(g) = model.consumer.get(&key.group_id)
                && g.exists
                && v.epoch < g.epoch
            {
                return Err(epoch_violation(
                    at_ms,
                    format!(
                        "group epoch of consumer group {} went from {} to {} (record at offset \
                         {offset})",
                        key.group_id, g.epoch, v.epoch
                    ),
                ));
            }
        }
        Record::ConsumerGroupTargetAssignmentMetadata {
            key,
            value: Some(v),
        } => {
            let g = model.consumer.get(&key.group_id);
            let (group_epoch, previous) = g.map_or((0, 0), |g| (g.epoch, g.assignment_epoch));
            if v.assignment_epoch < previous || v.assignment_epoch > group_epoch.max(1) {
                return Err(epoch_violation(
                    at_ms,
                    format!(
                        "target assignment epoch of consumer group {} went from {previous} to {} \
                         with group epoch {group_epoch} (record at offset {offset})",
                        key.group_id, v.assignment_epoch
                    ),
                ));
            }
        }
        Record::ConsumerGroupCurrentMemberAssignment {
            key,
            value: Some(v),
        } => {
            if let Some(m) = model
                .consumer
                .get(&key.group_id)
                .and_then(|g| g.members.get(&key.member_id))
                && let Some(a) = &m.assignment
                && v.member_epoch < a.member_epoch
                // A static member's temporary leave keeps its record with epoch -2
                // (`consumerGroupStaticMemberGroupLeave`) until its instance id returns.
                && v.member_epoch != LEAVE_GROUP_STATIC_MEMBER_EPOCH
            {
                return Err(epoch_violation(
                    at_ms,
                    format!(
                        "member {} of consumer group {} went from epoch {} to {} (record at \
                         offset {offset})",
                        key.member_id, key.group_id, a.member_epoch, v.member_epoch
                    ),
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Convergence of one consumer group; `Ok` carries its epoch.
pub fn converged(
    group: &str,
    required: &[String],
    model: &Model,
    clients: &[(&String, &ClientState)],
    topic_partitions: &BTreeMap<String, i32>,
) -> Result<i32, String> {
    let g: &ConsumerGroup = model
        .consumer
        .get(group)
        .filter(|g| g.exists)
        .ok_or_else(|| format!("consumer group {group} does not exist"))?;
    if g.assignment_epoch != g.epoch {
        return Err(format!(
            "consumer group {group}: target assignment epoch {} behind group epoch {}",
            g.assignment_epoch, g.epoch
        ));
    }
    let coordinator: BTreeSet<&str> = g.live_members().map(|(m, _)| m.as_str()).collect();
    let live: BTreeSet<&str> = clients.iter().map(|(_, c)| c.member_id.as_str()).collect();
    if coordinator != live {
        let extra: Vec<&&str> = coordinator.difference(&live).collect();
        let missing: Vec<&&str> = live.difference(&coordinator).collect();
        return Err(format!(
            "consumer group {group}: the coordinator's members differ from the live clients (only \
             at the coordinator: {extra:?}; only live: {missing:?})"
        ));
    }
    let mut owners: BTreeMap<String, usize> = BTreeMap::new();
    for (name, c) in clients {
        let m = &g.members[&c.member_id];
        let a = m.assignment.as_ref().ok_or_else(|| {
            format!(
                "consumer group {group}: member {} has no assignment",
                c.member_id
            )
        })?;
        if a.member_epoch != g.epoch || a.state != 0 || !a.partitions_pending_revocation.is_empty()
        {
            return Err(format!(
                "consumer group {group}: member {} at epoch {} (group epoch {}), state {}, {} \
                 topic(s) pending revocation",
                c.member_id,
                a.member_epoch,
                g.epoch,
                a.state,
                a.partitions_pending_revocation.len()
            ));
        }
        if c.state != "STABLE" || c.epoch != g.epoch {
            return Err(format!(
                "consumer group {group}: {name} is {} at epoch {} (group epoch {})",
                c.state, c.epoch, g.epoch
            ));
        }
        let assigned: BTreeSet<String> = m.assigned().iter().map(|p| name_of(model, p)).collect();
        if c.active != assigned {
            return Err(format!(
                "consumer group {group}: {name} owns {:?}, the coordinator assigned it {:?}",
                c.active, assigned
            ));
        }
        for p in &c.active {
            *owners.entry(p.clone()).or_default() += 1;
        }
    }
    for topic in required {
        let count = topic_partitions.get(topic).copied().unwrap_or(0);
        for p in 0..count {
            let item = format!("{topic}-{p}");
            let n = owners.get(&item).copied().unwrap_or(0);
            if n != 1 {
                return Err(format!(
                    "consumer group {group}: partition {item} has {n} owners"
                ));
            }
        }
    }
    Ok(g.epoch)
}

/// The kind of a consumer group whose missing members all died of UNRELEASED_INSTANCE_ID (static
/// members whose epoch-0 join found their instance id still held: by their own earlier
/// incarnation that crashed without leaving with epoch -2, or by themselves when the answer to
/// their first join was lost), while the rest of the group converged (docs/findings.md, "A static
/// consumer's rejoin before its session ends is fatal").
pub const CONSUMER_STATIC_MEMBER_UNRELEASED: &str = "consumer-static-member-unreleased-instance-id";

/// Convergence when a consumer group has fewer live members than expected: if exactly the missing
/// ones died of UNRELEASED_INSTANCE_ID (their instance id held by no live client) and the others
/// converged, the failure has the kind [`CONSUMER_STATIC_MEMBER_UNRELEASED`]; otherwise nothing is
/// decided here.
pub fn check_unreleased_deaths(
    group: &str,
    required: &[String],
    members: usize,
    model: &Model,
    checker: &Checker,
    clients: &[(&String, &ClientState)],
    topic_partitions: &BTreeMap<String, i32>,
) -> Result<(), NotConverged> {
    let held: BTreeSet<&str> = clients
        .iter()
        .filter_map(|(_, c)| c.instance_id.as_deref())
        .collect();
    let dead: Vec<&String> = checker
        .clients
        .iter()
        .filter(|(_, c)| c.group == group && c.stopped && c.died_unreleased_instance)
        .filter(|(_, c)| c.instance_id.as_deref().is_some_and(|i| !held.contains(i)))
        .map(|(name, _)| name)
        .collect();
    if dead.is_empty() || clients.len() + dead.len() != members {
        return Ok(());
    }
    // Every member died: the coordinator must have let go of them all.
    let epoch = if clients.is_empty() {
        match empty(group, model) {
            (0, epoch) => epoch,
            (n, _) => {
                return Err(format!(
                    "group {group}: {n} members left at the coordinator after every consumer died"
                )
                .into());
            }
        }
    } else {
        converged(group, required, model, clients, topic_partitions)?
    };
    Err(NotConverged {
        detail: format!(
            "group {group}: {dead:?} died of UNRELEASED_INSTANCE_ID (a static member's epoch-0 \
             join while its instance id was still held); the other {} members converged at \
             epoch {epoch}",
            clients.len()
        ),
        kind: Some(CONSUMER_STATIC_MEMBER_UNRELEASED),
    })
}

/// The epoch of a consumer group that must have no member left (-1 if it does not exist).
pub fn empty(group: &str, model: &Model) -> (usize, i32) {
    match model.consumer.get(group).filter(|g| g.exists) {
        Some(g) => (g.live_members().count(), g.epoch),
        None => (0, -1),
    }
}

#[cfg(test)]
mod tests {
    use coordinator::records::consumer::{
        ConsumerGroupCurrentMemberAssignmentValue, ConsumerGroupKey,
        ConsumerGroupMemberMetadataValue, ConsumerGroupMetadataValue, ConsumerMemberKey,
        CurrentTopicPartitions,
    };
    use uuid::Uuid;

    use super::*;

    fn orders() -> Uuid {
        Uuid::from_u128(7)
    }

    fn key(member: &str) -> ConsumerMemberKey {
        ConsumerMemberKey {
            group_id: "g".into(),
            member_id: member.into(),
        }
    }

    fn subscribe(member: &str) -> Record {
        Record::ConsumerGroupMemberMetadata {
            key: key(member),
            value: Some(ConsumerGroupMemberMetadataValue {
                instance_id: None,
                rack_id: None,
                client_id: "c".into(),
                client_host: "/h".into(),
                subscribed_topic_names: vec!["orders".into()],
                subscribed_topic_regex: None,
                rebalance_timeout_ms: 1000,
                server_assignor: None,
                classic_member_metadata: None,
            }),
        }
    }

    /// `member` at `epoch` holding orders partitions with their assignment epochs.
    fn assignment(member: &str, epoch: i32, parts: &[(i32, i32)]) -> Record {
        Record::ConsumerGroupCurrentMemberAssignment {
            key: key(member),
            value: Some(ConsumerGroupCurrentMemberAssignmentValue {
                member_epoch: epoch,
                previous_member_epoch: epoch - 1,
                state: 0,
                assigned_partitions: vec![CurrentTopicPartitions {
                    topic_id: orders(),
                    partitions: parts.iter().map(|(p, _)| *p).collect(),
                    assignment_epochs: Some(parts.iter().map(|(_, e)| *e).collect()),
                }],
                partitions_pending_revocation: vec![],
            }),
        }
    }

    fn model(records: &[Record]) -> Model {
        let mut m = Model::default();
        m.topic_names.insert(orders(), "orders".into());
        for (i, r) in records.iter().enumerate() {
            m.apply(0, i as i64, i as i64, r, 0);
        }
        m
    }

    fn write(batch: i64) -> CommitWrite {
        CommitWrite {
            partition: 0,
            batch,
            offsets: vec![],
            claimed: false,
            seen_ms: 0,
        }
    }

    fn commit(m: &Model, member: &str, epoch: i32, partition: i32) -> Result<(), Violation> {
        let offsets = [(TopicPartition::new("orders", partition), 10)];
        check_accepted(1, "commit", "g", member, epoch, &offsets, &write(100), m)
    }

    #[test]
    fn classic_member_commits_need_its_exact_member_epoch() {
        // A classic member inside the consumer group (online migration) at epoch 5, holding
        // orders-0 since epoch 3: KIP-1251's leniency is for consumer-protocol members only.
        let m = model(&[
            Record::ConsumerGroupMetadata {
                key: ConsumerGroupKey {
                    group_id: "g".into(),
                },
                value: Some(ConsumerGroupMetadataValue {
                    epoch: 5,
                    metadata_hash: 0,
                }),
            },
            subscribe("A"),
            assignment("A", 5, &[(0, 3), (1, 5)]),
        ]);
        assert!(is_consumer_group("g", &m));
        assert!(!is_consumer_group("h", &m));
        let judge = |member: &str, generation: i32| {
            check_accepted_classic_member(1, "commit", "g", member, generation, 100, &m)
        };
        assert_eq!(judge("A", 5), Some(Ok(())));
        let stale = judge("A", 4).unwrap().unwrap_err();
        assert_eq!(stale.invariant, Invariant::FencedCommitRejected);
        assert!(
            stale.detail.contains(
                "classic member A of consumer group g with generation 4, not its member epoch 5"
            ),
            "{}",
            stale.detail
        );
        assert_eq!(
            judge("B", 5),
            None,
            "not a member: the classic records judge it"
        );
    }

    #[test]
    fn commits_follow_kip_1251() {
        // A at epoch 5 holds orders-0 since epoch 3 and orders-1 since epoch 5.
        let m = model(&[subscribe("A"), assignment("A", 5, &[(0, 3), (1, 5)])]);
        assert!(commit(&m, "A", 5, 1).is_ok(), "its own epoch");
        assert!(
            commit(&m, "A", 4, 0).is_ok(),
            "older, but not older than orders-0's"
        );
        let stale = commit(&m, "A", 4, 1).unwrap_err();
        assert_eq!(stale.invariant, Invariant::FencedCommitRejected);
        assert!(
            stale.detail.contains("assigned to it at epoch 5"),
            "{}",
            stale.detail
        );
        assert!(
            commit(&m, "A", 4, 2)
                .unwrap_err()
                .detail
                .contains("not assigned")
        );
        assert!(commit(&m, "A", 6, 0).unwrap_err().detail.contains("newer"));
        assert!(
            commit(&m, "B", 5, 0)
                .unwrap_err()
                .detail
                .contains("not a member")
        );
    }

    #[test]
    fn epochs_may_not_go_back_but_a_static_leave_may_write_minus_two() {
        let m = model(&[
            Record::ConsumerGroupMetadata {
                key: ConsumerGroupKey {
                    group_id: "g".into(),
                },
                value: Some(ConsumerGroupMetadataValue {
                    epoch: 5,
                    metadata_hash: 0,
                }),
            },
            subscribe("A"),
            assignment("A", 5, &[(0, 5)]),
        ]);
        let back = Record::ConsumerGroupMetadata {
            key: ConsumerGroupKey {
                group_id: "g".into(),
            },
            value: Some(ConsumerGroupMetadataValue {
                epoch: 4,
                metadata_hash: 0,
            }),
        };
        assert_eq!(
            check_record(1, 9, &back, &m).unwrap_err().invariant,
            Invariant::MonotonicEpochs
        );
        assert!(check_record(1, 9, &assignment("A", 4, &[(0, 4)]), &m).is_err());
        assert!(check_record(1, 9, &assignment("A", -2, &[(0, 5)]), &m).is_ok());
        assert!(check_record(1, 9, &assignment("A", 6, &[(0, 5)]), &m).is_ok());
    }

    #[test]
    fn an_owner_is_still_one_while_the_records_give_it_the_partition() {
        let m = model(&[subscribe("A"), assignment("A", 5, &[(0, 3)])]);
        let mut old = ClientState {
            host: "h".into(),
            kind: members::observer::ClientKind::AsyncConsumer,
            group: "g".into(),
            instance_id: None,
            process_id: String::new(),
            member_id: "A".into(),
            epoch: 5,
            state: "STABLE",
            owned_epoch: 5,
            active: BTreeSet::new(),
            standby: BTreeSet::new(),
            stopped: false,
            last_fetch_sent_ms: None,
            delivered: None,
            heartbeats_unanswered_since_delivery: 0,
            last_join_sent_ms: None,
            id_join_sent_ms: None,
            id_generation_uncommitted: None,
            last_join_broker: None,
            epoch_broker: None,
            fenced_after_coordinator_move: false,
            in_flight: BTreeMap::new(),
            session_renewed: None,
            synced: None,
            left: BTreeSet::new(),
            died_unreleased_instance: false,
        };
        let held = still_owner("g", "orders-0", &old, &m).unwrap();
        assert!(
            held.contains("its records still give it orders-0"),
            "{held}"
        );
        // Still a member: whatever its records say, it had not acknowledged a revocation.
        let unlisted = still_owner("g", "orders-1", &old, &m).unwrap();
        assert!(unlisted.contains("no longer give it"), "{unlisted}");
        old.member_id = "gone".into();
        assert!(still_owner("g", "orders-0", &old, &m).is_none());
    }
}

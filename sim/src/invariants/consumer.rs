//! The invariants for consumer groups (KIP-848, [`members::consumer::AsyncConsumer`] clients),
//! judged against the committed consumer-group records ([`crate::consumer_model`]):
//!
//! * exclusive-active-ownership (1): a partition a consumer just acquired may not still be held by
//!   another live consumer that the committed records list as a member holding it (assigned or
//!   pending revocation). Kafka hands a partition to a new owner only after the old owner
//!   acknowledged its revocation, and the client reports the revocation before it acknowledges,
//!   so revoke-before-assign makes the old snapshot drop it first;
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

use super::{ClientState, Invariant, Violation};
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

/// Exclusive ownership: why `old` (a consumer-protocol client holding `item`) still owns it per
/// the committed records, if it does.
pub fn still_owner(group: &str, item: &str, old: &ClientState, model: &Model) -> Option<String> {
    let g = model.consumer.get(group)?;
    let m = g
        .members
        .get(&old.member_id)
        .filter(|m| m.metadata.is_some())?;
    let epochs = m.partition_epochs();
    let held = match item_partition(item).and_then(|tp| id_of(model, &tp)) {
        Some(p) => epochs.contains_key(&p),
        // The topic's id is not known yet: membership alone decides.
        None => true,
    };
    held.then(|| {
        format!(
            "the coordinator still has {} as a member at epoch {} holding {item} (group epoch {})",
            old.member_id,
            m.epoch(),
            g.epoch
        )
    })
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

/// The epoch of a consumer group that must have no member left (-1 if it does not exist).
pub fn empty(group: &str, model: &Model) -> (usize, i32) {
    match model.consumer.get(group).filter(|g| g.exists) {
        Some(g) => (g.live_members().count(), g.epoch),
        None => (0, -1),
    }
}

//! 2. monotonic-epochs: member epochs never decrease while a member stays in the group; group
//!    epochs, generations and broker epochs never decrease; a target-assignment epoch never
//!    exceeds its group epoch.
//!
//! Checked on the committed records (group epochs, target assignment epochs, member epochs,
//! classic generations; a tombstone ends a group's or member's life and with it the ordering),
//! on the controller's events (broker epochs, partition leader epochs), and on each client's own
//! epoch: a positive epoch followed by a smaller positive one (without passing through a
//! rejoin, which resets it to 0 or -1) is a decrease the member saw while staying in the group.

use std::collections::BTreeMap;

use coordinator::Record;
use coordinator::events::EventKind;

use super::{Invariant, Violation};
use crate::model::Model;

fn violation(at_ms: i64, detail: String) -> Violation {
    Violation::new(Invariant::MonotonicEpochs, at_ms, detail)
}

/// Checks a committed record against the committed state before it.
pub fn check_record(
    at_ms: i64,
    offset: i64,
    record: &Record,
    model: &Model,
) -> Result<(), Violation> {
    super::consumer::check_record(at_ms, offset, record, model)?;
    match record {
        Record::StreamsGroupMetadata {
            key,
            value: Some(v),
        } => {
            if let Some(g) = model.streams.get(&key.group_id)
                && g.exists
                && v.epoch < g.epoch
            {
                return Err(violation(
                    at_ms,
                    format!(
                        "group epoch of streams group {} went from {} to {} (record at offset \
                         {offset})",
                        key.group_id, g.epoch, v.epoch
                    ),
                ));
            }
        }
        Record::StreamsGroupTargetAssignmentMetadata {
            key,
            value: Some(v),
        } => {
            let g = model.streams.get(&key.group_id);
            let (group_epoch, previous) = g.map_or((0, 0), |g| (g.epoch, g.assignment_epoch));
            if v.assignment_epoch > group_epoch {
                return Err(violation(
                    at_ms,
                    format!(
                        "target assignment epoch {} of streams group {} exceeds its group epoch \
                         {group_epoch} (record at offset {offset})",
                        v.assignment_epoch, key.group_id
                    ),
                ));
            }
            if g.is_some_and(|g| g.exists) && v.assignment_epoch < previous {
                return Err(violation(
                    at_ms,
                    format!(
                        "target assignment epoch of streams group {} went from {previous} to {} \
                         (record at offset {offset})",
                        key.group_id, v.assignment_epoch
                    ),
                ));
            }
        }
        Record::StreamsGroupCurrentMemberAssignment {
            key,
            value: Some(v),
        } => {
            const STATIC_MEMBER_LEFT_EPOCH: i32 = -2;
            if let Some(prev) = model
                .streams
                .get(&key.group_id)
                .and_then(|g| g.members.get(&key.member_id))
                .and_then(|m| m.assignment.as_ref())
                && v.member_epoch < prev.member_epoch
                // A static member that leaves keeps its place with epoch -2
                // (LEAVE_GROUP_STATIC_MEMBER_EPOCH) until its instance id rejoins under a new
                // member id or its session expires: Kafka writes exactly that record.
                && v.member_epoch != STATIC_MEMBER_LEFT_EPOCH
            {
                return Err(violation(
                    at_ms,
                    format!(
                        "member epoch of {} in streams group {} went from {} to {} while it \
                         stayed in the group (record at offset {offset})",
                        key.member_id, key.group_id, prev.member_epoch, v.member_epoch
                    ),
                ));
            }
        }
        Record::GroupMetadata {
            key,
            value: Some(v),
        } => {
            if let Some(g) = model.classic.get(&key.group)
                && g.exists
                && v.generation < g.generation
            {
                return Err(violation(
                    at_ms,
                    format!(
                        "generation of classic group {} went from {} to {} (record at offset \
                         {offset})",
                        key.group, g.generation, v.generation
                    ),
                ));
            }
        }
        _ => {}
    }
    Ok(())
}

/// Broker epochs and partition leader epochs as the controller reports them.
#[derive(Debug, Default)]
pub struct ClusterEpochs {
    brokers: BTreeMap<i32, i64>,
    leaders: BTreeMap<(String, i32), i32>,
}

impl ClusterEpochs {
    pub fn check(&mut self, at_ms: i64, event: &EventKind) -> Result<(), Violation> {
        match event {
            EventKind::BrokerRegistered { broker, epoch, .. } => {
                let last = self.brokers.entry(*broker).or_insert(*epoch);
                if *epoch < *last {
                    return Err(violation(
                        at_ms,
                        format!("broker {broker} registered with epoch {epoch} after epoch {last}"),
                    ));
                }
                *last = *epoch;
            }
            EventKind::PartitionChanged {
                topic,
                partition,
                leader_epoch,
                ..
            } => {
                let last = self
                    .leaders
                    .entry((topic.clone(), *partition))
                    .or_insert(*leader_epoch);
                if *leader_epoch < *last {
                    return Err(violation(
                        at_ms,
                        format!(
                            "leader epoch of {topic}-{partition} went from {last} to {leader_epoch}"
                        ),
                    ));
                }
                *last = *leader_epoch;
            }
            // A topic created again under the same name after a delete (e.g. an admin client's
            // CreateTopics retried after the delete) is a new topic, with a new id, whose leader
            // epochs start again at 0, as in Kafka.
            EventKind::TopicDeleted { topic } => {
                self.leaders.retain(|(t, _), _| t != topic);
            }
            _ => {}
        }
        Ok(())
    }
}

/// The kind of a classic consumer's generation going back after a coordinator move: the
/// generations it saw last were handed out by a coordinator in memory only (a non-empty group's
/// join completion writes no record; GroupMetadata is written at the leader's SyncGroup), the next
/// coordinator loaded an older one and numbers its generations from there (docs/findings.md,
/// "Classic generations are numbered again after a coordinator move").
pub const CLASSIC_GENERATION_REUSED_AFTER_MOVE: &str =
    "classic-generation-reused-after-coordinator-move";

/// Whether a classic consumer's generation going from `from` to `to` bears that mark: no committed
/// GroupMetadata of its group ever reached `from` (the committed generation is below `to`, which the
/// new coordinator numbered from it), and the JoinGroup answers that gave the two came from
/// different brokers (the one that gave `to` could only know the committed generations). A
/// coordinator that went back on a generation it had written, or on one it gave itself, does not
/// match.
pub fn generation_reused_after_coordinator_move(
    group: Option<&crate::model::ClassicGroup>,
    from_broker: Option<&str>,
    to_broker: Option<&str>,
    from: i32,
    to: i32,
) -> bool {
    let Some(g) = group.filter(|g| g.exists) else {
        return false;
    };
    let never_committed = g.generation < to && to < from;
    let moved = matches!((from_broker, to_broker), (Some(a), Some(b)) if a != b);
    never_committed && moved
}

/// A client's own epoch change.
pub fn check_client_epoch(
    at_ms: i64,
    client: &str,
    member_id: &str,
    from: i32,
    to: i32,
) -> Result<(), Violation> {
    if from > 0 && to > 0 && to < from {
        return Err(violation(
            at_ms,
            format!("{client} (member {member_id}) saw its epoch go from {from} to {to}"),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue};
    use coordinator::records::streams::{
        StreamsGroupKey, StreamsGroupMetadataValue, StreamsGroupTargetAssignmentMetadataValue,
    };

    use super::*;

    #[test]
    fn a_generation_lost_with_its_coordinator_is_told_apart_from_a_regression() {
        let g = crate::model::ClassicGroup {
            partition: 1,
            exists: true,
            generation: 2,
            ..Default::default()
        };
        let (b1, b2) = (Some("broker-1:9092"), Some("broker-2:9092"));
        let reused = generation_reused_after_coordinator_move;
        // 4 from broker-2 (never committed: the records stop at 2), then 3 from broker-1.
        assert!(reused(Some(&g), b2, b1, 4, 3));
        // Both from the same coordinator: no move explains it.
        assert!(!reused(Some(&g), b1, b1, 4, 3));
        assert!(!reused(Some(&g), None, b1, 4, 3));
        // Generation 4 was committed: going back to 3 is no behaviour of Kafka.
        let committed = crate::model::ClassicGroup {
            generation: 4,
            ..g.clone()
        };
        assert!(!reused(Some(&committed), b2, b1, 4, 3));
        // Back to what was committed or below: the new coordinator numbers on from the committed one.
        assert!(!reused(Some(&g), b2, b1, 4, 2));
        assert!(!reused(None, b2, b1, 4, 3));
    }

    fn group_epoch(epoch: i32) -> Record {
        Record::StreamsGroupMetadata {
            key: StreamsGroupKey {
                group_id: "app".into(),
            },
            value: Some(StreamsGroupMetadataValue {
                epoch,
                metadata_hash: 0,
                validated_topology_epoch: -1,
                last_assignment_configs: None,
                stored_description_topology_epoch: -1,
                failed_description_topology_epoch: -1,
            }),
        }
    }

    fn target_epoch(epoch: i32) -> Record {
        Record::StreamsGroupTargetAssignmentMetadata {
            key: StreamsGroupKey {
                group_id: "app".into(),
            },
            value: Some(StreamsGroupTargetAssignmentMetadataValue {
                assignment_epoch: epoch,
                assignment_timestamp: 0,
            }),
        }
    }

    fn member_epoch(epoch: i32) -> Record {
        Record::StreamsGroupCurrentMemberAssignment {
            key: coordinator::records::streams::StreamsMemberKey {
                group_id: "app".into(),
                member_id: "m1".into(),
            },
            value: Some(
                coordinator::records::streams::StreamsGroupCurrentMemberAssignmentValue {
                    member_epoch: epoch,
                    previous_member_epoch: -1,
                    state: 1,
                    active_tasks: vec![],
                    standby_tasks: vec![],
                    warmup_tasks: vec![],
                    active_tasks_pending_revocation: vec![],
                    standby_tasks_pending_revocation: vec![],
                    warmup_tasks_pending_revocation: vec![],
                },
            ),
        }
    }

    /// Checks then applies, as the harness does.
    fn feed(model: &mut Model, records: &[Record]) -> Result<(), Violation> {
        for (i, r) in records.iter().enumerate() {
            check_record(100, i as i64, r, model)?;
            model.apply(0, i as i64, i as i64, r, 100);
        }
        Ok(())
    }

    #[test]
    fn member_epoch_going_back_fires_but_a_static_leave_does_not() {
        let mut m = Model::default();
        feed(&mut m, &[group_epoch(5), member_epoch(4), member_epoch(5)]).unwrap();
        let v = feed(&mut m, &[member_epoch(3)]).unwrap_err();
        assert_eq!(v.invariant, Invariant::MonotonicEpochs);
        assert!(v.detail.contains("went from 5 to 3"), "{}", v.detail);

        // Kafka writes epoch -2 for a static member that leaves; it keeps its place.
        let mut m = Model::default();
        feed(&mut m, &[group_epoch(5), member_epoch(5), member_epoch(-2)]).unwrap();
    }

    #[test]
    fn group_epoch_going_back_fires() {
        let mut m = Model::default();
        feed(&mut m, &[group_epoch(1), group_epoch(3), target_epoch(3)]).unwrap();
        let v = feed(&mut m, &[group_epoch(2)]).unwrap_err();
        assert_eq!(v.invariant, Invariant::MonotonicEpochs);
        assert!(v.detail.contains("went from 3 to 2"), "{}", v.detail);
    }

    #[test]
    fn target_epoch_above_group_epoch_fires() {
        let mut m = Model::default();
        let v = feed(&mut m, &[group_epoch(2), target_epoch(3)]).unwrap_err();
        assert!(
            v.detail.contains("exceeds its group epoch 2"),
            "{}",
            v.detail
        );
    }

    #[test]
    fn classic_generation_going_back_fires() {
        let rec = |generation| Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: Some(GroupMetadataValue {
                protocol_type: "consumer".into(),
                generation,
                protocol: None,
                leader: None,
                current_state_timestamp: 0,
                members: vec![],
            }),
        };
        let mut m = Model::default();
        feed(&mut m, &[rec(4), rec(5)]).unwrap();
        assert!(feed(&mut m, &[rec(4)]).is_err());
        // A deleted group starts again.
        let mut m = Model::default();
        let tombstone = Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: None,
        };
        feed(&mut m, &[rec(4), tombstone, rec(1)]).unwrap();
    }

    #[test]
    fn broker_and_leader_epochs_going_back_fire() {
        let mut e = ClusterEpochs::default();
        let reg = |epoch| EventKind::BrokerRegistered {
            broker: 1,
            epoch,
            incarnation: "x".into(),
        };
        e.check(1, &reg(10)).unwrap();
        e.check(2, &reg(12)).unwrap();
        let v = e.check(3, &reg(11)).unwrap_err();
        assert!(v.detail.contains("epoch 11 after epoch 12"), "{}", v.detail);
        let moved = |leader_epoch| EventKind::PartitionChanged {
            topic: "__consumer_offsets".into(),
            partition: 0,
            leader: 1,
            leader_epoch,
            isr: vec![1],
            elr: vec![],
        };
        e.check(4, &moved(2)).unwrap();
        assert!(e.check(5, &moved(1)).is_err());
    }

    #[test]
    fn a_topic_created_again_after_a_delete_starts_its_leader_epochs_at_zero() {
        let mut e = ClusterEpochs::default();
        let moved = |topic: &str, leader_epoch| EventKind::PartitionChanged {
            topic: topic.into(),
            partition: 0,
            leader: 3,
            leader_epoch,
            isr: vec![3],
            elr: vec![],
        };
        e.check(1, &moved("t", 0)).unwrap();
        e.check(2, &moved("t", 1)).unwrap();
        e.check(2, &moved("u", 4)).unwrap();
        e.check(3, &EventKind::TopicDeleted { topic: "t".into() })
            .unwrap();
        e.check(4, &moved("t", 0)).unwrap();
        // Another topic's epochs are still remembered.
        let v = e.check(5, &moved("u", 3)).unwrap_err();
        assert!(v.detail.contains("u-0 went from 4 to 3"), "{}", v.detail);
        // Without a delete, going back still fires.
        e.check(6, &moved("t", 2)).unwrap();
        assert!(e.check(7, &moved("t", 0)).is_err());
    }

    #[test]
    fn client_epoch_decrease_without_rejoin_fires() {
        check_client_epoch(1, "c", "m", 3, 5).unwrap();
        check_client_epoch(1, "c", "m", 5, 0).unwrap();
        check_client_epoch(1, "c", "m", 0, 2).unwrap();
        check_client_epoch(1, "c", "m", 5, -1).unwrap();
        assert!(check_client_epoch(1, "c", "m", 5, 4).is_err());
    }
}

//! 7. coordinator-answers: answers and committed states Kafka 4.4.0's coordinator never produces,
//!    whatever the timing, because a rule of its own rules them out:
//!    * an epoch-0 StreamsGroupHeartbeat (a join) answered FENCED_MEMBER_EPOCH:
//!      `throwIfStreamsGroupMemberEpochIsInvalid` accepts epoch 0 before any other test, and a static
//!      member's join never reaches the epoch check (KAFKA-19233 is what it looks like without that
//!      rule: a fenced member fenced again on every rejoin until its session expires);
//!    * a streams group left without members whose assignment epoch is not its group epoch: the fence
//!      of the last member writes the target assignment metadata at the new group epoch
//!      (`streamsGroupFenceMember`, KAFKA-20442), and a group with members writes no epoch without
//!      a member heartbeat. Checked on the committed records, at the end of each coordinator write
//!      (one batch), since a fence's tombstones and epochs arrive in one batch;
//!    * a fence (a write of member tombstones and a group epoch, with no member record) that changes
//!      the group's metadata hash or validated topology epoch: `streamsGroupFenceMember` writes the
//!      group's own (KAFKA-19661: 4.1 wrote hash 0, and the next coordinator bumped the epoch again).

use members::observer::ClientKind;
use protocol::ErrorCode;

use super::{Invariant, Violation};
use crate::model::Model;

fn violation(at_ms: i64, detail: String) -> Violation {
    Violation::new(Invariant::CoordinatorAnswers, at_ms, detail)
}

/// A client learned it was fenced: `epoch` is the member epoch it held, i.e. the epoch of the
/// heartbeat that was answered (a streams member has one heartbeat in flight).
pub fn check_fenced(
    at_ms: i64,
    kind: ClientKind,
    client: &str,
    member_id: &str,
    error: ErrorCode,
    epoch: i32,
) -> Result<(), Violation> {
    if kind == ClientKind::StreamsMember && error == ErrorCode::FencedMemberEpoch && epoch == 0 {
        return Err(violation(
            at_ms,
            format!(
                "{client} (member {member_id}) joined with epoch 0 and was answered \
                 FENCED_MEMBER_EPOCH: Kafka accepts every epoch-0 heartbeat of a known member"
            ),
        ));
    }
    Ok(())
}

/// After a committed batch that touched streams group `group_id`: an empty group's epochs agree.
pub fn check_empty_group(at_ms: i64, group_id: &str, model: &Model) -> Result<(), Violation> {
    let Some(g) = model.streams.get(group_id) else {
        return Ok(());
    };
    if g.exists && g.live_members().next().is_none() && g.assignment_epoch != g.epoch {
        return Err(violation(
            at_ms,
            format!(
                "streams group {group_id} has no member but its assignment epoch {} is not its \
                 group epoch {}",
                g.assignment_epoch, g.epoch
            ),
        ));
    }
    Ok(())
}

/// What one committed write (batch) did to a streams group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BatchShape {
    /// The group's (metadata hash, validated topology epoch) before the batch, if it had a group-epoch
    /// record.
    pub before: Option<(i64, i32)>,
    /// The batch tombstoned a member's metadata.
    pub member_tombstone: bool,
    /// The batch wrote a member's metadata (a join, an update, a static replacement).
    pub member_record: bool,
    /// The (metadata hash, validated topology epoch) of the batch's group-epoch record, if any.
    pub group_record: Option<(i64, i32)>,
}

/// After a committed batch: a fence keeps the group's metadata hash and validated topology epoch.
pub fn check_fence(at_ms: i64, group_id: &str, shape: &BatchShape) -> Result<(), Violation> {
    let (Some(before), Some(written)) = (shape.before, shape.group_record) else {
        return Ok(());
    };
    if shape.member_tombstone && !shape.member_record && before != written {
        return Err(violation(
            at_ms,
            format!(
                "a fence in streams group {group_id} wrote metadata hash {} and validated topology \
                 epoch {} over {} and {}: Kafka's fence keeps the group's",
                written.0, written.1, before.0, before.1
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordinator::Record;
    use coordinator::records::streams::{
        StreamsGroupKey, StreamsGroupMemberMetadataValue, StreamsGroupMetadataValue,
        StreamsGroupTargetAssignmentMetadataValue, StreamsMemberKey,
    };

    fn group_epoch(epoch: i32) -> Record {
        Record::StreamsGroupMetadata {
            key: StreamsGroupKey {
                group_id: "g".into(),
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

    fn assignment_epoch(epoch: i32) -> Record {
        Record::StreamsGroupTargetAssignmentMetadata {
            key: StreamsGroupKey {
                group_id: "g".into(),
            },
            value: Some(StreamsGroupTargetAssignmentMetadataValue {
                assignment_epoch: epoch,
                assignment_timestamp: 0,
            }),
        }
    }

    fn member(present: bool) -> Record {
        Record::StreamsGroupMemberMetadata {
            key: StreamsMemberKey {
                group_id: "g".into(),
                member_id: "m".into(),
            },
            value: present.then(|| StreamsGroupMemberMetadataValue {
                instance_id: None,
                rack_id: None,
                client_id: "c".into(),
                client_host: "/h".into(),
                rebalance_timeout_ms: 1000,
                topology_epoch: 0,
                process_id: "p".into(),
                user_endpoint: None,
                client_tags: vec![],
            }),
        }
    }

    fn feed(model: &mut Model, records: &[Record]) {
        for (i, r) in records.iter().enumerate() {
            model.apply(0, i as i64, 0, r, 0);
        }
    }

    #[test]
    fn the_last_leave_without_the_assignment_epoch_fires_and_kafkas_leave_does_not() {
        let join = [group_epoch(1), member(true), assignment_epoch(1)];
        // Kafka 4.4.0's fence of the last member: tombstone, group epoch 2, assignment epoch 2.
        let mut model = Model::default();
        feed(&mut model, &join);
        assert!(check_empty_group(5, "g", &model).is_ok());
        feed(
            &mut model,
            &[member(false), group_epoch(2), assignment_epoch(2)],
        );
        assert!(check_empty_group(5, "g", &model).is_ok());
        // Before KAFKA-20442: the group epoch moves alone.
        let mut model = Model::default();
        feed(&mut model, &join);
        feed(&mut model, &[member(false), group_epoch(2)]);
        let v = check_empty_group(5, "g", &model).unwrap_err();
        assert_eq!(v.invariant, Invariant::CoordinatorAnswers);
        assert!(
            v.detail
                .contains("assignment epoch 1 is not its group epoch 2"),
            "{}",
            v.detail
        );
        // A group with a member may have its epochs apart (a rebalance in progress).
        let mut model = Model::default();
        feed(&mut model, &join);
        feed(&mut model, &[group_epoch(2)]);
        assert!(check_empty_group(5, "g", &model).is_ok());
        // An unknown group: nothing to say.
        assert!(check_empty_group(5, "other", &model).is_ok());
    }

    #[test]
    fn a_fence_that_changes_the_metadata_hash_fires_and_other_writes_do_not() {
        let fence = |before, written| BatchShape {
            before: Some(before),
            member_tombstone: true,
            member_record: false,
            group_record: Some(written),
        };
        // Kafka 4.4.0's fence: the group's hash and validated epoch again.
        assert!(check_fence(1, "g", &fence((77, 3), (77, 3))).is_ok());
        // 4.1's: hash 0.
        let v = check_fence(1, "g", &fence((77, 3), (0, 3))).unwrap_err();
        assert_eq!(v.invariant, Invariant::CoordinatorAnswers);
        assert!(v.detail.contains("metadata hash 0"), "{}", v.detail);
        // A static replacement (tombstones and the new member's records) or a heartbeat may move it.
        let mut replacement = fence((77, 3), (78, 3));
        replacement.member_record = true;
        assert!(check_fence(1, "g", &replacement).is_ok());
        let heartbeat = BatchShape {
            member_tombstone: false,
            ..fence((77, 3), (78, 4))
        };
        assert!(check_fence(1, "g", &heartbeat).is_ok());
        // A new group has nothing to keep.
        let new = BatchShape {
            before: None,
            ..fence((0, 0), (78, 4))
        };
        assert!(check_fence(1, "g", &new).is_ok());
    }

    #[test]
    fn only_a_streams_join_answered_fenced_member_epoch_fires() {
        let fenced = |kind, error, epoch| check_fenced(1, kind, "c", "m", error, epoch);
        let v = fenced(ClientKind::StreamsMember, ErrorCode::FencedMemberEpoch, 0).unwrap_err();
        assert_eq!(v.invariant, Invariant::CoordinatorAnswers);
        assert!(v.detail.contains("member m"), "{}", v.detail);
        // A stale epoch is fenced as Kafka does; so is an unknown member; classic has no epochs.
        assert!(fenced(ClientKind::StreamsMember, ErrorCode::FencedMemberEpoch, 7).is_ok());
        assert!(fenced(ClientKind::StreamsMember, ErrorCode::UnknownMemberId, 0).is_ok());
        assert!(fenced(ClientKind::Consumer, ErrorCode::FencedMemberEpoch, 0).is_ok());
    }
}

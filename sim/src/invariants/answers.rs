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
//!      group's own (KAFKA-19661: 4.1 wrote hash 0, and the next coordinator bumped the epoch again);
//!    * a described group whose state contradicts what the same answer says about it. A streams
//!      group's state is a function of its members and epochs (Kafka's state function,
//!      `update_state` here, run on every change): Empty exactly when it has no member; past
//!      NotReady, Assigning exactly when the group epoch is ahead of the assignment epoch; Stable
//!      only when every member is at the assignment epoch. A classic group is Empty exactly when it has no member, and Stable
//!      only with a chosen protocol (`ClassicGroup`'s transitions). Describe answers come from
//!      the admin client's calls (`GroupAdmin` faults, the swarm's admin probes).

use members::observer::ClientKind;
use protocol::ErrorCode;

use super::{Invariant, Violation};
use crate::event::DescribedGroupView;
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

/// A describe answer of `group_id` (error NONE) agrees with itself.
pub fn check_described(
    at_ms: i64,
    group_id: &str,
    d: &DescribedGroupView,
) -> Result<(), Violation> {
    if d.error != "NONE" {
        return Ok(());
    }
    let fail = |why: String| {
        Err(violation(
            at_ms,
            format!(
                "{} group {group_id} described as {} with {} members (group epoch {}, \
                 assignment epoch {}): {why}",
                d.group_type,
                d.state,
                d.members.len(),
                d.epoch,
                d.assignment_epoch
            ),
        ))
    };
    let empty = d.members.is_empty();
    if (d.state == "Empty") != empty && d.state != "Dead" {
        return fail("a group is Empty exactly when it has no member".into());
    }
    if d.group_type == "streams" {
        if empty || d.state == "NotReady" {
            return Ok(());
        }
        let assigning = d.epoch > d.assignment_epoch;
        if (d.state == "Assigning") != assigning {
            return fail(
                "past NotReady a group is Assigning exactly when its group epoch is ahead of its \
                 assignment epoch"
                    .into(),
            );
        }
        if d.state == "Stable"
            && let Some(m) = d.members.iter().find(|m| m.epoch != d.assignment_epoch)
        {
            return fail(format!(
                "member {} is at epoch {}: a Stable group's members are all at its assignment epoch",
                m.member_id, m.epoch
            ));
        }
    } else if d.state == "Stable" && d.protocol.is_empty() {
        return fail("a Stable classic group has a chosen protocol".into());
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

    fn described(
        group_type: &'static str,
        state: &str,
        epochs: (i32, i32),
        members: &[i32],
    ) -> DescribedGroupView {
        DescribedGroupView {
            group_type,
            error: "NONE",
            state: state.into(),
            protocol_type: String::new(),
            protocol: if group_type == "classic" && state == "Stable" {
                "range".into()
            } else {
                String::new()
            },
            epoch: epochs.0,
            assignment_epoch: epochs.1,
            members: members
                .iter()
                .enumerate()
                .map(|(i, e)| crate::event::DescribedMemberView {
                    instance_id: None,
                    member_id: format!("m{i}"),
                    epoch: *e,
                    assigned: Vec::new(),
                })
                .collect(),
        }
    }

    #[test]
    fn a_described_state_that_contradicts_the_answers_epochs_fires() {
        let check = |d: &DescribedGroupView| check_described(1, "g", d);
        // What Kafka's state function gives.
        for ok in [
            described("streams", "Empty", (5, 5), &[]),
            described("streams", "NotReady", (5, 3), &[2]),
            described("streams", "Assigning", (6, 5), &[5, 5]),
            described("streams", "Reconciling", (6, 6), &[6, 5]),
            described("streams", "Stable", (6, 6), &[6, 6]),
            described("classic", "Stable", (-1, -1), &[-1]),
            described("classic", "PreparingRebalance", (-1, -1), &[-1]),
            described("classic", "Empty", (-1, -1), &[]),
            described("classic", "Dead", (-1, -1), &[]),
        ] {
            assert!(check(&ok).is_ok(), "{ok:?}");
        }
        // The mistakes: Assigning at equal epochs (`update_state`'s `>` as `==`), Stable ahead of
        // the assignment, a Stable member behind it, Empty with members, members without Empty.
        for (bad, why) in [
            (
                described("streams", "Assigning", (6, 6), &[6]),
                "Assigning exactly",
            ),
            (
                described("streams", "Stable", (7, 6), &[6]),
                "Assigning exactly",
            ),
            (
                described("streams", "Stable", (6, 6), &[6, 5]),
                "member m1 is at epoch 5",
            ),
            (described("streams", "Empty", (6, 6), &[6]), "Empty exactly"),
            (described("streams", "Stable", (6, 6), &[]), "Empty exactly"),
            (
                described("classic", "Empty", (-1, -1), &[-1]),
                "Empty exactly",
            ),
        ] {
            let v = check(&bad).unwrap_err();
            assert_eq!(v.invariant, Invariant::CoordinatorAnswers);
            assert!(v.detail.contains(why), "{}", v.detail);
        }
        let mut no_protocol = described("classic", "Stable", (-1, -1), &[-1]);
        no_protocol.protocol.clear();
        assert!(
            check(&no_protocol)
                .unwrap_err()
                .detail
                .contains("chosen protocol")
        );
        // An error answer says nothing about the state.
        let mut error = described("streams", "Assigning", (6, 6), &[6]);
        error.error = "GROUP_ID_NOT_FOUND";
        assert!(check(&error).is_ok());
    }
}

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
//!      the admin client's calls (`GroupAdmin` faults, the swarm's admin probes);
//!    * a classic static member removed in the generation after one it received its assignment
//!      in, while its session was certainly alive, and it sent no LeaveGroup: Kafka 4.4 keeps a
//!      static member that has not rejoined when the join phase completes (KAFKA-8220: before the
//!      fix, `onCompleteJoin` removed it like a dynamic one). The other ways a member leaves a
//!      generation are ruled out by the harness's own evidence: the session, because a request
//!      that re-arms it (a Heartbeat answered NONE or REBALANCE_IN_PROGRESS, a JoinGroup answered
//!      NONE) reached the broker that then wrote the record, after it loaded the group, and was
//!      sent less than a session timeout before the record was seen; the missing SyncGroup
//!      (`expirePendingSync`), because it had received its assignment of the previous generation;
//!      a replacement, because the instance id is gone from the record; an admin removal, because
//!      the check stands down once an admin client sent a LeaveGroup.
//!    * a streams group's target assignment computed sooner than its assignment interval
//!      (`group.streams.assignment.interval.ms`, per group) after the previous one: the target
//!      assignment metadata record carries when it was computed, and
//!      `canComputeNextTargetAssignment` lets a heartbeat or the initial-rebalance timer compute a
//!      new one only once the interval has passed (the heartbeat answers ASSIGNMENT_DELAYED
//!      meanwhile). The timestamp survives fail-over (the record is replayed), so the check holds
//!      across coordinator moves; a record that moves the epoch but keeps the timestamp (a refined
//!      group epoch) computed nothing.

use members::observer::ClientKind;
use protocol::ErrorCode;

use coordinator::records::classic::GroupMetadataValue;
use members::observer::EventKind as ClientEvent;
use protocol::api::Api;

use super::{Checker, Invariant, Violation};
use crate::event::DescribedGroupView;
use crate::model::{ClassicGroup, Model};

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
    // Streams and consumer-protocol groups share the state rule (`StreamsGroup` and
    // `ConsumerGroup.maybeUpdateGroupState`): Assigning while the group epoch is ahead of the
    // target assignment's, Stable only with every member reconciled to it; a consumer group has
    // no NotReady.
    if d.group_type == "streams" || d.group_type == "consumer" {
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

/// Before a committed target assignment metadata record of streams group `group_id` is applied:
/// it was computed at least `interval_ms` (the group's effective assignment interval) after the
/// group's previous target assignment.
pub fn check_assignment_interval(
    at_ms: i64,
    group_id: &str,
    written_ms: i64,
    interval_ms: i64,
    model: &Model,
) -> Result<(), Violation> {
    let Some(previous) = model
        .streams
        .get(group_id)
        .filter(|g| g.exists)
        .map(|g| g.assignment_timestamp)
    else {
        return Ok(());
    };
    if previous == 0 || written_ms == 0 || written_ms == previous {
        return Ok(());
    }
    if written_ms < previous + interval_ms {
        return Err(violation(
            at_ms,
            format!(
                "streams group {group_id}'s target assignment was computed {} ms after the \
                 previous one, within its assignment interval of {interval_ms} ms",
                written_ms - previous
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

    fn classic_value(generation: i32, members: &[(&str, &str)]) -> GroupMetadataValue {
        use coordinator::records::classic::MemberMetadata;
        GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation,
            protocol: Some("range".into()),
            leader: members.first().map(|(m, _)| m.to_string()),
            current_state_timestamp: 0,
            members: members
                .iter()
                .map(|(m, i)| MemberMetadata {
                    member_id: m.to_string(),
                    group_instance_id: Some(i.to_string()),
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    rebalance_timeout: 5_000,
                    session_timeout: 10_000,
                    subscription: vec![],
                    assignment: vec![],
                })
                .collect(),
        }
    }

    #[test]
    fn a_static_member_dropped_within_its_session_fires() {
        use coordinator::records::classic::GroupMetadataKey;
        use members::observer::{ClientRef, EventKind as Ev};
        use protocol::api::Api;
        // Generation 1 on partition 0 (loaded by broker-1 at 1 s): M1 (instance i1) and M2 (i2).
        // M1's heartbeat sent at 10 s was answered by broker-1, and it had its generation 1
        // assignment; generation 2 drops it.
        let setup = |answered_by: &str, synced: i32, leave: bool| {
            let mut model = Model::default();
            model.apply(
                0,
                0,
                0,
                &Record::GroupMetadata {
                    key: GroupMetadataKey { group: "g".into() },
                    value: Some(classic_value(1, &[("M1", "i1"), ("M2", "i2")])),
                },
                0,
            );
            let mut c = Checker::new();
            c.on_cluster(
                1_000,
                "broker-1",
                &coordinator::events::EventKind::CoordinatorLoaded {
                    partition: 0,
                    epoch: 1,
                    records: 1,
                },
            );
            let client = ClientRef {
                kind: ClientKind::Consumer,
                name: "p1/consumer-0".into(),
                group_id: "g".into(),
                instance_id: Some("i1".into()),
                process_id: String::new(),
            };
            let mut events = vec![
                Ev::OwnedPartitions {
                    generation: synced,
                    partitions: vec![],
                },
                Ev::RequestSent {
                    broker: format!("{answered_by}:9092"),
                    api: Api::Heartbeat,
                    version: 4,
                    correlation_id: 7,
                },
                Ev::ResponseReceived {
                    broker: format!("{answered_by}:9092"),
                    api: Api::Heartbeat,
                    correlation_id: 7,
                    error: None,
                },
            ];
            if leave {
                events.push(Ev::RequestSent {
                    broker: "broker-1:9092".into(),
                    api: Api::LeaveGroup,
                    version: 4,
                    correlation_id: 8,
                });
            }
            for (seq, e) in events.iter().enumerate() {
                c.on_client_parts(seq as u64, 10_000, "p1", &client, "M1", e, &mut model)
                    .unwrap();
            }
            (model, c)
        };
        let dropped = classic_value(2, &[("M2", "i2")]);
        let check = |model: &Model, c: &Checker, at: i64, v: &GroupMetadataValue| {
            check_static_removals(at, "g", &model.classic["g"], v, c)
        };
        let (model, c) = setup("broker-1", 1, false);
        let v = check(&model, &c, 15_000, &dropped).unwrap_err();
        assert_eq!(v.invariant, Invariant::CoordinatorAnswers);
        assert!(
            v.detail
                .contains("dropped static member i1 (M1, p1/consumer-0) from generation 2"),
            "{}",
            v.detail
        );
        assert!(v.detail.contains("alive until 20000 ms"), "{}", v.detail);
        // After its session could have run out: droppable.
        assert!(check(&model, &c, 20_000, &dropped).is_ok());
        // Replaced under its instance id, or a later generation than the next: not judged.
        assert!(
            check(
                &model,
                &c,
                15_000,
                &classic_value(2, &[("M1b", "i1"), ("M2", "i2")])
            )
            .is_ok()
        );
        assert!(check(&model, &c, 15_000, &classic_value(3, &[("M2", "i2")])).is_ok());
        // A renewal answered by another broker than the one that loaded the group, a member that
        // never got its generation 1 assignment (a missing SyncGroup), or one that left: droppable.
        let (model, c) = setup("broker-2", 1, false);
        assert!(check(&model, &c, 15_000, &dropped).is_ok());
        let (model, c) = setup("broker-1", 0, false);
        assert!(check(&model, &c, 15_000, &dropped).is_ok());
        let (model, c) = setup("broker-1", 1, true);
        assert!(check(&model, &c, 15_000, &dropped).is_ok());
        // An admin LeaveGroup stands the check down.
        let (model, mut c) = setup("broker-1", 1, false);
        c.admin_left = true;
        assert!(check(&model, &c, 15_000, &dropped).is_ok());
    }

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
        computed(epoch, 0)
    }

    fn computed(epoch: i32, at_ms: i64) -> Record {
        Record::StreamsGroupTargetAssignmentMetadata {
            key: StreamsGroupKey {
                group_id: "g".into(),
            },
            value: Some(StreamsGroupTargetAssignmentMetadataValue {
                assignment_epoch: epoch,
                assignment_timestamp: at_ms,
            }),
        }
    }

    fn check_computed(model: &Model, record: &Record) -> Result<(), Violation> {
        let Record::StreamsGroupTargetAssignmentMetadata { value: Some(v), .. } = record else {
            unreachable!()
        };
        check_assignment_interval(0, "g", v.assignment_timestamp, 1_000, model)
    }

    #[test]
    fn a_target_assignment_within_the_assignment_interval_fires() {
        let mut model = Model::default();
        model.apply(0, 0, 0, &group_epoch(1), 0);
        // The first assignment has nothing before it.
        let first = computed(1, 10_000);
        check_computed(&model, &first).unwrap();
        model.apply(0, 1, 1, &first, 0);
        // A refined group epoch moves the assignment epoch and keeps the timestamp.
        check_computed(&model, &computed(2, 10_000)).unwrap();
        // Exactly the interval later is allowed; 400 ms later is not.
        check_computed(&model, &computed(2, 11_000)).unwrap();
        let v = check_computed(&model, &computed(2, 10_400)).unwrap_err();
        assert_eq!(v.invariant, Invariant::CoordinatorAnswers);
        assert!(
            v.detail.contains(
                "computed 400 ms after the previous one, within its assignment interval of 1000 ms"
            ),
            "{}",
            v.detail
        );
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

/// A request that re-armed a classic member's session at the coordinator that answered it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionRenewal {
    pub member_id: String,
    /// When it was sent: the coordinator handled it later, so the session ran at least a session
    /// timeout from here.
    pub sent_ms: i64,
    /// The host of the broker that answered it.
    pub broker: String,
}

/// What a classic consumer's event tells about its session at the coordinator, for
/// [`check_static_removals`]: the requests in flight that re-arm or end it, the last that re-armed
/// it for sure, the member ids it left with, and its last assignment.
pub fn track_session(state: &mut super::ClientState, kind: &ClientEvent, at_ms: i64) {
    match kind {
        ClientEvent::RequestSent {
            api: api @ (Api::Heartbeat | Api::JoinGroup | Api::LeaveGroup),
            correlation_id,
            ..
        } => {
            state.in_flight.insert(*correlation_id, (*api, at_ms));
            if *api == Api::LeaveGroup {
                state.left.insert(state.member_id.clone());
            }
        }
        ClientEvent::ResponseReceived {
            broker,
            correlation_id,
            error,
            ..
        } => {
            let renews = match state.in_flight.remove(correlation_id) {
                Some((Api::Heartbeat, sent_ms)) => matches!(
                    error,
                    None | Some(ErrorCode::None | ErrorCode::RebalanceInProgress)
                )
                .then_some(sent_ms),
                Some((Api::JoinGroup, sent_ms)) => {
                    matches!(error, None | Some(ErrorCode::None)).then_some(sent_ms)
                }
                _ => None,
            };
            if let Some(sent_ms) = renews {
                state.session_renewed = Some(SessionRenewal {
                    member_id: state.member_id.clone(),
                    sent_ms,
                    broker: broker.split(':').next().unwrap_or_default().to_string(),
                });
            }
        }
        ClientEvent::RequestFailed { correlation_id, .. } => {
            state.in_flight.remove(correlation_id);
        }
        ClientEvent::OwnedPartitions { generation, .. } => {
            state.synced = Some((state.member_id.clone(), *generation));
        }
        _ => {}
    }
}

/// A GroupMetadata record of `group` with `new` is about to replace `before` (the group's last
/// committed state): a static member it drops must have been droppable (module docs).
pub fn check_static_removals(
    at_ms: i64,
    group: &str,
    before: &ClassicGroup,
    new: &GroupMetadataValue,
    checker: &Checker,
) -> Result<(), Violation> {
    if !before.exists || new.generation != before.generation + 1 || checker.admin_left {
        return Ok(());
    }
    let writer = checker.coordinator_loaded_by.get(&before.partition);
    let loaded_ms = checker.coordinator_loaded_ms.get(&before.partition);
    for m in &before.members {
        let Some(instance) = m.instance_id.as_deref() else {
            continue;
        };
        if new
            .members
            .iter()
            .any(|n| n.group_instance_id.as_deref() == Some(instance))
        {
            continue;
        }
        // The client that held the member id; several clients with the instance id (a duplicate)
        // leave the question open.
        let holders: Vec<(&String, &super::ClientState)> = checker
            .clients
            .iter()
            .filter(|(_, c)| c.group == group && c.instance_id.as_deref() == Some(instance))
            .collect();
        let [(name, c)] = holders[..] else {
            continue;
        };
        let Some(renewal) = c.session_renewed.as_ref() else {
            continue;
        };
        let alive_until = renewal.sent_ms + i64::from(m.session_timeout_ms);
        let renewed_by_writer = writer == Some(&renewal.broker)
            && loaded_ms.is_some_and(|loaded| renewal.sent_ms >= *loaded);
        if renewal.member_id == m.member_id
            && renewed_by_writer
            && c.synced.as_ref() == Some(&(m.member_id.clone(), before.generation))
            && !c.left.contains(&m.member_id)
            && at_ms < alive_until
        {
            return Err(violation(
                at_ms,
                format!(
                    "classic group {group} dropped static member {instance} ({}, {name}) from \
                     generation {}: it had its generation {} assignment, sent no LeaveGroup, and \
                     its session at {} was re-armed by a request sent at {} ms, alive until {} ms",
                    m.member_id,
                    new.generation,
                    before.generation,
                    renewal.broker,
                    renewal.sent_ms,
                    alive_until
                ),
            ));
        }
    }
    Ok(())
}

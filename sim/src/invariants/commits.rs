//! 3. fenced-commit-rejected: no offset commit is accepted from a removed or fenced member, a
//!    stale epoch or a stale generation.
//!
//! A commit a client saw accepted is matched to the committed write that carried it
//! ([`super::durability::claim_commit`]); the committer is then judged against the group as the
//! committed records describe it just before that write, with Kafka 4.4's rules:
//! * streams: the member exists; its epoch equals the member's epoch, or is older and every
//!   committed partition's task is assigned to (or being revoked from) the member since an
//!   assignment epoch no newer than the commit's epoch; an epoch below 0 only for an empty group;
//! * classic: the member is in the generation the commit names and that is the group's current
//!   generation; generation -1 only for an empty group.

use members::observer::{ClientKind, TopicPartition};

use super::{Invariant, Violation};
use crate::model::{CommitWrite, Model};

fn violation(at_ms: i64, detail: String) -> Violation {
    Violation::new(Invariant::FencedCommitRejected, at_ms, detail)
}

#[allow(clippy::too_many_arguments)]
pub fn check_accepted(
    at_ms: i64,
    kind: ClientKind,
    group: &str,
    member_id: &str,
    epoch: i32,
    offsets: &[(TopicPartition, i64)],
    write: &CommitWrite,
    model: &Model,
) -> Result<(), Violation> {
    let pos = write.batch;
    let where_ = format!(
        "commit of {} partition(s) written at offset {pos} of __consumer_offsets-{}",
        offsets.len(),
        write.partition
    );
    match kind {
        ClientKind::StreamsMember => {
            let Some(g) = model.streams.get(group) else {
                return Ok(());
            };
            let snap = g.member_at(member_id, pos).filter(|s| s.present);
            let Some(snap) = snap else {
                if epoch < 0 && g.live_at(pos) == 0 {
                    return Ok(());
                }
                return Err(violation(
                    at_ms,
                    format!(
                        "{where_} was accepted from {member_id} (epoch {epoch}), which was not a \
                         member of streams group {group}"
                    ),
                ));
            };
            if epoch == snap.epoch {
                return Ok(());
            }
            if epoch > snap.epoch {
                return Err(violation(
                    at_ms,
                    format!(
                        "{where_} was accepted from {member_id} with epoch {epoch}, newer than its \
                         member epoch {}",
                        snap.epoch
                    ),
                ));
            }
            for (tp, _) in offsets {
                let sub = g.subtopology_of(&tp.topic);
                let assigned =
                    sub.and_then(|s| snap.active_epochs.get(&(s.to_string(), tp.partition)));
                match assigned {
                    Some(a) if *a <= epoch => {}
                    Some(a) => {
                        return Err(violation(
                            at_ms,
                            format!(
                                "{where_} was accepted from {member_id} with stale epoch {epoch} \
                                 (member epoch {}) for {tp}, assigned to it at epoch {a}",
                                snap.epoch
                            ),
                        ));
                    }
                    None => {
                        return Err(violation(
                            at_ms,
                            format!(
                                "{where_} was accepted from {member_id} with stale epoch {epoch} \
                                 (member epoch {}) for {tp}, whose task it does not own",
                                snap.epoch
                            ),
                        ));
                    }
                }
            }
            Ok(())
        }
        ClientKind::Consumer => {
            // A classic member of a consumer group (online migration): its member records exist
            // only while the group is a consumer group, so a member just before the write was
            // committing into a consumer group.
            if let Some(verdict) = super::consumer::check_accepted_classic_member(
                at_ms, &where_, group, member_id, epoch, pos, model,
            ) {
                return verdict;
            }
            let Some(g) = model.classic.get(group) else {
                return Ok(());
            };
            let (generation, members) = match g.at(pos) {
                Some((gen_, m)) => (gen_, m.clone()),
                None => (0, Default::default()),
            };
            if epoch < 0 {
                if members.is_empty() {
                    return Ok(());
                }
                return Err(violation(
                    at_ms,
                    format!(
                        "{where_} was accepted without a generation from {member_id} while \
                         classic group {group} had {} member(s) in generation {generation}",
                        members.len()
                    ),
                ));
            }
            if epoch != generation {
                return Err(violation(
                    at_ms,
                    format!(
                        "{where_} was accepted from {member_id} with generation {epoch} while \
                         classic group {group} was at generation {generation}"
                    ),
                ));
            }
            if !members.contains(member_id) {
                return Err(violation(
                    at_ms,
                    format!(
                        "{where_} was accepted from {member_id}, which is not a member of \
                         generation {generation} of classic group {group}"
                    ),
                ));
            }
            Ok(())
        }
        ClientKind::AsyncConsumer => super::consumer::check_accepted(
            at_ms, &where_, group, member_id, epoch, offsets, write, model,
        ),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use coordinator::Record;
    use coordinator::records::offsets::{OffsetCommitKey, OffsetCommitValue};
    use coordinator::records::streams::StreamsGroupKey;
    use coordinator::records::streams::{
        StreamsGroupCurrentMemberAssignmentValue, StreamsGroupMemberMetadataValue,
        StreamsGroupTopologyValue, StreamsMemberKey, Subtopology, TaskIds,
    };
    use members::observer::{ClientRef, EventKind};

    use super::super::Checker;
    use super::*;

    fn key(member: &str) -> StreamsMemberKey {
        StreamsMemberKey {
            group_id: "app".into(),
            member_id: member.into(),
        }
    }

    fn setup() -> Vec<Record> {
        vec![
            Record::StreamsGroupTopology {
                key: StreamsGroupKey {
                    group_id: "app".into(),
                },
                value: Some(StreamsGroupTopologyValue {
                    epoch: 0,
                    subtopologies: vec![Subtopology {
                        subtopology_id: "0".into(),
                        source_topics: vec!["in".into()],
                        source_topic_regex: vec![],
                        state_changelog_topics: vec![],
                        repartition_sink_topics: vec![],
                        repartition_source_topics: vec![],
                        copartition_groups: vec![],
                    }],
                }),
            },
            Record::StreamsGroupMemberMetadata {
                key: key("A"),
                value: Some(StreamsGroupMemberMetadataValue {
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
            },
            assignment("A", 5, &[(0, 3)]),
        ]
    }

    fn assignment(member: &str, epoch: i32, tasks: &[(i32, i32)]) -> Record {
        Record::StreamsGroupCurrentMemberAssignment {
            key: key(member),
            value: Some(StreamsGroupCurrentMemberAssignmentValue {
                member_epoch: epoch,
                previous_member_epoch: epoch - 1,
                state: 1,
                active_tasks: vec![TaskIds {
                    subtopology_id: "0".into(),
                    partitions: tasks.iter().map(|t| t.0).collect(),
                    assignment_epochs: Some(tasks.iter().map(|t| t.1).collect()),
                }],
                standby_tasks: vec![],
                warmup_tasks: vec![],
                active_tasks_pending_revocation: vec![],
                standby_tasks_pending_revocation: vec![],
                warmup_tasks_pending_revocation: vec![],
            }),
        }
    }

    fn commit(partition: i32, offset: i64) -> Record {
        Record::OffsetCommit {
            key: OffsetCommitKey {
                group: "app".into(),
                topic: "in".into(),
                partition,
            },
            value: Some(OffsetCommitValue {
                offset,
                leader_epoch: -1,
                metadata: String::new(),
                commit_timestamp: 0,
                expire_timestamp: None,
                topic_id: uuid::Uuid::nil(),
            }),
        }
    }

    fn accepted(epoch: i32, partition: i32, offset: i64) -> EventKind {
        EventKind::CommitAccepted {
            epoch,
            offsets: vec![(TopicPartition::new("in", partition), offset)],
        }
    }

    fn run(records: &[Record], epoch: i32, partition: i32) -> Result<(), Violation> {
        let mut model = Model::default();
        for (i, r) in records.iter().enumerate() {
            model.apply(0, i as i64, i as i64, r, 1);
        }
        let client = ClientRef {
            kind: ClientKind::StreamsMember,
            name: "p/t1".into(),
            group_id: "app".into(),
            instance_id: None,
            process_id: "p".into(),
        };
        Checker::new().on_client_parts(
            1,
            7,
            "h",
            &client,
            "A",
            &accepted(epoch, partition, 42),
            &mut model,
        )
    }

    #[test]
    fn current_epoch_and_old_epoch_with_older_assignment_pass() {
        let mut r = setup();
        r.push(commit(0, 42));
        run(&r, 5, 0).unwrap();
        // Epoch 4 is older than the member's 5, but task 0_0 was assigned at epoch 3.
        run(&r, 4, 0).unwrap();
    }

    #[test]
    fn removed_member_commit_fires() {
        let mut r = setup();
        r.push(Record::StreamsGroupMemberMetadata {
            key: key("A"),
            value: None,
        });
        r.push(commit(0, 42));
        let v = run(&r, 5, 0).unwrap_err();
        assert_eq!(v.invariant, Invariant::FencedCommitRejected);
        assert!(v.detail.contains("not a member"), "{}", v.detail);
    }

    #[test]
    fn stale_epoch_for_a_newer_assignment_fires() {
        let mut r = setup();
        r.push(assignment("A", 7, &[(0, 3), (1, 7)]));
        r.push(commit(1, 42));
        let v = run(&r, 6, 1).unwrap_err();
        assert!(
            v.detail.contains("assigned to it at epoch 7"),
            "{}",
            v.detail
        );
        // A future epoch is never accepted either.
        let mut r = setup();
        r.push(commit(0, 42));
        assert!(run(&r, 9, 0).is_err());
    }

    /// A classic member's commits after its group was converted into a consumer group (online
    /// migration) are judged by the consumer group's records: its generation must be its member
    /// epoch there (the classic records, tombstoned, would refuse every generation).
    #[test]
    fn classic_member_commit_in_a_converted_group() {
        use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
        use coordinator::records::consumer::{
            ConsumerGroupCurrentMemberAssignmentValue, ConsumerGroupKey,
            ConsumerGroupMemberMetadataValue, ConsumerGroupMetadataValue, ConsumerMemberKey,
        };
        let classic = Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: Some(GroupMetadataValue {
                protocol_type: "consumer".into(),
                generation: 3,
                protocol: Some("range".into()),
                leader: Some("A".into()),
                current_state_timestamp: 0,
                members: vec![MemberMetadata {
                    member_id: "A".into(),
                    group_instance_id: None,
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    rebalance_timeout: 1,
                    session_timeout: 1,
                    subscription: vec![],
                    assignment: vec![],
                }],
            }),
        };
        let tombstone = Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: None,
        };
        let member = ConsumerMemberKey {
            group_id: "g".into(),
            member_id: "A".into(),
        };
        let converted = [
            Record::ConsumerGroupMetadata {
                key: ConsumerGroupKey {
                    group_id: "g".into(),
                },
                value: Some(ConsumerGroupMetadataValue {
                    epoch: 3,
                    metadata_hash: 0,
                }),
            },
            Record::ConsumerGroupMemberMetadata {
                key: member.clone(),
                value: Some(ConsumerGroupMemberMetadataValue {
                    instance_id: None,
                    rack_id: None,
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    subscribed_topic_names: vec!["t".into()],
                    subscribed_topic_regex: None,
                    rebalance_timeout_ms: 1,
                    server_assignor: None,
                    classic_member_metadata: None,
                }),
            },
            Record::ConsumerGroupCurrentMemberAssignment {
                key: member,
                value: Some(ConsumerGroupCurrentMemberAssignmentValue {
                    member_epoch: 3,
                    previous_member_epoch: 3,
                    state: 0,
                    assigned_partitions: vec![],
                    partitions_pending_revocation: vec![],
                }),
            },
        ];
        let mut c = commit(0, 9);
        if let Record::OffsetCommit { key, .. } = &mut c {
            key.group = "g".into();
            key.topic = "t".into();
        }
        let judge = |records: &[Record], generation: i32| {
            let mut model = Model::default();
            for (i, r) in records.iter().enumerate() {
                model.apply(0, i as i64, i as i64, r, 1);
            }
            let client = ClientRef {
                kind: ClientKind::Consumer,
                name: "c1".into(),
                group_id: "g".into(),
                instance_id: None,
                process_id: String::new(),
            };
            let ev = EventKind::CommitAccepted {
                epoch: generation,
                offsets: vec![(TopicPartition::new("t", 0), 9)],
            };
            Checker::new().on_client_parts(1, 7, "h", &client, "A", &ev, &mut model)
        };
        let mut records = vec![classic, tombstone.clone()];
        records.extend(converted.iter().cloned());
        records.push(c.clone());
        judge(&records, 3).unwrap();
        let v = judge(&records, 2).unwrap_err();
        assert!(
            v.detail
                .contains("with generation 2, not its member epoch 3"),
            "{}",
            v.detail
        );
        // Accepted between the tombstone and the member's records: neither group had it.
        let v = judge(&[tombstone, c], 3).unwrap_err();
        assert!(
            v.detail
                .contains("generation 3 while classic group g was at generation 0"),
            "{}",
            v.detail
        );
    }

    #[test]
    fn classic_stale_generation_fires() {
        use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
        let group = |generation: i32| Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: Some(GroupMetadataValue {
                protocol_type: "consumer".into(),
                generation,
                protocol: None,
                leader: None,
                current_state_timestamp: 0,
                members: vec![MemberMetadata {
                    member_id: "A".into(),
                    group_instance_id: None,
                    client_id: "c".into(),
                    client_host: "/h".into(),
                    rebalance_timeout: 1,
                    session_timeout: 1,
                    subscription: vec![],
                    assignment: vec![],
                }],
            }),
        };
        let mut c = commit(0, 9);
        if let Record::OffsetCommit { key, .. } = &mut c {
            key.group = "g".into();
            key.topic = "t".into();
        }
        let mut model = Model::default();
        for (i, r) in [group(2), group(3), c].iter().enumerate() {
            model.apply(0, i as i64, i as i64, r, 1);
        }
        let client = ClientRef {
            kind: ClientKind::Consumer,
            name: "c1".into(),
            group_id: "g".into(),
            instance_id: None,
            process_id: String::new(),
        };
        let ev = EventKind::CommitAccepted {
            epoch: 2,
            offsets: vec![(TopicPartition::new("t", 0), 9)],
        };
        let v = Checker::new()
            .on_client_parts(1, 7, "h", &client, "A", &ev, &mut model)
            .unwrap_err();
        assert!(
            v.detail
                .contains("generation 2 while classic group g was at generation 3"),
            "{}",
            v.detail
        );
    }
}

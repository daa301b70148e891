//! 1. exclusive-active-ownership: no task (streams) or partition (classic) is active on two
//!    members at once unless the older owner is already fenced or removed by the coordinator
//!    (revoke-before-assign).
//!
//! When a client's ownership snapshot adds an item another live client still holds, the older
//! holder must be out of the coordinator's committed state:
//! * streams: its member record is gone (the coordinator removed or fenced it; a member the
//!   coordinator still has keeps its tasks until it reports them revoked, so the coordinator may
//!   not have given them away);
//! * classic: its generation is older than the group's committed generation (its commits would
//!   be rejected with ILLEGAL_GENERATION), or it is not a member of that generation any more.
//!
//! Or the newcomer itself is a zombie (classic): the committed state had it as a member of the
//! generation it now owns and has since replaced it within that generation (a static member's
//! instance id taken over by another process). Kafka answered its SyncGroup while it was a member
//! (Kafka's `classicGroupSyncGroup` hands out the stored assignment), the answer was
//! still in flight when `updateStaticMemberThenRebalance` replaced it and wrote the new member
//! id, and the answer arrives all the same; the zombie's commits are refused (FENCED_INSTANCE_ID,
//! judged by `fenced-commit-rejected`), so it cannot take the partition from the true owner.

use std::collections::BTreeMap;

use members::observer::ClientKind;

use super::{ClientState, Invariant, Violation};
use crate::model::Model;

/// `newcomer` just acquired `item` of `group`, which `older` still holds.
pub fn check_exclusive(
    at_ms: i64,
    clients: &BTreeMap<String, ClientState>,
    group: &str,
    item: &str,
    newcomer: &str,
    older: &str,
    model: &Model,
) -> Result<(), Violation> {
    let (Some(new), Some(old)) = (clients.get(newcomer), clients.get(older)) else {
        return Ok(());
    };
    if old.stopped {
        return Ok(());
    }
    if new.kind == ClientKind::Consumer
        && model.classic.get(group).is_some_and(|g| {
            g.generation == new.owned_epoch
                && !g.is_member(&new.member_id)
                && g.history.iter().any(|(_, generation, members)| {
                    *generation == new.owned_epoch && members.contains(&new.member_id)
                })
        })
    {
        return Ok(());
    }
    let still_owner = match old.kind {
        ClientKind::StreamsMember => model
            .streams
            .get(group)
            .is_some_and(|g| g.is_member(&old.member_id))
            .then(|| {
                let g = &model.streams[group];
                format!(
                    "the coordinator still has {} as a member at epoch {} (group epoch {})",
                    old.member_id,
                    g.members[&old.member_id].epoch(),
                    g.epoch
                )
            }),
        // A classic member inside a consumer group (online migration, Kafka's
        // `classicGroupJoinToConsumerGroup`): the consumer group's records decide, as for its
        // consumer-protocol members; a classic member reports its revocation by rejoining.
        ClientKind::Consumer if super::consumer::is_consumer_group(group, model) => {
            super::consumer::still_owner(group, item, old, model)
        }
        ClientKind::Consumer => model.classic.get(group).and_then(|g| {
            (g.generation == old.owned_epoch && g.is_member(&old.member_id)).then(|| {
                format!(
                    "{} is a member of the group's current generation {}",
                    old.member_id, g.generation
                )
            })
        }),
        ClientKind::AsyncConsumer => super::consumer::still_owner(group, item, old, model),
        _ => None,
    };
    match still_owner {
        Some(why) => Err(Violation::new(
            Invariant::ExclusiveActiveOwnership,
            at_ms,
            format!(
                "{item} of group {group} became active on {newcomer} (member {}, epoch {}) while \
                 {older} (member {}, epoch {}) still owns it and {why}",
                new.member_id, new.owned_epoch, old.member_id, old.owned_epoch
            ),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use coordinator::Record;
    use coordinator::records::classic::{GroupMetadataKey, GroupMetadataValue, MemberMetadata};
    use coordinator::records::streams::{StreamsGroupMemberMetadataValue, StreamsMemberKey};
    use members::observer::{ClientRef, EventKind, TaskId, TopicPartition};

    use super::super::Checker;
    use super::*;

    pub(crate) fn streams_client(name: &str, process: &str) -> ClientRef {
        ClientRef {
            kind: ClientKind::StreamsMember,
            name: name.into(),
            group_id: "app".into(),
            instance_id: None,
            process_id: process.into(),
        }
    }

    fn member_record(member: &str, present: bool) -> Record {
        Record::StreamsGroupMemberMetadata {
            key: StreamsMemberKey {
                group_id: "app".into(),
                member_id: member.into(),
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

    fn owned(epoch: i32, tasks: &[i32]) -> EventKind {
        EventKind::OwnedTasks {
            epoch,
            active: tasks.iter().map(|p| TaskId::new("0", *p)).collect(),
            standby: vec![],
            warmup: vec![],
        }
    }

    #[test]
    fn a_task_on_two_members_the_coordinator_still_has_fires() {
        let mut model = Model::default();
        model.apply(0, 0, 0, &member_record("A", true), 0);
        model.apply(0, 1, 1, &member_record("B", true), 0);
        let mut c = Checker::new();
        let (a, b) = (streams_client("p1/t1", "p1"), streams_client("p2/t1", "p2"));
        c.on_client_parts(1, 10, "h1", &a, "A", &owned(1, &[0, 1]), &mut model)
            .unwrap();
        let v = c
            .on_client_parts(2, 20, "h2", &b, "B", &owned(2, &[1]), &mut model)
            .unwrap_err();
        assert_eq!(v.invariant, Invariant::ExclusiveActiveOwnership);
        assert_eq!(v.at_ms, 20);
        assert!(
            v.detail.contains("0_1 of group app became active on p2/t1"),
            "{}",
            v.detail
        );
    }

    #[test]
    fn a_removed_zombie_may_still_hold_the_task() {
        let mut model = Model::default();
        model.apply(0, 0, 0, &member_record("A", true), 0);
        let mut c = Checker::new();
        let (a, b) = (streams_client("p1/t1", "p1"), streams_client("p2/t1", "p2"));
        c.on_client_parts(1, 10, "h1", &a, "A", &owned(1, &[0]), &mut model)
            .unwrap();
        // The coordinator removes A (session timeout) and gives its task to B.
        model.apply(0, 1, 1, &member_record("A", false), 0);
        model.apply(0, 2, 2, &member_record("B", true), 0);
        c.on_client_parts(2, 20, "h2", &b, "B", &owned(2, &[0]), &mut model)
            .unwrap();
        // A revoked task moving on is fine too.
        c.on_client_parts(3, 30, "h1", &a, "A", &owned(1, &[]), &mut model)
            .unwrap();
        // A crashed host's members own nothing.
        c.host_crashed("h2");
        model.apply(0, 3, 3, &member_record("A", true), 0);
        c.on_client_parts(4, 40, "h1", &a, "A", &owned(3, &[0]), &mut model)
            .unwrap();
    }

    fn classic_record(generation: i32, members: &[&str]) -> Record {
        Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: Some(GroupMetadataValue {
                protocol_type: "consumer".into(),
                generation,
                protocol: Some("range".into()),
                leader: members.first().map(|m| m.to_string()),
                current_state_timestamp: 0,
                members: members
                    .iter()
                    .map(|m| MemberMetadata {
                        member_id: m.to_string(),
                        group_instance_id: None,
                        client_id: "c".into(),
                        client_host: "/h".into(),
                        rebalance_timeout: 1000,
                        session_timeout: 1000,
                        subscription: vec![],
                        assignment: vec![],
                    })
                    .collect(),
            }),
        }
    }

    fn consumer(name: &str) -> ClientRef {
        ClientRef {
            kind: ClientKind::Consumer,
            name: name.into(),
            group_id: "g".into(),
            instance_id: None,
            process_id: String::new(),
        }
    }

    fn partitions(generation: i32, p: &[i32]) -> EventKind {
        EventKind::OwnedPartitions {
            generation,
            partitions: p.iter().map(|p| TopicPartition::new("t", *p)).collect(),
        }
    }

    /// Consumer `name` (on host `h<n>` for `c<n>`) reports owning partition t-0 of `generation` as
    /// member `member`, at log position `seq` (time `seq + 4`).
    fn owns_partition_0(
        c: &mut Checker,
        model: &mut Model,
        seq: u64,
        name: &str,
        member: &str,
        generation: i32,
    ) -> Result<(), Violation> {
        let host = name.replace('c', "h");
        c.on_client_parts(
            seq,
            seq as i64 + 4,
            &host,
            &consumer(name),
            member,
            &partitions(generation, &[0]),
            model,
        )
    }

    #[test]
    fn a_classic_member_replaced_within_its_generation_acquires_as_a_zombie() {
        // Generation 3 committed with A and B; A's instance taken over by A2 in the same
        // generation; A2 owns partition 0; then A's answer, in flight since before the
        // replacement, arrives: A is a zombie, not a second owner.
        let mut model = Model::default();
        model.apply(0, 0, 0, &classic_record(3, &["A", "B"]), 0);
        model.apply(0, 1, 1, &classic_record(3, &["A2", "B"]), 0);
        let mut c = Checker::new();
        owns_partition_0(&mut c, &mut model, 1, "c2", "A2", 3).unwrap();
        owns_partition_0(&mut c, &mut model, 2, "c1", "A", 3).unwrap();
        // A member id the committed generation never had gets no such pass.
        let v = owns_partition_0(&mut c, &mut model, 3, "c3", "X", 3).unwrap_err();
        assert_eq!(v.invariant, Invariant::ExclusiveActiveOwnership);
        assert!(v.detail.contains("became active on c3"), "{}", v.detail);
        // Nor does a member of an earlier generation that owns the current one's partitions.
        let mut model = Model::default();
        model.apply(0, 0, 0, &classic_record(2, &["A", "B"]), 0);
        model.apply(0, 1, 1, &classic_record(3, &["A2", "B"]), 0);
        let mut c = Checker::new();
        owns_partition_0(&mut c, &mut model, 1, "c2", "A2", 3).unwrap();
        let v = owns_partition_0(&mut c, &mut model, 2, "c1", "A", 3).unwrap_err();
        assert_eq!(v.invariant, Invariant::ExclusiveActiveOwnership);
    }

    #[test]
    fn classic_same_generation_double_assignment_fires_older_generation_does_not() {
        let mut model = Model::default();
        model.apply(0, 0, 0, &classic_record(3, &["A", "B"]), 0);
        let mut c = Checker::new();
        owns_partition_0(&mut c, &mut model, 1, "c1", "A", 3).unwrap();
        let v = owns_partition_0(&mut c, &mut model, 2, "c2", "B", 3).unwrap_err();
        assert_eq!(v.invariant, Invariant::ExclusiveActiveOwnership);
        assert!(v.detail.contains("current generation 3"), "{}", v.detail);

        // A zombie of generation 3 while the group moved on to 4 is fenced.
        let mut model = Model::default();
        model.apply(0, 0, 0, &classic_record(3, &["A", "B"]), 0);
        let mut c = Checker::new();
        owns_partition_0(&mut c, &mut model, 1, "c1", "A", 3).unwrap();
        model.apply(0, 1, 1, &classic_record(4, &["A", "B"]), 0);
        owns_partition_0(&mut c, &mut model, 2, "c2", "B", 4).unwrap();
    }
}

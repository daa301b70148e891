//! The client-visible forms of three invariants, for runs where the committed state is out of
//! reach (`regroup drive` against a real cluster: [`super::Checker::observed_only`]). They judge
//! only what the clients themselves report, so they are weaker than the simulator's forms (which
//! read the coordinator's records at the moment of each event) but never need the brokers:
//!
//! * `exclusive-active-ownership`: when a client acquires an active task (a classic partition)
//!   another live client still holds, the older holder must have been out of the group: the
//!   coordinator gives an item away from a member only once the member acknowledged its
//!   revocation. The holder cannot tell at once (a zombie does not know), so the overlap waits:
//!   it is excused when the holder turns out to be out (fenced, a fatal error, its tasks lost, a
//!   leave, stopped, crashed, a new member id), and it is a violation when a heartbeat the holder
//!   sent after the newcomer's acquisition is answered without error under the same member id:
//!   the coordinator still had it as a member then, and a removed member cannot come back
//!   without a join. (Releasing the item proves nothing: a zombie may finish a revocation it was
//!   asked for before it was removed.) A classic newcomer in a newer generation than the holder's
//!   needs no wait (the holder's generation is over: its commits fail ILLEGAL_GENERATION).
//! * `fenced-commit-rejected`: a commit sent after its client was told it is no longer a member
//!   (streams UNKNOWN_MEMBER_ID; classic ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID or
//!   FENCED_INSTANCE_ID), under the same member id and with an epoch (generation) no newer than
//!   the one it was fenced at, is never accepted. (A streams FENCED_MEMBER_EPOCH does not count:
//!   the member stays, and Kafka 4.4 accepts its older-epoch commits of tasks it still owns.)
//! * `offsets-durable`: a fetch sent after a commit was acknowledged returns, for each partition,
//!   an offset at or past the last one acknowledged before it was sent: an acknowledged commit is
//!   never lost or rolled back. Not judged once an admin client touched offsets, groups or topics
//!   (OffsetCommit, OffsetDelete, DeleteGroups; drive changes no topic), or when offsets may expire
//!   ([`Observed::offsets_may_expire`]).

use std::collections::{BTreeMap, VecDeque};

use members::observer::{ClientKind, ClientRef, EventKind, TopicPartition};
use protocol::{Api, ErrorCode};

use super::{Invariant, Violation};

/// An acquisition of an item another live client still held, waiting for the holder to show
/// it had been out of the group.
#[derive(Debug, Clone)]
struct Overlap {
    group: String,
    item: String,
    newcomer: String,
    newcomer_member: String,
    newcomer_epoch: i32,
    at_ms: i64,
    /// The holder's member id and epoch (generation) when the newcomer acquired the item.
    member_id: String,
    epoch: i32,
}

/// What the client-visible checks remember.
#[derive(Debug, Default)]
pub struct Observed {
    /// By older holder (client name).
    overlaps: BTreeMap<String, Vec<Overlap>>,
    /// Per client: OffsetCommit requests in flight (correlation id -> sent ms) and the sent times
    /// of those answered, oldest first (each CommitAccepted or CommitRejected takes one).
    commits_in_flight: BTreeMap<String, BTreeMap<i32, i64>>,
    commits_answered: BTreeMap<String, VecDeque<i64>>,
    /// Per client: group heartbeats in flight (correlation id -> sent ms).
    heartbeats_in_flight: BTreeMap<String, BTreeMap<i32, i64>>,
    /// Per client: (member id, epoch, ms) of the last fencing that removed it.
    fenced: BTreeMap<String, (String, i32, i64)>,
    /// Per (group, partition): (ms acknowledged, offset) of acknowledged commits, in order.
    acknowledged: BTreeMap<(String, TopicPartition), Vec<(i64, i64)>>,
    /// An admin client changed offsets, groups or topics: durability is no longer judged.
    admin_touched: bool,
    /// The scenario lets offsets expire (a retention configured): durability is not judged.
    pub offsets_may_expire: bool,
}

fn violation(invariant: Invariant, at_ms: i64, detail: String) -> Violation {
    Violation::new(invariant, at_ms, detail)
}

impl Observed {
    /// An admin client's event.
    pub fn on_admin(&mut self, kind: &EventKind) {
        if let EventKind::RequestSent { api, .. } = kind
            && matches!(
                api,
                Api::OffsetCommit | Api::OffsetDelete | Api::DeleteGroups
            )
        {
            self.admin_touched = true;
        }
    }

    /// `newcomer` (member `newcomer_member` at `newcomer_epoch`) acquired `item` of `group`, which
    /// live client `older` (member `member_id` at `epoch`) still holds.
    #[allow(clippy::too_many_arguments)]
    pub fn overlap(
        &mut self,
        kind: ClientKind,
        group: &str,
        item: &str,
        newcomer: &str,
        newcomer_member: &str,
        newcomer_epoch: i32,
        older: &str,
        member_id: &str,
        epoch: i32,
        at_ms: i64,
    ) {
        if kind == ClientKind::Consumer && newcomer_epoch > epoch {
            return;
        }
        self.overlaps
            .entry(older.to_string())
            .or_default()
            .push(Overlap {
                group: group.to_string(),
                item: item.to_string(),
                newcomer: newcomer.to_string(),
                newcomer_member: newcomer_member.to_string(),
                newcomer_epoch,
                at_ms,
                member_id: member_id.to_string(),
                epoch,
            });
    }

    /// Client `name` is out of the group, or gone (fenced, fatal, stopped, crashed, a new
    /// membership): whatever it still held was taken from a zombie.
    pub fn out_of_group(&mut self, name: &str) {
        self.overlaps.remove(name);
    }

    /// Client `name`'s heartbeat sent at `sent_ms` was answered without error at `at_ms` under
    /// `member_id`: it was a member when the coordinator read it. Every overlap it held since
    /// before that heartbeat was sent is a violation (see the module documentation).
    fn confirmed(
        &mut self,
        at_ms: i64,
        name: &str,
        member_id: &str,
        sent_ms: i64,
    ) -> Result<(), Violation> {
        let Some(list) = self.overlaps.get_mut(name) else {
            return Ok(());
        };
        if list.iter().any(|o| o.member_id != member_id) {
            // Another membership since: the one that held the items was out.
            self.overlaps.remove(name);
            return Ok(());
        }
        let Some(o) = list.iter().find(|o| o.at_ms < sent_ms).cloned() else {
            return Ok(());
        };
        self.overlaps.remove(name);
        Err(violation(
            Invariant::ExclusiveActiveOwnership,
            at_ms,
            format!(
                "{} of group {} became active on {} (member {}, epoch {}) at {} ms while {name} \
                 (member {}, epoch {}) still owned it; {name} was still a member: its heartbeat \
                 sent at {sent_ms} ms, after that, was answered without error at {at_ms} ms",
                o.item,
                o.group,
                o.newcomer,
                o.newcomer_member,
                o.newcomer_epoch,
                o.at_ms,
                o.member_id,
                o.epoch
            ),
        ))
    }

    /// A client event the commit and fencing bookkeeping reads.
    pub fn on_client(
        &mut self,
        at_ms: i64,
        client: &ClientRef,
        member_id: &str,
        kind: &EventKind,
    ) -> Result<(), Violation> {
        let name = &client.name;
        match kind {
            EventKind::RequestSent {
                api: Api::OffsetCommit,
                correlation_id,
                ..
            } => {
                self.commits_in_flight
                    .entry(name.clone())
                    .or_default()
                    .insert(*correlation_id, at_ms);
            }
            EventKind::ResponseReceived {
                api: Api::OffsetCommit,
                correlation_id,
                ..
            } => {
                if let Some(sent) = self
                    .commits_in_flight
                    .get_mut(name)
                    .and_then(|m| m.remove(correlation_id))
                {
                    self.commits_answered
                        .entry(name.clone())
                        .or_default()
                        .push_back(sent);
                }
            }
            EventKind::RequestFailed {
                api: Api::OffsetCommit,
                correlation_id,
                ..
            } => {
                if let Some(m) = self.commits_in_flight.get_mut(name) {
                    m.remove(correlation_id);
                }
            }
            EventKind::RequestSent {
                api: Api::StreamsGroupHeartbeat | Api::Heartbeat,
                correlation_id,
                ..
            } => {
                self.heartbeats_in_flight
                    .entry(name.clone())
                    .or_default()
                    .insert(*correlation_id, at_ms);
            }
            EventKind::RequestFailed {
                api: Api::StreamsGroupHeartbeat | Api::Heartbeat,
                correlation_id,
                ..
            } => {
                if let Some(m) = self.heartbeats_in_flight.get_mut(name) {
                    m.remove(correlation_id);
                }
            }
            EventKind::ResponseReceived {
                api: Api::StreamsGroupHeartbeat | Api::Heartbeat,
                correlation_id,
                error,
                ..
            } => {
                let sent = self
                    .heartbeats_in_flight
                    .get_mut(name)
                    .and_then(|m| m.remove(correlation_id));
                if let Some(sent) = sent
                    && error.is_none_or(|e| e == ErrorCode::None)
                {
                    return self.confirmed(at_ms, name, member_id, sent);
                }
            }
            EventKind::CommitRejected { .. } => {
                if let Some(q) = self.commits_answered.get_mut(name) {
                    q.pop_front();
                }
            }
            EventKind::Fenced { error, epoch } => {
                let removed = match client.kind {
                    ClientKind::StreamsMember => *error == ErrorCode::UnknownMemberId,
                    _ => true,
                };
                if removed {
                    self.fenced
                        .insert(name.clone(), (member_id.to_string(), *epoch, at_ms));
                }
            }
            EventKind::Fatal {
                error: Some(ErrorCode::FencedInstanceId),
                ..
            } => {
                // The epoch is not in the event: every epoch of this member id was fenced.
                self.fenced
                    .insert(name.clone(), (member_id.to_string(), i32::MAX, at_ms));
            }
            EventKind::CommitAccepted { epoch, offsets } => {
                // The request this answer is for (the oldest answered); an answer the member
                // did not report as accepted or rejected leaves an older entry in front, which
                // only makes the check more lenient.
                let sent = self
                    .commits_answered
                    .get_mut(name)
                    .and_then(|q| q.pop_front());
                if let (Some(sent), Some((fenced_member, fenced_epoch, fenced_at))) =
                    (sent, self.fenced.get(name))
                    && fenced_member == member_id
                    && *epoch > 0
                    && *epoch <= *fenced_epoch
                    && sent > *fenced_at
                {
                    return Err(violation(
                        Invariant::FencedCommitRejected,
                        at_ms,
                        format!(
                            "{name} (member {member_id}) was told at {fenced_at} ms it was out of \
                             group {} (epoch {}); its commit with epoch {epoch} sent at {sent} ms \
                             was accepted",
                            client.group_id,
                            if *fenced_epoch == i32::MAX {
                                "any".to_string()
                            } else {
                                fenced_epoch.to_string()
                            }
                        ),
                    ));
                }
                for (tp, offset) in offsets {
                    self.acknowledged
                        .entry((client.group_id.clone(), tp.clone()))
                        .or_default()
                        .push((at_ms, *offset));
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// Offsets `client` fetched with a request sent at `sent_ms`.
    pub fn fetched(
        &self,
        at_ms: i64,
        group: &str,
        client: &str,
        sent_ms: i64,
        offsets: &[(TopicPartition, i64)],
    ) -> Result<(), Violation> {
        if self.admin_touched || self.offsets_may_expire {
            return Ok(());
        }
        for (tp, fetched) in offsets {
            let Some(acks) = self.acknowledged.get(&(group.to_string(), tp.clone())) else {
                continue;
            };
            let Some((acked_at, acked)) = acks.iter().rev().find(|(t, _)| *t < sent_ms) else {
                continue;
            };
            if fetched < acked {
                return Err(violation(
                    Invariant::OffsetsDurable,
                    at_ms,
                    format!(
                        "{client} of group {group} fetched offset {fetched} for {tp} with a request \
                         sent at {sent_ms} ms, but offset {acked} had been acknowledged at \
                         {acked_at} ms"
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use members::observer::{RequestFailure, TaskId};

    use super::super::Checker;
    use super::*;
    use crate::model::Model;

    fn client(kind: ClientKind, name: &str) -> ClientRef {
        ClientRef {
            kind,
            name: name.into(),
            group_id: "app".into(),
            instance_id: None,
            process_id: name.into(),
        }
    }

    fn streams(name: &str) -> ClientRef {
        client(ClientKind::StreamsMember, name)
    }

    fn owned(epoch: i32, tasks: &[i32]) -> EventKind {
        EventKind::OwnedTasks {
            epoch,
            active: tasks.iter().map(|p| TaskId::new("0", *p)).collect(),
            standby: vec![],
            warmup: vec![],
        }
    }

    fn checker() -> Checker {
        Checker {
            observed_only: true,
            ..Checker::default()
        }
    }

    fn feed(
        c: &mut Checker,
        at: i64,
        who: &ClientRef,
        member: &str,
        kind: EventKind,
    ) -> Result<(), Violation> {
        let mut model = Model::default();
        c.on_client_parts(at as u64, at, &who.name, who, member, &kind, &mut model)
    }

    fn heartbeat(corr: i32, error: Option<ErrorCode>) -> EventKind {
        EventKind::ResponseReceived {
            broker: "b".into(),
            api: Api::StreamsGroupHeartbeat,
            correlation_id: corr,
            error,
        }
    }

    #[test]
    fn a_task_given_away_from_a_holder_the_coordinator_still_had_fires() {
        let mut c = checker();
        let (a, b) = (streams("a"), streams("b"));
        feed(&mut c, 10, &a, "A", owned(1, &[0, 1])).unwrap();
        // B gets task 0_1 while A still holds it: nothing to say yet.
        feed(&mut c, 20, &b, "B", owned(2, &[1])).unwrap();
        // A lets it go: a zombie may finish a revocation it was asked for; still nothing.
        feed(&mut c, 30, &a, "A", owned(2, &[0])).unwrap();
        // A heartbeat sent before the overlap, answered now, proves nothing either.
        feed(&mut c, 15, &a, "A", sent(1, Api::StreamsGroupHeartbeat)).unwrap();
        feed(&mut c, 35, &a, "A", heartbeat(1, None)).unwrap();
        // One sent after it, answered without error: A was still a member.
        feed(&mut c, 40, &a, "A", sent(2, Api::StreamsGroupHeartbeat)).unwrap();
        let v = feed(&mut c, 45, &a, "A", heartbeat(2, None)).unwrap_err();
        assert_eq!(v.invariant, Invariant::ExclusiveActiveOwnership);
        assert_eq!(v.at_ms, 45);
        assert_eq!(
            v.detail,
            "0_1 of group app became active on b (member B, epoch 2) at 20 ms while a (member A, \
             epoch 1) still owned it; a was still a member: its heartbeat sent at 40 ms, after \
             that, was answered without error at 45 ms"
        );
    }

    #[test]
    fn a_zombie_holder_that_turns_out_to_be_out_is_excused() {
        for out in [
            EventKind::Fenced {
                error: ErrorCode::UnknownMemberId,
                epoch: 1,
            },
            EventKind::TasksLost {
                active: vec![TaskId::new("0", 1)],
                standby: vec![],
                warmup: vec![],
            },
            EventKind::LeaveSent { epoch: -1 },
            EventKind::Stopped { graceful: false },
        ] {
            let mut c = checker();
            let (a, b) = (streams("a"), streams("b"));
            feed(&mut c, 10, &a, "A", owned(1, &[1])).unwrap();
            feed(&mut c, 20, &b, "B", owned(2, &[1])).unwrap();
            feed(&mut c, 25, &a, "A", out.clone()).unwrap();
            feed(&mut c, 30, &a, "A", owned(0, &[])).unwrap();
            feed(&mut c, 40, &a, "A", sent(2, Api::StreamsGroupHeartbeat)).unwrap();
            feed(&mut c, 45, &a, "A", heartbeat(2, None)).unwrap();
        }
        // A heartbeat answered with an error confirms nothing.
        let mut c = checker();
        let (a, b) = (streams("a"), streams("b"));
        feed(&mut c, 10, &a, "A", owned(1, &[1])).unwrap();
        feed(&mut c, 20, &b, "B", owned(2, &[1])).unwrap();
        feed(&mut c, 40, &a, "A", sent(2, Api::StreamsGroupHeartbeat)).unwrap();
        feed(
            &mut c,
            45,
            &a,
            "A",
            heartbeat(2, Some(ErrorCode::CoordinatorNotAvailable)),
        )
        .unwrap();
        // A holder that released the task before the newcomer got it was never in overlap.
        let mut c = checker();
        let (a, b) = (streams("a"), streams("b"));
        feed(&mut c, 10, &a, "A", owned(1, &[1])).unwrap();
        feed(&mut c, 15, &a, "A", owned(1, &[])).unwrap();
        feed(&mut c, 20, &b, "B", owned(2, &[1])).unwrap();
        feed(&mut c, 40, &a, "A", sent(2, Api::StreamsGroupHeartbeat)).unwrap();
        feed(&mut c, 45, &a, "A", heartbeat(2, None)).unwrap();
    }

    #[test]
    fn a_classic_partition_taken_in_a_newer_generation_needs_no_wait() {
        let mut c = checker();
        let (a, b) = (
            client(ClientKind::Consumer, "a"),
            client(ClientKind::Consumer, "b"),
        );
        let parts = |generation: i32, p: &[i32]| EventKind::OwnedPartitions {
            generation,
            partitions: p.iter().map(|p| TopicPartition::new("t", *p)).collect(),
        };
        let classic_heartbeat = |corr: i32| EventKind::ResponseReceived {
            broker: "b".into(),
            api: Api::Heartbeat,
            correlation_id: corr,
            error: None,
        };
        feed(&mut c, 10, &a, "A", parts(1, &[0])).unwrap();
        feed(&mut c, 20, &b, "B", parts(2, &[0])).unwrap();
        feed(&mut c, 25, &a, "A", sent(1, Api::Heartbeat)).unwrap();
        feed(&mut c, 26, &a, "A", classic_heartbeat(1)).unwrap();
        feed(&mut c, 30, &a, "A", parts(1, &[])).unwrap();
        // In the same generation, it is an overlap, which A's next heartbeat judges.
        feed(&mut c, 40, &a, "A", parts(2, &[1])).unwrap();
        feed(&mut c, 50, &b, "B", parts(2, &[0, 1])).unwrap();
        feed(&mut c, 55, &a, "A", sent(2, Api::Heartbeat)).unwrap();
        assert_eq!(
            feed(&mut c, 60, &a, "A", classic_heartbeat(2))
                .unwrap_err()
                .invariant,
            Invariant::ExclusiveActiveOwnership
        );
    }

    fn sent(corr: i32, api: Api) -> EventKind {
        EventKind::RequestSent {
            broker: "b".into(),
            api,
            version: 9,
            correlation_id: corr,
        }
    }

    fn answered(corr: i32) -> EventKind {
        EventKind::ResponseReceived {
            broker: "b".into(),
            api: Api::OffsetCommit,
            correlation_id: corr,
            error: None,
        }
    }

    fn accepted(epoch: i32, offset: i64) -> EventKind {
        EventKind::CommitAccepted {
            epoch,
            offsets: vec![(TopicPartition::new("t", 0), offset)],
        }
    }

    #[test]
    fn a_commit_sent_after_the_member_was_removed_is_never_accepted() {
        let a = streams("a");
        let fenced = |error| EventKind::Fenced { error, epoch: 3 };
        // Sent after UNKNOWN_MEMBER_ID, with the epoch it was removed at: a violation.
        let mut c = checker();
        feed(&mut c, 100, &a, "A", fenced(ErrorCode::UnknownMemberId)).unwrap();
        feed(&mut c, 150, &a, "A", sent(7, Api::OffsetCommit)).unwrap();
        feed(&mut c, 160, &a, "A", answered(7)).unwrap();
        let v = feed(&mut c, 160, &a, "A", accepted(3, 5)).unwrap_err();
        assert_eq!(v.invariant, Invariant::FencedCommitRejected);
        assert!(v.detail.contains("sent at 150 ms"), "{}", v.detail);
        // Sent before it heard of the removal: the coordinator may have taken it first.
        let mut c = checker();
        feed(&mut c, 50, &a, "A", sent(7, Api::OffsetCommit)).unwrap();
        feed(&mut c, 100, &a, "A", fenced(ErrorCode::UnknownMemberId)).unwrap();
        feed(&mut c, 160, &a, "A", answered(7)).unwrap();
        feed(&mut c, 160, &a, "A", accepted(3, 5)).unwrap();
        // FENCED_MEMBER_EPOCH keeps the member: its older-epoch commits may be accepted.
        let mut c = checker();
        feed(&mut c, 100, &a, "A", fenced(ErrorCode::FencedMemberEpoch)).unwrap();
        feed(&mut c, 150, &a, "A", sent(7, Api::OffsetCommit)).unwrap();
        feed(&mut c, 160, &a, "A", answered(7)).unwrap();
        feed(&mut c, 160, &a, "A", accepted(3, 5)).unwrap();
        // A failed request leaves nothing behind.
        feed(&mut c, 170, &a, "A", sent(8, Api::OffsetCommit)).unwrap();
        feed(
            &mut c,
            180,
            &a,
            "A",
            EventKind::RequestFailed {
                broker: "b".into(),
                api: Api::OffsetCommit,
                correlation_id: 8,
                failure: RequestFailure::TimedOut,
            },
        )
        .unwrap();
    }

    #[test]
    fn a_fetch_never_returns_less_than_an_acknowledged_commit() {
        let (a, b) = (streams("a"), streams("b"));
        let fetched = |offset: i64| EventKind::OffsetsFetched {
            offsets: vec![(TopicPartition::new("t", 0), offset)],
        };
        let mut c = checker();
        feed(&mut c, 100, &a, "A", accepted(1, 10)).unwrap();
        // A fetch sent before the acknowledgement may see the older offset.
        feed(&mut c, 90, &b, "B", sent(1, Api::OffsetFetch)).unwrap();
        feed(&mut c, 110, &b, "B", fetched(4)).unwrap();
        // One sent after it must see it, or a later one.
        feed(&mut c, 200, &b, "B", sent(2, Api::OffsetFetch)).unwrap();
        feed(&mut c, 210, &b, "B", fetched(12)).unwrap();
        feed(&mut c, 220, &b, "B", sent(3, Api::OffsetFetch)).unwrap();
        let v = feed(&mut c, 230, &b, "B", fetched(4)).unwrap_err();
        assert_eq!(v.invariant, Invariant::OffsetsDurable);
        assert!(
            v.detail
                .contains("but offset 10 had been acknowledged at 100 ms"),
            "{}",
            v.detail
        );
        // Once an admin client commits offsets, the check stands down.
        let mut c = checker();
        feed(&mut c, 100, &a, "A", accepted(1, 10)).unwrap();
        let admin = client(ClientKind::Admin, "admin");
        feed(&mut c, 150, &admin, "", sent(9, Api::OffsetCommit)).unwrap();
        feed(&mut c, 200, &b, "B", sent(2, Api::OffsetFetch)).unwrap();
        feed(&mut c, 230, &b, "B", fetched(0)).unwrap();
    }
}

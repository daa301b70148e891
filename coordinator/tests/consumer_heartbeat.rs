//! ConsumerGroupHeartbeat and ConsumerGroupDescribe on one shard, with the values of Kafka 4.4.0's
//! `GroupMetadataManagerTest` (the corpus `conformance/corpus/cg9-*` compares the same flows with
//! Kafka's own coordinator line by line). Every test also checks that a shard rebuilt from the records
//! has the same persistent consumer-group state.

use coordinator::consumer::member::MemberState;
use coordinator::records::Record;
use coordinator::topics::{TopicMetadata, TopicsImage};
use coordinator::{RequestContext, RequestToken, Shard};
use protocol::messages::consumer_group_heartbeat_request::TopicPartitions as Owned;
use protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse,
    GroupId, StrBytes, TopicName,
};
use protocol::{ErrorCode, Request, Response};
use uuid::Uuid;

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

fn foo() -> Uuid {
    coordinator::topics::derived_topic_id("foo")
}

fn bar() -> Uuid {
    coordinator::topics::derived_topic_id("bar")
}

struct Ctx {
    shard: Shard,
    records: Vec<Record>,
    line: u64,
}

impl Ctx {
    fn new(configs: &[(&str, &str)]) -> Self {
        let mut shard = Shard::default();
        for (k, v) in configs {
            shard.config.set(k, v).unwrap();
        }
        let _ = shard.set_topics(TopicsImage::from_topics([
            TopicMetadata::new("foo", 6),
            TopicMetadata::new("bar", 3),
        ]));
        Self {
            shard,
            records: Vec::new(),
            line: 0,
        }
    }

    fn send(&mut self, request: Request, version: i16, now: i64) -> (Response, Vec<Record>) {
        self.line += 1;
        let ctx = RequestContext::new("client", "/127.0.0.1", version);
        let out = self
            .shard
            .handle(RequestToken(self.line), &ctx, &request, now)
            .unwrap();
        self.records.extend(out.records.iter().cloned());
        (out.replies[0].response.clone(), out.records)
    }

    fn hb(
        &mut self,
        r: ConsumerGroupHeartbeatRequest,
        now: i64,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<Record>) {
        match self.send(Request::ConsumerGroupHeartbeat(r), 1, now) {
            (Response::ConsumerGroupHeartbeat(resp), records) => (resp, records),
            other => panic!("unexpected {other:?}"),
        }
    }

    fn expire(&mut self, now: i64) -> Vec<(String, Vec<Record>)> {
        let fired = self.shard.expire(now);
        fired
            .into_iter()
            .map(|f| {
                self.records.extend(f.outcome.records.iter().cloned());
                (f.key, f.outcome.records)
            })
            .collect()
    }

    /// A shard rebuilt from every record written has the same consumer groups.
    fn check_replay(&self) {
        let mut rebuilt = Shard::default();
        rebuilt.replay_all(&self.records);
        assert_eq!(
            rebuilt.consumer.persistent_state(),
            self.shard.consumer.persistent_state()
        );
    }
}

fn join(member: &str, topics: &[&str]) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s(member))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(5000)
        .with_subscribed_topic_names(Some(topics.iter().map(|t| TopicName(s(t))).collect()))
        .with_topic_partitions(Some(Vec::new()))
}

fn hb(member: &str, epoch: i32, owned: Option<&[(Uuid, &[i32])]>) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s(member))
        .with_member_epoch(epoch)
        .with_topic_partitions(owned.map(|o| {
            o.iter()
                .map(|(t, p)| {
                    Owned::default()
                        .with_topic_id(*t)
                        .with_partitions(p.to_vec())
                })
                .collect()
        }))
}

fn assignment(r: &ConsumerGroupHeartbeatResponse) -> Option<Vec<(Uuid, Vec<i32>)>> {
    r.assignment.as_ref().map(|a| {
        let mut v: Vec<(Uuid, Vec<i32>)> = a
            .topic_partitions
            .iter()
            .map(|t| (t.topic_id, t.partitions.clone()))
            .collect();
        v.sort();
        v
    })
}

fn sorted(mut v: Vec<(Uuid, Vec<i32>)>) -> Vec<(Uuid, Vec<i32>)> {
    v.sort();
    v
}

fn types(records: &[Record]) -> Vec<(&'static str, bool)> {
    records
        .iter()
        .map(|r| (r.type_name(), r.is_tombstone()))
        .collect()
}

/// `testMemberJoinsEmptyConsumerGroup`: a join creates the group at epoch 2 and gets every partition;
/// the records are the member, the epoch with the hash, the target, its metadata and the current
/// assignment, each partition at assignment epoch 2.
#[test]
fn a_join_creates_the_group_and_gets_everything() {
    let mut c = Ctx::new(&[]);
    let (r, records) = c.hb(
        join("m", &["foo", "bar"]).with_server_assignor(Some(s("range"))),
        1000,
    );
    assert_eq!(r.error_code, 0);
    assert_eq!(r.member_epoch, 2);
    assert_eq!(r.heartbeat_interval_ms, 5000);
    assert_eq!(
        assignment(&r),
        Some(sorted(vec![
            (foo(), vec![0, 1, 2, 3, 4, 5]),
            (bar(), vec![0, 1, 2])
        ]))
    );
    assert_eq!(
        types(&records),
        vec![
            ("ConsumerGroupMemberMetadata", false),
            ("ConsumerGroupMetadata", false),
            ("ConsumerGroupTargetAssignmentMember", false),
            ("ConsumerGroupTargetAssignmentMetadata", false),
            ("ConsumerGroupCurrentMemberAssignment", false),
        ]
    );
    let Record::ConsumerGroupTargetAssignmentMetadata { value: Some(v), .. } = &records[3] else {
        panic!("{:?}", records[3]);
    };
    assert_eq!((v.assignment_epoch, v.assignment_timestamp), (2, 1000));
    let m = c.shard.consumer.group("g").unwrap().member("m").unwrap();
    assert_eq!(
        (m.member_epoch, m.previous_member_epoch, m.state),
        (2, 0, MemberState::Stable)
    );
    assert_eq!(m.assignment_epoch(&foo(), 5), Some(2));
    c.check_replay();
}

/// `testReconciliationProcess`, in short: a second member makes the first revoke before anything is
/// assigned to the newcomer, which waits on the unreleased partitions; partitions keep the epoch they
/// were assigned at.
#[test]
fn revocation_comes_before_assignment() {
    let mut c = Ctx::new(&[("group.consumer.assignment.interval.ms", "0")]);
    c.hb(join("m1", &["foo"]), 1000);
    c.hb(hb("m1", 2, Some(&[(foo(), &[0, 1, 2, 3, 4, 5])])), 1100);
    let (r, _) = c.hb(join("m2", &["foo"]), 1200);
    assert_eq!((r.member_epoch, assignment(&r)), (3, Some(vec![])));
    assert_eq!(
        c.shard
            .consumer
            .group("g")
            .unwrap()
            .member("m2")
            .unwrap()
            .state,
        MemberState::UnreleasedPartitions
    );
    // m1 still owns everything: it stays at epoch 2 with half of it, the rest pending revocation.
    let (r, _) = c.hb(hb("m1", 2, Some(&[(foo(), &[0, 1, 2, 3, 4, 5])])), 1300);
    assert_eq!(r.member_epoch, 2);
    let m1 = c
        .shard
        .consumer
        .group("g")
        .unwrap()
        .member("m1")
        .unwrap()
        .clone();
    assert_eq!(m1.state, MemberState::UnrevokedPartitions);
    assert_eq!(
        m1.assigned[&foo()].len() + m1.pending_revocation[&foo()].len(),
        6
    );
    // Nothing for m2 while m1 holds its partitions.
    let (r, records) = c.hb(hb("m2", 3, Some(&[])), 1400);
    assert_eq!((r.member_epoch, r.assignment.is_none()), (3, true));
    assert!(
        records.is_empty()
            || types(&records) == vec![("ConsumerGroupCurrentMemberAssignment", false)]
    );
    // m1 revokes: epoch 3, its kept partitions still at epoch 2.
    let kept: Vec<i32> = m1.assigned[&foo()].keys().copied().collect();
    let (r, _) = c.hb(hb("m1", 2, Some(&[(foo(), &kept)])), 1500);
    assert_eq!(r.member_epoch, 3);
    let m1 = c
        .shard
        .consumer
        .group("g")
        .unwrap()
        .member("m1")
        .unwrap()
        .clone();
    assert_eq!(m1.state, MemberState::Stable);
    assert!(m1.assigned[&foo()].values().all(|e| *e == 2));
    // m2 now gets the released partitions at epoch 3.
    let (r, _) = c.hb(hb("m2", 3, Some(&[])), 1600);
    let got = assignment(&r).unwrap();
    assert_eq!(got.len(), 1);
    assert_eq!(got[0].1.len(), 3);
    let m2 = c
        .shard
        .consumer
        .group("g")
        .unwrap()
        .member("m2")
        .unwrap()
        .clone();
    assert!(m2.assigned[&foo()].values().all(|e| *e == 3));
    assert_eq!(
        c.shard.consumer.group("g").unwrap().state().name(),
        "Stable"
    );
    c.check_replay();
}

/// `testConsumerGroupMemberEpochValidation`: a greater or smaller epoch is fenced, with Kafka's words;
/// the previous epoch with owned partitions it still holds is answered with the current epoch.
#[test]
fn epochs_are_validated_as_kafka_does() {
    let mut c = Ctx::new(&[("group.consumer.assignment.interval.ms", "0")]);
    c.hb(join("m", &["foo"]), 1000);
    let err = |c: &mut Ctx, r: ConsumerGroupHeartbeatRequest| {
        let (resp, records) = c.hb(r, 2000);
        assert!(records.is_empty());
        (resp.error_code, resp.error_message.map(|m| m.to_string()))
    };
    assert_eq!(
        err(&mut c, hb("m", 200, None)),
        (
            ErrorCode::FencedMemberEpoch.code(),
            Some("The consumer group member has a greater member epoch (200) than the one known by the group coordinator (2). The member must abandon all its partitions and rejoin.".to_string())
        )
    );
    assert_eq!(
        err(&mut c, hb("m", 1, None)).0,
        ErrorCode::FencedMemberEpoch.code()
    );
    assert_eq!(
        err(&mut c, hb("nobody", 1, None)),
        (
            ErrorCode::UnknownMemberId.code(),
            Some("Member nobody is not a member of group g.".to_string())
        )
    );
    // The service's own checks.
    assert_eq!(
        err(
            &mut c,
            hb("m", 2, None).with_server_assignor(Some(s("bar")))
        ),
        (
            ErrorCode::UnsupportedAssignor.code(),
            Some(
                "ServerAssignor bar is not supported. Supported assignors: uniform, range."
                    .to_string()
            )
        )
    );
    assert_eq!(
        err(&mut c, join("m", &["foo"]).with_topic_partitions(None)),
        (
            ErrorCode::InvalidRequest.code(),
            Some("TopicPartitions must be empty when (re-)joining.".to_string())
        )
    );
    c.check_replay();
}

/// `testStaticMemberGetsBackAssignmentUponRejoin` and `testSessionTimeoutExpirationStaticMember`: a
/// static member leaving with -2 writes one record; its replacement takes its partitions without an
/// epoch bump; a session timeout fences it with the last member's records.
#[test]
fn a_static_member_comes_back_then_times_out() {
    let mut c = Ctx::new(&[]);
    c.hb(join("a", &["foo"]).with_instance_id(Some(s("i"))), 1000);
    let (r, records) = c.hb(hb("a", -2, None).with_instance_id(Some(s("i"))), 2000);
    assert_eq!((r.member_epoch, r.heartbeat_interval_ms), (-2, 0));
    assert_eq!(
        types(&records),
        vec![("ConsumerGroupCurrentMemberAssignment", false)]
    );
    let (r, records) = c.hb(join("b", &["foo"]).with_instance_id(Some(s("i"))), 3000);
    assert_eq!(r.member_epoch, 2);
    assert_eq!(assignment(&r), Some(vec![(foo(), vec![0, 1, 2, 3, 4, 5])]));
    assert!(!types(&records).contains(&("ConsumerGroupMetadata", false)));
    // a's timer was left running by the replacement (Kafka does not cancel it): it finds no member.
    // b's session ends 45 s after its last heartbeat.
    let fired = c.expire(48_000);
    assert_eq!(fired.len(), 2);
    assert_eq!(
        (fired[0].0.as_str(), fired[0].1.len()),
        ("session-timeout-g-a", 0)
    );
    assert_eq!(fired[1].0, "session-timeout-g-b");
    assert_eq!(
        types(&fired[1].1),
        vec![
            ("ConsumerGroupCurrentMemberAssignment", true),
            ("ConsumerGroupTargetAssignmentMember", true),
            ("ConsumerGroupMemberMetadata", true),
            ("ConsumerGroupMetadata", false),
            ("ConsumerGroupTargetAssignmentMetadata", false),
        ]
    );
    assert!(c.shard.consumer.group("g").unwrap().is_empty());
    c.check_replay();
}

/// `testConsumerGroupDescribeNoErrors` / `...WithErrors`: members, epochs, the assignor, and
/// GROUP_ID_NOT_FOUND for a missing group.
#[test]
fn describe_reports_the_group() {
    let mut c = Ctx::new(&[]);
    c.hb(join("m", &["foo"]), 1000);
    let (r, _) = c.send(
        Request::ConsumerGroupDescribe(
            ConsumerGroupDescribeRequest::default()
                .with_group_ids(vec![GroupId(s("g")), GroupId(s("missing"))]),
        ),
        1,
        2000,
    );
    let Response::ConsumerGroupDescribe(d) = r else {
        panic!("{r:?}");
    };
    let g = &d.groups[0];
    assert_eq!(
        (
            g.group_state.as_str(),
            g.group_epoch,
            g.assignment_epoch,
            g.assignor_name.as_str()
        ),
        ("Stable", 2, 2, "uniform")
    );
    assert_eq!(g.members[0].member_type, 1);
    assert_eq!(
        g.members[0].target_assignment.topic_partitions[0]
            .partitions
            .len(),
        6
    );
    assert_eq!(d.groups[1].error_code, ErrorCode::GroupIdNotFound.code());
    assert_eq!(
        d.groups[1].error_message.as_deref(),
        Some("Group missing not found.")
    );
}

//! Regular-expression subscriptions of consumer groups (`SubscribedTopicRegex`), with the values of
//! Kafka 4.4.0's `GroupMetadataManagerTest` (the corpus `conformance/corpus/cg3-*` compares the same
//! flows with Kafka's own coordinator line by line). The resolution Kafka runs on its executor runs
//! right after the heartbeat that scheduled it, its records following the heartbeat's. Every test
//! checks that a shard rebuilt from the records has the same persistent consumer-group state.

use coordinator::records::Record;
use coordinator::topics::{TopicMetadata, TopicsImage};
use coordinator::{RequestContext, RequestToken, Shard};
use protocol::messages::{
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, GroupId, StrBytes,
};
use protocol::{ErrorCode, Request, Response};

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

struct Ctx {
    shard: Shard,
    records: Vec<Record>,
    line: u64,
}

impl Ctx {
    fn new(topics: &[(&str, i32)]) -> Self {
        let mut shard = Shard::default();
        shard
            .config
            .set("group.consumer.assignment.interval.ms", "0")
            .unwrap();
        let _ = shard.set_topics(TopicsImage::from_topics(
            topics.iter().map(|(n, p)| TopicMetadata::new(*n, *p)),
        ));
        Self {
            shard,
            records: Vec::new(),
            line: 0,
        }
    }

    fn hb(
        &mut self,
        r: ConsumerGroupHeartbeatRequest,
        now: i64,
    ) -> (ConsumerGroupHeartbeatResponse, Vec<Record>) {
        self.line += 1;
        let ctx = RequestContext::new("client", "/127.0.0.1", 1);
        let out = self
            .shard
            .handle(
                RequestToken(self.line),
                &ctx,
                &Request::ConsumerGroupHeartbeat(r),
                now,
            )
            .unwrap();
        self.records.extend(out.records.iter().cloned());
        match &out.replies[0].response {
            Response::ConsumerGroupHeartbeat(resp) => (resp.clone(), out.records),
            other => panic!("unexpected {other:?}"),
        }
    }

    fn check_replay(&self) {
        let mut rebuilt = Shard::default();
        rebuilt.replay_all(&self.records);
        assert_eq!(
            rebuilt.consumer.persistent_state(),
            self.shard.consumer.persistent_state()
        );
    }
}

fn join_regex(member: &str, regex: &str) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s(member))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(60000)
        .with_subscribed_topic_regex(Some(s(regex)))
        .with_topic_partitions(Some(Vec::new()))
}

fn hb(member: &str, epoch: i32) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s(member))
        .with_member_epoch(epoch)
}

/// (type, tombstone, group epoch of a ConsumerGroupMetadata record).
fn kinds(records: &[Record]) -> Vec<(&'static str, bool, Option<i32>)> {
    records
        .iter()
        .map(|r| {
            let epoch = match r {
                Record::ConsumerGroupMetadata { value: Some(v), .. } => Some(v.epoch),
                _ => None,
            };
            (r.type_name(), r.is_tombstone(), epoch)
        })
        .collect()
}

fn regex_value(records: &[Record], regex: &str) -> Option<(Vec<String>, i64, i64)> {
    records.iter().find_map(|r| match r {
        Record::ConsumerGroupRegularExpression {
            key,
            value: Some(v),
        } if key.regular_expression == regex => Some((v.topics.clone(), v.version, v.timestamp)),
        _ => None,
    })
}

/// `testConsumerHeartbeatRegexValidation`: an invalid regex is refused with Kafka's message, on a
/// join and on a change; nothing is written.
#[test]
fn an_invalid_regex_is_refused_with_kafkas_message() {
    let mut c = Ctx::new(&[("foo", 3)]);
    let (r, records) = c.hb(join_regex("m", "["), 1000);
    assert_eq!(r.error_code, ErrorCode::InvalidRegularExpression.code());
    assert_eq!(
        r.error_message.as_deref(),
        Some("SubscribedTopicRegex `[` is not a valid regular expression: missing closing ].")
    );
    assert!(records.is_empty());
    let (r, _) = c.hb(join_regex("m", ".*"), 1000);
    assert_eq!((r.error_code, r.member_epoch), (0, 1));
    let (r, records) = c.hb(hb("m", 1).with_subscribed_topic_regex(Some(s("a**"))), 1000);
    assert_eq!(
        r.error_message.as_deref(),
        Some(
            "SubscribedTopicRegex `a**` is not a valid regular expression: invalid nested repetition operator."
        )
    );
    assert!(records.is_empty());
    c.check_replay();
}

/// `testConsumerGroupMemberJoinsWithNewRegex` and
/// `testConsumerGroupMemberPicksUpExistingResolvedRegularExpression`: a new regex does not bump the
/// epoch at the join; its resolution (image version 2: the shard's second image) writes the record
/// and bumps; a second member with the same regex bumps at once; the group is homogeneous.
#[test]
fn a_new_regex_is_resolved_after_the_join_and_bumps_the_epoch() {
    let mut c = Ctx::new(&[("foo", 4), ("food", 2), ("bar", 3)]);
    let (r, records) = c.hb(join_regex("m1", "foo.*"), 1000);
    assert_eq!((r.member_epoch, r.error_code), (1, 0));
    assert_eq!(
        kinds(&records),
        vec![
            ("ConsumerGroupMemberMetadata", false, None),
            ("ConsumerGroupCurrentMemberAssignment", false, None),
            ("ConsumerGroupRegularExpression", false, None),
            ("ConsumerGroupMetadata", false, Some(2)),
        ]
    );
    assert_eq!(
        regex_value(&records, "foo.*"),
        Some((vec!["foo".to_string(), "food".to_string()], 2, 1000))
    );
    let (r, _) = c.hb(hb("m1", 1), 1100);
    assert_eq!(r.member_epoch, 2);
    let total: usize = r
        .assignment
        .unwrap()
        .topic_partitions
        .iter()
        .map(|t| t.partitions.len())
        .sum();
    assert_eq!(total, 6);
    // Same regex: resolved already, so the join bumps the epoch itself and nothing is resolved.
    let (r, records) = c.hb(join_regex("m2", "foo.*"), 1200);
    assert_eq!(r.member_epoch, 3);
    assert!(regex_value(&records, "foo.*").is_none());
    assert_eq!(
        kinds(&records)[1],
        ("ConsumerGroupMetadata", false, Some(3))
    );
    let g = c.shard.consumer.group("g").unwrap();
    assert_eq!(
        g.persistent.subscription_type,
        coordinator::consumer::assignor::SubscriptionType::Homogeneous
    );
    c.check_replay();
}

/// `testConsumerGroupMemberJoinsWithUpdatedRegex` and the batch interval: a changed regex bumps nothing
/// itself and is resolved by a later heartbeat (at once here: with the old regex tombstoned, no
/// refresh time is left); a created topic is picked up by the first heartbeat more than 10 s after the
/// last refresh;
/// the last member leaving a regex writes its tombstone, and its topics leave the metadata hash.
#[test]
fn refreshes_wait_ten_seconds_and_tombstones_follow_the_last_member() {
    let mut c = Ctx::new(&[("foo", 4), ("bar", 3)]);
    c.hb(join_regex("m1", "f.*"), 1000);
    c.hb(hb("m1", 1), 1000);
    let (r, records) = c.hb(
        hb("m1", 2).with_subscribed_topic_regex(Some(s("b.*"))),
        5000,
    );
    assert_eq!(r.member_epoch, 2);
    assert_eq!(
        kinds(&records),
        vec![
            ("ConsumerGroupMemberMetadata", false, None),
            ("ConsumerGroupRegularExpression", true, None),
            ("ConsumerGroupCurrentMemberAssignment", false, None),
        ],
        "the old regex's tombstone; no bump for a regex not resolved yet (REGEX_UPDATED); the member, \
         whose subscription changed, revokes foo; no refresh within 10 s of the last one"
    );
    // The group has no resolved regex left (`f.*` was tombstoned), so the last refresh counts as
    // `Long.MIN_VALUE`: the next heartbeat resolves `b.*` at once, and the epoch moves.
    let (r, records) = c.hb(hb("m1", 2), 5001);
    assert_eq!(
        regex_value(&records, "b.*"),
        Some((vec!["bar".to_string()], 2, 5001))
    );
    assert_eq!(
        kinds(&records).last(),
        Some(&("ConsumerGroupMetadata", false, Some(3)))
    );
    // It acknowledges the revocation of foo (owning nothing), then gets bar at epoch 3.
    let (r, _) = c.hb(
        hb("m1", r.member_epoch).with_topic_partitions(Some(Vec::new())),
        5002,
    );
    assert_eq!(r.member_epoch, 3);
    // A created topic (image version 3): no refresh within 10 s of the last one, then one.
    let _ = c.shard.set_topics(TopicsImage::from_topics([
        TopicMetadata::new("foo", 4),
        TopicMetadata::new("bar", 3),
        TopicMetadata::new("baz", 1),
    ]));
    let (_, records) = c.hb(hb("m1", 3), 15001);
    assert!(regex_value(&records, "b.*").is_none());
    let (_, records) = c.hb(hb("m1", 3), 15002);
    assert_eq!(
        regex_value(&records, "b.*"),
        Some((vec!["bar".to_string(), "baz".to_string()], 3, 15002))
    );
    assert_eq!(
        kinds(&records).last(),
        Some(&("ConsumerGroupMetadata", false, Some(4)))
    );
    // The last member leaves: the regex goes with it.
    let (_, records) = c.hb(hb("m1", -1), 15003);
    assert_eq!(
        kinds(&records),
        vec![
            ("ConsumerGroupCurrentMemberAssignment", true, None),
            ("ConsumerGroupTargetAssignmentMember", true, None),
            ("ConsumerGroupMemberMetadata", true, None),
            ("ConsumerGroupRegularExpression", true, None),
            ("ConsumerGroupMetadata", false, Some(5)),
            ("ConsumerGroupTargetAssignmentMetadata", false, None),
        ]
    );
    assert!(
        c.shard
            .consumer
            .group("g")
            .unwrap()
            .persistent
            .resolved_regexes
            .is_empty()
    );
    c.check_replay();
}

/// Kafka recomputes the subscription type on member changes only: when the last member of a regex
/// leaves, the member's removal (still counting the regex's topics) makes the group heterogeneous and
/// the regex's tombstone, replayed after it, does not change that (corpus
/// `cg3-05-regex-stale-subscription-type`).
#[test]
fn the_subscription_type_is_not_recomputed_when_a_regex_goes() {
    use coordinator::consumer::assignor::SubscriptionType;
    let mut c = Ctx::new(&[("bar", 5), ("foo", 3)]);
    let names = ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("g")))
        .with_member_id(s("c1"))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(60000)
        .with_subscribed_topic_names(Some(vec![protocol::messages::TopicName(s("bar"))]))
        .with_topic_partitions(Some(Vec::new()));
    c.hb(names, 1000);
    c.hb(join_regex("c2", ".*"), 1100);
    let (_, records) = c.hb(hb("c2", -1), 1200);
    assert_eq!(
        kinds(&records)[3],
        ("ConsumerGroupRegularExpression", true, None)
    );
    let g = c.shard.consumer.group("g").unwrap();
    assert_eq!(g.persistent.members.len(), 1);
    assert_eq!(
        g.persistent.subscription_type,
        SubscriptionType::Heterogeneous,
        "one member subscribed by name would be homogeneous if recomputed"
    );
    c.check_replay();
}

//! Property tests of the consumer-group assignors (`uniform`, `range`) on random groups: on clean inputs
//! (every subscribed topic exists, previous assignments disjoint and inside their topics) every partition
//! of a subscribed topic goes to exactly one subscriber and to nobody else; the uniform assignor balances a
//! homogeneous group and a homogeneous result is a fixed point (re-running on it changes nothing, Kafka's
//! `CommonAssignorTests.testReassignmentStickiness` for any group); range cuts each topic into contiguous
//! ranges whose sizes differ by at most one. On any input at all (partitions past a topic's end or
//! negative, held twice, unknown topics, negative partition counts) the assignors return a value or an
//! error, never panic. Exactness against Kafka itself is the oracle's job (docs/consumer.md).

use std::collections::{BTreeMap, BTreeSet};

use coordinator::consumer::assignor::{
    ConsumerGroupPartitionAssignor, GroupAssignment, GroupSpec, MemberSubscriptionSpec,
    RangeAssignor, SubscribedTopicDescriber, SubscriptionType, TopicId, TopicMetadata,
    UniformAssignor,
};
use proptest::prelude::*;

fn topic(i: usize) -> TopicId {
    uuid::Uuid::from_u64_pair(
        (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15),
        (i as u64 + 7).wrapping_mul(0xc2b2_ae3d_27d4_eb4f),
    )
}

/// A clean random group: partition counts, per member a subscription bit mask and maybe an instance id,
/// per partition maybe a previous owner.
#[derive(Debug, Clone)]
struct Case {
    partitions: Vec<u8>,
    members: Vec<(u8, Option<u8>)>,
    owners: Vec<Vec<Option<u8>>>,
    homogeneous: bool,
}

fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(0u8..24, 1..6),
        prop::collection::vec((any::<u8>(), prop::option::of(0u8..6)), 0..14),
        any::<bool>(),
    )
        .prop_flat_map(|(partitions, members, homogeneous)| {
            let n = members.len();
            let owners = partitions
                .iter()
                .map(|&p| {
                    prop::collection::vec(
                        prop::option::of(0..(n.max(1) as u8))
                            .prop_map(move |o| o.filter(|_| n > 0)),
                        p as usize,
                    )
                })
                .collect::<Vec<_>>();
            (Just(partitions), Just(members), owners, Just(homogeneous))
        })
        .prop_map(|(partitions, members, owners, homogeneous)| Case {
            partitions,
            members,
            owners,
            homogeneous,
        })
}

impl Case {
    fn subscribed(&self, member: usize) -> Vec<TopicId> {
        let mask = if self.homogeneous {
            self.members.first().map_or(0, |m| m.0)
        } else {
            self.members[member].0
        };
        (0..self.partitions.len())
            .filter(|t| mask & (1 << t) != 0)
            .map(topic)
            .collect()
    }

    fn topics(&self) -> SubscribedTopicDescriber {
        SubscribedTopicDescriber::new(
            self.partitions
                .iter()
                .enumerate()
                .map(|(i, &n)| (topic(i), i32::from(n))),
        )
    }

    /// Previous owners that subscribe to the partition's topic keep it in their previous assignment;
    /// the others hold it too (as a stale target of an unsubscribed topic).
    fn group(&self) -> GroupSpec {
        let members: Vec<MemberSubscriptionSpec> = self
            .members
            .iter()
            .enumerate()
            .map(|(m, (_, instance))| {
                let mut assignment: Vec<(TopicId, Vec<i32>)> = Vec::new();
                for (t, owners) in self.owners.iter().enumerate() {
                    let ps: Vec<i32> = owners
                        .iter()
                        .enumerate()
                        .filter(|(_, o)| **o == Some(m as u8))
                        .map(|(p, _)| p as i32)
                        .collect();
                    if !ps.is_empty() {
                        assignment.push((topic(t), ps));
                    }
                }
                MemberSubscriptionSpec {
                    member_id: format!("member-{m}"),
                    instance_id: instance.map(|i| format!("instance-{i}")),
                    subscribed_topic_ids: self.subscribed(m),
                    assignment,
                    ..MemberSubscriptionSpec::default()
                }
            })
            .collect();
        let ty = GroupSpec::subscription_type_of(&members);
        GroupSpec::from_member_map_insertion_order(members, ty)
    }
}

/// Every partition of a subscribed topic exactly once, only to its subscribers; nothing else assigned.
fn check_valid(group: &GroupSpec, topics: &SubscribedTopicDescriber, out: &GroupAssignment) {
    let mut owner: BTreeMap<(TopicId, i32), &str> = BTreeMap::new();
    for (m, a) in &out.members {
        let spec = group
            .members
            .iter()
            .find(|x| &x.member_id == m)
            .expect("a member");
        for (t, ps) in &a.partitions {
            assert!(
                spec.subscribes_to(t),
                "{m} got a topic it does not subscribe to"
            );
            for p in ps {
                assert!(
                    owner.insert((*t, *p), m).is_none(),
                    "{t} {p} assigned twice"
                );
            }
        }
    }
    let subscribed: BTreeSet<TopicId> = group
        .members
        .iter()
        .flat_map(|m| m.subscribed_topic_ids.iter().copied())
        .collect();
    let expected: BTreeSet<(TopicId, i32)> = subscribed
        .iter()
        .flat_map(|t| (0..topics.num_partitions(t)).map(move |p| (*t, p)))
        .collect();
    assert_eq!(owner.keys().copied().collect::<BTreeSet<_>>(), expected);
}

fn sizes(out: &GroupAssignment) -> Vec<usize> {
    out.members.values().map(|a| a.len()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn uniform_is_valid_balanced_when_homogeneous_and_sticky(c in case()) {
        let (group, topics) = (c.group(), c.topics());
        let out = UniformAssignor.assign(&group, &topics).expect("clean input");
        let anybody_subscribes = group.members.iter().any(|m| !m.subscribed_topic_ids.is_empty());
        if anybody_subscribes {
            prop_assert_eq!(out.members.len(), group.members.len());
        } else {
            prop_assert!(out.members.is_empty());
        }
        check_valid(&group, &topics, &out);
        if group.subscription_type == SubscriptionType::Homogeneous && anybody_subscribes {
            let s = sizes(&out);
            prop_assert!(s.iter().max().unwrap() - s.iter().min().unwrap() <= 1, "{:?}", s);
            // Re-running on its own result changes nothing.
            let again = GroupSpec {
                members: group
                    .members
                    .iter()
                    .map(|m| MemberSubscriptionSpec {
                        assignment: out.members[&m.member_id]
                            .partitions
                            .iter()
                            .map(|(t, ps)| (*t, ps.iter().copied().collect()))
                            .collect(),
                        ..m.clone()
                    })
                    .collect(),
                subscription_type: group.subscription_type,
            };
            prop_assert_eq!(UniformAssignor.assign(&again, &topics).expect("clean"), out);
        }
    }

    #[test]
    fn range_cuts_contiguous_balanced_ranges(c in case()) {
        let (group, topics) = (c.group(), c.topics());
        let out = RangeAssignor.assign(&group, &topics).expect("clean input");
        prop_assert_eq!(out.members.len(), group.members.len());
        check_valid(&group, &topics, &out);
        for t in (0..c.partitions.len()).map(topic) {
            let ranges: Vec<&BTreeSet<i32>> = group
                .members
                .iter()
                .filter(|m| m.subscribes_to(&t))
                .map(|m| out.members[&m.member_id].partitions.get(&t))
                .map(|p| p.unwrap_or(const { &BTreeSet::new() }))
                .collect();
            for r in &ranges {
                if let (Some(lo), Some(hi)) = (r.first(), r.last()) {
                    prop_assert_eq!((hi - lo + 1) as usize, r.len(), "a range has holes");
                }
            }
            if let (Some(max), Some(min)) = (ranges.iter().map(|r| r.len()).max(), ranges.iter().map(|r| r.len()).min()) {
                prop_assert!(max - min <= 1);
            }
        }
    }

    #[test]
    fn any_input_gives_a_value_or_an_error(
        counts in prop::collection::vec(-3i32..10, 0..5),
        members in prop::collection::vec(
            (
                prop::collection::vec(0usize..7, 0..5),
                prop::collection::vec((0usize..7, prop::collection::vec(-2i32..14, 0..6)), 0..4),
                prop::option::of(0u8..3),
            ),
            0..8,
        ),
        heterogeneous in any::<bool>(),
    ) {
        let topics = SubscribedTopicDescriber {
            topics: counts
                .iter()
                .enumerate()
                .map(|(i, &n)| (topic(i), TopicMetadata { num_partitions: n, ..TopicMetadata::default() }))
                .collect(),
        };
        let specs: Vec<MemberSubscriptionSpec> = members
            .iter()
            .enumerate()
            .map(|(m, (subs, assignment, instance))| {
                let mut seen = BTreeSet::new();
                MemberSubscriptionSpec {
                    member_id: format!("m{m}"),
                    instance_id: instance.map(|i| format!("i{i}")),
                    subscribed_topic_ids: subs.iter().filter(|t| seen.insert(**t)).map(|t| topic(*t)).collect(),
                    assignment: {
                        let mut seen = BTreeSet::new();
                        assignment
                            .iter()
                            .filter(|(t, _)| seen.insert(*t))
                            .map(|(t, ps)| {
                                let mut distinct = BTreeSet::new();
                                (topic(*t), ps.iter().copied().filter(|p| distinct.insert(*p)).collect())
                            })
                            .collect()
                    },
                    ..MemberSubscriptionSpec::default()
                }
            })
            .collect();
        let ty = if heterogeneous { SubscriptionType::Heterogeneous } else { SubscriptionType::Homogeneous };
        let group = GroupSpec::from_member_map_insertion_order(specs, ty);
        for assignor in coordinator::consumer::assignor::BUILTIN_ASSIGNORS {
            let _ = assignor.assign(&group, &topics);
        }
    }
}

//! Leader-side assignors of the classic consumer protocol: Kafka's `RangeAssignor` and
//! `RoundRobinAssignor` (without rack awareness).

use std::collections::{BTreeMap, BTreeSet};

use crate::observer::TopicPartition;

/// An assignor a consumer offers in JoinGroup.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Assignor {
    Range,
    RoundRobin,
}

impl Assignor {
    /// The protocol name in JoinGroup.
    pub fn name(self) -> &'static str {
        match self {
            Assignor::Range => "range",
            Assignor::RoundRobin => "roundrobin",
        }
    }

    pub fn from_name(name: &str) -> Option<Assignor> {
        match name {
            "range" => Some(Assignor::Range),
            "roundrobin" => Some(Assignor::RoundRobin),
            _ => None,
        }
    }

    /// Assigns the partitions of the topics in `partitions_per_topic` to `members`; topics without
    /// a partition count are skipped, as Kafka does. Every member gets an entry.
    pub fn assign(
        self,
        partitions_per_topic: &BTreeMap<String, i32>,
        members: &[MemberSubscription],
    ) -> BTreeMap<String, Vec<TopicPartition>> {
        match self {
            Assignor::Range => range(partitions_per_topic, members),
            Assignor::RoundRobin => round_robin(partitions_per_topic, members),
        }
    }
}

/// One member as the leader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberSubscription {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub topics: BTreeSet<String>,
}

/// Kafka's `MemberInfo` order: static members (by instance id) before dynamic ones (by member id).
fn member_order(a: &MemberSubscription, b: &MemberSubscription) -> std::cmp::Ordering {
    match (&a.instance_id, &b.instance_id) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => a.member_id.cmp(&b.member_id),
    }
}

fn empty_assignment(members: &[MemberSubscription]) -> BTreeMap<String, Vec<TopicPartition>> {
    members
        .iter()
        .map(|m| (m.member_id.clone(), Vec::new()))
        .collect()
}

fn range(
    partitions_per_topic: &BTreeMap<String, i32>,
    members: &[MemberSubscription],
) -> BTreeMap<String, Vec<TopicPartition>> {
    let mut assignment = empty_assignment(members);
    for (topic, &count) in partitions_per_topic {
        if count <= 0 {
            continue;
        }
        let mut consumers: Vec<&MemberSubscription> = members
            .iter()
            .filter(|m| m.topics.contains(topic))
            .collect();
        if consumers.is_empty() {
            continue;
        }
        consumers.sort_by(|a, b| member_order(a, b));
        let per = count as usize / consumers.len();
        let extra = count as usize % consumers.len();
        let mut next = 0i32;
        for (i, c) in consumers.iter().enumerate() {
            let n = per + usize::from(i < extra);
            let list = assignment
                .get_mut(&c.member_id)
                .expect("every member has an entry");
            for _ in 0..n {
                list.push(TopicPartition::new(topic.clone(), next));
                next += 1;
            }
        }
    }
    assignment
}

fn round_robin(
    partitions_per_topic: &BTreeMap<String, i32>,
    members: &[MemberSubscription],
) -> BTreeMap<String, Vec<TopicPartition>> {
    let mut assignment = empty_assignment(members);
    let mut sorted: Vec<&MemberSubscription> = members.iter().collect();
    sorted.sort_by(|a, b| member_order(a, b));
    if sorted.is_empty() {
        return assignment;
    }
    let topics: BTreeSet<&String> = members.iter().flat_map(|m| m.topics.iter()).collect();
    let mut cursor = 0usize;
    for topic in topics {
        let Some(&count) = partitions_per_topic.get(topic) else {
            continue;
        };
        for p in 0..count.max(0) {
            // Advance the circular iterator to the next member subscribed to the topic (one
            // exists: the topic comes from some member's subscription).
            while !sorted[cursor % sorted.len()].topics.contains(topic) {
                cursor += 1;
            }
            let member = sorted[cursor % sorted.len()];
            cursor += 1;
            assignment
                .get_mut(&member.member_id)
                .expect("every member has an entry")
                .push(TopicPartition::new(topic.clone(), p));
        }
    }
    assignment
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, instance: Option<&str>, topics: &[&str]) -> MemberSubscription {
        MemberSubscription {
            member_id: id.into(),
            instance_id: instance.map(str::to_string),
            topics: topics.iter().map(|t| t.to_string()).collect(),
        }
    }

    fn tps(list: &[(&str, i32)]) -> Vec<TopicPartition> {
        list.iter()
            .map(|(t, p)| TopicPartition::new(*t, *p))
            .collect()
    }

    fn counts(list: &[(&str, i32)]) -> BTreeMap<String, i32> {
        list.iter().map(|(t, n)| (t.to_string(), *n)).collect()
    }

    #[test]
    fn range_gives_leading_members_the_extra_partitions() {
        // Kafka's RangeAssignorTest.testTwoConsumersTwoTopicsSixPartitions.
        let members = vec![
            member("consumer2", None, &["t1", "t2"]),
            member("consumer1", None, &["t1", "t2"]),
        ];
        let a = Assignor::Range.assign(&counts(&[("t1", 3), ("t2", 3)]), &members);
        assert_eq!(
            a["consumer1"],
            tps(&[("t1", 0), ("t1", 1), ("t2", 0), ("t2", 1)])
        );
        assert_eq!(a["consumer2"], tps(&[("t1", 2), ("t2", 2)]));
    }

    #[test]
    fn range_orders_static_members_by_instance_id_first() {
        let members = vec![
            member("a-dynamic", None, &["t"]),
            member("z", Some("instance-2"), &["t"]),
            member("y", Some("instance-1"), &["t"]),
        ];
        let a = Assignor::Range.assign(&counts(&[("t", 4)]), &members);
        assert_eq!(a["y"], tps(&[("t", 0), ("t", 1)]));
        assert_eq!(a["z"], tps(&[("t", 2)]));
        assert_eq!(a["a-dynamic"], tps(&[("t", 3)]));
    }

    #[test]
    fn round_robin_skips_unsubscribed_members() {
        // Kafka's RoundRobinAssignorTest.testTwoConsumersTwoTopicsSixPartitions and the case
        // where consumers subscribe to different topics.
        let members = vec![
            member("c1", None, &["t1", "t2"]),
            member("c2", None, &["t1", "t2"]),
        ];
        let a = Assignor::RoundRobin.assign(&counts(&[("t1", 3), ("t2", 3)]), &members);
        assert_eq!(a["c1"], tps(&[("t1", 0), ("t1", 2), ("t2", 1)]));
        assert_eq!(a["c2"], tps(&[("t1", 1), ("t2", 0), ("t2", 2)]));

        let members = vec![
            member("c0", None, &["t0"]),
            member("c1", None, &["t0", "t1"]),
            member("c2", None, &["t0", "t1", "t2"]),
        ];
        let a = Assignor::RoundRobin.assign(&counts(&[("t0", 1), ("t1", 2), ("t2", 3)]), &members);
        assert_eq!(a["c0"], tps(&[("t0", 0)]));
        assert_eq!(a["c1"], tps(&[("t1", 0)]));
        assert_eq!(a["c2"], tps(&[("t1", 1), ("t2", 0), ("t2", 1), ("t2", 2)]));
    }

    #[test]
    fn topics_without_metadata_are_skipped_and_every_member_has_an_entry() {
        let members = vec![
            member("c1", None, &["known", "unknown"]),
            member("c2", None, &["other"]),
        ];
        for assignor in [Assignor::Range, Assignor::RoundRobin] {
            let a = assignor.assign(&counts(&[("known", 2)]), &members);
            assert_eq!(a["c1"], tps(&[("known", 0), ("known", 1)]));
            assert_eq!(a["c2"], Vec::new());
        }
        assert_eq!(
            Assignor::from_name("roundrobin"),
            Some(Assignor::RoundRobin)
        );
        assert_eq!(Assignor::Range.name(), "range");
        assert_eq!(Assignor::from_name("cooperative-sticky"), None);
    }
}

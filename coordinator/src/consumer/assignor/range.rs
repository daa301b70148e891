//! Kafka 4.4's `RangeAssignor` (the KAFKA-16944 rewrite): each topic's partitions split into contiguous
//! ranges over its subscribers, static members first (by instance id), then the others by member id. Not
//! sticky: the previous assignment is not read. Co-partitioned when topics have the same partition count
//! and the members the same subscriptions.
//!
//! The only order that can decide a result is `memberIds()` order, and only between members the sort
//! cannot tell apart (two members with the same instance id): Java's `List.sort` is stable, and so is
//! Rust's `sort_by`.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::java::compare_strings;

use super::spec::{
    GroupAssignment, GroupSpec, MemberAssignment, MemberSubscriptionSpec, PartitionAssignorError,
    SubscribedTopicDescriber, SubscriptionType, TopicId, TopicPartitions,
};

/// `RangeAssignor#assign`.
pub fn assign(
    group: &GroupSpec,
    topics: &SubscribedTopicDescriber,
) -> Result<GroupAssignment, PartitionAssignorError> {
    if group.members.is_empty() {
        return Ok(GroupAssignment::default());
    }
    match group.subscription_type {
        SubscriptionType::Homogeneous => assign_homogeneous_group(group, topics),
        SubscriptionType::Heterogeneous => assign_heterogeneous_group(group, topics),
    }
}

/// `RangeAssignor.TopicMetadata`: one topic's quota and the next range to hand out.
struct TopicRanges {
    num_partitions: i32,
    num_members: i32,
    /// `minQuota`, `extraPartitions`: computed on first use (`maybeComputeQuota`).
    quota: Option<(i32, i32)>,
    next_range: i32,
}

impl TopicRanges {
    fn new(num_partitions: i32, num_members: i32) -> Self {
        Self {
            num_partitions,
            num_members,
            quota: None,
            next_range: 0,
        }
    }

    /// `RangeAssignor.TopicMetadata#maybeComputeQuota` + `RangeAssignor#addPartitionsToAssignment`: the
    /// member's range `[start, end)`, with one extra partition while extras remain; an empty range adds no
    /// entry.
    fn add_partitions_to(&mut self, topic: TopicId, assignment: &mut TopicPartitions) {
        let (min_quota, extra) = self.quota.get_or_insert((
            self.num_partitions / self.num_members,
            self.num_partitions % self.num_members,
        ));
        let start = self.next_range;
        let mut quota = *min_quota;
        if *extra > 0 {
            quota += 1;
            *extra -= 1;
        }
        // Java's int arithmetic, wrapping included.
        let end = start.wrapping_add(quota).min(self.num_partitions);
        self.next_range = end;
        if start < end {
            assignment.insert(topic, (start..end).collect());
        }
    }
}

/// `RangeAssignor#assignHomogeneousGroup`: every member gets a range of each topic of the first sorted
/// member.
fn assign_homogeneous_group(
    group: &GroupSpec,
    topics: &SubscribedTopicDescriber,
) -> Result<GroupAssignment, PartitionAssignorError> {
    let members = sort_member_ids(group);
    let num_members = group.members.len() as i32;
    let first = members[0];
    let mut ranges: Vec<(TopicId, TopicRanges)> = Vec::new();
    for topic in &first.subscribed_topic_ids {
        let n = topics.num_partitions(topic);
        if n == -1 {
            return Err(PartitionAssignorError::NonExistentTopic);
        }
        ranges.push((*topic, TopicRanges::new(n, num_members)));
    }
    topics.check_size(&first.subscribed_topic_ids)?;
    let mut out = BTreeMap::new();
    for member in members {
        let mut assignment = TopicPartitions::new();
        for (topic, r) in &mut ranges {
            r.add_partitions_to(*topic, &mut assignment);
        }
        out.insert(
            member.member_id.clone(),
            MemberAssignment {
                partitions: assignment,
            },
        );
    }
    Ok(GroupAssignment { members: out })
}

/// `RangeAssignor#assignHeterogeneousGroup`: subscribers counted per topic, then each member takes a range of
/// each of its own topics.
fn assign_heterogeneous_group(
    group: &GroupSpec,
    topics: &SubscribedTopicDescriber,
) -> Result<GroupAssignment, PartitionAssignorError> {
    let members = sort_member_ids(group);
    let mut ranges: BTreeMap<TopicId, TopicRanges> = BTreeMap::new();
    for member in &members {
        for topic in &member.subscribed_topic_ids {
            if !ranges.contains_key(topic) {
                let n = topics.num_partitions(topic);
                if n == -1 {
                    return Err(PartitionAssignorError::NonExistentTopic);
                }
                ranges.insert(*topic, TopicRanges::new(n, 0));
            }
            ranges.get_mut(topic).expect("inserted above").num_members += 1;
        }
    }
    topics.check_size(ranges.keys())?;
    let mut out = BTreeMap::new();
    for member in members {
        let mut assignment = TopicPartitions::new();
        for topic in &member.subscribed_topic_ids {
            ranges
                .get_mut(topic)
                .expect("every subscribed topic was counted")
                .add_partitions_to(*topic, &mut assignment);
        }
        out.insert(
            member.member_id.clone(),
            MemberAssignment {
                partitions: assignment,
            },
        );
    }
    Ok(GroupAssignment { members: out })
}

/// `RangeAssignor#sortMemberIds`: static members first, by instance id (`String.compareTo`), then the others
/// by member id; a stable sort of `memberIds()`.
fn sort_member_ids(group: &GroupSpec) -> Vec<&MemberSubscriptionSpec> {
    let mut members: Vec<&MemberSubscriptionSpec> = group.members.iter().collect();
    members.sort_by(|a, b| match (&a.instance_id, &b.instance_id) {
        (Some(x), Some(y)) => compare_strings(x, y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => compare_strings(&a.member_id, &b.member_id),
    });
    members
}

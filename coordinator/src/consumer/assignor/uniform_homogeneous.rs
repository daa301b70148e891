//! Kafka 4.4's `UniformHomogeneousAssignmentBuilder` (called `OptimizedUniformAssignmentBuilder` before
//! 4.0): the uniform assignor's algorithm when every member subscribes to the same topics. Balance first
//! (member sizes differ by at most one), then stickiness to each member's current target.
//!
//! Java orders that decide the result, reproduced here:
//! * the topics are a `new HashSet<>(first member's subscription)`, so the unassigned partitions are listed
//!   topic by topic in that set's iteration order ([`java_hash_set_order_of_topics`]);
//! * members are walked in `memberIds()` order; only the last `extra` of them are forced to take the
//!   extra partition;
//! * a member over its quota keeps the first partitions of its previous assignment in that map's iteration
//!   order and gives up the rest.

use std::collections::{BTreeMap, BTreeSet};

use crate::java::hash_set_copy_capacity;

use super::spec::{
    GroupAssignment, GroupSpec, MemberAssignment, PartitionAssignorError, SubscribedTopicDescriber,
    TopicId, TopicPartitions, java_hash_set_order_of_topics,
};

/// `UniformHomogeneousAssignmentBuilder#build`. `group` has at least one member (the uniform assignor
/// returns early otherwise).
pub fn build(
    group: &GroupSpec,
    topics: &SubscribedTopicDescriber,
) -> Result<GroupAssignment, PartitionAssignorError> {
    let Some(first) = group.members.first() else {
        return Ok(GroupAssignment::default());
    };
    // The constructor: `new HashSet<>(groupSpec.memberSubscription(firstMemberId).subscribedTopicIds())`.
    let subscribed = java_hash_set_order_of_topics(
        &first.subscribed_topic_ids,
        Some(hash_set_copy_capacity(first.subscribed_topic_ids.len())),
    );
    if subscribed.is_empty() {
        // `new GroupAssignment(Map.of())`: no member at all in the result.
        return Ok(GroupAssignment::default());
    }
    let subscribed_set: BTreeSet<TopicId> = subscribed.iter().copied().collect();

    // The unassigned partitions, topic by topic in set order; the first missing topic fails the build.
    let mut total_partitions: i32 = 0;
    for topic in &subscribed {
        let n = topics.num_partitions(topic);
        if n == -1 {
            return Err(PartitionAssignorError::UnknownSubscribedTopic(*topic));
        }
        total_partitions = total_partitions.wrapping_add(n);
    }
    topics.check_size(&subscribed)?;
    let assigned = group.assigned_partitions();
    let mut unassigned: Vec<(TopicId, i32)> = Vec::new();
    for topic in &subscribed {
        let held = assigned.get(topic);
        for p in 0..topics.num_partitions(topic) {
            if !held.is_some_and(|h| h.contains(&p)) {
                unassigned.push((*topic, p));
            }
        }
    }

    let member_count = group.members.len() as i32;
    let minimum_quota = total_partitions / member_count;
    let mut remaining_extra = total_partitions % member_count;

    // `maybeRevokePartitions`.
    let mut targets: Vec<TopicPartitions> = Vec::with_capacity(group.members.len());
    let mut unfilled: Vec<(usize, i32)> = Vec::new();
    for (index, member) in group.members.iter().enumerate() {
        let mut quota = minimum_quota;
        let mut has_extra = false;
        if remaining_extra > 0 {
            quota += 1;
            has_extra = true;
        }
        let mut target = to_map(&member.assignment);
        for (topic, partitions) in &member.assignment {
            if !subscribed_set.contains(topic) {
                target.remove(topic);
                continue;
            }
            if partitions.len() as i64 <= i64::from(quota) {
                quota -= partitions.len() as i32;
                continue;
            }
            for p in partitions {
                if quota > 0 {
                    quota -= 1;
                } else {
                    let kept = target.get_mut(topic).expect("a subscribed topic is kept");
                    kept.remove(p);
                    if kept.is_empty() {
                        target.remove(topic);
                    }
                    unassigned.push((*topic, *p));
                }
            }
        }
        // Give the extra partition back for a later member to claim, unless this member is one of the
        // last `remaining_extra` ones, which must take it.
        if quota > 0 && has_extra && member_count - index as i32 > remaining_extra {
            quota -= 1;
            has_extra = false;
        }
        if quota > 0 {
            unfilled.push((index, quota));
        }
        if has_extra {
            remaining_extra -= 1;
        }
        targets.push(target);
    }

    // `assignRemainingPartitions`: unfilled members in order, each up to its quota, from the list's front.
    let mut next = 0;
    for (index, quota) in unfilled {
        let mut taken = 0;
        while taken < quota && next < unassigned.len() {
            let (topic, p) = unassigned[next];
            next += 1;
            targets[index].entry(topic).or_default().insert(p);
            taken += 1;
        }
    }
    if next < unassigned.len() {
        return Err(PartitionAssignorError::PartitionsLeftUnassigned);
    }

    Ok(GroupAssignment {
        members: group
            .members
            .iter()
            .zip(targets)
            .map(|(m, partitions)| (m.member_id.clone(), MemberAssignment { partitions }))
            .collect::<BTreeMap<_, _>>(),
    })
}

/// `AssignorHelpers#deepCopyAssignment` of a previous assignment, as a map (topics listed with no partition
/// stay, as in Kafka's untouched map).
pub(crate) fn to_map(assignment: &[(TopicId, Vec<i32>)]) -> TopicPartitions {
    assignment
        .iter()
        .map(|(t, ps)| (*t, ps.iter().copied().collect()))
        .collect()
}

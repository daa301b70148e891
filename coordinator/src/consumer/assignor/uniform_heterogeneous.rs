//! Kafka 4.4's `UniformHeterogeneousAssignmentBuilder`: the uniform assignor's algorithm when members
//! subscribe to different topics. Every member keeps its previous partitions of topics it still
//! subscribes to; the unassigned partitions go, topic by topic, to the least loaded subscribers; then up
//! to 16 rounds move partitions from the most to the least loaded subscribers of each topic.
//!
//! Nothing here depends on a hash order: members are numbered in `memberIds()` order, topics are sorted
//! by `topicComparator` (partitions per subscriber descending, subscriber count ascending, `Uuid.compareTo`),
//! members by `memberComparator` (assigned partitions ascending, index ascending), a topic's partitions by
//! (owner index, partition). `MemberAssignmentBalancer` is reproduced step for step because its ranges
//! decide which member gives and which takes.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use crate::java::uuid_compare;

use super::spec::{
    GroupAssignment, GroupSpec, MemberAssignment, PartitionAssignorError, SubscribedTopicDescriber,
    TopicId, TopicPartitions,
};
use super::uniform_homogeneous::to_map;

/// `MAX_ITERATION_COUNT`: rounds of the final balancing phase.
const MAX_ITERATION_COUNT: usize = 16;

/// `UniformHeterogeneousAssignmentBuilder#build` (with its constructor).
pub fn build(
    group: &GroupSpec,
    topics: &SubscribedTopicDescriber,
) -> Result<GroupAssignment, PartitionAssignorError> {
    let mut builder = Builder::new(group, topics)?;
    if builder.subscribers.is_empty() {
        // `new GroupAssignment(Map.of())`: no member at all in the result.
        return Ok(GroupAssignment::default());
    }
    builder.maybe_revoke_partitions()?;
    let unassigned = builder.compute_unassigned_partitions();
    builder.assign_remaining_partitions(&unassigned);
    builder.balance();
    Ok(GroupAssignment {
        members: group
            .members
            .iter()
            .zip(builder.targets)
            .map(|(m, partitions)| (m.member_id.clone(), MemberAssignment { partitions }))
            .collect(),
    })
}

struct Builder<'a> {
    group: &'a GroupSpec,
    topics: &'a SubscribedTopicDescriber,
    /// `topicSubscribers`: member indexes per subscribed topic, ascending. Its keys are `subscribedTopicIds`.
    subscribers: BTreeMap<TopicId, Vec<usize>>,
    /// `targetAssignment`, by member index.
    targets: Vec<TopicPartitions>,
    /// `memberTargetAssignmentSizes`.
    sizes: Vec<i32>,
    /// `targetAssignmentPartitionOwners`: owner index per partition, -1 for none.
    owners: BTreeMap<TopicId, Vec<i32>>,
}

impl<'a> Builder<'a> {
    /// `UniformHeterogeneousAssignmentBuilder`'s constructor: members numbered in `memberIds()` order,
    /// subscribers per topic; the first subscribed topic (in member order, then subscription order) missing
    /// from the image fails.
    fn new(
        group: &'a GroupSpec,
        topics: &'a SubscribedTopicDescriber,
    ) -> Result<Self, PartitionAssignorError> {
        let mut subscribers: BTreeMap<TopicId, Vec<usize>> = BTreeMap::new();
        for (index, member) in group.members.iter().enumerate() {
            for topic in &member.subscribed_topic_ids {
                if topics.num_partitions(topic) == -1 {
                    return Err(PartitionAssignorError::UnknownSubscribedTopic(*topic));
                }
                subscribers.entry(*topic).or_default().push(index);
            }
        }
        topics.check_size(subscribers.keys())?;
        let owners = subscribers
            .keys()
            .map(|t| (*t, vec![-1; topics.num_partitions(t) as usize]))
            .collect();
        Ok(Self {
            group,
            topics,
            subscribers,
            targets: Vec::new(),
            sizes: vec![0; group.members.len()],
            owners,
        })
    }

    /// `UniformHeterogeneousAssignmentBuilder.topicComparator`: partitions per subscriber descending (as
    /// doubles), then subscriber count ascending, then topic id ascending (`Uuid.compareTo`).
    fn compare_topics(&self, a: &TopicId, b: &TopicId) -> Ordering {
        let (pa, pb) = (self.topics.num_partitions(a), self.topics.num_partitions(b));
        let (sa, sb) = (self.subscribers[a].len(), self.subscribers[b].len());
        let ratio_a = f64::from(pa) / sa as f64;
        let ratio_b = f64::from(pb) / sb as f64;
        ratio_b
            .total_cmp(&ratio_a)
            .then(sa.cmp(&sb))
            .then_with(|| uuid_compare(a, b))
    }

    fn sort_topics(&self, mut ids: Vec<TopicId>) -> Vec<TopicId> {
        ids.sort_by(|a, b| self.compare_topics(a, b));
        ids
    }

    /// `UniformHeterogeneousAssignmentBuilder#maybeRevokePartitions`: drop the topics a member no longer
    /// subscribes to, keep everything else, and record owners and sizes.
    fn maybe_revoke_partitions(&mut self) -> Result<(), PartitionAssignorError> {
        for (index, member) in self.group.members.iter().enumerate() {
            let mut target = to_map(&member.assignment);
            for (topic, partitions) in &member.assignment {
                if member.subscribes_to(topic) {
                    self.sizes[index] += partitions.len() as i32;
                    let owners = self
                        .owners
                        .get_mut(topic)
                        .expect("a subscribed topic has owners");
                    for &p in partitions {
                        match usize::try_from(p).ok().and_then(|i| owners.get_mut(i)) {
                            Some(owner) => *owner = index as i32,
                            None => {
                                return Err(PartitionAssignorError::IndexOutOfBounds {
                                    index: p,
                                    length: owners.len() as i32,
                                });
                            }
                        }
                    }
                } else {
                    target.remove(topic);
                }
            }
            self.targets.push(target);
        }
        Ok(())
    }

    /// `UniformHeterogeneousAssignmentBuilder#computeUnassignedPartitions`: per topic, the partitions without
    /// owner, ascending (topics with none left out).
    fn compute_unassigned_partitions(&self) -> BTreeMap<TopicId, Vec<i32>> {
        self.owners
            .iter()
            .filter_map(|(topic, owners)| {
                let free: Vec<i32> = (0..owners.len() as i32)
                    .filter(|p| owners[*p as usize] == -1)
                    .collect();
                (!free.is_empty()).then_some((*topic, free))
            })
            .collect()
    }

    /// `UniformHeterogeneousAssignmentBuilder#assignRemainingPartitions`: topics in comparator order, each
    /// partition to the next least loaded subscriber.
    fn assign_remaining_partitions(&mut self, unassigned: &BTreeMap<TopicId, Vec<i32>>) {
        let sorted = self.sort_topics(unassigned.keys().copied().collect());
        let mut balancer = Balancer::default();
        for topic in sorted {
            balancer.initialize(&self.subscribers[&topic], &self.sizes);
            for &p in &unassigned[&topic] {
                let member = balancer.next_least_loaded_member(&self.sizes);
                self.assign_partition(topic, p, member);
            }
        }
    }

    /// `UniformHeterogeneousAssignmentBuilder#balance`: the topics with at least two subscribers
    /// (`canTopicParticipateInReassignment`).
    fn balance(&mut self) {
        let topics: Vec<TopicId> = self
            .subscribers
            .iter()
            .filter(|(_, s)| s.len() >= 2)
            .map(|(t, _)| *t)
            .collect();
        if !topics.is_empty() {
            self.balance_topics(topics);
        }
    }

    /// `UniformHeterogeneousAssignmentBuilder#balanceTopics`: loop over the sorted topics until a whole round
    /// moved nothing (or 16 rounds).
    fn balance_topics(&mut self, topics: Vec<TopicId>) {
        let sorted = self.sort_topics(topics);
        let mut last_rebalanced: Option<usize> = None;
        let mut balancer = Balancer::default();
        for _ in 0..MAX_ITERATION_COUNT {
            for (topic_index, topic) in sorted.iter().enumerate() {
                if last_rebalanced == Some(topic_index) {
                    return;
                }
                let moved = self.balance_topic(*topic, &mut balancer);
                if moved > 0 || last_rebalanced.is_none() {
                    last_rebalanced = Some(topic_index);
                }
            }
        }
    }

    /// `UniformHeterogeneousAssignmentBuilder#balanceTopic`: moves the topic's partitions from its most to
    /// its least loaded subscribers until their sizes differ by at most one; returns how many moved.
    fn balance_topic(&mut self, topic: TopicId, balancer: &mut Balancer) -> usize {
        let imbalance = balancer.initialize(&self.subscribers[&topic], &self.sizes);
        if imbalance <= 1 {
            return 0;
        }
        // The topic's partitions grouped by owner (owners ascending, -1 first), each group ascending,
        // and the range of each owner's group.
        let owners = &self.owners[&topic];
        let mut partitions: Vec<i32> = (0..owners.len() as i32).collect();
        partitions.sort_by_key(|p| (owners[*p as usize], *p));
        let mut start: BTreeMap<i32, usize> = BTreeMap::new();
        let mut end: BTreeMap<i32, usize> = BTreeMap::new();
        for (i, p) in partitions.iter().enumerate() {
            let owner = owners[*p as usize];
            start.entry(owner).or_insert(i);
            end.insert(owner, i + 1);
        }

        let mut moved = 0;
        while !balancer.is_balanced() {
            // A most loaded member with something of this topic left to give.
            let most_loaded = loop {
                let Some(member) = balancer.next_most_loaded_member(&self.sizes) else {
                    break None;
                };
                let key = member as i32;
                match (start.get(&key), end.get(&key)) {
                    (Some(s), Some(e)) if e > s => break Some(member),
                    _ => balancer.exclude_most_loaded_member(),
                }
            };
            let Some(most_loaded) = most_loaded else {
                break;
            };
            // Its highest remaining partition.
            let e = end.get_mut(&(most_loaded as i32)).expect("checked above");
            let partition = partitions[*e - 1];
            *e -= 1;
            let least_loaded = balancer.next_least_loaded_member(&self.sizes);
            if balancer.is_balanced() {
                break;
            }
            self.assign_partition(topic, partition, least_loaded);
            moved += 1;
        }
        moved
    }

    /// `UniformHeterogeneousAssignmentBuilder#assignPartition`: takes the partition from its owner, if any,
    /// and gives it to `member`.
    fn assign_partition(&mut self, topic: TopicId, partition: i32, member: usize) {
        let old = self.owners[&topic][partition as usize];
        if old != -1 {
            // `removePartitionFromTargetAssignment`.
            let old = old as usize;
            if let Some(set) = self.targets[old].get_mut(&topic) {
                set.remove(&partition);
                if set.is_empty() {
                    self.targets[old].remove(&topic);
                }
            }
            self.owners.get_mut(&topic).expect("subscribed")[partition as usize] = -1;
            self.sizes[old] -= 1;
        }
        // `addPartitionToTargetAssignment`.
        self.targets[member]
            .entry(topic)
            .or_default()
            .insert(partition);
        self.owners.get_mut(&topic).expect("subscribed")[partition as usize] = member as i32;
        self.sizes[member] += 1;
    }
}

/// `MemberAssignmentBalancer`: the members of one topic sorted by size, a least loaded range that grows
/// rightwards one level at a time, and a most loaded range that grows leftwards. Sizes are read live
/// (they change as partitions move), so each step takes the current sizes.
#[derive(Default)]
struct Balancer {
    sorted_members: Vec<usize>,
    least_loaded_range_end: usize,
    least_loaded_range_partition_count: i32,
    next_least_loaded_member: usize,
    most_loaded_range_start: usize,
    most_loaded_range_end: usize,
    most_loaded_range_partition_count: i32,
    /// May go to -1.
    next_most_loaded_member: isize,
}

impl Balancer {
    /// `MemberAssignmentBalancer#initialize`: returns the size difference between the most and the least
    /// loaded member.
    fn initialize(&mut self, members: &[usize], sizes: &[i32]) -> i32 {
        self.sorted_members.clear();
        self.sorted_members.extend_from_slice(members);
        self.sorted_members
            .sort_by(|a, b| sizes[*a].cmp(&sizes[*b]).then(a.cmp(b)));
        let n = self.sorted_members.len();
        let smallest = sizes[self.sorted_members[0]];
        let largest = sizes[self.sorted_members[n - 1]];
        self.least_loaded_range_end = 0;
        self.least_loaded_range_partition_count = smallest - 1;
        self.next_least_loaded_member = 0;
        self.most_loaded_range_start = n;
        self.most_loaded_range_end = n;
        self.most_loaded_range_partition_count = largest + 1;
        self.next_most_loaded_member = n as isize - 1;
        largest - smallest
    }

    /// `MemberAssignmentBalancer#nextLeastLoadedMember`: the next member of the least loaded range; past its
    /// end, raise the range's level by one and widen it over the members that reached it.
    fn next_least_loaded_member(&mut self, sizes: &[i32]) -> usize {
        if self.next_least_loaded_member >= self.least_loaded_range_end {
            self.least_loaded_range_partition_count += 1;
            while self.least_loaded_range_end < self.sorted_members.len()
                && sizes[self.sorted_members[self.least_loaded_range_end]]
                    == self.least_loaded_range_partition_count
            {
                self.least_loaded_range_end += 1;
            }
            self.next_least_loaded_member = 0;
        }
        let member = self.sorted_members[self.next_least_loaded_member];
        self.next_least_loaded_member += 1;
        member
    }

    /// `MemberAssignmentBalancer#nextMostLoadedMember`: the next member of the most loaded range, walking
    /// leftwards; None (Kafka's -1) once no member is left to give.
    fn next_most_loaded_member(&mut self, sizes: &[i32]) -> Option<usize> {
        if self.next_most_loaded_member < self.most_loaded_range_start as isize {
            if self.most_loaded_range_end <= self.most_loaded_range_start
                && self.most_loaded_range_start > 0
            {
                // The range was emptied by exclusions: restart it at the next member's level so it grows.
                self.most_loaded_range_partition_count =
                    sizes[self.sorted_members[self.most_loaded_range_start - 1]];
            } else {
                self.most_loaded_range_partition_count -= 1;
            }
            while self.most_loaded_range_start > 0
                && sizes[self.sorted_members[self.most_loaded_range_start - 1]]
                    == self.most_loaded_range_partition_count
            {
                self.most_loaded_range_start -= 1;
            }
            self.next_most_loaded_member = self.most_loaded_range_end as isize - 1;
        }
        if self.next_most_loaded_member < 0 {
            return None;
        }
        let member = self.sorted_members[self.next_most_loaded_member as usize];
        self.next_most_loaded_member -= 1;
        Some(member)
    }

    /// `MemberAssignmentBalancer#excludeMostLoadedMember`: swaps the member last returned by
    /// [`Self::next_most_loaded_member`] to the end of the most loaded range and shrinks the range past it.
    fn exclude_most_loaded_member(&mut self) {
        let returned = (self.next_most_loaded_member + 1) as usize;
        self.sorted_members
            .swap(returned, self.most_loaded_range_end - 1);
        self.most_loaded_range_end -= 1;
    }

    /// `MemberAssignmentBalancer#isBalanced`: the two ranges' levels differ by at most one.
    fn is_balanced(&self) -> bool {
        self.most_loaded_range_partition_count - self.least_loaded_range_partition_count <= 1
    }
}

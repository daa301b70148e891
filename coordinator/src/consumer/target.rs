//! A consumer group's new target assignment (Kafka's `TargetAssignmentBuilder.ConsumerTargetAssignmentBuilder`
//! over `UpdatedMembersAndTargetAssignmentView`): the members as the heartbeat leaves them, their specs
//! for the assignor, and the records of the targets that changed.

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use crate::consumer::assignor::spec::{java_hash_set_order_of_ints, java_hash_set_order_of_topics};
use crate::consumer::assignor::{
    ConsumerGroupPartitionAssignor, GroupSpec, MemberSubscriptionSpec, SubscribedTopicDescriber,
    SubscriptionType,
};
use crate::consumer::group::Persistent;
use crate::consumer::member::{ConsumerGroupMember, Partitions};
use crate::consumer::records::{target_assignment_record, target_metadata_record};
use crate::java::hash_set_copy_capacity;
use crate::records::Record;
use crate::topics::TopicsImage;

/// The group's members and targets with one member added or updated
/// (`UpdatedMembersAndTargetAssignmentView.addOrUpdateMember`), in the order Kafka's `OverlayMap`
/// iterates them: the group's members in `TimelineHashMap` order (a replaced member in its place, a
/// removed one skipped), then the added member.
pub struct MembersView<'a> {
    pub members: Vec<&'a ConsumerGroupMember>,
    pub targets: BTreeMap<&'a str, &'a Partitions>,
}

impl<'a> MembersView<'a> {
    pub fn new(p: &'a Persistent, updated: &'a ConsumerGroupMember) -> Self {
        let id = updated.member_id.as_str();
        let mut targets: BTreeMap<&'a str, &'a Partitions> = p
            .target_assignment
            .iter()
            .map(|(k, v)| (k.as_str(), v))
            .collect();
        // A static member taking over an instance id held by another member: the previous holder
        // leaves the view and its target moves to the new member id.
        let mut replaced: Option<&str> = None;
        if let Some(instance) = &updated.instance_id
            && let Some(previous) = p.static_members.get(instance)
            && previous != id
        {
            replaced = Some(previous.as_str());
            if let Some(t) = p.target_assignment.get(previous) {
                targets.insert(id, t);
            }
            targets.remove(previous.as_str());
        }
        let mut members: Vec<&'a ConsumerGroupMember> = Vec::with_capacity(p.members.len() + 1);
        let mut placed = false;
        for (k, m) in p.members.iter() {
            if Some(k.as_str()) == replaced {
                continue;
            }
            if k == id {
                members.push(updated);
                placed = true;
            } else {
                members.push(m);
            }
        }
        if !placed {
            members.push(updated);
        }
        Self { members, targets }
    }
}

/// `TopicIds` over the member's subscribed names (and its resolved regex's topics): the ids of those
/// that exist in the image.
pub fn subscribed_topic_ids(
    member: &ConsumerGroupMember,
    resolved: &crate::streams::timeline_map::TimelineMap<crate::consumer::group::ResolvedRegex>,
    topics: &TopicsImage,
) -> BTreeSet<Uuid> {
    let mut names: BTreeSet<&String> = member.subscribed_topic_names.iter().collect();
    if let Some(r) = member.regex().and_then(|r| resolved.get(r)) {
        names.extend(r.topics.iter());
    }
    names
        .into_iter()
        .filter_map(|n| topics.get(n).map(|t| t.id))
        .collect()
}

/// The member's subscribed topic ids in the order its `TopicIds` iterates them (the names' `HashSet`
/// order, built from the record's list).
fn subscribed_ids_in_java_order(
    member: &ConsumerGroupMember,
    resolved: &crate::streams::timeline_map::TimelineMap<crate::consumer::group::ResolvedRegex>,
    topics: &TopicsImage,
) -> Vec<Uuid> {
    let mut names: Vec<&str> = member
        .subscribed_topic_names
        .iter()
        .map(String::as_str)
        .collect();
    if let Some(r) = member.regex().and_then(|r| resolved.get(r)) {
        if names.is_empty() {
            names = r.topics.iter().map(String::as_str).collect();
        } else {
            names.extend(r.topics.iter().map(String::as_str));
        }
    }
    names.sort_by(|a, b| crate::java::compare_strings(a, b));
    names.dedup();
    crate::java::java_hash_set_copy_order(names)
        .into_iter()
        .filter_map(|n| topics.get(n).map(|t| t.id))
        .collect()
}

/// A previous target as the assignor iterates it: `Assignment.fromRecord` puts the topics in a
/// `HashMap` and each topic's partitions in a `HashSet` copied from the record's list.
fn assignment_in_java_order(target: &Partitions) -> Vec<(Uuid, Vec<i32>)> {
    let ids: Vec<Uuid> = target.keys().copied().collect();
    java_hash_set_order_of_topics(&ids, None)
        .into_iter()
        .map(|t| {
            let parts: Vec<i32> = target[&t].iter().copied().collect();
            let cap = hash_set_copy_capacity(parts.len());
            (t, java_hash_set_order_of_ints(&parts, Some(cap)))
        })
        .collect()
}

/// What [`build`] produced.
pub struct TargetResult {
    pub records: Vec<Record>,
    pub targets: BTreeMap<String, Partitions>,
}

/// `ConsumerTargetAssignmentBuilder.build`: runs the assignor over the view and returns one
/// target-member record per member whose target changed (in `memberIds()` order), then the target
/// metadata record at `group_epoch` and `now_ms`. An assignor failure is Kafka's
/// `PartitionAssignorException`, turned into UNKNOWN_SERVER_ERROR by the caller.
#[allow(clippy::too_many_arguments)]
pub fn build(
    group_id: &str,
    group_epoch: i32,
    view: &MembersView<'_>,
    subscription_type: SubscriptionType,
    resolved: &crate::streams::timeline_map::TimelineMap<crate::consumer::group::ResolvedRegex>,
    topics: &TopicsImage,
    assignor: &dyn ConsumerGroupPartitionAssignor,
    now_ms: i64,
) -> Result<TargetResult, crate::consumer::assignor::PartitionAssignorError> {
    let empty = Partitions::new();
    let specs: Vec<MemberSubscriptionSpec> = view
        .members
        .iter()
        .map(|m| MemberSubscriptionSpec {
            member_id: m.member_id.clone(),
            rack_id: m.rack_id.clone(),
            instance_id: m.instance_id.clone(),
            subscribed_topic_ids: subscribed_ids_in_java_order(m, resolved, topics),
            assignment: assignment_in_java_order(
                view.targets
                    .get(m.member_id.as_str())
                    .copied()
                    .unwrap_or(&empty),
            ),
        })
        .collect();
    let spec = GroupSpec::from_member_map_insertion_order(specs, subscription_type);
    let describer = SubscribedTopicDescriber::new(topics.iter().map(|t| (t.id, t.partitions)));
    let assignment = assignor.assign(&spec, &describer)?;
    let mut records = Vec::new();
    let mut targets = BTreeMap::new();
    for id in spec.member_ids() {
        let new: Partitions = assignment
            .members
            .get(id)
            .map(|a| a.partitions.clone())
            .unwrap_or_default();
        if view.targets.get(id).copied() != Some(&new) {
            records.push(target_assignment_record(group_id, id, &new));
        }
        targets.insert(id.to_string(), new);
    }
    records.push(target_metadata_record(group_id, group_epoch, now_ms));
    Ok(TargetResult { records, targets })
}

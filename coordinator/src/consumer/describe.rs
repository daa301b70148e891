//! ConsumerGroupDescribe (Kafka's `GroupCoordinatorService.consumerGroupDescribe`,
//! `GroupMetadataManager.consumerGroupDescribe`, `ConsumerGroup.asDescribedGroup` and
//! `ConsumerGroupMember.asConsumerGroupDescribeMember`).

use protocol::ErrorCode;
use protocol::messages::consumer_group_describe_response::{
    Assignment, DescribedGroup, Member, TopicPartitions,
};
use protocol::messages::{
    ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse, GroupId, StrBytes, TopicName,
};

use crate::consumer::ConsumerGroups;
use crate::consumer::group::ConsumerGroup;
use crate::consumer::member::{ConsumerGroupMember, Partitions, topic_order};
use crate::group::ALL_GROUP_OPERATIONS;
use crate::topics::TopicsImage;

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// `accumulateTopicPartitions` over the assigned then the pending partitions: topics the image does
/// not know are dropped.
fn current_assignment(member: &ConsumerGroupMember, topics: &TopicsImage) -> Assignment {
    let mut merged: std::collections::BTreeMap<uuid::Uuid, Vec<i32>> = Default::default();
    for source in [&member.assigned, &member.pending_revocation] {
        for (t, parts) in source {
            if topics.get_by_id(t).is_some() {
                merged.entry(*t).or_default().extend(parts.keys().copied());
            }
        }
    }
    Assignment::default().with_topic_partitions(
        topic_order(&merged)
            .into_iter()
            .filter_map(|t| {
                let meta = topics.get_by_id(&t)?;
                Some(
                    TopicPartitions::default()
                        .with_topic_id(t)
                        .with_topic_name(TopicName(sb(&meta.name)))
                        .with_partitions(merged[&t].clone()),
                )
            })
            .collect(),
    )
}

/// `topicPartitionsFromAssignment`.
fn target_assignment(target: Option<&Partitions>, topics: &TopicsImage) -> Assignment {
    let empty = Partitions::new();
    let target = target.unwrap_or(&empty);
    Assignment::default().with_topic_partitions(
        topic_order(target)
            .into_iter()
            .filter_map(|t| {
                let meta = topics.get_by_id(&t)?;
                Some(
                    TopicPartitions::default()
                        .with_topic_id(t)
                        .with_topic_name(TopicName(sb(&meta.name)))
                        .with_partitions(target[&t].iter().copied().collect()),
                )
            })
            .collect(),
    )
}

/// `asConsumerGroupDescribeMember`.
fn describe_member(
    member: &ConsumerGroupMember,
    target: Option<&Partitions>,
    topics: &TopicsImage,
) -> Member {
    // The names come from the record (sorted) into a HashSet, listed in its order.
    let mut names: Vec<&str> = member
        .subscribed_topic_names
        .iter()
        .map(String::as_str)
        .collect();
    names.sort_by(|a, b| crate::java::compare_strings(a, b));
    let names = crate::java::java_hash_set_copy_order(names);
    Member::default()
        .with_member_id(sb(&member.member_id))
        .with_instance_id(member.instance_id.as_deref().map(sb))
        .with_rack_id(member.rack_id.as_deref().map(sb))
        .with_member_epoch(member.member_epoch)
        .with_client_id(sb(&member.client_id))
        .with_client_host(sb(&member.client_host))
        .with_subscribed_topic_names(names.into_iter().map(|n| TopicName(sb(n))).collect())
        .with_subscribed_topic_regex(member.subscribed_topic_regex.as_deref().map(sb))
        .with_assignment(current_assignment(member, topics))
        .with_target_assignment(target_assignment(target, topics))
        .with_member_type(if member.use_classic_protocol() { 0 } else { 1 })
}

/// `asDescribedGroup`: members in the group's `TimelineHashMap` order; the assignor is the preferred
/// one or the default.
fn describe_group(
    group: &ConsumerGroup,
    default_assignor: &str,
    topics: &TopicsImage,
) -> DescribedGroup {
    let p = &group.persistent;
    DescribedGroup::default()
        .with_group_id(GroupId(sb(&group.group_id)))
        .with_assignor_name(sb(&group
            .preferred_server_assignor()
            .unwrap_or_else(|| default_assignor.to_string())))
        .with_group_epoch(p.group_epoch)
        .with_group_state(sb(group.state().name()))
        .with_assignment_epoch(p.assignment_epoch)
        .with_members(
            p.members
                .values()
                .map(|m| describe_member(m, p.target_assignment.get(&m.member_id), topics))
                .collect(),
        )
}

impl ConsumerGroups {
    /// ConsumerGroupDescribe over this shard: empty group ids first (INVALID_GROUP_ID), then the others
    /// in request order; a group of another type or none at all is GROUP_ID_NOT_FOUND.
    pub fn describe(
        &self,
        r: &ConsumerGroupDescribeRequest,
        default_assignor: &str,
        topics: &TopicsImage,
        holds_other: &dyn Fn(&str) -> bool,
    ) -> ConsumerGroupDescribeResponse {
        let mut out = Vec::new();
        for _ in r.group_ids.iter().filter(|g| g.as_str().is_empty()) {
            out.push(
                DescribedGroup::default()
                    .with_group_id(GroupId(sb("")))
                    .with_error_code(ErrorCode::InvalidGroupId.code()),
            );
        }
        for g in r.group_ids.iter().filter(|g| !g.as_str().is_empty()) {
            let id = g.as_str();
            let described = match self.groups.get(id) {
                Some(group) => {
                    let mut d = describe_group(group, default_assignor, topics);
                    if r.include_authorized_operations {
                        d.authorized_operations = ALL_GROUP_OPERATIONS;
                    }
                    d
                }
                None => {
                    let message = if holds_other(id) {
                        format!("Group {id} is not a consumer group.")
                    } else {
                        format!("Group {id} not found.")
                    };
                    DescribedGroup::default()
                        .with_group_id(g.clone())
                        .with_error_code(ErrorCode::GroupIdNotFound.code())
                        .with_error_message(Some(StrBytes::from_string(message)))
                }
            };
            out.push(described);
        }
        ConsumerGroupDescribeResponse::default().with_groups(out)
    }
}

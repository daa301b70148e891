//! Kafka 4.4's `UniformAssignor` (`uniform`, the default of `group.consumer.assignors`): the homogeneous
//! builder when every member subscribes to the same topics, the heterogeneous one otherwise; nobody in
//! the group, nothing to assign.

use super::spec::{
    GroupAssignment, GroupSpec, PartitionAssignorError, SubscribedTopicDescriber, SubscriptionType,
};
use super::{uniform_heterogeneous, uniform_homogeneous};

/// `UniformAssignor#assign`.
pub fn assign(
    group: &GroupSpec,
    topics: &SubscribedTopicDescriber,
) -> Result<GroupAssignment, PartitionAssignorError> {
    if group.members.is_empty() {
        return Ok(GroupAssignment::default());
    }
    match group.subscription_type {
        SubscriptionType::Homogeneous => uniform_homogeneous::build(group, topics),
        SubscriptionType::Heterogeneous => uniform_heterogeneous::build(group, topics),
    }
}

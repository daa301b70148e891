//! The server-side partition assignors of Kafka 4.4's consumer groups (KIP-848), with Kafka's exact
//! output: `uniform` ([`UniformAssignor`], the default; `UniformHomogeneousAssignmentBuilder` or
//! `UniformHeterogeneousAssignmentBuilder` by the group's subscription type) and `range`
//! ([`RangeAssignor`]). Neither reads racks in 4.4 (KAFKA-16694 removed the rack-aware code), though the
//! spec carries them as Kafka's API does.
//!
//! Inputs and outputs are in [`spec`]; where a Java iteration order decides a tie, the spec lists the
//! collection in that order and the builders recreate the `HashSet`s Kafka creates (`crate::java`).

pub mod range;
pub mod spec;
pub mod uniform;
pub mod uniform_heterogeneous;
pub mod uniform_homogeneous;

#[cfg(test)]
mod tests;

pub use spec::{
    GroupAssignment, GroupSpec, MAX_SUBSCRIBED_PARTITIONS, MemberAssignment,
    MemberSubscriptionSpec, PartitionAssignorError, SubscribedTopicDescriber, SubscriptionType,
    TopicId, TopicMetadata, TopicPartitions,
};

/// Kafka's `ConsumerGroupPartitionAssignor`: a named, stateless server-side assignor.
pub trait ConsumerGroupPartitionAssignor: Send + Sync {
    /// The name `group.consumer.assignors` and a member's `ServerAssignor` select it by.
    fn name(&self) -> &'static str;
    /// Computes the group's new target assignment.
    fn assign(
        &self,
        group: &GroupSpec,
        topics: &SubscribedTopicDescriber,
    ) -> Result<GroupAssignment, PartitionAssignorError>;
}

/// The built-in `uniform` assignor.
#[derive(Debug, Clone, Copy, Default)]
pub struct UniformAssignor;

impl UniformAssignor {
    /// Its registered name.
    pub const NAME: &'static str = "uniform";
}

impl ConsumerGroupPartitionAssignor for UniformAssignor {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn assign(
        &self,
        group: &GroupSpec,
        topics: &SubscribedTopicDescriber,
    ) -> Result<GroupAssignment, PartitionAssignorError> {
        group.validate()?;
        topics.validate()?;
        uniform::assign(group, topics)
    }
}

/// The built-in `range` assignor.
#[derive(Debug, Clone, Copy, Default)]
pub struct RangeAssignor;

impl RangeAssignor {
    /// Its registered name.
    pub const NAME: &'static str = "range";
}

impl ConsumerGroupPartitionAssignor for RangeAssignor {
    fn name(&self) -> &'static str {
        Self::NAME
    }

    fn assign(
        &self,
        group: &GroupSpec,
        topics: &SubscribedTopicDescriber,
    ) -> Result<GroupAssignment, PartitionAssignorError> {
        group.validate()?;
        topics.validate()?;
        range::assign(group, topics)
    }
}

/// The built-in assignors in the order of the default `group.consumer.assignors` (`[uniform, range]`;
/// the first is the default).
pub const BUILTIN_ASSIGNORS: [&dyn ConsumerGroupPartitionAssignor; 2] =
    [&UniformAssignor, &RangeAssignor];

/// The built-in assignor registered under `name`.
pub fn builtin(name: &str) -> Option<&'static dyn ConsumerGroupPartitionAssignor> {
    BUILTIN_ASSIGNORS.into_iter().find(|a| a.name() == name)
}

//! The sticky task assignor of Kafka 4.4 (`StickyTaskAssignor`), with Java's iteration and tie-break
//! orders emulated so that outputs equal Kafka's for identical inputs.
//!
//! Entry point: [`assign`] (or [`StickyTaskAssignor`] through the [`TaskAssignor`] trait, the shape of
//! Kafka 4.4's pluggable assignors). Inputs and outputs are in [`spec`]; the Java emulation is in [`java`].

pub mod spec;
pub mod sticky;

pub use spec::{
    AssignmentConfigs, AssignorError, GroupAssignment, GroupSpec, MemberAssignment, MemberSpec,
    MemberTasks, Partitions, SubtopologySpec, TaskList, TaskOffsets, Tasks, TopologyDescriber,
};
pub use sticky::{assign, assign_with_bugs};

use kafka_bugs::KafkaBugs;

/// Kafka 4.4's `TaskAssignor` (KIP-1357): a named, stateless strategy computing a group's target assignment.
pub trait TaskAssignor: Send + Sync {
    /// The name the group config `streams.assignor.name` selects it by.
    fn name(&self) -> &str;
    /// Computes the assignment of every member of `group` for `topology`.
    fn assign(
        &self,
        group: &GroupSpec,
        topology: &TopologyDescriber,
    ) -> Result<GroupAssignment, AssignorError>;

    /// [`Self::assign`] with the run's Kafka bug switches (regroup's, not Kafka's API): an assignor
    /// with switches of its own overrides it; the others ignore `bugs`.
    fn assign_with_bugs(
        &self,
        group: &GroupSpec,
        topology: &TopologyDescriber,
        bugs: &KafkaBugs,
    ) -> Result<GroupAssignment, AssignorError> {
        let _ = bugs;
        self.assign(group, topology)
    }
}

/// The built-in `sticky` assignor.
#[derive(Debug, Clone, Copy, Default)]
pub struct StickyTaskAssignor;

impl StickyTaskAssignor {
    /// Its registered name.
    pub const NAME: &'static str = "sticky";
}

impl TaskAssignor for StickyTaskAssignor {
    fn name(&self) -> &str {
        Self::NAME
    }

    fn assign(
        &self,
        group: &GroupSpec,
        topology: &TopologyDescriber,
    ) -> Result<GroupAssignment, AssignorError> {
        sticky::assign(group, topology)
    }

    fn assign_with_bugs(
        &self,
        group: &GroupSpec,
        topology: &TopologyDescriber,
        bugs: &KafkaBugs,
    ) -> Result<GroupAssignment, AssignorError> {
        sticky::assign_with_bugs(group, topology, bugs)
    }
}

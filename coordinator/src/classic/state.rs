//! The classic group states and their legal transitions (Kafka's `ClassicGroupState`).

/// A classic group's state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupState {
    /// No members; offsets may still be committed (simple consumers, admin).
    Empty,
    /// A rebalance started; the coordinator waits for members to (re)join.
    PreparingRebalance,
    /// The join phase completed; the coordinator waits for the leader's assignment (SyncGroup).
    CompletingRebalance,
    /// Members have their assignment.
    Stable,
    /// The group is gone (unloaded or deleted); requests get COORDINATOR_NOT_AVAILABLE.
    Dead,
}

impl GroupState {
    /// The name DescribeGroups and ListGroups report.
    pub fn name(self) -> &'static str {
        match self {
            GroupState::Empty => "Empty",
            GroupState::PreparingRebalance => "PreparingRebalance",
            GroupState::CompletingRebalance => "CompletingRebalance",
            GroupState::Stable => "Stable",
            GroupState::Dead => "Dead",
        }
    }

    /// Whether a group may move from `from` to `self`.
    pub fn may_follow(self, from: GroupState) -> bool {
        use GroupState::*;
        match self {
            Empty => from == PreparingRebalance,
            PreparingRebalance => matches!(from, Stable | CompletingRebalance | Empty),
            CompletingRebalance => from == PreparingRebalance,
            Stable => from == CompletingRebalance,
            Dead => true,
        }
    }
}

impl std::fmt::Display for GroupState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

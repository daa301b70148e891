//! A member's reconciliation towards its target (Kafka's consumer `CurrentAssignmentBuilder`):
//! partitions are revoked before any new one is assigned, a partition still held by another member
//! is withheld until that member releases it, and each partition keeps the epoch it was assigned at.

use std::collections::{BTreeMap, BTreeSet};

use protocol::ErrorCode;
use protocol::messages::consumer_group_heartbeat_request::TopicPartitions as OwnedTopic;
use uuid::Uuid;

use crate::consumer::member::{ConsumerGroupMember, MemberState, PartitionEpochs, Partitions};
use crate::error::ApiError;

/// The inputs of one reconciliation (`CurrentAssignmentBuilder`'s `with*` calls).
pub struct Reconciler<'a> {
    pub member: &'a ConsumerGroupMember,
    pub target_epoch: i32,
    pub target: &'a Partitions,
    pub has_subscription_changed: bool,
    /// The member's subscribed topics that exist, by id (names and resolved regex).
    pub subscribed_topic_ids: &'a BTreeSet<Uuid>,
    /// Whether the member subscribes to nothing at all: Kafka's `TopicIds.isEmpty()` looks at the names,
    /// whether the image knows them or not.
    pub subscribes_to_nothing: bool,
    /// `currentPartitionEpoch`: the epoch of the member holding a partition, -1 when free.
    pub current_partition_epoch: &'a dyn Fn(&Uuid, i32) -> i32,
    /// The partitions the request says the member owns (`None`: not sent).
    pub owned: Option<&'a [OwnedTopic]>,
}

impl Reconciler<'_> {
    /// `build`: the member after this reconciliation step (equal to the input when nothing moves).
    pub fn build(&self) -> Result<ConsumerGroupMember, ApiError> {
        let m = self.member;
        match m.state {
            MemberState::Stable => {
                if m.member_epoch != self.target_epoch {
                    Ok(self.compute_next_assignment(m.member_epoch, &m.assigned))
                } else if self.has_subscription_changed {
                    Ok(self.update_current_assignment(m.member_epoch, &m.assigned))
                } else {
                    Ok(m.clone())
                }
            }
            MemberState::UnrevokedPartitions => {
                if self.owns_revoked_partitions(&m.pending_revocation) {
                    if self.has_subscription_changed {
                        Ok(self.update_current_assignment(m.member_epoch, &m.assigned))
                    } else {
                        Ok(m.clone())
                    }
                } else {
                    Ok(self.compute_next_assignment(m.member_epoch, &m.assigned))
                }
            }
            MemberState::UnreleasedPartitions => {
                Ok(self.compute_next_assignment(m.member_epoch, &m.assigned))
            }
            MemberState::Unknown => {
                if self.owned.is_none_or(|o| !o.is_empty()) {
                    return Err(ApiError::new(
                        ErrorCode::FencedMemberEpoch,
                        "The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.",
                    ));
                }
                Ok(self.compute_next_assignment(self.target_epoch, &m.assigned))
            }
        }
    }

    /// `ownsRevokedPartitions`: true when the owned partitions are unknown or include one of these.
    fn owns_revoked_partitions(&self, assignment: &PartitionEpochs) -> bool {
        let Some(owned) = self.owned else {
            return true;
        };
        owned.iter().any(|t| {
            assignment
                .get(&t.topic_id)
                .is_some_and(|parts| t.partitions.iter().any(|p| parts.contains_key(p)))
        })
    }

    /// `updateCurrentAssignment`: the subscription changed but the target did not move; partitions of
    /// topics no longer subscribed go to pending revocation.
    fn update_current_assignment(
        &self,
        member_epoch: i32,
        assigned: &PartitionEpochs,
    ) -> ConsumerGroupMember {
        let m = self.member;
        // Kafka compares the maps by identity: the first branch always builds a new member (the
        // member's map is never the shared empty map once a record was replayed into it), the loop
        // only when it removed a topic.
        let (new_assigned, new_pending, removed) =
            if self.subscribes_to_nothing && m.pending_revocation.is_empty() {
                (PartitionEpochs::new(), assigned.clone(), true)
            } else {
                let mut new_assigned = assigned.clone();
                let mut new_pending = m.pending_revocation.clone();
                let mut removed = false;
                for (topic, parts) in assigned {
                    if !self.subscribed_topic_ids.contains(topic) {
                        removed = true;
                        new_assigned.remove(topic);
                        let entry = new_pending.entry(*topic).or_default();
                        for (p, e) in parts {
                            entry.insert(*p, *e);
                        }
                    }
                }
                (new_assigned, new_pending, removed)
            };
        if !removed {
            return m.clone();
        }
        let mut next = m.clone();
        if !new_pending.is_empty() && self.owns_revoked_partitions(&new_pending) {
            next.state = MemberState::UnrevokedPartitions;
            next.update_member_epoch(member_epoch);
            next.assigned = new_assigned;
            next.pending_revocation = new_pending;
        } else {
            next.update_member_epoch(member_epoch);
            next.assigned = new_assigned;
        }
        next
    }

    /// `computeNextAssignment`.
    fn compute_next_assignment(
        &self,
        member_epoch: i32,
        assigned: &PartitionEpochs,
    ) -> ConsumerGroupMember {
        let m = self.member;
        let mut has_unreleased = false;
        let mut new_assigned = PartitionEpochs::new();
        let mut new_pending = PartitionEpochs::new();
        let mut pending_assignment: BTreeMap<Uuid, BTreeSet<i32>> = BTreeMap::new();
        let topics: BTreeSet<Uuid> = self.target.keys().chain(assigned.keys()).copied().collect();
        let empty_target = BTreeSet::new();
        let empty_assigned = BTreeMap::new();
        for topic in topics {
            let target = if self.subscribed_topic_ids.contains(&topic) {
                self.target.get(&topic).unwrap_or(&empty_target)
            } else {
                &empty_target
            };
            let current = assigned.get(&topic).unwrap_or(&empty_assigned);
            let keep: BTreeMap<i32, i32> = current
                .iter()
                .filter(|(p, _)| target.contains(p))
                .map(|(p, e)| (*p, *e))
                .collect();
            let revoke: BTreeMap<i32, i32> = current
                .iter()
                .filter(|(p, _)| !keep.contains_key(p))
                .map(|(p, e)| (*p, *e))
                .collect();
            let own_pending = m.pending_revocation.get(&topic);
            let mut to_assign = BTreeSet::new();
            for p in target.iter().filter(|p| !keep.contains_key(p)) {
                // A partition pending revocation by this very member is not unreleased
                // (KAFKA-19449): only one member can hold a partition at a time.
                let unreleased = (self.current_partition_epoch)(&topic, *p) != -1
                    && !own_pending.is_some_and(|o| o.contains_key(p));
                if unreleased {
                    has_unreleased = true;
                } else {
                    to_assign.insert(*p);
                }
            }
            if !keep.is_empty() {
                new_assigned.insert(topic, keep);
            }
            if !revoke.is_empty() {
                new_pending.insert(topic, revoke);
            }
            if !to_assign.is_empty() {
                pending_assignment.insert(topic, to_assign);
            }
        }
        let mut next = m.clone();
        if !new_pending.is_empty() && self.owns_revoked_partitions(&new_pending) {
            next.state = MemberState::UnrevokedPartitions;
            next.update_member_epoch(member_epoch);
            next.assigned = new_assigned;
            next.pending_revocation = new_pending;
        } else if !pending_assignment.is_empty() {
            for (topic, parts) in pending_assignment {
                let entry = new_assigned.entry(topic).or_default();
                for p in parts {
                    entry.insert(p, self.target_epoch);
                }
            }
            next.state = if has_unreleased {
                MemberState::UnreleasedPartitions
            } else {
                MemberState::Stable
            };
            next.update_member_epoch(self.target_epoch);
            next.assigned = new_assigned;
            next.pending_revocation = PartitionEpochs::new();
        } else {
            next.state = if has_unreleased {
                MemberState::UnreleasedPartitions
            } else {
                MemberState::Stable
            };
            next.update_member_epoch(self.target_epoch);
            next.assigned = new_assigned;
            next.pending_revocation = PartitionEpochs::new();
        }
        next
    }
}

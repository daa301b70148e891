//! Partition leader election and ISR/ELR changes (Kafka's `PartitionChangeBuilder`), with ELR
//! enabled as Kafka 4.4 clusters are by default and `useLastKnownLeaderInBalancedRecovery` on.
//!
//! Where Kafka builds the new ELR from a `HashSet<Integer>` (whose iteration order for small
//! broker ids is ascending), regroup sorts ascending.

use std::collections::BTreeSet;

use uuid::Uuid;

use super::image::PartitionRegistration;
use super::records::{LEADER_RECOVERING, MetadataRecord, NO_LEADER, NO_LEADER_CHANGE};

/// How a leader is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Election {
    /// Keep a valid leader, else the first valid replica in replica order.
    Online,
    /// The preferred (first) replica if valid, else as `Online` without unclean choices.
    Preferred,
}

/// Builds the `PartitionChangeRecord` for one partition.
pub struct PartitionChangeBuilder<'a> {
    partition: &'a PartitionRegistration,
    topic_id: Uuid,
    partition_id: i32,
    is_acceptable_leader: &'a dyn Fn(i32) -> bool,
    min_isr: usize,
    elr_enabled: bool,
    election: Election,
    target_isr: Vec<i32>,
    target_elr: Vec<i32>,
    unclean_shutdown_replicas: Vec<i32>,
}

struct ElectionResult {
    node: i32,
    unclean: bool,
}

impl<'a> PartitionChangeBuilder<'a> {
    pub fn new(
        partition: &'a PartitionRegistration,
        topic_id: Uuid,
        partition_id: i32,
        is_acceptable_leader: &'a dyn Fn(i32) -> bool,
        min_isr: usize,
        elr_enabled: bool,
    ) -> Self {
        Self {
            partition,
            topic_id,
            partition_id,
            is_acceptable_leader,
            min_isr,
            elr_enabled,
            election: Election::Online,
            target_isr: partition.isr.clone(),
            target_elr: partition.elr.clone(),
            unclean_shutdown_replicas: Vec::new(),
        }
    }

    pub fn set_target_isr(mut self, isr: Vec<i32>) -> Self {
        self.target_isr = isr;
        self
    }

    pub fn set_election(mut self, election: Election) -> Self {
        self.election = election;
        self
    }

    pub fn set_unclean_shutdown_replicas(mut self, replicas: Vec<i32>) -> Self {
        self.unclean_shutdown_replicas = replicas;
        self
    }

    fn is_valid_new_leader(&self, replica: i32) -> bool {
        (self.target_isr.contains(&replica)
            || (self.target_isr.is_empty() && self.target_elr.contains(&replica)))
            && (self.is_acceptable_leader)(replica)
    }

    fn can_elect_last_known_leader(&self) -> bool {
        self.elr_enabled
            && self.target_elr.is_empty()
            && self.target_isr.is_empty()
            && self.partition.last_known_elr.len() == 1
            && (self.is_acceptable_leader)(self.partition.last_known_elr[0])
    }

    fn elect_leader(&self) -> ElectionResult {
        let replicas = &self.partition.replicas;
        let clean = |node| ElectionResult {
            node,
            unclean: false,
        };
        if self.election == Election::Preferred {
            if let Some(first) = replicas.first()
                && self.is_valid_new_leader(*first)
            {
                return clean(*first);
            }
            if self.is_valid_new_leader(self.partition.leader) {
                return clean(self.partition.leader);
            }
            if let Some(r) = replicas
                .iter()
                .skip(1)
                .find(|r| self.is_valid_new_leader(**r))
            {
                return clean(*r);
            }
        } else {
            if self.is_valid_new_leader(self.partition.leader) {
                return clean(self.partition.leader);
            }
            if let Some(r) = replicas.iter().find(|r| self.is_valid_new_leader(**r)) {
                return clean(*r);
            }
        }
        if self.can_elect_last_known_leader() {
            return ElectionResult {
                node: self.partition.last_known_elr[0],
                unclean: true,
            };
        }
        // unclean.leader.election.enable is false by default (and not modelled otherwise).
        clean(NO_LEADER)
    }

    fn maybe_populate_target_elr(&mut self) {
        if !self.elr_enabled {
            return;
        }
        if self.target_isr.len() >= self.min_isr {
            self.target_elr.clear();
            return;
        }
        let mut candidates: BTreeSet<i32> = self.target_elr.iter().copied().collect();
        candidates.extend(self.partition.isr.iter().copied());
        self.target_elr = candidates
            .iter()
            .copied()
            .filter(|r| !self.target_isr.contains(r))
            .filter(|r| !self.unclean_shutdown_replicas.contains(r))
            .collect();
        // Kafka goes on to compute a target last known ELR here, which `maybeUpdateRecordElr`
        // writes only with `useLastKnownLeaderInBalancedRecovery` off; with it on (4.4's
        // controller, the only mode here) `maybeUpdateLastKnownLeader` alone sets that field, so
        // regroup does not compute a value nothing reads (found as an equivalent mutant).
    }

    /// The change record, or `None` when nothing changes.
    pub fn build(mut self) -> Option<MetadataRecord> {
        let mut leader = NO_LEADER_CHANGE;
        let mut isr: Option<Vec<i32>> = None;
        let mut elr: Option<Vec<i32>> = None;
        let mut last_known_elr: Option<Vec<i32>> = None;
        let mut recovery: Option<i8> = None;

        self.maybe_populate_target_elr();

        // tryElection
        let result = self.elect_leader();
        if result.node != self.partition.leader {
            if self.target_elr.contains(&result.node) {
                self.target_isr = vec![result.node];
                self.target_elr.retain(|r| *r != result.node);
            }
            leader = result.node;
            if result.unclean {
                isr = Some(vec![result.node]);
                if self.partition.leader_recovery_state != LEADER_RECOVERING {
                    recovery = Some(LEADER_RECOVERING);
                }
            }
        }

        // maybeUpdateRecordElr (useLastKnownLeaderInBalancedRecovery = true)
        let clean_election = isr.is_none();
        if !clean_election || !self.elr_enabled {
            self.target_elr.clear();
        }
        if self.target_elr != self.partition.elr {
            elr = Some(self.target_elr.clone());
        }

        if isr.is_none()
            && (!self.target_isr.is_empty() || self.elr_enabled)
            && self.target_isr != self.partition.isr
        {
            isr = Some(self.target_isr.clone());
        }

        // maybeUpdateLastKnownLeader
        if self.elr_enabled {
            if leader == NO_LEADER && self.partition.last_known_elr.is_empty() {
                last_known_elr = Some(vec![self.partition.leader]);
            } else if leader >= 0 && !self.partition.last_known_elr.is_empty() {
                last_known_elr = Some(Vec::new());
            }
        }

        if leader == NO_LEADER_CHANGE
            && isr.is_none()
            && elr.is_none()
            && last_known_elr.is_none()
            && recovery.is_none()
        {
            return None;
        }
        Some(MetadataRecord::PartitionChange {
            topic_id: self.topic_id,
            partition_id: self.partition_id,
            leader,
            isr,
            eligible_leader_replicas: elr,
            last_known_elr,
            leader_recovery_state: recovery,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::controller::records::LEADER_RECOVERED;

    fn partition(replicas: &[i32], isr: &[i32], leader: i32) -> PartitionRegistration {
        PartitionRegistration {
            replicas: replicas.to_vec(),
            isr: isr.to_vec(),
            elr: vec![],
            last_known_elr: vec![],
            leader,
            leader_recovery_state: LEADER_RECOVERED,
            leader_epoch: 0,
            partition_epoch: 0,
        }
    }

    /// (leader, isr, elr, last known elr) of a change record.
    type Change = (i32, Option<Vec<i32>>, Option<Vec<i32>>, Option<Vec<i32>>);

    fn change(record: Option<MetadataRecord>) -> Change {
        match record {
            Some(MetadataRecord::PartitionChange {
                leader,
                isr,
                eligible_leader_replicas,
                last_known_elr,
                ..
            }) => (leader, isr, eligible_leader_replicas, last_known_elr),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn fencing_the_leader_moves_leadership_to_the_next_isr_replica() {
        let p = partition(&[1, 2, 3], &[1, 2, 3], 1);
        let active = |b: i32| b != 1;
        let rec = PartitionChangeBuilder::new(&p, Uuid::nil(), 0, &active, 1, true)
            .set_target_isr(vec![2, 3])
            .build();
        assert_eq!(change(rec), (2, Some(vec![2, 3]), None, None));
    }

    #[test]
    fn fencing_the_last_isr_member_with_elr_leaves_it_eligible() {
        let p = partition(&[1], &[1], 1);
        let active = |b: i32| b != 1;
        let rec = PartitionChangeBuilder::new(&p, Uuid::nil(), 0, &active, 1, true)
            .set_target_isr(vec![])
            .build();
        assert_eq!(
            change(rec),
            (NO_LEADER, Some(vec![]), Some(vec![1]), Some(vec![1]))
        );
        // Unfencing elects it again from the ELR (clean: ISR [1]).
        let after = PartitionRegistration {
            isr: vec![],
            elr: vec![1],
            last_known_elr: vec![1],
            leader: NO_LEADER,
            ..p.clone()
        };
        let all = |_: i32| true;
        let rec = PartitionChangeBuilder::new(&after, Uuid::nil(), 0, &all, 1, true).build();
        assert_eq!(change(rec), (1, Some(vec![1]), Some(vec![]), Some(vec![])));
    }

    #[test]
    fn an_unclean_restart_elects_the_last_known_leader_as_recovering() {
        let p = PartitionRegistration {
            isr: vec![],
            elr: vec![],
            last_known_elr: vec![1],
            leader: NO_LEADER,
            ..partition(&[1], &[], NO_LEADER)
        };
        let all = |_: i32| true;
        match PartitionChangeBuilder::new(&p, Uuid::nil(), 0, &all, 1, true).build() {
            Some(MetadataRecord::PartitionChange {
                leader,
                isr,
                leader_recovery_state,
                last_known_elr,
                ..
            }) => {
                assert_eq!(leader, 1);
                assert_eq!(isr, Some(vec![1]));
                assert_eq!(leader_recovery_state, Some(LEADER_RECOVERING));
                assert_eq!(last_known_elr, Some(vec![]));
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn no_change_gives_no_record_and_preferred_election_moves_back() {
        let p = partition(&[1, 2, 3], &[1, 2, 3], 2);
        let all = |_: i32| true;
        assert!(
            PartitionChangeBuilder::new(&p, Uuid::nil(), 0, &all, 1, true)
                .build()
                .is_none()
        );
        let rec = PartitionChangeBuilder::new(&p, Uuid::nil(), 0, &all, 1, true)
            .set_election(Election::Preferred)
            .build();
        assert_eq!(change(rec), (1, None, None, None));
    }
}

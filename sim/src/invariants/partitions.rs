//! 8. partition-state: every partition registration the controller writes is one Kafka's
//!    `PartitionChangeBuilder` can produce, and a change moves its epochs and leader as Kafka's
//!    replay of a partition change does.
//!
//! Checked record by record on the controller's metadata log, replayed into the harness's own
//! image (so a check sees each change, not only the state at the end of a step):
//!
//! * the ISR, the ELR and the last known ELR name replicas of the partition, each once; the ISR
//!   and the ELR are disjoint, and no in-sync replica is also a last known eligible one
//!   (`maybePopulateTargetElr` filters both out of the ISR);
//! * the leader is -1 or in the ISR (an election moves a replica chosen from the ELR, or an
//!   unclean choice, into the ISR);
//! * an ELR exists only with ELR enabled, and only below `min.insync.replicas` (or with the one
//!   replica elected out of it as the ISR): at or above it `maybePopulateTargetElr` clears it;
//! * a change raises the partition epoch, a new leader raises the leader epoch, and neither
//!   epoch goes back;
//! * a new leader comes from the ISR or the ELR it replaces, or is the last known leader taken
//!   uncleanly (leader recovery state RECOVERING): unclean elections are off
//!   (`unclean.leader.election.enable` is false by default and not modelled otherwise);
//! * a replica a clean change drops from the ISR while the ISR falls below `min.insync.replicas`
//!   stays eligible: in the ELR, or in the last known ELR (`maybePopulateTargetElr`), except when
//!   the change empties the ISR and `maybeUpdateLastKnownLeader` replaces the last known ELR by
//!   the old leader.

use std::collections::BTreeSet;

use coordinator::controller::Controller;
use coordinator::controller::image::{MetadataImage, PartitionRegistration};
use coordinator::controller::records::{LEADER_RECOVERING, MetadataRecord, NO_LEADER};

use super::{Invariant, Violation};

/// The harness's replay of the controller's metadata log.
#[derive(Debug)]
pub struct PartitionStates {
    image: MetadataImage,
    /// Records of the log already replayed.
    cursor: usize,
}

/// What the checks read from the controller's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub min_insync_replicas: i32,
    pub elr_enabled: bool,
}

impl Default for PartitionStates {
    fn default() -> Self {
        Self::new()
    }
}

impl PartitionStates {
    /// An empty replay (its image starts before offset 0, as the controller's does).
    pub fn new() -> Self {
        Self {
            image: MetadataImage::new(),
            cursor: 0,
        }
    }

    /// Every topic the replayed metadata has, by id.
    pub fn topic_names(&self) -> Vec<(uuid::Uuid, String)> {
        self.image
            .topics
            .values()
            .map(|t| (t.id, t.name.clone()))
            .collect()
    }

    /// Replays the records the controller appended since the last call, checking each partition
    /// change. A log shorter than what was replayed is a restarted controller that lost its tail:
    /// the replay starts again from its log, without judging records it judged before.
    pub fn check(&mut self, at_ms: i64, controller: &Controller) -> Result<(), Violation> {
        let limits = Limits {
            min_insync_replicas: controller.config().min_insync_replicas,
            elr_enabled: controller.config().elr_enabled,
        };
        self.check_log(at_ms, controller.log(), limits)
    }

    fn check_log(
        &mut self,
        at_ms: i64,
        log: &[MetadataRecord],
        limits: Limits,
    ) -> Result<(), Violation> {
        if log.len() < self.cursor {
            self.image = MetadataImage::new();
            for (offset, record) in log.iter().enumerate() {
                // The controller applied the same records; one it could not apply stops it.
                let _ = self.image.apply(offset as i64, record);
            }
            self.cursor = log.len();
            return Ok(());
        }
        while self.cursor < log.len() {
            let offset = self.cursor;
            let record = &log[offset];
            self.cursor += 1;
            let Some((topic_id, partition)) = record.partition_key() else {
                let _ = self.image.apply(offset as i64, record);
                continue;
            };
            let before = self.image.partition(&topic_id, partition).cloned();
            if self.image.apply(offset as i64, record).is_err() {
                continue;
            }
            let Some(after) = self.image.partition(&topic_id, partition) else {
                continue;
            };
            let name = self
                .image
                .topic_by_id(&topic_id)
                .map(|t| t.name.clone())
                .unwrap_or_else(|| topic_id.to_string());
            let fail = |what: String| {
                Violation::new(
                    Invariant::PartitionState,
                    at_ms,
                    format!("{name}-{partition} at metadata offset {offset}: {what}"),
                )
            };
            registration(after, limits).map_err(&fail)?;
            if let Some(before) = &before {
                change(before, after, limits).map_err(&fail)?;
            }
        }
        Ok(())
    }
}

fn show(r: &PartitionRegistration) -> String {
    format!(
        "leader {} (epoch {}), isr {:?}, elr {:?}, last known elr {:?}, recovery state {}, \
         partition epoch {}",
        r.leader,
        r.leader_epoch,
        r.isr,
        r.elr,
        r.last_known_elr,
        r.leader_recovery_state,
        r.partition_epoch
    )
}

/// `min.insync.replicas` as the controller applies it to a partition of `replicas` replicas.
fn effective_min_isr(limits: Limits, replicas: usize) -> usize {
    (limits.min_insync_replicas.max(1) as usize).min(replicas.max(1))
}

/// The rules one registration obeys on its own.
pub fn registration(r: &PartitionRegistration, limits: Limits) -> Result<(), String> {
    let replicas: BTreeSet<i32> = r.replicas.iter().copied().collect();
    if replicas.len() != r.replicas.len() {
        return Err(format!("a replica is listed twice: {}", show(r)));
    }
    for (list, what) in [
        (&r.isr, "isr"),
        (&r.elr, "elr"),
        (&r.last_known_elr, "last known elr"),
    ] {
        let set: BTreeSet<i32> = list.iter().copied().collect();
        if set.len() != list.len() || !set.is_subset(&replicas) {
            return Err(format!(
                "the {what} is not a set of the replicas {:?}: {}",
                r.replicas,
                show(r)
            ));
        }
    }
    if let Some(b) = r.isr.iter().find(|b| r.elr.contains(b)) {
        return Err(format!(
            "broker {b} is in both the isr and the elr: {}",
            show(r)
        ));
    }
    if let Some(b) = r.isr.iter().find(|b| r.last_known_elr.contains(b)) {
        return Err(format!(
            "broker {b} is in both the isr and the last known elr: {}",
            show(r)
        ));
    }
    if r.leader != NO_LEADER && !r.isr.contains(&r.leader) {
        return Err(format!("the leader is not in the isr: {}", show(r)));
    }
    let elr_free = r.elr.is_empty() && r.last_known_elr.is_empty();
    if !limits.elr_enabled && !elr_free {
        return Err(format!("an elr with ELR disabled: {}", show(r)));
    }
    let min_isr = effective_min_isr(limits, r.replicas.len());
    if !r.elr.is_empty() && r.isr.len() >= min_isr && r.isr.len() > 1 {
        return Err(format!(
            "an elr with {} in-sync replicas, at or above min.insync.replicas {min_isr}: {}",
            r.isr.len(),
            show(r)
        ));
    }
    Ok(())
}

/// The rules of one change, `before` to `after`.
pub fn change(
    before: &PartitionRegistration,
    after: &PartitionRegistration,
    limits: Limits,
) -> Result<(), String> {
    let moved = || format!("{} -> {}", show(before), show(after));
    if after.partition_epoch <= before.partition_epoch {
        return Err(format!(
            "a change without a new partition epoch: {}",
            moved()
        ));
    }
    if after.leader_epoch < before.leader_epoch
        || (after.leader != before.leader && after.leader_epoch <= before.leader_epoch)
    {
        return Err(format!(
            "the leader epoch did not move with the leader: {}",
            moved()
        ));
    }
    // An unclean election leaves the partition RECOVERING (it may have been so already: only a
    // leader that replicates reports it recovered, so a topic no broker replicates here stays so).
    let unclean = after.leader_recovery_state == LEADER_RECOVERING;
    if after.leader != NO_LEADER && after.leader != before.leader {
        let from_isr = before.isr.contains(&after.leader) || before.elr.contains(&after.leader);
        let last_known = unclean && before.last_known_elr == [after.leader];
        if !from_isr && !last_known {
            return Err(format!(
                "broker {} became leader from outside the isr and the elr: {}",
                after.leader,
                moved()
            ));
        }
    }
    let min_isr = effective_min_isr(limits, after.replicas.len());
    let overridden = after.isr.is_empty() && after.last_known_elr == [before.leader];
    let dropped = before.isr.iter().find(|b| {
        !after.isr.contains(b) && !after.elr.contains(b) && !after.last_known_elr.contains(b)
    });
    if limits.elr_enabled
        && !unclean
        && !overridden
        && after.isr.len() < min_isr
        && let Some(b) = dropped
    {
        return Err(format!(
            "broker {b} left the isr below min.insync.replicas {min_isr} and is neither \
             eligible nor last known eligible: {}",
            moved()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const LIMITS: Limits = Limits {
        min_insync_replicas: 2,
        elr_enabled: true,
    };

    fn reg(
        leader: i32,
        leader_epoch: i32,
        isr: &[i32],
        elr: &[i32],
        lk: &[i32],
        pe: i32,
    ) -> PartitionRegistration {
        PartitionRegistration {
            replicas: vec![1, 2, 3],
            isr: isr.to_vec(),
            elr: elr.to_vec(),
            last_known_elr: lk.to_vec(),
            leader,
            leader_recovery_state: 0,
            leader_epoch,
            partition_epoch: pe,
        }
    }

    #[test]
    fn kafkas_own_changes_pass() {
        // Three in sync; broker 3 fenced (isr 2 = min isr: no elr); broker 2 fenced (elr {2, 3});
        // broker 2 re-registers uncleanly (out of the elr, last known); broker 2 back in sync.
        let steps = [
            reg(1, 0, &[1, 2, 3], &[], &[], 0),
            reg(1, 0, &[1, 2], &[], &[], 1),
            reg(1, 0, &[1], &[2, 3], &[], 2),
            reg(1, 0, &[1], &[3], &[2], 3),
            reg(1, 0, &[1, 2], &[], &[], 4),
        ];
        for w in steps.windows(2) {
            registration(&w[1], LIMITS).unwrap();
            change(&w[0], &w[1], LIMITS).unwrap();
        }
        // The leader fenced with the isr at min isr: the next in-sync replica leads.
        let next = reg(2, 1, &[2], &[1], &[], 2);
        registration(&next, LIMITS).unwrap();
        change(&steps[1], &next, LIMITS).unwrap();
        // The last in-sync replica fenced: leaderless, eligible, the old leader last known.
        let none = reg(-1, 1, &[], &[1, 2], &[1], 3);
        registration(&none, LIMITS).unwrap();
        change(&reg(1, 0, &[1], &[2], &[], 2), &none, LIMITS).unwrap();
        // ... and elected back out of the elr: an isr of one with an elr is allowed.
        let back = reg(2, 2, &[2], &[1], &[], 4);
        registration(&back, LIMITS).unwrap();
        change(&none, &back, LIMITS).unwrap();
    }

    #[test]
    fn a_replica_in_the_isr_and_the_elr_fires() {
        let err = registration(&reg(1, 0, &[1, 2], &[2], &[], 1), LIMITS).unwrap_err();
        assert!(
            err.contains("broker 2 is in both the isr and the elr"),
            "{err}"
        );
    }

    #[test]
    fn an_in_sync_replica_also_last_known_eligible_fires() {
        // What PartitionChangeBuilder with the last known elr's filter inverted writes.
        let err = registration(&reg(1, 0, &[1], &[], &[1], 1), LIMITS).unwrap_err();
        assert!(err.contains("isr and the last known elr"), "{err}");
    }

    #[test]
    fn a_leader_outside_the_isr_fires() {
        let err = registration(&reg(3, 1, &[1, 2], &[], &[], 1), LIMITS).unwrap_err();
        assert!(err.contains("the leader is not in the isr"), "{err}");
    }

    #[test]
    fn an_elr_at_min_isr_fires() {
        let err = registration(&reg(1, 0, &[1, 2], &[3], &[], 1), LIMITS).unwrap_err();
        assert!(err.contains("at or above min.insync.replicas 2"), "{err}");
        let off = Limits {
            elr_enabled: false,
            ..LIMITS
        };
        let err = registration(&reg(1, 0, &[1], &[3], &[], 1), off).unwrap_err();
        assert!(err.contains("ELR disabled"), "{err}");
    }

    #[test]
    fn a_replica_dropped_below_min_isr_without_eligibility_fires() {
        // What a builder that clears the elr on a clean election (or a min isr of 0) writes.
        let err = change(
            &reg(1, 0, &[1, 2], &[], &[], 1),
            &reg(1, 0, &[1], &[], &[], 2),
            LIMITS,
        )
        .unwrap_err();
        assert!(
            err.contains("broker 2 left the isr below min.insync.replicas 2"),
            "{err}"
        );
        // With min isr 1 the same change is Kafka's.
        let one = Limits {
            min_insync_replicas: 1,
            ..LIMITS
        };
        change(
            &reg(1, 0, &[1, 2], &[], &[], 1),
            &reg(1, 0, &[1], &[], &[], 2),
            one,
        )
        .unwrap();
    }

    #[test]
    fn epochs_that_do_not_move_fire() {
        let a = reg(1, 3, &[1, 2], &[], &[], 5);
        let err = change(&a, &reg(1, 3, &[1], &[2], &[], 5), LIMITS).unwrap_err();
        assert!(err.contains("without a new partition epoch"), "{err}");
        let err = change(&a, &reg(2, 3, &[2], &[1], &[], 6), LIMITS).unwrap_err();
        assert!(err.contains("leader epoch did not move"), "{err}");
    }

    #[test]
    fn a_leader_from_outside_the_isr_and_elr_fires() {
        let err = change(
            &reg(-1, 3, &[], &[1], &[2], 5),
            &reg(3, 4, &[3], &[1], &[], 6),
            LIMITS,
        )
        .unwrap_err();
        assert!(err.contains("broker 3 became leader from outside"), "{err}");
        // The last known leader taken uncleanly is Kafka's.
        let mut taken = reg(2, 4, &[2], &[], &[], 6);
        taken.leader_recovery_state = LEADER_RECOVERING;
        change(&reg(-1, 3, &[], &[], &[2], 5), &taken, LIMITS).unwrap();
        // ... also when it was RECOVERING already (no leader reported it recovered).
        let mut again = reg(-1, 5, &[], &[], &[2], 7);
        again.leader_recovery_state = LEADER_RECOVERING;
        let mut retaken = reg(2, 6, &[2], &[], &[], 8);
        retaken.leader_recovery_state = LEADER_RECOVERING;
        change(&again, &retaken, LIMITS).unwrap();
        // Taken from the last known elr without the unclean mark: not Kafka's.
        let err = change(
            &reg(-1, 3, &[], &[], &[2], 5),
            &reg(2, 4, &[2], &[], &[], 6),
            LIMITS,
        )
        .unwrap_err();
        assert!(err.contains("broker 2 became leader from outside"), "{err}");
    }

    fn log() -> Vec<MetadataRecord> {
        let topic_id = uuid::Uuid::from_u64_pair(7, 7);
        vec![
            MetadataRecord::Topic {
                name: "t".into(),
                topic_id,
            },
            MetadataRecord::Partition {
                topic_id,
                partition_id: 0,
                replicas: vec![1, 2, 3],
                isr: vec![1, 2, 3],
                eligible_leader_replicas: vec![],
                last_known_elr: vec![],
                leader: 1,
                leader_recovery_state: 0,
                leader_epoch: 0,
                partition_epoch: 0,
            },
            // Broker 3 leaves the isr and, wrongly, enters the elr at min isr.
            MetadataRecord::PartitionChange {
                topic_id,
                partition_id: 0,
                leader: coordinator::controller::records::NO_LEADER_CHANGE,
                isr: Some(vec![1, 2]),
                eligible_leader_replicas: Some(vec![3]),
                last_known_elr: None,
                leader_recovery_state: None,
            },
        ]
    }

    #[test]
    fn the_log_is_judged_record_by_record_and_once() {
        let log = log();
        let mut states = PartitionStates::new();
        states.check_log(10, &log[..2], LIMITS).unwrap();
        let v = states.check_log(20, &log, LIMITS).unwrap_err();
        assert_eq!(v.invariant, Invariant::PartitionState);
        assert_eq!(v.at_ms, 20);
        assert!(
            v.detail
                .starts_with("t-0 at metadata offset 2: an elr with 2 in-sync replicas"),
            "{}",
            v.detail
        );
        // Judged once: the next step does not report it again.
        states.check_log(30, &log, LIMITS).unwrap();
        // A restarted controller whose log lost the tail: replayed again, not judged.
        states.check_log(40, &log[..2], LIMITS).unwrap();
        assert_eq!(states.cursor, 2);
        assert_eq!(
            states
                .image
                .partition(&uuid::Uuid::from_u64_pair(7, 7), 0)
                .map(|r| r.isr.clone()),
            Some(vec![1, 2, 3])
        );
    }
}

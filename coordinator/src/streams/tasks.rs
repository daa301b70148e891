//! Task sets: Kafka's `TasksTuple` (target assignments: active, standby and warm-up task sets) and
//! `TasksTupleWithEpochs` (a member's assigned or pending tasks, active tasks carrying the epoch at
//! which each was assigned), with their conversions to and from records and responses.
//!
//! Sets are kept sorted (`BTreeMap`/`BTreeSet`); where Kafka's output follows the iteration order of
//! the `java.util.HashMap` holding them, the order is recomputed from the keys with
//! [`java_hash_map_order`].

use std::collections::{BTreeMap, BTreeSet};

use crate::records::streams::TaskIds as RecordTaskIds;

/// Subtopology id -> task numbers.
pub type Tasks = BTreeMap<String, BTreeSet<i32>>;

/// Subtopology id -> task number -> assignment epoch.
pub type ActiveTasks = BTreeMap<String, BTreeMap<i32, i32>>;

/// A target assignment (`TasksTuple`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TasksTuple {
    pub active: Tasks,
    pub standby: Tasks,
    pub warmup: Tasks,
}

impl TasksTuple {
    pub fn is_empty(&self) -> bool {
        self.active.is_empty() && self.standby.is_empty() && self.warmup.is_empty()
    }

    /// `TasksTuple.sameTasks`: the same task sets as `other`, ignoring active-task epochs.
    pub fn same_tasks(&self, other: &TasksWithEpochs) -> bool {
        self.warmup == other.warmup
            && self.standby == other.standby
            && self.active.len() == other.active.len()
            && self.active.iter().all(|(sub, parts)| {
                other
                    .active
                    .get(sub)
                    .is_some_and(|o| o.len() == parts.len() && o.keys().eq(parts.iter()))
            })
    }

    /// `TasksTuple.containsAny`: whether any task of `self` is in `other`, role by role.
    pub fn contains_any(&self, other: &TasksWithEpochs) -> bool {
        self.active.iter().any(|(sub, parts)| {
            other
                .active
                .get(sub)
                .is_some_and(|o| parts.iter().any(|p| o.contains_key(p)))
        }) || intersects(&self.standby, &other.standby)
            || intersects(&self.warmup, &other.warmup)
    }

    /// From the record of a target assignment (`TasksTuple.fromTargetAssignmentRecord`).
    pub fn from_record(
        active: &[RecordTaskIds],
        standby: &[RecordTaskIds],
        warmup: &[RecordTaskIds],
    ) -> Self {
        Self {
            active: tasks_from_record(active),
            standby: tasks_from_record(standby),
            warmup: tasks_from_record(warmup),
        }
    }
}

fn intersects(a: &Tasks, b: &Tasks) -> bool {
    a.iter().any(|(sub, parts)| {
        b.get(sub)
            .is_some_and(|o| parts.iter().any(|p| o.contains(p)))
    })
}

/// A member's assigned tasks or tasks pending revocation (`TasksTupleWithEpochs`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TasksWithEpochs {
    pub active: ActiveTasks,
    pub standby: Tasks,
    pub warmup: Tasks,
}

impl TasksWithEpochs {
    pub fn is_empty(&self) -> bool {
        self.active.is_empty() && self.standby.is_empty() && self.warmup.is_empty()
    }

    /// Active tasks without their epochs.
    pub fn active_tasks(&self) -> Tasks {
        self.active
            .iter()
            .map(|(s, p)| (s.clone(), p.keys().copied().collect()))
            .collect()
    }

    /// `TasksTupleWithEpochs.merge`: `other`'s active epochs win for tasks in both.
    pub fn merge(&self, other: &TasksWithEpochs) -> TasksWithEpochs {
        let mut out = self.clone();
        for (sub, parts) in &other.active {
            let entry = out.active.entry(sub.clone()).or_default();
            for (p, e) in parts {
                entry.insert(*p, *e);
            }
        }
        for (sub, parts) in &other.standby {
            out.standby
                .entry(sub.clone())
                .or_default()
                .extend(parts.iter().copied());
        }
        for (sub, parts) in &other.warmup {
            out.warmup
                .entry(sub.clone())
                .or_default()
                .extend(parts.iter().copied());
        }
        out
    }

    /// `standbyAndWarmupTasks`: the union of standby and warm-up tasks.
    pub fn standby_and_warmup(&self) -> Tasks {
        let mut out = self.standby.clone();
        for (sub, parts) in &self.warmup {
            out.entry(sub.clone())
                .or_default()
                .extend(parts.iter().copied());
        }
        out
    }

    /// From a current-assignment record. Missing or mismatched assignment epochs fall back to the
    /// member epoch, as `TasksTupleWithEpochs.fromCurrentAssignmentRecord` does.
    pub fn from_record(
        active: &[RecordTaskIds],
        standby: &[RecordTaskIds],
        warmup: &[RecordTaskIds],
        member_epoch: i32,
    ) -> Self {
        let mut act = ActiveTasks::new();
        for t in active {
            let mut parts = BTreeMap::new();
            match &t.assignment_epochs {
                Some(epochs) if epochs.len() == t.partitions.len() => {
                    for (p, e) in t.partitions.iter().zip(epochs) {
                        parts.insert(*p, *e);
                    }
                }
                _ => {
                    for p in &t.partitions {
                        parts.insert(*p, member_epoch);
                    }
                }
            }
            act.insert(t.subtopology_id.clone(), parts);
        }
        Self {
            active: act,
            standby: tasks_from_record(standby),
            warmup: tasks_from_record(warmup),
        }
    }

    /// Every active task's epoch set to 0 (`resetAssignedTasksEpochsToZero`).
    pub fn with_active_epochs_reset(&self) -> Self {
        let mut out = self.clone();
        for parts in out.active.values_mut() {
            for e in parts.values_mut() {
                *e = 0;
            }
        }
        out
    }
}

fn tasks_from_record(list: &[RecordTaskIds]) -> Tasks {
    let mut out = Tasks::new();
    for t in list {
        // Later entries for the same subtopology replace earlier ones (Java `Collectors.toMap` would
        // throw on duplicates; records written by a coordinator never have them).
        out.insert(
            t.subtopology_id.clone(),
            t.partitions.iter().copied().collect(),
        );
    }
    out
}

/// Task sets as record entries: subtopologies sorted, partitions sorted, no epochs.
pub fn tasks_to_record(tasks: &Tasks) -> Vec<RecordTaskIds> {
    tasks
        .iter()
        .map(|(s, p)| RecordTaskIds {
            subtopology_id: s.clone(),
            partitions: p.iter().copied().collect(),
            assignment_epochs: None,
        })
        .collect()
}

/// Active tasks as record entries with their assignment epochs.
pub fn active_to_record(tasks: &ActiveTasks) -> Vec<RecordTaskIds> {
    tasks
        .iter()
        .map(|(s, p)| RecordTaskIds {
            subtopology_id: s.clone(),
            partitions: p.keys().copied().collect(),
            assignment_epochs: Some(p.values().copied().collect()),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(pairs: &[(&str, &[i32])]) -> Tasks {
        pairs
            .iter()
            .map(|(s, p)| (s.to_string(), p.iter().copied().collect()))
            .collect()
    }

    #[test]
    fn same_tasks_ignores_epochs() {
        let target = TasksTuple {
            active: t(&[("s", &[1, 2])]),
            ..Default::default()
        };
        let mut assigned = TasksWithEpochs::default();
        assigned
            .active
            .insert("s".into(), [(1, 5), (2, 7)].into_iter().collect());
        assert!(target.same_tasks(&assigned));
        assigned.active.get_mut("s").unwrap().insert(3, 1);
        assert!(!target.same_tasks(&assigned));
    }

    #[test]
    fn record_epochs_fall_back_to_member_epoch() {
        let rec = vec![RecordTaskIds {
            subtopology_id: "s".into(),
            partitions: vec![0, 1],
            assignment_epochs: Some(vec![3]),
        }];
        let w = TasksWithEpochs::from_record(&rec, &[], &[], 9);
        assert_eq!(w.active["s"][&0], 9);
        assert_eq!(w.active["s"][&1], 9);
    }
}

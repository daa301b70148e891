//! Reconciliation of one member towards its target (Kafka 4.4's `CurrentAssignmentBuilder`), with the
//! process-level ownership rules and the in-place role changes of 4.4 (streams-44-delta.md §6.5).

use std::collections::{BTreeMap, BTreeSet};

use protocol::ErrorCode;

use crate::error::ApiError;
use crate::streams::group::Ownership;
use crate::streams::member::{MemberState, StreamsGroupMember};
use crate::streams::tasks::{ActiveTasks, Tasks, TasksTuple, TasksWithEpochs};

/// Who currently holds a task, by process (the group's ownership maps).
pub trait TaskOwners {
    /// The process running the task as active, if any.
    fn active_owner(&self, subtopology: &str, partition: i32) -> Option<&str>;
    /// Whether `process` holds the task as standby.
    fn standby_held_by(&self, subtopology: &str, partition: i32, process: &str) -> bool;
    /// Whether `process` holds the task as warm-up.
    fn warmup_held_by(&self, subtopology: &str, partition: i32, process: &str) -> bool;
}

impl TaskOwners for Ownership {
    fn active_owner(&self, subtopology: &str, partition: i32) -> Option<&str> {
        Ownership::active_owner(self, subtopology, partition)
    }
    fn standby_held_by(&self, subtopology: &str, partition: i32, process: &str) -> bool {
        Ownership::standby_held_by(self, subtopology, partition, process)
    }
    fn warmup_held_by(&self, subtopology: &str, partition: i32, process: &str) -> bool {
        Ownership::warmup_held_by(self, subtopology, partition, process)
    }
}

/// Inputs of one reconciliation step.
pub struct Reconciler<'a> {
    pub member: &'a StreamsGroupMember,
    pub target_epoch: i32,
    pub target: &'a TasksTuple,
    pub ownership: &'a dyn TaskOwners,
    /// What the member reported owning; `None` when the heartbeat did not carry all three lists.
    pub owned: Option<&'a TasksTuple>,
}

fn fenced_unknown_state() -> ApiError {
    ApiError::new(
        ErrorCode::FencedMemberEpoch,
        "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin.",
    )
}

impl Reconciler<'_> {
    /// `build()`: the member after this step (equal to the input when nothing changes).
    pub fn build(&self) -> Result<StreamsGroupMember, ApiError> {
        let m = self.member;
        match m.state {
            MemberState::Stable => {
                if m.member_epoch != self.target_epoch {
                    Ok(self.compute_next(m.member_epoch))
                } else {
                    Ok(m.clone())
                }
            }
            MemberState::UnrevokedTasks => {
                if self.has_not_released(&m.pending_revocation) {
                    Ok(m.clone())
                } else {
                    Ok(self.compute_next(m.member_epoch + 1))
                }
            }
            MemberState::UnreleasedTasks => Ok(self.compute_next(m.member_epoch)),
            MemberState::Unknown => match self.owned {
                Some(owned) if owned.is_empty() => Ok(self.compute_next(self.target_epoch)),
                _ => Err(fenced_unknown_state()),
            },
        }
    }

    /// `hasNotReleased`: no report, or the report still names one of `tasks`.
    fn has_not_released(&self, tasks: &TasksWithEpochs) -> bool {
        match self.owned {
            None => true,
            Some(owned) => owned.contains_any(tasks),
        }
    }

    fn process(&self) -> &str {
        &self.member.process_id
    }

    fn held_by_another_on_process(
        &self,
        held: impl Fn(&str, i32, &str) -> bool,
        own: &Tasks,
        sub: &str,
        p: i32,
    ) -> bool {
        held(sub, p, self.process()) && !own.get(sub).is_some_and(|s| s.contains(&p))
    }

    fn unreleased_active(&self, a: &TasksWithEpochs, sub: &str, p: i32) -> bool {
        let o = self.ownership;
        o.active_owner(sub, p).is_some()
            || self.held_by_another_on_process(
                |s, p, pr| o.standby_held_by(s, p, pr),
                &a.standby,
                sub,
                p,
            )
            || self.held_by_another_on_process(
                |s, p, pr| o.warmup_held_by(s, p, pr),
                &a.warmup,
                sub,
                p,
            )
    }

    fn unreleased_standby(&self, a: &TasksWithEpochs, sub: &str, p: i32) -> bool {
        let o = self.ownership;
        let run_by_another = o.active_owner(sub, p) == Some(self.process())
            && !a.active.get(sub).is_some_and(|m| m.contains_key(&p));
        run_by_another
            || o.standby_held_by(sub, p, self.process())
            || self.held_by_another_on_process(
                |s, p, pr| o.warmup_held_by(s, p, pr),
                &a.warmup,
                sub,
                p,
            )
    }

    fn unreleased_warmup(&self, a: &TasksWithEpochs, sub: &str, p: i32) -> bool {
        let o = self.ownership;
        o.active_owner(sub, p) == Some(self.process())
            || self.held_by_another_on_process(
                |s, p, pr| o.standby_held_by(s, p, pr),
                &a.standby,
                sub,
                p,
            )
            || o.warmup_held_by(sub, p, self.process())
    }

    /// `computeNextAssignment(memberEpoch, member.assignedTasks())`.
    fn compute_next(&self, member_epoch: i32) -> StreamsGroupMember {
        let a = &self.member.assigned;
        let t = self.target;
        let target_epoch = self.target_epoch;

        // Active tasks keep their epochs; new ones get the target epoch.
        let mut active_assigned = ActiveTasks::new();
        let mut active_revoke = ActiveTasks::new();
        let mut active_add = ActiveTasks::new();
        let mut unreleased = false;
        let subs: BTreeSet<&String> = t.active.keys().chain(a.active.keys()).collect();
        for sub in subs {
            let empty_cur = BTreeMap::new();
            let empty_tgt = BTreeSet::new();
            let cur = a.active.get(sub).unwrap_or(&empty_cur);
            let tgt = t.active.get(sub).unwrap_or(&empty_tgt);
            let kept: BTreeMap<i32, i32> = cur
                .iter()
                .filter(|(p, _)| tgt.contains(p))
                .map(|(p, e)| (*p, *e))
                .collect();
            let revoke: BTreeMap<i32, i32> = cur
                .iter()
                .filter(|(p, _)| !kept.contains_key(p))
                .map(|(p, e)| (*p, *e))
                .collect();
            let mut add: BTreeMap<i32, i32> = BTreeMap::new();
            for p in tgt {
                if kept.contains_key(p) {
                    continue;
                }
                if self.unreleased_active(a, sub, *p) {
                    unreleased = true;
                } else {
                    add.insert(*p, target_epoch);
                }
            }
            if !kept.is_empty() {
                active_assigned.insert(sub.clone(), kept);
            }
            if !revoke.is_empty() {
                active_revoke.insert(sub.clone(), revoke);
            }
            if !add.is_empty() {
                active_add.insert(sub.clone(), add);
            }
        }

        let (mut standby_assigned, mut standby_revoke, mut standby_add, u) =
            diff(&a.standby, &t.standby, |sub, p| {
                self.unreleased_standby(a, sub, p)
            });
        unreleased |= u;
        let (mut warmup_assigned, mut warmup_revoke, mut warmup_add, u) =
            diff(&a.warmup, &t.warmup, |sub, p| {
                self.unreleased_warmup(a, sub, p)
            });
        unreleased |= u;

        // Role changes that do not depend on another member take effect at once.
        // Demotion active -> standby: the standby is granted now; the active stays pending revocation.
        for (sub, parts) in &a.active {
            for p in parts.keys() {
                if contains(&standby_add, sub, *p) {
                    grant_now(&mut standby_add, &mut standby_assigned, sub, *p);
                }
            }
        }
        // Standby -> warm-up and warm-up -> standby conversions.
        convert_role(
            &a.standby,
            &mut standby_revoke,
            &mut warmup_add,
            &mut warmup_assigned,
        );
        convert_role(
            &a.warmup,
            &mut warmup_revoke,
            &mut standby_add,
            &mut standby_assigned,
        );

        // Promotion to active waits until the active task is granted.
        drop_promoted(&a.standby, &t.active, &mut standby_revoke);
        drop_promoted(&a.warmup, &t.active, &mut warmup_revoke);
        let pending_revocation = TasksWithEpochs {
            active: active_revoke,
            standby: standby_revoke,
            warmup: warmup_revoke,
        };
        let has_to_revoke =
            !pending_revocation.is_empty() && self.has_not_released(&pending_revocation);
        keep_promoted(
            &a.standby,
            &t.active,
            &active_add,
            has_to_revoke,
            &mut standby_assigned,
        );
        keep_promoted(
            &a.warmup,
            &t.active,
            &active_add,
            has_to_revoke,
            &mut warmup_assigned,
        );

        let assigned = TasksWithEpochs {
            active: active_assigned,
            standby: standby_assigned,
            warmup: warmup_assigned,
        };
        let pending_assignment = TasksWithEpochs {
            active: active_add,
            standby: standby_add,
            warmup: warmup_add,
        };
        self.build_new_member(
            member_epoch,
            pending_revocation,
            assigned,
            pending_assignment,
            unreleased,
        )
    }

    fn build_new_member(
        &self,
        member_epoch: i32,
        pending_revocation: TasksWithEpochs,
        assigned: TasksWithEpochs,
        pending_assignment: TasksWithEpochs,
        unreleased: bool,
    ) -> StreamsGroupMember {
        let mut m = self.member.clone();
        let has_to_revoke =
            !pending_revocation.is_empty() && self.has_not_released(&pending_revocation);
        m.previous_member_epoch = m.member_epoch;
        if has_to_revoke {
            m.state = MemberState::UnrevokedTasks;
            m.member_epoch = member_epoch;
            m.assigned = assigned;
            m.pending_revocation = pending_revocation;
        } else if !pending_assignment.is_empty() {
            m.state = if unreleased {
                MemberState::UnreleasedTasks
            } else {
                MemberState::Stable
            };
            m.member_epoch = self.target_epoch;
            m.assigned = assigned.merge(&pending_assignment);
            m.pending_revocation = TasksWithEpochs::default();
        } else {
            m.state = if unreleased {
                MemberState::UnreleasedTasks
            } else {
                MemberState::Stable
            };
            m.member_epoch = self.target_epoch;
            m.assigned = assigned;
            m.pending_revocation = TasksWithEpochs::default();
        }
        m
    }
}

type Diff = (Tasks, Tasks, Tasks, bool);

/// `computeAssignmentDifference` for standby or warm-up tasks.
fn diff(current: &Tasks, target: &Tasks, unreleased: impl Fn(&str, i32) -> bool) -> Diff {
    let mut assigned = Tasks::new();
    let mut revoke = Tasks::new();
    let mut add = Tasks::new();
    let mut any_unreleased = false;
    let subs: BTreeSet<&String> = target.keys().chain(current.keys()).collect();
    let empty = BTreeSet::new();
    for sub in subs {
        let cur = current.get(sub).unwrap_or(&empty);
        let tgt = target.get(sub).unwrap_or(&empty);
        let kept: BTreeSet<i32> = cur.intersection(tgt).copied().collect();
        let rev: BTreeSet<i32> = cur.difference(&kept).copied().collect();
        let mut new: BTreeSet<i32> = BTreeSet::new();
        for p in tgt.difference(&kept) {
            if unreleased(sub, *p) {
                any_unreleased = true;
            } else {
                new.insert(*p);
            }
        }
        if !kept.is_empty() {
            assigned.insert(sub.clone(), kept);
        }
        if !rev.is_empty() {
            revoke.insert(sub.clone(), rev);
        }
        if !new.is_empty() {
            add.insert(sub.clone(), new);
        }
    }
    (assigned, revoke, add, any_unreleased)
}

fn contains(tasks: &Tasks, sub: &str, p: i32) -> bool {
    tasks.get(sub).is_some_and(|s| s.contains(&p))
}

fn remove_task(tasks: &mut Tasks, sub: &str, p: i32) {
    if let Some(set) = tasks.get_mut(sub)
        && set.remove(&p)
        && set.is_empty()
    {
        tasks.remove(sub);
    }
}

fn grant_now(pending: &mut Tasks, assigned: &mut Tasks, sub: &str, p: i32) {
    remove_task(pending, sub, p);
    assigned.entry(sub.to_string()).or_default().insert(p);
}

/// `convertReplicaRole`.
fn convert_role(
    outgoing: &Tasks,
    outgoing_revoke: &mut Tasks,
    incoming_add: &mut Tasks,
    incoming_assigned: &mut Tasks,
) {
    for (sub, parts) in outgoing {
        for p in parts {
            if contains(incoming_add, sub, *p) {
                grant_now(incoming_add, incoming_assigned, sub, *p);
                remove_task(outgoing_revoke, sub, *p);
            }
        }
    }
}

/// `dropPromotedTasksFromRevocation`.
fn drop_promoted(replicas: &Tasks, target_active: &Tasks, revoke: &mut Tasks) {
    for (sub, parts) in replicas {
        for p in parts {
            if contains(target_active, sub, *p) {
                remove_task(revoke, sub, *p);
            }
        }
    }
}

/// `keepPromotedTasksUntilGranted`.
fn keep_promoted(
    replicas: &Tasks,
    target_active: &Tasks,
    active_add: &ActiveTasks,
    has_to_revoke: bool,
    assigned: &mut Tasks,
) {
    for (sub, parts) in replicas {
        for p in parts {
            let promoted_now =
                !has_to_revoke && active_add.get(sub).is_some_and(|m| m.contains_key(p));
            if contains(target_active, sub, *p) && !promoted_now {
                assigned.entry(sub.clone()).or_default().insert(*p);
            }
        }
    }
}

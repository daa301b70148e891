//! streams-protocol.md §8 scenarios 39-52 (Kafka's `CurrentAssignmentBuilderTest`, each run for the
//! active, standby and warm-up roles) and the in-place role changes of streams-44-delta.md §6.5.

mod streams_common;

use coordinator::streams::member::{MemberState, StreamsGroupMember};
use coordinator::streams::reconcile::{Reconciler, TaskOwners};
use coordinator::streams::tasks::{ActiveTasks, Tasks, TasksTuple, TasksWithEpochs};
use protocol::ErrorCode;
use streams_common::{active_with, tasks};

const PROCESS: &str = "process_id";
const S1: &str = "subtopology1";
const S2: &str = "subtopology2";

/// Ownership answered by closures, as Kafka's tests pass lambdas.
type ActiveFn = Box<dyn Fn(&str, i32) -> Option<&'static str>>;
type HoldersFn = Box<dyn Fn(&str, i32) -> Vec<&'static str>>;

struct Owners {
    active: ActiveFn,
    standby: HoldersFn,
    warmup: HoldersFn,
}

impl Owners {
    fn active(f: impl Fn(&str, i32) -> Option<&'static str> + 'static) -> Self {
        Self {
            active: Box::new(f),
            standby: Box::new(|_, _| vec![]),
            warmup: Box::new(|_, _| vec![]),
        }
    }
    fn none() -> Self {
        Self::active(|_, _| None)
    }
    fn all_by(p: &'static str) -> Self {
        Self::active(move |_, _| Some(p))
    }
    fn standby(mut self, f: impl Fn(&str, i32) -> Vec<&'static str> + 'static) -> Self {
        self.standby = Box::new(f);
        self
    }
    fn warmup(mut self, f: impl Fn(&str, i32) -> Vec<&'static str> + 'static) -> Self {
        self.warmup = Box::new(f);
        self
    }
}

impl TaskOwners for Owners {
    fn active_owner(&self, s: &str, p: i32) -> Option<&str> {
        (self.active)(s, p)
    }
    fn standby_held_by(&self, s: &str, p: i32, process: &str) -> bool {
        (self.standby)(s, p).contains(&process)
    }
    fn warmup_held_by(&self, s: &str, p: i32, process: &str) -> bool {
        (self.warmup)(s, p).contains(&process)
    }
}

#[derive(Clone, Copy, Debug)]
enum Role {
    Active,
    Standby,
    Warmup,
}

const ROLES: [Role; 3] = [Role::Active, Role::Standby, Role::Warmup];

fn epochs(epoch: i32, t: &Tasks) -> ActiveTasks {
    t.iter()
        .map(|(s, p)| (s.clone(), p.iter().map(|x| (*x, epoch)).collect()))
        .collect()
}

/// `mkTasksTupleWithCommonEpoch(role, epoch, ...)`.
fn with_role(role: Role, epoch: i32, list: &[(&str, &[i32])]) -> TasksWithEpochs {
    let t = tasks(list);
    match role {
        Role::Active => TasksWithEpochs {
            active: epochs(epoch, &t),
            ..Default::default()
        },
        Role::Standby => TasksWithEpochs {
            standby: t,
            ..Default::default()
        },
        Role::Warmup => TasksWithEpochs {
            warmup: t,
            ..Default::default()
        },
    }
}

/// `mkTasksTuple(role, ...)`.
fn target(role: Role, list: &[(&str, &[i32])]) -> TasksTuple {
    let t = tasks(list);
    match role {
        Role::Active => TasksTuple {
            active: t,
            ..Default::default()
        },
        Role::Standby => TasksTuple {
            standby: t,
            ..Default::default()
        },
        Role::Warmup => TasksTuple {
            warmup: t,
            ..Default::default()
        },
    }
}

fn m(
    state: MemberState,
    epoch: i32,
    prev: i32,
    assigned: TasksWithEpochs,
    pending: TasksWithEpochs,
) -> StreamsGroupMember {
    let mut m = StreamsGroupMember::with_defaults("member");
    m.state = state;
    m.process_id = PROCESS.to_string();
    m.member_epoch = epoch;
    m.previous_member_epoch = prev;
    m.assigned = assigned;
    m.pending_revocation = pending;
    m
}

fn run(
    member: &StreamsGroupMember,
    epoch: i32,
    t: &TasksTuple,
    owners: &Owners,
    owned: Option<&TasksTuple>,
) -> Result<StreamsGroupMember, coordinator::ApiError> {
    Reconciler {
        member,
        target_epoch: epoch,
        target: t,
        ownership: owners,
        owned,
    }
    .build()
}

const BOTH: &[(&str, &[i32])] = &[(S1, &[1, 2]), (S2, &[3, 4])];
/// What the member keeps in scenarios 44-47 and 50 while 1 and 4 leave it.
const KEPT: &[(&str, &[i32])] = &[(S1, &[2, 3]), (S2, &[5, 6])];
/// The one task the §6.5 role changes move between roles.
const TASK0: &[(&str, &[i32])] = &[(S1, &[0])];

/// A member with nothing pending revocation.
fn settled(
    state: MemberState,
    epoch: i32,
    prev: i32,
    assigned: TasksWithEpochs,
) -> StreamsGroupMember {
    m(state, epoch, prev, assigned, Default::default())
}

/// A stable member at epoch 10 owning `assigned`: where most scenarios start.
fn stable10(assigned: TasksWithEpochs) -> StreamsGroupMember {
    settled(MemberState::Stable, 10, 10, assigned)
}

/// A member owning [`KEPT`] at epoch 10 while 1 and 4 still await revocation (scenarios 44-47).
fn revoking_1_and_4(role: Role, epoch: i32) -> StreamsGroupMember {
    m(
        MemberState::UnrevokedTasks,
        epoch,
        10,
        with_role(role, 10, KEPT),
        with_role(role, 10, &[(S1, &[1]), (S2, &[4])]),
    )
}

/// One reconciliation in which the member reports no owned tasks, expected to succeed.
fn step(
    member: &StreamsGroupMember,
    epoch: i32,
    t: &TasksTuple,
    owners: &Owners,
) -> StreamsGroupMember {
    run(member, epoch, t, owners, None).unwrap()
}

/// Standby or warm-up holders: this process holds exactly the partitions `ps`.
fn here_on(ps: &'static [i32]) -> impl Fn(&str, i32) -> Vec<&'static str> {
    move |_, p| {
        if ps.contains(&p) {
            vec![PROCESS]
        } else {
            vec![]
        }
    }
}

#[test]
fn s8_39_stable_to_stable() {
    for role in ROLES {
        let member = stable10(with_role(role, 10, BOTH));
        let out = step(&member, 11, &target(role, BOTH), &Owners::all_by(PROCESS));
        assert_eq!(
            out,
            settled(MemberState::Stable, 11, 10, with_role(role, 10, BOTH)),
            "{role:?}"
        );
    }
}

#[test]
fn s8_40_stable_to_unrevoked_tasks() {
    for role in ROLES {
        let member = stable10(with_role(role, 10, BOTH));
        let t = target(role, &[(S1, &[2, 3]), (S2, &[4, 5])]);
        let out = step(&member, 11, &t, &Owners::none());
        assert_eq!(
            out,
            m(
                MemberState::UnrevokedTasks,
                10,
                10,
                with_role(role, 10, &[(S1, &[2]), (S2, &[4])]),
                with_role(role, 10, &[(S1, &[1]), (S2, &[3])])
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_41_stable_to_unrevoked_with_empty_assignment() {
    for role in ROLES {
        let member = stable10(with_role(role, 10, BOTH));
        let out = step(
            &member,
            11,
            &TasksTuple::default(),
            &Owners::all_by(PROCESS),
        );
        assert_eq!(
            out,
            m(
                MemberState::UnrevokedTasks,
                10,
                10,
                Default::default(),
                with_role(role, 10, BOTH)
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_42_stable_to_unreleased_tasks() {
    for role in ROLES {
        let member = stable10(with_role(role, 10, BOTH));
        let t = target(role, &[(S1, &[1, 2, 4]), (S2, &[3, 4, 7])]);
        // Every task runs as active on the member's own process: the new ones are unreleased.
        let owners = Owners::all_by(PROCESS)
            .standby(here_on(&[4, 7]))
            .warmup(here_on(&[4, 7]));
        let out = step(&member, 11, &t, &owners);
        assert_eq!(
            out,
            settled(
                MemberState::UnreleasedTasks,
                11,
                10,
                with_role(role, 10, BOTH)
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_43_stable_to_unreleased_with_owned_tasks_not_having_revoked_tasks() {
    for role in ROLES {
        let member = stable10(with_role(role, 10, BOTH));
        let t = target(role, &[(S1, &[1, 2]), (S2, &[3, 5])]);
        let owners = Owners::active(|s, _| if s == S2 { Some(PROCESS) } else { None })
            .standby(|s, _| if s == S2 { vec![PROCESS] } else { vec![] })
            .warmup(|s, _| if s == S2 { vec![PROCESS] } else { vec![] });
        let owned = TasksTuple::default();
        let out = run(&member, 11, &t, &owners, Some(&owned)).unwrap();
        assert_eq!(
            out,
            settled(
                MemberState::UnreleasedTasks,
                11,
                10,
                with_role(role, 10, &[(S1, &[1, 2]), (S2, &[3])])
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_44_unrevoked_tasks_to_stable() {
    for role in ROLES {
        let member = revoking_1_and_4(role, 10);
        let owned = target(role, KEPT);
        let out = run(
            &member,
            11,
            &target(role, KEPT),
            &Owners::none(),
            Some(&owned),
        )
        .unwrap();
        assert_eq!(
            out,
            settled(MemberState::Stable, 11, 10, with_role(role, 10, KEPT)),
            "{role:?}"
        );
    }
}

#[test]
fn s8_45_remains_in_unrevoked_tasks() {
    for role in ROLES {
        let member = revoking_1_and_4(role, 10);
        let t = target(role, &[(S1, &[3]), (S2, &[6])]);
        assert_eq!(step(&member, 12, &t, &Owners::none()), member, "{role:?}");
        let still1 = target(role, &[(S1, &[1, 2, 3]), (S2, &[5, 6])]);
        assert_eq!(
            run(&member, 12, &t, &Owners::none(), Some(&still1)).unwrap(),
            member
        );
        let still4 = target(role, &[(S1, &[2, 3]), (S2, &[4, 5, 6])]);
        assert_eq!(
            run(&member, 12, &t, &Owners::none(), Some(&still4)).unwrap(),
            member
        );
    }
}

#[test]
fn s8_46_unrevoked_tasks_to_unrevoked_tasks() {
    for role in ROLES {
        let member = revoking_1_and_4(role, 10);
        let owned = target(role, KEPT);
        let t = target(role, &[(S1, &[3]), (S2, &[6])]);
        let out = run(&member, 12, &t, &Owners::none(), Some(&owned)).unwrap();
        assert_eq!(
            out,
            m(
                MemberState::UnrevokedTasks,
                11,
                10,
                with_role(role, 10, &[(S1, &[3]), (S2, &[6])]),
                with_role(role, 10, &[(S1, &[2]), (S2, &[5])])
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_47_unrevoked_tasks_to_unreleased_tasks() {
    for role in ROLES {
        let member = revoking_1_and_4(role, 11);
        let owned = target(role, KEPT);
        let t = target(role, &[(S1, &[1, 2, 3]), (S2, &[4, 5, 6])]);
        let owners = Owners::all_by(PROCESS)
            .standby(here_on(&[1, 4]))
            .warmup(here_on(&[1, 4]));
        let out = run(&member, 11, &t, &owners, Some(&owned)).unwrap();
        assert_eq!(
            out,
            settled(
                MemberState::UnreleasedTasks,
                11,
                11,
                with_role(role, 10, KEPT)
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_48_unreleased_tasks_to_stable_with_new_tasks() {
    for role in ROLES {
        let member = settled(
            MemberState::UnreleasedTasks,
            11,
            11,
            with_role(role, 11, BOTH),
        );
        let t = target(role, &[(S1, &[1, 2, 4]), (S2, &[3, 4, 7])]);
        let out = step(&member, 11, &t, &Owners::none());
        assert_eq!(
            out,
            settled(
                MemberState::Stable,
                11,
                11,
                with_role(role, 11, &[(S1, &[1, 2, 4]), (S2, &[3, 4, 7])])
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_49_unreleased_tasks_to_unreleased_tasks_any_active_owner() {
    let member = settled(
        MemberState::UnreleasedTasks,
        11,
        11,
        with_role(Role::Active, 11, &[(S1, &[1, 2]), (S2, &[5, 6])]),
    );
    let t = target(Role::Active, &[(S1, &[1, 2, 4]), (S2, &[5, 6, 7])]);
    let owners = Owners::active(|s, p| {
        if s == S1 && p == 4 {
            Some("anyOtherProcess")
        } else {
            None
        }
    });
    let out = step(&member, 11, &t, &owners);
    assert_eq!(
        out,
        settled(
            MemberState::UnreleasedTasks,
            11,
            11,
            with_role(Role::Active, 11, &[(S1, &[1, 2]), (S2, &[5, 6, 7])])
        )
    );
}

#[test]
fn s8_50_unreleased_tasks_to_unrevoked_tasks() {
    for role in ROLES {
        let member = settled(
            MemberState::UnreleasedTasks,
            11,
            10,
            with_role(role, 11, KEPT),
        );
        let t = target(role, &[(S1, &[3]), (S2, &[6])]);
        let out = step(&member, 12, &t, &Owners::none());
        assert_eq!(
            out,
            m(
                MemberState::UnrevokedTasks,
                11,
                11,
                with_role(role, 11, &[(S1, &[3]), (S2, &[6])]),
                with_role(role, 11, &[(S1, &[2]), (S2, &[5])])
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_51_unknown_state() {
    for role in ROLES {
        let member = m(
            MemberState::Unknown,
            11,
            11,
            with_role(role, 11, &[(S1, &[3]), (S2, &[6])]),
            with_role(role, 11, &[(S1, &[2]), (S2, &[5])]),
        );
        let t = target(role, &[(S1, &[3]), (S2, &[6])]);
        let e = run(&member, 12, &t, &Owners::none(), None).unwrap_err();
        assert_eq!(e.code, ErrorCode::FencedMemberEpoch);
        assert_eq!(
            e.message.as_deref(),
            Some(
                "The streams group member is in a unknown state. The member must abandon all its tasks and rejoin."
            )
        );
        let owned = TasksTuple::default();
        let out = run(&member, 12, &t, &Owners::none(), Some(&owned)).unwrap();
        assert_eq!(
            out,
            settled(
                MemberState::Stable,
                12,
                11,
                with_role(role, 11, &[(S1, &[3]), (S2, &[6])])
            ),
            "{role:?}"
        );
    }
}

#[test]
fn s8_52_mixed_preserved_and_new_assignment_epochs() {
    let member = m(
        MemberState::UnrevokedTasks,
        10,
        10,
        TasksWithEpochs {
            active: active_with(&[(S1, &[(1, 5), (2, 6)])]),
            ..Default::default()
        },
        TasksWithEpochs {
            active: active_with(&[(S2, &[(3, 7), (4, 8)])]),
            ..Default::default()
        },
    );
    let t = target(Role::Active, &[(S1, &[1, 2]), (S2, &[3, 5])]);
    let owned = target(Role::Active, &[(S1, &[1])]);
    let out = run(&member, 11, &t, &Owners::none(), Some(&owned)).unwrap();
    assert_eq!(
        out,
        settled(
            MemberState::Stable,
            11,
            10,
            TasksWithEpochs {
                active: active_with(&[(S1, &[(1, 5), (2, 6)]), (S2, &[(3, 11), (5, 11)])]),
                ..Default::default()
            }
        )
    );
}

// streams-44-delta.md §6.5: in-place role changes (Kafka 4.4 only).

#[test]
fn d7_reconciler_standby_promoted_to_active_when_active_is_released() {
    let member = stable10(with_role(Role::Standby, 10, TASK0));
    let owners = Owners::none().standby(|_, _| vec![PROCESS]);
    let out = step(&member, 11, &target(Role::Active, TASK0), &owners);
    assert_eq!(
        out,
        settled(
            MemberState::Stable,
            11,
            10,
            with_role(Role::Active, 11, TASK0)
        )
    );
}

#[test]
fn d7_reconciler_standby_promotion_holds_standby_while_active_owned_by_another_member() {
    let member = stable10(with_role(Role::Standby, 10, TASK0));
    let owners = Owners::all_by("other_process_id").standby(|_, _| vec![PROCESS]);
    let out = step(&member, 11, &target(Role::Active, TASK0), &owners);
    assert_eq!(
        out,
        settled(
            MemberState::UnreleasedTasks,
            11,
            10,
            with_role(Role::Standby, 10, TASK0)
        )
    );
}

#[test]
fn d7_reconciler_active_demoted_to_standby_in_place_and_completes_on_ack() {
    let member = stable10(with_role(Role::Active, 10, TASK0));
    let owners = Owners::all_by(PROCESS);
    let t = target(Role::Standby, TASK0);
    let out = step(&member, 11, &t, &owners);
    assert_eq!(
        out,
        m(
            MemberState::UnrevokedTasks,
            10,
            10,
            with_role(Role::Standby, 10, TASK0),
            with_role(Role::Active, 10, TASK0)
        )
    );
    // The member then reports only the standby: the demotion completes.
    let owned = target(Role::Standby, TASK0);
    let owners = Owners::all_by(PROCESS).standby(|_, _| vec![PROCESS]);
    let done = run(&out, 11, &t, &owners, Some(&owned)).unwrap();
    assert_eq!(
        done,
        settled(
            MemberState::Stable,
            11,
            10,
            with_role(Role::Standby, 10, TASK0)
        )
    );
}

#[test]
fn d7_reconciler_active_not_demoted_while_sibling_holds_standby() {
    let member = stable10(with_role(Role::Active, 10, TASK0));
    let owners = Owners::all_by(PROCESS).standby(|_, _| vec![PROCESS]);
    let out = step(&member, 11, &target(Role::Standby, TASK0), &owners);
    assert_eq!(
        out,
        m(
            MemberState::UnrevokedTasks,
            10,
            10,
            Default::default(),
            with_role(Role::Active, 10, TASK0)
        )
    );
}

#[test]
fn d7_reconciler_standby_and_warmup_converted_in_place() {
    let member = stable10(with_role(Role::Standby, 10, TASK0));
    let owners = Owners::none().standby(|_, _| vec![PROCESS]);
    let out = step(&member, 11, &target(Role::Warmup, TASK0), &owners);
    assert_eq!(
        out,
        settled(
            MemberState::Stable,
            11,
            10,
            with_role(Role::Warmup, 10, TASK0)
        )
    );
    let member = stable10(with_role(Role::Warmup, 10, TASK0));
    let owners = Owners::none().warmup(|_, _| vec![PROCESS]);
    let out = step(&member, 11, &target(Role::Standby, TASK0), &owners);
    assert_eq!(
        out,
        settled(
            MemberState::Stable,
            11,
            10,
            with_role(Role::Standby, 10, TASK0)
        )
    );
}

#[test]
fn d7_reconciler_standby_revoked_when_conversion_blocked_by_sibling() {
    let member = stable10(with_role(Role::Standby, 10, TASK0));
    let owners = Owners::none()
        .standby(|_, _| vec![PROCESS])
        .warmup(|_, _| vec![PROCESS]);
    let out = step(&member, 11, &target(Role::Warmup, TASK0), &owners);
    assert_eq!(
        out,
        m(
            MemberState::UnrevokedTasks,
            10,
            10,
            Default::default(),
            with_role(Role::Standby, 10, TASK0)
        )
    );
}

#[test]
fn d7_reconciler_warmup_not_dropped_while_promotion_blocked_by_another_revocation() {
    let member = stable10(TasksWithEpochs {
        active: active_with(&[(S1, &[(1, 10)])]),
        warmup: tasks(TASK0),
        ..Default::default()
    });
    let owners =
        Owners::active(|_, p| if p == 1 { Some(PROCESS) } else { None }).warmup(here_on(&[0]));
    let out = step(&member, 11, &target(Role::Active, TASK0), &owners);
    assert_eq!(
        out,
        m(
            MemberState::UnrevokedTasks,
            10,
            10,
            with_role(Role::Warmup, 10, TASK0),
            with_role(Role::Active, 10, &[(S1, &[1])])
        )
    );
}

#[test]
fn d7_reconciler_active_not_granted_while_sibling_holds_standby_or_warmup() {
    let member = stable10(Default::default());
    let t = target(Role::Active, TASK0);
    let unreleased_nothing = settled(MemberState::UnreleasedTasks, 11, 10, Default::default());
    let owners = Owners::none().standby(|_, _| vec![PROCESS]);
    assert_eq!(step(&member, 11, &t, &owners), unreleased_nothing);
    let owners = Owners::none().warmup(|_, _| vec![PROCESS]);
    assert_eq!(step(&member, 11, &t, &owners), unreleased_nothing);
}

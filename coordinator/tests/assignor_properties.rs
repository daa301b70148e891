//! Property tests of the sticky task assignor on random groups (streams-protocol.md §6.6): every task
//! active exactly once, never active and standby on one member, never two copies on one process, the
//! configured standby count wherever another process exists, active counts within the quota, balance on a
//! cold start, stickiness (re-running on its own result changes nothing) and determinism. Many small
//! groups, plus a few as large as 1000 members x 10,000 tasks.

mod assignor_support;

use coordinator::streams::assignor::{
    AssignmentConfigs, GroupAssignment, GroupSpec, MemberSpec, TaskOffsets, Tasks,
    TopologyDescriber, assign,
};
use proptest::prelude::*;

/// A random group: the topology, the standby count, members with their process and current tasks.
#[derive(Debug, Clone)]
struct Case {
    subtopologies: Vec<(u16, bool)>,
    standby: i32,
    /// Per member: process index.
    member_process: Vec<u16>,
    /// Per task (in subtopology order): the current active owner, if any.
    active_owner: Vec<Option<u16>>,
    /// Per task: members currently holding it as standby.
    standby_owners: Vec<Vec<u16>>,
    /// Per task: (member, offset) reports.
    offsets: Vec<Vec<(u16, i64)>>,
}

impl Case {
    fn topology(&self) -> TopologyDescriber {
        TopologyDescriber::new(
            self.subtopologies
                .iter()
                .enumerate()
                .map(|(i, &(n, st))| (i.to_string(), i32::from(n), st)),
        )
    }

    fn tasks(&self) -> Vec<(String, i32)> {
        self.subtopologies
            .iter()
            .enumerate()
            .flat_map(|(i, &(n, _))| (0..i32::from(n)).map(move |p| (i.to_string(), p)))
            .collect()
    }

    fn group(&self) -> GroupSpec {
        let mut members: Vec<MemberSpec> = self
            .member_process
            .iter()
            .enumerate()
            .map(|(m, &p)| MemberSpec::new(format!("member-{m}"), format!("process-{p}")))
            .collect();
        for (t, (sub, part)) in self.tasks().into_iter().enumerate() {
            if let Some(owner) = self.active_owner[t] {
                members[owner as usize]
                    .active_tasks
                    .entry(sub.clone())
                    .or_default()
                    .insert(part);
            }
            for &m in &self.standby_owners[t] {
                members[m as usize]
                    .standby_tasks
                    .entry(sub.clone())
                    .or_default()
                    .insert(part);
            }
            for &(m, offset) in &self.offsets[t] {
                members[m as usize]
                    .task_offsets
                    .entry(sub.clone())
                    .or_default()
                    .insert(part, offset);
            }
        }
        GroupSpec {
            members,
            configs: AssignmentConfigs {
                num_standby_replicas: self.standby,
                ..AssignmentConfigs::default()
            },
        }
    }
}

fn case_strategy(
    max_members: u16,
    max_tasks_per_sub: u16,
    max_subs: usize,
) -> impl Strategy<Value = Case> {
    (
        prop::collection::vec((0..=max_tasks_per_sub, any::<bool>()), 1..=max_subs),
        0..=3i32,
        1..=max_members,
        any::<bool>(),
    )
        .prop_flat_map(|(subtopologies, standby, members, warm)| {
            let tasks: usize = subtopologies.iter().map(|s| s.0 as usize).sum();
            let processes = 1 + members / 2;
            let owner = if warm {
                prop::option::weighted(0.8, 0..members).boxed()
            } else {
                Just(None).boxed()
            };
            let standbys = if warm {
                prop::collection::vec(0..members, 0..=2).boxed()
            } else {
                Just(Vec::new()).boxed()
            };
            let offsets = prop::collection::vec((0..members, 0..4i64), 0..=1);
            (
                Just(subtopologies),
                Just(standby),
                prop::collection::vec(0..processes, members as usize),
                prop::collection::vec(owner, tasks),
                prop::collection::vec(standbys, tasks),
                prop::collection::vec(offsets, tasks),
            )
        })
        .prop_map(
            |(
                subtopologies,
                standby,
                member_process,
                active_owner,
                mut standby_owners,
                offsets,
            )| {
                for s in &mut standby_owners {
                    s.sort_unstable();
                    s.dedup();
                }
                Case {
                    subtopologies,
                    standby,
                    member_process,
                    active_owner,
                    standby_owners,
                    offsets,
                }
            },
        )
}

/// The group again, every member now owning what the assignor gave it.
fn with_current(group: &GroupSpec, a: &GroupAssignment) -> GroupSpec {
    let mut next = group.clone();
    for m in &mut next.members {
        let given = a.get(&m.member_id).expect("every member is assigned");
        m.active_tasks = given.active().to_tasks();
        m.standby_tasks = given.standby().to_tasks();
        m.warmup_tasks = Tasks::new();
        m.task_offsets = TaskOffsets::new();
    }
    next
}

fn check_case(case: &Case) -> Result<(), TestCaseError> {
    let group = case.group();
    let topology = case.topology();
    let a = assign(&group, &topology).map_err(|e| TestCaseError::fail(e.to_string()))?;
    assignor_support::check_invariants(&group, &topology, &a).map_err(TestCaseError::fail)?;
    prop_assert_eq!(
        &assign(&group, &topology).expect("second run"),
        &a,
        "same input, same output"
    );

    // Balance: on a cold start every member gets the floor or the ceiling of tasks / members.
    let total = case.tasks().len();
    let members = group.members.len();
    let balanced = a.to_map().values().all(|m| {
        let n: usize = m.active_tasks.values().map(|s| s.len()).sum();
        n == total / members || n == total.div_ceil(members)
    });
    let cold = group.members.iter().all(|m| {
        m.active_tasks.is_empty() && m.standby_tasks.is_empty() && m.task_offsets.is_empty()
    });
    prop_assert!(
        balanced || !cold,
        "unbalanced cold-start assignment: {:?}",
        a
    );

    // Stickiness: members that own a balanced assignment keep every active task of it.
    if balanced {
        let again = assign(&with_current(&group, &a), &topology)
            .expect("re-run")
            .to_map();
        for (id, m) in &a.to_map() {
            prop_assert_eq!(
                &again[id].active_tasks,
                &m.active_tasks,
                "{} lost or gained active tasks",
                id
            );
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn small_groups_satisfy_the_assignor_properties(case in case_strategy(12, 12, 4)) {
        check_case(&case)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn medium_groups_satisfy_the_assignor_properties(case in case_strategy(200, 100, 6)) {
        check_case(&case)?;
    }
}

proptest! {
    // A few groups of 1000 members and 10 subtopologies of up to 1000 tasks; shrinking disabled (each case
    // is large, a failure is reported as generated).
    #![proptest_config(ProptestConfig { cases: 3, max_shrink_iters: 0, ..ProptestConfig::default() })]

    #[test]
    fn large_groups_satisfy_the_assignor_properties(case in case_strategy(1000, 1000, 10)
        .prop_filter("at least 1000 members", |c| c.member_process.len() >= 1000)) {
        check_case(&case)?;
    }
}

/// The largest shape of the issue, built directly: 1000 members on 500 processes, 10 x 1000 stateful
/// tasks, one standby; cold start, then a warm start from that result.
#[test]
fn thousand_members_and_ten_thousand_tasks() {
    let case = Case {
        subtopologies: vec![(1000, true); 10],
        standby: 1,
        member_process: (0..1000).map(|m| m / 2).collect(),
        active_owner: vec![None; 10_000],
        standby_owners: vec![Vec::new(); 10_000],
        offsets: vec![Vec::new(); 10_000],
    };
    check_case(&case).expect("properties");
    let a = assign(&case.group(), &case.topology()).expect("assignment");
    for m in a.to_map().values() {
        assert_eq!(m.active_tasks.values().map(|s| s.len()).sum::<usize>(), 10);
        assert_eq!(m.standby_tasks.values().map(|s| s.len()).sum::<usize>(), 10);
    }
}

//! Kafka 4.4's `StickyTaskAssignor`, step for step, on dense indices.
//!
//! The phases (streams-protocol.md §6 with streams-44-delta.md §5.3):
//!
//! 1. Active tasks, sorted by (partition, subtopology): each goes back to the member that currently runs it
//!    while that member is under the active quota; then tasks that have a standby (or offset-reporting)
//!    candidate go to the least-loaded such candidate under the quota; the rest, sorted by (subtopology,
//!    partition), go to the least-loaded process (a heap) and its least-loaded member (a second heap).
//! 2. Standby tasks of stateful subtopologies, sorted by (partition, subtopology) descending: each replica
//!    goes to the current active owner, else to the best standby candidate, if its process does not hold
//!    the task yet and the member is under the total quota; the rest, sorted by (subtopology, partition)
//!    descending, go to the least-loaded process that does not hold the task.
//!
//! Quotas are recomputed whenever a member reaches the current quota exactly (it is then taken out of
//! the computation). Ties are broken exactly as the JVM breaks them: members and processes are visited in
//! Java `HashMap` order and the heaps are Java `PriorityQueue`s (see [`super::java`]).

use std::cmp::Ordering;
use std::collections::HashSet;

use kafka_bugs::{KafkaBug, KafkaBugs};

use super::spec::{AssignorError, GroupAssignment, GroupSpec, TaskRef, TopologyDescriber};
use crate::java::{
    JavaHashMapOrder, JavaPriorityQueue, SMALL_MAP_MAX_KEYS, compare_strings, heap_offer,
    heap_poll, small_map_bucket, string_hash,
};

/// The most task copies (active plus standby) one assignment may involve: bounds memory and time.
pub const MAX_TASK_COPIES: u64 = 1 << 24;

const NONE: u32 = u32::MAX;

/// Runs Kafka 4.4's sticky task assignor.
pub fn assign(
    group: &GroupSpec,
    topology: &TopologyDescriber,
) -> Result<GroupAssignment, AssignorError> {
    assign_with_bugs(group, topology, &KafkaBugs::none())
}

/// [`assign`] with Kafka bug switches: `bugs` may restore the assignor's logic from before the
/// fixes of KAFKA-20899 and KAFKA-20719 (see [`State::find_prev_member_with_least_load`] and
/// [`State::collect_previous`]); every other switch is ignored here.
pub fn assign_with_bugs(
    group: &GroupSpec,
    topology: &TopologyDescriber,
    bugs: &KafkaBugs,
) -> Result<GroupAssignment, AssignorError> {
    let mut state = State::new(group, topology, bugs)?;
    state.assign_active()?;
    if state.num_standby > 0 {
        state.assign_standby();
    }
    Ok(state.into_assignment())
}

/// The tasks of the topology, numbered densely: subtopologies in `String.compareTo` order, partitions in
/// order inside each, so that task index order is (subtopology, partition) order.
struct TaskSpace<'a> {
    /// Subtopology ids in Java order.
    ids: Vec<&'a str>,
    /// First task index of each subtopology.
    offset: Vec<u32>,
    stateful: Vec<bool>,
    /// Subtopology rank of each task.
    task_sub: Vec<u32>,
    /// Partition of each task.
    task_partition: Vec<u32>,
    /// (subtopology id, rank), sorted by id in Rust order, the order of the members' task maps.
    by_name: Vec<(&'a str, u32)>,
}

impl<'a> TaskSpace<'a> {
    fn new(topology: &'a TopologyDescriber, num_standby: i32) -> Result<Self, AssignorError> {
        let mut copies: u64 = 0;
        for (id, sub) in &topology.subtopologies {
            if sub.num_tasks < 0 {
                return Err(AssignorError::NegativeTaskCount {
                    subtopology_id: id.clone(),
                    num_tasks: sub.num_tasks,
                });
            }
            let n = sub.num_tasks as u64;
            copies += n + if sub.stateful {
                n * num_standby as u64
            } else {
                0
            };
            if copies > MAX_TASK_COPIES {
                return Err(AssignorError::TooManyTasks {
                    tasks: copies,
                    limit: MAX_TASK_COPIES,
                });
            }
        }
        let mut subs: Vec<(&str, i32, bool)> = topology
            .subtopologies
            .iter()
            .map(|(id, s)| (id.as_str(), s.num_tasks, s.stateful))
            .collect();
        subs.sort_by(|a, b| compare_strings(a.0, b.0));
        let total: usize = subs.iter().map(|s| s.1 as usize).sum();
        let mut space = TaskSpace {
            ids: Vec::with_capacity(subs.len()),
            offset: Vec::with_capacity(subs.len()),
            stateful: Vec::with_capacity(subs.len()),
            task_sub: Vec::with_capacity(total),
            task_partition: Vec::with_capacity(total),
            by_name: Vec::with_capacity(subs.len()),
        };
        for (rank, (id, n, stateful)) in subs.into_iter().enumerate() {
            space.by_name.push((id, rank as u32));
            space.ids.push(id);
            space.offset.push(space.task_sub.len() as u32);
            space.stateful.push(stateful);
            for p in 0..n as u32 {
                space.task_sub.push(rank as u32);
                space.task_partition.push(p);
            }
        }
        space.by_name.sort_unstable();
        Ok(space)
    }

    fn len(&self) -> usize {
        self.task_sub.len()
    }

    /// Rank of subtopology `id`. Members' maps are walked in ascending id order, so the entry after the
    /// previous hit (`cursor`) is tried before a binary search.
    fn lookup(&self, id: &str, cursor: &mut usize) -> Option<u32> {
        if let Some(&(name, rank)) = self.by_name.get(*cursor)
            && name == id
        {
            *cursor += 1;
            return Some(rank);
        }
        let i = self.by_name.binary_search_by(|e| e.0.cmp(id)).ok()?;
        *cursor = i + 1;
        Some(self.by_name[i].1)
    }

    fn num_tasks(&self, sub: u32) -> u32 {
        let end = self
            .offset
            .get(sub as usize + 1)
            .copied()
            .unwrap_or(self.task_sub.len() as u32);
        end - self.offset[sub as usize]
    }

    /// Task index of (subtopology rank, partition), or `None` for a partition the subtopology does not have
    /// (Kafka keeps such entries but never looks them up, so they have no effect).
    fn task(&self, sub: u32, partition: i32) -> Option<u32> {
        (partition >= 0 && (partition as u32) < self.num_tasks(sub))
            .then(|| self.offset[sub as usize] + partition as u32)
    }

    /// All tasks (or only those of stateful subtopologies) in (partition, subtopology) order, built by
    /// walking partitions and dropping subtopologies as they run out of tasks.
    fn partition_major(&self, stateful_only: bool) -> Vec<u32> {
        let mut alive: Vec<u32> = (0..self.ids.len() as u32)
            .filter(|&s| (!stateful_only || self.stateful[s as usize]) && self.num_tasks(s) > 0)
            .collect();
        let mut out = Vec::with_capacity(self.len());
        let mut p = 0u32;
        while !alive.is_empty() {
            let mut exhausted = false;
            for &s in &alive {
                out.push(self.offset[s as usize] + p);
                exhausted |= self.num_tasks(s) == p + 1;
            }
            if exhausted {
                alive.retain(|&s| self.num_tasks(s) > p + 1);
            }
            p += 1;
        }
        out
    }

    fn describe(&self, task: u32) -> (String, i32) {
        (
            self.ids[self.task_sub[task as usize] as usize].to_string(),
            self.task_partition[task as usize] as i32,
        )
    }
}

/// Which processes hold each task (as active or standby): at most one copy per process.
struct TaskHolders {
    /// The first two holders of every task inline (`NONE` when free), which covers one standby replica.
    inline: Vec<[u32; 2]>,
    /// Further holders as `(task << 32) | process`; only queried for membership, never iterated.
    overflow: HashSet<u64>,
}

impl TaskHolders {
    fn new(tasks: usize) -> Self {
        Self {
            inline: vec![[NONE, NONE]; tasks],
            overflow: HashSet::new(),
        }
    }

    fn contains(&self, task: u32, process: u32) -> bool {
        let slots = self.inline[task as usize];
        if slots[0] == process || slots[1] == process {
            return true;
        }
        slots[1] != NONE
            && !self.overflow.is_empty()
            && self
                .overflow
                .contains(&(u64::from(task) << 32 | u64::from(process)))
    }

    fn insert(&mut self, task: u32, process: u32) {
        let slots = &mut self.inline[task as usize];
        if slots[0] == NONE {
            slots[0] = process;
        } else if slots[1] == NONE {
            slots[1] = process;
        } else {
            self.overflow
                .insert(u64::from(task) << 32 | u64::from(process));
        }
    }
}

/// Kafka's `ProcessState`.
struct Process {
    /// Members of the process (a range of `State::process_members`) in the iteration order of its
    /// `memberToTaskCounts` map.
    members: std::ops::Range<u32>,
    task_count: i32,
    /// `taskCount / capacity` as a double, exactly as Java computes it.
    load: f64,
    /// Whether `membersByLoad` exists (in `State::member_heaps`, same range as `members`): built lazily,
    /// dropped whenever a task is given to a chosen member directly.
    members_by_load: bool,
}

struct State<'a> {
    space: TaskSpace<'a>,
    num_standby: i32,
    /// Member ids in the group's (Java `HashMap`) iteration order; member indices refer to this order.
    member_ids: Vec<&'a str>,
    member_process: Vec<u32>,
    /// `memberToTaskCounts`: active plus standby tasks assigned in this run.
    member_count: Vec<i32>,
    /// Processes in the iteration order of `processIdToState`.
    processes: Vec<Process>,
    /// Members of all processes, process after process.
    process_members: Vec<u32>,
    /// The processes' `membersByLoad` heaps, at the same positions as `process_members`.
    member_heaps: Vec<u32>,
    holders: TaskHolders,
    /// `activeTaskToPrevMember`: the member currently running each task (last one in member order wins).
    prev_active: Vec<u32>,
    /// `standbyTaskToPrevMember` as ranked candidate lists, in CSR form.
    candidates_start: Vec<u32>,
    candidates: Vec<u32>,
    /// Assignments made, in order: (member, task, active?).
    assigned: Vec<(u32, u32, bool)>,
    /// KAFKA-20899 switched on: the previous-standby search of Kafka 4.2.0-4.3.x.
    kafka_20899: bool,
    // The quota bookkeeping, in Java `int` arithmetic.
    total_active_tasks: i32,
    total_tasks: i32,
    members_with_active_capacity: i32,
    members_with_capacity: i32,
    active_tasks_per_member: i32,
    total_tasks_per_member: i32,
}

/// `computeTasksPerMember`: the ceiling of tasks / members, 0 without members.
fn tasks_per_member(tasks: i32, members: i32) -> i32 {
    if members == 0 {
        return 0;
    }
    let mut per = tasks / members;
    if tasks % members > 0 {
        per += 1;
    }
    per
}

impl<'a> State<'a> {
    fn new(
        group: &'a GroupSpec,
        topology: &'a TopologyDescriber,
        bugs: &KafkaBugs,
    ) -> Result<Self, AssignorError> {
        let num_standby = group.configs.num_standby_replicas;
        if num_standby < 0 {
            return Err(AssignorError::NegativeStandbyReplicas(num_standby));
        }
        let space = TaskSpace::new(topology, num_standby)?;

        // The members map of TargetAssignmentBuilder: `new HashMap<>()`, filled with `put`.
        let member_hashes: Vec<i32> = group
            .members
            .iter()
            .map(|m| string_hash(&m.member_id))
            .collect();
        let mut member_map = JavaHashMapOrder::new();
        member_map.reserve(group.members.len());
        for (m, &h) in group.members.iter().zip(&member_hashes) {
            if !member_map.put_hashed(&m.member_id, h).1 {
                return Err(AssignorError::DuplicateMemberId(m.member_id.clone()));
            }
        }
        let member_order = member_map.iteration_order();
        drop(member_map);
        let num_members = member_order.len();

        // processIdToState: `new HashMap<>(numMembers)`, filled with `computeIfAbsent` in member order.
        let mut process_map = JavaHashMapOrder::with_capacity(num_members as i32);
        process_map.reserve(num_members);
        let mut member_process: Vec<u32> = Vec::with_capacity(num_members);
        for &mi in &member_order {
            let id = &group.members[mi as usize].process_id;
            member_process.push(process_map.compute_if_absent_hashed(id, string_hash(id)).0);
        }
        let process_order = process_map.iteration_order();
        drop(process_map);
        let mut process_rank = vec![0u32; process_order.len()];
        for (rank, &key) in process_order.iter().enumerate() {
            process_rank[key as usize] = rank as u32;
        }
        for p in &mut member_process {
            *p = process_rank[*p as usize];
        }

        // Each process's memberToTaskCounts: `new HashMap<>()`, members put in member order; laid out
        // process after process (a counting sort keeps member order inside each process).
        let num_processes = process_order.len();
        let mut start = vec![0u32; num_processes + 1];
        for &p in &member_process {
            start[p as usize + 1] += 1;
        }
        for p in 0..num_processes {
            start[p + 1] += start[p];
        }
        let mut next = start.clone();
        let mut process_members = vec![0u32; num_members];
        for (m, &p) in member_process.iter().enumerate() {
            process_members[next[p as usize] as usize] = m as u32;
            next[p as usize] += 1;
        }
        let member_ids: Vec<&str> = member_order
            .iter()
            .map(|&i| group.members[i as usize].member_id.as_str())
            .collect();
        let hash_of = |m: u32| member_hashes[member_order[m as usize] as usize];
        let mut processes = Vec::with_capacity(num_processes);
        for p in 0..num_processes {
            let range = start[p]..start[p + 1];
            let members = &mut process_members[range.start as usize..range.end as usize];
            if members.len() > SMALL_MAP_MAX_KEYS {
                let mut map = JavaHashMapOrder::new();
                for &m in members.iter() {
                    map.put_hashed(member_ids[m as usize], hash_of(m));
                }
                let order: Vec<u32> = map
                    .iteration_order()
                    .into_iter()
                    .map(|i| members[i as usize])
                    .collect();
                members.copy_from_slice(&order);
            } else if members.len() > 1 {
                // A stable sort by bucket keeps insertion order inside a bucket, as Java does.
                members.sort_by_key(|&m| small_map_bucket(hash_of(m)));
            }
            processes.push(Process {
                members: range,
                task_count: 0,
                load: 0.0,
                members_by_load: false,
            });
        }

        let num_tasks = space.len();
        // Quotas, in Java int arithmetic (Kafka's sums wrap silently; the task-copy limit keeps them sane).
        let mut total_active_tasks: i32 = 0;
        let mut total_tasks: i32 = 0;
        for (rank, _) in space.ids.iter().enumerate() {
            let n = space.num_tasks(rank as u32) as i32;
            total_tasks = total_tasks.wrapping_add(n);
            total_active_tasks = total_active_tasks.wrapping_add(n);
            if space.stateful[rank] {
                total_tasks = total_tasks.wrapping_add(n.wrapping_mul(num_standby));
            }
        }
        let members_count = num_members as i32;

        let mut state = State {
            num_standby,
            member_ids,
            member_process,
            member_count: vec![0; num_members],
            processes,
            member_heaps: vec![0; num_members],
            process_members,
            holders: TaskHolders::new(num_tasks),
            prev_active: vec![NONE; num_tasks],
            candidates_start: Vec::new(),
            candidates: Vec::new(),
            assigned: Vec::with_capacity(num_tasks * (1 + num_standby.min(4) as usize)),
            kafka_20899: bugs.on(KafkaBug::Kafka20899),
            total_active_tasks,
            total_tasks,
            members_with_active_capacity: members_count,
            members_with_capacity: members_count,
            active_tasks_per_member: tasks_per_member(total_active_tasks, members_count),
            total_tasks_per_member: tasks_per_member(total_tasks, members_count),
            space,
        };
        state.collect_previous(group, &member_order, bugs.on(KafkaBug::Kafka20719))?;
        Ok(state)
    }

    /// Validates the members' current tasks and offsets and fills `prev_active` and the ranked standby
    /// candidates from them. Rejected: subtopologies the topology does not have and negative partitions.
    /// Partitions at or above a subtopology's task count are accepted and, as in Kafka, have no effect
    /// (they occur when a topic shrank after the member got the task). `kafka_20719`: the candidate
    /// lists of Kafka 4.1-4.3 (current standbys only, unranked).
    fn collect_previous(
        &mut self,
        group: &GroupSpec,
        member_order: &[u32],
        kafka_20719: bool,
    ) -> Result<(), AssignorError> {
        // (task, is a current standby, offset, member): ranked below into Kafka's per-task candidate lists
        // (current standbys first, then by offset descending, ties in member order).
        let mut entries: Vec<(u32, bool, i64, u32)> = Vec::new();
        let space = &self.space;
        for (m, &mi) in member_order.iter().enumerate() {
            let spec = &group.members[mi as usize];
            let m = m as u32;
            let sub_of = |id: &str, field: &'static str, cursor: &mut usize| {
                space
                    .lookup(id, cursor)
                    .ok_or_else(|| AssignorError::UnknownSubtopology {
                        member_id: spec.member_id.clone(),
                        subtopology_id: id.to_string(),
                        field,
                    })
            };
            let check_first = |id: &str, first: Option<i32>, field: &'static str| match first {
                Some(p) if p < 0 => Err(AssignorError::NegativePartition {
                    member_id: spec.member_id.clone(),
                    subtopology_id: id.to_string(),
                    partition: p,
                    field,
                }),
                _ => Ok(()),
            };
            let mut cursor = 0;
            for (sub_id, partitions) in &spec.active_tasks {
                let sub = sub_of(sub_id, "activeTasks", &mut cursor)?;
                check_first(sub_id, partitions.first().copied(), "activeTasks")?;
                for &p in partitions {
                    if let Some(t) = space.task(sub, p) {
                        self.prev_active[t as usize] = m;
                    }
                }
            }
            let mut cursor = 0;
            for (sub_id, partitions) in &spec.standby_tasks {
                let sub = sub_of(sub_id, "standbyTasks", &mut cursor)?;
                check_first(sub_id, partitions.first().copied(), "standbyTasks")?;
                let offsets = if spec.task_offsets.is_empty() {
                    None
                } else {
                    spec.task_offsets.get(sub_id)
                };
                for &p in partitions {
                    if let Some(t) = space.task(sub, p) {
                        let offset = offsets.and_then(|o| o.get(&p)).copied().unwrap_or(0);
                        entries.push((t, true, offset, m));
                    }
                }
            }
            let mut cursor = 0;
            for (sub_id, partitions) in &spec.warmup_tasks {
                sub_of(sub_id, "warmupTasks", &mut cursor)?;
                check_first(sub_id, partitions.first().copied(), "warmupTasks")?;
            }
            let mut cursor = 0;
            for (sub_id, offsets) in &spec.task_offsets {
                let sub = sub_of(sub_id, "taskOffsets", &mut cursor)?;
                check_first(sub_id, offsets.keys().next().copied(), "taskOffsets")?;
                let standbys = spec.standby_tasks.get(sub_id);
                for (&p, &offset) in offsets {
                    if standbys.is_some_and(|s| s.contains(&p)) {
                        continue;
                    }
                    if let Some(t) = space.task(sub, p) {
                        entries.push((t, false, offset, m));
                    }
                }
            }
            let mut cursor = 0;
            for (sub_id, offsets) in &spec.task_end_offsets {
                sub_of(sub_id, "taskEndOffsets", &mut cursor)?;
                check_first(sub_id, offsets.keys().next().copied(), "taskEndOffsets")?;
            }
        }
        // KAFKA-20719 (fixed by apache/kafka#22783, in 4.4.0): before the fix, `initialize` listed as a
        // task's previous-standby candidates only the members whose current standby set holds it, in
        // member order, and read no task offsets: a restarted member (fresh id, empty assignment)
        // was nobody's candidate, whatever state it had on disk, so a cold start dealt the tasks out
        // afresh. Restored here by dropping the offset reporters and the offsets the lists are
        // ranked by (the stable sort below then keeps member order).
        if kafka_20719 {
            entries.retain(|&(_, current_standby, _, _)| current_standby);
            for entry in &mut entries {
                entry.2 = 0;
            }
        }
        if entries.is_empty() {
            return Ok(());
        }
        // Bucket by task keeping member order (a counting sort), then rank inside each bucket with a stable
        // sort: current standbys first, then by offset descending.
        let num_tasks = self.space.len();
        let mut start = vec![0u32; num_tasks + 1];
        for e in &entries {
            start[e.0 as usize + 1] += 1;
        }
        for t in 0..num_tasks {
            start[t + 1] += start[t];
        }
        let mut next = start.clone();
        let mut bucketed = vec![(false, 0i64, 0u32); entries.len()];
        for (t, prev_standby, offset, member) in entries {
            let slot = &mut next[t as usize];
            bucketed[*slot as usize] = (prev_standby, offset, member);
            *slot += 1;
        }
        for t in 0..num_tasks {
            let bucket = &mut bucketed[start[t] as usize..start[t + 1] as usize];
            if bucket.len() > 1 {
                bucket.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
            }
        }
        self.candidates = bucketed.into_iter().map(|e| e.2).collect();
        self.candidates_start = start;
        Ok(())
    }

    fn candidates_of(&self, task: u32) -> &[u32] {
        if self.candidates.is_empty() {
            return &[];
        }
        let s = self.candidates_start[task as usize] as usize;
        let e = self.candidates_start[task as usize + 1] as usize;
        &self.candidates[s..e]
    }

    fn recompute_load(&mut self, p: u32) {
        let proc = &mut self.processes[p as usize];
        proc.load = f64::from(proc.task_count) / proc.members.len() as f64;
    }

    /// `addTaskInternal`: record the task for the member and its process; returns the member's new count.
    fn add_task_internal(&mut self, member: u32, task: u32, active: bool) -> i32 {
        let p = self.member_process[member as usize];
        self.processes[p as usize].task_count += 1;
        self.holders.insert(task, p);
        self.assigned.push((member, task, active));
        self.member_count[member as usize] += 1;
        self.recompute_load(p);
        self.member_count[member as usize]
    }

    /// `ProcessState.addTask`: to a chosen member; drops the process's member heap.
    fn add_task(&mut self, member: u32, task: u32, active: bool) -> i32 {
        let count = self.add_task_internal(member, task, active);
        let p = self.member_process[member as usize];
        self.processes[p as usize].members_by_load = false;
        count
    }

    /// `ProcessState.addTaskToLeastLoadedMember`.
    fn add_task_to_least_loaded_member(&mut self, p: u32, task: u32, active: bool) -> i32 {
        let proc = &mut self.processes[p as usize];
        let range = proc.members.start as usize..proc.members.end as usize;
        if range.len() == 1 {
            let m = self.process_members[range.start];
            return self.add_task_internal(m, task, active);
        }
        // Built from the members map in its iteration order with the counts of the moment; Kafka's heap
        // entries carry the counts, which stay equal to ours because only this method changes them while
        // the heap exists.
        let n = range.len();
        let heap = &mut self.member_heaps[range.clone()];
        if !proc.members_by_load {
            for (i, &m) in self.process_members[range.clone()].iter().enumerate() {
                heap_offer(heap, i, m, by_count(&self.member_count));
            }
            proc.members_by_load = true;
        }
        let member = heap_poll(heap, n, by_count(&self.member_count));
        let count = self.add_task_internal(member, task, active);
        heap_offer(
            &mut self.member_heaps[range],
            n - 1,
            member,
            by_count(&self.member_count),
        );
        count
    }

    fn maybe_update_active_quota(&mut self, count: i32) {
        if count == self.active_tasks_per_member {
            self.members_with_active_capacity -= 1;
            self.total_active_tasks = self.total_active_tasks.wrapping_sub(count);
            self.active_tasks_per_member =
                tasks_per_member(self.total_active_tasks, self.members_with_active_capacity);
        }
    }

    fn maybe_update_total_quota(&mut self, count: i32) {
        if count == self.total_tasks_per_member {
            self.members_with_capacity -= 1;
            self.total_tasks = self.total_tasks.wrapping_sub(count);
            self.total_tasks_per_member =
                tasks_per_member(self.total_tasks, self.members_with_capacity);
        }
    }

    /// `findPrevMemberWithLeastLoad`: the first candidate, replaced only by a later one whose process load
    /// and member count are both strictly lower; with `skip_holding`, candidates whose process already
    /// holds the task are passed over.
    fn find_prev_member_with_least_load(&self, task: u32, skip_holding: bool) -> u32 {
        // KAFKA-20899 (fixed by apache/kafka#23096; in 4.2.0-4.3.x): before the fix the search began
        // with the first listed candidate whatever its process held, let a later one replace it only
        // if that one's process lacked the task (and had strictly lower load and count), and at the
        // end returned nothing if the *first* candidate's process held the task, even when a later
        // candidate had been chosen. So a previous standby owner was lost whenever the first listed
        // one's process had just been given the active copy. (In the active phase, with nothing to
        // skip, both forms return the same member.)
        if skip_holding && self.kafka_20899 {
            let Some((&first, rest)) = self.candidates_of(task).split_first() else {
                return NONE;
            };
            let first_process = self.member_process[first as usize];
            let (mut best, mut best_process_load, mut best_member_load) = (
                first,
                self.processes[first_process as usize].load,
                f64::from(self.member_count[first as usize]),
            );
            for &m in rest {
                let p = self.member_process[m as usize];
                let process_load = self.processes[p as usize].load;
                let member_load = f64::from(self.member_count[m as usize]);
                if process_load < best_process_load
                    && !self.holders.contains(task, p)
                    && member_load < best_member_load
                {
                    best = m;
                    best_process_load = process_load;
                    best_member_load = member_load;
                }
            }
            return if self.holders.contains(task, first_process) {
                NONE
            } else {
                best
            };
        }
        let mut best = NONE;
        let mut best_process_load = f64::MAX;
        let mut best_member_load = f64::MAX;
        for &m in self.candidates_of(task) {
            let p = self.member_process[m as usize];
            if skip_holding && self.holders.contains(task, p) {
                continue;
            }
            let process_load = self.processes[p as usize].load;
            let member_load = f64::from(self.member_count[m as usize]);
            if best == NONE || (process_load < best_process_load && member_load < best_member_load)
            {
                best = m;
                best_process_load = process_load;
                best_member_load = member_load;
            }
        }
        best
    }

    fn assign_active(&mut self) -> Result<(), AssignorError> {
        let tasks = self.space.partition_major(false);

        // 1. Back to the member that runs the task now, under the active quota.
        let mut remaining = Vec::with_capacity(tasks.len());
        for t in tasks {
            let prev = self.prev_active[t as usize];
            if prev != NONE && self.member_count[prev as usize] < self.active_tasks_per_member {
                let count = self.add_task(prev, t, true);
                self.maybe_update_active_quota(count);
                self.maybe_update_total_quota(count);
            } else {
                remaining.push(t);
            }
        }

        // 2. To the best standby (or offset-reporting) candidate, under the active quota.
        let mut rest = Vec::with_capacity(remaining.len());
        for t in remaining {
            let m = self.find_prev_member_with_least_load(t, false);
            if m != NONE && self.member_count[m as usize] < self.active_tasks_per_member {
                let count = self.add_task(m, t, true);
                self.maybe_update_active_quota(count);
                self.maybe_update_total_quota(count);
            } else {
                rest.push(t);
            }
        }

        // 3. Range style: by (subtopology, partition) — task index order — to the least-loaded process.
        rest.sort_unstable();
        let mut queue = self.process_queue();
        for t in rest {
            let Some(p) = self.poll_process(&mut queue) else {
                let (subtopology_id, partition) = self.space.describe(t);
                return Err(AssignorError::NoProcessAvailable {
                    subtopology_id,
                    partition,
                });
            };
            let count = self.add_task_to_least_loaded_member(p, t, true);
            self.maybe_update_active_quota(count);
            self.maybe_update_total_quota(count);
            self.offer_process(&mut queue, p);
        }
        Ok(())
    }

    fn assign_standby(&mut self) {
        let mut tasks = self.space.partition_major(true);
        tasks.reverse();

        // 1. To the current active owner, else the best standby candidate, under the total quota.
        let mut to_least_loaded: Vec<(u32, i32)> = Vec::new();
        for t in tasks {
            for i in 0..self.num_standby {
                let prev = self.prev_active[t as usize];
                if prev != NONE {
                    let p = self.member_process[prev as usize];
                    if !self.holders.contains(t, p)
                        && self.member_count[prev as usize] < self.total_tasks_per_member
                    {
                        let count = self.add_task(prev, t, false);
                        self.maybe_update_total_quota(count);
                        continue;
                    }
                }
                let m = self.find_prev_member_with_least_load(t, true);
                if m != NONE && self.member_count[m as usize] < self.total_tasks_per_member {
                    let count = self.add_task(m, t, false);
                    self.maybe_update_total_quota(count);
                    continue;
                }
                to_least_loaded.push((t, self.num_standby - i));
                break;
            }
        }

        // 2. By (subtopology, partition) descending, to the least-loaded process without the task.
        to_least_loaded.sort_unstable_by_key(|&(t, _)| std::cmp::Reverse(t));
        let mut queue = self.process_queue();
        let mut popped: Vec<u32> = Vec::new();
        for (t, replicas) in to_least_loaded {
            for _ in 0..replicas {
                if !self.assign_standby_to_least_loaded(&mut queue, &mut popped, t) {
                    // Kafka logs "There is not enough available capacity" and gives up on this task.
                    break;
                }
            }
        }
    }

    /// `assignStandbyToMemberWithLeastLoad`, without recursion: poll processes until one does not hold the
    /// task, give it the standby, then put every polled process back, the last polled first (the order in
    /// which Kafka's recursion unwinds).
    fn assign_standby_to_least_loaded(
        &mut self,
        queue: &mut JavaPriorityQueue<u32>,
        popped: &mut Vec<u32>,
        t: u32,
    ) -> bool {
        popped.clear();
        let mut found = false;
        while let Some(p) = self.poll_process(queue) {
            popped.push(p);
            if !self.holders.contains(t, p) {
                let count = self.add_task_to_least_loaded_member(p, t, false);
                self.maybe_update_total_quota(count);
                found = true;
                break;
            }
        }
        for &p in popped.iter().rev() {
            self.offer_process(queue, p);
        }
        found
    }

    /// `new PriorityQueue<>(comparingDouble(load))` followed by `addAll(processIdToState.values())`.
    fn process_queue(&self) -> JavaPriorityQueue<u32> {
        let mut queue = JavaPriorityQueue::with_capacity(self.processes.len());
        for p in 0..self.processes.len() as u32 {
            self.offer_process(&mut queue, p);
        }
        queue
    }

    fn offer_process(&self, queue: &mut JavaPriorityQueue<u32>, p: u32) {
        let procs = &self.processes;
        queue.offer(p, |a, b| by_load(procs, *a, *b));
    }

    fn poll_process(&self, queue: &mut JavaPriorityQueue<u32>) -> Option<u32> {
        let procs = &self.processes;
        queue.poll(|a, b| by_load(procs, *a, *b))
    }

    fn into_assignment(self) -> GroupAssignment {
        let num_members = self.member_ids.len();
        // Bucket the assignments by member (a counting sort).
        let mut start = vec![0u32; num_members + 1];
        for &(m, _, _) in &self.assigned {
            start[m as usize + 1] += 1;
        }
        for m in 0..num_members {
            start[m + 1] += start[m];
        }
        let mut next = start.clone();
        let mut by_member = vec![(0u32, false); self.assigned.len()];
        for &(m, t, active) in &self.assigned {
            let slot = &mut next[m as usize];
            by_member[*slot as usize] = (t, active);
            *slot += 1;
        }
        // Members in id order; comparing an 8-byte prefix as an integer first avoids most string
        // comparisons.
        let prefix = |id: &str| {
            let mut bytes = [0u8; 8];
            let n = id.len().min(8);
            bytes[..n].copy_from_slice(&id.as_bytes()[..n]);
            u64::from_be_bytes(bytes)
        };
        let mut order: Vec<(u64, u32)> = self
            .member_ids
            .iter()
            .enumerate()
            .map(|(m, id)| (prefix(id), m as u32))
            .collect();
        order.sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| self.member_ids[a.1 as usize].cmp(self.member_ids[b.1 as usize]))
        });

        // The output lists subtopologies in Rust string order (`by_name`); task indices follow Java's
        // `compareTo` order, which is the same order unless an id has characters above U+FFFF.
        let space = &self.space;
        let mut position = vec![0u32; space.ids.len()];
        for (pos, &(_, rank)) in space.by_name.iter().enumerate() {
            position[rank as usize] = pos as u32;
        }
        let same_order = position.iter().enumerate().all(|(r, &p)| r as u32 == p);
        let task_ref = |t: u32| TaskRef {
            sub: position[space.task_sub[t as usize] as usize],
            partition: space.task_partition[t as usize] as i32,
        };
        let id_bytes = self.member_ids.iter().map(|id| id.len()).sum();
        let mut out = GroupAssignment::with_subtopologies(
            space.by_name.iter().map(|&(id, _)| id),
            num_members,
            id_bytes,
            self.assigned.len(),
        );
        let mut active: Vec<u32> = Vec::new();
        let mut standby: Vec<u32> = Vec::new();
        for (_, m) in order {
            let m = m as usize;
            active.clear();
            standby.clear();
            for &(t, is_active) in &by_member[start[m] as usize..start[m + 1] as usize] {
                if is_active {
                    active.push(t);
                } else {
                    standby.push(t);
                }
            }
            for tasks in [&mut active, &mut standby] {
                if same_order {
                    tasks.sort_unstable();
                } else {
                    tasks.sort_unstable_by_key(|&t| task_ref(t));
                }
            }
            out.push_member(
                self.member_ids[m],
                active.iter().map(|&t| task_ref(t)),
                standby.iter().map(|&t| task_ref(t)),
            );
        }
        out
    }
}

fn by_count(counts: &[i32]) -> impl Fn(&u32, &u32) -> Ordering + '_ {
    move |a, b| counts[*a as usize].cmp(&counts[*b as usize])
}

fn by_load(procs: &[Process], a: u32, b: u32) -> Ordering {
    procs[a as usize].load.total_cmp(&procs[b as usize].load)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streams::assignor::spec::{MemberSpec, TaskOffsets, Tasks};

    fn tasks(sub: &str, partitions: &[i32]) -> Tasks {
        if partitions.is_empty() {
            return Tasks::new();
        }
        [(sub.to_string(), partitions.iter().copied().collect())].into()
    }

    fn offsets(sub: &str, partitions: &[(i32, i64)]) -> TaskOffsets {
        [(sub.to_string(), partitions.iter().copied().collect())].into()
    }

    /// Each member's (active, standby) partitions of subtopology `s`, by member id.
    fn roles(a: &GroupAssignment) -> Vec<(String, Vec<i32>, Vec<i32>)> {
        a.members()
            .map(|m| {
                let of = |t: &Tasks| {
                    t.get("s")
                        .map(|p| p.iter().copied().collect())
                        .unwrap_or_default()
                };
                (
                    m.member_id().to_string(),
                    of(&m.active().to_tasks()),
                    of(&m.standby().to_tasks()),
                )
            })
            .collect()
    }

    fn expect(a: &GroupAssignment, want: &[(&str, &[i32], &[i32])]) {
        let want: Vec<(String, Vec<i32>, Vec<i32>)> = want
            .iter()
            .map(|(m, a, s)| (m.to_string(), a.to_vec(), s.to_vec()))
            .collect();
        assert_eq!(roles(a), want);
    }

    /// Kafka's `shouldAssignStandbyToPreviousStandbyThatDoesNotHoldTheActiveTask` (added with
    /// KAFKA-20899): m1 {s2}, m2 {a0, s2}, m3 {a1}, m4 {}; 3 stateful tasks, 1 standby replica.
    /// (Member ids m1..m4 iterate in that order in a Java `HashMap`, as the test's `LinkedHashMap`.)
    fn kafka_20899_case() -> (GroupSpec, TopologyDescriber) {
        let member = |id: &str, process: &str, active: &[i32], standby: &[i32]| MemberSpec {
            active_tasks: tasks("s", active),
            standby_tasks: tasks("s", standby),
            ..MemberSpec::new(id, process)
        };
        let group = GroupSpec {
            members: vec![
                member("m1", "p1", &[], &[2]),
                member("m2", "p2", &[0], &[2]),
                member("m3", "p3", &[1], &[]),
                member("m4", "p4", &[], &[]),
            ],
            configs: crate::streams::assignor::AssignmentConfigs {
                num_standby_replicas: 1,
                ..Default::default()
            },
        };
        (group, TopologyDescriber::new([("s", 3, true)]))
    }

    #[test]
    fn kafka_20899_fixed_standby_goes_to_the_previous_standby_without_the_active() {
        let (group, topology) = kafka_20899_case();
        // Task 2 goes active to m1, the first of its previous standbys; its standby then goes to
        // m2, the other previous standby, whose process lacks it (Kafka 4.4.0's result).
        expect(
            &assign(&group, &topology).unwrap(),
            &[
                ("m1", &[2], &[]),
                ("m2", &[0], &[2]),
                ("m3", &[1], &[0]),
                ("m4", &[], &[1]),
            ],
        );
    }

    #[test]
    fn kafka_20899_pre_fix_standby_falls_through_to_the_least_loaded_process() {
        let (group, topology) = kafka_20899_case();
        // Before apache/kafka#23096 the search stops at m1, whose process holds task 2 now: the
        // standby goes to the least-loaded phase (m4) and m2's copy of task 2 is dropped. Kafka
        // 4.3.0's jar does the same with task 2 (conformance/assignor-43); it breaks the tie
        // between equally loaded processes for tasks 0 and 1 the other way (m2 s{1}, m4 s{0, 2}).
        let bugs = KafkaBugs::of([KafkaBug::Kafka20899]);
        expect(
            &assign_with_bugs(&group, &topology, &bugs).unwrap(),
            &[
                ("m1", &[2], &[]),
                ("m2", &[0], &[]),
                ("m3", &[1], &[0]),
                ("m4", &[], &[1, 2]),
            ],
        );
        // The other switch does not touch this input (no task offsets).
        let other = KafkaBugs::of([KafkaBug::Kafka20719]);
        assert_eq!(
            assign_with_bugs(&group, &topology, &other).unwrap(),
            assign(&group, &topology).unwrap()
        );
    }

    #[test]
    fn kafka_20899_pre_fix_keeps_a_later_candidate_when_the_first_lacks_the_task() {
        // Task 0's previous standbys are m1 (p1, loaded) and m2 (p2, idle); its active stays with
        // m3. Neither standby process holds task 0, so the pre-fix search may pick the later,
        // less-loaded m2 and returns it: both forms agree.
        let member = |id: &str, process: &str, active: &[i32], standby: &[i32]| MemberSpec {
            active_tasks: tasks("s", active),
            standby_tasks: tasks("s", standby),
            ..MemberSpec::new(id, process)
        };
        let group = GroupSpec {
            members: vec![
                member("m1", "p1", &[1, 2], &[0]),
                member("m2", "p2", &[], &[0]),
                member("m3", "p3", &[0], &[]),
            ],
            configs: crate::streams::assignor::AssignmentConfigs {
                num_standby_replicas: 1,
                ..Default::default()
            },
        };
        let topology = TopologyDescriber::new([("s", 3, true)]);
        let bugs = KafkaBugs::of([KafkaBug::Kafka20899]);
        assert_eq!(
            assign_with_bugs(&group, &topology, &bugs).unwrap(),
            assign(&group, &topology).unwrap()
        );
    }

    /// A cold start (Kafka's `shouldAssignTasksToMembersReportingTaskOffsetsOnColdStart`, with one
    /// standby replica): fresh members m1 (p1) and m2 (p2) with no assignment report the offsets of
    /// the tasks on their disks, m1 tasks 0 and 1, m2 tasks 2 and 3.
    fn kafka_20719_case() -> (GroupSpec, TopologyDescriber) {
        let member = |id: &str, process: &str, reported: &[i32]| MemberSpec {
            task_offsets: offsets("s", &reported.iter().map(|&p| (p, 100)).collect::<Vec<_>>()),
            ..MemberSpec::new(id, process)
        };
        let group = GroupSpec {
            members: vec![member("m1", "p1", &[0, 1]), member("m2", "p2", &[2, 3])],
            configs: crate::streams::assignor::AssignmentConfigs {
                num_standby_replicas: 1,
                ..Default::default()
            },
        };
        (group, TopologyDescriber::new([("s", 4, true)]))
    }

    #[test]
    fn kafka_20719_fixed_cold_start_gives_each_task_to_the_process_with_its_state() {
        let (group, topology) = kafka_20719_case();
        expect(
            &assign(&group, &topology).unwrap(),
            &[("m1", &[0, 1], &[2, 3]), ("m2", &[2, 3], &[0, 1])],
        );
    }

    #[test]
    fn kafka_20719_pre_fix_cold_start_ignores_the_reported_offsets() {
        let (group, topology) = kafka_20719_case();
        // Before apache/kafka#22783 nobody is a candidate for anything: the tasks are dealt out
        // range style and half of them move away from their state (Kafka 4.3.0's jar also moves
        // half, dealing m1 {0, 2} and m2 {1, 3}: the same deal with the processes' tie the other
        // way).
        let bugs = KafkaBugs::of([KafkaBug::Kafka20719]);
        expect(
            &assign_with_bugs(&group, &topology, &bugs).unwrap(),
            &[("m1", &[1, 3], &[0, 2]), ("m2", &[0, 2], &[1, 3])],
        );
    }

    #[test]
    fn kafka_20719_pre_fix_lists_standbys_in_member_order_whatever_their_offsets() {
        // Task 0's active owner is gone; m1 and m2 both hold its standby, m2 with far more of its
        // state. Kafka 4.4.0 ranks m2 first and promotes it; 4.1-4.3 took the first in member
        // order, m1 (the two are equally loaded, so the later one never replaces it).
        let member =
            |id: &str, process: &str, standby: &[i32], reported: &[(i32, i64)]| MemberSpec {
                standby_tasks: tasks("s", standby),
                task_offsets: offsets("s", reported),
                ..MemberSpec::new(id, process)
            };
        let group = GroupSpec {
            members: vec![
                member("m1", "p1", &[0], &[(0, 10)]),
                member("m2", "p2", &[0], &[(0, 1_000)]),
            ],
            ..GroupSpec::default()
        };
        let topology = TopologyDescriber::new([("s", 2, true)]);
        expect(
            &assign(&group, &topology).unwrap(),
            &[("m1", &[1], &[]), ("m2", &[0], &[])],
        );
        let bugs = KafkaBugs::of([KafkaBug::Kafka20719]);
        expect(
            &assign_with_bugs(&group, &topology, &bugs).unwrap(),
            &[("m1", &[0], &[]), ("m2", &[1], &[])],
        );
    }

    #[test]
    fn output_lists_subtopologies_in_rust_order_when_java_order_differs() {
        // Java's compareTo puts "a\u{10000}" (UTF-16 D800 DC00) before "a\u{FFFF}"; Rust's byte order
        // puts it after. Task indices follow Java's order, the output Rust's.
        let high = "a\u{10000}";
        let low = "a\u{FFFF}";
        let topology = TopologyDescriber::new([(high, 2, false), (low, 3, false)]);
        let group = GroupSpec {
            members: vec![MemberSpec::new("m1", "p1")],
            ..GroupSpec::default()
        };
        let a = assign(&group, &topology).expect("assignment");
        let m1 = a.get("m1").expect("m1");
        assert_eq!(
            m1.active().iter().collect::<Vec<_>>(),
            [(low, 0), (low, 1), (low, 2), (high, 0), (high, 1)]
        );
        let expected: Tasks = [
            (high.to_string(), [0, 1].into()),
            (low.to_string(), [0, 1, 2].into()),
        ]
        .into();
        assert_eq!(m1.active().to_tasks(), expected);
        assert!(m1.standby().is_empty());
    }
}

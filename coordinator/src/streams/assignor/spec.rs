//! What a task assignor receives and returns: the Rust shape of Kafka 4.4's public assignor API
//! (`GroupSpec`, `MemberAssignmentMetadata` + `MemberAssignmentState`, `AssignmentConfigs`,
//! `TopologyDescriber`, `GroupAssignment`, `MemberAssignment`, `TaskAssignorException`).
//!
//! Everything here is ordered (`BTreeMap`, `BTreeSet`, `Vec`), so no caller ever depends on hash order.
//! The one order that matters to Kafka's result and cannot be derived from the values is the order in
//! which the coordinator inserts members into the `HashMap` it hands the assignor; [`GroupSpec::members`]
//! is that order (see its documentation).

use std::collections::{BTreeMap, BTreeSet};

/// Tasks by subtopology id: subtopology -> partitions (task numbers).
pub type Tasks = BTreeMap<String, BTreeSet<i32>>;

/// Reported task offsets by subtopology id: subtopology -> partition -> offset (sum over the task's changelogs).
pub type TaskOffsets = BTreeMap<String, BTreeMap<i32, i64>>;

/// `AssignmentConfigs`: the group's assignment configuration as Kafka 4.4 hands it to the assignor.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AssignmentConfigs {
    /// `num.standby.replicas` (default 0).
    pub num_standby_replicas: i32,
    /// `rack.aware.assignment.tags` (default none). The sticky assignor ignores them, as Kafka's does.
    pub rack_aware_assignment_tags: Vec<String>,
}

impl AssignmentConfigs {
    /// Key of the standby replica count in the stored assignment configs.
    pub const NUM_STANDBY_REPLICAS: &'static str = "num.standby.replicas";
    /// Key of the comma-separated rack-aware tags in the stored assignment configs.
    pub const RACK_AWARE_ASSIGNMENT_TAGS: &'static str = "rack.aware.assignment.tags";

    /// Builds the configs from the map stored with the group (`LastAssignmentConfigs`), as Kafka's
    /// `AssignmentConfigsImpl.fromMap`: an empty map means the defaults; otherwise `num.standby.replicas` must
    /// be present and an integer, and the tags, when present and non-empty, are split at commas.
    pub fn from_map(configs: &BTreeMap<String, String>) -> Result<Self, AssignorError> {
        if configs.is_empty() {
            return Ok(Self::default());
        }
        let raw = configs.get(Self::NUM_STANDBY_REPLICAS).ok_or_else(|| {
            AssignorError::InvalidConfig {
                key: Self::NUM_STANDBY_REPLICAS.to_string(),
                value: None,
            }
        })?;
        let num_standby_replicas =
            raw.parse::<i32>()
                .map_err(|_| AssignorError::InvalidConfig {
                    key: Self::NUM_STANDBY_REPLICAS.to_string(),
                    value: Some(raw.clone()),
                })?;
        let tags = configs
            .get(Self::RACK_AWARE_ASSIGNMENT_TAGS)
            .map(String::as_str)
            .unwrap_or("");
        // Java's String.split(",") drops trailing empty strings.
        let mut rack_aware_assignment_tags: Vec<String> = if tags.is_empty() {
            Vec::new()
        } else {
            tags.split(',').map(str::to_string).collect()
        };
        while rack_aware_assignment_tags
            .last()
            .is_some_and(String::is_empty)
        {
            rack_aware_assignment_tags.pop();
        }
        Ok(Self {
            num_standby_replicas,
            rack_aware_assignment_tags,
        })
    }
}

/// One member as the assignor sees it: Kafka's `MemberAssignmentMetadata` and `MemberAssignmentState`.
///
/// In 4.4 the task sets are the member's *current* assignment (what it owns, pending revocations
/// excluded; active tasks without epochs), not its previous target, and the offsets are the ones it
/// reported last (`TaskOffsets`/`TaskEndOffsets` of StreamsGroupHeartbeat).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberSpec {
    /// The member id.
    pub member_id: String,
    /// `group.instance.id` of a static member.
    pub instance_id: Option<String>,
    /// The member's rack (ignored by the sticky assignor).
    pub rack_id: Option<String>,
    /// The process (Kafka Streams instance) the member belongs to; members of one process share state.
    pub process_id: String,
    /// Client tags (ignored by the sticky assignor).
    pub client_tags: BTreeMap<String, String>,
    /// Active tasks the member currently owns.
    pub active_tasks: Tasks,
    /// Standby tasks the member currently owns.
    pub standby_tasks: Tasks,
    /// Warm-up tasks the member currently owns (ignored by the sticky assignor).
    pub warmup_tasks: Tasks,
    /// Last reported task offsets; they make the member a fallback candidate for those tasks.
    pub task_offsets: TaskOffsets,
    /// Last reported task end offsets (ignored by the sticky assignor).
    pub task_end_offsets: TaskOffsets,
}

impl MemberSpec {
    /// A member with no tasks, no offsets, no tags.
    pub fn new(member_id: impl Into<String>, process_id: impl Into<String>) -> Self {
        Self {
            member_id: member_id.into(),
            process_id: process_id.into(),
            ..Self::default()
        }
    }
}

/// Kafka's `GroupSpec`: the members and the assignment configs.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupSpec {
    /// The members, in the order the coordinator inserts them into the `HashMap<String, ...>` that
    /// `TargetAssignmentBuilder.build` passes to the assignor (the iteration order of the group's member
    /// map with the heartbeating member updated in place or added last). The assignor itself reorders them
    /// the way that `HashMap` iterates; this order only decides ties between member ids that land in the
    /// same hash bucket. Member ids must be unique.
    pub members: Vec<MemberSpec>,
    /// The assignment configs.
    pub configs: AssignmentConfigs,
}

/// One subtopology as `TopologyDescriber` describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SubtopologySpec {
    /// Number of tasks (`maxNumInputPartitions`): partitions 0..num_tasks.
    pub num_tasks: i32,
    /// Whether the subtopology has state (changelog topics); only stateful tasks get standbys.
    pub stateful: bool,
}

/// Kafka's `TopologyDescriber`: the subtopologies of the configured topology.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopologyDescriber {
    /// Subtopology id -> description.
    pub subtopologies: BTreeMap<String, SubtopologySpec>,
}

impl TopologyDescriber {
    /// Builds a describer from `(id, number of tasks, stateful)` triples.
    pub fn new<S: Into<String>>(subtopologies: impl IntoIterator<Item = (S, i32, bool)>) -> Self {
        Self {
            subtopologies: subtopologies
                .into_iter()
                .map(|(id, num_tasks, stateful)| {
                    (
                        id.into(),
                        SubtopologySpec {
                            num_tasks,
                            stateful,
                        },
                    )
                })
                .collect(),
        }
    }
}

/// Kafka's `MemberAssignment` in owned, map form: the tasks one member should own. Like Kafka 4.4's, it
/// has no warm-up tasks (the coordinator's target assignment always has an empty warm-up set). Used to
/// build a [`GroupAssignment`] ([`GroupAssignment::from_map`]) and to read one as maps
/// ([`GroupAssignment::to_map`]).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberAssignment {
    /// Active tasks.
    pub active_tasks: Tasks,
    /// Standby tasks.
    pub standby_tasks: Tasks,
}

/// One task of a [`GroupAssignment`]: the position of its subtopology among the assignment's
/// subtopology ids, and its partition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct TaskRef {
    pub(crate) sub: u32,
    pub(crate) partition: i32,
}

/// Where one member's id and task lists live in a [`GroupAssignment`]'s buffers.
#[derive(Debug, Clone, PartialEq, Eq)]
struct MemberSlot {
    id: std::ops::Range<usize>,
    active: std::ops::Range<usize>,
    standby: std::ops::Range<usize>,
}

/// Kafka's `GroupAssignment`: one entry for every member of the [`GroupSpec`], empty ones included.
///
/// Kept in a few flat buffers rather than nested maps, because building and freeing per-member maps
/// cost more than the assignment itself on small groups: all strings (subtopology ids, then member
/// ids) in one buffer, the members sorted by id, and each member's active and standby tasks as
/// ranges of one task list sorted by (subtopology id, partition). Read it with [`Self::members`] and
/// [`Self::get`], or as maps with [`Self::to_map`]. Equality compares the assignments, not the layout.
#[derive(Clone, Default)]
pub struct GroupAssignment {
    text: String,
    /// Ranges of `text`: the subtopology ids, sorted.
    subtopologies: Vec<std::ops::Range<usize>>,
    /// Sorted by member id.
    members: Vec<MemberSlot>,
    tasks: Vec<TaskRef>,
}

impl GroupAssignment {
    /// An assignment of no member.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty assignment over `subtopologies` (ids in ascending order), ready for [`Self::push_member`].
    pub(crate) fn with_subtopologies<'s>(
        subtopologies: impl Iterator<Item = &'s str> + Clone,
        members: usize,
        member_id_bytes: usize,
        tasks: usize,
    ) -> Self {
        let id_bytes: usize = subtopologies.clone().map(str::len).sum();
        let mut text = String::with_capacity(id_bytes + member_id_bytes);
        let ranges = subtopologies
            .map(|id| {
                let start = text.len();
                text.push_str(id);
                start..text.len()
            })
            .collect();
        Self {
            text,
            subtopologies: ranges,
            members: Vec::with_capacity(members),
            tasks: Vec::with_capacity(tasks),
        }
    }

    /// Appends a member; members must come in ascending id order and the tasks of each list in
    /// ascending (subtopology position, partition) order.
    pub(crate) fn push_member(
        &mut self,
        member_id: &str,
        active: impl IntoIterator<Item = TaskRef>,
        standby: impl IntoIterator<Item = TaskRef>,
    ) {
        let id_start = self.text.len();
        self.text.push_str(member_id);
        let id = id_start..self.text.len();
        let active_start = self.tasks.len();
        self.tasks.extend(active);
        let standby_start = self.tasks.len();
        self.tasks.extend(standby);
        self.members.push(MemberSlot {
            id,
            active: active_start..standby_start,
            standby: standby_start..self.tasks.len(),
        });
    }

    /// Builds an assignment from maps (what custom and test assignors produce).
    pub fn from_map(members: BTreeMap<String, MemberAssignment>) -> Self {
        let subtopologies: BTreeSet<&str> = members
            .values()
            .flat_map(|m| m.active_tasks.keys().chain(m.standby_tasks.keys()))
            .map(String::as_str)
            .collect();
        let position: BTreeMap<&str, u32> = subtopologies
            .iter()
            .enumerate()
            .map(|(i, id)| (*id, i as u32))
            .collect();
        let refs = |tasks: &Tasks| -> Vec<TaskRef> {
            tasks
                .iter()
                .flat_map(|(sub, partitions)| {
                    // Every id of the maps is in `position`.
                    let sub = position.get(sub.as_str()).copied().unwrap_or(0);
                    partitions
                        .iter()
                        .map(move |&partition| TaskRef { sub, partition })
                })
                .collect()
        };
        let id_bytes = members.keys().map(String::len).sum();
        let tasks = members
            .values()
            .map(|m| task_count(&m.active_tasks) + task_count(&m.standby_tasks))
            .sum();
        let mut out = Self::with_subtopologies(
            subtopologies.iter().copied(),
            members.len(),
            id_bytes,
            tasks,
        );
        for (id, m) in &members {
            out.push_member(id, refs(&m.active_tasks), refs(&m.standby_tasks));
        }
        out
    }

    /// The assignment as maps: member id -> tasks.
    pub fn to_map(&self) -> BTreeMap<String, MemberAssignment> {
        self.members()
            .map(|m| (m.member_id().to_string(), m.to_assignment()))
            .collect()
    }

    /// Number of members.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the assignment has no member.
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// Every member, in member id order.
    pub fn members(&self) -> impl ExactSizeIterator<Item = MemberTasks<'_>> + '_ {
        self.members.iter().map(move |slot| MemberTasks {
            assignment: self,
            slot,
        })
    }

    /// The member with this id.
    pub fn get(&self, member_id: &str) -> Option<MemberTasks<'_>> {
        let i = self
            .members
            .binary_search_by(|slot| self.text[slot.id.clone()].cmp(member_id))
            .ok()?;
        Some(MemberTasks {
            assignment: self,
            slot: &self.members[i],
        })
    }

    /// The member ids, in order.
    pub fn member_ids(&self) -> impl ExactSizeIterator<Item = &str> + '_ {
        self.members
            .iter()
            .map(move |slot| &self.text[slot.id.clone()])
    }

    fn subtopology(&self, sub: u32) -> &str {
        &self.text[self.subtopologies[sub as usize].clone()]
    }
}

fn task_count(tasks: &Tasks) -> usize {
    tasks.values().map(BTreeSet::len).sum()
}

impl PartialEq for GroupAssignment {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.members().zip(other.members()).all(|(a, b)| a == b)
    }
}

impl Eq for GroupAssignment {}

impl std::fmt::Debug for GroupAssignment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(self.members().map(|m| (m.member_id(), m)))
            .finish()
    }
}

/// One member of a [`GroupAssignment`].
#[derive(Clone, Copy)]
pub struct MemberTasks<'a> {
    assignment: &'a GroupAssignment,
    slot: &'a MemberSlot,
}

impl<'a> MemberTasks<'a> {
    pub fn member_id(&self) -> &'a str {
        &self.assignment.text[self.slot.id.clone()]
    }

    /// The active tasks.
    pub fn active(&self) -> TaskList<'a> {
        TaskList {
            assignment: self.assignment,
            tasks: &self.assignment.tasks[self.slot.active.clone()],
        }
    }

    /// The standby tasks.
    pub fn standby(&self) -> TaskList<'a> {
        TaskList {
            assignment: self.assignment,
            tasks: &self.assignment.tasks[self.slot.standby.clone()],
        }
    }

    /// The member's tasks as maps.
    pub fn to_assignment(&self) -> MemberAssignment {
        MemberAssignment {
            active_tasks: self.active().to_tasks(),
            standby_tasks: self.standby().to_tasks(),
        }
    }
}

impl PartialEq for MemberTasks<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.member_id() == other.member_id()
            && self.active() == other.active()
            && self.standby() == other.standby()
    }
}

impl std::fmt::Debug for MemberTasks<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MemberTasks")
            .field("active", &self.active())
            .field("standby", &self.standby())
            .finish()
    }
}

/// The active or standby tasks of one member, sorted by (subtopology id, partition).
#[derive(Clone, Copy)]
pub struct TaskList<'a> {
    assignment: &'a GroupAssignment,
    tasks: &'a [TaskRef],
}

impl<'a> TaskList<'a> {
    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.tasks.len()
    }

    pub fn is_empty(&self) -> bool {
        self.tasks.is_empty()
    }

    /// (subtopology id, partition) pairs in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (&'a str, i32)> + 'a {
        let assignment = self.assignment;
        self.tasks
            .iter()
            .map(move |t| (assignment.subtopology(t.sub), t.partition))
    }

    /// (subtopology id, its partitions in order), subtopologies in order.
    pub fn by_subtopology(&self) -> impl Iterator<Item = (&'a str, Partitions<'a>)> + 'a {
        let assignment = self.assignment;
        self.tasks
            .chunk_by(|a, b| a.sub == b.sub)
            .map(move |chunk| (assignment.subtopology(chunk[0].sub), Partitions(chunk)))
    }

    /// The tasks as a map: subtopology id -> partitions.
    pub fn to_tasks(&self) -> Tasks {
        self.by_subtopology()
            .map(|(sub, partitions)| (sub.to_string(), partitions.iter().collect()))
            .collect()
    }
}

impl PartialEq for TaskList<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.iter().eq(other.iter())
    }
}

impl std::fmt::Debug for TaskList<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map()
            .entries(
                self.by_subtopology()
                    .map(|(sub, partitions)| (sub, partitions.iter().collect::<Vec<_>>())),
            )
            .finish()
    }
}

/// The partitions of one subtopology in a [`TaskList`], ascending.
#[derive(Clone, Copy)]
pub struct Partitions<'a>(&'a [TaskRef]);

impl<'a> Partitions<'a> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = i32> + 'a {
        self.0.iter().map(|t| t.partition)
    }
}

/// Why an assignment could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AssignorError {
    /// Kafka's `TaskAssignorException` when there are tasks but no member: the message is Kafka's.
    #[error("No process available to assign active task {subtopology_id}_{partition}.")]
    NoProcessAvailable {
        /// Subtopology of the first task that found no process.
        subtopology_id: String,
        /// Its partition.
        partition: i32,
    },
    /// A subtopology declares a negative number of tasks.
    #[error("subtopology {subtopology_id} has a negative number of tasks: {num_tasks}")]
    NegativeTaskCount {
        /// The subtopology.
        subtopology_id: String,
        /// The count given.
        num_tasks: i32,
    },
    /// `num.standby.replicas` is negative.
    #[error("num.standby.replicas must not be negative, got {0}")]
    NegativeStandbyReplicas(i32),
    /// The topology and standby count ask for more task copies than the assignor accepts.
    #[error("too many tasks: {tasks} task copies (active and standby) exceed the limit of {limit}")]
    TooManyTasks {
        /// Requested copies.
        tasks: u64,
        /// The limit.
        limit: u64,
    },
    /// Two members share an id.
    #[error("duplicate member id {0}")]
    DuplicateMemberId(String),
    /// A member's tasks or offsets name a subtopology the topology does not have.
    #[error("member {member_id}: unknown subtopology {subtopology_id} in its {field}")]
    UnknownSubtopology {
        /// The member.
        member_id: String,
        /// The unknown id.
        subtopology_id: String,
        /// Which set named it (activeTasks, standbyTasks, warmupTasks, taskOffsets, taskEndOffsets).
        field: &'static str,
    },
    /// A member's tasks or offsets name a negative partition.
    #[error(
        "member {member_id}: negative partition {partition} of subtopology {subtopology_id} in its {field}"
    )]
    NegativePartition {
        /// The member.
        member_id: String,
        /// The subtopology.
        subtopology_id: String,
        /// The partition.
        partition: i32,
        /// Which set named it.
        field: &'static str,
    },
    /// A `TaskAssignorException` raised by another (custom or mock) assignor, with its message.
    #[error("{0}")]
    Failed(String),
    /// A stored assignment config is missing or malformed.
    #[error("assignment config {key} is {}", value.as_deref().map_or("missing".to_string(), |v| format!("not an integer: {v:?}")))]
    InvalidConfig {
        /// The config key.
        key: String,
        /// The malformed value, `None` when missing.
        value: Option<String>,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks(entries: &[(&str, &[i32])]) -> Tasks {
        entries
            .iter()
            .map(|(sub, ps)| (sub.to_string(), ps.iter().copied().collect()))
            .collect()
    }

    fn sample() -> BTreeMap<String, MemberAssignment> {
        BTreeMap::from([
            (
                "m2".to_string(),
                MemberAssignment {
                    active_tasks: tasks(&[("b", &[3, 1])]),
                    standby_tasks: tasks(&[("a", &[0]), ("c", &[2, 5])]),
                },
            ),
            ("m1".to_string(), MemberAssignment::default()),
            (
                "m3".to_string(),
                MemberAssignment {
                    active_tasks: tasks(&[("a", &[1, 0]), ("c", &[4])]),
                    standby_tasks: Tasks::new(),
                },
            ),
        ])
    }

    #[test]
    fn maps_round_trip_and_members_are_sorted() {
        let a = GroupAssignment::from_map(sample());
        assert_eq!(a.to_map(), sample());
        assert_eq!(a.len(), 3);
        assert_eq!(a.member_ids().collect::<Vec<_>>(), ["m1", "m2", "m3"]);
        let m2 = a.get("m2").expect("m2");
        assert_eq!(m2.active().iter().collect::<Vec<_>>(), [("b", 1), ("b", 3)]);
        assert_eq!(
            m2.standby().iter().collect::<Vec<_>>(),
            [("a", 0), ("c", 2), ("c", 5)]
        );
        let grouped: Vec<(&str, Vec<i32>)> = m2
            .standby()
            .by_subtopology()
            .map(|(sub, ps)| (sub, ps.iter().collect()))
            .collect();
        assert_eq!(grouped, [("a", vec![0]), ("c", vec![2, 5])]);
        assert!(a.get("m1").expect("m1").active().is_empty());
        assert!(a.get("m4").is_none());
        assert!(a.get("").is_none());
    }

    #[test]
    fn equality_compares_contents_not_layout() {
        let a = GroupAssignment::from_map(sample());
        // The same assignment laid out over more subtopology ids (as the assignor lays it out: every
        // subtopology of the topology, used or not).
        let mut b = GroupAssignment::with_subtopologies(["a", "b", "c", "d"].into_iter(), 3, 6, 8);
        let t = |sub, partition| TaskRef { sub, partition };
        b.push_member("m1", [], []);
        b.push_member("m2", [t(1, 1), t(1, 3)], [t(0, 0), t(2, 2), t(2, 5)]);
        b.push_member("m3", [t(0, 0), t(0, 1), t(2, 4)], []);
        assert_eq!(a, b);
        let mut c = GroupAssignment::with_subtopologies(["a", "b", "c"].into_iter(), 3, 6, 8);
        c.push_member("m1", [], []);
        c.push_member("m2", [t(1, 1), t(1, 3)], [t(0, 0), t(2, 2), t(2, 5)]);
        c.push_member("m3", [t(0, 0), t(0, 1)], [t(2, 4)]);
        assert_ne!(a, c, "a task moved from active to standby");
        assert_ne!(a, GroupAssignment::new());
        assert_eq!(
            GroupAssignment::new(),
            GroupAssignment::from_map(BTreeMap::new())
        );
    }
}

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

/// Kafka's `MemberAssignment`: the tasks one member should own. Like Kafka 4.4's, it has no warm-up tasks
/// (the coordinator's target assignment always has an empty warm-up set).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberAssignment {
    /// Active tasks.
    pub active_tasks: Tasks,
    /// Standby tasks.
    pub standby_tasks: Tasks,
}

/// Kafka's `GroupAssignment`: one entry for every member of the [`GroupSpec`], empty ones included.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupAssignment {
    /// Member id -> assignment.
    pub members: BTreeMap<String, MemberAssignment>,
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

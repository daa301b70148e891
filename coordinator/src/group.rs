//! What every group type answers for offsets and deletion: Kafka's `Group` interface
//! (`group-coordinator/.../Group.java`). The offsets code asks the group that owns the offsets, whatever
//! its type, through [`GroupValidation`].

use kafka_bugs::KafkaBugs;
use uuid::Uuid;

use crate::error::ApiError;
use crate::outcome::TimerTask;
use crate::records::Record;
use crate::timer::Timers;

/// What one group type of a shard may ask of the other. Kafka keeps every group in one map, so a
/// classic JoinGroup meets a streams group of the same id (and replaces it when it is empty,
/// `maybeDeleteEmptyStreamsGroup`), and a streams join an empty classic one; each type sees the other
/// only through this, so neither depends on the other.
pub trait OtherGroupType {
    /// Whether this type holds a group `group_id`.
    fn holds(&self, group_id: &str) -> bool;
    /// Whether that group exists and is empty.
    fn is_empty(&self, group_id: &str) -> bool;
    /// The records that delete the group (still to be replayed).
    fn tombstones(&self, group_id: &str) -> Vec<Record>;
    /// Cancels the group's timers (a deleted group's).
    fn cancel_timers(&mut self, group_id: &str, timers: &mut Timers<TimerTask>);
    /// Whether this is the classic group type (a consumer join converts an empty classic group and
    /// upgrades a non-empty one).
    fn is_classic(&self) -> bool {
        false
    }
    /// The group's protocol type, when it has one (classic groups).
    fn protocol_type(&self, _group_id: &str) -> Option<String> {
        None
    }
    /// The group's number of members.
    fn member_count(&self, _group_id: &str) -> usize {
        0
    }
    /// What an online upgrade reads of a classic group (`ConsumerGroup.fromClassicGroup`), when this
    /// type holds one of that id.
    fn classic_view(&self, _group_id: &str) -> Option<ClassicGroupView> {
        None
    }
}

/// A classic group as the consumer code converts it (online upgrade, KIP-848): its generation, the
/// selected protocol and every member (`ClassicGroup.allMembers()`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicGroupView {
    pub generation_id: i32,
    pub protocol_name: Option<String>,
    pub members: Vec<ClassicMemberView>,
}

/// Partitions by topic name, in the order an assignment lists them.
pub type NamedPartitions = Vec<(String, Vec<i32>)>;

/// A consumer group turned into a classic group (online downgrade, `ClassicGroup.fromConsumerGroup`):
/// what the classic side needs to build the group, its GroupMetadata record and its timers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DowngradedGroup {
    pub group_id: String,
    /// The consumer group's epoch, which becomes the generation.
    pub generation_id: i32,
    /// The remaining classic members in the consumer group's member order (the first becomes leader);
    /// `assignment` is empty, `target` holds each one's target partitions by topic name.
    pub members: Vec<(ClassicMemberView, NamedPartitions)>,
    /// `prepareRebalance`'s reason, when the new group must rebalance at once.
    pub rebalance_reason: Option<String>,
}

/// One member of a [`ClassicGroupView`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMemberView {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub session_timeout_ms: i32,
    /// (name, metadata) in the member's order of preference.
    pub protocols: Vec<(String, Vec<u8>)>,
    /// The assignment of the last completed sync (empty: none).
    pub assignment: Vec<u8>,
}

/// Two other group types seen as one by a group type's handler (a group id belongs to at most one type):
/// `first` as it is, `second` replaceable only when `second_replaceable` (a classic JoinGroup replaces an
/// empty consumer group, `maybeDeleteEmptyConsumerGroup`; a streams join never replaces one).
pub struct TwoTypes<'a> {
    pub first: &'a mut dyn OtherGroupType,
    pub second: &'a dyn OtherGroupType,
    pub second_replaceable: bool,
}

impl OtherGroupType for TwoTypes<'_> {
    fn holds(&self, group_id: &str) -> bool {
        self.first.holds(group_id) || self.second.holds(group_id)
    }

    fn is_empty(&self, group_id: &str) -> bool {
        if self.first.holds(group_id) {
            self.first.is_empty(group_id)
        } else {
            self.second_replaceable && self.second.is_empty(group_id)
        }
    }

    fn tombstones(&self, group_id: &str) -> Vec<Record> {
        if self.first.holds(group_id) {
            self.first.tombstones(group_id)
        } else {
            self.second.tombstones(group_id)
        }
    }

    fn cancel_timers(&mut self, group_id: &str, timers: &mut Timers<TimerTask>) {
        // The second type is a consumer group, whose empty form has no timers.
        if self.first.holds(group_id) {
            self.first.cancel_timers(group_id, timers);
        }
    }

    fn is_classic(&self) -> bool {
        self.first.is_classic()
    }

    fn protocol_type(&self, group_id: &str) -> Option<String> {
        self.first.protocol_type(group_id)
    }

    fn member_count(&self, group_id: &str) -> usize {
        self.first.member_count(group_id)
    }

    fn classic_view(&self, group_id: &str) -> Option<ClassicGroupView> {
        self.first.classic_view(group_id)
    }
}

/// [`TwoTypes`] read-only, for a handler that never converts the first type's groups itself: the
/// second type's groups are never replaceable.
pub struct TwoTypesRef<'a> {
    pub first: &'a dyn OtherGroupType,
    pub second: &'a dyn OtherGroupType,
}

impl OtherGroupType for TwoTypesRef<'_> {
    fn holds(&self, group_id: &str) -> bool {
        self.first.holds(group_id) || self.second.holds(group_id)
    }

    fn is_empty(&self, group_id: &str) -> bool {
        self.first.holds(group_id) && self.first.is_empty(group_id)
    }

    fn tombstones(&self, group_id: &str) -> Vec<Record> {
        if self.first.holds(group_id) {
            self.first.tombstones(group_id)
        } else {
            Vec::new()
        }
    }

    fn cancel_timers(&mut self, _group_id: &str, _timers: &mut Timers<TimerTask>) {}

    fn is_classic(&self) -> bool {
        self.first.is_classic()
    }
}

/// The operations on a group a client may perform when no authorizer is configured (READ, DELETE,
/// DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS as a bit field of their ACL operation codes).
pub const ALL_GROUP_OPERATIONS: i32 = (1 << 3) | (1 << 6) | (1 << 8) | (1 << 10) | (1 << 11);

/// From when an offset's retention runs (Kafka's `OffsetExpirationConditionImpl` and its base
/// timestamp function). An offset committed with an explicit expire timestamp (OffsetCommit v2-4
/// retention) expires at that timestamp instead, whatever the condition; the rule itself is in
/// `offsets::expiration_condition`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OffsetExpirationCondition {
    /// Since the offset was committed.
    SinceCommit,
    /// Since the group became empty (its current state timestamp); since the commit when the group
    /// has no state timestamp (loaded from a GroupMetadata record without one).
    SinceEmpty(Option<i64>),
}

/// The kind of a group, as DescribeGroups/ListGroups report it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum GroupType {
    Classic,
    Consumer,
    Streams,
}

impl GroupType {
    /// Kafka's `Group.GroupType.toString()`.
    pub fn name(self) -> &'static str {
        match self {
            GroupType::Classic => "classic",
            GroupType::Consumer => "consumer",
            GroupType::Streams => "streams",
        }
    }
}

/// A per-partition check: (topic name, topic id or nil, partition).
pub type PartitionCheck<'a> = Box<dyn Fn(&str, Uuid, i32) -> Result<(), ApiError> + 'a>;

/// Validates each partition of an accepted offset commit (Kafka's `CommitPartitionValidator`): called
/// with (topic name, topic id or nil, partition).
pub enum CommitPartitionValidator<'a> {
    /// Every partition is accepted.
    NoOp,
    /// Each partition is checked, e.g. against a streams member's per-task assignment epochs.
    Check(PartitionCheck<'a>),
}

impl CommitPartitionValidator<'_> {
    pub fn validate(&self, topic: &str, topic_id: Uuid, partition: i32) -> Result<(), ApiError> {
        match self {
            CommitPartitionValidator::NoOp => Ok(()),
            CommitPartitionValidator::Check(check) => check(topic, topic_id, partition),
        }
    }
}

impl std::fmt::Debug for CommitPartitionValidator<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CommitPartitionValidator::NoOp => f.write_str("NoOp"),
            CommitPartitionValidator::Check(_) => f.write_str("Check(..)"),
        }
    }
}

/// Kafka's `Group` validation methods, implemented by every group type.
pub trait GroupValidation {
    fn group_type(&self) -> GroupType;

    /// OffsetCommit / TxnOffsetCommit admission (`Group.validateOffsetCommit`); `bugs` are the
    /// Kafka bugs switched on (a switch of an older release's admission rule reads it).
    fn validate_offset_commit(
        &self,
        member_id: &str,
        group_instance_id: Option<&str>,
        generation_id_or_member_epoch: i32,
        is_transactional: bool,
        api_version: i16,
        bugs: &KafkaBugs,
    ) -> Result<CommitPartitionValidator<'_>, ApiError>;

    /// OffsetFetch admission (`Group.validateOffsetFetch`); `member_id` is `None` when not sent.
    fn validate_offset_fetch(
        &self,
        member_id: Option<&str>,
        member_epoch: i32,
    ) -> Result<(), ApiError>;

    /// OffsetDelete admission (`Group.validateOffsetDelete`).
    fn validate_offset_delete(&self) -> Result<(), ApiError>;

    /// DeleteGroups admission (`Group.validateDeleteGroup`).
    fn validate_delete_group(&self) -> Result<(), ApiError>;

    /// Whether the group currently consumes `topic` (offset expiration and OffsetDelete use it).
    fn is_subscribed_to_topic(&self, topic: &str) -> bool;
}

/// One row of ListGroups.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct GroupListing {
    pub group_id: String,
    /// The protocol type ("consumer" for classic consumer groups, "streams" for streams groups).
    pub protocol_type: String,
    /// Kafka's state name as ListGroups reports it (e.g. "Stable", "Empty", "Reconciling").
    pub state: String,
    pub group_type: GroupType,
}

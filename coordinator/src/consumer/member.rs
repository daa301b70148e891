//! A consumer-group member (Kafka's `ConsumerGroupMember`) and its reconciliation state
//! (`MemberState`).

use std::collections::{BTreeMap, BTreeSet};

use uuid::Uuid;

use crate::records::consumer::{
    ClassicMemberMetadata, ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupMemberMetadataValue, CurrentTopicPartitions,
};

/// Partitions by topic, each with the epoch it was assigned at (KIP-1251's assignment epochs): Kafka's
/// `Map<Uuid, Map<Integer, Integer>>`.
pub type PartitionEpochs = BTreeMap<Uuid, BTreeMap<i32, i32>>;

/// Partitions by topic (Kafka's `Map<Uuid, Set<Integer>>`, an `Assignment`).
pub type Partitions = BTreeMap<Uuid, BTreeSet<i32>>;

/// `MemberState` with its record byte.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemberState {
    Stable,
    UnrevokedPartitions,
    UnreleasedPartitions,
    /// Any byte this version does not know (`MemberState.fromValue`).
    Unknown,
}

impl MemberState {
    pub fn value(self) -> i8 {
        match self {
            MemberState::Stable => 0,
            MemberState::UnrevokedPartitions => 1,
            MemberState::UnreleasedPartitions => 2,
            MemberState::Unknown => 127,
        }
    }

    pub fn from_value(v: i8) -> Self {
        match v {
            0 => MemberState::Stable,
            1 => MemberState::UnrevokedPartitions,
            2 => MemberState::UnreleasedPartitions,
            _ => MemberState::Unknown,
        }
    }
}

/// One member of a consumer group, with Kafka's defaults (`ConsumerGroupMember.Builder`). Equality is
/// Kafka's `equals`: every field, partitions and their assignment epochs included.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConsumerGroupMember {
    pub member_id: String,
    pub member_epoch: i32,
    pub previous_member_epoch: i32,
    pub state: MemberState,
    pub instance_id: Option<String>,
    pub rack_id: Option<String>,
    pub rebalance_timeout_ms: i32,
    pub client_id: String,
    pub client_host: String,
    pub subscribed_topic_names: BTreeSet<String>,
    /// `""` for a member subscribed by names only (the builder's default); `None` only when a record
    /// carried a null regex.
    pub subscribed_topic_regex: Option<String>,
    pub server_assignor: Option<String>,
    pub assigned: PartitionEpochs,
    pub pending_revocation: PartitionEpochs,
    pub classic: Option<ClassicMemberMetadata>,
}

impl ConsumerGroupMember {
    /// `new ConsumerGroupMember.Builder(memberId).build()`.
    pub fn new(member_id: impl Into<String>) -> Self {
        Self {
            member_id: member_id.into(),
            member_epoch: 0,
            previous_member_epoch: -1,
            state: MemberState::Stable,
            instance_id: None,
            rack_id: None,
            rebalance_timeout_ms: -1,
            client_id: String::new(),
            client_host: String::new(),
            subscribed_topic_names: BTreeSet::new(),
            subscribed_topic_regex: Some(String::new()),
            server_assignor: None,
            assigned: PartitionEpochs::new(),
            pending_revocation: PartitionEpochs::new(),
            classic: None,
        }
    }

    /// `isReconciledTo`: STABLE at the target epoch.
    pub fn is_reconciled_to(&self, target_epoch: i32) -> bool {
        self.state == MemberState::Stable && self.member_epoch == target_epoch
    }

    /// `useClassicProtocol`.
    pub fn use_classic_protocol(&self) -> bool {
        self.classic.is_some()
    }

    /// The member's regex when it has a non-empty one.
    pub fn regex(&self) -> Option<&str> {
        self.subscribed_topic_regex
            .as_deref()
            .filter(|r| !r.is_empty())
    }

    /// `Builder.updateMemberEpoch`: the new epoch, the old one becoming the previous epoch.
    pub fn update_member_epoch(&mut self, epoch: i32) {
        self.previous_member_epoch = self.member_epoch;
        self.member_epoch = epoch;
    }

    /// `Builder.updateWith(ConsumerGroupMemberMetadataValue)`.
    pub fn apply_metadata(&mut self, v: &ConsumerGroupMemberMetadataValue) {
        self.instance_id = v.instance_id.clone();
        self.rack_id = v.rack_id.clone();
        self.client_id = v.client_id.clone();
        self.client_host = v.client_host.clone();
        self.subscribed_topic_names = v.subscribed_topic_names.iter().cloned().collect();
        self.subscribed_topic_regex = v.subscribed_topic_regex.clone();
        self.rebalance_timeout_ms = v.rebalance_timeout_ms;
        self.server_assignor = v.server_assignor.clone();
        self.classic = v.classic_member_metadata.clone();
    }

    /// `Builder.updateWith(ConsumerGroupCurrentMemberAssignmentValue)`: epochs, state, and the
    /// partitions rebuilt with their assignment epochs (`Utils.assignmentFromTopicPartitions`: a topic
    /// without epochs, or with a list of another length, takes `max(memberEpoch, 0)` for each).
    pub fn apply_assignment(&mut self, v: &ConsumerGroupCurrentMemberAssignmentValue) {
        self.member_epoch = v.member_epoch;
        self.previous_member_epoch = v.previous_member_epoch;
        self.state = MemberState::from_value(v.state);
        self.assigned = assignment_from_record(&v.assigned_partitions, v.member_epoch);
        self.pending_revocation =
            assignment_from_record(&v.partitions_pending_revocation, v.member_epoch);
    }

    /// The member's metadata record value (`newConsumerGroupMemberSubscriptionRecord`: names sorted).
    pub fn metadata_value(&self) -> ConsumerGroupMemberMetadataValue {
        let mut names: Vec<String> = self.subscribed_topic_names.iter().cloned().collect();
        names.sort_by(|a, b| crate::java::compare_strings(a, b));
        ConsumerGroupMemberMetadataValue {
            instance_id: self.instance_id.clone(),
            rack_id: self.rack_id.clone(),
            client_id: self.client_id.clone(),
            client_host: self.client_host.clone(),
            subscribed_topic_names: names,
            subscribed_topic_regex: self.subscribed_topic_regex.clone(),
            rebalance_timeout_ms: self.rebalance_timeout_ms,
            server_assignor: self.server_assignor.clone(),
            classic_member_metadata: self.classic.clone(),
        }
    }

    /// The member's current-assignment record value (`newConsumerGroupCurrentAssignmentRecord`).
    pub fn assignment_value(&self) -> ConsumerGroupCurrentMemberAssignmentValue {
        ConsumerGroupCurrentMemberAssignmentValue {
            member_epoch: self.member_epoch,
            previous_member_epoch: self.previous_member_epoch,
            state: self.state.value(),
            assigned_partitions: to_topic_partitions(&self.assigned),
            partitions_pending_revocation: to_topic_partitions(&self.pending_revocation),
        }
    }

    /// The assignment epoch of an assigned partition (`assignmentEpoch`).
    pub fn assignment_epoch(&self, topic: &Uuid, partition: i32) -> Option<i32> {
        self.assigned
            .get(topic)
            .and_then(|p| p.get(&partition))
            .copied()
    }

    /// The assignment epoch of a partition pending revocation (`pendingRevocationEpoch`).
    pub fn pending_revocation_epoch(&self, topic: &Uuid, partition: i32) -> Option<i32> {
        self.pending_revocation
            .get(topic)
            .and_then(|p| p.get(&partition))
            .copied()
    }
}

/// `Utils.assignmentFromTopicPartitions`.
fn assignment_from_record(topics: &[CurrentTopicPartitions], member_epoch: i32) -> PartitionEpochs {
    let default_epoch = member_epoch.max(0);
    let mut out = PartitionEpochs::new();
    for tp in topics {
        let entry = out.entry(tp.topic_id).or_default();
        match &tp.assignment_epochs {
            Some(epochs) if epochs.len() == tp.partitions.len() => {
                for (p, e) in tp.partitions.iter().zip(epochs) {
                    entry.insert(*p, *e);
                }
            }
            _ => {
                for p in &tp.partitions {
                    entry.insert(*p, default_epoch);
                }
            }
        }
    }
    out
}

/// Topics in the order a `new HashMap<Uuid, _>()` holding them iterates (the order regroup writes
/// assignment lists in; Kafka's maps sometimes have other capacities, an order its own tests ignore),
/// partitions ascending.
pub fn topic_order<V>(map: &BTreeMap<Uuid, V>) -> Vec<Uuid> {
    let ids: Vec<Uuid> = map.keys().copied().collect();
    crate::consumer::assignor::spec::java_hash_set_order_of_topics(&ids, None)
}

/// `GroupCoordinatorRecordHelpers.toTopicPartitions`: partitions with their assignment epochs.
pub fn to_topic_partitions(assignment: &PartitionEpochs) -> Vec<CurrentTopicPartitions> {
    topic_order(assignment)
        .into_iter()
        .map(|topic| {
            let parts = &assignment[&topic];
            CurrentTopicPartitions {
                topic_id: topic,
                partitions: parts.keys().copied().collect(),
                assignment_epochs: Some(parts.values().copied().collect()),
            }
        })
        .collect()
}

/// The partitions of an assignment with epochs, without them.
pub fn without_epochs(assignment: &PartitionEpochs) -> Partitions {
    assignment
        .iter()
        .map(|(t, p)| (*t, p.keys().copied().collect()))
        .collect()
}

//! What a consumer-group partition assignor receives and returns: the Rust shape of Kafka 4.4's
//! `group-coordinator-api` types (`GroupSpec`, `MemberSubscription` + `MemberAssignment` as
//! `MemberSubscriptionAndAssignmentImpl` builds them, `SubscriptionType`, `SubscribedTopicDescriber`,
//! `GroupAssignment`, `MemberAssignment`, `PartitionAssignorException`).
//!
//! Kafka hands the assignor Java collections whose iteration order decides ties (which partitions a member
//! over its quota keeps, which member takes the extra partition). Where that order comes from outside the
//! assignor, the input here is a `Vec` *in that iteration order*:
//! * [`GroupSpec::members`] is `memberIds()` order; [`GroupSpec::from_member_map_insertion_order`] computes
//!   it the way `TargetAssignmentBuilder#build` builds its `HashMap<String, ...>`;
//! * a member's subscribed topic ids and previous assignment (its current target: topics, and partitions
//!   inside each topic) are listed in the order their `Set`/`Map` iterates.
//!
//! Outputs are ordered maps (`BTreeMap`/`BTreeSet`): an assignment is a value, its order means nothing.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use uuid::Uuid;

use crate::java::{
    JavaHash, JavaHashMapOrder, integer_tree_key, java_hash_order_of, string_hash, uuid_tree_key,
};

/// A topic id (Kafka's `Uuid`).
pub type TopicId = Uuid;

/// Partitions by topic, as a member assignment holds them.
pub type TopicPartitions = BTreeMap<TopicId, BTreeSet<i32>>;

/// Largest total number of partitions of the subscribed topics regroup assigns. Not Kafka's: Kafka
/// allocates per-partition arrays and lists and would run out of memory long before; regroup answers
/// [`PartitionAssignorError::TooManyPartitions`] instead.
pub const MAX_SUBSCRIBED_PARTITIONS: i64 = 1 << 22;

/// Kafka's `SubscriptionType`, computed by the group (`ConsumerGroup#subscriptionType`) and handed to the
/// assignor, which picks its algorithm by it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SubscriptionType {
    /// All members use the same subscription.
    Homogeneous,
    /// Not all members use the same subscription.
    Heterogeneous,
}

impl fmt::Display for SubscriptionType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SubscriptionType::Homogeneous => "Homogeneous",
            SubscriptionType::Heterogeneous => "Heterogeneous",
        })
    }
}

/// One member as the assignor sees it: Kafka's `MemberSubscriptionAndAssignmentImpl` (its
/// `MemberSubscription` and its `MemberAssignment`, the member's current target assignment).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberSubscriptionSpec {
    /// The member id.
    pub member_id: String,
    /// The member's rack (no 4.4 assignor reads it: rack-aware assignment was removed by KAFKA-16694).
    pub rack_id: Option<String>,
    /// `group.instance.id` of a static member (the range assignor orders members by it).
    pub instance_id: Option<String>,
    /// Subscribed topic ids, in the iteration order of the member's `Set<Uuid>`; no id twice.
    pub subscribed_topic_ids: Vec<TopicId>,
    /// The member's current target assignment, in the iteration order of its `Map<Uuid, Set<Integer>>`
    /// (topics, and each topic's partitions); no topic twice, no partition twice within a topic.
    pub assignment: Vec<(TopicId, Vec<i32>)>,
}

impl MemberSubscriptionSpec {
    /// A member with no rack, no instance id, the given subscription and no assignment.
    pub fn new(member_id: impl Into<String>, subscribed_topic_ids: Vec<TopicId>) -> Self {
        Self {
            member_id: member_id.into(),
            subscribed_topic_ids,
            ..Self::default()
        }
    }

    /// Whether the member subscribes to `topic`.
    pub fn subscribes_to(&self, topic: &TopicId) -> bool {
        self.subscribed_topic_ids.contains(topic)
    }
}

/// Kafka's `GroupSpec` (`GroupSpecImpl` as `TargetAssignmentBuilder#build` makes it for a consumer group).
///
/// `isPartitionAssigned` answers from the members' current target assignments (Kafka passes the group's
/// inverted target assignment, which is built from the same assignments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupSpec {
    /// The members in `memberIds()` order (see the module documentation). Member ids are unique.
    pub members: Vec<MemberSubscriptionSpec>,
    /// The group's subscription type.
    pub subscription_type: SubscriptionType,
}

impl GroupSpec {
    /// The spec `TargetAssignmentBuilder#build` hands the assignor: `members` are put, in the given order,
    /// into a `new HashMap<String, ...>()`, and `memberIds()` is that map's key set, so the members come out
    /// in Java's iteration order of those ids. A member id given twice keeps its first place and its last
    /// value, as `HashMap.put` does.
    pub fn from_member_map_insertion_order(
        members: Vec<MemberSubscriptionSpec>,
        subscription_type: SubscriptionType,
    ) -> Self {
        let mut position: BTreeMap<String, usize> = BTreeMap::new();
        let mut distinct: Vec<MemberSubscriptionSpec> = Vec::with_capacity(members.len());
        for m in members {
            match position.get(&m.member_id) {
                Some(&i) => distinct[i] = m,
                None => {
                    position.insert(m.member_id.clone(), distinct.len());
                    distinct.push(m);
                }
            }
        }
        let order = {
            let mut map = JavaHashMapOrder::new();
            for m in &distinct {
                map.put_hashed(&m.member_id, string_hash(&m.member_id));
            }
            map.iteration_order()
        };
        let mut slots: Vec<Option<MemberSubscriptionSpec>> =
            distinct.into_iter().map(Some).collect();
        let members = order
            .into_iter()
            .map(|i| {
                slots[i as usize]
                    .take()
                    .expect("each member is listed once")
            })
            .collect();
        Self {
            members,
            subscription_type,
        }
    }

    /// The subscription type of a group without regular expressions whose members subscribe to these
    /// topics: homogeneous iff every member's set of topics is the same (`ConsumerGroup#subscriptionType`
    /// compares each subscribed topic's subscriber count with the member count; a group where nobody
    /// subscribes is homogeneous too).
    pub fn subscription_type_of(members: &[MemberSubscriptionSpec]) -> SubscriptionType {
        let mut sets = members
            .iter()
            .map(|m| m.subscribed_topic_ids.iter().collect::<BTreeSet<_>>());
        match sets.next() {
            None => SubscriptionType::Homogeneous,
            Some(first) => {
                if sets.all(|s| s == first) {
                    SubscriptionType::Homogeneous
                } else {
                    SubscriptionType::Heterogeneous
                }
            }
        }
    }

    /// The member ids in `memberIds()` order.
    pub fn member_ids(&self) -> impl Iterator<Item = &str> + '_ {
        self.members.iter().map(|m| m.member_id.as_str())
    }

    /// Checks what Java's collections guarantee by construction: unique member ids, no topic twice in a
    /// subscription or an assignment, no partition twice within a topic of an assignment.
    pub fn validate(&self) -> Result<(), PartitionAssignorError> {
        let mut ids = BTreeSet::new();
        for m in &self.members {
            if !ids.insert(m.member_id.as_str()) {
                return Err(PartitionAssignorError::InvalidSpec(format!(
                    "member id {:?} is listed twice",
                    m.member_id
                )));
            }
            let mut topics = BTreeSet::new();
            for t in &m.subscribed_topic_ids {
                if !topics.insert(t) {
                    return Err(PartitionAssignorError::InvalidSpec(format!(
                        "member {:?} subscribes to topic {} twice",
                        m.member_id,
                        kafka_uuid(t)
                    )));
                }
            }
            let mut topics = BTreeSet::new();
            for (t, partitions) in &m.assignment {
                if !topics.insert(t) {
                    return Err(PartitionAssignorError::InvalidSpec(format!(
                        "member {:?} has topic {} twice in its assignment",
                        m.member_id,
                        kafka_uuid(t)
                    )));
                }
                let mut seen = BTreeSet::new();
                for p in partitions {
                    if !seen.insert(p) {
                        return Err(PartitionAssignorError::InvalidSpec(format!(
                            "member {:?} has partition {p} of topic {} twice in its assignment",
                            m.member_id,
                            kafka_uuid(t)
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// `GroupSpecImpl#isPartitionAssigned`'s inverted target assignment, as keys: every partition some
    /// member's current target holds.
    pub(crate) fn assigned_partitions(&self) -> TopicPartitions {
        let mut out = TopicPartitions::new();
        for m in &self.members {
            for (t, partitions) in &m.assignment {
                out.entry(*t)
                    .or_default()
                    .extend(partitions.iter().copied());
            }
        }
        out
    }
}

/// One topic of the metadata image, as `SubscribedTopicDescriber` describes it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TopicMetadata {
    /// Number of partitions (0..n); never negative.
    pub num_partitions: i32,
    /// Racks of each partition's replicas (absent = none known). No 4.4 assignor reads them.
    pub partition_racks: BTreeMap<i32, BTreeSet<String>>,
}

/// Kafka's `SubscribedTopicDescriber` over the metadata image.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SubscribedTopicDescriber {
    /// The topics of the image.
    pub topics: BTreeMap<TopicId, TopicMetadata>,
}

impl SubscribedTopicDescriber {
    /// A describer of topics with the given partition counts and no racks.
    pub fn new(topics: impl IntoIterator<Item = (TopicId, i32)>) -> Self {
        Self {
            topics: topics
                .into_iter()
                .map(|(id, num_partitions)| {
                    (
                        id,
                        TopicMetadata {
                            num_partitions,
                            partition_racks: BTreeMap::new(),
                        },
                    )
                })
                .collect(),
        }
    }

    /// Checks what the metadata image guarantees: no negative partition count (Java would fail on it with
    /// a `NegativeArraySizeException` in one builder and loop zero times in the others).
    pub fn validate(&self) -> Result<(), PartitionAssignorError> {
        match self.topics.iter().find(|(_, t)| t.num_partitions < 0) {
            Some((id, t)) => Err(PartitionAssignorError::InvalidSpec(format!(
                "topic {} has a negative partition count: {}",
                kafka_uuid(id),
                t.num_partitions
            ))),
            None => Ok(()),
        }
    }

    /// `SubscribedTopicDescriber#numPartitions`: the topic's partition count, or -1 if the image has no such
    /// topic.
    pub fn num_partitions(&self, topic: &TopicId) -> i32 {
        self.topics.get(topic).map_or(-1, |t| t.num_partitions)
    }

    /// `SubscribedTopicDescriber#racksForPartition`: the racks of the partition's replicas (empty when
    /// unknown).
    pub fn racks_for_partition(&self, topic: &TopicId, partition: i32) -> BTreeSet<String> {
        self.topics
            .get(topic)
            .and_then(|t| t.partition_racks.get(&partition))
            .cloned()
            .unwrap_or_default()
    }

    /// Total partitions of the given topics that exist; [`PartitionAssignorError::TooManyPartitions`]
    /// past [`MAX_SUBSCRIBED_PARTITIONS`].
    pub(crate) fn check_size<'a>(
        &self,
        topics: impl IntoIterator<Item = &'a TopicId>,
    ) -> Result<(), PartitionAssignorError> {
        let total: i64 = topics
            .into_iter()
            .map(|t| i64::from(self.num_partitions(t).max(0)))
            .sum();
        if total > MAX_SUBSCRIBED_PARTITIONS {
            return Err(PartitionAssignorError::TooManyPartitions { total });
        }
        Ok(())
    }
}

/// Kafka's `MemberAssignment`: the partitions one member should own.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MemberAssignment {
    /// Partitions by topic. A topic may map to an empty set when the member's previous assignment listed
    /// it so and the assignor kept it as it was (Kafka returns that map untouched).
    pub partitions: TopicPartitions,
}

impl MemberAssignment {
    /// Number of partitions.
    pub fn len(&self) -> usize {
        self.partitions.values().map(BTreeSet::len).sum()
    }

    /// Whether it holds no partition.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Kafka's `GroupAssignment`: the new target of each member the assignor returned. A member may be
/// absent (both uniform builders return no member at all when nobody subscribes to an existing topic);
/// the coordinator gives an absent member an empty target.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct GroupAssignment {
    /// Member id -> assignment.
    pub members: BTreeMap<String, MemberAssignment>,
}

/// Why an assignor failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PartitionAssignorError {
    /// Kafka's `PartitionAssignorException` from both uniform builders: a subscribed topic is not in the
    /// metadata image.
    #[error("Members are subscribed to topic {} which doesn't exist in the topic metadata.", kafka_uuid(.0))]
    UnknownSubscribedTopic(TopicId),
    /// Kafka's `PartitionAssignorException` from the range assignor: a subscribed topic is not in the image.
    #[error("Member is subscribed to a non-existent topic")]
    NonExistentTopic,
    /// Kafka's `PartitionAssignorException` from
    /// `UniformHomogeneousAssignmentBuilder#assignRemainingPartitions`: more partitions to hand out than room
    /// under the quotas (only reachable when previous assignments hold partitions twice or beyond a topic's
    /// partition count).
    #[error("Partitions were left unassigned")]
    PartitionsLeftUnassigned,
    /// Java's `ArrayIndexOutOfBoundsException` (message as the JVM words it) from
    /// `UniformHeterogeneousAssignmentBuilder#maybeRevokePartitions`: a member's previous assignment holds
    /// a partition of a subscribed topic outside `0..numPartitions`.
    #[error("Index {index} out of bounds for length {length}")]
    IndexOutOfBounds {
        /// The partition.
        index: i32,
        /// The topic's partition count.
        length: i32,
    },
    /// regroup's: the subscribed topics have more partitions than [`MAX_SUBSCRIBED_PARTITIONS`].
    #[error(
        "the subscribed topics have {total} partitions, more than regroup assigns ({MAX_SUBSCRIBED_PARTITIONS})"
    )]
    TooManyPartitions {
        /// Their total.
        total: i64,
    },
    /// regroup's: the spec breaks what Java's collections guarantee (see [`GroupSpec::validate`]).
    #[error("invalid group spec: {0}")]
    InvalidSpec(String),
}

impl PartitionAssignorError {
    /// Whether Kafka throws this as a `PartitionAssignorException` (the others are another Java exception,
    /// or regroup's own refusal).
    pub fn is_partition_assignor_exception(&self) -> bool {
        matches!(
            self,
            Self::UnknownSubscribedTopic(_)
                | Self::NonExistentTopic
                | Self::PartitionsLeftUnassigned
        )
    }
}

/// Kafka's `Uuid.toString()`.
pub fn kafka_uuid(id: &TopicId) -> String {
    crate::records::json::kafka_uuid_string(id)
}

/// Kafka's `Uuid.fromString` for the 22-character form: URL-safe base64 of the 16 bytes, where, as with
/// Java's decoder, the low 4 bits of the last character are ignored (`T2-B4s3VTwiI5YHbPp6YUe` reads as
/// `T2-B4s3VTwiI5YHbPp6YUQ`, the id Kafka's tests name topic2 by).
pub fn parse_topic_id(text: &str) -> Option<TopicId> {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    if text.len() != 22 || !text.is_ascii() {
        return None;
    }
    let last = ALPHABET.iter().position(|c| *c == text.as_bytes()[21])?;
    let canonical = format!("{}{}", &text[..21], ALPHABET[last & !0xf] as char);
    crate::records::json::parse_kafka_uuid(&canonical)
}

/// The iteration order of a `java.util.HashSet<Uuid>` (or a `HashMap` keyed by them) into which `ids`
/// were added in this order, created with `initial_capacity` (None: `new HashSet<>()`).
pub fn java_hash_set_order_of_topics(
    ids: &[TopicId],
    initial_capacity: Option<i32>,
) -> Vec<TopicId> {
    let keys: Vec<String> = ids.iter().map(uuid_tree_key).collect();
    let hashed: Vec<(i32, &str)> = ids
        .iter()
        .zip(&keys)
        .map(|(id, key)| (id.java_hash(), key.as_str()))
        .collect();
    java_hash_order_of(&hashed, initial_capacity)
        .into_iter()
        .map(|i| ids[i])
        .collect()
}

/// The iteration order of a `java.util.HashSet<Integer>` into which `values` were added in this order,
/// created with `initial_capacity` (None: `new HashSet<>()`).
pub fn java_hash_set_order_of_ints(values: &[i32], initial_capacity: Option<i32>) -> Vec<i32> {
    let keys: Vec<String> = values.iter().map(|v| integer_tree_key(*v)).collect();
    let hashed: Vec<(i32, &str)> = values
        .iter()
        .zip(&keys)
        .map(|(v, key)| (*v, key.as_str()))
        .collect();
    java_hash_order_of(&hashed, initial_capacity)
        .into_iter()
        .map(|i| values[i])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(s: &str) -> TopicId {
        parse_topic_id(s).unwrap()
    }

    #[test]
    fn topic_ids_parse_as_kafka_reads_them() {
        // Uuid.fromString(...) in kafka-clients 4.4.0: the bits, and the canonical toString().
        let t2 = id("T2-B4s3VTwiI5YHbPp6YUe");
        assert_eq!(
            t2.as_u64_pair(),
            (0x4f6f_81e2_cdd5_4f08, 0x88e5_81db_3e9e_9851)
        );
        assert_eq!(kafka_uuid(&t2), "T2-B4s3VTwiI5YHbPp6YUQ");
        assert_eq!(t2.java_hash(), 885118816);
        assert_eq!(id("T4-Tw9fVTLCz5HbPp6YQsa").java_hash(), -1944536819);
        assert_eq!(parse_topic_id("T2-B4s3VTwiI5YHbPp6YU"), None);
        assert_eq!(parse_topic_id("T2-B4s3VTwiI5YHbPp6YU*"), None);
    }

    #[test]
    fn member_map_order_is_java_hash_map_order() {
        // GroupMetadataManagerTest#testConsumerGroupHeartbeatWithStableClassicGroup: member-id-1..3 iterate
        // as member-id-2, member-id-1, member-id-3 (buckets 10, 11, 13) in a new HashMap<>().
        let members = ["member-id-1", "member-id-2", "member-id-3"]
            .into_iter()
            .map(|m| MemberSubscriptionSpec::new(m, vec![]))
            .collect();
        let spec =
            GroupSpec::from_member_map_insertion_order(members, SubscriptionType::Homogeneous);
        assert_eq!(
            spec.member_ids().collect::<Vec<_>>(),
            vec!["member-id-2", "member-id-1", "member-id-3"]
        );
    }

    #[test]
    fn a_member_put_twice_keeps_its_first_place_and_last_value() {
        let mut second = MemberSubscriptionSpec::new("A", vec![]);
        second.rack_id = Some("r2".into());
        let members = vec![
            MemberSubscriptionSpec::new("A", vec![]),
            MemberSubscriptionSpec::new("B", vec![]),
            second.clone(),
        ];
        let spec =
            GroupSpec::from_member_map_insertion_order(members, SubscriptionType::Homogeneous);
        assert_eq!(
            spec.members,
            vec![second, MemberSubscriptionSpec::new("B", vec![])]
        );
    }

    #[test]
    fn topic_set_order_is_java_hash_set_order() {
        // UniformHomogeneousAssignmentBuilderTest's ids: a HashSet iterates topic3 before topic1
        // (consumer-groups-44.md §3.2, measured on the 4.4.0 jar).
        let t1 = id("T1-A4s3VTwiI5CTbEp6POw");
        let t3 = id("T3-CU8fVTLCz5YMkLoDQsa");
        assert_eq!(
            java_hash_set_order_of_topics(&[t1, t3], Some(16)),
            vec![t3, t1]
        );
        assert_eq!(java_hash_set_order_of_topics(&[t3, t1], None), vec![t3, t1]);
    }

    #[test]
    fn integer_set_order_is_bucket_order() {
        // 17 lands in bucket 1 of 16, before 3; 0 and 16 share bucket 0 in insertion order.
        assert_eq!(
            java_hash_set_order_of_ints(&[3, 17, 16, 0], None),
            vec![16, 0, 17, 3]
        );
        // With room for 64 buckets every small value has its own, in ascending order.
        assert_eq!(
            java_hash_set_order_of_ints(&[3, 17, 16, 0], Some(64)),
            vec![0, 3, 16, 17]
        );
    }

    #[test]
    fn subscription_type_compares_sets() {
        let a = id("T1-A4s3VTwiI5CTbEp6POw");
        let b = id("T2-B4s3VTwiI5YHbPp6YUe");
        let m = |topics: Vec<TopicId>| MemberSubscriptionSpec::new("m", topics);
        assert_eq!(
            GroupSpec::subscription_type_of(&[]),
            SubscriptionType::Homogeneous
        );
        assert_eq!(
            GroupSpec::subscription_type_of(&[m(vec![a, b]), m(vec![b, a])]),
            SubscriptionType::Homogeneous
        );
        assert_eq!(
            GroupSpec::subscription_type_of(&[m(vec![a, b]), m(vec![a])]),
            SubscriptionType::Heterogeneous
        );
    }

    #[test]
    fn errors_read_as_kafka_words_them() {
        let t = id("T2-B4s3VTwiI5YHbPp6YUe");
        assert_eq!(
            PartitionAssignorError::UnknownSubscribedTopic(t).to_string(),
            "Members are subscribed to topic T2-B4s3VTwiI5YHbPp6YUQ which doesn't exist in the topic metadata."
        );
        assert_eq!(
            PartitionAssignorError::IndexOutOfBounds {
                index: 5,
                length: 3
            }
            .to_string(),
            "Index 5 out of bounds for length 3"
        );
        assert!(PartitionAssignorError::NonExistentTopic.is_partition_assignor_exception());
        assert!(
            !PartitionAssignorError::InvalidSpec(String::new()).is_partition_assignor_exception()
        );
    }

    #[test]
    fn validate_rejects_what_java_sets_cannot_hold() {
        let t = id("T1-A4s3VTwiI5CTbEp6POw");
        let mut m = MemberSubscriptionSpec::new("A", vec![t]);
        m.assignment = vec![(t, vec![0, 0])];
        let spec = GroupSpec {
            members: vec![m],
            subscription_type: SubscriptionType::Homogeneous,
        };
        assert!(matches!(
            spec.validate(),
            Err(PartitionAssignorError::InvalidSpec(s)) if s.contains("partition 0")
        ));
    }
}

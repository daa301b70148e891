//! Offsets deleted wholesale: every offset of a deleted group (Kafka's
//! `OffsetMetadataManager.deleteAllOffsets`) and the offsets of deleted topics (`onTopicsDeleted`).
//! Both only produce tombstones; replaying them changes the store.

use uuid::Uuid;

use crate::java::JavaHashMapOrder;
use crate::records::Record;
use crate::records::offsets::OffsetCommitKey;
use crate::topics::TopicsImage;

use super::store::{OffsetStore, Offsets};

/// A topic that left the metadata image (Kafka's `GroupCoordinatorShard.DeletedTopic`): its id and the
/// name it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeletedTopic {
    pub id: Uuid,
    pub name: String,
}

/// `newOffsetCommitTombstoneRecord`.
pub(crate) fn tombstone(group: &str, topic: &str, partition: i32) -> Record {
    Record::OffsetCommit {
        key: OffsetCommitKey {
            group: group.to_string(),
            topic: topic.to_string(),
            partition,
        },
        value: None,
    }
}

/// `deleteAllOffsets`: a tombstone for every committed offset of the group, then one for every
/// partition that only a pending transaction holds (a committed one already has its tombstone).
pub(crate) fn delete_all_offsets(store: &OffsetStore, group_id: &str, records: &mut Vec<Record>) {
    if let Some(topics) = store.group(group_id) {
        for (topic, partitions) in topics.iter() {
            for partition in partitions.keys() {
                records.push(tombstone(group_id, topic, *partition));
            }
        }
    }
    for (topic, partition) in store.pending_partitions(group_id) {
        if store.get(group_id, &topic, partition).is_none() {
            records.push(tombstone(group_id, &topic, partition));
        }
    }
}

/// `onTopicsDeleted`: tombstones for the committed offsets, then for the pending transactional offsets,
/// of every deleted topic. An offset is deleted only if it was committed for that topic id, or before
/// topic ids were stored (nil id): the offsets of a topic re-created under the same name survive the
/// deletion of its previous incarnation. A partition with both a committed and a pending offset gets
/// two tombstones, as in Kafka.
pub(crate) fn on_topics_deleted(store: &OffsetStore, deleted: &[DeletedTopic]) -> Vec<Record> {
    let mut records = Vec::new();
    let mut delete = |offsets: &Offsets| {
        for (group, topics) in offsets.groups() {
            for topic in deleted {
                let Some(partitions) = topics.get(topic.name.as_str()) else {
                    continue;
                };
                for (partition, offset) in partitions.iter() {
                    if offset.topic_id.is_nil() || offset.topic_id == topic.id {
                        records.push(tombstone(group, &topic.name, *partition));
                    }
                }
            }
        }
    };
    delete(store.committed());
    for (_, offsets) in store.pending() {
        delete(offsets);
    }
    records
}

/// `Uuid.hashCode()`.
fn uuid_hash(id: &Uuid) -> i32 {
    crate::java::JavaHash::java_hash(id)
}

/// The topics of `old` whose id is not in `new` (a re-created topic is a deletion of its old id), in the
/// order Kafka lists them: its `TopicsDelta.deletedTopicIds()` is a `java.util.HashSet`, filled here in
/// name order.
pub fn deleted_topics(old: &TopicsImage, new: &TopicsImage) -> Vec<DeletedTopic> {
    let gone: Vec<DeletedTopic> = old
        .iter()
        .filter(|t| new.get_by_id(&t.id).is_none())
        .map(|t| DeletedTopic {
            id: t.id,
            name: t.name.clone(),
        })
        .collect();
    if gone.len() < 2 {
        return gone;
    }
    let mut set = JavaHashMapOrder::new();
    for topic in &gone {
        set.put_hashed(&topic.name, uuid_hash(&topic.id));
    }
    set.iteration_order()
        .into_iter()
        .map(|i| gone[i as usize].clone())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_hash_matches_java() {
        // new Uuid(0x0123456789abcdefL, 0xfedcba9876543210L).hashCode(): xor = 0xffffffffffffffff,
        // (int) (xor >> 32) ^ (int) xor = -1 ^ -1 = 0.
        let id = Uuid::from_u64_pair(0x0123_4567_89ab_cdef, 0xfedc_ba98_7654_3210);
        assert_eq!(uuid_hash(&id), 0);
        // new Uuid(1L, 2L).hashCode() = 3; new Uuid(1L << 32, 0L).hashCode() = 1.
        assert_eq!(uuid_hash(&Uuid::from_u64_pair(1, 2)), 3);
        assert_eq!(uuid_hash(&Uuid::from_u64_pair(1 << 32, 0)), 1);
    }

    #[test]
    fn deleted_topics_are_the_ids_that_left_the_image() {
        use crate::topics::TopicMetadata;
        let topic = |name: &str, id: u64| TopicMetadata {
            id: Uuid::from_u64_pair(0, id),
            ..TopicMetadata::new(name, 1)
        };
        let old = TopicsImage::from_topics([topic("foo", 1), topic("bar", 2), topic("baz", 3)]);
        // bar deleted, foo re-created under a new id, baz unchanged, qux created.
        let new = TopicsImage::from_topics([topic("foo", 4), topic("baz", 3), topic("qux", 5)]);
        // A HashSet<Uuid> visits bucket (hash ^ hash >>> 16) & 15 in order: foo (hash 1) before bar
        // (hash 2), although bar sorts first by name.
        assert_eq!(
            deleted_topics(&old, &new),
            [
                DeletedTopic {
                    id: Uuid::from_u64_pair(0, 1),
                    name: "foo".to_string()
                },
                DeletedTopic {
                    id: Uuid::from_u64_pair(0, 2),
                    name: "bar".to_string()
                },
            ]
        );
        assert!(deleted_topics(&new, &new).is_empty());
    }
}

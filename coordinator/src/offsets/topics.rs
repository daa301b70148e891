//! The topic checks `KafkaApis` makes on an OffsetCommit / TxnOffsetCommit before the coordinator sees
//! it: topics named by id (OffsetCommit v10+, TxnOffsetCommit v6+) are resolved to names, topics named by
//! name get their id; unknown ids get UNKNOWN_TOPIC_ID, unknown names and partitions that do not exist
//! get UNKNOWN_TOPIC_OR_PARTITION. Rejected partitions are answered in a response built up front (Kafka's
//! `OffsetCommitResponse.Builder`), into which the coordinator's answer is merged.

use protocol::ErrorCode;
use uuid::Uuid;

use crate::topics::TopicsImage;

/// One partition of a commit request, reduced to what the checks need.
pub(crate) struct CommitPartition<'a, P> {
    pub index: i32,
    pub partition: &'a P,
}

/// A topic that passed the checks, with the partitions that exist.
pub(crate) struct ValidTopic<'a, P> {
    pub name: String,
    pub id: Uuid,
    pub partitions: Vec<CommitPartition<'a, P>>,
}

/// One topic's answers: (name, id, (partition, error) in request order).
pub(crate) type TopicAnswer = (String, Uuid, Vec<(i32, ErrorCode)>);

/// Per-topic partition errors, grouped as Kafka's response builders group them: by topic id when the
/// version names topics by id, else by name; topics in first-seen order.
#[derive(Debug, Default)]
pub(crate) struct TopicErrors {
    by_id: bool,
    pub topics: Vec<TopicAnswer>,
}

impl TopicErrors {
    pub fn new(by_id: bool) -> Self {
        Self {
            by_id,
            topics: Vec::new(),
        }
    }

    fn slot(&mut self, name: &str, id: Uuid) -> &mut Vec<(i32, ErrorCode)> {
        let found = self
            .topics
            .iter()
            .position(|(n, i, _)| if self.by_id { *i == id } else { n == name });
        let index = match found {
            Some(i) => i,
            None => {
                self.topics.push((name.to_string(), id, Vec::new()));
                self.topics.len() - 1
            }
        };
        &mut self.topics[index].2
    }

    /// Makes sure the topic has an entry, even one without partitions (Kafka's `getOrCreateTopic`).
    pub fn topic(&mut self, name: &str, id: Uuid) {
        self.slot(name, id);
    }

    pub fn add(&mut self, name: &str, id: Uuid, partition: i32, error: ErrorCode) {
        self.slot(name, id).push((partition, error));
    }

    /// Kafka's `Builder.merge`: the coordinator's topics are appended, or their partitions added to an
    /// existing topic of the same key; with nothing rejected up front the coordinator's answer is used
    /// as is.
    pub fn merge(mut self, answered: Vec<TopicAnswer>) -> Self {
        if self.topics.is_empty() {
            self.topics = answered;
            return self;
        }
        for (name, id, partitions) in answered {
            let found = self.topics.iter().position(
                |(n, i, _)| {
                    if self.by_id { *i == id } else { *n == name }
                },
            );
            match found {
                Some(i) => self.topics[i].2.extend(partitions),
                None => self.topics.push((name, id, partitions)),
            }
        }
        self
    }
}

/// Checks the topics of a commit: returns the valid ones and records the rejected partitions in `errors`.
/// `topics` yields (name as sent, id as sent, partitions).
pub(crate) fn check_topics<'a, P>(
    image: &TopicsImage,
    by_id: bool,
    topics: impl IntoIterator<Item = (&'a str, Uuid, Vec<CommitPartition<'a, P>>)>,
    errors: &mut TopicErrors,
) -> Vec<ValidTopic<'a, P>> {
    let mut valid = Vec::new();
    for (sent_name, sent_id, partitions) in topics {
        let name = if by_id {
            match image.get_by_id(&sent_id).filter(|_| !sent_id.is_nil()) {
                Some(t) => t.name.clone(),
                None => {
                    // The builder's `getOrCreate` makes the entry even when no partition is named.
                    errors.topic(sent_name, sent_id);
                    for p in &partitions {
                        errors.add(sent_name, sent_id, p.index, ErrorCode::UnknownTopicId);
                    }
                    continue;
                }
            }
        } else {
            sent_name.to_string()
        };
        let metadata = image.get(&name);
        let id = if by_id {
            sent_id
        } else {
            metadata.map(|t| t.id).unwrap_or(Uuid::nil())
        };
        let Some(metadata) = metadata.filter(|_| !id.is_nil()) else {
            errors.topic(&name, Uuid::nil());
            for p in &partitions {
                errors.add(
                    &name,
                    Uuid::nil(),
                    p.index,
                    ErrorCode::UnknownTopicOrPartition,
                );
            }
            continue;
        };
        let mut existing = Vec::new();
        for p in partitions {
            if p.index >= 0 && p.index < metadata.partitions {
                existing.push(p);
            } else {
                errors.add(&name, id, p.index, ErrorCode::UnknownTopicOrPartition);
            }
        }
        if !existing.is_empty() {
            valid.push(ValidTopic {
                name,
                id,
                partitions: existing,
            });
        }
    }
    valid
}

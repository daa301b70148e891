//! OffsetDelete v0 (Kafka's `KafkaApis.handleOffsetDeleteRequest`, `GroupCoordinatorService.deleteOffsets`
//! and `OffsetMetadataManager.deleteOffsets`).
//!
//! The broker front end first answers the topics that do not exist (every partition of an unknown topic,
//! and the partitions an existing topic does not have) with UNKNOWN_TOPIC_OR_PARTITION and forwards the
//! rest, possibly nothing, to the coordinator. The coordinator checks the group id (empty: INVALID_GROUP_ID),
//! finds the group (GROUP_ID_NOT_FOUND) and lets the group's type admit the request (a classic group with
//! members that is not a `consumer` group: NON_EMPTY_GROUP; streams groups admit everything). Then, per
//! topic: a topic the group consumes gets GROUP_SUBSCRIBED_TO_TOPIC on each of its partitions; otherwise each
//! partition is answered NONE and gets a tombstone if it has a committed or a pending transactional offset.
//!
//! A top-level error of the coordinator replaces the whole answer (the front end's partition errors are
//! dropped, as `OffsetDeleteResponse.Builder.merge` drops them). Deleting the last offsets of a group does
//! not delete the group: an empty group without offsets goes at the next periodic expiration.

use protocol::ErrorCode;
use protocol::messages::offset_delete_response::{
    OffsetDeleteResponsePartition, OffsetDeleteResponseTopic,
};
use protocol::messages::{OffsetDeleteRequest, OffsetDeleteResponse, StrBytes};
use uuid::Uuid;

use super::OffsetsEnv;
use super::deletion::tombstone;
use super::topics::{TopicAnswer, TopicErrors};
use crate::error::ApiError;
use crate::records::Record;

/// A topic the front end forwards: its name and the partitions that exist, in request order.
struct Forwarded<'a> {
    name: &'a str,
    partitions: Vec<i32>,
}

/// Runs one OffsetDelete request; the tombstones it writes are appended to `records`.
pub(crate) fn delete_offsets(
    env: &OffsetsEnv<'_>,
    r: &OffsetDeleteRequest,
    records: &mut Vec<Record>,
) -> OffsetDeleteResponse {
    // Topics are keyed by name in this response, so the ids stay nil.
    let mut errors = TopicErrors::new(false);
    let mut forwarded = Vec::new();
    for topic in &r.topics {
        let name = topic.name.as_str();
        let Some(metadata) = env.topics.get(name) else {
            // Kafka's builder creates the topic entry even when no partition is named.
            errors.topic(name, Uuid::nil());
            for p in &topic.partitions {
                errors.add(
                    name,
                    Uuid::nil(),
                    p.partition_index,
                    ErrorCode::UnknownTopicOrPartition,
                );
            }
            continue;
        };
        let mut existing = Vec::new();
        for p in &topic.partitions {
            let index = p.partition_index;
            if index >= 0 && index < metadata.partitions {
                existing.push(index);
            } else {
                errors.add(name, Uuid::nil(), index, ErrorCode::UnknownTopicOrPartition);
            }
        }
        // A known topic left without partitions is neither forwarded nor answered.
        if !existing.is_empty() {
            forwarded.push(Forwarded {
                name,
                partitions: existing,
            });
        }
    }
    match coordinator_delete(env, r.group_id.as_str(), &forwarded, records) {
        Ok(answered) => response(errors.merge(answered).topics),
        Err(error) => OffsetDeleteResponse::default().with_error_code(error.code.code()),
    }
}

/// The coordinator's part: the group checks, then the per-topic answers and the tombstones.
fn coordinator_delete(
    env: &OffsetsEnv<'_>,
    group_id: &str,
    topics: &[Forwarded<'_>],
    records: &mut Vec<Record>,
) -> Result<Vec<TopicAnswer>, ApiError> {
    // `GroupCoordinatorService.deleteOffsets` refuses an empty group id before routing the request.
    if group_id.is_empty() {
        return Err(ApiError::bare(ErrorCode::InvalidGroupId));
    }
    let group = env.group_validation(group_id).ok_or_else(|| {
        ApiError::new(
            ErrorCode::GroupIdNotFound,
            format!("Group {group_id} not found."),
        )
    })?;
    group.validate_offset_delete()?;
    let mut answers = Vec::with_capacity(topics.len());
    for topic in topics {
        let partitions = if group.is_subscribed_to_topic(topic.name) {
            topic
                .partitions
                .iter()
                .map(|p| (*p, ErrorCode::GroupSubscribedToTopic))
                .collect()
        } else {
            topic
                .partitions
                .iter()
                .map(|p| {
                    // Checked against the state before this request: a partition named twice gets two
                    // tombstones, as in Kafka.
                    if env.offsets.get(group_id, topic.name, *p).is_some()
                        || env.offsets.has_pending(group_id, topic.name, *p)
                    {
                        records.push(tombstone(group_id, topic.name, *p));
                    }
                    (*p, ErrorCode::None)
                })
                .collect()
        };
        answers.push((topic.name.to_string(), Uuid::nil(), partitions));
    }
    Ok(answers)
}

fn response(topics: Vec<TopicAnswer>) -> OffsetDeleteResponse {
    OffsetDeleteResponse::default().with_topics(
        topics
            .into_iter()
            .map(|(name, _, partitions)| {
                OffsetDeleteResponseTopic::default()
                    .with_name(StrBytes::from_string(name).into())
                    .with_partitions(
                        partitions
                            .into_iter()
                            .map(|(index, error)| {
                                OffsetDeleteResponsePartition::default()
                                    .with_partition_index(index)
                                    .with_error_code(error.code())
                            })
                            .collect(),
                    )
            })
            .collect(),
    )
}

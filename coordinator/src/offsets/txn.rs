//! TxnOffsetCommit v0-6 (Kafka's `KafkaApis.handleTxnOffsetCommitRequest` +
//! `OffsetMetadataManager.commitTransactionalOffset`). The offsets are written as transactional records
//! of the producer and stay pending until the transaction ends. regroup has no transaction coordinator:
//! the producer's transaction is not verified.

use protocol::ErrorCode;
use protocol::messages::txn_offset_commit_request::TxnOffsetCommitRequestPartition;
use protocol::messages::txn_offset_commit_response::{
    TxnOffsetCommitResponsePartition, TxnOffsetCommitResponseTopic,
};
use protocol::messages::{StrBytes, TxnOffsetCommitRequest, TxnOffsetCommitResponse};

use super::OffsetsEnv;
use super::commit::error_answers;
use super::metadata_too_large;
use super::topics::{CommitPartition, TopicAnswer, TopicErrors, ValidTopic, check_topics};
use crate::context::RequestContext;
use crate::error::ApiError;
use crate::outcome::{Outcome, RequestToken};
use crate::records::Record;
use crate::records::offsets::{OffsetCommitKey, OffsetCommitValue};

type TopicAnswers = Vec<TopicAnswer>;

pub(crate) fn commit(
    env: &mut OffsetsEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    r: &TxnOffsetCommitRequest,
    now_ms: i64,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    let by_id = version >= 6;
    let mut errors = TopicErrors::new(by_id);
    let valid = check_topics(
        env.topics,
        by_id,
        r.topics.iter().map(|t| {
            (
                t.name.as_str(),
                t.topic_id,
                t.partitions
                    .iter()
                    .map(|p| CommitPartition {
                        index: p.partition_index,
                        partition: p,
                    })
                    .collect(),
            )
        }),
        &mut errors,
    );
    if !valid.is_empty() {
        let answered = if r.group_id.is_empty() {
            error_answers(&valid, ErrorCode::InvalidGroupId)
        } else {
            match commit_valid(env, rctx, r, &valid, now_ms, out) {
                Ok(answered) => answered,
                Err(error) => error_answers(&valid, error.code),
            }
        };
        errors = errors.merge(answered);
    }
    let mut topics = errors.topics;
    if version < 2 {
        // Producers older than 2.0 do not retry COORDINATOR_LOAD_IN_PROGRESS.
        for (_, _, partitions) in &mut topics {
            for (_, error) in partitions.iter_mut() {
                if *error == ErrorCode::CoordinatorLoadInProgress {
                    *error = ErrorCode::CoordinatorNotAvailable;
                }
            }
        }
    }
    out.reply(token, response(topics));
}

fn response(topics: TopicAnswers) -> TxnOffsetCommitResponse {
    TxnOffsetCommitResponse::default().with_topics(
        topics
            .into_iter()
            .map(|(name, id, partitions)| {
                TxnOffsetCommitResponseTopic::default()
                    .with_name(StrBytes::from_string(name).into())
                    .with_topic_id(id)
                    .with_partitions(
                        partitions
                            .into_iter()
                            .map(|(index, error)| {
                                TxnOffsetCommitResponsePartition::default()
                                    .with_partition_index(index)
                                    .with_error_code(error.code())
                            })
                            .collect(),
                    )
            })
            .collect(),
    )
}

/// Before v6 the KIP-848 STALE_MEMBER_EPOCH is reported as ILLEGAL_GENERATION.
fn map_stale_epoch(error: ApiError, version: i16) -> ApiError {
    if error.code == ErrorCode::StaleMemberEpoch && version < 6 {
        ApiError::with_default_message(ErrorCode::IllegalGeneration)
    } else {
        error
    }
}

fn commit_valid(
    env: &mut OffsetsEnv<'_>,
    rctx: &RequestContext,
    r: &TxnOffsetCommitRequest,
    valid: &[ValidTopic<'_, TxnOffsetCommitRequestPartition>],
    now_ms: i64,
    out: &mut Outcome,
) -> Result<TopicAnswers, ApiError> {
    let version = rctx.api_version;
    let group_id = r.group_id.as_str();
    let generation = r.generation_id_or_member_epoch;
    if env.group_validation(group_id).is_none() {
        if generation < 0 {
            env.classic.create_empty_group(group_id, Some(now_ms));
        } else if version >= 6 {
            return Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {group_id} not found."),
            ));
        } else {
            return Err(ApiError::with_default_message(ErrorCode::IllegalGeneration));
        }
    }
    let max_metadata = env.config.offsets.metadata_max_size;
    let Some(group) = env.group_validation(group_id) else {
        return Err(ApiError::with_default_message(ErrorCode::IllegalGeneration));
    };
    let validator = group
        .validate_offset_commit(
            r.member_id.as_str(),
            r.group_instance_id.as_deref(),
            generation,
            true,
            version,
            &env.config.kafka_bugs,
        )
        .map_err(|e| map_stale_epoch(e, version))?;
    let mut records = Vec::new();
    let mut answers = Vec::with_capacity(valid.len());
    for topic in valid {
        let mut partitions = Vec::with_capacity(topic.partitions.len());
        for p in &topic.partitions {
            let metadata = p.partition.committed_metadata.as_deref();
            if metadata_too_large(metadata, max_metadata) {
                partitions.push((p.index, ErrorCode::OffsetMetadataTooLarge));
                continue;
            }
            validator
                .validate(&topic.name, topic.id, p.index)
                .map_err(|e| map_stale_epoch(e, version))?;
            partitions.push((p.index, ErrorCode::None));
            records.push(Record::TxnOffsetCommit {
                producer_id: r.producer_id.0,
                producer_epoch: r.producer_epoch,
                key: OffsetCommitKey {
                    group: group_id.to_string(),
                    topic: topic.name.clone(),
                    partition: p.index,
                },
                value: Some(OffsetCommitValue {
                    offset: p.partition.committed_offset,
                    leader_epoch: p.partition.committed_leader_epoch,
                    metadata: metadata.unwrap_or("").to_string(),
                    commit_timestamp: now_ms,
                    expire_timestamp: None,
                    topic_id: topic.id,
                }),
            });
        }
        answers.push((topic.name.clone(), topic.id, partitions));
    }
    out.records.extend(records);
    Ok(answers)
}

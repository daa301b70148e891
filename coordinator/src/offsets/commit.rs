//! OffsetCommit v2-10 (Kafka's `KafkaApis.handleOffsetCommitRequest` + `OffsetMetadataManager.commitOffset`).

use protocol::ErrorCode;
use protocol::messages::offset_commit_request::OffsetCommitRequestPartition;
use protocol::messages::offset_commit_response::{
    OffsetCommitResponsePartition, OffsetCommitResponseTopic,
};
use protocol::messages::{OffsetCommitRequest, OffsetCommitResponse, StrBytes};

use super::OffsetsEnv;
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
    r: &OffsetCommitRequest,
    now_ms: i64,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    let by_id = version >= 10;
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
        let answered = match commit_valid(env, rctx, r, &valid, now_ms, out) {
            Ok(answered) => answered,
            Err(error) => error_answers(&valid, error.code),
        };
        errors = errors.merge(answered);
    }
    out.reply(token, response(errors));
}

/// Every partition of the valid topics answered with `error` (Kafka's `getErrorResponse`).
pub(crate) fn error_answers<P>(valid: &[ValidTopic<'_, P>], error: ErrorCode) -> TopicAnswers {
    valid
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.id,
                t.partitions.iter().map(|p| (p.index, error)).collect(),
            )
        })
        .collect()
}

fn response(errors: TopicErrors) -> OffsetCommitResponse {
    OffsetCommitResponse::default().with_topics(
        errors
            .topics
            .into_iter()
            .map(|(name, id, partitions)| {
                OffsetCommitResponseTopic::default()
                    .with_name(StrBytes::from_string(name).into())
                    .with_topic_id(id)
                    .with_partitions(
                        partitions
                            .into_iter()
                            .map(|(index, error)| {
                                OffsetCommitResponsePartition::default()
                                    .with_partition_index(index)
                                    .with_error_code(error.code())
                            })
                            .collect(),
                    )
            })
            .collect(),
    )
}

/// The coordinator's part: group validation, then one record per accepted partition.
fn commit_valid(
    env: &mut OffsetsEnv<'_>,
    rctx: &RequestContext,
    r: &OffsetCommitRequest,
    valid: &[ValidTopic<'_, OffsetCommitRequestPartition>],
    now_ms: i64,
    out: &mut Outcome,
) -> Result<TopicAnswers, ApiError> {
    let group_id = r.group_id.as_str();
    let generation = r.generation_id_or_member_epoch;
    let member_id = r.member_id.as_str();
    let instance = r.group_instance_id.as_deref();
    if env.group_validation(group_id).is_none() {
        if generation < 0 {
            // A consumer that does not use group management (or an admin) commits: a simple group.
            env.classic.create_empty_group(group_id, Some(now_ms));
        } else if rctx.api_version >= 9 {
            return Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {group_id} not found."),
            ));
        } else {
            return Err(ApiError::with_default_message(ErrorCode::IllegalGeneration));
        }
    }
    // Java long arithmetic: an absurd retention wraps as it does in Kafka.
    let expire_timestamp =
        (r.retention_time_ms != -1).then(|| now_ms.wrapping_add(r.retention_time_ms));
    let max_metadata = env.config.offsets.metadata_max_size;
    let mut records = Vec::new();
    let mut answers = Vec::with_capacity(valid.len());
    {
        let Some(group) = env.group_validation(group_id) else {
            return Err(ApiError::with_default_message(ErrorCode::IllegalGeneration));
        };
        let validator = group.validate_offset_commit(
            member_id,
            instance,
            generation,
            false,
            rctx.api_version,
            &env.config.kafka_bugs,
        )?;
        for topic in valid {
            let mut partitions = Vec::with_capacity(topic.partitions.len());
            for p in &topic.partitions {
                let metadata = p.partition.committed_metadata.as_deref();
                if metadata_too_large(metadata, max_metadata) {
                    partitions.push((p.index, ErrorCode::OffsetMetadataTooLarge));
                    continue;
                }
                validator.validate(&topic.name, topic.id, p.index)?;
                partitions.push((p.index, ErrorCode::None));
                records.push(Record::OffsetCommit {
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
                        expire_timestamp,
                        topic_id: topic.id,
                    }),
                });
            }
            answers.push((topic.name.clone(), topic.id, partitions));
        }
    }
    // Classic members keep their session alive by committing while Stable or PreparingRebalance.
    let OffsetsEnv {
        classic,
        timers,
        config,
        ..
    } = env;
    classic.refresh_session_on_commit(group_id, member_id, &config.classic, timers, now_ms);
    out.records.extend(records);
    Ok(answers)
}

//! OffsetFetch v1-10 (Kafka's `KafkaApis.handleOffsetFetchRequest` + `OffsetMetadataManager.fetchOffsets`
//! / `fetchAllOffsets`, and the response layouts of `OffsetFetchResponse.Builder`: one group with
//! top-level topics before v8, a list of groups from v8).

use protocol::ErrorCode;
use protocol::messages::offset_fetch_response::{
    OffsetFetchResponseGroup, OffsetFetchResponsePartition, OffsetFetchResponsePartitions,
    OffsetFetchResponseTopic, OffsetFetchResponseTopics,
};
use protocol::messages::{OffsetFetchRequest, OffsetFetchResponse, StrBytes};
use uuid::Uuid;

use super::OffsetsEnv;
use crate::context::RequestContext;
use crate::outcome::{Outcome, RequestToken};

/// One topic of a fetch request.
struct FetchTopic {
    name: String,
    id: Uuid,
    partitions: Vec<i32>,
}

/// One group of a fetch request (versions before 8 carry exactly one).
struct FetchGroup {
    group_id: String,
    member_id: Option<String>,
    member_epoch: i32,
    /// `None`: every committed offset of the group.
    topics: Option<Vec<FetchTopic>>,
}

fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

pub(crate) fn fetch(
    env: &OffsetsEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    r: &OffsetFetchRequest,
    out: &mut Outcome,
) {
    let version = rctx.api_version;
    let groups: Vec<FetchGroup> = if version >= 8 {
        r.groups
            .iter()
            .map(|g| FetchGroup {
                group_id: g.group_id.to_string(),
                member_id: g.member_id.as_ref().map(|m| m.to_string()),
                member_epoch: g.member_epoch,
                topics: g.topics.as_ref().map(|topics| {
                    topics
                        .iter()
                        .map(|t| FetchTopic {
                            name: t.name.to_string(),
                            id: t.topic_id,
                            partitions: t.partition_indexes.clone(),
                        })
                        .collect()
                }),
            })
            .collect()
    } else {
        vec![FetchGroup {
            group_id: r.group_id.to_string(),
            member_id: None,
            member_epoch: -1,
            topics: r.topics.as_ref().map(|topics| {
                topics
                    .iter()
                    .map(|t| FetchTopic {
                        name: t.name.to_string(),
                        id: Uuid::nil(),
                        partitions: t.partition_indexes.clone(),
                    })
                    .collect()
            }),
        }]
    };
    let answers: Vec<OffsetFetchResponseGroup> = groups
        .iter()
        .map(|g| fetch_group(env, version, g, r.require_stable))
        .collect();
    out.reply(token, build_response(answers, version));
}

/// A group-level error (Kafka's `OffsetFetchResponse.groupError`): from v2 the group's error code; v1 has
/// no such field, so every requested partition carries it.
fn group_error(group: &FetchGroup, error: ErrorCode, version: i16) -> OffsetFetchResponseGroup {
    let answer = OffsetFetchResponseGroup::default().with_group_id(sb(&group.group_id).into());
    if version >= 2 {
        return answer.with_error_code(error.code());
    }
    let topics = group
        .topics
        .iter()
        .flatten()
        .map(|t| {
            OffsetFetchResponseTopics::default()
                .with_name(sb(&t.name).into())
                .with_partitions(
                    t.partitions
                        .iter()
                        .map(|p| invalid_partition(*p).with_error_code(error.code()))
                        .collect(),
                )
        })
        .collect();
    answer.with_topics(topics)
}

fn invalid_partition(partition: i32) -> OffsetFetchResponsePartitions {
    OffsetFetchResponsePartitions::default()
        .with_partition_index(partition)
        .with_committed_offset(-1)
        .with_committed_leader_epoch(-1)
        .with_metadata(Some(StrBytes::default()))
}

/// How the group's validation went: `Ok(false)` when the group does not exist (every partition is then
/// answered without an offset), `Err` for any other refusal.
fn validate(env: &OffsetsEnv<'_>, group: &FetchGroup) -> Result<bool, ErrorCode> {
    match env.group_validation(&group.group_id) {
        None => Ok(false),
        Some(v) => match v.validate_offset_fetch(group.member_id.as_deref(), group.member_epoch) {
            Ok(()) => Ok(true),
            Err(e) if e.code == ErrorCode::GroupIdNotFound => Ok(false),
            Err(e) => Err(e.code),
        },
    }
}

fn fetch_group(
    env: &OffsetsEnv<'_>,
    version: i16,
    group: &FetchGroup,
    require_stable: bool,
) -> OffsetFetchResponseGroup {
    let Some(topics) = &group.topics else {
        return fetch_all(env, version, group, require_stable);
    };
    let by_id = version >= 10;
    let mut answered = Vec::new();
    let mut unknown = Vec::new();
    for topic in topics {
        let name = if by_id && !topic.id.is_nil() {
            env.topics
                .get_by_id(&topic.id)
                .map(|t| t.name.clone())
                .unwrap_or_else(|| topic.name.clone())
        } else {
            topic.name.clone()
        };
        if by_id && name.is_empty() {
            unknown.push(
                OffsetFetchResponseTopics::default()
                    .with_topic_id(topic.id)
                    .with_name(sb(&name).into())
                    .with_partitions(
                        topic
                            .partitions
                            .iter()
                            .map(|p| {
                                OffsetFetchResponsePartitions::default()
                                    .with_partition_index(*p)
                                    .with_committed_offset(-1)
                                    .with_error_code(ErrorCode::UnknownTopicId.code())
                            })
                            .collect(),
                    ),
            );
            continue;
        }
        answered.push((name, topic));
    }
    let exists = match validate(env, group) {
        Ok(exists) => exists,
        Err(error) => return group_error(group, error, version),
    };
    let mut response_topics = Vec::with_capacity(answered.len() + unknown.len());
    for (name, topic) in answered {
        let partitions = topic
            .partitions
            .iter()
            .map(|&p| {
                if require_stable && env.offsets.has_pending(&group.group_id, &name, p) {
                    return invalid_partition(p)
                        .with_error_code(ErrorCode::UnstableOffsetCommit.code());
                }
                let stored = exists
                    .then(|| env.offsets.get(&group.group_id, &name, p))
                    .flatten()
                    .filter(|o| !mismatched_topic_id(o.topic_id, topic.id));
                match stored {
                    Some(o) => OffsetFetchResponsePartitions::default()
                        .with_partition_index(p)
                        .with_committed_offset(o.committed_offset)
                        .with_committed_leader_epoch(o.leader_epoch.unwrap_or(-1))
                        .with_metadata(Some(sb(&o.metadata))),
                    None => invalid_partition(p),
                }
            })
            .collect();
        response_topics.push(
            OffsetFetchResponseTopics::default()
                .with_topic_id(topic.id)
                .with_name(sb(&name).into())
                .with_partitions(partitions),
        );
    }
    response_topics.extend(unknown);
    OffsetFetchResponseGroup::default()
        .with_group_id(sb(&group.group_id).into())
        .with_topics(response_topics)
}

/// A stored offset of another incarnation of the topic (both ids known and different) is not returned.
fn mismatched_topic_id(stored: Uuid, requested: Uuid) -> bool {
    !stored.is_nil() && !requested.is_nil() && stored != requested
}

/// Every committed offset of the group, topics and partitions in the order Kafka's `TimelineHashMap`s
/// iterate them (the store keeps that order).
fn fetch_all(
    env: &OffsetsEnv<'_>,
    version: i16,
    group: &FetchGroup,
    require_stable: bool,
) -> OffsetFetchResponseGroup {
    let answer = OffsetFetchResponseGroup::default().with_group_id(sb(&group.group_id).into());
    let exists = match validate(env, group) {
        Ok(exists) => exists,
        Err(error) => return group_error(group, error, version),
    };
    let mut topics = Vec::new();
    if let Some(offsets) = env.offsets.group(&group.group_id).filter(|_| exists) {
        for (name, partitions) in offsets.iter() {
            // The topic id comes from the metadata (v10 needs one; a topic without is left out).
            let id = if version >= 10 {
                match env.topics.get(name) {
                    Some(t) if !t.id.is_nil() => t.id,
                    _ => continue,
                }
            } else {
                Uuid::nil()
            };
            let partitions = partitions
                .iter()
                .map(|(&p, o)| {
                    if require_stable && env.offsets.has_pending(&group.group_id, name, p) {
                        invalid_partition(p).with_error_code(ErrorCode::UnstableOffsetCommit.code())
                    } else {
                        OffsetFetchResponsePartitions::default()
                            .with_partition_index(p)
                            .with_committed_offset(o.committed_offset)
                            .with_committed_leader_epoch(o.leader_epoch.unwrap_or(-1))
                            .with_metadata(Some(sb(&o.metadata)))
                    }
                })
                .collect();
            topics.push(
                OffsetFetchResponseTopics::default()
                    .with_topic_id(id)
                    .with_name(sb(name).into())
                    .with_partitions(partitions),
            );
        }
    }
    answer.with_topics(topics)
}

/// `OffsetFetchResponse.Builder.build(version)`.
fn build_response(groups: Vec<OffsetFetchResponseGroup>, version: i16) -> OffsetFetchResponse {
    if version >= 8 {
        return OffsetFetchResponse::default().with_groups(groups);
    }
    let Some(group) = groups.into_iter().next() else {
        return OffsetFetchResponse::default();
    };
    let topics = group
        .topics
        .into_iter()
        .map(|t| {
            OffsetFetchResponseTopic::default()
                .with_name(t.name)
                .with_partitions(
                    t.partitions
                        .into_iter()
                        .map(|p| {
                            OffsetFetchResponsePartition::default()
                                .with_partition_index(p.partition_index)
                                .with_error_code(p.error_code)
                                .with_committed_offset(p.committed_offset)
                                .with_metadata(p.metadata)
                                .with_committed_leader_epoch(p.committed_leader_epoch)
                        })
                        .collect(),
                )
        })
        .collect();
    OffsetFetchResponse::default()
        .with_error_code(group.error_code)
        .with_topics(topics)
}

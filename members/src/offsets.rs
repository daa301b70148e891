//! OffsetCommit, OffsetFetch and Metadata as the Java consumer builds and reads them, shared by
//! streams members and classic consumers.

use std::collections::BTreeMap;

use protocol::messages::metadata_request::MetadataRequestTopic;
use protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use protocol::messages::offset_fetch_request::{
    OffsetFetchRequestGroup, OffsetFetchRequestTopic, OffsetFetchRequestTopics,
};
use protocol::messages::{
    MetadataRequest, MetadataResponse, OffsetCommitRequest, OffsetCommitResponse,
    OffsetFetchRequest, OffsetFetchResponse, StrBytes,
};
use protocol::net::Net;
use protocol::{Api, ErrorCode, Request, Response};
use uuid::Uuid;

use crate::conn::KafkaClient;
use crate::observer::{RequestFailure, TopicPartition};

fn s(text: &str) -> StrBytes {
    StrBytes::from_string(text.to_string())
}

/// Who commits: the group, member and epoch/generation fields of OffsetCommit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Committer {
    pub group_id: String,
    pub member_id: String,
    /// Member epoch (streams) or generation (classic); -1 for a simple commit.
    pub generation_or_epoch: i32,
    pub instance_id: Option<String>,
}

/// Topic names to ids, learned from Metadata.
pub type TopicIds = BTreeMap<String, Uuid>;

/// The highest OffsetCommit/OffsetFetch version usable for `topics`: 10 names topics by id, so
/// it needs every id (the Java consumer falls back to names otherwise).
pub fn version_cap_for(topics: impl IntoIterator<Item = impl AsRef<str>>, ids: &TopicIds) -> i16 {
    if topics.into_iter().all(|t| ids.contains_key(t.as_ref())) {
        10
    } else {
        9
    }
}

/// Offsets grouped by topic (sorted), partitions sorted.
fn by_topic(offsets: &[(TopicPartition, i64)]) -> BTreeMap<&str, Vec<(i32, i64)>> {
    let mut map: BTreeMap<&str, Vec<(i32, i64)>> = BTreeMap::new();
    for (tp, offset) in offsets {
        map.entry(tp.topic.as_str())
            .or_default()
            .push((tp.partition, *offset));
    }
    for parts in map.values_mut() {
        parts.sort();
    }
    map
}

/// An OffsetCommit for `offsets` (no leader epoch, empty metadata, default retention).
pub fn build_commit(
    committer: &Committer,
    offsets: &[(TopicPartition, i64)],
    ids: &TopicIds,
) -> OffsetCommitRequest {
    let topics = by_topic(offsets)
        .into_iter()
        .map(|(topic, parts)| {
            OffsetCommitRequestTopic::default()
                .with_name(s(topic).into())
                .with_topic_id(ids.get(topic).copied().unwrap_or_default())
                .with_partitions(
                    parts
                        .into_iter()
                        .map(|(p, o)| {
                            OffsetCommitRequestPartition::default()
                                .with_partition_index(p)
                                .with_committed_offset(o)
                                .with_committed_leader_epoch(-1)
                                .with_committed_metadata(Some(s("")))
                        })
                        .collect(),
                )
        })
        .collect();
    OffsetCommitRequest::default()
        .with_group_id(s(&committer.group_id).into())
        .with_generation_id_or_member_epoch(committer.generation_or_epoch)
        .with_member_id(s(&committer.member_id))
        .with_group_instance_id(committer.instance_id.as_deref().map(s))
        .with_retention_time_ms(-1)
        .with_topics(topics)
}

/// The outcome of an OffsetCommit: `Ok` if every partition was accepted, else the first error
/// (in response order) and the partitions that failed.
pub fn commit_result(
    response: &OffsetCommitResponse,
    names_by_id: &BTreeMap<Uuid, String>,
) -> Result<(), (ErrorCode, Vec<TopicPartition>)> {
    let mut first = None;
    let mut failed = Vec::new();
    for topic in &response.topics {
        let name = if topic.name.is_empty() {
            names_by_id
                .get(&topic.topic_id)
                .cloned()
                .unwrap_or_else(|| topic.topic_id.to_string())
        } else {
            topic.name.to_string()
        };
        for p in &topic.partitions {
            let code = ErrorCode::from_code(p.error_code).unwrap_or(ErrorCode::UnknownServerError);
            if code != ErrorCode::None {
                first.get_or_insert(code);
                failed.push(TopicPartition::new(name.clone(), p.partition_index));
            }
        }
    }
    match first {
        None => Ok(()),
        Some(code) => Err((code, failed)),
    }
}

/// An OffsetFetch for `partitions` at `version`; `member` = (member id, epoch) for v9+ (streams
/// members and KIP-848 consumers send it; classic consumers send none).
pub fn build_fetch(
    version: i16,
    group_id: &str,
    member: Option<(&str, i32)>,
    partitions: &[TopicPartition],
    ids: &TopicIds,
) -> OffsetFetchRequest {
    let mut by: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for tp in partitions {
        by.entry(tp.topic.as_str()).or_default().push(tp.partition);
    }
    for v in by.values_mut() {
        v.sort_unstable();
        v.dedup();
    }
    if version >= 8 {
        let topics = by
            .iter()
            .map(|(topic, parts)| {
                OffsetFetchRequestTopics::default()
                    .with_name(s(topic).into())
                    .with_topic_id(ids.get(*topic).copied().unwrap_or_default())
                    .with_partition_indexes(parts.clone())
            })
            .collect();
        let mut group = OffsetFetchRequestGroup::default()
            .with_group_id(s(group_id).into())
            .with_topics(Some(topics));
        if version >= 9
            && let Some((member_id, epoch)) = member
        {
            group = group
                .with_member_id(Some(s(member_id)))
                .with_member_epoch(epoch);
        }
        OffsetFetchRequest::default()
            .with_groups(vec![group])
            .with_require_stable(true)
    } else {
        let topics = by
            .iter()
            .map(|(topic, parts)| {
                OffsetFetchRequestTopic::default()
                    .with_name(s(topic).into())
                    .with_partition_indexes(parts.clone())
            })
            .collect();
        OffsetFetchRequest::default()
            .with_group_id(s(group_id).into())
            .with_topics(Some(topics))
            .with_require_stable(version >= 7)
    }
}

/// The committed offsets an OffsetFetch returned (-1 = none), or the first error.
pub fn fetch_result(
    response: &OffsetFetchResponse,
    names_by_id: &BTreeMap<Uuid, String>,
) -> Result<BTreeMap<TopicPartition, i64>, ErrorCode> {
    let err = |c: i16| ErrorCode::from_code(c).unwrap_or(ErrorCode::UnknownServerError);
    let mut out = BTreeMap::new();
    if let Some(group) = response.groups.first() {
        if err(group.error_code) != ErrorCode::None {
            return Err(err(group.error_code));
        }
        for t in &group.topics {
            let name = if t.name.is_empty() {
                names_by_id.get(&t.topic_id).cloned().unwrap_or_default()
            } else {
                t.name.to_string()
            };
            for p in &t.partitions {
                if err(p.error_code) != ErrorCode::None {
                    return Err(err(p.error_code));
                }
                out.insert(
                    TopicPartition::new(name.clone(), p.partition_index),
                    p.committed_offset,
                );
            }
        }
        return Ok(out);
    }
    if err(response.error_code) != ErrorCode::None {
        return Err(err(response.error_code));
    }
    for t in &response.topics {
        for p in &t.partitions {
            if err(p.error_code) != ErrorCode::None {
                return Err(err(p.error_code));
            }
            out.insert(
                TopicPartition::new(t.name.to_string(), p.partition_index),
                p.committed_offset,
            );
        }
    }
    Ok(out)
}

/// One topic as a Metadata response described it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicMetadata {
    pub id: Uuid,
    pub partitions: i32,
    pub error: ErrorCode,
}

/// What a Metadata response said about brokers and topics.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MetadataSnapshot {
    pub brokers: Vec<(i32, String)>,
    pub topics: BTreeMap<String, TopicMetadata>,
}

impl MetadataSnapshot {
    fn from_response(r: &MetadataResponse) -> Self {
        let brokers = r
            .brokers
            .iter()
            .map(|b| (b.node_id.0, format!("{}:{}", b.host, b.port)))
            .collect();
        let topics = r
            .topics
            .iter()
            .filter_map(|t| {
                let name = t.name.as_ref()?.to_string();
                Some((
                    name,
                    TopicMetadata {
                        id: t.topic_id,
                        partitions: t.partitions.len() as i32,
                        error: ErrorCode::from_code(t.error_code)
                            .unwrap_or(ErrorCode::UnknownServerError),
                    },
                ))
            })
            .collect();
        Self { brokers, topics }
    }

    /// Ids of the topics that exist.
    pub fn topic_ids(&self) -> TopicIds {
        self.topics
            .iter()
            .filter(|(_, t)| t.error == ErrorCode::None && !t.id.is_nil())
            .map(|(n, t)| (n.clone(), t.id))
            .collect()
    }
}

/// Asks any broker for `topics` (every topic when `None`; never creating them) and records the
/// brokers it lists.
pub async fn fetch_metadata<N: Net>(
    client: &KafkaClient<N>,
    topics: Option<&[String]>,
) -> Result<MetadataSnapshot, RequestFailure> {
    let broker = client.any_broker();
    let request = MetadataRequest::default()
        .with_topics(topics.map(|topics| {
            topics
                .iter()
                .map(|t| MetadataRequestTopic::default().with_name(Some(s(t).into())))
                .collect()
        }))
        .with_allow_auto_topic_creation(false);
    let response = client
        .send_built(
            &broker,
            Api::Metadata,
            client.config().request_timeout_ms,
            |_| Request::Metadata(request),
        )
        .await?;
    let Response::Metadata(r) = response else {
        return Err(RequestFailure::Wire(
            "Metadata answered with another api".into(),
        ));
    };
    let snapshot = MetadataSnapshot::from_response(&r);
    client.learn_brokers(snapshot.brokers.iter().cloned());
    Ok(snapshot)
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::messages::offset_commit_response::{
        OffsetCommitResponsePartition, OffsetCommitResponseTopic,
    };

    #[test]
    fn commits_are_grouped_and_sorted() {
        let committer = Committer {
            group_id: "g".into(),
            member_id: "m".into(),
            generation_or_epoch: 7,
            instance_id: Some("i-1".into()),
        };
        let offsets = vec![
            (TopicPartition::new("b", 1), 10),
            (TopicPartition::new("a", 2), 5),
            (TopicPartition::new("b", 0), 3),
        ];
        let mut ids = TopicIds::new();
        ids.insert("a".into(), Uuid::from_u128(7));
        let r = build_commit(&committer, &offsets, &ids);
        assert_eq!(r.generation_id_or_member_epoch, 7);
        assert_eq!(r.group_instance_id.as_deref(), Some("i-1"));
        let names: Vec<&str> = r.topics.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, vec!["a", "b"]);
        assert_eq!(r.topics[0].topic_id, Uuid::from_u128(7));
        let b: Vec<(i32, i64)> = r.topics[1]
            .partitions
            .iter()
            .map(|p| (p.partition_index, p.committed_offset))
            .collect();
        assert_eq!(b, vec![(0, 3), (1, 10)]);
        assert_eq!(version_cap_for(["a"], &ids), 10);
        assert_eq!(version_cap_for(["a", "b"], &ids), 9);
    }

    #[test]
    fn commit_result_reports_first_error_and_failed_partitions() {
        let topic = |name: &str, parts: &[(i32, i16)]| {
            OffsetCommitResponseTopic::default()
                .with_name(s(name).into())
                .with_partitions(
                    parts
                        .iter()
                        .map(|(p, e)| {
                            OffsetCommitResponsePartition::default()
                                .with_partition_index(*p)
                                .with_error_code(*e)
                        })
                        .collect(),
                )
        };
        let ok = OffsetCommitResponse::default().with_topics(vec![topic("a", &[(0, 0), (1, 0)])]);
        assert_eq!(commit_result(&ok, &BTreeMap::new()), Ok(()));
        let bad = OffsetCommitResponse::default().with_topics(vec![
            topic("a", &[(0, 0), (1, 113)]),
            topic("b", &[(0, 25)]),
        ]);
        assert_eq!(
            commit_result(&bad, &BTreeMap::new()),
            Err((
                ErrorCode::StaleMemberEpoch,
                vec![TopicPartition::new("a", 1), TopicPartition::new("b", 0)]
            ))
        );
    }
}

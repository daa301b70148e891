//! The topology of a heartbeat and its configuration against the topic metadata (Kafka's steps 2
//! and 3 of `streamsGroupHeartbeat`: the topology record of a new group, the metadata hash, the
//! configured topology, `throwIfRequestContainsInvalidTasks`, and the task offsets stored after).

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use protocol::ErrorCode;
use protocol::messages::StreamsGroupHeartbeatRequest;
use protocol::messages::streams_group_heartbeat_request as req;

use super::Heartbeat;
use super::response::status;
use crate::error::ApiError;
use crate::records::Record;
use crate::records::streams::StreamsGroupKey;
use crate::streams::configure::{ConfiguredTopology, configure_topics};
use crate::streams::group::{MemberTaskOffsets, Persistent, Soft};
use crate::streams::hash::{TopicHashCache, group_hash_cached};
use crate::streams::topology::{StreamsTopology, record_from_request};
use crate::topics::TopicsImage;
use protocol::streams_status::StreamsStatus;

/// The topology the heartbeat works with: the group's, or for a new group the request's (whose
/// record is written). A different topology at the same or a higher epoch is refused, since 4.4
/// cannot update one in place; a member behind the group's epoch gets STALE_TOPOLOGY.
pub(super) fn maybe_update_topology<'p>(
    p: &'p Persistent,
    hb: &mut Heartbeat<'_>,
    member_topology_epoch: i32,
) -> Result<Cow<'p, StreamsTopology>, ApiError> {
    let request_topology = match &hb.r.topology {
        Some(t) => {
            let value = record_from_request(t);
            let parsed = StreamsTopology::from_record(&value)?;
            Some((value, parsed))
        }
        None => None,
    };
    let topology: Cow<'p, StreamsTopology> = match (request_topology, &p.topology) {
        (Some((value, parsed)), None) => {
            hb.records.push(Record::StreamsGroupTopology {
                key: StreamsGroupKey {
                    group_id: hb.gid.to_string(),
                },
                value: Some(value),
            });
            Cow::Owned(parsed)
        }
        (Some((_, parsed)), Some(current)) => {
            if current.epoch > parsed.epoch {
                Cow::Borrowed(current)
            } else if *current != parsed {
                return Err(ApiError::invalid_request(
                    "Topology updates are not supported yet.",
                ));
            } else {
                Cow::Borrowed(current)
            }
        }
        (None, Some(current)) => Cow::Borrowed(current),
        // IllegalStateException: no topology anywhere.
        (None, None) => return Err(ApiError::bare(ErrorCode::UnknownServerError)),
    };
    if let Some(current) = &p.topology
        && member_topology_epoch < current.epoch
    {
        hb.statuses.push(status(
            StreamsStatus::StaleTopology,
            format!(
                "The member's topology epoch {member_topology_epoch} is behind the group's topology epoch {}.",
                current.epoch
            ),
        ));
    }
    Ok(topology)
}

/// The topic metadata a heartbeat configures against: the image, and the shard's cache of topic
/// hashes with the image generation it belongs to.
pub(super) struct TopicMetadata<'a> {
    pub topics: &'a TopicsImage,
    pub hash_cache: &'a mut TopicHashCache,
    pub image_generation: u64,
}

/// A configured topology and the metadata hash it was configured with.
pub(super) struct Configured {
    pub topology: Arc<ConfiguredTopology>,
    pub metadata_hash: i64,
    /// The metadata hash changed: the group epoch is bumped and the topology configured again.
    pub hash_changed: bool,
}

/// Recomputes the metadata hash when the group has no topology yet, no configured topology, or
/// its metadata refresh deadline passed (`hasMetadataExpired`), and configures the topology again
/// (`InternalTopicManager.configureTopics`) when it has to.
pub(super) fn maybe_configure_topology(
    p: &Persistent,
    soft: &mut Soft,
    topology: &StreamsTopology,
    metadata: TopicMetadata<'_>,
    now_ms: i64,
) -> Result<Configured, ApiError> {
    let mut reconfigure = p.topology.is_none();
    let mut metadata_hash = p.metadata_hash;
    let mut hash_changed = false;
    if reconfigure || soft.configured_topology.is_none() || has_metadata_expired(p, soft, now_ms) {
        metadata_hash = match soft.metadata_hash_cache {
            Some((generation, hash)) if generation == metadata.image_generation => hash,
            _ => {
                let hash = group_hash_cached(
                    topology.required.iter(),
                    metadata.topics,
                    metadata.hash_cache,
                );
                soft.metadata_hash_cache = Some((metadata.image_generation, hash));
                hash
            }
        };
        if metadata_hash != p.metadata_hash {
            hash_changed = true;
            reconfigure = true;
        }
        if reconfigure || soft.configured_topology.is_none() {
            let configured = configure_topics(topology, metadata_hash, metadata.topics)?;
            soft.configured_topology = Some(Arc::new(configured));
            soft.endpoint_cache.clear();
        }
    }
    let topology = soft
        .configured_topology
        .clone()
        .ok_or_else(|| ApiError::bare(ErrorCode::UnknownServerError))?;
    Ok(Configured {
        topology,
        metadata_hash,
        hash_changed,
    })
}

/// `hasMetadataExpired` on split state.
fn has_metadata_expired(p: &Persistent, soft: &Soft, now_ms: i64) -> bool {
    let d = soft.metadata_refresh_deadline;
    now_ms >= d.deadline_ms || p.group_epoch < d.epoch
}

/// The validated topology epoch (the topology's when it is ready, else -1), after checking the
/// owned tasks of the request against a ready topology.
pub(super) fn validated_topology_epoch(
    configured: &ConfiguredTopology,
    topology: &StreamsTopology,
    r: &StreamsGroupHeartbeatRequest,
) -> Result<i32, ApiError> {
    if !configured.is_ready() {
        return Ok(-1);
    }
    throw_if_request_contains_invalid_tasks(configured, &r.active_tasks)?;
    throw_if_request_contains_invalid_tasks(configured, &r.standby_tasks)?;
    throw_if_request_contains_invalid_tasks(configured, &r.warmup_tasks)?;
    Ok(topology.epoch)
}

/// `throwIfRequestContainsInvalidTasks`.
fn throw_if_request_contains_invalid_tasks(
    configured: &ConfiguredTopology,
    tasks: &Option<Vec<req::TaskIds>>,
) -> Result<(), ApiError> {
    let Some(tasks) = tasks else { return Ok(()) };
    let Some(subs) = &configured.subtopologies else {
        return Ok(());
    };
    for t in tasks {
        let id = t.subtopology_id.as_str();
        let Some(s) = subs.get(id) else {
            return Err(ApiError::invalid_request(format!(
                "Subtopology {id} does not exist in the topology."
            )));
        };
        for p in &t.partitions {
            if *p < 0 || *p >= s.number_of_tasks {
                return Err(ApiError::invalid_request(format!(
                    "Task {p} for subtopology {id} is invalid. Number of tasks for this subtopology: {}",
                    s.number_of_tasks
                )));
            }
        }
    }
    Ok(())
}

/// Stores the request's task offsets in the soft state (after the owned tasks were validated, so
/// a request with invalid tasks stores nothing); a list left out keeps the stored one.
pub(super) fn store_task_offsets(
    soft: &mut Soft,
    member_id: &str,
    r: &StreamsGroupHeartbeatRequest,
) -> Result<(), ApiError> {
    if r.task_offsets.is_none() && r.task_end_offsets.is_none() {
        return Ok(());
    }
    let task_offsets = r.task_offsets.as_deref().map(offsets_map).transpose()?;
    let task_end_offsets = r.task_end_offsets.as_deref().map(offsets_map).transpose()?;
    let entry = soft.task_offsets.entry(member_id.to_string()).or_default();
    let next = MemberTaskOffsets {
        task_offsets: task_offsets.unwrap_or_else(|| entry.task_offsets.clone()),
        task_end_offsets: task_end_offsets.unwrap_or_else(|| entry.task_end_offsets.clone()),
    };
    *entry = next;
    Ok(())
}

/// `MemberTaskOffsets.toNestedMap`, refusing duplicates.
fn offsets_map(list: &[req::TaskOffset]) -> Result<BTreeMap<String, BTreeMap<i32, i64>>, ApiError> {
    let mut out: BTreeMap<String, BTreeMap<i32, i64>> = BTreeMap::new();
    for o in list {
        let by_partition = out.entry(o.subtopology_id.to_string()).or_default();
        if by_partition.contains_key(&o.partition) {
            return Err(ApiError::invalid_request(format!(
                "Task offsets contain a duplicate entry for subtopology {} and partition {}.",
                o.subtopology_id.as_str(),
                o.partition
            )));
        }
        by_partition.insert(o.partition, o.offset);
    }
    Ok(out)
}

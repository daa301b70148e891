//! PartitionsByUserEndpoint (Kafka's `StreamsGroup.buildEndpointToPartitions` and
//! `EndpointToPartitionsManager`): for every member with an interactive-query endpoint, the input
//! partitions of its active tasks and of its standby and warm-up tasks.

use protocol::ErrorCode;
use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{StrBytes, TopicName};

use crate::error::ApiError;
use crate::java::{java_hash_map_order, java_hash_set_copy_order};
use crate::streams::configure::ConfiguredTopology;
use crate::streams::group::{Persistent, Soft};
use crate::streams::member::StreamsGroupMember;
use crate::streams::tasks::Tasks;
use crate::topics::TopicsImage;

/// Every other member's entry (in member-map order, skipping a static member being replaced), then
/// the heartbeating member's. Entries are cached per member in the soft state.
pub fn build_endpoint_to_partitions(
    p: &Persistent,
    soft: &mut Soft,
    configured: &ConfiguredTopology,
    updated: &StreamsGroupMember,
    replaced: Option<&str>,
    topics: &TopicsImage,
) -> Result<Vec<resp::EndpointToPartitions>, ApiError> {
    let mut out = Vec::new();
    for (id, m) in p.members.iter() {
        if *id == updated.member_id || Some(id.as_str()) == replaced {
            continue;
        }
        if let Some(e) = cached_or_compute(soft, configured, m, topics)? {
            out.push(e);
        }
    }
    if let Some(e) = cached_or_compute(soft, configured, updated, topics)? {
        out.push(e);
    }
    Ok(out)
}

fn cached_or_compute(
    soft: &mut Soft,
    configured: &ConfiguredTopology,
    m: &StreamsGroupMember,
    topics: &TopicsImage,
) -> Result<Option<resp::EndpointToPartitions>, ApiError> {
    let Some(endpoint) = &m.user_endpoint else {
        return Ok(None);
    };
    if let Some(cached) = soft.endpoint_cache.get(&m.member_id) {
        return Ok(Some(cached.clone()));
    }
    // Kafka reads the configured subtopologies with an unchecked `Optional.get()`: a member with an
    // endpoint in a group whose topology could not be configured fails the heartbeat.
    let subtopologies = configured
        .subtopologies
        .as_ref()
        .ok_or_else(|| ApiError::bare(ErrorCode::UnknownServerError))?;
    let active: Tasks = m.assigned.active_tasks();
    // Kafka collects the active tasks into an immutable map whose iteration order is randomised per
    // JVM; regroup lists them by subtopology id.
    let active_order: Vec<&str> = active.keys().map(String::as_str).collect();
    let standby = m.assigned.standby_and_warmup();
    let standby_order = java_hash_map_order(
        m.assigned
            .standby
            .keys()
            .chain(m.assigned.warmup.keys())
            .map(String::as_str),
    );
    let partitions = |tasks: &Tasks,
                      order: &[&str]|
     -> Result<Vec<resp::TopicPartition>, ApiError> {
        let mut list = Vec::new();
        for sub in order {
            let Some(parts) = tasks.get(*sub) else {
                continue;
            };
            let s = subtopologies
                .get(*sub)
                .ok_or_else(|| ApiError::bare(ErrorCode::UnknownServerError))?;
            let source_order = java_hash_map_order(s.source_topics.iter().map(String::as_str));
            let repartition_order =
                java_hash_map_order(s.repartition_source_topics.keys().map(String::as_str));
            let all = java_hash_set_copy_order(source_order.into_iter().chain(repartition_order));
            for topic in all {
                let count = topics
                    .get(topic)
                    .ok_or_else(|| ApiError::bare(ErrorCode::UnknownServerError))?
                    .partitions;
                let ps: Vec<i32> = parts.iter().copied().filter(|p| *p < count).collect();
                if !ps.is_empty() {
                    list.push(
                        resp::TopicPartition::default()
                            .with_topic(TopicName(StrBytes::from_string(topic.to_string())))
                            .with_partitions(ps),
                    );
                }
            }
        }
        Ok(list)
    };
    let entry = resp::EndpointToPartitions::default()
        .with_user_endpoint(
            resp::Endpoint::default()
                .with_host(StrBytes::from_string(endpoint.host.clone()))
                .with_port(endpoint.port),
        )
        .with_active_partitions(partitions(&active, &active_order)?)
        .with_standby_partitions(partitions(&standby, &standby_order)?);
    soft.endpoint_cache
        .insert(m.member_id.clone(), entry.clone());
    Ok(Some(entry))
}

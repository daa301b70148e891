//! The response of a heartbeat (Kafka's "Prepare the response" of `streamsGroupHeartbeat`): the
//! member's epoch and intervals, its tasks when it joined or its assignment changed, the endpoint
//! information when the member's epoch of it is behind, and the statuses.

use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{StrBytes, StreamsGroupHeartbeatResponse};
use protocol::streams_status::StreamsStatus;

use super::Heartbeat;
use super::epoch::AssignmentConfigsView;
use super::member::same_member;
use crate::error::ApiError;
use crate::java::java_hash_map_order;
use crate::streams::config::EffectiveConfig;
use crate::streams::configure::ConfiguredTopology;
use crate::streams::endpoints::build_endpoint_to_partitions;
use crate::streams::group::{Persistent, Soft};
use crate::streams::member::StreamsGroupMember;
use crate::topics::TopicsImage;

pub(super) fn status(code: StreamsStatus, detail: impl Into<String>) -> resp::Status {
    resp::Status::default()
        .with_status_code(code.code())
        .with_status_detail(StrBytes::from_string(detail.into()))
}

/// Response task lists: subtopologies in the `HashMap` order Kafka iterates, partitions sorted.
fn response_tasks<'a>(tasks: impl Iterator<Item = (&'a String, Vec<i32>)>) -> Vec<resp::TaskIds> {
    let entries: Vec<(&String, Vec<i32>)> = tasks.collect();
    let order = java_hash_map_order(entries.iter().map(|(k, _)| k.as_str()));
    order
        .into_iter()
        .filter_map(|k| entries.iter().find(|(kk, _)| kk.as_str() == k))
        .map(|(k, parts)| {
            resp::TaskIds::default()
                .with_subtopology_id(StrBytes::from_string((*k).clone()))
                .with_partitions(parts.clone())
        })
        .collect()
}

/// The member before and after the heartbeat, and the static member it replaced.
pub(super) struct Members<'a> {
    pub before: &'a StreamsGroupMember,
    pub after: &'a StreamsGroupMember,
    pub replaced_static: Option<&'a StreamsGroupMember>,
}

/// What the response is built from besides the group and the member.
pub(super) struct ResponseInputs<'a> {
    pub effective: &'a EffectiveConfig,
    pub configured: &'a ConfiguredTopology,
    pub configs: &'a AssignmentConfigsView<'a>,
    pub topics: &'a TopicsImage,
    /// The group existed before this heartbeat (a new group's endpoint epoch is not sent).
    pub group_existed: bool,
    pub api_version: i16,
}

/// Builds the response; the heartbeat's statuses so far come first, then the topology's error,
/// the shutdown request and (v1) missing client tags.
pub(super) fn build_response(
    p: &Persistent,
    soft: &mut Soft,
    hb: &mut Heartbeat<'_>,
    members: Members<'_>,
    inputs: ResponseInputs<'_>,
) -> Result<StreamsGroupHeartbeatResponse, ApiError> {
    let Members {
        before: member,
        after: updated,
        replaced_static,
    } = members;
    let effective = inputs.effective;
    let mut response = StreamsGroupHeartbeatResponse::default()
        .with_member_id(StrBytes::from_string(updated.member_id.clone()))
        .with_member_epoch(updated.member_epoch)
        .with_heartbeat_interval_ms(effective.heartbeat_interval_ms)
        .with_task_offset_interval_ms(effective.task_offset_interval_ms)
        .with_acceptable_recovery_lag(effective.acceptable_recovery_lag);
    let assigned_changed = !same_member(updated, member) && member.assigned != updated.assigned;
    let endpoint_changed = member.user_endpoint != updated.user_endpoint;
    // The only carrier of an assignment change: a change whose response is lost is never sent
    // again (docs/findings.md, "A lost streams assignment is never sent again").
    if hb.joining || assigned_changed {
        let a = &updated.assigned;
        response.active_tasks = Some(response_tasks(
            a.active
                .iter()
                .map(|(k, v)| (k, v.keys().copied().collect())),
        ));
        response.standby_tasks = Some(response_tasks(
            a.standby
                .iter()
                .map(|(k, v)| (k, v.iter().copied().collect())),
        ));
        response.warmup_tasks = Some(response_tasks(
            a.warmup
                .iter()
                .map(|(k, v)| (k, v.iter().copied().collect())),
        ));
    }
    if hb.joining || assigned_changed || endpoint_changed || replaced_static.is_some() {
        soft.endpoint_cache.remove(&updated.member_id);
        if let Some(old) = replaced_static {
            soft.endpoint_cache.remove(&old.member_id);
        }
    }
    if endpoint_changed || (assigned_changed && updated.user_endpoint.is_some()) {
        soft.endpoint_information_epoch += 1;
    }
    if soft.endpoint_information_epoch != hb.r.endpoint_information_epoch {
        response.partitions_by_user_endpoint = Some(build_endpoint_to_partitions(
            p,
            soft,
            inputs.configured,
            updated,
            replaced_static.map(|m| m.member_id.as_str()),
            inputs.topics,
        )?);
    }
    if inputs.group_existed {
        response.endpoint_information_epoch = soft.endpoint_information_epoch;
    }
    let mut statuses = std::mem::take(&mut hb.statuses);
    if let Some(e) = &inputs.configured.error {
        statuses.push(status(e.status, e.message.clone()));
    }
    if let Some(requester) = &soft.shutdown_requester {
        statuses.push(status(
            StreamsStatus::ShutdownApplication,
            format!("Streams group member {requester} encountered a fatal error and requested a shutdown for the entire application."),
        ));
    }
    let tags = inputs.configs.tags;
    if inputs.api_version >= 1 && !tags.is_empty() {
        let missing: Vec<&str> = tags
            .iter()
            .map(String::as_str)
            .filter(|t| !updated.client_tags.contains_key(*t))
            .collect();
        if !missing.is_empty() {
            statuses.push(status(
                StreamsStatus::MissingClientTags,
                format!(
                    "Missing required client tags for rack-aware standby assignment: [{}]. Configure them via 'client.tag.<tagKey>' in your Streams config.",
                    missing.join(", ")
                ),
            ));
        }
    }
    response.status = Some(statuses);
    Ok(response)
}

//! Leaving and fencing (Kafka's `streamsGroupLeave`, `streamsGroupStaticMemberGroupLeave` and
//! `streamsGroupFenceMember`).

use kafka_bugs::KafkaBug;
use protocol::ErrorCode;
use protocol::messages::{StrBytes, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};

use super::HeartbeatOutput;
use super::errors::{fenced_instance, not_streams_group, unknown_instance, unknown_member};
use super::records::{current_assignment_record, group_metadata_record, member_tombstones};
use crate::error::ApiError;
use crate::records::Record;
use crate::streams::group::StreamsGroup;
use crate::streams::target::target_metadata_record;
use crate::streams::timers;
use crate::streams::{StreamsEnv, StreamsGroups};

/// `streamsGroupFenceMember`: the member's tombstones, a group-epoch bump, and for the last member
/// the assignment epoch moved along with timestamp 0 (4.4); the member's timers are cancelled.
pub fn fence_member(
    group: &StreamsGroup,
    member_id: &str,
    env: &mut StreamsEnv<'_>,
) -> Vec<Record> {
    let p = &group.persistent;
    let mut records: Vec<Record> = member_tombstones(&group.group_id, member_id).into();
    let epoch = p.group_epoch + 1;
    // The fence keeps the group's metadata hash (KAFKA-19661, apache/kafka#20600). 4.1's wrote
    // hash 0, so the next heartbeat saw the metadata "change", bumped the epoch a second time and
    // configured the topology again.
    let metadata_hash = if env.config.kafka_bugs.on(KafkaBug::Kafka19661) {
        0
    } else {
        p.metadata_hash
    };
    records.push(group_metadata_record(
        &group.group_id,
        epoch,
        metadata_hash,
        p.validated_topology_epoch,
        &p.last_assignment_configs,
        p.stored_description_topology_epoch,
        p.failed_description_topology_epoch,
    ));
    // The last member's fence moves the assignment epoch along (KAFKA-20442, apache/kafka#22047);
    // before 4.4.0 an empty group was left with an assignment epoch behind its group epoch.
    if p.members.len() == 1 && !env.config.kafka_bugs.on(KafkaBug::Kafka20442) {
        records.push(target_metadata_record(&group.group_id, epoch, 0));
    }
    timers::cancel_member(env.timers, &group.group_id, member_id);
    records
}

impl StreamsGroups {
    /// `streamsGroupLeave`: epoch -1 (leave for good) or -2 (a static member leaving for now).
    pub(super) fn leave(
        &mut self,
        env: &mut StreamsEnv<'_>,
        r: &StreamsGroupHeartbeatRequest,
    ) -> Result<HeartbeatOutput, ApiError> {
        let group_id = r.group_id.as_str();
        let member_id = r.member_id.as_str();
        let Some(group) = self.groups.get_mut(group_id) else {
            return Err(if env.classic.holds(group_id) {
                not_streams_group(group_id)
            } else {
                ApiError::new(
                    ErrorCode::GroupIdNotFound,
                    format!("Group {group_id} not found."),
                )
            });
        };
        // The shutdown request is recorded before any member check, so even a failing leave sets it.
        // Before KAFKA-19190 (apache/kafka#19544, in 4.1.0) the leave path ignored the flag: a
        // client that put it only on its leave heartbeat never shut the application down.
        if r.shutdown_application
            && group.soft.shutdown_requester.is_none()
            && !env.config.kafka_bugs.on(KafkaBug::Kafka19190)
        {
            group.soft.shutdown_requester = Some(member_id.to_string());
        }
        let base = StreamsGroupHeartbeatResponse::default()
            .with_member_id(r.member_id.clone())
            .with_member_epoch(r.member_epoch)
            .with_status(Some(Vec::new()));
        let group: &StreamsGroup = group;
        match r.instance_id.as_deref() {
            None => {
                if group.member(member_id).is_none() {
                    return Err(unknown_member(member_id, group_id));
                }
                let records = fence_member(group, member_id, env);
                Ok(HeartbeatOutput {
                    response: base,
                    records,
                })
            }
            Some(instance_id) => {
                let member = group
                    .static_member(instance_id)
                    .ok_or_else(|| unknown_instance(instance_id))?;
                if member.member_id != member_id {
                    return Err(fenced_instance(member_id, instance_id, &member.member_id));
                }
                if r.member_epoch == -2 {
                    // streamsGroupStaticMemberGroupLeave: epoch -2, no pending revocations, active
                    // epochs reset to 0; nothing else changes and the timers keep running.
                    let mut leaving = member.clone();
                    leaving.member_epoch = -2;
                    leaving.pending_revocation = Default::default();
                    leaving.assigned = leaving.assigned.with_active_epochs_reset();
                    let response = StreamsGroupHeartbeatResponse::default()
                        .with_member_id(StrBytes::from_string(member.member_id.clone()))
                        .with_member_epoch(-2)
                        .with_status(Some(Vec::new()));
                    Ok(HeartbeatOutput {
                        response,
                        records: vec![current_assignment_record(group_id, &leaving)],
                    })
                } else {
                    let id = member.member_id.clone();
                    let records = fence_member(group, &id, env);
                    Ok(HeartbeatOutput {
                        response: base,
                        records,
                    })
                }
            }
        }
    }
}

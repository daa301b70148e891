//! The group epoch of a heartbeat: whether it is bumped (member metadata, metadata hash, validated
//! topology epoch, assignment configs, 4.4's refinement), the bump's record, and the initial
//! rebalance delay of an empty group.

use std::collections::{BTreeMap, BTreeSet};

use super::Heartbeat;
use super::records::group_metadata_record;
use crate::streams::config::EffectiveConfig;
use crate::streams::group::{Persistent, RefreshDeadline, Soft, StreamsGroupState};
use crate::streams::member::StreamsGroupMember;
use crate::streams::tasks::TasksTuple;
use crate::streams::timers;
use crate::timer::Timers;

/// The refresh interval Kafka sets at every epoch bump (`Integer.MAX_VALUE` ms).
const METADATA_REFRESH_INTERVAL_MS: i64 = i32::MAX as i64;

/// The assignment configs of a group as Kafka stores them (`streamsGroupAssignmentConfigs`), without
/// building the map unless it is needed.
pub(crate) struct AssignmentConfigsView<'a> {
    pub num_standby_replicas: i32,
    pub tags: &'a [String],
}

impl AssignmentConfigsView<'_> {
    pub fn to_map(&self) -> BTreeMap<String, String> {
        let mut m = BTreeMap::new();
        m.insert(
            "num.standby.replicas".to_string(),
            self.num_standby_replicas.to_string(),
        );
        if !self.tags.is_empty() {
            m.insert(
                "rack.aware.assignment.tags".to_string(),
                self.tags.join(","),
            );
        }
        m
    }

    pub fn matches(&self, stored: &BTreeMap<String, String>) -> bool {
        let expected_len = if self.tags.is_empty() { 1 } else { 2 };
        if stored.len() != expected_len {
            return false;
        }
        let mut buf = [0u8; 12];
        let standby = format_i32(self.num_standby_replicas, &mut buf);
        let standby_ok = stored
            .get("num.standby.replicas")
            .is_some_and(|v| v == standby);
        let tags_ok = self.tags.is_empty()
            || stored
                .get("rack.aware.assignment.tags")
                .is_some_and(|v| v.split(',').eq(self.tags.iter().map(String::as_str)));
        standby_ok && tags_ok
    }
}

/// Formats `v` in decimal into `buf` without allocating.
fn format_i32(v: i32, buf: &mut [u8; 12]) -> &str {
    use std::io::Write;
    let mut cursor = std::io::Cursor::new(&mut buf[..]);
    let _ = write!(cursor, "{v}");
    let len = cursor.position() as usize;
    std::str::from_utf8(&buf[..len]).unwrap_or("")
}

/// What the heartbeat found that bumps the group epoch before the assignment configs are compared.
pub(super) struct BumpCauses {
    /// `hasStreamsMemberMetadataChanged`, or a changed metadata hash.
    pub member_or_metadata: bool,
    pub metadata_hash: i64,
    pub validated_topology_epoch: i32,
}

/// The group epoch after the heartbeat, and whether 4.4's refinement step asked for it.
pub(super) struct GroupEpoch {
    pub epoch: i32,
    pub refined: bool,
}

/// Bumps the group epoch when the member's metadata, the metadata hash, the validated topology
/// epoch or the assignment configs changed, or when 4.4's refinement step (with the identity refiner
/// it fires only when a stable group's member holds something other than its target) asks for it;
/// a bump writes the group's metadata record and sets the next metadata refresh deadline.
pub(super) fn maybe_bump_group_epoch(
    p: &Persistent,
    soft: &mut Soft,
    hb: &mut Heartbeat<'_>,
    member: &StreamsGroupMember,
    causes: BumpCauses,
    configs: &AssignmentConfigsView<'_>,
) -> GroupEpoch {
    let mut bump =
        causes.member_or_metadata || causes.validated_topology_epoch != p.validated_topology_epoch;
    if !bump && !configs.matches(&p.last_assignment_configs) {
        bump = true;
    }
    let mut refined = false;
    if !bump && p.state == StreamsGroupState::Stable {
        let empty = TasksTuple::default();
        let target = p.target_assignment.get(&member.member_id).unwrap_or(&empty);
        if !target.same_tasks(&member.assigned) {
            refined = true;
        }
    }
    let mut epoch = p.group_epoch;
    if bump || refined {
        epoch += 1;
        hb.records.push(group_metadata_record(
            hb.gid,
            epoch,
            causes.metadata_hash,
            causes.validated_topology_epoch,
            &configs.to_map(),
            p.stored_description_topology_epoch,
            p.failed_description_topology_epoch,
        ));
        soft.metadata_refresh_deadline = RefreshDeadline {
            deadline_ms: hb.now_ms + METADATA_REFRESH_INTERVAL_MS,
            epoch,
        };
    }
    GroupEpoch { epoch, refined }
}

/// Schedules `initial-rebalance-timeout-<group>` for an empty group with a delay configured, once.
pub(super) fn maybe_schedule_initial_rebalance(
    p: &Persistent,
    hb: &Heartbeat<'_>,
    effective: &EffectiveConfig,
    pending: &mut BTreeSet<String>,
    timers: &mut Timers<crate::outcome::TimerTask>,
) {
    if p.state == StreamsGroupState::Empty
        && effective.initial_rebalance_delay_ms > 0
        && pending.insert(hb.gid.to_string())
    {
        timers.schedule(
            timers::initial_rebalance_key(hb.gid),
            hb.now_ms + i64::from(effective.initial_rebalance_delay_ms),
            crate::outcome::TimerTask::Streams(timers::StreamsTimer::InitialRebalance {
                group_id: hb.gid.to_string(),
            }),
        );
    }
}

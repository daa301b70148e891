//! StreamsGroupHeartbeat (Kafka 4.4 `GroupMetadataManager.streamsGroupHeartbeat` and
//! `streamsGroupLeave`): join, heartbeat, static membership, leave, fencing.
//!
//! Like Kafka's handler, this code only reads the group's persistent state: it returns the records
//! to append and the shard replays them afterwards. It may change soft state directly (configured
//! topology, endpoint epoch, task offsets, shutdown requester, timers). For a heartbeat that creates a
//! group it works on a throw-away group object, so that soft state is lost, exactly as in Kafka.
//!
//! [`StreamsGroups::heartbeat_inner`] is the driver and reads like Kafka's method; each step is a
//! function named after Kafka's, in the module that holds it:
//! * [`member`]: the member (dynamic or static), its epoch check, its updated metadata;
//! * [`topology`]: the topology, the metadata hash, the configured topology, owned-task checks,
//!   task offsets;
//! * [`epoch`]: the group-epoch bump and the initial rebalance delay;
//! * [`assignment`]: the target assignment and the member's reconciliation;
//! * [`response`]: the response and its statuses;
//! * [`leave`]: epochs -1 and -2, and fencing; [`records`]: the records written; [`errors`].

pub(crate) mod assignment;
mod epoch;
mod errors;
mod leave;
mod member;
mod records;
mod response;
mod topology;

use std::borrow::Cow;

use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;
use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};

pub(crate) use assignment::select_assignor;
pub use leave::fence_member;
pub use records::{group_metadata_record, member_tombstones};

use crate::error::ApiError;
use crate::records::Record;
use crate::streams::group::{Persistent, Soft, StreamsGroup};
use crate::streams::{StreamsEnv, StreamsGroups};

/// The response and records of a successful heartbeat.
pub(crate) struct HeartbeatOutput {
    pub response: StreamsGroupHeartbeatResponse,
    pub records: Vec<Record>,
}

/// One heartbeat as its steps share it: the request, and what the steps produced so far.
pub(super) struct Heartbeat<'a> {
    pub gid: &'a str,
    pub r: &'a StreamsGroupHeartbeatRequest,
    /// Member epoch 0.
    pub joining: bool,
    pub now_ms: i64,
    /// The records to append, in order.
    pub records: Vec<Record>,
    /// The response's statuses found before the response is built.
    pub statuses: Vec<resp::Status>,
    /// The Kafka bugs switched on (the shard's `kafka_bugs`).
    pub bugs: &'a KafkaBugs,
}

impl StreamsGroups {
    /// Runs a StreamsGroupHeartbeat past the service checks. `Err` is the error Kafka's handler throws.
    pub(crate) fn heartbeat_inner(
        &mut self,
        env: &mut StreamsEnv<'_>,
        client_id: &str,
        client_host: &str,
        api_version: i16,
        r: &StreamsGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Result<HeartbeatOutput, ApiError> {
        if r.member_epoch == -1 || r.member_epoch == -2 {
            return self.leave(env, r);
        }
        let group_id = r.group_id.as_str();
        let mut records = Vec::new();
        // Get or create the streams group (a throw-away object when it does not exist yet).
        let fresh = self.get_or_maybe_create_streams_group(env, r, &mut records)?;
        let group_existed = fresh.is_none();
        let mut fresh = fresh;
        let (assignors, hash_cache) = (&self.assignors, &mut self.topic_hash_cache);
        let image_generation = self.image_generation;
        let initial_delay_pending = &mut self.initial_delay_pending;
        let group: &mut StreamsGroup = match fresh.as_mut() {
            Some(g) => g,
            None => self
                .groups
                .get_mut(group_id)
                .ok_or_else(|| errors::not_streams_group(group_id))?,
        };
        let effective = env
            .config
            .streams
            .effective(env.config.group_overrides.get(group_id));
        let StreamsGroup {
            group_id: gid,
            persistent: p,
            soft,
        } = group;
        let (p, soft): (&Persistent, &mut Soft) = (p, soft);
        let mut hb = Heartbeat {
            gid: gid.as_str(),
            r,
            joining: r.member_epoch == 0,
            now_ms,
            records,
            statuses: Vec::new(),
            bugs: &env.config.kafka_bugs,
        };
        if hb.joining {
            member::throw_if_streams_group_is_full(p, r, env.config.streams.max_size, hb.bugs)?;
        }

        // Get or create the member, and update it from the request.
        let (member, replaced_static) = match r.instance_id.as_deref() {
            None => (member::get_or_maybe_create_dynamic_member(p, &hb)?, None),
            Some(instance_id) => {
                member::get_or_maybe_create_static_member(p, &mut hb, instance_id)?
            }
        };
        let updated = member::updated_member(&member, &hb, client_id, client_host)?;
        let member_changed =
            member::has_streams_member_metadata_changed(&mut hb, &member, &updated);

        // The topology, and its configuration against the topic metadata.
        let topology = topology::maybe_update_topology(p, &mut hb, updated.topology_epoch)?;
        let metadata = topology::TopicMetadata {
            topics: env.topics,
            hash_cache,
            image_generation,
        };
        let configured = topology::maybe_configure_topology(p, soft, &topology, metadata, now_ms)?;
        let validated_topology_epoch =
            topology::validated_topology_epoch(&configured.topology, &topology, r)?;
        topology::store_task_offsets(soft, r.member_id.as_str(), r)?;

        // Bump the group epoch if needed.
        let configs = epoch::AssignmentConfigsView {
            num_standby_replicas: effective.num_standby_replicas,
            tags: env.config.streams.tags(&effective),
        };
        let causes = epoch::BumpCauses {
            member_or_metadata: member_changed || configured.hash_changed,
            metadata_hash: configured.metadata_hash,
            validated_topology_epoch,
        };
        let group_epoch =
            epoch::maybe_bump_group_epoch(p, soft, &mut hb, &updated, causes, &configs);
        epoch::maybe_schedule_initial_rebalance(
            p,
            &hb,
            &effective,
            initial_delay_pending,
            env.timers,
        );

        // Update the target assignment, and reconcile the member with it.
        let inputs = assignment::TargetInputs {
            group_epoch: &group_epoch,
            configured: &configured.topology,
            configs: &configs,
            effective: &effective,
            assignors,
            initial_delay_pending,
        };
        let (target_epoch, target) =
            assignment::update_target_assignment(p, soft, &mut hb, &updated, inputs)?;
        let updated: Cow<'_, _> =
            assignment::maybe_reconcile(p, &mut hb, updated, target_epoch, &target, env.timers)?;

        // scheduleStreamsGroupSessionTimeout, and the shutdown request.
        let member_id = r.member_id.as_str();
        crate::streams::timers::schedule_session(
            env.timers,
            hb.gid,
            member_id,
            now_ms + i64::from(effective.session_timeout_ms),
        );
        if r.shutdown_application && soft.shutdown_requester.is_none() {
            soft.shutdown_requester = Some(member_id.to_string());
        }

        let members = response::Members {
            before: &member,
            after: &updated,
            replaced_static,
        };
        let inputs = response::ResponseInputs {
            effective: &effective,
            configured: &configured.topology,
            configs: &configs,
            topics: env.topics,
            group_existed,
            api_version,
        };
        let response = response::build_response(p, soft, &mut hb, members, inputs)?;
        self.internal_topics_to_create = configured.topology.internal_topics_to_create.clone();
        Ok(HeartbeatOutput {
            response,
            records: hb.records,
        })
    }

    /// `getOrMaybeCreateStreamsGroup` for a heartbeat: `Some` new group object when none exists yet
    /// (only a join may create one; an empty classic group of that id is converted, its tombstones
    /// going to `records`), `None` when the group exists.
    fn get_or_maybe_create_streams_group(
        &self,
        env: &StreamsEnv<'_>,
        r: &StreamsGroupHeartbeatRequest,
        records: &mut Vec<Record>,
    ) -> Result<Option<StreamsGroup>, ApiError> {
        let group_id = r.group_id.as_str();
        let joining = r.member_epoch == 0;
        if self.groups.contains_key(group_id) {
            return Ok(None);
        }
        if env.classic.holds(group_id) {
            if joining && env.classic.is_empty(group_id) {
                records.extend(env.classic.tombstones(group_id));
            } else {
                return Err(errors::not_streams_group(group_id));
            }
        } else if !joining {
            return Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Streams group {group_id} not found."),
            ));
        }
        Ok(Some(StreamsGroup::new(group_id)))
    }
}

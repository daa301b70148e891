//! StreamsGroupHeartbeat (Kafka 4.4 `GroupMetadataManager.streamsGroupHeartbeat` and
//! `streamsGroupLeave`): join, heartbeat, static membership, leave, fencing.
//!
//! Like Kafka's handler, this code only reads the group's persistent state: it returns the records
//! to append and the shard replays them afterwards. It may change soft state directly (configured
//! topology, endpoint epoch, task offsets, shutdown requester, timers). For a heartbeat that creates a
//! group it works on a throw-away group object, so that soft state is lost, exactly as in Kafka.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::sync::Arc;

use protocol::ErrorCode;
use protocol::messages::streams_group_heartbeat_request as req;
use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{StrBytes, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};

use crate::error::ApiError;
use crate::records::Record;
use crate::records::streams::{
    Endpoint, KeyValue, StreamsGroupKey, StreamsGroupMetadataValue, StreamsMemberKey,
};
use crate::streams::configure::{ConfiguredTopology, configure_topics};
use crate::streams::endpoints::build_endpoint_to_partitions;
use crate::streams::group::{MemberTaskOffsets, Persistent, Soft, StreamsGroup};
use crate::streams::hash::group_hash_cached;
use crate::streams::member::{MemberState, StreamsGroupMember};
use crate::streams::reconcile::Reconciler;
use crate::streams::target::{
    MembersView, build_target_assignment, target_member_record, target_metadata_record,
};
use crate::streams::tasks::{Tasks, TasksTuple, java_hash_map_order};
use crate::streams::timers;
use crate::streams::topology::{StreamsTopology, record_from_request};
use crate::streams::{StreamsEnv, StreamsGroups};

/// Status codes of StreamsGroupHeartbeatResponse.
pub const STATUS_STALE_TOPOLOGY: i8 = 0;
pub const STATUS_SHUTDOWN_APPLICATION: i8 = 4;
pub const STATUS_ASSIGNMENT_DELAYED: i8 = 5;
pub const STATUS_MISSING_CLIENT_TAGS: i8 = 6;

/// The refresh interval Kafka sets at every epoch bump (`Integer.MAX_VALUE` ms).
const METADATA_REFRESH_INTERVAL_MS: i64 = i32::MAX as i64;

fn status(code: i8, detail: impl Into<String>) -> resp::Status {
    resp::Status::default()
        .with_status_code(code)
        .with_status_detail(StrBytes::from_string(detail.into()))
}

fn unknown_member(member_id: &str, group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownMemberId,
        format!("Member {member_id} is not a member of group {group_id}."),
    )
}

fn unknown_instance(instance_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownMemberId,
        format!("Instance id {instance_id} is unknown."),
    )
}

fn fenced_instance(member_id: &str, instance_id: &str, owner: &str) -> ApiError {
    ApiError::new(
        ErrorCode::FencedInstanceId,
        format!(
            "Static member {member_id} with instance id {instance_id} was fenced by member {owner}."
        ),
    )
}

fn not_streams_group(group_id: &str) -> ApiError {
    ApiError::new(
        ErrorCode::GroupIdNotFound,
        format!("Group {group_id} is not a streams group."),
    )
}

/// `throwIfStreamsGroupMemberEpochIsInvalid`.
fn validate_member_epoch(
    member: &StreamsGroupMember,
    received: i32,
    r: &StreamsGroupHeartbeatRequest,
) -> Result<(), ApiError> {
    if received == 0 {
        return Ok(());
    }
    if received > member.member_epoch {
        return Err(ApiError::new(
            ErrorCode::FencedMemberEpoch,
            format!(
                "The streams group member has a greater member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                member.member_epoch
            ),
        ));
    }
    if received < member.member_epoch {
        let contained = |owned: &Option<Vec<req::TaskIds>>, check: &dyn Fn(&str, i32) -> bool| {
            owned.as_ref().is_some_and(|list| {
                list.iter().all(|t| {
                    t.partitions
                        .iter()
                        .all(|p| check(t.subtopology_id.as_str(), *p))
                })
            })
        };
        let a = &member.assigned;
        let ok = received == member.previous_member_epoch
            && contained(&r.active_tasks, &|s, p| {
                a.active.get(s).is_some_and(|m| m.contains_key(&p))
            })
            && contained(&r.standby_tasks, &|s, p| {
                a.standby.get(s).is_some_and(|m| m.contains(&p))
            })
            && contained(&r.warmup_tasks, &|s, p| {
                a.warmup.get(s).is_some_and(|m| m.contains(&p))
            });
        // Kafka looks the subtopology up before the partitions, so an owned subtopology with no
        // partitions that the member is not assigned also fails.
        let subtopologies_known = |owned: &Option<Vec<req::TaskIds>>,
                                   known: &dyn Fn(&str) -> bool| {
            owned
                .as_ref()
                .is_some_and(|l| l.iter().all(|t| known(t.subtopology_id.as_str())))
        };
        let ok = ok
            && subtopologies_known(&r.active_tasks, &|s| a.active.contains_key(s))
            && subtopologies_known(&r.standby_tasks, &|s| a.standby.contains_key(s))
            && subtopologies_known(&r.warmup_tasks, &|s| a.warmup.contains_key(s));
        if !ok {
            return Err(ApiError::new(
                ErrorCode::FencedMemberEpoch,
                format!(
                    "The streams group member has a smaller member epoch ({received}) than the one known by the group coordinator ({}). The member must abandon all its partitions and rejoin.",
                    member.member_epoch
                ),
            ));
        }
    }
    Ok(())
}

/// `throwIfRequestContainsInvalidTasks`.
fn validate_owned_tasks(
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

/// Owned tasks from the request when all three lists are present (`TasksTuple.fromHeartbeatRequest`).
fn owned_tasks(r: &StreamsGroupHeartbeatRequest) -> Option<TasksTuple> {
    let (Some(a), Some(s), Some(w)) = (&r.active_tasks, &r.standby_tasks, &r.warmup_tasks) else {
        return None;
    };
    let conv = |list: &Vec<req::TaskIds>| -> Tasks {
        let mut out = Tasks::new();
        for t in list {
            out.insert(
                t.subtopology_id.to_string(),
                t.partitions.iter().copied().collect(),
            );
        }
        out
    };
    Some(TasksTuple {
        active: conv(a),
        standby: conv(s),
        warmup: conv(w),
    })
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

/// `newStreamsGroupMetadataRecord`.
pub fn group_metadata_record(
    group_id: &str,
    epoch: i32,
    metadata_hash: i64,
    validated_topology_epoch: i32,
    configs: &BTreeMap<String, String>,
    stored_description_epoch: i32,
    failed_description_epoch: i32,
) -> Record {
    Record::StreamsGroupMetadata {
        key: StreamsGroupKey {
            group_id: group_id.to_string(),
        },
        value: Some(StreamsGroupMetadataValue {
            epoch,
            metadata_hash,
            validated_topology_epoch,
            last_assignment_configs: Some(
                configs
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: k.clone(),
                        value: v.clone(),
                    })
                    .collect(),
            ),
            stored_description_topology_epoch: stored_description_epoch,
            failed_description_topology_epoch: failed_description_epoch,
        }),
    }
}

fn member_key(group_id: &str, member_id: &str) -> StreamsMemberKey {
    StreamsMemberKey {
        group_id: group_id.to_string(),
        member_id: member_id.to_string(),
    }
}

fn member_record(group_id: &str, m: &StreamsGroupMember) -> Record {
    Record::StreamsGroupMemberMetadata {
        key: member_key(group_id, &m.member_id),
        value: Some(m.metadata_value()),
    }
}

pub(crate) fn current_assignment_record(group_id: &str, m: &StreamsGroupMember) -> Record {
    Record::StreamsGroupCurrentMemberAssignment {
        key: member_key(group_id, &m.member_id),
        value: Some(m.assignment_value()),
    }
}

/// `removeStreamsMember`: current assignment, target assignment and member tombstones.
pub fn member_tombstones(group_id: &str, member_id: &str) -> [Record; 3] {
    [
        Record::StreamsGroupCurrentMemberAssignment {
            key: member_key(group_id, member_id),
            value: None,
        },
        Record::StreamsGroupTargetAssignmentMember {
            key: member_key(group_id, member_id),
            value: None,
        },
        Record::StreamsGroupMemberMetadata {
            key: member_key(group_id, member_id),
            value: None,
        },
    ]
}

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
    records.push(group_metadata_record(
        &group.group_id,
        epoch,
        p.metadata_hash,
        p.validated_topology_epoch,
        &p.last_assignment_configs,
        p.stored_description_topology_epoch,
        p.failed_description_topology_epoch,
    ));
    if p.members.len() == 1 {
        records.push(target_metadata_record(&group.group_id, epoch, 0));
    }
    timers::cancel_member(env.timers, &group.group_id, member_id);
    records
}

/// The response and records of a successful heartbeat.
pub(crate) struct HeartbeatOutput {
    pub response: StreamsGroupHeartbeatResponse,
    pub records: Vec<Record>,
}

/// Whether two possibly borrowed members are the same object or equal.
fn same_member(a: &StreamsGroupMember, b: &StreamsGroupMember) -> bool {
    std::ptr::eq(a, b) || a == b
}

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

/// `hasMetadataExpired` on split state.
fn has_expired(p: &Persistent, soft: &Soft, now_ms: i64) -> bool {
    let d = soft.metadata_refresh_deadline;
    now_ms >= d.deadline_ms || p.group_epoch < d.epoch
}

/// `canComputeNextTargetAssignment`.
fn can_compute(assignment_timestamp: i64, interval_ms: i32, now_ms: i64) -> bool {
    assignment_timestamp == 0
        || interval_ms == 0
        || now_ms >= assignment_timestamp + i64::from(interval_ms)
}

/// `streamsGroupAssignor`: the group's configured assignor if registered, else the default (first).
pub(crate) fn select_assignor(
    assignors: &[Arc<dyn crate::streams::assignor::TaskAssignor>],
    effective: &crate::streams::config::EffectiveConfig,
) -> Arc<dyn crate::streams::assignor::TaskAssignor> {
    if let Some(name) = &effective.assignor_name
        && let Some(a) = assignors.iter().find(|a| a.name() == name)
    {
        return a.clone();
    }
    assignors
        .first()
        .cloned()
        .unwrap_or_else(|| Arc::new(crate::streams::assignor::StickyTaskAssignor))
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
        let member_id = r.member_id.as_str();
        let joining = r.member_epoch == 0;
        let mut records: Vec<Record> = Vec::new();

        // Step A: the group (a throw-away object when it does not exist yet).
        let exists = self.groups.contains_key(group_id);
        let mut fresh: Option<StreamsGroup> = None;
        if !exists {
            if env.classic.contains(group_id) {
                if joining && env.classic.is_empty_group(group_id) {
                    records.extend(env.classic.tombstones(group_id));
                } else {
                    return Err(not_streams_group(group_id));
                }
            } else if !joining {
                return Err(ApiError::new(
                    ErrorCode::GroupIdNotFound,
                    format!("Streams group {group_id} not found."),
                ));
            }
            fresh = Some(StreamsGroup::new(group_id));
        }
        let assignors = &self.assignors;
        let hash_cache = &mut self.topic_hash_cache;
        let image_generation = self.image_generation;
        let initial_delay_pending = &mut self.initial_delay_pending;
        let group: &mut StreamsGroup = match fresh.as_mut() {
            Some(g) => g,
            None => self
                .groups
                .get_mut(group_id)
                .ok_or_else(|| not_streams_group(group_id))?,
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
        let gid: &str = gid.as_str();
        let p: &Persistent = p;
        let soft: &mut Soft = soft;

        if joining {
            // throwIfStreamsGroupIsFull.
            let has_static = r
                .instance_id
                .as_deref()
                .is_some_and(|i| p.static_members.contains_key(i));
            let max = env.config.streams.max_size;
            if !has_static
                && p.members.len() >= max as usize
                && (member_id.is_empty() || !p.members.contains_key(member_id))
            {
                return Err(ApiError::new(
                    ErrorCode::GroupMaxSizeReached,
                    format!("The streams group has reached its maximum capacity of {max} members."),
                ));
            }
        }

        // Step B: the member.
        let mut replaced_static: Option<&StreamsGroupMember> = None;
        let member: Cow<'_, StreamsGroupMember> = match r.instance_id.as_deref() {
            None => {
                let m = if joining {
                    match p.members.get(member_id) {
                        Some(m) => Cow::Borrowed(m),
                        None => Cow::Owned(StreamsGroupMember::with_defaults(member_id)),
                    }
                } else {
                    Cow::Borrowed(
                        p.members
                            .get(member_id)
                            .ok_or_else(|| unknown_member(member_id, gid))?,
                    )
                };
                validate_member_epoch(&m, r.member_epoch, r)?;
                m
            }
            Some(instance_id) => {
                let old = p
                    .static_members
                    .get(instance_id)
                    .and_then(|id| p.members.get(id));
                if let Some(o) = old
                    && o.member_id != member_id
                {
                    replaced_static = Some(o);
                }
                if joining {
                    match old {
                        None => match p.members.get(member_id) {
                            Some(m) => Cow::Borrowed(m),
                            None => Cow::Owned(StreamsGroupMember::with_defaults(member_id)),
                        },
                        Some(old) => {
                            if old.member_epoch != -2 {
                                return Err(ApiError::new(
                                    ErrorCode::UnreleasedInstanceId,
                                    format!(
                                        "Static member {member_id} with instance id {instance_id} cannot join the group because the instance id is owned by {} member.",
                                        old.member_id
                                    ),
                                ));
                            }
                            let mut new = old.clone();
                            new.member_id = member_id.to_string();
                            new.member_epoch = 0;
                            new.previous_member_epoch = 0;
                            // replaceStreamsMember.
                            records.extend(member_tombstones(gid, &old.member_id));
                            records.push(member_record(gid, &new));
                            let old_target = p
                                .target_assignment
                                .get(&old.member_id)
                                .cloned()
                                .unwrap_or_default();
                            records.push(target_member_record(gid, member_id, &old_target));
                            records.push(current_assignment_record(gid, &new));
                            Cow::Owned(new)
                        }
                    }
                } else {
                    let old = old.ok_or_else(|| unknown_instance(instance_id))?;
                    if old.member_id != member_id {
                        return Err(fenced_instance(member_id, instance_id, &old.member_id));
                    }
                    validate_member_epoch(old, r.member_epoch, r)?;
                    Cow::Borrowed(old)
                }
            }
        };

        // Step C: the updated member.
        let mut updated: Cow<'_, StreamsGroupMember> = member.clone();
        {
            let client_tags = match &r.client_tags {
                Some(list) => {
                    let mut m = BTreeMap::new();
                    for kv in list {
                        // Collectors.toMap throws on a duplicate key: an unexpected exception.
                        if m.insert(kv.key.to_string(), kv.value.to_string()).is_some() {
                            return Err(ApiError::bare(ErrorCode::UnknownServerError));
                        }
                    }
                    Some(m)
                }
                None => None,
            };
            let endpoint = r.user_endpoint.as_ref().map(|e| Endpoint {
                host: e.host.to_string(),
                port: e.port,
            });
            let u = &*updated;
            let changes = r
                .instance_id
                .as_deref()
                .is_some_and(|i| u.instance_id.as_deref() != Some(i))
                || r.rack_id
                    .as_deref()
                    .is_some_and(|v| u.rack_id.as_deref() != Some(v))
                || (r.rebalance_timeout_ms != -1
                    && u.rebalance_timeout_ms != r.rebalance_timeout_ms)
                || r.topology
                    .as_ref()
                    .is_some_and(|t| u.topology_epoch != t.epoch)
                || u.client_id != client_id
                || u.client_host != client_host
                || r.process_id.as_deref().is_some_and(|v| u.process_id != v)
                || client_tags.as_ref().is_some_and(|t| *t != u.client_tags)
                || if joining {
                    u.user_endpoint != endpoint
                } else {
                    endpoint.is_some() && u.user_endpoint != endpoint
                };
            if changes {
                let m = updated.to_mut();
                if let Some(i) = r.instance_id.as_deref() {
                    m.instance_id = Some(i.to_string());
                }
                if let Some(v) = r.rack_id.as_deref() {
                    m.rack_id = Some(v.to_string());
                }
                if r.rebalance_timeout_ms != -1 {
                    m.rebalance_timeout_ms = r.rebalance_timeout_ms;
                }
                if let Some(t) = &r.topology {
                    m.topology_epoch = t.epoch;
                }
                m.client_id = client_id.to_string();
                m.client_host = client_host.to_string();
                if let Some(v) = r.process_id.as_deref() {
                    m.process_id = v.to_string();
                }
                if let Some(t) = client_tags {
                    m.client_tags = t;
                }
                if joining || endpoint.is_some() {
                    m.user_endpoint = endpoint;
                }
            }
        }
        let mut bump = false;
        if !same_member(&updated, &member) {
            records.push(member_record(gid, &updated));
            bump = match r.instance_id {
                None => true,
                Some(_) => member.has_epoch_relevant_change(&updated),
            };
        }

        // Step D: the topology.
        let request_topology = match &r.topology {
            Some(t) => {
                let value = record_from_request(t);
                let parsed = StreamsTopology::from_record(&value)?;
                Some((value, parsed))
            }
            None => None,
        };
        let updated_topology: Cow<'_, StreamsTopology> = match (request_topology, &p.topology) {
            (Some((value, parsed)), None) => {
                records.push(Record::StreamsGroupTopology {
                    key: StreamsGroupKey {
                        group_id: gid.to_string(),
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
        let mut statuses: Vec<resp::Status> = Vec::new();
        if let Some(current) = &p.topology
            && updated.topology_epoch < current.epoch
        {
            statuses.push(status(
                STATUS_STALE_TOPOLOGY,
                format!(
                    "The member's topology epoch {} is behind the group's topology epoch {}.",
                    updated.topology_epoch, current.epoch
                ),
            ));
        }

        // Step E: metadata hash and topic configuration.
        let mut reconfigure = p.topology.is_none();
        let mut metadata_hash = p.metadata_hash;
        if reconfigure || soft.configured_topology.is_none() || has_expired(p, soft, now_ms) {
            metadata_hash = match soft.metadata_hash_cache {
                Some((generation, hash)) if generation == image_generation => hash,
                _ => {
                    let hash =
                        group_hash_cached(updated_topology.required.iter(), env.topics, hash_cache);
                    soft.metadata_hash_cache = Some((image_generation, hash));
                    hash
                }
            };
            if metadata_hash != p.metadata_hash {
                bump = true;
                reconfigure = true;
            }
            if reconfigure || soft.configured_topology.is_none() {
                let configured = configure_topics(&updated_topology, metadata_hash, env.topics)?;
                soft.configured_topology = Some(Arc::new(configured));
                soft.endpoint_cache.clear();
            }
        }
        let configured: Arc<ConfiguredTopology> = soft
            .configured_topology
            .clone()
            .ok_or_else(|| ApiError::bare(ErrorCode::UnknownServerError))?;
        let mut validated_topology_epoch = -1;
        if configured.is_ready() {
            validated_topology_epoch = updated_topology.epoch;
            validate_owned_tasks(&configured, &r.active_tasks)?;
            validate_owned_tasks(&configured, &r.standby_tasks)?;
            validate_owned_tasks(&configured, &r.warmup_tasks)?;
        }

        // Task offsets are stored after the owned tasks were validated.
        if r.task_offsets.is_some() || r.task_end_offsets.is_some() {
            let task_offsets = r.task_offsets.as_deref().map(offsets_map).transpose()?;
            let task_end_offsets = r.task_end_offsets.as_deref().map(offsets_map).transpose()?;
            let entry = soft.task_offsets.entry(member_id.to_string()).or_default();
            let next = MemberTaskOffsets {
                task_offsets: task_offsets.unwrap_or_else(|| entry.task_offsets.clone()),
                task_end_offsets: task_end_offsets
                    .unwrap_or_else(|| entry.task_end_offsets.clone()),
            };
            *entry = next;
        }

        // Step F: validated epoch and assignment configs.
        if validated_topology_epoch != p.validated_topology_epoch {
            bump = true;
        }
        let tags = env.config.streams.tags(&effective);
        let configs = AssignmentConfigsView {
            num_standby_replicas: effective.num_standby_replicas,
            tags,
        };
        if !bump && !configs.matches(&p.last_assignment_configs) {
            bump = true;
        }
        // The refinement step of 4.4: with the identity refiner it only triggers when a stable
        // group's member holds something other than its target.
        let mut refined = false;
        if !bump && p.state == crate::streams::group::StreamsGroupState::Stable {
            let empty = TasksTuple::default();
            let target = p.target_assignment.get(member_id).unwrap_or(&empty);
            if !target.same_tasks(&updated.assigned) {
                refined = true;
            }
        }

        // Step G: bump.
        let mut group_epoch = p.group_epoch;
        if bump || refined {
            group_epoch += 1;
            records.push(group_metadata_record(
                gid,
                group_epoch,
                metadata_hash,
                validated_topology_epoch,
                &configs.to_map(),
                p.stored_description_topology_epoch,
                p.failed_description_topology_epoch,
            ));
            soft.metadata_refresh_deadline = crate::streams::group::RefreshDeadline {
                deadline_ms: now_ms + METADATA_REFRESH_INTERVAL_MS,
                epoch: group_epoch,
            };
        }

        // Step H: initial rebalance delay for an empty group.
        if p.state == crate::streams::group::StreamsGroupState::Empty
            && effective.initial_rebalance_delay_ms > 0
            && initial_delay_pending.insert(gid.to_string())
        {
            env.timers.schedule(
                timers::initial_rebalance_key(gid),
                now_ms + i64::from(effective.initial_rebalance_delay_ms),
                crate::shard::TimerTask::Streams(timers::StreamsTimer::InitialRebalance {
                    group_id: gid.to_string(),
                }),
            );
        }

        // Step I: the target assignment.
        let (target_epoch, member_target): (i32, Cow<'_, TasksTuple>) = {
            if initial_delay_pending.contains(gid) {
                statuses.push(status(
                    STATUS_ASSIGNMENT_DELAYED,
                    "Assignment delayed due to the configured initial rebalance delay.",
                ));
                (p.assignment_epoch, Cow::Owned(TasksTuple::default()))
            } else {
                let current = || -> Cow<'_, TasksTuple> {
                    crate::streams::target::updated_member_target(p, &updated)
                        .map(Cow::Borrowed)
                        .unwrap_or_default()
                };
                if p.assignment_epoch >= group_epoch {
                    (p.assignment_epoch, current())
                } else if refined && p.assignment_epoch >= p.group_epoch {
                    records.push(target_metadata_record(
                        gid,
                        group_epoch,
                        p.assignment_timestamp,
                    ));
                    (group_epoch, current())
                } else if !can_compute(
                    p.assignment_timestamp,
                    effective.assignment_interval_ms,
                    now_ms,
                ) {
                    statuses.push(status(
                        STATUS_ASSIGNMENT_DELAYED,
                        "Assignment delayed due to the configured assignment interval.",
                    ));
                    (p.assignment_epoch, current())
                } else {
                    let assignor = select_assignor(assignors, &effective);
                    let view = MembersView::new(p, Some(&updated));
                    let result = build_target_assignment(
                        gid,
                        &soft.task_offsets,
                        &view,
                        group_epoch,
                        &configured,
                        &configs.to_map(),
                        assignor.as_ref(),
                        now_ms,
                    )?;
                    records.extend(result.records);
                    let t = result.targets.get(member_id).cloned().unwrap_or_default();
                    (group_epoch, Cow::Owned(t))
                }
            }
        };

        // Step J: reconcile.
        let owned = owned_tasks(r);
        if !updated.is_reconciled_to(target_epoch) {
            let next = Reconciler {
                member: &updated,
                target_epoch,
                target: &member_target,
                ownership: &p.ownership,
                owned: owned.as_ref(),
            }
            .build()?;
            if next != *updated {
                records.push(current_assignment_record(gid, &next));
                if next.state == MemberState::UnrevokedTasks {
                    timers::schedule_rebalance(
                        env.timers,
                        gid,
                        &next.member_id,
                        next.member_epoch,
                        now_ms + i64::from(next.rebalance_timeout_ms),
                    );
                } else {
                    env.timers
                        .cancel(&timers::rebalance_key(gid, &next.member_id));
                }
                updated = Cow::Owned(next);
            }
        }

        // Step K: session timeout and shutdown request.
        timers::schedule_session(
            env.timers,
            gid,
            member_id,
            now_ms + i64::from(effective.session_timeout_ms),
        );
        if r.shutdown_application && soft.shutdown_requester.is_none() {
            soft.shutdown_requester = Some(member_id.to_string());
        }

        // Step L: the response.
        let mut response = StreamsGroupHeartbeatResponse::default()
            .with_member_id(StrBytes::from_string(updated.member_id.clone()))
            .with_member_epoch(updated.member_epoch)
            .with_heartbeat_interval_ms(effective.heartbeat_interval_ms)
            .with_task_offset_interval_ms(effective.task_offset_interval_ms)
            .with_acceptable_recovery_lag(effective.acceptable_recovery_lag);
        let assigned_changed =
            !same_member(&updated, &member) && member.assigned != updated.assigned;
        let endpoint_changed = member.user_endpoint != updated.user_endpoint;
        if joining || assigned_changed {
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
        if joining || assigned_changed || endpoint_changed || replaced_static.is_some() {
            soft.endpoint_cache.remove(&updated.member_id);
            if let Some(old) = replaced_static {
                soft.endpoint_cache.remove(&old.member_id);
            }
        }
        if endpoint_changed || (assigned_changed && updated.user_endpoint.is_some()) {
            soft.endpoint_information_epoch += 1;
        }
        if soft.endpoint_information_epoch != r.endpoint_information_epoch {
            response.partitions_by_user_endpoint = Some(build_endpoint_to_partitions(
                p,
                soft,
                &configured,
                &updated,
                replaced_static.map(|m| m.member_id.as_str()),
                env.topics,
            )?);
        }
        if exists {
            response.endpoint_information_epoch = soft.endpoint_information_epoch;
        }
        if let Some(e) = &configured.error {
            statuses.push(status(e.status, e.message.clone()));
        }
        if let Some(requester) = &soft.shutdown_requester {
            statuses.push(status(
                STATUS_SHUTDOWN_APPLICATION,
                format!("Streams group member {requester} encountered a fatal error and requested a shutdown for the entire application."),
            ));
        }
        if api_version >= 1 && !configs.tags.is_empty() {
            {
                let missing: Vec<&str> = configs
                    .tags
                    .iter()
                    .map(String::as_str)
                    .filter(|t| !updated.client_tags.contains_key(*t))
                    .collect();
                if !missing.is_empty() {
                    statuses.push(status(
                        STATUS_MISSING_CLIENT_TAGS,
                        format!(
                            "Missing required client tags for rack-aware standby assignment: [{}]. Configure them via 'client.tag.<tagKey>' in your Streams config.",
                            missing.join(", ")
                        ),
                    ));
                }
            }
        }
        response.status = Some(statuses);
        self.internal_topics_to_create = configured.internal_topics_to_create.clone();
        Ok(HeartbeatOutput { response, records })
    }
}

impl StreamsGroups {
    /// `streamsGroupLeave`: epoch -1 (leave for good) or -2 (a static member leaving for now).
    fn leave(
        &mut self,
        env: &mut StreamsEnv<'_>,
        r: &StreamsGroupHeartbeatRequest,
    ) -> Result<HeartbeatOutput, ApiError> {
        let group_id = r.group_id.as_str();
        let member_id = r.member_id.as_str();
        let Some(group) = self.groups.get_mut(group_id) else {
            return Err(if env.classic.contains(group_id) {
                not_streams_group(group_id)
            } else {
                ApiError::new(
                    ErrorCode::GroupIdNotFound,
                    format!("Group {group_id} not found."),
                )
            });
        };
        // The shutdown request is recorded before any member check, so even a failing leave sets it.
        if r.shutdown_application && group.soft.shutdown_requester.is_none() {
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

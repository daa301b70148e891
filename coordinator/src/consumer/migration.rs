//! Online migration between classic and consumer groups (KIP-848, `group.consumer.migration.policy`):
//! the upgrade of a classic group that a ConsumerGroupHeartbeat joins (Kafka 4.4's
//! `GroupMetadataManager.validateOnlineUpgrade` and `convertToConsumerGroup`, with
//! `ConsumerGroup.fromClassicGroup` and `createConsumerGroupRecords`), and the consumer protocol's
//! embedded subscription and assignment as the coordinator reads and writes them (`ConsumerProtocol`).

use std::collections::BTreeSet;

use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::messages::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition as AssignmentTopic,
};
use kafka_protocol::messages::consumer_protocol_subscription::ConsumerProtocolSubscription;
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use protocol::ErrorCode;

use crate::consumer::group::ConsumerGroup;
use crate::consumer::member::{ConsumerGroupMember, MemberState, PartitionEpochs, Partitions};
use crate::consumer::records;
use crate::error::ApiError;
use crate::group::{ClassicGroupView, ClassicMemberView};
use crate::records::Record;
use crate::records::consumer::{ClassicMemberMetadata, ClassicProtocol};
use crate::streams::hash::{TopicHashCache, group_hash_cached};
use crate::topics::TopicsImage;

/// The newest `ConsumerProtocolSubscription` / `ConsumerProtocolAssignment` version Kafka 4.4 knows;
/// a newer one is read as this one (`ConsumerProtocol.checkSubscriptionVersion`).
const MAX_PROTOCOL_VERSION: i16 = 3;

/// A `SchemaException` of `ConsumerProtocol`: the bytes could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Malformed(pub String);

/// The version header of embedded consumer-protocol bytes (`ConsumerProtocol.deserializeVersion`,
/// then the version check: negative is refused, newer than known is read as the newest).
fn read_version(buf: &mut Bytes, what: &str) -> Result<i16, Malformed> {
    if buf.remaining() < 2 {
        return Err(Malformed(
            "Buffer underflow while parsing consumer protocol's header".to_string(),
        ));
    }
    let version = buf.get_i16();
    if version < 0 {
        return Err(Malformed(format!("Unsupported {what} version: {version}")));
    }
    Ok(version.min(MAX_PROTOCOL_VERSION))
}

/// `ConsumerProtocol.deserializeConsumerProtocolSubscription`.
pub fn deserialize_subscription(bytes: &[u8]) -> Result<ConsumerProtocolSubscription, Malformed> {
    let mut buf = Bytes::copy_from_slice(bytes);
    let version = read_version(&mut buf, "subscription")?;
    ConsumerProtocolSubscription::decode(&mut buf, version).map_err(|e| Malformed(e.to_string()))
}

/// `ConsumerProtocol.deserializeConsumerProtocolAssignment`, with its version.
pub fn deserialize_assignment(bytes: &[u8]) -> Result<ConsumerProtocolAssignment, Malformed> {
    let mut buf = Bytes::copy_from_slice(bytes);
    let version = read_version(&mut buf, "assignment")?;
    ConsumerProtocolAssignment::decode(&mut buf, version).map_err(|e| Malformed(e.to_string()))
}

/// The version header of a subscription, as `ConsumerProtocol.deserializeVersion` reads it (the
/// version a classic member's SyncGroup assignment is written at); 0 when unreadable.
pub fn subscription_version(bytes: &[u8]) -> i16 {
    let mut buf = Bytes::copy_from_slice(bytes);
    read_version(&mut buf, "subscription").unwrap_or(0)
}

/// `ConsumerProtocol.serializeAssignment(assignment, version)`: the partitions by topic name, no
/// user data. Topics the image no longer has are left out (`toTopicPartitionList`... via the
/// image's names).
pub fn serialize_assignment(version: i16, assigned: &[(String, Vec<i32>)]) -> Bytes {
    let version = version.clamp(0, MAX_PROTOCOL_VERSION);
    let body = ConsumerProtocolAssignment::default().with_assigned_partitions(
        assigned
            .iter()
            .map(|(t, p)| {
                AssignmentTopic::default()
                    .with_topic(StrBytes::from_string(t.clone()).into())
                    .with_partitions(p.clone())
            })
            .collect(),
    );
    let mut buf = BytesMut::new();
    buf.put_i16(version);
    // Encoding a well-formed message at a known version cannot fail; an empty body is the fallback.
    if body.encode(&mut buf, version).is_err() {
        buf.truncate(2);
    }
    buf.freeze()
}

/// `Utils.toTopicPartitionMap`: the assignment's partitions by topic id; topics missing from the image
/// are dropped.
fn to_topic_partition_map(a: &ConsumerProtocolAssignment, topics: &TopicsImage) -> Partitions {
    let mut out = Partitions::new();
    for tp in &a.assigned_partitions {
        if let Some(t) = topics.get(tp.topic.as_str()) {
            out.entry(t.id)
                .or_default()
                .extend(tp.partitions.iter().copied());
        }
    }
    out
}

/// Why an upgrade failed after the classic futures were completed (`convertToConsumerGroup`'s catch
/// blocks).
fn upgrade_refused(group_id: &str, why: &str) -> ApiError {
    ApiError::new(
        ErrorCode::GroupIdNotFound,
        format!("Cannot upgrade classic group {group_id} to consumer group because {why}."),
    )
}

/// `GroupMetadataManager.validateOnlineUpgrade`: the policy, the protocol type and the size, in that
/// order, each refusal a GROUP_ID_NOT_FOUND with Kafka's message.
pub fn validate_online_upgrade(
    group_id: &str,
    upgrade_enabled: bool,
    protocol_type: Option<&str>,
    member_count: usize,
    consumer_max_size: i32,
) -> Result<(), ApiError> {
    if !upgrade_enabled {
        return Err(upgrade_refused(group_id, "online upgrade is disabled"));
    }
    if protocol_type != Some("consumer") {
        return Err(upgrade_refused(
            group_id,
            "the group does not use the consumer embedded protocol",
        ));
    }
    if member_count as i64 > i64::from(consumer_max_size) {
        return Err(upgrade_refused(
            group_id,
            "the group size exceeds the consumer group maximum size",
        ));
    }
    Ok(())
}

/// Why `fromClassicGroup` threw.
enum FromClassicError {
    /// A custom assignor's user data (Kafka's `UnsupportedVersionException`).
    CustomAssignor,
    /// A `SchemaException`.
    Malformed,
    /// No selected protocol (`classicGroup.protocolName().get()` throws `NoSuchElementException`).
    NoProtocol,
}

/// One classic member as a consumer-group member (`fromClassicGroup`'s lambda): the assignment is
/// read first, then the subscription of the selected protocol.
fn member_from_classic(
    m: &ClassicMemberView,
    generation: i32,
    protocol_name: Option<&str>,
    topics: &TopicsImage,
) -> Result<(ConsumerGroupMember, Partitions), FromClassicError> {
    // `ClassicGroupMember.EMPTY_ASSIGNMENT`: a member that never got one holds nothing.
    let assigned: Partitions = if m.assignment.is_empty() {
        Partitions::new()
    } else {
        let a = deserialize_assignment(&m.assignment).map_err(|_| FromClassicError::Malformed)?;
        if a.user_data.as_ref().is_some_and(|u| !u.is_empty()) {
            return Err(FromClassicError::CustomAssignor);
        }
        to_topic_partition_map(&a, topics)
    };
    let protocol_name = protocol_name.ok_or(FromClassicError::NoProtocol)?;
    let metadata = m
        .protocols
        .iter()
        .find(|(n, _)| n == protocol_name)
        .map(|(_, b)| b.as_slice())
        .unwrap_or_default();
    let subscription =
        deserialize_subscription(metadata).map_err(|_| FromClassicError::Malformed)?;
    let mut member = ConsumerGroupMember::new(m.member_id.clone());
    member.member_epoch = generation;
    member.previous_member_epoch = generation;
    member.state = MemberState::Stable;
    member.instance_id = m.instance_id.clone();
    member.rack_id = subscription
        .rack_id
        .as_ref()
        .map(|r| r.to_string())
        .filter(|r| !r.is_empty());
    member.rebalance_timeout_ms = m.rebalance_timeout_ms;
    member.client_id = m.client_id.clone();
    member.client_host = m.client_host.clone();
    member.subscribed_topic_names = subscription
        .topics
        .iter()
        .map(|t| t.to_string())
        .collect::<BTreeSet<_>>();
    // `Utils.toAssignmentWithEpochs`: every partition at the generation.
    member.assigned = assigned
        .iter()
        .map(|(t, ps)| (*t, ps.iter().map(|p| (*p, generation)).collect()))
        .collect::<PartitionEpochs>();
    member.classic = Some(ClassicMemberMetadata {
        session_timeout_ms: m.session_timeout_ms,
        supported_protocols: m
            .protocols
            .iter()
            .map(|(name, metadata)| ClassicProtocol {
                name: name.clone(),
                metadata: metadata.clone(),
            })
            .collect(),
    });
    Ok((member, assigned))
}

/// `GroupMetadataManager.convertToConsumerGroup` past the completion of the classic futures (the
/// caller's): the classic group's tombstone, `ConsumerGroup.fromClassicGroup` and
/// `createConsumerGroupRecords`, appended to `out`. Returns the new group object (not yet in the
/// shard: replaying the records puts it there) and the session timeout of each member, whose session
/// timers the caller schedules.
pub fn convert_to_consumer_group(
    group_id: &str,
    classic: &ClassicGroupView,
    classic_tombstones: Vec<Record>,
    topics: &TopicsImage,
    cache: &mut TopicHashCache,
    out: &mut Vec<Record>,
) -> Result<(ConsumerGroup, Vec<(String, i32)>), ApiError> {
    let generation = classic.generation_id;
    let mut group = ConsumerGroup::new(group_id);
    group.persistent.group_epoch = generation;
    group.persistent.assignment_epoch = generation;
    group.persistent.assignment_timestamp = 0;
    let mut sessions = Vec::new();
    for m in &classic.members {
        let protocol_name = classic.protocol_name.as_deref();
        let (member, assigned) = match member_from_classic(m, generation, protocol_name, topics) {
            Ok(ok) => ok,
            // A group that never completed a join has no protocol: Kafka's `NoSuchElementException`.
            Err(FromClassicError::NoProtocol) => {
                return Err(ApiError::bare(ErrorCode::UnknownServerError));
            }
            Err(FromClassicError::CustomAssignor) => {
                return Err(upgrade_refused(
                    group_id,
                    "an unsupported custom assignor is in use. Please refer to the documentation or switch to a default assignor before re-attempting the upgrade",
                ));
            }
            Err(FromClassicError::Malformed) => {
                return Err(upgrade_refused(
                    group_id,
                    "the embedded consumer protocol is malformed",
                ));
            }
        };
        group
            .persistent
            .target_assignment
            .insert(member.member_id.clone(), assigned);
        sessions.push((member.member_id.clone(), m.session_timeout_ms));
        group.update_member(member);
    }
    let names: Vec<String> = group
        .persistent
        .subscribed_topic_names
        .keys()
        .cloned()
        .collect();
    group.persistent.metadata_hash = group_hash_cached(names.iter(), topics, cache);

    out.extend(classic_tombstones);
    create_consumer_group_records(&group, out);
    Ok((group, sessions))
}

/// `ConsumerGroup.createConsumerGroupRecords`: every member's metadata, the group epoch with the hash,
/// every member's target, the target metadata, every member's current assignment; members in the
/// group's (`TimelineHashMap`) order.
pub fn create_consumer_group_records(group: &ConsumerGroup, out: &mut Vec<Record>) {
    let gid = group.group_id.as_str();
    let p = &group.persistent;
    for m in p.members.values() {
        out.push(records::member_subscription_record(gid, m));
    }
    out.push(records::group_epoch_record(
        gid,
        p.group_epoch,
        p.metadata_hash,
    ));
    for m in p.members.values() {
        let target = p
            .target_assignment
            .get(&m.member_id)
            .cloned()
            .unwrap_or_default();
        out.push(records::target_assignment_record(
            gid,
            &m.member_id,
            &target,
        ));
    }
    out.push(records::target_metadata_record(
        gid,
        p.assignment_epoch,
        p.assignment_timestamp,
    ));
    for m in p.members.values() {
        out.push(records::current_assignment_record(gid, m));
    }
}

/// `ConsumerGroup.createGroupTombstoneRecords`: every member's current assignment, every member's
/// target, the target metadata, every member's metadata, every resolved regex, the legacy partition
/// metadata and the group epoch, tombstoned in that order.
pub fn group_tombstones(group: &ConsumerGroup) -> Vec<Record> {
    group_tombstones_with_replaced_member(group, None)
}

/// `ConsumerGroup.createGroupTombstoneRecordsWithReplacedMember`: [`group_tombstones`] with the
/// replaced member's id (`replaced.0`) written as the joining member's (`replaced.1`).
pub fn group_tombstones_with_replaced_member(
    group: &ConsumerGroup,
    replaced: Option<(&str, &str)>,
) -> Vec<Record> {
    let gid = group.group_id.as_str();
    let p = &group.persistent;
    let members: Vec<&str> = p
        .members
        .keys()
        .map(|m| match replaced {
            Some((old, new)) if m == old => new,
            _ => m.as_str(),
        })
        .collect();
    let mut out = Vec::new();
    for m in &members {
        out.push(records::current_assignment_tombstone(gid, m));
    }
    for m in &members {
        out.push(records::target_assignment_tombstone(gid, m));
    }
    out.push(records::target_metadata_tombstone(gid));
    for m in &members {
        out.push(records::member_subscription_tombstone(gid, m));
    }
    for regex in p.resolved_regexes.keys() {
        out.push(records::regex_tombstone(gid, regex));
    }
    out.push(records::subscription_metadata_tombstone(gid));
    out.push(records::group_epoch_tombstone(gid));
    out
}

/// `ClassicGroup.fromConsumerGroup`'s input: the members that stay (all classic) in the group's member
/// order, each with its classic metadata and its target by topic name (`Utils.toConsumerProtocolAssignment`:
/// topics the image no longer has are left out), at the group's epoch.
pub fn downgraded_group(
    group: &ConsumerGroup,
    leaving: &[&str],
    topics: &TopicsImage,
    rebalance_reason: Option<String>,
) -> crate::group::DowngradedGroup {
    downgraded_group_with_joiner(group, leaving, None, topics, rebalance_reason)
}

/// [`downgraded_group`] for a classic static member replacing the holder of its instance id: that
/// holder is left out and the joiner comes last, with the holder's target.
pub fn downgraded_group_with_joiner(
    group: &ConsumerGroup,
    leaving: &[&str],
    joining: Option<&ConsumerGroupMember>,
    topics: &TopicsImage,
    rebalance_reason: Option<String>,
) -> crate::group::DowngradedGroup {
    let p = &group.persistent;
    let joining_instance = joining.and_then(|j| j.instance_id.as_deref());
    let replaced_id = joining_instance
        .and_then(|i| p.static_members.get(i))
        .cloned();
    let members = p
        .members
        .values()
        .filter(|m| !leaving.contains(&m.member_id.as_str()))
        .filter(|m| joining_instance.is_none() || m.instance_id.as_deref() != joining_instance)
        .chain(joining)
        .map(|m| {
            let classic = m.classic.clone().unwrap_or(ClassicMemberMetadata {
                session_timeout_ms: 0,
                supported_protocols: Vec::new(),
            });
            let view = ClassicMemberView {
                member_id: m.member_id.clone(),
                instance_id: m.instance_id.clone(),
                client_id: m.client_id.clone(),
                client_host: m.client_host.clone(),
                rebalance_timeout_ms: m.rebalance_timeout_ms,
                session_timeout_ms: classic.session_timeout_ms,
                protocols: classic
                    .supported_protocols
                    .iter()
                    .map(|c| (c.name.clone(), c.metadata.clone()))
                    .collect(),
                assignment: Vec::new(),
            };
            let target_id = if joining.is_some_and(|j| j.member_id == m.member_id) {
                replaced_id.as_deref().unwrap_or(&m.member_id)
            } else {
                &m.member_id
            };
            let target = p
                .target_assignment
                .get(target_id)
                .cloned()
                .unwrap_or_default();
            let by_name: Vec<(String, Vec<i32>)> = crate::consumer::member::topic_order(&target)
                .into_iter()
                .filter_map(|t| {
                    topics
                        .get_by_id(&t)
                        .map(|meta| (meta.name.clone(), target[&t].iter().copied().collect()))
                })
                .collect();
            (view, by_name)
        })
        .collect();
    crate::group::DowngradedGroup {
        group_id: group.group_id.clone(),
        generation_id: p.group_epoch,
        members,
        rebalance_reason,
    }
}

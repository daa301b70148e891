//! Kafka's binary form of `__consumer_offsets` records (`CoordinatorRecordSerde`): the record key is
//! the int16 record type followed by the key fields at key version 0 (never flexible); the value is
//! the int16 value version followed by the value fields at that version; a tombstone has no value.
//!
//! regroup's brokers replicate the offsets log with these bytes inside v2 record batches, exactly as
//! Kafka stores them, so a log written here reads in Kafka's own deserializer and vice versa. Values
//! are written at the versions Kafka 4.4 writes (OffsetCommit 1 or 4, GroupMetadata 3, streams 0);
//! reading accepts every version Kafka 4.4 accepts (OffsetCommit and GroupMetadata 0-4).

use uuid::Uuid;

use super::Record;
use super::classic::{
    GROUP_METADATA_VALUE_VERSION, GroupMetadataKey, GroupMetadataValue, MemberMetadata,
};
use super::consumer::{
    ClassicMemberMetadata, ClassicProtocol, ConsumerGroupCurrentMemberAssignmentValue,
    ConsumerGroupKey, ConsumerGroupMemberMetadataValue, ConsumerGroupMetadataValue,
    ConsumerGroupPartitionMetadataValue, ConsumerGroupRegularExpressionValue,
    ConsumerGroupTargetAssignmentMemberValue, ConsumerGroupTargetAssignmentMetadataValue,
    ConsumerMemberKey, ConsumerRegexKey, CurrentTopicPartitions, PartitionMetadata,
    TargetTopicPartitions, TopicMetadata,
};
use super::offsets::{OffsetCommitKey, OffsetCommitValue};
use super::streams::{
    CopartitionGroup, Endpoint, KeyValue, StreamsGroupCurrentMemberAssignmentValue,
    StreamsGroupKey, StreamsGroupMemberMetadataValue, StreamsGroupMetadataValue,
    StreamsGroupTargetAssignmentMemberValue, StreamsGroupTargetAssignmentMetadataValue,
    StreamsGroupTopologyValue, StreamsMemberKey, Subtopology, TaskIds, TopicInfo,
};
pub use super::wire::CodecError;
use super::wire::{Reader, Writer};

/// A record as stored in a record batch: key bytes and value bytes (`None` = tombstone).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordBytes {
    pub key: Vec<u8>,
    pub value: Option<Vec<u8>>,
}

/// Serializes `record` as Kafka's `CoordinatorRecordSerde` does.
pub fn serialize(record: &Record) -> RecordBytes {
    let mut key = Writer::new();
    key.i16(record.record_type());
    let mut value = Writer::new();
    let has_value = match record {
        // A transactional commit is an ordinary OffsetCommit record; its producer is carried by
        // the (transactional) record batch around it.
        Record::OffsetCommit { key: k, value: v }
        | Record::TxnOffsetCommit {
            key: k, value: v, ..
        } => {
            write_offset_key(&mut key, k);
            v.as_ref()
                .map(|v| write_offset_value(&mut value, v))
                .is_some()
        }
        Record::GroupMetadata { key: k, value: v } => {
            key.string(&k.group);
            v.as_ref()
                .map(|v| write_group_value(&mut value, v))
                .is_some()
        }
        Record::ConsumerGroupMetadata { key: k, value: v } => {
            key.string(&k.group_id);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    value.i32(v.epoch);
                    let mut tags = Vec::new();
                    if v.metadata_hash != 0 {
                        let mut t = Writer::new();
                        t.i64(v.metadata_hash);
                        tags.push((0, t.into_inner()));
                    }
                    value.tagged_fields(&tags);
                })
                .is_some()
        }
        Record::ConsumerGroupPartitionMetadata { key: k, value: v } => {
            key.string(&k.group_id);
            v.as_ref()
                .map(|v| write_consumer_partition_metadata(&mut value, v))
                .is_some()
        }
        Record::ConsumerGroupMemberMetadata { key: k, value: v } => {
            write_consumer_member_key(&mut key, k);
            v.as_ref()
                .map(|v| write_consumer_member_metadata(&mut value, v))
                .is_some()
        }
        Record::ConsumerGroupTargetAssignmentMetadata { key: k, value: v } => {
            key.string(&k.group_id);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    value.i32(v.assignment_epoch);
                    let mut tags = Vec::new();
                    if v.assignment_timestamp != 0 {
                        let mut t = Writer::new();
                        t.i64(v.assignment_timestamp);
                        tags.push((0, t.into_inner()));
                    }
                    value.tagged_fields(&tags);
                })
                .is_some()
        }
        Record::ConsumerGroupTargetAssignmentMember { key: k, value: v } => {
            write_consumer_member_key(&mut key, k);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    value.compact_array_len(Some(v.topic_partitions.len()));
                    for tp in &v.topic_partitions {
                        value.uuid(&tp.topic_id);
                        write_i32s(&mut value, &tp.partitions);
                        value.no_tagged_fields();
                    }
                    value.no_tagged_fields();
                })
                .is_some()
        }
        Record::ConsumerGroupCurrentMemberAssignment { key: k, value: v } => {
            write_consumer_member_key(&mut key, k);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    value.i32(v.member_epoch);
                    value.i32(v.previous_member_epoch);
                    value.i8(v.state);
                    write_current_topic_partitions(&mut value, &v.assigned_partitions);
                    write_current_topic_partitions(&mut value, &v.partitions_pending_revocation);
                    value.no_tagged_fields();
                })
                .is_some()
        }
        Record::ConsumerGroupRegularExpression { key: k, value: v } => {
            key.string(&k.group_id);
            key.string(&k.regular_expression);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    write_strings(&mut value, &v.topics);
                    value.i64(v.version);
                    value.i64(v.timestamp);
                    value.no_tagged_fields();
                })
                .is_some()
        }
        Record::StreamsGroupMetadata { key: k, value: v } => {
            key.string(&k.group_id);
            v.as_ref()
                .map(|v| write_streams_metadata(&mut value, v))
                .is_some()
        }
        Record::StreamsGroupMemberMetadata { key: k, value: v } => {
            write_member_key(&mut key, k);
            v.as_ref()
                .map(|v| write_member_metadata(&mut value, v))
                .is_some()
        }
        Record::StreamsGroupTargetAssignmentMetadata { key: k, value: v } => {
            key.string(&k.group_id);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    value.i32(v.assignment_epoch);
                    let mut tags = Vec::new();
                    if v.assignment_timestamp != 0 {
                        let mut t = Writer::new();
                        t.i64(v.assignment_timestamp);
                        tags.push((0, t.into_inner()));
                    }
                    value.tagged_fields(&tags);
                })
                .is_some()
        }
        Record::StreamsGroupTargetAssignmentMember { key: k, value: v } => {
            write_member_key(&mut key, k);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    for tasks in [&v.active_tasks, &v.standby_tasks, &v.warmup_tasks] {
                        write_task_ids(&mut value, tasks, false);
                    }
                    value.no_tagged_fields();
                })
                .is_some()
        }
        Record::StreamsGroupCurrentMemberAssignment { key: k, value: v } => {
            write_member_key(&mut key, k);
            v.as_ref()
                .map(|v| {
                    value.i16(0);
                    value.i32(v.member_epoch);
                    value.i32(v.previous_member_epoch);
                    value.i8(v.state);
                    for tasks in [
                        &v.active_tasks,
                        &v.standby_tasks,
                        &v.warmup_tasks,
                        &v.active_tasks_pending_revocation,
                        &v.standby_tasks_pending_revocation,
                        &v.warmup_tasks_pending_revocation,
                    ] {
                        write_task_ids(&mut value, tasks, true);
                    }
                    value.no_tagged_fields();
                })
                .is_some()
        }
        Record::StreamsGroupTopology { key: k, value: v } => {
            key.string(&k.group_id);
            v.as_ref().map(|v| write_topology(&mut value, v)).is_some()
        }
    };
    RecordBytes {
        key: key.into_inner(),
        value: has_value.then(|| value.into_inner()),
    }
}

/// Deserializes one record as Kafka's `CoordinatorRecordSerde` does. Record types regroup does not
/// model (share groups, the legacy offset key) are reported as
/// [`DecodeOutcome::UnknownType`], which Kafka's loader also skips (with a warning).
pub fn deserialize(key: &[u8], value: Option<&[u8]>) -> Result<DecodeOutcome, CodecError> {
    let mut k = Reader::new(key, "record key");
    let record_type = k.i16()?;
    let mut v = value.map(|v| Reader::new(v, "record value"));
    let version = match v.as_mut() {
        Some(v) => Some(v.i16()?),
        None => None,
    };
    let check_zero = |version: Option<i16>, v: &Option<Reader<'_>>| -> Result<(), CodecError> {
        match (version, v) {
            (Some(ver), Some(r)) if ver != 0 => Err(r.error(format!(
                "value version {ver} of record type {record_type} is not supported"
            ))),
            _ => Ok(()),
        }
    };
    let record = match record_type {
        1 => {
            let key = read_offset_key(&mut k)?;
            let value = match (version, v.as_mut()) {
                (Some(ver), Some(r)) => Some(read_offset_value(r, ver)?),
                _ => None,
            };
            Record::OffsetCommit { key, value }
        }
        2 => {
            let key = GroupMetadataKey { group: k.string()? };
            let value = match (version, v.as_mut()) {
                (Some(ver), Some(r)) => Some(read_group_value(r, ver)?),
                _ => None,
            };
            Record::GroupMetadata { key, value }
        }
        3 => {
            check_zero(version, &v)?;
            let key = ConsumerGroupKey {
                group_id: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => {
                    let epoch = r.i32()?;
                    let mut metadata_hash = 0;
                    r.tagged_fields(|tag, f| {
                        if tag == 0 {
                            metadata_hash = f.i64()?;
                            return Ok(true);
                        }
                        Ok(false)
                    })?;
                    Some(ConsumerGroupMetadataValue {
                        epoch,
                        metadata_hash,
                    })
                }
                None => None,
            };
            Record::ConsumerGroupMetadata { key, value }
        }
        4 => {
            check_zero(version, &v)?;
            let key = ConsumerGroupKey {
                group_id: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => Some(read_consumer_partition_metadata(r)?),
                None => None,
            };
            Record::ConsumerGroupPartitionMetadata { key, value }
        }
        5 => {
            check_zero(version, &v)?;
            let key = read_consumer_member_key(&mut k)?;
            let value = match v.as_mut() {
                Some(r) => Some(read_consumer_member_metadata(r)?),
                None => None,
            };
            Record::ConsumerGroupMemberMetadata { key, value }
        }
        6 => {
            check_zero(version, &v)?;
            let key = ConsumerGroupKey {
                group_id: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => {
                    let assignment_epoch = r.i32()?;
                    let mut assignment_timestamp = 0;
                    r.tagged_fields(|tag, f| {
                        if tag == 0 {
                            assignment_timestamp = f.i64()?;
                            return Ok(true);
                        }
                        Ok(false)
                    })?;
                    Some(ConsumerGroupTargetAssignmentMetadataValue {
                        assignment_epoch,
                        assignment_timestamp,
                    })
                }
                None => None,
            };
            Record::ConsumerGroupTargetAssignmentMetadata { key, value }
        }
        7 => {
            check_zero(version, &v)?;
            let key = read_consumer_member_key(&mut k)?;
            let value = match v.as_mut() {
                Some(r) => {
                    let n = r.compact_array_len_required(18)?;
                    let mut topic_partitions = Vec::with_capacity(n);
                    for _ in 0..n {
                        let topic_id = r.uuid()?;
                        let count = r.compact_array_len_required(4)?;
                        let partitions = read_i32s(r, count)?;
                        r.tagged_fields(|_, _| Ok(false))?;
                        topic_partitions.push(TargetTopicPartitions {
                            topic_id,
                            partitions,
                        });
                    }
                    r.tagged_fields(|_, _| Ok(false))?;
                    Some(ConsumerGroupTargetAssignmentMemberValue { topic_partitions })
                }
                None => None,
            };
            Record::ConsumerGroupTargetAssignmentMember { key, value }
        }
        8 => {
            check_zero(version, &v)?;
            let key = read_consumer_member_key(&mut k)?;
            let value = match v.as_mut() {
                Some(r) => {
                    let member_epoch = r.i32()?;
                    let previous_member_epoch = r.i32()?;
                    let state = r.i8()?;
                    let assigned_partitions = read_current_topic_partitions(r)?;
                    let partitions_pending_revocation = read_current_topic_partitions(r)?;
                    r.tagged_fields(|_, _| Ok(false))?;
                    Some(ConsumerGroupCurrentMemberAssignmentValue {
                        member_epoch,
                        previous_member_epoch,
                        state,
                        assigned_partitions,
                        partitions_pending_revocation,
                    })
                }
                None => None,
            };
            Record::ConsumerGroupCurrentMemberAssignment { key, value }
        }
        16 => {
            check_zero(version, &v)?;
            let key = ConsumerRegexKey {
                group_id: k.string()?,
                regular_expression: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => {
                    let topics = read_strings(r)?;
                    let version = r.i64()?;
                    let timestamp = r.i64()?;
                    r.tagged_fields(|_, _| Ok(false))?;
                    Some(ConsumerGroupRegularExpressionValue {
                        topics,
                        version,
                        timestamp,
                    })
                }
                None => None,
            };
            Record::ConsumerGroupRegularExpression { key, value }
        }
        17 => {
            check_zero(version, &v)?;
            let key = StreamsGroupKey {
                group_id: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => Some(read_streams_metadata(r)?),
                None => None,
            };
            Record::StreamsGroupMetadata { key, value }
        }
        19 => {
            check_zero(version, &v)?;
            let key = read_member_key(&mut k)?;
            let value = match v.as_mut() {
                Some(r) => Some(read_member_metadata(r)?),
                None => None,
            };
            Record::StreamsGroupMemberMetadata { key, value }
        }
        20 => {
            check_zero(version, &v)?;
            let key = StreamsGroupKey {
                group_id: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => {
                    let assignment_epoch = r.i32()?;
                    let mut assignment_timestamp = 0;
                    r.tagged_fields(|tag, f| {
                        if tag == 0 {
                            assignment_timestamp = f.i64()?;
                            return Ok(true);
                        }
                        Ok(false)
                    })?;
                    Some(StreamsGroupTargetAssignmentMetadataValue {
                        assignment_epoch,
                        assignment_timestamp,
                    })
                }
                None => None,
            };
            Record::StreamsGroupTargetAssignmentMetadata { key, value }
        }
        21 => {
            check_zero(version, &v)?;
            let key = read_member_key(&mut k)?;
            let value = match v.as_mut() {
                Some(r) => {
                    let active_tasks = read_task_ids(r, false)?;
                    let standby_tasks = read_task_ids(r, false)?;
                    let warmup_tasks = read_task_ids(r, false)?;
                    r.tagged_fields(|_, _| Ok(false))?;
                    Some(StreamsGroupTargetAssignmentMemberValue {
                        active_tasks,
                        standby_tasks,
                        warmup_tasks,
                    })
                }
                None => None,
            };
            Record::StreamsGroupTargetAssignmentMember { key, value }
        }
        22 => {
            check_zero(version, &v)?;
            let key = read_member_key(&mut k)?;
            let value = match v.as_mut() {
                Some(r) => {
                    let member_epoch = r.i32()?;
                    let previous_member_epoch = r.i32()?;
                    let state = r.i8()?;
                    let active_tasks = read_task_ids(r, true)?;
                    let standby_tasks = read_task_ids(r, true)?;
                    let warmup_tasks = read_task_ids(r, true)?;
                    let active_tasks_pending_revocation = read_task_ids(r, true)?;
                    let standby_tasks_pending_revocation = read_task_ids(r, true)?;
                    let warmup_tasks_pending_revocation = read_task_ids(r, true)?;
                    r.tagged_fields(|_, _| Ok(false))?;
                    Some(StreamsGroupCurrentMemberAssignmentValue {
                        member_epoch,
                        previous_member_epoch,
                        state,
                        active_tasks,
                        standby_tasks,
                        warmup_tasks,
                        active_tasks_pending_revocation,
                        standby_tasks_pending_revocation,
                        warmup_tasks_pending_revocation,
                    })
                }
                None => None,
            };
            Record::StreamsGroupCurrentMemberAssignment { key, value }
        }
        23 => {
            check_zero(version, &v)?;
            let key = StreamsGroupKey {
                group_id: k.string()?,
            };
            let value = match v.as_mut() {
                Some(r) => Some(read_topology(r)?),
                None => None,
            };
            Record::StreamsGroupTopology { key, value }
        }
        other => return Ok(DecodeOutcome::UnknownType(other)),
    };
    k.finish()?;
    if let Some(v) = &v {
        v.finish()?;
    }
    Ok(DecodeOutcome::Record(record))
}

/// What [`deserialize`] found.
// Produced once per record read and matched at once, so the size spread does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DecodeOutcome {
    Record(Record),
    /// A record type regroup does not model; Kafka's loader skips unknown types too.
    UnknownType(i16),
}

fn write_offset_key(w: &mut Writer, k: &OffsetCommitKey) {
    w.string(&k.group);
    w.string(&k.topic);
    w.i32(k.partition);
}

fn read_offset_key(r: &mut Reader<'_>) -> Result<OffsetCommitKey, CodecError> {
    Ok(OffsetCommitKey {
        group: r.string()?,
        topic: r.string()?,
        partition: r.i32()?,
    })
}

fn write_member_key(w: &mut Writer, k: &StreamsMemberKey) {
    w.string(&k.group_id);
    w.string(&k.member_id);
}

fn read_member_key(r: &mut Reader<'_>) -> Result<StreamsMemberKey, CodecError> {
    Ok(StreamsMemberKey {
        group_id: r.string()?,
        member_id: r.string()?,
    })
}

fn write_offset_value(w: &mut Writer, v: &OffsetCommitValue) {
    match v.expire_timestamp {
        // Version 1: offset, metadata, commitTimestamp, expireTimestamp (no leader epoch, no id).
        Some(expire) => {
            w.i16(1);
            w.i64(v.offset);
            w.string(&v.metadata);
            w.i64(v.commit_timestamp);
            w.i64(expire);
        }
        // Version 4 (flexible): offset, leaderEpoch, metadata, commitTimestamp, tag 0 topicId.
        None => {
            w.i16(4);
            w.i64(v.offset);
            w.i32(v.leader_epoch);
            w.compact_string(&v.metadata);
            w.i64(v.commit_timestamp);
            let mut tags = Vec::new();
            if !v.topic_id.is_nil() {
                let mut t = Writer::new();
                t.uuid(&v.topic_id);
                tags.push((0, t.into_inner()));
            }
            w.tagged_fields(&tags);
        }
    }
}

fn read_offset_value(r: &mut Reader<'_>, version: i16) -> Result<OffsetCommitValue, CodecError> {
    if !(0..=4).contains(&version) {
        return Err(r.error(format!(
            "OffsetCommitValue version {version} is not supported"
        )));
    }
    let flexible = version >= 4;
    let offset = r.i64()?;
    let leader_epoch = if version >= 3 { r.i32()? } else { -1 };
    let metadata = if flexible {
        r.compact_string()?
    } else {
        r.string()?
    };
    let commit_timestamp = r.i64()?;
    let expire = if version == 1 { r.i64()? } else { -1 };
    let mut topic_id = Uuid::nil();
    if flexible {
        r.tagged_fields(|tag, f| {
            if tag == 0 {
                topic_id = f.uuid()?;
                return Ok(true);
            }
            Ok(false)
        })?;
    }
    Ok(OffsetCommitValue {
        offset,
        leader_epoch,
        metadata,
        commit_timestamp,
        // Kafka's loader treats the default (-1) as "no expire timestamp".
        expire_timestamp: (expire != -1).then_some(expire),
        topic_id,
    })
}

fn write_group_value(w: &mut Writer, v: &GroupMetadataValue) {
    // Version 3: every field exists and nothing is flexible.
    w.i16(GROUP_METADATA_VALUE_VERSION);
    w.string(&v.protocol_type);
    w.i32(v.generation);
    w.nullable_string(v.protocol.as_deref());
    w.nullable_string(v.leader.as_deref());
    w.i64(v.current_state_timestamp);
    w.array_len(v.members.len());
    for m in &v.members {
        w.string(&m.member_id);
        w.nullable_string(m.group_instance_id.as_deref());
        w.string(&m.client_id);
        w.string(&m.client_host);
        w.i32(m.rebalance_timeout);
        w.i32(m.session_timeout);
        w.bytes(&m.subscription);
        w.bytes(&m.assignment);
    }
}

fn read_group_value(r: &mut Reader<'_>, version: i16) -> Result<GroupMetadataValue, CodecError> {
    if !(0..=4).contains(&version) {
        return Err(r.error(format!(
            "GroupMetadataValue version {version} is not supported"
        )));
    }
    let flexible = version >= 4;
    let string = |r: &mut Reader<'_>| {
        if flexible {
            r.compact_string()
        } else {
            r.string()
        }
    };
    let nullable = |r: &mut Reader<'_>| {
        if flexible {
            r.compact_nullable_string()
        } else {
            r.nullable_string()
        }
    };
    let protocol_type = string(r)?;
    let generation = r.i32()?;
    let protocol = nullable(r)?;
    let leader = nullable(r)?;
    let current_state_timestamp = if version >= 2 { r.i64()? } else { -1 };
    // A member takes at least 4 strings, 2 byte arrays and an int.
    let count = if flexible {
        r.compact_array_len_required(10)?
    } else {
        r.array_len(20)?
    };
    let mut members = Vec::with_capacity(count);
    for _ in 0..count {
        let member_id = string(r)?;
        let group_instance_id = if version >= 3 { nullable(r)? } else { None };
        let client_id = string(r)?;
        let client_host = string(r)?;
        let rebalance_timeout = if version >= 1 { r.i32()? } else { -1 };
        let session_timeout = r.i32()?;
        let (subscription, assignment) = if flexible {
            (r.compact_bytes()?, r.compact_bytes()?)
        } else {
            (r.bytes()?, r.bytes()?)
        };
        if flexible {
            r.tagged_fields(|_, _| Ok(false))?;
        }
        members.push(MemberMetadata {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout,
            session_timeout,
            subscription,
            assignment,
        });
    }
    if flexible {
        r.tagged_fields(|_, _| Ok(false))?;
    }
    Ok(GroupMetadataValue {
        protocol_type,
        generation,
        protocol,
        leader,
        current_state_timestamp,
        members,
    })
}

fn write_key_values(w: &mut Writer, kvs: &[KeyValue]) {
    w.compact_array_len(Some(kvs.len()));
    for kv in kvs {
        w.compact_string(&kv.key);
        w.compact_string(&kv.value);
        w.no_tagged_fields();
    }
}

fn read_key_values(r: &mut Reader<'_>, len: usize) -> Result<Vec<KeyValue>, CodecError> {
    let mut out = Vec::with_capacity(len);
    for _ in 0..len {
        let key = r.compact_string()?;
        let value = r.compact_string()?;
        r.tagged_fields(|_, _| Ok(false))?;
        out.push(KeyValue { key, value });
    }
    Ok(out)
}

fn write_streams_metadata(w: &mut Writer, v: &StreamsGroupMetadataValue) {
    w.i16(0);
    w.i32(v.epoch);
    w.i64(v.metadata_hash);
    let mut tags = Vec::new();
    if v.validated_topology_epoch != -1 {
        let mut t = Writer::new();
        t.i32(v.validated_topology_epoch);
        tags.push((0, t.into_inner()));
    }
    if let Some(configs) = &v.last_assignment_configs {
        let mut t = Writer::new();
        write_key_values(&mut t, configs);
        tags.push((1, t.into_inner()));
    }
    if v.stored_description_topology_epoch != -1 {
        let mut t = Writer::new();
        t.i32(v.stored_description_topology_epoch);
        tags.push((2, t.into_inner()));
    }
    if v.failed_description_topology_epoch != -1 {
        let mut t = Writer::new();
        t.i32(v.failed_description_topology_epoch);
        tags.push((3, t.into_inner()));
    }
    w.tagged_fields(&tags);
}

fn read_streams_metadata(r: &mut Reader<'_>) -> Result<StreamsGroupMetadataValue, CodecError> {
    let mut v = StreamsGroupMetadataValue {
        epoch: r.i32()?,
        metadata_hash: r.i64()?,
        validated_topology_epoch: -1,
        last_assignment_configs: None,
        stored_description_topology_epoch: -1,
        failed_description_topology_epoch: -1,
    };
    r.tagged_fields(|tag, f| {
        match tag {
            0 => v.validated_topology_epoch = f.i32()?,
            1 => {
                v.last_assignment_configs = match f.compact_array_len(2)? {
                    Some(n) => Some(read_key_values(f, n)?),
                    None => None,
                }
            }
            2 => v.stored_description_topology_epoch = f.i32()?,
            3 => v.failed_description_topology_epoch = f.i32()?,
            _ => return Ok(false),
        }
        Ok(true)
    })?;
    Ok(v)
}

fn write_member_metadata(w: &mut Writer, v: &StreamsGroupMemberMetadataValue) {
    w.i16(0);
    w.compact_nullable_string(v.instance_id.as_deref());
    w.compact_nullable_string(v.rack_id.as_deref());
    w.compact_string(&v.client_id);
    w.compact_string(&v.client_host);
    w.i32(v.rebalance_timeout_ms);
    w.i32(v.topology_epoch);
    w.compact_string(&v.process_id);
    match &v.user_endpoint {
        // A nullable struct is preceded by a byte: -1 for null, 1 for present.
        None => w.i8(-1),
        Some(e) => {
            w.i8(1);
            w.compact_string(&e.host);
            w.u16(e.port);
            w.no_tagged_fields();
        }
    }
    write_key_values(w, &v.client_tags);
    w.no_tagged_fields();
}

fn read_member_metadata(r: &mut Reader<'_>) -> Result<StreamsGroupMemberMetadataValue, CodecError> {
    let instance_id = r.compact_nullable_string()?;
    let rack_id = r.compact_nullable_string()?;
    let client_id = r.compact_string()?;
    let client_host = r.compact_string()?;
    let rebalance_timeout_ms = r.i32()?;
    let topology_epoch = r.i32()?;
    let process_id = r.compact_string()?;
    let user_endpoint = if r.i8()? < 0 {
        None
    } else {
        let host = r.compact_string()?;
        let port = r.u16()?;
        r.tagged_fields(|_, _| Ok(false))?;
        Some(Endpoint { host, port })
    };
    let n = r.compact_array_len_required(3)?;
    let client_tags = read_key_values(r, n)?;
    r.tagged_fields(|_, _| Ok(false))?;
    Ok(StreamsGroupMemberMetadataValue {
        instance_id,
        rack_id,
        client_id,
        client_host,
        rebalance_timeout_ms,
        topology_epoch,
        process_id,
        user_endpoint,
        client_tags,
    })
}

fn write_consumer_member_key(w: &mut Writer, k: &ConsumerMemberKey) {
    w.string(&k.group_id);
    w.string(&k.member_id);
}

fn read_consumer_member_key(r: &mut Reader<'_>) -> Result<ConsumerMemberKey, CodecError> {
    Ok(ConsumerMemberKey {
        group_id: r.string()?,
        member_id: r.string()?,
    })
}

fn write_consumer_partition_metadata(w: &mut Writer, v: &ConsumerGroupPartitionMetadataValue) {
    w.i16(0);
    w.compact_array_len(Some(v.topics.len()));
    for t in &v.topics {
        w.uuid(&t.topic_id);
        w.compact_string(&t.topic_name);
        w.i32(t.num_partitions);
        w.compact_array_len(Some(t.partition_metadata.len()));
        for p in &t.partition_metadata {
            w.i32(p.partition);
            write_strings(w, &p.racks);
            w.no_tagged_fields();
        }
        w.no_tagged_fields();
    }
    w.no_tagged_fields();
}

fn read_consumer_partition_metadata(
    r: &mut Reader<'_>,
) -> Result<ConsumerGroupPartitionMetadataValue, CodecError> {
    let n = r.compact_array_len_required(23)?;
    let mut topics = Vec::with_capacity(n);
    for _ in 0..n {
        let topic_id = r.uuid()?;
        let topic_name = r.compact_string()?;
        let num_partitions = r.i32()?;
        let count = r.compact_array_len_required(6)?;
        let mut partition_metadata = Vec::with_capacity(count);
        for _ in 0..count {
            let partition = r.i32()?;
            let racks = read_strings(r)?;
            r.tagged_fields(|_, _| Ok(false))?;
            partition_metadata.push(PartitionMetadata { partition, racks });
        }
        r.tagged_fields(|_, _| Ok(false))?;
        topics.push(TopicMetadata {
            topic_id,
            topic_name,
            num_partitions,
            partition_metadata,
        });
    }
    r.tagged_fields(|_, _| Ok(false))?;
    Ok(ConsumerGroupPartitionMetadataValue { topics })
}

fn write_consumer_member_metadata(w: &mut Writer, v: &ConsumerGroupMemberMetadataValue) {
    w.i16(0);
    w.compact_nullable_string(v.instance_id.as_deref());
    w.compact_nullable_string(v.rack_id.as_deref());
    w.compact_string(&v.client_id);
    w.compact_string(&v.client_host);
    write_strings(w, &v.subscribed_topic_names);
    w.compact_nullable_string(v.subscribed_topic_regex.as_deref());
    w.i32(v.rebalance_timeout_ms);
    w.compact_nullable_string(v.server_assignor.as_deref());
    let mut tags = Vec::new();
    if let Some(c) = &v.classic_member_metadata {
        let mut t = Writer::new();
        t.i8(1);
        t.i32(c.session_timeout_ms);
        t.compact_array_len(Some(c.supported_protocols.len()));
        for p in &c.supported_protocols {
            t.compact_string(&p.name);
            t.compact_bytes(&p.metadata);
            t.no_tagged_fields();
        }
        t.no_tagged_fields();
        tags.push((0, t.into_inner()));
    }
    w.tagged_fields(&tags);
}

fn read_consumer_member_metadata(
    r: &mut Reader<'_>,
) -> Result<ConsumerGroupMemberMetadataValue, CodecError> {
    let instance_id = r.compact_nullable_string()?;
    let rack_id = r.compact_nullable_string()?;
    let client_id = r.compact_string()?;
    let client_host = r.compact_string()?;
    let subscribed_topic_names = read_strings(r)?;
    let subscribed_topic_regex = r.compact_nullable_string()?;
    let rebalance_timeout_ms = r.i32()?;
    let server_assignor = r.compact_nullable_string()?;
    let mut classic_member_metadata = None;
    r.tagged_fields(|tag, f| {
        if tag != 0 {
            return Ok(false);
        }
        if f.i8()? < 0 {
            return Ok(true);
        }
        let session_timeout_ms = f.i32()?;
        let n = f.compact_array_len_required(3)?;
        let mut supported_protocols = Vec::with_capacity(n);
        for _ in 0..n {
            let name = f.compact_string()?;
            let metadata = f.compact_bytes()?;
            f.tagged_fields(|_, _| Ok(false))?;
            supported_protocols.push(ClassicProtocol { name, metadata });
        }
        f.tagged_fields(|_, _| Ok(false))?;
        classic_member_metadata = Some(ClassicMemberMetadata {
            session_timeout_ms,
            supported_protocols,
        });
        Ok(true)
    })?;
    Ok(ConsumerGroupMemberMetadataValue {
        instance_id,
        rack_id,
        client_id,
        client_host,
        subscribed_topic_names,
        subscribed_topic_regex,
        rebalance_timeout_ms,
        server_assignor,
        classic_member_metadata,
    })
}

fn write_current_topic_partitions(w: &mut Writer, topics: &[CurrentTopicPartitions]) {
    w.compact_array_len(Some(topics.len()));
    for t in topics {
        w.uuid(&t.topic_id);
        write_i32s(w, &t.partitions);
        let mut tags = Vec::new();
        if let Some(epochs) = &t.assignment_epochs {
            let mut f = Writer::new();
            write_i32s(&mut f, epochs);
            tags.push((0, f.into_inner()));
        }
        w.tagged_fields(&tags);
    }
}

fn read_current_topic_partitions(
    r: &mut Reader<'_>,
) -> Result<Vec<CurrentTopicPartitions>, CodecError> {
    let n = r.compact_array_len_required(18)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let topic_id = r.uuid()?;
        let count = r.compact_array_len_required(4)?;
        let partitions = read_i32s(r, count)?;
        let mut assignment_epochs = None;
        r.tagged_fields(|tag, f| {
            if tag == 0 {
                assignment_epochs = match f.compact_array_len(4)? {
                    Some(n) => Some(read_i32s(f, n)?),
                    None => None,
                };
                return Ok(true);
            }
            Ok(false)
        })?;
        out.push(CurrentTopicPartitions {
            topic_id,
            partitions,
            assignment_epochs,
        });
    }
    Ok(out)
}

fn write_i32s(w: &mut Writer, values: &[i32]) {
    w.compact_array_len(Some(values.len()));
    for v in values {
        w.i32(*v);
    }
}

fn read_i32s(r: &mut Reader<'_>, n: usize) -> Result<Vec<i32>, CodecError> {
    (0..n).map(|_| r.i32()).collect()
}

/// `with_epochs`: the current-assignment form, whose TaskIds carry the tagged AssignmentEpochs.
fn write_task_ids(w: &mut Writer, tasks: &[TaskIds], with_epochs: bool) {
    w.compact_array_len(Some(tasks.len()));
    for t in tasks {
        w.compact_string(&t.subtopology_id);
        write_i32s(w, &t.partitions);
        let mut tags = Vec::new();
        if with_epochs && let Some(epochs) = &t.assignment_epochs {
            let mut f = Writer::new();
            write_i32s(&mut f, epochs);
            tags.push((0, f.into_inner()));
        }
        w.tagged_fields(&tags);
    }
}

fn read_task_ids(r: &mut Reader<'_>, with_epochs: bool) -> Result<Vec<TaskIds>, CodecError> {
    let n = r.compact_array_len_required(3)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let subtopology_id = r.compact_string()?;
        let count = r.compact_array_len_required(4)?;
        let partitions = read_i32s(r, count)?;
        let mut assignment_epochs = None;
        r.tagged_fields(|tag, f| {
            if with_epochs && tag == 0 {
                assignment_epochs = match f.compact_array_len(4)? {
                    Some(n) => Some(read_i32s(f, n)?),
                    None => None,
                };
                return Ok(true);
            }
            Ok(false)
        })?;
        out.push(TaskIds {
            subtopology_id,
            partitions,
            assignment_epochs,
        });
    }
    Ok(out)
}

fn write_strings(w: &mut Writer, values: &[String]) {
    w.compact_array_len(Some(values.len()));
    for v in values {
        w.compact_string(v);
    }
}

fn read_strings(r: &mut Reader<'_>) -> Result<Vec<String>, CodecError> {
    let n = r.compact_array_len_required(1)?;
    (0..n).map(|_| r.compact_string()).collect()
}

fn write_i16s(w: &mut Writer, values: &[i16]) {
    w.compact_array_len(Some(values.len()));
    for v in values {
        w.i16(*v);
    }
}

fn read_i16s(r: &mut Reader<'_>) -> Result<Vec<i16>, CodecError> {
    let n = r.compact_array_len_required(2)?;
    (0..n).map(|_| r.i16()).collect()
}

fn write_topic_infos(w: &mut Writer, infos: &[TopicInfo]) {
    w.compact_array_len(Some(infos.len()));
    for t in infos {
        w.compact_string(&t.name);
        w.i32(t.partitions);
        w.i16(t.replication_factor);
        write_key_values(w, &t.topic_configs);
        w.no_tagged_fields();
    }
}

fn read_topic_infos(r: &mut Reader<'_>) -> Result<Vec<TopicInfo>, CodecError> {
    let n = r.compact_array_len_required(9)?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let name = r.compact_string()?;
        let partitions = r.i32()?;
        let replication_factor = r.i16()?;
        let count = r.compact_array_len_required(3)?;
        let topic_configs = read_key_values(r, count)?;
        r.tagged_fields(|_, _| Ok(false))?;
        out.push(TopicInfo {
            name,
            partitions,
            replication_factor,
            topic_configs,
        });
    }
    Ok(out)
}

fn write_topology(w: &mut Writer, v: &StreamsGroupTopologyValue) {
    w.i16(0);
    w.i32(v.epoch);
    w.compact_array_len(Some(v.subtopologies.len()));
    for s in &v.subtopologies {
        w.compact_string(&s.subtopology_id);
        write_strings(w, &s.source_topics);
        write_strings(w, &s.source_topic_regex);
        write_topic_infos(w, &s.state_changelog_topics);
        write_strings(w, &s.repartition_sink_topics);
        write_topic_infos(w, &s.repartition_source_topics);
        w.compact_array_len(Some(s.copartition_groups.len()));
        for g in &s.copartition_groups {
            write_i16s(w, &g.source_topics);
            write_i16s(w, &g.source_topic_regex);
            write_i16s(w, &g.repartition_source_topics);
            w.no_tagged_fields();
        }
        w.no_tagged_fields();
    }
    w.no_tagged_fields();
}

fn read_topology(r: &mut Reader<'_>) -> Result<StreamsGroupTopologyValue, CodecError> {
    let epoch = r.i32()?;
    let n = r.compact_array_len_required(8)?;
    let mut subtopologies = Vec::with_capacity(n);
    for _ in 0..n {
        let subtopology_id = r.compact_string()?;
        let source_topics = read_strings(r)?;
        let source_topic_regex = read_strings(r)?;
        let state_changelog_topics = read_topic_infos(r)?;
        let repartition_sink_topics = read_strings(r)?;
        let repartition_source_topics = read_topic_infos(r)?;
        let groups = r.compact_array_len_required(4)?;
        let mut copartition_groups = Vec::with_capacity(groups);
        for _ in 0..groups {
            let source_topics = read_i16s(r)?;
            let source_topic_regex = read_i16s(r)?;
            let repartition_source_topics = read_i16s(r)?;
            r.tagged_fields(|_, _| Ok(false))?;
            copartition_groups.push(CopartitionGroup {
                source_topics,
                source_topic_regex,
                repartition_source_topics,
            });
        }
        r.tagged_fields(|_, _| Ok(false))?;
        subtopologies.push(Subtopology {
            subtopology_id,
            source_topics,
            source_topic_regex,
            state_changelog_topics,
            repartition_sink_topics,
            repartition_source_topics,
            copartition_groups,
        });
    }
    r.tagged_fields(|_, _| Ok(false))?;
    Ok(StreamsGroupTopologyValue {
        epoch,
        subtopologies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(record: Record) -> RecordBytes {
        let bytes = serialize(&record);
        let back = deserialize(&bytes.key, bytes.value.as_deref()).unwrap();
        assert_eq!(back, DecodeOutcome::Record(record));
        bytes
    }

    fn offset_key() -> OffsetCommitKey {
        OffsetCommitKey {
            group: "g1".into(),
            topic: "t".into(),
            partition: 3,
        }
    }

    #[test]
    fn offset_commit_v4_bytes_match_kafka_layout() {
        let bytes = round_trip(Record::OffsetCommit {
            key: offset_key(),
            value: Some(OffsetCommitValue {
                offset: 42,
                leader_epoch: -1,
                metadata: "m".into(),
                commit_timestamp: 1000,
                expire_timestamp: None,
                topic_id: Uuid::nil(),
            }),
        });
        // key: type 1, "g1", "t", partition 3
        assert_eq!(
            hex(&bytes.key),
            "0001 0002 6731 0001 74 00000003".replace(' ', "")
        );
        // value: version 4, offset 42, leader epoch -1, compact "m", timestamp 1000, no tags
        assert_eq!(
            hex(bytes.value.as_ref().unwrap()),
            "0004 000000000000002a ffffffff 026d 00000000000003e8 00".replace(' ', "")
        );
    }

    #[test]
    fn offset_commit_v1_and_tombstone_and_topic_id_tag() {
        let v1 = round_trip(Record::OffsetCommit {
            key: offset_key(),
            value: Some(OffsetCommitValue {
                offset: 7,
                leader_epoch: -1,
                metadata: String::new(),
                commit_timestamp: 5,
                expire_timestamp: Some(9),
                topic_id: Uuid::nil(),
            }),
        });
        assert_eq!(&v1.value.as_ref().unwrap()[..2], &[0, 1]);
        let tomb = round_trip(Record::OffsetCommit {
            key: offset_key(),
            value: None,
        });
        assert!(tomb.value.is_none());
        let id = Uuid::from_u64_pair(1, 2);
        let tagged = round_trip(Record::OffsetCommit {
            key: offset_key(),
            value: Some(OffsetCommitValue {
                offset: 1,
                leader_epoch: 4,
                metadata: String::new(),
                commit_timestamp: 2,
                expire_timestamp: None,
                topic_id: id,
            }),
        });
        // ... commitTimestamp, then 1 tagged field, tag 0, 16 bytes, the uuid.
        let v = tagged.value.unwrap();
        assert_eq!(&v[v.len() - 19..v.len() - 16], &[1, 0, 16]);
    }

    #[test]
    fn older_offset_versions_decode() {
        // Version 3 (non-flexible, with leader epoch): offset 5, epoch 2, "x", timestamp 6.
        let mut w = Writer::new();
        w.i16(3);
        w.i64(5);
        w.i32(2);
        w.string("x");
        w.i64(6);
        let mut key = Writer::new();
        key.i16(1);
        write_offset_key(&mut key, &offset_key());
        let got = deserialize(&key.buf, Some(&w.buf)).unwrap();
        let DecodeOutcome::Record(Record::OffsetCommit { value: Some(v), .. }) = got else {
            panic!("{got:?}")
        };
        assert_eq!((v.offset, v.leader_epoch, v.metadata.as_str()), (5, 2, "x"));
        assert_eq!(v.expire_timestamp, None);
    }

    /// Group "g" at generation 2 (range, no leader) with one static member: the GroupMetadata
    /// record both the version check and the byte table use.
    fn one_member_group_metadata() -> Record {
        Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: Some(GroupMetadataValue {
                protocol_type: "consumer".into(),
                generation: 2,
                protocol: Some("range".into()),
                leader: None,
                current_state_timestamp: 77,
                members: vec![MemberMetadata {
                    member_id: "m-1".into(),
                    group_instance_id: Some("i".into()),
                    client_id: "c".into(),
                    client_host: "/127.0.0.1".into(),
                    rebalance_timeout: 300_000,
                    session_timeout: 45_000,
                    subscription: vec![1, 2],
                    assignment: vec![],
                }],
            }),
        }
    }

    #[test]
    fn group_metadata_round_trips_at_version_3() {
        let bytes = round_trip(one_member_group_metadata());
        assert_eq!(&bytes.value.unwrap()[..2], &[0, 3]);
    }

    #[test]
    fn streams_records_round_trip() {
        let key = StreamsGroupKey {
            group_id: "app".into(),
        };
        let member = StreamsMemberKey {
            group_id: "app".into(),
            member_id: "m".into(),
        };
        let tasks = vec![TaskIds {
            subtopology_id: "0".into(),
            partitions: vec![0, 1],
            assignment_epochs: Some(vec![3, 4]),
        }];
        round_trip(Record::StreamsGroupMetadata {
            key: key.clone(),
            value: Some(StreamsGroupMetadataValue {
                epoch: 3,
                metadata_hash: -5,
                validated_topology_epoch: 0,
                last_assignment_configs: Some(vec![KeyValue {
                    key: "num.standby.replicas".into(),
                    value: "0".into(),
                }]),
                stored_description_topology_epoch: -1,
                failed_description_topology_epoch: 2,
            }),
        });
        round_trip(Record::StreamsGroupMemberMetadata {
            key: member.clone(),
            value: Some(StreamsGroupMemberMetadataValue {
                instance_id: None,
                rack_id: Some("r".into()),
                client_id: "c".into(),
                client_host: "/h".into(),
                rebalance_timeout_ms: 1000,
                topology_epoch: 0,
                process_id: "p".into(),
                user_endpoint: Some(Endpoint {
                    host: "h".into(),
                    port: 65535,
                }),
                client_tags: vec![],
            }),
        });
        round_trip(Record::StreamsGroupTargetAssignmentMetadata {
            key: key.clone(),
            value: Some(StreamsGroupTargetAssignmentMetadataValue {
                assignment_epoch: 3,
                assignment_timestamp: 12,
            }),
        });
        round_trip(Record::StreamsGroupTargetAssignmentMember {
            key: member.clone(),
            value: Some(StreamsGroupTargetAssignmentMemberValue {
                active_tasks: vec![TaskIds {
                    subtopology_id: "0".into(),
                    partitions: vec![2],
                    assignment_epochs: None,
                }],
                standby_tasks: vec![],
                warmup_tasks: vec![],
            }),
        });
        round_trip(Record::StreamsGroupCurrentMemberAssignment {
            key: member.clone(),
            value: Some(StreamsGroupCurrentMemberAssignmentValue {
                member_epoch: 3,
                previous_member_epoch: 2,
                state: 1,
                active_tasks: tasks.clone(),
                standby_tasks: vec![],
                warmup_tasks: vec![],
                active_tasks_pending_revocation: vec![],
                standby_tasks_pending_revocation: vec![],
                warmup_tasks_pending_revocation: vec![],
            }),
        });
        round_trip(Record::StreamsGroupTopology {
            key: key.clone(),
            value: Some(StreamsGroupTopologyValue {
                epoch: 0,
                subtopologies: vec![Subtopology {
                    subtopology_id: "0".into(),
                    source_topics: vec!["in".into()],
                    source_topic_regex: vec![],
                    state_changelog_topics: vec![TopicInfo {
                        name: "app-store-changelog".into(),
                        partitions: 0,
                        replication_factor: -1,
                        topic_configs: vec![KeyValue {
                            key: "cleanup.policy".into(),
                            value: "compact".into(),
                        }],
                    }],
                    repartition_sink_topics: vec![],
                    repartition_source_topics: vec![],
                    copartition_groups: vec![CopartitionGroup {
                        source_topics: vec![0],
                        source_topic_regex: vec![],
                        repartition_source_topics: vec![],
                    }],
                }],
            }),
        });
        round_trip(Record::StreamsGroupTopology { key, value: None });
        round_trip(Record::StreamsGroupCurrentMemberAssignment {
            key: member,
            value: None,
        });
    }

    #[test]
    fn consumer_records_round_trip_with_kafkas_layout() {
        let gkey = || ConsumerGroupKey {
            group_id: "g".into(),
        };
        let mkey = || ConsumerMemberKey {
            group_id: "g".into(),
            member_id: "m".into(),
        };
        let topic = uuid::Uuid::from_u64_pair(1, 2);
        // ConsumerGroupMetadata v0: epoch 5, tag 0 = the hash (omitted when 0).
        let bytes = round_trip(Record::ConsumerGroupMetadata {
            key: gkey(),
            value: Some(ConsumerGroupMetadataValue {
                epoch: 5,
                metadata_hash: 7,
            }),
        });
        assert_eq!(bytes.key, vec![0, 3, 0, 1, b'g']);
        assert_eq!(
            bytes.value.unwrap(),
            vec![0, 0, 0, 0, 0, 5, 1, 0, 8, 0, 0, 0, 0, 0, 0, 0, 7]
        );
        let bytes = round_trip(Record::ConsumerGroupMetadata {
            key: gkey(),
            value: Some(ConsumerGroupMetadataValue {
                epoch: 5,
                metadata_hash: 0,
            }),
        });
        assert_eq!(bytes.value.unwrap(), vec![0, 0, 0, 0, 0, 5, 0]);
        round_trip(Record::ConsumerGroupMemberMetadata {
            key: mkey(),
            value: Some(ConsumerGroupMemberMetadataValue {
                instance_id: Some("i".into()),
                rack_id: None,
                client_id: "c".into(),
                client_host: "/h".into(),
                subscribed_topic_names: vec!["bar".into(), "foo".into()],
                subscribed_topic_regex: Some(String::new()),
                rebalance_timeout_ms: 5000,
                server_assignor: Some("range".into()),
                classic_member_metadata: Some(ClassicMemberMetadata {
                    session_timeout_ms: 10,
                    supported_protocols: vec![ClassicProtocol {
                        name: "range".into(),
                        metadata: vec![1, 2, 3],
                    }],
                }),
            }),
        });
        round_trip(Record::ConsumerGroupTargetAssignmentMember {
            key: mkey(),
            value: Some(ConsumerGroupTargetAssignmentMemberValue {
                topic_partitions: vec![TargetTopicPartitions {
                    topic_id: topic,
                    partitions: vec![0, 2],
                }],
            }),
        });
        round_trip(Record::ConsumerGroupCurrentMemberAssignment {
            key: mkey(),
            value: Some(ConsumerGroupCurrentMemberAssignmentValue {
                member_epoch: 3,
                previous_member_epoch: 2,
                state: 1,
                assigned_partitions: vec![CurrentTopicPartitions {
                    topic_id: topic,
                    partitions: vec![0],
                    assignment_epochs: Some(vec![2]),
                }],
                partitions_pending_revocation: vec![CurrentTopicPartitions {
                    topic_id: topic,
                    partitions: vec![1],
                    assignment_epochs: None,
                }],
            }),
        });
        round_trip(Record::ConsumerGroupTargetAssignmentMetadata {
            key: gkey(),
            value: Some(ConsumerGroupTargetAssignmentMetadataValue {
                assignment_epoch: 3,
                assignment_timestamp: 1000,
            }),
        });
        round_trip(Record::ConsumerGroupPartitionMetadata {
            key: gkey(),
            value: Some(ConsumerGroupPartitionMetadataValue {
                topics: vec![TopicMetadata {
                    topic_id: topic,
                    topic_name: "foo".into(),
                    num_partitions: 1,
                    partition_metadata: vec![PartitionMetadata {
                        partition: 0,
                        racks: vec!["r".into()],
                    }],
                }],
            }),
        });
        round_trip(Record::ConsumerGroupRegularExpression {
            key: ConsumerRegexKey {
                group_id: "g".into(),
                regular_expression: "foo.*".into(),
            },
            value: Some(ConsumerGroupRegularExpressionValue {
                topics: vec!["foo".into()],
                version: 12,
                timestamp: 1000,
            }),
        });
        for record in [
            Record::ConsumerGroupMetadata {
                key: gkey(),
                value: None,
            },
            Record::ConsumerGroupCurrentMemberAssignment {
                key: mkey(),
                value: None,
            },
        ] {
            round_trip(record);
        }
    }

    #[test]
    fn unknown_types_are_reported_and_garbage_is_an_error() {
        // Share group metadata (type 11) is not modelled (consumer groups, types 3-8 and 16, are).
        let key = [0u8, 11, 0, 1, b'g'];
        assert_eq!(
            deserialize(&key, None).unwrap(),
            DecodeOutcome::UnknownType(11)
        );
        let truncated = [0u8, 1, 0, 5, b'g'];
        assert!(deserialize(&truncated, None).is_err());
        let mut key = Writer::new();
        key.i16(17);
        key.string("g");
        assert!(deserialize(&key.buf, Some(&[0, 1, 0, 0])).is_err());
        // Trailing bytes after the key are rejected.
        key.i8(0);
        assert!(deserialize(&key.buf, None).is_err());
    }

    /// Bytes printed by Kafka 4.4.0's own `GroupCoordinatorRecordSerde` (jshell with the released
    /// kafka-group-coordinator, kafka-coordinator-common, kafka-server-common and kafka-clients
    /// jars) for the same records.
    #[test]
    fn bytes_match_kafka_4_4_record_serde() {
        let cases: Vec<(Record, &str, &str)> = vec![
            (
                Record::OffsetCommit {
                    key: offset_key(),
                    value: Some(OffsetCommitValue {
                        offset: 42,
                        leader_epoch: -1,
                        metadata: "m".into(),
                        commit_timestamp: 1000,
                        expire_timestamp: None,
                        topic_id: Uuid::from_u64_pair(1, 2),
                    }),
                },
                "00010002673100017400000003",
                "0004000000000000002affffffff026d00000000000003e801001000000000000000010000000000000002",
            ),
            (
                Record::StreamsGroupMemberMetadata {
                    key: StreamsMemberKey {
                        group_id: "app".into(),
                        member_id: "m".into(),
                    },
                    value: Some(StreamsGroupMemberMetadataValue {
                        instance_id: None,
                        rack_id: Some("r".into()),
                        client_id: "c".into(),
                        client_host: "/h".into(),
                        rebalance_timeout_ms: 1000,
                        topology_epoch: 0,
                        process_id: "p".into(),
                        user_endpoint: Some(Endpoint {
                            host: "h".into(),
                            port: 65535,
                        }),
                        client_tags: vec![KeyValue {
                            key: "k".into(),
                            value: "v".into(),
                        }],
                    }),
                },
                "0013000361707000016d",
                "00000002720263032f68000003e8000000000270010268ffff0002026b02760000",
            ),
            (
                Record::StreamsGroupCurrentMemberAssignment {
                    key: StreamsMemberKey {
                        group_id: "app".into(),
                        member_id: "m".into(),
                    },
                    value: Some(StreamsGroupCurrentMemberAssignmentValue {
                        member_epoch: 3,
                        previous_member_epoch: 2,
                        state: 1,
                        active_tasks: vec![TaskIds {
                            subtopology_id: "0".into(),
                            partitions: vec![0, 1],
                            assignment_epochs: Some(vec![3, 4]),
                        }],
                        standby_tasks: vec![],
                        warmup_tasks: vec![],
                        active_tasks_pending_revocation: vec![],
                        standby_tasks_pending_revocation: vec![],
                        warmup_tasks_pending_revocation: vec![],
                    }),
                },
                "0016000361707000016d",
                "0000000000030000000201020230030000000000000001010009030000000300000004010101010100",
            ),
            (
                Record::StreamsGroupMetadata {
                    key: StreamsGroupKey {
                        group_id: "app".into(),
                    },
                    value: Some(StreamsGroupMetadataValue {
                        epoch: 3,
                        metadata_hash: -5,
                        validated_topology_epoch: 0,
                        last_assignment_configs: Some(vec![KeyValue {
                            key: "num.standby.replicas".into(),
                            value: "0".into(),
                        }]),
                        stored_description_topology_epoch: -1,
                        failed_description_topology_epoch: 2,
                    }),
                },
                "00110003617070",
                "000000000003fffffffffffffffb03000400000000011902156e756d2e7374616e6462792e7265706c69636173023000030400000002",
            ),
            (
                one_member_group_metadata(),
                "0002000167",
                "00030008636f6e73756d657200000002000572616e6765ffff000000000000004d0000000100036d2d31000169000163000a2f3132372e302e302e31000493e00000afc800000002010200000000",
            ),
        ];
        for (record, key, value) in cases {
            let bytes = round_trip(record.clone());
            assert_eq!(hex(&bytes.key), key, "{}", record.type_name());
            assert_eq!(
                hex(bytes.value.as_ref().unwrap()),
                value,
                "{}",
                record.type_name()
            );
        }
    }

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }
}

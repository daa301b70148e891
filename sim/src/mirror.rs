//! The committed history of every `__consumer_offsets` partition, read from the brokers' logs.
//!
//! A record is committed once some replica's high watermark passed it. The mirror keeps the bytes
//! of the committed prefix of each partition and, whenever it is caught up, compares every
//! replica's own committed prefix (up to that replica's high watermark) with it: a committed
//! record that a replica later holds differently, or a replica whose committed prefix disagrees
//! with another's, means an acknowledged write was lost or rewritten (offsets-durable). Records
//! newly committed are decoded and handed to the caller in offset order.
//!
//! The storages live outside the turmoil host factories, so a crashed broker's log stays
//! readable, as its disk would.

use std::collections::BTreeMap;

use coordinator::Record;
use coordinator::broker::BrokerStorage;
use coordinator::broker::log::PartitionLog;
use coordinator::records::codec::{self, DecodeOutcome, RecordBytes};

/// `__consumer_offsets`.
pub const OFFSETS_TOPIC: &str = "__consumer_offsets";

/// A record that became committed.
#[derive(Debug, Clone)]
pub struct CommittedRecord {
    pub partition: i32,
    pub offset: i64,
    /// Base offset of the record's batch (one coordinator write).
    pub batch: i64,
    /// The batch's append time on the leader (epoch milliseconds).
    pub timestamp_ms: i64,
    pub record: Record,
}

#[derive(Debug, Default)]
struct PartitionMirror {
    /// The committed prefix.
    bytes: Vec<RecordBytes>,
    /// How far each broker's copy has been compared with the committed prefix.
    checked: BTreeMap<i32, i64>,
}

/// The committed prefixes of all offsets partitions.
#[derive(Debug, Default)]
pub struct LogMirror {
    partitions: BTreeMap<i32, PartitionMirror>,
}

/// Two copies of a committed record disagree, or a committed record cannot be decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurabilityError(pub String);

impl LogMirror {
    pub fn new() -> Self {
        Self::default()
    }

    /// The committed length of `partition` as far as the mirror knows.
    pub fn committed_len(&self, partition: i32) -> i64 {
        self.partitions
            .get(&partition)
            .map_or(0, |p| p.bytes.len() as i64)
    }

    /// Reads every broker's offsets logs: checks each replica's committed prefix against the
    /// committed history and appends newly committed records to `out`.
    pub fn catch_up(
        &mut self,
        storages: &[(i32, BrokerStorage)],
        out: &mut Vec<CommittedRecord>,
    ) -> Result<(), DurabilityError> {
        for (broker, storage) in storages {
            storage.try_for_each_log_of(OFFSETS_TOPIC, |partition, log| {
                let mirror = self.partitions.entry(partition).or_default();
                catch_up_replica(*broker, partition, log, mirror, out)
            })?;
        }
        Ok(())
    }
}

fn catch_up_replica(
    broker: i32,
    partition: i32,
    log: &PartitionLog,
    mirror: &mut PartitionMirror,
    out: &mut Vec<CommittedRecord>,
) -> Result<(), DurabilityError> {
    let hw = log.high_watermark();
    let checked = mirror.checked.entry(broker).or_insert(0);
    // A replica's high watermark only moves back when it truncated: compare again from there.
    if hw < *checked {
        *checked = hw;
    }
    if hw == *checked {
        return Ok(());
    }
    let from = *checked;
    let batches = log.batches();
    let mut i = batches.partition_point(|b| b.end_offset() <= from);
    while i < batches.len() && batches[i].base_offset < hw {
        let b = &batches[i];
        for (j, r) in b.records.iter().enumerate() {
            let offset = b.base_offset + j as i64;
            if offset < from || offset >= hw {
                continue;
            }
            let idx = offset as usize;
            if idx < mirror.bytes.len() {
                if mirror.bytes[idx] != *r {
                    return Err(DurabilityError(format!(
                        "committed record {offset} of {OFFSETS_TOPIC}-{partition} differs on \
                         broker {broker} (high watermark {hw}) from the committed history"
                    )));
                }
            } else if idx == mirror.bytes.len() {
                mirror.bytes.push(r.clone());
                match codec::deserialize(&r.key, r.value.as_deref()) {
                    Ok(DecodeOutcome::Record(record)) => out.push(CommittedRecord {
                        partition,
                        offset,
                        batch: b.base_offset,
                        timestamp_ms: b.timestamp_ms,
                        record: record.with_producer(b.producer),
                    }),
                    Ok(DecodeOutcome::UnknownType(_)) => {}
                    Err(e) => {
                        return Err(DurabilityError(format!(
                            "committed record {offset} of {OFFSETS_TOPIC}-{partition} on broker \
                             {broker} does not decode: {e}"
                        )));
                    }
                }
            } else {
                // The replica's log has a gap relative to the mirror: impossible for a log.
                return Err(DurabilityError(format!(
                    "broker {broker} holds committed offset {offset} of {OFFSETS_TOPIC}-{partition} \
                     beyond the known prefix {}",
                    mirror.bytes.len()
                )));
            }
        }
        i += 1;
    }
    let reached = batches.last().map_or(0, |b| b.end_offset()).min(hw);
    *mirror.checked.entry(broker).or_insert(0) = reached;
    Ok(())
}

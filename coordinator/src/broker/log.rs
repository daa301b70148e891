//! A replica's copy of one partition: batches of records with offsets and leader epochs, the
//! leader-epoch cache (Kafka's `LeaderEpochFileCache`), the high watermark, truncation, and the v2
//! record-batch bytes replication sends.
//!
//! Only `__consumer_offsets` partitions have logs in regroup; other topics exist in metadata but
//! hold no data (their Fetch answers are empty).

use bytes::{Bytes, BytesMut};
use kafka_protocol::records::{
    Compression, Record as WireRecord, RecordBatchDecoder, RecordBatchEncoder, RecordEncodeOptions,
    TimestampType,
};

use crate::records::codec::RecordBytes;

/// One batch: what one coordinator write (or one timer) appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub base_offset: i64,
    pub leader_epoch: i32,
    /// (producer id, producer epoch) of a transactional batch.
    pub producer: Option<(i64, i16)>,
    pub timestamp_ms: i64,
    pub records: Vec<RecordBytes>,
}

impl Batch {
    /// The offset after the batch.
    pub fn end_offset(&self) -> i64 {
        self.base_offset + self.records.len() as i64
    }
}

/// Why replicated bytes could not be appended.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogError {
    #[error("record batch: {0}")]
    Decode(String),
    #[error("batch at offset {got} does not follow the log end offset {expected}")]
    NonContiguous { expected: i64, got: i64 },
}

/// One partition's log.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PartitionLog {
    batches: Vec<Batch>,
    /// (leader epoch, start offset), ascending in both.
    epochs: Vec<(i32, i64)>,
    high_watermark: i64,
}

impl PartitionLog {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn log_end_offset(&self) -> i64 {
        self.batches.last().map(Batch::end_offset).unwrap_or(0)
    }

    pub fn high_watermark(&self) -> i64 {
        self.high_watermark
    }

    /// Sets the high watermark (never past the log end).
    pub fn set_high_watermark(&mut self, hwm: i64) {
        self.high_watermark = hwm.min(self.log_end_offset()).max(0);
    }

    pub fn batches(&self) -> &[Batch] {
        &self.batches
    }

    /// Number of records in the log.
    pub fn record_count(&self) -> usize {
        self.batches.iter().map(|b| b.records.len()).sum()
    }

    /// The latest leader epoch in the cache, -1 if none.
    pub fn latest_epoch(&self) -> i32 {
        self.epochs.last().map(|(e, _)| *e).unwrap_or(-1)
    }

    /// The epoch of the last batch (what a follower sends as `LastFetchedEpoch`), -1 if none.
    pub fn last_batch_epoch(&self) -> i32 {
        self.batches.last().map(|b| b.leader_epoch).unwrap_or(-1)
    }

    /// Records that `epoch` starts at the current log end (Kafka's `assignEpochStartOffset` when
    /// a replica becomes leader, or when a follower appends a batch of a newer epoch).
    pub fn assign_epoch_start(&mut self, epoch: i32) {
        let start = self.log_end_offset();
        if epoch > self.latest_epoch() {
            self.epochs.push((epoch, start));
        }
    }

    /// `LeaderEpochFileCache.endOffsetFor`: for the latest epoch, (epoch, log end); for an older
    /// one, the largest cached epoch <= it and the start of the next cached epoch; for an epoch
    /// older than every cached one, (epoch, start of the first cached epoch); (-1, -1) when the
    /// epoch is -1 or newer than the cache.
    pub fn end_offset_for_epoch(&self, epoch: i32) -> (i32, i64) {
        if epoch == -1 {
            return (-1, -1);
        }
        if self.epochs.last().is_some_and(|(e, _)| *e == epoch) {
            return (epoch, self.log_end_offset());
        }
        let Some((_, higher_start)) = self.epochs.iter().find(|(e, _)| *e > epoch) else {
            return (-1, -1);
        };
        match self.epochs.iter().rev().find(|(e, _)| *e <= epoch) {
            Some((floor, _)) => (*floor, *higher_start),
            None => (epoch, *higher_start),
        }
    }

    /// Appends a leader's batch.
    pub fn append(&mut self, mut batch: Batch) -> i64 {
        batch.base_offset = self.log_end_offset();
        self.assign_epoch_start(batch.leader_epoch);
        self.batches.push(batch);
        self.log_end_offset()
    }

    /// Removes everything at or after `offset` (a follower diverged from its new leader).
    pub fn truncate_to(&mut self, offset: i64) {
        let offset = offset.max(0);
        while let Some(last) = self.batches.last() {
            if last.base_offset >= offset {
                self.batches.pop();
            } else if last.end_offset() > offset {
                // Batches are replicated whole; cut the partial one at the offset.
                let keep = (offset - last.base_offset) as usize;
                if let Some(b) = self.batches.last_mut() {
                    b.records.truncate(keep);
                }
                break;
            } else {
                break;
            }
        }
        self.epochs.retain(|(_, start)| *start < offset);
        self.high_watermark = self.high_watermark.min(self.log_end_offset());
    }

    /// Encodes whole batches from `offset` on, at least one and then up to `max_bytes`.
    pub fn read(&self, offset: i64, max_bytes: usize) -> Bytes {
        let mut buf = BytesMut::new();
        for batch in self.batches.iter().filter(|b| b.end_offset() > offset) {
            if !buf.is_empty() && buf.len() >= max_bytes {
                break;
            }
            encode_batch(batch, &mut buf);
        }
        buf.freeze()
    }

    /// Appends replicated batches (a follower's fetch response).
    pub fn append_replicated(&mut self, data: Bytes) -> Result<usize, LogError> {
        let batches = decode_batches(data)?;
        let mut appended = 0;
        for batch in batches {
            let leo = self.log_end_offset();
            if batch.end_offset() <= leo {
                continue;
            }
            if batch.base_offset != leo {
                return Err(LogError::NonContiguous {
                    expected: leo,
                    got: batch.base_offset,
                });
            }
            appended += batch.records.len();
            self.assign_epoch_start(batch.leader_epoch);
            self.batches.push(batch);
        }
        Ok(appended)
    }
}

fn encode_batch(batch: &Batch, buf: &mut BytesMut) {
    let (producer_id, producer_epoch) = batch.producer.unwrap_or((-1, -1));
    let records: Vec<WireRecord> = batch
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| WireRecord {
            transactional: batch.producer.is_some(),
            control: false,
            delete_horizon: false,
            partition_leader_epoch: batch.leader_epoch,
            producer_id,
            producer_epoch,
            timestamp_type: TimestampType::Creation,
            offset: batch.base_offset + i as i64,
            // The encoder starts a new batch when offset - sequence changes; counting up from -1
            // keeps one batch whose base sequence is -1 (no sequence), as Kafka writes it.
            sequence: -1 + i as i32,
            timestamp: batch.timestamp_ms,
            key: Some(Bytes::from(r.key.clone())),
            value: r.value.clone().map(Bytes::from),
            headers: Default::default(),
        })
        .collect();
    let options = RecordEncodeOptions {
        version: 2,
        compression: Compression::None,
    };
    // Encoding plain records into memory cannot fail.
    let _ = RecordBatchEncoder::encode(buf, records.iter(), &options);
}

/// Size of a v2 batch header; the record count is its last field.
const BATCH_HEADER_LEN: usize = 61;

fn decode_batches(mut data: Bytes) -> Result<Vec<Batch>, LogError> {
    // Guard the decoder's allocation: each record takes at least 7 bytes, so a record count
    // larger than the batch could hold is corrupt.
    let mut pos = 0usize;
    while pos + BATCH_HEADER_LEN <= data.len() {
        let len =
            i32::from_be_bytes([data[pos + 8], data[pos + 9], data[pos + 10], data[pos + 11]]);
        let count = i32::from_be_bytes([
            data[pos + 57],
            data[pos + 58],
            data[pos + 59],
            data[pos + 60],
        ]);
        if len < 49 || count < 0 || count as i64 * 7 > len as i64 {
            return Err(LogError::Decode(format!(
                "batch at byte {pos} declares {count} records in {len} bytes"
            )));
        }
        pos += 12 + len as usize;
    }
    if pos != data.len() {
        return Err(LogError::Decode("truncated record batch".into()));
    }
    let sets =
        RecordBatchDecoder::decode_all(&mut data).map_err(|e| LogError::Decode(e.to_string()))?;
    let mut out = Vec::new();
    for set in sets {
        let Some(first) = set.records.first() else {
            continue;
        };
        out.push(Batch {
            base_offset: first.offset,
            leader_epoch: first.partition_leader_epoch,
            producer: first
                .transactional
                .then_some((first.producer_id, first.producer_epoch)),
            timestamp_ms: first.timestamp,
            records: set
                .records
                .iter()
                .map(|r| RecordBytes {
                    key: r.key.as_ref().map(|k| k.to_vec()).unwrap_or_default(),
                    value: r.value.as_ref().map(|v| v.to_vec()),
                })
                .collect(),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn batch(epoch: i32, n: usize) -> Batch {
        Batch {
            base_offset: 0,
            leader_epoch: epoch,
            producer: None,
            timestamp_ms: 7,
            records: (0..n)
                .map(|i| RecordBytes {
                    key: vec![0, 1, i as u8],
                    value: (i % 2 == 0).then(|| vec![9; i]),
                })
                .collect(),
        }
    }

    #[test]
    fn replicated_bytes_rebuild_the_same_log() {
        let mut leader = PartitionLog::new();
        leader.assign_epoch_start(0);
        assert_eq!(leader.append(batch(0, 3)), 3);
        assert_eq!(leader.append(batch(0, 1)), 4);
        leader.assign_epoch_start(2);
        let mut txn = batch(2, 2);
        txn.producer = Some((55, 3));
        assert_eq!(leader.append(txn), 6);
        let mut follower = PartitionLog::new();
        assert_eq!(
            follower.append_replicated(leader.read(0, 1 << 20)).unwrap(),
            6
        );
        assert_eq!(follower.batches(), leader.batches());
        // A read from the middle returns the batches that contain later offsets.
        let mut partial = PartitionLog::new();
        partial.append_replicated(leader.read(0, 1)).unwrap();
        assert_eq!(
            partial.log_end_offset(),
            3,
            "max bytes still returns one batch"
        );
        partial.append_replicated(leader.read(3, 1 << 20)).unwrap();
        assert_eq!(partial.batches(), leader.batches());
    }

    #[test]
    fn epoch_cache_answers_divergence_queries_and_truncation_cuts_it() {
        let mut log = PartitionLog::new();
        log.assign_epoch_start(1);
        log.append(batch(1, 2));
        log.assign_epoch_start(3);
        log.append(batch(3, 2));
        assert_eq!(log.end_offset_for_epoch(1), (1, 2));
        assert_eq!(log.end_offset_for_epoch(2), (1, 2));
        assert_eq!(log.end_offset_for_epoch(3), (3, 4));
        assert_eq!(log.end_offset_for_epoch(0), (0, 0), "older than the cache");
        assert_eq!(
            log.end_offset_for_epoch(4),
            (-1, -1),
            "newer than the cache"
        );
        assert_eq!(log.end_offset_for_epoch(-1), (-1, -1));
        log.set_high_watermark(10);
        assert_eq!(log.high_watermark(), 4);
        log.truncate_to(3);
        assert_eq!(log.log_end_offset(), 3);
        assert_eq!(log.high_watermark(), 3);
        assert_eq!(log.end_offset_for_epoch(3), (3, 3));
        log.truncate_to(2);
        assert_eq!(log.latest_epoch(), 1);
    }

    #[test]
    fn corrupt_batches_are_errors() {
        let mut log = PartitionLog::new();
        let mut leader = PartitionLog::new();
        leader.append(batch(0, 2));
        let good = leader.read(0, 100);
        let mut bad = good.to_vec();
        // Record count far beyond what the batch can hold.
        bad[57..61].copy_from_slice(&i32::MAX.to_be_bytes());
        assert!(log.append_replicated(Bytes::from(bad)).is_err());
        assert!(log.append_replicated(good.slice(..good.len() - 3)).is_err());
        assert_eq!(log.log_end_offset(), 0);
        // A batch that skips offsets is refused.
        let mut gap = PartitionLog::new();
        gap.append(batch(0, 1));
        gap.append(batch(0, 1));
        assert!(matches!(
            log.append_replicated(gap.read(1, 100)),
            Err(LogError::NonContiguous {
                expected: 0,
                got: 1
            })
        ));
    }
}

//! What a classic handler works with besides the group: config, the shard's timers, the current time, the
//! outcome it fills, and the write path (with the test hook that makes the next write fail).

use std::collections::VecDeque;

use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;

use super::config::ClassicConfig;
use crate::outcome::{Outcome, TimerTask};
use crate::records::Record;
use crate::timer::Timers;

pub use crate::outcome::ClassicTimer;

/// Kafka's `classicGroupHeartbeatKey`.
pub fn heartbeat_key(group_id: &str, member_id: &str) -> String {
    format!("heartbeat-{group_id}-{member_id}")
}

/// Kafka's `classicGroupJoinKey`.
pub fn join_key(group_id: &str) -> String {
    format!("join-{group_id}")
}

/// Kafka's `classicGroupSyncKey`.
pub fn sync_key(group_id: &str) -> String {
    format!("sync-{group_id}")
}

/// Kafka's `appendGroupMetadataErrorToResponseError`: how a failed GroupMetadata write is reported.
pub fn append_error_to_response_error(error: ErrorCode) -> ErrorCode {
    use ErrorCode::*;
    match error {
        UnknownTopicOrPartition | NotEnoughReplicas | RequestTimedOut => CoordinatorNotAvailable,
        NotLeaderOrFollower | KafkaStorageError => NotCoordinator,
        MessageTooLarge | RecordListTooLarge | InvalidFetchSize => UnknownServerError,
        other => other,
    }
}

/// The handler's environment.
pub(crate) struct Ctx<'a> {
    pub config: &'a ClassicConfig,
    /// The Kafka bugs switched on (the shard's `kafka_bugs`; none for Kafka 4.4.0).
    pub bugs: &'a KafkaBugs,
    pub timers: &'a mut Timers<TimerTask>,
    pub now: i64,
    pub out: &'a mut Outcome,
    /// Errors the next writes fail with (a test hook; empty in normal operation).
    pub failures: &'a mut VecDeque<ErrorCode>,
}

impl Ctx<'_> {
    /// Schedules `task` under `key`, `delay_ms` from now, replacing a timer with the same key.
    pub fn schedule(&mut self, key: String, delay_ms: i64, task: ClassicTimer) {
        self.timers.schedule(
            key,
            self.now.saturating_add(delay_ms),
            TimerTask::Classic(task),
        );
    }

    pub fn cancel(&mut self, key: &str) {
        self.timers.cancel(key);
    }

    /// Appends records whose outcome the handler acts on (Kafka's write with an append future): `Err`
    /// with the append error when the write fails, in which case the records are dropped.
    pub fn append(&mut self, records: Vec<Record>) -> Result<(), ErrorCode> {
        if let Some(error) = self.failures.pop_front() {
            return Err(error);
        }
        self.out.records.extend(records);
        Ok(())
    }
}

//! The coordinator runtime (Kafka's `CoordinatorRuntime` for the group coordinator), sans IO: one
//! context per `__consumer_offsets` partition this broker leads, with Kafka 4.4's states and
//! leader-epoch guards, loading by replaying the partition's log, and the write path that answers a
//! request only once its records are committed (the partition's high watermark passed them).
//!
//! [`CoordinatorRuntime`] takes events (an election, a resignation, a finished load, a request, the
//! append of a write, the high watermark moving, time passing) and returns [`Effect`]s (append a
//! batch, send a reply, fail a request, start a load, emit a cluster event, create a topic), in the
//! order they must happen. It reads no clock, log or socket: time, high watermarks and the log's
//! batches are arguments. The broker's shell (`runtime_shell.rs`) feeds it and carries out its
//! effects, so the rules below are unit-tested on their own, as Kafka's `CoordinatorRuntimeTest`
//! tests its runtime.
//!
//! * Election with a higher leader epoch: the context is created in INITIAL (requests get
//!   NOT_COORDINATOR), then LOADING (COORDINATOR_LOAD_IN_PROGRESS) while the log is replayed after
//!   `coordinator_load_delay_ms`, then ACTIVE. A failed load stays FAILED until a newer election.
//! * Resignation with a higher epoch (or without one): pending writes fail with NOT_COORDINATOR,
//!   the shard's parked requests get their `onUnloaded` answers, the context is removed.
//! * A write appends one batch to the local log; its replies wait until the high watermark
//!   reaches the batch end; after `offsets.commit.timeout.ms` they fail with REQUEST_TIMED_OUT,
//!   which clients see as COORDINATOR_NOT_AVAILABLE (NOT_COORDINATOR for OffsetFetch). A request
//!   that writes nothing waits for the writes before it (Kafka's `waitForPendingWrites`), except
//!   read operations, which answer at once.

use std::collections::BTreeMap;

use protocol::{ErrorCode, Request};

use super::errors::OperationError;
use super::log::Batch;
use crate::classic::member_id::MemberIdGenerator;
use crate::config::ShardConfig;
use crate::context::RequestContext;
use crate::controller::image::MetadataImage;
use crate::events::EventKind;
use crate::outcome::{Outcome, Reply, RequestToken, ShardError};
use crate::records::Record;
use crate::records::codec::{self, DecodeOutcome};
use crate::shard::Shard;
use crate::topics::{TopicMetadata, TopicsImage};

/// Kafka's `CoordinatorRuntime.CoordinatorState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ContextState {
    Initial,
    Loading,
    Active,
    Failed,
    Closed,
}

/// The replies of one write (or of a request that waits for the writes before it).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingWrite {
    replies: Vec<Reply>,
    deadline_ms: i64,
    records: usize,
}

/// What the runtime asks its shell to do, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Effect {
    /// Emit a cluster event.
    Emit(EventKind),
    /// Send a reply to the request waiting for it.
    Reply(Reply),
    /// Answer a waiting request with the error response of its api.
    Fail {
        token: RequestToken,
        error: OperationError,
    },
    /// Read partition `partition`'s log and hand its batches to
    /// [`CoordinatorRuntime::complete_load`] with this generation (after the configured delay).
    Load {
        partition: i32,
        epoch: i32,
        generation: u64,
    },
    /// Append `batch` to the partition's local log, then call
    /// [`CoordinatorRuntime::on_appended`] with the log's end offset and this write.
    Append {
        partition: i32,
        batch: Batch,
        write: PendingWrite,
    },
    /// Ask the controller to create an internal topic.
    CreateTopic {
        name: String,
        partitions: i32,
        replication_factor: i16,
    },
}

struct Context {
    state: ContextState,
    /// The leader epoch of the last election (-1 before any).
    epoch: i32,
    shard: Option<Shard>,
    /// Replies waiting for the high watermark to reach the key.
    pending: BTreeMap<i64, Vec<PendingWrite>>,
    /// The log end offset after this coordinator's last write (or after its load).
    last_written: i64,
    /// Distinguishes loads, so a stale load completion is ignored.
    generation: u64,
}

/// What a load reads: the partition's log, and what the new shard starts from (its configs, the
/// topics, the broker identity its member ids are drawn from).
pub struct LoadInputs<'a> {
    /// The broker loading (for its log lines).
    pub broker: i32,
    pub batches: &'a [Batch],
    pub log_end_offset: i64,
    pub config: &'a ShardConfig,
    pub topics: TopicsImage,
    pub incarnation_id: uuid::Uuid,
}

/// All coordinator contexts of a broker.
pub struct CoordinatorRuntime {
    /// Kafka's group coordinator service is started once the broker caught up with metadata;
    /// before that every group request gets COORDINATOR_NOT_AVAILABLE.
    pub(crate) started: bool,
    /// The `__consumer_offsets` partition count `partitionFor` uses (fixed at startup).
    pub(crate) num_partitions: i32,
    /// `offsets.commit.timeout.ms`: a write not committed by then fails.
    commit_timeout_ms: i64,
    contexts: BTreeMap<i32, Context>,
    next_generation: u64,
}

impl CoordinatorRuntime {
    pub fn new(num_partitions: i32, commit_timeout_ms: i64) -> Self {
        Self {
            started: false,
            num_partitions,
            commit_timeout_ms,
            contexts: BTreeMap::new(),
            next_generation: 0,
        }
    }

    pub fn context_state(&self, partition: i32) -> Option<(ContextState, i32)> {
        self.contexts.get(&partition).map(|c| (c.state, c.epoch))
    }

    pub fn active_partitions(&self) -> Vec<i32> {
        self.contexts
            .iter()
            .filter(|(_, c)| c.state == ContextState::Active)
            .map(|(p, _)| *p)
            .collect()
    }

    pub fn partitions(&self) -> Vec<i32> {
        self.contexts.keys().copied().collect()
    }

    /// Read access to an active shard (tests, the simulator's invariants, DescribeGroups fan-out).
    pub fn shard(&self, partition: i32) -> Option<&Shard> {
        self.contexts
            .get(&partition)
            .filter(|c| c.state == ContextState::Active)
            .and_then(|c| c.shard.as_ref())
    }

    /// Gives every loaded shard the current topics (Kafka's metadata image update). Returns, per
    /// partition, the offset tombstones of deleted topics the shard wrote (Kafka's `onTopicsDeleted`
    /// write on every coordinator), which the caller commits ([`Self::commit_outcome`]).
    pub(crate) fn set_topics(&mut self, topics: &TopicsImage) -> Vec<(i32, Outcome)> {
        let mut writes = Vec::new();
        for (p, c) in self.contexts.iter_mut() {
            if let Some(shard) = c.shard.as_mut() {
                let outcome = shard.set_topics(topics.clone());
                if !outcome.records.is_empty() {
                    writes.push((*p, outcome));
                }
            }
        }
        writes
    }

    /// `onElection`: this broker became leader of partition `p` with `epoch`.
    pub fn on_election(&mut self, broker: i32, p: i32, epoch: i32) -> Vec<Effect> {
        let generation = self.next_generation;
        let ctx = self.contexts.entry(p).or_insert_with(|| Context {
            state: ContextState::Initial,
            epoch: -1,
            shard: None,
            pending: BTreeMap::new(),
            last_written: 0,
            generation,
        });
        if ctx.epoch >= epoch {
            tracing::debug!(
                partition = p,
                epoch,
                current = ctx.epoch,
                "ignoring election with an old epoch"
            );
            return Vec::new();
        }
        ctx.epoch = epoch;
        match ctx.state {
            ContextState::Initial | ContextState::Failed => {
                self.next_generation += 1;
                ctx.generation = self.next_generation;
                ctx.state = ContextState::Loading;
                tracing::info!(broker, partition = p, epoch, "loading coordinator");
                vec![
                    Effect::Emit(EventKind::CoordinatorLoading {
                        partition: p,
                        epoch,
                    }),
                    Effect::Load {
                        partition: p,
                        epoch,
                        generation: ctx.generation,
                    },
                ]
            }
            ContextState::Loading | ContextState::Active | ContextState::Closed => {
                tracing::info!(partition = p, epoch, state = ?ctx.state, "coordinator already loading or active");
                Vec::new()
            }
        }
    }

    /// Whether a load of `p` started with `generation` is still wanted (the context is loading
    /// for that very election).
    pub fn wants_load(&self, p: i32, generation: u64) -> bool {
        self.contexts
            .get(&p)
            .is_some_and(|c| c.generation == generation && c.state == ContextState::Loading)
    }

    /// A load of `p` read the partition's log: replays `batches` into a fresh shard (Kafka's
    /// `CoordinatorLoaderImpl`) and activates it, or marks the context FAILED if a record does not
    /// decode. A load that is no longer wanted ([`Self::wants_load`]) does nothing.
    pub fn complete_load(
        &mut self,
        p: i32,
        generation: u64,
        inputs: LoadInputs<'_>,
        now_ms: i64,
    ) -> Vec<Effect> {
        let (broker, batches, log_end_offset) =
            (inputs.broker, inputs.batches, inputs.log_end_offset);
        if !self.wants_load(p, generation) {
            return Vec::new();
        }
        let Some(context) = self.contexts.get_mut(&p) else {
            return Vec::new();
        };
        let epoch = context.epoch;
        let mut shard = Shard::new(inputs.config.clone());
        // Classic member ids must never repeat those of an earlier load (Kafka's are random UUIDs).
        shard.classic.set_member_ids(MemberIdGenerator::for_load(
            inputs.incarnation_id,
            p,
            epoch,
            generation,
        ));
        shard.set_topics(inputs.topics);
        match replay_log(&mut shard, batches) {
            Ok(records) => {
                shard.on_loaded(now_ms);
                context.shard = Some(shard);
                context.state = ContextState::Active;
                context.last_written = log_end_offset;
                tracing::info!(broker, partition = p, epoch, records, "coordinator loaded");
                vec![Effect::Emit(EventKind::CoordinatorLoaded {
                    partition: p,
                    epoch,
                    records,
                })]
            }
            Err(error) => {
                context.state = ContextState::Failed;
                tracing::error!(broker, partition = p, epoch, error = %error, "coordinator load failed");
                vec![Effect::Emit(EventKind::CoordinatorLoadFailed {
                    partition: p,
                    epoch,
                    error,
                })]
            }
        }
    }

    /// `onResignation`: this broker is no longer leader of `p` (`epoch` = the new leader epoch, or
    /// `None` when the replica was removed). Pending writes fail with NOT_COORDINATOR, the shard's
    /// parked requests get their `onUnloaded` answers, the context goes.
    pub fn on_resignation(&mut self, broker: i32, p: i32, epoch: Option<i32>) -> Vec<Effect> {
        let Some(ctx) = self.contexts.get(&p) else {
            return Vec::new();
        };
        if let Some(e) = epoch
            && ctx.epoch >= e
        {
            return Vec::new();
        }
        let Some(mut ctx) = self.contexts.remove(&p) else {
            return Vec::new();
        };
        ctx.state = ContextState::Closed;
        let mut effects = Vec::new();
        for (end, writes) in std::mem::take(&mut ctx.pending) {
            for w in writes {
                if w.records > 0 {
                    effects.push(Effect::Emit(EventKind::WriteFailed {
                        partition: p,
                        end_offset: end,
                        error: ErrorCode::NotCoordinator.name().to_string(),
                    }));
                }
                for reply in w.replies {
                    effects.push(Effect::Fail {
                        token: reply.token,
                        error: OperationError::from_runtime(ErrorCode::NotCoordinator),
                    });
                }
            }
        }
        if let Some(mut shard) = ctx.shard.take() {
            effects.extend(shard.on_unloaded().into_iter().map(Effect::Reply));
        }
        tracing::info!(
            broker,
            partition = p,
            epoch = ctx.epoch,
            "unloaded coordinator"
        );
        effects.push(Effect::Emit(EventKind::CoordinatorUnloaded {
            partition: p,
            epoch: ctx.epoch,
        }));
        effects
    }

    /// Runs `request` on the shard of partition `p`, then commits its outcome
    /// ([`Self::commit_outcome`]); `Err` is the runtime's refusal (not started, not the coordinator,
    /// loading).
    #[allow(clippy::too_many_arguments)]
    pub fn submit(
        &mut self,
        p: i32,
        token: RequestToken,
        request: &Request,
        ctx: &RequestContext,
        read_only: bool,
        now_ms: i64,
        high_watermark: i64,
    ) -> Result<Vec<Effect>, OperationError> {
        if !self.started {
            return Err(OperationError::not_active());
        }
        let Some(context) = self.contexts.get_mut(&p) else {
            return Err(OperationError::from_runtime(ErrorCode::NotCoordinator));
        };
        match context.state {
            ContextState::Active => {}
            ContextState::Loading => {
                return Err(OperationError::from_runtime(
                    ErrorCode::CoordinatorLoadInProgress,
                ));
            }
            _ => return Err(OperationError::from_runtime(ErrorCode::NotCoordinator)),
        }
        let Some(shard) = context.shard.as_mut() else {
            return Err(OperationError::from_runtime(ErrorCode::NotCoordinator));
        };
        let outcome = match shard.handle(token, ctx, request, now_ms) {
            Ok(o) => o,
            Err(ShardError::NotACoordinatorApi(api)) => {
                tracing::error!(api = %api, "the shard does not handle this api");
                return Err(OperationError::from_runtime(ErrorCode::UnknownServerError));
            }
        };
        Ok(self.commit_outcome(p, outcome, read_only, now_ms, high_watermark))
    }

    /// An outcome's effects: the topics it asks for, then its records as one batch to append
    /// (its replies wait for the batch to commit), or, with no records, its replies at once (a read,
    /// or nothing of this coordinator's left uncommitted) or after the writes before them.
    pub fn commit_outcome(
        &mut self,
        p: i32,
        outcome: Outcome,
        read_only: bool,
        now_ms: i64,
        high_watermark: i64,
    ) -> Vec<Effect> {
        let mut effects: Vec<Effect> = outcome
            .topics_to_create
            .into_values()
            .map(|t| Effect::CreateTopic {
                name: t.name,
                partitions: t.partitions,
                replication_factor: t.replication_factor,
            })
            .collect();
        let deadline = now_ms + self.commit_timeout_ms;
        let Some(context) = self.contexts.get_mut(&p) else {
            return effects;
        };
        if !outcome.records.is_empty() {
            let batch = Batch {
                base_offset: 0,
                leader_epoch: context.epoch,
                producer: producer_of(&outcome.records),
                timestamp_ms: now_ms,
                records: outcome.records.iter().map(codec::serialize).collect(),
            };
            let records = batch.records.len();
            effects.push(Effect::Append {
                partition: p,
                batch,
                write: PendingWrite {
                    replies: outcome.replies,
                    deadline_ms: deadline,
                    records,
                },
            });
        } else if read_only || context.last_written <= high_watermark {
            effects.extend(outcome.replies.into_iter().map(Effect::Reply));
        } else {
            let key = context.last_written;
            context.pending.entry(key).or_default().push(PendingWrite {
                replies: outcome.replies,
                deadline_ms: deadline,
                records: 0,
            });
        }
        effects
    }

    /// The shell appended a write's batch and the log now ends at `end_offset`: the write's
    /// replies wait for the high watermark to reach it.
    pub fn on_appended(&mut self, p: i32, end_offset: i64, write: PendingWrite) {
        let Some(context) = self.contexts.get_mut(&p) else {
            return;
        };
        context.last_written = end_offset;
        tracing::debug!(
            partition = p,
            end_offset,
            records = write.records,
            "coordinator write appended"
        );
        context.pending.entry(end_offset).or_default().push(write);
    }

    /// The high watermark of `p` reached `hwm`: answers every write it covers.
    pub fn on_high_watermark(&mut self, p: i32, hwm: i64) -> Vec<Effect> {
        let Some(context) = self.contexts.get_mut(&p) else {
            return Vec::new();
        };
        let later = context.pending.split_off(&(hwm + 1));
        let done = std::mem::replace(&mut context.pending, later);
        let mut effects = Vec::new();
        for (end, writes) in done {
            for w in writes {
                if w.records > 0 {
                    effects.push(Effect::Emit(EventKind::WriteAcknowledged {
                        partition: p,
                        end_offset: end,
                        records: w.records,
                    }));
                }
                effects.extend(w.replies.into_iter().map(Effect::Reply));
            }
        }
        effects
    }

    /// The earliest deadline of a shard timer or a pending write, if any.
    pub fn next_deadline(&self) -> Option<i64> {
        let mut next: Option<i64> = None;
        for c in self.contexts.values() {
            let shard_next = c.shard.as_ref().and_then(|s| s.next_deadline());
            let write_next = c
                .pending
                .values()
                .flat_map(|ws| ws.iter().map(|w| w.deadline_ms))
                .min();
            for d in [shard_next, write_next].into_iter().flatten() {
                next = Some(next.map_or(d, |n: i64| n.min(d)));
            }
        }
        next
    }

    /// Fires partition `p`'s shard timers due at `now_ms`, in deadline order; the caller commits
    /// each outcome ([`Self::commit_outcome`]) before the next, as it would a request's.
    pub fn fire_timers(&mut self, p: i32, now_ms: i64) -> Vec<crate::outcome::Fired> {
        match self.contexts.get_mut(&p).and_then(|c| c.shard.as_mut()) {
            Some(shard) => shard.expire(now_ms),
            None => Vec::new(),
        }
    }

    /// Fails the writes past their deadline at `now_ms` with REQUEST_TIMED_OUT.
    pub fn expire_writes(&mut self, now_ms: i64) -> Vec<Effect> {
        let mut effects = Vec::new();
        let parts: Vec<i32> = self.contexts.keys().copied().collect();
        for p in parts {
            let mut expired = Vec::new();
            if let Some(c) = self.contexts.get_mut(&p) {
                for (end, writes) in c.pending.iter_mut() {
                    let (late, keep): (Vec<PendingWrite>, Vec<PendingWrite>) =
                        std::mem::take(writes)
                            .into_iter()
                            .partition(|w| w.deadline_ms <= now_ms);
                    *writes = keep;
                    expired.extend(late.into_iter().map(|w| (*end, w)));
                }
                c.pending.retain(|_, ws| !ws.is_empty());
            }
            for (end, w) in expired {
                if w.records > 0 {
                    effects.push(Effect::Emit(EventKind::WriteFailed {
                        partition: p,
                        end_offset: end,
                        error: ErrorCode::RequestTimedOut.name().to_string(),
                    }));
                }
                tracing::info!(
                    partition = p,
                    end_offset = end,
                    "coordinator write timed out"
                );
                effects.extend(w.replies.into_iter().map(|reply| Effect::Fail {
                    token: reply.token,
                    error: OperationError::from_runtime(ErrorCode::RequestTimedOut),
                }));
            }
        }
        effects
    }
}

/// The shard's view of the cluster's topics, from the metadata image.
pub(crate) fn topics_image(image: &MetadataImage) -> TopicsImage {
    TopicsImage::from_topics(image.topics.values().map(|t| {
        let racks: Vec<Vec<String>> = t
            .partitions
            .values()
            .map(|p| {
                let mut r: Vec<String> = p
                    .replicas
                    .iter()
                    .filter_map(|b| image.broker(*b).and_then(|b| b.rack.clone()))
                    .collect();
                r.sort();
                r.dedup();
                r
            })
            .collect();
        let any_rack = racks.iter().any(|r| !r.is_empty());
        TopicMetadata {
            name: t.name.clone(),
            id: t.id,
            partitions: t.partitions.len() as i32,
            partition_racks: if any_rack { racks } else { Vec::new() },
        }
    }))
}

/// Decodes a partition's log into records. Transactional batches carry their producer.
fn replay_log(shard: &mut Shard, batches: &[Batch]) -> Result<usize, String> {
    let mut n = 0;
    for batch in batches {
        for (i, r) in batch.records.iter().enumerate() {
            match codec::deserialize(&r.key, r.value.as_deref()) {
                Ok(DecodeOutcome::Record(record)) => {
                    shard.replay(&record.with_producer(batch.producer));
                    n += 1;
                }
                Ok(DecodeOutcome::UnknownType(t)) => {
                    tracing::warn!(
                        offset = batch.base_offset + i as i64,
                        record_type = t,
                        "skipping a record of an unknown type while loading"
                    );
                }
                Err(e) => {
                    return Err(format!(
                        "record at offset {}: {e}",
                        batch.base_offset + i as i64
                    ));
                }
            }
        }
    }
    Ok(n)
}

/// The producer of a write whose records are transactional (written as a transactional batch,
/// as Kafka's runtime writes a TxnOffsetCommit), if any.
fn producer_of(records: &[Record]) -> Option<(i64, i16)> {
    records.iter().find_map(|r| match r {
        Record::TxnOffsetCommit {
            producer_id,
            producer_epoch,
            ..
        } => Some((*producer_id, *producer_epoch)),
        _ => None,
    })
}

/// The runtime on its own, event by event, as Kafka's `CoordinatorRuntimeTest` tests its runtime.
#[cfg(test)]
mod tests {
    use protocol::messages::offset_commit_request::{
        OffsetCommitRequestPartition, OffsetCommitRequestTopic,
    };
    use protocol::messages::offset_fetch_request::OffsetFetchRequestTopic;
    use protocol::messages::{
        GroupId, OffsetCommitRequest, OffsetFetchRequest, StrBytes, TopicName,
    };

    use super::*;
    use crate::records::codec::RecordBytes;
    use crate::topics::derived_topic_id;

    const P: i32 = 0;
    const TIMEOUT: i64 = 5_000;

    fn runtime() -> CoordinatorRuntime {
        let mut r = CoordinatorRuntime::new(1, TIMEOUT);
        r.started = true;
        r
    }

    fn inputs<'a>(config: &'a ShardConfig, batches: &'a [Batch]) -> LoadInputs<'a> {
        LoadInputs {
            broker: 1,
            batches,
            log_end_offset: batches.iter().map(Batch::end_offset).max().unwrap_or(0),
            config,
            topics: TopicsImage::from_topics([TopicMetadata {
                name: "t".into(),
                id: derived_topic_id("t"),
                partitions: 1,
                partition_racks: Vec::new(),
            }]),
            incarnation_id: uuid::Uuid::from_u64_pair(1, 2),
        }
    }

    /// Elects and loads partition `P` at `epoch` from an empty log.
    fn active(r: &mut CoordinatorRuntime, config: &ShardConfig, epoch: i32) -> u64 {
        let effects = r.on_election(1, P, epoch);
        let Some(Effect::Load { generation, .. }) = effects.get(1).cloned() else {
            panic!("{effects:?}")
        };
        r.complete_load(P, generation, inputs(config, &[]), 0);
        generation
    }

    fn commit(topic: &str) -> Request {
        OffsetCommitRequest::default()
            .with_group_id(GroupId(StrBytes::from_static_str("g")))
            .with_generation_id_or_member_epoch(-1)
            .with_topics(vec![
                OffsetCommitRequestTopic::default()
                    .with_name(TopicName(StrBytes::from_string(topic.to_string())))
                    .with_partitions(vec![
                        OffsetCommitRequestPartition::default()
                            .with_partition_index(0)
                            .with_committed_offset(7),
                    ]),
            ])
            .into()
    }

    fn fetch() -> Request {
        OffsetFetchRequest::default()
            .with_group_id(GroupId(StrBytes::from_static_str("g")))
            .with_topics(Some(vec![
                OffsetFetchRequestTopic::default()
                    .with_name(TopicName(StrBytes::from_static_str("t")))
                    .with_partition_indexes(vec![0]),
            ]))
            .into()
    }

    fn ctx(version: i16) -> RequestContext {
        RequestContext::new("c", "/127.0.0.1", version)
    }

    fn submit(
        r: &mut CoordinatorRuntime,
        token: u64,
        request: &Request,
        read_only: bool,
        now: i64,
        hwm: i64,
    ) -> Result<Vec<Effect>, OperationError> {
        let version = if matches!(request, Request::OffsetFetch(_)) {
            7
        } else {
            8
        };
        r.submit(
            P,
            RequestToken(token),
            request,
            &ctx(version),
            read_only,
            now,
            hwm,
        )
    }

    /// Appends the write of an `Append` effect at `end`, as the shell does.
    fn append(r: &mut CoordinatorRuntime, effects: Vec<Effect>, end: i64) -> usize {
        let mut records = 0;
        for e in effects {
            if let Effect::Append { batch, write, .. } = e {
                records = batch.records.len();
                r.on_appended(P, end, write);
            }
        }
        records
    }

    fn replied(effects: &[Effect]) -> Vec<u64> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Reply(r) => Some(r.token.0),
                _ => None,
            })
            .collect()
    }

    fn failed(effects: &[Effect]) -> Vec<(u64, ErrorCode)> {
        effects
            .iter()
            .filter_map(|e| match e {
                Effect::Fail { token, error } => Some((token.0, error.code)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_partition_loads_on_election_and_serves_only_when_active() {
        let config = ShardConfig::default();
        let mut r = CoordinatorRuntime::new(1, TIMEOUT);
        // The service is not started: COORDINATOR_NOT_AVAILABLE from the service itself.
        let e = submit(&mut r, 1, &fetch(), true, 0, 0).unwrap_err();
        assert_eq!(
            (e.code, e.not_active),
            (ErrorCode::CoordinatorNotAvailable, true)
        );
        r.started = true;
        // Not elected: NOT_COORDINATOR.
        let e = submit(&mut r, 1, &fetch(), true, 0, 0).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotCoordinator);
        let effects = r.on_election(1, P, 3);
        assert_eq!(
            effects,
            vec![
                Effect::Emit(EventKind::CoordinatorLoading {
                    partition: P,
                    epoch: 3
                }),
                Effect::Load {
                    partition: P,
                    epoch: 3,
                    generation: 1
                },
            ]
        );
        assert_eq!(r.context_state(P), Some((ContextState::Loading, 3)));
        let e = submit(&mut r, 2, &fetch(), true, 0, 0).unwrap_err();
        assert_eq!(e.code, ErrorCode::CoordinatorLoadInProgress);
        // A load of another generation is ignored; this one activates the shard.
        assert!(r.complete_load(P, 7, inputs(&config, &[]), 0).is_empty());
        assert_eq!(
            r.complete_load(P, 1, inputs(&config, &[]), 0),
            vec![Effect::Emit(EventKind::CoordinatorLoaded {
                partition: P,
                epoch: 3,
                records: 0
            })]
        );
        assert_eq!(r.context_state(P), Some((ContextState::Active, 3)));
        assert_eq!(r.active_partitions(), vec![P]);
        assert_eq!(
            replied(&submit(&mut r, 3, &fetch(), true, 0, 0).unwrap()),
            vec![3]
        );
    }

    #[test]
    fn a_write_is_answered_only_once_the_high_watermark_passes_it() {
        let config = ShardConfig::default();
        let mut r = runtime();
        active(&mut r, &config, 1);
        let effects = submit(&mut r, 1, &commit("t"), false, 1_000, 0).unwrap();
        assert!(replied(&effects).is_empty(), "no answer before the commit");
        assert_eq!(append(&mut r, effects, 1), 1);
        // A read answers at once; a request that writes nothing waits for the write before it.
        assert_eq!(
            replied(&submit(&mut r, 2, &fetch(), true, 1_000, 0).unwrap()),
            vec![2]
        );
        let effects = submit(&mut r, 3, &commit("unknown"), false, 1_000, 0).unwrap();
        assert!(effects.is_empty(), "{effects:?}");
        assert!(r.on_high_watermark(P, 0).is_empty());
        let effects = r.on_high_watermark(P, 1);
        assert_eq!(
            effects[0],
            Effect::Emit(EventKind::WriteAcknowledged {
                partition: P,
                end_offset: 1,
                records: 1
            })
        );
        assert_eq!(replied(&effects), vec![1, 3]);
        // Nothing of this coordinator is uncommitted any more: a request without records answers
        // at once.
        assert_eq!(
            replied(&submit(&mut r, 4, &commit("unknown"), false, 1_000, 1).unwrap()),
            vec![4]
        );
    }

    #[test]
    fn a_write_not_committed_in_time_fails_with_request_timed_out() {
        let config = ShardConfig::default();
        let mut r = runtime();
        active(&mut r, &config, 1);
        let effects = submit(&mut r, 1, &commit("t"), false, 1_000, 0).unwrap();
        append(&mut r, effects, 1);
        assert_eq!(r.next_deadline(), Some(1_000 + TIMEOUT));
        assert!(r.expire_writes(1_000 + TIMEOUT - 1).is_empty());
        let effects = r.expire_writes(1_000 + TIMEOUT);
        assert_eq!(
            effects[0],
            Effect::Emit(EventKind::WriteFailed {
                partition: P,
                end_offset: 1,
                error: "REQUEST_TIMED_OUT".into()
            })
        );
        assert_eq!(failed(&effects), vec![(1, ErrorCode::RequestTimedOut)]);
        // Answered once: a later high watermark finds nothing to answer.
        assert!(r.on_high_watermark(P, 1).is_empty());
    }

    #[test]
    fn pending_writes_fail_with_not_coordinator_when_the_partition_is_unloaded() {
        let config = ShardConfig::default();
        let mut r = runtime();
        active(&mut r, &config, 2);
        let effects = submit(&mut r, 1, &commit("t"), false, 0, 0).unwrap();
        append(&mut r, effects, 1);
        // A resignation at the epoch this coordinator was elected with, or an older one: ignored.
        assert!(r.on_resignation(1, P, Some(2)).is_empty());
        assert!(r.on_resignation(1, P, Some(1)).is_empty());
        let effects = r.on_resignation(1, P, Some(3));
        assert_eq!(failed(&effects), vec![(1, ErrorCode::NotCoordinator)]);
        assert_eq!(
            effects.first(),
            Some(&Effect::Emit(EventKind::WriteFailed {
                partition: P,
                end_offset: 1,
                error: "NOT_COORDINATOR".into()
            }))
        );
        assert_eq!(
            effects.last(),
            Some(&Effect::Emit(EventKind::CoordinatorUnloaded {
                partition: P,
                epoch: 2
            }))
        );
        assert_eq!(r.context_state(P), None);
        assert!(r.on_high_watermark(P, 1).is_empty());
        let e = submit(&mut r, 2, &fetch(), true, 0, 1).unwrap_err();
        assert_eq!(e.code, ErrorCode::NotCoordinator);
    }

    #[test]
    fn elections_with_old_epochs_are_ignored_and_a_failed_load_waits_for_a_newer_one() {
        let config = ShardConfig::default();
        let mut r = runtime();
        r.on_election(1, P, 3);
        assert!(r.on_election(1, P, 3).is_empty());
        assert!(r.on_election(1, P, 2).is_empty());
        // A log whose record does not decode: the load fails and the context stays FAILED.
        let bad = Batch {
            base_offset: 0,
            leader_epoch: 3,
            producer: None,
            timestamp_ms: 0,
            records: vec![RecordBytes {
                key: vec![0],
                value: None,
            }],
        };
        let effects = r.complete_load(P, 1, inputs(&config, &[bad]), 0);
        assert!(
            matches!(
                &effects[..],
                [Effect::Emit(EventKind::CoordinatorLoadFailed {
                    partition: P,
                    epoch: 3,
                    ..
                })]
            ),
            "{effects:?}"
        );
        assert_eq!(r.context_state(P), Some((ContextState::Failed, 3)));
        assert_eq!(
            submit(&mut r, 1, &fetch(), true, 0, 0).unwrap_err().code,
            ErrorCode::NotCoordinator
        );
        // Only a newer election loads again.
        assert!(r.on_election(1, P, 3).is_empty());
        assert!(matches!(
            r.on_election(1, P, 4)[..],
            [
                _,
                Effect::Load {
                    epoch: 4,
                    generation: 2,
                    ..
                }
            ]
        ));
        assert!(r.complete_load(P, 2, inputs(&config, &[]), 0).len() == 1);
        assert_eq!(r.context_state(P), Some((ContextState::Active, 4)));
        // A newer election of an active coordinator keeps it (Kafka keeps serving) and moves
        // the epoch its resignation is judged against.
        assert!(r.on_election(1, P, 5).is_empty());
        assert!(r.on_resignation(1, P, Some(5)).is_empty());
        assert_eq!(r.context_state(P), Some((ContextState::Active, 5)));
    }
}

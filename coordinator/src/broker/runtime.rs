//! The coordinator runtime (Kafka's `CoordinatorRuntime` for the group coordinator): one context
//! per `__consumer_offsets` partition this broker leads, with Kafka 4.4's states and leader-epoch
//! guards, loading by replaying the partition's log, and the write path that answers a request
//! only once its records are committed (the partition's high watermark passed them).
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
use std::rc::Rc;
use std::time::Duration;

use protocol::{ErrorCode, Request};

use super::errors::{OperationError, error_response};
use super::log::Batch;
use super::node::{Core, Node};
use crate::classic::member_id::MemberIdGenerator;
use crate::context::RequestContext;
use crate::controller::GROUP_METADATA_TOPIC;
use crate::controller::image::MetadataImage;
use crate::events::EventKind;
use crate::net::Net;
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

struct PendingWrite {
    replies: Vec<Reply>,
    deadline_ms: i64,
    records: usize,
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

/// All coordinator contexts of a broker.
pub struct CoordinatorRuntime {
    /// Kafka's group coordinator service is started once the broker caught up with metadata;
    /// before that every group request gets COORDINATOR_NOT_AVAILABLE.
    pub(crate) started: bool,
    /// The `__consumer_offsets` partition count `partitionFor` uses (fixed at startup).
    pub(crate) num_partitions: i32,
    contexts: BTreeMap<i32, Context>,
    next_generation: u64,
}

impl CoordinatorRuntime {
    pub fn new(num_partitions: i32) -> Self {
        Self {
            started: false,
            num_partitions,
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

    /// Gives every loaded shard the current topics (Kafka's metadata image update). Returns, per
    /// partition, the offset tombstones of deleted topics the shard wrote (Kafka's `onTopicsDeleted`
    /// write on every coordinator), which the caller appends.
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

    /// Read access to an active shard (tests, the simulator's invariants, DescribeGroups fan-out).
    pub fn shard(&self, partition: i32) -> Option<&Shard> {
        self.contexts
            .get(&partition)
            .filter(|c| c.state == ContextState::Active)
            .and_then(|c| c.shard.as_ref())
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
                    shard.replay(&with_producer(record, batch.producer));
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

/// Attaches a transactional batch's producer to its offset commits (the shard keeps
/// transactional commits pending per producer).
fn with_producer(record: Record, producer: Option<(i64, i16)>) -> Record {
    match (record, producer) {
        (Record::OffsetCommit { key, value }, Some((producer_id, producer_epoch))) => {
            Record::TxnOffsetCommit {
                producer_id,
                producer_epoch,
                key,
                value,
            }
        }
        (record, _) => record,
    }
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

impl<N: Net> Node<N> {
    /// `onElection`: this broker became leader of partition `p` with `epoch`.
    pub(crate) fn on_election(self: &Rc<Self>, core: &mut Core, p: i32, epoch: i32) {
        let generation = core.runtime.next_generation;
        let ctx = core.runtime.contexts.entry(p).or_insert_with(|| Context {
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
            return;
        }
        ctx.epoch = epoch;
        match ctx.state {
            ContextState::Initial | ContextState::Failed => {
                core.runtime.next_generation += 1;
                ctx.generation = core.runtime.next_generation;
                ctx.state = ContextState::Loading;
                let generation = ctx.generation;
                tracing::info!(
                    broker = self.id(),
                    partition = p,
                    epoch,
                    "loading coordinator"
                );
                self.emit(EventKind::CoordinatorLoading {
                    partition: p,
                    epoch,
                });
                let node = self.clone();
                self.spawn(async move { load(node, p, epoch, generation).await });
            }
            ContextState::Loading | ContextState::Active | ContextState::Closed => {
                tracing::info!(partition = p, epoch, state = ?ctx.state, "coordinator already loading or active");
            }
        }
    }

    /// `onResignation`: this broker is no longer leader of `p` (`epoch` = the new leader epoch, or
    /// `None` when the replica was removed).
    pub(crate) fn on_resignation(&self, core: &mut Core, p: i32, epoch: Option<i32>) {
        let Some(ctx) = core.runtime.contexts.get(&p) else {
            return;
        };
        if let Some(e) = epoch
            && ctx.epoch >= e
        {
            return;
        }
        let Some(mut ctx) = core.runtime.contexts.remove(&p) else {
            return;
        };
        ctx.state = ContextState::Closed;
        let pending = std::mem::take(&mut ctx.pending);
        for (end, writes) in pending {
            for w in writes {
                if w.records > 0 {
                    self.emit(EventKind::WriteFailed {
                        partition: p,
                        end_offset: end,
                        error: ErrorCode::NotCoordinator.name().to_string(),
                    });
                }
                for reply in w.replies {
                    self.fail_reply(
                        core,
                        reply.token,
                        OperationError::from_runtime(ErrorCode::NotCoordinator),
                    );
                }
            }
        }
        if let Some(mut shard) = ctx.shard.take() {
            for reply in shard.on_unloaded() {
                self.deliver(core, reply);
            }
        }
        tracing::info!(
            broker = self.id(),
            partition = p,
            epoch = ctx.epoch,
            "unloaded coordinator"
        );
        self.emit(EventKind::CoordinatorUnloaded {
            partition: p,
            epoch: ctx.epoch,
        });
    }

    /// Sends a reply to the request waiting for it (if its connection still waits).
    pub(crate) fn deliver(&self, core: &mut Core, reply: Reply) {
        if let Some(pending) = core.pending.remove(&reply.token) {
            let _ = pending.tx.send(reply.response);
        }
    }

    /// Answers a waiting request with the error response of its api.
    pub(crate) fn fail_reply(&self, core: &mut Core, token: RequestToken, error: OperationError) {
        if let Some(pending) = core.pending.remove(&token) {
            let response = error_response(&pending.request, pending.version, &error);
            let _ = pending.tx.send(response);
        }
    }

    /// Runs `request` on the shard of partition `p` (the request's token is already registered).
    pub(crate) fn submit(
        &self,
        core: &mut Core,
        p: i32,
        token: RequestToken,
        request: &Request,
        ctx: &RequestContext,
        read_only: bool,
    ) -> Result<(), OperationError> {
        if !core.runtime.started {
            return Err(OperationError::not_active());
        }
        let Some(context) = core.runtime.contexts.get_mut(&p) else {
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
        let now = self.now();
        let outcome = match shard.handle(token, ctx, request, now) {
            Ok(o) => o,
            Err(ShardError::NotACoordinatorApi(api)) => {
                tracing::error!(api = %api, "the shard does not handle this api");
                return Err(OperationError::from_runtime(ErrorCode::UnknownServerError));
            }
        };
        self.commit_outcome(core, p, outcome, read_only);
        self.timers_changed.notify_waiters();
        Ok(())
    }

    /// Appends an outcome's records and parks its replies until they are committed.
    pub(crate) fn commit_outcome(
        &self,
        core: &mut Core,
        p: i32,
        outcome: Outcome,
        read_only: bool,
    ) {
        for topic in outcome.topics_to_create.into_values() {
            self.request_topic_creation(
                core,
                &topic.name,
                topic.partitions,
                topic.replication_factor,
            );
        }
        let now = self.now();
        let hwm = self
            .storage
            .with_log(GROUP_METADATA_TOPIC, p, |log| log.high_watermark());
        let deadline = now + self.config.offsets_commit_timeout_ms;
        let Some(context) = core.runtime.contexts.get_mut(&p) else {
            return;
        };
        if !outcome.records.is_empty() {
            let batch = Batch {
                base_offset: 0,
                leader_epoch: context.epoch,
                producer: producer_of(&outcome.records),
                timestamp_ms: now,
                records: outcome.records.iter().map(codec::serialize).collect(),
            };
            let n = batch.records.len();
            let end = self
                .storage
                .with_log(GROUP_METADATA_TOPIC, p, |log| log.append(batch));
            context.last_written = end;
            context.pending.entry(end).or_default().push(PendingWrite {
                replies: outcome.replies,
                deadline_ms: deadline,
                records: n,
            });
            tracing::debug!(
                partition = p,
                end_offset = end,
                records = n,
                "coordinator write appended"
            );
            self.log_changed.notify_waiters();
            self.maybe_advance_high_watermark(core, p);
        } else if read_only || context.last_written <= hwm {
            for reply in outcome.replies {
                self.deliver(core, reply);
            }
        } else {
            let key = context.last_written;
            context.pending.entry(key).or_default().push(PendingWrite {
                replies: outcome.replies,
                deadline_ms: deadline,
                records: 0,
            });
        }
    }

    /// The high watermark of `p` reached `hwm`: answers every write it covers.
    pub(crate) fn on_high_watermark(&self, core: &mut Core, p: i32, hwm: i64) {
        let Some(context) = core.runtime.contexts.get_mut(&p) else {
            return;
        };
        let later = context.pending.split_off(&(hwm + 1));
        let done = std::mem::replace(&mut context.pending, later);
        for (end, writes) in done {
            for w in writes {
                if w.records > 0 {
                    self.emit(EventKind::WriteAcknowledged {
                        partition: p,
                        end_offset: end,
                        records: w.records,
                    });
                }
                for reply in w.replies {
                    self.deliver(core, reply);
                }
            }
        }
    }

    /// Asks the controller to create a topic (fire and forget; one request per topic at a time).
    pub(crate) fn request_topic_creation(
        &self,
        core: &mut Core,
        name: &str,
        partitions: i32,
        rf: i16,
    ) {
        if core.image.topic(name).is_some() || !core.creating.insert(name.to_string()) {
            return;
        }
        self.topic_creation_queue
            .borrow_mut()
            .push_back((name.to_string(), partitions, rf));
        self.topic_creation_wakeup.notify_one();
    }
}

async fn load<N: Net>(node: Rc<Node<N>>, p: i32, epoch: i32, generation: u64) {
    if node.config.coordinator_load_delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(node.config.coordinator_load_delay_ms)).await;
    } else {
        // Loading is an event of its own: let requests queued before it see LOADING.
        tokio::task::yield_now().await;
    }
    let now = node.now();
    let mut core = node.core.borrow_mut();
    let topics = topics_image(&core.image);
    let Some(context) = core.runtime.contexts.get_mut(&p) else {
        return;
    };
    if context.generation != generation || context.state != ContextState::Loading {
        return;
    }
    let log = node
        .storage
        .log(GROUP_METADATA_TOPIC, p)
        .unwrap_or_default();
    let mut shard = Shard::new(node.config.shard.clone());
    // Classic member ids must never repeat those of an earlier load (Kafka's are random UUIDs).
    shard.classic.set_member_ids(MemberIdGenerator::for_load(
        node.config.incarnation_id,
        p,
        epoch,
        generation,
    ));
    shard.set_topics(topics);
    match replay_log(&mut shard, log.batches()) {
        Ok(records) => {
            shard.on_loaded(now);
            context.shard = Some(shard);
            context.state = ContextState::Active;
            context.last_written = log.log_end_offset();
            tracing::info!(
                broker = node.id(),
                partition = p,
                epoch,
                records,
                "coordinator loaded"
            );
            node.emit(EventKind::CoordinatorLoaded {
                partition: p,
                epoch,
                records,
            });
            node.timers_changed.notify_waiters();
        }
        Err(error) => {
            context.state = ContextState::Failed;
            tracing::error!(broker = node.id(), partition = p, epoch, error = %error, "coordinator load failed");
            node.emit(EventKind::CoordinatorLoadFailed {
                partition: p,
                epoch,
                error,
            });
        }
    }
    drop(core);
}

/// The runtime's timer task: fires shard timers at their deadlines and fails writes that were not
/// committed within `offsets.commit.timeout.ms`.
pub(crate) async fn run_timers<N: Net>(node: Rc<Node<N>>) {
    loop {
        let notified = node.timers_changed.notified();
        let next = {
            let core = node.core.borrow();
            if core.stopped {
                return;
            }
            let mut next: Option<i64> = None;
            for c in core.runtime.contexts.values() {
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
        };
        match next {
            Some(due) => {
                let wait = (due - node.now()).max(0) as u64;
                tokio::select! {
                    biased;
                    _ = notified => continue,
                    _ = tokio::time::sleep(Duration::from_millis(wait)) => {}
                }
            }
            None => {
                notified.await;
                continue;
            }
        }
        let now = node.now();
        let mut core = node.core.borrow_mut();
        let core = &mut *core;
        let partitions: Vec<i32> = core.runtime.active_partitions();
        for p in partitions {
            let fired = match core
                .runtime
                .contexts
                .get_mut(&p)
                .and_then(|c| c.shard.as_mut())
            {
                Some(shard) => shard.expire(now),
                None => Vec::new(),
            };
            for f in fired {
                tracing::debug!(partition = p, timer = %f.key, "coordinator timer fired");
                node.commit_outcome(core, p, f.outcome, false);
            }
        }
        // Writes past their deadline fail with REQUEST_TIMED_OUT.
        let parts: Vec<i32> = core.runtime.contexts.keys().copied().collect();
        for p in parts {
            let mut expired = Vec::new();
            if let Some(c) = core.runtime.contexts.get_mut(&p) {
                for (end, writes) in c.pending.iter_mut() {
                    let (late, keep): (Vec<PendingWrite>, Vec<PendingWrite>) =
                        std::mem::take(writes)
                            .into_iter()
                            .partition(|w| w.deadline_ms <= now);
                    *writes = keep;
                    expired.extend(late.into_iter().map(|w| (*end, w)));
                }
                c.pending.retain(|_, ws| !ws.is_empty());
            }
            for (end, w) in expired {
                if w.records > 0 {
                    node.emit(EventKind::WriteFailed {
                        partition: p,
                        end_offset: end,
                        error: ErrorCode::RequestTimedOut.name().to_string(),
                    });
                }
                tracing::info!(
                    partition = p,
                    end_offset = end,
                    "coordinator write timed out"
                );
                for reply in w.replies {
                    node.fail_reply(
                        core,
                        reply.token,
                        OperationError::from_runtime(ErrorCode::RequestTimedOut),
                    );
                }
            }
        }
    }
}

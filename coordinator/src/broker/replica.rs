//! Replication of the `__consumer_offsets` partitions between brokers (Kafka's `ReplicaManager`,
//! `Partition` and replica fetchers, reduced to what the coordinator needs).
//!
//! * Followers fetch from the leader with Kafka's Fetch (v17, `ReplicaState.ReplicaId` = their
//!   id), one fetcher task per leader, long-polling up to `replica.fetch.wait.max.ms`. A follower
//!   whose log diverged from the new leader's (the leader answers `DivergingEpoch`) truncates.
//! * The leader tracks each follower's log end offset; the high watermark is the smallest log end
//!   offset over the ISR (the maximal ISR while a change is in flight) and never goes back. When
//!   it moves, the coordinator runtime answers the writes it covers.
//! * The leader asks the controller to add caught-up followers to the ISR and to remove followers
//!   that were not caught up for `replica.lag.time.max.ms` (AlterPartition).

use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use protocol::messages::fetch_request::{
    FetchPartition, FetchTopic, ReplicaState as FetchReplicaState,
};
use protocol::messages::fetch_response::{
    EpochEndOffset, FetchableTopicResponse, LeaderIdAndEpoch, PartitionData,
};
use protocol::messages::{BrokerId, FetchRequest, FetchResponse};
use protocol::{ErrorCode, Request, Response};

use super::config::LISTENER_NAME;
use super::node::{Core, Node};
use crate::controller::GROUP_METADATA_TOPIC;
use crate::events::EventKind;
use crate::net::Net;
use crate::rpc::{
    ALTER_PARTITION, AlterPartitionData, AlterPartitionRequest, AlterPartitionResponse,
    AlterPartitionTopic, IsrMember, RpcClient,
};

/// The Fetch version replica fetchers use.
pub const REPLICA_FETCH_VERSION: i16 = 17;

#[derive(Debug, Clone)]
pub(crate) struct FollowerState {
    /// The follower's log end offset as of its last fetch; -1 until it fetched.
    leo: i64,
    last_caught_up_ms: i64,
    last_fetch_ms: i64,
    leader_leo_at_last_fetch: i64,
}

#[derive(Debug, Clone)]
pub(crate) struct LeaderState {
    followers: BTreeMap<i32, FollowerState>,
    /// The ISR proposed to the controller and not yet settled (Kafka's `PendingExpandIsr` /
    /// `PendingShrinkIsr`). The high watermark waits for the union of it and the last known ISR
    /// until an answer or new metadata settles it: a proposal whose answer was lost may have
    /// been applied by the controller, so going back to the last known ISR could commit records a
    /// member of the real ISR does not have.
    isr_in_flight: Option<Vec<i32>>,
    /// An ISR the controller accepted, with its partition epoch, until metadata shows it.
    isr_committed: Option<(Vec<i32>, i32)>,
    /// Where the current leader epoch starts in the log.
    epoch_start_offset: i64,
}

/// This broker's view of one `__consumer_offsets` partition it holds a replica of.
#[derive(Debug, Clone)]
pub(crate) struct ReplicaState {
    pub leader: i32,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
    pub isr: Vec<i32>,
    pub replicas: Vec<i32>,
    /// Present while this broker leads the partition.
    pub(crate) leading: Option<LeaderState>,
}

impl ReplicaState {
    /// The ISR the high watermark waits for.
    fn effective_isr(&self) -> Vec<i32> {
        let Some(l) = &self.leading else {
            return self.isr.clone();
        };
        if let Some(proposed) = &l.isr_in_flight {
            let mut maximal = self.isr.clone();
            for r in proposed {
                if !maximal.contains(r) {
                    maximal.push(*r);
                }
            }
            return maximal;
        }
        self.settled_isr().to_vec()
    }

    /// The ISR as last settled: the controller's answer to this leader's proposal until metadata
    /// shows it, else the metadata's (Kafka's `partitionState.isr`, not the maximal ISR).
    fn settled_isr(&self) -> &[i32] {
        if let Some(l) = &self.leading
            && let Some((isr, epoch)) = &l.isr_committed
            && *epoch > self.partition_epoch
        {
            return isr;
        }
        &self.isr
    }

    /// `Partition.isUnderMinIsr` for the leader: fewer settled in-sync replicas than
    /// `min.insync.replicas`, capped at the replication factor (`effectiveMinIsr`).
    pub(crate) fn is_under_min_isr(&self, min_insync_replicas: i32) -> bool {
        let effective = (min_insync_replicas.max(1) as usize).min(self.replicas.len());
        self.leading.is_some() && self.settled_isr().len() < effective
    }
}

impl<N: Net> Node<N> {
    /// Applies the metadata of `__consumer_offsets` partition `p` to the replica and the
    /// coordinator (Kafka's `BrokerMetadataPublisher` → `ReplicaManager.applyDelta` and
    /// `GroupCoordinator.onElection/onResignation`).
    pub(crate) fn apply_partition_change(self: &Rc<Self>, core: &mut Core, p: i32) {
        let me = self.id();
        let reg = core
            .image
            .topic(GROUP_METADATA_TOPIC)
            .and_then(|t| t.partitions.get(&p))
            .cloned();
        let Some(reg) = reg.filter(|r| r.replicas.contains(&me)) else {
            if core.replicas.remove(&p).is_some() {
                tracing::info!(broker = me, partition = p, "no longer a replica");
            }
            self.on_resignation(core, p, None);
            return;
        };
        let now = self.now();
        let was_leading_epoch = core
            .replicas
            .get(&p)
            .filter(|s| s.leading.is_some())
            .map(|s| s.leader_epoch);
        let known_partition_epoch = core.replicas.get(&p).map(|s| s.partition_epoch);
        let mut state = core.replicas.remove(&p).unwrap_or(ReplicaState {
            leader: -1,
            leader_epoch: -1,
            partition_epoch: -1,
            isr: Vec::new(),
            replicas: Vec::new(),
            leading: None,
        });
        state.leader = reg.leader;
        state.leader_epoch = reg.leader_epoch;
        state.partition_epoch = reg.partition_epoch;
        state.isr = reg.isr.clone();
        state.replicas = reg.replicas.clone();
        if reg.leader == me {
            if was_leading_epoch != Some(reg.leader_epoch) {
                let start = self.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
                    log.assign_epoch_start(reg.leader_epoch);
                    log.log_end_offset()
                });
                tracing::info!(
                    broker = me,
                    partition = p,
                    epoch = reg.leader_epoch,
                    "became leader"
                );
                state.leading = Some(LeaderState {
                    followers: reg
                        .replicas
                        .iter()
                        .filter(|r| **r != me)
                        .map(|r| {
                            (
                                *r,
                                FollowerState {
                                    leo: -1,
                                    last_caught_up_ms: now,
                                    last_fetch_ms: now,
                                    leader_leo_at_last_fetch: -1,
                                },
                            )
                        })
                        .collect(),
                    isr_in_flight: None,
                    isr_committed: None,
                    epoch_start_offset: start,
                });
            }
            if known_partition_epoch.is_some_and(|e| reg.partition_epoch > e)
                && let Some(leading) = state.leading.as_mut()
            {
                // The metadata carries the committed ISR (Kafka's `makeLeader` leaves the
                // pending state): a proposal still unsettled is superseded by it.
                leading.isr_in_flight = None;
                leading.isr_committed = None;
            }
            core.replicas.insert(p, state);
            if core.runtime.started {
                self.on_election(core, p, reg.leader_epoch);
            }
            self.maybe_advance_high_watermark(core, p);
        } else {
            state.leading = None;
            let leader = reg.leader;
            core.replicas.insert(p, state);
            self.on_resignation(core, p, Some(reg.leader_epoch));
            if leader >= 0 {
                self.ensure_fetcher(core, leader);
            }
        }
    }

    /// Moves the high watermark of `p` if the ISR allows it, and answers covered writes.
    pub(crate) fn maybe_advance_high_watermark(&self, core: &mut Core, p: i32) {
        let me = self.id();
        let Some(state) = core.replicas.get(&p) else {
            return;
        };
        let Some(leading) = &state.leading else {
            return;
        };
        // `Partition.maybeIncrementLeaderHW` (KIP-966): under min ISR the high watermark stays,
        // so a coordinator write waits (and times out) instead of committing on too few copies.
        if state.is_under_min_isr(self.config.min_insync_replicas) {
            tracing::trace!(partition = p, isr = ?state.isr, "not advancing the high watermark: under min ISR");
            return;
        }
        let (leo, hwm) = self.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
            (log.log_end_offset(), log.high_watermark())
        });
        let mut candidate = leo;
        for r in state.effective_isr() {
            if r == me {
                continue;
            }
            match leading.followers.get(&r) {
                Some(f) if f.leo >= 0 => candidate = candidate.min(f.leo),
                _ => candidate = candidate.min(hwm),
            }
        }
        if candidate > hwm {
            self.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
                log.set_high_watermark(candidate)
            });
            tracing::trace!(
                partition = p,
                high_watermark = candidate,
                "high watermark advanced"
            );
            self.on_high_watermark(core, p, candidate);
            self.log_changed.notify_waiters();
        }
    }

    fn ensure_fetcher(self: &Rc<Self>, core: &mut Core, leader: i32) {
        if core.stopped || !core.fetchers.insert(leader) {
            return;
        }
        let node = self.clone();
        self.spawn(async move { run_fetcher(node, leader).await });
    }

    /// The leader's side of a follower's Fetch. Long-polls up to `max_wait_ms` while there is
    /// nothing to send.
    pub(crate) async fn handle_replica_fetch(
        &self,
        request: &FetchRequest,
        version: i16,
    ) -> FetchResponse {
        let replica = if version >= 15 {
            request.replica_state.replica_id.0
        } else {
            request.replica_id.0
        };
        let deadline =
            tokio::time::Instant::now() + Duration::from_millis(request.max_wait_ms.max(0) as u64);
        loop {
            let notified = self.log_changed.notified();
            let (response, has_data) = {
                let mut core = self.core.borrow_mut();
                self.replica_fetch_once(&mut core, request, version, replica)
            };
            if has_data || tokio::time::Instant::now() >= deadline {
                return response;
            }
            let _ = tokio::time::timeout_at(deadline, notified).await;
        }
    }

    fn replica_fetch_once(
        &self,
        core: &mut Core,
        request: &FetchRequest,
        version: i16,
        replica: i32,
    ) -> (FetchResponse, bool) {
        let now = self.now();
        let topic = core
            .image
            .topic(GROUP_METADATA_TOPIC)
            .map(|t| (t.id, t.name.clone()));
        let mut has_data = false;
        let mut touched = Vec::new();
        let mut topics = Vec::new();
        for t in &request.topics {
            let matches = match &topic {
                Some((id, name)) => {
                    if version >= 13 {
                        t.topic_id == *id
                    } else {
                        t.topic.as_str() == name
                    }
                }
                None => false,
            };
            let mut partitions = Vec::new();
            for fp in &t.partitions {
                let mut pd = PartitionData::default()
                    .with_partition_index(fp.partition)
                    .with_high_watermark(-1)
                    .with_last_stable_offset(-1)
                    .with_log_start_offset(-1)
                    .with_records(Some(Default::default()));
                if !matches {
                    let code = if version >= 13 {
                        ErrorCode::UnknownTopicId
                    } else {
                        ErrorCode::UnknownTopicOrPartition
                    };
                    partitions.push(pd.with_error_code(code.code()));
                    has_data = true;
                    continue;
                }
                let p = fp.partition;
                let Some(state) = core.replicas.get_mut(&p) else {
                    partitions.push(pd.with_error_code(ErrorCode::NotLeaderOrFollower.code()));
                    has_data = true;
                    continue;
                };
                let current_leader = LeaderIdAndEpoch::default()
                    .with_leader_id(BrokerId(state.leader))
                    .with_leader_epoch(state.leader_epoch);
                let Some(leading) = state.leading.as_mut() else {
                    partitions.push(
                        pd.with_error_code(ErrorCode::NotLeaderOrFollower.code())
                            .with_current_leader(current_leader),
                    );
                    has_data = true;
                    continue;
                };
                if fp.current_leader_epoch >= 0 && fp.current_leader_epoch != state.leader_epoch {
                    let code = if fp.current_leader_epoch < state.leader_epoch {
                        ErrorCode::FencedLeaderEpoch
                    } else {
                        ErrorCode::UnknownLeaderEpoch
                    };
                    partitions.push(
                        pd.with_error_code(code.code())
                            .with_current_leader(current_leader),
                    );
                    has_data = true;
                    continue;
                }
                if !leading.followers.contains_key(&replica) {
                    partitions.push(pd.with_error_code(ErrorCode::NotLeaderOrFollower.code()));
                    has_data = true;
                    continue;
                }
                // Read what this fetch needs without copying the log.
                let (leo, hwm, divergence, bytes) =
                    self.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
                        let leo = log.log_end_offset();
                        let divergence = (fp.last_fetched_epoch >= 0)
                            .then(|| log.end_offset_for_epoch(fp.last_fetched_epoch))
                            .filter(|(epoch, end)| {
                                *epoch < fp.last_fetched_epoch || *end < fp.fetch_offset
                            });
                        let bytes = (divergence.is_none()
                            && fp.fetch_offset >= 0
                            && fp.fetch_offset < leo)
                            .then(|| {
                                log.read(fp.fetch_offset, fp.partition_max_bytes.max(1) as usize)
                            });
                        (leo, log.high_watermark(), divergence, bytes)
                    });
                pd = pd
                    .with_high_watermark(hwm)
                    .with_last_stable_offset(hwm)
                    .with_log_start_offset(0);
                if let Some((epoch, end)) = divergence {
                    partitions.push(
                        pd.with_diverging_epoch(
                            EpochEndOffset::default()
                                .with_epoch(epoch)
                                .with_end_offset(end),
                        ),
                    );
                    has_data = true;
                    continue;
                }
                if fp.fetch_offset > leo || fp.fetch_offset < 0 {
                    partitions.push(pd.with_error_code(ErrorCode::OffsetOutOfRange.code()));
                    has_data = true;
                    continue;
                }
                if let Some(f) = leading.followers.get_mut(&replica) {
                    if fp.fetch_offset >= leo {
                        f.last_caught_up_ms = now;
                    } else if f.leader_leo_at_last_fetch >= 0
                        && fp.fetch_offset >= f.leader_leo_at_last_fetch
                    {
                        f.last_caught_up_ms = f.last_fetch_ms;
                    }
                    f.leo = fp.fetch_offset;
                    f.last_fetch_ms = now;
                    f.leader_leo_at_last_fetch = leo;
                }
                touched.push(p);
                if let Some(bytes) = bytes {
                    pd = pd.with_records(Some(bytes));
                    has_data = true;
                }
                partitions.push(pd);
            }
            topics.push(
                FetchableTopicResponse::default()
                    .with_topic(t.topic.clone())
                    .with_topic_id(t.topic_id)
                    .with_partitions(partitions),
            );
        }
        for p in touched {
            self.maybe_advance_high_watermark(core, p);
            self.maybe_expand_isr(core, p, replica);
        }
        (FetchResponse::default().with_responses(topics), has_data)
    }

    /// Proposes adding `follower` to the ISR of `p` when it caught up (Kafka's `maybeExpandIsr`).
    fn maybe_expand_isr(&self, core: &mut Core, p: i32, follower: i32) {
        let hwm = self
            .storage
            .with_log(GROUP_METADATA_TOPIC, p, |log| log.high_watermark());
        let eligible = core.image.broker(follower).is_some_and(|b| b.is_active());
        let Some(state) = core.replicas.get_mut(&p) else {
            return;
        };
        if state.effective_isr().contains(&follower) {
            return;
        }
        let isr = state.effective_isr();
        let Some(leading) = state.leading.as_mut() else {
            return;
        };
        if leading.isr_in_flight.is_some() || !eligible {
            return;
        }
        let Some(f) = leading.followers.get(&follower) else {
            return;
        };
        if f.leo < hwm || f.leo < leading.epoch_start_offset {
            return;
        }
        let mut proposed = isr;
        proposed.push(follower);
        leading.isr_in_flight = Some(proposed.clone());
        self.send_alter_partition(core, p, proposed);
    }

    /// Queues an AlterPartition for `p` proposing `isr`.
    fn send_alter_partition(&self, core: &mut Core, p: i32, isr: Vec<i32>) {
        let Some(state) = core.replicas.get(&p) else {
            return;
        };
        let request = AlterPartitionRequest {
            broker_id: self.id(),
            broker_epoch: core.broker_epoch,
            topics: vec![AlterPartitionTopic {
                topic_name: GROUP_METADATA_TOPIC.to_string(),
                partitions: vec![AlterPartitionData {
                    partition_index: p,
                    leader_epoch: state.leader_epoch,
                    new_isr_with_epochs: isr
                        .iter()
                        .map(|b| IsrMember {
                            broker_id: *b,
                            broker_epoch: core.image.broker(*b).map(|r| r.epoch).unwrap_or(-1),
                        })
                        .collect(),
                    leader_recovery_state: 0,
                    partition_epoch: state.partition_epoch,
                }],
            }],
        };
        tracing::info!(broker = self.id(), partition = p, isr = ?isr, "requesting an ISR change");
        self.emit(EventKind::IsrChangeRequested {
            topic: GROUP_METADATA_TOPIC.to_string(),
            partition: p,
            isr,
        });
        self.alter_partition_queue
            .borrow_mut()
            .push_back((p, request));
        self.alter_partition_wakeup.notify_one();
    }

    /// Applies the controller's answer to an AlterPartition (Kafka's `Partition.submitAlterPartition`
    /// callback and `handleAlterPartitionError`). Returns true if the same request must be sent
    /// again: no answer, or a top-level error (Kafka's AlterPartitionManager retries those until
    /// the controller answers), while the proposal is still the pending one.
    fn on_alter_partition_response(
        &self,
        p: i32,
        request: &AlterPartitionRequest,
        response: Option<AlterPartitionResponse>,
    ) -> bool {
        let mut core = self.core.borrow_mut();
        let core = &mut *core;
        let Some(state) = core.replicas.get_mut(&p) else {
            return false;
        };
        let proposed: Option<Vec<i32>> = request
            .topics
            .first()
            .and_then(|t| t.partitions.first())
            .filter(|d| {
                d.leader_epoch == state.leader_epoch && d.partition_epoch == state.partition_epoch
            })
            .map(|d| d.new_isr_with_epochs.iter().map(|m| m.broker_id).collect());
        let Some(leading) = state.leading.as_mut() else {
            return false;
        };
        if proposed.is_none() || leading.isr_in_flight != proposed {
            // Superseded (new metadata or a new leader epoch settled the ISR meanwhile).
            return false;
        }
        let result = response
            .as_ref()
            .filter(|r| r.error_code == 0)
            .and_then(|r| r.topics.first().and_then(|t| t.partitions.first()));
        let retry = match (&response, result) {
            (_, Some(r)) if r.error_code == 0 => {
                leading.isr_in_flight = None;
                leading.isr_committed = Some((r.isr.clone(), r.partition_epoch));
                false
            }
            (_, Some(r))
                if r.error_code == ErrorCode::OperationNotAttempted.code()
                    || r.error_code == ErrorCode::IneligibleReplica.code() =>
            {
                // The controller says the proposal was not applied: back to the committed ISR.
                tracing::info!(partition = p, error = r.error_code, "ISR change refused");
                leading.isr_in_flight = None;
                false
            }
            (_, Some(r)) => {
                // FENCED_LEADER_EPOCH, INVALID_UPDATE_VERSION, UNKNOWN_TOPIC_OR_PARTITION,
                // NEW_LEADER_ELECTED, ...: whether an earlier attempt was applied is unknown, so
                // the proposal stays pending until metadata settles it (Kafka does not retry).
                tracing::info!(
                    partition = p,
                    error = r.error_code,
                    "ISR change refused; waiting for metadata"
                );
                false
            }
            (Some(r), None) => {
                tracing::info!(
                    partition = p,
                    error = r.error_code,
                    "AlterPartition refused; retrying"
                );
                true
            }
            (None, None) => {
                tracing::info!(partition = p, "no answer to AlterPartition; retrying");
                true
            }
        };
        self.maybe_advance_high_watermark(core, p);
        retry
    }
}

/// Sends queued AlterPartition requests to the controller, one at a time.
pub(crate) async fn run_alter_partition<N: Net>(node: Rc<Node<N>>) {
    loop {
        let next = node.alter_partition_queue.borrow_mut().pop_front();
        let Some((p, request)) = next else {
            node.alter_partition_wakeup.notified().await;
            if node.core.borrow().stopped {
                return;
            }
            continue;
        };
        let response: Option<AlterPartitionResponse> = node
            .forward_rpc
            .call_internal(
                ALTER_PARTITION,
                &request,
                node.config.controller_rpc_timeout_ms,
            )
            .await
            .map_err(|e| tracing::info!(partition = p, error = %e, "AlterPartition failed"))
            .ok();
        if node.on_alter_partition_response(p, &request, response) {
            // Kafka's controller channel retries after `retry.backoff.ms`; the pending proposal
            // keeps holding the high watermark meanwhile.
            tokio::time::sleep(Duration::from_millis(ALTER_PARTITION_RETRY_BACKOFF_MS)).await;
            if node.core.borrow().stopped {
                return;
            }
            node.alter_partition_queue
                .borrow_mut()
                .push_front((p, request));
        }
    }
}

/// Pause before an unanswered AlterPartition is sent again (Kafka's `retry.backoff.ms` default
/// of the broker-to-controller channel).
const ALTER_PARTITION_RETRY_BACKOFF_MS: u64 = 100;

/// Removes followers that were not caught up for `replica.lag.time.max.ms` from the ISR of the
/// partitions this broker leads (Kafka's `maybeShrinkIsr`, run every half lag time).
pub(crate) async fn run_isr_checks<N: Net>(node: Rc<Node<N>>) {
    let period = (node.config.replica_lag_time_max_ms / 2).max(1) as u64;
    loop {
        tokio::time::sleep(Duration::from_millis(period)).await;
        let now = node.now();
        let me = node.id();
        let mut core = node.core.borrow_mut();
        let core = &mut *core;
        if core.stopped {
            return;
        }
        let partitions: Vec<i32> = core.replicas.keys().copied().collect();
        for p in partitions {
            let Some(state) = core.replicas.get_mut(&p) else {
                continue;
            };
            let isr = state.effective_isr();
            let Some(leading) = state.leading.as_ref() else {
                continue;
            };
            if leading.isr_in_flight.is_some() {
                continue;
            }
            let lagging: Vec<i32> = isr
                .iter()
                .copied()
                .filter(|r| *r != me)
                .filter(|r| {
                    leading.followers.get(r).is_some_and(|f| {
                        now - f.last_caught_up_ms > node.config.replica_lag_time_max_ms
                    })
                })
                .collect();
            if lagging.is_empty() {
                continue;
            }
            let shrunk: Vec<i32> = isr.into_iter().filter(|r| !lagging.contains(r)).collect();
            if let Some(leading) = state.leading.as_mut() {
                leading.isr_in_flight = Some(shrunk.clone());
            }
            tracing::info!(broker = me, partition = p, out_of_sync = ?lagging, "shrinking ISR");
            node.send_alter_partition(core, p, shrunk);
        }
    }
}

/// A follower's fetcher for every partition it follows from `leader`.
async fn run_fetcher<N: Net>(node: Rc<Node<N>>, leader: i32) {
    let me = node.id();
    let mut client: Option<RpcClient<N>> = None;
    loop {
        // What to fetch, decided fresh every round from the replica states.
        let plan = {
            let mut core = node.core.borrow_mut();
            if core.stopped {
                core.fetchers.remove(&leader);
                return;
            }
            let parts: Vec<(i32, i32)> = core
                .replicas
                .iter()
                .filter(|(_, s)| s.leading.is_none() && s.leader == leader)
                .map(|(p, s)| (*p, s.leader_epoch))
                .collect();
            if parts.is_empty() {
                core.fetchers.remove(&leader);
                return;
            }
            let addr = core
                .image
                .broker(leader)
                .and_then(|b| b.endpoint(Some(LISTENER_NAME)).or_else(|| b.endpoint(None)))
                .map(|e| format!("{}:{}", e.host, e.port));
            let topic = core
                .image
                .topic(GROUP_METADATA_TOPIC)
                .map(|t| (t.id, t.name.clone()));
            (parts, addr, topic, core.broker_epoch)
        };
        let (parts, addr, topic, epoch) = plan;
        let (Some(addr), Some((topic_id, topic_name))) = (addr, topic) else {
            tokio::time::sleep(Duration::from_millis(node.config.replica_fetch_backoff_ms)).await;
            continue;
        };
        if client.as_ref().is_none_or(|c| c.addr() != addr) {
            client = Some(RpcClient::new(
                node.net.clone(),
                addr.clone(),
                format!("broker-{me}-fetcher"),
            ));
        }
        let Some(c) = client.as_ref() else {
            continue;
        };
        let partitions: Vec<FetchPartition> = parts
            .iter()
            .map(|(p, leader_epoch)| {
                let (leo, last_epoch) = node.storage.with_log(GROUP_METADATA_TOPIC, *p, |log| {
                    (log.log_end_offset(), log.latest_epoch())
                });
                FetchPartition::default()
                    .with_partition(*p)
                    .with_current_leader_epoch(*leader_epoch)
                    .with_fetch_offset(leo)
                    .with_last_fetched_epoch(last_epoch)
                    .with_log_start_offset(0)
                    .with_partition_max_bytes(node.config.replica_fetch_max_bytes)
            })
            .collect();
        let request = FetchRequest::default()
            .with_replica_state(
                FetchReplicaState::default()
                    .with_replica_id(BrokerId(me))
                    .with_replica_epoch(epoch),
            )
            .with_max_wait_ms(node.config.replica_fetch_wait_max_ms)
            .with_min_bytes(1)
            .with_max_bytes(i32::MAX)
            .with_isolation_level(0)
            .with_session_id(0)
            .with_session_epoch(-1)
            .with_topics(vec![
                FetchTopic::default()
                    .with_topic(protocol::messages::TopicName(
                        protocol::messages::StrBytes::from_string(topic_name),
                    ))
                    .with_topic_id(topic_id)
                    .with_partitions(partitions),
            ]);
        let timeout = node.config.replica_socket_timeout_ms
            + node.config.replica_fetch_wait_max_ms.max(0) as u64;
        let response = c
            .call(Request::Fetch(request), REPLICA_FETCH_VERSION, timeout)
            .await;
        let backoff = match response {
            Ok(Response::Fetch(r)) => process_fetch_response(&node, leader, &parts, r),
            Ok(_) => true,
            Err(e) => {
                tracing::debug!(broker = me, leader, error = %e, "replica fetch failed");
                true
            }
        };
        if backoff {
            tokio::time::sleep(Duration::from_millis(node.config.replica_fetch_backoff_ms)).await;
        }
    }
}

/// Applies one fetch response; returns whether the fetcher should back off.
fn process_fetch_response<N: Net>(
    node: &Rc<Node<N>>,
    leader: i32,
    asked: &[(i32, i32)],
    response: FetchResponse,
) -> bool {
    let mut core = node.core.borrow_mut();
    let core = &mut *core;
    let mut backoff = response.error_code != 0;
    for t in response.responses {
        for pd in t.partitions {
            let p = pd.partition_index;
            let Some((_, asked_epoch)) = asked.iter().find(|(q, _)| *q == p) else {
                continue;
            };
            // Ignore answers for a partition whose leadership changed since the request.
            let current = core.replicas.get(&p);
            if !current.is_some_and(|s| {
                s.leader == leader && s.leader_epoch == *asked_epoch && s.leading.is_none()
            }) {
                continue;
            }
            if pd.error_code != 0 {
                tracing::debug!(
                    partition = p,
                    leader,
                    error = pd.error_code,
                    "replica fetch error"
                );
                backoff = true;
                continue;
            }
            if pd.diverging_epoch.epoch >= 0 || pd.diverging_epoch.end_offset >= 0 {
                let div = pd.diverging_epoch;
                let to = node.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
                    let (mine, my_end) = log.end_offset_for_epoch(div.epoch);
                    let target = if mine >= 0 {
                        div.end_offset.min(my_end)
                    } else {
                        div.end_offset.min(log.log_end_offset())
                    }
                    .max(0);
                    log.truncate_to(target);
                    target
                });
                tracing::info!(
                    partition = p,
                    leader,
                    to_offset = to,
                    "truncated diverging log"
                );
                node.emit(EventKind::ReplicaTruncated {
                    topic: GROUP_METADATA_TOPIC.to_string(),
                    partition: p,
                    to_offset: to,
                });
                continue;
            }
            if let Some(records) = pd.records
                && !records.is_empty()
            {
                let result = node.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
                    log.append_replicated(records)
                });
                if let Err(e) = result {
                    tracing::warn!(partition = p, leader, error = %e, "cannot append replicated records");
                    backoff = true;
                }
            }
            node.storage.with_log(GROUP_METADATA_TOPIC, p, |log| {
                log.set_high_watermark(pd.high_watermark)
            });
        }
    }
    backoff
}

#[cfg(test)]
mod tests {
    use super::*;

    fn leader_of(isr: &[i32], settled: Option<(&[i32], i32)>) -> ReplicaState {
        ReplicaState {
            leader: 1,
            leader_epoch: 0,
            partition_epoch: 4,
            isr: isr.to_vec(),
            replicas: vec![1, 2, 3],
            leading: Some(LeaderState {
                followers: BTreeMap::new(),
                isr_in_flight: None,
                isr_committed: settled.map(|(isr, epoch)| (isr.to_vec(), epoch)),
                epoch_start_offset: 0,
            }),
        }
    }

    #[test]
    fn under_min_isr_counts_the_settled_isr_capped_at_the_replicas() {
        assert!(leader_of(&[1], None).is_under_min_isr(2));
        assert!(!leader_of(&[1, 2], None).is_under_min_isr(2));
        // min.insync.replicas above the replication factor: the replicas are the bound.
        assert!(!leader_of(&[1, 2, 3], None).is_under_min_isr(5));
        assert!(leader_of(&[1, 2], None).is_under_min_isr(5));
        // An expansion the controller accepted counts before metadata shows it...
        assert!(!leader_of(&[1], Some((&[1, 2], 5))).is_under_min_isr(2));
        // ...but not an answer older than the metadata's partition epoch.
        assert!(leader_of(&[1], Some((&[1, 2], 4))).is_under_min_isr(2));
        // A follower is never under min ISR.
        let mut follower = leader_of(&[1], None);
        follower.leading = None;
        assert!(!follower.is_under_min_isr(2));
    }
}

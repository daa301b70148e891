//! The broker's side of the coordinator runtime: it feeds [`CoordinatorRuntime`] (sans IO, in
//! `runtime.rs`) the broker's events and carries out the effects it returns, in order: appends to
//! the partition's local log (then the high watermark may move), replies sent to waiting
//! connections, cluster events emitted, loads run as tasks, topics asked of the controller, and the
//! timer task that fires shard timers and fails writes past their deadline.

use std::rc::Rc;
use std::time::Duration;

use protocol::Request;

use super::errors::{OperationError, error_response};
use super::node::{Core, Node};
use super::runtime::{Effect, LoadInputs, topics_image};
use crate::context::RequestContext;
use crate::controller::GROUP_METADATA_TOPIC;
use crate::events::EventKind;
use crate::net::Net;
use crate::outcome::{Outcome, Reply, RequestToken};

impl<N: Net> Node<N> {
    /// The high watermark of `__consumer_offsets` partition `p` on this broker.
    fn offsets_high_watermark(&self, p: i32) -> i64 {
        self.storage
            .with_log(GROUP_METADATA_TOPIC, p, |log| log.high_watermark())
    }

    /// Carries out the runtime's effects in order; returns the loads to start (only an election
    /// asks for one).
    fn apply(&self, core: &mut Core, effects: Vec<Effect>) -> Vec<(i32, i32, u64)> {
        let mut loads = Vec::new();
        for effect in effects {
            match effect {
                Effect::Emit(kind) => self.emit(kind),
                Effect::Reply(reply) => self.deliver(core, reply),
                Effect::Fail { token, error } => self.fail_reply(core, token, error),
                Effect::Load {
                    partition,
                    epoch,
                    generation,
                } => loads.push((partition, epoch, generation)),
                Effect::Append {
                    partition,
                    batch,
                    write,
                } => {
                    let end = self
                        .storage
                        .with_log(GROUP_METADATA_TOPIC, partition, |log| log.append(batch));
                    core.runtime.on_appended(partition, end, write);
                    self.log_changed.notify_waiters();
                    self.maybe_advance_high_watermark(core, partition);
                }
                Effect::CreateTopic {
                    name,
                    partitions,
                    replication_factor,
                } => self.request_topic_creation(core, &name, partitions, replication_factor),
            }
        }
        loads
    }

    /// `onElection`: this broker became leader of partition `p` with `epoch`.
    pub(crate) fn on_election(self: &Rc<Self>, core: &mut Core, p: i32, epoch: i32) {
        let effects = core.runtime.on_election(self.id(), p, epoch);
        for (p, epoch, generation) in self.apply(core, effects) {
            let node = self.clone();
            self.spawn(async move { load(node, p, epoch, generation).await });
        }
    }

    /// `onResignation`: this broker is no longer leader of `p` (`epoch` = the new leader epoch, or
    /// `None` when the replica was removed).
    pub(crate) fn on_resignation(&self, core: &mut Core, p: i32, epoch: Option<i32>) {
        let effects = core.runtime.on_resignation(self.id(), p, epoch);
        self.apply(core, effects);
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
        let hwm = self.offsets_high_watermark(p);
        let effects = core
            .runtime
            .submit(p, token, request, ctx, read_only, self.now(), hwm)?;
        self.apply(core, effects);
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
        let hwm = self.offsets_high_watermark(p);
        let effects = core
            .runtime
            .commit_outcome(p, outcome, read_only, self.now(), hwm);
        self.apply(core, effects);
    }

    /// The high watermark of `p` reached `hwm`: answers every write it covers.
    pub(crate) fn on_high_watermark(&self, core: &mut Core, p: i32, hwm: i64) {
        let effects = core.runtime.on_high_watermark(p, hwm);
        self.apply(core, effects);
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

/// Loads partition `p` for the election of `generation`: after `coordinator_load_delay_ms` (or a
/// yield, so requests queued before see LOADING), hands the partition's log to the runtime.
async fn load<N: Net>(node: Rc<Node<N>>, p: i32, _epoch: i32, generation: u64) {
    if node.config.coordinator_load_delay_ms > 0 {
        tokio::time::sleep(Duration::from_millis(node.config.coordinator_load_delay_ms)).await;
    } else {
        // Loading is an event of its own: let requests queued before it see LOADING.
        tokio::task::yield_now().await;
    }
    let now = node.now();
    let mut core = node.core.borrow_mut();
    let core = &mut *core;
    if !core.runtime.wants_load(p, generation) {
        return;
    }
    let topics = topics_image(&core.image);
    let log = node
        .storage
        .log(GROUP_METADATA_TOPIC, p)
        .unwrap_or_default();
    let inputs = LoadInputs {
        broker: node.id(),
        batches: log.batches(),
        log_end_offset: log.log_end_offset(),
        config: &node.config.shard,
        topics,
        incarnation_id: node.config.incarnation_id,
    };
    let effects = core.runtime.complete_load(p, generation, inputs, now);
    let loaded = effects
        .iter()
        .any(|e| matches!(e, Effect::Emit(EventKind::CoordinatorLoaded { .. })));
    node.apply(core, effects);
    if loaded {
        node.events
            .coordinator_loaded(node.id(), p, &core.runtime, now);
        node.timers_changed.notify_waiters();
    }
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
            core.runtime.next_deadline()
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
        for p in core.runtime.active_partitions() {
            for f in core.runtime.fire_timers(p, now) {
                tracing::debug!(partition = p, timer = %f.key, "coordinator timer fired");
                node.commit_outcome(core, p, f.outcome, false);
            }
        }
        let effects = core.runtime.expire_writes(now);
        node.apply(core, effects);
    }
}

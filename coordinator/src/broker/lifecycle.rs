//! The broker lifecycle manager (Kafka 4.4's `BrokerLifecycleManager`): registration, heartbeats
//! and the states STARTING, RECOVERY, RUNNING, PENDING_CONTROLLED_SHUTDOWN, SHUTTING_DOWN.
//!
//! One request in flight at a time. After a successful registration the first heartbeat goes
//! out at once; heartbeats follow every 10 ms while STARTING, every `broker.heartbeat.interval.ms`
//! otherwise, 50 ms after the first "not yet" of a controlled shutdown. Every failure (an error
//! code, a timeout, a lost connection) waits exactly the heartbeat interval (4.4's fixed retry).
//! A request asked for while one is in flight goes out right after the response, except after a
//! failure. A broker that never registers within `initial.broker.registration.timeout.ms`
//! stops.
//!
//! Catch-up: when the controller reports IsCaughtUp the broker enters RECOVERY, starts its group
//! coordinator service and is ready to be unfenced at once (Kafka's `BrokerServer` does log
//! recovery in between; regroup's logs need none), so the next heartbeat asks to be unfenced.
//! Once unfenced the broker is RUNNING and serves clients.

use std::rc::Rc;
use std::time::Duration;

use protocol::messages::broker_registration_request::{Feature, Listener};
use protocol::messages::{BrokerHeartbeatRequest, BrokerId, BrokerRegistrationRequest, StrBytes};
use protocol::{ErrorCode, Request, Response};

use super::config::LISTENER_NAME;
use super::errors::OperationError;
use super::node::{Core, Node};
use crate::controller::GROUP_METADATA_TOPIC;
use crate::controller::config::{BROKER_SUPPORTED_FEATURES, METADATA_VERSION_LEVEL};
use crate::events::{BrokerState, EventKind};
use crate::net::Net;

/// BrokerRegistration version a 4.4 broker sends.
const REGISTRATION_VERSION: i16 = 4;
/// BrokerHeartbeat version a 4.4 broker sends.
const HEARTBEAT_VERSION: i16 = 2;
/// Heartbeat cadence while STARTING.
const STARTING_HEARTBEAT_MS: u64 = 10;
/// First retry of a pending controlled shutdown.
const FIRST_CONTROLLED_SHUTDOWN_RETRY_MS: u64 = 50;

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

fn registration_request<N: Net>(node: &Node<N>) -> BrokerRegistrationRequest {
    BrokerRegistrationRequest::default()
        .with_broker_id(BrokerId(node.id()))
        .with_cluster_id(s(&node.config.cluster_id))
        .with_incarnation_id(node.config.incarnation_id)
        .with_listeners(vec![
            Listener::default()
                .with_name(s(LISTENER_NAME))
                .with_host(s(&node.advertised.0))
                .with_port(node.advertised.1)
                .with_security_protocol(0),
        ])
        .with_features(
            BROKER_SUPPORTED_FEATURES
                .iter()
                .map(|(name, min, max)| {
                    Feature::default()
                        .with_name(s(name))
                        .with_min_supported_version(*min)
                        .with_max_supported_version(*max)
                })
                .collect(),
        )
        .with_rack(node.config.rack.as_deref().map(s))
        .with_is_migrating_zk_broker(false)
        .with_log_dirs(vec![node.config.log_dir_id])
        .with_previous_broker_epoch(node.previous_broker_epoch)
}

fn heartbeat_request<N: Net>(node: &Node<N>, core: &Core) -> BrokerHeartbeatRequest {
    // From RECOVERY on, a 4.4 broker at metadata.version >= 4.3-IV0 reports its cordoned log
    // directories (none).
    let mv = core
        .image
        .features
        .get("metadata.version")
        .copied()
        .unwrap_or(0);
    let cordoned = (core.caught_up && mv >= METADATA_VERSION_LEVEL).then(Vec::new);
    BrokerHeartbeatRequest::default()
        .with_broker_id(BrokerId(node.id()))
        .with_broker_epoch(core.broker_epoch)
        .with_current_metadata_offset(core.image.last_offset)
        .with_want_fence(!core.ready_to_unfence)
        .with_want_shut_down(core.state == BrokerState::PendingControlledShutdown)
        .with_cordoned_log_dirs(cordoned)
}

/// What to do after a communication.
enum Next {
    After(u64),
    Failed,
    Stop,
}

pub(crate) async fn run<N: Net>(node: Rc<Node<N>>) {
    let start = node.now();
    {
        let mut core = node.core.borrow_mut();
        node.set_state(&mut core, BrokerState::Starting);
    }
    let mut registered = false;
    let mut got_controlled_shutdown_response = false;
    let mut wait_ms: u64 = 0;
    loop {
        // Wait for the next communication, unless an immediate one is asked for.
        if wait_ms > 0 {
            let notified = node.lifecycle_wakeup.notified();
            if !node.heartbeat_requested.replace(false) && !node.shutdown_requested.get() {
                tokio::select! {
                    biased;
                    _ = notified => { node.heartbeat_requested.set(false); }
                    _ = tokio::time::sleep(Duration::from_millis(wait_ms)) => {}
                }
            }
        } else {
            node.heartbeat_requested.set(false);
        }
        if node.core.borrow().stopped {
            return;
        }
        // BeginControlledShutdownEvent, handled by the lifecycle manager itself.
        if node.shutdown_requested.replace(false) {
            let state = node.core.borrow().state;
            match state {
                BrokerState::Running => {
                    let mut core = node.core.borrow_mut();
                    node.set_state(&mut core, BrokerState::PendingControlledShutdown);
                }
                BrokerState::PendingControlledShutdown | BrokerState::ShuttingDown => {}
                _ => {
                    stop(&node);
                    return;
                }
            }
        }
        let next = if !registered {
            if node.now() - start > node.config.initial_registration_timeout_ms as i64 {
                tracing::error!(
                    broker = node.id(),
                    "shutting down because the broker could not register with the controller"
                );
                stop(&node);
                return;
            }
            let request = registration_request(&node);
            let result = node
                .heartbeat_rpc
                .call(
                    Request::BrokerRegistration(request),
                    REGISTRATION_VERSION,
                    node.config.controller_rpc_timeout_ms,
                )
                .await;
            match result {
                Ok(Response::BrokerRegistration(r)) if r.error_code == 0 => {
                    registered = true;
                    node.core.borrow_mut().broker_epoch = r.broker_epoch;
                    tracing::info!(
                        broker = node.id(),
                        epoch = r.broker_epoch,
                        "registered with the controller"
                    );
                    Next::After(0)
                }
                Ok(Response::BrokerRegistration(r)) => {
                    tracing::info!(
                        broker = node.id(),
                        error = ErrorCode::from_code(r.error_code)
                            .map(|c| c.name())
                            .unwrap_or("?"),
                        "unable to register the broker"
                    );
                    Next::Failed
                }
                Ok(_) => Next::Failed,
                Err(e) => {
                    tracing::info!(broker = node.id(), error = %e, "unable to register the broker");
                    Next::Failed
                }
            }
        } else {
            let request = {
                let core = node.core.borrow();
                heartbeat_request(&node, &core)
            };
            let result = node
                .heartbeat_rpc
                .call(
                    Request::BrokerHeartbeat(request),
                    HEARTBEAT_VERSION,
                    node.config.controller_rpc_timeout_ms,
                )
                .await;
            match result {
                Ok(Response::BrokerHeartbeat(r)) if r.error_code == 0 => on_heartbeat_response(
                    &node,
                    r.is_caught_up,
                    r.is_fenced,
                    r.should_shut_down,
                    &mut got_controlled_shutdown_response,
                ),
                Ok(Response::BrokerHeartbeat(r)) => {
                    tracing::warn!(
                        broker = node.id(),
                        error = ErrorCode::from_code(r.error_code)
                            .map(|c| c.name())
                            .unwrap_or("?"),
                        "broker heartbeat refused"
                    );
                    Next::Failed
                }
                Ok(_) => Next::Failed,
                Err(e) => {
                    tracing::info!(broker = node.id(), error = %e, "unable to send a broker heartbeat");
                    Next::Failed
                }
            }
        };
        wait_ms = match next {
            Next::After(ms) => {
                if node.heartbeat_requested.get() {
                    0
                } else {
                    ms
                }
            }
            Next::Failed => {
                // Never immediately after a failure.
                node.heartbeat_requested.set(false);
                node.config.heartbeat_interval_ms
            }
            Next::Stop => {
                stop(&node);
                return;
            }
        };
    }
}

fn on_heartbeat_response<N: Net>(
    node: &Rc<Node<N>>,
    is_caught_up: bool,
    is_fenced: bool,
    should_shut_down: bool,
    got_controlled_shutdown_response: &mut bool,
) -> Next {
    let interval = node.config.heartbeat_interval_ms;
    let mut core = node.core.borrow_mut();
    let core = &mut *core;
    match core.state {
        BrokerState::Starting => {
            if is_caught_up {
                node.set_state(core, BrokerState::Recovery);
                core.caught_up = true;
                start_coordinator_service(node, core);
                core.ready_to_unfence = true;
                return Next::After(0);
            }
            Next::After(STARTING_HEARTBEAT_MS)
        }
        BrokerState::Recovery => {
            if !is_fenced {
                node.set_state(core, BrokerState::Running);
                node.running.notify_waiters();
            }
            Next::After(interval)
        }
        BrokerState::Running => Next::After(interval),
        BrokerState::PendingControlledShutdown => {
            if should_shut_down {
                tracing::info!(
                    broker = node.id(),
                    "the controller has asked us to exit controlled shutdown"
                );
                return Next::Stop;
            }
            let first = !*got_controlled_shutdown_response;
            *got_controlled_shutdown_response = true;
            Next::After(if first {
                FIRST_CONTROLLED_SHUTDOWN_RETRY_MS
            } else {
                interval
            })
        }
        BrokerState::ShuttingDown | BrokerState::NotRunning => Next::After(interval),
    }
}

/// Starts the group coordinator service (`GroupCoordinatorService.startup` with the partition
/// count of `__consumer_offsets` from metadata, else `offsets.topic.num.partitions`) and elects
/// this broker's coordinators for the partitions it already leads.
fn start_coordinator_service<N: Net>(node: &Rc<Node<N>>, core: &mut Core) {
    if core.runtime.started {
        return;
    }
    let partitions = core
        .image
        .topic(GROUP_METADATA_TOPIC)
        .map(|t| t.partitions.len() as i32)
        .unwrap_or(node.config.offsets_topic_partitions);
    core.runtime.started = true;
    core.runtime.num_partitions = partitions;
    tracing::info!(broker = node.id(), partitions, "group coordinator started");
    let led: Vec<(i32, i32)> = core
        .replicas
        .iter()
        .filter(|(_, s)| s.leading.is_some())
        .map(|(p, s)| (*p, s.leader_epoch))
        .collect();
    for (p, epoch) in led {
        node.on_election(core, p, epoch);
    }
}

/// `beginControlledShutdown`: asks the lifecycle manager to start a controlled shutdown (from
/// RUNNING: PENDING_CONTROLLED_SHUTDOWN and an immediate heartbeat with WantShutDown; from an
/// earlier state: stop at once). Safe to call from outside the broker's runtime.
pub(crate) fn begin_controlled_shutdown<N: Net>(node: &Rc<Node<N>>) {
    node.shutdown_requested.set(true);
    node.lifecycle_wakeup.notify_waiters();
}

/// Stops the broker: SHUTTING_DOWN, coordinators unloaded (pending writes fail with
/// NOT_COORDINATOR), clean-shutdown marker written, every task stopped.
pub(crate) fn stop<N: Net>(node: &Rc<Node<N>>) {
    let mut core = node.core.borrow_mut();
    let core = &mut *core;
    if core.stopped {
        return;
    }
    node.set_state(core, BrokerState::ShuttingDown);
    for p in core.runtime.partitions() {
        node.on_resignation(core, p, None);
    }
    let tokens: Vec<_> = core.pending.keys().copied().collect();
    for t in tokens {
        node.fail_reply(
            core,
            t,
            OperationError::from_runtime(ErrorCode::NotCoordinator),
        );
    }
    if core.broker_epoch >= 0 {
        node.storage.mark_clean_shutdown(core.broker_epoch);
    }
    core.stopped = true;
    tracing::info!(broker = node.id(), "broker stopped");
    node.emit(EventKind::BrokerStopped);
    node.stopped.notify_waiters();
    node.running.notify_waiters();
    for w in [
        &node.timers_changed,
        &node.log_changed,
        &node.alter_partition_wakeup,
        &node.topic_creation_wakeup,
        &node.lifecycle_wakeup,
    ] {
        w.notify_waiters();
    }
    let tasks: Vec<_> = node.tasks.borrow_mut().drain(..).collect();
    for t in tasks {
        t.abort();
    }
}

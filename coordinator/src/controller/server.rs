//! The controller's async shell: the controller listener and the periodic tasks, over any
//! [`Net`]. Single-threaded: every task is spawned with `spawn_local` and shares one
//! [`Controller`] through a `RefCell` that is never held across an await.
//!
//! Served on the controller listener (Kafka's `ControllerApis`): ApiVersions, BrokerRegistration,
//! BrokerHeartbeat, CreateTopics, and regroup's internal metadata fetch and AlterPartition (see
//! [`crate::rpc`]). Any other api, an unsupported version or a malformed frame closes the
//! connection, as Kafka does.

use std::cell::RefCell;
use std::io;
use std::rc::Rc;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::Notify;
use tokio::task::JoinHandle;

use protocol::messages::api_versions_response::ApiVersion;
use protocol::messages::{ApiVersionsResponse, RequestHeader};
use protocol::request::IncomingRequest;
use protocol::response::{api_versions_unsupported_response, encode_response_frame};
use protocol::{Api, ErrorCode, Request, Response};

use super::config::ControllerConfig;
use super::records::MetadataRecord;
use super::state::Controller;
use crate::events::{ClusterEvent, Events};
use crate::net::{Net, NetListener};
use crate::rpc::{
    ALTER_PARTITION, AlterPartitionRequest, FrameError, InboundFrame, METADATA_FETCH,
    MetadataFetchRequest, MetadataFetchResponse, OffsetRecord, decode_inbound,
    encode_internal_response, read_request_frame,
};

/// The apis of the controller listener.
const CONTROLLER_APIS: &[Api] = &[
    Api::CreateTopics,
    Api::CreatePartitions,
    Api::ApiVersions,
    Api::BrokerRegistration,
    Api::BrokerHeartbeat,
];

/// The controller's "disk": the metadata log, kept by whoever runs the controller so that a
/// restarted controller recovers it (a turmoil host restart keeps it, a crash of the whole
/// simulation does not).
#[derive(Debug, Clone, Default)]
pub struct ControllerStorage(Rc<RefCell<Vec<MetadataRecord>>>);

impl ControllerStorage {
    pub fn new() -> Self {
        Self::default()
    }

    /// A copy of the stored log.
    pub fn records(&self) -> Vec<MetadataRecord> {
        self.0.borrow().clone()
    }

    pub fn len(&self) -> usize {
        self.0.borrow().len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.borrow().is_empty()
    }

    fn sync(&self, log: &[MetadataRecord]) {
        let mut stored = self.0.borrow_mut();
        if stored.len() < log.len() {
            let from = stored.len();
            stored.extend_from_slice(&log[from..]);
        }
    }
}

/// A topic change asked of the controller directly, as an admin tool would through a broker
/// (CreatePartitions, DeleteTopics). The simulator's topic faults use it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminOp {
    /// Grow `topic` to `total` partitions.
    CreatePartitions {
        topic: String,
        total: i32,
    },
    DeleteTopic {
        topic: String,
    },
}

/// Admin operations waiting for the controller's admin task.
#[derive(Default)]
struct AdminQueue {
    ops: RefCell<std::collections::VecDeque<AdminOp>>,
    wakeup: Notify,
}

struct Shared<N: Net> {
    net: N,
    admin: Rc<AdminQueue>,
    controller: Rc<RefCell<Controller>>,
    storage: ControllerStorage,
    events: Events,
    node_id: i32,
    /// Woken whenever records are appended (metadata fetches wait on it).
    appended: Notify,
    fetch_max_wait_ms: i64,
}

impl<N: Net> Shared<N> {
    /// Persists new records, forwards events and wakes waiting fetches after an operation.
    fn after_operation(&self, log_len_before: usize) {
        let (events, log_len) = {
            let mut c = self.controller.borrow_mut();
            self.storage.sync(c.log());
            (c.take_events(), c.log().len())
        };
        let now = self.net.now_ms();
        for kind in events {
            self.events.emit(ClusterEvent {
                at_ms: now,
                node: self.node_id,
                kind,
            });
        }
        if log_len > log_len_before {
            self.appended.notify_waiters();
        }
    }

    fn log_len(&self) -> usize {
        self.controller.borrow().log().len()
    }
}

/// A running controller.
pub struct ControllerHandle {
    controller: Rc<RefCell<Controller>>,
    admin: Rc<AdminQueue>,
    addr: String,
    tasks: Vec<JoinHandle<()>>,
}

impl ControllerHandle {
    /// The address the controller listener is bound to.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Reads the controller's state (tests, the simulator's invariants).
    pub fn with_state<R>(&self, f: impl FnOnce(&Controller) -> R) -> R {
        f(&self.controller.borrow())
    }

    /// Queues a topic change; the controller's admin task carries it out in order (an
    /// operation queued when the controller stops is lost, like a request in flight).
    pub fn submit(&self, op: AdminOp) {
        self.admin.ops.borrow_mut().push_back(op);
        self.admin.wakeup.notify_one();
    }

    /// Stops every task of the controller (a crash: nothing is flushed, nothing is answered).
    pub fn abort(&self) {
        for t in &self.tasks {
            t.abort();
        }
    }
}

impl Drop for ControllerHandle {
    fn drop(&mut self) {
        self.abort();
    }
}

/// Binds the controller listener, recovers the log from `storage`, and starts serving. Must be
/// called inside a `LocalSet`.
pub async fn start_controller<N: Net>(
    net: N,
    config: ControllerConfig,
    storage: ControllerStorage,
    events: Events,
) -> io::Result<ControllerHandle> {
    let listener = net.bind(&config.listen).await?;
    let addr = listener.local_addr()?;
    let now = net.now_ms();
    let controller = Controller::recover(config.clone(), storage.records(), now)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?;
    tracing::info!(
        node = config.node_id,
        addr = %addr,
        offset = controller.next_write_offset(),
        cluster_id = %config.cluster_id,
        "controller started"
    );
    let admin = Rc::new(AdminQueue::default());
    let shared = Rc::new(Shared {
        net,
        admin: admin.clone(),
        controller: Rc::new(RefCell::new(controller)),
        storage,
        events,
        node_id: config.node_id,
        appended: Notify::new(),
        fetch_max_wait_ms: config.metadata_fetch_max_wait_ms,
    });
    shared.after_operation(0);
    let controller = shared.controller.clone();
    let mut tasks = Vec::new();
    let accept_shared = shared.clone();
    tasks.push(tokio::task::spawn_local(async move {
        accept_loop(accept_shared, listener).await;
    }));
    let timer_shared = shared.clone();
    tasks.push(tokio::task::spawn_local(async move {
        timer_loop(timer_shared).await;
    }));
    let admin_shared = shared.clone();
    tasks.push(tokio::task::spawn_local(async move {
        admin_loop(admin_shared).await;
    }));
    Ok(ControllerHandle {
        controller,
        admin,
        addr,
        tasks,
    })
}

/// Runs a controller until its tasks end (they do not, unless the runtime stops).
pub async fn run_controller<N: Net>(
    net: N,
    config: ControllerConfig,
    storage: ControllerStorage,
    events: Events,
) -> io::Result<()> {
    let handle = start_controller(net, config, storage, events).await?;
    std::future::pending::<()>().await;
    drop(handle);
    Ok(())
}

async fn admin_loop<N: Net>(shared: Rc<Shared<N>>) {
    loop {
        let next = shared.admin.ops.borrow_mut().pop_front();
        let Some(op) = next else {
            shared.admin.wakeup.notified().await;
            continue;
        };
        let before = shared.log_len();
        let result = {
            let mut c = shared.controller.borrow_mut();
            match &op {
                AdminOp::CreatePartitions { topic, total } => {
                    c.create_partitions(topic, *total).map(|_| ())
                }
                AdminOp::DeleteTopic { topic } => c.delete_topic(topic),
            }
        };
        if let Err((code, message)) = result {
            tracing::info!(?op, error = code.name(), %message, "admin operation refused");
        }
        shared.after_operation(before);
    }
}

async fn timer_loop<N: Net>(shared: Rc<Shared<N>>) {
    loop {
        let due = shared.controller.borrow().next_timer_ms();
        let wait = (due - shared.net.now_ms()).max(0) as u64;
        tokio::time::sleep(Duration::from_millis(wait)).await;
        let before = shared.log_len();
        let now = shared.net.now_ms();
        shared.controller.borrow_mut().run_timers(now);
        shared.after_operation(before);
    }
}

async fn accept_loop<N: Net>(shared: Rc<Shared<N>>, listener: N::Listener) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let shared = shared.clone();
                tokio::task::spawn_local(async move {
                    serve_connection(shared, stream, peer).await;
                });
            }
            Err(e) => {
                tracing::warn!(error = %e, "controller accept failed");
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
}

async fn serve_connection<N: Net>(shared: Rc<Shared<N>>, mut stream: N::Stream, peer: String) {
    loop {
        let frame = match read_request_frame(&mut stream).await {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(e) => {
                tracing::info!(peer = %peer, error = %e, "closing controller connection: bad frame");
                return;
            }
        };
        let reply = match decode_inbound(frame, true) {
            Ok(inbound) => handle(&shared, inbound).await,
            Err(e) => Err(e.to_string()),
        };
        match reply {
            Ok(bytes) => {
                if protocol::frame::write_frame(&mut stream, &bytes)
                    .await
                    .is_err()
                {
                    return;
                }
            }
            Err(reason) => {
                tracing::info!(peer = %peer, reason = %reason, "closing controller connection");
                return;
            }
        }
    }
}

fn kafka_reply(header: &RequestHeader, response: Response) -> Result<Bytes, String> {
    let api = response.api();
    encode_response_frame(
        header.correlation_id,
        api,
        header.request_api_version,
        &response,
    )
    .map(|b| b.freeze())
    .map_err(|e| e.to_string())
}

fn controller_api_versions() -> ApiVersionsResponse {
    ApiVersionsResponse::default().with_api_keys(
        CONTROLLER_APIS
            .iter()
            .map(|api| {
                ApiVersion::default()
                    .with_api_key(api.key())
                    .with_min_version(api.min_version())
                    .with_max_version(api.max_version())
            })
            .collect(),
    )
}

async fn handle<N: Net>(shared: &Rc<Shared<N>>, inbound: InboundFrame) -> Result<Bytes, String> {
    match inbound {
        InboundFrame::Kafka(IncomingRequest::UnsupportedApiVersions { header }) => {
            encode_response_frame(
                header.correlation_id,
                Api::ApiVersions,
                0,
                &api_versions_unsupported_response(),
            )
            .map(|b| b.freeze())
            .map_err(|e| e.to_string())
        }
        InboundFrame::Kafka(IncomingRequest::Request { header, request }) => {
            let before = shared.log_len();
            let now = shared.net.now_ms();
            let version = header.request_api_version;
            let response: Response = match &request {
                Request::ApiVersions(_) => controller_api_versions().into(),
                Request::BrokerRegistration(r) => shared
                    .controller
                    .borrow_mut()
                    .register_broker(r, version, now)
                    .into(),
                Request::BrokerHeartbeat(r) => shared
                    .controller
                    .borrow_mut()
                    .broker_heartbeat(r, now)
                    .into(),
                Request::CreateTopics(r) => shared
                    .controller
                    .borrow_mut()
                    .create_topics(r, version)
                    .into(),
                Request::CreatePartitions(r) => shared
                    .controller
                    .borrow_mut()
                    .create_partitions_request(r)
                    .into(),
                other => {
                    return Err(format!(
                        "{} is not served on the controller listener",
                        other.api()
                    ));
                }
            };
            shared.after_operation(before);
            kafka_reply(&header, response)
        }
        InboundFrame::Internal {
            api_key,
            correlation_id,
            body,
        } => match api_key {
            METADATA_FETCH => {
                let request: MetadataFetchRequest = serde_json::from_slice(&body)
                    .map_err(|e| format!("metadata fetch body: {e}"))?;
                let response = metadata_fetch(shared, &request).await;
                Ok(encode_internal_response(correlation_id, &response).freeze())
            }
            ALTER_PARTITION => {
                let request: AlterPartitionRequest = serde_json::from_slice(&body)
                    .map_err(|e| format!("alter partition body: {e}"))?;
                let before = shared.log_len();
                let response = shared.controller.borrow_mut().alter_partition(&request);
                shared.after_operation(before);
                Ok(encode_internal_response(correlation_id, &response).freeze())
            }
            other => {
                Err(FrameError::Internal(format!("unknown internal api key {other}")).to_string())
            }
        },
    }
}

async fn metadata_fetch<N: Net>(
    shared: &Rc<Shared<N>>,
    request: &MetadataFetchRequest,
) -> MetadataFetchResponse {
    let max_wait = request
        .max_wait_ms
        .clamp(0, shared.fetch_max_wait_ms.max(0));
    let deadline = tokio::time::Instant::now() + Duration::from_millis(max_wait as u64);
    loop {
        // Registered before the check, so an append between the check and the wait is seen.
        let notified = shared.appended.notified();
        {
            let c = shared.controller.borrow();
            if request.cluster_id != c.config().cluster_id {
                return MetadataFetchResponse {
                    error_code: ErrorCode::InconsistentClusterId.code(),
                    records: Vec::new(),
                    end_offset: c.next_write_offset(),
                };
            }
            let end = c.next_write_offset();
            if request.fetch_offset < 0 || request.fetch_offset > end {
                return MetadataFetchResponse {
                    error_code: ErrorCode::OffsetOutOfRange.code(),
                    records: Vec::new(),
                    end_offset: end,
                };
            }
            if request.fetch_offset < end || tokio::time::Instant::now() >= deadline {
                let from = request.fetch_offset as usize;
                let to = (from + request.max_records.max(1)).min(end as usize);
                return MetadataFetchResponse {
                    error_code: 0,
                    records: c.log()[from..to]
                        .iter()
                        .enumerate()
                        .map(|(i, record)| OffsetRecord {
                            offset: (from + i) as i64,
                            record: record.clone(),
                        })
                        .collect(),
                    end_offset: end,
                };
            }
        }
        let _ = tokio::time::timeout_at(deadline, notified).await;
    }
}

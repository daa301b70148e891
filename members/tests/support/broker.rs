//! A one-shard test broker: accepts connections on a [`super::net::MemNet`], runs every group
//! request through one real `coordinator::Shard`, fires the shard's timers on the tokio clock, and
//! answers ApiVersions, FindCoordinator and Metadata itself. Replies the shard parks (classic
//! joins and syncs) go to the right connection when they complete. Internal topics a streams
//! group asks for are created at once.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use bytes::BytesMut;
use coordinator::config::ShardConfig;
use coordinator::topics::{TopicMetadata, TopicsImage};
use coordinator::{Outcome, RequestContext, RequestToken, Shard};
use protocol::frame::{FrameReader, write_frame};
use protocol::messages::api_versions_response::ApiVersion;
use protocol::messages::find_coordinator_response::Coordinator;
use protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use protocol::messages::{
    ApiVersionsResponse, BrokerId, FindCoordinatorResponse, MetadataResponse, StrBytes,
};
use protocol::net::{Net, NetListener, client_host};
use protocol::request::{IncomingRequest, decode_request_frame};
use protocol::response::{api_versions_unsupported_response, encode_response_frame};
use protocol::{Api, ErrorCode, Request, Response};
use tokio::sync::{Notify, mpsc};
use tokio::task::JoinHandle;

use super::net::MemNet;

/// A request the shard answered, as the test can inspect it afterwards.
#[derive(Debug, Clone)]
pub struct Exchange {
    pub at_ms: i64,
    pub client_id: String,
    pub request: Request,
    pub response: Option<Response>,
}

struct Parked {
    conn: u64,
    correlation_id: i32,
    api: Api,
    version: i16,
    request_index: usize,
}

struct State {
    shard: Shard,
    topics: TopicsImage,
    host: String,
    port: i32,
    conns: BTreeMap<u64, mpsc::UnboundedSender<BytesMut>>,
    parked: BTreeMap<u64, Parked>,
    next_token: u64,
    next_conn: u64,
    log: Vec<Exchange>,
    /// While set, group requests are answered with this error (FindCoordinator too).
    unavailable: Option<ErrorCode>,
}

/// A running test broker.
pub struct TestBroker {
    state: Rc<RefCell<State>>,
    net: MemNet,
    addr: String,
    tasks: Vec<JoinHandle<()>>,
}

impl TestBroker {
    /// Listens on `addr` (`host:port`) with a shard configured by `config` and the given topics.
    pub async fn start(net: MemNet, addr: &str, config: ShardConfig, topics: TopicsImage) -> Self {
        let (host, port) = protocol::net::split_host_port(addr).expect("host:port");
        let mut shard = Shard::new(config);
        shard.set_topics(topics.clone());
        let state = Rc::new(RefCell::new(State {
            shard,
            topics,
            host: host.to_string(),
            port: i32::from(port),
            conns: BTreeMap::new(),
            parked: BTreeMap::new(),
            next_token: 0,
            next_conn: 0,
            log: Vec::new(),
            unavailable: None,
        }));
        let listener = net.bind(addr).await.expect("bind");
        let timers = Rc::new(Notify::new());
        let mut tasks = Vec::new();
        {
            let state = state.clone();
            let net = net.clone();
            let timers = timers.clone();
            tasks.push(tokio::task::spawn_local(async move {
                while let Ok((stream, peer)) = listener.accept().await {
                    let id = {
                        let mut s = state.borrow_mut();
                        s.next_conn += 1;
                        s.next_conn
                    };
                    tokio::task::spawn_local(serve(
                        state.clone(),
                        net.clone(),
                        timers.clone(),
                        id,
                        stream,
                        peer,
                    ));
                }
            }));
        }
        {
            let state = state.clone();
            let net = net.clone();
            tasks.push(tokio::task::spawn_local(async move {
                loop {
                    let next = state.borrow().shard.next_deadline();
                    let now = net.now_ms();
                    match next {
                        Some(deadline) if deadline <= now => {
                            let fired = state.borrow_mut().shard.expire(now);
                            for f in fired {
                                deliver(&state, f.outcome);
                            }
                        }
                        Some(deadline) => {
                            let wait = Duration::from_millis((deadline - now) as u64);
                            tokio::select! {
                                biased;
                                _ = timers.notified() => {}
                                _ = tokio::time::sleep(wait) => {}
                            }
                        }
                        None => timers.notified().await,
                    }
                }
            }));
        }
        Self {
            state,
            net,
            addr: addr.to_string(),
            tasks,
        }
    }

    pub fn addr(&self) -> String {
        self.addr.clone()
    }

    /// Reads the shard.
    pub fn with_shard<T>(&self, f: impl FnOnce(&Shard) -> T) -> T {
        f(&self.state.borrow().shard)
    }

    /// Every request the shard handled so far, in order.
    pub fn log(&self) -> Vec<Exchange> {
        self.state.borrow().log.clone()
    }

    /// Answers FindCoordinator and every group request with `error` until cleared.
    pub fn set_unavailable(&self, error: Option<ErrorCode>) {
        self.state.borrow_mut().unavailable = error;
    }

    pub fn now_ms(&self) -> i64 {
        self.net.now_ms()
    }
}

impl Drop for TestBroker {
    fn drop(&mut self) {
        for t in self.tasks.drain(..) {
            t.abort();
        }
    }
}

async fn serve(
    state: Rc<RefCell<State>>,
    net: MemNet,
    timers: Rc<Notify>,
    conn: u64,
    stream: super::net::GatedStream,
    peer: String,
) {
    let (mut read_half, mut write_half) = tokio::io::split(stream);
    let (tx, mut rx) = mpsc::unbounded_channel::<BytesMut>();
    state.borrow_mut().conns.insert(conn, tx.clone());
    let writer = tokio::task::spawn_local(async move {
        while let Some(frame) = rx.recv().await {
            if write_frame(&mut write_half, &frame).await.is_err() {
                return;
            }
        }
    });
    let frames = FrameReader::new();
    while let Ok(Some(body)) = frames.read(&mut read_half).await {
        let incoming = match decode_request_frame(body) {
            Ok(i) => i,
            Err(_) => break,
        };
        match incoming {
            IncomingRequest::UnsupportedApiVersions { header } => {
                let frame = encode_response_frame(
                    header.correlation_id,
                    Api::ApiVersions,
                    0,
                    &api_versions_unsupported_response(),
                )
                .expect("encode");
                let _ = tx.send(frame);
            }
            IncomingRequest::Request { header, request } => {
                let version = header.request_api_version;
                let corr = header.correlation_id;
                let client_id = header
                    .client_id
                    .as_ref()
                    .map(|c| c.to_string())
                    .unwrap_or_default();
                let api = request.api();
                let now = net.now_ms();
                let direct = answer_directly(&state, &request);
                if let Some(response) = direct {
                    let frame =
                        encode_response_frame(corr, api, version, &response).expect("encode");
                    let _ = tx.send(frame);
                    continue;
                }
                let unavailable = state.borrow().unavailable;
                if let Some(error) = unavailable
                    && let Some(response) = error_response(&request, error)
                {
                    let frame =
                        encode_response_frame(corr, api, version, &response).expect("encode");
                    let _ = tx.send(frame);
                    continue;
                }
                let outcome = {
                    let mut s = state.borrow_mut();
                    s.next_token += 1;
                    let token = RequestToken(s.next_token);
                    let index = s.log.len();
                    s.log.push(Exchange {
                        at_ms: now,
                        client_id: client_id.clone(),
                        request: request.clone(),
                        response: None,
                    });
                    s.parked.insert(
                        token.0,
                        Parked {
                            conn,
                            correlation_id: corr,
                            api,
                            version,
                            request_index: index,
                        },
                    );
                    let ctx = RequestContext::new(client_id, client_host(&peer), version);
                    match s.shard.handle(token, &ctx, &request, now) {
                        Ok(outcome) => outcome,
                        Err(_) => {
                            s.parked.remove(&token.0);
                            continue;
                        }
                    }
                };
                deliver(&state, outcome);
                timers.notify_one();
            }
        }
    }
    state.borrow_mut().conns.remove(&conn);
    drop(tx);
    let _ = writer.await;
}

/// Creates requested internal topics and sends every reply of `outcome` to its connection.
fn deliver(state: &Rc<RefCell<State>>, outcome: Outcome) {
    let mut s = state.borrow_mut();
    if !outcome.topics_to_create.is_empty() {
        for topic in outcome.topics_to_create.values() {
            if s.topics.get(&topic.name).is_none() {
                s.topics.upsert(TopicMetadata::new(
                    topic.name.clone(),
                    topic.partitions.max(1),
                ));
            }
        }
        let topics = s.topics.clone();
        s.shard.set_topics(topics);
    }
    for reply in outcome.replies {
        let Some(parked) = s.parked.remove(&reply.token.0) else {
            continue;
        };
        if let Some(entry) = s.log.get_mut(parked.request_index) {
            entry.response = Some(reply.response.clone());
        }
        let Some(tx) = s.conns.get(&parked.conn) else {
            continue;
        };
        let frame = encode_response_frame(
            parked.correlation_id,
            parked.api,
            parked.version,
            &reply.response,
        )
        .expect("encode");
        let _ = tx.send(frame);
    }
}

fn s(text: &str) -> StrBytes {
    StrBytes::from_string(text.to_string())
}

/// ApiVersions, FindCoordinator and Metadata, which a broker answers without its coordinator.
fn answer_directly(state: &Rc<RefCell<State>>, request: &Request) -> Option<Response> {
    let st = state.borrow();
    match request {
        Request::ApiVersions(_) => Some(Response::ApiVersions(
            ApiVersionsResponse::default().with_api_keys(
                Api::ALL
                    .iter()
                    .map(|a| {
                        ApiVersion::default()
                            .with_api_key(a.key())
                            .with_min_version(a.min_version())
                            .with_max_version(a.max_version())
                    })
                    .collect(),
            ),
        )),
        Request::FindCoordinator(r) => {
            let error = st.unavailable.map_or(0, |e| e.code());
            let (node, host, port) = if error == 0 {
                (0, st.host.clone(), st.port)
            } else {
                (-1, String::new(), -1)
            };
            let mut response = FindCoordinatorResponse::default();
            if r.coordinator_keys.is_empty() {
                response = response
                    .with_error_code(error)
                    .with_node_id(BrokerId(node))
                    .with_host(s(&host))
                    .with_port(port);
            } else {
                response = response.with_coordinators(
                    r.coordinator_keys
                        .iter()
                        .map(|k| {
                            Coordinator::default()
                                .with_key(k.clone())
                                .with_error_code(error)
                                .with_node_id(BrokerId(node))
                                .with_host(s(&host))
                                .with_port(port)
                        })
                        .collect(),
                );
            }
            Some(Response::FindCoordinator(response))
        }
        Request::Metadata(r) => {
            let wanted: Vec<String> = match &r.topics {
                Some(list) => list
                    .iter()
                    .filter_map(|t| t.name.as_ref().map(|n| n.to_string()))
                    .collect(),
                None => st.topics.iter().map(|t| t.name.clone()).collect(),
            };
            let topics = wanted
                .iter()
                .map(|name| match st.topics.get(name) {
                    Some(t) => MetadataResponseTopic::default()
                        .with_name(Some(s(name).into()))
                        .with_topic_id(t.id)
                        .with_partitions(
                            (0..t.partitions)
                                .map(|p| {
                                    MetadataResponsePartition::default()
                                        .with_partition_index(p)
                                        .with_leader_id(BrokerId(0))
                                        .with_replica_nodes(vec![BrokerId(0)])
                                        .with_isr_nodes(vec![BrokerId(0)])
                                })
                                .collect(),
                        ),
                    None => MetadataResponseTopic::default()
                        .with_name(Some(s(name).into()))
                        .with_error_code(ErrorCode::UnknownTopicOrPartition.code()),
                })
                .collect();
            Some(Response::Metadata(
                MetadataResponse::default()
                    .with_brokers(vec![
                        MetadataResponseBroker::default()
                            .with_node_id(BrokerId(0))
                            .with_host(s(&st.host))
                            .with_port(st.port),
                    ])
                    .with_cluster_id(Some(s("regroup-test")))
                    .with_controller_id(BrokerId(0))
                    .with_topics(topics),
            ))
        }
        _ => None,
    }
}

/// The answer to a group request while the coordinator is "unavailable".
fn error_response(request: &Request, error: ErrorCode) -> Option<Response> {
    use protocol::messages::*;
    let code = error.code();
    Some(match request {
        Request::StreamsGroupHeartbeat(_) => Response::StreamsGroupHeartbeat(
            StreamsGroupHeartbeatResponse::default().with_error_code(code),
        ),
        Request::JoinGroup(_) => {
            Response::JoinGroup(JoinGroupResponse::default().with_error_code(code))
        }
        Request::SyncGroup(_) => {
            Response::SyncGroup(SyncGroupResponse::default().with_error_code(code))
        }
        Request::Heartbeat(_) => {
            Response::Heartbeat(HeartbeatResponse::default().with_error_code(code))
        }
        _ => return None,
    })
}

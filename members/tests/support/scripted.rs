//! A broker whose group answers come from the test: it answers ApiVersions (optionally with a
//! custom api list), FindCoordinator (itself) and Metadata, and hands every other request to a
//! script that returns the response, or `None` to never answer.

use std::cell::RefCell;
use std::rc::Rc;

use bytes::BytesMut;
use protocol::frame::{FrameReader, write_frame};
use protocol::messages::api_versions_response::ApiVersion;
use protocol::messages::find_coordinator_response::Coordinator;
use protocol::messages::metadata_response::{
    MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic,
};
use protocol::messages::{
    ApiVersionsResponse, BrokerId, FindCoordinatorResponse, MetadataResponse, StrBytes,
};
use protocol::net::{Net, NetListener};
use protocol::request::{IncomingRequest, decode_request_frame};
use protocol::response::{api_versions_unsupported_response, encode_response_frame};
use protocol::{Api, Request, Response};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::net::MemNet;

/// One request the scripted broker received.
#[derive(Debug, Clone)]
pub struct Received {
    pub at_ms: i64,
    pub connection: u64,
    pub version: i16,
    pub request: Request,
}

type Script = Box<dyn FnMut(u64, &Request, i64) -> Option<Response>>;

struct State {
    received: Vec<Received>,
    script: Script,
    /// (api key, min, max) to advertise; `None` = every api at regroup's range.
    api_versions: Option<Vec<(i16, i16, i16)>>,
    /// Highest ApiVersions version served (KIP-511 fallback above it).
    max_api_versions_version: i16,
    host: String,
    port: i32,
    topics: Vec<(String, i32)>,
    next_conn: u64,
    /// `(held, until)`: responses to `held` requests are withheld and written together with the
    /// response to the next `until` request that arrives while one is withheld, in one write (two
    /// responses the client reads at once).
    hold: Option<(Api, Api)>,
}

pub struct ScriptedBroker {
    state: Rc<RefCell<State>>,
    task: JoinHandle<()>,
}

fn s(t: &str) -> StrBytes {
    StrBytes::from_string(t.to_string())
}

impl ScriptedBroker {
    pub async fn start(
        net: MemNet,
        addr: &str,
        topics: &[(&str, i32)],
        script: impl FnMut(u64, &Request, i64) -> Option<Response> + 'static,
    ) -> Self {
        let (host, port) = protocol::net::split_host_port(addr).unwrap();
        let state = Rc::new(RefCell::new(State {
            received: Vec::new(),
            script: Box::new(script),
            api_versions: None,
            max_api_versions_version: Api::ApiVersions.max_version(),
            host: host.to_string(),
            port: i32::from(port),
            topics: topics.iter().map(|(t, p)| (t.to_string(), *p)).collect(),
            next_conn: 0,
            hold: None,
        }));
        let listener = net.bind(addr).await.unwrap();
        let st = state.clone();
        let clock = net.clone();
        let task = tokio::task::spawn_local(async move {
            while let Ok((stream, _peer)) = listener.accept().await {
                let conn = {
                    let mut s = st.borrow_mut();
                    s.next_conn += 1;
                    s.next_conn
                };
                tokio::task::spawn_local(serve(st.clone(), clock.clone(), conn, stream));
            }
        });
        Self { state, task }
    }

    /// Advertise only these (api, min, max) ranges.
    pub fn set_api_versions(&self, list: Vec<(Api, i16, i16)>) {
        self.state.borrow_mut().api_versions = Some(
            list.into_iter()
                .map(|(a, lo, hi)| (a.key(), lo, hi))
                .collect(),
        );
    }

    /// Serve ApiVersions only up to `version` (answer higher ones with KIP-511's fallback).
    pub fn set_max_api_versions_version(&self, version: i16) {
        self.state.borrow_mut().max_api_versions_version = version;
    }

    /// From now on, withhold the responses to `held` requests until a response to `until` has
    /// been written, then write them right after it (once).
    pub fn hold_responses(&self, held: Api, until: Api) {
        self.state.borrow_mut().hold = Some((held, until));
    }

    pub fn received(&self) -> Vec<Received> {
        self.state.borrow().received.clone()
    }

    /// The requests of `api`, in arrival order.
    pub fn of(&self, api: Api) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|r| r.request.api() == api)
            .collect()
    }
}

impl Drop for ScriptedBroker {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn serve(state: Rc<RefCell<State>>, net: MemNet, conn: u64, stream: super::net::GatedStream) {
    let (mut r, mut w) = tokio::io::split(stream);
    let (tx, mut rx) = mpsc::unbounded_channel::<BytesMut>();
    let writer = tokio::task::spawn_local(async move {
        while let Some(f) = rx.recv().await {
            if write_frame(&mut w, &f).await.is_err() {
                return;
            }
        }
    });
    let frames = FrameReader::new();
    let mut held: Vec<BytesMut> = Vec::new();
    while let Ok(Some(body)) = frames.read(&mut r).await {
        let Ok(incoming) = decode_request_frame(body) else {
            break;
        };
        let (header, request) = match incoming {
            IncomingRequest::UnsupportedApiVersions { header } => {
                let f = encode_response_frame(
                    header.correlation_id,
                    Api::ApiVersions,
                    0,
                    &api_versions_unsupported_response(),
                )
                .unwrap();
                let _ = tx.send(f);
                continue;
            }
            IncomingRequest::Request { header, request } => (header, request),
        };
        let version = header.request_api_version;
        let api = request.api();
        let now = net.now_ms();
        state.borrow_mut().received.push(Received {
            at_ms: now,
            connection: conn,
            version,
            request: request.clone(),
        });
        let response = {
            let mut st = state.borrow_mut();
            match &request {
                Request::ApiVersions(_) if version > st.max_api_versions_version => {
                    let mut answer = api_versions_unsupported_response();
                    if let Response::ApiVersions(a) = &mut answer {
                        a.api_keys[0].max_version = st.max_api_versions_version;
                    }
                    let f = encode_response_frame(header.correlation_id, api, 0, &answer).unwrap();
                    let _ = tx.send(f);
                    continue;
                }
                Request::ApiVersions(_) => {
                    let keys = st.api_versions.clone().unwrap_or_else(|| {
                        Api::ALL
                            .iter()
                            .map(|a| (a.key(), a.min_version(), a.max_version()))
                            .collect()
                    });
                    Some(Response::ApiVersions(
                        ApiVersionsResponse::default().with_api_keys(
                            keys.into_iter()
                                .map(|(k, lo, hi)| {
                                    ApiVersion::default()
                                        .with_api_key(k)
                                        .with_min_version(lo)
                                        .with_max_version(hi)
                                })
                                .collect(),
                        ),
                    ))
                }
                Request::FindCoordinator(r) => {
                    let mut resp = FindCoordinatorResponse::default();
                    if r.coordinator_keys.is_empty() {
                        resp = resp
                            .with_node_id(BrokerId(0))
                            .with_host(s(&st.host))
                            .with_port(st.port);
                    } else {
                        resp = resp.with_coordinators(
                            r.coordinator_keys
                                .iter()
                                .map(|k| {
                                    Coordinator::default()
                                        .with_key(k.clone())
                                        .with_node_id(BrokerId(0))
                                        .with_host(s(&st.host))
                                        .with_port(st.port)
                                })
                                .collect(),
                        );
                    }
                    Some(Response::FindCoordinator(resp))
                }
                Request::Metadata(_) => Some(Response::Metadata(
                    MetadataResponse::default()
                        .with_brokers(vec![
                            MetadataResponseBroker::default()
                                .with_node_id(BrokerId(0))
                                .with_host(s(&st.host))
                                .with_port(st.port),
                        ])
                        .with_topics(
                            st.topics
                                .iter()
                                .map(|(t, n)| {
                                    MetadataResponseTopic::default()
                                        .with_name(Some(s(t).into()))
                                        .with_topic_id(uuid::Uuid::from_u128(
                                            t.bytes().fold(7u128, |a, b| a * 31 + u128::from(b)),
                                        ))
                                        .with_partitions(
                                            (0..*n)
                                                .map(|p| {
                                                    MetadataResponsePartition::default()
                                                        .with_partition_index(p)
                                                })
                                                .collect(),
                                        )
                                })
                                .collect(),
                        ),
                )),
                other => (st.script)(conn, other, now),
            }
        };
        if let Some(response) = response {
            let f = encode_response_frame(header.correlation_id, api, version, &response).unwrap();
            let hold = state.borrow().hold;
            match hold {
                Some((h, _)) if h == api => held.push(f),
                Some((_, until)) if until == api && !held.is_empty() => {
                    // One write, so the client reads both responses before it acts on either.
                    let mut both = f;
                    for h in held.drain(..) {
                        both.extend_from_slice(&h);
                    }
                    let _ = tx.send(both);
                    state.borrow_mut().hold = None;
                }
                _ => {
                    let _ = tx.send(f);
                }
            }
        }
    }
    drop(tx);
    let _ = writer.await;
}

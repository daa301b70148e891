//! Connections to brokers, as Kafka's `NetworkClient` keeps them for one client instance: one
//! connection per broker address, an ApiVersions handshake when it opens, correlation ids,
//! request timeouts, and reconnect backoff.
//!
//! turmoil's TCP never retransmits, so a connection whose bytes stop flowing would hang forever;
//! like the Java client, a request that gets no answer within its timeout closes the connection
//! (failing every other request in flight on it), and the next request opens a new one.

mod connection;
mod errors;

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use protocol::messages::{ApiVersionsRequest, RequestHeader, StrBytes};
use protocol::net::Net;
use protocol::{Api, ErrorCode, Request, Response};
use rand_chacha::ChaCha8Rng;
use tokio::time::Instant;

use crate::backoff::ExponentialBackoff;
use crate::observer::{Emitter, EventKind, RequestFailure};
use connection::Connection;
pub use errors::response_error;

/// The transport settings of one client (Kafka's `CommonClientConfigs` names in the comments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectionConfig {
    /// `client.id`, sent in every request header.
    pub client_id: String,
    /// `request.timeout.ms` (default 30000).
    pub request_timeout_ms: u64,
    /// `socket.connection.setup.timeout.ms` (default 10000).
    pub connection_setup_timeout_ms: u64,
    /// `reconnect.backoff.ms` (default 50).
    pub reconnect_backoff_ms: u64,
    /// `reconnect.backoff.max.ms` (default 1000).
    pub reconnect_backoff_max_ms: u64,
    /// Highest version this client sends per api, below Kafka 4.4's (e.g. to model librdkafka's
    /// JoinGroup v5). Apis not listed use the newest version both sides support.
    pub version_caps: BTreeMap<Api, i16>,
}

impl ConnectionConfig {
    /// Kafka's defaults with `client_id`.
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            request_timeout_ms: 30_000,
            connection_setup_timeout_ms: 10_000,
            reconnect_backoff_ms: 50,
            reconnect_backoff_max_ms: 1_000,
            version_caps: BTreeMap::new(),
        }
    }
}

/// The name and version sent in ApiVersions (KIP-511).
const SOFTWARE_NAME: &str = "regroup-members";
const SOFTWARE_VERSION: &str = env!("CARGO_PKG_VERSION");

/// Reconnect bookkeeping for one broker address.
#[derive(Debug, Clone, Copy)]
struct Reconnect {
    failures: u32,
    not_before: Instant,
}

struct State {
    conns: BTreeMap<String, Rc<Connection>>,
    /// Serialises connection setup per address (two requests must not open two connections).
    setup_locks: BTreeMap<String, Rc<tokio::sync::Mutex<()>>>,
    reconnect: BTreeMap<String, Reconnect>,
    next_correlation_id: i32,
    next_connection_id: u64,
    /// Rotation over the bootstrap addresses for requests any broker can answer.
    next_bootstrap: usize,
    /// Brokers learned from Metadata responses, by node id.
    brokers: BTreeMap<i32, String>,
}

/// One client instance's connections (one `KafkaConsumer`'s `NetworkClient`).
pub struct KafkaClient<N: Net> {
    net: N,
    config: ConnectionConfig,
    bootstrap: Vec<String>,
    emitter: Emitter,
    rng: Rc<RefCell<ChaCha8Rng>>,
    reconnect_backoff: ExponentialBackoff,
    state: RefCell<State>,
}

impl<N: Net> KafkaClient<N> {
    pub(crate) fn new(
        net: N,
        config: ConnectionConfig,
        bootstrap: Vec<String>,
        emitter: Emitter,
        rng: Rc<RefCell<ChaCha8Rng>>,
    ) -> Rc<Self> {
        let reconnect_backoff =
            ExponentialBackoff::retry(config.reconnect_backoff_ms, config.reconnect_backoff_max_ms);
        Rc::new(Self {
            net,
            config,
            bootstrap,
            emitter,
            rng,
            reconnect_backoff,
            state: RefCell::new(State {
                conns: BTreeMap::new(),
                setup_locks: BTreeMap::new(),
                reconnect: BTreeMap::new(),
                next_correlation_id: 0,
                next_connection_id: 0,
                next_bootstrap: 0,
                brokers: BTreeMap::new(),
            }),
        })
    }

    /// A client of its own (not part of a member), reporting its transport events as `name`.
    pub fn standalone(
        net: N,
        config: ConnectionConfig,
        bootstrap: Vec<String>,
        name: &str,
        rng: &mut impl rand::RngCore,
        observer: Rc<dyn crate::observer::Observer>,
    ) -> Rc<Self> {
        use rand::SeedableRng;
        let clock_net = net.clone();
        let emitter = Emitter::new(
            observer,
            Rc::new(move || clock_net.now_ms()),
            crate::observer::ClientRef {
                kind: crate::observer::ClientKind::Raw,
                name: name.to_string(),
                group_id: String::new(),
                instance_id: None,
                process_id: String::new(),
            },
        );
        let rng = Rc::new(RefCell::new(ChaCha8Rng::from_rng(rng)));
        Self::new(net, config, bootstrap, emitter, rng)
    }

    pub fn config(&self) -> &ConnectionConfig {
        &self.config
    }

    /// The bootstrap addresses, in the order given.
    pub fn bootstrap(&self) -> Vec<String> {
        self.bootstrap.clone()
    }

    /// Records the brokers a Metadata response listed (node id -> `host:port`).
    pub fn learn_brokers(&self, brokers: impl IntoIterator<Item = (i32, String)>) {
        let mut state = self.state.borrow_mut();
        for (id, addr) in brokers {
            state.brokers.insert(id, addr);
        }
    }

    /// A broker to send a request any broker can answer to (FindCoordinator, Metadata): one with
    /// an open connection if there is one (the fewest requests in flight, then the lowest address),
    /// else the next bootstrap address in rotation.
    pub fn any_broker(&self) -> String {
        let mut state = self.state.borrow_mut();
        let open = state
            .conns
            .iter()
            .filter(|(_, c)| !c.is_closed())
            .min_by_key(|(addr, c)| (c.in_flight(), (*addr).clone()))
            .map(|(addr, _)| addr.clone());
        if let Some(addr) = open {
            return addr;
        }
        if self.bootstrap.is_empty() {
            return state.brokers.values().next().cloned().unwrap_or_default();
        }
        let i = state.next_bootstrap % self.bootstrap.len();
        state.next_bootstrap = state.next_bootstrap.wrapping_add(1);
        self.bootstrap[i].clone()
    }

    /// Sends `request` to `broker` and waits for its response, with the configured request timeout.
    pub async fn send(&self, broker: &str, request: Request) -> Result<Response, RequestFailure> {
        let api = request.api();
        self.send_built(broker, api, self.config.request_timeout_ms, |_| request)
            .await
    }

    /// Sends `request` to `broker` and waits at most `timeout_ms` for its response. On a timeout
    /// the connection is closed, as Kafka's `NetworkClient` does.
    pub async fn send_with_timeout(
        &self,
        broker: &str,
        request: Request,
        timeout_ms: u64,
    ) -> Result<Response, RequestFailure> {
        let api = request.api();
        self.send_built(broker, api, timeout_ms, |_| request).await
    }

    /// Like [`Self::send_with_timeout`], for a request whose shape depends on the version
    /// negotiated with the broker (`build` receives it), e.g. FindCoordinator v4+ batches keys and
    /// OffsetCommit v10 names topics by id.
    pub async fn send_built(
        &self,
        broker: &str,
        api: Api,
        timeout_ms: u64,
        build: impl FnOnce(i16) -> Request,
    ) -> Result<Response, RequestFailure> {
        self.send_built_capped(broker, api, None, timeout_ms, build)
            .await
    }

    /// Like [`Self::send_built`], never above version `cap` (e.g. OffsetCommit stays at v9 when
    /// a topic id is unknown, as the Java client's `forTopicNames` builder does).
    pub async fn send_built_capped(
        &self,
        broker: &str,
        api: Api,
        cap: Option<i16>,
        timeout_ms: u64,
        build: impl FnOnce(i16) -> Request,
    ) -> Result<Response, RequestFailure> {
        self.send_built_capped_until(broker, api, cap, timeout_ms, build, std::future::pending())
            .await
    }

    /// Like [`Self::send_built_capped`], given up when `disconnect` resolves first (with the
    /// reason it gives): the request fails with a disconnect and its answer, if one comes, is
    /// ignored. This is what Kafka's `ConsumerNetworkClient.disconnectAsync` does to the requests
    /// queued for or in flight to a node, e.g. when a consumer drops its coordinator.
    pub async fn send_built_capped_until(
        &self,
        broker: &str,
        api: Api,
        cap: Option<i16>,
        timeout_ms: u64,
        build: impl FnOnce(i16) -> Request,
        disconnect: impl std::future::Future<Output = String>,
    ) -> Result<Response, RequestFailure> {
        let mut disconnect = std::pin::pin!(disconnect);
        let conn = tokio::select! {
            biased;
            why = &mut disconnect => return Err(RequestFailure::Disconnected(why)),
            conn = self.connection(broker) => conn?,
        };
        let mut version = self.version_for(&conn, api)?;
        if let Some(cap) = cap
            && cap < version
        {
            let (broker_min, _) = conn
                .broker_range(api)
                .ok_or(RequestFailure::UnsupportedVersion)?;
            if cap < broker_min.max(api.min_version()) {
                return Err(RequestFailure::UnsupportedVersion);
            }
            version = cap;
        }
        let request = build(version);
        if request.api() != api {
            return Err(RequestFailure::Wire(format!(
                "built a {} request where {api} was expected",
                request.api()
            )));
        }
        self.exchange(&conn, request, version, timeout_ms, disconnect)
            .await
    }

    /// Closes every connection (the client is shutting down).
    pub fn close_all(&self, reason: &str) {
        let conns: Vec<Rc<Connection>> = {
            let mut state = self.state.borrow_mut();
            std::mem::take(&mut state.conns).into_values().collect()
        };
        for conn in conns {
            conn.close(reason, &self.emitter);
        }
    }

    /// Closes the connection to `broker`, if open (e.g. after NOT_COORDINATOR, the Java client
    /// keeps it; this is for tests and for a client being stopped).
    pub fn disconnect(&self, broker: &str, reason: &str) {
        let conn = self.state.borrow_mut().conns.remove(broker);
        if let Some(conn) = conn {
            conn.close(reason, &self.emitter);
        }
    }

    /// The version to send `api` at over `conn`: the highest both sides support.
    fn version_for(&self, conn: &Connection, api: Api) -> Result<i16, RequestFailure> {
        let cap = self
            .config
            .version_caps
            .get(&api)
            .copied()
            .unwrap_or(api.max_version())
            .min(api.max_version());
        let (broker_min, broker_max) = conn
            .broker_range(api)
            .ok_or(RequestFailure::UnsupportedVersion)?;
        let version = cap.min(broker_max);
        if version < broker_min.max(api.min_version()) {
            return Err(RequestFailure::UnsupportedVersion);
        }
        Ok(version)
    }

    fn next_correlation_id(&self) -> i32 {
        let mut state = self.state.borrow_mut();
        let id = state.next_correlation_id;
        state.next_correlation_id = id.wrapping_add(1).max(0);
        id
    }

    async fn exchange(
        &self,
        conn: &Rc<Connection>,
        request: Request,
        version: i16,
        timeout_ms: u64,
        disconnect: impl std::future::Future<Output = String>,
    ) -> Result<Response, RequestFailure> {
        let api = request.api();
        let correlation_id = self.next_correlation_id();
        let header = RequestHeader::default()
            .with_request_api_key(api.key())
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(StrBytes::from_string(self.config.client_id.clone())));
        let frame = protocol::request::encode_request_frame(&header, &request)
            .map_err(|e| RequestFailure::Wire(e.to_string()))?;
        let rx = conn.register(correlation_id, api, version)?;
        self.emitter.emit(EventKind::RequestSent {
            broker: conn.broker().to_string(),
            api,
            version,
            correlation_id,
        });
        if !conn.write(frame) {
            conn.forget(correlation_id);
            let failure = RequestFailure::Disconnected("connection closed".into());
            self.request_failed(conn, api, correlation_id, &failure);
            return Err(failure);
        }
        let answer = tokio::time::timeout(Duration::from_millis(timeout_ms), rx);
        let outcome = tokio::select! {
            biased;
            why = disconnect => {
                conn.forget(correlation_id);
                Err(RequestFailure::Disconnected(why))
            }
            answer = answer => match answer {
                Ok(Ok(result)) => result,
                Ok(Err(_)) => Err(RequestFailure::Disconnected("connection closed".into())),
                Err(_) => {
                    conn.forget(correlation_id);
                    // Java's NetworkClient disconnects a node whose request timed out.
                    self.connection_lost(conn, "request timed out");
                    Err(RequestFailure::TimedOut)
                }
            },
        };
        match &outcome {
            Ok(response) => self.emitter.emit(EventKind::ResponseReceived {
                broker: conn.broker().to_string(),
                api,
                correlation_id,
                error: response_error(response),
            }),
            Err(failure) => self.request_failed(conn, api, correlation_id, failure),
        }
        outcome
    }

    fn request_failed(
        &self,
        conn: &Connection,
        api: Api,
        correlation_id: i32,
        failure: &RequestFailure,
    ) {
        self.emitter.emit(EventKind::RequestFailed {
            broker: conn.broker().to_string(),
            api,
            correlation_id,
            failure: failure.clone(),
        });
    }

    /// Closes `conn` and schedules the reconnect backoff for its address.
    fn connection_lost(&self, conn: &Rc<Connection>, reason: &str) {
        {
            let mut state = self.state.borrow_mut();
            if state
                .conns
                .get(conn.broker())
                .is_some_and(|c| Rc::ptr_eq(c, conn))
            {
                state.conns.remove(conn.broker());
            }
        }
        conn.close(reason, &self.emitter);
        self.note_failure(conn.broker());
    }

    fn note_failure(&self, broker: &str) {
        let failures = self
            .state
            .borrow()
            .reconnect
            .get(broker)
            .map_or(0, |r| r.failures);
        let wait = self
            .reconnect_backoff
            .backoff(failures, &mut *self.rng.borrow_mut());
        self.state.borrow_mut().reconnect.insert(
            broker.to_string(),
            Reconnect {
                failures: failures.saturating_add(1),
                not_before: Instant::now() + Duration::from_millis(wait),
            },
        );
    }

    /// The open connection to `broker`, opening one (after any reconnect backoff) if needed.
    async fn connection(&self, broker: &str) -> Result<Rc<Connection>, RequestFailure> {
        if let Some(conn) = self.open_connection(broker) {
            return Ok(conn);
        }
        let lock = {
            let mut state = self.state.borrow_mut();
            state
                .setup_locks
                .entry(broker.to_string())
                .or_insert_with(|| Rc::new(tokio::sync::Mutex::new(())))
                .clone()
        };
        let _guard = lock.lock().await;
        if let Some(conn) = self.open_connection(broker) {
            return Ok(conn);
        }
        let not_before = self
            .state
            .borrow()
            .reconnect
            .get(broker)
            .map(|r| r.not_before);
        if let Some(at) = not_before {
            tokio::time::sleep_until(at).await;
        }
        let setup = Duration::from_millis(self.config.connection_setup_timeout_ms);
        let stream = match tokio::time::timeout(setup, self.net.connect(broker)).await {
            Ok(Ok(stream)) => stream,
            Ok(Err(e)) => return Err(self.connect_failed(broker, e.to_string())),
            Err(_) => return Err(self.connect_failed(broker, "connection setup timed out".into())),
        };
        let id = {
            let mut state = self.state.borrow_mut();
            state.next_connection_id += 1;
            state.next_connection_id
        };
        let conn = Connection::open(id, broker.to_string(), stream, self.emitter.clone());
        self.emitter.emit(EventKind::Connected {
            broker: broker.to_string(),
        });
        if let Err(failure) = self.handshake(&conn).await {
            self.connection_lost(&conn, "ApiVersions handshake failed");
            return Err(failure);
        }
        let mut state = self.state.borrow_mut();
        state.reconnect.remove(broker);
        state.conns.insert(broker.to_string(), conn.clone());
        Ok(conn)
    }

    fn open_connection(&self, broker: &str) -> Option<Rc<Connection>> {
        let mut state = self.state.borrow_mut();
        match state.conns.get(broker) {
            Some(c) if !c.is_closed() => Some(c.clone()),
            Some(_) => {
                state.conns.remove(broker);
                None
            }
            None => None,
        }
    }

    fn connect_failed(&self, broker: &str, error: String) -> RequestFailure {
        self.emitter.emit(EventKind::ConnectFailed {
            broker: broker.to_string(),
            error: error.clone(),
        });
        self.note_failure(broker);
        RequestFailure::Disconnected(error)
    }

    /// ApiVersions at this client's newest version; if the broker answers UNSUPPORTED_VERSION
    /// with its own ApiVersions range (KIP-511), once more at the highest version it named.
    async fn handshake(&self, conn: &Rc<Connection>) -> Result<(), RequestFailure> {
        let mut version = Api::ApiVersions.max_version();
        for _ in 0..2 {
            let request = Request::ApiVersions(
                ApiVersionsRequest::default()
                    .with_client_software_name(StrBytes::from_static_str(SOFTWARE_NAME))
                    .with_client_software_version(StrBytes::from_static_str(SOFTWARE_VERSION)),
            );
            let response = self
                .exchange(
                    conn,
                    request,
                    version,
                    self.config.request_timeout_ms,
                    std::future::pending(),
                )
                .await?;
            let Response::ApiVersions(r) = response else {
                return Err(RequestFailure::Wire(
                    "ApiVersions answered with another api".into(),
                ));
            };
            match ErrorCode::from_code(r.error_code) {
                Some(ErrorCode::None) => {
                    conn.set_broker_ranges(
                        r.api_keys
                            .iter()
                            .map(|k| (k.api_key, k.min_version, k.max_version)),
                    );
                    return Ok(());
                }
                Some(ErrorCode::UnsupportedVersion) => {
                    let theirs = r
                        .api_keys
                        .iter()
                        .find(|k| k.api_key == Api::ApiVersions.key())
                        .map(|k| k.max_version);
                    match theirs {
                        Some(v) if v < version && v >= 0 => version = v,
                        _ => return Err(RequestFailure::UnsupportedVersion),
                    }
                }
                _ => {
                    return Err(RequestFailure::Wire(format!(
                        "ApiVersions failed with error code {}",
                        r.error_code
                    )));
                }
            }
        }
        Err(RequestFailure::UnsupportedVersion)
    }
}

impl<N: Net> Drop for KafkaClient<N> {
    fn drop(&mut self) {
        let conns: Vec<Rc<Connection>> = std::mem::take(&mut self.state.get_mut().conns)
            .into_values()
            .collect();
        for conn in conns {
            conn.close_quietly();
        }
    }
}

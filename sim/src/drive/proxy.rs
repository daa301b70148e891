//! The loopback TCP proxies of `regroup drive`: one per broker, listening where the broker
//! advertises itself, forwarding to where it really listens. Clients reach the brokers only
//! through them, so the scenario's network faults between client hosts and brokers are applied
//! here, connection by connection. A connection's client host is told by its source address:
//! drive binds each client host's sockets to its own loopback address
//! ([`super::net::client_source`]); connections from any other address (another broker's
//! replication, a tool) belong to no host and are never faulted.
//!
//! The state of each direction of a (client host, broker) link is what the runner's
//! [`crate::links::LinkFaults`] settles on, applied as its [`LinkCall`]s:
//! * healthy: bytes are forwarded as they come, after the link's latency, if any;
//! * held: nothing is read from the sender (its bytes wait in the sockets' buffers) until the
//!   hold ends, then everything is delivered in order (turmoil's hold: late delivery);
//! * cut: bytes are read and dropped, as a partition drops messages in flight; the connection
//!   has lost data, so once no direction of it is cut any more the proxy closes it, and the
//!   client reconnects (a TCP stream cannot resume after a gap). A connection opened during a cut
//!   is accepted and forwards nothing, as a connection attempt into a partition gets no answer.
//! * latency: every chunk is delivered its link's maximum latency after it was read (the
//!   simulator draws each message's latency between the cluster's minimum and that maximum; a
//!   proxy delays by the maximum, in order).
//!
//! A failure rate (turmoil's link flaps) has no proxy form: drive skips those faults.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::net::Ipv4Addr;
use std::rc::Rc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{mpsc, watch};

use crate::links::LinkCall;

/// What one direction of a link is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Flow {
    #[default]
    Healthy,
    Held,
    Cut,
}

/// The link states in force; see the module documentation.
#[derive(Debug, Default)]
pub struct LinkTable {
    /// (from, to) -> state of that direction (healthy when absent).
    flows: BTreeMap<(String, String), Flow>,
    /// Unordered pair (lo, hi) -> latency (ms) in force.
    latencies: BTreeMap<(String, String), u64>,
}

fn unordered(a: &str, b: &str) -> (String, String) {
    if a < b {
        (a.to_string(), b.to_string())
    } else {
        (b.to_string(), a.to_string())
    }
}

impl LinkTable {
    pub fn flow(&self, from: &str, to: &str) -> Flow {
        self.flows
            .get(&(from.to_string(), to.to_string()))
            .copied()
            .unwrap_or_default()
    }

    pub fn latency_ms(&self, a: &str, b: &str) -> u64 {
        self.latencies.get(&unordered(a, b)).copied().unwrap_or(0)
    }

    fn set(&mut self, from: &str, to: &str, flow: Flow) {
        let key = (from.to_string(), to.to_string());
        if flow == Flow::Healthy {
            self.flows.remove(&key);
        } else {
            self.flows.insert(key, flow);
        }
    }

    /// Makes one change the runner's link bookkeeping decided.
    pub fn apply(&mut self, call: &LinkCall) {
        match call {
            LinkCall::Partition(a, b) => {
                self.set(a, b, Flow::Cut);
                self.set(b, a, Flow::Cut);
            }
            LinkCall::PartitionOneway(a, b) => self.set(a, b, Flow::Cut),
            LinkCall::Repair(a, b) | LinkCall::Release(a, b) => {
                self.set(a, b, Flow::Healthy);
                self.set(b, a, Flow::Healthy);
            }
            LinkCall::RepairOneway(a, b) => self.set(a, b, Flow::Healthy),
            LinkCall::Hold(a, b) => {
                self.set(a, b, Flow::Held);
                self.set(b, a, Flow::Held);
            }
            LinkCall::Latency(a, b, ms) => {
                if *ms == 0 {
                    self.latencies.remove(&unordered(a, b));
                } else {
                    self.latencies.insert(unordered(a, b), *ms);
                }
            }
            // Refused before it gets here (`Backend::supports`).
            LinkCall::FailRate(..) => {}
        }
    }

    /// Every link healthy, no latency.
    pub fn clear(&mut self) {
        self.flows.clear();
        self.latencies.clear();
    }
}

/// A proxy to set up: listen on `listen`, forward to `target` (both `host:port`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProxySpec {
    pub listen: String,
    pub target: String,
}

impl ProxySpec {
    /// Parses `LISTEN=TARGET`.
    pub fn parse(text: &str) -> Result<Self, String> {
        let (listen, target) = text.split_once('=').ok_or_else(|| {
            format!("--proxy {text:?}: expected LISTEN=TARGET (host:port=host:port)")
        })?;
        for a in [listen, target] {
            if protocol::net::split_host_port(a).is_none() {
                return Err(format!("--proxy {text:?}: {a:?} is not host:port"));
            }
        }
        Ok(Self {
            listen: listen.to_string(),
            target: target.to_string(),
        })
    }
}

/// The shared state of every proxy: the link table, its change signal, and the client hosts by
/// source address.
#[derive(Clone)]
pub struct Proxies {
    table: Rc<RefCell<LinkTable>>,
    changed: Rc<watch::Sender<u64>>,
    hosts: Rc<RefCell<BTreeMap<Ipv4Addr, String>>>,
    /// Connections accepted so far, per broker host (reports and tests).
    accepted: Rc<RefCell<BTreeMap<String, u64>>>,
}

impl Default for Proxies {
    fn default() -> Self {
        Self::new()
    }
}

impl Proxies {
    pub fn new() -> Self {
        Self {
            table: Rc::new(RefCell::new(LinkTable::default())),
            changed: Rc::new(watch::channel(0).0),
            hosts: Rc::new(RefCell::new(BTreeMap::new())),
            accepted: Rc::new(RefCell::new(BTreeMap::new())),
        }
    }

    /// Connections from `source` belong to client host `host`.
    pub fn add_host(&self, source: Ipv4Addr, host: &str) {
        self.hosts.borrow_mut().insert(source, host.to_string());
    }

    /// Makes link changes and wakes every connection to look at them.
    pub fn apply(&self, calls: &[LinkCall]) {
        {
            let mut t = self.table.borrow_mut();
            for c in calls {
                t.apply(c);
            }
        }
        self.changed.send_modify(|v| *v += 1);
    }

    /// Every link back to health.
    pub fn clear(&self) {
        self.table.borrow_mut().clear();
        self.changed.send_modify(|v| *v += 1);
    }

    pub fn flow(&self, from: &str, to: &str) -> Flow {
        self.table.borrow().flow(from, to)
    }

    /// Connections accepted by the proxy of `broker` so far.
    pub fn accepted(&self, broker: &str) -> u64 {
        self.accepted.borrow().get(broker).copied().unwrap_or(0)
    }

    /// Binds `spec.listen` for broker host `broker` and serves it as a local task for ever.
    pub async fn start(&self, broker: &str, spec: &ProxySpec) -> std::io::Result<()> {
        let listener = TcpListener::bind(&spec.listen).await?;
        let this = self.clone();
        let broker = broker.to_string();
        let target = spec.target.clone();
        tokio::task::spawn_local(async move {
            loop {
                let Ok((client, peer)) = listener.accept().await else {
                    continue;
                };
                let _ = client.set_nodelay(true);
                let host = match peer.ip() {
                    std::net::IpAddr::V4(ip) => this.hosts.borrow().get(&ip).cloned(),
                    std::net::IpAddr::V6(_) => None,
                };
                *this
                    .accepted
                    .borrow_mut()
                    .entry(broker.clone())
                    .or_default() += 1;
                let (this, broker, target) = (this.clone(), broker.clone(), target.clone());
                tokio::task::spawn_local(async move {
                    match TcpStream::connect(&target).await {
                        Ok(server) => {
                            let _ = server.set_nodelay(true);
                            this.relay(client, server, host, broker).await;
                        }
                        Err(e) => {
                            tracing::debug!(%target, error = %e, "proxy: broker unreachable");
                        }
                    }
                });
            }
        });
        Ok(())
    }

    /// Forwards both ways until either side closes, or until a connection that lost data to a
    /// cut is no longer cut.
    async fn relay(
        &self,
        client: TcpStream,
        server: TcpStream,
        host: Option<String>,
        broker: String,
    ) {
        let (client_rd, client_wr) = client.into_split();
        let (server_rd, server_wr) = server.into_split();
        let lost = Rc::new(std::cell::Cell::new(false));
        let ends = host.map(|h| (h, broker));
        let up = self.direction(client_rd, server_wr, ends.clone(), lost.clone());
        let down = self.direction(
            server_rd,
            client_wr,
            ends.clone().map(|(h, b)| (b, h)),
            lost.clone(),
        );
        let healed = async {
            let Some((h, b)) = &ends else {
                return std::future::pending::<()>().await;
            };
            let mut rx = self.changed.subscribe();
            loop {
                if rx.changed().await.is_err() {
                    return std::future::pending::<()>().await;
                }
                let cut = |x: &str, y: &str| self.flow(x, y) == Flow::Cut;
                if lost.get() && !cut(h, b) && !cut(b, h) {
                    return;
                }
            }
        };
        tokio::select! {
            biased;
            _ = healed => {}
            _ = up => {}
            _ = down => {}
        }
    }

    /// One direction: reads, applies the link's state, writes after its latency.
    async fn direction(
        &self,
        mut rd: tokio::net::tcp::OwnedReadHalf,
        mut wr: tokio::net::tcp::OwnedWriteHalf,
        ends: Option<(String, String)>,
        lost: Rc<std::cell::Cell<bool>>,
    ) {
        let (tx, mut rx) = mpsc::unbounded_channel::<(tokio::time::Instant, Vec<u8>)>();
        let reader = async {
            let mut buf = vec![0u8; 64 * 1024];
            let mut changes = self.changed.subscribe();
            loop {
                // Held: read nothing until the hold ends.
                while let Some((from, to)) = &ends {
                    if self.flow(from, to) != Flow::Held {
                        break;
                    }
                    if changes.changed().await.is_err() {
                        return;
                    }
                }
                let n = match rd.read(&mut buf).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => n,
                };
                loop {
                    let (flow, latency) = match &ends {
                        Some((from, to)) => {
                            let t = self.table.borrow();
                            (t.flow(from, to), t.latency_ms(from, to))
                        }
                        None => (Flow::Healthy, 0),
                    };
                    match flow {
                        Flow::Healthy => {
                            let due = tokio::time::Instant::now() + Duration::from_millis(latency);
                            if tx.send((due, buf[..n].to_vec())).is_err() {
                                return;
                            }
                            break;
                        }
                        // Held after it was read: it waits for the release.
                        Flow::Held => {
                            if changes.changed().await.is_err() {
                                return;
                            }
                        }
                        Flow::Cut => {
                            lost.set(true);
                            break;
                        }
                    }
                }
            }
        };
        let writer = async {
            while let Some((due, bytes)) = rx.recv().await {
                tokio::time::sleep_until(due).await;
                if wr.write_all(&bytes).await.is_err() {
                    return;
                }
            }
        };
        // The reader's end ends the direction once what it read is written.
        tokio::join!(
            async {
                reader.await;
            },
            writer
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use LinkCall::*;

    fn s(x: &str) -> String {
        x.to_string()
    }

    #[test]
    fn the_table_follows_the_link_calls() {
        let mut t = LinkTable::default();
        t.apply(&Partition(s("app-0"), s("broker-1")));
        assert_eq!(t.flow("app-0", "broker-1"), Flow::Cut);
        assert_eq!(t.flow("broker-1", "app-0"), Flow::Cut);
        t.apply(&Repair(s("app-0"), s("broker-1")));
        assert_eq!(t.flow("app-0", "broker-1"), Flow::Healthy);
        t.apply(&Hold(s("app-0"), s("broker-1")));
        t.apply(&PartitionOneway(s("broker-1"), s("app-0")));
        assert_eq!(t.flow("app-0", "broker-1"), Flow::Held);
        assert_eq!(t.flow("broker-1", "app-0"), Flow::Cut);
        t.apply(&Release(s("app-0"), s("broker-1")));
        assert_eq!(t.flow("broker-1", "app-0"), Flow::Healthy);
        t.apply(&Latency(s("broker-1"), s("app-0"), 40));
        assert_eq!(t.latency_ms("app-0", "broker-1"), 40);
        t.apply(&Latency(s("app-0"), s("broker-1"), 0));
        assert_eq!(t.latency_ms("app-0", "broker-1"), 0);
        assert!(t.flows.is_empty() && t.latencies.is_empty());
    }

    #[test]
    fn proxy_specs_parse() {
        assert_eq!(
            ProxySpec::parse("127.0.0.1:29092=127.0.0.1:19092"),
            Ok(ProxySpec {
                listen: s("127.0.0.1:29092"),
                target: s("127.0.0.1:19092")
            })
        );
        assert!(
            ProxySpec::parse("127.0.0.1:29092")
                .unwrap_err()
                .contains("LISTEN=TARGET")
        );
        assert!(
            ProxySpec::parse("a=127.0.0.1:1")
                .unwrap_err()
                .contains("not host:port")
        );
    }

    /// An echo server behind a proxy, and a client bound to host `h`'s source address.
    async fn setup() -> (Proxies, TcpStream) {
        let echo = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = echo.local_addr().unwrap().to_string();
        tokio::task::spawn_local(async move {
            loop {
                let (mut c, _) = echo.accept().await.unwrap();
                tokio::task::spawn_local(async move {
                    let mut buf = [0u8; 1024];
                    loop {
                        match c.read(&mut buf).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => {
                                if c.write_all(&buf[..n]).await.is_err() {
                                    return;
                                }
                            }
                        }
                    }
                });
            }
        });
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let listen = format!("127.0.0.1:{port}");
        let proxies = Proxies::new();
        let source = Ipv4Addr::new(127, 0, 1, 1);
        proxies.add_host(source, "h");
        proxies
            .start(
                "broker-1",
                &ProxySpec {
                    listen: listen.clone(),
                    target,
                },
            )
            .await
            .unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind((source, 0).into()).unwrap();
        let client = socket.connect(listen.parse().unwrap()).await.unwrap();
        (proxies, client)
    }

    /// Sends `msg` and reads the echo back within `ms`.
    async fn round_trip(c: &mut TcpStream, msg: &[u8], ms: u64) -> Option<Vec<u8>> {
        c.write_all(msg).await.ok()?;
        let mut buf = vec![0u8; msg.len()];
        tokio::time::timeout(Duration::from_millis(ms), c.read_exact(&mut buf))
            .await
            .ok()?
            .ok()?;
        Some(buf)
    }

    fn run(f: impl std::future::Future<Output = ()>) {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        tokio::task::LocalSet::new().block_on(&rt, f);
    }

    #[test]
    fn held_bytes_arrive_late_and_in_order() {
        run(async {
            let (p, mut c) = setup().await;
            assert_eq!(round_trip(&mut c, b"one", 2_000).await.unwrap(), b"one");
            assert_eq!(p.accepted("broker-1"), 1);
            p.apply(&[Hold(s("h"), s("broker-1"))]);
            assert_eq!(round_trip(&mut c, b"two", 300).await, None);
            p.apply(&[Release(s("h"), s("broker-1"))]);
            let mut buf = [0u8; 3];
            tokio::time::timeout(Duration::from_secs(2), c.read_exact(&mut buf))
                .await
                .unwrap()
                .unwrap();
            assert_eq!(&buf, b"two");
        });
    }

    #[test]
    fn a_cut_drops_what_crosses_it_and_the_connection_closes_once_repaired() {
        run(async {
            let (p, mut c) = setup().await;
            assert!(round_trip(&mut c, b"one", 2_000).await.is_some());
            p.apply(&[Partition(s("h"), s("broker-1"))]);
            assert_eq!(round_trip(&mut c, b"lost", 300).await, None);
            p.apply(&[Repair(s("h"), s("broker-1"))]);
            let mut buf = [0u8; 1];
            let closed = tokio::time::timeout(Duration::from_secs(2), c.read(&mut buf))
                .await
                .unwrap();
            assert!(matches!(closed, Ok(0) | Err(_)), "{closed:?}");
            // A one-way cut from the broker to the host drops only the answers.
            let (p, mut c) = setup().await;
            p.apply(&[PartitionOneway(s("broker-1"), s("h"))]);
            assert_eq!(round_trip(&mut c, b"x", 300).await, None);
        });
    }

    #[test]
    fn latency_delays_every_chunk() {
        run(async {
            let (p, mut c) = setup().await;
            p.apply(&[Latency(s("h"), s("broker-1"), 150)]);
            let start = tokio::time::Instant::now();
            assert!(round_trip(&mut c, b"slow", 2_000).await.is_some());
            // Both directions wait: at least 2 x 150 ms.
            assert!(
                start.elapsed() >= Duration::from_millis(300),
                "{:?}",
                start.elapsed()
            );
            p.clear();
            let start = tokio::time::Instant::now();
            assert!(round_trip(&mut c, b"fast", 2_000).await.is_some());
            assert!(
                start.elapsed() < Duration::from_millis(150),
                "{:?}",
                start.elapsed()
            );
        });
    }
}

//! The transport of `regroup drive`: real TCP (`tokio::net`) and a real clock that reads, like the
//! simulator's, `EPOCH_MS` plus the time since the run started, so the event log's times are ms
//! since the start in both.
//!
//! Two additions to [`protocol::net::TokioNet`]: a client host's sockets are bound to its own
//! loopback address (127.0.1.x), so that drive's proxies ([`super::proxy`]) can tell which host a
//! connection comes from; and a redirect table, so that drive's own observer reaches a broker
//! directly rather than through the proxy its address names.

use std::collections::BTreeMap;
use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::rc::Rc;

use protocol::net::{Net, TokioListener, TokioNet};

use crate::net::EPOCH_MS;

/// A client host's transport; see the module documentation.
#[derive(Debug, Clone)]
pub struct DriveNet {
    start: tokio::time::Instant,
    /// The local address the host's sockets are bound to (`None`: the system's choice).
    source: Option<Ipv4Addr>,
    /// `host:port` -> the address connected to instead.
    redirect: Rc<BTreeMap<String, String>>,
}

impl DriveNet {
    /// A transport whose clock reads `EPOCH_MS` at `start`.
    pub fn new(start: tokio::time::Instant) -> Self {
        Self {
            start,
            source: None,
            redirect: Rc::new(BTreeMap::new()),
        }
    }

    /// The same, with sockets bound to `source`.
    pub fn from_source(mut self, source: Option<Ipv4Addr>) -> Self {
        self.source = source;
        self
    }

    /// The same, connecting to `redirect[addr]` when asked for `addr`.
    pub fn with_redirect(mut self, redirect: BTreeMap<String, String>) -> Self {
        self.redirect = Rc::new(redirect);
        self
    }

    /// ms since the run started.
    pub fn elapsed_ms(&self) -> i64 {
        self.start.elapsed().as_millis() as i64
    }
}

async fn resolve(addr: &str) -> io::Result<SocketAddr> {
    let mut found = tokio::net::lookup_host(addr).await?;
    found
        .find(SocketAddr::is_ipv4)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, format!("{addr}: no IPv4 address")))
}

impl Net for DriveNet {
    type Stream = tokio::net::TcpStream;
    type Listener = TokioListener;

    async fn bind(&self, addr: &str) -> io::Result<Self::Listener> {
        TokioNet::new(0).bind(addr).await
    }

    async fn connect(&self, addr: &str) -> io::Result<Self::Stream> {
        let addr = self.redirect.get(addr).map_or(addr, String::as_str);
        let target = resolve(addr).await?;
        let socket = tokio::net::TcpSocket::new_v4()?;
        if let Some(ip) = self.source {
            socket.bind(SocketAddr::new(ip.into(), 0))?;
        }
        let stream = socket.connect(target).await?;
        // Kafka's request/response pattern suffers badly from Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        Ok(stream)
    }

    fn now_ms(&self) -> i64 {
        EPOCH_MS + self.elapsed_ms()
    }
}

/// The loopback address of the `n`-th client host (from 0): 127.0.1.1 to 127.0.1.250, then
/// 127.0.2.1, ... (Linux routes all of 127.0.0.0/8 to the loopback interface).
pub fn client_source(n: usize) -> Option<Ipv4Addr> {
    (n < 250 * 250).then(|| Ipv4Addr::new(127, 0, 1 + (n / 250) as u8, 1 + (n % 250) as u8))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_sources_are_distinct_loopback_addresses() {
        assert_eq!(client_source(0), Some(Ipv4Addr::new(127, 0, 1, 1)));
        assert_eq!(client_source(249), Some(Ipv4Addr::new(127, 0, 1, 250)));
        assert_eq!(client_source(250), Some(Ipv4Addr::new(127, 0, 2, 1)));
        assert_eq!(client_source(250 * 250), None);
        let all: std::collections::BTreeSet<_> = (0..600).filter_map(client_source).collect();
        assert_eq!(all.len(), 600);
        assert!(all.iter().all(|ip| ip.is_loopback()));
    }
}

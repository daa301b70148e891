//! The transport the async shells (brokers, controller, client models) run on: listen, accept,
//! connect, and a clock. It lives in `protocol` because both sides of the wire need it.
//!
//! The controller and the brokers are generic over [`Net`], so the same code runs on
//! `tokio::net` ([`TokioNet`], used by `regroup serve`) and on `turmoil::net` (implemented by the
//! simulator). Everything is single-threaded: the shells spawn their tasks with
//! `tokio::task::spawn_local`, so they must run inside a `tokio::task::LocalSet` (turmoil runs
//! every host in one).
//!
//! Time: [`Net::now_ms`] is the clock the shells read (commit timestamps, session deadlines);
//! sleeps and timeouts use `tokio::time`, which turmoil simulates. An implementation must keep
//! the two consistent (both simulated, or both real).

use std::future::Future;
use std::io;

use tokio::io::{AsyncRead, AsyncWrite};

/// A listening socket.
pub trait NetListener: 'static {
    type Stream: AsyncRead + AsyncWrite + Unpin + 'static;

    /// Accepts one connection; returns the stream and the peer's address as `ip:port`.
    fn accept(&self) -> impl Future<Output = io::Result<(Self::Stream, String)>>;

    /// The address actually bound (useful after binding port 0).
    fn local_addr(&self) -> io::Result<String>;
}

/// A transport and a clock.
pub trait Net: Clone + 'static {
    type Stream: AsyncRead + AsyncWrite + Unpin + 'static;
    type Listener: NetListener<Stream = Self::Stream>;

    /// Binds a listener on `addr` (`host:port`).
    fn bind(&self, addr: &str) -> impl Future<Output = io::Result<Self::Listener>>;

    /// Connects to `addr` (`host:port`).
    fn connect(&self, addr: &str) -> impl Future<Output = io::Result<Self::Stream>>;

    /// The current time in milliseconds (epoch-based for real clocks, simulated otherwise).
    fn now_ms(&self) -> i64;
}

/// `tokio::net` over real TCP, with a clock that starts at `epoch_ms` and advances with
/// `tokio::time` (real time on a normal runtime, virtual time on a paused one).
#[derive(Debug, Clone)]
pub struct TokioNet {
    epoch_ms: i64,
    start: tokio::time::Instant,
}

impl TokioNet {
    /// A transport whose clock reads `epoch_ms` now. `regroup serve` passes the wall clock;
    /// tests pass a fixed value.
    pub fn new(epoch_ms: i64) -> Self {
        Self {
            epoch_ms,
            start: tokio::time::Instant::now(),
        }
    }
}

/// A bound `tokio::net::TcpListener`.
#[derive(Debug)]
pub struct TokioListener(tokio::net::TcpListener);

impl NetListener for TokioListener {
    type Stream = tokio::net::TcpStream;

    async fn accept(&self) -> io::Result<(Self::Stream, String)> {
        let (stream, peer) = self.0.accept().await?;
        // Kafka's request/response pattern suffers badly from Nagle's algorithm.
        let _ = stream.set_nodelay(true);
        Ok((stream, peer.to_string()))
    }

    fn local_addr(&self) -> io::Result<String> {
        self.0.local_addr().map(|a| a.to_string())
    }
}

impl Net for TokioNet {
    type Stream = tokio::net::TcpStream;
    type Listener = TokioListener;

    async fn bind(&self, addr: &str) -> io::Result<Self::Listener> {
        tokio::net::TcpListener::bind(addr).await.map(TokioListener)
    }

    async fn connect(&self, addr: &str) -> io::Result<Self::Stream> {
        let stream = tokio::net::TcpStream::connect(addr).await?;
        let _ = stream.set_nodelay(true);
        Ok(stream)
    }

    fn now_ms(&self) -> i64 {
        self.epoch_ms + self.start.elapsed().as_millis() as i64
    }
}

/// Splits `host:port` (the port is the text after the last colon).
pub fn split_host_port(addr: &str) -> Option<(&str, u16)> {
    let (host, port) = addr.rsplit_once(':')?;
    Some((host, port.parse().ok()?))
}

/// Java's `InetAddress.toString()` form of a peer address `ip:port` as Kafka's request context
/// shows it (`/ip`).
pub fn client_host(peer: &str) -> String {
    let host = split_host_port(peer).map(|(h, _)| h).unwrap_or(peer);
    let host = host.trim_start_matches('[').trim_end_matches(']');
    format!("/{host}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_port_and_client_host() {
        assert_eq!(split_host_port("127.0.0.1:9092"), Some(("127.0.0.1", 9092)));
        assert_eq!(split_host_port("broker-1:80"), Some(("broker-1", 80)));
        assert_eq!(split_host_port("nohost"), None);
        assert_eq!(client_host("127.0.0.1:5555"), "/127.0.0.1");
        assert_eq!(client_host("[::1]:5555"), "/::1");
    }
}

#[cfg(feature = "turmoil")]
pub mod turmoil_net;

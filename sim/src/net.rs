//! [`protocol::net::Net`] over turmoil's simulated TCP and clock, so the brokers, the controller
//! and the client models run unchanged inside the simulation.

use std::io;

use protocol::net::{Net, NetListener};

/// The simulated clock starts at this epoch (2026-01-01T00:00:00Z), so timestamps look like real
/// epoch milliseconds while every run sees the same values. turmoil's own epoch is set to it too.
pub const EPOCH_MS: i64 = 1_767_225_600_000;

/// turmoil's network and clock. `now_ms` is [`EPOCH_MS`] plus the simulated time of the host the
/// caller runs on (turmoil keeps it across restarts).
#[derive(Debug, Clone, Copy, Default)]
pub struct TurmoilNet;

/// A bound turmoil listener.
pub struct TurmoilListener(turmoil::net::TcpListener);

impl NetListener for TurmoilListener {
    type Stream = turmoil::net::TcpStream;

    async fn accept(&self) -> io::Result<(Self::Stream, String)> {
        let (stream, peer) = self.0.accept().await?;
        Ok((stream, peer.to_string()))
    }

    fn local_addr(&self) -> io::Result<String> {
        self.0.local_addr().map(|a| a.to_string())
    }
}

impl Net for TurmoilNet {
    type Stream = turmoil::net::TcpStream;
    type Listener = TurmoilListener;

    async fn bind(&self, addr: &str) -> io::Result<Self::Listener> {
        turmoil::net::TcpListener::bind(addr)
            .await
            .map(TurmoilListener)
    }

    async fn connect(&self, addr: &str) -> io::Result<Self::Stream> {
        turmoil::net::TcpStream::connect(addr).await
    }

    fn now_ms(&self) -> i64 {
        EPOCH_MS + sim_now_ms()
    }
}

/// The simulated time in milliseconds since the start of the run, as the host that is running
/// sees it; outside a host (the driver between steps) the time the driver last published.
pub fn sim_now_ms() -> i64 {
    match turmoil::sim_elapsed() {
        Some(d) => d.as_millis() as i64,
        None => DRIVER_NOW_MS.with(|t| t.get()),
    }
}

thread_local! {
    /// The simulated time the driver last published (read outside hosts: log lines written by
    /// the driver, events the driver records).
    static DRIVER_NOW_MS: std::cell::Cell<i64> = const { std::cell::Cell::new(0) };
}

/// Publishes the driver's view of the simulated time (called between steps).
pub fn set_driver_now_ms(ms: i64) {
    DRIVER_NOW_MS.with(|t| t.set(ms));
}

//! [`Net`] over turmoil's simulated TCP and clock (feature `turmoil`), so the brokers, the
//! controller and the client models run unchanged inside a simulation: one home for the simulator
//! (`sim`) and the broker slice's own cluster tests.

use std::cell::Cell;
use std::io;
use std::rc::Rc;
use std::time::Duration;

use super::{Net, NetListener};

/// The simulated clock starts at this epoch (2026-01-01T00:00:00Z), so timestamps look like real
/// epoch milliseconds while every run sees the same values. turmoil's own epoch is set to it too.
pub const EPOCH_MS: i64 = 1_767_225_600_000;

/// turmoil's network and clock. `now_ms` is [`EPOCH_MS`] plus the simulated time of the host the
/// caller runs on (turmoil keeps it across restarts).
///
/// Reading turmoil's clock (`turmoil::sim_elapsed`) looks the current host up in the world on
/// every call, which the client models do many times per poll. Within one host runtime the
/// simulated time advances exactly with that runtime's paused tokio clock (turmoil ticks both by
/// the same amount), so the first reading is kept as a base and later ones add the tokio time
/// elapsed since. A `TurmoilNet` therefore belongs to one host incarnation: create it with
/// [`TurmoilNet::new`] inside the host's software (each restart gets a fresh runtime and clock).
#[derive(Debug, Clone, Default)]
pub struct TurmoilNet {
    base: Rc<Cell<Option<(tokio::time::Instant, Duration)>>>,
}

impl TurmoilNet {
    pub fn new() -> Self {
        Self::default()
    }

    /// The simulated time since the start of the run, as this host sees it.
    pub fn sim_elapsed(&self) -> Duration {
        let now = tokio::time::Instant::now();
        match self.base.get() {
            Some((at, sim)) => sim + now.saturating_duration_since(at),
            None => {
                let sim = turmoil::sim_elapsed().unwrap_or_default();
                self.base.set(Some((now, sim)));
                sim
            }
        }
    }
}

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
        EPOCH_MS + self.sim_elapsed().as_millis() as i64
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// The cached clock reads exactly what turmoil's own clock reads, across sleeps of odd
    /// lengths, ticks and a restart of the host.
    #[test]
    fn cached_clock_matches_turmoil_across_ticks_and_restarts() {
        let mut sim = turmoil::Builder::new()
            .tick_duration(Duration::from_millis(3))
            .rng_seed(1)
            .build();
        let mismatches: Rc<RefCell<Vec<String>>> = Rc::default();
        let readings = Rc::new(Cell::new(0u32));
        let (m, r) = (mismatches.clone(), readings.clone());
        sim.host("h", move || {
            let (m, r) = (m.clone(), r.clone());
            async move {
                let net = TurmoilNet::new();
                for i in 0..200u64 {
                    tokio::time::sleep(Duration::from_micros(i * 1_700 % 9_000)).await;
                    let turmoil_ms = turmoil::sim_elapsed().unwrap().as_millis() as i64;
                    let cached = net.now_ms() - EPOCH_MS;
                    if cached != turmoil_ms {
                        m.borrow_mut()
                            .push(format!("{i}: {cached} != {turmoil_ms}"));
                    }
                    r.set(r.get() + 1);
                }
                std::future::pending::<()>().await;
                Ok(())
            }
        });
        for step in 0..400 {
            if step == 150 {
                sim.bounce("h");
            }
            sim.step().unwrap();
        }
        assert!(mismatches.borrow().is_empty(), "{:?}", mismatches.borrow());
        assert!(readings.get() > 200, "{}", readings.get());
    }
}

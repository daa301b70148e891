//! The simulator's clock outside hosts, and turmoil's network and clock as a
//! [`protocol::net::Net`] ([`protocol::net::turmoil_net`], re-exported here for the harness).

pub use protocol::net::turmoil_net::{EPOCH_MS, TurmoilListener, TurmoilNet};

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

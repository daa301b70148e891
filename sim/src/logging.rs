//! `tracing` output for simulation runs: every line starts with the simulated time (seconds since
//! the start of the run) and, through the `host` span every host's software runs in, names the
//! host. `RUST_LOG` selects what is printed (tracing-subscriber's `EnvFilter`).

use std::fmt;

use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::time::FormatTime;

/// Formats the simulated time as `12.345s`.
#[derive(Debug, Clone, Copy, Default)]
pub struct SimTime;

impl FormatTime for SimTime {
    fn format_time(&self, w: &mut Writer<'_>) -> fmt::Result {
        let ms = crate::net::sim_now_ms();
        write!(w, "{:>4}.{:03}s", ms / 1000, ms % 1000)
    }
}

/// Installs a subscriber writing to stderr with simulated timestamps, filtered by `RUST_LOG`
/// (default: warnings only). Does nothing if one is already installed.
pub fn init() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_timer(SimTime)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

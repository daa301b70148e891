//! `tracing` output for simulation runs: every line starts with the simulated time (seconds since
//! the start of the run) and, through the `node{name=...}` span turmoil runs every host in, names
//! the host. `RUST_LOG` selects what is printed (tracing-subscriber's `EnvFilter`); the target
//! `regroup` stands for all of regroup's crates (`RUST_LOG=regroup=debug`).

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
    let spec = std::env::var("RUST_LOG").unwrap_or_default();
    let filter = tracing_subscriber::EnvFilter::try_new(expand_regroup_target(&spec))
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_timer(SimTime)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

/// The crates whose logs the `regroup` target stands for.
const CRATES: &[&str] = &["protocol", "coordinator", "members", "sim", "scenarios"];

/// Rewrites every `regroup[=level]` directive into one directive per regroup crate (an empty
/// filter becomes `warn`) and enables turmoil's per-host `node` span (target `turmoil::sim`,
/// which logs no events of its own), so every line names its host.
pub fn expand_regroup_target(spec: &str) -> String {
    let spec = if spec.trim().is_empty() { "warn" } else { spec };
    let mut out = Vec::new();
    for d in spec.split(',').map(str::trim).filter(|d| !d.is_empty()) {
        let (target, level) = match d.split_once('=') {
            Some((t, l)) => (t, Some(l)),
            None => (d, None),
        };
        if target == "regroup" {
            for c in CRATES {
                out.push(match level {
                    Some(l) => format!("{c}={l}"),
                    None => c.to_string(),
                });
            }
        } else {
            out.push(d.to_string());
        }
    }
    if !spec.contains("turmoil") {
        out.push("turmoil::sim=info".to_string());
    }
    out.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_regroup_target_names_every_crate() {
        assert_eq!(
            expand_regroup_target("regroup=debug,turmoil=info"),
            "protocol=debug,coordinator=debug,members=debug,sim=debug,scenarios=debug,turmoil=info"
        );
        assert_eq!(expand_regroup_target(""), "warn,turmoil::sim=info");
        assert_eq!(expand_regroup_target("info"), "info,turmoil::sim=info");
    }
}

//! Classic consumer groups with KIP-345 static membership: the state machine (Empty, PreparingRebalance,
//! CompletingRebalance, Stable, Dead), joins, syncs, heartbeats, leaves and their timers.

pub mod config;

pub use config::ClassicConfig;

//! regroup's client models: streams processes, classic consumers and admin operations that speak the wire.
//!
//! * [`streams::StreamsProcess`]: a Kafka Streams process (one process id, N member threads) using
//!   the streams rebalance protocol (KIP-1071) as Kafka Streams 4.4 does.
//! * [`classic::Consumer`]: a classic-protocol consumer, static (KIP-345) or dynamic.
//! * [`consumer::AsyncConsumer`]: a consumer-protocol consumer (KIP-848), static or dynamic.
//! * [`admin::Admin`]: describe groups, remove static members, delete groups.
//! * [`conn::KafkaClient`]: the connections underneath (ApiVersions, correlation ids, request
//!   timeouts, reconnect backoff).
//! * [`observer`]: the typed events every client reports, stamped with the transport's clock.
//!
//! Everything is generic over [`protocol::net::Net`] and runs as local tasks (`spawn_local`), so it
//! must run inside a `tokio::task::LocalSet`. Randomness (member ids, jitter) comes from the
//! seeded generator the caller passes in; nothing reads a wall clock.

pub mod admin;
pub mod backoff;
pub mod classic;
pub mod conn;
pub mod consumer;
pub mod coordinator;
mod event_loop;
pub mod ids;
pub mod observer;
pub mod offsets;
pub mod request_state;
pub mod streams;

pub use observer::{Event, EventKind, EventLog, NullObserver, Observer};

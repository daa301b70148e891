//! regroup's client models: streams processes, classic consumers and admin operations that speak the wire.

pub mod admin;
pub mod backoff;
pub mod classic;
pub mod conn;
pub mod coordinator;
pub mod ids;
pub mod observer;
pub mod offsets;
pub mod request_state;
pub mod streams;

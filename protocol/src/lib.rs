//! regroup's wire: framing, headers, api keys and versions, error codes, messages.
//!
//! * [`api::Api`]: the apis regroup serves, their version ranges and header versions.
//! * [`messages`]: the typed messages (kafka-protocol's, plus the ones written here).
//! * [`request::Request`] / [`response::Response`]: one enum variant per api, decoded by
//!   (api key, version), and the frame helpers a server or client uses.
//! * [`frame`]: int32 size-prefixed frames over any tokio `AsyncRead`/`AsyncWrite`.
//! * [`schema`]: regroup's table of every message schema, the walker behind `regroup wire`,
//!   the validation pre-pass, samples; [`json`]: Kafka-style JSON conversion.
//! * [`error::ErrorCode`]: Kafka 4.4's error codes; [`error`] also holds this crate's errors.

pub mod api;
mod body_memo;
pub mod error;
pub mod frame;
pub mod json;
pub mod messages;
pub mod net;
// The complete set of primitives; not every generated message needs every one.
#[allow(dead_code)]
mod prim;
pub mod request;
pub mod response;
pub mod schema;
pub mod streams_status;

pub use api::Api;
pub use error::ErrorCode;
pub use request::Request;
pub use response::Response;

//! What a shard knows about the request besides its body (Kafka's `AuthorizableRequestContext`).

/// The request's context: who sent it and at which api version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestContext {
    /// The client id from the request header.
    pub client_id: String,
    /// The client's address in Java's `InetAddress.toString()` form, e.g. `/127.0.0.1`.
    pub client_host: String,
    /// The version of the request (handlers answer some versions differently).
    pub api_version: i16,
}

impl RequestContext {
    pub fn new(
        client_id: impl Into<String>,
        client_host: impl Into<String>,
        api_version: i16,
    ) -> Self {
        Self {
            client_id: client_id.into(),
            client_host: client_host.into(),
            api_version,
        }
    }
}

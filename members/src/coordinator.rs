//! Finding a group's coordinator (Kafka's `CoordinatorRequestManager`): FindCoordinator to any
//! broker, retried with backoff, forgotten again on NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE or
//! a disconnect.

use protocol::messages::{FindCoordinatorRequest, StrBytes};
use protocol::net::Net;
use protocol::{Api, ErrorCode, Request, Response};
use rand::Rng;

use crate::backoff::ExponentialBackoff;
use crate::conn::KafkaClient;
use crate::observer::{EventKind, RequestFailure};
use crate::request_state::RequestState;

/// A coordinator: its node id and `host:port`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoordinatorNode {
    pub node_id: i32,
    pub broker: String,
}

/// Why FindCoordinator did not name a coordinator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FindFailure {
    /// The broker answered with an error code (e.g. COORDINATOR_NOT_AVAILABLE while the offsets
    /// partition has no leader).
    Error(ErrorCode, Option<String>),
    /// No answer.
    Transport(RequestFailure),
}

impl FindFailure {
    /// Whether Kafka retries it (retriable error codes and transport failures other than an
    /// unsupported version).
    pub fn is_retriable(&self) -> bool {
        match self {
            FindFailure::Error(code, _) => code.is_retriable(),
            FindFailure::Transport(RequestFailure::UnsupportedVersion) => false,
            FindFailure::Transport(_) => true,
        }
    }
}

/// Sends one FindCoordinator (key type GROUP) for `group_id` to any broker.
pub async fn find_coordinator<N: Net>(
    client: &KafkaClient<N>,
    group_id: &str,
) -> Result<CoordinatorNode, FindFailure> {
    let broker = client.any_broker();
    let key = StrBytes::from_string(group_id.to_string());
    let response = client
        .send_built(
            &broker,
            Api::FindCoordinator,
            client.config().request_timeout_ms,
            |version| {
                let request = FindCoordinatorRequest::default().with_key_type(0);
                Request::FindCoordinator(if version >= 4 {
                    request.with_coordinator_keys(vec![key])
                } else {
                    request.with_key(key)
                })
            },
        )
        .await
        .map_err(FindFailure::Transport)?;
    let Response::FindCoordinator(r) = response else {
        return Err(FindFailure::Transport(RequestFailure::Wire(
            "FindCoordinator answered with another api".into(),
        )));
    };
    let (error, message, node_id, host, port) = if r.coordinators.is_empty() {
        (r.error_code, r.error_message, r.node_id.0, r.host, r.port)
    } else {
        match r
            .coordinators
            .into_iter()
            .find(|c| c.key.as_str() == group_id)
        {
            Some(c) => (c.error_code, c.error_message, c.node_id.0, c.host, c.port),
            None => {
                return Err(FindFailure::Transport(RequestFailure::Wire(format!(
                    "Response did not contain expected coordinator section for groupId: {group_id}"
                ))));
            }
        }
    };
    match ErrorCode::from_code(error) {
        Some(ErrorCode::None) => Ok(CoordinatorNode {
            node_id,
            broker: format!("{host}:{port}"),
        }),
        Some(code) => Err(FindFailure::Error(code, message.map(|m| m.to_string()))),
        None => Err(FindFailure::Error(
            ErrorCode::UnknownServerError,
            message.map(|m| m.to_string()),
        )),
    }
}

/// The known coordinator and the FindCoordinator retry state.
#[derive(Debug, Clone)]
pub struct CoordinatorTracker {
    node: Option<CoordinatorNode>,
    request: RequestState,
}

impl CoordinatorTracker {
    /// Retries back off from `retry.backoff.ms` to `retry.backoff.max.ms`.
    pub fn new(retry_backoff_ms: u64, retry_backoff_max_ms: u64) -> Self {
        Self {
            node: None,
            request: RequestState::new(ExponentialBackoff::retry(
                retry_backoff_ms,
                retry_backoff_max_ms,
            )),
        }
    }

    pub fn node(&self) -> Option<&CoordinatorNode> {
        self.node.as_ref()
    }

    /// Whether a FindCoordinator should be sent now.
    pub fn should_send(&self, now_ms: i64) -> bool {
        self.node.is_none() && self.request.can_send_request(now_ms)
    }

    /// When the next FindCoordinator may go (for the caller's sleep), if one is needed.
    pub fn next_send_ms(&self, now_ms: i64) -> Option<i64> {
        if self.node.is_some() || self.request.request_in_flight() {
            return None;
        }
        Some(now_ms + self.request.remaining_backoff_ms(now_ms))
    }

    pub fn on_send(&mut self, now_ms: i64) {
        self.request.on_send_attempt(now_ms);
    }

    /// Records the outcome; returns the event to report.
    pub fn on_result(
        &mut self,
        result: Result<CoordinatorNode, FindFailure>,
        now_ms: i64,
        rng: &mut impl Rng,
    ) -> Result<EventKind, FindFailure> {
        match result {
            Ok(node) => {
                self.request.on_successful_attempt(now_ms, rng);
                let event = EventKind::CoordinatorFound {
                    node_id: node.node_id,
                    broker: node.broker.clone(),
                };
                self.node = Some(node);
                Ok(event)
            }
            Err(failure) => {
                self.request.on_failed_attempt(now_ms, rng);
                self.node = None;
                Err(failure)
            }
        }
    }

    /// Forgets the coordinator (it must be found again). Returns true if one was known.
    pub fn mark_unknown(&mut self) -> bool {
        self.node.take().is_some()
    }
}

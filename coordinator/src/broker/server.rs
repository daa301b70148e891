//! The broker's client listener. Requests on a connection are served one at a time, in order
//! (Kafka mutes a connection until its response is sent). A malformed frame, an unknown api key,
//! an unsupported version (except ApiVersions) or an api this listener does not serve closes the
//! connection with a log line, as Kafka does; other connections are unaffected.

use std::rc::Rc;

use bytes::Bytes;
use protocol::error::WireError;
use protocol::messages::RequestHeader;
use protocol::request::IncomingRequest;
use protocol::response::{
    api_versions_unsupported_response, encode_response_frame, encode_response_frame_with_body,
};
use protocol::{Api, Request, Response};

use super::apis::{CLIENT_APIS, MetadataFailure};
use super::node::Node;
use crate::context::RequestContext;
use crate::events::{BrokerState, EventKind};
use crate::net::{Net, NetListener, client_host};
use crate::rpc::{InboundFrame, decode_inbound, read_request_frame};

/// Accepts connections once the broker is RUNNING (Kafka opens its client listeners after the
/// broker is unfenced).
pub(crate) async fn run<N: Net>(node: Rc<Node<N>>, listener: N::Listener) {
    loop {
        let notified = node.running.notified();
        {
            let core = node.core.borrow();
            if core.stopped {
                return;
            }
            if core.state == BrokerState::Running {
                break;
            }
        }
        notified.await;
    }
    node.listener_started.set(true);
    tracing::info!(broker = node.id(), "serving clients");
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                let n = node.clone();
                node.spawn(async move { serve_connection(n, stream, peer).await });
            }
            Err(e) => {
                tracing::warn!(broker = node.id(), error = %e, "accept failed");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    }
}

fn close<N: Net>(node: &Node<N>, peer: &str, reason: String) {
    tracing::info!(broker = node.id(), peer = %peer, reason = %reason, "closing connection");
    node.emit(EventKind::ConnectionClosed {
        peer: peer.to_string(),
        reason,
    });
}

async fn serve_connection<N: Net>(node: Rc<Node<N>>, mut stream: N::Stream, peer: String) {
    loop {
        let frame = match read_request_frame(&mut stream).await {
            Ok(Some(frame)) => frame,
            Ok(None) => return,
            Err(e) => {
                close(&node, &peer, format!("bad frame: {e}"));
                return;
            }
        };
        let (header, request) = match decode_inbound(frame, false) {
            Ok(InboundFrame::Kafka(IncomingRequest::Request { header, request })) => {
                (header, request)
            }
            Ok(InboundFrame::Kafka(IncomingRequest::UnsupportedApiVersions { header })) => {
                let bytes = match encode_response_frame(
                    header.correlation_id,
                    Api::ApiVersions,
                    0,
                    &api_versions_unsupported_response(),
                ) {
                    Ok(b) => b,
                    Err(e) => {
                        close(&node, &peer, format!("cannot encode: {e}"));
                        return;
                    }
                };
                if protocol::frame::write_frame(&mut stream, &bytes)
                    .await
                    .is_err()
                {
                    return;
                }
                continue;
            }
            Ok(InboundFrame::Internal { api_key, .. }) => {
                close(&node, &peer, format!("unknown api key {api_key}"));
                return;
            }
            Err(e) => {
                close(&node, &peer, e.to_string());
                return;
            }
        };
        let api = request.api();
        if !CLIENT_APIS.contains(&api) {
            close(
                &node,
                &peer,
                format!("{api} is not served on this listener"),
            );
            return;
        }
        let answer = match handle(&node, &header, request, &peer).await {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(reason) => {
                close(&node, &peer, reason);
                return;
            }
        };
        let version = header.request_api_version;
        let encoded = match answer {
            Answer::Response(response) => {
                encode_response_frame(header.correlation_id, api, version, &response)
            }
            Answer::Body(Ok(body)) => {
                encode_response_frame_with_body(header.correlation_id, api, version, &body)
            }
            Answer::Body(Err(e)) => Err(e),
        };
        let bytes = match encoded {
            Ok(b) => b,
            Err(e) => {
                tracing::error!(broker = node.id(), api = %api, version, error = %e, "cannot encode a response");
                close(
                    &node,
                    &peer,
                    format!("cannot encode {api} v{version} response: {e}"),
                );
                return;
            }
        };
        if protocol::frame::write_frame(&mut stream, &bytes)
            .await
            .is_err()
        {
            return;
        }
    }
}

/// What a request is answered with. It lives for one request, on the stack, so a boxed
/// response would only add an allocation per request.
#[allow(clippy::large_enum_variant)]
enum Answer {
    /// A response to encode.
    Response(Response),
    /// A response body already encoded at the request's version (Metadata, remembered per
    /// metadata image: [`super::published`]), or why it could not be encoded.
    Body(Result<Bytes, WireError>),
}

/// Serves one request: `Ok(None)` means no response is sent (Produce with acks=0), `Err` closes
/// the connection.
async fn handle<N: Net>(
    node: &Rc<Node<N>>,
    header: &RequestHeader,
    request: Request,
    peer: &str,
) -> Result<Option<Answer>, String> {
    let version = header.request_api_version;
    tracing::trace!(broker = node.id(), api = %request.api(), version, correlation_id = header.correlation_id, "request");
    Ok(Some(Answer::Response(match request {
        Request::ApiVersions(r) => node.api_versions(&r, version).into(),
        Request::Metadata(r) => {
            return match node.metadata_body(&r, version) {
                Ok(body) => Ok(Some(Answer::Body(Ok(body)))),
                Err(MetadataFailure::Encode(e)) => Ok(Some(Answer::Body(Err(e)))),
                Err(MetadataFailure::Refused(reason)) => Err(reason),
            };
        }
        Request::FindCoordinator(r) => node.find_coordinator(&r, version)?.into(),
        Request::ListOffsets(r) => node.list_offsets(&r, version).into(),
        Request::Fetch(r) => {
            let replica = if version >= 15 {
                r.replica_state.replica_id.0
            } else {
                r.replica_id.0
            };
            if replica >= 0 {
                node.handle_replica_fetch(&r, version).await.into()
            } else {
                node.client_fetch(&r, version).await.into()
            }
        }
        Request::Produce(r) => match node.produce(&r, version) {
            Some(resp) => resp.into(),
            None => return Ok(None),
        },
        Request::CreateTopics(r) => node.create_topics(r, version).await.into(),
        Request::CreatePartitions(r) => node.create_partitions(r, version).await.into(),
        Request::DescribeCluster(r) => node.describe_cluster(&r, version).into(),
        group => {
            let client_id = header
                .client_id
                .as_ref()
                .map(|c| c.to_string())
                .unwrap_or_default();
            let ctx = RequestContext::new(client_id, client_host(peer), version);
            node.group_request(group, version, &ctx).await
        }
    })))
}

//! How the nodes of a regroup cluster talk to each other, and the client they use.
//!
//! # The wire between nodes
//!
//! Every connection carries Kafka frames (int32 size, header, body):
//!
//! | from -> to | api | shape |
//! |---|---|---|
//! | broker -> controller | BrokerRegistration (62) v4, BrokerHeartbeat (63) v2 | Kafka's, byte for byte |
//! | broker -> controller | CreateTopics (19) | Kafka's (brokers forward topic creation, as Kafka's forwarding does) |
//! | broker -> controller | [`METADATA_FETCH`] (internal) | JSON body, see below |
//! | broker -> controller | [`ALTER_PARTITION`] (internal) | JSON body with the fields of Kafka's AlterPartition (56) v3 |
//! | broker -> broker | Fetch (1) with `ReplicaState.ReplicaId` = the follower's id | Kafka's; records are v2 record batches of `__consumer_offsets` records in Kafka's binary form ([`crate::records::codec`]) |
//!
//! Kafka's brokers fetch the metadata log from the controller quorum with KRaft's own Fetch over
//! the `__cluster_metadata` topic; regroup has one controller and no Raft, so brokers fetch the
//! controller's log with an internal request instead. Internal requests use api keys from
//! [`INTERNAL_API_BASE`] up, far from every key Kafka assigns (clients never send them, and a
//! client listener closes the connection on them like on any unknown key). Their frame is a
//! request header v2 (api key, version 0, correlation id, client id, no tagged fields) followed by
//! a UTF-8 JSON body; the response is the correlation id followed by a JSON body.

use std::cell::Cell;

use bytes::{BufMut, Bytes, BytesMut};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use tokio::sync::Mutex;

use protocol::frame::{FrameReader, read_frame, write_frame};
use protocol::messages::RequestHeader;
use protocol::request::{IncomingRequest, decode_request_frame, encode_request_frame};
use protocol::response::decode_response_frame;
use protocol::{Request, Response};

use crate::metadata_records::MetadataRecord;
use crate::net::Net;

/// The first api key of regroup's internal requests.
pub const INTERNAL_API_BASE: i16 = 10_000;
/// Fetch the controller's metadata log from an offset (long poll).
pub const METADATA_FETCH: i16 = 10_000;
/// A partition leader asks the controller to change the ISR (Kafka's AlterPartition).
pub const ALTER_PARTITION: i16 = 10_001;

/// A metadata-log record with its offset.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OffsetRecord {
    pub offset: i64,
    pub record: MetadataRecord,
}

/// Fetch the metadata log from `fetch_offset`; the controller answers as soon as it has records
/// at or past that offset, or after `max_wait_ms` with none.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataFetchRequest {
    pub cluster_id: String,
    pub broker_id: i32,
    pub fetch_offset: i64,
    pub max_wait_ms: i64,
    pub max_records: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MetadataFetchResponse {
    pub error_code: i16,
    pub records: Vec<OffsetRecord>,
    /// The controller's next write offset.
    pub end_offset: i64,
}

/// One ISR member with the broker epoch the leader saw (`BrokerState` of AlterPartition v3).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IsrMember {
    pub broker_id: i32,
    pub broker_epoch: i64,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterPartitionData {
    pub partition_index: i32,
    pub leader_epoch: i32,
    pub new_isr_with_epochs: Vec<IsrMember>,
    pub leader_recovery_state: i8,
    pub partition_epoch: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterPartitionTopic {
    pub topic_name: String,
    pub partitions: Vec<AlterPartitionData>,
}

/// AlterPartition (Kafka api 56 v3), topics named rather than identified by id.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterPartitionRequest {
    pub broker_id: i32,
    pub broker_epoch: i64,
    pub topics: Vec<AlterPartitionTopic>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterPartitionResult {
    pub partition_index: i32,
    pub error_code: i16,
    pub leader_id: i32,
    pub leader_epoch: i32,
    pub isr: Vec<i32>,
    pub leader_recovery_state: i8,
    pub partition_epoch: i32,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterPartitionTopicResult {
    pub topic_name: String,
    pub partitions: Vec<AlterPartitionResult>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AlterPartitionResponse {
    pub error_code: i16,
    pub topics: Vec<AlterPartitionTopicResult>,
}

/// A request frame as a server sees it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug)]
pub enum InboundFrame {
    /// A Kafka request (see [`protocol::request`] for what Kafka does with the others).
    Kafka(IncomingRequest),
    /// An internal request: api key, correlation id and the JSON body.
    Internal {
        api_key: i16,
        correlation_id: i32,
        body: Bytes,
    },
}

/// Why a frame was refused; the server closes the connection.
#[derive(Debug, thiserror::Error)]
pub enum FrameError {
    #[error(transparent)]
    Wire(#[from] protocol::error::WireError),
    #[error("internal request: {0}")]
    Internal(String),
}

/// Sorts one request frame (everything after the size prefix). Internal requests are accepted
/// only when `allow_internal` (the controller listener and the replication path); elsewhere their
/// keys are unknown api keys.
pub fn decode_inbound(frame: Bytes, allow_internal: bool) -> Result<InboundFrame, FrameError> {
    if frame.len() >= 2 {
        let api_key = i16::from_be_bytes([frame[0], frame[1]]);
        if allow_internal && api_key >= INTERNAL_API_BASE {
            return decode_internal(frame).map_err(FrameError::Internal);
        }
    }
    Ok(InboundFrame::Kafka(decode_request_frame(frame)?))
}

fn decode_internal(frame: Bytes) -> Result<InboundFrame, String> {
    // api key (2), version (2), correlation id (4), client id (int16 length + bytes), tags (1).
    if frame.len() < 11 {
        return Err(format!("header needs 11 bytes, got {}", frame.len()));
    }
    let api_key = i16::from_be_bytes([frame[0], frame[1]]);
    let version = i16::from_be_bytes([frame[2], frame[3]]);
    if version != 0 {
        return Err(format!(
            "api key {api_key} version {version} is not supported"
        ));
    }
    let correlation_id = i32::from_be_bytes([frame[4], frame[5], frame[6], frame[7]]);
    let id_len = i16::from_be_bytes([frame[8], frame[9]]);
    let mut pos = 10 + id_len.max(0) as usize;
    if frame.len() < pos + 1 {
        return Err("header is truncated".into());
    }
    if frame[pos] != 0 {
        return Err("internal headers carry no tagged fields".into());
    }
    pos += 1;
    Ok(InboundFrame::Internal {
        api_key,
        correlation_id,
        body: frame.slice(pos..),
    })
}

/// Encodes an internal request frame.
pub fn encode_internal_request(
    api_key: i16,
    correlation_id: i32,
    client_id: &str,
    body: &impl Serialize,
) -> BytesMut {
    let json = serde_json::to_vec(body).unwrap_or_default();
    let mut buf = BytesMut::with_capacity(15 + client_id.len() + json.len());
    buf.put_i32(0);
    buf.put_i16(api_key);
    buf.put_i16(0);
    buf.put_i32(correlation_id);
    buf.put_i16(client_id.len() as i16);
    buf.put_slice(client_id.as_bytes());
    buf.put_u8(0);
    buf.put_slice(&json);
    let len = (buf.len() - 4) as i32;
    buf[..4].copy_from_slice(&len.to_be_bytes());
    buf
}

/// Encodes an internal response frame.
pub fn encode_internal_response(correlation_id: i32, body: &impl Serialize) -> BytesMut {
    let json = serde_json::to_vec(body).unwrap_or_default();
    let mut buf = BytesMut::with_capacity(8 + json.len());
    buf.put_i32((4 + json.len()) as i32);
    buf.put_i32(correlation_id);
    buf.put_slice(&json);
    buf
}

/// Why a call failed. The client drops its connection on every error, so the next call
/// reconnects.
#[derive(Debug, thiserror::Error)]
pub enum RpcError {
    #[error("connect to {addr}: {source}")]
    Connect {
        addr: String,
        source: std::io::Error,
    },
    #[error("request timed out after {0} ms")]
    Timeout(u64),
    #[error("connection: {0}")]
    Io(String),
    #[error("connection closed by the peer")]
    Closed,
    #[error("bad response: {0}")]
    BadResponse(String),
}

/// A client for one peer: one connection, one request in flight at a time (callers queue in
/// order), a timeout per request, reconnection after any failure.
pub struct RpcClient<N: Net> {
    net: N,
    addr: String,
    client_id: String,
    conn: Mutex<Option<N::Stream>>,
    next_correlation_id: Cell<i32>,
}

impl<N: Net> RpcClient<N> {
    pub fn new(net: N, addr: impl Into<String>, client_id: impl Into<String>) -> Self {
        Self {
            net,
            addr: addr.into(),
            client_id: client_id.into(),
            conn: Mutex::new(None),
            next_correlation_id: Cell::new(0),
        }
    }

    pub fn addr(&self) -> &str {
        &self.addr
    }

    fn correlation_id(&self) -> i32 {
        let id = self.next_correlation_id.get();
        self.next_correlation_id.set(id.wrapping_add(1));
        id
    }

    /// Closes the connection (the next call reconnects).
    pub async fn disconnect(&self) {
        *self.conn.lock().await = None;
    }

    /// Sends one frame and reads the answer frame within `timeout_ms` (connecting first if
    /// needed).
    async fn round_trip(&self, frame: &[u8], timeout_ms: u64) -> Result<Bytes, RpcError> {
        let mut guard = self.conn.lock().await;
        let attempt = async {
            if guard.is_none() {
                let stream =
                    self.net
                        .connect(&self.addr)
                        .await
                        .map_err(|source| RpcError::Connect {
                            addr: self.addr.clone(),
                            source,
                        })?;
                *guard = Some(stream);
            }
            let Some(stream) = guard.as_mut() else {
                return Err(RpcError::Closed);
            };
            write_frame(stream, frame)
                .await
                .map_err(|e| RpcError::Io(e.to_string()))?;
            match FrameReader::new().read(stream).await {
                Ok(Some(body)) => Ok(body),
                Ok(None) => Err(RpcError::Closed),
                Err(e) => Err(RpcError::Io(e.to_string())),
            }
        };
        let result =
            match tokio::time::timeout(std::time::Duration::from_millis(timeout_ms), attempt).await
            {
                Ok(r) => r,
                Err(_) => Err(RpcError::Timeout(timeout_ms)),
            };
        if result.is_err() {
            *guard = None;
        }
        result
    }

    /// Sends a Kafka request at `version` and decodes the response.
    pub async fn call(
        &self,
        request: Request,
        version: i16,
        timeout_ms: u64,
    ) -> Result<Response, RpcError> {
        let api = request.api();
        let correlation_id = self.correlation_id();
        let header = RequestHeader::default()
            .with_request_api_key(api.key())
            .with_request_api_version(version)
            .with_correlation_id(correlation_id)
            .with_client_id(Some(protocol::messages::StrBytes::from_string(
                self.client_id.clone(),
            )));
        let frame = encode_request_frame(&header, &request)
            .map_err(|e| RpcError::BadResponse(format!("cannot encode {api}: {e}")))?;
        let body = self.round_trip(&frame, timeout_ms).await?;
        let (header, response) = decode_response_frame(api, version, body)
            .map_err(|e| RpcError::BadResponse(format!("{api} v{version}: {e}")))?;
        if header.correlation_id != correlation_id {
            self.disconnect().await;
            return Err(RpcError::BadResponse(format!(
                "correlation id {} where {correlation_id} was expected",
                header.correlation_id
            )));
        }
        Ok(response)
    }

    /// Sends an internal request and decodes its JSON response.
    pub async fn call_internal<Req: Serialize, Resp: DeserializeOwned>(
        &self,
        api_key: i16,
        request: &Req,
        timeout_ms: u64,
    ) -> Result<Resp, RpcError> {
        let correlation_id = self.correlation_id();
        let frame = encode_internal_request(api_key, correlation_id, &self.client_id, request);
        let body = self.round_trip(&frame, timeout_ms).await?;
        if body.len() < 4 {
            self.disconnect().await;
            return Err(RpcError::BadResponse(
                "response shorter than its header".into(),
            ));
        }
        let got = i32::from_be_bytes([body[0], body[1], body[2], body[3]]);
        if got != correlation_id {
            self.disconnect().await;
            return Err(RpcError::BadResponse(format!(
                "correlation id {got} where {correlation_id} was expected"
            )));
        }
        serde_json::from_slice(&body[4..]).map_err(|e| RpcError::BadResponse(e.to_string()))
    }
}

/// Reads one frame from `stream` (for servers); `Ok(None)` at a clean end of stream.
pub async fn read_request_frame<S: tokio::io::AsyncRead + Unpin>(
    stream: &mut S,
) -> Result<Option<Bytes>, protocol::frame::FrameError> {
    read_frame(stream).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_frames_round_trip() {
        let req = MetadataFetchRequest {
            cluster_id: "c".into(),
            broker_id: 1,
            fetch_offset: 5,
            max_wait_ms: 500,
            max_records: 100,
        };
        let frame = encode_internal_request(METADATA_FETCH, 9, "broker-1", &req).freeze();
        let size = i32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]) as usize;
        assert_eq!(size, frame.len() - 4);
        match decode_inbound(frame.slice(4..), true).unwrap() {
            InboundFrame::Internal {
                api_key,
                correlation_id,
                body,
            } => {
                assert_eq!((api_key, correlation_id), (METADATA_FETCH, 9));
                let back: MetadataFetchRequest = serde_json::from_slice(&body).unwrap();
                assert_eq!(back, req);
            }
            other => panic!("{other:?}"),
        }
        // On a client listener the same key is an unknown api key.
        assert!(matches!(
            decode_inbound(frame.slice(4..), false),
            Err(FrameError::Wire(protocol::error::WireError::UnknownApiKey(
                10_000
            )))
        ));
        // Truncated headers are refused.
        assert!(decode_inbound(Bytes::from_static(&[0x27, 0x10, 0, 0]), true).is_err());
    }
}

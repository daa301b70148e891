//! Responses: one enum over every api regroup serves, response headers, and response frames.
//!
//! A response is written at the version of the request it answers, behind response header v1
//! for flexible versions and v0 otherwise -- except ApiVersions, whose response header is
//! always v0 so that a client can read it whatever version the broker chose.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};

use crate::api::Api;
use crate::error::{DecodeError, ErrorCode, WireError};
use crate::messages::api_versions_response::ApiVersion;
use crate::messages::*;
use crate::request::{patch_size, shift};

macro_rules! define_response {
    ($($variant:ident => $req:ident, $resp:ident;)*) => {
        /// A response of any api regroup serves.
        // Variants are unboxed so code can match on them directly; a message is moved a few
        // times per frame at most, so the size spread does not matter.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum Response {
            $($variant($resp),)*
        }

        impl Response {
            /// The api of this response.
            pub fn api(&self) -> Api {
                match self {
                    $(Response::$variant(_) => Api::$variant,)*
                }
            }

            fn decode_typed(api: Api, version: i16, buf: &mut Bytes) -> anyhow::Result<Response> {
                Ok(match api {
                    $(Api::$variant => Response::$variant(<$resp>::decode(buf, version)?),)*
                })
            }

            fn encode_typed(&self, version: i16, buf: &mut BytesMut) -> anyhow::Result<()> {
                match self {
                    $(Response::$variant(m) => m.encode(buf, version),)*
                }
            }
        }

        $(
            impl From<$resp> for Response {
                fn from(m: $resp) -> Response {
                    Response::$variant(m)
                }
            }
        )*
    };
}

crate::for_each_api!(define_response);

impl Response {
    /// Decodes a response body of api `api_key` at `version` from `buf`.
    ///
    /// Large bodies that decoded are remembered (per thread, a few at a time), and the same bytes
    /// at the same api and version are answered with a copy of what they decoded to, which is
    /// what decoding them again gives: at 2,000 members every member thread decodes the same
    /// Metadata response of the 2,000-partition input topic, and that decoding was an eighth of
    /// a run (callgrind).
    pub fn decode(api_key: i16, version: i16, buf: &mut Bytes) -> Result<Response, WireError> {
        let api = Api::from_key(api_key).ok_or(WireError::UnknownApiKey(api_key))?;
        if !api.supports(version) {
            return Err(WireError::UnsupportedVersion { api, version });
        }
        if buf.len() < decoded::MIN_BODY {
            return Response::decode_uncached(api, version, buf);
        }
        let key = decoded::Key::new(api, version, buf);
        if let Some((response, used)) = decoded::get(&key, buf) {
            bytes::Buf::advance(buf, used);
            return Ok(response);
        }
        let body = buf.clone();
        let response = Response::decode_uncached(api, version, buf)?;
        decoded::put(key, &body, body.len() - buf.len(), &response);
        Ok(response)
    }

    fn decode_uncached(api: Api, version: i16, buf: &mut Bytes) -> Result<Response, WireError> {
        // The schema walk first: it rejects what kafka-protocol's decoders would choke on
        // (declared lengths past the end of the input) and names the offset.
        let schema = crate::schema::message(api, crate::schema::Direction::Response);
        crate::schema::validate(schema, version, &buf[..])?;
        let start = buf.len();
        Response::decode_typed(api, version, buf).map_err(|e| {
            DecodeError::new(
                start - buf.len(),
                format!("{api} v{version} response: {e:#}"),
            )
            .into()
        })
    }

    /// Encodes the body at `version`.
    pub fn encode(&self, version: i16, buf: &mut BytesMut) -> Result<(), WireError> {
        let api = self.api();
        if !api.supports(version) {
            return Err(WireError::UnsupportedVersion { api, version });
        }
        self.encode_typed(version, buf)
            .map_err(|e| WireError::Encode {
                api,
                version,
                message: format!("{e:#}"),
            })
    }
}

/// Decodes a response header of `api` at `version` (v0 or v1 as Kafka chooses).
pub fn decode_response_header(
    api: Api,
    version: i16,
    buf: &mut Bytes,
) -> Result<ResponseHeader, WireError> {
    let start = buf.len();
    ResponseHeader::decode(buf, api.response_header_version(version))
        .map_err(|e| DecodeError::new(start - buf.len(), format!("response header: {e:#}")).into())
}

/// Encodes a whole response frame: size prefix, response header with `correlation_id` at the
/// header version of (`api`, `version`), then the body.
pub fn encode_response_frame(
    correlation_id: i32,
    api: Api,
    version: i16,
    response: &Response,
) -> Result<BytesMut, WireError> {
    if response.api() != api {
        return Err(WireError::ApiMismatch {
            expected: api,
            actual: response.api(),
        });
    }
    let mut buf = response_frame_head(correlation_id, api, version)?;
    match response {
        Response::Metadata(m) => encoded::metadata(m, version, response, &mut buf)?,
        _ => response.encode(version, &mut buf)?,
    }
    patch_size(&mut buf);
    Ok(buf)
}

/// The size placeholder and the response header of a frame.
fn response_frame_head(correlation_id: i32, api: Api, version: i16) -> Result<BytesMut, WireError> {
    let mut buf = BytesMut::new();
    buf.put_i32(0);
    let header = ResponseHeader::default().with_correlation_id(correlation_id);
    header
        .encode(&mut buf, api.response_header_version(version))
        .map_err(|e| WireError::Encode {
            api,
            version,
            message: format!("response header: {e:#}"),
        })?;
    Ok(buf)
}

/// A response frame around `body`, a response of `api` already encoded at `version` (with
/// [`Response::encode`]): the same bytes as [`encode_response_frame`] writes for that response.
/// For a server that remembers the bodies it sends again and again (a broker's Metadata answers).
pub fn encode_response_frame_with_body(
    correlation_id: i32,
    api: Api,
    version: i16,
    body: &[u8],
) -> Result<BytesMut, WireError> {
    let mut buf = response_frame_head(correlation_id, api, version)?;
    buf.extend_from_slice(body);
    patch_size(&mut buf);
    Ok(buf)
}

/// The last few Metadata response bodies encoded (per thread): a broker answers every member's
/// Metadata request with the same response until the metadata changes, and at 2,000 members
/// encoding that 2,000-partition response for each was a tenth of a run (callgrind). A response
/// equal to a remembered one, at the same version, gets the remembered bytes, which is what
/// encoding it again writes.
mod encoded {
    use std::cell::RefCell;
    use std::collections::VecDeque;

    use bytes::{Bytes, BytesMut};

    use super::Response;
    use crate::error::WireError;
    use crate::messages::MetadataResponse;

    const SLOTS: usize = 4;

    thread_local! {
        static LAST: RefCell<VecDeque<(i16, MetadataResponse, Bytes)>> =
            const { RefCell::new(VecDeque::new()) };
    }

    /// Appends the body of `m` (which `response` wraps) at `version` to `buf`.
    pub(super) fn metadata(
        m: &MetadataResponse,
        version: i16,
        response: &Response,
        buf: &mut BytesMut,
    ) -> Result<(), WireError> {
        let hit = LAST.with_borrow(|last| {
            last.iter()
                .find(|(v, r, _)| *v == version && r == m)
                .map(|(_, _, body)| body.clone())
        });
        if let Some(body) = hit {
            buf.extend_from_slice(&body);
            return Ok(());
        }
        let mut body = BytesMut::new();
        response.encode(version, &mut body)?;
        buf.extend_from_slice(&body);
        LAST.with_borrow_mut(|last| {
            if last.len() == SLOTS {
                last.pop_front();
            }
            last.push_back((version, m.clone(), body.freeze()));
        });
        Ok(())
    }
}

/// Decodes one response frame body (everything after the size prefix) for a request of
/// `api` at `version`. Decode offsets count from the first byte of the frame.
pub fn decode_response_frame(
    api: Api,
    version: i16,
    mut body: Bytes,
) -> Result<(ResponseHeader, Response), WireError> {
    let total = body.len();
    let header = decode_response_header(api, version, &mut body).map_err(|e| shift(e, 4))?;
    let consumed = total - body.len();
    let response =
        Response::decode(api.key(), version, &mut body).map_err(|e| shift(e, 4 + consumed))?;
    Ok((header, response))
}

/// The answer Kafka gives to an ApiVersions request whose version it does not support
/// (`ApiVersionsRequest.getErrorResponse` with UNSUPPORTED_VERSION): error code 35 and an api
/// list holding only ApiVersions' own range. Encode it at version **0** (the request is treated
/// as v0, so there is no throttle time), e.g. with
/// `encode_response_frame(corr, Api::ApiVersions, 0, &api_versions_unsupported_response())`.
pub fn api_versions_unsupported_response() -> Response {
    Response::ApiVersions(
        ApiVersionsResponse::default()
            .with_error_code(ErrorCode::UnsupportedVersion.code())
            .with_api_keys(vec![
                ApiVersion::default()
                    .with_api_key(Api::ApiVersions.key())
                    .with_min_version(Api::ApiVersions.min_version())
                    .with_max_version(Api::ApiVersions.max_version()),
            ]),
    )
}

/// The memo of decoded large response bodies ([`Response::decode`], [`crate::body_memo`]): the
/// response and the bytes its decode used, by the body's bytes.
mod decoded {
    use std::cell::RefCell;

    use super::Response;
    use crate::api::Api;
    use crate::body_memo::{BodyMemo, body_hash};

    /// Smaller bodies are decoded every time (they decode about as fast as they are looked up).
    pub(super) const MIN_BODY: usize = 1024;
    const SLOTS: usize = 16;
    /// The body bytes all slots may hold together.
    const MAX_TOTAL: usize = 8 << 20;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) struct Key {
        api: Api,
        version: i16,
        hash: u64,
    }

    impl Key {
        pub(super) fn new(api: Api, version: i16, body: &[u8]) -> Key {
            Key {
                api,
                version,
                hash: body_hash(body),
            }
        }
    }

    thread_local! {
        static MEMO: RefCell<BodyMemo<Key, (Response, usize)>> =
            RefCell::new(BodyMemo::new(SLOTS, MAX_TOTAL));
    }

    /// The response and the bytes its decode used (anything after them is trailing).
    pub(super) fn get(key: &Key, body: &[u8]) -> Option<(Response, usize)> {
        MEMO.with_borrow(|m| m.get(key.hash, key, body))
    }

    pub(super) fn put(key: Key, body: &[u8], used: usize, response: &Response) {
        MEMO.with_borrow_mut(|m| m.put(key.hash, key, body, (response.clone(), used)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::messages::metadata_response::{MetadataResponsePartition, MetadataResponseTopic};

    fn metadata(partitions: i32) -> Response {
        Response::Metadata(MetadataResponse::default().with_topics(vec![
                MetadataResponseTopic::default()
                    .with_name(Some(TopicName(StrBytes::from_static_str("input"))))
                    .with_partitions(
                        (0..partitions)
                            .map(|p| {
                                MetadataResponsePartition::default()
                                    .with_partition_index(p)
                                    .with_replica_nodes(vec![BrokerId(1), BrokerId(2)])
                            })
                            .collect(),
                    ),
            ]))
    }

    #[test]
    fn a_remembered_metadata_response_encodes_as_it_did() {
        for version in [0, 9, Api::Metadata.max_version()] {
            for partitions in [1, 200, 201] {
                let fresh = |corr| {
                    let mut buf = BytesMut::new();
                    buf.put_i32(0);
                    ResponseHeader::default()
                        .with_correlation_id(corr)
                        .encode(&mut buf, Api::Metadata.response_header_version(version))
                        .unwrap();
                    metadata(partitions).encode(version, &mut buf).unwrap();
                    patch_size(&mut buf);
                    buf
                };
                for corr in [1, 2, 3] {
                    let framed =
                        encode_response_frame(corr, Api::Metadata, version, &metadata(partitions))
                            .unwrap();
                    assert_eq!(framed, fresh(corr));
                }
            }
        }
    }

    #[test]
    fn a_frame_around_an_encoded_body_is_the_encoded_frame() {
        for (api, response) in [
            (Api::Metadata, metadata(3)),
            (Api::ApiVersions, api_versions_unsupported_response()),
        ] {
            for version in [0, 3, api.max_version()] {
                let mut body = BytesMut::new();
                response.encode(version, &mut body).unwrap();
                for corr in [7, -1] {
                    assert_eq!(
                        encode_response_frame_with_body(corr, api, version, &body).unwrap(),
                        encode_response_frame(corr, api, version, &response).unwrap(),
                        "{api} v{version}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_remembered_body_decodes_as_it_did() {
        let version = Api::Metadata.max_version();
        for partitions in [1, 200] {
            let mut body = BytesMut::new();
            metadata(partitions).encode(version, &mut body).unwrap();
            let used = body.len();
            body.extend_from_slice(b"trailing");
            let body = body.freeze();
            assert_eq!(used >= decoded::MIN_BODY, partitions == 200);
            for _ in 0..3 {
                let mut buf = body.clone();
                let r = Response::decode(Api::Metadata.key(), version, &mut buf).unwrap();
                assert_eq!(r, metadata(partitions));
                assert_eq!(buf.len(), b"trailing".len());
            }
            // The same bytes cut short fail as they did, remembered or not.
            let mut short = body.slice(..used - 1);
            let mut fresh = short.clone();
            assert_eq!(
                Response::decode(Api::Metadata.key(), version, &mut short)
                    .map_err(|e| e.to_string()),
                Response::decode_uncached(Api::Metadata, version, &mut fresh)
                    .map_err(|e| e.to_string()),
            );
        }
    }
}

//! Requests: one enum over every api regroup serves, request headers, and request frames.
//!
//! # What Kafka 4.4 does with a request it cannot serve
//!
//! The broker's network layer (`org.apache.kafka.network.Processor.parseRequestHeader`, called
//! from `SocketServer.Processor.processCompletedReceives`) parses the header first:
//!
//! * **Unknown api key**: `RequestHeader.parse` throws `InvalidRequestException`; the processor
//!   closes the connection without answering.
//! * **Known api, version outside its range** (or an api not enabled on this listener): an
//!   `UnsupportedVersionException` (or `InvalidRequestException`) is thrown and the connection is
//!   closed, again without a response. The client learns about it only as a disconnect.
//! * **ApiVersions at any version** is accepted (`ApiKeys.isVersionEnabled` returns true for it):
//!   a client always opens with the highest ApiVersions version it knows. When that version is
//!   unsupported, `RequestContext.parseRequest` does not parse the body and treats the request as
//!   v0; `KafkaApis.handleApiVersionsRequest` answers with
//!   `ApiVersionsRequest.getErrorResponse`: a **v0** body with error UNSUPPORTED_VERSION (35) and
//!   an ApiKeys list holding only ApiVersions' own range (KIP-511), behind response header v0.
//!   The client then retries with the highest ApiVersions version in that list.
//! * A body that fails to parse (`InvalidRequestException` from `RequestContext.parseRequest`)
//!   also closes the connection.
//!
//! [`decode_request_frame`] sorts a frame into exactly these cases: it returns
//! [`IncomingRequest::UnsupportedApiVersions`] for the ApiVersions case (answer it with
//! [`crate::response::api_versions_unsupported_response`]) and an error for every case where
//! Kafka closes the connection. Like Kafka, bytes left after the body are ignored.

use bytes::{BufMut, Bytes, BytesMut};
use kafka_protocol::protocol::{Decodable, Encodable};

use crate::api::Api;
use crate::error::{DecodeError, WireError};
use crate::messages::*;

macro_rules! define_request {
    ($($variant:ident => $req:ident, $resp:ident;)*) => {
        /// A request of any api regroup serves.
        // Variants are unboxed so code can match on them directly; a message is moved a few
        // times per frame at most, so the size spread does not matter.
        #[allow(clippy::large_enum_variant)]
        #[derive(Debug, Clone, PartialEq)]
        pub enum Request {
            $($variant($req),)*
        }

        impl Request {
            /// The api of this request.
            pub fn api(&self) -> Api {
                match self {
                    $(Request::$variant(_) => Api::$variant,)*
                }
            }

            fn decode_typed(api: Api, version: i16, buf: &mut Bytes) -> anyhow::Result<Request> {
                Ok(match api {
                    $(Api::$variant => Request::$variant(<$req>::decode(buf, version)?),)*
                })
            }

            fn encode_typed(&self, version: i16, buf: &mut BytesMut) -> anyhow::Result<()> {
                match self {
                    $(Request::$variant(m) => m.encode(buf, version),)*
                }
            }
        }

        $(
            impl From<$req> for Request {
                fn from(m: $req) -> Request {
                    Request::$variant(m)
                }
            }
        )*
    };
}

crate::for_each_api!(define_request);

impl Request {
    /// Decodes a request body of api `api_key` at `version` from `buf` (which is advanced past
    /// the body; trailing bytes are left in place, as Kafka ignores them).
    pub fn decode(api_key: i16, version: i16, buf: &mut Bytes) -> Result<Request, WireError> {
        let api = Api::from_key(api_key).ok_or(WireError::UnknownApiKey(api_key))?;
        if !api.supports(version) {
            return Err(WireError::UnsupportedVersion { api, version });
        }
        // The schema walk first: it rejects what kafka-protocol's decoders would choke on
        // (declared lengths past the end of the input) and names the offset.
        let schema = crate::schema::message(api, crate::schema::Direction::Request);
        crate::schema::validate(schema, version, &buf[..])?;
        let start = buf.len();
        Request::decode_typed(api, version, buf).map_err(|e| {
            DecodeError::new(
                start - buf.len(),
                format!("{api} v{version} request: {e:#}"),
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

/// Decodes a request header, choosing header v1 or v2 from the api key and version the way
/// Kafka does. The key must be one regroup serves; the version need not be (so an ApiVersions
/// request of a future version can still be answered).
pub fn decode_request_header(buf: &mut Bytes) -> Result<RequestHeader, WireError> {
    if buf.len() < 4 {
        return Err(DecodeError::new(
            buf.len(),
            "request header: need 4 bytes for api key and version",
        )
        .into());
    }
    let api_key = i16::from_be_bytes([buf[0], buf[1]]);
    let version = i16::from_be_bytes([buf[2], buf[3]]);
    let api = Api::from_key(api_key).ok_or(WireError::UnknownApiKey(api_key))?;
    let start = buf.len();
    RequestHeader::decode(buf, api.request_header_version(version))
        .map_err(|e| DecodeError::new(start - buf.len(), format!("request header: {e:#}")).into())
}

/// Encodes `header` at the header version its api key and version call for.
pub fn encode_request_header(header: &RequestHeader, buf: &mut BytesMut) -> Result<(), WireError> {
    let api = Api::from_key(header.request_api_key)
        .ok_or(WireError::UnknownApiKey(header.request_api_key))?;
    let version = header.request_api_version;
    header
        .encode(buf, api.request_header_version(version))
        .map_err(|e| WireError::Encode {
            api,
            version,
            message: format!("request header: {e:#}"),
        })
}

/// What a server should do with one request frame (see the module documentation).
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq)]
pub enum IncomingRequest {
    /// A request regroup can serve.
    Request {
        header: RequestHeader,
        request: Request,
    },
    /// An ApiVersions request at a version regroup does not serve: its body was not parsed;
    /// answer with [`crate::response::api_versions_unsupported_response`] at version 0.
    UnsupportedApiVersions { header: RequestHeader },
}

/// Decodes one request frame body (everything after the int32 size prefix).
///
/// Errors are the cases where Kafka closes the connection without answering. Decode offsets
/// count from the first byte of the frame, size prefix included.
pub fn decode_request_frame(mut body: Bytes) -> Result<IncomingRequest, WireError> {
    let total = body.len();
    let header = decode_request_header(&mut body).map_err(|e| shift(e, 4))?;
    let api = Api::from_key(header.request_api_key)
        .ok_or(WireError::UnknownApiKey(header.request_api_key))?;
    let version = header.request_api_version;
    if !api.supports(version) {
        if api == Api::ApiVersions {
            return Ok(IncomingRequest::UnsupportedApiVersions { header });
        }
        return Err(WireError::UnsupportedVersion { api, version });
    }
    let consumed = total - body.len();
    let request =
        Request::decode(api.key(), version, &mut body).map_err(|e| shift(e, 4 + consumed))?;
    Ok(IncomingRequest::Request { header, request })
}

/// Encodes a whole request frame: size prefix, header (at the right header version) and
/// body at `header.request_api_version`.
pub fn encode_request_frame(
    header: &RequestHeader,
    request: &Request,
) -> Result<BytesMut, WireError> {
    let api = request.api();
    if header.request_api_key != api.key() {
        return Err(WireError::Encode {
            api,
            version: header.request_api_version,
            message: format!("header names api key {}", header.request_api_key),
        });
    }
    let mut buf = BytesMut::new();
    buf.put_i32(0);
    encode_request_header(header, &mut buf)?;
    request.encode(header.request_api_version, &mut buf)?;
    patch_size(&mut buf);
    Ok(buf)
}

/// Writes the frame length (everything after the 4-byte prefix) into the prefix.
pub(crate) fn patch_size(buf: &mut BytesMut) {
    let len = (buf.len() - 4) as i32;
    buf[..4].copy_from_slice(&len.to_be_bytes());
}

pub(crate) fn shift(e: WireError, by: usize) -> WireError {
    match e {
        WireError::Decode(d) => WireError::Decode(d.shifted(by)),
        other => other,
    }
}

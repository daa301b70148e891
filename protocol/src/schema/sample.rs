//! The smallest legal instance of a message, as the seed page `broker-heartbeat-wire-layout.txt`
//! defines it: numbers zero, bools false, strings and byte arrays empty, every array holding
//! exactly one sample element, every records field one empty 61-byte RecordBatch v2, nullable
//! values present (not null), and tagged fields at their default, so they are not written.
//! A request frame carries correlation id 0 and client id "" (not null).

use bytes::BytesMut;
use kafka_protocol::protocol::Encodable;
use serde_json::{Map, Value};

use super::{Direction, Field, MessageSchema, Type, message};
use crate::api::Api;
use crate::json::{JsonError, base64_encode, encode_body, kafka_uuid_string};
use crate::messages::{RequestHeader, ResponseHeader, StrBytes};
use crate::request::encode_request_header;

fn sample_value(ty: &Type, version: i16) -> Value {
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64 | Type::Uint16 | Type::Uint32 => {
            Value::from(0)
        }
        Type::Float64 => Value::from(0.0),
        Type::String | Type::Bytes => Value::String(String::new()),
        Type::Records => Value::String(base64_encode(&super::empty_record_batch())),
        Type::Uuid => Value::String(kafka_uuid_string(&[0; 16])),
        Type::Struct(s) => Value::Object(sample_fields(s.fields, version)),
        Type::Array(elem) => Value::Array(vec![sample_value(elem, version)]),
    }
}

fn sample_fields(fields: &[Field], version: i16) -> Map<String, Value> {
    fields
        .iter()
        .filter(|f| f.is_present(version) && f.tag_at(version).is_none())
        .map(|f| (f.json_name(), sample_value(&f.ty, version)))
        .collect()
}

/// The sample of `schema` at `version` as Kafka-style JSON (tagged fields left out, so they
/// take their defaults).
pub fn sample_json(schema: &MessageSchema, version: i16) -> Value {
    Value::Object(sample_fields(schema.fields, version))
}

/// The sample body (no header, no size prefix).
pub fn sample_body(api: Api, direction: Direction, version: i16) -> Result<Vec<u8>, JsonError> {
    let schema = message(api, direction);
    encode_body(schema, version, &sample_json(schema, version))
}

/// The sample as a whole frame: size prefix, header (request: correlation id 0, client id "";
/// response: correlation id 0) at the header version Kafka uses, and the body.
pub fn sample_frame(api: Api, direction: Direction, version: i16) -> Result<Vec<u8>, JsonError> {
    let body = sample_body(api, direction, version)?;
    let mut frame = BytesMut::new();
    frame.extend_from_slice(&[0; 4]);
    match direction {
        Direction::Request => {
            let header = RequestHeader::default()
                .with_request_api_key(api.key())
                .with_request_api_version(version)
                .with_correlation_id(0)
                .with_client_id(Some(StrBytes::from_static_str("")));
            encode_request_header(&header, &mut frame)?;
        }
        Direction::Response => {
            ResponseHeader::default()
                .with_correlation_id(0)
                .encode(&mut frame, api.response_header_version(version))
                .map_err(|e| JsonError::Invalid {
                    path: "ResponseHeader".into(),
                    message: e.to_string(),
                })?;
        }
    }
    frame.extend_from_slice(&body);
    let len = (frame.len() - 4) as i32;
    frame[..4].copy_from_slice(&len.to_be_bytes());
    Ok(frame.to_vec())
}

//! JSON conversion of requests and responses, in the style of Kafka's generated
//! `*JsonConverter` classes (`generator/.../JsonConverterGenerator.java`):
//!
//! * field names are Kafka's names with the first letter lower-cased (`brokerEpoch`);
//! * all integers, including int64, are JSON numbers; `float64` is a JSON number;
//! * a `uuid` is Kafka's `Uuid.toString()` form (URL-safe base64 without padding, 22 chars);
//! * `bytes` are standard base64 (with padding), as Jackson writes a `BinaryNode`;
//! * a null string, bytes, array or struct is JSON `null`;
//! * a field that does not exist in the version is omitted when writing, and so is a tagged
//!   field that holds its default (as Kafka's `write` does).
//!
//! Where regroup differs, on purpose:
//!
//! * `records` are written as the base64 of the actual record bytes, so a message survives a
//!   round trip (Kafka writes an empty byte string, or only a `...SizeInBytes` count).
//! * Reading is lenient about **missing** fields: one that exists in the version but is absent
//!   from the JSON takes its schema default (Kafka's reader rejects it as mandatory). This lets
//!   scripts name only the fields they care about.
//! * Reading is strict about **unknown** fields: a key that is not a field of the struct in any
//!   version is an error naming it (Kafka ignores unknown keys).
//! * A field given in JSON that does not exist in the version is accepted only when it holds its
//!   default or is ignorable (Kafka reads it and then fails when serializing such a message).
//! * int8 accepts -128..=127 only (Kafka also maps 128..=256 to `value - 128`).

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use std::collections::BTreeMap;

use bytes::Bytes;
use serde_json::Value;

use crate::api::Api;
use crate::error::WireError;
use crate::request::Request;
use crate::response::Response;
use crate::schema::walk::{default_json, walk_body};
use crate::schema::{Direction, Field, MessageSchema, Type, message};

/// A JSON document that does not describe a message of the requested api and version.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JsonError {
    #[error("{path}: unknown field '{field}'")]
    UnknownField { path: String, field: String },
    #[error("{path}: expected {expected}, found {found}")]
    WrongType {
        path: String,
        expected: &'static str,
        found: String,
    },
    #[error("{path}: {message}")]
    Invalid { path: String, message: String },
    #[error("{path}: field is not available in version {version} and does not hold its default")]
    NotInVersion { path: String, version: i16 },
    #[error(transparent)]
    Wire(#[from] WireError),
}

/// Standard base64 with padding (how Kafka's JSON carries `bytes`).
pub fn base64_encode(bytes: &[u8]) -> String {
    STANDARD.encode(bytes)
}

/// Decodes standard padded base64.
pub fn base64_decode(text: &str) -> Option<Vec<u8>> {
    STANDARD.decode(text).ok()
}

/// Kafka's string form of a uuid (`Uuid.toString()`): URL-safe base64 without padding.
pub fn kafka_uuid_string(bytes: &[u8; 16]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// Parses Kafka's uuid string form.
pub fn parse_kafka_uuid(text: &str) -> Option<[u8; 16]> {
    if text.len() != 22 {
        return None;
    }
    URL_SAFE_NO_PAD.decode(text).ok()?.try_into().ok()
}

fn found(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(_) => "a boolean".into(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(_) => "a string".into(),
        Value::Array(_) => "an array".into(),
        Value::Object(_) => "an object".into(),
    }
}

struct Encoder {
    version: i16,
    flexible: bool,
}

fn put_uvarint(buf: &mut Vec<u8>, mut v: u32) {
    while v >= 0x80 {
        buf.push((v as u8) | 0x80);
        v >>= 7;
    }
    buf.push(v as u8);
}

impl Encoder {
    fn len(
        &self,
        buf: &mut Vec<u8>,
        len: Option<usize>,
        compact: bool,
        wide: bool,
        path: &str,
    ) -> Result<(), JsonError> {
        let too_long = || JsonError::Invalid {
            path: path.to_string(),
            message: "too long to encode".into(),
        };
        match (len, compact) {
            (None, true) => put_uvarint(buf, 0),
            (None, false) if wide => buf.extend_from_slice(&(-1i32).to_be_bytes()),
            (None, false) => buf.extend_from_slice(&(-1i16).to_be_bytes()),
            (Some(n), true) => put_uvarint(buf, u32::try_from(n + 1).map_err(|_| too_long())?),
            (Some(n), false) if wide => {
                buf.extend_from_slice(&i32::try_from(n).map_err(|_| too_long())?.to_be_bytes())
            }
            (Some(n), false) => {
                buf.extend_from_slice(&i16::try_from(n).map_err(|_| too_long())?.to_be_bytes())
            }
        }
        Ok(())
    }

    fn int(
        &self,
        v: &Value,
        min: i64,
        max: i64,
        ty: &'static str,
        path: &str,
    ) -> Result<i64, JsonError> {
        let n = match v {
            Value::Number(n) => n.as_i64(),
            _ => None,
        };
        match n {
            Some(n) if (min..=max).contains(&n) => Ok(n),
            Some(n) => Err(JsonError::Invalid {
                path: path.to_string(),
                message: format!("value {n} does not fit in {ty}"),
            }),
            None => Err(JsonError::WrongType {
                path: path.to_string(),
                expected: "an integer",
                found: found(v),
            }),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn value(
        &self,
        buf: &mut Vec<u8>,
        ty: &Type,
        v: &Value,
        nullable: bool,
        tagged: bool,
        path: &str,
    ) -> Result<(), JsonError> {
        let compact = self.flexible || tagged;
        if v.is_null() {
            if matches!(
                ty,
                Type::String | Type::Bytes | Type::Records | Type::Struct(_) | Type::Array(_)
            ) && nullable
            {
                match ty {
                    Type::Struct(_) if tagged => put_uvarint(buf, 0),
                    Type::Struct(_) => buf.push(0xff),
                    Type::String => self.len(buf, None, compact, false, path)?,
                    _ => self.len(buf, None, compact, true, path)?,
                }
                return Ok(());
            }
            return Err(JsonError::Invalid {
                path: path.to_string(),
                message: format!("null is not allowed here in version {}", self.version),
            });
        }
        match ty {
            Type::Bool => match v {
                Value::Bool(b) => buf.push(u8::from(*b)),
                other => {
                    return Err(JsonError::WrongType {
                        path: path.to_string(),
                        expected: "a boolean",
                        found: found(other),
                    });
                }
            },
            Type::Int8 => buf.push(self.int(v, -128, 127, "int8", path)? as i8 as u8),
            Type::Int16 => buf.extend_from_slice(
                &(self.int(v, i16::MIN.into(), i16::MAX.into(), "int16", path)? as i16)
                    .to_be_bytes(),
            ),
            Type::Int32 => buf.extend_from_slice(
                &(self.int(v, i32::MIN.into(), i32::MAX.into(), "int32", path)? as i32)
                    .to_be_bytes(),
            ),
            Type::Int64 => buf.extend_from_slice(
                &self
                    .int(v, i64::MIN, i64::MAX, "int64", path)?
                    .to_be_bytes(),
            ),
            Type::Uint16 => buf
                .extend_from_slice(&(self.int(v, 0, 65535, "uint16", path)? as u16).to_be_bytes()),
            Type::Uint32 => buf.extend_from_slice(
                &(self.int(v, 0, u32::MAX.into(), "uint32", path)? as u32).to_be_bytes(),
            ),
            Type::Float64 => match v.as_f64() {
                Some(x) => buf.extend_from_slice(&x.to_be_bytes()),
                None => {
                    return Err(JsonError::WrongType {
                        path: path.to_string(),
                        expected: "a number",
                        found: found(v),
                    });
                }
            },
            Type::Uuid => {
                let parsed = v.as_str().and_then(parse_kafka_uuid).ok_or_else(|| JsonError::Invalid {
                    path: path.to_string(),
                    message: format!("expected a Kafka uuid string (22 characters of URL-safe base64), found {}", found(v)),
                })?;
                buf.extend_from_slice(&parsed);
            }
            Type::String => {
                let s = v.as_str().ok_or_else(|| JsonError::WrongType {
                    path: path.to_string(),
                    expected: "a string",
                    found: found(v),
                })?;
                if s.len() > crate::prim::MAX_STRING_LEN {
                    return Err(JsonError::Invalid {
                        path: path.to_string(),
                        message: format!("string of {} bytes is longer than 32767", s.len()),
                    });
                }
                self.len(buf, Some(s.len()), compact, false, path)?;
                buf.extend_from_slice(s.as_bytes());
            }
            Type::Bytes | Type::Records => {
                let raw = v
                    .as_str()
                    .and_then(base64_decode)
                    .ok_or_else(|| JsonError::Invalid {
                        path: path.to_string(),
                        message: format!("expected base64 text, found {}", found(v)),
                    })?;
                self.len(buf, Some(raw.len()), compact, true, path)?;
                buf.extend_from_slice(&raw);
            }
            Type::Struct(s) => {
                if nullable {
                    if tagged {
                        put_uvarint(buf, 1);
                    } else {
                        buf.push(1);
                    }
                }
                self.fields(buf, s.fields, s.name, v, path)?;
            }
            Type::Array(elem) => {
                let items = v.as_array().ok_or_else(|| JsonError::WrongType {
                    path: path.to_string(),
                    expected: "an array",
                    found: found(v),
                })?;
                self.len(buf, Some(items.len()), compact, true, path)?;
                for (i, item) in items.iter().enumerate() {
                    self.value(buf, elem, item, false, tagged, &format!("{path}[{i}]"))?;
                }
            }
        }
        Ok(())
    }

    fn fields(
        &self,
        buf: &mut Vec<u8>,
        fields: &'static [Field],
        struct_name: &str,
        v: &Value,
        path: &str,
    ) -> Result<(), JsonError> {
        let map = v.as_object().ok_or_else(|| JsonError::WrongType {
            path: path.to_string(),
            expected: "an object",
            found: found(v),
        })?;
        for key in map.keys() {
            if !fields.iter().any(|f| f.json_name() == *key) {
                return Err(JsonError::UnknownField {
                    path: if path.is_empty() {
                        struct_name.to_string()
                    } else {
                        path.to_string()
                    },
                    field: key.clone(),
                });
            }
        }
        let mut tagged = BTreeMap::new();
        for f in fields {
            let name = f.json_name();
            let given = map.get(&name);
            let fpath = if path.is_empty() {
                name.clone()
            } else {
                format!("{path}.{name}")
            };
            if !f.is_present(self.version) {
                if let Some(g) = given
                    && !f.ignorable
                    && !is_default(f, g, self.version)
                {
                    return Err(JsonError::NotInVersion {
                        path: fpath,
                        version: self.version,
                    });
                }
                continue;
            }
            let value = given
                .cloned()
                .unwrap_or_else(|| default_json(f, self.version));
            let nullable = f.is_nullable(self.version);
            match f.tag_at(self.version) {
                Some(tag) => {
                    if !is_default(f, &value, self.version) {
                        let mut b = Vec::new();
                        self.value(&mut b, &f.ty, &value, nullable, true, &fpath)?;
                        tagged.insert(tag, b);
                    }
                }
                None => self.value(buf, &f.ty, &value, nullable, false, &fpath)?,
            }
        }
        if self.flexible {
            put_uvarint(buf, tagged.len() as u32);
            for (tag, b) in tagged {
                put_uvarint(buf, tag);
                put_uvarint(buf, b.len() as u32);
                buf.extend_from_slice(&b);
            }
        }
        Ok(())
    }
}

/// Whether `v` equals the field's default at `version` (missing struct members count as
/// default; numbers compare by value).
pub(crate) fn is_default(f: &Field, v: &Value, version: i16) -> bool {
    same_value(&f.ty, v, &default_json(f, version), version)
}

fn same_value(ty: &Type, a: &Value, b: &Value, version: i16) -> bool {
    match (ty, a, b) {
        (Type::Struct(s), Value::Object(x), Value::Object(y)) => {
            s.fields.iter().filter(|f| f.is_present(version)).all(|f| {
                let name = f.json_name();
                let d = default_json(f, version);
                let xa = x.get(&name).unwrap_or(&d);
                let yb = y.get(&name).unwrap_or(&d);
                same_value(&f.ty, xa, yb, version)
            })
        }
        (Type::Array(elem), Value::Array(x), Value::Array(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|(p, q)| same_value(elem, p, q, version))
        }
        (_, Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(p), Some(q)) => p == q,
            _ => x.as_f64() == y.as_f64(),
        },
        _ => a == b,
    }
}

/// Encodes the body of `schema` at `version` from Kafka-style JSON.
pub fn encode_body(
    schema: &MessageSchema,
    version: i16,
    json: &Value,
) -> Result<Vec<u8>, JsonError> {
    if !schema.versions.contains(version) {
        return Err(WireError::UnsupportedVersion {
            api: schema.api,
            version,
        }
        .into());
    }
    let enc = Encoder {
        version,
        flexible: schema.is_flexible(version),
    };
    let mut buf = Vec::new();
    enc.fields(&mut buf, schema.fields, schema.name, json, "")?;
    Ok(buf)
}

/// The body of `schema` at `version` as Kafka-style JSON.
pub fn decode_body(schema: &MessageSchema, version: i16, body: &[u8]) -> Result<Value, WireError> {
    Ok(walk_body(schema, version, body, 0)?.json)
}

/// Builds a typed request of `api` at `version` from JSON.
pub fn request_from_json(api: Api, version: i16, json: &Value) -> Result<Request, JsonError> {
    let body = encode_body(message(api, Direction::Request), version, json)?;
    Ok(Request::decode(api.key(), version, &mut Bytes::from(body))?)
}

/// A typed request as JSON at `version`.
pub fn request_to_json(request: &Request, version: i16) -> Result<Value, JsonError> {
    let mut buf = bytes::BytesMut::new();
    request.encode(version, &mut buf)?;
    Ok(decode_body(
        message(request.api(), Direction::Request),
        version,
        &buf,
    )?)
}

/// Builds a typed response of `api` at `version` from JSON.
pub fn response_from_json(api: Api, version: i16, json: &Value) -> Result<Response, JsonError> {
    let body = encode_body(message(api, Direction::Response), version, json)?;
    Ok(Response::decode(
        api.key(),
        version,
        &mut Bytes::from(body),
    )?)
}

/// A typed response as JSON at `version`.
pub fn response_to_json(response: &Response, version: i16) -> Result<Value, JsonError> {
    let mut buf = bytes::BytesMut::new();
    response.encode(version, &mut buf)?;
    Ok(decode_body(
        message(response.api(), Direction::Response),
        version,
        &buf,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_known_values() {
        assert_eq!(base64_encode(b""), "");
        assert_eq!(base64_encode(b"f"), "Zg==");
        assert_eq!(base64_encode(b"fo"), "Zm8=");
        assert_eq!(base64_encode(b"foo"), "Zm9v");
        assert_eq!(base64_encode(&[0xfb, 0xff]), "+/8=");
        for s in ["", "Zg==", "Zm8=", "Zm9v", "+/8="] {
            assert_eq!(base64_encode(&base64_decode(s).unwrap()), s);
        }
        assert!(base64_decode("Zg=").is_none());
        assert!(base64_decode("Z===").is_none());
        assert!(
            base64_decode("Zh==").is_none(),
            "non-canonical trailing bits"
        );
        assert!(base64_decode("Zm9v!").is_none());
    }

    #[test]
    fn uuid_strings_match_kafka() {
        // Values printed by kafka-clients 4.4.0 `new Uuid(msb, lsb).toString()`.
        assert_eq!(kafka_uuid_string(&[0; 16]), "AAAAAAAAAAAAAAAAAAAAAA");
        let u = uuid::Uuid::from_u128(0x000102030405060708090a0b0c0d0e0f);
        assert_eq!(kafka_uuid_string(u.as_bytes()), "AAECAwQFBgcICQoLDA0ODw");
        let v = uuid::Uuid::from_u128(0xfbfffe00_0000_0000_0000_0000000000ff);
        let s = kafka_uuid_string(v.as_bytes());
        assert_eq!(parse_kafka_uuid(&s), Some(*v.as_bytes()));
        assert!(parse_kafka_uuid("AAECAwQFBgcICQoLDA0OD").is_none());
    }
}

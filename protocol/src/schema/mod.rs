//! regroup's own description of every request and response it serves, and what runs on it.
//!
//! The table ([`message`], [`all`]) lists, per api and direction, every field at every served
//! version: Kafka's field name, wire type, versions, nullable versions, tag, default, whether it
//! is ignorable, and a short description. It is plain data (`tables.rs`, generated from Kafka
//! 4.4's schemas by `protocol/codegen/generate.py`), and four things run on it:
//!
//! * [`walk`]: parses a body into a tree of (field, type, value, offset, size, description)
//!   for `regroup wire decode`; it checks that every declared length fits in the bytes that are
//!   left before it reads or allocates anything.
//! * [`validate`]: the same walk without building anything, run before every kafka-protocol
//!   decode. kafka-protocol's array decoders call `Vec::with_capacity(declared count)`, so a
//!   frame that declares 2^31-1 elements would abort the process; the pre-pass turns that into
//!   a [`DecodeError`] naming the offset.
//! * [`sample`]: the smallest legal instance of a message, encoded from the schema.
//! * [`crate::json`]: conversion to and from JSON in the style of Kafka's generated
//!   `JsonConverter` classes.
//!
//! The test `every_sample_round_trips_through_the_typed_codec` ties the table to the typed
//! codecs: for every api, version and direction, the typed message decodes the sample bytes and
//! re-encodes them byte for byte.

mod records;
pub mod render;
pub mod sample;
mod tables;
pub mod walk;

pub use records::empty_record_batch;
pub use walk::{Node, Region};

use crate::api::Api;
use crate::error::DecodeError;

/// Request or response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Direction {
    Request,
    Response,
}

impl Direction {
    pub fn name(self) -> &'static str {
        match self {
            Direction::Request => "request",
            Direction::Response => "response",
        }
    }
}

/// An inclusive range of versions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Versions {
    pub min: i16,
    pub max: i16,
}

impl Versions {
    pub const fn new(min: i16, max: i16) -> Self {
        Self { min, max }
    }

    pub const fn contains(self, version: i16) -> bool {
        version >= self.min && version <= self.max
    }
}

impl std::fmt::Display for Versions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.min == self.max {
            write!(f, "{}", self.min)
        } else {
            write!(f, "{}-{}", self.min, self.max)
        }
    }
}

/// The wire type of a field.
#[derive(Debug, Clone, Copy)]
pub enum Type {
    Bool,
    Int8,
    Int16,
    Int32,
    Int64,
    Uint16,
    Uint32,
    Float64,
    String,
    Bytes,
    /// A record set (record batches), carried like `bytes`.
    Records,
    Uuid,
    Struct(&'static StructSchema),
    Array(&'static Type),
}

impl Type {
    /// Kafka's name of the type (`int32`, `[]TaskIds`, ...).
    pub fn kafka_name(&self) -> String {
        match self {
            Type::Bool => "bool".into(),
            Type::Int8 => "int8".into(),
            Type::Int16 => "int16".into(),
            Type::Int32 => "int32".into(),
            Type::Int64 => "int64".into(),
            Type::Uint16 => "uint16".into(),
            Type::Uint32 => "uint32".into(),
            Type::Float64 => "float64".into(),
            Type::String => "string".into(),
            Type::Bytes => "bytes".into(),
            Type::Records => "records".into(),
            Type::Uuid => "uuid".into(),
            Type::Struct(s) => s.name.into(),
            Type::Array(t) => format!("[]{}", t.kafka_name()),
        }
    }
}

/// A field's default value (Kafka's `default`; `Zero` means the type's natural zero: 0, false,
/// empty string, empty array, nil uuid, a struct of defaults).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FieldDefault {
    Zero,
    Null,
    Int(i64),
    Bool(bool),
    Str(&'static str),
    Float(f64),
}

/// A tagged field's tag and the versions in which it is tagged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tag {
    pub tag: u32,
    pub versions: Versions,
}

/// One field of a message or struct.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// Kafka's PascalCase name.
    pub name: &'static str,
    pub ty: Type,
    /// Versions in which the field exists (within the served range).
    pub versions: Versions,
    pub nullable: Option<Versions>,
    pub tagged: Option<Tag>,
    pub default: FieldDefault,
    /// Whether a non-default value may be silently dropped in versions without the field.
    pub ignorable: bool,
    pub description: &'static str,
}

impl Field {
    pub const fn new(
        name: &'static str,
        ty: Type,
        versions: Versions,
        description: &'static str,
    ) -> Self {
        Self {
            name,
            ty,
            versions,
            nullable: None,
            tagged: None,
            default: FieldDefault::Zero,
            ignorable: false,
            description,
        }
    }

    pub const fn nullable(mut self, versions: Versions) -> Self {
        self.nullable = Some(versions);
        self
    }

    pub const fn tagged(mut self, tag: u32, versions: Versions) -> Self {
        self.tagged = Some(Tag { tag, versions });
        self
    }

    pub const fn default(mut self, default: FieldDefault) -> Self {
        self.default = default;
        self
    }

    pub const fn ignorable(mut self) -> Self {
        self.ignorable = true;
        self
    }

    /// Whether the field exists at `version`.
    pub fn is_present(&self, version: i16) -> bool {
        self.versions.contains(version)
    }

    /// Whether the field may be null at `version`.
    pub fn is_nullable(&self, version: i16) -> bool {
        self.nullable.is_some_and(|v| v.contains(version))
    }

    /// The tag, if the field is a tagged field at `version`.
    pub fn tag_at(&self, version: i16) -> Option<u32> {
        self.tagged
            .filter(|t| t.versions.contains(version) && self.is_present(version))
            .map(|t| t.tag)
    }

    /// The field's name in Kafka's JSON form (first letter lower case).
    pub fn json_name(&self) -> String {
        let mut chars = self.name.chars();
        match chars.next() {
            Some(first) => first.to_lowercase().chain(chars).collect(),
            None => String::new(),
        }
    }
}

/// A struct type (a nested struct or an array element).
#[derive(Debug, Clone, Copy)]
pub struct StructSchema {
    pub name: &'static str,
    pub fields: &'static [Field],
}

/// The schema of one request or response.
#[derive(Debug, Clone, Copy)]
pub struct MessageSchema {
    pub api: Api,
    pub direction: Direction,
    /// Kafka's message name, e.g. `StreamsGroupHeartbeatRequest`.
    pub name: &'static str,
    /// The versions regroup serves.
    pub versions: Versions,
    /// First flexible version.
    pub first_flexible: i16,
    pub fields: &'static [Field],
}

impl MessageSchema {
    pub fn is_flexible(&self, version: i16) -> bool {
        version >= self.first_flexible
    }
}

/// Every message schema, request before response, in api-key order.
pub fn all() -> &'static [MessageSchema] {
    tables::MESSAGES
}

/// The schema of `api` in `direction`.
pub fn message(api: Api, direction: Direction) -> &'static MessageSchema {
    let i = api as usize * 2
        + match direction {
            Direction::Request => 0,
            Direction::Response => 1,
        };
    &tables::MESSAGES[i]
}

/// Checks that `body` holds a well-formed body of `schema` at `version` without building
/// anything, and returns how many bytes it uses (trailing bytes are allowed, as in Kafka).
/// Offsets in the error count from the start of `body`.
///
/// Bodies that validated are remembered (per thread, bounded), and the same bytes of the same
/// message and version are not walked again: validation is a function of those three alone. In a
/// simulation most bodies repeat (every member of a group reads the same Metadata response, a
/// member's heartbeats repeat until its assignment changes); at 2,000 members, walking Metadata
/// responses of the 2,000-partition input topic was a fifth of a run (callgrind).
pub fn validate(schema: &MessageSchema, version: i16, body: &[u8]) -> Result<usize, DecodeError> {
    if body.len() > memo::MAX_BODY {
        return validate_walk(schema, version, body);
    }
    let key = memo::Key::new(schema, version, body);
    if let Some(consumed) = memo::get(&key, body) {
        return Ok(consumed);
    }
    let consumed = validate_walk(schema, version, body)?;
    memo::put(key, body, consumed);
    Ok(consumed)
}

/// [`validate`] without its memo: always walks `body` (the bench `decode` measures the walk).
pub fn validate_walk(
    schema: &MessageSchema,
    version: i16,
    body: &[u8],
) -> Result<usize, DecodeError> {
    walk::validate_body(schema, version, body)
}

/// The memo of validated bodies ([`crate::body_memo`]): the bytes a body of this message and
/// version uses, by its bytes.
mod memo {
    use std::cell::RefCell;

    use super::{Direction, MessageSchema};
    use crate::body_memo::{BodyMemo, body_hash};

    const SLOTS: usize = 1024;
    /// Larger bodies are always walked.
    pub(super) const MAX_BODY: usize = 1 << 20;
    /// The bytes all slots may hold together.
    const MAX_TOTAL: usize = 16 << 20;

    #[derive(Clone, Copy, PartialEq, Eq)]
    pub(super) struct Key {
        api: u16,
        direction: Direction,
        version: i16,
        hash: u64,
    }

    impl Key {
        pub(super) fn new(schema: &MessageSchema, version: i16, body: &[u8]) -> Key {
            Key {
                api: schema.api as u16,
                direction: schema.direction,
                version,
                hash: body_hash(body),
            }
        }

        fn slot(&self) -> u64 {
            self.hash ^ (u64::from(self.api) << 1) ^ self.version as u64
        }
    }

    thread_local! {
        static MEMO: RefCell<BodyMemo<Key, usize>> = RefCell::new(BodyMemo::new(SLOTS, MAX_TOTAL));
    }

    pub(super) fn get(key: &Key, body: &[u8]) -> Option<usize> {
        MEMO.with_borrow(|m| m.get(key.slot(), key, body))
    }

    pub(super) fn put(key: Key, body: &[u8], consumed: usize) {
        MEMO.with_borrow_mut(|m| m.put(key.slot(), key, body, consumed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_matches_the_api_list() {
        assert_eq!(all().len(), Api::ALL.len() * 2);
        for api in Api::ALL {
            for dir in [Direction::Request, Direction::Response] {
                let m = message(api, dir);
                assert_eq!(m.api, api);
                assert_eq!(m.direction, dir);
                assert_eq!(
                    m.versions,
                    Versions::new(api.min_version(), api.max_version())
                );
                assert_eq!(m.first_flexible, api.first_flexible_version(), "{}", m.name);
            }
        }
    }

    #[test]
    fn a_remembered_body_validates_as_it_did() {
        let m = message(Api::Metadata, Direction::Response);
        let version = m.versions.max;
        let body = sample::sample_body(Api::Metadata, Direction::Response, version).unwrap();
        let first = validate(m, version, &body);
        assert!(first.is_ok());
        assert_eq!(validate(m, version, &body), first);
        // Another version, or other bytes, are walked on their own.
        let short = &body[..body.len() - 1];
        assert_eq!(
            validate(m, version, short),
            walk::validate_body(m, version, short)
        );
        assert!(validate(m, version, short).is_err());
        let older = m.versions.min;
        assert_eq!(
            validate(m, older, &body),
            walk::validate_body(m, older, &body)
        );
    }

    #[test]
    fn json_names_are_lower_camel_case() {
        let f = message(Api::BrokerHeartbeat, Direction::Request).fields[0];
        assert_eq!(f.name, "BrokerId");
        assert_eq!(f.json_name(), "brokerId");
    }
}

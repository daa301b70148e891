//! The schema-driven walker: parses a body (or a whole frame) into a tree of nodes with
//! offsets, sizes, values and descriptions, and into Kafka-style JSON.
//!
//! Every length and count is checked against the bytes that are left before anything is read or
//! allocated; a failure is a [`DecodeError`] whose offset is where the bad field starts and whose
//! message names the field's path (`Topics[0].Partitions: ...`).
//!
//! The walker accepts exactly what Kafka's generated Java readers accept, with two deliberate
//! exceptions where it is stricter, because kafka-protocol's decoders (which run after it)
//! would otherwise misbehave: a non-flexible length below -1 is an error (Java reads it as
//! null), and so is a compact length whose varint is 2^31 or more (Java's int arithmetic turns
//! it negative).

use std::fmt::Write as _;

use serde_json::{Map, Value};

use super::records::parse_batches;
use super::{Direction, Field, FieldDefault, MessageSchema, Type};
use crate::api::Api;
use crate::error::DecodeError;
use crate::json::{base64_encode, kafka_uuid_string};

/// Which part of a frame a node belongs to (used to colour the byte layout).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    Frame,
    Header,
    Body,
    TaggedFields,
    RecordBatch,
}

/// One node of a parsed message: a field, an array element, a struct, a header part.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    /// Field name (Kafka's), `[i]` for array elements, or a header/frame part name.
    pub label: String,
    /// Wire type as encoded here, e.g. `int32`, `compact_string`, `compact_array[TaskIds]`.
    pub type_name: String,
    /// The value, for leaves (`34`, `"g"`, `null`, `2 elements`).
    pub value: Option<String>,
    /// Offset of the first byte, counted from the start of the frame (or of the body when a
    /// body is walked on its own).
    pub offset: usize,
    pub size: usize,
    pub description: String,
    pub region: Region,
    pub children: Vec<Node>,
}

impl Node {
    fn new(label: impl Into<String>, type_name: impl Into<String>, offset: usize) -> Node {
        Node {
            label: label.into(),
            type_name: type_name.into(),
            value: None,
            offset,
            size: 0,
            description: String::new(),
            region: Region::Body,
            children: Vec::new(),
        }
    }

    /// Depth-first search for the first node labelled `label`.
    pub fn find(&self, label: &str) -> Option<&Node> {
        if self.label == label {
            return Some(self);
        }
        self.children.iter().find_map(|c| c.find(label))
    }
}

/// A path to a field, rendered only when an error needs it.
#[derive(Clone, Copy)]
enum Seg<'a> {
    Root(&'a str),
    Field(&'static str),
    Index(usize),
    Tagged,
}

#[derive(Clone, Copy)]
struct Path<'p> {
    parent: Option<&'p Path<'p>>,
    seg: Seg<'p>,
}

impl<'p> Path<'p> {
    fn child(&'p self, seg: Seg<'p>) -> Path<'p> {
        Path {
            parent: Some(self),
            seg,
        }
    }

    fn render(&self) -> String {
        let mut segs = Vec::new();
        let mut p = Some(self);
        while let Some(cur) = p {
            segs.push(cur.seg);
            p = cur.parent;
        }
        let mut out = String::new();
        for seg in segs.iter().rev() {
            match seg {
                Seg::Root(name) => out.push_str(name),
                Seg::Field(name) => {
                    if !out.is_empty() {
                        out.push('.');
                    }
                    out.push_str(name);
                }
                Seg::Index(i) => {
                    let _ = write!(out, "[{i}]");
                }
                Seg::Tagged => out.push_str(".<tagged fields>"),
            }
        }
        out
    }
}

struct Cursor<'a> {
    data: &'a [u8],
    pos: usize,
    /// Offset of `data[0]` in the frame.
    base: usize,
}

impl<'a> Cursor<'a> {
    fn at(&self) -> usize {
        self.base + self.pos
    }

    fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    fn error(&self, at: usize, path: &Path<'_>, message: impl std::fmt::Display) -> DecodeError {
        DecodeError::new(at, format!("{}: {message}", path.render()))
    }

    fn take(&mut self, n: usize, path: &Path<'_>, what: &str) -> Result<&'a [u8], DecodeError> {
        if n > self.remaining() {
            return Err(self.error(
                self.at(),
                path,
                format!(
                    "{what} needs {n} bytes but only {} remain",
                    self.remaining()
                ),
            ));
        }
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    fn int(&mut self, n: usize, path: &Path<'_>, what: &str) -> Result<i64, DecodeError> {
        let bytes = self.take(n, path, what)?;
        let mut v: i64 = 0;
        for &b in bytes {
            v = (v << 8) | i64::from(b);
        }
        let shift = 64 - 8 * n as u32;
        Ok((v << shift) >> shift)
    }

    fn uvarint(&mut self, path: &Path<'_>, what: &str) -> Result<u32, DecodeError> {
        let start = self.at();
        let mut value: u32 = 0;
        for i in 0..5 {
            let b = self.take(1, path, what)?[0];
            value |= u32::from(b & 0x7f).wrapping_shl(7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error(
            start,
            path,
            format!("{what}: unsigned varint longer than 5 bytes"),
        ))
    }
}

/// A leaf node, built only when the walk builds a tree (the value and type strings are not
/// even formatted during a validation walk).
macro_rules! leaf {
    ($w:expr, $label:expr, $ty:expr, $value:expr, $offset:expr, $size:expr, $desc:expr $(,)?) => {
        if $w.build {
            Some(Box::new(make_leaf(
                $label, $ty, $value, $offset, $size, $desc,
            )))
        } else {
            None
        }
    };
}

fn make_leaf(
    label: &str,
    ty: String,
    value: String,
    offset: usize,
    size: usize,
    desc: &str,
) -> Node {
    let mut n = Node::new(label, ty, offset);
    n.value = Some(value);
    n.size = size;
    n.description = desc.to_string();
    n
}

/// The result of walking one value. The node is boxed so that a validation walk, which builds
/// none, does not move large empty nodes around.
struct Out {
    node: Option<Box<Node>>,
    json: Value,
}

struct Walker {
    version: i16,
    flexible: bool,
    build: bool,
}

fn json_int(v: i64) -> Value {
    Value::from(v)
}

fn quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

fn short_hex(bytes: &[u8]) -> String {
    const SHOW: usize = 24;
    let mut s = hex_lower(&bytes[..bytes.len().min(SHOW)]);
    if bytes.len() > SHOW {
        s.push('…');
    }
    format!("0x{s} ({} bytes)", bytes.len())
}

pub(crate) fn hex_lower(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// The JSON form of a field's default value at `version`.
pub(crate) fn default_json(f: &Field, version: i16) -> Value {
    match f.default {
        FieldDefault::Null => Value::Null,
        FieldDefault::Int(n) => json_int(n),
        FieldDefault::Bool(b) => Value::Bool(b),
        FieldDefault::Str(s) => Value::String(s.into()),
        FieldDefault::Float(x) => Value::from(x),
        FieldDefault::Zero => zero_json(&f.ty, version),
    }
}

pub(crate) fn zero_json(ty: &Type, version: i16) -> Value {
    match ty {
        Type::Bool => Value::Bool(false),
        Type::Int8 | Type::Int16 | Type::Int32 | Type::Int64 | Type::Uint16 | Type::Uint32 => {
            json_int(0)
        }
        Type::Float64 => Value::from(0.0),
        Type::String | Type::Bytes | Type::Records => Value::String(String::new()),
        Type::Uuid => Value::String(kafka_uuid_string(&[0; 16])),
        Type::Array(_) => Value::Array(Vec::new()),
        Type::Struct(s) => {
            let mut m = Map::new();
            for f in s.fields.iter().filter(|f| f.is_present(version)) {
                m.insert(f.json_name(), default_json(f, version));
            }
            Value::Object(m)
        }
    }
}

fn elem_type_name(ty: &Type) -> String {
    match ty {
        Type::Struct(s) => s.name.to_string(),
        other => other.kafka_name(),
    }
}

impl Walker {
    fn type_name(&self, ty: &Type, nullable: bool, compact: bool) -> String {
        let n = if nullable { "nullable_" } else { "" };
        let c = if compact { "compact_" } else { "" };
        match ty {
            Type::String => format!("{c}{n}string"),
            Type::Bytes => format!("{c}{n}bytes"),
            Type::Records => format!("{c}{n}records"),
            Type::Struct(_) => format!("{n}struct"),
            Type::Array(elem) => format!("{c}{n}array[{}]", elem_type_name(elem)),
            other => other.kafka_name(),
        }
    }

    /// Reads a length prefix. `None` means null.
    fn length(
        &self,
        cur: &mut Cursor<'_>,
        compact: bool,
        wide: bool,
        path: &Path<'_>,
        what: &str,
    ) -> Result<Option<usize>, DecodeError> {
        let start = cur.at();
        let len: i64 = if compact {
            let v = cur.uvarint(path, what)?;
            if v > i32::MAX as u32 {
                return Err(cur.error(
                    start,
                    path,
                    format!("{what} length varint {v} is out of range"),
                ));
            }
            i64::from(v) - 1
        } else if wide {
            cur.int(4, path, what)?
        } else {
            cur.int(2, path, what)?
        };
        if len == -1 {
            return Ok(None);
        }
        if len < 0 {
            return Err(cur.error(start, path, format!("{what} has negative length {len}")));
        }
        Ok(Some(len as usize))
    }

    /// Walks one value of type `ty` for field `f` (or an array element of it).
    #[allow(clippy::too_many_arguments)]
    fn value(
        &self,
        cur: &mut Cursor<'_>,
        f: &Field,
        ty: &Type,
        label: &str,
        nullable: bool,
        tagged: bool,
        path: &Path<'_>,
    ) -> Result<Out, DecodeError> {
        let start = cur.at();
        let compact = self.flexible || tagged;
        let desc = f.description;
        macro_rules! int {
            ($n:expr, $name:expr) => {{
                let v = cur.int($n, path, $name)?;
                Ok(Out {
                    node: leaf!(
                        self,
                        label,
                        $name.to_string(),
                        v.to_string(),
                        start,
                        $n,
                        desc
                    ),
                    json: if self.build { json_int(v) } else { Value::Null },
                })
            }};
        }
        match ty {
            Type::Bool => {
                let b = cur.take(1, path, "bool")?[0] != 0;
                Ok(Out {
                    node: leaf!(self, label, "bool".into(), b.to_string(), start, 1, desc),
                    json: Value::Bool(b),
                })
            }
            Type::Int8 => int!(1, "int8"),
            Type::Int16 => int!(2, "int16"),
            Type::Int32 => int!(4, "int32"),
            Type::Int64 => int!(8, "int64"),
            Type::Uint16 => {
                let v = cur.int(2, path, "uint16")? & 0xffff;
                Ok(Out {
                    node: leaf!(self, label, "uint16".into(), v.to_string(), start, 2, desc),
                    json: json_int(v),
                })
            }
            Type::Uint32 => {
                let v = cur.int(4, path, "uint32")? & 0xffff_ffff;
                Ok(Out {
                    node: leaf!(self, label, "uint32".into(), v.to_string(), start, 4, desc),
                    json: json_int(v),
                })
            }
            Type::Float64 => {
                let raw = cur.take(8, path, "float64")?;
                let v = f64::from_be_bytes(raw.try_into().unwrap_or([0; 8]));
                Ok(Out {
                    node: leaf!(self, label, "float64".into(), v.to_string(), start, 8, desc),
                    json: Value::from(v),
                })
            }
            Type::Uuid => {
                let raw = cur.take(16, path, "uuid")?;
                let (shown, json) = if self.build {
                    let mut arr = [0u8; 16];
                    arr.copy_from_slice(raw);
                    let k = kafka_uuid_string(&arr);
                    (
                        format!("{k} ({})", uuid::Uuid::from_bytes(arr)),
                        Value::String(k),
                    )
                } else {
                    (String::new(), Value::Null)
                };
                Ok(Out {
                    node: leaf!(self, label, "uuid".into(), shown, start, 16, desc),
                    json,
                })
            }
            Type::String => {
                let len = self.length(cur, compact, false, path, "string")?;
                let ty_name = || self.type_name(ty, nullable, compact);
                let Some(len) = len else {
                    if !nullable {
                        return Err(cur.error(
                            start,
                            path,
                            "non-nullable string was serialized as null",
                        ));
                    }
                    return Ok(Out {
                        node: leaf!(
                            self,
                            label,
                            ty_name(),
                            "null".into(),
                            start,
                            cur.at() - start,
                            desc,
                        ),
                        json: Value::Null,
                    });
                };
                if len > crate::prim::MAX_STRING_LEN {
                    return Err(cur.error(start, path, format!("string had invalid length {len}")));
                }
                let raw = cur.take(len, path, "string")?;
                let s = std::str::from_utf8(raw).map_err(|e| {
                    cur.error(start, path, format!("string is not valid UTF-8: {e}"))
                })?;
                Ok(Out {
                    node: leaf!(
                        self,
                        label,
                        ty_name(),
                        if self.build { quote(s) } else { String::new() },
                        start,
                        cur.at() - start,
                        desc,
                    ),
                    json: if self.build {
                        Value::String(s.into())
                    } else {
                        Value::Null
                    },
                })
            }
            Type::Bytes | Type::Records => {
                let len = self.length(cur, compact, true, path, "bytes")?;
                let ty_name = self.build.then(|| self.type_name(ty, nullable, compact));
                let Some(len) = len else {
                    if !nullable {
                        return Err(cur.error(
                            start,
                            path,
                            "non-nullable bytes were serialized as null",
                        ));
                    }
                    return Ok(Out {
                        node: leaf!(
                            self,
                            label,
                            ty_name.unwrap_or_default(),
                            "null".into(),
                            start,
                            cur.at() - start,
                            desc,
                        ),
                        json: Value::Null,
                    });
                };
                let data_start = cur.at();
                let raw = cur.take(len, path, "bytes")?;
                if !self.build {
                    return Ok(Out {
                        node: None,
                        json: Value::Null,
                    });
                }
                let mut node = Node::new(label, ty_name.unwrap_or_default(), start);
                node.size = cur.at() - start;
                node.description = desc.to_string();
                node.value = Some(short_hex(raw));
                if matches!(ty, Type::Records)
                    && let Some(batches) = parse_batches(raw, data_start)
                {
                    node.value = Some(format!(
                        "{} record batch(es), {} bytes",
                        batches.len(),
                        raw.len()
                    ));
                    node.children = batches;
                }
                Ok(Out {
                    node: Some(Box::new(node)),
                    json: Value::String(base64_encode(raw)),
                })
            }
            Type::Struct(s) => {
                let mut marker = None;
                if nullable {
                    let (present, shown, marker_ty, marker_desc) = if tagged {
                        let v = cur.uvarint(path, "struct presence")?;
                        (
                            v > 0,
                            v.to_string(),
                            "uvarint",
                            "1: the struct follows (0 would mean null)",
                        )
                    } else {
                        let v = cur.int(1, path, "struct presence")?;
                        (
                            v >= 0,
                            v.to_string(),
                            "int8",
                            "1: the struct follows (-1 would mean null)",
                        )
                    };
                    if present {
                        marker = leaf!(
                            self,
                            "presence",
                            marker_ty.to_string(),
                            shown,
                            start,
                            cur.at() - start,
                            marker_desc,
                        );
                    }
                    if !present {
                        return Ok(Out {
                            node: leaf!(
                                self,
                                label,
                                self.type_name(ty, true, compact),
                                "null".into(),
                                start,
                                cur.at() - start,
                                desc,
                            ),
                            json: Value::Null,
                        });
                    }
                }
                let (children, obj) = self.fields(cur, s.fields, path)?;
                let node = self.build.then(|| {
                    let mut n = Node::new(label, self.type_name(ty, nullable, compact), start);
                    n.size = cur.at() - start;
                    n.description = desc.to_string();
                    n.children = marker.map(|m| *m).into_iter().chain(children).collect();
                    Box::new(n)
                });
                Ok(Out { node, json: obj })
            }
            Type::Array(elem) => {
                let count = self.length(cur, compact, true, path, "array")?;
                let Some(count) = count else {
                    if !nullable {
                        return Err(cur.error(
                            start,
                            path,
                            "non-nullable array was serialized as null",
                        ));
                    }
                    return Ok(Out {
                        node: leaf!(
                            self,
                            label,
                            self.type_name(ty, true, compact),
                            "null".into(),
                            start,
                            cur.at() - start,
                            desc,
                        ),
                        json: Value::Null,
                    });
                };
                // Kafka's own check: every element takes at least one byte.
                if count > cur.remaining() {
                    return Err(cur.error(
                        start,
                        path,
                        format!(
                            "array declares {count} elements but only {} bytes remain",
                            cur.remaining()
                        ),
                    ));
                }
                let mut children = Vec::new();
                let mut items = Vec::new();
                for i in 0..count {
                    let p = path.child(Seg::Index(i));
                    let label = if self.build {
                        format!("[{i}]")
                    } else {
                        String::new()
                    };
                    let out = self.value(cur, f, elem, &label, false, tagged, &p)?;
                    if self.build {
                        // Elements are described by their array; a struct element shows its type.
                        children.extend(out.node.map(|mut n| {
                            n.description.clear();
                            if let Type::Struct(s) = elem {
                                n.type_name = s.name.to_string();
                            }
                            *n
                        }));
                        items.push(out.json);
                    }
                }
                let node = self.build.then(|| {
                    let mut n = Node::new(label, self.type_name(ty, nullable, compact), start);
                    n.value = Some(format!(
                        "{count} element{}",
                        if count == 1 { "" } else { "s" }
                    ));
                    n.size = cur.at() - start;
                    n.description = desc.to_string();
                    n.children = children;
                    Box::new(n)
                });
                Ok(Out {
                    node,
                    json: Value::Array(items),
                })
            }
        }
    }

    /// Walks the fields of a struct (and its tagged-field section when flexible).
    fn fields(
        &self,
        cur: &mut Cursor<'_>,
        fields: &'static [Field],
        path: &Path<'_>,
    ) -> Result<(Vec<Node>, Value), DecodeError> {
        let mut children = Vec::new();
        // One slot per field, filled only when building (a validation walk allocates nothing).
        let mut values: Vec<Option<Value>> = if self.build {
            vec![None; fields.len()]
        } else {
            Vec::new()
        };
        for (i, f) in fields.iter().enumerate() {
            if !f.is_present(self.version) || f.tag_at(self.version).is_some() {
                continue;
            }
            let p = path.child(Seg::Field(f.name));
            let out = self.value(
                cur,
                f,
                &f.ty,
                f.name,
                f.is_nullable(self.version),
                false,
                &p,
            )?;
            if self.build {
                children.extend(out.node.map(|n| *n));
                values[i] = Some(out.json);
            }
        }
        if self.flexible {
            let node = self.tagged_section(cur, fields, path, &mut values)?;
            children.extend(node);
        }
        if !self.build {
            return Ok((children, Value::Null));
        }
        // Schema order, like Kafka's JsonConverter; a tagged field appears only when it holds a
        // value other than its default (Kafka's converter leaves defaults out).
        let mut obj = Map::new();
        for (f, v) in fields.iter().zip(values) {
            if let Some(v) = v
                && (f.tag_at(self.version).is_none()
                    || !crate::json::is_default(f, &v, self.version))
            {
                obj.insert(f.json_name(), v);
            }
        }
        Ok((children, Value::Object(obj)))
    }

    fn tagged_section(
        &self,
        cur: &mut Cursor<'_>,
        fields: &'static [Field],
        path: &Path<'_>,
        values: &mut [Option<Value>],
    ) -> Result<Option<Node>, DecodeError> {
        let start = cur.at();
        let tp = path.child(Seg::Tagged);
        let count = cur.uvarint(&tp, "tagged field count")? as usize;
        if count > cur.remaining() {
            return Err(cur.error(
                start,
                &tp,
                format!(
                    "declares {count} tagged fields but only {} bytes remain",
                    cur.remaining()
                ),
            ));
        }
        let mut children = Vec::new();
        for _ in 0..count {
            let field_start = cur.at();
            let tag = cur.uvarint(&tp, "tag")?;
            let size_at = cur.at();
            let size = cur.uvarint(&tp, "tagged field size")? as usize;
            let value_at = cur.at();
            let raw = cur.take(size, &tp, "tagged field value")?;
            let known_at = fields
                .iter()
                .position(|f| f.tag_at(self.version) == Some(tag));
            let known = known_at.map(|i| &fields[i]);
            let mut value_node = None;
            match known {
                Some(f) => {
                    let p = path.child(Seg::Field(f.name));
                    let mut sub = Cursor {
                        data: raw,
                        pos: 0,
                        base: value_at,
                    };
                    let out = self.value(
                        &mut sub,
                        f,
                        &f.ty,
                        f.name,
                        f.is_nullable(self.version),
                        true,
                        &p,
                    )?;
                    if sub.pos != size {
                        return Err(cur.error(
                            value_at,
                            &p,
                            format!(
                                "tagged field {tag} value uses {} of its {size} bytes",
                                sub.pos
                            ),
                        ));
                    }
                    if self.build {
                        if let Some(i) = known_at {
                            values[i] = Some(out.json);
                        }
                        value_node = out.node;
                    }
                }
                None => {
                    if fields
                        .iter()
                        .any(|f| f.tagged.is_some_and(|t| t.tag == tag))
                    {
                        return Err(cur.error(
                            field_start,
                            &tp,
                            format!("Tag {tag} is not valid for version {}", self.version),
                        ));
                    }
                    if self.build {
                        let mut n = Node::new(format!("unknown tag {tag}"), "bytes", value_at);
                        n.size = size;
                        n.value = Some(short_hex(raw));
                        n.description =
                            "tag this version does not define; kept, not interpreted".into();
                        value_node = Some(Box::new(n));
                    }
                }
            }
            if self.build {
                let name = known.map_or_else(
                    || format!("tag {tag}"),
                    |f| format!("tag {tag} ({})", f.name),
                );
                let mut n = Node::new(name, "tagged_field", field_start);
                n.size = cur.at() - field_start;
                n.region = Region::TaggedFields;
                n.description = "one tagged field: tag, size, value".into();
                let mut t = Node::new("tag", "uvarint", field_start);
                t.value = Some(tag.to_string());
                t.size = size_at - field_start;
                t.region = Region::TaggedFields;
                t.description = "tag number".into();
                let mut s = Node::new("size", "uvarint", size_at);
                s.value = Some(size.to_string());
                s.size = value_at - size_at;
                s.region = Region::TaggedFields;
                s.description = "bytes in the value".into();
                n.children.push(t);
                n.children.push(s);
                n.children.extend(value_node.map(|n| *n));
                children.push(n);
            }
        }
        if !self.build {
            return Ok(None);
        }
        let mut n = Node::new("tagged_fields", "uvarint", start);
        n.value = Some(count.to_string());
        n.size = cur.at() - start;
        n.region = Region::TaggedFields;
        n.description = "number of tagged fields in this struct".into();
        n.children = children;
        Ok(Some(n))
    }
}

/// A walked body.
pub struct WalkedBody {
    /// The struct node of the body (label = message name).
    pub node: Node,
    /// The body in Kafka's JSON form.
    pub json: Value,
    /// Bytes used; anything after them is trailing.
    pub consumed: usize,
}

fn walk(
    schema: &MessageSchema,
    version: i16,
    body: &[u8],
    base: usize,
    build: bool,
) -> Result<WalkedBody, DecodeError> {
    let w = Walker {
        version,
        flexible: schema.is_flexible(version),
        build,
    };
    let mut cur = Cursor {
        data: body,
        pos: 0,
        base,
    };
    let root = Path {
        parent: None,
        seg: Seg::Root(schema.name),
    };
    let (children, json) = w.fields(&mut cur, schema.fields, &root)?;
    if !build {
        return Ok(WalkedBody {
            node: Node::new("", "", base),
            json,
            consumed: cur.pos,
        });
    }
    let mut node = Node::new(schema.name, "struct", base);
    node.size = cur.pos;
    node.description = format!("message body, version {version}");
    node.children = children;
    Ok(WalkedBody {
        node,
        json,
        consumed: cur.pos,
    })
}

/// Walks a body of `schema` at `version`; `base` is the offset of `body[0]` in the frame.
pub fn walk_body(
    schema: &MessageSchema,
    version: i16,
    body: &[u8],
    base: usize,
) -> Result<WalkedBody, DecodeError> {
    walk(schema, version, body, base, true)
}

pub(crate) fn validate_body(
    schema: &MessageSchema,
    version: i16,
    body: &[u8],
) -> Result<usize, DecodeError> {
    let v = Validator {
        version,
        flexible: schema.is_flexible(version),
    };
    let mut cur = Cursor {
        data: body,
        pos: 0,
        base: 0,
    };
    let root = Path {
        parent: None,
        seg: Seg::Root(schema.name),
    };
    v.fields(&mut cur, schema.fields, &root)?;
    Ok(cur.pos)
}

/// The validation walk: [`Walker`]'s checks in the same order with the same errors, without
/// its nodes and JSON values. It runs before every kafka-protocol decode of the simulation, where
/// [`Walker`]'s generality (a node and a JSON value per field, even when neither is built) made
/// the check cost several times the decode itself (callgrind). The test
/// `the_validator_agrees_with_the_walk` holds the two to the same verdicts.
struct Validator {
    version: i16,
    flexible: bool,
}

/// The encoded size of a fixed-size type, `None` for the others.
fn fixed_size(ty: &Type) -> Option<usize> {
    match ty {
        Type::Bool | Type::Int8 => Some(1),
        Type::Int16 | Type::Uint16 => Some(2),
        Type::Int32 | Type::Uint32 => Some(4),
        Type::Int64 | Type::Float64 => Some(8),
        Type::Uuid => Some(16),
        _ => None,
    }
}

impl Validator {
    /// [`Walker::length`].
    fn length(
        &self,
        cur: &mut Cursor<'_>,
        compact: bool,
        wide: bool,
        path: &Path<'_>,
        what: &str,
    ) -> Result<Option<usize>, DecodeError> {
        Walker {
            version: self.version,
            flexible: self.flexible,
            build: false,
        }
        .length(cur, compact, wide, path, what)
    }

    /// [`Walker::value`] without a result.
    fn value(
        &self,
        cur: &mut Cursor<'_>,
        ty: &Type,
        nullable: bool,
        tagged: bool,
        path: &Path<'_>,
    ) -> Result<(), DecodeError> {
        let start = cur.at();
        let compact = self.flexible || tagged;
        match ty {
            Type::Bool => cur.take(1, path, "bool").map(drop),
            Type::Int8 => cur.take(1, path, "int8").map(drop),
            Type::Int16 => cur.take(2, path, "int16").map(drop),
            Type::Int32 => cur.take(4, path, "int32").map(drop),
            Type::Int64 => cur.take(8, path, "int64").map(drop),
            Type::Uint16 => cur.take(2, path, "uint16").map(drop),
            Type::Uint32 => cur.take(4, path, "uint32").map(drop),
            Type::Float64 => cur.take(8, path, "float64").map(drop),
            Type::Uuid => cur.take(16, path, "uuid").map(drop),
            Type::String => {
                let Some(len) = self.length(cur, compact, false, path, "string")? else {
                    if !nullable {
                        return Err(cur.error(
                            start,
                            path,
                            "non-nullable string was serialized as null",
                        ));
                    }
                    return Ok(());
                };
                if len > crate::prim::MAX_STRING_LEN {
                    return Err(cur.error(start, path, format!("string had invalid length {len}")));
                }
                let raw = cur.take(len, path, "string")?;
                std::str::from_utf8(raw).map_err(|e| {
                    cur.error(start, path, format!("string is not valid UTF-8: {e}"))
                })?;
                Ok(())
            }
            Type::Bytes | Type::Records => {
                let Some(len) = self.length(cur, compact, true, path, "bytes")? else {
                    if !nullable {
                        return Err(cur.error(
                            start,
                            path,
                            "non-nullable bytes were serialized as null",
                        ));
                    }
                    return Ok(());
                };
                cur.take(len, path, "bytes").map(drop)
            }
            Type::Struct(s) => {
                if nullable {
                    let present = if tagged {
                        cur.uvarint(path, "struct presence")? > 0
                    } else {
                        cur.int(1, path, "struct presence")? >= 0
                    };
                    if !present {
                        return Ok(());
                    }
                }
                self.fields(cur, s.fields, path)
            }
            Type::Array(elem) => {
                let Some(count) = self.length(cur, compact, true, path, "array")? else {
                    if !nullable {
                        return Err(cur.error(
                            start,
                            path,
                            "non-nullable array was serialized as null",
                        ));
                    }
                    return Ok(());
                };
                // Kafka's own check: every element takes at least one byte.
                if count > cur.remaining() {
                    return Err(cur.error(
                        start,
                        path,
                        format!(
                            "array declares {count} elements but only {} bytes remain",
                            cur.remaining()
                        ),
                    ));
                }
                // Fixed-size elements that all fit are skipped at once; otherwise the elements
                // are walked one by one, which finds the one that does not fit and names it.
                if let Some(size) = fixed_size(elem)
                    && count * size <= cur.remaining()
                {
                    cur.pos += count * size;
                    return Ok(());
                }
                for i in 0..count {
                    self.value(cur, elem, false, tagged, &path.child(Seg::Index(i)))?;
                }
                Ok(())
            }
        }
    }

    /// [`Walker::fields`] without a result.
    fn fields(
        &self,
        cur: &mut Cursor<'_>,
        fields: &'static [Field],
        path: &Path<'_>,
    ) -> Result<(), DecodeError> {
        for f in fields {
            if !f.is_present(self.version) || f.tag_at(self.version).is_some() {
                continue;
            }
            let p = path.child(Seg::Field(f.name));
            self.value(cur, &f.ty, f.is_nullable(self.version), false, &p)?;
        }
        if self.flexible {
            self.tagged_section(cur, fields, path)?;
        }
        Ok(())
    }

    /// [`Walker::tagged_section`] without a result.
    fn tagged_section(
        &self,
        cur: &mut Cursor<'_>,
        fields: &'static [Field],
        path: &Path<'_>,
    ) -> Result<(), DecodeError> {
        let start = cur.at();
        let tp = path.child(Seg::Tagged);
        let count = cur.uvarint(&tp, "tagged field count")? as usize;
        if count > cur.remaining() {
            return Err(cur.error(
                start,
                &tp,
                format!(
                    "declares {count} tagged fields but only {} bytes remain",
                    cur.remaining()
                ),
            ));
        }
        for _ in 0..count {
            let field_start = cur.at();
            let tag = cur.uvarint(&tp, "tag")?;
            let size = cur.uvarint(&tp, "tagged field size")? as usize;
            let value_at = cur.at();
            let raw = cur.take(size, &tp, "tagged field value")?;
            match fields.iter().find(|f| f.tag_at(self.version) == Some(tag)) {
                Some(f) => {
                    let p = path.child(Seg::Field(f.name));
                    let mut sub = Cursor {
                        data: raw,
                        pos: 0,
                        base: value_at,
                    };
                    self.value(&mut sub, &f.ty, f.is_nullable(self.version), true, &p)?;
                    if sub.pos != size {
                        return Err(cur.error(
                            value_at,
                            &p,
                            format!(
                                "tagged field {tag} value uses {} of its {size} bytes",
                                sub.pos
                            ),
                        ));
                    }
                }
                None => {
                    if fields
                        .iter()
                        .any(|f| f.tagged.is_some_and(|t| t.tag == tag))
                    {
                        return Err(cur.error(
                            field_start,
                            &tp,
                            format!("Tag {tag} is not valid for version {}", self.version),
                        ));
                    }
                }
            }
        }
        Ok(())
    }
}

/// A walked frame: the tree (frame, header, body), and what was found in the header.
pub struct WalkedFrame {
    pub tree: Node,
    pub api: Api,
    pub version: i16,
    pub direction: Direction,
    /// The body in Kafka's JSON form.
    pub json: Value,
    /// Bytes after the body (Kafka ignores them).
    pub trailing: usize,
}

fn frame_prefix(frame: &[u8]) -> Result<Node, DecodeError> {
    if frame.len() < 4 {
        return Err(DecodeError::new(
            0,
            format!(
                "frame: need 4 bytes for the size prefix, got {}",
                frame.len()
            ),
        ));
    }
    let size = i32::from_be_bytes([frame[0], frame[1], frame[2], frame[3]]);
    if size < 0 || size as usize != frame.len() - 4 {
        return Err(DecodeError::new(
            0,
            format!(
                "frame: size prefix says {size} bytes follow but {} do",
                frame.len() - 4
            ),
        ));
    }
    let mut s = Node::new("size", "int32", 0);
    s.value = Some(size.to_string());
    s.size = 4;
    s.region = Region::Frame;
    s.description = "bytes after this prefix".into();
    let mut f = Node::new("Frame", "", 0);
    f.size = 4;
    f.region = Region::Frame;
    f.description = "int32 length prefix".into();
    f.children.push(s);
    Ok(f)
}

fn header_leaf(
    label: &str,
    ty: &str,
    value: String,
    offset: usize,
    size: usize,
    desc: &str,
) -> Node {
    let mut n = Node::new(label, ty, offset);
    n.value = Some(value);
    n.size = size;
    n.region = Region::Header;
    n.description = desc.into();
    n
}

/// Walks a header tagged-field section (headers define no tags; any present are shown raw).
fn header_tags(cur: &mut Cursor<'_>, path: &Path<'_>) -> Result<Node, DecodeError> {
    let start = cur.at();
    let count = cur.uvarint(path, "tagged field count")? as usize;
    if count > cur.remaining() {
        return Err(cur.error(
            start,
            path,
            format!(
                "declares {count} tagged fields but only {} bytes remain",
                cur.remaining()
            ),
        ));
    }
    let mut children = Vec::new();
    for _ in 0..count {
        let at = cur.at();
        let tag = cur.uvarint(path, "tag")?;
        let size = cur.uvarint(path, "tagged field size")? as usize;
        let raw = cur.take(size, path, "tagged field value")?;
        let mut n = header_leaf(
            &format!("tag {tag}"),
            "tagged_field",
            short_hex(raw),
            at,
            cur.at() - at,
            "header tagged field",
        );
        n.region = Region::TaggedFields;
        children.push(n);
    }
    let mut n = header_leaf(
        "tagged_fields",
        "uvarint",
        count.to_string(),
        start,
        cur.at() - start,
        "number of tagged fields in the header",
    );
    n.region = Region::TaggedFields;
    n.children = children;
    Ok(n)
}

fn finish(mut tree: Node, frame: &[u8], body: WalkedBody, body_start: usize) -> (Node, usize) {
    let trailing = frame.len() - body_start - body.consumed;
    tree.children.push(body.node);
    if trailing > 0 {
        let mut t = Node::new("trailing", "bytes", body_start + body.consumed);
        t.size = trailing;
        t.value = Some(short_hex(&frame[body_start + body.consumed..]));
        t.description = "bytes after the body; Kafka ignores them".into();
        tree.children.push(t);
    }
    tree.size = frame.len();
    (tree, trailing)
}

/// Walks a whole request frame (size prefix included). The api and version come from the
/// header.
pub fn walk_request_frame(frame: &[u8]) -> Result<WalkedFrame, DecodeError> {
    let prefix = frame_prefix(frame)?;
    let mut cur = Cursor {
        data: frame,
        pos: 4,
        base: 0,
    };
    let root = Path {
        parent: None,
        seg: Seg::Root("RequestHeader"),
    };
    let key = cur.int(2, &root.child(Seg::Field("request_api_key")), "int16")? as i16;
    let api = Api::from_key(key).ok_or_else(|| {
        DecodeError::new(
            4,
            format!("RequestHeader.request_api_key: unknown api key {key}"),
        )
    })?;
    let version = cur.int(2, &root.child(Seg::Field("request_api_version")), "int16")? as i16;
    if !api.supports(version) {
        return Err(DecodeError::new(
            6,
            format!(
                "RequestHeader.request_api_version: {api} version {version} is not served (regroup serves {}-{})",
                api.min_version(),
                api.max_version()
            ),
        ));
    }
    let hv = api.request_header_version(version);
    let corr = cur.int(4, &root.child(Seg::Field("correlation_id")), "int32")?;
    let client_at = cur.at();
    let cp = root.child(Seg::Field("client_id"));
    let len = cur.int(2, &cp, "int16 length")?;
    let client = if len < -1 {
        return Err(cur.error(client_at, &cp, format!("negative length {len}")));
    } else if len == -1 {
        "null (int16 len=-1)".to_string()
    } else {
        let raw = cur.take(len as usize, &cp, "string")?;
        let s = std::str::from_utf8(raw)
            .map_err(|e| cur.error(client_at, &cp, format!("not valid UTF-8: {e}")))?;
        format!("{} (int16 len={len})", quote(s))
    };
    let mut header = Node::new("RequestHeader", format!("v{hv}"), 4);
    header.region = Region::Header;
    header.description = "request header".into();
    header.children = vec![
        header_leaf(
            "request_api_key",
            "int16",
            format!("{key} ({api})"),
            4,
            2,
            "api being called",
        ),
        header_leaf(
            "request_api_version",
            "int16",
            version.to_string(),
            6,
            2,
            "version of that api",
        ),
        header_leaf(
            "correlation_id",
            "int32",
            corr.to_string(),
            8,
            4,
            "echoed in the response",
        ),
        header_leaf(
            "client_id",
            "nullable_string",
            client,
            client_at,
            cur.at() - client_at,
            "int16 length even in header v2, so any broker can read it",
        ),
    ];
    if hv >= 2 {
        header.children.push(header_tags(&mut cur, &root)?);
    }
    header.size = cur.at() - 4;
    let body_start = cur.at();
    let schema = super::message(api, Direction::Request);
    let body = walk_body(schema, version, &frame[body_start..], body_start)?;
    let json = body.json.clone();
    let mut tree = Node::new(schema.name, format!("message v{version}"), 0);
    tree.children = vec![prefix, header];
    let (tree, trailing) = finish(tree, frame, body, body_start);
    Ok(WalkedFrame {
        tree,
        api,
        version,
        direction: Direction::Request,
        json,
        trailing,
    })
}

/// Walks a whole response frame of `api` at `version` (a response does not name its api).
pub fn walk_response_frame(
    api: Api,
    version: i16,
    frame: &[u8],
) -> Result<WalkedFrame, DecodeError> {
    if !api.supports(version) {
        return Err(DecodeError::new(
            0,
            format!(
                "{api} version {version} is not served (regroup serves {}-{})",
                api.min_version(),
                api.max_version()
            ),
        ));
    }
    let prefix = frame_prefix(frame)?;
    let mut cur = Cursor {
        data: frame,
        pos: 4,
        base: 0,
    };
    let root = Path {
        parent: None,
        seg: Seg::Root("ResponseHeader"),
    };
    let hv = api.response_header_version(version);
    let corr = cur.int(4, &root.child(Seg::Field("correlation_id")), "int32")?;
    let mut header = Node::new("ResponseHeader", format!("v{hv}"), 4);
    header.region = Region::Header;
    header.description = "response header".into();
    header.children = vec![header_leaf(
        "correlation_id",
        "int32",
        corr.to_string(),
        4,
        4,
        "correlation id of the request",
    )];
    if hv >= 1 {
        header.children.push(header_tags(&mut cur, &root)?);
    }
    header.size = cur.at() - 4;
    let body_start = cur.at();
    let schema = super::message(api, Direction::Response);
    let body = walk_body(schema, version, &frame[body_start..], body_start)?;
    let json = body.json.clone();
    let mut tree = Node::new(schema.name, format!("message v{version}"), 0);
    tree.children = vec![prefix, header];
    let (tree, trailing) = finish(tree, frame, body, body_start);
    Ok(WalkedFrame {
        tree,
        api,
        version,
        direction: Direction::Response,
        json,
        trailing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::schema::sample::sample_body;

    /// The validation walk before [`Validator`]: the tree walk with nothing built.
    fn walked(schema: &MessageSchema, version: i16, body: &[u8]) -> Result<usize, DecodeError> {
        walk(schema, version, body, 0, false).map(|w| w.consumed)
    }

    #[test]
    fn the_validator_agrees_with_the_walk() {
        let mut checked = 0;
        for schema in crate::schema::all() {
            for version in schema.versions.min..=schema.versions.max {
                let Ok(body) = sample_body(schema.api, schema.direction, version) else {
                    continue;
                };
                let mut cases = vec![body.clone()];
                // Every truncation, and every byte replaced by values that make lengths and
                // counts null, negative, huge or longer varints.
                for len in 0..body.len() {
                    cases.push(body[..len].to_vec());
                }
                for i in 0..body.len() {
                    for b in [0x00, 0x01, 0x02, 0x05, 0x7f, 0x80, 0xfe, 0xff] {
                        let mut m = body.clone();
                        m[i] = b;
                        cases.push(m);
                    }
                }
                for case in cases {
                    assert_eq!(
                        validate_body(schema, version, &case),
                        walked(schema, version, &case),
                        "{} v{version} {case:02x?}",
                        schema.name
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }
}

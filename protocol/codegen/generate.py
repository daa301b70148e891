#!/usr/bin/env python3
"""regroup's code generator for the wire messages.

Reads Apache Kafka's message schemas (the JSON files under
`clients/src/main/resources/common/message/` of the Kafka release regroup follows, 4.4) and
writes Rust:

* `messages`: typed message modules for the apis whose Kafka 4.4 version range kafka-protocol 0.18
  does not cover (or does not have at all). They have the shape kafka-protocol's generated
  messages have -- public snake_case fields, `Default`, `with_*` builders, `Encodable`,
  `Decodable`, `Message`, `HeaderVersion` -- so the rest of regroup uses both kinds the same way.
* `schema`: the schema table of every api regroup serves (`protocol/src/schema/tables.rs`), the
  data the wire walker, the samples and the JSON conversion run on.

Only facts are taken from the JSON (names, types, versions, tags, defaults); descriptions come
from `descriptions.py`. The output is checked in, so building regroup never needs Kafka's sources.

    python3 protocol/codegen/generate.py <kafka>/clients/src/main/resources/common/message
    cargo fmt --all
"""

import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from descriptions import describe  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # protocol/

# Messages written by this crate: (schema base name, api key).
OWN_MESSAGES = [
    ("ListOffsets", 2),
    ("OffsetCommit", 8),
    ("OffsetFetch", 9),
    ("ApiVersions", 18),
    ("TxnOffsetCommit", 28),
    ("DeleteGroups", 42),
    ("BrokerHeartbeat", 63),
    ("StreamsGroupHeartbeat", 88),
    ("StreamsGroupDescribe", 89),
    ("StreamsGroupTopologyDescriptionUpdate", 93),
]

INT_TYPES = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint16": "u16",
             "uint32": "u32", "float64": "f64"}
NEWTYPE_INTS = {("int32", "brokerId"): "BrokerId", ("int64", "producerId"): "ProducerId"}
NEWTYPE_STRINGS = {"groupId": "GroupId", "topicName": "TopicName",
                   "transactionalId": "TransactionalId"}


# ------------------------------------------------------------------------------------------------
# Schema model

def load_json(path):
    with open(path) as f:
        text = f.read()
    text = re.sub(r"^\s*//.*$", "", text, flags=re.M)
    return json.loads(text)


def parse_versions(s):
    """'0+' -> (0, None); '1-3' -> (1, 3); '2' -> (2, 2); 'none' / None -> None."""
    if s is None or s == "none" or s == "":
        return None
    s = str(s)
    if s.endswith("+"):
        return (int(s[:-1]), None)
    if "-" in s:
        lo, hi = s.split("-")
        return (int(lo), int(hi))
    return (int(s), int(s))


def vmin(v):
    return v[0]


def vmax(v, cap):
    return cap if v[1] is None else min(v[1], cap)


def intersect(a, b):
    if a is None or b is None:
        return None
    lo = max(a[0], b[0])
    hi = a[1] if b[1] is None else (b[1] if a[1] is None else min(a[1], b[1]))
    if hi is not None and lo > hi:
        return None
    return (lo, hi)


class Field:
    def __init__(self, j, message):
        self.name = j["name"]
        self.type = j["type"]
        self.versions = parse_versions(j["versions"])
        self.nullable = parse_versions(j.get("nullableVersions"))
        self.tagged = parse_versions(j.get("taggedVersions"))
        self.tag = j.get("tag")
        self.default = j.get("default")
        self.ignorable = bool(j.get("ignorable", False))
        self.entity = j.get("entityType")
        self.flexible_override = j.get("flexibleVersions")
        self.fields = [Field(f, message) for f in j["fields"]] if "fields" in j else None

    @property
    def is_array(self):
        return self.type.startswith("[]")

    @property
    def elem(self):
        return self.type[2:] if self.is_array else self.type

    @property
    def is_struct(self):
        return self.elem not in INT_TYPES and self.elem not in ("bool", "string", "bytes",
                                                                 "records", "uuid")

    @property
    def snake(self):
        return snake(self.name)


def snake(name):
    s = re.sub(r"(?<=[a-z0-9])([A-Z])", r"_\1", name)
    s = re.sub(r"(?<=[A-Z])([A-Z][a-z])", r"_\1", s)
    return s.lower()


class Message:
    def __init__(self, path):
        j = load_json(path)
        self.name = j["name"]
        self.kind = j["type"]
        self.api_key = j.get("apiKey")
        self.valid = parse_versions(j["validVersions"])
        self.flexible = parse_versions(j["flexibleVersions"])
        self.fields = [Field(f, self.name) for f in j["fields"]]
        self.common = {c["name"]: [Field(f, self.name) for f in c["fields"]]
                       for c in j.get("commonStructs", [])}
        self.common_versions = {c["name"]: parse_versions(c["versions"])
                                for c in j.get("commonStructs", [])}

    @property
    def max(self):
        return self.valid[1]

    @property
    def min(self):
        return self.valid[0]

    def structs(self):
        """All structs in order of first appearance: (name, fields)."""
        out = []
        seen = set()

        def visit(fields):
            for f in fields:
                if f.is_struct:
                    name = f.elem
                    sub = f.fields if f.fields is not None else self.common[name]
                    if name not in seen:
                        seen.add(name)
                        out.append((name, sub))
                        visit(sub)
        visit(self.fields)
        return out


# ------------------------------------------------------------------------------------------------
# Rust helpers for the typed messages

def base_type(f):
    e = f.elem
    if e == "bool":
        return "bool"
    if e in INT_TYPES:
        return NEWTYPE_INTS.get((e, f.entity), INT_TYPES[e])
    if e == "uuid":
        return "Uuid"
    if e == "string":
        return NEWTYPE_STRINGS.get(f.entity, "StrBytes")
    if e in ("bytes", "records"):
        return "Bytes"
    return e


def rust_type(f):
    t = base_type(f)
    if f.is_array:
        t = f"Vec<{t}>"
    if f.nullable is not None:
        t = f"Option<{t}>"
    return t


def default_expr(f):
    d = f.default
    if f.nullable is not None and d == "null":
        return "None"
    inner = None
    if f.is_array or f.is_struct or f.elem in ("bytes", "records", "uuid"):
        if f.elem == "uuid" and not f.is_array:
            inner = "Uuid::nil()"
        else:
            inner = "Default::default()"
    elif f.elem == "bool":
        inner = "true" if str(d).lower() == "true" else "false"
    elif f.elem == "string":
        if d in (None, ""):
            inner = "Default::default()"
        else:
            inner = f'StrBytes::from_static_str("{d}").into()'
    elif f.elem == "float64":
        inner = f"{float(d) if d is not None else 0.0!r}"
    else:
        n = 0 if d is None else int(str(d), 0)
        t = base_type(f)
        if t in ("BrokerId", "ProducerId"):
            inner = f"({n}).into()"
        elif f.elem == "int32" and n == -2147483648:
            inner = "i32::MIN"
        else:
            inner = str(n)
    if f.nullable is not None:
        return f"Some({inner})"
    return inner


def typed_default(f):
    """default_expr with every `Default::default()` given its type, for comparisons."""
    inner = base_type(f)
    if f.is_array:
        inner = f"Vec<{inner}>"
    return default_expr(f).replace("Default::default()", f"<{inner}>::default()")


def cond(rng, msg_min, msg_max):
    """Rust boolean expression for `version in rng`, simplified against the message range."""
    if rng is None:
        return "false"
    lo = rng[0]
    hi = rng[1]
    parts = []
    if lo > msg_min:
        parts.append(f"version >= {lo}")
    if hi is not None and hi < msg_max:
        parts.append(f"version <= {hi}")
    if not parts:
        return "true"
    if len(parts) == 2:
        if lo == hi:
            return f"version == {lo}"
        return f"({lo}..={hi}).contains(&version)"
    return parts[0]


def read_scalar(f, flex):
    """Expression reading one non-array value of f's element type (non-null)."""
    e = f.elem
    if e == "bool":
        return "prim::get_bool(buf)?"
    if e in INT_TYPES:
        getter = {"int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64", "uint16": "u16",
                  "uint32": "u32", "float64": "f64"}[e]
        if (e, f.entity) in NEWTYPE_INTS:
            return f"prim::get_{getter}(buf)?.into()"
        return f"prim::get_{getter}(buf)?"
    if e == "uuid":
        return "prim::get_uuid(buf)?"
    if e == "string":
        if f.entity in NEWTYPE_STRINGS:
            return f"prim::get_string(buf, {flex})?.into()"
        return f"prim::get_string(buf, {flex})?"
    if e in ("bytes", "records"):
        return f"prim::get_bytes(buf, {flex})?"
    return f"{e}::decode(buf, version)?"


def write_scalar(f, v, flex, by_ref):
    """Statement writing one non-array value of f's element type. `v` is a place expression of
    type T (`by_ref` false) or an expression of type &T (`by_ref` true)."""
    e = f.elem
    val = f"*{v}" if by_ref else v          # the value, for Copy types
    ref = v if by_ref else f"&{v}"          # a reference
    if e == "bool":
        return f"prim::put_bool(buf, {val})?;"
    if e in INT_TYPES:
        putter = INT_TYPES[e]
        if (e, f.entity) in NEWTYPE_INTS:
            return f"prim::put_{putter}(buf, {v}.0)?;"
        return f"prim::put_{putter}(buf, {val})?;"
    if e == "uuid":
        return f"prim::put_uuid(buf, {ref})?;"
    if e == "string":
        return f"prim::put_string(buf, {v}.as_str_ref(), {flex})?;"
    if e in ("bytes", "records"):
        return f"prim::put_bytes(buf, {ref}, {flex})?;"
    return f"{v}.encode(buf, version)?;"


def read_value(f, flex, nullable_here, tagged):
    """Expression reading the whole field value (array / nullable handled)."""
    if f.is_array:
        elem = read_scalar(f, flex)
        if nullable_here:
            return f"prim::get_nullable_array(buf, {flex}, |buf| Ok({elem}))?"
        return f"prim::get_array(buf, {flex}, |buf| Ok({elem}))?"
    if f.elem == "string" and nullable_here:
        if f.entity in NEWTYPE_STRINGS:
            return f"prim::get_nullable_string(buf, {flex})?.map(Into::into)"
        return f"prim::get_nullable_string(buf, {flex})?"
    if f.elem in ("bytes", "records") and nullable_here:
        return f"prim::get_nullable_bytes(buf, {flex})?"
    if f.is_struct and nullable_here:
        marker = "prim::get_uvarint(buf)? > 0" if tagged else "prim::get_struct_present(buf)?"
        return f"if {marker} {{ Some({f.elem}::decode(buf, version)?) }} else {{ None }}"
    return read_scalar(f, flex)


def write_value(f, v, flex, nullable_here, tagged, path):
    """Statements writing the whole field value held in expression `v` (a place, not a ref)."""
    opt = f.nullable is not None
    if f.is_array:
        elem_stmt = write_scalar(f, "e", flex, True).rstrip(";")
        closure = f"|buf, e| {{ {elem_stmt}; Ok(()) }}"
        if opt and nullable_here:
            return [f"prim::put_nullable_array(buf, {v}.as_deref(), {flex}, {closure})?;"]
        if opt:
            return [f'prim::put_array(buf, prim::non_null(&{v}, "{path}")?, {flex}, {closure})?;']
        return [f"prim::put_array(buf, &{v}, {flex}, {closure})?;"]
    if f.elem == "string" and opt:
        if nullable_here:
            return [f"prim::put_nullable_string(buf, {v}.as_ref().map(|s| s.as_str_ref()), {flex})?;"]
        return [f'prim::put_string(buf, prim::non_null(&{v}, "{path}")?.as_str_ref(), {flex})?;']
    if f.elem in ("bytes", "records") and opt:
        if nullable_here:
            return [f"prim::put_nullable_bytes(buf, {v}.as_deref(), {flex})?;"]
        return [f'prim::put_bytes(buf, prim::non_null(&{v}, "{path}")?, {flex})?;']
    if f.is_struct and opt:
        if nullable_here:
            present = "prim::put_uvarint(buf, 1)?;" if tagged else "prim::put_i8(buf, 1)?;"
            absent = "prim::put_uvarint(buf, 0)?;" if tagged else "prim::put_i8(buf, -1)?;"
            return [f"match &{v} {{",
                    f"    Some(s) => {{ {present} s.encode(buf, version)?; }}",
                    f"    None => {{ {absent} }}",
                    "}"]
        return [f'prim::non_null(&{v}, "{path}")?.encode(buf, version)?;']
    return [write_scalar(f, v, flex, False)]


def doc_lines(text, indent):
    return [f"{indent}/// {line}".rstrip() for line in text.split("\n")]


def fmt_range(rng, cap):
    if rng is None:
        return "none"
    hi = vmax(rng, cap)
    return f"{rng[0]}" if rng[0] == hi else f"{rng[0]}-{hi}"


def gen_struct(msg, sname, fields, is_top, out):
    mmin, mmax = msg.min, msg.max
    flex_cond = cond(msg.flexible, mmin, mmax) if msg.flexible else "false"
    doc = (f"{msg.name}, api key {msg.api_key}, versions {mmin}-{mmax}." if is_top
           else f"Part of {msg.name} (versions {mmin}-{mmax}).")
    out += doc_lines(doc, "")
    out.append("#[non_exhaustive]")
    out.append("#[derive(Debug, Clone, PartialEq)]")
    out.append(f"pub struct {sname} {{")
    for f in fields:
        d = describe(msg.name, sname, f.name)
        if d is None:
            raise SystemExit(f"no description for {msg.name}/{sname}.{f.name}")
        present = intersect(f.versions, msg.valid)
        extra = f"Versions {fmt_range(present, mmax)}"
        if f.nullable is not None:
            extra += f", nullable {fmt_range(intersect(f.nullable, msg.valid), mmax)}"
        if f.tagged is not None:
            extra += f", tagged (tag {f.tag})"
        out += doc_lines(f"{d[0].upper()}{d[1:]}.\n\n{extra}.", "    ")
        out.append(f"    pub {f.snake}: {rust_type(f)},")
        out.append("")
    out.append("    /// Tagged fields this version does not know, kept so they can be re-encoded.")
    out.append("    pub unknown_tagged_fields: BTreeMap<i32, Bytes>,")
    out.append("}")
    out.append("")
    # builders
    out.append(f"impl {sname} {{")
    for f in fields:
        out.append(f"    /// Sets `{f.snake}`.")
        out.append(f"    pub fn with_{f.snake}(mut self, value: {rust_type(f)}) -> Self {{")
        out.append(f"        self.{f.snake} = value;")
        out.append("        self")
        out.append("    }")
    out.append("    /// Sets `unknown_tagged_fields`.")
    out.append("    pub fn with_unknown_tagged_fields(mut self, value: BTreeMap<i32, Bytes>) -> Self {")
    out.append("        self.unknown_tagged_fields = value;")
    out.append("        self")
    out.append("    }")
    out.append("    /// Inserts one entry into `unknown_tagged_fields`.")
    out.append("    pub fn with_unknown_tagged_field(mut self, key: i32, value: Bytes) -> Self {")
    out.append("        self.unknown_tagged_fields.insert(key, value);")
    out.append("        self")
    out.append("    }")
    out.append("}")
    out.append("")
    # Encodable
    out.append(f"impl Encodable for {sname} {{")
    out.append("    fn encode<B: ByteBufMut>(&self, buf: &mut B, version: i16) -> Result<()> {")
    out.append(f"        if !({mmin}..={mmax}).contains(&version) {{")
    out.append('            bail!("specified version not supported by this message type");')
    out.append("        }")
    out.append(f"        let flexible = {flex_cond};")
    tagged_fields = []
    for f in fields:
        present = intersect(f.versions, msg.valid)
        tagged_rng = intersect(f.tagged, present) if f.tagged else None
        untagged_rng = present
        if tagged_rng is not None:
            # Kafka requires tagged versions to be open-ended; the untagged part is what remains.
            untagged_rng = None if tagged_rng[0] <= present[0] else (present[0], tagged_rng[0] - 1)
            tagged_fields.append((f, tagged_rng))
        path = f"{sname}.{f.name}"
        if untagged_rng is not None:
            c = cond(untagged_rng, mmin, mmax)
            nullable_rng = intersect(f.nullable, untagged_rng) if f.nullable else None
            if f.nullable is None or nullable_rng == untagged_rng or (
                    nullable_rng is not None and cond(nullable_rng, *bounds(untagged_rng, mmax)) == "true"):
                body = write_value(f, f"self.{f.snake}", "flexible", f.nullable is not None, False, path)
            elif nullable_rng is None:
                body = write_value(f, f"self.{f.snake}", "flexible", False, False, path)
            else:
                nc = cond(nullable_rng, mmin, mmax)
                body = [f"if {nc} {{"] + ["    " + b for b in write_value(
                    f, f"self.{f.snake}", "flexible", True, False, path)] + ["} else {"] + [
                    "    " + b for b in write_value(f, f"self.{f.snake}", "flexible", False, False, path)] + ["}"]
            if c == "true":
                out += ["        " + b for b in body]
            else:
                out.append(f"        if {c} {{")
                out += ["            " + b for b in body]
                out.append("        }")
                if not f.ignorable and tagged_rng is None:
                    out.append(f"        else if self.{f.snake} != {typed_default(f)} {{")
                    out.append("            bail!(prim::FIELD_NOT_IN_VERSION);")
                    out.append("        }")
        elif tagged_rng is None and not f.ignorable:
            out.append(f"        if self.{f.snake} != {typed_default(f)} {{")
            out.append("            bail!(prim::FIELD_NOT_IN_VERSION);")
            out.append("        }")
    if msg.flexible:
        out.append("        if flexible {")
        out.append("            let mut tagged = prim::TaggedWriter::new();")
        for f, rng in tagged_fields:
            c = cond(rng, mmin, mmax)
            path = f"{sname}.{f.name}"
            test = f"self.{f.snake} != {typed_default(f)}"
            guard = test if c == "true" else f"{c} && {test}"
            body = write_value(f, f"self.{f.snake}", "true", f.nullable is not None, True, path)
            out.append(f"            if {guard} {{")
            out.append(f"                tagged.field({f.tag}, |buf| {{")
            out += ["                    " + b for b in body]
            out.append("                    Ok(())")
            out.append("                })?;")
            out.append("            }")
            if not f.ignorable:
                nc = cond(present_range(f, msg), mmin, mmax)
                if nc != "true":
                    out.append(f"            if !({nc}) && {test} {{")
                    out.append("                bail!(prim::FIELD_NOT_IN_VERSION);")
                    out.append("            }")
        out.append("            tagged.unknown(&self.unknown_tagged_fields);")
        out.append("            tagged.write(buf)?;")
        out.append("        }")
    out.append("        Ok(())")
    out.append("    }")
    out.append("")
    out.append("    fn compute_size(&self, version: i16) -> Result<usize> {")
    out.append("        let mut buf = BytesMut::new();")
    out.append("        self.encode(&mut buf, version)?;")
    out.append("        Ok(buf.len())")
    out.append("    }")
    out.append("}")
    out.append("")
    # Decodable
    out.append(f"impl Decodable for {sname} {{")
    out.append("    fn decode<B: ByteBuf>(buf: &mut B, version: i16) -> Result<Self> {")
    out.append(f"        if !({mmin}..={mmax}).contains(&version) {{")
    out.append('            bail!("specified version not supported by this message type");')
    out.append("        }")
    out.append(f"        let flexible = {flex_cond};")
    out.append("        let mut this = Self::default();")
    for f in fields:
        present = intersect(f.versions, msg.valid)
        tagged_rng = intersect(f.tagged, present) if f.tagged else None
        untagged_rng = present
        if tagged_rng is not None:
            untagged_rng = None if tagged_rng[0] <= present[0] else (present[0], tagged_rng[0] - 1)
        if untagged_rng is None:
            continue
        c = cond(untagged_rng, mmin, mmax)
        opt = f.nullable is not None
        nullable_rng = intersect(f.nullable, untagged_rng) if opt else None
        if not opt:
            stmt = [f"this.{f.snake} = {read_value(f, 'flexible', False, False)};"]
        elif nullable_rng == untagged_rng or (nullable_rng is not None and cond(nullable_rng, *bounds(untagged_rng, mmax)) == "true"):
            stmt = [f"this.{f.snake} = {read_value(f, 'flexible', True, False)};"]
        elif nullable_rng is None:
            stmt = [f"this.{f.snake} = Some({read_value(f, 'flexible', False, False)});"]
        else:
            nc = cond(nullable_rng, mmin, mmax)
            stmt = [f"this.{f.snake} = if {nc} {{",
                    f"    {read_value(f, 'flexible', True, False)}",
                    "} else {",
                    f"    Some({read_value(f, 'flexible', False, False)})",
                    "};"]
        if c == "true":
            out += ["        " + s for s in stmt]
        else:
            out.append(f"        if {c} {{")
            out += ["            " + s for s in stmt]
            out.append("        }")
    if msg.flexible:
        out.append("        if flexible {")
        out.append("            let count = prim::get_uvarint(buf)?;")
        out.append("            for _ in 0..count {")
        out.append("                let (tag, mut field) = prim::get_tagged_field(buf)?;")
        if tagged_fields:
            out.append("                match tag {")
            for f, rng in tagged_fields:
                c = cond(rng, mmin, mmax)
                out.append(f"                    {f.tag} => {{")
                val = read_value(f, "true", f.nullable is not None, True)
                inner = [
                    "let buf = &mut field;",
                    f"this.{f.snake} = {val};",
                    f"prim::expect_consumed(buf, tag)?;",
                ]
                if c == "true":
                    out += ["                        " + s for s in inner]
                else:
                    out.append(f"                        if !({c}) {{")
                    out.append('                            bail!("Tag {tag} is not valid for version {version}");')
                    out.append("                        }")
                    out += ["                        " + s for s in inner]
                out.append("                    }")
            out.append("                    _ => {")
            out.append("                        this.unknown_tagged_fields.insert(tag as i32, field);")
            out.append("                    }")
            out.append("                }")
        else:
            out.append("                this.unknown_tagged_fields.insert(tag as i32, field);")
        out.append("            }")
        out.append("        }")
    out.append("        Ok(this)")
    out.append("    }")
    out.append("}")
    out.append("")
    # Default
    out.append(f"impl Default for {sname} {{")
    out.append("    fn default() -> Self {")
    out.append("        Self {")
    for f in fields:
        out.append(f"            {f.snake}: {default_expr(f)},")
    out.append("            unknown_tagged_fields: BTreeMap::new(),")
    out.append("        }")
    out.append("    }")
    out.append("}")
    out.append("")
    out.append(f"impl Message for {sname} {{")
    out.append(f"    const VERSIONS: VersionRange = VersionRange {{ min: {mmin}, max: {mmax} }};")
    out.append("    const DEPRECATED_VERSIONS: Option<VersionRange> = None;")
    out.append("}")
    out.append("")


def present_range(f, msg):
    return intersect(f.versions, msg.valid)


def bounds(rng, cap):
    return (rng[0], vmax(rng, cap))


def gen_module(msg, api_key, pair_name):
    out = []
    out.append(f"//! {msg.name} (api key {api_key}), versions {msg.min}-{msg.max}.")
    out.append("//!")
    out.append("//! Generated by `protocol/codegen/generate.py` from Apache Kafka 4.4's message schema;")
    out.append("//! regenerate rather than edit. Same shape as kafka-protocol's generated messages.")
    out.append("#![allow(clippy::all, unused_imports, unused_mut, unused_variables)]")
    out.append("")
    out.append("use std::collections::BTreeMap;")
    out.append("")
    out.append("use anyhow::{Result, bail};")
    out.append("use bytes::{Bytes, BytesMut};")
    out.append("use kafka_protocol::messages::{BrokerId, GroupId, ProducerId, TopicName, TransactionalId};")
    out.append("use kafka_protocol::protocol::buf::{ByteBuf, ByteBufMut};")
    out.append("use kafka_protocol::protocol::{")
    out.append("    Decodable, Encodable, HeaderVersion, Message, StrBytes, VersionRange,")
    out.append("};")
    out.append("use uuid::Uuid;")
    out.append("")
    out.append("use crate::prim::{self, AsStrRef};")
    out.append("")
    structs = [(msg.name, msg.fields, True)] + [(n, fs, False) for n, fs in msg.structs()]
    for sname, fields, top in structs:
        gen_struct(msg, sname, fields, top, out)
    # header version
    flex_min = msg.flexible[0] if msg.flexible else None
    if msg.kind == "request":
        hv = "2" if flex_min is not None and flex_min <= msg.min else (
            f"if version >= {flex_min} {{ 2 }} else {{ 1 }}" if flex_min is not None else "1")
    else:
        if api_key == 18:
            hv = "0"
        else:
            hv = "1" if flex_min is not None and flex_min <= msg.min else (
                f"if version >= {flex_min} {{ 1 }} else {{ 0 }}" if flex_min is not None else "0")
    out.append(f"impl HeaderVersion for {msg.name} {{")
    out.append("    fn header_version(version: i16) -> i16 {")
    if hv in ("0", "1", "2"):
        out.append("        let _ = version;")
    out.append(f"        {hv}")
    out.append("    }")
    out.append("}")
    out.append("")
    if msg.kind == "request":
        out.append(f"impl kafka_protocol::protocol::Request for {msg.name} {{")
        out.append(f"    const KEY: i16 = {api_key};")
        out.append(f"    type Response = super::{pair_name};")
        out.append("}")
        out.append("")
    return "\n".join(out)


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    src = sys.argv[1]
    out_dir = os.path.join(ROOT, "src", "messages")
    for base, key in OWN_MESSAGES:
        for kind in ("Request", "Response"):
            msg = Message(os.path.join(src, f"{base}{kind}.json"))
            assert msg.api_key == key, (base, msg.api_key)
            pair = f"{base}Response"
            code = gen_module(msg, key, pair)
            path = os.path.join(out_dir, f"{snake(base)}_{kind.lower()}.rs")
            with open(path, "w") as f:
                f.write(code)
            print("wrote", os.path.relpath(path, ROOT))
    gen_schema(src)


# ------------------------------------------------------------------------------------------------
# The schema table

# Every api regroup serves: (schema base name, api variant, served min, served max).
SERVED = [
    ("Produce", "Produce", 3, 13), ("Fetch", "Fetch", 4, 18), ("ListOffsets", "ListOffsets", 1, 11),
    ("Metadata", "Metadata", 0, 13), ("OffsetCommit", "OffsetCommit", 2, 10),
    ("OffsetFetch", "OffsetFetch", 1, 10), ("FindCoordinator", "FindCoordinator", 0, 6),
    ("JoinGroup", "JoinGroup", 0, 9), ("Heartbeat", "Heartbeat", 0, 4),
    ("LeaveGroup", "LeaveGroup", 0, 5), ("SyncGroup", "SyncGroup", 0, 5),
    ("DescribeGroups", "DescribeGroups", 0, 6), ("ListGroups", "ListGroups", 0, 5),
    ("ApiVersions", "ApiVersions", 0, 5), ("CreateTopics", "CreateTopics", 2, 7),
    ("InitProducerId", "InitProducerId", 0, 5), ("TxnOffsetCommit", "TxnOffsetCommit", 0, 6),
    ("DescribeConfigs", "DescribeConfigs", 1, 4), ("CreatePartitions", "CreatePartitions", 0, 3),
    ("DeleteGroups", "DeleteGroups", 0, 3),
    ("OffsetDelete", "OffsetDelete", 0, 0),
    ("DescribeCluster", "DescribeCluster", 0, 2), ("BrokerRegistration", "BrokerRegistration", 0, 4),
    ("BrokerHeartbeat", "BrokerHeartbeat", 0, 2),
    ("ConsumerGroupHeartbeat", "ConsumerGroupHeartbeat", 0, 1),
    ("ConsumerGroupDescribe", "ConsumerGroupDescribe", 0, 1),
    ("StreamsGroupHeartbeat", "StreamsGroupHeartbeat", 0, 1),
    ("StreamsGroupDescribe", "StreamsGroupDescribe", 0, 1),
    ("StreamsGroupTopologyDescriptionUpdate", "StreamsGroupTopologyDescriptionUpdate", 0, 0),
]

TYPE_NAMES = {"bool": "Bool", "int8": "Int8", "int16": "Int16", "int32": "Int32", "int64": "Int64",
              "uint16": "Uint16", "uint32": "Uint32", "float64": "Float64", "string": "String",
              "bytes": "Bytes", "records": "Records", "uuid": "Uuid"}


def const_name(*parts):
    return "__".join(snake(p).upper() for p in parts)


def rs_versions(rng, smin):
    lo = max(rng[0], smin)
    hi = "MAX" if rng[1] is None else str(rng[1])
    return f"v({lo}, {hi})"


def rs_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def schema_field(msg, prefix, sname, f, smin, smax, structs_out):
    present = intersect(f.versions, (smin, smax))
    if present is None:
        return None
    d = describe(msg.name, sname, f.name)
    if d is None:
        raise SystemExit(f"no description for {msg.name}/{sname}.{f.name}")
    if f.is_struct:
        sub_fields = f.fields if f.fields is not None else msg.common[f.elem]
        cname = const_name(prefix, f.elem)
        if cname not in structs_out:
            structs_out[cname] = None  # reserve (recursion guard)
            body = [schema_field(msg, prefix, f.elem, sf, smin, smax, structs_out) for sf in sub_fields]
            body = [b for b in body if b is not None]
            structs_out[cname] = (f.elem, body)
        elem = f"Type::Struct(&{cname})"
    else:
        elem = f"Type::{TYPE_NAMES[f.elem]}"
    ty = f"Type::Array(&{elem})" if f.is_array else elem
    parts = [f"Field::new({rs_str(f.name)}, {ty}, {rs_versions(present, smin)}, {rs_str(d)})"]
    if f.nullable is not None:
        nr = intersect(f.nullable, present)
        if nr is not None:
            parts.append(f".nullable({rs_versions(nr, smin)})")
    if f.tagged is not None:
        tr = intersect(f.tagged, present)
        if tr is not None:
            parts.append(f".tagged({f.tag}, {rs_versions(tr, smin)})")
    dflt = f.default
    if dflt is not None and str(dflt) != "":
        ds = str(dflt)
        if ds == "null":
            parts.append(".default(FieldDefault::Null)")
        elif f.elem == "bool":
            if ds.lower() == "true":
                parts.append(".default(FieldDefault::Bool(true))")
        elif f.elem in INT_TYPES and f.elem != "float64":
            n = int(ds, 0)
            if n != 0:
                parts.append(f".default(FieldDefault::Int({n}))")
        elif f.elem == "float64":
            if float(ds) != 0.0:
                parts.append(f".default(FieldDefault::Float({float(ds)!r}))")
        elif f.elem == "string":
            parts.append(f".default(FieldDefault::Str({rs_str(ds)}))")
        else:
            raise SystemExit(f"unhandled default {ds!r} for {msg.name}.{f.name}")
    if f.ignorable:
        parts.append(".ignorable()")
    return "".join(parts)


def gen_schema(src):
    out = []
    out.append("//! The schema table: every request and response regroup serves, at every served version.")
    out.append("//!")
    out.append("//! Generated by `protocol/codegen/generate.py` from Apache Kafka 4.4's message schemas")
    out.append("//! (field names, types, versions, tags, defaults); the descriptions are regroup's own")
    out.append("//! (`protocol/codegen/descriptions.py`). Regenerate rather than edit.")
    out.append("")
    out.append("use super::{Direction, Field, FieldDefault, MessageSchema, StructSchema, Type, Versions};")
    out.append("use crate::api::Api;")
    out.append("")
    out.append("const fn v(min: i16, max: i16) -> Versions {")
    out.append("    Versions::new(min, max)")
    out.append("}")
    out.append("")
    names = []
    for base, variant, smin, smax in SERVED:
        for kind in ("Request", "Response"):
            msg = Message(os.path.join(src, f"{base}{kind}.json"))
            assert msg.valid[0] <= smin and (msg.valid[1] is None or msg.valid[1] >= smax), base
            prefix = f"{base}{kind}"
            structs = {}
            fields = [schema_field(msg, prefix, msg.name, f, smin, smax, structs) for f in msg.fields]
            fields = [x for x in fields if x is not None]
            flex = msg.flexible[0] if msg.flexible else 32767
            cname = const_name(prefix)
            names.append(cname)
            out.append(f"const {cname}: MessageSchema = MessageSchema {{")
            out.append(f"    api: Api::{variant},")
            out.append(f"    direction: Direction::{kind},")
            out.append(f"    name: {rs_str(msg.name)},")
            out.append(f"    versions: v({smin}, {smax}),")
            out.append(f"    first_flexible: {max(flex, smin) if flex <= smax else flex},")
            out.append("    fields: &[")
            for x in fields:
                out.append(f"        {x},")
            out.append("    ],")
            out.append("};")
            out.append("")
            for sc, val in structs.items():
                sname, body = val
                out.append(f"const {sc}: StructSchema = StructSchema {{")
                out.append(f"    name: {rs_str(sname)},")
                out.append("    fields: &[")
                for x in body:
                    out.append(f"        {x},")
                out.append("    ],")
                out.append("};")
                out.append("")
    out.append("/// Request and response of every api, in api-key order (request first).")
    out.append("pub(super) const MESSAGES: &[MessageSchema] = &[")
    for n in names:
        out.append(f"    {n},")
    out.append("];")
    path = os.path.join(ROOT, "src", "schema", "tables.rs")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    print("wrote", os.path.relpath(path, ROOT))


if __name__ == "__main__":
    main()

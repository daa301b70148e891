//! Primitive readers and writers of Kafka's wire types, used by the messages this crate writes
//! itself (kafka-protocol keeps its own primitives crate-private).
//!
//! Every reader checks that the bytes exist before taking them, so a declared length never causes
//! an allocation larger than the input, and no reader panics on short input. Errors are
//! `anyhow::Error` because that is what kafka-protocol's `Encodable`/`Decodable` traits return;
//! the schema pre-pass (`crate::schema::walk`) runs first on every decode path and reports the
//! exact offset of a malformed field, so these messages only need to say what went wrong.

use std::collections::BTreeMap;

use anyhow::{Result, bail};
use bytes::{Buf, Bytes, BytesMut};
use kafka_protocol::protocol::StrBytes;
use kafka_protocol::protocol::buf::{ByteBuf, ByteBufMut};
use uuid::Uuid;

/// Longest string Kafka accepts in a string field (Java's `Short.MAX_VALUE`).
pub const MAX_STRING_LEN: usize = 0x7fff;

/// The error every encoder reports when a field that does not exist in the requested version
/// holds a non-default value (same wording as kafka-protocol).
pub const FIELD_NOT_IN_VERSION: &str =
    "A field is set that is not available on the selected protocol version";

fn need<B: ByteBuf>(buf: &B, n: usize, what: &str) -> Result<()> {
    if buf.remaining() < n {
        bail!("{what}: need {n} bytes, only {} remain", buf.remaining());
    }
    Ok(())
}

/// Borrow the text of a string field, whatever newtype kafka-protocol wraps it in.
pub trait AsStrRef {
    fn as_str_ref(&self) -> &str;
}

impl AsStrRef for StrBytes {
    fn as_str_ref(&self) -> &str {
        self.as_str()
    }
}

macro_rules! str_newtype {
    ($($t:ty),*) => {$(
        impl AsStrRef for $t {
            fn as_str_ref(&self) -> &str {
                self.0.as_str()
            }
        }
    )*};
}
str_newtype!(
    kafka_protocol::messages::GroupId,
    kafka_protocol::messages::TopicName,
    kafka_protocol::messages::TransactionalId
);

// ---------------------------------------------------------------------------------------------
// Readers

pub fn get_bool<B: ByteBuf>(buf: &mut B) -> Result<bool> {
    need(buf, 1, "bool")?;
    // Java reads `readByte() != 0`: any non-zero byte is true.
    Ok(buf.get_u8() != 0)
}

pub fn get_i8<B: ByteBuf>(buf: &mut B) -> Result<i8> {
    need(buf, 1, "int8")?;
    Ok(buf.get_i8())
}

pub fn get_i16<B: ByteBuf>(buf: &mut B) -> Result<i16> {
    need(buf, 2, "int16")?;
    Ok(buf.get_i16())
}

pub fn get_u16<B: ByteBuf>(buf: &mut B) -> Result<u16> {
    need(buf, 2, "uint16")?;
    Ok(buf.get_u16())
}

pub fn get_i32<B: ByteBuf>(buf: &mut B) -> Result<i32> {
    need(buf, 4, "int32")?;
    Ok(buf.get_i32())
}

pub fn get_u32<B: ByteBuf>(buf: &mut B) -> Result<u32> {
    need(buf, 4, "uint32")?;
    Ok(buf.get_u32())
}

pub fn get_i64<B: ByteBuf>(buf: &mut B) -> Result<i64> {
    need(buf, 8, "int64")?;
    Ok(buf.get_i64())
}

pub fn get_f64<B: ByteBuf>(buf: &mut B) -> Result<f64> {
    need(buf, 8, "float64")?;
    Ok(buf.get_f64())
}

pub fn get_uuid<B: ByteBuf>(buf: &mut B) -> Result<Uuid> {
    need(buf, 16, "uuid")?;
    Ok(Uuid::from_u128(buf.get_u128()))
}

/// An unsigned varint of at most 5 bytes (Java's `readUnsignedVarint`: the fifth byte must end
/// the varint; bits beyond 32 are dropped).
pub fn get_uvarint<B: ByteBuf>(buf: &mut B) -> Result<u32> {
    let mut value: u32 = 0;
    for i in 0..5 {
        need(buf, 1, "unsigned varint")?;
        let b = buf.get_u8();
        value |= u32::from(b & 0x7f).wrapping_shl(7 * i);
        if b & 0x80 == 0 {
            return Ok(value);
        }
    }
    bail!("unsigned varint is longer than 5 bytes")
}

/// Reads a length prefix: `Ok(None)` for the null marker (-1), otherwise the length, checked
/// against what is left in the buffer. Lengths below -1 and compact lengths of 2^31 or more
/// are errors, as in the schema walk that runs before every decode.
fn get_len<B: ByteBuf>(
    buf: &mut B,
    flexible: bool,
    wide: bool,
    what: &str,
) -> Result<Option<usize>> {
    let len: i64 = if flexible {
        let v = get_uvarint(buf)?;
        if v > i32::MAX as u32 {
            bail!("{what} length varint {v} is out of range");
        }
        i64::from(v) - 1
    } else if wide {
        i64::from(get_i32(buf)?)
    } else {
        i64::from(get_i16(buf)?)
    };
    if len == -1 {
        return Ok(None);
    }
    if len < 0 {
        bail!("{what} has negative length {len}");
    }
    let len = len as usize;
    if len > buf.remaining() {
        bail!(
            "{what} declares {len} bytes but only {} remain",
            buf.remaining()
        );
    }
    Ok(Some(len))
}

pub fn get_nullable_string<B: ByteBuf>(buf: &mut B, flexible: bool) -> Result<Option<StrBytes>> {
    let Some(len) = get_len(buf, flexible, false, "string")? else {
        return Ok(None);
    };
    if len > MAX_STRING_LEN {
        bail!("string field had invalid length {len}");
    }
    let raw = buf.try_get_bytes(len)?;
    match StrBytes::from_utf8(raw) {
        Ok(s) => Ok(Some(s)),
        Err(e) => bail!("string is not valid UTF-8: {e}"),
    }
}

pub fn get_string<B: ByteBuf>(buf: &mut B, flexible: bool) -> Result<StrBytes> {
    match get_nullable_string(buf, flexible)? {
        Some(s) => Ok(s),
        None => bail!("non-nullable string field was serialized as null"),
    }
}

pub fn get_nullable_bytes<B: ByteBuf>(buf: &mut B, flexible: bool) -> Result<Option<Bytes>> {
    let Some(len) = get_len(buf, flexible, true, "bytes")? else {
        return Ok(None);
    };
    Ok(Some(buf.try_get_bytes(len)?))
}

pub fn get_bytes<B: ByteBuf>(buf: &mut B, flexible: bool) -> Result<Bytes> {
    match get_nullable_bytes(buf, flexible)? {
        Some(b) => Ok(b),
        None => bail!("non-nullable bytes field was serialized as null"),
    }
}

/// Reads an array. The element count is checked against the remaining bytes (every element
/// takes at least one byte) before any allocation.
pub fn get_nullable_array<B: ByteBuf, T>(
    buf: &mut B,
    flexible: bool,
    mut element: impl FnMut(&mut B) -> Result<T>,
) -> Result<Option<Vec<T>>> {
    let Some(count) = get_len(buf, flexible, true, "array")? else {
        return Ok(None);
    };
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(element(buf)?);
    }
    Ok(Some(out))
}

pub fn get_array<B: ByteBuf, T>(
    buf: &mut B,
    flexible: bool,
    element: impl FnMut(&mut B) -> Result<T>,
) -> Result<Vec<T>> {
    match get_nullable_array(buf, flexible, element)? {
        Some(v) => Ok(v),
        None => bail!("non-nullable array field was serialized as null"),
    }
}

/// Reads the null marker in front of a nullable struct that is not tagged (an int8, negative
/// for null). Returns true when a struct follows.
pub fn get_struct_present<B: ByteBuf>(buf: &mut B) -> Result<bool> {
    Ok(get_i8(buf)? >= 0)
}

/// Reads one tagged-field header and returns the tag and the field's bytes.
pub fn get_tagged_field<B: ByteBuf>(buf: &mut B) -> Result<(u32, Bytes)> {
    let tag = get_uvarint(buf)?;
    let size = get_uvarint(buf)? as usize;
    need(buf, size, "tagged field")?;
    Ok((tag, buf.get_bytes(size)))
}

/// Fails unless the tagged field's value used exactly the bytes its size announced.
pub fn expect_consumed(rest: &Bytes, tag: u32) -> Result<()> {
    if rest.has_remaining() {
        bail!(
            "tagged field {tag} has {} bytes after its value",
            rest.remaining()
        );
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Writers

pub fn put_bool<B: ByteBufMut>(buf: &mut B, v: bool) -> Result<()> {
    buf.put_u8(u8::from(v));
    Ok(())
}

pub fn put_i8<B: ByteBufMut>(buf: &mut B, v: i8) -> Result<()> {
    buf.put_i8(v);
    Ok(())
}

pub fn put_i16<B: ByteBufMut>(buf: &mut B, v: i16) -> Result<()> {
    buf.put_i16(v);
    Ok(())
}

pub fn put_u16<B: ByteBufMut>(buf: &mut B, v: u16) -> Result<()> {
    buf.put_u16(v);
    Ok(())
}

pub fn put_i32<B: ByteBufMut>(buf: &mut B, v: i32) -> Result<()> {
    buf.put_i32(v);
    Ok(())
}

pub fn put_u32<B: ByteBufMut>(buf: &mut B, v: u32) -> Result<()> {
    buf.put_u32(v);
    Ok(())
}

pub fn put_i64<B: ByteBufMut>(buf: &mut B, v: i64) -> Result<()> {
    buf.put_i64(v);
    Ok(())
}

pub fn put_f64<B: ByteBufMut>(buf: &mut B, v: f64) -> Result<()> {
    buf.put_f64(v);
    Ok(())
}

pub fn put_uuid<B: ByteBufMut>(buf: &mut B, v: &Uuid) -> Result<()> {
    buf.put_u128(v.as_u128());
    Ok(())
}

pub fn put_uvarint<B: ByteBufMut>(buf: &mut B, mut v: u32) -> Result<()> {
    while v >= 0x80 {
        buf.put_u8((v as u8) | 0x80);
        v >>= 7;
    }
    buf.put_u8(v as u8);
    Ok(())
}

/// Writes a length prefix (or the null marker when `len` is `None`).
fn put_len<B: ByteBufMut>(
    buf: &mut B,
    len: Option<usize>,
    flexible: bool,
    wide: bool,
) -> Result<()> {
    match (len, flexible) {
        (None, true) => put_uvarint(buf, 0),
        (None, false) if wide => put_i32(buf, -1),
        (None, false) => put_i16(buf, -1),
        (Some(n), true) => {
            let Ok(n) = u32::try_from(n + 1) else {
                bail!("length {n} is too large to encode");
            };
            put_uvarint(buf, n)
        }
        (Some(n), false) if wide => {
            let Ok(n) = i32::try_from(n) else {
                bail!("length {n} is too large to encode");
            };
            put_i32(buf, n)
        }
        (Some(n), false) => {
            let Ok(n) = i16::try_from(n) else {
                bail!("string of {n} bytes is too long to encode");
            };
            put_i16(buf, n)
        }
    }
}

pub fn put_nullable_string<B: ByteBufMut>(
    buf: &mut B,
    v: Option<&str>,
    flexible: bool,
) -> Result<()> {
    match v {
        None => put_len(buf, None, flexible, false),
        Some(s) => {
            if s.len() > MAX_STRING_LEN {
                bail!("string of {} bytes is too long to encode", s.len());
            }
            put_len(buf, Some(s.len()), flexible, false)?;
            buf.put_slice(s.as_bytes());
            Ok(())
        }
    }
}

pub fn put_string<B: ByteBufMut>(buf: &mut B, v: &str, flexible: bool) -> Result<()> {
    put_nullable_string(buf, Some(v), flexible)
}

pub fn put_nullable_bytes<B: ByteBufMut>(
    buf: &mut B,
    v: Option<&[u8]>,
    flexible: bool,
) -> Result<()> {
    match v {
        None => put_len(buf, None, flexible, true),
        Some(b) => {
            put_len(buf, Some(b.len()), flexible, true)?;
            buf.put_slice(b);
            Ok(())
        }
    }
}

pub fn put_bytes<B: ByteBufMut>(buf: &mut B, v: &[u8], flexible: bool) -> Result<()> {
    put_nullable_bytes(buf, Some(v), flexible)
}

pub fn put_nullable_array<B: ByteBufMut, T>(
    buf: &mut B,
    v: Option<&[T]>,
    flexible: bool,
    mut element: impl FnMut(&mut B, &T) -> Result<()>,
) -> Result<()> {
    match v {
        None => put_len(buf, None, flexible, true),
        Some(items) => {
            put_len(buf, Some(items.len()), flexible, true)?;
            for item in items {
                element(buf, item)?;
            }
            Ok(())
        }
    }
}

pub fn put_array<B: ByteBufMut, T>(
    buf: &mut B,
    v: &[T],
    flexible: bool,
    element: impl FnMut(&mut B, &T) -> Result<()>,
) -> Result<()> {
    put_nullable_array(buf, Some(v), flexible, element)
}

/// Fails when a non-nullable field holds null at the requested version.
pub fn non_null<'a, T>(v: &'a Option<T>, field: &str) -> Result<&'a T> {
    match v {
        Some(v) => Ok(v),
        None => bail!("non-nullable field {field} was serialized as null"),
    }
}

/// Collects the tagged fields of one struct so they can be written in ascending tag order
/// together with the unknown tags preserved from decoding.
#[derive(Default)]
pub struct TaggedWriter {
    fields: BTreeMap<u32, Bytes>,
}

impl TaggedWriter {
    pub fn new() -> Self {
        Self::default()
    }

    /// Encodes one known tagged field with `write`.
    pub fn field(
        &mut self,
        tag: u32,
        write: impl FnOnce(&mut BytesMut) -> Result<()>,
    ) -> Result<()> {
        let mut value = BytesMut::new();
        write(&mut value)?;
        self.fields.insert(tag, value.freeze());
        Ok(())
    }

    /// Adds the unknown tagged fields kept from decoding (known tags win on a clash).
    pub fn unknown(&mut self, unknown: &BTreeMap<i32, Bytes>) {
        for (&tag, value) in unknown {
            self.fields
                .entry(tag as u32)
                .or_insert_with(|| value.clone());
        }
    }

    pub fn write<B: ByteBufMut>(self, buf: &mut B) -> Result<()> {
        let Ok(count) = u32::try_from(self.fields.len()) else {
            bail!("too many tagged fields");
        };
        put_uvarint(buf, count)?;
        for (tag, value) in self.fields {
            let Ok(len) = u32::try_from(value.len()) else {
                bail!("tagged field {tag} is too large");
            };
            put_uvarint(buf, tag)?;
            put_uvarint(buf, len)?;
            buf.put_slice(&value);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uvarint_matches_kafka_examples() {
        let mut b = BytesMut::new();
        put_uvarint(&mut b, 300).unwrap();
        assert_eq!(&b[..], &[0xac, 0x02]);
        let mut r = b.freeze();
        assert_eq!(get_uvarint(&mut r).unwrap(), 300);
        let mut too_long = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert!(get_uvarint(&mut too_long).is_err());
        // Like Java, high bits in the fifth byte are dropped.
        let mut wide = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0x7f]);
        assert_eq!(get_uvarint(&mut wide).unwrap(), u32::MAX);
        let mut max = BytesMut::new();
        put_uvarint(&mut max, u32::MAX).unwrap();
        assert_eq!(get_uvarint(&mut max.freeze()).unwrap(), u32::MAX);
    }

    #[test]
    fn huge_declared_lengths_fail_without_allocating() {
        // int32 array count 2^31-1 with nothing behind it.
        let mut b = Bytes::from_static(&[0x7f, 0xff, 0xff, 0xff]);
        let err = get_array(&mut b, false, get_i32).unwrap_err();
        assert!(err.to_string().contains("declares 2147483647"), "{err}");
        // compact string claiming 2^32-2 bytes.
        let mut b = Bytes::from_static(&[0xff, 0xff, 0xff, 0xff, 0x0f]);
        assert!(get_string(&mut b, true).is_err());
        // non-flexible lengths below -1 are errors, -1 is null.
        let mut b = Bytes::from_static(&[0xff, 0xfe]);
        assert!(get_nullable_string(&mut b, false).is_err());
    }

    #[test]
    fn strings_reject_null_and_bad_utf8() {
        let mut null = Bytes::from_static(&[0xff, 0xff]);
        assert!(get_string(&mut null, false).is_err());
        let mut null = Bytes::from_static(&[0xff, 0xff]);
        assert_eq!(get_nullable_string(&mut null, false).unwrap(), None);
        let mut bad = Bytes::from_static(&[0x00, 0x02, 0xc3, 0x28]);
        assert!(get_string(&mut bad, false).is_err());
    }
}

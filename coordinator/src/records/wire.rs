//! Primitive readers and writers of Kafka's message encoding, for the record codec
//! ([`super::codec`]) and the internal metadata codec. Readers check every length against the
//! bytes that are left before allocating, so a corrupt or hostile buffer gives an error, never a
//! panic or a huge allocation.

use uuid::Uuid;

/// Why bytes could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} at byte {offset}: {reason}")]
pub struct CodecError {
    pub what: String,
    pub offset: usize,
    pub reason: String,
}

/// Appends Kafka primitives to a byte vector.
#[derive(Debug, Default)]
pub struct Writer {
    pub buf: Vec<u8>,
}

impl Writer {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn into_inner(self) -> Vec<u8> {
        self.buf
    }

    pub fn i8(&mut self, v: i8) {
        self.buf.push(v as u8);
    }

    pub fn bool(&mut self, v: bool) {
        self.buf.push(u8::from(v));
    }

    pub fn i16(&mut self, v: i16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn u16(&mut self, v: u16) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn i32(&mut self, v: i32) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn i64(&mut self, v: i64) {
        self.buf.extend_from_slice(&v.to_be_bytes());
    }

    pub fn uuid(&mut self, v: &Uuid) {
        self.buf.extend_from_slice(v.as_bytes());
    }

    pub fn uvarint(&mut self, mut v: u32) {
        while v >= 0x80 {
            self.buf.push((v as u8) | 0x80);
            v >>= 7;
        }
        self.buf.push(v as u8);
    }

    /// Non-flexible string: int16 length then UTF-8.
    pub fn string(&mut self, s: &str) {
        self.i16(s.len() as i16);
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Non-flexible nullable string: length -1 for null.
    pub fn nullable_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None => self.i16(-1),
        }
    }

    /// Non-flexible bytes: int32 length then the bytes.
    pub fn bytes(&mut self, b: &[u8]) {
        self.i32(b.len() as i32);
        self.buf.extend_from_slice(b);
    }

    /// Non-flexible array length.
    pub fn array_len(&mut self, n: usize) {
        self.i32(n as i32);
    }

    /// Compact string: uvarint(length + 1) then UTF-8.
    pub fn compact_string(&mut self, s: &str) {
        self.uvarint(s.len() as u32 + 1);
        self.buf.extend_from_slice(s.as_bytes());
    }

    /// Compact nullable string: 0 for null.
    pub fn compact_nullable_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.compact_string(s),
            None => self.uvarint(0),
        }
    }

    /// Compact bytes: uvarint(length + 1) then the bytes.
    pub fn compact_bytes(&mut self, b: &[u8]) {
        self.uvarint(b.len() as u32 + 1);
        self.buf.extend_from_slice(b);
    }

    /// Compact array length (uvarint count + 1); `None` writes a null array.
    pub fn compact_array_len(&mut self, n: Option<usize>) {
        match n {
            Some(n) => self.uvarint(n as u32 + 1),
            None => self.uvarint(0),
        }
    }

    /// A tagged-field section: (tag, encoded value) pairs, which must be in ascending tag order.
    pub fn tagged_fields(&mut self, fields: &[(u32, Vec<u8>)]) {
        self.uvarint(fields.len() as u32);
        for (tag, value) in fields {
            self.uvarint(*tag);
            self.uvarint(value.len() as u32);
            self.buf.extend_from_slice(value);
        }
    }

    /// An empty tagged-field section.
    pub fn no_tagged_fields(&mut self) {
        self.uvarint(0);
    }
}

/// Reads Kafka primitives from a byte slice, naming what failed and where.
#[derive(Debug)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    what: &'static str,
}

impl<'a> Reader<'a> {
    /// A reader over `data`; `what` names the structure in error messages.
    pub fn new(data: &'a [u8], what: &'static str) -> Self {
        Self { data, pos: 0, what }
    }

    pub fn position(&self) -> usize {
        self.pos
    }

    pub fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub fn is_empty(&self) -> bool {
        self.remaining() == 0
    }

    pub fn error(&self, reason: impl Into<String>) -> CodecError {
        CodecError {
            what: self.what.to_string(),
            offset: self.pos,
            reason: reason.into(),
        }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8], CodecError> {
        if self.remaining() < n {
            return Err(self.error(format!("need {n} bytes, {} left", self.remaining())));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], CodecError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    pub fn i8(&mut self) -> Result<i8, CodecError> {
        Ok(self.take(1)?[0] as i8)
    }

    /// Kafka reads any non-zero byte as true.
    pub fn bool(&mut self) -> Result<bool, CodecError> {
        Ok(self.take(1)?[0] != 0)
    }

    pub fn i16(&mut self) -> Result<i16, CodecError> {
        Ok(i16::from_be_bytes(self.array()?))
    }

    pub fn u16(&mut self) -> Result<u16, CodecError> {
        Ok(u16::from_be_bytes(self.array()?))
    }

    pub fn i32(&mut self) -> Result<i32, CodecError> {
        Ok(i32::from_be_bytes(self.array()?))
    }

    pub fn i64(&mut self) -> Result<i64, CodecError> {
        Ok(i64::from_be_bytes(self.array()?))
    }

    pub fn uuid(&mut self) -> Result<Uuid, CodecError> {
        Ok(Uuid::from_bytes(self.array()?))
    }

    pub fn uvarint(&mut self) -> Result<u32, CodecError> {
        let mut value: u32 = 0;
        for i in 0..5 {
            let b = self.take(1)?[0];
            value |= u32::from(b & 0x7f) << (7 * i);
            if b & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.error("unsigned varint longer than 5 bytes"))
    }

    fn utf8(&mut self, len: usize) -> Result<String, CodecError> {
        let bytes = self.take(len)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| self.error("string is not valid UTF-8"))
    }

    pub fn string(&mut self) -> Result<String, CodecError> {
        self.nullable_string()?
            .ok_or_else(|| self.error("null where a string is required"))
    }

    pub fn nullable_string(&mut self) -> Result<Option<String>, CodecError> {
        let len = self.i16()?;
        if len < 0 {
            return Ok(None);
        }
        self.utf8(len as usize).map(Some)
    }

    pub fn bytes(&mut self) -> Result<Vec<u8>, CodecError> {
        let len = self.i32()?;
        if len < 0 {
            return Err(self.error("null where bytes are required"));
        }
        Ok(self.take(len as usize)?.to_vec())
    }

    /// Non-flexible array length; the count is checked against the bytes left, assuming each
    /// element takes at least `min_element_size` bytes.
    pub fn array_len(&mut self, min_element_size: usize) -> Result<usize, CodecError> {
        let n = self.i32()?;
        if n < 0 {
            return Err(self.error("null where an array is required"));
        }
        self.check_count(n as usize, min_element_size)
    }

    fn check_count(&self, n: usize, min_element_size: usize) -> Result<usize, CodecError> {
        if n.saturating_mul(min_element_size.max(1)) > self.remaining() {
            return Err(self.error(format!(
                "array of {n} elements cannot fit in {} bytes",
                self.remaining()
            )));
        }
        Ok(n)
    }

    pub fn compact_string(&mut self) -> Result<String, CodecError> {
        self.compact_nullable_string()?
            .ok_or_else(|| self.error("null where a string is required"))
    }

    pub fn compact_nullable_string(&mut self) -> Result<Option<String>, CodecError> {
        let n = self.uvarint()?;
        if n == 0 {
            return Ok(None);
        }
        self.utf8(n as usize - 1).map(Some)
    }

    pub fn compact_bytes(&mut self) -> Result<Vec<u8>, CodecError> {
        let n = self.uvarint()?;
        if n == 0 {
            return Err(self.error("null where bytes are required"));
        }
        Ok(self.take(n as usize - 1)?.to_vec())
    }

    /// Compact array length; `None` for a null array.
    pub fn compact_array_len(
        &mut self,
        min_element_size: usize,
    ) -> Result<Option<usize>, CodecError> {
        let n = self.uvarint()?;
        if n == 0 {
            return Ok(None);
        }
        self.check_count(n as usize - 1, min_element_size).map(Some)
    }

    /// A compact array that must not be null.
    pub fn compact_array_len_required(
        &mut self,
        min_element_size: usize,
    ) -> Result<usize, CodecError> {
        self.compact_array_len(min_element_size)?
            .ok_or_else(|| self.error("null where an array is required"))
    }

    /// Reads a tagged-field section, calling `known(tag, reader)` for each field; the closure
    /// returns `false` for tags it does not know, which are skipped. A known field must consume
    /// exactly its declared size.
    pub fn tagged_fields(
        &mut self,
        mut known: impl FnMut(u32, &mut Reader<'a>) -> Result<bool, CodecError>,
    ) -> Result<(), CodecError> {
        let count = self.uvarint()?;
        let mut last: Option<u32> = None;
        for _ in 0..count {
            let tag = self.uvarint()?;
            if last.is_some_and(|l| tag <= l) {
                return Err(self.error(format!("tag {tag} is not in ascending order")));
            }
            last = Some(tag);
            let size = self.uvarint()? as usize;
            let body = self.take(size)?;
            let mut field = Reader {
                data: body,
                pos: 0,
                what: self.what,
            };
            if known(tag, &mut field)? && !field.is_empty() {
                return Err(self.error(format!(
                    "tagged field {tag} declares {size} bytes but its value used {}",
                    field.pos
                )));
            }
        }
        Ok(())
    }

    /// Fails unless every byte was consumed.
    pub fn finish(&self) -> Result<(), CodecError> {
        if self.is_empty() {
            Ok(())
        } else {
            Err(self.error(format!("{} unexpected trailing bytes", self.remaining())))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uvarint_round_trips_and_matches_kafka_bytes() {
        let mut w = Writer::new();
        w.uvarint(300);
        assert_eq!(w.buf, vec![0xac, 0x02]);
        let mut r = Reader::new(&w.buf, "test");
        assert_eq!(r.uvarint().unwrap(), 300);
        let too_long = [0xffu8, 0xff, 0xff, 0xff, 0xff, 0x01];
        assert!(Reader::new(&too_long, "test").uvarint().is_err());
    }

    #[test]
    fn lengths_past_the_end_are_errors_not_allocations() {
        let huge_array = [0x7fu8, 0xff, 0xff, 0xff];
        let err = Reader::new(&huge_array, "x").array_len(4).unwrap_err();
        assert!(err.reason.contains("cannot fit"), "{err}");
        let short_string = [0x00u8, 0x05, b'a'];
        assert!(Reader::new(&short_string, "x").string().is_err());
        let bad_utf8 = [0x00u8, 0x01, 0xff];
        assert!(Reader::new(&bad_utf8, "x").string().is_err());
    }
}

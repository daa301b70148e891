//! Record batches (magic v2) inside `records` fields: the empty batch samples use, and a
//! best-effort parser for display. Kafka does not look inside records while parsing a request,
//! so neither does validation: a records field is valid whenever its length fits.

use super::walk::{Node, Region};

/// Size of a v2 record batch header (and of a batch without records).
pub const BATCH_HEADER_LEN: usize = 61;

/// CRC-32C (Castagnoli), as used by record batch v2.
pub(crate) fn crc32c(data: &[u8]) -> u32 {
    crc32c::crc32c(data)
}

/// One v2 record batch with no records: base offset 0, every other number zero except the
/// batch length (49), the magic (2) and a correct CRC. This is what samples put in every
/// records field.
pub fn empty_record_batch() -> Vec<u8> {
    let mut b = Vec::with_capacity(BATCH_HEADER_LEN);
    b.extend_from_slice(&0i64.to_be_bytes()); // base offset
    b.extend_from_slice(&((BATCH_HEADER_LEN - 12) as i32).to_be_bytes()); // batch length
    b.extend_from_slice(&0i32.to_be_bytes()); // partition leader epoch
    b.push(2); // magic
    b.extend_from_slice(&0u32.to_be_bytes()); // crc, patched below
    b.extend_from_slice(&0i16.to_be_bytes()); // attributes
    b.extend_from_slice(&0i32.to_be_bytes()); // last offset delta
    b.extend_from_slice(&0i64.to_be_bytes()); // base timestamp
    b.extend_from_slice(&0i64.to_be_bytes()); // max timestamp
    b.extend_from_slice(&0i64.to_be_bytes()); // producer id
    b.extend_from_slice(&0i16.to_be_bytes()); // producer epoch
    b.extend_from_slice(&0i32.to_be_bytes()); // base sequence
    b.extend_from_slice(&0i32.to_be_bytes()); // record count
    let crc = crc32c(&b[21..]);
    b[17..21].copy_from_slice(&crc.to_be_bytes());
    b
}

fn leaf(label: &str, ty: &str, value: String, offset: usize, size: usize, desc: &str) -> Node {
    Node {
        label: label.into(),
        type_name: ty.into(),
        value: Some(value),
        offset,
        size,
        description: desc.into(),
        region: Region::RecordBatch,
        children: Vec::new(),
    }
}

fn be(data: &[u8], at: usize, n: usize) -> i64 {
    let mut v: i64 = 0;
    for &b in &data[at..at + n] {
        v = (v << 8) | i64::from(b);
    }
    // sign-extend
    let shift = 64 - 8 * n as u32;
    (v << shift) >> shift
}

/// Parses the batches in `data` (which starts at frame offset `base`) for display. Returns
/// `None` when the bytes are not a sequence of well-formed v2 batch headers; the caller then
/// shows them as plain bytes.
pub(crate) fn parse_batches(data: &[u8], base: usize) -> Option<Vec<Node>> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        if data.len() - pos < BATCH_HEADER_LEN {
            return None;
        }
        let len = be(data, pos + 8, 4);
        if len < (BATCH_HEADER_LEN - 12) as i64 || (len as usize) > data.len() - pos - 12 {
            return None;
        }
        let total = 12 + len as usize;
        let b = &data[pos..pos + total];
        if b[16] != 2 {
            return None;
        }
        let at = base + pos;
        let crc = be(b, 17, 4) as u32;
        let actual = crc32c(&b[21..]);
        let crc_note = if crc == actual {
            format!("{crc:#010x} (ok)")
        } else {
            format!("{crc:#010x} (expected {actual:#010x})")
        };
        let count = be(b, 57, 4);
        let mut children = vec![
            leaf(
                "baseOffset",
                "int64",
                be(b, 0, 8).to_string(),
                at,
                8,
                "offset of the first record",
            ),
            leaf(
                "batchLength",
                "int32",
                len.to_string(),
                at + 8,
                4,
                "bytes after this field",
            ),
            leaf(
                "partitionLeaderEpoch",
                "int32",
                be(b, 12, 4).to_string(),
                at + 12,
                4,
                "leader epoch set by the broker",
            ),
            leaf(
                "magic",
                "int8",
                b[16].to_string(),
                at + 16,
                1,
                "record format version",
            ),
            leaf(
                "crc",
                "uint32",
                crc_note,
                at + 17,
                4,
                "CRC-32C of everything after this field",
            ),
            leaf(
                "attributes",
                "int16",
                be(b, 21, 2).to_string(),
                at + 21,
                2,
                "compression, timestamp type, transactional, control",
            ),
            leaf(
                "lastOffsetDelta",
                "int32",
                be(b, 23, 4).to_string(),
                at + 23,
                4,
                "offset delta of the last record",
            ),
            leaf(
                "baseTimestamp",
                "int64",
                be(b, 27, 8).to_string(),
                at + 27,
                8,
                "timestamp of the first record",
            ),
            leaf(
                "maxTimestamp",
                "int64",
                be(b, 35, 8).to_string(),
                at + 35,
                8,
                "largest timestamp in the batch",
            ),
            leaf(
                "producerId",
                "int64",
                be(b, 43, 8).to_string(),
                at + 43,
                8,
                "idempotent/transactional producer id",
            ),
            leaf(
                "producerEpoch",
                "int16",
                be(b, 51, 2).to_string(),
                at + 51,
                2,
                "producer epoch",
            ),
            leaf(
                "baseSequence",
                "int32",
                be(b, 53, 4).to_string(),
                at + 53,
                4,
                "sequence number of the first record",
            ),
            leaf(
                "recordCount",
                "int32",
                count.to_string(),
                at + 57,
                4,
                "records in the batch",
            ),
        ];
        if total > BATCH_HEADER_LEN {
            children.push(Node {
                label: "records".into(),
                type_name: "bytes".into(),
                value: Some(format!("{} bytes", total - BATCH_HEADER_LEN)),
                offset: at + BATCH_HEADER_LEN,
                size: total - BATCH_HEADER_LEN,
                description: "the records (possibly compressed), not expanded".into(),
                region: Region::RecordBatch,
                children: Vec::new(),
            });
        }
        out.push(Node {
            label: format!("RecordBatch[{}]", out.len()),
            type_name: "record_batch".into(),
            value: None,
            offset: at,
            size: total,
            description: "record batch, magic v2".into(),
            region: Region::RecordBatch,
            children,
        });
        pos += total;
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_matches_the_standard_check_value() {
        assert_eq!(crc32c(b"123456789"), 0xe306_9283);
    }

    #[test]
    fn empty_batch_is_61_bytes_and_parses() {
        let b = empty_record_batch();
        assert_eq!(b.len(), 61);
        let nodes = parse_batches(&b, 100).unwrap();
        assert_eq!(nodes.len(), 1);
        assert_eq!(nodes[0].offset, 100);
        assert_eq!(nodes[0].size, 61);
        assert!(
            nodes[0].children[4]
                .value
                .as_deref()
                .unwrap()
                .ends_with("(ok)")
        );
        assert!(parse_batches(&b[..60], 0).is_none());
    }
}

//! A bounded, direct-mapped memo of message bodies: each slot holds one body with a key and a
//! value; a lookup compares the body in full, so a hash collision only costs the work the memo
//! saves. Used per thread by schema validation and by response decoding, whose results are
//! functions of the bytes (and their key) alone.

pub(crate) struct BodyMemo<K, V> {
    slots: Vec<Option<Slot<K, V>>>,
    /// The body bytes all slots hold together.
    total: usize,
    /// The most `total` may reach; a body that would pass it is not remembered.
    max_total: usize,
}

struct Slot<K, V> {
    key: K,
    /// A copy of the bytes, not a view that would keep a whole frame's buffer alive.
    body: Box<[u8]>,
    value: V,
}

/// The hash a body is looked up by.
pub(crate) fn body_hash(body: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(body)
}

impl<K: PartialEq, V: Clone> BodyMemo<K, V> {
    pub(crate) fn new(slots: usize, max_total: usize) -> Self {
        Self {
            slots: (0..slots).map(|_| None).collect(),
            total: 0,
            max_total,
        }
    }

    /// The value remembered for `key` and exactly `body` in slot `index` (modulo the slots).
    pub(crate) fn get(&self, index: u64, key: &K, body: &[u8]) -> Option<V> {
        match &self.slots[index as usize % self.slots.len()] {
            Some(s) if s.key == *key && *s.body == *body => Some(s.value.clone()),
            _ => None,
        }
    }

    /// Remembers `value` for `key` and `body` in slot `index`, replacing what the slot held,
    /// unless the bodies would pass the memo's bound.
    pub(crate) fn put(&mut self, index: u64, key: K, body: &[u8], value: V) {
        let slot = index as usize % self.slots.len();
        let old = self.slots[slot].as_ref().map_or(0, |s| s.body.len());
        if self.total - old + body.len() > self.max_total {
            return;
        }
        self.total = self.total - old + body.len();
        self.slots[slot] = Some(Slot {
            key,
            body: body.into(),
            value,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hit_needs_the_same_key_and_bytes_and_the_bound_holds() {
        let mut m: BodyMemo<u8, usize> = BodyMemo::new(2, 6);
        m.put(0, 1, b"abcd", 4);
        assert_eq!(m.get(0, &1, b"abcd"), Some(4));
        assert_eq!(
            m.get(2, &1, b"abcd"),
            Some(4),
            "the index is taken modulo the slots"
        );
        assert_eq!(m.get(0, &2, b"abcd"), None);
        assert_eq!(m.get(0, &1, b"abce"), None);
        // 4 + 3 bytes would pass the bound of 6: not remembered; replacing slot 0 is.
        m.put(1, 1, b"xyz", 3);
        assert_eq!(m.get(1, &1, b"xyz"), None);
        m.put(0, 1, b"xyz", 3);
        assert_eq!(m.get(0, &1, b"xyz"), Some(3));
        assert_eq!(m.get(0, &1, b"abcd"), None);
    }
}

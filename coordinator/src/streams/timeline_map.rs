//! A map keyed by strings that iterates in the order of Kafka's `TimelineHashMap`.
//!
//! Kafka keeps a streams group's members in a `org.apache.kafka.timeline.TimelineHashMap`, whose
//! iteration order decides observable outputs: the order of members in StreamsGroupDescribe, of the
//! PartitionsByUserEndpoint list, of the group-deletion tombstones, and the order in which members are
//! handed to the assignor. That map is not `java.util.HashMap`: it is `BaseHashTable`, a separately
//! chained table with
//! * a power-of-two number of slots (at least 2; `new TimelineHashMap<>(registry, 0)` starts with 2),
//! * the slot of a key chosen by Fibonacci hashing of `key.hashCode()` (the top bits of
//!   `hashCode * 0x9E3779B97F4A7C15`),
//! * growth to twice the slots whenever `(size + 1) * 0.75 > slots` at the start of *any* put,
//!   including one that only replaces a value, re-inserting every slot's entries in slot order,
//! * a new key appended at the end of its slot, a replaced key kept in place, a removed key taken out
//!   without reordering the others,
//! * iteration slot by slot, each slot's entries from last to first (its iterator pops from the end).
//!
//! [`TimelineMap`] reproduces exactly these rules for `String` keys (`String.hashCode` from the
//! assignor's Java emulation) and for `Integer`/`Long` keys (the committed offsets by partition and the
//! pending transactional offsets by producer id), so that two shards that replay the same records
//! iterate identically and identically to Kafka. It is also an ordinary map: lookups hash the key once
//! and scan one slot.

use std::borrow::Borrow;

use crate::java::JavaHash;

const MIN_CAPACITY: usize = 2;
const MAX_CAPACITY: usize = 1 << 30;

/// `BaseHashTable.findSlot` for a table of `slots` slots (a power of two).
fn find_slot(hash: i32, slots: usize) -> usize {
    let log2size = 32 - (slots as u32).leading_zeros();
    let shift = 65 - log2size;
    let product = (i64::from(hash) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    (product >> shift) as usize
}

/// A map with Kafka `TimelineHashMap` iteration order (string keys unless `K` says otherwise).
#[derive(Clone, PartialEq, Eq)]
pub struct TimelineMap<V, K = String> {
    slots: Vec<Vec<(K, V)>>,
    len: usize,
}

impl<V: std::fmt::Debug, K: std::fmt::Debug> std::fmt::Debug for TimelineMap<V, K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V, K> Default for TimelineMap<V, K> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V, K> TimelineMap<V, K> {
    /// `new TimelineHashMap<>(registry, 0)`: two slots.
    pub fn new() -> Self {
        Self {
            slots: (0..MIN_CAPACITY).map(|_| Vec::new()).collect(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The current number of slots (part of the state two replays must agree on).
    pub fn slot_count(&self) -> usize {
        self.slots.len()
    }

    /// Entries in Kafka's iteration order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.slots
            .iter()
            .flat_map(|bucket| bucket.iter().rev().map(|(k, v)| (k, v)))
    }

    pub fn keys(&self) -> impl Iterator<Item = &K> {
        self.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut V> {
        self.slots
            .iter_mut()
            .flat_map(|bucket| bucket.iter_mut().rev().map(|(_, v)| v))
    }
}

impl<V, K: JavaHash + Eq> TimelineMap<V, K> {
    fn slot_of<Q: JavaHash + ?Sized>(&self, key: &Q) -> usize {
        find_slot(key.java_hash(), self.slots.len())
    }

    pub fn get<Q>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: JavaHash + Eq + ?Sized,
    {
        self.slots[self.slot_of(key)]
            .iter()
            .find(|(k, _)| k.borrow() == key)
            .map(|(_, v)| v)
    }

    pub fn get_mut<Q>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
        Q: JavaHash + Eq + ?Sized,
    {
        let slot = self.slot_of(key);
        self.slots[slot]
            .iter_mut()
            .find(|(k, _)| k.borrow() == key)
            .map(|(_, v)| v)
    }

    pub fn contains_key<Q>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
        Q: JavaHash + Eq + ?Sized,
    {
        self.get(key).is_some()
    }

    /// `put`: grows first if the table would be too full, then replaces in place or appends.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        self.grow_for_put();
        let slot = self.slot_of(&key);
        let bucket = &mut self.slots[slot];
        if let Some(entry) = bucket.iter_mut().find(|(k, _)| *k == key) {
            return Some(std::mem::replace(&mut entry.1, value));
        }
        bucket.push((key, value));
        self.len += 1;
        None
    }

    /// `computeIfAbsent` (`Map`'s default: a `get`, then a `put` only when the key is absent).
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let slot = match self.slots[self.slot_of(&key)]
            .iter()
            .position(|(k, _)| *k == key)
        {
            Some(index) => (self.slot_of(&key), index),
            None => {
                self.grow_for_put();
                let slot = self.slot_of(&key);
                self.slots[slot].push((key, make()));
                self.len += 1;
                (slot, self.slots[slot].len() - 1)
            }
        };
        &mut self.slots[slot.0][slot.1].1
    }

    pub fn remove<Q>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
        Q: JavaHash + Eq + ?Sized,
    {
        let slot = self.slot_of(key);
        let bucket = &mut self.slots[slot];
        let index = bucket.iter().position(|(k, _)| k.borrow() == key)?;
        self.len -= 1;
        Some(bucket.remove(index).1)
    }

    /// `BaseHashTable.baseAddOrReplace` doubles the table before any put that would take it past
    /// the load factor, even one that only replaces a value.
    fn grow_for_put(&mut self) {
        if ((self.len + 1) as f64) * 0.75 > self.slots.len() as f64
            && self.slots.len() < MAX_CAPACITY
        {
            self.rehash(self.slots.len() * 2);
        }
    }

    fn rehash(&mut self, new_size: usize) {
        let old = std::mem::replace(&mut self.slots, (0..new_size).map(|_| Vec::new()).collect());
        for bucket in old {
            for (key, value) in bucket {
                let slot = find_slot(key.java_hash(), new_size);
                self.slots[slot].push((key, value));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::java::string_hash;

    #[test]
    fn slot_function_matches_kafka() {
        // BaseHashTable.findSlot: with 2 slots the top bit of hash * golden ratio decides.
        // "a".hashCode() = 97; 97 * 0x9E3779B97F4A7C15 mod 2^64 has its top bit set.
        let product = 97u64.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        assert_eq!(find_slot(97, 2), (product >> 63) as usize);
        assert_eq!(find_slot(97, 4), (product >> 62) as usize);
        // Negative hash codes are sign-extended before multiplying.
        let neg = (-5i64 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        assert_eq!(find_slot(-5, 8), (neg >> 61) as usize);
    }

    #[test]
    fn grows_on_any_put_and_keeps_replaced_keys_in_place() {
        let mut m = TimelineMap::new();
        m.insert("a".to_string(), 1);
        assert_eq!(m.slot_count(), 2);
        m.insert("b".to_string(), 2);
        assert_eq!(m.slot_count(), 2);
        // (2 + 1) * 0.75 > 2: even a replacement grows the table.
        m.insert("a".to_string(), 3);
        assert_eq!(m.slot_count(), 4);
        assert_eq!(m.get("a"), Some(&3));
        assert_eq!(m.len(), 2);
        assert_eq!(m.remove("a"), Some(3));
        assert_eq!(m.remove("a"), None);
        assert_eq!(m.len(), 1);
    }

    #[test]
    fn iteration_order_matches_kafkas_timeline_hash_map() {
        // The same puts and removes on Kafka 4.4.0's TimelineHashMap (kafka-server-common jar, with
        // snapshots taken every ten steps) iterate in this order.
        let mut m = TimelineMap::new();
        for i in 0..40 {
            m.insert(format!("member-{i}"), i);
            if i % 7 == 3 {
                m.remove(&format!("member-{}", i / 2));
            }
            if i % 5 == 4 {
                m.insert(format!("member-{}", i - 2), 100 + i);
            }
        }
        let order: Vec<&str> = m.keys().map(String::as_str).collect();
        let expected = "member-34,member-21,member-13,member-39,member-26,member-3,member-31,member-18,\
            member-23,member-10,member-36,member-0,member-28,member-20,member-33,member-38,member-25,\
            member-2,member-30,member-17,member-7,member-35,member-22,member-14,member-27,member-4,\
            member-32,member-24,member-11,member-9,member-37,member-29,member-16,member-6";
        let expected: Vec<&str> = expected.split(',').map(str::trim).collect();
        assert_eq!(order, expected);
    }

    #[test]
    fn integer_and_topic_keys_iterate_like_kafka() {
        // Printed by Kafka 4.4.0's TimelineHashMap (kafka-server-common) for the same operations.
        let mut m: TimelineMap<&str, i32> = TimelineMap::new();
        for i in 0..12 {
            m.insert(i * 7 % 13, "v");
            if i == 5 {
                m.remove(&3);
            }
        }
        let order: Vec<i32> = m.keys().copied().collect();
        assert_eq!(order, [0, 5, 10, 2, 7, 12, 4, 9, 1, 11, 3, 8]);
        let mut t: TimelineMap<&str> = TimelineMap::new();
        for k in ["t0", "t1", "t2", "t3", "foo", "bar", "app-store0-changelog"] {
            t.insert(k.to_string(), "v");
        }
        let order: Vec<&str> = t.keys().map(String::as_str).collect();
        assert_eq!(
            order,
            ["bar", "t0", "app-store0-changelog", "foo", "t2", "t1", "t3"]
        );
    }

    #[test]
    fn integer_and_long_keys_iterate_as_kafkas_timeline_hash_map() {
        // The same puts and removes on Kafka 4.4.0's TimelineHashMap<Integer, _> and
        // TimelineHashMap<Long, _> (kafka-server-common jar, snapshots every ten steps) iterate in
        // these orders.
        let mut ints: TimelineMap<i32, i32> = TimelineMap::new();
        let mut longs: TimelineMap<i32, i64> = TimelineMap::new();
        for i in 0..40i32 {
            ints.insert(i * 7 % 23, i);
            longs.insert(i64::from(i) * 0x1_0000_0001 - 5, i);
            if i % 6 == 5 {
                ints.remove(&(i / 2));
                longs.remove(&(i64::from(i / 3) * 0x1_0000_0001 - 5));
            }
            if i % 4 == 3 {
                ints.insert(i - 1, 100 + i);
            }
        }
        let ints: Vec<i32> = ints.keys().copied().collect();
        assert_eq!(
            ints,
            [
                34, 0, 13, 26, 5, 18, 10, 2, 15, 7, 20, 12, 38, 4, 30, 9, 22, 1, 6, 19, 3, 16, 8,
                21
            ]
        );
        let longs: Vec<i64> = longs.keys().copied().collect();
        assert_eq!(
            longs,
            [
                115964117014,
                107374182420,
                167503724578,
                158913789984,
                133143986202,
                124554051608,
                98784247826,
                90194313232,
                64424509450,
                55834574856,
                77309411341,
                111669149717,
                42949672965,
                163208757281,
                128849018905,
                94489280529,
                60129542153,
                25769803777,
                154618822687,
                137438953499,
                -5,
                17179869183,
                8589934589,
                85899345935,
                68719476747,
                150323855390,
                141733920796,
                120259084311,
                103079215123,
                51539607559,
                34359738371,
                146028888093,
                81604378638,
                73014444044
            ]
        );
    }

    #[test]
    fn get_or_insert_with_puts_only_absent_keys() {
        let mut m: TimelineMap<i32> = TimelineMap::new();
        *m.get_or_insert_with("a".to_string(), || 1) += 10;
        m.insert("b".to_string(), 2);
        // Present: no put, so no growth (a `put` of a third key's worth would double the table).
        assert_eq!(*m.get_or_insert_with("a".to_string(), || 5), 11);
        assert_eq!(m.slot_count(), 2);
        assert_eq!(*m.get_or_insert_with("c".to_string(), || 3), 3);
        assert_eq!(m.slot_count(), 4);
        assert_eq!(m.len(), 3);
    }

    #[test]
    fn iterates_slots_in_order_and_each_slot_backwards() {
        let mut m = TimelineMap::new();
        for i in 0..50 {
            m.insert(format!("member-{i}"), i);
        }
        let order: Vec<i32> = m.values().copied().collect();
        assert_eq!(order.len(), 50);
        // Reconstruct the expected order independently from the slot function.
        let slots = m.slot_count();
        let mut expected: Vec<(usize, usize, i32)> = Vec::new();
        let mut per_slot: Vec<Vec<i32>> = vec![Vec::new(); slots];
        // Entries inserted in order end up in insertion order inside a slot (rehash preserves it).
        for i in 0..50 {
            per_slot[find_slot(string_hash(&format!("member-{i}")), slots)].push(i);
        }
        for (s, bucket) in per_slot.iter().enumerate() {
            for (pos, v) in bucket.iter().enumerate().rev() {
                expected.push((s, pos, *v));
            }
        }
        assert_eq!(order, expected.iter().map(|e| e.2).collect::<Vec<_>>());
    }
}

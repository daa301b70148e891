//! Where a `java.util.HashMap` keeps its keys, and the iteration orders Kafka's answers come in.

use std::cmp::Ordering;

use super::string::{compare_strings, string_hash};

/// `HashMap.hash(key)`: the key's hash code with its high half folded into the low half.
fn spread(h: i32) -> i32 {
    h ^ ((h as u32) >> 16) as i32
}

/// Bucket of a key with the given `String.hashCode` in a `new HashMap<>()` (16 buckets). Iterating such a map visits keys by this bucket,
/// in insertion order inside a bucket, as long as it holds at most 8 keys: below the resize threshold (12)
/// and too few for a bucket to reach the 9 nodes that make a small table grow instead of treeifying.
pub const SMALL_MAP_MAX_KEYS: usize = 8;

/// See [`SMALL_MAP_MAX_KEYS`].
pub fn small_map_bucket(hash_code: i32) -> usize {
    (spread(hash_code) as u32 as usize) & (DEFAULT_INITIAL_CAPACITY - 1)
}

const NIL: u32 = u32::MAX;
const DEFAULT_INITIAL_CAPACITY: usize = 16;
const MAXIMUM_CAPACITY: usize = 1 << 30;
const TREEIFY_THRESHOLD: usize = 8;
const UNTREEIFY_THRESHOLD: usize = 6;
const MIN_TREEIFY_CAPACITY: usize = 64;

/// `HashMap.tableSizeFor`: the smallest power of two at least `cap` (1 for 0 or 1).
fn table_size_for(cap: i32) -> i32 {
    let n = ((-1i32) as u32).wrapping_shr((cap.wrapping_sub(1)).leading_zeros()) as i32;
    if n < 0 {
        1
    } else if n as usize >= MAXIMUM_CAPACITY {
        MAXIMUM_CAPACITY as i32
    } else {
        n + 1
    }
}

#[derive(Clone, Copy)]
struct Node {
    /// The spread hash, as `HashMap.Node.hash`.
    hash: i32,
    next: u32,
    // Tree-bin links; meaningful only while `tree` is set.
    tree: bool,
    prev: u32,
    left: u32,
    right: u32,
    parent: u32,
    red: bool,
}

/// Placement of `String` keys in a `java.util.HashMap` with the default load factor, insertion only.
///
/// Keys are identified by the index they were first inserted under (0, 1, 2, ...); [`Self::iteration_order`]
/// lists those indices in the order `keySet()`/`values()`/`entrySet()` would visit them.
pub struct JavaHashMapOrder<'a> {
    keys: Vec<&'a str>,
    nodes: Vec<Node>,
    table: Vec<u32>,
    /// `HashMap.threshold`: before the table exists it holds the initial capacity (0 = default).
    threshold: i32,
}

impl<'a> JavaHashMapOrder<'a> {
    /// `new HashMap<>()`.
    pub fn new() -> Self {
        Self {
            keys: Vec::new(),
            nodes: Vec::new(),
            table: Vec::new(),
            threshold: 0,
        }
    }

    /// `new HashMap<>(initialCapacity)`; a negative capacity (an `IllegalArgumentException` in Java) is
    /// treated as 0 — callers only pass collection sizes.
    pub fn with_capacity(initial_capacity: i32) -> Self {
        let capacity = initial_capacity.clamp(0, MAXIMUM_CAPACITY as i32);
        Self {
            keys: Vec::new(),
            nodes: Vec::new(),
            table: Vec::new(),
            threshold: table_size_for(capacity),
        }
    }

    /// Reserves room for `additional` more keys (storage only: Java's table growth is still emulated).
    pub fn reserve(&mut self, additional: usize) {
        self.keys.reserve(additional);
        self.nodes.reserve(additional);
    }

    /// Number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether no key was inserted.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Current table length (0 before the first insertion).
    pub fn capacity(&self) -> usize {
        self.table.len()
    }

    /// `map.put(key, v)`: returns the key's index and whether it was new. An existing key keeps its place.
    pub fn put(&mut self, key: &'a str) -> (u32, bool) {
        self.put_hashed(key, string_hash(key))
    }

    /// [`Self::put`] with the key's `String.hashCode` already computed.
    pub fn put_hashed(&mut self, key: &'a str, hash_code: i32) -> (u32, bool) {
        let hash = spread(hash_code);
        if self.table.is_empty() {
            self.resize();
        }
        let i = self.index(hash);
        let head = self.table[i];
        let (idx, inserted) = if head == NIL {
            let idx = self.new_node(key, hash, NIL);
            self.table[i] = idx;
            (idx, true)
        } else if self.nodes[head as usize].tree {
            self.put_tree_val(i, key, hash)
        } else {
            let mut p = head;
            if self.matches(p, key, hash) {
                return (p, false);
            }
            let mut bin_count = 0usize;
            loop {
                let e = self.nodes[p as usize].next;
                if e == NIL {
                    let idx = self.new_node(key, hash, NIL);
                    self.nodes[p as usize].next = idx;
                    if bin_count >= TREEIFY_THRESHOLD - 1 {
                        self.treeify_bin(hash);
                    }
                    break (idx, true);
                }
                if self.matches(e, key, hash) {
                    return (e, false);
                }
                p = e;
                bin_count += 1;
            }
        };
        if inserted && self.keys.len() as i64 > i64::from(self.threshold) {
            self.resize();
        }
        (idx, inserted)
    }

    /// `map.computeIfAbsent(key, f)` with an `f` that never returns null: returns the key's index and whether
    /// it was new. Unlike `put`, the table grows *before* looking (when already over the threshold) and a new
    /// key goes to the front of its bucket.
    pub fn compute_if_absent(&mut self, key: &'a str) -> (u32, bool) {
        self.compute_if_absent_hashed(key, string_hash(key))
    }

    /// [`Self::compute_if_absent`] with the key's `String.hashCode` already computed.
    pub fn compute_if_absent_hashed(&mut self, key: &'a str, hash_code: i32) -> (u32, bool) {
        let hash = spread(hash_code);
        if self.keys.len() as i64 > i64::from(self.threshold) || self.table.is_empty() {
            self.resize();
        }
        let i = self.index(hash);
        let first = self.table[i];
        let mut bin_count = 0usize;
        if first != NIL {
            if self.nodes[first as usize].tree {
                return self.put_tree_val(i, key, hash);
            }
            let mut e = first;
            while e != NIL {
                if self.matches(e, key, hash) {
                    return (e, false);
                }
                bin_count += 1;
                e = self.nodes[e as usize].next;
            }
        }
        let idx = self.new_node(key, hash, first);
        self.table[i] = idx;
        if bin_count >= TREEIFY_THRESHOLD - 1 {
            self.treeify_bin(hash);
        }
        (idx, true)
    }

    /// Key indices in Java's iteration order: bucket by bucket, each bucket along its `next` links.
    pub fn iteration_order(&self) -> Vec<u32> {
        let mut out = Vec::with_capacity(self.keys.len());
        for &head in &self.table {
            let mut e = head;
            while e != NIL {
                out.push(e);
                e = self.nodes[e as usize].next;
            }
        }
        out
    }

    fn index(&self, hash: i32) -> usize {
        (hash as u32 as usize) & (self.table.len() - 1)
    }

    fn matches(&self, node: u32, key: &str, hash: i32) -> bool {
        self.nodes[node as usize].hash == hash && self.keys[node as usize] == key
    }

    fn new_node(&mut self, key: &'a str, hash: i32, next: u32) -> u32 {
        let idx = self.nodes.len() as u32;
        self.keys.push(key);
        self.nodes.push(Node {
            hash,
            next,
            tree: false,
            prev: NIL,
            left: NIL,
            right: NIL,
            parent: NIL,
            red: false,
        });
        idx
    }

    /// `HashMap.resize()`: allocate or double the table and split every bucket into a low and a high half,
    /// each keeping its relative order.
    fn resize(&mut self) {
        let old_cap = self.table.len();
        let old_thr = self.threshold;
        let mut new_thr: i32 = 0;
        let new_cap: usize;
        if old_cap > 0 {
            if old_cap >= MAXIMUM_CAPACITY {
                self.threshold = i32::MAX;
                return;
            }
            new_cap = old_cap << 1;
            if new_cap < MAXIMUM_CAPACITY && old_cap >= DEFAULT_INITIAL_CAPACITY {
                new_thr = old_thr << 1;
            }
        } else if old_thr > 0 {
            new_cap = old_thr as usize;
        } else {
            new_cap = DEFAULT_INITIAL_CAPACITY;
            new_thr = (0.75f32 * DEFAULT_INITIAL_CAPACITY as f32) as i32;
        }
        if new_thr == 0 {
            let ft = new_cap as f32 * 0.75f32;
            new_thr = if new_cap < MAXIMUM_CAPACITY && ft < MAXIMUM_CAPACITY as f32 {
                ft as i32
            } else {
                i32::MAX
            };
        }
        self.threshold = new_thr;
        let old = std::mem::replace(&mut self.table, vec![NIL; new_cap]);
        for (j, &e) in old.iter().enumerate() {
            if e == NIL {
                continue;
            }
            if self.nodes[e as usize].next == NIL {
                let h = self.nodes[e as usize].hash;
                let k = self.index(h);
                self.table[k] = e;
            } else if self.nodes[e as usize].tree {
                self.split(e, j, old_cap);
            } else {
                let (lo, hi) = self.split_list(e, old_cap, false);
                if lo.0 != NIL {
                    self.table[j] = lo.0;
                }
                if hi.0 != NIL {
                    self.table[j + old_cap] = hi.0;
                }
            }
        }
    }

    /// Splits the chain starting at `e` by the `bit` of each hash into (head, count) of the low and the
    /// high chain, preserving order; with `tree` the `prev` links are rebuilt too.
    fn split_list(&mut self, mut e: u32, bit: usize, tree: bool) -> ((u32, usize), (u32, usize)) {
        let (mut lo_head, mut lo_tail, mut lc) = (NIL, NIL, 0usize);
        let (mut hi_head, mut hi_tail, mut hc) = (NIL, NIL, 0usize);
        while e != NIL {
            let next = self.nodes[e as usize].next;
            self.nodes[e as usize].next = NIL;
            let low = (self.nodes[e as usize].hash as u32 as usize) & bit == 0;
            let (head, tail, count) = if low {
                (&mut lo_head, &mut lo_tail, &mut lc)
            } else {
                (&mut hi_head, &mut hi_tail, &mut hc)
            };
            if tree {
                self.nodes[e as usize].prev = *tail;
            }
            if *tail == NIL {
                *head = e;
            } else {
                self.nodes[*tail as usize].next = e;
            }
            *tail = e;
            *count += 1;
            e = next;
        }
        ((lo_head, lc), (hi_head, hc))
    }

    /// `TreeNode.split`: a tree bucket is split like a list; a half of at most 6 nodes becomes a plain list,
    /// a larger half is re-treeified from its list order (unless the other half is empty, when the tree
    /// stays as it was).
    fn split(&mut self, b: u32, index: usize, bit: usize) {
        let ((lo_head, lc), (hi_head, hc)) = self.split_list(b, bit, true);
        if lo_head != NIL {
            if lc <= UNTREEIFY_THRESHOLD {
                self.untreeify(lo_head);
                self.table[index] = lo_head;
            } else {
                self.table[index] = lo_head;
                if hi_head != NIL {
                    self.treeify(lo_head);
                }
            }
        }
        if hi_head != NIL {
            if hc <= UNTREEIFY_THRESHOLD {
                self.untreeify(hi_head);
                self.table[index + bit] = hi_head;
            } else {
                self.table[index + bit] = hi_head;
                if lo_head != NIL {
                    self.treeify(hi_head);
                }
            }
        }
    }

    fn untreeify(&mut self, mut e: u32) {
        while e != NIL {
            self.nodes[e as usize].tree = false;
            e = self.nodes[e as usize].next;
        }
    }

    /// `HashMap.treeifyBin`: a small table grows instead; otherwise the bucket becomes a red-black tree.
    fn treeify_bin(&mut self, hash: i32) {
        if self.table.len() < MIN_TREEIFY_CAPACITY {
            self.resize();
            return;
        }
        let index = self.index(hash);
        let head = self.table[index];
        if head == NIL {
            return;
        }
        let mut e = head;
        let mut prev = NIL;
        while e != NIL {
            let n = &mut self.nodes[e as usize];
            n.tree = true;
            n.prev = prev;
            prev = e;
            e = n.next;
        }
        self.treeify(head);
    }

    /// Tree order of two distinct keys: by spread hash, then by `String.compareTo`.
    fn tree_dir(&self, hash: i32, key: &str, p: u32) -> Ordering {
        let ph = self.nodes[p as usize].hash;
        match ph.cmp(&hash) {
            Ordering::Greater => Ordering::Less,
            Ordering::Less => Ordering::Greater,
            Ordering::Equal => compare_strings(key, self.keys[p as usize]),
        }
    }

    /// `TreeNode.treeify`: insert the bucket's nodes in list order into a fresh tree, then move the root
    /// to the front of the list.
    fn treeify(&mut self, head: u32) {
        let mut root = NIL;
        let mut x = head;
        while x != NIL {
            let next = self.nodes[x as usize].next;
            self.nodes[x as usize].left = NIL;
            self.nodes[x as usize].right = NIL;
            if root == NIL {
                self.nodes[x as usize].parent = NIL;
                self.nodes[x as usize].red = false;
                root = x;
            } else {
                let hash = self.nodes[x as usize].hash;
                let key = self.keys[x as usize];
                let mut p = root;
                loop {
                    // Distinct strings never compare equal, so Java's identity-hash tie-break is unreachable.
                    let go_left = self.tree_dir(hash, key, p) != Ordering::Greater;
                    let child = if go_left {
                        self.nodes[p as usize].left
                    } else {
                        self.nodes[p as usize].right
                    };
                    if child == NIL {
                        self.nodes[x as usize].parent = p;
                        if go_left {
                            self.nodes[p as usize].left = x;
                        } else {
                            self.nodes[p as usize].right = x;
                        }
                        root = self.balance_insertion(root, x);
                        break;
                    }
                    p = child;
                }
            }
            x = next;
        }
        self.move_root_to_front(root);
    }

    /// `TreeNode.putTreeVal`: find the key or insert it as a leaf; the new node is linked into the bucket's
    /// list right after its tree parent.
    fn put_tree_val(&mut self, bucket: usize, key: &'a str, hash: i32) -> (u32, bool) {
        let mut root = self.table[bucket];
        while self.nodes[root as usize].parent != NIL {
            root = self.nodes[root as usize].parent;
        }
        let mut p = root;
        loop {
            if self.matches(p, key, hash) {
                return (p, false);
            }
            let go_left = self.tree_dir(hash, key, p) != Ordering::Greater;
            let child = if go_left {
                self.nodes[p as usize].left
            } else {
                self.nodes[p as usize].right
            };
            if child == NIL {
                let xpn = self.nodes[p as usize].next;
                let x = self.new_node(key, hash, xpn);
                self.nodes[x as usize].tree = true;
                if go_left {
                    self.nodes[p as usize].left = x;
                } else {
                    self.nodes[p as usize].right = x;
                }
                self.nodes[p as usize].next = x;
                self.nodes[x as usize].parent = p;
                self.nodes[x as usize].prev = p;
                if xpn != NIL {
                    self.nodes[xpn as usize].prev = x;
                }
                let new_root = self.balance_insertion(root, x);
                self.move_root_to_front(new_root);
                return (x, true);
            }
            p = child;
        }
    }

    fn move_root_to_front(&mut self, root: u32) {
        if root == NIL || self.table.is_empty() {
            return;
        }
        let index = self.index(self.nodes[root as usize].hash);
        let first = self.table[index];
        if root != first {
            self.table[index] = root;
            let rp = self.nodes[root as usize].prev;
            let rn = self.nodes[root as usize].next;
            if rn != NIL {
                self.nodes[rn as usize].prev = rp;
            }
            if rp != NIL {
                self.nodes[rp as usize].next = rn;
            }
            if first != NIL {
                self.nodes[first as usize].prev = root;
            }
            self.nodes[root as usize].next = first;
            self.nodes[root as usize].prev = NIL;
        }
    }

    fn rotate_left(&mut self, mut root: u32, p: u32) -> u32 {
        if p == NIL {
            return root;
        }
        let r = self.nodes[p as usize].right;
        if r == NIL {
            return root;
        }
        let rl = self.nodes[r as usize].left;
        self.nodes[p as usize].right = rl;
        if rl != NIL {
            self.nodes[rl as usize].parent = p;
        }
        let pp = self.nodes[p as usize].parent;
        self.nodes[r as usize].parent = pp;
        if pp == NIL {
            root = r;
            self.nodes[r as usize].red = false;
        } else if self.nodes[pp as usize].left == p {
            self.nodes[pp as usize].left = r;
        } else {
            self.nodes[pp as usize].right = r;
        }
        self.nodes[r as usize].left = p;
        self.nodes[p as usize].parent = r;
        root
    }

    fn rotate_right(&mut self, mut root: u32, p: u32) -> u32 {
        if p == NIL {
            return root;
        }
        let l = self.nodes[p as usize].left;
        if l == NIL {
            return root;
        }
        let lr = self.nodes[l as usize].right;
        self.nodes[p as usize].left = lr;
        if lr != NIL {
            self.nodes[lr as usize].parent = p;
        }
        let pp = self.nodes[p as usize].parent;
        self.nodes[l as usize].parent = pp;
        if pp == NIL {
            root = l;
            self.nodes[l as usize].red = false;
        } else if self.nodes[pp as usize].right == p {
            self.nodes[pp as usize].right = l;
        } else {
            self.nodes[pp as usize].left = l;
        }
        self.nodes[l as usize].right = p;
        self.nodes[p as usize].parent = l;
        root
    }

    fn is_red(&self, n: u32) -> bool {
        n != NIL && self.nodes[n as usize].red
    }

    fn parent_of(&self, n: u32) -> u32 {
        if n == NIL {
            NIL
        } else {
            self.nodes[n as usize].parent
        }
    }

    /// `TreeNode.balanceInsertion` (the textbook red-black insertion fix-up, same rotation choices).
    fn balance_insertion(&mut self, mut root: u32, mut x: u32) -> u32 {
        self.nodes[x as usize].red = true;
        loop {
            let mut xp = self.nodes[x as usize].parent;
            if xp == NIL {
                self.nodes[x as usize].red = false;
                return x;
            }
            if !self.nodes[xp as usize].red {
                return root;
            }
            let mut xpp = self.nodes[xp as usize].parent;
            if xpp == NIL {
                return root;
            }
            let xppl = self.nodes[xpp as usize].left;
            if xp == xppl {
                let xppr = self.nodes[xpp as usize].right;
                if self.is_red(xppr) {
                    self.nodes[xppr as usize].red = false;
                    self.nodes[xp as usize].red = false;
                    self.nodes[xpp as usize].red = true;
                    x = xpp;
                } else {
                    if x == self.nodes[xp as usize].right {
                        x = xp;
                        root = self.rotate_left(root, x);
                        xp = self.nodes[x as usize].parent;
                        xpp = self.parent_of(xp);
                    }
                    if xp != NIL {
                        self.nodes[xp as usize].red = false;
                        if xpp != NIL {
                            self.nodes[xpp as usize].red = true;
                            root = self.rotate_right(root, xpp);
                        }
                    }
                }
            } else if self.is_red(xppl) {
                self.nodes[xppl as usize].red = false;
                self.nodes[xp as usize].red = false;
                self.nodes[xpp as usize].red = true;
                x = xpp;
            } else {
                if x == self.nodes[xp as usize].left {
                    x = xp;
                    root = self.rotate_right(root, x);
                    xp = self.nodes[x as usize].parent;
                    xpp = self.parent_of(xp);
                }
                if xp != NIL {
                    self.nodes[xp as usize].red = false;
                    if xpp != NIL {
                        self.nodes[xpp as usize].red = true;
                        root = self.rotate_left(root, xpp);
                    }
                }
            }
        }
    }
}

impl Default for JavaHashMapOrder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

/// The order in which a `java.util.HashMap<String, _>` created with the default capacity iterates
/// `keys` when they were put in the given order (bucket order; insertion order within a bucket). A key
/// put again keeps its first place.
pub fn java_hash_map_order<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let keys = distinct(keys);
    if keys.len() <= 1 {
        return keys;
    }
    let mut map = JavaHashMapOrder::new();
    for k in &keys {
        map.put(k);
    }
    map.iteration_order()
        .into_iter()
        .map(|i| keys[i as usize])
        .collect()
}

/// Like [`java_hash_map_order`] for a `HashSet` built with `new HashSet<>(collection)`, whose table
/// starts at `max(size / 0.75 + 1, 16)`.
pub fn java_hash_set_copy_order<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let keys = distinct(keys);
    if keys.len() <= 1 {
        return keys;
    }
    let capacity = ((keys.len() as f32 / 0.75) as i32 + 1).max(16);
    let mut map = JavaHashMapOrder::with_capacity(capacity);
    for k in &keys {
        map.put(k);
    }
    map.iteration_order()
        .into_iter()
        .map(|i| keys[i as usize])
        .collect()
}

/// The iteration order of a `java.util.HashMap` (or `HashSet`) whose keys are not `String`s: key `i` has
/// the `hashCode()` `keys[i].0`, and `keys[i].1` is a string whose `String.compareTo` order is the keys' own
/// `compareTo` order (only tree bins read it; see [`super::hash_code::uuid_tree_key`]). The keys are distinct
/// and put in index order into `new HashMap<>()` (`initial_capacity` None) or `new HashMap<>(c)`. Returns
/// the key indexes in iteration order.
pub fn java_hash_order_of(keys: &[(i32, &str)], initial_capacity: Option<i32>) -> Vec<usize> {
    let mut map = match initial_capacity {
        None => JavaHashMapOrder::new(),
        Some(c) => JavaHashMapOrder::with_capacity(c),
    };
    for (hash, key) in keys {
        map.put_hashed(key, *hash);
    }
    map.iteration_order()
        .into_iter()
        .map(|i| i as usize)
        .collect()
}

/// The initial capacity `new HashSet<>(collection)` gives its map: `max((int) (size / .75f) + 1, 16)`.
pub fn hash_set_copy_capacity(size: usize) -> i32 {
    ((size as f32 / 0.75f32) as i32 + 1).max(16)
}

fn distinct<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = std::collections::BTreeSet::new();
    keys.into_iter().filter(|k| seen.insert(*k)).collect()
}

/// The order a `java.util.HashMap` built by inserting `hashes` (in this order) iterates them:
/// returns the insertion indexes in iteration order. Buckets are walked in index order and a
/// bucket keeps insertion order; the table starts at 16 buckets and doubles whenever the size
/// passes three quarters of it (tree bins, which keep that order here, are not modelled).
pub fn hash_map_order_of_hashes(hashes: &[i32]) -> Vec<usize> {
    let mut capacity: usize = 16;
    while hashes.len() > capacity * 3 / 4 {
        capacity *= 2;
    }
    let mut order: Vec<(usize, usize)> = hashes
        .iter()
        .enumerate()
        .map(|(i, h)| {
            let spread = (*h as u32) ^ ((*h as u32) >> 16);
            ((spread as usize) & (capacity - 1), i)
        })
        .collect();
    order.sort();
    order.into_iter().map(|(_, i)| i).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_size_for_rounds_up_to_powers_of_two() {
        assert_eq!(table_size_for(0), 1);
        assert_eq!(table_size_for(1), 1);
        assert_eq!(table_size_for(2), 2);
        assert_eq!(table_size_for(12), 16);
        assert_eq!(table_size_for(16), 16);
        assert_eq!(table_size_for(17), 32);
    }

    #[test]
    fn hash_map_order_matches_java() {
        // Printed by jshell with kafka-clients 4.4.0: the values (insertion indexes) of a
        // HashMap<TopicPartition, Integer> filled in this order.
        let order_of = |partitions: &[i32]| {
            let hashes: Vec<i32> = partitions
                .iter()
                .map(|p| super::super::hash_code::topic_partition_hash("__consumer_offsets", *p))
                .collect();
            hash_map_order_of_hashes(&hashes)
        };
        assert_eq!(
            order_of(&[12, 42, 5, 33, 0, 49, 17, 8, 21]),
            vec![4, 0, 1, 7, 2, 8, 3, 5, 6]
        );
        let fifty: Vec<i32> = (0..50).map(|i| (i * 7) % 50).collect();
        assert_eq!(
            order_of(&fifty),
            vec![
                9, 28, 37, 6, 3, 31, 40, 18, 15, 34, 43, 12, 38, 35, 16, 13, 32, 10, 7, 0, 47, 25,
                44, 41, 22, 19, 45, 14, 23, 42, 39, 17, 26, 4, 1, 20, 29, 48, 21, 2, 49, 30, 46,
                24, 33, 11, 27, 8, 5, 36
            ]
        );
    }

    #[test]
    fn java_order_of_small_keys_is_bucket_order() {
        // "1".hashCode() = 49 -> bucket 1, "0" -> bucket 0 (48 & 15), "a" (97) -> bucket 1 after "1".
        assert_eq!(java_hash_map_order(["a", "1", "0"]), vec!["0", "a", "1"]);
    }
}

//! `java.util.PriorityQueue`.

use std::cmp::Ordering;

/// `java.util.PriorityQueue` with a comparator: a binary min-heap whose sift rules decide which of several
/// equal elements comes out first. Elements are small copyable handles; the comparator is passed to each
/// operation so that it can read the caller's current state (Kafka mutates elements only while they are
/// out of the queue, so the heap invariant always holds).
#[derive(Debug, Clone, Default)]
pub struct JavaPriorityQueue<T> {
    heap: Vec<T>,
}

impl<T: Copy> JavaPriorityQueue<T> {
    /// An empty queue with room for `capacity` elements.
    pub fn with_capacity(capacity: usize) -> Self {
        Self {
            heap: Vec::with_capacity(capacity),
        }
    }

    /// Number of queued elements.
    pub fn len(&self) -> usize {
        self.heap.len()
    }

    /// Whether the queue is empty.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }

    /// `offer`/`add`: append and sift up; an element equal to its parent stays below it.
    pub fn offer(&mut self, x: T, cmp: impl FnMut(&T, &T) -> Ordering) {
        let len = self.heap.len();
        self.heap.push(x);
        heap_offer(&mut self.heap, len, x, cmp);
    }

    /// `poll`: remove the head, move the last element to the root and sift it down, preferring the left
    /// child unless the right one is strictly smaller.
    pub fn poll(&mut self, cmp: impl FnMut(&T, &T) -> Ordering) -> Option<T> {
        let len = self.heap.len();
        if len == 0 {
            return None;
        }
        let result = heap_poll(&mut self.heap, len, cmp);
        self.heap.pop();
        Some(result)
    }
}

/// `PriorityQueue.offer` on a heap kept in `heap[..len]`: places `x` at `len` and sifts it up (the slice
/// must have room for it).
pub fn heap_offer<T: Copy>(
    heap: &mut [T],
    len: usize,
    x: T,
    mut cmp: impl FnMut(&T, &T) -> Ordering,
) {
    let mut k = len;
    while k > 0 {
        let parent = (k - 1) >> 1;
        let e = heap[parent];
        if cmp(&x, &e) != Ordering::Less {
            break;
        }
        heap[k] = e;
        k = parent;
    }
    heap[k] = x;
}

/// `PriorityQueue.poll` on a non-empty heap kept in `heap[..len]`: returns the head and leaves the other
/// elements in `heap[..len - 1]`.
pub fn heap_poll<T: Copy>(
    heap: &mut [T],
    len: usize,
    mut cmp: impl FnMut(&T, &T) -> Ordering,
) -> T {
    let result = heap[0];
    let n = len - 1;
    let x = heap[n];
    if n > 0 {
        let half = n >> 1;
        let mut k = 0;
        while k < half {
            let mut child = (k << 1) + 1;
            let mut c = heap[child];
            let right = child + 1;
            if right < n && cmp(&c, &heap[right]) == Ordering::Greater {
                child = right;
                c = heap[child];
            }
            if cmp(&x, &c) != Ordering::Greater {
                break;
            }
            heap[k] = c;
            k = child;
        }
        heap[k] = x;
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn priority_queue_keeps_insertion_order_among_equal_roots() {
        let mut q = JavaPriorityQueue::with_capacity(4);
        for x in [(0, 'a'), (0, 'b'), (0, 'c'), (0, 'd')] {
            q.offer(x, |a, b| a.0.cmp(&b.0));
        }
        // The last element replaces the root and, being equal, stays there: d comes out second.
        let order: Vec<char> =
            std::iter::from_fn(|| q.poll(|a, b| a.0.cmp(&b.0)).map(|x| x.1)).collect();
        assert_eq!(order, vec!['a', 'd', 'c', 'b']);
    }
}

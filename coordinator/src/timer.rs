//! The shard's timers: Kafka's `CoordinatorTimer` over caller-supplied time. A timer has a string key
//! (Kafka's key, e.g. `session-timeout-<group>-<member>`); scheduling a key that is already scheduled
//! replaces it. Timers due at the same instant fire in the order they were (re)scheduled, a fixed rule
//! where Kafka's own timer leaves the order unspecified.

use std::collections::{BTreeMap, HashMap};

use foldhash::fast::FixedState;

/// Timers keyed by name, ordered by (deadline, scheduling sequence).
#[derive(Debug, Clone)]
pub struct Timers<T> {
    /// Key -> slot in `queue`. Only looked up, never iterated; hashed with fixed keys (no OS
    /// randomness) because every heartbeat reschedules a timer and string-ordered look-ups cost
    /// many long comparisons. foldhash's fixed-seed hasher, not std's SipHash: the keys are long
    /// (`session-timeout-<group>-<member>`) and SipHash was most of a reschedule.
    by_key: HashMap<String, (i64, u64), FixedState>,
    queue: BTreeMap<(i64, u64), (String, T)>,
    next_seq: u64,
}

impl<T> Default for Timers<T> {
    fn default() -> Self {
        Self {
            by_key: HashMap::default(),
            queue: BTreeMap::new(),
            next_seq: 0,
        }
    }
}

/// A timer that came due.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DueTimer<T> {
    pub key: String,
    pub deadline_ms: i64,
    pub task: T,
}

impl<T> Timers<T> {
    pub fn new() -> Self {
        Self::default()
    }

    /// Schedules `task` under `key` at `deadline_ms`, replacing any timer with the same key.
    pub fn schedule(&mut self, key: impl Into<String>, deadline_ms: i64, task: T) {
        let key = key.into();
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(old) = self.by_key.insert(key.clone(), (deadline_ms, seq)) {
            self.queue.remove(&old);
        }
        self.queue.insert((deadline_ms, seq), (key, task));
    }

    /// Moves the timer scheduled under `key`, keeping its task, to `deadline_ms` as if it were
    /// scheduled again now (it takes the next scheduling sequence). Returns `false`, changing
    /// nothing, when no timer has this key. Equivalent to [`Self::schedule`] with the same task,
    /// without building the task again.
    pub fn reschedule(&mut self, key: &str, deadline_ms: i64) -> bool {
        let Some(slot) = self.by_key.get_mut(key) else {
            return false;
        };
        let seq = self.next_seq;
        self.next_seq += 1;
        let old = std::mem::replace(slot, (deadline_ms, seq));
        if let Some(entry) = self.queue.remove(&old) {
            self.queue.insert((deadline_ms, seq), entry);
        }
        true
    }

    /// Cancels the timer with this key; returns whether one was scheduled.
    pub fn cancel(&mut self, key: &str) -> bool {
        match self.by_key.remove(key) {
            Some(slot) => {
                self.queue.remove(&slot);
                true
            }
            None => false,
        }
    }

    pub fn is_scheduled(&self, key: &str) -> bool {
        self.by_key.contains_key(key)
    }

    /// The deadline of the timer with this key, if scheduled.
    pub fn deadline(&self, key: &str) -> Option<i64> {
        self.by_key.get(key).map(|(deadline, _)| *deadline)
    }

    /// The earliest deadline of all scheduled timers.
    pub fn next_deadline(&self) -> Option<i64> {
        self.queue.keys().next().map(|(deadline, _)| *deadline)
    }

    /// Removes and returns the earliest timer due at or before `now_ms`. Timers are popped one at a time so
    /// that firing one may schedule or cancel others before the next is chosen.
    pub fn pop_due(&mut self, now_ms: i64) -> Option<DueTimer<T>> {
        let (&(deadline_ms, seq), _) = self.queue.iter().next()?;
        if deadline_ms > now_ms {
            return None;
        }
        let (key, task) = self.queue.remove(&(deadline_ms, seq))?;
        self.by_key.remove(&key);
        Some(DueTimer {
            key,
            deadline_ms,
            task,
        })
    }

    /// Cancels every timer (a shard being unloaded).
    pub fn clear(&mut self) {
        self.by_key.clear();
        self.queue.clear();
    }

    pub fn len(&self) -> usize {
        self.by_key.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_key.is_empty()
    }

    /// Scheduled timers in firing order: (key, deadline).
    pub fn iter(&self) -> impl Iterator<Item = (&str, i64, &T)> {
        self.queue
            .iter()
            .map(|((deadline, _), (key, task))| (key.as_str(), *deadline, task))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fires_in_deadline_then_schedule_order() {
        let mut t = Timers::new();
        t.schedule("b", 20, 'b');
        t.schedule("a", 10, 'a');
        t.schedule("c", 20, 'c');
        assert_eq!(t.next_deadline(), Some(10));
        assert_eq!(t.pop_due(9), None);
        let fired: Vec<char> = std::iter::from_fn(|| t.pop_due(20))
            .map(|d| d.task)
            .collect();
        assert_eq!(fired, vec!['a', 'b', 'c']);
        assert!(t.is_empty());
    }

    #[test]
    fn rescheduling_a_key_replaces_it_and_moves_it_back() {
        let mut t = Timers::new();
        t.schedule("x", 10, 1);
        t.schedule("y", 10, 2);
        t.schedule("x", 10, 3);
        assert_eq!(t.len(), 2);
        assert_eq!(
            t.pop_due(10).map(|d| (d.key, d.task)),
            Some(("y".into(), 2))
        );
        assert_eq!(
            t.pop_due(10).map(|d| (d.key, d.task)),
            Some(("x".into(), 3))
        );
    }

    #[test]
    fn reschedule_keeps_the_task_and_takes_a_new_sequence() {
        let mut t = Timers::new();
        t.schedule("x", 10, 1);
        t.schedule("y", 20, 2);
        assert!(t.reschedule("x", 20));
        assert!(!t.reschedule("z", 5));
        assert_eq!(t.deadline("x"), Some(20));
        let fired: Vec<(String, i32)> = std::iter::from_fn(|| t.pop_due(20))
            .map(|d| (d.key, d.task))
            .collect();
        assert_eq!(fired, vec![("y".to_string(), 2), ("x".to_string(), 1)]);
    }

    #[test]
    fn cancel_removes_only_that_key() {
        let mut t = Timers::new();
        t.schedule("x", 5, ());
        t.schedule("y", 6, ());
        assert!(t.cancel("x"));
        assert!(!t.cancel("x"));
        assert!(!t.is_scheduled("x"));
        assert_eq!(t.deadline("y"), Some(6));
        assert_eq!(t.next_deadline(), Some(6));
    }
}

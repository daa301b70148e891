//! The active controller's soft state about brokers (Kafka's `BrokerHeartbeatManager` and
//! `BrokerHeartbeatTracker`): last contact per (broker id, broker epoch), and per broker whether
//! it is fenced, the metadata offset it last reported and its controlled-shutdown offset.
//!
//! Kafka keeps contact times in a hash map and expires "the first expired entry in iteration
//! order"; regroup keeps them in (id, epoch) order, so when several expire together the lowest
//! broker id is fenced first.

use std::collections::{BTreeMap, BTreeSet};

/// The heartbeat-derived state of a broker (`BrokerControlState`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BrokerControlState {
    Fenced,
    Unfenced,
    ControlledShutdown,
    ShutdownNow,
}

impl BrokerControlState {
    pub fn fenced(self) -> bool {
        matches!(
            self,
            BrokerControlState::Fenced | BrokerControlState::ShutdownNow
        )
    }

    pub fn should_shut_down(self) -> bool {
        matches!(self, BrokerControlState::ShutdownNow)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct BrokerHeartbeatState {
    fenced: bool,
    metadata_offset: i64,
    /// -1 unless the broker is in controlled shutdown.
    controlled_shutdown_offset: i64,
}

impl BrokerHeartbeatState {
    fn shutting_down(&self) -> bool {
        self.controlled_shutdown_offset >= 0
    }
}

/// Contact times and per-broker heartbeat state.
#[derive(Debug, Clone, Default)]
pub struct HeartbeatManager {
    session_timeout_ms: i64,
    contact: BTreeMap<(i32, i64), i64>,
    brokers: BTreeMap<i32, BrokerHeartbeatState>,
    /// Unfenced brokers not shutting down, ordered by (metadata offset, id).
    active: BTreeSet<(i64, i32)>,
}

impl HeartbeatManager {
    pub fn new(session_timeout_ms: i64) -> Self {
        Self {
            session_timeout_ms,
            ..Self::default()
        }
    }

    /// `BrokerHeartbeatTracker.isExpired`: strictly more than a session after the contact, and
    /// never for a clock that is not after the contact.
    fn is_expired(&self, contact_ms: i64, now_ms: i64) -> bool {
        now_ms > contact_ms && contact_ms + self.session_timeout_ms < now_ms
    }

    /// Records a contact from (id, epoch) at `now_ms` (done for every heartbeat, even a stale one).
    pub fn update_contact_time(&mut self, id: i32, epoch: i64, now_ms: i64) {
        self.contact.insert((id, epoch), now_ms);
    }

    pub fn contact_time(&self, id: i32, epoch: i64) -> Option<i64> {
        self.contact.get(&(id, epoch)).copied()
    }

    /// Whether (id, epoch) has a contact time that has not expired.
    pub fn has_valid_session(&self, id: i32, epoch: i64, now_ms: i64) -> bool {
        self.contact
            .get(&(id, epoch))
            .is_some_and(|c| !self.is_expired(*c, now_ms))
    }

    /// Removes the first expired (id, epoch) and returns it with its last contact time.
    pub fn maybe_remove_expired(&mut self, now_ms: i64) -> Option<(i32, i64, i64)> {
        let (key, contact) = self
            .contact
            .iter()
            .find(|(_, c)| self.is_expired(**c, now_ms))
            .map(|(k, c)| (*k, *c))?;
        self.contact.remove(&key);
        Some((key.0, key.1, contact))
    }

    fn untrack(&mut self, id: i32) {
        if let Some(b) = self.brokers.get(&id) {
            self.active.remove(&(b.metadata_offset, id));
        }
    }

    /// `BrokerHeartbeatManager.register`.
    pub fn register(&mut self, id: i32, fenced: bool) {
        let mut metadata_offset = -1;
        match self.brokers.get(&id) {
            None => {
                self.brokers.insert(
                    id,
                    BrokerHeartbeatState {
                        fenced,
                        metadata_offset: -1,
                        controlled_shutdown_offset: -1,
                    },
                );
            }
            Some(b) if b.fenced != fenced => metadata_offset = b.metadata_offset,
            Some(_) => {}
        }
        self.touch(id, fenced, metadata_offset);
    }

    /// `BrokerHeartbeatManager.remove`.
    pub fn remove(&mut self, id: i32) {
        self.untrack(id);
        self.brokers.remove(&id);
    }

    /// `BrokerHeartbeatManager.fence`.
    pub fn fence(&mut self, id: i32) {
        self.untrack(id);
        if let Some(b) = self.brokers.get_mut(&id) {
            b.fenced = true;
        }
    }

    /// `BrokerHeartbeatManager.touch`: updates fencing and the reported metadata offset.
    pub fn touch(&mut self, id: i32, fenced: bool, metadata_offset: i64) {
        self.untrack(id);
        let Some(b) = self.brokers.get_mut(&id) else {
            return;
        };
        b.fenced = fenced;
        b.metadata_offset = metadata_offset;
        let mut is_active = false;
        if fenced {
            // A fenced broker leaves controlled shutdown; its next heartbeat shuts it down.
            b.controlled_shutdown_offset = -1;
        } else if !b.shutting_down() {
            is_active = true;
        }
        if is_active {
            self.active.insert((metadata_offset, id));
        }
    }

    /// Smallest metadata offset among active brokers, `i64::MAX` if there are none.
    pub fn lowest_active_offset(&self) -> i64 {
        self.active.first().map(|(o, _)| *o).unwrap_or(i64::MAX)
    }

    /// Sets the controlled-shutdown offset the first time (later calls keep the first value).
    pub fn maybe_update_controlled_shutdown_offset(&mut self, id: i32, offset: i64) {
        self.untrack(id);
        if let Some(b) = self.brokers.get_mut(&id)
            && !b.fenced
            && b.controlled_shutdown_offset < 0
        {
            b.controlled_shutdown_offset = offset;
        }
    }

    pub fn controlled_shutdown_offset(&self, id: i32) -> Option<i64> {
        self.brokers
            .get(&id)
            .map(|b| b.controlled_shutdown_offset)
            .filter(|o| *o >= 0)
    }

    pub fn is_tracked(&self, id: i32) -> bool {
        self.brokers.contains_key(&id)
    }

    /// `BrokerHeartbeatManager.currentBrokerState`.
    pub fn current_state(&self, id: i32) -> BrokerControlState {
        match self.brokers.get(&id) {
            Some(b) if b.shutting_down() => BrokerControlState::ControlledShutdown,
            Some(b) if !b.fenced => BrokerControlState::Unfenced,
            _ => BrokerControlState::Fenced,
        }
    }

    /// Kafka 4.4's transition table (`BrokerHeartbeatManager.calculateNextBrokerState`).
    pub fn next_state(
        &self,
        id: i32,
        want_fence: bool,
        want_shut_down: bool,
        current_metadata_offset: i64,
        register_offset: i64,
        has_leaderships: bool,
    ) -> (BrokerControlState, BrokerControlState) {
        use BrokerControlState::*;
        let current = self.current_state(id);
        let next = match current {
            Fenced => {
                if want_shut_down {
                    ShutdownNow
                } else if !want_fence && current_metadata_offset >= register_offset {
                    Unfenced
                } else {
                    Fenced
                }
            }
            Unfenced => {
                if want_fence {
                    if want_shut_down { ShutdownNow } else { Fenced }
                } else if want_shut_down {
                    if has_leaderships {
                        ControlledShutdown
                    } else {
                        ShutdownNow
                    }
                } else {
                    Unfenced
                }
            }
            ControlledShutdown => {
                let offset = self
                    .brokers
                    .get(&id)
                    .map(|b| b.controlled_shutdown_offset)
                    .unwrap_or(-1);
                if has_leaderships || offset > self.lowest_active_offset() {
                    ControlledShutdown
                } else {
                    ShutdownNow
                }
            }
            ShutdownNow => ShutdownNow,
        };
        (current, next)
    }
}

#[cfg(test)]
mod tests {
    use super::BrokerControlState::*;
    use super::*;

    #[test]
    fn expiry_is_strictly_after_the_session() {
        let mut m = HeartbeatManager::new(9000);
        m.update_contact_time(1, 10, 1000);
        assert!(m.has_valid_session(1, 10, 10_000));
        assert_eq!(m.maybe_remove_expired(10_000), None);
        assert!(!m.has_valid_session(1, 10, 10_001));
        assert_eq!(m.maybe_remove_expired(10_001), Some((1, 10, 1_000)));
        assert_eq!(m.maybe_remove_expired(10_001), None);
    }

    #[test]
    fn transition_table_follows_kafka() {
        let mut m = HeartbeatManager::new(9000);
        m.register(1, true);
        // Fenced: caught up and not wanting fence -> unfenced; behind -> fenced; shutdown -> now.
        assert_eq!(
            m.next_state(1, false, false, 5, 5, false),
            (Fenced, Unfenced)
        );
        assert_eq!(m.next_state(1, false, false, 4, 5, false), (Fenced, Fenced));
        assert_eq!(m.next_state(1, true, false, 9, 5, false), (Fenced, Fenced));
        assert_eq!(
            m.next_state(1, false, true, 0, 5, false),
            (Fenced, ShutdownNow)
        );
        m.touch(1, false, 5);
        assert_eq!(m.next_state(1, true, false, 5, 5, true), (Unfenced, Fenced));
        assert_eq!(
            m.next_state(1, true, true, 5, 5, true),
            (Unfenced, ShutdownNow)
        );
        assert_eq!(
            m.next_state(1, false, true, 5, 5, true),
            (Unfenced, ControlledShutdown)
        );
        assert_eq!(
            m.next_state(1, false, true, 5, 5, false),
            (Unfenced, ShutdownNow)
        );
        // Controlled shutdown waits until the other active brokers reached its offset.
        m.register(2, false);
        m.touch(2, false, 7);
        m.touch(1, false, 8);
        m.maybe_update_controlled_shutdown_offset(1, 9);
        assert_eq!(m.controlled_shutdown_offset(1), Some(9));
        m.maybe_update_controlled_shutdown_offset(1, 12);
        assert_eq!(m.controlled_shutdown_offset(1), Some(9));
        assert_eq!(
            m.next_state(1, false, true, 9, 5, false),
            (ControlledShutdown, ControlledShutdown)
        );
        m.touch(2, false, 9);
        assert_eq!(
            m.next_state(1, false, true, 9, 5, true),
            (ControlledShutdown, ControlledShutdown)
        );
        assert_eq!(
            m.next_state(1, false, true, 9, 5, false),
            (ControlledShutdown, ShutdownNow)
        );
    }
}

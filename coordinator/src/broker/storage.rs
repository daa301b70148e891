//! A broker's "disk": its partition logs and its clean-shutdown marker. Whoever runs the broker
//! owns the storage, so a restarted broker finds its logs again (a turmoil host restart keeps
//! them), as a restarted Kafka broker finds its log directory.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use super::log::PartitionLog;

#[derive(Debug, Default)]
struct StorageInner {
    logs: BTreeMap<(String, i32), PartitionLog>,
    /// The broker epoch written at a clean shutdown (Kafka's clean-shutdown file), read and
    /// removed at the next start.
    clean_shutdown_epoch: Option<i64>,
}

/// Shared handle to a broker's storage.
#[derive(Debug, Clone, Default)]
pub struct BrokerStorage(Rc<RefCell<StorageInner>>);

impl BrokerStorage {
    pub fn new() -> Self {
        Self::default()
    }

    /// Runs `f` on the log of (topic, partition), creating an empty one if needed.
    pub fn with_log<R>(
        &self,
        topic: &str,
        partition: i32,
        f: impl FnOnce(&mut PartitionLog) -> R,
    ) -> R {
        let mut inner = self.0.borrow_mut();
        let log = inner
            .logs
            .entry((topic.to_string(), partition))
            .or_default();
        f(log)
    }

    /// A copy of the log of (topic, partition), if it exists.
    pub fn log(&self, topic: &str, partition: i32) -> Option<PartitionLog> {
        self.0
            .borrow()
            .logs
            .get(&(topic.to_string(), partition))
            .cloned()
    }

    /// (topic, partition) of every log, in order.
    pub fn partitions(&self) -> Vec<(String, i32)> {
        self.0.borrow().logs.keys().cloned().collect()
    }

    /// Runs `f` on every log of `topic`, in partition order, without copying names or logs (the
    /// simulator reads the offsets logs after every step). Stops at the first error.
    pub fn try_for_each_log_of<E>(
        &self,
        topic: &str,
        mut f: impl FnMut(i32, &PartitionLog) -> Result<(), E>,
    ) -> Result<(), E> {
        let inner = self.0.borrow();
        let from = (topic.to_string(), i32::MIN);
        for ((t, partition), log) in inner.logs.range(from..) {
            if t != topic {
                break;
            }
            f(*partition, log)?;
        }
        Ok(())
    }

    /// Writes the clean-shutdown marker.
    pub fn mark_clean_shutdown(&self, broker_epoch: i64) {
        self.0.borrow_mut().clean_shutdown_epoch = Some(broker_epoch);
    }

    /// Reads and removes the clean-shutdown marker (a crash after this start is unclean).
    pub fn take_clean_shutdown_epoch(&self) -> Option<i64> {
        self.0.borrow_mut().clean_shutdown_epoch.take()
    }
}

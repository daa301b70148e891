//! The part of a Kafka Streams state directory the protocol sees: the process id (kept across
//! restarts) and the changelog offset sums of the tasks whose state is on disk.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use rand::RngCore;

use crate::ids::process_uuid_string;
use crate::observer::TaskId;

#[derive(Debug)]
struct Inner {
    process_id: String,
    task_offset_sums: BTreeMap<TaskId, i64>,
}

/// A process's state directory. Clones share it: hand the same one to a restarted process and it
/// keeps its process id and local task state, as Kafka Streams does.
#[derive(Debug, Clone)]
pub struct StateDirectory {
    inner: Rc<RefCell<Inner>>,
}

impl StateDirectory {
    /// A fresh directory with a process id drawn from `rng`.
    pub fn new(rng: &mut impl RngCore) -> Self {
        Self::with_process_id(process_uuid_string(rng))
    }

    /// A directory with a given process id.
    pub fn with_process_id(process_id: impl Into<String>) -> Self {
        Self {
            inner: Rc::new(RefCell::new(Inner {
                process_id: process_id.into(),
                task_offset_sums: BTreeMap::new(),
            })),
        }
    }

    pub fn process_id(&self) -> String {
        self.inner.borrow().process_id.clone()
    }

    /// Changelog offset sums of the tasks with state on disk.
    pub fn task_offset_sums(&self) -> BTreeMap<TaskId, i64> {
        self.inner.borrow().task_offset_sums.clone()
    }

    /// Records a stateful task's checkpointed changelog offset sum (it never goes backwards).
    pub fn checkpoint(&self, task: &TaskId, offset_sum: i64) {
        let mut inner = self.inner.borrow_mut();
        let entry = inner
            .task_offset_sums
            .entry(task.clone())
            .or_insert(offset_sum);
        *entry = (*entry).max(offset_sum);
    }

    /// Wipes all local state (a process that lost its disk).
    pub fn wipe(&self) {
        self.inner.borrow_mut().task_offset_sums.clear();
    }
}

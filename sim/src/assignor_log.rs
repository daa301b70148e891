//! Every streams target assignment the simulated brokers compute, with the assignor's input, for
//! checking against Kafka's own assignor after the run (`regroup sweep --assignor-oracle`).
//!
//! A run that asks for it ([`crate::runner::RunOptions::record_assignments`]) registers a
//! [`RecordingAssignor`] as every broker's `sticky` task assignor. It hands each call to the
//! built-in assignor, with the run's Kafka bug switches, and keeps the input (the `GroupSpec` and
//! `TopologyDescriber` the coordinator built) and the output. It changes nothing the brokers
//! compute: a recorded run has the trace hash of an unrecorded one.
//!
//! Why the inputs and not a property of the outputs: 4.4.0's sticky assignor keeps a task where it
//! was only as far as its quotas allow, and its quotas move as it goes, so no property of the
//! output alone says "as sticky as Kafka" without restating the algorithm. Its inputs under
//! faults (previous owners gone, offsets reported by restarted processes, members fenced between
//! two computations) are exactly what random inputs rarely produce; Kafka's `StickyTaskAssignor`
//! run on them is the reference (`scenarios::assignor_oracle`).

use std::sync::{Arc, Mutex};

use coordinator::streams::assignor::{
    AssignorError, GroupAssignment, GroupSpec, StickyTaskAssignor, TaskAssignor, TopologyDescriber,
};
use kafka_bugs::KafkaBugs;

/// One call of the assignor.
#[derive(Debug, Clone)]
pub struct AssignorCall {
    /// Simulated time of the call (ms since the run started).
    pub at_ms: i64,
    pub group: GroupSpec,
    pub topology: TopologyDescriber,
    /// The assignment, or the assignor's error message.
    pub result: Result<GroupAssignment, String>,
}

/// The calls of one run, shared by every broker's assignor.
pub type AssignorLog = Arc<Mutex<Vec<AssignorCall>>>;

/// The built-in sticky assignor, keeping every call in a log.
#[derive(Debug, Default)]
pub struct RecordingAssignor {
    log: AssignorLog,
}

impl RecordingAssignor {
    pub fn new(log: AssignorLog) -> Self {
        Self { log }
    }
}

impl TaskAssignor for RecordingAssignor {
    fn name(&self) -> &str {
        StickyTaskAssignor::NAME
    }

    fn assign(
        &self,
        group: &GroupSpec,
        topology: &TopologyDescriber,
    ) -> Result<GroupAssignment, AssignorError> {
        self.assign_with_bugs(group, topology, &KafkaBugs::none())
    }

    fn assign_with_bugs(
        &self,
        group: &GroupSpec,
        topology: &TopologyDescriber,
        bugs: &KafkaBugs,
    ) -> Result<GroupAssignment, AssignorError> {
        let result = StickyTaskAssignor.assign_with_bugs(group, topology, bugs);
        let at_ms = turmoil::sim_elapsed().map_or(0, |d| d.as_millis() as i64);
        let call = AssignorCall {
            at_ms,
            group: group.clone(),
            topology: topology.clone(),
            result: result.clone().map_err(|e| e.to_string()),
        };
        // A poisoned lock only means another thread panicked while recording; keep recording.
        self.log
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .push(call);
        result
    }
}

/// Takes the calls recorded so far, in call order.
pub fn take(log: &AssignorLog) -> Vec<AssignorCall> {
    std::mem::take(&mut *log.lock().unwrap_or_else(|p| p.into_inner()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use coordinator::streams::assignor::MemberSpec;
    use kafka_bugs::KafkaBug;

    fn input() -> (GroupSpec, TopologyDescriber) {
        let group = GroupSpec {
            members: vec![MemberSpec::new("m1", "p1"), MemberSpec::new("m2", "p2")],
            configs: Default::default(),
        };
        (group, TopologyDescriber::new([("s0", 4, true)]))
    }

    #[test]
    fn records_what_the_sticky_assignor_computed() {
        let log = AssignorLog::default();
        let recording = RecordingAssignor::new(log.clone());
        let (group, topology) = input();
        let bugs = KafkaBugs::of([KafkaBug::Kafka20719]);
        let got = recording
            .assign_with_bugs(&group, &topology, &bugs)
            .unwrap();
        assert_eq!(
            got,
            StickyTaskAssignor
                .assign_with_bugs(&group, &topology, &bugs)
                .unwrap()
        );
        let calls = take(&log);
        assert_eq!(calls.len(), 1);
        assert_eq!(calls[0].group, group);
        assert_eq!(calls[0].topology, topology);
        assert_eq!(calls[0].result.as_ref().unwrap(), &got);
        assert_eq!(recording.name(), "sticky");
        assert!(take(&log).is_empty());
    }

    #[test]
    fn records_an_assignor_error_as_its_message() {
        let log = AssignorLog::default();
        let (mut group, topology) = input();
        group.configs.num_standby_replicas = -1;
        let err = RecordingAssignor::new(log.clone())
            .assign(&group, &topology)
            .unwrap_err();
        assert_eq!(take(&log)[0].result.as_ref().unwrap_err(), &err.to_string());
    }
}

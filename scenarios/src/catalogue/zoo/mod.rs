//! The bug zoo's targeted scenarios: one per Kafka bug switch (`regroup bugs`), each written to
//! walk the sequence that triggers its bug. With no switch on (Kafka 4.4.0) each passes like any
//! catalogue scenario; with its bug switched on it fails, and the test `scenarios/tests/zoo.rs`
//! checks that it fails on the invariant or check its entry names (`caught_by`). The swarm
//! scenarios, which were not written for any bug, are the blind half (`regroup zoo`).

pub mod assignor;
pub mod classic;
pub mod classic_more;
pub mod streams;

use super::Scenario;

/// Every targeted scenario.
pub fn scenarios() -> Vec<Scenario> {
    let mut v = Vec::new();
    v.extend(streams::scenarios());
    v.extend(classic::scenarios());
    v.extend(classic_more::scenarios());
    v.extend(assignor::scenarios());
    v
}

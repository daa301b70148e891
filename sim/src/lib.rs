//! regroup's turmoil harness: cluster builder, one seed, faults, observer, invariants, determinism.

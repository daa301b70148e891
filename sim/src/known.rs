//! Apache Kafka 4.4.0's own behaviours that fail a check of the simulator.
//!
//! regroup reproduces Kafka faithfully, so where Kafka itself cannot converge (or breaks another
//! invariant) a run fails exactly as a run of a real cluster would. A sweep must still tell such a
//! failure from a new one: a violation whose fingerprint (its [`Invariant`] and the
//! [`Violation::kind`] the check gave it) matches an entry here is reported as
//! `known: <name> (<doc>)`, counted apart, and does not fail a sweep or a run unless `--strict`.
//!
//! An entry is admitted only with a proof that the behaviour is Kafka's: `proof` names a script that
//! drives Kafka 4.4.0's own coordinator through the sequence (run by `regroup conformance --corpus`,
//! which checks the script's expectations against Kafka's output), and `doc` the write-up of the
//! sequence, the code and the likely fix. The fingerprint must be narrow: a check names a kind only when
//! what it saw can only come from that behaviour (see each kind's own documentation), so a regression
//! in regroup that looks alike on the surface still fails.

use crate::invariants::consumer::CONSUMER_STATIC_MEMBER_UNRELEASED;
use crate::invariants::convergence::{
    CLASSIC_STATIC_MEMBER_FENCED_AFTER_MOVE, STREAMS_ASSIGNMENT_LOST_IN_FLIGHT,
};
use crate::invariants::epochs::CLASSIC_GENERATION_REUSED_AFTER_MOVE;
use crate::invariants::{Invariant, Violation};

/// One documented Kafka behaviour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KnownBehaviour {
    /// The name sweeps and runs print.
    pub name: &'static str,
    /// The invariant that fires.
    pub invariant: Invariant,
    /// The kind of detail it fires with ([`Violation::kind`]).
    pub kind: &'static str,
    /// One line on what happens.
    pub summary: &'static str,
    /// The Kafka versions it applies to, and where upstream stands.
    pub kafka: &'static str,
    /// The write-up, relative to the repository root (file and anchor).
    pub doc: &'static str,
    /// The script that shows it on Kafka's own coordinator, relative to the repository root.
    pub proof: &'static str,
}

/// Every known behaviour. The data lives here and nowhere else.
pub const KNOWN: &[KnownBehaviour] = &[
    KnownBehaviour {
        name: "kafka-streams-lost-assignment",
        invariant: Invariant::Convergence,
        kind: STREAMS_ASSIGNMENT_LOST_IN_FLIGHT,
        summary: "a streams member's new tasks travel only in the response of the heartbeat that \
              assigned them; when that response is lost, Kafka never sends them again and the \
              tasks have no running owner until the member's assignment changes again",
        kafka: "Apache Kafka 4.4.0 (GroupMetadataManager.streamsGroupHeartbeat); no upstream fix found",
        doc: "docs/findings.md#a-lost-streams-assignment-is-never-sent-again",
        proof: "conformance/corpus/kafka44-streams-lost-assignment.jsonl",
    },
    KnownBehaviour {
        name: "kafka-static-member-fenced-after-coordinator-move",
        invariant: Invariant::Convergence,
        kind: CLASSIC_STATIC_MEMBER_FENCED_AFTER_MOVE,
        summary: "a classic static member's new member id lives only in the coordinator's memory until \
              the generation's GroupMetadata is written at SyncGroup; when the coordinator moves \
              before that, the next one fences the member (FENCED_INSTANCE_ID) and Kafka's consumer \
              dies of it",
        kafka: "Apache Kafka 4.4.0 (GroupMetadataManager.completeClassicGroupJoin writes no record; \
            AbstractCoordinator treats FENCED_INSTANCE_ID as fatal)",
        doc: "docs/findings.md#a-static-members-new-id-is-lost-when-the-coordinator-moves",
        proof: "conformance/oracle/src/test/java/dev/regroup/oracle/script/StaticMemberFailoverTest.java",
    },
    KnownBehaviour {
        name: "kafka-classic-generation-reused-after-coordinator-move",
        invariant: Invariant::MonotonicEpochs,
        kind: CLASSIC_GENERATION_REUSED_AFTER_MOVE,
        summary: "a classic group's generations handed out since its last GroupMetadata record (join \
                  completions write none; the record is written at the leader's SyncGroup) are lost \
                  with the coordinator, and the next one numbers them again: a consumer sees its \
                  generation go back",
        kafka: "Apache Kafka 4.4.0 (GroupMetadataManager.completeClassicGroupJoin writes no record \
                for a non-empty group)",
        doc: "docs/findings.md#classic-generations-are-numbered-again-after-a-coordinator-move",
        proof: "conformance/oracle/src/test/java/dev/regroup/oracle/script/ClassicGenerationReuseTest.java",
    },
    KnownBehaviour {
        name: "kafka-consumer-static-member-unreleased-instance-id",
        invariant: Invariant::Convergence,
        kind: CONSUMER_STATIC_MEMBER_UNRELEASED,
        summary: "a static consumer-protocol member that joins (epoch 0) while its instance id is \
                  still held by a member that did not leave with epoch -2 (its own crashed \
                  incarnation, or itself when the answer to its first join was lost) is refused \
                  with UNRELEASED_INSTANCE_ID, which Kafka's consumer treats as fatal",
        kafka: "Apache Kafka 4.4.0 (GroupMetadataManager.throwIfInstanceIdIsUnreleased; \
                ConsumerHeartbeatRequestManager.handleSpecificError: UNRELEASED_INSTANCE_ID is \
                fatal)",
        doc: "docs/findings.md#a-static-consumers-rejoin-before-its-session-ends-is-fatal",
        proof: "conformance/corpus/kafka44-consumer-static-unreleased-instance-id.jsonl",
    },
];

/// The known behaviour a violation is, if any.
pub fn classify(violation: &Violation) -> Option<&'static KnownBehaviour> {
    let kind = violation.kind?;
    KNOWN
        .iter()
        .find(|k| k.invariant == violation.invariant && k.kind == kind)
}

/// Finds an entry by name.
pub fn find(name: &str) -> Option<&'static KnownBehaviour> {
    KNOWN.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    #[test]
    fn a_violation_is_known_only_by_invariant_and_kind() {
        let lost = Violation::new(Invariant::Convergence, 1, "x")
            .with_kind(Some(STREAMS_ASSIGNMENT_LOST_IN_FLIGHT));
        assert_eq!(
            classify(&lost).map(|k| k.name),
            Some("kafka-streams-lost-assignment")
        );
        // The same words without the kind, or the kind on another invariant: not known.
        assert_eq!(
            classify(&Violation::new(Invariant::Convergence, 1, "x")),
            None
        );
        let other = Violation::new(Invariant::ExclusiveActiveOwnership, 1, "x")
            .with_kind(Some(STREAMS_ASSIGNMENT_LOST_IN_FLIGHT));
        assert_eq!(classify(&other), None);
        assert_eq!(find("kafka-streams-lost-assignment"), Some(&KNOWN[0]));
    }

    /// Every entry points at a write-up (with its anchor) and a proof script that exist, and the
    /// proof states what Kafka answers (expectations), so the list cannot drift from its evidence.
    #[test]
    fn every_entry_has_its_doc_and_its_proof() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut names = std::collections::BTreeSet::new();
        for k in KNOWN {
            assert!(names.insert(k.name), "{} twice", k.name);
            let (file, anchor) = k.doc.split_once('#').expect("doc has an anchor");
            let doc = std::fs::read_to_string(root.join(file)).unwrap_or_else(|e| {
                panic!("{}: {file}: {e}", k.name);
            });
            let headings: Vec<String> = doc
                .lines()
                .filter(|l| l.starts_with('#'))
                .map(|l| {
                    l.trim_start_matches('#')
                        .trim()
                        .to_lowercase()
                        .chars()
                        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-')
                        .collect::<String>()
                        .replace(' ', "-")
                })
                .collect();
            assert!(
                headings.iter().any(|h| h == anchor),
                "{}: no heading #{anchor} in {file}",
                k.name
            );
            let proof = std::fs::read_to_string(root.join(k.proof)).unwrap_or_else(|e| {
                panic!("{}: {}: {e}", k.name, k.proof);
            });
            // A corpus script states what Kafka answers; a test of the oracle asserts it.
            let states_it = if k.proof.ends_with(".jsonl") {
                proof.contains("\"expect\"")
            } else {
                k.proof.ends_with(".java") && proof.contains("@Test")
            };
            assert!(
                states_it,
                "{}: the proof states nothing about Kafka's answers",
                k.name
            );
        }
    }
}

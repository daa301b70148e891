//! 4. offsets-durable: an acknowledged commit is never lost or rolled back, across any number of
//!    fail-overs.
//!
//! Three checks:
//! * every replica's committed prefix (up to its own high watermark) equals the committed history
//!   ([`crate::mirror::LogMirror`]) — a committed record that disappears or changes on any copy
//!   is lost;
//! * a commit a client saw accepted is in the committed history (a committed write of that group
//!   with exactly those offsets);
//! * offsets a client fetched are the latest committed values as of the fetch being sent, or a
//!   value committed after it — never an older value (a rollback) or one never committed.

use members::observer::TopicPartition;

use super::{Invariant, Violation};
use crate::mirror::DurabilityError;
use crate::model::{CommitWrite, Model};

fn violation(at_ms: i64, detail: String) -> Violation {
    Violation::new(Invariant::OffsetsDurable, at_ms, detail)
}

/// A replica disagreed with the committed history.
pub fn from_mirror(at_ms: i64, e: DurabilityError) -> Violation {
    violation(at_ms, e.0)
}

/// Finds (and marks as matched) the committed write carrying an accepted commit.
pub fn claim_commit(
    at_ms: i64,
    group: &str,
    member_id: &str,
    offsets: &[(TopicPartition, i64)],
    model: &mut Model,
) -> Result<CommitWrite, Violation> {
    let mut wanted: Vec<(String, i32, i64)> = offsets
        .iter()
        .map(|(tp, o)| (tp.topic.clone(), tp.partition, *o))
        .collect();
    wanted.sort();
    if let Some(writes) = model.commits.get_mut(group)
        && let Some(w) = writes
            .iter_mut()
            .rev()
            .find(|w| !w.claimed && w.offsets == wanted)
    {
        w.claimed = true;
        return Ok(w.clone());
    }
    let shown: Vec<String> = offsets.iter().map(|(tp, o)| format!("{tp}={o}")).collect();
    Err(violation(
        at_ms,
        format!(
            "commit of group {group} acknowledged to {member_id} ({}) is not in the committed \
             log",
            shown.join(", ")
        ),
    ))
}

/// Offsets a client fetched (`sent_ms`: when its OffsetFetch went out). Clients report a missing
/// offset as 0 (where they start), so 0 also matches "none".
pub fn check_fetched(
    at_ms: i64,
    group: &str,
    client: &str,
    sent_ms: i64,
    offsets: &[(TopicPartition, i64)],
    model: &Model,
) -> Result<(), Violation> {
    for (tp, fetched) in offsets {
        let expected = model.offset_at(group, tp, sent_ms);
        let later = model.offsets_after(group, tp, sent_ms);
        let matches = |v: Option<i64>| match v {
            Some(v) => v == *fetched,
            None => *fetched <= 0,
        };
        if matches(expected) || later.into_iter().any(matches) {
            continue;
        }
        return Err(violation(
            at_ms,
            format!(
                "{client} of group {group} fetched offset {fetched} for {tp}, but the committed \
                 offset when it asked was {}",
                expected.map_or("none".to_string(), |v| v.to_string())
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use coordinator::Record;
    use coordinator::broker::BrokerStorage;
    use coordinator::broker::log::Batch;
    use coordinator::records::codec;
    use coordinator::records::offsets::{OffsetCommitKey, OffsetCommitValue};
    use members::observer::{ClientKind, ClientRef, EventKind};

    use super::super::Checker;
    use super::*;
    use crate::mirror::{LogMirror, OFFSETS_TOPIC};

    fn commit(offset: i64) -> Record {
        Record::OffsetCommit {
            key: OffsetCommitKey {
                group: "g".into(),
                topic: "t".into(),
                partition: 0,
            },
            value: Some(OffsetCommitValue {
                offset,
                leader_epoch: -1,
                metadata: String::new(),
                commit_timestamp: 0,
                expire_timestamp: None,
                topic_id: uuid::Uuid::nil(),
            }),
        }
    }

    fn consumer() -> ClientRef {
        ClientRef {
            kind: ClientKind::Consumer,
            name: "c1".into(),
            group_id: "g".into(),
            instance_id: None,
            process_id: String::new(),
        }
    }

    #[test]
    fn an_acknowledged_commit_missing_from_the_log_fires() {
        let mut model = Model::default();
        model.apply(0, 0, 0, &commit(5), 10);
        let ev = ev_commit;
        let mut c = Checker::new();
        c.on_client_parts(1, 11, "h", &consumer(), "", &ev(5), &mut model)
            .unwrap();
        // The same write cannot acknowledge two commits.
        let v = c
            .on_client_parts(2, 12, "h", &consumer(), "", &ev(5), &mut model)
            .unwrap_err();
        assert_eq!(v.invariant, Invariant::OffsetsDurable);
        assert!(
            v.detail.contains("t-0=5) is not in the committed log"),
            "{}",
            v.detail
        );
    }

    #[test]
    fn writes_committed_together_stay_claimable_until_the_horizon() {
        // 10,000 members' commits waiting on one stalled ISR change commit together: the
        // earliest stays claimable however many follow it (a 4,096-write window forgot it).
        let mut model = Model::default();
        for i in 0..6_000 {
            model.apply(0, i, i, &commit(i), 1_000);
        }
        let mut c = Checker::new();
        c.on_client_parts(1, 1_050, "h", &consumer(), "", &ev_commit(0), &mut model)
            .unwrap();
        // Past the horizon, a write nobody claimed is gone: its acknowledgement can no longer
        // arrive (a client gives up on a request after its request timeout).
        model.apply(0, 6_000, 6_000, &commit(7_777), 1_000 + 10 * 60 * 1000 + 1);
        let v = c
            .on_client_parts(2, 700_000, "h", &consumer(), "", &ev_commit(1), &mut model)
            .unwrap_err();
        assert_eq!(v.invariant, Invariant::OffsetsDurable);
        c.on_client_parts(
            3,
            700_001,
            "h",
            &consumer(),
            "",
            &ev_commit(7_777),
            &mut model,
        )
        .unwrap();
    }

    fn ev_commit(o: i64) -> EventKind {
        EventKind::CommitAccepted {
            epoch: -1,
            offsets: vec![(TopicPartition::new("t", 0), o)],
        }
    }

    #[test]
    fn a_rolled_back_offset_fires() {
        let mut model = Model::default();
        model.apply(0, 0, 0, &commit(5), 10);
        model.apply(0, 1, 1, &commit(9), 20);
        let tp = TopicPartition::new("t", 0);
        // Asked at 25: 9 is right; asked at 15: 5, or the later 9.
        check_fetched(30, "g", "c1", 25, &[(tp.clone(), 9)], &model).unwrap();
        check_fetched(30, "g", "c1", 15, &[(tp.clone(), 5)], &model).unwrap();
        check_fetched(30, "g", "c1", 15, &[(tp.clone(), 9)], &model).unwrap();
        let v = check_fetched(30, "g", "c1", 25, &[(tp.clone(), 5)], &model).unwrap_err();
        assert!(
            v.detail
                .contains("fetched offset 5 for t-0, but the committed offset when it asked was 9"),
            "{}",
            v.detail
        );
        // Nothing committed before 5 ms: 0 (none) is right, 3 never existed.
        check_fetched(30, "g", "c1", 5, &[(tp.clone(), 0)], &model).unwrap();
        assert!(check_fetched(30, "g", "c1", 5, &[(tp, 3)], &model).is_err());
    }

    fn batch(base: i64, records: &[Record]) -> Batch {
        Batch {
            base_offset: base,
            leader_epoch: 0,
            producer: None,
            timestamp_ms: 0,
            records: records.iter().map(codec::serialize).collect(),
        }
    }

    #[test]
    fn a_replica_rewriting_a_committed_record_fires() {
        let (b1, b2) = (BrokerStorage::new(), BrokerStorage::new());
        b1.with_log(OFFSETS_TOPIC, 0, |l| {
            l.append(batch(0, &[commit(1), commit(2)]));
            l.set_high_watermark(2);
        });
        let mut mirror = LogMirror::new();
        let mut out = Vec::new();
        let storages = vec![(1, b1.clone()), (2, b2.clone())];
        mirror.catch_up(&storages, &mut out).unwrap();
        assert_eq!(out.len(), 2);
        assert_eq!(mirror.committed_len(0), 2);
        // Broker 2 becomes leader without record 1 and commits something else in its place.
        b2.with_log(OFFSETS_TOPIC, 0, |l| {
            l.append(batch(0, &[commit(1), commit(7)]));
            l.set_high_watermark(2);
        });
        let e = mirror.catch_up(&storages, &mut out).unwrap_err();
        assert!(
            e.0.contains("committed record 1 of __consumer_offsets-0 differs on broker 2"),
            "{}",
            e.0
        );
    }
}

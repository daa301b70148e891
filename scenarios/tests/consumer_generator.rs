//! The consumer-group script generator, driven by regroup alone (no Java needed): the same seed writes
//! the same script, the script runs whole again, and the simulated consumers make real progress
//! (partitions assigned, revocations acknowledged, members fenced by their timers).

use scenarios::conformance::consumer_gen;
use scenarios::conformance::regroup_side::{RegroupDriver, run_text};
use serde_json::Value;

fn outputs(script: &[String]) -> Vec<Value> {
    run_text(&script.join("\n"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

#[test]
fn the_same_seed_writes_the_same_consumer_script() {
    for seed in [0, 7] {
        let (a, ra) = consumer_gen::generate(seed, 80, &mut RegroupDriver::new());
        let (b, rb) = consumer_gen::generate(seed, 80, &mut RegroupDriver::new());
        assert_eq!(ra, Ok(()));
        assert_eq!(rb, Ok(()));
        assert_eq!(a, b);
    }
    let (x, _) = consumer_gen::generate(1, 80, &mut RegroupDriver::new());
    let (y, _) = consumer_gen::generate(2, 80, &mut RegroupDriver::new());
    assert_ne!(x, y);
}

#[test]
fn consumers_get_partitions_revoke_and_time_out() {
    let (mut assigned, mut unrevoked, mut stable, mut timers) = (0, 0, 0, 0);
    let (mut resolved, mut regex_tombstones, mut invalid_regexes) = (0, 0, 0);
    for seed in 0..10 {
        let (script, result) = consumer_gen::generate(seed, 150, &mut RegroupDriver::new());
        assert_eq!(result, Ok(()), "seed {seed}");
        let out = outputs(&script);
        assert!(out.iter().all(|v| v.get("error").is_none()), "seed {seed}");
        for v in &out {
            if v.get("timer").is_some() && v["records"].as_array().is_some_and(|r| !r.is_empty()) {
                timers += 1;
            }
            if let Some(tps) = v["response"]["assignment"]["topicPartitions"].as_array()
                && tps
                    .iter()
                    .any(|t| t["partitions"].as_array().is_some_and(|p| !p.is_empty()))
            {
                assigned += 1;
            }
            if v["response"]["errorCode"] == 128 {
                invalid_regexes += 1;
            }
            for r in v["records"].as_array().into_iter().flatten() {
                if r["type"] == "ConsumerGroupRegularExpression" {
                    if r["value"].is_object() {
                        resolved += 1;
                    } else {
                        regex_tombstones += 1;
                    }
                }
                if r["type"] == "ConsumerGroupCurrentMemberAssignment" && r["value"].is_object() {
                    match r["value"]["state"].as_i64() {
                        Some(0) => stable += 1,
                        Some(1) => unrevoked += 1,
                        _ => {}
                    }
                }
            }
        }
    }
    assert!(assigned > 50, "responses with partitions: {assigned}");
    assert!(unrevoked > 5, "members asked to revoke: {unrevoked}");
    assert!(stable > 50, "stable current assignments: {stable}");
    assert!(timers > 3, "timers that fenced members: {timers}");
    assert!(resolved > 10, "regex resolutions written: {resolved}");
    assert!(regex_tombstones > 5, "regex tombstones: {regex_tombstones}");
    assert!(
        invalid_regexes > 1,
        "invalid regexes refused: {invalid_regexes}"
    );
}

/// Two conversations in five bring a classic consumer into the group: classic groups are upgraded by a
/// consumer-protocol join (the classic group's tombstone written with consumer-group records), classic
/// members sit in consumer groups (member metadata with classic protocols), and consumer groups are
/// downgraded (the consumer group's tombstone written with a classic GroupMetadata).
#[test]
fn migration_conversations_upgrade_and_downgrade() {
    let (mut with_classic, mut upgrades, mut downgrades, mut classic_members) = (0, 0, 0, 0);
    for seed in 0..20 {
        let (script, result) = consumer_gen::generate(seed, 150, &mut RegroupDriver::new());
        assert_eq!(result, Ok(()), "seed {seed}");
        if script.iter().any(|l| l.contains("\"JoinGroup\"")) {
            with_classic += 1;
        }
        for v in outputs(&script) {
            let records: Vec<&Value> = v["records"].as_array().into_iter().flatten().collect();
            let has = |ty: &str, tombstone: bool| {
                records
                    .iter()
                    .any(|r| r["type"] == ty && r["value"].is_null() == tombstone)
            };
            if has("GroupMetadata", true) && has("ConsumerGroupMetadata", false) {
                upgrades += 1;
            }
            if has("ConsumerGroupMetadata", true) && has("GroupMetadata", false) {
                downgrades += 1;
            }
            classic_members += records
                .iter()
                .filter(|r| {
                    r["type"] == "ConsumerGroupMemberMetadata"
                        && r["value"]["classicMemberMetadata"].is_object()
                })
                .count();
        }
    }
    assert!(
        (4..=14).contains(&with_classic),
        "scripts with a classic client: {with_classic}"
    );
    assert!(upgrades >= 5, "upgrades: {upgrades}");
    assert!(downgrades >= 2, "downgrades: {downgrades}");
    assert!(
        classic_members >= 10,
        "classic member records: {classic_members}"
    );
}

//! The oracle's script generators, driven by regroup alone (no Java needed): the same seed writes the same
//! script, and the simulated clients make real progress (members get tasks and epochs, consumers reach
//! Stable, ids handed out are named and reused).

use scenarios::conformance::regroup_side::{RegroupDriver, run_text};
use scenarios::conformance::{classic_gen, streams_gen};
use serde_json::Value;

fn outputs(script: &[String]) -> Vec<Value> {
    run_text(&script.join("\n"))
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn request_of(script: &[String], line: u64) -> Value {
    serde_json::from_str(&script[line as usize - 1]).unwrap()
}

#[test]
fn the_same_seed_writes_the_same_script() {
    for seed in [0, 7] {
        let (a, ra) = streams_gen::generate(seed, 60, &mut RegroupDriver::new());
        let (b, rb) = streams_gen::generate(seed, 60, &mut RegroupDriver::new());
        assert_eq!(ra, Ok(()));
        assert_eq!(rb, Ok(()));
        assert_eq!(a, b);
        let (c, _) = classic_gen::generate(seed, 60, &mut RegroupDriver::new());
        let (d, _) = classic_gen::generate(seed, 60, &mut RegroupDriver::new());
        assert_eq!(c, d);
    }
    let (x, _) = streams_gen::generate(1, 60, &mut RegroupDriver::new());
    let (y, _) = streams_gen::generate(2, 60, &mut RegroupDriver::new());
    assert_ne!(x, y);
}

#[test]
fn streams_members_get_tasks_and_answer_with_their_epochs() {
    let mut with_tasks = 0;
    let mut answered_with_epoch = 0;
    for seed in 0..10 {
        let (script, result) = streams_gen::generate(seed, 120, &mut RegroupDriver::new());
        assert_eq!(result, Ok(()), "seed {seed}");
        let out = outputs(&script);
        // The generated script, run again, is accepted whole.
        assert!(out.iter().all(|v| v.get("error").is_none()), "seed {seed}");
        let mut last_epoch: std::collections::BTreeMap<String, i64> = Default::default();
        for v in &out {
            let (Some(line), Some(resp)) = (v["line"].as_u64(), v.get("response")) else {
                continue;
            };
            let req = request_of(&script, line);
            if req["request"]["api"] != "StreamsGroupHeartbeat" || resp["errorCode"] != 0 {
                continue;
            }
            let member = req["request"]["body"]["memberId"]
                .as_str()
                .unwrap()
                .to_string();
            let sent = req["request"]["body"]["memberEpoch"].as_i64().unwrap();
            if sent > 0 && last_epoch.get(&member) == Some(&sent) {
                answered_with_epoch += 1;
            }
            if resp["activeTasks"]
                .as_array()
                .is_some_and(|a| !a.is_empty())
            {
                with_tasks += 1;
            }
            if let Some(e) = resp["memberEpoch"].as_i64() {
                last_epoch.insert(member, e);
            }
        }
    }
    assert!(
        with_tasks >= 10,
        "only {with_tasks} responses carried tasks"
    );
    assert!(
        answered_with_epoch >= 100,
        "only {answered_with_epoch} heartbeats reused their epoch"
    );
}

#[test]
fn classic_consumers_sync_and_reuse_generated_ids() {
    let mut synced = 0;
    let mut named = 0;
    for seed in 0..10 {
        let (script, result) = classic_gen::generate(seed, 120, &mut RegroupDriver::new());
        assert_eq!(result, Ok(()), "seed {seed}");
        named += script.iter().filter(|l| l.contains("\"$gen:")).count();
        for v in outputs(&script) {
            let (Some(line), Some(resp)) = (v["line"].as_u64(), v.get("response")) else {
                continue;
            };
            if request_of(&script, line)["request"]["api"] == "SyncGroup" && resp["errorCode"] == 0
            {
                synced += 1;
            }
        }
    }
    assert!(synced >= 20, "only {synced} successful syncs");
    assert!(named >= 50, "only {named} lines name a generated id");
}

#[test]
fn topic_ids_are_regroups_derived_ids_in_kafkas_form() {
    // Pinned on the Java side too (TopicIdsTest).
    assert_eq!(streams_gen::topic_id("foo"), "3LJ1GP7Z1XdhwA33Mpi-rQ");
}

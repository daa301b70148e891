//! `regroup bugs`, `regroup zoo` and `--kafka-bug`: the list, the switch on a run (its failure names
//! the switch and replays with it), a failure file that switches it on again, bad names.

use serde_json::Value;

mod cli_support;
use cli_support::*;

#[test]
fn bugs_lists_every_switch_with_its_ticket_and_scenario() {
    let out = regroup(&["bugs", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let v = json(&out);
    let list = v.as_array().unwrap();
    assert_eq!(list.len(), kafka_bugs::BUGS.len());
    let b = list.iter().find(|b| b["name"] == "kafka-20442").unwrap();
    assert_eq!(b["ticket"], "KAFKA-20442");
    assert_eq!(b["targeted"], "bug-last-member-leaves");
    assert_eq!(b["caughtBy"], "coordinator-answers");
    assert_eq!(b["polarity"], "pre-fix");
    let text = String::from_utf8_lossy(&regroup(&["bugs"]).stdout).to_string();
    assert!(text.contains("kafka-9801  KAFKA-9801"), "{text}");
}

#[test]
fn a_switched_run_fails_names_the_switch_and_replays_with_it() {
    let out = regroup(&[
        "run",
        "bug-last-member-leaves",
        "--kafka-bug",
        "kafka-20442",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1));
    let v = json(&out);
    assert_eq!(v["verdict"], "failed");
    assert_eq!(v["kafkaBugs"], serde_json::json!(["kafka-20442"]));
    assert_eq!(v["violations"][0]["invariant"], "coordinator-answers");
    assert_eq!(
        v["replay"],
        "cargo run --release -- run bug-last-member-leaves --seed 1 --kafka-bug kafka-20442"
    );
    // Without the switch the same scenario passes.
    assert_eq!(
        regroup(&["run", "bug-last-member-leaves"]).status.code(),
        Some(0)
    );
}

#[test]
fn a_failure_file_switches_its_bugs_on_again() {
    let dir = std::env::temp_dir().join(format!("regroup-bugs-cli-{}", std::process::id()));
    let out = regroup(&[
        "sweep",
        "bug-last-member-leaves",
        "--seeds",
        "1",
        "--kafka-bug",
        "kafka-20442",
        "--out",
        dir.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let file = dir.join("bug-last-member-leaves-seed-1.json");
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
    assert_eq!(v["kafkaBugs"], serde_json::json!(["kafka-20442"]));
    let replay = regroup(&["replay", file.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(1), "the failure reproduced");
    let text = String::from_utf8_lossy(&replay.stdout).to_string();
    assert!(
        text.contains("kafka bugs switched on: kafka-20442"),
        "{text}"
    );
    assert!(text.contains("replayed exactly"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_unknown_bug_name_exits_2_naming_the_known_ones() {
    for args in [
        vec!["run", "cold-start-streams", "--kafka-bug", "kafka-1"],
        vec![
            "sweep",
            "cold-start-streams",
            "--seeds",
            "1",
            "--kafka-bug",
            "nope",
        ],
        vec!["zoo", "--bug", "kafka-1"],
    ] {
        let out = regroup(&args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(
            err.contains("no Kafka bug named") && err.contains("kafka-20442"),
            "{err}"
        );
    }
}

#[test]
fn zoo_measures_one_bug_targeted_and_blind() {
    let out = regroup(&["zoo", "--seeds", "2", "--bug", "kafka-20442", "--json"]);
    let v = json(&out);
    let bugs = v["bugs"].as_array().unwrap();
    assert_eq!(bugs.len(), 1);
    let b = &bugs[0];
    assert_eq!(b["name"], "kafka-20442");
    assert_eq!(b["targeted"]["scenario"], "bug-last-member-leaves");
    assert_eq!(b["targeted"]["off"], "passed");
    assert_eq!(b["targeted"]["on"], "failed");
    assert_eq!(b["targeted"]["caught"], true);
    let blind = b["blind"].as_array().unwrap();
    let names: Vec<&str> = blind
        .iter()
        .map(|x| x["scenario"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["swarm-streams", "swarm-mixed"]);
    for x in blind {
        assert_eq!(x["seeds"], 2);
        assert!(x["failed"].as_u64().unwrap() <= 2);
    }
    // Exit 0 only if it was also found blind in these two seeds.
    let found = b["foundBlind"].as_bool().unwrap();
    assert_eq!(out.status.code(), Some(i32::from(!found)));
}

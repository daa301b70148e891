//! `regroup shrink`: a blind failure of the bug zoo (KAFKA-20442 switched on, swarm-streams seed 14,
//! 29 drawn faults) shrinks to a smaller run that fails the same way, replays exactly, and the
//! result does not depend on --jobs; a file whose run passes is refused.

mod cli_support;

use std::path::{Path, PathBuf};

use cli_support::{json, regroup, stderr, stdout};
use serde_json::Value;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("regroup-shrink-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The failure file of swarm-streams seed 14 with KAFKA-20442's pre-fix logic, written by a sweep.
fn failure_file(d: &Path) -> PathBuf {
    let out = regroup(&[
        "sweep",
        "swarm-streams",
        "--seeds",
        "14",
        "--kafka-bug",
        "kafka-20442",
        "--out",
        d.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    d.join("swarm-streams-seed-14.json")
}

fn read(p: &Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

#[test]
fn a_blind_failure_shrinks_to_fewer_faults_and_processes_and_fails_the_same_way() {
    let d = dir("keeps");
    let file = failure_file(&d);
    let a = d.join("a.json");
    let b = d.join("b.json");
    for (out, jobs) in [(&a, "1"), (&b, "2")] {
        let run = regroup(&[
            "shrink",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--budget",
            "80",
            "--jobs",
            jobs,
        ]);
        assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
        assert!(stdout(&run).contains("faults 29 -> "), "{}", stdout(&run));
    }
    // Deterministic: the same file and budget give the same result, whatever --jobs was (only
    // the replay command names the output file).
    let without_path = |p: &Path| {
        let mut v = read(p);
        v.as_object_mut().unwrap().remove("replay");
        v
    };
    assert_eq!(without_path(&a), without_path(&b));
    let shrunk = read(&a);
    let s = &shrunk["shrink"];
    assert_eq!(s["faultsBefore"], 29);
    assert!(s["faultsAfter"].as_u64().unwrap() <= 3, "{s}");
    assert!(
        s["processesAfter"].as_u64() < s["processesBefore"].as_u64(),
        "{s}"
    );
    assert!(s["candidates"].as_u64().unwrap() <= 80);
    // The same fingerprint as the original failure: the empty group's assignment epoch behind.
    assert_eq!(
        s["fingerprint"],
        "coordinator-answers|-|streams group wordcount has no member but its assignment epoch # \
         is not its group epoch #"
    );
    assert_eq!(shrunk["violations"][0]["invariant"], "coordinator-answers");
    // No draw left: the explicit case, replayed exactly.
    assert_eq!(
        shrunk["case"]["schedule"].as_array().unwrap().len() as u64,
        s["faultsAfter"].as_u64().unwrap()
    );
    let replay = regroup(&["replay", a.to_str().unwrap()]);
    assert_eq!(replay.status.code(), Some(1), "{}", stderr(&replay));
    let text = stdout(&replay);
    assert!(text.contains("replayed exactly"), "{text}");
    assert!(
        text.contains(&format!(
            "replay: cargo run --release -- replay {}",
            a.display()
        )),
        "{text}"
    );
    // The shrunk run renders as any run does.
    let html = d.join("shrunk.html");
    let out = regroup(&[
        "replay",
        a.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(">wordcount-0/StreamThread-1</text>"),
        "member lane"
    );
    assert!(page.contains("coordinator-answers at"), "violation marker");
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn a_file_whose_run_passes_is_refused_and_bad_input_named() {
    let d = dir("refuse");
    let file = failure_file(&d);
    // Without the switch, Kafka 4.4.0 passes this seed: nothing to shrink.
    let mut v = read(&file);
    v["kafkaBugs"] = serde_json::json!([]);
    let fixed = d.join("fixed.json");
    std::fs::write(&fixed, v.to_string()).unwrap();
    let out = regroup(&["shrink", fixed.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("there is no failure to shrink"),
        "{}",
        stderr(&out)
    );
    assert!(!d.join("fixed.shrunk.json").exists());

    let junk = d.join("junk.json");
    std::fs::write(&junk, "not json").unwrap();
    let out = regroup(&["shrink", junk.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("is not JSON"), "{}", stderr(&out));
    let out = regroup(&["shrink", file.to_str().unwrap(), "--budget", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    std::fs::remove_dir_all(&d).ok();
}

#[test]
fn sweep_shrink_shrinks_one_failure_per_fingerprint() {
    let d = dir("sweep");
    let out = regroup(&[
        "sweep",
        "swarm-streams",
        "--seeds",
        "14..=20",
        "--kafka-bug",
        "kafka-20442",
        "--out",
        d.to_str().unwrap(),
        "--shrink",
        "--shrink-budget",
        "80",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let v = json(&out);
    // Seeds 14, 15, 16, 17 and 20 fail, the same way (15 to 17 when their application shuts
    // down once the faults have healed and the group empties): one shrink, of the lowest seed.
    assert_eq!(v["failed"], 5, "{v}");
    let shrunk = v["shrunk"].as_array().unwrap();
    assert_eq!(shrunk.len(), 1, "{v}");
    assert_eq!(shrunk[0]["seed"], 14);
    assert!(d.join("swarm-streams-seed-14.shrunk.json").exists());
    // --shrink without --out is a usage error.
    let bad = regroup(&["sweep", "swarm-streams", "--seeds", "7", "--shrink"]);
    assert_eq!(bad.status.code(), Some(2));
    std::fs::remove_dir_all(&d).ok();
}

//! `regroup sweep --coverage`: a declared goal no seed reached fails the sweep and is named; the
//! goals a swarm reaches are reported with their seeds; a merged sharded sweep reports the same
//! coverage as the unsharded one.

mod cli_support;

use cli_support::{json, regroup, stderr, stdout};
use serde_json::Value;

#[test]
fn a_declared_goal_no_seed_reached_fails_the_sweep_and_is_named() {
    let out = regroup(&[
        "sweep",
        "demo-unreached-goal",
        "--seeds",
        "1..=2",
        "--coverage",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("COVERAGE MISSING demo-unreached-goal: fault-crash"),
        "{text}"
    );
    assert!(
        text.contains("COVERAGE MISSING demo-unreached-goal: controlled-shutdown"),
        "{text}"
    );
    // Every run passed: only the goals fail it, and without --coverage nothing does.
    assert!(
        text.contains("demo-unreached-goal      2       2"),
        "{text}"
    );
    let plain = regroup(&["sweep", "demo-unreached-goal", "--seeds", "1..=2"]);
    assert_eq!(plain.status.code(), Some(0), "{}", stderr(&plain));
    assert!(!stdout(&plain).contains("coverage"));
}

fn coverage_of(v: &Value) -> &Value {
    v.get("coverage")
        .unwrap_or_else(|| panic!("no coverage in {v}"))
}

#[test]
fn the_json_names_each_goal_with_its_seeds_and_a_merge_of_shards_reports_the_same() {
    let args = [
        "sweep",
        "swarm-classic-static",
        "--seeds",
        "1..=4",
        "--coverage",
        "--json",
    ];
    let whole = regroup(&args);
    let whole_json = json(&whole);
    let cov = coverage_of(&whole_json);
    let goals = cov["goals"].as_array().unwrap();
    // The runs' own coverage agrees with the summary: a goal's seeds are the runs that reached it.
    let runs = whole_json["runs"].as_array().unwrap();
    for g in goals {
        let name = g["goal"].as_str().unwrap();
        let seeds: Vec<u64> = runs
            .iter()
            .filter(|r| r["coverage"]["goals"].get(name).is_some())
            .map(|r| r["seed"].as_u64().unwrap())
            .collect();
        let listed: Vec<u64> = g["seeds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_u64().unwrap())
            .collect();
        assert_eq!(seeds, listed, "{name}");
        assert_eq!(g["firstSeed"].as_u64(), listed.first().copied(), "{name}");
        assert_eq!(g["runs"], 4);
    }
    // Every consumer joins: JoinGroup answered without error in every run; the declared goals come
    // first and include the static rejoin.
    assert!(cov["answers"]["JoinGroup/NONE"].as_u64().unwrap() >= 4);
    assert!(
        goals
            .iter()
            .any(|g| g["goal"] == "static-member-back-without-rebalance" && g["declared"] == true)
    );
    let first_undeclared = goals.iter().position(|g| g["declared"] == false);
    if let Some(i) = first_undeclared {
        assert!(goals[i..].iter().all(|g| g["declared"] == false));
    }

    let dir = std::env::temp_dir().join(format!("regroup-coverage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut files = Vec::new();
    for k in 0..2 {
        let shard = format!("{k}/2");
        let mut a = args.to_vec();
        a.extend(["--shard", &shard]);
        let out = regroup(&a);
        // A shard does not judge goals (another shard may reach them).
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let path = dir.join(format!("shard-{k}.json"));
        std::fs::write(&path, &out.stdout).unwrap();
        files.push(path.display().to_string());
    }
    let mut merge = vec!["sweep", "merge", "--coverage", "--json"];
    merge.extend(files.iter().map(String::as_str));
    let merged = regroup(&merge);
    assert_eq!(
        merged.status.code(),
        whole.status.code(),
        "{}",
        stderr(&merged)
    );
    assert_eq!(coverage_of(&json(&merged)), cov);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn merging_shards_run_without_coverage_is_refused_with_the_reason() {
    let dir = std::env::temp_dir().join(format!("regroup-nocoverage-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = regroup(&["sweep", "demo-unreached-goal", "--seeds", "1", "--json"]);
    let path = dir.join("all.json");
    std::fs::write(&path, &out.stdout).unwrap();
    let merged = regroup(&["sweep", "merge", "--coverage", path.to_str().unwrap()]);
    assert_eq!(merged.status.code(), Some(2));
    assert!(
        stderr(&merged).contains("run the sweep with --coverage"),
        "{}",
        stderr(&merged)
    );
    std::fs::remove_dir_all(&dir).ok();
}

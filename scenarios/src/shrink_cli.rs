//! `regroup shrink FAILURE_FILE`: a failure file in, a smaller failure file out (see
//! [`crate::shrink`]); and the failure-file reading `regroup replay` shares.

use std::path::{Path, PathBuf};
use std::time::Instant;

use clap::Args;
use kafka_bugs::KafkaBugs;
use serde_json::{Value, json};

use crate::catalogue::{self, Case, Scenario};
use crate::run::violations_json;
use crate::shrink::{Limits, Shrunk, describe_case, fingerprint, members_of, shrink};
use crate::sweep::progress_bar;

/// A failure file, read.
pub struct FailureFile {
    pub scenario: Scenario,
    pub seed: u64,
    pub bugs: KafkaBugs,
    /// The explicit case of a shrunk file (`None`: the seed draws it).
    pub case: Option<Case>,
    pub trace_hash: Option<String>,
    pub build: Option<String>,
    /// The failure is a difference from Kafka's assignor (`assignor-oracle`): replaying it needs
    /// the oracle on.
    pub assignor_oracle: bool,
}

/// Reads a failure file (`regroup sweep --out DIR` or `regroup shrink` wrote it).
pub fn read_failure_file(path: &Path) -> Result<FailureFile, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let v: Value = serde_json::from_str(&text).map_err(|e| format!("{name} is not JSON: {e}"))?;
    let (Some(scenario), Some(seed)) = (v["scenario"].as_str(), v["seed"].as_u64()) else {
        return Err(format!("{name}: the file needs \"scenario\" and \"seed\""));
    };
    let scenario = catalogue::find(scenario)
        .ok_or_else(|| format!("{name}: no scenario named {scenario:?} in this build"))?;
    // A file written before the switches existed has no "kafkaBugs": Kafka 4.4.0.
    let names: Vec<&str> = v["kafkaBugs"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let bugs = KafkaBugs::parse(names).map_err(|e| format!("{name}: {e}"))?;
    let case = match v.get("case") {
        None | Some(Value::Null) => None,
        Some(c) => Some(
            serde_json::from_value(c.clone())
                .map_err(|e| format!("{name}: \"case\" is not a case: {e}"))?,
        ),
    };
    Ok(FailureFile {
        scenario,
        seed,
        bugs,
        case,
        trace_hash: v["traceHash"].as_str().map(str::to_string),
        build: v["build"].as_str().map(str::to_string),
        assignor_oracle: v["violations"].as_array().is_some_and(|vs| {
            vs.iter()
                .any(|v| v["invariant"].as_str() == Some("assignor-oracle"))
        }),
    })
}

#[derive(Debug, Args)]
pub struct ShrinkArgs {
    /// A failure file (written by `regroup sweep --out DIR`, or by an earlier shrink).
    pub file: PathBuf,
    /// Where to write the shrunk failure file (default: FILE with `.shrunk.json` for `.json`).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// At most this many candidate runs.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(1..))]
    pub budget: u64,
    /// Candidates run side by side (default: the machine's cores); the result does not depend on it.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub jobs: Option<u64>,
    /// Print the result as one JSON object.
    #[arg(long)]
    pub json: bool,
}

/// The default output path: `x.json` -> `x.shrunk.json`.
pub fn shrunk_path(file: &Path) -> PathBuf {
    let stem = file
        .file_name()
        .map(|n| n.to_string_lossy().trim_end_matches(".json").to_string())
        .unwrap_or_else(|| "failure".into());
    file.with_file_name(format!("{stem}.shrunk.json"))
}

/// The shrunk failure file: what `regroup replay` needs (the explicit case), what to compare, and
/// how it was shrunk. Nothing in it depends on wall-clock time or on `--jobs`.
pub fn shrunk_file(
    file: &FailureFile,
    shrunk: &Shrunk,
    out: &Path,
    from: &Path,
    budget: usize,
) -> Value {
    let scenario = &file.scenario;
    let before = members_of(&scenario.prepare_case(file.seed, &shrunk.original).spec);
    let after = members_of(&scenario.prepare_case(file.seed, &shrunk.case).spec);
    json!({
        "scenario": scenario.name,
        "seed": file.seed,
        "build": sim::build_info::REVISION,
        "traceHash": shrunk.run.outcome.trace_hash,
        "verdict": shrunk.run.verdict().name(),
        "violations": violations_json(&shrunk.run.violations),
        "swarm": shrunk.case.swarm,
        "kafkaBugs": file.bugs,
        "replay": format!("cargo run --release -- replay {}", out.display()),
        "case": shrunk.case,
        "shrink": {
            "from": from.display().to_string(),
            "fingerprint": shrunk.fingerprint,
            "summary": describe_case(scenario, file.seed, &shrunk.case),
            "before": describe_case(scenario, file.seed, &shrunk.original),
            "faultsBefore": shrunk.original.schedule.len(),
            "faultsAfter": shrunk.case.schedule.len(),
            "processesBefore": before.0,
            "processesAfter": after.0,
            "membersBefore": before.1,
            "membersAfter": after.1,
            "candidates": shrunk.candidates,
            "accepted": shrunk.accepted,
            "budget": budget,
            "budgetSpent": shrunk.budget_spent,
        },
    })
}

/// Shrinks the failure in `path` and writes the result to `out`; returns the file's JSON.
pub fn shrink_file(
    path: &Path,
    out: &Path,
    limits: Limits,
    show_progress: bool,
) -> Result<Value, String> {
    let file = read_failure_file(path)?;
    if file.assignor_oracle {
        crate::assignor_oracle::enable_default()
            .map_err(|e| format!("{}: the assignor oracle: {e}", path.display()))?;
    }
    let case = match &file.case {
        Some(c) => c.clone(),
        None => Case::of(&file.scenario.prepare(file.seed)),
    };
    let bar = show_progress.then(|| progress_bar(limits.budget));
    let result = shrink(
        &file.scenario,
        file.seed,
        case,
        &file.bugs,
        limits,
        bar.as_ref(),
    );
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let shrunk = result.map_err(|e| format!("{}: {e}", path.display()))?;
    let v = shrunk_file(&file, &shrunk, out, path, limits.budget);
    std::fs::write(out, format!("{v:#}\n"))
        .map_err(|e| format!("cannot write {}: {e}", out.display()))?;
    Ok(v)
}

/// `regroup shrink`: exit 0 with the shrunk file written, 2 on a bad file, an argument error, or a
/// file whose run no longer fails (nothing to shrink).
pub fn run(args: &ShrinkArgs) -> i32 {
    let out = args.out.clone().unwrap_or_else(|| shrunk_path(&args.file));
    let limits = Limits {
        budget: args.budget as usize,
        jobs: args
            .jobs
            .map_or_else(crate::sweep::default_threads, |j| j as usize),
    };
    let started = Instant::now();
    match shrink_file(&args.file, &out, limits, !args.json) {
        Ok(v) => {
            let wall = started.elapsed().as_secs_f64();
            if args.json {
                let mut v = v;
                v["shrink"]["wallSeconds"] = json!((wall * 10.0).round() / 10.0);
                println!("{v}");
            } else {
                let s = &v["shrink"];
                println!(
                    "shrunk {} seed {}",
                    v["scenario"].as_str().unwrap_or(""),
                    v["seed"]
                );
                println!("  fails as: {}", s["fingerprint"].as_str().unwrap_or(""));
                println!("  before:   {}", s["before"].as_str().unwrap_or(""));
                println!("  after:    {}", s["summary"].as_str().unwrap_or(""));
                println!(
                    "  faults {} -> {}, processes {} -> {}, members {} -> {}; {} candidates ({} taken){} in {:.1} s",
                    s["faultsBefore"],
                    s["faultsAfter"],
                    s["processesBefore"],
                    s["processesAfter"],
                    s["membersBefore"],
                    s["membersAfter"],
                    s["candidates"],
                    s["accepted"],
                    if s["budgetSpent"] == true {
                        ", budget spent"
                    } else {
                        ""
                    },
                    wall
                );
                println!(
                    "  wrote {} (replay: {})",
                    out.display(),
                    v["replay"].as_str().unwrap_or("")
                );
            }
            0
        }
        Err(e) => {
            eprintln!("regroup shrink: {e}");
            2
        }
    }
}

/// The fingerprint of a failure file's run in this build (`None`: it passes). For tests and sweeps.
pub fn file_fingerprint(path: &Path) -> Result<Option<String>, String> {
    let file = read_failure_file(path)?;
    let run = match &file.case {
        Some(c) => crate::run::run_case(&file.scenario, file.seed, c, false, &file.bugs),
        None => crate::run::run_scenario_with(&file.scenario, file.seed, false, &file.bugs),
    }
    .map_err(|e| e.to_string())?;
    Ok(fingerprint(&run))
}

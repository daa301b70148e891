//! Many runs at once: `regroup sweep`, `regroup replay` and the main job (`regroup` without
//! arguments). One simulation per thread (a simulation is single-threaded and shares nothing
//! with the others); results come back in job order, so tables and files do not depend on
//! scheduling. Wall-clock time is measured here, for the tables only — it never reaches a
//! snapshot, a trace or a decision of the simulation.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use serde_json::{Value, json};

use crate::catalogue::{self, Scenario};
use kafka_bugs::{KafkaBug, KafkaBugs};

use crate::bugs_cli::{bug_set, parse_bug};
use crate::run::{ScenarioRun, Verdict, replay_command, run_scenario_with, violations_json};
use crate::shard::{MergeArgs, Shard, parse_shard};

/// One finished run.
#[derive(Debug, Clone)]
pub struct JobResult {
    pub scenario: &'static str,
    pub seed: u64,
    pub wall_ms: u128,
    /// The run, or why it could not be set up.
    pub run: Result<ScenarioRun, String>,
}

impl JobResult {
    pub fn passed(&self) -> bool {
        self.run.as_ref().is_ok_and(ScenarioRun::passed)
    }

    /// The run's verdict; a setup error is a failure.
    pub fn verdict(&self) -> Verdict {
        match &self.run {
            Ok(r) => r.verdict(),
            Err(_) => Verdict::Failed,
        }
    }

    pub fn sim_ms(&self) -> i64 {
        self.run.as_ref().map(|r| r.outcome.sim_ms).unwrap_or(0)
    }

    /// What went wrong, on one line.
    pub fn failure(&self) -> Option<String> {
        match &self.run {
            Err(e) => Some(format!("setup error: {e}")),
            Ok(r) if !r.passed() => r
                .violations
                .first()
                .map(|v| format!("{} at {} ms: {}", v.invariant.name(), v.at_ms, v.detail)),
            Ok(_) => None,
        }
    }
}

/// Runs every (scenario, seed) on `threads` threads with the Kafka bugs `bugs` switched on,
/// ticking `progress` once per finished run.
pub fn run_jobs(
    jobs: &[(Scenario, u64)],
    threads: usize,
    progress: Option<&ProgressBar>,
    bugs: &KafkaBugs,
) -> Vec<JobResult> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<JobResult>>> = Mutex::new(vec![None; jobs.len()]);
    std::thread::scope(|scope| {
        for _ in 0..threads.clamp(1, jobs.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some((scenario, seed)) = jobs.get(i) else {
                        break;
                    };
                    let started = Instant::now();
                    let run =
                        run_scenario_with(scenario, *seed, false, bugs).map_err(|e| e.to_string());
                    let result = JobResult {
                        scenario: scenario.name,
                        seed: *seed,
                        wall_ms: started.elapsed().as_millis(),
                        run,
                    };
                    if let Some(p) = progress {
                        if result.verdict() == Verdict::Failed {
                            p.println(format!(
                                "FAILED {} seed {}: {}",
                                result.scenario,
                                result.seed,
                                result.failure().unwrap_or_default()
                            ));
                        }
                        p.inc(1);
                    }
                    if let Ok(mut r) = results.lock() {
                        r[i] = Some(result);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn progress_bar(len: usize) -> ProgressBar {
    let bar = ProgressBar::new(len as u64);
    if let Ok(style) = ProgressStyle::with_template(
        "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} runs ({eta} left)",
    ) {
        bar.set_style(style);
    }
    bar
}

/// A run's verdict without its behaviours, as a sweep's JSON records it (`"verdict"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tally {
    Passed,
    Known,
    Failed,
}

impl Tally {
    pub fn of(verdict: &Verdict) -> Tally {
        match verdict {
            Verdict::Passed => Tally::Passed,
            Verdict::Known(_) => Tally::Known,
            Verdict::Failed => Tally::Failed,
        }
    }

    /// Reads back [`Verdict::name`].
    pub fn parse(name: &str) -> Option<Tally> {
        match name {
            "passed" => Some(Tally::Passed),
            "known" => Some(Tally::Known),
            "failed" => Some(Tally::Failed),
            _ => None,
        }
    }

    /// Whether a run with this verdict fails a sweep (`strict`: known behaviours too).
    pub fn fails(self, strict: bool) -> bool {
        match self {
            Tally::Passed => false,
            Tally::Known => strict,
            Tally::Failed => true,
        }
    }
}

/// A documented Kafka behaviour as a sweep reports it (an entry of [`sim::known::KNOWN`], or one read
/// back from a sweep's `knownBehaviours`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KnownDoc {
    pub name: String,
    pub doc: String,
    pub proof: String,
}

impl KnownDoc {
    /// This build's known behaviours.
    pub fn catalogue() -> Vec<KnownDoc> {
        sim::known::KNOWN
            .iter()
            .map(|k| KnownDoc {
                name: k.name.to_string(),
                doc: k.doc.to_string(),
                proof: k.proof.to_string(),
            })
            .collect()
    }
}

/// A finished run as the reports see it. `regroup sweep` makes one of each run; `regroup sweep merge`
/// reads them back from the shards' `--json` objects. Both report through the same functions, so a
/// merged report is the unsharded one.
#[derive(Debug, Clone)]
pub struct RunRecord {
    pub scenario: String,
    pub seed: u64,
    pub tally: Tally,
    /// The known behaviours that fired (a known run), by name.
    pub known: Vec<String>,
    /// What went wrong, on one line ([`JobResult::failure`]).
    pub failure: Option<String>,
    pub sim_ms: i64,
    pub wall_ms: u64,
    /// The run's object in `sweep --json` ([`run_json`]).
    pub json: Value,
}

impl RunRecord {
    /// The record of `result`; with `coverage` its JSON carries the run's `"coverage"`.
    pub fn of(result: &JobResult, coverage: bool) -> RunRecord {
        let verdict = result.verdict();
        RunRecord {
            scenario: result.scenario.to_string(),
            seed: result.seed,
            tally: Tally::of(&verdict),
            known: known_names(&verdict),
            failure: result.failure(),
            sim_ms: result.sim_ms(),
            wall_ms: result.wall_ms as u64,
            json: {
                let mut json = run_json(result);
                if coverage && let Ok(r) = &result.run {
                    json["coverage"] =
                        serde_json::to_value(&r.outcome.coverage).unwrap_or_default();
                }
                json
            },
        }
    }

    /// Reads a run's object of `sweep --json` back.
    pub fn from_json(json: Value) -> Result<RunRecord, String> {
        let field = |name: &str| {
            json.get(name)
                .ok_or_else(|| format!("a run without {name:?}"))
        };
        let scenario = field("scenario")?
            .as_str()
            .ok_or("a run whose \"scenario\" is not a string")?
            .to_string();
        let seed = field("seed")?
            .as_u64()
            .ok_or("a run whose \"seed\" is not a number")?;
        let verdict = field("verdict")?.as_str().unwrap_or_default();
        let tally = Tally::parse(verdict)
            .ok_or_else(|| format!("{scenario} seed {seed}: verdict {verdict:?}"))?;
        let known = field("known")?
            .as_array()
            .and_then(|k| k.iter().map(|n| n.as_str().map(str::to_string)).collect())
            .ok_or_else(|| format!("{scenario} seed {seed}: \"known\" is not a list of names"))?;
        let failure = match field("failure")? {
            Value::Null => None,
            Value::String(f) => Some(f.clone()),
            _ => {
                return Err(format!(
                    "{scenario} seed {seed}: \"failure\" is not a string"
                ));
            }
        };
        let sim_ms = field("simMs")?
            .as_i64()
            .ok_or_else(|| format!("{scenario} seed {seed}: \"simMs\" is not a number"))?;
        let wall_ms = field("wallMs")?
            .as_u64()
            .ok_or_else(|| format!("{scenario} seed {seed}: \"wallMs\" is not a number"))?;
        Ok(RunRecord {
            scenario,
            seed,
            tally,
            known,
            failure,
            sim_ms,
            wall_ms,
            json,
        })
    }
}

fn known_names(verdict: &Verdict) -> Vec<String> {
    match verdict {
        Verdict::Known(k) => k.iter().map(|b| b.name.to_string()).collect(),
        _ => Vec::new(),
    }
}

/// The records of `results`, in their order (with each run's coverage if `coverage`).
pub fn records(results: &[JobResult], coverage: bool) -> Vec<RunRecord> {
    results.iter().map(|r| RunRecord::of(r, coverage)).collect()
}

/// Per scenario: seeds run, passed, known (only documented Kafka behaviours fired), failed,
/// simulated and wall-clock seconds. `strict` marks a scenario with known runs as failed too.
pub fn table(results: &[RunRecord], strict: bool) -> String {
    let mut rows: Vec<(&str, Vec<&RunRecord>)> = Vec::new();
    for r in results {
        match rows.iter_mut().find(|(n, _)| *n == r.scenario) {
            Some((_, v)) => v.push(r),
            None => rows.push((&r.scenario, vec![r])),
        }
    }
    let width = rows.iter().map(|(n, _)| n.len()).max().unwrap_or(8).max(8);
    let mut out = format!(
        "{:<width$}  {:>5}  {:>6}  {:>5}  {:>6}  {:>10}  {:>9}\n",
        "scenario", "seeds", "passed", "known", "failed", "sim time", "wall time"
    );
    let line = |name: &str, runs: &[&RunRecord]| {
        let count = |t: Tally| runs.iter().filter(|r| r.tally == t).count();
        let passed = count(Tally::Passed);
        let known = count(Tally::Known);
        let failed = count(Tally::Failed);
        let s: i64 = runs.iter().map(|r| r.sim_ms).sum();
        let w: u64 = runs.iter().map(|r| r.wall_ms).sum();
        let red = failed > 0 || (strict && known > 0);
        format!(
            "{:<width$}  {:>5}  {:>6}  {:>5}  {:>6}  {:>9.1}s  {:>8.1}s{}\n",
            name,
            runs.len(),
            passed,
            known,
            failed,
            s as f64 / 1000.0,
            w as f64 / 1000.0,
            if red { "  FAILED" } else { "" }
        )
    };
    for (name, runs) in &rows {
        out.push_str(&line(name, runs));
    }
    let all: Vec<&RunRecord> = results.iter().collect();
    out.push_str(&line("total", &all).replace("  FAILED", ""));
    out
}

/// Per known behaviour that fired, in the order they first fired: its name and the (scenario, seed)
/// runs it fired in.
pub fn known_runs(results: &[RunRecord]) -> Vec<(&str, Vec<(&str, u64)>)> {
    let mut out: Vec<(&str, Vec<(&str, u64)>)> = Vec::new();
    for r in results {
        for k in &r.known {
            match out.iter_mut().find(|(name, _)| name == k) {
                Some((_, runs)) => runs.push((&r.scenario, r.seed)),
                None => out.push((k, vec![(&r.scenario, r.seed)])),
            }
        }
    }
    out
}

/// The lines naming each known behaviour (its doc from `docs`) with its runs (empty if none fired).
pub fn known_report(results: &[RunRecord], docs: &[KnownDoc]) -> String {
    let mut out = String::new();
    for (name, runs) in known_runs(results) {
        let doc = docs
            .iter()
            .find(|d| d.name == name)
            .map(|d| d.doc.as_str())
            .unwrap_or("?");
        out.push_str(&format!("known: {name} ({doc}): {} runs\n", runs.len()));
        let mut by_scenario: Vec<(&str, Vec<u64>)> = Vec::new();
        for (scenario, seed) in runs {
            match by_scenario.iter_mut().find(|(s, _)| *s == scenario) {
                Some((_, seeds)) => seeds.push(seed),
                None => by_scenario.push((scenario, vec![seed])),
            }
        }
        for (scenario, seeds) in by_scenario {
            let seeds: Vec<String> = seeds.iter().map(u64::to_string).collect();
            out.push_str(&format!("  {scenario}: seeds {}\n", seeds.join(" ")));
        }
    }
    out
}

/// A sweep's report: the table, the known behaviours, each failed run with its replay command, the
/// failure files.
pub fn report(results: &[RunRecord], strict: bool, docs: &[KnownDoc], files: &[PathBuf]) -> String {
    let mut out = table(results, strict);
    out.push_str(&known_report(results, docs));
    for r in results.iter().filter(|r| r.tally == Tally::Failed) {
        out.push_str(&format!(
            "FAILED {} seed {}: {}\n  replay: {}\n",
            r.scenario,
            r.seed,
            r.failure.as_deref().unwrap_or_default(),
            r.json["replay"].as_str().unwrap_or_default()
        ));
    }
    for f in files {
        out.push_str(&format!(
            "failure file: {} (regroup replay {})\n",
            f.display(),
            f.display()
        ));
    }
    out
}

/// What a sweep covers, at the head of its JSON: the build, the scenarios and seeds (whose product,
/// scenarios first, is the sweep's order of runs), and the shard this process ran (`None`: all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SweepHeader {
    pub build: String,
    pub scenarios: Vec<String>,
    pub seeds: Vec<u64>,
    pub shard: Option<Shard>,
    /// The Kafka bugs every run had switched on.
    pub kafka_bugs: KafkaBugs,
}

impl SweepHeader {
    /// The seeds as `A..=B` (every seed list a sweep takes is a range).
    pub fn seeds_text(&self) -> String {
        match (self.seeds.first(), self.seeds.last()) {
            (Some(a), Some(b)) => format!("{a}..={b}"),
            _ => String::new(),
        }
    }

    /// The number of (scenario, seed) pairs of the whole sweep.
    pub fn pairs(&self) -> usize {
        self.scenarios.len() * self.seeds.len()
    }
}

/// A sweep's `--json` object.
pub fn report_json(
    header: &SweepHeader,
    results: &[RunRecord],
    strict: bool,
    docs: &[KnownDoc],
    files: &[PathBuf],
) -> Value {
    let count = |t: Tally| results.iter().filter(|r| r.tally == t).count();
    json!({
        "build": header.build,
        "scenarios": header.scenarios,
        "seeds": header.seeds_text(),
        "pairs": header.pairs(),
        "shard": header.shard.map(|s| json!({"index": s.index, "count": s.count})),
        "kafkaBugs": header.kafka_bugs,
        "runs": results.iter().map(|r| r.json.clone()).collect::<Vec<_>>(),
        "passed": count(Tally::Passed),
        "known": count(Tally::Known),
        "failed": count(Tally::Failed),
        "strict": strict,
        "knownBehaviours": known_runs(results).iter().map(|(name, runs)| {
            let doc = docs.iter().find(|d| d.name == *name);
            json!({
                "name": name,
                "doc": doc.map(|d| d.doc.as_str()),
                "proof": doc.map(|d| d.proof.as_str()),
                "runs": runs.iter().map(|(s, seed)| json!({"scenario": s, "seed": seed})).collect::<Vec<_>>(),
            })
        }).collect::<Vec<_>>(),
        "failureFiles": files.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
    })
}

/// A sweep's exit code: 1 if a run failed (`strict`: or was known), else 0.
pub fn exit_code(results: &[RunRecord], strict: bool) -> i32 {
    i32::from(results.iter().any(|r| r.tally.fails(strict)))
}

/// The keys of a failure file, in order ([`failure_file`]; a test checks they agree).
const FAILURE_FILE_KEYS: &[&str] = &[
    "scenario",
    "seed",
    "build",
    "traceHash",
    "verdict",
    "violations",
    "swarm",
    "kafkaBugs",
    "replay",
];

/// The failure file of a failed run: everything `regroup replay` needs, and what to compare.
pub fn failure_file(result: &JobResult, bugs: &KafkaBugs) -> Value {
    let (trace, violations, swarm) = match &result.run {
        Ok(r) => (
            json!(r.outcome.trace_hash),
            violations_json(&r.violations),
            r.swarm
                .as_ref()
                .map(|s| serde_json::to_value(s).unwrap_or(Value::Null))
                .unwrap_or(Value::Null),
        ),
        Err(e) => (
            Value::Null,
            json!([{"invariant": "setup", "detail": e}]),
            Value::Null,
        ),
    };
    json!({
        "scenario": result.scenario,
        "seed": result.seed,
        "build": sim::build_info::REVISION,
        "traceHash": trace,
        "verdict": result.verdict().name(),
        "violations": violations,
        "swarm": swarm,
        "kafkaBugs": bugs,
        "replay": replay_command(result.scenario, result.seed, bugs),
    })
}

/// A run's object in `sweep --json`: its failure file, then `passed`, `known` (names), `failure` (on
/// one line, or null), `simMs`, `wallMs`.
pub fn run_json(result: &JobResult) -> Value {
    let none = KafkaBugs::none();
    let bugs = result.run.as_ref().map(|r| &r.bugs).unwrap_or(&none);
    let mut v = failure_file(result, bugs);
    v["passed"] = json!(result.passed());
    v["known"] = json!(known_names(&result.verdict()));
    v["failure"] = json!(result.failure());
    v["simMs"] = json!(result.sim_ms());
    v["wallMs"] = json!(result.wall_ms as u64);
    v
}

/// Writes the failure file of each run that did not pass into `dir` (the failure file's part of the
/// run's `--json` object); returns their paths.
pub fn write_failures(dir: &Path, results: &[RunRecord]) -> std::io::Result<Vec<PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut paths = Vec::new();
    for r in results.iter().filter(|r| r.tally != Tally::Passed) {
        let path = dir.join(format!("{}-seed-{}.json", r.scenario, r.seed));
        let file: serde_json::Map<String, Value> = FAILURE_FILE_KEYS
            .iter()
            .filter_map(|k| Some((k.to_string(), r.json.get(*k)?.clone())))
            .collect();
        std::fs::write(&path, format!("{:#}\n", Value::Object(file)))?;
        paths.push(path);
    }
    Ok(paths)
}

/// Parses `A..B` (B excluded), `A..=B` or `N`.
pub fn parse_seeds(text: &str) -> Option<Vec<u64>> {
    let seed = |t: &str| sim::seed::parse_seed(t.trim());
    if let Some((a, b)) = text.split_once("..=") {
        let (a, b) = (seed(a)?, seed(b)?);
        return (a <= b).then(|| (a..=b).collect());
    }
    if let Some((a, b)) = text.split_once("..") {
        let (a, b) = (seed(a)?, seed(b)?);
        return (a < b).then(|| (a..b).collect());
    }
    seed(text).map(|s| vec![s])
}

pub(crate) fn default_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
}

#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
pub struct SweepArgs {
    #[command(subcommand)]
    pub command: Option<SweepCommand>,
    /// The scenario to sweep (or --all).
    #[arg(required_unless_present = "all", conflicts_with = "all")]
    pub scenario: Option<String>,
    /// Sweep every scenario of the catalogue.
    #[arg(long)]
    pub all: bool,
    /// Seeds: `A..B` (B excluded), `A..=B`, or one seed.
    #[arg(long, required = true)]
    pub seeds: Option<String>,
    /// Simulations at once (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Print one JSON object instead of the table (`regroup sweep merge` reads it).
    #[arg(long)]
    pub json: bool,
    /// Write a failure file per failed seed into DIR (`regroup replay FILE` re-runs it); runs that
    /// hit only a known Kafka behaviour get one too, marked `"verdict": "known"`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Fail on known behaviours of Kafka 4.4.0 too (`sim::known`); by default they are counted apart
    /// and do not fail the sweep.
    #[arg(long)]
    pub strict: bool,
    /// Run only shard K of N (K from 0): the (scenario, seed) pairs whose position in the sweep's
    /// order (scenarios, then seeds) is K modulo N. Wins over JOB_COMPLETION_INDEX.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Run one shard of N, its index K (from 0) taken from JOB_COMPLETION_INDEX (a Kubernetes
    /// Indexed Job sets it).
    #[arg(long, value_name = "N", conflicts_with = "shard", value_parser = clap::value_parser!(u64).range(1..))]
    pub shards: Option<u64>,
    /// Switch a Kafka bug on in every run (repeatable; `regroup bugs` lists them).
    #[arg(long = "kafka-bug", value_name = "NAME", value_parser = parse_bug)]
    pub kafka_bug: Vec<KafkaBug>,
    /// Report the coverage goals each scenario declares (seeds that reached each, first seed, first
    /// time) and the (api, error) and state-transition counters; a declared goal no seed reached
    /// fails the sweep (exit 1). With --json, the object gets a "coverage" member.
    #[arg(long)]
    pub coverage: bool,
    /// Shrink each distinct failure (one per fingerprint: the lowest seed of each) into
    /// DIR/<scenario>-seed-<N>.shrunk.json next to its failure file (needs --out DIR).
    #[arg(long, requires = "out")]
    pub shrink: bool,
    /// The budget of each shrink (candidate runs).
    #[arg(long, default_value_t = 400, requires = "shrink")]
    pub shrink_budget: usize,
    /// Check every streams target assignment the brokers compute against Kafka 4.4.0's own
    /// StickyTaskAssignor (needs Java 17+ and `mvn -f conformance/oracle/pom.xml package`); a
    /// difference fails the run with the invariant `assignor-oracle`.
    #[arg(long)]
    pub assignor_oracle: bool,
}

#[derive(Debug, Subcommand)]
pub enum SweepCommand {
    /// Merge the `--json` results of a sharded sweep into the unsharded sweep's report and exit code
    /// (see docs/distributed-sweeps.md).
    Merge(MergeArgs),
}

/// The environment variable a Kubernetes Indexed Job sets to the pod's completion index.
pub const JOB_COMPLETION_INDEX: &str = "JOB_COMPLETION_INDEX";

/// The shard this sweep runs: `--shard K/N`, else `--shards N` with K from JOB_COMPLETION_INDEX.
fn chosen_shard(args: &SweepArgs) -> Result<Option<Shard>, String> {
    if let Some(shard) = args.shard {
        return Ok(Some(shard));
    }
    let Some(count) = args.shards else {
        return Ok(None);
    };
    match std::env::var(JOB_COMPLETION_INDEX) {
        Ok(index) => parse_shard(&format!("{}/{count}", index.trim()))
            .map(Some)
            .map_err(|e| format!("--shards {count} with {JOB_COMPLETION_INDEX}={index:?}: {e}")),
        Err(_) => Err(format!(
            "--shards {count} takes the shard index from {JOB_COMPLETION_INDEX}, which is not set \
             (or give --shard K/{count})"
        )),
    }
}

/// `regroup sweep`: exit 0 if every seed passed or hit only known Kafka behaviours (`--strict`: every
/// seed passed), 1 otherwise, 2 on usage errors.
pub fn sweep(args: &SweepArgs) -> i32 {
    if let Some(SweepCommand::Merge(merge)) = &args.command {
        return crate::shard::merge(merge);
    }
    let scenarios: Vec<Scenario> = if args.all {
        catalogue::all()
    } else {
        let name = args.scenario.clone().unwrap_or_default();
        match catalogue::find(&name) {
            Some(s) => vec![s],
            None => {
                eprintln!("regroup sweep: no scenario named {name:?} (see `regroup list`)");
                return 2;
            }
        }
    };
    let seeds_text = args.seeds.clone().unwrap_or_default();
    let Some(seeds) = parse_seeds(&seeds_text) else {
        eprintln!("regroup sweep: --seeds {seeds_text:?} is not A..B, A..=B or a seed");
        return 2;
    };
    if args.assignor_oracle
        && let Err(e) = crate::assignor_oracle::enable_default()
    {
        eprintln!("regroup sweep: --assignor-oracle: {e}");
        return 2;
    }
    let shard = match chosen_shard(args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("regroup sweep: {e}");
            return 2;
        }
    };
    let all: Vec<(Scenario, u64)> = scenarios
        .iter()
        .flat_map(|s| seeds.iter().map(move |seed| (*s, *seed)))
        .collect();
    let jobs: Vec<(Scenario, u64)> = match shard {
        Some(shard) => shard.select(&all),
        None => all.clone(),
    };
    let header = SweepHeader {
        build: sim::build_info::REVISION.to_string(),
        scenarios: scenarios.iter().map(|s| s.name.to_string()).collect(),
        seeds,
        shard,
        kafka_bugs: bug_set(&args.kafka_bug),
    };
    let bar = progress_bar(jobs.len());
    let results = run_jobs(
        &jobs,
        args.jobs.unwrap_or_else(default_threads),
        Some(&bar),
        &header.kafka_bugs,
    );
    bar.finish_and_clear();
    let runs = results;
    let results = records(&runs, args.coverage);
    let coverage = if args.coverage {
        match crate::coverage::of(&results) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("regroup sweep: {e}");
                return 2;
            }
        }
    } else {
        None
    };
    let files = match &args.out {
        Some(dir) => match write_failures(dir, &results) {
            Ok(f) => f,
            Err(e) => {
                eprintln!("regroup sweep: cannot write into {}: {e}", dir.display());
                return 2;
            }
        },
        None => Vec::new(),
    };
    let shrunk = match (&args.out, args.shrink) {
        (Some(dir), true) => shrink_failures(
            &runs,
            dir,
            crate::shrink::Limits {
                budget: args.shrink_budget,
                jobs: args.jobs.unwrap_or_else(default_threads),
            },
        ),
        _ => Vec::new(),
    };
    let docs = KnownDoc::catalogue();
    if args.json {
        let mut v = report_json(&header, &results, args.strict, &docs, &files);
        if args.shrink {
            v["shrunk"] = json!(shrunk);
        }
        if let Some(c) = &coverage {
            v["coverage"] = crate::coverage::to_json(c);
        }
        println!("{v}");
    } else {
        if let Some(shard) = shard {
            println!(
                "shard {shard}: {} of the sweep's {} runs",
                results.len(),
                all.len()
            );
        }
        print!("{}", report(&results, args.strict, &docs, &files));
        if let Some(c) = &coverage {
            print!("{}", crate::coverage::report(c));
        }
        for s in &shrunk {
            match s {
                Value::Object(o) if o.contains_key("file") => println!(
                    "shrunk {} seed {}: {} (faults {} -> {}, processes {} -> {}): {}",
                    s["scenario"].as_str().unwrap_or(""),
                    s["seed"],
                    s["summary"].as_str().unwrap_or(""),
                    s["faultsBefore"],
                    s["faultsAfter"],
                    s["processesBefore"],
                    s["processesAfter"],
                    s["file"].as_str().unwrap_or("")
                ),
                _ => println!(
                    "could not shrink {} seed {}: {}",
                    s["scenario"].as_str().unwrap_or(""),
                    s["seed"],
                    s["error"].as_str().unwrap_or("")
                ),
            }
        }
    }
    exit_code(&results, args.strict).max(coverage_exit(coverage.as_ref(), shard))
}

/// Shrinks the lowest-seed failed run of each distinct fingerprint (their failure files are in
/// `dir`); one object per shrink: scenario, seed, the shrunk file and its figures, or the error.
fn shrink_failures(runs: &[JobResult], dir: &Path, limits: crate::shrink::Limits) -> Vec<Value> {
    let mut seen: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for r in runs {
        let Ok(run) = &r.run else { continue };
        if run.verdict() != Verdict::Failed {
            continue;
        }
        let Some(fp) = crate::shrink::fingerprint(run) else {
            continue;
        };
        if seen.contains(&fp) {
            continue;
        }
        seen.push(fp);
        let file = dir.join(format!("{}-seed-{}.json", r.scenario, r.seed));
        let target = crate::shrink_cli::shrunk_path(&file);
        let v = match crate::shrink_cli::shrink_file(&file, &target, limits, false) {
            Ok(v) => {
                let mut s = v["shrink"].clone();
                s["scenario"] = json!(r.scenario);
                s["seed"] = json!(r.seed);
                s["file"] = json!(target.display().to_string());
                s
            }
            Err(e) => json!({"scenario": r.scenario, "seed": r.seed, "error": e}),
        };
        out.push(v);
    }
    out
}

/// 1 if a declared coverage goal was reached by no seed. A shard's goals are judged only once the
/// shards are merged (`sweep merge --coverage`): one shard may miss what another reached.
pub fn coverage_exit(
    coverage: Option<&crate::coverage::SweepCoverage>,
    shard: Option<Shard>,
) -> i32 {
    match (coverage, shard) {
        (Some(c), None) => i32::from(!c.missing().is_empty()),
        _ => 0,
    }
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// A failure file written by `regroup sweep --out DIR`.
    pub file: PathBuf,
    /// Print the run as one JSON object.
    #[arg(long)]
    pub json: bool,
    /// Exit 1 on known behaviours of Kafka 4.4.0 too.
    #[arg(long)]
    pub strict: bool,
    /// Write the run's self-contained HTML timeline to OUT (as `regroup run --html` does).
    #[arg(long, value_name = "OUT")]
    pub html: Option<PathBuf>,
    /// Check the run's streams target assignments against Kafka's assignor (on by itself when
    /// the file's failure is `assignor-oracle`; see `regroup run --assignor-oracle`).
    #[arg(long)]
    pub assignor_oracle: bool,
}

/// `regroup replay FILE`: re-runs the file's scenario and seed and compares the trace hash.
/// Exit 0 if the run passes (or hits only known Kafka behaviours, unless `--strict`), 1 if it fails
/// (the failure reproduced), 2 on a bad file.
pub fn replay(args: &ReplayArgs) -> i32 {
    sim::logging::init();
    let file = match crate::shrink_cli::read_failure_file(&args.file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("regroup replay: {e}");
            return 2;
        }
    };
    let name = file.scenario.name;
    if (args.assignor_oracle || file.assignor_oracle)
        && let Err(e) = crate::assignor_oracle::enable_default()
    {
        eprintln!("regroup replay: the assignor oracle: {e}");
        return 2;
    }
    // A shrunk file carries its case explicitly; any other is drawn again from its seed.
    let keep = args.html.is_some();
    let run = match &file.case {
        Some(case) => crate::run::run_case(&file.scenario, file.seed, case, keep, &file.bugs),
        None => run_scenario_with(&file.scenario, file.seed, keep, &file.bugs),
    };
    let run = match run {
        Ok(mut r) => {
            if file.case.is_some() {
                r.replay_with = Some(format!(
                    "cargo run --release -- replay {}",
                    args.file.display()
                ));
            }
            r
        }
        Err(e) => {
            eprintln!("regroup replay: {name}: setup error: {e}");
            return 2;
        }
    };
    if let Some(path) = &args.html
        && let Err(e) = std::fs::write(path, crate::html::timeline(&run))
    {
        eprintln!("regroup replay: cannot write {}: {e}", path.display());
        return 2;
    }
    if args.json {
        println!("{}", run.to_json());
    } else {
        print!("{}", run.summary());
        match file.trace_hash.as_deref() {
            Some(h) if h == run.outcome.trace_hash => {
                println!("replayed exactly: same trace {h} as the failure file")
            }
            Some(h) => println!(
                "trace differs from the failure file ({h}, build {}); this build is {}",
                file.build.as_deref().unwrap_or("?"),
                sim::build_info::REVISION
            ),
            None => {}
        }
    }
    if run.verdict().fails(args.strict) {
        1
    } else {
        0
    }
}

/// The main job: every scenario of the catalogue at seeds 1..=3, in parallel, then the table.
/// Exit 1 if any run failed.
pub fn main_job() -> i32 {
    let jobs: Vec<(Scenario, u64)> = catalogue::all()
        .into_iter()
        .flat_map(|s| (1..=3).map(move |seed| (s, seed)))
        .collect();
    println!(
        "regroup {}: {} scenarios at seeds 1..=3 on {} threads",
        sim::build_info::VERSION,
        jobs.len() / 3,
        default_threads()
    );
    let bar = progress_bar(jobs.len());
    let results = records(
        &run_jobs(&jobs, default_threads(), Some(&bar), &KafkaBugs::none()),
        false,
    );
    bar.finish_and_clear();
    print!("{}", report(&results, false, &KnownDoc::catalogue(), &[]));
    let failed = results.iter().filter(|r| r.tally == Tally::Failed).count();
    if failed == 0 {
        let known = results.iter().filter(|r| r.tally == Tally::Known).count();
        if known == 0 {
            println!("all {} runs passed", results.len());
        } else {
            println!(
                "{} of {} runs passed, {known} hit only known Kafka behaviours",
                results.len() - known,
                results.len()
            );
        }
        0
    } else {
        println!("{failed} of {} runs failed", results.len());
        1
    }
}

/// `regroup list`: every scenario with its description.
pub fn list() -> String {
    let all = catalogue::all();
    let width = all.iter().map(|s| s.name.len()).max().unwrap_or(8);
    let mut out = String::new();
    for s in &all {
        out.push_str(&format!("{:<width$}  {}\n", s.name, s.description));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges() {
        assert_eq!(parse_seeds("1..4"), Some(vec![1, 2, 3]));
        assert_eq!(parse_seeds("1..=3"), Some(vec![1, 2, 3]));
        assert_eq!(parse_seeds("7"), Some(vec![7]));
        assert_eq!(parse_seeds("0x10..0x12"), Some(vec![16, 17]));
        assert_eq!(parse_seeds("4..4"), None);
        assert_eq!(parse_seeds("a..b"), None);
    }

    #[test]
    fn a_run_reads_back_from_its_json_and_keeps_its_failure_file() {
        let result = JobResult {
            scenario: "cold-start-streams",
            seed: 7,
            wall_ms: 12,
            run: Err("no such topic".into()),
        };
        let file = failure_file(&result, &KafkaBugs::none());
        let keys: Vec<&str> = file
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        assert_eq!(keys, FAILURE_FILE_KEYS);
        let record = RunRecord::from_json(run_json(&result)).unwrap();
        let of = RunRecord::of(&result, false);
        assert_eq!(
            (&record.scenario, record.seed, record.tally, &record.known),
            (&of.scenario, of.seed, of.tally, &of.known)
        );
        assert_eq!((record.sim_ms, record.wall_ms), (of.sim_ms, 12));
        assert_eq!(
            record.failure.as_deref(),
            Some("setup error: no such topic")
        );
        assert_eq!(record.json, of.json);
        let dir = std::env::temp_dir().join(format!("regroup-failure-file-{}", std::process::id()));
        let paths = write_failures(&dir, &[record]).unwrap();
        let written: Value =
            serde_json::from_str(&std::fs::read_to_string(&paths[0]).unwrap()).unwrap();
        assert_eq!(written, file);
        std::fs::remove_dir_all(&dir).unwrap();
        let mut bad = run_json(&result);
        bad["verdict"] = json!("maybe");
        assert!(RunRecord::from_json(bad).is_err());
    }
}

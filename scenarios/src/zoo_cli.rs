//! `regroup zoo [--seeds N] [--json] [--jobs N] [--bug NAME]...`: how the simulator finds each Kafka
//! bug switch (`regroup bugs`), twice.
//!
//! * Targeted: the bug's own catalogue scenario at its default seed, with the switch off (it must
//!   pass) and on (it must fail; the table names what fired first).
//! * Blind: the swarm scenarios that run the bug's group type, which were not written for it, with
//!   the switch on at seeds 1..=N: the first seed that fails and the detection rate. A run counts as
//!   a detection when its verdict is `failed` (a violation that is no documented Kafka 4.4.0
//!   behaviour), the verdict a regression gate acts on.
//!
//! Exit 0 when every bug was caught targeted and blind, 1 when some was not (the table says which
//! and docs/bug-zoo.md why), 2 on usage errors.

use clap::Args;
use kafka_bugs::{BUGS, BugInfo, Group, KafkaBug, KafkaBugs};
use serde_json::{Value, json};

use crate::bugs_cli::parse_bug;
use crate::catalogue::{self, Scenario};
use crate::run::Verdict;
use crate::sweep::{JobResult, progress_bar, run_jobs};

#[derive(Debug, Args)]
pub struct ZooArgs {
    /// Blind seeds per swarm scenario: 1..=N.
    #[arg(long, default_value_t = 200, value_parser = clap::value_parser!(u64).range(1..))]
    pub seeds: u64,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Simulations at once (default: the machine's cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Only these bugs (repeatable; default: every switch).
    #[arg(long = "bug", value_name = "NAME", value_parser = parse_bug)]
    pub bugs: Vec<KafkaBug>,
    /// In the blind runs, check every streams target assignment against Kafka 4.4.0's own
    /// StickyTaskAssignor (`regroup sweep --assignor-oracle`; needs Java and the oracle built).
    /// The targeted runs are judged as always.
    #[arg(long)]
    pub assignor_oracle: bool,
}

/// The swarm scenarios that run groups of `group`'s type.
pub fn blind_scenarios(group: Group) -> &'static [&'static str] {
    match group {
        Group::Streams => &["swarm-streams", "swarm-mixed"],
        Group::Classic => &["swarm-classic-static", "swarm-mixed"],
    }
}

/// How the targeted scenario did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Targeted {
    pub scenario: &'static str,
    pub seed: u64,
    /// The verdict with the switch off (Kafka 4.4.0).
    pub off: &'static str,
    /// The verdict with the switch on.
    pub on: &'static str,
    /// What fired first with the switch on (`invariant: detail`), if anything did.
    pub caught_by: Option<String>,
}

impl Targeted {
    /// Caught: passes off, fails on, on the invariant the bug's entry names.
    pub fn caught(&self, info: &BugInfo) -> bool {
        self.off == "passed"
            && self.on == "failed"
            && self
                .caught_by
                .as_deref()
                .is_some_and(|c| c.split(':').next() == Some(info.caught_by))
    }
}

/// The blind sweep of one swarm scenario with the switch on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blind {
    pub scenario: &'static str,
    pub seeds: u64,
    pub failed: u64,
    pub first_seed: Option<u64>,
    /// What fired first in the first failing run.
    pub first_failure: Option<String>,
}

/// One bug's row.
#[derive(Debug, Clone)]
pub struct ZooRow {
    pub info: &'static BugInfo,
    pub targeted: Targeted,
    pub blind: Vec<Blind>,
}

impl ZooRow {
    pub fn found_blind(&self) -> bool {
        self.blind.iter().any(|b| b.failed > 0)
    }
}

fn first_violation(r: &JobResult) -> Option<String> {
    match &r.run {
        Ok(run) => run
            .violations
            .first()
            .map(|v| format!("{}: {}", v.invariant.name(), v.detail)),
        Err(e) => Some(format!("setup: {e}")),
    }
}

/// Runs the targeted and blind halves for `bugs` on `threads` threads.
pub fn measure(bugs: &[KafkaBug], seeds: u64, threads: usize, quiet: bool) -> Vec<ZooRow> {
    let find = |name: &str| -> Scenario {
        catalogue::find(name).unwrap_or_else(|| panic!("no scenario {name} in the catalogue"))
    };
    let total: u64 = bugs
        .iter()
        .map(|b| 2 + seeds * blind_scenarios(b.info().group).len() as u64)
        .sum();
    let bar = progress_bar(total as usize);
    if quiet {
        bar.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let mut rows = Vec::new();
    for bug in bugs {
        let info = bug.info();
        let on = KafkaBugs::of([*bug]);
        let scenario = find(info.targeted);
        let seed = scenario.default_seed;
        // The bar moves per batch: run_jobs would print every failed run, which here is the point.
        crate::assignor_oracle::set_active(false);
        let off_run = run_jobs(&[(scenario, seed)], 1, None, &KafkaBugs::none());
        let on_run = run_jobs(&[(scenario, seed)], 1, None, &on);
        crate::assignor_oracle::set_active(true);
        bar.inc(2);
        let verdict = |r: &[JobResult]| r.first().map_or("failed", |r| r.verdict().name());
        let targeted = Targeted {
            scenario: info.targeted,
            seed,
            off: verdict(&off_run),
            on: verdict(&on_run),
            caught_by: on_run
                .first()
                .filter(|r| r.verdict() == Verdict::Failed)
                .and_then(first_violation),
        };
        let mut blind = Vec::new();
        for name in blind_scenarios(info.group) {
            let s = find(name);
            let jobs: Vec<(Scenario, u64)> = (1..=seeds).map(|seed| (s, seed)).collect();
            bar.set_message(format!("{} in {name}", info.name));
            let results = run_jobs(&jobs, threads, None, &on);
            bar.inc(jobs.len() as u64);
            let failed: Vec<&JobResult> = results
                .iter()
                .filter(|r| r.verdict() == Verdict::Failed)
                .collect();
            blind.push(Blind {
                scenario: name,
                seeds,
                failed: failed.len() as u64,
                first_seed: failed.first().map(|r| r.seed),
                first_failure: failed.first().and_then(|r| first_violation(r)),
            });
        }
        rows.push(ZooRow {
            info,
            targeted,
            blind,
        });
    }
    bar.finish_and_clear();
    rows
}

/// The table: one line per bug, then the first blind failure of each.
pub fn table(rows: &[ZooRow]) -> String {
    let targeted = |r: &ZooRow| format!("{} (seed {})", r.targeted.scenario, r.targeted.seed);
    let width = rows
        .iter()
        .map(|r| targeted(r).len())
        .max()
        .unwrap_or(0)
        .max("targeted scenario".len());
    let mut out = format!(
        "{:<12}  {:<width$}  {:<20}  {}\n",
        "bug",
        "targeted scenario",
        "caught by",
        "blind: first failing seed (failed/seeds) per swarm scenario"
    );
    for r in rows {
        let caught = if r.targeted.caught(r.info) {
            r.info.caught_by.to_string()
        } else {
            format!(
                "NOT CAUGHT (off {}, on {}{})",
                r.targeted.off,
                r.targeted.on,
                r.targeted
                    .caught_by
                    .as_deref()
                    .map(|c| format!(", {}", c.split(':').next().unwrap_or("")))
                    .unwrap_or_default()
            )
        };
        let blind: Vec<String> = r
            .blind
            .iter()
            .map(|b| {
                format!(
                    "{} {} ({}/{})",
                    b.scenario,
                    b.first_seed.map_or("-".to_string(), |s| s.to_string()),
                    b.failed,
                    b.seeds
                )
            })
            .collect();
        out.push_str(&format!(
            "{:<12}  {:<width$}  {:<20}  {}\n",
            r.info.name,
            targeted(r),
            caught,
            blind.join(", ")
        ));
    }
    for r in rows {
        if let Some(b) = r.blind.iter().find(|b| b.first_seed.is_some()) {
            out.push_str(&format!(
                "{}: blind, first at {} seed {}: {}\n  replay: cargo run --release -- run {} --seed {} --kafka-bug {}{}\n",
                r.info.name,
                b.scenario,
                b.first_seed.unwrap_or_default(),
                b.first_failure.as_deref().unwrap_or(""),
                b.scenario,
                b.first_seed.unwrap_or_default(),
                r.info.name,
                if b.first_failure
                    .as_deref()
                    .is_some_and(|f| f.starts_with("assignor-oracle:"))
                {
                    " --assignor-oracle"
                } else {
                    ""
                }
            ));
        } else {
            out.push_str(&format!(
                "{}: not found blind in {} seeds of {} (docs/bug-zoo.md names the gap)\n",
                r.info.name,
                r.blind.first().map_or(0, |b| b.seeds),
                r.blind
                    .iter()
                    .map(|b| b.scenario)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
    let targeted = rows.iter().filter(|r| r.targeted.caught(r.info)).count();
    let blind = rows.iter().filter(|r| r.found_blind()).count();
    out.push_str(&format!(
        "{} bugs: {targeted} caught by their targeted scenario, {blind} found blind\n",
        rows.len()
    ));
    out
}

pub fn to_json(rows: &[ZooRow], seeds: u64) -> Value {
    json!({
        "build": sim::build_info::REVISION,
        "seeds": seeds,
        "bugs": rows.iter().map(|r| json!({
            "name": r.info.name,
            "ticket": r.info.ticket,
            "targeted": {
                "scenario": r.targeted.scenario,
                "seed": r.targeted.seed,
                "off": r.targeted.off,
                "on": r.targeted.on,
                "caughtBy": r.targeted.caught_by,
                "caught": r.targeted.caught(r.info),
            },
            "blind": r.blind.iter().map(|b| json!({
                "scenario": b.scenario,
                "seeds": b.seeds,
                "failed": b.failed,
                "rate": b.failed as f64 / b.seeds as f64,
                "firstSeed": b.first_seed,
                "firstFailure": b.first_failure,
            })).collect::<Vec<_>>(),
            "foundBlind": r.found_blind(),
        })).collect::<Vec<_>>(),
    })
}

pub fn run(args: &ZooArgs) -> i32 {
    if args.assignor_oracle
        && let Err(e) = crate::assignor_oracle::enable_default()
    {
        eprintln!("regroup zoo: --assignor-oracle: {e}");
        return 2;
    }
    let bugs: Vec<KafkaBug> = if args.bugs.is_empty() {
        BUGS.iter().map(|b| b.bug).collect()
    } else {
        args.bugs.clone()
    };
    let threads = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    });
    let rows = measure(&bugs, args.seeds, threads, args.json);
    if args.json {
        println!("{}", to_json(&rows, args.seeds));
    } else {
        print!("{}", table(&rows));
    }
    let all = rows
        .iter()
        .all(|r| r.targeted.caught(r.info) && r.found_blind());
    i32::from(!all)
}

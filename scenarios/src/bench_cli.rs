//! `regroup bench sim`: how fast the simulator runs the cost workload ([`sim::bench::Workload`]:
//! a streams application on 3 brokers and a controller under swarm faults), in simulated seconds
//! per wall second, for each host layout and tick asked for. Build with `--release`; the figures
//! in docs/cost.md come from this command.
//!
//! The wall clock is read here, in the command, never inside the simulation.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use clap::{Args, Subcommand, ValueEnum};
use serde_json::json;
use sim::bench::{Timings, Workload};

/// `--timings`: which group and client timeouts the application runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum TimingsArg {
    /// The catalogue's: 1 s heartbeats, 10 s sessions, 5 s commits.
    Catalogue,
    /// Apache Kafka 4.4's defaults: 5 s heartbeats, 45 s sessions, 30 s commits.
    Kafka,
}

impl TimingsArg {
    fn timings(self) -> Timings {
        match self {
            TimingsArg::Catalogue => Timings::Catalogue,
            TimingsArg::Kafka => Timings::Kafka,
        }
    }

    fn name(self) -> &'static str {
        match self {
            TimingsArg::Catalogue => "catalogue",
            TimingsArg::Kafka => "kafka",
        }
    }
}

#[derive(Debug, Args)]
pub struct BenchArgs {
    #[command(subcommand)]
    pub target: BenchTarget,
}

#[derive(Debug, Subcommand)]
pub enum BenchTarget {
    /// Simulated seconds per wall second of a streams group under swarm faults.
    Sim(SimBenchArgs),
}

#[derive(Debug, Args)]
pub struct SimBenchArgs {
    /// Host layouts as PROCESSESxTHREADS (repeatable; default 2x10, 20x10, 20x100: 20, 200 and
    /// 2,000 members).
    #[arg(long = "layout", value_name = "PxT")]
    pub layouts: Vec<String>,
    /// Tick lengths in ms (repeatable; default: the cluster default).
    #[arg(long = "tick", value_name = "MS")]
    pub ticks: Vec<u64>,
    /// Simulated seconds per run (at least; the run also waits for convergence).
    #[arg(long, default_value_t = 60)]
    pub sim_secs: u64,
    /// The seed (it draws the swarm faults).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Group and client timings (repeatable; default: kafka, then catalogue).
    #[arg(long = "timings", value_enum, value_name = "T")]
    pub timings: Vec<TimingsArg>,
    /// Run without faults.
    #[arg(long)]
    pub no_faults: bool,
    /// One JSON object per run instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Another `regroup` binary to compare with: after each run it runs the same one (as
    /// `PATH bench sim ... --json`, one run at a time, so the two alternate) and the table gets
    /// its sim/wall and the ratio of the two; the JSON objects get a `baseline` member.
    #[arg(long, value_name = "PATH")]
    pub baseline: Option<PathBuf>,
}

/// What the baseline binary reported for one run.
#[derive(Debug, Clone, PartialEq)]
struct BaselineRun {
    sim_per_wall: f64,
    wall_seconds: f64,
    sim_seconds: f64,
    events: u64,
    passed: bool,
}

/// Runs `binary bench sim` for exactly one run with `--json` and reads its object.
fn run_baseline(
    binary: &Path,
    args: &SimBenchArgs,
    timing: TimingsArg,
    (processes, threads): (usize, usize),
    tick_ms: u64,
) -> Result<BaselineRun, String> {
    let mut cmd = Command::new(binary);
    cmd.args(["bench", "sim", "--json", "--layout"])
        .arg(format!("{processes}x{threads}"))
        .arg("--tick")
        .arg(tick_ms.to_string())
        .arg("--sim-secs")
        .arg(args.sim_secs.to_string())
        .arg("--seed")
        .arg(args.seed.to_string())
        .arg("--timings")
        .arg(timing.name());
    if args.no_faults {
        cmd.arg("--no-faults");
    }
    let out = cmd
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with('{'))
        .ok_or_else(|| {
            format!(
                "{} printed no JSON run (exit {:?}): {}",
                binary.display(),
                out.status.code(),
                String::from_utf8_lossy(&out.stderr).trim()
            )
        })?;
    let v: serde_json::Value =
        serde_json::from_str(line).map_err(|e| format!("bad JSON from the baseline: {e}"))?;
    let f = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
    Ok(BaselineRun {
        sim_per_wall: f("simPerWall").ok_or("the baseline's JSON has no simPerWall")?,
        wall_seconds: f("wallSeconds").unwrap_or(0.0),
        sim_seconds: f("simSeconds").unwrap_or(0.0),
        events: v
            .get("events")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0),
        passed: v
            .get("passed")
            .and_then(serde_json::Value::as_bool)
            .unwrap_or(false),
    })
}

fn times(ratio: f64) -> String {
    if ratio < 10.0 {
        format!("{ratio:.1}x")
    } else {
        format!("{ratio:.0}x")
    }
}

fn parse_layout(text: &str) -> Option<(usize, usize)> {
    let (p, t) = text.split_once(['x', 'X'])?;
    let (p, t) = (p.trim().parse().ok()?, t.trim().parse().ok()?);
    (p > 0 && t > 0).then_some((p, t))
}

pub fn run(args: &BenchArgs) -> i32 {
    match &args.target {
        BenchTarget::Sim(a) => run_sim(a),
    }
}

fn run_sim(args: &SimBenchArgs) -> i32 {
    // RUST_LOG works here as in `regroup run`: a failing bench run is debugged from its log.
    sim::logging::init();
    let layouts = if args.layouts.is_empty() {
        vec!["2x10".to_string(), "20x10".into(), "20x100".into()]
    } else {
        args.layouts.clone()
    };
    let mut parsed = Vec::new();
    for l in &layouts {
        match parse_layout(l) {
            Some(p) => parsed.push(p),
            None => {
                eprintln!("regroup bench sim: --layout {l:?} is not PROCESSESxTHREADS");
                return 2;
            }
        }
    }
    let ticks = if args.ticks.is_empty() {
        vec![sim::spec::ClusterSpec::default().tick_ms]
    } else {
        args.ticks.clone()
    };
    if ticks.contains(&0) || args.sim_secs == 0 {
        eprintln!("regroup bench sim: ticks and --sim-secs must be positive");
        return 2;
    }
    if cfg!(debug_assertions) {
        eprintln!("regroup bench sim: this is a debug build; measure with --release");
    }
    if !args.json {
        print!(
            "{:>9} {:>7} {:>9} {:>6} {:>8} {:>8} {:>9} {:>8} {:>7}",
            "timings",
            "members",
            "layout",
            "tick",
            "sim s",
            "wall s",
            "sim/wall",
            "events",
            "passed"
        );
        if args.baseline.is_some() {
            print!(
                " {:>11} {:>13} {:>7} {:>5}",
                "base wall s", "base sim/wall", "ratio", "same"
            );
        }
        println!();
    }
    let mut failed = false;
    let timings = if args.timings.is_empty() {
        vec![TimingsArg::Kafka, TimingsArg::Catalogue]
    } else {
        args.timings.clone()
    };
    let mut runs = Vec::new();
    for &timing in &timings {
        for &(processes, threads) in &parsed {
            for &tick_ms in &ticks {
                runs.push((timing, processes, threads, tick_ms));
            }
        }
    }
    for (timing, processes, threads, tick_ms) in runs {
        let w = Workload {
            processes,
            threads,
            tick_ms,
            sim_ms: args.sim_secs * 1000,
            faults: !args.no_faults,
            seed: args.seed,
            timings: timing.timings(),
        };
        let (spec, schedule, options) = w.prepare();
        let faults = schedule.windows.len();
        let started = Instant::now();
        let outcome = match sim::runner::run(spec, schedule, &options) {
            Ok(o) => o,
            Err(e) => {
                eprintln!("regroup bench sim: setup error: {e}");
                return 2;
            }
        };
        let wall = started.elapsed().as_secs_f64();
        let sim_s = outcome.sim_ms as f64 / 1000.0;
        let ratio = sim_s / wall.max(1e-9);
        failed |= !outcome.passed;
        let baseline = match &args.baseline {
            Some(path) => match run_baseline(path, args, timing, (processes, threads), tick_ms) {
                Ok(b) => Some(b),
                Err(e) => {
                    eprintln!("regroup bench sim: --baseline: {e}");
                    return 2;
                }
            },
            None => None,
        };
        // The same run: the baseline simulated as long and recorded as many events.
        let same = baseline
            .as_ref()
            .map(|b| b.events == outcome.events && (b.sim_seconds - sim_s).abs() < 1e-9);
        if args.json {
            let mut object = json!({
                    "members": w.members(),
                    "processes": processes,
                    "threads": threads,
                    "tickMs": tick_ms,
                    "timings": timing.name(),
                    "seed": args.seed,
                    "faults": faults,
                    "simSeconds": sim_s,
                    "wallSeconds": wall,
                    "simPerWall": ratio,
                    "events": outcome.events,
                    "passed": outcome.passed,
            });
            if let Some(b) = &baseline {
                object["baseline"] = json!({
                    "simSeconds": b.sim_seconds,
                    "wallSeconds": b.wall_seconds,
                    "simPerWall": b.sim_per_wall,
                    "events": b.events,
                    "passed": b.passed,
                    "ratio": ratio / b.sim_per_wall.max(1e-9),
                    "sameRun": same == Some(true),
                });
            }
            println!("{object}");
        } else {
            print!(
                "{:>9} {:>7} {:>9} {:>4}ms {:>8.1} {:>8.2} {:>9} {:>8} {:>7}",
                timing.name(),
                w.members(),
                format!("{processes}x{threads}"),
                tick_ms,
                sim_s,
                wall,
                times(ratio),
                outcome.events,
                outcome.passed
            );
            if let Some(b) = &baseline {
                print!(
                    " {:>11.2} {:>13} {:>7} {:>5}",
                    b.wall_seconds,
                    times(b.sim_per_wall),
                    format!("{:.2}x", ratio / b.sim_per_wall.max(1e-9)),
                    if same == Some(true) { "yes" } else { "no" }
                );
            }
            println!();
        }
        if let Some(v) = outcome.violations.first() {
            eprintln!(
                "  {} at {} ms: {} (seed {})",
                v.invariant.name(),
                v.at_ms,
                v.detail,
                args.seed
            );
        }
    }
    if failed { 1 } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts_parse() {
        assert_eq!(parse_layout("20x10"), Some((20, 10)));
        assert_eq!(parse_layout("2X5"), Some((2, 5)));
        assert_eq!(parse_layout("0x5"), None);
        assert_eq!(parse_layout("20"), None);
    }
}

//! `regroup run <scenario> [--seed N] [--json] [--trace FILE] [--check-determinism]
//! [--kafka-bug NAME]... [--assignor-oracle]`.
//!
//! Exit codes: 0 passed (or only known behaviours of Kafka 4.4.0 fired, see `sim::known`, unless
//! `--strict`), 1 an invariant (or expectation, or determinism) was violated, 2 usage or setup error.

use std::path::PathBuf;

use clap::Args;

use kafka_bugs::KafkaBug;

use crate::bugs_cli::{bug_set, parse_bug};
use crate::catalogue;
use crate::run::{check_determinism, run_scenario_with};

#[derive(Debug, Args)]
pub struct RunArgs {
    /// The scenario's name (`regroup list` lists them).
    pub scenario: String,
    /// The seed (decimal or 0x-hex); default: the scenario's own.
    #[arg(long)]
    pub seed: Option<String>,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
    /// Write the event log to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// Run the seed twice and compare the trace hashes.
    #[arg(long)]
    pub check_determinism: bool,
    /// Write a self-contained HTML timeline of the run to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,
    /// Fail (exit 1) on known behaviours of Kafka 4.4.0 too.
    #[arg(long)]
    pub strict: bool,
    /// Switch a Kafka bug on (repeatable; `regroup bugs` lists them).
    #[arg(long = "kafka-bug", value_name = "NAME", value_parser = parse_bug)]
    pub kafka_bug: Vec<KafkaBug>,
    /// Check every streams target assignment the brokers compute against Kafka 4.4.0's own
    /// StickyTaskAssignor (needs Java 17+ and `mvn -f conformance/oracle/pom.xml package`); a
    /// difference fails the run with the invariant `assignor-oracle`.
    #[arg(long)]
    pub assignor_oracle: bool,
}

/// The scenario `name` of the catalogue (or a demo) and the seed `--seed` gives (decimal or
/// 0x-hex; default the scenario's own). On an unknown name or a bad seed it prints the reason
/// (and the known names) as `regroup CMD: ...` and gives the exit status 2.
pub fn scenario_and_seed(
    cmd: &str,
    name: &str,
    seed: Option<&str>,
) -> Result<(catalogue::Scenario, u64), i32> {
    let Some(scenario) = catalogue::find(name) else {
        eprintln!("regroup {cmd}: no scenario named {name:?}; known scenarios:");
        for s in catalogue::all().into_iter().chain(catalogue::demos()) {
            eprintln!("  {}", s.name);
        }
        return Err(2);
    };
    let seed = match seed {
        None => scenario.default_seed,
        Some(text) => match sim::seed::parse_seed(text) {
            Some(s) => s,
            None => {
                eprintln!("regroup {cmd}: --seed {text:?} is not a u64 (decimal or 0x-hex)");
                return Err(2);
            }
        },
    };
    Ok((scenario, seed))
}

pub fn run(args: &RunArgs) -> i32 {
    sim::logging::init();
    let (scenario, seed) = match scenario_and_seed("run", &args.scenario, args.seed.as_deref()) {
        Ok(found) => found,
        Err(status) => return status,
    };
    if args.assignor_oracle
        && let Err(e) = crate::assignor_oracle::enable_default()
    {
        eprintln!("regroup run: --assignor-oracle: {e}");
        return 2;
    }
    let keep = args.trace.is_some() || args.html.is_some();
    let bugs = bug_set(&args.kafka_bug);
    let result = if args.check_determinism {
        check_determinism(&scenario, seed, keep, &bugs)
    } else {
        run_scenario_with(&scenario, seed, keep, &bugs)
    };
    let report = match result {
        Ok(r) => r,
        Err(e) => {
            eprintln!("regroup run: {}: setup error: {e}", scenario.name);
            return 2;
        }
    };
    if let Some(path) = &args.trace {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            report.write_trace(&mut w)?;
            std::io::Write::flush(&mut w)
        });
        if let Err(e) = written {
            eprintln!("regroup run: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if let Some(path) = &args.html
        && let Err(e) = std::fs::write(path, crate::html::timeline(&report))
    {
        eprintln!("regroup run: cannot write {}: {e}", path.display());
        return 2;
    }
    if args.json {
        println!("{}", report.to_json());
    } else {
        print!("{}", report.summary());
    }
    if report.verdict().fails(args.strict) {
        1
    } else {
        0
    }
}

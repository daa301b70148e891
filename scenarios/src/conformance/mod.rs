//! `regroup conformance`: the differential oracle. Scripts in the `regroup script` format — generated from
//! seeds by simulated streams members and classic consumers, or taken from a fixed corpus — run through
//! regroup's coordinator and through Apache Kafka 4.4.0's own group coordinator (the Java harness in
//! `conformance/oracle`), and every output line is compared. Random inputs of the streams task assignor are
//! compared the same way against Kafka's StickyTaskAssignor, and random consumer-group inputs against its
//! UniformAssignor and RangeAssignor (`--assignor-groups`).
//!
//! What is normalised, and nothing else (docs/oracle.md): generated classic member ids are
//! named after the JoinGroup line that handed them out ([`ids`]); responses to parked requests completed in
//! the same step are compared in line order ([`compare`]); Kafka's random member order in classic groups
//! is pinned in the oracle to the order regroup documents; Kafka's periodic housekeeping timers are not
//! printed when they write nothing.

pub mod assignor;
pub mod classic_gen;
pub mod compare;
pub mod consumer_gen;
pub mod coverage;
pub mod dice;
pub mod driver;
pub mod expect;
pub mod ids;
pub mod offset_delete;
pub mod oracle;
pub mod regex;
pub mod regroup_side;
pub mod session;
pub mod streams_gen;

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde_json::Value;

use compare::{Divergence, RunOutput, first_divergence};
use coverage::{Coverage, request_apis};
use oracle::Oracle;

/// `offsets.retention.check.interval.ms` of generated scripts: Kafka's group and offset clean-up, which
/// regroup does not implement yet, never runs within a script.
pub const NO_CLEANUP_MS: i64 = 3_600_000_000;

/// Exit status when some output differs.
pub const EXIT_DIVERGENCE: i32 = 1;
/// Exit status for bad arguments or an oracle that cannot run.
pub const EXIT_USAGE: i32 = 2;

/// Which generated scripts to run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Groups {
    Streams,
    Classic,
    /// Consumer groups (KIP-848, ConsumerGroupHeartbeat).
    Consumer,
    /// Every group type: streams, classic and consumer (the default; the name is older than
    /// consumer groups, when there were two).
    Both,
    /// The same as `both`.
    All,
}

/// Which assignors `--assignor N` compares with Kafka's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AssignorGroups {
    /// The streams task assignor (StickyTaskAssignor): N inputs.
    Streams,
    /// The consumer-group assignors (UniformAssignor, RangeAssignor): N inputs each.
    Consumer,
    /// Both of the above.
    Both,
}

/// Which coordinator answers the simulated clients while a script is generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DriverKind {
    /// regroup (in-process); where it answers wrongly, Kafka shows the first line that differs.
    Regroup,
    /// Kafka, through the oracle's interactive mode (the clients then follow Kafka's answers).
    Kafka,
}

/// Arguments of `regroup conformance`.
#[derive(Debug, clap::Args)]
pub struct ConformanceArgs {
    /// Seeds of generated scripts: `A..B` (B excluded) or a single seed `N`.
    #[arg(long)]
    pub seeds: Option<String>,
    /// Which group types the generated scripts drive.
    #[arg(long, value_enum, default_value = "both")]
    pub groups: Groups,
    /// Client actions per generated script.
    #[arg(long, default_value_t = 120)]
    pub steps: usize,
    /// Number of random assignor inputs to compare with Kafka's own assignors (see --assignor-groups).
    #[arg(long, default_value_t = 0)]
    pub assignor: usize,
    /// Which assignors --assignor compares: the streams task assignor, the consumer-group assignors
    /// (uniform and range, N inputs each), or both.
    #[arg(long, value_enum, default_value = "streams")]
    pub assignor_groups: AssignorGroups,
    /// Largest member count of a random assignor input.
    #[arg(long, default_value_t = 200)]
    pub assignor_max_members: usize,
    /// Seed of the random assignor inputs.
    #[arg(long, default_value_t = 4400)]
    pub assignor_seed: u64,
    /// Number of random subscription regexes to compare with RE2J, the engine of Kafka's coordinator
    /// (validity, RE2J's error description, the topic names matched).
    #[arg(long, default_value_t = 0)]
    pub regex: usize,
    /// Seed of the random regexes.
    #[arg(long, default_value_t = 4400)]
    pub regex_seed: u64,
    /// Directory holding the Kafka 4.4.0 jars and their dependencies (default: the oracle's
    /// target/lib, filled by `mvn package`).
    #[arg(long)]
    pub kafka_jar_dir: Option<PathBuf>,
    /// Command that runs a main class of the oracle; the class name and its arguments are appended,
    /// e.g. "java -cp conformance/oracle/target/classes:conformance/oracle/target/lib/*".
    #[arg(long, conflicts_with = "kafka_jar_dir")]
    pub oracle_cmd: Option<String>,
    /// The oracle's Maven project (default: conformance/oracle of this checkout).
    #[arg(long)]
    pub oracle_dir: Option<PathBuf>,
    /// Also run the fixed corpus: every `*.jsonl` directly in DIR.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// Keep every script and both outputs in DIR (otherwise they are kept only when something differs).
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// Which coordinator answers the simulated clients while scripts are generated.
    #[arg(long, value_enum, default_value = "regroup")]
    pub driver: DriverKind,
    /// How many divergences to print in full.
    #[arg(long, default_value_t = 3)]
    pub show: usize,
}

/// Parses `A..B` or `N`.
pub fn parse_seeds(text: &str) -> Result<std::ops::Range<u64>, String> {
    let bad = || format!("--seeds: expected A..B or N, found {text:?}");
    match text.split_once("..") {
        Some((a, b)) => {
            let a: u64 = a.trim().parse().map_err(|_| bad())?;
            let b: u64 = b.trim().parse().map_err(|_| bad())?;
            if b < a {
                return Err(bad());
            }
            Ok(a..b)
        }
        None => {
            let n: u64 = text.trim().parse().map_err(|_| bad())?;
            Ok(n..n + 1)
        }
    }
}

/// One script to compare.
#[derive(Debug, Clone)]
struct Case {
    /// `streams-17`, `classic-17`, or the corpus file name without extension.
    name: String,
    /// Group ids whose timer keys the coverage strips.
    groups: Vec<&'static str>,
    seed: Option<u64>,
    lines: Vec<String>,
    script: PathBuf,
    /// Generation stopped early (the driver rejected a line).
    note: Option<String>,
}

fn write_lines(path: &Path, lines: &[String]) -> Result<(), String> {
    let mut text = lines.join("\n");
    text.push('\n');
    std::fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn render(v: &Option<Value>) -> String {
    v.as_ref()
        .map(Value::to_string)
        .unwrap_or_else(|| "(nothing)".into())
}

fn work_dir(keep: Option<&Path>) -> Result<(PathBuf, bool), String> {
    match keep {
        Some(dir) => {
            std::fs::create_dir_all(dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            Ok((dir.to_path_buf(), true))
        }
        None => {
            let dir =
                std::env::temp_dir().join(format!("regroup-conformance-{}", std::process::id()));
            std::fs::create_dir_all(&dir)
                .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
            Ok((dir, false))
        }
    }
}

fn generate_case(
    kind: &str,
    seed: u64,
    args: &ConformanceArgs,
    oracle: &Oracle,
    dir: &Path,
) -> Result<Case, String> {
    let mut driver: Box<dyn driver::Driver> = match args.driver {
        DriverKind::Regroup => Box::new(regroup_side::RegroupDriver::new()),
        DriverKind::Kafka => Box::new(oracle.interactive()?),
    };
    let (lines, result, groups) = match kind {
        "streams" => {
            let (l, r) = streams_gen::generate(seed, args.steps, driver.as_mut());
            (l, r, vec![streams_gen::GROUP])
        }
        "consumer" => {
            let (l, r) = consumer_gen::generate(seed, args.steps, driver.as_mut());
            (l, r, vec![consumer_gen::GROUP])
        }
        _ => {
            let (l, r) = classic_gen::generate(seed, args.steps, driver.as_mut());
            (l, r, vec![classic_gen::GROUP])
        }
    };
    let name = format!("{kind}-{seed}");
    let script = dir.join(format!("{name}.jsonl"));
    write_lines(&script, &lines)?;
    Ok(Case {
        name,
        groups,
        seed: Some(seed),
        lines,
        script,
        note: result.err(),
    })
}

fn corpus_cases(dir: &Path, work: &Path) -> Result<Vec<Case>, String> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    let mut cases = Vec::new();
    for f in files {
        let text =
            std::fs::read_to_string(&f).map_err(|e| format!("cannot read {}: {e}", f.display()))?;
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_default();
        let lines: Vec<String> = text.lines().map(str::to_string).collect();
        let script = work.join(format!("corpus-{name}.jsonl"));
        write_lines(&script, &lines)?;
        cases.push(Case {
            name: format!("corpus/{name}"),
            groups: vec![streams_gen::GROUP, classic_gen::GROUP, "g", "group"],
            seed: None,
            lines,
            script,
            note: None,
        });
    }
    if cases.is_empty() {
        return Err(format!("no *.jsonl scripts in {}", dir.display()));
    }
    Ok(cases)
}

/// Runs the command; returns the process exit status.
pub fn run(args: &ConformanceArgs) -> i32 {
    match run_inner(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("regroup conformance: {e}");
            EXIT_USAGE
        }
    }
}

fn run_inner(args: &ConformanceArgs) -> Result<i32, String> {
    let started = Instant::now();
    let oracle = match (&args.oracle_cmd, &args.kafka_jar_dir) {
        (Some(cmd), _) => Oracle::from_command(cmd)?,
        (None, jars) => {
            let dir = args
                .oracle_dir
                .clone()
                .unwrap_or_else(oracle::default_oracle_dir);
            Oracle::from_build(&dir, jars.as_deref())?
        }
    };
    let seeds = args.seeds.as_deref().map(parse_seeds).transpose()?;
    if seeds.is_none() && args.corpus.is_none() && args.assignor == 0 && args.regex == 0 {
        return Err("nothing to run: give --seeds, --corpus, --assignor and/or --regex".into());
    }
    let (dir, keep) = work_dir(args.keep.as_deref())?;
    let result = compare_in(args, &oracle, seeds, &dir, keep, started);
    if result.is_err() && !keep {
        // Nothing to look at: the oracle or the input failed before any comparison.
        let _ = std::fs::remove_dir_all(&dir);
    }
    result
}

fn compare_in(
    args: &ConformanceArgs,
    oracle: &Oracle,
    seeds: Option<std::ops::Range<u64>>,
    dir: &Path,
    keep: bool,
    started: Instant,
) -> Result<i32, String> {
    let mut cases = Vec::new();
    if let Some(corpus) = &args.corpus {
        cases.extend(corpus_cases(corpus, dir)?);
    }
    let gen_started = Instant::now();
    if let Some(seeds) = seeds.clone() {
        let kinds: &[&str] = match args.groups {
            Groups::Streams => &["streams"],
            Groups::Classic => &["classic"],
            Groups::Consumer => &["consumer"],
            Groups::Both | Groups::All => &["streams", "classic", "consumer"],
        };
        for seed in seeds {
            for kind in kinds {
                cases.push(generate_case(kind, seed, args, oracle, dir)?);
            }
        }
    }
    let gen_ms = gen_started.elapsed().as_millis();

    // regroup's outputs, then Kafka's (all scripts in one JVM).
    let regroup_started = Instant::now();
    let mut regroup_outputs = Vec::new();
    for c in &cases {
        let text = regroup_side::run_text(&c.lines.join("\n"));
        std::fs::write(c.script.with_extension("regroup.out"), &text)
            .map_err(|e| format!("cannot write output: {e}"))?;
        regroup_outputs.push(RunOutput::parse(&text)?);
    }
    let regroup_ms = regroup_started.elapsed().as_millis();
    let kafka_started = Instant::now();
    let pairs: Vec<(PathBuf, PathBuf)> = cases
        .iter()
        .map(|c| (c.script.clone(), c.script.with_extension("kafka.out")))
        .collect();
    if !pairs.is_empty() {
        oracle.run_scripts(&pairs, &dir.join("scripts.list"))?;
    }
    let kafka_ms = kafka_started.elapsed().as_millis();

    let mut coverage_streams = Coverage::default();
    let mut coverage_classic = Coverage::default();
    let mut coverage_consumer = Coverage::default();
    let mut coverage_corpus = Coverage::default();
    let mut divergent: Vec<(&Case, Divergence)> = Vec::new();
    // Expectations a script states about its responses, not met by a runner: (script, runner, what).
    let mut unmet: Vec<(&Case, &str, String)> = Vec::new();
    let mut expectations_checked = 0;
    let mut truncated = 0;
    for (c, ours) in cases.iter().zip(&regroup_outputs) {
        let kafka_path = c.script.with_extension("kafka.out");
        let text = std::fs::read_to_string(&kafka_path)
            .map_err(|e| format!("cannot read {}: {e}", kafka_path.display()))?;
        let kafka = RunOutput::parse(&text)?;
        let apis = request_apis(&c.lines);
        let target = if c.seed.is_none() {
            &mut coverage_corpus
        } else if c.name.starts_with("streams") {
            &mut coverage_streams
        } else if c.name.starts_with("consumer") {
            &mut coverage_consumer
        } else {
            &mut coverage_classic
        };
        target.add(&apis, &kafka.lines, &c.groups);
        if c.note.is_some() {
            truncated += 1;
        }
        if let Some(d) = first_divergence(ours, &kafka) {
            divergent.push((c, d));
        }
        let expectations = expect::of_script(&c.lines).map_err(|e| format!("{}: {e}", c.name))?;
        expectations_checked += expectations.len();
        for (runner, output) in [("regroup", ours), ("Kafka", &kafka)] {
            for why in expect::check(&expectations, output) {
                unmet.push((c, runner, why));
            }
        }
    }

    let mut assignor_report = None;
    let mut consumer_assignor_report = None;
    if args.assignor > 0 {
        if args.assignor_groups != AssignorGroups::Consumer {
            assignor_report = Some(assignor::compare(
                oracle,
                args.assignor,
                args.assignor_seed,
                args.assignor_max_members,
                dir,
            )?);
        }
        if args.assignor_groups != AssignorGroups::Streams {
            consumer_assignor_report = Some(assignor::compare_consumer(
                oracle,
                args.assignor,
                args.assignor_seed,
                args.assignor_max_members,
                dir,
            )?);
        }
    }

    let regex_report = if args.regex > 0 {
        Some(regex::compare(oracle, args.regex, args.regex_seed, dir)?)
    } else {
        None
    };

    // Report.
    for (c, d) in divergent.iter().take(args.show) {
        println!("--- DIVERGENCE in {} ({})", c.name, c.script.display());
        if let Some(seed) = c.seed {
            println!(
                "    seed {seed}: regroup conformance --seeds {seed} --groups {} --keep DIR",
                if c.name.starts_with("streams") {
                    "streams"
                } else if c.name.starts_with("consumer") {
                    "consumer"
                } else {
                    "classic"
                }
            );
        }
        if let Some(l) = d.script_line {
            println!(
                "    script line {l}: {}",
                c.lines.get(l - 1).map(String::as_str).unwrap_or("?")
            );
        }
        println!("    output line {}: {}", d.index + 1, d.what);
        println!("    regroup: {}", render(&d.regroup));
        println!("    kafka:   {}", render(&d.kafka));
    }
    if divergent.len() > args.show {
        println!(
            "--- and {} more divergent scripts:",
            divergent.len() - args.show
        );
        for (c, d) in divergent.iter().skip(args.show) {
            println!("    {} line {:?}: {}", c.name, d.script_line, d.what);
        }
    }
    for (c, runner, why) in &unmet {
        println!(
            "--- EXPECTATION NOT MET by {runner} in {} ({}): {why}",
            c.name,
            c.script.display()
        );
    }
    let streams_n = cases
        .iter()
        .filter(|c| c.name.starts_with("streams"))
        .count();
    let classic_n = cases
        .iter()
        .filter(|c| c.name.starts_with("classic"))
        .count();
    let consumer_n = cases
        .iter()
        .filter(|c| c.name.starts_with("consumer"))
        .count();
    let consumer = if consumer_n > 0 {
        format!(", {consumer_n} consumer")
    } else {
        String::new()
    };
    let corpus_n = cases.iter().filter(|c| c.seed.is_none()).count();
    println!(
        "conformance: {} scripts ({corpus_n} corpus, {streams_n} streams, {classic_n} classic{consumer}), {} divergent; {} generated scripts stopped early",
        cases.len(),
        divergent.len(),
        truncated
    );
    println!(
        "expectations: {expectations_checked} checked against both coordinators, {} not met",
        unmet.len()
    );
    println!(
        "timing: generation {gen_ms} ms, regroup {regroup_ms} ms, Kafka {kafka_ms} ms, total {} ms",
        started.elapsed().as_millis()
    );
    if corpus_n > 0 {
        print!("corpus {}", coverage_corpus.report());
    }
    if streams_n > 0 {
        print!("streams {}", coverage_streams.report());
    }
    if classic_n > 0 {
        print!("classic {}", coverage_classic.report());
    }
    if consumer_n > 0 {
        print!("consumer {}", coverage_consumer.report());
    }
    let mut failed = !divergent.is_empty() || !unmet.is_empty();
    if let Some(r) = &assignor_report {
        println!("{}", r.summary());
        failed |= r.differences > 0;
    }
    if let Some(r) = &consumer_assignor_report {
        println!("{}", r.summary());
        failed |= r.differences() > 0;
    }
    if let Some(r) = &regex_report {
        println!("{}", r.summary());
        failed |= r.differences > 0;
    }
    if failed || keep {
        println!("scripts and outputs: {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(dir);
    }
    Ok(if failed { EXIT_DIVERGENCE } else { 0 })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seed_ranges_parse() {
        assert_eq!(parse_seeds("3..7"), Ok(3..7));
        assert_eq!(parse_seeds("5"), Ok(5..6));
        assert!(parse_seeds("7..3").is_err());
        assert!(parse_seeds("x").is_err());
    }
}

//! Sweeps beyond one machine: `regroup sweep ... --shard K/N` runs one shard of a sweep, and
//! `regroup sweep merge RESULT...` puts the shards' `--json` results back together into the report
//! and exit code of the unsharded sweep (docs/distributed-sweeps.md).
//!
//! The partition is fixed by the sweep alone: the (scenario, seed) pair at position `i` of the
//! sweep's order (scenarios, then seeds, as the unsharded sweep runs them) belongs to shard `i mod N`.
//! Shards are 0-based (a Kubernetes Indexed Job's `JOB_COMPLETION_INDEX` is), differ in size by at
//! most one run, mix every scenario, and do not depend on `--jobs` or on the machine.

use std::fmt;
use std::path::PathBuf;

use clap::Args;
use kafka_bugs::KafkaBugs;
use serde_json::Value;

use crate::sweep::{
    KnownDoc, RunRecord, SweepHeader, coverage_exit, exit_code, parse_seeds, report, report_json,
    write_failures,
};

/// Shard `index` of `count` (0 <= index < count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Whether the pair at `position` of the sweep's order is this shard's.
    pub fn owns(self, position: usize) -> bool {
        position as u64 % self.count == self.index
    }

    /// This shard's items of `all` (the whole sweep, in its order).
    pub fn select<T: Clone>(self, all: &[T]) -> Vec<T> {
        all.iter()
            .enumerate()
            .filter(|(i, _)| self.owns(*i))
            .map(|(_, t)| t.clone())
            .collect()
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// Parses `K/N`: shard K (from 0) of N.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let Some((k, n)) = text.split_once('/') else {
        return Err(format!("{text:?} is not K/N (shard K, from 0, of N)"));
    };
    let number = |t: &str, what: &str| {
        t.trim()
            .parse::<u64>()
            .map_err(|_| format!("{what} {t:?} of {text:?} is not a number"))
    };
    let (index, count) = (number(k, "the shard index")?, number(n, "the shard count")?);
    if count == 0 {
        return Err(format!("{text:?}: the shard count must be at least 1"));
    }
    if index >= count {
        return Err(format!(
            "{text:?}: shard indexes run from 0 to {} (K is 0-based, like JOB_COMPLETION_INDEX)",
            count - 1
        ));
    }
    Ok(Shard { index, count })
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The `regroup sweep --json` output of each shard (one JSON object per file).
    #[arg(required = true, value_name = "RESULT")]
    pub results: Vec<PathBuf>,
    /// Print the merged sweep as one JSON object (the unsharded sweep's `--json`).
    #[arg(long)]
    pub json: bool,
    /// Write the failure file of each run that did not pass into DIR, from the shards' results (the
    /// files an unsharded `regroup sweep --out DIR` writes).
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Fail on known behaviours of Kafka 4.4.0 too (also on when the shards ran with --strict).
    #[arg(long)]
    pub strict: bool,
    /// Report the merged sweep's coverage goals and counters, and fail on a declared goal no seed
    /// reached (the shards must have run with --coverage).
    #[arg(long)]
    pub coverage: bool,
}

/// One shard's result file.
#[derive(Debug)]
struct ShardResult {
    path: PathBuf,
    header: SweepHeader,
    strict: bool,
    runs: Vec<RunRecord>,
    docs: Vec<KnownDoc>,
}

fn read_result(path: &PathBuf) -> Result<ShardResult, String> {
    let name = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {name}: {e}"))?;
    let v: Value =
        serde_json::from_str(&text).map_err(|e| format!("{name} is not one JSON object: {e}"))?;
    let not_ours = |what: &str| {
        format!(
            "{name} is not the --json output of a `regroup sweep` that records its shard ({what}); \
             run the shards with this version of regroup"
        )
    };
    let build = v["build"]
        .as_str()
        .ok_or_else(|| not_ours("no \"build\""))?;
    let scenarios: Vec<String> = v["scenarios"]
        .as_array()
        .and_then(|a| a.iter().map(|s| s.as_str().map(str::to_string)).collect())
        .ok_or_else(|| not_ours("no \"scenarios\""))?;
    let seeds_text = v["seeds"]
        .as_str()
        .ok_or_else(|| not_ours("no \"seeds\""))?;
    let seeds = parse_seeds(seeds_text).ok_or_else(|| not_ours("bad \"seeds\""))?;
    let shard = match &v["shard"] {
        Value::Null if v.get("shard").is_some() => Shard { index: 0, count: 1 },
        s => {
            let (Some(index), Some(count)) = (s["index"].as_u64(), s["count"].as_u64()) else {
                return Err(not_ours("no \"shard\""));
            };
            parse_shard(&format!("{index}/{count}")).map_err(|e| format!("{name}: shard {e}"))?
        }
    };
    // A sweep of an older build has no "kafkaBugs": none were switched on.
    let bug_names: Vec<&str> = v["kafkaBugs"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let kafka_bugs = KafkaBugs::parse(bug_names).map_err(|e| format!("{name}: {e}"))?;
    let strict = v["strict"]
        .as_bool()
        .ok_or_else(|| not_ours("no \"strict\""))?;
    let runs = v["runs"]
        .as_array()
        .ok_or_else(|| not_ours("no \"runs\""))?
        .iter()
        .map(|r| RunRecord::from_json(r.clone()).map_err(|e| format!("{name}: {e}")))
        .collect::<Result<Vec<_>, _>>()?;
    let docs = v["knownBehaviours"]
        .as_array()
        .ok_or_else(|| not_ours("no \"knownBehaviours\""))?
        .iter()
        .map(|k| KnownDoc {
            name: k["name"].as_str().unwrap_or_default().to_string(),
            doc: k["doc"].as_str().unwrap_or_default().to_string(),
            proof: k["proof"].as_str().unwrap_or_default().to_string(),
        })
        .collect();
    Ok(ShardResult {
        path: path.clone(),
        header: SweepHeader {
            build: build.to_string(),
            scenarios,
            seeds,
            shard: Some(shard),
            kafka_bugs,
        },
        strict,
        runs,
        docs,
    })
}

/// `a`, `a..=b` runs of consecutive numbers: `0, 2..=5`.
pub(crate) fn ranges(numbers: &[u64]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < numbers.len() {
        let mut j = i;
        while j + 1 < numbers.len() && numbers[j + 1] == numbers[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            numbers[i].to_string()
        } else {
            format!("{}..={}", numbers[i], numbers[j])
        });
        i = j + 1;
    }
    parts.join(", ")
}

/// The merged sweep: its header (no shard), its runs in the unsharded order, whether any shard was
/// strict, and the known behaviours' docs.
#[derive(Debug)]
pub struct Merged {
    pub header: SweepHeader,
    pub runs: Vec<RunRecord>,
    pub strict: bool,
    pub docs: Vec<KnownDoc>,
}

/// Reads the shards' results and checks that they are every shard of one sweep of one build, each
/// once, with all of its runs and nothing else.
pub fn merge_results(paths: &[PathBuf]) -> Result<Merged, String> {
    let shards = paths
        .iter()
        .map(read_result)
        .collect::<Result<Vec<_>, _>>()?;
    let Some(first) = shards.first() else {
        return Err("no results to merge".into());
    };
    let count = first.header.shard.map_or(1, |s| s.count);
    for s in &shards[1..] {
        let (a, b) = (first.path.display(), s.path.display());
        if s.header.build != first.header.build {
            return Err(format!(
                "shards of different builds: {a} is build {}, {b} is build {}; run every shard \
                 with the same binary",
                first.header.build, s.header.build
            ));
        }
        if s.header.scenarios != first.header.scenarios {
            return Err(format!(
                "{a} and {b} are shards of different sweeps: scenarios {} and {}",
                first.header.scenarios.join(","),
                s.header.scenarios.join(",")
            ));
        }
        if s.header.seeds != first.header.seeds {
            return Err(format!(
                "{a} and {b} are shards of different sweeps: seeds {} and {}",
                first.header.seeds_text(),
                s.header.seeds_text()
            ));
        }
        if s.header.kafka_bugs != first.header.kafka_bugs {
            return Err(format!(
                "{a} and {b} are shards of different sweeps: Kafka bugs {} and {}",
                first.header.kafka_bugs, s.header.kafka_bugs
            ));
        }
        let other = s.header.shard.map_or(1, |s| s.count);
        if other != count {
            return Err(format!(
                "{a} and {b} are shards of different partitions: {count} shards and {other} shards"
            ));
        }
    }
    let mut by_index: Vec<Option<&ShardResult>> = vec![None; count as usize];
    for s in &shards {
        let shard = s.header.shard.unwrap_or(Shard { index: 0, count: 1 });
        if let Some(earlier) = by_index[shard.index as usize] {
            return Err(format!(
                "overlapping shards: {} and {} are both shard {shard}",
                earlier.path.display(),
                s.path.display()
            ));
        }
        by_index[shard.index as usize] = Some(s);
    }
    let missing: Vec<u64> = (0..count)
        .filter(|i| by_index[*i as usize].is_none())
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "missing shards: {} (of shards 0..={}; {} of {count} given)",
            ranges(&missing),
            count - 1,
            count as usize - missing.len()
        ));
    }

    // Every run at its position in the unsharded order, each once, each in its own shard.
    let seeds = &first.header.seeds;
    let position = |scenario: &str, seed: u64| {
        let s = first.header.scenarios.iter().position(|n| n == scenario)?;
        let k = seeds.binary_search(&seed).ok()?;
        Some(s * seeds.len() + k)
    };
    let mut slots: Vec<Option<(RunRecord, &PathBuf)>> = vec![None; first.header.pairs()];
    for s in &shards {
        let shard = s.header.shard.unwrap_or(Shard { index: 0, count: 1 });
        let name = s.path.display();
        for r in &s.runs {
            let Some(i) = position(&r.scenario, r.seed) else {
                return Err(format!(
                    "{name}: {} seed {} is not in the sweep ({} at seeds {})",
                    r.scenario,
                    r.seed,
                    first.header.scenarios.join(","),
                    first.header.seeds_text()
                ));
            };
            if !shard.owns(i) {
                return Err(format!(
                    "{name}: {} seed {} belongs to shard {}/{count}, not {shard}",
                    r.scenario,
                    r.seed,
                    i as u64 % count
                ));
            }
            if r.json["build"].as_str() != Some(first.header.build.as_str()) {
                return Err(format!(
                    "shards of different builds: {name} has {} seed {} of build {}",
                    r.scenario, r.seed, r.json["build"]
                ));
            }
            if let Some((_, earlier)) = &slots[i] {
                return Err(format!(
                    "overlapping shards: {} seed {} is in {} and in {name}",
                    r.scenario,
                    r.seed,
                    earlier.display()
                ));
            }
            slots[i] = Some((r.clone(), &s.path));
        }
    }
    let mut runs = Vec::with_capacity(slots.len());
    for (i, slot) in slots.into_iter().enumerate() {
        let Some((run, _)) = slot else {
            let shard = i as u64 % count;
            let path = by_index[shard as usize].map(|s| s.path.display().to_string());
            return Err(format!(
                "{} (shard {shard}/{count}) lacks {} seed {}: an interrupted shard? run it again",
                path.unwrap_or_default(),
                first.header.scenarios[i / seeds.len()],
                seeds[i % seeds.len()]
            ));
        };
        runs.push(run);
    }

    let mut docs: Vec<KnownDoc> = Vec::new();
    for d in shards.iter().flat_map(|s| &s.docs) {
        if !docs.iter().any(|k| k.name == d.name) {
            docs.push(d.clone());
        }
    }
    for r in &runs {
        if let Some(name) = r.known.iter().find(|n| !docs.iter().any(|d| &d.name == *n)) {
            return Err(format!(
                "{} seed {} names the known behaviour {name:?}, which no shard describes",
                r.scenario, r.seed
            ));
        }
    }
    Ok(Merged {
        header: SweepHeader {
            shard: None,
            ..first.header.clone()
        },
        runs,
        strict: shards.iter().any(|s| s.strict),
        docs,
    })
}

/// `regroup sweep merge RESULT...`: the unsharded sweep's table (or `--json`), known report, failed
/// runs and exit code (0, or 1 if a run failed; `--strict` or shards run with it: or was known); exit
/// 2 if the results are not every shard of one sweep exactly once.
pub fn merge(args: &MergeArgs) -> i32 {
    let merged = match merge_results(&args.results) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("regroup sweep merge: {e}");
            return 2;
        }
    };
    let strict = args.strict || merged.strict;
    let coverage = if args.coverage {
        match crate::coverage::of(&merged.runs) {
            Ok(c) => Some(c),
            Err(e) => {
                eprintln!("regroup sweep merge: {e}");
                return 2;
            }
        }
    } else {
        None
    };
    let files = match &args.out {
        Some(dir) => match write_failures(dir, &merged.runs) {
            Ok(f) => f,
            Err(e) => {
                eprintln!(
                    "regroup sweep merge: cannot write into {}: {e}",
                    dir.display()
                );
                return 2;
            }
        },
        None => Vec::new(),
    };
    if args.json {
        let mut v = report_json(&merged.header, &merged.runs, strict, &merged.docs, &files);
        if let Some(c) = &coverage {
            v["coverage"] = crate::coverage::to_json(c);
        }
        println!("{v}");
    } else {
        print!("{}", report(&merged.runs, strict, &merged.docs, &files));
        if let Some(c) = &coverage {
            print!("{}", crate::coverage::report(c));
        }
    }
    exit_code(&merged.runs, strict).max(coverage_exit(coverage.as_ref(), None))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_from_zero_and_refuse_what_is_not_a_shard() {
        assert_eq!(parse_shard("0/3"), Ok(Shard { index: 0, count: 3 }));
        assert_eq!(parse_shard("2/3"), Ok(Shard { index: 2, count: 3 }));
        assert_eq!(parse_shard("0/1"), Ok(Shard { index: 0, count: 1 }));
        for bad in ["3/3", "1/0", "0/0", "3", "a/3", "1/b", "-1/3", "", "1/2/3"] {
            assert!(parse_shard(bad).is_err(), "{bad}");
        }
        assert!(parse_shard("3/3").unwrap_err().contains("from 0 to 2"));
    }

    #[test]
    fn the_partition_covers_every_pair_once_balanced_and_interleaved() {
        for count in 1..=7u64 {
            for len in [0usize, 1, 5, 6, 7, 20, 101] {
                let all: Vec<usize> = (0..len).collect();
                let shards: Vec<Vec<usize>> = (0..count)
                    .map(|index| Shard { index, count }.select(&all))
                    .collect();
                let mut union: Vec<usize> = shards.concat();
                union.sort();
                assert_eq!(union, all, "{count} shards of {len}");
                let sizes: Vec<usize> = shards.iter().map(Vec::len).collect();
                let (min, max) = (sizes.iter().min(), sizes.iter().max());
                assert!(max.unwrap() - min.unwrap() <= 1, "{sizes:?}");
                for (index, shard) in shards.iter().enumerate() {
                    assert!(shard.iter().all(|i| i % count as usize == index));
                }
            }
        }
        // Two scenarios x three seeds in two shards: each shard has both scenarios.
        let all = ["a1", "a2", "a3", "b1", "b2", "b3"];
        assert_eq!(
            Shard { index: 0, count: 2 }.select(&all),
            ["a1", "a3", "b2"]
        );
        assert_eq!(
            Shard { index: 1, count: 2 }.select(&all),
            ["a2", "b1", "b3"]
        );
    }

    #[test]
    fn missing_shards_are_named_as_ranges() {
        assert_eq!(ranges(&[1]), "1");
        assert_eq!(ranges(&[0, 2, 3, 4, 7, 9, 10]), "0, 2..=4, 7, 9..=10");
    }
}

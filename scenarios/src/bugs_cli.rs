//! `regroup bugs [--json]`: the Kafka bug switches this build has (the `kafka_bugs` crate), and the
//! `--kafka-bug NAME` argument `run`, `sweep` and `zoo` share.

use clap::Args;
use kafka_bugs::{BUGS, KafkaBug, KafkaBugs};
use serde_json::json;

/// clap's parser for `--kafka-bug NAME`: an unknown name exits 2 naming the known ones.
pub fn parse_bug(name: &str) -> Result<KafkaBug, String> {
    KafkaBugs::parse([name]).map(|set| set.iter().next().expect("one name parsed"))
}

/// The set of `--kafka-bug` arguments.
pub fn bug_set(bugs: &[KafkaBug]) -> KafkaBugs {
    KafkaBugs::of(bugs.iter().copied())
}

#[derive(Debug, Args)]
pub struct BugsArgs {
    /// Print a JSON array instead of the list.
    #[arg(long)]
    pub json: bool,
}

/// The list: per bug its name, ticket, fix, affected versions, symptom, where the switch acts, and
/// the scenario written for it.
pub fn list() -> String {
    let mut out = String::new();
    for b in BUGS {
        out.push_str(&format!(
            "{}  {} — {}\n  fix: {}\n  affected: {}\n  symptom: {}\n  switch: {}\n  targeted scenario: {}\n",
            b.name, b.ticket, b.title, b.fix, b.affected, b.symptom, b.acts, b.targeted
        ));
    }
    out.push_str(&format!(
        "{} switches; `regroup run|sweep ... --kafka-bug NAME` switches one on, `regroup zoo` \
         measures how the simulator finds each (docs/bug-zoo.md)\n",
        BUGS.len()
    ));
    out
}

pub fn run(args: &BugsArgs) -> i32 {
    if args.json {
        println!("{}", json!(BUGS));
    } else {
        print!("{}", list());
    }
    0
}

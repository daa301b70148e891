//! The task assignor against Kafka's StickyTaskAssignor: random `regroup assign` inputs (the oracle's
//! RandomInputs generator, aimed at the assignor's tie-breaks), assigned by Kafka (the oracle's Assign) and
//! by regroup (`regroup assign`, in-process), compared line by line. The consumer-group assignors
//! (`uniform`, `range`) are compared the same way against Kafka's UniformAssignor and RangeAssignor, on the
//! oracle's ConsumerRandomInputs ([`compare_consumer`]).

use std::collections::BTreeMap;
use std::path::Path;

use super::oracle::{ASSIGN_MAIN, CONSUMER_RANDOM_INPUTS_MAIN, Oracle, RANDOM_INPUTS_MAIN};

/// The outcome of one assignor comparison.
#[derive(Debug, Clone)]
pub struct AssignorReport {
    pub inputs: usize,
    pub seed: u64,
    pub max_members: usize,
    pub differences: usize,
    /// The first few differences: (input line, input, regroup, Kafka).
    pub examples: Vec<(usize, String, String, String)>,
    pub millis: u128,
}

impl AssignorReport {
    pub fn summary(&self) -> String {
        let mut s = format!(
            "assignor: {} random inputs (seed {}, up to {} members), {} differ from Kafka 4.4.0's StickyTaskAssignor ({} ms)",
            self.inputs, self.seed, self.max_members, self.differences, self.millis
        );
        for (n, input, ours, theirs) in &self.examples {
            s.push_str(&format!(
                "\n--- assignor input {n}: {input}\n    regroup: {ours}\n    kafka:   {theirs}"
            ));
        }
        s
    }
}

/// regroup's `assign --lines` output for one input line.
fn regroup_line(input: &str) -> String {
    crate::assign_cli::assign_json(input)
        .unwrap_or_else(|message| serde_json::json!({ "error": message }).to_string())
}

/// Random inputs from the oracle's generator `generator_main` (`count`, `seed`, `max_members`), written
/// to `dir/<stem>-inputs.jsonl` and assigned by Kafka (the oracle's Assign, exit 2 when some assignor
/// threw: its line still compares); both as lines, `lines` of each expected.
fn inputs_and_kafka_outputs(
    oracle: &Oracle,
    generator_main: &str,
    (count, seed, max_members): (usize, u64, usize),
    dir: &Path,
    stem: &str,
    lines: usize,
) -> Result<(String, String), String> {
    let inputs = oracle.output(
        generator_main,
        &[count.to_string(), seed.to_string(), max_members.to_string()],
        &[0],
    )?;
    let input_path = dir.join(format!("{stem}-inputs.jsonl"));
    std::fs::write(&input_path, &inputs).map_err(|e| format!("cannot write inputs: {e}"))?;
    let kafka = oracle.output(
        ASSIGN_MAIN,
        &["--lines".into(), input_path.display().to_string()],
        &[0, 2],
    )?;
    let (n_inputs, n_kafka) = (
        inputs.lines().filter(|l| !l.trim().is_empty()).count(),
        kafka.lines().count(),
    );
    if n_inputs != lines || n_kafka != lines {
        return Err(format!(
            "{stem} oracle: expected {lines} inputs and outputs, got {n_inputs} and {n_kafka}"
        ));
    }
    Ok((inputs, kafka))
}

pub fn compare(
    oracle: &Oracle,
    count: usize,
    seed: u64,
    max_members: usize,
    dir: &Path,
) -> Result<AssignorReport, String> {
    let started = std::time::Instant::now();
    // Kafka exits 2 when some input had tasks but no member (TaskAssignorException).
    let (inputs, kafka) = inputs_and_kafka_outputs(
        oracle,
        RANDOM_INPUTS_MAIN,
        (count, seed, max_members),
        dir,
        "assignor",
        count,
    )?;
    let inputs: Vec<&str> = inputs.lines().filter(|l| !l.trim().is_empty()).collect();
    let kafka: Vec<&str> = kafka.lines().collect();
    let mut report = AssignorReport {
        inputs: count,
        seed,
        max_members,
        differences: 0,
        examples: Vec::new(),
        millis: 0,
    };
    for (i, (input, theirs)) in inputs.iter().zip(&kafka).enumerate() {
        let ours = regroup_line(input);
        if ours != *theirs {
            report.differences += 1;
            if report.examples.len() < 3 {
                report
                    .examples
                    .push((i + 1, input.to_string(), ours, theirs.to_string()));
            }
        }
    }
    report.millis = started.elapsed().as_millis();
    Ok(report)
}

/// The consumer-group assignors' comparison, per assignor.
#[derive(Debug, Clone)]
pub struct ConsumerAssignorReport {
    pub seed: u64,
    pub max_members: usize,
    /// Assignor name -> its figures.
    pub by_assignor: BTreeMap<String, ConsumerAssignorFigures>,
    /// The first few differences: (input line, input, regroup, Kafka).
    pub examples: Vec<(usize, String, String, String)>,
    pub millis: u128,
}

/// One assignor's figures in a [`ConsumerAssignorReport`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConsumerAssignorFigures {
    /// Inputs compared.
    pub inputs: usize,
    /// Inputs on which Kafka's assignor threw (its message is the expected output).
    pub kafka_errors: usize,
    /// Inputs whose outputs differ.
    pub differences: usize,
}

impl ConsumerAssignorReport {
    /// Differences over all assignors.
    pub fn differences(&self) -> usize {
        self.by_assignor.values().map(|f| f.differences).sum()
    }

    pub fn summary(&self) -> String {
        let figures: Vec<String> = self
            .by_assignor
            .iter()
            .map(|(name, f)| {
                format!(
                    "{name} {} inputs ({} Kafka exceptions), {} differ",
                    f.inputs, f.kafka_errors, f.differences
                )
            })
            .collect();
        let mut s = format!(
            "consumer assignors (seed {}, up to {} members) against Kafka 4.4.0's UniformAssignor and RangeAssignor: {} ({} ms)",
            self.seed,
            self.max_members,
            figures.join("; "),
            self.millis
        );
        for (n, input, ours, theirs) in &self.examples {
            s.push_str(&format!(
                "\n--- consumer assignor input {n}: {input}\n    regroup: {ours}\n    kafka:   {theirs}"
            ));
        }
        s
    }
}

/// `count` random consumer-group inputs for each built-in assignor (ConsumerRandomInputs), assigned by
/// Kafka and by regroup, compared line by line.
pub fn compare_consumer(
    oracle: &Oracle,
    count: usize,
    seed: u64,
    max_members: usize,
    dir: &Path,
) -> Result<ConsumerAssignorReport, String> {
    let started = std::time::Instant::now();
    // One input per built-in assignor for each of the `count`.
    let (inputs, kafka) = inputs_and_kafka_outputs(
        oracle,
        CONSUMER_RANDOM_INPUTS_MAIN,
        (count, seed, max_members),
        dir,
        "consumer-assignor",
        2 * count,
    )?;
    std::fs::write(dir.join("consumer-assignor-kafka.jsonl"), &kafka)
        .map_err(|e| format!("cannot write Kafka's outputs: {e}"))?;
    let inputs: Vec<&str> = inputs.lines().filter(|l| !l.trim().is_empty()).collect();
    let kafka: Vec<&str> = kafka.lines().collect();
    let mut report = ConsumerAssignorReport {
        seed,
        max_members,
        by_assignor: BTreeMap::new(),
        examples: Vec::new(),
        millis: 0,
    };
    let mut ours_all = String::new();
    for (i, (input, theirs)) in inputs.iter().zip(&kafka).enumerate() {
        let name = serde_json::from_str::<serde_json::Value>(input)
            .ok()
            .and_then(|v| {
                v.get("assignor")
                    .and_then(|a| a.as_str())
                    .map(str::to_string)
            })
            .unwrap_or_else(|| "uniform".to_string());
        let figures = report.by_assignor.entry(name).or_default();
        figures.inputs += 1;
        if theirs.starts_with("{\"error\"") {
            figures.kafka_errors += 1;
        }
        let ours = regroup_line(input);
        ours_all.push_str(&ours);
        ours_all.push('\n');
        if ours != *theirs {
            figures.differences += 1;
            if report.examples.len() < 3 {
                report
                    .examples
                    .push((i + 1, input.to_string(), ours, theirs.to_string()));
            }
        }
    }
    std::fs::write(dir.join("consumer-assignor-regroup.jsonl"), ours_all)
        .map_err(|e| format!("cannot write regroup's outputs: {e}"))?;
    report.millis = started.elapsed().as_millis();
    Ok(report)
}

//! The task assignor against Kafka's StickyTaskAssignor: random `regroup assign` inputs (the oracle's
//! RandomInputs generator, aimed at the assignor's tie-breaks), assigned by Kafka (the oracle's Assign) and
//! by regroup (`regroup assign`, in-process), compared line by line.

use std::path::Path;

use super::oracle::{ASSIGN_MAIN, Oracle, RANDOM_INPUTS_MAIN};

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

pub fn compare(
    oracle: &Oracle,
    count: usize,
    seed: u64,
    max_members: usize,
    dir: &Path,
) -> Result<AssignorReport, String> {
    let started = std::time::Instant::now();
    let inputs = oracle.output(
        RANDOM_INPUTS_MAIN,
        &[count.to_string(), seed.to_string(), max_members.to_string()],
        &[0],
    )?;
    let input_path = dir.join("assignor-inputs.jsonl");
    std::fs::write(&input_path, &inputs).map_err(|e| format!("cannot write inputs: {e}"))?;
    // Exit 2: some input had tasks but no member (TaskAssignorException); its line still compares.
    let kafka = oracle.output(
        ASSIGN_MAIN,
        &["--lines".into(), input_path.display().to_string()],
        &[0, 2],
    )?;
    let inputs: Vec<&str> = inputs.lines().filter(|l| !l.trim().is_empty()).collect();
    let kafka: Vec<&str> = kafka.lines().collect();
    if inputs.len() != count || kafka.len() != count {
        return Err(format!(
            "assignor oracle: expected {count} inputs and outputs, got {} and {}",
            inputs.len(),
            kafka.len()
        ));
    }
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

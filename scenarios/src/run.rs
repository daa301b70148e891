//! Running a catalogue scenario for one seed and reporting it: the human summary, the `--json`
//! object, the trace file, the replay command.

use std::fmt::Write as _;

use kafka_bugs::KafkaBugs;
use serde_json::{Value, json};
use sim::cluster::SetupError;
use sim::invariants::{Invariant, Violation};
use sim::known::{self, KnownBehaviour};
use sim::runner::{RunOutcome, run};
use sim::swarm::SwarmOptions;

use crate::catalogue::check::View;
use crate::catalogue::{Case, Prepared, Scenario};
use crate::summary::Summary;

/// One run of a scenario.
#[derive(Debug, Clone)]
pub struct ScenarioRun {
    pub scenario: &'static str,
    pub seed: u64,
    pub swarm: Option<SwarmOptions>,
    pub outcome: RunOutcome,
    /// Violations: the run's, then the scenario's expectations.
    pub violations: Vec<Violation>,
    /// Trace hashes of a determinism check (first run, second run).
    pub determinism: Option<(String, String)>,
    /// The run's snapshot summary.
    pub summary: Summary,
    /// When the last fault window ended.
    pub heal_ms: u64,
    /// The Kafka bugs that were switched on (none: Kafka 4.4.0).
    pub bugs: KafkaBugs,
    /// The command that replays this run when the seed alone does not (a shrunk case: `regroup
    /// replay FILE`); `None`: `regroup run SCENARIO --seed N`.
    pub replay_with: Option<String>,
    /// A run in real time against a real cluster (`regroup drive`): its times are wall-clock
    /// ms, and its trace hash names this run only (nothing replays it byte for byte).
    pub driven: bool,
}

/// What a run amounts to once its violations are classified ([`sim::known`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No violation.
    Passed,
    /// Every violation is a documented behaviour of Kafka 4.4.0 itself.
    Known(Vec<&'static KnownBehaviour>),
    /// At least one violation is no known behaviour.
    Failed,
}

impl Verdict {
    pub fn name(&self) -> &'static str {
        match self {
            Verdict::Passed => "passed",
            Verdict::Known(_) => "known",
            Verdict::Failed => "failed",
        }
    }

    /// Whether a run with this verdict fails a sweep (`strict`: known behaviours too).
    pub fn fails(&self, strict: bool) -> bool {
        match self {
            Verdict::Passed => false,
            Verdict::Known(_) => strict,
            Verdict::Failed => true,
        }
    }
}

/// The command that replays `scenario` with `seed` and the Kafka bugs `bugs` switched on.
pub fn replay_command(scenario: &str, seed: u64, bugs: &KafkaBugs) -> String {
    let oracle = if crate::assignor_oracle::enabled() {
        " --assignor-oracle"
    } else {
        ""
    };
    format!(
        "cargo run --release -- run {scenario} --seed {seed}{}{oracle}",
        bugs.cli_args()
    )
}

/// Runs `scenario` with `seed` (Kafka 4.4.0, no bug switched on); see [`run_scenario_with`].
pub fn run_scenario(
    scenario: &Scenario,
    seed: u64,
    keep_log: bool,
) -> Result<ScenarioRun, SetupError> {
    run_scenario_with(scenario, seed, keep_log, &KafkaBugs::none())
}

/// Runs `scenario` with `seed` and the Kafka bugs `bugs` switched on (added to any the scenario's
/// cluster switches on itself), and checks its own expectations. The event log is always kept (the
/// scenario's check reads it); `keep_log` false drops it from the result afterwards.
pub fn run_scenario_with(
    scenario: &Scenario,
    seed: u64,
    keep_log: bool,
    bugs: &KafkaBugs,
) -> Result<ScenarioRun, SetupError> {
    run_prepared(scenario, seed, scenario.prepare(seed), keep_log, bugs)
}

/// Runs `scenario` with `seed` on an explicit case (see [`Case`]) instead of what the seed draws.
pub fn run_case(
    scenario: &Scenario,
    seed: u64,
    case: &Case,
    keep_log: bool,
    bugs: &KafkaBugs,
) -> Result<ScenarioRun, SetupError> {
    run_prepared(
        scenario,
        seed,
        scenario.prepare_case(seed, case),
        keep_log,
        bugs,
    )
}

fn run_prepared(
    scenario: &Scenario,
    seed: u64,
    mut prepared: Prepared,
    keep_log: bool,
    bugs: &KafkaBugs,
) -> Result<ScenarioRun, SetupError> {
    for bug in bugs.iter() {
        prepared.spec.kafka_bugs.insert(bug);
    }
    let bugs = prepared.spec.kafka_bugs.clone();
    let mut options = prepared.options.clone();
    options.keep_events = true;
    options.record_assignments = crate::assignor_oracle::enabled();
    let heal_ms = prepared.schedule.heal_ms();
    let outcome = run(prepared.spec, prepared.schedule.clone(), &options)?;
    Ok(judge(
        scenario,
        seed,
        outcome,
        heal_ms,
        prepared.swarm,
        bugs,
        keep_log,
        false,
    ))
}

/// A finished run of `scenario` (simulated or driven) judged: its violations, then the scenario's
/// expectations (every scheduled fault injected, if it says so) and its own check on the event
/// log; the snapshot summary. `keep_log` false drops the log afterwards; `driven`: a run of
/// `regroup drive` (see [`View::driven`]).
#[allow(clippy::too_many_arguments)]
pub fn judge(
    scenario: &Scenario,
    seed: u64,
    mut outcome: RunOutcome,
    heal_ms: u64,
    swarm: Option<SwarmOptions>,
    bugs: KafkaBugs,
    keep_log: bool,
    driven: bool,
) -> ScenarioRun {
    let mut violations = outcome.violations.clone();
    let calls = std::mem::take(&mut outcome.assignor_calls);
    if let Some(v) = crate::assignor_oracle::check(&calls) {
        violations.push(v);
    }
    if violations.is_empty() && scenario.expect.faults_injected {
        let injected: u32 = outcome.faults.values().map(|c| c.injected).sum();
        let skipped: Vec<&String> = outcome
            .faults
            .iter()
            .filter(|(_, c)| c.skipped > 0)
            .map(|(k, _)| k)
            .collect();
        if injected == 0 || !skipped.is_empty() {
            violations.push(Violation::new(
                Invariant::Expectation,
                outcome.sim_ms,
                format!(
                    "every scheduled fault must be injected: {injected} injected, skipped kinds \
                     {skipped:?}"
                ),
            ));
        }
    }
    if violations.is_empty() {
        let view = View {
            outcome: &outcome,
            heal_ms,
            driven,
        };
        if let Err(detail) = (scenario.check)(&view) {
            violations.push(Violation::new(
                Invariant::Expectation,
                outcome.sim_ms,
                format!("{}: {detail}", scenario.name),
            ));
        }
    }
    let summary = Summary::of(scenario.name, seed, &outcome, heal_ms, &violations);
    if !keep_log {
        outcome.log = Vec::new();
    }
    ScenarioRun {
        scenario: scenario.name,
        seed,
        swarm,
        outcome,
        violations,
        determinism: None,
        replay_with: None,
        driven,
        summary,
        heal_ms,
        bugs,
    }
}

/// Runs `scenario` twice with `seed` and compares the trace hashes.
pub fn check_determinism(
    scenario: &Scenario,
    seed: u64,
    keep_events: bool,
    bugs: &KafkaBugs,
) -> Result<ScenarioRun, SetupError> {
    let first = run_scenario_with(scenario, seed, false, bugs)?;
    let mut second = run_scenario_with(scenario, seed, keep_events, bugs)?;
    let (a, b) = (
        first.outcome.trace_hash.clone(),
        second.outcome.trace_hash.clone(),
    );
    if a != b || first.outcome.events != second.outcome.events {
        second.violations.push(Violation::new(
            Invariant::Determinism,
            second.outcome.sim_ms,
            format!(
                "two runs of seed {seed} differ: trace {a} with {} events, then {b} with {} events",
                first.outcome.events, second.outcome.events
            ),
        ));
    }
    second.determinism = Some((a, b));
    Ok(second)
}

impl ScenarioRun {
    /// No violation at all (a known Kafka behaviour is a violation too; see [`Self::verdict`]).
    pub fn passed(&self) -> bool {
        self.violations.is_empty()
    }

    /// Passed, known (every violation is one of Kafka's documented behaviours) or failed.
    pub fn verdict(&self) -> Verdict {
        if self.violations.is_empty() {
            return Verdict::Passed;
        }
        let known: Option<Vec<&'static KnownBehaviour>> =
            self.violations.iter().map(known::classify).collect();
        match known {
            Some(mut k) => {
                k.dedup_by_key(|b| b.name);
                Verdict::Known(k)
            }
            None => Verdict::Failed,
        }
    }

    pub fn replay(&self) -> String {
        self.replay_with
            .clone()
            .unwrap_or_else(|| replay_command(self.scenario, self.seed, &self.bugs))
    }

    /// The `--json` object.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "scenario": self.scenario,
            "seed": self.seed,
            "passed": self.passed(),
            "verdict": self.verdict().name(),
            "violations": violations_json(&self.violations),
            "traceHash": self.outcome.trace_hash,
            "simMs": self.outcome.sim_ms,
            "events": self.outcome.events,
            "swarm": self.swarm.as_ref().map(|s| serde_json::to_value(s).unwrap_or(Value::Null)),
            "groups": serde_json::to_value(&self.outcome.groups).unwrap_or(Value::Null),
            "replay": self.replay(),
            "kafkaBugs": self.bugs,
            "build": sim::build_info::REVISION,
            "faults": serde_json::to_value(&self.outcome.faults).unwrap_or(Value::Null),
            "convergedAtMs": self.outcome.converged_at_ms,
            "convergenceBoundMs": self.outcome.convergence_bound_ms,
        });
        if let Some((a, b)) = &self.determinism {
            v["determinism"] = json!({"traceHashes": [a, b], "equal": a == b});
        }
        v
    }

    /// The human summary.
    pub fn summary(&self) -> String {
        let mut s = String::new();
        let o = &self.outcome;
        let _ = writeln!(
            s,
            "scenario {}  seed {}  build {}",
            self.scenario,
            self.seed,
            sim::build_info::REVISION
        );
        if !self.bugs.is_empty() {
            let _ = writeln!(s, "kafka bugs switched on: {}", self.bugs);
        }
        if let Some(sw) = &self.swarm {
            let _ = writeln!(
                s,
                "swarm: {}",
                serde_json::to_string(sw).unwrap_or_default()
            );
        }
        if !o.faults.is_empty() {
            let parts: Vec<String> = o
                .faults
                .iter()
                .map(|(k, c)| {
                    let mut p = format!("{k} {}x", c.injected);
                    if c.skipped > 0 {
                        p.push_str(&format!(" ({} skipped)", c.skipped));
                    }
                    p
                })
                .collect();
            let _ = writeln!(s, "faults: {}", parts.join(", "));
        }
        for g in &o.groups {
            let _ = writeln!(
                s,
                "group {} ({}) epoch {}: {} members",
                g.group_id,
                g.kind,
                g.epoch,
                g.members.len()
            );
        }
        if let Some((a, b)) = &self.determinism {
            let _ = writeln!(
                s,
                "determinism: {} ({a} / {b})",
                if a == b {
                    "same trace twice"
                } else {
                    "TRACES DIFFER"
                }
            );
        }
        if let Some(t) = o.converged_at_ms {
            let _ = writeln!(
                s,
                "converged at {:.3} s (bound {:.1} s after the final heal)",
                t as f64 / 1000.0,
                o.convergence_bound_ms as f64 / 1000.0
            );
        }
        let clock = if self.driven { "driven" } else { "simulated" };
        let trace = if self.driven {
            "trace of this run only"
        } else {
            "trace"
        };
        if self.passed() {
            let _ = writeln!(
                s,
                "PASSED: {:.3} s {clock}, {} events, {trace} {}",
                o.sim_ms as f64 / 1000.0,
                o.events,
                o.trace_hash
            );
        } else {
            for v in &self.violations {
                match known::classify(v) {
                    Some(k) => {
                        let _ = writeln!(
                            s,
                            "KNOWN: {} at {} ms: {}\n  known: {} ({}): {}\n  {}; proof: {}",
                            v.invariant.name(),
                            v.at_ms,
                            v.detail,
                            k.name,
                            k.doc,
                            k.summary,
                            k.kafka,
                            k.proof
                        );
                    }
                    None => {
                        let _ = writeln!(
                            s,
                            "FAILED: {} at {} ms: {}",
                            v.invariant.name(),
                            v.at_ms,
                            v.detail
                        );
                    }
                }
            }
            if let Verdict::Known(_) = self.verdict() {
                let _ = writeln!(
                    s,
                    "a known behaviour of Kafka 4.4.0, not a failure of regroup (--strict fails it)"
                );
            }
            let _ = writeln!(
                s,
                "{:.3} s {clock}, {} events, {trace} {}",
                o.sim_ms as f64 / 1000.0,
                o.events,
                o.trace_hash
            );
            let _ = writeln!(s, "replay: {}", self.replay());
        }
        s
    }

    /// Writes the event log as JSON lines.
    pub fn write_trace(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        for e in &self.outcome.log {
            serde_json::to_writer(&mut *out, &e.to_json())?;
            out.write_all(b"\n")?;
        }
        Ok(())
    }
}

/// Violations as JSON, each with the known behaviour it is, if any.
pub fn violations_json(violations: &[Violation]) -> Value {
    Value::Array(
        violations
            .iter()
            .map(|v| {
                let mut j = json!({
                    "invariant": v.invariant.name(),
                    "atMs": v.at_ms,
                    "detail": v.detail,
                });
                if let Some(kind) = v.kind {
                    j["kind"] = json!(kind);
                }
                if let Some(k) = known::classify(v) {
                    j["known"] = json!({"name": k.name, "doc": k.doc, "proof": k.proof});
                }
                j
            })
            .collect(),
    )
}

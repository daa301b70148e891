//! `regroup sweep --coverage`: which coverage goals ([`sim::coverage`]) the sweep's runs reached,
//! against the goals each scenario declares (`Expect::goals`), and the counters summed over the
//! sweep. Computed from the runs' `--json` objects (their `"coverage"`), so a merged sharded sweep
//! reports exactly what the unsharded one does.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::catalogue;
use crate::shard::ranges;
use crate::sweep::RunRecord;

/// One goal of one scenario over the sweep.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoalRow {
    pub scenario: String,
    pub goal: String,
    /// The scenario declares it (an unreached declared goal fails the sweep).
    pub declared: bool,
    /// Seeds that reached it, ascending.
    pub seeds: Vec<u64>,
    /// The first of those seeds and when (simulated ms) it reached the goal.
    pub first: Option<(u64, i64)>,
    /// Seeds the scenario ran in the sweep.
    pub runs: usize,
}

/// The sweep's coverage.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SweepCoverage {
    pub rows: Vec<GoalRow>,
    pub answers: BTreeMap<String, u64>,
    pub group_states: BTreeMap<String, u64>,
    pub member_states: BTreeMap<String, u64>,
}

impl SweepCoverage {
    /// The declared goals no seed reached, as `scenario: goal`.
    pub fn missing(&self) -> Vec<String> {
        self.rows
            .iter()
            .filter(|r| r.declared && r.seeds.is_empty())
            .map(|r| format!("{}: {}", r.scenario, r.goal))
            .collect()
    }
}

/// The goals `scenario` declares, by name (none for a scenario the catalogue does not know).
pub fn declared_goals(scenario: &str) -> Vec<String> {
    catalogue::find(scenario)
        .map(|s| s.expect.goals.iter().map(|g| g.name()).collect())
        .unwrap_or_default()
}

fn add_counts(into: &mut BTreeMap<String, u64>, from: &Value) {
    if let Some(m) = from.as_object() {
        for (k, v) in m {
            *into.entry(k.clone()).or_default() += v.as_u64().unwrap_or(0);
        }
    }
}

/// Sums the runs' coverage. Errors name a run whose JSON has no `"coverage"` (a sweep run
/// without `--coverage`).
pub fn of(results: &[RunRecord]) -> Result<SweepCoverage, String> {
    let mut cov = SweepCoverage::default();
    // (scenario, goal) → row index, in first-seen order: declared goals first per scenario.
    let mut index: BTreeMap<(String, String), usize> = BTreeMap::new();
    let mut runs: BTreeMap<&str, usize> = BTreeMap::new();
    for r in results {
        *runs.entry(&r.scenario).or_default() += 1;
        if !index.keys().any(|(s, _)| *s == r.scenario) {
            for goal in declared_goals(&r.scenario) {
                index.insert((r.scenario.clone(), goal.clone()), cov.rows.len());
                cov.rows.push(GoalRow {
                    scenario: r.scenario.clone(),
                    goal,
                    declared: true,
                    seeds: Vec::new(),
                    first: None,
                    runs: 0,
                });
            }
        }
        let c = r.json.get("coverage").ok_or_else(|| {
            format!(
                "{} seed {} has no coverage (run the sweep with --coverage)",
                r.scenario, r.seed
            )
        })?;
        if let Some(goals) = c["goals"].as_object() {
            for (goal, at) in goals {
                let key = (r.scenario.clone(), goal.clone());
                let i = *index.entry(key).or_insert_with(|| {
                    cov.rows.push(GoalRow {
                        scenario: r.scenario.clone(),
                        goal: goal.clone(),
                        declared: false,
                        seeds: Vec::new(),
                        first: None,
                        runs: 0,
                    });
                    cov.rows.len() - 1
                });
                let row = &mut cov.rows[i];
                row.seeds.push(r.seed);
                let at = at.as_i64().unwrap_or(0);
                if row.first.is_none_or(|(seed, _)| r.seed < seed) {
                    row.first = Some((r.seed, at));
                }
            }
        }
        add_counts(&mut cov.answers, &c["answers"]);
        add_counts(&mut cov.group_states, &c["groupStates"]);
        add_counts(&mut cov.member_states, &c["memberStates"]);
    }
    for row in &mut cov.rows {
        row.seeds.sort_unstable();
        row.runs = runs.get(row.scenario.as_str()).copied().unwrap_or(0);
    }
    // Declared goals first, then the rest by name, per scenario in sweep order.
    let order: Vec<String> =
        results
            .iter()
            .map(|r| r.scenario.clone())
            .fold(Vec::new(), |mut v, s| {
                if !v.contains(&s) {
                    v.push(s);
                }
                v
            });
    cov.rows.sort_by(|a, b| {
        let pos = |s: &str| order.iter().position(|o| o == s);
        (pos(&a.scenario), !a.declared, &a.goal).cmp(&(pos(&b.scenario), !b.declared, &b.goal))
    });
    Ok(cov)
}

/// Seeds as ranges, cut after `max` characters.
fn seeds_text(seeds: &[u64], max: usize) -> String {
    let text = ranges(seeds);
    if text.len() <= max {
        return text;
    }
    let cut = text[..max].rfind(", ").unwrap_or(max);
    format!("{}, ...", &text[..cut])
}

fn counts_text(title: &str, counts: &BTreeMap<String, u64>) -> String {
    let mut out = format!("{title} ({} kinds):\n", counts.len());
    for (k, n) in counts {
        out.push_str(&format!("  {k:<56} {n:>9}\n"));
    }
    out
}

/// The coverage table: per scenario, each goal with its seeds, first seed and first time (a
/// declared goal no seed reached is marked MISSING), then the counters.
pub fn report(cov: &SweepCoverage) -> String {
    let width = cov
        .rows
        .iter()
        .map(|r| r.goal.len())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut out = String::new();
    let mut scenario = "";
    for r in &cov.rows {
        if r.scenario != scenario {
            scenario = &r.scenario;
            out.push_str(&format!(
                "coverage of {scenario} ({} seeds; * declared):\n  {:<width$}  {:>9}  {:>10}  {:>9}  seeds\n",
                r.runs, "goal", "reached", "first seed", "first at"
            ));
        }
        let mark = if r.declared { "*" } else { " " };
        match r.first {
            Some((seed, at)) => out.push_str(&format!(
                "{mark} {:<width$}  {:>9}  {:>10}  {:>8.1}s  {}\n",
                r.goal,
                format!("{}/{}", r.seeds.len(), r.runs),
                seed,
                at as f64 / 1000.0,
                seeds_text(&r.seeds, 60)
            )),
            None => out.push_str(&format!(
                "{mark} {:<width$}  {:>9}  {:>10}  {:>9}  MISSING: no seed reached it\n",
                r.goal,
                format!("0/{}", r.runs),
                "-",
                "-"
            )),
        }
    }
    out.push_str(&counts_text("answers (api/error)", &cov.answers));
    out.push_str(&counts_text(
        "group state transitions (committed)",
        &cov.group_states,
    ));
    out.push_str(&counts_text(
        "member state transitions (clients)",
        &cov.member_states,
    ));
    for m in cov.missing() {
        out.push_str(&format!("COVERAGE MISSING {m}\n"));
    }
    out
}

/// The coverage object of `sweep --json --coverage`.
pub fn to_json(cov: &SweepCoverage) -> Value {
    json!({
        "goals": cov.rows.iter().map(|r| json!({
            "scenario": r.scenario,
            "goal": r.goal,
            "declared": r.declared,
            "runs": r.runs,
            "seeds": r.seeds,
            "firstSeed": r.first.map(|f| f.0),
            "firstAtMs": r.first.map(|f| f.1),
        })).collect::<Vec<_>>(),
        "missing": cov.missing(),
        "answers": cov.answers,
        "groupStates": cov.group_states,
        "memberStates": cov.member_states,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sweep::Tally;

    fn run(scenario: &str, seed: u64, goals: Value) -> RunRecord {
        RunRecord {
            scenario: scenario.into(),
            seed,
            tally: Tally::Passed,
            known: vec![],
            failure: None,
            sim_ms: 1,
            wall_ms: 1,
            json: json!({"coverage": {"goals": goals, "answers": {"Heartbeat/NONE": 2},
                "groupStates": {}, "memberStates": {}}}),
        }
    }

    #[test]
    fn a_declared_goal_no_seed_reached_is_missing_and_the_first_seed_is_the_lowest() {
        // swarm-streams declares answered-FENCED_MEMBER_EPOCH among its goals.
        let declared = declared_goals("swarm-streams");
        assert!(declared.contains(&"answered-FENCED_MEMBER_EPOCH".to_string()));
        let runs = vec![
            run(
                "swarm-streams",
                5,
                json!({"answered-FENCED_MEMBER_EPOCH": 700}),
            ),
            run(
                "swarm-streams",
                2,
                json!({"answered-FENCED_MEMBER_EPOCH": 900, "x": 1}),
            ),
        ];
        let cov = of(&runs).unwrap();
        let row = cov
            .rows
            .iter()
            .find(|r| r.goal == "answered-FENCED_MEMBER_EPOCH")
            .unwrap();
        assert_eq!(row.seeds, vec![2, 5]);
        assert_eq!(row.first, Some((2, 900)));
        assert_eq!(row.runs, 2);
        let extra = cov.rows.iter().find(|r| r.goal == "x").unwrap();
        assert!(!extra.declared);
        assert_eq!(cov.answers["Heartbeat/NONE"], 4);
        let missing = cov.missing();
        assert_eq!(missing.len(), declared.len() - 1);
        assert!(!missing.iter().any(|m| m.contains("FENCED_MEMBER_EPOCH")));
        assert!(report(&cov).contains("MISSING"));
    }

    #[test]
    fn a_run_without_coverage_is_refused() {
        let mut r = run("swarm-streams", 1, json!({}));
        r.json = json!({});
        assert!(of(&[r]).unwrap_err().contains("--coverage"));
    }
}

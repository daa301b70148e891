//! Shrinking a failing run to a smaller one that fails the same way (`regroup shrink`).
//!
//! A failing swarm seed replays exactly but carries every fault its seed drew. The shrinker turns
//! the seed's draw into an explicit [`Case`] (swarm options, fault schedule, sizes) and searches
//! for a smaller case whose run fails with the same [`fingerprint`]: delta debugging (ddmin) over
//! the schedule's windows, then simpler passes (shorter windows, weaker faults, fewer processes and
//! threads, fewer partitions), repeated until a round changes nothing or the budget is spent. The
//! seed stays: it still drives everything the case does not fix (latencies, ids, timings), which is
//! why a smaller case can fail the same way at all.
//!
//! Deterministic: candidates are judged in a fixed order and the first failing one (in that order)
//! wins, whatever `jobs` is; `jobs` only evaluates the next few candidates side by side.

use indicatif::ProgressBar;
use kafka_bugs::KafkaBugs;
use sim::faults::{FaultKind, FaultWindow, HostRef};
use sim::spec::ClusterSpec;

use crate::catalogue::{Case, Scenario};
use crate::run::{ScenarioRun, run_case};

/// What makes two failures "the same": the first violation's invariant, its kind (where the check
/// names one), and its detail with every word that holds a digit (times, epochs, offsets, member and
/// host ids) replaced by `#`. Group and topic names, the invariant's wording and error names stay.
/// `None` for a run that passed.
pub fn fingerprint(run: &ScenarioRun) -> Option<String> {
    let v = run.violations.first()?;
    let shape: Vec<String> = v
        .detail
        .split_whitespace()
        .map(|w| {
            if w.chars().any(|c| c.is_ascii_digit()) {
                // Keep the punctuation around the word: "(member #)" and "#," read as the detail.
                let lead: String = w.chars().take_while(|c| "([{".contains(*c)).collect();
                let trail: String = w
                    .chars()
                    .rev()
                    .take_while(|c| ")]},:;.".contains(*c))
                    .collect::<Vec<_>>()
                    .into_iter()
                    .rev()
                    .collect();
                format!("{lead}#{trail}")
            } else {
                w.to_string()
            }
        })
        .collect();
    Some(format!(
        "{}|{}|{}",
        v.invariant.name(),
        v.kind.unwrap_or("-"),
        shape.join(" ")
    ))
}

/// A host reference as a person reads it.
fn host_text(h: &HostRef) -> String {
    match h {
        HostRef::Named(n) => n.clone(),
        HostRef::Controller => "controller".into(),
        HostRef::Broker(id) => format!("broker-{id}"),
        HostRef::CoordinatorOf(g) => format!("coordinator of {g}"),
        HostRef::ClassicLeaderOf(g) => format!("leader's process of {g}"),
        HostRef::Process { group, index } => format!("{group}-{index}"),
        HostRef::Group(g) => format!("every process of {g}"),
        HostRef::Brokers => "every broker".into(),
    }
}

fn hosts_text(hs: &[HostRef]) -> String {
    hs.iter().map(host_text).collect::<Vec<_>>().join(", ")
}

/// One window, e.g. `partition-oneway app-1 -> broker-2 at 31.2 s for 4.0 s`.
pub fn describe_window(w: &FaultWindow) -> String {
    let what = match &w.kind {
        FaultKind::Partition { a, b } | FaultKind::Hold { a, b } => {
            format!("{} {} <-> {}", w.kind.name(), hosts_text(a), hosts_text(b))
        }
        FaultKind::PartitionOneway { from, to } => {
            format!(
                "{} {} -> {}",
                w.kind.name(),
                hosts_text(from),
                hosts_text(to)
            )
        }
        FaultKind::Latency { a, b, max_ms } => format!(
            "latency up to {max_ms} ms {} <-> {}",
            hosts_text(a),
            hosts_text(b)
        ),
        FaultKind::FailRate { a, b, rate } => format!(
            "fail-rate {:.1} % {} <-> {}",
            rate * 100.0,
            hosts_text(a),
            hosts_text(b)
        ),
        FaultKind::Isolate { host }
        | FaultKind::Crash { host }
        | FaultKind::SilentDeath { host }
        | FaultKind::Pause { host }
        | FaultKind::StopProcess { host }
        | FaultKind::StartProcess { host }
        | FaultKind::RemoveProcess { host }
        | FaultKind::StallAssignment { host }
        | FaultKind::ShutdownApplication { host } => {
            format!("{} of {}", w.kind.name(), host_text(host))
        }
        FaultKind::SwitchProtocol { host, protocol } => {
            format!(
                "switch-protocol of {} to {}",
                host_text(host),
                protocol.name()
            )
        }
        FaultKind::StallHeartbeats { host, thread } => match thread {
            Some(t) => format!("stall-heartbeats of {} thread {t}", host_text(host)),
            None => format!("stall-heartbeats of {}", host_text(host)),
        },
        FaultKind::FenceBroker { broker }
        | FaultKind::ControlledShutdown { broker }
        | FaultKind::StaleBrokerHeartbeat { broker } => {
            format!("{} of {}", w.kind.name(), host_text(broker))
        }
        FaultKind::CreateTopic { name, partitions } => {
            format!("create-topic {name} ({partitions} partitions)")
        }
        FaultKind::AddPartitions { topic, total } => {
            format!("add-partitions {topic} to {total}")
        }
        FaultKind::DeleteTopic { name } => format!("delete-topic {name}"),
        FaultKind::RemoveStaticMembers {
            group,
            instance_ids,
        } => format!(
            "remove-static-members {} of {group}",
            instance_ids.join(", ")
        ),
        FaultKind::GroupAdmin { group, call } => format!("admin {} of {group}", call.name()),
    };
    match w.duration_ms {
        Some(d) => format!(
            "{what} at {:.1} s for {:.1} s",
            w.at_ms as f64 / 1000.0,
            d as f64 / 1000.0
        ),
        None => format!("{what} at {:.1} s", w.at_ms as f64 / 1000.0),
    }
}

/// Sizes of a case's cluster: (processes, member threads or consumers) summed over its groups.
pub fn members_of(spec: &ClusterSpec) -> (usize, usize) {
    let processes = spec.streams_apps.iter().map(|a| a.processes).sum::<usize>()
        + spec
            .classic_groups
            .iter()
            .map(|g| g.processes)
            .sum::<usize>();
    let members = spec
        .streams_apps
        .iter()
        .map(|a| a.processes * a.threads)
        .sum::<usize>()
        + spec
            .classic_groups
            .iter()
            .map(|g| g.processes * g.consumers_per_process)
            .sum::<usize>();
    (processes, members)
}

/// The readable summary of a case: its faults, then its groups' sizes.
pub fn describe_case(scenario: &Scenario, seed: u64, case: &Case) -> String {
    let spec = scenario.prepare_case(seed, case).spec;
    let n = case.schedule.len();
    let faults: Vec<String> = case.schedule.iter().map(describe_window).collect();
    let mut out = match n {
        0 => "no fault".to_string(),
        1 => format!("1 fault: {}", faults[0]),
        _ => format!("{n} faults: {}", faults.join("; ")),
    };
    let groups: Vec<String> = spec
        .streams_apps
        .iter()
        .map(|a| {
            format!(
                "{}: {} process{} x {} thread{}",
                a.application_id,
                a.processes,
                if a.processes == 1 { "" } else { "es" },
                a.threads,
                if a.threads == 1 { "" } else { "s" }
            )
        })
        .chain(spec.classic_groups.iter().map(|g| {
            format!(
                "{}: {} process{} x {} consumer{}",
                g.group_id,
                g.processes,
                if g.processes == 1 { "" } else { "es" },
                g.consumers_per_process,
                if g.consumers_per_process == 1 {
                    ""
                } else {
                    "s"
                }
            )
        }))
        .collect();
    out.push_str(&format!("; {}", groups.join("; ")));
    out
}

/// The shrinker's limits.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// At most this many candidates are judged (in the sequential order).
    pub budget: usize,
    /// Candidates run side by side.
    pub jobs: usize,
}

/// What a shrink found.
#[derive(Debug, Clone)]
pub struct Shrunk {
    pub original: Case,
    pub case: Case,
    /// The shrunk case's run (fails with the original's fingerprint).
    pub run: ScenarioRun,
    pub fingerprint: String,
    /// Candidates judged (the sequential count, the same whatever `jobs` is).
    pub candidates: usize,
    /// Candidates that failed the same way and were taken.
    pub accepted: usize,
    /// The budget ran out before a round changed nothing.
    pub budget_spent: bool,
}

struct Search<'a> {
    scenario: &'a Scenario,
    seed: u64,
    bugs: &'a KafkaBugs,
    target: String,
    limits: Limits,
    tried: usize,
    accepted: usize,
    progress: Option<&'a ProgressBar>,
}

impl Search<'_> {
    fn spent(&self) -> bool {
        self.tried >= self.limits.budget
    }

    /// Judges `candidates` in order; the first that fails with the target fingerprint (and its
    /// run) is returned. Runs up to `jobs` of them at once, but counts and decides as if one by one.
    fn first_failing(&mut self, candidates: Vec<Case>) -> Option<(Case, ScenarioRun)> {
        let jobs = self.limits.jobs.max(1);
        let mut i = 0;
        while i < candidates.len() && !self.spent() {
            let room = self.limits.budget - self.tried;
            let chunk: Vec<&Case> = candidates[i..].iter().take(jobs.min(room)).collect();
            let results: Vec<Option<ScenarioRun>> = self.judge(&chunk);
            for (k, run) in results.into_iter().enumerate() {
                self.tried += 1;
                if let Some(p) = self.progress {
                    p.inc(1);
                }
                if let Some(run) = run {
                    self.accepted += 1;
                    return Some((chunk[k].clone(), run));
                }
            }
            i += chunk.len();
        }
        None
    }

    /// Runs each case of `chunk` side by side; `Some(run)` where it fails the target's way.
    fn judge(&self, chunk: &[&Case]) -> Vec<Option<ScenarioRun>> {
        std::thread::scope(|scope| {
            let handles: Vec<_> = chunk
                .iter()
                .map(|case| {
                    scope.spawn(move || {
                        let run =
                            run_case(self.scenario, self.seed, case, false, self.bugs).ok()?;
                        let same = fingerprint(&run).as_deref() == Some(self.target.as_str());
                        same.then_some(run)
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().ok().flatten())
                .collect()
        })
    }

    /// Delta debugging over the windows of `case`: the smallest schedule (1-minimal with respect to
    /// removing any chunk of the final granularity) that still fails.
    fn ddmin(&mut self, case: &mut Case, run: &mut ScenarioRun) -> bool {
        let mut changed = false;
        if !case.schedule.is_empty() {
            let empty = Case {
                schedule: Vec::new(),
                ..case.clone()
            };
            if let Some((c, r)) = self.first_failing(vec![empty]) {
                *case = c;
                *run = r;
                return true;
            }
        }
        let mut n = 2usize;
        while case.schedule.len() >= 2 && !self.spent() {
            let len = case.schedule.len();
            let n_now = n.min(len);
            let bounds: Vec<(usize, usize)> = (0..n_now)
                .map(|i| (i * len / n_now, (i + 1) * len / n_now))
                .collect();
            let with = |keep: &dyn Fn(usize) -> bool| Case {
                schedule: case
                    .schedule
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| keep(*j))
                    .map(|(_, w)| w.clone())
                    .collect(),
                ..case.clone()
            };
            let mut candidates: Vec<Case> = bounds
                .iter()
                .map(|&(a, b)| with(&|j| j >= a && j < b))
                .collect();
            if n_now > 2 {
                candidates.extend(bounds.iter().map(|&(a, b)| with(&|j| j < a || j >= b)));
            }
            let subsets = bounds.len();
            match self.first_failing(candidates.clone()) {
                Some((c, r)) => {
                    let was_subset = candidates[..subsets].contains(&c);
                    *case = c;
                    *run = r;
                    changed = true;
                    n = if was_subset { 2 } else { (n_now - 1).max(2) };
                }
                None => {
                    if n_now >= len {
                        break;
                    }
                    n = (n_now * 2).min(len);
                }
            }
        }
        changed
    }

    /// One window at a time: a shorter window, then a weaker fault.
    fn simplify_windows(&mut self, case: &mut Case, run: &mut ScenarioRun) -> bool {
        let mut changed = false;
        let mut i = 0;
        while i < case.schedule.len() && !self.spent() {
            let mut candidates = Vec::new();
            let w = &case.schedule[i];
            if let Some(d) = w.duration_ms
                && d >= 2_000
            {
                let mut c = case.clone();
                c.schedule[i].duration_ms = Some((d / 2) / 100 * 100);
                candidates.push(c);
            }
            for weaker in weaker_kinds(&w.kind) {
                let mut c = case.clone();
                c.schedule[i].kind = weaker;
                candidates.push(c);
            }
            match self.first_failing(candidates) {
                Some((c, r)) => {
                    *case = c;
                    *run = r;
                    changed = true;
                    // The same window again: it may shorten or weaken further.
                }
                None => i += 1,
            }
        }
        changed
    }

    /// Fewer processes per group, fewer threads per process, fewer partitions per topic.
    fn smaller_cluster(&mut self, case: &mut Case, run: &mut ScenarioRun) -> bool {
        let mut changed = false;
        loop {
            if self.spent() {
                return changed;
            }
            let spec = self.scenario.prepare_case(self.seed, case).spec;
            let mut candidates = Vec::new();
            if let Some(options) = &case.swarm {
                for (group, n) in &options.processes {
                    for fewer in smaller(*n, 1) {
                        let mut c = case.clone();
                        if let Some(o) = c.swarm.as_mut() {
                            o.processes.insert(group.clone(), fewer);
                        }
                        candidates.push(c);
                    }
                }
            }
            let threads = spec
                .streams_apps
                .iter()
                .map(|a| (a.application_id.clone(), a.threads))
                .chain(
                    spec.classic_groups
                        .iter()
                        .map(|g| (g.group_id.clone(), g.consumers_per_process)),
                );
            for (group, n) in threads {
                for fewer in smaller(n, 1) {
                    let mut c = case.clone();
                    c.threads.insert(group.clone(), fewer);
                    candidates.push(c);
                }
            }
            for t in &spec.topics {
                for fewer in smaller(t.partitions as usize, 1) {
                    let mut c = case.clone();
                    c.partitions.insert(t.name.clone(), fewer as i32);
                    candidates.push(c);
                }
            }
            match self.first_failing(candidates) {
                Some((c, r)) => {
                    *case = c;
                    *run = r;
                    changed = true;
                }
                None => return changed,
            }
        }
    }
}

/// Smaller values to try for a size `n` (at least `min`): the minimum, half, one less.
fn smaller(n: usize, min: usize) -> Vec<usize> {
    let mut v = Vec::new();
    for m in [min, n / 2, n.saturating_sub(1)] {
        if m >= min && m < n && !v.contains(&m) {
            v.push(m);
        }
    }
    v
}

/// Weaker versions of a fault: a silent death becomes a crash, a crash a pause (the host keeps its
/// state), a two-way partition or hold one of its directions, an isolation a pause.
fn weaker_kinds(kind: &FaultKind) -> Vec<FaultKind> {
    match kind {
        FaultKind::SilentDeath { host } => vec![FaultKind::Crash { host: host.clone() }],
        FaultKind::Crash { host } => vec![FaultKind::Pause { host: host.clone() }],
        FaultKind::Partition { a, b } => vec![
            FaultKind::PartitionOneway {
                from: a.clone(),
                to: b.clone(),
            },
            FaultKind::PartitionOneway {
                from: b.clone(),
                to: a.clone(),
            },
        ],
        FaultKind::Isolate { host } => vec![FaultKind::Pause { host: host.clone() }],
        _ => Vec::new(),
    }
}

/// Why a case cannot be shrunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShrinkError {
    /// The case's run could not be set up.
    Setup(String),
    /// The case's run passes in this build: nothing to shrink.
    Passes { trace_hash: String },
}

impl std::fmt::Display for ShrinkError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ShrinkError::Setup(e) => write!(f, "setup error: {e}"),
            ShrinkError::Passes { trace_hash } => write!(
                f,
                "the run passes in this build (trace {trace_hash}): there is no failure to shrink"
            ),
        }
    }
}

/// Shrinks `case` of `scenario` at `seed` (Kafka bugs `bugs` on).
pub fn shrink(
    scenario: &Scenario,
    seed: u64,
    case: Case,
    bugs: &KafkaBugs,
    limits: Limits,
    progress: Option<&ProgressBar>,
) -> Result<Shrunk, ShrinkError> {
    let mut run = run_case(scenario, seed, &case, false, bugs)
        .map_err(|e| ShrinkError::Setup(e.to_string()))?;
    let Some(target) = fingerprint(&run) else {
        return Err(ShrinkError::Passes {
            trace_hash: run.outcome.trace_hash.clone(),
        });
    };
    let mut search = Search {
        scenario,
        seed,
        bugs,
        target: target.clone(),
        limits,
        tried: 0,
        accepted: 0,
        progress,
    };
    let original = case.clone();
    let mut case = case;
    loop {
        let mut changed = search.ddmin(&mut case, &mut run);
        changed |= search.simplify_windows(&mut case, &mut run);
        changed |= search.smaller_cluster(&mut case, &mut run);
        if !changed || search.spent() {
            break;
        }
    }
    Ok(Shrunk {
        original,
        case,
        run,
        fingerprint: target,
        candidates: search.tried,
        accepted: search.accepted,
        budget_spent: search.spent(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smaller_sizes_go_down_to_the_minimum_without_repeats() {
        assert_eq!(smaller(5, 1), vec![1, 2, 4]);
        assert_eq!(smaller(2, 1), vec![1]);
        assert!(smaller(1, 1).is_empty());
    }

    #[test]
    fn a_window_reads_as_what_it_does() {
        let w = FaultWindow::at(
            31_200,
            FaultKind::PartitionOneway {
                from: vec![HostRef::process("app", 1)],
                to: vec![HostRef::Broker(2)],
            },
        )
        .lasting(4_000);
        assert_eq!(
            describe_window(&w),
            "partition-oneway app-1 -> broker-2 at 31.2 s for 4.0 s"
        );
        let crash = FaultWindow::at(
            33_000,
            FaultKind::Crash {
                host: HostRef::CoordinatorOf("app".into()),
            },
        );
        assert_eq!(
            describe_window(&crash),
            "crash of coordinator of app at 33.0 s"
        );
    }

    #[test]
    fn crashes_weaken_to_pauses_and_partitions_to_one_direction() {
        let host = HostRef::Broker(1);
        assert_eq!(
            weaker_kinds(&FaultKind::SilentDeath { host: host.clone() }),
            vec![FaultKind::Crash { host: host.clone() }]
        );
        let p = weaker_kinds(&FaultKind::Partition {
            a: vec![host.clone()],
            b: vec![HostRef::Controller],
        });
        assert_eq!(p.len(), 2);
        assert!(weaker_kinds(&FaultKind::Pause { host }).is_empty());
    }
}

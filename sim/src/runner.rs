//! Runs a cluster: lets it run, injects and heals the scheduled faults between steps, runs the
//! step-level checks (broker fencing) after every step, and after the final heal checks
//! convergence until it holds or the bound passes. The first violation ends the run.
//!
//! The loop ([`run_on`]) is written once, over a [`Backend`]: the simulator's turmoil cluster
//! ([`SimBackend`], stepped tick by tick in simulated time) or `crate::drive`'s real client
//! processes on real TCP against an external cluster, in real time.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::cluster::{
    ADMIN_HOST, AdminCommand, CONTROLLER_HOST, Cluster, ProcessCommand, ProcessInfo, SetupError,
    broker_host, broker_id_of, broker_session_timeout_ms, process_host,
};
use crate::links::{self, LinkCall, LinkFaults};
use coordinator::controller::AdminOp;

use crate::coverage::RunCoverage;
use crate::event::{FaultEvent, HarnessEvent, SimEvent};
use crate::faults::{FaultKind, FaultSchedule, FaultWindow, HostRef};
use crate::hub::Hub;
use crate::invariants::convergence::{self, Expectation, NotConverged};
use crate::invariants::{Invariant, Violation, brokers};
use crate::model::Model;
use crate::net::{EPOCH_MS, set_driver_now_ms};
use crate::spec::ClusterSpec;

/// How often convergence is evaluated in the liveness phase (simulated ms).
const CONVERGENCE_CHECK_INTERVAL_MS: i64 = 500;

/// How to run.
#[derive(Debug, Clone, PartialEq)]
pub struct RunOptions {
    pub seed: u64,
    /// Keep every event (for `--trace` and tests); the hash and count are kept anyway.
    pub keep_events: bool,
    /// How long after the final heal every group must have converged; `None`: the default
    /// ([`default_convergence_bound_ms`]).
    pub convergence_bound_ms: Option<u64>,
    /// The run lasts at least this long (simulated ms) even if the groups converge earlier.
    pub min_duration_ms: u64,
    /// Members each listed group must have when it converges, instead of what the spec and the
    /// schedule imply (e.g. a group capped by `group.max.size`).
    pub expected_members: BTreeMap<String, usize>,
    /// After the groups converge the run goes on this long (simulated ms, invariants still
    /// checked) before it stops: for expectations that need a quiet period, such as every member
    /// having heartbeated once more (endpoint maps travel on heartbeat responses).
    pub settle_ms: u64,
    /// Keep every streams target assignment the brokers compute, with its input
    /// ([`crate::assignor_log`]), in [`RunOutcome::assignor_calls`]. Changes nothing the run does.
    pub record_assignments: bool,
}

impl RunOptions {
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            keep_events: false,
            convergence_bound_ms: None,
            min_duration_ms: 0,
            expected_members: BTreeMap::new(),
            settle_ms: 0,
            record_assignments: false,
        }
    }
}

/// The default liveness bound: 2 × the longest member session timeout + the longest rebalance
/// timeout (`max.poll.interval.ms`) + the broker session timeout (a coordinator fail-over may
/// have to wait for the controller to fence the old one) + the classic initial rebalance delay
/// + [`coordinator_move_after_heal_ms`].
pub fn default_convergence_bound_ms(spec: &ClusterSpec) -> u64 {
    let session = spec
        .streams_apps
        .iter()
        .map(|a| a.session_timeout_ms)
        .chain(spec.classic_groups.iter().map(|g| g.session_timeout_ms))
        .chain(spec.consumer_groups.iter().map(|g| g.session_timeout_ms))
        .max()
        .unwrap_or(0)
        .max(0) as u64;
    let rebalance = spec
        .streams_apps
        .iter()
        .map(|a| a.max_poll_interval_ms)
        .chain(spec.classic_groups.iter().map(|g| g.max_poll_interval_ms))
        .chain(spec.consumer_groups.iter().map(|g| g.max_poll_interval_ms))
        .max()
        .unwrap_or(0)
        .max(0) as u64;
    let classic_delay = if spec.classic_groups.is_empty()
        && spec
            .consumer_groups
            .iter()
            .all(|g| g.classic_processes.is_empty())
    {
        0
    } else {
        spec.broker_configs
            .get("group.initial.rebalance.delay.ms")
            .and_then(|v| v.parse().ok())
            .unwrap_or(3_000)
    };
    2 * session
        + rebalance
        + broker_session_timeout_ms(spec)
        + classic_delay
        + coordinator_move_after_heal_ms(spec, rebalance)
}

/// How much later than the rebalance timeout alone a member stuck in UNREVOKED_TASKS since
/// before the final heal may be fenced: min(leader imbalance check interval, rebalance timeout),
/// or 0 without `auto.leader.rebalance.enable`.
///
/// A member whose revocation never reached it (the response was lost, or the write behind it
/// timed out and answered COORDINATOR_NOT_AVAILABLE while its records stayed) keeps reporting
/// the tasks, and Kafka 4.4 sends an assignment only on a join or a change, so only the
/// rebalance timeout ends it. Loading a coordinator restarts that timeout for every such member
/// (`GroupMetadataManager.onLoaded`), and after the heal the controller's periodic
/// preferred-leader election (`leader.imbalance.check.interval.seconds`, first run at most one
/// interval after the heal) can still move the group's coordinator. A move later than the
/// rebalance timeout after the heal finds the member fenced already, hence the minimum.
pub fn coordinator_move_after_heal_ms(spec: &ClusterSpec, rebalance_timeout_ms: u64) -> u64 {
    crate::cluster::controller_config(spec)
        .leader_imbalance_check_interval_ms
        .map_or(0, |interval| {
            (interval.max(0) as u64).min(rebalance_timeout_ms)
        })
}

/// One group at the end of the run, as the committed records describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupSummary {
    pub group_id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub epoch: i32,
    pub members: Vec<MemberSummary>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberSummary {
    pub member_id: String,
    pub instance_id: Option<String>,
    pub process_id: Option<String>,
    pub epoch: i32,
    pub active_tasks: Vec<String>,
    pub standby_tasks: Vec<String>,
    pub partitions: Vec<String>,
}

/// How often each fault kind was injected, healed, skipped.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct FaultCount {
    pub injected: u32,
    pub healed: u32,
    pub skipped: u32,
}

/// What a run produced.
#[derive(Debug, Clone)]
pub struct RunOutcome {
    pub passed: bool,
    pub violations: Vec<Violation>,
    pub trace_hash: String,
    pub sim_ms: i64,
    pub events: u64,
    pub groups: Vec<GroupSummary>,
    pub faults: BTreeMap<String, FaultCount>,
    /// When every group had converged (simulated ms), if it did.
    pub converged_at_ms: Option<i64>,
    pub convergence_bound_ms: u64,
    /// The event log, when kept.
    pub log: Vec<SimEvent>,
    /// The coverage goals the run reached and what it exercised ([`crate::coverage`]).
    pub coverage: RunCoverage,
    /// Every streams target assignment computed, when the run recorded them
    /// ([`RunOptions::record_assignments`]).
    pub assignor_calls: Vec<crate::assignor_log::AssignorCall>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Action {
    // Heals before starts at the same instant, so back-to-back windows do not cancel out.
    Heal(usize),
    Start(usize),
}

/// What the run loop needs from the cluster it runs against. The loop, the fault bookkeeping
/// (windows, counts, heals, the final heal), the expectations, the convergence deadline and the
/// outcome are one implementation ([`run_on`]); a backend supplies time, the hosts, and the
/// faults' effects: the simulator's turmoil cluster ([`SimBackend`]), or real client processes on
/// real TCP against an external cluster (`crate::drive`), which refuses (the fault is then
/// skipped, with the reason) what it cannot do.
/// What a link fault does to its links (a backend may carry some kinds on a link and not others).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkUse {
    /// Both directions cut (partitions, isolations, a silent death, a fenced broker).
    Cut,
    /// One direction cut.
    OneWay,
    /// Messages held and delivered late.
    Hold,
    /// Added latency.
    Latency,
    /// Messages lost at a rate.
    FailRate,
}

pub trait Backend {
    fn hub(&self) -> &Hub;
    fn spec(&self) -> &ClusterSpec;
    /// Every host, in registration order.
    fn hosts(&self) -> &[String];
    /// The brokers' host names (what [`HostRef::Brokers`] resolves to).
    fn broker_hosts(&self) -> Vec<String>;
    /// The member processes, by host.
    fn processes(&self) -> &BTreeMap<String, ProcessInfo>;
    /// The current time: ms since the run started (simulated, or real).
    fn now_ms(&self) -> i64;
    /// Whether faults of this kind can be applied at all (`Err`: why not).
    fn supports(&self, _kind: &FaultKind) -> Result<(), String> {
        Ok(())
    }
    /// Lets the cluster run up to (about) `until` ms; `acted`: the driver changed something since
    /// the last call, so what it changed must be looked at soon.
    fn advance(&mut self, acted: bool, until: i64) -> Result<(), String>;
    /// The per-step checks after [`Backend::advance`] (the simulator reads the brokers' logs and
    /// the controller's state).
    fn after_step(&mut self, now: i64);
    /// Whether link faults of this kind on these (from, to) host pairs can be applied (`Err`: why
    /// not).
    fn links_applicable(&self, pairs: &[(String, String)], how: LinkUse) -> Result<(), String>;
    /// Makes link changes.
    fn apply_links(&mut self, calls: Vec<LinkCall>);
    /// Repairs and releases every link, with the cluster's latency and no failure rate.
    fn heal_all_links(&mut self);
    /// Whether the backend stops `host` as a whole by itself ([`Backend::pause_host`]) rather than
    /// through its links: a real node, which a signal stops with every socket left open, while
    /// drive's proxies carry only its links with the clients. The simulator holds links instead.
    fn pausable(&self, _host: &str) -> bool {
        false
    }
    /// Why a consumer group's process cannot switch protocols here (`switch-protocol`), if it
    /// cannot: drive runs each consumer-group process with the consumer protocol only.
    fn protocol_switch_refusal(&self) -> Option<&'static str> {
        None
    }
    /// Stops (`true`) or resumes every thread of a [`Backend::pausable`] host. A paused host
    /// reads nothing and sends nothing; its peers see its connections open.
    fn pause_host(&mut self, _host: &str, _paused: bool) {}
    /// Whether `host` can be crashed (`Err`: why not).
    fn crashable(&self, host: &str) -> Result<(), String>;
    /// Crashes `host` (its software stops at once).
    fn crash(&mut self, host: &str);
    /// Starts a crashed or shut-down `host` again.
    fn restart(&mut self, host: &str);
    /// Broker `id` begins a controlled shutdown and stops once the controller lets it.
    fn controlled_shutdown(&mut self, id: i32) -> Result<(), String>;
    /// A controlled shutdown of `host` ends (before its restart).
    fn controlled_shutdown_over(&mut self, host: &str);
    /// Hands a topic change to the controller.
    fn controller_admin(&mut self, op: AdminOp) -> Result<Vec<String>, String>;
    /// Every broker epoch broker `id` has run with, oldest first.
    fn broker_epochs(&self, id: i32) -> Vec<i64>;
    /// Whether the admin host can send a BrokerHeartbeat to the controller (`Err`: why not).
    fn controller_reachable(&self) -> Result<(), String>;
    /// Queues a command for the admin host.
    fn admin_command(&self, command: AdminCommand);
    /// The replication factor of topics the faults create.
    fn topic_replication_factor(&self) -> i16;
    /// The broker leading `group`'s offsets partition now.
    fn coordinator_of(&self, group: &str) -> Option<i32>;
    /// The host of the process running the leader of classic group `group` now.
    fn classic_leader_host(&self, group: &str) -> Result<String, String>;
    /// Whether every group has converged to what `expectations` say.
    fn converged(&self, expectations: &[Expectation]) -> Result<Vec<(String, i32)>, NotConverged>;
    /// The groups at the end of the run.
    fn groups(&self) -> Vec<GroupSummary>;
}

struct Driver<B: Backend> {
    cluster: B,
    schedule: FaultSchedule,
    /// Hosts each active window resolved to.
    active: BTreeMap<usize, Vec<String>>,
    down: BTreeSet<String>,
    stalled: BTreeSet<String>,
    /// Processes whose assignor is stuck (`StallAssignment`), released at the final heal.
    assignment_stalled: BTreeSet<String>,
    stopped: BTreeSet<String>,
    faults: BTreeMap<String, FaultCount>,
    /// The link faults in force, so overlapping ones compose ([`crate::links`]).
    links: LinkFaults,
}

/// Builds `spec` and runs it under `schedule`.
pub fn run(
    spec: ClusterSpec,
    schedule: FaultSchedule,
    options: &RunOptions,
) -> Result<RunOutcome, SetupError> {
    let assignor_log = options
        .record_assignments
        .then(crate::assignor_log::AssignorLog::default);
    let cluster = Cluster::build_with(
        spec,
        options.seed,
        options.keep_events,
        assignor_log.clone(),
    )?;
    let mut outcome = run_on(SimBackend::new(cluster), schedule, options);
    if let Some(log) = assignor_log {
        outcome.assignor_calls = crate::assignor_log::take(&log);
    }
    Ok(outcome)
}

/// Runs `cluster` under `schedule`: injects and heals the faults when their time comes, lets the
/// cluster run in between, and after the final heal checks convergence until it holds or the
/// bound passes. The first violation ends the run.
pub fn run_on<B: Backend>(cluster: B, schedule: FaultSchedule, options: &RunOptions) -> RunOutcome {
    let spec = cluster.spec().clone();
    let bound = options
        .convergence_bound_ms
        .unwrap_or_else(|| default_convergence_bound_ms(&spec));
    // Before the epilogue (if any), and after it.
    let [mut expectations, after_epilogue] = [false, true].map(|epilogue| {
        let mut e = expectations(&spec, &schedule, epilogue);
        for e in &mut e {
            if let Some(n) = options.expected_members.get(e.group()) {
                e.set_members(*n);
            }
        }
        e
    });
    let default_latency_ms = spec.latency.max_ms;
    let mut driver = Driver {
        cluster,
        schedule,
        active: BTreeMap::new(),
        down: BTreeSet::new(),
        stalled: BTreeSet::new(),
        assignment_stalled: BTreeSet::new(),
        stopped: BTreeSet::new(),
        faults: BTreeMap::new(),
        links: LinkFaults::new(default_latency_ms),
    };
    let mut actions: Vec<(u64, Action)> = Vec::new();
    let mut epilogue: Vec<usize> = Vec::new();
    for (i, w) in driver.schedule.windows.iter().enumerate() {
        if w.after_convergence {
            epilogue.push(i);
            continue;
        }
        actions.push((w.at_ms, Action::Start(i)));
        if let Some(d) = w.duration_ms {
            actions.push((w.at_ms + d, Action::Heal(i)));
        }
    }
    actions.sort();
    let epilogue_ms = driver.schedule.epilogue_ms().map(|t| t as i64);
    // The start of the liveness phase the deadline counts from: the final heal, then the epilogue.
    let mut heal_ms = driver.schedule.heal_ms() as i64;
    let mut since = "the final heal";
    let mut deadline = heal_ms + bound as i64;
    let mut next_action = 0;
    let mut healed = false;
    let mut next_check = heal_ms;
    let mut converged_at = None;
    loop {
        let now = driver.cluster.now_ms();
        set_driver_now_ms(now);
        let mut acted = false;
        while next_action < actions.len() && actions[next_action].0 as i64 <= now {
            match actions[next_action].1 {
                Action::Start(i) => driver.start(i, now),
                Action::Heal(i) => driver.heal(i, now),
            }
            next_action += 1;
            acted = true;
        }
        if !healed && now >= heal_ms {
            healed = true;
            acted = true;
            if !driver.schedule.is_empty() {
                driver.heal_all(now);
            }
            driver.cluster.hub().harness(
                "sim",
                HarnessEvent::LivenessPhase {
                    deadline_ms: deadline,
                },
            );
        }
        // When the driver next has something to do: a fault action, the heal, a convergence
        // check, the end of the settle period. (The simulator skips the steps before it in which
        // nothing at all would happen: see `SimBackend::advance`.)
        let mut until = i64::MAX;
        if let Some((at, _)) = actions.get(next_action) {
            until = until.min(*at as i64);
        }
        if !healed {
            until = until.min(heal_ms);
        } else if converged_at.is_none() {
            until = until.min(next_check);
        }
        if let Some(at) = converged_at {
            until = until.min(at + options.settle_ms as i64);
        }
        if let Err(e) = driver.cluster.advance(acted, until) {
            driver.cluster.hub().violate(Violation::new(
                Invariant::HostFailure,
                now,
                format!("a host failed: {e}"),
            ));
            break;
        }
        let now = driver.cluster.now_ms();
        set_driver_now_ms(now);
        driver.cluster.after_step(now);
        if driver.cluster.hub().violation().is_some() {
            break;
        }
        if let Some(at) = converged_at
            && now >= at + options.settle_ms as i64
        {
            break;
        }
        if healed && converged_at.is_none() && now >= next_check {
            next_check = now + CONVERGENCE_CHECK_INTERVAL_MS;
            // Before the minimum duration a converged state ends nothing, and up to the deadline
            // a non-converged one is no violation: the check (costly for big groups) could decide
            // nothing, so it is skipped; the check times stay the same.
            if now < options.min_duration_ms as i64 && now <= deadline {
                continue;
            }
            let result = driver.cluster.converged(&expectations);
            match result {
                Ok(_) if !epilogue.is_empty() => {
                    // Converged before the epilogue: start it (once its time has come), then
                    // wait for the groups to converge to what it implies.
                    if epilogue_ms.is_some_and(|t| now >= t) {
                        for i in std::mem::take(&mut epilogue) {
                            driver.start(i, now);
                        }
                        expectations = after_epilogue.clone();
                        heal_ms = now;
                        since = "the epilogue";
                        deadline = now + bound as i64;
                        driver.cluster.hub().harness(
                            "sim",
                            HarnessEvent::LivenessPhase {
                                deadline_ms: deadline,
                            },
                        );
                    }
                }
                Ok(groups) => {
                    if now >= options.min_duration_ms as i64 {
                        for (group, epoch) in groups {
                            driver
                                .cluster
                                .hub()
                                .harness("sim", HarnessEvent::Converged { group, epoch });
                        }
                        converged_at = Some(now);
                        if options.settle_ms == 0 {
                            break;
                        }
                    }
                }
                Err(reason) => {
                    if now > deadline {
                        driver.cluster.hub().violate(
                            Violation::new(
                                Invariant::Convergence,
                                now,
                                format!(
                                    "not converged {bound} ms after {since} at {heal_ms} ms: {}",
                                    reason.detail
                                ),
                            )
                            .with_kind(reason.kind),
                        );
                        break;
                    }
                }
            }
        }
    }
    let sim_ms = driver.cluster.now_ms();
    let hub = driver.cluster.hub().clone();
    let violations: Vec<Violation> = hub.violation().into_iter().collect();
    let groups = driver.cluster.groups();
    RunOutcome {
        passed: violations.is_empty(),
        violations,
        trace_hash: hub.trace_hash(),
        sim_ms,
        events: hub.event_count(),
        groups,
        faults: driver.faults,
        converged_at_ms: converged_at,
        convergence_bound_ms: bound,
        log: hub.events(),
        coverage: hub.coverage(),
        assignor_calls: Vec::new(),
    }
}

/// What the groups converge to after `schedule` (its epilogue included or not).
pub fn expectations(
    spec: &ClusterSpec,
    schedule: &FaultSchedule,
    epilogue: bool,
) -> Vec<Expectation> {
    let windows: Vec<&FaultWindow> = schedule
        .windows
        .iter()
        .filter(|w| epilogue || !w.after_convergence)
        .collect();
    let mut existing: BTreeSet<String> = spec.topics.iter().map(|t| t.name.clone()).collect();
    for w in &windows {
        match &w.kind {
            FaultKind::CreateTopic { name, .. } => {
                existing.insert(name.clone());
            }
            FaultKind::DeleteTopic { name } => {
                existing.remove(name);
            }
            _ => {}
        }
    }
    // Only faults on processes the spec has count: one on a process that does not exist is
    // skipped when the run gets to it (a shrunk case may have fewer processes than its faults
    // name), and must not change what the groups converge to.
    let dormant = |group: &str| -> Option<(usize, &[usize])> {
        let a = spec.streams_apps.iter().find(|a| a.application_id == group);
        let g = spec.classic_groups.iter().find(|g| g.group_id == group);
        let c = spec.consumer_groups.iter().find(|g| g.group_id == group);
        a.map(|a| (a.processes, a.dormant.as_slice()))
            .or(g.map(|g| (g.processes, g.dormant.as_slice())))
            .or(c.map(|g| (g.processes, g.dormant.as_slice())))
    };
    let exists = |group: &str, index: usize| dormant(group).is_some_and(|(n, _)| index < n);
    // Processes removed for good, dormant processes started, and groups asked to shut down, by the
    // schedule.
    let mut removed: BTreeSet<String> = BTreeSet::new();
    let mut started: BTreeSet<String> = BTreeSet::new();
    let mut shut_down: BTreeSet<String> = BTreeSet::new();
    for w in &windows {
        match &w.kind {
            FaultKind::RemoveProcess {
                host: HostRef::Process { group, index },
            } if exists(group, *index) => {
                removed.insert(process_host(group, *index));
            }
            FaultKind::StartProcess {
                host: HostRef::Process { group, index },
            } if exists(group, *index) => {
                started.insert(process_host(group, *index));
            }
            FaultKind::ShutdownApplication {
                host: HostRef::Process { group, index },
            } if exists(group, *index) => {
                shut_down.insert(group.clone());
            }
            _ => {}
        }
    }
    // Dormant processes started with another process's instance ids: of each pair, the one that
    // joins last fences the other (FENCED_INSTANCE_ID, fatal), so the group keeps its size.
    let mut duplicates: BTreeMap<String, usize> = BTreeMap::new();
    for w in &windows {
        if let FaultKind::StartProcess {
            host: HostRef::Process { group, index },
        } = &w.kind
            && exists(group, *index)
            && let Some(g) = spec.classic_groups.iter().find(|g| g.group_id == *group)
            && g.instance_ids_of
                .get(index)
                .is_some_and(|of| !removed.contains(&process_host(group, *of)))
        {
            *duplicates.entry(group.clone()).or_default() += 1;
        }
    }
    // A dormant process that no window starts never runs.
    let remaining = |group: &str, processes: usize| {
        let never_started = |i: usize| {
            dormant(group).is_some_and(|(_, d)| d.contains(&i))
                && !started.contains(&process_host(group, i))
        };
        (0..processes)
            .filter(|i| !removed.contains(&process_host(group, *i)) && !never_started(*i))
            .count()
    };
    let mut e = Vec::new();
    for a in spec.streams_apps.iter().filter(|a| a.processes > 0) {
        let members = if shut_down.contains(&a.application_id) {
            0
        } else {
            remaining(&a.application_id, a.processes) * a.threads
        };
        e.push(Expectation::Streams {
            group: a.application_id.clone(),
            num_standby_replicas: a.num_standby_replicas,
            members,
        });
    }
    for g in spec.classic_groups.iter().filter(|g| g.processes > 0) {
        e.push(Expectation::Classic {
            group: g.group_id.clone(),
            topics: g.topics.clone(),
            required: g
                .topics
                .iter()
                .filter(|t| existing.contains(*t))
                .cloned()
                .collect(),
            members: remaining(&g.group_id, g.processes)
                .saturating_sub(duplicates.get(&g.group_id).copied().unwrap_or(0))
                * g.consumers_per_process,
        });
    }
    for g in spec.consumer_groups.iter().filter(|g| g.processes > 0) {
        // A pattern subscription ends on the topics the pattern matches among those that exist
        // (the coordinator's resolution, `TopicRegexResolver`, over every topic of the image).
        let subscribed: Vec<String> = match &g.topic_regex {
            Some(regex) => match coordinator::consumer::topic_regex::TopicRegex::compile(regex) {
                Ok(re) => existing.iter().filter(|t| re.matches(t)).cloned().collect(),
                Err(_) => Vec::new(),
            },
            None => g.topics.clone(),
        };
        // The protocol each process speaks at the end (its first, then each switch in order):
        // a group whose remaining processes all speak the classic protocol ends a classic group
        // (never converted, or downgraded when its last consumer-protocol member went, Kafka's
        // `convertToClassicGroup`); with any consumer-protocol member it is a consumer group.
        let mut protocols: BTreeMap<usize, crate::spec::GroupProtocol> =
            (0..g.processes).map(|i| (i, g.protocol_of(i))).collect();
        for w in &windows {
            if let FaultKind::SwitchProtocol {
                host: HostRef::Process { group, index },
                protocol,
            } = &w.kind
                && *group == g.group_id
                && let Some(p) = protocols.get_mut(index)
            {
                *p = *protocol;
            }
        }
        let never_started =
            |i: usize| g.dormant.contains(&i) && !started.contains(&process_host(&g.group_id, i));
        let all_classic = (0..g.processes)
            .filter(|i| !removed.contains(&process_host(&g.group_id, *i)) && !never_started(*i))
            .all(|i| protocols[&i] == crate::spec::GroupProtocol::Classic);
        if all_classic
            && protocols
                .values()
                .any(|p| *p == crate::spec::GroupProtocol::Classic)
        {
            e.push(Expectation::Classic {
                group: g.group_id.clone(),
                required: g
                    .topics
                    .iter()
                    .filter(|t| existing.contains(*t))
                    .cloned()
                    .collect(),
                topics: g.topics.clone(),
                members: remaining(&g.group_id, g.processes) * g.consumers_per_process,
            });
            continue;
        }
        e.push(Expectation::Consumer {
            group: g.group_id.clone(),
            classic_hosts: protocols
                .iter()
                .filter(|(_, p)| **p == crate::spec::GroupProtocol::Classic)
                .map(|(i, _)| process_host(&g.group_id, *i))
                .collect(),
            required: subscribed
                .iter()
                .filter(|t| existing.contains(*t))
                .cloned()
                .collect(),
            topics: subscribed,
            members: remaining(&g.group_id, g.processes) * g.consumers_per_process,
        });
    }
    e
}

impl<B: Backend> Driver<B> {
    fn count(&mut self, fault: &str) -> &mut FaultCount {
        self.faults.entry(fault.to_string()).or_default()
    }

    fn resolve(&self, r: &HostRef) -> Result<Vec<String>, String> {
        let known = |h: String| -> Result<Vec<String>, String> {
            if self.cluster.hosts().contains(&h) {
                Ok(vec![h])
            } else {
                Err(format!("no host {h}"))
            }
        };
        match r {
            HostRef::Named(n) => known(n.clone()),
            HostRef::Controller => known(CONTROLLER_HOST.to_string()),
            HostRef::Broker(id) => known(broker_host(*id)),
            HostRef::Process { group, index } => known(process_host(group, *index)),
            HostRef::ClassicLeaderOf(group) => known(self.cluster.classic_leader_host(group)?),
            HostRef::Group(group) => {
                let hosts: Vec<String> = self
                    .cluster
                    .processes()
                    .values()
                    .filter(|p| p.group == *group)
                    .map(|p| p.host.clone())
                    .collect();
                if hosts.is_empty() {
                    Err(format!("group {group} has no processes"))
                } else {
                    Ok(hosts)
                }
            }
            HostRef::Brokers => Ok(self.cluster.broker_hosts()),
            HostRef::CoordinatorOf(group) => match self.cluster.coordinator_of(group) {
                Some(id) => known(broker_host(id)),
                None => Err(format!("group {group} has no coordinator now")),
            },
        }
    }

    fn resolve_all(&self, refs: &[HostRef]) -> Result<Vec<String>, String> {
        let mut out = Vec::new();
        for r in refs {
            for h in self.resolve(r)? {
                if !out.contains(&h) {
                    out.push(h);
                }
            }
        }
        Ok(out)
    }

    fn others(&self, host: &str) -> Vec<String> {
        self.cluster
            .hosts()
            .iter()
            .filter(|h| *h != host && *h != ADMIN_HOST)
            .cloned()
            .collect()
    }

    fn pairs(a: &[String], b: &[String]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for x in a {
            for y in b {
                if x != y {
                    out.push((x.clone(), y.clone()));
                }
            }
        }
        out
    }

    /// Every pair of `hosts` with each other host (isolations, pauses).
    fn with_others(&self, hosts: &[String]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        for h in hosts {
            for o in self.others(h) {
                out.push((h.clone(), o));
            }
        }
        out
    }

    fn start(&mut self, i: usize, now: i64) {
        let kind = self.schedule.windows[i].kind.clone();
        let lasting = self.schedule.windows[i].duration_ms.is_some();
        let name = kind.name();
        match self.inject(&kind, lasting) {
            Ok(hosts) => {
                tracing::info!(window = i, fault = name, hosts = ?hosts, "fault injected");
                self.count(name).injected += 1;
                self.active.insert(i, hosts.clone());
                self.cluster.hub().fault(
                    "sim",
                    now,
                    FaultEvent::Injected {
                        window: i,
                        fault: name,
                        hosts,
                        spec: kind,
                    },
                );
            }
            Err(reason) => {
                tracing::info!(window = i, fault = name, %reason, "fault skipped");
                self.count(name).skipped += 1;
                self.cluster.hub().fault(
                    "sim",
                    now,
                    FaultEvent::Skipped {
                        window: i,
                        fault: name,
                        reason,
                    },
                );
            }
        }
    }

    fn crash(&mut self, host: &str) {
        if self.down.insert(host.to_string()) {
            self.cluster.crash(host);
            self.stalled.remove(host);
            self.assignment_stalled.remove(host);
            self.stopped.remove(host);
        }
    }

    fn restart(&mut self, host: &str) -> bool {
        if self.down.remove(host) {
            self.cluster.restart(host);
            true
        } else {
            false
        }
    }

    fn process(&self, host: &str) -> Result<crate::cluster::ProcessControl, String> {
        self.cluster
            .processes()
            .get(host)
            .map(|p| p.control.clone())
            .ok_or_else(|| format!("{host} is not a member process"))
    }

    /// Sends `command` to every process `host` resolves to (all of them must be member processes,
    /// or the fault is skipped) and records each in the set `held` picks, which the heal and the
    /// final heal release.
    fn command_processes(
        &mut self,
        host: &HostRef,
        command: ProcessCommand,
        held: fn(&mut Self) -> &mut BTreeSet<String>,
    ) -> Result<Vec<String>, String> {
        let hs = self.resolve(host)?;
        let controls = hs
            .iter()
            .map(|h| self.process(h))
            .collect::<Result<Vec<_>, _>>()?;
        for (h, control) in hs.iter().zip(controls) {
            control.send(command.clone());
            held(self).insert(h.clone());
        }
        Ok(hs)
    }

    /// Sends `command` to each of `hosts` that is still a process, and drops each from the set
    /// `held` picks.
    fn release_processes(
        &mut self,
        hosts: &[String],
        command: ProcessCommand,
        held: fn(&mut Self) -> &mut BTreeSet<String>,
    ) {
        for h in hosts {
            if let Ok(c) = self.process(h) {
                c.send(command.clone());
            }
            held(self).remove(h);
        }
    }

    /// Applies one link change through the counts of [`LinkFaults`].
    fn link(&mut self, change: impl FnOnce(&mut LinkFaults) -> Vec<LinkCall>) {
        let calls = change(&mut self.links);
        self.cluster.apply_links(calls);
    }

    /// Injects `kind`; `lasting`: the window has a duration (its heal ends it).
    fn inject(&mut self, kind: &FaultKind, lasting: bool) -> Result<Vec<String>, String> {
        self.cluster.supports(kind)?;
        match kind {
            FaultKind::Partition { a, b } | FaultKind::Hold { a, b } => {
                let (a, b) = (self.resolve_all(a)?, self.resolve_all(b)?);
                let pairs = Self::pairs(&a, &b);
                let how = if matches!(kind, FaultKind::Hold { .. }) {
                    LinkUse::Hold
                } else {
                    LinkUse::Cut
                };
                self.cluster.links_applicable(&pairs, how)?;
                for (x, y) in pairs {
                    if matches!(kind, FaultKind::Hold { .. }) {
                        self.link(|l| l.hold(&x, &y));
                    } else {
                        self.link(|l| l.cut(&x, &y));
                    }
                }
                Ok([a, b].concat())
            }
            FaultKind::PartitionOneway { from, to } => {
                let (a, b) = (self.resolve_all(from)?, self.resolve_all(to)?);
                let pairs = Self::pairs(&a, &b);
                self.cluster.links_applicable(&pairs, LinkUse::OneWay)?;
                for (x, y) in pairs {
                    self.link(|l| l.cut_oneway(&x, &y));
                }
                Ok([a, b].concat())
            }
            FaultKind::Latency { a, b, max_ms } => {
                let (a, b) = (self.resolve_all(a)?, self.resolve_all(b)?);
                let pairs = Self::pairs(&a, &b);
                self.cluster.links_applicable(&pairs, LinkUse::Latency)?;
                for (x, y) in pairs {
                    self.link(|l| l.add_latency(&x, &y, *max_ms));
                }
                Ok([a, b].concat())
            }
            FaultKind::FailRate { a, b, rate } => {
                let (a, b) = (self.resolve_all(a)?, self.resolve_all(b)?);
                let pairs = Self::pairs(&a, &b);
                self.cluster.links_applicable(&pairs, LinkUse::FailRate)?;
                for (x, y) in pairs {
                    self.link(|l| l.add_fail_rate(&x, &y, *rate));
                }
                Ok([a, b].concat())
            }
            FaultKind::Isolate { host } => {
                let hs = self.resolve(host)?;
                let pairs = self.with_others(&hs);
                self.cluster.links_applicable(&pairs, LinkUse::Cut)?;
                for (h, o) in pairs {
                    self.link(|l| l.cut(&h, &o));
                }
                Ok(hs)
            }
            FaultKind::Crash { host } | FaultKind::SilentDeath { host } => {
                let hs = self.resolve(host)?;
                if let Some(h) = hs.iter().find(|h| self.down.contains(*h)) {
                    return Err(format!("{h} is already down"));
                }
                for h in &hs {
                    self.cluster.crashable(h)?;
                }
                let silent = matches!(kind, FaultKind::SilentDeath { .. });
                // A host the backend can stop as a whole dies silently by being stopped (no FIN,
                // no RST: its sockets stay open), its crash following at the restart.
                let stopped = silent && hs.iter().all(|h| self.cluster.pausable(h));
                if silent && !stopped {
                    self.cluster
                        .links_applicable(&self.with_others(&hs), LinkUse::Cut)?;
                }
                for h in &hs {
                    if stopped {
                        self.cluster.pause_host(h, true);
                    } else if silent {
                        for o in self.others(h) {
                            self.link(|l| l.cut(h, &o));
                        }
                    }
                    self.crash(h);
                }
                Ok(hs)
            }
            FaultKind::Pause { host } => {
                let hs = self.resolve(host)?;
                if hs.iter().all(|h| self.cluster.pausable(h)) {
                    for h in &hs {
                        self.cluster.pause_host(h, true);
                    }
                    return Ok(hs);
                }
                let pairs = self.with_others(&hs);
                self.cluster.links_applicable(&pairs, LinkUse::Hold)?;
                for (h, o) in pairs {
                    self.link(|l| l.hold(&h, &o));
                }
                Ok(hs)
            }
            FaultKind::StallHeartbeats { host, thread } => self.command_processes(
                host,
                ProcessCommand::StallHeartbeats {
                    thread: *thread,
                    stalled: true,
                },
                |r| &mut r.stalled,
            ),
            FaultKind::StallAssignment { host } => self.command_processes(
                host,
                ProcessCommand::StallAssignment { stalled: true },
                |r| &mut r.assignment_stalled,
            ),
            FaultKind::FenceBroker { broker } => {
                let hs = self.resolve(broker)?;
                if let Some(h) = hs.iter().find(|h| !h.starts_with("broker-")) {
                    return Err(format!("{h} is not a broker"));
                }
                let pairs: Vec<(String, String)> = hs
                    .iter()
                    .map(|h| (h.clone(), CONTROLLER_HOST.to_string()))
                    .collect();
                self.cluster.links_applicable(&pairs, LinkUse::Cut)?;
                for h in &hs {
                    self.link(|l| l.cut(h, CONTROLLER_HOST));
                }
                Ok(hs)
            }
            FaultKind::StopProcess { host } => {
                self.command_processes(host, ProcessCommand::Stop, |r| &mut r.stopped)
            }
            FaultKind::CreateTopic { name, partitions } => {
                self.cluster.admin_command(AdminCommand::CreateTopic {
                    name: name.clone(),
                    partitions: *partitions,
                    replication_factor: self.cluster.topic_replication_factor(),
                });
                Ok(vec![ADMIN_HOST.to_string()])
            }
            FaultKind::StartProcess { host } => {
                let h = self.resolve(host)?;
                self.process(&h[0])?.send(ProcessCommand::Start);
                Ok(h)
            }
            FaultKind::SwitchProtocol { host, protocol } => {
                if let Some(why) = self.cluster.protocol_switch_refusal() {
                    return Err(why.to_string());
                }
                let hs = self.resolve(host)?;
                let mut controls = Vec::new();
                for h in &hs {
                    let group = self
                        .cluster
                        .processes()
                        .get(h)
                        .map(|p| p.group.clone())
                        .ok_or_else(|| format!("{h} is not a member process"))?;
                    if !self
                        .cluster
                        .spec()
                        .consumer_groups
                        .iter()
                        .any(|g| g.group_id == group)
                    {
                        return Err(format!(
                            "{h} is not a consumer group's process (only those switch protocols)"
                        ));
                    }
                    controls.push(self.process(h)?);
                }
                // A lasting switch keeps the process down until the heal starts it (a static
                // member's restart past its session); an instantaneous one restarts it at once.
                for (h, control) in hs.iter().zip(controls) {
                    control.send(ProcessCommand::SwitchProtocol {
                        protocol: *protocol,
                        restart: !lasting,
                    });
                    if lasting {
                        self.stopped.insert(h.clone());
                    }
                }
                Ok(hs)
            }
            FaultKind::RemoveProcess { host } => {
                let h = self.resolve(host)?;
                self.process(&h[0])?.send(ProcessCommand::Stop);
                Ok(h)
            }
            FaultKind::ShutdownApplication { host } => {
                let h = self.resolve(host)?;
                self.process(&h[0])?
                    .send(ProcessCommand::ShutdownApplication);
                Ok(h)
            }
            FaultKind::ControlledShutdown { broker } => {
                let h = self.resolve(broker)?;
                let id = broker_id_of(&h[0]).ok_or_else(|| format!("{} is not a broker", h[0]))?;
                if self.down.contains(&h[0]) {
                    return Err(format!("{} is already down", h[0]));
                }
                self.cluster.controlled_shutdown(id)?;
                // The broker stops by itself once the controller lets it; the heal restarts it.
                self.down.insert(h[0].clone());
                Ok(h)
            }
            FaultKind::RemoveStaticMembers {
                group,
                instance_ids,
            } => {
                self.cluster
                    .admin_command(AdminCommand::RemoveStaticMembers {
                        group: group.clone(),
                        instance_ids: instance_ids.clone(),
                    });
                Ok(vec![ADMIN_HOST.to_string()])
            }
            FaultKind::StaleBrokerHeartbeat { broker } => {
                let h = self.resolve(broker)?;
                let id = broker_id_of(&h[0]).ok_or_else(|| format!("{} is not a broker", h[0]))?;
                self.cluster.controller_reachable()?;
                let epochs = self.cluster.broker_epochs(id);
                if epochs.len() < 2 {
                    return Err(format!("{} has not re-registered yet", h[0]));
                }
                self.cluster
                    .admin_command(AdminCommand::StaleBrokerHeartbeat {
                        broker: id,
                        epoch: epochs[epochs.len() - 2],
                    });
                Ok(vec![h[0].clone(), ADMIN_HOST.to_string()])
            }
            FaultKind::AddPartitions { topic, total } => {
                self.cluster.controller_admin(AdminOp::CreatePartitions {
                    topic: topic.clone(),
                    total: *total,
                })
            }
            FaultKind::DeleteTopic { name } => {
                self.cluster.controller_admin(AdminOp::DeleteTopic {
                    topic: name.clone(),
                })
            }
            FaultKind::GroupAdmin { group, call } => {
                let streams = self
                    .cluster
                    .spec()
                    .streams_apps
                    .iter()
                    .any(|a| a.application_id == *group);
                self.cluster.admin_command(AdminCommand::GroupAdmin {
                    group: group.clone(),
                    streams,
                    call: call.clone(),
                });
                Ok(vec![ADMIN_HOST.to_string()])
            }
        }
    }

    fn heal(&mut self, i: usize, now: i64) {
        let Some(hosts) = self.active.remove(&i) else {
            return;
        };
        let kind = self.schedule.windows[i].kind.clone();
        let name = kind.name();
        match &kind {
            FaultKind::Partition { a, .. } | FaultKind::Hold { a, .. } => {
                // `hosts` is a's hosts followed by b's: rebuild the two sides.
                let na = self
                    .resolve_all(a)
                    .map(|v| v.len())
                    .unwrap_or(0)
                    .min(hosts.len());
                let (a, b) = hosts.split_at(na);
                for (x, y) in Self::pairs(a, b) {
                    if matches!(kind, FaultKind::Hold { .. }) {
                        self.link(|l| l.release(&x, &y));
                    } else {
                        self.link(|l| l.uncut(&x, &y));
                    }
                }
            }
            FaultKind::PartitionOneway { from, .. } => {
                let na = self
                    .resolve_all(from)
                    .map(|v| v.len())
                    .unwrap_or(0)
                    .min(hosts.len());
                let (a, b) = hosts.split_at(na);
                for (x, y) in Self::pairs(a, b) {
                    self.link(|l| l.uncut_oneway(&x, &y));
                }
            }
            FaultKind::Latency { a, .. } | FaultKind::FailRate { a, .. } => {
                let na = self
                    .resolve_all(a)
                    .map(|v| v.len())
                    .unwrap_or(0)
                    .min(hosts.len());
                let (a, b) = hosts.split_at(na);
                for (x, y) in Self::pairs(a, b) {
                    match &kind {
                        FaultKind::Latency { max_ms, .. } => {
                            self.link(|l| l.remove_latency(&x, &y, *max_ms))
                        }
                        FaultKind::FailRate { rate, .. } => {
                            self.link(|l| l.remove_fail_rate(&x, &y, *rate))
                        }
                        _ => {}
                    }
                }
            }
            FaultKind::Isolate { .. } => {
                for h in &hosts {
                    for o in self.others(h) {
                        self.link(|l| l.uncut(h, &o));
                    }
                }
            }
            FaultKind::Crash { .. } => {
                for h in &hosts {
                    self.restart(h);
                }
            }
            FaultKind::SilentDeath { .. } => {
                let stopped = hosts.iter().all(|h| self.cluster.pausable(h));
                for h in &hosts {
                    self.restart(h);
                    if !stopped {
                        for o in self.others(h) {
                            self.link(|l| l.uncut(h, &o));
                        }
                    }
                }
            }
            FaultKind::Pause { .. } => {
                if hosts.iter().all(|h| self.cluster.pausable(h)) {
                    for h in &hosts {
                        self.cluster.pause_host(h, false);
                    }
                } else {
                    for h in &hosts {
                        for o in self.others(h) {
                            self.link(|l| l.release(h, &o));
                        }
                    }
                }
            }
            FaultKind::StallHeartbeats { thread, .. } => self.release_processes(
                &hosts,
                ProcessCommand::StallHeartbeats {
                    thread: *thread,
                    stalled: false,
                },
                |r| &mut r.stalled,
            ),
            FaultKind::StallAssignment { .. } => self.release_processes(
                &hosts,
                ProcessCommand::StallAssignment { stalled: false },
                |r| &mut r.assignment_stalled,
            ),
            FaultKind::FenceBroker { .. } => {
                for h in &hosts {
                    self.link(|l| l.uncut(h, CONTROLLER_HOST));
                }
            }
            FaultKind::StopProcess { .. } | FaultKind::SwitchProtocol { .. } => {
                self.release_processes(&hosts, ProcessCommand::Start, |r| &mut r.stopped)
            }
            FaultKind::ControlledShutdown { .. } => {
                self.cluster.controlled_shutdown_over(&hosts[0]);
                self.restart(&hosts[0]);
            }
            FaultKind::CreateTopic { .. }
            | FaultKind::StartProcess { .. }
            | FaultKind::RemoveProcess { .. }
            | FaultKind::ShutdownApplication { .. }
            | FaultKind::RemoveStaticMembers { .. }
            | FaultKind::StaleBrokerHeartbeat { .. }
            | FaultKind::AddPartitions { .. }
            | FaultKind::DeleteTopic { .. }
            | FaultKind::GroupAdmin { .. } => {}
        }
        tracing::info!(window = i, fault = name, hosts = ?hosts, "fault healed");
        self.count(name).healed += 1;
        self.cluster.hub().fault(
            "sim",
            now,
            FaultEvent::Healed {
                window: i,
                fault: name,
                hosts,
            },
        );
    }

    /// Ends every fault: links repaired and released with the cluster's latency and no failure
    /// rate, crashed hosts restarted, heartbeats resumed, stopped processes started.
    fn heal_all(&mut self, now: i64) {
        let ids: Vec<usize> = self.active.keys().copied().collect();
        for i in ids {
            self.heal(i, now);
        }
        self.cluster.heal_all_links();
        let mut restarted = Vec::new();
        for h in self.down.clone() {
            if self.restart(&h) {
                restarted.push(h);
            }
        }
        let stalled: Vec<String> = self.stalled.iter().cloned().collect();
        self.release_processes(
            &stalled,
            ProcessCommand::StallHeartbeats {
                thread: None,
                stalled: false,
            },
            |r| &mut r.stalled,
        );
        let assignment_stalled: Vec<String> = self.assignment_stalled.iter().cloned().collect();
        self.release_processes(
            &assignment_stalled,
            ProcessCommand::StallAssignment { stalled: false },
            |r| &mut r.assignment_stalled,
        );
        let stopped: Vec<String> = self.stopped.iter().cloned().collect();
        self.release_processes(&stopped, ProcessCommand::Start, |r| &mut r.stopped);
        self.cluster
            .hub()
            .fault("sim", now, FaultEvent::AllHealed { restarted });
    }
}

/// The simulator's backend: a turmoil cluster, stepped tick by tick in simulated time.
pub struct SimBackend {
    cluster: Cluster,
    /// Every broker epoch each broker has run with, oldest first.
    broker_epochs: BTreeMap<i32, Vec<i64>>,
    /// When the last broker check would fail if the controller's state stayed as it was then
    /// (simulated ms): the driver must look again by then.
    brokers_fail_at: Option<i64>,
    /// The harness's replay of the controller's metadata log (`partition-state`).
    partition_states: crate::invariants::partitions::PartitionStates,
}

impl SimBackend {
    pub fn new(cluster: Cluster) -> Self {
        Self {
            cluster,
            broker_epochs: BTreeMap::new(),
            brokers_fail_at: None,
            partition_states: crate::invariants::partitions::PartitionStates::new(),
        }
    }

    fn tick(&self) -> i64 {
        self.cluster.spec.tick_ms.max(1) as i64
    }

    /// Remembers every broker epoch the running brokers have registered with.
    fn note_broker_epochs(&mut self) {
        let brokers = self.cluster.brokers.borrow();
        for (id, handle) in brokers.iter() {
            let epoch = handle.broker_epoch();
            if epoch < 0 {
                continue;
            }
            let seen = self.broker_epochs.entry(*id).or_default();
            if seen.last() != Some(&epoch) {
                seen.push(epoch);
            }
        }
    }

    /// Checks broker fencing now, and notes when the check would next fail if nothing changed.
    fn check_brokers(&mut self, now: i64, tick: i64) {
        self.brokers_fail_at = None;
        let controller = self.cluster.controller.borrow().clone();
        let Some(c) = controller else {
            return;
        };
        let started = EPOCH_MS + self.cluster.controller_started_ms.get();
        let view = c.with_state(|c| brokers::BrokerView::of(c, EPOCH_MS + now));
        if let Err(v) = brokers::check(now, &view, started, tick) {
            self.cluster.hub.violate(v);
        }
        self.brokers_fail_at =
            brokers::fails_by_time_at(&view, started, tick).map(|at| at - EPOCH_MS);
        let states = &mut self.partition_states;
        if let Err(v) = c.with_state(|c| states.check(now, c)) {
            self.cluster.hub.violate(v);
        }
        // Consumer-group records name topics by id: the model learns the names the controller
        // gave them.
        if !self.cluster.spec.consumer_groups.is_empty() {
            self.cluster
                .hub
                .learn_topic_names(self.partition_states.topic_names());
        }
    }
}

impl Backend for SimBackend {
    fn hub(&self) -> &Hub {
        &self.cluster.hub
    }

    fn spec(&self) -> &ClusterSpec {
        &self.cluster.spec
    }

    fn hosts(&self) -> &[String] {
        &self.cluster.hosts
    }

    fn broker_hosts(&self) -> Vec<String> {
        (1..=self.cluster.spec.brokers as i32)
            .map(broker_host)
            .collect()
    }

    fn processes(&self) -> &BTreeMap<String, ProcessInfo> {
        &self.cluster.processes
    }

    fn now_ms(&self) -> i64 {
        self.cluster.sim.elapsed().as_millis() as i64
    }

    fn advance(&mut self, acted: bool, until: i64) -> Result<(), String> {
        // Steps in which nothing at all would happen are skipped (turmoil's `Sim::skip_idle`: no
        // task ready, no timer or delivery due), up to the step that ends when the driver next
        // has something to do, or when the broker check would fail. The driver's own work after
        // each skipped step would find nothing new (it reads state only the hosts change) and is
        // not done; after an action of its own it does not skip, since what the action changed
        // is read after the next step.
        if !acted {
            let now = self.now_ms();
            let tick = self.tick();
            let until = match self.brokers_fail_at {
                Some(at) => until.min(at),
                None => until,
            };
            // The step that ends at or after `until` is stepped; the ones before it may be skipped.
            let steps = until.saturating_sub(now).saturating_add(tick - 1) / tick - 1;
            if steps > 0 {
                self.cluster.sim.skip_idle(steps as u64);
            }
        }
        self.cluster
            .sim
            .step()
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn after_step(&mut self, now: i64) {
        self.cluster.hub.catch_up(now);
        let tick = self.tick();
        self.check_brokers(now, tick);
        self.note_broker_epochs();
    }

    fn links_applicable(&self, _pairs: &[(String, String)], _how: LinkUse) -> Result<(), String> {
        Ok(())
    }

    fn apply_links(&mut self, calls: Vec<LinkCall>) {
        links::apply(&mut self.cluster.sim, calls);
    }

    fn heal_all_links(&mut self) {
        let hosts = self.cluster.hosts.clone();
        let max = std::time::Duration::from_millis(self.cluster.spec.latency.max_ms);
        for (i, x) in hosts.iter().enumerate() {
            for y in &hosts[i + 1..] {
                let sim = &mut self.cluster.sim;
                sim.repair(x.as_str(), y.as_str());
                sim.release(x.as_str(), y.as_str());
                sim.set_link_max_message_latency(x.as_str(), y.as_str(), max);
                sim.set_link_fail_rate(x.as_str(), y.as_str(), 0.0);
            }
        }
    }

    fn crashable(&self, _host: &str) -> Result<(), String> {
        Ok(())
    }

    fn crash(&mut self, host: &str) {
        self.cluster.sim.crash(host);
        if host == CONTROLLER_HOST {
            *self.cluster.controller.borrow_mut() = None;
        } else if let Some(id) = broker_id_of(host) {
            self.cluster.brokers.borrow_mut().remove(&id);
        }
    }

    fn restart(&mut self, host: &str) {
        self.cluster.sim.bounce(host);
    }

    fn controlled_shutdown(&mut self, id: i32) -> Result<(), String> {
        let handle = self.cluster.brokers.borrow().get(&id).cloned();
        let handle = handle.ok_or_else(|| format!("{} is not running", broker_host(id)))?;
        handle.begin_controlled_shutdown();
        Ok(())
    }

    fn controlled_shutdown_over(&mut self, host: &str) {
        self.cluster
            .brokers
            .borrow_mut()
            .retain(|id, _| broker_host(*id) != host);
    }

    fn controller_admin(&mut self, op: AdminOp) -> Result<Vec<String>, String> {
        match self.cluster.controller.borrow().as_ref() {
            Some(c) => {
                c.submit(op);
                Ok(vec![CONTROLLER_HOST.to_string()])
            }
            None => Err("the controller is down".into()),
        }
    }

    fn broker_epochs(&self, id: i32) -> Vec<i64> {
        self.broker_epochs.get(&id).cloned().unwrap_or_default()
    }

    fn controller_reachable(&self) -> Result<(), String> {
        Ok(())
    }

    fn admin_command(&self, command: AdminCommand) {
        self.cluster.admin_command(command);
    }

    fn topic_replication_factor(&self) -> i16 {
        self.cluster.spec.brokers.min(3) as i16
    }

    fn coordinator_of(&self, group: &str) -> Option<i32> {
        self.cluster.coordinator_of(group)
    }

    fn classic_leader_host(&self, group: &str) -> Result<String, String> {
        self.cluster
            .hub
            .with_state(|model, checker| {
                let leader = model.classic.get(group)?.leader.clone()?;
                checker
                    .live_clients()
                    .find(|(_, c)| c.member_id == leader)
                    .map(|(_, c)| c.host.clone())
            })
            .ok_or_else(|| format!("group {group} has no running leader now"))
    }

    fn converged(&self, expectations: &[Expectation]) -> Result<Vec<(String, i32)>, NotConverged> {
        let partitions = self.cluster.topic_partitions();
        self.cluster.hub.with_state(|model, checker| {
            convergence::check(expectations, model, checker, &partitions)
        })
    }

    fn groups(&self) -> Vec<GroupSummary> {
        self.cluster.hub.with_state(|model, _| summarize(model))
    }
}

/// The groups as `model` describes them (members with their epochs, tasks or partitions), sorted.
pub fn summarize(model: &Model) -> Vec<GroupSummary> {
    {
        let mut out = Vec::new();
        for (id, g) in model.streams.iter().filter(|(_, g)| g.exists) {
            let members = g
                .live_members()
                .map(|(mid, m)| {
                    let meta = m.metadata.as_ref();
                    let fmt = |set: std::collections::BTreeSet<(String, i32)>| {
                        set.into_iter().map(|(s, p)| format!("{s}_{p}")).collect()
                    };
                    MemberSummary {
                        member_id: mid.clone(),
                        instance_id: meta.and_then(|m| m.instance_id.clone()),
                        process_id: meta.map(|m| m.process_id.clone()),
                        epoch: m.epoch(),
                        active_tasks: fmt(m.active()),
                        standby_tasks: fmt(m.standby()),
                        partitions: Vec::new(),
                    }
                })
                .collect();
            out.push(GroupSummary {
                group_id: id.clone(),
                kind: "streams",
                epoch: g.epoch,
                members,
            });
        }
        for (id, g) in model.classic.iter().filter(|(_, g)| g.exists) {
            let mut members: Vec<MemberSummary> = g
                .members
                .iter()
                .map(|m| MemberSummary {
                    member_id: m.member_id.clone(),
                    instance_id: m.instance_id.clone(),
                    process_id: None,
                    epoch: g.generation,
                    active_tasks: Vec::new(),
                    standby_tasks: Vec::new(),
                    partitions: {
                        let mut p: Vec<String> =
                            m.partitions.iter().map(|tp| tp.to_string()).collect();
                        p.sort();
                        p
                    },
                })
                .collect();
            members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
            out.push(GroupSummary {
                group_id: id.clone(),
                kind: "classic",
                epoch: g.generation,
                members,
            });
        }
        for (id, g) in model.consumer.iter().filter(|(_, g)| g.exists) {
            let members = g
                .live_members()
                .map(|(mid, m)| {
                    let mut partitions: Vec<String> = m
                        .assigned()
                        .iter()
                        .map(|(topic, p)| match model.topic_names.get(topic) {
                            Some(name) => format!("{name}-{p}"),
                            None => format!("{topic}-{p}"),
                        })
                        .collect();
                    partitions.sort();
                    MemberSummary {
                        member_id: mid.clone(),
                        instance_id: m.metadata.as_ref().and_then(|m| m.instance_id.clone()),
                        process_id: None,
                        epoch: m.epoch(),
                        active_tasks: Vec::new(),
                        standby_tasks: Vec::new(),
                        partitions,
                    }
                })
                .collect();
            out.push(GroupSummary {
                group_id: id.clone(),
                kind: "consumer",
                epoch: g.epoch,
                members,
            });
        }
        out.sort_by(|a, b| a.group_id.cmp(&b.group_id));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::{Timings, Workload};

    #[test]
    fn expectations_follow_only_the_faults_on_processes_that_exist() {
        use crate::spec::{ClassicGroupSpec, StreamsAppSpec};
        use members::streams::topology::{Subtopology, Topology};
        // Classic: 3 processes x 2 consumers, process 2 dormant with process 0's instance ids.
        // Streams: 2 processes x 1 thread.
        let mut g = ClassicGroupSpec::new("g", &["t"], 3, 2)
            .with_static_membership()
            .with_dormant([2]);
        g.instance_ids_of.insert(2, 0);
        let spec = ClusterSpec::default()
            .with_topic("t", 4)
            .with_classic(g)
            .with_streams(StreamsAppSpec::new(
                "app",
                Topology::new(vec![Subtopology::new("0", &["t"])]),
                2,
                1,
            ));
        let members = |windows: Vec<FaultWindow>, epilogue: bool| -> Vec<(String, usize)> {
            expectations(&spec, &FaultSchedule::new(windows), epilogue)
                .iter()
                .map(|e| (e.group().to_string(), e.members()))
                .collect()
        };
        let at = |kind| FaultWindow::at(10_000, kind);
        let p = |group: &str, i| HostRef::process(group, i);
        let both = |app, g| vec![("app".to_string(), app), ("g".to_string(), g)];
        // The dormant process is not expected unless a window starts it; started, it and the
        // process whose ids it took count once.
        assert_eq!(members(vec![], false), both(2, 4));
        let start = at(FaultKind::StartProcess { host: p("g", 2) });
        assert_eq!(members(vec![start.clone()], false), both(2, 4));
        // Faults on processes the spec does not have change nothing.
        assert_eq!(
            members(
                vec![
                    at(FaultKind::RemoveProcess { host: p("g", 7) }),
                    at(FaultKind::StartProcess { host: p("g", 5) }),
                    at(FaultKind::ShutdownApplication { host: p("app", 3) }),
                ],
                false
            ),
            both(2, 4)
        );
        // A removal and a shutdown on processes that exist do.
        assert_eq!(
            members(
                vec![
                    at(FaultKind::RemoveProcess { host: p("g", 1) }),
                    at(FaultKind::ShutdownApplication { host: p("app", 1) }),
                ],
                false
            ),
            both(0, 2)
        );
        // An epilogue counts only when asked for.
        let shutdown = at(FaultKind::ShutdownApplication { host: p("app", 0) }).after_convergence();
        assert_eq!(members(vec![shutdown.clone()], false), both(2, 4));
        assert_eq!(members(vec![shutdown, start], true), both(0, 4));
    }

    /// A consumer group whose processes switch protocols ends a classic group when every
    /// remaining process ends on the classic protocol, a consumer group (with its classic
    /// members' hosts) otherwise.
    #[test]
    fn expectations_follow_protocol_switches() {
        use crate::spec::{ConsumerGroupSpec, GroupProtocol};
        let spec = ClusterSpec::default().with_topic("t", 4).with_consumer(
            ConsumerGroupSpec::new("g", &["t"], 3, 1).with_classic_processes([0, 1, 2]),
        );
        let switch = |i: usize, protocol| {
            FaultWindow::at(
                10_000 + i as u64,
                FaultKind::SwitchProtocol {
                    host: HostRef::process("g", i),
                    protocol,
                },
            )
        };
        let shape = |windows: Vec<FaultWindow>| -> String {
            match &expectations(&spec, &FaultSchedule::new(windows), false)[..] {
                [Expectation::Classic { members, .. }] => format!("classic {members}"),
                [
                    Expectation::Consumer {
                        members,
                        classic_hosts,
                        ..
                    },
                ] => format!("consumer {members} {classic_hosts:?}"),
                other => format!("{other:?}"),
            }
        };
        assert_eq!(shape(vec![]), "classic 3");
        assert_eq!(
            shape(vec![switch(0, GroupProtocol::Consumer)]),
            r#"consumer 3 {"g-1", "g-2"}"#
        );
        // Switched back, or the only consumer-protocol process removed: classic again.
        assert_eq!(
            shape(vec![
                switch(0, GroupProtocol::Consumer),
                switch(0, GroupProtocol::Classic)
            ]),
            "classic 3"
        );
        assert_eq!(
            shape(vec![
                switch(2, GroupProtocol::Consumer),
                FaultWindow::at(
                    20_000,
                    FaultKind::RemoveProcess {
                        host: HostRef::process("g", 2)
                    }
                ),
            ]),
            "classic 2"
        );
        // A switch of a process the spec does not have changes nothing.
        assert_eq!(shape(vec![switch(5, GroupProtocol::Consumer)]), "classic 3");
    }

    fn kafka_timed_spec() -> ClusterSpec {
        let w = Workload {
            processes: 2,
            threads: 2,
            tick_ms: 10,
            sim_ms: 60_000,
            faults: false,
            seed: 1,
            timings: Timings::Kafka,
        };
        w.prepare().0
    }

    #[test]
    fn the_bound_allows_a_coordinator_move_by_the_leader_imbalance_check_after_the_heal() {
        // Kafka's defaults: sessions 45 s, rebalance timeout 300 s, broker session 9 s, leader
        // imbalance check every 300 s: 90 + 300 + 9 + min(300, 300).
        let mut spec = kafka_timed_spec();
        assert_eq!(coordinator_move_after_heal_ms(&spec, 300_000), 300_000);
        assert_eq!(default_convergence_bound_ms(&spec), 699_000);
        // A check interval shorter than the rebalance timeout bounds the extra wait.
        spec.broker_configs.insert(
            "leader.imbalance.check.interval.seconds".into(),
            "60".into(),
        );
        assert_eq!(default_convergence_bound_ms(&spec), 459_000);
        // Without automatic leader balancing nothing moves the coordinator after the heal.
        let mut off = kafka_timed_spec();
        off.broker_configs
            .insert("auto.leader.rebalance.enable".into(), "false".into());
        assert_eq!(coordinator_move_after_heal_ms(&off, 300_000), 0);
        assert_eq!(default_convergence_bound_ms(&off), 399_000);
    }

    #[test]
    fn a_rebalance_timeout_shorter_than_the_check_interval_caps_the_extra_wait() {
        // The catalogue's timings: sessions 10 s, rebalance timeout 20 s: 20 + 20 + 9 + 20.
        let topology = members::streams::topology::Topology::new(vec![
            members::streams::topology::Subtopology::new("0", &["input"]),
        ]);
        let spec = ClusterSpec::default()
            .with_topic("input", 4)
            .with_streams(crate::spec::StreamsAppSpec::new("app", topology, 2, 2));
        assert_eq!(coordinator_move_after_heal_ms(&spec, 20_000), 20_000);
        assert_eq!(default_convergence_bound_ms(&spec), 69_000);
    }
}

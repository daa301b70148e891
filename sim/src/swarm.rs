//! Swarm mode: per seed, draw which fault kinds a run uses, how often, how long their windows are
//! (straddling the session timeout, so some faults heal just before a member or broker would be
//! expired and some just after), the latency of the network and how many processes each group
//! runs — then draw the fault schedule from those options. Different seeds explore different
//! mixes instead of one uniform blend that heals everything before it matters.

use std::collections::BTreeMap;

use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde::{Deserialize, Serialize};

use crate::faults::{FaultKind, FaultSchedule, FaultWindow, GroupAdminCall, HostRef};
use crate::spec::{ClusterSpec, Latency};

/// The fault kinds swarm mode draws from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SwarmKind {
    /// Two-way partition between a process and its coordinator, or between two brokers.
    Partition,
    /// One-way partition (either direction) between a process and its coordinator or two brokers.
    PartitionOneway,
    /// A broker or a process cut off from everyone.
    Isolate,
    /// Links between a process and the brokers held, then released.
    Hold,
    /// Slow links between a process and the brokers.
    Latency,
    /// Flapping links between a process and the brokers.
    FailRate,
    /// A broker, the controller or a process crashes and restarts later.
    Crash,
    /// The broker coordinating a group crashes and restarts later.
    CoordinatorCrash,
    /// A broker or process is isolated, then crashed.
    SilentDeath,
    /// A process's links are all held: zombie members.
    Pause,
    /// A process's heartbeats stall while it keeps committing.
    StallHeartbeats,
    /// The coordinator's broker is fenced at the controller.
    FenceBroker,
    /// A process stops gracefully and starts again.
    StopProcess,
    /// A scratch topic is created, grows, and is deleted (metadata changes every broker's
    /// coordinators see). Drawn from its own stream, so enabling it leaves the other draws of a
    /// seed unchanged.
    TopicChange,
    /// A broker (the coordinating one or any) goes through controlled shutdown and restarts
    /// later. Enabled from its own stream and drawn after every other kind, like `TopicChange`.
    ControlledShutdown,
    /// The admin client describes a group at random times (four times the kind's rate): each
    /// answer is checked by the coordinator-answers invariant (a described state that contradicts
    /// the answer's own epochs and members). A late kind.
    AdminProbe,
    /// A second process starts with the instance ids of a running process of a classic group of
    /// static members (two live consumers, one `group.instance.id`): Kafka gives the newcomer a
    /// new member id and fences the older one (FENCED_INSTANCE_ID, fatal for the consumer), so
    /// the group keeps its size. One start per seed, in a group and of a process drawn from the
    /// kind's own stream; a late kind.
    DuplicateInstance,
    /// Once the groups have converged after the last fault has healed (and 15 to 30 s after the
    /// heal at the earliest), a streams process asks for the application's shutdown (SHUTDOWN_APPLICATION) and closes for
    /// good in the same instant, as a Kafka Streams thread dying of an uncaught exception does:
    /// the request travels only on its leave heartbeat, and every other member must hear it and
    /// close. An epilogue fault ([`FaultWindow::after_convergence`]): a fault's after-effect could
    /// lose the request on the way in Kafka too (the coordinator keeps it in memory only, and
    /// forgets it when the group empties, so a member fenced at that moment rejoins a new group).
    /// A late kind; once per seed.
    ShutdownRequest,
}

impl SwarmKind {
    pub const ALL: &'static [SwarmKind] = &[
        SwarmKind::Partition,
        SwarmKind::PartitionOneway,
        SwarmKind::Isolate,
        SwarmKind::Hold,
        SwarmKind::Latency,
        SwarmKind::FailRate,
        SwarmKind::Crash,
        SwarmKind::CoordinatorCrash,
        SwarmKind::SilentDeath,
        SwarmKind::Pause,
        SwarmKind::StallHeartbeats,
        SwarmKind::FenceBroker,
        SwarmKind::StopProcess,
        SwarmKind::TopicChange,
        SwarmKind::ControlledShutdown,
        SwarmKind::AdminProbe,
        SwarmKind::DuplicateInstance,
        SwarmKind::ShutdownRequest,
    ];

    /// Kinds added after the first swarm release: each is enabled from its own random stream and
    /// drawn after all the others, so a seed that does not enable it draws exactly what it drew
    /// before the kind existed.
    const LATE: &'static [SwarmKind] = &[
        SwarmKind::TopicChange,
        SwarmKind::ControlledShutdown,
        SwarmKind::AdminProbe,
        SwarmKind::DuplicateInstance,
        SwarmKind::ShutdownRequest,
    ];
}

/// What a scenario lets swarm mode draw.
#[derive(Debug, Clone, PartialEq)]
pub struct SwarmConfig {
    /// Candidate kinds; each seed enables a non-empty random subset.
    pub kinds: Vec<SwarmKind>,
    /// Length of the fault phase (windows start inside it), drawn in this range.
    pub fault_phase_ms: (u64, u64),
    /// Windows per minute of fault phase for each enabled kind, drawn in this range.
    pub rate_per_minute: (f64, f64),
    /// Process count of every group, drawn in this range (`None`: the spec's counts).
    pub processes: Option<(usize, usize)>,
    /// Maximum link latency, drawn in this range (the minimum stays the spec's).
    pub max_latency_ms: (u64, u64),
    /// Link fail rate of `fail-rate` windows, drawn in this range.
    pub fail_rate: (f64, f64),
    /// Short commit intervals: a third of the seeds (from their own stream) give every streams
    /// application a `commit.interval.ms` drawn in this range, so that commits race the epoch
    /// bumps of the faults (a commit sent at one epoch and judged at the next). `None`: the
    /// spec's interval always.
    pub commit_interval_ms: Option<(u64, u64)>,
    /// A streams group size limit: the seeds that start no process afresh while its old
    /// members may still be in the group (no process crash, silent death or stop) set
    /// `group.streams.max.size` to the largest streams group's member count, so that every
    /// rejoin happens in a full group. (A process that starts again joins with new member ids;
    /// while its old ones wait for their session to expire, Kafka refuses the new ones
    /// GROUP_MAX_SIZE_REACHED, fatal for Kafka Streams: such seeds are left without a limit.)
    pub streams_size_limit: bool,
    /// A short rebalance timeout: a third of the seeds (from their own stream) give every classic
    /// group a `max.poll.interval.ms` (its rebalance timeout) drawn in this range, below the
    /// session timeout, so that a join phase can end while a member that did not rejoin is still
    /// within its session. `None`: the spec's.
    pub rebalance_timeout_ms: Option<(u64, u64)>,
}

impl Default for SwarmConfig {
    fn default() -> Self {
        Self {
            kinds: SwarmKind::ALL.to_vec(),
            fault_phase_ms: (40_000, 90_000),
            rate_per_minute: (0.5, 2.5),
            processes: None,
            max_latency_ms: (2, 40),
            fail_rate: (0.002, 0.05),
            commit_interval_ms: Some((50, 300)),
            streams_size_limit: true,
            rebalance_timeout_ms: Some((3_000, 8_000)),
        }
    }
}

/// The options drawn for one seed (printed with the seed, and in `--json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SwarmOptions {
    pub kinds: Vec<SwarmKind>,
    pub fault_phase_ms: u64,
    /// Windows per minute, per enabled kind.
    pub rates: BTreeMap<String, f64>,
    /// Window lengths are drawn in this range (around the session timeouts).
    pub window_ms: (u64, u64),
    pub latency: Latency,
    pub fail_rate: f64,
    /// Process count per group id.
    pub processes: BTreeMap<String, usize>,
    /// Windows drawn.
    pub windows: usize,
    /// `commit.interval.ms` of every streams application, when the seed drew short commits
    /// ([`SwarmConfig::commit_interval_ms`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub commit_interval_ms: Option<u64>,
    /// `group.streams.max.size`, when the seed drew a size limit
    /// ([`SwarmConfig::streams_size_limit`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub streams_max_size: Option<usize>,
    /// The dormant process of [`SwarmKind::DuplicateInstance`], when the seed enabled it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duplicate_instance: Option<DuplicateInstance>,
    /// `max.poll.interval.ms` of every classic group, when the seed drew a short rebalance
    /// timeout ([`SwarmConfig::rebalance_timeout_ms`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rebalance_timeout_ms: Option<u64>,
}

/// A classic group's extra, dormant process that reuses the instance ids of process `of`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DuplicateInstance {
    pub group: String,
    pub of: usize,
}

impl SwarmOptions {
    /// Draws the options for a run of `spec` (whose process counts and latency it then applies
    /// to the spec).
    pub fn draw(config: &SwarmConfig, spec: &ClusterSpec, rng: &mut ChaCha8Rng) -> Self {
        let network_and_process: Vec<SwarmKind> = config
            .kinds
            .iter()
            .copied()
            .filter(|k| !SwarmKind::LATE.contains(k))
            .collect();
        let mut kinds: Vec<SwarmKind> = network_and_process
            .iter()
            .copied()
            .filter(|_| rng.random_bool(0.5))
            .collect();
        if kinds.is_empty()
            && let Some(k) = network_and_process.choose(rng)
        {
            kinds.push(*k);
        }
        let fault_phase_ms = draw_u64(rng, config.fault_phase_ms);
        let mut rates = BTreeMap::new();
        for k in &kinds {
            let (lo, hi) = config.rate_per_minute;
            let r = if hi > lo {
                rng.random_range(lo..hi)
            } else {
                lo
            };
            rates.insert(kind_name(*k), (r * 100.0).round() / 100.0);
        }
        // The late kinds draw from their own streams (derived without consuming `rng`), so adding
        // one does not shift any other draw of a seed.
        for late in SwarmKind::LATE {
            let mut late_rng = own_stream(rng, &late_stream(*late));
            if config.kinds.contains(late)
                && late_rng.random_bool(0.5)
                && (*late != SwarmKind::DuplicateInstance
                    || !static_classic_groups(spec).is_empty())
                && (*late != SwarmKind::ShutdownRequest
                    || spec.streams_apps.iter().any(|a| a.processes > 0))
            {
                let (lo, hi) = config.rate_per_minute;
                let r = if hi > lo {
                    late_rng.random_range(lo..hi)
                } else {
                    lo
                };
                rates.insert(kind_name(*late), (r * 100.0).round() / 100.0);
                kinds.push(*late);
            }
        }
        // Short commits draw from their own stream too, after the late kinds.
        let commit_interval_ms = config
            .commit_interval_ms
            .filter(|_| !spec.streams_apps.is_empty())
            .and_then(|range| {
                let mut own = own_stream(rng, "swarm/short-commits");
                own.random_bool(1.0 / 3.0)
                    .then(|| draw_u64(&mut own, range))
            });
        let rebalance_timeout_ms = config
            .rebalance_timeout_ms
            .filter(|_| !spec.classic_groups.is_empty())
            .and_then(|range| {
                let mut own = own_stream(rng, "swarm/short-rebalance-timeout");
                own.random_bool(1.0 / 3.0)
                    .then(|| draw_u64(&mut own, range))
            });
        let session = session_timeouts(spec);
        let window_ms = ((session.0 / 3).max(500), session.1 * 2);
        let latency = Latency {
            min_ms: spec.latency.min_ms,
            max_ms: draw_u64(rng, config.max_latency_ms).max(spec.latency.min_ms),
        };
        let fail_rate = {
            let (lo, hi) = config.fail_rate;
            let r = if hi > lo {
                rng.random_range(lo..hi)
            } else {
                lo
            };
            (r * 10_000.0).round() / 10_000.0
        };
        let mut processes = BTreeMap::new();
        for app in &spec.streams_apps {
            let n = config
                .processes
                .map_or(app.processes, |r| draw_usize(rng, r));
            processes.insert(app.application_id.clone(), n);
        }
        for g in &spec.classic_groups {
            let n = config.processes.map_or(g.processes, |r| draw_usize(rng, r));
            processes.insert(g.group_id.clone(), n);
        }
        for g in &spec.consumer_groups {
            let n = config.processes.map_or(g.processes, |r| draw_usize(rng, r));
            processes.insert(g.group_id.clone(), n);
        }
        let duplicate_instance = kinds
            .contains(&SwarmKind::DuplicateInstance)
            .then(|| {
                let mut own = own_stream(rng, "swarm/duplicate-instance/target");
                let group = static_classic_groups(spec).choose(&mut own)?.clone();
                let n = processes.get(&group).copied()?;
                (n > 0).then(|| DuplicateInstance {
                    of: own.random_range(0..n),
                    group,
                })
            })
            .flatten();
        let restarts = [
            SwarmKind::Crash,
            SwarmKind::SilentDeath,
            SwarmKind::StopProcess,
        ];
        let largest_streams_group = spec
            .streams_apps
            .iter()
            .map(|a| {
                processes
                    .get(&a.application_id)
                    .copied()
                    .unwrap_or(a.processes)
                    * a.threads
            })
            .max()
            .filter(|n| *n > 0);
        // Every such seed: they are a quarter of all (each kind is enabled with probability
        // one half), and the limit matters only when a member rejoins while the group is full.
        let streams_max_size = largest_streams_group
            .filter(|_| config.streams_size_limit && !kinds.iter().any(|k| restarts.contains(k)));
        Self {
            kinds,
            fault_phase_ms,
            rates,
            window_ms,
            latency,
            fail_rate,
            processes,
            windows: 0,
            commit_interval_ms,
            streams_max_size,
            duplicate_instance,
            rebalance_timeout_ms,
        }
    }

    /// Applies the drawn process counts and latency to `spec`.
    pub fn apply(&self, spec: &mut ClusterSpec) {
        spec.latency = self.latency;
        for app in &mut spec.streams_apps {
            if let Some(n) = self.processes.get(&app.application_id) {
                app.processes = *n;
            }
            if let Some(ms) = self.commit_interval_ms {
                app.commit_interval_ms = ms;
            }
        }
        if let Some(max) = self.streams_max_size {
            spec.broker_configs
                .insert("group.streams.max.size".into(), max.to_string());
        }
        for g in &mut spec.classic_groups {
            if let Some(n) = self.processes.get(&g.group_id) {
                g.processes = *n;
            }
            if let Some(ms) = self.rebalance_timeout_ms {
                g.max_poll_interval_ms = ms as i32;
            }
            if let Some(d) = self
                .duplicate_instance
                .as_ref()
                .filter(|d| d.group == g.group_id)
            {
                // The duplicate is the last process, dormant until its start-process window.
                let index = g.processes;
                g.processes += 1;
                if !g.dormant.contains(&index) {
                    g.dormant.push(index);
                }
                g.instance_ids_of.insert(index, d.of);
            }
        }
        for g in &mut spec.consumer_groups {
            if let Some(n) = self.processes.get(&g.group_id) {
                g.processes = *n;
            }
        }
    }

    /// Draws the fault windows (call after [`Self::apply`], with the spec the run uses).
    pub fn schedule(&mut self, spec: &ClusterSpec, rng: &mut ChaCha8Rng) -> FaultSchedule {
        let mut windows = Vec::new();
        let minutes = self.fault_phase_ms as f64 / 60_000.0;
        // Faults start after the cluster had time to form (brokers registered, groups joined).
        let first = 5_000u64.min(self.fault_phase_ms / 2);
        for kind in self.kinds.clone() {
            let rate = self.rates.get(&kind_name(kind)).copied().unwrap_or(1.0);
            let mut count = ((rate * minutes).round() as usize).max(1);
            if kind == SwarmKind::AdminProbe {
                count *= 4;
            }
            if kind == SwarmKind::ShutdownRequest {
                // The last kind drawn: every other window is known, so is the last heal.
                let healed = windows.iter().map(FaultWindow::end_ms).max().unwrap_or(0);
                let at_ms = healed.max(first) + rng.random_range(15_000..=30_000);
                let apps: Vec<(String, usize)> = spec
                    .streams_apps
                    .iter()
                    .map(|a| {
                        let running = a.processes.saturating_sub(a.dormant.len());
                        (a.application_id.clone(), running)
                    })
                    .filter(|(_, n)| *n > 0)
                    .collect();
                if let Some((app, n)) = apps.choose(rng) {
                    let host = HostRef::process(app.clone(), rng.random_range(0..*n));
                    // Epilogue windows: they start once the groups have converged after the heal.
                    windows.push(
                        FaultWindow::at(
                            at_ms,
                            FaultKind::ShutdownApplication { host: host.clone() },
                        )
                        .after_convergence(),
                    );
                    windows.push(
                        FaultWindow::at(at_ms, FaultKind::RemoveProcess { host })
                            .after_convergence(),
                    );
                }
                continue;
            }
            if kind == SwarmKind::DuplicateInstance {
                if let Some(d) = &self.duplicate_instance {
                    let at_ms = rng.random_range(first..self.fault_phase_ms.max(first + 1));
                    let index = spec
                        .classic_groups
                        .iter()
                        .find(|g| g.group_id == d.group)
                        .map_or(0, |g| g.processes - 1);
                    windows.push(FaultWindow::at(
                        at_ms,
                        FaultKind::StartProcess {
                            host: HostRef::process(d.group.clone(), index),
                        },
                    ));
                }
                continue;
            }
            for n in 0..count {
                let at_ms = rng.random_range(first..self.fault_phase_ms.max(first + 1));
                let duration = draw_u64(rng, self.window_ms);
                if kind == SwarmKind::TopicChange {
                    // A scratch topic nobody subscribes to: created, grown halfway through the
                    // window, deleted at its end.
                    let name = format!("swarm-topic-{n}");
                    let partitions = rng.random_range(1..4);
                    windows.push(FaultWindow::at(
                        at_ms,
                        FaultKind::CreateTopic {
                            name: name.clone(),
                            partitions,
                        },
                    ));
                    windows.push(FaultWindow::at(
                        at_ms + duration / 2,
                        FaultKind::AddPartitions {
                            topic: name.clone(),
                            total: partitions + rng.random_range(1..4),
                        },
                    ));
                    windows.push(FaultWindow::at(
                        at_ms + duration,
                        FaultKind::DeleteTopic { name },
                    ));
                    continue;
                }
                if let Some(fault) = self.fault_of(kind, spec, rng) {
                    let mut w = FaultWindow::at(at_ms, fault);
                    // A probe is instantaneous: it must not move the final heal.
                    if kind != SwarmKind::AdminProbe {
                        w.duration_ms = Some(duration);
                    }
                    windows.push(w);
                }
            }
        }
        self.windows = windows.len();
        FaultSchedule::new(windows)
    }

    fn fault_of(
        &self,
        kind: SwarmKind,
        spec: &ClusterSpec,
        rng: &mut ChaCha8Rng,
    ) -> Option<FaultKind> {
        // Faults act on the processes that run from the start (a dormant duplicate is started by
        // its own window only).
        let groups: Vec<(String, usize)> = spec
            .streams_apps
            .iter()
            .map(|a| {
                (
                    a.application_id.clone(),
                    a.processes.saturating_sub(a.dormant.len()),
                )
            })
            .chain(spec.classic_groups.iter().map(|g| {
                (
                    g.group_id.clone(),
                    g.processes.saturating_sub(g.dormant.len()),
                )
            }))
            .chain(spec.consumer_groups.iter().map(|g| {
                (
                    g.group_id.clone(),
                    g.processes.saturating_sub(g.dormant.len()),
                )
            }))
            .filter(|(_, n)| *n > 0)
            .collect();
        let brokers: Vec<HostRef> = (1..=spec.brokers as i32).map(HostRef::Broker).collect();
        let (group, processes) = groups.choose(rng)?.clone();
        let process = HostRef::process(group.clone(), rng.random_range(0..processes));
        let coordinator = HostRef::coordinator_of(group.clone());
        let broker = brokers.choose(rng)?.clone();
        let other_broker = brokers
            .iter()
            .filter(|b| **b != broker)
            .cloned()
            .collect::<Vec<_>>()
            .choose(rng)
            .cloned();
        let coin = rng.random_bool(0.5);
        Some(match kind {
            SwarmKind::Partition => match (coin, other_broker) {
                (false, Some(other)) => FaultKind::Partition {
                    a: vec![broker],
                    b: vec![other],
                },
                _ => FaultKind::Partition {
                    a: vec![process],
                    b: vec![coordinator],
                },
            },
            SwarmKind::PartitionOneway => {
                let (x, y) = match other_broker {
                    Some(other) if rng.random_bool(0.5) => (broker, other),
                    _ => (process, coordinator),
                };
                if coin {
                    FaultKind::PartitionOneway {
                        from: vec![x],
                        to: vec![y],
                    }
                } else {
                    FaultKind::PartitionOneway {
                        from: vec![y],
                        to: vec![x],
                    }
                }
            }
            SwarmKind::Isolate => FaultKind::Isolate {
                host: if coin { broker } else { process },
            },
            SwarmKind::Hold => FaultKind::Hold {
                a: vec![process],
                b: brokers,
            },
            SwarmKind::Latency => FaultKind::Latency {
                a: vec![process],
                b: brokers,
                max_ms: rng.random_range(50..1_500),
            },
            SwarmKind::FailRate => FaultKind::FailRate {
                a: vec![process],
                b: brokers,
                rate: self.fail_rate,
            },
            SwarmKind::Crash => FaultKind::Crash {
                host: match rng.random_range(0..4) {
                    0 => HostRef::Controller,
                    1 => broker,
                    _ => process,
                },
            },
            SwarmKind::CoordinatorCrash => FaultKind::Crash { host: coordinator },
            SwarmKind::SilentDeath => FaultKind::SilentDeath {
                host: if coin { coordinator } else { process },
            },
            SwarmKind::Pause => FaultKind::Pause { host: process },
            SwarmKind::StallHeartbeats => FaultKind::StallHeartbeats {
                host: process,
                thread: if coin { Some(1) } else { None },
            },
            SwarmKind::FenceBroker => FaultKind::FenceBroker {
                broker: coordinator,
            },
            SwarmKind::StopProcess => FaultKind::StopProcess { host: process },
            SwarmKind::ControlledShutdown => FaultKind::ControlledShutdown {
                broker: if coin { coordinator } else { broker },
            },
            SwarmKind::AdminProbe => FaultKind::GroupAdmin {
                group,
                call: GroupAdminCall::Describe,
            },
            // Drawn by `schedule` itself (three windows per topic; one start).
            SwarmKind::TopicChange | SwarmKind::DuplicateInstance | SwarmKind::ShutdownRequest => {
                return None;
            }
        })
    }
}

/// The classic groups of static members (where [`SwarmKind::DuplicateInstance`] acts).
fn static_classic_groups(spec: &ClusterSpec) -> Vec<String> {
    spec.classic_groups
        .iter()
        .filter(|g| g.static_membership && g.processes > 0)
        .map(|g| g.group_id.clone())
        .collect()
}

/// A random stream of its own for the draw `label`, derived from `rng` without consuming it, so a
/// draw added later shifts none of the draws that `rng` makes.
fn own_stream(rng: &ChaCha8Rng, label: &str) -> ChaCha8Rng {
    let mut own = ChaCha8Rng::from_seed(rng.get_seed());
    own.set_stream(rng.get_stream() ^ crate::seed::label_hash(label));
    own
}

/// The label of a late kind's own random stream (`swarm/topic-change` as it always was).
fn late_stream(k: SwarmKind) -> String {
    format!("swarm/{}", kind_name(k))
}

fn kind_name(k: SwarmKind) -> String {
    serde_json::to_value(k)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn draw_u64(rng: &mut ChaCha8Rng, (lo, hi): (u64, u64)) -> u64 {
    if hi > lo {
        rng.random_range(lo..=hi)
    } else {
        lo
    }
}

fn draw_usize(rng: &mut ChaCha8Rng, (lo, hi): (usize, usize)) -> usize {
    if hi > lo {
        rng.random_range(lo..=hi)
    } else {
        lo
    }
}

/// (shortest, longest) session timeout that matters for liveness: members' and brokers'.
fn session_timeouts(spec: &ClusterSpec) -> (u64, u64) {
    let mut all: Vec<u64> = spec
        .streams_apps
        .iter()
        .map(|a| a.session_timeout_ms.max(1) as u64)
        .chain(
            spec.classic_groups
                .iter()
                .map(|g| g.session_timeout_ms.max(1) as u64),
        )
        .chain(
            spec.consumer_groups
                .iter()
                .map(|g| g.session_timeout_ms.max(1) as u64),
        )
        .collect();
    all.push(crate::cluster::broker_session_timeout_ms(spec));
    let lo = all.iter().copied().min().unwrap_or(10_000);
    let hi = all.iter().copied().max().unwrap_or(10_000);
    (lo, hi)
}

#[cfg(test)]
mod tests {
    use members::streams::topology::{Subtopology, Topology};

    use super::*;
    use crate::seed::rng;
    use crate::spec::StreamsAppSpec;

    /// Seed `seed`'s options and schedule for `spec` under `config`, and the spec they apply to.
    fn drawn(
        config: &SwarmConfig,
        seed: u64,
        mut spec: ClusterSpec,
    ) -> (SwarmOptions, FaultSchedule, ClusterSpec) {
        let mut r = rng(seed, "swarm");
        let mut o = SwarmOptions::draw(config, &spec, &mut r);
        o.apply(&mut spec);
        let s = o.schedule(&spec, &mut r);
        (o, s, spec)
    }

    fn spec() -> ClusterSpec {
        ClusterSpec::default()
            .with_topic("in", 4)
            .with_streams(StreamsAppSpec::new(
                "app",
                Topology::new(vec![Subtopology::new("0", &["in"])]),
                3,
                2,
            ))
    }

    #[test]
    fn same_seed_same_options_and_schedule() {
        let config = SwarmConfig {
            processes: Some((2, 5)),
            ..SwarmConfig::default()
        };
        let draw = |seed| {
            let (o, s, _) = drawn(&config, seed, spec());
            (o, s)
        };
        assert_eq!(draw(7), draw(7));
        let (o, s) = draw(7);
        assert!(!o.kinds.is_empty());
        assert_eq!(o.windows, s.windows.len());
        assert!(s.windows.iter().all(|w| w.at_ms < o.fault_phase_ms));
        assert!((2..=5).contains(&o.processes["app"]));
        // Over a handful of seeds the mixes differ.
        let kinds: std::collections::BTreeSet<Vec<SwarmKind>> =
            (0..8).map(|s| draw(s).0.kinds).collect();
        assert!(kinds.len() > 1, "{kinds:?}");
    }

    #[test]
    fn late_kinds_are_drawn_without_shifting_the_other_draws() {
        let without = SwarmConfig {
            kinds: SwarmKind::ALL
                .iter()
                .copied()
                .filter(|k| !SwarmKind::LATE.contains(k))
                .collect(),
            ..SwarmConfig::default()
        };
        let draw = |config: &SwarmConfig, seed| {
            let (o, s, _) = drawn(config, seed, spec());
            (o, s)
        };
        let mut drawn = 0;
        let mut shutdowns = 0;
        let mut probed = 0;
        let mut requested = 0;
        for seed in 0..16 {
            let (a, sa) = draw(&without, seed);
            let (b, sb) = draw(&SwarmConfig::default(), seed);
            assert_eq!(a.fault_phase_ms, b.fault_phase_ms);
            assert_eq!(a.latency, b.latency);
            let other: Vec<&FaultWindow> = sb
                .windows
                .iter()
                .filter(|w| {
                    !matches!(
                        w.kind,
                        FaultKind::CreateTopic { .. }
                            | FaultKind::AddPartitions { .. }
                            | FaultKind::DeleteTopic { .. }
                            | FaultKind::ControlledShutdown { .. }
                            | FaultKind::GroupAdmin { .. }
                            | FaultKind::ShutdownApplication { .. }
                            | FaultKind::RemoveProcess { .. }
                    )
                })
                .collect();
            assert_eq!(other, sa.windows.iter().collect::<Vec<_>>(), "seed {seed}");
            // Admin probes: describes of the one group, instantaneous, four per rate unit.
            let probes: Vec<&FaultWindow> = sb
                .windows
                .iter()
                .filter(|w| matches!(w.kind, FaultKind::GroupAdmin { .. }))
                .collect();
            assert_eq!(
                !probes.is_empty(),
                b.kinds.contains(&SwarmKind::AdminProbe),
                "seed {seed}"
            );
            assert_eq!(probes.len() % 4, 0, "seed {seed}");
            for w in &probes {
                assert_eq!(w.duration_ms, None);
                assert_eq!(
                    w.kind,
                    FaultKind::GroupAdmin {
                        group: "app".into(),
                        call: GroupAdminCall::Describe
                    }
                );
            }
            probed += usize::from(!probes.is_empty());
            // A shutdown request: one process asks for it and closes in the same instant, 15 to
            // 30 s after every other window has ended.
            let requests: Vec<&FaultWindow> = sb
                .windows
                .iter()
                .filter(|w| {
                    matches!(
                        w.kind,
                        FaultKind::ShutdownApplication { .. } | FaultKind::RemoveProcess { .. }
                    )
                })
                .collect();
            if b.kinds.contains(&SwarmKind::ShutdownRequest) {
                requested += 1;
                let [ask, close] = requests[..] else {
                    panic!("seed {seed}: {requests:?}");
                };
                let FaultKind::ShutdownApplication { host } = &ask.kind else {
                    panic!("seed {seed}: {ask:?}");
                };
                assert_eq!(close.kind, FaultKind::RemoveProcess { host: host.clone() });
                assert!(
                    matches!(host, HostRef::Process { group, index } if group == "app" && *index < b.processes["app"])
                );
                assert_eq!(ask.at_ms, close.at_ms);
                let healed = sb
                    .windows
                    .iter()
                    .filter(|w| !requests.contains(w))
                    .map(FaultWindow::end_ms)
                    .max()
                    .unwrap_or(0);
                assert!(
                    (healed + 15_000..=healed + 30_000).contains(&ask.at_ms),
                    "seed {seed}: {healed} {}",
                    ask.at_ms
                );
                assert!(ask.after_convergence && close.after_convergence);
                assert_eq!(sb.heal_ms(), healed);
                assert_eq!(sb.epilogue_ms(), Some(ask.at_ms));
            } else {
                assert!(requests.is_empty(), "seed {seed}");
            }
            let cs = sb
                .windows
                .iter()
                .filter(|w| matches!(w.kind, FaultKind::ControlledShutdown { .. }))
                .count();
            assert_eq!(
                cs > 0,
                b.kinds.contains(&SwarmKind::ControlledShutdown),
                "seed {seed}"
            );
            shutdowns += usize::from(cs > 0);
            if b.kinds.contains(&SwarmKind::TopicChange) {
                drawn += 1;
                // Each scratch topic: created, grown, deleted, in that order.
                let mut steps: BTreeMap<&str, Vec<(&str, u64)>> = BTreeMap::new();
                for w in &sb.windows {
                    let topic = match &w.kind {
                        FaultKind::CreateTopic { name, .. } | FaultKind::DeleteTopic { name } => {
                            name
                        }
                        FaultKind::AddPartitions { topic, .. } => topic,
                        _ => continue,
                    };
                    steps
                        .entry(topic.as_str())
                        .or_default()
                        .push((w.kind.name(), w.at_ms));
                }
                assert!(!steps.is_empty());
                for (topic, s) in steps {
                    let kinds: Vec<&str> = s.iter().map(|(k, _)| *k).collect();
                    assert_eq!(
                        kinds,
                        ["create-topic", "add-partitions", "delete-topic"],
                        "{topic}"
                    );
                    assert!(topic.starts_with("swarm-topic-"));
                }
            }
        }
        assert!(drawn > 0 && drawn < 16, "{drawn}");
        assert!(shutdowns > 0 && shutdowns < 16, "{shutdowns}");
        assert!(probed > 0 && probed < 16, "{probed}");
        assert!(requested > 0 && requested < 16, "{requested}");
    }

    #[test]
    fn short_commits_are_drawn_from_their_own_stream() {
        let without = SwarmConfig {
            commit_interval_ms: None,
            ..SwarmConfig::default()
        };
        let draw = |config: &SwarmConfig, seed| {
            let (o, s, spec) = drawn(config, seed, spec());
            (o, s, spec.streams_apps[0].commit_interval_ms)
        };
        let mut short = 0;
        for seed in 0..30 {
            let (a, sa, ia) = draw(&without, seed);
            let (b, sb, ib) = draw(&SwarmConfig::default(), seed);
            assert_eq!(a.commit_interval_ms, None);
            assert_eq!(ia, 5_000, "the spec's interval");
            assert_eq!(sa, sb, "seed {seed}: the schedule does not move");
            assert_eq!(
                SwarmOptions {
                    commit_interval_ms: None,
                    ..b.clone()
                },
                a
            );
            match b.commit_interval_ms {
                Some(ms) => {
                    assert!((50..=300).contains(&ms), "{ms}");
                    assert_eq!(ib, ms);
                    short += 1;
                }
                None => assert_eq!(ib, 5_000),
            }
        }
        assert!((4..=16).contains(&short), "{short} of 30");
    }

    #[test]
    fn a_streams_size_limit_is_drawn_only_where_no_process_starts_afresh() {
        let config = SwarmConfig {
            processes: Some((2, 5)),
            ..SwarmConfig::default()
        };
        let without = SwarmConfig {
            streams_size_limit: false,
            ..config.clone()
        };
        let draw = |config: &SwarmConfig, seed| drawn(config, seed, spec());
        let mut limited = 0;
        for seed in 0..60 {
            let (a, sa, spec_a) = draw(&without, seed);
            let (b, sb, spec_b) = draw(&config, seed);
            assert_eq!(sa, sb, "seed {seed}: the schedule does not move");
            assert_eq!(
                SwarmOptions {
                    streams_max_size: None,
                    ..b.clone()
                },
                a
            );
            assert!(!spec_a.broker_configs.contains_key("group.streams.max.size"));
            let Some(max) = b.streams_max_size else {
                assert!(!spec_b.broker_configs.contains_key("group.streams.max.size"));
                continue;
            };
            limited += 1;
            // The group's own size (processes x 2 threads), and no kind that starts a process
            // with new member ids while its old ones may linger.
            assert_eq!(max, b.processes["app"] * 2, "seed {seed}");
            assert_eq!(
                spec_b.broker_configs["group.streams.max.size"],
                max.to_string()
            );
            for k in [
                SwarmKind::Crash,
                SwarmKind::SilentDeath,
                SwarmKind::StopProcess,
            ] {
                assert!(!b.kinds.contains(&k), "seed {seed}: {k:?}");
            }
        }
        assert!((5..=30).contains(&limited), "{limited} of 60");
    }

    #[test]
    fn a_duplicate_instance_is_one_dormant_process_started_once() {
        use crate::spec::ClassicGroupSpec;
        let classic = || {
            ClusterSpec::default().with_topic("orders", 6).with_classic(
                ClassicGroupSpec::new("orders-group", &["orders"], 3, 2).with_static_membership(),
            )
        };
        let config = SwarmConfig {
            processes: Some((2, 4)),
            ..SwarmConfig::default()
        };
        let without = SwarmConfig {
            kinds: SwarmKind::ALL
                .iter()
                .copied()
                .filter(|k| *k != SwarmKind::DuplicateInstance)
                .collect(),
            ..config.clone()
        };
        let draw = |config: &SwarmConfig, seed| drawn(config, seed, classic());
        let mut duplicated = 0;
        for seed in 0..24 {
            let (_, sa, _) = draw(&without, seed);
            let (b, sb, spec) = draw(&config, seed);
            let Some(d) = b.duplicate_instance.clone() else {
                assert!(!b.kinds.contains(&SwarmKind::DuplicateInstance));
                assert_eq!(sa, sb, "seed {seed}: nothing moves without the kind");
                continue;
            };
            duplicated += 1;
            let n = b.processes["orders-group"];
            let g = &spec.classic_groups[0];
            assert_eq!(d.group, "orders-group");
            assert!(d.of < n, "seed {seed}");
            assert_eq!(g.processes, n + 1);
            assert_eq!(g.dormant, vec![n]);
            assert_eq!(g.instance_ids_of, BTreeMap::from([(n, d.of)]));
            assert_eq!(g.instance_id(n, 1), g.instance_id(d.of, 1));
            let duplicate = HostRef::process("orders-group", n);
            let starts: Vec<&FaultWindow> = sb
                .windows
                .iter()
                .filter(|w| matches!(&w.kind, FaultKind::StartProcess { .. }))
                .collect();
            assert_eq!(starts.len(), 1, "seed {seed}");
            assert_eq!(
                starts[0].kind,
                FaultKind::StartProcess {
                    host: duplicate.clone()
                }
            );
            assert_eq!(starts[0].duration_ms, None);
            // No other fault acts on the dormant process, and the other kinds' windows are the
            // ones drawn without the kind.
            let json = |w: &FaultWindow| serde_json::to_string(w).unwrap();
            let other: Vec<String> = sb
                .windows
                .iter()
                .filter(|w| !matches!(&w.kind, FaultKind::StartProcess { .. }))
                .map(json)
                .collect();
            assert!(
                other.iter().all(|w| !w.contains(&format!("\"index\":{n}"))),
                "seed {seed}: {other:?}"
            );
            assert_eq!(other, sa.windows.iter().map(json).collect::<Vec<_>>());
        }
        assert!((3..=20).contains(&duplicated), "{duplicated} of 24");
    }

    #[test]
    fn a_short_rebalance_timeout_is_drawn_from_its_own_stream_for_classic_groups() {
        use crate::spec::ClassicGroupSpec;
        let classic = || {
            ClusterSpec::default().with_topic("orders", 6).with_classic(
                ClassicGroupSpec::new("orders-group", &["orders"], 3, 2).with_static_membership(),
            )
        };
        let without = SwarmConfig {
            rebalance_timeout_ms: None,
            ..SwarmConfig::default()
        };
        let draw = drawn;
        let mut short = 0;
        for seed in 0..30 {
            let (a, sa, spec_a) = draw(&without, seed, classic());
            let (b, sb, spec_b) = draw(&SwarmConfig::default(), seed, classic());
            assert_eq!(sa, sb, "seed {seed}: the schedule does not move");
            assert_eq!(
                SwarmOptions {
                    rebalance_timeout_ms: None,
                    ..b.clone()
                },
                a
            );
            assert_eq!(spec_a.classic_groups[0].max_poll_interval_ms, 20_000);
            match b.rebalance_timeout_ms {
                Some(ms) => {
                    assert!((3_000..=8_000).contains(&ms), "{ms}");
                    assert_eq!(spec_b.classic_groups[0].max_poll_interval_ms, ms as i32);
                    short += 1;
                }
                None => assert_eq!(spec_b.classic_groups[0].max_poll_interval_ms, 20_000),
            }
            // A streams-only spec never draws it.
            let (o, _, _) = draw(&SwarmConfig::default(), seed, spec());
            assert_eq!(o.rebalance_timeout_ms, None);
        }
        assert!((4..=16).contains(&short), "{short} of 30");
    }

    #[test]
    fn windows_straddle_the_session_timeout() {
        let spec = spec();
        let mut r = rng(3, "swarm");
        let o = SwarmOptions::draw(&SwarmConfig::default(), &spec, &mut r);
        // Members have 10 s sessions, brokers 9 s: windows from a third of the shortest to twice
        // the longest.
        assert_eq!(o.window_ms, (3_000, 20_000));
    }

    #[test]
    fn drawn_options_and_schedules_read_back_from_their_json() {
        // Failure files carry both (a shrunk one replays its explicit schedule): the JSON must
        // give back exactly what was drawn, for every seed's mix of fault kinds.
        let spec = spec();
        for seed in 1..=40 {
            let mut r = rng(seed, "swarm");
            let mut o = SwarmOptions::draw(&SwarmConfig::default(), &spec, &mut r);
            let schedule = o.schedule(&spec, &mut r);
            let back: SwarmOptions =
                serde_json::from_value(serde_json::to_value(&o).unwrap()).unwrap();
            assert_eq!(back, o, "seed {seed}");
            let back: FaultSchedule =
                serde_json::from_value(serde_json::to_value(&schedule).unwrap()).unwrap();
            assert_eq!(back, schedule, "seed {seed}");
        }
    }
}

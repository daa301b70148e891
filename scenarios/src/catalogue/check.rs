//! What a scenario's own check reads: the finished run's event log, final groups and fault
//! counts, through queries that name what a protocol engineer asks ("which epochs did the group
//! go through", "what did this process own at 20 s", "who was fenced").

use std::collections::{BTreeMap, BTreeSet};

use coordinator::Record;
use coordinator::events::EventKind as ClusterKind;
use members::observer::EventKind as ClientKind;
use protocol::ErrorCode;
use sim::event::{AdminAnswer, FaultEvent, HarnessEvent, SimEvent, SimEventKind};
use sim::runner::{GroupSummary, RunOutcome};

/// A finished run as a scenario's check sees it.
pub struct View<'a> {
    pub outcome: &'a RunOutcome,
    /// When the last fault window ended (simulated ms).
    pub heal_ms: u64,
    /// A run of `regroup drive` against a real cluster: the log has no committed records, so the
    /// epochs and generations a check asks for are what the clients and drive's observer saw
    /// ([`View::observed_epochs`]).
    pub driven: bool,
}

/// `Err(message)` unless `cond`.
pub fn ensure(cond: bool, message: impl FnOnce() -> String) -> Result<(), String> {
    if cond { Ok(()) } else { Err(message()) }
}

impl<'a> View<'a> {
    pub fn log(&self) -> &'a [SimEvent] {
        &self.outcome.log
    }

    /// (time, resolved hosts) of every injected fault of kind `fault`, in order.
    pub fn injections(&self, fault: &str) -> Vec<(i64, Vec<String>)> {
        self.log()
            .iter()
            .filter_map(|e| match &e.kind {
                SimEventKind::Fault(FaultEvent::Injected {
                    fault: f, hosts, ..
                }) if *f == fault => Some((e.at_ms, hosts.clone())),
                _ => None,
            })
            .collect()
    }

    /// The first injection of `fault`, or an error saying it never happened.
    pub fn injected(&self, fault: &str) -> Result<(i64, Vec<String>), String> {
        self.injections(fault)
            .into_iter()
            .next()
            .ok_or_else(|| format!("no {fault} fault was injected"))
    }

    /// When window `fault`'s first injection healed.
    pub fn healed(&self, fault: &str) -> Result<i64, String> {
        self.log()
            .iter()
            .find_map(|e| match &e.kind {
                SimEventKind::Fault(FaultEvent::Healed { fault: f, .. }) if *f == fault => {
                    Some(e.at_ms)
                }
                _ => None,
            })
            .ok_or_else(|| format!("the {fault} fault never healed"))
    }

    /// The final state of `group`.
    pub fn group(&self, group: &str) -> Result<&'a GroupSummary, String> {
        self.outcome
            .groups
            .iter()
            .find(|g| g.group_id == group)
            .ok_or_else(|| format!("group {group} is not in the final state"))
    }

    /// In a driven run, the epochs (streams and consumer groups: `epochs`) or generations
    /// (classic) of `group` as they were seen, in time order, each only when higher than every
    /// one before (the committed epoch never goes down): a streams or consumer group's epoch as
    /// drive's observer described it and as its members moved to it; a classic group's generations its consumers got an assignment in
    /// (DescribeGroups has no generation). Bumps that no description caught and no member reached
    /// are missing.
    pub fn observed_epochs(&self, group: &str, epochs: bool) -> Vec<(i64, i32)> {
        let mut out: Vec<(i64, i32)> = Vec::new();
        for e in self.log() {
            let epoch = match &e.kind {
                SimEventKind::Harness(HarnessEvent::GroupDescribed {
                    group: g, epoch, ..
                }) if g == group && epochs => Some(*epoch),
                SimEventKind::Client { client, kind, .. } if client.group_id == group => match kind
                {
                    ClientKind::EpochChanged { to, .. } if epochs => Some(*to),
                    ClientKind::OwnedPartitions { generation, .. } if !epochs => Some(*generation),
                    _ => None,
                },
                _ => None,
            };
            if let Some(epoch) = epoch
                && epoch > 0
                && out.last().is_none_or(|(_, last)| epoch > *last)
            {
                out.push((e.at_ms, epoch));
            }
        }
        out
    }

    /// Every committed epoch of a streams group (time, epoch), consecutive duplicates dropped
    /// (in a driven run: [`View::observed_epochs`]).
    pub fn streams_epochs(&self, group: &str) -> Vec<(i64, i32)> {
        if self.driven {
            return self.observed_epochs(group, true);
        }
        let mut out: Vec<(i64, i32)> = Vec::new();
        for e in self.log() {
            if let SimEventKind::Record {
                record:
                    Record::StreamsGroupMetadata {
                        key,
                        value: Some(v),
                    },
                ..
            } = &e.kind
                && key.group_id == group
                && out.last().is_none_or(|(_, last)| *last != v.epoch)
            {
                out.push((e.at_ms, v.epoch));
            }
        }
        out
    }

    /// Every committed generation of a classic group (time, generation), consecutive duplicates
    /// dropped (in a driven run: [`View::observed_epochs`]).
    pub fn generations(&self, group: &str) -> Vec<(i64, i32)> {
        if self.driven {
            return self.observed_epochs(group, false);
        }
        let mut out: Vec<(i64, i32)> = Vec::new();
        for e in self.log() {
            if let SimEventKind::Record {
                record:
                    Record::GroupMetadata {
                        key,
                        value: Some(v),
                    },
                ..
            } = &e.kind
                && key.group == group
                && out.last().is_none_or(|(_, last)| *last != v.generation)
            {
                out.push((e.at_ms, v.generation));
            }
        }
        out
    }

    /// The committed epoch (streams) or generation (classic) of `group` at `at_ms`.
    pub fn epoch_at(&self, group: &str, at_ms: i64) -> i32 {
        let mut all = self.streams_epochs(group);
        all.extend(self.generations(group));
        all.sort();
        all.iter()
            .rev()
            .find(|(t, _)| *t <= at_ms)
            .map(|(_, e)| *e)
            .unwrap_or(-1)
    }

    /// The client events of hosts starting with `host` (a process host name), with their time
    /// and client name.
    pub fn client_events(
        &self,
        host: &str,
    ) -> impl Iterator<Item = (i64, &'a str, &'a ClientKind)> {
        let host = host.to_string();
        self.log().iter().filter_map(move |e| match &e.kind {
            SimEventKind::Client { client, kind, .. } if e.host == host => {
                Some((e.at_ms, client.name.as_str(), kind))
            }
            _ => None,
        })
    }

    /// What each client of `host` owned (active tasks or partitions) at `at_ms`, by client
    /// name, from their last ownership snapshots (a stopped client owns nothing).
    pub fn owned_at(&self, host: &str, at_ms: i64) -> BTreeMap<String, BTreeSet<String>> {
        let mut owned: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (t, name, kind) in self.client_events(host) {
            if t > at_ms {
                break;
            }
            match kind {
                ClientKind::OwnedTasks { active, .. } => {
                    owned.insert(name.into(), active.iter().map(|t| t.to_string()).collect());
                }
                ClientKind::OwnedPartitions { partitions, .. } => {
                    owned.insert(
                        name.into(),
                        partitions.iter().map(|p| p.to_string()).collect(),
                    );
                }
                ClientKind::Stopped { .. } => {
                    owned.insert(name.into(), BTreeSet::new());
                }
                _ => {}
            }
        }
        owned
    }

    /// The standby tasks the clients of `host` held at `at_ms`.
    pub fn standby_at(&self, host: &str, at_ms: i64) -> BTreeSet<String> {
        let mut held: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
        for (t, name, kind) in self.client_events(host) {
            if t > at_ms {
                break;
            }
            match kind {
                ClientKind::OwnedTasks { standby, .. } => {
                    held.insert(name, standby.iter().map(|t| t.to_string()).collect());
                }
                ClientKind::Stopped { .. } => {
                    held.remove(name);
                }
                _ => {}
            }
        }
        held.into_values().flatten().collect()
    }

    /// Everything the clients of `host` owned at `at_ms` (active tasks or partitions).
    pub fn process_owned_at(&self, host: &str, at_ms: i64) -> BTreeSet<String> {
        self.owned_at(host, at_ms).into_values().flatten().collect()
    }

    /// What the members of `host` own in the final group state (active tasks or partitions).
    pub fn process_owned_final(&self, group: &str, host: &str) -> Result<BTreeSet<String>, String> {
        let names = self.member_names();
        let g = self.group(group)?;
        Ok(g.members
            .iter()
            .filter(|m| {
                names
                    .get(&m.member_id)
                    .is_some_and(|n| n.starts_with(&format!("{host}/")))
            })
            .flat_map(|m| m.active_tasks.iter().chain(&m.partitions).cloned())
            .collect())
    }

    /// Member id -> client name (`<host>/StreamThread-<n>`, `<host>/consumer-<n>`), from the
    /// log.
    pub fn member_names(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        for e in self.log() {
            if let SimEventKind::Client {
                client, member_id, ..
            } = &e.kind
                && !member_id.is_empty()
            {
                out.insert(member_id.clone(), client.name.clone());
            }
        }
        out
    }

    /// Fencing errors (`Fenced` events) of clients on `host` (all hosts if empty).
    pub fn fencings(&self, host: &str) -> Vec<(i64, ErrorCode)> {
        self.log()
            .iter()
            .filter(|e| host.is_empty() || e.host == host)
            .filter_map(|e| match &e.kind {
                SimEventKind::Client {
                    kind: ClientKind::Fenced { error, .. },
                    ..
                } => Some((e.at_ms, *error)),
                _ => None,
            })
            .collect()
    }

    /// Commit rejections of clients on `host` (time, error).
    pub fn commits_rejected(&self, host: &str) -> Vec<(i64, ErrorCode)> {
        self.client_events(host)
            .filter_map(|(t, _, k)| match k {
                ClientKind::CommitRejected { error, .. } => Some((t, *error)),
                _ => None,
            })
            .collect()
    }

    /// Every client event of `group`'s processes (hosts `group-N`), with time and host.
    pub fn group_client_events(
        &self,
        group: &str,
    ) -> impl Iterator<Item = (i64, &'a str, &'a ClientKind)> {
        let prefix = format!("{group}-");
        self.log().iter().filter_map(move |e| match &e.kind {
            SimEventKind::Client { kind, .. }
                if e.host
                    .strip_prefix(&prefix)
                    .is_some_and(|i| i.parse::<usize>().is_ok()) =>
            {
                Some((e.at_ms, e.host.as_str(), kind))
            }
            _ => None,
        })
    }

    /// Whether `group`'s coordinator moved off broker `old` after `at_ms`: in the simulator, another
    /// broker loaded the group's offsets partition (`CoordinatorLoaded`). A driven run sees no
    /// broker's loads, only what the clients see: a member of the group found another broker as its
    /// coordinator after `at_ms`, and a commit of the group was accepted after that (a coordinator
    /// accepts commits only once it has loaded the group). `Err`: what was missing.
    pub fn coordinator_moved(&self, group: &str, at_ms: i64, old: i32) -> Result<(), String> {
        if !self.driven {
            let partition = coordinator::broker::placement::partition_for(group, 3);
            let loaded = self.cluster_events().any(|(t, node, k)| {
                t > at_ms
                    && node != old
                    && matches!(k, ClusterKind::CoordinatorLoaded { partition: p, .. } if *p == partition)
            });
            return ensure(loaded, || {
                format!("no broker but {old} loaded {group}'s coordinator")
            });
        }
        let mut found: Option<(i64, i32)> = None;
        for (t, _, k) in self.group_client_events(group) {
            match k {
                ClientKind::CoordinatorFound { node_id, .. } if t > at_ms && *node_id != old => {
                    found.get_or_insert((t, *node_id));
                }
                ClientKind::CommitAccepted { .. } if found.is_some() => return Ok(()),
                _ => {}
            }
        }
        Err(match found {
            None => format!("no member of {group} found a coordinator but broker {old}"),
            Some((t, n)) => format!(
                "a member of {group} found broker {n} as its coordinator at {t} ms and no commit \
                 of the group was accepted after that"
            ),
        })
    }

    /// Times of accepted commits of clients on `host`.
    pub fn commits_accepted(&self, host: &str) -> Vec<i64> {
        self.client_events(host)
            .filter_map(|(t, _, k)| matches!(k, ClientKind::CommitAccepted { .. }).then_some(t))
            .collect()
    }

    /// The admin client's answers about `group`, in order: (time answered, call, answer).
    pub fn admin_answers(&self, group: &str) -> Vec<(i64, &'static str, &'a AdminAnswer)> {
        self.log()
            .iter()
            .filter_map(|e| match &e.kind {
                SimEventKind::Harness(HarnessEvent::AdminAnswered {
                    group: g,
                    call,
                    answer,
                }) if g == group => Some((e.at_ms, *call, answer)),
                _ => None,
            })
            .collect()
    }

    /// The last accepted commit of every partition by the clients on `hosts` up to `at_ms`
    /// (`topic-partition` -> offset).
    pub fn committed_until(&self, hosts: &[String], at_ms: i64) -> BTreeMap<String, i64> {
        let mut out = BTreeMap::new();
        for e in self.log() {
            if e.at_ms > at_ms {
                break;
            }
            if let SimEventKind::Client {
                kind: ClientKind::CommitAccepted { offsets, .. },
                ..
            } = &e.kind
                && hosts.contains(&e.host)
            {
                for (tp, o) in offsets {
                    out.insert(tp.to_string(), *o);
                }
            }
        }
        out
    }

    /// Error codes in responses received by clients on `host` (time, error).
    pub fn response_errors(&self, host: &str) -> Vec<(i64, ErrorCode)> {
        self.client_events(host)
            .filter_map(|(t, _, k)| match k {
                ClientKind::ResponseReceived { error: Some(e), .. } if *e != ErrorCode::None => {
                    Some((t, *e))
                }
                _ => None,
            })
            .collect()
    }

    /// Cluster (broker or controller) events with their time.
    pub fn cluster_events(&self) -> impl Iterator<Item = (i64, i32, &'a ClusterKind)> {
        self.log().iter().filter_map(|e| match &e.kind {
            SimEventKind::Cluster { node, kind } => Some((e.at_ms, *node, kind)),
            _ => None,
        })
    }

    /// Active task -> owning client, in the final state of a streams group.
    pub fn final_active_owners(&self, group: &str) -> Result<BTreeMap<String, String>, String> {
        let names = self.member_names();
        let g = self.group(group)?;
        let mut out = BTreeMap::new();
        for m in &g.members {
            let name = names
                .get(&m.member_id)
                .cloned()
                .unwrap_or(m.member_id.clone());
            for t in m.active_tasks.iter().chain(&m.partitions) {
                out.insert(t.clone(), name.clone());
            }
        }
        Ok(out)
    }

    /// Statuses (code) the clients of `host` were given, with their time.
    pub fn statuses(&self, host: &str) -> Vec<(i64, i8)> {
        self.client_events(host)
            .flat_map(|(t, _, k)| match k {
                ClientKind::Statuses { statuses } => {
                    statuses.iter().map(|(c, _)| (t, *c)).collect::<Vec<_>>()
                }
                _ => Vec::new(),
            })
            .collect()
    }
}

/// The host name of process `index` of `group`.
pub fn host(group: &str, index: usize) -> String {
    sim::cluster::process_host(group, index)
}

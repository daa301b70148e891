//! `regroup drive`: a scenario's clients and faults against a real cluster, in real time.
//!
//! The same client models as the simulator (streams processes, classic consumers,
//! consumer-protocol consumers, the admin host), with the same configurations
//! ([`crate::cluster::streams_config`], ...) and the same host software
//! ([`crate::cluster::run_streams_host`], ...), run on real TCP ([`net::DriveNet`])
//! against any Kafka-compatible cluster; the same run loop, fault schedule, bookkeeping and
//! convergence deadline ([`crate::runner::run_on`] over [`DriveBackend`]); the same observer
//! ([`crate::hub::Hub`]) and per-event client checks, minus those that need the brokers'
//! internals ([`crate::invariants::Checker::observed_only`]); convergence judged by the same
//! function against the groups as an admin client describes them ([`described`]).
//!
//! What drive can do to the cluster is what a client can: client faults (process stop, start,
//! crash, pause, stalled heartbeats or assignor, scale in and out, application shutdown, admin
//! calls) always; network faults between client hosts and brokers only through its proxies
//! ([`proxy`], one per broker, which the brokers must advertise); on the brokers and the
//! controller themselves (crash, pause, silent death, controlled shutdown) only when drive
//! started the cluster and so owns its processes ([`NodeControl`]: signals to the nodes' JVMs).
//! What it cannot do (fencing a broker by its controller link, links between brokers, topic
//! changes at the controller) is skipped, each fault with the reason, and counted as skipped.
//!
//! Nothing is deterministic here (real time, real sockets, the OS's scheduling): the same seed
//! gives the same member ids and fault schedule, not the same run, and the trace hash identifies
//! one run only.

pub mod described;
pub mod net;
pub mod proxy;

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::time::Duration;

use coordinator::controller::AdminOp;
use coordinator::rpc::RpcClient;
use rand::SeedableRng;
use tokio::sync::Notify;
use tokio::task::{JoinHandle, LocalSet};

use crate::cluster::{
    ADMIN_HOST, AdminCommand, AdminContext, CONTROLLER_HOST, HostResult, ProcessContext,
    ProcessControl, ProcessInfo, SetupError, async_consumer_configs, broker_host, broker_id_of,
    consumer_configs, process_host, process_state_dir, run_admin_host, run_classic_host,
    run_consumer_host, run_streams_host, scenario_topics, streams_config,
};
use crate::faults::{FaultKind, FaultSchedule};
use crate::hub::Hub;
use crate::invariants::convergence::{self, Expectation, NotConverged};
use crate::links::LinkCall;
use crate::runner::{Backend, GroupSummary, LinkUse, RunOptions, RunOutcome, run_on, summarize};
use crate::seed;
use crate::spec::ClusterSpec;
use described::{GroupKind, Observed};
use net::{DriveNet, client_source};
use proxy::{Proxies, ProxySpec};

/// A signal [`NodeControl::signal`] sends to a node of the cluster.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeSignal {
    /// A crash: the process dies at once and its sockets close (peers see the connections end).
    Kill,
    /// A pause: every thread stops and the sockets stay open (peers see nothing).
    Stop,
    /// The end of a pause.
    Cont,
    /// A controlled shutdown: the broker moves its leaderships away, then exits.
    Term,
}

impl NodeSignal {
    pub fn name(self) -> &'static str {
        match self {
            NodeSignal::Kill => "KILL",
            NodeSignal::Stop => "STOP",
            NodeSignal::Cont => "CONT",
            NodeSignal::Term => "TERM",
        }
    }
}

/// The nodes of a cluster drive started itself (`regroup drive --cluster real-kafka`), which it
/// may crash, pause, shut down and restart: the broker faults. Nodes are named as the simulator's
/// hosts are (`controller`, `broker-1`, ...). Each call returns quickly (it must not hold up the
/// clients, which run on the same thread): a restart launches the node and does not wait for it.
pub trait NodeControl {
    /// The nodes it controls.
    fn nodes(&self) -> Vec<String>;
    /// Sends `signal` to `node`.
    fn signal(&self, node: &str, signal: NodeSignal) -> Result<(), String>;
    /// Starts `node` again with its storage (killing it first if it still runs).
    fn restart(&self, node: &str) -> Result<(), String>;
    /// Whether it can cut broker `node` off from the controller (both ways) while its clients
    /// still reach it.
    fn can_cut(&self, _node: &str) -> bool {
        false
    }
    /// Cuts (`true`) or restores broker `node`'s links to the controller.
    fn cut_from_controller(&self, node: &str, _cut: bool) -> Result<(), String> {
        Err(format!("cannot cut {node} off from the controller"))
    }
}

/// A [`NodeControl`] in a [`DriveConfig`].
#[derive(Clone)]
pub struct Nodes(pub Rc<dyn NodeControl>);

impl std::fmt::Debug for Nodes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("Nodes").field(&self.0.nodes()).finish()
    }
}

/// Where and how to drive.
#[derive(Debug, Clone)]
pub struct DriveConfig {
    /// The cluster as the clients reach it (`host:port`; a proxy's address when proxied).
    pub bootstrap: Vec<String>,
    /// One proxy per broker (`LISTEN=TARGET`); the brokers must advertise the LISTEN addresses.
    pub proxies: Vec<ProxySpec>,
    /// How long to try reaching the cluster at the start.
    pub connect_timeout_ms: u64,
    /// The cluster's nodes, when drive controls them (broker faults); `None`: an external
    /// cluster, whose nodes' faults are skipped.
    pub nodes: Option<Nodes>,
}

/// What a drive produced: the run's outcome, and what drive found and did.
#[derive(Debug, Clone)]
pub struct DriveOutcome {
    pub outcome: RunOutcome,
    /// The cluster's brokers: node id -> advertised `host:port`.
    pub brokers: BTreeMap<i32, String>,
    /// Brokers behind one of drive's proxies: node id -> the proxy's target.
    pub proxied: BTreeMap<i32, String>,
    /// Connections each proxy accepted (broker host -> count).
    pub proxy_connections: BTreeMap<String, u64>,
    /// Rounds of the observer (every group described once per round).
    pub observer_rounds: u64,
    /// The scenario's topics the cluster has with another partition count (they existed before
    /// the run: creating them answered TOPIC_ALREADY_EXISTS), as `topic: N partitions, the
    /// scenario's M`.
    pub topic_mismatches: Vec<String>,
    /// The scenario's groups a previous run had left on the cluster, deleted before this one
    /// (DeleteGroups once their members' sessions expired).
    pub groups_deleted: Vec<String>,
    /// The observer's last failure, if its last round had one (a describe or Metadata that
    /// failed: a cluster without streams groups answers StreamsGroupDescribe with an error).
    pub observer_error: Option<String>,
}

/// What a host's software is, as a factory of its incarnations.
type HostFactory = Rc<dyn Fn() -> Pin<Box<dyn Future<Output = HostResult>>>>;

/// The real-time backend; see the module documentation.
pub struct DriveBackend {
    runtime: tokio::runtime::Runtime,
    local: LocalSet,
    start: tokio::time::Instant,
    hub: Hub,
    spec: ClusterSpec,
    hosts: Vec<String>,
    brokers: Vec<String>,
    processes: BTreeMap<String, ProcessInfo>,
    /// Client hosts (processes and the admin host).
    clients: BTreeSet<String>,
    /// Broker hosts behind a proxy.
    proxied: BTreeSet<String>,
    proxies: Option<Proxies>,
    factories: BTreeMap<String, HostFactory>,
    tasks: BTreeMap<String, JoinHandle<()>>,
    /// Hosts whose software ended by itself (with the reason).
    failures: Rc<RefCell<Vec<String>>>,
    admin_queue: Rc<RefCell<VecDeque<AdminCommand>>>,
    admin_notify: Rc<Notify>,
    observed: Rc<RefCell<Observed>>,
    /// The cluster as the clients reach it.
    bootstrap: Vec<String>,
    /// Proxy address -> the broker's own, for the observer.
    redirect: BTreeMap<String, String>,
    /// When the run started (the hub's clock reads it).
    epoch: Rc<Cell<tokio::time::Instant>>,
    /// The cluster's nodes, when drive controls them.
    nodes: Option<Nodes>,
    /// Nodes stopped by a pause or a silent death (SIGSTOP), not resumed yet.
    paused: BTreeSet<String>,
    /// Brokers cut off from the controller.
    cut: BTreeSet<String>,
}

fn setup(message: impl Into<String>) -> SetupError {
    SetupError(message.into())
}

/// Runs `spec`'s clients under `schedule` against the cluster `config` names, in real time.
pub fn drive(
    spec: ClusterSpec,
    schedule: FaultSchedule,
    options: &RunOptions,
    config: &DriveConfig,
) -> Result<DriveOutcome, SetupError> {
    let topics = spec.topics.clone();
    let mut backend = DriveBackend::connect(spec, options, config)?;
    let groups_deleted = backend.delete_leftover_groups(config.connect_timeout_ms)?;
    backend.start_hosts(options.seed);
    let observed = backend.observed.clone();
    let proxies = backend.proxies.clone();
    let broker_hosts = backend.brokers.clone();
    let proxied_hosts = backend.proxied.clone();
    let outcome = run_on(backend, schedule, options);
    let o = observed.borrow();
    let proxy_connections = match &proxies {
        Some(p) => broker_hosts
            .iter()
            .filter(|b| proxied_hosts.contains(*b))
            .map(|b| (b.clone(), p.accepted(b)))
            .collect(),
        None => BTreeMap::new(),
    };
    let proxied = config
        .proxies
        .iter()
        .filter_map(|p| {
            o.brokers
                .iter()
                .find(|(_, a)| **a == p.listen)
                .map(|(id, _)| (*id, p.target.clone()))
        })
        .collect();
    let topic_mismatches = topics
        .iter()
        .filter_map(|t| {
            let n = *o.partitions.get(&t.name)?;
            (n != t.partitions).then(|| {
                format!(
                    "{}: {n} partitions, the scenario's {}",
                    t.name, t.partitions
                )
            })
        })
        .collect();
    Ok(DriveOutcome {
        outcome,
        brokers: o.brokers.clone(),
        proxied,
        proxy_connections,
        observer_rounds: o.rounds,
        topic_mismatches,
        groups_deleted,
        observer_error: o.last_error.clone(),
    })
}

impl DriveBackend {
    /// Starts the proxies, reaches the cluster and reads its brokers.
    fn connect(
        mut spec: ClusterSpec,
        options: &RunOptions,
        config: &DriveConfig,
    ) -> Result<Self, SetupError> {
        crate::cluster::validate(&spec)?;
        if let Some(g) = spec
            .consumer_groups
            .iter()
            .find(|g| !g.classic_processes.is_empty())
        {
            return Err(setup(format!(
                "consumer group {}: drive does not run processes that speak the classic protocol \
                 in a consumer group (online migration; docs/simulation.md)",
                g.group_id
            )));
        }
        if config.bootstrap.is_empty() {
            return Err(setup("no bootstrap address"));
        }
        if !config.proxies.is_empty()
            && let Some(b) = config
                .bootstrap
                .iter()
                .find(|b| !config.proxies.iter().any(|p| p.listen == **b))
        {
            return Err(setup(format!(
                "bootstrap address {b} is no proxy's LISTEN address: the clients' first \
                 connections would bypass drive's proxies"
            )));
        }
        // The simulator's link latency is its network's; a real one has its own.
        spec.latency.min_ms = 0;
        spec.latency.max_ms = 0;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| setup(format!("cannot start the runtime: {e}")))?;
        let local = LocalSet::new();
        let start = local.block_on(&runtime, async { tokio::time::Instant::now() });
        let proxies = (!config.proxies.is_empty()).then(Proxies::new);
        // The observer reaches the brokers directly, not through the proxies.
        let redirect: BTreeMap<String, String> = config
            .proxies
            .iter()
            .map(|p| (p.listen.clone(), p.target.clone()))
            .collect();
        let observer_net = DriveNet::new(start).with_redirect(redirect.clone());
        let brokers = local.block_on(&runtime, async {
            let clients: Vec<RpcClient<DriveNet>> = config
                .bootstrap
                .iter()
                .map(|b| RpcClient::new(observer_net.clone(), b.clone(), "regroup-drive"))
                .collect();
            let deadline =
                tokio::time::Instant::now() + Duration::from_millis(config.connect_timeout_ms);
            loop {
                match described::metadata(&clients).await {
                    Ok((brokers, _)) => return Ok(brokers),
                    Err(e) if tokio::time::Instant::now() >= deadline => {
                        return Err(setup(format!(
                            "cannot reach the cluster at {}: {e}",
                            config.bootstrap.join(",")
                        )));
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
                }
            }
        })?;
        if brokers.is_empty() {
            return Err(setup("the cluster's Metadata lists no broker"));
        }
        let mut proxied = BTreeSet::new();
        if let Some(p) = &proxies {
            for (id, addr) in &brokers {
                let Some(spec) = config.proxies.iter().find(|s| s.listen == *addr) else {
                    return Err(setup(format!(
                        "broker {id} advertises {addr}, which is no proxy's LISTEN address: its \
                         clients would bypass drive's proxies (give --proxy {addr}=<where it \
                         listens>, and make it advertise {addr})"
                    )));
                };
                let host = broker_host(*id);
                local
                    .block_on(&runtime, p.start(&host, spec))
                    .map_err(|e| {
                        setup(format!(
                            "proxy of broker {id}: cannot listen on {}: {e}",
                            spec.listen
                        ))
                    })?;
                proxied.insert(host);
            }
        }
        // The run's clock starts when the hosts do ([`DriveBackend::start_hosts`]), after the
        // set-up (which may wait for an earlier run's groups to empty).
        let epoch = Rc::new(Cell::new(start));
        let clock = epoch.clone();
        let hub = Hub::observed(
            options.keep_events,
            Rc::new(move || clock.get().elapsed().as_millis() as i64),
        );
        hub.set_offsets_may_expire(
            spec.broker_configs
                .keys()
                .any(|k| k.starts_with("offsets.retention")),
        );
        let broker_hosts: Vec<String> = brokers.keys().map(|id| broker_host(*id)).collect();
        let mut hosts = broker_hosts.clone();
        hosts.push(ADMIN_HOST.to_string());
        let mut processes = BTreeMap::new();
        for app in &spec.streams_apps {
            for i in 0..app.processes {
                let host = process_host(&app.application_id, i);
                hosts.push(host.clone());
                processes.insert(
                    host.clone(),
                    ProcessInfo {
                        host,
                        group: app.application_id.clone(),
                        index: i,
                        control: ProcessControl::default(),
                    },
                );
            }
        }
        let classic = spec
            .classic_groups
            .iter()
            .map(|g| (&g.group_id, g.processes));
        let consumer = spec
            .consumer_groups
            .iter()
            .map(|g| (&g.group_id, g.processes));
        for (group, count) in classic.chain(consumer) {
            for i in 0..count {
                let host = process_host(group, i);
                hosts.push(host.clone());
                processes.insert(
                    host.clone(),
                    ProcessInfo {
                        host,
                        group: group.clone(),
                        index: i,
                        control: ProcessControl::default(),
                    },
                );
            }
        }
        let clients: BTreeSet<String> = hosts
            .iter()
            .filter(|h| broker_id_of(h).is_none())
            .cloned()
            .collect();
        // A controller drive controls can be crashed and paused like a broker.
        if let Some(n) = &config.nodes
            && n.0.nodes().iter().any(|h| h == CONTROLLER_HOST)
        {
            hosts.push(CONTROLLER_HOST.to_string());
        }
        Ok(Self {
            runtime,
            local,
            start,
            hub,
            spec,
            hosts,
            brokers: broker_hosts,
            processes,
            clients,
            proxied,
            proxies,
            factories: BTreeMap::new(),
            tasks: BTreeMap::new(),
            failures: Rc::new(RefCell::new(Vec::new())),
            admin_queue: Rc::new(RefCell::new(VecDeque::new())),
            admin_notify: Rc::new(Notify::new()),
            observed: Rc::new(RefCell::new(Observed::default())),
            bootstrap: config.bootstrap.clone(),
            redirect,
            epoch,
            nodes: config.nodes.clone(),
            paused: BTreeSet::new(),
            cut: BTreeSet::new(),
        })
    }

    /// Deletes the scenario's groups if the cluster has them (a previous run's), so that the run
    /// starts from no group as the simulator's does: DeleteGroups, retried while the group still
    /// has members (a previous run's members stay until their sessions expire), for up to the
    /// longest session timeout plus `slack_ms`.
    fn delete_leftover_groups(&mut self, slack_ms: u64) -> Result<Vec<String>, SetupError> {
        let groups: Vec<String> = self
            .spec
            .streams_apps
            .iter()
            .map(|a| a.application_id.clone())
            .chain(self.spec.classic_groups.iter().map(|g| g.group_id.clone()))
            .chain(self.spec.consumer_groups.iter().map(|g| g.group_id.clone()))
            .collect();
        let longest = self
            .spec
            .streams_apps
            .iter()
            .map(|a| a.session_timeout_ms)
            .chain(
                self.spec
                    .classic_groups
                    .iter()
                    .map(|g| g.session_timeout_ms),
            )
            .chain(
                self.spec
                    .consumer_groups
                    .iter()
                    .map(|g| g.session_timeout_ms),
            )
            .max()
            .unwrap_or(0)
            .max(0) as u64;
        let net = DriveNet::new(self.start).with_redirect(self.redirect.clone());
        let bootstrap = self.bootstrap.clone();
        self.local.block_on(&self.runtime, async move {
            let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
            let mut config = members::admin::AdminConfig::new("regroup-drive");
            config.default_api_timeout_ms = 5_000;
            let admin = members::admin::Admin::new(
                net,
                bootstrap,
                config,
                "drive-setup",
                &mut rng,
                Rc::new(members::NullObserver),
            );
            let deadline = tokio::time::Instant::now()
                + Duration::from_millis(longest.saturating_mul(2) + slack_ms);
            let mut deleted = Vec::new();
            for g in groups {
                loop {
                    use protocol::ErrorCode;
                    let answer = admin.delete_group(&g).await;
                    match answer {
                        Ok(ErrorCode::None) => {
                            deleted.push(g.clone());
                            break;
                        }
                        Ok(ErrorCode::GroupIdNotFound) => break,
                        _ if tokio::time::Instant::now() >= deadline => {
                            return Err(setup(format!(
                                "the cluster has group {g} from an earlier run and it could not \
                                 be deleted: {answer:?}"
                            )));
                        }
                        _ => tokio::time::sleep(Duration::from_millis(500)).await,
                    }
                }
            }
            Ok(deleted)
        })
    }

    /// The transport of client host `n` (in host order): bound to its own loopback address when
    /// proxies must tell it apart.
    fn client_net(&self, host: &str) -> DriveNet {
        let n = self
            .hosts
            .iter()
            .filter(|h| self.clients.contains(*h))
            .position(|h| h == host)
            .unwrap_or(0);
        let source = self.proxies.as_ref().and_then(|_| client_source(n));
        if let (Some(p), Some(ip)) = (&self.proxies, source) {
            p.add_host(ip, host);
        }
        DriveNet::new(self.start).from_source(source)
    }

    /// Builds every host's software and starts it (and the observer): the run's time 0.
    fn start_hosts(&mut self, seed: u64) {
        self.start = self
            .local
            .block_on(&self.runtime, async { tokio::time::Instant::now() });
        self.epoch.set(self.start);
        let bootstrap = self.bootstrap();
        let ready = Rc::new(Cell::new(self.spec.topics.is_empty()));
        // The admin host.
        // The scenario's topics, with no more replicas than the cluster has brokers.
        let brokers = self.topic_replication_factor();
        let topics = scenario_topics(&self.spec, brokers)
            .into_iter()
            .map(|t| match t {
                AdminCommand::CreateTopic {
                    name,
                    partitions,
                    replication_factor,
                } => AdminCommand::CreateTopic {
                    name,
                    partitions,
                    replication_factor: replication_factor.min(self.brokers.len() as i16),
                },
                other => other,
            })
            .collect();
        let ctx = AdminContext {
            topics,
            queue: self.admin_queue.clone(),
            notify: self.admin_notify.clone(),
            ready: ready.clone(),
            hub: self.hub.clone(),
            bootstrap: bootstrap.clone(),
            controller: None,
        };
        let net = self.client_net(ADMIN_HOST);
        let starts = Rc::new(Cell::new(0u64));
        self.factories.insert(
            ADMIN_HOST.to_string(),
            Rc::new(move || {
                starts.set(starts.get() + 1);
                let rng = seed::rng(seed, &format!("admin/incarnation/{}", starts.get()));
                Box::pin(run_admin_host(net.clone(), ctx.clone(), rng))
            }),
        );
        // The processes.
        for app in self.spec.streams_apps.clone() {
            for i in 0..app.processes {
                let host = process_host(&app.application_id, i);
                let ctx = self.process_context(&host, seed, &ready, &bootstrap);
                let config = streams_config(&app, i, &host);
                let state_dir = process_state_dir(seed, &host);
                let dormant = app.dormant.contains(&i);
                let net = self.client_net(&host);
                self.factories.insert(
                    host,
                    Rc::new(move || {
                        Box::pin(run_streams_host(
                            net.clone(),
                            ctx.clone(),
                            config.clone(),
                            state_dir.clone(),
                            dormant,
                        ))
                    }),
                );
            }
        }
        for g in self.spec.classic_groups.clone() {
            for i in 0..g.processes {
                let host = process_host(&g.group_id, i);
                let ctx = self.process_context(&host, seed, &ready, &bootstrap);
                let configs = consumer_configs(&g, i, &host);
                let dormant = g.dormant.contains(&i);
                let net = self.client_net(&host);
                self.factories.insert(
                    host,
                    Rc::new(move || {
                        Box::pin(run_classic_host(
                            net.clone(),
                            ctx.clone(),
                            configs.clone(),
                            dormant,
                        ))
                    }),
                );
            }
        }
        for g in self.spec.consumer_groups.clone() {
            for i in 0..g.processes {
                let host = process_host(&g.group_id, i);
                let ctx = self.process_context(&host, seed, &ready, &bootstrap);
                let configs = async_consumer_configs(&g, i, &host);
                let dormant = g.dormant.contains(&i);
                let net = self.client_net(&host);
                self.factories.insert(
                    host,
                    Rc::new(move || {
                        Box::pin(run_consumer_host(
                            net.clone(),
                            ctx.clone(),
                            configs.clone(),
                            dormant,
                        ))
                    }),
                );
            }
        }
        for host in self.hosts.clone() {
            if self.factories.contains_key(&host) {
                self.spawn_host(&host);
            }
        }
        // The observer, straight to the brokers.
        let groups: Vec<(String, GroupKind)> = self
            .spec
            .streams_apps
            .iter()
            .map(|a| (a.application_id.clone(), GroupKind::Streams))
            .chain(
                self.spec
                    .classic_groups
                    .iter()
                    .map(|g| (g.group_id.clone(), GroupKind::Classic)),
            )
            .chain(
                self.spec
                    .consumer_groups
                    .iter()
                    .map(|g| (g.group_id.clone(), GroupKind::Consumer)),
            )
            .collect();
        let net = DriveNet::new(self.start).with_redirect(self.redirect.clone());
        let (observed, hub) = (self.observed.clone(), self.hub.clone());
        self.local
            .spawn_local(described::observe(net, bootstrap, groups, observed, hub));
    }

    fn process_context(
        &self,
        host: &str,
        seed: u64,
        ready: &Rc<Cell<bool>>,
        bootstrap: &[String],
    ) -> ProcessContext {
        ProcessContext::new(
            host,
            seed,
            ready.clone(),
            self.hub.clone(),
            self.processes[host].control.clone(),
            bootstrap.to_vec(),
        )
    }

    fn bootstrap(&self) -> Vec<String> {
        self.bootstrap.clone()
    }

    /// The node control, when `host` is a node drive controls.
    fn node(&self, host: &str) -> Option<Rc<dyn NodeControl>> {
        let n = self.nodes.as_ref()?;
        n.0.nodes().iter().any(|h| h == host).then(|| n.0.clone())
    }

    /// Sends `signal` to node `host`; a failure ends the run (reported as the host's failure).
    fn signal_node(&mut self, host: &str, signal: NodeSignal) {
        if let Some(n) = self.node(host)
            && let Err(e) = n.signal(host, signal)
        {
            self.failures
                .borrow_mut()
                .push(format!("{host}: SIG{} failed: {e}", signal.name()));
        }
    }

    /// Starts an incarnation of `host`'s software in its own `LocalSet`, so that aborting it
    /// (a crash) ends every task it spawned and closes its sockets.
    fn spawn_host(&mut self, host: &str) {
        let Some(factory) = self.factories.get(host).cloned() else {
            return;
        };
        let failures = self.failures.clone();
        let name = host.to_string();
        let handle = self.local.spawn_local(async move {
            let inner = LocalSet::new();
            let result = inner.run_until(factory()).await;
            let why = match result {
                Ok(()) => "returned".to_string(),
                Err(e) => e.to_string(),
            };
            failures.borrow_mut().push(format!("{name}: {why}"));
        });
        self.tasks.insert(host.to_string(), handle);
    }

    /// How drive carries a fault on the link `(x, y)` ([`route`]).
    fn route(&self, x: &str, y: &str) -> Result<Route, String> {
        route(&self.clients, &self.proxied, self.nodes.as_ref(), x, y)
    }

    /// Cuts (or restores) `broker`'s links to the controller; a failure ends the run.
    fn cut_from_controller(&mut self, broker: &str, cut: bool) {
        if let Some(n) = &self.nodes
            && let Err(e) = n.0.cut_from_controller(broker, cut)
        {
            self.failures
                .borrow_mut()
                .push(format!("{broker}: controller cut failed: {e}"));
        }
    }
}

/// How drive carries a fault on the link `(x, y)`: not at all ([`Route::Idle`], no traffic
/// there), on a proxy, or by cutting a broker off from the controller; `Err` one drive cannot
/// reach. `clients`: the client hosts; `proxied`: the brokers behind drive's proxies.
fn route(
    clients: &BTreeSet<String>,
    proxied: &BTreeSet<String>,
    nodes: Option<&Nodes>,
    x: &str,
    y: &str,
) -> Result<Route, String> {
    let client = |h: &str| clients.contains(h);
    let broker = |h: &str| broker_id_of(h).is_some();
    match (client(x), client(y), broker(x), broker(y)) {
        (true, true, ..) => Ok(Route::Idle),
        (true, false, _, true) | (false, true, true, _) => {
            let b = if broker(x) { x } else { y };
            if proxied.contains(b) {
                Ok(Route::Proxy)
            } else {
                Err(format!(
                    "{b} has no proxy: network faults need drive's proxies (--proxy)"
                ))
            }
        }
        (_, _, true, true) => Err(format!(
            "the link {x} - {y} is between brokers, which drive's proxies do not carry"
        )),
        // A client and the controller: no traffic between them.
        _ if client(x) || client(y) => Ok(Route::Idle),
        _ => {
            let (b, other) = if broker(x) { (x, y) } else { (y, x) };
            match nodes {
                Some(n) if other == CONTROLLER_HOST && broker(b) && n.0.can_cut(b) => {
                    Ok(Route::ControllerCut(b.to_string()))
                }
                _ => Err(format!(
                    "the link {x} - {y} is the controller's, which drive cannot reach"
                )),
            }
        }
    }
}

/// Whether a link fault of kind `how` on `pairs` can be applied, by [`route`].
fn links_applicable(
    pairs: &[(String, String)],
    how: LinkUse,
    route: impl Fn(&str, &str) -> Result<Route, String>,
) -> Result<(), String> {
    let mut any = false;
    for (x, y) in pairs {
        let r = route(x, y)?;
        if matches!(r, Route::ControllerCut(_)) && how != LinkUse::Cut {
            return Err(format!(
                "drive cuts a broker's links to the controller both ways or not at all: a {how:?} \
                 fault on {x} - {y} cannot be applied"
            ));
        }
        any |= r != Route::Idle;
    }
    if any {
        Ok(())
    } else {
        Err("none of its links carries traffic between a client host and a broker".into())
    }
}

/// How drive carries a link fault ([`route`]).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Route {
    /// No traffic on the link here: nothing to do.
    Idle,
    /// On drive's proxy to the broker.
    Proxy,
    /// The broker's links to the controller, cut both ways by the node control.
    ControllerCut(String),
}

impl Backend for DriveBackend {
    fn hub(&self) -> &Hub {
        &self.hub
    }

    fn spec(&self) -> &ClusterSpec {
        &self.spec
    }

    fn hosts(&self) -> &[String] {
        &self.hosts
    }

    fn broker_hosts(&self) -> Vec<String> {
        self.brokers.clone()
    }

    fn processes(&self) -> &BTreeMap<String, ProcessInfo> {
        &self.processes
    }

    fn now_ms(&self) -> i64 {
        self.start.elapsed().as_millis() as i64
    }

    fn supports(&self, kind: &FaultKind) -> Result<(), String> {
        match kind {
            FaultKind::FailRate { .. } => {
                Err("a failure rate has no proxy form (turmoil's link flaps)".into())
            }
            _ => Ok(()),
        }
    }

    fn advance(&mut self, acted: bool, until: i64) -> Result<(), String> {
        let now = self.now_ms();
        // Real time: let the clients run until the driver must look again, in slices short
        // enough that a violation stops the run soon after it happened.
        let slice = if acted { 1 } else { (until - now).clamp(1, 50) };
        let slice = Duration::from_millis(slice as u64);
        self.local.block_on(
            &self.runtime,
            async move { tokio::time::sleep(slice).await },
        );
        if let Some(f) = self.failures.borrow_mut().drain(..).next() {
            return Err(f);
        }
        // A host whose task ended without reporting (its software panicked).
        match self.tasks.iter().find(|(_, t)| t.is_finished()) {
            Some((host, _)) => Err(format!("{host}: its software stopped (a panic)")),
            None => Ok(()),
        }
    }

    fn after_step(&mut self, _now: i64) {}

    fn links_applicable(&self, pairs: &[(String, String)], how: LinkUse) -> Result<(), String> {
        links_applicable(pairs, how, |x, y| self.route(x, y))
    }

    fn apply_links(&mut self, calls: Vec<LinkCall>) {
        let mut proxied = Vec::new();
        for c in calls {
            let (a, b) = match &c {
                LinkCall::Partition(a, b)
                | LinkCall::PartitionOneway(a, b)
                | LinkCall::Repair(a, b)
                | LinkCall::RepairOneway(a, b)
                | LinkCall::Hold(a, b)
                | LinkCall::Release(a, b)
                | LinkCall::Latency(a, b, _)
                | LinkCall::FailRate(a, b, _) => (a.clone(), b.clone()),
            };
            match self.route(&a, &b) {
                Ok(Route::Proxy) => proxied.push(c),
                Ok(Route::ControllerCut(broker)) => match c {
                    LinkCall::Partition(..) => {
                        self.cut_from_controller(&broker, true);
                        self.cut.insert(broker);
                    }
                    LinkCall::Repair(..) => {
                        self.cut_from_controller(&broker, false);
                        self.cut.remove(&broker);
                    }
                    // `links_applicable` lets only two-way cuts through to these links.
                    other => self.failures.borrow_mut().push(format!(
                        "{broker}: drive cannot apply {other:?} to its controller links"
                    )),
                },
                Ok(Route::Idle) | Err(_) => {}
            }
        }
        if let Some(p) = &self.proxies {
            p.apply(&proxied);
        }
    }

    fn heal_all_links(&mut self) {
        if let Some(p) = &self.proxies {
            p.clear();
        }
        // No node stays stopped or cut off past the final heal.
        for host in std::mem::take(&mut self.paused) {
            self.signal_node(&host, NodeSignal::Cont);
        }
        for broker in std::mem::take(&mut self.cut) {
            self.cut_from_controller(&broker, false);
        }
    }

    fn protocol_switch_refusal(&self) -> Option<&'static str> {
        Some(
            "drive runs a consumer group's processes with the consumer protocol only (no \
             migrating host: docs/simulation.md)",
        )
    }

    fn pausable(&self, host: &str) -> bool {
        self.node(host).is_some()
    }

    fn pause_host(&mut self, host: &str, paused: bool) {
        if paused {
            self.signal_node(host, NodeSignal::Stop);
            self.paused.insert(host.to_string());
        } else if self.paused.remove(host) {
            self.signal_node(host, NodeSignal::Cont);
        }
    }

    fn crashable(&self, host: &str) -> Result<(), String> {
        if self.factories.contains_key(host) || self.node(host).is_some() {
            Ok(())
        } else {
            Err(format!(
                "{host} is not under drive's control (an external cluster's node)"
            ))
        }
    }

    fn crash(&mut self, host: &str) {
        if let Some(t) = self.tasks.remove(host) {
            t.abort();
        }
        // A node stopped by a silent death stays stopped (its peers must see nothing); the
        // restart kills it.
        if self.node(host).is_some() && !self.paused.contains(host) {
            self.signal_node(host, NodeSignal::Kill);
        }
    }

    fn restart(&mut self, host: &str) {
        if let Some(n) = self.node(host) {
            self.paused.remove(host);
            if let Err(e) = n.restart(host) {
                self.failures
                    .borrow_mut()
                    .push(format!("{host}: restart failed: {e}"));
            }
            return;
        }
        self.spawn_host(host);
    }

    fn controlled_shutdown(&mut self, id: i32) -> Result<(), String> {
        let host = broker_host(id);
        if self.node(&host).is_none() {
            return Err(format!(
                "broker {id} is not under drive's control (an external cluster's node)"
            ));
        }
        // Kafka's shutdown hook: the broker asks the controller to move its leaderships away
        // (BrokerLifecycleManager's controlled shutdown), then exits; the heal restarts it.
        self.signal_node(&host, NodeSignal::Term);
        Ok(())
    }

    fn controlled_shutdown_over(&mut self, _host: &str) {}

    fn controller_admin(&mut self, _op: AdminOp) -> Result<Vec<String>, String> {
        Err("topic changes at the controller: drive does not reach the controller".into())
    }

    fn broker_epochs(&self, _id: i32) -> Vec<i64> {
        Vec::new()
    }

    fn controller_reachable(&self) -> Result<(), String> {
        Err("drive does not reach the controller".into())
    }

    fn admin_command(&self, command: AdminCommand) {
        self.admin_queue.borrow_mut().push_back(command);
        self.admin_notify.notify_one();
    }

    fn topic_replication_factor(&self) -> i16 {
        self.brokers.len().min(3) as i16
    }

    fn coordinator_of(&self, group: &str) -> Option<i32> {
        self.observed.borrow().coordinators.get(group).copied()
    }

    fn classic_leader_host(&self, group: &str) -> Result<String, String> {
        Err(format!(
            "the leader of group {group} is known from the coordinator's records, which drive \
             cannot read"
        ))
    }

    fn converged(&self, expectations: &[Expectation]) -> Result<Vec<(String, i32)>, NotConverged> {
        let o = self.observed.borrow();
        if o.rounds == 0 {
            return Err(NotConverged::from(
                "drive's observer has not described the groups yet".to_string(),
            ));
        }
        for e in expectations {
            if let Expectation::Classic { group, .. } = e
                && e.members() > 0
                && let Some(why) = o.classic_unsettled(group)
            {
                return Err(NotConverged::from(why));
            }
        }
        self.hub.with_state(|_, checker| {
            let model = o.model(checker);
            convergence::check(expectations, &model, checker, &o.partitions)
        })
    }

    fn groups(&self) -> Vec<GroupSummary> {
        let o = self.observed.borrow();
        self.hub
            .with_state(|_, checker| summarize(&o.model(checker)))
    }
}

/// Multiplies a scenario's timings by `factor` (in (0, 1] to shrink them): the groups' session
/// timeouts, heartbeat and commit intervals, rebalance timeouts, initial delays and request
/// timeouts, the coordinator's `group.*.ms` configs (the classic initial rebalance delay, 3 s by
/// default, and the streams and consumer assignment intervals, 1 s by default, included), the fault windows (start, length, added latency), and the run's own bounds (the
/// convergence bound, the minimum duration, the settle period). What the cluster decides alone
/// (broker sessions, the brokers' timers and defaults) is not the scenario's to scale: the default
/// convergence bound is computed from the scaled groups with the broker's unscaled session.
/// Request timeouts keep at least 1 s, and everything else at least 1 ms.
pub fn scale_timings(
    spec: &mut ClusterSpec,
    schedule: &mut FaultSchedule,
    options: &mut RunOptions,
    factor: f64,
) {
    let ms = |v: u64| -> u64 { ((v as f64) * factor).round().max(1.0) as u64 };
    let ms_i32 = |v: i32| -> i32 { ms(v.max(0) as u64).min(i32::MAX as u64) as i32 };
    let request = |v: u64| -> u64 { ms(v).max(1_000) };
    for a in &mut spec.streams_apps {
        a.session_timeout_ms = ms_i32(a.session_timeout_ms);
        a.heartbeat_interval_ms = ms_i32(a.heartbeat_interval_ms);
        if a.initial_rebalance_delay_ms > 0 {
            a.initial_rebalance_delay_ms = ms_i32(a.initial_rebalance_delay_ms);
        }
        a.max_poll_interval_ms = ms_i32(a.max_poll_interval_ms);
        a.commit_interval_ms = ms(a.commit_interval_ms);
        a.request_timeout_ms = request(a.request_timeout_ms);
        for v in a.revocation_latency_ms.values_mut() {
            *v = ms(*v);
        }
    }
    for g in &mut spec.classic_groups {
        g.session_timeout_ms = ms_i32(g.session_timeout_ms);
        g.heartbeat_interval_ms = ms(g.heartbeat_interval_ms);
        g.max_poll_interval_ms = ms_i32(g.max_poll_interval_ms);
        g.auto_commit_interval_ms = ms(g.auto_commit_interval_ms);
        g.request_timeout_ms = request(g.request_timeout_ms);
    }
    for g in &mut spec.consumer_groups {
        g.session_timeout_ms = ms_i32(g.session_timeout_ms);
        g.heartbeat_interval_ms = ms_i32(g.heartbeat_interval_ms);
        g.max_poll_interval_ms = ms_i32(g.max_poll_interval_ms);
        g.auto_commit_interval_ms = ms(g.auto_commit_interval_ms);
        g.request_timeout_ms = request(g.request_timeout_ms);
        for v in g.revocation_latency_ms.values_mut() {
            *v = ms(*v);
        }
    }
    // The group coordinator's own timings the scenario relies on: the classic initial rebalance
    // delay (Kafka's default 3 s unless the scenario sets it) and any other `group.*.ms` config
    // the scenario sets.
    if !spec.classic_groups.is_empty() {
        spec.broker_configs
            .entry("group.initial.rebalance.delay.ms".into())
            .or_insert_with(|| "3000".into());
    }
    // And a streams group's assignment interval (Kafka's default 1 s): the target assignment is
    // computed at most that often.
    if !spec.streams_apps.is_empty() {
        spec.broker_configs
            .entry("group.streams.assignment.interval.ms".into())
            .or_insert_with(|| "1000".into());
    }
    // And a consumer group's (Kafka 4.4's `group.consumer.assignment.interval.ms`, 1 s by
    // default): its target assignment is computed at most that often too.
    if !spec.consumer_groups.is_empty() {
        spec.broker_configs
            .entry("group.consumer.assignment.interval.ms".into())
            .or_insert_with(|| "1000".into());
    }
    for (k, v) in spec.broker_configs.iter_mut() {
        if k.starts_with("group.")
            && k.ends_with(".ms")
            && let Ok(n) = v.parse::<u64>()
        {
            *v = if n == 0 { 0 } else { ms(n) }.to_string();
        }
    }
    for w in &mut schedule.windows {
        w.at_ms = (w.at_ms as f64 * factor).round() as u64;
        w.duration_ms = w.duration_ms.map(ms);
        if let FaultKind::Latency { max_ms, .. } = &mut w.kind {
            *max_ms = ms(*max_ms);
        }
    }
    options.convergence_bound_ms = options.convergence_bound_ms.map(ms);
    options.min_duration_ms = (options.min_duration_ms as f64 * factor).round() as u64;
    options.settle_ms = (options.settle_ms as f64 * factor).round() as u64;
}

/// The broker and group configs a scenario assumes of the cluster it runs on, by Kafka's names:
/// its own broker configs, the lowered bounds its groups need
/// ([`crate::cluster::scenario_broker_defaults`]), and its streams applications' and consumer
/// groups' group configs as broker-wide defaults (`group.streams.session.timeout.ms`,
/// `group.consumer.heartbeat.interval.ms`, ...) when the groups agree on them (`Err` names a
/// config they disagree on: it can only be set per group).
pub fn assumed_broker_configs(spec: &ClusterSpec) -> Result<BTreeMap<String, String>, String> {
    let mut out: BTreeMap<String, String> = spec.broker_configs.clone();
    for (k, v) in crate::cluster::scenario_broker_defaults(spec) {
        out.insert(k.to_string(), v);
    }
    // Each group's configs (Kafka's GROUP resource names), broker-wide as `group.<name>`.
    let per_group = spec
        .streams_apps
        .iter()
        .map(|app| {
            (
                &app.application_id,
                crate::cluster::streams_group_configs(app).to_vec(),
            )
        })
        .chain(spec.consumer_groups.iter().map(|g| {
            (
                &g.group_id,
                crate::cluster::consumer_group_configs(g).to_vec(),
            )
        }));
    let mut group: BTreeMap<String, (String, String)> = BTreeMap::new();
    for (id, configs) in per_group {
        for (k, v) in configs {
            let key = format!("group.{k}");
            if spec.broker_configs.contains_key(&key) {
                continue;
            }
            match group.get(&key) {
                Some((first, id0)) if *first != v => {
                    return Err(format!(
                        "{key}: group {id0} wants {first}, {id} wants {v} (a per-group config)"
                    ));
                }
                Some(_) => {}
                None => {
                    group.insert(key, (v, id.clone()));
                }
            }
        }
    }
    for (k, (v, _)) in group {
        out.insert(k, v);
    }
    Ok(out)
}

/// Brings a time-scaled run's times back to the scenario's own (each divided by `factor`): the
/// events, the violations (their times, and every `N ms` their details give, which the checks
/// wrote in the run's real ms), the convergence times and bound, the run's length. A scenario's check
/// then reads the timeline it was written for ("members expired 9 to 11.5 s after the
/// isolation"), and the summary compares with `regroup run`'s.
pub fn unscale_times(outcome: &mut RunOutcome, factor: f64) {
    if factor == 1.0 {
        return;
    }
    let t = |v: i64| -> i64 { (v as f64 / factor).round() as i64 };
    for e in &mut outcome.log {
        e.at_ms = t(e.at_ms);
        if let crate::event::SimEventKind::Harness(crate::event::HarnessEvent::LivenessPhase {
            deadline_ms,
        }) = &mut e.kind
        {
            *deadline_ms = t(*deadline_ms);
        }
    }
    for v in &mut outcome.violations {
        v.at_ms = t(v.at_ms);
        v.detail = unscale_text(&v.detail, factor);
    }
    outcome.sim_ms = t(outcome.sim_ms);
    outcome.converged_at_ms = outcome.converged_at_ms.map(t);
    outcome.convergence_bound_ms = t(outcome.convergence_bound_ms as i64) as u64;
}

/// `text` with every whole number followed by ` ms` divided by `factor`.
fn unscale_text(text: &str, factor: f64) -> String {
    let mut out = String::with_capacity(text.len());
    let mut digits = String::new();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            if !digits.is_empty() {
                let preceded = out
                    .chars()
                    .last()
                    .is_some_and(|p| p.is_alphanumeric() || p == '_');
                match digits.parse::<i64>() {
                    Ok(n) if rest.starts_with(" ms") && !preceded => {
                        out.push_str(&((n as f64 / factor).round() as i64).to_string())
                    }
                    _ => out.push_str(&digits),
                }
                digits.clear();
            }
            out.push(c);
        }
        rest = &rest[c.len_utf8()..];
    }
    out.push_str(&digits);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::faults::{FaultWindow, HostRef};
    use crate::spec::{ClassicGroupSpec, ConsumerGroupSpec, StreamsAppSpec};
    use members::streams::topology::{Subtopology, Topology};

    fn spec() -> ClusterSpec {
        ClusterSpec::default()
            .with_topic("t", 4)
            .with_streams(StreamsAppSpec::new(
                "app",
                Topology::new(vec![Subtopology::new("0", &["t"])]),
                2,
                1,
            ))
            .with_classic(ClassicGroupSpec::new("g", &["t"], 2, 1))
    }

    /// A node control that records what it was asked.
    struct Recorder {
        cuts: bool,
    }

    impl NodeControl for Recorder {
        fn nodes(&self) -> Vec<String> {
            ["controller", "broker-1", "broker-2"]
                .map(String::from)
                .to_vec()
        }
        fn signal(&self, _node: &str, _signal: NodeSignal) -> Result<(), String> {
            Ok(())
        }
        fn restart(&self, _node: &str) -> Result<(), String> {
            Ok(())
        }
        fn can_cut(&self, node: &str) -> bool {
            self.cuts && node.starts_with("broker-")
        }
    }

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn a_brokers_controller_links_are_cut_only_both_ways_and_only_by_a_node_control_that_can() {
        let clients: BTreeSet<String> = ["app-0", "admin"].map(String::from).into();
        let proxied: BTreeSet<String> = ["broker-1", "broker-2"].map(String::from).into();
        let cutter = Nodes(Rc::new(Recorder { cuts: true }));
        let signals_only = Nodes(Rc::new(Recorder { cuts: false }));
        let r = |nodes: Option<&Nodes>, x: &str, y: &str| route(&clients, &proxied, nodes, x, y);
        assert_eq!(r(None, "app-0", "broker-1"), Ok(Route::Proxy));
        assert_eq!(r(None, "app-0", "admin"), Ok(Route::Idle));
        assert_eq!(r(None, "controller", "app-0"), Ok(Route::Idle));
        assert_eq!(
            r(Some(&cutter), "broker-2", "controller"),
            Ok(Route::ControllerCut("broker-2".into()))
        );
        assert_eq!(
            r(Some(&cutter), "controller", "broker-1"),
            Ok(Route::ControllerCut("broker-1".into()))
        );
        let refused = Err(
            "the link broker-2 - controller is the controller's, which drive cannot \
                           reach"
                .to_string(),
        );
        assert_eq!(r(None, "broker-2", "controller"), refused);
        assert_eq!(r(Some(&signals_only), "broker-2", "controller"), refused);
        assert_eq!(
            r(Some(&cutter), "broker-1", "broker-2"),
            Err(
                "the link broker-1 - broker-2 is between brokers, which drive's proxies do not \
                 carry"
                    .to_string()
            )
        );
        let fence = pairs(&[("broker-2", "controller")]);
        let with = |x: &str, y: &str| r(Some(&cutter), x, y);
        assert_eq!(links_applicable(&fence, LinkUse::Cut, with), Ok(()));
        for how in [
            LinkUse::Hold,
            LinkUse::OneWay,
            LinkUse::Latency,
            LinkUse::FailRate,
        ] {
            assert_eq!(
                links_applicable(&fence, how, with),
                Err(format!(
                    "drive cuts a broker's links to the controller both ways or not at all: a \
                     {how:?} fault on broker-2 - controller cannot be applied"
                ))
            );
        }
        // Isolating a broker also cuts it from the other brokers, which no proxy carries.
        let isolate = pairs(&[
            ("broker-2", "app-0"),
            ("broker-2", "controller"),
            ("broker-2", "broker-1"),
        ]);
        assert!(links_applicable(&isolate, LinkUse::Cut, with).is_err());
        assert_eq!(
            links_applicable(&pairs(&[("app-0", "admin")]), LinkUse::Cut, with),
            Err("none of its links carries traffic between a client host and a broker".into())
        );
    }

    #[test]
    fn time_scaling_shrinks_the_scenarios_timings_and_reads_them_back() {
        let mut spec = spec();
        let app = spec.streams_apps[0].clone();
        let group = spec.classic_groups[0].clone();
        let mut schedule = FaultSchedule::new(vec![
            FaultWindow::at(
                20_000,
                FaultKind::Pause {
                    host: HostRef::process("app", 0),
                },
            )
            .lasting(8_000),
        ]);
        let mut options = RunOptions::new(1);
        options.convergence_bound_ms = Some(60_000);
        scale_timings(&mut spec, &mut schedule, &mut options, 0.25);
        let a = &spec.streams_apps[0];
        assert_eq!(a.session_timeout_ms, app.session_timeout_ms / 4);
        assert_eq!(a.heartbeat_interval_ms, app.heartbeat_interval_ms / 4);
        assert_eq!(a.max_poll_interval_ms, app.max_poll_interval_ms / 4);
        // Request timeouts keep at least a second.
        assert_eq!(
            a.request_timeout_ms,
            (app.request_timeout_ms / 4).max(1_000)
        );
        let g = &spec.classic_groups[0];
        assert_eq!(g.session_timeout_ms, group.session_timeout_ms / 4);
        // The classic initial delay is Kafka's 3 s unless the scenario sets it: scaled too.
        assert_eq!(
            spec.broker_configs["group.initial.rebalance.delay.ms"],
            "750"
        );
        assert_eq!(
            spec.broker_configs["group.streams.assignment.interval.ms"],
            "250"
        );
        assert_eq!(schedule.windows[0].at_ms, 5_000);
        assert_eq!(schedule.windows[0].duration_ms, Some(2_000));
        assert_eq!(options.convergence_bound_ms, Some(15_000));
        // The broker configs the scaled scenario assumes: its groups' lowered bounds and
        // configs.
        let configs = assumed_broker_configs(&spec).unwrap();
        let session = (app.session_timeout_ms / 4).to_string();
        assert_eq!(configs["group.streams.session.timeout.ms"], session);
        assert_eq!(configs["group.streams.min.session.timeout.ms"], session);
        assert_eq!(configs["group.initial.rebalance.delay.ms"], "750");
        // Times read back in the scenario's time.
        let mut outcome = RunOutcome {
            passed: true,
            violations: vec![crate::invariants::Violation::new(
                crate::invariants::Invariant::Convergence,
                2_500,
                "x",
            )],
            trace_hash: String::new(),
            sim_ms: 10_000,
            events: 0,
            groups: Vec::new(),
            faults: BTreeMap::new(),
            converged_at_ms: Some(9_000),
            convergence_bound_ms: 15_000,
            log: Vec::new(),
            coverage: Default::default(),
            assignor_calls: Vec::new(),
        };
        unscale_times(&mut outcome, 0.25);
        assert_eq!(outcome.sim_ms, 40_000);
        assert_eq!(
            unscale_text("0_1 of x2 at 20 ms; sent at 1500 ms, epoch 7, 3 ms", 0.5),
            "0_1 of x2 at 40 ms; sent at 3000 ms, epoch 7, 6 ms"
        );
        assert_eq!(outcome.converged_at_ms, Some(36_000));
        assert_eq!(outcome.convergence_bound_ms, 60_000);
        assert_eq!(outcome.violations[0].at_ms, 10_000);
    }

    #[test]
    fn a_consumer_groups_timings_and_group_configs_are_scaled_and_assumed() {
        let group = ConsumerGroupSpec::new("payments", &["t"], 3, 1).with_dormant([2]);
        let mut spec = ClusterSpec::default()
            .with_topic("t", 6)
            .with_consumer(group);
        spec.consumer_groups[0]
            .revocation_latency_ms
            .insert(1, 4_000);
        let mut schedule = FaultSchedule::new(Vec::new());
        let mut options = RunOptions::new(1);
        scale_timings(&mut spec, &mut schedule, &mut options, 0.5);
        let g = &spec.consumer_groups[0];
        // The catalogue's 10 s sessions and 1 s heartbeats, halved.
        assert_eq!(g.session_timeout_ms, 5_000);
        assert_eq!(g.heartbeat_interval_ms, 500);
        assert_eq!(g.revocation_latency_ms[&1], 2_000);
        // Kafka's 1 s consumer assignment interval, scaled with the rest.
        assert_eq!(
            spec.broker_configs["group.consumer.assignment.interval.ms"],
            "500"
        );
        let configs = assumed_broker_configs(&spec).unwrap();
        assert_eq!(configs["group.consumer.session.timeout.ms"], "5000");
        assert_eq!(configs["group.consumer.min.session.timeout.ms"], "5000");
        assert_eq!(configs["group.consumer.heartbeat.interval.ms"], "500");
        assert_eq!(configs["group.consumer.min.heartbeat.interval.ms"], "500");
        // Two consumer groups with different sessions need per-group configs.
        let mut other = spec.consumer_groups[0].clone();
        other.group_id = "refunds".into();
        other.session_timeout_ms = 6_000;
        spec.consumer_groups.push(other);
        let e = assumed_broker_configs(&spec).unwrap_err();
        assert_eq!(
            e,
            "group.consumer.session.timeout.ms: group payments wants 5000, refunds wants 6000 (a \
             per-group config)"
        );
    }

    #[test]
    fn applications_that_disagree_on_a_group_config_cannot_share_broker_defaults() {
        let mut spec = spec();
        let mut other = spec.streams_apps[0].clone();
        other.application_id = "other".into();
        other.session_timeout_ms += 1_000;
        spec.streams_apps.push(other);
        let e = assumed_broker_configs(&spec).unwrap_err();
        assert!(e.contains("group.streams.session.timeout.ms"), "{e}");
    }
}

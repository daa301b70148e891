//! Builds a simulated cluster on turmoil from a [`ClusterSpec`]: one host for the controller, one
//! per broker, one per member process (a streams process with its threads, or a process running
//! several classic consumers), and an admin host that creates the scenario's topics (member
//! processes wait for them) and carries out topic changes.
//!
//! Durable state lives outside the host factories, so a crashed and restarted host finds it
//! again: the controller's metadata log, each broker's partition logs, each streams process's
//! state directory. Everything random — turmoil's network, incarnation ids, member ids, backoff
//! jitter — comes from the run's seed.

use std::cell::{Cell, RefCell};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;
use std::time::{Duration, UNIX_EPOCH};

use coordinator::broker::{BrokerConfig, BrokerHandle, BrokerStorage, start_broker};
use coordinator::controller::{
    ControllerConfig, ControllerHandle, ControllerStorage, start_controller,
};
use coordinator::rpc::RpcClient;
use members::classic::{Consumer, ConsumerConfig};
use members::consumer::{AsyncConsumer, AsyncConsumerConfig};
use members::streams::{StateDirectory, StreamsConfig, StreamsProcess};
use protocol::messages::create_topics_request::CreatableTopic;
use protocol::messages::{CreateTopicsRequest, StrBytes, TopicName};
use protocol::net::Net;
use protocol::{ErrorCode, Response};
use rand::RngCore;
use tokio::sync::Notify;
use uuid::Uuid;

use crate::event::{
    AdminAnswer, DescribedGroupView, DescribedMemberView, HarnessEvent, ListedGroupView,
};
use crate::faults::GroupAdminCall;
use crate::hub::Hub;
use crate::net::{EPOCH_MS, TurmoilNet};
use crate::seed;
use crate::spec::{
    ClassicGroupSpec, ClusterSpec, ConsumerGroupSpec, GroupProtocol, StreamsAppSpec,
};
use members::observer::TopicPartition;

/// The controller's host name.
pub const CONTROLLER_HOST: &str = "controller";
/// The admin client's host name.
pub const ADMIN_HOST: &str = "admin";
/// The brokers' client port.
pub const BROKER_PORT: u16 = 9092;
/// The controller's port.
pub const CONTROLLER_PORT: u16 = 9093;

/// Broker `id`'s host name.
pub fn broker_host(id: i32) -> String {
    format!("broker-{id}")
}

/// The broker id a host name of [`broker_host`] stands for (`None` for any other host).
pub fn broker_id_of(host: &str) -> Option<i32> {
    host.strip_prefix("broker-")?.parse().ok()
}

/// The host name of process `index` of a group.
pub fn process_host(group: &str, index: usize) -> String {
    format!("{group}-{index}")
}

/// `broker.session.timeout.ms` of the cluster (Kafka's default 9000).
pub fn broker_session_timeout_ms(spec: &ClusterSpec) -> u64 {
    spec.broker_configs
        .get("broker.session.timeout.ms")
        .and_then(|v| v.parse().ok())
        .unwrap_or(9_000)
}

/// The controller's configuration for `spec`: the defaults, then every broker config the
/// controller knows (keys it does not know are broker configs, validated by the brokers).
pub fn controller_config(spec: &ClusterSpec) -> ControllerConfig {
    let mut config = ControllerConfig {
        listen: format!("0.0.0.0:{CONTROLLER_PORT}"),
        ..ControllerConfig::default()
    };
    for (k, v) in &spec.broker_configs {
        let _ = config.try_set(k, v);
    }
    config
}

/// A command for a member process's host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProcessCommand {
    StallHeartbeats {
        thread: Option<usize>,
        stalled: bool,
    },
    /// A classic process's assignor is stuck (true) or released (false).
    StallAssignment { stalled: bool },
    /// Close gracefully (commit, leave); the host stays up.
    Stop,
    /// Start again after a stop (same state directory), or for the first time (dormant).
    Start,
    /// A streams process asks the group to shut the whole application down.
    ShutdownApplication,
    /// A consumer process closes gracefully if it runs and starts again speaking `protocol`, at
    /// once (`restart`) or at its next `Start`: one step of a rolling upgrade or downgrade between
    /// the classic and the consumer protocol.
    SwitchProtocol {
        protocol: GroupProtocol,
        /// Start again at once (false: stay stopped until a `Start`).
        restart: bool,
    },
}

/// The channel from the driver to a process host (it survives the host's restarts).
#[derive(Clone, Default)]
pub struct ProcessControl {
    queue: Rc<RefCell<VecDeque<ProcessCommand>>>,
    notify: Rc<Notify>,
}

impl ProcessControl {
    pub fn send(&self, command: ProcessCommand) {
        self.queue.borrow_mut().push_back(command);
        self.notify.notify_one();
    }

    fn drain(&self) -> Vec<ProcessCommand> {
        self.queue.borrow_mut().drain(..).collect()
    }
}

/// A member process host.
#[derive(Clone)]
pub struct ProcessInfo {
    pub host: String,
    pub group: String,
    pub index: usize,
    pub control: ProcessControl,
}

/// A topic change for the admin host.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AdminCommand {
    CreateTopic {
        name: String,
        partitions: i32,
        replication_factor: i16,
    },
    /// LeaveGroup by instance id (Kafka's `removeMembersFromConsumerGroup`).
    RemoveStaticMembers {
        group: String,
        instance_ids: Vec<String>,
    },
    /// A BrokerHeartbeat carrying `broker`'s previous `epoch`, sent to the controller.
    StaleBrokerHeartbeat { broker: i32, epoch: i64 },
    /// A group administration call whose answer is logged (`streams`: the group is a streams
    /// application's, described with StreamsGroupDescribe).
    GroupAdmin {
        group: String,
        streams: bool,
        call: GroupAdminCall,
    },
}

/// A built cluster: the turmoil simulation plus the handles the runner and the invariants use.
pub struct Cluster {
    pub sim: turmoil::Sim<'static>,
    pub hub: Hub,
    pub spec: ClusterSpec,
    pub seed: u64,
    /// Every host, in registration order.
    pub hosts: Vec<String>,
    /// The running controller (None while its host is down).
    pub controller: Rc<RefCell<Option<Rc<ControllerHandle>>>>,
    /// When the current controller incarnation started (simulated ms).
    pub controller_started_ms: Rc<Cell<i64>>,
    /// Running brokers by node id.
    pub brokers: Rc<RefCell<BTreeMap<i32, BrokerHandle<TurmoilNet>>>>,
    pub storages: Vec<(i32, BrokerStorage)>,
    pub processes: BTreeMap<String, ProcessInfo>,
    pub admin: Rc<RefCell<VecDeque<AdminCommand>>>,
    admin_notify: Rc<Notify>,
    /// The scenario's topics exist: processes may start.
    pub ready: Rc<Cell<bool>>,
}

/// Why a cluster could not be built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SetupError(pub String);

impl std::fmt::Display for SetupError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SetupError {}

impl Cluster {
    /// Builds the cluster for `spec` under `seed`; `keep_events` keeps the full event log.
    pub fn build(spec: ClusterSpec, seed: u64, keep_events: bool) -> Result<Cluster, SetupError> {
        Self::build_with(spec, seed, keep_events, None)
    }

    /// [`Cluster::build`], with every broker's sticky assignor recording its calls in
    /// `assignor_log` when given ([`crate::assignor_log`]).
    pub fn build_with(
        spec: ClusterSpec,
        seed: u64,
        keep_events: bool,
        assignor_log: Option<crate::assignor_log::AssignorLog>,
    ) -> Result<Cluster, SetupError> {
        validate(&spec)?;
        let mut broker_config = broker_config_template(&spec)?;
        if let Some(log) = assignor_log {
            broker_config.shard.task_assignors =
                coordinator::config::TaskAssignors(vec![std::sync::Arc::new(
                    crate::assignor_log::RecordingAssignor::new(log),
                )]);
        }
        let sim = turmoil::Builder::new()
            .simulation_duration(Duration::from_secs(365 * 24 * 3600))
            .tick_duration(Duration::from_millis(spec.tick_ms.max(1)))
            .epoch(UNIX_EPOCH + Duration::from_millis(EPOCH_MS as u64))
            .rng_seed(seed)
            .min_message_latency(Duration::from_millis(spec.latency.min_ms))
            .max_message_latency(Duration::from_millis(
                spec.latency.max_ms.max(spec.latency.min_ms),
            ))
            .tcp_capacity(spec.effective_tcp_capacity())
            .build();
        let storages: Vec<(i32, BrokerStorage)> = (1..=spec.brokers as i32)
            .map(|id| (id, BrokerStorage::new()))
            .collect();
        let shard = &broker_config.shard;
        let assignment_intervals = spec
            .streams_apps
            .iter()
            .map(|app| {
                let effective = shard
                    .streams
                    .effective(shard.group_overrides.get(&app.application_id));
                (
                    app.application_id.clone(),
                    i64::from(effective.assignment_interval_ms),
                )
            })
            .collect();
        let hub = Hub::new(storages.clone(), keep_events, assignment_intervals);
        let mut cluster = Cluster {
            sim,
            hub,
            spec: spec.clone(),
            seed,
            hosts: Vec::new(),
            controller: Rc::new(RefCell::new(None)),
            controller_started_ms: Rc::new(Cell::new(0)),
            brokers: Rc::new(RefCell::new(BTreeMap::new())),
            storages,
            processes: BTreeMap::new(),
            admin: Rc::new(RefCell::new(VecDeque::new())),
            admin_notify: Rc::new(Notify::new()),
            ready: Rc::new(Cell::new(spec.topics.is_empty())),
        };
        cluster.add_controller();
        for (id, storage) in cluster.storages.clone() {
            cluster.add_broker(id, storage, &broker_config);
        }
        cluster.add_admin();
        for app in &spec.streams_apps {
            for i in 0..app.processes {
                cluster.add_streams_process(app, i);
            }
        }
        for group in &spec.classic_groups {
            for i in 0..group.processes {
                cluster.add_classic_process(group, i);
            }
        }
        for group in &spec.consumer_groups {
            for i in 0..group.processes {
                cluster.add_consumer_process(group, i);
            }
        }
        Ok(cluster)
    }

    fn bootstrap(&self) -> Vec<String> {
        (1..=self.spec.brokers as i32)
            .map(|id| format!("{}:{BROKER_PORT}", broker_host(id)))
            .collect()
    }

    fn add_controller(&mut self) {
        let storage = ControllerStorage::new();
        let config = controller_config(&self.spec);
        let sink = self.hub.cluster_sink(CONTROLLER_HOST);
        let slot = self.controller.clone();
        let started = self.controller_started_ms.clone();
        self.sim.host(CONTROLLER_HOST, move || {
            let (storage, config, sink, slot, started) = (
                storage.clone(),
                config.clone(),
                sink.clone(),
                slot.clone(),
                started.clone(),
            );
            async move {
                started.set(crate::net::sim_now_ms());
                let handle =
                    Rc::new(start_controller(TurmoilNet::new(), config, storage, sink).await?);
                *slot.borrow_mut() = Some(handle.clone());
                std::future::pending::<()>().await;
                drop(handle);
                Ok(())
            }
        });
        self.hosts.push(CONTROLLER_HOST.to_string());
    }

    fn add_broker(&mut self, id: i32, storage: BrokerStorage, template: &BrokerConfig) {
        let host = broker_host(id);
        let mut config = template.clone();
        config.node_id = id;
        config.advertised = Some((host.clone(), BROKER_PORT));
        config.log_dir_id = coordinator::topics::derived_topic_id(&format!("regroup-log-dir-{id}"));
        let sink = self.hub.cluster_sink(&host);
        let handles = self.brokers.clone();
        let seed = self.seed;
        let starts = Rc::new(Cell::new(0u64));
        self.sim.host(host.as_str(), move || {
            starts.set(starts.get() + 1);
            let mut rng = seed::rng(seed, &format!("broker/{id}/incarnation/{}", starts.get()));
            let mut config = config.clone();
            // Kafka draws a random incarnation id per process start.
            config.incarnation_id = Uuid::from_u64_pair(rng.next_u64(), rng.next_u64());
            let (storage, sink, handles) = (storage.clone(), sink.clone(), handles.clone());
            async move {
                let handle = start_broker(TurmoilNet::new(), config, storage, sink).await?;
                handles.borrow_mut().insert(id, handle.clone());
                handle.wait_stopped().await;
                Ok(())
            }
        });
        self.hosts.push(host);
    }

    fn add_admin(&mut self) {
        let ctx = AdminContext {
            topics: scenario_topics(&self.spec, self.spec.brokers.min(3) as i16),
            queue: self.admin.clone(),
            notify: self.admin_notify.clone(),
            ready: self.ready.clone(),
            hub: self.hub.clone(),
            bootstrap: self.bootstrap(),
            controller: Some(format!("{CONTROLLER_HOST}:{CONTROLLER_PORT}")),
        };
        let seed = self.seed;
        let starts = Rc::new(Cell::new(0u64));
        self.sim.host(ADMIN_HOST, move || {
            starts.set(starts.get() + 1);
            let rng = seed::rng(seed, &format!("admin/incarnation/{}", starts.get()));
            run_admin_host(TurmoilNet::new(), ctx.clone(), rng)
        });
        self.hosts.push(ADMIN_HOST.to_string());
    }

    /// Queues a topic change for the admin host.
    pub fn admin_command(&self, command: AdminCommand) {
        self.admin.borrow_mut().push_back(command);
        self.admin_notify.notify_one();
    }

    fn add_streams_process(&mut self, app: &StreamsAppSpec, index: usize) {
        let host = process_host(&app.application_id, index);
        let control = ProcessControl::default();
        let state_dir = process_state_dir(self.seed, &host);
        let config = streams_config(app, index, &host);
        let dormant = app.dormant.contains(&index);
        let ctx = ProcessContext::new(
            &host,
            self.seed,
            self.ready.clone(),
            self.hub.clone(),
            control.clone(),
            self.bootstrap(),
        );
        self.sim.host(host.as_str(), move || {
            run_streams_host(
                TurmoilNet::new(),
                ctx.clone(),
                config.clone(),
                state_dir.clone(),
                dormant,
            )
        });
        self.hosts.push(host.clone());
        self.processes.insert(
            host.clone(),
            ProcessInfo {
                host,
                group: app.application_id.clone(),
                index,
                control,
            },
        );
    }

    fn add_classic_process(&mut self, group: &ClassicGroupSpec, index: usize) {
        let host = process_host(&group.group_id, index);
        let configs = consumer_configs(group, index, &host);
        let dormant = group.dormant.contains(&index);
        self.add_hosted(&group.group_id, index, move |ctx| {
            run_classic_host(TurmoilNet::new(), ctx, configs.clone(), dormant)
        });
    }

    fn add_consumer_process(&mut self, group: &ConsumerGroupSpec, index: usize) {
        let host = process_host(&group.group_id, index);
        let configs = async_consumer_configs(group, index, &host);
        let classic = classic_configs_of(group, index, &host);
        let dormant = group.dormant.contains(&index);
        // The protocol outlives the host's incarnations (a crash restarts it with the protocol
        // it last switched to).
        let protocol = Rc::new(Cell::new(group.protocol_of(index)));
        self.add_hosted(&group.group_id, index, move |ctx| {
            run_migrating_host(
                TurmoilNet::new(),
                ctx,
                classic.clone(),
                configs.clone(),
                protocol.clone(),
                dormant,
            )
        });
    }

    /// Registers process `index` of consumer group `group_id` (classic or consumer protocol) as a
    /// turmoil host whose every incarnation runs `runner` with the process's context.
    fn add_hosted<F, Fut>(&mut self, group_id: &str, index: usize, runner: F)
    where
        F: Fn(ProcessContext) -> Fut + 'static,
        Fut: std::future::Future<Output = HostResult> + 'static,
    {
        let host = process_host(group_id, index);
        let control = ProcessControl::default();
        let ctx = ProcessContext::new(
            &host,
            self.seed,
            self.ready.clone(),
            self.hub.clone(),
            control.clone(),
            self.bootstrap(),
        );
        self.sim.host(host.as_str(), move || runner(ctx.clone()));
        self.hosts.push(host.clone());
        self.processes.insert(
            host.clone(),
            ProcessInfo {
                host,
                group: group_id.to_string(),
                index,
                control,
            },
        );
    }

    /// The controller's view of the topics' partition counts (empty while it is down).
    pub fn topic_partitions(&self) -> BTreeMap<String, i32> {
        match self.controller.borrow().as_ref() {
            Some(c) => c.with_state(|c| {
                c.image()
                    .topics
                    .iter()
                    .map(|(name, t)| (name.clone(), t.partitions.len() as i32))
                    .collect()
            }),
            None => BTreeMap::new(),
        }
    }

    /// The broker currently leading `group`'s offsets partition, per the controller (or, while
    /// the controller is down, per the brokers that have the coordinator active).
    pub fn coordinator_of(&self, group: &str) -> Option<i32> {
        let partition =
            coordinator::broker::placement::partition_for(group, self.spec.offsets_partitions);
        if let Some(c) = self.controller.borrow().as_ref() {
            let leader = c.with_state(|c| {
                c.image()
                    .topics
                    .get(crate::mirror::OFFSETS_TOPIC)
                    .and_then(|t| t.partitions.get(&partition))
                    .map(|p| p.leader)
            });
            return leader.filter(|l| *l >= 0);
        }
        self.brokers
            .borrow()
            .iter()
            .find(|(_, h)| h.active_coordinators().contains(&partition))
            .map(|(id, _)| *id)
    }
}

/// The state directory of process host `host` (its process id), the same in every incarnation.
pub fn process_state_dir(seed: u64, host: &str) -> StateDirectory {
    StateDirectory::new(&mut seed::rng(seed, &format!("state-dir/{host}")))
}

/// The Kafka Streams configuration of process `index` (host `host`) of `app`.
pub fn streams_config(app: &StreamsAppSpec, index: usize, host: &str) -> StreamsConfig {
    let mut config = StreamsConfig::new(app.application_id.clone(), app.topology.clone())
        .with_threads(app.threads);
    if app.static_membership {
        config = config.with_instance_id(format!("{}-{index}", app.application_id));
    }
    if app.application_server {
        config = config.with_application_server(host.to_string(), 8080);
    }
    if let Some(ms) = app.revocation_latency_ms.get(&index) {
        config.revocation_latency_ms = *ms;
    }
    if let Some(epoch) = app.topology_epochs.get(&index) {
        config.topology.epoch = *epoch;
    }
    config.max_poll_interval_ms = app.max_poll_interval_ms;
    config.commit_interval_ms = app.commit_interval_ms;
    config.request_timeout_ms = app.request_timeout_ms;
    config.default_api_timeout_ms = app.request_timeout_ms * 2;
    config
}

/// The consumers' configurations of process `index` (host `host`) of classic group `group`.
pub fn consumer_configs(group: &ClassicGroupSpec, index: usize, host: &str) -> Vec<ConsumerConfig> {
    (0..group.consumers_per_process)
        .map(|n| {
            let topics: Vec<&str> = group.topics.iter().map(String::as_str).collect();
            let mut c = ConsumerConfig::new(
                group.group_id.clone(),
                format!("{host}-consumer-{n}"),
                &topics,
            )
            .with_assignors(group.assignors_of.get(&index).unwrap_or(&group.assignors));
            if let Some(id) = group.instance_id(index, n) {
                c = c.with_instance_id(id);
            }
            c.session_timeout_ms = group.session_timeout_ms;
            c.heartbeat_interval_ms = group.heartbeat_interval_ms;
            c.max_poll_interval_ms = group.max_poll_interval_ms;
            c.auto_commit_interval_ms = group.auto_commit_interval_ms;
            c.request_timeout_ms = group.request_timeout_ms;
            c.default_api_timeout_ms = group.request_timeout_ms * 2;
            c
        })
        .collect()
}

/// The consumers' configurations of process `index` (host `host`) of consumer group `group`.
pub fn async_consumer_configs(
    group: &ConsumerGroupSpec,
    index: usize,
    host: &str,
) -> Vec<AsyncConsumerConfig> {
    (0..group.consumers_per_process)
        .map(|n| {
            let topics: Vec<&str> = group.topics.iter().map(String::as_str).collect();
            let mut c = AsyncConsumerConfig::new(
                group.group_id.clone(),
                format!("{host}-consumer-{n}"),
                &topics,
            );
            if let Some(id) = group.instance_id(index, n) {
                c = c.with_instance_id(id);
            }
            if let Some(a) = &group.server_assignor {
                c = c.with_server_assignor(a.clone());
            }
            if let Some(regex) = &group.topic_regex {
                c = c.with_topic_regex(regex.clone());
            }
            c.max_poll_interval_ms = group.max_poll_interval_ms;
            c.auto_commit_interval_ms = group.auto_commit_interval_ms;
            c.request_timeout_ms = group.request_timeout_ms;
            c.default_api_timeout_ms = group.request_timeout_ms * 2;
            if let Some(ms) = group.revocation_latency_ms.get(&index) {
                c.revocation_latency_ms = *ms;
            }
            c
        })
        .collect()
}

/// The classic consumers' configurations of process `index` (host `host`) of consumer group
/// `group`, for its incarnations that speak the classic protocol: the same group, client ids,
/// topics, instance ids and timeouts as its consumer-protocol incarnations (Kafka's rolling
/// upgrade changes `group.protocol` only), the classic session timeout and heartbeat interval
/// being the group's.
pub fn classic_configs_of(
    group: &ConsumerGroupSpec,
    index: usize,
    host: &str,
) -> Vec<ConsumerConfig> {
    (0..group.consumers_per_process)
        .map(|n| {
            let topics: Vec<&str> = group.topics.iter().map(String::as_str).collect();
            let mut c = ConsumerConfig::new(
                group.group_id.clone(),
                format!("{host}-consumer-{n}"),
                &topics,
            )
            .with_assignors(&group.classic_assignors);
            if let Some(id) = group.instance_id(index, n) {
                c = c.with_instance_id(id);
            }
            c.session_timeout_ms = group.session_timeout_ms;
            c.heartbeat_interval_ms = group.heartbeat_interval_ms.max(0) as u64;
            c.max_poll_interval_ms = group.max_poll_interval_ms;
            c.auto_commit_interval_ms = group.auto_commit_interval_ms;
            c.request_timeout_ms = group.request_timeout_ms;
            c.default_api_timeout_ms = group.request_timeout_ms * 2;
            c
        })
        .collect()
}

/// What a host's software returns (turmoil's host result).
pub type HostResult = Result<(), Box<dyn std::error::Error>>;

/// The software of a streams process host, one incarnation: waits until the scenario's topics
/// exist, starts the process (unless it is dormant and was never started), then carries out the
/// driver's commands ([`ProcessCommand`]) for ever. The simulator runs it on turmoil, `regroup
/// drive` on real TCP.
pub async fn run_streams_host<N: Net>(
    net: N,
    ctx: ProcessContext,
    config: StreamsConfig,
    state_dir: StateDirectory,
    dormant: bool,
) -> HostResult {
    ctx.wait_ready().await;
    let observer = ctx.hub.client_observer(&ctx.host);
    let start = |ctx: &ProcessContext| {
        let mut rng = ctx.next_incarnation();
        StreamsProcess::start(
            net.clone(),
            ctx.bootstrap.clone(),
            config.clone(),
            state_dir.clone(),
            &ctx.host,
            &mut rng,
            observer.clone(),
        )
    };
    // A dormant process waits for its first start; after that, restarts start it at once.
    let mut process = (!dormant || ctx.incarnations.get() > 0).then(|| start(&ctx));
    loop {
        for cmd in ctx.control.drain() {
            match cmd {
                ProcessCommand::StallHeartbeats { thread, stalled } => {
                    if let Some(p) = &process {
                        p.stall_heartbeats(thread, stalled);
                    }
                }
                // The streams protocol assigns at the coordinator.
                ProcessCommand::StallAssignment { .. } => {}
                ProcessCommand::Stop => {
                    if let Some(p) = process.take() {
                        p.stop().await;
                        ctx.hub.harness(
                            &ctx.host,
                            HarnessEvent::ProcessStopped {
                                process: ctx.host.clone(),
                            },
                        );
                    }
                }
                ProcessCommand::Start => {
                    if process.is_none() {
                        process = Some(start(&ctx));
                    }
                }
                ProcessCommand::ShutdownApplication => {
                    if let Some(p) = &process {
                        p.request_shutdown_application();
                    }
                }
                // A streams process has one protocol.
                ProcessCommand::SwitchProtocol { .. } => {}
            }
        }
        ctx.control.notify.notified().await;
    }
}

/// The software of a classic consumer process host, one incarnation (see [`run_streams_host`]):
/// a [`run_migrating_host`] that speaks the classic protocol and is never switched.
pub async fn run_classic_host<N: Net>(
    net: N,
    ctx: ProcessContext,
    configs: Vec<ConsumerConfig>,
    dormant: bool,
) -> HostResult {
    let protocol = Rc::new(Cell::new(GroupProtocol::Classic));
    run_migrating_host(net, ctx, configs, Vec::new(), protocol, dormant).await
}

/// The software of a consumer-protocol consumer process host, one incarnation (see
/// [`run_streams_host`]): a [`run_migrating_host`] that speaks the consumer protocol and is never
/// switched.
pub async fn run_consumer_host<N: Net>(
    net: N,
    ctx: ProcessContext,
    configs: Vec<AsyncConsumerConfig>,
    dormant: bool,
) -> HostResult {
    let protocol = Rc::new(Cell::new(GroupProtocol::Consumer));
    run_migrating_host(net, ctx, Vec::new(), configs, protocol, dormant).await
}

/// The software of a consumer group's process host, one incarnation (see [`run_streams_host`]):
/// its consumers speak `protocol` (the classic or the consumer protocol), which a
/// [`ProcessCommand::SwitchProtocol`] changes. A process that never switches runs exactly as
/// [`run_consumer_host`] or [`run_classic_host`] would.
pub async fn run_migrating_host<N: Net>(
    net: N,
    ctx: ProcessContext,
    classic: Vec<ConsumerConfig>,
    consumer: Vec<AsyncConsumerConfig>,
    protocol: Rc<Cell<GroupProtocol>>,
    dormant: bool,
) -> HostResult {
    ctx.wait_ready().await;
    let observer = ctx.hub.client_observer(&ctx.host);
    let start = |ctx: &ProcessContext| {
        let mut rng = ctx.next_incarnation();
        match protocol.get() {
            GroupProtocol::Classic => start_each(&classic, &ctx.host, |c, name| {
                AnyConsumer::Classic(Consumer::start(
                    net.clone(),
                    ctx.bootstrap.clone(),
                    c,
                    name,
                    &mut rng,
                    observer.clone(),
                ))
            }),
            GroupProtocol::Consumer => start_each(&consumer, &ctx.host, |c, name| {
                AnyConsumer::Consumer(AsyncConsumer::start(
                    net.clone(),
                    ctx.bootstrap.clone(),
                    c,
                    name,
                    &mut rng,
                    observer.clone(),
                ))
            }),
        }
    };
    run_consumer_process(ctx, dormant, start, |p| protocol.set(p)).await
}

/// A consumer of either protocol.
enum AnyConsumer {
    Classic(Consumer),
    Consumer(AsyncConsumer),
}

impl HostedConsumer for AnyConsumer {
    fn stall_heartbeats(&self, stalled: bool) {
        match self {
            AnyConsumer::Classic(c) => HostedConsumer::stall_heartbeats(c, stalled),
            AnyConsumer::Consumer(c) => HostedConsumer::stall_heartbeats(c, stalled),
        }
    }
    fn stall_assignment(&self, stalled: bool) {
        match self {
            AnyConsumer::Classic(c) => HostedConsumer::stall_assignment(c, stalled),
            AnyConsumer::Consumer(c) => HostedConsumer::stall_assignment(c, stalled),
        }
    }
    async fn close(self) {
        match self {
            AnyConsumer::Classic(c) => HostedConsumer::close(c).await,
            AnyConsumer::Consumer(c) => HostedConsumer::close(c).await,
        }
    }
}

/// What a consumer process host does with each of its consumers, whatever their protocol.
trait HostedConsumer {
    fn stall_heartbeats(&self, stalled: bool);
    /// A no-op where the protocol assigns at the coordinator.
    fn stall_assignment(&self, stalled: bool);
    fn close(self) -> impl std::future::Future<Output = ()>;
}

impl HostedConsumer for Consumer {
    fn stall_heartbeats(&self, stalled: bool) {
        Consumer::stall_heartbeats(self, stalled)
    }
    fn stall_assignment(&self, stalled: bool) {
        Consumer::stall_assignment(self, stalled)
    }
    fn close(self) -> impl std::future::Future<Output = ()> {
        Consumer::close(self)
    }
}

impl HostedConsumer for AsyncConsumer {
    fn stall_heartbeats(&self, stalled: bool) {
        AsyncConsumer::stall_heartbeats(self, stalled)
    }
    // The consumer protocol assigns at the coordinator.
    fn stall_assignment(&self, _stalled: bool) {}
    fn close(self) -> impl std::future::Future<Output = ()> {
        AsyncConsumer::close(self)
    }
}

/// The command loop of a consumer process host (classic or consumer protocol): `start` makes
/// the incarnation's consumers (a dormant process starts them only when told to), and `switch`
/// sets the protocol the next `start` speaks.
async fn run_consumer_process<C: HostedConsumer>(
    ctx: ProcessContext,
    dormant: bool,
    start: impl Fn(&ProcessContext) -> Vec<C>,
    switch: impl Fn(GroupProtocol),
) -> HostResult {
    let mut consumers = (!dormant || ctx.incarnations.get() > 0).then(|| start(&ctx));
    loop {
        for cmd in ctx.control.drain() {
            match cmd {
                ProcessCommand::StallHeartbeats { thread, stalled } => {
                    for (n, c) in consumers.iter().flatten().enumerate() {
                        if thread.is_none_or(|t| t == n + 1) {
                            c.stall_heartbeats(stalled);
                        }
                    }
                }
                ProcessCommand::StallAssignment { stalled } => {
                    for c in consumers.iter().flatten() {
                        c.stall_assignment(stalled);
                    }
                }
                ProcessCommand::Stop => {
                    if let Some(cs) = consumers.take() {
                        close_all(&ctx, cs).await;
                    }
                }
                ProcessCommand::Start => {
                    if consumers.is_none() {
                        consumers = Some(start(&ctx));
                    }
                }
                ProcessCommand::ShutdownApplication => {}
                ProcessCommand::SwitchProtocol { protocol, restart } => {
                    switch(protocol);
                    if let Some(cs) = consumers.take() {
                        close_all(&ctx, cs).await;
                        if restart {
                            consumers = Some(start(&ctx));
                        }
                    }
                }
            }
        }
        ctx.control.notify.notified().await;
    }
}

/// One consumer per config of a process on `host`, each started by `start` with its config and
/// its name (`<host>/consumer-<n>`), in config order.
fn start_each<C: Clone, T>(
    configs: &[C],
    host: &str,
    mut start: impl FnMut(C, &str) -> T,
) -> Vec<T> {
    configs
        .iter()
        .enumerate()
        .map(|(n, c)| start(c.clone(), &format!("{host}/consumer-{n}")))
        .collect()
}

/// Closes an incarnation's consumers (each commits and leaves as its protocol does) and says the
/// process stopped.
async fn close_all<C: HostedConsumer>(ctx: &ProcessContext, consumers: Vec<C>) {
    for c in consumers {
        c.close().await;
    }
    ctx.hub.harness(
        &ctx.host,
        HarnessEvent::ProcessStopped {
            process: ctx.host.clone(),
        },
    );
}

/// The scenario's topics, as the admin host creates them before the processes start
/// (`default_rf`: the replication factor of a topic that names none).
pub fn scenario_topics(spec: &ClusterSpec, default_rf: i16) -> Vec<AdminCommand> {
    spec.topics
        .iter()
        .map(|t| AdminCommand::CreateTopic {
            name: t.name.clone(),
            partitions: t.partitions,
            replication_factor: t.replication_factor.unwrap_or(default_rf),
        })
        .collect()
}

/// What the admin host's software needs (cloned into every incarnation).
#[derive(Clone)]
pub struct AdminContext {
    /// The scenario's topics ([`scenario_topics`]), created before anything else.
    pub topics: Vec<AdminCommand>,
    /// The driver's commands, carried out one after another.
    pub queue: Rc<RefCell<VecDeque<AdminCommand>>>,
    pub notify: Rc<Notify>,
    /// Set once the topics exist: the processes start then.
    pub ready: Rc<Cell<bool>>,
    pub hub: Hub,
    /// The brokers (`host:port`).
    pub bootstrap: Vec<String>,
    /// The controller (`host:port`), for the stale broker heartbeats it sends.
    pub controller: Option<String>,
}

/// The admin host's software, one incarnation: creates the scenario's topics (once), then
/// carries out the queued [`AdminCommand`]s for ever.
pub async fn run_admin_host<N: Net>(
    net: N,
    ctx: AdminContext,
    rng: rand_chacha::ChaCha8Rng,
) -> HostResult {
    let AdminContext {
        topics,
        queue,
        notify,
        ready,
        hub,
        bootstrap,
        controller,
    } = ctx;
    let observer = hub.client_observer(ADMIN_HOST);
    let mut admin = AdminClient::new(net, bootstrap, controller, rng, observer, hub.clone());
    if !ready.get() {
        let names: Vec<String> = topics
            .iter()
            .filter_map(|t| match t {
                AdminCommand::CreateTopic { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect();
        for t in &topics {
            admin.run(t).await;
        }
        ready.set(true);
        hub.harness(ADMIN_HOST, HarnessEvent::TopicsCreated { topics: names });
    }
    loop {
        let next = queue.borrow_mut().pop_front();
        match next {
            Some(cmd) => admin.run(&cmd).await,
            None => notify.notified().await,
        }
    }
}

/// What a process host's software needs (cloned into every incarnation).
#[derive(Clone)]
pub struct ProcessContext {
    host: String,
    seed: u64,
    ready: Rc<Cell<bool>>,
    hub: Hub,
    control: ProcessControl,
    incarnations: Rc<Cell<u64>>,
    bootstrap: Vec<String>,
}

impl ProcessContext {
    /// The context of process host `host`: `ready` says when the scenario's topics exist,
    /// `control` carries the driver's commands, `bootstrap` lists the brokers (`host:port`).
    pub fn new(
        host: &str,
        seed: u64,
        ready: Rc<Cell<bool>>,
        hub: Hub,
        control: ProcessControl,
        bootstrap: Vec<String>,
    ) -> Self {
        Self {
            host: host.to_string(),
            seed,
            ready,
            hub,
            control,
            incarnations: Rc::new(Cell::new(0)),
            bootstrap,
        }
    }

    async fn wait_ready(&self) {
        while !self.ready.get() {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    /// Counts a start and returns its generator (member ids, jitter).
    fn next_incarnation(&self) -> rand_chacha::ChaCha8Rng {
        let n = self.incarnations.get() + 1;
        self.incarnations.set(n);
        self.hub.harness(
            &self.host,
            HarnessEvent::ProcessStarted {
                process: self.host.clone(),
                incarnation: n,
            },
        );
        seed::rng(self.seed, &format!("process/{}/incarnation/{n}", self.host))
    }
}

/// The admin host's clients: CreateTopics through any broker (retried until it succeeds), group
/// administration through Kafka's admin model, and a raw connection to the controller.
struct AdminClient<N: Net> {
    net: N,
    brokers: Vec<String>,
    controller: Option<String>,
    clients: Vec<RpcClient<N>>,
    next: usize,
    rng: rand_chacha::ChaCha8Rng,
    observer: Rc<dyn members::Observer>,
    hub: Hub,
}

impl<N: Net> AdminClient<N> {
    fn new(
        net: N,
        brokers: Vec<String>,
        controller: Option<String>,
        rng: rand_chacha::ChaCha8Rng,
        observer: Rc<dyn members::Observer>,
        hub: Hub,
    ) -> Self {
        let clients = brokers
            .iter()
            .map(|b| RpcClient::new(net.clone(), b.clone(), "regroup-admin"))
            .collect();
        Self {
            net,
            brokers,
            controller,
            clients,
            next: 0,
            rng,
            observer,
            hub,
        }
    }

    fn group_admin(&mut self) -> members::admin::Admin<N> {
        members::admin::Admin::new(
            self.net.clone(),
            self.brokers.clone(),
            members::admin::AdminConfig::new("regroup-admin"),
            "admin",
            &mut self.rng,
            self.observer.clone(),
        )
    }

    async fn run(&mut self, command: &AdminCommand) {
        match command {
            AdminCommand::CreateTopic {
                name,
                partitions,
                replication_factor,
            } => {
                self.create_topic(name, *partitions, *replication_factor)
                    .await
            }
            AdminCommand::GroupAdmin {
                group,
                streams: _,
                call: GroupAdminCall::Scripted { script },
            } => {
                let admin = self.group_admin();
                let hub = self.hub.clone();
                crate::rude::run(&admin, group, script, |answer| {
                    hub.harness(
                        ADMIN_HOST,
                        HarnessEvent::AdminAnswered {
                            group: group.clone(),
                            call: "scripted",
                            answer,
                        },
                    )
                })
                .await;
                admin.close();
            }
            AdminCommand::GroupAdmin {
                group,
                streams,
                call,
            } => {
                let admin = self.group_admin();
                let answer = group_admin_call(&admin, group, *streams, call).await;
                admin.close();
                self.hub.harness(
                    ADMIN_HOST,
                    HarnessEvent::AdminAnswered {
                        group: group.clone(),
                        call: call.name(),
                        answer,
                    },
                );
            }
            AdminCommand::RemoveStaticMembers {
                group,
                instance_ids,
            } => {
                let admin = self.group_admin();
                let ids: Vec<&str> = instance_ids.iter().map(String::as_str).collect();
                match admin.remove_static_members(group, &ids).await {
                    Ok(r) => tracing::info!(group = %group, result = ?r, "static members removed"),
                    Err(e) => {
                        tracing::info!(group = %group, error = %e, "static member removal failed")
                    }
                }
                admin.close();
            }
            AdminCommand::StaleBrokerHeartbeat { broker, epoch } => {
                let Some(controller) = self.controller.clone() else {
                    tracing::info!(
                        broker,
                        epoch,
                        "no controller to send a stale broker heartbeat to"
                    );
                    return;
                };
                let controller = RpcClient::new(self.net.clone(), controller, "regroup-admin");
                let request = protocol::messages::BrokerHeartbeatRequest::default()
                    .with_broker_id(protocol::messages::BrokerId(*broker))
                    .with_broker_epoch(*epoch);
                let result = controller
                    .call(protocol::Request::BrokerHeartbeat(request), 2, 5_000)
                    .await;
                tracing::info!(broker, epoch, result = ?result.map(|r| r.api()), "stale broker heartbeat sent");
            }
        }
    }

    async fn create_topic(&mut self, name: &str, partitions: i32, replication_factor: i16) {
        let (name, partitions, replication_factor) =
            (&name.to_string(), &partitions, &replication_factor);
        loop {
            let i = self.next % self.clients.len().max(1);
            let request = CreateTopicsRequest::default()
                .with_topics(vec![
                    CreatableTopic::default()
                        .with_name(TopicName(StrBytes::from_string(name.clone())))
                        .with_num_partitions(*partitions)
                        .with_replication_factor(*replication_factor),
                ])
                .with_timeout_ms(5_000);
            match self.clients[i].call(request.into(), 7, 10_000).await {
                Ok(Response::CreateTopics(r)) => {
                    let code = r
                        .topics
                        .first()
                        .map(|t| t.error_code)
                        .unwrap_or(ErrorCode::UnknownServerError.code());
                    if code == ErrorCode::None.code()
                        || code == ErrorCode::TopicAlreadyExists.code()
                    {
                        tracing::info!(topic = %name, partitions, "topic created");
                        return;
                    }
                    tracing::debug!(topic = %name, error = code, broker = %self.brokers[i], "topic creation refused; retrying");
                }
                Ok(other) => {
                    tracing::debug!(api = %other.api(), "unexpected answer to CreateTopics");
                }
                Err(e) => {
                    tracing::debug!(error = %e, broker = %self.brokers[i], "CreateTopics failed; retrying");
                    self.next += 1;
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
}

/// Runs one group administration call and turns its answer into the log's form.
async fn group_admin_call<N: Net>(
    admin: &members::admin::Admin<N>,
    group: &str,
    streams: bool,
    call: &GroupAdminCall,
) -> AdminAnswer {
    let failed = |e: members::admin::AdminError| AdminAnswer::Failed {
        reason: e.to_string(),
    };
    let errors = |partitions: Vec<(TopicPartition, ErrorCode)>| {
        let mut v: Vec<(String, &'static str)> = partitions
            .iter()
            .map(|(tp, e)| (tp.to_string(), e.name()))
            .collect();
        v.sort();
        v
    };
    match call {
        GroupAdminCall::Describe if streams => match admin.describe_streams_group(group).await {
            Ok(g) => AdminAnswer::Described(describe_streams_view(&g)),
            Err(e) => failed(e),
        },
        GroupAdminCall::Describe => match admin.describe_classic_group(group).await {
            Ok(g) => AdminAnswer::Described(describe_classic_view(&g)),
            Err(e) => failed(e),
        },
        GroupAdminCall::List => match admin.list_groups().await {
            Ok(rows) => AdminAnswer::Listed {
                groups: rows
                    .into_iter()
                    .map(|r| ListedGroupView {
                        group_id: r.group_id,
                        group_type: r.group_type,
                        protocol_type: r.protocol_type,
                        state: r.state,
                    })
                    .collect(),
            },
            Err(e) => failed(e),
        },
        GroupAdminCall::FetchOffsets => match admin.fetch_offsets(group).await {
            Ok(offsets) => AdminAnswer::Offsets {
                offsets: offsets.iter().map(|(tp, o)| (tp.to_string(), *o)).collect(),
            },
            Err(e) => failed(e),
        },
        GroupAdminCall::DeleteOffsets { topic, partitions } => {
            match admin.delete_offsets(group, topic, partitions).await {
                Ok(d) => AdminAnswer::OffsetsDeleted {
                    error: d.error.name(),
                    partitions: errors(d.partitions),
                },
                Err(e) => failed(e),
            }
        }
        GroupAdminCall::AlterOffsets {
            topic,
            partitions,
            offset,
        } => {
            let offsets: Vec<(TopicPartition, i64)> = partitions
                .iter()
                .map(|p| (TopicPartition::new(topic.clone(), *p), *offset))
                .collect();
            match admin.alter_offsets(group, &offsets).await {
                Ok(r) => AdminAnswer::OffsetsAltered {
                    partitions: errors(r),
                },
                Err(e) => failed(e),
            }
        }
        GroupAdminCall::Delete => match admin.delete_group(group).await {
            Ok(e) => AdminAnswer::Deleted { error: e.name() },
            Err(e) => failed(e),
        },
        GroupAdminCall::Scripted { .. } => unreachable!("scripted calls answer line by line"),
    }
}

fn error_name(code: i16) -> &'static str {
    ErrorCode::from_code(code)
        .unwrap_or(ErrorCode::UnknownServerError)
        .name()
}

pub(crate) fn describe_classic_view(
    g: &protocol::messages::describe_groups_response::DescribedGroup,
) -> DescribedGroupView {
    let mut members: Vec<DescribedMemberView> = g
        .members
        .iter()
        .map(|m| {
            let mut assigned: Vec<String> =
                members::classic::protocol::decode_assignment(&m.member_assignment)
                    .map(|ps| ps.iter().map(TopicPartition::to_string).collect())
                    .unwrap_or_else(|e| vec![format!("undecodable assignment: {e}")]);
            assigned.sort();
            DescribedMemberView {
                instance_id: m.group_instance_id.as_ref().map(|i| i.to_string()),
                member_id: m.member_id.to_string(),
                epoch: -1,
                assigned,
            }
        })
        .collect();
    members.sort();
    DescribedGroupView {
        group_type: "classic",
        error: error_name(g.error_code),
        state: g.group_state.to_string(),
        protocol_type: g.protocol_type.to_string(),
        protocol: g.protocol_data.to_string(),
        epoch: -1,
        assignment_epoch: -1,
        members,
    }
}

pub(crate) fn describe_streams_view(
    g: &protocol::messages::streams_group_describe_response::DescribedGroup,
) -> DescribedGroupView {
    let mut members: Vec<DescribedMemberView> = g
        .members
        .iter()
        .map(|m| {
            let mut assigned: Vec<String> = m
                .assignment
                .active_tasks
                .iter()
                .flat_map(|t| {
                    t.partitions
                        .iter()
                        .map(move |p| format!("{}_{p}", t.subtopology_id))
                })
                .collect();
            assigned.sort();
            DescribedMemberView {
                instance_id: m.instance_id.as_ref().map(|i| i.to_string()),
                member_id: m.member_id.to_string(),
                epoch: m.member_epoch,
                assigned,
            }
        })
        .collect();
    members.sort();
    DescribedGroupView {
        group_type: "streams",
        error: error_name(g.error_code),
        state: g.group_state.to_string(),
        protocol_type: String::new(),
        protocol: String::new(),
        epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        members,
    }
}

pub fn validate(spec: &ClusterSpec) -> Result<(), SetupError> {
    let err = |m: String| Err(SetupError(m));
    if spec.brokers == 0 {
        return err("a cluster needs at least one broker".into());
    }
    if spec.offsets_partitions < 1 {
        return err("offsets_partitions must be at least 1".into());
    }
    if spec.offsets_rf() < 1 || spec.offsets_rf() as usize > spec.brokers {
        return err(format!(
            "offsets replication factor {} needs at least that many brokers ({} configured)",
            spec.offsets_rf(),
            spec.brokers
        ));
    }
    let mut names = BTreeSet::new();
    let groups = spec
        .streams_apps
        .iter()
        .map(|a| &a.application_id)
        .chain(spec.classic_groups.iter().map(|g| &g.group_id))
        .chain(spec.consumer_groups.iter().map(|g| &g.group_id));
    for g in groups {
        if g.is_empty()
            || !g
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
            || g == CONTROLLER_HOST
            || g == ADMIN_HOST
            || g == "broker"
        {
            return err(format!(
                "group id {g:?} cannot name hosts (letters, digits, '-' and '_' only; not \
                 controller, admin or broker)"
            ));
        }
        if !names.insert(g.clone()) {
            return err(format!("group id {g:?} is used twice"));
        }
    }
    for g in &spec.consumer_groups {
        if g.topic_regex.is_some() && !g.classic_processes.is_empty() {
            return err(format!(
                "consumer group {}: a classic consumer cannot subscribe with a broker-side \
                 regular expression (classic_processes must be empty)",
                g.group_id
            ));
        }
    }
    for t in &spec.topics {
        if t.partitions < 1 {
            return err(format!("topic {} needs at least one partition", t.name));
        }
    }
    Ok(())
}

/// The broker configs a scenario's groups need beyond Kafka's defaults (each unless the scenario
/// sets it): simulated groups use short timeouts, so the brokers' lower bounds come down to them
/// (never above Kafka's own bounds).
pub fn scenario_broker_defaults(spec: &ClusterSpec) -> Vec<(&'static str, String)> {
    let min_session = spec
        .streams_apps
        .iter()
        .map(|a| a.session_timeout_ms)
        .chain(spec.classic_groups.iter().map(|g| g.session_timeout_ms))
        .min();
    let min_heartbeat = spec
        .streams_apps
        .iter()
        .map(|a| a.heartbeat_interval_ms)
        .min();
    let mut defaults: Vec<(&str, String)> = Vec::new();
    if let Some(s) = min_session {
        defaults.push((
            "group.streams.min.session.timeout.ms",
            s.min(45_000).to_string(),
        ));
        defaults.push(("group.min.session.timeout.ms", s.min(6_000).to_string()));
    }
    if let Some(h) = min_heartbeat {
        defaults.push((
            "group.streams.min.heartbeat.interval.ms",
            h.min(5_000).to_string(),
        ));
    }
    // Consumer groups: their session timeouts and heartbeat intervals are group configs
    // ([`consumer_group_configs`]), which must lie within the brokers' bounds.
    let consumer_session = spec
        .consumer_groups
        .iter()
        .map(|g| g.session_timeout_ms)
        .min();
    let consumer_heartbeat = spec
        .consumer_groups
        .iter()
        .map(|g| g.heartbeat_interval_ms)
        .min();
    if let Some(s) = consumer_session {
        defaults.push((
            "group.consumer.min.session.timeout.ms",
            s.min(45_000).to_string(),
        ));
    }
    if let Some(h) = consumer_heartbeat {
        defaults.push((
            "group.consumer.min.heartbeat.interval.ms",
            h.min(5_000).to_string(),
        ));
    }
    defaults
        .into_iter()
        .filter(|(k, _)| !spec.broker_configs.contains_key(*k))
        .collect()
}

/// The group configs (Kafka's GROUP resource names) a consumer group is given: its session
/// timeout and heartbeat interval.
pub fn consumer_group_configs(group: &ConsumerGroupSpec) -> [(&'static str, String); 2] {
    [
        (
            "consumer.session.timeout.ms",
            group.session_timeout_ms.to_string(),
        ),
        (
            "consumer.heartbeat.interval.ms",
            group.heartbeat_interval_ms.to_string(),
        ),
    ]
}

/// The group configs (Kafka's GROUP resource names) a streams application's group is given: the
/// application's session timeout, heartbeat interval, standby replicas and initial rebalance
/// delay.
pub fn streams_group_configs(app: &StreamsAppSpec) -> [(&'static str, String); 4] {
    [
        (
            "streams.session.timeout.ms",
            app.session_timeout_ms.to_string(),
        ),
        (
            "streams.heartbeat.interval.ms",
            app.heartbeat_interval_ms.to_string(),
        ),
        (
            "streams.num.standby.replicas",
            app.num_standby_replicas.to_string(),
        ),
        (
            "streams.initial.rebalance.delay.ms",
            app.initial_rebalance_delay_ms.to_string(),
        ),
    ]
}

/// The configuration every broker shares (node-specific fields are set per broker).
fn broker_config_template(spec: &ClusterSpec) -> Result<BrokerConfig, SetupError> {
    let mut config = BrokerConfig::new(
        0,
        format!("0.0.0.0:{BROKER_PORT}"),
        format!("{CONTROLLER_HOST}:{CONTROLLER_PORT}"),
    );
    config.offsets_topic_partitions = spec.offsets_partitions;
    config.offsets_topic_replication_factor = spec.offsets_rf();
    config.shard.kafka_bugs = spec.kafka_bugs.clone();
    let defaults = scenario_broker_defaults(spec);
    for (k, v) in defaults {
        if !spec.broker_configs.contains_key(k) {
            config
                .set(k, &v)
                .map_err(|e| SetupError(format!("broker config {k}={v}: {e}")))?;
        }
    }
    for (k, v) in &spec.broker_configs {
        let mut probe = ControllerConfig::default();
        let controller_key = probe.try_set(k, v);
        match config.set(k, v) {
            Ok(()) => {}
            Err(_) if matches!(controller_key, Some(Ok(()))) => {}
            Err(e) => return Err(SetupError(format!("broker config {k}={v}: {e}"))),
        }
        if let Some(Err(e)) = controller_key {
            return Err(SetupError(format!("controller config {k}={v}: {e}")));
        }
    }
    for app in &spec.streams_apps {
        for (k, v) in streams_group_configs(app) {
            if let Some(Err(e)) =
                coordinator::streams::config::validate_group_config(&config.shard.streams, k, &v)
            {
                return Err(SetupError(format!(
                    "group config {k}={v} of {}: {e}",
                    app.application_id
                )));
            }
            config.shard.set_group_config(&app.application_id, k, &v);
        }
    }
    for group in &spec.consumer_groups {
        for (k, v) in consumer_group_configs(group) {
            if let Some(Err(e)) =
                coordinator::config::consumer::validate_group_config(&config.shard.consumer, k, &v)
            {
                return Err(SetupError(format!(
                    "group config {k}={v} of {}: {e}",
                    group.group_id
                )));
            }
            config.shard.set_group_config(&group.group_id, k, &v);
        }
    }
    Ok(config)
}

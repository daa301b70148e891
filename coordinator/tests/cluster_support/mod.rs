//! A turmoil cluster for the broker-slice tests: one host for the controller, one per broker,
//! and a client host that runs the test's steps. Faults (crash, restart, controlled shutdown) are
//! asked for by the client through [`Control`] and carried out between simulation steps.

#![allow(dead_code)]

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use coordinator::broker::{BrokerConfig, BrokerHandle, BrokerStorage, start_broker};
use coordinator::controller::server::start_controller;
use coordinator::controller::{ControllerConfig, ControllerStorage};
use coordinator::events::{ClusterEvent, EventKind, EventSink, Events};
use coordinator::rpc::RpcClient;
use protocol::net::Net;
use protocol::{Request, Response};
use uuid::Uuid;

pub use protocol::net::turmoil_net::{EPOCH_MS, TurmoilNet};

/// Every event of the run, in order.
#[derive(Clone, Default)]
pub struct EventLog(pub Rc<RefCell<Vec<ClusterEvent>>>);

impl EventSink for EventLog {
    fn emit(&self, event: ClusterEvent) {
        self.0.borrow_mut().push(event);
    }
}

impl EventLog {
    pub fn events(&self) -> Vec<ClusterEvent> {
        self.0.borrow().clone()
    }

    /// The first event matching `f`, with its time.
    pub fn find(&self, f: impl Fn(&ClusterEvent) -> bool) -> Option<ClusterEvent> {
        self.0.borrow().iter().find(|e| f(e)).cloned()
    }

    pub fn count(&self, f: impl Fn(&ClusterEvent) -> bool) -> usize {
        self.0.borrow().iter().filter(|e| f(e)).count()
    }
}

/// A fault the client asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    Crash(String),
    Bounce(String),
    ControlledShutdown(i32),
}

#[derive(Clone, Default)]
pub struct Control(Rc<RefCell<VecDeque<Action>>>);

impl Control {
    pub fn ask(&self, a: Action) {
        self.0.borrow_mut().push_back(a);
    }
}

pub fn broker_host(id: i32) -> String {
    format!("broker-{id}")
}

pub struct ClusterSpec {
    pub brokers: i32,
    pub offsets_partitions: i32,
    pub replication_factor: i16,
    pub load_delay_ms: u64,
}

impl ClusterSpec {
    /// `brokers` brokers, `__consumer_offsets` with `partitions` partitions and `rf` replicas.
    pub fn new(brokers: i32, partitions: i32, rf: i16) -> Self {
        ClusterSpec {
            brokers,
            offsets_partitions: partitions,
            replication_factor: rf,
            load_delay_ms: 0,
        }
    }
}

/// A simulated cluster: controller, brokers, a client, and the shared state the test reads.
pub struct Cluster {
    pub sim: turmoil::Sim<'static>,
    pub events: EventLog,
    pub control: Control,
    pub handles: Rc<RefCell<Vec<Option<BrokerHandle<TurmoilNet>>>>>,
}

/// Extra broker configs (`KEY=VALUE` by Kafka's names) for every broker of a cluster.
pub type ExtraConfigs = Vec<(String, String)>;

impl Cluster {
    pub fn new(spec: ClusterSpec, duration_s: u64) -> Self {
        Self::with_configs(spec, duration_s, Vec::new())
    }

    pub fn with_configs(spec: ClusterSpec, duration_s: u64, extra: ExtraConfigs) -> Self {
        let mut sim = turmoil::Builder::new()
            .simulation_duration(Duration::from_secs(duration_s))
            .tick_duration(Duration::from_millis(1))
            .rng_seed(7)
            .build();
        let events = EventLog::default();
        let sink: Events = Rc::new(events.clone());
        let controller_storage = ControllerStorage::new();
        let s = sink.clone();
        sim.host("controller", move || {
            let storage = controller_storage.clone();
            let sink = s.clone();
            async move {
                let config = ControllerConfig {
                    listen: "0.0.0.0:9093".into(),
                    ..ControllerConfig::default()
                };
                let _handle = start_controller(TurmoilNet::new(), config, storage, sink).await?;
                std::future::pending::<()>().await;
                Ok(())
            }
        });
        let handles: Rc<RefCell<Vec<Option<BrokerHandle<TurmoilNet>>>>> =
            Rc::new(RefCell::new((0..=spec.brokers).map(|_| None).collect()));
        for id in 1..=spec.brokers {
            let storage = BrokerStorage::new();
            let starts = Rc::new(Cell::new(0u64));
            let s = sink.clone();
            let h = handles.clone();
            let (partitions, rf, delay) = (
                spec.offsets_partitions,
                spec.replication_factor,
                spec.load_delay_ms,
            );
            let configs = extra.clone();
            sim.host(broker_host(id).as_str(), move || {
                let storage = storage.clone();
                let sink = s.clone();
                let handles = h.clone();
                let extra = configs.clone();
                starts.set(starts.get() + 1);
                let incarnation = starts.get();
                async move {
                    let mut config = BrokerConfig::new(id, "0.0.0.0:9092", "controller:9093");
                    config.advertised = Some((broker_host(id), 9092));
                    config.incarnation_id = Uuid::from_u64_pair(id as u64, incarnation);
                    config.offsets_topic_partitions = partitions;
                    config.offsets_topic_replication_factor = rf;
                    config.coordinator_load_delay_ms = delay;
                    for (k, v) in &extra {
                        config.set(k, v).expect("broker config");
                    }
                    let handle = start_broker(TurmoilNet::new(), config, storage, sink).await?;
                    handles.borrow_mut()[id as usize] = Some(handle.clone());
                    handle.wait_stopped().await;
                    Ok(())
                }
            });
        }
        Cluster {
            sim,
            events,
            control: Control::default(),
            handles,
        }
    }

    /// Runs the simulation until every client finished, carrying out asked-for faults.
    pub fn run(&mut self) -> turmoil::Result {
        loop {
            let actions: Vec<Action> = self.control.0.borrow_mut().drain(..).collect();
            for a in actions {
                match a {
                    Action::Crash(h) => self.sim.crash(h.as_str()),
                    Action::Bounce(h) => self.sim.bounce(h.as_str()),
                    Action::ControlledShutdown(id) => {
                        if let Some(h) = &self.handles.borrow()[id as usize] {
                            h.begin_controlled_shutdown();
                        }
                    }
                }
            }
            if self.sim.step()? {
                return Ok(());
            }
        }
    }
}

/// The current simulated time (ms since [`EPOCH_MS`]).
pub fn now() -> i64 {
    TurmoilNet::new().now_ms() - EPOCH_MS
}

/// A raw Kafka client to one broker.
pub fn client(host: &str) -> RpcClient<TurmoilNet> {
    RpcClient::new(TurmoilNet::new(), format!("{host}:9092"), "test-client")
}

/// Sends `request` at `version`; panics on a transport error.
pub async fn call(
    c: &RpcClient<TurmoilNet>,
    request: impl Into<Request>,
    version: i16,
) -> Response {
    match c.call(request.into(), version, 30_000).await {
        Ok(r) => r,
        Err(e) => panic!("{} failed: {e}", c.addr()),
    }
}

/// Waits until `n` brokers reported RUNNING.
pub async fn wait_running(events: &EventLog, n: usize) {
    for _ in 0..600 {
        let running = events.count(|e| {
            matches!(
                &e.kind,
                EventKind::BrokerStateChanged {
                    to: coordinator::events::BrokerState::Running,
                    ..
                }
            )
        });
        if running >= n {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("brokers did not reach RUNNING");
}

//! The observer: one ordered event log fed by every host, with the invariants checked on every
//! event and a running trace hash.
//!
//! Components report through adapters bound to their host ([`Hub::client_observer`] for the
//! client models, [`Hub::cluster_sink`] for brokers and the controller). Before an event that an
//! invariant judges against the coordinator's committed state (ownership, commits, fetches), the
//! hub reads the brokers' logs for newly committed records, checks and applies them, and logs
//! them first — so a member's new task is judged after the record that removed its previous
//! owner. (The logs are never read from inside a broker's event callback, where the broker may
//! be using them.)
//!
//! The first violation stops checking and is reported; the runner ends the run after the step.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;

use coordinator::Record;
use coordinator::broker::BrokerStorage;
use coordinator::broker::runtime::CoordinatorRuntime;
use coordinator::events::{ClusterEvent, EventSink};
use members::observer::{Event as ClientEvent, EventKind as ClientKind, Observer};
use xxhash_rust::xxh3::Xxh3;

use crate::coverage::{RunCoverage, Tracker};
use crate::event::{AdminAnswer, FaultEvent, HarnessEvent, SimEvent, SimEventKind};
use crate::invariants::{Checker, Violation, answers, durability, epochs, loads};
use crate::mirror::{CommittedRecord, LogMirror};
use crate::model::Model;
use crate::net::{EPOCH_MS, sim_now_ms};

struct Inner {
    next_seq: u64,
    keep_events: bool,
    events: Vec<SimEvent>,
    hasher: Xxh3,
    scratch: String,
    checker: Checker,
    model: Model,
    mirror: LogMirror,
    storages: Vec<(i32, BrokerStorage)>,
    violation: Option<Violation>,
    /// What the run reached (reports only: never hashed, never judged).
    coverage: Tracker,
    /// Effective assignment interval (ms) per streams group ([`Hub::new`]).
    assignment_intervals: BTreeMap<String, i64>,
    /// The clock of harness events; `None`: the simulated time ([`sim_now_ms`]).
    clock: Option<Rc<dyn Fn() -> i64>>,
}

/// The shared log. Cloning shares it.
#[derive(Clone)]
pub struct Hub(Rc<RefCell<Inner>>);

impl Hub {
    /// `storages`: each broker's storage (id, storage), read for committed records. With
    /// `keep_events` false only the count and the hash are kept (benchmarks).
    /// `assignment_intervals`: the effective `group.streams.assignment.interval.ms` of each
    /// streams group the cluster configures (the coordinator-answers check of the interval).
    pub fn new(
        storages: Vec<(i32, BrokerStorage)>,
        keep_events: bool,
        assignment_intervals: BTreeMap<String, i64>,
    ) -> Self {
        Hub(Rc::new(RefCell::new(Inner {
            next_seq: 0,
            keep_events,
            events: Vec::new(),
            hasher: Xxh3::new(),
            scratch: String::new(),
            checker: Checker::new(),
            model: Model::default(),
            mirror: LogMirror::new(),
            storages,
            violation: None,
            coverage: Tracker::default(),
            assignment_intervals,
            clock: None,
        })))
    }

    /// The log of a run against a cluster whose internals the harness cannot read (`regroup
    /// drive`): no broker logs, so no committed records; the checks that judge the clients
    /// against the committed state stand down ([`Checker::observed_only`]). `clock`: ms since the
    /// run started, the time of harness events.
    pub fn observed(keep_events: bool, clock: Rc<dyn Fn() -> i64>) -> Self {
        let hub = Hub::new(Vec::new(), keep_events, BTreeMap::new());
        {
            let mut inner = hub.0.borrow_mut();
            inner.clock = Some(clock);
            inner.checker.observed_only = true;
        }
        hub
    }

    /// Offsets may expire in this run (a retention is configured): the client-visible durability
    /// check stands down ([`crate::invariants::observed::Observed::offsets_may_expire`]).
    pub fn set_offsets_may_expire(&self, may: bool) {
        self.0.borrow_mut().checker.observed.offsets_may_expire = may;
    }

    /// The time harness events are stamped with.
    fn now_ms(&self) -> i64 {
        let clock = self.0.borrow().clock.clone();
        match clock {
            Some(c) => c(),
            None => sim_now_ms(),
        }
    }

    /// An observer for the client models running on `host`.
    pub fn client_observer(&self, host: &str) -> Rc<dyn Observer> {
        Rc::new(HostObserver {
            hub: self.clone(),
            host: host.to_string(),
        })
    }

    /// An event sink for the broker or controller running on `host`.
    pub fn cluster_sink(&self, host: &str) -> Rc<dyn EventSink> {
        Rc::new(HostSink {
            hub: self.clone(),
            host: host.to_string(),
        })
    }

    pub fn fault(&self, host: &str, at_ms: i64, event: FaultEvent) {
        let crashed: Vec<String> = match &event {
            FaultEvent::Injected { fault, hosts, .. }
                if *fault == "crash" || *fault == "silent-death" =>
            {
                hosts.clone()
            }
            _ => Vec::new(),
        };
        let mut inner = self.0.borrow_mut();
        inner.coverage.on_fault(at_ms, &event);
        inner.append(at_ms, host, SimEventKind::Fault(event));
        for h in crashed {
            inner.checker.host_crashed(&h);
        }
    }

    pub fn harness(&self, host: &str, event: HarnessEvent) {
        let at_ms = self.now_ms();
        let mut inner = self.0.borrow_mut();
        let checked = match &event {
            HarnessEvent::AdminAnswered {
                group,
                answer: AdminAnswer::Described(d),
                ..
            } => answers::check_described(at_ms, group, d),
            _ => Ok(()),
        };
        inner.append(at_ms, host, SimEventKind::Harness(event));
        if let Err(v) = checked {
            inner.fail(v);
        }
    }

    /// Reads newly committed records (between steps). `at_ms`: the simulated time.
    pub fn catch_up(&self, at_ms: i64) {
        self.0.borrow_mut().catch_up(at_ms);
    }

    /// Records a violation found outside the per-event checks (broker fencing, convergence, a
    /// failed host).
    pub fn violate(&self, v: Violation) {
        let mut inner = self.0.borrow_mut();
        if inner.violation.is_none() {
            tracing::error!(invariant = v.invariant.name(), at_ms = v.at_ms, detail = %v.detail, "invariant violated");
            inner.violation = Some(v);
        }
    }

    pub fn violation(&self) -> Option<Violation> {
        self.0.borrow().violation.clone()
    }

    pub fn event_count(&self) -> u64 {
        self.0.borrow().next_seq
    }

    /// The trace hash so far (XXH3-64 of the events' canonical forms, in order).
    pub fn trace_hash(&self) -> String {
        format!("{:016x}", self.0.borrow().hasher.digest())
    }

    /// The kept events (empty unless kept).
    pub fn events(&self) -> Vec<SimEvent> {
        self.0.borrow().events.clone()
    }

    /// Runs `f` on the events kept so far.
    pub fn with_events<R>(&self, f: impl FnOnce(&[SimEvent]) -> R) -> R {
        f(&self.0.borrow().events)
    }

    /// The coverage goals reached so far and the run's counters ([`crate::coverage`]).
    pub fn coverage(&self) -> RunCoverage {
        self.0.borrow().coverage.finish()
    }

    /// Topic names by id from the controller's metadata (consumer-group records name topics by
    /// id); known names are kept.
    pub fn learn_topic_names(&self, names: Vec<(uuid::Uuid, String)>) {
        let mut inner = self.0.borrow_mut();
        for (id, name) in names {
            inner.model.topic_names.entry(id).or_insert(name);
        }
    }

    /// Runs `f` on the committed model and the clients' states.
    pub fn with_state<R>(&self, f: impl FnOnce(&Model, &Checker) -> R) -> R {
        let inner = self.0.borrow();
        f(&inner.model, &inner.checker)
    }
}

impl Inner {
    fn append(&mut self, at_ms: i64, host: &str, kind: SimEventKind) -> u64 {
        let seq = self.next_seq;
        self.next_seq += 1;
        let event = SimEvent {
            seq,
            at_ms,
            host: host.to_string(),
            kind,
        };
        let mut scratch = std::mem::take(&mut self.scratch);
        event.write_canonical(&mut scratch);
        self.hash(scratch);
        if self.keep_events {
            self.events.push(event);
        }
        seq
    }

    /// Adds one event's canonical text to the trace hash and keeps the buffer for the next.
    fn hash(&mut self, scratch: String) {
        self.hasher.update(scratch.as_bytes());
        self.hasher.update(b"\n");
        self.scratch = scratch;
    }

    fn fail(&mut self, v: Violation) {
        if self.violation.is_none() {
            tracing::error!(invariant = v.invariant.name(), at_ms = v.at_ms, detail = %v.detail, "invariant violated");
            self.violation = Some(v);
        }
    }

    fn catch_up(&mut self, at_ms: i64) {
        if self.violation.is_some() {
            return;
        }
        let mut fresh: Vec<CommittedRecord> = Vec::new();
        let result = self.mirror.catch_up(&self.storages, &mut fresh);
        // Streams groups the current batch (one coordinator write) touched, and what it did to each,
        // checked when it ends: the records of one write only make sense together.
        let mut batch: Option<(i32, i64)> = None;
        let mut touched: Vec<(String, answers::BatchShape)> = Vec::new();
        // Streams groups any record of the batch belongs to (coverage derives their state).
        let mut streams_groups: Vec<String> = Vec::new();
        let mut fresh = fresh.into_iter().peekable();
        while let Some(r) = fresh.next() {
            if self.violation.is_none()
                && let Err(v) = epochs::check_record(at_ms, r.offset, &r.record, &self.model)
            {
                self.fail(v);
            }
            if batch != Some((r.partition, r.batch)) {
                batch = Some((r.partition, r.batch));
                touched.clear();
                streams_groups.clear();
            }
            if is_streams_record(&r.record)
                && !streams_groups.iter().any(|g| g == r.record.group_id())
            {
                streams_groups.push(r.record.group_id().to_string());
            }
            let streams = matches!(
                r.record,
                Record::StreamsGroupMetadata { .. }
                    | Record::StreamsGroupTargetAssignmentMetadata { .. }
                    | Record::StreamsGroupMemberMetadata { .. }
            );
            if streams {
                let group = r.record.group_id();
                let i = match touched.iter().position(|(g, _)| g == group) {
                    Some(i) => i,
                    None => {
                        let before = self
                            .model
                            .streams
                            .get(group)
                            .filter(|g| g.exists)
                            .map(|g| (g.metadata_hash, g.validated_topology_epoch));
                        touched.push((
                            group.to_string(),
                            answers::BatchShape {
                                before,
                                ..Default::default()
                            },
                        ));
                        touched.len() - 1
                    }
                };
                let shape = &mut touched[i].1;
                match &r.record {
                    Record::StreamsGroupMemberMetadata { value: None, .. } => {
                        shape.member_tombstone = true
                    }
                    Record::StreamsGroupMemberMetadata { value: Some(_), .. } => {
                        shape.member_record = true
                    }
                    Record::StreamsGroupMetadata { value: Some(v), .. } => {
                        shape.group_record = Some((v.metadata_hash, v.validated_topology_epoch))
                    }
                    _ => {}
                }
            }
            if self.violation.is_none()
                && let Record::StreamsGroupTargetAssignmentMetadata {
                    key,
                    value: Some(v),
                } = &r.record
                && let Some(interval) = self.assignment_intervals.get(&key.group_id)
                && let Err(e) = answers::check_assignment_interval(
                    at_ms,
                    &key.group_id,
                    v.assignment_timestamp,
                    *interval,
                    &self.model,
                )
            {
                self.fail(e);
            }
            if self.violation.is_none()
                && let Record::GroupMetadata {
                    key,
                    value: Some(v),
                } = &r.record
                && let Some(before) = self.model.classic.get(&key.group)
                && let Err(e) =
                    answers::check_static_removals(at_ms, &key.group, before, v, &self.checker)
            {
                self.fail(e);
            }
            self.coverage.on_record(at_ms, &r.record, &self.model);
            self.model
                .apply(r.partition, r.offset, r.batch, &r.record, at_ms);
            // The batch ends here if the next record belongs to another (the mirror hands out
            // whole batches: a high watermark never splits one).
            let batch_ends = fresh
                .peek()
                .is_none_or(|n| (n.partition, n.batch) != (r.partition, r.batch));
            if batch_ends {
                for g in streams_groups.drain(..) {
                    self.coverage.on_streams_batch(&g, &self.model);
                }
                for (g, shape) in touched.drain(..) {
                    if self.violation.is_none() {
                        let checked = answers::check_empty_group(at_ms, &g, &self.model)
                            .and_then(|()| answers::check_fence(at_ms, &g, &shape));
                        if let Err(v) = checked {
                            self.fail(v);
                        }
                    }
                }
            }
            self.append(
                at_ms,
                "sim",
                SimEventKind::Record {
                    partition: r.partition,
                    offset: r.offset,
                    batch: r.batch,
                    record: r.record,
                },
            );
        }
        if let Err(e) = result {
            self.fail(durability::from_mirror(at_ms, e));
        }
    }

    fn client(&mut self, host: &str, event: ClientEvent) {
        let at_ms = event.at_ms - EPOCH_MS;
        let judged = matches!(
            event.kind,
            ClientKind::OwnedTasks { .. }
                | ClientKind::OwnedPartitions { .. }
                | ClientKind::CommitAccepted { .. }
                | ClientKind::OffsetsFetched { .. }
        );
        if judged {
            self.catch_up(at_ms);
        }
        self.coverage.on_client(at_ms, &event);
        let seq = if self.keep_events {
            self.append(
                at_ms,
                host,
                SimEventKind::Client {
                    client: event.client.clone(),
                    member_id: event.member_id.clone(),
                    kind: event.kind.clone(),
                },
            )
        } else {
            // Only hashed: write the canonical text from the event itself, without copies.
            let seq = self.next_seq;
            self.next_seq += 1;
            let mut scratch = std::mem::take(&mut self.scratch);
            SimEvent::write_client_canonical(
                &mut scratch,
                seq,
                at_ms,
                host,
                &event.client,
                &event.member_id,
                &event.kind,
            );
            self.hash(scratch);
            seq
        };
        if self.violation.is_some() {
            return;
        }
        let Inner { checker, model, .. } = self;
        if let Err(v) = checker.on_client(seq, host, &event, model) {
            self.fail(v);
        }
    }

    fn cluster(&mut self, host: &str, event: ClusterEvent) {
        let at_ms = event.at_ms - EPOCH_MS;
        self.coverage.on_cluster(at_ms, &event.kind, &self.model);
        self.checker.on_cluster(at_ms, host, &event.kind);
        if self.violation.is_none()
            && let Err(v) = self.checker.epochs.check(at_ms, &event.kind)
        {
            self.fail(v);
        }
        self.append(
            at_ms,
            host,
            SimEventKind::Cluster {
                node: event.node,
                kind: event.kind,
            },
        );
    }
}

/// A record of a streams group (any of its six record types).
fn is_streams_record(record: &Record) -> bool {
    !matches!(
        record,
        Record::OffsetCommit { .. } | Record::TxnOffsetCommit { .. } | Record::GroupMetadata { .. }
    )
}

struct HostObserver {
    hub: Hub,
    host: String,
}

impl Observer for HostObserver {
    fn observe(&self, event: ClientEvent) {
        self.hub.0.borrow_mut().client(&self.host, event);
    }
}

struct HostSink {
    hub: Hub,
    host: String,
}

impl EventSink for HostSink {
    fn emit(&self, event: ClusterEvent) {
        self.hub.0.borrow_mut().cluster(&self.host, event);
    }

    /// The coordinator-load invariant ([`loads`]), once per load.
    fn coordinator_loaded(
        &self,
        _node: i32,
        partition: i32,
        runtime: &CoordinatorRuntime,
        now_ms: i64,
    ) {
        let mut inner = self.hub.0.borrow_mut();
        if inner.violation.is_none()
            && let Err(v) =
                loads::check_loaded(now_ms - EPOCH_MS, &self.host, partition, runtime, now_ms)
        {
            inner.fail(v);
        }
    }
}

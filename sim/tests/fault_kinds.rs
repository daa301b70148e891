//! Fault kinds a scenario schedules: each is injected (and healed) as an event in the log, acts
//! on the hosts it names (groups of hosts included), and the cluster converges afterwards with
//! every invariant checked.

use coordinator::events::EventKind as ClusterKind;
use sim::event::{FaultEvent, HarnessEvent, SimEvent, SimEventKind};
use sim::faults::{FaultKind, FaultSchedule, FaultWindow, HostRef};
use sim::runner::{RunOptions, RunOutcome, run};
use sim::spec::{ClassicGroupSpec, ClusterSpec, StreamsAppSpec};

use members::streams::topology::{Subtopology, Topology};

fn run_with(spec: ClusterSpec, windows: Vec<FaultWindow>) -> RunOutcome {
    sim::logging::init();
    let mut options = RunOptions::new(7);
    options.keep_events = true;
    let outcome = run(spec, FaultSchedule::new(windows), &options).unwrap();
    assert!(outcome.passed, "{:?}", outcome.violations);
    assert!(outcome.converged_at_ms.is_some());
    outcome
}

/// (window, hosts) of every injection of `fault`.
fn injections(log: &[SimEvent], fault: &str) -> Vec<(usize, Vec<String>)> {
    log.iter()
        .filter_map(|e| match &e.kind {
            SimEventKind::Fault(FaultEvent::Injected {
                window,
                fault: f,
                hosts,
                ..
            }) if *f == fault => Some((*window, hosts.clone())),
            _ => None,
        })
        .collect()
}

fn healed(log: &[SimEvent], window: usize) -> bool {
    log.iter().any(|e| {
        matches!(&e.kind, SimEventKind::Fault(FaultEvent::Healed { window: w, .. }) if *w == window)
    })
}

fn controller_event(log: &[SimEvent], pred: impl Fn(&ClusterKind) -> bool) -> Option<i64> {
    log.iter().find_map(|e| match &e.kind {
        SimEventKind::Cluster { kind, .. } if e.host == "controller" && pred(kind) => Some(e.at_ms),
        _ => None,
    })
}

#[test]
fn topics_grow_and_are_deleted_and_streams_tasks_follow() {
    // A stateless subtopology: its task count follows the input topic's partition count.
    let topology = Topology::new(vec![Subtopology::new("0", &["in"])]);
    let spec = ClusterSpec::default()
        .with_topic("in", 2)
        .with_topic("scratch", 1)
        .with_streams(StreamsAppSpec::new("app", topology, 2, 1));
    let outcome = run_with(
        spec,
        vec![
            FaultWindow::at(
                8_000,
                FaultKind::AddPartitions {
                    topic: "in".into(),
                    total: 4,
                },
            ),
            FaultWindow::at(
                9_000,
                FaultKind::DeleteTopic {
                    name: "scratch".into(),
                },
            ),
            FaultWindow::at(
                10_000,
                FaultKind::AddPartitions {
                    topic: "in".into(),
                    total: 3,
                },
            ),
        ],
    );
    let log = &outcome.log;
    assert_eq!(injections(log, "add-partitions").len(), 2);
    assert_eq!(injections(log, "delete-topic").len(), 1);
    let grown = controller_event(
        log,
        |k| matches!(k, ClusterKind::PartitionsAdded { topic, partitions: 4 } if topic == "in"),
    );
    assert!(grown.is_some_and(|t| t >= 8_000), "{grown:?}");
    let deleted = controller_event(
        log,
        |k| matches!(k, ClusterKind::TopicDeleted { topic } if topic == "scratch"),
    );
    assert!(deleted.is_some_and(|t| t >= 9_000), "{deleted:?}");
    // Shrinking is refused (Kafka: "would not be an increase"): only one growth event.
    let growths = log
        .iter()
        .filter(|e| {
            matches!(
                &e.kind,
                SimEventKind::Cluster {
                    kind: ClusterKind::PartitionsAdded { .. },
                    ..
                }
            )
        })
        .count();
    assert_eq!(growths, 1);
    // The group converged with all four tasks, each active once.
    let app = &outcome.groups[0];
    let mut active: Vec<&String> = app.members.iter().flat_map(|m| &m.active_tasks).collect();
    active.sort();
    assert_eq!(active, ["0_0", "0_1", "0_2", "0_3"]);
}

#[test]
fn faults_on_groups_of_hosts_act_on_every_host_and_heal() {
    let spec = ClusterSpec::default()
        .with_topic("orders", 4)
        .with_classic(ClassicGroupSpec::new("billing", &["orders"], 2, 1).with_static_membership());
    let outcome = run_with(
        spec,
        vec![
            // Every process of the group loses the brokers, one way only, for 3 s.
            FaultWindow::at(
                8_000,
                FaultKind::PartitionOneway {
                    from: vec![HostRef::group("billing")],
                    to: vec![HostRef::Brokers],
                },
            )
            .lasting(3_000),
            // Slow, then flapping links between the group and the brokers.
            FaultWindow::at(
                12_000,
                FaultKind::Latency {
                    a: vec![HostRef::group("billing")],
                    b: vec![HostRef::Brokers],
                    max_ms: 300,
                },
            )
            .lasting(3_000),
            FaultWindow::at(
                16_000,
                FaultKind::FailRate {
                    a: vec![HostRef::process("billing", 0)],
                    b: vec![HostRef::Brokers],
                    rate: 0.05,
                },
            )
            .lasting(3_000),
            // Both processes crash together and come back within the session timeout.
            FaultWindow::at(
                20_000,
                FaultKind::Crash {
                    host: HostRef::group("billing"),
                },
            )
            .lasting(4_000),
            // Held links deliver late.
            FaultWindow::at(
                26_000,
                FaultKind::Hold {
                    a: vec![HostRef::process("billing", 1)],
                    b: vec![HostRef::Brokers],
                },
            )
            .lasting(2_000),
        ],
    );
    let log = &outcome.log;
    let (w, hosts) = &injections(log, "partition-oneway")[0];
    assert_eq!(
        hosts,
        &["billing-0", "billing-1", "broker-1", "broker-2", "broker-3"]
    );
    assert!(healed(log, *w));
    for fault in ["latency", "fail-rate", "hold"] {
        let (w, _) = &injections(log, fault)[0];
        assert!(healed(log, *w), "{fault}");
    }
    let (w, hosts) = &injections(log, "crash")[0];
    assert_eq!(hosts, &["billing-0", "billing-1"]);
    assert!(healed(log, *w));
    // Both processes restarted (a second incarnation each).
    for p in ["billing-0", "billing-1"] {
        let restarted = log.iter().any(|e| {
            matches!(&e.kind, SimEventKind::Harness(sim::event::HarnessEvent::ProcessStarted { process, incarnation: 2 }) if process == p)
        });
        assert!(restarted, "{p}");
    }
    assert_eq!(outcome.faults["crash"].injected, 1);
    assert_eq!(outcome.faults["crash"].healed, 1);
}

#[test]
fn a_topic_change_while_the_controller_is_down_is_skipped_and_recorded() {
    let spec = ClusterSpec::default()
        .with_topic("orders", 2)
        .with_classic(ClassicGroupSpec::new("billing", &["orders"], 1, 1));
    let outcome = run_with(
        spec,
        vec![
            FaultWindow::at(
                6_000,
                FaultKind::Crash {
                    host: HostRef::Controller,
                },
            )
            .lasting(3_000),
            FaultWindow::at(
                7_000,
                FaultKind::DeleteTopic {
                    name: "orders".into(),
                },
            ),
        ],
    );
    let skipped = outcome.log.iter().find_map(|e| match &e.kind {
        SimEventKind::Fault(FaultEvent::Skipped { fault, reason, .. })
            if *fault == "delete-topic" =>
        {
            Some(reason.clone())
        }
        _ => None,
    });
    assert_eq!(skipped.as_deref(), Some("the controller is down"));
    assert_eq!(outcome.faults["delete-topic"].skipped, 1);
}

#[test]
fn an_epilogue_fault_waits_for_the_groups_to_converge_after_the_heal() {
    // Process 0 is cut off from its coordinator from 10 s to 25 s; the shutdown request of
    // process 1 (and its close) may start at 0 s but is an epilogue: it starts only once the
    // group has converged after the heal, and the run then ends with the application shut down.
    let topology = Topology::new(vec![Subtopology::new("0", &["in"])]);
    let spec = ClusterSpec::default()
        .with_topic("in", 4)
        .with_streams(StreamsAppSpec::new("app", topology, 3, 1));
    let p = |i| HostRef::process("app", i);
    let schedule = FaultSchedule::new(vec![
        FaultWindow::at(
            10_000,
            FaultKind::Partition {
                a: vec![p(0)],
                b: vec![HostRef::coordinator_of("app")],
            },
        )
        .lasting(15_000),
        FaultWindow::at(0, FaultKind::ShutdownApplication { host: p(1) }).after_convergence(),
        FaultWindow::at(0, FaultKind::RemoveProcess { host: p(1) }).after_convergence(),
    ]);
    assert_eq!(schedule.heal_ms(), 25_000);
    assert_eq!(schedule.epilogue_ms(), Some(0));
    let windows = schedule.windows.clone();
    let outcome = run_with(spec, windows);
    let log = &outcome.log;
    let times = |pred: fn(&HarnessEvent) -> bool| -> Vec<i64> {
        log.iter()
            .filter(|e| matches!(&e.kind, SimEventKind::Harness(h) if pred(h)))
            .map(|e| e.at_ms)
            .collect()
    };
    let converged = times(|h| matches!(h, HarnessEvent::Converged { .. }));
    let liveness = times(|h| matches!(h, HarnessEvent::LivenessPhase { .. }));
    let asked = log
        .iter()
        .find(|e| {
            matches!(&e.kind, SimEventKind::Fault(FaultEvent::Injected { fault, .. }) if *fault == "shutdown-application")
        })
        .map(|e| e.at_ms)
        .expect("the shutdown request was injected");
    // The heal at 25 s, the epilogue after it (at a convergence check), one convergence at the
    // end, after the epilogue: the first convergence ends nothing.
    assert_eq!(liveness.len(), 2, "{liveness:?}");
    assert_eq!(liveness[0], 25_000);
    assert!(asked > 25_000, "{asked}");
    assert_eq!(liveness[1], asked);
    assert_eq!(converged.len(), 1, "{converged:?}");
    assert!(converged[0] > asked, "{converged:?} {asked}");
    assert_eq!(injections(log, "remove-process").len(), 1);
    let app = outcome
        .groups
        .iter()
        .find(|g| g.group_id == "app")
        .expect("the group exists");
    assert!(app.members.is_empty(), "{:?}", app.members);
}

#[test]
fn a_restarted_broker_publishes_no_metadata_before_it_caught_up() {
    // 25,000 partitions put the metadata log past two fetches (10,000 records each). The
    // restarted broker must publish the log's end in one step (Kafka's MetadataLoader waits for
    // the high watermark): publishing the first 10,000 records would make it act on an old
    // cluster state (the 10,000-member bench's seed 2 lost committed offsets that way).
    let spec = ClusterSpec::default()
        .with_topic("wide", 25_000)
        .with_classic(ClassicGroupSpec::new("billing", &["wide"], 1, 1));
    let mut options = RunOptions::new(7);
    options.keep_events = true;
    // Long enough for the restarted broker to fetch the whole log.
    options.min_duration_ms = 40_000;
    let schedule = FaultSchedule::new(vec![
        FaultWindow::at(
            8_000,
            FaultKind::Crash {
                host: HostRef::Broker(2),
            },
        )
        .lasting(3_000),
    ]);
    let outcome = run(spec, schedule, &options).unwrap();
    assert!(outcome.passed, "{:?}", outcome.violations);
    let log = &outcome.log;
    let restart = log
        .iter()
        .position(|e| {
            matches!(
                &e.kind,
                SimEventKind::Fault(FaultEvent::Healed { window: 0, .. })
            )
        })
        .expect("the crash healed");
    let applied: Vec<i64> = log[restart..]
        .iter()
        .filter(|e| e.host == "broker-2")
        .filter_map(|e| match &e.kind {
            SimEventKind::Cluster {
                kind: ClusterKind::MetadataApplied { offset },
                ..
            } => Some(*offset),
            _ => None,
        })
        .collect();
    let first = *applied
        .first()
        .expect("broker-2 applied metadata after its restart");
    assert!(
        first > 25_000,
        "first published offset {first}, {applied:?}"
    );
}

#[test]
fn a_switch_protocol_restarts_a_consumer_process_with_the_other_protocol() {
    use sim::spec::{ConsumerGroupSpec, GroupProtocol};
    let spec = ClusterSpec::default()
        .with_topic("orders", 2)
        .with_classic(ClassicGroupSpec::new("billing", &["orders"], 1, 1))
        .with_consumer(ConsumerGroupSpec::new("payments", &["orders"], 1, 1));
    let switch = |at_ms, group: &str, protocol| {
        FaultWindow::at(
            at_ms,
            FaultKind::SwitchProtocol {
                host: HostRef::process(group, 0),
                protocol,
            },
        )
    };
    let outcome = run_with(
        spec,
        vec![
            // Only a consumer group's processes switch.
            switch(7_000, "billing", GroupProtocol::Consumer),
            // The dynamic consumer-protocol member leaves (epoch -1), its classic incarnation's
            // JoinGroup finds the consumer group empty and replaces it with a classic group.
            switch(8_000, "payments", GroupProtocol::Classic),
        ],
    );
    let skipped = outcome.log.iter().find_map(|e| match &e.kind {
        SimEventKind::Fault(FaultEvent::Skipped { fault, reason, .. })
            if *fault == "switch-protocol" =>
        {
            Some(reason.clone())
        }
        _ => None,
    });
    assert_eq!(
        skipped.as_deref(),
        Some("billing-0 is not a consumer group's process (only those switch protocols)")
    );
    assert_eq!(
        injections(&outcome.log, "switch-protocol"),
        vec![(1, vec!["payments-0".to_string()])]
    );
    let payments = outcome
        .groups
        .iter()
        .find(|g| g.group_id == "payments")
        .expect("payments in the final state");
    assert_eq!(payments.kind, "classic");
    assert_eq!(payments.members.len(), 1);
    assert_eq!(payments.members[0].partitions, vec!["orders-0", "orders-1"]);
    // The process ran two incarnations: the consumer protocol's, then the classic one's.
    let kinds: Vec<members::observer::ClientKind> = outcome
        .log
        .iter()
        .filter_map(|e| match &e.kind {
            SimEventKind::Client { client, .. } if e.host == "payments-0" => Some(client.kind),
            _ => None,
        })
        .fold(Vec::new(), |mut v, k| {
            if v.last() != Some(&k) {
                v.push(k);
            }
            v
        });
    assert_eq!(
        kinds,
        vec![
            members::observer::ClientKind::AsyncConsumer,
            members::observer::ClientKind::Consumer
        ]
    );
}

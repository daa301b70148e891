//! Multi-broker tests in a turmoil simulation: the controller, three brokers and a client
//! speaking raw Kafka requests.

mod cluster_support;

use cluster_support::*;
use coordinator::broker::placement::partition_for;
use coordinator::controller::GROUP_METADATA_TOPIC;
use protocol::messages::metadata_request::MetadataRequestTopic;
use protocol::messages::{
    ApiVersionsRequest, FindCoordinatorRequest, MetadataRequest, StrBytes, TopicName,
};
use protocol::{ErrorCode, Response};

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

/// Asks `host` for the coordinator of `group` until it has one; returns its node id.
async fn find_coordinator(host: &str, group: &str) -> (i32, usize) {
    let c = client(host);
    let mut attempts = 0;
    loop {
        attempts += 1;
        let resp = call(
            &c,
            FindCoordinatorRequest::default()
                .with_key(s(group))
                .with_key_type(0),
            3,
        )
        .await;
        let Response::FindCoordinator(r) = resp else {
            panic!("{resp:?}")
        };
        if r.error_code == 0 {
            return (r.node_id.0, attempts);
        }
        assert_eq!(r.error_code, ErrorCode::CoordinatorNotAvailable.code());
        assert_eq!(r.node_id.0, -1);
        assert!(attempts < 200, "no coordinator for {group}");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// Three brokers, `__consumer_offsets` with `partitions` partitions on all three of them.
fn three_brokers(partitions: i32, load_delay_ms: u64) -> ClusterSpec {
    ClusterSpec {
        load_delay_ms,
        ..ClusterSpec::new(3, partitions, 3)
    }
}

/// Creates the topic `input` through broker-1 and returns the answer.
async fn create_input(partitions: i32, replication_factor: i16) -> CreateTopicsResponse {
    let request = CreateTopicsRequest::default().with_topics(vec![
        CreatableTopic::default()
            .with_name(TopicName(s("input")))
            .with_num_partitions(partitions)
            .with_replication_factor(replication_factor),
    ]);
    let Response::CreateTopics(r) = call(&client("broker-1"), request, 7).await else {
        panic!()
    };
    r
}

/// Asks a surviving broker for the coordinator of `group` until it is no longer `old`; until the
/// controller fences `old`, every broker still names it.
async fn coordinator_moved_from(old: i32, group: &str) -> i32 {
    let survivor = broker_host(if old == 1 { 2 } else { 1 });
    loop {
        let (c, _) = find_coordinator(&survivor, group).await;
        if c != old {
            return c;
        }
        tokio::time::sleep(std::time::Duration::from_millis(250)).await;
    }
}

/// The links from `broker` to the controller and to the other two brokers.
fn peer_links(broker: i32) -> Vec<(String, String)> {
    let peers = (1..=3).filter(|b| *b != broker).map(broker_host);
    std::iter::once("controller".to_string())
        .chain(peers)
        .map(|peer| (broker_host(broker), peer))
        .collect()
}

/// Cuts `broker` off from the controller and the other brokers; the client still reaches it.
fn cut_off(broker: i32) {
    for (a, b) in peer_links(broker) {
        turmoil::partition(a.as_str(), b.as_str());
    }
}

/// Heals every link [`cut_off`] cut.
fn reconnect(broker: i32) {
    for (a, b) in peer_links(broker) {
        turmoil::repair(a.as_str(), b.as_str());
    }
}

#[test]
fn three_brokers_register_unfence_and_serve_find_coordinator() -> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(6, 0), 120);
    let events = cluster.events.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        // ApiVersions advertises Produce (librdkafka needs it to fetch) and the group apis.
        let Response::ApiVersions(av) = call(
            &client("broker-1"),
            ApiVersionsRequest::default()
                .with_client_software_name(s("regroup-test"))
                .with_client_software_version(s("1")),
            3,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(av.error_code, 0);
        let produce = av
            .api_keys
            .iter()
            .find(|k| k.api_key == 0)
            .expect("Produce advertised");
        assert_eq!((produce.min_version, produce.max_version), (3, 13));
        assert!(av.api_keys.iter().any(|k| k.api_key == 88));
        assert!(
            !av.api_keys.iter().any(|k| k.api_key == 62),
            "controller apis are not on the client listener"
        );

        // The first FindCoordinator creates __consumer_offsets and answers COORDINATOR_NOT_AVAILABLE.
        let (coordinator, attempts) = find_coordinator("broker-2", "g1").await;
        assert!(
            attempts >= 2,
            "the first answer is COORDINATOR_NOT_AVAILABLE"
        );
        let Response::Metadata(md) = call(
            &client("broker-3"),
            MetadataRequest::default().with_topics(Some(vec![
                MetadataRequestTopic::default().with_name(Some(TopicName(s(GROUP_METADATA_TOPIC)))),
            ])),
            12,
        )
        .await
        else {
            panic!()
        };
        assert_eq!(md.brokers.len(), 3);
        let topic = &md.topics[0];
        assert!(topic.is_internal);
        assert_eq!(topic.partitions.len(), 6);
        let p = partition_for("g1", 6);
        let part = topic
            .partitions
            .iter()
            .find(|x| x.partition_index == p)
            .unwrap();
        assert_eq!(part.leader_id.0, coordinator);
        assert_eq!(part.replica_nodes.len(), 3);
        // Every broker answers the same coordinator.
        for host in ["broker-1", "broker-3"] {
            assert_eq!(find_coordinator(host, "g1").await.0, coordinator);
        }
        Ok(())
    });
    cluster.run()?;
    let ev = cluster.events.events();
    // Each broker registered once, with strictly increasing epochs, and loaded its coordinators.
    let epochs: Vec<i64> = ev
        .iter()
        .filter_map(|e| match &e.kind {
            coordinator::events::EventKind::BrokerRegistered { epoch, .. } => Some(*epoch),
            _ => None,
        })
        .collect();
    assert_eq!(epochs.len(), 3);
    assert!(epochs.windows(2).all(|w| w[0] < w[1]), "{epochs:?}");
    let loaded = cluster.events.count(|e| {
        matches!(
            e.kind,
            coordinator::events::EventKind::CoordinatorLoaded { .. }
        )
    });
    assert_eq!(loaded, 6, "one coordinator per partition");
    Ok(())
}

use protocol::messages::create_topics_request::CreatableTopic;
use protocol::messages::streams_group_heartbeat_request::{self as sreq};
use protocol::messages::{
    CreateTopicsRequest, CreateTopicsResponse, GroupId, StreamsGroupDescribeRequest,
    StreamsGroupHeartbeatRequest,
};

fn topology() -> sreq::Topology {
    sreq::Topology::default()
        .with_epoch(0)
        .with_subtopologies(vec![
            sreq::Subtopology::default()
                .with_subtopology_id(s("0"))
                .with_source_topics(vec![TopicName(s("input"))]),
        ])
}

fn owned(tasks: &[i32]) -> Vec<sreq::TaskIds> {
    vec![
        sreq::TaskIds::default()
            .with_subtopology_id(s("0"))
            .with_partitions(tasks.to_vec()),
    ]
}

/// Heartbeats `member` to `host` until it succeeds (retrying retriable coordinator errors).
async fn streams_heartbeat(
    host: &str,
    request: StreamsGroupHeartbeatRequest,
) -> protocol::messages::StreamsGroupHeartbeatResponse {
    let c = client(host);
    for _ in 0..200 {
        match c.call(request.clone().into(), 0, 5_000).await {
            Ok(Response::StreamsGroupHeartbeat(r)) if r.error_code == 0 => return r,
            Ok(Response::StreamsGroupHeartbeat(r)) => {
                let code = ErrorCode::from_code(r.error_code).unwrap();
                assert!(code.is_retriable(), "{code:?}: {:?}", r.error_message);
            }
            Ok(other) => panic!("{other:?}"),
            Err(_) => {}
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("heartbeat never succeeded");
}

#[test]
fn a_streams_member_keeps_its_epoch_and_tasks_when_the_coordinator_broker_crashes()
-> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(3, 200), 240);
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    let crash_info = std::rc::Rc::new(std::cell::Cell::new((0i32, 0i64)));
    let info = crash_info.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let ct = create_input(4, 3).await;
        assert_eq!(
            ct.topics[0].error_code, 0,
            "{:?}",
            ct.topics[0].error_message
        );

        let (old, _) = find_coordinator("broker-1", "app").await;
        let old_host = broker_host(old);
        // Join, then heartbeat with the owned tasks until all four are assigned.
        let join = StreamsGroupHeartbeatRequest::default()
            .with_group_id(GroupId(s("app")))
            .with_member_id(s("member-1"))
            .with_member_epoch(0)
            .with_rebalance_timeout_ms(30_000)
            .with_process_id(Some(s("process-1")))
            .with_topology(Some(topology()))
            .with_active_tasks(Some(Vec::new()))
            .with_standby_tasks(Some(Vec::new()))
            .with_warmup_tasks(Some(Vec::new()));
        let mut r = streams_heartbeat(&old_host, join).await;
        let mut tasks: Vec<i32> = Vec::new();
        // Streams groups delay the first assignment (group.streams.initial.rebalance.delay.ms, 3 s).
        for _ in 0..40 {
            if let Some(active) = &r.active_tasks {
                tasks = active.iter().flat_map(|t| t.partitions.clone()).collect();
            }
            if tasks.len() == 4 {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(500)).await;
            let hb = StreamsGroupHeartbeatRequest::default()
                .with_group_id(GroupId(s("app")))
                .with_member_id(s("member-1"))
                .with_member_epoch(r.member_epoch)
                .with_active_tasks(Some(owned(&tasks)))
                .with_standby_tasks(Some(Vec::new()))
                .with_warmup_tasks(Some(Vec::new()));
            r = streams_heartbeat(&old_host, hb).await;
        }
        assert_eq!(tasks, vec![0, 1, 2, 3], "last response {r:?}");
        let epoch = r.member_epoch;
        assert!(epoch >= 1);
        // Confirm the epoch once more so the assignment is reconciled (STABLE).
        let hb = StreamsGroupHeartbeatRequest::default()
            .with_group_id(GroupId(s("app")))
            .with_member_id(s("member-1"))
            .with_member_epoch(epoch)
            .with_active_tasks(Some(owned(&tasks)))
            .with_standby_tasks(Some(Vec::new()))
            .with_warmup_tasks(Some(Vec::new()));
        assert_eq!(
            streams_heartbeat(&old_host, hb.clone()).await.member_epoch,
            epoch
        );

        // Crash the coordinator's broker.
        info.set((old, now()));
        control.ask(Action::Crash(old_host.clone()));
        // Until the controller fences it, every broker still names the dead broker.
        let new = coordinator_moved_from(old, "app").await;
        let moved_after = now() - info.get().1;
        assert!(
            moved_after > 7_000,
            "coordinator moved after {moved_after} ms"
        );
        // The member heartbeats the new coordinator with the same id and epoch and keeps its
        // epoch and tasks (the group was loaded from the replicated log).
        let r = streams_heartbeat(&broker_host(new), hb).await;
        assert_eq!(r.member_epoch, epoch);
        let Response::StreamsGroupDescribe(d) = call(
            &client(&broker_host(new)),
            StreamsGroupDescribeRequest::default().with_group_ids(vec![GroupId(s("app"))]),
            0,
        )
        .await
        else {
            panic!()
        };
        let g = &d.groups[0];
        assert_eq!(g.error_code, 0);
        assert_eq!(g.members.len(), 1);
        let m = &g.members[0];
        assert_eq!((m.member_id.as_str(), m.member_epoch), ("member-1", epoch));
        let assigned: Vec<i32> = m
            .assignment
            .active_tasks
            .iter()
            .flat_map(|t| t.partitions.clone())
            .collect();
        assert_eq!(assigned, vec![0, 1, 2, 3]);
        Ok(())
    });
    cluster.run()?;
    if std::env::var_os("REGROUP_DUMP_EVENTS").is_some() {
        for e in cluster.events.events() {
            eprintln!("{}", serde_json::to_string(&e).unwrap());
        }
    }
    let (old, crashed_at) = crash_info.get();
    let fenced = cluster
        .events
        .find(|e| matches!(&e.kind, coordinator::events::EventKind::BrokerFenced { broker, reason: coordinator::events::FenceReason::SessionExpired, .. } if *broker == old))
        .expect("the crashed broker was fenced");
    let delay = fenced.at_ms - EPOCH_MS - crashed_at;
    // The last heartbeat was at most 2 s before the crash; fencing is 9.0-10.125 s after it.
    assert!(
        (7_000..=10_125).contains(&delay),
        "fenced {delay} ms after the crash"
    );
    // The new coordinator loaded with the load delay and answered LOAD_IN_PROGRESS meanwhile.
    assert!(
        cluster.events.count(|e| matches!(
            e.kind,
            coordinator::events::EventKind::CoordinatorLoading { .. }
        )) >= 4
    );
    Ok(())
}

use coordinator::events::{EventKind, FenceReason};

fn event_times(events: &EventLog, f: impl Fn(&EventKind) -> bool) -> Vec<i64> {
    events
        .events()
        .iter()
        .filter(|e| f(&e.kind))
        .map(|e| e.at_ms - EPOCH_MS)
        .collect()
}

#[test]
fn a_crashed_broker_restarting_quickly_is_refused_until_its_session_expires() -> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(3, 0), 120);
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    let crashed_at = std::rc::Rc::new(std::cell::Cell::new(0i64));
    let at = crashed_at.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        // Create __consumer_offsets (replicated on all three brokers).
        find_coordinator("broker-1", "g1").await;
        tokio::time::sleep(std::time::Duration::from_millis(3_000)).await;
        at.set(now());
        control.ask(Action::Crash("broker-2".into()));
        tokio::time::sleep(std::time::Duration::from_millis(1_000)).await;
        control.ask(Action::Bounce("broker-2".into()));
        // Wait for the new incarnation to be running again.
        for _ in 0..400 {
            let registered =
                events.count(|e| matches!(e.kind, EventKind::BrokerRegistered { broker: 2, .. }));
            let running = events.count(|e| {
                e.node == 2
                    && matches!(
                        e.kind,
                        EventKind::BrokerStateChanged {
                            to: coordinator::events::BrokerState::Running,
                            ..
                        }
                    )
            });
            // Back in every ISR: the leaders asked the controller to add the caught-up replica.
            let rejoined = events.count(|e| {
                matches!(&e.kind, EventKind::PartitionChanged { topic, isr, .. }
                    if topic == GROUP_METADATA_TOPIC && isr.len() == 3 && e.at_ms - EPOCH_MS > at.get())
            });
            if registered == 2 && running == 2 && rejoined == 3 {
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        for e in events.events() {
            if !matches!(e.kind, EventKind::MetadataApplied { .. }) {
                eprintln!("{}", serde_json::to_string(&e).unwrap());
            }
        }
        panic!("broker 2 did not come back");
    });
    cluster.run()?;
    let crash = crashed_at.get();
    let refused = event_times(
        &cluster.events,
        |k| matches!(k, EventKind::RegistrationRejected { broker: 2, error } if error == "DUPLICATE_BROKER_REGISTRATION"),
    );
    assert!(refused.len() >= 3, "refusals at {refused:?}");
    // 4.4 retries a refused registration after exactly the heartbeat interval (plus the round trip).
    for w in refused.windows(2) {
        assert!(
            (2_000..2_300).contains(&(w[1] - w[0])),
            "refusals at {refused:?}"
        );
    }
    let epochs: Vec<i64> = cluster
        .events
        .events()
        .iter()
        .filter_map(|e| match e.kind {
            EventKind::BrokerRegistered {
                broker: 2, epoch, ..
            } => Some(epoch),
            _ => None,
        })
        .collect();
    assert_eq!(epochs.len(), 2);
    assert!(
        epochs[1] > epochs[0],
        "new epoch {} > old {}",
        epochs[1],
        epochs[0]
    );
    // The new registration came after the old session (last heartbeat <= crash) expired.
    let accepted = event_times(&cluster.events, |k| {
        matches!(k, EventKind::BrokerRegistered { broker: 2, .. })
    })[1];
    assert!(
        accepted > crash - 2_000 + 9_000 && accepted <= crash + 9_000 + 2_300,
        "accepted at {accepted}, crash at {crash}"
    );
    // Heartbeats of the dead incarnation's epoch never came back; the old epoch was fenced by the
    // scan or superseded by the registration, never both unfenced.
    let fenced = event_times(
        &cluster.events,
        |k| matches!(k, EventKind::BrokerFenced { broker: 2, epoch, reason: FenceReason::SessionExpired, .. } if *epoch == epochs[0]),
    );
    assert!(fenced.len() <= 1);
    let expansions = cluster.events.count(|e| {
        matches!(&e.kind, EventKind::IsrChangeRequested { isr, .. } if isr.contains(&2) && isr.len() == 3)
    });
    assert_eq!(
        expansions, 3,
        "one ISR expansion per __consumer_offsets partition"
    );
    Ok(())
}

#[test]
fn controlled_shutdown_moves_leadership_before_the_broker_stops() -> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(3, 0), 120);
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let (leader, _) = find_coordinator("broker-1", "g1").await;
        control.ask(Action::ControlledShutdown(leader));
        for _ in 0..200 {
            if events.count(|e| e.node == leader && matches!(e.kind, EventKind::BrokerStopped)) == 1
            {
                let (now_leader, _) =
                    find_coordinator(if leader == 1 { "broker-2" } else { "broker-1" }, "g1").await;
                assert_ne!(now_leader, leader);
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("the broker did not stop");
    });
    cluster.run()?;
    let ev = cluster.events.events();
    let pos = |f: &dyn Fn(&EventKind) -> bool| ev.iter().position(|e| f(&e.kind)).expect("event");
    let leader = ev
        .iter()
        .find_map(|e| match e.kind {
            EventKind::ControlledShutdownStarted { broker, .. } => Some(broker),
            _ => None,
        })
        .unwrap();
    let started = pos(&|k| matches!(k, EventKind::ControlledShutdownStarted { .. }));
    let granted =
        pos(&|k| matches!(k, EventKind::ShutdownGranted { broker, .. } if *broker == leader));
    let stopped = pos(&|k| matches!(k, EventKind::BrokerStopped));
    // Every partition the broker led moved in the controlled-shutdown batch, before the grant.
    let moved: Vec<&coordinator::events::ClusterEvent> = ev[started.saturating_sub(10)..granted]
        .iter()
        .filter(|e| matches!(&e.kind, EventKind::PartitionChanged { isr, .. } if !isr.contains(&leader)))
        .collect();
    assert!(!moved.is_empty());
    assert!(started < granted && granted < stopped);
    // Its coordinators were unloaded before it stopped, and it was never fenced by expiry.
    let unloaded = pos(&|k| matches!(k, EventKind::CoordinatorUnloaded { .. }));
    assert!(unloaded < stopped);
    assert!(!ev.iter().any(|e| matches!(e.kind, EventKind::BrokerFenced { broker, reason: FenceReason::SessionExpired, .. } if broker == leader)));
    Ok(())
}

fn join_request(member: &str) -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("app")))
        .with_member_id(s(member))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(30_000)
        .with_process_id(Some(s(member)))
        .with_topology(Some(topology()))
        .with_active_tasks(Some(Vec::new()))
        .with_standby_tasks(Some(Vec::new()))
        .with_warmup_tasks(Some(Vec::new()))
}

#[test]
fn a_leader_cut_off_from_its_followers_times_out_writes_until_the_isr_shrinks() -> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(1, 0), 240);
    let events = cluster.events.clone();
    let timings = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let t = timings.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        create_input(2, 1).await;
        let (leader, _) = find_coordinator("broker-1", "app").await;
        let leader_host = broker_host(leader);
        streams_heartbeat(&leader_host, join_request("member-1")).await;
        // Cut the leader off from both followers (the controller and the client still reach it).
        for other in (1..=3).filter(|b| *b != leader) {
            turmoil::partition(leader_host.as_str(), broker_host(other).as_str());
        }
        let c = client(&leader_host);
        let start = now();
        let r = c
            .call(join_request("member-2").into(), 0, 20_000)
            .await
            .unwrap();
        let Response::StreamsGroupHeartbeat(r) = r else {
            panic!()
        };
        // The write could not reach the in-sync followers: it failed after offsets.commit.timeout.ms.
        assert_eq!(r.error_code, ErrorCode::CoordinatorNotAvailable.code());
        assert_eq!(r.error_message, None);
        t.borrow_mut().push(now() - start);
        // Once replica.lag.time.max.ms passed, the leader shrinks the ISR to itself and writes
        // commit again.
        let start = now();
        loop {
            let r = c
                .call(join_request("member-3").into(), 0, 20_000)
                .await
                .unwrap();
            let Response::StreamsGroupHeartbeat(r) = r else {
                panic!()
            };
            if r.error_code == 0 {
                break;
            }
            assert_eq!(r.error_code, ErrorCode::CoordinatorNotAvailable.code());
            assert!(now() - start < 60_000, "writes never resumed");
        }
        t.borrow_mut().push(now() - start);
        Ok(())
    });
    cluster.run()?;
    let timings = timings.borrow().clone();
    // Measured from the client: the timeout is 5000 ms plus at most one round trip.
    assert!(
        (5_000..5_300).contains(&timings[0]),
        "failed after {} ms",
        timings[0]
    );
    let failed = cluster.events.count(
        |e| matches!(&e.kind, EventKind::WriteFailed { error, .. } if error == "REQUEST_TIMED_OUT"),
    );
    assert!(failed >= 1);
    let shrink = cluster
        .events
        .find(|e| matches!(&e.kind, EventKind::IsrChangeRequested { isr, .. } if isr.len() == 1));
    assert!(shrink.is_some(), "the leader asked to shrink the ISR");
    let shrunk = cluster.events.find(|e| {
        matches!(&e.kind, EventKind::PartitionChanged { topic, isr, .. } if topic == GROUP_METADATA_TOPIC && isr.len() == 1)
    });
    assert!(shrunk.is_some(), "the controller shrank the ISR");
    Ok(())
}

fn boot_and_crash_events() -> Vec<String> {
    let mut cluster = Cluster::new(three_brokers(3, 100), 60);
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let (leader, _) = find_coordinator("broker-1", "app").await;
        streams_heartbeat(&broker_host(leader), join_request("m")).await;
        control.ask(Action::Crash(broker_host(leader)));
        tokio::time::sleep(std::time::Duration::from_millis(15_000)).await;
        Ok(())
    });
    cluster.run().unwrap();
    cluster
        .events
        .events()
        .iter()
        .map(|e| serde_json::to_string(e).unwrap())
        .collect()
}

#[test]
fn the_same_seed_gives_the_same_event_log() {
    let a = boot_and_crash_events();
    let b = boot_and_crash_events();
    assert!(a.len() > 50, "{} events", a.len());
    assert_eq!(a, b);
}

use bytes::Bytes;
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::offset_commit_request::{
    OffsetCommitRequestPartition, OffsetCommitRequestTopic,
};
use protocol::messages::offset_fetch_request::OffsetFetchRequestTopic;
use protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use protocol::messages::{
    DescribeGroupsRequest, HeartbeatRequest, JoinGroupRequest, OffsetCommitRequest,
    OffsetFetchRequest, SyncGroupRequest,
};

/// Sends a classic request to the coordinator of `group`, rediscovering it after retriable
/// coordinator errors or lost connections.
async fn to_coordinator(
    group: &str,
    request: Request,
    version: i16,
    error_of: fn(&Response) -> i16,
) -> Response {
    let mut coordinator = None;
    for _ in 0..400 {
        let host = match coordinator {
            Some(h) => h,
            None => {
                let (c, _) = find_coordinator("broker-1", group).await;
                coordinator = Some(c);
                c
            }
        };
        match client(&broker_host(host))
            .call(request.clone(), version, 10_000)
            .await
        {
            Ok(r) => {
                let code = error_of(&r);
                match ErrorCode::from_code(code) {
                    Some(ErrorCode::NotCoordinator) | Some(ErrorCode::CoordinatorNotAvailable) => {
                        coordinator = None
                    }
                    Some(ErrorCode::CoordinatorLoadInProgress) => {}
                    _ => return r,
                }
            }
            Err(_) => coordinator = None,
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    panic!("no answer from the coordinator of {group}");
}

use protocol::Request;

#[test]
fn committed_offsets_and_a_static_member_survive_the_coordinator_crash() -> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(3, 100), 240);
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let ct = create_input(2, 3).await;
        assert_eq!(ct.topics[0].error_code, 0);
        let (old, _) = find_coordinator("broker-1", "cg").await;
        let join = JoinGroupRequest::default()
            .with_group_id(GroupId(s("cg")))
            .with_session_timeout_ms(30_000)
            .with_rebalance_timeout_ms(60_000)
            .with_member_id(s(""))
            .with_group_instance_id(Some(s("inst-1")))
            .with_protocol_type(s("consumer"))
            .with_protocols(vec![
                JoinGroupRequestProtocol::default()
                    .with_name(s("range"))
                    .with_metadata(Bytes::from_static(&[0, 1, 2])),
            ]);
        // A static member joins directly (no MEMBER_ID_REQUIRED); the join waits out the
        // initial rebalance delay and makes it the leader.
        let Response::JoinGroup(j) = call(&client(&broker_host(old)), join, 5).await else {
            panic!()
        };
        assert_eq!(j.error_code, 0);
        assert_eq!(j.leader, j.member_id);
        let (member, generation) = (j.member_id.clone(), j.generation_id);
        let sync = SyncGroupRequest::default()
            .with_group_id(GroupId(s("cg")))
            .with_generation_id(generation)
            .with_member_id(member.clone())
            .with_group_instance_id(Some(s("inst-1")))
            .with_assignments(vec![
                SyncGroupRequestAssignment::default()
                    .with_member_id(member.clone())
                    .with_assignment(Bytes::from_static(&[9, 9])),
            ]);
        let Response::SyncGroup(sg) = call(&client(&broker_host(old)), sync, 3).await else {
            panic!()
        };
        assert_eq!(sg.error_code, 0);
        assert_eq!(&sg.assignment[..], &[9, 9]);
        let commit = OffsetCommitRequest::default()
            .with_group_id(GroupId(s("cg")))
            .with_generation_id_or_member_epoch(generation)
            .with_member_id(member.clone())
            .with_group_instance_id(Some(s("inst-1")))
            .with_topics(vec![
                OffsetCommitRequestTopic::default()
                    .with_name(TopicName(s("input")))
                    .with_partitions(vec![
                        OffsetCommitRequestPartition::default()
                            .with_partition_index(0)
                            .with_committed_offset(42)
                            .with_committed_metadata(Some(s("m0"))),
                        OffsetCommitRequestPartition::default()
                            .with_partition_index(1)
                            .with_committed_offset(43)
                            .with_committed_metadata(Some(s("m1"))),
                    ]),
            ]);
        let Response::OffsetCommit(oc) = call(&client(&broker_host(old)), commit, 8).await else {
            panic!()
        };
        assert!(
            oc.topics[0].partitions.iter().all(|p| p.error_code == 0),
            "{oc:?}"
        );

        control.ask(Action::Crash(broker_host(old)));
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;

        // The committed offsets are readable from the new coordinator.
        let fetch = OffsetFetchRequest::default()
            .with_group_id(GroupId(s("cg")))
            .with_topics(Some(vec![
                OffsetFetchRequestTopic::default()
                    .with_name(TopicName(s("input")))
                    .with_partition_indexes(vec![0, 1]),
            ]));
        let Response::OffsetFetch(of) = to_coordinator("cg", fetch.into(), 7, |r| match r {
            Response::OffsetFetch(f) => f.error_code,
            _ => -1,
        })
        .await
        else {
            panic!()
        };
        let (new, _) = find_coordinator("broker-1", "cg").await;
        assert_ne!(new, old);
        let got: Vec<(i32, i64, String)> = of.topics[0]
            .partitions
            .iter()
            .map(|p| {
                (
                    p.partition_index,
                    p.committed_offset,
                    p.metadata
                        .as_ref()
                        .map(|m| m.to_string())
                        .unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(got, vec![(0, 42, "m0".into()), (1, 43, "m1".into())]);
        // The static member keeps its member id and generation on the new coordinator.
        let hb = HeartbeatRequest::default()
            .with_group_id(GroupId(s("cg")))
            .with_generation_id(generation)
            .with_member_id(member.clone())
            .with_group_instance_id(Some(s("inst-1")));
        let Response::Heartbeat(h) = call(&client(&broker_host(new)), hb, 4).await else {
            panic!()
        };
        assert_eq!(h.error_code, 0);
        let Response::DescribeGroups(d) = call(
            &client(&broker_host(new)),
            DescribeGroupsRequest::default().with_groups(vec![GroupId(s("cg"))]),
            5,
        )
        .await
        else {
            panic!()
        };
        let g = &d.groups[0];
        assert_eq!(
            (
                g.error_code,
                g.group_state.as_str(),
                g.protocol_data.as_str()
            ),
            (0, "Stable", "range")
        );
        assert_eq!(g.members.len(), 1);
        assert_eq!(g.members[0].member_id, member);
        assert_eq!(
            g.members[0].group_instance_id.as_ref().map(|i| i.as_str()),
            Some("inst-1")
        );
        assert_eq!(&g.members[0].member_assignment[..], &[9, 9]);
        Ok(())
    });
    cluster.run()
}

#[test]
fn a_zombie_leaders_unacknowledged_write_is_truncated_never_half_applied() -> turmoil::Result {
    let mut cluster = Cluster::new(three_brokers(1, 0), 240);
    let events = cluster.events.clone();
    let handles = cluster.handles.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        create_input(2, 3).await;
        let (zombie, _) = find_coordinator("broker-1", "app").await;
        let zombie_host = broker_host(zombie);
        let first = streams_heartbeat(&zombie_host, join_request("member-1")).await;
        // Cut the leader off from the controller and the other brokers; the client still
        // reaches it.
        cut_off(zombie);
        // The zombie appends the join locally, cannot commit it, and times out.
        let Response::StreamsGroupHeartbeat(r) = client(&zombie_host)
            .call(join_request("zombie-member").into(), 0, 20_000)
            .await
            .unwrap()
        else {
            panic!()
        };
        assert_eq!(r.error_code, ErrorCode::CoordinatorNotAvailable.code());
        // The controller fences it and another replica takes over; member-1 carries on there.
        let new = coordinator_moved_from(zombie, "app").await;
        let hb = StreamsGroupHeartbeatRequest::default()
            .with_group_id(GroupId(s("app")))
            .with_member_id(s("member-1"))
            .with_member_epoch(first.member_epoch);
        let r = streams_heartbeat(&broker_host(new), hb).await;
        assert!(r.member_epoch >= first.member_epoch);
        streams_heartbeat(&broker_host(new), join_request("member-2")).await;
        // Heal the network: the zombie learns it lost leadership, truncates what nobody
        // acknowledged and replicates from the new leader.
        reconnect(zombie);
        for _ in 0..600 {
            let truncated = events.count(|e| {
                e.node == zombie && matches!(e.kind, EventKind::ReplicaTruncated { .. })
            });
            let logs = {
                let h = handles.borrow();
                let z = h[zombie as usize]
                    .as_ref()
                    .unwrap()
                    .storage()
                    .log(GROUP_METADATA_TOPIC, 0);
                let n = h[new as usize]
                    .as_ref()
                    .unwrap()
                    .storage()
                    .log(GROUP_METADATA_TOPIC, 0);
                z.map(|l| l.batches().to_vec()) == n.map(|l| l.batches().to_vec())
            };
            if truncated > 0 && logs {
                let Response::StreamsGroupDescribe(d) = call(
                    &client(&broker_host(new)),
                    StreamsGroupDescribeRequest::default().with_group_ids(vec![GroupId(s("app"))]),
                    0,
                )
                .await
                else {
                    panic!()
                };
                let mut members: Vec<String> = d.groups[0]
                    .members
                    .iter()
                    .map(|m| m.member_id.to_string())
                    .collect();
                members.sort();
                assert_eq!(
                    members,
                    vec!["member-1".to_string(), "member-2".to_string()]
                );
                return Ok(());
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        panic!("the zombie never converged with the new leader");
    });
    cluster.run()?;
    // The zombie resigned (its pending write had already failed) and its coordinator unloaded.
    assert!(
        cluster
            .events
            .count(|e| matches!(e.kind, EventKind::CoordinatorUnloaded { .. }))
            >= 1
    );
    Ok(())
}

#[test]
fn a_write_pending_when_its_coordinator_resigns_fails_with_not_coordinator() -> turmoil::Result {
    // A commit timeout longer than the fencing delay, so the write is still pending when the
    // cut-off leader learns it lost leadership (Kafka 4.4 fails it at unload, KAFKA-20634).
    let mut cluster = Cluster::with_configs(
        ClusterSpec::new(3, 1, 3),
        240,
        vec![("offsets.commit.timeout.ms".into(), "60000".into())],
    );
    let events = cluster.events.clone();
    let answer = std::rc::Rc::new(std::cell::RefCell::new(None));
    let a = answer.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        create_input(2, 3).await;
        let (zombie, _) = find_coordinator("broker-1", "app").await;
        let zombie_host = broker_host(zombie);
        streams_heartbeat(&zombie_host, join_request("member-1")).await;
        cut_off(zombie);
        let pending = {
            let zombie_host = zombie_host.clone();
            tokio::task::spawn_local(async move {
                let start = now();
                let r = client(&zombie_host)
                    .call(join_request("member-2").into(), 0, 60_000)
                    .await
                    .unwrap();
                (r, now() - start)
            })
        };
        // Wait for the controller to fence the zombie, then let it hear about it.
        coordinator_moved_from(zombie, "app").await;
        turmoil::repair(zombie_host.as_str(), "controller");
        *a.borrow_mut() = Some(pending.await.unwrap());
        Ok(())
    });
    cluster.run()?;
    let (response, elapsed) = answer.borrow_mut().take().expect("answered");
    let Response::StreamsGroupHeartbeat(r) = response else {
        panic!()
    };
    assert_eq!(r.error_code, ErrorCode::NotCoordinator.code());
    assert_eq!(
        r.error_message.as_ref().map(|m| m.to_string()).as_deref(),
        Some("This is not the correct coordinator.")
    );
    assert!(
        elapsed > 9_000 && elapsed < 60_000,
        "answered after {elapsed} ms"
    );
    // The join's write (and any timer write queued behind it) failed at unload, none timed out.
    let failed = cluster.events.count(
        |e| matches!(&e.kind, EventKind::WriteFailed { error, .. } if error == "NOT_COORDINATOR"),
    );
    assert!(failed >= 1);
    let timed_out = cluster.events.count(
        |e| matches!(&e.kind, EventKind::WriteFailed { error, .. } if error == "REQUEST_TIMED_OUT"),
    );
    assert_eq!(timed_out, 0);
    Ok(())
}

/// A simple-group OffsetCommit of `input-0` at `offset` (generation -1, no member).
fn simple_commit(group: &str, offset: i64) -> OffsetCommitRequest {
    OffsetCommitRequest::default()
        .with_group_id(GroupId(s(group)))
        .with_generation_id_or_member_epoch(-1)
        .with_member_id(s(""))
        .with_topics(vec![
            OffsetCommitRequestTopic::default()
                .with_name(TopicName(s("input")))
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(0)
                        .with_committed_offset(offset),
                ]),
        ])
}

/// Kafka's `Partition` keeps an ISR change pending (the high watermark waits for the larger of
/// the proposed and the committed ISR) until the controller answers or new metadata settles it;
/// only OPERATION_NOT_ATTEMPTED / INELIGIBLE_REPLICA send it back to the committed ISR. An
/// AlterPartition whose answer is lost may have been applied: here the controller adds the
/// follower back to the ISR, the answer never reaches the leader, and the follower is cut off
/// again. A leader that reverted to its last known ISR (itself alone) would acknowledge the next
/// commit on its own, and the follower, in the controller's ISR, could become leader without it:
/// an acknowledged offset lost (swarm-streams seed 713, offsets-durable).
#[test]
fn an_unanswered_isr_expansion_keeps_the_high_watermark_waiting_for_the_follower() -> turmoil::Result
{
    let mut cluster = Cluster::new(three_brokers(1, 0), 240);
    let events = cluster.events.clone();
    let answers = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let a = answers.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        create_input(1, 1).await;
        let (leader, _) = find_coordinator("broker-1", "g").await;
        let leader_host = broker_host(leader);
        let followers: Vec<i32> = (1..=3).filter(|b| *b != leader).collect();
        let ok = |r: &Response| match r {
            Response::OffsetCommit(oc) => oc.topics[0].partitions[0].error_code,
            _ => -1,
        };
        let c = client(&leader_host);
        let r = c.call(simple_commit("g", 1).into(), 8, 20_000).await.unwrap();
        assert_eq!(ok(&r), 0);
        // Both followers cut off: the ISR shrinks to the leader.
        for f in &followers {
            turmoil::partition(leader_host.as_str(), broker_host(*f).as_str());
        }
        let shrunk = |e: &coordinator::events::ClusterEvent| {
            matches!(&e.kind, EventKind::PartitionChanged { topic, isr, .. }
                if topic == GROUP_METADATA_TOPIC && isr.len() == 1)
        };
        while events.find(shrunk).is_none() {
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        // From now on nothing the controller sends reaches the leader; one follower comes back,
        // catches up, and the leader proposes it for the ISR.
        turmoil::partition_oneway("controller", leader_host.as_str());
        let f = followers[0];
        turmoil::repair(leader_host.as_str(), broker_host(f).as_str());
        let expand = |e: &coordinator::events::ClusterEvent| {
            matches!(&e.kind, EventKind::IsrChangeRequested { isr, .. } if isr.len() == 2)
        };
        while events.find(expand).is_none() {
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        turmoil::partition(leader_host.as_str(), broker_host(f).as_str());
        // The controller applied the expansion; the leader never hears so.
        let applied = |e: &coordinator::events::ClusterEvent| {
            matches!(&e.kind, EventKind::PartitionChanged { topic, isr, .. }
                if topic == GROUP_METADATA_TOPIC && isr.len() == 2)
        };
        tokio::time::sleep(std::time::Duration::from_millis(500)).await;
        assert!(events.find(applied).is_some(), "the controller expanded the ISR");
        // Past the AlterPartition timeout (2 s), a commit on the leader must still wait for the
        // follower it proposed: it times out instead of being acknowledged by the leader alone.
        tokio::time::sleep(std::time::Duration::from_millis(2_500)).await;
        let r = c.call(simple_commit("g", 2).into(), 8, 20_000).await.unwrap();
        a.borrow_mut().push(ok(&r));
        Ok(())
    });
    cluster.run()?;
    assert_eq!(
        answers.borrow().as_slice(),
        [ErrorCode::CoordinatorNotAvailable.code()]
    );
    Ok(())
}

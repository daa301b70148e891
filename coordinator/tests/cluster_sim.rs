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

#[test]
fn three_brokers_register_unfence_and_serve_find_coordinator() -> turmoil::Result {
    let mut cluster = Cluster::new(
        ClusterSpec {
            brokers: 3,
            offsets_partitions: 6,
            replication_factor: 3,
            load_delay_ms: 0,
        },
        120,
    );
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
    CreateTopicsRequest, GroupId, StreamsGroupDescribeRequest, StreamsGroupHeartbeatRequest,
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
    let mut cluster = Cluster::new(
        ClusterSpec {
            brokers: 3,
            offsets_partitions: 3,
            replication_factor: 3,
            load_delay_ms: 200,
        },
        240,
    );
    let events = cluster.events.clone();
    let control = cluster.control.clone();
    let crash_info = std::rc::Rc::new(std::cell::Cell::new((0i32, 0i64)));
    let info = crash_info.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let Response::CreateTopics(ct) = call(
            &client("broker-1"),
            CreateTopicsRequest::default().with_topics(vec![
                CreatableTopic::default()
                    .with_name(TopicName(s("input")))
                    .with_num_partitions(4)
                    .with_replication_factor(3),
            ]),
            7,
        )
        .await
        else {
            panic!()
        };
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
        let survivor = if old == 1 { "broker-2" } else { "broker-1" };
        // Until the controller fences it, every broker still names the dead broker.
        let new = loop {
            let (c, _) = find_coordinator(survivor, "app").await;
            if c != old {
                break c;
            }
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        };
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

//! Consumer groups (KIP-848) on the broker's client listener, in a turmoil cluster of three
//! brokers: ApiVersions advertises ConsumerGroupHeartbeat and ConsumerGroupDescribe, a heartbeat
//! runs on its group's coordinator and is refused elsewhere, ConsumerGroupDescribe is split by
//! coordinator, and the checks Kafka makes before routing answer the same on every broker.

mod cluster_support;

use cluster_support::*;
use coordinator::broker::placement::partition_for;
use protocol::messages::consumer_group_heartbeat_request::TopicPartitions as Owned;
use protocol::messages::create_topics_request::CreatableTopic;
use protocol::messages::{
    ApiVersionsRequest, ConsumerGroupDescribeRequest, ConsumerGroupDescribeResponse,
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, CreateTopicsRequest,
    FindCoordinatorRequest, GroupId, StrBytes, TopicName,
};
use protocol::{ErrorCode, Response};

const PARTITIONS: i32 = 6;

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

/// The coordinator of `group` once there is one.
async fn coordinator_of(group: &str) -> i32 {
    for _ in 0..200 {
        let Response::FindCoordinator(r) = call(
            &client("broker-1"),
            FindCoordinatorRequest::default()
                .with_key(s(group))
                .with_key_type(0),
            3,
        )
        .await
        else {
            panic!()
        };
        if r.error_code == 0 {
            return r.node_id.0;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("no coordinator for {group}");
}

async fn create_input() {
    let request = CreateTopicsRequest::default().with_topics(vec![
        CreatableTopic::default()
            .with_name(TopicName(s("input")))
            .with_num_partitions(4)
            .with_replication_factor(3),
    ]);
    let Response::CreateTopics(r) = call(&client("broker-1"), request, 7).await else {
        panic!()
    };
    assert_eq!(r.topics[0].error_code, 0);
}

/// A join of `member` to `group`, subscribed to `input`, at version 1 (member id from the client).
fn join(group: &str, member: &str) -> ConsumerGroupHeartbeatRequest {
    ConsumerGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s(group)))
        .with_member_id(s(member))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(30_000)
        .with_subscribed_topic_names(Some(vec![TopicName(s("input"))]))
        .with_topic_partitions(Some(Vec::<Owned>::new()))
}

async fn heartbeat(host: &str, r: ConsumerGroupHeartbeatRequest) -> ConsumerGroupHeartbeatResponse {
    match call(&client(host), r, 1).await {
        Response::ConsumerGroupHeartbeat(r) => r,
        other => panic!("{other:?}"),
    }
}

async fn describe(host: &str, groups: &[&str], version: i16) -> ConsumerGroupDescribeResponse {
    let r = ConsumerGroupDescribeRequest::default()
        .with_group_ids(groups.iter().map(|g| GroupId(s(g))).collect());
    match call(&client(host), r, version).await {
        Response::ConsumerGroupDescribe(r) => r,
        other => panic!("{other:?}"),
    }
}

fn message(m: &Option<StrBytes>) -> Option<&str> {
    m.as_ref().map(|m| m.as_str())
}

/// Group ids around `cg-0` (led by `broker`): one on `cg-0`'s `__consumer_offsets` partition, one
/// on another partition `broker` leads, and one led by another broker.
async fn groups_around(broker: i32) -> (String, String, String) {
    let taken = partition_for("cg-0", PARTITIONS);
    let (mut same, mut here, mut elsewhere) = (None, None, None);
    for i in 1..300 {
        if same.is_some() && here.is_some() && elsewhere.is_some() {
            break;
        }
        let g = format!("cg-{i}");
        let p = partition_for(&g, PARTITIONS);
        if p == taken {
            same.get_or_insert(g);
        } else if coordinator_of(&g).await == broker {
            here.get_or_insert(g);
        } else {
            elsewhere.get_or_insert(g);
        }
    }
    (same.unwrap(), here.unwrap(), elsewhere.unwrap())
}

#[test]
fn consumer_group_apis_are_advertised_routed_and_refused_off_their_coordinator() -> turmoil::Result
{
    let mut cluster = Cluster::with_configs(
        ClusterSpec::new(3, PARTITIONS, 3),
        120,
        vec![("group.consumer.assignment.interval.ms".into(), "0".into())],
    );
    let events = cluster.events.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        let Response::ApiVersions(av) = call(
            &client("broker-2"),
            ApiVersionsRequest::default()
                .with_client_software_name(s("regroup-test"))
                .with_client_software_version(s("1")),
            3,
        )
        .await
        else {
            panic!()
        };
        let range = |key: i16| {
            av.api_keys
                .iter()
                .find(|k| k.api_key == key)
                .map(|k| (k.min_version, k.max_version))
        };
        assert_eq!(range(68), Some((0, 1)), "ConsumerGroupHeartbeat");
        assert_eq!(range(69), Some((0, 1)), "ConsumerGroupDescribe");
        // Kafka lists api keys in ascending order; 68 and 69 come before the streams apis (88).
        let keys: Vec<i16> = av.api_keys.iter().map(|k| k.api_key).collect();
        let mut sorted = keys.clone();
        sorted.sort();
        assert_eq!(keys, sorted);

        create_input().await;
        let coordinator = coordinator_of("cg-0").await;
        let other = (1..=3).find(|b| *b != coordinator).unwrap();

        // A heartbeat sent to a broker that does not lead the group's partition.
        let refused = heartbeat(&broker_host(other), join("cg-0", "m1")).await;
        assert_eq!(refused.error_code, ErrorCode::NotCoordinator.code());
        assert_eq!(
            message(&refused.error_message),
            Some("This is not the correct coordinator.")
        );
        assert_eq!(refused.member_id, None);
        assert_eq!(refused.member_epoch, 0);

        // A malformed heartbeat is refused before routing, the same on any broker.
        for b in [coordinator, other] {
            let bad = heartbeat(&broker_host(b), join("cg-0", "")).await;
            assert_eq!(bad.error_code, ErrorCode::InvalidRequest.code());
            assert_eq!(
                message(&bad.error_message),
                Some("MemberId can't be empty.")
            );
            let bad = heartbeat(
                &broker_host(b),
                join("cg-0", "m1").with_server_assignor(Some(s("sticky"))),
            )
            .await;
            assert_eq!(bad.error_code, ErrorCode::UnsupportedAssignor.code());
            assert_eq!(
                message(&bad.error_message),
                Some(
                    "ServerAssignor sticky is not supported. Supported assignors: uniform, range."
                )
            );
        }

        // On its coordinator the member joins and gets every partition of `input`.
        let joined = heartbeat(&broker_host(coordinator), join("cg-0", "m1")).await;
        assert_eq!(joined.error_code, 0, "{:?}", joined.error_message);
        assert_eq!(message(&joined.member_id), Some("m1"));
        // A new group object starts at epoch 1; the first member's join bumps it to 2.
        assert_eq!(joined.member_epoch, 2);
        assert_eq!(joined.heartbeat_interval_ms, 5_000);
        let assignment = joined.assignment.expect("assignment on join");
        assert_eq!(assignment.topic_partitions.len(), 1);
        let mut parts = assignment.topic_partitions[0].partitions.clone();
        parts.sort();
        assert_eq!(parts, vec![0, 1, 2, 3]);

        // Describe on the coordinator: the member, epochs and assignment, at v1 with MemberType.
        let d = describe(&broker_host(coordinator), &["cg-0"], 1).await;
        assert_eq!(d.groups.len(), 1);
        let g = &d.groups[0];
        assert_eq!(g.error_code, 0);
        assert_eq!(g.group_state.as_str(), "Stable");
        assert_eq!((g.group_epoch, g.assignment_epoch), (2, 2));
        assert_eq!(g.assignor_name.as_str(), "uniform");
        assert_eq!(g.members.len(), 1);
        assert_eq!(g.members[0].member_id.as_str(), "m1");
        assert_eq!(g.members[0].member_epoch, 2);
        assert_eq!(g.members[0].member_type, 1);
        assert_eq!(g.members[0].client_id.as_str(), "test-client");
        let mut described = g.members[0].assignment.topic_partitions[0]
            .partitions
            .clone();
        described.sort();
        assert_eq!(described, vec![0, 1, 2, 3]);
        // The same describe on another broker: NOT_COORDINATOR for the group, no message.
        let d = describe(&broker_host(other), &["cg-0"], 0).await;
        assert_eq!(d.groups.len(), 1);
        assert_eq!(d.groups[0].group_id.as_str(), "cg-0");
        assert_eq!(d.groups[0].error_code, ErrorCode::NotCoordinator.code());
        assert_eq!(d.groups[0].error_message, None);

        // One describe naming groups of several coordinators: empty ids first, then one block
        // per partition (Java's HashMap order), each in request order and answered by the
        // partition's state here.
        let (same, a, far) = groups_around(coordinator).await;
        let d = describe(&broker_host(coordinator), &[&far, "", &same, &a, "cg-0"], 0).await;
        let got: Vec<(String, i16)> = d
            .groups
            .iter()
            .map(|g| (g.group_id.to_string(), g.error_code))
            .collect();
        assert_eq!(got.len(), 5);
        assert_eq!(got[0], (String::new(), ErrorCode::InvalidGroupId.code()));
        let code_of = |name: &str| got.iter().find(|(g, _)| g == name).unwrap().1;
        assert_eq!(code_of(&far), ErrorCode::NotCoordinator.code());
        assert_eq!(code_of(&a), ErrorCode::GroupIdNotFound.code());
        assert_eq!(code_of(&same), ErrorCode::GroupIdNotFound.code());
        assert_eq!(code_of("cg-0"), 0);
        let at = |name: &str| got.iter().position(|(g, _)| g == name).unwrap();
        assert_eq!(
            at("cg-0"),
            at(&same) + 1,
            "one block per partition: {got:?}"
        );

        // The member leaves; the group is empty and its epoch moved once.
        let left = heartbeat(
            &broker_host(coordinator),
            ConsumerGroupHeartbeatRequest::default()
                .with_group_id(GroupId(s("cg-0")))
                .with_member_id(s("m1"))
                .with_member_epoch(-1),
        )
        .await;
        assert_eq!(left.error_code, 0);
        assert_eq!(left.member_epoch, -1);
        let d = describe(&broker_host(coordinator), &["cg-0"], 1).await;
        assert_eq!(d.groups[0].group_state.as_str(), "Empty");
        assert_eq!(d.groups[0].group_epoch, 3);
        assert!(d.groups[0].members.is_empty());
        Ok(())
    });
    cluster.run()
}

#[test]
fn with_the_consumer_protocol_disabled_every_broker_answers_unsupported_version() -> turmoil::Result
{
    let mut cluster = Cluster::with_configs(
        ClusterSpec::new(3, PARTITIONS, 3),
        120,
        vec![(
            "group.coordinator.rebalance.protocols".into(),
            "classic,streams".into(),
        )],
    );
    let events = cluster.events.clone();
    cluster.sim.client("client", async move {
        wait_running(&events, 3).await;
        create_input().await;
        let coordinator = coordinator_of("cg-0").await;
        for b in 1..=3 {
            let host = broker_host(b);
            // Still advertised, as Kafka's broker does.
            let Response::ApiVersions(av) =
                call(&client(&host), ApiVersionsRequest::default(), 0).await
            else {
                panic!()
            };
            assert!(av.api_keys.iter().any(|k| k.api_key == 68));
            // KafkaApis refuses before any other check: even an invalid join, even off the
            // coordinator, gets UNSUPPORTED_VERSION with no message.
            for r in [join("cg-0", "m1"), join("cg-0", "")] {
                let h = heartbeat(&host, r).await;
                assert_eq!(
                    h.error_code,
                    ErrorCode::UnsupportedVersion.code(),
                    "broker-{b}"
                );
                assert_eq!(h.error_message, None);
            }
            let d = describe(&host, &["cg-0", ""], 1).await;
            let got: Vec<(String, i16)> = d
                .groups
                .iter()
                .map(|g| (g.group_id.to_string(), g.error_code))
                .collect();
            let unsupported = ErrorCode::UnsupportedVersion.code();
            assert_eq!(
                got,
                vec![
                    ("cg-0".to_string(), unsupported),
                    (String::new(), unsupported)
                ],
                "broker-{b} (coordinator broker-{coordinator})"
            );
        }
        Ok(())
    });
    cluster.run()
}

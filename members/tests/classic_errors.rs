//! A classic consumer's requests and its reactions to errors, against a scripted coordinator.

mod support;

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::time::Duration;

use members::classic::protocol::{decode_assignment, decode_subscription};
use members::classic::{Consumer, ConsumerConfig};
use members::observer::{EventKind, EventLog, TopicPartition};
use protocol::messages::join_group_response::JoinGroupResponseMember;
use protocol::messages::offset_commit_response::{
    OffsetCommitResponsePartition, OffsetCommitResponseTopic,
};
use protocol::messages::{
    HeartbeatResponse, JoinGroupResponse, LeaveGroupResponse, OffsetCommitResponse, StrBytes,
    SyncGroupResponse,
};
use protocol::{Api, ErrorCode, Request, Response};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::scripted::ScriptedBroker;
use support::{BROKER, Fabric};
use tokio::task::LocalSet;

const T0: i64 = 1_700_000_000_000;
const GROUP: &str = "g";

type Plans = Rc<RefCell<BTreeMap<Api, VecDeque<ErrorCode>>>>;

fn s(t: &str) -> StrBytes {
    StrBytes::from_string(t.to_string())
}

/// A classic coordinator for one member: joins get generation 1, 2, ...; the member is the leader;
/// SyncGroup returns the leader's assignment for it. Errors can be queued per api; MEMBER_ID_REQUIRED
/// hands out "member-1".
async fn coordinator(fabric: &Fabric, plans: Plans) -> ScriptedBroker {
    silent_coordinator(fabric, plans, &[]).await
}

/// [`coordinator`], which never answers the `n`-th request (from 1) of each listed `(api, n)`.
async fn silent_coordinator(
    fabric: &Fabric,
    plans: Plans,
    silent: &[(Api, usize)],
) -> ScriptedBroker {
    let generation = Rc::new(RefCell::new(0));
    let silent: Vec<(Api, usize)> = silent.to_vec();
    let mut seen: BTreeMap<Api, usize> = BTreeMap::new();
    ScriptedBroker::start(
        fabric.host("broker-0"),
        BROKER,
        &[("t", 4)],
        move |_, r, _| {
            let n = seen.entry(r.api()).or_insert(0);
            *n += 1;
            if silent.contains(&(r.api(), *n)) {
                return None;
            }
            let error = plans
                .borrow_mut()
                .get_mut(&r.api())
                .and_then(|q| q.pop_front())
                .unwrap_or(ErrorCode::None);
            Some(match r {
                Request::JoinGroup(j) => {
                    let mut resp = JoinGroupResponse::default().with_error_code(error.code());
                    if error == ErrorCode::MemberIdRequired {
                        resp = resp.with_member_id(s("member-1"));
                    } else if error == ErrorCode::None {
                        *generation.borrow_mut() += 1;
                        let member = if j.member_id.is_empty() {
                            "member-1".to_string()
                        } else {
                            j.member_id.to_string()
                        };
                        resp = resp
                            .with_generation_id(*generation.borrow())
                            .with_protocol_type(Some(s("consumer")))
                            .with_protocol_name(Some(j.protocols[0].name.clone()))
                            .with_leader(s(&member))
                            .with_member_id(s(&member))
                            .with_members(vec![
                                JoinGroupResponseMember::default()
                                    .with_member_id(s(&member))
                                    .with_group_instance_id(j.group_instance_id.clone())
                                    .with_metadata(j.protocols[0].metadata.clone()),
                            ]);
                    }
                    Response::JoinGroup(resp)
                }
                Request::SyncGroup(sg) => {
                    let assignment = sg
                        .assignments
                        .iter()
                        .find(|a| a.member_id == sg.member_id)
                        .map(|a| a.assignment.clone())
                        .unwrap_or_default();
                    Response::SyncGroup(
                        SyncGroupResponse::default()
                            .with_error_code(error.code())
                            .with_assignment(assignment),
                    )
                }
                Request::Heartbeat(_) => {
                    Response::Heartbeat(HeartbeatResponse::default().with_error_code(error.code()))
                }
                Request::OffsetCommit(c) => Response::OffsetCommit(
                    OffsetCommitResponse::default().with_topics(
                        c.topics
                            .iter()
                            .map(|t| {
                                OffsetCommitResponseTopic::default()
                                    .with_name(t.name.clone())
                                    .with_partitions(
                                        t.partitions
                                            .iter()
                                            .map(|p| {
                                                OffsetCommitResponsePartition::default()
                                                    .with_partition_index(p.partition_index)
                                                    .with_error_code(error.code())
                                            })
                                            .collect(),
                                    )
                            })
                            .collect(),
                    ),
                ),
                Request::OffsetFetch(_) => Response::OffsetFetch(Default::default()),
                Request::LeaveGroup(_) => Response::LeaveGroup(LeaveGroupResponse::default()),
                _ => return None,
            })
        },
    )
    .await
}

fn plans(list: &[(Api, &[ErrorCode])]) -> Plans {
    Rc::new(RefCell::new(
        list.iter()
            .map(|(a, e)| (*a, e.iter().copied().collect()))
            .collect(),
    ))
}

fn start(fabric: &Fabric, config: ConsumerConfig, log: &EventLog) -> Consumer {
    let mut rng = ChaCha8Rng::seed_from_u64(23);
    Consumer::start(
        fabric.host("c"),
        vec![BROKER.to_string()],
        config,
        "c",
        &mut rng,
        Rc::new(log.clone()),
    )
}

async fn run<F: std::future::Future<Output = ()>>(f: F) {
    LocalSet::new().run_until(f).await
}

/// (ms since start, api, version) of every group request.
fn sequence(broker: &ScriptedBroker) -> Vec<(i64, Api)> {
    broker
        .received()
        .iter()
        .filter(|r| {
            !matches!(
                r.request.api(),
                Api::ApiVersions | Api::FindCoordinator | Api::Metadata
            )
        })
        .map(|r| (r.at_ms - T0, r.request.api()))
        .collect()
}

/// The JoinGroup reasons (Kafka's `rejoinReason`).
fn reasons(broker: &ScriptedBroker) -> Vec<String> {
    broker
        .of(Api::JoinGroup)
        .iter()
        .map(|r| match &r.request {
            Request::JoinGroup(j) => j.reason.as_deref().unwrap_or("<null>").to_string(),
            _ => unreachable!(),
        })
        .collect()
}

fn joins(broker: &ScriptedBroker) -> Vec<String> {
    broker
        .of(Api::JoinGroup)
        .iter()
        .map(|r| match &r.request {
            Request::JoinGroup(j) => j.member_id.to_string(),
            _ => unreachable!(),
        })
        .collect()
}

#[tokio::test(start_paused = true)]
async fn dynamic_member_joins_in_two_steps_assigns_as_leader_and_leaves_on_close() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plans(&[(Api::JoinGroup, &[ErrorCode::MemberIdRequired])]),
        )
        .await;
        let log = EventLog::new();
        let c = start(
            &fabric,
            ConsumerConfig::new(GROUP, "client-c", &["t"]),
            &log,
        );
        tokio::time::sleep(Duration::from_millis(6_500)).await;
        assert_eq!(joins(&broker), vec!["", "member-1"]);
        assert_eq!(
            reasons(&broker),
            vec!["", "need to re-join with the given member-id: member-1"]
        );
        let join = &broker.of(Api::JoinGroup)[1];
        assert_eq!(join.version, 9);
        let Request::JoinGroup(j) = &join.request else {
            unreachable!()
        };
        assert_eq!(j.session_timeout_ms, 45_000);
        assert_eq!(j.rebalance_timeout_ms, 300_000);
        assert_eq!(j.protocol_type.as_str(), "consumer");
        assert_eq!(j.protocols.len(), 1);
        assert_eq!(j.protocols[0].name.as_str(), "range");
        let sub = decode_subscription(&j.protocols[0].metadata).unwrap();
        assert_eq!(sub.topics, vec!["t"]);
        assert_eq!(sub.generation_id, -1);
        assert!(j.group_instance_id.is_none());
        // The leader assigned all four partitions to itself.
        let Request::SyncGroup(sg) = &broker.of(Api::SyncGroup)[0].request else {
            unreachable!()
        };
        assert_eq!(sg.generation_id, 1);
        assert_eq!(sg.assignments.len(), 1);
        assert_eq!(
            decode_assignment(&sg.assignments[0].assignment).unwrap(),
            (0..4)
                .map(|p| TopicPartition::new("t", p))
                .collect::<Vec<_>>()
        );
        // Heartbeats every 3 s from the join; auto-commit every 5 s from the start.
        assert_eq!(
            sequence(&broker),
            vec![
                (0, Api::JoinGroup),
                (0, Api::JoinGroup),
                (0, Api::SyncGroup),
                (0, Api::OffsetFetch),
                (3_000, Api::Heartbeat),
                (5_000, Api::OffsetCommit),
                (6_000, Api::Heartbeat),
            ]
        );
        let commit = &broker.of(Api::OffsetCommit)[0];
        assert_eq!(commit.version, 9);
        let Request::OffsetCommit(oc) = &commit.request else {
            unreachable!()
        };
        assert_eq!(oc.generation_id_or_member_epoch, 1);
        assert_eq!(oc.member_id.as_str(), "member-1");
        assert_eq!(oc.topics[0].partitions[0].committed_offset, 500);
        c.close().await;
        let leave = broker.of(Api::LeaveGroup);
        assert_eq!(leave.len(), 1);
        let Request::LeaveGroup(l) = &leave[0].request else {
            unreachable!()
        };
        assert_eq!(leave[0].version, 5);
        assert_eq!(l.members[0].member_id.as_str(), "member-1");
        assert!(
            log.events()
                .iter()
                .any(|e| e.kind == EventKind::LeaveSent { epoch: 1 })
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn rebalance_in_progress_commits_revokes_and_rejoins_with_the_same_member_id() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plans(&[(Api::Heartbeat, &[ErrorCode::RebalanceInProgress])]),
        )
        .await;
        let log = EventLog::new();
        let c = start(
            &fabric,
            ConsumerConfig::new(GROUP, "client-c", &["t"]).with_instance_id("i-1"),
            &log,
        );
        tokio::time::sleep(Duration::from_millis(3_500)).await;
        assert_eq!(
            sequence(&broker),
            vec![
                (0, Api::JoinGroup),
                (0, Api::SyncGroup),
                (0, Api::OffsetFetch),
                (3_000, Api::Heartbeat),
                (3_000, Api::OffsetCommit),
                (3_000, Api::JoinGroup),
                (3_000, Api::SyncGroup),
                (3_000, Api::OffsetFetch),
            ]
        );
        // A static member's instance id goes in every request.
        let Request::Heartbeat(h) = &broker.of(Api::Heartbeat)[0].request else {
            unreachable!()
        };
        assert_eq!(h.group_instance_id.as_deref(), Some("i-1"));
        assert_eq!(joins(&broker), vec!["", "member-1"]);
        assert_eq!(reasons(&broker), vec!["", "group is already rebalancing"]);
        let Request::JoinGroup(j) = &broker.of(Api::JoinGroup)[1].request else {
            unreachable!()
        };
        assert_eq!(
            decode_subscription(&j.protocols[0].metadata)
                .unwrap()
                .generation_id,
            1
        );
        let kinds: Vec<&'static str> = log
            .events()
            .iter()
            .filter(|e| e.at_ms == T0 + 3_000)
            .filter_map(|e| match e.kind {
                EventKind::CommitAccepted { .. } => Some("commit"),
                EventKind::PartitionsRevoked { .. } => Some("revoked"),
                EventKind::PartitionsLost { .. } => Some("lost"),
                EventKind::Joined { .. } => Some("joined"),
                EventKind::PartitionsAssigned { .. } => Some("assigned"),
                _ => None,
            })
            .collect();
        assert_eq!(kinds, vec!["commit", "revoked", "joined", "assigned"]);
        c.close().await;
        assert!(
            broker.of(Api::LeaveGroup).is_empty(),
            "a static member does not leave"
        );
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn illegal_generation_keeps_the_member_id_and_unknown_member_id_drops_it() {
    for (error, rejoin_id) in [
        (ErrorCode::IllegalGeneration, "member-1"),
        (ErrorCode::UnknownMemberId, ""),
    ] {
        run(async {
            let fabric = Fabric::new(T0);
            let broker = coordinator(&fabric, plans(&[(Api::Heartbeat, &[error])])).await;
            let log = EventLog::new();
            let c = start(
                &fabric,
                ConsumerConfig::new(GROUP, "client-c", &["t"]).with_instance_id("i-1"),
                &log,
            );
            tokio::time::sleep(Duration::from_millis(3_500)).await;
            assert_eq!(joins(&broker), vec!["".to_string(), rejoin_id.to_string()]);
            assert_eq!(
                reasons(&broker)[1],
                format!("encountered {} from HEARTBEAT response", error.name())
            );
            // Partitions are lost, not revoked, and nothing is committed first.
            assert!(broker.of(Api::OffsetCommit).is_empty());
            let kinds: Vec<String> = log
                .events()
                .iter()
                .filter(|e| e.at_ms == T0 + 3_000)
                .filter_map(|e| match &e.kind {
                    EventKind::Fenced { error, epoch } => {
                        Some(format!("fenced {} {epoch}", error.name()))
                    }
                    EventKind::PartitionsRevoked { .. } => Some("revoked".into()),
                    EventKind::PartitionsLost { .. } => Some("lost".into()),
                    EventKind::Joined { epoch } => Some(format!("joined {epoch}")),
                    _ => None,
                })
                .collect();
            assert_eq!(
                kinds,
                vec![
                    format!("fenced {} 1", error.name()),
                    "lost".into(),
                    "joined 2".into()
                ]
            );
            c.close().await;
        })
        .await;
    }
}

#[tokio::test(start_paused = true)]
async fn fenced_instance_id_from_a_commit_is_fatal() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plans(&[(Api::OffsetCommit, &[ErrorCode::FencedInstanceId])]),
        )
        .await;
        let log = EventLog::new();
        let c = start(
            &fabric,
            ConsumerConfig::new(GROUP, "client-c", &["t"]).with_instance_id("i-1"),
            &log,
        );
        tokio::time::sleep(Duration::from_secs(10)).await;
        assert!(c.is_finished());
        let events = log.events();
        let last: Vec<&EventKind> = events.iter().rev().take(5).map(|e| &e.kind).collect();
        assert!(
            matches!(last[0], EventKind::Stopped { graceful: false }),
            "{last:?}"
        );
        assert!(events.iter().any(|e| matches!(
            e.kind,
            EventKind::CommitRejected {
                epoch: 1,
                error: ErrorCode::FencedInstanceId,
                ..
            }
        )));
        assert!(events.iter().any(|e| matches!(
            e.kind,
            EventKind::Fatal {
                error: Some(ErrorCode::FencedInstanceId),
                ..
            }
        )));
        // Nothing after the fatal error: no heartbeat, no rejoin, no LeaveGroup.
        assert_eq!(
            sequence(&broker).last().copied(),
            Some((5_000, Api::OffsetCommit))
        );
    })
    .await;
}

/// (ms since start, api) of every request but ApiVersions, FindCoordinator included.
fn sequence_with_lookups(broker: &ScriptedBroker) -> Vec<(i64, Api)> {
    broker
        .received()
        .iter()
        .filter(|r| !matches!(r.request.api(), Api::ApiVersions | Api::Metadata))
        .map(|r| (r.at_ms - T0, r.request.api()))
        .collect()
}

/// Kafka's `NetworkClient` answers a request that timed out as disconnected, so the consumer's
/// `CoordinatorResponseHandler.onFailure` gets a `DisconnectException` and marks the coordinator
/// unknown: the rejoin after a SyncGroup with no answer starts with a FindCoordinator (and names
/// the exception in its reason). Seen in swarm-classic-static seed 2033: a static member whose
/// SyncGroup to a fenced coordinator timed out rejoined that same broker instead of looking for
/// the new one.
#[tokio::test(start_paused = true)]
async fn a_coordinator_request_that_times_out_marks_the_coordinator_unknown() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = silent_coordinator(&fabric, plans(&[]), &[(Api::SyncGroup, 1)]).await;
        let log = EventLog::new();
        let mut config = ConsumerConfig::new(GROUP, "client-c", &["t"]).with_instance_id("i-1");
        config.request_timeout_ms = 1_000;
        let c = start(&fabric, config, &log);
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        assert_eq!(
            sequence_with_lookups(&broker),
            vec![
                (0, Api::FindCoordinator),
                (0, Api::JoinGroup),
                (0, Api::SyncGroup),
                // No answer within the request timeout: the coordinator is looked up again (on a
                // new connection, after the reconnect backoff), then the member rejoins after
                // `retry.backoff.ms`.
                (1_048, Api::FindCoordinator),
                (1_100, Api::JoinGroup),
                (1_100, Api::SyncGroup),
                (1_100, Api::OffsetFetch),
            ]
        );
        assert_eq!(
            reasons(&broker),
            vec!["", "rebalance failed due to DisconnectException"]
        );
        assert!(log.events().iter().any(|e| e.at_ms == T0 + 1_000
            && matches!(&e.kind, EventKind::CoordinatorUnknown { reason } if reason == "request timed out")));
        c.close().await;
    })
    .await;
}

/// `AbstractCoordinator.markCoordinatorUnknown` after an error response also disconnects from the
/// old coordinator (`client.disconnectAsync`): every request queued for or in flight to it fails
/// at once with a `DisconnectException`, and an answer it still sends is never seen. Here an
/// auto-commit the coordinator never answers fails when a heartbeat gets NOT_COORDINATOR, instead
/// of waiting out its request timeout (or, had the old coordinator answered late, being taken as
/// accepted). Seen in swarm-classic-static seed 2033: a NOT_COORDINATOR from a coordinator the
/// member had already left made it drop the new one, and a JoinGroup answer from a coordinator it
/// had dropped was taken.
#[tokio::test(start_paused = true)]
async fn dropping_the_coordinator_fails_the_requests_in_flight_to_it() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = silent_coordinator(
            &fabric,
            plans(&[(
                Api::Heartbeat,
                &[ErrorCode::None, ErrorCode::NotCoordinator],
            )]),
            &[(Api::OffsetCommit, 1)],
        )
        .await;
        let log = EventLog::new();
        let c = start(
            &fabric,
            ConsumerConfig::new(GROUP, "client-c", &["t"]).with_instance_id("i-1"),
            &log,
        );
        tokio::time::sleep(Duration::from_millis(6_500)).await;
        let failed: Vec<(i64, String)> = log
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::RequestFailed {
                    api: Api::OffsetCommit,
                    failure,
                    ..
                } => Some((e.at_ms - T0, failure.to_string())),
                _ => None,
            })
            .collect();
        assert_eq!(
            failed,
            vec![(
                6_000,
                "disconnected: coordinator marked unknown".to_string()
            )]
        );
        assert_eq!(
            sequence_with_lookups(&broker),
            vec![
                (0, Api::FindCoordinator),
                (0, Api::JoinGroup),
                (0, Api::SyncGroup),
                (0, Api::OffsetFetch),
                (3_000, Api::Heartbeat),
                (5_000, Api::OffsetCommit),
                (6_000, Api::Heartbeat),
                (6_000, Api::FindCoordinator),
                // The failed heartbeat's backoff (`retry.backoff.ms` with jitter).
                (6_086, Api::Heartbeat),
            ]
        );
        c.close().await;
    })
    .await;
}

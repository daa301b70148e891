//! How a streams member reacts to heartbeat errors (Kafka Streams 4.4.0's error table), against
//! a scripted coordinator.

mod support;

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Duration;

use members::observer::{EventKind, EventLog, TaskId};
use members::streams::{
    StateDirectory, StreamsConfig, StreamsProcess, Subtopology, Topology,
    UnreleasedInstanceIdPolicy,
};
use protocol::messages::streams_group_heartbeat_response::TaskIds;
use protocol::messages::{StrBytes, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};
use protocol::{Api, ErrorCode, Request, Response};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::scripted::ScriptedBroker;
use support::{BROKER, Fabric};
use tokio::task::LocalSet;

const T0: i64 = 1_700_000_000_000;
const APP: &str = "app";

/// What the coordinator answers the n-th heartbeat with.
#[derive(Clone)]
enum Answer {
    /// Success at this epoch with these active partitions of subtopology "0" (None = unchanged).
    Ok(i32, Option<Vec<i32>>),
    Error(ErrorCode),
    /// Never answered (a lost response: the client's request times out).
    NoResponse,
}

type Plan = Rc<RefCell<VecDeque<Answer>>>;

fn answer(req: &StreamsGroupHeartbeatRequest, a: Answer) -> Response {
    let base = StreamsGroupHeartbeatResponse::default()
        .with_member_id(req.member_id.clone())
        .with_heartbeat_interval_ms(1_000);
    Response::StreamsGroupHeartbeat(match a {
        Answer::NoResponse => unreachable!("not answered"),
        Answer::Error(e) => base
            .with_error_code(e.code())
            .with_member_epoch(req.member_epoch),
        Answer::Ok(epoch, tasks) => {
            let r = base.with_member_epoch(epoch).with_status(Some(Vec::new()));
            match tasks {
                None => r,
                Some(parts) => r
                    .with_active_tasks(Some(vec![
                        TaskIds::default()
                            .with_subtopology_id(StrBytes::from_static_str("0"))
                            .with_partitions(parts),
                    ]))
                    .with_standby_tasks(Some(Vec::new()))
                    .with_warmup_tasks(Some(Vec::new())),
            }
        }
    })
}

/// A scripted coordinator: heartbeats take the next planned answer (then "unchanged" at the last
/// epoch); leaves are acknowledged; commits and fetches succeed.
async fn coordinator(fabric: &Fabric, plan: Plan) -> ScriptedBroker {
    let last_epoch = Rc::new(RefCell::new(0));
    ScriptedBroker::start(
        fabric.host("broker-0"),
        BROKER,
        &[("input", 4)],
        move |_, r, _| {
            Some(match r {
                Request::StreamsGroupHeartbeat(req) if req.member_epoch < 0 => {
                    Response::StreamsGroupHeartbeat(
                        StreamsGroupHeartbeatResponse::default()
                            .with_member_id(req.member_id.clone())
                            .with_member_epoch(req.member_epoch),
                    )
                }
                Request::StreamsGroupHeartbeat(req) => {
                    let next = plan.borrow_mut().pop_front();
                    let a = next.unwrap_or(Answer::Ok(*last_epoch.borrow(), None));
                    if let Answer::Ok(e, _) = &a {
                        *last_epoch.borrow_mut() = *e;
                    }
                    if let Answer::NoResponse = a {
                        return None;
                    }
                    answer(req, a)
                }
                Request::OffsetCommit(_) => Response::OffsetCommit(Default::default()),
                Request::OffsetFetch(_) => Response::OffsetFetch(Default::default()),
                _ => return None,
            })
        },
    )
    .await
}

fn topology() -> Topology {
    Topology::new(vec![Subtopology::new("0", &["input"])])
}

fn heartbeats(broker: &ScriptedBroker) -> Vec<(i64, StreamsGroupHeartbeatRequest)> {
    broker
        .of(Api::StreamsGroupHeartbeat)
        .into_iter()
        .map(|r| match r.request {
            Request::StreamsGroupHeartbeat(h) => (r.at_ms - T0, h),
            _ => unreachable!(),
        })
        .collect()
}

fn start(fabric: &Fabric, config: StreamsConfig, log: &EventLog) -> StreamsProcess {
    let mut rng = ChaCha8Rng::seed_from_u64(17);
    let dir = StateDirectory::with_process_id("00000000-0000-4000-8000-000000000001");
    StreamsProcess::start(
        fabric.host("p0"),
        vec![BROKER.to_string()],
        config,
        dir,
        "p0",
        &mut rng,
        Rc::new(log.clone()),
    )
}

fn plan(list: &[Answer]) -> Plan {
    Rc::new(RefCell::new(list.iter().cloned().collect()))
}

async fn run<F: std::future::Future<Output = ()>>(f: F) {
    LocalSet::new().run_until(f).await
}

#[tokio::test(start_paused = true)]
async fn join_then_acknowledge_sends_full_fields_once_then_nulls() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(&fabric, plan(&[Answer::Ok(3, Some(vec![0, 1]))])).await;
        let log = EventLog::new();
        let mut config = StreamsConfig::new(APP, topology()).with_instance_id("inst");
        config.rack_id = Some("rack-a".into());
        config = config.with_application_server("host-a", 8080);
        let p = start(&fabric, config, &log);
        tokio::time::sleep(Duration::from_millis(2_500)).await;
        let hbs = heartbeats(&broker);
        let (t, join) = &hbs[0];
        assert_eq!(*t, 0);
        assert_eq!(join.member_epoch, 0);
        assert_eq!(join.instance_id.as_deref(), Some("inst-1"));
        assert_eq!(join.rack_id.as_deref(), Some("rack-a"));
        assert_eq!(join.rebalance_timeout_ms, 300_000);
        assert_eq!(
            join.process_id.as_deref(),
            Some("00000000-0000-4000-8000-000000000001")
        );
        assert_eq!(join.user_endpoint.as_ref().unwrap().host.as_str(), "host-a");
        assert_eq!(join.user_endpoint.as_ref().unwrap().port, 8080);
        assert_eq!(join.topology.as_ref().unwrap().subtopologies.len(), 1);
        assert_eq!(join.active_tasks, Some(Vec::new()));
        assert_eq!(join.task_offsets, Some(Vec::new()));
        assert_eq!(join.endpoint_information_epoch, -1);
        // The acknowledgement goes at once and reports the reconciled tasks; only changed
        // fields are set.
        let (t, ack) = &hbs[1];
        assert_eq!(*t, 0);
        assert_eq!(ack.member_epoch, 3);
        assert_eq!(ack.instance_id.as_deref(), Some("inst-1"));
        assert!(ack.topology.is_none() && ack.process_id.is_none() && ack.rack_id.is_none());
        assert_eq!(ack.rebalance_timeout_ms, -1);
        let active = ack.active_tasks.as_ref().unwrap();
        assert_eq!(active[0].subtopology_id.as_str(), "0");
        assert_eq!(active[0].partitions, vec![0, 1]);
        // Later heartbeats every heartbeat interval (1 s), everything unchanged.
        let later: Vec<i64> = hbs[2..].iter().map(|(t, _)| *t).collect();
        assert_eq!(later, vec![1_000, 2_000]);
        assert!(
            hbs[2..]
                .iter()
                .all(|(_, h)| h.active_tasks.is_none() && h.task_offsets.is_none())
        );
        p.stop().await;
        // A static member leaves with -2 (and its instance id).
        let hbs = heartbeats(&broker);
        let (_, leave) = hbs.last().unwrap();
        assert_eq!(leave.member_epoch, -2);
        assert_eq!(leave.instance_id.as_deref(), Some("inst-1"));
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn fenced_member_epoch_drops_tasks_and_rejoins_with_epoch_zero_and_the_same_member_id() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[
                Answer::Ok(5, Some(vec![0, 1])),
                Answer::Ok(5, None),
                Answer::Error(ErrorCode::FencedMemberEpoch),
                Answer::Ok(6, Some(vec![1])),
            ]),
        )
        .await;
        let log = EventLog::new();
        let p = start(&fabric, StreamsConfig::new(APP, topology()), &log);
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        let hbs = heartbeats(&broker);
        let epochs: Vec<(i64, i32)> = hbs.iter().map(|(t, h)| (*t, h.member_epoch)).collect();
        // join, ack, interval heartbeat fenced at 1 s, rejoin at once with epoch 0, ack of 6.
        assert_eq!(
            epochs[..5],
            [(0, 0), (0, 5), (1_000, 5), (1_000, 0), (1_000, 6)]
        );
        let member = p.member_ids()[0].clone();
        assert!(hbs.iter().all(|(_, h)| h.member_id.as_str() == member));
        assert!(hbs[3].1.topology.is_some(), "the rejoin is a full join");
        let events: Vec<EventKind> = log
            .events()
            .into_iter()
            .filter(|e| e.at_ms == T0 + 1_000)
            .map(|e| e.kind)
            .filter(|k| {
                matches!(
                    k,
                    EventKind::Fenced { .. }
                        | EventKind::TasksLost { .. }
                        | EventKind::Joined { .. }
                )
            })
            .collect();
        assert_eq!(
            events,
            vec![
                EventKind::Fenced {
                    error: ErrorCode::FencedMemberEpoch,
                    epoch: 5
                },
                EventKind::TasksLost {
                    active: vec![TaskId::new("0", 0), TaskId::new("0", 1)],
                    standby: vec![],
                    warmup: vec![]
                },
                EventKind::Joined { epoch: 6 },
            ]
        );
        p.stop().await;
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn not_coordinator_finds_the_coordinator_again_and_heartbeats_without_backoff() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[
                Answer::Ok(2, Some(vec![0])),
                Answer::Ok(2, None),
                Answer::Error(ErrorCode::NotCoordinator),
            ]),
        )
        .await;
        let log = EventLog::new();
        let p = start(&fabric, StreamsConfig::new(APP, topology()), &log);
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        let finds: Vec<i64> = broker
            .of(Api::FindCoordinator)
            .iter()
            .map(|r| r.at_ms - T0)
            .collect();
        assert_eq!(finds, vec![0, 1_000]);
        let hbs = heartbeats(&broker);
        let times: Vec<(i64, i32)> = hbs.iter().map(|(t, h)| (*t, h.member_epoch)).collect();
        assert_eq!(times[..4], [(0, 0), (0, 2), (1_000, 2), (1_000, 2)]);
        // The retry after an error resends the full assignment (last-sent fields were reset).
        assert!(hbs[3].1.active_tasks.is_some());
        p.stop().await;
    })
    .await;
}

/// Kafka 4.4.0's `StreamsGroupHeartbeatRequestManager.onFailure` resets the heartbeat state as
/// `onErrorResponse` does: after a heartbeat that got no response, the next one reports the
/// member's owned tasks (and task offsets) again, though nothing changed. The grant that the lost
/// response may have carried is not among them: only a coordinator that sends it again helps
/// (docs/findings.md).
#[tokio::test(start_paused = true)]
async fn a_heartbeat_without_a_response_makes_the_next_one_report_the_owned_tasks_again() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[
                Answer::Ok(2, Some(vec![0])),
                Answer::Ok(2, None),
                Answer::Ok(2, None),
                // The coordinator granted partition 1 here; the response is lost.
                Answer::NoResponse,
            ]),
        )
        .await;
        let log = EventLog::new();
        let p = start(&fabric, StreamsConfig::new(APP, topology()), &log);
        tokio::time::sleep(Duration::from_millis(34_000)).await;
        let hbs = heartbeats(&broker);
        let times: Vec<(i64, i32)> = hbs.iter().map(|(t, h)| (*t, h.member_epoch)).collect();
        // Join, acknowledgement, one interval, the lost one at 2 s; the request times out after
        // request.timeout.ms (30 s), and the member heartbeats again after the retry backoff
        // (`retry.backoff.ms` 100 with jitter, drawn from the seeded generator: 90 ms here).
        assert_eq!(
            times[..5],
            [(0, 0), (0, 2), (1_000, 2), (2_000, 2), (32_090, 2)]
        );
        assert!(hbs[2].1.active_tasks.is_none() && hbs[3].1.active_tasks.is_none());
        let retry = &hbs[4].1;
        let active = retry.active_tasks.as_ref().expect("a full heartbeat");
        assert_eq!(active[0].partitions, vec![0]);
        assert_eq!(retry.standby_tasks, Some(Vec::new()));
        assert_eq!(retry.warmup_tasks, Some(Vec::new()));
        assert!(retry.topology.is_none(), "not a rejoin");
        // The member learned of one assignment only, the join's.
        let received: Vec<i32> = log
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::AssignmentReceived { epoch, .. } => Some(*epoch),
                _ => None,
            })
            .collect();
        assert_eq!(received, vec![2]);
        p.stop().await;
    })
    .await;
}

/// A commit rejected with UNKNOWN_MEMBER_ID migrates the tasks: Kafka Streams drops them and
/// unsubscribes (the member starts leaving), then subscribes again. When the heartbeat in flight
/// meanwhile comes back UNKNOWN_MEMBER_ID too, Kafka 4.4.0's `StreamsMembershipManager.onFenced`
/// finds the member LEAVING, goes UNSUBSCRIBED without sending the leave and completes the leave in
/// progress (`maybeCompleteLeaveInProgress`), so `unsubscribe()` returns and the thread
/// subscribes again. (Swarm seed 204 of swarm-streams, where heartbeats were stalled: the member
/// stayed UNSUBSCRIBED for good.)
#[tokio::test(start_paused = true)]
async fn fenced_while_leaving_after_a_rejected_commit_still_rejoins() {
    run(async {
        let fabric = Fabric::new(T0);
        let last_epoch = Rc::new(RefCell::new(0));
        let answers = plan(&[
            Answer::Ok(2, Some(vec![0])),
            Answer::Ok(2, None),
            Answer::Ok(2, None),
            Answer::Error(ErrorCode::UnknownMemberId),
            // The rejoin (epoch 0, same member id).
            Answer::Ok(4, Some(vec![0])),
        ]);
        let broker = ScriptedBroker::start(
            fabric.host("broker-0"),
            BROKER,
            &[("input", 4)],
            move |_, r, _| {
                Some(match r {
                    Request::StreamsGroupHeartbeat(req) if req.member_epoch < 0 => {
                        Response::StreamsGroupHeartbeat(
                            StreamsGroupHeartbeatResponse::default()
                                .with_member_id(req.member_id.clone())
                                .with_member_epoch(req.member_epoch),
                        )
                    }
                    Request::StreamsGroupHeartbeat(req) => {
                        let a = answers
                            .borrow_mut()
                            .pop_front()
                            .unwrap_or(Answer::Ok(*last_epoch.borrow(), None));
                        if let Answer::Ok(e, _) = &a {
                            *last_epoch.borrow_mut() = *e;
                        }
                        answer(req, a)
                    }
                    Request::OffsetCommit(c) => {
                        let mut resp = protocol::messages::OffsetCommitResponse::default();
                        resp.topics = c
                            .topics
                            .iter()
                            .map(|t| {
                                protocol::messages::offset_commit_response::OffsetCommitResponseTopic::default()
                                    .with_name(t.name.clone())
                                    .with_partitions(
                                        t.partitions
                                            .iter()
                                            .map(|p| {
                                                protocol::messages::offset_commit_response::OffsetCommitResponsePartition::default()
                                                    .with_partition_index(p.partition_index)
                                                    .with_error_code(ErrorCode::UnknownMemberId.code())
                                            })
                                            .collect(),
                                    )
                            })
                            .collect();
                        Response::OffsetCommit(resp)
                    }
                    Request::OffsetFetch(_) => Response::OffsetFetch(Default::default()),
                    _ => return None,
                })
            },
        )
        .await;
        let log = EventLog::new();
        let mut config = StreamsConfig::new(APP, topology());
        config.commit_interval_ms = 2_500;
        config.lost_latency_ms = 0;
        config.records_per_second = 10;
        let p = start(&fabric, config, &log);
        // Heartbeats at 0 (join), 0 (ack), 1 s, 2 s; the one at 2 s is answered only with the
        // commit at 2.5 s, in one write: both UNKNOWN_MEMBER_ID.
        // Heartbeats stall at 2.1 s (the swarm's stall-heartbeats fault), so the member cannot
        // send its leave before the second response is read.
        tokio::time::sleep(Duration::from_millis(1_500)).await;
        broker.hold_responses(Api::StreamsGroupHeartbeat, Api::OffsetCommit);
        tokio::time::sleep(Duration::from_millis(600)).await;
        p.stall_heartbeats(None, true);
        tokio::time::sleep(Duration::from_millis(900)).await;
        p.stall_heartbeats(None, false);
        tokio::time::sleep(Duration::from_millis(500)).await;
        let states: Vec<&str> = log
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::StateChanged { to, .. } if e.at_ms - T0 >= 2_000 => Some(*to),
                _ => None,
            })
            .collect();
        assert!(
            states.starts_with(&["PREPARE_LEAVING", "LEAVING", "UNSUBSCRIBED", "JOINING"]),
            "{states:?}"
        );
        let hbs = heartbeats(&broker);
        let rejoin = hbs
            .iter()
            .find(|(t, h)| *t >= 3_000 && h.member_epoch == 0)
            .expect("the member joins again");
        assert_eq!(rejoin.1.member_id, hbs[0].1.member_id);
        assert!(
            hbs.iter().all(|(_, h)| h.member_epoch != -1),
            "fenced before it was sent: no leave heartbeat: {:?}", hbs.iter().map(|(t, h)| (*t, h.member_epoch)).collect::<Vec<_>>()
        );
        p.stop().await;
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn coordinator_load_in_progress_keeps_the_coordinator_and_backs_off_unless_joining() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[
                // A joining member retries at once (Kafka: JOINING heartbeats skip the backoff).
                Answer::Error(ErrorCode::CoordinatorLoadInProgress),
                Answer::Error(ErrorCode::CoordinatorLoadInProgress),
                Answer::Ok(2, Some(vec![0])),
                Answer::Ok(2, None),
                // A stable member waits for retry.backoff.ms (100, then 200, +-20%).
                Answer::Error(ErrorCode::CoordinatorLoadInProgress),
                Answer::Error(ErrorCode::CoordinatorLoadInProgress),
            ]),
        )
        .await;
        let log = EventLog::new();
        let p = start(&fabric, StreamsConfig::new(APP, topology()), &log);
        tokio::time::sleep(Duration::from_millis(1_600)).await;
        assert_eq!(broker.of(Api::FindCoordinator).len(), 1);
        let t: Vec<(i64, i32)> = heartbeats(&broker)
            .iter()
            .map(|(t, h)| (*t, h.member_epoch))
            .collect();
        assert_eq!(t[..5], [(0, 0), (0, 0), (0, 0), (0, 2), (1_000, 2)]);
        let retry1 = t[5].0 - 1_000;
        let retry2 = t[6].0 - t[5].0;
        assert!((80..=120).contains(&retry1), "{t:?}");
        assert!((160..=240).contains(&retry2), "{t:?}");
        assert!(
            log.events()
                .iter()
                .any(|e| e.kind == EventKind::Joined { epoch: 2 })
        );
        p.stop().await;
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn unreleased_instance_id_is_fatal_like_kafka_streams_or_retried_when_configured() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[Answer::Error(ErrorCode::UnreleasedInstanceId)]),
        )
        .await;
        let log = EventLog::new();
        let p = start(
            &fabric,
            StreamsConfig::new(APP, topology()).with_instance_id("inst"),
            &log,
        );
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert!(p.is_finished());
        let fatal: Vec<Option<ErrorCode>> = log
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Fatal { error, .. } => Some(*error),
                _ => None,
            })
            .collect();
        assert_eq!(fatal, vec![Some(ErrorCode::UnreleasedInstanceId)]);
        // A fatal member sends no leave heartbeat.
        assert_eq!(heartbeats(&broker).len(), 1);
        assert!(
            log.events()
                .iter()
                .any(|e| e.kind == EventKind::Stopped { graceful: false })
        );
    })
    .await;
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[
                Answer::Error(ErrorCode::UnreleasedInstanceId),
                Answer::Ok(4, Some(vec![0])),
            ]),
        )
        .await;
        let log = EventLog::new();
        let mut config = StreamsConfig::new(APP, topology()).with_instance_id("inst");
        config.unreleased_instance_id = UnreleasedInstanceIdPolicy::RetryAfterBackoff;
        let p = start(&fabric, config, &log);
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert!(!p.is_finished());
        let t: Vec<(i64, i32)> = heartbeats(&broker)
            .iter()
            .map(|(t, h)| (*t, h.member_epoch))
            .collect();
        assert_eq!(t[0], (0, 0));
        assert_eq!(t[1].1, 0, "the retry is a join again");
        assert!((80..=120).contains(&t[1].0), "{t:?}");
        p.stop().await;
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn group_max_size_reached_is_fatal_and_shuts_the_whole_process_down() {
    run(async {
        let fabric = Fabric::new(T0);
        let broker = coordinator(
            &fabric,
            plan(&[
                Answer::Ok(2, Some(vec![0, 1])),
                Answer::Error(ErrorCode::GroupMaxSizeReached),
            ]),
        )
        .await;
        let log = EventLog::new();
        let p = start(
            &fabric,
            StreamsConfig::new(APP, topology()).with_threads(2),
            &log,
        );
        tokio::time::sleep(Duration::from_secs(3)).await;
        assert!(p.is_finished());
        let fatal: Vec<(String, Option<ErrorCode>)> = log
            .events()
            .iter()
            .filter_map(|e| match &e.kind {
                EventKind::Fatal { error, .. } => Some((e.client.name.clone(), *error)),
                _ => None,
            })
            .collect();
        assert_eq!(
            fatal,
            vec![(
                "p0/StreamThread-2".to_string(),
                Some(ErrorCode::GroupMaxSizeReached)
            )]
        );
        // The healthy thread closed cleanly: a dynamic member leaves with -1.
        let leaves: Vec<(String, i32)> = log
            .events()
            .iter()
            .filter_map(|e| match e.kind {
                EventKind::LeaveSent { epoch } => Some((e.client.name.clone(), epoch)),
                _ => None,
            })
            .collect();
        assert_eq!(leaves, vec![("p0/StreamThread-1".to_string(), -1)]);
        drop(broker);
    })
    .await;
}

//! The connection layer: request timeouts close the connection, reconnects back off, ApiVersions
//! negotiates versions (with the KIP-511 fallback).

mod support;

use std::rc::Rc;
use std::time::Duration;

use members::conn::{ConnectionConfig, KafkaClient};
use members::observer::{EventKind, EventLog, RequestFailure};
use protocol::messages::{
    DescribeGroupsRequest, DescribeGroupsResponse, HeartbeatRequest, HeartbeatResponse,
};
use protocol::{Api, Request, Response};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use support::scripted::ScriptedBroker;
use support::{BROKER, Fabric};
use tokio::task::LocalSet;

const T0: i64 = 1_700_000_000_000;

fn heartbeat() -> Request {
    Request::Heartbeat(HeartbeatRequest::default())
}

fn describe() -> Request {
    Request::DescribeGroups(DescribeGroupsRequest::default())
}

#[tokio::test(start_paused = true)]
async fn a_timed_out_request_closes_the_connection_and_the_next_request_reconnects() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(T0);
            // Nothing is answered on the first connection (a stalled TCP connection).
            let broker =
                ScriptedBroker::start(fabric.host("broker-0"), BROKER, &[], |conn, r, _| {
                    (conn > 1).then(|| match r {
                        Request::Heartbeat(_) => Response::Heartbeat(HeartbeatResponse::default()),
                        _ => Response::DescribeGroups(DescribeGroupsResponse::default()),
                    })
                })
                .await;
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let client = KafkaClient::standalone(
                fabric.host("client"),
                ConnectionConfig::new("c"),
                vec![BROKER.to_string()],
                "client",
                &mut rng,
                Rc::new(log.clone()),
            );
            let c1 = client.clone();
            let first = tokio::task::spawn_local(async move { c1.send(BROKER, heartbeat()).await });
            tokio::time::sleep(Duration::from_secs(1)).await;
            let c2 = client.clone();
            let second = tokio::task::spawn_local(async move { c2.send(BROKER, describe()).await });
            let first = first.await.unwrap();
            let timed_out_at = fabric.now_ms();
            assert_eq!(first, Err(RequestFailure::TimedOut));
            assert_eq!(
                timed_out_at,
                T0 + 30_000,
                "request.timeout.ms after sending"
            );
            // The other request in flight on that connection fails with it.
            assert_eq!(
                second.await.unwrap(),
                Err(RequestFailure::Disconnected("request timed out".into()))
            );
            // The next request opens a new connection, after the reconnect backoff (50 ms +-20%).
            let third = client.send(BROKER, heartbeat()).await;
            assert!(matches!(third, Ok(Response::Heartbeat(_))), "{third:?}");
            let handshakes = broker.of(Api::ApiVersions);
            assert_eq!(handshakes.len(), 2);
            assert_eq!(handshakes[0].connection, 1);
            assert_eq!(handshakes[1].connection, 2);
            let wait = handshakes[1].at_ms - timed_out_at;
            assert!((40..60).contains(&wait), "reconnect backoff {wait} ms");
            let disconnects: Vec<String> = log
                .events()
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::Disconnected { reason, .. } => Some(reason.clone()),
                    _ => None,
                })
                .collect();
            assert_eq!(disconnects, vec!["request timed out"]);
            // Correlation ids count up per client: ApiVersions 0, Heartbeat 1, DescribeGroups 2,
            // ApiVersions 3, Heartbeat 4.
            let sent: Vec<(Api, i32)> = log
                .events()
                .iter()
                .filter_map(|e| match &e.kind {
                    EventKind::RequestSent {
                        api,
                        correlation_id,
                        ..
                    } => Some((*api, *correlation_id)),
                    _ => None,
                })
                .collect();
            assert_eq!(
                sent,
                vec![
                    (Api::ApiVersions, 0),
                    (Api::Heartbeat, 1),
                    (Api::DescribeGroups, 2),
                    (Api::ApiVersions, 3),
                    (Api::Heartbeat, 4)
                ]
            );
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn refused_connections_back_off_exponentially_up_to_the_maximum() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(T0);
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(2);
            let client = KafkaClient::standalone(
                fabric.host("client"),
                ConnectionConfig::new("c"),
                vec![BROKER.to_string()],
                "client",
                &mut rng,
                Rc::new(log.clone()),
            );
            for _ in 0..7 {
                let r = client.send(BROKER, heartbeat()).await;
                assert!(matches!(r, Err(RequestFailure::Disconnected(_))), "{r:?}");
            }
            let attempts: Vec<i64> = log
                .events()
                .iter()
                .filter(|e| matches!(e.kind, EventKind::ConnectFailed { .. }))
                .map(|e| e.at_ms)
                .collect();
            assert_eq!(attempts.len(), 7);
            assert_eq!(attempts[0], T0);
            let gaps: Vec<i64> = attempts.windows(2).map(|w| w[1] - w[0]).collect();
            // 50 ms doubling, +-20% jitter, capped at 1000 ms.
            let bounds = [
                (40, 60),
                (80, 120),
                (160, 240),
                (320, 480),
                (640, 960),
                (800, 1000),
            ];
            for (gap, (lo, hi)) in gaps.iter().zip(bounds) {
                assert!((lo..=hi).contains(gap), "gaps {gaps:?}");
            }
        })
        .await;
}

#[tokio::test(start_paused = true)]
async fn versions_are_negotiated_with_the_kip_511_fallback() {
    LocalSet::new()
        .run_until(async {
            let fabric = Fabric::new(T0);
            let broker = ScriptedBroker::start(fabric.host("broker-0"), BROKER, &[], |_, r, _| {
                Some(match r {
                    Request::Heartbeat(_) => Response::Heartbeat(HeartbeatResponse::default()),
                    _ => Response::DescribeGroups(DescribeGroupsResponse::default()),
                })
            })
            .await;
            broker.set_max_api_versions_version(3);
            broker.set_api_versions(vec![
                (Api::ApiVersions, 0, 3),
                (Api::Heartbeat, 0, 4),
                (Api::DescribeGroups, 0, 2),
            ]);
            let log = EventLog::new();
            let mut rng = ChaCha8Rng::seed_from_u64(3);
            let mut config = ConnectionConfig::new("c");
            config.version_caps.insert(Api::Heartbeat, 3);
            let client = KafkaClient::standalone(
                fabric.host("client"),
                config,
                vec![BROKER.to_string()],
                "client",
                &mut rng,
                Rc::new(log.clone()),
            );
            assert!(client.send(BROKER, heartbeat()).await.is_ok());
            assert!(client.send(BROKER, describe()).await.is_ok());
            let unsupported = client
                .send(BROKER, Request::StreamsGroupHeartbeat(Default::default()))
                .await;
            assert_eq!(unsupported, Err(RequestFailure::UnsupportedVersion));
            let versions: Vec<(Api, i16)> = broker
                .received()
                .iter()
                .map(|r| (r.request.api(), r.version))
                .collect();
            assert_eq!(
                versions,
                vec![
                    (Api::ApiVersions, 5),
                    (Api::ApiVersions, 3),
                    (Api::Heartbeat, 3),
                    (Api::DescribeGroups, 2)
                ]
            );
        })
        .await;
}

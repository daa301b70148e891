//! What the validation pre-pass costs: decoding request bodies with `Request::decode` (schema
//! walk, then the typed decoder) against the typed decoder alone. `Request::decode` and
//! `schema::validate` remember the bodies they validated, so decoding the same bytes again, as
//! these loops do, skips the walk; "schema pre-pass, walked" is the walk itself.
//!
//!     cargo bench -p protocol --bench decode

use bytes::{Bytes, BytesMut};
use criterion::{Criterion, criterion_group, criterion_main};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};
use protocol::messages::streams_group_heartbeat_request as hb;
use protocol::messages::*;
use protocol::schema::{self, Direction};
use protocol::{Api, Request};
use std::hint::black_box;

fn s(v: &'static str) -> StrBytes {
    StrBytes::from_static_str(v)
}

/// A joining streams member with a two-subtopology topology and a few owned tasks.
fn heartbeat() -> StreamsGroupHeartbeatRequest {
    let sub = |id: &'static str| {
        hb::Subtopology::default()
            .with_subtopology_id(s(id))
            .with_source_topics(vec![TopicName(s("orders")), TopicName(s("payments"))])
            .with_state_changelog_topics(vec![
                hb::TopicInfo::default().with_name(TopicName(s("app-store-changelog"))),
            ])
            .with_repartition_sink_topics(vec![TopicName(s("app-repartition"))])
    };
    StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s("app")))
        .with_member_id(s("4b1c1b8e-3f0e-4f7a-9a55-0c3b3f6e2d11"))
        .with_rebalance_timeout_ms(300_000)
        .with_topology(Some(
            hb::Topology::default()
                .with_epoch(1)
                .with_subtopologies(vec![sub("0"), sub("1")]),
        ))
        .with_active_tasks(Some(vec![
            hb::TaskIds::default()
                .with_subtopology_id(s("0"))
                .with_partitions((0..8).collect()),
        ]))
        .with_standby_tasks(Some(vec![]))
        .with_warmup_tasks(Some(vec![]))
        .with_process_id(Some(s("a3f9c2d0-0000-4000-8000-000000000001")))
}

fn bench(c: &mut Criterion) {
    let mut buf = BytesMut::new();
    heartbeat().encode(&mut buf, 1).unwrap();
    let body = buf.freeze();
    let schema = schema::message(Api::StreamsGroupHeartbeat, Direction::Request);
    let mut g = c.benchmark_group(format!(
        "StreamsGroupHeartbeatRequest v1 ({} bytes)",
        body.len()
    ));
    g.bench_function("typed decode only", |b| {
        b.iter(|| StreamsGroupHeartbeatRequest::decode(&mut black_box(body.clone()), 1).unwrap())
    });
    g.bench_function("schema pre-pass, walked", |b| {
        b.iter(|| schema::validate_walk(schema, 1, black_box(&body)).unwrap())
    });
    g.bench_function("schema pre-pass, remembered", |b| {
        b.iter(|| schema::validate(schema, 1, black_box(&body)).unwrap())
    });
    g.bench_function("Request::decode (pre-pass remembered + typed)", |b| {
        b.iter(|| Request::decode(88, 1, &mut black_box(body.clone())).unwrap())
    });
    g.finish();

    // A kafka-protocol message for comparison: JoinGroup v9 with one protocol.
    let join = JoinGroupRequest::default()
        .with_group_id(GroupId(s("app")))
        .with_session_timeout_ms(45_000)
        .with_rebalance_timeout_ms(300_000)
        .with_member_id(s("consumer-1-4b1c1b8e"))
        .with_protocol_type(s("consumer"))
        .with_protocols(vec![
            join_group_request::JoinGroupRequestProtocol::default()
                .with_name(s("range"))
                .with_metadata(Bytes::from_static(&[0; 64])),
        ]);
    let mut buf = BytesMut::new();
    join.encode(&mut buf, 9).unwrap();
    let body = buf.freeze();
    let mut g = c.benchmark_group(format!("JoinGroupRequest v9 ({} bytes)", body.len()));
    g.bench_function("typed decode only", |b| {
        b.iter(|| JoinGroupRequest::decode(&mut black_box(body.clone()), 9).unwrap())
    });
    g.bench_function("Request::decode (pre-pass remembered + typed)", |b| {
        b.iter(|| Request::decode(11, 9, &mut black_box(body.clone())).unwrap())
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().warm_up_time(std::time::Duration::from_secs(1)).measurement_time(std::time::Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);

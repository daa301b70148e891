//! Steady-state StreamsGroupHeartbeat throughput on a stable 1,000-member group: every member sends
//! its current epoch with all optional fields null, as a Kafka Streams client does between
//! rebalances. Run with `cargo bench -p coordinator --bench heartbeat`.

use std::hint::black_box;

use coordinator::records::Record;
use coordinator::records::streams::{
    KeyValue, StreamsGroupKey, StreamsGroupMetadataValue, StreamsGroupTargetAssignmentMemberValue,
    StreamsGroupTargetAssignmentMetadataValue, StreamsGroupTopologyValue, StreamsMemberKey,
    Subtopology, TaskIds,
};
use coordinator::streams::member::StreamsGroupMember;
use coordinator::streams::tasks::TasksWithEpochs;
use coordinator::topics::{TopicMetadata, TopicsImage};
use coordinator::{RequestContext, RequestToken, Shard};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use protocol::Request;
use protocol::messages::{GroupId, StrBytes, StreamsGroupHeartbeatRequest};

const MEMBERS: usize = 1000;
const GROUP: &str = "bench-group";

fn stable_group() -> (Shard, Vec<Request>) {
    let mut shard = Shard::default();
    shard
        .config
        .set("group.streams.initial.rebalance.delay.ms", "0")
        .unwrap();
    // Ten subtopologies over ten topics of 100 partitions: 1,000 tasks, one per member.
    let topics: Vec<String> = (0..10).map(|i| format!("topic-{i}")).collect();
    shard.set_topics(TopicsImage::from_topics(
        topics.iter().map(|t| TopicMetadata::new(t.as_str(), 100)),
    ));
    let gkey = StreamsGroupKey {
        group_id: GROUP.into(),
    };
    let mut records = vec![Record::StreamsGroupTopology {
        key: gkey.clone(),
        value: Some(StreamsGroupTopologyValue {
            epoch: 0,
            subtopologies: (0..10)
                .map(|i| Subtopology {
                    subtopology_id: format!("{i}"),
                    source_topics: vec![topics[i].clone()],
                    source_topic_regex: vec![],
                    state_changelog_topics: vec![],
                    repartition_sink_topics: vec![],
                    repartition_source_topics: vec![],
                    copartition_groups: vec![],
                })
                .collect(),
        }),
    }];
    let hash = coordinator::streams::hash::group_hash(topics.iter(), &shard.topics);
    records.push(Record::StreamsGroupMetadata {
        key: gkey.clone(),
        value: Some(StreamsGroupMetadataValue {
            epoch: 10,
            metadata_hash: hash,
            validated_topology_epoch: 0,
            last_assignment_configs: Some(vec![KeyValue {
                key: "num.standby.replicas".into(),
                value: "0".into(),
            }]),
            stored_description_topology_epoch: -1,
            failed_description_topology_epoch: -1,
        }),
    });
    let mut requests = Vec::new();
    for i in 0..MEMBERS {
        let id = format!("member-{i:04}");
        let sub = format!("{}", i / 100);
        let partition = (i % 100) as i32;
        let mut m = StreamsGroupMember::with_defaults(&id);
        m.member_epoch = 10;
        m.previous_member_epoch = 9;
        m.client_id = "client".into();
        m.client_host = "/127.0.0.1".into();
        m.rebalance_timeout_ms = 30_000;
        m.topology_epoch = 0;
        m.process_id = format!("process-{}", i / 4);
        m.assigned = TasksWithEpochs {
            active: [(sub.clone(), [(partition, 10)].into_iter().collect())]
                .into_iter()
                .collect(),
            ..Default::default()
        };
        let mkey = StreamsMemberKey {
            group_id: GROUP.into(),
            member_id: id.clone(),
        };
        records.push(Record::StreamsGroupMemberMetadata {
            key: mkey.clone(),
            value: Some(m.metadata_value()),
        });
        records.push(Record::StreamsGroupTargetAssignmentMember {
            key: mkey.clone(),
            value: Some(StreamsGroupTargetAssignmentMemberValue {
                active_tasks: vec![TaskIds {
                    subtopology_id: sub,
                    partitions: vec![partition],
                    assignment_epochs: None,
                }],
                standby_tasks: vec![],
                warmup_tasks: vec![],
            }),
        });
        records.push(Record::StreamsGroupCurrentMemberAssignment {
            key: mkey,
            value: Some(m.assignment_value()),
        });
        requests.push(Request::StreamsGroupHeartbeat(
            StreamsGroupHeartbeatRequest::default()
                .with_group_id(GroupId(StrBytes::from_string(GROUP.into())))
                .with_member_id(StrBytes::from_string(id))
                .with_member_epoch(10),
        ));
    }
    records.push(Record::StreamsGroupTargetAssignmentMetadata {
        key: gkey,
        value: Some(StreamsGroupTargetAssignmentMetadataValue {
            assignment_epoch: 10,
            assignment_timestamp: 1,
        }),
    });
    shard.replay_all(records.iter());
    (shard, requests)
}

fn bench(c: &mut Criterion) {
    let (mut shard, requests) = stable_group();
    let ctx = RequestContext::new("client", "/127.0.0.1", 1);
    let mut now = 1_000i64;
    // The first round configures the group's soft state; afterwards the group is stable.
    for r in &requests {
        let o = shard.handle(RequestToken(0), &ctx, r, now).unwrap();
        assert!(o.records.is_empty(), "the group must be stable");
    }
    assert_eq!(shard.streams.group(GROUP).unwrap().state().name(), "Stable");
    let mut group = c.benchmark_group("streams_heartbeat");
    group.throughput(Throughput::Elements(MEMBERS as u64));
    group.bench_function("stable_1000_members_round", |b| {
        b.iter(|| {
            now += 1;
            for r in &requests {
                let o = shard.handle(RequestToken(1), &ctx, r, now).unwrap();
                black_box(o);
            }
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);

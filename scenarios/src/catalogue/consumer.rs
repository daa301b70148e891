//! Consumer groups on the consumer rebalance protocol (KIP-848): the simulated clients are Kafka's
//! `AsyncKafkaConsumer` (`members::consumer::AsyncConsumer`) and the coordinator assigns
//! (uniform by default). Cold start, scale out and in, static members bouncing within and past
//! their session, a zombie, lost heartbeat responses, a coordinator fail-over mid reconciliation,
//! classic and consumer groups side by side.
//!
//! Every group here is `payments` on `orders` (6 partitions), one consumer per process, 10 s
//! sessions, 1 s heartbeats, 20 s rebalance timeout, 2 s auto-commit.

use std::collections::BTreeSet;

use coordinator::Record;
use members::observer::EventKind as ClientKind;
use sim::event::SimEventKind;
use sim::spec::{ClusterSpec, ConsumerGroupSpec};

use super::check::{View, ensure, host};
use super::{Expect, Faults, Scenario};

const GROUP: &str = "payments";

fn h(index: usize) -> String {
    host(GROUP, index)
}

fn group(processes: usize) -> ConsumerGroupSpec {
    ConsumerGroupSpec::new(GROUP, &["orders"], processes, 1)
}

fn cluster(g: ConsumerGroupSpec) -> ClusterSpec {
    ClusterSpec::default()
        .with_topic("orders", 6)
        .with_consumer(g)
}

pub fn scenarios() -> Vec<Scenario> {
    vec![Scenario {
        name: "consumer-cold-start",
        description: "3 consumer-protocol consumers start together: each joins with epoch 0 and \
                      a member id it made itself, reconciles the uniform assignor's target \
                      (2 partitions each) and acknowledges; the group settles STABLE at one \
                      epoch",
        default_seed: 1,
        cluster: || cluster(group(3)),
        faults: Faults::None,
        expect: Expect::default(),
        check: cold_start,
    }]
}

/// Every committed epoch of a consumer group (time, epoch), consecutive duplicates dropped.
pub fn consumer_epochs(v: &View, group: &str) -> Vec<(i64, i32)> {
    let mut out: Vec<(i64, i32)> = Vec::new();
    for e in v.log() {
        if let SimEventKind::Record {
            record:
                Record::ConsumerGroupMetadata {
                    key,
                    value: Some(value),
                },
            ..
        } = &e.kind
            && key.group_id == group
            && out.last().is_none_or(|(_, last)| *last != value.epoch)
        {
            out.push((e.at_ms, value.epoch));
        }
    }
    out
}

/// The final group: `members` members, each owning `per_member` partitions, all 6 owned.
fn settled(v: &View, members: usize, per_member: usize) -> Result<i32, String> {
    let g = v.group(GROUP)?;
    ensure(g.kind == "consumer", || format!("group type {}", g.kind))?;
    ensure(g.members.len() == members, || {
        format!("{} members, {members} expected", g.members.len())
    })?;
    let mut all = BTreeSet::new();
    for m in &g.members {
        ensure(m.epoch == g.epoch, || {
            format!(
                "member {} at epoch {}, group epoch {}",
                m.member_id, m.epoch, g.epoch
            )
        })?;
        ensure(m.partitions.len() == per_member, || {
            format!("member {} owns {:?}", m.member_id, m.partitions)
        })?;
        all.extend(m.partitions.iter().cloned());
    }
    ensure(all.len() == 6, || format!("partitions owned: {all:?}"))?;
    Ok(g.epoch)
}

fn cold_start(v: &View) -> Result<(), String> {
    settled(v, 3, 2)?;
    for i in 0..3 {
        let joins: Vec<i32> = v
            .client_events(&h(i))
            .filter_map(|(_, _, k)| match k {
                ClientKind::Joined { epoch } => Some(*epoch),
                _ => None,
            })
            .collect();
        ensure(joins.len() == 1, || format!("{} joined {joins:?}", h(i)))?;
    }
    ensure(v.fencings("").is_empty(), || {
        format!("fencings: {:?}", v.fencings(""))
    })?;
    ensure(!v.commits_accepted(&h(0)).is_empty(), || {
        format!("{} never committed", h(0))
    })
}

//! The broker's metadata follower: fetches the controller's metadata log in order, applies it to
//! the broker's image, and publishes the changes (replica roles, coordinator elections and
//! resignations, the shards' view of topics). The offset of the last applied record is what the
//! broker reports as CurrentMetadataOffset in its heartbeats.
//!
//! Like Kafka's `MetadataLoader` (`stillNeedToCatchUp`), a broker publishes nothing until it has
//! caught up with the log once: while a (re)started broker fetches the log from the start in
//! chunks, the records it has are an old state of the cluster, and publishing them would make it
//! act on stale leadership (a broker that led a partition long ago, alone in its ISR then, would
//! become its leader again and commit its own divergent records). The fetched records wait in
//! `Core::unpublished` and are applied and published together once the fetch reaches the
//! controller's end offset; until then the image, and the offset the heartbeats report, stay
//! where they were.
//!
//! Also here: the task that asks the controller to create topics (`__consumer_offsets` on the first
//! FindCoordinator, topics auto-created by Metadata, a streams group's internal topics).

use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;
use std::time::Duration;

use protocol::messages::create_topics_request::CreatableTopic;
use protocol::messages::{CreateTopicsRequest, StrBytes, TopicName};
use protocol::{ErrorCode, Request, Response};

use super::node::{Core, Node};
use super::runtime::topics_image;
use crate::controller::GROUP_METADATA_TOPIC;
use crate::controller::image::{MetadataImage, PartitionRegistration};
use crate::events::EventKind;
use crate::net::Net;
use crate::rpc::{METADATA_FETCH, MetadataFetchRequest, MetadataFetchResponse, OffsetRecord};

/// Records fetched per request at most.
const MAX_RECORDS_PER_FETCH: usize = 10_000;
/// Wait after a failed metadata fetch.
const METADATA_RETRY_MS: u64 = 500;

pub(crate) async fn run<N: Net>(node: Rc<Node<N>>) {
    loop {
        let fetch_offset = {
            let core = node.core.borrow();
            if core.stopped {
                return;
            }
            core.unpublished
                .as_ref()
                .and_then(|b| b.last())
                .map_or(core.image.last_offset, |r| r.offset)
                + 1
        };
        let request = MetadataFetchRequest {
            cluster_id: node.config.cluster_id.clone(),
            broker_id: node.id(),
            fetch_offset,
            max_wait_ms: node.config.metadata_fetch_wait_ms,
            max_records: MAX_RECORDS_PER_FETCH,
        };
        let timeout = node.config.metadata_fetch_wait_ms.max(0) as u64
            + node.config.controller_rpc_timeout_ms;
        let result: Result<MetadataFetchResponse, _> = node
            .metadata_rpc
            .call_internal(METADATA_FETCH, &request, timeout)
            .await;
        match result {
            Ok(r) if r.error_code == 0 => {
                if !r.records.is_empty() {
                    receive_records(&node, r.records, r.end_offset);
                }
            }
            Ok(r) if r.error_code == ErrorCode::OffsetOutOfRange.code() => {
                // The controller's log is shorter than ours: it lost its log. Start over.
                tracing::warn!(
                    broker = node.id(),
                    fetch_offset,
                    end = r.end_offset,
                    "metadata log is behind this broker; reloading it"
                );
                let mut core = node.core.borrow_mut();
                core.image.reset();
                core.unpublished = Some(Vec::new());
                drop(core);
            }
            Ok(r) => {
                tracing::warn!(
                    broker = node.id(),
                    error = r.error_code,
                    "metadata fetch refused"
                );
                tokio::time::sleep(Duration::from_millis(METADATA_RETRY_MS)).await;
            }
            Err(e) => {
                tracing::debug!(broker = node.id(), error = %e, "metadata fetch failed");
                tokio::time::sleep(Duration::from_millis(METADATA_RETRY_MS)).await;
            }
        }
    }
}

type PartitionsView = BTreeMap<i32, PartitionRegistration>;

fn offsets_partitions(image: &MetadataImage) -> PartitionsView {
    image
        .topic(GROUP_METADATA_TOPIC)
        .map(|t| t.partitions.clone())
        .unwrap_or_default()
}

fn topic_shape(image: &MetadataImage) -> BTreeMap<String, usize> {
    image
        .topics
        .values()
        .map(|t| (t.name.clone(), t.partitions.len()))
        .collect()
}

/// Takes fetched records (`end_offset`: the controller's next write offset): buffered while the
/// initial catch-up lasts, applied and published once it is over.
fn receive_records<N: Net>(node: &Rc<Node<N>>, mut records: Vec<OffsetRecord>, end_offset: i64) {
    let mut core = node.core.borrow_mut();
    let core = &mut *core;
    if let Some(buffer) = core.unpublished.as_mut() {
        buffer.append(&mut records);
        let fetched = buffer.last().map_or(-1, |r| r.offset);
        // Kafka's condition: still catching up while highWaterMark - 1 > the last loaded offset.
        if end_offset - 1 > fetched {
            tracing::debug!(
                broker = node.id(),
                fetched,
                end_offset,
                "metadata still catching up; nothing published"
            );
            return;
        }
        records = core.unpublished.take().unwrap_or_default();
    }
    apply_records(node, core, records);
}

fn apply_records<N: Net>(node: &Rc<Node<N>>, core: &mut Core, records: Vec<OffsetRecord>) {
    let before = offsets_partitions(&core.image);
    let shape_before = topic_shape(&core.image);
    let brokers_before = core.image.brokers.clone();
    for r in records {
        if r.offset != core.image.last_offset + 1 {
            tracing::warn!(
                expected = core.image.last_offset + 1,
                got = r.offset,
                "metadata records out of order"
            );
            break;
        }
        if let Err(e) = core.image.apply(r.offset, &r.record) {
            tracing::warn!(error = %e, "cannot apply a metadata record");
            core.image.skip_to(r.offset);
        }
    }
    let after = offsets_partitions(&core.image);
    let mut changed: BTreeSet<i32> = BTreeSet::new();
    for (p, reg) in &after {
        if before.get(p) != Some(reg) {
            changed.insert(*p);
        }
    }
    for p in before.keys() {
        if !after.contains_key(p) {
            changed.insert(*p);
        }
    }
    // A leader's ISR eligibility depends on broker registrations too.
    let brokers_changed = core.image.brokers != brokers_before;
    for p in &changed {
        node.apply_partition_change(core, *p);
    }
    if brokers_changed {
        let led: Vec<i32> = core
            .replicas
            .iter()
            .filter(|(_, s)| s.leading.is_some())
            .map(|(p, _)| *p)
            .collect();
        for p in led {
            node.maybe_advance_high_watermark(core, p);
        }
    }
    if topic_shape(&core.image) != shape_before {
        for (p, outcome) in refresh_shard_topics(core) {
            node.commit_outcome(core, p, outcome, false);
        }
        let created: Vec<String> = core
            .creating
            .iter()
            .filter(|t| core.image.topic(t).is_some())
            .cloned()
            .collect();
        for t in created {
            core.creating.remove(&t);
        }
    }
    let offset = core.image.last_offset;
    tracing::debug!(broker = node.id(), offset, "metadata applied");
    node.emit(EventKind::MetadataApplied { offset });
    node.metadata_applied.notify_waiters();
}

/// Gives every active shard the current topics; returns the offset tombstones of deleted topics to
/// append, per partition.
pub(crate) fn refresh_shard_topics(core: &mut Core) -> Vec<(i32, crate::outcome::Outcome)> {
    let topics = topics_image(&core.image);
    core.runtime.set_topics(&topics)
}

/// Sends queued topic creations to the controller (Kafka's `AutoTopicCreationManager`).
pub(crate) async fn run_topic_creation<N: Net>(node: Rc<Node<N>>) {
    loop {
        let next = node.topic_creation_queue.borrow_mut().pop_front();
        let Some((name, partitions, rf)) = next else {
            node.topic_creation_wakeup.notified().await;
            if node.core.borrow().stopped {
                return;
            }
            continue;
        };
        let request = CreateTopicsRequest::default()
            .with_topics(vec![
                CreatableTopic::default()
                    .with_name(TopicName(StrBytes::from_string(name.clone())))
                    .with_num_partitions(partitions)
                    .with_replication_factor(rf),
            ])
            .with_timeout_ms(node.config.controller_rpc_timeout_ms as i32);
        let result = node
            .forward_rpc
            .call(
                Request::CreateTopics(request),
                7,
                node.config.controller_rpc_timeout_ms,
            )
            .await;
        match result {
            Ok(Response::CreateTopics(r)) => {
                for t in r.topics {
                    if t.error_code != 0 {
                        tracing::info!(
                            topic = t.name.as_str(),
                            error = t.error_code,
                            message = ?t.error_message.as_ref().map(|m| m.to_string()),
                            "topic creation refused"
                        );
                    } else {
                        tracing::info!(topic = t.name.as_str(), "topic created");
                    }
                }
            }
            Ok(_) => {}
            Err(e) => tracing::info!(topic = %name, error = %e, "topic creation failed"),
        }
        // Allow a later request to try again (the metadata shows whether it worked).
        node.core.borrow_mut().creating.remove(&name);
    }
}

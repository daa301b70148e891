//! The asynchronous resolution of a consumer group's regular expressions (Kafka 4.4.0's
//! `maybeUpdateRegularExpressions` schedules it on the shard's `CoordinatorExecutor` under the key
//! `<groupId>-regex`; `TopicRegexResolver.resolveRegularExpressions` runs it;
//! `handleRegularExpressionsResult` writes its outcome).
//!
//! When does the result land? Kafka runs the resolution on an executor thread and then its result as
//! a write operation of the shard, some time after the heartbeat that scheduled it. regroup runs both
//! right after that heartbeat's own write, before anything else reaches the shard
//! ([`crate::shard::Shard::handle`]): the result is applied at a point every run agrees on, and it is
//! the point the differential oracle reaches too (its executor and its event processor run inline:
//! the task runs while the heartbeat runs and its write operation is queued behind the heartbeat's,
//! docs/oracle.md). The heartbeat's records and the refresh's are then one step's records, in that
//! order. Consequence: a refresh is never still pending when the next heartbeat arrives, so
//! `executor.isScheduled(key)` is checked but never true (docs/divergences.md).

use std::collections::BTreeMap;

use crate::consumer::group::{ConsumerGroup, ResolvedRegex, change_regex_count};
use crate::consumer::records::{group_epoch_record, regex_record};
use crate::consumer::topic_regex::TopicRegex;
use crate::java::JavaHashMapOrder;
use crate::records::Record;
use crate::streams::hash::{TopicHashCache, group_hash_cached};
use crate::topics::TopicsImage;

/// Kafka's `REGEX_BATCH_REFRESH_MIN_INTERVAL_MS`: no refresh sooner than this after the last one.
pub const REGEX_BATCH_REFRESH_MIN_INTERVAL_MS: i64 = 10_000;

/// The refresh interval Kafka sets the metadata deadline to after a bump (`Integer.MAX_VALUE` ms).
const METADATA_REFRESH_INTERVAL_MS: i64 = i32::MAX as i64;

/// One scheduled resolution (the executor task keyed `<groupId>-regex`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RegexRefresh {
    pub group_id: String,
    /// The member whose heartbeat scheduled it (Kafka logs it; nothing else reads it).
    pub member_id: String,
    /// The regexes to resolve, in the iteration order of the `keySet()` Kafka hands the task.
    pub regexes: Vec<String>,
}

impl RegexRefresh {
    /// The executor key (`groupId + "-regex"`).
    pub fn key(&self) -> String {
        format!("{}-regex", self.group_id)
    }
}

/// The subscribed regexes with a member's change applied, as `maybeUpdateRegularExpressions` builds
/// them: `new HashMap<>(group.subscribedRegularExpressions())`, then `compute(old, decValue)` and
/// `compute(new, incValue)` (a count reaching zero is removed; a key added back goes to the front of
/// its bucket). Returns the regexes and counts in that map's iteration order.
pub fn subscribed_regexes_after_change(
    group: &ConsumerGroup,
    old: Option<&str>,
    new: Option<&str>,
) -> Vec<(String, i32)> {
    let source: Vec<(&str, i32)> = group
        .persistent
        .subscribed_regexes
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    let mut counts: BTreeMap<&str, i32> = source.iter().copied().collect();
    let mut order = if source.is_empty() {
        JavaHashMapOrder::new()
    } else {
        JavaHashMapOrder::with_capacity((source.len() as f32 / 0.75 + 1.0) as i32)
    };
    let mut removed = None;
    if let Some(o) = old {
        match counts.get(o).copied() {
            Some(c) if c <= 1 => {
                counts.remove(o);
                removed = Some(o);
            }
            Some(c) => {
                counts.insert(o, c - 1);
            }
            None => {}
        }
    }
    let mut keys: Vec<&str> = Vec::new();
    for (k, _) in source.iter().filter(|(k, _)| Some(*k) != removed) {
        order.put(k);
        keys.push(k);
    }
    if let Some(n) = new {
        let (_, added) = order.compute_if_absent(n);
        if added {
            keys.push(n);
        }
        *counts.entry(n).or_insert(0) += 1;
    }
    order
        .iteration_order()
        .into_iter()
        .map(|i| {
            let k = keys[i as usize];
            (k.to_string(), counts[k])
        })
        .collect()
}

/// The order `resolveRegularExpressions`'s result map iterates: the regexes are put into a
/// `new HashMap<>(n)` in the task's order, and that map's entries into another `new HashMap<>(n)`.
fn result_order(regexes: &[String]) -> Vec<&str> {
    let mut order: Vec<&str> = regexes.iter().map(String::as_str).collect();
    for _ in 0..2 {
        let mut map = JavaHashMapOrder::with_capacity(order.len() as i32);
        for k in &order {
            map.put(k);
        }
        order = map
            .iteration_order()
            .into_iter()
            .map(|i| order[i as usize])
            .collect();
    }
    order
}

/// `TopicRegexResolver.resolveRegularExpressions` over the image (no authorizer: nothing is
/// filtered): each regex's matching topic names, at the image's version and `now_ms`. A regex that
/// does not compile (validated on the way in, so never) resolves to nothing.
pub fn resolve(
    regexes: &[String],
    topics: &TopicsImage,
    image_version: i64,
    now_ms: i64,
) -> Vec<(String, ResolvedRegex)> {
    result_order(regexes)
        .into_iter()
        .map(|r| {
            let topics = match TopicRegex::compile(r) {
                Ok(m) => topics
                    .iter()
                    .filter(|t| m.matches(&t.name))
                    .map(|t| t.name.clone())
                    .collect(),
                Err(_) => Default::default(),
            };
            (
                r.to_string(),
                ResolvedRegex {
                    topics,
                    version: image_version,
                    timestamp: now_ms,
                },
            )
        })
        .collect()
}

/// `handleRegularExpressionsResult`: one RegularExpression record per regex the group still
/// subscribes to, and a group-epoch bump (with the metadata hash over the new subscription) when a
/// regex's topics changed or the hash moved. `group` is `None` when the group is gone or of another
/// type (no records). Sets the group's metadata refresh deadline on a bump.
pub fn handle_result(
    group: Option<&mut ConsumerGroup>,
    resolved: Vec<(String, ResolvedRegex)>,
    topics: &TopicsImage,
    cache: &mut TopicHashCache,
    now_ms: i64,
) -> Vec<Record> {
    let Some(group) = group else {
        return Vec::new();
    };
    let gid = group.group_id.clone();
    let mut names = group.persistent.subscribed_topic_names.clone();
    let mut records = Vec::new();
    let mut bump = false;
    for (regex, new) in resolved {
        if group.num_subscribed_members(&regex) == 0 {
            continue;
        }
        let old_topics = group
            .persistent
            .resolved_regexes
            .get(&regex)
            .map(|r| r.topics.clone())
            .unwrap_or_default();
        if old_topics != new.topics {
            bump = true;
            for t in &old_topics {
                change_regex_count(&mut names, t, -1);
            }
            for t in &new.topics {
                change_regex_count(&mut names, t, 1);
            }
        }
        records.push(regex_record(
            &gid,
            &regex,
            new.topics.iter().cloned(),
            new.version,
            new.timestamp,
        ));
    }
    let hash = group_hash_cached(names.keys(), topics, cache);
    if hash != group.persistent.metadata_hash {
        bump = true;
    }
    if bump {
        let epoch = group.persistent.group_epoch + 1;
        records.push(group_epoch_record(&gid, epoch, hash));
        group.soft.metadata_refresh_deadline = crate::consumer::group::RefreshDeadline {
            deadline_ms: now_ms + METADATA_REFRESH_INTERVAL_MS,
            epoch,
        };
    }
    records
}

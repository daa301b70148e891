//! Topology configuration against the topic metadata (Kafka's `InternalTopicManager.configureTopics`
//! with `RepartitionTopics`, `CopartitionedTopicsEnforcer` and `ChangelogTopics`): decides the
//! partition count of every internal topic and the number of tasks of every subtopology, and reports
//! missing source topics, wrongly partitioned topics and internal topics still to be created.
//!
//! Kafka walks several `java.util.HashMap`/`HashSet`s here; where the walking order can change a
//! result or a message (which subtopology decides a repartition topic first, which mismatching topic
//! is named, the order of the missing internal topics), the walk follows the Java order.

use std::collections::{BTreeMap, BTreeSet};

use protocol::ErrorCode;

use crate::error::ApiError;
use protocol::streams_status::StreamsStatus;

use crate::java::java_hash_map_order;
use crate::records::streams::Subtopology;
use crate::streams::topology::StreamsTopology;
use crate::topics::TopicsImage;

/// Why a topology is not ready (Kafka's `TopicConfigurationException`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicConfigurationError {
    pub status: StreamsStatus,
    pub message: String,
}

/// An internal topic with its decided partition count.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredInternalTopic {
    pub name: String,
    pub partitions: i32,
    /// `None` when the topology leaves it to the broker (replication factor 0).
    pub replication_factor: Option<i16>,
    pub topic_configs: Vec<(String, String)>,
}

/// A subtopology with its number of tasks (`ConfiguredSubtopology`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredSubtopology {
    pub number_of_tasks: i32,
    pub source_topics: BTreeSet<String>,
    pub repartition_source_topics: BTreeMap<String, ConfiguredInternalTopic>,
    pub repartition_sink_topics: BTreeSet<String>,
    pub state_changelog_topics: BTreeMap<String, ConfiguredInternalTopic>,
}

/// A topic the broker should create (`CreatableTopic`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CreatableTopic {
    pub name: String,
    pub num_partitions: i32,
    /// -1 for the broker default.
    pub replication_factor: i16,
    pub configs: Vec<(String, String)>,
}

/// The result of configuring a topology (`ConfiguredTopology`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfiguredTopology {
    pub topology_epoch: i32,
    pub metadata_hash: i64,
    /// Present unless the configuration failed before the subtopologies could be sized.
    pub subtopologies: Option<BTreeMap<String, ConfiguredSubtopology>>,
    /// Internal topics to create, in the order Kafka lists them.
    pub internal_topics_to_create: Vec<CreatableTopic>,
    pub error: Option<TopicConfigurationError>,
}

impl ConfiguredTopology {
    pub fn is_ready(&self) -> bool {
        self.error.is_none()
    }
}

fn unexpected() -> ApiError {
    // IllegalStateException and friends: UNKNOWN_SERVER_ERROR without a message.
    ApiError::bare(ErrorCode::UnknownServerError)
}

fn invalid_topology(message: impl Into<String>) -> ApiError {
    ApiError::new(ErrorCode::StreamsInvalidTopology, message)
}

/// `summarizeTopics`: at most three names, then a count.
fn summarize(topics: &[&str]) -> String {
    if topics.is_empty() {
        return "<none>".to_string();
    }
    let shown: Vec<&str> = topics.iter().take(3).copied().collect();
    let mut s = shown.join(", ");
    if topics.len() > 3 {
        s.push_str(&format!(" and {} additional topics", topics.len() - 3));
    }
    s
}

/// Java's `AbstractMap.toString` of a sorted `name -> count` map: `{a=3, b=6}`.
fn map_string(m: &BTreeMap<&str, i32>) -> String {
    let inner: Vec<String> = m.iter().map(|(k, v)| format!("{k}={v}")).collect();
    format!("{{{}}}", inner.join(", "))
}

enum Failure {
    Config(TopicConfigurationError),
    Api(ApiError),
}

impl From<ApiError> for Failure {
    fn from(e: ApiError) -> Self {
        Failure::Api(e)
    }
}

fn incorrectly_partitioned(message: String) -> Failure {
    Failure::Config(TopicConfigurationError {
        status: StreamsStatus::IncorrectlyPartitionedTopics,
        message,
    })
}

struct Counts<'a> {
    image: &'a TopicsImage,
    decided: BTreeMap<String, i32>,
}

impl Counts<'_> {
    /// `getPartitionCount`: the topic's actual count if it exists, else the decided one.
    fn get(&self, topic: &str) -> Option<i32> {
        match self.image.get(topic) {
            Some(t) => Some(t.partitions),
            None => self.decided.get(topic).copied(),
        }
    }
}

/// `InternalTopicManager.configureTopics`. `Err` is an error that fails the whole heartbeat.
pub fn configure_topics(
    topology: &StreamsTopology,
    metadata_hash: i64,
    image: &TopicsImage,
) -> Result<ConfiguredTopology, ApiError> {
    // The subtopologies as Kafka's `topology.subtopologies().values()` visits them.
    let subtopologies: Vec<&Subtopology> =
        java_hash_map_order(topology.subtopologies.keys().map(String::as_str))
            .into_iter()
            .map(|id| &topology.subtopologies[id])
            .collect();

    // Copartition groups resolve their indexes before anything else; a bad index is an unexpected
    // exception in Kafka.
    let mut copartition_groups: Vec<Vec<BTreeSet<String>>> = Vec::new();
    for s in &subtopologies {
        let mut groups = Vec::new();
        for g in &s.copartition_groups {
            let mut set = BTreeSet::new();
            for &i in &g.source_topics {
                let t = usize::try_from(i)
                    .ok()
                    .and_then(|i| s.source_topics.get(i))
                    .ok_or_else(unexpected)?;
                set.insert(t.clone());
            }
            for &i in &g.repartition_source_topics {
                let t = usize::try_from(i)
                    .ok()
                    .and_then(|i| s.repartition_source_topics.get(i))
                    .ok_or_else(unexpected)?;
                set.insert(t.name.clone());
            }
            groups.push(set);
        }
        copartition_groups.push(groups);
    }

    match configure(topology, &subtopologies, &copartition_groups, image) {
        Ok((configured, to_create)) => {
            let error = if to_create.is_empty() {
                None
            } else {
                let names: Vec<&str> = to_create.iter().map(|t| t.name.as_str()).collect();
                Some(TopicConfigurationError {
                    status: StreamsStatus::MissingInternalTopics,
                    message: format!("Internal topics are missing: {}", summarize(&names)),
                })
            };
            Ok(ConfiguredTopology {
                topology_epoch: topology.epoch,
                metadata_hash,
                subtopologies: Some(configured),
                internal_topics_to_create: to_create,
                error,
            })
        }
        Err(Failure::Config(e)) => Ok(ConfiguredTopology {
            topology_epoch: topology.epoch,
            metadata_hash,
            subtopologies: None,
            internal_topics_to_create: Vec::new(),
            error: Some(e),
        }),
        Err(Failure::Api(e)) => Err(e),
    }
}

type Configured = (BTreeMap<String, ConfiguredSubtopology>, Vec<CreatableTopic>);

fn configure(
    topology: &StreamsTopology,
    subtopologies: &[&Subtopology],
    copartition_groups: &[Vec<BTreeSet<String>>],
    image: &TopicsImage,
) -> Result<Configured, Failure> {
    // 1. Missing source topics, sorted.
    let missing: BTreeSet<&str> = subtopologies
        .iter()
        .flat_map(|s| s.source_topics.iter())
        .filter(|t| image.get(t).is_none())
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        let names: Vec<&str> = missing.into_iter().collect();
        return Err(Failure::Config(TopicConfigurationError {
            status: StreamsStatus::MissingSourceTopics,
            message: format!("Source topics {} are missing.", summarize(&names)),
        }));
    }

    let mut counts = Counts {
        image,
        decided: BTreeMap::new(),
    };

    // 2. Repartition topics.
    let repartition = repartition_counts(subtopologies, &counts)?;
    counts.decided.extend(repartition);

    // 3. Copartitioning.
    let fixed: BTreeSet<&str> = subtopologies
        .iter()
        .flat_map(|s| s.repartition_source_topics.iter())
        .filter(|t| t.partitions != 0)
        .map(|t| t.name.as_str())
        .collect();
    // `Collectors.toSet()` fills a default HashSet in stream order.
    let fixed_order: Vec<&str> = java_hash_map_order(
        subtopologies
            .iter()
            .flat_map(|s| s.repartition_source_topics.iter())
            .filter(|t| t.partitions != 0)
            .map(|t| t.name.as_str()),
    );
    let flexible: BTreeSet<&str> = subtopologies
        .iter()
        .flat_map(|s| s.repartition_source_topics.iter())
        .filter(|t| t.partitions == 0)
        .map(|t| t.name.as_str())
        .collect();
    for groups in copartition_groups {
        for group in groups {
            let decided = enforce_copartitioning(group, &fixed, &fixed_order, &flexible, &counts)?;
            counts.decided.extend(decided);
        }
    }

    // 4. Changelog topics.
    let mut changelogs: Vec<(String, i32)> = Vec::new();
    for s in subtopologies {
        let mut max: Option<i32> = None;
        for t in s
            .source_topics
            .iter()
            .chain(s.repartition_source_topics.iter().map(|t| &t.name))
        {
            let c = counts.get(t).ok_or_else(unexpected)?;
            max = Some(max.map_or(c, |m| m.max(c)));
        }
        let Some(max) = max else {
            return Err(Failure::Api(invalid_topology(format!(
                "No source topics found for subtopology {}",
                s.subtopology_id
            ))));
        };
        for t in &s.state_changelog_topics {
            changelogs.push((t.name.clone(), max));
        }
    }
    counts.decided.extend(changelogs);

    // 5. Size every subtopology.
    let mut configured = BTreeMap::new();
    for (id, s) in &topology.subtopologies {
        let mut tasks: Option<i32> = None;
        for t in s
            .source_topics
            .iter()
            .chain(s.repartition_source_topics.iter().map(|t| &t.name))
        {
            let c = counts.get(t).ok_or_else(unexpected)?;
            tasks = Some(tasks.map_or(c, |m| m.max(c)));
        }
        let number_of_tasks = tasks.ok_or_else(unexpected)?;
        if number_of_tasks <= 0 {
            return Err(Failure::Api(unexpected()));
        }
        let internal =
            |t: &crate::records::streams::TopicInfo| -> Result<ConfiguredInternalTopic, Failure> {
                let partitions = if t.partitions == 0 {
                    *counts.decided.get(&t.name).ok_or_else(unexpected)?
                } else {
                    t.partitions
                };
                if partitions < 1 {
                    return Err(Failure::Api(unexpected()));
                }
                Ok(ConfiguredInternalTopic {
                    name: t.name.clone(),
                    partitions,
                    replication_factor: (t.replication_factor != 0).then_some(t.replication_factor),
                    topic_configs: t
                        .topic_configs
                        .iter()
                        .map(|kv| (kv.key.clone(), kv.value.clone()))
                        .collect(),
                })
            };
        let mut repartition_source_topics = BTreeMap::new();
        for t in &s.repartition_source_topics {
            repartition_source_topics.insert(t.name.clone(), internal(t)?);
        }
        let mut state_changelog_topics = BTreeMap::new();
        for t in &s.state_changelog_topics {
            state_changelog_topics.insert(t.name.clone(), internal(t)?);
        }
        configured.insert(
            id.clone(),
            ConfiguredSubtopology {
                number_of_tasks,
                source_topics: s.source_topics.iter().cloned().collect(),
                repartition_source_topics,
                repartition_sink_topics: s.repartition_sink_topics.iter().cloned().collect(),
                state_changelog_topics,
            },
        );
    }

    // 6. Internal topics to create, minus those that exist (which must have the decided count).
    let mut to_create: BTreeMap<String, CreatableTopic> = BTreeMap::new();
    let mut put_order: Vec<String> = Vec::new();
    for s in configured.values() {
        let lists = [&s.repartition_source_topics, &s.state_changelog_topics];
        for list in lists {
            for name in java_hash_map_order(list.keys().map(String::as_str)) {
                let t = &list[name];
                let configs_order =
                    java_hash_map_order(t.topic_configs.iter().map(|(k, _)| k.as_str()));
                let configs = configs_order
                    .into_iter()
                    .filter_map(|k| {
                        t.topic_configs
                            .iter()
                            .rev()
                            .find(|(kk, _)| kk == k)
                            .map(|(k, v)| (k.clone(), v.clone()))
                    })
                    .collect();
                to_create.insert(
                    name.to_string(),
                    CreatableTopic {
                        name: name.to_string(),
                        num_partitions: t.partitions,
                        replication_factor: t.replication_factor.unwrap_or(-1),
                        configs,
                    },
                );
                put_order.push(name.to_string());
            }
        }
    }
    // `requiredTopics()` is a HashSet filled from the subtopologies in map order.
    let required: Vec<&str> = java_hash_map_order(subtopologies.iter().flat_map(|s| {
        s.source_topics
            .iter()
            .map(String::as_str)
            .chain(s.repartition_source_topics.iter().map(|t| t.name.as_str()))
            .chain(s.state_changelog_topics.iter().map(|t| t.name.as_str()))
    }));
    for topic in required {
        if let Some(existing) = image.get(topic)
            && let Some(expected) = to_create.remove(topic)
            && existing.partitions != expected.num_partitions
        {
            return Err(incorrectly_partitioned(format!(
                "Existing topic {topic} has different number of partitions: expected {}, found {}",
                expected.num_partitions, existing.partitions
            )));
        }
    }
    let order = java_hash_map_order(put_order.iter().map(String::as_str));
    let list = order
        .into_iter()
        .filter_map(|n| to_create.get(n).cloned())
        .collect();
    Ok((configured, list))
}

/// `RepartitionTopics.setup`.
fn repartition_counts(
    subtopologies: &[&Subtopology],
    counts: &Counts<'_>,
) -> Result<BTreeMap<String, i32>, Failure> {
    let mut known: BTreeMap<String, i32> = BTreeMap::new();
    for s in subtopologies {
        for t in &s.repartition_source_topics {
            if t.partitions != 0 {
                known.insert(t.name.clone(), t.partitions);
            }
        }
    }
    loop {
        let mut needed = false;
        let mut progress = false;
        for s in subtopologies {
            for sink in &s.repartition_sink_topics {
                if known.contains_key(sink) {
                    continue;
                }
                let mut count: Option<i32> = None;
                for t in &s.repartition_source_topics {
                    if let Some(&c) = known.get(&t.name) {
                        count = Some(count.map_or(c, |m| m.max(c)));
                    }
                }
                for t in &s.source_topics {
                    if let Some(c) = counts.get(t) {
                        count = Some(count.map_or(c, |m| m.max(c)));
                    }
                }
                match count {
                    Some(c) => {
                        known.insert(sink.clone(), c);
                        progress = true;
                    }
                    None => needed = true,
                }
            }
        }
        if !progress && needed {
            return Err(Failure::Api(invalid_topology(
                "Failed to compute number of partitions for all repartition topics. There may be loops in the topology that cannot be resolved.",
            )));
        }
        if !needed {
            break;
        }
    }
    for s in subtopologies {
        if s.repartition_source_topics
            .iter()
            .any(|t| !known.contains_key(&t.name))
        {
            return Err(Failure::Api(invalid_topology(
                "Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.",
            )));
        }
    }
    Ok(known)
}

/// `CopartitionedTopicsEnforcer.enforce` for one copartition group.
fn enforce_copartitioning(
    group: &BTreeSet<String>,
    fixed: &BTreeSet<&str>,
    fixed_order: &[&str],
    flexible: &BTreeSet<&str>,
    counts: &Counts<'_>,
) -> Result<BTreeMap<String, i32>, Failure> {
    if group.is_empty() {
        return Ok(BTreeMap::new());
    }
    // The group is a HashSet; maps collected from it iterate in hash order.
    let group_order = java_hash_map_order(group.iter().map(String::as_str));
    let mut repartition: Vec<(&str, i32)> = Vec::new();
    let mut external: Vec<(&str, i32)> = Vec::new();
    for t in &group_order {
        let c = counts.get(t).ok_or_else(unexpected)?;
        if fixed.contains(t) || flexible.contains(t) {
            repartition.push((t, c));
        } else {
            external.push((t, c));
        }
    }
    let num = if external.is_empty() {
        if !fixed.is_empty() {
            let first = counts.get(fixed_order[0]).ok_or_else(unexpected)?;
            for t in fixed_order {
                let c = counts.get(t).ok_or_else(unexpected)?;
                if c != first {
                    let sorted: BTreeMap<&str, i32> = repartition.iter().copied().collect();
                    return Err(incorrectly_partitioned(format!(
                        "Following topics do not have the same number of partitions: [{}]",
                        map_string(&sorted)
                    )));
                }
            }
            first
        } else {
            let max = repartition
                .iter()
                .map(|(_, c)| *c)
                .max()
                .unwrap_or(0)
                .max(0);
            if max == 0 {
                let names: Vec<&str> = repartition.iter().map(|(t, _)| *t).collect();
                return Err(Failure::Api(invalid_topology(format!(
                    "All topics in the copartition group had undefined partition number: [{}]",
                    names.join(", ")
                ))));
            }
            max
        }
    } else {
        let first = external[0].1;
        if external.iter().any(|(_, c)| *c != first) {
            let sorted: BTreeMap<&str, i32> = external.iter().copied().collect();
            return Err(incorrectly_partitioned(format!(
                "Following topics do not have the same number of partitions: [{}]",
                map_string(&sorted)
            )));
        }
        first
    };
    let mut out = BTreeMap::new();
    for (t, c) in repartition {
        out.insert(t.to_string(), num);
        if fixed.contains(t) && c != num {
            return Err(incorrectly_partitioned(format!(
                "Number of partitions [{c}] of repartition topic [{t}] doesn't match number of partitions [{num}] of the source topic."
            )));
        }
    }
    Ok(out)
}

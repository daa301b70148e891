//! A Kafka Streams topology as the streams rebalance protocol sees it, and its wire form.

use std::collections::BTreeMap;

use protocol::messages::StrBytes;
use protocol::messages::streams_group_heartbeat_request as req;

use crate::observer::{TaskId, TopicPartition};

/// An internal topic (repartition or changelog) a subtopology declares.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InternalTopic {
    pub name: String,
    /// Fixed partition count (repartition topics with a user-set count); `None` lets the
    /// coordinator derive it (sent as 0, as the Java client leaves the field unset).
    pub partitions: Option<i32>,
    /// `None` = the broker's default (sent as 0).
    pub replication_factor: Option<i16>,
    pub configs: BTreeMap<String, String>,
}

impl InternalTopic {
    pub fn new(name: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            partitions: None,
            replication_factor: None,
            configs: BTreeMap::new(),
        }
    }

    pub fn with_partitions(mut self, partitions: i32) -> Self {
        self.partitions = Some(partitions);
        self
    }
}

/// One subtopology.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subtopology {
    pub id: String,
    pub source_topics: Vec<String>,
    pub repartition_sink_topics: Vec<String>,
    pub repartition_source_topics: Vec<InternalTopic>,
    pub state_changelog_topics: Vec<InternalTopic>,
    /// Groups of topics (source or repartition-source topics of this subtopology, by name) that
    /// must be co-partitioned.
    pub copartition_groups: Vec<Vec<String>>,
}

impl Subtopology {
    /// A stateless subtopology reading `source_topics`.
    pub fn new(id: impl Into<String>, source_topics: &[&str]) -> Self {
        Self {
            id: id.into(),
            source_topics: source_topics.iter().map(|s| s.to_string()).collect(),
            ..Self::default()
        }
    }

    pub fn with_changelog(mut self, topic: InternalTopic) -> Self {
        self.state_changelog_topics.push(topic);
        self
    }

    pub fn with_repartition_source(mut self, topic: InternalTopic) -> Self {
        self.repartition_source_topics.push(topic);
        self
    }

    pub fn with_repartition_sink(mut self, topic: impl Into<String>) -> Self {
        self.repartition_sink_topics.push(topic.into());
        self
    }

    pub fn with_copartition_group(mut self, topics: &[&str]) -> Self {
        self.copartition_groups
            .push(topics.iter().map(|s| s.to_string()).collect());
        self
    }

    /// Whether the subtopology has state (its tasks can have standby replicas).
    pub fn is_stateful(&self) -> bool {
        !self.state_changelog_topics.is_empty()
    }

    /// The input topics of its tasks: source topics, then repartition source topics.
    pub fn input_topics(&self) -> impl Iterator<Item = &str> {
        self.source_topics.iter().map(String::as_str).chain(
            self.repartition_source_topics
                .iter()
                .map(|t| t.name.as_str()),
        )
    }
}

/// A topology: its epoch and subtopologies.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Topology {
    pub epoch: i32,
    pub subtopologies: Vec<Subtopology>,
}

impl Topology {
    pub fn new(subtopologies: Vec<Subtopology>) -> Self {
        Self {
            epoch: 0,
            subtopologies,
        }
    }

    pub fn subtopology(&self, id: &str) -> Option<&Subtopology> {
        self.subtopologies.iter().find(|s| s.id == id)
    }

    /// The input partitions of `task` (partition `p` of every source and repartition source
    /// topic of its subtopology), sorted. Empty for an unknown subtopology.
    pub fn task_partitions(&self, task: &TaskId) -> Vec<TopicPartition> {
        let mut parts: Vec<TopicPartition> = self
            .subtopology(&task.subtopology)
            .map(|s| {
                s.input_topics()
                    .map(|t| TopicPartition::new(t, task.partition))
                    .collect()
            })
            .unwrap_or_default();
        parts.sort();
        parts
    }

    /// Whether `topic` is an input topic of subtopology `subtopology`.
    pub fn is_input_of(&self, subtopology: &str, topic: &str) -> bool {
        self.subtopology(subtopology)
            .is_some_and(|s| s.input_topics().any(|t| t == topic))
    }

    /// The wire form the Java client sends on a join (`StreamsGroupHeartbeatRequestManager`):
    /// subtopologies sorted by id, source and sink topics sorted, internal topics sorted by name
    /// with their configs sorted by key, copartition groups as indexes into the sorted lists.
    pub fn to_request(&self) -> req::Topology {
        let mut subtopologies: Vec<req::Subtopology> = self
            .subtopologies
            .iter()
            .map(subtopology_to_request)
            .collect();
        subtopologies.sort_by(|a, b| a.subtopology_id.cmp(&b.subtopology_id));
        req::Topology::default()
            .with_epoch(self.epoch)
            .with_subtopologies(subtopologies)
    }
}

fn s(text: &str) -> StrBytes {
    StrBytes::from_string(text.to_string())
}

fn topic_info(topic: &InternalTopic, with_partitions: bool) -> req::TopicInfo {
    let mut info = req::TopicInfo::default().with_name(s(&topic.name).into());
    if with_partitions && let Some(p) = topic.partitions {
        info = info.with_partitions(p);
    }
    if let Some(rf) = topic.replication_factor {
        info = info.with_replication_factor(rf);
    }
    info.with_topic_configs(
        topic
            .configs
            .iter()
            .map(|(k, v)| req::KeyValue::default().with_key(s(k)).with_value(s(v)))
            .collect(),
    )
}

fn subtopology_to_request(sub: &Subtopology) -> req::Subtopology {
    let mut sources = sub.source_topics.clone();
    sources.sort();
    let mut sinks = sub.repartition_sink_topics.clone();
    sinks.sort();
    let mut repartition: Vec<&InternalTopic> = sub.repartition_source_topics.iter().collect();
    repartition.sort_by(|a, b| a.name.cmp(&b.name));
    let mut changelogs: Vec<&InternalTopic> = sub.state_changelog_topics.iter().collect();
    changelogs.sort_by(|a, b| a.name.cmp(&b.name));
    // Indexes into the sorted lists. Java builds each group from a HashSet; regroup sorts the
    // indexes so the bytes do not depend on hash order.
    let copartition_groups = sub
        .copartition_groups
        .iter()
        .map(|group| {
            let mut source_idx = Vec::new();
            let mut repartition_idx = Vec::new();
            for name in group {
                if let Some(i) = sources.iter().position(|t| t == name) {
                    source_idx.push(i as i16);
                } else if let Some(i) = repartition.iter().position(|t| &t.name == name) {
                    repartition_idx.push(i as i16);
                }
            }
            source_idx.sort_unstable();
            repartition_idx.sort_unstable();
            req::CopartitionGroup::default()
                .with_source_topics(source_idx)
                .with_repartition_source_topics(repartition_idx)
        })
        .collect();
    req::Subtopology::default()
        .with_subtopology_id(s(&sub.id))
        .with_source_topics(sources.iter().map(|t| s(t).into()).collect())
        .with_repartition_sink_topics(sinks.iter().map(|t| s(t).into()).collect())
        .with_repartition_source_topics(repartition.iter().map(|t| topic_info(t, true)).collect())
        .with_state_changelog_topics(changelogs.iter().map(|t| topic_info(t, false)).collect())
        .with_copartition_groups(copartition_groups)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Topology {
        Topology::new(vec![
            Subtopology::new("1", &["b-input", "a-input"])
                .with_repartition_source(InternalTopic::new("app-rep").with_partitions(4))
                .with_changelog(InternalTopic::new("app-store-changelog"))
                .with_copartition_group(&["app-rep", "b-input", "a-input"]),
            Subtopology::new("0", &["words"]).with_repartition_sink("app-rep"),
        ])
    }

    #[test]
    fn wire_form_is_sorted_like_the_java_client() {
        let t = sample().to_request();
        let ids: Vec<&str> = t
            .subtopologies
            .iter()
            .map(|s| s.subtopology_id.as_str())
            .collect();
        assert_eq!(ids, vec!["0", "1"]);
        let one = &t.subtopologies[1];
        let sources: Vec<&str> = one.source_topics.iter().map(|s| s.as_str()).collect();
        assert_eq!(sources, vec!["a-input", "b-input"]);
        assert_eq!(one.repartition_source_topics[0].partitions, 4);
        // Changelog topics never carry a partition count (the coordinator derives it).
        assert_eq!(one.state_changelog_topics[0].partitions, 0);
        assert_eq!(one.copartition_groups[0].source_topics, vec![0, 1]);
        assert_eq!(one.copartition_groups[0].repartition_source_topics, vec![0]);
        let zero = &t.subtopologies[0];
        assert_eq!(zero.repartition_sink_topics[0].as_str(), "app-rep");
    }

    #[test]
    fn task_partitions_cover_source_and_repartition_topics() {
        let t = sample();
        assert_eq!(
            t.task_partitions(&TaskId::new("1", 2)),
            vec![
                TopicPartition::new("a-input", 2),
                TopicPartition::new("app-rep", 2),
                TopicPartition::new("b-input", 2)
            ]
        );
        assert!(t.task_partitions(&TaskId::new("9", 0)).is_empty());
        assert!(t.is_input_of("1", "app-rep"));
        assert!(!t.is_input_of("0", "app-rep"));
    }
}

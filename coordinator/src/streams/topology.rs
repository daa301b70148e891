//! The topology a streams group was initialised with (Kafka's `StreamsTopology`): the persisted
//! StreamsGroupTopology record plus the look-ups derived from it.

use std::collections::{BTreeMap, BTreeSet};

use protocol::messages::streams_group_heartbeat_request as req;

use crate::error::ApiError;
use crate::java::java_hash_map_order;
use crate::records::streams::{
    CopartitionGroup, KeyValue, StreamsGroupTopologyValue, Subtopology, TopicInfo,
};

/// A group's topology: its epoch and subtopologies by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamsTopology {
    pub epoch: i32,
    /// Subtopologies by id (Kafka keeps them in a map; equality ignores their order).
    pub subtopologies: BTreeMap<String, Subtopology>,
    /// Source and repartition-source topic -> subtopology id (`sourceTopicMap`).
    pub source_topic_map: BTreeMap<String, String>,
    /// `requiredTopics()`, distinct and sorted in Java string order.
    pub required: Vec<String>,
}

impl StreamsTopology {
    /// `StreamsTopology.fromRecord`. Duplicate subtopology ids are an error, as in Kafka's
    /// `Collectors.toMap` (an unexpected exception, answered with UNKNOWN_SERVER_ERROR).
    pub fn from_record(value: &StreamsGroupTopologyValue) -> Result<Self, ApiError> {
        let mut subtopologies = BTreeMap::new();
        for s in &value.subtopologies {
            if subtopologies
                .insert(s.subtopology_id.clone(), s.clone())
                .is_some()
            {
                return Err(ApiError::bare(protocol::ErrorCode::UnknownServerError));
            }
        }
        // `computeSourceTopicMap` puts in the iteration order of a HashMap filled in record order;
        // a topic read by two subtopologies maps to the one visited last.
        let mut source_topic_map = BTreeMap::new();
        let order = java_hash_map_order(
            value
                .subtopologies
                .iter()
                .map(|s| s.subtopology_id.as_str()),
        );
        for id in order {
            let s = &subtopologies[id];
            for t in &s.source_topics {
                source_topic_map.insert(t.clone(), id.to_string());
            }
            for t in &s.repartition_source_topics {
                source_topic_map.insert(t.name.clone(), id.to_string());
            }
        }
        let mut required: Vec<String> = subtopologies
            .values()
            .flat_map(|s| {
                s.source_topics
                    .iter()
                    .chain(s.repartition_source_topics.iter().map(|t| &t.name))
                    .chain(s.state_changelog_topics.iter().map(|t| &t.name))
                    .cloned()
            })
            .collect();
        required.sort_by(|a, b| crate::java::compare_strings(a, b));
        required.dedup();
        Ok(Self {
            epoch: value.epoch,
            subtopologies,
            source_topic_map,
            required,
        })
    }

    /// `requiredTopics`: every source, repartition-source and changelog topic.
    pub fn required_topics(&self) -> BTreeSet<String> {
        self.required.iter().cloned().collect()
    }

    /// Whether `topic` is one of the required topics.
    pub fn requires_topic(&self, topic: &str) -> bool {
        self.required.iter().any(|t| t == topic)
    }
}

/// `convertToStreamsGroupTopologyRecord`: the request's topology as the record value.
pub fn record_from_request(topology: &req::Topology) -> StreamsGroupTopologyValue {
    fn topic_info(t: &req::TopicInfo) -> TopicInfo {
        TopicInfo {
            name: t.name.to_string(),
            partitions: t.partitions,
            replication_factor: t.replication_factor,
            topic_configs: t
                .topic_configs
                .iter()
                .map(|kv| KeyValue {
                    key: kv.key.to_string(),
                    value: kv.value.to_string(),
                })
                .collect(),
        }
    }
    StreamsGroupTopologyValue {
        epoch: topology.epoch,
        subtopologies: topology
            .subtopologies
            .iter()
            .map(|s| Subtopology {
                subtopology_id: s.subtopology_id.to_string(),
                source_topics: s.source_topics.iter().map(|t| t.to_string()).collect(),
                source_topic_regex: s.source_topic_regex.iter().map(|t| t.to_string()).collect(),
                state_changelog_topics: s.state_changelog_topics.iter().map(topic_info).collect(),
                repartition_sink_topics: s
                    .repartition_sink_topics
                    .iter()
                    .map(|t| t.to_string())
                    .collect(),
                repartition_source_topics: s
                    .repartition_source_topics
                    .iter()
                    .map(topic_info)
                    .collect(),
                copartition_groups: s
                    .copartition_groups
                    .iter()
                    .map(|g| CopartitionGroup {
                        source_topics: g.source_topics.clone(),
                        source_topic_regex: g.source_topic_regex.clone(),
                        repartition_source_topics: g.repartition_source_topics.clone(),
                    })
                    .collect(),
            })
            .collect(),
    }
}

//! The checks the broker's request layer (Kafka's `KafkaApis.handleStreamsGroupHeartbeat`) makes before a
//! StreamsGroupHeartbeat reaches the coordinator: a topology may not use Kafka's internal topics nor invalid
//! topic names (STREAMS_INVALID_TOPOLOGY, checked before the service's own validation). A broker without an
//! authorizer makes no other check.

use protocol::ErrorCode;
use protocol::messages::{StrBytes, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};

/// Kafka's internal topics (`Topic.INTERNAL_TOPICS`).
const INTERNAL_TOPICS: [&str; 3] = [
    "__consumer_offsets",
    "__transaction_state",
    "__share_group_state",
];

/// Kafka's `Topic.isValid`: 1 to 249 UTF-16 units of ASCII letters, digits, '.', '_' and '-', not "." or "..".
pub fn is_valid_topic_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && name.encode_utf16().count() <= 249
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// The error response the broker sends instead of running the heartbeat, if any.
pub fn check_heartbeat(r: &StreamsGroupHeartbeatRequest) -> Option<StreamsGroupHeartbeatResponse> {
    let topology = r.topology.as_ref()?;
    // Every topic of the topology once, in the order the broker lists them.
    let mut required: Vec<&str> = Vec::new();
    for s in topology.subtopologies.iter() {
        let names = s
            .source_topics
            .iter()
            .map(|t| t.as_str())
            .chain(s.repartition_sink_topics.iter().map(|t| t.as_str()))
            .chain(s.repartition_source_topics.iter().map(|t| t.name.as_str()))
            .chain(s.state_changelog_topics.iter().map(|t| t.name.as_str()));
        for n in names {
            if !required.contains(&n) {
                required.push(n);
            }
        }
    }
    let error = |message: String| {
        Some(
            StreamsGroupHeartbeatResponse::default()
                .with_error_code(ErrorCode::StreamsInvalidTopology.code())
                .with_error_message(Some(StrBytes::from_string(message))),
        )
    };
    let internal: Vec<&str> = required
        .iter()
        .copied()
        .filter(|t| INTERNAL_TOPICS.contains(t))
        .collect();
    if !internal.is_empty() {
        return error(format!(
            "Use of Kafka internal topics {} in a Kafka Streams topology is prohibited.",
            internal.join(",")
        ));
    }
    let invalid: Vec<&str> = required
        .iter()
        .copied()
        .filter(|t| !is_valid_topic_name(t))
        .collect();
    if !invalid.is_empty() {
        return error(format!(
            "Topic names {} are not valid topic names.",
            invalid.join(",")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::messages::TopicName;
    use protocol::messages::streams_group_heartbeat_request::{Subtopology, TopicInfo, Topology};

    fn request(sources: &[&str], changelogs: &[&str]) -> StreamsGroupHeartbeatRequest {
        let sub = Subtopology::default()
            .with_subtopology_id(StrBytes::from_static_str("s"))
            .with_source_topics(
                sources
                    .iter()
                    .map(|t| TopicName(StrBytes::from_string(t.to_string())))
                    .collect(),
            )
            .with_state_changelog_topics(
                changelogs
                    .iter()
                    .map(|t| {
                        TopicInfo::default()
                            .with_name(TopicName(StrBytes::from_string(t.to_string())))
                    })
                    .collect(),
            );
        StreamsGroupHeartbeatRequest::default()
            .with_topology(Some(Topology::default().with_subtopologies(vec![sub])))
    }

    #[test]
    fn internal_topics_are_refused_before_invalid_names() {
        let r = check_heartbeat(&request(
            &["bad topic", "__consumer_offsets"],
            &["__transaction_state"],
        ))
        .unwrap();
        assert_eq!(r.error_code, ErrorCode::StreamsInvalidTopology.code());
        assert_eq!(
            r.error_message.as_deref(),
            Some(
                "Use of Kafka internal topics __consumer_offsets,__transaction_state in a Kafka Streams topology is prohibited."
            )
        );
        let r = check_heartbeat(&request(&["a", "bad topic", "a"], &["é"])).unwrap();
        assert_eq!(
            r.error_message.as_deref(),
            Some("Topic names bad topic,é are not valid topic names.")
        );
        assert!(check_heartbeat(&request(&["a.b_c-1"], &["x"])).is_none());
        assert!(check_heartbeat(&StreamsGroupHeartbeatRequest::default()).is_none());
    }

    #[test]
    fn topic_names_follow_kafka() {
        assert!(is_valid_topic_name("a"));
        assert!(!is_valid_topic_name(""));
        assert!(!is_valid_topic_name(".."));
        assert!(is_valid_topic_name("..."));
        assert!(is_valid_topic_name(&"x".repeat(249)));
        assert!(!is_valid_topic_name(&"x".repeat(250)));
    }
}

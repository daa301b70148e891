//! The consumer embedded protocol (`ConsumerProtocol`): the subscription a member puts in its
//! JoinGroup metadata and the assignment the leader puts in SyncGroup, each a version (int16)
//! followed by the versioned body.

use std::collections::{BTreeMap, BTreeSet};

use bytes::{Buf, BufMut, Bytes, BytesMut};
use kafka_protocol::messages::consumer_protocol_assignment::{
    ConsumerProtocolAssignment, TopicPartition as AssignmentTopic,
};
use kafka_protocol::messages::consumer_protocol_subscription::{
    ConsumerProtocolSubscription, TopicPartition as OwnedTopic,
};
use kafka_protocol::protocol::{Decodable, Encodable, StrBytes};

use crate::observer::TopicPartition;

/// The versions Kafka 4.4's consumer writes.
pub const SUBSCRIPTION_VERSION: i16 = 3;
pub const ASSIGNMENT_VERSION: i16 = 3;

/// A member's subscription as the leader reads it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Subscription {
    pub topics: Vec<String>,
    pub owned_partitions: Vec<TopicPartition>,
    pub generation_id: i32,
    pub rack_id: Option<String>,
}

/// Why embedded-protocol bytes could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid consumer protocol {what}: {message}")]
pub struct ProtocolError {
    pub what: &'static str,
    pub message: String,
}

fn grouped(partitions: &[TopicPartition]) -> BTreeMap<&str, Vec<i32>> {
    let mut map: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for tp in partitions {
        map.entry(tp.topic.as_str()).or_default().push(tp.partition);
    }
    for v in map.values_mut() {
        v.sort_unstable();
    }
    map
}

/// Serialises a subscription (topics sorted, owned partitions grouped by topic).
pub fn encode_subscription(s: &Subscription) -> Bytes {
    let topics: BTreeSet<&str> = s.topics.iter().map(String::as_str).collect();
    let body = ConsumerProtocolSubscription::default()
        .with_topics(
            topics
                .into_iter()
                .map(|t| StrBytes::from_string(t.to_string()))
                .collect(),
        )
        .with_owned_partitions(
            grouped(&s.owned_partitions)
                .into_iter()
                .map(|(t, p)| {
                    OwnedTopic::default()
                        .with_topic(StrBytes::from_string(t.to_string()).into())
                        .with_partitions(p)
                })
                .collect(),
        )
        .with_generation_id(s.generation_id)
        .with_rack_id(s.rack_id.as_ref().map(|r| StrBytes::from_string(r.clone())));
    let mut buf = BytesMut::new();
    buf.put_i16(SUBSCRIPTION_VERSION);
    body.encode(&mut buf, SUBSCRIPTION_VERSION)
        .expect("a subscription always encodes at version 3");
    buf.freeze()
}

/// Reads a subscription of any version (fields a version lacks take their defaults).
pub fn decode_subscription(bytes: &[u8]) -> Result<Subscription, ProtocolError> {
    let err = |message: String| ProtocolError {
        what: "subscription",
        message,
    };
    let mut buf = Bytes::copy_from_slice(bytes);
    if buf.remaining() < 2 {
        return Err(err("missing version".into()));
    }
    // Newer versions are read as the newest known one (Kafka's forward compatibility).
    let version = buf.get_i16().clamp(0, SUBSCRIPTION_VERSION);
    let body =
        ConsumerProtocolSubscription::decode(&mut buf, version).map_err(|e| err(e.to_string()))?;
    Ok(Subscription {
        topics: body.topics.iter().map(|t| t.to_string()).collect(),
        owned_partitions: body
            .owned_partitions
            .iter()
            .flat_map(|t| {
                t.partitions
                    .iter()
                    .map(move |p| TopicPartition::new(t.topic.as_str(), *p))
            })
            .collect(),
        generation_id: if version >= 2 { body.generation_id } else { -1 },
        rack_id: body.rack_id.map(|r| r.to_string()),
    })
}

/// Serialises an assignment (partitions grouped by topic, both sorted).
pub fn encode_assignment(partitions: &[TopicPartition]) -> Bytes {
    let body = ConsumerProtocolAssignment::default().with_assigned_partitions(
        grouped(partitions)
            .into_iter()
            .map(|(t, p)| {
                AssignmentTopic::default()
                    .with_topic(StrBytes::from_string(t.to_string()).into())
                    .with_partitions(p)
            })
            .collect(),
    );
    let mut buf = BytesMut::new();
    buf.put_i16(ASSIGNMENT_VERSION);
    body.encode(&mut buf, ASSIGNMENT_VERSION)
        .expect("an assignment always encodes at version 3");
    buf.freeze()
}

/// Reads an assignment; empty bytes mean "nothing assigned" (what a coordinator sends a member
/// the leader left out).
pub fn decode_assignment(bytes: &[u8]) -> Result<Vec<TopicPartition>, ProtocolError> {
    if bytes.is_empty() {
        return Ok(Vec::new());
    }
    let err = |message: String| ProtocolError {
        what: "assignment",
        message,
    };
    let mut buf = Bytes::copy_from_slice(bytes);
    if buf.remaining() < 2 {
        return Err(err("missing version".into()));
    }
    let version = buf.get_i16().clamp(0, ASSIGNMENT_VERSION);
    let body =
        ConsumerProtocolAssignment::decode(&mut buf, version).map_err(|e| err(e.to_string()))?;
    let mut out: Vec<TopicPartition> = body
        .assigned_partitions
        .iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(move |p| TopicPartition::new(t.topic.as_str(), *p))
        })
        .collect();
    out.sort();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subscription_round_trips_and_has_kafkas_layout() {
        let s = Subscription {
            topics: vec!["b".into(), "a".into()],
            owned_partitions: vec![TopicPartition::new("a", 1)],
            generation_id: 4,
            rack_id: Some("r1".into()),
        };
        let bytes = encode_subscription(&s);
        // int16 version 3, then an int32 array count of 2 topics.
        assert_eq!(&bytes[..6], &[0, 3, 0, 0, 0, 2]);
        let back = decode_subscription(&bytes).unwrap();
        assert_eq!(back.topics, vec!["a", "b"]);
        assert_eq!(back.owned_partitions, s.owned_partitions);
        assert_eq!(back.generation_id, 4);
        assert_eq!(back.rack_id.as_deref(), Some("r1"));
    }

    #[test]
    fn assignment_round_trips_and_empty_means_nothing() {
        let parts = vec![
            TopicPartition::new("t", 2),
            TopicPartition::new("s", 0),
            TopicPartition::new("t", 0),
        ];
        let bytes = encode_assignment(&parts);
        let mut sorted = parts.clone();
        sorted.sort();
        assert_eq!(decode_assignment(&bytes).unwrap(), sorted);
        assert_eq!(decode_assignment(&[]).unwrap(), Vec::new());
        assert!(decode_assignment(&[0]).is_err());
        assert!(decode_assignment(&[0, 3, 0, 0, 0, 9]).is_err());
    }

    #[test]
    fn version_zero_subscription_is_read() {
        // Version 0: topics ["x"], user data null.
        let bytes = [0u8, 0, 0, 0, 0, 1, 0, 1, b'x', 0xff, 0xff, 0xff, 0xff];
        let s = decode_subscription(&bytes).unwrap();
        assert_eq!(s.topics, vec!["x"]);
        assert_eq!(s.generation_id, -1);
        assert!(s.owned_partitions.is_empty());
    }
}

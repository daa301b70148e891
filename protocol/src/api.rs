//! The apis regroup serves: key, name, version range, header versions, flexibility.
//!
//! The ranges are Apache Kafka 4.4.0's (`ApiKeys` in the released kafka-clients jar, stable
//! versions only), and regroup can encode and decode every version in them: kafka-protocol 0.18
//! covers most, and `crate::messages` holds the messages written here for the rest.

use std::fmt;

/// An api regroup serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Api {
    Produce,
    Fetch,
    ListOffsets,
    Metadata,
    OffsetCommit,
    OffsetFetch,
    FindCoordinator,
    JoinGroup,
    Heartbeat,
    LeaveGroup,
    SyncGroup,
    DescribeGroups,
    ListGroups,
    ApiVersions,
    CreateTopics,
    InitProducerId,
    TxnOffsetCommit,
    DescribeConfigs,
    CreatePartitions,
    DeleteGroups,
    OffsetDelete,
    DescribeCluster,
    BrokerRegistration,
    BrokerHeartbeat,
    ConsumerGroupHeartbeat,
    ConsumerGroupDescribe,
    StreamsGroupHeartbeat,
    StreamsGroupDescribe,
    StreamsGroupTopologyDescriptionUpdate,
}

/// (api, key, name, lowest version, highest version, first flexible version)
const TABLE: &[(Api, i16, &str, i16, i16, i16)] = &[
    (Api::Produce, 0, "Produce", 3, 13, 9),
    (Api::Fetch, 1, "Fetch", 4, 18, 12),
    (Api::ListOffsets, 2, "ListOffsets", 1, 11, 6),
    (Api::Metadata, 3, "Metadata", 0, 13, 9),
    (Api::OffsetCommit, 8, "OffsetCommit", 2, 10, 8),
    (Api::OffsetFetch, 9, "OffsetFetch", 1, 10, 6),
    (Api::FindCoordinator, 10, "FindCoordinator", 0, 6, 3),
    (Api::JoinGroup, 11, "JoinGroup", 0, 9, 6),
    (Api::Heartbeat, 12, "Heartbeat", 0, 4, 4),
    (Api::LeaveGroup, 13, "LeaveGroup", 0, 5, 4),
    (Api::SyncGroup, 14, "SyncGroup", 0, 5, 4),
    (Api::DescribeGroups, 15, "DescribeGroups", 0, 6, 5),
    (Api::ListGroups, 16, "ListGroups", 0, 5, 3),
    (Api::ApiVersions, 18, "ApiVersions", 0, 5, 3),
    (Api::CreateTopics, 19, "CreateTopics", 2, 7, 5),
    (Api::InitProducerId, 22, "InitProducerId", 0, 5, 2),
    (Api::TxnOffsetCommit, 28, "TxnOffsetCommit", 0, 6, 3),
    (Api::DescribeConfigs, 32, "DescribeConfigs", 1, 4, 4),
    (Api::CreatePartitions, 37, "CreatePartitions", 0, 3, 2),
    (Api::DeleteGroups, 42, "DeleteGroups", 0, 3, 2),
    // No flexible version: the body never uses the compact encoding.
    (Api::OffsetDelete, 47, "OffsetDelete", 0, 0, i16::MAX),
    (Api::DescribeCluster, 60, "DescribeCluster", 0, 2, 0),
    (Api::BrokerRegistration, 62, "BrokerRegistration", 0, 4, 0),
    (Api::BrokerHeartbeat, 63, "BrokerHeartbeat", 0, 2, 0),
    (
        Api::ConsumerGroupHeartbeat,
        68,
        "ConsumerGroupHeartbeat",
        0,
        1,
        0,
    ),
    (
        Api::ConsumerGroupDescribe,
        69,
        "ConsumerGroupDescribe",
        0,
        1,
        0,
    ),
    (
        Api::StreamsGroupHeartbeat,
        88,
        "StreamsGroupHeartbeat",
        0,
        1,
        0,
    ),
    (
        Api::StreamsGroupDescribe,
        89,
        "StreamsGroupDescribe",
        0,
        1,
        0,
    ),
    (
        Api::StreamsGroupTopologyDescriptionUpdate,
        93,
        "StreamsGroupTopologyDescriptionUpdate",
        0,
        0,
        0,
    ),
];

impl Api {
    /// Every api regroup serves, by api key.
    pub const ALL: [Api; 29] = [
        Api::Produce,
        Api::Fetch,
        Api::ListOffsets,
        Api::Metadata,
        Api::OffsetCommit,
        Api::OffsetFetch,
        Api::FindCoordinator,
        Api::JoinGroup,
        Api::Heartbeat,
        Api::LeaveGroup,
        Api::SyncGroup,
        Api::DescribeGroups,
        Api::ListGroups,
        Api::ApiVersions,
        Api::CreateTopics,
        Api::InitProducerId,
        Api::TxnOffsetCommit,
        Api::DescribeConfigs,
        Api::CreatePartitions,
        Api::DeleteGroups,
        Api::OffsetDelete,
        Api::DescribeCluster,
        Api::BrokerRegistration,
        Api::BrokerHeartbeat,
        Api::ConsumerGroupHeartbeat,
        Api::ConsumerGroupDescribe,
        Api::StreamsGroupHeartbeat,
        Api::StreamsGroupDescribe,
        Api::StreamsGroupTopologyDescriptionUpdate,
    ];

    const fn row(self) -> &'static (Api, i16, &'static str, i16, i16, i16) {
        &TABLE[self as usize]
    }

    /// Kafka's numeric api key.
    pub const fn key(self) -> i16 {
        self.row().1
    }

    /// Kafka's name of the api (`ApiKeys.name`), e.g. `StreamsGroupHeartbeat`.
    pub const fn name(self) -> &'static str {
        self.row().2
    }

    /// Lowest version regroup serves.
    pub const fn min_version(self) -> i16 {
        self.row().3
    }

    /// Highest version regroup serves (Kafka 4.4's latest stable version).
    pub const fn max_version(self) -> i16 {
        self.row().4
    }

    /// First version whose body uses the flexible encoding (compact strings and arrays,
    /// tagged fields); `i16::MAX` for an api that has none (OffsetDelete).
    pub const fn first_flexible_version(self) -> i16 {
        self.row().5
    }

    /// Whether `version` is in the range regroup serves.
    pub const fn supports(self, version: i16) -> bool {
        version >= self.min_version() && version <= self.max_version()
    }

    /// Whether `version` uses the flexible encoding.
    pub const fn is_flexible(self, version: i16) -> bool {
        version >= self.first_flexible_version()
    }

    /// Request header version Kafka uses for this api at `version`: 2 for flexible versions,
    /// 1 otherwise (header v0 was only used by ControlledShutdown v0, removed in Kafka 4.0).
    pub const fn request_header_version(self, version: i16) -> i16 {
        if self.is_flexible(version) { 2 } else { 1 }
    }

    /// Response header version: 1 for flexible versions, 0 otherwise, and always 0 for
    /// ApiVersions so a client can read the answer whatever version the broker picked.
    pub const fn response_header_version(self, version: i16) -> i16 {
        if matches!(self, Api::ApiVersions) {
            0
        } else if self.is_flexible(version) {
            1
        } else {
            0
        }
    }

    /// The api with key `key`, if regroup serves it.
    pub fn from_key(key: i16) -> Option<Api> {
        TABLE.iter().find(|row| row.1 == key).map(|row| row.0)
    }

    /// The api named `name`, ignoring case (`streamsgroupheartbeat` works).
    pub fn from_name(name: &str) -> Option<Api> {
        TABLE
            .iter()
            .find(|row| row.2.eq_ignore_ascii_case(name))
            .map(|row| row.0)
    }

    /// Parses a name (any case) or a numeric key.
    pub fn parse(text: &str) -> Option<Api> {
        let text = text.trim();
        match text.parse::<i16>() {
            Ok(key) => Api::from_key(key),
            Err(_) => Api::from_name(text),
        }
    }
}

impl fmt::Display for Api {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_is_indexed_by_variant_and_sorted_by_key() {
        for (i, api) in Api::ALL.iter().enumerate() {
            assert_eq!(TABLE[i].0, *api);
            assert_eq!(*api as usize, i);
        }
        assert!(TABLE.windows(2).all(|w| w[0].1 < w[1].1));
    }

    #[test]
    fn header_versions_follow_kafka() {
        // Values printed by kafka-clients 4.4.0 ApiKeys.{request,response}HeaderVersion.
        assert_eq!(Api::ApiVersions.request_header_version(3), 2);
        assert_eq!(Api::ApiVersions.response_header_version(3), 0);
        assert_eq!(Api::ApiVersions.request_header_version(2), 1);
        assert_eq!(Api::OffsetCommit.request_header_version(7), 1);
        assert_eq!(Api::OffsetCommit.response_header_version(8), 1);
        assert_eq!(Api::FindCoordinator.response_header_version(2), 0);
        assert_eq!(Api::BrokerHeartbeat.request_header_version(0), 2);
        assert_eq!(Api::StreamsGroupHeartbeat.response_header_version(1), 1);
        assert_eq!(Api::Fetch.request_header_version(11), 1);
        assert_eq!(Api::Fetch.request_header_version(12), 2);
    }

    #[test]
    fn lookup_by_name_and_key() {
        assert_eq!(Api::parse("brokerheartbeat"), Some(Api::BrokerHeartbeat));
        assert_eq!(Api::parse("63"), Some(Api::BrokerHeartbeat));
        assert_eq!(
            Api::parse("93"),
            Some(Api::StreamsGroupTopologyDescriptionUpdate)
        );
        assert_eq!(Api::parse("4"), None);
        assert_eq!(Api::parse("NoSuchApi"), None);
        assert_eq!(Api::StreamsGroupDescribe.key(), 89);
        assert_eq!(Api::parse("68"), Some(Api::ConsumerGroupHeartbeat));
        assert_eq!(
            Api::parse("consumergroupdescribe"),
            Some(Api::ConsumerGroupDescribe)
        );
        assert_eq!(Api::ListOffsets.max_version(), 11);
    }
}

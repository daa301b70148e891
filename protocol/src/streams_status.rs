//! The status codes of StreamsGroupHeartbeat responses (Kafka's
//! `StreamsGroupHeartbeatResponse.Status`), one home for the coordinator, the client models and
//! the scenarios.

/// A status of a StreamsGroupHeartbeat response.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(i8)]
pub enum StreamsStatus {
    StaleTopology = 0,
    MissingSourceTopics = 1,
    IncorrectlyPartitionedTopics = 2,
    MissingInternalTopics = 3,
    ShutdownApplication = 4,
    AssignmentDelayed = 5,
    /// Heartbeat v1 only (KIP-1339 rack-aware standby tags).
    MissingClientTags = 6,
}

impl StreamsStatus {
    pub const ALL: [StreamsStatus; 7] = [
        StreamsStatus::StaleTopology,
        StreamsStatus::MissingSourceTopics,
        StreamsStatus::IncorrectlyPartitionedTopics,
        StreamsStatus::MissingInternalTopics,
        StreamsStatus::ShutdownApplication,
        StreamsStatus::AssignmentDelayed,
        StreamsStatus::MissingClientTags,
    ];

    /// The wire code.
    pub const fn code(self) -> i8 {
        self as i8
    }

    /// The status of a wire code, if it is one.
    pub fn from_code(code: i8) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.code() == code)
    }

    /// Kafka's name of the status.
    pub const fn name(self) -> &'static str {
        match self {
            StreamsStatus::StaleTopology => "STALE_TOPOLOGY",
            StreamsStatus::MissingSourceTopics => "MISSING_SOURCE_TOPICS",
            StreamsStatus::IncorrectlyPartitionedTopics => "INCORRECTLY_PARTITIONED_TOPICS",
            StreamsStatus::MissingInternalTopics => "MISSING_INTERNAL_TOPICS",
            StreamsStatus::ShutdownApplication => "SHUTDOWN_APPLICATION",
            StreamsStatus::AssignmentDelayed => "ASSIGNMENT_DELAYED",
            StreamsStatus::MissingClientTags => "MISSING_CLIENT_TAGS",
        }
    }

    /// Whether the status means the group is not ready (`StreamsMembershipManager.isGroupReady`).
    pub const fn makes_group_not_ready(self) -> bool {
        matches!(
            self,
            StreamsStatus::MissingSourceTopics
                | StreamsStatus::MissingInternalTopics
                | StreamsStatus::IncorrectlyPartitionedTopics
                | StreamsStatus::AssignmentDelayed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_round_trip_as_kafka_numbers_them() {
        for (i, s) in StreamsStatus::ALL.iter().enumerate() {
            assert_eq!(s.code(), i as i8);
            assert_eq!(StreamsStatus::from_code(s.code()), Some(*s));
        }
        assert_eq!(StreamsStatus::from_code(7), None);
        assert_eq!(
            StreamsStatus::ShutdownApplication.name(),
            "SHUTDOWN_APPLICATION"
        );
    }
}

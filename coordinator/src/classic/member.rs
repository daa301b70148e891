//! One member of a classic group (Kafka's `ClassicGroupMember`), including the requests it has parked.

use bytes::Bytes;

use crate::outcome::RequestToken;

/// One protocol a member supports: its name and the member's metadata for it (for the consumer protocol,
/// the serialized subscription).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Protocol {
    pub name: String,
    pub metadata: Bytes,
}

/// A JoinGroup waiting for the join phase to complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParkedJoin {
    pub token: RequestToken,
    /// The request's version: the response is shaped for it.
    pub version: i16,
}

/// A SyncGroup waiting for the leader's assignment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParkedSync {
    pub token: RequestToken,
    pub version: i16,
}

/// A member of a classic group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassicMember {
    pub member_id: String,
    pub group_instance_id: Option<String>,
    pub client_id: String,
    pub client_host: String,
    pub rebalance_timeout_ms: i32,
    pub session_timeout_ms: i32,
    pub protocol_type: String,
    /// In the member's order of preference.
    pub protocols: Vec<Protocol>,
    /// What the leader assigned it (empty until the first sync).
    pub assignment: Bytes,
    pub awaiting_join: Option<ParkedJoin>,
    pub awaiting_sync: Option<ParkedSync>,
    /// Added by a JoinGroup whose join phase has not completed yet: such a member can be expired by the
    /// new-member join timeout even while it waits in JoinGroup.
    pub is_new: bool,
}

impl ClassicMember {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        member_id: String,
        group_instance_id: Option<String>,
        client_id: String,
        client_host: String,
        rebalance_timeout_ms: i32,
        session_timeout_ms: i32,
        protocol_type: String,
        protocols: Vec<Protocol>,
    ) -> Self {
        Self {
            member_id,
            group_instance_id,
            client_id,
            client_host,
            rebalance_timeout_ms,
            session_timeout_ms,
            protocol_type,
            protocols,
            assignment: Bytes::new(),
            awaiting_join: None,
            awaiting_sync: None,
            is_new: false,
        }
    }

    pub fn is_static(&self) -> bool {
        self.group_instance_id.is_some()
    }

    pub fn is_awaiting_join(&self) -> bool {
        self.awaiting_join.is_some()
    }

    pub fn is_awaiting_sync(&self) -> bool {
        self.awaiting_sync.is_some()
    }

    /// The member's metadata for `protocol` (the first entry with that name), if it supports it.
    pub fn metadata(&self, protocol: &str) -> Option<&Bytes> {
        self.protocols
            .iter()
            .find(|p| p.name == protocol)
            .map(|p| &p.metadata)
    }

    /// A member parked in JoinGroup or SyncGroup cannot be expired by its session timeout, unless it is
    /// new (Kafka's `hasSatisfiedHeartbeat`).
    pub fn has_satisfied_heartbeat(&self) -> bool {
        !self.is_new && (self.is_awaiting_join() || self.is_awaiting_sync())
    }

    /// Whether `protocols` equals the stored list (same names and metadata, same order).
    pub fn matches(&self, protocols: &[Protocol]) -> bool {
        self.protocols == protocols
    }

    /// The first of the member's protocols that is a candidate (Kafka's `vote`).
    pub fn vote<'a>(&'a self, candidates: &[&str]) -> Option<&'a str> {
        self.protocols
            .iter()
            .map(|p| p.name.as_str())
            .find(|name| candidates.contains(name))
    }
}

//! What running a request or a timer produces, and the timers a shard arms: the data the coordinator's
//! handlers hand back to the shard and the shard to its caller. A leaf of the crate: it depends on the
//! wire and the records only, so every handler can produce outcomes without depending on the shard.

use std::collections::BTreeMap;

use protocol::{Api, Response};

use crate::records::Record;

/// The caller's handle for one request, echoed in the [`Reply`] that answers it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct RequestToken(pub u64);

/// The answer to one request.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    pub token: RequestToken,
    pub response: Response,
}

/// What running a request or a timer produced: the records to append (already replayed into the shard)
/// and the replies to send once they are durable, in the order Kafka would complete them.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub records: Vec<Record>,
    pub replies: Vec<Reply>,
    /// Internal topics a streams group needs and the broker should create (Kafka's
    /// `StreamsGroupHeartbeatResult.creatableTopics`, acted on by `KafkaApis`), by name.
    pub topics_to_create: BTreeMap<String, TopicToCreate>,
}

/// An internal topic (changelog or repartition) the broker should create for a streams group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicToCreate {
    pub name: String,
    pub partitions: i32,
    /// -1 = the broker's default.
    pub replication_factor: i16,
    /// Topic-level configs, sorted by key.
    pub configs: BTreeMap<String, String>,
}

impl Outcome {
    pub fn reply(&mut self, token: RequestToken, response: impl Into<Response>) {
        self.replies.push(Reply {
            token,
            response: response.into(),
        });
    }
}

/// A timer that fired, and what it produced.
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    /// Kafka's timer key, e.g. `session-timeout-<group>-<member>`.
    pub key: String,
    pub deadline_ms: i64,
    pub outcome: Outcome,
}

/// Why a shard did not run a request.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// The api is not served by a group coordinator shard (e.g. Metadata); the broker answers it.
    #[error("{0:?} is not a group coordinator api")]
    NotACoordinatorApi(Api),
}

/// What a timer does when it fires. Each group type adds its own tasks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TimerTask {
    Classic(ClassicTimer),
    Consumer(ConsumerTimer),
    Streams(StreamsTimer),
    /// `expire-group-metadata`: the periodic offset and group expiration.
    GroupExpiration,
}

/// What a classic timer does when it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ClassicTimer {
    /// `heartbeat-<group>-<member>`: session (or new-member join, or pending-member) expiry.
    Heartbeat { group_id: String, member_id: String },
    /// `join-<group>` during the initial rebalance of an empty group: extend the delay while new members
    /// keep arriving, up to the rebalance timeout.
    InitialJoin {
        group_id: String,
        delay_ms: i32,
        remaining_ms: i32,
    },
    /// `join-<group>`: the join phase's rebalance timeout.
    Join { group_id: String },
    /// `sync-<group>`: members that have not sent SyncGroup for `generation_id` are removed.
    Sync {
        group_id: String,
        generation_id: i32,
    },
}

/// What a consumer-group timer does when it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsumerTimer {
    /// `session-timeout-<group>-<member>`: fence the member if it is still there.
    SessionTimeout { group_id: String, member_id: String },
    /// `rebalance-timeout-<group>-<member>`: fence the member if it is still at `member_epoch`.
    RebalanceTimeout {
        group_id: String,
        member_id: String,
        member_epoch: i32,
    },
    /// `join-<group>-<member>`: a classic-protocol member did not rejoin in time; fence it if it is
    /// still there.
    JoinTimeout { group_id: String, member_id: String },
    /// `sync-<group>-<member>`: a classic-protocol member did not sync in time; fence it if it is still
    /// there.
    SyncTimeout { group_id: String, member_id: String },
}

/// What a streams timer does when it fires.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StreamsTimer {
    /// `session-timeout-<group>-<member>`: fence the member if it is still there.
    SessionTimeout { group_id: String, member_id: String },
    /// `rebalance-timeout-<group>-<member>`: fence the member if it is still at `member_epoch`.
    RebalanceTimeout {
        group_id: String,
        member_id: String,
        member_epoch: i32,
    },
    /// `initial-rebalance-timeout-<group>`: compute the first target assignment of the group.
    InitialRebalance { group_id: String },
}

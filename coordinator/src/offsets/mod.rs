//! Committed offsets of every group in the shard: OffsetCommit, TxnOffsetCommit, OffsetFetch and
//! OffsetDelete with the per-group-type validation rules (through [`OffsetsEnv::group_validation`]),
//! faithful to Kafka 4.4's `OffsetMetadataManager` plus the
//! topic checks `KafkaApis` makes before the coordinator sees a commit or a deletion (unknown topic ids
//! and names, partitions that do not exist).
//!
//! Transactional offsets are stored as pending until their transaction ends
//! ([`OffsetStore::end_transaction`]); regroup has no transaction coordinator, so nothing ends them yet.

pub use crate::config::offsets as config;
pub mod deletion;
pub mod expiration;
pub mod expiration_condition;
pub mod store;

mod commit;
mod fetch;
mod offset_delete;
mod topics;
mod txn;

pub use config::OffsetsConfig;
pub use deletion::DeletedTopic;
pub use expiration::{GROUP_EXPIRATION_KEY, OffsetExpirationCondition};
pub use store::{OffsetAndMetadata, OffsetStore};

use protocol::Request;

use crate::classic::ClassicGroups;
use crate::config::ShardConfig;
use crate::consumer::ConsumerGroups;
use crate::context::RequestContext;
use crate::group::GroupValidation;
use crate::outcome::{Outcome, RequestToken, TimerTask};
use crate::records::Record;
use crate::streams::StreamsGroups;
use crate::timer::Timers;
use crate::topics::TopicsImage;

/// What an offsets request may touch: the offsets, the topic image, the groups' admission rules
/// (the streams groups read-only; a commit outside any group creates a simple classic group), and the
/// classic sessions a commit keeps alive.
pub(crate) struct OffsetsEnv<'a> {
    pub config: &'a ShardConfig,
    pub topics: &'a TopicsImage,
    pub offsets: &'a mut OffsetStore,
    pub streams: &'a StreamsGroups,
    pub consumer: &'a ConsumerGroups,
    pub classic: &'a mut ClassicGroups,
    pub timers: &'a mut Timers<TimerTask>,
}

impl OffsetsEnv<'_> {
    /// The admission rules of the group `group_id`, whatever its type.
    pub fn group_validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        self.streams
            .validation(group_id)
            .or_else(|| self.consumer.validation(group_id))
            .or_else(|| self.classic.validation(group_id))
    }
}

/// Runs one offsets request (OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete); other requests
/// produce an empty outcome.
pub(crate) fn handle(
    env: &mut OffsetsEnv<'_>,
    token: RequestToken,
    rctx: &RequestContext,
    request: &Request,
    now_ms: i64,
) -> Outcome {
    let mut out = Outcome::default();
    match request {
        Request::OffsetCommit(r) => commit::commit(env, token, rctx, r, now_ms, &mut out),
        Request::TxnOffsetCommit(r) => txn::commit(env, token, rctx, r, now_ms, &mut out),
        Request::OffsetFetch(r) => fetch::fetch(env, token, rctx, r, &mut out),
        Request::OffsetDelete(r) => {
            let response = offset_delete::delete_offsets(env, r, &mut out.records);
            out.reply(token, response);
        }
        _ => {}
    }
    out
}

/// Applies an offset record. Committing offsets for a group that does not exist creates a simple
/// (empty, protocol-less) classic group, as Kafka's replay does.
pub(crate) fn replay(
    offsets: &mut OffsetStore,
    streams: &StreamsGroups,
    consumer: &ConsumerGroups,
    classic: &mut ClassicGroups,
    record: &Record,
) {
    let (key, value, producer_id) = match record {
        Record::OffsetCommit { key, value } => (key, value.as_ref(), None),
        Record::TxnOffsetCommit {
            producer_id,
            key,
            value,
            ..
        } => (key, value.as_ref(), Some(*producer_id)),
        _ => return,
    };
    let known = streams.validation(&key.group).is_some()
        || consumer.validation(&key.group).is_some()
        || classic.validation(&key.group).is_some();
    if value.is_some() && !known {
        classic.create_empty_group(&key.group, None);
    }
    offsets.replay(key, value, producer_id);
}

/// Kafka's `isMetadataInvalid`: metadata longer (in UTF-16 code units, Java's `String.length()`) than
/// `offset.metadata.max.bytes`.
pub(crate) fn metadata_too_large(metadata: Option<&str>, max: i32) -> bool {
    metadata.is_some_and(|m| m.encode_utf16().count() as i64 > i64::from(max))
}

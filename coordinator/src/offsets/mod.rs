//! Committed offsets of every group in the shard: OffsetCommit, TxnOffsetCommit, OffsetFetch and
//! OffsetDelete with the per-group-type validation rules (through
//! [`crate::shard::Shard::group_validation`]), faithful to Kafka 4.4's `OffsetMetadataManager` plus the
//! topic checks `KafkaApis` makes before the coordinator sees a commit or a deletion (unknown topic ids
//! and names, partitions that do not exist).
//!
//! Transactional offsets are stored as pending until their transaction ends
//! ([`OffsetStore::end_transaction`]); regroup has no transaction coordinator, so nothing ends them yet.

pub mod config;
pub mod deletion;
pub mod expiration;
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

use crate::context::RequestContext;
use crate::records::Record;
use crate::shard::{Outcome, RequestToken, Shard};

/// Runs one offsets request (OffsetCommit, TxnOffsetCommit, OffsetFetch, OffsetDelete); other requests
/// produce an empty outcome.
pub(crate) fn handle(
    shard: &mut Shard,
    token: RequestToken,
    rctx: &RequestContext,
    request: &Request,
    now_ms: i64,
) -> Outcome {
    let mut out = Outcome::default();
    match request {
        Request::OffsetCommit(r) => commit::commit(shard, token, rctx, r, now_ms, &mut out),
        Request::TxnOffsetCommit(r) => txn::commit(shard, token, rctx, r, now_ms, &mut out),
        Request::OffsetFetch(r) => fetch::fetch(shard, token, rctx, r, &mut out),
        Request::OffsetDelete(r) => {
            let response = offset_delete::delete_offsets(shard, r, &mut out.records);
            out.reply(token, response);
        }
        _ => {}
    }
    out
}

/// Applies an offset record. Committing offsets for a group that does not exist creates a simple
/// (empty, protocol-less) classic group, as Kafka's replay does.
pub(crate) fn replay(shard: &mut Shard, record: &Record) {
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
    if value.is_some() && shard.group_validation(&key.group).is_none() {
        shard.classic.create_empty_group(&key.group, None);
    }
    shard.offsets.replay(key, value, producer_id);
}

/// Kafka's `isMetadataInvalid`: metadata longer (in UTF-16 code units, Java's `String.length()`) than
/// `offset.metadata.max.bytes`.
pub(crate) fn metadata_too_large(metadata: Option<&str>, max: i32) -> bool {
    metadata.is_some_and(|m| m.encode_utf16().count() as i64 > i64::from(max))
}

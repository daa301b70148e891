//! What a consumer group admits of offset commits, offset fetches, offset deletes and its own
//! deletion: Kafka 4.4's `ConsumerGroup` implementation of the `Group` interface
//! (`validateOffsetCommit` with KIP-1251's per-partition assignment epochs, `validateOffsetFetch`,
//! `validateOffsetDelete`, `validateDeleteGroup`, `isSubscribedToTopic`).

use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;
use uuid::Uuid;

use crate::consumer::group::{ConsumerGroup, ConsumerGroupState};
use crate::consumer::member::ConsumerGroupMember;
use crate::error::ApiError;
use crate::group::{CommitPartitionValidator, GroupType, GroupValidation};

/// The epoch error of a member: STALE_MEMBER_EPOCH for a consumer-protocol member,
/// ILLEGAL_GENERATION for a classic-protocol one.
fn epoch_error(member: &ConsumerGroupMember, message: String) -> ApiError {
    let code = if member.use_classic_protocol() {
        ErrorCode::IllegalGeneration
    } else {
        ErrorCode::StaleMemberEpoch
    };
    ApiError::new(code, message)
}

impl GroupValidation for ConsumerGroup {
    fn group_type(&self) -> GroupType {
        GroupType::Consumer
    }

    /// `ConsumerGroup.validateOffsetCommit`: an empty group takes commits with a negative epoch, a
    /// transactional commit without member passes; otherwise the member must exist, a
    /// consumer-protocol member must use OffsetCommit v9+, and its epoch must be the current one or,
    /// when older, no older than each committed partition's assignment epoch (KIP-1251: checked per
    /// partition, assigned or pending revocation, by topic id).
    fn validate_offset_commit(
        &self,
        member_id: &str,
        group_instance_id: Option<&str>,
        member_epoch: i32,
        is_transactional: bool,
        api_version: i16,
        _bugs: &KafkaBugs,
    ) -> Result<CommitPartitionValidator<'_>, ApiError> {
        let p = &self.persistent;
        if member_epoch < 0 && p.members.is_empty() {
            return Ok(CommitPartitionValidator::NoOp);
        }
        if is_transactional
            && member_epoch == -1
            && member_id.is_empty()
            && group_instance_id.is_none()
        {
            return Ok(CommitPartitionValidator::NoOp);
        }
        let member = p.members.get(member_id).ok_or_else(|| {
            ApiError::new(
                ErrorCode::UnknownMemberId,
                format!(
                    "Member {member_id} is not a member of group {}.",
                    self.group_id
                ),
            )
        })?;
        if !is_transactional && !member.use_classic_protocol() && api_version < 9 {
            return Err(ApiError::new(
                ErrorCode::UnsupportedVersion,
                "OffsetCommit version 9 or above must be used by members using the consumer group protocol",
            ));
        }
        if member_epoch == member.member_epoch {
            return Ok(CommitPartitionValidator::NoOp);
        }
        if member_epoch > member.member_epoch {
            let (what, noun) = if member.use_classic_protocol() {
                ("generation id", "member epoch")
            } else {
                ("member epoch", "member epoch")
            };
            return Err(epoch_error(
                member,
                format!(
                    "Received {what} {member_epoch} is newer than current {noun} {}.",
                    member.member_epoch
                ),
            ));
        }
        Ok(CommitPartitionValidator::Check(Box::new(
            move |topic: &str, topic_id: Uuid, partition: i32| {
                let epoch = member
                    .assignment_epoch(&topic_id, partition)
                    .or_else(|| member.pending_revocation_epoch(&topic_id, partition))
                    .ok_or_else(|| {
                        epoch_error(
                            member,
                            format!(
                                "Partition {topic}-{partition} is not assigned or pending revocation for member."
                            ),
                        )
                    })?;
                if member_epoch < epoch {
                    let what = if member.use_classic_protocol() {
                        "generation id"
                    } else {
                        "member epoch"
                    };
                    return Err(epoch_error(
                        member,
                        format!(
                            "Received {what} {member_epoch} is older than assignment epoch {epoch} for partition {topic}-{partition}."
                        ),
                    ));
                }
                Ok(())
            },
        )))
    }

    /// `ConsumerGroup.validateOffsetFetch`: a fetch with a member id or an epoch must come from a
    /// member at exactly its current epoch.
    fn validate_offset_fetch(
        &self,
        member_id: Option<&str>,
        member_epoch: i32,
    ) -> Result<(), ApiError> {
        if member_id.is_none() && member_epoch < 0 {
            return Ok(());
        }
        // A null member id with an epoch: the timeline map's lookup throws a NullPointerException,
        // an UNKNOWN_SERVER_ERROR (as for streams groups).
        let Some(id) = member_id else {
            return Err(ApiError::with_default_message(
                ErrorCode::UnknownServerError,
            ));
        };
        let member = self.persistent.members.get(id).ok_or_else(|| {
            ApiError::new(
                ErrorCode::UnknownMemberId,
                format!("Member {id} is not a member of group {}.", self.group_id),
            )
        })?;
        if member_epoch != member.member_epoch {
            let what = if member.use_classic_protocol() {
                "generation id"
            } else {
                "member epoch"
            };
            return Err(epoch_error(
                member,
                format!(
                    "The received {what} {member_epoch} does not match the expected member epoch {}.",
                    member.member_epoch
                ),
            ));
        }
        Ok(())
    }

    /// `ConsumerGroup.validateOffsetDelete`: nothing to check.
    fn validate_offset_delete(&self) -> Result<(), ApiError> {
        Ok(())
    }

    /// `ConsumerGroup.validateDeleteGroup`: only an empty group may be deleted.
    fn validate_delete_group(&self) -> Result<(), ApiError> {
        if self.state() != ConsumerGroupState::Empty {
            return Err(ApiError::with_default_message(ErrorCode::NonEmptyGroup));
        }
        Ok(())
    }

    /// `ModernGroup.isSubscribedToTopic`: some member subscribes to the topic (by name or through a
    /// resolved regex).
    fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        self.is_subscribed_to_topic(topic)
    }
}

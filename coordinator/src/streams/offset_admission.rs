//! What a streams group admits of offset commits, offset fetches, offset deletes and its own
//! deletion: Kafka 4.4's `StreamsGroup` implementation of the `Group` interface
//! (`validateOffsetCommit`, `validateOffsetFetch`, `validateOffsetDelete`, `validateDeleteGroup`,
//! `isSubscribedToTopic`). The offsets code asks it through
//! [`GroupValidation`]; a commit that passes may still be checked per partition
//! ([`CommitPartitionValidator::Check`]).

use kafka_bugs::{KafkaBug, KafkaBugs};
use protocol::ErrorCode;
use uuid::Uuid;

use crate::error::ApiError;
use crate::group::{CommitPartitionValidator, GroupType, GroupValidation};
use crate::streams::group::{StreamsGroup, StreamsGroupState};

impl GroupValidation for StreamsGroup {
    fn group_type(&self) -> GroupType {
        GroupType::Streams
    }

    /// `StreamsGroup.validateOffsetCommit`: commits of an empty group with a negative epoch and
    /// transactional commits without member are admitted as they are; otherwise the member must
    /// exist, commit with OffsetCommit v9+ (plain commits), and use its current epoch, or an older
    /// epoch no older than the assignment epoch of each committed task (KIP-1251, checked per
    /// partition against the task the topology maps the topic to, assigned or pending revocation).
    fn validate_offset_commit(
        &self,
        member_id: &str,
        group_instance_id: Option<&str>,
        member_epoch: i32,
        is_transactional: bool,
        api_version: i16,
        bugs: &KafkaBugs,
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
        if !is_transactional && api_version < 9 {
            return Err(ApiError::new(
                ErrorCode::UnsupportedVersion,
                "OffsetCommit version 9 or above must be used by members using the streams group protocol",
            ));
        }
        if member_epoch == member.member_epoch {
            return Ok(CommitPartitionValidator::NoOp);
        }
        // Before KAFKA-19779 (apache/kafka#20714, #20717, #20730, #20760; fixed in 4.2.0), 4.1's
        // `validateMemberEpoch` admitted exactly the member's epoch: a commit sent just before an
        // epoch bump, or by a member that missed the bump's response, was refused.
        if bugs.on(KafkaBug::Kafka19779) {
            return Err(ApiError::new(
                ErrorCode::StaleMemberEpoch,
                format!(
                    "The received member epoch {member_epoch} does not match the expected member epoch {}.",
                    member.member_epoch
                ),
            ));
        }
        if member_epoch > member.member_epoch {
            return Err(ApiError::new(
                ErrorCode::StaleMemberEpoch,
                format!(
                    "Received member epoch {member_epoch} is newer than current member epoch {}.",
                    member.member_epoch
                ),
            ));
        }
        let topology = p.topology.as_ref().ok_or_else(|| {
            ApiError::new(
                ErrorCode::StaleMemberEpoch,
                "Topology is not available for offset commit validation.",
            )
        })?;
        Ok(CommitPartitionValidator::Check(Box::new(
            move |topic: &str, _id: Uuid, partition: i32| {
                let sub = topology.source_topic_map.get(topic).ok_or_else(|| {
                    ApiError::new(
                        ErrorCode::StaleMemberEpoch,
                        format!("Topic {topic} is not in the topology."),
                    )
                })?;
                let epoch = member
                    .assigned
                    .active
                    .get(sub)
                    .and_then(|m| m.get(&partition))
                    .or_else(|| {
                        member
                            .pending_revocation
                            .active
                            .get(sub)
                            .and_then(|m| m.get(&partition))
                    })
                    .ok_or_else(|| {
                        ApiError::new(
                            ErrorCode::StaleMemberEpoch,
                            format!("Task {sub}-{partition} is not assigned or pending revocation for member."),
                        )
                    })?;
                if member_epoch < *epoch {
                    return Err(ApiError::new(
                        ErrorCode::StaleMemberEpoch,
                        format!(
                            "Received member epoch {member_epoch} is older than assignment epoch {epoch} for task {sub}-{partition}."
                        ),
                    ));
                }
                Ok(())
            },
        )))
    }

    /// `StreamsGroup.validateOffsetFetch`: a fetch with a member id or an epoch must come from a
    /// member at exactly its current epoch.
    fn validate_offset_fetch(
        &self,
        member_id: Option<&str>,
        member_epoch: i32,
    ) -> Result<(), ApiError> {
        if member_id.is_none() && member_epoch < 0 {
            return Ok(());
        }
        // Kafka looks the member up with `members.get(memberId, lastCommittedOffset)`, a
        // `TimelineHashMap` whose entries hash their key: a null member id with an epoch throws a
        // NullPointerException there, and the fetch is answered UNKNOWN_SERVER_ERROR (checked
        // against Kafka's coordinator by conformance/corpus/rude-client.jsonl).
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
            return Err(ApiError::new(
                ErrorCode::StaleMemberEpoch,
                format!(
                    "The received member epoch {member_epoch} does not match the expected member epoch {}.",
                    member.member_epoch
                ),
            ));
        }
        Ok(())
    }

    /// `StreamsGroup.validateOffsetDelete`: always admitted (the subscribed-topic check is the
    /// caller's, through [`GroupValidation::is_subscribed_to_topic`]).
    fn validate_offset_delete(&self) -> Result<(), ApiError> {
        Ok(())
    }

    /// `StreamsGroup.validateDeleteGroup`: only an empty group may be deleted.
    fn validate_delete_group(&self) -> Result<(), ApiError> {
        if self.state() != StreamsGroupState::Empty {
            return Err(ApiError::with_default_message(ErrorCode::NonEmptyGroup));
        }
        Ok(())
    }

    /// `StreamsGroup.isSubscribedToTopic`: a group with members whose topology reads the topic.
    fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        if matches!(
            self.state(),
            StreamsGroupState::Empty | StreamsGroupState::Dead
        ) {
            return false;
        }
        self.persistent
            .topology
            .as_ref()
            .is_some_and(|t| t.source_topic_map.contains_key(topic))
    }
}

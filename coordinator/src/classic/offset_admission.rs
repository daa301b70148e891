//! What a classic group admits of offset commits, fetches, deletes and its own deletion (Kafka's
//! `ClassicGroup` implementation of the `Group` interface).

use kafka_bugs::KafkaBugs;
use protocol::ErrorCode;

use super::group::ClassicGroup;
use super::state::GroupState;
use crate::error::ApiError;
use crate::group::{CommitPartitionValidator, GroupType, GroupValidation};

impl GroupValidation for ClassicGroup {
    fn group_type(&self) -> GroupType {
        GroupType::Classic
    }

    fn validate_offset_commit(
        &self,
        member_id: &str,
        group_instance_id: Option<&str>,
        generation_id: i32,
        is_transactional: bool,
        _api_version: i16,
        _bugs: &KafkaBugs,
    ) -> Result<CommitPartitionValidator<'_>, ApiError> {
        if self.is_in_state(GroupState::Dead) {
            return Err(ApiError::with_default_message(
                ErrorCode::CoordinatorNotAvailable,
            ));
        }
        if generation_id < 0 && self.is_in_state(GroupState::Empty) {
            // Admin clients and consumers that assign partitions themselves commit with generation -1;
            // that is allowed while the group has no members, whatever member fields they send.
            return Ok(CommitPartitionValidator::NoOp);
        }
        if generation_id >= 0 || !member_id.is_empty() || group_instance_id.is_some() {
            self.validate_member(member_id, group_instance_id)
                .map_err(ApiError::with_default_message)?;
            if generation_id != self.generation_id() {
                return Err(ApiError::with_default_message(ErrorCode::IllegalGeneration));
            }
        } else if !is_transactional && !self.is_in_state(GroupState::Empty) {
            // A commit without any member information is only accepted by an empty group (old
            // transactional commits carry none, so they are exempt).
            return Err(ApiError::with_default_message(ErrorCode::UnknownMemberId));
        }
        if !is_transactional && self.is_in_state(GroupState::CompletingRebalance) {
            return Err(ApiError::with_default_message(
                ErrorCode::RebalanceInProgress,
            ));
        }
        Ok(CommitPartitionValidator::NoOp)
    }

    fn validate_offset_fetch(
        &self,
        _member_id: Option<&str>,
        _member_epoch: i32,
    ) -> Result<(), ApiError> {
        if self.is_in_state(GroupState::Dead) {
            return Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {} is in dead state.", self.group_id()),
            ));
        }
        Ok(())
    }

    fn validate_offset_delete(&self) -> Result<(), ApiError> {
        match self.state() {
            GroupState::Dead => Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {} is in dead state.", self.group_id()),
            )),
            GroupState::Stable
            | GroupState::PreparingRebalance
            | GroupState::CompletingRebalance
                if !self.uses_consumer_group_protocol() =>
            {
                Err(ApiError::with_default_message(ErrorCode::NonEmptyGroup))
            }
            _ => Ok(()),
        }
    }

    fn validate_delete_group(&self) -> Result<(), ApiError> {
        match self.state() {
            GroupState::Dead => Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Group {} is in dead state.", self.group_id()),
            )),
            GroupState::Stable
            | GroupState::PreparingRebalance
            | GroupState::CompletingRebalance => {
                Err(ApiError::with_default_message(ErrorCode::NonEmptyGroup))
            }
            GroupState::Empty => Ok(()),
        }
    }

    fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        ClassicGroup::is_subscribed_to_topic(self, topic)
    }
}

//! One coordinator shard: the state of one `__consumer_offsets` partition and the only way to change it.
//!
//! Modelled on Kafka's `GroupCoordinatorShard` run by its `CoordinatorRuntime`:
//! * [`Shard::handle`] runs one request. The handler reads the current state, may update soft state
//!   (timers, classic rebalance bookkeeping, in-memory task offsets, ...) and produces records; the shard
//!   then replays those records, exactly as Kafka's runtime replays a handler's records after it returns.
//!   Handlers therefore never see their own records.
//! * [`Shard::replay`] applies one record. Loading a partition after fail-over is a fresh shard replaying
//!   the partition's records followed by [`Shard::on_loaded`], so persistent state survives fail-over by
//!   construction.
//! * Timers live in the shard ([`Shard::next_deadline`], [`Shard::expire`]); time is always an argument.
//!
//! Responses are [`Reply`]s tagged with the caller's [`RequestToken`], because a classic JoinGroup or
//! SyncGroup may be parked and answered later, by another request or by a timer. The caller must make the
//! records of an [`Outcome`] durable before sending its replies (Kafka answers only once the records are
//! committed).

use std::collections::BTreeMap;

use protocol::{Request, Response};

use crate::classic::ClassicGroups;
use crate::config::ShardConfig;
use crate::consumer::ConsumerGroups;
use crate::context::RequestContext;
use crate::group::GroupValidation;
use crate::offsets::OffsetStore;
pub use crate::outcome::{
    Fired, Outcome, Reply, RequestToken, ShardError, TimerTask, TopicToCreate,
};
use crate::records::Record;
use crate::streams::StreamsGroups;
use crate::timer::Timers;
use crate::topics::TopicsImage;

/// The borrows of the shard the streams code works with (disjoint from `self.streams`).
macro_rules! streams_env {
    ($shard:expr) => {
        crate::streams::StreamsEnv {
            config: &$shard.config,
            topics: &$shard.topics,
            // A consumer group of the id is "not a streams group", whatever its state.
            classic: &crate::group::TwoTypesRef {
                first: &$shard.classic,
                second: &$shard.consumer,
            },
            timers: &mut $shard.timers,
        }
    };
}

/// The borrows of the shard the consumer code works with (disjoint from `self.consumer`).
macro_rules! consumer_env {
    ($shard:expr) => {
        crate::consumer::ConsumerEnv {
            config: &$shard.config,
            topics: &$shard.topics,
            other_types: vec![
                &$shard.classic as &dyn crate::group::OtherGroupType,
                &$shard.streams as &dyn crate::group::OtherGroupType,
            ],
            timers: &mut $shard.timers,
        }
    };
}

/// The outcome of a streams request: its one reply and its records.
fn streams_outcome(token: RequestToken, handled: Option<(Response, Vec<Record>)>) -> Outcome {
    let mut outcome = Outcome::default();
    if let Some((response, records)) = handled {
        outcome.records = records;
        outcome.reply(token, response);
    }
    outcome
}

/// One `__consumer_offsets` partition's coordinator.
#[derive(Debug, Clone, Default)]
pub struct Shard {
    pub config: ShardConfig,
    pub topics: TopicsImage,
    pub streams: StreamsGroups,
    pub consumer: ConsumerGroups,
    pub classic: ClassicGroups,
    pub offsets: OffsetStore,
    pub timers: Timers<TimerTask>,
}

impl Shard {
    pub fn new(config: ShardConfig) -> Self {
        let mut shard = Self::default();
        if !config.task_assignors.0.is_empty() {
            shard.streams.set_assignors(config.task_assignors.0.clone());
        }
        shard.config = config;
        shard
    }

    /// Runs one request at `now_ms`. The records of the outcome have been replayed into the shard.
    pub fn handle(
        &mut self,
        token: RequestToken,
        ctx: &RequestContext,
        request: &Request,
        now_ms: i64,
    ) -> Result<Outcome, ShardError> {
        // Each group type adds its apis here.
        let outcome = match request {
            Request::ConsumerGroupHeartbeat(_) | Request::ConsumerGroupDescribe(_) => {
                let handled = self
                    .consumer
                    .handle(&mut consumer_env!(self), ctx, request, now_ms);
                let mut outcome = Outcome::default();
                // An online upgrade answers the classic group's parked requests before its
                // tombstone is replayed (`convertToConsumerGroup`).
                for group_id in self.consumer.take_upgrade_attempts() {
                    self.classic.complete_all_join_and_sync_futures(
                        &group_id,
                        protocol::ErrorCode::RebalanceInProgress,
                        &mut outcome,
                    );
                }
                let mut handled_outcome = streams_outcome(token, handled);
                handled_outcome.replies.splice(0..0, outcome.replies);
                self.install_downgrades(&mut handled_outcome, now_ms);
                handled_outcome
            }
            Request::StreamsGroupHeartbeat(_)
            | Request::StreamsGroupDescribe(_)
            | Request::StreamsGroupTopologyDescriptionUpdate(_) => {
                let handled = self
                    .streams
                    .handle(&mut streams_env!(self), ctx, request, now_ms);
                let mut outcome = streams_outcome(token, handled);
                let asks_for_topics = matches!(request, Request::StreamsGroupHeartbeat(_));
                for topic in self
                    .streams
                    .internal_topics_to_create()
                    .iter()
                    .filter(|_| asks_for_topics)
                {
                    outcome.topics_to_create.insert(
                        topic.name.clone(),
                        TopicToCreate {
                            name: topic.name.clone(),
                            partitions: topic.num_partitions,
                            replication_factor: topic.replication_factor,
                            configs: topic.configs.iter().cloned().collect(),
                        },
                    );
                }
                outcome
            }
            // A classic member of a consumer group (online migration): the consumer group serves its
            // JoinGroup, SyncGroup, Heartbeat and LeaveGroup.
            Request::JoinGroup(_)
            | Request::SyncGroup(_)
            | Request::Heartbeat(_)
            | Request::LeaveGroup(_)
                if crate::consumer::heartbeat::classic::serves(
                    &self.consumer,
                    &self.config.classic,
                    ctx,
                    request,
                ) =>
            {
                let mut outcome = crate::consumer::heartbeat::classic::handle(
                    &mut self.consumer,
                    &mut consumer_env!(self),
                    token,
                    ctx,
                    request,
                    now_ms,
                );
                self.install_downgrades(&mut outcome, now_ms);
                outcome
            }
            Request::JoinGroup(_)
            | Request::SyncGroup(_)
            | Request::Heartbeat(_)
            | Request::LeaveGroup(_)
            | Request::DescribeGroups(_) => {
                let mut env = crate::classic::api::ClassicEnv {
                    config: &self.config.classic,
                    bugs: &self.config.kafka_bugs,
                    classic: &mut self.classic,
                    // A join replaces an empty streams or consumer group (`maybeDeleteEmpty*Group`).
                    streams: &mut crate::group::TwoTypes {
                        first: &mut self.streams,
                        second: &self.consumer,
                        second_replaceable: true,
                    },
                    timers: &mut self.timers,
                };
                crate::classic::api::handle(&mut env, token, ctx, request, now_ms)
            }
            Request::OffsetCommit(_)
            | Request::TxnOffsetCommit(_)
            | Request::OffsetFetch(_)
            | Request::OffsetDelete(_) => {
                let mut env = crate::offsets::OffsetsEnv {
                    config: &self.config,
                    topics: &self.topics,
                    offsets: &mut self.offsets,
                    streams: &self.streams,
                    consumer: &self.consumer,
                    classic: &mut self.classic,
                    timers: &mut self.timers,
                };
                crate::offsets::handle(&mut env, token, ctx, request, now_ms)
            }
            Request::ListGroups(_) | Request::DeleteGroups(_) => {
                let mut env = crate::group_admin::GroupAdminEnv {
                    streams: &mut self.streams,
                    consumer: &mut self.consumer,
                    classic: &self.classic,
                    offsets: &self.offsets,
                    timers: &mut self.timers,
                };
                crate::group_admin::handle(&mut env, token, ctx, request)
            }
            _ => return Err(ShardError::NotACoordinatorApi(request.api())),
        };
        let mut outcome = self.commit(outcome);
        // A consumer heartbeat may have scheduled a regex resolution: it runs now, its records
        // following the heartbeat's (`consumer::regex_refresh` explains the choice of moment).
        while let Some((_, records)) = self.consumer.run_regex_refreshes(&self.topics, now_ms) {
            let refreshed = self.commit(Outcome {
                records,
                ..Outcome::default()
            });
            outcome.records.extend(refreshed.records);
        }
        Ok(outcome)
    }

    /// Applies one record to the persistent state.
    pub fn replay(&mut self, record: &Record) {
        match record {
            Record::StreamsGroupMetadata { .. }
            | Record::StreamsGroupMemberMetadata { .. }
            | Record::StreamsGroupTargetAssignmentMetadata { .. }
            | Record::StreamsGroupTargetAssignmentMember { .. }
            | Record::StreamsGroupCurrentMemberAssignment { .. }
            | Record::StreamsGroupTopology { .. } => self.streams.replay(record),
            Record::ConsumerGroupMetadata { .. }
            | Record::ConsumerGroupPartitionMetadata { .. }
            | Record::ConsumerGroupMemberMetadata { .. }
            | Record::ConsumerGroupTargetAssignmentMetadata { .. }
            | Record::ConsumerGroupTargetAssignmentMember { .. }
            | Record::ConsumerGroupCurrentMemberAssignment { .. }
            | Record::ConsumerGroupRegularExpression { .. } => {
                // Consumer records replace a simple classic group of the same id
                // (`getOrMaybeCreatePersistedConsumerGroup`).
                if !record.is_tombstone() {
                    self.classic.remove_simple_group(record.group_id());
                }
                self.consumer.replay(record)
            }
            Record::OffsetCommit { .. } | Record::TxnOffsetCommit { .. } => crate::offsets::replay(
                &mut self.offsets,
                &self.streams,
                &self.consumer,
                &mut self.classic,
                record,
            ),
            Record::GroupMetadata { key, value } => self.classic.replay(key, value.as_ref()),
        }
    }

    /// Replays every record of `records` in order.
    pub fn replay_all<'a>(&mut self, records: impl IntoIterator<Item = &'a Record>) {
        for record in records {
            self.replay(record);
        }
    }

    /// Called once a load (a replay of the whole partition) has finished: re-arms the timers Kafka's
    /// `GroupMetadataManager.onLoaded` re-arms, then schedules the periodic offset and group expiration
    /// (`GroupCoordinatorShard.onLoaded`), first due `offsets.retention.check.interval.ms` from now.
    pub fn on_loaded(&mut self, now_ms: i64) {
        self.streams.on_loaded(&mut streams_env!(self), now_ms);
        self.consumer.on_loaded(&mut consumer_env!(self), now_ms);
        self.classic.on_loaded(
            &self.config.classic,
            &self.config.kafka_bugs,
            &mut self.timers,
            now_ms,
        );
        crate::offsets::expiration::schedule(&self.config.offsets, &mut self.timers, now_ms);
    }

    /// Called when the shard is unloaded (the broker lost leadership): cancels every timer and answers
    /// every parked request, as Kafka's `onUnloaded` does.
    pub fn on_unloaded(&mut self) -> Vec<Reply> {
        self.timers.clear();
        self.streams.on_unloaded();
        self.consumer.cancel_regex_refreshes();
        let mut replies = Vec::new();
        replies.extend(self.classic.on_unloaded());
        replies
    }

    /// The earliest timer deadline, if any.
    pub fn next_deadline(&self) -> Option<i64> {
        self.timers.next_deadline()
    }

    /// Fires, in deadline order, every timer due at or before `now_ms`; each runs at its own deadline.
    pub fn expire(&mut self, now_ms: i64) -> Vec<Fired> {
        let mut fired = Vec::new();
        while let Some(due) = self.timers.pop_due(now_ms) {
            let outcome = self.run_timer(due.task, due.deadline_ms);
            fired.push(Fired {
                key: due.key,
                deadline_ms: due.deadline_ms,
                outcome,
            });
        }
        fired
    }

    fn run_timer(&mut self, task: TimerTask, now_ms: i64) -> Outcome {
        match task {
            TimerTask::Streams(t) => {
                let records = self.streams.run_timer(t, &mut streams_env!(self), now_ms);
                self.commit(Outcome {
                    records,
                    ..Outcome::default()
                })
            }
            TimerTask::Classic(t) => {
                let outcome = self.classic.run_timer(
                    &self.config.classic,
                    &self.config.kafka_bugs,
                    &mut self.timers,
                    t,
                    now_ms,
                );
                self.commit(outcome)
            }
            TimerTask::Consumer(t) => {
                let records = self.consumer.run_timer(t, &mut consumer_env!(self));
                let mut outcome = Outcome {
                    records,
                    ..Outcome::default()
                };
                self.install_downgrades(&mut outcome, now_ms);
                self.commit(outcome)
            }
            TimerTask::GroupExpiration => self.cleanup_group_metadata(now_ms),
        }
    }

    /// `GroupCoordinatorShard.cleanupGroupMetadata` at `now_ms` (what the `expire-group-metadata` timer
    /// runs): tombstones for expired offsets and for the empty groups left without offsets, replayed
    /// and returned; the next run is scheduled `offsets.retention.check.interval.ms` later.
    pub fn cleanup_group_metadata(&mut self, now_ms: i64) -> Outcome {
        let mut env = crate::offsets::expiration::ExpirationEnv {
            config: &self.config.offsets,
            offsets: &self.offsets,
            streams: &mut self.streams,
            consumer: &mut self.consumer,
            classic: &self.classic,
            timers: &mut self.timers,
        };
        let outcome = crate::offsets::expiration::run(&mut env, now_ms);
        self.commit(outcome)
    }

    /// Appends the records that delete the group, whatever its type, and cancels its timers
    /// ([`crate::group_deletion::delete_group_records`]).
    pub fn delete_group(&mut self, group_id: &str, records: &mut Vec<Record>) {
        crate::group_deletion::delete_group_records(
            &mut self.streams,
            &mut self.consumer,
            &self.classic,
            &mut self.timers,
            group_id,
            records,
        );
    }

    /// The classic half of the online downgrades the consumer code decided (`convertToClassicGroup`):
    /// each new classic group is installed and its GroupMetadata record follows the consumer group's
    /// tombstones in `outcome`.
    fn install_downgrades(&mut self, outcome: &mut Outcome, now_ms: i64) {
        for d in self.consumer.take_downgrades() {
            // Installing cannot fail for a group Kafka's rules let downgrade: every member is a
            // classic one whose protocols the others share (`supportsClassicProtocols` refused any
            // other at its join), so a protocol is always selected. Should it fail all the same,
            // the failure is logged, never dropped unseen (Kafka's own failure here, an unparsable
            // protocol, is the "Cannot downgrade the classic group" error that regroup does not
            // reproduce yet: docs/consumer.md).
            match self.classic.install_downgraded(
                &d,
                &self.config.classic,
                &self.config.kafka_bugs,
                &mut self.timers,
                now_ms,
            ) {
                Ok(records) => outcome.records.extend(records),
                Err(e) => tracing::error!(
                    group = %d.group_id,
                    error = ?e,
                    "the downgraded classic group could not be installed"
                ),
            }
        }
    }

    /// Applies a handler's records after it returned, as Kafka's runtime does.
    fn commit(&mut self, outcome: Outcome) -> Outcome {
        for record in &outcome.records {
            self.replay(record);
        }
        if !outcome.records.is_empty() {
            self.streams.on_write();
        }
        outcome
    }

    /// Sets the shard's topic metadata (Kafka's metadata image; handlers notice changes through the
    /// metadata hash on the next heartbeat). As Kafka's `GroupCoordinatorService.onMetadataUpdate`, a
    /// topic id that left the image (a deleted topic, or the old incarnation of a re-created one) then
    /// deletes its committed offsets ([`Self::on_topics_deleted`]): the returned outcome holds those
    /// tombstones, already replayed, which the caller must append like any other records.
    pub fn set_topics(&mut self, topics: TopicsImage) -> Outcome {
        self.streams.on_topics_changed(&self.topics, &topics);
        self.consumer.on_topics_changed(&self.topics, &topics);
        let deleted = crate::offsets::deletion::deleted_topics(&self.topics, &topics);
        self.topics = topics;
        if deleted.is_empty() {
            return Outcome::default();
        }
        self.on_topics_deleted(&deleted)
    }

    /// `GroupCoordinatorShard.onTopicsDeleted`: tombstones for the offsets committed for these topics
    /// (matching topic id, or none recorded), replayed and returned.
    pub fn on_topics_deleted(&mut self, deleted: &[crate::offsets::DeletedTopic]) -> Outcome {
        let records = crate::offsets::deletion::on_topics_deleted(&self.offsets, deleted);
        self.commit(Outcome {
            records,
            ..Outcome::default()
        })
    }

    /// The validation answers of the group `group_id`, whatever its type.
    pub fn group_validation(&self, group_id: &str) -> Option<&dyn GroupValidation> {
        self.streams
            .validation(group_id)
            .or_else(|| self.consumer.validation(group_id))
            .or_else(|| self.classic.validation(group_id))
    }

    /// Per-group dynamic configs, as given (`streams.session.timeout.ms` etc.).
    pub fn group_overrides(&self) -> &BTreeMap<String, BTreeMap<String, String>> {
        &self.config.group_overrides
    }
}

//! ConsumerGroupHeartbeat (Kafka 4.4 `GroupMetadataManager.consumerGroupHeartbeat` and
//! `consumerGroupLeave`): join, heartbeat, static membership, leave, fencing.
//!
//! Like Kafka's handler, this code only reads the group's persistent state: it returns the records
//! to append and the shard replays them afterwards. For a heartbeat that creates a group it works on a
//! throw-away group object, so what it sets there (the metadata refresh deadline) is lost, as in Kafka.
//!
//! [`ConsumerGroups::heartbeat_inner`] is the driver and reads like Kafka's method; each step is a
//! function named after Kafka's, in the module that holds it:
//! * [`member`]: the size check, the member (dynamic or static), its epoch check, its updated copy;
//! * [`subscription`]: the member record, the regex status, the preferred assignor, the subscription
//!   metadata and the group-epoch bump;
//! * [`assignment`]: the target assignment and the member's reconciliation;
//! * [`leave`]: epochs -1 and -2, and fencing; [`errors`].

pub(crate) mod assignment;
pub(crate) mod classic;
pub(crate) mod errors;
pub mod leave;
mod member;
mod subscription;

use protocol::ErrorCode;
use protocol::messages::consumer_group_heartbeat_response as resp;
use protocol::messages::{ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, StrBytes};

use crate::consumer::group::ConsumerGroup;
use crate::consumer::member::{ConsumerGroupMember, PartitionEpochs, topic_order};
use crate::consumer::timers;
use crate::consumer::{ConsumerEnv, ConsumerGroups};
use crate::error::ApiError;
use crate::records::Record;

/// One heartbeat as its steps share it: the request and the records produced so far.
pub(super) struct Heartbeat<'a> {
    pub gid: &'a str,
    pub r: &'a ConsumerGroupHeartbeatRequest,
    /// The member id: the request's, or the one generated for a v0 join without one.
    pub member_id: &'a str,
    /// Member epoch 0.
    pub joining: bool,
    pub now_ms: i64,
    /// The records to append, in order.
    pub records: Vec<Record>,
}

/// `ConsumerGroupHeartbeatResponse.createAssignment`: the assigned partitions (never those pending
/// revocation).
pub fn create_assignment(assigned: &PartitionEpochs) -> resp::Assignment {
    resp::Assignment::default().with_topic_partitions(
        topic_order(assigned)
            .into_iter()
            .map(|t| {
                resp::TopicPartitions::default()
                    .with_topic_id(t)
                    .with_partitions(assigned[&t].keys().copied().collect())
            })
            .collect(),
    )
}

impl ConsumerGroups {
    /// Runs a ConsumerGroupHeartbeat past the service checks. `Err` is the error Kafka's handler
    /// throws.
    pub(crate) fn heartbeat_inner(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        client_id: &str,
        client_host: &str,
        r: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
    ) -> Result<(ConsumerGroupHeartbeatResponse, Vec<Record>), ApiError> {
        let group_id = r.group_id.as_str();
        if r.member_epoch == -1 || r.member_epoch == -2 {
            let group = match self.groups.get(group_id) {
                Some(g) => g,
                None if env.other_types.iter().any(|o| o.holds(group_id)) => {
                    return Err(errors::not_consumer_group(group_id));
                }
                None => return Err(errors::group_not_found(group_id)),
            };
            let policy = leave::DowngradePolicy::of(env.config);
            let (response, records, downgrade) = leave::leave(
                group,
                r,
                env.topics,
                &mut self.topic_hash_cache,
                env.timers,
                policy,
            )?;
            self.downgrades.extend(downgrade);
            return Ok((response, records));
        }
        let joining = r.member_epoch == 0;
        let mut records = Vec::new();
        // Get or create the consumer group (a throw-away object when it does not exist yet).
        let mut fresh = self.get_or_maybe_create_consumer_group(env, r, now_ms, &mut records)?;
        let generated;
        let member_id: &str = if r.member_id.is_empty() {
            generated = self.generate_member_id(group_id, now_ms);
            &generated
        } else {
            r.member_id.as_str()
        };
        let config = &env.config.consumer;
        let effective = config.effective(env.config.group_overrides.get(group_id));
        let last_image_with_new_topics = self.last_image_with_new_topics();
        let cache = &mut self.topic_hash_cache;
        let executor = &mut self.executor;
        let group: &mut ConsumerGroup = match fresh.as_mut() {
            Some(g) => g,
            None => self
                .groups
                .get_mut(group_id)
                .ok_or_else(|| errors::not_consumer_group(group_id))?,
        };
        member::throw_if_group_is_full(
            &group.persistent,
            member_id,
            r.instance_id.as_deref(),
            config.max_size,
        )?;
        let mut hb = Heartbeat {
            gid: group_id,
            r,
            member_id,
            joining,
            now_ms,
            records,
        };

        // Get or create the member.
        let member: ConsumerGroupMember = match r.instance_id.as_deref() {
            None => member::get_or_maybe_subscribe_dynamic(&group.persistent, &hb)?.into_owned(),
            Some(instance_id) => {
                member::get_or_maybe_subscribe_static(&group.persistent, &mut hb, instance_id)?
                    .into_owned()
            }
        };

        // 1. Update the member; bump the group epoch if its subscription, its resolved regex or the
        // group's preferred assignor changed, or the metadata hash moved.
        let updated = member::updated_member(&member, &hb, client_id, client_host);
        let names_changed =
            subscription::has_member_subscription_changed(&mut hb, &member, &updated);
        let regex_status = subscription::maybe_update_regular_expressions(
            group,
            &mut hb,
            &member,
            &updated,
            subscription::RegexScheduling {
                executor,
                last_image_with_new_topics,
                refresh_interval_ms: i64::from(config.regex_refresh_interval_ms),
            },
        )?;
        let default_assignor = config.default_assignor();
        let assignor_changed = subscription::has_preferred_server_assignor_changed(
            group,
            &member,
            &updated,
            default_assignor,
        );
        let has_subscription_changed = names_changed || regex_status.regex_updated();
        let bump = names_changed
            || regex_status == subscription::RegexStatus::UpdatedAndResolved
            || assignor_changed;
        let (group_epoch, subscription_type) = if bump || group.has_metadata_expired(now_ms) {
            let m = subscription::update_subscription_metadata(
                group, &mut hb, bump, &member, &updated, env.topics, cache,
            );
            (m.group_epoch, m.subscription_type)
        } else {
            (
                group.persistent.group_epoch,
                group.persistent.subscription_type,
            )
        };

        // 2. Update the target assignment if the group epoch moved past it.
        let inputs = assignment::TargetInputs {
            group_epoch,
            subscription_type,
            assignment_interval_ms: effective.assignment_interval_ms,
            assignors: &config.assignors,
            topics: env.topics,
        };
        let group: &ConsumerGroup = group;
        let (target_epoch, target) =
            assignment::maybe_update_target_assignment(group, &mut hb, &member, &updated, inputs)?;

        // 3. Reconcile the member's assignment with the target.
        let updated = assignment::maybe_reconcile(
            group,
            &mut hb,
            updated,
            target_epoch,
            &target,
            has_subscription_changed,
            env.topics,
            env.timers,
        )?;

        timers::schedule_session(
            env.timers,
            group_id,
            member_id,
            now_ms + i64::from(effective.session_timeout_ms),
        );

        // The assignment goes with a join, a full request (all of rebalance timeout, subscription
        // and owned partitions set), or a change of the assigned partitions (epochs included).
        let full = r.rebalance_timeout_ms != -1
            && (r.subscribed_topic_names.is_some() || r.subscribed_topic_regex.is_some())
            && r.topic_partitions.is_some();
        let mut response = ConsumerGroupHeartbeatResponse::default()
            .with_member_id(Some(StrBytes::from_string(updated.member_id.clone())))
            .with_member_epoch(updated.member_epoch)
            .with_heartbeat_interval_ms(effective.heartbeat_interval_ms);
        if joining || full || member.assigned != updated.assigned {
            response = response.with_assignment(Some(create_assignment(&updated.assigned)));
        }
        Ok((response, hb.records))
    }

    /// `getOrMaybeCreateConsumerGroup` for a heartbeat: `Some` new group object when none exists yet
    /// (only a join may create one; an empty classic group of that id is converted, its tombstones
    /// going to `records`), `None` when the consumer group exists.
    fn get_or_maybe_create_consumer_group(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        r: &ConsumerGroupHeartbeatRequest,
        now_ms: i64,
        records: &mut Vec<Record>,
    ) -> Result<Option<ConsumerGroup>, ApiError> {
        let group_id = r.group_id.as_str();
        let joining = r.member_epoch == 0;
        if self.groups.contains_key(group_id) {
            return Ok(None);
        }
        let other: Option<&dyn crate::group::OtherGroupType> =
            env.other_types.iter().find(|o| o.holds(group_id)).copied();
        match other {
            None if !joining => Err(ApiError::new(
                ErrorCode::GroupIdNotFound,
                format!("Consumer group {group_id} not found."),
            )),
            None => Ok(Some(ConsumerGroup::new(group_id))),
            Some(o) if joining && o.is_classic() && o.is_empty(group_id) => {
                // maybeDeleteEmptyClassicGroup.
                records.extend(o.tombstones(group_id));
                Ok(Some(ConsumerGroup::new(group_id)))
            }
            Some(o) if joining && o.is_classic() => self
                .online_upgrade(env, group_id, o, now_ms, records)
                .map(Some),
            Some(_) => Err(errors::not_consumer_group(group_id)),
        }
    }

    /// A join into a non-empty classic group (`getOrMaybeCreateConsumerGroup`'s upgrade branch):
    /// `validateOnlineUpgrade`, then `convertToConsumerGroup`. Once the checks pass the classic group's
    /// parked JoinGroups and SyncGroups are due REBALANCE_IN_PROGRESS whatever follows; the shard
    /// answers them ([`ConsumerGroups::take_upgrade_attempts`]). On success the converted members'
    /// session timers run with their classic session timeouts (if the heartbeat then fails, they find
    /// no consumer group and do nothing, as in Kafka).
    fn online_upgrade(
        &mut self,
        env: &mut ConsumerEnv<'_>,
        group_id: &str,
        classic: &dyn crate::group::OtherGroupType,
        now_ms: i64,
        records: &mut Vec<Record>,
    ) -> Result<ConsumerGroup, ApiError> {
        let config = &env.config.consumer;
        crate::consumer::migration::validate_online_upgrade(
            group_id,
            config.migration_policy.upgrade_enabled(),
            classic.protocol_type(group_id).as_deref(),
            classic.member_count(group_id),
            config.max_size,
        )?;
        let view = classic
            .classic_view(group_id)
            .ok_or_else(|| errors::not_consumer_group(group_id))?;
        self.upgrade_attempts.push(group_id.to_string());
        let (group, sessions) = crate::consumer::migration::convert_to_consumer_group(
            group_id,
            &view,
            classic.tombstones(group_id),
            env.topics,
            &mut self.topic_hash_cache,
            records,
        )?;
        for (member_id, session_timeout_ms) in sessions {
            timers::schedule_session(
                env.timers,
                group_id,
                &member_id,
                now_ms + i64::from(session_timeout_ms),
            );
        }
        Ok(group)
    }
}

//! The consumer-protocol member's group membership, sans IO: Kafka 4.4's
//! `ConsumerMembershipManager` / `AbstractMembershipManager` and the request-building half of
//! `ConsumerHeartbeatRequestManager` (`HeartbeatState`).
//!
//! The async member ([`super::member`]) owns one [`Membership`], feeds it heartbeat responses and
//! callback completions, and runs the work it asks for (commit, revoke and assign partitions,
//! drop all partitions). Nothing here waits, reads a clock or touches the network, so every
//! transition is unit tested with exact expectations.
//!
//! The states, their valid predecessors and the leave operations are the streams member's
//! ([`crate::streams::membership`]): Kafka's `MemberState` and `CloseOptions` are shared by both
//! membership managers.

use std::collections::{BTreeMap, BTreeSet};

use protocol::messages::consumer_group_heartbeat_request as req;
use protocol::messages::consumer_group_heartbeat_response as resp;
use protocol::messages::{
    ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse, StrBytes, TopicName,
};
use uuid::Uuid;

use crate::observer::TopicPartition;
pub use crate::streams::membership::{
    JOIN_GROUP_MEMBER_EPOCH, LEAVE_GROUP_MEMBER_EPOCH, LEAVE_GROUP_STATIC_MEMBER_EPOCH,
    LeaveOperation, MemberState, Transition,
};

/// Partitions by topic id (Kafka's `Map<Uuid, SortedSet<Integer>>`).
pub type TopicIdPartitions = BTreeMap<Uuid, BTreeSet<i32>>;

/// An assignment with the client's local epoch (`AbstractMembershipManager.LocalAssignment`).
/// `local_epoch == -1` is Kafka's `NONE`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LocalAssignment {
    pub local_epoch: i64,
    pub partitions: TopicIdPartitions,
}

impl LocalAssignment {
    const NONE_EPOCH: i64 = -1;

    fn none() -> Self {
        Self {
            local_epoch: Self::NONE_EPOCH,
            partitions: BTreeMap::new(),
        }
    }

    pub fn is_none(&self) -> bool {
        self.local_epoch == Self::NONE_EPOCH
    }

    /// The next local assignment if `partitions` differs from this one (or this one is NONE),
    /// `LocalAssignment.updateWith`.
    fn update_with(&self, partitions: TopicIdPartitions) -> Option<LocalAssignment> {
        if !self.is_none() && partitions == self.partitions {
            return None;
        }
        Some(LocalAssignment {
            local_epoch: self.local_epoch + 1,
            partitions,
        })
    }
}

/// What one call of [`Membership::maybe_reconcile`] decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReconcileStep {
    /// Nothing to do (reconciled, one in progress, or not RECONCILING).
    Idle,
    /// Only unresolved topics differ from what the member owns: the resolvable part was
    /// acknowledged without callbacks (the member is ACKNOWLEDGING).
    AcknowledgedPartial,
    /// Run commit, then `onPartitionsRevoked`, then `onPartitionsAssigned`.
    Run(ReconcilePlan),
}

/// The work of one reconciliation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconcilePlan {
    /// The whole resolvable target, by name.
    pub assigned: BTreeSet<TopicPartition>,
    /// Owned partitions the target no longer has (`owned - assigned`).
    pub revoked: BTreeSet<TopicPartition>,
    /// Target partitions not owned yet (`assigned - owned`).
    pub added: BTreeSet<TopicPartition>,
    resolved: LocalAssignment,
}

/// The fields the last heartbeat sent (`HeartbeatState.SentFields`); `None` = never sent.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
struct SentFields {
    rebalance_timeout_ms: Option<i32>,
    subscribed_topics: Option<BTreeSet<String>>,
    subscribed_regex: Option<String>,
    server_assignor: Option<String>,
    local_assignment: Option<LocalAssignment>,
}

/// What the member subscribes with (sent on a join, and again when changed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Subscription {
    pub topics: BTreeSet<String>,
    /// A broker-side regular expression (`subscribe(SubscriptionPattern)`, RE2J): sent instead of
    /// topic names.
    pub regex: Option<String>,
    pub rebalance_timeout_ms: i32,
    pub server_assignor: Option<String>,
    pub rack_id: Option<String>,
}

/// One consumer-protocol member's membership and heartbeat-building state.
#[derive(Debug, Clone)]
pub struct Membership {
    group_id: String,
    member_id: String,
    instance_id: Option<String>,
    member_epoch: i32,
    state: MemberState,
    target: LocalAssignment,
    current: LocalAssignment,
    reconciliation_in_progress: bool,
    rejoined_while_reconciliation_in_progress: bool,
    leave_operation: LeaveOperation,
    /// The application missed `max.poll.interval.ms` and the member left for it (`isPollTimerExpired`).
    poll_timer_expired: bool,
    sent: SentFields,
    heartbeat_interval_ms: i32,
    transitions: Vec<Transition>,
}

impl Membership {
    /// A member that has not subscribed yet (`UNSUBSCRIBED`, epoch 0). From ConsumerGroupHeartbeat
    /// v1 the client makes its member id itself (KIP-1082) and keeps it for its whole life.
    pub fn new(group_id: &str, member_id: &str, instance_id: Option<&str>) -> Self {
        Self {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
            instance_id: instance_id.map(str::to_string),
            member_epoch: JOIN_GROUP_MEMBER_EPOCH,
            state: MemberState::Unsubscribed,
            target: LocalAssignment::none(),
            current: LocalAssignment::none(),
            reconciliation_in_progress: false,
            rejoined_while_reconciliation_in_progress: false,
            leave_operation: LeaveOperation::Default,
            poll_timer_expired: false,
            sent: SentFields::default(),
            heartbeat_interval_ms: 0,
            transitions: Vec::new(),
        }
    }

    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    pub fn member_id(&self) -> &str {
        &self.member_id
    }

    pub fn instance_id(&self) -> Option<&str> {
        self.instance_id.as_deref()
    }

    pub fn member_epoch(&self) -> i32 {
        self.member_epoch
    }

    pub fn state(&self) -> MemberState {
        self.state
    }

    pub fn heartbeat_interval_ms(&self) -> i32 {
        self.heartbeat_interval_ms
    }

    /// The assignment the member last reconciled (`currentAssignment`).
    pub fn current_assignment(&self) -> &LocalAssignment {
        &self.current
    }

    /// Takes the state changes since the last call.
    pub fn take_transitions(&mut self) -> Vec<Transition> {
        std::mem::take(&mut self.transitions)
    }

    fn transition_to(&mut self, next: MemberState) {
        if self.state != next && !valid_transition(self.state, next) {
            // Kafka throws IllegalStateException; the caller's logic prevents it, so this is a bug.
            debug_assert!(false, "invalid transition {:?} -> {:?}", self.state, next);
            tracing::error!(from = ?self.state, to = ?next, "invalid member state transition");
            return;
        }
        if self.state != next {
            self.transitions.push(Transition {
                from: self.state,
                to: next,
            });
        }
        self.state = next;
    }

    fn is_not_in_group(&self) -> bool {
        matches!(
            self.state,
            MemberState::Unsubscribed
                | MemberState::Fenced
                | MemberState::Fatal
                | MemberState::Stale
        )
    }

    /// Heartbeats are not sent while the member is out of the group (`shouldSkipHeartbeat`).
    pub fn should_skip_heartbeat(&self) -> bool {
        self.is_not_in_group()
    }

    /// States in which the member heartbeats without waiting for the interval
    /// (`shouldHeartbeatNow`'s states).
    pub fn should_not_wait_for_heartbeat_interval(&self) -> bool {
        matches!(
            self.state,
            MemberState::Acknowledging | MemberState::Leaving | MemberState::Joining
        )
    }

    /// Whether the leave heartbeat is skipped (a dynamic member closing with REMAIN_IN_GROUP).
    pub fn should_skip_leave_heartbeat(&self) -> bool {
        self.leave_operation == LeaveOperation::RemainInGroup && self.instance_id.is_none()
    }

    /// The epoch of the leave heartbeat (`leaveGroupEpoch`): -2 for a static member's temporary
    /// leave, -1 otherwise.
    pub fn leave_group_epoch(&self) -> i32 {
        if self.leave_operation == LeaveOperation::LeaveGroup {
            return LEAVE_GROUP_MEMBER_EPOCH;
        }
        if self.instance_id.is_some() {
            LEAVE_GROUP_STATIC_MEMBER_EPOCH
        } else {
            LEAVE_GROUP_MEMBER_EPOCH
        }
    }

    /// `subscribe()` then `poll()`: join if not in the group (`onSubscriptionUpdated` +
    /// `onConsumerPoll`).
    pub fn subscribe(&mut self) {
        if self.state == MemberState::Unsubscribed {
            self.transition_to_joining();
        }
    }

    /// `transitionToJoining`: epoch 0, the same member id, no current assignment.
    fn transition_to_joining(&mut self) {
        if self.state == MemberState::Fatal {
            return;
        }
        if self.reconciliation_in_progress {
            self.rejoined_while_reconciliation_in_progress = true;
        }
        self.leave_operation = LeaveOperation::Default;
        self.member_epoch = JOIN_GROUP_MEMBER_EPOCH;
        self.transition_to(MemberState::Joining);
        self.current = LocalAssignment::none();
    }

    /// A heartbeat request was built and is about to be sent (`onHeartbeatRequestGenerated`).
    pub fn on_heartbeat_request_generated(&mut self) {
        match self.state {
            MemberState::Acknowledging => {
                if self.target_reconciled() {
                    self.transition_to(MemberState::Stable);
                } else {
                    self.transition_to(MemberState::Reconciling);
                }
            }
            // A leave for an expired poll timer ends STALE (`transitionToStale`): the member
            // then drops its partitions (`onPartitionsLost`) and waits for the next poll.
            MemberState::Leaving if self.poll_timer_expired => {
                self.transition_to(MemberState::Stale);
                self.clear_assignment();
            }
            MemberState::Leaving => self.transition_to(MemberState::Unsubscribed),
            _ => {}
        }
    }

    /// The application did not poll within `max.poll.interval.ms`
    /// (`transitionToSendingLeaveGroup(true)`): leave (epoch -1, or -2 for a static member) without
    /// releasing the assignment first. Returns false if there is nothing to leave.
    pub fn leave_on_expired_poll_timer(&mut self) -> bool {
        if self.should_skip_heartbeat()
            || matches!(
                self.state,
                MemberState::PrepareLeaving | MemberState::Leaving
            )
        {
            return false;
        }
        self.poll_timer_expired = true;
        self.transition_to(MemberState::PrepareLeaving);
        self.finalize_leaving();
        self.transition_to(MemberState::Leaving);
        true
    }

    /// The application polled again after its poll timer expired (`maybeRejoinStaleMember`): a
    /// STALE member joins again with epoch 0.
    pub fn maybe_rejoin_stale_member(&mut self) {
        self.poll_timer_expired = false;
        if self.state == MemberState::Stale {
            self.transition_to_joining();
        }
    }

    /// A successful heartbeat response (`onHeartbeatSuccess`).
    pub fn on_heartbeat_success(&mut self, response: &ConsumerGroupHeartbeatResponse) {
        if response.member_epoch >= 0 {
            self.heartbeat_interval_ms = response.heartbeat_interval_ms;
        }
        if self.state == MemberState::Leaving {
            return;
        }
        if self.is_not_in_group() || response.member_epoch < 0 {
            return;
        }
        // With v0 the coordinator chose the id; from v1 it echoes the client's.
        if let Some(id) = &response.member_id
            && !id.is_empty()
        {
            self.member_id = id.to_string();
        }
        self.member_epoch = response.member_epoch;
        if let Some(assignment) = &response.assignment {
            if !can_handle_new_assignment(self.state) {
                return;
            }
            self.process_assignment_received(partitions_of(&assignment.topic_partitions));
        }
    }

    /// `processAssignmentReceived`: a new target; RECONCILING unless it is what the member owns.
    fn process_assignment_received(&mut self, partitions: TopicIdPartitions) {
        if let Some(updated) = self.target.update_with(partitions) {
            self.target = updated;
        }
        if !self.target_reconciled() {
            self.transition_to(MemberState::Reconciling);
        } else if matches!(self.state, MemberState::Reconciling | MemberState::Joining) {
            self.transition_to(MemberState::Stable);
        }
    }

    fn target_reconciled(&self) -> bool {
        self.current == self.target
    }

    /// Whether [`Self::maybe_reconcile`] may start something now.
    pub fn reconcile_due(&self) -> bool {
        self.state == MemberState::Reconciling
            && !self.target_reconciled()
            && !self.reconciliation_in_progress
    }

    /// The topic ids of the target the member cannot name (`names` is its metadata): a metadata
    /// update is wanted while this is not empty (`findResolvableAssignmentAndTriggerMetadataUpdate`).
    pub fn unresolved_topics(&self, names: &BTreeMap<Uuid, String>) -> BTreeSet<Uuid> {
        self.target
            .partitions
            .keys()
            .filter(|id| !names.contains_key(id))
            .copied()
            .collect()
    }

    /// `maybeReconcile`, run on every poll while RECONCILING: reconciles the part of the target
    /// whose topics the metadata names, against the partitions the consumer owns.
    pub fn maybe_reconcile(
        &mut self,
        owned: &BTreeSet<TopicPartition>,
        names: &BTreeMap<Uuid, String>,
    ) -> ReconcileStep {
        if !self.reconcile_due() {
            return ReconcileStep::Idle;
        }
        let resolvable: TopicIdPartitions = self
            .target
            .partitions
            .iter()
            .filter(|(id, _)| names.contains_key(id))
            .map(|(id, p)| (*id, p.clone()))
            .collect();
        let resolved = LocalAssignment {
            local_epoch: self.target.local_epoch,
            partitions: resolvable,
        };
        if !self.current.is_none() && resolved.partitions == self.current.partitions {
            // Only unresolved topics differ: acknowledge the resolvable part with a new local epoch.
            self.current = resolved;
            self.transition_to(MemberState::Acknowledging);
            return ReconcileStep::AcknowledgedPartial;
        }
        self.reconciliation_in_progress = true;
        self.rejoined_while_reconciliation_in_progress = false;
        let assigned: BTreeSet<TopicPartition> = resolved
            .partitions
            .iter()
            .flat_map(|(id, parts)| {
                let name = names[id].clone();
                parts
                    .iter()
                    .map(move |p| TopicPartition::new(name.clone(), *p))
            })
            .collect();
        ReconcileStep::Run(ReconcilePlan {
            revoked: owned.difference(&assigned).cloned().collect(),
            added: assigned.difference(owned).cloned().collect(),
            assigned,
            resolved,
        })
    }

    /// Whether the member left RECONCILING (or rejoined) while the commit or a callback ran, so the
    /// reconciliation no longer applies (`maybeAbortReconciliation`).
    fn maybe_abort_reconciliation(&mut self) -> bool {
        let abort = self.state != MemberState::Reconciling
            || self.rejoined_while_reconciliation_in_progress;
        if abort {
            self.reconciliation_in_progress = false;
            self.rejoined_while_reconciliation_in_progress = false;
        }
        abort
    }

    /// The commit before the revocation finished (successfully or not: Kafka proceeds either
    /// way); false if the reconciliation was aborted meanwhile.
    pub fn on_commit_done(&mut self) -> bool {
        !self.maybe_abort_reconciliation()
    }

    /// `onPartitionsRevoked` finished; false if the assignment step must be skipped because the
    /// reconciliation was aborted meanwhile.
    pub fn on_revocation_done(&mut self) -> bool {
        !self.maybe_abort_reconciliation()
    }

    /// `onPartitionsAssigned` finished: the member acknowledges `plan`'s assignment unless the
    /// reconciliation was aborted meanwhile.
    pub fn on_assignment_done(&mut self, plan: &ReconcilePlan) {
        if self.reconciliation_in_progress && !self.maybe_abort_reconciliation() {
            self.current = plan.resolved.clone();
            self.transition_to(MemberState::Acknowledging);
            self.reconciliation_in_progress = false;
            self.rejoined_while_reconciliation_in_progress = false;
        }
    }

    /// A callback failed: the reconciliation ends without acknowledging (it is retried on the
    /// next poll while the member is still RECONCILING).
    pub fn on_reconciliation_failed(&mut self) {
        self.reconciliation_in_progress = false;
        self.rejoined_while_reconciliation_in_progress = false;
    }

    /// FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID (`transitionToFenced`). Returns true if the member
    /// must now drop all its partitions (`onPartitionsLost`) and then call
    /// [`Self::on_all_partitions_lost`] to rejoin.
    pub fn on_fenced(&mut self) -> bool {
        match self.state {
            MemberState::PrepareLeaving => {
                self.finalize_leaving();
                self.transition_to(MemberState::Unsubscribed);
                false
            }
            MemberState::Leaving => {
                self.transition_to(MemberState::Unsubscribed);
                false
            }
            _ if self.is_not_in_group() => false,
            _ => {
                self.transition_to(MemberState::Fenced);
                self.member_epoch = JOIN_GROUP_MEMBER_EPOCH;
                true
            }
        }
    }

    /// The lost-partitions callback finished after a fence: clear everything and rejoin (epoch 0,
    /// same member id) if still FENCED.
    pub fn on_all_partitions_lost(&mut self) {
        self.clear_assignment();
        if self.state == MemberState::Fenced {
            self.transition_to_joining();
        }
    }

    fn clear_assignment(&mut self) {
        self.current = LocalAssignment::none();
        self.target = LocalAssignment::none();
    }

    /// A fatal error (`transitionToFatal`). Returns true if the member held partitions it must
    /// now drop.
    pub fn transition_to_fatal(&mut self) -> bool {
        let previous = self.state;
        if matches!(
            previous,
            MemberState::Fatal | MemberState::Stale | MemberState::Fenced
        ) {
            if previous != MemberState::Fatal {
                self.transitions.push(Transition {
                    from: previous,
                    to: MemberState::Fatal,
                });
            }
            self.state = MemberState::Fatal;
            return previous == MemberState::Fenced;
        }
        self.transition_to(MemberState::Fatal);
        !matches!(
            previous,
            MemberState::Unsubscribed | MemberState::PrepareLeaving | MemberState::Leaving
        )
    }

    /// After a fatal error's lost-partitions callback.
    pub fn on_fatal_partitions_lost(&mut self) {
        self.clear_assignment();
    }

    fn finalize_leaving(&mut self) {
        self.member_epoch = self.leave_group_epoch();
        self.current = LocalAssignment::none();
    }

    /// `leaveGroupOnClose` (the consumer already revoked its partitions). Returns false if the
    /// member was not in the group (nothing to send).
    pub fn leave_group(&mut self, operation: LeaveOperation) -> bool {
        self.leave_operation = operation;
        if self.is_not_in_group() {
            if self.state == MemberState::Fenced {
                self.clear_assignment();
                self.transition_to(MemberState::Unsubscribed);
            }
            return false;
        }
        if matches!(
            self.state,
            MemberState::PrepareLeaving | MemberState::Leaving
        ) {
            return true;
        }
        self.transition_to(MemberState::PrepareLeaving);
        self.clear_assignment();
        self.finalize_leaving();
        self.transition_to(MemberState::Leaving);
        true
    }

    /// The leave heartbeat could not be sent (no coordinator): give up leaving
    /// (`onHeartbeatRequestSkipped`).
    pub fn on_heartbeat_request_skipped(&mut self) {
        if self.state == MemberState::Leaving {
            self.transition_to(MemberState::Unsubscribed);
        }
    }

    /// Clears the last-sent fields so the next heartbeat resends everything (after any error or
    /// failed request, `HeartbeatState.reset`).
    pub fn reset_sent_fields(&mut self) {
        self.sent = SentFields::default();
    }

    /// `HeartbeatState.buildRequestData`: everything on a join; later only what changed since the
    /// last heartbeat (null = unchanged). The owned partitions go whenever the local assignment
    /// (with its local epoch) changed, which acknowledges a reconciliation.
    pub fn build_heartbeat(
        &mut self,
        subscription: &Subscription,
    ) -> ConsumerGroupHeartbeatRequest {
        let mut data = ConsumerGroupHeartbeatRequest::default()
            .with_group_id(str_bytes(&self.group_id).into())
            .with_member_id(str_bytes(&self.member_id))
            .with_member_epoch(self.member_epoch)
            .with_instance_id(self.instance_id.as_deref().map(str_bytes));
        let send_all = self.state == MemberState::Joining;
        if send_all {
            data.rack_id = subscription.rack_id.as_deref().map(str_bytes);
        }
        if send_all || self.sent.rebalance_timeout_ms != Some(subscription.rebalance_timeout_ms) {
            data.rebalance_timeout_ms = subscription.rebalance_timeout_ms;
            self.sent.rebalance_timeout_ms = Some(subscription.rebalance_timeout_ms);
        }
        if let Some(regex) = &subscription.regex {
            // A pattern subscription sends the pattern, never names (the request builder's
            // `hasRe2JPatternSubscription` branch).
            if send_all || self.sent.subscribed_regex.as_ref() != Some(regex) {
                data.subscribed_topic_regex = Some(str_bytes(regex));
                self.sent.subscribed_regex = Some(regex.clone());
            }
        } else if send_all || self.sent.subscribed_topics.as_ref() != Some(&subscription.topics) {
            data.subscribed_topic_names = Some(
                subscription
                    .topics
                    .iter()
                    .map(|t| TopicName(str_bytes(t)))
                    .collect(),
            );
            self.sent.subscribed_topics = Some(subscription.topics.clone());
        }
        if let Some(assignor) = &subscription.server_assignor
            && (send_all || self.sent.server_assignor.as_ref() != Some(assignor))
        {
            data.server_assignor = Some(str_bytes(assignor));
            self.sent.server_assignor = Some(assignor.clone());
        }
        if send_all || self.sent.local_assignment.as_ref() != Some(&self.current) {
            data.topic_partitions = Some(
                self.current
                    .partitions
                    .iter()
                    .map(|(id, parts)| {
                        req::TopicPartitions::default()
                            .with_topic_id(*id)
                            .with_partitions(parts.iter().copied().collect())
                    })
                    .collect(),
            );
            self.sent.local_assignment = Some(self.current.clone());
        }
        data
    }
}

/// Kafka's `MemberState.getPreviousValidStates` (one table, shared with the streams member).
fn valid_transition(from: MemberState, to: MemberState) -> bool {
    to.previous_valid_states().contains(&from)
}

fn can_handle_new_assignment(state: MemberState) -> bool {
    state.can_handle_new_assignment()
}

fn str_bytes(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// A heartbeat response's assignment by topic id.
pub fn partitions_of(list: &[resp::TopicPartitions]) -> TopicIdPartitions {
    let mut out: TopicIdPartitions = BTreeMap::new();
    for t in list {
        out.entry(t.topic_id)
            .or_default()
            .extend(t.partitions.iter().copied());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use MemberState::*;

    fn foo() -> Uuid {
        Uuid::from_u128(0xf00)
    }

    fn bar() -> Uuid {
        Uuid::from_u128(0xba2)
    }

    fn names() -> BTreeMap<Uuid, String> {
        [(foo(), "foo".to_string()), (bar(), "bar".to_string())].into()
    }

    fn sub() -> Subscription {
        Subscription {
            regex: None,
            topics: ["foo".to_string()].into(),
            rebalance_timeout_ms: 300_000,
            server_assignor: None,
            rack_id: None,
        }
    }

    fn tp(topic: &str, p: i32) -> TopicPartition {
        TopicPartition::new(topic, p)
    }

    fn response(
        epoch: i32,
        assignment: Option<&[(Uuid, &[i32])]>,
    ) -> ConsumerGroupHeartbeatResponse {
        ConsumerGroupHeartbeatResponse::default()
            .with_member_id(Some(str_bytes("m")))
            .with_member_epoch(epoch)
            .with_heartbeat_interval_ms(5_000)
            .with_assignment(assignment.map(|a| {
                resp::Assignment::default().with_topic_partitions(
                    a.iter()
                        .map(|(id, p)| {
                            resp::TopicPartitions::default()
                                .with_topic_id(*id)
                                .with_partitions(p.to_vec())
                        })
                        .collect(),
                )
            }))
    }

    /// Runs a whole reconciliation (commit and callbacks succeed at once).
    fn reconcile(m: &mut Membership, owned: &mut BTreeSet<TopicPartition>) -> ReconcilePlan {
        let ReconcileStep::Run(plan) = m.maybe_reconcile(owned, &names()) else {
            panic!("a reconciliation is due");
        };
        assert!(m.on_commit_done());
        assert!(m.on_revocation_done());
        m.on_assignment_done(&plan);
        *owned = plan.assigned.clone();
        plan
    }

    fn joined(parts: &[i32]) -> (Membership, BTreeSet<TopicPartition>) {
        let mut m = Membership::new("g", "m", None);
        let mut owned = BTreeSet::new();
        m.subscribe();
        m.build_heartbeat(&sub());
        m.on_heartbeat_request_generated();
        m.on_heartbeat_success(&response(3, Some(&[(foo(), parts)])));
        reconcile(&mut m, &mut owned);
        m.build_heartbeat(&sub());
        m.on_heartbeat_request_generated();
        m.take_transitions();
        (m, owned)
    }

    #[test]
    fn a_pattern_subscription_sends_the_pattern_once_and_never_names() {
        let pattern = Subscription {
            regex: Some("fo.*".to_string()),
            topics: BTreeSet::new(),
            ..sub()
        };
        let mut m = Membership::new("g", "m", None);
        m.subscribe();
        let join = m.build_heartbeat(&pattern);
        assert_eq!(join.subscribed_topic_regex.as_deref(), Some("fo.*"));
        assert_eq!(join.subscribed_topic_names, None);
        m.on_heartbeat_request_generated();
        // The coordinator resolves the pattern to foo and assigns its partitions by id.
        m.on_heartbeat_success(&response(3, Some(&[(foo(), &[0])])));
        let mut owned = BTreeSet::new();
        let plan = reconcile(&mut m, &mut owned);
        assert_eq!(plan.added, [tp("foo", 0)].into());
        let ack = m.build_heartbeat(&pattern);
        assert_eq!(ack.subscribed_topic_regex, None);
        assert_eq!(ack.subscribed_topic_names, None);
        m.on_heartbeat_request_generated();
        // A new pattern is sent again, still without names.
        let changed = Subscription {
            regex: Some("ba.*".to_string()),
            ..pattern
        };
        let next = m.build_heartbeat(&changed);
        assert_eq!(next.subscribed_topic_regex.as_deref(), Some("ba.*"));
        assert_eq!(next.subscribed_topic_names, None);
    }

    #[test]
    fn join_reconcile_acknowledge_stable_sending_only_changed_fields() {
        let mut m = Membership::new("g", "m", Some("i"));
        assert_eq!(m.state(), Unsubscribed);
        m.subscribe();
        let join = m.build_heartbeat(&sub());
        assert_eq!((join.member_epoch, join.member_id.as_str()), (0, "m"));
        assert_eq!(join.instance_id.as_deref(), Some("i"));
        assert_eq!(join.rebalance_timeout_ms, 300_000);
        assert_eq!(join.subscribed_topic_names.as_ref().unwrap().len(), 1);
        assert_eq!(join.topic_partitions, Some(Vec::new()));
        m.on_heartbeat_request_generated();
        m.on_heartbeat_success(&response(3, Some(&[(foo(), &[0, 1])])));
        assert_eq!((m.state(), m.member_epoch()), (Reconciling, 3));
        let mut owned = BTreeSet::new();
        let plan = reconcile(&mut m, &mut owned);
        assert!(plan.revoked.is_empty());
        assert_eq!(plan.added, [tp("foo", 0), tp("foo", 1)].into());
        assert_eq!(m.state(), Acknowledging);
        let ack = m.build_heartbeat(&sub());
        assert_eq!(ack.member_epoch, 3);
        assert_eq!(
            ack.topic_partitions.as_ref().unwrap()[0].partitions,
            vec![0, 1]
        );
        // Unchanged since the join: null (-1 for the timeout).
        assert!(ack.subscribed_topic_names.is_none());
        assert_eq!(ack.rebalance_timeout_ms, -1);
        assert_eq!(
            ack.instance_id.as_deref(),
            Some("i"),
            "sent on every heartbeat"
        );
        m.on_heartbeat_request_generated();
        assert_eq!(m.state(), Stable);
        let states: Vec<(MemberState, MemberState)> = m
            .take_transitions()
            .iter()
            .map(|t| (t.from, t.to))
            .collect();
        assert_eq!(
            states,
            vec![
                (Unsubscribed, Joining),
                (Joining, Reconciling),
                (Reconciling, Acknowledging),
                (Acknowledging, Stable)
            ]
        );
        let next = m.build_heartbeat(&sub());
        assert!(next.topic_partitions.is_none());
        // An error resets the sent fields: everything goes again.
        m.reset_sent_fields();
        let again = m.build_heartbeat(&sub());
        assert!(again.topic_partitions.is_some() && again.subscribed_topic_names.is_some());
    }

    #[test]
    fn revocation_then_acknowledgement_of_the_smaller_set() {
        let (mut m, mut owned) = joined(&[0, 1]);
        m.on_heartbeat_success(&response(4, Some(&[(foo(), &[1])])));
        assert_eq!(m.state(), Reconciling);
        let plan = reconcile(&mut m, &mut owned);
        assert_eq!(plan.revoked, [tp("foo", 0)].into());
        assert!(plan.added.is_empty());
        let hb = m.build_heartbeat(&sub());
        assert_eq!(hb.member_epoch, 4);
        assert_eq!(hb.topic_partitions.as_ref().unwrap()[0].partitions, vec![1]);
    }

    #[test]
    fn the_same_assignment_with_a_new_epoch_needs_no_reconciliation() {
        let (mut m, _owned) = joined(&[0, 1]);
        m.on_heartbeat_success(&response(9, Some(&[(foo(), &[0, 1])])));
        assert_eq!((m.state(), m.member_epoch()), (Stable, 9));
        assert!(!m.reconcile_due());
    }

    #[test]
    fn a_new_target_during_reconciliation_is_reconciled_after_the_acknowledgement() {
        let (mut m, mut owned) = joined(&[0]);
        m.on_heartbeat_success(&response(4, Some(&[(foo(), &[0, 1])])));
        let ReconcileStep::Run(first) = m.maybe_reconcile(&owned, &names()) else {
            panic!()
        };
        m.on_heartbeat_success(&response(5, Some(&[(foo(), &[0, 1, 2])])));
        assert_eq!(m.maybe_reconcile(&owned, &names()), ReconcileStep::Idle);
        assert!(m.on_commit_done() && m.on_revocation_done());
        m.on_assignment_done(&first);
        owned = first.assigned.clone();
        assert_eq!(m.state(), Acknowledging);
        m.build_heartbeat(&sub());
        m.on_heartbeat_request_generated();
        assert_eq!(m.state(), Reconciling);
        let second = reconcile(&mut m, &mut owned);
        assert_eq!(second.added, [tp("foo", 2)].into());
    }

    #[test]
    fn fenced_drops_everything_and_rejoins_with_epoch_zero_and_the_same_member_id() {
        let (mut m, owned) = joined(&[0, 1]);
        m.on_heartbeat_success(&response(4, Some(&[(foo(), &[1])])));
        let ReconcileStep::Run(plan) = m.maybe_reconcile(&owned, &names()) else {
            panic!()
        };
        assert!(m.on_fenced());
        assert_eq!((m.state(), m.member_epoch()), (Fenced, 0));
        // The commit before the revocation completes after the fence: the rest is skipped.
        assert!(!m.on_commit_done());
        m.on_assignment_done(&plan);
        assert_eq!(m.state(), Fenced);
        assert!(m.should_skip_heartbeat());
        m.on_all_partitions_lost();
        assert_eq!(m.state(), Joining);
        let rejoin = m.build_heartbeat(&sub());
        assert_eq!(rejoin.member_id.as_str(), "m");
        assert_eq!(rejoin.member_epoch, 0);
        assert_eq!(rejoin.topic_partitions, Some(Vec::new()));
        assert!(rejoin.subscribed_topic_names.is_some());
    }

    #[test]
    fn leave_epochs_follow_the_operation_and_the_membership_kind() {
        let cases = [
            (None, LeaveOperation::Default, Some(-1)),
            (Some("i"), LeaveOperation::Default, Some(-2)),
            (Some("i"), LeaveOperation::LeaveGroup, Some(-1)),
            (Some("i"), LeaveOperation::RemainInGroup, Some(-2)),
            (None, LeaveOperation::RemainInGroup, None),
        ];
        for (instance, op, expected) in cases {
            let mut m = Membership::new("g", "m", instance);
            m.subscribe();
            assert!(m.leave_group(op));
            assert_eq!(m.state(), Leaving);
            let sent =
                (!m.should_skip_leave_heartbeat()).then(|| m.build_heartbeat(&sub()).member_epoch);
            assert_eq!(sent, expected, "{instance:?} {op:?}");
            m.on_heartbeat_request_generated();
            assert_eq!(m.state(), Unsubscribed);
        }
        let mut m = Membership::new("g", "m", None);
        assert!(!m.leave_group(LeaveOperation::Default));
    }

    #[test]
    fn unresolved_topics_wait_for_metadata_and_the_known_part_is_reconciled() {
        let (mut m, mut owned) = joined(&[0]);
        let unknown = Uuid::from_u128(0x999);
        m.on_heartbeat_success(&response(4, Some(&[(foo(), &[0]), (unknown, &[0, 1])])));
        assert_eq!(m.unresolved_topics(&names()), [unknown].into());
        // The known part equals what the member owns: acknowledged without callbacks.
        assert_eq!(
            m.maybe_reconcile(&owned, &names()),
            ReconcileStep::AcknowledgedPartial
        );
        assert_eq!(m.state(), Acknowledging);
        m.build_heartbeat(&sub());
        m.on_heartbeat_request_generated();
        assert_eq!(m.state(), Reconciling, "the target is not reconciled yet");
        // The metadata names the topic: its partitions are reconciled.
        let mut known = names();
        known.insert(unknown, "baz".to_string());
        let ReconcileStep::Run(plan) = m.maybe_reconcile(&owned, &known) else {
            panic!()
        };
        assert_eq!(plan.added, [tp("baz", 0), tp("baz", 1)].into());
        assert!(m.on_commit_done() && m.on_revocation_done());
        m.on_assignment_done(&plan);
        owned = plan.assigned.clone();
        assert_eq!(owned.len(), 3);
        m.build_heartbeat(&sub());
        m.on_heartbeat_request_generated();
        assert_eq!(m.state(), Stable);
    }

    #[test]
    fn an_expired_poll_timer_leaves_goes_stale_and_rejoins_on_the_next_poll() {
        for (instance, epoch) in [(None, -1), (Some("i"), -2)] {
            let mut m = Membership::new("g", "m", instance);
            m.subscribe();
            m.build_heartbeat(&sub());
            m.on_heartbeat_request_generated();
            m.on_heartbeat_success(&response(3, Some(&[(foo(), &[0])])));
            let mut owned = BTreeSet::new();
            reconcile(&mut m, &mut owned);
            m.build_heartbeat(&sub());
            m.on_heartbeat_request_generated();
            m.take_transitions();
            assert!(m.leave_on_expired_poll_timer());
            assert!(!m.leave_on_expired_poll_timer(), "once");
            let leave = m.build_heartbeat(&sub());
            assert_eq!(leave.member_epoch, epoch);
            m.on_heartbeat_request_generated();
            assert_eq!(m.state(), Stale);
            assert!(m.should_skip_heartbeat());
            assert!(m.current_assignment().is_none());
            m.maybe_rejoin_stale_member();
            assert_eq!((m.state(), m.member_epoch()), (Joining, 0));
            let states: Vec<(MemberState, MemberState)> = m
                .take_transitions()
                .iter()
                .map(|t| (t.from, t.to))
                .collect();
            assert_eq!(
                states,
                vec![
                    (Stable, PrepareLeaving),
                    (PrepareLeaving, Leaving),
                    (Leaving, Stale),
                    (Stale, Joining)
                ]
            );
        }
    }

    #[test]
    fn fatal_and_responses_out_of_the_group_are_ignored() {
        let (mut m, _) = joined(&[0]);
        assert!(m.transition_to_fatal());
        assert_eq!(m.state(), Fatal);
        m.on_heartbeat_success(&response(7, Some(&[(foo(), &[3])])));
        assert_eq!(
            m.member_epoch(),
            3,
            "a FATAL member takes nothing from a response"
        );
        assert!(m.should_skip_heartbeat());
    }
}

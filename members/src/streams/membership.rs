//! The streams member's group membership, sans IO: Kafka 4.4's `StreamsMembershipManager` and the
//! request-building half of `StreamsGroupHeartbeatRequestManager` (`HeartbeatState`).
//!
//! The async member thread ([`super::member`]) owns one [`Membership`], feeds it heartbeat responses
//! and callback completions, and runs the work it asks for (revoke and assign tasks, drop all
//! tasks). Nothing here waits, reads a clock or touches the network, so every transition is unit
//! tested with exact expectations.

use std::collections::{BTreeMap, BTreeSet};

use protocol::messages::streams_group_heartbeat_request as req;
use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{StrBytes, StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse};
use protocol::streams_status::StreamsStatus;

use super::topology::Topology;
use crate::observer::TaskId;

/// Epoch a member joins with.
pub const JOIN_GROUP_MEMBER_EPOCH: i32 = 0;
/// Epoch of a permanent leave.
pub const LEAVE_GROUP_MEMBER_EPOCH: i32 = -1;
/// Epoch of a static member's temporary leave.
pub const LEAVE_GROUP_STATIC_MEMBER_EPOCH: i32 = -2;

/// Kafka's client-side `MemberState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemberState {
    Unsubscribed,
    Joining,
    Reconciling,
    Acknowledging,
    Stable,
    Fenced,
    PrepareLeaving,
    Leaving,
    Fatal,
    Stale,
}

impl MemberState {
    /// Kafka's name of the state.
    pub fn name(self) -> &'static str {
        match self {
            MemberState::Unsubscribed => "UNSUBSCRIBED",
            MemberState::Joining => "JOINING",
            MemberState::Reconciling => "RECONCILING",
            MemberState::Acknowledging => "ACKNOWLEDGING",
            MemberState::Stable => "STABLE",
            MemberState::Fenced => "FENCED",
            MemberState::PrepareLeaving => "PREPARE_LEAVING",
            MemberState::Leaving => "LEAVING",
            MemberState::Fatal => "FATAL",
            MemberState::Stale => "STALE",
        }
    }

    /// The states `self` may be entered from (Kafka's `previousValidStates`).
    pub(crate) fn previous_valid_states(self) -> &'static [MemberState] {
        use MemberState::*;
        match self {
            Stable => &[Joining, Acknowledging, Reconciling],
            Reconciling => &[Stable, Joining, Acknowledging, Reconciling],
            Acknowledging => &[Reconciling],
            Fatal => &[
                Joining,
                Stable,
                Reconciling,
                Acknowledging,
                PrepareLeaving,
                Leaving,
                Unsubscribed,
            ],
            Fenced => &[
                Joining,
                Stable,
                Reconciling,
                Acknowledging,
                PrepareLeaving,
                Leaving,
            ],
            Joining => &[Fenced, Unsubscribed, Stale],
            PrepareLeaving => &[Joining, Stable, Reconciling, Acknowledging, Unsubscribed],
            Leaving => &[PrepareLeaving],
            Unsubscribed => &[PrepareLeaving, Leaving, Fenced],
            Stale => &[Leaving],
        }
    }

    /// Whether a member in this state takes a new assignment from a heartbeat response.
    pub fn can_handle_new_assignment(self) -> bool {
        MemberState::Reconciling
            .previous_valid_states()
            .contains(&self)
    }
}

/// What a member must do on close (Kafka's `CloseOptions.GroupMembershipOperation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LeaveOperation {
    /// Dynamic members leave with -1, static members with -2.
    #[default]
    Default,
    /// Leave for good (-1), static or not.
    LeaveGroup,
    /// Dynamic members send nothing; static members still send -2.
    RemainInGroup,
}

/// A set of tasks by role, with the group-readiness flag (`StreamsRebalanceData.Assignment`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Assignment {
    pub active: BTreeSet<TaskId>,
    pub standby: BTreeSet<TaskId>,
    pub warmup: BTreeSet<TaskId>,
    pub group_ready: bool,
}

impl Assignment {
    pub fn is_empty(&self) -> bool {
        self.active.is_empty() && self.standby.is_empty() && self.warmup.is_empty()
    }

    /// The same tasks, ignoring readiness.
    pub fn same_tasks(&self, other: &Assignment) -> bool {
        self.active == other.active && self.standby == other.standby && self.warmup == other.warmup
    }
}

/// An assignment with the client's local epoch (`StreamsMembershipManager.LocalAssignment`).
/// `local_epoch == -1` is Kafka's `NONE`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct LocalAssignment {
    local_epoch: i64,
    tasks: Assignment,
}

impl LocalAssignment {
    const NONE_EPOCH: i64 = -1;

    fn none() -> Self {
        Self {
            local_epoch: Self::NONE_EPOCH,
            tasks: Assignment::default(),
        }
    }

    /// The next local assignment if `tasks` differs from this one (or this one is NONE).
    fn update_with(&self, tasks: Assignment) -> Option<LocalAssignment> {
        if self.local_epoch != Self::NONE_EPOCH && tasks == self.tasks {
            return None;
        }
        Some(LocalAssignment {
            local_epoch: self.local_epoch + 1,
            tasks,
        })
    }
}

/// Work a reconciliation asks the stream thread to do: revoke `revoke` (commit, then close),
/// then take on `assign` (the whole target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReconcilePlan {
    pub revoke: BTreeSet<TaskId>,
    pub assign: Assignment,
    /// Tasks of `assign` the member did not own before (active, standby, warm-up).
    pub added: Assignment,
    /// Standby and warm-up tasks the member owned that `assign` no longer has.
    pub removed_replicas: Assignment,
    target_local_epoch: i64,
}

/// A state change worth reporting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transition {
    pub from: MemberState,
    pub to: MemberState,
}

/// Why the member failed for good.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FatalReason(pub String);

/// The task offsets the member reports (`taskOffsetSum` / `taskEndOffsetSum`).
pub type TaskOffsets = BTreeMap<TaskId, i64>;

/// What the member's process sends on a join.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JoinInfo {
    pub process_id: String,
    pub topology: Topology,
    pub rebalance_timeout_ms: i32,
    pub user_endpoint: Option<(String, u16)>,
    pub rack_id: Option<String>,
    pub client_tags: BTreeMap<String, String>,
}

/// One streams member's membership and heartbeat-building state.
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
    /// `StreamsRebalanceData.reconciledAssignment`: what the stream thread runs.
    reconciled: Assignment,
    // HeartbeatState.LastSentFields
    last_sent_assignment: Option<Assignment>,
    last_sent_task_offsets: Option<TaskOffsets>,
    last_sent_task_end_offsets: Option<TaskOffsets>,
    last_task_offset_interval_ms: i64,
    endpoint_information_epoch: i32,
    shutdown_requested: bool,
    // Values the coordinator sent (StreamsRebalanceData).
    heartbeat_interval_ms: i32,
    task_offset_interval_ms: i32,
    acceptable_recovery_lag: i64,
    statuses: Vec<(i8, String)>,
    transitions: Vec<Transition>,
}

impl Membership {
    /// A member that has not subscribed yet (`UNSUBSCRIBED`, epoch 0).
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
            reconciled: Assignment::default(),
            last_sent_assignment: None,
            last_sent_task_offsets: None,
            last_sent_task_end_offsets: None,
            last_task_offset_interval_ms: -1,
            endpoint_information_epoch: -1,
            shutdown_requested: false,
            heartbeat_interval_ms: 0,
            task_offset_interval_ms: 0,
            acceptable_recovery_lag: -1,
            statuses: Vec::new(),
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

    /// What the stream thread currently runs (the last assignment its callbacks completed).
    pub fn reconciled(&self) -> &Assignment {
        &self.reconciled
    }

    pub fn statuses(&self) -> &[(i8, String)] {
        &self.statuses
    }

    pub fn heartbeat_interval_ms(&self) -> i32 {
        self.heartbeat_interval_ms
    }

    pub fn task_offset_interval_ms(&self) -> i32 {
        self.task_offset_interval_ms
    }

    pub fn endpoint_information_epoch(&self) -> i32 {
        self.endpoint_information_epoch
    }

    pub fn leave_operation(&self) -> LeaveOperation {
        self.leave_operation
    }

    /// Takes the state changes since the last call.
    pub fn take_transitions(&mut self) -> Vec<Transition> {
        std::mem::take(&mut self.transitions)
    }

    fn transition_to(&mut self, next: MemberState) {
        if self.state != next && !next.previous_valid_states().contains(&self.state) {
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

    /// Heartbeats are not sent while the member is out of the group.
    pub fn should_skip_heartbeat(&self) -> bool {
        self.is_not_in_group()
    }

    /// States in which the member heartbeats without waiting for the interval.
    pub fn should_not_wait_for_heartbeat_interval(&self) -> bool {
        matches!(
            self.state,
            MemberState::Acknowledging | MemberState::Leaving | MemberState::Joining
        )
    }

    /// Whether a leave heartbeat must be sent when the member leaves (`isLeavingGroup`).
    pub fn is_leaving_group(&self) -> bool {
        if self.leave_operation == LeaveOperation::RemainInGroup && self.instance_id.is_none() {
            return false;
        }
        matches!(
            self.state,
            MemberState::PrepareLeaving | MemberState::Leaving
        )
    }

    /// Whether the leave heartbeat is skipped (dynamic member closing with REMAIN_IN_GROUP).
    pub fn should_skip_leave_heartbeat(&self) -> bool {
        self.leave_operation == LeaveOperation::RemainInGroup && self.instance_id.is_none()
    }

    /// The epoch of the leave heartbeat (`leaveGroupEpoch`).
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

    /// Asks the coordinator to shut the whole application down (sent on every heartbeat from now).
    pub fn request_shutdown(&mut self) {
        self.shutdown_requested = true;
    }

    /// The subscription was set and the consumer polled: join if not in the group
    /// (`onSubscriptionUpdated` + `onConsumerPoll`).
    pub fn subscribe(&mut self) {
        if self.state == MemberState::Unsubscribed {
            self.transition_to_joining();
        }
    }

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
            MemberState::Leaving => self.transition_to(MemberState::Unsubscribed),
            _ => {}
        }
    }

    /// A successful heartbeat response. Returns an error when the assignment names subtopologies
    /// this client does not know (the member is then FATAL, as in Java).
    pub fn on_heartbeat_success(
        &mut self,
        response: &StreamsGroupHeartbeatResponse,
        topology: &Topology,
    ) -> Result<(), FatalReason> {
        // The request manager stores these before the membership manager looks at the response.
        if response.member_epoch >= 0 {
            self.heartbeat_interval_ms = response.heartbeat_interval_ms;
            self.task_offset_interval_ms = response.task_offset_interval_ms;
            self.acceptable_recovery_lag = response.acceptable_recovery_lag;
        }
        if let Some(statuses) = &response.status {
            self.statuses = statuses
                .iter()
                .map(|s| (s.status_code, s.status_detail.to_string()))
                .collect();
        }
        if self.state == MemberState::Leaving {
            return Ok(());
        }
        if self.is_not_in_group() || response.member_epoch < 0 {
            return Ok(());
        }
        self.member_epoch = response.member_epoch;
        let group_ready = is_group_ready(response.status.as_deref());
        match (
            &response.active_tasks,
            &response.standby_tasks,
            &response.warmup_tasks,
        ) {
            (Some(active), Some(standby), Some(warmup)) => {
                if !self.state.can_handle_new_assignment() {
                    return Ok(());
                }
                let unknown: BTreeSet<String> = [active, standby, warmup]
                    .into_iter()
                    .flatten()
                    .filter(|t| topology.subtopology(t.subtopology_id.as_str()).is_none())
                    .map(|t| t.subtopology_id.to_string())
                    .collect();
                if !unknown.is_empty() {
                    let known: BTreeSet<&str> = topology
                        .subtopologies
                        .iter()
                        .map(|s| s.id.as_str())
                        .collect();
                    self.transition_to_fatal();
                    return Err(FatalReason(format!(
                        "Member {} of Streams group {} was assigned tasks of subtopologies {:?}, \
                         which are not part of the topology of this client (which has \
                         subtopologies {:?}).",
                        self.member_id, self.group_id, unknown, known
                    )));
                }
                self.process_assignment_received(Assignment {
                    active: tasks_of(active),
                    standby: tasks_of(standby),
                    warmup: tasks_of(warmup),
                    group_ready,
                });
            }
            (None, None, None) => {
                if group_ready != self.target.tasks.group_ready {
                    let mut tasks = self.target.tasks.clone();
                    tasks.group_ready = group_ready;
                    self.process_assignment_received(tasks);
                }
            }
            _ => {
                return Err(FatalReason(
                    "Invalid response data, task collections must be all null or all non-null"
                        .to_string(),
                ));
            }
        }
        Ok(())
    }

    fn process_assignment_received(&mut self, tasks: Assignment) {
        if let Some(updated) = self.target.update_with(tasks) {
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

    /// Whether [`Self::maybe_reconcile`] would start a reconciliation now.
    pub fn reconcile_due(&self) -> bool {
        self.state == MemberState::Reconciling
            && !self.target_reconciled()
            && !self.reconciliation_in_progress
    }

    /// Starts a reconciliation if one is due (`maybeReconcile`, run on every poll while
    /// RECONCILING).
    pub fn maybe_reconcile(&mut self) -> Option<ReconcilePlan> {
        if !self.reconcile_due() {
            return None;
        }
        self.reconciliation_in_progress = true;
        self.rejoined_while_reconciliation_in_progress = false;
        let owned = &self.current.tasks;
        let target = &self.target.tasks;
        let revoke: BTreeSet<TaskId> = owned.active.difference(&target.active).cloned().collect();
        let reconciled = &self.reconciled;
        let added = Assignment {
            active: target
                .active
                .difference(&reconciled.active)
                .cloned()
                .collect(),
            standby: target
                .standby
                .difference(&reconciled.standby)
                .cloned()
                .collect(),
            warmup: target
                .warmup
                .difference(&reconciled.warmup)
                .cloned()
                .collect(),
            group_ready: target.group_ready,
        };
        let removed_replicas = Assignment {
            active: BTreeSet::new(),
            standby: reconciled
                .standby
                .difference(&target.standby)
                .cloned()
                .collect(),
            warmup: reconciled
                .warmup
                .difference(&target.warmup)
                .cloned()
                .collect(),
            group_ready: target.group_ready,
        };
        Some(ReconcilePlan {
            revoke,
            assign: target.clone(),
            added,
            removed_replicas,
            target_local_epoch: self.target.local_epoch,
        })
    }

    /// Whether the member left RECONCILING (or rejoined) while the callbacks ran, so their result
    /// no longer applies (`maybeAbortReconciliation`).
    fn maybe_abort_reconciliation(&mut self) -> bool {
        let abort = self.state != MemberState::Reconciling
            || self.rejoined_while_reconciliation_in_progress;
        if abort {
            self.reconciliation_in_progress = false;
            self.rejoined_while_reconciliation_in_progress = false;
        }
        abort
    }

    /// The revocation callback finished; returns false if the assignment step must be skipped
    /// because the reconciliation was aborted meanwhile.
    pub fn on_revocation_done(&mut self) -> bool {
        !self.maybe_abort_reconciliation()
    }

    /// The assignment callback ran: the stream thread now runs `plan.assign`
    /// (`setReconciledAssignment`), and the member acknowledges it unless the reconciliation was
    /// aborted meanwhile.
    pub fn on_assignment_done(&mut self, plan: &ReconcilePlan) {
        self.reconciled = plan.assign.clone();
        if self.reconciliation_in_progress && !self.maybe_abort_reconciliation() {
            self.current = LocalAssignment {
                local_epoch: plan.target_local_epoch,
                tasks: plan.assign.clone(),
            };
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

    /// FENCED_MEMBER_EPOCH or UNKNOWN_MEMBER_ID (`onFenced`). Returns true if the member must now
    /// drop all its tasks and then call [`Self::on_all_tasks_lost`] to rejoin.
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
            MemberState::Unsubscribed => false,
            _ if self.is_not_in_group() => false,
            _ => {
                self.transition_to(MemberState::Fenced);
                self.member_epoch = JOIN_GROUP_MEMBER_EPOCH;
                true
            }
        }
    }

    /// The lost-tasks callback finished after a fence: clear everything and rejoin (with epoch 0
    /// and the same member id) if still FENCED.
    pub fn on_all_tasks_lost(&mut self) {
        self.clear_task_assignment();
        if self.state == MemberState::Fenced {
            self.transition_to_joining();
        }
    }

    fn clear_task_assignment(&mut self) {
        self.current = LocalAssignment::none();
        self.target = LocalAssignment::none();
        self.reconciled = Assignment::default();
    }

    /// A fatal error. Returns true if the member held tasks it must now drop.
    pub fn transition_to_fatal(&mut self) -> bool {
        let previous = self.state;
        if matches!(
            previous,
            MemberState::Fatal | MemberState::Stale | MemberState::Fenced
        ) {
            // Not a transition Kafka allows (heartbeats are not sent in these states); the member
            // is failed all the same.
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
        if matches!(
            previous,
            MemberState::Unsubscribed | MemberState::PrepareLeaving | MemberState::Leaving
        ) {
            return false;
        }
        true
    }

    /// After a fatal error's lost-tasks callback.
    pub fn on_fatal_tasks_lost(&mut self) {
        self.clear_task_assignment();
    }

    fn finalize_leaving(&mut self) {
        self.member_epoch = self.leave_group_epoch();
        self.current = LocalAssignment::none();
    }

    /// Starts leaving: on close (`leaveGroupOnClose`, the stream thread already closed its tasks)
    /// or after a task migration (`leaveGroup` from `unsubscribe`). Returns false if the member was
    /// not in the group (nothing to send).
    pub fn leave_group(&mut self, operation: LeaveOperation) -> bool {
        self.leave_operation = operation;
        if self.is_not_in_group() {
            if self.state == MemberState::Fenced {
                self.clear_task_assignment();
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
        self.clear_task_assignment();
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
        self.last_sent_assignment = None;
        self.last_sent_task_offsets = None;
        self.last_sent_task_end_offsets = None;
        self.last_task_offset_interval_ms = -1;
    }

    /// Stores the endpoint-information epoch a successful response carried.
    pub fn set_endpoint_information_epoch(&mut self, epoch: i32) {
        self.endpoint_information_epoch = epoch;
    }

    /// Builds the next heartbeat (`HeartbeatState.buildRequestData`): everything on a join; later
    /// only what changed since the last heartbeat (null = unchanged).
    /// Whether the next [`Self::build_heartbeat`] at `now_ms` reads the task offsets it is given
    /// (joining, a changed assignment, the task offset interval passed, or warm-up tasks to judge).
    /// When false the caller may pass empty maps and skip taking a snapshot of the state directory.
    pub fn heartbeat_reads_task_offsets(&self, now_ms: i64) -> bool {
        self.state == MemberState::Joining
            || self.last_sent_assignment.as_ref() != Some(&self.reconciled)
            || self.last_task_offset_interval_ms + i64::from(self.task_offset_interval_ms) <= now_ms
            || !self.reconciled.warmup.is_empty()
    }

    pub fn build_heartbeat(
        &mut self,
        join: &JoinInfo,
        task_offsets: TaskOffsets,
        task_end_offsets: TaskOffsets,
        now_ms: i64,
    ) -> StreamsGroupHeartbeatRequest {
        let mut data = StreamsGroupHeartbeatRequest::default()
            .with_group_id(str_bytes(&self.group_id).into())
            .with_member_id(str_bytes(&self.member_id))
            .with_member_epoch(self.member_epoch)
            .with_endpoint_information_epoch(self.endpoint_information_epoch)
            .with_instance_id(self.instance_id.as_deref().map(str_bytes));
        if self.state == MemberState::Joining {
            data.topology = Some(join.topology.to_request());
            data.rebalance_timeout_ms = join.rebalance_timeout_ms;
            data.process_id = Some(str_bytes(&join.process_id));
            data.user_endpoint = join.user_endpoint.as_ref().map(|(host, port)| {
                req::Endpoint::default()
                    .with_host(str_bytes(host))
                    .with_port(*port)
            });
            data.rack_id = join.rack_id.as_deref().map(str_bytes);
            data.client_tags = Some(
                join.client_tags
                    .iter()
                    .map(|(k, v)| {
                        req::KeyValue::default()
                            .with_key(str_bytes(k))
                            .with_value(str_bytes(v))
                    })
                    .collect(),
            );
            data.active_tasks = Some(Vec::new());
            data.standby_tasks = Some(Vec::new());
            data.warmup_tasks = Some(Vec::new());
            data.task_offsets = Some(offsets_to_request(&task_offsets));
            data.task_end_offsets = Some(offsets_to_request(&task_end_offsets));
            self.last_sent_task_offsets = Some(task_offsets);
            self.last_sent_task_end_offsets = Some(task_end_offsets);
            self.last_task_offset_interval_ms = now_ms;
        } else {
            let reconciled = self.reconciled.clone();
            let changed = self.last_sent_assignment.as_ref() != Some(&reconciled);
            if changed {
                data.active_tasks = Some(tasks_to_request(&reconciled.active));
                data.standby_tasks = Some(tasks_to_request(&reconciled.standby));
                data.warmup_tasks = Some(tasks_to_request(&reconciled.warmup));
            }
            let interval_passed = self.last_task_offset_interval_ms
                + i64::from(self.task_offset_interval_ms)
                <= now_ms;
            let hot_warmup = self.has_hot_warmup(&reconciled, &task_offsets, &task_end_offsets);
            if changed {
                self.last_sent_assignment = Some(reconciled);
            }
            if changed || interval_passed || hot_warmup {
                if self.last_sent_task_offsets.as_ref() != Some(&task_offsets) {
                    data.task_offsets = Some(offsets_to_request(&task_offsets));
                    self.last_sent_task_offsets = Some(task_offsets);
                    self.last_task_offset_interval_ms = now_ms;
                }
                if self.last_sent_task_end_offsets.as_ref() != Some(&task_end_offsets) {
                    data.task_end_offsets = Some(offsets_to_request(&task_end_offsets));
                    self.last_sent_task_end_offsets = Some(task_end_offsets);
                    self.last_task_offset_interval_ms = now_ms;
                }
            }
        }
        data.shutdown_application = self.shutdown_requested;
        data
    }

    fn has_hot_warmup(
        &self,
        assignment: &Assignment,
        offsets: &TaskOffsets,
        end_offsets: &TaskOffsets,
    ) -> bool {
        assignment
            .warmup
            .iter()
            .any(|task| match (offsets.get(task), end_offsets.get(task)) {
                (Some(&o), Some(&e)) if o != i64::MAX && e != i64::MAX => {
                    e - o <= self.acceptable_recovery_lag
                }
                _ => false,
            })
    }
}

/// Whether the statuses say the group is ready (no missing topics, no delayed assignment).
pub fn is_group_ready(statuses: Option<&[resp::Status]>) -> bool {
    statuses.is_none_or(|list| {
        !list.iter().any(|s| {
            StreamsStatus::from_code(s.status_code)
                .is_some_and(StreamsStatus::makes_group_not_ready)
        })
    })
}

fn str_bytes(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

pub(crate) fn tasks_of(list: &[resp::TaskIds]) -> BTreeSet<TaskId> {
    list.iter()
        .flat_map(|t| {
            t.partitions
                .iter()
                .map(move |p| TaskId::new(t.subtopology_id.as_str(), *p))
        })
        .collect()
}

/// Tasks grouped by subtopology (sorted), partitions sorted.
fn tasks_to_request(tasks: &BTreeSet<TaskId>) -> Vec<req::TaskIds> {
    let mut by_sub: BTreeMap<&str, Vec<i32>> = BTreeMap::new();
    for t in tasks {
        by_sub.entry(&t.subtopology).or_default().push(t.partition);
    }
    by_sub
        .into_iter()
        .map(|(sub, partitions)| {
            req::TaskIds::default()
                .with_subtopology_id(str_bytes(sub))
                .with_partitions(partitions)
        })
        .collect()
}

fn offsets_to_request(offsets: &TaskOffsets) -> Vec<req::TaskOffset> {
    offsets
        .iter()
        .map(|(task, offset)| {
            req::TaskOffset::default()
                .with_subtopology_id(str_bytes(&task.subtopology))
                .with_partition(task.partition)
                .with_offset(*offset)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::streams::topology::Subtopology;
    use MemberState::*;

    fn topology() -> Topology {
        Topology::new(vec![Subtopology::new("0", &["in"])])
    }

    fn join_info() -> JoinInfo {
        JoinInfo {
            process_id: "p".into(),
            topology: topology(),
            rebalance_timeout_ms: 300_000,
            user_endpoint: None,
            rack_id: None,
            client_tags: BTreeMap::new(),
        }
    }

    fn task(p: i32) -> TaskId {
        TaskId::new("0", p)
    }

    fn response(epoch: i32, active: Option<&[i32]>) -> StreamsGroupHeartbeatResponse {
        let r = StreamsGroupHeartbeatResponse::default()
            .with_member_id(str_bytes("m"))
            .with_member_epoch(epoch)
            .with_heartbeat_interval_ms(5_000)
            .with_status(Some(Vec::new()));
        match active {
            None => r,
            Some(parts) => r
                .with_active_tasks(Some(vec![
                    resp::TaskIds::default()
                        .with_subtopology_id(str_bytes("0"))
                        .with_partitions(parts.to_vec()),
                ]))
                .with_standby_tasks(Some(Vec::new()))
                .with_warmup_tasks(Some(Vec::new())),
        }
    }

    /// Runs a whole reconciliation (callbacks succeed at once).
    fn reconcile(m: &mut Membership) -> ReconcilePlan {
        let plan = m.maybe_reconcile().expect("a reconciliation is due");
        assert!(m.on_revocation_done());
        m.on_assignment_done(&plan);
        plan
    }

    fn joined(active: &[i32]) -> Membership {
        let mut m = Membership::new("g", "m", None);
        m.subscribe();
        m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        m.on_heartbeat_request_generated();
        m.on_heartbeat_success(&response(3, Some(active)), &topology())
            .unwrap();
        reconcile(&mut m);
        m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        m.on_heartbeat_request_generated();
        m.take_transitions();
        m
    }

    #[test]
    fn join_reconcile_acknowledge_stable() {
        let mut m = Membership::new("g", "m", Some("i"));
        assert_eq!(m.state(), Unsubscribed);
        m.subscribe();
        let join = m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        assert_eq!(join.member_epoch, 0);
        assert!(join.topology.is_some());
        m.on_heartbeat_request_generated();
        m.on_heartbeat_success(&response(3, Some(&[0, 1])), &topology())
            .unwrap();
        assert_eq!((m.state(), m.member_epoch()), (Reconciling, 3));
        let plan = reconcile(&mut m);
        assert!(plan.revoke.is_empty());
        assert_eq!(plan.added.active, [task(0), task(1)].into());
        assert_eq!(m.state(), Acknowledging);
        let ack = m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        assert_eq!(ack.active_tasks.as_ref().unwrap()[0].partitions, vec![0, 1]);
        assert!(ack.topology.is_none());
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
        // Nothing changed: the next heartbeat leaves the task lists null.
        let next = m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        assert!(next.active_tasks.is_none());
    }

    #[test]
    fn revocation_reports_the_new_smaller_set() {
        let mut m = joined(&[0, 1]);
        m.on_heartbeat_success(&response(4, Some(&[1])), &topology())
            .unwrap();
        assert_eq!(m.state(), Reconciling);
        let plan = reconcile(&mut m);
        assert_eq!(plan.revoke, [task(0)].into());
        assert!(plan.added.active.is_empty());
        let hb = m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        assert_eq!(hb.member_epoch, 4);
        assert_eq!(hb.active_tasks.as_ref().unwrap()[0].partitions, vec![1]);
    }

    #[test]
    fn a_new_target_during_reconciliation_is_reconciled_after_the_acknowledgement() {
        let mut m = joined(&[0]);
        m.on_heartbeat_success(&response(4, Some(&[0, 1])), &topology())
            .unwrap();
        let first = m.maybe_reconcile().unwrap();
        // Another assignment arrives while the callbacks run.
        m.on_heartbeat_success(&response(5, Some(&[0, 1, 2])), &topology())
            .unwrap();
        assert!(
            m.maybe_reconcile().is_none(),
            "one reconciliation at a time"
        );
        assert!(m.on_revocation_done());
        m.on_assignment_done(&first);
        assert_eq!(m.state(), Acknowledging);
        m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        m.on_heartbeat_request_generated();
        assert_eq!(m.state(), Reconciling);
        let second = m.maybe_reconcile().unwrap();
        assert_eq!(second.added.active, [task(2)].into());
    }

    #[test]
    fn fenced_drops_everything_and_rejoins_with_epoch_zero_and_the_same_member_id() {
        let mut m = joined(&[0, 1]);
        // Fenced in the middle of a reconciliation: its result no longer applies.
        m.on_heartbeat_success(&response(4, Some(&[1])), &topology())
            .unwrap();
        let plan = m.maybe_reconcile().unwrap();
        assert!(m.on_fenced());
        assert_eq!((m.state(), m.member_epoch()), (Fenced, 0));
        assert!(!m.on_revocation_done());
        m.on_assignment_done(&plan);
        assert_eq!(m.state(), Fenced);
        m.on_all_tasks_lost();
        assert_eq!(m.state(), Joining);
        assert!(m.reconciled().is_empty());
        let rejoin = m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0);
        assert_eq!(rejoin.member_id.as_str(), "m");
        assert_eq!(rejoin.member_epoch, 0);
        assert_eq!(rejoin.active_tasks, Some(Vec::new()));
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
            let sent = (!m.should_skip_leave_heartbeat()).then(|| {
                m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 0)
                    .member_epoch
            });
            assert_eq!(sent, expected, "{instance:?} {op:?}");
        }
        // Not in the group: nothing to send.
        let mut m = Membership::new("g", "m", None);
        assert!(!m.leave_group(LeaveOperation::Default));
    }

    #[test]
    fn unknown_subtopologies_are_fatal_and_readiness_follows_statuses() {
        let mut m = Membership::new("g", "m", None);
        m.subscribe();
        m.on_heartbeat_request_generated();
        let bad = StreamsGroupHeartbeatResponse::default()
            .with_member_epoch(2)
            .with_active_tasks(Some(vec![
                resp::TaskIds::default()
                    .with_subtopology_id(str_bytes("9"))
                    .with_partitions(vec![0]),
            ]))
            .with_standby_tasks(Some(Vec::new()))
            .with_warmup_tasks(Some(Vec::new()));
        assert!(m.on_heartbeat_success(&bad, &topology()).is_err());
        assert_eq!(m.state(), Fatal);

        let missing = resp::Status::default()
            .with_status_code(StreamsStatus::MissingSourceTopics.code())
            .with_status_detail(str_bytes("x"));
        assert!(!is_group_ready(Some(&[missing])));
        let stale = resp::Status::default().with_status_code(StreamsStatus::StaleTopology.code());
        assert!(is_group_ready(Some(&[stale])));
        assert!(is_group_ready(None));
    }

    #[test]
    fn task_offsets_are_resent_only_when_changed_after_the_interval() {
        let mut m = joined(&[0]);
        let mut r = response(3, None);
        r.task_offset_interval_ms = 60_000;
        m.on_heartbeat_success(&r, &topology()).unwrap();
        let offsets: TaskOffsets = [(task(5), 100)].into();
        // The join sent {} at t=0; before the interval nothing is resent.
        let hb = m.build_heartbeat(&join_info(), offsets.clone(), BTreeMap::new(), 30_000);
        assert!(hb.task_offsets.is_none());
        let hb = m.build_heartbeat(&join_info(), offsets.clone(), BTreeMap::new(), 60_000);
        assert_eq!(hb.task_offsets.as_ref().unwrap()[0].offset, 100);
        assert!(
            hb.task_end_offsets.is_none(),
            "unchanged end offsets stay null"
        );
        let hb = m.build_heartbeat(&join_info(), offsets, BTreeMap::new(), 130_000);
        assert!(
            hb.task_offsets.is_none(),
            "unchanged offsets are not resent"
        );
    }

    #[test]
    fn task_offsets_are_read_only_when_the_heartbeat_may_send_them() {
        let mut m = joined(&[0]);
        let mut r = response(3, None);
        r.task_offset_interval_ms = 60_000;
        m.on_heartbeat_success(&r, &topology()).unwrap();
        // Stable, assignment acknowledged, offsets last sent at t=0: not before the interval.
        assert!(!m.heartbeat_reads_task_offsets(30_000));
        let hb = m.build_heartbeat(&join_info(), BTreeMap::new(), BTreeMap::new(), 30_000);
        assert!(hb.task_offsets.is_none() && hb.active_tasks.is_none());
        assert!(m.heartbeat_reads_task_offsets(60_000));
        // A new assignment is acknowledged with the offsets at once.
        let mut r = response(4, Some(&[0, 1]));
        r.task_offset_interval_ms = 60_000;
        m.on_heartbeat_success(&r, &topology()).unwrap();
        reconcile(&mut m);
        assert!(m.heartbeat_reads_task_offsets(30_001));
        let hb = m.build_heartbeat(&join_info(), [(task(5), 7)].into(), BTreeMap::new(), 30_001);
        assert_eq!(hb.task_offsets.as_ref().unwrap()[0].offset, 7);
        assert!(!m.heartbeat_reads_task_offsets(30_002));
        // Joining again always reads them.
        let mut fresh = Membership::new("g", "m", None);
        fresh.subscribe();
        assert!(fresh.heartbeat_reads_task_offsets(0));
    }
}

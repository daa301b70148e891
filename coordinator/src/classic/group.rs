//! A classic group's membership and generation bookkeeping (Kafka's `ClassicGroup`): members and their
//! protocols, the static-instance mapping, pending (KIP-394) members, the pending-sync set, leader,
//! protocol selection and generation bumps. Timers and responses are the caller's business.
//!
//! Deterministic choices where Kafka iterates a `HashMap` of member ids (whose order depends on random
//! UUIDs, i.e. is effectively unspecified):
//! * members are kept in insertion order; a static replacement keeps the replaced member's position;
//! * when the leader is removed, the first remaining member (in that order) becomes leader;
//! * at join completion a leader that did not rejoin is replaced by the first rejoined member;
//! * responses and records list members in that order.
//!
//! The protocol vote's tie-break, by contrast, depends only on protocol names, so it is reproduced
//! exactly: Kafka keeps the first maximum in `HashMap<String, Integer>` iteration order.

use std::collections::{BTreeMap, BTreeSet};

use bytes::Bytes;
use indexmap::IndexMap;
use protocol::ErrorCode;

use super::member::{ClassicMember, ParkedJoin, ParkedSync, Protocol};
use super::state::GroupState;
use crate::group::OffsetExpirationCondition;
use crate::java::JavaHashMapOrder;

/// Kafka's `ConsumerProtocol.PROTOCOL_TYPE`.
pub const CONSUMER_PROTOCOL_TYPE: &str = "consumer";

/// A broken invariant Kafka reports with an `IllegalStateException`; the request that hits it is answered
/// UNKNOWN_SERVER_ERROR.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct IllegalState(pub String);

/// One classic group.
#[derive(Debug, Clone, PartialEq)]
pub struct ClassicGroup {
    group_id: String,
    state: GroupState,
    previous_state: GroupState,
    current_state_timestamp: Option<i64>,
    protocol_type: Option<String>,
    protocol_name: Option<String>,
    generation_id: i32,
    leader_id: Option<String>,
    members: IndexMap<String, ClassicMember>,
    static_members: BTreeMap<String, String>,
    pending_join_members: BTreeSet<String>,
    num_members_awaiting_join: usize,
    /// Protocol name -> number of protocol entries with that name over all members.
    supported_protocols: BTreeMap<String, i64>,
    pending_sync_members: BTreeSet<String>,
    subscribed_topics: Option<BTreeSet<String>>,
    new_member_added: bool,
}

impl ClassicGroup {
    /// A new group (`new ClassicGroup(..., state, time)`): generation 0, no protocol, timestamp `now`.
    pub fn new(group_id: impl Into<String>, state: GroupState, now_ms: Option<i64>) -> Self {
        Self::loaded(group_id, state, 0, None, None, None, now_ms)
    }

    /// A group rebuilt from its persisted metadata (members are added afterwards).
    pub fn loaded(
        group_id: impl Into<String>,
        state: GroupState,
        generation_id: i32,
        protocol_type: Option<String>,
        protocol_name: Option<String>,
        leader_id: Option<String>,
        current_state_timestamp: Option<i64>,
    ) -> Self {
        Self {
            group_id: group_id.into(),
            state,
            previous_state: GroupState::Dead,
            current_state_timestamp,
            protocol_type,
            protocol_name,
            generation_id,
            leader_id,
            members: IndexMap::new(),
            static_members: BTreeMap::new(),
            pending_join_members: BTreeSet::new(),
            num_members_awaiting_join: 0,
            supported_protocols: BTreeMap::new(),
            pending_sync_members: BTreeSet::new(),
            subscribed_topics: None,
            new_member_added: false,
        }
    }

    pub fn group_id(&self) -> &str {
        &self.group_id
    }

    pub fn state(&self) -> GroupState {
        self.state
    }

    pub fn previous_state(&self) -> GroupState {
        self.previous_state
    }

    pub fn is_in_state(&self, state: GroupState) -> bool {
        self.state == state
    }

    pub fn generation_id(&self) -> i32 {
        self.generation_id
    }

    pub fn protocol_type(&self) -> Option<&str> {
        self.protocol_type.as_deref()
    }

    pub fn protocol_name(&self) -> Option<&str> {
        self.protocol_name.as_deref()
    }

    pub fn leader_id(&self) -> Option<&str> {
        self.leader_id.as_deref()
    }

    /// `currentStateTimestampOrDefault`: -1 when unknown.
    pub fn current_state_timestamp_or_default(&self) -> i64 {
        self.current_state_timestamp.unwrap_or(-1)
    }

    /// Sets the selected protocol (a group built by an online downgrade).
    pub fn set_protocol_name(&mut self, name: Option<String>) {
        self.protocol_name = name;
    }

    pub fn new_member_added(&self) -> bool {
        self.new_member_added
    }

    pub fn set_new_member_added(&mut self, value: bool) {
        self.new_member_added = value;
    }

    pub fn is_leader(&self, member_id: &str) -> bool {
        self.leader_id.as_deref() == Some(member_id)
    }

    pub fn has_member(&self, member_id: &str) -> bool {
        self.members.contains_key(member_id)
    }

    pub fn member(&self, member_id: &str) -> Option<&ClassicMember> {
        self.members.get(member_id)
    }

    pub fn member_mut(&mut self, member_id: &str) -> Option<&mut ClassicMember> {
        self.members.get_mut(member_id)
    }

    /// Members in the group's fixed order.
    pub fn members(&self) -> impl Iterator<Item = &ClassicMember> {
        self.members.values()
    }

    pub fn member_ids(&self) -> Vec<String> {
        self.members.keys().cloned().collect()
    }

    pub fn num_members(&self) -> usize {
        self.members.len()
    }

    pub fn num_awaiting_join(&self) -> usize {
        self.num_members_awaiting_join
    }

    pub fn num_pending_join_members(&self) -> usize {
        self.pending_join_members.len()
    }

    pub fn pending_join_members(&self) -> &BTreeSet<String> {
        &self.pending_join_members
    }

    pub fn pending_sync_members(&self) -> &BTreeSet<String> {
        &self.pending_sync_members
    }

    pub fn static_members(&self) -> &BTreeMap<String, String> {
        &self.static_members
    }

    pub fn has_static_member(&self, instance_id: &str) -> bool {
        self.static_members.contains_key(instance_id)
    }

    pub fn static_member_id(&self, instance_id: &str) -> Option<&str> {
        self.static_members.get(instance_id).map(String::as_str)
    }

    pub fn subscribed_topics(&self) -> Option<&BTreeSet<String>> {
        self.subscribed_topics.as_ref()
    }

    /// Whether the group is an `Empty` group.
    pub fn is_empty(&self) -> bool {
        self.is_in_state(GroupState::Empty)
    }

    pub fn uses_consumer_group_protocol(&self) -> bool {
        self.protocol_type.as_deref() == Some(CONSUMER_PROTOCOL_TYPE)
    }

    /// `canRebalance`: a rebalance can start from Stable, CompletingRebalance or Empty.
    pub fn can_rebalance(&self) -> bool {
        GroupState::PreparingRebalance.may_follow(self.state)
    }

    /// Moves to `target`, recording the previous state and the transition time.
    pub fn transition_to(&mut self, target: GroupState, now_ms: i64) -> Result<(), IllegalState> {
        if !target.may_follow(self.state) {
            return Err(IllegalState(format!(
                "Group {} should be in one of {} states before moving to {} state. Instead it is in {} state.",
                self.group_id,
                valid_previous_states(target),
                target,
                self.state
            )));
        }
        self.previous_state = self.state;
        self.state = target;
        self.current_state_timestamp = Some(now_ms);
        Ok(())
    }

    /// Adds a member, optionally parked in JoinGroup. The first member fixes the protocol type and the
    /// first member of a leaderless group becomes leader.
    pub fn add(
        &mut self,
        mut member: ClassicMember,
        join: Option<ParkedJoin>,
    ) -> Result<(), IllegalState> {
        if let Some(instance) = &member.group_instance_id {
            if self.static_members.contains_key(instance) {
                return Err(IllegalState(format!(
                    "Static member with groupInstanceId={instance} cannot be added to group {} since it is already a member.",
                    self.group_id
                )));
            }
            self.static_members
                .insert(instance.clone(), member.member_id.clone());
        }
        if self.members.is_empty() {
            self.protocol_type = Some(member.protocol_type.clone());
        }
        if self.protocol_type.as_deref() != Some(member.protocol_type.as_str()) {
            return Err(IllegalState(
                "The group and member's protocol type must be the same.".into(),
            ));
        }
        if !self.supports_protocols(&member.protocol_type, &member.protocols) {
            return Err(IllegalState(
                "None of the member's protocols can be supported.".into(),
            ));
        }
        if self.leader_id.is_none() {
            self.leader_id = Some(member.member_id.clone());
        }
        self.increment_supported_protocols(&member.protocols);
        member.awaiting_join = join;
        if member.is_awaiting_join() {
            self.num_members_awaiting_join += 1;
        }
        self.pending_join_members.remove(&member.member_id);
        self.members.insert(member.member_id.clone(), member);
        Ok(())
    }

    /// Removes a member (or a pending member id). A removed leader is replaced by the first remaining
    /// member. Returns the removed member.
    pub fn remove(&mut self, member_id: &str) -> Option<ClassicMember> {
        let removed = self.members.shift_remove(member_id);
        if let Some(member) = &removed {
            self.decrement_supported_protocols(&member.protocols.clone());
            if member.is_awaiting_join() {
                self.num_members_awaiting_join = self.num_members_awaiting_join.saturating_sub(1);
            }
            if let Some(instance) = &member.group_instance_id {
                self.static_members.remove(instance);
            }
        }
        if self.is_leader(member_id) {
            self.leader_id = self.members.keys().next().cloned();
        }
        self.pending_join_members.remove(member_id);
        self.pending_sync_members.remove(member_id);
        removed
    }

    /// At join completion: keeps a leader that rejoined, else elects the first rejoined member. False
    /// when the group has no leader, or no member rejoined.
    pub fn maybe_elect_new_joined_leader(&mut self) -> bool {
        let Some(leader) = self.leader_id.clone() else {
            return false;
        };
        let leader_rejoined = self
            .members
            .get(&leader)
            .map(ClassicMember::is_awaiting_join)
            .unwrap_or(false);
        if leader_rejoined {
            return true;
        }
        match self.members.values().find(|m| m.is_awaiting_join()) {
            Some(m) => {
                self.leader_id = Some(m.member_id.clone());
                true
            }
            None => false,
        }
    }

    /// Replaces the static member `old_member_id` of `instance_id` by a new member `new_member_id` that
    /// inherits its client info, timeouts, protocols, assignment, position and leadership. Returns the
    /// old member's parked JoinGroup and SyncGroup, which the caller fences.
    pub fn replace_static_member(
        &mut self,
        instance_id: &str,
        old_member_id: &str,
        new_member_id: &str,
    ) -> Result<(Option<ParkedJoin>, Option<ParkedSync>), IllegalState> {
        let Some(index) = self.members.get_index_of(old_member_id) else {
            return Err(IllegalState(format!(
                "Cannot replace non-existing member id {old_member_id}"
            )));
        };
        let Some(old) = self.members.shift_remove(old_member_id) else {
            return Err(IllegalState(format!(
                "Cannot replace non-existing member id {old_member_id}"
            )));
        };
        let fenced_join = old.awaiting_join;
        if fenced_join.is_some() {
            self.num_members_awaiting_join = self.num_members_awaiting_join.saturating_sub(1);
        }
        let fenced_sync = old.awaiting_sync;
        let mut new = ClassicMember::new(
            new_member_id.to_string(),
            old.group_instance_id.clone(),
            old.client_id.clone(),
            old.client_host.clone(),
            old.rebalance_timeout_ms,
            old.session_timeout_ms,
            old.protocol_type.clone(),
            old.protocols.clone(),
        );
        new.assignment = old.assignment.clone();
        self.members
            .shift_insert(index, new_member_id.to_string(), new);
        if self.is_leader(old_member_id) {
            self.leader_id = Some(new_member_id.to_string());
        }
        self.static_members
            .insert(instance_id.to_string(), new_member_id.to_string());
        Ok((fenced_join, fenced_sync))
    }

    pub fn is_pending_member(&self, member_id: &str) -> bool {
        self.pending_join_members.contains(member_id)
    }

    pub fn add_pending_member(&mut self, member_id: &str) -> Result<bool, IllegalState> {
        if self.has_member(member_id) {
            return Err(IllegalState(format!(
                "Attempt to add pending member {member_id} which is already a stable member of the group."
            )));
        }
        Ok(self.pending_join_members.insert(member_id.to_string()))
    }

    pub fn add_pending_sync_member(&mut self, member_id: &str) {
        if self.has_member(member_id) {
            self.pending_sync_members.insert(member_id.to_string());
        }
    }

    pub fn remove_pending_sync_member(&mut self, member_id: &str) -> bool {
        self.pending_sync_members.remove(member_id)
    }

    pub fn has_received_sync_from_all_members(&self) -> bool {
        self.pending_sync_members.is_empty()
    }

    pub fn clear_pending_sync_members(&mut self) {
        self.pending_sync_members.clear();
    }

    /// Members that are not parked in JoinGroup, in member order.
    pub fn not_yet_rejoined_members(&self) -> Vec<String> {
        self.members
            .values()
            .filter(|m| !m.is_awaiting_join())
            .map(|m| m.member_id.clone())
            .collect()
    }

    /// Every member is parked in JoinGroup and no pending member is left.
    pub fn has_all_members_joined(&self) -> bool {
        self.members.len() == self.num_members_awaiting_join && self.pending_join_members.is_empty()
    }

    /// The group rebalance timeout: the largest member rebalance timeout, 0 without members.
    pub fn rebalance_timeout_ms(&self) -> i32 {
        self.members
            .values()
            .map(|m| m.rebalance_timeout_ms)
            .max()
            .unwrap_or(0)
            .max(0)
    }

    /// Kafka's `validateMember`: a request naming an instance id must match the instance's current member
    /// id (else FENCED_INSTANCE_ID, or UNKNOWN_MEMBER_ID for an unknown instance); then the member id must
    /// exist.
    pub fn validate_member(
        &self,
        member_id: &str,
        group_instance_id: Option<&str>,
    ) -> Result<(), ErrorCode> {
        if let Some(instance) = group_instance_id {
            match self.static_members.get(instance) {
                None => return Err(ErrorCode::UnknownMemberId),
                Some(existing) if existing != member_id => {
                    return Err(ErrorCode::FencedInstanceId);
                }
                Some(_) => {}
            }
        }
        if !self.has_member(member_id) {
            return Err(ErrorCode::UnknownMemberId);
        }
        Ok(())
    }

    /// Updates a member's protocols and timeouts and parks (or unparks) its JoinGroup.
    pub fn update_member(
        &mut self,
        member_id: &str,
        protocols: Vec<Protocol>,
        rebalance_timeout_ms: i32,
        session_timeout_ms: i32,
        join: Option<ParkedJoin>,
    ) {
        let Some(old_protocols) = self.members.get(member_id).map(|m| m.protocols.clone()) else {
            return;
        };
        self.decrement_supported_protocols(&old_protocols);
        self.increment_supported_protocols(&protocols);
        let mut awaiting_delta: isize = 0;
        if let Some(member) = self.members.get_mut(member_id) {
            member.protocols = protocols;
            member.rebalance_timeout_ms = rebalance_timeout_ms;
            member.session_timeout_ms = session_timeout_ms;
            if join.is_some() && !member.is_awaiting_join() {
                awaiting_delta = 1;
            } else if join.is_none() && member.is_awaiting_join() {
                awaiting_delta = -1;
            }
            member.awaiting_join = join;
        }
        self.num_members_awaiting_join = self
            .num_members_awaiting_join
            .saturating_add_signed(awaiting_delta);
    }

    /// Takes the member's parked JoinGroup, if any (the caller answers it).
    pub fn take_join(&mut self, member_id: &str) -> Option<ParkedJoin> {
        let parked = self.members.get_mut(member_id)?.awaiting_join.take();
        if parked.is_some() {
            self.num_members_awaiting_join = self.num_members_awaiting_join.saturating_sub(1);
        }
        parked
    }

    /// Takes the member's parked SyncGroup, if any (the caller answers it).
    pub fn take_sync(&mut self, member_id: &str) -> Option<ParkedSync> {
        self.members.get_mut(member_id)?.awaiting_sync.take()
    }

    /// Starts the next generation: generation + 1, a protocol selected (or cleared when the group has no
    /// members), CompletingRebalance (or Empty), no pending syncs.
    pub fn init_next_generation(&mut self, now_ms: i64) -> Result<(), IllegalState> {
        self.generation_id += 1;
        if !self.members.is_empty() {
            self.protocol_name = Some(self.select_protocol()?);
            self.subscribed_topics = self.compute_subscribed_topics();
            self.transition_to(GroupState::CompletingRebalance, now_ms)?;
        } else {
            self.protocol_name = None;
            self.subscribed_topics = self.compute_subscribed_topics();
            self.transition_to(GroupState::Empty, now_ms)?;
        }
        self.pending_sync_members.clear();
        Ok(())
    }

    /// The protocol every member supports that most members prefer. Ties go to the protocol Java's
    /// `HashMap<String, Integer>` iterates first.
    pub fn select_protocol(&self) -> Result<String, IllegalState> {
        if self.members.is_empty() {
            return Err(IllegalState(
                "Cannot select protocol for empty group".into(),
            ));
        }
        let candidates = self.candidate_protocols();
        let mut order = JavaHashMapOrder::new();
        let mut names: Vec<&str> = Vec::new();
        let mut votes: Vec<i64> = Vec::new();
        for member in self.members.values() {
            let Some(vote) = member.vote(&candidates) else {
                return Err(IllegalState(
                    "Member does not support any of the candidate protocols".into(),
                ));
            };
            let (index, inserted) = order.put(vote);
            if inserted {
                names.push(vote);
                votes.push(0);
            }
            votes[index as usize] += 1;
        }
        let mut best: Option<(u32, i64)> = None;
        for index in order.iteration_order() {
            let count = votes[index as usize];
            if best.is_none_or(|(_, c)| count > c) {
                best = Some((index, count));
            }
        }
        best.map(|(index, _)| names[index as usize].to_string())
            .ok_or_else(|| IllegalState("no protocol selected".into()))
    }

    fn candidate_protocols(&self) -> Vec<&str> {
        let size = self.members.len() as i64;
        self.supported_protocols
            .iter()
            .filter(|(_, count)| **count == size)
            .map(|(name, _)| name.as_str())
            .collect()
    }

    /// Whether a member with this protocol type and protocols may join: any non-empty type and list
    /// while Empty; otherwise the group's type and at least one protocol all members support.
    pub fn supports_protocols(&self, protocol_type: &str, protocols: &[Protocol]) -> bool {
        if self.is_in_state(GroupState::Empty) {
            !protocol_type.is_empty() && !protocols.is_empty()
        } else {
            let size = self.members.len() as i64;
            self.protocol_type.as_deref() == Some(protocol_type)
                && protocols
                    .iter()
                    .any(|p| self.supported_protocols.get(&p.name).copied().unwrap_or(0) == size)
        }
    }

    fn increment_supported_protocols(&mut self, protocols: &[Protocol]) {
        for p in protocols {
            *self.supported_protocols.entry(p.name.clone()).or_insert(0) += 1;
        }
    }

    fn decrement_supported_protocols(&mut self, protocols: &[Protocol]) {
        for p in protocols {
            *self.supported_protocols.entry(p.name.clone()).or_insert(0) -= 1;
        }
    }

    /// Every member's current assignment, by member id.
    pub fn group_assignment(&self) -> BTreeMap<String, Bytes> {
        self.members
            .values()
            .map(|m| (m.member_id.clone(), m.assignment.clone()))
            .collect()
    }

    /// The topics the members subscribe to, read from the consumer-protocol subscriptions of the
    /// selected protocol; `None` when unknown (not a consumer group, no protocol, malformed bytes).
    pub fn compute_subscribed_topics(&self) -> Option<BTreeSet<String>> {
        if self.protocol_type.as_deref() != Some(CONSUMER_PROTOCOL_TYPE) {
            return None;
        }
        if self.members.is_empty() {
            return Some(BTreeSet::new());
        }
        let protocol = self.protocol_name.as_deref()?;
        let mut topics = BTreeSet::new();
        for member in self.members.values() {
            let metadata = member.metadata(protocol)?;
            topics.extend(super::consumer_protocol::subscription_topics(metadata)?);
        }
        Some(topics)
    }

    pub fn set_subscribed_topics(&mut self, topics: Option<BTreeSet<String>>) {
        self.subscribed_topics = topics;
    }

    /// `isSubscribedToTopic`: by the known subscriptions, else true for consumer groups.
    pub fn is_subscribed_to_topic(&self, topic: &str) -> bool {
        match &self.subscribed_topics {
            Some(topics) => topics.contains(topic),
            None => self.uses_consumer_group_protocol(),
        }
    }

    /// `offsetExpirationCondition`: a group with members keeps its offsets unless it is a Stable
    /// consumer group whose subscriptions are known (offsets of other topics then expire by commit
    /// time); an Empty group's offsets expire from the time it became empty; a simple group's (no
    /// protocol type) by commit time.
    pub fn offset_expiration_condition(&self) -> Option<OffsetExpirationCondition> {
        if self.protocol_type.is_none() {
            return Some(OffsetExpirationCondition::SinceCommit);
        }
        if self.is_in_state(GroupState::Empty) {
            return Some(OffsetExpirationCondition::SinceEmpty(
                self.current_state_timestamp,
            ));
        }
        if self.uses_consumer_group_protocol()
            && self.subscribed_topics.is_some()
            && self.is_in_state(GroupState::Stable)
        {
            return Some(OffsetExpirationCondition::SinceCommit);
        }
        None
    }

    /// Moves the group to Dead (unload, deletion).
    pub fn mark_dead(&mut self, now_ms: i64) {
        self.previous_state = self.state;
        self.state = GroupState::Dead;
        self.current_state_timestamp = Some(now_ms);
    }

    /// Test hook mirroring Kafka tests that force a state with `transitionTo`.
    pub fn force_state(&mut self, state: GroupState, now_ms: i64) -> Result<(), IllegalState> {
        self.transition_to(state, now_ms)
    }
}

fn valid_previous_states(target: GroupState) -> String {
    use GroupState::*;
    let all = [Empty, PreparingRebalance, CompletingRebalance, Stable, Dead];
    let names: Vec<&str> = all
        .iter()
        .filter(|s| target.may_follow(**s))
        .map(|s| s.name())
        .collect();
    format!("[{}]", names.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn member(id: &str, instance: Option<&str>, protocols: &[&str]) -> ClassicMember {
        ClassicMember::new(
            id.into(),
            instance.map(Into::into),
            "client".into(),
            "/127.0.0.1".into(),
            1000,
            500,
            "consumer".into(),
            protocols
                .iter()
                .map(|p| Protocol {
                    name: (*p).into(),
                    metadata: Bytes::new(),
                })
                .collect(),
        )
    }

    #[test]
    fn protocol_vote_tie_follows_java_hash_map_order() {
        // Java spreads "range".hashCode() to bucket 9 of 16, "roundrobin" to 10 and "sticky" to 8: a tie
        // goes to the protocol iterated first.
        let mut g = ClassicGroup::new("g", GroupState::Empty, Some(0));
        g.add(member("a", None, &["range", "roundrobin", "sticky"]), None)
            .unwrap();
        g.add(member("b", None, &["roundrobin", "range", "sticky"]), None)
            .unwrap();
        assert_eq!(g.select_protocol().unwrap(), "range");
        g.add(member("c", None, &["sticky", "range", "roundrobin"]), None)
            .unwrap();
        assert_eq!(g.select_protocol().unwrap(), "sticky");
        g.add(member("d", None, &["roundrobin", "range", "sticky"]), None)
            .unwrap();
        assert_eq!(g.select_protocol().unwrap(), "roundrobin");
    }

    #[test]
    fn leader_moves_to_first_remaining_member_and_follows_replacement() {
        let mut g = ClassicGroup::new("g", GroupState::Empty, Some(0));
        g.add(member("a", Some("ia"), &["range"]), None).unwrap();
        g.add(member("b", None, &["range"]), None).unwrap();
        g.add(member("c", None, &["range"]), None).unwrap();
        assert!(g.is_leader("a"));
        g.replace_static_member("ia", "a", "a2").unwrap();
        assert!(g.is_leader("a2"));
        assert_eq!(g.member_ids(), vec!["a2", "b", "c"]);
        assert_eq!(g.static_member_id("ia"), Some("a2"));
        g.remove("a2");
        assert!(g.is_leader("b"));
        assert!(!g.has_static_member("ia"));
    }

    #[test]
    fn validate_member_rules() {
        let mut g = ClassicGroup::new("g", GroupState::Empty, Some(0));
        g.add(member("a", Some("ia"), &["range"]), None).unwrap();
        assert!(g.add(member("a2", Some("ia"), &["range"]), None).is_err());
        assert_eq!(g.validate_member("a", Some("ia")), Ok(()));
        assert_eq!(g.validate_member("a", None), Ok(()));
        assert_eq!(
            g.validate_member("x", Some("ia")),
            Err(ErrorCode::FencedInstanceId)
        );
        assert_eq!(
            g.validate_member("a", Some("other")),
            Err(ErrorCode::UnknownMemberId)
        );
        assert_eq!(
            g.validate_member("x", None),
            Err(ErrorCode::UnknownMemberId)
        );
    }
}

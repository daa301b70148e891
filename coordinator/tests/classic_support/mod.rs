//! Shared harness of the classic-group and offsets tests: a shard driven through its public api with a
//! manual clock, request builders mirroring Kafka's `GroupMetadataManagerTestContext`, and the
//! replay-equivalence check every test runs when its context is dropped.
//!
//! Kafka's unit tests call `GroupMetadataManager` directly; these go through `Shard::handle`, so they also
//! exercise the request checks in front of it. Conventions copied from Kafka's test context:
//! * `join(req)` sends JoinGroup v3, `join_v(req, 4)` the KIP-394 version, `join_v(req, 9)` the latest;
//!   SyncGroup, Heartbeat and LeaveGroup are sent at their latest versions;
//! * the JoinGroup builder defaults to protocol type "consumer", session and rebalance timeouts of 500 ms,
//!   and `protocols(&["range", ..])` gives each protocol a real consumer subscription of "foo", "bar",
//!   "baz" in turn;
//! * the group coordinator's session bounds are not checked by Kafka's manager, so the harness lowers
//!   `group.min.session.timeout.ms` to 1;
//! * client id "client", client host "localhost/127.0.0.1" (Java's loopback `InetAddress.toString()`).

#![allow(dead_code)]

use std::collections::BTreeMap;

use bytes::Bytes;
use coordinator::classic::{ClassicGroup, GroupState};
use coordinator::records::Record;
use coordinator::records::classic::GroupMetadataValue;
use coordinator::shard::{Fired, Outcome, RequestToken, Shard};
use coordinator::topics::{TopicMetadata, TopicsImage};
use coordinator::{RequestContext, classic::persist};
use protocol::messages::join_group_request::JoinGroupRequestProtocol;
use protocol::messages::leave_group_request::MemberIdentity;
use protocol::messages::sync_group_request::SyncGroupRequestAssignment;
use protocol::messages::*;
use protocol::{ErrorCode, Request, Response};

pub const GROUP: &str = "group-id";
pub const CLIENT_ID: &str = "client";
pub const CLIENT_HOST: &str = "localhost/127.0.0.1";

/// A group created by offset commits only: no protocol type, Empty, no pending members. (A test's
/// question: the coordinator itself never asks it.)
pub fn is_simple_group(group: &ClassicGroup) -> bool {
    group.protocol_type().is_none()
        && group.is_in_state(GroupState::Empty)
        && group.pending_join_members().is_empty()
}

pub fn sb(s: &str) -> StrBytes {
    StrBytes::from_string(s.to_string())
}

/// A version-3 `ConsumerProtocolSubscription` of `topics` (what `ConsumerProtocol.serializeSubscription`
/// writes): version, topics, null user data, no owned partitions, generation -1, null rack.
pub fn subscription(topics: &[&str]) -> Bytes {
    let mut out = Vec::new();
    out.extend_from_slice(&3i16.to_be_bytes());
    out.extend_from_slice(&(topics.len() as i32).to_be_bytes());
    for t in topics {
        out.extend_from_slice(&(t.len() as i16).to_be_bytes());
        out.extend_from_slice(t.as_bytes());
    }
    out.extend_from_slice(&(-1i32).to_be_bytes());
    out.extend_from_slice(&0i32.to_be_bytes());
    out.extend_from_slice(&(-1i32).to_be_bytes());
    out.extend_from_slice(&(-1i16).to_be_bytes());
    Bytes::from(out)
}

/// Kafka's `toProtocols(names...)`: protocol i subscribes to foo, bar, baz (i mod 3).
pub fn protocols(names: &[&str]) -> Vec<JoinGroupRequestProtocol> {
    let topics = ["foo", "bar", "baz"];
    names
        .iter()
        .enumerate()
        .map(|(i, name)| {
            JoinGroupRequestProtocol::default()
                .with_name(sb(name))
                .with_metadata(subscription(&[topics[i % 3]]))
        })
        .collect()
}

/// Kafka's `JoinGroupRequestBuilder`.
#[derive(Debug, Clone)]
pub struct JoinBuilder {
    pub request: JoinGroupRequest,
}

pub fn join_request() -> JoinBuilder {
    JoinBuilder {
        request: JoinGroupRequest::default()
            .with_group_id(sb(GROUP).into())
            .with_member_id(sb(""))
            .with_protocol_type(sb("consumer"))
            .with_session_timeout_ms(500)
            .with_rebalance_timeout_ms(500),
    }
}

impl JoinBuilder {
    pub fn group(mut self, id: &str) -> Self {
        self.request.group_id = sb(id).into();
        self
    }
    pub fn member(mut self, id: &str) -> Self {
        self.request.member_id = sb(id);
        self
    }
    pub fn instance(mut self, id: &str) -> Self {
        self.request.group_instance_id = Some(sb(id));
        self
    }
    pub fn no_instance(mut self) -> Self {
        self.request.group_instance_id = None;
        self
    }
    /// `withDefaultProtocolTypeAndProtocols`: ["range"].
    pub fn default_protocols(self) -> Self {
        self.protocols(&["range"])
    }
    /// `withProtocolSuperset`: ["range", "roundrobin"].
    pub fn protocol_superset(self) -> Self {
        self.protocols(&["range", "roundrobin"])
    }
    pub fn protocols(mut self, names: &[&str]) -> Self {
        self.request.protocols = protocols(names);
        self
    }
    pub fn raw_protocols(mut self, p: Vec<JoinGroupRequestProtocol>) -> Self {
        self.request.protocols = p;
        self
    }
    pub fn protocol_type(mut self, t: &str) -> Self {
        self.request.protocol_type = sb(t);
        self
    }
    pub fn session(mut self, ms: i32) -> Self {
        self.request.session_timeout_ms = ms;
        self
    }
    pub fn rebalance(mut self, ms: i32) -> Self {
        self.request.rebalance_timeout_ms = ms;
        self
    }
    pub fn build(self) -> JoinGroupRequest {
        self.request
    }
}

/// Kafka's `SyncGroupRequestBuilder` (protocol type "consumer", name "range" by default).
pub fn sync_request(member_id: &str, generation: i32) -> SyncGroupRequest {
    SyncGroupRequest::default()
        .with_group_id(sb(GROUP).into())
        .with_member_id(sb(member_id))
        .with_generation_id(generation)
        .with_protocol_type(Some(sb("consumer")))
        .with_protocol_name(Some(sb("range")))
}

pub fn assignment(member_id: &str, bytes: &[u8]) -> SyncGroupRequestAssignment {
    SyncGroupRequestAssignment::default()
        .with_member_id(sb(member_id))
        .with_assignment(Bytes::copy_from_slice(bytes))
}

pub fn heartbeat_request(member_id: &str, generation: i32) -> HeartbeatRequest {
    HeartbeatRequest::default()
        .with_group_id(sb(GROUP).into())
        .with_member_id(sb(member_id))
        .with_generation_id(generation)
}

pub fn leave_member(member_id: &str, instance: Option<&str>) -> MemberIdentity {
    MemberIdentity::default()
        .with_member_id(sb(member_id))
        .with_group_instance_id(instance.map(sb))
}

pub fn leave_request(members: Vec<MemberIdentity>) -> LeaveGroupRequest {
    LeaveGroupRequest::default()
        .with_group_id(sb(GROUP).into())
        .with_members(members)
}

/// A request sent to the shard: its token and the records its handling appended.
#[derive(Debug, Clone)]
pub struct Sent {
    pub token: RequestToken,
    pub records: Vec<Record>,
}

/// The harness.
pub struct TestContext {
    pub shard: Shard,
    pub now: i64,
    next_token: u64,
    /// Every record the shard produced, in order: the partition's log.
    pub log: Vec<Record>,
    /// Every answer, by request token, as the shard built it (Kafka's response data object).
    pub answers: BTreeMap<RequestToken, Response>,
    /// Every answer as a client at the request's version reads it: encoded and decoded again (which also
    /// checks that every answer can be sent).
    pub wire_answers: BTreeMap<RequestToken, Response>,
    /// The tokens in the order they were answered.
    pub answer_order: Vec<RequestToken>,
    /// The version each request was sent at.
    versions: BTreeMap<RequestToken, i16>,
    /// Set to false by tests that deliberately break replay equivalence.
    pub check_replay_on_drop: bool,
}

impl Default for TestContext {
    fn default() -> Self {
        Self::new()
    }
}

impl TestContext {
    pub fn new() -> Self {
        let mut shard = Shard::default();
        shard
            .config
            .set("group.min.session.timeout.ms", "1")
            .expect("config");
        Self {
            shard,
            now: 0,
            next_token: 1,
            log: Vec::new(),
            answers: BTreeMap::new(),
            wire_answers: BTreeMap::new(),
            answer_order: Vec::new(),
            versions: BTreeMap::new(),
            check_replay_on_drop: true,
        }
    }

    pub fn with_config(mut self, key: &str, value: &str) -> Self {
        self.shard.config.set(key, value).expect("config");
        self
    }

    pub fn with_topics(mut self, topics: &[(&str, i32)]) -> Self {
        self.shard.set_topics(TopicsImage::from_topics(
            topics.iter().map(|(name, n)| TopicMetadata::new(*name, *n)),
        ));
        self
    }

    /// Kafka's `createClassicGroup`: an empty group, nothing written.
    pub fn create_group(&mut self, id: &str) {
        self.shard.classic.create_empty_group(id, Some(self.now));
    }

    pub fn group(&self) -> &ClassicGroup {
        self.group_named(GROUP)
    }

    pub fn group_named(&self, id: &str) -> &ClassicGroup {
        self.shard.classic.get(id).expect("group exists")
    }

    /// Kafka tests' `group.transitionTo(state)`.
    pub fn force_state(&mut self, state: GroupState) {
        self.shard
            .classic
            .force_state(GROUP, state, self.now)
            .expect("legal transition");
    }

    /// A new metadata image (Kafka's onMetadataUpdate); the offset tombstones of deleted topics go to
    /// the log.
    pub fn set_topics(&mut self, image: TopicsImage) -> Outcome {
        let outcome = self.shard.set_topics(image);
        self.log.extend(outcome.records.iter().cloned());
        outcome
    }

    /// Loads a record as a coordinator taking over would (replay, then `on_loaded`), and puts it in the
    /// log: sets up groups with chosen member ids.
    pub fn load(&mut self, record: Record) {
        self.shard.replay(&record);
        self.shard.on_loaded(self.now);
        self.log.push(record);
    }

    pub fn commit(&mut self, version: i16, request: OffsetCommitRequest) -> OffsetCommitResponse {
        let sent = self.send(version, request);
        match self.answer(&sent) {
            Some(Response::OffsetCommit(r)) => r,
            other => panic!("expected an offset commit response, got {other:?}"),
        }
    }

    pub fn fetch(&mut self, version: i16, request: OffsetFetchRequest) -> OffsetFetchResponse {
        let sent = self.send(version, request);
        match self.answer(&sent) {
            Some(Response::OffsetFetch(r)) => r,
            other => panic!("expected an offset fetch response, got {other:?}"),
        }
    }

    /// Kafka tests' `prepareRebalance(group)`: a rebalance nobody asked for.
    pub fn prepare_rebalance(&mut self) {
        let config = self.shard.config.classic.clone();
        let outcome = self
            .shard
            .classic
            .prepare_rebalance(GROUP, &config, &mut self.shard.timers, self.now)
            .expect("group exists");
        self.shard.replay_all(&outcome.records);
        self.absorb(outcome);
    }

    fn absorb(&mut self, outcome: Outcome) -> Vec<Record> {
        for reply in outcome.replies {
            assert!(
                !self.answers.contains_key(&reply.token),
                "request {:?} answered twice",
                reply.token
            );
            self.answer_order.push(reply.token);
            let version = self.versions[&reply.token];
            let mut buf = bytes::BytesMut::new();
            reply
                .response
                .encode(version, &mut buf)
                .unwrap_or_else(|e| panic!("answer cannot be encoded at v{version}: {e}"));
            let api = reply.response.api().key();
            let decoded = Response::decode(api, version, &mut buf.freeze())
                .unwrap_or_else(|e| panic!("answer cannot be decoded at v{version}: {e}"));
            self.wire_answers.insert(reply.token, decoded);
            self.answers.insert(reply.token, reply.response);
        }
        self.log.extend(outcome.records.iter().cloned());
        outcome.records
    }

    /// Sends a request at `version` with the default client.
    pub fn send(&mut self, version: i16, request: impl Into<Request>) -> Sent {
        self.send_as(CLIENT_ID, version, request)
    }

    pub fn send_as(&mut self, client_id: &str, version: i16, request: impl Into<Request>) -> Sent {
        let token = RequestToken(self.next_token);
        self.next_token += 1;
        self.versions.insert(token, version);
        let ctx = RequestContext::new(client_id, CLIENT_HOST, version);
        let outcome = self
            .shard
            .handle(token, &ctx, &request.into(), self.now)
            .expect("a coordinator api");
        let records = self.absorb(outcome);
        Sent { token, records }
    }

    /// JoinGroup v3 (Kafka's `sendClassicGroupJoin(request)`).
    pub fn join(&mut self, request: JoinGroupRequest) -> Sent {
        self.send(3, request)
    }

    pub fn join_v(&mut self, request: JoinGroupRequest, version: i16) -> Sent {
        self.send(version, request)
    }

    /// The join response as the client decoded it.
    pub fn joined_on_wire(&self, sent: &Sent) -> JoinGroupResponse {
        match self.wire_answers.get(&sent.token) {
            Some(Response::JoinGroup(r)) => r.clone(),
            other => panic!("expected a join response, got {other:?}"),
        }
    }

    /// A JoinGroup answered at once.
    pub fn join_now(&mut self, request: JoinGroupRequest, version: i16) -> JoinGroupResponse {
        let sent = self.join_v(request, version);
        self.joined(&sent)
    }

    pub fn sync(&mut self, request: SyncGroupRequest) -> Sent {
        self.send(5, request)
    }

    pub fn heartbeat(&mut self, request: HeartbeatRequest) -> HeartbeatResponse {
        let sent = self.send(4, request);
        match self.answer(&sent) {
            Some(Response::Heartbeat(r)) => r,
            other => panic!("expected a heartbeat response, got {other:?}"),
        }
    }

    pub fn heartbeat_error(&mut self, member_id: &str, generation: i32) -> ErrorCode {
        let r = self.heartbeat(heartbeat_request(member_id, generation));
        ErrorCode::from_code(r.error_code).expect("known code")
    }

    pub fn leave(&mut self, request: LeaveGroupRequest) -> (LeaveGroupResponse, Vec<Record>) {
        let sent = self.send(5, request);
        match self.answer(&sent) {
            Some(Response::LeaveGroup(r)) => (r, sent.records),
            other => panic!("expected a leave response, got {other:?}"),
        }
    }

    pub fn describe(&mut self, version: i16, groups: &[&str]) -> DescribeGroupsResponse {
        let request = DescribeGroupsRequest::default()
            .with_groups(groups.iter().map(|g| sb(g).into()).collect());
        let sent = self.send(version, request);
        match self.answer(&sent) {
            Some(Response::DescribeGroups(r)) => r,
            other => panic!("expected a describe response, got {other:?}"),
        }
    }

    pub fn answer(&self, sent: &Sent) -> Option<Response> {
        self.answers.get(&sent.token).cloned()
    }

    pub fn is_done(&self, sent: &Sent) -> bool {
        self.answers.contains_key(&sent.token)
    }

    pub fn join_response(&self, sent: &Sent) -> Option<JoinGroupResponse> {
        match self.answer(sent) {
            Some(Response::JoinGroup(r)) => Some(r),
            None => None,
            other => panic!("expected a join response, got {other:?}"),
        }
    }

    /// The join response, which must have arrived.
    pub fn joined(&self, sent: &Sent) -> JoinGroupResponse {
        self.join_response(sent).expect("join answered")
    }

    pub fn sync_response(&self, sent: &Sent) -> Option<SyncGroupResponse> {
        match self.answer(sent) {
            Some(Response::SyncGroup(r)) => Some(r),
            None => None,
            other => panic!("expected a sync response, got {other:?}"),
        }
    }

    pub fn synced(&self, sent: &Sent) -> SyncGroupResponse {
        self.sync_response(sent).expect("sync answered")
    }

    /// Advances the clock by `ms`, firing every timer due on the way (each at its own deadline).
    pub fn sleep(&mut self, ms: i64) -> Vec<Fired> {
        self.now += ms;
        let fired = self.shard.expire(self.now);
        for f in &fired {
            self.absorb(f.outcome.clone());
        }
        fired
    }

    /// Kafka's `joinClassicGroupAsDynamicMemberAndCompleteJoin`: MEMBER_ID_REQUIRED round trip at v4,
    /// then the initial delay.
    pub fn join_dynamic_and_complete_join(
        &mut self,
        request: JoinGroupRequest,
    ) -> JoinGroupResponse {
        let mut member_id = request.member_id.to_string();
        if member_id.is_empty() {
            let first = self.join_v(request.clone(), 4);
            assert!(first.records.is_empty() || first.records.len() == 1);
            let r = self.joined(&first);
            assert_eq!(r.error_code, ErrorCode::MemberIdRequired.code());
            member_id = r.member_id.to_string();
        }
        let second = self.join_v(request.with_member_id(sb(&member_id)), 4);
        assert!(second.records.is_empty());
        let delay = i64::from(self.shard.config.classic.initial_rebalance_delay_ms);
        let fired = self.sleep(delay);
        assert_eq!(fired.len(), 1);
        let r = self.joined(&second);
        assert_eq!(r.error_code, ErrorCode::None.code());
        r
    }

    /// Kafka's `joinClassicGroupAndCompleteJoin(request, requireKnownMemberId, supportSkippingAssignment)`.
    pub fn join_and_complete_join(
        &mut self,
        request: JoinGroupRequest,
        require_known_member_id: bool,
        support_skipping_assignment: bool,
    ) -> JoinGroupResponse {
        if require_known_member_id && request.group_instance_id.is_none() {
            return self.join_dynamic_and_complete_join(request);
        }
        let version = match (require_known_member_id, support_skipping_assignment) {
            (false, _) => 3,
            (true, false) => 4,
            (true, true) => 9,
        };
        let sent = self.join_v(request, version);
        let delay = i64::from(self.shard.config.classic.initial_rebalance_delay_ms);
        self.sleep(delay);
        let r = self.joined(&sent);
        assert_eq!(r.error_code, ErrorCode::None.code());
        r
    }

    /// Kafka's `staticMembersJoinAndRebalance(group, leader, follower, rebalance, session)`: both static
    /// members join with unknown ids, two initial delays pass, the leader syncs [1]/[2], the follower
    /// syncs; the group is Stable at generation 1.
    pub fn static_members_join_and_rebalance(
        &mut self,
        leader_instance: &str,
        follower_instance: &str,
        rebalance_ms: i32,
        session_ms: i32,
    ) -> RebalanceResult {
        self.create_group(GROUP);
        let request = join_request()
            .instance(leader_instance)
            .protocol_superset()
            .rebalance(rebalance_ms)
            .session(session_ms)
            .build();
        let leader_join = self.join(request.clone());
        let follower_join = self.join(request.with_group_instance_id(Some(sb(follower_instance))));
        assert!(leader_join.records.is_empty());
        assert!(follower_join.records.is_empty());
        assert!(!self.is_done(&leader_join));
        assert!(!self.is_done(&follower_join));
        let delay = i64::from(self.shard.config.classic.initial_rebalance_delay_ms);
        assert_no_records(&self.sleep(delay));
        assert_no_records(&self.sleep(delay));
        let leader = self.joined(&leader_join);
        let follower = self.joined(&follower_join);
        assert_eq!(leader.error_code, 0);
        assert_eq!(follower.error_code, 0);
        assert_eq!(leader.generation_id, 1);
        assert_eq!(follower.generation_id, 1);
        assert_eq!(self.group().num_members(), 2);
        assert_eq!(self.group().generation_id(), 1);
        assert_eq!(self.group().state(), GroupState::CompletingRebalance);

        let leader_id = leader.member_id.to_string();
        let follower_id = follower.member_id.to_string();
        let leader_sync = self.sync(
            sync_request(&leader_id, 1)
                .with_group_instance_id(Some(sb(leader_instance)))
                .with_assignments(vec![
                    assignment(&leader_id, &[1]),
                    assignment(&follower_id, &[2]),
                ]),
        );
        assert_eq!(leader_sync.records.len(), 1);
        let value = metadata_value(&leader_sync.records[0]);
        assert_eq!(value.generation, 1);
        assert_eq!(value.leader.as_deref(), Some(leader_id.as_str()));
        assert_eq!(value.members.len(), 2);
        assert_eq!(self.synced(&leader_sync).error_code, 0);
        assert_eq!(self.group().state(), GroupState::Stable);

        let follower_sync = self.sync(
            sync_request(&follower_id, 1).with_group_instance_id(Some(sb(follower_instance))),
        );
        assert!(follower_sync.records.is_empty());
        assert_eq!(self.synced(&follower_sync).error_code, 0);
        assert_eq!(self.group().state(), GroupState::Stable);
        assert_eq!(self.group().num_members(), 2);
        assert_eq!(self.group().generation_id(), 1);
        RebalanceResult {
            generation: 1,
            leader_id,
            leader_assignment: self.synced(&leader_sync).assignment,
            follower_id,
            follower_assignment: self.synced(&follower_sync).assignment,
        }
    }

    /// The check run on drop: replaying the log into a fresh shard (then `on_loaded`) yields the same
    /// persisted state, and every loaded group is exactly what its last record describes.
    pub fn assert_replay_equivalent(&self) {
        let mut fresh = Shard::new(self.shard.config.clone());
        fresh.set_topics(self.shard.topics.clone());
        fresh.replay_all(&self.log);
        self.assert_loaded_groups_match_records(&fresh);
        fresh.on_loaded(self.now);
        assert_eq!(
            fresh.classic.persisted(),
            self.shard.classic.persisted(),
            "persisted classic groups differ after replay"
        );
        assert_eq!(
            fresh.offsets, self.shard.offsets,
            "offsets differ after replay"
        );
        assert_eq!(
            fresh.streams.persistent_state(),
            self.shard.streams.persistent_state(),
            "streams groups differ after replay"
        );
        for group in fresh.classic.groups() {
            assert!(
                // A simple group is created by an offset commit record; it may have lost its offsets
                // since (a deleted topic) without being deleted yet.
                fresh.classic.persisted().contains_key(group.group_id()) || is_simple_group(group),
                "group {} loaded without a record",
                group.group_id()
            );
        }
    }

    /// Right after the replay (before `on_loaded`, which may start a rebalance), every group is exactly
    /// what its last record describes.
    fn assert_loaded_groups_match_records(&self, fresh: &Shard) {
        for (id, value) in fresh.classic.persisted() {
            let group = fresh.classic.get(id).expect("a persisted group is loaded");
            let rebuilt = persist::metadata_value(group, &group.group_assignment())
                .expect("a loaded group can be written");
            let mut expected = value.clone();
            for m in &mut expected.members {
                if m.rebalance_timeout == -1 {
                    m.rebalance_timeout = m.session_timeout;
                }
            }
            assert_eq!(
                rebuilt, expected,
                "loaded group {id} differs from its record"
            );
            let state = if value.members.is_empty() {
                GroupState::Empty
            } else {
                GroupState::Stable
            };
            assert_eq!(group.state(), state);
        }
    }
}

impl Drop for TestContext {
    fn drop(&mut self) {
        if self.check_replay_on_drop && !std::thread::panicking() {
            self.assert_replay_equivalent();
        }
    }
}

pub struct RebalanceResult {
    pub generation: i32,
    pub leader_id: String,
    pub leader_assignment: Bytes,
    pub follower_id: String,
    pub follower_assignment: Bytes,
}

/// Kafka's `assertNoOrEmptyResult`: the timers that fired wrote nothing.
pub fn assert_no_records(fired: &[Fired]) {
    for f in fired {
        assert!(
            f.outcome.records.is_empty(),
            "timer {} wrote {:?}",
            f.key,
            f.outcome.records
        );
    }
}

/// The value of a GroupMetadata record.
pub fn metadata_value(record: &Record) -> GroupMetadataValue {
    match record {
        Record::GroupMetadata {
            value: Some(value), ..
        } => value.clone(),
        other => panic!("expected a GroupMetadata value, got {other:?}"),
    }
}

/// A GroupMetadata record of a Stable group `GROUP` with the given (member id, instance id) members, all
/// on protocol "range" with a "foo" subscription, generation `generation`, first member leading.
pub fn stable_group_record(generation: i32, members: &[(&str, Option<&str>)]) -> Record {
    use coordinator::records::classic::{GroupMetadataKey, MemberMetadata};
    Record::GroupMetadata {
        key: GroupMetadataKey {
            group: GROUP.to_string(),
        },
        value: Some(GroupMetadataValue {
            protocol_type: "consumer".into(),
            generation,
            protocol: Some("range".into()),
            leader: members.first().map(|(m, _)| m.to_string()),
            current_state_timestamp: 0,
            members: members
                .iter()
                .map(|(m, i)| MemberMetadata {
                    member_id: m.to_string(),
                    group_instance_id: i.map(str::to_string),
                    client_id: CLIENT_ID.into(),
                    client_host: CLIENT_HOST.into(),
                    rebalance_timeout: 10000,
                    session_timeout: 10000,
                    subscription: subscription(&["foo"]).to_vec(),
                    assignment: Vec::new(),
                })
                .collect(),
        }),
    }
}

/// An OffsetCommit request of one partition.
pub fn commit_request(
    group: &str,
    member_id: &str,
    instance: Option<&str>,
    generation: i32,
    topic: &str,
    partition: i32,
    offset: i64,
) -> OffsetCommitRequest {
    use protocol::messages::offset_commit_request::{
        OffsetCommitRequestPartition, OffsetCommitRequestTopic,
    };
    OffsetCommitRequest::default()
        .with_group_id(sb(group).into())
        .with_member_id(sb(member_id))
        .with_group_instance_id(instance.map(sb))
        .with_generation_id_or_member_epoch(generation)
        .with_topics(vec![
            OffsetCommitRequestTopic::default()
                .with_name(sb(topic).into())
                .with_partitions(vec![
                    OffsetCommitRequestPartition::default()
                        .with_partition_index(partition)
                        .with_committed_offset(offset),
                ]),
        ])
}

/// The (topic, partition, error) answers of an OffsetCommit response.
pub fn commit_errors(r: &OffsetCommitResponse) -> Vec<(String, i32, ErrorCode)> {
    r.topics
        .iter()
        .flat_map(|t| {
            t.partitions.iter().map(move |p| {
                (
                    t.name.to_string(),
                    p.partition_index,
                    ErrorCode::from_code(p.error_code).expect("known code"),
                )
            })
        })
        .collect()
}

pub fn code(c: ErrorCode) -> i16 {
    c.code()
}

pub fn member_ids(r: &JoinGroupResponse) -> Vec<String> {
    r.members.iter().map(|m| m.member_id.to_string()).collect()
}

pub fn instance_ids(r: &JoinGroupResponse) -> Vec<Option<String>> {
    r.members
        .iter()
        .map(|m| m.group_instance_id.as_ref().map(|s| s.to_string()))
        .collect()
}

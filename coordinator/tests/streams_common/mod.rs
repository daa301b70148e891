//! Shared harness of the streams scenario tests: a shard driven at simulated time, a mock assignor
//! that returns prepared targets (Kafka's `MockTaskAssignor`), builders for requests and expected
//! records, and the replay-equivalence check every scenario runs when it ends: replaying every
//! record the scenario produced into a fresh shard must give the same persistent streams state.
#![allow(dead_code)]

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use coordinator::records::Record;
use coordinator::records::streams::{
    Endpoint, KeyValue, StreamsGroupKey, StreamsGroupMetadataValue, StreamsGroupTopologyValue,
    StreamsMemberKey,
};
use coordinator::streams::assignor::{
    AssignorError, GroupAssignment, GroupSpec, MemberAssignment, TaskAssignor, TopologyDescriber,
};
use coordinator::streams::member::{MemberState, StreamsGroupMember};
use coordinator::streams::tasks::{ActiveTasks, Tasks, TasksTuple, TasksWithEpochs};
use coordinator::streams::timers::StreamsTimer;
use coordinator::topics::{TopicMetadata, TopicsImage};
use coordinator::{Fired, RequestContext, RequestToken, Shard};
use protocol::messages::streams_group_heartbeat_request as req;
use protocol::messages::streams_group_heartbeat_response as resp;
use protocol::messages::{
    GroupId, StrBytes, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse,
    StreamsGroupHeartbeatRequest, StreamsGroupHeartbeatResponse, TopicName,
};
use protocol::{ErrorCode, Request, Response};

pub const GROUP: &str = "fooup";
pub const CLIENT_ID: &str = "client";
pub const CLIENT_HOST: &str = "localhost/127.0.0.1";
pub const PROCESS: &str = "process-id";

// ---------------------------------------------------------------------------------------------
// Mock assignor.

/// Kafka's `MockTaskAssignor`: returns whatever was prepared last, or fails if told to.
#[derive(Default)]
pub struct MockAssignor {
    pub prepared: Mutex<GroupAssignment>,
    pub fail: Mutex<Option<String>>,
    pub last_spec: Mutex<Option<GroupSpec>>,
    pub name: String,
}

impl TaskAssignor for MockAssignor {
    fn name(&self) -> &str {
        &self.name
    }
    fn assign(
        &self,
        group: &GroupSpec,
        _t: &TopologyDescriber,
    ) -> Result<GroupAssignment, AssignorError> {
        *self.last_spec.lock().unwrap() = Some(group.clone());
        if let Some(m) = self.fail.lock().unwrap().clone() {
            return Err(AssignorError::Failed(m));
        }
        Ok(self.prepared.lock().unwrap().clone())
    }
}

// ---------------------------------------------------------------------------------------------
// Task helpers.

pub fn tasks(list: &[(&str, &[i32])]) -> Tasks {
    list.iter()
        .map(|(s, p)| (s.to_string(), p.iter().copied().collect::<BTreeSet<i32>>()))
        .collect()
}

pub fn active_epochs(epoch: i32, list: &[(&str, &[i32])]) -> ActiveTasks {
    list.iter()
        .map(|(s, p)| (s.to_string(), p.iter().map(|x| (*x, epoch)).collect()))
        .collect()
}

/// Active tasks with one epoch each: `[("s", &[(partition, epoch)])]`.
pub fn active_with(list: &[(&str, &[(i32, i32)])]) -> ActiveTasks {
    list.iter()
        .map(|(s, p)| (s.to_string(), p.iter().copied().collect()))
        .collect()
}

pub fn tt_active(list: &[(&str, &[i32])]) -> TasksTuple {
    TasksTuple {
        active: tasks(list),
        ..Default::default()
    }
}

pub fn tt(
    active: &[(&str, &[i32])],
    standby: &[(&str, &[i32])],
    warmup: &[(&str, &[i32])],
) -> TasksTuple {
    TasksTuple {
        active: tasks(active),
        standby: tasks(standby),
        warmup: tasks(warmup),
    }
}

pub fn twe(
    active: ActiveTasks,
    standby: &[(&str, &[i32])],
    warmup: &[(&str, &[i32])],
) -> TasksWithEpochs {
    TasksWithEpochs {
        active,
        standby: tasks(standby),
        warmup: tasks(warmup),
    }
}

pub fn twe_active(epoch: i32, list: &[(&str, &[i32])]) -> TasksWithEpochs {
    TasksWithEpochs {
        active: active_epochs(epoch, list),
        ..Default::default()
    }
}

// ---------------------------------------------------------------------------------------------
// Members and records.

/// `streamsGroupMemberBuilderWithDefaults` of GroupMetadataManagerTestContext.
pub fn member(id: &str) -> StreamsGroupMember {
    let mut m = StreamsGroupMember::with_defaults(id);
    m.state = MemberState::Stable;
    m.client_id = CLIENT_ID.to_string();
    m.client_host = CLIENT_HOST.to_string();
    m.rebalance_timeout_ms = 1500;
    m.topology_epoch = 0;
    m.process_id = PROCESS.to_string();
    m
}

pub fn with_epochs(mut m: StreamsGroupMember, epoch: i32, prev: i32) -> StreamsGroupMember {
    m.member_epoch = epoch;
    m.previous_member_epoch = prev;
    m
}

pub fn mkey(g: &str, m: &str) -> StreamsMemberKey {
    StreamsMemberKey {
        group_id: g.to_string(),
        member_id: m.to_string(),
    }
}

pub fn gkey(g: &str) -> StreamsGroupKey {
    StreamsGroupKey {
        group_id: g.to_string(),
    }
}

pub fn rec_member(g: &str, m: &StreamsGroupMember) -> Record {
    Record::StreamsGroupMemberMetadata {
        key: mkey(g, &m.member_id),
        value: Some(m.metadata_value()),
    }
}

pub fn rec_current(g: &str, m: &StreamsGroupMember) -> Record {
    Record::StreamsGroupCurrentMemberAssignment {
        key: mkey(g, &m.member_id),
        value: Some(m.assignment_value()),
    }
}

pub fn rec_target(g: &str, member_id: &str, t: &TasksTuple) -> Record {
    coordinator::streams::target::target_member_record(g, member_id, t)
}

pub fn rec_target_meta(g: &str, epoch: i32, ts: i64) -> Record {
    coordinator::streams::target::target_metadata_record(g, epoch, ts)
}

pub fn default_configs() -> BTreeMap<String, String> {
    [("num.standby.replicas".to_string(), "0".to_string())]
        .into_iter()
        .collect()
}

pub fn rec_group(
    g: &str,
    epoch: i32,
    hash: i64,
    validated: i32,
    configs: &BTreeMap<String, String>,
) -> Record {
    Record::StreamsGroupMetadata {
        key: gkey(g),
        value: Some(StreamsGroupMetadataValue {
            epoch,
            metadata_hash: hash,
            validated_topology_epoch: validated,
            last_assignment_configs: Some(
                configs
                    .iter()
                    .map(|(k, v)| KeyValue {
                        key: k.clone(),
                        value: v.clone(),
                    })
                    .collect(),
            ),
            stored_description_topology_epoch: -1,
            failed_description_topology_epoch: -1,
        }),
    }
}

pub fn rec_topology(g: &str, t: &req::Topology) -> Record {
    Record::StreamsGroupTopology {
        key: gkey(g),
        value: Some(coordinator::streams::topology::record_from_request(t)),
    }
}

pub fn topology_value(t: &req::Topology) -> StreamsGroupTopologyValue {
    coordinator::streams::topology::record_from_request(t)
}

pub fn tombstones(g: &str, m: &str) -> Vec<Record> {
    coordinator::streams::heartbeat::member_tombstones(g, m).into()
}

// ---------------------------------------------------------------------------------------------
// Requests.

pub fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

/// A subtopology reading `sources`.
pub fn sub(id: &str, sources: &[&str]) -> req::Subtopology {
    req::Subtopology::default()
        .with_subtopology_id(s(id))
        .with_source_topics(sources.iter().map(|t| TopicName(s(t))).collect())
}

pub fn topic_info(name: &str, partitions: i32) -> req::TopicInfo {
    req::TopicInfo::default()
        .with_name(TopicName(s(name)))
        .with_partitions(partitions)
}

pub fn topology(subs: Vec<req::Subtopology>) -> req::Topology {
    req::Topology::default().with_subtopologies(subs)
}

pub fn task_ids(list: &[(&str, &[i32])]) -> Vec<req::TaskIds> {
    list.iter()
        .map(|(sub, p)| {
            req::TaskIds::default()
                .with_subtopology_id(s(sub))
                .with_partitions(p.to_vec())
        })
        .collect()
}

/// An epoch-0 join: rebalance timeout 1500, process "process-id", empty task lists.
pub fn join(member_id: &str, t: req::Topology) -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s(GROUP)))
        .with_member_id(s(member_id))
        .with_member_epoch(0)
        .with_rebalance_timeout_ms(1500)
        .with_process_id(Some(s(PROCESS)))
        .with_topology(Some(t))
        .with_active_tasks(Some(Vec::new()))
        .with_standby_tasks(Some(Vec::new()))
        .with_warmup_tasks(Some(Vec::new()))
}

/// A heartbeat with only the epoch.
pub fn hb(member_id: &str, epoch: i32) -> StreamsGroupHeartbeatRequest {
    StreamsGroupHeartbeatRequest::default()
        .with_group_id(GroupId(s(GROUP)))
        .with_member_id(s(member_id))
        .with_member_epoch(epoch)
}

/// A heartbeat reporting owned tasks.
pub fn hb_owned(
    member_id: &str,
    epoch: i32,
    active: &[(&str, &[i32])],
    standby: &[(&str, &[i32])],
) -> StreamsGroupHeartbeatRequest {
    hb(member_id, epoch)
        .with_active_tasks(Some(task_ids(active)))
        .with_standby_tasks(Some(task_ids(standby)))
        .with_warmup_tasks(Some(Vec::new()))
}

// ---------------------------------------------------------------------------------------------
// Responses.

pub fn resp_tasks(list: &[(&str, &[i32])]) -> Vec<resp::TaskIds> {
    list.iter()
        .map(|(sub, p)| {
            resp::TaskIds::default()
                .with_subtopology_id(s(sub))
                .with_partitions(p.to_vec())
        })
        .collect()
}

pub fn status_list(list: &[(i8, &str)]) -> Vec<resp::Status> {
    list.iter()
        .map(|(c, d)| {
            resp::Status::default()
                .with_status_code(*c)
                .with_status_detail(s(d))
        })
        .collect()
}

/// The successful response Kafka's tests expect (interval 5000, task offset interval 60000, lag 10000).
pub fn ok_response(member_id: &str, epoch: i32) -> StreamsGroupHeartbeatResponse {
    StreamsGroupHeartbeatResponse::default()
        .with_member_id(s(member_id))
        .with_member_epoch(epoch)
        .with_heartbeat_interval_ms(5000)
        .with_task_offset_interval_ms(60_000)
        .with_acceptable_recovery_lag(10_000)
        .with_status(Some(Vec::new()))
}

pub fn with_tasks(
    r: StreamsGroupHeartbeatResponse,
    active: &[(&str, &[i32])],
    standby: &[(&str, &[i32])],
) -> StreamsGroupHeartbeatResponse {
    r.with_active_tasks(Some(resp_tasks(active)))
        .with_standby_tasks(Some(resp_tasks(standby)))
        .with_warmup_tasks(Some(Vec::new()))
}

/// Error code and message of a response.
pub fn err(r: &StreamsGroupHeartbeatResponse) -> (ErrorCode, Option<String>) {
    (
        ErrorCode::from_code(r.error_code).unwrap_or(ErrorCode::UnknownServerError),
        r.error_message.as_ref().map(|m| m.to_string()),
    )
}

// ---------------------------------------------------------------------------------------------
// The harness.

pub struct H {
    pub shard: Shard,
    /// Every record appended so far (setup records included), in order.
    pub log: Vec<Record>,
    pub now: i64,
    pub assignor: Arc<MockAssignor>,
    pub version: i16,
    pub client_id: String,
    pub client_host: String,
    next_token: u64,
    checked: bool,
}

impl H {
    /// A shard with the mock assignor registered as "sticky" and the initial rebalance delay 0.
    pub fn new() -> Self {
        Self::with_configs(&[("group.streams.initial.rebalance.delay.ms", "0")])
    }

    /// A shard with the given broker configs and the mock assignor.
    pub fn with_configs(configs: &[(&str, &str)]) -> Self {
        let mut shard = Shard::default();
        for (k, v) in configs {
            shard.config.set(k, v).expect("config");
        }
        let assignor = Arc::new(MockAssignor {
            name: "sticky".to_string(),
            ..Default::default()
        });
        shard.streams.set_assignors(vec![assignor.clone()]);
        Self {
            shard,
            log: Vec::new(),
            now: 0,
            assignor,
            version: 1,
            client_id: CLIENT_ID.to_string(),
            client_host: CLIENT_HOST.to_string(),
            next_token: 0,
            checked: false,
        }
    }

    /// A shard using the real sticky assignor.
    pub fn with_sticky(configs: &[(&str, &str)]) -> Self {
        let mut h = Self::with_configs(configs);
        h.shard.streams.set_assignors(vec![Arc::new(
            coordinator::streams::assignor::StickyTaskAssignor,
        )]);
        h
    }

    pub fn topics(&mut self, topics: &[(&str, i32)]) {
        self.shard.set_topics(TopicsImage::from_topics(
            topics.iter().map(|(n, p)| TopicMetadata::new(*n, *p)),
        ));
    }

    pub fn group_config(&mut self, key: &str, value: &str) {
        self.shard.config.set_group_config(GROUP, key, value);
    }

    /// Prepares the mock assignor's next answer.
    pub fn prepare(&self, targets: &[(&str, TasksTuple)]) {
        let members = targets
            .iter()
            .map(|(m, t)| {
                (
                    m.to_string(),
                    MemberAssignment {
                        active_tasks: t.active.clone(),
                        standby_tasks: t.standby.clone(),
                    },
                )
            })
            .collect();
        *self.assignor.prepared.lock().unwrap() = GroupAssignment { members };
    }

    /// Replays setup records (a group built the way Kafka's `StreamsGroupBuilder` builds it).
    pub fn setup(&mut self, records: Vec<Record>) {
        self.shard.replay_all(records.iter());
        self.log.extend(records);
    }

    fn ctx(&self) -> RequestContext {
        RequestContext::new(
            self.client_id.clone(),
            self.client_host.clone(),
            self.version,
        )
    }

    /// Runs a request at the current time; returns the response and the records.
    pub fn request(&mut self, request: Request) -> (Response, Vec<Record>) {
        self.next_token += 1;
        let ctx = self.ctx();
        let outcome = self
            .shard
            .handle(RequestToken(self.next_token), &ctx, &request, self.now)
            .expect("streams api");
        self.log.extend(outcome.records.iter().cloned());
        let response = outcome.replies.into_iter().next().expect("reply").response;
        (response, outcome.records)
    }

    /// A StreamsGroupHeartbeat: the response and the records.
    pub fn hb(
        &mut self,
        r: StreamsGroupHeartbeatRequest,
    ) -> (StreamsGroupHeartbeatResponse, Vec<Record>) {
        match self.request(Request::StreamsGroupHeartbeat(r)) {
            (Response::StreamsGroupHeartbeat(r), records) => (r, records),
            other => panic!("unexpected response {other:?}"),
        }
    }

    /// The handler's error with Kafka's exception message (before the wire mapping drops it).
    pub fn hb_error(&mut self, r: StreamsGroupHeartbeatRequest) -> coordinator::ApiError {
        let ctx = self.ctx();
        let mut env = coordinator::streams::StreamsEnv {
            config: &self.shard.config,
            topics: &self.shard.topics,
            classic: &self.shard.classic,
            timers: &mut self.shard.timers,
        };
        match self
            .shard
            .streams
            .heartbeat_result(&mut env, &ctx, &r, self.now)
        {
            Ok(_) => panic!("expected an error"),
            Err(e) => e,
        }
    }

    pub fn describe(
        &mut self,
        groups: &[&str],
        include_description: bool,
    ) -> StreamsGroupDescribeResponse {
        let r = StreamsGroupDescribeRequest::default()
            .with_group_ids(groups.iter().map(|g| GroupId(s(g))).collect())
            .with_include_topology_description(include_description);
        match self.request(Request::StreamsGroupDescribe(r)) {
            (Response::StreamsGroupDescribe(r), _) => r,
            other => panic!("unexpected response {other:?}"),
        }
    }

    /// Advances time by `ms`, firing due timers; returns what fired.
    pub fn sleep(&mut self, ms: i64) -> Vec<Fired> {
        self.now += ms;
        let fired = self.shard.expire(self.now);
        for f in &fired {
            self.log.extend(f.outcome.records.iter().cloned());
        }
        fired
    }

    pub fn timer_deadline(&self, key: &str) -> Option<i64> {
        self.shard.timers.deadline(key)
    }

    pub fn timer_task(&self, key: &str) -> Option<StreamsTimer> {
        self.shard
            .timers
            .iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, _, t)| match t {
                coordinator::shard::TimerTask::Streams(t) => t.clone(),
                #[allow(unreachable_patterns)]
                _ => panic!("not a streams timer"),
            })
    }

    pub fn member(&self, id: &str) -> StreamsGroupMember {
        self.shard
            .streams
            .group(GROUP)
            .and_then(|g| g.member(id))
            .cloned()
            .unwrap_or_else(|| panic!("member {id}"))
    }

    pub fn state(&self) -> coordinator::streams::group::StreamsGroupState {
        self.shard.streams.group(GROUP).expect("group").state()
    }

    /// The replay-equivalence check: a fresh shard replaying every record gives the same persistent
    /// streams state.
    pub fn check_replay(&mut self) {
        self.checked = true;
        let mut fresh = Shard::default();
        fresh.replay_all(self.log.iter());
        assert_eq!(
            fresh.streams.persistent_state(),
            self.shard.streams.persistent_state(),
            "replaying the scenario's records must rebuild the same persistent state"
        );
    }
}

impl Default for H {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for H {
    fn drop(&mut self) {
        if !self.checked && !std::thread::panicking() {
            self.check_replay();
        }
    }
}

/// The metadata hash Kafka computes for these topics of the image.
pub fn hash_of(h: &H, topics: &[&str]) -> i64 {
    let names: Vec<String> = topics.iter().map(|t| t.to_string()).collect();
    coordinator::streams::hash::group_hash(names.iter(), &h.shard.topics)
}

/// A member's metadata record with an endpoint.
pub fn endpoint(host: &str, port: u16) -> Endpoint {
    Endpoint {
        host: host.to_string(),
        port,
    }
}

/// Builds the records of a group the way Kafka's `StreamsGroupBuilder` does.
pub struct GroupBuilder {
    pub group_id: String,
    pub epoch: i32,
    pub members: Vec<StreamsGroupMember>,
    pub targets: Vec<(String, TasksTuple)>,
    pub topology: Option<req::Topology>,
    pub hash: i64,
    pub validated: i32,
    pub configs: BTreeMap<String, String>,
    pub target_epoch: i32,
    pub target_ts: i64,
}

impl GroupBuilder {
    pub fn new(epoch: i32) -> Self {
        Self {
            group_id: GROUP.to_string(),
            epoch,
            members: Vec::new(),
            targets: Vec::new(),
            topology: None,
            hash: 0,
            validated: -1,
            configs: BTreeMap::new(),
            target_epoch: 1,
            target_ts: 0,
        }
    }
    pub fn member(mut self, m: StreamsGroupMember) -> Self {
        self.members.push(m);
        self
    }
    pub fn target(mut self, member_id: &str, t: TasksTuple) -> Self {
        self.targets.push((member_id.to_string(), t));
        self
    }
    pub fn topology(mut self, t: req::Topology) -> Self {
        self.topology = Some(t);
        self
    }
    pub fn hash(mut self, h: i64) -> Self {
        self.hash = h;
        self
    }
    pub fn validated(mut self, v: i32) -> Self {
        self.validated = v;
        self
    }
    pub fn configs(mut self, c: BTreeMap<String, String>) -> Self {
        self.configs = c;
        self
    }
    pub fn target_epoch(mut self, e: i32) -> Self {
        self.target_epoch = e;
        self
    }
    pub fn target_ts(mut self, ts: i64) -> Self {
        self.target_ts = ts;
        self
    }
    pub fn build(&self) -> Vec<Record> {
        let g = &self.group_id;
        let mut out: Vec<Record> = self.members.iter().map(|m| rec_member(g, m)).collect();
        out.push(rec_group(
            g,
            self.epoch,
            self.hash,
            self.validated,
            &self.configs,
        ));
        for (m, t) in &self.targets {
            out.push(rec_target(g, m, t));
        }
        if let Some(t) = &self.topology {
            out.push(rec_topology(g, t));
        }
        out.push(rec_target_meta(g, self.target_epoch, self.target_ts));
        for m in &self.members {
            out.push(rec_current(g, m));
        }
        out
    }
}

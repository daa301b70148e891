//! Random classic-group conversations (KIP-345 static membership included): simulated consumers that
//! join (dynamic members through MEMBER_ID_REQUIRED, static members with an instance id), wait for the
//! join phase, sync (the leader with an assignment for everybody), heartbeat, commit and fetch offsets
//! (also transactionally), leave, get removed by an admin by instance id, get replaced by a restarted
//! static instance, go silent until their session or rebalance timeout, across every version of the
//! classic apis; with a controlled dose of faults and invalid requests.
//!
//! Member ids come from the coordinator, so a member refers to its id by the name the oracle's
//! normalisation rule gives it (`$gen:L`, see [`super::ids`]): the id the driver answered with.

use std::collections::BTreeMap;

use base64::Engine;
use protocol::ErrorCode;
use serde_json::{Value, json};

use super::dice::Dice;
use super::driver::Driver;
use super::session::{Session, Step, error_code};

/// The group every classic script drives.
pub const GROUP: &str = "cg";

fn code(e: ErrorCode) -> i64 {
    i64::from(e.code())
}

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn put_string(out: &mut Vec<u8>, s: &str) {
    out.extend_from_slice(&(s.len() as i16).to_be_bytes());
    out.extend_from_slice(s.as_bytes());
}

/// A ConsumerProtocolSubscription v0 for `topics` (what a Java consumer puts in its protocol metadata).
fn subscription(topics: &[String]) -> String {
    let mut out = Vec::new();
    out.extend_from_slice(&0i16.to_be_bytes());
    out.extend_from_slice(&(topics.len() as i32).to_be_bytes());
    for t in topics {
        put_string(&mut out, t);
    }
    out.extend_from_slice(&(-1i32).to_be_bytes());
    b64(&out)
}

/// A ConsumerProtocolAssignment v0.
fn assignment(partitions: &BTreeMap<String, Vec<i32>>) -> String {
    let mut out = Vec::new();
    out.extend_from_slice(&0i16.to_be_bytes());
    out.extend_from_slice(&(partitions.len() as i32).to_be_bytes());
    for (t, ps) in partitions {
        put_string(&mut out, t);
        out.extend_from_slice(&(ps.len() as i32).to_be_bytes());
        for p in ps {
            out.extend_from_slice(&p.to_be_bytes());
        }
    }
    out.extend_from_slice(&(-1i32).to_be_bytes());
    b64(&out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Not in the group (or does not know it is).
    Idle,
    /// A JoinGroup is waiting for its response.
    Joining,
    /// Joined; must send SyncGroup.
    MustSync,
    /// A SyncGroup is waiting for its response.
    Syncing,
    Stable,
    /// This incarnation was fenced; the instance restarts as a new incarnation.
    Fenced,
}

#[derive(Debug, Clone)]
struct Consumer {
    slot: usize,
    client_id: String,
    instance: Option<String>,
    join_version: i16,
    member_id: String,
    generation: i64,
    state: State,
    leader: bool,
    /// The member list a leader got in its JoinGroup response.
    group_members: Vec<String>,
    protocol: Option<String>,
    protocols: Vec<String>,
    topics: Vec<String>,
    session_timeout: i64,
    rebalance_timeout: i64,
    /// Stopped sending anything (crash or long pause).
    silent: bool,
}

impl Consumer {
    fn is_static(&self) -> bool {
        self.instance.is_some()
    }
}

/// The classic consumers of a conversation, between its steps: their own dice, their state, and the
/// requests they are waiting on.
pub struct Clients {
    dice: Dice,
    members: Vec<Consumer>,
    /// Parked requests: line → (member index, api).
    parked: BTreeMap<usize, (usize, &'static str)>,
    /// How many of the session's output lines have been read for completions of `parked`.
    seen: usize,
    /// A migration conversation's client ([`Clients::for_migration`]); before a JoinGroup it steers
    /// clear of what Kafka leaves to chance (see [`Gen::join`]).
    migration: bool,
    /// The member id the client last had that may still be in the group (a migration conversation's
    /// dynamic client leaves with it before joining under a new one).
    held_id: Option<String>,
    /// The topics every client subscribes to (None: the first two of the conversation's).
    subscription: Option<Vec<String>>,
}

impl Clients {
    fn new(dice: Dice) -> Self {
        Self {
            dice,
            members: Vec::new(),
            parked: BTreeMap::new(),
            seen: 0,
            migration: false,
            held_id: None,
            subscription: None,
        }
    }

    /// The classic consumer (protocol type `consumer`) taking part in a consumer-group conversation
    /// of `seed`, subscribed to `topic`: Kafka's online migration (a classic group upgraded by a
    /// consumer-protocol join, a classic member served by a consumer group, the downgrade when the
    /// last consumer-protocol member goes).
    ///
    /// One client, on a topic of its own: Kafka names a classic member `clientId-<random UUID>` and
    /// its server-side assignors visit members in `HashMap` order, so which member takes a contested
    /// partition is random in Kafka whenever a classic member contests it (docs/oracle.md).
    pub fn for_migration(seed: u64, topic: &str) -> Self {
        let mut clients = Self::new(Dice::new(seed, 5));
        clients.migration = true;
        clients.subscription = Some(vec![topic.to_string()]);
        clients
    }

    /// The clients' own dice (their draws never move the host generator's).
    pub fn dice(&mut self) -> &mut Dice {
        &mut self.dice
    }

    /// One move of the classic client in `s`, over the conversation's `topics`: it starts, takes its
    /// next step, goes silent or comes back.
    pub fn step(
        &mut self,
        s: &mut Session<'_>,
        topics: &BTreeMap<String, i32>,
    ) -> Result<(), String> {
        let mut g = Gen {
            s,
            c: self,
            topics: topics.clone(),
            protocol_type: "consumer",
        };
        g.absorb_outputs();
        g.migration_step()
    }
}

struct Gen<'s, 'd> {
    s: &'s mut Session<'d>,
    c: &'s mut Clients,
    topics: BTreeMap<String, i32>,
    protocol_type: &'static str,
}

impl<'s, 'd> Gen<'s, 'd> {
    fn new_consumer(&mut self, slot: usize) -> Consumer {
        let static_member = self.c.dice.chance(0.4);
        let join_version = if static_member {
            *self.c.dice.pick(&[5i16, 6, 7, 8, 9, 9])
        } else {
            *self.c.dice.pick(&[0i16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9])
        };
        let mut protocols = vec!["range".to_string()];
        if self.c.dice.chance(0.5) {
            protocols.insert(0, "roundrobin".to_string());
        }
        if self.c.dice.chance(0.1) {
            protocols = vec!["sticky".to_string()];
        }
        let topics: Vec<String> = self.topics.keys().take(2).cloned().collect();
        Consumer {
            slot,
            client_id: format!("consumer-{slot}"),
            instance: static_member.then(|| format!("ci{slot}")),
            join_version,
            member_id: String::new(),
            generation: -1,
            state: State::Idle,
            leader: false,
            group_members: Vec::new(),
            protocol: None,
            protocols,
            topics,
            session_timeout: *self.c.dice.pick(&[6000, 10000, 10000, 30000, 45000]),
            rebalance_timeout: *self.c.dice.pick(&[3000, 10000, 30000, 60000]),
            silent: false,
        }
    }

    /// Applies the completions of parked requests among the session's outputs since the last look
    /// (the host generator's lines complete them too).
    fn absorb_outputs(&mut self) {
        let done: Vec<(usize, Value)> = self.s.outputs[self.c.seen..]
            .iter()
            .filter(|v| v.get("records").is_none())
            .filter_map(|v| {
                let line = v.get("line")?.as_u64()? as usize;
                Some((line, v.get("response")?.clone()))
            })
            .collect();
        self.c.seen = self.s.outputs.len();
        for (line, resp) in done {
            if let Some((i, api)) = self.c.parked.remove(&line) {
                match api {
                    "JoinGroup" => self.on_join(i, &resp),
                    _ => self.on_sync(i, &resp),
                }
            }
        }
    }

    /// One move of a migration conversation's classic clients ([`Clients::step`]).
    fn migration_step(&mut self) -> Result<(), String> {
        let active: Vec<usize> = (0..self.c.members.len())
            .filter(|i| !self.c.members[*i].silent)
            .collect();
        let silent: Vec<usize> = (0..self.c.members.len())
            .filter(|i| self.c.members[*i].silent)
            .collect();
        let weights = [
            if self.c.members.is_empty() { 12 } else { 0 }, // the client starts
            if active.is_empty() { 0 } else { 80 },         // a client acts
            if active.is_empty() { 0 } else { 3 },          // a client goes silent
            if silent.is_empty() { 0 } else { 3 },          // a silent client comes back
        ];
        match self.c.dice.weighted(&weights) {
            0 => {
                let slot = self.c.members.len() + 1;
                let mut c = self.new_consumer(slot);
                if let Some(topics) = &self.c.subscription {
                    c.topics = topics.clone();
                }
                self.c.members.push(c);
                self.act(slot - 1)
            }
            1 => {
                let i = *self.c.dice.pick(&active);
                self.act(i)
            }
            2 => {
                let i = *self.c.dice.pick(&active);
                self.c.members[i].silent = true;
                Ok(())
            }
            _ => {
                let i = *self.c.dice.pick(&silent);
                self.c.members[i].silent = false;
                self.act(i)
            }
        }
    }

    /// Applies the responses completed in `step` (parked joins and syncs) to their members.
    fn absorb(&mut self, step: &Step) {
        let done: Vec<(usize, Value)> = step.completions().map(|(l, r)| (l, r.clone())).collect();
        for (line, resp) in done {
            if let Some((i, api)) = self.c.parked.remove(&line) {
                match api {
                    "JoinGroup" => self.on_join(i, &resp),
                    _ => self.on_sync(i, &resp),
                }
            }
        }
    }

    fn send(
        &mut self,
        i: usize,
        api: &'static str,
        version: i16,
        body: Value,
    ) -> Result<Option<Value>, String> {
        let client = self.c.members[i].client_id.clone();
        let step = self.s.request(api, version, body, &client)?;
        let own = step.response().cloned();
        if own.is_none() && (api == "JoinGroup" || api == "SyncGroup") {
            self.c.parked.insert(step.line, (i, api));
        }
        self.absorb(&step);
        Ok(own)
    }

    fn join_body(&mut self, i: usize) -> (i16, Value) {
        let m = &self.c.members[i];
        let metadata = subscription(&m.topics);
        let protocols: Vec<Value> = m
            .protocols
            .iter()
            .map(|p| json!({"name": p, "metadata": metadata}))
            .collect();
        let v = m.join_version;
        let mut body = json!({
            "groupId": GROUP,
            "sessionTimeoutMs": m.session_timeout,
            "memberId": m.member_id,
            "protocolType": self.protocol_type,
            "protocols": protocols,
        });
        if v >= 1 {
            body["rebalanceTimeoutMs"] = json!(m.rebalance_timeout);
        }
        if let Some(inst) = &m.instance {
            body["groupInstanceId"] = json!(inst);
        }
        if v >= 8 && self.c.dice.chance(0.2) {
            body["reason"] = json!("rejoin");
        }
        (v, body)
    }

    fn join(&mut self, i: usize) -> Result<(), String> {
        if self.c.migration {
            self.before_migration_join(i)?;
        }
        let (v, body) = self.join_body(i);
        self.c.members[i].state = State::Joining;
        self.c.members[i].silent = false;
        if let Some(resp) = self.send(i, "JoinGroup", v, body)? {
            self.on_join(i, &resp);
        }
        Ok(())
    }

    /// What a migration conversation's client does before a JoinGroup, so that the conversation
    /// stays where Kafka's answers are determined.
    fn before_migration_join(&mut self, i: usize) -> Result<(), String> {
        if !self.c.members[i].member_id.is_empty() && self.empty_consumer_group()? {
            // Kafka removes an empty consumer group from memory when a classic JoinGroup meets it,
            // and a join with a member id no group knows then fails and drops the removal's
            // tombstones: the group is gone for writes but not for reads (docs/divergences.md).
            // regroup does not reproduce that half-removed state, so the conversation does not
            // go there: the client joins as a restarted one, without a member id.
            let m = &mut self.c.members[i];
            m.member_id = String::new();
            m.generation = -1;
            self.c.held_id = None;
        }
        let m = &self.c.members[i];
        if m.member_id.is_empty()
            && m.instance.is_none()
            && let Some(old) = self.c.held_id.take()
        {
            // A dynamic client that lost its member id (ILLEGAL_GENERATION, a reset) would join
            // under a new one while its old member stays until its session ends. Two classic
            // members then contest the client's partitions, and Kafka's assignors pick between
            // `clientId-<random UUID>` ids in HashMap order: a coin toss. The client leaves first.
            let body = json!({"groupId": GROUP, "members": [{"memberId": old}]});
            self.send(i, "LeaveGroup", 3, body)?;
        }
        Ok(())
    }

    /// Whether the group is an empty consumer group now (ListGroups, which reads what is committed).
    fn empty_consumer_group(&mut self) -> Result<bool, String> {
        let body = json!({"statesFilter": ["Empty"], "typesFilter": ["consumer"]});
        let step = self.s.request("ListGroups", 5, body, "admin")?;
        self.absorb(&step);
        Ok(step
            .response()
            .and_then(|r| r.get("groups"))
            .and_then(Value::as_array)
            .is_some_and(|groups| {
                groups
                    .iter()
                    .any(|g| g.get("groupId").and_then(Value::as_str) == Some(GROUP))
            }))
    }

    fn on_join(&mut self, i: usize, resp: &Value) {
        let c = error_code(resp);
        let member_id = resp.get("memberId").and_then(Value::as_str).unwrap_or("");
        if c == 0 || c == code(ErrorCode::MemberIdRequired) {
            self.c.held_id = Some(member_id.to_string()).filter(|id| !id.is_empty());
        }
        let m = &mut self.c.members[i];
        if c == 0 {
            m.member_id = member_id.to_string();
            m.generation = resp
                .get("generationId")
                .and_then(Value::as_i64)
                .unwrap_or(-1);
            m.protocol = resp
                .get("protocolName")
                .and_then(Value::as_str)
                .map(str::to_string);
            m.leader = resp.get("leader").and_then(Value::as_str) == Some(member_id);
            m.group_members = resp
                .get("members")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|x| {
                    x.get("memberId")
                        .and_then(Value::as_str)
                        .map(str::to_string)
                })
                .collect();
            m.state = State::MustSync;
        } else if c == code(ErrorCode::MemberIdRequired) {
            m.member_id = member_id.to_string();
            m.state = State::Idle;
        } else if c == code(ErrorCode::FencedInstanceId) {
            m.state = State::Fenced;
        } else if c == code(ErrorCode::UnknownMemberId) || c == code(ErrorCode::IllegalGeneration) {
            m.member_id = String::new();
            m.state = State::Idle;
        } else if c == code(ErrorCode::InconsistentGroupProtocol) {
            // The operator fixes the client's configuration: the group's usual assignor.
            m.protocols = vec!["range".to_string()];
            m.state = State::Idle;
        } else if c == code(ErrorCode::GroupMaxSizeReached) {
            // The client gives up for a while.
            m.state = State::Idle;
            m.silent = true;
        } else {
            m.state = State::Idle;
        }
    }

    fn sync_version(&self, i: usize) -> i16 {
        let m = &self.c.members[i];
        // SyncGroup v3+ carries the instance id; keep the versions of one client consistent.
        match m.join_version {
            0 => 0,
            1..=2 => 1,
            3..=4 => 2,
            5..=6 => 3,
            7..=8 => 4,
            _ => 5,
        }
    }

    fn sync(&mut self, i: usize) -> Result<(), String> {
        let v = self.sync_version(i);
        let m = self.c.members[i].clone();
        let mut assignments = Vec::new();
        if m.leader {
            // Round-robin the partitions of the subscribed topics over the members.
            let mut per_member: BTreeMap<usize, BTreeMap<String, Vec<i32>>> = BTreeMap::new();
            let mut k = 0usize;
            for t in &m.topics {
                for p in 0..self.topics.get(t).copied().unwrap_or(0) {
                    if !m.group_members.is_empty() {
                        per_member
                            .entry(k % m.group_members.len())
                            .or_default()
                            .entry(t.clone())
                            .or_default()
                            .push(p);
                    }
                    k += 1;
                }
            }
            for (j, id) in m.group_members.iter().enumerate() {
                let a = per_member.remove(&j).unwrap_or_default();
                assignments.push(json!({"memberId": id, "assignment": assignment(&a)}));
            }
            if self.c.dice.chance(0.05) && !assignments.is_empty() {
                // A leader that forgets a member.
                assignments.pop();
            }
        }
        let mut body = json!({
            "groupId": GROUP,
            "generationId": m.generation,
            "memberId": m.member_id,
            "assignments": assignments,
        });
        if v >= 3
            && let Some(inst) = &m.instance
        {
            body["groupInstanceId"] = json!(inst);
        }
        if v >= 5 && !self.c.dice.chance(0.03) {
            body["protocolType"] = json!(self.protocol_type);
            body["protocolName"] = json!(m.protocol.clone().unwrap_or_default());
        }
        if self.c.dice.chance(0.03) {
            body["generationId"] = json!(m.generation - 1);
        }
        self.c.members[i].state = State::Syncing;
        if let Some(resp) = self.send(i, "SyncGroup", v, body)? {
            self.on_sync(i, &resp);
        }
        Ok(())
    }

    fn on_sync(&mut self, i: usize, resp: &Value) {
        let c = error_code(resp);
        let m = &mut self.c.members[i];
        if c == 0 {
            m.state = State::Stable;
        } else if c == code(ErrorCode::RebalanceInProgress) {
            m.state = State::Idle;
        } else if c == code(ErrorCode::FencedInstanceId) {
            m.state = State::Fenced;
        } else if c == code(ErrorCode::UnknownMemberId) || c == code(ErrorCode::IllegalGeneration) {
            if !m.is_static() || c == code(ErrorCode::UnknownMemberId) {
                m.member_id = String::new();
            }
            m.state = State::Idle;
        } else {
            m.state = State::Idle;
        }
    }

    fn heartbeat(&mut self, i: usize) -> Result<(), String> {
        let m = self.c.members[i].clone();
        let v = match m.join_version {
            0..=2 => *self.c.dice.pick(&[0i16, 1]),
            3..=4 => 2,
            5..=6 => 3,
            _ => 4,
        };
        let generation = if self.c.dice.chance(0.03) {
            m.generation + 1
        } else {
            m.generation
        };
        let mut body =
            json!({"groupId": GROUP, "generationId": generation, "memberId": m.member_id});
        if v >= 3
            && let Some(inst) = &m.instance
        {
            body["groupInstanceId"] = json!(inst);
        }
        if let Some(resp) = self.send(i, "Heartbeat", v, body)? {
            let c = error_code(&resp);
            let m = &mut self.c.members[i];
            if c == code(ErrorCode::RebalanceInProgress) {
                m.state = State::Idle;
            } else if c == code(ErrorCode::FencedInstanceId) {
                m.state = State::Fenced;
            } else if c == code(ErrorCode::UnknownMemberId) {
                m.member_id = String::new();
                m.state = State::Idle;
            } else if c == code(ErrorCode::IllegalGeneration) {
                m.state = State::Idle;
            }
        }
        Ok(())
    }

    fn leave(&mut self, i: usize) -> Result<(), String> {
        let m = self.c.members[i].clone();
        let v = if m.join_version >= 5 {
            *self.c.dice.pick(&[3i16, 4, 5])
        } else {
            *self.c.dice.pick(&[0i16, 1, 2, 3])
        };
        let body = if v >= 3 {
            let mut member = json!({"memberId": m.member_id});
            if let Some(inst) = &m.instance {
                member["groupInstanceId"] = json!(inst);
            }
            if v >= 5 && self.c.dice.chance(0.3) {
                member["reason"] = json!("closing");
            }
            json!({"groupId": GROUP, "members": [member]})
        } else {
            json!({"groupId": GROUP, "memberId": m.member_id})
        };
        self.send(i, "LeaveGroup", v, body)?;
        self.c.held_id = None;
        let m = &mut self.c.members[i];
        m.state = State::Idle;
        m.member_id = String::new();
        m.generation = -1;
        Ok(())
    }

    /// An admin removes static members by instance id (LeaveGroup v3+ with empty member ids).
    fn admin_remove(&mut self) -> Result<(), String> {
        let statics: Vec<String> = self
            .c
            .members
            .iter()
            .filter_map(|m| m.instance.clone())
            .collect();
        let mut targets: Vec<Value> = statics
            .iter()
            .filter(|_| self.c.dice.chance(0.5))
            .map(|inst| json!({"memberId": "", "groupInstanceId": inst}))
            .collect();
        if targets.is_empty() || self.c.dice.chance(0.2) {
            targets.push(json!({"memberId": "", "groupInstanceId": "unknown-instance"}));
        }
        let v = *self.c.dice.pick(&[3i16, 4, 5]);
        let step = self.s.request(
            "LeaveGroup",
            v,
            json!({"groupId": GROUP, "members": targets}),
            "admin",
        )?;
        self.absorb(&step);
        Ok(())
    }

    fn commit(&mut self, i: usize) -> Result<(), String> {
        let m = self.c.members[i].clone();
        let v = *self.c.dice.pick(&[2i16, 3, 5, 6, 7, 8, 9, 10]);
        let topics: Vec<Value> = m
            .topics
            .iter()
            .filter(|_| self.c.dice.chance(0.8))
            .map(|t| {
                let parts: Vec<Value> = (0..2)
                    .map(|p| json!({"partitionIndex": p, "committedOffset": self.s.now / 10 + p, "committedMetadata": "m"}))
                    .collect();
                if v >= 10 {
                    json!({"topicId": super::streams_gen::topic_id(t), "partitions": parts})
                } else {
                    json!({"name": t, "partitions": parts})
                }
            })
            .collect();
        let (generation, member_id) = if self.c.dice.chance(0.1) {
            (-1, String::new())
        } else if self.c.dice.chance(0.05) {
            (m.generation - 1, m.member_id.clone())
        } else {
            (m.generation, m.member_id.clone())
        };
        let mut body = json!({
            "groupId": GROUP,
            "generationIdOrMemberEpoch": generation,
            "memberId": member_id,
            "topics": topics,
        });
        if (2..=4).contains(&v) && self.c.dice.chance(0.3) {
            body["retentionTimeMs"] = json!(86_400_000);
        }
        if v >= 7
            && let Some(inst) = &m.instance
        {
            body["groupInstanceId"] = json!(inst);
        }
        let client = m.client_id.clone();
        let step = self.s.request("OffsetCommit", v, body, &client)?;
        self.absorb(&step);
        Ok(())
    }

    fn txn_commit(&mut self, i: usize) -> Result<(), String> {
        let m = self.c.members[i].clone();
        let v = *self.c.dice.pick(&[0i16, 2, 3, 4, 5]);
        let topics: Vec<Value> = m
            .topics
            .iter()
            .map(|t| json!({"name": t, "partitions": [{"partitionIndex": 0, "committedOffset": self.s.now / 10, "committedLeaderEpoch": -1, "committedMetadata": ""}]}))
            .collect();
        let mut body = json!({
            "transactionalId": format!("tx-{}", m.slot),
            "groupId": GROUP,
            "producerId": 1000 + m.slot as i64,
            "producerEpoch": 0,
            "topics": topics,
        });
        if v >= 3 {
            body["generationIdOrMemberEpoch"] = json!(m.generation);
            body["memberId"] = json!(m.member_id);
            if let Some(inst) = &m.instance {
                body["groupInstanceId"] = json!(inst);
            }
        }
        let client = m.client_id.clone();
        let step = self.s.request("TxnOffsetCommit", v, body, &client)?;
        self.absorb(&step);
        Ok(())
    }

    fn fetch(&mut self) -> Result<(), String> {
        let v = *self.c.dice.pick(&[1i16, 2, 3, 5, 6, 7, 8, 9, 10]);
        let names: Vec<String> = self.topics.keys().take(2).cloned().collect();
        let topics = if v >= 2 && self.c.dice.chance(0.4) {
            Value::Null
        } else {
            Value::Array(
                names
                    .iter()
                    .map(|t| {
                        if v >= 10 {
                            json!({"topicId": super::streams_gen::topic_id(t), "partitionIndexes": [0, 1]})
                        } else {
                            json!({"name": t, "partitionIndexes": [0, 1]})
                        }
                    })
                    .collect(),
            )
        };
        let body = if v >= 8 {
            json!({"groups": [{"groupId": GROUP, "topics": topics}], "requireStable": self.c.dice.chance(0.3)})
        } else if v >= 7 {
            json!({"groupId": GROUP, "topics": topics, "requireStable": self.c.dice.chance(0.3)})
        } else {
            json!({"groupId": GROUP, "topics": topics})
        };
        let step = self.s.request("OffsetFetch", v, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn describe(&mut self) -> Result<(), String> {
        let v = *self.c.dice.pick(&[0i16, 1, 2, 3, 4, 5, 6]);
        let mut body = json!({"groups": [GROUP]});
        if v >= 3 {
            body["includeAuthorizedOperations"] = json!(self.c.dice.chance(0.5));
        }
        let step = self.s.request("DescribeGroups", v, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn list(&mut self) -> Result<(), String> {
        let v = *self.c.dice.pick(&[0i16, 3, 4, 5]);
        let mut body = json!({});
        if v >= 4 && self.c.dice.chance(0.5) {
            body["statesFilter"] = json!(["Stable", "Empty"]);
        }
        if v >= 5 && self.c.dice.chance(0.3) {
            body["typesFilter"] = json!(["classic"]);
        }
        let step = self.s.request("ListGroups", v, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn delete(&mut self) -> Result<(), String> {
        let v = *self.c.dice.pick(&[0i16, 1, 2, 3]);
        let step = self
            .s
            .request("DeleteGroups", v, json!({"groupsNames": [GROUP]}), "admin")?;
        self.absorb(&step);
        Ok(())
    }

    /// An admin deletes some of the group's offsets (or of a group that does not exist).
    fn offset_delete(&mut self) -> Result<(), String> {
        let group = if self.c.dice.chance(0.1) {
            "other"
        } else {
            GROUP
        };
        let body = super::offset_delete::body(&mut self.c.dice, group, &self.topics);
        let step = self.s.request("OffsetDelete", 0, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn invalid(&mut self) -> Result<(), String> {
        let (api, v, body): (&str, i16, Value) = match self.c.dice.int(0, 8) {
            0 => (
                "JoinGroup",
                5,
                json!({"groupId": "", "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000, "memberId": "", "protocolType": "consumer", "protocols": [{"name": "range", "metadata": ""}]}),
            ),
            1 => (
                "JoinGroup",
                9,
                json!({"groupId": GROUP, "sessionTimeoutMs": 1000, "rebalanceTimeoutMs": 10000, "memberId": "", "protocolType": "consumer", "protocols": [{"name": "range", "metadata": ""}]}),
            ),
            2 => (
                "JoinGroup",
                9,
                json!({"groupId": GROUP, "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000, "memberId": "", "protocolType": "other", "protocols": [{"name": "x", "metadata": ""}]}),
            ),
            3 => (
                "Heartbeat",
                4,
                json!({"groupId": GROUP, "generationId": 1, "memberId": "ghost"}),
            ),
            4 => (
                "SyncGroup",
                5,
                json!({"groupId": GROUP, "generationId": 1, "memberId": "ghost", "assignments": []}),
            ),
            5 => (
                "JoinGroup",
                9,
                json!({"groupId": GROUP, "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000, "memberId": "ghost", "protocolType": "consumer", "protocols": [{"name": "range", "metadata": ""}]}),
            ),
            6 => (
                "LeaveGroup",
                0,
                json!({"groupId": GROUP, "memberId": "ghost"}),
            ),
            7 => (
                "JoinGroup",
                9,
                json!({"groupId": GROUP, "groupInstanceId": "", "sessionTimeoutMs": 10000, "rebalanceTimeoutMs": 10000, "memberId": "", "protocolType": "consumer", "protocols": [{"name": "range", "metadata": ""}]}),
            ),
            _ => (
                "OffsetCommit",
                9,
                json!({"groupId": GROUP, "generationIdOrMemberEpoch": 7, "memberId": "ghost", "topics": [{"name": "t0", "partitions": [{"partitionIndex": 0, "committedOffset": 1}]}]}),
            ),
        };
        let step = self.s.request(api, v, body, "client-bad")?;
        // A parked join of a ghost is remembered nowhere: nobody waits for it.
        self.absorb(&step);
        Ok(())
    }

    /// One step of a member that is not silent: what a consumer does next given where it is.
    fn act(&mut self, i: usize) -> Result<(), String> {
        match self.c.members[i].state {
            State::Idle => self.join(i),
            State::MustSync => self.sync(i),
            State::Stable => match self.c.dice.weighted(&[70, 10, 4, 5, 2]) {
                0 => self.heartbeat(i),
                1 => self.commit(i),
                2 => self.txn_commit(i),
                3 => {
                    // A rejoin (e.g. a subscription change).
                    self.c.members[i].state = State::Idle;
                    self.join(i)
                }
                _ => self.leave(i),
            },
            State::Joining | State::Syncing => {
                // Waiting: the consumer keeps quiet; time passes.
                self.s.advance(self.c.dice.int(100, 2000));
                let step = self.s.tick()?;
                self.absorb(&step);
                Ok(())
            }
            State::Fenced => {
                // The instance restarts: a new member with an empty member id (same instance id).
                let m = &mut self.c.members[i];
                m.member_id = String::new();
                m.generation = -1;
                m.state = State::Idle;
                self.join(i)
            }
        }
    }

    fn run(&mut self, steps: usize) -> Result<(), String> {
        let mut config = serde_json::Map::new();
        // regroup does not expire groups and offsets yet (docs/divergences.md): Kafka's periodic clean-up
        // is moved beyond the end of every script.
        config.insert(
            "offsets.retention.check.interval.ms".into(),
            json!(super::NO_CLEANUP_MS),
        );
        config.insert(
            "group.initial.rebalance.delay.ms".into(),
            json!(*self.c.dice.pick(&[0, 0, 0, 500, 3000])),
        );
        if self.c.dice.chance(0.2) {
            config.insert("group.max.size".into(), json!(self.c.dice.int(2, 4)));
        }
        self.s.config(Value::Object(config))?;
        for i in 0..3 {
            let n = self.c.dice.int(1, 4) as i32;
            self.topics.insert(format!("t{i}"), n);
        }
        let topics = self.topics.clone();
        self.s.metadata(&topics)?;
        if self.c.dice.chance(0.1) {
            self.protocol_type = "connect";
        }
        let n = self.c.dice.int(1, 6) as usize;
        for slot in 1..=n {
            let c = self.new_consumer(slot);
            self.c.members.push(c);
        }
        for _ in 0..steps {
            self.s.advance(self.c.dice.int(0, 1200));
            let active: Vec<usize> = (0..self.c.members.len())
                .filter(|i| !self.c.members[*i].silent)
                .collect();
            let weights = [
                if active.is_empty() { 0 } else { 70 }, // a member acts
                3,                                      // a member goes silent
                2,                                      // a silent member comes back
                3,                                      // fetch
                2,                                      // describe
                1,                                      // list
                1,                                      // delete
                2,                                      // admin removal
                3,                                      // time passes
                3,                                      // invalid request
                1,                                      // topics change
                1,                                      // offset delete
            ];
            match self.c.dice.weighted(&weights) {
                0 => {
                    let i = *self.c.dice.pick(&active);
                    self.act(i)?;
                }
                1 => {
                    if !active.is_empty() {
                        let i = *self.c.dice.pick(&active);
                        self.c.members[i].silent = true;
                    }
                }
                2 => {
                    let silent: Vec<usize> = (0..self.c.members.len())
                        .filter(|i| self.c.members[*i].silent)
                        .collect();
                    if !silent.is_empty() {
                        let i = *self.c.dice.pick(&silent);
                        self.c.members[i].silent = false;
                        self.act(i)?;
                    }
                }
                3 => self.fetch()?,
                4 => self.describe()?,
                5 => self.list()?,
                6 => self.delete()?,
                7 => self.admin_remove()?,
                8 => {
                    self.s
                        .advance(*self.c.dice.pick(&[3000, 7000, 12000, 31000, 61000]));
                    let step = self.s.tick()?;
                    self.absorb(&step);
                }
                9 => self.invalid()?,
                11 => self.offset_delete()?,
                _ => {
                    let t = format!("t{}", self.c.dice.int(0, 3));
                    let n = self.topics.get(&t).copied().unwrap_or(0) + 1;
                    self.topics.insert(t, n);
                    let topics = self.topics.clone();
                    self.s.metadata(&topics)?;
                }
            }
        }
        self.s.advance(2_000_000);
        let step = self.s.tick()?;
        self.absorb(&step);
        Ok(())
    }
}

/// Writes one classic script of about `steps` actions from `seed`, running it through `driver`.
pub fn generate(
    seed: u64,
    steps: usize,
    driver: &mut dyn Driver,
) -> (Vec<String>, Result<(), String>) {
    let mut session = Session::new(driver);
    let mut clients = Clients::new(Dice::new(seed, 2));
    let result = {
        let mut generator = Gen {
            s: &mut session,
            c: &mut clients,
            topics: BTreeMap::new(),
            protocol_type: "consumer",
        };
        generator.run(steps)
    };
    (session.lines, result)
}

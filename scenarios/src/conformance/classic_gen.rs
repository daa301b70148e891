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

struct Gen<'s, 'd> {
    s: &'s mut Session<'d>,
    dice: Dice,
    topics: BTreeMap<String, i32>,
    members: Vec<Consumer>,
    /// Parked requests: line → (member index, api).
    parked: BTreeMap<usize, (usize, &'static str)>,
    protocol_type: &'static str,
}

impl<'s, 'd> Gen<'s, 'd> {
    fn new_consumer(&mut self, slot: usize) -> Consumer {
        let static_member = self.dice.chance(0.4);
        let join_version = if static_member {
            *self.dice.pick(&[5i16, 6, 7, 8, 9, 9])
        } else {
            *self.dice.pick(&[0i16, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 9])
        };
        let mut protocols = vec!["range".to_string()];
        if self.dice.chance(0.5) {
            protocols.insert(0, "roundrobin".to_string());
        }
        if self.dice.chance(0.1) {
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
            session_timeout: *self.dice.pick(&[6000, 10000, 10000, 30000, 45000]),
            rebalance_timeout: *self.dice.pick(&[3000, 10000, 30000, 60000]),
            silent: false,
        }
    }

    /// Applies the responses completed in `step` (parked joins and syncs) to their members.
    fn absorb(&mut self, step: &Step) {
        let done: Vec<(usize, Value)> = step.completions().map(|(l, r)| (l, r.clone())).collect();
        for (line, resp) in done {
            if let Some((i, api)) = self.parked.remove(&line) {
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
        let client = self.members[i].client_id.clone();
        let step = self.s.request(api, version, body, &client)?;
        let own = step.response().cloned();
        if own.is_none() && (api == "JoinGroup" || api == "SyncGroup") {
            self.parked.insert(step.line, (i, api));
        }
        self.absorb(&step);
        Ok(own)
    }

    fn join_body(&mut self, i: usize) -> (i16, Value) {
        let m = &self.members[i];
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
        if v >= 8 && self.dice.chance(0.2) {
            body["reason"] = json!("rejoin");
        }
        (v, body)
    }

    fn join(&mut self, i: usize) -> Result<(), String> {
        let (v, body) = self.join_body(i);
        self.members[i].state = State::Joining;
        self.members[i].silent = false;
        if let Some(resp) = self.send(i, "JoinGroup", v, body)? {
            self.on_join(i, &resp);
        }
        Ok(())
    }

    fn on_join(&mut self, i: usize, resp: &Value) {
        let c = error_code(resp);
        let m = &mut self.members[i];
        let member_id = resp.get("memberId").and_then(Value::as_str).unwrap_or("");
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
        let m = &self.members[i];
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
        let m = self.members[i].clone();
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
            if self.dice.chance(0.05) && !assignments.is_empty() {
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
        if v >= 5 && !self.dice.chance(0.03) {
            body["protocolType"] = json!(self.protocol_type);
            body["protocolName"] = json!(m.protocol.clone().unwrap_or_default());
        }
        if self.dice.chance(0.03) {
            body["generationId"] = json!(m.generation - 1);
        }
        self.members[i].state = State::Syncing;
        if let Some(resp) = self.send(i, "SyncGroup", v, body)? {
            self.on_sync(i, &resp);
        }
        Ok(())
    }

    fn on_sync(&mut self, i: usize, resp: &Value) {
        let c = error_code(resp);
        let m = &mut self.members[i];
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
        let m = self.members[i].clone();
        let v = match m.join_version {
            0..=2 => *self.dice.pick(&[0i16, 1]),
            3..=4 => 2,
            5..=6 => 3,
            _ => 4,
        };
        let generation = if self.dice.chance(0.03) {
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
            let m = &mut self.members[i];
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
        let m = self.members[i].clone();
        let v = if m.join_version >= 5 {
            *self.dice.pick(&[3i16, 4, 5])
        } else {
            *self.dice.pick(&[0i16, 1, 2, 3])
        };
        let body = if v >= 3 {
            let mut member = json!({"memberId": m.member_id});
            if let Some(inst) = &m.instance {
                member["groupInstanceId"] = json!(inst);
            }
            if v >= 5 && self.dice.chance(0.3) {
                member["reason"] = json!("closing");
            }
            json!({"groupId": GROUP, "members": [member]})
        } else {
            json!({"groupId": GROUP, "memberId": m.member_id})
        };
        self.send(i, "LeaveGroup", v, body)?;
        let m = &mut self.members[i];
        m.state = State::Idle;
        m.member_id = String::new();
        m.generation = -1;
        Ok(())
    }

    /// An admin removes static members by instance id (LeaveGroup v3+ with empty member ids).
    fn admin_remove(&mut self) -> Result<(), String> {
        let statics: Vec<String> = self
            .members
            .iter()
            .filter_map(|m| m.instance.clone())
            .collect();
        let mut targets: Vec<Value> = statics
            .iter()
            .filter(|_| self.dice.chance(0.5))
            .map(|inst| json!({"memberId": "", "groupInstanceId": inst}))
            .collect();
        if targets.is_empty() || self.dice.chance(0.2) {
            targets.push(json!({"memberId": "", "groupInstanceId": "unknown-instance"}));
        }
        let v = *self.dice.pick(&[3i16, 4, 5]);
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
        let m = self.members[i].clone();
        let v = *self.dice.pick(&[2i16, 3, 5, 6, 7, 8, 9, 10]);
        let topics: Vec<Value> = m
            .topics
            .iter()
            .filter(|_| self.dice.chance(0.8))
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
        let (generation, member_id) = if self.dice.chance(0.1) {
            (-1, String::new())
        } else if self.dice.chance(0.05) {
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
        if (2..=4).contains(&v) && self.dice.chance(0.3) {
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
        let m = self.members[i].clone();
        let v = *self.dice.pick(&[0i16, 2, 3, 4, 5]);
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
        let v = *self.dice.pick(&[1i16, 2, 3, 5, 6, 7, 8, 9, 10]);
        let names: Vec<String> = self.topics.keys().take(2).cloned().collect();
        let topics = if v >= 2 && self.dice.chance(0.4) {
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
            json!({"groups": [{"groupId": GROUP, "topics": topics}], "requireStable": self.dice.chance(0.3)})
        } else if v >= 7 {
            json!({"groupId": GROUP, "topics": topics, "requireStable": self.dice.chance(0.3)})
        } else {
            json!({"groupId": GROUP, "topics": topics})
        };
        let step = self.s.request("OffsetFetch", v, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn describe(&mut self) -> Result<(), String> {
        let v = *self.dice.pick(&[0i16, 1, 2, 3, 4, 5, 6]);
        let mut body = json!({"groups": [GROUP]});
        if v >= 3 {
            body["includeAuthorizedOperations"] = json!(self.dice.chance(0.5));
        }
        let step = self.s.request("DescribeGroups", v, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn list(&mut self) -> Result<(), String> {
        let v = *self.dice.pick(&[0i16, 3, 4, 5]);
        let mut body = json!({});
        if v >= 4 && self.dice.chance(0.5) {
            body["statesFilter"] = json!(["Stable", "Empty"]);
        }
        if v >= 5 && self.dice.chance(0.3) {
            body["typesFilter"] = json!(["classic"]);
        }
        let step = self.s.request("ListGroups", v, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn delete(&mut self) -> Result<(), String> {
        let v = *self.dice.pick(&[0i16, 1, 2, 3]);
        let step = self
            .s
            .request("DeleteGroups", v, json!({"groupsNames": [GROUP]}), "admin")?;
        self.absorb(&step);
        Ok(())
    }

    /// An admin deletes some of the group's offsets (or of a group that does not exist).
    fn offset_delete(&mut self) -> Result<(), String> {
        let group = if self.dice.chance(0.1) {
            "other"
        } else {
            GROUP
        };
        let body = super::offset_delete::body(&mut self.dice, group, &self.topics);
        let step = self.s.request("OffsetDelete", 0, body, "admin")?;
        self.absorb(&step);
        Ok(())
    }

    fn invalid(&mut self) -> Result<(), String> {
        let (api, v, body): (&str, i16, Value) = match self.dice.int(0, 8) {
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
        match self.members[i].state {
            State::Idle => self.join(i),
            State::MustSync => self.sync(i),
            State::Stable => match self.dice.weighted(&[70, 10, 4, 5, 2]) {
                0 => self.heartbeat(i),
                1 => self.commit(i),
                2 => self.txn_commit(i),
                3 => {
                    // A rejoin (e.g. a subscription change).
                    self.members[i].state = State::Idle;
                    self.join(i)
                }
                _ => self.leave(i),
            },
            State::Joining | State::Syncing => {
                // Waiting: the consumer keeps quiet; time passes.
                self.s.advance(self.dice.int(100, 2000));
                let step = self.s.tick()?;
                self.absorb(&step);
                Ok(())
            }
            State::Fenced => {
                // The instance restarts: a new member with an empty member id (same instance id).
                let m = &mut self.members[i];
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
            json!(*self.dice.pick(&[0, 0, 0, 500, 3000])),
        );
        if self.dice.chance(0.2) {
            config.insert("group.max.size".into(), json!(self.dice.int(2, 4)));
        }
        self.s.config(Value::Object(config))?;
        for i in 0..3 {
            let n = self.dice.int(1, 4) as i32;
            self.topics.insert(format!("t{i}"), n);
        }
        let topics = self.topics.clone();
        self.s.metadata(&topics)?;
        if self.dice.chance(0.1) {
            self.protocol_type = "connect";
        }
        let n = self.dice.int(1, 6) as usize;
        for slot in 1..=n {
            let c = self.new_consumer(slot);
            self.members.push(c);
        }
        for _ in 0..steps {
            self.s.advance(self.dice.int(0, 1200));
            let active: Vec<usize> = (0..self.members.len())
                .filter(|i| !self.members[*i].silent)
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
            match self.dice.weighted(&weights) {
                0 => {
                    let i = *self.dice.pick(&active);
                    self.act(i)?;
                }
                1 => {
                    if !active.is_empty() {
                        let i = *self.dice.pick(&active);
                        self.members[i].silent = true;
                    }
                }
                2 => {
                    let silent: Vec<usize> = (0..self.members.len())
                        .filter(|i| self.members[*i].silent)
                        .collect();
                    if !silent.is_empty() {
                        let i = *self.dice.pick(&silent);
                        self.members[i].silent = false;
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
                        .advance(*self.dice.pick(&[3000, 7000, 12000, 31000, 61000]));
                    let step = self.s.tick()?;
                    self.absorb(&step);
                }
                9 => self.invalid()?,
                11 => self.offset_delete()?,
                _ => {
                    let t = format!("t{}", self.dice.int(0, 3));
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
    let result = {
        let mut generator = Gen {
            s: &mut session,
            dice: Dice::new(seed, 2),
            topics: BTreeMap::new(),
            members: Vec::new(),
            parked: BTreeMap::new(),
            protocol_type: "consumer",
        };
        generator.run(steps)
    };
    (session.lines, result)
}

//! Random streams-group conversations (KIP-1071): simulated Kafka Streams members that join, heartbeat,
//! reconcile what they are given, commit and fetch offsets, leave (dynamically with -1, statically with -2)
//! and rejoin, on a cluster whose topics and group configs change under them, with a controlled dose of
//! faults (lost responses retried with the previous epoch, stale and future epochs, slow revocation,
//! crashes that end in session or rebalance timeouts) and of invalid requests.
//!
//! Every line runs at once through a [`Driver`], and the members answer with what they were actually
//! given: the epoch of the last response, the tasks of the last response that carried task lists. So
//! most conversations progress through joins, reconciliations and rebalances to deep states, and where
//! the driver (regroup) is wrong the script still goes on, and the oracle shows the first line where
//! Kafka answers differently.

use std::collections::{BTreeMap, BTreeSet};

use protocol::ErrorCode;
use serde_json::{Value, json};

use super::dice::Dice;
use super::driver::Driver;
use super::session::{Session, error_code};

/// The group every streams script drives (a second group id appears only in invalid requests).
pub const GROUP: &str = "app";

/// Tasks by role (active, standby, warm-up), each subtopology id → partitions.
type Tasks = [BTreeMap<String, BTreeSet<i64>>; 3];

fn tasks_json(tasks: &BTreeMap<String, BTreeSet<i64>>) -> Value {
    Value::Array(
        tasks
            .iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(s, p)| json!({"subtopologyId": s, "partitions": p.iter().collect::<Vec<_>>()}))
            .collect(),
    )
}

fn tasks_from_json(v: &Value) -> BTreeMap<String, BTreeSet<i64>> {
    let mut out = BTreeMap::new();
    for t in v.as_array().into_iter().flatten() {
        let Some(s) = t.get("subtopologyId").and_then(Value::as_str) else {
            continue;
        };
        let parts: BTreeSet<i64> = t
            .get("partitions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_i64)
            .collect();
        out.insert(s.to_string(), parts);
    }
    out
}

/// One subtopology of the application's topology.
#[derive(Debug, Clone)]
struct Sub {
    id: String,
    sources: Vec<String>,
    changelogs: Vec<String>,
    repartition_sinks: Vec<String>,
    /// Repartition source topics and the partition count the topology declares (0: derived).
    repartition_sources: Vec<(String, i64)>,
}

#[derive(Debug, Clone)]
struct Topology {
    epoch: i64,
    subs: Vec<Sub>,
}

impl Topology {
    fn to_json(&self) -> Value {
        let subs: Vec<Value> = self
            .subs
            .iter()
            .map(|s| {
                json!({
                    "subtopologyId": s.id,
                    "sourceTopics": s.sources,
                    "stateChangelogTopics": s.changelogs.iter()
                        .map(|c| json!({"name": c, "partitions": 0, "replicationFactor": 0, "topicConfigs": []}))
                        .collect::<Vec<_>>(),
                    "repartitionSinkTopics": s.repartition_sinks,
                    "repartitionSourceTopics": s.repartition_sources.iter()
                        .map(|(n, p)| json!({"name": n, "partitions": p, "replicationFactor": 0, "topicConfigs": []}))
                        .collect::<Vec<_>>(),
                    "copartitionGroups": [],
                })
            })
            .collect();
        json!({"epoch": self.epoch, "subtopologies": subs})
    }

    /// The internal topics with the partition count they need on a cluster with `topics`.
    fn internal_topics(&self, topics: &BTreeMap<String, i32>) -> Vec<(String, i32)> {
        let mut out = Vec::new();
        let source_max = |s: &Sub| {
            s.sources
                .iter()
                .filter_map(|t| topics.get(t).copied())
                .max()
                .unwrap_or(1)
        };
        for s in &self.subs {
            for (name, declared) in &s.repartition_sources {
                let n = if *declared > 0 {
                    *declared as i32
                } else {
                    // Derived from the subtopologies writing to it: their source partitions.
                    self.subs
                        .iter()
                        .filter(|w| w.repartition_sinks.contains(name))
                        .map(source_max)
                        .max()
                        .unwrap_or(1)
                };
                out.push((name.clone(), n));
            }
        }
        for s in &self.subs {
            let repart = s
                .repartition_sources
                .iter()
                .map(|(n, _)| {
                    out.iter()
                        .find(|(m, _)| m == n)
                        .map(|(_, p)| *p)
                        .unwrap_or(1)
                })
                .max()
                .unwrap_or(0);
            let tasks = source_max(s).max(repart);
            for c in &s.changelogs {
                out.push((c.clone(), tasks));
            }
        }
        out
    }

    /// Partitions of source topics behind task `partition` of subtopology `sub`.
    fn source_partitions(
        &self,
        sub: &str,
        partition: i64,
        topics: &BTreeMap<String, i32>,
    ) -> Vec<(String, i64)> {
        let Some(s) = self.subs.iter().find(|s| s.id == sub) else {
            return Vec::new();
        };
        s.sources
            .iter()
            .filter(|t| topics.get(*t).is_some_and(|n| i64::from(*n) > partition))
            .map(|t| (t.clone(), partition))
            .collect()
    }
}

/// One simulated Kafka Streams member (a stream thread).
#[derive(Debug, Clone)]
struct Member {
    slot: usize,
    id: String,
    incarnation: u32,
    process: String,
    instance: Option<String>,
    rack: Option<String>,
    endpoint: Option<(String, i64)>,
    tags: Vec<(String, String)>,
    rebalance_timeout: i64,
    /// In the group as far as the member knows (joined and not left).
    online: bool,
    /// Stopped heartbeating without leaving (a crash or a long pause).
    silent: bool,
    epoch: i64,
    assigned: Tasks,
    /// What the member reports as owned: its assignment, unless it is slow to revoke.
    owned: Tasks,
    /// The owned lists must be sent on the next heartbeat.
    report: bool,
    /// Heartbeats left during which the member still reports tasks it was told to revoke.
    slow_revoke: u32,
    /// A heartbeat whose response was lost, to send again.
    retry: Option<Value>,
    topology_epoch: i64,
    endpoint_epoch: i64,
    /// Left with -2 and may come back under a new member id.
    left_static: bool,
}

struct Gen<'s, 'd> {
    s: &'s mut Session<'d>,
    dice: Dice,
    topics: BTreeMap<String, i32>,
    topology: Topology,
    members: Vec<Member>,
    /// Internal topics are created by "the broker" a little after the coordinator asks for them.
    internal_created: bool,
    /// The last heartbeat reported missing or mispartitioned topics: an operator fixes that soon.
    topics_wanted: bool,
}

const ACTIVE: usize = 0;

impl<'s, 'd> Gen<'s, 'd> {
    fn new_member(&mut self, slot: usize, processes: usize) -> Member {
        let instance = self.dice.chance(0.35).then(|| format!("i{slot}"));
        let rack = self
            .dice
            .chance(0.2)
            .then(|| format!("r{}", self.dice.int(0, 1)));
        let endpoint = self
            .dice
            .chance(0.25)
            .then(|| (format!("host{slot}"), 8000 + slot as i64));
        let tags = if self.dice.chance(0.15) {
            vec![("zone".to_string(), format!("z{}", slot % 2))]
        } else {
            Vec::new()
        };
        let rebalance_timeout = *self.dice.pick(&[3000, 10000, 30000, 300000]);
        Member {
            slot,
            id: format!("m{slot}-1"),
            incarnation: 1,
            process: format!("p{}", slot % processes.max(1)),
            instance,
            rack,
            endpoint,
            tags,
            rebalance_timeout,
            online: false,
            silent: false,
            epoch: 0,
            assigned: Default::default(),
            owned: Default::default(),
            report: false,
            slow_revoke: 0,
            retry: None,
            topology_epoch: self.topology.epoch,
            endpoint_epoch: 0,
            left_static: false,
        }
    }

    fn random_topology(&mut self, epoch: i64) -> Topology {
        let n_subs = self.dice.int(1, 3) as usize;
        let mut pool: Vec<String> = (0..4).map(|i| format!("t{i}")).collect();
        let mut subs = Vec::new();
        for i in 0..n_subs {
            let mut sources = Vec::new();
            let k = if pool.len() > n_subs - i && self.dice.chance(0.3) {
                2
            } else {
                1
            };
            for _ in 0..k {
                if pool.is_empty() {
                    break;
                }
                let j = self.dice.index(pool.len());
                sources.push(pool.remove(j));
            }
            let changelogs = if self.dice.chance(0.35) {
                vec![format!("{GROUP}-store{i}-changelog")]
            } else {
                Vec::new()
            };
            subs.push(Sub {
                id: i.to_string(),
                sources,
                changelogs,
                repartition_sinks: Vec::new(),
                repartition_sources: Vec::new(),
            });
        }
        if subs.len() >= 2 && self.dice.chance(0.3) {
            let name = format!("{GROUP}-rep-repartition");
            subs[0].repartition_sinks.push(name.clone());
            let declared = if self.dice.chance(0.5) {
                0
            } else {
                self.dice.int(1, 4)
            };
            let last = subs.len() - 1;
            subs[last].repartition_sources.push((name, declared));
        }
        Topology { epoch, subs }
    }

    fn join_body(&mut self, m: &Member) -> Value {
        let mut body = json!({
            "groupId": GROUP,
            "memberId": m.id,
            "memberEpoch": 0,
            "rebalanceTimeoutMs": m.rebalance_timeout,
            "topology": self.topology_for(m),
            "activeTasks": [],
            "standbyTasks": [],
            "warmupTasks": [],
            "processId": m.process,
        });
        if let Some(i) = &m.instance {
            body["instanceId"] = json!(i);
        }
        if let Some(r) = &m.rack {
            body["rackId"] = json!(r);
        }
        if let Some((h, p)) = &m.endpoint {
            body["userEndpoint"] = json!({"host": h, "port": p});
        }
        if !m.tags.is_empty() {
            body["clientTags"] = Value::Array(
                m.tags
                    .iter()
                    .map(|(k, v)| json!({"key": k, "value": v}))
                    .collect(),
            );
        }
        body
    }

    fn topology_for(&self, m: &Member) -> Value {
        let mut t = self.topology.to_json();
        // A member that still runs an older version of the application sends the older epoch.
        t["epoch"] = json!(m.topology_epoch);
        t
    }

    fn heartbeat_body(&mut self, i: usize) -> Value {
        let m = &self.members[i];
        let mut body = json!({
            "groupId": GROUP,
            "memberId": m.id,
            "memberEpoch": m.epoch,
            "endpointInformationEpoch": m.endpoint_epoch,
        });
        if let Some(inst) = &m.instance {
            body["instanceId"] = json!(inst);
        }
        let send_lists = m.report || self.dice.chance(0.15);
        if send_lists {
            body["activeTasks"] = tasks_json(&m.owned[0]);
            body["standbyTasks"] = tasks_json(&m.owned[1]);
            body["warmupTasks"] = tasks_json(&m.owned[2]);
            if self.dice.chance(0.2) {
                // Offsets of the owned tasks (4.4 task offsets), for the warm-up refinement.
                let mut offsets = Vec::new();
                for (s, parts) in &m.owned[ACTIVE] {
                    for p in parts {
                        offsets
                            .push(json!({"subtopologyId": s, "partition": p, "offset": 100 + p}));
                    }
                }
                body["taskOffsets"] = Value::Array(offsets.clone());
                body["taskEndOffsets"] = Value::Array(offsets);
            }
        }
        body
    }

    fn send_heartbeat(&mut self, i: usize, body: Value) -> Result<(), String> {
        let client = format!("client-{}", self.members[i].slot);
        let version = if self.dice.chance(0.2) { 0 } else { 1 };
        let lost = self.dice.chance(0.05);
        let step = self
            .s
            .request("StreamsGroupHeartbeat", version, body.clone(), &client)?;
        let Some(resp) = step.response().cloned() else {
            return Ok(());
        };
        if lost {
            // The client never saw the answer: it sends the same heartbeat again next time.
            self.members[i].retry = Some(body);
            return Ok(());
        }
        self.apply_heartbeat_response(i, &body, &resp);
        Ok(())
    }

    fn apply_heartbeat_response(&mut self, i: usize, body: &Value, resp: &Value) {
        let code = error_code(resp);
        for st in resp
            .get("status")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            // MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS, MISSING_INTERNAL_TOPICS.
            if matches!(st.get("statusCode").and_then(Value::as_i64), Some(1..=3)) {
                self.topics_wanted = true;
            }
        }
        let sent_epoch = body.get("memberEpoch").and_then(Value::as_i64).unwrap_or(0);
        let m = &mut self.members[i];
        if code == 0 {
            if sent_epoch < 0 {
                // A leave.
                m.online = false;
                m.left_static = sent_epoch == -2;
                return;
            }
            m.online = true;
            m.epoch = resp
                .get("memberEpoch")
                .and_then(Value::as_i64)
                .unwrap_or(m.epoch);
            if let Some(e) = resp.get("endpointInformationEpoch").and_then(Value::as_i64) {
                m.endpoint_epoch = e;
            }
            if sent_epoch == 0
                && let Some(t) = body.get("topology")
            {
                m.topology_epoch = t.get("epoch").and_then(Value::as_i64).unwrap_or(0);
            }
            let lists = [
                resp.get("activeTasks"),
                resp.get("standbyTasks"),
                resp.get("warmupTasks"),
            ];
            if lists.iter().all(|l| l.is_some_and(|v| !v.is_null())) {
                let new: Tasks = [
                    tasks_from_json(lists[0].unwrap_or(&Value::Null)),
                    tasks_from_json(lists[1].unwrap_or(&Value::Null)),
                    tasks_from_json(lists[2].unwrap_or(&Value::Null)),
                ];
                let revoked = m.owned.iter().zip(new.iter()).any(|(old, new)| {
                    old.iter()
                        .any(|(s, p)| p.iter().any(|x| !new.get(s).is_some_and(|n| n.contains(x))))
                });
                m.assigned = new;
                if revoked && m.slow_revoke == 0 && self.dice.chance(0.15) {
                    m.slow_revoke = self.dice.int(1, 4) as u32;
                }
                if m.slow_revoke == 0 {
                    m.owned = m.assigned.clone();
                }
                m.report = true;
            } else if m.slow_revoke > 0 {
                m.slow_revoke -= 1;
                if m.slow_revoke == 0 {
                    m.owned = m.assigned.clone();
                    m.report = true;
                }
            } else if body.get("activeTasks").is_some_and(|v| !v.is_null()) {
                m.report = false;
            }
            return;
        }
        // Errors: what a client does about them.
        if code == i64::from(ErrorCode::FencedMemberEpoch.code())
            || code == i64::from(ErrorCode::UnknownMemberId.code())
        {
            m.epoch = 0;
            m.assigned = Default::default();
            m.owned = Default::default();
            m.online = false;
            m.slow_revoke = 0;
        } else if code == i64::from(ErrorCode::FencedInstanceId.code()) {
            // This incarnation was replaced; the process restarts with a new member id.
            m.online = false;
            m.epoch = 0;
            m.incarnation += 1;
            m.id = format!("m{}-{}", m.slot, m.incarnation);
            m.assigned = Default::default();
            m.owned = Default::default();
        } else if code == i64::from(ErrorCode::UnreleasedInstanceId.code())
            || code == i64::from(ErrorCode::GroupMaxSizeReached.code())
        {
            // Retried after a back-off (the client's retry loop).
            m.online = false;
            m.epoch = 0;
            m.silent = true;
        } else if sent_epoch == 0 {
            m.online = false;
        }
    }

    fn heartbeat(&mut self, i: usize) -> Result<(), String> {
        let body = match self.members[i].retry.take() {
            Some(b) => b,
            None => self.heartbeat_body(i),
        };
        // Faults: a stale or future epoch now and then.
        let mut body = body;
        if self.dice.chance(0.03) {
            let e = body["memberEpoch"].as_i64().unwrap_or(0);
            body["memberEpoch"] = json!(if self.dice.chance(0.5) {
                e + 1
            } else {
                (e - 1).max(1)
            });
        }
        self.send_heartbeat(i, body)
    }

    fn join(&mut self, i: usize) -> Result<(), String> {
        let m = self.members[i].clone();
        let mut m2 = m.clone();
        if m.left_static && self.dice.chance(0.6) {
            // A restarted static member comes back under a new member id (replacement).
            m2.incarnation += 1;
            m2.id = format!("m{}-{}", m.slot, m2.incarnation);
        }
        m2.left_static = false;
        self.members[i] = m2.clone();
        let body = self.join_body(&m2);
        self.members[i].epoch = 0;
        self.members[i].silent = false;
        self.send_heartbeat(i, body)
    }

    fn leave(&mut self, i: usize, epoch: i64) -> Result<(), String> {
        let m = &self.members[i];
        let mut body = json!({"groupId": GROUP, "memberId": m.id, "memberEpoch": epoch});
        if let Some(inst) = &m.instance {
            body["instanceId"] = json!(inst);
        }
        if self.dice.chance(0.1) {
            body["shutdownApplication"] = json!(true);
        }
        self.send_heartbeat(i, body)
    }

    fn commit(&mut self, i: usize) -> Result<(), String> {
        let m = self.members[i].clone();
        let version = *self.dice.pick(&[9i16, 9, 10, 8]);
        let mut partitions: BTreeMap<String, Vec<i64>> = BTreeMap::new();
        for (s, ps) in &m.owned[ACTIVE] {
            for p in ps {
                for (t, tp) in self.topology.source_partitions(s, *p, &self.topics) {
                    partitions.entry(t).or_default().push(tp);
                }
            }
        }
        if partitions.is_empty() || self.dice.chance(0.15) {
            // Something the member does not own.
            let t = format!("t{}", self.dice.int(0, 3));
            partitions.entry(t).or_default().push(self.dice.int(0, 2));
        }
        let epoch = if self.dice.chance(0.15) {
            m.epoch - self.dice.int(1, 2)
        } else {
            m.epoch
        };
        let topics: Vec<Value> = partitions
            .iter()
            .map(|(t, ps)| {
                let parts: Vec<Value> = ps
                    .iter()
                    .map(|p| json!({"partitionIndex": p, "committedOffset": 10 * p + self.s.now % 7, "committedLeaderEpoch": -1, "committedMetadata": ""}))
                    .collect();
                if version >= 10 {
                    json!({"topicId": topic_id(t), "partitions": parts})
                } else {
                    json!({"name": t, "partitions": parts})
                }
            })
            .collect();
        let body = json!({
            "groupId": GROUP,
            "generationIdOrMemberEpoch": epoch,
            "memberId": m.id,
            "topics": topics,
        });
        let client = format!("client-{}", m.slot);
        self.s.request("OffsetCommit", version, body, &client)?;
        Ok(())
    }

    fn fetch(&mut self, i: usize) -> Result<(), String> {
        let m = self.members[i].clone();
        let version = *self.dice.pick(&[9i16, 10]);
        let topics = if self.dice.chance(0.5) {
            Value::Null
        } else {
            let names: Vec<&String> = self.topics.keys().take(2).collect();
            Value::Array(
                names
                    .iter()
                    .map(|t| {
                        if version >= 10 {
                            json!({"topicId": topic_id(t), "partitionIndexes": [0, 1]})
                        } else {
                            json!({"name": t, "partitionIndexes": [0, 1]})
                        }
                    })
                    .collect(),
            )
        };
        let epoch = if self.dice.chance(0.1) {
            m.epoch + 1
        } else {
            m.epoch
        };
        let body = json!({
            "groups": [{"groupId": GROUP, "memberId": m.id, "memberEpoch": epoch, "topics": topics}],
            "requireStable": self.dice.chance(0.3),
        });
        self.s
            .request("OffsetFetch", version, body, "client-fetch")?;
        Ok(())
    }

    fn describe(&mut self) -> Result<(), String> {
        let version = *self.dice.pick(&[0i16, 1]);
        let mut groups = vec![json!(GROUP)];
        if self.dice.chance(0.2) {
            groups.push(json!("other"));
        }
        let body =
            json!({"groupIds": groups, "includeAuthorizedOperations": self.dice.chance(0.5)});
        self.s
            .request("StreamsGroupDescribe", version, body, "admin")?;
        Ok(())
    }

    /// The topic changes a cluster goes through while the application runs.
    fn change_topics(&mut self) -> Result<(), String> {
        let internal = self.topology.internal_topics(&self.topics);
        let fixing = std::mem::take(&mut self.topics_wanted);
        let weights: &[u32] = if fixing {
            &[8, 1, 0, 8, 0]
        } else {
            &[4, 3, 2, 2, 1]
        };
        match self.dice.weighted(weights) {
            0 if !self.internal_created && !internal.is_empty() => {
                // The broker created the internal topics the coordinator asked for (rarely with a wrong count).
                for (name, n) in internal {
                    let n = if self.dice.chance(0.1) { n + 1 } else { n };
                    // A KRaft topic never loses partitions.
                    let now = self.topics.get(&name).copied().unwrap_or(0);
                    self.topics.insert(name, n.max(1).max(now));
                }
                self.internal_created = true;
            }
            1 => {
                let t = format!("t{}", self.dice.int(0, 3));
                let n = self.topics.get(&t).copied().unwrap_or(0);
                self.topics.insert(t, n + self.dice.int(1, 3) as i32);
            }
            2 => {
                // Only internal topics are deleted: regroup does not delete the committed offsets of a
                // deleted topic yet (docs/divergences.md), and commits go to source topics.
                let names: Vec<String> = self
                    .topics
                    .keys()
                    .filter(|t| t.contains("changelog") || t.contains("repartition"))
                    .cloned()
                    .collect();
                if !names.is_empty() {
                    let t = self.dice.pick(&names).clone();
                    self.topics.remove(&t);
                    self.internal_created = false;
                }
            }
            3 => {
                for i in 0..4 {
                    let t = format!("t{i}");
                    if !self.topics.contains_key(&t) {
                        let n = self.dice.int(1, 6) as i32;
                        self.topics.insert(t, n);
                    }
                }
                if fixing {
                    // Internal topics recreated with the counts the topology needs now.
                    for (name, n) in self.topology.internal_topics(&self.topics) {
                        let now = self.topics.get(&name).copied().unwrap_or(0);
                        self.topics.insert(name, n.max(now));
                    }
                    self.internal_created = true;
                }
            }
            _ => {}
        }
        let topics = self.topics.clone();
        self.s.metadata(&topics)?;
        Ok(())
    }

    fn invalid(&mut self) -> Result<(), String> {
        let online: Vec<usize> = (0..self.members.len())
            .filter(|i| self.members[*i].online)
            .collect();
        let base =
            |id: &str, epoch: i64| json!({"groupId": GROUP, "memberId": id, "memberEpoch": epoch});
        let body = match self.dice.int(0, 13) {
            0 => base("", 1),
            1 => base("ghost", -3),
            2 => {
                let mut b = base("ghost", 3);
                b["topology"] = self.topology.to_json();
                b
            }
            3 => {
                let mut b = base("ghost", 0);
                b["rebalanceTimeoutMs"] = json!(30000);
                b["topology"] = self.topology.to_json();
                b
            }
            4 => {
                let mut b = self.join_body(&self.members[0].clone());
                b["memberId"] = json!("ghost");
                b["topology"]["subtopologies"][0]["stateChangelogTopics"] = json!([{"name": "bad-changelog", "partitions": 3, "replicationFactor": 0, "topicConfigs": []}]);
                b
            }
            5 => {
                let mut b = self.join_body(&self.members[0].clone());
                b["memberId"] = json!("ghost");
                b["topology"]["subtopologies"][0]["sourceTopics"] = json!(["bad topic!"]);
                b
            }
            6 => {
                let mut b = self.join_body(&self.members[0].clone());
                b["memberId"] = json!("ghost");
                b["topology"]["subtopologies"][0]["sourceTopics"] = json!(["__consumer_offsets"]);
                b
            }
            7 if !online.is_empty() => {
                let i = *self.dice.pick(&online);
                let mut b = self.heartbeat_body(i);
                b["activeTasks"] = json!([{"subtopologyId": "zz", "partitions": [0]}]);
                b["standbyTasks"] = json!([]);
                b["warmupTasks"] = json!([]);
                b
            }
            8 => {
                let mut b = base("ghost", 0);
                b["groupId"] = json!("");
                b
            }
            9 => {
                let mut b = self.join_body(&self.members[0].clone());
                b["memberId"] = json!("ghost");
                b["topology"]["subtopologies"][0]["sourceTopicRegex"] = json!(["t.*"]);
                b
            }
            10 => {
                // Same topology epoch, different topology.
                let mut b = self.join_body(&self.members[0].clone());
                b["memberId"] = json!("ghost");
                b["topology"]["subtopologies"][0]["sourceTopics"] = json!(["t9"]);
                b
            }
            11 => base("ghost", 5),
            12 => base("ghost", -2),
            _ if !online.is_empty() => {
                let i = *self.dice.pick(&online);
                let mut b = self.heartbeat_body(i);
                b["taskOffsets"] = json!([
                    {"subtopologyId": "0", "partition": 0, "offset": 1},
                    {"subtopologyId": "0", "partition": 0, "offset": 2}
                ]);
                b
            }
            _ => base("ghost", 1),
        };
        self.s
            .request("StreamsGroupHeartbeat", 1, body, "client-bad")?;
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
        self.s.request("OffsetDelete", 0, body, "admin")?;
        Ok(())
    }

    fn delete_group_and_redeploy(&mut self) -> Result<(), String> {
        let version = *self.dice.pick(&[0i16, 1, 2]);
        let step = self.s.request(
            "DeleteGroups",
            version,
            json!({"groupsNames": [GROUP]}),
            "admin",
        )?;
        let deleted = step
            .response()
            .and_then(|r| r.get("results"))
            .and_then(Value::as_array)
            .and_then(|rs| rs.first())
            .is_some_and(|r| error_code(r) == 0);
        if deleted && self.dice.chance(0.7) {
            // A new version of the application: a new topology, with the next epoch.
            let epoch = self.topology.epoch + 1;
            self.topology = self.random_topology(epoch);
            self.internal_created = false;
            for m in &mut self.members {
                m.topology_epoch = epoch;
                m.epoch = 0;
                m.assigned = Default::default();
                m.owned = Default::default();
                m.left_static = false;
            }
        }
        Ok(())
    }

    fn run(&mut self, steps: usize) -> Result<(), String> {
        // Broker configs: the initial rebalance delay and the assignment interval decide how soon a
        // group gets tasks; zero and the defaults both appear.
        let mut config = serde_json::Map::new();
        // regroup does not expire groups and offsets yet (docs/divergences.md): Kafka's periodic clean-up
        // is moved beyond the end of every script.
        config.insert(
            "offsets.retention.check.interval.ms".into(),
            json!(super::NO_CLEANUP_MS),
        );
        // With warm-up replicas (Kafka's default is 2) Kafka caches a refined assignment per epoch, and
        // 4.4.0 corrupts that cache when a heartbeat fails after touching it (docs/divergences.md); regroup
        // keeps no such cache. The refiner of 4.4 inserts no warm-ups, so without the cache the outcome is
        // the same.
        config.insert("group.streams.num.warmup.replicas".into(), json!(0));
        if self.dice.chance(0.6) {
            config.insert(
                "group.streams.initial.rebalance.delay.ms".into(),
                json!(*self.dice.pick(&[0, 0, 1000, 3000])),
            );
        }
        if self.dice.chance(0.4) {
            config.insert(
                "group.streams.assignment.interval.ms".into(),
                json!(*self.dice.pick(&[0, 0, 500, 1000])),
            );
        }
        if self.dice.chance(0.2) {
            config.insert("group.streams.max.size".into(), json!(self.dice.int(2, 4)));
        }
        if self.dice.chance(0.2) {
            config.insert("group.streams.num.standby.replicas".into(), json!(1));
        }
        if self.dice.chance(0.15) {
            // Rack-aware standby placement: members without the tags get MISSING_CLIENT_TAGS.
            config.insert(
                "group.streams.rack.aware.assignment.tags".into(),
                json!(*self.dice.pick(&["zone", "zone,cluster"])),
            );
        }
        self.s.config(Value::Object(config))?;
        let missing_some = self.dice.chance(0.1);
        for i in 0..4 {
            if !missing_some || self.dice.chance(0.5) {
                let n = self.dice.int(1, 6) as i32;
                self.topics.insert(format!("t{i}"), n);
            }
        }
        let epoch = self.dice.int(0, 2);
        self.topology = self.random_topology(epoch);
        if self.dice.chance(0.6) {
            for (name, n) in self.topology.internal_topics(&self.topics) {
                self.topics.insert(name, n);
            }
            self.internal_created = true;
        }
        let topics = self.topics.clone();
        self.s.metadata(&topics)?;
        let n_members = self.dice.int(1, 6) as usize;
        let processes = self.dice.int(1, n_members as i64) as usize;
        for slot in 1..=n_members {
            let m = self.new_member(slot, processes);
            self.members.push(m);
        }
        for _ in 0..steps {
            self.s.advance(self.dice.int(0, 1500));
            let online: Vec<usize> = (0..self.members.len())
                .filter(|i| self.members[*i].online && !self.members[*i].silent)
                .collect();
            let offline: Vec<usize> = (0..self.members.len())
                .filter(|i| !self.members[*i].online && !self.members[*i].silent)
                .collect();
            let statics: Vec<usize> = online
                .iter()
                .copied()
                .filter(|i| self.members[*i].instance.is_some())
                .collect();
            let weights = [
                if online.is_empty() { 0 } else { 50 },  // heartbeat
                if offline.is_empty() { 0 } else { 12 }, // join
                if online.is_empty() { 0 } else { 2 },   // leave -1
                if statics.is_empty() { 0 } else { 3 },  // leave -2
                if online.is_empty() { 0 } else { 2 },   // go silent
                if online.is_empty() { 0 } else { 6 },   // commit
                3,                                       // fetch
                2,                                       // describe
                if self.topics_wanted { 12 } else { 3 }, // topics
                2,                                       // group config
                3,                                       // time passes
                3,                                       // invalid request
                if online.is_empty() { 1 } else { 0 },   // delete group
                1,                                       // a silent member wakes up
                1,                                       // offset delete
            ];
            match self.dice.weighted(&weights) {
                0 => {
                    let i = *self.dice.pick(&online);
                    self.heartbeat(i)?;
                }
                1 => {
                    let i = *self.dice.pick(&offline);
                    self.join(i)?;
                }
                2 => {
                    let i = *self.dice.pick(&online);
                    self.leave(i, -1)?;
                }
                3 => {
                    let i = *self.dice.pick(&statics);
                    self.leave(i, -2)?;
                }
                4 => {
                    let i = *self.dice.pick(&online);
                    self.members[i].silent = true;
                }
                5 => {
                    let i = *self.dice.pick(&online);
                    self.commit(i)?;
                }
                6 => {
                    let i = if online.is_empty() || self.dice.chance(0.1) {
                        self.dice.index(self.members.len())
                    } else {
                        *self.dice.pick(&online)
                    };
                    self.fetch(i)?;
                }
                7 => self.describe()?,
                8 => self.change_topics()?,
                9 => {
                    let configs = match self.dice.weighted(&[5, 1, 2, 1, 1, 1, 1]) {
                        0 => json!({"streams.num.standby.replicas": self.dice.int(0, 2)}),
                        1 => json!({"streams.num.warmup.replicas": 0}),
                        2 => {
                            json!({"streams.acceptable.recovery.lag": *self.dice.pick(&[0, 100, 50000])})
                        }
                        3 => {
                            json!({"streams.session.timeout.ms": *self.dice.pick(&[45000, 50000, 60000])})
                        }
                        4 => {
                            json!({"streams.assignment.interval.ms": *self.dice.pick(&[0, 1000, 3000])})
                        }
                        5 => {
                            json!({"streams.initial.rebalance.delay.ms": *self.dice.pick(&[0, 3000])})
                        }
                        _ => {
                            json!({"streams.heartbeat.interval.ms": *self.dice.pick(&[5000, 8000, 12000])})
                        }
                    };
                    self.s.group_config(GROUP, configs)?;
                }
                10 => {
                    self.s
                        .advance(*self.dice.pick(&[5000, 20000, 46000, 61000]));
                    self.s.tick()?;
                }
                11 => self.invalid()?,
                12 => self.delete_group_and_redeploy()?,
                14 => self.offset_delete()?,
                _ => {
                    let silent: Vec<usize> = (0..self.members.len())
                        .filter(|i| self.members[*i].silent)
                        .collect();
                    if !silent.is_empty() {
                        let i = *self.dice.pick(&silent);
                        self.members[i].silent = false;
                        // After a pause, a member heartbeats as if nothing happened.
                        self.heartbeat(i)?;
                    }
                }
            }
        }
        // Let every timer run out.
        self.s.advance(400_000);
        self.s.tick()?;
        Ok(())
    }
}

/// The topic id a script's topic gets on both sides (regroup's derived id, in Kafka's string form).
pub fn topic_id(name: &str) -> String {
    coordinator::records::json::kafka_uuid_string(&coordinator::topics::derived_topic_id(name))
}

/// Writes one streams script of about `steps` actions from `seed`, running it through `driver`; returns the
/// lines written (also when the driver rejected one, which is then the last) and how it ended.
pub fn generate(
    seed: u64,
    steps: usize,
    driver: &mut dyn Driver,
) -> (Vec<String>, Result<(), String>) {
    let mut session = Session::new(driver);
    let result = {
        let mut generator = Gen {
            s: &mut session,
            dice: Dice::new(seed, 1),
            topics: BTreeMap::new(),
            topology: Topology {
                epoch: 0,
                subs: Vec::new(),
            },
            members: Vec::new(),
            internal_created: false,
            topics_wanted: false,
        };
        generator.run(steps)
    };
    (session.lines, result)
}

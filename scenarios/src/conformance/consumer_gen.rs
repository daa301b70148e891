//! Random consumer-group conversations (KIP-848): simulated consumers that join with
//! ConsumerGroupHeartbeat, heartbeat, reconcile what they are given (revoking first, then taking the
//! new partitions, and reporting what they own), commit and fetch offsets, change their subscription
//! or preferred assignor, leave (dynamically with -1, statically with -2) and come back under new member
//! ids, on a cluster whose topics and group configs change, with a dose of faults (lost responses
//! answered with the previous epoch, stale and future epochs, slow revocation, silent members that time
//! out) and of invalid requests.
//!
//! Every line runs at once through a [`Driver`], and the members answer with what they were actually
//! given, so conversations reach deep states; where the driver (regroup) is wrong the script goes on
//! and the oracle shows the first line where Kafka answers differently.
//!
//! Members may subscribe with a regular expression (`SubscribedTopicRegex`, alone or with names), change
//! it, drop it, or try an invalid one; topics they match are created as the cluster grows, so the
//! asynchronous resolution, the 10 s batching and the RegularExpression records are exercised.
//!
//! Two conversations in five also have a classic consumer in the group (protocol type `consumer`, on
//! a topic of its own, [`Clients::for_migration`]): some start as a classic group that the first
//! consumer-protocol join upgrades, the classic member is then served by the consumer group, and
//! the group is downgraded when the last consumer-protocol member goes (Kafka's online migration).
//!
//! Steered clear of, as documented gaps (docs/consumer.md): v0 joins without a member id (Kafka draws
//! a random id), a classic JoinGroup with a member id meeting an empty consumer group (Kafka's
//! half-removed group, docs/divergences.md), and topics whose ids share a `HashMap` bucket.

use std::collections::{BTreeMap, BTreeSet};

use protocol::ErrorCode;
use serde_json::{Value, json};

use super::classic_gen::Clients;
use super::dice::Dice;
use super::driver::Driver;
use super::session::{Session, error_code};

/// The group every consumer script drives.
pub const GROUP: &str = "cg";

/// Topic names the cluster may have. Their (name-derived) topic ids fall in different buckets of a
/// `java.util.HashMap`: where two ids share one, the order in which Kafka iterates a member's target
/// follows the insertion order of its assignor's output map, which regroup does not reproduce
/// (docs/divergences.md).
const TOPICS: [&str; 4] = ["foo", "bar", "zar", "qux"];

/// Regexes members subscribe with: some match several of [`TOPICS`], some one, some none yet or
/// none at all; one uses RE2J syntax the Rust `regex` crate lacks (`\Q...\E` quoting).
const REGEXES: [&str; 10] = [
    "f.*",
    ".*ar",
    "foo|bar",
    ".*",
    "q.*",
    "z.r",
    "(?i)FOO",
    "[b-z]a[r-z]",
    "nomatch.*",
    "qu\\Qx\\E",
];

/// The topic of a migration conversation's classic consumer: no name subscription of a
/// consumer-protocol member and no regex of [`REGEXES`] but `.*` (not drawn in those conversations)
/// matches it, so it never contests a partition with them.
const CLASSIC_TOPIC: &str = "cls";

/// Regexes RE2J refuses (INVALID_REGULAR_EXPRESSION, each with its own description).
const INVALID_REGEXES: [&str; 5] = ["[", "a**", "(?=x)", "f{2}{3}", "(foo"];

/// One simulated consumer.
#[derive(Debug, Clone)]
struct Member {
    id: String,
    instance: Option<String>,
    /// The epoch of the last successful response (0: must join).
    epoch: i64,
    /// The previous epoch, for a heartbeat whose response "was lost".
    previous_epoch: i64,
    /// The assignment of the last response that carried one: topic id -> partitions.
    assigned: BTreeMap<String, BTreeSet<i64>>,
    /// What the member owns and reports: topic id -> partitions.
    owned: BTreeMap<String, BTreeSet<i64>>,
    subscription: Vec<String>,
    /// The member's `SubscribedTopicRegex`: `None` never sent one, `Some("")` dropped it.
    regex: Option<String>,
    assignor: Option<String>,
    rebalance_timeout: i64,
    /// Gone for good (left with -1, or fenced and given up): never heartbeats again.
    gone: bool,
    /// Left with -2: may come back under a new member id.
    away: bool,
}

fn tps_json(tps: &BTreeMap<String, BTreeSet<i64>>) -> Value {
    Value::Array(
        tps.iter()
            .filter(|(_, p)| !p.is_empty())
            .map(|(t, p)| json!({"topicId": t, "partitions": p.iter().collect::<Vec<_>>()}))
            .collect(),
    )
}

fn tps_from_json(v: &Value) -> BTreeMap<String, BTreeSet<i64>> {
    let mut out = BTreeMap::new();
    for t in v.as_array().into_iter().flatten() {
        let Some(id) = t.get("topicId").and_then(Value::as_str) else {
            continue;
        };
        let parts: BTreeSet<i64> = t
            .get("partitions")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_i64)
            .collect();
        out.insert(id.to_string(), parts);
    }
    out
}

struct Gen<'a, 'd> {
    s: &'a mut Session<'d>,
    dice: Dice,
    topics: BTreeMap<String, i32>,
    members: Vec<Member>,
    next_member: u32,
    /// Classic consumers in the same group (online migration), with their own dice.
    classic: Clients,
    /// The weight of a classic client's move among the steps (0: a conversation without them).
    classic_weight: u32,
}

impl Gen<'_, '_> {
    fn fresh_id(&mut self) -> String {
        self.next_member += 1;
        format!("c{}", self.next_member)
    }

    fn random_subscription(&mut self) -> Vec<String> {
        let mut subs: Vec<String> = TOPICS
            .iter()
            .filter(|_| self.dice.chance(0.45))
            .map(|t| t.to_string())
            .collect();
        if subs.is_empty() && self.dice.chance(0.85) {
            subs.push("foo".to_string());
        }
        subs
    }

    /// A regex subscription for a new member or a change: none most of the time.
    fn random_regex(&mut self) -> Option<String> {
        if !self.dice.chance(0.3) {
            return None;
        }
        let regexes: Vec<&str> = REGEXES
            .iter()
            .copied()
            .filter(|r| self.classic_weight == 0 || *r != ".*")
            .collect();
        Some(self.dice.pick(&regexes).to_string())
    }

    fn random_assignor(&mut self) -> Option<String> {
        match self.dice.weighted(&[6, 2, 2]) {
            0 => None,
            1 => Some("uniform".to_string()),
            _ => Some("range".to_string()),
        }
    }

    /// Sends a heartbeat for member `i` and applies the answer; `lost` drops the response as a lost
    /// one would be.
    fn send_heartbeat(&mut self, i: usize, body: Value, lost: bool) -> Result<(), String> {
        let client = format!("client-{}", self.members[i].id);
        let step = self
            .s
            .request("ConsumerGroupHeartbeat", 1, body.clone(), &client)?;
        let sent_epoch = body.get("memberEpoch").and_then(Value::as_i64).unwrap_or(0);
        let Some(r) = step.response() else {
            return Ok(());
        };
        if lost {
            return Ok(());
        }
        let m = &mut self.members[i];
        let code = error_code(r);
        if code == 0 {
            if sent_epoch < 0 {
                if sent_epoch == -1 {
                    m.gone = true;
                } else {
                    m.away = true;
                }
                m.epoch = 0;
                return Ok(());
            }
            let epoch = r.get("memberEpoch").and_then(Value::as_i64).unwrap_or(0);
            if epoch != m.epoch {
                m.previous_epoch = m.epoch;
            }
            m.epoch = epoch;
            if let Some(a) = r.get("assignment").filter(|a| !a.is_null()) {
                m.assigned = tps_from_json(a.get("topicPartitions").unwrap_or(&Value::Null));
            }
        } else if code == i64::from(ErrorCode::FencedMemberEpoch.code())
            || code == i64::from(ErrorCode::UnknownMemberId.code())
        {
            // The consumer drops everything and rejoins with epoch 0 (a static one keeps its id).
            m.epoch = 0;
            m.owned.clear();
            m.assigned.clear();
        } else if code == i64::from(ErrorCode::UnreleasedInstanceId.code())
            || code == i64::from(ErrorCode::FencedInstanceId.code())
        {
            m.gone = true;
        }
        Ok(())
    }

    fn join_body(&self, i: usize) -> Value {
        let m = &self.members[i];
        let mut body = json!({
            "groupId": GROUP, "memberId": m.id, "memberEpoch": 0,
            "rebalanceTimeoutMs": m.rebalance_timeout,
            "subscribedTopicNames": m.subscription, "topicPartitions": [],
        });
        if let Some(r) = m.regex.as_ref().filter(|r| !r.is_empty()) {
            body["subscribedTopicRegex"] = json!(r);
            if m.subscription.is_empty() {
                body.as_object_mut()
                    .map(|o| o.remove("subscribedTopicNames"));
            }
        }
        if let Some(inst) = &m.instance {
            body["instanceId"] = json!(inst);
        }
        if let Some(a) = &m.assignor {
            body["serverAssignor"] = json!(a);
        }
        body
    }

    fn heartbeat_body(&mut self, i: usize, epoch: i64) -> Value {
        let full = self.dice.chance(0.15);
        let with_owned = full || self.dice.chance(0.6);
        let m = &self.members[i];
        let mut body = json!({"groupId": GROUP, "memberId": m.id, "memberEpoch": epoch});
        if let Some(inst) = &m.instance {
            body["instanceId"] = json!(inst);
        }
        if with_owned {
            body["topicPartitions"] = tps_json(&m.owned);
        }
        if full {
            body["rebalanceTimeoutMs"] = json!(m.rebalance_timeout);
            body["subscribedTopicNames"] = json!(m.subscription);
            if let Some(r) = &m.regex {
                body["subscribedTopicRegex"] = json!(r);
            }
        }
        body
    }

    /// The member moves its owned partitions toward its assignment: revocation first, then (on a later
    /// step) the new partitions.
    fn reconcile(&mut self, i: usize) {
        let m = &mut self.members[i];
        let revoke = m.owned.iter().any(|(t, ps)| {
            ps.iter()
                .any(|p| !m.assigned.get(t).is_some_and(|a| a.contains(p)))
        });
        if revoke {
            let kept: BTreeMap<String, BTreeSet<i64>> = m
                .owned
                .iter()
                .map(|(t, ps)| {
                    let a = m.assigned.get(t).cloned().unwrap_or_default();
                    (t.clone(), ps.intersection(&a).copied().collect())
                })
                .collect();
            m.owned = kept;
        } else {
            m.owned = m.assigned.clone();
        }
    }

    fn live(&self) -> Vec<usize> {
        (0..self.members.len())
            .filter(|i| !self.members[*i].gone && !self.members[*i].away)
            .collect()
    }

    fn step(&mut self) -> Result<(), String> {
        let live = self.live();
        let action = self.dice.weighted(&[
            if live.len() < 5 { 8 } else { 1 }, // 0 new member joins
            40,                                 // 1 heartbeat
            20,                                 // 2 reconcile
            6,                                  // 3 time passes
            2,                                  // 4 long silence
            3,                                  // 5 leave -1 / static -2
            3,                                  // 6 away static member comes back
            3,                                  // 7 subscription or assignor change
            4,                                  // 8 commit
            2,                                  // 9 fetch
            2,                                  // 10 describe
            2,                                  // 11 faults: lost response, stale or future epoch
            1,                                  // 12 metadata change
            1,                                  // 13 group config change
            1,                                  // 14 invalid request
            self.classic_weight,                // 15 a classic client's move
        ]);
        match action {
            0 => {
                let id = self.fresh_id();
                let instance = self.dice.chance(0.35).then(|| format!("i-{id}"));
                let regex = self.random_regex();
                let subscription = if regex.is_some() && self.dice.chance(0.7) {
                    Vec::new()
                } else {
                    self.random_subscription()
                };
                let assignor = self.random_assignor();
                self.members.push(Member {
                    id,
                    instance,
                    epoch: 0,
                    previous_epoch: 0,
                    assigned: BTreeMap::new(),
                    owned: BTreeMap::new(),
                    subscription,
                    regex,
                    assignor,
                    rebalance_timeout: *self.dice.pick(&[5000, 20000, 60000]),
                    gone: false,
                    away: false,
                });
                let i = self.members.len() - 1;
                let body = self.join_body(i);
                self.send_heartbeat(i, body, false)
            }
            1 | 2 if live.is_empty() => Ok(()),
            1 => {
                let i = *self.dice.pick(&live);
                let body = if self.members[i].epoch == 0 {
                    self.members[i].owned.clear();
                    self.join_body(i)
                } else {
                    let epoch = self.members[i].epoch;
                    self.heartbeat_body(i, epoch)
                };
                self.send_heartbeat(i, body, false)
            }
            2 => {
                let i = *self.dice.pick(&live);
                self.reconcile(i);
                Ok(())
            }
            3 => {
                self.s.advance(self.dice.int(100, 6000));
                self.s.tick().map(|_| ())
            }
            4 => {
                self.s.advance(self.dice.int(20_000, 70_000));
                // Every member still around heartbeats first, most of the time, so only some time out.
                for i in self.live() {
                    if self.dice.chance(0.7) && self.members[i].epoch != 0 {
                        let epoch = self.members[i].epoch;
                        let body = self.heartbeat_body(i, epoch);
                        self.s.advance(1);
                        self.send_heartbeat(i, body, false)?;
                    }
                }
                self.s.advance(self.dice.int(0, 30_000));
                self.s.tick().map(|_| ())
            }
            5 if live.is_empty() => Ok(()),
            5 => {
                let i = *self.dice.pick(&live);
                let m = &self.members[i];
                let epoch = if m.instance.is_some() && self.dice.chance(0.6) {
                    -2
                } else {
                    -1
                };
                let mut body = json!({"groupId": GROUP, "memberId": m.id, "memberEpoch": epoch});
                if let Some(inst) = &m.instance {
                    body["instanceId"] = json!(inst);
                }
                self.send_heartbeat(i, body, false)
            }
            6 => {
                let away: Vec<usize> = (0..self.members.len())
                    .filter(|i| self.members[*i].away && !self.members[*i].gone)
                    .collect();
                if away.is_empty() {
                    return Ok(());
                }
                let i = *self.dice.pick(&away);
                // The restarted instance comes back under a new member id, owning nothing.
                let id = self.fresh_id();
                let mut m = self.members[i].clone();
                self.members[i].gone = true;
                m.id = id;
                m.away = false;
                m.epoch = 0;
                m.owned.clear();
                m.assigned.clear();
                if self.dice.chance(0.3) {
                    m.subscription = self.random_subscription();
                }
                self.members.push(m);
                let j = self.members.len() - 1;
                let body = self.join_body(j);
                self.send_heartbeat(j, body, false)
            }
            7 if live.is_empty() => Ok(()),
            7 => {
                let i = *self.dice.pick(&live);
                if self.members[i].epoch == 0 {
                    return Ok(());
                }
                let mut body = self.heartbeat_body(i, self.members[i].epoch);
                let change = self.dice.weighted(&[5, 3, 1, 3]);
                if change == 0 {
                    let subs = self.random_subscription();
                    self.members[i].subscription = subs.clone();
                    body["subscribedTopicNames"] = json!(subs);
                } else if change == 1 {
                    // A new regex, or back to names only (the empty regex).
                    let r = self.random_regex().unwrap_or_default();
                    self.members[i].regex = Some(r.clone());
                    body["subscribedTopicRegex"] = json!(r);
                    if r.is_empty() && self.members[i].subscription.is_empty() {
                        let subs = self.random_subscription();
                        self.members[i].subscription = subs.clone();
                        body["subscribedTopicNames"] = json!(subs);
                    }
                } else if change == 2 {
                    // Refused (INVALID_REGULAR_EXPRESSION): the member keeps what it had.
                    body["subscribedTopicRegex"] =
                        json!(self.dice.pick(&INVALID_REGEXES).to_string());
                } else {
                    let a = self.random_assignor();
                    self.members[i].assignor = a.clone();
                    if let Some(a) = a {
                        body["serverAssignor"] = json!(a);
                    }
                }
                if self.dice.chance(0.3) {
                    body["rackId"] = json!(self.dice.pick(&["r1", "r2"]).to_string());
                }
                self.send_heartbeat(i, body, false)
            }
            8 if live.is_empty() => Ok(()),
            8 => {
                let i = *self.dice.pick(&live);
                let m = &self.members[i];
                let mut epoch = m.epoch;
                if self.dice.chance(0.2) {
                    epoch = m.previous_epoch;
                }
                let topic = self.dice.pick(&TOPICS).to_string();
                let parts: Vec<Value> = (0..self.dice.int(1, 3))
                    .map(|p| json!({"partitionIndex": p, "committedOffset": 10 + p}))
                    .collect();
                let body = json!({"groupId": GROUP, "generationIdOrMemberEpoch": epoch,
                                  "memberId": m.id, "topics": [{"name": topic, "partitions": parts}]});
                let client = format!("client-{}", m.id);
                self.s.request("OffsetCommit", 9, body, &client).map(|_| ())
            }
            9 if live.is_empty() => Ok(()),
            9 => {
                let i = *self.dice.pick(&live);
                let m = &self.members[i];
                let body = json!({"groups": [{"groupId": GROUP, "memberId": m.id,
                                              "memberEpoch": m.epoch, "topics": null}]});
                let client = format!("client-{}", m.id);
                self.s.request("OffsetFetch", 9, body, &client).map(|_| ())
            }
            10 => self
                .s
                .request(
                    "ConsumerGroupDescribe",
                    1,
                    json!({"groupIds": [GROUP], "includeAuthorizedOperations": false}),
                    "admin",
                )
                .map(|_| ()),
            11 if live.is_empty() => Ok(()),
            11 => {
                let i = *self.dice.pick(&live);
                if self.members[i].epoch == 0 {
                    return Ok(());
                }
                match self.dice.weighted(&[3, 2, 1]) {
                    0 => {
                        // The response is lost: the member keeps its epoch and owned partitions.
                        let epoch = self.members[i].epoch;
                        let body = self.heartbeat_body(i, epoch);
                        self.send_heartbeat(i, body, true)
                    }
                    1 => {
                        let epoch = self.members[i].previous_epoch;
                        let body = self.heartbeat_body(i, epoch);
                        self.send_heartbeat(i, body, false)
                    }
                    _ => {
                        let epoch = self.members[i].epoch + 1;
                        let body = self.heartbeat_body(i, epoch);
                        self.send_heartbeat(i, body, false)
                    }
                }
            }
            12 => {
                let t = self.dice.pick(&TOPICS).to_string();
                let grow = self.topics.get(&t).copied().unwrap_or(0) + self.dice.int(1, 3) as i32;
                self.topics.insert(t, grow.min(8));
                let topics = self.topics.clone();
                self.s.metadata(&topics).map(|_| ())
            }
            13 => {
                let session = *self.dice.pick(&[45_000, 50_000, 60_000]);
                let hb = *self.dice.pick(&[5000, 8000]);
                let interval = *self.dice.pick(&[0, 1000, 3000]);
                self.s
                    .group_config(
                        GROUP,
                        json!({"consumer.session.timeout.ms": session.to_string(),
                               "consumer.heartbeat.interval.ms": hb.to_string(),
                               "consumer.assignment.interval.ms": interval.to_string()}),
                    )
                    .map(|_| ())
            }
            15 => self.classic.step(self.s, &self.topics),
            _ => {
                let body = match self.dice.index(5) {
                    4 => json!({"groupId": GROUP, "memberId": "x", "memberEpoch": 0,
                                "rebalanceTimeoutMs": 5000, "topicPartitions": [],
                                "subscribedTopicRegex": self.dice.pick(&INVALID_REGEXES).to_string()}),
                    0 => json!({"groupId": GROUP, "memberId": "", "memberEpoch": 1}),
                    1 => json!({"groupId": GROUP, "memberId": "x", "memberEpoch": 0,
                                "rebalanceTimeoutMs": 5000, "topicPartitions": []}),
                    2 => json!({"groupId": GROUP, "memberId": "x", "memberEpoch": 1,
                                "serverAssignor": "sticky"}),
                    _ => json!({"groupId": GROUP, "memberId": "x", "memberEpoch": -3}),
                };
                self.s
                    .request("ConsumerGroupHeartbeat", 1, body, "rude")
                    .map(|_| ())
            }
        }
    }

    fn run(&mut self, steps: usize) -> Result<(), String> {
        let interval = *self.dice.pick(&[0, 0, 1000, 2000]);
        self.s.config(json!({
            "group.consumer.assignment.interval.ms": interval,
            "offsets.retention.check.interval.ms": 3_600_000,
        }))?;
        for t in ["foo", "bar"] {
            self.topics
                .insert(t.to_string(), self.dice.int(1, 6) as i32);
        }
        if self.dice.chance(0.5) {
            self.topics
                .insert("zar".to_string(), self.dice.int(1, 4) as i32);
        }
        if self.classic_weight > 0 {
            let n = self.classic.dice().int(1, 4) as i32;
            self.topics.insert(CLASSIC_TOPIC.to_string(), n);
        }
        let topics = self.topics.clone();
        self.s.metadata(&topics)?;
        // A migration conversation may start as a classic group, upgraded by the first
        // consumer-protocol join.
        let classic_first = if self.classic_weight > 0 && self.classic.dice().chance(0.6) {
            self.classic.dice().int(4, 30)
        } else {
            0
        };
        for _ in 0..classic_first {
            let pause = self.classic.dice().int(0, 1500);
            self.s.advance(pause);
            self.classic.step(self.s, &self.topics)?;
        }
        for _ in 0..steps {
            self.s.advance(self.dice.int(0, 400));
            self.step()?;
        }
        Ok(())
    }
}

/// Writes one consumer-group script of about `steps` actions for `seed`, running each line through
/// `driver`. Returns the lines, and the driver's error if a line could not run.
pub fn generate(
    seed: u64,
    steps: usize,
    driver: &mut dyn Driver,
) -> (Vec<String>, Result<(), String>) {
    let mut session = Session::new(driver);
    let mut classic = Clients::for_migration(seed, CLASSIC_TOPIC);
    // Two conversations in five bring classic consumers into the group.
    let classic_weight = if classic.dice().chance(0.4) { 25 } else { 0 };
    let result = {
        let mut generator = Gen {
            s: &mut session,
            dice: Dice::new(seed, 3),
            topics: BTreeMap::new(),
            members: Vec::new(),
            next_member: 0,
            classic,
            classic_weight,
        };
        generator.run(steps)
    };
    (session.lines, result)
}

//! The run's one ordered event log: every event carries its simulated time, the host it happened
//! on and what happened — a client model's event, a broker's or the controller's event, a record
//! that became committed in an offsets partition, an injected or healed fault, or a step of the
//! harness itself.
//!
//! Events are appended in the order they happen on the simulator's single thread. Within one
//! turmoil step the hosts run one after the other, each up to the end of the tick, so times of
//! consecutive events from different hosts may go back by less than one tick.

use std::fmt::Write as _;

use coordinator::Record;
use members::observer::{
    ClientRef, EventKind as ClientKind, RequestFailure, TaskId, TopicPartition,
};
use serde::Serialize;
use serde_json::{Value, json};

use crate::faults::FaultKind;

/// One entry of the log.
#[derive(Debug, Clone)]
pub struct SimEvent {
    /// Position in the log, from 0.
    pub seq: u64,
    /// Simulated milliseconds since the start of the run.
    pub at_ms: i64,
    pub host: String,
    pub kind: SimEventKind,
}

/// What happened.
#[derive(Debug, Clone)]
pub enum SimEventKind {
    /// A client model's event (a streams member thread, a classic consumer, an admin client).
    Client {
        client: ClientRef,
        member_id: String,
        kind: ClientKind,
    },
    /// A broker's or the controller's event; `node` is its node id.
    Cluster {
        node: i32,
        kind: coordinator::events::EventKind,
    },
    /// A record of `__consumer_offsets` partition `partition` at `offset` became committed (the
    /// high watermark of some replica passed it). `batch` is the offset of its batch (one
    /// coordinator write).
    Record {
        partition: i32,
        offset: i64,
        batch: i64,
        record: Record,
    },
    Fault(FaultEvent),
    Harness(HarnessEvent),
}

/// A fault starting or ending, with the hosts it resolved to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "phase"
)]
pub enum FaultEvent {
    Injected {
        window: usize,
        fault: &'static str,
        hosts: Vec<String>,
        spec: FaultKind,
    },
    Healed {
        window: usize,
        fault: &'static str,
        hosts: Vec<String>,
    },
    /// A window's fault could not be injected (e.g. the group has no coordinator yet).
    Skipped {
        window: usize,
        fault: &'static str,
        reason: String,
    },
    /// The last window ended: every link repaired and released, every host running, heartbeats
    /// resumed.
    AllHealed { restarted: Vec<String> },
}

/// The harness's own milestones.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "harness"
)]
pub enum HarnessEvent {
    /// The scenario's topics exist; member processes start.
    TopicsCreated { topics: Vec<String> },
    /// A member process started (incarnation counts restarts from 1).
    ProcessStarted { process: String, incarnation: u64 },
    /// A process finished its graceful stop.
    ProcessStopped { process: String },
    /// The liveness phase began: every group must converge by `deadline_ms`.
    LivenessPhase { deadline_ms: i64 },
    /// A group converged.
    Converged { group: String, epoch: i32 },
    /// `regroup drive`'s observer described a group otherwise than the last time: its state, its
    /// epochs (streams: group and target assignment epoch; classic: -1, DescribeGroups has no
    /// generation) and how many members it has. Never logged by the simulator.
    GroupDescribed {
        group: String,
        state: String,
        epoch: i32,
        assignment_epoch: i32,
        members: usize,
    },
    /// The admin client's answer to a [`crate::faults::GroupAdminCall`] on `group`.
    AdminAnswered {
        group: String,
        call: &'static str,
        answer: AdminAnswer,
    },
}

/// What a group administration call answered; error codes by Kafka's name (`NONE`, ...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(
    rename_all = "camelCase",
    rename_all_fields = "camelCase",
    tag = "answer"
)]
pub enum AdminAnswer {
    /// The call failed as a whole (a non-retriable group error, or its timeout passed).
    Failed {
        reason: String,
    },
    Described(DescribedGroupView),
    /// Every group the brokers list, sorted by group id.
    Listed {
        groups: Vec<ListedGroupView>,
    },
    /// Committed offsets by partition (`topic-partition`), sorted; -1 = none.
    Offsets {
        offsets: Vec<(String, i64)>,
    },
    /// OffsetDelete's group error and each partition's.
    OffsetsDeleted {
        error: &'static str,
        partitions: Vec<(String, &'static str)>,
    },
    /// Each partition's error of an offset alteration.
    OffsetsAltered {
        partitions: Vec<(String, &'static str)>,
    },
    /// DeleteGroups' per-group error.
    Deleted {
        error: &'static str,
    },
    /// The response to script line `line` of a scripted call (sim/src/rude.rs): Kafka's JSON
    /// form at the request's version, compact, member ids the script learned named `$gen:L`.
    Scripted {
        line: usize,
        response: String,
    },
    /// Script line `line` got no response (no coordinator, a version the broker does not serve,
    /// a body that is not the api's).
    ScriptedFailed {
        line: usize,
        reason: String,
    },
}

/// A described group: DescribeGroups (classic: the epochs are -1, it has no generation field),
/// StreamsGroupDescribe or ConsumerGroupDescribe (`epoch` is the group epoch, `assignment_epoch`
/// the target assignment's).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedGroupView {
    /// `classic` (DescribeGroups), `streams` (StreamsGroupDescribe) or `consumer`
    /// (ConsumerGroupDescribe, drive's observer only).
    pub group_type: &'static str,
    pub error: &'static str,
    pub state: String,
    /// Classic: the protocol type and the chosen protocol; streams: empty.
    pub protocol_type: String,
    pub protocol: String,
    pub epoch: i32,
    pub assignment_epoch: i32,
    /// Sorted by instance id, then member id.
    pub members: Vec<DescribedMemberView>,
}

/// One described member and what it is assigned: partitions `topic-p` (classic, decoded from the
/// assignment bytes) or active tasks `subtopology_partition` (streams), sorted.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DescribedMemberView {
    pub instance_id: Option<String>,
    pub member_id: String,
    /// The member epoch (streams; -1 for classic members).
    pub epoch: i32,
    pub assigned: Vec<String>,
}

/// One ListGroups row.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedGroupView {
    pub group_id: String,
    pub group_type: String,
    pub protocol_type: String,
    pub state: String,
}

impl SimEvent {
    /// The canonical text the trace hash is computed over (deterministic `Debug` forms).
    pub fn write_canonical(&self, out: &mut String) {
        write_canonical_head(out, self.seq, self.at_ms, &self.host);
        let _ = match &self.kind {
            SimEventKind::Client {
                client,
                member_id,
                kind,
            } => {
                write_client_canonical_body(out, client, member_id, kind);
                Ok(())
            }
            SimEventKind::Cluster { node, kind } => write!(out, "n|{node}|{kind:?}"),
            SimEventKind::Record {
                partition,
                offset,
                batch,
                record,
            } => write!(out, "r|{partition}|{offset}|{batch}|{record:?}"),
            SimEventKind::Fault(f) => write!(out, "f|{f:?}"),
            SimEventKind::Harness(h) => write!(out, "h|{h:?}"),
        };
    }

    /// The canonical text of a client event given by parts, exactly as [`Self::write_canonical`]
    /// writes it for a [`SimEventKind::Client`] event (the hub hashes events it does not keep
    /// without copying them into a `SimEvent`).
    pub fn write_client_canonical(
        out: &mut String,
        seq: u64,
        at_ms: i64,
        host: &str,
        client: &ClientRef,
        member_id: &str,
        kind: &ClientKind,
    ) {
        write_canonical_head(out, seq, at_ms, host);
        write_client_canonical_body(out, client, member_id, kind);
    }

    /// One line of `--trace`.
    pub fn to_json(&self) -> Value {
        let mut v = json!({
            "seq": self.seq,
            "atMs": self.at_ms,
            "host": self.host,
        });
        let extra = match &self.kind {
            SimEventKind::Client {
                client,
                member_id,
                kind,
            } => {
                let mut o = json!({
                    "source": "client",
                    "client": client.name,
                    "group": client.group_id,
                    "memberId": member_id,
                });
                if let Some(i) = &client.instance_id {
                    o["instanceId"] = json!(i);
                }
                if !client.process_id.is_empty() {
                    o["processId"] = json!(client.process_id);
                }
                merge(&mut o, client_kind_json(kind));
                o
            }
            SimEventKind::Cluster { node, kind } => {
                let mut o = json!({"source": "cluster", "node": node});
                merge(&mut o, serde_json::to_value(kind).unwrap_or(Value::Null));
                o
            }
            SimEventKind::Record {
                partition,
                offset,
                batch,
                record,
            } => json!({
                "source": "record",
                "partition": partition,
                "offset": offset,
                "batch": batch,
                "record": record.to_json(),
            }),
            SimEventKind::Fault(f) => {
                let mut o = json!({"source": "fault"});
                merge(&mut o, serde_json::to_value(f).unwrap_or(Value::Null));
                o
            }
            SimEventKind::Harness(h) => {
                let mut o = json!({"source": "harness"});
                merge(&mut o, serde_json::to_value(h).unwrap_or(Value::Null));
                o
            }
        };
        merge(&mut v, extra);
        v
    }
}

// The canonical text is written without `core::fmt` where that is simple (the head, and the two
// client events that are most of a run's events, `RequestSent` and `ResponseReceived`), byte for
// byte as `write!` and the derived `Debug` write it: formatting was about a tenth of a simulated
// run's instructions (callgrind). The test `the_canonical_text_is_the_debug_text` compares the two.

fn write_canonical_head(out: &mut String, seq: u64, at_ms: i64, host: &str) {
    out.clear();
    push_int(out, seq);
    out.push('|');
    push_int(out, at_ms);
    out.push('|');
    out.push_str(host);
    out.push('|');
}

fn push_int(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// `{s:?}`: quoted, and escaped where `Debug` escapes (text with anything other than printable
/// ASCII, a double quote or a backslash is left to `Debug` itself).
fn push_debug_str(out: &mut String, s: &str) {
    if s.bytes()
        .all(|b| (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\')
    {
        out.push('"');
        out.push_str(s);
        out.push('"');
    } else {
        let _ = write!(out, "{s:?}");
    }
}

fn write_client_canonical_body(
    out: &mut String,
    client: &ClientRef,
    member_id: &str,
    kind: &ClientKind,
) {
    out.push_str("c|");
    out.push_str(&client.name);
    out.push('|');
    out.push_str(member_id);
    out.push('|');
    match kind {
        ClientKind::RequestSent {
            broker,
            api,
            version,
            correlation_id,
        } => {
            out.push_str("RequestSent { broker: ");
            push_debug_str(out, broker);
            out.push_str(", api: ");
            out.push_str(api.name());
            out.push_str(", version: ");
            push_int(out, *version);
            out.push_str(", correlation_id: ");
            push_int(out, *correlation_id);
            out.push_str(" }");
        }
        ClientKind::ResponseReceived {
            broker,
            api,
            correlation_id,
            error,
        } => {
            out.push_str("ResponseReceived { broker: ");
            push_debug_str(out, broker);
            out.push_str(", api: ");
            out.push_str(api.name());
            out.push_str(", correlation_id: ");
            push_int(out, *correlation_id);
            match error {
                None => out.push_str(", error: None }"),
                Some(e) => {
                    let _ = write!(out, ", error: Some({e:?}) }}");
                }
            }
        }
        _ => {
            let _ = write!(out, "{kind:?}");
        }
    }
}

fn merge(into: &mut Value, from: Value) {
    if let (Value::Object(a), Value::Object(b)) = (into, from) {
        for (k, v) in b {
            a.insert(k, v);
        }
    }
}

fn tasks(t: &[TaskId]) -> Value {
    Value::Array(t.iter().map(|t| json!(t.to_string())).collect())
}

fn tps(t: &[TopicPartition]) -> Value {
    Value::Array(t.iter().map(|t| json!(t.to_string())).collect())
}

fn offsets(o: &[(TopicPartition, i64)]) -> Value {
    let mut m = serde_json::Map::new();
    for (tp, off) in o {
        m.insert(tp.to_string(), json!(off));
    }
    Value::Object(m)
}

fn failure(f: &RequestFailure) -> String {
    f.to_string()
}

/// The JSON form of a client model's event: `{"event": <name>, ...fields}`.
pub fn client_kind_json(kind: &ClientKind) -> Value {
    use ClientKind as K;
    let err = |e: &Option<protocol::ErrorCode>| e.map(|e| e.name());
    match kind {
        K::Connected { broker } => json!({"event": "connected", "broker": broker}),
        K::ConnectFailed { broker, error } => {
            json!({"event": "connect_failed", "broker": broker, "error": error})
        }
        K::Disconnected { broker, reason } => {
            json!({"event": "disconnected", "broker": broker, "reason": reason})
        }
        K::RequestSent {
            broker,
            api,
            version,
            correlation_id,
        } => json!({"event": "request_sent", "broker": broker, "api": api.name(),
                    "version": version, "correlationId": correlation_id}),
        K::ResponseReceived {
            broker,
            api,
            correlation_id,
            error,
        } => json!({"event": "response_received", "broker": broker, "api": api.name(),
                    "correlationId": correlation_id, "error": err(error)}),
        K::RequestFailed {
            broker,
            api,
            correlation_id,
            failure: f,
        } => json!({"event": "request_failed", "broker": broker, "api": api.name(),
                    "correlationId": correlation_id, "failure": failure(f)}),
        K::CoordinatorFound { node_id, broker } => {
            json!({"event": "coordinator_found", "nodeId": node_id, "broker": broker})
        }
        K::CoordinatorUnknown { reason } => {
            json!({"event": "coordinator_unknown", "reason": reason})
        }
        K::StateChanged { from, to } => json!({"event": "state_changed", "from": from, "to": to}),
        K::Joined { epoch } => json!({"event": "joined", "epoch": epoch}),
        K::EpochChanged { from, to } => json!({"event": "epoch_changed", "from": from, "to": to}),
        K::TasksAcquired {
            active,
            standby,
            warmup,
        } => json!({"event": "tasks_acquired", "active": tasks(active),
                    "standby": tasks(standby), "warmup": tasks(warmup)}),
        K::TasksRevoked {
            active,
            standby,
            warmup,
        } => json!({"event": "tasks_revoked", "active": tasks(active),
                    "standby": tasks(standby), "warmup": tasks(warmup)}),
        K::TasksLost {
            active,
            standby,
            warmup,
        } => json!({"event": "tasks_lost", "active": tasks(active),
                    "standby": tasks(standby), "warmup": tasks(warmup)}),
        K::AssignmentReceived {
            epoch,
            active,
            standby,
            warmup,
        } => json!({"event": "assignment_received", "epoch": epoch, "active": tasks(active),
                    "standby": tasks(standby), "warmup": tasks(warmup)}),
        K::OwnedTasks {
            epoch,
            active,
            standby,
            warmup,
        } => json!({"event": "owned_tasks", "epoch": epoch, "active": tasks(active),
                    "standby": tasks(standby), "warmup": tasks(warmup)}),
        K::PartitionsAssigned { partitions } => {
            json!({"event": "partitions_assigned", "partitions": tps(partitions)})
        }
        K::PartitionsRevoked { partitions } => {
            json!({"event": "partitions_revoked", "partitions": tps(partitions)})
        }
        K::PartitionsLost { partitions } => {
            json!({"event": "partitions_lost", "partitions": tps(partitions)})
        }
        K::OwnedPartitions {
            generation,
            partitions,
        } => json!({"event": "owned_partitions", "generation": generation,
                    "partitions": tps(partitions)}),
        K::CommitAccepted { epoch, offsets: o } => {
            json!({"event": "commit_accepted", "epoch": epoch, "offsets": offsets(o)})
        }
        K::CommitRejected {
            epoch,
            error,
            partitions,
        } => json!({"event": "commit_rejected", "epoch": epoch, "error": error.name(),
                    "partitions": tps(partitions)}),
        K::CommitFailed { epoch, reason } => {
            json!({"event": "commit_failed", "epoch": epoch, "reason": reason})
        }
        K::OffsetsFetched { offsets: o } => {
            json!({"event": "offsets_fetched", "offsets": offsets(o)})
        }
        K::Fenced { error, epoch } => {
            json!({"event": "fenced", "error": error.name(), "epoch": epoch})
        }
        K::Fatal { error, message } => {
            json!({"event": "fatal", "error": err(error), "message": message})
        }
        K::Statuses { statuses } => json!({"event": "statuses", "statuses":
            statuses.iter().map(|(c, d)| json!({"code": c, "detail": d})).collect::<Vec<_>>()}),
        K::EndpointsUpdated { epoch, endpoints } => json!({"event": "endpoints_updated",
            "epoch": epoch, "endpoints": endpoints.iter().map(|e| json!({
                "host": e.host, "port": e.port, "active": tps(&e.active), "standby": tps(&e.standby)
            })).collect::<Vec<_>>()}),
        K::LeaveSent { epoch } => json!({"event": "leave_sent", "epoch": epoch}),
        K::Stopped { graceful } => json!({"event": "stopped", "graceful": graceful}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use members::observer::ClientKind as Kind;
    use protocol::{Api, ErrorCode};

    fn debug_text(
        seq: u64,
        at_ms: i64,
        host: &str,
        c: &ClientRef,
        m: &str,
        k: &ClientKind,
    ) -> String {
        format!("{seq}|{at_ms}|{host}|c|{}|{m}|{k:?}", c.name)
    }

    #[test]
    fn the_canonical_text_is_the_debug_text() {
        let client = ClientRef {
            kind: Kind::StreamsMember,
            name: "app-1-t0".into(),
            group_id: "app".into(),
            instance_id: None,
            process_id: "p".into(),
        };
        let brokers = [
            "broker-1", "", "b\"q", "b\\s", "tab\t", "é", "x\u{301}", "a'b", "~ !",
        ];
        let mut kinds = Vec::new();
        for broker in brokers {
            for api in Api::ALL {
                for (n, error) in [
                    (0, None),
                    (-1, Some(ErrorCode::NotCoordinator)),
                    (i32::MAX, Some(ErrorCode::None)),
                ] {
                    kinds.push(ClientKind::RequestSent {
                        broker: broker.into(),
                        api,
                        version: n as i16,
                        correlation_id: n,
                    });
                    kinds.push(ClientKind::ResponseReceived {
                        broker: broker.into(),
                        api,
                        correlation_id: n,
                        error,
                    });
                }
            }
            kinds.push(ClientKind::Connected {
                broker: broker.into(),
            });
        }
        let mut out = String::new();
        for (seq, at_ms) in [(0, 0), (u64::MAX, i64::MIN), (17, -5)] {
            for kind in &kinds {
                SimEvent::write_client_canonical(
                    &mut out, seq, at_ms, "host-1", &client, "m-1", kind,
                );
                assert_eq!(out, debug_text(seq, at_ms, "host-1", &client, "m-1", kind));
            }
        }
    }
}

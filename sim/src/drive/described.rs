//! What `regroup drive` knows of the coordinator's state: what an admin client can ask. The
//! simulator rebuilds the committed group state from the brokers' logs ([`crate::model`]); drive
//! cannot read a real broker's log, so its observer describes every group of the scenario
//! (StreamsGroupDescribe, ConsumerGroupDescribe, DescribeGroups), finds each group's coordinator (FindCoordinator) and
//! reads the topics' partition counts (Metadata), a few times a second, and turns the answers into
//! the same [`Model`] so that the convergence check and the final summary run unchanged
//! ([`crate::invariants::convergence::check`], [`crate::runner::summarize`]).
//!
//! What a description does not carry is filled in from the clients or left out, and said so:
//! * a classic group's generation (DescribeGroups has none): the highest generation its live
//!   clients report; the group must be described `Stable` to count as converged;
//! * a streams member's state (StreamsGroupDescribe has its assignment and its target, not its
//!   reconciliation state): STABLE when the two are equal and its epoch is the assignment epoch,
//!   UNREVOKED_TASKS otherwise; tasks pending revocation are not shown;
//! * a consumer-protocol member's state likewise (ConsumerGroupDescribe has its assigned
//!   partitions and its target, not its state nor the partitions pending revocation): STABLE
//!   when the two are equal and its epoch is the assignment epoch, UNREVOKED_PARTITIONS
//!   otherwise; topic names come with the partitions' topic ids;
//! * histories, offsets and commit writes: none (the checks that need them stand down in drive).

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::time::Duration;

use coordinator::records::consumer::{
    ConsumerGroupCurrentMemberAssignmentValue, ConsumerGroupMemberMetadataValue,
    CurrentTopicPartitions,
};
use coordinator::records::streams::{
    Endpoint, KeyValue, StreamsGroupCurrentMemberAssignmentValue, StreamsGroupMemberMetadataValue,
    StreamsGroupTopologyValue, Subtopology, TaskIds, TopicInfo,
};
use coordinator::rpc::RpcClient;
use members::admin::{Admin, AdminConfig};
use members::observer::ClientKind;
use protocol::messages::consumer_group_describe_response::{
    self as cgd, DescribedGroup as DescribedConsumerGroup,
};
use protocol::messages::describe_groups_response::DescribedGroup as DescribedClassicGroup;
use protocol::messages::streams_group_describe_response::{
    self as sgd, DescribedGroup as DescribedStreamsGroup,
};
use protocol::messages::{FindCoordinatorRequest, MetadataRequest, StrBytes};
use protocol::{Request, Response};
use rand::SeedableRng;

use super::net::DriveNet;
use crate::consumer_model::{ConsumerGroup, ConsumerMember};
use crate::event::{DescribedGroupView, DescribedMemberView};
use crate::hub::Hub;
use crate::invariants::{Checker, answers};
use crate::model::{ClassicGroup, ClassicMember, Model, StreamsGroup, StreamsMember};

/// What protocol a group of the scenario speaks, hence how the observer describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupKind {
    /// StreamsGroupDescribe (KIP-1071).
    Streams,
    /// DescribeGroups.
    Classic,
    /// ConsumerGroupDescribe (KIP-848).
    Consumer,
}

/// The last answers of every kind.
#[derive(Debug, Default)]
pub struct Observed {
    /// Broker node id -> advertised `host:port`.
    pub brokers: BTreeMap<i32, String>,
    /// Topic -> partition count.
    pub partitions: BTreeMap<String, i32>,
    /// Group -> the node id of its coordinator.
    pub coordinators: BTreeMap<String, i32>,
    pub streams: BTreeMap<String, DescribedStreamsGroup>,
    pub classic: BTreeMap<String, DescribedClassicGroup>,
    pub consumer: BTreeMap<String, DescribedConsumerGroup>,
    /// Completed rounds (every group described once per round).
    pub rounds: u64,
    /// The last error of the last round, if any (reports).
    pub last_error: Option<String>,
}

fn s(text: &StrBytes) -> String {
    text.to_string()
}

fn task_ids(list: &[sgd::TaskIds]) -> Vec<TaskIds> {
    let mut v: Vec<TaskIds> = list
        .iter()
        .map(|t| TaskIds {
            subtopology_id: s(&t.subtopology_id),
            partitions: {
                let mut p = t.partitions.clone();
                p.sort();
                p
            },
            assignment_epochs: None,
        })
        .collect();
    v.sort_by(|a, b| a.subtopology_id.cmp(&b.subtopology_id));
    v
}

fn topic_info(list: &[sgd::TopicInfo]) -> Vec<TopicInfo> {
    list.iter()
        .map(|t| TopicInfo {
            name: t.name.to_string(),
            partitions: t.partitions,
            replication_factor: t.replication_factor,
            topic_configs: t
                .topic_configs
                .iter()
                .map(|kv| KeyValue {
                    key: s(&kv.key),
                    value: s(&kv.value),
                })
                .collect(),
        })
        .collect()
}

fn topology(t: &sgd::Topology) -> StreamsGroupTopologyValue {
    StreamsGroupTopologyValue {
        epoch: t.epoch,
        subtopologies: t
            .subtopologies
            .iter()
            .flatten()
            .map(|st| Subtopology {
                subtopology_id: s(&st.subtopology_id),
                source_topics: st.source_topics.iter().map(|n| n.to_string()).collect(),
                source_topic_regex: Vec::new(),
                state_changelog_topics: topic_info(&st.state_changelog_topics),
                repartition_sink_topics: st
                    .repartition_sink_topics
                    .iter()
                    .map(|n| n.to_string())
                    .collect(),
                repartition_source_topics: topic_info(&st.repartition_source_topics),
                copartition_groups: Vec::new(),
            })
            .collect(),
    }
}

/// A streams group as described.
pub fn streams_group(d: &DescribedStreamsGroup) -> StreamsGroup {
    let mut g = StreamsGroup {
        exists: d.error_code == 0 && d.group_state.as_str() != "Dead",
        epoch: d.group_epoch,
        assignment_epoch: d.assignment_epoch,
        topology: d.topology.as_ref().map(topology),
        ..StreamsGroup::default()
    };
    for m in &d.members {
        let active = task_ids(&m.assignment.active_tasks);
        let standby = task_ids(&m.assignment.standby_tasks);
        let warmup = task_ids(&m.assignment.warmup_tasks);
        let settled = active == task_ids(&m.target_assignment.active_tasks)
            && standby == task_ids(&m.target_assignment.standby_tasks)
            && warmup == task_ids(&m.target_assignment.warmup_tasks)
            && m.member_epoch == d.assignment_epoch;
        let member = StreamsMember {
            metadata: Some(StreamsGroupMemberMetadataValue {
                instance_id: m.instance_id.as_ref().map(s),
                rack_id: m.rack_id.as_ref().map(s),
                client_id: s(&m.client_id),
                client_host: s(&m.client_host),
                rebalance_timeout_ms: 0,
                topology_epoch: m.topology_epoch,
                process_id: s(&m.process_id),
                user_endpoint: m.user_endpoint.as_ref().map(|e| Endpoint {
                    host: s(&e.host),
                    port: e.port,
                }),
                client_tags: Vec::new(),
            }),
            assignment: Some(StreamsGroupCurrentMemberAssignmentValue {
                member_epoch: m.member_epoch,
                previous_member_epoch: -1,
                // MemberState: 1 STABLE, 2 UNREVOKED_TASKS (see the module documentation).
                state: if settled { 1 } else { 2 },
                active_tasks: active,
                standby_tasks: standby,
                warmup_tasks: warmup,
                active_tasks_pending_revocation: Vec::new(),
                standby_tasks_pending_revocation: Vec::new(),
                warmup_tasks_pending_revocation: Vec::new(),
            }),
        };
        g.members.insert(s(&m.member_id), member);
    }
    g
}

/// A classic group as described; `generation`: the highest its live clients report.
pub fn classic_group(d: &DescribedClassicGroup, generation: i32) -> ClassicGroup {
    let mut members: Vec<ClassicMember> = d
        .members
        .iter()
        .map(|m| ClassicMember {
            member_id: s(&m.member_id),
            instance_id: m.group_instance_id.as_ref().map(s),
            partitions: members::classic::protocol::decode_assignment(&m.member_assignment)
                .unwrap_or_default(),
            session_timeout_ms: 0,
        })
        .collect();
    members.sort_by(|a, b| a.member_id.cmp(&b.member_id));
    ClassicGroup {
        exists: d.error_code == 0 && !matches!(d.group_state.as_str(), "Dead" | ""),
        generation,
        protocol_type: s(&d.protocol_type),
        members,
        ..ClassicGroup::default()
    }
}

/// A described consumer group's partitions, by topic id, sorted (with the topic names they
/// carry into `names`).
fn consumer_partitions(
    a: &cgd::Assignment,
    names: &mut BTreeMap<uuid::Uuid, String>,
) -> Vec<CurrentTopicPartitions> {
    let mut v: Vec<CurrentTopicPartitions> = a
        .topic_partitions
        .iter()
        .map(|t| {
            if !t.topic_name.is_empty() {
                names.insert(t.topic_id, t.topic_name.to_string());
            }
            let mut partitions = t.partitions.clone();
            partitions.sort();
            CurrentTopicPartitions {
                topic_id: t.topic_id,
                partitions,
                assignment_epochs: None,
            }
        })
        .filter(|t| !t.partitions.is_empty())
        .collect();
    v.sort_by_key(|t| t.topic_id);
    v
}

/// A consumer-protocol group as described (see the module documentation for the members'
/// states); the topic names its partitions carry go into `names`.
pub fn consumer_group(
    d: &DescribedConsumerGroup,
    names: &mut BTreeMap<uuid::Uuid, String>,
) -> ConsumerGroup {
    let mut g = ConsumerGroup {
        exists: d.error_code == 0 && !matches!(d.group_state.as_str(), "Dead" | ""),
        epoch: d.group_epoch,
        assignment_epoch: d.assignment_epoch,
        ..ConsumerGroup::default()
    };
    for m in &d.members {
        let assigned = consumer_partitions(&m.assignment, names);
        let target = consumer_partitions(&m.target_assignment, names);
        let settled = assigned == target && m.member_epoch == d.assignment_epoch;
        let mut topics: Vec<String> = m
            .subscribed_topic_names
            .iter()
            .map(|t| t.to_string())
            .collect();
        topics.sort();
        let member = ConsumerMember {
            metadata: Some(ConsumerGroupMemberMetadataValue {
                instance_id: m.instance_id.as_ref().map(s),
                rack_id: m.rack_id.as_ref().map(s),
                client_id: s(&m.client_id),
                client_host: s(&m.client_host),
                subscribed_topic_names: topics,
                subscribed_topic_regex: m.subscribed_topic_regex.as_ref().map(s),
                rebalance_timeout_ms: 0,
                server_assignor: None,
                classic_member_metadata: None,
            }),
            assignment: Some(ConsumerGroupCurrentMemberAssignmentValue {
                member_epoch: m.member_epoch,
                previous_member_epoch: -1,
                // MemberState: 0 STABLE, 1 UNREVOKED_PARTITIONS (see the module documentation).
                state: if settled { 0 } else { 1 },
                assigned_partitions: assigned,
                partitions_pending_revocation: Vec::new(),
            }),
        };
        g.targets.insert(
            s(&m.member_id),
            target
                .iter()
                .flat_map(|t| t.partitions.iter().map(|p| (t.topic_id, *p)))
                .collect(),
        );
        g.members.insert(s(&m.member_id), member);
    }
    g
}

/// A consumer group's description in the form the checks of described groups read (members'
/// assigned partitions as `topic-p`, sorted).
pub fn describe_consumer_view(g: &DescribedConsumerGroup) -> DescribedGroupView {
    let mut members: Vec<DescribedMemberView> = g
        .members
        .iter()
        .map(|m| {
            let mut assigned: Vec<String> = m
                .assignment
                .topic_partitions
                .iter()
                .flat_map(|t| {
                    t.partitions
                        .iter()
                        .map(move |p| format!("{}-{p}", t.topic_name.as_str()))
                })
                .collect();
            assigned.sort();
            DescribedMemberView {
                instance_id: m.instance_id.as_ref().map(s),
                member_id: s(&m.member_id),
                epoch: m.member_epoch,
                assigned,
            }
        })
        .collect();
    members.sort();
    let error = protocol::ErrorCode::from_code(g.error_code)
        .unwrap_or(protocol::ErrorCode::UnknownServerError)
        .name();
    DescribedGroupView {
        group_type: "consumer",
        error,
        state: g.group_state.to_string(),
        protocol_type: String::new(),
        protocol: String::new(),
        epoch: g.group_epoch,
        assignment_epoch: g.assignment_epoch,
        members,
    }
}

impl Observed {
    /// The described groups as a [`Model`] (classic generations from `checker`'s live clients).
    pub fn model(&self, checker: &Checker) -> Model {
        let mut model = Model::default();
        for (id, d) in &self.streams {
            model.streams.insert(id.clone(), streams_group(d));
        }
        for (id, d) in &self.classic {
            let generation = checker
                .live_clients()
                .filter(|(_, c)| c.group == *id && c.kind == ClientKind::Consumer)
                .map(|(_, c)| c.epoch)
                .max()
                .unwrap_or(-1);
            model
                .classic
                .insert(id.clone(), classic_group(d, generation));
        }
        for (id, d) in &self.consumer {
            let g = consumer_group(d, &mut model.topic_names);
            model.consumer.insert(id.clone(), g);
        }
        model
    }

    /// Why a classic group with members is not settled at the coordinator (not `Stable`).
    pub fn classic_unsettled(&self, group: &str) -> Option<String> {
        let d = self.classic.get(group)?;
        let state = d.group_state.as_str();
        (!d.members.is_empty() && state != "Stable")
            .then(|| format!("classic group {group} is {state} at the coordinator (described)"))
    }
}

/// How often the observer describes everything.
pub const OBSERVE_EVERY_MS: u64 = 250;

/// The observer's loop: describes every group of `groups` (group id, protocol), finds their
/// coordinators and reads the cluster's metadata, for ever. Each description is also checked by
/// the `coordinator-answers` invariant's rules for described groups (a description never
/// contradicts itself); the answers themselves are not logged (a scenario's check counts the
/// admin answers of its own faults).
pub async fn observe(
    net: DriveNet,
    bootstrap: Vec<String>,
    groups: Vec<(String, GroupKind)>,
    observed: Rc<RefCell<Observed>>,
    hub: Hub,
) {
    let mut config = AdminConfig::new("regroup-drive-observer");
    config.request_timeout_ms = 2_000;
    config.default_api_timeout_ms = 3_000;
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
    let admin = Admin::new(
        net.clone(),
        bootstrap.clone(),
        config,
        "drive-observer",
        &mut rng,
        Rc::new(members::NullObserver),
    );
    let clients: Vec<RpcClient<DriveNet>> = bootstrap
        .iter()
        .map(|b| RpcClient::new(net.clone(), b.clone(), "regroup-drive-observer"))
        .collect();
    // What each group was last described as: (state, epoch, assignment epoch, members).
    let mut last: BTreeMap<String, Described> = BTreeMap::new();
    loop {
        let mut error = None;
        match metadata(&clients).await {
            Ok((brokers, partitions)) => {
                let mut o = observed.borrow_mut();
                o.brokers = brokers;
                o.partitions = partitions;
            }
            Err(e) => error = Some(e),
        }
        for (group, kind) in &groups {
            if let Some(id) = find_coordinator(&clients, group).await {
                observed.borrow_mut().coordinators.insert(group.clone(), id);
            }
            let at_ms = net.elapsed_ms();
            match kind {
                GroupKind::Streams => match admin.describe_streams_group(group).await {
                    Ok(d) => {
                        let view = crate::cluster::describe_streams_view(&d);
                        if let Err(v) = answers::check_described(at_ms, group, &view) {
                            hub.violate(v);
                        }
                        note(&hub, &mut last, group, &view);
                        observed.borrow_mut().streams.insert(group.clone(), d);
                    }
                    Err(e) => error = Some(format!("describe {group}: {e}")),
                },
                GroupKind::Consumer => match admin.describe_consumer_group(group).await {
                    Ok(d) => {
                        let view = describe_consumer_view(&d);
                        if let Err(v) = answers::check_described(at_ms, group, &view) {
                            hub.violate(v);
                        }
                        note(&hub, &mut last, group, &view);
                        observed.borrow_mut().consumer.insert(group.clone(), d);
                    }
                    Err(e) => error = Some(format!("describe {group}: {e}")),
                },
                GroupKind::Classic => match admin.describe_classic_group(group).await {
                    Ok(d) => {
                        let view = crate::cluster::describe_classic_view(&d);
                        if let Err(v) = answers::check_described(at_ms, group, &view) {
                            hub.violate(v);
                        }
                        note(&hub, &mut last, group, &view);
                        observed.borrow_mut().classic.insert(group.clone(), d);
                    }
                    Err(e) => error = Some(format!("describe {group}: {e}")),
                },
            }
        }
        {
            let mut o = observed.borrow_mut();
            o.rounds += 1;
            o.last_error = error;
        }
        tokio::time::sleep(Duration::from_millis(OBSERVE_EVERY_MS)).await;
    }
}

/// (state, epoch, assignment epoch, members) of a description.
type Described = (String, i32, i32, usize);

/// Logs a description that differs from the group's last one (`HarnessEvent::GroupDescribed`).
fn note(hub: &Hub, last: &mut BTreeMap<String, Described>, group: &str, view: &DescribedGroupView) {
    if view.error != "NONE" {
        return;
    }
    let now: Described = (
        view.state.clone(),
        view.epoch,
        view.assignment_epoch,
        view.members.len(),
    );
    if last.get(group) == Some(&now) {
        return;
    }
    last.insert(group.to_string(), now.clone());
    hub.harness(
        "drive",
        crate::event::HarnessEvent::GroupDescribed {
            group: group.to_string(),
            state: now.0,
            epoch: now.1,
            assignment_epoch: now.2,
            members: now.3,
        },
    );
}

/// The cluster's brokers and topics, from the first broker of `clients` that answers.
pub async fn metadata(
    clients: &[RpcClient<DriveNet>],
) -> Result<(BTreeMap<i32, String>, BTreeMap<String, i32>), String> {
    let mut last = String::from("no bootstrap address");
    for c in clients {
        let request = MetadataRequest::default().with_topics(None);
        match c.call(Request::Metadata(request), 9, 3_000).await {
            Ok(Response::Metadata(r)) => {
                let brokers = r
                    .brokers
                    .iter()
                    .map(|b| (b.node_id.0, format!("{}:{}", b.host, b.port)))
                    .collect();
                let partitions = r
                    .topics
                    .iter()
                    .filter(|t| t.error_code == 0)
                    .filter_map(|t| Some((t.name.as_ref()?.to_string(), t.partitions.len() as i32)))
                    .collect();
                return Ok((brokers, partitions));
            }
            Ok(other) => last = format!("{}: unexpected answer {}", c.addr(), other.api()),
            Err(e) => last = format!("{}: {e}", c.addr()),
        }
    }
    Err(last)
}

/// The node id of `group`'s coordinator, per the first broker that answers without error.
async fn find_coordinator(clients: &[RpcClient<DriveNet>], group: &str) -> Option<i32> {
    for c in clients {
        let request = FindCoordinatorRequest::default()
            .with_key(StrBytes::from_string(group.to_string()))
            .with_key_type(0);
        if let Ok(Response::FindCoordinator(r)) =
            c.call(Request::FindCoordinator(request), 3, 2_000).await
            && r.error_code == 0
        {
            return Some(r.node_id.0);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::messages::TopicName;
    use std::collections::BTreeSet;

    fn partitions(topic: uuid::Uuid, name: &str, list: &[i32]) -> cgd::Assignment {
        cgd::Assignment::default().with_topic_partitions(vec![
            cgd::TopicPartitions::default()
                .with_topic_id(topic)
                .with_topic_name(TopicName(StrBytes::from_string(name.into())))
                .with_partitions(list.to_vec()),
        ])
    }

    fn member(id: &str, epoch: i32, owned: &[i32], target: &[i32]) -> cgd::Member {
        let orders = uuid::Uuid::from_u128(7);
        cgd::Member::default()
            .with_member_id(StrBytes::from_string(id.into()))
            .with_member_epoch(epoch)
            .with_assignment(partitions(orders, "orders", owned))
            .with_target_assignment(partitions(orders, "orders", target))
    }

    #[test]
    fn a_described_consumer_group_becomes_the_model_the_convergence_check_reads() {
        // Member a reconciled to the assignment epoch 5; b still owns 4 and 5 at epoch 4.
        let d = DescribedConsumerGroup::default()
            .with_group_state(StrBytes::from_static_str("Reconciling"))
            .with_group_epoch(5)
            .with_assignment_epoch(5)
            .with_members(vec![
                member("a", 5, &[2, 1, 0], &[0, 1, 2]),
                member("b", 4, &[3, 4, 5], &[3]),
            ]);
        let mut names = BTreeMap::new();
        let g = consumer_group(&d, &mut names);
        let orders = uuid::Uuid::from_u128(7);
        assert_eq!(names, BTreeMap::from([(orders, "orders".to_string())]));
        assert!(g.exists);
        assert_eq!((g.epoch, g.assignment_epoch), (5, 5));
        let a = g.members["a"].assignment.as_ref().unwrap();
        assert_eq!((a.member_epoch, a.state), (5, 0));
        assert_eq!(a.assigned_partitions[0].partitions, vec![0, 1, 2]);
        let b = g.members["b"].assignment.as_ref().unwrap();
        assert_eq!((b.member_epoch, b.state), (4, 1));
        assert_eq!(g.targets["b"], BTreeSet::from([(orders, 3)]));
        assert_eq!(g.live_members().count(), 2);
        // The view the description checks read: Reconciling with a member behind is consistent,
        // Stable with one is not.
        let view = describe_consumer_view(&d);
        assert_eq!(
            view.members[0].assigned,
            ["orders-0", "orders-1", "orders-2"]
        );
        assert_eq!(answers::check_described(0, "g", &view), Ok(()));
        let stable = describe_consumer_view(
            &d.clone()
                .with_group_state(StrBytes::from_static_str("Stable")),
        );
        let v = answers::check_described(7, "g", &stable).unwrap_err();
        assert_eq!(v.at_ms, 7);
        assert!(v.detail.contains("member b is at epoch 4"), "{}", v.detail);
        // A group not found (before the first join) does not exist.
        let missing = DescribedConsumerGroup::default().with_error_code(69);
        assert!(!consumer_group(&missing, &mut names).exists);
    }
}

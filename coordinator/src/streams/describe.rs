//! StreamsGroupDescribe v0-1 (Kafka 4.4 `GroupCoordinatorService.streamsGroupDescribe`,
//! `StreamsGroup.asDescribedGroup`, `StreamsGroupMember.asStreamsGroupDescribeMember`).

use protocol::ErrorCode;
use protocol::messages::streams_group_describe_response as d;
use protocol::messages::{
    GroupId, StrBytes, StreamsGroupDescribeRequest, StreamsGroupDescribeResponse, TopicName,
};

use crate::java::java_hash_map_order;
use crate::records::streams::TopicInfo;
use crate::streams::configure::{ConfiguredInternalTopic, ConfiguredTopology};
use crate::streams::group::StreamsGroup;
use crate::streams::member::StreamsGroupMember;
use crate::streams::tasks::{Tasks, TasksTuple};
use crate::streams::topology::StreamsTopology;
use crate::streams::{StreamsEnv, StreamsGroups};

/// Topology description status "not stored" (no plugin is configured in regroup).
const TOPOLOGY_DESCRIPTION_NOT_STORED: i8 = 1;

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

fn task_ids(tasks: &Tasks) -> Vec<d::TaskIds> {
    tasks
        .iter()
        .map(|(sub, parts)| {
            d::TaskIds::default()
                .with_subtopology_id(s(sub))
                .with_partitions(parts.iter().copied().collect())
        })
        .collect()
}

fn assignment(t: &TasksTuple) -> d::Assignment {
    d::Assignment::default()
        .with_active_tasks(task_ids(&t.active))
        .with_standby_tasks(task_ids(&t.standby))
        .with_warmup_tasks(task_ids(&t.warmup))
}

fn task_offsets(
    m: &std::collections::BTreeMap<String, std::collections::BTreeMap<i32, i64>>,
) -> Vec<d::TaskOffset> {
    m.iter()
        .flat_map(|(sub, parts)| {
            parts.iter().map(move |(p, o)| {
                d::TaskOffset::default()
                    .with_subtopology_id(s(sub))
                    .with_partition(*p)
                    .with_offset(*o)
            })
        })
        .collect()
}

fn describe_member(group: &StreamsGroup, m: &StreamsGroupMember) -> d::Member {
    let offsets = group.soft.task_offsets.get(&m.member_id);
    let target = group
        .persistent
        .target_assignment
        .get(&m.member_id)
        .map(assignment)
        .unwrap_or_default();
    let current = TasksTuple {
        active: m.assigned.active_tasks(),
        standby: m.assigned.standby.clone(),
        warmup: m.assigned.warmup.clone(),
    };
    // Client tags are listed in the iteration order of the `HashMap` replay fills in key order.
    let tags = java_hash_map_order(m.client_tags.keys().map(String::as_str))
        .into_iter()
        .map(|k| {
            d::KeyValue::default()
                .with_key(s(k))
                .with_value(s(&m.client_tags[k]))
        })
        .collect();
    d::Member::default()
        .with_member_id(s(&m.member_id))
        .with_member_epoch(m.member_epoch)
        .with_instance_id(m.instance_id.as_deref().map(s))
        .with_rack_id(m.rack_id.as_deref().map(s))
        .with_client_id(s(&m.client_id))
        .with_client_host(s(&m.client_host))
        .with_topology_epoch(m.topology_epoch)
        .with_process_id(s(&m.process_id))
        .with_user_endpoint(m.user_endpoint.as_ref().map(|e| {
            d::Endpoint::default()
                .with_host(s(&e.host))
                .with_port(e.port)
        }))
        .with_client_tags(tags)
        .with_task_offsets(
            offsets
                .map(|o| task_offsets(&o.task_offsets))
                .unwrap_or_default(),
        )
        .with_task_end_offsets(
            offsets
                .map(|o| task_offsets(&o.task_end_offsets))
                .unwrap_or_default(),
        )
        .with_assignment(assignment(&current))
        .with_target_assignment(target)
        .with_is_classic(false)
}

fn configured_topic_info(t: &ConfiguredInternalTopic) -> d::TopicInfo {
    let order = java_hash_map_order(t.topic_configs.iter().map(|(k, _)| k.as_str()));
    d::TopicInfo::default()
        .with_name(TopicName(s(&t.name)))
        .with_partitions(t.partitions)
        .with_replication_factor(t.replication_factor.unwrap_or(0))
        .with_topic_configs(
            order
                .into_iter()
                .filter_map(|k| t.topic_configs.iter().rev().find(|(kk, _)| kk == k))
                .map(|(k, v)| d::KeyValue::default().with_key(s(k)).with_value(s(v)))
                .collect(),
        )
}

fn configured_topology(c: &ConfiguredTopology) -> d::Topology {
    let subs = c
        .subtopologies
        .as_ref()
        .map(|subs| {
            subs.iter()
                .map(|(id, sub)| {
                    d::Subtopology::default()
                        .with_subtopology_id(s(id))
                        .with_source_topics(
                            sub.source_topics.iter().map(|t| TopicName(s(t))).collect(),
                        )
                        .with_repartition_sink_topics(
                            sub.repartition_sink_topics
                                .iter()
                                .map(|t| TopicName(s(t)))
                                .collect(),
                        )
                        .with_repartition_source_topics(
                            sub.repartition_source_topics
                                .values()
                                .map(configured_topic_info)
                                .collect(),
                        )
                        .with_state_changelog_topics(
                            sub.state_changelog_topics
                                .values()
                                .map(configured_topic_info)
                                .collect(),
                        )
                })
                .collect()
        })
        .unwrap_or_default();
    d::Topology::default()
        .with_epoch(c.topology_epoch)
        .with_subtopologies(Some(subs))
}

fn stored_topic_info(t: &TopicInfo) -> d::TopicInfo {
    d::TopicInfo::default()
        .with_name(TopicName(s(&t.name)))
        .with_partitions(t.partitions)
        .with_replication_factor(t.replication_factor)
        .with_topic_configs(
            t.topic_configs
                .iter()
                .map(|kv| {
                    d::KeyValue::default()
                        .with_key(s(&kv.key))
                        .with_value(s(&kv.value))
                })
                .collect(),
        )
}

fn stored_topology(t: &StreamsTopology) -> d::Topology {
    let subs = t
        .subtopologies
        .iter()
        .map(|(id, sub)| {
            let mut sources: Vec<&String> = sub.source_topics.iter().collect();
            sources.sort();
            let mut sinks: Vec<&String> = sub.repartition_sink_topics.iter().collect();
            sinks.sort();
            let mut rep: Vec<d::TopicInfo> = sub
                .repartition_source_topics
                .iter()
                .map(stored_topic_info)
                .collect();
            rep.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
            let mut changelogs: Vec<d::TopicInfo> = sub
                .state_changelog_topics
                .iter()
                .map(stored_topic_info)
                .collect();
            changelogs.sort_by(|a, b| a.name.as_str().cmp(b.name.as_str()));
            d::Subtopology::default()
                .with_subtopology_id(s(id))
                .with_source_topics(sources.into_iter().map(|t| TopicName(s(t))).collect())
                .with_repartition_sink_topics(sinks.into_iter().map(|t| TopicName(s(t))).collect())
                .with_repartition_source_topics(rep)
                .with_state_changelog_topics(changelogs)
        })
        .collect();
    d::Topology::default()
        .with_epoch(t.epoch)
        .with_subtopologies(Some(subs))
}

impl StreamsGroups {
    /// StreamsGroupDescribe.
    pub fn describe(
        &self,
        env: &StreamsEnv<'_>,
        r: &StreamsGroupDescribeRequest,
    ) -> StreamsGroupDescribeResponse {
        let mut invalid = Vec::new();
        let mut described = Vec::new();
        let mut failed = false;
        for group_id in &r.group_ids {
            let id = group_id.as_str();
            if id.is_empty() {
                invalid.push(
                    d::DescribedGroup::default()
                        .with_group_id(GroupId(s("")))
                        .with_error_code(ErrorCode::InvalidGroupId.code()),
                );
                continue;
            }
            let Some(group) = self.groups.get(id) else {
                let message = if env.classic.holds(id) {
                    format!("Group {id} is not a streams group.")
                } else {
                    format!("Group {id} not found.")
                };
                described.push(
                    d::DescribedGroup::default()
                        .with_group_id(group_id.clone())
                        .with_error_code(ErrorCode::GroupIdNotFound.code())
                        .with_error_message(Some(StrBytes::from_string(message))),
                );
                continue;
            };
            let p = &group.persistent;
            // Read at the last committed offset: the configured topology as of the last write.
            let topology = match (&group.soft.committed_configured_topology, &p.topology) {
                (Some(c), _) if c.is_ready() => configured_topology(c),
                (_, Some(t)) => stored_topology(t),
                (_, None) => {
                    // IllegalStateException: the whole read fails for every group of the shard.
                    failed = true;
                    break;
                }
            };
            let effective = env
                .config
                .streams
                .effective(env.config.group_overrides.get(id));
            let assignor = crate::streams::heartbeat::select_assignor(&self.assignors, &effective);
            let mut g = d::DescribedGroup::default()
                .with_group_id(group_id.clone())
                .with_group_state(s(p.state.name()))
                .with_group_epoch(p.group_epoch)
                .with_assignment_epoch(p.assignment_epoch)
                .with_topology(Some(topology))
                .with_members(
                    p.members
                        .values()
                        .map(|m| describe_member(group, m))
                        .collect(),
                )
                .with_assignor_name(Some(s(assignor.name())));
            if r.include_topology_description {
                g.topology_description_status = TOPOLOGY_DESCRIPTION_NOT_STORED;
            }
            described.push(g);
        }
        if failed {
            described = r
                .group_ids
                .iter()
                .filter(|g| !g.as_str().is_empty())
                .map(|g| {
                    d::DescribedGroup::default()
                        .with_group_id(g.clone())
                        .with_error_code(ErrorCode::UnknownServerError.code())
                })
                .collect();
        }
        invalid.extend(described);
        if r.include_authorized_operations {
            // KafkaApis fills them for every described group; a broker without authorizer allows every
            // group operation (the value DescribeGroups reports too).
            for g in invalid.iter_mut().filter(|g| g.error_code == 0) {
                g.authorized_operations = crate::group::ALL_GROUP_OPERATIONS;
            }
        }
        StreamsGroupDescribeResponse::default().with_groups(invalid)
    }
}

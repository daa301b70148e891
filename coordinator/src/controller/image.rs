//! The state a metadata log replays into (Kafka's `MetadataImage` / the controller's timeline
//! maps): broker registrations, topics and partition registrations, finalized features. The
//! controller keeps one as its hard state; every broker keeps one built from the records it
//! fetched.

use std::collections::BTreeMap;

use uuid::Uuid;

use super::records::{Endpoint, FeatureRange, MetadataRecord, NO_LEADER, NO_LEADER_CHANGE};

/// A registered broker (`BrokerRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerRegistration {
    pub id: i32,
    pub epoch: i64,
    pub incarnation_id: Uuid,
    pub endpoints: Vec<Endpoint>,
    pub features: Vec<FeatureRange>,
    pub rack: Option<String>,
    pub fenced: bool,
    pub in_controlled_shutdown: bool,
    pub log_dirs: Vec<Uuid>,
    /// Null after every (re)registration until a heartbeat reports the cordoned directories.
    pub cordoned_log_dirs: Option<Vec<Uuid>>,
}

impl BrokerRegistration {
    /// Registered, unfenced and not in controlled shutdown (`ClusterControlManager.isActive`).
    pub fn is_active(&self) -> bool {
        !self.fenced && !self.in_controlled_shutdown
    }

    /// The endpoint of `listener`, or the first one when `listener` is `None`.
    pub fn endpoint(&self, listener: Option<&str>) -> Option<&Endpoint> {
        match listener {
            Some(name) => self.endpoints.iter().find(|e| e.name == name),
            None => self.endpoints.first(),
        }
    }
}

/// A partition's replicas, ISR, ELR and leadership (`PartitionRegistration`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartitionRegistration {
    pub replicas: Vec<i32>,
    pub isr: Vec<i32>,
    pub elr: Vec<i32>,
    pub last_known_elr: Vec<i32>,
    pub leader: i32,
    pub leader_recovery_state: i8,
    pub leader_epoch: i32,
    pub partition_epoch: i32,
}

/// One topic.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TopicImage {
    pub name: String,
    pub id: Uuid,
    pub partitions: BTreeMap<i32, PartitionRegistration>,
}

/// A record the image could not apply (the controller never writes one; a broker logs and skips).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot apply {record} at offset {offset}: {reason}")]
pub struct ImageError {
    pub record: &'static str,
    pub offset: i64,
    pub reason: String,
}

/// Everything the metadata log says, as of `last_offset`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MetadataImage {
    pub brokers: BTreeMap<i32, BrokerRegistration>,
    /// Offset of each broker's current `RegisterBrokerRecord` (the catch-up test compares to it).
    pub register_offsets: BTreeMap<i32, i64>,
    pub topics: BTreeMap<String, TopicImage>,
    topic_names: BTreeMap<Uuid, String>,
    pub features: BTreeMap<String, i16>,
    /// Offset of the last applied record; -1 before any.
    pub last_offset: i64,
}

/// (topic id, partition) in the order the controller walks partitions.
pub type TopicIdPartition = (Uuid, i32);

impl MetadataImage {
    pub fn new() -> Self {
        Self {
            last_offset: -1,
            ..Self::default()
        }
    }

    /// Applies the record at `offset`.
    pub fn apply(&mut self, offset: i64, record: &MetadataRecord) -> Result<(), ImageError> {
        let fail = |reason: String| ImageError {
            record: record.type_name(),
            offset,
            reason,
        };
        match record {
            MetadataRecord::FeatureLevel {
                name,
                feature_level,
            } => {
                self.features.insert(name.clone(), *feature_level);
            }
            MetadataRecord::RegisterBroker {
                broker_id,
                incarnation_id,
                broker_epoch,
                end_points,
                features,
                rack,
                fenced,
                in_controlled_shutdown,
                log_dirs,
            } => {
                self.register_offsets.insert(*broker_id, offset);
                self.brokers.insert(
                    *broker_id,
                    BrokerRegistration {
                        id: *broker_id,
                        epoch: *broker_epoch,
                        incarnation_id: *incarnation_id,
                        endpoints: end_points.clone(),
                        features: features.clone(),
                        rack: rack.clone(),
                        fenced: *fenced,
                        in_controlled_shutdown: *in_controlled_shutdown,
                        log_dirs: log_dirs.clone(),
                        cordoned_log_dirs: None,
                    },
                );
            }
            MetadataRecord::BrokerRegistrationChange {
                broker_id,
                broker_epoch,
                fenced,
                in_controlled_shutdown,
                cordoned_log_dirs,
            } => {
                let broker = self
                    .brokers
                    .get_mut(broker_id)
                    .ok_or_else(|| fail(format!("broker {broker_id} is not registered")))?;
                if broker.epoch != *broker_epoch {
                    return Err(fail(format!(
                        "broker {broker_id} has epoch {}, the record names {broker_epoch}",
                        broker.epoch
                    )));
                }
                match fenced {
                    1 => broker.fenced = true,
                    -1 => broker.fenced = false,
                    _ => {}
                }
                if *in_controlled_shutdown == 1 {
                    broker.in_controlled_shutdown = true;
                }
                // Fencing keeps the controlled-shutdown flag (`BrokerRegistration.cloneWith`);
                // only a new registration clears it.
                if let Some(dirs) = cordoned_log_dirs {
                    broker.cordoned_log_dirs = Some(dirs.clone());
                }
            }
            MetadataRecord::Topic { name, topic_id } => {
                self.topic_names.insert(*topic_id, name.clone());
                self.topics.insert(
                    name.clone(),
                    TopicImage {
                        name: name.clone(),
                        id: *topic_id,
                        partitions: BTreeMap::new(),
                    },
                );
            }
            MetadataRecord::Partition {
                topic_id,
                partition_id,
                replicas,
                isr,
                eligible_leader_replicas,
                last_known_elr,
                leader,
                leader_recovery_state,
                leader_epoch,
                partition_epoch,
            } => {
                let topic = self
                    .topic_by_id_mut(topic_id)
                    .ok_or_else(|| fail(format!("unknown topic id {topic_id}")))?;
                topic.partitions.insert(
                    *partition_id,
                    PartitionRegistration {
                        replicas: replicas.clone(),
                        isr: isr.clone(),
                        elr: eligible_leader_replicas.clone(),
                        last_known_elr: last_known_elr.clone(),
                        leader: *leader,
                        leader_recovery_state: *leader_recovery_state,
                        leader_epoch: *leader_epoch,
                        partition_epoch: *partition_epoch,
                    },
                );
            }
            MetadataRecord::RemoveTopic { topic_id } => {
                let name = self
                    .topic_names
                    .remove(topic_id)
                    .ok_or_else(|| fail(format!("unknown topic id {topic_id}")))?;
                self.topics.remove(&name);
            }
            MetadataRecord::PartitionChange {
                topic_id,
                partition_id,
                leader,
                isr,
                eligible_leader_replicas,
                last_known_elr,
                leader_recovery_state,
            } => {
                let topic = self
                    .topic_by_id_mut(topic_id)
                    .ok_or_else(|| fail(format!("unknown topic id {topic_id}")))?;
                let p = topic
                    .partitions
                    .get_mut(partition_id)
                    .ok_or_else(|| fail(format!("unknown partition {partition_id}")))?;
                // PartitionRegistration.merge: a named leader bumps the leader epoch; every
                // change bumps the partition epoch.
                if *leader != NO_LEADER_CHANGE {
                    p.leader = *leader;
                    p.leader_epoch += 1;
                }
                if let Some(isr) = isr {
                    p.isr = isr.clone();
                }
                if let Some(elr) = eligible_leader_replicas {
                    p.elr = elr.clone();
                }
                if let Some(lke) = last_known_elr {
                    p.last_known_elr = lke.clone();
                }
                if let Some(state) = leader_recovery_state {
                    p.leader_recovery_state = *state;
                }
                p.partition_epoch += 1;
            }
        }
        self.last_offset = offset;
        Ok(())
    }

    pub fn topic(&self, name: &str) -> Option<&TopicImage> {
        self.topics.get(name)
    }

    pub fn topic_by_id(&self, id: &Uuid) -> Option<&TopicImage> {
        self.topic_names.get(id).and_then(|n| self.topics.get(n))
    }

    fn topic_by_id_mut(&mut self, id: &Uuid) -> Option<&mut TopicImage> {
        let name = self.topic_names.get(id)?;
        self.topics.get_mut(name)
    }

    pub fn partition(&self, topic_id: &Uuid, partition: i32) -> Option<&PartitionRegistration> {
        self.topic_by_id(topic_id)?.partitions.get(&partition)
    }

    pub fn broker(&self, id: i32) -> Option<&BrokerRegistration> {
        self.brokers.get(&id)
    }

    /// `ClusterControlManager.isActive`.
    pub fn is_active(&self, id: i32) -> bool {
        self.brokers.get(&id).is_some_and(|b| b.is_active())
    }

    /// Every partition, by (topic id, partition id). Kafka walks its `BrokersToIsrs` hash maps,
    /// whose order is unspecified; regroup fixes it to topic id then partition id.
    fn partitions_where(
        &self,
        mut pred: impl FnMut(&PartitionRegistration) -> bool,
    ) -> Vec<TopicIdPartition> {
        let mut out: Vec<TopicIdPartition> = self
            .topics
            .values()
            .flat_map(|t| t.partitions.iter().map(move |(p, reg)| ((t.id, *p), reg)))
            .filter(|(_, reg)| pred(reg))
            .map(|(tp, _)| tp)
            .collect();
        out.sort();
        out
    }

    pub fn partitions_with_broker_in_isr(&self, broker: i32) -> Vec<TopicIdPartition> {
        self.partitions_where(|p| p.isr.contains(&broker))
    }

    pub fn partitions_with_broker_in_elr(&self, broker: i32) -> Vec<TopicIdPartition> {
        self.partitions_where(|p| p.elr.contains(&broker))
    }

    pub fn partitions_with_no_leader(&self) -> Vec<TopicIdPartition> {
        self.partitions_where(|p| p.leader == NO_LEADER)
    }

    /// Partitions whose leader is not their preferred (first) replica.
    pub fn imbalanced_partitions(&self) -> Vec<TopicIdPartition> {
        self.partitions_where(|p| p.replicas.first().is_some_and(|r| *r != p.leader))
    }

    /// `BrokersToIsrs.hasLeaderships`.
    pub fn has_leaderships(&self, broker: i32) -> bool {
        self.topics
            .values()
            .any(|t| t.partitions.values().any(|p| p.leader == broker))
    }
}

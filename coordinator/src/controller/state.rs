//! The sans-IO controller: Kafka 4.4's `QuorumController` reduced to one node (no Raft quorum),
//! with the logic of `ClusterControlManager` (registrations), `BrokerHeartbeatManager`
//! (heartbeats, fencing), `ReplicationControlManager` (topics, partition leadership, ISR/ELR,
//! AlterPartition, preferred-leader balancing) and `PartitionChangeBuilder` (elections).
//!
//! Every state change is a [`MetadataRecord`] appended to the log and applied to the image; the
//! broker epoch of a registration is the offset the registration batch starts at (Kafka's
//! `offsetControl.nextWriteOffset()`), so epochs are unique and increasing. Time is an argument.

use std::collections::{BTreeMap, BTreeSet};

use protocol::ErrorCode;
use protocol::messages::{
    BrokerHeartbeatRequest, BrokerHeartbeatResponse, BrokerRegistrationRequest,
    BrokerRegistrationResponse, CreatePartitionsRequest, CreatePartitionsResponse,
    CreateTopicsRequest, CreateTopicsResponse, StrBytes, TopicName,
    create_partitions_response::CreatePartitionsTopicResult,
    create_topics_response::CreatableTopicResult,
};
use uuid::Uuid;

use super::config::{BOOTSTRAP_FEATURES, ControllerConfig};
use super::election::{Election, PartitionChangeBuilder};
use super::heartbeat::{BrokerControlState, HeartbeatManager};
use super::image::{ImageError, MetadataImage, TopicIdPartition};
use super::records::{Endpoint, FeatureRange, LEADER_RECOVERED, MetadataRecord, NO_LEADER};
use super::topic_configs::{MinInsyncReplicas, effective_topic_configs};
use crate::events::{EventKind, FenceReason};
use crate::java::java_hash_map_order;
use crate::rpc::{
    AlterPartitionRequest, AlterPartitionResponse, AlterPartitionResult, AlterPartitionTopicResult,
};
use crate::topics::derived_topic_id;

/// The internal topic holding group coordinator state.
pub const GROUP_METADATA_TOPIC: &str = "__consumer_offsets";

/// Kafka's `Topic.MAX_NAME_LENGTH`.
const MAX_TOPIC_NAME_LENGTH: usize = 249;

/// The controller's state: the metadata log, the image it replays into, and the heartbeat soft
/// state of the active controller.
#[derive(Debug, Clone)]
pub struct Controller {
    config: ControllerConfig,
    log: Vec<MetadataRecord>,
    /// How many TopicRecords of each name the log holds (every creation of the name): the next
    /// creation's topic id is derived from it ([`Controller::new_topic_id`]).
    creations: BTreeMap<String, usize>,
    image: MetadataImage,
    heartbeats: HeartbeatManager,
    events: Vec<EventKind>,
    fence_scan_due_ms: i64,
    balance_due_ms: Option<i64>,
}

impl Controller {
    /// A controller over an empty log: writes the bootstrap feature levels, then activates at
    /// `now_ms`.
    pub fn new(config: ControllerConfig, now_ms: i64) -> Self {
        let mut c = Self::empty(config);
        c.activate(now_ms);
        let records = BOOTSTRAP_FEATURES
            .iter()
            .map(|(name, level)| MetadataRecord::FeatureLevel {
                name: name.to_string(),
                feature_level: *level,
            })
            .collect();
        c.append(records);
        c
    }

    /// A controller that recovers from an existing log (a restarted controller): replays it and
    /// activates at `now_ms`. Kafka 4.4 gives a fresh session only to unfenced brokers (KAFKA-19130).
    pub fn recover(
        config: ControllerConfig,
        log: Vec<MetadataRecord>,
        now_ms: i64,
    ) -> Result<Self, ImageError> {
        if log.is_empty() {
            return Ok(Self::new(config, now_ms));
        }
        let mut c = Self::empty(config);
        c.activate(now_ms);
        for (offset, record) in log.iter().enumerate() {
            c.image.apply(offset as i64, record)?;
            c.count_creation(record);
        }
        c.log = log;
        let brokers: Vec<(i32, bool, i64)> = c
            .image
            .brokers
            .values()
            .map(|b| (b.id, b.fenced, b.epoch))
            .collect();
        for (id, fenced, epoch) in brokers {
            c.heartbeats.register(id, fenced);
            if !fenced {
                c.heartbeats.update_contact_time(id, epoch, now_ms);
            }
        }
        Ok(c)
    }

    fn empty(config: ControllerConfig) -> Self {
        let heartbeats = HeartbeatManager::new(config.session_timeout_ms);
        Self {
            config,
            log: Vec::new(),
            creations: BTreeMap::new(),
            image: MetadataImage::new(),
            heartbeats,
            events: Vec::new(),
            fence_scan_due_ms: 0,
            balance_due_ms: None,
        }
    }

    pub fn config(&self) -> &ControllerConfig {
        &self.config
    }

    pub fn image(&self) -> &MetadataImage {
        &self.image
    }

    pub fn heartbeats(&self) -> &HeartbeatManager {
        &self.heartbeats
    }

    /// The whole metadata log; the record at index `i` has offset `i`.
    pub fn log(&self) -> &[MetadataRecord] {
        &self.log
    }

    /// The offset the next record will get.
    pub fn next_write_offset(&self) -> i64 {
        self.log.len() as i64
    }

    /// Events produced since the last call.
    pub fn take_events(&mut self) -> Vec<EventKind> {
        std::mem::take(&mut self.events)
    }

    /// Appends and applies `records`; returns the offset of the last one, or `None` if empty.
    fn append(&mut self, records: Vec<MetadataRecord>) -> Option<i64> {
        let mut last = None;
        for record in records {
            let offset = self.next_write_offset();
            if let Err(e) = self.image.apply(offset, &record) {
                // The controller only writes records built from its own image.
                tracing::error!(error = %e, "controller wrote a record it cannot apply");
                continue;
            }
            self.note_record(&record);
            self.count_creation(&record);
            self.log.push(record);
            last = Some(offset);
        }
        last
    }

    fn note_record(&mut self, record: &MetadataRecord) {
        let Some((topic_id, partition_id)) = record.partition_key() else {
            return;
        };
        if let Some(topic) = self.image.topic_by_id(&topic_id)
            && let Some(p) = topic.partitions.get(&partition_id)
        {
            tracing::debug!(
                topic = %topic.name,
                partition = partition_id,
                leader = p.leader,
                leader_epoch = p.leader_epoch,
                isr = ?p.isr,
                elr = ?p.elr,
                "partition changed"
            );
            self.events.push(EventKind::PartitionChanged {
                topic: topic.name.clone(),
                partition: partition_id,
                leader: p.leader,
                leader_epoch: p.leader_epoch,
                isr: p.isr.clone(),
                elr: p.elr.clone(),
            });
        }
    }

    fn min_isr(&self, replicas: usize) -> usize {
        (self.config.min_insync_replicas.max(1) as usize).min(replicas.max(1))
    }

    /// `ReplicationControlManager.generateLeaderAndIsrUpdates`: one change record per partition
    /// that changes. `remove`/`add`/`unclean` are broker ids or [`NO_LEADER`].
    fn leader_and_isr_updates(
        &self,
        remove: i32,
        add: i32,
        unclean: i32,
        partitions: &[TopicIdPartition],
        records: &mut Vec<MetadataRecord>,
    ) {
        let image = &self.image;
        let acceptable = |r: i32| r != remove && r != unclean && (r == add || image.is_active(r));
        for (topic_id, partition_id) in partitions {
            let Some(p) = image.partition(topic_id, *partition_id) else {
                continue;
            };
            let mut builder = PartitionChangeBuilder::new(
                p,
                *topic_id,
                *partition_id,
                &acceptable,
                self.min_isr(p.replicas.len()),
                self.config.elr_enabled,
            );
            if unclean != NO_LEADER {
                builder = builder.set_unclean_shutdown_replicas(vec![unclean]);
            }
            let target: Vec<i32> = p
                .isr
                .iter()
                .copied()
                .filter(|r| *r != remove && *r != unclean)
                .collect();
            if let Some(record) = builder.set_target_isr(target).build() {
                records.push(record);
            }
        }
    }

    fn broker_fenced_records(&self, broker: i32, records: &mut Vec<MetadataRecord>) {
        let Some(reg) = self.image.broker(broker) else {
            return;
        };
        let epoch = reg.epoch;
        let partitions = self.image.partitions_with_broker_in_isr(broker);
        self.leader_and_isr_updates(broker, NO_LEADER, NO_LEADER, &partitions, records);
        records.push(MetadataRecord::BrokerRegistrationChange {
            broker_id: broker,
            broker_epoch: epoch,
            fenced: 1,
            in_controlled_shutdown: 0,
            cordoned_log_dirs: None,
        });
    }

    fn broker_unfenced_records(&self, broker: i32, epoch: i64, records: &mut Vec<MetadataRecord>) {
        records.push(MetadataRecord::BrokerRegistrationChange {
            broker_id: broker,
            broker_epoch: epoch,
            fenced: -1,
            in_controlled_shutdown: 0,
            cordoned_log_dirs: None,
        });
        let partitions = self.image.partitions_with_no_leader();
        self.leader_and_isr_updates(NO_LEADER, broker, NO_LEADER, &partitions, records);
    }

    fn broker_in_controlled_shutdown_records(
        &self,
        broker: i32,
        epoch: i64,
        records: &mut Vec<MetadataRecord>,
    ) {
        if !self
            .image
            .broker(broker)
            .is_some_and(|b| b.in_controlled_shutdown)
        {
            records.push(MetadataRecord::BrokerRegistrationChange {
                broker_id: broker,
                broker_epoch: epoch,
                fenced: 0,
                in_controlled_shutdown: 1,
                cordoned_log_dirs: None,
            });
        }
        let partitions = self.image.partitions_with_broker_in_isr(broker);
        self.leader_and_isr_updates(broker, NO_LEADER, NO_LEADER, &partitions, records);
    }

    /// `ReplicationControlManager.handleBrokerShutdown`, run when a new incarnation registers.
    fn broker_shutdown_records(&self, broker: i32, clean: bool, records: &mut Vec<MetadataRecord>) {
        if self.config.elr_enabled && !clean {
            let isr = self.image.partitions_with_broker_in_isr(broker);
            self.leader_and_isr_updates(NO_LEADER, NO_LEADER, broker, &isr, records);
            let elr = self.image.partitions_with_broker_in_elr(broker);
            self.leader_and_isr_updates(NO_LEADER, NO_LEADER, broker, &elr, records);
        } else {
            let isr = self.image.partitions_with_broker_in_isr(broker);
            self.leader_and_isr_updates(broker, NO_LEADER, NO_LEADER, &isr, records);
        }
    }

    /// BrokerRegistration (api 62), `ClusterControlManager.registerBroker` with 4.4's checks.
    pub fn register_broker(
        &mut self,
        request: &BrokerRegistrationRequest,
        api_version: i16,
        now_ms: i64,
    ) -> BrokerRegistrationResponse {
        match self.try_register(request, api_version, now_ms) {
            Ok(epoch) => BrokerRegistrationResponse::default().with_broker_epoch(epoch),
            Err((code, message)) => {
                let broker = request.broker_id.0;
                tracing::info!(
                    broker,
                    error = code.name(),
                    message,
                    "broker registration refused"
                );
                self.events.push(EventKind::RegistrationRejected {
                    broker,
                    error: code.name().to_string(),
                });
                BrokerRegistrationResponse::default().with_error_code(code.code())
            }
        }
    }

    fn try_register(
        &mut self,
        request: &BrokerRegistrationRequest,
        api_version: i16,
        now_ms: i64,
    ) -> Result<i64, (ErrorCode, String)> {
        let broker = request.broker_id.0;
        if request.cluster_id.as_str() != self.config.cluster_id {
            return Err((
                ErrorCode::InconsistentClusterId,
                format!(
                    "Expected cluster ID {}, but got cluster ID {}",
                    self.config.cluster_id,
                    request.cluster_id.as_str()
                ),
            ));
        }
        let existing = self.image.broker(broker).cloned();
        if let Some(old) = &existing
            && self.heartbeats.has_valid_session(broker, old.epoch, now_ms)
            && old.incarnation_id != request.incarnation_id
        {
            return Err((
                ErrorCode::DuplicateBrokerRegistration,
                "Another broker is registered with that broker id. If the broker was recently \
                 restarted this should self-resolve once the heartbeat manager expires the \
                 broker's session."
                    .into(),
            ));
        }
        if request.is_migrating_zk_broker {
            return Err((
                ErrorCode::BrokerIdNotRegistered,
                "Controller does not support registering ZK brokers.".into(),
            ));
        }
        // metadata.version >= 3.7-IV2: directory assignment is supported, so dirs are checked.
        if request.log_dirs.is_empty() {
            return Err((
                ErrorCode::InvalidRegistration,
                "No directories specified in request".into(),
            ));
        }
        if request.log_dirs.iter().any(is_reserved_dir) {
            return Err((
                ErrorCode::InvalidRegistration,
                "Reserved directory ID in request".into(),
            ));
        }
        let unique: BTreeSet<&Uuid> = request.log_dirs.iter().collect();
        if unique.len() != request.log_dirs.len() {
            return Err((
                ErrorCode::InvalidRegistration,
                "Duplicate directory ID in request".into(),
            ));
        }
        for dir in &request.log_dirs {
            if let Some(owner) = self
                .image
                .brokers
                .values()
                .find(|b| b.id != broker && b.log_dirs.contains(dir))
            {
                return Err((
                    ErrorCode::InvalidRegistration,
                    format!(
                        "Broker {} is already registered with directory {dir}",
                        owner.id
                    ),
                ));
            }
        }
        let mut unverified: BTreeMap<&str, i16> = self
            .image
            .features
            .iter()
            .map(|(k, v)| (k.as_str(), *v))
            .collect();
        for f in &request.features {
            if let Some(level) = self.image.features.get(f.name.as_str())
                && (*level < f.min_supported_version || *level > f.max_supported_version)
            {
                return Err((
                    ErrorCode::UnsupportedVersion,
                    format!(
                        "Unable to register because the broker does not support finalized version {level} of {}. The broker wants a version between {} and {}, inclusive.",
                        f.name.as_str(),
                        f.min_supported_version,
                        f.max_supported_version
                    ),
                ));
            }
            unverified.remove(f.name.as_str());
        }
        if !request
            .features
            .iter()
            .any(|f| f.name.as_str() == "metadata.version")
        {
            return Err((
                ErrorCode::InvalidRegistration,
                "Request features do not contain 'metadata.version'".into(),
            ));
        }
        if let Some((name, level)) = unverified.iter().find(|(_, level)| **level != 0) {
            return Err((
                ErrorCode::UnsupportedVersion,
                format!(
                    "Unable to register because the broker does not support finalized version {level} of {name}. The broker wants a version between 0 and 0, inclusive."
                ),
            ));
        }

        let new_epoch = self.next_write_offset();
        let mut records = Vec::new();
        let new_incarnation = existing
            .as_ref()
            .is_none_or(|old| old.incarnation_id != request.incarnation_id);
        let (epoch, fenced, in_controlled_shutdown) = if new_incarnation {
            // Kafka compares PreviousBrokerEpoch with the stored epoch (-2 when none is stored).
            let stored = existing.as_ref().map(|b| b.epoch).unwrap_or(-2);
            let clean = api_version >= 3 && stored == request.previous_broker_epoch;
            self.broker_shutdown_records(broker, clean, &mut records);
            tracing::info!(
                broker,
                incarnation = %request.incarnation_id,
                epoch = new_epoch,
                clean_shutdown = clean,
                cleanup_records = records.len(),
                "registering a new broker incarnation"
            );
            (new_epoch, true, false)
        } else {
            let old = existing
                .as_ref()
                .expect("same incarnation implies a registration");
            tracing::info!(
                broker,
                epoch = old.epoch,
                "amending the registration of broker"
            );
            (old.epoch, old.fenced, old.in_controlled_shutdown)
        };
        records.push(MetadataRecord::RegisterBroker {
            broker_id: broker,
            incarnation_id: request.incarnation_id,
            broker_epoch: epoch,
            end_points: request
                .listeners
                .iter()
                .map(|l| Endpoint {
                    name: l.name.to_string(),
                    host: l.host.to_string(),
                    port: l.port,
                    security_protocol: l.security_protocol,
                })
                .collect(),
            features: request
                .features
                .iter()
                .map(|f| FeatureRange {
                    name: f.name.to_string(),
                    min_supported_version: f.min_supported_version,
                    max_supported_version: f.max_supported_version,
                })
                .collect(),
            rack: request.rack.as_ref().map(|r| r.to_string()),
            fenced,
            in_controlled_shutdown,
            log_dirs: request.log_dirs.clone(),
        });
        if new_incarnation {
            self.heartbeats.remove(broker);
        }
        self.heartbeats.register(broker, fenced);
        self.append(records);
        self.events.push(EventKind::BrokerRegistered {
            broker,
            epoch,
            incarnation: request.incarnation_id.to_string(),
        });
        Ok(epoch)
    }

    /// BrokerHeartbeat (api 63), `ReplicationControlManager.processBrokerHeartbeat`.
    pub fn broker_heartbeat(
        &mut self,
        request: &BrokerHeartbeatRequest,
        now_ms: i64,
    ) -> BrokerHeartbeatResponse {
        let broker = request.broker_id.0;
        let epoch = request.broker_epoch;
        // Contact is recorded before anything is checked, even for a stale epoch.
        self.heartbeats.update_contact_time(broker, epoch, now_ms);
        let Some(register_offset) = self.image.register_offsets.get(&broker).copied() else {
            return self.heartbeat_error(broker, epoch, ErrorCode::StaleBrokerEpoch);
        };
        let Some(reg) = self.image.broker(broker).cloned() else {
            return self.heartbeat_error(broker, epoch, ErrorCode::StaleBrokerEpoch);
        };
        if reg.epoch != epoch {
            return self.heartbeat_error(broker, epoch, ErrorCode::StaleBrokerEpoch);
        }
        let offset = request.current_metadata_offset;
        let (current, next) = self.heartbeats.next_state(
            broker,
            request.want_fence,
            request.want_shut_down,
            offset,
            register_offset,
            self.image.has_leaderships(broker),
        );
        let mut records = Vec::new();
        if current != next {
            match next {
                BrokerControlState::Fenced | BrokerControlState::ShutdownNow => {
                    self.broker_fenced_records(broker, &mut records);
                    let reason = if next == BrokerControlState::ShutdownNow {
                        FenceReason::ShutdownNow
                    } else {
                        FenceReason::Requested
                    };
                    self.events.push(EventKind::BrokerFenced {
                        broker,
                        epoch,
                        reason,
                        last_contact_ms: None,
                    });
                }
                BrokerControlState::Unfenced => {
                    self.broker_unfenced_records(broker, epoch, &mut records);
                    self.events
                        .push(EventKind::BrokerUnfenced { broker, epoch });
                }
                BrokerControlState::ControlledShutdown => {
                    self.broker_in_controlled_shutdown_records(broker, epoch, &mut records);
                    self.events
                        .push(EventKind::ControlledShutdownStarted { broker, epoch });
                }
            }
            tracing::info!(broker, epoch, from = ?current, to = ?next, "broker state change");
        }
        if next == BrokerControlState::ShutdownNow {
            self.events
                .push(EventKind::ShutdownGranted { broker, epoch });
        }
        self.heartbeats.touch(broker, next.fenced(), offset);
        // metadata.version >= 4.3-IV0: a changed set of cordoned log dirs is recorded.
        if let Some(dirs) = &request.cordoned_log_dirs {
            let reported: BTreeSet<&Uuid> = dirs.iter().collect();
            let known: Option<BTreeSet<&Uuid>> =
                reg.cordoned_log_dirs.as_ref().map(|d| d.iter().collect());
            if known.as_ref() != Some(&reported) {
                records.push(MetadataRecord::BrokerRegistrationChange {
                    broker_id: broker,
                    broker_epoch: epoch,
                    fenced: 0,
                    in_controlled_shutdown: 0,
                    cordoned_log_dirs: Some(dirs.clone()),
                });
            }
        }
        let last = self.append(records);
        if next == BrokerControlState::ControlledShutdown {
            let end = last.unwrap_or(self.next_write_offset() - 1);
            self.heartbeats
                .maybe_update_controlled_shutdown_offset(broker, end);
        }
        BrokerHeartbeatResponse::default()
            .with_is_caught_up(offset >= register_offset)
            .with_is_fenced(next.fenced())
            .with_should_shut_down(next.should_shut_down())
    }

    fn heartbeat_error(
        &mut self,
        broker: i32,
        epoch: i64,
        code: ErrorCode,
    ) -> BrokerHeartbeatResponse {
        tracing::debug!(broker, epoch, error = code.name(), "heartbeat refused");
        self.events.push(EventKind::HeartbeatRejected {
            broker,
            epoch,
            error: code.name().to_string(),
        });
        // Only the error is set: the flags keep their defaults (IsFenced true).
        BrokerHeartbeatResponse::default().with_error_code(code.code())
    }

    /// One run of the periodic stale-broker scan (`maybeFenceOneStaleBroker`): fences at most one
    /// broker whose session expired. Returns whether it removed an entry (Kafka then re-runs the
    /// scan after 10 ms instead of a full period).
    pub fn maybe_fence_one_stale_broker(&mut self, now_ms: i64) -> bool {
        let Some((broker, epoch, last_contact_ms)) = self.heartbeats.maybe_remove_expired(now_ms)
        else {
            return false;
        };
        match self.image.broker(broker).map(|b| b.epoch) {
            None => {
                tracing::info!(
                    broker,
                    epoch,
                    "removing heartbeat tracker entry for unknown broker"
                );
                self.heartbeats.remove(broker);
            }
            Some(current) if current != epoch => {
                tracing::info!(
                    broker,
                    epoch,
                    current,
                    "removing heartbeat tracker entry for a previous epoch"
                );
            }
            Some(_) => {
                tracing::info!(
                    broker,
                    epoch,
                    "fencing broker because its session has timed out"
                );
                let mut records = Vec::new();
                self.broker_fenced_records(broker, &mut records);
                self.heartbeats.fence(broker);
                self.append(records);
                self.events.push(EventKind::BrokerFenced {
                    broker,
                    epoch,
                    reason: FenceReason::SessionExpired,
                    last_contact_ms: Some(last_contact_ms),
                });
            }
        }
        true
    }

    /// One run of the preferred-leader balancing task (`maybeBalancePartitionLeaders`); returns
    /// whether more elections may be pending.
    pub fn maybe_balance_partition_leaders(&mut self) -> bool {
        let image = &self.image;
        let acceptable = |r: i32| image.is_active(r);
        let mut records = Vec::new();
        for (topic_id, partition_id) in image.imbalanced_partitions() {
            if records.len() >= self.config.max_elections_per_imbalance {
                break;
            }
            let Some(p) = image.partition(&topic_id, partition_id) else {
                continue;
            };
            if let Some(record) = PartitionChangeBuilder::new(
                p,
                topic_id,
                partition_id,
                &acceptable,
                self.min_isr(p.replicas.len()),
                self.config.elr_enabled,
            )
            .set_election(Election::Preferred)
            .build()
            {
                records.push(record);
            }
        }
        let more = records.len() >= self.config.max_elections_per_imbalance;
        if !records.is_empty() {
            tracing::info!(elections = records.len(), "preferred leader elections");
        }
        self.append(records);
        more
    }

    /// CreateTopics (api 19) as the controller runs it (`ReplicationControlManager.createTopics`).
    pub fn create_topics(
        &mut self,
        request: &CreateTopicsRequest,
        version: i16,
    ) -> CreateTopicsResponse {
        // ControllerApis.createTopics: a name given more than once is taken out of the request
        // (every copy) and answered after the others, as is `__cluster_metadata`.
        let mut names = BTreeSet::new();
        let mut duplicates: Vec<String> = Vec::new();
        for t in &request.topics {
            let name = t.name.as_str();
            if duplicates.iter().any(|d| d == name) {
                continue;
            }
            if !names.insert(name.to_string()) {
                names.remove(name);
                duplicates.push(name.to_string());
            }
        }
        let error_result = |name: &str, code: ErrorCode, message: String| {
            CreatableTopicResult::default()
                .with_name(TopicName(StrBytes::from_string(name.to_string())))
                .with_error_code(code.code())
                .with_error_message(Some(StrBytes::from_string(message)))
                .with_num_partitions(-1)
                .with_replication_factor(-1)
                .with_configs(if version >= 5 { Some(Vec::new()) } else { None })
        };
        let mut results = Vec::new();
        // ReplicationControlManager.createTopics answers the rest in request order, every name
        // checked before any topic is created.
        let effective: Vec<_> = request
            .topics
            .iter()
            .filter(|t| {
                names.contains(t.name.as_str()) && t.name.as_str() != CLUSTER_METADATA_TOPIC
            })
            .map(|t| (t, self.name_refusal(t.name.as_str())))
            .collect();
        for (t, refusal) in effective {
            let name = t.name.as_str().to_string();
            let result = match refusal {
                Some(refusal) => Err(refusal),
                None => self.create_named_topic(
                    &name,
                    t.num_partitions,
                    t.replication_factor,
                    request.validate_only,
                ),
            };
            results.push(match result {
                Ok((id, partitions, rf)) => {
                    let configs = (version >= 5).then(|| {
                        let requested: Vec<(String, Option<String>)> = t
                            .configs
                            .iter()
                            .map(|c| {
                                (
                                    c.name.as_str().to_string(),
                                    c.value.as_ref().map(|v| v.as_str().to_string()),
                                )
                            })
                            .collect();
                        effective_topic_configs(
                            MinInsyncReplicas {
                                value: self.config.min_insync_replicas,
                                elr_enabled: self.config.elr_enabled,
                                configured: self.config.min_insync_replicas_configured,
                            },
                            &requested,
                        )
                    });
                    CreatableTopicResult::default()
                        .with_name(TopicName(StrBytes::from_string(name.clone())))
                        .with_topic_id(id)
                        .with_error_message(None)
                        .with_num_partitions(partitions)
                        .with_replication_factor(rf)
                        .with_configs(configs)
                }
                Err((code, message)) => error_result(&name, code, message),
            });
        }
        // The duplicates in the iteration order of Kafka's `HashSet` of them.
        for name in java_hash_map_order(duplicates.iter().map(String::as_str)) {
            results.push(error_result(
                name,
                ErrorCode::InvalidRequest,
                "Duplicate topic name.".to_string(),
            ));
        }
        if names.contains(CLUSTER_METADATA_TOPIC) {
            results.push(error_result(
                CLUSTER_METADATA_TOPIC,
                ErrorCode::InvalidRequest,
                format!("Creation of internal topic {CLUSTER_METADATA_TOPIC} is prohibited."),
            ));
        }
        CreateTopicsResponse::default().with_topics(results)
    }

    /// Creates one topic; returns (id, partitions, replication factor).
    pub fn create_topic(
        &mut self,
        name: &str,
        num_partitions: i32,
        replication_factor: i16,
        validate_only: bool,
    ) -> Result<(Uuid, i32, i16), (ErrorCode, String)> {
        if let Some(refusal) = self.name_refusal(name) {
            return Err(refusal);
        }
        self.create_named_topic(name, num_partitions, replication_factor, validate_only)
    }

    /// Why a new topic may not be called `name` (ReplicationControlManager.validateNewTopicNames,
    /// then its existing-topic check: each later finding replaces the one before it). Kafka
    /// checks every name of a request against the topics that existed before it, so two topics
    /// of one request never collide with each other.
    fn name_refusal(&self, name: &str) -> Option<(ErrorCode, String)> {
        let mut refusal = invalid_topic_reason(name).map(|reason| {
            (
                ErrorCode::InvalidTopicException,
                format!("Topic name is invalid: {reason}"),
            )
        });
        if let Some(existing) = self.colliding_topic(name) {
            refusal = Some((
                ErrorCode::InvalidTopicException,
                format!("Topic '{name}' collides with existing topic: {existing}"),
            ));
        }
        if self.image.topic(name).is_some() {
            refusal = Some((
                ErrorCode::TopicAlreadyExists,
                format!("Topic '{name}' already exists."),
            ));
        }
        refusal
    }

    /// Creates one topic whose name [`Self::name_refusal`] has accepted (`createTopic`).
    fn create_named_topic(
        &mut self,
        name: &str,
        num_partitions: i32,
        replication_factor: i16,
        validate_only: bool,
    ) -> Result<(Uuid, i32, i16), (ErrorCode, String)> {
        if replication_factor < -1 || replication_factor == 0 {
            return Err((
                ErrorCode::InvalidReplicationFactor,
                "Replication factor must be larger than 0, or -1 to use the default value.".into(),
            ));
        }
        if num_partitions < -1 || num_partitions == 0 {
            return Err((
                ErrorCode::InvalidPartitions,
                "Number of partitions was set to an invalid non-positive value.".into(),
            ));
        }
        let partitions = if num_partitions == -1 {
            self.config.default_num_partitions
        } else {
            num_partitions
        };
        let rf = if replication_factor == -1 {
            self.config.default_replication_factor
        } else {
            replication_factor
        };
        let assignments = self.place_replicas(partitions, rf).map_err(|reason| {
            (
                ErrorCode::InvalidReplicationFactor,
                format!("Unable to replicate the partition {rf} time(s): {reason}"),
            )
        })?;
        let topic_id = self.new_topic_id(name);
        let mut records = vec![MetadataRecord::Topic {
            name: name.to_string(),
            topic_id,
        }];
        for (partition_id, replicas) in assignments.into_iter().enumerate() {
            records.push(self.new_partition(topic_id, partition_id as i32, replicas, rf)?);
        }
        if !validate_only {
            tracing::info!(
                topic = name,
                partitions,
                replication_factor = rf,
                "creating topic"
            );
            self.append(records);
            self.events.push(EventKind::TopicCreated {
                topic: name.to_string(),
                partitions,
                replication_factor: rf,
            });
        }
        Ok((topic_id, partitions, rf))
    }

    /// The existing topic `name` collides with (`Topic.hasCollisionChars`,
    /// `Topic.unifyCollisionChars`): one whose name differs only in '.' against '_'. Kafka names
    /// the first of its set of such topics; regroup names the least, so the message is
    /// deterministic (only topics created together can make that set hold two).
    fn colliding_topic(&self, name: &str) -> Option<String> {
        if !has_collision_chars(name) {
            return None;
        }
        let unified = unify_collision_chars(name);
        self.image
            .topics
            .keys()
            .map(String::as_str)
            .filter(|existing| has_collision_chars(existing))
            .filter(|existing| unify_collision_chars(existing) == unified)
            .min()
            .map(str::to_string)
    }

    /// CreatePartitions for one topic (`ReplicationControlManager.createPartitions`): grows
    /// `name` to `total` partitions, placing the new ones like a new topic's with the topic's
    /// replication factor. Returns the number of partitions added.
    pub fn create_partitions(
        &mut self,
        name: &str,
        total: i32,
    ) -> Result<i32, (ErrorCode, String)> {
        self.grow_topic(name, total, None, false)
    }

    /// A CreatePartitions request as the controller answers it (`ControllerApis.createPartitions`,
    /// then `ReplicationControlManager.createPartitions` and, for validate-only, the result without
    /// its records). A name given more than once is answered first, once, with INVALID_REQUEST; the
    /// others follow in the iteration order of Kafka's `HashSet` of the request's names, which is
    /// the order it hands them to the controller.
    pub fn create_partitions_request(
        &mut self,
        request: &CreatePartitionsRequest,
    ) -> CreatePartitionsResponse {
        let mut names: Vec<&str> = Vec::new();
        let mut duplicates: Vec<&str> = Vec::new();
        for t in &request.topics {
            let name = t.name.as_str();
            if names.contains(&name) {
                if !duplicates.contains(&name) {
                    duplicates.push(name);
                }
            } else {
                names.push(name);
            }
        }
        let result = |name: &str, outcome: Result<(), (ErrorCode, Option<String>)>| {
            let (code, message) = match outcome {
                Ok(()) => (ErrorCode::None, None),
                Err((code, message)) => (code, message),
            };
            CreatePartitionsTopicResult::default()
                .with_name(TopicName(StrBytes::from_string(name.to_string())))
                .with_error_code(code.code())
                .with_error_message(message.map(StrBytes::from_string))
        };
        let mut results: Vec<CreatePartitionsTopicResult> =
            java_hash_map_order(duplicates.iter().copied())
                .into_iter()
                .map(|name| {
                    result(
                        name,
                        Err((
                            ErrorCode::InvalidRequest,
                            Some("Duplicate topic name.".to_string()),
                        )),
                    )
                })
                .collect();
        let order: Vec<String> = java_hash_map_order(names.iter().copied())
            .into_iter()
            .filter(|name| !duplicates.contains(name))
            .map(str::to_string)
            .collect();
        for name in order {
            let Some(topic) = request.topics.iter().find(|t| t.name.as_str() == name) else {
                continue;
            };
            let assignments: Option<Vec<Vec<i32>>> = topic.assignments.as_ref().map(|a| {
                a.iter()
                    .map(|p| p.broker_ids.iter().map(|b| b.0).collect())
                    .collect()
            });
            let outcome = self
                .grow_topic(
                    &name,
                    topic.count,
                    assignments.as_deref(),
                    request.validate_only,
                )
                .map(|_| ())
                .map_err(|(code, message)| {
                    // An UnknownTopicOrPartitionException without a message: the answer's is null.
                    let message = (code != ErrorCode::UnknownTopicOrPartition).then_some(message);
                    (code, message)
                });
            results.push(result(&name, outcome));
        }
        CreatePartitionsResponse::default().with_results(results)
    }

    /// Grows `name` to `total` partitions (`ReplicationControlManager.createPartitions` for one
    /// topic): the new ones placed as `assignments` gives (one replica list per new partition,
    /// checked by `validateManualPartitionAssignment`) or like a new topic's, with the topic's
    /// replication factor. With `validate_only` nothing is written. Returns the number added.
    fn grow_topic(
        &mut self,
        name: &str,
        total: i32,
        assignments: Option<&[Vec<i32>]>,
        validate_only: bool,
    ) -> Result<i32, (ErrorCode, String)> {
        let unknown = || {
            (
                ErrorCode::UnknownTopicOrPartition,
                ErrorCode::UnknownTopicOrPartition
                    .default_message()
                    .to_string(),
            )
        };
        let topic = self.image.topic(name).ok_or_else(unknown)?;
        let current = topic.partitions.len() as i32;
        if total == current {
            return Err((
                ErrorCode::InvalidPartitions,
                format!("Topic already has {current} partition(s)."),
            ));
        }
        if total < current {
            return Err((
                ErrorCode::InvalidPartitions,
                format!(
                    "The topic {name} currently has {current} partition(s); {total} would not be \
                     an increase."
                ),
            ));
        }
        let additional = total - current;
        if let Some(assignments) = assignments
            && assignments.len() as i32 != additional
        {
            return Err((
                ErrorCode::InvalidReplicaAssignment,
                format!(
                    "Attempted to add {additional} additional partition(s), but only {} \
                     assignment(s) were specified.",
                    assignments.len()
                ),
            ));
        }
        let topic_id = topic.id;
        let rf = topic
            .partitions
            .values()
            .next()
            .map_or(1, |p| p.replicas.len() as i16);
        let placement: Vec<Vec<i32>> = match assignments {
            Some(assignments) => {
                for replicas in assignments {
                    self.validate_manual_partition_assignment(replicas, rf)?;
                }
                assignments.to_vec()
            }
            None => {
                // Place `total` partitions and keep the placement of the new ones, so partition p
                // lands where a topic created with `total` partitions would have put it.
                let mut all = self.place_replicas(total, rf).map_err(|reason| {
                    (
                        ErrorCode::InvalidReplicationFactor,
                        format!("Unable to replicate the partition {rf} time(s): {reason}"),
                    )
                })?;
                all.split_off(current as usize)
            }
        };
        let mut records = Vec::new();
        for (i, replicas) in placement.into_iter().enumerate() {
            records.push(self.new_partition(topic_id, current + i as i32, replicas, rf)?);
        }
        if validate_only {
            return Ok(additional);
        }
        tracing::info!(
            topic = name,
            from = current,
            to = total,
            "adding partitions"
        );
        self.append(records);
        self.events.push(EventKind::PartitionsAdded {
            topic: name.to_string(),
            partitions: total,
        });
        Ok(additional)
    }

    /// Kafka's `validateManualPartitionAssignment`: a replica list of a new partition names
    /// registered brokers, each once, as many as the topic's other partitions have.
    fn validate_manual_partition_assignment(
        &self,
        replicas: &[i32],
        rf: i16,
    ) -> Result<(), (ErrorCode, String)> {
        let refuse = |message: String| Err((ErrorCode::InvalidReplicaAssignment, message));
        if replicas.is_empty() {
            return refuse(
                "The manual partition assignment includes an empty replica list.".to_string(),
            );
        }
        let mut sorted = replicas.to_vec();
        sorted.sort_unstable();
        let mut previous = None;
        for &broker in &sorted {
            if self.image.broker(broker).is_none() {
                return refuse(format!(
                    "The manual partition assignment includes broker {broker}, but no such \
                     broker is registered."
                ));
            }
            if previous == Some(broker) {
                return refuse(format!(
                    "The manual partition assignment includes the broker {broker} more than once."
                ));
            }
            previous = Some(broker);
        }
        if sorted.len() != rf as usize {
            return refuse(format!(
                "The manual partition assignment includes a partition with {} replica(s), but \
                 this is not consistent with previous partitions, which have {rf} replica(s).",
                sorted.len()
            ));
        }
        Ok(())
    }

    /// DeleteTopics for one topic by name (`ReplicationControlManager.deleteTopic`): one
    /// `RemoveTopicRecord`.
    pub fn delete_topic(&mut self, name: &str) -> Result<(), (ErrorCode, String)> {
        let Some(topic) = self.image.topic(name) else {
            return Err((
                ErrorCode::UnknownTopicOrPartition,
                ErrorCode::UnknownTopicOrPartition
                    .default_message()
                    .to_string(),
            ));
        };
        let topic_id = topic.id;
        tracing::info!(topic = name, "deleting topic");
        self.append(vec![MetadataRecord::RemoveTopic { topic_id }]);
        self.events.push(EventKind::TopicDeleted {
            topic: name.to_string(),
        });
        Ok(())
    }

    /// The record of a new partition on `replicas`: its ISR is the replicas that are active, the
    /// first of them leads. With none active the topic change fails as Kafka's does.
    fn new_partition(
        &self,
        topic_id: Uuid,
        partition_id: i32,
        replicas: Vec<i32>,
        rf: i16,
    ) -> Result<MetadataRecord, (ErrorCode, String)> {
        let isr: Vec<i32> = replicas
            .iter()
            .copied()
            .filter(|r| self.image.is_active(*r))
            .collect();
        let Some(leader) = isr.first().copied() else {
            return Err((
                ErrorCode::InvalidReplicationFactor,
                format!(
                    "Unable to replicate the partition {rf} time(s): All brokers are currently fenced or in controlled shutdown."
                ),
            ));
        };
        Ok(MetadataRecord::Partition {
            topic_id,
            partition_id,
            leader,
            replicas,
            isr,
            eligible_leader_replicas: Vec::new(),
            last_known_elr: Vec::new(),
            leader_recovery_state: LEADER_RECOVERED,
            leader_epoch: 0,
            partition_epoch: 0,
        })
    }

    /// Replica placement. Kafka's `StripedReplicaPlacer` is randomised (and rack-aware); regroup
    /// places deterministically: brokers sorted by id with unfenced ones first, partition `p`
    /// takes `rf` consecutive brokers starting at position `p`.
    fn place_replicas(&self, partitions: i32, rf: i16) -> Result<Vec<Vec<i32>>, String> {
        let usable: Vec<&super::image::BrokerRegistration> = self
            .image
            .brokers
            .values()
            .filter(|b| !b.in_controlled_shutdown)
            .collect();
        let unfenced: Vec<i32> = usable.iter().filter(|b| !b.fenced).map(|b| b.id).collect();
        let fenced: Vec<i32> = usable.iter().filter(|b| b.fenced).map(|b| b.id).collect();
        if unfenced.is_empty() {
            return Err(
                "All brokers are currently fenced, or have all their log directories cordoned."
                    .into(),
            );
        }
        let total = usable.len();
        if rf as usize > total {
            return Err(format!(
                "The target replication factor of {rf} cannot be reached because only {total} broker(s) are registered or some brokers have all their log directories cordoned."
            ));
        }
        let mut out = Vec::with_capacity(partitions as usize);
        for p in 0..partitions as usize {
            let mut replicas: Vec<i32> = (0..unfenced.len().min(rf as usize))
                .map(|i| unfenced[(p + i) % unfenced.len()])
                .collect();
            replicas.extend(fenced.iter().take(rf as usize - replicas.len()));
            out.push(replicas);
        }
        Ok(out)
    }

    /// AlterPartition (Kafka api 56, `ReplicationControlManager.alterPartition`).
    pub fn alter_partition(&mut self, request: &AlterPartitionRequest) -> AlterPartitionResponse {
        let Some(reg) = self.image.broker(request.broker_id) else {
            return AlterPartitionResponse {
                error_code: ErrorCode::StaleBrokerEpoch.code(),
                topics: Vec::new(),
            };
        };
        if reg.epoch != request.broker_epoch {
            return AlterPartitionResponse {
                error_code: ErrorCode::StaleBrokerEpoch.code(),
                topics: Vec::new(),
            };
        }
        let mut records = Vec::new();
        let mut topics = Vec::new();
        // Results that depend on records not yet applied are filled in after the append.
        let mut pending: Vec<(usize, usize, Uuid, i32)> = Vec::new();
        for t in &request.topics {
            let mut results = Vec::new();
            let Some(topic) = self.image.topic(&t.topic_name) else {
                for p in &t.partitions {
                    results.push(AlterPartitionResult {
                        partition_index: p.partition_index,
                        error_code: ErrorCode::UnknownTopicOrPartition.code(),
                        leader_id: NO_LEADER,
                        leader_epoch: -1,
                        isr: Vec::new(),
                        leader_recovery_state: 0,
                        partition_epoch: -1,
                    });
                }
                topics.push(AlterPartitionTopicResult {
                    topic_name: t.topic_name.clone(),
                    partitions: results,
                });
                continue;
            };
            let topic_id = topic.id;
            for data in &t.partitions {
                let error = self.validate_alter_partition(request.broker_id, &topic_id, data);
                if error != ErrorCode::None {
                    results.push(AlterPartitionResult {
                        partition_index: data.partition_index,
                        error_code: error.code(),
                        leader_id: NO_LEADER,
                        leader_epoch: -1,
                        isr: Vec::new(),
                        leader_recovery_state: 0,
                        partition_epoch: -1,
                    });
                    continue;
                }
                let Some(p) = self.image.partition(&topic_id, data.partition_index) else {
                    continue;
                };
                let image = &self.image;
                let acceptable = |r: i32| image.is_active(r);
                let target: Vec<i32> = data
                    .new_isr_with_epochs
                    .iter()
                    .map(|m| m.broker_id)
                    .collect();
                if let Some(record) = PartitionChangeBuilder::new(
                    p,
                    topic_id,
                    data.partition_index,
                    &acceptable,
                    self.min_isr(p.replicas.len()),
                    self.config.elr_enabled,
                )
                .set_target_isr(target)
                .build()
                {
                    records.push(record);
                }
                pending.push((topics.len(), results.len(), topic_id, data.partition_index));
                results.push(AlterPartitionResult {
                    partition_index: data.partition_index,
                    error_code: 0,
                    leader_id: NO_LEADER,
                    leader_epoch: -1,
                    isr: Vec::new(),
                    leader_recovery_state: 0,
                    partition_epoch: -1,
                });
            }
            topics.push(AlterPartitionTopicResult {
                topic_name: t.topic_name.clone(),
                partitions: results,
            });
        }
        self.append(records);
        for (ti, pi, topic_id, partition) in pending {
            if let Some(p) = self.image.partition(&topic_id, partition) {
                let r = &mut topics[ti].partitions[pi];
                if p.leader != request.broker_id {
                    r.error_code = ErrorCode::NewLeaderElected.code();
                    continue;
                }
                r.leader_id = p.leader;
                r.leader_epoch = p.leader_epoch;
                r.isr = p.isr.clone();
                r.leader_recovery_state = p.leader_recovery_state;
                r.partition_epoch = p.partition_epoch;
            }
        }
        AlterPartitionResponse {
            error_code: 0,
            topics,
        }
    }

    fn validate_alter_partition(
        &self,
        broker: i32,
        topic_id: &Uuid,
        data: &crate::rpc::AlterPartitionData,
    ) -> ErrorCode {
        let Some(p) = self.image.partition(topic_id, data.partition_index) else {
            return ErrorCode::UnknownTopicOrPartition;
        };
        if data.leader_epoch > p.leader_epoch || data.partition_epoch > p.partition_epoch {
            return ErrorCode::NotController;
        }
        if data.leader_epoch < p.leader_epoch {
            return ErrorCode::FencedLeaderEpoch;
        }
        if broker != p.leader {
            return ErrorCode::InvalidRequest;
        }
        if data.partition_epoch < p.partition_epoch {
            return ErrorCode::InvalidUpdateVersion;
        }
        let new_isr: Vec<i32> = data
            .new_isr_with_epochs
            .iter()
            .map(|m| m.broker_id)
            .collect();
        let unique: BTreeSet<i32> = new_isr.iter().copied().collect();
        if unique.len() != new_isr.len() || new_isr.iter().any(|r| !p.replicas.contains(r)) {
            return ErrorCode::InvalidRequest;
        }
        if !new_isr.contains(&p.leader) {
            return ErrorCode::InvalidRequest;
        }
        if data.leader_recovery_state == super::records::LEADER_RECOVERING && new_isr.len() > 1 {
            return ErrorCode::InvalidRequest;
        }
        if p.leader_recovery_state == LEADER_RECOVERED
            && data.leader_recovery_state == super::records::LEADER_RECOVERING
        {
            return ErrorCode::InvalidRequest;
        }
        let ineligible =
            data.new_isr_with_epochs
                .iter()
                .any(|m| match self.image.broker(m.broker_id) {
                    None => true,
                    Some(b) => {
                        b.fenced
                            || b.in_controlled_shutdown
                            || (m.broker_epoch != -1 && m.broker_epoch != b.epoch)
                    }
                });
        if ineligible {
            return ErrorCode::IneligibleReplica;
        }
        ErrorCode::None
    }

    /// The id of a topic created now. Kafka gives every creation a fresh random id
    /// (`ReplicationControlManager.createTopic`, `Uuid.randomUuid()`), so a topic deleted and
    /// created again under the same name is another topic to every consumer of ids (offsets
    /// stored under the old id, KIP-516). regroup keeps ids deterministic: the first topic of a
    /// name gets [`derived_topic_id`] of the name (what scripts and the oracle use), the n-th
    /// creation of the same name the id derived from the name and n.
    fn new_topic_id(&self, name: &str) -> Uuid {
        incarnation_topic_id(name, self.creations.get(name).copied().unwrap_or(0))
    }

    /// Counts a TopicRecord in the log as one more creation of its name.
    fn count_creation(&mut self, record: &MetadataRecord) {
        if let MetadataRecord::Topic { name, .. } = record {
            *self.creations.entry(name.clone()).or_default() += 1;
        }
    }

    /// Whether `broker` leads any partition (used by tests and the controlled-shutdown table).
    pub fn has_leaderships(&self, broker: i32) -> bool {
        self.image.has_leaderships(broker)
    }

    /// Arms the periodic tasks as Kafka does when a controller becomes active: the stale-broker
    /// scan one period from now, the preferred-leader balancing one check interval from now.
    fn activate(&mut self, now_ms: i64) {
        self.fence_scan_due_ms = now_ms + self.config.fence_scan_period_ms();
        self.balance_due_ms = self
            .config
            .leader_imbalance_check_interval_ms
            .map(|i| now_ms + i.max(1));
    }

    /// When the next periodic task is due.
    pub fn next_timer_ms(&self) -> i64 {
        match self.balance_due_ms {
            Some(b) => b.min(self.fence_scan_due_ms),
            None => self.fence_scan_due_ms,
        }
    }

    /// Runs every periodic task due at or before `now_ms` (`PeriodicTaskControlManager`): a task
    /// that did something runs again 10 ms later, otherwise one period later.
    pub fn run_timers(&mut self, now_ms: i64) {
        if self.fence_scan_due_ms <= now_ms {
            let did = self.maybe_fence_one_stale_broker(now_ms);
            self.fence_scan_due_ms = now_ms
                + if did {
                    IMMEDIATE_PERIOD_MS
                } else {
                    self.config.fence_scan_period_ms()
                };
        }
        if let Some(due) = self.balance_due_ms
            && due <= now_ms
        {
            let more = self.maybe_balance_partition_leaders();
            let period = self
                .config
                .leader_imbalance_check_interval_ms
                .unwrap_or(300_000);
            self.balance_due_ms = Some(now_ms + if more { IMMEDIATE_PERIOD_MS } else { period });
        }
    }
}

/// The id of the creation of topic `name` that follows `earlier` creations of the same name:
/// [`derived_topic_id`] of the name for the first, of the name and the count after a character
/// no topic name may hold for the later ones (so it cannot be another name's first id).
pub fn incarnation_topic_id(name: &str, earlier: usize) -> Uuid {
    if earlier == 0 {
        derived_topic_id(name)
    } else {
        derived_topic_id(&format!("{name}/{earlier}"))
    }
}

/// `PeriodicTask.DEFAULT_IMMEDIATE_PERIOD_NS`: 10 ms.
pub const IMMEDIATE_PERIOD_MS: i64 = 10;

/// `DirectoryId.reserved`: the all-zero-high-bits ids below 100 are reserved.
fn is_reserved_dir(id: &Uuid) -> bool {
    let (hi, lo) = id.as_u64_pair();
    hi == 0 && lo < 100
}

/// `Topic.CLUSTER_METADATA_TOPIC_NAME`: no client may create it.
pub const CLUSTER_METADATA_TOPIC: &str = "__cluster_metadata";

/// Kafka's `Topic.hasCollisionChars`: '.' and '_' collide in metric names.
fn has_collision_chars(name: &str) -> bool {
    name.contains(['.', '_'])
}

/// Kafka's `Topic.unifyCollisionChars`.
fn unify_collision_chars(name: &str) -> String {
    name.replace('.', "_")
}

/// Kafka's `Topic.detectInvalidTopic`.
pub fn invalid_topic_reason(name: &str) -> Option<String> {
    if name.is_empty() {
        return Some("the empty string is not allowed".into());
    }
    if name == "." {
        return Some("'.' is not allowed".into());
    }
    if name == ".." {
        return Some("'..' is not allowed".into());
    }
    if name.len() > MAX_TOPIC_NAME_LENGTH {
        return Some(format!(
            "the length of '{name}' is longer than the max allowed length {MAX_TOPIC_NAME_LENGTH}"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '_' || c == '-')
    {
        return Some(format!(
            "'{name}' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'"
        ));
    }
    None
}

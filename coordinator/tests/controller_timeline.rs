//! Controller timelines with Kafka 4.4's defaults, driven without I/O: every periodic task runs at
//! exactly its due time, heartbeats arrive at chosen instants.

use coordinator::controller::config::{BROKER_SUPPORTED_FEATURES, ControllerConfig};
use coordinator::controller::records::{MetadataRecord, NO_LEADER};
use coordinator::controller::{Controller, GROUP_METADATA_TOPIC};
use coordinator::events::{EventKind, FenceReason};
use coordinator::rpc::{AlterPartitionData, AlterPartitionRequest, AlterPartitionTopic, IsrMember};
use protocol::ErrorCode;
use protocol::messages::broker_registration_request::{Feature, Listener};
use protocol::messages::{
    BrokerHeartbeatRequest, BrokerHeartbeatResponse, BrokerId, BrokerRegistrationRequest, StrBytes,
};
use uuid::Uuid;

fn s(v: &str) -> StrBytes {
    StrBytes::from_string(v.to_string())
}

fn registration(id: i32, incarnation: u64, previous_epoch: i64) -> BrokerRegistrationRequest {
    BrokerRegistrationRequest::default()
        .with_broker_id(BrokerId(id))
        .with_cluster_id(s(&ControllerConfig::default().cluster_id))
        .with_incarnation_id(Uuid::from_u64_pair(id as u64, incarnation))
        .with_listeners(vec![
            Listener::default()
                .with_name(s("PLAINTEXT"))
                .with_host(s(&format!("broker-{id}")))
                .with_port(9092),
        ])
        .with_features(
            BROKER_SUPPORTED_FEATURES
                .iter()
                .map(|(n, min, max)| {
                    Feature::default()
                        .with_name(s(n))
                        .with_min_supported_version(*min)
                        .with_max_supported_version(*max)
                })
                .collect(),
        )
        .with_rack(None)
        .with_log_dirs(vec![Uuid::from_u64_pair(1000 + id as u64, 7)])
        .with_previous_broker_epoch(previous_epoch)
}

/// Stands for "the controller's last offset" in [`heartbeat`] calls.
const CAUGHT_UP: i64 = i64::MIN;

fn heartbeat(
    c: &mut Controller,
    id: i32,
    epoch: i64,
    offset: i64,
    want_fence: bool,
    want_shut_down: bool,
    now: i64,
) -> BrokerHeartbeatResponse {
    let offset = if offset == CAUGHT_UP {
        c.next_write_offset() - 1
    } else {
        offset
    };
    let req = BrokerHeartbeatRequest::default()
        .with_broker_id(BrokerId(id))
        .with_broker_epoch(epoch)
        .with_current_metadata_offset(offset)
        .with_want_fence(want_fence)
        .with_want_shut_down(want_shut_down);
    c.broker_heartbeat(&req, now)
}

/// Runs every periodic task due up to `until`, each at its own due time.
fn advance(c: &mut Controller, until: i64) {
    while c.next_timer_ms() <= until {
        let due = c.next_timer_ms();
        c.run_timers(due);
    }
}

fn register(c: &mut Controller, id: i32, incarnation: u64, now: i64) -> i64 {
    let resp = c.register_broker(&registration(id, incarnation, -1), 4, now);
    assert_eq!(resp.error_code, 0, "registration of {id}");
    resp.broker_epoch
}

/// Registers and unfences `id` at `now` (a heartbeat caught up with the whole log).
fn join(c: &mut Controller, id: i32, now: i64) -> i64 {
    let epoch = register(c, id, 1, now);
    let end = c.next_write_offset() - 1;
    let resp = heartbeat(c, id, epoch, end, false, false, now);
    assert_eq!(resp.error_code, 0);
    assert!(!resp.is_fenced, "broker {id} unfenced");
    epoch
}

fn fence_time(events: &[EventKind], broker: i32) -> bool {
    events.iter().any(|e| {
        matches!(e, EventKind::BrokerFenced { broker: b, reason: FenceReason::SessionExpired, .. } if *b == broker)
    })
}

#[test]
fn a_silent_broker_is_fenced_9000_to_10125_ms_after_its_last_heartbeat() {
    let mut delays = Vec::new();
    // Vary the phase of the last heartbeat against the 1125 ms scan period.
    for phase in (0..1125).step_by(25) {
        let mut c = Controller::new(ControllerConfig::default(), 0);
        let epoch = join(&mut c, 1, 100);
        let mut now = 100;
        for _ in 0..3 {
            now += 2000;
            advance(&mut c, now);
            let resp = heartbeat(&mut c, 1, epoch, CAUGHT_UP, false, false, now);
            assert!(!resp.is_fenced);
        }
        let last = now + phase;
        advance(&mut c, last);
        heartbeat(&mut c, 1, epoch, CAUGHT_UP, false, false, last);
        c.take_events();
        let mut t = last;
        let fenced_at = loop {
            let due = c.next_timer_ms();
            assert!(due <= last + 20_000, "never fenced");
            c.run_timers(due);
            t = t.max(due);
            if fence_time(&c.take_events(), 1) {
                break due;
            }
        };
        assert!(c.image().broker(1).unwrap().fenced);
        delays.push(fenced_at - last);
    }
    let min = *delays.iter().min().unwrap();
    let max = *delays.iter().max().unwrap();
    assert!(min > 9000, "fenced too early: {min} ms");
    assert!(max <= 10_125, "fenced too late: {max} ms");
    // The scan phase spreads the delays over the whole window.
    assert!(max - min >= 1075, "delays {min}..{max}");
}

#[test]
fn unfencing_waits_for_catch_up_and_want_fence_false() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epoch = register(&mut c, 1, 1, 10);
    let register_offset = c.image().register_offsets[&1];
    assert_eq!(
        epoch, register_offset,
        "no cleanup records before a first registration"
    );
    // Behind the registration record: fenced, not caught up.
    let r = heartbeat(&mut c, 1, epoch, register_offset - 1, false, false, 20);
    assert_eq!((r.is_caught_up, r.is_fenced), (false, true));
    // Caught up but still asking to stay fenced (STARTING -> RECOVERY).
    let r = heartbeat(&mut c, 1, epoch, register_offset, true, false, 30);
    assert_eq!((r.is_caught_up, r.is_fenced), (true, true));
    assert!(c.image().broker(1).unwrap().fenced);
    // Ready: unfenced.
    let r = heartbeat(&mut c, 1, epoch, register_offset, false, false, 40);
    assert_eq!(
        (r.is_caught_up, r.is_fenced, r.should_shut_down),
        (true, false, false)
    );
    assert!(!c.image().broker(1).unwrap().fenced);
    // Asking to be fenced again fences.
    let r = heartbeat(&mut c, 1, epoch, register_offset, true, false, 50);
    assert!(r.is_fenced);
}

#[test]
fn controlled_shutdown_moves_leadership_first_then_grants_shutdown() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epochs: Vec<i64> = (1..=3).map(|id| join(&mut c, id, 10)).collect();
    c.create_topic(GROUP_METADATA_TOPIC, 3, 3, false).unwrap();
    let topic = c.image().topic(GROUP_METADATA_TOPIC).unwrap().clone();
    // Deterministic placement: partition p starts at broker p+1.
    assert_eq!(topic.partitions[&0].replicas, vec![1, 2, 3]);
    assert_eq!(topic.partitions[&1].replicas, vec![2, 3, 1]);
    assert_eq!(topic.partitions[&0].leader, 1);
    let end = c.next_write_offset() - 1;
    for (i, e) in epochs.iter().enumerate() {
        heartbeat(&mut c, i as i32 + 1, *e, end, false, false, 20);
    }
    c.take_events();

    // Broker 1 asks to shut down: leadership moves, but the answer is "not yet".
    let r = heartbeat(&mut c, 1, epochs[0], end, false, true, 30);
    assert_eq!((r.is_fenced, r.should_shut_down), (false, false));
    assert!(!c.has_leaderships(1));
    let topic = c.image().topic(GROUP_METADATA_TOPIC).unwrap();
    assert_eq!(topic.partitions[&0].leader, 2);
    assert_eq!(topic.partitions[&0].leader_epoch, 1);
    assert_eq!(topic.partitions[&0].isr, vec![2, 3]);
    assert!(c.image().broker(1).unwrap().in_controlled_shutdown);
    let cs_offset = c.heartbeats().controlled_shutdown_offset(1).unwrap();
    assert_eq!(cs_offset, c.next_write_offset() - 1);
    assert!(
        c.take_events()
            .iter()
            .any(|e| matches!(e, EventKind::ControlledShutdownStarted { broker: 1, .. }))
    );

    // The others have not yet reported that offset: still not granted.
    let r = heartbeat(&mut c, 1, epochs[0], cs_offset, false, true, 80);
    assert_eq!((r.is_fenced, r.should_shut_down), (false, false));
    heartbeat(&mut c, 2, epochs[1], cs_offset, false, false, 90);
    let r = heartbeat(&mut c, 1, epochs[0], cs_offset, false, true, 100);
    assert!(!r.should_shut_down, "broker 3 is still behind");
    heartbeat(&mut c, 3, epochs[2], cs_offset, false, false, 110);
    let r = heartbeat(&mut c, 1, epochs[0], cs_offset, false, true, 120);
    assert_eq!((r.is_fenced, r.should_shut_down), (true, true));
    assert!(c.image().broker(1).unwrap().fenced);
    assert!(
        c.take_events()
            .iter()
            .any(|e| matches!(e, EventKind::ShutdownGranted { broker: 1, .. }))
    );
}

#[test]
fn a_broker_leading_nothing_shuts_down_at_once() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epoch = join(&mut c, 1, 10);
    let r = heartbeat(&mut c, 1, epoch, CAUGHT_UP, false, true, 20);
    assert_eq!((r.is_fenced, r.should_shut_down), (true, true));
}

#[test]
fn a_restarted_broker_waits_out_the_old_session_then_gets_a_higher_epoch() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let old = join(&mut c, 1, 0);
    heartbeat(&mut c, 1, old, CAUGHT_UP, false, false, 2000);
    // Quick restart with a new incarnation: the old session (last contact 2000) is still valid.
    for t in [3000, 5000, 7000, 9000, 11_000] {
        advance(&mut c, t);
        let r = c.register_broker(&registration(1, 2, -1), 4, t);
        assert_eq!(
            r.error_code,
            ErrorCode::DuplicateBrokerRegistration.code(),
            "at {t}"
        );
        assert_eq!(r.broker_epoch, -1);
    }
    // 11_001 is strictly more than 9000 ms after the last contact: accepted, even before the scan
    // has fenced the old incarnation.
    advance(&mut c, 11_001);
    let r = c.register_broker(&registration(1, 2, -1), 4, 11_001);
    assert_eq!(r.error_code, 0);
    let new = r.broker_epoch;
    assert!(new > old, "epoch {new} > {old}");
    assert!(
        c.image().broker(1).unwrap().fenced,
        "a new incarnation registers fenced"
    );
    // The old epoch is stale from now on; error responses keep the default flags.
    let r = heartbeat(&mut c, 1, old, CAUGHT_UP, false, false, 11_100);
    assert_eq!(r.error_code, ErrorCode::StaleBrokerEpoch.code());
    assert_eq!(
        (r.is_caught_up, r.is_fenced, r.should_shut_down),
        (false, true, false)
    );
    // An unknown broker is stale too.
    let r = heartbeat(&mut c, 9, 5, 0, false, false, 11_100);
    assert_eq!(r.error_code, ErrorCode::StaleBrokerEpoch.code());
    let r = heartbeat(&mut c, 1, new, CAUGHT_UP, false, false, 11_200);
    assert_eq!((r.error_code, r.is_fenced), (0, false));
}

#[test]
fn an_unclean_restart_moves_leadership_at_registration_time() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epochs: Vec<i64> = (1..=3).map(|id| join(&mut c, id, 0)).collect();
    c.create_topic(GROUP_METADATA_TOPIC, 3, 3, false).unwrap();
    let tid = c.image().topic(GROUP_METADATA_TOPIC).unwrap().id;
    assert_eq!(c.image().partition(&tid, 0).unwrap().leader, 1);
    for (i, e) in epochs.iter().enumerate() {
        heartbeat(&mut c, i as i32 + 1, *e, CAUGHT_UP, false, false, 1000);
    }
    // Broker 1 crashed after its heartbeat at 1000 and comes back at 10_001 with a new
    // incarnation, before any scan fenced it (next scans: 1125 * k).
    let before = c.next_write_offset();
    let r = c.register_broker(&registration(1, 2, -1), 4, 10_001);
    assert_eq!(r.error_code, 0);
    assert_eq!(
        r.broker_epoch, before,
        "epoch = offset of the first record of the batch"
    );
    let p = c.image().partition(&tid, 0).unwrap();
    assert_eq!((p.leader, p.leader_epoch), (2, 1));
    assert_eq!(p.isr, vec![2, 3]);
    assert!(c.image().register_offsets[&1] > r.broker_epoch);
    // The scan later finds the old (id, epoch) entry with a mismatched epoch and writes nothing.
    heartbeat(&mut c, 2, epochs[1], CAUGHT_UP, false, false, 10_001);
    heartbeat(&mut c, 3, epochs[2], CAUGHT_UP, false, false, 10_001);
    let end = c.next_write_offset();
    advance(&mut c, 12_000);
    assert_eq!(c.next_write_offset(), end);
}

#[test]
fn the_last_isr_member_fenced_stays_eligible_and_is_reelected_on_unfence() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epoch = join(&mut c, 1, 0);
    c.create_topic(GROUP_METADATA_TOPIC, 1, 1, false).unwrap();
    let tid = c.image().topic(GROUP_METADATA_TOPIC).unwrap().id;
    advance(&mut c, 12_000);
    let p = c.image().partition(&tid, 0).unwrap();
    assert_eq!(p.leader, NO_LEADER);
    assert!(p.isr.is_empty());
    assert_eq!(p.elr, vec![1]);
    // The same incarnation heartbeats again: unfenced and elected from the ELR.
    let r = heartbeat(&mut c, 1, epoch, CAUGHT_UP, false, false, 12_100);
    assert!(!r.is_fenced);
    let p = c.image().partition(&tid, 0).unwrap();
    assert_eq!(
        (p.leader, p.isr.clone(), p.elr.clone()),
        (1, vec![1], vec![])
    );
}

#[test]
fn registration_checks_follow_kafka_4_4() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let wrong_cluster = registration(1, 1, -1).with_cluster_id(s("other"));
    assert_eq!(
        c.register_broker(&wrong_cluster, 4, 0).error_code,
        ErrorCode::InconsistentClusterId.code()
    );
    let no_dirs = registration(1, 1, -1).with_log_dirs(vec![]);
    assert_eq!(
        c.register_broker(&no_dirs, 4, 0).error_code,
        ErrorCode::InvalidRegistration.code()
    );
    let no_mv = registration(1, 1, -1).with_features(vec![]);
    assert_eq!(
        c.register_broker(&no_mv, 4, 0).error_code,
        ErrorCode::InvalidRegistration.code()
    );
    let too_old = registration(1, 1, -1).with_features(vec![
        Feature::default()
            .with_name(s("metadata.version"))
            .with_min_supported_version(7)
            .with_max_supported_version(20),
    ]);
    assert_eq!(
        c.register_broker(&too_old, 4, 0).error_code,
        ErrorCode::UnsupportedVersion.code()
    );
    let zk = registration(1, 1, -1).with_is_migrating_zk_broker(true);
    assert_eq!(
        c.register_broker(&zk, 4, 0).error_code,
        ErrorCode::BrokerIdNotRegistered.code()
    );
    // Re-registering the same incarnation keeps the epoch.
    let e1 = register(&mut c, 1, 1, 0);
    let e2 = register(&mut c, 1, 1, 10);
    assert_eq!(e1, e2);
    assert!(
        c.log()
            .iter()
            .filter(|r| matches!(r, MetadataRecord::RegisterBroker { .. }))
            .count()
            == 2
    );
}

#[test]
fn a_clean_restart_is_recognised_by_the_previous_broker_epoch() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epochs: Vec<i64> = (1..=2).map(|id| join(&mut c, id, 0)).collect();
    c.create_topic("t", 1, 2, false).unwrap();
    let tid = c.image().topic("t").unwrap().id;
    // Broker 1 shuts down cleanly (controlled shutdown), then restarts after its session.
    let end = c.next_write_offset() - 1;
    heartbeat(&mut c, 2, epochs[1], end + 10, false, false, 100);
    heartbeat(&mut c, 1, epochs[0], end, false, true, 100);
    let r = heartbeat(&mut c, 1, epochs[0], CAUGHT_UP, false, true, 200);
    assert!(r.should_shut_down);
    advance(&mut c, 9_500);
    heartbeat(&mut c, 2, epochs[1], CAUGHT_UP, false, false, 9_500);
    let r = c.register_broker(&registration(1, 2, epochs[0]), 4, 9_500);
    assert_eq!(r.error_code, 0);
    let p = c.image().partition(&tid, 0).unwrap();
    assert_eq!((p.leader, p.isr.clone()), (2, vec![2]));
}

#[test]
fn alter_partition_expands_and_validates_the_isr() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let epochs: Vec<i64> = (1..=3).map(|id| join(&mut c, id, 0)).collect();
    c.create_topic("t", 1, 3, false).unwrap();
    // Fence broker 3 (WantFence), it leaves the ISR; then unfence it again.
    heartbeat(&mut c, 3, epochs[2], CAUGHT_UP, true, false, 10);
    let tid = c.image().topic("t").unwrap().id;
    let p = c.image().partition(&tid, 0).unwrap().clone();
    assert_eq!(p.isr, vec![1, 2]);
    heartbeat(&mut c, 3, epochs[2], CAUGHT_UP, false, false, 20);
    let p = c.image().partition(&tid, 0).unwrap().clone();
    let request =
        |isr: &[(i32, i64)], leader_epoch: i32, partition_epoch: i32| AlterPartitionRequest {
            broker_id: 1,
            broker_epoch: epochs[0],
            topics: vec![AlterPartitionTopic {
                topic_name: "t".into(),
                partitions: vec![AlterPartitionData {
                    partition_index: 0,
                    leader_epoch,
                    new_isr_with_epochs: isr
                        .iter()
                        .map(|(b, e)| IsrMember {
                            broker_id: *b,
                            broker_epoch: *e,
                        })
                        .collect(),
                    leader_recovery_state: 0,
                    partition_epoch,
                }],
            }],
        };
    // A stale broker epoch for the new member is ineligible.
    let r = c.alter_partition(&request(
        &[(1, epochs[0]), (2, epochs[1]), (3, epochs[2] + 1)],
        p.leader_epoch,
        p.partition_epoch,
    ));
    assert_eq!(
        r.topics[0].partitions[0].error_code,
        ErrorCode::IneligibleReplica.code()
    );
    // An old partition epoch is refused.
    let r = c.alter_partition(&request(
        &[(1, epochs[0]), (2, epochs[1]), (3, epochs[2])],
        p.leader_epoch,
        p.partition_epoch - 1,
    ));
    assert_eq!(
        r.topics[0].partitions[0].error_code,
        ErrorCode::InvalidUpdateVersion.code()
    );
    let r = c.alter_partition(&request(
        &[(1, epochs[0]), (2, epochs[1]), (3, epochs[2])],
        p.leader_epoch,
        p.partition_epoch,
    ));
    let res = &r.topics[0].partitions[0];
    assert_eq!(res.error_code, 0);
    assert_eq!(res.isr, vec![1, 2, 3]);
    assert_eq!(res.partition_epoch, p.partition_epoch + 1);
    assert_eq!(res.leader_epoch, p.leader_epoch);
}

#[test]
fn a_restarted_controller_gives_sessions_only_to_unfenced_brokers() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    let e1 = join(&mut c, 1, 0);
    let _e2 = register(&mut c, 2, 1, 0);
    heartbeat(&mut c, 1, e1, CAUGHT_UP, false, false, 100);
    let log = c.log().to_vec();
    let mut c = Controller::recover(ControllerConfig::default(), log, 50_000).unwrap();
    // Broker 2 (fenced) has no session: a new incarnation registers at once.
    let r = c.register_broker(&registration(2, 2, -1), 4, 50_001);
    assert_eq!(r.error_code, 0);
    // Broker 1 (unfenced) got a fresh session at activation.
    let r = c.register_broker(&registration(1, 2, -1), 4, 50_001);
    assert_eq!(r.error_code, ErrorCode::DuplicateBrokerRegistration.code());
    advance(&mut c, 61_000);
    assert!(
        c.image().broker(1).unwrap().fenced,
        "fenced one session after activation"
    );
}

#[test]
fn create_partitions_grows_a_topic_and_delete_topic_removes_it() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    for id in 1..=3 {
        join(&mut c, id, 0);
    }
    c.create_topic("t", 2, 2, false).unwrap();
    let tid = c.image().topic("t").unwrap().id;
    c.take_events();
    assert_eq!(c.create_partitions("t", 5), Ok(3));
    let t = c.image().topic("t").unwrap();
    assert_eq!(t.partitions.len(), 5);
    // New partitions are placed like a topic created with 5 partitions: p takes 2 brokers from
    // position p, and lead with their first replica.
    let p4 = &t.partitions[&4];
    assert_eq!(
        (p4.replicas.clone(), p4.leader, p4.leader_epoch),
        (vec![2, 3], 2, 0)
    );
    assert!(c.take_events().contains(&EventKind::PartitionsAdded {
        topic: "t".into(),
        partitions: 5
    }));
    assert_eq!(
        c.create_partitions("t", 5),
        Err((
            ErrorCode::InvalidPartitions,
            "Topic already has 5 partition(s).".into()
        ))
    );
    assert_eq!(
        c.create_partitions("t", 3),
        Err((
            ErrorCode::InvalidPartitions,
            "The topic t currently has 5 partition(s); 3 would not be an increase.".into()
        ))
    );
    assert_eq!(
        c.create_partitions("nope", 3).unwrap_err().0,
        ErrorCode::UnknownTopicOrPartition
    );
    let before = c.log().len();
    c.delete_topic("t").unwrap();
    assert_eq!(
        &c.log()[before..],
        &[MetadataRecord::RemoveTopic { topic_id: tid }]
    );
    assert!(c.image().topic("t").is_none());
    assert!(c.image().topic_by_id(&tid).is_none());
    assert!(
        c.take_events()
            .contains(&EventKind::TopicDeleted { topic: "t".into() })
    );
    assert_eq!(
        c.delete_topic("t").unwrap_err().0,
        ErrorCode::UnknownTopicOrPartition
    );
    // A restarted controller replays the removal.
    let recovered = Controller::recover(ControllerConfig::default(), c.log().to_vec(), 0).unwrap();
    assert!(recovered.image().topic("t").is_none());
}

/// Kafka gives every topic creation a new id: a topic deleted and created again under its name is
/// another topic (its old id's offsets are not its offsets). regroup's ids stay deterministic: the
/// first creation of a name gets the name's derived id, each later one another id.
#[test]
fn a_topic_created_again_after_its_deletion_gets_a_new_id() {
    let mut c = Controller::new(ControllerConfig::default(), 0);
    join(&mut c, 1, 0);
    let (first, _, _) = c.create_topic("events", 3, 1, false).unwrap();
    assert_eq!(first, coordinator::topics::derived_topic_id("events"));
    // validate-only creations write nothing and count as none.
    let (checked, _, _) = c.create_topic("other", 1, 1, true).unwrap();
    assert_eq!(checked, coordinator::topics::derived_topic_id("other"));
    c.delete_topic("events").unwrap();
    let (second, _, _) = c.create_topic("events", 3, 1, false).unwrap();
    assert_ne!(second, first);
    assert_eq!(
        second,
        coordinator::controller::incarnation_topic_id("events", 1)
    );
    assert_eq!(c.image().topic("events").map(|t| t.id), Some(second));
    assert!(c.image().topic_by_id(&first).is_none());
    c.delete_topic("events").unwrap();
    let (third, _, _) = c.create_topic("events", 3, 1, false).unwrap();
    assert!(third != first && third != second);
    // A restarted controller replays the log and goes on counting.
    let mut restarted =
        Controller::recover(ControllerConfig::default(), c.log().to_vec(), 10).unwrap();
    restarted.delete_topic("events").unwrap();
    let (fourth, _, _) = restarted.create_topic("events", 3, 1, false).unwrap();
    assert_eq!(
        fourth,
        coordinator::controller::incarnation_topic_id("events", 3)
    );
}

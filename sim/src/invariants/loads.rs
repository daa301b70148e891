//! 9. coordinator-load: a coordinator that finished loading holds the soft state Kafka re-creates
//!    on load, and its runtime lists it as active.
//!
//! Checked once per load, through the brokers' test hook
//! ([`coordinator::events::EventSink::coordinator_loaded`]), right after the shard's `onLoaded`
//! and before any request or timer runs on it, against the broker's own runtime:
//! * the runtime lists the partition among its contexts ([`CoordinatorRuntime::partitions`]; Kafka's
//!   runtime keeps one per partition in its `coordinators` map), ACTIVE, and hands out its shard;
//! * streams groups (`GroupMetadataManager.onLoaded`): every member's session timer is armed at
//!   load time + the group's effective session timeout, and every member still revoking tasks
//!   (UNREVOKED_TASKS) has its rebalance timer at load time + its own rebalance timeout, for its
//!   current member epoch;
//! * classic groups (`GroupMetadataManager.onLoaded` over `ClassicGroup` members,
//!   `rescheduleClassicGroupMemberHeartbeat`): every member's heartbeat timer is armed at load
//!   time + its session timeout.
//!
//! The hook reads the shard; it records no event, so traces do not move.

use std::collections::BTreeMap;

use coordinator::broker::runtime::CoordinatorRuntime;
use coordinator::outcome::{ClassicTimer, StreamsTimer, TimerTask};
use coordinator::shard::Shard;
use coordinator::streams::member::MemberState;

use super::{Invariant, Violation};

fn violation(at_ms: i64, host: &str, partition: i32, detail: String) -> Violation {
    Violation::new(
        Invariant::CoordinatorLoad,
        at_ms,
        format!("{host} loaded the coordinator of partition {partition}: {detail}"),
    )
}

/// The checks of one load. `now_ms` is the broker's clock (the shard's timer base); `at_ms` the
/// same instant in simulated ms (the violation's time).
pub fn check_loaded(
    at_ms: i64,
    host: &str,
    partition: i32,
    runtime: &CoordinatorRuntime,
    now_ms: i64,
) -> Result<(), Violation> {
    let fail = |detail: String| violation(at_ms, host, partition, detail);
    if !runtime.partitions().contains(&partition) {
        return Err(fail(format!(
            "the runtime lists its coordinators as {:?}, without it",
            runtime.partitions()
        )));
    }
    if !runtime.active_partitions().contains(&partition) {
        return Err(fail(format!(
            "the runtime's context is {:?}, not active",
            runtime.context_state(partition)
        )));
    }
    let Some(shard) = runtime.shard(partition) else {
        return Err(fail(
            "the runtime has no shard for the active context".into(),
        ));
    };
    check_streams(shard, now_ms).map_err(&fail)?;
    check_classic(shard, now_ms).map_err(&fail)
}

/// Every timer of the shard by key: (deadline, task).
fn timers(shard: &Shard) -> BTreeMap<&str, (i64, &TimerTask)> {
    shard
        .timers
        .iter()
        .map(|(key, deadline, task)| (key, (deadline, task)))
        .collect()
}

/// `onLoaded` for streams groups: `scheduleStreamsGroupSessionTimeout` for every member,
/// `scheduleStreamsGroupRebalanceTimeout` for members in UNREVOKED_TASKS.
fn check_streams(shard: &Shard, now_ms: i64) -> Result<(), String> {
    let timers = timers(shard);
    for (group_id, persistent) in shard.streams.persistent_state() {
        let effective = shard
            .config
            .streams
            .effective(shard.config.group_overrides.get(group_id));
        for m in persistent.members.values() {
            let key = coordinator::streams::timers::session_key(group_id, &m.member_id);
            let want = now_ms + i64::from(effective.session_timeout_ms);
            match timers.get(key.as_str()) {
                Some((deadline, TimerTask::Streams(StreamsTimer::SessionTimeout { .. })))
                    if *deadline == want => {}
                other => {
                    return Err(format!(
                        "streams member {} of group {group_id} has session timer {}, not one due \
                         at load + {} ms",
                        m.member_id,
                        shown(other, now_ms),
                        effective.session_timeout_ms
                    ));
                }
            }
            if m.state != MemberState::UnrevokedTasks {
                continue;
            }
            let key = coordinator::streams::timers::rebalance_key(group_id, &m.member_id);
            let want = now_ms + i64::from(m.rebalance_timeout_ms);
            match timers.get(key.as_str()) {
                Some((
                    deadline,
                    TimerTask::Streams(StreamsTimer::RebalanceTimeout { member_epoch, .. }),
                )) if *deadline == want && *member_epoch == m.member_epoch => {}
                other => {
                    return Err(format!(
                        "streams member {} of group {group_id}, revoking tasks at epoch {}, has \
                         rebalance timer {}, not one due at load + {} ms for that epoch",
                        m.member_id,
                        m.member_epoch,
                        shown(other, now_ms),
                        m.rebalance_timeout_ms
                    ));
                }
            }
        }
    }
    Ok(())
}

/// `onLoaded` for classic groups: `rescheduleClassicGroupMemberHeartbeat` for every member.
fn check_classic(shard: &Shard, now_ms: i64) -> Result<(), String> {
    let timers = timers(shard);
    for group in shard.classic.groups() {
        for m in group.members() {
            let key = coordinator::classic::ctx::heartbeat_key(group.group_id(), &m.member_id);
            let want = now_ms + i64::from(m.session_timeout_ms);
            match timers.get(key.as_str()) {
                Some((deadline, TimerTask::Classic(ClassicTimer::Heartbeat { .. })))
                    if *deadline == want => {}
                other => {
                    return Err(format!(
                        "classic member {} of group {} has heartbeat timer {}, not one due at \
                         load + {} ms",
                        m.member_id,
                        group.group_id(),
                        shown(other, now_ms),
                        m.session_timeout_ms
                    ));
                }
            }
        }
    }
    Ok(())
}

fn shown(timer: Option<&(i64, &TimerTask)>, now_ms: i64) -> String {
    match timer {
        None => "none".into(),
        Some((deadline, task)) => format!("{task:?} due at load {:+} ms", deadline - now_ms),
    }
}

#[cfg(test)]
mod tests {
    use coordinator::Record;
    use coordinator::config::ShardConfig;
    use coordinator::records::classic::GroupMetadataKey;
    use coordinator::records::streams::StreamsMemberKey;
    use serde_json::json;

    use super::*;

    const NOW: i64 = 1_000_000;

    fn member_key(member: &str) -> StreamsMemberKey {
        StreamsMemberKey {
            group_id: "app".into(),
            member_id: member.into(),
        }
    }

    /// A shard loaded from: streams group `app` with `m1` revoking a task at epoch 3 (rebalance
    /// timeout 20 s) and `m2` stable, and classic group `g` with member `c1` (session 15 s).
    fn loaded_shard() -> Shard {
        let mut shard = Shard::new(ShardConfig::default());
        for (member, state, revoking) in [("m1", 2, true), ("m2", 0, false)] {
            shard.replay(&Record::StreamsGroupMemberMetadata {
                key: member_key(member),
                value: Some(
                    serde_json::from_value(json!({
                        "instanceId": null, "rackId": null, "clientId": "c", "clientHost": "h",
                        "rebalanceTimeoutMs": 20000, "topologyEpoch": 0, "processId": member,
                        "userEndpoint": null, "clientTags": []
                    }))
                    .unwrap(),
                ),
            });
            let pending = if revoking {
                json!([{"subtopologyId": "s1", "partitions": [1]}])
            } else {
                json!([])
            };
            shard.replay(&Record::StreamsGroupCurrentMemberAssignment {
                key: member_key(member),
                value: Some(
                    serde_json::from_value(json!({
                        "memberEpoch": 3, "previousMemberEpoch": 2, "state": state,
                        "activeTasks": [{"subtopologyId": "s1", "partitions": [0]}],
                        "standbyTasks": [], "warmupTasks": [],
                        "activeTasksPendingRevocation": pending,
                        "standbyTasksPendingRevocation": [], "warmupTasksPendingRevocation": []
                    }))
                    .unwrap(),
                ),
            });
        }
        shard.replay(&Record::GroupMetadata {
            key: GroupMetadataKey { group: "g".into() },
            value: Some(
                serde_json::from_value(json!({
                    "protocolType": "consumer", "generation": 1, "protocol": "range",
                    "leader": "c1", "currentStateTimestamp": 5,
                    "members": [{"memberId": "c1", "groupInstanceId": null, "clientId": "c",
                                 "clientHost": "h", "rebalanceTimeout": 30000,
                                 "sessionTimeout": 15000, "subscription": "", "assignment": ""}]
                }))
                .unwrap(),
            ),
        });
        shard.on_loaded(NOW);
        shard
    }

    #[test]
    fn what_on_loaded_arms_passes() {
        let shard = loaded_shard();
        assert_eq!(
            shard.timers.deadline("rebalance-timeout-app-m1"),
            Some(NOW + 20_000)
        );
        assert_eq!(check_streams(&shard, NOW), Ok(()));
        assert_eq!(check_classic(&shard, NOW), Ok(()));
    }

    #[test]
    fn a_rebalance_timer_due_before_the_load_is_reported() {
        let mut shard = loaded_shard();
        assert!(
            shard
                .timers
                .reschedule("rebalance-timeout-app-m1", NOW - 20_000)
        );
        assert_eq!(
            check_streams(&shard, NOW),
            Err("streams member m1 of group app, revoking tasks at epoch 3, has rebalance timer \
                 Streams(RebalanceTimeout { group_id: \"app\", member_id: \"m1\", member_epoch: 3 }) \
                 due at load -20000 ms, not one due at load + 20000 ms for that epoch"
                .into())
        );
    }

    #[test]
    fn a_session_timer_missing_is_reported() {
        let mut shard = loaded_shard();
        assert!(shard.timers.cancel("session-timeout-app-m2"));
        assert_eq!(
            check_streams(&shard, NOW),
            Err(
                "streams member m2 of group app has session timer none, not one due at load + \
                 45000 ms"
                    .into()
            )
        );
    }

    #[test]
    fn a_classic_heartbeat_missing_is_reported() {
        let mut shard = loaded_shard();
        assert!(shard.timers.cancel("heartbeat-g-c1"));
        assert_eq!(
            check_classic(&shard, NOW),
            Err(
                "classic member c1 of group g has heartbeat timer none, not one due at load + \
                 15000 ms"
                    .into()
            )
        );
    }

    #[test]
    fn a_context_not_loaded_is_reported() {
        let mut runtime = CoordinatorRuntime::new(3, 5000);
        runtime.on_election(1, 2, 1);
        assert_eq!(
            check_loaded(7, "broker-1", 2, &runtime, NOW).map_err(|v| v.detail),
            Err(
                "broker-1 loaded the coordinator of partition 2: the runtime's context is \
                 Some((Loading, 1)), not active"
                    .into()
            )
        );
        assert_eq!(
            check_loaded(7, "broker-1", 0, &runtime, NOW).map_err(|v| v.detail),
            Err(
                "broker-1 loaded the coordinator of partition 0: the runtime lists its \
                 coordinators as [2], without it"
                    .into()
            )
        );
    }
}

//! The consumer-group timers of a shard: Kafka's keys and what each timer does when it fires.

use crate::outcome::TimerTask;
use crate::timer::Timers;

pub use crate::outcome::ConsumerTimer;

/// Kafka's `groupSessionTimeoutKey`.
pub fn session_key(group_id: &str, member_id: &str) -> String {
    format!("session-timeout-{group_id}-{member_id}")
}

/// Kafka's `groupRebalanceTimeoutKey`.
pub fn rebalance_key(group_id: &str, member_id: &str) -> String {
    format!("rebalance-timeout-{group_id}-{member_id}")
}

/// Kafka's `consumerGroupJoinKey` (a classic-protocol member's join deadline).
pub fn join_key(group_id: &str, member_id: &str) -> String {
    format!("join-{group_id}-{member_id}")
}

/// Kafka's `consumerGroupSyncKey` (a classic-protocol member's sync deadline).
pub fn sync_key(group_id: &str, member_id: &str) -> String {
    format!("sync-{group_id}-{member_id}")
}

/// `scheduleConsumerGroupSessionTimeout`: fences the member when it fires.
pub fn schedule_session(
    timers: &mut Timers<TimerTask>,
    group_id: &str,
    member_id: &str,
    deadline_ms: i64,
) {
    let key = session_key(group_id, member_id);
    // The task of a member's session timer never changes: move the existing one.
    if timers.reschedule(&key, deadline_ms) {
        return;
    }
    timers.schedule(
        key,
        deadline_ms,
        TimerTask::Consumer(ConsumerTimer::SessionTimeout {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        }),
    );
}

/// `scheduleConsumerGroupRebalanceTimeout`: fences the member if it is still at `member_epoch`.
pub fn schedule_rebalance(
    timers: &mut Timers<TimerTask>,
    group_id: &str,
    member_id: &str,
    member_epoch: i32,
    deadline_ms: i64,
) {
    timers.schedule(
        rebalance_key(group_id, member_id),
        deadline_ms,
        TimerTask::Consumer(ConsumerTimer::RebalanceTimeout {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
            member_epoch,
        }),
    );
}

/// `scheduleConsumerGroupJoinTimeoutIfAbsent`: a classic-protocol member told to rejoin is fenced if
/// it has not rejoined by then.
pub fn schedule_join_if_absent(
    timers: &mut Timers<TimerTask>,
    group_id: &str,
    member_id: &str,
    deadline_ms: i64,
) {
    let key = join_key(group_id, member_id);
    if timers.is_scheduled(&key) {
        return;
    }
    timers.schedule(
        key,
        deadline_ms,
        TimerTask::Consumer(ConsumerTimer::JoinTimeout {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        }),
    );
}

/// `scheduleConsumerGroupSyncTimeout`: a classic-protocol member that joined is fenced if it has not
/// synced by then.
pub fn schedule_sync(
    timers: &mut Timers<TimerTask>,
    group_id: &str,
    member_id: &str,
    deadline_ms: i64,
) {
    timers.schedule(
        sync_key(group_id, member_id),
        deadline_ms,
        TimerTask::Consumer(ConsumerTimer::SyncTimeout {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        }),
    );
}

/// `cancelConsumerGroupJoinTimeout`.
pub fn cancel_join(timers: &mut Timers<TimerTask>, group_id: &str, member_id: &str) {
    timers.cancel(&join_key(group_id, member_id));
}

/// `cancelConsumerGroupSyncTimeout`.
pub fn cancel_sync(timers: &mut Timers<TimerTask>, group_id: &str, member_id: &str) {
    timers.cancel(&sync_key(group_id, member_id));
}

/// `cancelTimers` for a fenced member: its session, rebalance, join and sync timeouts.
pub fn cancel_member(timers: &mut Timers<TimerTask>, group_id: &str, member_id: &str) {
    timers.cancel(&session_key(group_id, member_id));
    timers.cancel(&rebalance_key(group_id, member_id));
    timers.cancel(&join_key(group_id, member_id));
    timers.cancel(&sync_key(group_id, member_id));
}

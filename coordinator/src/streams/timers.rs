//! The streams timers of a shard: Kafka's keys and what each timer does when it fires.

use crate::outcome::TimerTask;
use crate::timer::Timers;

pub use crate::outcome::StreamsTimer;

/// `<prefix><group_id>-<member_id>` in one allocation, without `core::fmt` (every heartbeat
/// builds a session key).
fn member_key(prefix: &str, group_id: &str, member_id: &str) -> String {
    let mut key = String::with_capacity(prefix.len() + group_id.len() + 1 + member_id.len());
    key.push_str(prefix);
    key.push_str(group_id);
    key.push('-');
    key.push_str(member_id);
    key
}

/// Kafka's `groupSessionTimeoutKey`.
pub fn session_key(group_id: &str, member_id: &str) -> String {
    member_key("session-timeout-", group_id, member_id)
}

/// Kafka's `groupRebalanceTimeoutKey`.
pub fn rebalance_key(group_id: &str, member_id: &str) -> String {
    member_key("rebalance-timeout-", group_id, member_id)
}

/// Kafka's `StreamsGroup.initialRebalanceTimeoutKey`.
pub fn initial_rebalance_key(group_id: &str) -> String {
    format!("initial-rebalance-timeout-{group_id}")
}

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
        TimerTask::Streams(StreamsTimer::SessionTimeout {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
        }),
    );
}

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
        TimerTask::Streams(StreamsTimer::RebalanceTimeout {
            group_id: group_id.to_string(),
            member_id: member_id.to_string(),
            member_epoch,
        }),
    );
}

/// `cancelTimers` for a member: its session and rebalance timeouts.
pub fn cancel_member(timers: &mut Timers<TimerTask>, group_id: &str, member_id: &str) {
    timers.cancel(&session_key(group_id, member_id));
    timers.cancel(&rebalance_key(group_id, member_id));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_kafkas() {
        assert_eq!(session_key("app", "m-1"), "session-timeout-app-m-1");
        assert_eq!(rebalance_key("app", "m-1"), "rebalance-timeout-app-m-1");
        assert_eq!(session_key("", ""), "session-timeout--");
        assert_eq!(
            initial_rebalance_key("app"),
            "initial-rebalance-timeout-app"
        );
    }
}

//! 5. broker-fencing: a broker whose last heartbeat is older than the session timeout is fenced
//!    within one check interval, and no fenced broker leads an offsets partition.
//!
//! Checked after every step on the controller's state: its contact times and its metadata image.
//! The controller scans for one expired session every `session / 8` (then again after 10 ms when
//! it fenced one), so an unfenced broker may be at most `session + period + 10 ms × brokers`
//! (plus one tick of the simulation) past its last heartbeat. A broker the restarted controller
//! has heard nothing from counts from the controller's start.

use coordinator::controller::Controller;

use super::{Invariant, Violation};
use crate::mirror::OFFSETS_TOPIC;

/// What the check reads from the controller (times in the controller's clock, epoch ms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BrokerView {
    pub now_ms: i64,
    pub session_timeout_ms: i64,
    pub scan_period_ms: i64,
    /// (id, epoch, fenced, last contact).
    pub brokers: Vec<(i32, i64, bool, Option<i64>)>,
    /// (offsets partition, leader).
    pub offsets_leaders: Vec<(i32, i32)>,
}

impl BrokerView {
    pub fn of(controller: &Controller, now_ms: i64) -> Self {
        let image = controller.image();
        let brokers = image
            .brokers
            .values()
            .map(|b| {
                (
                    b.id,
                    b.epoch,
                    b.fenced,
                    controller.heartbeats().contact_time(b.id, b.epoch),
                )
            })
            .collect();
        let offsets_leaders = image
            .topics
            .get(OFFSETS_TOPIC)
            .map(|t| t.partitions.iter().map(|(p, r)| (*p, r.leader)).collect())
            .unwrap_or_default();
        Self {
            now_ms,
            session_timeout_ms: controller.config().session_timeout_ms,
            scan_period_ms: controller.config().fence_scan_period_ms(),
            brokers,
            offsets_leaders,
        }
    }
}

/// `started_ms`: when this controller incarnation started; `slack_ms`: one simulation tick.
pub fn check(
    at_ms: i64,
    view: &BrokerView,
    started_ms: i64,
    slack_ms: i64,
) -> Result<(), Violation> {
    let bound = bound_ms(view, slack_ms);
    for (id, epoch, fenced, contact) in &view.brokers {
        if *fenced {
            continue;
        }
        let last = contact.unwrap_or(started_ms).max(started_ms);
        if view.now_ms - last > bound {
            return Err(Violation::new(
                Invariant::BrokerFencing,
                at_ms,
                format!(
                    "broker {id} (epoch {epoch}) is unfenced {} ms after its last heartbeat; the \
                     session timeout is {} ms and the controller checks every {} ms",
                    view.now_ms - last,
                    view.session_timeout_ms,
                    view.scan_period_ms
                ),
            ));
        }
    }
    for (partition, leader) in &view.offsets_leaders {
        if *leader < 0 {
            continue;
        }
        if view
            .brokers
            .iter()
            .any(|(id, _, fenced, _)| id == leader && *fenced)
        {
            return Err(Violation::new(
                Invariant::BrokerFencing,
                at_ms,
                format!("fenced broker {leader} leads {OFFSETS_TOPIC}-{partition}"),
            ));
        }
    }
    Ok(())
}

/// How long past its last contact an unfenced broker may be.
fn bound_ms(view: &BrokerView, slack_ms: i64) -> i64 {
    view.session_timeout_ms + view.scan_period_ms + 10 * view.brokers.len() as i64 + slack_ms
}

/// The earliest controller time (epoch ms, like [`BrokerView::now_ms`]) at which [`check`] would
/// fail on this view only because time passed (an unfenced broker's contact growing too old);
/// `None` if no broker is unfenced. Until the controller's state changes, [`check`] at any earlier
/// time gives what it gives now.
pub fn fails_by_time_at(view: &BrokerView, started_ms: i64, slack_ms: i64) -> Option<i64> {
    let bound = bound_ms(view, slack_ms);
    view.brokers
        .iter()
        .filter(|(_, _, fenced, _)| !fenced)
        .map(|(_, _, _, contact)| contact.unwrap_or(started_ms).max(started_ms) + bound + 1)
        .min()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(
        now_ms: i64,
        brokers: Vec<(i32, i64, bool, Option<i64>)>,
        leaders: Vec<(i32, i32)>,
    ) -> BrokerView {
        BrokerView {
            now_ms,
            session_timeout_ms: 9000,
            scan_period_ms: 1125,
            brokers,
            offsets_leaders: leaders,
        }
    }

    #[test]
    fn a_silent_broker_left_unfenced_fires() {
        // Bound: 9000 + 1125 + 20 + 1.
        let ok = view(
            10_146,
            vec![(1, 5, false, Some(0)), (2, 6, false, Some(10_000))],
            vec![],
        );
        check(1, &ok, 0, 1).unwrap();
        let late = view(
            10_147,
            vec![(1, 5, false, Some(0)), (2, 6, false, Some(10_000))],
            vec![],
        );
        let v = check(1, &late, 0, 1).unwrap_err();
        assert_eq!(v.invariant, Invariant::BrokerFencing);
        assert!(
            v.detail.contains("broker 1 (epoch 5) is unfenced 10147 ms"),
            "{}",
            v.detail
        );
        // Fenced brokers may be silent; a restarted controller counts from its start.
        check(1, &view(50_000, vec![(1, 5, true, Some(0))], vec![]), 0, 1).unwrap();
        check(
            1,
            &view(50_000, vec![(1, 5, false, None)], vec![]),
            45_000,
            1,
        )
        .unwrap();
    }

    #[test]
    fn the_check_first_fails_by_time_when_fails_by_time_at_says() {
        let brokers = vec![
            (1, 5, false, Some(0)),
            (2, 6, false, Some(10_000)),
            (3, 7, true, Some(-50_000)),
        ];
        // Bound: 9000 + 1125 + 30 + 1; broker 1 is the oldest unfenced contact.
        let at = fails_by_time_at(&view(0, brokers.clone(), vec![]), 0, 1);
        assert_eq!(at, Some(10_157));
        check(1, &view(10_156, brokers.clone(), vec![]), 0, 1).unwrap();
        check(1, &view(10_157, brokers, vec![]), 0, 1).unwrap_err();
        // A restarted controller counts from its start; fenced brokers never fail by time.
        let silent = view(0, vec![(1, 5, false, None)], vec![]);
        assert_eq!(
            fails_by_time_at(&silent, 45_000, 1),
            Some(45_000 + 10_136 + 1)
        );
        let fenced = view(0, vec![(1, 5, true, Some(0))], vec![]);
        assert_eq!(fails_by_time_at(&fenced, 0, 1), None);
    }

    #[test]
    fn a_fenced_leader_of_an_offsets_partition_fires() {
        let v = view(
            100,
            vec![(1, 5, true, Some(0)), (2, 6, false, Some(90))],
            vec![(0, 2), (1, 1)],
        );
        let e = check(1, &v, 0, 1).unwrap_err();
        assert!(
            e.detail
                .contains("fenced broker 1 leads __consumer_offsets-1"),
            "{}",
            e.detail
        );
        let v = view(100, vec![(1, 5, true, Some(0))], vec![(0, -1)]);
        check(1, &v, 0, 1).unwrap();
    }
}

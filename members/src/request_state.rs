//! Kafka's `RequestState` and `HeartbeatRequestState`: whether a periodic or retried request may be
//! sent now, with exponential backoff after failures. Time is an argument (ms on the transport's
//! clock); jitter comes from the member's seeded generator.

use rand::Rng;

use crate::backoff::ExponentialBackoff;

/// Backoff and in-flight bookkeeping for one kind of request.
#[derive(Debug, Clone)]
pub struct RequestState {
    backoff: ExponentialBackoff,
    last_sent_ms: i64,
    last_received_ms: i64,
    num_attempts: u32,
    backoff_ms: u64,
    in_flight: bool,
}

impl RequestState {
    pub fn new(backoff: ExponentialBackoff) -> Self {
        Self {
            backoff,
            last_sent_ms: -1,
            last_received_ms: -1,
            num_attempts: 0,
            backoff_ms: 0,
            in_flight: false,
        }
    }

    /// Forgets failures and in-flight state (the next request may go at once).
    pub fn reset(&mut self, rng: &mut impl Rng) {
        self.in_flight = false;
        self.last_sent_ms = -1;
        self.last_received_ms = -1;
        self.num_attempts = 0;
        self.backoff_ms = self.backoff.backoff(0, rng);
    }

    pub fn can_send_request(&self, now_ms: i64) -> bool {
        !self.in_flight && self.remaining_backoff_ms(now_ms) == 0
    }

    pub fn request_in_flight(&self) -> bool {
        self.in_flight
    }

    pub fn on_send_attempt(&mut self, now_ms: i64) {
        self.in_flight = true;
        self.last_sent_ms = now_ms;
    }

    pub fn on_successful_attempt(&mut self, now_ms: i64, rng: &mut impl Rng) {
        self.in_flight = false;
        self.last_received_ms = now_ms;
        self.backoff_ms = self.backoff.backoff(0, rng);
        self.num_attempts = 0;
    }

    pub fn on_failed_attempt(&mut self, now_ms: i64, rng: &mut impl Rng) {
        self.in_flight = false;
        self.last_received_ms = now_ms;
        self.backoff_ms = self.backoff.backoff(self.num_attempts, rng);
        self.num_attempts = self.num_attempts.saturating_add(1);
    }

    pub fn remaining_backoff_ms(&self, now_ms: i64) -> i64 {
        let since = now_ms - self.last_received_ms;
        (self.backoff_ms as i64 - since).max(0)
    }

    pub fn num_attempts(&self) -> u32 {
        self.num_attempts
    }

    pub fn last_sent_ms(&self) -> i64 {
        self.last_sent_ms
    }
}

/// A [`RequestState`] plus the heartbeat interval timer.
#[derive(Debug, Clone)]
pub struct HeartbeatRequestState {
    request: RequestState,
    interval_ms: i64,
    /// The heartbeat timer expires at this time.
    timer_deadline_ms: i64,
}

impl HeartbeatRequestState {
    /// A heartbeat state whose timer is already expired (`interval_ms` is usually 0 until the
    /// coordinator sends one).
    pub fn new(interval_ms: i64, backoff: ExponentialBackoff, now_ms: i64) -> Self {
        Self {
            request: RequestState::new(backoff),
            interval_ms,
            timer_deadline_ms: now_ms + interval_ms,
        }
    }

    pub fn interval_ms(&self) -> i64 {
        self.interval_ms
    }

    pub fn request(&self) -> &RequestState {
        &self.request
    }

    /// Restarts the interval timer (after sending a heartbeat).
    pub fn reset_timer(&mut self, now_ms: i64) {
        self.timer_deadline_ms = now_ms + self.interval_ms;
    }

    fn timer_expired(&self, now_ms: i64) -> bool {
        now_ms >= self.timer_deadline_ms
    }

    /// Time until the next heartbeat may go: the timer, then any backoff.
    pub fn time_to_next_heartbeat_ms(&self, now_ms: i64) -> i64 {
        if self.timer_expired(now_ms) {
            self.request.remaining_backoff_ms(now_ms)
        } else {
            self.timer_deadline_ms - now_ms
        }
    }

    pub fn can_send_request(&self, now_ms: i64) -> bool {
        self.timer_expired(now_ms) && self.request.can_send_request(now_ms)
    }

    pub fn request_in_flight(&self) -> bool {
        self.request.request_in_flight()
    }

    pub fn on_send_attempt(&mut self, now_ms: i64) {
        self.request.on_send_attempt(now_ms);
    }

    pub fn on_successful_attempt(&mut self, now_ms: i64, rng: &mut impl Rng) {
        self.request.on_successful_attempt(now_ms, rng);
    }

    /// A failed heartbeat expires the timer at once; the backoff then decides when to retry.
    pub fn on_failed_attempt(&mut self, now_ms: i64, rng: &mut impl Rng) {
        self.timer_deadline_ms = now_ms;
        self.request.on_failed_attempt(now_ms, rng);
    }

    pub fn reset(&mut self, rng: &mut impl Rng) {
        self.request.reset(rng);
    }

    /// Takes a new interval from the coordinator; a change restarts the timer with it.
    pub fn update_interval_ms(&mut self, interval_ms: i64, now_ms: i64) {
        if self.interval_ms == interval_ms {
            return;
        }
        self.interval_ms = interval_ms;
        self.timer_deadline_ms = now_ms + interval_ms;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    fn no_jitter() -> ExponentialBackoff {
        ExponentialBackoff::new(100, 2, 1000, 0.0)
    }

    #[test]
    fn heartbeat_timer_and_backoff_follow_kafka() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let mut hb = HeartbeatRequestState::new(0, no_jitter(), 1_000);
        // Interval 0: the first heartbeat may go at once.
        assert!(hb.can_send_request(1_000));
        hb.on_send_attempt(1_000);
        hb.reset_timer(1_000);
        assert!(
            !hb.can_send_request(1_000),
            "one heartbeat in flight at a time"
        );
        // Success with a 5 s interval from the coordinator.
        hb.update_interval_ms(5_000, 1_010);
        hb.on_successful_attempt(1_010, &mut rng);
        assert_eq!(hb.time_to_next_heartbeat_ms(1_010), 5_000);
        assert!(!hb.can_send_request(6_009));
        assert!(hb.can_send_request(6_010));
        // A failure expires the timer; the retry waits for the backoff: 100, 200, 400, ...
        hb.on_send_attempt(6_010);
        hb.on_failed_attempt(6_020, &mut rng);
        assert_eq!(hb.time_to_next_heartbeat_ms(6_020), 100);
        hb.on_send_attempt(6_120);
        hb.on_failed_attempt(6_130, &mut rng);
        assert_eq!(hb.time_to_next_heartbeat_ms(6_130), 200);
        hb.on_send_attempt(6_330);
        hb.on_failed_attempt(6_340, &mut rng);
        assert_eq!(hb.time_to_next_heartbeat_ms(6_340), 400);
        // reset() forgets the failures (NOT_COORDINATOR skips the backoff).
        hb.reset(&mut rng);
        assert!(hb.can_send_request(6_340));
    }

    #[test]
    fn request_state_backoff_counts_failures() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut r = RequestState::new(no_jitter());
        assert!(r.can_send_request(0));
        r.on_send_attempt(0);
        r.on_failed_attempt(5, &mut rng);
        assert_eq!(r.remaining_backoff_ms(5), 100);
        assert_eq!(r.remaining_backoff_ms(55), 50);
        assert!(r.can_send_request(105));
        r.on_send_attempt(105);
        r.on_failed_attempt(110, &mut rng);
        assert_eq!(r.remaining_backoff_ms(110), 200);
        r.on_send_attempt(310);
        r.on_successful_attempt(320, &mut rng);
        assert_eq!(r.num_attempts(), 0);
        // After a success the base backoff still separates two requests.
        assert_eq!(r.remaining_backoff_ms(320), 100);
    }
}

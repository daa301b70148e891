//! Kafka's exponential backoff with jitter (`org.apache.kafka.common.utils.internals.ExponentialBackoff`),
//! drawing its jitter from the member's seeded generator instead of `ThreadLocalRandom`.

use rand::Rng;

/// `initial * multiplier^min(attempts, expMax)`, scaled by a uniform factor in
/// `[1 - jitter, 1 + jitter)` and capped at `max`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExponentialBackoff {
    initial_ms: u64,
    multiplier: u32,
    max_ms: u64,
    jitter: f64,
    exp_max: f64,
}

/// The jitter Kafka's clients use for retry and reconnect backoff (`CommonClientConfigs.RETRY_BACKOFF_JITTER`).
pub const DEFAULT_JITTER: f64 = 0.2;
/// The base of the clients' retry backoff (`CommonClientConfigs.RETRY_BACKOFF_EXP_BASE`).
pub const DEFAULT_MULTIPLIER: u32 = 2;

impl ExponentialBackoff {
    /// A backoff from `initial_ms` growing by `multiplier` per attempt up to `max_ms`, with a
    /// relative `jitter` (clamped to `0..=1`).
    pub fn new(initial_ms: u64, multiplier: u32, max_ms: u64, jitter: f64) -> Self {
        let initial_ms = initial_ms.min(max_ms);
        let multiplier = multiplier.max(1);
        let exp_max = if max_ms > initial_ms && multiplier > 1 {
            (max_ms as f64 / initial_ms.max(1) as f64).ln() / (multiplier as f64).ln()
        } else {
            0.0
        };
        Self {
            initial_ms,
            multiplier,
            max_ms,
            jitter: jitter.clamp(0.0, 1.0),
            exp_max,
        }
    }

    /// The backoff Kafka's clients use between retries: `retry.backoff.ms` growing to
    /// `retry.backoff.max.ms`, base 2, jitter 0.2.
    pub fn retry(initial_ms: u64, max_ms: u64) -> Self {
        Self::new(initial_ms, DEFAULT_MULTIPLIER, max_ms, DEFAULT_JITTER)
    }

    pub fn initial_ms(&self) -> u64 {
        self.initial_ms
    }

    /// The backoff after `attempts` failed attempts (0 = the first retry).
    pub fn backoff(&self, attempts: u32, rng: &mut impl Rng) -> u64 {
        if self.exp_max == 0.0 {
            return self.initial_ms;
        }
        let exp = (attempts as f64).min(self.exp_max);
        let term = self.initial_ms as f64 * (self.multiplier as f64).powf(exp);
        let factor = if self.jitter < f64::MIN_POSITIVE {
            1.0
        } else {
            rng.random_range((1.0 - self.jitter)..(1.0 + self.jitter))
        };
        ((factor * term) as u64).min(self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn grows_and_caps_like_kafka() {
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        let no_jitter = ExponentialBackoff::new(100, 2, 1000, 0.0);
        let got: Vec<u64> = (0..6).map(|a| no_jitter.backoff(a, &mut rng)).collect();
        // 100 * 2^min(a, log2(10)=3.32): 100, 200, 400, 800, then 100*2^3.32 = 1000 (capped).
        assert_eq!(got, vec![100, 200, 400, 800, 1000, 1000]);
    }

    #[test]
    fn jitter_stays_within_twenty_percent() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let b = ExponentialBackoff::retry(100, 1000);
        for _ in 0..200 {
            let v = b.backoff(0, &mut rng);
            assert!((80..120).contains(&v), "{v}");
            let v = b.backoff(2, &mut rng);
            assert!((320..480).contains(&v), "{v}");
            assert!(b.backoff(10, &mut rng) <= 1000);
        }
    }

    #[test]
    fn equal_initial_and_max_is_constant() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let b = ExponentialBackoff::retry(1000, 1000);
        assert_eq!(b.backoff(0, &mut rng), 1000);
        assert_eq!(b.backoff(7, &mut rng), 1000);
        // An initial interval above the maximum is lowered to it, as Kafka does.
        let b = ExponentialBackoff::retry(5000, 1000);
        assert_eq!(b.initial_ms(), 1000);
    }
}

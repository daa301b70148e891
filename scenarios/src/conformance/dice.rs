//! The generators' randomness: one ChaCha8 stream per script, from its seed.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// Seeded dice with the few shapes the generators need.
pub struct Dice(ChaCha8Rng);

impl Dice {
    /// The stream for `seed` and script kind `kind` (so the streams and classic scripts of one seed differ).
    pub fn new(seed: u64, kind: u64) -> Self {
        Dice(ChaCha8Rng::seed_from_u64(
            seed ^ kind.wrapping_mul(0x9e37_79b9_7f4a_7c15),
        ))
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.0.random_bool(p.clamp(0.0, 1.0))
    }

    /// A value in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        if hi <= lo {
            return lo;
        }
        self.0.random_range(lo..=hi)
    }

    /// An index below `n` (0 when `n` is 0).
    pub fn index(&mut self, n: usize) -> usize {
        if n <= 1 {
            return 0;
        }
        self.0.random_range(0..n)
    }

    /// One of `items` (which must not be empty).
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.index(items.len())]
    }

    /// An index chosen with the given weights (all zero: 0).
    pub fn weighted(&mut self, weights: &[u32]) -> usize {
        let total: u64 = weights.iter().map(|w| u64::from(*w)).sum();
        if total == 0 {
            return 0;
        }
        let mut x = self.0.random_range(0..total);
        for (i, w) in weights.iter().enumerate() {
            let w = u64::from(*w);
            if x < w {
                return i;
            }
            x -= w;
        }
        weights.len() - 1
    }
}

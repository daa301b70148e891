//! One `u64` seed drives a run. Every consumer of randomness gets its own ChaCha8 stream derived
//! from the seed and a label naming its role (`"swarm"`, `"host/streams-0/incarnation-2"`, ...),
//! so adding a consumer or drawing more numbers in one place never shifts another's draws.
//! turmoil's world RNG (latency, link failures) is seeded with the same `u64`.

use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// FNV-1a over the label: a fixed, platform-independent hash (std's hasher is randomly keyed).
pub fn label_hash(label: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in label.as_bytes() {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The generator for `label` under `seed`: ChaCha8 keyed by the seed, on the stream chosen by the
/// label's hash.
pub fn rng(seed: u64, label: &str) -> ChaCha8Rng {
    let mut r = ChaCha8Rng::seed_from_u64(seed);
    r.set_stream(label_hash(label));
    r
}

/// Reads `REGROUP_SEED` (decimal or 0x-hex): cargo tests use it to override a scenario's seed.
pub fn seed_from_env() -> Option<u64> {
    let text = std::env::var("REGROUP_SEED").ok()?;
    parse_seed(&text)
}

/// Parses a seed given as decimal or `0x` hexadecimal.
pub fn parse_seed(text: &str) -> Option<u64> {
    let text = text.trim();
    match text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

#[cfg(test)]
mod tests {
    use rand::RngCore;

    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a1 = rng(42, "swarm").next_u64();
        let a2 = rng(42, "swarm").next_u64();
        let b = rng(42, "host/broker-1").next_u64();
        let c = rng(43, "swarm").next_u64();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }

    #[test]
    fn fnv1a_matches_the_reference_values() {
        // Published FNV-1a 64 test vectors.
        assert_eq!(label_hash(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(label_hash("a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(label_hash("foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn seeds_parse_in_decimal_and_hex() {
        assert_eq!(parse_seed("42"), Some(42));
        assert_eq!(parse_seed(" 0x2a "), Some(42));
        assert_eq!(parse_seed("0X2A"), Some(42));
        assert_eq!(parse_seed("-1"), None);
        assert_eq!(parse_seed("forty"), None);
    }
}

//! Deterministic member ids. Kafka names a new classic member `clientId + "-" + UUID.randomUUID()` (static
//! members: `groupInstanceId + "-" + UUID`). regroup keeps the format but draws the UUID from a seeded
//! generator held by the shard, so a run is reproducible:
//!
//! * the generator is ChaCha20 seeded with [`MemberIdGenerator::new`]'s `u64` seed (`seed_from_u64`);
//! * each id takes the next 16 bytes of its stream, sets the version-4 and RFC 4122 variant bits as
//!   `UUID.randomUUID()` does, and formats them as Java's `UUID.toString()` (lower-case, hyphenated).
//!
//! Ids are drawn in the order the coordinator generates them (one per JoinGroup that needs a new id).

use rand_chacha::ChaCha20Rng;
use rand_chacha::rand_core::{RngCore, SeedableRng};
use uuid::Uuid;

/// Source of the random part of member ids.
#[derive(Debug, Clone)]
pub struct MemberIdGenerator {
    seed: u64,
    rng: ChaCha20Rng,
}

impl Default for MemberIdGenerator {
    fn default() -> Self {
        Self::new(0)
    }
}

impl PartialEq for MemberIdGenerator {
    fn eq(&self, other: &Self) -> bool {
        self.seed == other.seed && self.rng.get_word_pos() == other.rng.get_word_pos()
    }
}

impl MemberIdGenerator {
    pub fn new(seed: u64) -> Self {
        Self {
            seed,
            rng: ChaCha20Rng::seed_from_u64(seed),
        }
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// The next random UUID in Java's `UUID.randomUUID()` layout.
    pub fn next_uuid(&mut self) -> Uuid {
        let mut bytes = [0u8; 16];
        self.rng.fill_bytes(&mut bytes);
        bytes[6] = (bytes[6] & 0x0f) | 0x40;
        bytes[8] = (bytes[8] & 0x3f) | 0x80;
        Uuid::from_bytes(bytes)
    }

    /// `prefix + "-" + uuid`, where the prefix is the instance id for static members and the client id
    /// for dynamic ones.
    pub fn next_member_id(&mut self, client_id: &str, group_instance_id: Option<&str>) -> String {
        let prefix = group_instance_id.unwrap_or(client_id);
        format!("{prefix}-{}", self.next_uuid().hyphenated())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_seeded_distinct_and_java_shaped() {
        let mut a = MemberIdGenerator::new(7);
        let mut b = MemberIdGenerator::new(7);
        let first = a.next_member_id("client", None);
        assert_eq!(first, b.next_member_id("client", None));
        let second = a.next_member_id("client", Some("instance-1"));
        assert!(second.starts_with("instance-1-"));
        assert_ne!(first, second);
        let uuid = &first["client-".len()..];
        assert_eq!(uuid.len(), 36);
        assert_eq!(&uuid[14..15], "4");
        assert!(matches!(&uuid[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(
            MemberIdGenerator::new(8).next_member_id("client", None),
            first
        );
    }
}

//! Deterministic member ids. Kafka names a new classic member `clientId + "-" + UUID.randomUUID()` (static
//! members: `groupInstanceId + "-" + UUID`). regroup keeps the format but draws the UUID from a seeded
//! generator held by the shard, so a run is reproducible:
//!
//! * the generator is ChaCha20, seeded either with a `u64` ([`MemberIdGenerator::new`],
//!   `seed_from_u64`: scripts and unit tests) or with the identity of one coordinator load
//!   ([`MemberIdGenerator::for_load`]: the broker's incarnation id, the `__consumer_offsets` partition,
//!   its leader epoch and the runtime's load generation, 32 bytes used as the ChaCha20 key as they are).
//!   Kafka's `UUID.randomUUID()` never repeats an id across coordinator moves and broker restarts; a
//!   generator that started over at every load would hand out the ids of the previous coordinator
//!   again (the same UUID sequence), so an id a zombie or an old member still holds could name a new
//!   member. Every load of a broker has a distinct (incarnation, partition, epoch, generation), and
//!   incarnation ids are drawn from the simulation's seed, so ids stay reproducible;
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
    seed: [u8; 32],
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
        let rng = ChaCha20Rng::seed_from_u64(seed);
        Self {
            seed: rng.get_seed(),
            rng,
        }
    }

    /// The generator of one coordinator load: distinct for every (broker incarnation, partition,
    /// leader epoch, load generation), so no two loads in a run draw the same ids.
    pub fn for_load(
        incarnation_id: Uuid,
        partition: i32,
        leader_epoch: i32,
        generation: u64,
    ) -> Self {
        let mut seed = [0u8; 32];
        seed[..16].copy_from_slice(incarnation_id.as_bytes());
        seed[16..20].copy_from_slice(&partition.to_be_bytes());
        seed[20..24].copy_from_slice(&leader_epoch.to_be_bytes());
        seed[24..].copy_from_slice(&generation.to_be_bytes());
        Self {
            seed,
            rng: ChaCha20Rng::from_seed(seed),
        }
    }

    /// The 32-byte ChaCha20 key the ids are drawn from.
    pub fn seed(&self) -> [u8; 32] {
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

    #[test]
    fn every_load_draws_its_own_ids_and_the_same_load_the_same_ones() {
        let incarnation = Uuid::from_u64_pair(11, 12);
        let first_id = |incarnation, p, epoch, generation| {
            MemberIdGenerator::for_load(incarnation, p, epoch, generation)
                .next_member_id("billing-0-0", Some("billing-0-0"))
        };
        let base = first_id(incarnation, 0, 3, 1);
        assert_eq!(base, first_id(incarnation, 0, 3, 1));
        // Another broker incarnation, partition, leader epoch or load generation: another id.
        assert_ne!(base, first_id(Uuid::from_u64_pair(11, 13), 0, 3, 1));
        assert_ne!(base, first_id(incarnation, 1, 3, 1));
        assert_ne!(base, first_id(incarnation, 0, 4, 1));
        assert_ne!(base, first_id(incarnation, 0, 3, 2));
        assert!(base.starts_with("billing-0-0-"));
    }
}

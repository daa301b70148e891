//! Identifiers the clients generate themselves, drawn from the caller's seeded generator so that two
//! runs with the same seed produce the same ids.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;

/// A random (version 4) UUID from `rng`.
pub fn random_uuid(rng: &mut impl RngCore) -> uuid::Uuid {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes).into_uuid()
}

/// A streams member id as the Java client makes it (`org.apache.kafka.common.Uuid.randomUuid()`): a
/// random version-4 UUID written as 22 characters of URL-safe base64 without padding. Like Kafka,
/// ids whose text contains a dash are redrawn (so an id never looks like an option on a command
/// line), and so are the two reserved values (all zeros, and the metadata topic id 1).
pub fn kafka_uuid_string(rng: &mut impl RngCore) -> String {
    loop {
        let uuid = random_uuid(rng);
        let value = uuid.as_u128();
        if value == 0 || value == 1 {
            continue;
        }
        let text = URL_SAFE_NO_PAD.encode(uuid.as_bytes());
        if !text.contains('-') {
            return text;
        }
    }
}

/// A Kafka Streams process id: `java.util.UUID.randomUUID().toString()` (36 characters, hyphenated),
/// which Kafka Streams keeps in its state directory across restarts.
pub fn process_uuid_string(rng: &mut impl RngCore) -> String {
    random_uuid(rng).hyphenated().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn ids_are_kafka_shaped_and_reproducible() {
        let mut a = ChaCha8Rng::seed_from_u64(7);
        let mut b = ChaCha8Rng::seed_from_u64(7);
        let first = kafka_uuid_string(&mut a);
        assert_eq!(first, kafka_uuid_string(&mut b));
        assert_eq!(first.len(), 22);
        assert!(!first.contains('-'));
        assert!(!first.contains('='));
        let process = process_uuid_string(&mut a);
        assert_eq!(process.len(), 36);
        // Version nibble 4 and RFC 4122 variant, as java.util.UUID.randomUUID() sets them.
        assert_eq!(&process[14..15], "4");
        assert!(matches!(&process[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(kafka_uuid_string(&mut a), first);
    }

    #[test]
    fn member_ids_decode_to_version_4_uuids() {
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        for _ in 0..50 {
            let id = kafka_uuid_string(&mut rng);
            let bytes = URL_SAFE_NO_PAD.decode(&id).unwrap();
            assert_eq!(bytes.len(), 16);
            assert_eq!(bytes[6] >> 4, 4);
            assert_eq!(bytes[8] >> 6, 0b10);
        }
    }
}

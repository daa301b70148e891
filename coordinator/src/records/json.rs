//! JSON conventions of Kafka's generated JsonConverter that serde does not give for free.

use uuid::Uuid;

/// Kafka's `Uuid.toString()`: the 16 bytes in URL-safe base64 without padding (22 characters).
pub fn kafka_uuid_string(id: &Uuid) -> String {
    protocol::json::kafka_uuid_string(id.as_bytes())
}

/// Parses Kafka's `Uuid.toString()` form back.
pub fn parse_kafka_uuid(s: &str) -> Option<Uuid> {
    protocol::json::parse_kafka_uuid(s).map(Uuid::from_bytes)
}

/// Byte fields are written as standard base64 (Jackson's BinaryNode).
pub mod base64_bytes {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&protocol::json::base64_encode(bytes))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text = String::deserialize(d)?;
        protocol::json::base64_decode(&text)
            .ok_or_else(|| serde::de::Error::custom("invalid base64"))
    }
}

/// Uuid fields are written in Kafka's `Uuid.toString()` form.
pub mod kafka_uuid {
    use serde::{Deserialize, Deserializer, Serializer};
    use uuid::Uuid;

    pub fn serialize<S: Serializer>(id: &Uuid, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&super::kafka_uuid_string(id))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Uuid, D::Error> {
        let text = String::deserialize(d)?;
        super::parse_kafka_uuid(&text).ok_or_else(|| serde::de::Error::custom("invalid uuid"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_string_matches_kafka_form() {
        // Uuid(0x0001020304050607, 0x08090a0b0c0d0e0f).toString() in Kafka is "AAECAwQFBgcICQoLDA0ODw".
        let id = Uuid::from_bytes([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]);
        assert_eq!(kafka_uuid_string(&id), "AAECAwQFBgcICQoLDA0ODw");
        assert_eq!(parse_kafka_uuid("AAECAwQFBgcICQoLDA0ODw"), Some(id));
        assert_eq!(parse_kafka_uuid("not a uuid"), None);
    }
}

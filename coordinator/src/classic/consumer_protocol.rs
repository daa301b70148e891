//! Reading the topics out of a consumer-protocol subscription (the JoinGroup metadata of protocol type
//! "consumer"), as Kafka's `ClassicGroup.computeSubscribedTopics` does: the int16 version, then the
//! version-0 schema (topics: array of strings, user data: nullable bytes), which prefixes every later
//! version. Any malformed input yields `None` (Kafka 4.4 wraps every parse failure as a
//! `SchemaException` and treats the topics as unknown).

use std::collections::BTreeSet;

struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        if self.bytes.len() < n {
            return None;
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Some(head)
    }

    fn i16(&mut self) -> Option<i16> {
        self.take(2).map(|b| i16::from_be_bytes([b[0], b[1]]))
    }

    fn i32(&mut self) -> Option<i32> {
        self.take(4)
            .map(|b| i32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }
}

/// The subscribed topics of a serialized `ConsumerProtocolSubscription`, or `None` if it is malformed.
pub fn subscription_topics(metadata: &[u8]) -> Option<BTreeSet<String>> {
    let mut r = Reader { bytes: metadata };
    let version = r.i16()?;
    if version < 0 {
        return None;
    }
    let count = r.i32()?;
    if count < 0 {
        return None;
    }
    let mut topics = BTreeSet::new();
    for _ in 0..count {
        let len = r.i16()?;
        if len < 0 {
            return None;
        }
        let raw = r.take(len as usize)?;
        topics.insert(String::from_utf8_lossy(raw).into_owned());
    }
    // User data: nullable bytes; it must be readable for the struct to parse.
    let user_data_len = r.i32()?;
    if user_data_len >= 0 {
        r.take(user_data_len as usize)?;
    }
    Some(topics)
}

/// Serializes a version-0 style subscription header + topics + null user data at `version` (for tests
/// and scenario scripts that need realistic consumer metadata).
pub fn encode_subscription(version: i16, topics: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&version.to_be_bytes());
    out.extend_from_slice(&(topics.len() as i32).to_be_bytes());
    for t in topics {
        out.extend_from_slice(&(t.len() as i16).to_be_bytes());
        out.extend_from_slice(t.as_bytes());
    }
    out.extend_from_slice(&(-1i32).to_be_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_topics_and_rejects_malformed_bytes() {
        let bytes = encode_subscription(1, &["foo", "bar"]);
        let topics = subscription_topics(&bytes).unwrap();
        assert_eq!(topics.into_iter().collect::<Vec<_>>(), vec!["bar", "foo"]);
        // Kafka's testComputeSubscribedTopicsHandlesMalformedMemberMetadata: version 1, array length -1.
        assert_eq!(subscription_topics(&[0, 1, 0xff, 0xff, 0xff, 0xff]), None);
        assert_eq!(subscription_topics(&[0]), None);
        assert_eq!(subscription_topics(&[0, 0, 0, 0, 0, 1, 0, 3, b'a']), None);
    }
}

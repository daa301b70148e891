//! The broker's published metadata image behind a generation counter, and the Metadata answers
//! remembered for one generation.
//!
//! Every member thread's consumer asks its broker for Metadata, and at 2,000 members building the
//! 2,000-partition answer for each of them was a fifth of a run's instructions. The answer depends
//! only on the image, the request and the broker's fixed configuration, so a broker builds and
//! encodes it once per (generation, version, request) and sends the same bytes until the image
//! changes.
//!
//! The cache is sound because nothing can change the image without moving the generation:
//! [`PublishedImage`] gives out only `&MetadataImage` (through `Deref`, no `DerefMut`), and its
//! only mutating methods bump the generation first. `MetadataImage` holds no interior mutability.

use std::ops::Deref;

use bytes::Bytes;
use protocol::messages::MetadataRequest;

use crate::controller::image::{ImageError, MetadataImage};
use crate::controller::records::MetadataRecord;

/// A broker's metadata image (Kafka's `MetadataCache` as the `MetadataPublisher`s leave it) with
/// a counter that every change moves.
#[derive(Debug)]
pub(crate) struct PublishedImage {
    image: MetadataImage,
    generation: u64,
}

impl PublishedImage {
    pub fn new() -> Self {
        Self {
            image: MetadataImage::new(),
            generation: 0,
        }
    }

    /// Moves whenever the image may have changed; never repeats.
    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// [`MetadataImage::apply`].
    pub fn apply(&mut self, offset: i64, record: &MetadataRecord) -> Result<(), ImageError> {
        self.generation += 1;
        self.image.apply(offset, record)
    }

    /// Steps over a record that could not be applied.
    pub fn skip_to(&mut self, offset: i64) {
        self.generation += 1;
        self.image.last_offset = offset;
    }

    /// Drops everything, to reload the log from its start.
    pub fn reset(&mut self) {
        self.generation += 1;
        self.image = MetadataImage::new();
    }
}

impl Deref for PublishedImage {
    type Target = MetadataImage;

    fn deref(&self) -> &MetadataImage {
        &self.image
    }
}

/// How many request shapes (version and request) one generation remembers: clients ask for all
/// topics or for the few they use, at one or two versions.
const SHAPES: usize = 8;

/// Encoded Metadata response bodies for one generation of the image.
#[derive(Debug, Default)]
pub(crate) struct MetadataAnswers {
    generation: u64,
    bodies: Vec<(i16, MetadataRequest, Bytes)>,
}

impl MetadataAnswers {
    /// The body remembered for `request` at `version` while the image is at `generation`.
    pub fn get(&self, generation: u64, version: i16, request: &MetadataRequest) -> Option<Bytes> {
        if self.generation != generation {
            return None;
        }
        self.bodies
            .iter()
            .find(|(v, r, _)| *v == version && r == request)
            .map(|(_, _, body)| body.clone())
    }

    /// Remembers `body` as the answer to `request` at `version` for `generation`; answers of
    /// other generations are forgotten.
    pub fn put(&mut self, generation: u64, version: i16, request: &MetadataRequest, body: Bytes) {
        if self.generation != generation {
            self.generation = generation;
            self.bodies.clear();
        }
        if self.bodies.len() == SHAPES {
            self.bodies.remove(0);
        }
        self.bodies.push((version, request.clone(), body));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use protocol::messages::metadata_request::MetadataRequestTopic;
    use protocol::messages::{StrBytes, TopicName};

    fn named(name: &str) -> MetadataRequest {
        MetadataRequest::default()
            .with_topics(Some(vec![MetadataRequestTopic::default().with_name(Some(
                TopicName(StrBytes::from_string(name.to_string())),
            ))]))
    }

    #[test]
    fn every_change_moves_the_generation() {
        let mut image = PublishedImage::new();
        assert_eq!(image.generation(), 0);
        image.skip_to(0);
        assert_eq!((image.generation(), image.last_offset), (1, 0));
        image.reset();
        assert_eq!((image.generation(), image.last_offset), (2, -1));
        let _ = image.apply(
            0,
            &MetadataRecord::FeatureLevel {
                name: "metadata.version".to_string(),
                feature_level: 27,
            },
        );
        assert_eq!(image.generation(), 3);
        assert_eq!(image.features.get("metadata.version"), Some(&27));
    }

    #[test]
    fn answers_are_kept_per_generation_version_and_request() {
        let mut answers = MetadataAnswers::default();
        let all = MetadataRequest::default().with_topics(None);
        answers.put(4, 12, &all, Bytes::from_static(b"all"));
        answers.put(4, 12, &named("a"), Bytes::from_static(b"a"));
        assert_eq!(answers.get(4, 12, &all), Some(Bytes::from_static(b"all")));
        assert_eq!(
            answers.get(4, 12, &named("a")),
            Some(Bytes::from_static(b"a"))
        );
        assert_eq!(answers.get(4, 11, &all), None);
        assert_eq!(answers.get(4, 12, &named("b")), None);
        assert_eq!(answers.get(5, 12, &all), None);
        answers.put(5, 12, &named("b"), Bytes::from_static(b"b"));
        assert_eq!(answers.get(4, 12, &all), None);
        assert_eq!(answers.get(5, 12, &all), None);
        assert_eq!(
            answers.get(5, 12, &named("b")),
            Some(Bytes::from_static(b"b"))
        );
    }

    #[test]
    fn a_generation_keeps_the_latest_shapes() {
        let mut answers = MetadataAnswers::default();
        for i in 0..=SHAPES {
            answers.put(1, 12, &named(&i.to_string()), Bytes::from(vec![i as u8]));
        }
        assert_eq!(answers.get(1, 12, &named("0")), None);
        for i in 1..=SHAPES {
            assert_eq!(
                answers.get(1, 12, &named(&i.to_string())),
                Some(Bytes::from(vec![i as u8]))
            );
        }
    }
}

//! Prints random, schema-valid message bodies for every api, version and direction, one per
//! line: `<api key> <request|response> <version> <body hex> <Kafka-style JSON>`.
//!
//! Used to cross-check regroup's codecs and JSON conversion against the released Kafka jar: a
//! Java program parses each body with the generated `*Data` class, re-serializes it, writes it
//! with the `*JsonConverter`, reads regroup's JSON back, and compares.
//!
//!     cargo run -p protocol --example dump_cases -- 20 > cases.txt

#[path = "../tests/support/strategy.rs"]
mod strategy;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use protocol::Api;
use protocol::json::{
    encode_body, request_from_json, request_to_json, response_from_json, response_to_json,
};
use protocol::schema::sample::sample_json;
use protocol::schema::{self, Direction};

fn main() {
    let per_combo: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(10);
    let mut runner = TestRunner::new_with_rng(
        Config::default(),
        TestRng::from_seed(RngAlgorithm::ChaCha, &[42; 32]),
    );
    for api in Api::ALL {
        for version in api.min_version()..=api.max_version() {
            for dir in [Direction::Request, Direction::Response] {
                let schema = schema::message(api, dir);
                let strategy = strategy::message_strategy(schema, version);
                let mut cases = vec![sample_json(schema, version)];
                for _ in 0..per_combo {
                    cases.push(strategy.new_tree(&mut runner).unwrap().current());
                }
                for json in cases {
                    // Print the JSON regroup writes (every field of the version), not the input.
                    let written = match dir {
                        Direction::Request => request_to_json(
                            &request_from_json(api, version, &json).unwrap(),
                            version,
                        )
                        .unwrap(),
                        Direction::Response => response_to_json(
                            &response_from_json(api, version, &json).unwrap(),
                            version,
                        )
                        .unwrap(),
                    };
                    let body = encode_body(schema, version, &written).unwrap();
                    println!(
                        "{} {} {} {} {}",
                        api.key(),
                        dir.name(),
                        version,
                        hex::encode(body),
                        written
                    );
                }
            }
        }
    }
}

//! Property tests over every api, version and direction regroup serves:
//! * typed -> bytes -> typed round trips (random schema-valid messages);
//! * JSON -> typed -> JSON round trips;
//! * arbitrary and mutated bytes never make a decoder panic.

mod support;

use bytes::{Bytes, BytesMut};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestCaseError, TestRng, TestRunner};
use protocol::json::{
    encode_body, request_from_json, request_to_json, response_from_json, response_to_json,
};
use protocol::request::decode_request_frame;
use protocol::response::decode_response_frame;
use protocol::schema::sample::sample_body;
use protocol::schema::walk::{walk_request_frame, walk_response_frame};
use protocol::schema::{self, Direction};
use protocol::{Api, Request, Response};
use support::strategy::message_strategy;

const DIRECTIONS: [Direction; 2] = [Direction::Request, Direction::Response];

fn runner(cases: u32, seed: u8) -> TestRunner {
    TestRunner::new_with_rng(
        Config {
            cases,
            failure_persistence: None,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &[seed; 32]),
    )
}

fn each_combo(mut f: impl FnMut(Api, i16, Direction)) {
    for api in Api::ALL {
        for version in api.min_version()..=api.max_version() {
            for dir in DIRECTIONS {
                f(api, version, dir);
            }
        }
    }
}

/// Decodes `body` with the typed codec, re-encodes it, and returns (value, bytes).
fn typed_round(
    api: Api,
    version: i16,
    dir: Direction,
    body: &[u8],
) -> Result<(String, Vec<u8>), String> {
    let mut b = Bytes::copy_from_slice(body);
    let mut out = BytesMut::new();
    let shown = match dir {
        Direction::Request => {
            let r = Request::decode(api.key(), version, &mut b).map_err(|e| e.to_string())?;
            r.encode(version, &mut out).map_err(|e| e.to_string())?;
            let again = Request::decode(api.key(), version, &mut Bytes::from(out.to_vec()))
                .map_err(|e| e.to_string())?;
            if again != r {
                return Err("decode(encode(x)) != x".into());
            }
            format!("{r:?}")
        }
        Direction::Response => {
            let r = Response::decode(api.key(), version, &mut b).map_err(|e| e.to_string())?;
            r.encode(version, &mut out).map_err(|e| e.to_string())?;
            let again = Response::decode(api.key(), version, &mut Bytes::from(out.to_vec()))
                .map_err(|e| e.to_string())?;
            if again != r {
                return Err("decode(encode(x)) != x".into());
            }
            format!("{r:?}")
        }
    };
    if !b.is_empty() {
        return Err(format!("{} bytes left after the body", b.len()));
    }
    Ok((shown, out.to_vec()))
}

#[test]
fn typed_messages_round_trip_through_bytes() {
    each_combo(|api, version, dir| {
        let schema = schema::message(api, dir);
        let mut r = runner(12, api.key() as u8);
        r.run(&message_strategy(schema, version), |json| {
            let body = encode_body(schema, version, &json)
                .map_err(|e| TestCaseError::fail(e.to_string()))?;
            let (_, again) = typed_round(api, version, dir, &body).map_err(|e| {
                TestCaseError::fail(format!("{api} v{version} {}: {e}", dir.name()))
            })?;
            prop_assert_eq!(
                hex::encode(&again),
                hex::encode(&body),
                "{} v{} {}",
                api,
                version,
                dir.name()
            );
            Ok(())
        })
        .unwrap();
    });
}

#[test]
fn json_round_trips_through_the_typed_messages() {
    each_combo(|api, version, dir| {
        let schema = schema::message(api, dir);
        let mut r = runner(6, 100 + api.key() as u8);
        r.run(&message_strategy(schema, version), |json| {
            let fail =
                |e: String| TestCaseError::fail(format!("{api} v{version} {}: {e}", dir.name()));
            let back = match dir {
                Direction::Request => {
                    let typed =
                        request_from_json(api, version, &json).map_err(|e| fail(e.to_string()))?;
                    request_to_json(&typed, version).map_err(|e| fail(e.to_string()))?
                }
                Direction::Response => {
                    let typed =
                        response_from_json(api, version, &json).map_err(|e| fail(e.to_string()))?;
                    response_to_json(&typed, version).map_err(|e| fail(e.to_string()))?
                }
            };
            // The written JSON has every field of the version; re-encoding it gives the same
            // bytes as the original (tagged fields at their default are simply written out).
            let a = encode_body(schema, version, &json).map_err(|e| fail(e.to_string()))?;
            let b = encode_body(schema, version, &back).map_err(|e| fail(e.to_string()))?;
            prop_assert_eq!(a, b);
            Ok(())
        })
        .unwrap();
    });
}

#[test]
fn arbitrary_bytes_never_panic_a_decoder() {
    each_combo(|api, version, dir| {
        let mut r = runner(24, api.key() as u8 ^ 0x5a);
        r.run(&proptest::collection::vec(any::<u8>(), 0..48), |bytes| {
            let mut b = Bytes::from(bytes.clone());
            match dir {
                Direction::Request => {
                    let _ = Request::decode(api.key(), version, &mut b);
                }
                Direction::Response => {
                    let _ = Response::decode(api.key(), version, &mut b);
                }
            }
            let _ = schema::validate(schema::message(api, dir), version, &bytes);
            Ok(())
        })
        .unwrap();
    });
}

#[test]
fn mutated_samples_never_panic_a_decoder() {
    each_combo(|api, version, dir| {
        let body = sample_body(api, dir, version).unwrap();
        let len = body.len();
        let mut r = runner(24, api.key() as u8 ^ 0xa5);
        let strategy = proptest::collection::vec((0..len.max(1), any::<u8>()), 1..4);
        r.run(&strategy, |flips| {
            let mut mutated = body.clone();
            for (at, byte) in flips {
                if at < mutated.len() {
                    mutated[at] = byte;
                }
            }
            let _ = typed_round(api, version, dir, &mutated);
            Ok(())
        })
        .unwrap();
    });
}

#[test]
fn arbitrary_frames_never_panic_the_frame_decoders() {
    let mut r = runner(2000, 7);
    let keys: Vec<i16> = Api::ALL.iter().map(|a| a.key()).collect();
    let strategy = (
        proptest::sample::select(keys),
        -1i16..20,
        proptest::collection::vec(any::<u8>(), 0..64),
    );
    r.run(&strategy, |(key, version, rest)| {
        let mut body = Vec::new();
        body.extend_from_slice(&key.to_be_bytes());
        body.extend_from_slice(&version.to_be_bytes());
        body.extend_from_slice(&rest);
        let _ = decode_request_frame(Bytes::from(body.clone()));
        let mut frame = ((body.len()) as i32).to_be_bytes().to_vec();
        frame.extend_from_slice(&body);
        let _ = walk_request_frame(&frame);
        if let Some(api) = Api::from_key(key) {
            let _ = decode_response_frame(api, version, Bytes::from(rest.clone()));
            let _ = walk_response_frame(api, version, &frame);
        }
        Ok(())
    })
    .unwrap();
}

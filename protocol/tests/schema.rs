//! The schema table against the typed codecs: samples, the validation pre-pass, the walker.

use bytes::{Bytes, BytesMut};
use protocol::schema::sample::{sample_body, sample_frame};
use protocol::schema::{self, Direction};
use protocol::{Api, Request, Response};

fn versions(api: Api) -> impl Iterator<Item = i16> {
    api.min_version()..=api.max_version()
}

/// For every api, version and direction, the typed codec decodes the schema-encoded sample and
/// re-encodes it byte for byte. This ties the schema table (used by the walker, the samples and
/// the JSON conversion) to the typed messages, so the two cannot drift apart.
#[test]
fn every_sample_round_trips_through_the_typed_codec() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for api in Api::ALL {
        for version in versions(api) {
            for dir in [Direction::Request, Direction::Response] {
                let body = sample_body(api, dir, version).unwrap();
                let mut bytes = Bytes::from(body.clone());
                let mut out = BytesMut::new();
                let result = match dir {
                    Direction::Request => Request::decode(api.key(), version, &mut bytes)
                        .and_then(|r| r.encode(version, &mut out)),
                    Direction::Response => Response::decode(api.key(), version, &mut bytes)
                        .and_then(|r| r.encode(version, &mut out)),
                };
                checked += 1;
                match result {
                    Err(e) => failures.push(format!("{api} v{version} {}: {e}", dir.name())),
                    Ok(()) if !bytes.is_empty() => failures.push(format!(
                        "{api} v{version} {}: {} bytes left over",
                        dir.name(),
                        bytes.len()
                    )),
                    Ok(()) if out[..] != body[..] => failures.push(format!(
                        "{api} v{version} {}: re-encoded\n  {}\nsample\n  {}",
                        dir.name(),
                        hex::encode(&out),
                        hex::encode(&body)
                    )),
                    Ok(()) => {}
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(
        checked,
        2 * Api::ALL.iter().map(|a| versions(*a).count()).sum::<usize>()
    );
}

#[test]
fn seed_samples_are_reproduced() {
    let req = sample_frame(Api::BrokerHeartbeat, Direction::Request, 1).unwrap();
    assert_eq!(
        hex::encode(req),
        "00000022003f0001000000000000000000000000000000000000000000000000000000000000"
    );
    let resp = sample_frame(Api::BrokerHeartbeat, Direction::Response, 1).unwrap();
    assert_eq!(hex::encode(resp), "0000000f000000000000000000000000000000");
    let _ = schema::all();
}

/// kafka-protocol's array decoders reserve the declared count up front; a frame declaring
/// 2^31-1 elements would abort the process. The pre-pass turns it into a DecodeError.
#[test]
fn huge_declared_counts_are_typed_errors() {
    // MetadataRequest v4: Topics (nullable int32-count array) then AllowAutoTopicCreation.
    let mut body = Bytes::from_static(&[0x7f, 0xff, 0xff, 0xff, 0x01]);
    let err = Request::decode(3, 4, &mut body).unwrap_err().to_string();
    assert!(
        err.contains(
            "MetadataRequest.Topics: array declares 2147483647 elements but only 1 bytes remain"
        ),
        "{err}"
    );
    assert!(err.contains("offset 0"), "{err}");

    // JoinGroupRequest v6 (flexible): Protocols is a compact array; uvarint 0x7fffffff = 2^31-2
    // elements. GroupId "g", SessionTimeoutMs, RebalanceTimeoutMs, MemberId "", GroupInstanceId
    // null, ProtocolType "c", then the count at offset 14.
    let mut body = Bytes::from(
        hex::decode("02670000000000000000010002 63ffffffff07".replace(' ', "")).unwrap(),
    );
    let err = Request::decode(11, 6, &mut body).unwrap_err().to_string();
    assert!(
        err.contains("JoinGroupRequest.Protocols: array declares 2147483646 elements"),
        "{err}"
    );
    assert!(err.contains("offset 14"), "{err}");

    // A response too: DescribeGroupsResponse v1, Groups count 2^31-1 after ThrottleTimeMs.
    let mut body = Bytes::from_static(&[0, 0, 0, 0, 0x7f, 0xff, 0xff, 0xff]);
    let err = Response::decode(15, 1, &mut body).unwrap_err().to_string();
    assert!(
        err.contains("DescribeGroupsResponse.Groups: array declares 2147483647"),
        "{err}"
    );
    assert!(err.contains("offset 4"), "{err}");
}

/// Every sample, with a huge count written at every position (as int32 2^31-1 and as the
/// uvarint of 2^31-1), decodes to a value or a typed error, never a panic or an abort.
#[test]
fn huge_counts_at_every_position_of_every_sample_are_handled() {
    let mut errors = 0;
    for api in Api::ALL {
        for version in versions(api) {
            for dir in [Direction::Request, Direction::Response] {
                let body = sample_body(api, dir, version).unwrap();
                for at in 0..body.len() {
                    for patch in [
                        &[0x7f, 0xff, 0xff, 0xff][..],
                        &[0xff, 0xff, 0xff, 0xff, 0x07][..],
                    ] {
                        let mut mutated = body.clone();
                        let end = (at + patch.len()).min(mutated.len());
                        mutated.splice(at..end, patch.iter().copied());
                        let mut b = Bytes::from(mutated);
                        let failed = match dir {
                            Direction::Request => {
                                Request::decode(api.key(), version, &mut b).is_err()
                            }
                            Direction::Response => {
                                Response::decode(api.key(), version, &mut b).is_err()
                            }
                        };
                        errors += usize::from(failed);
                    }
                }
            }
        }
    }
    // Most patches land on a length or count and must be rejected.
    assert!(errors > 1000, "only {errors} mutations were rejected");
}

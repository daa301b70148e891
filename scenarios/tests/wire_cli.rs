//! `regroup wire` run as a process: samples and decoding for every api regroup serves, and
//! exit code 2 with the failing offset for bad input.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use protocol::Api;

fn regroup(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regroup"))
        .args(args)
        .output()
        .unwrap()
}

fn regroup_stdin(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_regroup"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[test]
fn broker_heartbeat_v1_samples_match_the_seed() {
    let req = regroup(&[
        "wire",
        "sample",
        "BrokerHeartbeat",
        "--version",
        "1",
        "--hex",
    ]);
    assert!(req.status.success(), "{}", stderr(&req));
    assert_eq!(
        stdout(&req),
        "00000022003f0001000000000000000000000000000000000000000000000000000000000000\n"
    );
    let resp = regroup(&[
        "wire",
        "sample",
        "BrokerHeartbeat",
        "--version",
        "1",
        "--response",
        "--hex",
    ]);
    assert!(resp.status.success(), "{}", stderr(&resp));
    assert_eq!(stdout(&resp), "0000000f000000000000000000000000000000\n");
}

#[test]
fn sample_tree_shows_offsets_sizes_and_descriptions() {
    let out = regroup(&["wire", "sample", "brokerheartbeat", "--version", "1"]);
    assert!(out.status.success());
    let text = stdout(&out);
    assert!(
        text.contains("BrokerHeartbeatRequest v1, request header v2, 38 bytes on the wire"),
        "{text}"
    );
    assert!(
        text.contains("byte layout (38 bytes, 16 bytes per row)"),
        "{text}"
    );
    let line = |label: &str| {
        text.lines()
            .find(|l| l.contains(label))
            .unwrap_or_else(|| panic!("no {label}:\n{text}"))
            .to_string()
    };
    assert!(line("+-- size").contains("= 34"));
    assert!(line("request_api_key").contains("= 63 (BrokerHeartbeat)"));
    assert!(line("client_id").contains("\"\" (int16 len=0)"));
    let epoch = line("+-- BrokerEpoch");
    assert!(
        epoch.contains("int64")
            && epoch.contains("[0x0013, 8B]")
            && epoch.contains("epoch returned by the broker's registration"),
        "{epoch}"
    );
    assert!(line("+-- WantShutDown").contains("[0x0024, 1B]"));
    assert!(
        text.trim_end()
            .ends_with("number of tagged fields in this struct"),
        "{text}"
    );
}

#[test]
fn every_api_samples_and_decodes_in_both_directions() {
    for api in Api::ALL {
        for version in [api.min_version(), api.max_version()] {
            let v = version.to_string();
            let name = api.name();
            // Request: sample as hex, then decode it (api and version come from the header).
            let hex = regroup(&["wire", "sample", name, "--version", &v, "--hex"]);
            assert!(hex.status.success(), "{name} v{v}: {}", stderr(&hex));
            let hex = stdout(&hex);
            let decoded = regroup(&["wire", "decode", hex.trim()]);
            assert!(
                decoded.status.success(),
                "{name} v{v} decode: {}",
                stderr(&decoded)
            );
            let text = stdout(&decoded);
            assert!(
                text.contains(&format!(
                    "{name}Request v{v}, request header v{}",
                    api.request_header_version(version)
                )),
                "{text}"
            );
            assert!(text.contains("object tree"));
            // The tree printed by `sample` is the tree of the decoded frame.
            let tree = stdout(&regroup(&[
                "wire",
                "sample",
                &api.key().to_string(),
                "--version",
                &v,
            ]));
            assert_eq!(tree, text, "{name} v{v}");

            // Response: needs --api and --version.
            let hex = regroup(&[
                "wire",
                "sample",
                name,
                "--version",
                &v,
                "--response",
                "--hex",
            ]);
            assert!(
                hex.status.success(),
                "{name} v{v} response: {}",
                stderr(&hex)
            );
            let hex = stdout(&hex);
            let decoded = regroup(&[
                "wire",
                "decode",
                "--response",
                "--api",
                name,
                "--version",
                &v,
                hex.trim(),
            ]);
            assert!(
                decoded.status.success(),
                "{name} v{v} response decode: {}",
                stderr(&decoded)
            );
            let text = stdout(&decoded);
            assert!(
                text.contains(&format!(
                    "{name}Response v{v}, response header v{}",
                    api.response_header_version(version)
                )),
                "{text}"
            );
        }
    }
}

#[test]
fn decode_reads_stdin_and_prints_json() {
    let frame =
        "00000022 003f 0001 00000007 ffff 00 00000001 000000000000002a 0000000000000064 00 00 00\n";
    let out = regroup_stdin(&["wire", "decode", "-"], frame);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stdout(&out).contains("= null (int16 len=-1)"));
    let json = regroup_stdin(&["wire", "decode", "--json", "-"], frame);
    assert_eq!(
        stdout(&json),
        "{\n  \"brokerId\": 1,\n  \"brokerEpoch\": 42,\n  \"currentMetadataOffset\": 100,\n  \"wantFence\": false,\n  \"wantShutDown\": false\n}\n"
    );
}

fn assert_bad(args: &[&str], expected: &str) {
    let out = regroup(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
    assert!(stdout(&out).is_empty());
    let err = stderr(&out);
    assert!(
        err.contains(expected),
        "{args:?}: expected {expected:?} in {err:?}"
    );
}

#[test]
fn bad_input_exits_2_and_names_the_offset() {
    assert_bad(
        &["wire", "decode", "00zz"],
        "invalid hex: character 'z' at position 2",
    );
    assert_bad(&["wire", "decode", "000"], "odd number of digits");
    // Size prefix disagrees with the bytes given.
    assert_bad(
        &["wire", "decode", "0000002200"],
        "size prefix says 34 bytes follow but 1 do (at byte offset 0)",
    );
    // BrokerHeartbeat v1 cut inside CurrentMetadataOffset (which starts at 0x1b = 27).
    assert_bad(
        &[
            "wire",
            "decode",
            "0000001b003f000100000007ffff0000000001000000000000002a00000000",
        ],
        "BrokerHeartbeatRequest.CurrentMetadataOffset: int64 needs 8 bytes but only 4 remain (at byte offset 27)",
    );
    // MetadataRequest v4 declaring 2^31-1 topics.
    assert_bad(
        &["wire", "decode", "0000001000030004000000010001637fffffff01"],
        "MetadataRequest.Topics: array declares 2147483647 elements but only 1 bytes remain (at byte offset 15)",
    );
    assert_bad(
        &["wire", "decode", "0000000a0004000000000001ffff"],
        "unknown api key 4 (at byte offset 4)",
    );
    assert_bad(
        &["wire", "decode", "0000000a003f000900000001ffff"],
        "BrokerHeartbeat version 9 is not served (regroup serves 0-2) (at byte offset 6)",
    );
    assert_bad(&["wire", "sample", "NoSuchApi"], "unknown api 'NoSuchApi'");
    assert_bad(
        &["wire", "sample", "63", "--version", "3"],
        "BrokerHeartbeat version 3 is not served (regroup serves 0-2)",
    );
    assert_bad(
        &[
            "wire",
            "decode",
            "--response",
            "--api",
            "BrokerHeartbeat",
            "--version",
            "1",
            "0000000f0000000000",
        ],
        "size prefix says 15 bytes follow but 5 do",
    );
    // clap usage errors are exit code 2 too.
    assert_bad(&["wire", "decode", "--response", "00"], "--api");
}

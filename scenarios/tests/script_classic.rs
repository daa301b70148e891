//! `regroup script` driving a classic group with static members (scripts/classic_static_membership.jsonl):
//! two static members join and are parked until the initial-delay timer completes the join phase, sync,
//! heartbeat; one restarts (a static rejoin without member id: no rebalance, the new id written, the old
//! one fenced); a third static member's join is parked until the session timers of the silent members
//! complete the rebalance. Generated member ids are named after the JoinGroup line that handed them out
//! (`$gen:L`, the differential oracle's rule), in the script and in the output.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use serde_json::{Value, json};

const SCRIPT: &str = include_str!("../scripts/classic_static_membership.jsonl");
const I1: &str = "$gen:3";
const I2: &str = "$gen:4";
const I2_RESTARTED: &str = "$gen:8";
const I3: &str = "$gen:12";

fn run(stdin: &str) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_regroup"))
        .args(["script", "-"])
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

fn lines(o: &Output) -> Vec<Value> {
    String::from_utf8(o.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn record_types(v: &Value) -> Vec<String> {
    v["records"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn classic_static_members_through_regroup_script() {
    let o = run(SCRIPT);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = lines(&o);
    let shape: Vec<(i64, Option<u64>, Option<&str>)> = out
        .iter()
        .map(|l| {
            (
                l["at"].as_i64().unwrap(),
                l["line"].as_u64(),
                l["timer"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        shape,
        vec![
            (0, Some(3), None),
            (100, Some(4), None),
            (3000, None, Some("join-g")),
            (6000, None, Some("join-g")),
            (6000, Some(3), None),
            (6000, Some(4), None),
            (6100, Some(5), None),
            (6200, Some(6), None),
            (6300, Some(7), None),
            (9000, Some(8), None),
            (9100, Some(9), None),
            (9200, Some(10), None),
            (9300, Some(11), None),
            (10000, Some(12), None),
            (16300, None, Some(&*format!("heartbeat-g-{I2}"))),
            (19000, None, Some(&*format!("heartbeat-g-{I2_RESTARTED}"))),
            (19300, None, Some(&*format!("heartbeat-g-{I1}"))),
            (19300, Some(12), None),
            (20100, Some(14), None),
        ]
    );

    // The first join creates the group (generation 0 record); both joins are parked.
    assert_eq!(out[0]["response"], Value::Null);
    assert_eq!(record_types(&out[0]), ["GroupMetadata"]);
    assert_eq!(out[0]["records"][0]["value"]["generation"], 0);
    assert_eq!(out[1]["response"], Value::Null);
    // The initial delay is extended once (a second member arrived), then the join phase completes.
    let leader = &out[4]["response"];
    assert_eq!(leader["generationId"], 1);
    assert_eq!(leader["memberId"], I1);
    assert_eq!(leader["leader"], I1);
    assert_eq!(
        leader["members"],
        json!([
            {"memberId": I1, "groupInstanceId": "i1", "metadata": "AAMAAAABAANmb28="},
            {"memberId": I2, "groupInstanceId": "i2", "metadata": "AAMAAAABAANmb28="}
        ])
    );
    assert_eq!(out[5]["response"]["memberId"], I2);
    assert_eq!(out[5]["response"]["members"], json!([]));

    // The leader's sync writes the group; each member gets its assignment.
    assert_eq!(out[6]["response"]["assignment"], "AQ==");
    let value = &out[6]["records"][0]["value"];
    assert_eq!(value["generation"], 1);
    assert_eq!(value["leader"], I1);
    assert_eq!(value["members"][1]["assignment"], "Ag==");
    assert_eq!(out[7]["response"]["assignment"], "Ag==");
    assert_eq!(out[8]["response"]["errorCode"], 0);

    // i2 restarts: no rebalance (same generation, the old leader id), the new member id written.
    let rejoin = &out[9];
    assert_eq!(rejoin["response"]["errorCode"], 0);
    assert_eq!(rejoin["response"]["generationId"], 1);
    assert_eq!(rejoin["response"]["memberId"], I2_RESTARTED);
    assert_eq!(rejoin["response"]["leader"], I1);
    assert_eq!(record_types(rejoin), ["GroupMetadata"]);
    assert_eq!(
        rejoin["records"][0]["value"]["members"][1]["memberId"],
        I2_RESTARTED
    );
    assert_eq!(
        rejoin["records"][0]["value"]["members"][1]["assignment"],
        "Ag=="
    );
    // The old incarnation is fenced; the new one syncs its inherited assignment; i1 sees no rebalance.
    assert_eq!(out[10]["response"]["errorCode"], 82);
    assert_eq!(out[11]["response"]["assignment"], "Ag==");
    assert_eq!(out[12]["response"]["errorCode"], 0);

    // i3's join is parked; the silent members' sessions expire (the old i2 id's timer fires
    // harmlessly) and the last expiry completes the join phase: generation 2, i3 alone and leading.
    assert_eq!(out[13]["response"], Value::Null);
    assert!(out[14..17].iter().all(|l| l["records"] == json!([])));
    let completed = &out[17]["response"];
    assert_eq!(completed["generationId"], 2);
    assert_eq!(completed["memberId"], I3);
    assert_eq!(completed["leader"], I3);
    assert_eq!(completed["skipAssignment"], false);
    let described = &out[18]["response"]["groups"][0];
    assert_eq!(described["groupState"], "CompletingRebalance");
    assert_eq!(described["members"][0]["memberId"], I3);
}

#[test]
fn classic_errors_through_regroup_script() {
    let script = r#"{"at":0,"request":{"api":"JoinGroup","version":4,"body":{"groupId":"","sessionTimeoutMs":10000,"memberId":"","protocolType":"consumer","protocols":[{"name":"range","metadata":""}]}}}
{"at":0,"request":{"api":"JoinGroup","version":4,"body":{"groupId":"g","sessionTimeoutMs":10,"memberId":"","protocolType":"consumer","protocols":[{"name":"range","metadata":""}]}}}
{"at":0,"request":{"api":"JoinGroup","version":4,"body":{"groupId":"g","sessionTimeoutMs":10000,"rebalanceTimeoutMs":10000,"memberId":"","protocolType":"consumer","protocols":[{"name":"range","metadata":""}]}}}
{"at":1,"request":{"api":"SyncGroup","version":5,"body":{"groupId":"g","generationId":1,"memberId":"x","assignments":[]}}}
{"at":2,"request":{"api":"LeaveGroup","version":1,"body":{"groupId":"g","memberId":"x"}}}
{"at":3,"request":{"api":"OffsetCommit","version":8,"body":{"groupId":"g","generationIdOrMemberEpoch":-1,"memberId":"","topics":[{"name":"foo","partitions":[{"partitionIndex":0,"committedOffset":5}]}]}}}
"#;
    let o = run(script);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let out = lines(&o);
    // Empty group id; session timeout below group.min.session.timeout.ms (6000).
    assert_eq!(out[0]["response"]["errorCode"], 24);
    assert_eq!(out[1]["response"]["errorCode"], 26);
    // MEMBER_ID_REQUIRED, with the generated id (named after its line), and the new group written.
    assert_eq!(out[2]["response"]["errorCode"], 79);
    assert_eq!(out[2]["response"]["memberId"], "$gen:3");
    assert_eq!(record_types(&out[2]), ["GroupMetadata"]);
    // SyncGroup v5 without protocol type and name; LeaveGroup v1 of an unknown member.
    assert_eq!(out[3]["response"]["errorCode"], 23);
    assert_eq!(out[4]["response"]["errorCode"], 25);
    // A commit to an unknown topic.
    assert_eq!(
        out[5]["response"]["topics"][0]["partitions"][0]["errorCode"],
        3
    );
    assert_eq!(out[5]["records"], json!([]));
}

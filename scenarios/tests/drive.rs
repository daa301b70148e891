//! `regroup drive` against the `regroup serve` binary on loopback: a catalogue scenario's clients
//! and faults in real time (time-scaled to a quarter), judged by the invariants the clients can
//! see, convergence against the described groups and the scenario's own check. One client-fault
//! scenario, one network-fault scenario through drive's proxy (serve advertising it), the same
//! network fault skipped without a proxy, two consumer-protocol (KIP-848) scenarios (a cold start,
//! a zombie through the proxy), and the usage errors. Every wait is bounded.

mod serve_support;

use std::process::{Command, Output};

use serde_json::Value;
use serve_support::Server;

const SCALE: &str = "0.25";

fn regroup(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_regroup"))
        .args(args)
        .env("RUST_LOG", "warn")
        .output()
        .expect("run regroup")
}

/// The broker configs `scenario` assumes at the test's time scale, as serve arguments.
fn serve_configs(scenario: &str) -> Vec<String> {
    let out = regroup(&[
        "drive",
        scenario,
        "--print-broker-config",
        "--time-scale",
        SCALE,
    ]);
    assert!(out.status.success(), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .flat_map(|l| ["--config".to_string(), l.to_string()])
        .collect()
}

/// A free loopback port (bound, then released).
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts serve for `scenario`; with `proxy`, serve advertises a free port drive will listen on.
/// Returns the server, the bootstrap address and drive's `--proxy` argument.
fn serve_for(scenario: &str, proxy: bool) -> (Server, String, Option<String>) {
    let mut extra = serve_configs(scenario);
    extra.extend(["--config".into(), "offsets.topic.num.partitions=3".into()]);
    let listen = proxy.then(|| format!("127.0.0.1:{}", free_port()));
    if let Some(l) = &listen {
        extra.extend(["--advertise".into(), l.clone()]);
    }
    let refs: Vec<&str> = extra.iter().map(String::as_str).collect();
    let server = Server::start_bare(&refs);
    match listen {
        Some(l) => {
            let proxy = format!("{l}={}", server.addr);
            (server, l, Some(proxy))
        }
        None => {
            let addr = server.addr.clone();
            (server, addr, None)
        }
    }
}

fn drive_json(scenario: &str, bootstrap: &str, proxy: Option<&str>) -> (i32, Value) {
    drive_json_with(scenario, bootstrap, proxy, &[])
}

fn drive_json_with(
    scenario: &str,
    bootstrap: &str,
    proxy: Option<&str>,
    extra: &[&str],
) -> (i32, Value) {
    let mut args = vec![
        "drive",
        scenario,
        "--bootstrap",
        bootstrap,
        "--time-scale",
        SCALE,
        "--json",
    ];
    args.extend_from_slice(extra);
    if let Some(p) = proxy {
        args.extend(["--proxy", p]);
    }
    let out = regroup(&args);
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    let v: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}): {stdout}\nstderr: {}",
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

#[test]
fn a_static_rolling_bounce_keeps_its_generation_against_serve() {
    let (_server, bootstrap, _) = serve_for("classic-static-rolling-bounce", false);
    let trace =
        std::env::temp_dir().join(format!("regroup-drive-test-{}.jsonl", std::process::id()));
    let trace_arg = trace.to_string_lossy().to_string();
    let (code, v) = drive_json_with(
        "classic-static-rolling-bounce",
        &bootstrap,
        None,
        &["--trace", &trace_arg],
    );
    // The run's time 0 is when the hosts start: the three processes have started within the
    // first 2 s (0.5 s of real time), and the first bounce is at the scenario's 20 s (the real loop
    // looks every 50 ms at most: 200 ms of scenario time).
    let lines: Vec<Value> = std::fs::read_to_string(&trace)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let _ = std::fs::remove_file(&trace);
    let at = |pred: &dyn Fn(&Value) -> bool| -> Vec<i64> {
        lines
            .iter()
            .filter(|e| pred(e))
            .map(|e| e["atMs"].as_i64().unwrap())
            .collect()
    };
    let started = at(&|e| e["source"] == "harness" && e["harness"] == "processStarted");
    assert_eq!(started.len(), 6, "3 processes, each started again once");
    assert!(started[..3].iter().all(|t| *t < 2_000), "{started:?}");
    let injected = at(&|e| e["source"] == "fault" && e["phase"] == "injected");
    assert_eq!(injected.len(), 3);
    assert!((20_000..21_000).contains(&injected[0]), "{injected:?}");
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["verdict"], "passed", "{v:#}");
    assert_eq!(v["faults"]["stop-process"]["injected"], 3);
    assert_eq!(v["faults"]["stop-process"]["skipped"], 0);
    // Three static consumers, still in the generation they formed before the bounces.
    let g = &v["groups"][0];
    assert_eq!(g["groupId"], "billing");
    assert_eq!(g["type"], "classic");
    assert_eq!(g["epoch"], 1, "{g:#}");
    assert_eq!(g["members"].as_array().unwrap().len(), 3);
    let mut instances: Vec<&str> = g["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["instanceId"].as_str().unwrap())
        .collect();
    instances.sort();
    assert_eq!(instances, ["billing-0-0", "billing-1-0", "billing-2-0"]);
    // Converged after the final heal, within the bound (times in the scenario's ms).
    let converged = v["convergedAtMs"].as_i64().unwrap();
    assert!(converged > 0, "{v:#}");
    let d = &v["drive"];
    assert!(d["observerRounds"].as_u64().unwrap() > 0);
    assert_eq!(d["brokers"]["1"], bootstrap.as_str());
    let skipped: Vec<&str> = d["invariantsSkipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["invariant"].as_str().unwrap())
        .collect();
    assert!(skipped.contains(&"broker-fencing"));
    assert!(skipped.contains(&"partition-state"));
    let run: Vec<&str> = d["invariantsRun"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i.as_str().unwrap())
        .collect();
    assert!(run.contains(&"offsets-durable (as the clients see it)"));
}

#[test]
fn an_isolated_streams_process_expires_and_is_fenced_through_the_proxy() {
    let (_server, bootstrap, proxy) = serve_for("streams-session-timeout", true);
    let proxy = proxy.unwrap();
    let (code, v) = drive_json("streams-session-timeout", &bootstrap, Some(&proxy));
    // The scenario's check: the members expire 9-11.5 s (scenario time) after the isolation, come
    // back fenced (UNKNOWN_MEMBER_ID or FENCED_MEMBER_EPOCH) and own tasks again.
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["verdict"], "passed", "{v:#}");
    assert_eq!(v["faults"]["isolate"]["injected"], 1);
    let d = &v["drive"];
    assert_eq!(d["proxied"]["1"], proxy.split('=').nth(1).unwrap());
    assert!(
        d["proxyConnections"]["broker-1"].as_u64().unwrap() >= 4,
        "{d:#}"
    );
    let g = &v["groups"][0];
    assert_eq!(g["groupId"], "app");
    // 3 processes x 2 threads, every member at the group epoch.
    let members = g["members"].as_array().unwrap();
    assert_eq!(members.len(), 6);
    let epoch = g["epoch"].as_i64().unwrap();
    assert!(members.iter().all(|m| m["epoch"].as_i64() == Some(epoch)));
    let tasks: usize = members
        .iter()
        .map(|m| m["activeTasks"].as_array().unwrap().len())
        .sum();
    assert_eq!(tasks, 6, "{g:#}");
}

/// The final consumer group `payments` of a consumer-protocol scenario: `members` members, each
/// at the group epoch, the 6 partitions of `orders` owned once. Returns the group epoch.
fn payments_settled(v: &Value, members: usize) -> i64 {
    let g = &v["groups"][0];
    assert_eq!(g["groupId"], "payments", "{v:#}");
    assert_eq!(g["type"], "consumer", "{g:#}");
    let epoch = g["epoch"].as_i64().unwrap();
    let list = g["members"].as_array().unwrap();
    assert_eq!(list.len(), members, "{g:#}");
    assert!(
        list.iter().all(|m| m["epoch"].as_i64() == Some(epoch)),
        "{g:#}"
    );
    let mut owned: Vec<&str> = list
        .iter()
        .flat_map(|m| m["partitions"].as_array().unwrap())
        .map(|p| p.as_str().unwrap())
        .collect();
    owned.sort();
    assert_eq!(
        owned,
        (0..6).map(|p| format!("orders-{p}")).collect::<Vec<_>>(),
        "{g:#}"
    );
    epoch
}

#[test]
fn a_consumer_protocol_group_cold_starts_against_serve() {
    let (_server, bootstrap, _) = serve_for("consumer-cold-start", false);
    let (code, v) = drive_json("consumer-cold-start", &bootstrap, None);
    // The scenario's check: 3 members, 2 partitions each, one join each, no fencing, commits.
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["verdict"], "passed", "{v:#}");
    let epoch = payments_settled(&v, 3);
    // Three joins, each a bump of its own (the first writes epoch 2): epoch 4, as in the
    // simulator (`regroup run consumer-cold-start`).
    assert_eq!(epoch, 4, "{v:#}");
    let members = v["groups"][0]["members"].as_array().unwrap();
    assert!(
        members
            .iter()
            .all(|m| m["partitions"].as_array().unwrap().len() == 2),
        "{members:#?}"
    );
    assert!(v["drive"]["observerRounds"].as_u64().unwrap() > 0);
    assert!(v["drive"]["observerError"].is_null(), "{v:#}");
}

#[test]
fn a_paused_consumer_protocol_member_is_fenced_through_the_proxy() {
    let (_server, bootstrap, proxy) = serve_for("consumer-zombie", true);
    let proxy = proxy.unwrap();
    let (code, v) = drive_json("consumer-zombie", &bootstrap, Some(&proxy));
    // The scenario's check: the paused member's session expires (an epoch bump while it is
    // held), it is fenced when it resumes and rejoins with the same member id.
    assert_eq!(code, 0, "{v:#}");
    assert_eq!(v["verdict"], "passed", "{v:#}");
    assert_eq!(v["faults"]["pause"]["injected"], 1);
    assert_eq!(v["faults"]["pause"]["skipped"], 0);
    // 3 joins, the expiry and the rejoin: at least 5 bumps.
    let epoch = payments_settled(&v, 3);
    assert!(epoch >= 5, "{v:#}");
}

#[test]
fn a_network_fault_without_a_proxy_is_skipped_with_its_reason() {
    let (_server, bootstrap, _) = serve_for("streams-session-timeout", false);
    let (code, v) = drive_json("streams-session-timeout", &bootstrap, None);
    // The scenario needs its fault: the run fails its expectation, and says why.
    assert_eq!(code, 1, "{v:#}");
    assert_eq!(v["faults"]["isolate"]["skipped"], 1);
    let skipped = &v["drive"]["faultsSkipped"][0];
    assert_eq!(skipped["fault"], "isolate");
    assert!(
        skipped["reason"].as_str().unwrap().contains("no proxy"),
        "{skipped}"
    );
    assert_eq!(v["violations"][0]["invariant"], "expectation");
}

#[test]
fn bad_arguments_and_an_unreachable_cluster_exit_2() {
    let cases: [(&[&str], &str); 7] = [
        (
            &["drive", "no-such-scenario", "--bootstrap", "127.0.0.1:1"],
            "no scenario named",
        ),
        (
            &[
                "drive",
                "consumer-mixed-members",
                "--bootstrap",
                "127.0.0.1:1",
            ],
            "drive does not run processes that speak the classic protocol in a consumer group",
        ),
        (&["drive", "cold-start-streams"], "--bootstrap"),
        (
            &[
                "drive",
                "cold-start-streams",
                "--bootstrap",
                "127.0.0.1:1",
                "--time-scale",
                "0",
            ],
            "--time-scale",
        ),
        (
            &[
                "drive",
                "cold-start-streams",
                "--bootstrap",
                "127.0.0.1:1",
                "--proxy",
                "x",
            ],
            "LISTEN=TARGET",
        ),
        (
            &[
                "drive",
                "cold-start-streams",
                "--bootstrap",
                "127.0.0.1:1",
                "--connect-timeout",
                "1",
            ],
            "cannot reach the cluster at 127.0.0.1:1",
        ),
        (
            &[
                "drive",
                "cold-start-streams",
                "--bootstrap",
                "127.0.0.1:1",
                "--proxy",
                "127.0.0.1:2=127.0.0.1:3",
            ],
            "bootstrap address 127.0.0.1:1 is no proxy's LISTEN address",
        ),
    ];
    for (args, message) in cases {
        let out = regroup(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {out:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(message), "{args:?}: {stderr}");
    }
}

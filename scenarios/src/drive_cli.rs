//! `regroup drive SCENARIO --bootstrap HOST:PORT [--proxy LISTEN=TARGET]... [--time-scale X]
//! [--seed N] [--json] [--trace FILE]`: a catalogue scenario's clients and faults against a real
//! cluster, in real time (`sim::drive`), judged like `regroup run`: the invariants the clients can
//! see, convergence against the groups as described, and the scenario's own check.
//!
//! Exit codes: 0 passed (or only known behaviours of Kafka 4.4.0, unless `--strict`), 1 a
//! violation (a skipped fault of a scenario that needs all of its faults is one), 2 bad arguments
//! or a cluster that cannot be reached.

use std::path::PathBuf;
use std::rc::Rc;

use clap::Args;
use serde_json::json;
use sim::drive::proxy::ProxySpec;
use sim::drive::{
    DriveConfig, DriveOutcome, NodeControl, NodeSignal, Nodes, assumed_broker_configs, drive,
    scale_timings, unscale_times,
};
use sim::event::{FaultEvent, SimEventKind};

use crate::run::{ScenarioRun, judge};

#[derive(Debug, Args)]
pub struct DriveArgs {
    /// The scenario's name (`regroup list` lists them).
    pub scenario: String,
    /// The cluster as its clients reach it: `host:port`, comma-separated (with proxies, the
    /// proxies' addresses, which the brokers advertise).
    #[arg(long, value_name = "HOST:PORT[,...]")]
    pub bootstrap: Option<String>,
    /// A proxy for one broker, `LISTEN=TARGET` (repeatable): drive listens on LISTEN, which the
    /// broker advertises, and forwards to TARGET, where it listens. Network faults between client
    /// hosts and brokers need one for every broker.
    #[arg(long = "proxy", value_name = "LISTEN=TARGET")]
    pub proxies: Vec<String>,
    /// Multiply the scenario's timings (sessions, intervals, fault times) by X, e.g. 0.25; the
    /// broker must accept the shorter sessions (see --print-broker-config).
    #[arg(long, value_name = "X", default_value = "1")]
    pub time_scale: String,
    /// The seed (decimal or 0x-hex); default: the scenario's own.
    #[arg(long)]
    pub seed: Option<String>,
    /// Print one JSON object instead of the human summary.
    #[arg(long)]
    pub json: bool,
    /// Write the event log to FILE as JSON lines.
    #[arg(long, value_name = "FILE")]
    pub trace: Option<PathBuf>,
    /// How long to try reaching the cluster at the start (seconds).
    #[arg(long, value_name = "SECS", default_value_t = 15)]
    pub connect_timeout: u64,
    /// Fail (exit 1) on known behaviours of Kafka 4.4.0 too.
    #[arg(long)]
    pub strict: bool,
    /// Print the broker configs the scenario assumes (after --time-scale), one KEY=VALUE a line,
    /// and exit: start the cluster with them.
    #[arg(long)]
    pub print_broker_config: bool,
    /// Start a cluster for the run and stop it afterwards: `real-kafka` is Apache Kafka 4.4.0 by
    /// conformance/real_kafka/cluster.sh (Java and Maven), started with the scenario's broker
    /// configs, its brokers advertising drive's proxies. Instead of --bootstrap and --proxy.
    #[arg(long, value_name = "KIND", value_parser = ["real-kafka"], conflicts_with_all = ["bootstrap", "proxies"])]
    pub cluster: Option<String>,
    /// With --cluster real-kafka: the cluster's base port (controller; brokers on +1..+3; their
    /// INTERNAL listeners on +11..+13); drive's proxies listen on base+101..+103.
    #[arg(long, value_name = "PORT", default_value_t = 19090)]
    pub real_kafka_base_port: u16,
}

/// How long (scenario ms) a drive on a cluster it started goes on after the groups converged.
const REAL_CLUSTER_SETTLE_MS: u64 = 10_000;

/// A real Kafka cluster started for one drive, stopped when dropped.
struct RealKafka {
    script: PathBuf,
    dir: PathBuf,
    /// Each broker runs as its own user, so a broker can be cut off from the controller.
    node_users: bool,
}

/// Whether `cluster.sh start --node-users` can work here: root, and iptables on the PATH
/// (`REGROUP_NODE_USERS=0` turns it off).
fn node_users_possible() -> bool {
    if std::env::var("REGROUP_NODE_USERS").is_ok_and(|v| v == "0") {
        return false;
    }
    let root = std::process::Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let iptables = std::process::Command::new("iptables")
        .args(["-L", "OUTPUT", "-n"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    root && iptables
}

impl RealKafka {
    /// `cluster.sh`: `REGROUP_REAL_KAFKA` if set, else the checkout's.
    fn script() -> PathBuf {
        match std::env::var_os("REGROUP_REAL_KAFKA") {
            Some(p) => PathBuf::from(p),
            None => PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("../conformance/real_kafka/cluster.sh"),
        }
    }

    /// Starts it (its output goes to stderr); returns it, the bootstrap and the proxies.
    fn start(
        base: u16,
        configs: &std::collections::BTreeMap<String, String>,
    ) -> Result<(RealKafka, Vec<String>, Vec<ProxySpec>), String> {
        let script = Self::script();
        if !script.exists() {
            return Err(format!(
                "{} does not exist (set REGROUP_REAL_KAFKA to cluster.sh)",
                script.display()
            ));
        }
        if !(1024..=65_000).contains(&base) {
            return Err(format!("--real-kafka-base-port {base}: from 1024 to 65000"));
        }
        let proxy_base = base + 100;
        let dir = std::env::temp_dir().join(format!(
            "regroup-drive-real-kafka-{}-{}",
            std::process::id(),
            base
        ));
        let mut cmd = std::process::Command::new("bash");
        cmd.arg(&script)
            .arg("start")
            .arg("--dir")
            .arg(&dir)
            .arg("--base-port")
            .arg(base.to_string())
            .arg("--proxy-base-port")
            .arg(proxy_base.to_string());
        for (k, v) in configs {
            cmd.arg("--broker-config").arg(format!("{k}={v}"));
        }
        let node_users = node_users_possible();
        if node_users {
            cmd.arg("--node-users");
        } else {
            eprintln!(
                "regroup drive: not root or no iptables: a broker cannot be cut off from the \
                 controller (fence-broker faults will be skipped)"
            );
        }
        eprintln!("regroup drive: starting Apache Kafka 4.4.0 (cluster.sh start, about 30 s)");
        let out = cmd
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", script.display()))?;
        eprint!("{}", String::from_utf8_lossy(&out.stdout));
        eprint!("{}", String::from_utf8_lossy(&out.stderr));
        let cluster = RealKafka {
            script,
            dir,
            node_users,
        };
        if !out.status.success() {
            return Err(format!(
                "cluster.sh start failed ({}); its run directory: {}",
                out.status,
                cluster.dir.display()
            ));
        }
        let bootstrap = (1..=3)
            .map(|n| format!("127.0.0.1:{}", proxy_base + n))
            .collect();
        let proxies = (1..=3)
            .map(|n| ProxySpec {
                listen: format!("127.0.0.1:{}", proxy_base + n),
                target: format!("127.0.0.1:{}", base + n),
            })
            .collect();
        Ok((cluster, bootstrap, proxies))
    }
}

/// The broker faults on a cluster `cluster.sh` started: its `signal` and `restart` commands, each
/// a short script run (the JVM's pid guarded by its properties file; a restart does not wait for
/// the node to register).
struct RealKafkaNodes {
    script: PathBuf,
    dir: PathBuf,
    node_users: bool,
}

impl RealKafkaNodes {
    fn run(&self, args: &[&str]) -> Result<(), String> {
        let out = std::process::Command::new("bash")
            .arg(&self.script)
            .arg(args[0])
            .arg("--dir")
            .arg(&self.dir)
            .args(&args[1..])
            .stdin(std::process::Stdio::null())
            .output()
            .map_err(|e| format!("cannot run {}: {e}", self.script.display()))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "cluster.sh {} failed ({}): {}",
                args.join(" "),
                out.status,
                String::from_utf8_lossy(&out.stderr).trim()
            ))
        }
    }
}

impl NodeControl for RealKafkaNodes {
    fn nodes(&self) -> Vec<String> {
        ["controller", "broker-1", "broker-2", "broker-3"]
            .map(String::from)
            .to_vec()
    }

    fn signal(&self, node: &str, signal: NodeSignal) -> Result<(), String> {
        self.run(&["signal", node, signal.name()])
    }

    fn restart(&self, node: &str) -> Result<(), String> {
        self.run(&["restart", node])
    }

    fn can_cut(&self, node: &str) -> bool {
        self.node_users && node.starts_with("broker-")
    }

    fn cut_from_controller(&self, node: &str, cut: bool) -> Result<(), String> {
        self.run(&[if cut { "cut" } else { "uncut" }, node])
    }
}

impl Drop for RealKafka {
    fn drop(&mut self) {
        let out = std::process::Command::new("bash")
            .arg(&self.script)
            .arg("stop")
            .arg("--dir")
            .arg(&self.dir)
            .stdin(std::process::Stdio::null())
            .output();
        match out {
            Ok(o) if o.status.success() => {
                // REGROUP_KEEP_REAL_KAFKA=1 keeps the nodes' logs and storage for a look.
                if std::env::var("REGROUP_KEEP_REAL_KAFKA").is_ok_and(|v| v == "1") {
                    eprintln!("regroup drive: kept {}", self.dir.display());
                } else {
                    let _ = std::fs::remove_dir_all(&self.dir);
                }
            }
            Ok(o) => eprintln!(
                "regroup drive: cluster.sh stop --dir {} failed: {}{}",
                self.dir.display(),
                String::from_utf8_lossy(&o.stdout),
                String::from_utf8_lossy(&o.stderr)
            ),
            Err(e) => eprintln!("regroup drive: cannot run cluster.sh stop: {e}"),
        }
    }
}

/// What drive judges, and what it cannot: (invariant, what is checked or why it is skipped).
pub const INVARIANTS_RUN: &[(&str, &str)] = &[
    (
        "exclusive-active-ownership (as the clients see it)",
        "a task or partition acquired while another live client holds it: that holder must turn \
         out to have been out of the group; a heartbeat it sent after the acquisition answered \
         without error says it was not",
    ),
    (
        "monotonic-epochs",
        "each client's own epochs never go down while it stays in the group",
    ),
    (
        "fenced-commit-rejected (as the clients see it)",
        "a commit sent after its member heard it was removed, with an epoch no newer, is never \
         accepted",
    ),
    (
        "offsets-durable (as the clients see it)",
        "a fetch sent after a commit was acknowledged never returns less",
    ),
    (
        "coordinator-answers",
        "a join is never answered FENCED_MEMBER_EPOCH; every group description (drive's observer, \
         the scenario's admin calls) is consistent with itself",
    ),
    (
        "convergence",
        "after the final heal, within the bound, the groups as described match every live client",
    ),
    ("host-failure", "a client host's software ended by itself"),
    (
        "expectation",
        "the scenario's own check, and every scheduled fault injected when the scenario needs them all",
    ),
];

/// The invariants (or parts) drive cannot judge, with why.
pub const INVARIANTS_SKIPPED: &[(&str, &str)] = &[
    (
        "exclusive-active-ownership (against the coordinator)",
        "needs the coordinator's member records at the moment of each acquisition",
    ),
    (
        "fenced-commit-rejected (against the coordinator)",
        "needs the commit writes in __consumer_offsets and the group as they were written",
    ),
    (
        "offsets-durable (replicas)",
        "needs the replicas' logs and the committed offsets' history",
    ),
    (
        "coordinator-answers (committed states)",
        "the empty group's assignment epoch, a fence's records, the assignment interval and static \
         removals are judged on committed records",
    ),
    ("broker-fencing", "needs the controller's broker sessions"),
    ("partition-state", "needs the controller's metadata log"),
    (
        "determinism",
        "real time and real sockets: a seed fixes member ids and the schedule, not the run",
    ),
];

fn usage(message: String) -> i32 {
    eprintln!("regroup drive: {message}");
    2
}

pub fn run(args: &DriveArgs) -> i32 {
    sim::logging::init();
    let (scenario, seed) =
        match crate::run_cli::scenario_and_seed("drive", &args.scenario, args.seed.as_deref()) {
            Ok(found) => found,
            Err(status) => return status,
        };
    let scale: f64 = match args.time_scale.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 && x <= 10.0 => x,
        _ => {
            return usage(format!(
                "--time-scale {:?}: expected a number in (0, 10]",
                args.time_scale
            ));
        }
    };
    let mut proxies = Vec::new();
    for p in &args.proxies {
        match ProxySpec::parse(p) {
            Ok(p) => proxies.push(p),
            Err(e) => return usage(e),
        }
    }
    let mut prepared = scenario.prepare(seed);
    // The scenario's own final heal: the check reads the run in the scenario's time.
    let heal_ms = prepared.schedule.heal_ms();
    scale_timings(
        &mut prepared.spec,
        &mut prepared.schedule,
        &mut prepared.options,
        scale,
    );
    if args.print_broker_config {
        return match assumed_broker_configs(&prepared.spec) {
            Ok(configs) => {
                for (k, v) in configs {
                    println!("{k}={v}");
                }
                0
            }
            Err(e) => usage(format!(
                "{}: its groups need different configs: {e}",
                scenario.name
            )),
        };
    }
    // A cluster started for this run lives until the end of this function.
    let mut _cluster = None;
    let bootstrap: Vec<String> = match (&args.cluster, &args.bootstrap) {
        (Some(_), _) => {
            let configs = match assumed_broker_configs(&prepared.spec) {
                Ok(c) => c,
                Err(e) => {
                    return usage(format!(
                        "{}: its groups need different configs: {e}",
                        scenario.name
                    ));
                }
            };
            match RealKafka::start(args.real_kafka_base_port, &configs) {
                Ok((cluster, bootstrap, p)) => {
                    _cluster = Some(cluster);
                    proxies = p;
                    bootstrap
                }
                Err(e) => return usage(format!("--cluster real-kafka: {e}")),
            }
        }
        (None, Some(b)) => b
            .split(',')
            .map(|b| b.trim().to_string())
            .filter(|b| !b.is_empty())
            .collect(),
        (None, None) => {
            return usage("--bootstrap HOST:PORT (or --cluster real-kafka) is required".into());
        }
    };
    if let Some(bad) = bootstrap
        .iter()
        .find(|b| protocol::net::split_host_port(b).is_none())
    {
        return usage(format!("--bootstrap: {bad:?} is not host:port"));
    }
    if bootstrap.is_empty() {
        return usage("--bootstrap: no address".into());
    }
    let nodes = _cluster.as_ref().map(|c: &RealKafka| {
        Nodes(Rc::new(RealKafkaNodes {
            script: c.script.clone(),
            dir: c.dir.clone(),
            node_users: c.node_users,
        }) as Rc<dyn NodeControl>)
    });
    let config = DriveConfig {
        bootstrap: bootstrap.clone(),
        proxies,
        connect_timeout_ms: args.connect_timeout.saturating_mul(1000),
        nodes,
    };
    let mut options = prepared.options.clone();
    options.keep_events = true;
    if _cluster.is_some() {
        // On a cluster drive started (its broker faults applied), the run goes on for
        // REAL_CLUSTER_SETTLE_MS of scenario time after the groups converged: what the cluster
        // does after a heal (a broker that was cut off from the controller catching up with the
        // metadata and giving its groups up) reaches the clients after that, and the scenario's
        // check reads what the clients saw.
        let settle = (REAL_CLUSTER_SETTLE_MS as f64 * scale).round() as u64;
        options.settle_ms = options.settle_ms.max(settle);
    }
    let wall = std::time::Instant::now();
    let driven = match drive(
        prepared.spec.clone(),
        prepared.schedule.clone(),
        &options,
        &config,
    ) {
        Ok(d) => d,
        Err(e) => return usage(format!("{}: {e}", scenario.name)),
    };
    let wall_ms = wall.elapsed().as_millis();
    let assumed = match assumed_broker_configs(&prepared.spec) {
        Ok(c) => c
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" "),
        Err(e) => format!("per-group configs ({e})"),
    };
    let keep = args.trace.is_some();
    let mut outcome = driven.outcome.clone();
    unscale_times(&mut outcome, scale);
    let mut report = judge(
        &scenario,
        seed,
        outcome,
        heal_ms,
        prepared.swarm.clone(),
        prepared.spec.kafka_bugs.clone(),
        true,
        true,
    );
    report.replay_with = Some(replay_command(args, seed));
    let skipped = skipped_faults(&report);
    if let Some(path) = &args.trace {
        let written = std::fs::File::create(path).and_then(|f| {
            let mut w = std::io::BufWriter::new(f);
            report.write_trace(&mut w)?;
            std::io::Write::flush(&mut w)
        });
        if let Err(e) = written {
            eprintln!("regroup drive: cannot write {}: {e}", path.display());
            return 2;
        }
    }
    if !keep {
        report.outcome.log = Vec::new();
    }
    if args.json {
        let mut v = report.to_json();
        v["drive"] = json!({
            "bootstrap": bootstrap,
            "cluster": args.cluster,
            "timeScale": scale,
            "deterministic": false,
            "assumedBrokerConfigs": assumed,
            "wallMs": wall_ms,
            "brokers": driven.brokers,
            "proxied": driven.proxied,
            "proxyConnections": driven.proxy_connections,
            "observerRounds": driven.observer_rounds,
            "topicMismatches": driven.topic_mismatches,
            "groupsDeleted": driven.groups_deleted,
            "observerError": driven.observer_error,
            "faultsSkipped": skipped.iter().map(|(at, f, r)| json!({"atMs": at, "fault": f, "reason": r})).collect::<Vec<_>>(),
            "invariantsRun": INVARIANTS_RUN.iter().map(|(n, _)| n).collect::<Vec<_>>(),
            "invariantsSkipped": INVARIANTS_SKIPPED.iter().map(|(n, why)| json!({"invariant": n, "why": why})).collect::<Vec<_>>(),
        });
        println!("{v}");
    } else {
        print!(
            "{}",
            header(&driven, &bootstrap, scale, wall_ms, &assumed, &skipped)
        );
        print!("{}", report.summary());
    }
    if report.verdict().fails(args.strict) {
        1
    } else {
        0
    }
}

/// The command that runs the same drive again (not the same run: real time).
fn replay_command(args: &DriveArgs, seed: u64) -> String {
    let mut c = format!(
        "cargo run --release -- drive {} --seed {seed}",
        args.scenario
    );
    match (&args.cluster, &args.bootstrap) {
        (Some(kind), _) => c.push_str(&format!(" --cluster {kind}")),
        (None, Some(b)) => c.push_str(&format!(" --bootstrap {b}")),
        (None, None) => {}
    }
    for p in &args.proxies {
        c.push_str(&format!(" --proxy {p}"));
    }
    if args.time_scale != "1" {
        c.push_str(&format!(" --time-scale {}", args.time_scale));
    }
    c
}

/// (ms, fault, reason) of every fault the run skipped.
pub fn skipped_faults(report: &ScenarioRun) -> Vec<(i64, &'static str, String)> {
    report
        .outcome
        .log
        .iter()
        .filter_map(|e| match &e.kind {
            SimEventKind::Fault(FaultEvent::Skipped { fault, reason, .. }) => {
                Some((e.at_ms, *fault, reason.clone()))
            }
            _ => None,
        })
        .collect()
}

fn header(
    d: &DriveOutcome,
    bootstrap: &[String],
    scale: f64,
    wall_ms: u128,
    assumed: &str,
    skipped: &[(i64, &'static str, String)],
) -> String {
    let mut s = String::new();
    let brokers: Vec<String> = d
        .brokers
        .iter()
        .map(|(id, addr)| match d.proxied.get(id) {
            Some(target) => format!("{id} at {addr} (drive's proxy to {target})"),
            None => format!("{id} at {addr}"),
        })
        .collect();
    s.push_str(&format!(
        "drive: real time against {} (brokers: {}); {:.1} s wall clock, {} observer rounds\n",
        bootstrap.join(","),
        brokers.join(", "),
        wall_ms as f64 / 1000.0,
        d.observer_rounds
    ));
    if !assumed.is_empty() {
        s.push_str(&format!(
            "the scenario assumes the brokers run with {assumed} (--print-broker-config)\n"
        ));
    }
    if scale != 1.0 {
        s.push_str(&format!(
            "time scale {scale}: the scenario's timings ran {scale} times as long; times below are \
             the scenario's (real ms / {scale})\n"
        ));
    }
    let run: Vec<&str> = INVARIANTS_RUN.iter().map(|(n, _)| *n).collect();
    let not: Vec<&str> = INVARIANTS_SKIPPED.iter().map(|(n, _)| *n).collect();
    s.push_str(&format!("invariants checked: {}\n", run.join(", ")));
    s.push_str(&format!(
        "not checked (they need the brokers' internals): {}\n",
        not.join(", ")
    ));
    if let Some(e) = &d.observer_error {
        s.push_str(&format!("drive's observer, last round: {e}\n"));
    }
    for g in &d.groups_deleted {
        s.push_str(&format!(
            "group {g} was left by an earlier run: deleted before this one\n"
        ));
    }
    for t in &d.topic_mismatches {
        s.push_str(&format!("topic differs from the scenario's: {t}\n"));
    }
    for (at, fault, reason) in skipped {
        s.push_str(&format!("skipped at {at} ms: {fault}: {reason}\n"));
    }
    s
}

//! `regroup serve`: a one-node cluster on real TCP (the controller embedded, on an ephemeral
//! loopback port), for real Kafka clients.
//!
//! The only place in regroup that reads the wall clock and OS randomness: the broker's clock
//! starts at the current time (commit timestamps look real) and its incarnation id is random.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::io::Write;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use coordinator::broker::{BrokerConfig, BrokerStorage, start_broker};
use coordinator::controller::server::start_controller;
use coordinator::controller::{ControllerConfig, ControllerStorage, GROUP_METADATA_TOPIC};
use coordinator::events::no_events;
use coordinator::rpc::RpcClient;
use protocol::messages::create_topics_request::CreatableTopic;
use protocol::messages::{CreateTopicsRequest, StrBytes, TopicName};
use protocol::net::TokioNet;
use protocol::{Request, Response};
use uuid::Uuid;

/// Exit status for bad arguments.
pub const EXIT_USAGE: i32 = 2;
/// Exit status when the cluster cannot start.
pub const EXIT_FAILURE: i32 = 1;

/// Arguments of `regroup serve`.
#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Address of the client listener (`host:port`; port 0 picks a free port).
    #[arg(long, default_value = "127.0.0.1:9092")]
    pub listen: String,
    /// The address the broker advertises in Metadata and FindCoordinator answers (`host:port`;
    /// default: the listener's). `regroup drive` puts its proxy there.
    #[arg(long, value_name = "HOST:PORT")]
    pub advertise: Option<String>,
    /// A topic to create at startup, `NAME:PARTITIONS` (repeatable).
    #[arg(long = "topic", value_name = "NAME:PARTITIONS")]
    pub topics: Vec<String>,
    /// A broker, controller or group config, `KEY=VALUE` (repeatable), e.g.
    /// `group.streams.initial.rebalance.delay.ms=0`.
    #[arg(long = "config", value_name = "KEY=VALUE")]
    pub configs: Vec<String>,
}

/// The parsed configuration of a serve run.
#[derive(Debug, Clone)]
pub struct ServePlan {
    pub controller: ControllerConfig,
    pub broker: BrokerConfig,
    pub topics: Vec<(String, i32)>,
}

/// Parses the arguments into the cluster's configuration.
pub fn plan(args: &ServeArgs) -> Result<ServePlan, String> {
    let controller = ControllerConfig {
        listen: "127.0.0.1:0".into(),
        ..ControllerConfig::default()
    };
    let mut plan = ServePlan {
        controller,
        broker: BrokerConfig::new(1, args.listen.clone(), String::new()),
        topics: Vec::new(),
    };
    // One broker: the offsets topic cannot have more replicas.
    plan.broker.offsets_topic_replication_factor = 1;
    if let Some(a) = &args.advertise {
        let (host, port) = protocol::net::split_host_port(a)
            .filter(|(h, p)| !h.is_empty() && *p > 0)
            .ok_or_else(|| format!("--advertise {a:?}: expected HOST:PORT"))?;
        plan.broker.advertised = Some((host.to_string(), port));
    }
    for kv in &args.configs {
        let (key, value) = kv
            .split_once('=')
            .ok_or_else(|| format!("--config {kv:?}: expected KEY=VALUE"))?;
        let (key, value) = (key.trim(), value.trim());
        let mut known = false;
        if let Some(r) = plan.controller.try_set(key, value) {
            r.map_err(|e| format!("--config {kv}: {e}"))?;
            known = true;
        }
        let broker_key = matches!(key, "cluster.id") || plan.broker.set(key, value).is_ok();
        if key == "cluster.id" {
            plan.broker.cluster_id = value.to_string();
        }
        if !known && !broker_key {
            // Report the broker's own error (unknown key or bad value).
            plan.broker
                .set(key, value)
                .map_err(|e| format!("--config {kv}: {e}"))?;
        }
    }
    for t in &args.topics {
        let (name, partitions) = t
            .rsplit_once(':')
            .ok_or_else(|| format!("--topic {t:?}: expected NAME:PARTITIONS"))?;
        let partitions: i32 = partitions.parse().ok().filter(|p| *p > 0).ok_or_else(|| {
            format!("--topic {t:?}: the partition count must be a positive integer")
        })?;
        if let Some(reason) = coordinator::controller::state::invalid_topic_reason(name) {
            return Err(format!("--topic {t:?}: topic name is invalid: {reason}"));
        }
        plan.topics.push((name.to_string(), partitions));
    }
    Ok(plan)
}

/// A random incarnation id (Kafka draws one per process start).
fn random_incarnation() -> Uuid {
    let draw = || {
        let mut h = RandomState::new().build_hasher();
        h.write_u64(0);
        h.finish()
    };
    Uuid::from_u64_pair(draw(), draw())
}

fn wall_clock_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Runs `regroup serve`; returns the process exit status.
pub fn run(args: &ServeArgs) -> i32 {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
    let plan = match plan(args) {
        Ok(p) => p,
        Err(e) => {
            eprintln!("regroup serve: {e}");
            return EXIT_USAGE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("regroup serve: cannot start the runtime: {e}");
            return EXIT_FAILURE;
        }
    };
    let local = tokio::task::LocalSet::new();
    match local.block_on(&runtime, serve(plan)) {
        Ok(()) => 0,
        Err(e) => {
            eprintln!("regroup serve: {e}");
            EXIT_FAILURE
        }
    }
}

async fn serve(mut plan: ServePlan) -> Result<(), String> {
    let net = TokioNet::new(wall_clock_ms());
    let controller = start_controller(
        net.clone(),
        plan.controller.clone(),
        ControllerStorage::new(),
        no_events(),
    )
    .await
    .map_err(|e| format!("cannot start the controller: {e}"))?;
    plan.broker.controller = controller.addr().to_string();
    plan.broker.cluster_id = plan.controller.cluster_id.clone();
    plan.broker.incarnation_id = random_incarnation();
    let partitions = plan.broker.offsets_topic_partitions;
    let broker = start_broker(
        net.clone(),
        plan.broker.clone(),
        BrokerStorage::new(),
        no_events(),
    )
    .await
    .map_err(|e| format!("cannot listen on {}: {e}", plan.broker.listen))?;
    if tokio::time::timeout(Duration::from_secs(30), broker.wait_running())
        .await
        .is_err()
    {
        return Err("the broker did not start within 30 s".into());
    }
    // A used cluster has its offsets topic; create it now so the first FindCoordinator succeeds.
    let admin = RpcClient::new(net.clone(), controller.addr(), "regroup-serve");
    let mut topics = vec![(GROUP_METADATA_TOPIC.to_string(), partitions)];
    topics.extend(plan.topics.iter().cloned());
    for (name, partitions) in &topics {
        let request = CreateTopicsRequest::default().with_topics(vec![
            CreatableTopic::default()
                .with_name(TopicName(StrBytes::from_string(name.clone())))
                .with_num_partitions(*partitions)
                .with_replication_factor(1),
        ]);
        match admin.call(Request::CreateTopics(request), 7, 5000).await {
            Ok(Response::CreateTopics(r)) => {
                if let Some(t) = r.topics.first()
                    && t.error_code != 0
                {
                    return Err(format!(
                        "cannot create topic {name}: {}",
                        t.error_message
                            .as_ref()
                            .map(|m| m.to_string())
                            .unwrap_or_default()
                    ));
                }
            }
            other => return Err(format!("cannot create topic {name}: {other:?}")),
        }
    }
    // Wait until the broker has the topics in its metadata.
    for _ in 0..300 {
        let image = broker.metadata();
        if topics.iter().all(|(n, _)| image.topic(n).is_some()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let advertised = if broker.addr() == broker.listen_addr() {
        String::new()
    } else {
        format!(", advertised as {}", broker.addr())
    };
    println!(
        "regroup serve: listening on {} (cluster id {}, node 1{advertised})",
        broker.listen_addr(),
        plan.controller.cluster_id
    );
    let _ = std::io::stdout().flush();
    tracing::info!(addr = %broker.addr(), "regroup serve is ready; Ctrl-C stops it");
    tokio::select! {
        biased;
        _ = tokio::signal::ctrl_c() => {
            tracing::info!("stopping (controlled shutdown)");
            broker.shutdown().await;
        }
        _ = broker.wait_stopped() => {}
    }
    controller.abort();
    println!("regroup serve: stopped");
    let _ = std::io::stdout().flush();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(configs: &[&str], topics: &[&str]) -> ServeArgs {
        ServeArgs {
            listen: "127.0.0.1:0".into(),
            advertise: None,
            topics: topics.iter().map(|s| s.to_string()).collect(),
            configs: configs.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn configs_go_to_the_controller_broker_and_shard() {
        let p = plan(&args(
            &[
                "broker.session.timeout.ms=6000",
                "offsets.topic.num.partitions=5",
                "group.streams.initial.rebalance.delay.ms=0",
            ],
            &["orders:3", "a.b-c_d:1"],
        ))
        .unwrap();
        assert_eq!(p.controller.session_timeout_ms, 6000);
        assert_eq!(p.broker.session_timeout_ms, 6000);
        assert_eq!(p.broker.offsets_topic_partitions, 5);
        assert_eq!(
            p.topics,
            vec![("orders".to_string(), 3), ("a.b-c_d".to_string(), 1)]
        );
    }

    #[test]
    fn bad_arguments_are_reported() {
        assert!(
            plan(&args(&["nope"], &[]))
                .unwrap_err()
                .contains("KEY=VALUE")
        );
        assert!(
            plan(&args(&["no.such.key=1"], &[]))
                .unwrap_err()
                .contains("no.such.key")
        );
        assert!(plan(&args(&["offsets.topic.num.partitions=x"], &[])).is_err());
        assert!(
            plan(&args(&[], &["orders"]))
                .unwrap_err()
                .contains("NAME:PARTITIONS")
        );
        assert!(plan(&args(&[], &["orders:0"])).is_err());
        let mut a = args(&[], &[]);
        a.advertise = Some("127.0.0.1:29092".into());
        assert_eq!(
            plan(&a).unwrap().broker.advertised,
            Some(("127.0.0.1".to_string(), 29092))
        );
        a.advertise = Some("nope".into());
        assert!(plan(&a).unwrap_err().contains("HOST:PORT"));
        assert!(
            plan(&args(&[], &["bad topic:1"]))
                .unwrap_err()
                .contains("invalid")
        );
    }
}

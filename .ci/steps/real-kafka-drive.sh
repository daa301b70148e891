#!/usr/bin/env bash
# regroup drive against Apache Kafka 4.4.0 (docs/real-kafka.md): a network-fault scenario
# (streams-session-timeout: a process cut off from the brokers through drive's proxies for 20 s) and
# a client-fault one (classic-static-rolling-bounce), each on a fresh cluster started and stopped by
# `regroup drive --cluster real-kafka`, at half the scenario's timings; and rude-admin, whose CreateTopics
# answers (conformance/real_kafka/rude-admin.jsonl) the simulator is held to, held to the real cluster
# again; a consumer-protocol (KIP-848) group's zombie (consumer-zombie: a paused consumer held at
# drive's proxies past its session, fenced and rejoining; 45 s here); and broker faults applied to
# the real nodes (below). Each must pass its own check and the invariants drive runs. Skips with a
# notice when java or mvn is missing or the cluster's ports are taken. About five minutes here
# (4 min 40 s measured with the release binary, as root).
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in java mvn python3; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "real-kafka-drive: SKIPPED ($tool not found; needs Java 17+, Maven and python3)"
    exit 0
  fi
done

base="${REAL_KAFKA_BASE_PORT:-19090}"
for port in $(seq "$base" $((base + 3))) $((base + 11)) $((base + 12)) $((base + 13)) \
    $((base + 101)) $((base + 102)) $((base + 103)); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "real-kafka-drive: SKIPPED (port $port is in use; set REAL_KAFKA_BASE_PORT)"
    exit 0
  fi
done

# REGROUP_BIN: a regroup binary to use instead of building the release one.
bin="${REGROUP_BIN:-}"
if [ -z "$bin" ]; then
  cargo build --release -q -p scenarios --bin regroup
  bin=./target/release/regroup
fi
# Broker faults: a coordinator crash (signals to the broker's JVM) always; a coordinator cut off from
# the controller (each broker its own user, an iptables rule on it) when this runs as root, with
# iptables installed here if apt-get can. Both at the scenario's own timings: the brokers' 9 s session
# is the cluster's, not scaled, and the faults must outlast it.
runs=("streams-session-timeout 0.5" "classic-static-rolling-bounce 0.5" "rude-admin 0.5"
  "consumer-zombie 0.5" "coordinator-crash-streams 1")
if [ "$(id -u)" -eq 0 ]; then
  if ! command -v iptables >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    apt-get install -y -q iptables >/dev/null 2>&1 || true
  fi
  if command -v iptables >/dev/null 2>&1 && iptables -L OUTPUT -n >/dev/null 2>&1; then
    runs+=("fenced-coordinator-streams 1")
  else
    echo "real-kafka-drive: fenced-coordinator-streams SKIPPED (iptables is not usable here)"
  fi
else
  echo "real-kafka-drive: fenced-coordinator-streams SKIPPED (cutting a broker off from the controller needs root)"
fi
for run in "${runs[@]}"; do
  read -r scenario scale <<<"$run"
  out="$(mktemp)"
  status=0
  "$bin" drive "$scenario" --cluster real-kafka --real-kafka-base-port "$base" \
      --time-scale "$scale" --json >"$out" || status=$?
  verdict="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["verdict"])' "$out" 2>/dev/null || echo none)"
  echo "real-kafka-drive: $scenario: exit $status, verdict $verdict"
  rm -f "$out"
  [ "$status" -eq 0 ] && [ "$verdict" = passed ] || exit 1
done

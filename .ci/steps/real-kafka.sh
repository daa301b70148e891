#!/usr/bin/env bash
# A real Apache Kafka 4.4.0 KRaft cluster (1 controller, 3 brokers, streams groups on) started from
# Maven Central's jars, checked and stopped by conformance/real_kafka/smoke.sh (docs/real-kafka.md).
# Skips with a notice when java or mvn is missing, or when the smoke test's ports are taken (another
# cluster on this machine); exits non-zero when a check fails. About a minute and a half here.
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "real-kafka: SKIPPED ($tool not found; needs Java 17+ and Maven)"
    exit 0
  fi
done

base="${REAL_KAFKA_BASE_PORT:-19090}"
for port in $(seq "$base" $((base + 3))); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "real-kafka: SKIPPED (port $port is in use; set REAL_KAFKA_BASE_PORT)"
    exit 0
  fi
done

bash conformance/real_kafka/smoke.sh --base-port "$base"

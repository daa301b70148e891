#!/usr/bin/env bash
# Real Kafka clients against `regroup serve` (conformance/real_clients and conformance/streams-app):
# confluent-kafka, kafka-python and aiokafka when python3 exists, a Kafka Streams 4.4.0 application
# when java and mvn exist; each part is skipped with a notice otherwise. The pip packages are cached
# in conformance/.venv, the Maven artifacts in ~/.m2 and the built app in conformance/streams-app/target.
set -euo pipefail
cd "$(dirname "$0")/../.."

start=$SECONDS
echo "real-clients: building regroup"
cargo build -q -p scenarios --bin regroup
export REGROUP="${CARGO_TARGET_DIR:-$PWD/target}/debug/regroup"

status=0
timeout 900 bash conformance/real_clients/run.sh || status=$?
timeout 900 bash conformance/streams-app/run.sh || status=$?
echo "real-clients: finished in $((SECONDS - start)) s"
exit "$status"

#!/usr/bin/env bash
# The differential oracle: regroup's coordinator against Apache Kafka 4.4.0's own group coordinator
# (conformance/oracle, built with Maven from Kafka's released jars) on the fixed corpus and on generated
# scripts. Skips with a notice when java or mvn is missing; exits non-zero on any divergence.
#   CONFORMANCE_SEEDS (default 0..50)  seeds of generated scripts, each giving one streams, one classic and one consumer-group script
#   CONFORMANCE_STEPS (default 120)    client actions per generated script
#   CONFORMANCE_REGEX (default 10000)  random subscription regexes compared with RE2J 1.8 (0: none)
set -euo pipefail
cd "$(dirname "$0")/../.."

for tool in java mvn; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "conformance: SKIPPED ($tool not found; needs Java 17+ and Maven)"
    exit 0
  fi
done

seeds="${CONFORMANCE_SEEDS:-0..50}"
steps="${CONFORMANCE_STEPS:-120}"
regex="${CONFORMANCE_REGEX:-10000}"

echo "conformance: building and testing the oracle (Kafka 4.4.0 from Maven Central)"
(cd conformance/oracle && mvn -q -B -Dstyle.color=never package)

echo "conformance: building regroup"
cargo build -q -p scenarios --bin regroup
regroup="${CARGO_TARGET_DIR:-target}/debug/regroup"

"$regroup" conformance --corpus conformance/corpus --seeds "$seeds" --steps "$steps" --groups all --regex "$regex"

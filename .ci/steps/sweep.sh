#!/usr/bin/env bash
# The regression gate: a seed sweep of the three swarm scenarios (each seed draws its own fault mix),
# beyond the seeds the snapshot tests pin, with the release binary. Runs that hit only a documented
# Kafka 4.4.0 behaviour (sim/src/known.rs) are counted as known and reported by name; any other failure
# fails the step. Failure files land in target/sweep-failures (`regroup replay FILE` re-runs one).
#   SWEEP_SEEDS (default 1..201: 600 runs over the three swarm scenarios)  seeds, as `regroup sweep --seeds` takes them
#   SWEEP_STRICT=1  fail on known behaviours too
set -euo pipefail
cd "$(dirname "$0")/../.."

seeds="${SWEEP_SEEDS:-1..201}"
strict=()
if [ "${SWEEP_STRICT:-0}" = 1 ]; then
  strict=(--strict)
fi
cargo build --quiet --release -p scenarios --bin regroup
regroup="${CARGO_TARGET_DIR:-target}/release/regroup"
started=$(date +%s)
status=0
for scenario in swarm-streams swarm-classic-static swarm-mixed; do
  "$regroup" sweep "$scenario" --seeds "$seeds" --out target/sweep-failures "${strict[@]}" || status=1
done
echo "sweep: seeds $seeds of 3 swarm scenarios in $(( $(date +%s) - started )) s"
exit $status

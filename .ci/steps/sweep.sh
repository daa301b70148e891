#!/usr/bin/env bash
# The regression gate: a seed sweep of the three swarm scenarios (each seed draws its own fault mix),
# beyond the seeds the snapshot tests pin, with the release binary. Runs that hit only a documented
# Kafka 4.4.0 behaviour (sim/src/known.rs) are counted as known and reported by name; any other failure
# fails the step. Failure files land in target/sweep-failures (`regroup replay FILE` re-runs one).
# With --coverage each sweep also prints its coverage table and fails on a declared goal no seed reached
# (the goals are in scenarios/src/catalogue/swarm.rs; docs/coverage.md).
#   SWEEP_SEEDS (default 1..201: 600 runs over the three swarm scenarios)  seeds, as `regroup sweep --seeds` takes them
#   SWEEP_STRICT=1  fail on known behaviours too
#   SWEEP_COVERAGE=0  no coverage table or goals (a short SWEEP_SEEDS may miss rare goals)
#   SWEEP_ASSIGNOR_ORACLE=0  do not check the streams target assignments against Kafka's own assignor
#     (on by default when java and mvn are present: the oracle is built, as assignor-oracle.sh builds it)
set -euo pipefail
cd "$(dirname "$0")/../.."

seeds="${SWEEP_SEEDS:-1..201}"
flags=()
if [ "${SWEEP_STRICT:-0}" = 1 ]; then
  flags+=(--strict)
fi
if [ "${SWEEP_COVERAGE:-1}" = 1 ]; then
  flags+=(--coverage)
fi
if [ "${SWEEP_ASSIGNOR_ORACLE:-1}" = 1 ] && command -v java >/dev/null 2>&1 && command -v mvn >/dev/null 2>&1; then
  (cd conformance/oracle && mvn -q -B -Dstyle.color=never package -DskipTests)
  flags+=(--assignor-oracle)
else
  echo "sweep: assignor oracle SKIPPED (needs java and mvn; SWEEP_ASSIGNOR_ORACLE=${SWEEP_ASSIGNOR_ORACLE:-1})"
fi
cargo build --quiet --release -p scenarios --bin regroup
regroup="${CARGO_TARGET_DIR:-target}/release/regroup"
started=$(date +%s)
status=0
for scenario in swarm-streams swarm-classic-static swarm-mixed swarm-consumer; do
  "$regroup" sweep "$scenario" --seeds "$seeds" --out target/sweep-failures "${flags[@]}" || status=1
done
echo "sweep: seeds $seeds of 4 swarm scenarios in $(( $(date +%s) - started )) s"
exit $status

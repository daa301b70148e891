#!/usr/bin/env bash
# A bounded seed sweep of the swarm scenarios (each seed draws its own fault mix), beyond the seeds the
# snapshot tests pin. Exits non-zero if any seed fails; failure files land in target/sweep-failures
# (`regroup replay FILE` re-runs one). Uses the debug binary `cargo test` already built: at the
# default 10 ms tick a swarm run takes about a second in debug, so a release build would cost more
# than it saves.
#   SWEEP_SEEDS (default 100..120: 60 runs over the three swarm scenarios)  seeds, as `regroup sweep --seeds` takes them
set -euo pipefail
cd "$(dirname "$0")/../.."

seeds="${SWEEP_SEEDS:-100..120}"
cargo build --quiet -p scenarios --bin regroup
regroup="${CARGO_TARGET_DIR:-target}/debug/regroup"
for scenario in swarm-streams swarm-classic-static swarm-mixed; do
  "$regroup" sweep "$scenario" --seeds "$seeds" --out target/sweep-failures
done

#!/usr/bin/env bash
# A bounded seed sweep of the swarm scenarios (each seed draws its own fault mix), beyond the seeds the
# snapshot tests pin. Exits non-zero if any seed fails; failure files land in target/sweep-failures
# (`regroup replay FILE` re-runs one).
#   SWEEP_SEEDS (default 100..107: 21 runs over the three swarm scenarios)  seeds, as `regroup sweep --seeds` takes them
set -euo pipefail
cd "$(dirname "$0")/../.."

seeds="${SWEEP_SEEDS:-100..107}"
cargo build --release --quiet -p scenarios --bin regroup
for scenario in swarm-streams swarm-classic-static swarm-mixed; do
  ./target/release/regroup sweep "$scenario" --seeds "$seeds" --out target/sweep-failures
done

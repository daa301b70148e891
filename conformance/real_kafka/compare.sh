#!/usr/bin/env bash
# The simulator next to real clusters, scenario by scenario: for each SCENARIO, `regroup run` (the
# simulator), `regroup drive` against `regroup serve` (regroup's coordinator on real TCP, one broker,
# in real time) and `regroup drive --cluster real-kafka` (Apache Kafka 4.4.0, a fresh cluster per
# scenario), each with --json into OUT/SCENARIO.{sim,serve,kafka}.json (the driven runs' event logs
# in OUT/SCENARIO.{serve,kafka}.trace.jsonl, to follow a difference); then the markdown table of
# docs/real-kafka.md ("The simulator next to Kafka 4.4.0") from what OUT holds (compare_table.py).
#
#   conformance/real_kafka/compare.sh [--out DIR] [--time-scale X] [--regroup BIN] [--no-kafka]
#                                     [--table-only] SCENARIO...
#
# Runs are skipped when their JSON is already in OUT (delete it to run again). About 25 s per scenario
# against serve and 40-60 s against Kafka (its start and stop included), on 2 cores.
# Exit codes: 0 done (whatever the verdicts), 2 bad arguments.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$here/run/compare"
scale=0.5
bin="$root/target/release/regroup"
kafka=1
table_only=0
scenarios=()
while [ $# -gt 0 ]; do
    case "$1" in
        --out) [ $# -ge 2 ] || { echo "compare.sh: --out needs a value" >&2; exit 2; }; out="$2"; shift 2 ;;
        --time-scale) [ $# -ge 2 ] || { echo "compare.sh: --time-scale needs a value" >&2; exit 2; }; scale="$2"; shift 2 ;;
        --regroup) [ $# -ge 2 ] || { echo "compare.sh: --regroup needs a value" >&2; exit 2; }; bin="$2"; shift 2 ;;
        --no-kafka) kafka=0; shift ;;
        --table-only) table_only=1; shift ;;
        -h|--help) sed -n '2,15p' "$0"; exit 0 ;;
        -*) echo "compare.sh: unknown option '$1'" >&2; exit 2 ;;
        *) scenarios+=("$1"); shift ;;
    esac
done
[ "${#scenarios[@]}" -gt 0 ] || { echo "compare.sh: no scenario given" >&2; exit 2; }
[ -x "$bin" ] || { echo "compare.sh: $bin is not built (cargo build --release, or --regroup BIN)" >&2; exit 2; }
mkdir -p "$out"

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

if [ "$table_only" -eq 0 ]; then
    for s in "${scenarios[@]}"; do
        if [ ! -s "$out/$s.sim.json" ]; then
            echo "compare.sh: $s: simulator" >&2
            "$bin" run "$s" --json >"$out/$s.sim.json" 2>"$out/$s.sim.err" || true
        fi
        if [ ! -s "$out/$s.serve.json" ]; then
            echo "compare.sh: $s: regroup serve" >&2
            mapfile -t cfg < <("$bin" drive "$s" --print-broker-config --time-scale "$scale")
            args=(--config offsets.topic.num.partitions=3)
            for kv in "${cfg[@]}"; do args+=(--config "$kv"); done
            listen="127.0.0.1:$(free_port)"
            advertised="127.0.0.1:$(free_port)"
            RUST_LOG=warn "$bin" serve --listen "$listen" --advertise "$advertised" "${args[@]}" \
                >"$out/$s.serve.log" 2>&1 &
            serve_pid=$!
            for _ in $(seq 50); do grep -q "listening on" "$out/$s.serve.log" 2>/dev/null && break; sleep 0.1; done
            "$bin" drive "$s" --bootstrap "$advertised" --proxy "$advertised=$listen" \
                --time-scale "$scale" --json --trace "$out/$s.serve.trace.jsonl" \
                >"$out/$s.serve.json" 2>"$out/$s.serve.err" || true
            kill -INT "$serve_pid" 2>/dev/null || true
            wait "$serve_pid" 2>/dev/null || true
        fi
        if [ "$kafka" -eq 1 ] && [ ! -s "$out/$s.kafka.json" ]; then
            echo "compare.sh: $s: Apache Kafka 4.4.0" >&2
            REGROUP_REAL_KAFKA="$here/cluster.sh" "$bin" drive "$s" --cluster real-kafka \
                --time-scale "$scale" --json --trace "$out/$s.kafka.trace.jsonl" \
                >"$out/$s.kafka.json" 2>"$out/$s.kafka.err" || true
        fi
    done
fi
python3 "$here/compare_table.py" "$out" "${scenarios[@]}"

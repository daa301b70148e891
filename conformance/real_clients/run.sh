#!/usr/bin/env bash
# Real Kafka clients against `regroup serve` on 127.0.0.1: kafka-python 3.0.12 and
# confluent-kafka 2.16.1 (librdkafka 2.16.0), installed into conformance/.venv on first use.
#
#   conformance/real_clients/run.sh            # builds regroup, runs every check
#   REGROUP=path/to/regroup conformance/real_clients/run.sh
#
# Exits 0 when every check passed, 1 on a failed check, 0 with a SKIP notice when python3 or the
# packages are not available. Every step is bounded in time.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/conformance/.venv"

if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is not installed"
    exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
    if ! timeout 300 python3 -m venv "$venv"; then
        echo "SKIP: cannot create a virtualenv in $venv"
        exit 0
    fi
fi
if ! "$venv/bin/python" -c "import kafka, confluent_kafka" >/dev/null 2>&1; then
    if ! timeout 600 "$venv/bin/pip" install -q "kafka-python==3.0.12" "confluent-kafka==2.16.1"; then
        echo "SKIP: cannot install kafka-python / confluent-kafka from PyPI"
        exit 0
    fi
fi

regroup="${REGROUP:-}"
if [ -z "$regroup" ]; then
    (cd "$root" && timeout 1800 cargo build -q -p scenarios)
    regroup="$root/target/debug/regroup"
fi

log="$(mktemp)"
out="$(mktemp)"
"$regroup" serve --listen 127.0.0.1:0 --topic t1:2 \
    --config group.streams.initial.rebalance.delay.ms=0 \
    --config group.initial.rebalance.delay.ms=0 >"$out" 2>"$log" &
pid=$!
cleanup() {
    kill -INT "$pid" 2>/dev/null || true
    sleep 1
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$log" "$out"
}
trap cleanup EXIT

addr=""
for _ in $(seq 1 300); do
    addr="$(sed -n 's/^regroup serve: listening on \([^ ]*\).*/\1/p' "$out" | head -1)"
    [ -n "$addr" ] && break
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "regroup serve exited early:"; cat "$log"; exit 1
    fi
    sleep 0.1
done
if [ -z "$addr" ]; then
    echo "regroup serve did not start:"; tail -20 "$log"; exit 1
fi
echo "regroup serve on $addr"

status=0
timeout 120 "$venv/bin/python" "$here/check_serve.py" "$addr" || status=$?
if [ "$status" -ne 0 ]; then
    echo "--- regroup serve log (tail) ---"
    tail -40 "$log"
fi
exit "$status"

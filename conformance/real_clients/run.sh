#!/usr/bin/env bash
# Real Kafka clients against `regroup serve` on 127.0.0.1: confluent-kafka 2.16.1 (librdkafka 2.16.0),
# with the classic protocol and with `group.protocol=consumer` (KIP-848), kafka-python 3.0.12 and
# aiokafka 0.14.0, pinned in requirements.txt and installed into conformance/.venv on first use
# (reinstalled when requirements.txt changes).
#
#   conformance/real_clients/run.sh                      # builds regroup, runs every suite
#   conformance/real_clients/run.sh confluent aiokafka   # some suites: serve confluent
#                                                        #   confluent-consumer kafka-python aiokafka
#   REGROUP=path/to/regroup conformance/real_clients/run.sh
#   REAL_CLIENTS_LOGS=/tmp/rc CLIENT_LOG_LEVEL=DEBUG RUST_LOG=debug conformance/real_clients/run.sh
#
# Each suite gets its own `regroup serve` (topics t1:2 and t6:6; consumer-group heartbeats every
# 500 ms instead of Kafka's 5 s, so KIP-848 reconciliation takes a second, not ten) and must also leave the broker's log
# free of closed connections (a response the broker cannot write, an unsupported version, ...).
# Prints one line per check, then "real-clients: N passed, M failed". Exits 1 when a check failed
# (after printing what the client saw, the client library's log and the broker's log), 0 with a SKIP
# notice when python3 or the packages are not available. Every step is bounded in time.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
venv="$root/conformance/.venv"
requirements="$here/requirements.txt"

if ! command -v python3 >/dev/null 2>&1; then
    echo "SKIP: python3 is not installed"
    exit 0
fi
if [ ! -x "$venv/bin/python" ]; then
    if ! timeout 300 python3 -m venv "$venv"; then
        echo "SKIP: cannot create a virtualenv in $venv (python3-venv missing?)"
        exit 0
    fi
fi
if ! cmp -s "$requirements" "$venv/.requirements"; then
    echo "real-clients: installing $(grep -c '==' "$requirements") pinned packages into $venv"
    if ! timeout 600 "$venv/bin/pip" install -q --disable-pip-version-check -r "$requirements"; then
        echo "SKIP: cannot install the client packages from PyPI"
        exit 0
    fi
    cp "$requirements" "$venv/.requirements"
fi

REGROUP="${REGROUP:-}"
if [ -z "$REGROUP" ]; then
    (cd "$root" && timeout 1800 cargo build -q -p scenarios --bin regroup)
    REGROUP="${CARGO_TARGET_DIR:-$root/target}/debug/regroup"
fi
export REGROUP
# shellcheck source=serve.sh
source "$here/serve.sh"

suites=("$@")
[ "${#suites[@]}" -gt 0 ] || suites=(serve confluent confluent-consumer kafka-python aiokafka)

# REAL_CLIENTS_LOGS=DIR keeps every suite's client and broker logs in DIR.
work="${REAL_CLIENTS_LOGS:-$(mktemp -d)}"
mkdir -p "$work"
failed=0
cleanup() {
    serve_stop
    # A failure keeps its logs: real time does not replay, so they are all there is to go on.
    if [ -z "${REAL_CLIENTS_LOGS:-}" ] && [ "$failed" -eq 0 ]; then
        rm -rf "$work"
    fi
}
trap cleanup EXIT

passed=0
for suite in "${suites[@]}"; do
    case "$suite" in
        serve) script=check_serve.py ;;
        confluent) script=check_confluent.py ;;
        confluent-consumer) script=check_confluent_consumer.py ;;
        kafka-python) script=check_kafka_python.py ;;
        aiokafka) script=check_aiokafka.py ;;
        *) echo "unknown suite $suite (serve, confluent, confluent-consumer, kafka-python, aiokafka)"; exit 2 ;;
    esac
    echo "== $suite ($script)"
    serve_log="$work/$suite-serve.log"
    client_log="$work/$suite-client.log"
    serve_start "$serve_log" --topic t1:2 --topic t6:6 \
        --config group.streams.initial.rebalance.delay.ms=0 \
        --config group.initial.rebalance.delay.ms=0 \
        --config group.consumer.min.heartbeat.interval.ms=500 \
        --config group.consumer.heartbeat.interval.ms=500
    status=0
    (cd "$here" && CLIENT_LOG="$client_log" timeout 120 "$venv/bin/python" "$script" "$SERVE_ADDR") \
        >"$work/$suite.out" 2>&1 || status=$?
    serve_stop
    cat "$work/$suite.out"
    passed=$((passed + $(grep -c '^ok ' "$work/$suite.out" || true)))
    # A client that resets its own connection (librdkafka does on close) is not the broker's doing.
    closed="$(grep 'closing connection' "$serve_log" | grep -v 'Connection reset by peer' || true)"
    if [ "$status" -eq 0 ] && [ -n "$closed" ]; then
        echo "FAIL $suite: the broker closed client connections:"
        echo "$closed" | sed 's/^.*reason=/  /' | sort | uniq -c | head -10
        status=1
    fi
    if [ "$status" -ne 0 ]; then
        failed=$((failed + 1))
        [ "$status" -eq 124 ] && echo "FAIL $suite: timed out after 120 s"
        echo "--- $suite: client library log (warnings and errors, last 30)"
        grep -E " (WARNING|ERROR|CRITICAL) " "$client_log" 2>/dev/null | tail -30 || true
        echo "--- $suite: client library log (joins, generations and assignments, last 40)"
        grep -E "join|Generation|assign" "$client_log" 2>/dev/null | tail -40 || true
        echo "--- $suite: regroup serve log (last 30)"
        tail -30 "$serve_log"
        echo "--- $suite: every log is kept in $work"
    fi
done
echo "real-clients: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

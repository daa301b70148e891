#!/usr/bin/env bash
# A Kafka Streams 4.4.0 application (group.protocol=streams, two instances, a re-keying count) against
# `regroup serve` on 127.0.0.1; see src/main/java/dev/regroup/streamsapp/StreamsCheck.java. Then Kafka's
# Java consumer 4.4.0 with group.protocol=consumer (KIP-848), ConsumerCheck.java, on a second server.
#
#   conformance/streams-app/run.sh                       # builds regroup and the app, runs the checks
#   REGROUP=path/to/regroup conformance/streams-app/run.sh
#
# Maven downloads kafka-streams/kafka-clients 4.4.0 (and their dependencies) into ~/.m2 on first use;
# the app is rebuilt only when its sources change. Exits 0 when every check passed, 1 on a failed check
# (printing what the client saw, the tail of the client's log and of the broker's log), and 0 with a
# SKIP notice when java or mvn is missing. Every step is bounded in time.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

for tool in java mvn; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "SKIP: streams-app needs Java 17+ and Maven ($tool not found)"
        exit 0
    fi
done

stamp="$here/target/.built"
if [ ! -f "$stamp" ] || [ -n "$(find "$here/pom.xml" "$here/src" -newer "$stamp" -print -quit)" ]; then
    echo "streams-app: building (Kafka Streams 4.4.0 from Maven Central)"
    mvn_log="$(mktemp)"
    if ! (cd "$here" && timeout 600 mvn -q -B -Dstyle.color=never package -DskipTests) >"$mvn_log" 2>&1; then
        if grep -qE "Could not (resolve|transfer)|Unknown host|Network is unreachable" "$mvn_log"; then
            echo "SKIP: streams-app cannot download its Maven artifacts:"
            grep -E "ERROR" "$mvn_log" | head -5
            rm -f "$mvn_log"
            exit 0
        fi
        echo "FAIL streams-app: the build failed:"
        tail -40 "$mvn_log"
        rm -f "$mvn_log"
        exit 1
    fi
    rm -f "$mvn_log"
    touch "$stamp"
fi

REGROUP="${REGROUP:-}"
if [ -z "$REGROUP" ]; then
    (cd "$root" && timeout 1800 cargo build -q -p scenarios --bin regroup)
    REGROUP="${CARGO_TARGET_DIR:-$root/target}/debug/regroup"
fi
export REGROUP
# shellcheck source=../real_clients/serve.sh
source "$root/conformance/real_clients/serve.sh"

work="$(mktemp -d)"
cleanup() {
    serve_stop
    rm -rf "$work"
}
trap cleanup EXIT

# The initial rebalance delay is 0 so the first assignment comes at once (the default 3 s would only
# slow the checks down); every other group setting is Kafka's default.
serve_start "$work/serve.log" --topic words:4 \
    --config group.streams.initial.rebalance.delay.ms=0 \
    --config group.initial.rebalance.delay.ms=0
echo "regroup serve on $SERVE_ADDR"

status=0
timeout 240 java \
    -Dorg.slf4j.simpleLogger.logFile="$work/client.log" \
    -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
    -Dorg.slf4j.simpleLogger.showDateTime=true \
    -cp "$here/target/classes:$here/target/lib/*" \
    dev.regroup.streamsapp.StreamsCheck "$SERVE_ADDR" "$work/state" >"$work/out" 2>&1 || status=$?
serve_stop
cat "$work/out"
# The group's first heartbeats must have reported the internal topics missing (status 3), which is
# what makes the broker create them.
if [ "$status" -eq 0 ]; then
    if grep -q "Membership is in the following statuses: (3) Internal topics are missing" "$work/client.log"; then
        echo "ok   streams: the client saw MISSING_INTERNAL_TOPICS (status 3) before the broker created the topics" >>"$work/out"
        echo "ok   streams: the client saw MISSING_INTERNAL_TOPICS (status 3) before the broker created the topics"
    else
        echo "FAIL streams: the client never saw MISSING_INTERNAL_TOPICS (status 3) in its heartbeat answers"
        status=1
    fi
fi
closed="$(grep "closing connection" "$work/serve.log" | grep -v "Connection reset by peer" || true)"
if [ "$status" -eq 0 ] && [ -n "$closed" ]; then
    echo "FAIL streams-app: the broker closed client connections:"
    echo "$closed" | sed 's/^.*reason=/  /' | sort | uniq -c | head -10
    status=1
fi
# Kafka's Java consumer 4.4.0 with group.protocol=consumer (KIP-848), ConsumerCheck.java, on a
# fresh server with a 6-partition topic; consumer-group heartbeats every 500 ms instead of 5 s.
if [ "$status" -eq 0 ]; then
    serve_start "$work/serve-consumer.log" --topic t6:6 \
        --config group.consumer.min.heartbeat.interval.ms=500 \
        --config group.consumer.heartbeat.interval.ms=500
    timeout 120 java \
        -Dorg.slf4j.simpleLogger.logFile="$work/client-consumer.log" \
        -Dorg.slf4j.simpleLogger.defaultLogLevel=info \
        -cp "$here/target/classes:$here/target/lib/*" \
        dev.regroup.streamsapp.ConsumerCheck "$SERVE_ADDR" >"$work/out-consumer" 2>&1 || status=$?
    serve_stop
    cat "$work/out-consumer"
    cat "$work/out-consumer" >>"$work/out"
    closed="$(grep "closing connection" "$work/serve-consumer.log" | grep -v "Connection reset by peer" || true)"
    if [ "$status" -eq 0 ] && [ -n "$closed" ]; then
        echo "FAIL java consumer: the broker closed client connections:"
        echo "$closed" | sed 's/^.*reason=/  /' | sort | uniq -c | head -10
        status=1
    fi
    if [ "$status" -ne 0 ]; then
        echo "--- Java consumer client log (warnings and errors, last 40)"
        grep -E " (WARN|ERROR) " "$work/client-consumer.log" | tail -40 || true
        echo "--- regroup serve log (tail)"
        tail -40 "$work/serve-consumer.log"
    fi
fi
passed="$(grep -c '^ok ' "$work/out" || true)"
echo "streams-app: $passed passed, $([ "$status" -eq 0 ] && echo 0 || echo 1) failed"
if [ "$status" -ne 0 ]; then
    [ "$status" -eq 124 ] && echo "FAIL streams-app: timed out after 240 s"
    echo "--- Kafka Streams client log (warnings and errors, last 40)"
    grep -E " (WARN|ERROR) " "$work/client.log" | tail -40 || true
    echo "--- regroup serve log (tail)"
    tail -40 "$work/serve.log"
fi
exit "$status"

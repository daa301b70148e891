#!/usr/bin/env bash
# Smoke test of the real Kafka 4.4.0 cluster (cluster.sh): starts it in a fresh run directory, creates a
# topic with 6 partitions and replication factor 3 and checks its description, checks that the cluster
# finalized streams.version=1, runs a one-instance Kafka Streams application (group.protocol=streams,
# StreamsProbe.java) through it, checks __consumer_offsets (3 partitions, RF 3, as in the simulator),
# records each JVM's resident memory, stops the cluster and checks that no node process is left and the
# ports are free again. Prints the time of each step.
#
#   conformance/real_kafka/smoke.sh [--base-port N] [--no-streams] [--keep-dir]
#
# Exits 0 when every check passed, 1 on a failed check (the cluster is stopped all the same), 2 on bad
# arguments. The run directory (logs, data) is removed after a passing run unless --keep-dir is given, and
# kept after a failing one.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
lib="$here/target/lib"
base=19090
streams=1
keep=0
while [ $# -gt 0 ]; do
    case "$1" in
        --base-port) [ $# -ge 2 ] || { echo "smoke.sh: --base-port needs a value" >&2; exit 2; }
            base="$2"; shift 2 ;;
        --no-streams) streams=0; shift ;;
        --keep-dir) keep=1; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "smoke.sh: unknown argument '$1' (usage: smoke.sh [--base-port N] [--no-streams] [--keep-dir])" >&2
            exit 2 ;;
    esac
done
[[ "$base" =~ ^[0-9]+$ ]] || { echo "smoke.sh: --base-port must be a number, not '$base'" >&2; exit 2; }

bootstrap="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
mkdir -p "$here/run"
dir="$here/run/smoke-$(date +%Y%m%d-%H%M%S)-$$"
passed=0
failed=0
cluster_up=0
t0="$(date +%s.%N)"

elapsed() { # since
    awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'
}

ok() { passed=$((passed + 1)); echo "ok   $*"; }
bad() { failed=$((failed + 1)); echo "FAIL $*"; }

tool() {
    timeout 120 java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -Dlog4j2.configurationFile="$here/tools-log4j2.properties" -cp "$lib/*" "$@"
}

finish() {
    local rc=$?
    if [ "$cluster_up" -eq 1 ]; then
        echo "smoke: stopping the cluster after an error"
        "$here/cluster.sh" stop --dir "$dir" || true
    fi
    if [ "$rc" -ne 0 ] || [ "$failed" -ne 0 ]; then
        echo "smoke: run directory kept for inspection: $dir"
    fi
    exit "$rc"
}
trap finish EXIT
trap 'echo "smoke: interrupted" >&2; exit 130' INT
trap 'echo "smoke: terminated" >&2; exit 143' TERM

# 1. Start.
t="$(date +%s.%N)"
if "$here/cluster.sh" start --dir "$dir" --base-port "$base"; then
    cluster_up=1
    ok "cluster started ($(elapsed "$t") s, including formatting)"
else
    bad "cluster.sh start failed ($(elapsed "$t") s)"
    echo "smoke: 0 passed, 1 failed"
    exit 1
fi
t_start="$(elapsed "$t")"

# 2. A topic with 6 partitions, replicated on the 3 brokers.
t="$(date +%s.%N)"
topic="smoke-topic"
if tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create --topic "$topic" \
    --partitions 6 --replication-factor 3 >"$dir/topic-create.out" 2>&1; then
    ok "created $topic (6 partitions, RF 3)"
else
    bad "creating $topic: $(tail -3 "$dir/topic-create.out")"
fi
tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --describe --topic "$topic" \
    >"$dir/topic-describe.out" 2>&1 || true
cat "$dir/topic-describe.out"
# Every partition row must list 3 distinct replicas, all in sync.
# (Rows are tab-separated: "", "Topic: T", "Partition: N", "Leader: L", "Replicas: a,b,c", "Isr: a,b,c", ...)
rows="$(awk -F'\t' '$3 ~ /^Partition: / {
        split($5, r, ": "); split($6, i, ": ");
        nr = split(r[2], rs, ","); ni = split(i[2], is, ",");
        if (nr == 3 && ni == 3) good++; total++ }
    END { printf "%d %d", good, total }' "$dir/topic-describe.out")"
if grep -q "PartitionCount: 6" "$dir/topic-describe.out" && grep -q "ReplicationFactor: 3" "$dir/topic-describe.out" &&
    [ "$rows" = "6 6" ]; then
    ok "$topic: 6 partitions, each with 3 replicas and 3 in sync ($(elapsed "$t") s)"
else
    bad "$topic is not 6 partitions x 3 in-sync replicas (good rows/rows: $rows)"
fi

# 3. The streams.version feature.
tool org.apache.kafka.tools.FeatureCommand --bootstrap-server "$bootstrap" describe >"$dir/features.out" 2>&1 || true
if grep -E "^Feature: streams\.version[[:space:]]" "$dir/features.out" | grep -qE "FinalizedVersionLevel: 1[[:space:]]"; then
    ok "streams.version is finalized at 1: $(grep -E '^Feature: streams\.version' "$dir/features.out" | tr -s ' ')"
else
    bad "streams.version is not finalized at 1:"
    cat "$dir/features.out"
fi

# 4. A streams group at work.
if [ "$streams" -eq 1 ]; then
    t="$(date +%s.%N)"
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --create --topic smoke-out \
        --partitions 6 --replication-factor 3 >"$dir/topic-out.out" 2>&1 || true
    if timeout 180 java -Xmx256m -XX:TieredStopAtLevel=1 -Dlog4j2.configurationFile="$here/tools-log4j2.properties" \
        -cp "$lib/*" "$here/StreamsProbe.java" "$bootstrap" "$topic" smoke-out 60 "$dir/probe-state" 120 \
        >"$dir/probe.out" 2>"$dir/probe.log"; then
        sed 's/^/     /' "$dir/probe.out"
        ok "a Kafka Streams application ran as a streams group ($(elapsed "$t") s)"
    else
        sed 's/^/     /' "$dir/probe.out"
        tail -20 "$dir/probe.log"
        bad "the streams probe failed (its log: $dir/probe.log)"
    fi
    tool org.apache.kafka.tools.streams.StreamsGroupCommand --bootstrap-server "$bootstrap" --list \
        >"$dir/streams-groups.out" 2>&1 || true
    if grep -qx "regroup-smoke" "$dir/streams-groups.out"; then
        ok "kafka-streams-groups --list shows regroup-smoke"
    else
        bad "kafka-streams-groups --list does not show regroup-smoke: $(cat "$dir/streams-groups.out")"
    fi

    # 5. The group used __consumer_offsets, created as configured.
    tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$bootstrap" --describe --topic __consumer_offsets \
        >"$dir/offsets-describe.out" 2>&1 || true
    if grep -q "PartitionCount: 3" "$dir/offsets-describe.out" && grep -q "ReplicationFactor: 3" "$dir/offsets-describe.out"; then
        ok "__consumer_offsets has 3 partitions with RF 3"
    else
        bad "__consumer_offsets is not 3 partitions with RF 3: $(head -1 "$dir/offsets-describe.out")"
    fi
fi

# Resident memory of each node's JVM, at the end of the test load.
mem=""
for node in controller broker-1 broker-2 broker-3; do
    pid="$(cat "$dir/$node/pid" 2>/dev/null || true)"
    rss="$(ps -o rss= -p "$pid" 2>/dev/null | tr -d ' ' || true)"
    mem="$mem $node=$((${rss:-0} / 1024))MiB"
done
echo "smoke: resident memory:$mem"

# 6. Stop, and nothing may be left.
t="$(date +%s.%N)"
pids=""
for node in controller broker-1 broker-2 broker-3; do pids="$pids $(cat "$dir/$node/pid")"; done
if "$here/cluster.sh" stop --dir "$dir"; then
    cluster_up=0
    ok "cluster stopped ($(elapsed "$t") s)"
else
    bad "cluster.sh stop failed"
fi
t_stop="$(elapsed "$t")"
# A node that exited but whose new parent (the nodes outlive cluster.sh start, so they are reparented)
# has not reaped it yet is a zombie: dead, holding no port or memory. Only a live state counts as left.
running() { # pid
    local state
    state="$(awk '{ print $3 }' "/proc/$1/stat" 2>/dev/null || true)"
    [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}
left=""
for pid in $pids; do
    if running "$pid"; then left="$left $pid"; fi
done
if [ -z "$left" ]; then
    ok "no node process is left (pids$pids)"
else
    bad "node processes still running:$left"
    ps -o pid,args -p "${left# }" || true
fi
busy=""
for port in "$base" $((base + 1)) $((base + 2)) $((base + 3)); do
    if timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$port" 2>/dev/null; then busy="$busy $port"; fi
done
if [ -z "$busy" ]; then
    ok "ports $base-$((base + 3)) are free again"
else
    bad "still listening on:$busy"
fi

echo "smoke: start ${t_start} s, stop ${t_stop} s, total $(elapsed "$t0") s"
echo "smoke: $passed passed, $failed failed"
if [ "$failed" -eq 0 ] && [ "$keep" -eq 0 ]; then
    rm -rf "$dir"
    if [ "$(readlink "$here/run/current" 2>/dev/null || true)" = "$dir" ]; then rm -f "$here/run/current"; fi
fi
[ "$failed" -eq 0 ]

#!/usr/bin/env bash
# A real Apache Kafka 4.4.0 KRaft cluster on 127.0.0.1, shaped like the simulator's default cluster: one
# controller (node 0) and three brokers (nodes 1-3), each its own JVM, all from the Maven Central jars that
# pom.xml resolves into target/lib (built on first use). See docs/real-kafka.md.
#
#   conformance/real_kafka/cluster.sh start  [--dir DIR] [--base-port N] [--heap SIZE] [--timeout SECS]
#                                            [--cluster-id ID] [--broker-config KEY=VALUE]...
#                                            [--proxy-base-port P]
#   conformance/real_kafka/cluster.sh status [--dir DIR]
#   conformance/real_kafka/cluster.sh stop   [--dir DIR] [--timeout SECS]
#   conformance/real_kafka/cluster.sh signal [--dir DIR] NODE KILL|STOP|CONT|TERM
#   conformance/real_kafka/cluster.sh restart [--dir DIR] NODE
#   conformance/real_kafka/cluster.sh cut|uncut [--dir DIR] BROKER
#
# start: makes a fresh run directory (default conformance/real_kafka/run/<time>-<pid>, which run/current
# then points at), writes one properties file per node, formats each node's storage, starts the four JVMs
# in the background and waits until the three brokers are registered and unfenced. It prints the run
# directory and the bootstrap servers, and exits 0; on failure or interruption it stops what it started.
# With --proxy-base-port P, broker N advertises its client listener as 127.0.0.1:P+N, where `regroup
# drive` puts its proxy to the broker (which still listens on N's usual port), and the brokers talk to
# each other on a separate INTERNAL listener (base+10+N) that is not proxied.
# status: one line per node (name, node id, role, pid, alive or not, port); exit 0 when all four are alive.
# stop: SIGTERM to the brokers, then to the controller, SIGKILL after the timeout; nodes already dead are
# reported and skipped. Processes are found only through the pid files of the run directory, and a pid is
# signalled only while its command line still names that node's properties file.
#
# signal and restart are the broker faults of `regroup drive --cluster real-kafka`: a crash (KILL), a
# pause (STOP, then CONT), a controlled shutdown (TERM), and the start of a node again (restart) with
# its storage; NODE is controller, broker-1, broker-2 or broker-3. cut and uncut (a cluster started with
# --node-users: each broker its own user) drop and let through what a broker sends to the controller, with
# an iptables rule on its user, so the controller fences it while its clients still reach it.
#
# Exit codes: 0 done, 1 failure (the message names the node and its log), 2 bad arguments.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
lib="$here/target/lib"
kafka_jar="$lib/kafka_2.13-4.4.0.jar"
nodes=(controller broker-1 broker-2 broker-3)
brokers=(broker-1 broker-2 broker-3)

usage() {
    cat <<'EOF'
usage: cluster.sh start  [--dir DIR] [--base-port N] [--heap SIZE] [--timeout SECS]
                         [--cluster-id ID] [--broker-config KEY=VALUE]... [--proxy-base-port P]
       cluster.sh status [--dir DIR]
       cluster.sh stop   [--dir DIR] [--timeout SECS]
       cluster.sh signal [--dir DIR] NODE KILL|STOP|CONT|TERM
       cluster.sh restart [--dir DIR] NODE
       cluster.sh cut|uncut [--dir DIR] BROKER

  --dir DIR          run directory (start: must not exist or be empty; default a fresh one under
                     conformance/real_kafka/run/; status/stop: default the last one started there)
  --base-port N      controller on N, brokers on N+1..N+3 (default 19090)
  --heap SIZE        -Xmx of each node's JVM (default 512m)
  --timeout SECS     start: how long to wait for the cluster (default 90); stop: per node (default 30)
  --cluster-id ID    KRaft cluster id, 22 characters of URL-safe base64 (default a fixed one)
  --broker-config K=V  added to every broker's properties (overrides the defaults); repeatable
  --proxy-base-port P  broker N advertises its client listener as 127.0.0.1:P+N (regroup drive's proxy
                     listens there and forwards to the broker's port); inter-broker traffic uses an
                     INTERNAL listener on base+10+N
  --node-users       run each broker as its own system user (regroup-kafka-N, added if missing), so
                     that `cut` can drop what one broker sends to the controller (needs root and
                     iptables)
EOF
}

bad_args() {
    echo "cluster.sh: $*" >&2
    usage >&2
    exit 2
}

fail() {
    echo "cluster.sh: $*" >&2
    exit 1
}

log() { echo "cluster.sh: $*"; }

# The short-lived admin tools: small heap, quick start-up, bounded in time.
tool_java() {
    timeout "${TOOL_TIMEOUT:-60}" java -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        -Dlog4j2.configurationFile="$here/tools-log4j2.properties" -cp "$lib/*" "$@"
}

node_id() {
    case "$1" in
        controller) echo 0 ;;
        broker-*) echo "${1#broker-}" ;;
    esac
}

node_role() {
    case "$1" in
        controller) echo controller ;;
        *) echo broker ;;
    esac
}

node_port() { # node base_port
    echo $(($2 + $(node_id "$1")))
}

# True when something accepts connections on 127.0.0.1:PORT.
port_open() {
    timeout 2 bash -c "exec 3<>/dev/tcp/127.0.0.1/$1" 2>/dev/null
}

# The pid recorded for NODE in DIR, or nothing.
node_pid() { # dir node
    local f="$1/$2/pid"
    [ -s "$f" ] && cat "$f" || true
}

# True while PID is alive and is the JVM of the node whose properties file is PROPS (guards against a
# recycled pid).
pid_is_node() { # pid props
    local pid="$1" props="$2"
    [ -n "$pid" ] || return 1
    kill -0 "$pid" 2>/dev/null || return 1
    [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF "$props"
}

node_alive() { # dir node
    pid_is_node "$(node_pid "$1" "$2")" "$1/$2/server.properties"
}

log_tail() { # dir node
    local f="$1/$2/node.log"
    if [ -s "$f" ]; then
        echo "---- last lines of $f ----" >&2
        tail -n 25 "$f" >&2
        echo "----" >&2
    fi
}

resolve_dir_for_existing() { # dir-or-empty
    local d="$1"
    if [ -z "$d" ]; then
        [ -e "$here/run/current" ] || fail "no run directory given and $here/run/current does not exist (nothing started?)"
        d="$(cd "$here/run/current" && pwd -P)"
    fi
    [ -d "$d" ] || fail "run directory $d does not exist"
    [ -f "$d/cluster.env" ] || fail "$d is not a cluster.sh run directory (no cluster.env)"
    (cd "$d" && pwd -P)
}

# ---------------------------------------------------------------------------------------------- stop

# Stops the nodes of DIR that are alive: brokers first (their controlled shutdown needs the controller),
# then the controller. Each gets SIGTERM, then SIGKILL after TIMEOUT seconds. When the controller is
# already dead a broker's controlled shutdown cannot finish (it waits for the controller), so the brokers
# then get at most 5 seconds.
stop_nodes() { # dir timeout
    local dir="$1" timeout="$2" group node pid grace deadline
    local -a pending
    for group in brokers controller; do
        pending=()
        grace="$timeout"
        if [ "$group" = brokers ]; then
            set -- "${brokers[@]}"
            if ! node_alive "$dir" controller && [ "$grace" -gt 5 ] &&
                { node_alive "$dir" broker-1 || node_alive "$dir" broker-2 || node_alive "$dir" broker-3; }; then
                log "the controller is not running: brokers get 5s to exit before SIGKILL"
                grace=5
            fi
        else
            set -- controller
        fi
        for node in "$@"; do
            pid="$(node_pid "$dir" "$node")"
            if [ -z "$pid" ]; then
                log "$node: not started"
            elif pid_is_node "$pid" "$dir/$node/server.properties"; then
                # A node paused by `signal STOP` would sit on SIGTERM until SIGKILL.
                kill -CONT "$pid" 2>/dev/null || true
                kill -TERM "$pid" 2>/dev/null || true
                pending+=("$node")
            else
                log "$node: pid $pid already gone"
            fi
        done
        deadline=$(($(date +%s) + grace))
        while [ "${#pending[@]}" -gt 0 ]; do
            local -a still=()
            for node in "${pending[@]}"; do
                if node_alive "$dir" "$node"; then
                    still+=("$node")
                else
                    log "$node: stopped (pid $(node_pid "$dir" "$node"))"
                fi
            done
            pending=("${still[@]+"${still[@]}"}")
            [ "${#pending[@]}" -gt 0 ] || break
            if [ "$(date +%s)" -ge "$deadline" ]; then
                for node in "${pending[@]}"; do
                    pid="$(node_pid "$dir" "$node")"
                    log "$node: no exit after ${grace}s, SIGKILL to pid $pid"
                    if pid_is_node "$pid" "$dir/$node/server.properties"; then
                        kill -KILL "$pid" 2>/dev/null || true
                    fi
                done
                sleep 0.5
                for node in "${pending[@]}"; do
                    node_alive "$dir" "$node" && echo "cluster.sh: $node (pid $(node_pid "$dir" "$node")) survived SIGKILL" >&2
                done
                break
            fi
            sleep 0.2
        done
    done
}

cmd_stop() {
    local dir="" timeout=30
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) [ $# -ge 2 ] || bad_args "--dir needs a value"; dir="$2"; shift 2 ;;
            --timeout) [ $# -ge 2 ] || bad_args "--timeout needs a value"; timeout="$2"; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            *) bad_args "stop: unknown argument '$1'" ;;
        esac
    done
    [[ "$timeout" =~ ^[1-9][0-9]*$ ]] || bad_args "--timeout must be a positive whole number of seconds, not '$timeout'"
    dir="$(resolve_dir_for_existing "$dir")"
    remove_cuts "$dir"
    stop_nodes "$dir" "$timeout"
    local node left=0
    for node in "${nodes[@]}"; do
        if node_alive "$dir" "$node"; then left=1; fi
    done
    [ "$left" -eq 0 ] || fail "some node is still running (see cluster.sh status --dir $dir)"
    log "all nodes of $dir are stopped"
}

# -------------------------------------------------------------------------------------------- status

cmd_status() {
    local dir=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) [ $# -ge 2 ] || bad_args "--dir needs a value"; dir="$2"; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            *) bad_args "status: unknown argument '$1'" ;;
        esac
    done
    dir="$(resolve_dir_for_existing "$dir")"
    local BASE_PORT
    BASE_PORT="$(sed -n 's/^BASE_PORT=//p' "$dir/cluster.env")"
    echo "run directory: $dir"
    printf '%-10s %-7s %-10s %-8s %-5s %s\n' NODE NODE_ID ROLE PID STATE PORT
    local node pid state all=0
    for node in "${nodes[@]}"; do
        pid="$(node_pid "$dir" "$node")"
        if [ -z "$pid" ]; then
            state="never"; pid="-"; all=1
        elif node_alive "$dir" "$node"; then
            state="alive"
        else
            state="dead"; all=1
        fi
        printf '%-10s %-7s %-10s %-8s %-5s %s\n' "$node" "$(node_id "$node")" "$(node_role "$node")" \
            "$pid" "$state" "127.0.0.1:$(node_port "$node" "$BASE_PORT")"
    done
    return "$all"
}

# --------------------------------------------------------------------------------------------- start

write_properties() { # dir node base_port
    local dir="$1" node="$2" base="$3"
    local id port cport props
    id="$(node_id "$node")"
    port="$(node_port "$node" "$base")"
    cport="$base"
    props="$dir/$node/server.properties"
    mkdir -p "$dir/$node/data"
    {
        echo "# Written by conformance/real_kafka/cluster.sh for $node."
        echo "node.id=$id"
        echo "process.roles=$(node_role "$node")"
        echo "controller.quorum.bootstrap.servers=127.0.0.1:$cport"
        echo "controller.listener.names=CONTROLLER"
        echo "listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT${proxy_base:+,INTERNAL:PLAINTEXT}"
        echo "log.dirs=$dir/$node/data"
        if [ "$node" = controller ]; then
            echo "listeners=CONTROLLER://127.0.0.1:$port"
            echo "advertised.listeners=CONTROLLER://127.0.0.1:$port"
        elif [ -n "$proxy_base" ]; then
            # Clients reach the broker through regroup drive's proxy, which it advertises; brokers
            # replicate over INTERNAL, which is not proxied (a network fault of a client host must
            # not cut the brokers off from each other).
            echo "listeners=PLAINTEXT://127.0.0.1:$port,INTERNAL://127.0.0.1:$((base + 10 + id))"
            echo "advertised.listeners=PLAINTEXT://127.0.0.1:$((proxy_base + id)),INTERNAL://127.0.0.1:$((base + 10 + id))"
            echo "inter.broker.listener.name=INTERNAL"
        else
            echo "listeners=PLAINTEXT://127.0.0.1:$port"
            echo "advertised.listeners=PLAINTEXT://127.0.0.1:$port"
            echo "inter.broker.listener.name=PLAINTEXT"
        fi
        if [ "$node" != controller ]; then
            echo "# The simulator's default cluster: 3 __consumer_offsets partitions, replicated on all 3 brokers."
            echo "offsets.topic.num.partitions=3"
            echo "offsets.topic.replication.factor=3"
            echo "# Transactions: replicated on all 3 brokers, a write needs 2 in sync (Kafka's defaults"
            echo "# are RF 3 / min ISR 2 with 50 partitions; 3 partitions keep the cluster small)."
            echo "transaction.state.log.num.partitions=3"
            echo "transaction.state.log.replication.factor=3"
            echo "transaction.state.log.min.isr=2"
            echo "# Kafka's default, written out because the simulator's classic groups use it too."
            echo "group.initial.rebalance.delay.ms=3000"
            echo "# group.coordinator.rebalance.protocols is left at Kafka 4.4.0's default, classic,consumer,streams"
            echo "# (setting it only draws a deprecation warning); streams groups are switched on by the"
            echo "# streams.version=1 feature, set at format time (see docs/real-kafka.md)."
            if [ "${#broker_overrides[@]}" -gt 0 ]; then
                echo "# --broker-config"
                local kv
                for kv in "${broker_overrides[@]}"; do echo "$kv"; done
            fi
        fi
    } >"$props"
}

# Starts NODE's JVM in the background from its properties file in DIR, its output appended to its
# node.log. setsid: the node is not in this shell's process group, so a Ctrl-C here reaches only this
# script (whose trap then stops the nodes by pid). The inner shell writes its own pid and then becomes
# the JVM, so the pid file names the JVM whatever setsid does.
launch_node() { # dir node heap
    local dir="$1" node="$2" heap="$3"
    local -a as_user=()
    if [ "$node" != controller ] && grep -qx 'NODE_USERS=1' "$dir/cluster.env"; then
        local user
        user="$(node_user "$node")"
        as_user=(setpriv --reuid="$user" --regid="$user" --clear-groups)
    fi
    rm -f "$dir/$node/pid"
    setsid bash -c 'echo $$ >"$1"; shift; exec "$@"' _ "$dir/$node/pid" \
        "${as_user[@]}" java "-Xmx$heap" -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true \
        -Dlog4j2.configurationFile="$here/log4j2.properties" \
        -cp "$lib/*" kafka.Kafka "$dir/$node/server.properties" \
        </dev/null >>"$dir/$node/node.log" 2>&1 &
}

# With --node-users each broker runs as its own system user, so that a firewall rule can tell its
# connections apart from the others' (they all come from 127.0.0.1): the controller cuts below.
node_user() { # node
    echo "regroup-kafka-$(node_id "$1")"
}

ensure_node_users() { # dir
    local dir="$1" node user
    command -v iptables >/dev/null 2>&1 || fail "--node-users needs iptables (apt-get install iptables)"
    [ "$(id -u)" -eq 0 ] || fail "--node-users needs root (it adds users and firewall rules)"
    iptables -L OUTPUT -n >/dev/null 2>&1 || fail "--node-users: iptables cannot read the OUTPUT chain here"
    for node in "${brokers[@]}"; do
        user="$(node_user "$node")"
        if ! id -u "$user" >/dev/null 2>&1; then
            useradd --system --no-create-home --user-group --shell /usr/sbin/nologin "$user" ||
                fail "cannot add user $user"
        fi
        chown -R "$user:$user" "$dir/$node"
    done
}

# The rule that drops what BROKER sends to the controller's port (its heartbeats, its metadata
# fetches; the connections stall as in a network partition), tagged with the run directory so stop
# removes what a run left.
cut_rule() { # dir node -> iptables rule spec
    local dir="$1" node="$2" base
    base="$(sed -n 's/^BASE_PORT=//p' "$dir/cluster.env")"
    echo "OUTPUT -o lo -p tcp --dport $base -m owner --uid-owner $(node_user "$node") -m comment --comment regroup-cut:$dir:$node -j DROP"
}

# Removes every controller cut of DIR still in force.
remove_cuts() { # dir
    local dir="$1" node
    command -v iptables >/dev/null 2>&1 || return 0
    for node in "${brokers[@]}"; do
        # shellcheck disable=SC2046
        while iptables -C $(cut_rule "$dir" "$node") 2>/dev/null; do
            iptables -D $(cut_rule "$dir" "$node") || break
        done
    done
}

# cut / uncut: BROKER loses (regains) its links to the controller while its clients still reach it,
# so the controller fences it when its session runs out (the simulator's fence-broker).
cmd_cut() { # cut|uncut args...
    local what="$1" dir="" node=""
    shift
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) [ $# -ge 2 ] || bad_args "--dir needs a value"; dir="$2"; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            -*) bad_args "$what: unknown argument '$1'" ;;
            *) [ -z "$node" ] || bad_args "$what: extra argument '$1'"; node="$1"; shift ;;
        esac
    done
    [ -n "$node" ] || bad_args "$what wants a broker (broker-1, broker-2 or broker-3)"
    case " ${brokers[*]} " in *" $node "*) ;; *) bad_args "$what: '$node' is not a broker" ;; esac
    dir="$(resolve_dir_for_existing "$dir")"
    grep -qx 'NODE_USERS=1' "$dir/cluster.env" || fail "$what: the cluster was not started with --node-users"
    # shellcheck disable=SC2046
    if [ "$what" = cut ]; then
        iptables -C $(cut_rule "$dir" "$node") 2>/dev/null || iptables -I $(cut_rule "$dir" "$node") ||
            fail "iptables refused the cut of $node"
    else
        while iptables -C $(cut_rule "$dir" "$node") 2>/dev/null; do
            iptables -D $(cut_rule "$dir" "$node") || fail "iptables refused to remove the cut of $node"
        done
    fi
    log "$node: $what from the controller"
}

# The node named by a fault: controller, broker-1, broker-2 or broker-3.
check_node() { # name
    case " ${nodes[*]} " in
        *" $1 "*) ;;
        *) bad_args "unknown node '$1' (one of: ${nodes[*]})" ;;
    esac
}

# ------------------------------------------------------------------------------------ signal, restart

# signal: sends one signal to a running node, by pid, only while the pid is still that node's JVM.
#   KILL  a crash: the JVM dies at once and the kernel closes its sockets (peers see the connections end)
#   STOP  a pause: every thread stops, the sockets stay open and the kernel's buffers fill (peers see
#         nothing); CONT resumes it
#   TERM  a controlled shutdown: Kafka's shutdown hook asks the controller to move the broker's
#         leaderships away, then the JVM exits
cmd_signal() {
    local dir="" node="" sig=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) [ $# -ge 2 ] || bad_args "--dir needs a value"; dir="$2"; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            -*) bad_args "signal: unknown argument '$1'" ;;
            *)
                if [ -z "$node" ]; then node="$1"; elif [ -z "$sig" ]; then sig="$1"; else bad_args "signal: extra argument '$1'"; fi
                shift ;;
        esac
    done
    [ -n "$node" ] && [ -n "$sig" ] || bad_args "signal wants NODE and one of KILL, STOP, CONT, TERM"
    check_node "$node"
    case "$sig" in KILL|STOP|CONT|TERM) ;; *) bad_args "signal: '$sig' is not one of KILL, STOP, CONT, TERM" ;; esac
    dir="$(resolve_dir_for_existing "$dir")"
    local pid
    pid="$(node_pid "$dir" "$node")"
    pid_is_node "$pid" "$dir/$node/server.properties" || fail "$node is not running (pid '${pid}')"
    kill -"$sig" "$pid" || fail "kill -$sig $pid ($node) failed"
    if [ "$sig" = KILL ]; then
        # Wait (briefly) for the kernel to reap it, so a restart right after finds the port free.
        local _
        for _ in $(seq 50); do node_alive "$dir" "$node" || break; sleep 0.02; done
    fi
    log "$node: SIG$sig sent to pid $pid"
}

# restart: starts a node again from its run directory (its storage, properties and log). A node still
# running (paused, or still shutting down) is killed first. Returns once the JVM is launched, without
# waiting for it to register: the cluster's own timers decide when it serves again.
cmd_restart() {
    local dir="" node=""
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) [ $# -ge 2 ] || bad_args "--dir needs a value"; dir="$2"; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            -*) bad_args "restart: unknown argument '$1'" ;;
            *) [ -z "$node" ] || bad_args "restart: extra argument '$1'"; node="$1"; shift ;;
        esac
    done
    [ -n "$node" ] || bad_args "restart wants NODE"
    check_node "$node"
    dir="$(resolve_dir_for_existing "$dir")"
    local pid heap _
    pid="$(node_pid "$dir" "$node")"
    if pid_is_node "$pid" "$dir/$node/server.properties"; then
        log "$node: still running (pid $pid): SIGKILL first"
        kill -KILL "$pid" 2>/dev/null || true
        for _ in $(seq 100); do node_alive "$dir" "$node" || break; sleep 0.02; done
        node_alive "$dir" "$node" && fail "$node (pid $pid) survived SIGKILL"
    fi
    heap="$(sed -n 's/^HEAP=//p' "$dir/cluster.env")"
    echo "cluster.sh: restart at $(date -u +%H:%M:%S.%N | cut -c1-12)" >>"$dir/$node/node.log"
    launch_node "$dir" "$node" "${heap:-512m}"
    for _ in $(seq 100); do [ -s "$dir/$node/pid" ] && break; sleep 0.02; done
    [ -s "$dir/$node/pid" ] || fail "$node: no pid file after the launch"
    log "$node: restarted (pid $(node_pid "$dir" "$node"))"
}

cmd_start() {
    local dir="" base="${REAL_KAFKA_BASE_PORT:-19090}" heap=512m timeout=90
    local cluster_id="cmVncm91cC1yZWFsLWthZg" # base64url of the 16 bytes "regroup-real-kaf"
    broker_overrides=()
    proxy_base=""
    local node_users=0
    while [ $# -gt 0 ]; do
        case "$1" in
            --dir) [ $# -ge 2 ] || bad_args "--dir needs a value"; dir="$2"; shift 2 ;;
            --base-port) [ $# -ge 2 ] || bad_args "--base-port needs a value"; base="$2"; shift 2 ;;
            --heap) [ $# -ge 2 ] || bad_args "--heap needs a value"; heap="$2"; shift 2 ;;
            --timeout) [ $# -ge 2 ] || bad_args "--timeout needs a value"; timeout="$2"; shift 2 ;;
            --cluster-id) [ $# -ge 2 ] || bad_args "--cluster-id needs a value"; cluster_id="$2"; shift 2 ;;
            --proxy-base-port) [ $# -ge 2 ] || bad_args "--proxy-base-port needs a value"; proxy_base="$2"; shift 2 ;;
            --node-users) node_users=1; shift ;;
            --broker-config)
                [ $# -ge 2 ] || bad_args "--broker-config needs KEY=VALUE"
                [[ "$2" =~ ^[A-Za-z0-9._-]+=.*$ ]] || bad_args "--broker-config wants KEY=VALUE, not '$2'"
                broker_overrides+=("$2"); shift 2 ;;
            -h|--help) usage; exit 0 ;;
            *) bad_args "start: unknown argument '$1'" ;;
        esac
    done
    [[ "$base" =~ ^[0-9]+$ ]] && [ "$base" -ge 1024 ] && [ "$base" -le 65532 ] ||
        bad_args "--base-port must be a number from 1024 to 65532, not '$base'"
    [[ "$heap" =~ ^[1-9][0-9]*[kKmMgG]$ ]] || bad_args "--heap must look like 512m or 1g, not '$heap'"
    [[ "$timeout" =~ ^[1-9][0-9]*$ ]] || bad_args "--timeout must be a positive whole number of seconds, not '$timeout'"
    [[ "$cluster_id" =~ ^[A-Za-z0-9_-]{22}$ ]] || bad_args "--cluster-id must be 22 characters of URL-safe base64, not '$cluster_id'"
    if [ -n "$proxy_base" ]; then
        [[ "$proxy_base" =~ ^[0-9]+$ ]] && [ "$proxy_base" -ge 1024 ] && [ "$proxy_base" -le 65532 ] ||
            bad_args "--proxy-base-port must be a number from 1024 to 65532, not '$proxy_base'"
        [ "$base" -le 65522 ] || bad_args "--base-port must leave room for the INTERNAL listeners (base+11..13)"
        local p
        for p in $((proxy_base + 1)) $((proxy_base + 2)) $((proxy_base + 3)); do
            case " $base $((base + 1)) $((base + 2)) $((base + 3)) $((base + 11)) $((base + 12)) $((base + 13)) " in
                *" $p "*) bad_args "--proxy-base-port $proxy_base: port $p is one of the cluster's own" ;;
            esac
        done
    fi

    if [ -n "$dir" ] && [ -e "$dir" ] && [ -n "$(ls -A "$dir" 2>/dev/null)" ]; then
        bad_args "--dir $dir exists and is not empty (start wants a fresh directory)"
    fi
    command -v java >/dev/null 2>&1 || fail "java (17+) is not on PATH"
    if [ ! -f "$kafka_jar" ]; then
        command -v mvn >/dev/null 2>&1 || fail "$kafka_jar is missing and mvn is not on PATH to resolve it"
        log "resolving Kafka 4.4.0's jars with Maven into $lib"
        timeout 900 mvn -q -B -Dstyle.color=never -f "$here/pom.xml" package ||
            fail "mvn -f $here/pom.xml package failed"
        [ -f "$kafka_jar" ] || fail "mvn ran but $kafka_jar is still missing"
    fi

    local node port
    for node in "${nodes[@]}"; do
        port="$(node_port "$node" "$base")"
        if port_open "$port"; then
            fail "port 127.0.0.1:$port (for $node) is already in use; stop the other cluster or pass --base-port"
        fi
    done
    if [ -n "$proxy_base" ]; then
        for node in "${brokers[@]}"; do
            port=$((base + 10 + $(node_id "$node")))
            if port_open "$port"; then
                fail "port 127.0.0.1:$port (INTERNAL listener of $node) is already in use; pass another --base-port"
            fi
        done
    fi

    if [ -z "$dir" ]; then
        mkdir -p "$here/run"
        dir="$here/run/$(date +%Y%m%d-%H%M%S)-$$"
    fi
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd -P)"
    case "$dir" in "$here/run/"*) ln -sfn "$dir" "$here/run/current" ;; esac
    {
        echo "BASE_PORT=$base"
        echo "CLUSTER_ID=$cluster_id"
        echo "HEAP=$heap"
        echo "PROXY_BASE_PORT=$proxy_base"
        echo "NODE_USERS=$node_users"
    } >"$dir/cluster.env"

    # From here on, whatever goes wrong (or an interrupt) stops the nodes this start launched.
    started_dir="$dir"
    start_ok=0
    trap 'on_start_exit' EXIT
    trap 'echo "cluster.sh: interrupted" >&2; exit 130' INT
    trap 'echo "cluster.sh: terminated" >&2; exit 143' TERM

    for node in "${nodes[@]}"; do
        write_properties "$dir" "$node" "$base"
    done

    # Formatting: the controller as a single-voter dynamic quorum (--standalone, which wants
    # controller.quorum.bootstrap.servers rather than controller.quorum.voters), the brokers without
    # initial controllers; streams.version=1 enables streams groups in the cluster's metadata.
    local -a fmt_pids=()
    for node in "${nodes[@]}"; do
        local mode=--no-initial-controllers
        [ "$node" = controller ] && mode=--standalone
        tool_java kafka.tools.StorageTool format -t "$cluster_id" -c "$dir/$node/server.properties" \
            "$mode" --feature streams.version=1 >"$dir/$node/format.log" 2>&1 &
        fmt_pids+=($!)
    done
    local i
    for i in "${!nodes[@]}"; do
        if ! wait "${fmt_pids[$i]}"; then
            cat "$dir/${nodes[$i]}/format.log" >&2
            fail "formatting ${nodes[$i]}'s storage failed (log: $dir/${nodes[$i]}/format.log)"
        fi
    done
    log "formatted 4 nodes (cluster id $cluster_id)"
    [ "$node_users" -eq 0 ] || ensure_node_users "$dir"

    for node in "${nodes[@]}"; do
        launch_node "$dir" "$node" "$heap"
    done
    # Wait for the pid files.
    for _ in $(seq 50); do
        local n=0
        for node in "${nodes[@]}"; do [ -s "$dir/$node/pid" ] && n=$((n + 1)); done
        [ "$n" -eq 4 ] && break
        sleep 0.1
    done
    log "started controller (pid $(node_pid "$dir" controller)) and brokers (pids $(node_pid "$dir" broker-1)," \
        "$(node_pid "$dir" broker-2), $(node_pid "$dir" broker-3)); waiting up to ${timeout}s for them"

    local started_at deadline bootstrap unfenced=""
    started_at="$(date +%s)"
    deadline=$((started_at + timeout))
    bootstrap="127.0.0.1:$((base + 1)),127.0.0.1:$((base + 2)),127.0.0.1:$((base + 3))"
    # The readiness check asks the brokers' own (INTERNAL) addresses when the client ones are proxied:
    # nothing listens on the proxies yet.
    local ready_bootstrap="$bootstrap"
    [ -z "$proxy_base" ] || ready_bootstrap="127.0.0.1:$((base + 11)),127.0.0.1:$((base + 12)),127.0.0.1:$((base + 13))"
    while :; do
        for node in "${nodes[@]}"; do
            if ! node_alive "$dir" "$node"; then
                log_tail "$dir" "$node"
                fail "$node (node $(node_id "$node")) exited during start-up; its log: $dir/$node/node.log"
            fi
        done
        local open=0
        for node in "${nodes[@]}"; do port_open "$(node_port "$node" "$base")" && open=$((open + 1)); done
        if [ "$open" -eq 4 ]; then
            # The brokers the cluster lists as unfenced: ClusterTool list-endpoints prints
            # "ID HOST PORT RACK STATE ENDPOINT_TYPE" rows, STATE being fenced or unfenced.
            unfenced="$(TOOL_TIMEOUT=30 tool_java org.apache.kafka.tools.ClusterTool list-endpoints \
                --bootstrap-server "$ready_bootstrap" 2>>"$dir/readiness.log" | tee "$dir/readiness.out" | awk '$5 == "unfenced" && $6 == "broker" { print $1 }' | sort -u | tr '\n' ' ' || true)"
            if [ "$unfenced" = "1 2 3 " ]; then
                break
            fi
        fi
        if [ "$(date +%s)" -ge "$deadline" ]; then
            local missing=""
            for node in "${brokers[@]}"; do
                case " $unfenced" in *" $(node_id "$node") "*) ;; *) missing="$missing $node" ;; esac
            done
            for node in $missing; do log_tail "$dir" "$node"; done
            fail "the cluster did not come up within ${timeout}s: not registered and unfenced:$missing" \
                "(logs: $dir/<node>/node.log; last check output: $dir/readiness.log)"
        fi
        sleep 1
    done
    start_ok=1
    trap - EXIT INT TERM
    log "cluster up in $(($(date +%s) - started_at))s after launch: brokers 1 2 3 registered and unfenced"
    echo "run directory: $dir"
    echo "bootstrap servers: $bootstrap"
    echo "controller: 127.0.0.1:$base"
    if [ -n "$proxy_base" ]; then
        local b proxies=""
        for b in 1 2 3; do proxies="$proxies --proxy 127.0.0.1:$((proxy_base + b))=127.0.0.1:$((base + b))"; done
        echo "advertised (regroup drive's proxies): 127.0.0.1:$((proxy_base + 1)),127.0.0.1:$((proxy_base + 2)),127.0.0.1:$((proxy_base + 3))"
        echo "drive arguments: --bootstrap 127.0.0.1:$((proxy_base + 1))$proxies"
    fi
}

on_start_exit() {
    local rc=$?
    if [ "${start_ok:-0}" -ne 1 ] && [ -n "${started_dir:-}" ]; then
        echo "cluster.sh: start did not finish; stopping the nodes it started" >&2
        stop_nodes "$started_dir" 15 >&2 || true
    fi
    exit "$rc"
}

# ---------------------------------------------------------------------------------------------- main

[ $# -ge 1 ] || bad_args "missing subcommand (start, stop, status, signal, restart, cut or uncut)"
sub="$1"
shift
case "$sub" in
    start) cmd_start "$@" ;;
    stop) cmd_stop "$@" ;;
    status) cmd_status "$@" ;;
    signal) cmd_signal "$@" ;;
    restart) cmd_restart "$@" ;;
    cut|uncut) cmd_cut "$sub" "$@" ;;
    -h|--help|help) usage ;;
    *) bad_args "unknown subcommand '$sub'" ;;
esac

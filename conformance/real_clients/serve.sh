# Shell helpers (sourced, not run) that start and stop one `regroup serve` on 127.0.0.1.
#
#   serve_start LOGFILE [regroup serve arguments...]   # sets SERVE_PID and SERVE_ADDR (host:port)
#   serve_stop                                         # SIGINT (controlled shutdown), then SIGKILL
#
# REGROUP names the binary. The listener port is picked by the OS (--listen 127.0.0.1:0) so several
# runs never collide; the address is read from the first line serve prints on stdout.

SERVE_PID=""
SERVE_ADDR=""

serve_start() {
    local log="$1"
    shift
    local out
    out="$(mktemp)"
    "$REGROUP" serve --listen 127.0.0.1:0 "$@" >"$out" 2>"$log" &
    SERVE_PID=$!
    SERVE_ADDR=""
    local _
    for _ in $(seq 1 300); do
        SERVE_ADDR="$(sed -n 's/^regroup serve: listening on \([^ ]*\).*/\1/p' "$out" | head -1)"
        [ -n "$SERVE_ADDR" ] && break
        if ! kill -0 "$SERVE_PID" 2>/dev/null; then
            echo "regroup serve exited early:"
            tail -40 "$log"
            rm -f "$out"
            return 1
        fi
        sleep 0.1
    done
    rm -f "$out"
    if [ -z "$SERVE_ADDR" ]; then
        echo "regroup serve did not start within 30 s:"
        tail -40 "$log"
        return 1
    fi
}

serve_stop() {
    [ -n "$SERVE_PID" ] || return 0
    kill -INT "$SERVE_PID" 2>/dev/null || true
    local _
    for _ in $(seq 1 50); do
        kill -0 "$SERVE_PID" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVE_PID" 2>/dev/null || true
    wait "$SERVE_PID" 2>/dev/null || true
    SERVE_PID=""
}

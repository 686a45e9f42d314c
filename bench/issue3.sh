#!/usr/bin/env bash
# Three headline figures, measured with cork-load against a fresh corkd (release build, TLS, durable group commit):
#   (a) durable acked ops/s on one board;
#   (b) ack p50/p99 at a moderate load;
#   (c) server RSS per idle authenticated TLS connection, with 1,000 of them.
# Prints a markdown table with the machine and the date; with KEEP=1 (or on failure) the raw JSON and progress of
# every run stay in the temporary directory it names.
#
# Usage: bench/issue3.sh            (from the repository root; needs jq)
#        KEEP=1 bench/issue3.sh     keeps the temporary data directory
#        USERS=600 OFFERED=11400    the capacity run: how many users, and the total ops/s it offers
#
# The server's per-user limits shape what can be measured (Protocol.md, "Limits"): rate_ops_per_s = 20 and
# connections_per_user = 20 by default (`corkd serve --rate/--burst/--connections-per-user` change them). This
# script keeps the defaults, so every client gets its own user, the window-8 runs show the rate limiter at work
# (rate_limited rejects), and the capacity run spreads the load over USERS users paced just under their limit.
set -euo pipefail

cd "$(dirname "$0")/.."
ROOT=$PWD
USERS=${USERS:-600}
OFFERED=${OFFERED:-11400}
IDLE=${IDLE:-1000}
command -v jq >/dev/null || { echo "issue3.sh: needs jq" >&2; exit 2; }

echo "== building (release)" >&2
swift build -c release --product corkd >&2
swift build -c release --product cork-load >&2
BIN=$(swift build -c release --show-bin-path)
CORKD=$BIN/corkd
LOAD=$BIN/cork-load

# Connections: IDLE idle ones plus the active ones, on both ends of 127.0.0.1, in this shell's children.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
if [ "$(ulimit -n)" -lt $((IDLE + USERS + 200)) ]; then
    echo "issue3.sh: ulimit -n is $(ulimit -n); need at least $((IDLE + USERS + 200))" >&2
    exit 2
fi

WORK=$(mktemp -d /tmp/corkbench.XXXXXX)
DATA=$WORK/data
CORKD_PID=""
LOAD_PID=""
cleanup() {
    local status=$?
    if [ -n "$LOAD_PID" ] && kill -0 "$LOAD_PID" 2>/dev/null; then kill "$LOAD_PID" 2>/dev/null || true; fi
    if [ -n "$CORKD_PID" ] && kill -0 "$CORKD_PID" 2>/dev/null; then
        kill -TERM "$CORKD_PID" 2>/dev/null || true
        for _ in $(seq 50); do kill -0 "$CORKD_PID" 2>/dev/null || break; sleep 0.2; done
        kill -KILL "$CORKD_PID" 2>/dev/null || true
    fi
    if [ "${KEEP:-0}" = 1 ] || [ $status -ne 0 ]; then echo "issue3.sh: logs and data kept in $WORK" >&2; else rm -rf "$WORK"; fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

echo "== starting corkd on $DATA" >&2
"$CORKD" serve --data-dir "$DATA" --port 0 --log-level warning >"$WORK/corkd.out" 2>"$WORK/corkd.err" &
CORKD_PID=$!
for _ in $(seq 150); do
    [ -s "$DATA/listen.json" ] && [ -s "$DATA/owner.url" ] && break
    kill -0 "$CORKD_PID" 2>/dev/null || { cat "$WORK/corkd.err" >&2; exit 1; }
    sleep 0.2
done
[ -s "$DATA/owner.url" ] || { echo "issue3.sh: corkd did not start within 30 s" >&2; exit 1; }
echo "   $(head -1 "$WORK/corkd.out")" >&2

echo "== inviting $USERS users (load1…load$USERS, editors of main)" >&2
: >"$WORK/urls.txt"
# One process for all of them; it returns once the running server has applied every membership.
seq 1 "$USERS" | sed 's/^/load/' >"$WORK/users.txt"
timeout 120 "$CORKD" invite --data-dir "$DATA" --users-file "$WORK/users.txt" --role owner --log-level warning >"$WORK/urls.txt"

# run NAME TIMEOUT ARGS…: one bounded cork-load run; JSON in $WORK/NAME.json, progress on stderr and in NAME.log.
run() {
    local name=$1 bound=$2
    shift 2
    local command=(cork-load --urls-file URLS "$@" --server-pid CORKD_PID --json)
    echo "== $name: ${command[*]}" >&2
    echo "$name|${command[*]}" >>"$WORK/commands.txt"
    local status=0
    timeout "$bound" "$LOAD" --urls-file "$WORK/urls.txt" "$@" --server-pid "$CORKD_PID" --json \
        >"$WORK/$name.json" 2> >(tee "$WORK/$name.log" >&2) &
    LOAD_PID=$!
    wait "$LOAD_PID" || status=$?
    LOAD_PID=""
    if [ $status -ne 0 ]; then echo "   $name: cork-load exited $status" >&2; fi
    echo "$status" >"$WORK/$name.status"
}

LOADAVG_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
# Idle connections first, on a fresh server: later runs grow the heap, and freed memory stays in RSS.
run idle 240 --publishers 0 --subscribers-per-board 0 --idle "$IDLE" --duration 5 --warmup 0
run moderate 90 --publishers 10 --subscribers-per-board 10 --rate 150 --duration 10 --warmup 2
run window8-16 90 --publishers 16 --subscribers-per-board 16 --window 8 --duration 10 --warmup 2
run window8-64 120 --publishers 64 --subscribers-per-board 64 --window 8 --duration 10 --warmup 2
run capacity-chat 240 --publishers "$((USERS - 16))" --subscribers-per-board 16 --rate "$OFFERED" --mix chat=1 --duration 10 --warmup 3
run capacity 240 --publishers "$((USERS - 16))" --subscribers-per-board 16 --rate "$OFFERED" --duration 10 --warmup 3
LOADAVG_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

echo "== stopping corkd (SIGTERM)" >&2
kill -TERM "$CORKD_PID"
STOP_STATUS=0
for _ in $(seq 100); do kill -0 "$CORKD_PID" 2>/dev/null || break; sleep 0.2; done
if kill -0 "$CORKD_PID" 2>/dev/null; then
    STOP_STATUS="still running after 20 s (killed)"
    kill -KILL "$CORKD_PID"
else
    wait "$CORKD_PID" || STOP_STATUS=$?
fi
CORKD_PID=""

f() { jq -r "$2" "$WORK/$1.json" 2>/dev/null || echo "?"; }
ms='(. * 1000 | round / 1000)'
num='(. * 10 | round / 10)'
row() {
    local name=$1 what=$2
    local errors
    errors=$(f "$name" '[.errors | to_entries[] | "\(.key)=\(.value)"] | join(" ") | if . == "" then "none" else . end')
    echo "| $what | $(f "$name" ".ops_per_s | $num") | $(f "$name" ".deliveries_per_s | $num") | $(f "$name" ".ack_ms.p50 | $ms") | $(f "$name" ".ack_ms.p99 | $ms") | $(f "$name" ".ack_ms.max | $ms") | $errors | $(f "$name" '.convergence.converged') | $(f "$name" ".cpu.server_s | $num") / $(f "$name" ".cpu.load_s | $num") / $(f "$name" ".cpu.others_s | $num") | $(f "$name" ".cpu.server_us_per_op | round") | $(f "$name" '.seq.contiguous') | $(f "$name" '.ok') |"
}

echo
echo "### Corkboard issue 3 figures"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') · $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) · $(uname -sr) · load average before $LOADAVG_BEFORE, after $LOADAVG_AFTER"
echo "corkd binary sha256 $(sha256sum "$CORKD" | cut -c1-12) (release, TLS 1.3, SQLite WAL synchronous=FULL, group commit); server limits rate_ops_per_s $(f moderate '.server_rate_ops_per_s') per user"
echo
echo "| run | ops/s acked | deliveries/s | ack p50 ms | ack p99 ms | ack max ms | rejects/errors | converged | CPU s server / cork-load / other processes (10 s) | server µs CPU per op | seqs contiguous | ok |"
echo "|---|---:|---:|---:|---:|---:|---|---:|---|---:|---|---|"
row moderate "(b) 10 publishers, 10 subscribers, paced 150 ops/s"
row window8-16 "(a) 16 publishers × window 8, 16 subscribers, closed loop"
row window8-64 "(a) 64 publishers × window 8, 64 subscribers, closed loop"
row capacity-chat "(a) $((USERS - 16)) publishers, 16 subscribers, offered $OFFERED ops/s, chat only"
row capacity "(a) $((USERS - 16)) publishers, 16 subscribers, offered $OFFERED ops/s, the standard mix"
echo
echo "| (c) idle authenticated TLS connections | opened | held | server RSS before | after | per connection |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| $IDLE, each subscribed to main | $(f idle '.idle.connected') | $(f idle '.idle.held_to_end') | $(f idle '.idle.rss_before_kib') KiB | $(f idle '.idle.rss_after_kib') KiB | $(f idle ".idle.kib_per_connection | $num") KiB |"
echo
echo "Targets: ≥ 10,000 durable acked ops/s on one board; ≤ 48 KiB RSS per idle authenticated TLS connection."
echo "corkd stopped with SIGTERM: exit $STOP_STATUS. Commands (URLS = $USERS invite URLs, one user each):"
echo
while IFS='|' read -r name command; do echo "    $name: $command"; done <"$WORK/commands.txt"
echo
FAILED=0
for name in idle moderate window8-16 window8-64 capacity-chat capacity; do
    if [ "$(cat "$WORK/$name.status")" != 0 ]; then echo "issue3.sh: run $name failed (see $WORK/$name.log)" >&2; FAILED=1; fi
done
exit $FAILED

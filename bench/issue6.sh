#!/usr/bin/env bash
# The load scenarios (fan-out, many boards, paced, idle), each run by `cork-load --spawn` against a fresh corkd
# (release build, TLS 1.3, durable group commit with SQLite WAL synchronous=FULL, full validation), on this machine,
# with the load generator on the same cores. Prints a markdown table (machine, date, the exact commands) to stdout;
# progress goes to stderr and, with the JSON of every run, into a temporary directory that KEEP=1 (or a failure) keeps.
#
# Usage: bench/issue6.sh                 every scenario (about 3 minutes after the build; needs jq)
#        ONLY="fanout-1x100 idle" bench/issue6.sh   some of them
#        DURATION=20 W1000=8 W100=32 W10=64 IDLE=10000 bench/issue6.sh
#
# The closed loops keep W ops in flight per publisher (8 publishers). Larger windows make larger commit batches and so
# cheaper deliveries, up to the point where cork-load, on the same two cores, cannot read as fast as corkd writes and
# corkd cuts its subscribers as slow consumers (1 × 1,000 with 16 in flight per publisher did that): the defaults are
# the largest windows that ran clean here.
set -euo pipefail

cd "$(dirname "$0")/.."
DURATION=${DURATION:-10}
WARMUP=${WARMUP:-2}
W1000=${W1000:-8}
W100=${W100:-32}
W10=${W10:-64}
IDLE=${IDLE:-10000}
ONLY=${ONLY:-"fanout-1x1000 fanout-1x100 boards-100x10 paced-100x10 paced-1x1000 idle"}
command -v jq >/dev/null || { echo "issue6.sh: needs jq" >&2; exit 2; }

echo "== building (release)" >&2
swift build -c release --product corkd >&2
swift build -c release --product cork-load >&2
BIN=$(swift build -c release --show-bin-path)
LOAD=$BIN/cork-load

ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
WORK=$(mktemp -d /tmp/corkbench6.XXXXXX)
cleanup() {
    local status=$?
    if [ "${KEEP:-0}" = 1 ] || [ $status -ne 0 ]; then echo "issue6.sh: logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# run NAME TIMEOUT ARGS…: one bounded `cork-load --spawn … --json` run; JSON in $WORK/NAME.json, progress in NAME.log.
run() {
    local name=$1 bound=$2
    shift 2
    case " $ONLY " in *" $name "*) ;; *) return 0 ;; esac
    echo "== $name: cork-load --spawn $* --json" >&2
    echo "$name|cork-load --spawn $*" >>"$WORK/commands.txt"
    local status=0
    timeout "$bound" "$LOAD" --spawn "$@" --json >"$WORK/$name.json" 2> >(tee "$WORK/$name.log" >&2) || status=$?
    echo "$status" >"$WORK/$name.status"
    if [ $status -ne 0 ]; then echo "   $name: cork-load exited $status" >&2; fi
    sleep 2
}

LOADAVG_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
COMMON=(--duration "$DURATION" --warmup "$WARMUP")
run fanout-1x1000 300 --boards 1 --subscribers-per-board 1000 --publishers 8 --closed-loop --window "$W1000" "${COMMON[@]}"
run fanout-1x100 180 --boards 1 --subscribers-per-board 100 --publishers 8 --closed-loop --window "$W100" "${COMMON[@]}"
run boards-100x10 300 --boards 100 --subscribers-per-board 10 --publishers 8 --closed-loop --window "$W10" "${COMMON[@]}"
run paced-100x10 300 --boards 100 --subscribers-per-board 10 --publishers 8 --rate 1000 "${COMMON[@]}"
run paced-1x1000 300 --boards 1 --subscribers-per-board 1000 --publishers 8 --rate 100 "${COMMON[@]}"
run idle 900 --publishers 0 --subscribers-per-board 0 --idle "$IDLE" --no-idle-subscribe --duration 5 --warmup 0
LOADAVG_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)

f() { [ -s "$WORK/$1.json" ] && jq -r "$2" "$WORK/$1.json" 2>/dev/null || echo "–"; }
num='(. // 0 | round)'
ms='(. // 0 | . * 100 | round / 100)'
us='(. // 0 | . * 100 | round / 100)'
verdict() { f "$1" 'if .ok then "ok" else "FAILED" end + (if .convergence.converged then ", converged" else ", NOT converged" end)'; }
cpu() { f "$1" '"server \(.cpu.server_s // 0 | . * 10 | round / 10) s, cork-load \(.cpu.load_s // 0 | . * 10 | round / 10) s, others \(.cpu.others_s // 0 | . * 10 | round / 10) s"'; }

echo "### Corkboard issue 6 figures"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //') · $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo) · $(uname -sr) · load average before $LOADAVG_BEFORE, after $LOADAVG_AFTER"
echo "corkd sha256 $(sha256sum "$BIN/corkd" | cut -c1-12), release; TLS 1.3; SQLite WAL synchronous=FULL, group commit; ${DURATION} s measured after ${WARMUP} s warm-up; closed loops keep $W1000 (1 × 1,000), $W100 (1 × 100) and $W10 (100 × 10) ops in flight per publisher; ops: move 50, edit 30, add 15, chat 5."
echo
echo "| scenario | target | stretch | measured | ack p99 ms | fan-out p50 / p99 / max ms | CPU in the measured window | verdict |"
echo "|---|---|---|---|---:|---|---|---|"
row() {
    local name=$1 what=$2 target=$3 stretch=$4 measured=$5
    [ -s "$WORK/$name.json" ] || return 0
    echo "| $what | $target | $stretch | $measured | $(f "$name" ".ack_ms.p99 | $ms") | $(f "$name" ".fanout_ms.p50 | $ms") / $(f "$name" ".fanout_ms.p99 | $ms") / $(f "$name" ".fanout_ms.max | $ms") | $(cpu "$name") | $(verdict "$name") |"
}
row fanout-1x1000 "1 board × 1,000 subscribers, 8 publishers, closed loop" "≥ 520 k deliveries/s" "≥ 640 k" "**$(f fanout-1x1000 ".deliveries_per_s | $num") deliveries/s** ($(f fanout-1x1000 ".ops_per_s | $num") ops/s)"
row fanout-1x100 "1 × 100, 8 publishers, closed loop" "≥ 890 k deliveries/s" "≥ 1.4 M" "**$(f fanout-1x100 ".deliveries_per_s | $num") deliveries/s** ($(f fanout-1x100 ".ops_per_s | $num") ops/s)"
row boards-100x10 "100 boards × 10, 8 publishers, closed loop" "≥ 36 k ops/s" "≥ 48 k" "**$(f boards-100x10 ".ops_per_s | $num") ops/s** ($(f boards-100x10 ".deliveries_per_s | $num") deliveries/s)"
row paced-100x10 "100 × 10 at 1,000 ops/s" "fan-out p99 ≤ 1.2 ms" "≤ 0.8 ms" "**fan-out p99 $(f paced-100x10 ".fanout_ms.p99 | $ms") ms** ($(f paced-100x10 ".ops_per_s | $num") ops/s)"
row paced-1x1000 "1 × 1,000 at 100 ops/s" "fan-out p99 ≤ 56 ms, no backlog growth" "≤ 40 ms" "**fan-out p99 $(f paced-1x1000 ".fanout_ms.p99 | $ms") ms**; caught up $(f paced-1x1000 ".convergence.catch_up_s | $ms") s after the publishers finished"
row fanout-1x100 "server CPU per delivery, 1 × 100 closed loop" "≤ 1.45 µs" "≤ 0.74 µs" "**$(f fanout-1x100 ".cpu.server_us_per_delivery | $us") µs** (cork-load $(f fanout-1x100 ".cpu.load_us_per_delivery | $us") µs)"
if [ -s "$WORK/idle.json" ]; then
    echo "| $IDLE idle authenticated TLS connections | held, ≤ 48 KiB RSS each | ≤ 32 KiB | **$(f idle '.idle.held_to_end') held, $(f idle '.idle.kib_per_connection | . * 10 | round / 10') KiB each** (server RSS $(f idle '.idle.rss_before_kib') → $(f idle '.idle.rss_after_kib') KiB) | – | – | – | $(verdict idle) |"
fi
echo
echo "Commands:"
echo
while IFS='|' read -r name command; do echo "    $name: $command"; done <"$WORK/commands.txt"
echo
FAILED=0
for file in "$WORK"/*.status; do
    [ -e "$file" ] || continue
    if [ "$(cat "$file")" != 0 ]; then echo "issue6.sh: run $(basename "$file" .status) failed (see $WORK)" >&2; FAILED=1; fi
done
exit $FAILED

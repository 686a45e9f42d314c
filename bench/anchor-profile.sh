#!/usr/bin/env bash
# bench/anchor-profile.sh RATE OUT [SECONDS]: runs the fanout anchor for corkd alone and records a perf profile of
# corkd while the anchor's open-loop run at RATE ops/s is under way (RATE 0: the closed loop), into OUT.
# The scenarios come from the environment as for run.sh (SUBS, RATES, MAXPUBS, BOARDS; default: BOARDS=100 only);
# CORKD names the binary (default .build-static/release/corkd). Read OUT with `perf report -i OUT`.
set -euo pipefail
rate=${1:?RATE}
out=${2:?OUT}
seconds=${3:-6}
export CORKD=${CORKD:-$PWD/.build-static/release/corkd} SERVERS=cork DURATION=${DURATION:-10} ROUNDS=1
export SUBS=${SUBS-} RATES=${RATES-} MAXPUBS=${MAXPUBS-} BOARDS=${BOARDS-100}
log=$(mktemp)
../shared/bench/fanout-anchor/run.sh >"$log" 2>&1 &
anchor=$!
for _ in $(seq 1 1200); do
  pgrep -af "/fanout --proto" | grep -q -- "--rate $rate " && break
  sleep 0.5
done
sleep 4  # past the warm-up and the subscribers' arrival
perf record -F 999 -g -p "$(pgrep -n -f 'corkd serve --data-dir [^ ]*fanout-anchor')" -o "$out" -- sleep "$seconds"
wait $anchor
grep -E '^\| [0-9]+ x' "$log" || true
echo "anchor output: $log"

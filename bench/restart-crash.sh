#!/bin/bash
# Restart time after kill -9 in the middle of a write burst.
#
# usage: bench/restart-crash.sh CORKD CORK_LOAD DATA_DIR
#   DATA_DIR: a store owned by nobody with boards restart-1..restart-4, e.g. the one
#   `CORK_RESTART_EVENTS=1000000 CORK_RESTART_BOARDS=100 CORK_RESTART_KEEP=/tmp/restart1m swift test --skip-build
#   --filter RestartTimeTests` keeps (then `chown -R nobody: /tmp/restart1m`). Run as root (setpriv to nobody).
# Prints the time from exec to listen.json for each start and how the start checked the store.
set -u
C=$(realpath "$1"); L=$(realpath "$2"); D=$(realpath "$3")
URLS=$(mktemp); OUT=$(mktemp); LOAD=$(mktemp)
trap 'rm -f "$URLS" "$OUT" "$LOAD"' EXIT
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups "$@"; }
start() {
  rm -f "$D/listen.json"
  local t0 t1
  t0=$(date +%s.%N)
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$C" serve --data-dir "$D" --host 127.0.0.1 --port 0 \
    --log-level info --rate 1000000 --burst 1000000 > "$OUT" 2>&1 &
  PID=$!
  while [ ! -s "$D/listen.json" ]; do
    sleep 0.005
    kill -0 $PID 2>/dev/null || { echo "corkd exited"; cat "$OUT"; exit 1; }
  done
  t1=$(date +%s.%N)
  echo "$1: $(echo "$t1 - $t0" | bc) s ($(grep -o 'check=[^]]*' "$OUT" | head -1 | sed 's/ path=.*//'))"
}
start "clean start"
for i in 1 2 3; do
  : > "$URLS"
  for n in 1 2 3 4; do as_nobody "$C" invite --data-dir "$D" --user "loader$n" --board "restart-$n" --wait 10 >> "$URLS"; done
  timeout 20 "$L" --urls-file "$URLS" --publishers 4 --subscribers-per-board 0 --boards 4 \
    --board restart-1 --board restart-2 --board restart-3 --board restart-4 --duration 30 > "$LOAD" 2>&1 &
  LP=$!
  sleep 4
  WAL=$(stat -c %s "$D/corkd.sqlite-wal")
  kill -9 $PID; wait $PID 2>/dev/null
  kill $LP 2>/dev/null; wait $LP 2>/dev/null
  echo "killed mid-burst ($WAL bytes of -wal)"
  start "start after kill -9 #$i"
done
kill -TERM $PID; wait $PID
start "clean start after that"
kill -TERM $PID; wait $PID

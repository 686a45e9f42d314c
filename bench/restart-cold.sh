#!/bin/bash
# Restart time after one kill -9.
#
# usage: [WARM=1] [NOMARK=1] bench/restart-cold.sh CORKD DATA_DIR
#   starts corkd as nobody on DATA_DIR, kills it with kill -9, drops the page cache (unless WARM=1; needs root and
#   a writable /proc/sys/vm/drop_caches), removes corkd.sqlite.checked first if NOMARK=1 (what every crash restart
#   did before the mark: PRAGMA quick_check over the whole file), and times the next start from exec to listen.json.
set -u
C=$(realpath "$1"); D=$(realpath "$2")
OUT=$(mktemp); trap 'rm -f "$OUT"' EXIT
serve() {
  setpriv --reuid=nobody --regid=nogroup --clear-groups "$C" serve --data-dir "$D" --host 127.0.0.1 --port 0 \
    --log-level info > "$OUT" 2>&1 &
  PID=$!
  while [ ! -s "$D/listen.json" ]; do
    sleep 0.005
    kill -0 $PID 2>/dev/null || { echo "corkd exited"; cat "$OUT"; exit 1; }
  done
}
rm -f "$D/listen.json"; serve; sleep 0.5; kill -9 $PID; wait $PID 2>/dev/null
[ -n "${NOMARK:-}" ] && rm -f "$D/corkd.sqlite.checked"
rm -f "$D/listen.json"
[ -z "${WARM:-}" ] && { sync; echo 3 > /proc/sys/vm/drop_caches; }
t0=$(date +%s.%N); serve; t1=$(date +%s.%N)
echo "start after kill -9 ($([ -n "${WARM:-}" ] && echo warm || echo cold) cache${NOMARK:+, mark removed}): $(echo "$t1 - $t0" | bc) s ($(grep -o 'check=[^]]*' "$OUT" | head -1 | sed 's/ path=.*//'))"
kill -TERM $PID; wait $PID

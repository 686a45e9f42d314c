#!/usr/bin/env bash
# One vs two vs three corkd nodes on one PostgreSQL database, on a fan-out-heavy run: BOARDS boards ×
# SUBS subscribers spread round-robin over the nodes (cork-load connects connection i to --url i mod n), PUBS
# publishers at a fixed RATE. Everything on this machine: the database, every node and cork-load share its cores.
# Prints a markdown table; the JSON of every run and the nodes' logs go to a temporary directory (KEEP=1 keeps it).
#
# Usage: CORKD_STORE=postgres://USER@127.0.0.1:5432/DB PGPASSWORD=… bench/multinode.sh
#        NODES="1 2" BOARDS=10 SUBS=100 PUBS=10 RATE=500 DURATION=15 BIN=.build/release bench/multinode.sh
# The database is emptied before each run (every table of the schema corkd made is dropped): give it one of its own.
# Needs jq, psql, curl, openssl, python3.
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CORKD_STORE:?set CORKD_STORE=postgres://USER@HOST:PORT/DB and PGPASSWORD (a database for this benchmark only)}"
export CORKD_STORE PGPASSWORD
BIN=${BIN:-.build/debug}
NODES=${NODES:-"1 2 3"}
BOARDS=${BOARDS:-10}
SUBS=${SUBS:-100}
PUBS=${PUBS:-10}
RATE=${RATE:-500}
DURATION=${DURATION:-15}
WARMUP=${WARMUP:-3}
for tool in jq psql curl openssl python3; do command -v $tool >/dev/null || { echo "multinode.sh: needs $tool" >&2; exit 2; }; done
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
WORK=$(mktemp -d /tmp/corkbench13.XXXXXX)
PIDS=()
stop_nodes() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    PIDS=()
}
cleanup() {
    local status=$?
    stop_nodes
    if [ "${KEEP:-0}" = 1 ] || [ $status -ne 0 ]; then echo "multinode.sh: logs kept in $WORK" >&2; else rm -rf "$WORK"; fi
    exit $status
}
trap cleanup EXIT
trap 'exit 130' INT TERM
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 300); do if eval "$1"; then return 0; fi; sleep 0.1; done; echo "timed out: $1" >&2; return 1; }

openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
chmod 600 "$WORK/key.pem"
BOARD_IDS=$(seq -f "b%g" 1 "$BOARDS" | tr '\n' ' ')

for n in $NODES; do
    echo "== $n node(s): emptying the database" >&2
    psql "$CORKD_STORE" -q -v ON_ERROR_STOP=1 -c "DROP SCHEMA public CASCADE; CREATE SCHEMA public;" >&2
    rm -rf "$WORK/n"*
    PORTS=(); METRICS=()
    for i in $(seq 1 "$n"); do
        port=$(free_port); metrics=$(free_port)
        "$BIN/corkd" serve --data-dir "$WORK/n$i" --port "$port" --cert "$WORK/cert.pem" --key "$WORK/key.pem" \
            --rate 1000000 --burst 1000000 --connections-per-user 20000 --metrics "127.0.0.1:$metrics" \
            >"$WORK/n$i-$n.out" 2>"$WORK/n$i-$n.err" &
        PIDS+=($!); PORTS+=("$port"); METRICS+=("$metrics")
        wait_for "curl -fs http://127.0.0.1:$metrics/health >/dev/null"
        # The first node makes the first start (owner, board main) and creates the boards before the others start
        # (the others would find them by id on first use as well).
        if [ "$i" = 1 ]; then "$BIN/corkd" board create $BOARD_IDS --data-dir "$WORK/n1" >&2; fi
    done
    OWNER=$(cat "$WORK/n1/owner.url")
    URLS=()
    for port in "${PORTS[@]}"; do URLS+=(--url "$(echo "$OWNER" | sed -e "s/:${PORTS[0]}\//:$port\//")"); done
    BOARD_ARGS=(); for b in $BOARD_IDS; do BOARD_ARGS+=(--board "$b"); done
    # The notify lag gauge of every node, sampled every 200 ms during the run (0 on a node that got no announcement).
    ( while true; do
        for m in "${METRICS[@]}"; do curl -s "http://127.0.0.1:$m/metrics" | awk '/^corkd_notify_lag_seconds /{print $2}'; done
        sleep 0.2
      done ) >"$WORK/lag-$n.txt" 2>/dev/null &
    SAMPLER=$!
    echo "== $n node(s): cork-load ${URLS[*]//token=*/…} ${BOARD_ARGS[*]} --subscribers-per-board $SUBS --publishers $PUBS --rate $RATE" >&2
    status=0
    timeout 600 "$BIN/cork-load" "${URLS[@]}" "${BOARD_ARGS[@]}" --subscribers-per-board "$SUBS" --publishers "$PUBS" \
        --rate "$RATE" --duration "$DURATION" --warmup "$WARMUP" --json >"$WORK/run-$n.json" 2>"$WORK/run-$n.log" || status=$?
    kill "$SAMPLER" 2>/dev/null || true; wait "$SAMPLER" 2>/dev/null || true
    echo "$status" >"$WORK/run-$n.status"
    stop_nodes
done

f() { [ -s "$WORK/$1" ] && jq -r "$2" "$WORK/$1" 2>/dev/null || echo "–"; }
lag() { sort -g "$WORK/lag-$1.txt" | awk '$1>0 {v[NR]=$1} END {n=length(v); if (n==0) {print "–"; exit} printf "%.1f / %.1f", v[int(n*0.5)+1]*1000, v[n]*1000}'; }
echo "### Corkboard issue 13: one, two and three nodes on one PostgreSQL"
echo
echo "$(date -u '+%Y-%m-%d %H:%M UTC') · $(nproc) cores · $(uname -sr) · corkd $(basename "$BIN") build · $BOARDS boards × $SUBS subscribers spread over the nodes, $PUBS publishers at $RATE ops/s, ${DURATION} s after ${WARMUP} s warm-up; database, nodes and cork-load on the same cores"
echo
echo "| nodes | ops/s | deliveries/s | ack p50 / p99 ms | fan-out p50 / p99 ms | notify lag median / max ms | verdict |"
echo "|---:|---:|---:|---|---|---|---|"
for n in $NODES; do
    echo "| $n | $(f run-$n.json '.ops_per_s | round') | $(f run-$n.json '.deliveries_per_s | round') | $(f run-$n.json '"\(.ack_ms.p50 | . * 100 | round / 100) / \(.ack_ms.p99 | . * 100 | round / 100)"') | $(f run-$n.json '"\(.fanout_ms.p50 | . * 100 | round / 100) / \(.fanout_ms.p99 | . * 100 | round / 100)"') | $(lag "$n") | $(f run-$n.json 'if .ok then "ok" else "FAILED" end + (if .convergence.converged then ", converged" else ", NOT converged" end)') |"
done

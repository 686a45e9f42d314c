#!/usr/bin/env bash
# Two corkd nodes on one PostgreSQL database behind a real HAProxy (deploy/haproxy.cfg on free ports), all on
# 127.0.0.1; then `cork` one-shots through HAProxy, one node killed with kill -9, and `cork` again: the cards added
# before and after the kill are all there, whichever node served them. Everything it starts is stopped at the end;
# nothing outside a temporary directory is written. Needs: haproxy, openssl, python3, curl, corkd/cork built (BIN,
# default .build/debug; BIN=.build/release after a release build), and a PostgreSQL database for corkd
# (deploy/postgres/README.md):
#
#   CORKD_STORE=postgres://corkd@127.0.0.1:5432/corkd PGPASSWORD=change-me bash deploy/haproxy-check.sh
set -euo pipefail
BIN=${BIN:-.build/debug}
for tool in corkd cork; do
    [ -x "$BIN/$tool" ] || { echo "no $BIN/$tool: build it (swift build) or set BIN (BIN=.build/release after a release build)" >&2; exit 2; }
done
: "${CORKD_STORE:?set CORKD_STORE=postgres://USER@HOST:PORT/DB (and PGPASSWORD); see deploy/postgres/README.md}"
export CORKD_STORE
WORK=$(mktemp -d /tmp/corkd-haproxy.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    rm -rf "$WORK"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_for() { for _ in $(seq 1 100); do if eval "$1"; then return 0; fi; sleep 0.1; done; echo "timed out: $1" >&2; return 1; }

FRONT=$(free_port); N1=$(free_port); N2=$(free_port); H1=$(free_port); H2=$(free_port); M1=$(free_port)
WEBFRONT=$(free_port); W1=$(free_port); W2=$(free_port)

# One certificate for both nodes: a client pins one fingerprint, whichever node HAProxy picks.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 30 -subj /CN=localhost \
    -addext "subjectAltName=DNS:localhost,IP:127.0.0.1" -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
chmod 600 "$WORK/key.pem"
# HAProxy's web certificate (here the same one): chain and key in one PEM.
cat "$WORK/cert.pem" "$WORK/key.pem" >"$WORK/web.pem"; chmod 600 "$WORK/web.pem"
# One web cookie key for both nodes: a page's session cookie is good on either.
head -c 32 /dev/urandom >"$WORK/web-cookie.key"; chmod 600 "$WORK/web-cookie.key"

# Both nodes on the same database; invite URLs name HAProxy's port (--public-port), not the node's.
"$BIN/corkd" serve --data-dir "$WORK/n1" --port "$N1" --public-port "$FRONT" --cert "$WORK/cert.pem" --key "$WORK/key.pem" \
    --health "127.0.0.1:$H1" --metrics "127.0.0.1:$M1" --web-port "$W1" --web-key "$WORK/web-cookie.key" \
    --public-web-url "https://localhost:$WEBFRONT/" >"$WORK/n1.out" 2>"$WORK/n1.err" &
PIDS+=($!); NODE1=$!
"$BIN/corkd" serve --data-dir "$WORK/n2" --port "$N2" --public-port "$FRONT" --cert "$WORK/cert.pem" --key "$WORK/key.pem" \
    --health "127.0.0.1:$H2" --web-port "$W2" --web-key "$WORK/web-cookie.key" \
    --public-web-url "https://localhost:$WEBFRONT/" >"$WORK/n2.out" 2>"$WORK/n2.err" &
PIDS+=($!)
wait_for "curl -fs http://127.0.0.1:$H1/health >/dev/null && curl -fs http://127.0.0.1:$H2/health >/dev/null"

# deploy/haproxy.cfg with this run's ports (and a faster check interval).
sed -e "s/bind :7420/bind 127.0.0.1:$FRONT/" \
    -e "s/127.0.0.1:7421 check port 9431/127.0.0.1:$N1 check port $H1/" \
    -e "s/127.0.0.1:7422 check port 9432/127.0.0.1:$N2 check port $H2/" \
    -e "s|bind :443 ssl crt /etc/haproxy/corkboard-web.pem|bind 127.0.0.1:$WEBFRONT ssl crt $WORK/web.pem|" \
    -e "s/127.0.0.1:8441 check port 9431/127.0.0.1:$W1 check port $H1/" \
    -e "s/127.0.0.1:8442 check port 9432/127.0.0.1:$W2 check port $H2/" \
    -e "s/127.0.0.1:7421 backup/127.0.0.1:$N1 backup/" -e "s/127.0.0.1:7422 backup/127.0.0.1:$N2 backup/" \
    -e "s/127.0.0.1:8441 backup/127.0.0.1:$W1 backup/" -e "s/127.0.0.1:8442 backup/127.0.0.1:$W2 backup/" \
    -e "s/inter 2s/inter 500ms/" -e "s/maxconn [0-9]*/maxconn 4000/" -e "s/log stdout format raw local0 info/log stderr format raw local0 notice/" \
    deploy/haproxy.cfg >"$WORK/haproxy.cfg"
haproxy -c -q -f "$WORK/haproxy.cfg"
haproxy -f "$WORK/haproxy.cfg" 2>"$WORK/haproxy.log" &
PIDS+=($!)
wait_for "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $FRONT), 1)' 2>/dev/null"

# A user of our own (the database may have served before, so the owner's URL may be elsewhere); the URL names
# HAProxy's port.
URL=$("$BIN/corkd" invite --data-dir "$WORK/n1" --user haproxy-check --role editor)
export XDG_CONFIG_HOME="$WORK/cork-config"
echo "== through HAProxy on 127.0.0.1:$FRONT, both nodes up: $URL"
for i in 1 2 3 4; do "$BIN/cork" add --url "$URL" "card $i via haproxy" >/dev/null; done
"$BIN/cork" show --url "$URL" | grep -E "via haproxy|seq" | head -8
echo "== node 1 metrics (127.0.0.1:$M1): what it served"
curl -s "http://127.0.0.1:$M1/metrics" | grep -E '^corkd_(ops_applied_total|serving) '

echo "== node 1 killed (kill -9): HAProxy sends everyone to node 2, which has every card"
kill -9 "$NODE1"; wait "$NODE1" 2>/dev/null || true
for i in 5 6 7 8; do "$BIN/cork" add --url "$URL" "card $i via haproxy" >/dev/null; done
"$BIN/cork" show --url "$URL" | grep -E "via haproxy|seq" | head -12
wait_for "grep -q 'node1 is DOWN' $WORK/haproxy.log"
grep -E "node1.*(DOWN|UP)" "$WORK/haproxy.log" | sed -e 's/^/haproxy: /' | cut -c1-120 || true
echo "== the web page through HAProxy (https://localhost:$WEBFRONT/), both nodes' web listeners behind it"
curl -fsk "https://localhost:$WEBFRONT/" | grep -o "<title>[^<]*</title>"
TOKEN=${URL#*token=}; TOKEN=${TOKEN%%&*}
curl -fsk -D - -o /dev/null -H "Origin: https://localhost:$WEBFRONT" -d "{\"token\":\"$TOKEN\"}" \
    "https://localhost:$WEBFRONT/session" >"$WORK/session.txt"
grep -qi '^set-cookie:.*HttpOnly; SameSite=Strict; Secure' "$WORK/session.txt" \
    || { echo "no Secure session cookie through HAProxy: $(cat "$WORK/session.txt")" >&2; exit 1; }
echo "session cookie: HttpOnly, SameSite=Strict, Secure (X-Forwarded-Proto from HAProxy)"
echo "== ok"

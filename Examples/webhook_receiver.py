#!/usr/bin/env python3
"""A Corkboard webhook receiver: verifies every delivery and prints its event.

Python 3 standard library only. corkd POSTs one JSON body per committed change a hook matches (Protocol.md,
"Hooks"); this receiver checks, before it trusts a byte of the body:

- X-Corkboard-Signature is `sha256=` + HMAC-SHA256 of the raw body keyed with the hook's secret (compared in
  constant time); otherwise it answers 401;
- X-Corkboard-Timestamp equals the signed body's `timestamp` and is at most --max-age seconds old (or ahead), so a
  recorded delivery cannot be replayed later; otherwise 400;

then prints the event, one line per delivery, and answers 204. A delivery it already handled (the same
X-Corkboard-Delivery: corkd delivers at least once and retries after a crash) is answered 204 again but marked as a
repeat. With --json every accepted delivery is printed as one JSON line: the body plus `"repeat": true|false`.

    CORK_HOOK_SECRET=… python3 Examples/webhook_receiver.py --port 8080
    cork hook add http://127.0.0.1:8080/ --events 'card.*,comment.add' --secret "$CORK_HOOK_SECRET"

(http:// to 127.0.0.1 needs `corkd serve --hooks-allow-http-loopback`; put the receiver behind TLS otherwise.)
--fail N answers 503 to the first N valid deliveries, to watch corkd retry them in order.
"""

import argparse
import hashlib
import hmac
import json
import os
import signal
import sys
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

BODY_MAX = 1 << 20


def verify(secret, body, headers, max_age_ms, now_ms):
    """Returns (status, reason, delivery): 0 when the delivery is authentic and fresh, else the HTTP status to answer."""
    signature = headers.get("X-Corkboard-Signature", "")
    expected = "sha256=" + hmac.new(secret, body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        return 401, "bad signature", None
    try:
        delivery = json.loads(body)
        stamp = int(headers.get("X-Corkboard-Timestamp", ""))
    except (ValueError, TypeError):
        return 400, "not a delivery", None
    if not isinstance(delivery, dict) or delivery.get("timestamp") != stamp:
        return 400, "the timestamp header differs from the signed body", None
    if abs(now_ms - stamp) > max_age_ms:
        return 400, "too old (a replay?)", None
    if delivery.get("delivery") != headers.get("X-Corkboard-Delivery"):
        return 400, "the delivery header differs from the signed body", None
    return 0, "", delivery


def describe(delivery):
    """One line for a person: seq, event, who, what."""
    activity = delivery.get("activity") or {}
    names = activity.get("names") or {}
    what = ""
    if "number" in names:
        what = f' #{names["number"]} "{names.get("title", "")}"'
    elif activity.get("card"):
        what = f' {activity["card"]}'
    if activity.get("text"):
        what += f': {activity["text"]}'
    actor = activity.get("actor", "corkd")
    return f'{delivery.get("board")} seq {delivery.get("seq")} {delivery.get("event")} by {actor}{what} ({delivery.get("delivery")})'


class Receiver(BaseHTTPRequestHandler):
    server_version = "webhook_receiver/1"

    def do_POST(self):
        state = self.server.state
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            length = -1
        if length < 0 or length > BODY_MAX:
            return self.answer(413)
        body = self.rfile.read(length)
        status, reason, delivery = verify(state["secret"], body, self.headers, state["max_age_ms"], int(time.time() * 1000))
        if status:
            print(f"refused ({status}): {reason}", file=sys.stderr, flush=True)
            return self.answer(status)
        if state["fail"] > 0:
            state["fail"] -= 1
            print(f'answered 503 on purpose to {delivery["delivery"]} ({state["fail"]} more)', file=sys.stderr, flush=True)
            return self.answer(503)
        repeat = delivery["delivery"] in state["seen"]
        state["seen"].add(delivery["delivery"])
        if state["json"]:
            print(json.dumps(dict(delivery, repeat=repeat), sort_keys=True), flush=True)
        else:
            print(describe(delivery) + (" (repeat)" if repeat else ""), flush=True)
        self.answer(204)

    def answer(self, status):
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format, *args):
        pass  # one line per delivery on stdout is enough


def main():
    parser = argparse.ArgumentParser(description="Receive Corkboard webhooks: verify, print, answer 204.")
    parser.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=8080, help="port to listen on; 0 picks a free one (default 8080)")
    parser.add_argument("--secret", help="the hook's secret (default: $CORK_HOOK_SECRET; prefer it, ps shows arguments)")
    parser.add_argument("--max-age", type=int, default=300, help="refuse deliveries older than this many seconds")
    parser.add_argument("--fail", type=int, default=0, help="answer 503 to the first N valid deliveries")
    parser.add_argument("--json", action="store_true", help="print each delivery as one JSON line")
    args = parser.parse_args()
    secret = args.secret or os.environ.get("CORK_HOOK_SECRET")
    if not secret:
        parser.error("give the hook's secret in $CORK_HOOK_SECRET or --secret")
    server = HTTPServer((args.host, args.port), Receiver)
    server.state = {
        "secret": secret.encode(), "max_age_ms": args.max_age * 1000, "fail": args.fail, "json": args.json,
        "seen": set(),
    }
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    host, port = server.server_address[:2]
    print(f"listening on http://{host}:{port}/", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()

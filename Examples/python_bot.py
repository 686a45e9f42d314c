#!/usr/bin/env python3
"""A Corkboard chat bot in plain Python 3 (standard library only).

Usage:
  python_bot.py --url 'cork://HOST:PORT/BOARD?token=TOKEN&fp=sha256:HEX'   # or set CORK_URL
  python_bot.py --summary                                                 # post one summary and exit

It follows one board and answers chat lines that mention @bot:
  @bot overdue   open cards whose due date is before today
  @bot summary   cards per column, overdue and closed counts, milestone progress
  @bot help      the commands
Get an invite URL with `corkd invite --user bot --role bot`; prefer $CORK_URL to --url, since other users can see
command lines in `ps`. Exit status: 0 after SIGINT/SIGTERM or a posted summary, 1 when the server refuses us for
good (wrong certificate, bad token, …), 2 for a bad URL. See Protocol.md for the wire format.
"""

import argparse
import datetime
import hashlib
import hmac
import json
import os
import random
import re
import signal
import socket
import ssl
import sys
import time

CLIENT = "python-bot/1.0"
# Errors after which reconnecting cannot help (Protocol.md, "Closes the connection"): exit non-zero.
FATAL = {"auth_failed", "token_expired", "token_revoked", "unauthenticated", "too_many_errors",
         "line_too_long", "unsupported_version"}
HELP = ("commands: `@bot overdue` (open cards past their due date), `@bot summary` (cards per column, "
        "overdue, closed, milestones), `@bot help` (this list)")


class Fatal(Exception):
    """Stop for good and exit 1 (bad URL, wrong certificate, revoked token, …)."""


class Lost(Exception):
    """The connection ended; reconnect after `delay` seconds, if given."""

    def __init__(self, why, delay=None):
        super().__init__(why)
        self.delay = delay


def parse_invite(text):
    """cork://HOST[:PORT]/BOARD?token=TOKEN&fp=sha256:HEX -> dict (Protocol.md, "Invite URLs")."""
    m = re.fullmatch(r"cork://(\[[^\]/]+\]|[^:/?\[\]]+)(?::(\d+))?(?:/([^?]*))?(?:\?(.*))?", text.strip())
    if not m:
        raise Fatal("not an invite URL of the form cork://HOST:PORT/BOARD?token=TOKEN&fp=sha256:HEX")
    query = dict(p.split("=", 1) for p in (m.group(4) or "").split("&") if "=" in p)
    fp = query.get("fp", "").lower().replace(":", "")
    if fp and not re.fullmatch(r"sha256[0-9a-f]{64}", fp):
        raise Fatal("the invite URL's fp is not sha256: and 64 hex digits")
    if not query.get("token"):
        raise Fatal("the invite URL has no token")
    return {"host": m.group(1).strip("[]"), "port": int(m.group(2) or 7420), "board": m.group(3) or "main",
            "token": query["token"], "fp": fp[len("sha256"):] or None}


def open_tls(invite):
    """A TLS socket to the server, pinned to `fp` or verified against the system CAs. Nothing is sent before."""
    if invite["fp"]:
        # Pinning replaces CA and host-name checks: accept exactly the certificate whose SHA-256 the URL names.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    else:
        context = ssl.create_default_context()  # system CAs and the host name; never falls back to unverified
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    raw = socket.create_connection((invite["host"], invite["port"]), timeout=10)
    try:
        sock = context.wrap_socket(raw, server_hostname=invite["host"])
    except ssl.SSLCertVerificationError as error:
        raw.close()
        raise Fatal(f"the server's certificate does not verify: {error.verify_message}")
    except BaseException:
        raw.close()
        raise
    if invite["fp"]:
        seen = hashlib.sha256(sock.getpeercert(binary_form=True)).hexdigest()
        if not hmac.compare_digest(seen, invite["fp"]):
            sock.close()
            raise Fatal(f"certificate fingerprint mismatch: the server presented sha256:{seen}, the invite URL "
                        f"pins sha256:{invite['fp']}; not sending the token")
    sock.settimeout(1.0)  # short reads, so a signal is noticed within a second
    return sock


def fit(lines, limit):
    """Joins lines into one chat text below `limit` UTF-8 bytes, cutting whole lines off the end."""
    text = lines[0].encode()[:limit - 64].decode(errors="ignore")
    size = len(text.encode())
    for index, line in enumerate(lines[1:], 1):
        size += 1 + len(line.encode())
        if size + 32 >= limit:  # leaves room for the last line
            return text + f"\n… and {len(lines) - index} more"
        text += "\n" + line
    return text


def overdue_cards(state, today):
    """Open, unarchived cards due before `today`, oldest due date first."""
    late = [c for c in state["cards"] if not c["closed"] and not c["archived"] and c.get("due", "9999") < today]
    return sorted(late, key=lambda c: (c["due"], c["number"]))


def overdue_text(state, today):
    names = {col["id"]: col["name"] for col in state["columns"]}
    late = overdue_cards(state, today)
    if not late:
        return [f"no overdue cards on {state['name']} (today is {today})"]
    return [f"{len(late)} overdue on {state['name']} (today is {today}):"] + [
        f"#{c['number']} {json.dumps(c['title'], ensure_ascii=False)} due {c['due']} ({names.get(c['column'], c['column'])})"
        for c in late]


def summary_text(state, today):
    live = [c for c in state["cards"] if not c["archived"]]
    columns = " · ".join(f"{col['name']} {sum(c['column'] == col['id'] for c in live)}" for col in state["columns"])
    lines = [f"summary of {state['name']} on {today}: {len(live)} cards", columns,
             f"overdue {len(overdue_cards(state, today))} · closed {sum(c['closed'] for c in live)}"]
    for ms in state["milestones"]:
        cards = [c for c in live if c.get("milestone") == ms["id"]]
        due = f", due {ms['due']}" if ms.get("due") else ""
        status = " (closed)" if ms["closed"] else ""
        lines.append(f"milestone {ms['title']}{status}: {sum(c['closed'] for c in cards)}/{len(cards)} closed{due}")
    return lines


class Bot:
    def __init__(self, invite, summary_only):
        self.invite, self.board, self.summary_only = invite, invite["board"], summary_only
        self.user = self.client_id = self.epoch = self.seq = None
        self.mut = 0                # strictly increasing per client id; the client id is kept across reconnects
        self.unacked = {}           # mut -> op line, resent after a reconnect (the server applies each mut once)
        self.pending = []           # (seq, asker, command) waiting for a fresh snapshot
        self.refreshing = False     # a subscribe is in flight
        self.chat_max = 4096
        self.sock, self.buffer, self.stopping, self.req = None, b"", False, 0
        self.silence = 75.0         # seconds without a line after which the connection counts as dead
        self.following = False      # announced "following" on this connection
        self.missing_board = 0      # not_found answers to subscribe (a new invite lands within a second)

    # -- lines ----------------------------------------------------------------------------------------------------
    def send(self, message):
        self.sock.sendall(json.dumps(message, separators=(",", ":")).encode() + b"\n")

    def lines(self):
        """Yields the server's messages until the connection ends (Lost) or SIGINT/SIGTERM sets `stopping`."""
        heard = time.monotonic()
        while not self.stopping:
            while b"\n" in self.buffer:
                line, _, self.buffer = self.buffer.partition(b"\n")
                if line.strip():
                    yield json.loads(line)
            try:
                chunk = self.sock.recv(1 << 16)
            except (socket.timeout, ssl.SSLWantReadError):
                if time.monotonic() - heard > self.silence:  # the server pings every heartbeat_ms
                    raise Lost(f"nothing from the server for {self.silence:.0f} s")
                continue
            except OSError as error:
                raise Lost(f"connection lost: {error}")
            if not chunk:
                raise Lost("the server closed the connection")
            self.buffer, heard = self.buffer + chunk, time.monotonic()

    def subscribe(self, resume=False):
        """Resumes after `seq` when asked to (deltas we missed, chat included), else asks for a fresh snapshot."""
        self.req += 1
        message = {"type": "subscribe", "req": self.req, "board": self.board}
        if resume and self.seq is not None:
            message.update(since=self.seq, epoch=self.epoch)
        self.refreshing = True
        self.send(message)

    def post(self, text):
        self.mut += 1
        self.unacked[self.mut] = {"type": "op", "board": self.board, "mut": self.mut,
                                  "op": {"kind": "chat", "text": text}}
        self.send(self.unacked[self.mut])

    # -- one connection -------------------------------------------------------------------------------------------
    def session(self):
        self.sock, self.buffer = open_tls(self.invite), b""
        hello = {"type": "hello", "version": 1, "client": CLIENT, "token": self.invite["token"]}
        if self.client_id:
            hello["client_id"] = self.client_id
        self.send(hello)
        for message in self.lines():
            if self.handle(message):
                return True
        return False  # stopped by a signal

    def handle(self, m):
        """Acts on one server message; True when the bot is done (summary posted)."""
        kind = m.get("type")
        if kind == "welcome":
            self.user, self.client_id = m["user"], m["client_id"]
            self.chat_max = m.get("limits", {}).get("chat_max_bytes", 4096)
            self.silence = 2.5 * m.get("heartbeat_ms", 30000) / 1000
            self.following = False
            print(f"python-bot: connected as {self.user}", flush=True)
            self.subscribe(resume=True)
            for line in self.unacked.values():  # replies cut off by the last disconnect, same muts
                self.send(line)
        elif kind == "ping":
            self.send({"type": "pong", **({"req": m["req"]} if "req" in m else {})})
        elif kind == "snapshot":
            self.seq, self.epoch = m["seq"], m["epoch"]
            today = datetime.date.today().isoformat()
            if self.summary_only and not self.mut:
                self.post(fit(summary_text(m["state"], today), self.chat_max))
            for _, asker, command in [p for p in self.pending if p[0] <= m["seq"]]:
                lines = overdue_text(m["state"], today) if command == "overdue" else summary_text(m["state"], today)
                self.post(fit([f"@{asker} " + lines[0]] + lines[1:], self.chat_max))
            self.pending = [p for p in self.pending if p[0] > m["seq"]]
        elif kind == "subscribed":
            self.seq, self.epoch, self.refreshing, self.missing_board = m["seq"], m["epoch"], False, 0
            if not self.following:
                print(f"python-bot: following {self.board} at seq {self.seq}", flush=True)
                self.following = True
            if self.pending:
                self.subscribe()
        elif kind == "delta" and m["board"] == self.board:
            if self.seq is not None and m["seq"] <= self.seq:
                return False  # a duplicate
            self.seq = m["seq"]
            self.on_chat(m)
        elif kind == "ack":
            self.unacked.pop(m["mut"], None)
            return self.summary_only and not self.unacked
        elif kind == "reject":
            self.unacked.pop(m["mut"], None)
            print(f"python-bot: op {m['mut']} rejected: {m['code']}: {m.get('message', '')}", file=sys.stderr)
            if self.summary_only:
                raise Fatal("the summary was not posted")
        elif kind == "bye":
            raise Lost(f"the server said bye ({m.get('reason')})", m.get("retry_after_ms", 1000) / 1000)
        elif kind == "error":
            self.on_error(m)
        return False

    def on_chat(self, delta):
        """Answers `@bot COMMAND` from anyone but ourselves."""
        op = delta["op"]
        if self.summary_only or op.get("kind") != "chat" or delta["actor"] == self.user:
            return
        names = "bot" if self.user == "bot" else f"bot|{re.escape(self.user)}"
        match = re.search(rf"@(?:{names})(?![\w.-])[\s,:]*([\w-]*)", op["text"], re.IGNORECASE)
        if not match:
            return
        command, asker = match.group(1).lower(), delta["actor"]
        if command in ("overdue", "summary"):
            # State comes from a fresh snapshot (a subscribe without `since`) instead of a replica kept up to date
            # by hand: applying ops correctly means mirroring the reducer (placement, label and milestone
            # deletions that touch many cards, purges, undo), while a snapshot is authoritative, a bot command is
            # rare, and one snapshot answers every command queued while it was on its way.
            self.pending.append((delta["seq"], asker, command))
            if not self.refreshing:
                self.subscribe()
        elif command == "help":
            self.post(f"@{asker} {HELP}")
        else:
            unknown = f"I don't know `{command[:40]}`; " if command else ""
            self.post(f"@{asker} {unknown}try `@bot help`")

    def on_error(self, m):
        code = m.get("code")
        if code == "not_found" and m.get("board") == self.board:
            # `corkd invite` adds the membership within a second; give it a little time, then give up.
            self.missing_board += 1
            if self.missing_board > 20:
                raise Fatal(f"board {self.board} does not exist or we are not a member of it")
            time.sleep(0.5)
            self.subscribe()
            return
        print(f"python-bot: error {code}: {m.get('message', '')}", file=sys.stderr)
        if code in FATAL:
            raise Fatal(f"the server refused us: {code}")
        if m.get("close"):
            raise Lost(f"closed by the server: {code}", m.get("retry_after_ms", 0) / 1000 or None)

    # -- the whole run --------------------------------------------------------------------------------------------
    def close(self, say_bye):
        if self.sock is None:
            return
        try:
            if say_bye:
                self.send({"type": "bye", "reason": "client"})
            self.sock.close()
        except OSError:
            pass
        self.sock = None

    def run(self):
        """Connects, and reconnects with exponential backoff and jitter until done or stopped; the exit status."""
        delay = 0.5
        while not self.stopping:
            try:
                done = self.session()
                self.close(say_bye=True)
                return 0 if done or not self.summary_only else 1
            except Fatal as error:
                print(f"python-bot: {error}", file=sys.stderr)
                self.close(say_bye=False)
                return 1
            except (Lost, OSError, ValueError, KeyError) as error:
                self.close(say_bye=False)
                if self.summary_only:
                    print(f"python-bot: {error}", file=sys.stderr)
                    return 1
                if self.user is not None:  # the session got going: start the backoff again
                    delay, self.user = 0.5, None
                wait = getattr(error, "delay", None) or delay * random.uniform(0.5, 1.0)
                delay = min(delay * 2, 30)
                print(f"python-bot: {error}; reconnecting in {wait:.1f} s", file=sys.stderr)
                deadline = time.monotonic() + wait
                while not self.stopping and time.monotonic() < deadline:
                    time.sleep(0.1)
        self.close(say_bye=True)
        return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default=os.environ.get("CORK_URL"), help="the invite URL (default: $CORK_URL)")
    parser.add_argument("--summary", action="store_true", help="post one summary of the board and exit")
    args = parser.parse_args(argv)
    if not args.url:
        parser.error("give the invite URL with --url or $CORK_URL")
    try:
        bot = Bot(parse_invite(args.url), args.summary)
    except Fatal as error:
        print(f"python-bot: {error}", file=sys.stderr)
        return 2

    def stop(signum, _frame):
        bot.stopping = True  # the read loop notices within a second, says bye and exits 0

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    # A parent may hand down a mask that blocks them (a Swift test runner does), which would leave only SIGKILL.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT, signal.SIGTERM})
    return bot.run()


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Plays the worked session of Protocol.md against a live corkd, with the Python standard library only.

Usage: worked_session.py HOST PORT TOKEN FP

FP is the invite URL's fingerprint (`sha256:` and 64 hex digits; OpenSSL's upper-case, colon-separated form is
accepted too). The certificate is pinned by hand: the TLS layer does no CA or host-name check (`CERT_NONE`), and the
script compares SHA-256 of the DER certificate the server presented with FP, refusing to say anything on a mismatch.

Two sessions of the token's user take part, "alice" (the one typing in Protocol.md) and "bob" (the other session,
whose presence and description edit alice sees). Every reply is checked for its type and fields. Exit status 0 means
the whole session went as Protocol.md says; anything else prints what differed on stderr and exits 1 (2 for usage).
"""

import hashlib
import json
import os
import socket
import ssl
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from board_hash import board_hash  # noqa: E402 (Protocol.md, "Board hash")

TIMEOUT = 5.0


class Failure(Exception):
    """A reply that is not what Protocol.md says."""


def check(condition, message):
    if not condition:
        raise Failure(message)


def pinned_hex(fp):
    text = fp.strip()
    check(text.lower().startswith("sha256:"), f"the fingerprint must start with sha256: ({fp!r})")
    digits = text[len("sha256:"):].replace(":", "").lower()
    check(len(digits) == 64 and all(c in "0123456789abcdef" for c in digits), f"not a SHA-256 fingerprint: {fp!r}")
    return digits


class Session:
    """One TLS connection speaking the line protocol, every wait bounded by TIMEOUT."""

    def __init__(self, name, host, port, fp_hex):
        self.name = name
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE  # pinned below, by the certificate's SHA-256
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        raw = socket.create_connection((host, port), timeout=TIMEOUT)
        try:
            self.sock = context.wrap_socket(raw, server_hostname="localhost")
        except Exception:
            raw.close()
            raise
        presented = hashlib.sha256(self.sock.getpeercert(binary_form=True)).hexdigest()
        if presented != fp_hex:
            self.sock.close()
            raise Failure(
                f"certificate fingerprint mismatch: the server presented sha256:{presented}, "
                f"the invite URL pins sha256:{fp_hex}; refusing to talk to it")
        self.tls_version = self.sock.version()
        self.buffer = b""
        self.lines = 0
        self.ignored_sessions = set()  # presence of sessions outside the script's story (the setup session)

    def send(self, message):
        self.sock.sendall((json.dumps(message, separators=(",", ":")) + "\n").encode("utf-8"))

    def receive(self, timeout=TIMEOUT):
        """The next JSON object, or None when the server closed the connection."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Failure(f"{self.name}: no line from the server within {timeout} s")
            self.sock.settimeout(remaining)
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                raise Failure(f"{self.name}: no line from the server within {timeout} s")
            except (ConnectionResetError, ssl.SSLEOFError):
                chunk = b""
            if not chunk:
                check(not self.buffer, f"{self.name}: the connection closed in the middle of a line")
                return None
            self.buffer += chunk
        line, _, self.buffer = self.buffer.partition(b"\n")
        try:
            message = json.loads(line.decode("utf-8"))
        except ValueError as error:
            raise Failure(f"{self.name}: the server sent a line that is not JSON ({error}): {line[:200]!r}")
        check(isinstance(message, dict), f"{self.name}: a server line is not a JSON object: {line[:200]!r}")
        check(isinstance(message.get("type"), str), f"{self.name}: a server line without a string type: {message}")
        self.lines += 1
        return message

    def expect(self, kind):
        """The next line, which must have type `kind`; the server's heartbeat pings are answered on the way."""
        while True:
            message = self.receive()
            check(message is not None, f"{self.name}: the connection closed while waiting for {kind}")
            if message["type"] == "ping" and kind != "ping":
                self.send({"type": "pong", **({"req": message["req"]} if "req" in message else {})})
                continue
            if message["type"] in ("presence", "presence.left") and message.get("session") in self.ignored_sessions:
                continue
            check(message["type"] == kind, f"{self.name}: expected {kind}, got {json.dumps(message)[:600]}")
            return message

    def expect_close(self, timeout=TIMEOUT):
        """Waits for the server to close; fails on any line but a heartbeat ping."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            check(remaining > 0, f"{self.name}: the server did not close the connection within {timeout} s")
            message = self.receive(timeout=remaining)
            if message is None:
                return
            check(message["type"] == "ping", f"{self.name}: expected the close, got {json.dumps(message)[:300]}")

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def fields(message, **expected):
    for key, value in expected.items():
        check(message.get(key) == value,
              f"{message.get('type')}: {key} is {message.get(key)!r}, expected {value!r} in {json.dumps(message)[:600]}")


def is_int(value):
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def hello(session, token, client_id, req):
    session.send({"type": "hello", "req": req, "version": 1, "client": "worked_session.py/1", "token": token,
                  "client_id": client_id})
    welcome = session.expect("welcome")
    fields(welcome, req=req, version=1, client_id=client_id)
    for key in ("session", "user", "server"):
        check(isinstance(welcome.get(key), str) and welcome[key], f"welcome: {key} missing in {welcome}")
    limits = welcome.get("limits")
    check(isinstance(limits, dict), f"welcome: limits is not an object: {welcome}")
    check(all(is_int(v) for v in limits.values()), f"welcome: a limit is not a non-negative integer: {limits}")
    fields(limits, line_max=65536, preauth_line_max=4096, json_depth=16)
    check(is_int(welcome.get("heartbeat_ms")) and welcome["heartbeat_ms"] == limits.get("heartbeat_ms"),
          f"welcome: heartbeat_ms {welcome.get('heartbeat_ms')!r} differs from limits.heartbeat_ms")
    check(welcome.get("role") in (None, "owner", "bot"), f"welcome: role is not an account role: {welcome}")
    return welcome


def subscribe(session, board, req):
    session.send({"type": "subscribe", "req": req, "board": board})
    snapshot = session.expect("snapshot")
    fields(snapshot, req=req, board=board, reason="initial")
    check(is_int(snapshot.get("seq")), f"snapshot: seq is not an integer: {snapshot.get('seq')!r}")
    check(isinstance(snapshot.get("epoch"), str) and snapshot["epoch"], "snapshot: no epoch")
    state = snapshot.get("state")
    check(isinstance(state, dict), "snapshot: no state object")
    fields(state, id=board, seq=snapshot["seq"])
    for key in ("columns", "cards", "labels", "milestones", "members", "purged"):
        check(isinstance(state.get(key), list), f"snapshot: state.{key} is not a list")
    check(is_int(state.get("next_card_number")), "snapshot: state.next_card_number is not an integer")
    check(len(state["columns"]) >= 2, f"snapshot: the board needs two columns, has {state['columns']}")
    subscribed = session.expect("subscribed")
    fields(subscribed, req=req, board=board, seq=snapshot["seq"], epoch=snapshot["epoch"])
    fields(subscribed, hash=board_hash(state))
    present = session.expect("presence.state")
    fields(present, board=board)
    check(isinstance(present.get("sessions"), list), "presence.state: sessions is not a list")
    return snapshot, present["sessions"]


def expect_delta(session, seq, actor, client_id, mut, kind):
    delta = session.expect("delta")
    fields(delta, board="main", seq=seq, actor=actor, client_id=client_id, mut=mut)
    check(is_int(delta.get("at")), f"delta: at is not an integer: {delta}")
    op = delta.get("op")
    check(isinstance(op, dict) and op.get("kind") == kind, f"delta: op kind is not {kind}: {delta}")
    activity = delta.get("activity")
    check(isinstance(activity, dict), f"delta: no activity: {delta}")
    fields(activity, seq=seq, actor=actor, kind=kind, at=delta["at"])
    check(isinstance(activity.get("changes"), dict), f"delta: activity.changes is not an object: {delta}")
    return delta


def play(host, port, token, fp_hex):
    run = f"{os.getpid()}-{int(time.time() * 1000) % 100000}"
    alice_cid, bob_cid = f"py-alice-{run}", f"py-bob-{run}"
    card, missing = f"c3-{run}", f"nope-{run}"

    # A board left with a WIP limit on DOING by an interrupted run is cleared first, by a session of its own.
    setup = Session("setup", host, port, fp_hex)
    setup_session = hello(setup, token, f"py-setup-{run}", req=1)["session"]
    state, _ = subscribe(setup, "main", req=2)
    if "wip" in state["state"]["columns"][1]:
        setup.send({"type": "op", "board": "main", "mut": 1,
                    "op": {"kind": "column.wip", "column": state["state"]["columns"][1]["id"], "limit": None}})
        fields(setup.expect("ack"), board="main", mut=1)
    setup.send({"type": "bye", "reason": "client"})
    setup.expect_close()
    setup.close()

    # C: say hello. S: welcome, with the limits.
    alice = Session("alice", host, port, fp_hex)
    alice.ignored_sessions.add(setup_session)
    welcome = hello(alice, token, alice_cid, req=1)
    user, alice_session = welcome["user"], welcome["session"]

    # C: which boards? S: main, with our role and its seq.
    alice.send({"type": "boards", "req": 2})
    boards = alice.expect("boards")
    fields(boards, req=2)
    entries = boards.get("boards")
    check(isinstance(entries, list), f"boards: not a list: {boards}")
    check([b.get("board") for b in entries] == sorted(b.get("board") for b in entries), "boards: not sorted by id")
    main = next((b for b in entries if b.get("board") == "main"), None)
    check(main is not None, f"boards: main is missing: {entries}")
    check(main.get("role") in ("owner", "editor"), f"boards: the user cannot edit main: {main}")
    check(isinstance(main.get("name"), str) and is_int(main.get("seq")), f"boards: bad entry {main}")

    # C: follow main. S: the snapshot, subscribed, and who is here.
    snapshot, sessions = subscribe(alice, "main", req=3)
    seq = snapshot["seq"]
    fields(main, seq=seq)
    check({"session": alice_session, "user": user, "state": "viewing"} in sessions,
          f"presence.state: alice's own session is not there as viewing: {sessions}")
    todo, doing = snapshot["state"]["columns"][0]["id"], snapshot["state"]["columns"][1]["id"]

    # Bob (a second session) arrives; alice sees his presence.
    bob = Session("bob", host, port, fp_hex)
    bob.ignored_sessions.add(setup_session)
    bob_session = hello(bob, token, bob_cid, req=1)["session"]
    _, bob_sees = subscribe(bob, "main", req=1)
    check({alice_session, bob_session} <= {s.get("session") for s in bob_sees},
          f"presence.state: bob does not see both sessions: {bob_sees}")
    joined = alice.expect("presence")
    fields(joined, board="main", session=bob_session, user=user, state="viewing")

    # C: add a card to TODO. S: ack (durable), then the delta every subscriber gets.
    alice.send({"type": "op", "board": "main", "mut": 1,
                "op": {"kind": "card.add", "card": card, "column": todo, "title": "Ship corkd", "due": "2026-02-15"}})
    ack = alice.expect("ack")
    fields(ack, board="main", mut=1, seq=seq + 1)
    check("noop" not in ack, f"ack: a card.add is not a no-op: {ack}")
    added = expect_delta(alice, seq + 1, user, alice_cid, 1, "card.add")
    changes = added["activity"]["changes"]
    fields(added["activity"], card=card)
    check(changes.get("title") == [None, "Ship corkd"] and changes.get("column") == [None, todo]
          and changes.get("due") == [None, "2026-02-15"], f"card.add: activity changes {changes}")
    expect_delta(bob, seq + 1, user, alice_cid, 1, "card.add")

    # C: move it to DOING. S: ack and delta; the reducer chose the rank.
    alice.send({"type": "op", "board": "main", "mut": 2, "op": {"kind": "card.move", "card": card, "to_column": doing}})
    fields(alice.expect("ack"), board="main", mut=2, seq=seq + 2)
    moved = expect_delta(alice, seq + 2, user, alice_cid, 2, "card.move")
    check(moved["activity"]["changes"].get("column") == [todo, doing], f"card.move: changes {moved['activity']}")
    expect_delta(bob, seq + 2, user, alice_cid, 2, "card.move")

    # C: chat. S: it is sequenced like any change.
    text = "moved #3 to DOING, @bob can you review?"
    alice.send({"type": "op", "board": "main", "mut": 3, "op": {"kind": "chat", "text": text}})
    fields(alice.expect("ack"), board="main", mut=3, seq=seq + 3)
    chat = expect_delta(alice, seq + 3, user, alice_cid, 3, "chat")
    fields(chat["activity"], text=text, changes={})
    expect_delta(bob, seq + 3, user, alice_cid, 3, "chat")

    # C: alice looks at the card; only the others hear of it.
    alice.send({"type": "presence", "board": "main", "state": "viewing", "card": card})
    fields(bob.expect("presence"), board="main", session=alice_session, user=user, state="viewing", card=card)

    # Bob saves a new description, based on the one set by the add.
    bob.send({"type": "op", "board": "main", "mut": 41,
              "op": {"kind": "card.edit", "card": card, "description": "The wire contract, v1.", "base_seq": seq + 1}})
    fields(bob.expect("ack"), board="main", mut=41, seq=seq + 4)
    expect_delta(bob, seq + 4, user, bob_cid, 41, "card.edit")
    edit = expect_delta(alice, seq + 4, user, bob_cid, 41, "card.edit")
    check(edit["activity"]["changes"].get("description") == ["", "The wire contract, v1."],
          f"card.edit: changes {edit['activity']}")

    # C: alice saves her edit, based on the description she saw. S: conflict, with Bob's text.
    alice.send({"type": "op", "board": "main", "mut": 4,
                "op": {"kind": "card.edit", "card": card, "description": "The wire contract (draft).",
                       "base_seq": seq + 1}})
    conflict = alice.expect("reject")
    fields(conflict, board="main", mut=4, code="conflict",
           current={"seq": seq + 4, "description": "The wire contract, v1."})
    check(isinstance(conflict.get("message"), str) and conflict["message"], "reject: no message")

    # DOING gets a hard WIP limit of 1; a second card there is refused.
    alice.send({"type": "op", "board": "main", "mut": 5, "op": {"kind": "column.wip", "column": doing, "limit": 1,
                                                                "hard": True}})
    fields(alice.expect("ack"), board="main", mut=5, seq=seq + 5)
    expect_delta(alice, seq + 5, user, alice_cid, 5, "column.wip")
    expect_delta(bob, seq + 5, user, alice_cid, 5, "column.wip")
    alice.send({"type": "op", "board": "main", "mut": 6,
                "op": {"kind": "card.add", "card": f"c5-{run}", "column": doing, "title": "Load test"}})
    fields(alice.expect("reject"), board="main", mut=6, code="wip_limit")

    # Closing a card that does not exist: not_found, nothing changes.
    alice.send({"type": "op", "board": "main", "mut": 7, "op": {"kind": "card.close", "card": missing}})
    fields(alice.expect("reject"), board="main", mut=7, code="not_found")

    # DOING's limit is lifted again (null clears it), so the script can run again on the same board.
    alice.send({"type": "op", "board": "main", "mut": 8, "op": {"kind": "column.wip", "column": doing, "limit": None}})
    fields(alice.expect("ack"), board="main", mut=8, seq=seq + 6)
    expect_delta(alice, seq + 6, user, alice_cid, 8, "column.wip")
    expect_delta(bob, seq + 6, user, alice_cid, 8, "column.wip")

    # C: ping. S: pong, with the same req.
    alice.send({"type": "ping", "req": "t1"})
    fields(alice.expect("pong"), req="t1")
    alice.send({"type": "pong"})

    # The rejects changed nothing: the board is at seq + 6, the six changes above.
    alice.send({"type": "boards", "req": 9})
    after = next((b for b in alice.expect("boards").get("boards", []) if b.get("board") == "main"), {})
    fields(after, seq=seq + 6)

    # C: goodbye; the server closes the connection; bob sees alice leave.
    alice.send({"type": "bye", "reason": "client"})
    alice.expect_close()
    alice.close()
    fields(bob.expect("presence.left"), board="main", session=alice_session, user=user)
    bob.send({"type": "bye", "reason": "client"})
    bob.expect_close()
    bob.close()
    return alice.lines + bob.lines, alice.tls_version


def main(argv):
    if len(argv) != 5:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    host, port, token, fp = argv[1], argv[2], argv[3], argv[4]
    try:
        lines, version = play(host, int(port), token, pinned_hex(fp))
    except Failure as failure:
        print(f"worked session FAILED: {failure}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"worked session FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(f"worked session ok: {lines} server lines checked over {version}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

#!/usr/bin/env python3
"""Plays the worked session of Protocol.md against a live corkd, with the Python standard library only.

Usage: worked_session.py HOST PORT TOKEN FP
       worked_session.py --websocket ws://HOST:PORT/v1 TOKEN

The first form speaks TLS to corkd's protocol port. FP is the invite URL's fingerprint (`sha256:` and 64 hex digits;
OpenSSL's upper-case, colon-separated form is accepted too). The certificate is pinned by hand: the TLS layer does no
CA or host-name check (`CERT_NONE`), and the script compares SHA-256 of the DER certificate the server presented with
FP, refusing to say anything on a mismatch.

The second form speaks the same protocol over a WebSocket to the web listener's `/v1` (docs/web.md): one line per
text message, through a minimal RFC 6455 client written below. Only `ws://` is spoken, the plain HTTP corkd serves
on a loopback address; there is no certificate there, so the pin check has no WebSocket equivalent and FP is not
taken (the token crosses the loopback interface in clear, as it does to any local process). A server's close is a
WebSocket close frame (1000 after a `bye`) followed by the end of the TCP connection; the script checks both.

Two sessions of the token's user take part, "alice" (the one typing in Protocol.md) and "bob" (the other session,
whose presence and description edit alice sees). Every reply is checked for its type and fields. Exit status 0 means
the whole session went as Protocol.md says; anything else prints what differed on stderr and exits 1 (2 for usage).
"""

import base64
import hashlib
import json
import os
import socket
import ssl
import sys
import time
import urllib.parse

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


class LineSession:
    """What both transports share: waiting for a line of a given type, and for the server's close.

    A subclass opens the connection and provides `send(message)`, `receive(timeout)` (the next JSON object, or None
    once the server has closed; each line through `decode`, which counts it in `lines`) and `close()`, and sets
    `transport` (what the summary line names: the TLS version, or the WebSocket URL).
    """

    closed_how = ""  # a note on how the server closed, for messages (the WebSocket close code and reason)

    def __init__(self, name):
        self.name = name
        self.lines = 0
        self.ignored_sessions = set()  # presence of sessions outside the script's story (the setup session)
        self.present = {}  # who this session knows to be on the board (the script follows one board): session -> entry

    def decode(self, line):
        """One server line (without its newline) as a JSON object with a string type; counts it."""
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
            check(message is not None, f"{self.name}: the connection closed while waiting for {kind}{self.closed_how}")
            if message["type"] == "ping" and kind != "ping":
                self.send({"type": "pong", **({"req": message["req"]} if "req" in message else {})})
                continue
            if message["type"] in ("presence", "presence.left") and message.get("session") in self.ignored_sessions:
                continue
            if self.tells_nothing_new(message):
                continue
            check(message["type"] == kind, f"{self.name}: expected {kind}, got {json.dumps(message)[:600]}")
            return message

    def tells_nothing_new(self, message):
        """Whether a presence line only repeats what this session knows, and keeps `present` up to date.

        Protocol.md ("presence") writes presence lines up to 20 ms after the change, so a session that subscribed
        within those 20 ms may get a `presence` about a session its `presence.state` already showed in that state, or
        a `presence.left` for one it never showed. How often this happens is a matter of timing, not of the
        transport: a TLS hello takes long enough that the window has passed, and a WebSocket one often does not.
        """
        kind, session = message["type"], message.get("session")
        if kind == "presence.state" and isinstance(message.get("sessions"), list):
            self.present = {entry.get("session"): entry for entry in message["sessions"] if isinstance(entry, dict)}
        elif kind == "presence":
            entry = {key: value for key, value in message.items() if key not in ("type", "board")}
            known = self.present.get(session)
            self.present[session] = entry
            return known == entry
        elif kind == "presence.left":
            return self.present.pop(session, None) is None
        return False

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


class Session(LineSession):
    """One TLS connection speaking the line protocol, every wait bounded by TIMEOUT."""

    def __init__(self, name, host, port, fp_hex):
        super().__init__(name)
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
        self.transport = self.tls_version
        self.buffer = b""

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
        return self.decode(line)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# RFC 6455, section 1.3: appended to the client's key before hashing it into Sec-WebSocket-Accept.
WEBSOCKET_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
# Frame opcodes (section 5.2).
OP_CONTINUATION, OP_TEXT, OP_BINARY, OP_CLOSE, OP_PING, OP_PONG = 0x0, 0x1, 0x2, 0x8, 0x9, 0xA
# The longest server message put back together: the protocol's server_line_max (64 MiB).
MESSAGE_MAX = 64 << 20


def masked(payload, key):
    """`payload` XOR the 4-byte `key` repeated (section 5.3); the same operation unmasks."""
    if not payload:
        return b""
    stream = (key * (len(payload) // 4 + 1))[:len(payload)]
    return (int.from_bytes(payload, "big") ^ int.from_bytes(stream, "big")).to_bytes(len(payload), "big")


class WebSocketSession(LineSession):
    """One WebSocket (RFC 6455, plain ws://) speaking the line protocol, every wait bounded by TIMEOUT.

    Each protocol line is one text message: the client sends a line without its newline, and each message the server
    sends must be exactly one JSON object with no newline in it. Only what the script needs is spoken: the HTTP/1.1
    upgrade with its Sec-WebSocket-Accept check, masked client frames, text messages (fragmented ones put back
    together), pings answered with pongs, and the closing handshake. No extension or subprotocol is asked for, so a
    frame with an RSV bit set, a binary message or a masked server frame is a failure.
    """

    def __init__(self, name, url):
        super().__init__(name)
        parts = urllib.parse.urlsplit(url)
        check(parts.scheme == "ws" and parts.hostname,
              f"not a ws:// URL: {url!r} (only plain HTTP is spoken, as corkd serves it on a loopback address)")
        path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        self.transport = f"WebSocket {url}"
        self.buffer = bytearray()  # bytes read from the socket and not yet taken off as frames
        self.sent_close = False  # our close frame has gone out
        self.closed = False  # the server's close frame and then the end of the TCP connection have both come
        self.close_code, self.close_reason = None, ""
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=TIMEOUT)
        try:
            self.handshake(parts.netloc, path)
        except Exception:
            self.sock.close()
            raise

    def handshake(self, host, path):
        """The opening handshake (section 4): a GET asking for the upgrade, answered by 101 and the key's hash."""
        key = base64.b64encode(os.urandom(16)).decode("ascii")
        # No Origin header: this is not a browser (corkd's /v1 refuses only origins other than the page's own).
        request = (f"GET {path} HTTP/1.1\r\n"
                   f"Host: {host}\r\n"
                   "Upgrade: websocket\r\n"
                   "Connection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n"
                   "\r\n")
        self.sock.settimeout(TIMEOUT)
        self.sock.sendall(request.encode("ascii"))
        deadline = time.monotonic() + TIMEOUT
        late = f"{self.name}: no complete upgrade response from the server within {TIMEOUT} s"
        while b"\r\n\r\n" not in self.buffer:
            check(len(self.buffer) <= 16384, f"{self.name}: the upgrade response's head is longer than 16 KiB")
            chunk = self.recv(deadline, late)
            check(chunk, f"{self.name}: the connection closed during the upgrade: {bytes(self.buffer[:300])!r}")
            self.buffer += chunk
        head, _, rest = bytes(self.buffer).partition(b"\r\n\r\n")
        self.buffer = bytearray(rest)  # frames the server sent right after its 101 are the WebSocket's
        status, *header_lines = head.decode("iso-8859-1").split("\r\n")
        check(status.startswith("HTTP/1.1 101 "), f"{self.name}: the upgrade was refused: {head[:300]!r}")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(":")
            headers.setdefault(name.strip().lower(), []).append(value.strip())

        def header(name):
            return ", ".join(headers.get(name, []))

        check(header("upgrade").lower() == "websocket", f"{self.name}: 101 without Upgrade: websocket: {head!r}")
        check("upgrade" in [token.strip().lower() for token in header("connection").split(",")],
              f"{self.name}: 101 without Connection: Upgrade: {head!r}")
        accept = base64.b64encode(hashlib.sha1((key + WEBSOCKET_GUID).encode("ascii")).digest()).decode("ascii")
        check(header("sec-websocket-accept") == accept,
              f"{self.name}: Sec-WebSocket-Accept is {header('sec-websocket-accept')!r}, expected {accept!r}")
        check(not header("sec-websocket-extensions") and not header("sec-websocket-protocol"),
              f"{self.name}: the server chose an extension or subprotocol nobody asked for: {head!r}")

    def recv(self, deadline, late):
        """Bytes from the socket (b"" once the server ended the connection); fails with `late` past `deadline`."""
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise Failure(late)
        self.sock.settimeout(remaining)
        try:
            return self.sock.recv(1 << 16)
        except socket.timeout:
            raise Failure(late)
        except ConnectionResetError:
            return b""

    def send_frame(self, opcode, payload, fin=True):
        """One frame to the server, masked with a fresh key as every client frame must be (section 5.3)."""
        head = bytearray([(0x80 if fin else 0) | opcode])
        if len(payload) < 126:  # the 7-bit length
            head.append(0x80 | len(payload))
        elif len(payload) < 1 << 16:  # 126, then a 16-bit length
            head += bytes([0x80 | 126]) + len(payload).to_bytes(2, "big")
        else:  # 127, then a 64-bit length
            head += bytes([0x80 | 127]) + len(payload).to_bytes(8, "big")
        key = os.urandom(4)
        self.sock.settimeout(TIMEOUT)
        self.sock.sendall(bytes(head) + key + masked(payload, key))
        if opcode == OP_CLOSE:
            self.sent_close = True

    def send(self, message):
        self.send_frame(OP_TEXT, json.dumps(message, separators=(",", ":")).encode("utf-8"))

    def take_frame(self):
        """A complete frame off the front of the buffer as (fin, opcode, payload), or None while bytes are missing."""
        data = self.buffer
        if len(data) < 2:
            return None
        fin, rsv, opcode = data[0] >> 7, (data[0] >> 4) & 0x7, data[0] & 0xF
        mask, length, offset = data[1] >> 7, data[1] & 0x7F, 2
        check(rsv == 0, f"{self.name}: a frame with RSV bits {rsv:#05b}, but no extension was negotiated")
        check(not mask, f"{self.name}: a masked frame from the server (section 5.1: servers never mask)")
        if length == 126:  # a 16-bit length follows, for 126 to 65535 bytes
            if len(data) < 4:
                return None
            length, offset = int.from_bytes(data[2:4], "big"), 4
            check(length >= 126, f"{self.name}: a 16-bit frame length for {length} bytes (section 5.2: minimal)")
        elif length == 127:  # a 64-bit length follows (most significant bit 0), for 65536 bytes and more
            if len(data) < 10:
                return None
            length, offset = int.from_bytes(data[2:10], "big"), 10
            check(1 << 16 <= length < 1 << 63, f"{self.name}: a 64-bit frame length of {length} (section 5.2)")
        check(length <= MESSAGE_MAX, f"{self.name}: a frame of {length} bytes, more than server_line_max")
        check(opcode < 0x8 or (fin and length <= 125),
              f"{self.name}: a control frame (opcode {opcode:#x}) fragmented or longer than 125 bytes")
        if len(data) < offset + length:
            return None
        payload = bytes(data[offset:offset + length])
        del data[:offset + length]
        return bool(fin), opcode, payload

    def receive(self, timeout=TIMEOUT):
        """The next text message as a JSON object, or None once the server closed (close frame, then end of TCP).

        On the way, pings are answered with a pong carrying the same data, unsolicited pongs are skipped, and a
        message sent in fragments is put back together.
        """
        if self.closed:
            return None
        deadline = time.monotonic() + timeout
        late = f"{self.name}: no line from the server within {timeout} s"
        message = None  # the text message being put together, from its first frame on
        while True:
            frame = self.take_frame()
            if frame is None:
                chunk = self.recv(deadline, late)
                if not chunk:
                    check(not self.buffer, f"{self.name}: the connection closed in the middle of a frame")
                    raise Failure(f"{self.name}: the TCP connection ended without a WebSocket close frame")
                self.buffer += chunk
                continue
            fin, opcode, payload = frame
            if opcode == OP_PING:
                self.send_frame(OP_PONG, payload)
            elif opcode == OP_PONG:
                pass
            elif opcode == OP_CLOSE:
                check(message is None, f"{self.name}: a close frame in the middle of a fragmented message")
                self.closing_handshake(payload)
                return None
            elif opcode == OP_TEXT:
                check(message is None, f"{self.name}: a text frame before the previous message's last fragment")
                message = bytearray(payload)
            elif opcode == OP_CONTINUATION:
                check(message is not None, f"{self.name}: a continuation frame with no message to continue")
                message += payload
                check(len(message) <= MESSAGE_MAX, f"{self.name}: a message longer than server_line_max")
            else:
                raise Failure(f"{self.name}: a frame with opcode {opcode:#x}; the protocol is text messages only")
            if opcode in (OP_TEXT, OP_CONTINUATION) and fin:  # the last frame of the message (not a ping within it)
                check(b"\n" not in message,
                      f"{self.name}: a text message that is not exactly one line without its newline: "
                      f"{bytes(message[:200])!r}")
                return self.decode(bytes(message))

    def closing_handshake(self, payload):
        """The server's close frame has come: answer it with ours unless ours went first (echoing its code, section
        5.5.1), then read until the server ends the TCP connection, which the server does first (section 7.1.1)."""
        check(len(payload) != 1, f"{self.name}: a close frame with a one-byte payload")
        self.close_code = int.from_bytes(payload[:2], "big") if payload else None
        try:
            self.close_reason = payload[2:].decode("utf-8")
        except UnicodeDecodeError:
            raise Failure(f"{self.name}: a close frame whose reason is not UTF-8: {payload!r}")
        reason = f" {self.close_reason!r}" if self.close_reason else ""
        self.closed_how = f" (close frame {self.close_code}{reason})"
        if not self.sent_close:
            try:
                self.send_frame(OP_CLOSE, payload[:2])
            except OSError:
                pass  # the server may be gone already; its close frame was its last word either way
        deadline = time.monotonic() + TIMEOUT
        late = f"{self.name}: the server sent its close frame but kept the TCP connection open past {TIMEOUT} s"
        while True:
            chunk = self.recv(deadline, late)
            if not chunk:
                break
            self.buffer += chunk
        check(not self.buffer, f"{self.name}: bytes after the close frame: {bytes(self.buffer[:200])!r}")
        self.closed = True

    def expect_close(self, timeout=TIMEOUT):
        """As over TLS, and the close must be the clean one that follows a `bye`: code 1000 (normal closure)."""
        super().expect_close(timeout)
        check(self.close_code == 1000,
              f"{self.name}: the server closed with code {self.close_code!r} {self.close_reason!r}, expected 1000")

    def close(self):
        """Ends the connection; one the server has not closed gets our close frame (1000) first."""
        if not self.closed and not self.sent_close:
            try:
                self.send_frame(OP_CLOSE, (1000).to_bytes(2, "big"))
            except OSError:
                pass
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


def play(connect, token):
    """The worked session, with sessions opened by `connect(name)`; the server lines checked and the transport."""
    run = f"{os.getpid()}-{int(time.time() * 1000) % 100000}"
    alice_cid, bob_cid = f"py-alice-{run}", f"py-bob-{run}"
    card, missing = f"c3-{run}", f"nope-{run}"

    # A board left with a WIP limit on DOING by an interrupted run is cleared first, by a session of its own.
    setup = connect("setup")
    setup_session = hello(setup, token, f"py-setup-{run}", req=1)["session"]
    state, _ = subscribe(setup, "main", req=2)
    if "wip" in state["state"]["columns"][1]:
        setup.send({"type": "op", "board": "main", "mut": 1,
                    "op": {"kind": "column.wip", "column": state["state"]["columns"][1]["id"], "limit": None}})
        fields(setup.expect("ack"), board="main", mut=1)
        fields(setup.expect("delta"), board="main", mut=1)  # a subscriber, setup gets its own change too
    setup.send({"type": "bye", "reason": "client"})
    setup.expect_close()
    setup.close()

    # C: say hello. S: welcome, with the limits.
    alice = connect("alice")
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
    bob = connect("bob")
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
    return alice.lines + bob.lines, alice.transport


def main(argv):
    websocket = len(argv) == 4 and argv[1] == "--websocket"
    if not websocket and (len(argv) != 5 or argv[1].startswith("--")):
        print("\n".join(__doc__.strip().splitlines()[2:4]), file=sys.stderr)
        return 2
    try:
        if websocket:
            url, token = argv[2], argv[3]

            def connect(name):
                return WebSocketSession(name, url)
        else:
            host, port, token, fp_hex = argv[1], int(argv[2]), argv[3], pinned_hex(argv[4])

            def connect(name):
                return Session(name, host, port, fp_hex)
        lines, transport = play(connect, token)
    except Failure as failure:
        print(f"worked session FAILED: {failure}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as error:
        print(f"worked session FAILED: {type(error).__name__}: {error}", file=sys.stderr)
        return 1
    print(f"worked session ok: {lines} server lines checked over {transport}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

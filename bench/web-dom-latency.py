#!/usr/bin/env python3
"""How long a change takes to reach the DOM of real board pages, in headless Chromium (docs/web.md).

    python3 bench/web-dom-latency.py [--corkd PATH] [--pages 5] [--cards 500] [--moves 40] [--json] [--out FILE]

A benchmark, not a test: it reports numbers and fails (exit 1) only when something is plainly broken (corkd does not
start, the board is not filled, a page never shows the board, no move reaches any page).

What it does:

  1. starts its own corkd (`serve --port 0 --web-port 0 --rate 100000 --burst 100000`, so the filler is not rate
     limited) in a temporary data directory, as the user nobody through setpriv when run as root (as
     Tests/Web/board_e2e.py does);
  2. fills board `main` with --cards cards over one WebSocket on ws://127.0.0.1:WEBPORT/v1 speaking Protocol.md:
     `hello` with the owner's token, then `card.add` ops with mut 1..N (round-robin over the columns), sent in
     batches of 100 whose `ack`s are awaited; then checks the board with a `subscribe` (`presence: false`);
  3. measures the first-load bytes of the page: the bodies of GET /, /app.js, /style.css and /icon.svg (and, as a
     cross-check, what the first browser fetched according to its Resource Timing);
  4. opens --pages pages one after the other, each its own Chromium (its own browser session and profile) signed in
     as its own invited user (page1, page2, …; editors) on board main, and times, in the page, navigation start
     → the board rendered with all the cards (`[data-card-id]` count == --cards; a MutationObserver installed before
     the page's own script with Page.addScriptToEvaluateOnNewDocument);
  5. installs in every page (driver.execute_script) a MutationObserver that logs, with
     performance.timeOrigin + performance.now() (and Date.now()), each time a card element lands in another column;
  6. a separate writer (the invited user `writer`, its own /v1 WebSocket) sends --moves `card.move` ops, one every
     --interval seconds, each a different card (cards spread over the board; when --moves exceeds --cards they are
     reused), the target column cycling through the columns, placed alternately at the top (index 0) and at the
     bottom; time.time() is taken just before each send;
  7. reads the pages' logs back and reports, over all pages × moves, the latency op sent → card element inside
     `[data-column-id=TARGET]` (p50/p99/max, nearest rank), how many moves every page saw, per page, and the writer's
     own send → ack time for comparison.

The page's clock and time.time() are both this machine's wall clock. corkd and every browser are always stopped.
Needs selenium and websocket-client (pip install selenium websocket-client) and Debian's chromium and
chromium-driver. It does not build anything: build corkd first (swift build -c release --product corkd).
"""

import argparse
import base64
import datetime
import json
import math
import os
import platform
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Web"))
from unprivileged import Runner  # noqa: E402

try:
    import websocket  # websocket-client
    from selenium import webdriver
    from selenium.common.exceptions import WebDriverException
    from selenium.webdriver.chrome.service import Service
except ImportError as error:  # pragma: no cover
    sys.exit(f"web-dom-latency.py needs selenium and websocket-client (pip install selenium websocket-client): {error}")

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RELEASE_CORKD = os.path.join(REPO, ".build", "release", "corkd")
DEBUG_CORKD = os.path.join(REPO, ".build", "debug", "corkd")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ASSETS = ["/", "/app.js", "/style.css", "/icon.svg"]
FILL_BATCH = 100  # card.add ops sent before their acks are awaited
START_WAIT = 30.0  # corkd's banner
WS_WAIT = 15.0  # one WebSocket answer
LOAD_WAIT = 90.0  # a page from navigation to the whole board
SETTLE_WAIT = 15.0  # after the last move, for every page to show it
STARTED = time.monotonic()


class Broken(Exception):
    """Something is plainly broken: the run cannot measure what it is for."""


def log(text):
    print(f"[{time.monotonic() - STARTED:6.1f}s] {text}", file=sys.stderr, flush=True)


def wait_for(what, probe, timeout, interval=0.1):
    deadline = time.monotonic() + timeout
    last = None
    while True:
        try:
            last = probe()
        except WebDriverException as error:
            last = f"{type(error).__name__}: {error.msg}"
        else:
            if last:
                return last
        if time.monotonic() >= deadline:
            raise Broken(f"timed out after {timeout:.0f} s waiting for {what} (last seen: {last!r})")
        time.sleep(interval)


def percentile(sorted_values, q):
    """Nearest rank: the smallest value with at least q of the values at or below it."""
    if not sorted_values:
        return None
    return sorted_values[max(0, min(len(sorted_values) - 1, math.ceil(q * len(sorted_values)) - 1))]


def summary(values):
    xs = sorted(values)
    if not xs:
        return {"n": 0, "min": None, "p50": None, "p99": None, "max": None, "mean": None}
    return {"n": len(xs), "min": xs[0], "p50": percentile(xs, 0.5), "p99": percentile(xs, 0.99), "max": xs[-1],
            "mean": sum(xs) / len(xs)}


def tail(path, lines=15):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


# ---------------------------------------------------------------- corkd


class Corkd:
    def __init__(self, binary, work, runner):
        self.binary = binary
        self.work = work
        self.runner = runner
        self.data = os.path.join(work, "data")
        self.proc = None
        self.out = os.path.join(work, "corkd.out")
        self.err = os.path.join(work, "corkd.err")
        self.argv = [binary, "serve", "--data-dir", self.data, "--port", "0", "--web-port", "0",
                     "--rate", "100000", "--burst", "100000", "--log-level", "info"]

    def start(self):
        with open(self.out, "wb") as out, open(self.err, "wb") as err:
            self.proc = subprocess.Popen(self.runner.command(self.argv), stdout=out, stderr=err,
                                         stdin=subprocess.DEVNULL, start_new_session=True)

        def banner():
            if self.proc.poll() is not None:
                raise Broken(f"corkd exited with {self.proc.returncode} at start:\n{tail(self.err)}")
            text = open(self.out, encoding="utf-8", errors="replace").read()
            web = re.search(r"^web page on 127\.0\.0\.1:(\d+): (http://\S+)$", text, re.M)
            listening = re.search(r"^corkd listening on 127\.0\.0\.1:(\d+)$", text, re.M)
            owner = re.search(r"^owner in a browser: (http://\S+#token=\S+)$", text, re.M)
            return (web, listening, owner) if web and listening and owner else None

        web, listening, owner = wait_for("corkd's banner on its stdout", banner, START_WAIT)
        self.web_port = int(web.group(1))
        self.web_url = web.group(2)
        self.port = int(listening.group(1))
        fragment = urllib.parse.parse_qs(urllib.parse.urlsplit(owner.group(1)).fragment)
        self.owner_token = fragment["token"][0]

    def invite(self, user, role="editor"):
        argv = [self.binary, "invite", "--data-dir", self.data, "--user", user, "--role", role, "--board", "main",
                "--json"]
        result = subprocess.run(self.runner.command(argv), capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Broken(f"corkd invite --user {user} exited {result.returncode}: {result.stderr.strip()}")
        invite = json.loads(result.stdout.strip().splitlines()[-1])
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(invite["url"]).query)["token"][0]
        return invite["web_url"], token

    def stop(self):
        if not self.proc or self.proc.poll() is not None:
            return
        for sig, grace in ((signal.SIGTERM, 5), (signal.SIGKILL, 5)):
            try:
                os.killpg(self.proc.pid, sig)
            except ProcessLookupError:
                return
            try:
                self.proc.wait(timeout=grace)
                return
            except subprocess.TimeoutExpired:
                continue


# ---------------------------------------------------------------- the wire protocol over /v1


class Wire:
    """One Protocol.md session over ws://…/v1 (no Origin header: a program, which authenticates in hello)."""

    def __init__(self, url, token, client):
        self.ws = websocket.create_connection(url, timeout=WS_WAIT, suppress_origin=True)
        self.send({"type": "hello", "req": 1, "version": 1, "client": client, "token": token})
        welcome = self.recv_until(lambda m: m.get("type") in ("welcome", "error"))
        if welcome.get("type") != "welcome":
            raise Broken(f"hello over /v1 was answered {welcome}")
        self.welcome = welcome

    def send(self, message):
        self.ws.send(json.dumps(message, separators=(",", ":")))

    def recv(self):
        line = self.ws.recv()
        message = json.loads(line)
        if message.get("type") == "ping":
            pong = {"type": "pong"}
            if "req" in message:
                pong["req"] = message["req"]
            self.send(pong)
        return message

    def recv_until(self, done, timeout=WS_WAIT):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Broken(f"no awaited answer over /v1 within {timeout:.0f} s")
            self.ws.settimeout(left)
            try:
                message = self.recv()
            except websocket.WebSocketTimeoutException:
                continue
            if done(message):
                return message

    def close(self):
        try:
            self.send({"type": "bye", "reason": "client"})
        except Exception:  # noqa: BLE001
            pass
        try:
            self.ws.close(timeout=2)
        except Exception:  # noqa: BLE001
            pass


def fill(ws_url, token, cards):
    """Adds `cards` cards to board main (round-robin over its columns) and returns (seconds, snapshot state)."""
    wire = Wire(ws_url, token, "web-dom-latency-filler/1")
    try:
        wire.send({"type": "subscribe", "req": 2, "board": "main", "presence": False})
        snap = wire.recv_until(lambda m: m.get("type") in ("snapshot", "error"))
        if snap.get("type") != "snapshot":
            raise Broken(f"subscribe to main was answered {snap}")
        columns = [c["id"] for c in snap["state"]["columns"]]
        if not columns:
            raise Broken("board main has no columns")
        wire.send({"type": "unsubscribe", "req": 3, "board": "main"})
        wire.recv_until(lambda m: m.get("type") == "ok" and m.get("req") == 3)
        t0 = time.monotonic()
        mut = 0
        while mut < cards:
            batch = range(mut + 1, min(cards, mut + FILL_BATCH) + 1)
            for m in batch:
                wire.send({"type": "op", "board": "main", "mut": m,
                           "op": {"kind": "card.add", "card": f"bench-{m}", "column": columns[(m - 1) % len(columns)],
                                  "title": f"Benchmark card {m}"}})
            waiting = set(batch)
            while waiting:
                answer = wire.recv_until(lambda x: x.get("type") in ("ack", "reject", "error"))
                if answer.get("type") != "ack":
                    raise Broken(f"filling the board: {answer}")
                waiting.discard(answer.get("mut"))
            mut = batch[-1]
        seconds = time.monotonic() - t0
        wire.send({"type": "subscribe", "req": 4, "board": "main", "presence": False})
        snap = wire.recv_until(lambda m: m.get("type") in ("snapshot", "error"), timeout=60)
        if snap.get("type") != "snapshot":
            raise Broken(f"subscribe to main was answered {snap}")
        state = snap["state"]
        live = [c for c in state["cards"] if not c.get("archived")]
        if len(live) != cards:
            raise Broken(f"board main has {len(live)} cards after the fill, not {cards}")
        return seconds, state
    finally:
        wire.close()


class Writer:
    """The separate writer: sends card.move ops and collects their acks on a reader thread."""

    def __init__(self, ws_url, token):
        self.wire = Wire(ws_url, token, "web-dom-latency-writer/1")
        self.wire.ws.settimeout(None)
        self.answers = {}  # mut -> (type, time.time() when read, message)
        self.lock = threading.Lock()
        self.thread = threading.Thread(target=self.read, daemon=True)
        self.thread.start()

    def read(self):
        while True:
            try:
                message = self.wire.recv()
            except Exception:  # noqa: BLE001 (closed)
                return
            if message.get("type") in ("ack", "reject") and "mut" in message:
                with self.lock:
                    self.answers.setdefault(message["mut"], (message["type"], time.time(), message))

    def move(self, mut, card, to_column, top):
        op = {"kind": "card.move", "card": card, "to_column": to_column}
        if top:
            op["index"] = 0
        line = json.dumps({"type": "op", "board": "main", "mut": mut, "op": op}, separators=(",", ":"))
        sent = time.time()
        self.wire.ws.send(line)
        return sent

    def close(self):
        self.wire.close()


# ---------------------------------------------------------------- the pages

LOAD_PROBE = """
(() => {
  const want = %d;
  const seen = () => {
    if (window.__benchLoaded) return true;
    const n = document.querySelectorAll('[data-card-id]').length;
    if (n !== want) return false;
    const now = performance.now();
    window.__benchLoaded = {ms: now, at: performance.timeOrigin + now, date: Date.now(), n};
    return true;
  };
  const obs = new MutationObserver(() => { if (seen()) obs.disconnect(); });
  obs.observe(document, {childList: true, subtree: true});
})();
"""

MOVE_PROBE = """
const board = document.getElementById('board') || document.body;
const log = window.__benchMoves = [];
const where = new Map();
for (const el of document.querySelectorAll('[data-card-id]')) {
  const col = el.closest('[data-column-id]');
  where.set(el.dataset.cardId, col ? col.dataset.columnId : null);
}
const obs = new MutationObserver((records) => {
  const now = performance.now(), at = performance.timeOrigin + now, date = Date.now();
  const cards = new Set();
  for (const r of records) for (const n of r.addedNodes) {
    if (n.nodeType !== 1) continue;
    if (n.dataset.cardId) cards.add(n);
    for (const e of n.querySelectorAll('[data-card-id]')) cards.add(e);
  }
  for (const el of cards) {
    if (!el.isConnected) continue;
    const col = el.closest('[data-column-id]');
    const c = col ? col.dataset.columnId : null;
    const id = el.dataset.cardId;
    if (where.get(id) !== c) { where.set(id, c); if (c) log.push([id, c, at, date]); }
  }
});
obs.observe(board, {childList: true, subtree: true});
window.__benchMoveObserver = obs;
return where.size;
"""

NAV_TIMING = """
const nav = performance.getEntriesByType('navigation')[0];
const res = performance.getEntriesByType('resource').map((e) => ({name: e.name, transfer: e.transferSize,
  encoded: e.encodedBodySize, decoded: e.decodedBodySize}));
return {nav: nav ? {name: nav.name, transfer: nav.transferSize, encoded: nav.encodedBodySize,
  decoded: nav.decodedBodySize, dcl: nav.domContentLoadedEventEnd, load: nav.loadEventEnd} : null, res,
  origin: performance.timeOrigin};
"""


class Page:
    """One user's own Chromium (its own browser session and profile) on the board page."""

    def __init__(self, name, url, cards, work):
        self.name = name
        self.url = url
        self.cards = cards
        self.pids = []
        self.profile = os.path.join(work, "chromium-" + name)
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                    "--window-size=1280,800", "--no-first-run", "--disable-extensions", "--lang=en-US",
                    f"--user-data-dir={self.profile}"):
            options.add_argument(arg)
        self.service = Service(CHROMEDRIVER)
        self.driver = webdriver.Chrome(options=options, service=self.service)
        self.remember_pids()
        self.driver.set_page_load_timeout(60)
        self.driver.set_script_timeout(30)

    def remember_pids(self):
        """chromedriver and every process under it (the browser's), to kill by pid if quit leaves any."""
        try:
            root = self.service.process.pid
        except AttributeError:
            return
        pids, frontier = {root}, [root]
        children = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                children.setdefault(ppid, []).append(int(entry))
        while frontier:
            for child in children.get(frontier.pop(), []):
                if child not in pids:
                    pids.add(child)
                    frontier.append(child)
        self.pids = sorted(pids)

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def load(self):
        """Navigates and waits for the whole board; returns the page's own timings."""
        self.driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": LOAD_PROBE % self.cards})
        before = time.time()
        self.driver.get(self.url)
        loaded = wait_for(f"{self.name}'s page to show board main with {self.cards} cards",
                          lambda: self.js("return window.__benchLoaded || null"), LOAD_WAIT)
        after = time.time()
        wait_for(f"{self.name}'s page to be signed in on board main and say live", lambda: self.js(
            "const b = document.querySelector('[data-board-id]');"
            "return !document.getElementById('app').hidden && b && b.dataset.boardId === 'main' && "
            "(document.getElementById('conn').textContent || '').includes('live')"), 30)
        self.remember_pids()
        timing = self.js(NAV_TIMING)
        if "token=" in self.driver.current_url:
            raise Broken(f"{self.name}'s address bar still has the token")
        return {
            "render_ms": loaded["ms"],  # performance.now() at render: from this document's navigation start
            "from_get_ms": (loaded["at"] - before * 1000.0),  # from just before driver.get (wall clock)
            "origin_after_get_ms": timing["origin"] - before * 1000.0,
            "poll_ms": (after - before) * 1000.0,
            "dcl_ms": timing["nav"]["dcl"] if timing["nav"] else None,
            "load_ms": timing["nav"]["load"] if timing["nav"] else None,
            "cards": loaded["n"],
            "timing": timing,
        }

    def install_move_probe(self):
        n = self.js(MOVE_PROBE)
        if n != self.cards:
            raise Broken(f"{self.name}'s page has {n} card elements, not {self.cards}")

    def moves_log(self):
        return self.js("return window.__benchMoves || []")

    def quit(self):
        try:
            self.driver.quit()
        except Exception:  # noqa: BLE001 (the browser may be gone already)
            pass
        # whatever quit left behind, by pid: the processes seen under chromedriver, and any process (crashpad's
        # handler leaves the tree) whose command line names this page's own profile directory
        deadline = time.monotonic() + 3
        while True:
            left = [pid for pid in set(self.pids) | set(self.profile_pids()) if alive(pid)]
            if not left or time.monotonic() >= deadline:
                break
            time.sleep(0.1)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def profile_pids(self):
        path = self.profile.encode()
        pids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                if any(a == path or a.endswith(b"=" + path) or path + b"/" in a for a in argv):
                    pids.append(int(entry))
        return pids


def alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8", errors="replace") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


# ---------------------------------------------------------------- the run


def plan_moves(state, moves):
    """[(card, from column, to column, top)]: a different card each time (spread over the board), the target
    column cycling, placed alternately at the top and the bottom."""
    columns = [c["id"] for c in state["columns"]]
    if len(columns) < 2:
        raise Broken("the board needs two columns to move cards between")
    where = {c["id"]: c["column"] for c in state["cards"] if not c.get("archived")}
    by_column = {col: [c["id"] for c in state["cards"] if not c.get("archived") and c["column"] == col] for col in columns}
    used = set()
    plan = []
    for k in range(moves):
        target = columns[(k + 1) % len(columns)]
        source = columns[k % len(columns)]
        pool = [c for c in by_column[source] if c not in used] or [c for c in where if where[c] != target]
        if not pool:
            used.clear()
            pool = [c for c in where if where[c] != target]
        # spread the picks over the column (golden-ratio steps), so cards near the top, middle and bottom all come up
        card = pool[int(((k // len(columns)) * 0.6180339887 + 0.1) % 1.0 * len(pool))]
        used.add(card)
        plan.append((card, where[card], target, k % 2 == 0))
        by_column[where[card]].remove(card)
        by_column[target].append(card)
        where[card] = target
    return plan


def first_load_bytes(web_url):
    sizes = {}
    for path in ASSETS:
        request = urllib.request.Request(urllib.parse.urljoin(web_url, path), headers={"Accept-Encoding": "identity"})
        with urllib.request.urlopen(request, timeout=10) as response:
            body = response.read()
            if response.status != 200:
                raise Broken(f"GET {path} answered {response.status}")
            sizes[path] = len(body)
    return sizes


def browser_bytes(timing, web_url):
    """What the browser fetched of the four assets, from its Resource Timing (first entry of each)."""
    out = {}
    nav = timing.get("nav")
    if nav:
        out["/"] = {"transfer": nav["transfer"], "encoded": nav["encoded"], "decoded": nav["decoded"]}
    for e in timing.get("res", []):
        path = urllib.parse.urlsplit(e["name"]).path
        if path in ASSETS and path not in out and e["name"].startswith(web_url.rstrip("/")):
            out[path] = {"transfer": e["transfer"], "encoded": e["encoded"], "decoded": e["decoded"]}
    return out


def busy_processes(seconds=1.0, threshold=10.0):
    """Processes using more than `threshold` % of a CPU over `seconds` (other load skews the numbers)."""
    def sample():
        out = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat", encoding="utf-8", errors="replace") as f:
                        head, rest = f.read().rsplit(")", 1)
                    fields = rest.split()
                    out[int(entry)] = (head.split("(", 1)[1], int(fields[11]) + int(fields[12]))
                except (OSError, ValueError, IndexError):
                    continue
        return out

    ticks = os.sysconf("SC_CLK_TCK")
    a = sample()
    time.sleep(seconds)
    b = sample()
    busy = []
    for pid, (name, t) in b.items():
        if pid in a and a[pid][0] == name:
            pct = (t - a[pid][1]) / ticks / seconds * 100.0
            if pct >= threshold:
                busy.append(f"{name}[{pid}] {pct:.0f}%")
    return busy


def version_of(argv):
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10).stdout.strip()
    except Exception:  # noqa: BLE001
        return "?"


def run(args, result):
    runner = Runner()
    work = tempfile.mkdtemp(prefix="cork-web-dom-latency-")
    os.chmod(work, 0o755)
    runner.hand_over(work)
    corkd = Corkd(args.corkd, work, runner)
    pages = []
    writer = None
    result["corkd"]["argv"] = " ".join(shlex.quote(a) for a in ["corkd"] + corkd.argv[1:])
    result["corkd"]["as"] = "nobody (setpriv)" if runner.active else "this user"
    try:
        corkd.start()
        log(f"corkd on :{corkd.port}, web {corkd.web_url}")
        ws_url = f"ws://127.0.0.1:{corkd.web_port}/v1"

        # the board
        seconds, state = fill(ws_url, corkd.owner_token, args.cards)
        columns = [c["id"] for c in state["columns"]]
        result["board"] = {"id": "main", "columns": columns, "cards": args.cards, "fill_s": seconds, "seq": state["seq"],
                           "per_column": {col: sum(1 for c in state["cards"] if c["column"] == col) for col in columns}}
        log(f"filled main with {args.cards} cards in {seconds:.2f} s over /v1 (columns {', '.join(columns)})")

        # the page's first-load bytes
        sizes = first_load_bytes(corkd.web_url)
        result["first_load"] = {"bodies": sizes, "total": sum(sizes.values())}

        # the pages, one after the other
        invites = [corkd.invite(f"page{i + 1}") for i in range(args.pages)]
        _, writer_token = corkd.invite("writer")
        for i, (web_url, _) in enumerate(invites):
            name = f"page{i + 1}"
            page = Page(name, web_url, args.cards, work)
            pages.append(page)
            timing = page.load()
            entry = {k: v for k, v in timing.items() if k != "timing"}
            entry["page"] = name
            result["pages"].append(entry)
            if i == 0:
                result["first_load"]["browser"] = browser_bytes(timing["timing"], corkd.web_url)
            log(f"{name}: board with {args.cards} cards rendered {timing['render_ms']:.0f} ms after navigation start")
        for page in pages:
            page.install_move_probe()

        # the moves
        plan = plan_moves(state, args.moves)
        writer = Writer(ws_url, writer_token)
        time.sleep(1.0)  # let the pages go quiet (the writer's arrival, presence)
        sent = []
        t0 = time.monotonic() + 0.1
        for k, (card, _, target, top) in enumerate(plan):
            delay = t0 + k * args.interval - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            sent.append(writer.move(k + 1, card, target, top))
        log(f"sent {len(plan)} moves; waiting for the pages")

        def collect():
            return [page.moves_log() for page in pages]

        def match(logs):
            """latency[page][move] in ms, or None when the page has not shown it."""
            out = []
            for events in logs:
                row = []
                for k, (card, _, target, _) in enumerate(plan):
                    # the move's own event: the first landing of the card in the target after the card's
                    # previous move was sent (cards are only reused when --moves > --cards)
                    since = max([sent[j] for j in range(k) if plan[j][0] == card], default=0.0) * 1000.0
                    hit = next((e for e in events if e[0] == card and e[1] == target and e[2] > since), None)
                    row.append(None if hit is None else (hit[2] - sent[k] * 1000.0, hit[3] - hit[2]))
                out.append(row)
            return out

        deadline = time.monotonic() + SETTLE_WAIT
        while True:
            matched = match(collect())
            if all(x is not None for row in matched for x in row) or time.monotonic() >= deadline:
                break
            time.sleep(0.25)
        acks = dict(writer.answers)
        writer.close()
        writer = None

        lat = []
        clock_skew = []
        per_page = []
        for page, row in zip(pages, matched):
            xs = [x[0] for x in row if x is not None]
            clock_skew += [abs(x[1]) for x in row if x is not None]
            per_page.append({"page": page.name, "seen": len(xs), **summary(xs)})
            lat += xs
        every = sum(1 for k in range(len(plan)) if all(row[k] is not None for row in matched))
        ack_ms, rejects = [], []
        for k in range(len(plan)):
            a = acks.get(k + 1)
            if a and a[0] == "ack":
                ack_ms.append((a[1] - sent[k]) * 1000.0)
            elif a:
                rejects.append(a[2])
        result["moves"] = {
            "planned": len(plan), "interval_s": args.interval, "writer": "writer",
            "latency_ms": summary(lat), "samples": len(lat), "expected_samples": len(plan) * len(pages),
            "seen_by_every_page": every, "per_page": per_page,
            "ack_ms": summary(ack_ms), "acks": len(ack_ms), "rejects": rejects[:5], "reject_count": len(rejects),
            "max_abs_date_now_minus_hires_ms": max(clock_skew) if clock_skew else None,
            "detail": [{"move": k + 1, "card": card, "from": src, "to": target, "placement": "top" if top else "bottom",
                        "sent": sent[k], "ack_ms": (acks[k + 1][1] - sent[k]) * 1000.0 if acks.get(k + 1) else None,
                        "pages_ms": [None if row[k] is None else round(row[k][0], 3) for row in matched]}
                       for k, (card, src, target, top) in enumerate(plan)],
        }
        if not lat:
            raise Broken("no move reached any page")
    finally:
        if writer:
            writer.close()
        for page in pages:
            page.quit()
        corkd.stop()
        if args.keep:
            log(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def fmt(x, digits=1):
    return "n/a" if x is None else f"{x:.{digits}f}"


def text_report(r):
    lines = []
    add = lines.append
    add("web-dom-latency: op sent over /v1 -> change in the DOM of real headless Chromium board pages")
    add(f"command: {r['command']}")
    add(f"date: {r['date']}")
    h = r["host"]
    add(f"host: {h['cpus']} CPUs, load average {h['loadavg_start']} at start, {h.get('loadavg_end', '?')} at end; "
        f"{h['chromium']}; {h['chromedriver']}")
    add(f"other processes over 10% CPU at start: {', '.join(h['busy_at_start']) or 'none'}")
    add(f"corkd: {r['corkd']['binary']} (modified {r['corkd']['mtime']}), run as {r['corkd']['as']}:")
    add(f"  {r['corkd']['argv']}")
    if r.get("error"):
        add(f"BROKEN: {r['error']}")
    b = r.get("board")
    if b:
        cols = ", ".join(f"{c} ({b['per_column'][c]})" for c in b["columns"])
        add(f"board: main, columns {cols}: {b['cards']} cards "
            f"added over ws://127.0.0.1:WEBPORT/v1 (owner's token, card.add mut 1..{b['cards']}, acks awaited per "
            f"{FILL_BATCH}) in {b['fill_s']:.2f} s")
    fl = r.get("first_load")
    if fl:
        add("")
        add(f"first-load bytes (bodies of GET {', '.join(ASSETS)}): {fl['total']:,} bytes")
        for path in ASSETS:
            add(f"  {path:<11} {fl['bodies'][path]:>8,}")
        if fl.get("browser"):
            br = fl["browser"]
            add(f"  as page1's browser fetched them (Resource Timing): bodies {sum(v['encoded'] for v in br.values()):,} "
                f"bytes, transferred with headers {sum(v['transfer'] for v in br.values()):,} bytes "
                f"({', '.join(p for p in ASSETS if p in br)})")
    if r["pages"]:
        add("")
        add(f"navigation -> board rendered with {r['args']['cards']} cards ([data-card-id] count == {r['args']['cards']}), "
            f"each page a fresh Chromium, loaded one after the other:")
        add(f"  {'page':<7} {'in page (ms)':>13} {'from driver.get (ms)':>21} {'DOMContentLoaded':>17} {'load':>8}")
        for p in r["pages"]:
            add(f"  {p['page']:<7} {fmt(p['render_ms']):>13} {fmt(p['from_get_ms']):>21} {fmt(p['dcl_ms']):>17} "
                f"{fmt(p['load_ms']):>8}")
        rs = summary([p["render_ms"] for p in r["pages"]])
        add(f"  in page: min {fmt(rs['min'])}  p50 {fmt(rs['p50'])}  max {fmt(rs['max'])} ms (from the document's "
            f"navigation start, performance.now() when the MutationObserver saw the count)")
    m = r.get("moves")
    if m:
        lm = m["latency_ms"]
        add("")
        add(f"op sent -> moved card inside [data-column-id=TARGET] in the page's DOM ({m['planned']} card.move by the "
            f"user writer over its own /v1 WebSocket, one every {m['interval_s'] * 1000:.0f} ms, a different card "
            f"each, target column cycling, top/bottom alternately):")
        add(f"  samples {m['samples']}/{m['expected_samples']} (pages x moves); moves seen by every page: "
            f"{m['seen_by_every_page']}/{m['planned']}")
        add(f"  p50 {fmt(lm['p50'])} ms   p99 {fmt(lm['p99'])} ms   max {fmt(lm['max'])} ms   "
            f"(min {fmt(lm['min'])}, mean {fmt(lm['mean'])})")
        for p in m["per_page"]:
            add(f"  {p['page']:<7} seen {p['seen']:>3}/{m['planned']}  p50 {fmt(p['p50']):>6}  p99 {fmt(p['p99']):>6}  "
                f"max {fmt(p['max']):>6} ms")
        am = m["ack_ms"]
        add(f"  for comparison, the writer's send -> ack read: p50 {fmt(am['p50'])}  p99 {fmt(am['p99'])}  "
            f"max {fmt(am['max'])} ms ({m['acks']} acks, {m['reject_count']} rejects)")
        add(f"  clocks: time.time() before the send, performance.timeOrigin + performance.now() in the observer; "
            f"max |Date.now() - that| = {fmt(m['max_abs_date_now_minus_hires_ms'], 2)} ms")
        if m["rejects"]:
            add(f"  rejects: {m['rejects']}")
        add("  per move (ms to each page, page1..):")
        for d in m["detail"]:
            pm = " ".join(f"{x:7.1f}" if x is not None else "      -" for x in d["pages_ms"])
            add(f"    {d['move']:>3} {d['card']:<10} {d['from']:>5} -> {d['to']:<5} {d['placement']:<6} "
                f"ack {fmt(d['ack_ms']):>6}   {pm}")
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    default_corkd = RELEASE_CORKD if os.path.exists(RELEASE_CORKD) else DEBUG_CORKD
    parser.add_argument("--corkd", default=default_corkd, help=f"the corkd binary (default: {default_corkd})")
    parser.add_argument("--pages", type=int, default=5, help="browser pages, each its own Chromium and user (5)")
    parser.add_argument("--cards", type=int, default=500, help="cards on board main (500)")
    parser.add_argument("--moves", type=int, default=40, help="card.move ops the writer sends (40)")
    parser.add_argument("--interval", type=float, default=0.25, help="seconds between two moves (0.25)")
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    parser.add_argument("--out", help="also write the output to this file")
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory (corkd's logs and data)")
    args = parser.parse_args()
    args.corkd = os.path.abspath(args.corkd)
    if args.pages < 1 or args.cards < 2 or args.moves < 1 or args.interval < 0:
        parser.error("--pages, --moves >= 1, --cards >= 2, --interval >= 0")
    if not os.access(args.corkd, os.X_OK):
        parser.error(f"{args.corkd} is not an executable (build it: swift build -c release --product corkd)")

    def on_signal(signum, _frame):
        raise SystemExit(f"stopped by signal {signum}")

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    mtime = datetime.datetime.fromtimestamp(os.path.getmtime(args.corkd)).astimezone()
    result = {
        "benchmark": "web-dom-latency",
        "command": " ".join(shlex.quote(a) for a in [os.path.basename(sys.executable), *sys.argv]),
        "cwd": os.getcwd(),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "args": {"corkd": args.corkd, "pages": args.pages, "cards": args.cards, "moves": args.moves,
                 "interval": args.interval},
        "host": {"cpus": os.cpu_count(), "loadavg_start": " ".join(f"{x:.2f}" for x in os.getloadavg()),
                 "platform": platform.platform(), "chromium": version_of([CHROMIUM, "--version"]),
                 "chromedriver": version_of([CHROMEDRIVER, "--version"]).split(" (")[0]},
        "corkd": {"binary": args.corkd, "mtime": mtime.isoformat(timespec="seconds")},
        "pages": [],
    }
    result["host"]["busy_at_start"] = busy_processes()
    status = 0
    try:
        run(args, result)
    except (Broken, Exception) as error:  # noqa: B014
        result["error"] = str(error) if isinstance(error, Broken) else f"{type(error).__name__}: {error}"
        print(f"BROKEN: {result['error']}", file=sys.stderr, flush=True)
        if not isinstance(error, Broken):
            import traceback

            traceback.print_exc()
        status = 1
    result["host"]["loadavg_end"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    output = (json.dumps(result) + "\n") if args.json else text_report(result)
    sys.stdout.write(output)
    sys.stdout.flush()
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(output)
    return status


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Resident memory of corkd per idle connection (issues 12 and 14).

Starts the release corkd on a fresh data dir (127.0.0.1, a free port), opens N TLS connections that each say
`hello`, subscribe to the board `main` (without presence) and then only answer `ping`, and prints corkd's RSS at
rest, with the N connections held (2 s and 14 s after the last one opened, so that the 10 s trim has run), and 16 s
after they all closed. Usage, from the project root after `swift build -c release --product corkd`:

    python3 bench/idle-connections.py 10000
    python3 bench/idle-connections.py 10000 --hold 1800    # RELIABILITY.md R2: held for 30 minutes
    python3 bench/idle-connections.py 5000 --rounds 4      # open, hold and close 5,000 four times over

With `--rounds N` the connections are opened, held and closed N times over (memory must come back each time).
With `--warmup N` it first opens and closes N connections and measures from the memory after that, a server that has
served (its code paged in, its threads started), as well as from the cold start.

With `--hold SECONDS` the connections are held that long (RSS printed every minute) while one active client sends a
`chat` op every 100 ms and measures its ack latency; the same client measures 10 s before the idle connections
open, so the two p99s compare. At the end it prints how many idle connections the server dropped (R2: none).

Needs `ulimit -n` above N (each side holds N sockets). Extra environment for corkd: `--env NAME=VALUE`.
"""
import argparse, asyncio, json, os, shutil, ssl, subprocess, sys, tempfile, time


# When RSS is read after the connections close, in seconds (`--settle 16,60,120`); the first is the figure we report.
SETTLE = [16]


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def dump_smaps(pid, name):
    """With CORK_SMAPS_DIR set, copies /proc/PID/smaps there as NAME (to diff mappings between two moments)."""
    directory = os.environ.get("CORK_SMAPS_DIR")
    if directory:
        shutil.copyfile(f"/proc/{pid}/smaps", os.path.join(directory, name))


def rss_parts(pid):
    """`anon A, file F`: the heap and stacks, and the mapped files (code) that are resident, in KiB."""
    parts = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("RssAnon:", "RssFile:")):
                parts[line.split(":")[0]] = int(line.split()[1])
    return f"anon {parts.get('RssAnon', 0)}, file {parts.get('RssFile', 0)}"


async def connect(port, token, i, ctx, held, pingers):
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=ctx)
    writer.write((json.dumps({"type": "hello", "version": 1, "client": "idle", "client_id": f"idle-{i}",
                              "token": token}) + "\n").encode())
    await writer.drain()
    while json.loads(await reader.readline())["type"] != "welcome":
        pass
    writer.write(b'{"type":"subscribe","board":"main","presence":false}\n')
    await writer.drain()
    while json.loads(await reader.readline())["type"] != "subscribed":
        pass
    held.append(writer)
    pingers.append(asyncio.create_task(answer_pings(reader, writer)))


async def answer_pings(reader, writer):
    """Idle, but alive: the heartbeat closes a connection silent for 2 × heartbeat_ms."""
    try:
        while line := await reader.readline():
            if b'"ping"' in line:
                writer.write(b'{"type":"pong"}\n')
                await writer.drain()
    except (OSError, ConnectionError, asyncio.CancelledError):
        pass


async def active_client(port, token, ctx, seconds):
    """Ack latencies (ms) of one client sending a chat op every 100 ms for `seconds` to the board `active`."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=ctx)
    writer.write((json.dumps({"type": "hello", "version": 1, "client": "active", "client_id": f"active-{time.time_ns()}",
                              "token": token}) + "\n").encode())
    await writer.drain()
    while json.loads(await reader.readline())["type"] != "welcome":
        pass
    # A board of its own: ops on `main` would fan out to every idle connection, which would then not be idle.
    writer.write(b'{"type":"board.create","req":1,"board":"active","name":"Active"}\n')
    await writer.drain()
    while json.loads(await reader.readline()).get("req") != 1:
        pass
    latencies, mut, end = [], int(time.time() * 1000), time.monotonic() + seconds
    try:
        while time.monotonic() < end:
            mut += 1
            started = time.monotonic()
            writer.write((json.dumps({"type": "op", "board": "active", "mut": mut, "op": {"kind": "chat", "text": "a"}})
                          + "\n").encode())
            await writer.drain()
            while True:
                msg = json.loads(await asyncio.wait_for(reader.readline(), 10))
                if msg.get("type") == "ping":
                    writer.write(b'{"type":"pong"}\n')
                elif msg.get("type") in ("ack", "reject") and msg.get("mut") == mut:
                    break
            latencies.append((time.monotonic() - started) * 1000)
            await asyncio.sleep(max(0.0, 0.1 - (time.monotonic() - started)))
    finally:
        writer.close()
    return latencies


def percentiles(values):
    values = sorted(values)
    pick = lambda q: values[min(len(values) - 1, int(len(values) * q))] if values else float("nan")
    return f"p50 {pick(0.5):.2f} ms, p99 {pick(0.99):.2f} ms over {len(values)} acks"


async def measure(port, token, pid, count, hold, rounds, warmup=0):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # loopback measurement only; clients pin the fingerprint
    base = rss_kib(pid)
    print(f"at rest: {base} KiB ({rss_parts(pid)})", flush=True)
    dump_smaps(pid, "rest")
    if warmup:
        # A server that has served: its code paged in, its threads started, its caches made. The figures after
        # closing then compare with this too.
        close_all(*await open_many(port, token, ctx, warmup, first_id=1_000_000))
        await asyncio.sleep(16)
        warm = rss_kib(pid)
        print(f"at rest after {warmup} connections opened and closed (warm): {warm} KiB "
              f"({100 * (warm - base) / base:+.0f} % of at rest; {rss_parts(pid)})", flush=True)
        base = warm
    for round in range(rounds):
        if rounds > 1:
            print(f"round {round + 1} of {rounds}", flush=True)
        await hold_round(port, token, pid, count, hold, ctx, base, warm=bool(warmup))


async def open_many(port, token, ctx, count, first_id=0):
    """`count` idle connections, opened 50 at a time: their writers and their ping-answering tasks."""
    held, pingers = [], []
    for start in range(0, count, 50):
        await asyncio.gather(*[connect(port, token, first_id + i, ctx, held, pingers)
                               for i in range(start, min(count, start + 50))])
    return held, pingers


def close_all(held, pingers):
    for task in pingers:
        task.cancel()
    for writer in held:
        writer.close()


async def hold_round(port, token, pid, count, hold, ctx, base, warm=False):
    if hold:
        print(f"active client alone: {percentiles(await active_client(port, token, ctx, 10))}", flush=True)
    opened = time.monotonic()
    held, pingers = await open_many(port, token, ctx, count)
    if hold:
        print(f"{len(held)} opened in {time.monotonic() - opened:.0f} s", flush=True)
    for wait in (2, 12):
        await asyncio.sleep(wait)
        now = rss_kib(pid)
        print(f"{len(held)} held, +{wait if wait == 2 else 14} s: {now} KiB, {(now - base) / len(held):.1f} KiB each",
              flush=True)
    if hold:
        active = asyncio.create_task(active_client(port, token, ctx, hold))
        while not active.done():
            await asyncio.wait([active], timeout=60)
            now = rss_kib(pid)
            alive = sum(not task.done() for task in pingers)
            print(f"{alive} held, +{time.monotonic() - opened:.0f} s: {now} KiB, {(now - base) / max(1, alive):.1f} "
                  f"KiB each", flush=True)
        print(f"active client beside them: {percentiles(active.result())}", flush=True)
        dropped = sum(task.done() for task in pingers)
        print(f"idle connections the server dropped while held: {dropped} of {len(held)}", flush=True)
    close_all(held, pingers)
    waited = 0
    for moment in SETTLE:
        await asyncio.sleep(moment - waited)
        waited = moment
        after = rss_kib(pid)
        dump_smaps(pid, "after" if moment == SETTLE[0] else f"after-{moment}")
        print(f"{moment} s after closing: {after} KiB ({100 * (after - base) / base:+.0f} % of at rest"
              f"{' (warm)' if warm else ''}; {rss_parts(pid)})", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int)
    parser.add_argument("--corkd", default=".build/release/corkd")
    parser.add_argument("--env", action="append", default=[])
    parser.add_argument("--hold", type=int, default=0, help="hold the connections this many seconds beside an "
                                                              "active client (RELIABILITY.md R2)")
    parser.add_argument("--rounds", type=int, default=1, help="open, hold and close the connections this many times")
    parser.add_argument("--warmup", type=int, default=0, help="first open and close this many connections, and "
                                                               "compare with the memory after that (warm) too")
    parser.add_argument("--settle", default="16", help="seconds after closing at which to read RSS, comma-separated "
                                                          "(default 16; the 10 s trim has run by then)")
    args = parser.parse_args()
    SETTLE[:] = sorted(int(x) for x in args.settle.split(","))
    data = tempfile.mkdtemp(prefix="corkd-idle-")
    env = dict(os.environ, **dict(e.split("=", 1) for e in args.env))
    corkd = subprocess.Popen([args.corkd, "serve", "--data-dir", data, "--host", "127.0.0.1", "--port", "0",
                              "--connections-per-user", str(args.count + 10), "--log-level", "warning"],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        owner = os.path.join(data, "owner.url")
        deadline = time.monotonic() + 30
        while not (os.path.exists(owner) and os.path.getsize(owner) > 0):
            if time.monotonic() > deadline or corkd.poll() is not None:
                sys.exit("corkd did not start")
            time.sleep(0.1)
        time.sleep(1)
        url = open(owner).read().strip()
        token = url.split("token=")[1].split("&")[0] if "token=" in url else url.split("#")[-1]
        port = json.load(open(os.path.join(data, "listen.json")))["port"]
        asyncio.run(measure(port, token, corkd.pid, args.count, args.hold, args.rounds, args.warmup))
    finally:
        corkd.terminate()
        corkd.wait(20)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""How long N people take to join one board (issue 12: a 1,000-person join in at most 2 s).

Starts the release corkd on a fresh data dir (127.0.0.1, a free port), invites N users to the board `main` (each a
user of its own, as people are), then opens N TLS connections, 50 handshakes at a time, each saying `hello` and
`subscribe` with presence on, as `cork` does. Printed: the wall time from the first connection to the last
`subscribed`, the time until the last presence line has reached every client (the join is over for everyone), the
presence lines the clients received in all, and corkd's CPU time over the join (from /proc). The clients are Python
asyncio in one process, so their own TLS handshakes are part of the wall time; the CPU figure is corkd's alone.

    swift build -c release --product corkd && python3 bench/join-at-scale.py 1000

Needs `ulimit -n` above N.
"""
import argparse, asyncio, json, os, resource, shutil, ssl, subprocess, sys, tempfile, time


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def join(port, token, i, ctx, handshakes, state, presence):
    async with handshakes:
        reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=ctx, limit=1 << 24)
        writer.write((json.dumps({"type": "hello", "version": 1, "client": "join-bench", "client_id": f"join-{i}",
                                  "token": token}) + "\n").encode())
        await writer.drain()
        while json.loads(await reader.readline())["type"] != "welcome":
            pass
    writer.write(b'{"type":"subscribe","board":"main","presence":%s}\n' % (b"true" if presence else b"false"))
    await writer.drain()
    while True:
        msg = json.loads(await reader.readline())
        if msg.get("type") == "subscribed":
            state["subscribed"] = time.monotonic()
            break
    state["writers"].append(writer)
    # Presence lines keep coming while the others join; the last one received by anyone ends the join.
    try:
        while line := await reader.readline():
            if b'"presence' in line:
                state["presence_lines"] += 1
                state["last_presence"] = time.monotonic()
            elif b'"ping"' in line:
                writer.write(b'{"type":"pong"}\n')
    except (OSError, ConnectionError, asyncio.CancelledError):
        pass


async def measure(port, tokens, pid, presence):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE  # loopback measurement only; clients pin the fingerprint
    state = {"subscribed": 0.0, "last_presence": 0.0, "presence_lines": 0, "writers": []}
    handshakes = asyncio.Semaphore(50)
    cpu_before = cpu_seconds(pid)
    started = time.monotonic()
    readers = [asyncio.create_task(join(port, token, i, ctx, handshakes, state, presence)) for i, token in enumerate(tokens)]
    while len(state["writers"]) < len(tokens):
        if any(task.done() and task.exception() for task in readers):
            sys.exit(f"a client failed: {next(t.exception() for t in readers if t.done() and t.exception())}")
        await asyncio.sleep(0.05)
    # Quiet for a second: no presence line anywhere.
    while time.monotonic() - max(state["last_presence"], state["subscribed"]) < 1.0:
        await asyncio.sleep(0.1)
    cpu = cpu_seconds(pid) - cpu_before
    n = len(tokens)
    print(f"{n} joined: last subscribed after {state['subscribed'] - started:.2f} s, last presence line after "
          f"{max(state['last_presence'], state['subscribed']) - started:.2f} s; {state['presence_lines']} presence "
          f"lines received ({state['presence_lines'] / n:.1f} per client); corkd CPU {cpu:.2f} s "
          f"({1000 * cpu / n:.2f} ms per join)", flush=True)
    for task in readers:
        task.cancel()
    for writer in state["writers"]:
        writer.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("count", type=int)
    parser.add_argument("--corkd", default=".build/release/corkd")
    parser.add_argument("--no-presence", action="store_true", help="subscribe without presence (a bot's join)")
    args = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    data = tempfile.mkdtemp(prefix="corkd-join-")
    corkd = subprocess.Popen([args.corkd, "serve", "--data-dir", data, "--host", "127.0.0.1", "--port", "0",
                              "--log-level", "warning"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        listen = os.path.join(data, "listen.json")
        deadline = time.monotonic() + 30
        while not os.path.exists(listen) or not os.path.exists(os.path.join(data, "owner.url")):
            if time.monotonic() > deadline or corkd.poll() is not None:
                sys.exit("corkd did not start")
            time.sleep(0.1)
        port = json.load(open(listen))["port"]
        users = "".join(f"person{i} editor main\n" for i in range(args.count))
        out = subprocess.run([args.corkd, "invite", "--data-dir", data, "--users-file", "-", "--wait", "60"],
                             input=users, capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            sys.exit(f"corkd invite failed: {out.stderr.strip()}")
        tokens = [url.split("token=")[1].split("&")[0] for url in out.stdout.split()]
        asyncio.run(measure(port, tokens, corkd.pid, not args.no_presence))
    finally:
        corkd.terminate()
        corkd.wait(20)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Samples a running corkd's context switches and CPU time, to count thread switches per op.

Usage: python3 bench/ctx-switches.py [--interval S] [--name corkd] [--out FILE]

Waits for a process named --name (the newest one), then every --interval seconds prints one JSON line:
  {"t": seconds since the first sample, "switches": voluntary + involuntary switches of all its threads so far,
   "voluntary": ..., "cpu_s": user + system CPU seconds so far, "threads": thread count}
and, per thread name, the voluntary switches ("by_thread"). It stops when the process exits. Run it beside a load of
known rate (for instance the fan-out anchor's open-loop run at 1,000 ops/s) and divide the growth of "voluntary"
over a steady stretch by the ops in it: a thread that sleeps to wait for work switches out voluntarily once per
wake-up, so that is the number of thread wake-ups per op.
"""
import argparse
import json
import os
import subprocess
import sys
import time

CLK = os.sysconf("SC_CLK_TCK")


def newest(name):
    out = subprocess.run(["pgrep", "-n", "-x", name], capture_output=True, text=True).stdout.strip()
    return int(out) if out else None


def sample(pid):
    voluntary = involuntary = 0
    by_thread = {}
    tasks = os.listdir(f"/proc/{pid}/task")
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/status") as f:
                fields = dict(line.split(":\t", 1) for line in f.read().splitlines() if ":\t" in line)
        except OSError:
            continue
        v = int(fields.get("voluntary_ctxt_switches", "0"))
        voluntary += v
        involuntary += int(fields.get("nonvoluntary_ctxt_switches", "0"))
        name = fields.get("Name", "?").strip()
        by_thread[name] = by_thread.get(name, 0) + v
    with open(f"/proc/{pid}/stat") as f:
        parts = f.read().rsplit(")", 1)[1].split()
    cpu = (int(parts[11]) + int(parts[12])) / CLK
    return voluntary, involuntary, cpu, len(tasks), by_thread


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--name", default="corkd")
    parser.add_argument("--out")
    args = parser.parse_args()
    out = open(args.out, "w") if args.out else sys.stdout
    pid = None
    while pid is None:
        pid = newest(args.name)
        if pid is None:
            time.sleep(0.2)
    start = time.monotonic()
    while True:
        try:
            voluntary, involuntary, cpu, threads, by_thread = sample(pid)
        except (OSError, IndexError):
            break
        line = {
            "t": round(time.monotonic() - start, 3), "pid": pid, "switches": voluntary + involuntary,
            "voluntary": voluntary, "cpu_s": cpu, "threads": threads, "by_thread": by_thread,
        }
        out.write(json.dumps(line) + "\n")
        out.flush()
        time.sleep(args.interval)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Time of a join at scale as cork-load reports it: from its "set up" line to "connected: N/N subscribers".

    python3 bench/join-time.py .build/release/cork-load --spawn --boards 1 --subscribers-per-board 1000 \
        --publishers 1 --rate 10 --duration 2

Prints the seconds (cork-load's own TLS handshakes, on the same machine, are part of them), or n/a.
"""
import re, subprocess, sys, time

process = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
set_up = connected = None
for line in process.stdout:
    now = time.monotonic()
    if set_up is None and "set up" in line:
        set_up = now
    match = re.search(r"connected: (\d+)/(\d+) subscribers", line)
    if connected is None and match and match.group(1) == match.group(2):
        connected = now
process.wait()
print(f"{connected - set_up:.2f}" if set_up is not None and connected is not None else "n/a")

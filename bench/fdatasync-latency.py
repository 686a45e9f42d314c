#!/usr/bin/env python3
"""The disk's own fdatasync latency, for comparison with a commit's (issue 12).

  python3 bench/fdatasync-latency.py FILE PAGES COUNT

Writes PAGES pages of 4 KiB at a moving offset of a 64 MiB file (reused, as SQLite reuses its log) and calls
fdatasync, COUNT times at about 1,000 a second, and prints the percentiles of the fdatasync alone. FILE is created
and removed; put it on the file system of the data directory.
"""
import os, time, sys
path = sys.argv[1]; pages = int(sys.argv[2]); n = int(sys.argv[3])
fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, 64 << 20); os.fsync(fd)
buf = os.urandom(4096 * pages)
lat = []; off = 0; t_next = time.monotonic()
for i in range(n):
    t_next += 0.001
    d = t_next - time.monotonic()
    if d > 0: time.sleep(d)
    os.pwrite(fd, buf, off); off = (off + len(buf)) % (60 << 20)
    a = time.perf_counter_ns(); os.fdatasync(fd); lat.append((time.perf_counter_ns() - a) / 1000)
lat.sort()
p = lambda q: lat[min(len(lat) - 1, int(q * len(lat)))]
print(f"{pages} page(s) per fdatasync, {n} at ~1000/s: p50 {p(.5):.0f} p90 {p(.9):.0f} p99 {p(.99):.0f} p99.9 {p(.999):.0f} max {lat[-1]:.0f} us")
os.close(fd); os.unlink(path)

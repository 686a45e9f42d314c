#!/usr/bin/env python3
"""Where an op's latency goes inside corkd, stage by stage (issue 12).

Reads the file a corkd built with bench/stage-trace.patch writes when it runs with
CORKD_STAGE_TRACE=FILE: one line per stage of each committed op, `key stage ns` (CLOCK_MONOTONIC).

  git apply bench/stage-trace.patch && swift build -c release --product corkd
  CORKD_STAGE_TRACE=/tmp/stages.txt SERVERS="cork" SUBS="" RATES="" MAXPUBS="" BOARDS="100" DURATION=10 \
      ROUNDS=1 ../shared/bench/fanout-anchor/run.sh
  git apply -R bench/stage-trace.patch
  python3 bench/stage-latency.py /tmp/stages.txt 1 11     # seconds 1..10 of the trace: the open-loop run

Stages: 0 the session has decoded the op (pool), 1 the board's submit began, 2 the op is applied and queued for
the store, 3 the store's writer took the batch, 4 the batch is durable, 7 its writes were queued to the event loop,
8 the event loop began writing them, 5 it had written them to every subscriber on that loop.
"""
import collections
import sys

STAGES = [
    ("decoded -> submit began", 0, 1),
    ("submit: rate, exactly-once, apply, encode", 1, 2),
    ("queued -> the writer took it", 2, 3),
    ("the commit (SQL, fdatasync)", 3, 4),
    ("durable -> queued to the loop", 4, 7),
    ("queued -> the loop began", 7, 8),
    ("the loop writes to the subscribers", 8, 5),
    ("decoded -> written to every subscriber", 0, 5),
]


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def main():
    path, first, last = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    ops = collections.defaultdict(dict)
    for line in open(path):
        key, stage, ns = line.split()
        stage, ns = int(stage), int(ns)
        if stage == 5:  # one mark per event loop written: keep the last
            ops[key][5] = max(ops[key].get(5, 0), ns)
        else:
            ops[key].setdefault(stage, ns)
    complete = sorted((op for op in ops.values() if all(s in op for s in (0, 1, 2, 3, 4, 5, 7, 8))), key=lambda op: op[1])
    if not complete:
        sys.exit("no complete op in the trace")
    start = complete[0][1]
    per_second = collections.Counter((op[1] - start) // 1_000_000_000 for op in complete)
    print("ops per second of the trace:", " ".join(f"{s}:{n}" for s, n in sorted(per_second.items())))
    chosen = [op for op in complete if first <= (op[1] - start) // 1_000_000_000 < last]
    print(f"{len(chosen)} ops in seconds {first}..{last - 1}")
    print(f"{'stage':44} {'p50':>9} {'p90':>9} {'p99':>9} {'p99.9':>9}  (us)")
    for name, a, b in STAGES:
        xs = [(op[b] - op[a]) / 1000 for op in chosen]
        print(f"{name:44} " + " ".join(f"{percentile(xs, q):9.1f}" for q in (0.5, 0.9, 0.99, 0.999)))
    total = [op[5] - op[0] for op in chosen]
    cut = percentile(total, 0.99)
    tail = [op for op in chosen if op[5] - op[0] >= cut]
    print(f"the slowest 1 % ({len(tail)} ops, from {cut / 1000:.0f} us): mean of each stage")
    for name, a, b in STAGES[:-1]:
        print(f"  {name:42} {sum(op[b] - op[a] for op in tail) / len(tail) / 1000:9.1f}")


if __name__ == "__main__":
    main()

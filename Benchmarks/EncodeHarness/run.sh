#!/usr/bin/env bash
# Benchmarks/EncodeHarness/run.sh [SOURCE_ROOT]: a delta line (LineWriter.storedDelta) and a client's op line
# (LineCoder.encode) of each common op kind, in thread CPU time, built like the op path harness (`swift build` first).
# Give another checkout's root to time its sources: an A/B of two commits runs this twice.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HARNESS_MAIN="$here/main.swift" exec "$here/../OpPathHarness/run.sh" "$@"

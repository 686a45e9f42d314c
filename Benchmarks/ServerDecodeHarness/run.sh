#!/usr/bin/env bash
# Benchmarks/ServerDecodeHarness/run.sh: the server-line decode both ways (main.swift), built like the op path
# harness (BoardCore and BoardWire with `swiftc -O -wmo`; `swift build` first).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
HARNESS_MAIN="$here/main.swift" exec "$here/../OpPathHarness/run.sh" "$@"

#!/usr/bin/env bash
# Benchmarks/TUIHarness/run.sh: builds the full-screen client's pure parts (BoardCore, BoardWire, BoardClientCore,
# TerminalUI, and CorkApp without CorkSession and TUIRunner, which need the network client) with `swiftc -O -wmo`,
# links the harness (main.swift, with ../Timing.swift) and runs it: per key press on a 1,000-card board, update + render + diff, p50/p99.
# swift-crypto (BoardCore's board hash, not on the timed path) comes from this checkout's debug build
# (`swift build` first). A stand-in `BoardClient` module holds only Sources/BoardClient/Exports.swift (the
# re-exports the TUI imports).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
out=${OUT:-$(mktemp -d)}
debug=$repo/.build/debug
[ -d "$debug" ] || debug=$(ls -d "$repo"/.build/*-unknown-linux-gnu/debug | head -1)
flags=(-O -wmo -swift-version 6 -parse-as-library -package-name Corkboard -I "$out" -I "$debug/Modules")
for map in "$debug"/*.build/module.modulemap "$repo"/.build/checkouts/swift-crypto/Sources/*/include/module.modulemap; do
  [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$map" -Xcc "-I$(dirname "$map")")
done
build() {  # build MODULE FILE...
  local module=$1
  shift
  swiftc "${flags[@]}" -module-name "$module" -emit-module -emit-module-path "$out/$module.swiftmodule" \
    -c "$@" -o "$out/$module.o"
}
# shellcheck disable=SC2046
for module in BoardCore BoardWire BoardClientCore TerminalUI; do build $module $(find "$repo/Sources/$module" -name '*.swift' | sort); done
build BoardClient "$repo/Sources/BoardClient/Exports.swift"
# shellcheck disable=SC2046
build CorkApp $(find "$repo/Sources/CorkApp" -name '*.swift' ! -name CorkSession.swift ! -name TUIRunner.swift | sort)
crypto=$(find "$debug"/Crypto.build "$debug"/CCryptoBoringSSL.build "$debug"/CCryptoBoringSSLShims.build \
  "$debug"/CryptoBoringWrapper.build -name '*.o' 2>/dev/null)
# shellcheck disable=SC2086
swiftc -O -swift-version 6 -I "$out" -I "$debug/Modules" "$here/main.swift" "$here/../Timing.swift" "$out/CorkApp.o" "$out/BoardClient.o" \
  "$out/TerminalUI.o" "$out/BoardClientCore.o" "$out/BoardWire.o" "$out/BoardCore.o" $crypto -lstdc++ \
  -o "$out/tui-harness" 2> >(grep -v 'Cannot export local symbol' >&2)
"$out/tui-harness"

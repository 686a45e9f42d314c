#!/usr/bin/env bash
# Benchmarks/OpPathHarness/run.sh [SOURCE_ROOT]: builds BoardCore and BoardWire from SOURCE_ROOT (default: this
# checkout) with `swiftc -O -wmo`, links the harness (main.swift, or the file HARNESS_MAIN names, with ../Timing.swift)
# and runs it. swift-crypto (the board hash) comes from this checkout's debug build (`swift build` first); it is not on
# the timed paths. For older sources, without `Board.reserveCards`, pass -DNO_PLACEMENT_INDEX in HARNESS_FLAGS.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
src=$(cd "${1:-$repo}" && pwd)
out=${OUT:-$(mktemp -d)}
debug=$repo/.build/debug
[ -d "$debug" ] || debug=$(ls -d "$repo"/.build/*-unknown-linux-gnu/debug | head -1)
flags=(-O -wmo -swift-version 6 -parse-as-library -I "$out" -I "$debug/Modules")
for map in "$debug"/*.build/module.modulemap "$repo"/.build/checkouts/swift-crypto/Sources/*/include/module.modulemap; do
  [ -f "$map" ] && flags+=(-Xcc "-fmodule-map-file=$map" -Xcc "-I$(dirname "$map")")
done
for module in BoardCore BoardWire; do
  # shellcheck disable=SC2046
  swiftc "${flags[@]}" -module-name $module -emit-module -emit-module-path "$out/$module.swiftmodule" \
    -c $(find "$src/Sources/$module" -name '*.swift' | sort) -o "$out/$module.o"
done
crypto=$(find "$debug"/Crypto.build "$debug"/CCryptoBoringSSL.build "$debug"/CCryptoBoringSSLShims.build \
  "$debug"/CryptoBoringWrapper.build -name '*.o' 2>/dev/null)
# shellcheck disable=SC2086
swiftc -O -swift-version 6 -I "$out" -I "$debug/Modules" ${HARNESS_FLAGS:-} "${HARNESS_MAIN:-$here/main.swift}" "$here/../Timing.swift" "$out/BoardWire.o" \
  "$out/BoardCore.o" $crypto -lstdc++ -o "$out/op-path-harness" 2> >(grep -v 'Cannot export local symbol' >&2)
"$out/op-path-harness"

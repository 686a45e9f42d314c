#!/usr/bin/env bash
# ci-bot.sh — report a CI build on its Corkboard card.
#
# Moves the card with external reference REF to DONE on pass, or back to DOING on fail (adding the card first when
# the board has none, restoring it first when someone archived it), then posts "build passed|failed: MESSAGE" as a
# comment on it. It uses only `cork … --json` and cork's exit codes (0 ok, 2 usage, 3 rejected, 4 cannot connect,
# 5 not found, 6 outcome unknown: a retry may post the comment twice); jq is optional.
#
#   CORK_URL='cork://corkd.example:7420/main?token=…&fp=sha256:…' \
#     Examples/ci-bot.sh ci:build-1207 pass "all 412 tests green" "Build 1207"
#
# Environment: CORK_URL (the bot's invite URL, required), CORK (the cork binary; default: cork on PATH, else the
# one `swift build` made in this checkout, .build/debug/cork), CORK_DONE / CORK_DOING (column names; default DONE
# and DOING).
set -euo pipefail

usage() {
    cat >&2 <<'USAGE'
usage: ci-bot.sh REF pass|fail MESSAGE [TITLE]
  REF      the card's external reference, e.g. ci:build-1207 or gh:corkboard#42
  pass     comment "build passed: MESSAGE" and move the card to DONE
  fail     comment "build failed: MESSAGE" and move the card back to DOING
  TITLE    the title for a new card (default: REF)
environment: CORK_URL (required), CORK (default: cork on PATH, else .build/debug/cork), CORK_DONE, CORK_DOING
USAGE
    exit 2
}

[[ $# -ge 3 && $# -le 4 ]] || usage
ref=$1
result=$2
message=$3
title=${4:-$1}
case $result in
    pass) column=${CORK_DONE:-DONE} verdict=passed ;;
    fail) column=${CORK_DOING:-DOING} verdict=failed ;;
    *) usage ;;
esac
if [[ -z ${CORK_URL:-} ]]; then
    echo "ci-bot.sh: set CORK_URL to the bot's invite URL" >&2
    exit 2
fi
# The cork binary: $CORK, else cork on PATH, else the one built in this checkout (`swift build`).
if [[ -n ${CORK:-} ]]; then
    cork=$CORK
elif command -v cork >/dev/null 2>&1; then
    cork=cork
else
    checkout=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
    for candidate in "$checkout/.build/debug/cork" "$checkout/.build/release/cork"; do
        if [[ -x $candidate ]]; then
            cork=$candidate
            break
        fi
    done
    if [[ -z ${cork:-} ]]; then
        echo "ci-bot.sh: cork is not on PATH and not built in $checkout: run \`swift build\` there, or set CORK" >&2
        exit 1
    fi
fi

# The card number from cork's JSON: with jq when there is one, else from the compact one-line output.
card_number() {
    if command -v jq >/dev/null 2>&1; then
        jq -r '.card.number'
    else
        sed -n 's/.*"number":\([0-9][0-9]*\).*/\1/p'
    fi
}

# Find the card; exit 5 means the board has no card with this ref yet, so add it (add --ref is idempotent, so
# two jobs racing here still end up with one card).
errors=$(mktemp)
trap 'rm -f "$errors"' EXIT
status=0
found=$("$cork" show "ref:$ref" --json 2>"$errors") || status=$?
if [[ $status -eq 5 ]]; then
    found=$("$cork" add "$title" --ref "$ref" --json)
elif [[ $status -ne 0 ]]; then
    cat "$errors" >&2
    exit "$status"
fi
number=$(printf '%s\n' "$found" | card_number)
# An archived card keeps its ref (add --ref returns it, with "archived":true): a new build of the same ref brings it
# back, since moving an archived card is refused (exit 3, invalid: restore it first); a comment would be accepted, but
# on a card nobody sees.
if [[ $found == *'"archived":true'* ]]; then
    "$cork" restore "ref:$ref" --json >/dev/null
fi

# Move first, then comment: a refused move (exit 3, e.g. the column is at its hard WIP limit) posts nothing, so
# running the script again after fixing it posts the comment once; a move to where the card is already is a no-op.
"$cork" move "ref:$ref" "$column" --json >/dev/null
"$cork" comment "ref:$ref" "build $verdict: $message" --json >/dev/null
echo "ci-bot.sh: #$number ($ref) build $verdict, moved to $column"

#!/bin/sh
# A flaky target for the reducer's tests: broken (tests/fuzz/campaign/broken_renderer.sh: integer MUL as
# ADD) for its first $FLAKY_BROKEN renders, counted in the file $FLAKY_COUNT, and right after them, so
# that a reduced program no longer fails when it is checked again.
set -e
n=$(cat "${FLAKY_COUNT:?set FLAKY_COUNT to a counter file}" 2>/dev/null || echo 0)
echo $((n + 1)) > "$FLAKY_COUNT"
if [ "$n" -lt "${FLAKY_BROKEN:?set FLAKY_BROKEN to a number of renders}" ]; then
  exec "$(dirname "$0")/../campaign/broken_renderer.sh" "$1" "$2"
fi
exec "${UOPFUZZ:?set UOPFUZZ to the uopfuzz binary}" render "$1" --name "$2"

#!/bin/sh
# test_flags.sh - the Makefile refuses the CFLAGS that break bit-identical
# results (fast-math, single-precision constants, the x87 unit) before it
# builds anything, naming them, and takes the ones that do not (a target
# CPU's instructions, SSE arithmetic). Only asks make what it would do (-n).
# Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$root/tests/bench/checks.sh"

n=0
for flags in "-O2 -ffast-math" "-Ofast" "-O2 -fsingle-precision-constant" "-O2 -mfpmath=387" \
    "-O2 -mfpmath=sse+387" "-O2 -mfpmath=both" "-O2 -m32"; do
    n=$((n + 1))
    make -n -C "$root" CFLAGS="$flags" BUILD=build-flags-test build-flags-test/bin/sweep-walk >"$work/$n" 2>&1
    check "refused: $flags" 'sweep: .*break bit-identical replay' "$work/$n"
done
for flags in "-O2 -march=native" "-O2 -mfpmath=sse" "-O3 -g"; do
    n=$((n + 1))
    make -n -C "$root" CFLAGS="$flags" BUILD=build-flags-test build-flags-test/bin/sweep-walk >"$work/$n" 2>&1
    check "taken: $flags" "-o build-flags-test/bin/sweep-walk" "$work/$n"
done
checks_end

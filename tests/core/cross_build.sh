#!/bin/sh
# cross_build.sh - bit-identical results across compilers and optimisation
# levels. Rebuilds sweep-walk from source with each compiler/flag set below,
# runs the same walks, and compares the final state hashes with the main
# build and with the golden values committed in golden/: walk.hash for a
# generated level, walk_movers.hash for one with lifts, turntables and doors
# (riding, pushing and every blocked rule; the hash covers the movers), and
# walk_volumes.hash for walkers moved by the movement rules through jump
# pads, teleporters (one without room), hurt, trigger and kill volumes
# (tests/core/volume_walk.c, built from the core alone the same ways), and
# walk_liquids.hash for walkers swimming in water, slime and lava and
# climbing a ladder (the same program's `liquids` walk). Every source of
# libsweep is also compiled for aarch64, which a game there builds. A
# mismatch means a change broke replay determinism (or, if intended, the
# golden file must be updated in the same commit, saying why). The
# variant with __SSE2__ undefined builds the core's plain C paths (the
# BVH's, the scene's box and plane tests one at a time), which targets
# without SSE2 run, and must walk to the same hashes.
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it. About
# 100 s on an idle 2-core machine, over 300 s when it is busy:
# run-tests: time limit 900
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
walk_args="--tris 3000 --level-seed 5 --walkers 16 --steps 600 --seed 5 --bench-only"
movers_args="--tris 10000 --level-seed 3 --movers 16 --walkers 48 --steps 1200 --seed 3 --bench-only"
golden=$(cat "$here/golden/walk.hash")
golden_movers=$(cat "$here/golden/walk_movers.hash")
golden_volumes=$(cat "$here/golden/walk_volumes.hash")
golden_liquids=$(cat "$here/golden/walk_liquids.hash")

hash_of() { # args, program...
    args=$1
    shift
    # shellcheck disable=SC2086
    "$@" $args | sed -n 's/^state_hash=\([0-9a-f]*\).*/\1/p'
}

passed=0
failed=0
check() { # name, hash, golden
    echo "[ RUN      ] $1"
    if [ -n "$2" ] && [ "$2" = "$3" ]; then
        echo "[       OK ] $1 ($2)"
        passed=$((passed + 1))
    else
        echo "[  FAILED  ] $1: state hash '$2', golden '$3'"
        failed=$((failed + 1))
    fi
}

both() { # name, program
    check "$1" "$(hash_of "$walk_args" "$2")" "$golden"
    check "$1, movers" "$(hash_of "$movers_args" "$2")" "$golden_movers"
}

both "main build" "$root/$BUILD/bin/sweep-walk"
check "main build, volumes" "$(hash_of "" "$root/$BUILD/tests/core/volume_walk")" "$golden_volumes"
check "main build, liquids" "$(hash_of "liquids" "$root/$BUILD/tests/core/volume_walk")" "$golden_liquids"

# Each variant's binary is kept in $BUILD/cross and rebuilt only when a
# source it is built from is newer, so a second run only walks.
cross="$root/$BUILD/cross"
mkdir -p "$cross"
cd "$root"
srcs="$(ls core/*.c) $(ls maps/*.c | grep -v '_main\.c$' | grep -v '^maps/import') maps/sweep_walk_main.c"
hdrs="$(ls core/*.h maps/*.h)"
for variant in "gcc -O0" "gcc -O2" "gcc -O2 -U__SSE2__" "gcc -O3 -march=native" "clang -O0" "clang -O2"; do
    cc=${variant%% *}
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "($cc not installed: $variant not checked)"
        continue
    fi
    out="$cross/walk-$(echo "$variant" | tr ' =' '__')"
    stale=1
    # shellcheck disable=SC2086
    if [ -x "$out" ] && [ -z "$(find $srcs $hdrs "$0" -newer "$out" 2>/dev/null | head -n 1)" ]; then
        stale=0
    fi
    # shellcheck disable=SC2086
    if [ $stale -eq 1 ] && ! $variant -std=gnu11 -I. -ffp-contract=off -fno-fast-math $srcs -lsqlite3 -lm -o "$out" 2>"$out.log"; then
        echo "[ RUN      ] $variant"
        echo "[  FAILED  ] $variant: build failed:"
        cat "$out.log"
        rm -f "$out"
        failed=$((failed + 1))
        continue
    fi
    both "$variant" "$out"
    vout="$cross/volume-walk-$(echo "$variant" | tr ' =' '__')"
    vsrcs="$(ls core/*.c) maps/level.c tests/core/volume_walk.c"
    # shellcheck disable=SC2086
    if [ ! -x "$vout" ] || [ -n "$(find $vsrcs $hdrs "$0" -newer "$vout" 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        if ! $variant -std=gnu11 -I. -ffp-contract=off -fno-fast-math $vsrcs -lm -o "$vout" 2>"$vout.log"; then
            echo "[ RUN      ] $variant, volumes"
            echo "[  FAILED  ] $variant, volumes: build failed:"
            cat "$vout.log"
            rm -f "$vout"
            failed=$((failed + 1))
            continue
        fi
    fi
    check "$variant, volumes" "$(hash_of "" "$vout")" "$golden_volumes"
    check "$variant, liquids" "$(hash_of "liquids" "$vout")" "$golden_liquids"
done

# aarch64, where a compiler left to itself would fuse a*b+c into one
# rounding: the volume walks (the core and maps/level.c, no SQLite, which
# has no arm64 package beside this machine's) built static with Debian's
# cross compiler and run under qemu-user. make test installs both
# (tests/tests.mk); run by hand without them, this variant says so.
acc=aarch64-linux-gnu-gcc
if ! command -v "$acc" >/dev/null 2>&1 || ! command -v qemu-aarch64 >/dev/null 2>&1; then
    echo "($acc or qemu-aarch64 not installed: aarch64 not checked)"
else
    aout="$cross/volume-walk-aarch64"
    vsrcs="$(ls core/*.c) maps/level.c tests/core/volume_walk.c"
    built=1
    # shellcheck disable=SC2086
    if [ ! -x "$aout" ] || [ -n "$(find $vsrcs $hdrs "$0" -newer "$aout" 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        if ! "$acc" -O2 -static -std=gnu11 -I. -ffp-contract=off -fno-fast-math $vsrcs -lm -o "$aout" \
            2>"$aout.log"; then
            echo "[ RUN      ] aarch64 -O2, volumes"
            echo "[  FAILED  ] aarch64 -O2, volumes: build failed:"
            cat "$aout.log"
            rm -f "$aout"
            failed=$((failed + 1))
            built=0
        fi
    fi
    if [ $built -eq 1 ]; then
        check "aarch64 -O2 (qemu), volumes" "$(hash_of "" qemu-aarch64 "$aout")" "$golden_volumes"
        check "aarch64 -O2 (qemu), liquids" "$(hash_of "liquids" qemu-aarch64 "$aout")" "$golden_liquids"
    fi
    # Every source of libsweep (what a game on an arm64 machine builds:
    # the core, the maps library, the protocol, the client), compiled (not
    # linked: no arm64 SQLite here, so its header is the host's) with the
    # project's flags: Debian 12's aarch64 gcc once crashed on one of them.
    echo "[ RUN      ] aarch64 -O2, libsweep compiles"
    lsrcs="$(ls core/*.c protocol/*.c) $(ls maps/*.c | grep -v '_main\.c$' | grep -v '^maps/import')
        $(ls client-sdk/*.c | grep -v -e '_main\.c$' -e '^client-sdk/replay' -e 'win32' -e 'netem')"
    bad=
    for f in $lsrcs; do
        if ! "$acc" -std=gnu11 -I. -idirafter /usr/include -O2 -g -ffp-contract=off -fno-fast-math -fno-math-errno \
            -c "$f" -o /dev/null 2>"$cross/a64-compile.log"; then
            bad="$bad $f"
            head -n 5 "$cross/a64-compile.log"
        fi
    done
    if [ -z "$bad" ]; then
        echo "[       OK ] aarch64 -O2, libsweep compiles"
        passed=$((passed + 1))
    else
        echo "[  FAILED  ] aarch64 -O2, libsweep compiles: failed:$bad"
        failed=$((failed + 1))
    fi
fi

echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ "$failed" -eq 0 ] || { echo "[  FAILED  ] $failed test(s)"; exit 1; }

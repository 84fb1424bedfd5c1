#!/bin/sh
# cross_build.sh - bit-identical results across compilers and optimisation
# levels. Rebuilds sweep-walk from source with each compiler/flag set below,
# runs the same walk, and compares the final state hash with the main build
# and with the golden value committed in golden/walk.hash. A mismatch means a
# change broke replay determinism (or, if intended, the golden file must be
# updated in the same commit, saying why).
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
walk_args="--tris 3000 --level-seed 5 --walkers 16 --steps 600 --seed 5 --bench-only"
golden=$(cat "$here/golden/walk.hash")

hash_of() {
    "$@" $walk_args | sed -n 's/^state_hash=\([0-9a-f]*\).*/\1/p'
}

passed=0
failed=0
check() { # name, hash
    echo "[ RUN      ] $1"
    if [ -n "$2" ] && [ "$2" = "$golden" ]; then
        echo "[       OK ] $1 ($2)"
        passed=$((passed + 1))
    else
        echo "[  FAILED  ] $1: state hash '$2', golden '$golden'"
        failed=$((failed + 1))
    fi
}

check "main build" "$(hash_of "$root/$BUILD/bin/sweep-walk")"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$root"
srcs="$(ls core/*.c) $(ls maps/*.c | grep -v '_main\.c$' | grep -v '^maps/import') maps/sweep_walk_main.c"
for variant in "gcc -O0" "gcc -O2" "gcc -O3 -march=native" "clang -O0" "clang -O2"; do
    cc=${variant%% *}
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "($cc not installed: $variant not checked)"
        continue
    fi
    out="$tmp/walk-$(echo "$variant" | tr ' =' '__')"
    # shellcheck disable=SC2086
    if ! $variant -std=gnu11 -I. -ffp-contract=off -fno-fast-math $srcs -lsqlite3 -lm -o "$out" 2>"$out.log"; then
        echo "[ RUN      ] $variant"
        echo "[  FAILED  ] $variant: build failed:"
        cat "$out.log"
        failed=$((failed + 1))
        continue
    fi
    check "$variant" "$(hash_of "$out")"
done

echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ "$failed" -eq 0 ] || { echo "[  FAILED  ] $failed test(s)"; exit 1; }

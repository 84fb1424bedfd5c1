#!/bin/sh
# cross_build_queries.sh - the answers of lag-compensated queries bit for
# bit across compilers and optimisation levels, as cross_build.sh does for
# walks: tests/core/test_query.c is built from source with each
# compiler/flag set below (the core, the level generator and the test) and
# its answers_match_the_golden_hash run alone: a fixed script's ray, ray
# for every hit, line of sight, sweep and overlap answers on a generated
# level with movers and 64 moving entities, hashed, against the golden
# value the test holds. A mismatch means a change broke the queries'
# determinism (or, if intended, the golden value must change in the same
# commit, saying why). Its own program, apart from cross_build.sh: each
# variant compiles the core again, and both together overran a test's
# time limit on a busy machine.
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it. About
# 60 s on an idle 2-core machine, over 300 s when it is busy:
# run-tests: time limit 900
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}

passed=0
failed=0
cross="$root/$BUILD/cross"
mkdir -p "$cross"
cd "$root"
srcs="$(ls core/*.c) maps/level.c maps/levelgen.c tests/core/test_query.c tests/cmocka_group.c"
hdrs="$(ls core/*.h maps/*.h) tests/core/query_oracle.h tests/core/query_cases.h"
for variant in "gcc -O0" "gcc -O2" "gcc -O3 -march=native" "clang -O0" "clang -O2"; do
    cc=${variant%% *}
    if ! command -v "$cc" >/dev/null 2>&1; then
        echo "($cc not installed: $variant not checked)"
        continue
    fi
    out="$cross/query-$(echo "$variant" | tr ' =' '__')"
    echo "[ RUN      ] $variant"
    # shellcheck disable=SC2086
    if ! [ -x "$out" ] || [ -n "$(find $srcs $hdrs "$0" -newer "$out" 2>/dev/null | head -n 1)" ]; then
        # shellcheck disable=SC2086
        if ! $variant -std=gnu11 -I. -ffp-contract=off -fno-fast-math $srcs -Wl,--wrap=_cmocka_run_group_tests \
            -lcmocka -lm -o "$out" 2>"$out.log"; then
            echo "[  FAILED  ] $variant: build failed:"
            cat "$out.log"
            rm -f "$out"
            failed=$((failed + 1))
            continue
        fi
    fi
    if SWEEP_TEST_FILTER='answers_*' "$out" >"$out.out" 2>&1; then
        echo "[       OK ] $variant ($(sed -n 's/^query_answers_hash=//p' "$out.out"))"
        passed=$((passed + 1))
    else
        echo "[  FAILED  ] $variant:"
        cat "$out.out"
        failed=$((failed + 1))
    fi
done

echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ "$failed" -eq 0 ] || { echo "[  FAILED  ] $failed test(s)"; exit 1; }

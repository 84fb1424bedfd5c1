#!/bin/sh
# run-tests.sh - run each test program given as an argument and total them.
#
# Every program is a cmocka runner (or a script speaking the same summary
# lines). Its output is shown as it runs; at the end one line sums up the
# whole suite in the form CI reads: "tests: N passed, N failed". The exit
# status is non-zero if any test failed or any program crashed.
set -u
passed=0
failed=0
broken=""
for t in "$@"; do
    echo "=== $t"
    out=$(mktemp)
    CMOCKA_MESSAGE_OUTPUT=stdout "$t" >"$out" 2>&1
    rc=$?
    cat "$out"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
    rm -f "$out"
    passed=$((passed + p))
    failed=$((failed + f))
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        # Crashed or exited non-zero without reporting a failed test.
        failed=$((failed + 1))
        broken="$broken $t(rc=$rc)"
    fi
done
[ -n "$broken" ] && echo "broken test programs:$broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

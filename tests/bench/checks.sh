# checks.sh - the checks of the shell tests of tests/bench (test_targets.sh,
# test_ab.sh) and of tests/coverage/test_coverage.sh, sourced: each prints a cmocka-style line and counts, and
# checks_end prints the summary tests/run-tests.sh reads and exits.
passed=0
failed=0

# check NAME PATTERN FILE: passes when a line of FILE matches PATTERN (an
# extended regular expression).
check() {
    if grep -Eq -- "$2" "$3"; then
        echo "[       OK ] $1"
        passed=$((passed + 1))
    else
        echo "[  FAILED  ] $1: no line matches /$2/ in:"
        sed 's/^/    /' "$3"
        failed=$((failed + 1))
    fi
}

# check_not NAME PATTERN FILE: passes when no line of FILE matches PATTERN.
check_not() {
    if grep -Eq -- "$2" "$3"; then
        echo "[  FAILED  ] $1: a line matches /$2/ in:"
        sed 's/^/    /' "$3"
        failed=$((failed + 1))
    else
        echo "[       OK ] $1"
        passed=$((passed + 1))
    fi
}

# check_rc NAME WANT GOT: passes when the exit status GOT is WANT.
check_rc() {
    if [ "$2" = "$3" ]; then
        echo "[       OK ] $1"
        passed=$((passed + 1))
    else
        echo "[  FAILED  ] $1: exit status $3, not $2"
        failed=$((failed + 1))
    fi
}

checks_end() {
    echo "[  PASSED  ] $passed test(s)."
    if [ "$failed" -gt 0 ]; then
        echo "[  FAILED  ] $failed test(s)."
        exit 1
    fi
    exit 0
}

#!/bin/sh
# test_manual.sh - sweepd(8) against the sweepd it installs with: every long
# option `sweepd --help` lists has an entry in the manual, every option the
# manual gives an entry is one sweepd takes, and the log format version the
# manual's RECORDING section names is the one sweepd writes
# (SWEEP_RECORD_VERSION in server/record/record.h). The manual is written by
# hand, so this is what tells a new option, or a new log version, that the
# manual has not heard of it.
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
sweepd=$root/$BUILD/bin/sweepd
manual=$root/server/sweepd.8
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

passed=0 failed=0
check() { # NAME FILE-OF-PROBLEMS
    echo "[ RUN      ] $1"
    if [ -s "$2" ]; then
        cat "$2"
        echo "[  FAILED  ] $1"
        failed=$((failed + 1))
    else
        echo "[       OK ] $1"
        passed=$((passed + 1))
    fi
}

# The manual in plain text: roff's \- is a hyphen.
sed 's/\\-/-/g' "$manual" >"$work/manual"

# Options --help lists: a line that starts with spaces and --name.
"$sweepd" --help 2>&1 | sed -n 's/^ *\(--[a-z][a-z0-9-]*\).*/\1/p' | sort -u >"$work/help"
# Options the manual gives an entry: .B or .BI lines (after .TP) naming one.
sed -n 's/^\.BI\{0,1\} \(--[a-z][a-z0-9-]*\).*/\1/p' "$work/manual" | sort -u >"$work/entries"

: >"$work/problems"
if [ ! -s "$work/help" ]; then
    echo "sweepd --help listed no options ($sweepd)" >>"$work/problems"
fi
comm -23 "$work/help" "$work/entries" | sed 's/^/sweepd --help lists /; s/$/, which sweepd(8) has no entry for/' \
    >>"$work/problems"
check "every option of sweepd --help has an entry in sweepd(8)" "$work/problems"

: >"$work/problems"
comm -13 "$work/help" "$work/entries" | sed 's/^/sweepd(8) has an entry for /; s/$/, which sweepd --help does not list/' \
    >>"$work/problems"
check "every option sweepd(8) describes is one sweepd takes" "$work/problems"

: >"$work/problems"
written=$(sed -n 's/^#define SWEEP_RECORD_VERSION \([0-9]*\)u.*/\1/p' "$root/server/record/record.h")
named=$(tr '\n' ' ' <"$work/manual" | sed -n 's/.*The format (version \([0-9]*\)[,)].*/\1/p')
if [ -z "$written" ] || [ -z "$named" ]; then
    echo "could not read the version: record.h says '$written', sweepd(8) '$named'" >>"$work/problems"
elif [ "$written" != "$named" ]; then
    echo "sweepd writes log format version $written; sweepd(8)'s RECORDING section names version $named" \
        >>"$work/problems"
fi
check "sweepd(8) names the log format version sweepd writes" "$work/problems"

echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
if [ "$failed" -gt 0 ]; then
    echo "[  FAILED  ] $failed test(s)."
    exit 1
fi
exit 0

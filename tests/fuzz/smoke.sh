#!/bin/sh
# smoke.sh - a bounded run of a libFuzzer harness as a test, speaking
# cmocka's summary lines. make test runs it through a one-line script the
# build writes (protocol.mk, server.mk, maps.mk), so the harness is built
# first.
#
#   smoke.sh HARNESS NAME RUNS MAX_LEN CRASHES [--seeds-by PROG] [SEED...]
#
# The seeds are gathered into a temporary directory: each SEED file, the
# files of each SEED directory, and what PROG writes when given that
# directory. New inputs go to another temporary directory and are dropped;
# a crashing input is kept as CRASHES/NAME-crash-*.
set -u
harness=$1 name=$2 runs=$3 max_len=$4 crashes=$5
shift 5
work=$(mktemp -d) seeds=$(mktemp -d) out=$(mktemp)
trap 'rm -rf "$work" "$seeds" "$out"' EXIT
fail() {
    echo "smoke.sh: $1" >&2
    echo "[  FAILED  ] 1 test(s)."
    exit 1
}
mkdir -p "$crashes" || fail "cannot make $crashes"
if [ "${1:-}" = --seeds-by ]; then
    "$2" "$seeds" || fail "$2 wrote no seeds"
    shift 2
fi
for s in "$@"; do
    if [ -d "$s" ]; then
        cp "$s"/* "$seeds"/ || fail "cannot copy the seeds of $s"
    else
        cp "$s" "$seeds"/ || fail "cannot copy the seed $s"
    fi
done
"$harness" -artifact_prefix="$crashes/$name-" -runs="$runs" -max_len="$max_len" "$work" "$seeds" >"$out" 2>&1
rc=$?
tail -n 4 "$out"
if [ $rc -eq 0 ]; then
    echo "[  PASSED  ] 1 test(s)."
else
    echo "[  FAILED  ] 1 test(s)."
fi
exit $rc

#!/bin/sh
# run-tests.sh - run each test program given as an argument and total them.
#
# Every program is a cmocka runner (or a script speaking the same summary
# lines). Programs run SWEEP_TEST_JOBS at a time (default 3), each under a
# time limit of SWEEP_TEST_TIMEOUT seconds (default 300; then it is sent
# SIGTERM, and SIGKILL 10 s later, with everything it started, and counted
# as failed). A program's output is shown in one piece when it ends, under
# "=== name (12.3 s)". At the end one line sums up the whole suite in the
# form CI reads: "tests: N passed, N failed". The exit status is non-zero
# if any test failed or any program crashed or timed out.
#
# Three at a time on a two-core machine because the programs mostly wait
# (servers ticking, bots paced at 60 Hz, Python starting): two at a time
# keep the cores a third busy, and a third program slows none of the
# others; what it changes is the wall time, by a third (59 s against 41 s
# when last measured).
#
# Programs are independent of each other: the servers they start listen on
# free ports of 127.0.0.1 and they write into private temporary
# directories. The exception is the pair that runs `make install` from the
# build directory (which writes the pkg-config files there): they share one slot.
#
# The slowest programs start first, by the times of the previous run
# ($BUILD/tests/run-times, which only orders, never decides anything), so
# that the slots finish at about the same time.
set -u
jobs=${SWEEP_TEST_JOBS:-3}
limit=${SWEEP_TEST_TIMEOUT:-300}
times=${BUILD:-build}/tests/run-times
work=$(mktemp -d)
workers=

# Interrupted: stop the workers, then each running program with everything
# it started (timeout made each one the leader of its own process group).
stop_all() {
    : >"$work/stop"
    for w in $workers; do kill "$w" 2>/dev/null; done
    for f in "$work"/*.pid; do
        [ -f "$f" ] || continue
        p=$(cat "$f")
        kill -TERM "-$p" 2>/dev/null || kill -TERM "$p" 2>/dev/null
    done
    wait
    exit 130
}
trap 'rm -rf "$work"' EXIT
trap stop_all INT TERM HUP

now() { date +%s.%N; }

if command -v timeout >/dev/null 2>&1; then
    limiter="timeout --kill-after=10 $limit"
else
    limiter=
    echo "run-tests: timeout(1) not found: programs run without a time limit"
fi

# run_one PROGRAM KEY: runs it, records "passed failed status seconds name"
# in $work/KEY.res and prints its output, a whole program at a time.
run_one() {
    t=$1
    key=$2
    out=$work/$key.out
    t0=$(now)
    # shellcheck disable=SC2086  # $limiter is words by design
    CMOCKA_MESSAGE_OUTPUT=stdout $limiter "$t" >"$out" 2>&1 </dev/null &
    echo $! >"$work/$key.pid"
    wait $! 2>/dev/null
    rc=$?
    rm -f "$work/$key.pid"
    secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | awk '{s+=$1} END {print s+0}')
    why=
    if [ -n "$limiter" ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } &&
        awk -v s="$secs" -v l="$limit" 'BEGIN { exit !(s >= l) }'; then
        why="timed out after $limit s"
    elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        why="rc=$rc"
    fi
    echo "$p $f $rc $secs $t" >"$work/$key.res"
    [ -n "$why" ] && echo "$t($why)" >"$work/$key.broken"
    # One program's output at a time on the shared stdout.
    until mkdir "$work/print" 2>/dev/null; do sleep 0.05; done
    echo "=== $t ($secs s)"
    cat "$out"
    [ -n "$why" ] && echo "=== $t: $why"
    rmdir "$work/print"
    rm -f "$out"
}

# The queue: one line per slot's turn, slowest first by the last run's times
# (programs without one first, in the order given). Each worker takes the
# next line nobody has claimed yet (mkdir is atomic).
pair=
for t in "$@"; do
    case $t in
    */test_install.sh | */test_docker_files.sh) pair="$pair $t" ;;
    esac
done
{
    for t in "$@"; do
        case " $pair " in *" $t "*) continue ;; esac
        echo "$t"
    done
    [ -n "$pair" ] && echo "${pair# }"
} | awk -v times="$times" '
    BEGIN { while ((getline line < times) > 0) { split(line, f, " "); last[f[2]] = f[1] } }
    {
        s = 0; known = 1
        for (i = 1; i <= NF; i++) { if ($i in last) s += last[$i]; else known = 0 }
        printf "%d\t%012.1f\t%06d\t%s\n", known, known ? 1e9 - s : 0, NR, $0
    }' | LC_ALL=C sort | cut -f4 >"$work/queue"

worker() {
    n=0
    while IFS= read -r item; do
        n=$((n + 1))
        [ -e "$work/stop" ] && break
        mkdir "$work/claim.$n" 2>/dev/null || continue
        k=0
        for t in $item; do
            k=$((k + 1))
            run_one "$t" "$n.$k"
        done
    done <"$work/queue"
}

t0=$(now)
i=0
while [ $i -lt "$jobs" ]; do
    worker &
    workers="$workers $!"
    i=$((i + 1))
done
wait
wall=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')

passed=0
failed=0
broken=""
for r in "$work"/*.res; do
    [ -f "$r" ] || continue
    read -r p f rc secs t <"$r"
    passed=$((passed + p))
    failed=$((failed + f))
    if [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        # Crashed, timed out, or exited non-zero without reporting a failed test.
        failed=$((failed + 1))
    fi
done
for b in "$work"/*.broken; do
    [ -f "$b" ] && broken="$broken $(cat "$b")"
done
# A program that never reported (its slot died) fails rather than vanishes.
for t in "$@"; do
    if ! cat "$work"/*.res 2>/dev/null | awk -v t="$t" '$5 == t { found = 1 } END { exit !found }'; then
        failed=$((failed + 1))
        broken="$broken $t(never ran)"
    fi
done

# The times, for the next run's order, and the slowest programs.
if [ -d "$(dirname "$times")" ]; then
    cat "$work"/*.res 2>/dev/null | awk '{ print $4, $5 }' >"$times.$$" && mv "$times.$$" "$times"
fi
echo "slowest: $(cat "$work"/*.res 2>/dev/null | sort -k4 -n -r | head -n 5 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $5, $4 }')"
echo "suite: $wall s of wall time, $(cat "$work"/*.res 2>/dev/null | awk '{ s += $4 } END { printf "%.1f", s }') s of programs, $jobs at a time"
[ -n "$broken" ] && echo "broken test programs:$broken"
echo "tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

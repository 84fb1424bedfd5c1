#!/bin/sh
# run-tests.sh - run each test program given as an argument and total them.
#
# Every program is a cmocka runner (or a script speaking the same summary
# lines). Programs run SWEEP_TEST_JOBS at a time (default 3), each under a
# time limit of SWEEP_TEST_TIMEOUT seconds (default 300; then it is sent
# SIGTERM, and SIGKILL 10 s later, with everything it started, and counted
# as failed). A program that builds the core several times over (the
# compilers and levels of cross_build.sh) or runs other tools per case
# (protocol/interop) may say a longer limit in its source, in a comment
# line "run-tests: time limit N" (seconds): the larger one holds, so a busy
# machine slows it without failing it, and a hang is still caught.
# Inside a cmocka program each test has its own limit,
# SWEEP_TEST_CASE_TIMEOUT (default 120 s, tests/cmocka_group.c): past it the
# program names the test and aborts, and counts here as failed with that
# name. SWEEP_TEST_FILTER=PATTERN runs, in every cmocka program, only the
# tests whose names match it; script programs ignore it and run whole.
# Whatever a program leaves running when it ends is killed with it.
#
# A program's output is shown in one piece when it ends, under
# "=== name (12.3 s)". At the end come the slowest programs, the wall time,
# the programs that broke, every skipped test with the reason it printed
# ("skipped: ..."; tests/test_skip.h), and last one line that sums up the
# whole suite in the form CI reads: "tests: N passed, N failed, N skipped".
# The exit status is non-zero if any test failed or any program crashed or
# timed out; a skipped test fails nothing.
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
# that the slots finish at about the same time. A filtered run leaves those
# times as they were; a run of some programs only updates theirs.
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

have_timeout=
if command -v timeout >/dev/null 2>&1; then
    have_timeout=1
else
    echo "run-tests: timeout(1) not found: programs run without a time limit"
fi

# The limit of program $1: the suite's, or the longer one its source says
# (a script itself; a built program $BUILD/tests/DIR/NAME, tests/DIR/NAME.c
# or the tests/DIR/NAME.sh it was made from).
limit_of() {
    src=
    case $1 in
    *.sh) src=$1 ;;
    */tests/*)
        for s in "tests/${1#*/tests/}.c" "tests/${1#*/tests/}.sh"; do
            [ -f "$s" ] && src=$s && break
        done
        ;;
    esac
    own=
    [ -n "$src" ] &&
        own=$(sed -n 's|^[#*/ ]*run-tests: time limit \([0-9][0-9]*\)$|\1|p' "$src" | head -n 1)
    if [ -n "$own" ] && [ "$own" -gt "$limit" ]; then echo "$own"; else echo "$limit"; fi
}

# What a program's output says: "passed failed skipped" on stdout; its
# skipped tests, one "program: test: reason" line each, into the file SKIPS;
# and into the file LAST, the test that overran its own limit ("[  TIMEOUT ]"
# of tests/cmocka_group.c), else the test that was running when the output
# stops, if any (what a crash or the program's limit interrupted).
summarise() { # OUTPUT PROGRAM SKIPS LAST
    awk -v prog="$2" -v skips="$3" -v last="$4" '
        /^\[ RUN      \] / { cur = substr($0, 14); why = ""; next }
        /^skipped: / { if (cur != "") why = substr($0, 10); next }
        /^\[  PASSED  \] [0-9]+ test/ { p += $4; next }
        /^\[  FAILED  \] [0-9]+ test/ { f += $4; next }
        /^\[  SKIPPED \] [0-9]+ test/ { s += $4; next }
        /^\[  SKIPPED \] / {
            # Once as the test ends (counted), once more in the summary list.
            if (cur != "" && substr($0, 14) == cur)
                print prog ": " cur ": " (why != "" ? why : "no reason given") >skips
            cur = ""
            next
        }
        /^\[  TIMEOUT \] / { over = substr($0, 14); sub(/;.*/, "", over) }
        /^\[       OK \] |^\[  FAILED  \] / { cur = "" }
        END {
            if (over != "") print over >last
            else if (cur != "") print "in test " cur >last
            print p + 0, f + 0, s + 0
        }' "$1"
}

# run_one PROGRAM KEY: runs it, records "passed failed skipped status seconds
# name" in $work/KEY.res and prints its output, a whole program at a time.
run_one() {
    t=$1
    key=$2
    out=$work/$key.out
    t0=$(now)
    lim=$(limit_of "$t")
    limiter=
    [ -n "$have_timeout" ] && limiter="timeout --kill-after=10 $lim"
    # shellcheck disable=SC2086  # $limiter is words by design
    CMOCKA_MESSAGE_OUTPUT=stdout $limiter "$t" >"$out" 2>&1 </dev/null &
    pid=$!
    echo $pid >"$work/$key.pid"
    wait $pid 2>/dev/null
    rc=$?
    # timeout(1) led the program's process group; anything still in it (a
    # command a test started, orphaned by a crash or an abort) goes now. A
    # group id is not handed out again while the group has a member, so
    # this never reaches another process.
    [ -n "$limiter" ] && kill -KILL "-$pid" 2>/dev/null
    rm -f "$work/$key.pid"
    secs=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
    read -r p f s <<EOF_COUNTS
$(summarise "$out" "$t" "$work/$key.skips" "$work/$key.last")
EOF_COUNTS
    last=
    [ -f "$work/$key.last" ] && last=$(cat "$work/$key.last")
    why=
    if [ -n "$limiter" ] && { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } &&
        awk -v s="$secs" -v l="$lim" 'BEGIN { exit !(s >= l) }'; then
        why="timed out after $lim s${last:+ $last}"
    elif [ $rc -ne 0 ] && [ "$f" -eq 0 ]; then
        case $last in
        "in test "* | "") why="rc=$rc${last:+ $last}" ;;
        *) why=$last ;;
        esac
    fi
    echo "$p $f $s $rc $secs $t" >"$work/$key.res"
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
skipped=0
broken=""
for r in "$work"/*.res; do
    [ -f "$r" ] || continue
    read -r p f s rc secs t <"$r"
    passed=$((passed + p))
    failed=$((failed + f))
    skipped=$((skipped + s))
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
    if ! cat "$work"/*.res 2>/dev/null | awk -v t="$t" '$6 == t { found = 1 } END { exit !found }'; then
        failed=$((failed + 1))
        broken="$broken $t(never ran)"
    fi
done

# The times, for the next run's order (a filtered run's say nothing of a
# whole program's; the programs not run keep their last ones), and the
# slowest programs.
if [ -z "${SWEEP_TEST_FILTER:-}" ] && [ -d "$(dirname "$times")" ]; then
    { cat "$work"/*.res 2>/dev/null | awk '{ print $5, $6 }'; [ -f "$times" ] && cat "$times"; } |
        awk '!seen[$2]++' >"$times.$$" && mv "$times.$$" "$times"
fi
echo "slowest: $(cat "$work"/*.res 2>/dev/null | sort -k5 -n -r | head -n 5 | awk '{ printf "%s%s %s s", (NR > 1 ? ", " : ""), $6, $5 }')"
echo "suite: $wall s of wall time, $(cat "$work"/*.res 2>/dev/null | awk '{ s += $5 } END { printf "%.1f", s }') s of programs, $jobs at a time"
[ -n "$broken" ] && echo "broken test programs:$broken"
if [ -n "${SWEEP_TEST_FILTER:-}" ]; then
    echo "filter: SWEEP_TEST_FILTER=$SWEEP_TEST_FILTER (cmocka programs ran only the tests it matches; scripts ran whole)"
fi
if cat "$work"/*.skips >"$work/all-skips" 2>/dev/null && [ -s "$work/all-skips" ]; then
    echo "skipped tests:"
    sort "$work/all-skips" | sed 's/^/  /'
fi
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]

#!/bin/sh
# ab.sh - sections of tests/bench/run-bench.sh for two builds in turn, and
# each figure of theirs side by side: the way to tell a change from the
# machine's drift on these shared hosts, where the same binary's figures
# move by a third from one hour to the next.
#
#   sh tests/bench/ab.sh [-n ROUNDS] [-o DIR] BUILD_A BUILD_B SECTION...
#
# BUILD_A and BUILD_B are build directories as `make bench-build` leaves
# them (BUILD=DIR for another, or the build/ of another checkout: a git
# worktree of the commit before, say). Each round runs the SECTIONs
# (run-bench.sh's names: core.level, server.udp_cost, ...; SWEEP_BENCH_ONLY)
# of both, A then B in odd rounds and B then A in even ones, so that a
# drift of the host falls on both alike; ROUNDS defaults to 3. The
# sections are this tree's run-bench.sh, run with each build's programs.
# Each run's output is kept in DIR (default: a new directory under
# ${TMPDIR:-/tmp}) as A.<round>.log and B.<round>.log, its stderr beside.
#
# Then one line a figure (tests/bench/ab.awk):
#   core.level map=oacmpctf2 tris=6955 volumes=3 ns_per_move_mean: A 1416 (1409 to 1442); B 1380; B/A 0.975
# the median of each build's runs, their range when they differ, and the
# ratio of the medians. Figures equal in every run of both are counted,
# not printed. A run that fails stops it (exit 1, naming its log); wrong
# arguments exit 2.
set -u
here=$(dirname "$0")
usage() {
    echo "usage: sh tests/bench/ab.sh [-n ROUNDS] [-o DIR] BUILD_A BUILD_B SECTION..." >&2
    [ -z "${1:-}" ] || echo "ab.sh: $1" >&2
    exit 2
}
rounds=3
out=""
while [ $# -gt 0 ]; do
    case "$1" in
    -n) [ $# -ge 2 ] || usage "-n wants a count"; rounds=$2; shift 2 ;;
    -o) [ $# -ge 2 ] || usage "-o wants a directory"; out=$2; shift 2 ;;
    -h | --help) usage ;;
    -*) usage "unknown option $1" ;;
    *) break ;;
    esac
done
case "$rounds" in '' | *[!0-9]* | 0) usage "-n wants a count of 1 or more, not '$rounds'" ;; esac
[ $# -ge 3 ] || usage "two build directories and at least one section, please"
a=$1 b=$2
shift 2
for d in "$a" "$b"; do
    [ -d "$d/bin" ] && [ -d "$d/tests/bench" ] ||
        usage "$d is not a build directory with bin/ and tests/bench/ (make bench-build BUILD=$d)"
done
sections="$*"
if [ -z "$out" ]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/sweep-ab.XXXXXX") || exit 2
else
    mkdir -p "$out" || exit 2
fi
# run-bench.sh runs from the top of the tree (tests/install-corpus.sh, ...).
a=$(cd "$a" && pwd) b=$(cd "$b" && pwd) out=$(cd "$out" && pwd) here=$(cd "$here" && pwd)
cd "$here/../.." || exit 2
echo "ab: A=$a B=$b sections=\"$sections\" rounds=$rounds; logs in $out"
r=1
while [ "$r" -le "$rounds" ]; do
    if [ $((r % 2)) -eq 1 ]; then order="A B"; else order="B A"; fi
    for s in $order; do
        if [ "$s" = A ]; then dir=$a; else dir=$b; fi
        echo "ab: round $r of $rounds: $s ($dir)"
        if ! SWEEP_BENCH_ONLY="$sections" BUILD="$dir" sh tests/bench/run-bench.sh >"$out/$s.$r.log" 2>"$out/$s.$r.err"; then
            echo "ab: the run of $s in round $r failed; its output: $out/$s.$r.log and .err:" >&2
            tail -n 5 "$out/$s.$r.err" >&2
            exit 1
        fi
    done
    r=$((r + 1))
done
awk -f "$here/ab.awk" "$out"/A.*.log "$out"/B.*.log

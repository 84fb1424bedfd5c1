#!/bin/sh
# test_ab.sh - tests/bench/ab.sh and its comparison (ab.awk): medians,
# ranges and ratios of made-up runs, instances told apart, figures the
# same in every run counted, a figure one build lacks; then ab.sh itself
# on two stand-in build directories whose "benchmark" says which build ran
# (the rounds alternate A B, B A, ...), and its refusals. Speaks cmocka's
# summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/checks.sh"

# --- the comparison -----------------------------------------------------
mkdir "$work/logs"
# run LOG MEAN P99 HASH_MS: one made-up run.
run() {
    cat >"$work/logs/$1" <<EOF
run-bench: some other output
BENCH name=core.level map=x tris=10 volumes=0 ns_per_move_mean=$2 ns_per_move_p99=$3 fallback_moves=0
BENCH name=server.udp_60hz players=2000 p99_us=$3
BENCH name=maps.hash tris=10 hash_ms=$4
BENCH name=maps.hash tris=10 hash_ms=7
EOF
}
run A.1.log 100 5000 1
run A.2.log 120 5000 2
run A.3.log 110 5000 3
run B.1.log 99 5000 1
run B.2.log 101 4000 1
echo "BENCH name=core.only_a figure=3" >>"$work/logs/A.1.log"
awk -f "$here/ab.awk" "$work/logs"/A.*.log "$work/logs"/B.*.log >"$work/out" 2>&1
check "the runs counted" '^ab: 3 runs of A, 2 of B;' "$work/out"
check "a median, its range and the ratio of the medians" \
    '^core\.level map=x tris=10 volumes=0 ns_per_move_mean: A 110 \(100 to 120\); B 100 \(99\.0 to 101\); B/A 0\.909$' \
    "$work/out"
check "a figure one build's runs agree on has no range" \
    '^core\.level map=x tris=10 volumes=0 ns_per_move_p99: A 5000; B 4500 \(4000 to 5000\); B/A 0\.900$' "$work/out"
check "a figure the same in every run is counted" \
    '^core\.level map=x tris=10 volumes=0: 1 figure the same in every run$' "$work/out"
check_not "and not printed" 'fallback_moves' "$work/out"
check "what was run is part of the instance" '^server\.udp_60hz players=2000 p99_us: ' "$work/out"
check "a second line of the same instance is its own" '^maps\.hash tris=10 #2: 1 figure the same in every run$' \
    "$work/out"
check "the first is not mixed with it" '^maps\.hash tris=10 hash_ms: A 2\.000 \(1\.000 to 3\.000\); B 1\.000; B/A 0\.500$' \
    "$work/out"
check "a figure of one build only" '^core\.only_a figure: A 3\.000; B none$' "$work/out"
cp "$work/logs/A.1.log" "$work/logs/C.1.log"
awk -f "$here/ab.awk" "$work/logs/C.1.log" >"$work/out.bad" 2>&1
check_rc "a log of neither side is refused" 2 $?
check "and named" 'C\.1\.log is not an A\.N\.log or B\.N\.log' "$work/out.bad"

# --- ab.sh on stand-in builds ------------------------------------------
# Each has what run-bench.sh's protocol.codec section runs: a program
# that prints a BENCH line of its build's own and notes that it ran.
for s in A B; do
    mkdir -p "$work/$s/bin" "$work/$s/tests/bench"
    n=$([ "$s" = A ] && echo 40 || echo 20)
    printf '#!/bin/sh\necho %s >>"%s/order"\necho "BENCH name=protocol.codec msg=Move encode_ns=%s bytes=152"\n' \
        "$s" "$work" "$n" >"$work/$s/tests/bench/bench_protocol"
    chmod +x "$work/$s/tests/bench/bench_protocol"
done
sh "$here/ab.sh" -n 3 -o "$work/ab" "$work/A" "$work/B" protocol.codec >"$work/out.ab" 2>&1
check_rc "ab.sh runs" 0 $?
check "each build's figure, and the ratio" '^protocol\.codec msg=Move encode_ns: A 40\.0; B 20\.0; B/A 0\.500$' \
    "$work/out.ab"
tr '\n' ' ' <"$work/order" | sed 's/ $//' >"$work/order.line"
check "the rounds alternate which build goes first" '^A B B A A B$' "$work/order.line"
check "each run's output is kept" '^BENCH name=protocol\.codec' "$work/ab/B.2.log"
sh "$here/ab.sh" "$work/A" "$work/B" >"$work/out.none" 2>&1
check_rc "no section is refused" 2 $?
sh "$here/ab.sh" "$work/A" "$work/nothing" core.level >"$work/out.dir" 2>&1
check_rc "a directory that is not a build is refused" 2 $?
check "and named" 'nothing is not a build directory' "$work/out.dir"
sh "$here/ab.sh" -n 0 "$work/A" "$work/B" core.level >"$work/out.n" 2>&1
check_rc "no rounds is refused" 2 $?
sh "$here/ab.sh" -o "$work/ab2" "$work/A" "$work/B" core.lvl >"$work/out.sec" 2>&1
check_rc "a section run-bench.sh lacks fails the run" 1 $?
check "and run-bench.sh names the sections" 'names no section core\.lvl; the sections: .*core\.level' "$work/ab2/A.1.err"

checks_end

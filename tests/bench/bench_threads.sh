#!/bin/sh
# bench_threads.sh - sweepd --threads: moves per second of two worlds, each
# loaded by its own sweep-bots, served by one thread and by two.
#
# Two generated maps (2000 triangles, seeds 1 and 2); a fresh sweepd for
# each run (--rate-limit 0: the benchmark is the limit); two sweep-bots at
# once, one per world (--world), CLIENTS bots each, as fast as answered.
# The figure of a run is the sum of the two bots' moves_per_s. Runs
# alternate 1 thread, 2 threads, ROUNDS times per transport, so the noise
# of a shared machine falls on both alike; the lines give the medians and
# their ratio. sweep-bots run on the same 2 cores as the server: they take
# a share of what a second thread could use, so the ratio is a floor.
#
# Over UDP sweep-bots (libsweep) sends to the port each Welcome names
# (Welcome.udp_port), its world's thread's own, so nothing is forwarded
# between threads.
#
# Usage: BUILD=build [TRANSPORTS="tcp udp"] sh tests/bench/bench_threads.sh [ROUNDS] [SECONDS] [CLIENTS]
set -eu
BIN=${BUILD:-build}/bin
ROUNDS=${1:-3}
SECONDS_RUN=${2:-3}
CLIENTS=${3:-8}
TMP=$(mktemp -d)
PID=
cleanup() {
    [ -n "$PID" ] && kill "$PID" 2>/dev/null && wait "$PID" 2>/dev/null
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

"$BIN/sweep-mapgen" --tris 2000 --seed 1 --quiet -o "$TMP/w0.db"
"$BIN/sweep-mapgen" --tris 2000 --seed 2 --quiet -o "$TMP/w1.db"

# run THREADS TRANSPORT: one sweepd, two sweep-bots; prints the sum.
run() {
    rm -f "$TMP/ready"
    "$BIN/sweepd" --map "$TMP/w0.db" --map "$TMP/w1.db" --threads "$1" --listen 127.0.0.1:0 \
        --rate-limit 0 --log-level warn >"$TMP/ready" 2>"$TMP/log" &
    PID=$!
    i=0
    while ! grep -q '^sweepd ready' "$TMP/ready" 2>/dev/null && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
    addr=$(sed -n 's/^sweepd ready tcp=\([^ ]*\) .*/\1/p' "$TMP/ready")
    [ -n "$addr" ] || { echo "bench_threads: sweepd did not start:" >&2; cat "$TMP/log" >&2; exit 1; }
    udp=
    [ "$2" = udp ] && udp=--udp
    bots=
    for w in w0 w1; do
        "$BIN/sweep-bots" --connect "$addr" $udp --world "$w" --clients "$CLIENTS" --duration "$SECONDS_RUN" \
            --bench-line "threads_$w" >"$TMP/bots-$w" 2>&1 &
        bots="$bots $!"
    done
    wait_bots=0
    for j in $bots; do wait "$j" || wait_bots=1; done
    kill "$PID"
    wait "$PID" || true
    PID=
    [ $wait_bots -eq 0 ] || { echo "bench_threads: sweep-bots failed:" >&2; cat "$TMP"/bots-* >&2; exit 1; }
    cat "$TMP"/bots-w0 "$TMP"/bots-w1 | sed -n 's/.* moves_per_s=\([0-9.]*\).*/\1/p' | awk '{ s += $1 } END { printf "%.0f\n", s }'
}

median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

for transport in ${TRANSPORTS:-tcp udp}; do
    one="" two=""
    r=0
    while [ $r -lt "$ROUNDS" ]; do
        one="$one $(run 1 $transport)"
        two="$two $(run 2 $transport)"
        r=$((r + 1))
    done
    m1=$(echo "$one" | median)
    m2=$(echo "$two" | median)
    echo "BENCH name=server.threads transport=$transport clients=$((2 * CLIENTS)) rounds=$ROUNDS" \
        "moves_per_s_1=$m1 moves_per_s_2=$m2 ratio=$(awk -v a="$m1" -v b="$m2" 'BEGIN { printf "%.2f", b / a }')" \
        "runs_1=$(echo $one | tr ' ' ',') runs_2=$(echo $two | tr ' ' ',')"
done

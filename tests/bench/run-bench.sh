#!/bin/sh
# run-bench.sh - every benchmark of the project, one "BENCH name=..." line per
# figure. Called by `make bench` with BUILD set; each module adds a section.
# Machines are shared and noisy: read medians and ratios, not single runs.
set -eu
BIN=${BUILD:-build}/bin

# --- core: walkers on generated levels (issue: core) ----------------------
for tris in 1000 10000 100000 1000000; do
    "$BIN/sweep-walk" --tris "$tris" --walkers 64 --steps 1000 --seed 1 --bench-only
done

# --- maps: loading a map, read + validate + BVH build (issue 3) ------------
# Maps come from sweep-mapgen into the build directory, regenerated when the
# generator is newer than them; one fresh process per size, so rss_mb is
# the peak of loading that map alone; load_ms is the median of 5 loads.
MAPS_DIR=${BUILD:-build}/bench-maps
mkdir -p "$MAPS_DIR"
for tris in 1000 10000 100000 1000000; do
    map="$MAPS_DIR/generated-$tris.db"
    if ! [ "$map" -nt "$BIN/sweep-mapgen" ]; then
        "$BIN/sweep-mapgen" --tris "$tris" --seed 1 --quiet -o "$map"
    fi
    "${BUILD:-build}/tests/bench/bench_maps_load" "$map" 5
done

# --- protocol: the wire codec, encode and verify+decode (issue 4) -----------
# Per message, the median of 9 runs; frames are size-prefixed as over TCP.
"${BUILD:-build}/tests/bench/bench_protocol" 9

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

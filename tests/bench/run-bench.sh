#!/bin/sh
# run-bench.sh - every benchmark of the project, one "BENCH name=..." line per
# figure. Called by `make bench` with BUILD set; each module adds a section.
# Machines are shared and noisy: read medians and ratios, not single runs.
set -eu
BIN=${BUILD:-build}/bin

# sweepd_start DIR OPTION...: sweepd with OPTION... on a free port of
# 127.0.0.1 (warnings only), its output in DIR/ready and DIR/log; sets
# SWEEPD_PID and its addresses SWEEPD_TCP and SWEEPD_UDP. SWEEPD_EMPTY, when
# set, is a directory made empty before each start (a --record directory a
# failed start may have begun a log in). A failed start is tried again,
# twice at most, saying why: on a busy machine sweepd has been seen to fail
# its listen on the port the kernel gave it, and one lost start should not
# lose the figure. Exits when the third fails.
sweepd_start() {
    sd_dir=$1
    shift
    for sd_try in 1 2 3; do
        rm -f "$sd_dir/ready" # the last sweepd's ready line must not be read as this one's
        if [ -n "${SWEEPD_EMPTY:-}" ]; then
            rm -rf "$SWEEPD_EMPTY"
            mkdir "$SWEEPD_EMPTY"
        fi
        "$BIN/sweepd" --listen 127.0.0.1:0 --log-level warn "$@" >"$sd_dir/ready" 2>"$sd_dir/log" &
        SWEEPD_PID=$!
        sd_i=0
        while ! grep -q '^sweepd ready' "$sd_dir/ready" 2>/dev/null && kill -0 "$SWEEPD_PID" 2>/dev/null &&
            [ $sd_i -lt 300 ]; do
            sleep 0.1
            sd_i=$((sd_i + 1))
        done
        SWEEPD_TCP=$(sed -n 's/^sweepd ready tcp=\([^ ]*\) udp=.*/\1/p' "$sd_dir/ready" 2>/dev/null || true)
        SWEEPD_UDP=$(sed -n 's/^sweepd ready tcp=[^ ]* udp=\([^ ]*\).*/\1/p' "$sd_dir/ready" 2>/dev/null || true)
        [ -z "$SWEEPD_UDP" ] || return 0
        kill "$SWEEPD_PID" 2>/dev/null || true
        wait "$SWEEPD_PID" 2>/dev/null || true
        echo "run-bench: sweepd did not start (try $sd_try of 3):" >&2
        cat "$sd_dir/log" >&2
    done
    exit 1
}
# sweepd_moves TCP: the moves the sweepd at TCP has applied (moves_total).
sweepd_moves() { "$BIN/sweep" stats --connect "$1" | sed -n 's/.* moves_total=\([0-9]*\) .*/\1/p'; }
# sweepd_wait_moving TCP: until the sweepd at TCP has applied a move (a minute at most).
sweepd_wait_moving() {
    sd_i=0
    while [ "$(sweepd_moves "$1")" = 0 ] && [ $sd_i -lt 600 ]; do
        sleep 0.1
        sd_i=$((sd_i + 1))
    done
}

# sweepd_stop PID: stops that sweepd (SIGTERM) and waits for it; nothing
# for an empty PID.
sweepd_stop() {
    if [ -n "$1" ]; then
        kill "$1" 2>/dev/null || true
        wait "$1" 2>/dev/null || true
    fi
}

# SWEEP_BENCH_ONLY: the sections to run, by name, separated by spaces (each
# section below starts with "if bench_section NAME", most named as the BENCH
# lines they print: core.level, server.udp_cost, server.record, ...); unset
# or empty, all of them, in this file's order. A name no section has stops
# the run before anything starts, listing the names. `make bench
# SWEEP_BENCH_ONLY="core.level server.udp_cost"` runs those two, and
# tests/bench/ab.sh runs sections of two builds in turn.
set -f # the names are words, never file patterns
BENCH_ONLY=" $(echo ${SWEEP_BENCH_ONLY:-}) "
if [ "$BENCH_ONLY" != "  " ]; then
    bench_names=$(sed -n 's/^if bench_section \([a-z0-9_.]*\); then$/\1/p' "$0" | sort -u)
    for s in $BENCH_ONLY; do
        if ! echo "$bench_names" | grep -qxF "$s"; then
            echo "run-bench: SWEEP_BENCH_ONLY names no section $s; the sections:" $bench_names >&2
            exit 2
        fi
    done
fi
set +f
# bench_section NAME: whether the section NAME runs.
bench_section() {
    [ "$BENCH_ONLY" = "  " ] && return 0
    case "$BENCH_ONLY" in *" $1 "*) return 0 ;; esac
    return 1
}
# Shared by several sections: where the corpus levels are imported (by
# core.level, then walked by core.vs_bullet and core.query when there), and
# the client counts and seconds of the server sections over sweepd.
LEVEL_DIR=${BUILD:-build}/bench-corpus
SDK_CLIENTS=${SWEEP_BENCH_CLIENTS:-4}
SDK_SECONDS=${SWEEP_BENCH_SECONDS:-3}

# --- the host: what the machine itself gives, at the start (and the end, the
# last section), so that a figure can be read against the host it was
# taken on (tests/bench/bench_host.c): a chain of double arithmetic, loads
# within a core's second-level cache and past it, a system call. These
# virtual machines are shared; on one of them the same binary's figures
# have moved by 1.4 times from one hour to the next.
if bench_section host; then
    "${BUILD:-build}/tests/bench/bench_host" start
fi

# --- core: walkers on generated levels -------------------------------------
if bench_section core.walk; then
    for tris in 1000 10000 100000 1000000; do
        "$BIN/sweep-walk" --tris "$tris" --walkers 64 --steps 1000 --seed 1 --bench-only
    done
fi

# --- core: moves among 120 movers (doors, lifts, turntables) with riders,
# against the same moves with the movers frozen into static geometry -------
if bench_section core.movers; then
    "${BUILD:-build}/tests/bench/bench_movers" 120
fi

# --- core: players as obstacles, against the same moves passing through ------
if bench_section core.crowd; then
    for bodies in 64 256 1024; do
        "${BUILD:-build}/tests/bench/bench_crowd" "$bodies" 300
    done
fi

# --- core: volumes (jump pads, teleporters, triggers), against the same walks
# in the same world without them: 4, 24 (more than the 19 pads of the
# busiest corpus level) and 96 volumes -----------------------------------------
if bench_section core.volumes; then
    for volumes in 4 24 96; do
        "${BUILD:-build}/tests/bench/bench_volumes" "$volumes" 2000
    done
fi

# --- core: liquids and ladders, against the same walks in the same world
# without them: each walker's feet in a puddle half the time, a ladder
# beside its row; 4, 24 and 96 cells (a puddle and a ladder each) -----------
if bench_section core.liquids; then
    for cells in 4 24 96; do
        "${BUILD:-build}/tests/bench/bench_liquids" "$cells" 2000
    done
fi

# --- authority: honest bots with natural wishes (walk_speed * (cos a, sin a))
# through 5% loss, 0-30 ms jitter, 5% reordering and 3-move redundancy,
# against the world library in simulated time: 200,000 moves, and the rules
# the server named on them, which must be none (flagged=0) ---------------
if bench_section authority; then
    "${BUILD:-build}/tests/bench/bench_authority" "${BUILD:-build}/maps/arena.db" 50 4000
fi

# --- maps: loading a map, read + validate + BVH build -----------------------
# Maps come from sweep-mapgen into the build directory, regenerated when the
# generator is newer than them; one fresh process per size, so rss_mb is
# the peak of loading that map alone; load_ms is the median of 5 loads.
if bench_section maps.load; then
    MAPS_DIR=${BUILD:-build}/bench-maps
    mkdir -p "$MAPS_DIR"
    for tris in 1000 10000 100000 1000000; do
        map="$MAPS_DIR/generated-$tris.db"
        if ! [ "$map" -nt "$BIN/sweep-mapgen" ]; then
            "$BIN/sweep-mapgen" --tris "$tris" --seed 1 --quiet -o "$map"
        fi
        "${BUILD:-build}/tests/bench/bench_maps_load" "$map" 5
    done
fi

# --- maps: importing a Quake 3 level (the corpus, tests/install-corpus.sh) ---
# The corpus level with the most triangles, imported by sweep-import 5 times
# into the build directory: import_ms is the median time to read and convert
# the level (not to write the map), bytes_per_tri the written map's size per
# triangle. Without the corpus (not root, no package) it says why and skips.
if bench_section maps.import_bsp; then
    BSP_DIR=${BUILD:-build}/bench-maps
    BSP_ERR=$(mktemp)
    if BSP_PK3=$(sh tests/install-corpus.sh 2>"$BSP_ERR"); then
        mkdir -p "$BSP_DIR"
        bsp_best="" bsp_best_tris=0
        for m in $("$BIN/sweep-import" "$BSP_PK3" --list); do
            t=$("$BIN/sweep-import" "$BSP_PK3" --bsp "$m" -o "$BSP_DIR/bsp.db" |
                sed -n 's/^sweep-import: imported .*: \([0-9]*\) triangles (.*/\1/p')
            if [ -n "$t" ] && [ "$t" -gt "$bsp_best_tris" ]; then bsp_best=$m bsp_best_tris=$t; fi
        done
        [ -n "$bsp_best" ] || { echo "run-bench: no level of $BSP_PK3 imported" >&2; exit 1; }
        bsp_ms=""
        for _ in 1 2 3 4 5; do
            bsp_ms="$bsp_ms $("$BIN/sweep-import" "$BSP_PK3" --bsp "$bsp_best" -o "$BSP_DIR/bsp.db" |
                sed -n 's/.*; import \([0-9.]*\) ms.*/\1/p')"
        done
        bsp_bytes=$(wc -c <"$BSP_DIR/bsp.db")
        bsp_name=$(basename "$bsp_best" .bsp)
        echo "$bsp_ms" | tr ' ' '\n' | grep . | sort -n | awk -v n="$bsp_name" -v t="$bsp_best_tris" -v b="$bsp_bytes" \
            '{ v[NR] = $1 } END { printf "BENCH name=maps.import_bsp map=%s tris=%d import_ms=%.1f bytes_per_tri=%.1f\n",
                n, t, v[int((NR + 1) / 2)], b / t }'
        rm -f "$BSP_DIR/bsp.db"
    else
        echo "run-bench: maps.import_bsp skipped: $(head -n 1 "$BSP_ERR")"
    fi
    rm -f "$BSP_ERR"
fi

# --- core: every corpus level walked (the real-level workload) -------------
# Each Quake 3 level of the corpus, imported once into the build directory
# (again when sweep-import is newer), walked by 64 walkers for 10,000 steps
# of 1/60 s at Quake's 320 units/s, its movers running: one BENCH
# name=core.level line per level (mean, p50 and p99 cost per move, moves that
# fell back for want of iterations, walkers the core left stuck or inside
# geometry, walkers the level itself traps, walkers out of the level; the
# mean from the walk run again timed a step at a time, the per-move samples'
# own mean, clock reads and all, as ns_per_move_mean_clocked).
# SWEEP_BENCH_LEVEL_STEPS shortens the walk. Skipped, with the reason,
# without the corpus.
if bench_section core.level; then
    LEVEL_ERR=$(mktemp)
    if LEVEL_PK3=$(sh tests/install-corpus.sh 2>"$LEVEL_ERR"); then
        mkdir -p "$LEVEL_DIR"
        for m in $("$BIN/sweep-import" "$LEVEL_PK3" --list); do
            db="$LEVEL_DIR/$(basename "$m" .bsp).db"
            if ! [ "$db" -nt "$BIN/sweep-import" ]; then
                "$BIN/sweep-import" "$LEVEL_PK3" --bsp "$m" -o "$db" --quiet || exit 1
            fi
            "$BIN/sweep-walk" --map "$db" --walkers 64 --steps "${SWEEP_BENCH_LEVEL_STEPS:-10000}" --speed 320 \
                --level-bench | grep '^BENCH name=core.level'
            # What the level's own volumes cost a move near them and away
            # (bench_level_volumes.c says how), on the levels that have some.
            "${BUILD:-build}/tests/bench/bench_level_volumes" "$db" 2000 2>/dev/null || true
        done
    else
        echo "run-bench: core.level skipped: $(head -n 1 "$LEVEL_ERR")"
    fi
    rm -f "$LEVEL_ERR"
    # The same walk on two generated dense levels (sweep-mapgen --dense,
    # maps/levelgen_dense.h; no corpus needed), of about 15,000 triangles in
    # Quake units: floors cut into 48-unit cells, about as fine near a body as
    # the corpus's finest, and into 16-unit cells, finer than any of it, each
    # room with kerbs, a steep wedge, faceted columns, a curved hump and a fence.
    mkdir -p "$LEVEL_DIR"
    for cell in 48 16; do
        db="$LEVEL_DIR/dense-$cell.db"
        if ! [ "$db" -nt "$BIN/sweep-mapgen" ]; then
            "$BIN/sweep-mapgen" --dense --cell "$cell" --tris 15000 -o "$db" --quiet || exit 1
        fi
        "$BIN/sweep-walk" --map "$db" --walkers 64 --steps "${SWEEP_BENCH_LEVEL_STEPS:-10000}" --speed 320 \
            --level-bench | grep '^BENCH name=core.level'
    done
fi

# --- core: against Bullet's kinematic character controller ----------------
# bench_vs_bullet (tests/bench/bench_vs_bullet.c says how): the same walk
# through sweep's core and through Bullet's btKinematicCharacterController
# (Debian's libbullet-dev, single precision), 64 walkers, 1,000 steps of
# 1/60 s, the same starts and headings, 3 rounds; one core.vs_bullet line
# per level (the sample arena, each corpus level imported above, the two
# dense levels), then core.vs_bullet_gmean: the geometric mean of the
# corpus levels' ratios (Bullet's mean cost of a character's update over
# sweep's).
if bench_section core.vs_bullet; then
    VSB_OUT=$(mktemp)
    for db in "${BUILD:-build}/maps/arena.db" "$LEVEL_DIR"/*.db; do
        [ -f "$db" ] || continue
        "${BUILD:-build}/tests/bench/bench_vs_bullet" "$db" 64 1000 3 | tee -a "$VSB_OUT"
    done
    awk '/map=oacmp/ { for (i = 1; i <= NF; i++) if ($i ~ /^ratio=/) { split($i, kv, "="); s += log(kv[2]); n++ } }
         END { if (n) printf "BENCH name=core.vs_bullet_gmean levels=%d ratio=%.1f\n", n, exp(s / n) }' "$VSB_OUT"
    rm -f "$VSB_OUT"
fi

# --- core: lag-compensated queries, and the history behind them ------------
# bench_query (tests/bench/bench_query.c says how): 64 entities walking, each
# kind of query (ray, sweep, overlap, line of sight) 20,000 times at 0, 100
# and 250 ms in the past, one core.query line each, on generated levels and
# on every corpus level imported above; then core.history, what keeping a
# frame adds to a tick of moving N entities, and its bytes an entity a
# second. The queries in thread CPU time, so a busy machine only slows
# them; the history tick by tick on the monotonic clock, medians; read ratios.
if bench_section core.query; then
    for tris in 10000 100000; do
        "${BUILD:-build}/tests/bench/bench_query" --tris "$tris"
    done
    for n in 64 256 1024; do
        "${BUILD:-build}/tests/bench/bench_query" --history "$n"
    done
    if ls "$LEVEL_DIR"/*.db >/dev/null 2>&1; then
        for db in "$LEVEL_DIR"/*.db; do
            "${BUILD:-build}/tests/bench/bench_query" --map "$db" --name "$(basename "$db" .db)" --speed 320
        done
        "${BUILD:-build}/tests/bench/bench_query" --map "$LEVEL_DIR/oacmpdm5.db" --speed 320 --history 64
    else
        echo "run-bench: core.query on the corpus skipped: no corpus levels in $LEVEL_DIR"
    fi
fi

# --- protocol: the wire codec, encode and verify+decode --------------------
# Per message, the median of 9 runs; frames are size-prefixed as over TCP.
if bench_section protocol.codec; then
    "${BUILD:-build}/tests/bench/bench_protocol" 9
fi

# --- client SDK: end to end over loopback ----------------------------------
# sweepd on the arena on a free port of 127.0.0.1 (no rate limit: the
# benchmark is the limit), then sweep-bots for each mode, with one request
# in flight per bot (batches of 16 moves for tcp_batch), and the libuv echo
# baseline of the same message sizes: the machine's ceiling for the same
# traffic. Then sweepd is stopped (SIGTERM).
if bench_section server.sdk; then
    SDK_TMP=$(mktemp -d)
    SDK_PID=""
    sdk_stop() { [ -z "$SDK_PID" ] || { kill "$SDK_PID" 2>/dev/null; wait "$SDK_PID" 2>/dev/null; }; rm -rf "$SDK_TMP"; }
    trap sdk_stop EXIT
    sweepd_start "$SDK_TMP" --map "${BUILD:-build}/maps/arena.db" --rate-limit 0
    SDK_PID=$SWEEPD_PID SDK_TCP=$SWEEPD_TCP SDK_UDP=$SWEEPD_UDP
    "$BIN/sweep-bots" --connect "$SDK_TCP" --clients "$SDK_CLIENTS" --batch 16 \
        --duration "$SDK_SECONDS" --bench-line tcp_batch
    "$BIN/sweep-bots" --connect "$SDK_TCP" --clients "$SDK_CLIENTS" \
        --duration "$SDK_SECONDS" --bench-line tcp_single
    "$BIN/sweep-bots" --connect "$SDK_UDP" --udp --clients "$SDK_CLIENTS" \
        --duration "$SDK_SECONDS" --bench-line udp_single
    sdk_stop
    trap - EXIT
    "${BUILD:-build}/tests/bench/bench_echo" tcp "$SDK_CLIENTS" "$SDK_SECONDS"
    "${BUILD:-build}/tests/bench/bench_echo" udp "$SDK_CLIENTS" "$SDK_SECONDS"
fi

# --- server: lag-compensated queries through sweepd -------------------------
# sweepd on the arena without a query rate (the benchmark is the limit);
# tests/bench/bench_queries.c: 32 targets with hit shapes, SDK_CLIENTS
# player sessions asking Queries of 16 rays each at a past fractional
# tick, one in flight each, over TCP then UDP.
if bench_section server.query; then
    Q_TMP=$(mktemp -d)
    sweepd_start "$Q_TMP" --map "${BUILD:-build}/maps/arena.db" --rate-limit 0 --query-rate 0 \
        --command-token bench-query-token
    Q_PID=$SWEEPD_PID
    "${BUILD:-build}/tests/bench/bench_queries" "$SWEEPD_TCP" bench-query-token tcp "$SDK_CLIENTS" 16 "$SDK_SECONDS" 32
    "${BUILD:-build}/tests/bench/bench_queries" "$SWEEPD_UDP" bench-query-token udp "$SDK_CLIENTS" 16 "$SDK_SECONDS" 32
    kill "$Q_PID" 2>/dev/null || true
    wait "$Q_PID" 2>/dev/null || true
    rm -rf "$Q_TMP"
fi

# --- server: two worlds on one thread and on two (sweepd --threads) --------
# tests/bench/bench_threads.sh says how: medians of alternating runs, ratio.
if bench_section server.threads; then
    BUILD=${BUILD:-build} sh tests/bench/bench_threads.sh 3 "$SDK_SECONDS" 8
fi

# --- server: recording sessions, and replaying them (sweepd --record) -------
# replay: sweepd --record on the arena with 16 honest players (sweep-bots
# --mode honest, 60 moves/s each) for SWEEP_BENCH_REPLAY_SECONDS (default
# 20: a 5 s log held about 1.4 ms of core time on the arena, and its
# ratio_to_core spread 0.85-1.01 between runs, 20 s 0.88-0.94), then bench_replay on the log: the whole log replayed in-process and
# checked bit for bit at both depths, against sweep_act alone on the same
# moves with the inputs the server gave them, alternating, 21 runs each
# (about 2 s a log: with 5, a 20 s arena log's ratio_to_core came out
# 0.905-0.963 between benches of the same build, with 21 0.920-0.931).
# moves_per_s is the core depth's median (the replay that is "the core plus
# reading": sweep-replay --core), ratio_to_core its moves/s over the core's
# on its own (the same moves, triggers and movers' ticks, collected from a
# run of the core depth, run again in the same order on fresh movers with
# nothing in between, every actor and tick checked bit for bit),
# ratio_to_core_warm over the core's moves run again by sweep_act just
# before each tick beside the replay, right after the replay ran them
# (cache-warm: about 6% faster a move than on its own on the arena, 20%
# on oacmpdm7),
# ratio_to_act over sweep_act alone as run again beside the replay,
# full_moves_per_s and full_ratio_to_core the same for the full depth
# (against the core on its own), cpu_ratio the core depth's CPU time (every thread) over
# its wall time, bytes_per_move the log's size per move, cpus the CPUs it
# may run on, read_ns_per_move what reading the log's bytes and summing
# them costs a move alone and ratio_ceiling the ratio_to_core a core depth
# doing nothing else besides the core would reach; the lines before it say how many core results equal the
# recorded ones. Each log is replayed twice: with the CPUs the bench has
# (two or more: the log mapped, a thread reading ahead) and pinned to one
# (cpus=1: the log streamed into buffers, no thread, cpu_ratio 1). With the corpus, the same on its level with the
# most movers, imported by sweep-import (the bots take its spawn points and
# rules from --map); without it, that one is skipped with the reason.
#
# server.record: sweepd on the arena under sweep-bots load (4 clients,
# batches of 8, as fast as answered), a fresh sweepd for each run, with and
# without --record into a temporary directory, 5 runs each, alternating (in
# turn which goes first): moves_per_s is the recorded median,
# ratio_to_unrecorded the recorded median over the unrecorded one,
# ratio_min and ratio_max the range of each round's pair's ratio. Bots and
# server share the machine's cores (2 on the machine this was written for),
# so a move's cost on either side counts; the log (a few hundred MB per run, written through the page
# cache) is removed after each run. sweepd is stopped by its pid (SIGTERM).
if bench_section server.record; then
    REC_TMP=$(mktemp -d)
    REC_PID=""
    REC_TCP=""
    REC_LOGS=""
    rec_stop() {
        sweepd_stop "$REC_PID"
        REC_PID=""
    }
    rec_cleanup() { rec_stop; rm -rf "$REC_TMP"; }
    trap rec_cleanup EXIT
    # rec_start MAP [OPTION...]: sweepd on MAP (sweepd_start); its TCP address
    # in REC_TCP. REC_LOGS, when set, is the directory its --record option
    # names, made empty before each start.
    rec_start() {
        rec_map=$1
        shift
        SWEEPD_EMPTY=$REC_LOGS
        sweepd_start "$REC_TMP" --map "$rec_map" "$@"
        SWEEPD_EMPTY=""
        REC_PID=$SWEEPD_PID REC_TCP=$SWEEPD_TCP
    }
    # rec_one_cpu: the highest CPU this shell may run on (taskset -c takes it).
    rec_one_cpu() {
        taskset -pc $$ | sed 's/.*: *//' | tr ',' '\n' | sed 's/.*-//' | sort -n | tail -n 1
    }
    # rec_replay MAP: records the honest players on MAP, then replays the log.
    rec_replay() {
        REC_LOGS="$REC_TMP/logs"
        rec_start "$1" --record "$REC_LOGS"
        if ! "$BIN/sweep-bots" --connect "$REC_TCP" --mode honest --map "$1" --clients 16 \
            --duration "${SWEEP_BENCH_REPLAY_SECONDS:-20}" >"$REC_TMP/bots"; then
            # The log is still a session to replay; say what the players saw.
            echo "run-bench: honest players on $1 saw errors or corrections:" >&2
            cat "$REC_TMP/bots" >&2
        fi
        rec_stop
        "${BUILD:-build}/tests/bench/bench_replay" "$REC_LOGS"/*.sweeplog 21
        # Again on one CPU (cpus=1): the replay then streams the log and starts
        # no thread, the figure for a machine with no CPU to spare.
        taskset -c "$(rec_one_cpu)" "${BUILD:-build}/tests/bench/bench_replay" "$REC_LOGS"/*.sweeplog 21
        rm -rf "$REC_LOGS"
        REC_LOGS=""
    }
    rec_replay "${BUILD:-build}/maps/arena.db"
    if REC_PK3=$(sh tests/install-corpus.sh 2>"$REC_TMP/corpus"); then
        rec_best="" rec_best_movers=-1
        for m in $("$BIN/sweep-import" "$REC_PK3" --list); do
            n=$("$BIN/sweep-import" "$REC_PK3" --bsp "$m" -o "$REC_TMP/level.db" |
                sed -n 's/.* \([0-9]*\) movers (.*/\1/p')
            if [ -n "$n" ] && [ "$n" -gt "$rec_best_movers" ]; then rec_best=$m rec_best_movers=$n; fi
        done
        [ -n "$rec_best" ] || { echo "run-bench: no level of $REC_PK3 imported" >&2; exit 1; }
        rec_level="$REC_TMP/$(basename "$rec_best" .bsp).db"
        "$BIN/sweep-import" "$REC_PK3" --bsp "$rec_best" -o "$rec_level" --quiet
        rec_replay "$rec_level"
    else
        echo "run-bench: replay on a corpus level skipped: $(head -n 1 "$REC_TMP/corpus")"
    fi

    rec_runs=""
    for round in 1 2 3 4 5; do
        if [ $((round % 2)) = 1 ]; then rec_order="plain record"; else rec_order="record plain"; fi
        for mode in $rec_order; do
            if [ "$mode" = record ]; then
                REC_LOGS="$REC_TMP/load"
                rec_start "${BUILD:-build}/maps/arena.db" --rate-limit 0 --record "$REC_LOGS"
            else
                REC_LOGS=""
                rec_start "${BUILD:-build}/maps/arena.db" --rate-limit 0
            fi
            mps=$("$BIN/sweep-bots" --connect "$REC_TCP" --clients 4 --rate 0 --batch 8 --duration 3 --warmup 0.5 |
                sed -n 's/^throughput: *\([0-9.]*\) moves\/s.*/\1/p')
            rec_stop
            rm -rf "$REC_TMP/load"
            REC_LOGS=""
            [ -n "$mps" ] || { echo "run-bench: sweep-bots measured nothing ($mode)" >&2; exit 1; }
            rec_runs="$rec_runs $mode=$mps:$round"
        done
    done
    echo "$rec_runs" | tr ' ' '\n' | grep . | awk -F'[=:]' '
        function median(v, n,    i, j, t) {
            for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
        }
        $1 == "record" { r[++nr] = $2; rr[$3] = $2 } $1 == "plain" { p[++np] = $2; pr[$3] = $2 }
        END { mr = median(r, nr); mp = median(p, np)
              # The spread: each round, its recorded run over its unrecorded one.
              for (k in rr) if (pr[k] > 0) { q = rr[k] / pr[k]; if (!nq++ || q < lo) lo = q; if (nq == 1 || q > hi) hi = q }
              printf "BENCH name=server.record moves_per_s=%.0f ratio_to_unrecorded=%.3f ratio_min=%.3f ratio_max=%.3f\n",
                  mr, (mp > 0 ? mr / mp : 0), lo, hi }'
    rec_cleanup
    trap - EXIT
fi

# --- server: players at 60 Hz over UDP, and sweepd's CPU time per move -----
# sweepd on the arena on a free port of 127.0.0.1 (per-address limits raised:
# every bot comes from 127.0.0.1; the world's history sized for every
# player, past 1,024 a Spawn is refused), then sweep-bots --udp --rate 60 with 500,
# 1,000 and 2,000 clients, each a player sending one single-move datagram
# every 1/60 s, SWEEP_BENCH_UDP60_RUNS times each (default 3, in turn, a
# fresh sweepd each time). Once the bots move, after a second of warmup,
# the window of SWEEP_BENCH_UDP60_SECONDS (default 5) is measured from the
# outside: sweepd's and sweep-bots' utime+stime (/proc/PID/stat) and
# sweepd's moves_total (`sweep stats`) at both ends. moves_per_s,
# server_cpu_us_per_move and bots_cpu_us_per_move come from those; p50_us,
# p99_us and lost (moves unanswered for a second) from the bots, over their
# own window, which covers it. Each figure is the median of the runs,
# p99_us_min and p99_us_max the range of the runs' p99s. Bots
# and server share the machine's cores, so the bots' CPU per move stands
# beside the server's: were the bots the dearer of the two, the figures
# would measure them. Latencies run from a move's send to the kernel's
# arrival time of its answer (libsweep's received_ns), so the bots' own
# delay in coming to read is not counted as the server's. Then
# server.udp_60hz_realtime: the 2,000 players' runs again with sweepd
# --realtime 10, where the shell may run at a real-time priority (else a
# line says it was skipped).
if bench_section server.udp_60hz; then
    U60_TMP=$(mktemp -d)
    U60_PID=""
    u60_stop() {
        sweepd_stop "$U60_PID"
        U60_PID=""
    }
    u60_cleanup() { u60_stop; rm -rf "$U60_TMP"; }
    trap u60_cleanup EXIT
    U60_SECONDS=${SWEEP_BENCH_UDP60_SECONDS:-5}
    U60_HZ=$(getconf CLK_TCK)
    # The CPU ticks process $1 has used: utime + stime, the 14th and 15th fields
    # after its name (which holds no space: "(sweepd)", "(sweep-bots)").
    u60_cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
    u60_run() {
        n=$1
        # U60_OPTS: more sweepd options ($U60_OPTS unquoted: words).
        sweepd_start "$U60_TMP" --map "${BUILD:-build}/maps/arena.db" \
            --max-sessions $((n + 64)) --max-sessions-per-address $((n + 64)) --max-conns-per-address 64 \
            --history-entities $((n + 64)) ${U60_OPTS:-}
        U60_PID=$SWEEPD_PID U60_TCP=$SWEEPD_TCP U60_UDP=$SWEEPD_UDP
        "$BIN/sweep-bots" --connect "$U60_UDP" --udp --rate 60 --clients "$n" --warmup 1 \
            --duration $((U60_SECONDS + 2)) >"$U60_TMP/bots" 2>"$U60_TMP/bots.err" &
        u60_bots=$!
        # The bots move once all have their session and player: then a second
        # of warmup, and the window.
        sweepd_wait_moving "$U60_TCP"
        sleep 1
        c0=$(u60_cpu "$U60_PID") b0=$(u60_cpu "$u60_bots") m0=$(sweepd_moves "$U60_TCP")
        sleep "$U60_SECONDS"
        c1=$(u60_cpu "$U60_PID") b1=$(u60_cpu "$u60_bots") m1=$(sweepd_moves "$U60_TCP")
        wait "$u60_bots" || { echo "run-bench: sweep-bots failed ($n clients):" >&2; cat "$U60_TMP/bots.err" >&2; }
        u60_stop
        awk -v n="$n" -v c="$((c1 - c0))" -v b="$((b1 - b0))" -v m="$((m1 - m0))" -v hz="$U60_HZ" -v s="$U60_SECONDS" '
            /^moves:/ { lost = $(NF - 1) }
            /^latency us:/ { p50 = $4; p99 = $8 }
            END { printf "%d %.0f %.2f %s %s %s %.2f\n", n, m / s, (m > 0 ? c * 1e6 / hz / m : 0), p50, p99, lost,
                         (m > 0 ? b * 1e6 / hz / m : 0) }' \
            "$U60_TMP/bots" >>"${U60_RUNS:-$U60_TMP/runs}"
    }
    : >"$U60_TMP/runs"
    for round in $(seq "${SWEEP_BENCH_UDP60_RUNS:-3}"); do
        for n in 500 1000 2000; do
            u60_run "$n"
        done
    done
    # The same 2,000 players with sweepd's loop at a real-time priority
    # (--realtime 10), where this shell may give one: what the machine's
    # other threads cost the tail beside sweepd's path (docs/performance.md,
    # "What holds 2,000 players' answers up on this machine"). A line of
    # its own name: the target is judged on the lines above.
    : >"$U60_TMP/runs_rt"
    if chrt -f 1 true 2>/dev/null; then
        U60_OPTS="--realtime 10" U60_RUNS="$U60_TMP/runs_rt"
        for round in $(seq "${SWEEP_BENCH_UDP60_RUNS:-3}"); do
            u60_run 2000
        done
        U60_OPTS="" U60_RUNS=""
    else
        echo "run-bench: server.udp_60hz_realtime skipped: this shell may not run at a real-time priority (chrt -f 1 true failed)"
    fi
    for n in 500 1000 2000 rt; do
        runs="$U60_TMP/runs" name=server.udp_60hz
        if [ "$n" = rt ]; then runs="$U60_TMP/runs_rt" name="server.udp_60hz_realtime" n=2000; fi
        [ -s "$runs" ] || continue
        awk -v n="$n" -v name="$name" '
            function median(v, k,    i, j, t) {
                for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
                return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
            }
            $1 == n { k++; for (f = 2; f <= 7; f++) { col[f, k] = $f } }
            END {
                lo = hi = col[5, 1]
                for (i = 2; i <= k; i++) { if (col[5, i] < lo) lo = col[5, i]; if (col[5, i] > hi) hi = col[5, i] }
                for (f = 2; f <= 7; f++) { for (i = 1; i <= k; i++) v[i] = col[f, i]; med[f] = median(v, k) }
                printf "BENCH name=%s players=%d%s moves_per_s=%.0f server_cpu_us_per_move=%.2f bots_cpu_us_per_move=%.2f p50_us=%.1f p99_us=%.1f lost=%d p99_us_min=%.1f p99_us_max=%.1f\n",
                    name, n, (name ~ /realtime/ ? " realtime=10" : ""), med[2], med[3], med[7], med[4], med[5], med[6], lo, hi
            }' "$runs"
    done
    u60_cleanup
    trap - EXIT
fi

# --- server: sweepd's own CPU time per UDP move, kept busy ------------------
# sweepd on the arena on a free port of 127.0.0.1 (per-address limits raised),
# then 200 sweep-bots --udp players with 4 single-move datagrams in flight
# each (--rate 0 --window 4: the server always has moves waiting, as near its
# saturation as the bots sharing its cores can push it),
# SWEEP_BENCH_UDPCOST_RUNS times (default 3, a fresh sweepd each time). Over
# a window of SWEEP_BENCH_UDPCOST_SECONDS (default 5), after a second of
# warmup: sweepd's utime and stime (/proc/PID/stat) over the moves it
# applied (`sweep stats` moves_total). server_cpu_us_per_move is their sum
# per move, user_us and sys_us its two parts (sys: the kernel's work on
# sweepd's behalf, most of it sending the answers, loopback delivery to the
# bots included), moves_per_server_core_s what one core of sweepd's at that
# cost would answer; moves_per_s is what the shared machine did. Medians of
# the runs; moves_per_server_core_s_min and _max the range of the runs'.
if bench_section server.udp_cost; then
    UC_TMP=$(mktemp -d)
    UC_PID=""
    uc_stop() {
        sweepd_stop "$UC_PID"
        UC_PID=""
    }
    uc_cleanup() { uc_stop; rm -rf "$UC_TMP"; }
    trap uc_cleanup EXIT
    UC_SECONDS=${SWEEP_BENCH_UDPCOST_SECONDS:-5}
    UC_CLIENTS=200
    UC_HZ=$(getconf CLK_TCK)
    # utime and stime: the 14th and 15th fields after the name "(sweepd)".
    uc_cpu() { awk '{ print $14, $15 }' "/proc/$UC_PID/stat"; }
    : >"$UC_TMP/runs"
    for round in $(seq "${SWEEP_BENCH_UDPCOST_RUNS:-3}"); do
        sweepd_start "$UC_TMP" --map "${BUILD:-build}/maps/arena.db" \
            --max-sessions $((UC_CLIENTS + 64)) --max-sessions-per-address $((UC_CLIENTS + 64))
        UC_PID=$SWEEPD_PID UC_TCP=$SWEEPD_TCP UC_UDP=$SWEEPD_UDP
        "$BIN/sweep-bots" --connect "$UC_UDP" --udp --rate 0 --window 4 --clients "$UC_CLIENTS" --warmup 1 \
            --duration $((UC_SECONDS + 2)) >"$UC_TMP/bots" 2>"$UC_TMP/bots.err" &
        uc_bots=$!
        sweepd_wait_moving "$UC_TCP"
        sleep 1
        c0=$(uc_cpu) m0=$(sweepd_moves "$UC_TCP")
        sleep "$UC_SECONDS"
        c1=$(uc_cpu) m1=$(sweepd_moves "$UC_TCP")
        wait "$uc_bots" || { echo "run-bench: sweep-bots failed (udp_cost):" >&2; cat "$UC_TMP/bots.err" >&2; }
        uc_stop
        echo "$c0 $c1 $m0 $m1" | awk -v hz="$UC_HZ" -v s="$UC_SECONDS" '{
            m = $6 - $5; u = ($3 - $1) * 1e6 / hz; k = ($4 - $2) * 1e6 / hz
            if (m > 0) printf "%.0f %.3f %.3f %.3f\n", m / s, (u + k) / m, u / m, k / m }' >>"$UC_TMP/runs"
    done
    awk -v n="$UC_CLIENTS" '
        function median(v, k,    i, j, t) {
            for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
            return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        { k++; for (f = 1; f <= 4; f++) col[f, k] = $f }
        END {
            if (k == 0) { print "run-bench: server.udp_cost measured nothing" > "/dev/stderr"; exit 1 }
            lo = hi = col[2, 1]
            for (i = 2; i <= k; i++) { if (col[2, i] < lo) lo = col[2, i]; if (col[2, i] > hi) hi = col[2, i] }
            for (f = 1; f <= 4; f++) { for (i = 1; i <= k; i++) v[i] = col[f, i]; med[f] = median(v, k) }
            printf "BENCH name=server.udp_cost clients=%d window=4 moves_per_s=%.0f server_cpu_us_per_move=%.2f user_us=%.2f sys_us=%.2f moves_per_server_core_s=%.0f moves_per_server_core_s_min=%.0f moves_per_server_core_s_max=%.0f\n",
                n, med[1], med[2], med[3], med[4], (med[2] > 0 ? 1e6 / med[2] : 0), (hi > 0 ? 1e6 / hi : 0), (lo > 0 ? 1e6 / lo : 0)
        }' "$UC_TMP/runs"
    uc_cleanup
    trap - EXIT
fi

# --- server: the kernel's floor under server.udp_cost -----------------------
# The same traffic (200 sockets, 4 datagrams of a Move's size in flight
# each, over loopback) answered by a server that does nothing but read it
# with recvmmsg and answer each with a MoveResult's size in one sendmmsg
# (tests/bench/bench_udp_floor.c): its CPU a datagram is what the kernel
# charges the answering process before any of sweepd's work, the floor
# under server_cpu_us_per_move above. Medians of 3 runs of 4 s.
if bench_section server.udp_floor; then
    "${BUILD:-build}/tests/bench/bench_udp_floor" 200 4 4 3
fi

# --- server: a game server relaying 1,000 players at 60 Hz, watching them ---
# tests/bench/bench_game_server.sh says how: a fresh sweepd a run, the
# example relay_server as the game server over TCP and over UDP, its
# batches in step with sweepd's ticks (SWEEP_BENCH_GAME_ALIGN), medians of
# SWEEP_BENCH_GAME_RUNS runs (3) of SWEEP_BENCH_GAME_SECONDS (10) each.
if bench_section server.game_server; then
    BUILD=${BUILD:-build} sh tests/bench/bench_game_server.sh
fi

# --- server: a soak, 10,000 sessions for minutes, alone and under attack ----
# bench_soak starts sweepd on the arena (per-address limits raised: every
# client is on 127.0.0.1) and holds 10,000 sessions, TCP and UDP in turn,
# 1,000 moving 60 times a second and the rest twice a second, for
# SWEEP_SOAK_SECONDS after a ramp and 3 s of play: moves_per_s, the 60 Hz
# players' p50/p99 (send to the kernel's arrival time of the answer, each
# answer timed however late: latency_samples of them; late_answers came
# after their send was forgotten, 1,024 sends later), sweepd's VmRSS at
# start, after the ramp and at the end, and the honest sessions' errors
# (must be 0). Then the same on a fresh sweepd with 200 hostile clients
# beside them (sweep-bots cheaters, garbage and oversized frames, endless
# Hellos, slow readers, UDP floods): honest_p99_us next to the first run's,
# p99_ratio (goal: under 2), twice: server.soak_hostile with the hostile
# processes at SCHED_IDLE (they take only CPU time the server and the
# honest clients leave: the server's own part of the harm), and
# server.soak_hostile_shared with them as equals on the shared cores (the
# machine's part added). Each line also gives offered_per_s (moves sent a
# second) and the CPU sweepd, the soak's client and the hostile processes
# used (server_cpu, client_cpu, hostile_cpu; 1.0 = a whole CPU): where the
# server or the client is near 1.0, the p99 is a queue's. udp_p99_us is the
# UDP sessions' alone (a TCP read stamps every answer it holds with its
# newest segment's arrival, so a late client inflates TCP's), with
# udp_p99_ratio on the hostile lines. The full soak is
# SWEEP_SOAK_SECONDS=180 (three
# runs of 3 minutes); `make bench` runs 30 s of each by default. It raises
# its descriptor limit to the hard limit and skips, saying so, below
# 10,712. Honest errors fail the benchmark, with the end of sweepd's log.
if bench_section server.soak; then
    SOAK_LOG=$(mktemp)
    if ! "${BUILD:-build}/tests/bench/bench_soak" --sweepd "$BIN/sweepd" --bots "$BIN/sweep-bots" \
        --map "${BUILD:-build}/maps/arena.db" --seconds "${SWEEP_SOAK_SECONDS:-30}" --server-log "$SOAK_LOG"; then
        echo "run-bench: server.soak failed or honest sessions saw errors; sweepd's log ends:" >&2
        tail -n 20 "$SOAK_LOG" >&2
        rm -f "$SOAK_LOG"
        exit 1
    fi
    rm -f "$SOAK_LOG"
fi

# --- the host again, at the end (see the first section) ----------------------
if bench_section host; then
    "${BUILD:-build}/tests/bench/bench_host" end
fi

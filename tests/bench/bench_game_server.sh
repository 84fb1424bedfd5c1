#!/bin/sh
# bench_game_server.sh - a game server relaying 1,000 players to sweepd at
# 60 Hz and watching every entity: what it costs sweepd and how long a
# tick's round trip takes. One line a transport:
#   BENCH name=server.game_server entities=1000 hz=60 moves_per_s=...
#     server_cpu_us_per_move=... tick_rtt_p50_us=... tick_rtt_p99_us=...
#     watch_bytes_per_tick=... errors=... lost=... align_us=...
# (TCP; a UDP line names transport=udp and datagram=N, the datagram size
# the handshake agreed, after the name). Besides their figures the lines
# say a tick's frames each way as the relay counted them
# (frames_sent_per_tick, frames_received_per_tick: over UDP datagrams) and
# the MoveBatch size libsweep cut to (max_batch).
#
# A fresh sweepd for each run, on the arena on a free port of 127.0.0.1:
# the server role by a --command-token in a config file, the session's cap
# (--max-entities-server) above 1,000, no rate limit (a session relaying
# 1,000 players at 60 Hz sends 60,000 moves a second, three times the
# default --rate-limit), and a time bank of 10 s so that a scheduler
# stall on a loaded machine does not cut an honest player. Then the
# example game server, build/examples/relay_server: one session, 1,000
# entities spawned with Spawn.player (held to the player rules), a batch
# of all 1,000 moves every 1/60 s (libsweep cuts it to Welcome.max_batch),
# each batch sent SWEEP_BENCH_GAME_ALIGN microseconds (default 2000) after
# sweepd's tick as libsweep's tick clock places it (relay --align-us; -1:
# at the relay's own pace, whatever the phase between its ticks and
# sweepd's), and WatchEntities every tick, for SWEEP_BENCH_GAME_SECONDS (default 10),
# the first 2 s of it a warmup. Its own figures, over the ticks sent after
# the warmup: a tick's round trip from the send of its batch to the
# kernel's arrival time of its last answer (p50, p99), and the bytes of the
# EntityStates pushes a tick. sweepd's from the outside, over a window from
# 2 s after its first move to 1 s before the relay ends: its utime+stime
# (/proc/PID/stat) over the moves it applied (`sweep stats` moves_total),
# and those moves a second. errors (moves refused, claims corrected) and
# lost (moves unanswered) are totals over the runs: an honest relay has
# none, and a run that had some says so on stderr.
#
# The transports, SWEEP_BENCH_GAME_TRANSPORTS: tcp, udp (datagrams of
# 1,200 bytes, the protocol's own) and udpN (sweepd --udp-max-datagram N
# and the relay asking for N: the session agrees N, 1,200 to 65,507); the
# default "tcp udp udp65507". Over loopback, whose MTU is 65,536, a
# datagram of 65,507 bytes is one packet; a UDP sweepd also gets
# --max-batch 1024, so that a MoveBatch holds what one datagram does
# (at 1,200 bytes, a dozen or so moves, whatever --max-batch says).
#
# SWEEP_BENCH_GAME_RUNS runs per transport (default 3), alternating the
# transports; each figure is the median of the runs. The relay, sweepd and
# whatever else runs share the machine's cores: the round trips include
# the scheduler's delays, which is what a game server on a busy host sees.
#
# Usage: BUILD=build [SWEEP_BENCH_GAME_RUNS=3] [SWEEP_BENCH_GAME_SECONDS=10]
#        [SWEEP_BENCH_GAME_TRANSPORTS="tcp udp udp65507"] [SWEEP_BENCH_GAME_ALIGN=2000]
#        sh tests/bench/bench_game_server.sh
set -eu
BIN=${BUILD:-build}/bin
RELAY=${BUILD:-build}/examples/relay_server
MAP=${BUILD:-build}/maps/arena.db
RUNS=${SWEEP_BENCH_GAME_RUNS:-3}
SECONDS_RUN=${SWEEP_BENCH_GAME_SECONDS:-10}
TRANSPORTS=${SWEEP_BENCH_GAME_TRANSPORTS:-tcp udp udp65507}
ALIGN=${SWEEP_BENCH_GAME_ALIGN:-2000}
ENTITIES=1000
HZ=60
WARMUP=2
WINDOW=$((SECONDS_RUN - WARMUP - 1))
[ "$WINDOW" -ge 1 ] || { echo "bench_game_server: SWEEP_BENCH_GAME_SECONDS must be 4 or more" >&2; exit 2; }
CLK=$(getconf CLK_TCK)
TMP=$(mktemp -d)
PID=
RELAY_PID=
cleanup() {
    [ -z "$RELAY_PID" ] || { kill "$RELAY_PID" 2>/dev/null; wait "$RELAY_PID" 2>/dev/null; }
    [ -z "$PID" ] || { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; }
    rm -rf "$TMP"
}
trap cleanup EXIT INT TERM

printf 'command-token = bench-game-server\n' >"$TMP/sweepd.conf"

# The CPU ticks sweepd has used: utime + stime, the 14th and 15th fields
# after its name "(sweepd)", which holds no space.
cpu() { awk '{ print $14 + $15 }' "/proc/$PID/stat"; }
moves() { "$BIN/sweep" stats --connect "$TCP" | sed -n 's/.* moves_total=\([0-9]*\) .*/\1/p'; }

# run TRANSPORT: one sweepd, one relay; appends "TRANSPORT moves_per_s
# cpu_us_per_move p50 p99 watch_bytes errors lost max_batch frames_sent
# frames_received datagram" to $TMP/runs.
run() {
    rm -f "$TMP/ready"
    case $1 in
    udp) datagram=1200 ;;
    udp*) datagram=${1#udp} ;;
    *) datagram= ;;
    esac
    if [ -n "$datagram" ]; then wide="--udp-max-datagram $datagram --max-batch 1024"; else wide=; fi
    # shellcheck disable=SC2086 # $wide is two options or none
    "$BIN/sweepd" --listen 127.0.0.1:0 --log-level warn --map "$MAP" --config "$TMP/sweepd.conf" \
        --max-entities-server $((ENTITIES + 24)) --rate-limit 0 --time-bank 10 $wide >"$TMP/ready" 2>"$TMP/log" &
    PID=$!
    i=0
    while ! grep -q '^sweepd ready' "$TMP/ready" 2>/dev/null && kill -0 "$PID" 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    TCP=$(sed -n 's/^sweepd ready tcp=\([^ ]*\) udp=.*/\1/p' "$TMP/ready")
    UDP=$(sed -n 's/^sweepd ready tcp=[^ ]* udp=\([^ ]*\).*/\1/p' "$TMP/ready")
    [ -n "$UDP" ] || { echo "bench_game_server: sweepd did not start:" >&2; cat "$TMP/log" >&2; exit 1; }
    if [ -n "$datagram" ]; then set -- "$1" "$UDP" --udp --udp-max-datagram "$datagram"; else set -- tcp "$TCP"; fi
    transport=$1 address=$2
    shift 2
    SWEEP_TOKEN=bench-game-server "$RELAY" --connect "$address" "$@" --entities "$ENTITIES" --rate "$HZ" \
        --watch 1 --duration "$SECONDS_RUN" --warmup "$WARMUP" --align-us "$ALIGN" >"$TMP/relay" 2>"$TMP/relay.err" &
    RELAY_PID=$!
    # The relay moves once its players are spawned: a minute at most.
    i=0
    while m=$(moves) && [ "${m:-0}" = 0 ] && kill -0 "$RELAY_PID" 2>/dev/null && [ $i -lt 600 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sleep "$WARMUP"
    c0=$(cpu) m0=$(moves)
    sleep "$WINDOW"
    c1=$(cpu) m1=$(moves)
    relay_rc=0
    wait "$RELAY_PID" || relay_rc=$?
    RELAY_PID=
    kill "$PID"
    wait "$PID" || true
    PID=
    line=$(grep '^relay transport=' "$TMP/relay" || true)
    if [ -z "$line" ]; then
        echo "bench_game_server: the relay ($transport) measured nothing (exit $relay_rc):" >&2
        cat "$TMP/relay.err" "$TMP/log" >&2
        exit 1
    fi
    if [ "$relay_rc" != 0 ]; then
        echo "bench_game_server: the relay ($transport) saw refusals or losses:" >&2
        cat "$TMP/relay" "$TMP/relay.err" >&2
    fi
    echo "$line" | awk -v t="$transport" -v c=$((c1 - c0)) -v m=$((m1 - m0)) -v hz="$CLK" -v s="$WINDOW" '
        function field(k,    i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "" }
        { printf "%s %.0f %.2f %s %s %s %d %d %s %s %s %s\n", t, m / s, (m > 0 ? c * 1e6 / hz / m : 0),
                 field("tick_rtt_p50_us"), field("tick_rtt_p99_us"), field("watch_bytes_per_tick"),
                 field("errors") + field("corrections"), field("lost"), field("max_batch"),
                 field("frames_sent_per_tick"), field("frames_received_per_tick"), field("datagram") }' >>"$TMP/runs"
}

: >"$TMP/runs"
for round in $(seq "$RUNS"); do
    for t in $TRANSPORTS; do
        run "$t"
    done
done
for t in $TRANSPORTS; do
    awk -v t="$t" -v n="$ENTITIES" -v hz="$HZ" -v align="$ALIGN" '
        function median(v, k,    i, j, x) {
            for (i = 2; i <= k; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { x = v[j]; v[j] = v[j - 1]; v[j - 1] = x }
            return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
        }
        $1 == t { k++; for (f = 2; f <= 6; f++) col[f, k] = $f; for (f = 10; f <= 11; f++) col[f, k] = $f
                  errors += $7; lost += $8; batch = $9; datagram = $12 }
        END {
            if (k == 0) exit 1
            for (f = 2; f <= 11; f++) { if (f >= 7 && f <= 9) continue; for (i = 1; i <= k; i++) v[i] = col[f, i]; med[f] = median(v, k) }
            printf "BENCH name=server.game_server%s entities=%d hz=%d moves_per_s=%.0f server_cpu_us_per_move=%.2f tick_rtt_p50_us=%.0f tick_rtt_p99_us=%.0f watch_bytes_per_tick=%.0f max_batch=%d frames_sent_per_tick=%.1f frames_received_per_tick=%.1f errors=%d lost=%d align_us=%d\n",
                (t == "tcp" ? "" : " transport=udp datagram=" datagram), n, hz, med[2], med[3], med[4], med[5], med[6],
                batch, med[10], med[11], errors, lost, align
        }' "$TMP/runs"
done

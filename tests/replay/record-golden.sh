#!/bin/sh
# record-golden.sh - records the golden session logs of tests/replay/golden/
# with the built programs (run `make` first): for each scenario it starts
# sweepd --record on the arena in a temporary directory, drives it with
# sweep-bots and the sweep CLI for a second or two, stops it with SIGTERM,
# copies the one log it wrote to golden/<scenario>.sweeplog and checks that
# sweep-replay matches it. Nothing is kept when a scenario fails.
#
#   tests/replay/record-golden.sh              every scenario
#   tests/replay/record-golden.sh movers       only the ones named
#   tests/replay/record-golden.sh --reanswer [movers ...]
#                                              no recording: the logs keep
#       their requests, ticks, ids and format version, and take this
#       build's answers and state hashes (sweep-replay --reanswer)
#
# BUILD (default build) is the build directory; KEEP=1 keeps the temporary
# directory (the servers' logs, the clients' output) for a look. The logs are small on
# purpose (a few clients, a few seconds at most): they live in git, and
# test_replay replays each on every `make test`. See README.md for when
# they are re-recorded.
set -eu
root=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${BUILD:-build}
case $BUILD in
/*) build=$BUILD ;;
*) build=$root/$BUILD ;;
esac
bin=$build/bin
map=$build/maps/arena.db
golden=$root/tests/replay/golden
# The server role for the movers scenario. Only a throwaway server on
# 127.0.0.1 port 0 trusts it; sweep reads it from SWEEP_TOKEN, not argv.
token=golden-recording-command-token

for p in sweepd sweep sweep-bots sweep-replay; do
    [ -x "$bin/$p" ] || { echo "record-golden: $bin/$p is missing: run make first" >&2; exit 2; }
done
[ -f "$map" ] || { echo "record-golden: $map is missing: run make first" >&2; exit 2; }

work=$(mktemp -d /tmp/sweep-golden-XXXXXX)
pid=
cleanup() {
    # Only the server this script started, by its pid.
    if [ -n "$pid" ]; then
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    fi
    if [ -n "${KEEP:-}" ]; then
        echo "record-golden: kept $work" >&2
    else
        rm -rf "$work"
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

fail() {
    echo "record-golden: $scenario: $*" >&2
    [ -f "$work/$scenario/sweepd.log" ] && sed 's/^/  sweepd: /' "$work/$scenario/sweepd.log" >&2
    exit 1
}

# start SCENARIO [sweepd options...]: a recording sweepd; sets addr. A
# state hash every 15 ticks: a second of log checks the whole world's
# state a few times, not once.
start() {
    scenario=$1
    shift
    dir=$work/$scenario
    mkdir -p "$dir/rec"
    "$bin/sweepd" --map "$map" --listen 127.0.0.1:0 --record "$dir/rec" --record-hash-every 15 "$@" >"$dir/ready" 2>"$dir/sweepd.log" &
    pid=$!
    n=0
    until grep -qs '^sweepd ready ' "$dir/ready"; do
        kill -0 "$pid" 2>/dev/null || fail "sweepd exited before it was ready"
        n=$((n + 1))
        [ $n -lt 1500 ] || fail "sweepd did not print its ready line in 30 s"
        sleep 0.02
    done
    addr=$(sed -n 's/^sweepd ready tcp=\([^ ]*\) .*/\1/p' "$dir/ready")
}

# stop: SIGTERM (a clean stop writes END "shutdown"), then keep the log.
stop() {
    kill -TERM "$pid"
    st=0
    wait "$pid" || st=$?
    pid=
    [ $st -eq 0 ] || fail "sweepd exited with status $st"
    set -- "$dir"/rec/*.sweeplog
    [ $# -eq 1 ] && [ -f "$1" ] || fail "expected one log in $dir/rec, found: $*"
    "$bin/sweep-replay" "$1" --map "$map" >"$dir/replay" 2>&1 || {
        cat "$dir/replay" >&2
        fail "the new log does not replay"
    }
    mkdir -p "$golden"
    cp "$1" "$golden/$scenario.sweeplog"
    printf '%-8s %7s bytes  %s\n' "$scenario" "$(wc -c <"$1" | tr -d ' ')" "$(cat "$dir/replay")"
}

# bots LOGNAME sweep-bots-options...: sweep-bots against the server.
bots() {
    out=$dir/$1.out
    shift
    "$bin/sweep-bots" --connect "$addr" --map "$map" --warmup 0 "$@" >"$out" 2>&1 || {
        cat "$out" >&2
        fail "sweep-bots $* failed"
    }
}

# Honest players walking their squares (they also jump now and then):
# two over TCP, one over UDP, each predicting and claiming its position.
walking() {
    start walking
    bots tcp --mode honest --clients 2 --duration 0.9 &
    b1=$!
    bots udp --udp --mode honest --clients 1 --duration 0.9 &
    b2=$!
    wait $b1 || fail "TCP bots"
    wait $b2 || fail "UDP bots"
    stop
}

# Jumps: bots holding jump and wishing to rise (only jumps from the ground
# are granted), and a CLI player walking and jumping whenever it stands.
jumping() {
    start jumping
    bots jump --mode jump --clients 2 --duration 1.2 &
    b1=$!
    "$bin/sweep" move --connect "$addr" --map "$map" --spawn 4 --velocity 0,2,0 --jump --count 70 \
        >"$dir/cli.out" 2>&1 || fail "sweep move --jump: $(cat "$dir/cli.out")"
    wait $b1 || fail "jump bots"
    stop
}

# The east wing's movers, with players blocking each other: two bodies of
# the server role dropped onto the rising lift at (33, -9), one walking
# into the other; one over UDP standing in the way of the looping
# platform, which carries it; and a MoverCommand firing the sliding door.
movers() {
    start movers --command-token "$token" --players-block on
    export SWEEP_TOKEN="$token"
    "$bin/sweep" move --connect "$addr" --map "$map" --position 32.5,-9,2.5 --velocity 0,0,0 --count 60 \
        --interval 16 >"$dir/lift1.out" 2>&1 &
    m1=$!
    "$bin/sweep" move --connect "$addr" --map "$map" --position 33.5,-9,2.5 --velocity -0.6,0,0 --count 60 \
        --interval 16 >"$dir/lift2.out" 2>&1 &
    m2=$!
    "$bin/sweep" move --connect "$addr" --map "$map" --udp --position 35,2,1.3 --velocity -0.5,0,0 --count 70 \
        --interval 16 >"$dir/platform.out" 2>&1 &
    m3=$!
    sleep 0.3
    "$bin/sweep" command --connect "$addr" "sliding door" >"$dir/command.out" 2>&1 ||
        fail "sweep command: $(cat "$dir/command.out")"
    wait $m1 || fail "lift rider: $(cat "$dir/lift1.out")"
    wait $m2 || fail "lift walker: $(cat "$dir/lift2.out")"
    wait $m3 || fail "platform rider: $(cat "$dir/platform.out")"
    unset SWEEP_TOKEN
    grep -q 'ground_mover=3' "$dir/lift1.out" || fail "the lift never carried its rider: $(cat "$dir/lift1.out")"
    grep -q 'ground_mover=4' "$dir/platform.out" ||
        fail "the platform never carried its rider: $(cat "$dir/platform.out")"
    stop
}

# Cheats the rules refuse, one bot each: wishing ten times the walk speed
# (Speed), asking four times the time (TimeBudget), Fly and Noclip moves
# (Errors NotAllowed), claiming positions 10 m off (Correction), spawning
# in the air (SpawnPosition) and small (SpawnRadii); a player holding
# jump in the air (Jump) and a guest's MoverCommand (Error AuthFailed).
cheats() {
    start cheats
    bots cheats --mode speed,dilate,fly,noclip,teleport,spawn-anywhere,shrink --clients 7 --rate 30 \
        --duration 0.9 &
    b1=$!
    "$bin/sweep" move --connect "$addr" --map "$map" --spawn 3 --velocity 1,0,0 --hold-jump --count 40 \
        >"$dir/jump.out" 2>&1 || fail "sweep move --hold-jump: $(cat "$dir/jump.out")"
    if "$bin/sweep" command --connect "$addr" "sliding door" >"$dir/command.out" 2>&1; then
        fail "a guest's MoverCommand was accepted"
    fi
    wait $b1 || fail "cheating bots"
    stop
}

all="walking jumping movers cheats"
[ $# -gt 0 ] || set -- $all
if [ "$1" = --reanswer ]; then
    shift
    [ $# -gt 0 ] || set -- $all
    for s in "$@"; do
        case " $all " in
        *" $s "*) ;;
        *) echo "record-golden: unknown scenario '$s' (known: $all)" >&2; exit 2 ;;
        esac
    done
    for s in "$@"; do
        "$bin/sweep-replay" "$golden/$s.sweeplog" --map "$map" --reanswer "$golden/$s.sweeplog" ||
            { echo "record-golden: $s: not re-answered (record it instead)" >&2; exit 1; }
    done
    exit 0
fi
for s in "$@"; do
    case " $all " in
    *" $s "*) "$s" ;;
    *) echo "record-golden: unknown scenario '$s' (known: $all)" >&2; exit 2 ;;
    esac
done

#!/bin/sh
# test_targets.sh - tests/bench/targets.sh on made-up `make bench` lines:
# each target met, missed and absent, medians over several logs, and an
# unreadable log refused. Speaks cmocka's summary lines so
# tests/run-tests.sh counts it.
set -u
here=$(dirname "$0")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/checks.sh"

# A log where every target is met.
cat >"$work/good" <<'EOF'
some other output
BENCH name=core.level map=a tris=10 volumes=2 ns_per_move_mean=900 ns_per_move_p50=800 ns_per_move_p99=4000
BENCH name=core.level map=b tris=10 volumes=0 ns_per_move_mean=999 ns_per_move_p50=800 ns_per_move_p99=5000
BENCH name=core.level_volumes map=a volumes=2 bodies=4 same_ratio=1.050
BENCH name=core.volumes volumes=4 bodies=16 ratio=1.040
BENCH name=core.liquids cells=4 bodies=16 ratio=1.100
BENCH name=core.vs_bullet_gmean levels=13 ratio=51.0
BENCH name=core.crowd bodies=64 ratio_to_alone=1.9
BENCH name=core.crowd bodies=1024 ratio_to_alone=1.45
BENCH name=server.udp_cost clients=200 moves_per_server_core_s=410000
BENCH name=server.udp_floor clients=200 datagrams_per_server_core_s=500000
BENCH name=server.udp_60hz players=500 p99_us=2000 p99_us_max=3000
BENCH name=server.udp_60hz players=2000 p99_us=500 p99_us_max=900
BENCH name=server.record moves_per_s=1 ratio_to_unrecorded=0.96
BENCH name=replay map=arena cpus=2 ratio_to_core=0.5 cpu_ratio=1.3 full_ratio_to_core=0.1
BENCH name=replay map=arena cpus=1 ratio_to_core=0.91 cpu_ratio=1.00 full_ratio_to_core=0.71 ratio_ceiling=0.95
EOF
sh "$here/targets.sh" "$work/good" >"$work/out.good" 2>&1
check "every target met" '^TARGETS: 8 met, 0 not met, 0 without a figure \(1 log\)$' "$work/out.good"
check "a level at the limits is met" '^TARGET core\.level: .*: met; all 2 levels$' "$work/out.good"
check "another crowd's ratio is not the target's" '^TARGET core\.crowd .*: met; 1\.45$' "$work/out.good"
check "another player count's p99 is not the target's" '^TARGET server\.udp_60hz .*: met; worst run 900; p99 500$' "$work/out.good"
check "the replay on two CPUs is not the target's" '^TARGET replay cpus=1: .*: met; arena 0\.910 full 0\.710' "$work/out.good"

# A log where each target is missed by a little.
sed -e 's/ns_per_move_mean=999/ns_per_move_mean=1001/' \
    -e 's/ns_per_move_p99=4000/ns_per_move_p99=5001/' \
    -e 's/same_ratio=1.050/same_ratio=1.101/' \
    -e 's/liquids cells=4 bodies=16 ratio=1.100/liquids cells=4 bodies=16 ratio=1.200/' \
    -e 's/ratio=51.0/ratio=49.9/' \
    -e 's/ratio_to_alone=1.45/ratio_to_alone=1.51/' \
    -e 's/moves_per_server_core_s=410000/moves_per_server_core_s=399999/' \
    -e 's/p99_us=500 p99_us_max=900/p99_us=500 p99_us_max=1000/' \
    -e 's/ratio_to_unrecorded=0.96/ratio_to_unrecorded=0.94/' \
    -e 's/cpus=1 ratio_to_core=0.91 cpu_ratio=1.00/cpus=1 ratio_to_core=0.91 cpu_ratio=1.06/' \
    "$work/good" >"$work/bad"
sh "$here/targets.sh" "$work/bad" >"$work/out.bad" 2>&1
check "every target missed" '^TARGETS: 0 met, 8 not met, 0 without a figure \(1 log\)$' "$work/out.bad"
check "the levels over are named" \
    '^TARGET core\.level: .*: NOT MET; 2 of 2 levels over: a mean 900 p99 5001; b mean 1001 p99 5000$' "$work/out.bad"
check "the volume lines over are named" \
    '^TARGET core\.level_volumes .*: NOT MET; 2 of 3 lines over: a 1\.101; liquids cells=4 1\.200$' "$work/out.bad"
check "the kernel's floor is shown beside udp_cost" \
    'NOT MET; 399999; the kernel alone \(server\.udp_floor\) 500000$' "$work/out.bad"

# Three logs: medians and ranges; the worst run of udp_60hz decides.
sed -e 's/ns_per_move_mean=900/ns_per_move_mean=1200/' -e 's/p99_us_max=900/p99_us_max=1500/' \
    "$work/good" >"$work/good2"
sed -e 's/ns_per_move_mean=900/ns_per_move_mean=950/' "$work/good" >"$work/good3"
sh "$here/targets.sh" "$work/good" "$work/good2" "$work/good3" >"$work/out.three" 2>&1
check "a level is judged on its median over the logs" '^TARGET core\.level: .*: met; all 2 levels$' "$work/out.three"
check "a figure that differs shows its range" \
    '^TARGET server\.udp_60hz .*: NOT MET; worst run 1500; p99 500$' "$work/out.three"
check "three logs are counted" '\(3 logs\)$' "$work/out.three"
sed -e 's/ns_per_move_mean=900/ns_per_move_mean=1200/' "$work/good" >"$work/bad3"
sh "$here/targets.sh" "$work/good" "$work/good2" "$work/bad3" >"$work/out.three2" 2>&1
check "a median over the limit is named with its range" \
    'NOT MET; 1 of 2 levels over: a mean 1200 \(900 to 1200\) p99 4000$' "$work/out.three2"

# A log without the lines: no figure, never met.
echo "BENCH name=core.walk tris=1 moves_per_s=1" >"$work/empty"
sh "$here/targets.sh" "$work/empty" >"$work/out.empty" 2>&1
check "targets without a line have no figure" '^TARGETS: 0 met, 0 not met, 8 without a figure' "$work/out.empty"

# A log that cannot be read is refused.
if sh "$here/targets.sh" "$work/missing" >"$work/out.missing" 2>&1; then rc=0; else rc=$?; fi
echo "exit $rc" >>"$work/out.missing"
check "an unreadable log is named and refused" 'cannot read .*/missing' "$work/out.missing"
check "an unreadable log exits 2" '^exit 2$' "$work/out.missing"

checks_end

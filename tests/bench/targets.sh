#!/bin/sh
# targets.sh LOG... - the performance targets of docs/performance.md ("The
# targets, and where each is discussed"), each held against the figures of
# one or more `make bench` outputs: one line a target,
#
#   TARGET <what is asked>: met | NOT MET | no figure; <the figures>
#
# then one line that counts them. With several logs, each figure is the
# median of its values over the logs, and the range follows it in brackets;
# a target is judged on the medians. These machines are shared and noisy
# (docs/performance.md, "Reproducing a figure"), so one log says what one
# run gave, and several say more. `make bench` runs this on its own output
# ($BUILD/bench.log). A target with no line in any log (a section that did
# not run: Bullet or the corpus not installed) is "no figure", never met.
# Exits 0 whatever the verdicts (the figures are not a test); 2 when a log
# cannot be read.
set -eu
if [ $# -eq 0 ]; then
    echo "usage: targets.sh LOG..." >&2
    exit 2
fi
for f in "$@"; do
    if [ ! -r "$f" ]; then
        echo "targets.sh: cannot read $f" >&2
        exit 2
    fi
done
awk -f "$(dirname "$0")/targets.awk" "$@"

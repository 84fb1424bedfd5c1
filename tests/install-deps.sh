#!/bin/sh
# install-deps.sh - make sure the Debian packages sweep builds with are present.
#
# Called by the Makefile with SWEEP_DEB_PACKAGES set. As root, installs what
# is missing with apt-get; as anyone else, prints the exact command and fails.
# On a system without dpkg it only warns: the build may still work if the
# libraries were installed some other way. Safe to run several at once (one
# `make -j2 test` does, for build/ and build-faults/): they take turns, and
# each installs only what is still missing when its turn comes
# (tests/apt-lock.sh).
set -u
pkgs=${SWEEP_DEB_PACKAGES:?}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "sweep: no dpkg here; make sure these are installed: $pkgs" >&2
    exit 0
fi

find_missing() {
    missing=""
    for p in $pkgs; do
        if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
            missing="$missing $p"
        fi
    done
}

find_missing
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "sweep: missing Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi

. "$(dirname "$0")/apt-lock.sh"
apt_take_turn sweep
# Another caller may have installed them while this one waited.
find_missing
[ -z "$missing" ] && exit 0

echo "sweep: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet; refresh once, then install.
if ! apt_get install -y --no-install-recommends $missing >/dev/null 2>&1; then
    apt_get update -q >&2 || exit 1
    apt_get install -y --no-install-recommends $missing >&2 || exit 1
fi

#!/bin/sh
# install-corpus.sh - make sure the corpus of real levels is on this machine.
#
# The corpus is Debian's openarena-oacmp1 package: 13 community Quake 3
# levels in one .pk3 (z_oacmp-volume1-v3.pk3), which the BSP importer's tests
# and benchmark import (the files themselves never enter the repository).
# `make corpus` runs this; so do the tests and benchmarks that need the
# corpus, which skip with this script's reason when it fails.
#
# On success prints the .pk3's path on stdout and exits 0. As root, installs
# the package with apt-get when it is missing; as anyone else, or when apt
# fails, says why on stderr and exits 1. SWEEP_CORPUS=FILE.pk3 names a copy
# to use instead (nothing is installed then).
set -u
PKG=openarena-oacmp1
PK3=z_oacmp-volume1-v3.pk3

find_pk3() {
    if command -v dpkg-query >/dev/null 2>&1 &&
        dpkg-query -W -f='${Status}' "$PKG" 2>/dev/null | grep -q "ok installed"; then
        dpkg-query -L "$PKG" 2>/dev/null | grep "/$PK3\$" | while read -r f; do
            [ -f "$f" ] && { echo "$f"; break; }
        done
        return 0
    fi
    for d in /usr/share/games/openarena/baseoa /usr/lib/openarena/baseoa; do
        [ -f "$d/$PK3" ] && { echo "$d/$PK3"; return 0; }
    done
    return 0
}

if [ -n "${SWEEP_CORPUS:-}" ]; then
    if [ -f "$SWEEP_CORPUS" ]; then
        echo "$SWEEP_CORPUS"
        exit 0
    fi
    echo "install-corpus: SWEEP_CORPUS=$SWEEP_CORPUS is not a file" >&2
    exit 1
fi

# Ends the script with the .pk3's path when it is here.
exit_if_found() {
    found=$(find_pk3 | head -n 1)
    if [ -n "$found" ]; then
        echo "$found"
        exit 0
    fi
}

exit_if_found
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-corpus: no apt-get here, so Debian's $PKG (the Quake 3 levels) cannot be" \
        "installed; set SWEEP_CORPUS=FILE.pk3 to a copy of $PK3" >&2
    exit 1
fi
if [ "$(id -u)" != 0 ]; then
    echo "install-corpus: the corpus (Debian's $PKG, Quake 3 levels) is not installed, and" \
        "installing it needs root. Install it with:" >&2
    echo "  sudo apt-get install -y $PKG" >&2
    exit 1
fi

# Two corpus tests run at once may both get here: they take turns, and the
# second finds what the first installed.
. "$(dirname "$0")/apt-lock.sh"
apt_take_turn install-corpus
exit_if_found

echo "install-corpus: installing $PKG (and the OpenArena data it depends on)" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet; refresh once, then install.
if ! apt_get install -y --no-install-recommends "$PKG" >/dev/null 2>&1; then
    if ! apt_get update -q >&2 || ! apt_get install -y --no-install-recommends "$PKG" >&2; then
        echo "install-corpus: apt-get could not install $PKG (see above)" >&2
        exit 1
    fi
fi
found=$(find_pk3 | head -n 1)
if [ -z "$found" ]; then
    echo "install-corpus: $PKG is installed but holds no $PK3" >&2
    exit 1
fi
echo "$found"

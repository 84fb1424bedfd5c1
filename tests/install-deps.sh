#!/bin/sh
# install-deps.sh - make sure the Debian packages sweep builds with are present.
#
# Called by the Makefile with SWEEP_DEB_PACKAGES set. As root, installs what
# is missing with apt-get; as anyone else, prints the exact command and fails.
# On a system without dpkg it only warns: the build may still work if the
# libraries were installed some other way.
set -u
pkgs=${SWEEP_DEB_PACKAGES:?}

if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "sweep: no dpkg here; make sure these are installed: $pkgs" >&2
    exit 0
fi

missing=""
for p in $pkgs; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed"; then
        missing="$missing $p"
    fi
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
    echo "sweep: missing Debian packages. Install them with:" >&2
    echo "  sudo apt-get install -y$missing" >&2
    exit 1
fi

echo "sweep: installing missing Debian packages:$missing" >&2
export DEBIAN_FRONTEND=noninteractive
# A fresh machine may have no package lists yet; refresh once, then install.
if ! apt-get install -y --no-install-recommends $missing >/dev/null 2>&1; then
    apt-get update -q >&2 || exit 1
    apt-get install -y --no-install-recommends $missing >&2 || exit 1
fi

#!/bin/sh
# test_docker_files.sh - docker/ (Dockerfile, compose, Kubernetes and Agones
# files) against what `make install` really installs. No Docker engine or
# cluster is used: the image's tree is `make install DESTDIR=<tmp>
# PREFIX=/usr/local`, as the Dockerfile's build stage does, and
# check_docker_files.py checks the files against it (its header lists what).
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
# The install must come from the build directory under test, already built
# with the make variables its name says (tests/build_name.sh).
. "$root/tests/build_name.sh"
build_name_vars "$BUILD"
san=$build_san debug=$build_debug faults=$build_faults coverage=$build_coverage

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
echo "[ RUN      ] make install DESTDIR=<tmp> PREFIX=/usr/local"
# MAKEFLAGS cleared: this runs under `make test`, whose jobserver is not ours.
if ! (cd "$root" && MAKEFLAGS='' MFLAGS='' MAKELEVEL='' make -s install DESTDIR="$work/root" PREFIX=/usr/local \
        ${san:+SANITIZER=$san} ${debug:+DEBUG=$debug} ${faults:+FAULTS=$faults} \
        ${coverage:+COVERAGE=$coverage}) >"$work/install.log" 2>&1; then
    echo "[  FAILED  ] make install:"
    cat "$work/install.log"
    echo "[==========] 1 test(s) run."
    echo "[  PASSED  ] 0 test(s)."
    echo "[  FAILED  ] 1 test(s)."
    exit 1
fi
echo "[       OK ] make install DESTDIR=<tmp> PREFIX=/usr/local"
# python3-yaml is a Debian package: the system interpreter, not a PATH one.
/usr/bin/python3 "$here/check_docker_files.py" "$root" "$work/root" "$BUILD"

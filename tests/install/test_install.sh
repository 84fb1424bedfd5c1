#!/bin/sh
# test_install.sh - make install and make uninstall as a packager runs them,
# and the installed SDK as a C++ (and a C) program builds against it.
#
#   install     make install DESTDIR=<tmp> PREFIX=/opt/sweep-test from the
#               current build directory (same BUILD and SANITIZER, so an
#               up-to-date build is only copied); programs, libraries,
#               headers (kept in their folders), sweep.pc, the man page and
#               the sample maps are where README.md says.
#   headers     every installed header that declares anything has its
#               extern "C" block.
#   C++         tests/install/use_sdk.cc with g++ -std=c++17 including every
#               installed header, flags from the installed sweep.pc alone
#               (PKG_CONFIG_SYSROOT_DIR, PKG_CONFIG_LIBDIR); it runs on the
#               installed arena and every line it prints is checked.
#   C           tests/install/use_sdk.c the same way with gcc -std=c11.
#   PREFIX      a second install with another PREFIX gets a sweep.pc that
#               names it (the build's sweep.pc follows PREFIX).
#   uninstall   leaves nothing of sweep's, only the shared directories
#               (empty), and a file of someone else's where it was.
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
# A sanitizer build (build-address, build-undefined) is installed with its
# own SANITIZER, and programs linking its libraries need the flag too.
case $BUILD in
build-*) sanitizer=${BUILD#build-} ;;
*) sanitizer= ;;
esac
san_flags=${sanitizer:+-fsanitize=$sanitizer}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=/opt/sweep-test
dest=$tmp/root
inst=$dest$prefix

passed=0
failed=0
pass() {
    echo "[       OK ] $1"
    passed=$((passed + 1))
}
fail() { # name, why (more lines may follow on stdout)
    echo "[  FAILED  ] $1: $2"
    failed=$((failed + 1))
}
run() { echo "[ RUN      ] $1"; }

# The sub-make must not take the jobserver of a `make -j test` above it
# (its descriptors are not passed to this script); variables given to that
# make (CFLAGS=..., SANITIZER=...) stay in MAKEFLAGS and still apply.
MAKEFLAGS=$(printf '%s' "${MAKEFLAGS-}" | sed -e 's/--jobserver-[a-z]*=[^ ]*//g' -e 's/\(^\| \)-j[0-9]*//g')
export MAKEFLAGS
mk() { # target, DESTDIR, PREFIX
    make -s -C "$root" BUILD="$BUILD" SANITIZER="$sanitizer" "$1" DESTDIR="$2" PREFIX="$3" >"$tmp/make.log" 2>&1
}

# What pkg-config says about the sweep.pc installed under DESTDIR $1,
# PREFIX $2, with nothing else on its search path.
pc() { # DESTDIR, PREFIX, pkg-config arguments...
    d=$1
    p=$2
    shift 2
    PKG_CONFIG_SYSROOT_DIR=$d PKG_CONFIG_LIBDIR=$d$p/lib/pkgconfig PKG_CONFIG_PATH=$d$p/lib/pkgconfig \
        pkg-config "$@" sweep | sed 's/ *$//'
}

# --- install -----------------------------------------------------------------
run "make install"
t0=$(date +%s)
if mk install "$dest" "$prefix"; then
    pass "make install ($(($(date +%s) - t0)) s)"
else
    fail "make install" "exit status $?"
    cat "$tmp/make.log"
    echo "[==========] $((passed + failed)) test(s) run."
    echo "[  PASSED  ] $passed test(s)."
    echo "[  FAILED  ] $((failed)) test(s)."
    exit 1
fi

run "installed files"
missing=
for f in bin/sweepd bin/sweep bin/sweep-walk bin/sweep-mapgen bin/sweep-import bin/sweep-bots bin/sweep-replay \
    lib/libsweep-core.a lib/libsweep-maps.a lib/libsweep-protocol.a lib/libsweep-server.a \
    lib/libsweep-client.a lib/pkgconfig/sweep.pc share/man/man8/sweepd.8 share/sweep/maps/arena.db \
    include/sweep/core/vec3.h include/sweep/client-sdk/client.h include/sweep/protocol/sweep.fbs; do
    [ -s "$inst/$f" ] || missing="$missing $f"
done
# Each header is the source's, byte for byte, in its folder.
for h in $(cd "$inst/include/sweep" && find . -type f | sed 's|^\./||'); do
    cmp -s "$inst/include/sweep/$h" "$root/$h" || missing="$missing include/sweep/$h(differs)"
done
[ -x "$inst/bin/sweepd" ] || missing="$missing bin/sweepd(not executable)"
if [ -z "$missing" ]; then
    pass "installed files"
else
    fail "installed files" "missing or wrong:$missing"
fi

run "installed sweepd runs"
v=$("$inst/bin/sweepd" --version 2>&1)
case $v in
"sweepd "[0-9]*) pass "installed sweepd runs ($v)" ;;
*) fail "installed sweepd runs" "sweepd --version said '$v'" ;;
esac

run "sweep.pc names PREFIX"
pc_prefix=$(sed -n 's/^prefix=//p' "$inst/lib/pkgconfig/sweep.pc")
cflags=$(pc "$dest" "$prefix" --cflags)
if [ "$pc_prefix" = "$prefix" ] && [ "$cflags" = "-I$inst/include/sweep" ]; then
    pass "sweep.pc names PREFIX"
else
    fail "sweep.pc names PREFIX" "prefix=$pc_prefix, --cflags '$cflags'"
fi

# --- headers -------------------------------------------------------------------
# A header may go without extern "C" only if all it has is preprocessor
# lines and comments (protocol/protocol.h); the comments are stripped by the
# C preprocessor itself, which knows where each one ends.
run "extern \"C\" in every installed header"
bare=
for h in $(cd "$inst/include/sweep" && find . -name '*.h' | sed 's|^\./||' | sort); do
    grep -q 'extern "C"' "$inst/include/sweep/$h" && continue
    rest=$(gcc -fpreprocessed -dD -E -P -x c "$inst/include/sweep/$h" 2>&1 |
        sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d')
    [ -z "$rest" ] || bare="$bare $h"
done
if [ -z "$bare" ]; then
    pass "extern \"C\" in every installed header"
else
    fail "extern \"C\" in every installed header" "declarations without it in:$bare"
fi

# One #include per installed header, by folder as users write them.
(cd "$inst/include/sweep" && find . -name '*.h' | sed 's|^\./||' | sort) |
    sed 's/.*/#include "&"/' >"$tmp/sweep_all.h"
nheaders=$(wc -l <"$tmp/sweep_all.h")
arena=$inst/share/sweep/maps/arena.db
rows=$(sqlite3 "$arena" 'SELECT count(*) FROM triangles')
sha_abc=ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad

# build_and_run NAME, compiler and flags..., source, expected output file
build_and_run() {
    name=$1
    exe=$2
    expected=$3
    src=$4
    shift 4
    run "$name"
    # shellcheck disable=SC2046  # pkg-config's output is words by design
    if ! "$@" -Wall -Wextra -pedantic-errors -Werror $san_flags -I"$tmp" "$src" \
        $(pc "$dest" "$prefix" --cflags --libs) -o "$tmp/$exe" >"$tmp/$exe.log" 2>&1; then
        fail "$name" "build failed:"
        cat "$tmp/$exe.log"
        return
    fi
    "$tmp/$exe" "$arena" >"$tmp/$exe.out" 2>&1
    rc=$?
    if [ $rc -ne 0 ]; then
        fail "$name" "exit status $rc:"
        cat "$tmp/$exe.out"
        return
    fi
    if diff -u "$expected" "$tmp/$exe.out"; then
        pass "$name ($nheaders headers)"
    else
        fail "$name" "output differs (above)"
    fi
}

cat >"$tmp/expect_cc" <<EOF
client_options=tcp,0,null
status=DT
v3_len=5
sha256_abc=$sha_abc
triangles=$rows
triangle_rows=$rows
ping=Ping,7,123456789abcdef
EOF
build_and_run "C++17 program on the installed SDK" use_sdk_cc "$tmp/expect_cc" "$here/use_sdk.cc" \
    g++ -std=c++17

cat >"$tmp/expect_c" <<EOF
status=DT
v3_len=5
sha256_abc=$sha_abc
triangles=$rows
EOF
build_and_run "C11 program on the installed SDK" use_sdk_c "$tmp/expect_c" "$here/use_sdk.c" gcc -std=c11

# --- a second PREFIX -------------------------------------------------------------
# The build's sweep.pc was just made for /opt/sweep-test; installing for
# another prefix must remake it, not copy the first.
prefix2=/opt/sweep-other
dest2=$tmp/root2
run "install with a second PREFIX"
if mk install "$dest2" "$prefix2"; then
    pc_prefix=$(sed -n 's/^prefix=//p' "$dest2$prefix2/lib/pkgconfig/sweep.pc")
    libs=$(pc "$dest2" "$prefix2" --libs-only-L)
    if [ "$pc_prefix" = "$prefix2" ] && [ "$libs" = "-L$dest2$prefix2/lib" ]; then
        pass "install with a second PREFIX"
    else
        fail "install with a second PREFIX" "sweep.pc: prefix=$pc_prefix, --libs-only-L '$libs'"
    fi
else
    fail "install with a second PREFIX" "exit status $?"
    cat "$tmp/make.log"
fi

# --- uninstall -------------------------------------------------------------------
# Files sweep did not install stay, and keep their folder.
echo other >"$inst/bin/other-tool"
echo level >"$inst/share/sweep/maps/my-level.db"

# what is left under a DESTDIR: every path, files and folders, one a line
left() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort); }

run "make uninstall"
if mk uninstall "$dest" "$prefix"; then
    files=$(cd "$dest" && find . -type f -o -type l | sed 's|^\./||' | sort | tr '\n' ' ')
    want="opt/sweep-test/bin/other-tool opt/sweep-test/share/sweep/maps/my-level.db "
    if [ "$files" = "$want" ] && [ ! -e "$inst/include/sweep" ]; then
        pass "make uninstall"
    else
        fail "make uninstall" "left files: $files"
        [ ! -e "$inst/include/sweep" ] || echo "and $inst/include/sweep"
    fi
else
    fail "make uninstall" "exit status $?"
    cat "$tmp/make.log"
fi

run "make uninstall again, the others' files gone"
rm -f "$inst/bin/other-tool" "$inst/share/sweep/maps/my-level.db"
shared=$(printf '%s\n' opt opt/sweep-test opt/sweep-test/bin opt/sweep-test/include opt/sweep-test/lib \
    opt/sweep-test/lib/pkgconfig opt/sweep-test/share opt/sweep-test/share/man opt/sweep-test/share/man/man8)
if mk uninstall "$dest" "$prefix"; then
    got=$(left "$dest")
    if [ "$got" = "$shared" ]; then
        pass "make uninstall again, the others' files gone"
    else
        fail "make uninstall again, the others' files gone" "left:"
        echo "$got"
    fi
else
    fail "make uninstall again, the others' files gone" "exit status $?"
    cat "$tmp/make.log"
fi

run "make uninstall of the second PREFIX"
if mk uninstall "$dest2" "$prefix2"; then
    got=$(left "$dest2")
    want=$(echo "$shared" | sed 's|sweep-test|sweep-other|g')
    if [ "$got" = "$want" ]; then
        pass "make uninstall of the second PREFIX"
    else
        fail "make uninstall of the second PREFIX" "left:"
        echo "$got"
    fi
else
    fail "make uninstall of the second PREFIX" "exit status $?"
    cat "$tmp/make.log"
fi

echo "[==========] $((passed + failed)) test(s) run."
echo "[  PASSED  ] $passed test(s)."
[ "$failed" -eq 0 ] || {
    echo "[  FAILED  ] $failed test(s)."
    exit 1
}

#!/bin/sh
# test_install.sh - make install and make uninstall as a packager runs them,
# and programs a game would write, built on the installed SDK alone.
#
#   install     make install DESTDIR=<tmp> PREFIX=/opt/sweep-test from the
#               current build directory (same BUILD and SANITIZER, so an
#               up-to-date build is only copied); programs, libraries,
#               headers, sweep.pc, sweep-replay.pc, the man page and the
#               sample maps are where README.md says.
#   headers     each installed header is its source with its sweep
#               includes rewritten as <sweep/...> (the Makefile's sed rule),
#               every one of them names an installed header, each compiles
#               alone (C11 and C++17) from the installed tree with a game's
#               own headers of the same names first on the include path,
#               and each that declares anything has its extern "C" block.
#   libsweep    sweep.pc names no server library and none of the server's
#               dependencies, and nothing in libsweep-client.a needs one.
#   C           tests/install/use_sdk.c (gcc -std=c11), flags from the
#               installed sweep.pc alone (PKG_CONFIG_SYSROOT_DIR,
#               PKG_CONFIG_LIBDIR): a predicting client against a real
#               sweepd (the installed one, on a free port of 127.0.0.1), on
#               the installed arena; every line it prints is checked.
#   CMake       the same program built by CMake with find_package(sweep)
#               and sweep::client from the installed lib/cmake/sweep alone,
#               against the same sweepd; versions it is not are refused.
#   C++         tests/install/use_sdk.cc with g++ -std=c++17 including every
#               installed header, from a tree whose own core/world.h,
#               protocol/message.h, ... (all #error) come first.
#   replay      tests/install/use_replay.c through the installed
#               sweep-replay.pc: the golden logs of tests/replay on the
#               installed arena, counted as the build's sweep-replay counts
#               them; a damaged log is refused.
#   PREFIX      a second install with another PREFIX gets pkg-config files
#               that name it (the build's follow PREFIX).
#   uninstall   leaves nothing of sweep's, only the shared directories
#               (empty), and a file of someone else's where it was.
#
# Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
BUILD=${BUILD:-build}
# A sanitizer build is installed with its own SANITIZER (every one of its
# list), and programs linking its libraries need the same flag; so does a
# coverage build's (its objects call gcc's counting runtime).
. "$root/tests/build_name.sh"
build_name_vars "$BUILD"
sanitizer=$build_san
san_flags="${sanitizer:+-fsanitize=$sanitizer}${build_coverage:+ --coverage}"

tmp=$(mktemp -d)
sweepd_pid=
cleanup() {
    [ -z "$sweepd_pid" ] || kill "$sweepd_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
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

# What pkg-config says about package $3 installed under DESTDIR $1,
# PREFIX $2, with nothing else on its search path.
pc() { # DESTDIR, PREFIX, package, pkg-config arguments...
    d=$1
    p=$2
    pkg=$3
    shift 3
    PKG_CONFIG_SYSROOT_DIR=$d PKG_CONFIG_LIBDIR=$d$p/lib/pkgconfig PKG_CONFIG_PATH=$d$p/lib/pkgconfig \
        pkg-config "$@" "$pkg" | sed 's/ *$//'
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
incl=$inst/include/sweep
# every installed header, as a game names it after <sweep/...>, sorted
headers=$(cd "$incl" && find . -name '*.h' | sed 's|^\./||' | LC_ALL=C sort)
nheaders=$(printf '%s\n' "$headers" | grep -c .)

run "installed files"
missing=
for f in bin/sweepd bin/sweep bin/sweep-walk bin/sweep-mapgen bin/sweep-import bin/sweep-bots bin/sweep-replay \
    lib/libsweep-core.a lib/libsweep-maps.a lib/libsweep-protocol.a \
    lib/libsweep-world.a lib/libsweep-record.a \
    lib/libsweep-client.a lib/libsweep-replay.a lib/pkgconfig/sweep.pc lib/pkgconfig/sweep-replay.pc \
    lib/cmake/sweep/sweepConfig.cmake lib/cmake/sweep/sweepConfigVersion.cmake \
    share/man/man8/sweepd.8 share/sweep/maps/arena.db \
    include/sweep/client.h include/sweep/predict.h include/sweep/replay.h include/sweep/maps/loader.h \
    include/sweep/core/vec3.h include/sweep/protocol/protocol.h include/sweep/protocol/sweep.fbs; do
    [ -s "$inst/$f" ] || missing="$missing $f"
done
[ -x "$inst/bin/sweepd" ] || missing="$missing bin/sweepd(not executable)"
# Nothing of the server's own API, nor the client SDK's folder name, nor
# the library only sweepd links.
for d in server client-sdk; do
    [ ! -e "$incl/$d" ] || missing="$missing include/sweep/$d(should not be installed)"
done
[ ! -e "$inst/lib/libsweep-server.a" ] || missing="$missing lib/libsweep-server.a(should not be installed)"
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

# sweep_testing.py away from the source tree, the installed sweepd on PATH
# and no SWEEP_MAP: the arena of that install.
run "sweep_testing finds the installed arena beside sweepd"
mkdir -p "$tmp/py"
cp "$root/client-sdk/python/sweep_testing.py" "$tmp/py/"
found=$(cd "$tmp/py" && env -u SWEEP_MAP -u SWEEP_BIN PATH="$inst/bin:/usr/bin:/bin" /usr/bin/python3 -c \
    'import sweep_testing; print(sweep_testing.find_arena())' 2>&1)
if [ "$found" = "$inst/share/sweep/maps/arena.db" ]; then
    pass "sweep_testing finds the installed arena beside sweepd"
else
    fail "sweep_testing finds the installed arena beside sweepd" "found '$found'"
fi

run "pkg-config files name PREFIX and the release"
release=$(sed -n 's/^#define SWEEP_VERSION "\(.*\)"/\1/p' "$root/core/version.h")
bad=
for pkg in sweep sweep-replay; do
    pc_prefix=$(sed -n 's/^prefix=//p' "$inst/lib/pkgconfig/$pkg.pc")
    cflags=$(pc "$dest" "$prefix" $pkg --cflags)
    version=$(pc "$dest" "$prefix" $pkg --modversion)
    [ "$pc_prefix" = "$prefix" ] && [ "$cflags" = "-I$inst/include" ] && [ -n "$release" ] &&
        [ "$version" = "$release" ] ||
        bad="$bad $pkg.pc: prefix=$pc_prefix, --cflags '$cflags', --modversion '$version' (release '$release');"
done
if [ -z "$bad" ]; then
    pass "pkg-config files name PREFIX and the release"
else
    fail "pkg-config files name PREFIX and the release" "$bad"
fi

# --- headers -------------------------------------------------------------------
# The sed rule of the Makefile's install: each line `#include "x/y.h"` of a
# source header becomes `#include <sweep/x/y.h>` (the client SDK's own,
# "client-sdk/y.h", <sweep/y.h>), and nothing else changes. Checked against
# the sources: the other lines are the same, no quoted include is left, as
# many sweep includes as the source had quoted ones, each naming an
# installed header.
run "installed headers: sweep includes rewritten as <sweep/...>"
bad=
for h in $headers; do
    case $h in
    */*) src=$root/$h ;;
    *) src=$root/client-sdk/$h ;;
    esac
    grep -v '^#include' "$src" >"$tmp/src.rest"
    grep -v '^#include' "$incl/$h" >"$tmp/inst.rest"
    cmp -s "$tmp/src.rest" "$tmp/inst.rest" || bad="$bad $h(differs beyond its includes)"
    quoted=$(grep -c '^#include "' "$src")
    rewritten=$(grep -c '^#include <sweep/' "$incl/$h")
    [ "$quoted" -eq "$rewritten" ] || bad="$bad $h($quoted quoted includes, $rewritten <sweep/...>)"
    ! grep -q '^#include "' "$incl/$h" || bad="$bad $h(a quoted include left)"
    # shellcheck disable=SC2013  # header names have no spaces
    for inc in $(sed -n 's|^#include <sweep/\([^>]*\)>.*|\1|p' "$incl/$h"); do
        [ -f "$incl/$inc" ] || bad="$bad $h(includes <sweep/$inc>, not installed)"
    done
done
cmp -s "$root/protocol/sweep.fbs" "$incl/protocol/sweep.fbs" || bad="$bad protocol/sweep.fbs(differs)"
if [ -n "$headers" ] && [ -z "$bad" ]; then
    pass "installed headers: sweep includes rewritten as <sweep/...> ($nheaders headers)"
else
    fail "installed headers: sweep includes rewritten as <sweep/...>" "${bad:-no headers}"
fi

# A game's own headers with the names of sweep's (core/world.h,
# protocol/message.h, client.h, ...), first on the include path: any sweep
# header that looked one up through the game's paths would stop the build.
game=$tmp/game
for h in $headers; do
    mkdir -p "$game/$(dirname "$h")"
    printf '#error "the game'"'"'s own %s was included instead of sweep'"'"'s"\n' "$h" >"$game/$h"
done
cflags=$(pc "$dest" "$prefix" sweep --cflags)

run "the game's headers stop a build that includes them"
printf '#include "core/world.h"\nint main(void) { return 0; }\n' >"$tmp/decoy.c"
# shellcheck disable=SC2086  # pkg-config's output is words by design
if gcc -std=c11 -I"$game" $cflags -c "$tmp/decoy.c" -o "$tmp/decoy.o" >"$tmp/decoy.log" 2>&1; then
    fail "the game's headers stop a build that includes them" "core/world.h of the game compiled"
elif grep -q "the game's own core/world.h" "$tmp/decoy.log"; then
    pass "the game's headers stop a build that includes them"
else
    fail "the game's headers stop a build that includes them" "failed otherwise:"
    cat "$tmp/decoy.log"
fi

# Each installed header alone, in C11 and C++17, from the installed tree:
# it brings everything it needs, and none of it from the game.
run "each installed header compiles alone"
bad=
for h in $headers; do
    printf '#include <sweep/%s>\n' "$h" >"$tmp/one.c"
    cp "$tmp/one.c" "$tmp/one.cc"
    # shellcheck disable=SC2086  # pkg-config's output is words by design
    gcc -std=c11 -Wall -Wextra -pedantic-errors -Werror -I"$game" $cflags -fsyntax-only "$tmp/one.c" \
        >"$tmp/one.log" 2>&1 || { bad="$bad $h(C)"; cat "$tmp/one.log"; }
    # shellcheck disable=SC2086
    g++ -std=c++17 -Wall -Wextra -pedantic-errors -Werror -I"$game" $cflags -fsyntax-only "$tmp/one.cc" \
        >"$tmp/one.log" 2>&1 || { bad="$bad $h(C++)"; cat "$tmp/one.log"; }
done
if [ -z "$bad" ]; then
    pass "each installed header compiles alone"
else
    fail "each installed header compiles alone" "failed:$bad"
fi

# A header may go without extern "C" only if all it has is preprocessor
# lines and comments (protocol/protocol.h); the comments are stripped by the
# C preprocessor itself, which knows where each one ends.
run "extern \"C\" in every installed header"
bare=
for h in $headers; do
    grep -q 'extern "C"' "$incl/$h" && continue
    rest=$(gcc -fpreprocessed -dD -E -P -x c "$incl/$h" 2>&1 |
        sed -e '/^[[:space:]]*#/d' -e '/^[[:space:]]*$/d')
    [ -z "$rest" ] || bare="$bare $h"
done
if [ -z "$bare" ]; then
    pass "extern \"C\" in every installed header"
else
    fail "extern \"C\" in every installed header" "declarations without it in:$bare"
fi

# --- libsweep: no server in it -------------------------------------------------
server_words="-lsweep-server -luv -ldeflate -lmicrohttpd"
run "sweep.pc links no server"
libs=$(pc "$dest" "$prefix" sweep --libs --static)
bad=
for w in $server_words; do
    case " $libs " in *" $w "*) bad="$bad $w" ;; esac
done
case " $libs " in *" -lsweep-client "*) ;; *) bad="$bad (no -lsweep-client)" ;; esac
if [ -z "$bad" ]; then
    pass "sweep.pc links no server ($libs)"
else
    fail "sweep.pc links no server" "its libs '$libs' name:$bad"
fi

# The replay runs the world library, not the server: its pkg-config file
# names neither the server library nor libuv or libmicrohttpd.
run "sweep-replay.pc links no server"
libs=$(pc "$dest" "$prefix" sweep-replay --libs --static)
bad=
for w in -lsweep-server -luv -lmicrohttpd; do
    case " $libs " in *" $w "*) bad="$bad $w" ;; esac
done
case " $libs " in *" -lsweep-world "*) ;; *) bad="$bad (no -lsweep-world)" ;; esac
if [ -z "$bad" ]; then
    pass "sweep-replay.pc links no server ($libs)"
else
    fail "sweep-replay.pc links no server" "its libs '$libs' name:$bad"
fi

# What libsweep-client.a leaves undefined is found in the libraries
# sweep.pc names or the system's, never in the server's or the replay's.
run "nothing in libsweep-client.a needs the server"
l=$inst/lib
build_lib=$root/$BUILD/lib
nm -u "$l/libsweep-client.a" | awk 'NF == 2 { print $2 }' | LC_ALL=C sort -u >"$tmp/undefined"
defined() { nm --defined-only -g "$@" | awk 'NF == 3 { print $3 }' | LC_ALL=C sort -u; }
defined "$l/libsweep-client.a" "$l/libsweep-protocol.a" "$l/libsweep-maps.a" "$l/libsweep-core.a" >"$tmp/mine"
defined "$build_lib/libsweep-server.a" "$l/libsweep-replay.a" "$l/libsweep-world.a" "$l/libsweep-record.a" >"$tmp/other"
from_other=$(LC_ALL=C comm -12 "$tmp/undefined" "$tmp/other" | tr '\n' ' ')
unresolved=$(grep '^sweep' "$tmp/undefined" | LC_ALL=C comm -23 - "$tmp/mine" | tr '\n' ' ')
if [ -z "$from_other" ] && [ -z "$unresolved" ] && [ -s "$tmp/undefined" ]; then
    pass "nothing in libsweep-client.a needs the server"
else
    fail "nothing in libsweep-client.a needs the server" "from the server or replay: $from_other; sweep symbols found nowhere: $unresolved"
fi

# --- programs on the installed SDK ---------------------------------------------
arena=$inst/share/sweep/maps/arena.db
rows=$(sqlite3 "$arena" 'SELECT count(*) FROM triangles')

# build NAME PACKAGE EXE SOURCE COMPILER [FLAGS...]: the source built with
# the game's headers first, then what pkg-config says of PACKAGE.
build() {
    name=$1
    pkg=$2
    exe=$3
    src=$4
    shift 4
    # shellcheck disable=SC2046,SC2086  # pkg-config's output and the flags are words by design
    if ! "$@" -Wall -Wextra -pedantic-errors -Werror $san_flags -I"$game" -I"$tmp" "$src" \
        $(pc "$dest" "$prefix" "$pkg" --cflags --libs) -o "$tmp/$exe" >"$tmp/$exe.log" 2>&1; then
        fail "$name" "build failed:"
        cat "$tmp/$exe.log"
        return 1
    fi
}

# check EXPECTED-FILE EXE ARGS...: runs it and compares its output; what
# went wrong, if anything, is printed and the status is not 0.
check() {
    expected=$1
    exe=$2
    shift 2
    "$tmp/$exe" "$@" >"$tmp/$exe.out" 2>"$tmp/$exe.err"
    rc=$?
    if [ $rc -ne 0 ]; then
        echo "$exe $*: exit status $rc:"
        cat "$tmp/$exe.out" "$tmp/$exe.err"
        return 1
    fi
    if ! diff -u "$expected" "$tmp/$exe.out"; then
        echo "$exe $*: output differs (above)"
        cat "$tmp/$exe.err"
        return 1
    fi
}

# The installed sweepd on the installed arena, on a free port of 127.0.0.1,
# its ready line read for the address (three tries: on a busy machine a
# start has been seen to lose the port the kernel gave it).
token=install-test-command-token
sweepd_tcp=
for _ in 1 2 3; do
    rm -f "$tmp/ready"
    "$inst/bin/sweepd" --map "$arena" --listen 127.0.0.1:0 --command-token "$token" --log-level warn \
        >"$tmp/ready" 2>"$tmp/sweepd.log" &
    sweepd_pid=$!
    i=0
    while ! grep -q '^sweepd ready' "$tmp/ready" 2>/dev/null && kill -0 "$sweepd_pid" 2>/dev/null && [ $i -lt 300 ]; do
        sleep 0.1
        i=$((i + 1))
    done
    sweepd_tcp=$(sed -n 's/^sweepd ready tcp=\([^ ]*\) .*/\1/p' "$tmp/ready")
    [ -z "$sweepd_tcp" ] || break
    kill "$sweepd_pid" 2>/dev/null
    wait "$sweepd_pid" 2>/dev/null
    sweepd_pid=
done

name="C11 client on libsweep alone, against sweepd"
run "$name"
cat >"$tmp/expect_c" <<EOF
connected=server map=same
spawned rules=0
moves=180 answered=180 mismatches=0 corrected=0
converged=yes walked=yes jumped=yes
EOF
if [ -z "$sweepd_tcp" ]; then
    fail "$name" "sweepd did not start:"
    cat "$tmp/sweepd.log"
elif build "$name" sweep use_sdk_c "$here/use_sdk.c" gcc -std=c11; then
    # The program itself needs no library of the server's either.
    needed=$(readelf -d "$tmp/use_sdk_c" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
    case $needed in
    *libuv* | *libdeflate* | *libmicrohttpd*) fail "$name" "the program needs $needed" ;;
    *)
        if check "$tmp/expect_c" use_sdk_c "$arena" "$sweepd_tcp" "$token"; then
            pass "$name (needs $needed)"
        else
            fail "$name" "above; sweepd's log:"
            cat "$tmp/sweepd.log"
        fi
        ;;
    esac
fi
# The same client built by CMake through the installed package alone:
# find_package(sweep) from lib/cmake/sweep, linked with sweep::client.
name="C11 client built with CMake (find_package(sweep)), against sweepd"
run "$name"
mkdir -p "$tmp/cmake_game"
cat >"$tmp/cmake_game/CMakeLists.txt" <<EOF
cmake_minimum_required(VERSION 3.13)
project(game C)
find_package(sweep \${WANT} REQUIRED)
message(STATUS "the game's minimum after find_package: \${CMAKE_MINIMUM_REQUIRED_VERSION}")
add_executable(use_sdk_cmake \${SRC})
set_property(TARGET use_sdk_cmake PROPERTY C_STANDARD 11)
target_compile_options(use_sdk_cmake PRIVATE -Wall -Wextra -pedantic-errors -Werror)
target_link_libraries(use_sdk_cmake PRIVATE sweep::client)
EOF
# cmake_game WANT BUILD-DIR: configures and builds the game asking for
# version WANT of sweep, its output in BUILD-DIR.log.
cmake_game() {
    cmake -S "$tmp/cmake_game" -B "$2" -DWANT="$1" -DSRC="$here/use_sdk.c" -DCMAKE_PREFIX_PATH="$inst" \
        -DCMAKE_C_FLAGS="$san_flags" -DCMAKE_EXE_LINKER_FLAGS="$san_flags" >"$2.log" 2>&1 &&
        cmake --build "$2" >>"$2.log" 2>&1
}
if [ -z "$sweepd_tcp" ]; then
    fail "$name" "sweepd did not start"
elif ! command -v cmake >/dev/null 2>&1; then
    fail "$name" "cmake is not installed (make test installs it)"
elif ! cmake_game 0.1 "$tmp/cmake_build"; then
    fail "$name" "configure or build failed:"
    cat "$tmp/cmake_build.log"
elif ! grep -q "the game's minimum after find_package: 3.13" "$tmp/cmake_build.log"; then
    fail "$name" "find_package(sweep) changed the game's CMAKE_MINIMUM_REQUIRED_VERSION:"
    grep "the game's minimum" "$tmp/cmake_build.log"
else
    cp "$tmp/cmake_build/use_sdk_cmake" "$tmp/use_sdk_cmake"
    if check "$tmp/expect_c" use_sdk_cmake "$arena" "$sweepd_tcp" "$token"; then
        pass "$name"
    else
        fail "$name" "above"
    fi
fi

# find_package refuses a release this is not: a newer one, or another 0.x.
name="find_package(sweep) refuses versions 0.2 and 1.0"
run "$name"
bad=
for v in 0.2 1.0; do
    if cmake_game "$v" "$tmp/cmake_build_$v"; then
        bad="$bad $v accepted;"
    elif ! grep -q 'version: 0.1.0' "$tmp/cmake_build_$v.log"; then
        bad="$bad $v refused without naming the version found: $(cat "$tmp/cmake_build_$v.log");"
    fi
done
if [ -z "$bad" ]; then
    pass "$name"
else
    fail "$name" "$bad"
fi

if [ -n "$sweepd_pid" ]; then
    kill "$sweepd_pid" 2>/dev/null
    wait "$sweepd_pid" 2>/dev/null
    sweepd_pid=
fi

# Every installed header in one C++ program, by <sweep/...>, after the
# game's own headers of the same names on the include path.
printf '%s\n' "$headers" | sed 's/.*/#include <sweep\/&>/' >"$tmp/sweep_all.h"
name="C++17 program including every installed header"
run "$name"
cat >"$tmp/expect_cc" <<EOF
client_options=tcp,0,null
status=DT
v3_len=5
hmac_sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843
triangles=$rows
triangle_rows=$rows
ping=Ping,7,123456789abcdef
EOF
if build "$name" sweep use_sdk_cc "$here/use_sdk.cc" g++ -std=c++17; then
    if check "$tmp/expect_cc" use_sdk_cc "$arena"; then
        pass "$name ($nheaders headers)"
    else
        fail "$name" "above"
    fi
fi

# The replay through sweep-replay.pc: each golden log counted as the
# build's own sweep-replay counts it, and a log with one byte changed
# refused (its frame's checksum).
name="replay through sweep-replay.pc"
run "$name"
if build "$name" sweep-replay use_replay "$here/use_replay.c" gcc -std=c11; then
    bad=
    n=0
    for log in "$root"/tests/replay/golden/*.sweeplog; do
        n=$((n + 1))
        "$root/$BUILD/bin/sweep-replay" "$log" --map "$arena" --json |
            sed 's/.*"ticks":\([0-9]*\),"sessions":\([0-9]*\),"requests":\([0-9]*\),"moves":\([0-9]*\),"messages":\([0-9]*\),"hashes":\([0-9]*\),.*/ticks=\1 sessions=\2 requests=\3 moves=\4 messages=\5 hashes=\6/' \
                >"$tmp/replay.expect"
        check "$tmp/replay.expect" use_replay "$log" "$arena" || bad="$bad $(basename "$log")"
    done
    # One byte in the middle of a copy of a log, changed.
    log=$root/tests/replay/golden/walking.sweeplog
    size=$(wc -c <"$log")
    {
        head -c $((size / 2)) "$log"
        printf 'X'
        tail -c $((size - size / 2 - 1)) "$log"
    } >"$tmp/damaged.sweeplog"
    if cmp -s "$log" "$tmp/damaged.sweeplog"; then
        bad="$bad (the damaged copy is the log)"
    elif "$tmp/use_replay" "$tmp/damaged.sweeplog" "$arena" >"$tmp/damaged.out" 2>&1; then
        bad="$bad (a damaged log replayed: $(cat "$tmp/damaged.out"))"
    fi
    if [ -z "$bad" ] && [ $n -gt 0 ]; then
        pass "$name ($n logs, a damaged one refused: $(tail -n 1 "$tmp/damaged.out"))"
    elif [ -n "$bad" ]; then
        fail "$name" "$bad"
    else
        fail "$name" "no golden logs"
    fi
fi

# --- a second PREFIX -------------------------------------------------------------
# The build's pkg-config files were just made for /opt/sweep-test; installing
# for another prefix must remake them, not copy the first.
prefix2=/opt/sweep-other
dest2=$tmp/root2
run "install with a second PREFIX"
if mk install "$dest2" "$prefix2"; then
    bad=
    for pkg in sweep sweep-replay; do
        pc_prefix=$(sed -n 's/^prefix=//p' "$dest2$prefix2/lib/pkgconfig/$pkg.pc")
        libs=$(pc "$dest2" "$prefix2" $pkg --libs-only-L)
        [ "$pc_prefix" = "$prefix2" ] && [ "$libs" = "-L$dest2$prefix2/lib" ] ||
            bad="$bad $pkg.pc: prefix=$pc_prefix, --libs-only-L '$libs';"
    done
    if [ -z "$bad" ]; then
        pass "install with a second PREFIX"
    else
        fail "install with a second PREFIX" "$bad"
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
    opt/sweep-test/lib/cmake opt/sweep-test/lib/pkgconfig opt/sweep-test/share opt/sweep-test/share/man \
    opt/sweep-test/share/man/man8)
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

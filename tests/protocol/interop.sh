#!/bin/sh
# interop.sh - sweep's C codec against the official FlatBuffers tools from
# Debian (flatc, the Python runtime, the C++ Verifier), both ways, plain and
# size-prefixed. Values are compared (canonical JSON, see interop_tool.c),
# never bytes: builders may lay the same data out differently.
#
#   C -> official:  every C sample passes the C++ Verifier and decodes in
#                   Python to the values C meant.
#   official -> C:  every Python-built sample decodes in C to the values
#                   Python meant; re-encoded by C it passes the C++
#                   Verifier again and reads back equal in Python.
#   controls:       the judges can fail (a corrupt buffer is refused, two
#                   different messages compare unequal).
#
# At test time flatc generates the Python and C++ code from sweep.fbs and
# g++ builds the verifier, into $BUILD/tests/protocol/interop-run. The
# Python runtime is Debian's: /usr/bin/python3 (another python3 on PATH may
# lack python3-flatbuffers). Prints cmocka-style summary lines for
# tests/run-tests.sh.
set -u
BUILD=${BUILD:-build}
HERE=$(dirname "$0")
SRC=tests/protocol
T=$BUILD/tests/protocol
RUN=$T/interop-run
TOOL=$T/interop_tool
PY=/usr/bin/python3
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "[       OK ] $1"; }
fail() { failed=$((failed + 1)); echo "[  FAILED  ] $1"; }
finish() {
    rm -rf "$RUN/c" "$RUN/py" "$RUN/re"
    echo "[==========] $((passed + failed)) test(s) run."
    echo "[  PASSED  ] $passed test(s)."
    [ "$failed" -gt 0 ] && echo "[  FAILED  ] $failed test(s)."
    [ "$failed" -eq 0 ]
    exit $?
}

rm -rf "$RUN" && mkdir -p "$RUN/gen" "$RUN/c" "$RUN/py" "$RUN/re"
if ! flatc --python --cpp -o "$RUN/gen" protocol/sweep.fbs; then
    fail "flatc generates Python and C++ from sweep.fbs"; finish
fi
pass "flatc generates Python and C++ from sweep.fbs"
if ! g++ -std=c++17 -O1 -Wall -Wextra -I"$RUN/gen" "$SRC/official_verify.cc" -o "$RUN/official_verify"; then
    fail "g++ builds the official C++ Verifier"; finish
fi
pass "g++ builds the official C++ Verifier"
VERIFY=$RUN/official_verify
PYI="$PY $SRC/interop.py --gen $RUN/gen"

# --- C -> official ----------------------------------------------------------
if ! "$TOOL" emit "$RUN/c"; then fail "C emits its samples"; finish; fi
for j in "$RUN"/c/c_*.json; do
    n=${j%.json}
    name="C sample $(basename "$n") -> C++ Verifier + Python, plain and size-prefixed"
    ok=1
    "$VERIFY" "$n.bin" || ok=0
    "$VERIFY" sp "$n.sp.bin" || ok=0
    if [ $ok -eq 1 ]; then
        $PYI dump "$n.bin" >"$n.py.json" && $PYI same "$j" "$n.py.json" || ok=0
        $PYI dump "$n.sp.bin" sp >"$n.py.sp.json" && $PYI same "$j" "$n.py.sp.json" || ok=0
    fi
    if [ $ok -eq 1 ]; then pass "$name"; else fail "$name"; fi
done

# --- official -> C (and back) -------------------------------------------------
if ! $PYI build "$RUN/py"; then fail "Python builds its samples"; finish; fi
for j in "$RUN"/py/py_*.json; do
    n=${j%.json}
    b=$(basename "$n")
    name="Python sample $b -> C decode, plain and size-prefixed"
    ok=1
    "$TOOL" dump "$n.bin" >"$n.c.json" && $PYI same "$j" "$n.c.json" || ok=0
    "$TOOL" dump "$n.sp.bin" sp >"$n.c.sp.json" && $PYI same "$j" "$n.c.sp.json" || ok=0
    if [ $ok -eq 1 ]; then pass "$name"; else fail "$name"; fi

    name="Python sample $b -> C re-encode -> C++ Verifier + Python"
    ok=1
    "$TOOL" reencode "$n.bin" "$RUN/re/$b.bin" || ok=0
    "$TOOL" reencode "$n.sp.bin" "$RUN/re/$b.sp.bin" sp || ok=0
    if [ $ok -eq 1 ]; then
        "$VERIFY" "$RUN/re/$b.bin" || ok=0
        "$VERIFY" sp "$RUN/re/$b.sp.bin" || ok=0
    fi
    if [ $ok -eq 1 ]; then
        $PYI dump "$RUN/re/$b.bin" >"$RUN/re/$b.json" && $PYI same "$j" "$RUN/re/$b.json" || ok=0
        $PYI dump "$RUN/re/$b.sp.bin" sp >"$RUN/re/$b.sp.json" && $PYI same "$j" "$RUN/re/$b.sp.json" || ok=0
    fi
    if [ $ok -eq 1 ]; then pass "$name"; else fail "$name"; fi
done

# --- controls: the judges are able to say no ---------------------------------
name="control: the C++ Verifier refuses a truncated frame and a plain buffer read as size-prefixed"
head -c 40 "$RUN/c/c_11.sp.bin" >"$RUN/c/cut.bin"
if ! "$VERIFY" sp "$RUN/c/cut.bin" 2>/dev/null && ! "$VERIFY" sp "$RUN/c/c_11.bin" 2>/dev/null; then
    pass "$name"
else
    fail "$name"
fi
name="control: different messages compare unequal, and C refuses what the C++ Verifier refuses"
if ! $PYI same "$RUN/c/c_00.json" "$RUN/c/c_01.json" 2>/dev/null &&
    ! "$TOOL" dump "$RUN/c/cut.bin" sp 2>/dev/null; then
    pass "$name"
else
    fail "$name"
fi
finish

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
# g++ builds the verifier. The Python runtime is Debian's: /usr/bin/python3
# (another python3 on PATH may lack python3-flatbuffers). Prints
# cmocka-style summary lines for tests/run-tests.sh.
#
# About 75 s on an idle 2-core machine, over 300 s when it is busy:
# run-tests: time limit 900
#
# Cache ($BUILD/tests/protocol/interop-cache). Most of the time goes to
# starting Python, hundreds of times, to judge files that rarely change.
# What only the official side decides is kept, each under a hash of every
# input it reads, so an input that changes is judged afresh:
#   - the generated code and the verifier: sweep.fbs, official_verify.cc,
#     flatc's and g++'s versions and the FlatBuffers C++ headers;
#   - the Python-built samples: those, interop.py, and the Python runtime
#     (interpreter version and the flatbuffers package's files);
#   - a sample's Python verdict (its dumps equal to what the other side
#     meant): all of the above and the bytes of the sample's files.
# Everything C does runs every time (emit, decode, re-encode), and so does
# the C++ Verifier on every buffer: a change to the codec changes the
# bytes, which changes the hash. Only passes are kept, never failures.
# Entries this run did not use are removed at its end.
# SWEEP_INTEROP_CACHE=0 judges everything afresh.
set -u
BUILD=${BUILD:-build}
HERE=$(dirname "$0")
SRC=tests/protocol
T=$BUILD/tests/protocol
RUN=$T/interop-run
TOOL=$T/interop_tool
PY=/usr/bin/python3
CACHE=$T/interop-cache
passed=0
failed=0

pass() { passed=$((passed + 1)); echo "[       OK ] $1"; }
fail() { failed=$((failed + 1)); echo "[  FAILED  ] $1"; }
finish() {
    rm -rf "$RUN/c" "$RUN/py" "$RUN/re" "$RUN/new-tools" "$RUN/new-samples"
    # A run that got through drops what it did not use (older inputs).
    if [ -n "${SAMPLES:-}" ]; then
        find "$CACHE/verdicts" -type f ! -newer "$RUN/started" -delete 2>/dev/null
        for d in "$CACHE"/tools-* "$CACHE"/samples-*; do
            [ "$d" = "$TOOLS" ] || [ "$d" = "$SAMPLES" ] || rm -rf "$d"
        done
    fi
    echo "[==========] $((passed + failed)) test(s) run."
    echo "[  PASSED  ] $passed test(s)."
    [ "$failed" -gt 0 ] && echo "[  FAILED  ] $failed test(s)."
    [ "$failed" -eq 0 ]
    exit $?
}

hash_of() { sha256sum | cut -c1-64; }

[ "${SWEEP_INTEROP_CACHE:-1}" = 0 ] && rm -rf "$CACHE"
rm -rf "$RUN" && mkdir -p "$RUN/c" "$RUN/re" "$CACHE/verdicts"
touch "$RUN/started"

# --- the official tools --------------------------------------------------------
TOOLS=$CACHE/tools-$({
    cat protocol/sweep.fbs "$SRC/official_verify.cc"
    flatc --version 2>&1
    g++ --version 2>&1 | head -n 1
    cat /usr/include/flatbuffers/*.h 2>/dev/null
} | hash_of)
if [ -x "$TOOLS/official_verify" ]; then
    pass "flatc generates Python and C++ from sweep.fbs (cached: same schema and flatc)"
    pass "g++ builds the official C++ Verifier (cached: same source, headers and g++)"
else
    new=$RUN/new-tools
    mkdir -p "$new/gen"
    if ! flatc --python --cpp -o "$new/gen" protocol/sweep.fbs; then
        rm -rf "$new"
        fail "flatc generates Python and C++ from sweep.fbs"; finish
    fi
    pass "flatc generates Python and C++ from sweep.fbs"
    if ! g++ -std=c++17 -O1 -Wall -Wextra -I"$new/gen" "$SRC/official_verify.cc" -o "$new/official_verify"; then
        rm -rf "$new"
        fail "g++ builds the official C++ Verifier"; finish
    fi
    pass "g++ builds the official C++ Verifier"
    # Another run may have made the same one meanwhile: either is good.
    mv -T "$new" "$TOOLS" 2>/dev/null || rm -rf "$new"
fi
touch "$TOOLS"
VERIFY=$TOOLS/official_verify
PYI="$PY $SRC/interop.py --gen $TOOLS/gen"

# The key of everything a Python verdict depends on besides its files.
PYKEY=$({
    echo "$TOOLS"
    cat "$SRC/interop.py"
    $PY --version 2>&1
    rt=$($PY -c 'import flatbuffers, os; print(os.path.dirname(flatbuffers.__file__))' 2>&1)
    echo "$rt"
    cat "$rt"/*.py 2>/dev/null
} | hash_of)

# verdict NAME FILES...: where Python's pass on these very files is kept.
verdict() {
    name=$1
    shift
    echo "$CACHE/verdicts/$({
        echo "$PYKEY $name"
        sha256sum "$@"
    } | hash_of)"
}
# judged NAME FILES...: 0 if Python passed these very files before (kept
# for the next run too).
judged() {
    v=$(verdict "$@")
    [ -f "$v" ] && touch "$v"
}
# judge NAME FILES...: Python passed these very files just now.
judge() { : >"$(verdict "$@")"; }

# --- C -> official ----------------------------------------------------------
if ! "$TOOL" emit "$RUN/c"; then fail "C emits its samples"; finish; fi
for j in "$RUN"/c/c_*.json; do
    n=${j%.json}
    name="C sample $(basename "$n") -> C++ Verifier + Python, plain and size-prefixed"
    ok=1
    "$VERIFY" "$n.bin" || ok=0
    "$VERIFY" sp "$n.sp.bin" || ok=0
    if [ $ok -eq 1 ] && ! judged c-to-py "$j" "$n.bin" "$n.sp.bin"; then
        $PYI dump "$n.bin" >"$n.py.json" && $PYI same "$j" "$n.py.json" || ok=0
        $PYI dump "$n.sp.bin" sp >"$n.py.sp.json" && $PYI same "$j" "$n.py.sp.json" || ok=0
        [ $ok -eq 1 ] && judge c-to-py "$j" "$n.bin" "$n.sp.bin"
    fi
    if [ $ok -eq 1 ]; then pass "$name"; else fail "$name"; fi
done

# --- official -> C (and back) -------------------------------------------------
# The samples Python builds depend on nothing C does: kept, under PYKEY.
SAMPLES=$CACHE/samples-$PYKEY
if [ ! -f "$SAMPLES/py_00.json" ]; then
    new=$RUN/new-samples
    mkdir -p "$new"
    if ! $PYI build "$new"; then rm -rf "$new"; fail "Python builds its samples"; finish; fi
    mv -T "$new" "$SAMPLES" 2>/dev/null || rm -rf "$new"
fi
touch "$SAMPLES"
cp -R "$SAMPLES" "$RUN/py"
for j in "$RUN"/py/py_*.json; do
    n=${j%.json}
    b=$(basename "$n")
    name="Python sample $b -> C decode, plain and size-prefixed"
    ok=1
    "$TOOL" dump "$n.bin" >"$n.c.json" || ok=0
    "$TOOL" dump "$n.sp.bin" sp >"$n.c.sp.json" || ok=0
    if [ $ok -eq 1 ] && ! judged py-to-c "$j" "$n.c.json" "$n.c.sp.json"; then
        $PYI same "$j" "$n.c.json" || ok=0
        $PYI same "$j" "$n.c.sp.json" || ok=0
        [ $ok -eq 1 ] && judge py-to-c "$j" "$n.c.json" "$n.c.sp.json"
    fi
    if [ $ok -eq 1 ]; then pass "$name"; else fail "$name"; fi

    name="Python sample $b -> C re-encode -> C++ Verifier + Python"
    ok=1
    "$TOOL" reencode "$n.bin" "$RUN/re/$b.bin" || ok=0
    "$TOOL" reencode "$n.sp.bin" "$RUN/re/$b.sp.bin" sp || ok=0
    if [ $ok -eq 1 ]; then
        "$VERIFY" "$RUN/re/$b.bin" || ok=0
        "$VERIFY" sp "$RUN/re/$b.sp.bin" || ok=0
    fi
    if [ $ok -eq 1 ] && ! judged re-to-py "$j" "$RUN/re/$b.bin" "$RUN/re/$b.sp.bin"; then
        $PYI dump "$RUN/re/$b.bin" >"$RUN/re/$b.json" && $PYI same "$j" "$RUN/re/$b.json" || ok=0
        $PYI dump "$RUN/re/$b.sp.bin" sp >"$RUN/re/$b.sp.json" && $PYI same "$j" "$RUN/re/$b.sp.json" || ok=0
        [ $ok -eq 1 ] && judge re-to-py "$j" "$RUN/re/$b.bin" "$RUN/re/$b.sp.bin"
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

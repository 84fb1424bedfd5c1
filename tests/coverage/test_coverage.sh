#!/bin/sh
# test_coverage.sh - tests/coverage/coverage.py (make coverage's report) on a
# made-up project: one source of core/ compiled into two programs that run
# different lines of it, a source outside the project's folders, and an empty
# build. Speaks cmocka's summary lines so tests/run-tests.sh counts it.
set -u
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
. "$here/../bench/checks.sh"

mkdir -p "$work/core" "$work/other" "$work/build/a" "$work/build/b" "$work/empty"
# pick's three returns: program a takes the first, b the second, neither
# the third (line 8).
cat >"$work/core/x.c" <<'EOF'
int pick(int k);
int pick(int k)
{
    if (k > 0)
        return 1;
    if (k < 0)
        return -1;
    return 0;
}
#ifdef PROGRAM_A
int main(void) { return pick(1) - 1; }
#else
int main(void) { return pick(-1) + 1; }
#endif
EOF
cat >"$work/other/y.c" <<'EOF'
int unused(void) { return 7; }
EOF
(
    cd "$work" &&
        gcc --coverage -O0 -DPROGRAM_A -c core/x.c -o build/a/x.o &&
        gcc --coverage -O0 -c core/x.c -o build/b/x.o &&
        gcc --coverage -O0 -c other/y.c -o build/b/y.o &&
        gcc --coverage build/a/x.o -o build/a/prog &&
        gcc --coverage build/b/x.o build/b/y.o -o build/b/prog &&
        ./build/a/prog && ./build/b/prog
) >"$work/make.log" 2>&1
check_rc "the made-up project builds and runs" 0 $?

report() { # BUILD OUT: the report, from the made-up project's root
    (cd "$work" && /usr/bin/python3 "$here/coverage.py" "$1") >"$2" 2>&1
}

report build "$work/out"
check_rc "a build with counts is reported" 0 $?
check "the one line neither program ran is the one never run" '^  never run: 8$' "$work/build/coverage.txt"
check "lines either program ran count as run (the union of the two objects)" \
    '^core/x\.c ([0-9]+)/([0-9]+) ' "$work/build/coverage.txt"
run=$(sed -n 's|^core/x\.c \([0-9]*\)/\([0-9]*\) .*|\1 \2|p' "$work/build/coverage.txt")
set -- $run
if [ $# -eq 2 ] && [ "$1" -eq $(($2 - 1)) ]; then
    echo "[       OK ] all but one of core/x.c's lines ran ($1 of $2)"
    passed=$((passed + 1))
else
    echo "[  FAILED  ] all but one of core/x.c's lines ran: got '$run'"
    failed=$((failed + 1))
fi
check "the folder's line sums the file's" '^  core +[0-9]+ of +[0-9]+ +[0-9.]+%  \(1 files\)$' "$work/out"
check "a folder with nothing compiled has no lines" '^  server +0 of +0 ' "$work/out"
check_not "a file outside the project's folders is left out" 'other/y\.c' "$work/build/coverage.txt"
check "the files least run are listed" '^  +[0-9.]+%  +[0-9]+ of +[0-9]+  core/x\.c$' "$work/out"

# Without b's counts its lines are not run: each object's counts are read.
rm -f "$work/build/b/x.gcda"
report build "$work/out.a"
check_rc "a build with one object never run is reported" 0 $?
check "the lines only the program never run reaches are never run" '^  never run: (.*, )?6-8(, .*)?$' \
    "$work/build/coverage.txt"

report empty "$work/out.empty"
check_rc "a build without counts is refused" 2 $?
check "and says why" 'no line counts in empty' "$work/out.empty"
checks_end

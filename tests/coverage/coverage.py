"""coverage.py BUILD - what share of each source file's lines the tests ran.

Reads the line counts of a build made with COVERAGE=1 (make coverage runs
the tests on one first): gcc's gcov, in its JSON form, on every object of
BUILD, run from the project's root so that each file is named as the build
named it. A line counts as run when any object compiled from its file ran
it (a file of the core is in the libraries, in sweepd and in test programs
of their own), so each file's figure is the union over its objects. Only
the project's own folders are reported (core, protocol, server, maps,
client-sdk), their .c files and the inline code of their headers; tests and
system headers are left out.

Prints a line a folder (lines gcc counts, lines run, the share), then the
files least run first; writes every file with the line ranges never run to
BUILD/coverage.txt, which is where to look for what no test reaches. Exits
2 when BUILD holds no counts to read.

Run it with Debian's /usr/bin/python3 (json and subprocess are enough).
"""

import json
import os
import subprocess
import sys

FOLDERS = ("core", "protocol", "server", "maps", "client-sdk")


def objects(build):
    """The .gcno files under build, sorted, as paths from the root."""
    found = []
    for top, dirs, files in os.walk(build):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".gcno"):
                found.append(os.path.join(top, f[: -len(".gcno")] + ".o"))
    return found


def counts(paths):
    """{source: {line: count}}, the greatest count a line had in any object."""
    lines = {}
    for at in range(0, len(paths), 100):
        out = subprocess.run(
            ["gcov", "--json-format", "--stdout"] + paths[at : at + 100],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            check=False,
        ).stdout
        for doc in out.splitlines():
            if not doc.strip():
                continue
            for f in json.loads(doc).get("files", []):
                name = os.path.normpath(f["file"])
                if name.split(os.sep)[0] not in FOLDERS:
                    continue
                mine = lines.setdefault(name, {})
                for ln in f["lines"]:
                    n = ln["line_number"]
                    mine[n] = max(mine.get(n, 0), ln["count"])
    return lines


def ranges(numbers):
    """'12-15, 40' for [12, 13, 14, 15, 40]."""
    out, start, prev = [], None, None
    for n in numbers:
        if start is None:
            start = prev = n
        elif n == prev + 1:
            prev = n
        else:
            out.append(str(start) if start == prev else "%d-%d" % (start, prev))
            start = prev = n
    if start is not None:
        out.append(str(start) if start == prev else "%d-%d" % (start, prev))
    return ", ".join(out)


def share(run, total):
    return 100.0 * run / total if total else 100.0


def main():
    if len(sys.argv) != 2:
        print("usage: coverage.py BUILD", file=sys.stderr)
        return 2
    build = sys.argv[1]
    paths = objects(build)
    if not paths:
        print("coverage.py: no line counts in %s (make coverage builds them)" % build, file=sys.stderr)
        return 2
    lines = counts(paths)
    if not lines:
        print("coverage.py: gcov read nothing of the project's folders in %s" % build, file=sys.stderr)
        return 2
    files = []
    for name, per_line in lines.items():
        missed = sorted(n for n, c in per_line.items() if c == 0)
        files.append((name, len(per_line), len(per_line) - len(missed), missed))
    print("coverage: lines the tests ran, by folder (gcc's count of lines with code)")
    grand_total = grand_run = 0
    for folder in FOLDERS:
        mine = [f for f in files if f[0].split(os.sep)[0] == folder]
        total = sum(f[1] for f in mine)
        run = sum(f[2] for f in mine)
        grand_total += total
        grand_run += run
        print("  %-11s %6d of %6d  %5.1f%%  (%d files)" % (folder, run, total, share(run, total), len(mine)))
    print("  %-11s %6d of %6d  %5.1f%%" % ("all", grand_run, grand_total, share(grand_run, grand_total)))
    files.sort(key=lambda f: (share(f[2], f[1]), -f[1], f[0]))
    print("coverage: the 25 files least run (all of them, and the lines never run: %s)"
          % os.path.join(build, "coverage.txt"))
    for name, total, run, _ in files[:25]:
        print("  %5.1f%%  %5d of %5d  %s" % (share(run, total), run, total, name))
    with open(os.path.join(build, "coverage.txt"), "w") as out:
        out.write("# file, lines run of lines with code, share, then the lines never run\n")
        for name, total, run, missed in files:
            out.write("%s %d/%d %.1f%%\n" % (name, run, total, share(run, total)))
            if missed:
                out.write("  never run: %s\n" % ranges(missed))
    return 0


if __name__ == "__main__":
    sys.exit(main())

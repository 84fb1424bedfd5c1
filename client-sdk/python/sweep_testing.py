"""sweep_testing: a real sweepd for a game's own tests.

    from sweep_testing import Sweepd

    with Sweepd(record=True, seed=7) as d:           # a free port on 127.0.0.1
        c = sweep_client.Client(d.tcp)               # or d.udp with udp=True
        ...
    assert d.replay()["ok"]                          # sweep-replay --strict --json

Sweepd starts `sweepd` on a map (the sample arena by default) listening on
127.0.0.1 with a port the kernel picks, reads its ready line ("sweepd ready
tcp=HOST:PORT udp=HOST:PORT"), and stops it with SIGTERM (the graceful
shutdown: every client gets Bye, the session logs get their END). With
record=True each world's session log goes to a temporary directory under a
known name (--record-name), and with seed=N entity ids are drawn from N
(--seed), so two runs of the same script give the same ids and logs that
compare. replay() runs `sweep-replay --strict --json` on the log and returns
its JSON answer; a torn or unterminated log fails it. A sweepd that does
not start (it exits, cannot be run, or stays silent) raises SweepdError
with what it wrote to stderr, and leaves no process, file or directory
behind.

Where the programs are: $SWEEP_BIN (a directory), else the repository's
build/bin when this file is in a source tree, else PATH. The sample arena:
$SWEEP_MAP, else share/sweep/maps/arena.db of the prefix whose bin holds
the sweepd found as above, else build/maps/arena.db in a source tree, else
share/sweep/maps/arena.db of the prefix whose bin holds the sweepd on
PATH, /usr/local/share/sweep/maps/arena.db or /usr/share/sweep/maps/arena.db.
Only the standard library is used: a test may import this module from any
Python 3.
"""
import json
import os
import re
import select
import shutil
import signal
import subprocess
import tempfile
import time

READY = re.compile(r"^sweepd ready tcp=(\S+) udp=(\S+)")


class SweepdError(RuntimeError):
    """sweepd did not start, or did not stop cleanly; the text says why and
    carries what it wrote to stderr."""


def _repo_root():
    # This file is <repo>/client-sdk/python/sweep_testing.py.
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def find_program(name):
    """The path of sweep program `name` (see the module's docstring)."""
    env = os.environ.get("SWEEP_BIN")
    if env:
        return os.path.join(env, name)
    built = os.path.join(_repo_root(), "build", "bin", name)
    if os.access(built, os.X_OK):
        return built
    found = shutil.which(name)
    if found:
        return found
    raise SweepdError("%s not found: build it (make) or set SWEEP_BIN to the directory holding it" % name)


def _beside(program):
    """The arena make install puts beside PREFIX/bin/PROGRAM
    (PREFIX/share/sweep/maps/arena.db), for the program's path and for its
    real place (a sweepd linked into a bin from its prefix)."""
    return [os.path.join(os.path.dirname(os.path.dirname(p)), "share", "sweep", "maps", "arena.db")
            for p in (os.path.abspath(program), os.path.realpath(program))]


def find_arena():
    """The sample arena's map file (see the module's docstring)."""
    env = os.environ.get("SWEEP_MAP")
    candidates = [env] if env else []
    # First beside the sweepd that will run ($SWEEP_BIN's, else the
    # source tree's or PATH's): the map installed with that server.
    try:
        candidates += _beside(find_program("sweepd"))
    except SweepdError:
        pass
    candidates.append(os.path.join(_repo_root(), "build", "maps", "arena.db"))
    on_path = shutil.which("sweepd")
    if on_path:
        candidates += _beside(on_path)
    candidates += ["/usr/local/share/sweep/maps/arena.db", "/usr/share/sweep/maps/arena.db"]
    candidates = [c for i, c in enumerate(candidates) if c and c not in candidates[:i]]
    for c in candidates:
        if c and os.path.isfile(c):
            return c
    raise SweepdError("the sample arena is not at %s: build it (make) or set SWEEP_MAP" % ", ".join(
        c for c in candidates if c))


class Sweepd:
    """One sweepd process on 127.0.0.1 (a context manager: started on
    enter, stopped on exit). tcp and udp are "HOST:PORT" once started."""

    def __init__(self, map_path=None, record=False, seed=None, name="test", extra=(), start_timeout=20.0):
        self.map_path = map_path or find_arena()
        self.record = record
        self.seed = seed
        self.name = name
        self.extra = list(extra)
        self.start_timeout = start_timeout
        self.tcp = self.udp = None
        self.dir = None
        self.proc = None
        self.stderr_text = ""
        self._stderr_file = None

    def start(self):
        """Starts sweepd and reads its ready line; SweepdError if it does
        not come (sweepd exits, cannot be run, or is silent for
        start_timeout seconds). A start that fails leaves nothing behind:
        used as `with Sweepd() as d`, no __exit__ would clean up after it."""
        try:
            return self._start()
        except BaseException:
            self._abandon()
            raise

    def _start(self):
        self.dir = tempfile.mkdtemp(prefix="sweepd-test-")
        argv = [find_program("sweepd"), "--map", self.map_path, "--listen", "127.0.0.1:0"]
        if self.record:
            os.mkdir(os.path.join(self.dir, "logs"))
            argv += ["--record", os.path.join(self.dir, "logs"), "--record-name", self.name]
        if self.seed is not None:
            argv += ["--seed", str(self.seed)]
        argv += self.extra
        self._stderr_file = open(os.path.join(self.dir, "sweepd.stderr"), "w+")
        try:
            self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=self._stderr_file, text=True)
        except OSError as e:
            raise SweepdError("sweepd did not start: %s: %s" % (argv[0], e))
        deadline = time.monotonic() + self.start_timeout
        # The ready line, or "" when it exits first; a sweepd that neither
        # answers nor exits in time is killed.
        ready, _, _ = select.select([self.proc.stdout], [], [], self.start_timeout)
        line = self.proc.stdout.readline() if ready else ""
        if not ready:
            self.proc.kill()
        m = READY.match(line)
        if not m:
            try:
                self.proc.wait(timeout=max(0.0, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass  # it said something else and lives on: _abandon kills it
            raise SweepdError("sweepd did not start (exit %s): %s" % (self.proc.returncode, self._read_stderr()))
        self.tcp, self.udp = m.group(1), m.group(2)
        return self

    def _abandon(self):
        """After a failed start: no process, pipe, file or directory left
        (what sweepd wrote to stderr stays in stderr_text)."""
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()
            self.proc = None
        self.cleanup()

    def _read_stderr(self):
        self._stderr_file.flush()
        self._stderr_file.seek(0)
        self.stderr_text = self._stderr_file.read()
        return self.stderr_text.strip()

    def stop(self, timeout=20.0):
        """SIGTERM, then wait for the graceful end; SweepdError unless it
        exits 0 in time (then it is killed)."""
        if not self.proc or self.proc.returncode is not None:
            return
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
            raise SweepdError("sweepd did not stop within %.0f s of SIGTERM: %s" % (timeout, self._read_stderr()))
        finally:
            self.proc.stdout.close()
        self._read_stderr()
        if rc != 0:
            raise SweepdError("sweepd exited %d: %s" % (rc, self.stderr_text.strip()))

    def logs(self):
        """The session logs written so far, first segments first."""
        if not self.record:
            return []
        d = os.path.join(self.dir, "logs")
        return sorted(os.path.join(d, f) for f in os.listdir(d) if f.endswith(".sweeplog"))

    def log(self):
        """The sample world's first segment, where a replay starts."""
        stem = os.path.splitext(os.path.basename(self.map_path))[0]
        return os.path.join(self.dir, "logs", "%s-%s-0000.sweeplog" % (stem, self.name))

    def replay(self, log=None, core=False):
        """sweep-replay --strict --json on the log (the sample world's by
        default): its JSON answer, with "exit" added."""
        argv = [find_program("sweep-replay"), log or self.log(), "--map", self.map_path, "--strict", "--json"]
        if core:
            argv.append("--core")
        r = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            answer = json.loads(r.stdout)
        except ValueError:
            answer = {"ok": False, "error": (r.stdout + r.stderr).strip()}
        answer["exit"] = r.returncode
        return answer

    def cleanup(self):
        """Removes the temporary directory (the logs with it)."""
        if self._stderr_file:
            self._stderr_file.close()
            self._stderr_file = None
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

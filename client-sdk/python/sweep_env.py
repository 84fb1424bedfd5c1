"""sweep_env.py - what sweep's Python programs need before they start: an
interpreter with the FlatBuffers runtime, and the code `flatc --python`
generates from protocol/sweep.fbs.

    import sweep_env
    sweep_env.need_flatbuffers(__file__, as_program=__name__ == "__main__")
    sweep_env.need_wire(__file__, as_program=__name__ == "__main__")
    from sweep.wire import ...

need_flatbuffers: a `python3` early on PATH is often not the system's (pyenv,
a virtualenv) and lacks Debian's python3-flatbuffers. A program run that way
runs itself again, once, under $SWEEP_PYTHON or else /usr/bin/python3 when
that one can import flatbuffers, with the same arguments; otherwise it
exits 2 saying which interpreter lacks the module and what to run instead.
Imported as a module it raises ImportError with that text instead (running
the importer's command line again would be wrong).

need_wire: finds the generated code as sweep_log.load_wire does
($SWEEP_PY_GENERATED, PYTHONPATH, $SWEEP_BUILD_DIR/client-sdk/python,
build/client-sdk/python of this repository) and puts it on sys.path.
"""

import os
import shlex
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
# Set in the environment of the run started again: it must not start over
# a second time if its interpreter lacks the module after all.
AGAIN = "SWEEP_PY_RESTARTED"


def _interpreter_text(path):
    return "%s (Python %d.%d.%d)" % ((path or "python3",) + tuple(sys.version_info[:3]))


def _can_import_flatbuffers(python, env):
    try:
        return subprocess.run([python, "-c", "import flatbuffers"], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
                              timeout=60).returncode == 0
    except (OSError, subprocess.SubprocessError):
        return False


def _fail(text, as_program):
    if as_program:
        sys.stderr.write(text + "\n")
        sys.exit(2)
    raise ImportError(text)


def _command_again(script, as_program):
    """The command to run again: this program, or, for a module imported by
    someone's own program, that program (never the module itself)."""
    if as_program or not sys.argv or not sys.argv[0] or sys.argv[0] == "-c":
        return [SYSTEM_PYTHON, script] + sys.argv[1:] if as_program else [SYSTEM_PYTHON, "YOUR_PROGRAM.py"]
    return [SYSTEM_PYTHON] + sys.argv


def need_flatbuffers(script, as_program=True):
    """Returns once `import flatbuffers` works in this interpreter; see the
    module's docstring for what happens when it does not."""
    try:
        import flatbuffers  # noqa: F401
        return
    except ImportError as e:
        why = str(e)
    here = sys.executable
    name = os.path.basename(script)
    other = os.environ.get("SWEEP_PYTHON") or SYSTEM_PYTHON
    restarted_from = os.environ.get(AGAIN)
    if as_program and not restarted_from and os.access(other, os.X_OK):
        # PYTHONHOME belongs to the interpreter it was set for, never to
        # another one.
        env = dict(os.environ)
        env.pop("PYTHONHOME", None)
        if _can_import_flatbuffers(other, env):
            env[AGAIN] = here or "python3"
            sys.stdout.flush()
            sys.stderr.flush()
            os.execve(other, [other, script] + sys.argv[1:], env)
    text = "%s: flatbuffers is not importable by %s: %s.\n" % (name, _interpreter_text(here), why)
    if restarted_from:
        text += "(%s was started by %s, which lacks it too.)\n" % (name, restarted_from)
    elif other != SYSTEM_PYTHON:
        text += "($SWEEP_PYTHON=%s cannot import it either.)\n" % other
    text += ("Run it with an interpreter that has it, e.g. Debian's:\n"
             "    %s\n"
             "or install it: apt-get install python3-flatbuffers (for %s), or\n"
             "    %s -m pip install flatbuffers (for this one);\n"
             "$SWEEP_PYTHON names the interpreter it runs itself again with (default %s)."
             % (shlex.join(_command_again(script, as_program)), SYSTEM_PYTHON, here or "python3",
                SYSTEM_PYTHON))
    _fail(text, as_program)


def need_wire(script, as_program=True):
    """Puts the generated code on sys.path (sweep_log.load_wire's search)."""
    import sweep_log
    try:
        sweep_log.load_wire()
    except sweep_log.WireCodeMissing as e:
        tried = getattr(e, "tried", None)
        _fail("%s: the FlatBuffers code generated from protocol/sweep.fbs is not in %s: run make (it writes it "
              "into BUILD/client-sdk/python), or set SWEEP_BUILD_DIR=BUILD or SWEEP_PY_GENERATED=DIR"
              % (os.path.basename(script), ", ".join(tried) if tried else "the usual places"), as_program)

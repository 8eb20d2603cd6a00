"""The compiled launcher builds in the background while the first kernel compiles: in a fresh cache it is in place
and serving calls after the first call; a launcher that does not build leaves calls on the Python path; a kernel
that does not compile gives its error unchanged and leaves no compiler process behind; nothing is built when the
launcher is cached or not needed. Each case runs in a new process (the launcher is loaded once per process)."""
from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import textwrap

import pytest

import asc
from asc.runtime import launcher, seal

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(asc.__file__)))     # the asc under test, in the children too
REAL_CXX = shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(REAL_CXX is None, reason="no C++ compiler: the launcher cannot be built")

SCRIPT = textwrap.dedent('''
    from __future__ import annotations
    import json, os, signal, subprocess, sys
    import numpy as np
    import asc
    import asc.language as lang
    from asc.runtime import launcher, toolchain

    spawned = []                      # every process asc starts: the launcher's compile is the one with "-x c"
    class Recording(subprocess.Popen):
        def __init__(self, args, *a, **k):
            spawned.append(" ".join(map(str, args)))
            super().__init__(args, *a, **k)
    subprocess.Popen = Recording

    pending_at_kernel_build = []      # had the launcher's build started (and not been waited for) by then?
    real_build = toolchain.build
    def build(*a, **k):
        pending_at_kernel_build.append(bool(launcher._pending))
        return real_build(*a, **k)
    toolchain.build = build

    @lang.kernel
    def twice(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * 2.0
        return out

    if "kill-first-build" in sys.argv:          # a signal kills the background build: module() builds again
        launcher.start()
        os.killpg(launcher._pending[0].proc.pid, signal.SIGKILL)

    x = np.arange(10, dtype=np.float32)
    out = {"errors": []}
    for _ in range(3):
        try:
            out["ok"] = bool((twice(x) == x * 2).all())
        except asc.AscError as e:
            out["errors"].append([type(e).__name__, str(e), e.__cause__ is None, e.__suppress_context__])

    def children():
        try:
            os.waitpid(-1, os.WNOHANG)
            return True               # a compiler still running, or a zombie nobody reaped
        except ChildProcessError:
            return False

    out["fast_calls"] = twice._launcher.calls if twice._launcher is not None else 0
    out["pending"] = len(launcher._pending)
    out["children"] = children()
    out["launcher_builds"] = sum(" -x c " in s for s in spawned)
    out["pending_at_kernel_build"] = pending_at_kernel_build
    if "no-module" not in sys.argv:
        out["module"] = launcher.module() is not None
        out["children"] = out["children"] or children()
    print(json.dumps(out))
''')


def _env(cache, **extra):
    e = {k: v for k, v in os.environ.items() if k not in ("ASC_CACHE", "ASC_LOG", "ASC_DEBUG", "CXX", "CC")}
    e.update(ASC_CACHE_DIR=str(cache), PYTHONPATH=os.pathsep.join([ROOT] + [p for p in [e.get("PYTHONPATH")] if p]),
             **extra)
    return e


def start(tmp_path, *args, cache=None, **env):
    script = tmp_path / "k.py"
    if not script.exists():
        script.write_text(SCRIPT)
    return subprocess.Popen([sys.executable, str(script), *args], env=_env(cache or tmp_path / "cache", **env),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def result(proc):
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stderr
    return json.loads(stdout.strip().splitlines()[-1]), stderr


def run(tmp_path, *args, **env):
    return result(start(tmp_path, *args, **env))


def launch_dir(tmp_path, cache="cache"):
    """The launcher libraries in the cache (each with its build record, LIB.seal, beside it)."""
    d = tmp_path / cache / "launch"
    names = sorted(os.listdir(d)) if d.exists() else []
    libs = [n for n in names if not n.endswith(".seal")]
    assert sorted(n for n in names if n.endswith(".seal")) == [n + ".seal" for n in libs]
    return libs


def one_launcher(files):
    """The libraries are one built launcher and nothing else (no temporary file; launch_dir checks its record)."""
    assert len(files) == 1 and files[0].startswith("_asc_launch-"), files
    return True


def fake_cxx(tmp_path, fail_on: str):
    """A CXX that fails the launcher's compile (fail_on="launcher") or the kernel's (fail_on="kernel") and runs
    the real compiler for the other."""
    path = tmp_path / f"cxx-{fail_on}"
    is_launcher = '[ "$a" = "-x" ] && launcher=1'
    fails = "[ -n \"$launcher\" ]" if fail_on == "launcher" else "[ -z \"$launcher\" ]"
    path.write_text(textwrap.dedent(f'''\
        #!/bin/sh
        launcher=
        for a in "$@"; do {is_launcher}; done
        if {fails}; then echo "asc-test: this {fail_on} compile fails on purpose" >&2; exit 1; fi
        exec {REAL_CXX} "$@"
    '''))
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def test_fresh_cache_builds_the_launcher_in_the_background_while_the_kernel_compiles(tmp_path):
    out, _ = run(tmp_path)
    assert out["ok"] and not out["errors"] and out["module"]
    assert out["fast_calls"] >= 2                        # the calls after the first go through the launcher
    assert out["launcher_builds"] == 1
    assert out["pending_at_kernel_build"] == [True]      # started before the kernel's compiler ran
    assert out["pending"] == 0 and not out["children"]
    files = launch_dir(tmp_path)
    assert one_launcher(files)
    again, _ = run(tmp_path)                             # a new process with the launcher (and kernel) cached
    assert again["ok"] and again["module"] and again["fast_calls"] >= 2
    assert again["launcher_builds"] == 0 and again["pending_at_kernel_build"] == []
    assert launch_dir(tmp_path) == files


def test_a_launcher_that_does_not_build_leaves_calls_on_the_python_path(tmp_path):
    out, stderr = run(tmp_path, CXX=fake_cxx(tmp_path, "launcher"), ASC_LOG="compile")
    assert out["ok"] and not out["errors"]
    assert not out["module"] and out["fast_calls"] == 0
    assert out["launcher_builds"] == 1                   # tried once per process, not once per kernel or call
    assert out["pending"] == 0 and not out["children"]
    assert "the compiled launcher did not build (calls take the Python path)" in stderr
    assert "asc-test: this launcher compile fails on purpose" in stderr
    assert launch_dir(tmp_path) == []


def test_a_kernel_that_does_not_compile_gives_its_error_and_leaves_no_process(tmp_path):
    out, _ = run(tmp_path, CXX=fake_cxx(tmp_path, "kernel"))
    assert "ok" not in out and len(out["errors"]) == 3
    for name, msg, no_cause, suppressed in out["errors"]:
        assert name == "ToolchainError" and no_cause and suppressed
        assert msg.startswith("the C++ compiler failed on kernel 'twice' (this is a bug in asc; please report it).")
        assert "asc-test: this kernel compile fails on purpose" in msg
        assert "launcher" not in msg
    assert out["launcher_builds"] >= 1 and out["pending_at_kernel_build"][0] is True
    assert out["pending"] == 0 and not out["children"]
    assert out["module"]                                 # module() itself still works afterwards
    files = launch_dir(tmp_path)
    assert one_launcher(files)


def test_a_background_build_killed_by_a_signal_is_built_again(tmp_path):
    out, _ = run(tmp_path, "kill-first-build")
    assert out["ok"] and out["module"] and out["fast_calls"] >= 2
    assert out["launcher_builds"] == 2
    assert out["pending"] == 0 and not out["children"]
    assert one_launcher(launch_dir(tmp_path))


def test_two_processes_building_at_once(tmp_path):
    procs = [start(tmp_path, cache=tmp_path / "shared") for _ in range(2)]
    for p in procs:
        out, _ = result(p)
        assert out["ok"] and out["module"] and out["fast_calls"] >= 2 and not out["children"]
    files = launch_dir(tmp_path, "shared")
    assert one_launcher(files)


def test_nothing_is_built_for_interpreted_kernels(tmp_path):
    out, _ = run(tmp_path, "no-module", ASC_DEBUG="1")
    assert out["ok"] and out["launcher_builds"] == 0 and out["pending"] == 0 and not out["children"]
    assert launch_dir(tmp_path) == []


def test_nothing_starts_once_the_launcher_is_loaded():
    assert launcher.module() is not None
    launcher.start()
    assert launcher._pending == []


def _record(path):
    """The fields of the build record (asc/runtime/seal.py) beside the library at `path`."""
    return dict(line.split(" ", 1) for line in open(seal.seal_path(str(path))).read().splitlines()[1:])


def _rebuilt_and_said_once(tmp_path, files, what):
    """A run that finds the cached launcher unusable: it is built again, said exactly once under ASC_LOG=compile
    (naming `what` was wrong), the calls after the first take it, and the cache holds one sealed launcher again;
    the run after that loads it as is and says nothing."""
    out, stderr = run(tmp_path, ASC_LOG="compile")
    assert out["ok"] and not out["errors"] and out["module"] and out["fast_calls"] >= 2
    assert out["launcher_builds"] == 1 and out["pending"] == 0 and not out["children"]
    said = [line for line in stderr.splitlines() if "launcher" in line]
    assert len(said) == 1, stderr
    assert said[0].startswith("asc: the compiled launcher") and said[0].endswith(": rebuilding it"), said
    assert what in said[0], said
    assert launch_dir(tmp_path) == files
    so = tmp_path / "cache" / "launch" / files[0]
    assert seal.verify(str(so), _record(so)["key"]) is None
    again, stderr = run(tmp_path, ASC_LOG="compile")              # whole again: loaded as is, nothing said
    assert again["ok"] and again["module"] and again["fast_calls"] >= 2 and again["launcher_builds"] == 0
    assert "launcher" not in stderr, stderr


DAMAGE = {
    "truncated": lambda data: data[:len(data) // 2],      # dlopen of this one can kill the process (SIGBUS)
    "empty": lambda data: b"",
    "garbage": lambda data: b"\x7fELF" + b"\xff" * 4000,
    "one_byte_flipped": lambda data: data[:4000] + bytes([data[4000] ^ 0x40]) + data[4001:],
}
DAMAGE_SAID = {                                           # what the build record shows each one to be
    "truncated": "cache entry corrupt (it has ",
    "empty": "cache entry corrupt (it has 0 bytes",
    "garbage": "cache entry corrupt (it has 4004 bytes",
    "one_byte_flipped": "cache entry corrupt (its contents changed since it was built)",
}


@pytest.mark.parametrize("how", sorted(DAMAGE))
def test_a_damaged_launcher_is_rebuilt_and_said_once(tmp_path, how):
    run(tmp_path)
    files = launch_dir(tmp_path)
    so = tmp_path / "cache" / "launch" / files[0]
    good = so.read_bytes()
    so.write_bytes(DAMAGE[how](good))
    _rebuilt_and_said_once(tmp_path, files, DAMAGE_SAID[how])
    assert so.read_bytes() != DAMAGE[how](good)


RECORD_DAMAGE = {
    "missing": (None, "cache entry corrupt (it has no build record)"),
    "garbage": (b"not a build record\n", "cache entry corrupt (its build record is damaged)"),
}


@pytest.mark.parametrize("how", sorted(RECORD_DAMAGE))
def test_a_launcher_without_its_build_record_is_rebuilt(tmp_path, how):
    run(tmp_path)
    files = launch_dir(tmp_path)
    record = tmp_path / "cache" / "launch" / (files[0] + ".seal")
    content, said = RECORD_DAMAGE[how]
    if content is None:
        record.unlink()
    else:
        record.write_bytes(content)
    _rebuilt_and_said_once(tmp_path, files, said)


def _replace_with_another_library(tmp_path, so, key):
    """Puts a valid shared library that is not the launcher (no PyInit__asc_launch) at `so`, sealed for `key`."""
    other = tmp_path / "other.c"
    other.write_text("int asc_test_not_a_module(void) { return 1; }\n")
    built = tmp_path / "other.so"
    subprocess.run([REAL_CXX, "-x", "c", "-shared", "-fPIC", str(other), "-o", str(built)], check=True)
    seal.install(str(built), str(so), key)


def test_a_library_built_for_something_else_is_not_loaded_but_rebuilt(tmp_path):
    """A valid library that is not the launcher, whose record says it was built for another key (another
    kernel's library, an older launch.c): never loaded, built again."""
    run(tmp_path)
    files = launch_dir(tmp_path)
    so = tmp_path / "cache" / "launch" / files[0]
    _replace_with_another_library(tmp_path, so, "0" * 64)
    _rebuilt_and_said_once(tmp_path, files, "cache entry corrupt (it was built for another kernel or signature)")


def test_a_launcher_that_does_not_load_is_rebuilt_once(tmp_path):
    """A file that its record vouches for (the launcher's own key, size and digest) but that does not import (a
    library that is not the launcher): built again once, and loaded in the same process."""
    run(tmp_path)
    files = launch_dir(tmp_path)
    so = tmp_path / "cache" / "launch" / files[0]
    _replace_with_another_library(tmp_path, so, _record(so)["key"])
    assert seal.verify(str(so), _record(so)["key"]) is None      # the record cannot tell: only the import can
    _rebuilt_and_said_once(tmp_path, files, "does not load")

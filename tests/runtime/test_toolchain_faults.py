"""A broken compiler gives a named error that says what to do (ToolchainError), never a hang, a bare OSError or
FileNotFoundError, or a library that is loaded damaged: a compiler that never returns (ASC_COMPILE_TIMEOUT), one
that exits 0 leaving a truncated, garbage or no file, one that removes its output as it fails, a user's bad
ASC_CFLAGS (their flags, not a bug in asc); and ASC_CACHE=must-hit compiles nothing on any target."""
from __future__ import annotations

import dataclasses
import os
import shutil
import stat
import textwrap
import time

import numpy as np
import pytest

import asc
import asc.environment
import asc.language as lang
from asc.errors import CacheMissError, ToolchainError
from asc.runtime import seal, toolchain

REAL_CXX = shutil.which("g++") or shutil.which("clang++")
pytestmark = pytest.mark.skipif(REAL_CXX is None, reason="no C++ compiler")

SOURCE = 'extern "C" __attribute__((visibility("default"))) int asc_entry(void*, void*) { return 7; }\n'


@pytest.fixture
def use(tmp_path, monkeypatch):
    """use(**config fields): this test's configuration, with a cache of its own."""
    def set_(**kw):
        kw.setdefault("cache_dir", str(tmp_path / "cache"))
        monkeypatch.setattr(asc.environment, "config", dataclasses.replace(asc.environment.config, **kw))
    set_()
    return set_


def fake_cxx(tmp_path, body: str) -> str:
    """A compiler script: $out is the file after -o; $REAL runs the real compiler with the same arguments."""
    path = tmp_path / "fake-cxx"
    head = '#!/bin/sh\nout=\nprev=\nfor a in "$@"; do [ "$prev" = "-o" ] && out="$a"; prev="$a"; done\n'
    path.write_text(head + textwrap.dedent(body).replace("$REAL", f'{REAL_CXX} "$@"') + "\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def build(tmp_path):
    out = tmp_path / "cache" / "k.so"
    out.parent.mkdir(mode=0o700, exist_ok=True)
    toolchain.build(SOURCE, str(out), {}, "k", "the-key")
    return out


def leftovers(tmp_path):
    return sorted(p.name for p in (tmp_path / "cache").iterdir() if p.name.startswith(".tmp-") or
                  p.name.endswith(".so"))


def test_a_good_build_is_sealed_with_its_key(tmp_path, use):
    out = build(tmp_path)
    assert seal.verify(str(out), "the-key") is None
    assert seal.verify(str(out), "another-key") == "cache entry corrupt (it was built for another kernel or signature)"
    assert stat.S_IMODE(out.stat().st_mode) == 0o700 and leftovers(tmp_path) == ["k.so"]


def gone(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/status") as f:
            return "\nState:\tZ" in f.read()             # a zombie no one reaped yet is not running
    except FileNotFoundError:
        return True


def test_a_compiler_that_never_returns_is_stopped(tmp_path, use):
    pidfile = tmp_path / "pid"
    use(cxx=fake_cxx(tmp_path, f"sleep 300 &\necho $! > {pidfile}\nwait"), compile_timeout=1.0)
    t0 = time.monotonic()
    with pytest.raises(ToolchainError) as e:
        build(tmp_path)
    assert time.monotonic() - t0 < 30
    msg = str(e.value)
    assert "did not finish compiling kernel 'k' within 1 s and was stopped (ASC_COMPILE_TIMEOUT=1)" in msg
    assert "raise ASC_COMPILE_TIMEOUT" in msg and "fake-cxx" in msg
    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while not gone(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(pid)                                     # the compiler's own children are killed with it
    assert leftovers(tmp_path) == []


def test_a_kernel_whose_compiler_hangs_raises(tmp_path, use):
    use(cxx=fake_cxx(tmp_path, "sleep 300"), compile_timeout=1.0)

    @lang.kernel
    def hung(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] + 41.0
        return out
    with pytest.raises(ToolchainError, match="within 1 s"):
        hung(np.zeros(4, np.float32))


def test_the_timeout_is_read_from_the_environment(monkeypatch):
    monkeypatch.setattr(asc.environment, "config", asc.environment.config)          # restored after the test
    monkeypatch.setenv("ASC_COMPILE_TIMEOUT", "2.5")
    assert asc.environment.reload().compile_timeout == 2.5
    monkeypatch.setenv("ASC_COMPILE_TIMEOUT", "0")
    assert asc.environment.reload().compile_timeout == 0                      # no limit
    monkeypatch.delenv("ASC_COMPILE_TIMEOUT")
    assert asc.environment.reload().compile_timeout == 600


@pytest.mark.parametrize("body, why", [
    ('$REAL && head -c 3000 "$out" > "$out.t" && mv "$out.t" "$out"', "it is truncated (3000 bytes"),
    ('echo garbage > "$out"', "it is not a shared library (8 bytes starting b'garbage\\n')"),
    ('rm -f "$out"', "it wrote no file"),
    (': > "$out"', "it is empty"),
])
def test_a_compiler_that_exits_0_without_a_library(tmp_path, use, body, why):
    use(cxx=fake_cxx(tmp_path, body))
    with pytest.raises(ToolchainError) as e:
        build(tmp_path)
    assert f"the C++ compiler reported success on kernel 'k' but its output is not a complete shared library: " \
           f"{why}" in str(e.value)
    assert leftovers(tmp_path) == []


def test_every_truncation_of_a_library_is_seen():
    import tempfile
    d = tempfile.mkdtemp()
    src, so = os.path.join(d, "k.cpp"), os.path.join(d, "k.so")
    with open(src, "w") as f:
        f.write(SOURCE)
    toolchain.run([REAL_CXX, "-shared", "-fPIC", src, "-o", so], "a test library")
    data = open(so, "rb").read()
    assert seal.incomplete(so) is None
    for n in sorted({1, 16, 63, 64, 500, len(data) // 3, len(data) // 2, len(data) - 64, len(data) - 1}):
        with open(so, "wb") as f:
            f.write(data[:n])
        assert seal.incomplete(so) is not None, n
    shutil.rmtree(d)


def test_a_compiler_that_fails_after_removing_its_output(tmp_path, use):
    use(cxx=fake_cxx(tmp_path, 'rm -f "$out"\necho "ld: cannot find -lasc_test" >&2\nexit 1'))
    with pytest.raises(ToolchainError) as e:                       # was FileNotFoundError from the cleanup
        build(tmp_path)
    assert "ld: cannot find -lasc_test" in str(e.value) and "Repro command" in str(e.value)


def test_bad_user_cflags_are_named_as_the_users(tmp_path, use):
    use(cflags=("-fno-such-flag-for-asc",))
    with pytest.raises(ToolchainError) as e:
        build(tmp_path)
    msg = str(e.value)
    assert "because of your ASC_CFLAGS ('-fno-such-flag-for-asc'): it compiles without them" in msg
    assert "Fix or unset ASC_CFLAGS" in msg and "bug in asc" not in msg
    assert leftovers(tmp_path) == []
    use(cflags=("-DUNUSED_MACRO=1",), cxx=fake_cxx(tmp_path, 'echo "asc-test: broken" >&2\nexit 1'))
    with pytest.raises(ToolchainError) as e:                       # fails without them too: asc's problem
        build(tmp_path)
    assert "also without your ASC_CFLAGS ('-DUNUSED_MACRO=1') (this is a bug in asc" in str(e.value)


def test_must_hit_compiles_nothing_for_ascend_sim(tmp_path, use):
    use(cache_mode="must-hit", cxx=fake_cxx(tmp_path, f"touch {tmp_path}/ran\n$REAL"))

    @lang.kernel(target="ascend-sim")
    def sim_add(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] + y[i]
        return out
    with pytest.raises(CacheMissError, match="ASC_CACHE=must-hit: the ascend-sim kernel"):
        sim_add(np.ones(256, np.float32), np.ones(256, np.float32))
    assert not (tmp_path / "ran").exists()
    use(cache_mode="", cxx=fake_cxx(tmp_path, f"touch {tmp_path}/ran\n$REAL"))   # now it compiles
    assert (sim_add(np.ones(256, np.float32), np.ones(256, np.float32)) == 2).all()
    assert (tmp_path / "ran").exists()


def test_a_launcher_build_that_never_returns_leaves_calls_on_the_python_path(tmp_path):
    """The compiled launcher builds in the background (asc/runtime/launcher.py); a compiler that hangs on it is
    stopped after ASC_COMPILE_TIMEOUT and calls take the Python path (run in a new process: one launcher each)."""
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(asc.__file__)))
    script = tmp_path / "k.py"
    script.write_text(textwrap.dedent('''\
        from __future__ import annotations
        import numpy as np
        import asc.language as lang
        from asc.runtime import launcher

        @lang.kernel
        def inc(x: lang.float32[N]) -> lang.float32[N]:
            out = lang.empty_like(x)
            for i in range(N):
                out[i] = x[i] + 1.0
            return out
        x = np.arange(5, dtype=np.float32)
        assert all((inc(x) == x + 1).all() for _ in range(3))
        print("module", launcher.module() is not None)
    '''))
    hang_on_launcher = fake_cxx(tmp_path, 'for a in "$@"; do [ "$a" = "-x" ] && exec sleep 300; done\nexec $REAL')
    env = {k: v for k, v in os.environ.items() if k not in ("ASC_CACHE", "CXX", "CC", "ASC_CFLAGS")}
    env.update(ASC_CACHE_DIR=str(tmp_path / "cache"), ASC_LOG="compile", ASC_COMPILE_TIMEOUT="3", CXX=hang_on_launcher,
               PYTHONPATH=os.pathsep.join([root] + [p for p in [env.get("PYTHONPATH")] if p]))
    t0 = time.monotonic()
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert time.monotonic() - t0 < 60
    assert "module False" in r.stdout
    assert "the compiled launcher did not build within 3 s (ASC_COMPILE_TIMEOUT)" in r.stderr

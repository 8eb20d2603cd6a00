"""The disk cache: a second process loads compiled kernels without running the compiler; keys ignore line
numbers and paths; corrupt entries are rebuilt; no compiler gives a clear error."""
from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import asc.language as lang

KERNEL = textwrap.dedent('''
    from __future__ import annotations
    import sys
    import numpy as np
    import asc.language as lang

    @lang.kernel
    def twice(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = x[i] * 2.0
        return out

    x = np.arange(10, dtype=np.float32)
    assert (twice(x) == x * 2).all()
    print("stats", twice.cache_info()["compiles"], twice.cache_info()["disk_hits"])
''')


def run(tmp_path, code, name="k.py", **env):
    path = tmp_path / name
    path.write_text(code)
    e = {k: v for k, v in os.environ.items() if k not in ("ASC_CACHE", "ASC_LOG", "CXX")}
    e.update(ASC_CACHE_DIR=str(tmp_path / "cache"), **env)
    return subprocess.run([sys.executable, str(path)], capture_output=True, text=True, env=e, cwd=tmp_path)


def test_second_process_loads_from_disk_without_compiler(tmp_path):
    first = run(tmp_path, KERNEL, ASC_LOG="compile")
    assert first.returncode == 0, first.stderr
    assert "compiling twice" in first.stderr and "stats 1 0" in first.stdout
    # compiling is forbidden: the cache must serve the kernel
    second = run(tmp_path, KERNEL, ASC_LOG="compile", ASC_CACHE="must-hit")
    assert second.returncode == 0, second.stderr
    assert "compiling" not in second.stderr and "stats 0 1" in second.stdout


def test_cache_key_ignores_line_numbers_and_paths(tmp_path):
    assert run(tmp_path, KERNEL).returncode == 0
    moved = run(tmp_path, "\n\n\n# moved down\n" + KERNEL, name="other_file.py", ASC_CACHE="must-hit")
    assert moved.returncode == 0, moved.stderr
    changed = run(tmp_path, KERNEL.replace("* 2.0", "* 3.0").replace("x * 2).all", "x * 3).all"),
                  ASC_CACHE="must-hit")
    assert changed.returncode != 0 and "CacheMissError" in changed.stderr and "must-hit" in changed.stderr


def test_cache_dir_is_private_and_holds_no_temporaries(tmp_path):
    assert run(tmp_path, KERNEL).returncode == 0
    cache = tmp_path / "cache"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    files = [p.name for p in cache.rglob("*") if p.is_file()]
    assert any(f.endswith(".so") for f in files) and any(f.endswith(".cpp") for f in files)
    assert not [f for f in files if f.startswith(".tmp-")]


def test_corrupt_entry_is_rebuilt(tmp_path):
    assert run(tmp_path, KERNEL).returncode == 0
    for so in (tmp_path / "cache").rglob("*.so"):
        so.write_bytes(b"not a shared library")
    again = run(tmp_path, KERNEL, ASC_LOG="compile")
    assert again.returncode == 0, again.stderr
    assert "cache entry corrupt" in again.stderr


def test_missing_compiler_says_what_to_install(tmp_path):
    r = run(tmp_path, KERNEL, CXX="/nonexistent/c++")
    assert r.returncode != 0
    assert "ToolchainError" in r.stderr and "install g++" in r.stderr and "interpret" in r.stderr


@lang.kernel
def plus_one(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + 1.0
    return out


def test_repeated_call_costs_no_compile():
    x = np.zeros(8, np.float32)
    plus_one(x)
    before = dict(plus_one.cache_info())
    for _ in range(5):
        plus_one(x)
    after = plus_one.cache_info()
    assert after["compiles"] == before["compiles"] and after["disk_hits"] == before["disk_hits"]
    assert after["specializations"] == 1 and after["calls"] == before["calls"] + 5
    plus_one(np.zeros(9, np.float32))           # a new static shape: a new specialization
    assert plus_one.cache_info()["specializations"] == 2


@pytest.mark.skipif(shutil.which("clang++") is None, reason="clang++ is not installed on this machine")
def test_clang_builds_the_same_kernel(tmp_path):
    r = run(tmp_path, KERNEL, ASC_LOG="compile", CXX="clang++")
    assert r.returncode == 0, r.stderr
    assert "compiling twice" in r.stderr and "stats 1 0" in r.stdout


def test_the_key_follows_the_compiler_sources(tmp_path, monkeypatch):
    """A kernel cached by an edited (or upgraded, same-version) asc is not loaded: the key covers the IR, passes and
    renderer sources (by size and modification time)."""
    from asc.runtime import cache as disk
    for sub in ("ir", "passes", "backends"):
        (tmp_path / sub).mkdir()
        (tmp_path / sub / "m.py").write_text("x = 1\n")
    monkeypatch.setattr(disk, "_PKG", str(tmp_path))
    disk.compiler_fingerprint.cache_clear()
    try:
        k1 = disk.key("ir text", {})
        assert disk.key("ir text", {}) == k1
        (tmp_path / "backends" / "m.py").write_text("x = 12\n")
        disk.compiler_fingerprint.cache_clear()
        assert disk.key("ir text", {}) != k1
    finally:
        disk.compiler_fingerprint.cache_clear()

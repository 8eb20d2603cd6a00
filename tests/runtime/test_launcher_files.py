"""The compiled launcher's files: launch.c (the call path) and output_cache.c (the memory of the outputs, plain C)
are separate files compiled into one module; every file the build reads is part of its cache key and ships in the
package (pyproject.toml's package-data)."""
from __future__ import annotations

import fnmatch
import pathlib
import re
import shlex
import subprocess
import tomllib

import pytest

from asc.runtime import launcher, toolchain

ROOT = pathlib.Path(__file__).resolve().parents[2]
RUNTIME = ROOT / "asc" / "runtime"


def _local_includes(path: pathlib.Path) -> set:
    return set(re.findall(r'^#include "([^"]+)"', path.read_text(), re.M))


def test_the_allocator_is_its_own_plain_c_file():
    launch = (RUNTIME / "launch.c").read_text()
    for word in ("mmap", "munmap", "pthread_mutex", "MAXCACHED"):
        assert word not in launch, f"launch.c still holds the allocator ({word})"
    oc = (RUNTIME / "output_cache.c").read_text()
    assert "Python.h" not in oc and "numpy" not in oc
    try:
        cc = shlex.split(toolchain.compiler())
    except Exception as e:           # no compiler here: the launcher is not built either
        pytest.skip(f"no C compiler: {e}")
    proc = subprocess.run(cc + ["-x", "c", "-fsyntax-only", "-Wall", "-Werror", str(RUNTIME / "output_cache.c")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr           # compiles without Python's or NumPy's headers


def test_every_file_of_the_build_is_in_its_key_and_in_the_package():
    files = {pathlib.Path(f).name for f in launcher.FILES}
    assert {pathlib.Path(f).name for f in launcher.SOURCES} == {"launch.c", "output_cache.c"}
    for src in launcher.SOURCES:
        assert _local_includes(pathlib.Path(src)) <= files, src
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["asc"]
    for f in launcher.FILES:
        rel = pathlib.Path(f).resolve().relative_to(ROOT / "asc").as_posix()
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not in pyproject.toml's package-data"


def test_the_module_reports_the_allocators_counters():
    mod = launcher.module()
    if mod is None:
        pytest.skip("the launcher did not build here")
    assert set(mod.cache_stats()) == {"cached_blocks", "cached_bytes", "live_blocks", "reuses", "maps", "limit"}

"""ascend-sim's headers: kernel_operator.h includes its parts by area (impl/*.h) once each and in an order that
compiles; every header is under 600 lines; every header ships in the package (pyproject.toml's package-data)."""
from __future__ import annotations

import fnmatch
import pathlib
import re
import tomllib

from asc.runtime import ascend_sim

ROOT = pathlib.Path(__file__).resolve().parents[2]
SIM = pathlib.Path(ascend_sim.SIM_DIR)


def test_kernel_operator_includes_each_part_once():
    text = (SIM / "kernel_operator.h").read_text()
    included = re.findall(r'^#include "(impl/[\w.]+)"', text, re.M)
    parts = sorted(p.relative_to(SIM).as_posix() for p in (SIM / "impl").glob("*.h"))
    assert sorted(included) == parts and len(set(included)) == len(included)
    assert len(parts) >= 8          # tensors, queues and buffers, data copy, vector, cube, launch, ...


def test_every_header_is_small_and_shipped():
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["asc"]
    for path in SIM.rglob("*.h"):
        lines = path.read_text().count("\n")
        assert lines <= 600, f"{path.relative_to(ROOT)}: {lines} lines"
        rel = path.relative_to(ROOT / "asc").as_posix()
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not in pyproject.toml's package-data"

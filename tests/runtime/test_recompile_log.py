"""Every compilation says why it happened: first call, new dtype, new static shape, changed source, changed
options, a missing or corrupt cache entry."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np

import asc.language as lang


@lang.kernel
def neg(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = -x[i]
    return out


def test_reasons_in_cache_info():
    neg(np.zeros(3, np.float32))
    neg(np.zeros(3, np.float64))
    neg(np.zeros(4, np.float64))
    reasons = [c["reason"] for c in neg.cache_info()["compilations"]]
    assert reasons[0].startswith("first call")
    assert reasons[1].startswith("new dtype for 'x' (float32 -> float64)")
    assert reasons[2].startswith("new static shape for 'x' ((3,) -> (4,))")
    assert all(c["seconds"] > 0 and c["signature"].startswith("x: float") for c in neg.cache_info()["compilations"])


SRC = ("from __future__ import annotations\nimport numpy as np, asc.language as lang\n"
       "@lang.kernel{opts}\ndef f(x: lang.float32[N]) -> lang.float32[N]:\n    out = lang.empty_like(x)\n"
       "    for i in range(N):\n        out[i] = x[i] * {c}\n    return out\nf(np.ones(4, np.float32))\n")


def run(tmp_path, src, **env):
    p = tmp_path / "k.py"
    p.write_text(src)
    e = dict(os.environ, ASC_CACHE_DIR=str(tmp_path / "cache"), ASC_LOG="compile", **env)
    return subprocess.run([sys.executable, str(p)], capture_output=True, text=True, env=e)


def test_reasons_across_processes(tmp_path):
    first = run(tmp_path, SRC.format(opts="", c="2.0"))
    assert "first call; not in the disk cache" in first.stderr
    assert run(tmp_path, SRC.format(opts="", c="2.0")).stderr == ""          # a disk hit: no compile
    changed = run(tmp_path, SRC.format(opts="", c="3.0"))
    assert "the kernel's source changed since its last build" in changed.stderr
    opts = run(tmp_path, SRC.format(opts="(fastmath=True)", c="3.0"))
    assert "options changed since its last build" in opts.stderr
    must = run(tmp_path, SRC.format(opts="", c="4.0"), ASC_CACHE="must-hit")
    assert must.returncode != 0 and "CacheMissError" in must.stderr and "source changed" in must.stderr

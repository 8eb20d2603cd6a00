"""Every public module imports first, in a fresh interpreter (no import cycle depends on what was imported before)."""
from __future__ import annotations

import subprocess
import sys

import pytest

MODULES = ["asc", "asc.language", "asc.torch", "asc.autodiff", "asc.math", "asc.debugger", "asc.cli", "asc.vectorize",
           "asc.frontend", "asc.frontend.signature", "asc.runtime.kernel", "asc.backends.cpu", "asc.backends.ascend",
           "asc.passes", "asc.ir"]


@pytest.mark.parametrize("module", MODULES)
def test_imports_first(module):
    if module == "asc.torch":
        pytest.importorskip("torch")
    r = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr[-2000:]

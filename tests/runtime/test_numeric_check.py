"""Numeric check: nan/inf in outputs (or, with intermediates, in any stored value) is an error naming the kernel,
the output or line, and the first bad index with its value."""
from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import asc
import asc.language as lang


def line_of(marker: str) -> int:
    with open(__file__) as f:
        return next(i for i, text in enumerate(f, 1) if marker in text and "line_of" not in text)


def make(target="cpu", numeric_check=None):
    opts = {"target": target}
    if numeric_check is not None:
        opts["numeric_check"] = numeric_check

    @lang.kernel(**opts)
    def logs(x: lang.float32[N]) -> lang.float32[N]:
        tmp = lang.empty_like(x)
        out = lang.empty_like(x)
        for i in range(N):
            tmp[i] = lang.log(x[i])  # PRODUCES
        for i in range(N):
            out[i] = tmp[i] * 0.0 + 1.0
        return out
    return logs


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_outputs_checked(target):
    k = make(target, True)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    np.testing.assert_array_equal(k(x), 1.0)
    y = np.array([1.0, 2.0, 0.0, 5.0], np.float32)       # log(0) = -inf; -inf * 0 = nan
    with pytest.raises(asc.NumericCheckError) as ei:
        k(y)
    msg = str(ei.value)
    assert "'logs'" in msg and "the returned value" in msg and "nan at index (2,)" in msg and "first of 1" in msg


@pytest.mark.parametrize("target", ["cpu", "interpret"])
def test_intermediates_name_the_line(target):
    k = make(target, "intermediates")
    with pytest.raises(asc.NumericCheckError) as ei:
        k(np.array([1.0, 0.0, 2.0], np.float32))
    msg = str(ei.value)
    assert f"test_numeric_check.py:{line_of('# PRODUCES')}" in msg and "-inf" in msg and "'tmp'" in msg
    assert "(1,)" in msg


def test_global_switch_and_no_checks_when_off():
    k = make("cpu")
    x = np.array([0.0], np.float32)
    assert np.isnan(k(x)[0])
    try:
        lang.enable_numeric_check()
        with pytest.raises(asc.NumericCheckError):
            k(x)
        lang.enable_numeric_check(intermediates=True)
        with pytest.raises(asc.NumericCheckError, match="first produced"):
            k(x)
    finally:
        lang.disable_numeric_check()
    assert np.isnan(k(x)[0])
    assert "asc_fin" not in k.source("cpu", x)


def test_inplace_written_argument_checked():
    @lang.kernel(numeric_check=True)
    def halve(x: lang.float64[N]):
        for i in range(N):
            x[i] = x[i] / (i - 1)
    with pytest.raises(asc.NumericCheckError, match=r"argument 'x' \(written in place\) has inf at index \(1,\)"):
        halve(np.ones(3))


def test_environment_variable(tmp_path):
    p = tmp_path / "k.py"
    p.write_text("from __future__ import annotations\nimport numpy as np, asc.language as lang\n"
                 "@lang.kernel\ndef f(x: lang.float32[N]) -> lang.float32[N]:\n    out = lang.empty_like(x)\n"
                 "    for i in range(N):\n        out[i] = lang.sqrt(x[i])\n    return out\n"
                 "f(np.array([1.0, -1.0], np.float32))\n")
    r = subprocess.run([sys.executable, str(p)], capture_output=True, text=True,
                       env=dict(os.environ, ASC_NUMERIC_CHECK="1"))
    assert r.returncode != 0 and "NumericCheckError" in r.stderr and "nan at index (1,)" in r.stderr

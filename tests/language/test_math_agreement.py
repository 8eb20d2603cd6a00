"""What "compiled code matches the interpreter" means for math functions (issue 15, item 3; README, docs/math.md):
compiled code computes them with asc_math.h, within the bounds of docs/math.md; the interpreter with NumPy (its
float32 exp / log / tanh / sin / cos / pow, erf / sigmoid / rsqrt through float64). They are not bit-identical
(tanh: 2e-6 apart at 1.0, as the issue measured); they agree within the sum of the two errors, at most 5 float32
ulp (NumPy documents up to 3.83 ulp for its float32 log). sqrt, abs, floor, ceil, maximum and the arithmetic are
bit-identical. Each test compiles one kernel of every function and runs it compiled and interpreted."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc.math import cos, erf, exp, log, pow, rsqrt, sigmoid, sin, sqrt, tanh
from helpers import erf64, ulp_distance, ulps_from_exact

# the asserted bounds of docs/math.md (float32, every build), as tests/include/test_asc_math.py asserts them
BOUND = {"exp": 1.1, "log": 0.9, "tanh": 2.0, "erf": 2.0, "sigmoid": 1.8, "sin": 0.55, "cos": 0.55, "rsqrt": 0.55,
         "pow": 0.6}
EXACT = ("sqrt", "abs", "floor", "ceil", "maximum")
ROWS = ("exp", "log", "tanh", "erf", "sigmoid", "sin", "cos", "rsqrt", "pow") + EXACT


def every_function(x: lang.float32[N], p: lang.float32[N], e: lang.float32[N], s: lang.float32[N],
                   y: lang.float32[N]) -> lang.float32[14, N]:
    out = lang.empty((14, N), dtype=lang.float32)
    for i in range(N):
        out[0, i] = exp(e[i])
        out[1, i] = log(p[i])
        out[2, i] = tanh(x[i])
        out[3, i] = erf(x[i])
        out[4, i] = sigmoid(x[i])
        out[5, i] = sin(s[i])
        out[6, i] = cos(s[i])
        out[7, i] = rsqrt(p[i])
        out[8, i] = pow(p[i], y[i])
        out[9, i] = sqrt(p[i])
        out[10, i] = abs(x[i])
        out[11, i] = lang.floor(s[i])
        out[12, i] = lang.ceil(s[i])
        out[13, i] = lang.maximum(x[i], s[i])
    return out


def _inputs(n=1 << 16):
    rng = np.random.default_rng(15)
    mag = np.exp(rng.uniform(-18, 3, n))
    x = (mag * rng.choice([-1.0, 1.0], n)).astype(np.float32)
    p = np.exp(rng.uniform(-40, 40, n)).astype(np.float32)
    e = rng.uniform(-87, 88, n).astype(np.float32)
    s = (rng.uniform(-1, 1, n) * 10.0 ** rng.uniform(-3, 4, n)).astype(np.float32)
    y = rng.uniform(-2, 2, n).astype(np.float32)
    x[:4] = [1.0, -1.0, 0.5, 3.0]                   # tanh(1.0): the 2e-6
    return x, p, e, s, y


def _exact(x, p, e, s, y):
    d = [v.astype(np.float64) for v in (x, p, e, s, y)]
    x, p, e, s, y = d
    return {"exp": np.exp(e), "log": np.log(p), "tanh": np.tanh(x), "erf": erf64(x),
            "sigmoid": 1.0 / (1.0 + np.exp(-x)), "sin": np.sin(s), "cos": np.cos(s), "rsqrt": 1.0 / np.sqrt(p),
            "pow": p ** y}


@pytest.fixture(scope="module")
def results():
    args = _inputs()
    compiled = lang.kernel(every_function)(*args)
    interpreted = lang.kernel(target="interpret")(every_function)(*args)
    return args, compiled, interpreted


@pytest.mark.parametrize("fn", list(BOUND))
def test_compiled_math_is_within_its_documented_bound(results, fn):
    args, compiled, _ = results
    err = ulps_from_exact(compiled[ROWS.index(fn)], _exact(*args)[fn])
    assert err.max() <= BOUND[fn], f"{fn}: {err.max():.3f} ulp (docs/math.md: {BOUND[fn]})"


@pytest.mark.parametrize("fn", list(BOUND))
def test_compiled_and_interpreted_math_agree_within_five_ulp(results, fn):
    _, compiled, interpreted = results
    k = ROWS.index(fn)
    np.testing.assert_array_equal(np.isnan(compiled[k]), np.isnan(interpreted[k]))
    assert ulp_distance(compiled[k], interpreted[k]).max() <= 5, fn


def test_tanh_is_not_bit_identical_but_close(results):
    # the README's old "bit for bit" claim: tanh(1.0) differs by one float32 ulp between the two (2e-6 after
    # the bias_gelu_back); what holds is the bound above
    _, compiled, interpreted = results
    k = ROWS.index("tanh")
    assert ulp_distance(compiled[k], interpreted[k]).max() >= 1
    assert abs(float(compiled[k, 0]) - np.tanh(1.0)) <= 2 * np.spacing(np.float32(np.tanh(1.0)))


@pytest.mark.parametrize("fn", EXACT)
def test_exact_functions_are_bit_identical(results, fn):
    _, compiled, interpreted = results
    k = ROWS.index(fn)
    np.testing.assert_array_equal(compiled[k].view(np.int32), interpreted[k].view(np.int32))


def test_the_docs_state_the_real_guarantee():
    # README and docs/cpu.md claimed "results match the interpreter bit for bit"; they state the ulp bounds now,
    # and the precision and NaN rules in one paragraph each (README, docs/tensors.md)
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text()
    cpu = (root / "docs" / "cpu.md").read_text()
    tensors = (root / "docs" / "tensors.md").read_text()
    for text in (readme, cpu):
        assert "match the interpreter bit for bit" not in text
    assert "within 5 float32 ulp" in readme and "tanh 1.99" in readme
    for text in (readme, tensors):
        assert "accumulate in float32" in text or "accumulated in float32" in text
        assert "numpy.maximum" in text and "NaN" in text
    assert "### Precision of 16-bit products and reductions" in tensors and "### NaN in max and min" in tensors

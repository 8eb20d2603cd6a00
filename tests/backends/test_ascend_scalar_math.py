"""ascend scalar code (the fallback for loops with no vector lowering) runs what the cpu target runs: math functions
of a scalar on the vector unit (one block: Duplicate, the function's vector API, lane 0 read back after a V -> S
flag), Python's integer //, %, ** and shifts with NumPy's results (division by zero, INT_MIN // -1, counts outside
the type), and float -> integer conversions with NumPy's x86 result out of range. Each is compared
with the interpreter on ascend-sim; before, each was refused ("has no scalar form on the AI core")."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend.ops import OPS
from asc.errors import CompileError
from helpers import close, interpreted

UNARY = sorted(f for f, op in OPS.items() if op["args"] == 1)
DOMAIN = {"log": (0.01, 20.0), "sqrt": (0.0, 50.0), "rsqrt": (0.05, 50.0), "exp": (-20.0, 20.0)}


def _recurrence(fn: str, folder):
    """s = 0.5 * s + f(x[i]): a value carried from one element to the next, so the loop stays scalar code."""
    src = (f"from __future__ import annotations\nimport asc.language as lang\n\n\n"
           f"@lang.kernel(target='ascend-sim')\ndef rec_{fn}(x: lang.float32[N]) -> lang.float32[N]:\n"
           f"    out = lang.empty_like(x)\n    s = lang.float32(0.0)\n    for i in range(N):\n"
           f"        s = s * 0.5 + lang.{fn}(x[i])\n        out[i] = s\n    return out\n")
    path = folder / f"rec_{fn}.py"
    path.write_text(src)
    ns: dict = {}
    exec(compile(src, str(path), "exec"), ns)
    return ns[f"rec_{fn}"]


@pytest.mark.parametrize("fn", UNARY)
def test_math_of_a_scalar_runs_on_the_vector_unit(fn, tmp_path):
    lo, hi = DOMAIN.get(fn, (-6.0, 6.0))
    x = np.random.default_rng(len(fn)).uniform(lo, hi, 37).astype(np.float32)
    k = _recurrence(fn, tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = k(x)
        src = k.source("ascend", x)
    want = interpreted(k)(x)
    close(got, want, np.float32, ulps=4)
    api = OPS[fn]["api"]
    assert f"__aicore__ inline float scalar{api}_(" in src and f"scalar{api}_(smIn_, smOut_" in src
    assert "HardEvent::V_S" in src


@lang.kernel(target="ascend-sim")
def mixed_math(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    s = lang.float32(0.0)
    for i in range(N):
        s = s * 0.25 + lang.exp(x[i] * 0.5) - lang.tanh(x[i]) + lang.sqrt(lang.abs(x[i])) * lang.erf(s)
        out[i] = s
    return out


def test_several_math_functions_in_one_statement():
    x = np.random.default_rng(3).uniform(-3, 3, 101).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = mixed_math(x)
    close(got, interpreted(mixed_math)(x), np.float32, ulps=8)


@lang.kernel(target="ascend-sim")
def int_ops(a: lang.int32[N], b: lang.int32[N]):
    q, r, p = lang.empty_like(a), lang.empty_like(a), lang.empty_like(a)
    sl, sr, ab = lang.empty_like(a), lang.empty_like(a), lang.empty_like(a)
    acc = lang.int32(0)
    for i in range(N):
        acc = acc + 1                          # carried: scalar code
        q[i] = a[i] // b[i]
        r[i] = a[i] % b[i]
        p[i] = a[i] ** (b[i] % 4)
        sl[i] = a[i] << b[i]
        sr[i] = a[i] >> b[i]
        ab[i] = abs(a[i]) + acc
    return q, r, p, sl, sr, ab


def test_integer_operators_have_numpy_semantics():
    lo = np.iinfo(np.int32).min
    a = np.array([7, -7, 7, -7, 0, lo, lo, 5, -5, 123456, 3, -3, 2, 1, lo], np.int32)
    b = np.array([2, 2, -2, -2, 3, -1, 1, 0, 0, 7, 31, 31, 32, -1, 33], np.int32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = int_ops(a, b)
        want = interpreted(int_ops)(a, b)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    with np.errstate(all="ignore"):
        np.testing.assert_array_equal(got[0], a // b)          # NumPy itself: 0 for a division by zero
        np.testing.assert_array_equal(got[1], a % b)


@lang.kernel(target="ascend-sim")
def to_int(x: lang.float32[N]):
    a, b, c = lang.empty(x.shape, dtype=lang.int32), lang.empty(x.shape, dtype=lang.int64), \
        lang.empty(x.shape, dtype=lang.int8)
    s = lang.float32(0.0)
    for i in range(N):
        s = s + x[i]
        a[i] = lang.int32(x[i])
        b[i] = lang.int64(x[i])
        c[i] = lang.int8(s)
    return a, b, c


def test_float_to_int_as_numpy_out_of_range():
    x = np.array([1.5, -1.5, 2.9, -2.9, 3e9, -3e9, np.nan, np.inf, -np.inf, 1e19, 130.0, -0.0], np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = to_int(x)
        want = interpreted(to_int)(x)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_float64_math_in_scalar_code_is_refused_with_the_fix():
    @lang.kernel(target="ascend-sim")
    def f64(x: lang.float64[N]) -> lang.float64[N]:
        out = lang.empty_like(x)
        s = lang.float64(0.0)
        for i in range(N):
            s = s * 0.5 + lang.exp(x[i])
            out[i] = s
        return out

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(CompileError, match=r"exp\(\) of a float64 value .*lang.float32\(x\)"):
            f64(np.ones(5))

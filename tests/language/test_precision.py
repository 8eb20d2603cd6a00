"""The precision rule of products and reductions of 16-bit floats (issue 15, item 1; docs/tensors.md, "Precision"):
the sum is accumulated in float32; the value has NumPy's dtype (float16 @ float16 is float16) and is rounded once to
it, except where the product or reduction is written whole into a float32 destination (a float32 output,
`out[...] = a @ b`, `lang.cast(a @ b, lang.float32)`), which keeps the float32 accumulation. A named value
(`c = a @ b`) is a tensor of its dtype. Every target and every decorator computes the same: before, the interpreter
rounded `return a @ b` under `-> float32`, and the cpu target rounded `c = a @ b + bias` under @lang.kernel only."""
from __future__ import annotations

import types

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError

DECORATORS = {"kernel": lang.kernel, "fused": lang.fused_kernel, "cube": lang.cube_kernel}
TARGETS = ("interpret", "cpu", "ascend-sim")


# ---- kept in float32: the product / reduction is written whole into a float32 destination

def mm_return(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    return a @ b


def mm_store(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    out = lang.empty((M, N), dtype=lang.float32)
    out[...] = a @ b
    return out


def mm_cast(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    return lang.cast(a @ b, lang.float32)


def sum_return(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M]:
    return lang.sum(a, axis=1)


def sum_cast(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M]:
    return lang.cast(lang.sum(a, axis=1), lang.float32)


# ---- rounded to the 16-bit dtype: the value is used in an expression or bound to a name

def mm_named(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    c = a @ b
    return c


def mm_bias(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    return a @ b + a[0:1, 0:N]


def mm_bias_named(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M, N]:
    c = a @ b + a[0:1, 0:N]
    return c


def sum_named(a: lang.float16[M, K], b: lang.float16[K, N]) -> lang.float32[M]:
    s = lang.sum(a, axis=1)
    return s


WIDE = (mm_return, mm_store, mm_cast, sum_return, sum_cast)
ROUNDED = (mm_named, mm_bias, mm_bias_named, sum_named)


def _with_dtype(fn, dt):
    """fn with its float16 annotations replaced by dt's (bfloat16)."""
    if dt is np.float16:
        return fn
    g = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__)
    g.__annotations__ = {k: v.replace("float16", "bfloat16") for k, v in fn.__annotations__.items()}
    g.__module__ = fn.__module__
    return g


def _data(dt):
    rng = np.random.default_rng(7)
    a = rng.standard_normal((16, 96)).astype(dt)
    b = rng.standard_normal((96, 32)).astype(dt)
    return a, b


def _exact(fn, a, b):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if fn.__name__.startswith("sum"):
        return a64.sum(axis=1)
    p = a64 @ b64
    return p + a64[0:1, 0:32] if "bias" in fn.__name__ else p


def _run(fn, dec, target, dt):
    a, b = _data(dt)
    k = DECORATORS[dec](target=target)(_with_dtype(fn, dt))
    try:
        return k(a, b), a, b
    except CompileError as e:   # the ascend scalar plan has no temporaries (a documented limitation), said so
        assert target == "ascend-sim" and "a temporary tensor" in str(e), str(e)
        return None, a, b


CASES = [(dt, dec, t) for dt in (np.float16, ml_dtypes.bfloat16) for dec in DECORATORS for t in TARGETS
         if dt is np.float16 or t != "ascend-sim"]


def _id(c):
    return f"{np.dtype(c[0]).name}-{c[1]}-{c[2]}"


@pytest.mark.parametrize("fn", WIDE, ids=lambda f: f.__name__)
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_written_whole_into_float32_keeps_the_float32_accumulation(fn, case):
    dt, dec, target = case
    r, a, b = _run(fn, dec, target, dt)
    if r is None:
        return
    assert r.dtype == np.float32
    # a float32 sum of exact float16 / bfloat16 products: within float32 rounding of the exact value (a rounding to
    # the 16-bit dtype would be ~1e-2 here)
    err = np.abs(r.astype(np.float64) - _exact(fn, a, b)).max()
    assert err < 2e-5, f"{fn.__name__} {_id(case)}: {err}"


def _ulp16(x, dt):
    """One ulp of the 16-bit dtype at |x|."""
    x = np.abs(x).astype(np.float32).astype(dt)
    if dt is np.float16:
        return np.spacing(x).astype(np.float64)
    return np.spacing(x.astype(np.float32)).astype(np.float64) * 2 ** 16      # bfloat16: 16 bits fewer


@pytest.mark.parametrize("fn", ROUNDED, ids=lambda f: f.__name__)
@pytest.mark.parametrize("case", CASES, ids=_id)
def test_a_value_used_or_named_is_rounded_to_its_dtype(fn, case):
    dt, dec, target = case
    r, a, b = _run(fn, dec, target, dt)
    if r is None:
        return
    r = r.astype(np.float64)
    # the value is a float16 / bfloat16 value, stored into the float32 output
    np.testing.assert_array_equal(r, r.astype(np.float32).astype(dt).astype(np.float64),
                                  err_msg=f"{fn.__name__} {_id(case)}: not rounded to {np.dtype(dt).name}")
    # and the right one: within one rounding of the exact value (two for a product plus a bias)
    exact = _exact(fn, a, b)
    bound = 0.5 * _ulp16(exact, dt)
    if "bias" in fn.__name__:           # the product rounded, then the sum with the bias
        bound = bound + 0.5 * _ulp16(a.astype(np.float64) @ b.astype(np.float64), dt)
    assert np.all(np.abs(r - exact) <= bound + 1e-6), f"{fn.__name__} {_id(case)}"


def test_precision_names_both_modes():
    for deco in (lang.kernel, lang.fused_kernel, lang.cube_kernel):
        with pytest.raises(ValueError, match='unknown precision .fp16.; choose "float32".*or "mixed".*docs/tensors.md'):
            deco(precision="fp16")
        deco(precision="mixed")
        deco(precision="float32")

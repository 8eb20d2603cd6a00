"""asc.frontend.signature.retyped, what `asc compile --dtype x=float16` does with a kernel annotated
`x: lang.float32[N]` (issue 38, item 8): the kernel compiled for float16, its return annotation following when no
other parameter keeps the old dtype. The retyped kernel runs on every target and computes what the kernel computes
for that dtype: float16 storage, float32 arithmetic, one rounding at the store. String annotations (this file's
`from __future__ import annotations`) and tuple returns too."""
from __future__ import annotations

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.frontend.signature import read_signature, retyped
from helpers import on_target

N = lang.dim("N")
TARGETS = ("interpret", "cpu", "cpu-checked", "ascend-sim")


def poly(x: lang.float32[N], c: lang.float32 = 0.25) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * x[i] * c + x[i]
    return out


def mixed(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    return x * 2.0 + y


def pair(x: lang.float32[N], k: int) -> (lang.float32[N], lang.int32[N]):
    return x * 3.0, lang.cast(x, lang.int32) + k


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [lang.float16, lang.bfloat16])
def test_retyped_kernel_runs_for_the_new_dtype(target, dt):
    g, changed = retyped(poly, {"x": dt})
    assert changed == [f"x: float32 -> {dt.ir.name}", f"the return value: float32 -> {dt.ir.name}"]
    x = (np.arange(-40, 40) / 8).astype(dt.np)
    got = on_target(target, g)(x)
    assert got.dtype == dt.np
    xf = x.astype(np.float32)
    np.testing.assert_array_equal(got, (xf * xf * np.float32(0.25) + xf).astype(dt.np))
    with pytest.raises(asc.ArgumentError, match=f"argument 'x' must be {dt.ir.name}, got float32"):
        on_target("interpret", g)(xf)


def test_the_original_is_untouched():
    g, _ = retyped(poly, {"x": lang.float16})
    assert g is not poly and g.__code__ is poly.__code__ and g.__name__ == "poly"
    assert read_signature(poly)[0][0].dtype.name == "float32"
    assert read_signature(g)[0][0].dtype.name == "float16" and read_signature(g)[0][1].dtype.name == "float32"
    assert retyped(poly, {"x": lang.float32}) == (poly, [])


@pytest.mark.parametrize("target", ("interpret", "cpu"))
def test_a_parameter_that_keeps_the_dtype_keeps_the_return(target):
    g, changed = retyped(mixed, {"x": lang.float16})
    assert changed == ["x: float32 -> float16"]
    x, y = np.arange(5).astype(np.float16), np.full(5, 0.5, np.float32)
    got = on_target(target, g)(x, y)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, x.astype(np.float32) * 2 + y)
    g2, changed2 = retyped(mixed, {"x": lang.float16, "y": lang.float16})
    assert changed2[-1] == "the return value: float32 -> float16"
    assert on_target(target, g2)(x, y.astype(np.float16)).dtype == np.float16


@pytest.mark.parametrize("target", ("interpret", "cpu"))
def test_tuple_return_elements_of_the_old_dtype_follow(target):
    g, changed = retyped(pair, {"x": lang.float16})
    assert changed[-1] == "the return value: float32 -> float16"
    x = np.array([1.5, -2.25, 7.0], np.float16)
    a, b = on_target(target, g)(x, 2)
    assert a.dtype == np.float16 and b.dtype == np.int32
    np.testing.assert_array_equal(a, x * np.float16(3))
    np.testing.assert_array_equal(b, x.astype(np.int32) + 2)


def test_a_python_number_has_no_dtype_to_retype():
    with pytest.raises(asc.CompileError, match="parameter 'k' is annotated as a Python number") as e:
        retyped(pair, {"k": lang.int32})
    assert "test_retype.py" in str(e.value)

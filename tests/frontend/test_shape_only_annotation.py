"""`lang.Tensor[N]`, `lang.Tensor[N, 4]` (issue 38, item 8): a tensor of that shape, any dtype, typed from the
call's argument -- an annotation that gives a shape without a dtype (before: TypeError "Tensor cannot be
subscripted"). Sizes are checked as for `lang.float32[N]`; `lang.Tensor[lang.float32]` stays "that dtype, any
shape"; mixing a dtype into the sizes is a TypeError that says how to write it. On every target: the interpreter,
cpu with and without memory checks, ascend-sim."""
import numpy as np
import pytest

import asc
import asc.language as lang
from helpers import on_target

N = lang.dim("N")
M = lang.dim("M")
TARGETS = ("interpret", "cpu", "cpu-checked", "ascend-sim")


def twice(x: lang.Tensor[N]) -> lang.Tensor[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * 2
    return out


def add_rows(a: lang.Tensor[N, M], b: "lang.Tensor[M]") -> lang.Tensor[N, M]:
    return a + b


def fixed(x: lang.Tensor[3, N]):
    return x[0] + x[2]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [np.float32, np.float16, np.int32])
def test_any_dtype_of_the_shape(target, dt):
    k = on_target(target, twice)
    x = (np.arange(37) - 18).astype(dt)
    got = k(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, x * dt(2))


@pytest.mark.parametrize("target", TARGETS)
def test_two_dims_and_a_string_annotation(target):
    k = on_target(target, add_rows)
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    b = np.arange(4, dtype=np.float32) / 8
    np.testing.assert_array_equal(k(a, b), a + b)
    with pytest.raises(asc.ShapeError, match="M is 4 for 'a' but 5 for 'b'"):
        k(a, np.zeros(5, np.float32))


@pytest.mark.parametrize("target", ("interpret", "cpu"))
def test_a_fixed_size_and_the_rank_are_checked(target):
    k = on_target(target, fixed)
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    np.testing.assert_array_equal(k(x), x[0] + x[2])
    with pytest.raises(asc.ShapeError, match="'x'"):
        k(np.zeros((2, 4)))
    with pytest.raises(asc.ShapeError, match="'x' must have 2 dimension"):
        k(np.zeros(4))


def test_ascend_source_of_a_shape_only_kernel():
    src = lang.kernel(twice).source("ascend", np.zeros(64, np.float16))
    assert "half" in src


def test_the_dtype_form_and_mixing_them():
    assert repr(lang.Tensor[N, 4]) == "Tensor[N, 4]"
    assert lang.Tensor[N].dtype is None and lang.Tensor[lang.float32].dims is None
    with pytest.raises(TypeError, match=r"lang.Tensor takes a dtype .* or sizes .*lang.float32\[N, 4\]"):
        lang.Tensor[lang.float32, N]
    with pytest.raises(TypeError, match="cannot be subscripted"):
        lang.Tensor[N][4]


def test_a_bad_size_is_named_at_the_annotation():
    def bad(x: lang.Tensor["n"]):       # noqa: F821 - a str is not a size
        return x
    with pytest.raises(asc.CompileError, match="a tensor dimension must be an int or a size symbol") as e:
        lang.kernel(bad)(np.zeros(3))
    assert "test_shape_only_annotation.py" in str(e.value)

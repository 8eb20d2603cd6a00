"""A Python int that does not fit the integer dtype it meets (NumPy 2 / NEP 50), the same on every target:

- comparisons are exact (`uint8_value < 300` is True);
- arithmetic, lang.maximum/minimum, ternaries, Python min/max and stores raise OverflowError: at compile time for a
  constant (asc.ConstantOverflowError), at call time for a value known only then: a scalar argument `n: int`, a loop
  index, an expression of them (asc.IntegerOverflowError, compiled and interpreted);
- ascend targets refuse a run-time Python int meeting a narrower integer dtype at compile time (the AI core cannot
  raise), naming the line and the fix.

Before: compiled code wrapped silently (`x[i] + n` with int8 x and n = 300, `y[i] < n` compared with n mod 256,
`x[i] * k` with int32 x and k = 2**40 + 3)."""
from __future__ import annotations

import numpy as np
import pytest

import asc
import asc.language as lang

TARGETS = ["cpu", "interpret"]


def numpy_says(fn):
    """What NumPy 2 itself does: the value, or the exception class."""
    try:
        return fn()
    except OverflowError:
        return OverflowError


def test_numpy_2_semantics_this_follows():
    assert numpy_says(lambda: np.int8(5) + 300) is OverflowError
    assert numpy_says(lambda: np.uint8(5) < 300) == True            # noqa: E712 - np.bool_
    assert numpy_says(lambda: np.maximum(np.int8(1), 300)) is OverflowError
    assert numpy_says(lambda: np.int32(1) * (2 ** 40 + 3)) is OverflowError
    assert max(np.int8(1), 300) == 300 and numpy_says(lambda: np.int8(max(np.int8(1), 300))) is OverflowError


@lang.kernel
def add(x: lang.int8[N], n: int):
    o = lang.empty_like(x)
    for i in range(N):
        o[i] = x[i] + n
    return o


@lang.kernel
def less(y: lang.uint8[N], n: int):
    o = lang.empty_like(y, lang.int32)
    for i in range(N):
        o[i] = 1 if y[i] < n else 0
    return o


@lang.kernel
def mul(x: lang.int32[N], n: int):
    o = lang.empty_like(x)
    for i in range(N):
        o[i] = x[i] * n
    return o


@lang.kernel
def plus_index(x: lang.int8[N]):
    o = lang.empty_like(x)
    for i in range(N):
        o[i] = x[i] + i
    return o


@lang.kernel
def minmax(x: lang.int8[N], n: int):
    lo = lang.empty_like(x)
    hi = lang.empty_like(x)
    for i in range(N):
        lo[i] = min(x[i], n)            # Python: x[i] unless n < x[i]; the chosen value converts to int8
        hi[i] = lang.maximum(x[i], n)   # NumPy's ufunc: n must fit int8 whatever the values
    return lo, hi


@lang.kernel
def store(x: lang.int8[N], n: int):
    for i in range(N):
        x[i] = n if x[i] > 0 else x[i]


@lang.kernel
def shift(x: lang.int8[N], n: int):
    o = lang.empty_like(x)
    for i in range(N):
        o[i] = x[i] >> n
    return o


@pytest.mark.parametrize("target", TARGETS)
def test_in_range_values_compute_as_numpy(target):
    x = np.array([5, -7, 100], np.int8)
    k = lambda f: lang.kernel(target=target)(f.pyfunc)     # noqa: E731
    np.testing.assert_array_equal(k(add)(x, 20), x + 20)
    np.testing.assert_array_equal(k(add)(x, -128), x + np.int8(-128))
    w = np.array([3, -4], np.int32)
    np.testing.assert_array_equal(k(mul)(w, 2 ** 31 - 1), w * (2 ** 31 - 1))
    np.testing.assert_array_equal(k(plus_index)(np.zeros(128, np.int8)), np.arange(128, dtype=np.int8))
    lo, hi = k(minmax)(x, 50)
    np.testing.assert_array_equal(lo, np.minimum(x, 50))
    np.testing.assert_array_equal(hi, np.maximum(x, 50))
    np.testing.assert_array_equal(k(shift)(x, 1), x >> 1)


@pytest.mark.parametrize("target", TARGETS)
def test_comparisons_with_an_out_of_range_python_int_are_exact(target):
    y = np.array([5, 7, 255], np.uint8)
    k = lang.kernel(target=target)(less.pyfunc)
    np.testing.assert_array_equal(k(y, 300), (y < 300).astype(np.int32))    # all 1 (was y < 300 % 256 = 44)
    np.testing.assert_array_equal(k(y, 256), [1, 1, 1])
    np.testing.assert_array_equal(k(y, -1), [0, 0, 0])
    # Python min: 300 is never chosen, so nothing to convert: x itself
    lo, _ = lang.kernel(target=target)(minmax.pyfunc)(np.array([1, 2], np.int8), 100)
    np.testing.assert_array_equal(lo, [1, 2])


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("case", ["add", "mul", "index", "maximum", "min-chosen", "store", "shift"])
def test_arithmetic_with_a_runtime_python_int_that_does_not_fit_raises(target, case):
    k = lambda f: lang.kernel(target=target)(f.pyfunc)     # noqa: E731
    x = np.array([5, 6], np.int8)
    call, value, dtype = {
        "add": (lambda: k(add)(x, 300), 300, "int8"),
        "mul": (lambda: k(mul)(np.array([1, 2], np.int32), 2 ** 40 + 3), 2 ** 40 + 3, "int32"),
        "index": (lambda: k(plus_index)(np.zeros(300, np.int8)), 128, "int8"),
        "maximum": (lambda: k(minmax)(x, 300), 300, "int8"),
        "min-chosen": (lambda: k(minmax)(x, -300), -300, "int8"),
        "store": (lambda: k(store)(x.copy(), 300), 300, "int8"),
        "shift": (lambda: k(shift)(x, 200), 200, "int8"),
    }[case]
    with pytest.raises(asc.IntegerOverflowError, match=f"Python integer {value} out of bounds for {dtype}") as e:
        call()
    assert isinstance(e.value, OverflowError)
    assert ".py:" in str(e.value) and "lang.cast" in str(e.value)      # the kernel's line and what to do


@lang.kernel
def add_literal(x: lang.int8[N]):
    o = lang.empty_like(x)
    for i in range(N):
        o[i] = x[i] + 300
    return o


@lang.kernel
def select_literal(x: lang.uint8[N]):
    o = lang.empty_like(x)
    for i in range(N):
        o[i] = x[i] if x[i] > 3 else -1
    return o


@pytest.mark.parametrize("target", TARGETS + ["ascend-sim"])
@pytest.mark.parametrize("kernel,dtype", [(add_literal, np.int8), (select_literal, np.uint8)])
def test_a_constant_that_does_not_fit_is_a_compile_error(target, kernel, dtype):
    with pytest.raises(asc.ConstantOverflowError, match="out of bounds for u?int8") as e:
        lang.kernel(target=target)(kernel.pyfunc)(np.zeros(4, dtype))
    assert isinstance(e.value, OverflowError) and isinstance(e.value, asc.CompileError)


def test_ascend_refuses_a_runtime_python_int_meeting_a_narrower_integer():
    with pytest.raises(asc.CompileError, match="meets int8.*OverflowError.*lang.cast"):
        lang.kernel(target="ascend-sim")(add.pyfunc)(np.array([1, 2], np.int8), 3)

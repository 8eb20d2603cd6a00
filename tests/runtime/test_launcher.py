"""The compiled launcher serves steady-state calls; whatever it cannot serve takes the Python path, which gives the
same results and the same errors."""
from __future__ import annotations

import shutil

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.runtime import launcher

pytestmark = pytest.mark.skipif(shutil.which("g++") is None and shutil.which("clang++") is None,
                                reason="no C++ compiler: the launcher cannot be built")


@lang.kernel
def axpy(a: float, x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = a * x[i] + y[i]
    return out


def fast_calls(k):
    return k._launcher.calls if k._launcher is not None else 0


def test_steady_state_calls_skip_python():
    x, y = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    first = axpy(2.0, x, y)
    before = fast_calls(axpy)
    for a in (2.0, 3, 0.5):                      # an int for a `float` parameter is converted, as in Python
        np.testing.assert_array_equal(axpy(a, x, y), np.float32(a) * x + y)
    assert fast_calls(axpy) == before + 3
    np.testing.assert_array_equal(first, 2 * x + y)
    assert axpy.cache_info()["calls"] >= 4


def test_mismatches_fall_back_to_the_same_errors_and_leave_data_unchanged():
    x, y = np.arange(8, dtype=np.float32), np.ones(8, np.float32)
    axpy(1.0, x, y)
    keep = (x.copy(), y.copy())
    with pytest.raises(asc.ArgumentError, match="must be float32, got float64"):
        axpy(1.0, x.astype(np.float64), y)
    with pytest.raises(asc.ShapeError, match="N is 8 for 'x' but 7 for 'y'"):
        axpy(1.0, x, y[:7])
    with pytest.raises(asc.ArgumentError, match="C-contiguous"):
        axpy(1.0, np.arange(16, dtype=np.float32)[::2], y)
    with pytest.raises(asc.ArgumentError, match="must be a scalar, got str"):
        axpy("2", x, y)
    np.testing.assert_array_equal(x, keep[0])
    np.testing.assert_array_equal(y, keep[1])
    np.testing.assert_array_equal(axpy(1.0, y=y, x=x), x + y)          # keywords: the Python path


@lang.kernel
def bump(x: lang.int32[N], by: lang.int32):
    for i in range(N):
        x[i] += by


def test_written_arguments_checked_on_the_fast_path():
    x = np.zeros(4, np.int32)
    bump(x, 1)
    bump(x, 2)
    np.testing.assert_array_equal(x, 3)
    ro = np.zeros(4, np.int32)
    ro.flags.writeable = False
    with pytest.raises(asc.ArgumentError, match="read-only"):
        bump(ro, 1)
    with pytest.raises(asc.ArgumentError, match="out of range"):
        bump(x, 2 ** 40)
    np.testing.assert_array_equal(x, 3)


@lang.kernel
def stats(x: lang.float64[N]):
    lo = x[0]
    hi = x[0]
    for i in range(N):
        lo = min(lo, x[i])
        hi = max(hi, x[i])
    return lo, hi, N


def test_tuple_and_scalar_outputs():
    x = np.array([3.0, -1.0, 7.5])
    for _ in range(3):
        lo, hi, n = stats(x)
        assert (lo, hi, n) == (-1.0, 7.5, 3)
        assert type(lo) is np.float64 and type(n) is np.int64


@lang.kernel
def typed_by_call(x, s):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = x[i] * s
    return out


def test_parameters_typed_from_the_call_keep_their_python_type():
    x = np.arange(4, dtype=np.int32)
    f = typed_by_call(x, 2.5)       # int32 tensor: out is int32 (empty_like), the product float64 then stored
    i = typed_by_call(x, 2)          # an int is a new specialization, not converted to the float one
    np.testing.assert_array_equal(i, x * 2)
    assert i.dtype == np.int32
    np.testing.assert_array_equal(f, (x * 2.5).astype(f.dtype))


@lang.kernel(dynamic_shape=True)
def dyn_neg(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        for j in range(C):
            out[i, j] = -x[i, j]
    return out


def test_dynamic_shapes_and_many_specializations():
    for r, c in [(1, 1), (3, 5), (17, 2), (0, 4)]:
        x = np.random.default_rng(r).random((r, c)).astype(np.float32)
        np.testing.assert_array_equal(dyn_neg(x), -x)
    assert dyn_neg.cache_info()["specializations"] == 1
    for n in range(1, 12):                       # more specializations than the launcher's table holds
        x = np.arange(n, dtype=np.float32)
        np.testing.assert_array_equal(axpy(1.0, x, x), 2 * x)
        np.testing.assert_array_equal(axpy(1.0, x, x), 2 * x)


def test_the_launcher_builds():
    assert launcher.module() is not None      # a build failure would otherwise slow every call silently


def test_torch_tensors_on_the_fast_path():
    torch = pytest.importorskip("torch")
    x = torch.arange(8, dtype=torch.float32)
    out = axpy(2.0, x, x)
    assert isinstance(out, torch.Tensor) and torch.equal(out, 3 * x)
    before = fast_calls(axpy)
    out = axpy(2.0, x, x)
    assert fast_calls(axpy) == before + 1 and isinstance(out, torch.Tensor) and torch.equal(out, 3 * x)
    t = torch.zeros(4, dtype=torch.int32)
    bump(t, 5)
    bump(t, 5)                                  # in place, through the launcher
    assert t.tolist() == [10, 10, 10, 10]
    g = torch.zeros(4, dtype=torch.int32).float().requires_grad_()
    assert torch.equal(axpy(1.0, g.detach(), g.detach()), torch.zeros(4))


@lang.kernel
def halve16(x: lang.bfloat16[N]) -> lang.bfloat16[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * 0.5
    return out


def test_torch_bfloat16_outputs_take_the_python_path():
    torch = pytest.importorskip("torch")
    x = torch.full((5,), 3.0, dtype=torch.bfloat16)
    for _ in range(2):
        out = halve16(x)
        assert out.dtype == torch.bfloat16 and out.tolist() == [1.5] * 5


@lang.kernel
def scaled(x: lang.float32[N], s: lang.float32, k: lang.int32, flag: lang.bool_) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * s + k if flag else x[i]
    return out


@lang.kernel
def any_scale(x: lang.float32[N], s) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * s
    return out


def test_numpy_scalars_on_the_fast_path():
    """NumPy scalars (np.float32(2), np.int32(3), np.True_...) are served without Python, converted as the Python
    path converts them; an int out of range or a float for an int parameter still gets the Python path's error."""
    x = np.linspace(-3, 3, 16).astype(np.float32)
    ref = lang.kernel(target="interpret")(scaled.pyfunc)
    cases = [(np.float32(1.5), np.int32(3), np.True_), (np.float64(0.1), np.int64(-2), np.True_),
             (np.int16(2), np.int8(7), np.False_), (np.uint8(200), np.uint8(4), np.True_), (2.5, 3, True)]
    for s, k, flag in cases:
        np.testing.assert_array_equal(scaled(x, s, k, flag), ref(x, s, k, flag))     # first: the Python path
        before = fast_calls(scaled)
        for _ in range(3):
            np.testing.assert_array_equal(scaled(x, s, k, flag), ref(x, s, k, flag))
        assert fast_calls(scaled) == before + 3, (type(s), type(k))
    with pytest.raises(asc.errors.ArgumentError, match="out of range for int32"):
        scaled(x, np.float32(1), np.int64(1 << 40), np.True_)
    with pytest.raises(asc.errors.ArgumentError, match="'k' must be int32"):
        scaled(x, np.float32(1), np.float64(2.0), np.True_)


def test_a_row_made_for_numpy_scalars_does_not_take_python_numbers():
    """An unannotated scalar is typed by the call: np.float32(2) makes a float32 specialization, 2.0 (a Python float,
    weak under NEP 50) its own; neither row serves the other's calls."""
    x = np.arange(8, dtype=np.float32)
    a = any_scale(x, np.float32(0.1))
    b = any_scale(x, 0.1)
    assert any_scale.cache_info()["specializations"] == 2
    before = fast_calls(any_scale)
    np.testing.assert_array_equal(any_scale(x, np.float32(0.1)), a)
    np.testing.assert_array_equal(any_scale(x, 0.1), b)
    assert fast_calls(any_scale) == before + 2
    assert any_scale.cache_info()["specializations"] == 2

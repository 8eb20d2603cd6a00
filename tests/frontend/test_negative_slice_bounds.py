"""Negative slice bounds (issue 38, item 8: docs/tensors.md's `x[1:] = x[:-1]` was refused, "negative slice
bounds"): a constant bound b < 0 counts from the end of the axis, as NumPy reads it (b + n, at least 0), and a
destination that overlaps its source gets what NumPy gives: the right side read whole before the write (NumPy
copies an overlapping operand first). Shifts both ways, 2-D windows, expressions and augmented assignment that
read the destination, out-of-range bounds, on every target. An axis whose length is known only at run time
refuses a negative bound by name."""
import numpy as np
import pytest

import asc
import asc.language as lang
from helpers import on_target

N = lang.dim("N")
M = lang.dim("M")
TARGETS = ("interpret", "cpu", "cpu-checked", "ascend-sim")
# ascend: a kernel with a temporary runs as scalar code, with a warning that says so
pytestmark = pytest.mark.filterwarnings("ignore::asc.backends.ascend.rendering.AscendFallbackWarning")


def shift_right(x: lang.float32[N]):
    x[1:] = x[:-1]


def shift_left(x: lang.float32[N]):
    x[:-1] = x[1:]


def rows_down(a: lang.float32[N, M]):
    a[1:, :] = a[:-1, :]


def cols_mix(a: lang.float32[N, M]):
    a[:, 1:] = a[:, :-1] * 2.0 + a[:, 1:]


def window_2d(a: lang.float32[N, M]):
    a[1:-1, 2:] = a[:-2, :-2] - a[2:, -2:-1]


def tail_from_head(x: lang.float32[N]):
    x[-3:] = x[:3]


def accumulate_left(x: lang.float32[N]):
    x[:-1] += x[1:]


def clipped_bounds(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    out[-100:] = x[-1000:] + 1.0        # beyond the start: the whole axis, as NumPy clips
    out[:-100] = x[:-100]               # empty
    return out


def middle(x: lang.float32[N]):
    return x[2:-2] * 2.0


CASES = [(shift_right, (7,)), (shift_left, (7,)), (rows_down, (4, 5)), (cols_mix, (3, 6)), (window_2d, (5, 6)),
         (tail_from_head, (8,)), (tail_from_head, (4,)), (accumulate_left, (9,))]


def _numpy(fn, x):
    """The kernel's body run by NumPy itself on a copy: the reference."""
    y = x.copy()
    fn(y)
    return y


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn,shape", CASES, ids=lambda v: getattr(v, "__name__", str(v)))
def test_overlapping_shifts_are_numpy_s(target, fn, shape):
    x = (np.arange(np.prod(shape)) * 1.5 - 4).astype(np.float32).reshape(shape)
    want = _numpy(fn, x)
    on_target(target, fn)(x)
    np.testing.assert_array_equal(x, want)


def test_the_numpy_results_are_the_shifted_copies():
    x = np.arange(5, dtype=np.float32)
    assert _numpy(shift_right, x).tolist() == [0, 0, 1, 2, 3]       # docs/tensors.md's example
    assert _numpy(shift_left, x).tolist() == [1, 2, 3, 4, 4]
    assert _numpy(accumulate_left, x).tolist() == [1, 3, 5, 7, 4]   # old values on both sides


@pytest.mark.parametrize("target", TARGETS)
def test_bounds_past_either_end_clip_as_numpy(target):
    x = np.arange(6, dtype=np.float32)
    np.testing.assert_array_equal(on_target(target, clipped_bounds)(x), x + 1)
    np.testing.assert_array_equal(on_target(target, middle)(x), x[2:-2] * 2)


def test_a_run_time_length_refuses_a_negative_bound_by_name():
    k = lang.kernel(dynamic_shape=True)(shift_right)
    with pytest.raises(asc.CompileError, match=r"negative slice bound -1 on an axis whose length is known only at "
                                               r"run time.*n - 1") as e:
        k(np.zeros(5, np.float32))
    assert "test_negative_slice_bounds.py" in str(e.value) and "x[:-1]" in str(e.value)

    def clipped(x: lang.float32[N], i: int):
        t = x[i:i + 4]
        t[:-1] = 0.0
    with pytest.raises(asc.CompileError, match="negative slice bound -1"):
        lang.kernel(clipped)(np.zeros(8, np.float32), 2)

"""Views whose bounds are known only at run time (issue 38, item 4: targets disagreed). NumPy's rules on every
target: a view takes its start and stop when it is bound to a name (j = 0; t = x[j:j+4]; j = 4 leaves t at
x[0:4]; compiled code read x[4:8]), and a run-time slice bound below 0 counts from the end of the axis, clamped to
[0, n], the extent at least 0 (x[i-1:i+3] with i = 0 is x[n-1:3], empty; compiled code read x[-1]). The statement
then works on the common part of the extents (docs/tensors.md, "Edge tiles")."""
import numpy as np
import pytest

import asc.language as lang
from helpers import on_target

N = lang.dim("N")
M = lang.dim("M")
TARGETS = ("interpret", "cpu", "cpu-checked", "ascend-sim")
pytestmark = pytest.mark.filterwarnings("ignore::asc.backends.ascend.rendering.AscendFallbackWarning")


def _put(dst, src):
    """The edge-tile rule on NumPy slices: the common part of the extents is written."""
    n = min(len(dst), len(src))
    dst[:n] = src[:n]


# ---------------------------------------------------------------- a view takes its bounds when it is bound

def rebind(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    j = 0
    t = x[j:j + 4]
    j = 4
    out[0:4] = t
    return out


def rebind_in_loop(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    j = 0
    t = x[j:j + 4]
    for i in range(0, N, 4):
        j = j + 4
        out[i:i + 4] = t * 2.0
    return out


def rebind_clipped(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    j = N - 2
    t = x[j:j + 4]                      # clipped at the end: two elements
    j = 0
    out[0:4] = t + 1.0
    out[8:12] = x[j:j + 4]
    return out


def rebind_row(a: lang.float32[N, M], r: lang.int32) -> lang.float32[N, M]:
    out = lang.zeros_like(a)
    t = a[r, :]
    r = r + 1
    out[0, :] = t
    out[1, :] = a[r, :]
    return out


def _rebind_ref(x):
    out = np.zeros_like(x)
    out[0:4] = x[0:4]
    return out


def _rebind_in_loop_ref(x):
    out = np.zeros_like(x)
    for i in range(0, len(x), 4):
        _put(out[i:i + 4], x[0:4] * 2)
    return out


def _rebind_clipped_ref(x):
    out = np.zeros_like(x)
    _put(out[0:4], x[len(x) - 2:len(x) + 2] + 1)
    out[8:12] = x[0:4]
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("fn,ref", [(rebind, _rebind_ref), (rebind_in_loop, _rebind_in_loop_ref),
                                    (rebind_clipped, _rebind_clipped_ref)])
def test_view_bound_keeps_its_bounds(target, fn, ref):
    x = np.arange(1, 13, dtype=np.float32)
    np.testing.assert_array_equal(on_target(target, fn)(x), ref(x))


@pytest.mark.parametrize("target", TARGETS)
def test_view_of_a_row_keeps_its_row(target):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    out = on_target(target, rebind_row)(a, 1)
    ref = np.zeros_like(a)
    ref[0], ref[1] = a[1], a[2]
    np.testing.assert_array_equal(out, ref)


# ---------------------------------------------------------------- run-time bounds below 0: NumPy's wrap

def neg_start(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    for i in range(0, N, 4):
        out[i:i + 4] = x[i - 1:i + 3]
    return out


def neg_dest(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    for i in range(0, N, 4):
        out[i - 1:i + 3] = x[i:i + 4] + 1.0
    return out


def neg_both(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.zeros_like(x)
    for i in range(0, 3):
        out[4 * i:4 * i + 2] = x[i - 3:i - 1]
    return out


def _neg_start_ref(x):
    out = np.zeros_like(x)
    for i in range(0, len(x), 4):
        _put(out[i:i + 4], x[i - 1:i + 3])
    return out


def _neg_dest_ref(x):
    out = np.zeros_like(x)
    for i in range(0, len(x), 4):
        _put(out[i - 1:i + 3], x[i:i + 4] + 1)
    return out


def _neg_both_ref(x):
    out = np.zeros_like(x)
    for i in range(0, 3):
        _put(out[4 * i:4 * i + 2], x[i - 3:i - 1])
    return out


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("n", [12, 10])
@pytest.mark.parametrize("fn,ref", [(neg_start, _neg_start_ref), (neg_dest, _neg_dest_ref),
                                    (neg_both, _neg_both_ref)])
def test_negative_run_time_bound_wraps(target, n, fn, ref):
    x = np.arange(1, n + 1, dtype=np.float32)
    np.testing.assert_array_equal(on_target(target, fn)(x), ref(x))


@pytest.mark.parametrize("target", TARGETS)
def test_negative_run_time_bound_dynamic_shape(target):
    k = on_target(target, neg_start, dynamic_shape=True)
    for n in (12, 10, 3):
        x = np.arange(1, n + 1, dtype=np.float32)
        np.testing.assert_array_equal(k(x), _neg_start_ref(x))

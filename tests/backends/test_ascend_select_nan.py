"""ascend: a selection becomes Max/Min only where nan gives the same answer. `x if x > 0 else 0.0` (and
lang.where(x > 0, x, 0.0)) is 0.0 for a nan x, as the interpreter and NumPy say; Max(nan, 0) is nan, so it stays a
Compare and Select; Python's max(x, 0.0) (`0.0 if 0.0 > x else x`) is nan for nan either way and keeps Maxs."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from helpers import interpreted


@lang.kernel(target="ascend-sim")
def relu_ternary(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] if x[i] > 0 else 0.0
    return out


@lang.kernel(target="ascend-sim")
def relu_where(x: lang.float32[N]) -> lang.float32[N]:
    return lang.where(x > 0, x, 0.0)


@lang.kernel(target="ascend-sim")
def relu_max(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = max(x[i], 0.0)
    return out


X = np.array([0.5, np.nan, -1.0, np.inf, -np.inf, 0.0, -0.0, 3.0] * 40, np.float32)


@pytest.mark.parametrize("kernel", [relu_ternary, relu_where])
def test_selection_keeps_nan_semantics(kernel):
    got = kernel(X)
    np.testing.assert_array_equal(got, np.where(X > 0, X, np.float32(0.0)))
    np.testing.assert_array_equal(got, interpreted(kernel)(X))
    src = kernel.source("ascend", X)
    assert "Maxs(" not in src and "Select(" in src


def test_python_max_is_still_maxs():
    got = relu_max(X)
    np.testing.assert_array_equal(got, interpreted(relu_max)(X))
    assert "Maxs(" in relu_max.source("ascend", X)


@lang.kernel(target="ascend-sim")
def scaled_by_choice(x: lang.float32[N], a: lang.float32, b: lang.float32) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * (a if a > b else b) + min(a, a)
    return out


@pytest.mark.parametrize("a, b", [(2.0, 3.0), (3.0, 2.0), (float("nan"), 1.0), (1.0, float("nan"))])
def test_selection_of_scalars_stays_vector_code(a, b):
    got = scaled_by_choice(X, np.float32(a), np.float32(b))
    np.testing.assert_array_equal(got, interpreted(scaled_by_choice)(X, np.float32(a), np.float32(b)))
    assert "GetValue" not in scaled_by_choice.source("ascend", X, np.float32(a), np.float32(b))


def test_select_kernel_whose_tiles_are_exactly_full():
    # 48 cores x 256 elements: every core's slice is one whole tile, nothing to pad before Compare; the padding
    # Duplicate at offset == tile length is refused by LocalTensor::operator[] (Huawei's bounds check, and ascend-sim's)
    x = np.resize(X, 48 * 256)
    np.testing.assert_array_equal(relu_ternary(x), np.where(x > 0, x, np.float32(0.0)))
    src = relu_ternary.source("ascend", x)
    assert "if (xPadded < nv) {" in src


def test_local_tensor_offset_at_the_length_is_refused():
    from asc.runtime import ascend_sim
    from asc.runtime.ascend_sim import AscendSimError
    text = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void at_end(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 64 * sizeof(float));
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a[56], 1.0f, 8);
  Duplicate(a[64], 1.0f, 0);
}
"""
    gm = [("gm", "x", "GM_ADDR"), ("gm", "y", "GM_ADDR"), ("tiling", "tiling", "GM_ADDR")]
    lib, _, _ = ascend_sim.build(text, "at_end", gm)
    x = np.zeros(64, np.float32)
    with pytest.raises(AscendSimError, match=r"LocalTensor::operator\[\]: offset 64 is not inside the "
                                             r"LocalTensor<float> of 64 elements"):
        ascend_sim.launch(lib, [x.ctypes.data, x.ctypes.data], np.zeros(1, np.uint32), 1, None, "at_end")

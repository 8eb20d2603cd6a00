"""Per-row 1-D tensors in a row kernel on the ascend target (asc/backends/ascend/per_row.py): inputs [R] of float32,
float16, bfloat16 and int32 read per row, outputs [R] written per row and stored once per core, a gather of one
element of the row at a data-dependent column, a one-column selection (`a if j == t else b`) and int8 row tiles --
each on ascend-sim against the interpreter at awkward sizes (1 row, primes, slices that are not multiples of 32 bytes,
more rows than cores), and the sim's check that a scalar-written UB buffer is not copied out without an S_MTE3 sync."""
from __future__ import annotations

import warnings

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang
from asc.runtime import ascend_sim
from helpers import close, interpreted

BF16 = np.dtype(ml_dtypes.bfloat16)
R = lang.dim("R")
C = lang.dim("C")


@lang.kernel
def scale_rows(x: lang.float32[R, C], s: lang.Tensor) -> lang.float32[R, C]:
    """A per-row scale of any float dtype (read per row as float32)."""
    out = lang.empty_like(x)
    for i in range(R):
        si = lang.float32(s[i])
        for j in range(C):
            out[i, j] = x[i, j] * si
    return out


@lang.kernel
def row_stats(x: lang.float32[R, C], dtype_probe: lang.Tensor):
    """Two per-row outputs, one of them of the probe's dtype (rounded once, at the store)."""
    total = lang.empty(R, dtype=lang.float32)
    peak = lang.empty_like(dtype_probe)
    for i in range(R):
        acc = 0.0
        for j in range(C):
            acc += x[i, j]
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        total[i] = acc
        peak[i] = m * 0.5 + acc
    return total, peak


@lang.kernel
def store_then_read(x: lang.float32[R, C], probe: lang.Tensor):
    """A per-row output read back after the row stored it, its operand changed in between (the stored value, rounded
    to the output's dtype, is what is read)."""
    first = lang.empty_like(probe)
    second = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        first[i] = s / 3.0
        s = s * 2.0
        second[i] = first[i] + s
    return first, second


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_a_per_row_output_read_after_its_store(dtype):
    rng = np.random.default_rng(9)
    x = rng.standard_normal((29, 7)).astype(np.float32)
    probe = np.zeros(29, dtype)
    assert "ascend plan: row kernel" in _plan(store_then_read, (x, probe))
    want = interpreted(store_then_read)(x, probe)
    got = _run(store_then_read, (x, probe), {"cores": 3})
    for g, w in zip(got, want):
        assert g.dtype == w.dtype
        close(g, w, w.dtype, ulps=4)


@lang.kernel
def pick_and_mark(x: lang.float32[R, C], idx: lang.int32[R]):
    """The gather x[i, idx[i]] as a per-row output, and the row with its element idx[i] replaced."""
    picked = lang.empty(R, dtype=lang.float32)
    marked = lang.empty_like(x)
    for i in range(R):
        t = idx[i]
        picked[i] = x[i, t] * 2.0
        for j in range(C):
            marked[i, j] = x[i, j] + 100.0 if j == t else x[i, j]
    return picked, marked


@lang.kernel
def int8_rows(q: lang.int8[R, C], d: lang.float32[R]) -> lang.float32[R, C]:
    out = lang.empty((R, C), dtype=lang.float32)
    for i in range(R):
        for j in range(C):
            out[i, j] = lang.float32(q[i, j]) * d[i] + 1.0
    return out


SIZES = [(1, 1), (7, 3), (53, 37), (101, 13)]           # one row; primes; more rows than the 48 cores
SETTINGS = [{}, {"cores": 3}]


def _sim(kernel):
    return lang.kernel(target="ascend-sim")(kernel.pyfunc)


def _run(kernel, args, settings):
    with warnings.catch_warnings():
        warnings.simplefilter("error")        # a row plan: no fallback warning
        with ascend_sim.configured(**settings):
            return _sim(kernel)(*args)


def _plan(kernel, args):
    return kernel.source("ascend", *args, stage="ascend_plan")


def _tuple(x):
    return x if isinstance(x, tuple) else (x,)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("shape", SIZES)
def test_per_row_input_of_each_float_dtype(shape, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(np.float32)
    s = rng.uniform(-3, 3, shape[0]).astype(dtype)
    assert "ascend plan: row kernel" in _plan(scale_rows, (x, s))
    want = interpreted(scale_rows)(x, s)
    for st in SETTINGS:
        np.testing.assert_array_equal(_run(scale_rows, (x, s), st), want)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
@pytest.mark.parametrize("shape", SIZES)
def test_per_row_outputs(shape, dtype):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(shape).astype(np.float32)
    probe = np.zeros(shape[0], dtype)
    assert "per-row tensors: peak, total" in _plan(row_stats, (x, probe))
    want = _tuple(interpreted(row_stats)(x, probe))
    for st in SETTINGS:
        got = _tuple(_run(row_stats, (x, probe), st))
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape
            close(g, w, w.dtype, ulps=16)          # ReduceSum adds in another order than the interpreter


@pytest.mark.parametrize("shape", SIZES)
def test_gather_and_one_column_selection(shape):
    r, c = shape
    rng = np.random.default_rng(3)
    x = rng.standard_normal(shape).astype(np.float32)
    idx = rng.integers(0, c, r).astype(np.int32)
    if r > 2:
        idx[1] = c - 1                       # the last column
    plan = _plan(pick_and_mark, (x, idx))
    assert "Patch(" in plan and "ascend plan: row kernel" in plan
    want = _tuple(interpreted(pick_and_mark)(x, idx))
    for st in SETTINGS:
        got = _tuple(_run(pick_and_mark, (x, idx), st))
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("shape", SIZES)
def test_int8_row_tiles(shape):
    rng = np.random.default_rng(4)
    q = rng.integers(-128, 128, shape).astype(np.int8)
    d = rng.uniform(0.001, 0.1, shape[0]).astype(np.float32)
    want = interpreted(int8_rows)(q, d)
    for st in SETTINGS:
        np.testing.assert_array_equal(_run(int8_rows, (q, d), st), want)


@lang.kernel
def to_int8(x: lang.float32[R, C], s: lang.float32[R]):
    """NumPy's float -> int8 / uint8 of any float (truncation, wrap-around, NaN and out of range), per row scaled."""
    q = lang.empty((R, C), dtype=lang.int8)
    u = lang.empty((R, C), dtype=lang.uint8)
    for i in range(R):
        for j in range(C):
            v = x[i, j] * s[i]
            q[i, j] = lang.int8(v)
            u[i, j] = lang.uint8(v)
    return q, u


SPECIAL = [0.0, -0.0, 0.5, -0.5, 0.99999994, -0.99999994, 1.5, 127.0, 127.9, 128.0, -128.0, -128.9, -129.0, 200.0,
           255.0, 256.0, 300.7, -300.7, 65535.0, 65537.0, 16777217.0, 2147483520.0, 2147483648.0, -2147483648.0,
           -2147483904.0, 3e9, -3e9, 1e30, -1e30, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("shape", [(1, 1), (3, 37), (53, 41)])
def test_float_to_int8_as_numpy(shape):
    rng = np.random.default_rng(5)
    x = (rng.standard_normal(shape) * 300).astype(np.float32)
    flat = x.reshape(-1)
    flat[:min(len(SPECIAL), flat.size)] = np.array(SPECIAL[:flat.size], np.float32)
    s = np.ones(shape[0], np.float32)
    want = interpreted(to_int8)(x, s)
    for st in SETTINGS:
        got = _run(to_int8, (x, s), st)
        for g, w in zip(got, want):
            assert g.dtype == w.dtype
            np.testing.assert_array_equal(g, w)


@lang.kernel
def clipped_softmax_rows(x: lang.Tensor, lo: float = -1.0):
    """A conditional over the row (Compare + Select on padded repeats) next to reductions."""
    out = lang.empty_like(x)
    rows, cols = x.shape
    for i in range(rows):
        m = x[i, 0]
        for j in range(cols):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(cols):
            v = x[i, j] - m
            s += lang.exp(v if v > lo else lo)
        for j in range(cols):
            v = x[i, j] - m
            out[i, j] = (lang.exp(v) if v > lo else 0.0) / s
    return out


@pytest.mark.parametrize("dtype", [np.float32, np.float16])
@pytest.mark.parametrize("shape", [(1, 1), (5, 37), (53, 64), (7, 65), (11, 130)])
def test_conditionals_in_row_kernels(shape, dtype):
    rng = np.random.default_rng(6)
    x = (rng.standard_normal(shape) * 2).astype(dtype)
    plan = _plan(clipped_softmax_rows, (x,))
    assert "ascend plan: row kernel" in plan and "compare mask: yes" in plan
    want = interpreted(clipped_softmax_rows)(x)
    for st in SETTINGS:
        close(_run(clipped_softmax_rows, (x,), st), want, want.dtype, ulps=8)


@lang.kernel
def online_lse(x: lang.Tensor, m0: float = -1e30, s0: float = 0.0):
    """The online normalizer from a start (m0, s0) other than (-inf, 0), its result a per-row output."""
    rows, cols = x.shape
    lse = lang.empty(rows, dtype=lang.float32)
    for i in range(rows):
        m = m0
        s = s0
        for j in range(cols):
            m_new = max(x[i, j] * 0.5, m)
            s = lang.exp(x[i, j] * 0.5 - m_new) + lang.exp(m - m_new) * s
            m = m_new
        lse[i] = m + lang.log(s)
    return lse


def _rows_of(kind, r, c, rng):
    if kind == "monotone":                 # the running max grows at every column: a rescale per column
        return np.sort(rng.standard_normal((r, c)) * 3, axis=1).astype(np.float32)
    if kind == "slow":                     # ... by exactly 2^-12 each time: the same rounded factor every step
        return (np.arange(c)[None, :] * 2.0 ** -12 + rng.standard_normal((r, 1))).astype(np.float32)
    return (rng.standard_normal((r, c)) * 3).astype(np.float32)


@pytest.mark.parametrize("kind", ["random", "monotone", "slow"])
@pytest.mark.parametrize("shape", [(1, 1), (5, 37), (3, 1000), (2, 4093)])
def test_online_normalizer(kind, shape):
    """The two-pass form of the online recurrence (row_lowering.online_normalizer) agrees with the interpreter's
    recurrence within the corpus's 8 ulps, and is at least as close to the exact softmax (float64): the
    recurrence rounds a rescale factor per growth of the max, the two passes do not."""
    from ascend_corpus import online_softmax
    rng = np.random.default_rng(7)
    x = _rows_of(kind, *shape, rng)
    assert "ascend plan: row kernel" in _plan(online_softmax, (x,))
    want = interpreted(online_softmax)(x)
    got = _run(online_softmax, (x,), {})
    close(got, want, np.float32, ulps=8)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    exact = e / e.sum(axis=1, keepdims=True)
    err = lambda a: np.max(np.abs(a - exact) / exact)           # noqa: E731
    assert err(got) <= max(err(want), 2e-6)


@pytest.mark.parametrize("shape", [(1, 1), (53, 37)])
def test_online_normalizer_from_another_start(shape):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal(shape) * 4).astype(np.float32)
    if shape[0] > 3:
        x[1, 3] = np.nan
        x[2, :] = -np.inf
    for m0, s0 in ((-1e30, 0.0), (1.5, 2.0), (-np.inf, 0.0)):
        args = (x, np.float32(m0), np.float32(s0))
        assert "ascend plan: row kernel" in _plan(online_lse, args)
        want = interpreted(online_lse)(*args)
        got = _run(online_lse, args, {"cores": 3})
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want))
        fin = np.isfinite(want)
        np.testing.assert_array_equal(got[~fin & ~np.isnan(want)], want[~fin & ~np.isnan(want)])
        close(got[fin], want[fin], np.float32, ulps=8)


S_MTE3_KERNEL = """#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void %s(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf;
  GlobalTensor<float> yGm;
  yGm.SetGlobalBuffer((__gm__ float*)y, 8);
  pipe.InitBuffer(buf, 8 * sizeof(float));
  LocalTensor<float> v = buf.Get<float>();
  for (uint32_t k = 0; k < 8; ++k) v.SetValue(k, static_cast<float>(k) * 2.0f);
  %s
  DataCopy(yGm, v, 8);
}
"""


def _run_s_mte3(name, sync):
    gm = [("gm", "x", "GM_ADDR"), ("gm", "y", "GM_ADDR"), ("tiling", "tiling", "GM_ADDR")]
    lib, _, _ = ascend_sim.build(S_MTE3_KERNEL % (name, sync), name, gm)
    x, y = np.zeros(8, np.float32), np.zeros(8, np.float32)
    ascend_sim.launch(lib, [x.ctypes.data, y.ctypes.data], np.zeros(1, np.uint32), 1, None, name)
    return y


def test_the_sim_refuses_a_scalar_written_buffer_copied_out_without_s_mte3():
    """The per-row outputs are written by the scalar unit and copied out by MTE3: without an S_MTE3 flag between
    them the copy may read the UB before the scalar writes land. ascend-sim refuses it (new with per-row outputs);
    the flag, or PipeBarrier<PIPE_ALL>, makes it right."""
    with pytest.raises(ascend_sim.AscendSimError, match=r"DataCopy: UB->GM copy of UB bytes \[0, 4\) written by a "
                                                        r"scalar SetValue without an S_MTE3 sync"):
        _run_s_mte3("no_s_mte3", "")
    with pytest.raises(ascend_sim.AscendSimError, match="S_MTE3"):          # the wrong event does not sync it
        _run_s_mte3("wrong_event", "SetFlag<HardEvent::S_V>(0); WaitFlag<HardEvent::S_V>(0);")
    want = 2 * np.arange(8, dtype=np.float32)
    np.testing.assert_array_equal(_run_s_mte3("s_mte3", "SetFlag<HardEvent::S_MTE3>(0); "
                                                        "WaitFlag<HardEvent::S_MTE3>(0);"), want)
    np.testing.assert_array_equal(_run_s_mte3("barrier", "PipeBarrier<PIPE_ALL>();"), want)


def test_the_row_kernels_emit_the_s_mte3_flag():
    x = np.ones((5, 7), np.float32)
    src = row_stats.source("ascend", x, np.zeros(5, np.float32))
    assert "SetFlag<HardEvent::S_MTE3>" in src and "DataCopyPad(peakGm_, peakRows_, copyParams);" in src


def test_an_integer_size_in_row_code_stays_a_row_kernel():
    """`acc / C` with C a dynamic size (an int converted to float32 in the row's scalar code) is a row kernel."""
    from asc.examples import seed
    x = np.ones((3, 5), np.float32)
    w = np.ones(5, np.float32)
    k = lang.kernel(dynamic_shape=True)(seed.layernorm.pyfunc)
    src = k.source("ascend", x, w, w)
    assert "row kernel" in src.split("\n", 2)[1]

"""Window maps on the ascend target (asc/backends/ascend/window_lowering.py): stencils as shifted tiles over
sub-ranges with boundary statements, 2-D windows of tensors of different shapes with column offsets, column sums
across rows, and a sum of the whole loop with a scalar epilogue. Each runs on ascend-sim equal to the interpreter at
awkward sizes (1, primes, rows that are not whole 32-byte blocks, more units than cores), on the SoC's 48 cores and
on 3 cores with small tiles; the sum is the same for every core count and tile size."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc import compiler
from asc.backends import ascend
from asc.errors import CompileError
from asc.runtime import ascend_sim
from helpers import BF16, close, interpreted

N = lang.dim("N")
R = lang.dim("R")
C = lang.dim("C")
H = lang.dim("H")

# the SoC's cores; few cores with small tiles (many units per core); few cores with whole UB tiles and tiles capped
# at 4 rows of 16 columns (2-D maps of one element size take several rows per unit)
SETTINGS = ({}, {"cores": 3, "tile_cap": 256}, {"cores": 7, "tile_cap": 16}, {"cores": 3}, {"cores": 5, "tile_cap": 64})


@lang.kernel
def smooth3(u: lang.Tensor, w: float = 0.3):
    N = u.shape[0]
    out = lang.empty_like(u)
    out[0] = u[0]
    for i in range(1, N - 1):
        out[i] = w * u[i - 1] + (1.0 - 2.0 * w) * u[i] + w * u[i + 1]
    out[N - 1] = u[N - 1] * 2.0
    return out


@lang.kernel
def lap5(u: lang.float32[R, C], k: float = 0.25):
    out = lang.full((R, C), 1.5, dtype=lang.float32)
    for i in range(1, R - 1):
        for j in range(2, C - 1):
            out[i, j] = u[i, j] + k * (u[i - 1, j] + u[i + 1, j] + u[i, j - 2] + u[i, j + 1] - 4.0 * u[i, j])
    return out


@lang.kernel
def halves(x: lang.Tensor, s: lang.Tensor):
    R, H = s.shape
    out = lang.empty_like(x)
    for t in range(R):
        for j in range(H):
            a = x[t, j]
            b = x[t, j + H]
            out[t, j] = a * s[t, j] - b
            out[t, j + H] = b * s[t, j] + a
    return out


@lang.kernel
def col_stats(x: lang.float32[R, C], b: lang.float32[C]):
    total = lang.zeros(C, dtype=lang.float32)
    y = lang.empty_like(x)
    for i in range(R):
        for j in range(C):
            v = x[i, j] + b[j]
            y[i, j] = v * v
            total[j] += v
    return total, y


@lang.kernel
def mean_abs_diff(a: lang.float32[N], b: lang.float32[N]) -> lang.float32[37]:
    out = lang.zeros(37, dtype=lang.float32)        # out[2:] stay zeros
    for i in range(N):
        d = a[i] - b[i]
        out[1] += d * d * 0.5
    out[1] = out[1] / N
    out[0] = a[0] + 1.0
    return out


@lang.kernel
def offset_by_scalar(x: lang.float32[N], k: int = 1) -> lang.float32[N]:
    out = lang.zeros_like(x)
    for i in range(N - k):
        out[i] = x[i + k]
    return out


@lang.kernel
def carried(u: lang.float32[N]):
    for i in range(1, N):
        u[i] = u[i - 1] + u[i]
    return u


@lang.kernel
def overlapping(u: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(u)
    out[1] = u[0]
    for i in range(1, N):
        out[i] = u[i] * 2.0
    out[0] = u[0]
    return out


def _rand(shape, dtype, seed):
    x = np.random.default_rng(seed).standard_normal(shape).astype(np.float32)
    return x.astype(dtype)


def _sim(kernel):
    return lang.kernel(target="ascend-sim")(kernel.pyfunc)


def _run_all(kernel, args, ulps=4, settings=SETTINGS):
    want = interpreted(kernel)(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
    want = want if isinstance(want, tuple) else (want,)
    k = _sim(kernel)
    got_all = []
    for s in settings:
        with ascend_sim.configured(**s):
            got = k(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])
        got = got if isinstance(got, tuple) else (got,)
        for g, w in zip(got, want):
            g, w = np.asarray(g), np.asarray(w)
            assert g.dtype == w.dtype and g.shape == w.shape
            close(g, w, w.dtype, ulps=ulps)
        got_all.append(got)
    return got_all


def _plan(kernel, *args):
    return ascend.plan(compiler.lower(kernel.specialization(args, {})[0].ir, "ascend"))


@pytest.mark.parametrize("n", [1, 2, 3, 17, 4099])
@pytest.mark.parametrize("dtype", [np.float32, np.float16, BF16])
def test_stencil_1d_with_boundary_statements(n, dtype):
    u = _rand(n, dtype, n)
    assert _plan(smooth3, u).kind == "window"
    _run_all(smooth3, (u,))


@pytest.mark.parametrize("shape", [(1, 1), (2, 3), (3, 4), (37, 41), (5, 700), (97, 9), (300, 45)])
def test_stencil_2d_fills_the_rest_of_a_full_output(shape):
    u = _rand(shape, np.float32, 3)
    p = _plan(lap5, u)
    assert p.kind == "window" and p.fills and len(p.accesses) == 6 and p.row_blocks   # u at 5 offsets, out at one
    _run_all(lap5, (u,))


@pytest.mark.parametrize("rows, h, dtype", [(1, 1, np.float32), (13, 19, np.float16), (61, 64, np.float32),
                                            (3, 300, BF16), (101, 7, np.float16)])
def test_windows_of_different_shapes_with_column_offsets(rows, h, dtype):
    x, s = _rand((rows, 2 * h), dtype, 4), _rand((rows, h), dtype, 5)
    p = _plan(halves, x, s)
    assert p.kind == "window" and p.row_blocks == (x.dtype == s.dtype)
    _run_all(halves, (x, s))


@pytest.mark.parametrize("shape", [(1, 1), (53, 37), (3, 1000), (200, 5)])
def test_column_sums_across_rows_next_to_an_elementwise_output(shape):
    """Each core owns chunks of columns and adds the rows in their order: the same float32 sums as the loop."""
    x, b = _rand(shape, np.float32, 6), _rand(shape[1], np.float32, 7)
    p = _plan(col_stats, x, b)
    assert p.kind == "window" and p.acc_keys
    runs = _run_all(col_stats, (x, b), ulps=1)
    want = interpreted(col_stats)(x, b)[0]
    for got in runs:
        np.testing.assert_array_equal(got[0], want)       # bit for bit: the interpreter's order


@pytest.mark.parametrize("n", [1, 7, 257, 4099, 70001])
def test_sum_of_the_loop_then_epilogue_is_the_same_for_every_core_count(n):
    a, b = _rand(n, np.float32, 8), _rand(n, np.float32, 9)
    p = _plan(mean_abs_diff, a, b)
    assert p.kind == "window" and p.sum_of is not None and len(p.boundary) == 2 and p.fills
    runs = _run_all(mean_abs_diff, (a, b), ulps=16)
    for got in runs[1:]:
        np.testing.assert_array_equal(got[0], runs[0][0])


def test_values_carried_between_elements_are_not_a_window_map():
    u = np.ones(10, np.float32)
    p = _plan(carried, u)
    assert p.kind == "scalar"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.testing.assert_array_equal(_sim(carried)(u.copy()), interpreted(carried)(u.copy()))


def test_an_offset_by_a_scalar_parameter_is_not_a_window():
    x = np.arange(10, dtype=np.float32)
    assert _plan(offset_by_scalar, x, 3).kind == "scalar"


def test_a_boundary_statement_the_loop_overwrites_is_refused():
    with pytest.raises(CompileError, match="which the loop also writes"):
        _sim(overlapping)(np.ones(10, np.float32))


def _mse_source(n):
    a = np.zeros(n, np.float32)
    k = compiler.lower(mean_abs_diff.specialization((a, a), {})[0].ir, "ascend")
    return ascend.render(k, warn=False)


def _launch(src, text, n):
    a, b = _rand(n, np.float32, 10), _rand(n, np.float32, 11)
    out = np.full(37, np.nan, np.float32)
    lib, _, _ = ascend_sim.build(text, src.name, src.entry_params)
    block_dim, values, words = ascend_sim.tiling_words(src, {})
    (_, key), = src.workspaces                         # the partials of the sum
    parts = ascend_sim.device_empty(values[key])
    ascend_sim.launch(lib, [a.ctypes.data, b.ctypes.data, out.ctypes.data, parts.ctypes.data], words, block_dim,
                      src, src.name)
    return out


def test_ascend_sim_refuses_a_gm_read_back_without_the_mte3_mte2_sync():
    """The epilogue reads the sum back from GM after the UB->GM copy wrote it: without the MTE3 -> MTE2 sync the
    copy engine may read the old bytes on the NPU, and ascend-sim refuses it."""
    src = _mse_source(300)
    sync = ("      {\n        int32_t eventId = static_cast<int32_t>(GetTPipePtr()->FetchEventID(HardEvent::MTE3_MTE2));\n"
            "        SetFlag<HardEvent::MTE3_MTE2>(eventId);\n        WaitFlag<HardEvent::MTE3_MTE2>(eventId);\n      }\n")
    assert src.text.count(sync) == 1
    _launch(src, src.text, 300)                              # as rendered: runs
    broken = src.text.replace(sync, "")
    with pytest.raises(ascend_sim.AscendSimError, match="MTE3_MTE2"):
        _launch(src, broken, 300)


@pytest.mark.parametrize("kernel, args", [(smooth3, (np.linspace(-1, 1, 1001).astype(np.float32),)),
                                          (col_stats, (_rand((29, 67), np.float32, 12), _rand(67, np.float32, 13)))])
def test_window_maps_with_dynamic_shapes(kernel, args):
    """The offsets, ranges and bounds are tiling values computed from the sizes at the call."""
    k = lang.kernel(target="ascend-sim", dynamic_shape=True)(kernel.pyfunc)
    got, want = k(*args), interpreted(kernel)(*args)
    got, want = (got, want) if isinstance(got, tuple) else ((got,), (want,))
    for g, w in zip(got, want):
        close(np.asarray(g), np.asarray(w), np.asarray(w).dtype)

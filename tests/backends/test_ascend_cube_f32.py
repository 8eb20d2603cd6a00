"""Products on the cube path beyond whole 16-bit fractals: float32 operands (A2: 16 x 8 fractals in L0A, 8 x 16 in
L0B), tails in M, N and K (padded in L1, only the valid part written back), and a transposed B (x @ w^T, w stored
[N, K]). Each runs on ascend-sim (the cube plan, no fallback warning) and equals the interpreter within the corpus's
tolerance (16 float32 ulps, 2 for 16-bit); ascend-sim refuses a kernel whose K padding is not zeroed."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend.rendering import AscendFallbackWarning
from asc.runtime import ascend_sim
from asc.runtime.ascend_sim import AscendSimError
from helpers import BF16, close, interpreted


@lang.kernel
def mm(a, b):
    return a @ b


@lang.kernel
def mm_bt(x, w):
    return x @ lang.transpose(w)


@lang.kernel
def mm_bt_gelu(x, w):
    return lang.gelu(x @ lang.transpose(w))


@lang.kernel
def mm_at(a, b):
    return lang.transpose(a) @ b


ULPS = {np.dtype(np.float32): 16, np.dtype(np.float16): 2, BF16: 2}
_sims: dict = {}


def _sim(kernel):
    if kernel not in _sims:
        _sims[kernel] = lang.kernel(target="ascend-sim")(kernel.pyfunc)
    return _sims[kernel]


def _rand(shape, dtype, seed):
    return (np.random.default_rng(seed).standard_normal(shape) * 0.5).astype(dtype)


def _head(kernel, args):
    """The plan line of the generated Ascend C, and the fallback warnings its rendering gave."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always", AscendFallbackWarning)
        src = kernel.source("ascend", *args)
    return src.split("\n", 2)[1], [str(x.message) for x in w if issubclass(x.category, AscendFallbackWarning)]


def _check(kernel, args, dtype, **settings):
    head, warned = _head(kernel, args)
    assert "matrix product on the cube units" in head and not warned, (head, warned)
    want = interpreted(kernel)(*args)
    with ascend_sim.configured(**settings):
        got = _sim(kernel)(*args)
    assert got.dtype == want.dtype and got.shape == want.shape
    close(got, want, dtype, ulps=ULPS[np.dtype(dtype)])


# (M, K, N): one element; primes; 17 x 33 x 65 (a tail in every dimension); a K of 1; whole fractals; 130 x 70 x
# 150: two tiles of C along M (128 + 2) and N (128 + 22), two K steps (64 + 6)
F32_SHAPES = [(1, 1, 1), (2, 3, 5), (17, 23, 19), (17, 33, 65), (31, 1, 9), (16, 16, 16), (7, 29, 11),
              (130, 70, 150)]


@pytest.mark.parametrize("shape", F32_SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_float32_products_with_tails(shape):
    m, k, n = shape
    _check(mm, (_rand((m, k), np.float32, 1), _rand((k, n), np.float32, 2)), np.float32)


@pytest.mark.parametrize("shape", [(1, 1, 1), (7, 29, 11), (17, 33, 65), (130, 70, 150)],
                         ids=lambda s: "x".join(map(str, s)))
def test_float32_products_with_a_transposed_b(shape):
    m, k, n = shape
    _check(mm_bt, (_rand((m, k), np.float32, 3), _rand((n, k), np.float32, 4)), np.float32)


@pytest.mark.parametrize("dtype", [np.float16, BF16], ids=["f16", "bf16"])
@pytest.mark.parametrize("shape", [(1, 1, 1), (17, 23, 19), (48, 80, 32), (130, 70, 150)],
                         ids=lambda s: "x".join(map(str, s)))
def test_16bit_products_with_tails_and_a_transposed_b(shape, dtype):
    m, k, n = shape
    a, b, w = _rand((m, k), dtype, 5), _rand((k, n), dtype, 6), _rand((n, k), dtype, 7)
    _check(mm, (a, b), dtype)
    _check(mm_bt, (a, w), dtype)


def test_float32_tiles_on_three_cores():
    """Four tiles of C on three cube cores (block-cyclic), a transposed B and the GELU phase on their AIVs."""
    x, w = _rand((130, 70), np.float32, 8), _rand((150, 70), np.float32, 9)
    _check(mm, (x, w.T.copy()), np.float32, cores=3)
    _check(mm_bt_gelu, (x, w), np.float32, cores=3)


def test_a_transposed_a_still_falls_back_with_its_reason():
    a, b = _rand((5, 3), np.float32, 10), _rand((5, 4), np.float32, 11)
    head, warned = _head(mm_at, (a, b))
    assert "scalar code on one AI core" in head
    assert any("no transposed A" in w for w in warned), warned
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", AscendFallbackWarning)
        close(_sim(mm_at)(a, b), interpreted(mm_at)(a, b), np.float32, ulps=16)


def _launch(text, src, arrays, out_bytes):
    from asc.backends.ascend import tiling
    lib, _, _ = ascend_sim.build(text, src.name, src.entry_params)
    block_dim, values = tiling(src, {})
    words = np.array([values[f] for f, _ in src.tiling_fields], np.uint32)
    bufs = []
    for x in arrays:
        d = ascend_sim.device_empty(x.nbytes)
        d[:] = x.view(np.uint8).reshape(-1)
        bufs.append(d)
    bufs.append(ascend_sim.device_empty(out_bytes))
    ascend_sim.launch(lib, [x.ctypes.data for x in bufs], words, block_dim, src, src.name)
    return bufs[-1]


def test_the_sim_refuses_k_padding_that_is_not_zeroed():
    """B's K padding rows (K = 23: the cube reads 24) hold garbage without the Fill: the products that read them are
    invalid and Fixpipe refuses to write them back; with the Fill the kernel equals the interpreter."""
    from asc import compiler
    a, b = _rand((17, 23), np.float32, 12), _rand((23, 19), np.float32, 13)
    spec = _sim(mm).specialization((a, b), {})[0]
    src = compiler.render(spec.ir, "ascend")
    assert src.text.count("Fill(b1") == 1 and "LoadDataWithTranspose(" in src.text
    lines = src.text.split("\n")
    at = next(i for i, ln in enumerate(lines) if "Fill(b1" in ln)
    broken = "\n".join(lines[:at] + ["/* no Fill */"] + lines[at + 1:])
    with pytest.raises(AscendSimError, match="Fixpipe.*never written"):
        _launch(broken, src, (a, b), 17 * 19 * 4)
    out = _launch(src.text, src, (a, b), 17 * 19 * 4)
    close(out.view(np.float32).reshape(17, 19), interpreted(mm)(a, b), np.float32, ulps=16)


def test_the_sim_refuses_the_16bit_fractal_transpose_of_float():
    """LoadData's ifTranspose transposes 16-bit fractals only (A2): a float B needs LoadDataWithTranspose."""
    from asc import compiler
    a, b = _rand((16, 16), np.float32, 14), _rand((16, 16), np.float32, 15)
    spec = _sim(mm).specialization((a, b), {})[0]
    src = compiler.render(spec.ir, "ascend")
    lines = src.text.split("\n")
    at = next(i for i, ln in enumerate(lines) if "LoadDataWithTranspose(" in ln)
    assert "LoadData2dTransposeParams params(" in lines[at - 1]
    lines[at - 1] = "  LoadData2DParams params(0, np / 16, 1, 0, 0, true, 0);"
    lines[at] = "  LoadData(b2[kb * np * 16], b1[kb * 16 * np], params);"
    with pytest.raises(AscendSimError, match="LoadData: ifTranspose transposes fractals of 16-bit data only"):
        _launch("\n".join(lines), src, (a, b), 16 * 16 * 4)


@pytest.mark.parametrize("shape, dtype, fractals", [((16, 16, 16), np.float16, 1), ((16, 16, 16), np.float32, 2),
                                                    ((17, 17, 17), np.float16, 8), ((17, 17, 17), np.float32, 16)],
                         ids=["f16", "f32", "f16-tails", "f32-tails"])
def test_the_cost_model_counts_whole_fractals_and_float32_at_half_rate(shape, dtype, fractals):
    """One tile and one K step: the cube part is the fractal products (tails padded to whole fractals; a float32
    product takes two cycles, its 16 x 8 fractals halving the rate) plus the issue cost."""
    from asc.backends.ascend.cost_model import ISSUE
    from asc.backends.ascend.soc import soc_info
    m, k, n = shape
    est = mm.estimate("ascend", _rand((m, k), dtype, 16), _rand((k, n), dtype, 17), soc="Ascend910B1")
    clock = soc_info("Ascend910B1")["clock_ghz"] * 1e9
    assert est.parts["cube"] == pytest.approx((fractals + ISSUE) / clock, rel=1e-12)

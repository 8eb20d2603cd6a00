"""The seed's kernels on the ascend target: the emitted Ascend C compiled against ascend-sim, run on the CPU, and
compared with the interpreter (the specification) and NumPy references -- for sizes that are and are not multiples
of the tile and of 32 bytes, on one block and on many."""
import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.examples import seed as sk
from asc.runtime import ascend_sim
from helpers import BF16, close, gelu_erf_ref, gelu_tanh_ref, interpreted, rand

# (elements, vector cores to split over (None: the 48 of Ascend910B1), tile cap (None: as large as the UB allows))
SIZES = [
    (1, None, None),          # one block, one ragged 4-byte tail
    (7, None, None),          # one block, tail not a multiple of 32 B
    (256, 1, 256),            # one block, exactly one tile
    (1000, 1, 256),           # one block, 3 tiles + a 232-element tail (a multiple of 32 B of float32, not of f16)
    (1001, 3, 256),           # 3 blocks, tails not a multiple of 32 B
    (2048, 2, 256),           # 2 blocks of 4 whole tiles each
    (4099, None, None),       # many blocks (the SoC's 48), ragged last block
]
FLOATS = [np.float32, np.float16, BF16]
_sim: dict = {}


def sim(kernel):
    """The same kernel with target="ascend-sim"."""
    k = _sim.get(kernel)
    if k is None:
        k = _sim[kernel] = lang.kernel(target="ascend-sim")(kernel.pyfunc)
    return k


def run(kernel, args, cores, tile_cap):
    with ascend_sim.configured(cores=cores, tile_cap=tile_cap):
        return sim(kernel)(*args)


def check(kernel, args, cores=None, tile_cap=None, ulps=1):
    out = run(kernel, args, cores, tile_cap)
    ref = interpreted(kernel)(*args)
    assert out.dtype == ref.dtype and out.shape == ref.shape
    close(out, ref, ref.dtype, ulps=ulps)
    return out


@pytest.mark.parametrize("cores", [None, 1])
def test_vector_add(cores):
    a, b = rand(1024, np.float32, 1), rand(1024, np.float32, 2)
    c = check(sk.vector_add, (a, b), cores)
    np.testing.assert_array_equal(c, a + b)        # one rounding, as NumPy


@pytest.mark.parametrize("n, cores, tile", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_add(n, cores, tile, dtype):
    a, b = rand(n, dtype, 1), rand(n, dtype, 2)
    c = check(sk.add, (a, b), cores, tile)
    np.testing.assert_array_equal(c.view(np.uint8), (a.astype(np.float32) + b.astype(np.float32)).astype(dtype)
                                  .view(np.uint8))


@pytest.mark.parametrize("n, cores, tile", SIZES)
def test_gelu_naive(n, cores, tile):
    x = rand(n, np.float32, 3)
    y = check(sk.gelu_naive, (x,), cores, tile)
    close(y, gelu_erf_ref(x), np.float32, ulps=4)


@pytest.mark.parametrize("n, cores, tile", SIZES)
def test_gelu_approx(n, cores, tile):
    x = rand(n, np.float32, 4)
    y = check(sk.gelu_approx, (x,), cores, tile)
    close(y, gelu_tanh_ref(x), np.float32, ulps=4)


@pytest.mark.parametrize("n, cores, tile", [SIZES[1], SIZES[3], SIZES[4], SIZES[6]])
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("form", ["erf", "tanh"])
def test_gelu_any_dtype(n, cores, tile, dtype, form):
    kernel, ref = (sk.gelu_any, gelu_erf_ref) if form == "erf" else (sk.gelu_tanh_any, gelu_tanh_ref)
    x = rand(n, dtype, 5)
    y = check(kernel, (x,), cores, tile)
    assert y.dtype == np.dtype(dtype)
    close(y, ref(x.astype(np.float64)).astype(dtype), dtype, ulps=2)


@pytest.mark.parametrize("n, cores, tile", SIZES)
def test_saxpy(n, cores, tile):
    x, y = rand(n, np.float32, 6), rand(n, np.float32, 7)
    out = check(sk.saxpy, (np.float32(2.5), x, y), cores, tile)
    close(out, 2.5 * x.astype(np.float64) + y, np.float32)
    out2 = run(sk.saxpy, (np.float32(-0.5), x, y), cores, tile)       # the scalar is an argument, not baked in
    close(out2, -0.5 * x.astype(np.float64) + y, np.float32)


@pytest.mark.parametrize("shape, cores, tile", [((1, 1), None, None), ((7, 33), None, None),
                                                ((31, 100), 2, 256), ((64, 1000), None, None)])
def test_swish_glu_float16(shape, cores, tile):
    xw, xv = rand(shape, np.float16, 8, 2.0), rand(shape, np.float16, 9, 2.0)
    out = check(sk.swish_glu, (xw, xv), cores, tile)
    z = xw.astype(np.float64)
    close(out, (z / (1 + np.exp(-z)) * xv.astype(np.float64)).astype(np.float16), np.float16, ulps=2)
    out_b = run(sk.swish_glu, (xw, xv, np.float16(1.5)), cores, tile)
    close(out_b, (z / (1 + np.exp(-1.5 * z)) * xv.astype(np.float64)).astype(np.float16), np.float16, ulps=2)


@pytest.mark.parametrize("shape, cores, tile", [((1, 1), None, None), ((7, 33), 1, 256), ((64, 1000), None, None)])
@pytest.mark.parametrize("dtype", FLOATS)
def test_swiglu_any(shape, cores, tile, dtype):
    a, b = rand(shape, dtype, 10, 2.0), rand(shape, dtype, 11, 2.0)
    out = check(sk.swiglu_any, (a, b), cores, tile)
    a64 = a.astype(np.float64)
    close(out, (a64 / (1 + np.exp(-a64)) * b.astype(np.float64)).astype(dtype), dtype, ulps=2)


ROW_SHAPES = [((1, 1), None), ((5, 37), None), ((64, 64), None), ((3, 1000), 1), ((100, 24), 7)]


@pytest.mark.parametrize("shape, cores", ROW_SHAPES)
def test_softmax(shape, cores):
    x = rand(shape, np.float32, 12)
    out = check(sk.softmax, (x,), cores)
    e = np.exp(x.astype(np.float64) - x.max(axis=1, keepdims=True))
    close(out, e / e.sum(axis=1, keepdims=True), np.float32, ulps=4)


@pytest.mark.parametrize("shape, cores", ROW_SHAPES)
def test_layernorm(shape, cores):
    x = rand(shape, np.float32, 13)
    w, b = rand(shape[1], np.float32, 14), rand(shape[1], np.float32, 15)
    out = check(sk.layernorm, (x, w, b), cores, ulps=4)
    x64 = x.astype(np.float64)
    mu, var = x64.mean(axis=1, keepdims=True), x64.var(axis=1, keepdims=True)
    close(out, (x64 - mu) / np.sqrt(var + 1e-5) * w + b, np.float32, ulps=8)


@lang.kernel
def softmax_any(x):
    """Row softmax for any float dtype (16-bit rows are computed in float32)."""
    out = lang.empty_like(x)
    R, C = x.shape
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            s += lang.exp(x[i, j] - m)
        for j in range(C):
            out[i, j] = lang.exp(x[i, j] - m) / s
    return out


@lang.kernel
def bias_gelu(x, bias):
    """A 2-D map with a broadcast 1-D row: out = gelu(x + bias)."""
    out = lang.empty_like(x)
    R, C = x.shape
    for i in range(R):
        for j in range(C):
            v = x[i, j] + bias[j]
            out[i, j] = 0.5 * v * (1.0 + lang.tanh(0.7978845608 * (v + 0.044715 * v * v * v)))
    return out


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape", [(3, 17), (9, 64)])
def test_row_kernels_any_dtype(dtype, shape):
    x = rand(shape, dtype, 16)
    out = check(softmax_any, (x,), 4, ulps=2)
    x64 = x.astype(np.float64)
    e = np.exp(x64 - x64.max(axis=1, keepdims=True))
    close(out, (e / e.sum(axis=1, keepdims=True)).astype(dtype), dtype, ulps=4)
    bias = rand(shape[1], dtype, 17)
    check(bias_gelu, (x, bias), 2, ulps=2)


def test_row_kind_and_torch_tensors():
    torch = pytest.importorskip("torch")
    x = rand((6, 40), np.float32, 18)
    assert "ReduceMax(" in sim(sk.softmax).source("ascend", x)
    out = sim(sk.softmax)(torch.from_numpy(x))
    assert isinstance(out, torch.Tensor)
    close(out.numpy(), interpreted(sk.softmax)(x), np.float32)


def test_size_zero():
    x = np.zeros(0, np.float32)
    assert sim(sk.gelu_any)(x).shape == (0,)


def test_in_place_kernel():
    @lang.kernel
    def scale_in_place(x, y):
        for i in range(len(x)):
            x[i] = x[i] * 2.0 + y[i]

    x, y = rand(300, np.float32, 19), rand(300, np.float32, 20)
    expected = x * 2.0 + y
    with ascend_sim.configured(cores=3, tile_cap=256):
        sim(scale_in_place)(x, y)
    close(x, expected, np.float32)


def test_matmul_falls_back_to_scalar_code_with_a_warning():
    A, B = rand((5, 7), np.float16, 21, 0.5), rand((7, 3), np.float16, 22, 0.5)
    with pytest.warns(UserWarning, match=r"seed\.py:\d+:\d+: kernel 'matmul': .*scalar code on one AI core"):
        C = sim(sk.matmul)(A, B)
    np.testing.assert_array_equal(C, interpreted(sk.matmul)(A, B))     # same float16 accumulation order


def test_while_loops_fall_back_naming_the_line():
    @lang.kernel
    def halvings(x):
        out = lang.empty_like(x)
        for i in range(len(x)):
            v = x[i]
            while v > 1.0:
                v = v * 0.5
            out[i] = v
        return out

    x = rand(77, np.float32, 23)
    with pytest.warns(UserWarning, match=r"test_ascend_seed\.py:\d+:\d+: kernel 'halvings': control flow \(`while`\)"):
        out = sim(halvings)(x)
    np.testing.assert_array_equal(out, interpreted(halvings)(x))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        text = halvings.source("ascend", x)
    assert "GetValue(" in text and "SetValue(" in text


@lang.kernel
def leaky_if(x, y):
    out = lang.empty_like(x)
    for i in range(len(x)):
        if x[i] > 0:
            out[i] = x[i]
            t = y[i]
        else:
            out[i] = 0.1 * x[i]
            t = -y[i]
            if y[i] < x[i]:
                t = t * 2.0
        out[i] = out[i] + t
    return out


@lang.kernel
def clamp_in_place(x):
    for i in range(len(x)):
        if x[i] > 1.0:
            x[i] = 1.0


@pytest.mark.parametrize("n, cores, tile", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_if_statements_become_selects(n, cores, tile, dtype):
    x, y = rand(n, dtype, 38), rand(n, dtype, 39)
    check(leaky_if, (x, y), cores, tile)
    text = sim(leaky_if).source("ascend", x, y)
    assert text.count("Compare(") + text.count("CompareScalar(") == 2 and text.count("Select(") == 3
    assert "GetValue" not in text
    x2, x3 = x.copy(), x.copy()
    run(clamp_in_place, (x2,), cores, tile)
    interpreted(clamp_in_place)(x3)
    np.testing.assert_array_equal(x2, x3)


def test_dynamic_shape_kernels():
    """One build serves every size: the sizes travel in the tiling."""
    saxpy = lang.kernel(target="ascend-sim", dynamic_shape=True)(sk.saxpy.pyfunc)
    layernorm = lang.kernel(target="ascend-sim", dynamic_shape=True)(sk.layernorm.pyfunc)
    for n in (5, 300, 1001):
        x, y = rand(n, np.float32, 24), rand(n, np.float32, 25)
        close(saxpy(np.float32(3.0), x, y), 3.0 * x.astype(np.float64) + y, np.float32)
        xr, w, b = rand((3, n), np.float32, 26), rand(n, np.float32, 27), rand(n, np.float32, 28)
        close(layernorm(xr, w, b), interpreted(sk.layernorm)(xr, w, b), np.float32, ulps=4)
    assert len(saxpy._cache) == 1 and saxpy.cache_info()["compilations"][0]["signature"].startswith("a: float32")


@lang.kernel
def relu6(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = min(max(x[i], 0.0), 6.0)
    return out


@pytest.mark.parametrize("dtype", FLOATS)
def test_python_max_min_become_maxs_mins(dtype):
    x = rand(1000, dtype, 29, 5.0)
    out = check(relu6, (x,), 3, 256)
    np.testing.assert_array_equal(out, np.clip(x, 0, 6))
    text = sim(relu6).source("ascend", x)
    assert text.count("Maxs(") == 1 and text.count("Mins(") == 1     # the repeated max(...) is computed once


def test_integer_kernels_run_as_scalar_code():
    a, b = np.arange(100, dtype=np.int32), np.arange(100, dtype=np.int32) * 3
    with pytest.warns(UserWarning, match=r"seed\.py:\d+:\d+: kernel 'add': '\w' is int32; vector code"):
        np.testing.assert_array_equal(sim(sk.add)(a, b), a + b)


# ---- the cube path: A @ B through ND->NZ copies, LoadData, Mmad and Fixpipe

from asc.examples import seed_tensor as skt  # noqa: E402


def test_matmul_cube_seed():
    A, B = rand((256, 256), np.float16, 30, 0.5), rand((256, 256), np.float16, 31, 0.5)
    C = sim(skt.matmul_cube)(A, B)
    assert C.dtype == np.float16 and C.shape == (256, 256)
    close(C, (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16), np.float16, ulps=4)
    close(C, interpreted(skt.matmul_cube)(A, B), np.float16, ulps=2)
    text = skt.matmul_cube.source("ascend", A, B)
    for api in ("Nd2NzParams", "LoadData(", "Mmad(", "Fixpipe<half, float, CFG_ROW_MAJOR>", "QuantMode_t::F322F16",
                "KERNEL_TYPE_AIC_ONLY"):
        assert api in text


@pytest.mark.parametrize("mkn", [(16, 16, 16), (48, 80, 144), (272, 64, 32), (128, 192, 256)])
@pytest.mark.parametrize("dtype", [np.float16, BF16])
def test_matmul_any_on_the_cube(mkn, dtype):
    m, k, n = mkn
    A, B = rand((m, k), dtype, 32, 0.5), rand((k, n), dtype, 33, 0.5)
    with ascend_sim.configured(cores=3):
        C = sim(skt.matmul_any)(A, B)
    close(C, (A.astype(np.float64) @ B.astype(np.float64)).astype(dtype), dtype, ulps=max(4, k // 16))


def test_matmul_cube_takes_tails():
    """Sizes that are not whole fractals stay on the cube path (padded in L1, the valid part written back:
    tests/backends/test_ascend_cube_f32.py has the rest), with no fallback warning."""
    A, B = rand((20, 16), np.float16, 34, 0.5), rand((16, 16), np.float16, 35, 0.5)
    from asc.backends.ascend import AscendFallbackWarning
    with warnings.catch_warnings():
        warnings.simplefilter("error", AscendFallbackWarning)
        src = skt.matmul_any.source("ascend", A, B)
        C = sim(skt.matmul_any)(A, B)
    assert "Mmad" in src and "GetValue" not in src
    close(C, (A.astype(np.float64) @ B.astype(np.float64)).astype(np.float16), np.float16, ulps=4)


def lang_errors():
    import asc.errors
    return asc.errors


@lang.kernel
def scaled_fill(x, v: lang.float32):
    out = lang.full((len(x),), 0.1, dtype=x.dtype)
    acc = lang.zeros_like(x)
    for i in range(len(x)):
        out[i] = out[i] * x[i] + v
        acc[i] = acc[i] + out[i]
    return out, acc


@pytest.mark.parametrize("dtype", FLOATS)
def test_outputs_read_before_written_hold_their_initial_value(dtype):
    x = rand(333, dtype, 34)
    out, acc = check_pair(scaled_fill, (x, np.float32(1.5)))
    assert "GetValue" not in sim(scaled_fill).source("ascend", x, np.float32(1.5))     # still vector code


def check_pair(kernel, args):
    with ascend_sim.configured(cores=2, tile_cap=256):
        got = sim(kernel)(*args)
    ref = interpreted(kernel)(*args)
    for g, r in zip(got, ref):
        close(g, r, r.dtype)
    return got


def test_scalar_results_are_refused_with_the_line():
    @lang.kernel
    def total(x):
        s = 0.0
        for i in range(len(x)):
            s += x[i]
        return s

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(lang_errors().CompileError, match=r"test_ascend_seed\.py:\d+:\d+: ascend target: returning "
                                                            r"a scalar"):
            sim(total)(np.ones(10, np.float32))


@lang.kernel
def round_trips(x):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = lang.cast(x[i] * 3.3, lang.float16) + lang.cast(x[i], lang.bfloat16) * 0.5
    return out


@pytest.mark.parametrize("dtype", FLOATS)
def test_explicit_casts_to_16_bits_round_in_vector_code(dtype):
    x = rand(1000, dtype, 35)
    out = check(round_trips, (x,), 3, 256)
    if dtype == np.float32:        # float32 data: the same roundings as the interpreter, bit for bit
        np.testing.assert_array_equal(out, interpreted(round_trips)(x))
    assert "ReinterpretCast<" in sim(round_trips).source("ascend", x)      # at least one cast changes type


@pytest.mark.parametrize("n, cores, tile", SIZES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_conditional_expressions_become_compare_select(n, cores, tile, dtype):
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden", "kernels.py")
    spec = importlib.util.spec_from_file_location("ascend_golden_kernels_select", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    x, y = rand(n, dtype, 36), rand(n, dtype, 37)
    check(mod.leaky_pick, (x, y), cores, tile)
    text = sim(mod.leaky_pick).source("ascend", x, y)
    assert "CompareScalar(mask" in text and "Select(" in text and "GetValue" not in text

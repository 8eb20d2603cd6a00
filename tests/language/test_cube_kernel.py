"""@lang.cube_kernel, @lang.fused_kernel, local buffers and tile copies: the seed's examples as written, against
NumPy and the interpreter, over float32/float16/bfloat16, sizes that are and are not multiples of the tiles."""
import os

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError, KernelTypeError
from asc.examples import seed_tensor as st
from helpers import BF16, close, interpreted, rand

FLOATS = [np.float32, np.float16, BF16]
M = lang.dim("M")
K = lang.dim("K")
N = lang.dim("N")

THIS_FILE = os.path.realpath(__file__)
with open(THIS_FILE, encoding="utf-8") as _f:
    LINES = _f.read().splitlines()
SEED_FILE = os.path.realpath(st.__file__)
with open(SEED_FILE, encoding="utf-8") as _f:
    SEED_LINES = _f.read().splitlines()


def line_of(marker, lines=LINES):
    hits = [n for n, text in enumerate(lines, 1) if f"# <{marker}>" in text or
            (lines is not LINES and marker in text)]
    assert len(hits) == 1, (marker, hits)
    return hits[0]


def f64(x):
    return np.asarray(x).astype(np.float64)


# ------------------------------------------------------------------ @lang.cube_kernel

def test_seed_matmul_cube_256_float16():
    A, B = rand((256, 256), np.float16, 1, 0.5), rand((256, 256), np.float16, 2, 0.5)
    C = st.matmul_cube(A, B)
    assert C.dtype == np.float16 and C.shape == (256, 256)
    ref = f64(A) @ f64(B)
    close(C, ref, np.float16, scale=4)
    Ci = interpreted(st.matmul_cube)(A, B)
    assert Ci.dtype == np.float16
    close(C, Ci, np.float16, scale=4)
    assert "matmul" in st.matmul_cube.source("ir")


@pytest.mark.parametrize("dtype", FLOATS + [np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 1, 1), (3, 200, 5), (65, 31, 129), (128, 256, 64)])
def test_cube_matmul_any_dtype_and_size(dtype, m, k, n):
    A, B = rand((m, k), dtype, 3, 1.0), rand((k, n), dtype, 4, 1.0)
    C = st.matmul_any(A, B)
    assert C.dtype == np.dtype(dtype) and C.shape == (m, n)
    close(C, f64(A) @ f64(B), dtype, scale=np.sqrt(k), ulps=4)
    close(C, interpreted(st.matmul_any)(A, B), dtype, scale=np.sqrt(k), ulps=4)


@lang.cube_kernel
def mm_to_f32(A: lang.float16[M, K], B: lang.float16[K, N]) -> lang.float32[M, N]:
    return A @ B


@lang.cube_kernel
def mm_bf16_to_bf16(A: lang.bfloat16[M, K], B: lang.bfloat16[K, N]) -> lang.bfloat16[M, N]:
    return lang.matmul(A, B)


def test_output_dtype_follows_the_annotation():
    A, B = rand((40, 70), np.float16, 5, 1.0), rand((70, 30), np.float16, 6, 1.0)
    C = mm_to_f32(A, B)
    assert C.dtype == np.float32
    # float32 accumulation, no rounding to float16: as exact as a float32 product
    close(C, f64(A) @ f64(B), np.float32, scale=10, ulps=8)
    Ci = interpreted(mm_to_f32)(A, B)
    assert Ci.dtype == np.float32
    Ab, Bb = A.astype(BF16), B.astype(BF16)
    D = mm_bf16_to_bf16(Ab, Bb)
    assert D.dtype == BF16
    close(D, f64(Ab) @ f64(Bb), BF16, scale=10)


@lang.cube_kernel
def tiled_cube(A: lang.float32[M, K], B: lang.float32[K, N]) -> lang.float32[M, N]:
    C = lang.empty((M, N), dtype=lang.float32)
    T = 32
    for i in range(0, M, T):
        for j in range(0, N, T):
            C[i:i + T, j:j + T] = A[i:i + T, :] @ B[:, j:j + T]
    return C


@pytest.mark.parametrize("m,k,n", [(64, 32, 96), (70, 33, 45), (5, 7, 3), (32, 1, 33)])
def test_tile_loops_around_matmul_multiple_and_not(m, k, n):
    A, B = rand((m, k), np.float32, 7, 1.0), rand((k, n), np.float32, 8, 1.0)
    C = tiled_cube(A, B)
    close(C, f64(A) @ f64(B), np.float32, scale=np.sqrt(k), ulps=4)
    close(C, interpreted(tiled_cube)(A, B), np.float32, scale=np.sqrt(k), ulps=4)


@lang.cube_kernel
def batched_cube(A: lang.float16[4, M, K], B: lang.float16[4, K, N]) -> lang.float16[4, M, N]:
    return A @ B


def test_batched_cube_matmul():
    A, B = rand((4, 33, 20), np.float16, 9, 1.0), rand((4, 20, 17), np.float16, 10, 1.0)
    C = batched_cube(A, B)
    close(C, np.matmul(f64(A), f64(B)), np.float16, scale=5)
    close(C, interpreted(batched_cube)(A, B), np.float16, scale=5)


@lang.cube_kernel
def cube_dense(A: lang.Tensor, B: lang.Tensor, bias: lang.Tensor):
    return lang.relu(A @ B + bias)


@pytest.mark.parametrize("dtype", FLOATS)
def test_cube_kernel_runs_an_expression_of_the_product_as_its_epilogue(dtype):
    A, B, bias = rand((70, 40), dtype, 28, 1.0), rand((40, 50), dtype, 29, 0.3), rand(50, dtype, 30)
    y = cube_dense(A, B, bias)
    assert y.dtype == np.dtype(dtype)
    ref = np.maximum(f64(A) @ f64(B) + f64(bias), 0)
    close(y, ref, dtype, scale=4, ulps=4)
    close(y, interpreted(cube_dense)(A, B, bias), dtype, scale=4, ulps=4)
    assert "fused epilogue: add -> relu on each tile" in cube_dense.source("ir")


# ------------------------------------------------------------------ @lang.fused_kernel

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m", [1, 64, 100, 200])
def test_seed_fused_mlp(dtype, m):
    x = rand((m, 48), dtype, 11, 1.0)
    w1 = rand((48, 96), dtype, 12, 0.15)
    w2 = rand((96, 40), dtype, 13, 0.1)
    y = st.fused_mlp(x, w1, w2)
    assert y.dtype == np.dtype(dtype) and y.shape == (m, 40)
    h = f64(x) @ f64(w1)
    ref = np.asarray(lang.gelu(h), np.float64) @ f64(w2)
    close(y, ref, dtype, scale=4, ulps=4)
    close(y, interpreted(st.fused_mlp)(x, w1, w2), dtype, scale=4, ulps=4)
    close(y, st.mlp_unfused(x, w1, w2), dtype, scale=4, ulps=4)


def test_fused_mlp_ir_shows_the_fusion_and_no_separate_pass():
    x, w1, w2 = rand((100, 48), np.float32, 1), rand((48, 96), np.float32, 2), rand((96, 40), np.float32, 3)
    text = st.fused_mlp.source("ir", x, w1, w2)
    assert "fused epilogue: gelu on each tile of the product while it is in cache" in text
    assert text.count("matmul ") == 2
    # gelu runs inside the first product (its epilogue): no loop makes a pass over the intermediate
    loops = [line for line in text.splitlines() if line.strip().startswith("for ")]
    assert not loops and "epilogue on each tile" in text
    cpp = st.fused_mlp.source("cpu", x, w1, w2)
    # the epilogue's GELU: its erf scaled and its product one call (asc/passes/scaled_math.py, gelu_product.py)
    assert "asc_matmul_fused(" in cpp and "asc_gelu_erf_scaled_f32(" in cpp.split("asc_epi = ")[1].split("};")[0]
    plain = st.mlp_unfused.source("ir", x, w1, w2)
    assert "fused" not in plain.replace("unfused", "") and "erf(" in plain
    assert any(line.strip().startswith("for ") for line in plain.splitlines())


@lang.fused_kernel
def fused_epilogue(x: lang.float32[M, K], w: lang.float32[K, N], bias: lang.float32[N],
                   res: lang.float32[M, N], scale: float) -> lang.float32[M, N]:
    y = lang.matmul(x, w) + bias
    y = lang.silu(y) * scale
    return y + res


@pytest.mark.parametrize("m", [3, 64, 130])
def test_fused_bias_activation_scaling_residual(m):
    x, w = rand((m, 24), np.float32, 14, 1.0), rand((24, 36), np.float32, 15, 0.3)
    bias, res = rand(36, np.float32, 16), rand((m, 36), np.float32, 17)
    y = fused_epilogue(x, w, bias, res, 0.5)
    t = f64(x) @ f64(w) + f64(bias)
    ref = t / (1 + np.exp(-t)) * 0.5 + f64(res)
    close(y, ref, np.float32, scale=4, ulps=8)
    close(y, interpreted(fused_epilogue)(x, w, bias, res, 0.5), np.float32, scale=4, ulps=8)
    text = fused_epilogue.source("ir")
    assert "fused epilogue: add -> silu -> mul -> add on each tile" in text


@lang.fused_kernel
def fused_shapes(x: lang.float32[M, K], a: lang.float32[K, N], b: lang.float32[K, N]):
    h = x @ a
    two = x @ a + x @ b            # two products: computed into temporaries, then one pass
    return h * h + 1.0, two        # one product used twice: still one product, with its epilogue


def test_fused_kernel_reuse_and_two_products():
    x, a, b = rand((33, 20), np.float32, 25, 1.0), rand((20, 18), np.float32, 26, 0.3), rand((20, 18), np.float32, 27)
    (y, two), (yi, twoi) = fused_shapes(x, a, b), interpreted(fused_shapes)(x, a, b)
    h = f64(x) @ f64(a)
    close(y, h * h + 1, np.float32, scale=10, ulps=8)
    close(two, h + f64(x) @ f64(b), np.float32, scale=10, ulps=8)
    close(y, yi, np.float32, scale=10, ulps=8)
    close(two, twoi, np.float32, scale=10, ulps=8)
    text = fused_shapes.source("ir")
    assert text.count("matmul ") == 3 and "fused epilogue: mul -> add" in text


# ------------------------------------------------------------------ local buffers and tile copies

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("m,n", [(32, 32), (64, 96), (96, 64)])
def test_seed_matmul_opt_with_k_equal_block(dtype, m, n):
    A, B = rand((m, 32), dtype, 18, 1.0), rand((32, n), dtype, 19, 1.0)
    C = st.matmul_opt(A, B)
    assert C.dtype == np.dtype(dtype)
    close(C, f64(A) @ f64(B), dtype, scale=6, ulps=4)
    if m * n <= 64 * 96 and dtype == np.float32:
        close(C, interpreted(st.matmul_opt)(A, B), dtype, scale=6, ulps=4)
    assert "alloc local empty" in st.matmul_opt.source("ir")
    assert "alignas(64)" in st.matmul_opt.source("cpu")


@pytest.mark.parametrize("k", [64, 16])
def test_seed_matmul_opt_refuses_k_other_than_block(k):
    A, B = rand((64, k), np.float32, 20), rand((k, 64), np.float32, 21)
    for kern in (st.matmul_opt, interpreted(st.matmul_opt)):
        with pytest.raises(KernelTypeError) as ei:
            kern(A, B)
        e = ei.value
        assert os.path.realpath(e.loc.file) == SEED_FILE
        assert e.loc.line == line_of("lang.load_2d(A[i:i+BLOCK, 0:K], local_a)", SEED_LINES)
        assert f"lang.load_2d: the source view has shape (32, {k}) but the destination buffer has shape (32, 32)" \
            in e.msg
        lines = str(e).splitlines()
        assert lines[1].strip() == "lang.load_2d(A[i:i+BLOCK, 0:K], local_a)"
        assert lines[2].strip().startswith("^~~~")


@lang.kernel
def tile_copy(A: lang.float32[M, N], out: lang.float32[M, N]):
    T = 16
    for i in range(0, M, T):
        for j in range(0, N, T):
            buf = lang.local_buffer((T, T), dtype=lang.float32)
            lang.load_2d(A[i:i + T, j:j + T], buf)
            for r in range(T):
                for c in range(T):
                    buf[r, c] = buf[r, c] * 2.0 + 1.0
            lang.store_2d(buf, out[i:i + T, j:j + T])


@lang.kernel
def edge_tile(A: lang.float32[M, N]) -> lang.float32[16, 16]:
    buf = lang.local_buffer((16, 16), dtype=lang.float32)
    lang.load_2d(A[M - 5:M - 5 + 16, 0:16], buf)      # runs 11 rows past the end: clipped, the rest is zero
    out = lang.empty((16, 16), dtype=lang.float32)
    lang.store_2d(buf, out[0:16, 0:16])
    return out


@pytest.mark.parametrize("m,n", [(32, 48), (37, 21), (5, 3)])
def test_tiles_at_the_edges_are_partial(m, n):
    A = rand((m, n), np.float32, 22)
    out = np.full((m, n), -1.0, np.float32)
    tile_copy(A, out)
    np.testing.assert_array_equal(out, A * 2 + 1)
    out2 = np.full((m, n), -1.0, np.float32)
    interpreted(tile_copy)(A, out2)
    np.testing.assert_array_equal(out2, out)


def test_load_2d_zero_fills_a_clipped_view():
    A = rand((20, 16), np.float32, 23)
    y = edge_tile(A)
    ref = np.zeros((16, 16), np.float32)
    ref[:5] = A[15:20]
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(interpreted(edge_tile)(A), ref)


@lang.kernel
def global_then_local(x: lang.float16[64]) -> lang.float32[64]:
    g = lang.global_buffer((64,), dtype=lang.float16)
    loc = lang.local_buffer((64,), dtype=lang.float32)
    for i in range(64):
        g[i] = x[i] * 2.0
    for i in range(64):
        loc[i] = g[i] + 1.0
    out = lang.empty(64, dtype=lang.float32)
    out[:] = loc
    return out


def test_seed_memory_model_buffers():
    x = rand(64, np.float16, 24)
    y = global_then_local(x)
    ref = (x.astype(np.float32) * 2).astype(np.float16).astype(np.float32) + 1
    np.testing.assert_array_equal(y, ref)
    np.testing.assert_array_equal(interpreted(global_then_local)(x), ref)


@lang.kernel
def too_much_local(x: lang.float32[8]):
    a = lang.local_buffer((128, 256), dtype=lang.float32)     # 128 KiB
    b = lang.local_buffer((128, 256), dtype=lang.float32)     # 256 KiB in all: at the budget
    c = lang.local_buffer((1,), dtype=lang.float32)  # <over-budget>
    a[0, 0] = b[0, 0] + c[0]


def test_local_buffer_budget():
    with pytest.raises(CompileError) as ei:
        too_much_local(np.zeros(8, np.float32))
    e = ei.value
    assert e.loc.line == line_of("over-budget")
    assert "exceeds the cpu target's local memory budget of 262144 bytes (256 KiB)" in e.msg
    assert "(262144 bytes)" in e.msg


@lang.kernel
def store_shape_mismatch(A: lang.float32[64, 64]):
    buf = lang.local_buffer((16, 16), dtype=lang.float32)
    lang.store_2d(buf, A[0:16, 0:8])  # <store-mismatch>


def test_store_2d_shape_mismatch():
    with pytest.raises(KernelTypeError) as ei:
        store_shape_mismatch(np.zeros((64, 64), np.float32))
    assert ei.value.loc.line == line_of("store-mismatch")
    assert "lang.store_2d: the source buffer has shape (16, 16) but the destination view has shape (16, 8)" \
        in ei.value.msg

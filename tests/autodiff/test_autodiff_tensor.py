"""asc.grad on tensor-level kernels: products on the GEMM (`A @ B`, lang.matmul, @cube_kernel), element code
between them, fused epilogues (the seed's fused MLP), against torch autograd; refusals for tiled products."""
from __future__ import annotations

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.autodiff import AutodiffError
from asc.examples.seed_tensor import fused_mlp, matmul_any, mlp_unfused

torch = pytest.importorskip("torch")
F = torch.nn.functional


@lang.cube_kernel
def mm64(A: lang.float64[M, K], B: lang.float64[K, N]) -> lang.float64[M, N]:
    return A @ B


@lang.kernel
def linear_bias_silu(x: lang.float32[R, C], w: lang.float32[C, D], b: lang.float32[D]) -> lang.float32[R, D]:
    h = x @ w
    out = lang.empty_like(h)
    for i in range(R):
        for j in range(D):
            z = h[i, j] + b[j]
            out[i, j] = z * lang.sigmoid(z)
    return out


@lang.kernel
def gram(x: lang.float64[R, C]) -> lang.float64[C, C]:
    return lang.matmul(lang.transpose(x), x)


@lang.kernel
def two_heads(x: lang.float64[R, C], w: lang.float64[C, D]):
    h = x @ w
    s = lang.empty((R,), dtype=lang.float64)
    for i in range(R):
        acc = 0.0
        for j in range(D):
            acc += h[i, j] * h[i, j]
        s[i] = acc
    return h, s


@lang.kernel
def tiled(A: lang.float32[M, K], B: lang.float32[K, N]) -> lang.float32[M, N]:
    C = lang.empty((M, N), dtype=lang.float32)
    for i in lang.range(0, M, 4):
        C[i:i + 4, 0:N] = A[i:i + 4, 0:K] @ B  # TILED
    return C


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def torch_grads(fn, *arrays, grads):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    torch.autograd.backward(outs, [torch.tensor(g) for g in grads])
    return [t.grad.numpy() for t in ts]


@pytest.mark.parametrize("kernel", [fused_mlp, mlp_unfused])
@pytest.mark.parametrize("shape", [(1, 1, 1, 1), (8, 16, 32, 12), (13, 7, 29, 5)])
def test_mlp_fused_and_unfused(kernel, shape):
    n, d, h, o = shape
    x, w1, w2 = rand(n, d, seed=1), rand(d, h, seed=2) * 0.3, rand(h, o, seed=3) * 0.3
    g = rand(n, o, seed=4)
    got = asc.grad(kernel)(x, w1, w2, g)
    want = torch_grads(lambda a, b, c: F.gelu(a @ b) @ c, x, w1, w2, grads=[g])
    for a, b in zip(got, want):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_mlp_float32_and_the_interpreter():
    x, w1, w2 = rand(6, 8, seed=5, dtype=np.float32), rand(8, 10, seed=6, dtype=np.float32), rand(
        10, 4, seed=7, dtype=np.float32)
    g = rand(6, 4, seed=8, dtype=np.float32)
    got = asc.grad(fused_mlp)(x, w1, w2, g)
    interp = asc.grad(lang.fused_kernel(target="interpret")(fused_mlp.pyfunc))(x, w1, w2, g)
    want = torch_grads(lambda a, b, c: F.gelu(a @ b) @ c, *(v.astype(np.float64) for v in (x, w1, w2)),
                       grads=[g.astype(np.float64)])
    for a, i, w in zip(got, interp, want):
        assert a.dtype == np.float32
        np.testing.assert_allclose(a, w, rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(i, a, rtol=1e-5, atol=1e-6)


def test_cube_kernels_any_dtype_and_transposed_operands():
    A, B, G = rand(9, 5, seed=9), rand(5, 7, seed=10), rand(9, 7, seed=11)
    dA, dB = asc.grad(mm64)(A, B, G)
    np.testing.assert_allclose(dA, G @ B.T, rtol=1e-12)
    np.testing.assert_allclose(dB, A.T @ G, rtol=1e-12)
    A32, B32, G32 = (v.astype(np.float32) for v in (A, B, G))
    dA, dB = asc.grad(matmul_any)(A32, B32, G32)
    np.testing.assert_allclose(dA, G @ B.T, rtol=1e-5, atol=1e-5)
    x, gg = rand(6, 4, seed=12), rand(4, 4, seed=13)
    (dx,) = (asc.grad(gram)(x, gg),)
    np.testing.assert_allclose(dx, torch_grads(lambda t: t.T @ t, x, grads=[gg])[0], rtol=1e-12)


def test_element_code_after_a_product_and_an_output_read_again():
    x, w, b = rand(5, 6, seed=14, dtype=np.float32), rand(6, 3, seed=15, dtype=np.float32), rand(
        3, seed=16, dtype=np.float32)
    g = rand(5, 3, seed=17, dtype=np.float32)
    got = asc.grad(linear_bias_silu)(x, w, b, g)
    want = torch_grads(lambda p, q, r: F.silu(p @ q + r), *(v.astype(np.float64) for v in (x, w, b)),
                       grads=[g.astype(np.float64)])
    for a, c in zip(got, want):
        np.testing.assert_allclose(a, c, rtol=1e-4, atol=1e-5)
    x2, w2 = rand(4, 5, seed=18), rand(5, 3, seed=19)
    gh, gs = rand(4, 3, seed=20), rand(4, seed=21)
    got = asc.grad(two_heads)(x2, w2, gh, gs)

    def ref(p, q):
        h = p @ q
        return h, (h * h).sum(1)
    for a, c in zip(got, torch_grads(ref, x2, w2, grads=[gh, gs])):
        np.testing.assert_allclose(a, c, rtol=1e-12)


def test_torch_op_for_a_cube_kernel_gradcheck():
    import asc.torch as asct
    op = asct.op(mm64, name="asc_autodiff_tensor::mm64", autodiff=True)
    a = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    b = torch.randn(3, 5, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(op, (a, b))


def test_tiled_products_are_refused_at_their_line():
    with pytest.raises(AutodiffError, match="product inside a loop") as ei:
        asc.grad(tiled)(rand(8, 3, dtype=np.float32), rand(3, 2, dtype=np.float32), rand(8, 2, dtype=np.float32))
    with open(__file__) as f:
        line = next(i for i, t in enumerate(f, 1) if "# TILED" in t)
    assert ei.value.loc.line in (line - 1, line)

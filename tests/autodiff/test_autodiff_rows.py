"""asc.grad on reductions, row kernels (softmax, layernorm, RMSNorm, logsumexp) and matmul: gradients against
PyTorch autograd in float64 (tight) and float32, compiled against the interpreter, awkward sizes, symbolic shapes."""
from __future__ import annotations

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.examples.seed import layernorm, matmul, matmul_naive, softmax

torch = pytest.importorskip("torch")
F = torch.nn.functional


@lang.kernel
def rmsnorm(x: lang.float64[R, C], w: lang.float64[C]) -> lang.float64[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        ss = 0.0
        for j in range(C):
            ss += x[i, j] * x[i, j]
        r = lang.rsqrt(ss / C + 1e-6)
        for j in range(C):
            out[i, j] = x[i, j] * r * w[j]
    return out


@lang.kernel
def rowsum(x: lang.float64[R, C]) -> lang.float64[R]:
    out = lang.zeros((R,), dtype=lang.float64)
    for i in range(R):
        for j in range(C):
            out[i] += x[i, j] * x[i, j]
    return out


@lang.kernel
def total(x: lang.float64[N], y: lang.float64[N]) -> lang.float64[1]:
    out = lang.empty(1, dtype=lang.float64)
    s = 0.0
    for i in range(N):
        s += x[i] * y[i]
    out[0] = lang.tanh(s)
    return out


@lang.kernel
def rowmax(x: lang.float64[R, C]) -> lang.float64[R]:
    out = lang.empty((R,), dtype=lang.float64)
    for i in range(R):
        m = -1e300
        for j in range(C):
            m = max(m, x[i, j])
        out[i] = m
    return out


@lang.kernel
def rowmin_scaled(x: lang.float64[R, C], w: lang.float64[C]) -> lang.float64[R]:
    out = lang.empty((R,), dtype=lang.float64)
    for i in range(R):
        m = x[i, 0] * w[0]
        for j in range(C):
            m = lang.minimum(m, x[i, j] * w[j])
        out[i] = m
    return out


@lang.kernel
def logsumexp(x: lang.float64[R, C]) -> lang.float64[R]:
    out = lang.empty((R,), dtype=lang.float64)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            s += lang.exp(x[i, j] - m)
        out[i] = m + lang.log(s)
    return out


@lang.kernel
def bias_gelu_rows(x: lang.float64[R, C], b: lang.float64[C], scale: lang.float64[R]) -> lang.float64[R, C]:
    """Broadcast reads along both axes: b[j] is shared by rows, scale[i] by columns."""
    out = lang.empty_like(x)
    for i in range(R):
        for j in range(C):
            z = (x[i, j] + b[j]) * scale[i]
            out[i, j] = 0.5 * z * (1.0 + lang.erf(z * 0.7071067811865476))
    return out


@lang.kernel
def softmax_any(x):
    out = lang.empty_like(x)
    R, C = x.shape
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            e = lang.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(C):
            out[i, j] = out[i, j] / s
    return out


def torch_grads(fn, *arrays, grads):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    torch.autograd.backward(outs, [torch.tensor(g) for g in grads])
    return [t.grad.numpy() for t in ts]


def rand(*shape, seed=0, dtype=np.float64):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


def check(kernel, ref, arrays, extra=(), out_shape=None, rtol=1e-11, atol=1e-12):
    """asc.grad of kernel (compiled and interpreted) against torch autograd of ref."""
    out = kernel(*arrays, *extra)
    g = rand(*out.shape, seed=99, dtype=out.dtype)
    got = asc.grad(kernel)(*arrays, *extra, g)
    got = got if isinstance(got, tuple) else (got,)
    want = torch_grads(ref, *[a.astype(np.float64) for a in arrays], grads=[g.astype(np.float64)])
    for a, w in zip(got, want):
        assert a.dtype == arrays[0].dtype
        np.testing.assert_allclose(a, w, rtol=rtol, atol=atol)
    interp = asc.grad(lang.kernel(target="interpret")(kernel.pyfunc))(*arrays, *extra, g)
    interp = interp if isinstance(interp, tuple) else (interp,)
    for a, b in zip(got, interp):
        np.testing.assert_allclose(a, b, rtol=1e-12 if a.dtype == np.float64 else 2e-5,
                                   atol=1e-12 if a.dtype == np.float64 else 1e-7)
    return got


@pytest.mark.parametrize("shape", [(1, 1), (3, 1), (1, 13), (7, 33), (16, 128)])
def test_softmax(shape):
    x = rand(*shape).astype(np.float32)
    check(softmax, lambda t: torch.softmax(t, -1), [x], rtol=2e-5, atol=2e-6)


def test_softmax_any_dtype_temporary_read_back_float64():
    check(softmax_any, lambda t: torch.softmax(t, -1), [rand(5, 17) * 3])


@pytest.mark.parametrize("shape", [(1, 2), (4, 7), (9, 64)])
def test_layernorm(shape):
    R, C = shape
    x, w, b = rand(R, C, seed=1).astype(np.float32), rand(C, seed=2).astype(np.float32), rand(C, seed=3).astype(
        np.float32)
    check(layernorm, lambda a, ww, bb: F.layer_norm(a, (C,), ww, bb, 1e-5), [x, w, b], extra=(1e-5,),
          rtol=2e-4, atol=2e-5)


def test_rmsnorm_float64():
    x, w = rand(6, 31, seed=4), rand(31, seed=5)
    check(rmsnorm, lambda a, ww: a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * ww, [x, w])


def test_reductions():
    x = rand(5, 9, seed=6)
    check(rowsum, lambda t: (t * t).sum(-1), [x])
    check(rowmax, lambda t: t.amax(-1), [x])
    y = rand(9, seed=7)
    check(rowmin_scaled, lambda t, w: (t * w).amin(-1), [x, y])
    a, b = rand(101, seed=8) * 0.1, rand(101, seed=9) * 0.1
    check(total, lambda p, q: torch.tanh((p * q).sum()).reshape(1), [a, b])


def test_max_goes_to_the_first_maximum_like_python():
    x = np.array([[1.0, 3.0, 3.0, 2.0], [5.0, 5.0, 1.0, 0.0]])
    g = np.array([1.0, 2.0])
    dx = asc.grad(rowmax)(x, g)
    np.testing.assert_array_equal(dx, [[0, 1, 0, 0], [2, 0, 0, 0]])


def test_logsumexp_and_broadcast_reads():
    x = rand(6, 11, seed=10) * 4
    check(logsumexp, lambda t: torch.logsumexp(t, -1), [x])
    b, s = rand(11, seed=11), rand(6, seed=12)
    check(bias_gelu_rows, lambda t, bb, ss: F.gelu((t + bb) * ss[:, None]), [x, b, s])


@pytest.mark.parametrize("mkn", [(1, 1, 1), (4, 6, 3), (13, 7, 17)])
def test_matmul(mkn):
    M, K, N = mkn
    A, B = rand(M, K, seed=13), rand(K, N, seed=14)
    check(matmul_naive, lambda a, b: a @ b, [A, B])
    A32, B32 = A.astype(np.float32), B.astype(np.float32)
    check(matmul_naive, lambda a, b: a @ b, [A32, B32], rtol=1e-5, atol=1e-5)


def test_seed_matmul_float16_initialized_in_the_loop():
    A, B = rand(8, 5, seed=15).astype(np.float16), rand(5, 6, seed=16).astype(np.float16)
    G = rand(8, 6, seed=17).astype(np.float16)
    dA, dB = asc.grad(matmul)(A, B, G)
    assert dA.dtype == np.float16 and dB.dtype == np.float16
    a, b, g = (v.astype(np.float64) for v in (A, B, G))
    np.testing.assert_allclose(dA, g @ b.T, rtol=2e-2, atol=2e-2)
    np.testing.assert_allclose(dB, a.T @ g, rtol=2e-2, atol=2e-2)


def test_zero_rows():
    x, w = np.zeros((0, 4)), rand(4, seed=18)
    dx, dw = asc.grad(rmsnorm)(x, w, np.zeros((0, 4)))
    assert dx.shape == (0, 4) and np.array_equal(dw, np.zeros(4))


def test_symbolic_shapes_one_backward_for_all_sizes():
    k = lang.kernel(dynamic_shape=True)(rmsnorm.pyfunc)
    g = asc.grad(k)
    for R, C in [(3, 5), (8, 2)]:
        x, w = rand(R, C, seed=R), rand(C, seed=C)
        check(k, lambda a, ww: a * torch.rsqrt(a.pow(2).mean(-1, keepdim=True) + 1e-6) * ww, [x, w])
    assert "range(R)" in g.source(rand(3, 5), rand(5), rand(3, 5))


def test_generated_backward_is_readable_and_row_parallel():
    x = rand(4, 8, seed=19).astype(np.float32)
    w, b = rand(8, seed=20).astype(np.float32), rand(8, seed=21).astype(np.float32)
    src = asc.grad(layernorm).source(x, w, b, 1e-5, x)
    assert "def layernorm__backward(" in src and "sv__rstd[i] = rstd" in src
    assert "d_w[j] += " in src and "d_x[i, j] = " in src


@lang.kernel
def mirrored(x: lang.float64[R, C]) -> lang.float64[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        for j in range(C):
            out[i, j] = x[i, j] * x[i, C - 1 - j]
    return out


@lang.kernel
def mirrored_dot(x: lang.float64[R, C]) -> lang.float64[R]:
    out = lang.empty((R,), dtype=lang.float64)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j] * x[i, C - 1 - j] * (j + 1.0)
        out[i] = s
    return out


def test_two_reads_of_one_row_at_different_elements_accumulate():
    x = rand(3, 6, seed=30)
    check(mirrored, lambda t: t * t.flip(-1), [x])
    src = asc.grad(mirrored_dot).source(x, x[:, 0])
    assert "d_x = lang.zeros_like(x)" in src          # two indices of x in one loop: no assignment
    w = torch.arange(1.0, 7.0, dtype=torch.float64)
    check(mirrored_dot, lambda t: (t * t.flip(-1) * w).sum(-1), [x])

"""asc.grad on element maps: backward kernels generated from the forward's IR, checked against PyTorch autograd;
refusals name the line and the reason."""
from __future__ import annotations

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.autodiff import AutodiffError
from asc.math import erf, pi, sqrt

torch = pytest.importorskip("torch")
F = torch.nn.functional


@lang.kernel
def gelu(x: lang.float64[N]) -> lang.float64[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))
    return out


@lang.kernel
def gelu_tanh(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        xi = x[i]
        out[i] = 0.5 * xi * (1.0 + lang.tanh(sqrt(2 / pi) * (xi + 0.044715 * xi * xi * xi)))
    return out


@lang.kernel
def swiglu(a: lang.float64[R, C], b: lang.float64[R, C]) -> lang.float64[R, C]:
    out = lang.empty_like(a)
    for i in range(R):
        for j in range(C):
            z = a[i, j]
            out[i, j] = z * lang.sigmoid(z) * b[i, j]
    return out


@lang.kernel
def mixed(x: lang.float64[N], y: lang.float64[N]):
    u = lang.empty_like(x)
    v = lang.empty_like(x)
    for i in range(N):
        u[i] = lang.maximum(x[i], y[i]) + lang.log(abs(x[i]) + 1.0)
        v[i] = x[i] / (1.0 + y[i] * y[i]) if x[i] > 0 else lang.exp(-x[i]) * lang.sin(y[i])
    return u, v


def torch_grads(fn, *arrays, grads=None):
    ts = [torch.tensor(a, requires_grad=True) for a in arrays]
    outs = fn(*ts)
    outs = outs if isinstance(outs, tuple) else (outs,)
    torch.autograd.backward(outs, [torch.tensor(g) for g in grads])
    return [t.grad.numpy() for t in ts]


def test_gelu_matches_torch_autograd():
    x = np.random.default_rng(0).standard_normal(1000)
    g = np.random.default_rng(1).standard_normal(1000)
    dx = asc.grad(gelu)(x, g)
    np.testing.assert_allclose(dx, torch_grads(F.gelu, x, grads=[g])[0], rtol=1e-12, atol=1e-14)


def test_gelu_tanh_float32():
    x = np.random.default_rng(2).standard_normal(4097).astype(np.float32)
    g = np.ones_like(x)
    dx = asc.grad(gelu_tanh)(x, g)
    assert dx.dtype == np.float32
    ref = torch_grads(lambda t: F.gelu(t, approximate="tanh"), x.astype(np.float64), grads=[g.astype(np.float64)])
    np.testing.assert_allclose(dx, ref[0], rtol=2e-5, atol=2e-6)


def test_swiglu_two_inputs_and_interpreter():
    rng = np.random.default_rng(3)
    a, b, g = (rng.standard_normal((7, 33)) for _ in range(3))
    da, db = asc.grad(swiglu)(a, b, g)
    ra, rb = torch_grads(lambda p, q: F.silu(p) * q, a, b, grads=[g])
    np.testing.assert_allclose(da, ra, rtol=1e-12)
    np.testing.assert_allclose(db, rb, rtol=1e-12)
    ia, ib = asc.grad(lang.kernel(target="interpret")(swiglu.pyfunc))(a, b, g)
    np.testing.assert_allclose(ia, da, rtol=1e-14)
    np.testing.assert_allclose(ib, db, rtol=1e-14)


def test_two_outputs_branches_and_math():
    rng = np.random.default_rng(4)
    x, y, gu, gv = (rng.standard_normal(500) for _ in range(4))
    dx, dy = asc.grad(mixed)(x, y, gu, gv)

    def ref(tx, ty):
        u = torch.maximum(tx, ty) + torch.log(tx.abs() + 1.0)
        v = torch.where(tx > 0, tx / (1.0 + ty * ty), torch.exp(-tx) * torch.sin(ty))
        return u, v
    rx, ry = torch_grads(ref, x, y, grads=[gu, gv])
    np.testing.assert_allclose(dx, rx, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(dy, ry, rtol=1e-12, atol=1e-14)
    assert "def mixed__backward" in asc.grad(mixed).source(x, y, gu, gv)


def test_torch_op_with_autodiff_gradcheck():
    import asc.torch as asct
    op = asct.op(swiglu, name="asc_autodiff_tests::swiglu", autodiff=True)
    a = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    b = torch.randn(4, 6, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(op, (a, b))


@lang.kernel
def branch(x: lang.float64[N], y: lang.float64[N]) -> lang.float64[N]:
    out = lang.empty_like(x)
    for i in range(N):
        if x[i] > 0:
            out[i] = x[i] * y[i]
        elif y[i] > 0:
            out[i] = lang.exp(y[i])
        else:
            out[i] = 0.0
    return out


def test_if_statements_are_conditional_expressions():
    # (they were refused: an if statement is read as the conditional expressions it amounts to)
    rng = np.random.default_rng(5)
    x, y, g = (rng.standard_normal(300) for _ in range(3))
    want = torch_grads(lambda a, b: torch.where(a > 0, a * b, torch.where(b > 0, torch.exp(b), 0.0)), x, y,
                       grads=[g])
    for k in (branch, lang.kernel(target="interpret")(branch.pyfunc)):
        for got, w in zip(asc.grad(k)(x, y, g), want):
            np.testing.assert_allclose(got, w, rtol=1e-12, atol=1e-14)


def line_of(marker):
    with open(__file__) as f:
        return next(i for i, t in enumerate(f, 1) if marker in t and "line_of" not in t)


@lang.kernel
def scatter(x: lang.float64[N], idx: lang.int64[N]) -> lang.float64[N]:
    out = lang.zeros_like(x)
    for i in range(N):
        out[idx[i]] = x[i]  # SCATTER
    return out


@lang.kernel
def inplace(x: lang.float64[N]):
    for i in range(N):
        x[i] = x[i] * 2.0  # INPLACE


@lang.kernel
def newton(x: lang.float64[N]) -> lang.float64[N]:
    out = lang.empty_like(x)
    for i in range(N):
        v = x[i]
        while v > 1.0:  # WHILE
            v = v * 0.5
        out[i] = v
    return out


@lang.kernel
def cumsum(x: lang.float64[N]) -> lang.float64[N]:
    out = lang.empty_like(x)
    out[0] = x[0]
    for i in range(1, N):  # RECURRENCE
        out[i] = out[i - 1] + x[i]
    return out


@lang.kernel
def prefix(x: lang.float64[N]) -> lang.float64[N]:
    out = lang.empty_like(x)
    s = 0.0
    for i in range(N):
        s += x[i]
        out[i] = s  # RUNNING
    return out


@lang.kernel
def shifted(x: lang.float64[N]) -> lang.float64[N]:
    out = lang.zeros_like(x)
    t = lang.empty_like(x)
    for i in range(N):
        t[i] = x[i] * 2.0
    for i in range(N):
        out[i] = t[N - 1 - i]  # REVERSED
    return out


@lang.kernel
def product(x: lang.float64[N]) -> lang.float64[1]:
    out = lang.empty(1, dtype=lang.float64)
    p = 1.0
    for i in range(N):
        p = p * x[i]  # PRODUCT
    out[0] = p
    return out


@pytest.mark.parametrize("kernel,args,marker,reason", [
    (scatter, (np.ones(4), np.arange(4)), "# SCATTER", "not at the loop indices"),
    (inplace, (np.ones(4),), "# INPLACE", "overwrites its input 'x'"),
    (newton, (np.ones(4),), "# WHILE", "while loops (a data-dependent trip count) are not differentiated"),
    (cumsum, (np.ones(4),), "# RECURRENCE", "only loops `for i in range(n)`"),
    (prefix, (np.ones(4),), "# RUNNING", "the running value of 's' is used inside the loop that accumulates it"),
    (shifted, (np.ones(4),), "# REVERSED", "an element another iteration writes"),
    (product, (np.ones(4),), "# PRODUCT", "not differentiated (use acc += e"),
])
def test_refusals_name_the_line_and_the_reason(kernel, args, marker, reason):
    g = np.ones(1 if kernel is product else 4)
    with pytest.raises(AutodiffError) as ei:
        asc.grad(kernel)(*args, g)
    e = ei.value
    assert "cannot differentiate automatically" in str(e) and reason in str(e)
    assert e.loc.line == line_of(marker)

"""asc.grad of dynamic_shape=True kernels whose axes the annotations leave free (`lang.float32[None]`,
`lang.float32[None, None]`, `lang.Tensor`, no annotation): the generated backward named each free axis's size
asc_dim_x_0, a name the interpreter does not show to a kernel, so it failed there with `NameError: asc_dim_x_0`.
The backward now names such a size after its argument (`x__size0`); it runs on every target (cpu with and without
memory checks, the interpreter, ascend-sim), gradients checked against torch's autograd, one backward for every
size."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc
import asc.language as lang

torch = pytest.importorskip("torch")

TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]
N = lang.dim("N")


@pytest.fixture
def checks():
    """checks(on): memory-checked builds for the forward and the generated backward, until the test ends."""
    def use(on: bool):
        if on:
            lang.enable_memory_check()
    yield use
    lang.disable_memory_check()


def run(fn, *args):
    with warnings.catch_warnings():     # ascend-sim: scalar code, where it takes it (a warning says so)
        warnings.simplefilter("ignore")
        return fn(*args)


def map_1d(x: lang.float32[None]):
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i] + lang.exp(x[i])
    return out


def map_tensor(x: lang.Tensor, y: lang.Tensor):
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = lang.tanh(x[i]) * y[i]
    return out


def map_unannotated(x, y):
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] / (1.0 + y[i] * y[i])
    return out


def center_rows(x: lang.float32[None, None], w: lang.float32[None]):
    """Each row minus its mean (a division by the free size), times w: a row program over two free axes."""
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        s = 0.0
        for j in range(x.shape[1]):
            s += x[i, j]
        m = s / x.shape[1]
        for j in range(x.shape[1]):
            out[i, j] = (x[i, j] - m) * w[j]
    return out


def rms_rows(x: lang.float32[N, None]):
    """A named axis and a free one together."""
    out = lang.empty_like(x)
    for i in range(N):
        s = 0.0
        for j in range(x.shape[1]):
            s += x[i, j] * x[i, j]
        r = 1.0 / lang.sqrt(s / x.shape[1] + 1e-5)
        for j in range(x.shape[1]):
            out[i, j] = x[i, j] * r
    return out


def _t(a):
    return torch.tensor(np.asarray(a), dtype=torch.float64, requires_grad=True)


def _close(got, ref):
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5 * max(float(np.abs(ref).max()), 1.0))


def _refs(torch_fn, inputs, go):
    ts = [_t(a) for a in inputs]
    (torch_fn(*ts) * torch.tensor(go, dtype=torch.float64)).sum().backward()
    return [t.grad.numpy() for t in ts]


CASES = {
    "map_1d": (map_1d, lambda x: x * x + torch.exp(x), lambda r, n: [r.standard_normal(n)]),
    "map_tensor": (map_tensor, lambda x, y: torch.tanh(x) * y,
                   lambda r, n: [r.standard_normal(n), r.standard_normal(n)]),
    "map_unannotated": (map_unannotated, lambda x, y: x / (1 + y * y),
                        lambda r, n: [r.standard_normal(n), r.standard_normal(n)]),
    "center_rows": (center_rows, lambda x, w: (x - x.mean(1, keepdim=True)) * w,
                    lambda r, n: [r.standard_normal((3, n)), r.standard_normal(n)]),
    "rms_rows": (rms_rows, lambda x: x * torch.rsqrt((x * x).mean(1, keepdim=True) + 1e-5),
                 lambda r, n: [r.standard_normal((2, n))]),
}


@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("target,checked", TARGETS)
def test_backward_of_free_axes_against_torch(case, target, checked, checks):
    checks(checked)
    fn, torch_fn, make = CASES[case]
    kern = lang.kernel(target=target, dynamic_shape=True)(fn)
    g = asc.grad(kern)
    rng = np.random.default_rng(len(case))
    for n in (17, 1):
        inputs = [a.astype(np.float32) for a in make(rng, n)]
        out = run(kern, *inputs)
        go = rng.standard_normal(out.shape).astype(np.float32)
        got = run(g, *inputs, go)
        got = got if isinstance(got, tuple) else (got,)
        for have, want in zip(got, _refs(torch_fn, inputs, go), strict=True):
            _close(have, want)
    assert len(g._backwards) == 1            # one backward serves every size
    src = g.source(*inputs, go)
    assert "asc_dim_" not in src and "x__size" in src


def x__size0_user(x: lang.float32[None]):
    """A kernel that uses the name the backward would give x's size: the backward takes another."""
    x__size0 = 2.0
    out = lang.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * x[i] * x__size0
    return out


@pytest.mark.parametrize("target,checked", TARGETS)
def test_a_name_the_kernel_uses_is_not_taken(target, checked, checks):
    checks(checked)
    kern = lang.kernel(target=target, dynamic_shape=True)(x__size0_user)
    g = asc.grad(kern)
    x = np.linspace(-1, 1, 6, dtype=np.float32)
    _close(run(g, x, np.ones(6, np.float32)), 4 * x.astype(np.float64))
    src = g.source(x, np.ones(6, np.float32))
    assert "x: lang.float32[x__size0_]" in src and "range(x__size0_)" in src

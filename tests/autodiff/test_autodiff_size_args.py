"""asc.grad of kernels whose int arguments are sizes of allocations (issue 38, item 2): a group norm's statistics
over `lang.empty((N, G))`, G an int argument, failed inside asc with SizeParamNeeded ("this message means it was
not bound"). The backward now takes the forward's specialization (G bound as a size, its value part of the
backward's key), so it runs on every target (cpu with and without memory checks, the interpreter, ascend-sim),
with specialized and dynamic shapes; gradients are checked against torch's autograd. A group norm that is not a row
program (two loop nests over temporaries) is refused at its line with AutodiffError, and an output gradient of the
wrong shape is a ShapeError before anything runs."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc
import asc.language as lang
from asc.autodiff import AutodiffError
from asc.errors import ShapeError

torch = pytest.importorskip("torch")
F = torch.nn.functional

N, C, L = lang.dim("N"), lang.dim("C"), lang.dim("L")

TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]


@pytest.fixture
def checks():
    """checks(on): memory-checked builds for the forward and the generated backward, until the test ends."""
    def use(on: bool):
        if on:
            lang.enable_memory_check()
    yield use
    lang.disable_memory_check()


def run(fn, *args):
    with warnings.catch_warnings():     # ascend-sim: scalar code (a warning says so)
        warnings.simplefilter("ignore")
        return fn(*args)


def group_stats(x: lang.float32[N, C], G: int, eps: float):
    cg = C // G
    mean = lang.empty((N, G), dtype=lang.float32)
    rstd = lang.empty((N, G), dtype=lang.float32)
    for n in range(N):
        for g in range(G):
            s = 0.0
            for j in range(cg):
                s += x[n, g * cg + j]
            m = s / cg
            v = 0.0
            for j in range(cg):
                d = x[n, g * cg + j] - m
                v += d * d
            mean[n, g] = m
            rstd[n, g] = 1.0 / lang.sqrt(v / cg + eps)
    return mean, rstd


def group_norm(x: lang.float32[N, C], w: lang.float32[C], b: lang.float32[C], G: int, eps: float):
    """torch's group norm of x viewed as (N, C, 1), written per group: the output is (N, G, C // G)."""
    cg = C // G
    out = lang.empty((N, G, cg), dtype=lang.float32)
    for n in range(N):
        for g in range(G):
            s = 0.0
            for j in range(cg):
                s += x[n, g * cg + j]
            m = s / cg
            v = 0.0
            for j in range(cg):
                d = x[n, g * cg + j] - m
                v += d * d
            r = 1.0 / lang.sqrt(v / cg + eps)
            for j in range(cg):
                out[n, g, j] = (x[n, g * cg + j] - m) * r * w[g * cg + j] + b[g * cg + j]
    return out


def group_stats_k(x: lang.float32[N, C], G: int, K: int, eps: float):
    """The statistics of the first G groups of K channels (G * K <= C), both int arguments: no //, so it is
    differentiated with dynamic shapes too."""
    mean = lang.empty((N, G), dtype=lang.float32)
    rstd = lang.empty((N, G), dtype=lang.float32)
    for n in range(N):
        for g in range(G):
            s = 0.0
            for j in range(K):
                s += x[n, g * K + j]
            m = s / K
            v = 0.0
            for j in range(K):
                d = x[n, g * K + j] - m
                v += d * d
            mean[n, g] = m
            rstd[n, g] = 1.0 / lang.sqrt(v / K + eps)
    return mean, rstd


def _t(a, grad=False):
    return torch.tensor(np.asarray(a), dtype=torch.float64, requires_grad=grad)


def _stats_ref(x, G, K, gm, gr, eps=1e-5):
    """(mean, rstd, d_x) by torch's autograd, in float64, of the statistics of the first G groups of K channels."""
    xt = _t(x, True)
    xv = xt[:, :G * K].reshape(x.shape[0], G, K)
    mean = xv.mean(-1)
    rstd = torch.rsqrt(xv.var(-1, unbiased=False) + eps)
    ((mean * _t(gm)).sum() + (rstd * _t(gr)).sum()).backward()
    return mean.detach().numpy(), rstd.detach().numpy(), xt.grad.numpy()


def _close(got, ref):
    """float32 results against float64 ones: a few roundings of float32, relative to the largest magnitude."""
    got, ref = np.asarray(got, np.float64), np.asarray(ref, np.float64)
    assert got.shape == ref.shape, (got.shape, ref.shape)
    np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-5 * max(float(np.abs(ref).max()), 1.0))


@pytest.mark.parametrize("target,checked", TARGETS)
def test_group_statistics_sized_by_an_int_argument(target, checked, checks):
    checks(checked)
    kern = lang.kernel(target=target)(group_stats)
    g = asc.grad(kern)
    rng = np.random.default_rng(0)
    for G in (4, 2, 4, 8):                       # the backward of each G is its own (G is a size): 4 comes back
        x = rng.standard_normal((3, 8)).astype(np.float32)
        gm = rng.standard_normal((3, G)).astype(np.float32)
        gr = rng.standard_normal((3, G)).astype(np.float32)
        mean, rstd = run(kern, x, G, 1e-5)
        m_ref, r_ref, dx_ref = _stats_ref(x, G, 8 // G, gm, gr)
        _close(mean, m_ref)
        _close(rstd, r_ref)
        _close(run(g, x, G, 1e-5, gm, gr), dx_ref)
    assert len(g._backwards) == 3


@pytest.mark.parametrize("target,checked", TARGETS)
def test_group_norm_against_torch(target, checked, checks):
    checks(checked)
    kern = lang.kernel(target=target)(group_norm)
    g = asc.grad(kern)
    rng = np.random.default_rng(1)
    for n, c, G in ((2, 6, 3), (3, 8, 2), (1, 8, 4)):
        x = rng.standard_normal((n, c)).astype(np.float32)
        w, b = rng.standard_normal(c).astype(np.float32), rng.standard_normal(c).astype(np.float32)
        go = rng.standard_normal((n, G, c // G)).astype(np.float32)
        xt, wt, bt = _t(x, True), _t(w, True), _t(b, True)
        ref = F.group_norm(xt[:, :, None], G, wt, bt, 1e-5).reshape(n, G, c // G)
        (ref * _t(go)).sum().backward()
        _close(run(kern, x, w, b, G, 1e-5), ref.detach().numpy())
        dx, dw, db = run(g, x, w, b, G, 1e-5, go)
        _close(dx, xt.grad.numpy())
        _close(dw, wt.grad.numpy())
        _close(db, bt.grad.numpy())


@pytest.mark.parametrize("target,checked", TARGETS)
def test_dynamic_shapes_one_backward_for_every_size(target, checked, checks):
    checks(checked)
    kern = lang.kernel(target=target, dynamic_shape=True)(group_stats_k)
    g = asc.grad(kern)
    rng = np.random.default_rng(2)
    for n, c, G, K in ((3, 8, 4, 2), (2, 9, 2, 4), (4, 7, 3, 2)):
        x = rng.standard_normal((n, c)).astype(np.float32)
        gm = rng.standard_normal((n, G)).astype(np.float32)
        gr = rng.standard_normal((n, G)).astype(np.float32)
        mean, rstd = run(kern, x, G, K, 1e-5)
        m_ref, r_ref, dx_ref = _stats_ref(x, G, K, gm, gr)
        _close(mean, m_ref)
        _close(rstd, r_ref)
        _close(run(g, x, G, K, 1e-5, gm, gr), dx_ref)
    assert len(g._backwards) == 1
    # an output gradient that is not the output's shape: refused before anything reads it (under dynamic shapes
    # the backward's annotation cannot say G, an int argument)
    x = rng.standard_normal((3, 8)).astype(np.float32)
    with pytest.raises(ShapeError, match=r"asc.grad\(group_stats_k\): output gradient 1 must have the shape of "
                                         r"output 1, \(3, 4\); got \(3, 2\)"):
        run(g, x, 4, 2, 1e-5, np.ones((3, 2), np.float32), np.ones((3, 4), np.float32))


def group_norm_two_pass(x: lang.float32[N, C, L], w: lang.float32[C], b: lang.float32[C], G: int, eps: float):
    """The group norm a user ports first: statistics into (N, G) temporaries, then a map over every element."""
    out = lang.empty_like(x)
    mean = lang.zeros((N, G), dtype=lang.float32)
    rstd = lang.zeros((N, G), dtype=lang.float32)
    cg = C // G
    for n in range(N):
        for g in range(G):
            s = 0.0
            for c in range(cg):
                for t in range(L):
                    s += x[n, g * cg + c, t]
            m = s / (cg * L)
            v = 0.0
            for c in range(cg):
                for t in range(L):
                    d = x[n, g * cg + c, t] - m
                    v += d * d
            mean[n, g] = m
            rstd[n, g] = 1.0 / lang.sqrt(v / (cg * L) + eps)
    for n in range(N):
        for c in range(C):
            for t in range(L):
                k = c // cg
                out[n, c, t] = (x[n, c, t] - mean[n, k]) * rstd[n, k] * w[c] + b[c]
    return out


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_two_pass_group_norm_is_refused_at_its_line(target, checked, dynamic, checks):
    checks(checked)
    kern = lang.kernel(target=target, dynamic_shape=dynamic)(group_norm_two_pass)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 6, 5)).astype(np.float32)
    w, b = rng.standard_normal(6).astype(np.float32), rng.standard_normal(6).astype(np.float32)
    if not (target == "ascend-sim" and dynamic):        # (ascend: no run-time sized temporaries, see below)
        ref = F.group_norm(_t(x), 3, _t(w), _t(b), 1e-5).numpy()
        _close(run(kern, x, w, b, 3, 1e-5), ref)
    with pytest.raises(AutodiffError, match=r"test_autodiff_size_args.py:\d+:\d+: cannot differentiate "
                                            r"automatically: loops nested inside an inner loop") as ei:
        asc.grad(kern)(x, w, b, 3, 1e-5, np.ones_like(x))
    assert "    for " in str(ei.value)         # the caret under one of its loops


def test_dynamic_floor_division_of_sizes_is_refused_at_its_line():
    # under dynamic_shape=True `cg = C // G` stays a statement before the loops (an expression of sizes, not a
    # constant), so the kernel is not a row program: refused at a line of it, never run wrong
    kern = lang.kernel(dynamic_shape=True)(group_stats)
    x = np.ones((2, 8), np.float32)
    with pytest.raises(AutodiffError, match=r"test_autodiff_size_args.py:\d+:\d+: cannot differentiate "
                                            r"automatically"):
        asc.grad(kern)(x, 2, 1e-5, np.ones((2, 2), np.float32), np.ones((2, 2), np.float32))

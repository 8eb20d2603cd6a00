"""asc.grad of reads under a guard: shifted windows (`x[l - 3 + k] if l - 3 + k >= 0 else 0.0`, the same under an
if statement), windows shifted the other way with an upper guard, strided windows, clamped indices, 2-D windows
(a perfect nest of inner loops), a max over a guarded window, and a guard that reads a row scalar. The backward must
write each element's gradient under the guard of its read: before, it accumulated into d_x[l - 3 + k] for every k
(index -3: MemoryCheckError in the interpreter and checked builds, writes outside the array in plain builds).
Gradients against torch.autograd, on every target (cpu with and without the memory check, interpret, ascend-sim), in
float32 and 16-bit; refusals of the if statements that cannot be read name the line."""
from __future__ import annotations

import inspect
import math

import ml_dtypes
import numpy as np
import pytest

import asc
import asc.language as lang
from asc.autodiff import AutodiffError

torch = pytest.importorskip("torch")
F = torch.nn.functional

BF16 = np.dtype(ml_dtypes.bfloat16)


# ---------------------------------------------------------------------------------------------------- the kernels

@lang.kernel
def causal(x, w):                       # a causal depthwise convolution (the kernel)
    B, D, L = x.shape
    out = lang.empty_like(x)
    for b in range(B):
        for d in range(D):
            for l in range(L):
                acc = 0.0
                for k in range(4):
                    acc += w[d, k] * (x[b, d, l - 3 + k] if l - 3 + k >= 0 else 0.0)
                out[b, d, l] = acc
    return out


@lang.kernel
def anticausal(x, w):                   # shifted the other way, an upper guard, written as an if statement
    B, D, L = x.shape
    out = lang.empty_like(x)
    for b in range(B):
        for d in range(D):
            for l in range(L):
                acc = 0.0
                for k in range(4):
                    if l + 3 - k < L:
                        v = x[b, d, l + 3 - k]
                        acc += w[d, k] * v
                out[b, d, l] = acc
    return out


@lang.kernel
def strided(x, w):                      # stride 2, padding 1 on both sides
    B, D, L = x.shape
    out = lang.empty((B, D, (L - 1) // 2 + 1), dtype=x.dtype)
    for b in range(B):
        for d in range(D):
            for l in range((L - 1) // 2 + 1):
                acc = 0.0
                for k in range(3):
                    acc += w[d, k] * (x[b, d, 2 * l + k - 1] if 0 <= 2 * l + k - 1 < L else 0.0)
                out[b, d, l] = acc
    return out


@lang.kernel
def clamped(x, w):                      # replicate padding: a clamp instead of a guard
    B, D, L = x.shape
    out = lang.empty_like(x)
    for b in range(B):
        for d in range(D):
            for l in range(L):
                acc = 0.0
                for k in range(4):
                    acc += w[d, k] * x[b, d, max(l - 3 + k, 0)]
                out[b, d, l] = acc
    return out


@lang.kernel
def conv2d(x, w):                       # a 3x3 window with zero padding, two nested inner loops
    H, W = x.shape
    out = lang.empty_like(x)
    for i in range(H):
        for j in range(W):
            acc = 0.0
            for di in range(3):
                for dj in range(3):
                    ii = i + di - 1
                    jj = j + dj - 1
                    if 0 <= ii < H and 0 <= jj < W:
                        acc += w[di, dj] * x[ii, jj]
            out[i, j] = acc
    return out


@lang.kernel
def laplacian(x):                       # a 2-D stencil of guarded reads, no inner loop
    H, W = x.shape
    out = lang.empty_like(x)
    for i in range(H):
        for j in range(W):
            up = x[i - 1, j] if i > 0 else 0.0
            down = x[i + 1, j] if i + 1 < H else 0.0
            left = x[i, j - 1] if j > 0 else 0.0
            right = x[i, j + 1] if j + 1 < W else 0.0
            out[i, j] = up + down + left + right - 4.0 * x[i, j]
    return out


@lang.kernel
def maxpool(x):                         # a max over a guarded window (padding -inf, as torch's max_pool1d)
    R, L = x.shape
    out = lang.empty_like(x)
    for r in range(R):
        for l in range(L):
            m = -math.inf
            for k in range(3):
                if 0 <= l + k - 1 < L:
                    m = max(m, x[r, l + k - 1])
            out[r, l] = m
    return out


@lang.kernel
def row_gated(x, w):                    # a guard that reads a row scalar: w's gradient is summed over the rows
    R, C = x.shape
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        for j in range(C):
            out[i, j] = w[j + 1] * x[i, j] if j + 1 < C and s > 0.0 else x[i, j]
    return out


# ---------------------------------------------------------------------------------------------------- references

def window(x, idx, mask=None):
    """x[..., idx] along the last axis (idx a LongTensor), 0 where mask is False."""
    v = x[..., idx.clamp(0, x.shape[-1] - 1)]
    return v if mask is None else torch.where(mask, v, torch.zeros((), dtype=x.dtype))


def conv1d_ref(x, w, index, taps, lout=None):
    l = torch.arange(lout or x.shape[-1])
    out = 0
    for k in range(taps):
        idx = index(l, k)
        out = out + w[:, k, None] * window(x, idx, (idx >= 0) & (idx < x.shape[-1]))
    return out


REFS = {
    "causal": lambda x, w: conv1d_ref(x, w, lambda l, k: l - 3 + k, 4),
    "anticausal": lambda x, w: conv1d_ref(x, w, lambda l, k: l + 3 - k, 4),
    "strided": lambda x, w: conv1d_ref(x, w, lambda l, k: 2 * l + k - 1, 3, (x.shape[-1] - 1) // 2 + 1),
    "clamped": lambda x, w: sum(w[:, k, None] * window(x, (torch.arange(x.shape[-1]) - 3 + k).clamp(min=0))
                                for k in range(4)),
    "conv2d": lambda x, w: F.conv2d(x[None, None], w[None, None], padding=1)[0, 0],
    "laplacian": lambda x: F.conv2d(x[None, None], torch.tensor([[0., 1., 0.], [1., -4., 1.], [0., 1., 0.]],
                                                                dtype=x.dtype)[None, None], padding=1)[0, 0],
    "maxpool": lambda x: F.max_pool1d(x[None], 3, 1, padding=1)[0],
    "row_gated": lambda x, w: torch.where((torch.arange(x.shape[1]) + 1 < x.shape[1]) & (x.sum(1, keepdim=True) > 0),
                                          torch.cat([w[1:], w[:1]])[None] * x, x),
}

KERNELS = {k.__name__: k for k in (causal, anticausal, strided, clamped, conv2d, laplacian, maxpool, row_gated)}

SHAPES = {"causal": ((2, 3, 9), (3, 4)), "anticausal": ((2, 3, 9), (3, 4)), "strided": ((2, 3, 9), (3, 3)),
          "clamped": ((2, 3, 9), (3, 4)), "conv2d": ((6, 7), (3, 3)), "laplacian": ((5, 6),),
          "maxpool": ((3, 10),), "row_gated": ((5, 6), (6,))}

TARGETS = [("interpret", False), ("cpu", False), ("cpu", True), ("ascend-sim", False)]
TARGET_IDS = ["interpret", "cpu", "cpu-checked", "ascend-sim"]


def inputs(name, dtype, seed=0):
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(s).astype(dtype) for s in SHAPES[name]]
    if name == "row_gated":
        args[0][::2] = np.abs(args[0][::2])        # rows with a positive sum and rows with a negative one
        args[0][1::2] = -np.abs(args[0][1::2])
    return args


def torch_grads(name, args, g):
    ts = [torch.tensor(a.astype(np.float64), requires_grad=True) for a in args]
    out = REFS[name](*ts)
    out.backward(torch.tensor(g.astype(np.float64)))
    return out.detach().numpy(), [t.grad.numpy() for t in ts]


def run(name, target, checked, args, g):
    k = lang.kernel(target=target)(KERNELS[name].pyfunc)
    try:
        if checked:
            lang.enable_memory_check()
        out = k(*args)
        got = asc.grad(k)(*args, g)
    finally:
        lang.disable_memory_check()
    return out, got if isinstance(got, tuple) else (got,)


TOL = {np.dtype(np.float32): (1e-5, 1e-5), np.dtype(np.float16): (2e-3, 4e-3), BF16: (1e-2, 3e-2)}


def check(name, target, checked, dtype, seed=0):
    args = inputs(name, dtype, seed)
    out_shape = REFS[name](*(torch.tensor(a.astype(np.float64)) for a in args)).shape
    g = np.random.default_rng(seed + 100).standard_normal(tuple(out_shape)).astype(dtype)
    want_out, want = torch_grads(name, args, g)
    out, got = run(name, target, checked, args, g)
    rtol, atol = TOL[np.dtype(dtype)]
    np.testing.assert_allclose(out.astype(np.float64), want_out, rtol=rtol, atol=atol)
    assert len(got) == len(want)
    for a, b in zip(got, want):
        assert a.dtype == np.dtype(dtype) and a.shape == b.shape
        np.testing.assert_allclose(a.astype(np.float64), b, rtol=rtol, atol=atol)


@pytest.mark.parametrize("target,checked", TARGETS, ids=TARGET_IDS)
@pytest.mark.parametrize("name", list(KERNELS))
def test_guarded_reads_float32(name, target, checked):
    check(name, target, checked, np.float32)


@pytest.mark.parametrize("target,checked", TARGETS, ids=TARGET_IDS)
@pytest.mark.parametrize("name,dtype", [("causal", BF16), ("anticausal", np.float16), ("conv2d", np.float16),
                                        ("maxpool", BF16)], ids=["causal-bf16", "anticausal-f16", "conv2d-f16",
                                                                 "maxpool-bf16"])
def test_guarded_reads_16bit(name, dtype, target, checked):
    check(name, target, checked, dtype, seed=1)


def test_large_causal_on_a_plain_build_matches_torch():
    # the size: the unguarded backward wrote outside d_x here and the process died with SIGSEGV (the checked
    # builds above show that no write leaves the arrays)
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 256, 1024)).astype(np.float32)
    w = rng.standard_normal((256, 4)).astype(np.float32)
    g = rng.standard_normal(x.shape).astype(np.float32)
    dx, dw = asc.grad(causal)(x, w, g)
    _, (want_dx, want_dw) = torch_grads("causal", [x, w], g)
    np.testing.assert_allclose(dx, want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(dw, want_dw, rtol=1e-4, atol=1e-3)


@lang.kernel
def pick(a, b, c):
    N = a.shape[0]
    out = lang.empty_like(a)
    for i in range(N):
        out[i] = a[i] if c[i] > 0.0 else b[i]
    return out


@pytest.mark.parametrize("target,checked", TARGETS, ids=TARGET_IDS)
def test_the_branch_not_taken_gets_zero_not_inf_times_zero(target, checked):
    # as torch.where: an infinite output gradient gives 0 to the operand not selected (inf * 0 would be NaN)
    a, b = np.arange(1.0, 5.0, dtype=np.float32), -np.arange(1.0, 5.0, dtype=np.float32)
    c = np.array([1.0, -1.0, 1.0, -1.0], np.float32)
    g = np.array([np.inf, np.inf, -np.inf, 1.0], np.float32)
    k = lang.kernel(target=target)(pick.pyfunc)
    try:
        if checked:
            lang.enable_memory_check()
        da, db, dc = asc.grad(k)(a, b, c, g)
    finally:
        lang.disable_memory_check()
    np.testing.assert_array_equal(da, [np.inf, 0.0, -np.inf, 0.0])
    np.testing.assert_array_equal(db, [0.0, np.inf, 0.0, 1.0])
    np.testing.assert_array_equal(dc, np.zeros(4, np.float32))


# ---------------------------------------------------------------------------------------------------- refusals

@lang.kernel
def loop_in_if(x):
    R, C = x.shape
    out = lang.empty((R,), dtype=x.dtype)
    for i in range(R):
        s = 0.0
        if i > 0:
            for j in range(C):  # LOOP
                s += x[i, j]
        out[i] = s
    return out


@lang.kernel
def cond_reads_branch(x):
    N = x.shape[0]
    out = lang.empty_like(x)
    for i in range(N):
        a = x[i]
        b = 0.0
        if a > 0.0:  # COND
            a = a * 2.0
            b = a
        out[i] = a + b
    return out


@lang.kernel
def triangular(x):
    R, C = x.shape
    out = lang.empty((R,), dtype=x.dtype)
    for i in range(R):
        s = 0.0
        for j in range(C):
            for k in range(j):  # TRIANGLE
                s += x[i, k]
        out[i] = s
    return out


def line_of(k, marker):
    lines, first = inspect.getsourcelines(k.pyfunc)
    return first + next(i for i, t in enumerate(lines) if marker in t)


@pytest.mark.parametrize("kernel,marker,reason", [
    (loop_in_if, "# LOOP", "a loop inside an if statement"),
    (cond_reads_branch, "# COND", "the condition reads 'a', which the if statement assigns"),
    (triangular, "# TRIANGLE", "depends on an enclosing loop's index"),
])
def test_refusals_name_the_line(kernel, marker, reason):
    x = np.ones((3, 4), np.float32) if kernel is not cond_reads_branch else np.ones(4, np.float32)
    g = np.ones(3 if kernel is not cond_reads_branch else 4, np.float32)
    with pytest.raises(AutodiffError) as ei:
        asc.grad(kernel)(x, g)
    assert reason in str(ei.value)
    assert ei.value.loc.line == line_of(kernel, marker)

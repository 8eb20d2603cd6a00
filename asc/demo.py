"""`python -m asc demo`: compiles the seed's kernels, checks them against NumPy, and times them against NumPy and
PyTorch (when installed)."""
from __future__ import annotations

import math
import os
import statistics
import time

import numpy as np

from .examples import seed, seed_tensor

N = 1 << 22            # elements for the 1-D kernels
ROWS, COLS = 1024, 4096  # SwishGLU


def _erf(x):
    try:
        from scipy.special import erf
        return erf(x)
    except ImportError:
        return np.vectorize(math.erf, otypes=[x.dtype])(x)


def _median_time(fn, repeat=7, min_time=0.05):
    fn()  # warm
    times = []
    t_end = time.perf_counter() + 10.0
    for _ in range(repeat):
        t0 = time.perf_counter()
        n = 0
        while True:
            fn()
            n += 1
            if time.perf_counter() - t0 >= min_time or n >= 50:
                break
        times.append((time.perf_counter() - t0) / n)
        if time.perf_counter() > t_end:
            break
    return statistics.median(times)


def _torch():
    try:
        import torch
        torch.set_num_threads(max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1))
        return torch
    except ImportError:
        return None


def cases(torch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    y = rng.standard_normal(N).astype(np.float32)
    a1024, b1024 = x[:1024].copy(), y[:1024].copy()
    xw = (rng.standard_normal((ROWS, COLS)) * 2).astype(np.float16)
    xv = (rng.standard_normal((ROWS, COLS)) * 2).astype(np.float16)
    s2 = np.float32(math.sqrt(2.0))
    c = np.float32(math.sqrt(2 / math.pi))
    tx, ty = (torch.from_numpy(x), torch.from_numpy(y)) if torch else (None, None)
    twv = (torch.from_numpy(xw), torch.from_numpy(xv)) if torch else None
    F = torch.nn.functional if torch else None
    yield ("vector_add", "1024 f32", lambda: seed.vector_add(a1024, b1024), lambda: a1024 + b1024,
           (lambda: torch.from_numpy(a1024) + torch.from_numpy(b1024)) if torch else None, 1e-6)
    yield ("gelu_naive (erf)", f"{N >> 20}M f32", lambda: seed.gelu_naive(x),
           lambda: 0.5 * x * (1 + _erf(x / s2)), (lambda: F.gelu(tx)) if torch else None, 1e-5)
    yield ("gelu_approx (tanh)", f"{N >> 20}M f32", lambda: seed.gelu_approx(x),
           lambda: 0.5 * x * (1 + np.tanh(c * (x + np.float32(0.044715) * x * x * x))),
           (lambda: F.gelu(tx, approximate="tanh")) if torch else None, 1e-5)
    yield ("saxpy", f"{N >> 20}M f32", lambda: seed.saxpy(2.0, x, y), lambda: np.float32(2.0) * x + y,
           (lambda: torch.add(ty, tx, alpha=2.0)) if torch else None, 1e-6)
    yield ("swish_glu", f"{ROWS}x{COLS} f16", lambda: seed.swish_glu(xw, xv),
           lambda: (xw / (np.float16(1) + np.exp(-xw)) * xv),
           (lambda: F.silu(twv[0]) * twv[1]) if torch else None, 4e-3)
    yield ("parallel_sum", "1024 f32, 4 workers", lambda: seed.parallel_sum(a1024),
           lambda: a1024.astype(np.float64).sum(), (lambda: torch.from_numpy(a1024).sum()) if torch else None, 1e-5)
    A, B = (rng.standard_normal((256, 256)).astype(np.float16) for _ in range(2))
    yield ("matmul_cube", "256^3 f16", lambda: seed_tensor.matmul_cube(A, B),
           lambda: A.astype(np.float64) @ B.astype(np.float64),
           (lambda: torch.from_numpy(A) @ torch.from_numpy(B)) if torch else None, 2e-3)
    xm = (rng.standard_normal((256, 512)) * 0.5).astype(np.float32)
    w1 = (rng.standard_normal((512, 2048)) * 0.05).astype(np.float32)
    w2 = (rng.standard_normal((2048, 512)) * 0.05).astype(np.float32)

    def mlp_ref():
        h = xm.astype(np.float64) @ w1
        return (0.5 * h * (1 + _erf(h / math.sqrt(2)))) @ w2
    tm = [torch.from_numpy(v) for v in (xm, w1, w2)] if torch else None
    yield ("fused_mlp", "256x512x2048 f32", lambda: seed_tensor.fused_mlp(xm, w1, w2), mlp_ref,
           (lambda: F.gelu(tm[0] @ tm[1]) @ tm[2]) if torch else None, 1e-5)


def run(out=print):
    torch = _torch()
    rows = []
    t_start = time.perf_counter()
    for name, size, k, ref, tref, tol in cases(torch):
        t0 = time.perf_counter()
        got = k()
        first = time.perf_counter() - t0
        expected = np.asarray(ref(), dtype=np.float64)
        err = float(np.max(np.abs(np.asarray(got, np.float64) - expected)) / max(1.0, np.max(np.abs(expected))))
        ok = err <= tol
        t_asc = _median_time(k)
        t_np = _median_time(ref, repeat=3)
        t_torch = _median_time(tref) if tref else None
        rows.append((name, size, "ok" if ok else f"MISMATCH {err:.2g}", first, t_asc, t_np, t_torch))
    _print(rows, torch is not None, out)
    out(f"(first call = compile or load from the disk cache; times are medians; "
        f"{time.perf_counter() - t_start:.1f} s in all)")
    return all(r[2] == "ok" for r in rows)


def _fmt_t(t):
    if t is None:
        return "-"
    return f"{t * 1e3:.3f} ms" if t < 1 else f"{t:.2f} s"


def _print(rows, have_torch, out):
    head = ["kernel", "size", "check", "first call", "asc", "NumPy", "torch", "vs NumPy", "vs torch"]
    body = []
    for name, size, check, first, ta, tn, tt in rows:
        body.append([name, size, check, _fmt_t(first), _fmt_t(ta), _fmt_t(tn), _fmt_t(tt),
                     f"{tn / ta:.1f}x", f"{tt / ta:.1f}x" if tt else "-"])
    try:
        from rich.console import Console
        from rich.table import Table
        table = Table(title="asc demo: the seed's kernels on this CPU")
        for h in head:
            table.add_column(h, justify="left" if h in ("kernel", "size", "check") else "right")
        for r in body:
            table.add_row(*r)
        console = Console()
        if not console.is_terminal:
            console = Console(width=130)
        console.print(table)
        return
    except ImportError:
        pass
    widths = [max(len(h), *(len(r[i]) for r in body)) for i, h in enumerate(head)]
    out("  ".join(h.ljust(w) for h, w in zip(head, widths)))
    for r in body:
        out("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    if not have_torch:
        out("(torch is not installed: pip install torch==2.13.0 to compare)")

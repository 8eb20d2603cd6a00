"""asc against NumPy, torch eager (and torch.compile / Numba when asked and installed) on the elementwise kernels,
with the machine's memory bandwidth (an in-process C triad) measured in the same rounds.

    python benchmarks/run.py [--quick] [--compile] [--out FILE.json]      (also: asc bench ...)

Reading the figures on a VM: its memory bandwidth flips between states (on the development machine ~36 and ~60 GB/s
for the triad) within one run, and compute-bound kernels (GELU, softmax) keep their time while the triad's changes.
The `out` rows also depend on where the preallocated output lies in physical memory: the same kernel and input
writing into eight `np.empty_like` arrays took 3.7-5.0 ms (GELU-erf, 16M float32), the arrays allocated right after
the input being the slow ones; every peer's `out` row uses the same array.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("OMP_NUM_THREADS", "2")

import numpy as np  # noqa: E402

import harness  # noqa: E402
harness.peers_at_target_isa()  # before a peer loads: an AVX2 build holds them to AVX2 too
from harness import Case  # noqa: E402
import kernels as K  # noqa: E402

THREADS = int(os.environ["OMP_NUM_THREADS"])


def np_erf(x):
    try:
        from scipy.special import erf
        return erf(x)
    except ImportError:
        return np.vectorize(math.erf, otypes=[x.dtype])(x)


def groups(n, rows, cols, torch, use_compile, numba_mod):
    """(name, dtype, elements per array, bytes moved, [Case])"""
    rng = np.random.default_rng(0)
    c = math.sqrt(2 / math.pi)
    F = torch.nn.functional if torch else None
    tcompile = (lambda f: torch.compile(f, dynamic=False)) if (torch and use_compile) else None
    for form in ("erf", "tanh"):
        for dt in (np.float32, np.float16):
            x = rng.standard_normal(n).astype(dt)
            out = np.empty_like(x)
            kern, kout = (K.gelu_erf, K.gelu_erf_out) if form == "erf" else (K.gelu_tanh, K.gelu_tanh_out)
            nbytes = 2 * x.nbytes
            cases = [Case("asc", "alloc", lambda: kern(x), nbytes), Case("asc", "out", lambda: kout(x, out), nbytes)]
            if dt == np.float16:
                kmix = K.gelu_erf_mixed_out if form == "erf" else K.gelu_tanh_mixed_out
                cases.append(Case("asc mixed", "out", lambda: kmix(x, out), nbytes))
            if dt == np.float32:
                ref = (lambda: 0.5 * x * (1 + np_erf(x * np.float32(1 / math.sqrt(2))))) if form == "erf" else \
                    (lambda: 0.5 * x * (1 + np.tanh(np.float32(c) * (x + np.float32(0.044715) * x * x * x))))
                cases.append(Case("numpy", "alloc", ref, nbytes))
                if numba_mod:
                    nk = numba_mod.gelu_erf_out if form == "erf" else numba_mod.gelu_tanh_out
                    cases.append(Case("numba", "out", lambda: nk(x, out), nbytes))
            if torch:
                tx, tout = torch.from_numpy(x), torch.from_numpy(out)
                approx = "none" if form == "erf" else "tanh"
                cases.append(Case("torch eager", "alloc", lambda: F.gelu(tx, approximate=approx), nbytes))
                cases.append(Case("torch eager", "out", lambda: torch._C._nn.gelu(tx, approximate=approx, out=tout),
                                  nbytes))
                if tcompile:
                    g = tcompile(lambda t: F.gelu(t, approximate=approx))
                    cases.append(Case("torch.compile", "alloc", lambda: g(tx), nbytes))
            yield f"gelu {form}", np.dtype(dt).name, n, nbytes, cases
    for dt in (np.float32, np.float16):
        a = rng.standard_normal((rows, cols)).astype(dt)
        b = rng.standard_normal((rows, cols)).astype(dt)
        out = np.empty_like(a)
        nbytes = 3 * a.nbytes
        cases = [Case("asc", "alloc", lambda: K.swiglu(a, b), nbytes),
                 Case("asc", "out", lambda: K.swiglu_out(a, b, out), nbytes)]
        if dt == np.float16:
            cases.append(Case("asc mixed", "out", lambda: K.swiglu_mixed_out(a, b, out), nbytes))
        if dt == np.float32:
            cases.append(Case("numpy", "alloc", lambda: a / (1 + np.exp(-a)) * b, nbytes))
            if numba_mod:
                cases.append(Case("numba", "out", lambda: numba_mod.swiglu_out(a, b, out), nbytes))
        if torch:
            ta, tb, tout = torch.from_numpy(a), torch.from_numpy(b), torch.from_numpy(out)
            cases.append(Case("torch eager", "alloc", lambda: F.silu(ta) * tb, nbytes))
            cases.append(Case("torch eager", "out", lambda: torch.mul(F.silu(ta), tb, out=tout), nbytes))
            if tcompile:
                g = tcompile(lambda p, q: F.silu(p) * q)
                cases.append(Case("torch.compile", "alloc", lambda: g(ta, tb), nbytes))
        yield "swiglu", np.dtype(dt).name, rows * cols, nbytes, cases
    x = rng.standard_normal(n).astype(np.float32)
    y = rng.standard_normal(n).astype(np.float32)
    out = np.empty_like(x)
    nbytes = 3 * x.nbytes
    cases = [Case("asc", "alloc", lambda: K.saxpy(2.0, x, y), nbytes),
             Case("asc", "out", lambda: K.saxpy_out(2.0, x, y, out), nbytes),
             Case("numpy", "alloc", lambda: np.float32(2.0) * x + y, nbytes)]
    if numba_mod:
        cases.append(Case("numba", "out", lambda: numba_mod.saxpy_out(2.0, x, y, out), nbytes))
    if torch:
        tx, ty, tout = torch.from_numpy(x), torch.from_numpy(y), torch.from_numpy(out)
        cases.append(Case("torch eager", "alloc", lambda: torch.add(ty, tx, alpha=2.0), nbytes))
        cases.append(Case("torch eager", "out", lambda: torch.add(ty, tx, alpha=2.0, out=tout), nbytes))
    yield "saxpy", "float32", n, nbytes, cases
    r2 = rows * 2 if n >= (1 << 24) else rows          # 4096 x 4096 in the full run
    x = rng.standard_normal((r2, cols)).astype(np.float32)
    w, b = rng.random(cols).astype(np.float32), rng.random(cols).astype(np.float32)
    nbytes = 2 * x.nbytes

    def np_softmax():
        e = np.exp(x - x.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def np_layernorm():
        mu = x.mean(axis=1, keepdims=True)
        return (x - mu) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5) * w + b
    cases = [Case("asc", "alloc", lambda: K.softmax(x), nbytes), Case("numpy", "alloc", np_softmax, nbytes)]
    if numba_mod:
        cases.append(Case("numba", "alloc", lambda: numba_mod.softmax(x), nbytes))
    if torch:
        tx = torch.from_numpy(x)
        cases.append(Case("torch eager", "alloc", lambda: torch.softmax(tx, dim=1), nbytes))
    yield "softmax", "float32", r2 * cols, nbytes, cases
    cases = [Case("asc", "alloc", lambda: K.layernorm(x, w, b), nbytes),
             Case("numpy", "alloc", np_layernorm, nbytes)]
    if numba_mod:
        cases.append(Case("numba", "alloc", lambda: numba_mod.layernorm(x, w, b), nbytes))
    if torch:
        tx, tw, tb = torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b)
        cases.append(Case("torch eager", "alloc", lambda: F.layer_norm(tx, (cols,), tw, tb), nbytes))
    yield "layernorm", "float32", r2 * cols, nbytes, cases
    x = rng.standard_normal(n).astype(np.float32)
    nbytes = x.nbytes
    cases = [Case("asc", "seed @lang.parallel", lambda: K.parallel_sum(x), nbytes),
             Case("numpy", "sum", lambda: x.sum(), nbytes)]
    if numba_mod:
        cases.append(Case("numba", "prange", lambda: numba_mod.parallel_sum(x), nbytes))
    if torch:
        tx = torch.from_numpy(x)
        cases.append(Case("torch eager", "sum", lambda: tx.sum(), nbytes))
    yield "parallel_sum", "float32", n, nbytes, cases


COMPILE_SCRIPT = r"""
import time, sys
t0 = time.perf_counter()
import numpy as np
import asc.language as lang
t_import = time.perf_counter() - t0
sys.path.insert(0, {here!r})
import kernels as K
x = np.ones(1 << 10, np.float32)   # a small call: load time, not compute
t0 = time.perf_counter()
K.gelu_erf(x)
t_first = time.perf_counter() - t0
print(t_import, t_first)
"""


def compile_times(cold_runs=5, warm_runs=5):
    """Cold first call (empty cache: frontend + C++ compiles + load; the median over `cold_runs` fresh cache
    directories) and warm first call (new process, disk cache: the median of `warm_runs`).

    The processes run with Python's bytecode cache on, as a user's do: asc imports its compiler modules on the
    first call, and with PYTHONDONTWRITEBYTECODE=1 (set in some CI and container images) and no .pyc files yet,
    every new process would compile them from source again (~8 ms more)."""
    script = COMPILE_SCRIPT.format(here=HERE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def first_call(d):
        r = subprocess.run([sys.executable, "-c", script], env=dict(env, ASC_CACHE_DIR=d),
                           capture_output=True, text=True, check=True)
        return tuple(float(v) for v in r.stdout.split())
    cold, dirs = [], []
    for _ in range(cold_runs):
        dirs.append(tempfile.mkdtemp(prefix="asc-bench-cache-"))
        cold.append(first_call(dirs[-1]))
    warm = [first_call(dirs[-1]) for _ in range(warm_runs)]
    res = {"import_s": statistics.median(w[0] for w in warm),
           "cold_first_call_s": statistics.median(c[1] for c in cold),
           "warm_first_call_s": statistics.median(w[1] for w in warm)}
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)
    return res


def dispatch_times(torch, numba_mod, calls=20000, repeats=7):
    """Seconds per call of a 16-element SAXPY: the steady-state cost of a call (argument checks, shape binding,
    output allocation, launch), asc beside Numba's dispatcher and torch eager."""
    x, y, out = (np.ones(16, np.float32) for _ in range(3))
    hx, hy, hout = (np.ones(16, np.float16) for _ in range(3))
    a32 = np.float32(2.0)
    cases = {"asc saxpy(out=), Python float scalar": lambda: K.saxpy_out(2.0, x, y, out),
             "asc saxpy(out=), np.float32 scalar": lambda: K.saxpy_out(a32, x, y, out),
             "asc saxpy, allocating its output": lambda: K.saxpy(a32, x, y),
             "asc float16 saxpy(out=), Python float scalar": lambda: K.saxpy_f16_out(2.0, hx, hy, hout)}
    if numba_mod:
        cases["numba @njit saxpy(out=), np.float32 scalar"] = lambda: numba_mod.saxpy_serial(a32, x, y, out)
    if torch:
        tx, ty, tout = (torch.from_numpy(v) for v in (x, y, out))
        cases["torch eager torch.add(ty, tx, alpha=2, out=)"] = lambda: torch.add(ty, tx, alpha=2.0, out=tout)
    res = {}
    for name, fn in cases.items():
        fn()
        per = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            for _ in range(calls):
                fn()
            per.append((time.perf_counter() - t0) / calls)
        res[name] = statistics.median(per)
    return res


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="sizes / 16")
    p.add_argument("--compile", action="store_true", help="also torch.compile (slow to compile)")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--out", default=os.path.join(os.getcwd(), "bench-results", "elementwise.json"))
    a = p.parse_args()
    n, rows, cols = (1 << 24, 2048, 4096) if not a.quick else (1 << 20, 512, 1024)
    try:
        import torch
        torch.set_num_threads(THREADS)
    except ImportError:
        torch = None
    numba_mod = None
    try:
        import numba_kernels as numba_mod  # noqa: F811
        numba_mod.warm()
    except ImportError:
        numba_mod = None
    triad = harness.Triad()
    results = []
    isa, isa_lines = harness.machine()
    print(f"asc benchmarks: {platform.processor() or platform.machine()}, {THREADS} threads, "
          f"torch {'yes' if torch else 'no'}, numba {'yes' if numba_mod else 'no'}\n{isa_lines}", flush=True)
    for name, dt, elems, nbytes, cases in groups(n, rows, cols, torch, a.compile, numba_mod):
        per_array = elems * np.dtype(dt).itemsize
        tfn, tbytes = triad.case(per_array // 4)
        ref = Case("C triad", "ref", tfn, tbytes)
        harness.run_group([ref] + cases, runs=a.runs)
        ref_gbs = harness.gbs(ref)
        print(f"\n{name} {dt} ({elems:,} elements): triad ref {ref_gbs:.1f} GB/s")
        for c in cases:
            if c.error:
                print(f"  {c.peer:14s} {c.variant:6s} {c.error}")
                results.append(dict(workload=name, dtype=dt, peer=c.peer, variant=c.variant, error=c.error))
                continue
            g = harness.gbs(c)
            print(f"  {c.peer:14s} {c.variant:6s} {harness.median(c) * 1e3:9.3f} ms {g:6.1f} GB/s "
                  f"{100 * g / ref_gbs:5.0f}% ref")
            results.append(dict(workload=name, dtype=dt, elements=elems, peer=c.peer, variant=c.variant,
                                median_s=harness.median(c), min_s=min(c.times), first_s=c.first, gbs=g,
                                ref_gbs=ref_gbs, pct_ref=100 * g / ref_gbs, runs=len(c.times)))
    disp = dispatch_times(torch, numba_mod)
    print("\ncall overhead, three 16-element arrays and a scalar (median of 7 x 20,000 calls):")
    for k, v in disp.items():
        print(f"  {k:44s} {v * 1e6:6.3f} us")
    ct = compile_times()
    print(f"\nimport asc: {ct['import_s'] * 1e3:.0f} ms; first call, cold (compile; median of 5 fresh caches): "
          f"{ct['cold_first_call_s'] * 1e3:.0f} ms; first call in a new process with the disk cache: "
          f"{ct['warm_first_call_s'] * 1e3:.1f} ms")
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"threads": THREADS, "quick": a.quick, "isa": isa, "results": results, "dispatch_s": disp, "compile": ct}, f,
                  indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

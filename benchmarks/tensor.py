"""Tensor-level asc kernels as a user writes them (@lang.cube_kernel `A @ B`, the seed's @lang.fused_kernel MLP)
against NumPy, torch eager and torch.compile, GFLOP/s and ratios in the same run.

    python benchmarks/tensor.py [--quick] [--runs N] [--cpu-time] [--out FILE.json]

Cases: `return A @ B` in a @lang.cube_kernel, float32 1024^3 and 2048^3 (vs numpy.matmul and torch.matmul),
bfloat16 and float16 2048^3 with float32 accumulation and a float32 result (vs torch bf16; torch f16 is timed at
512^3: its CPU float16 matmul is very slow); the fused MLP gelu(x @ W1) @ W2, x 512x1024, W1 1024x4096,
W2 4096x1024, float32 (vs the same kernel as a plain @lang.kernel, torch eager and torch.compile). Every call of an
asc kernel goes through its launcher (the call overhead is included). Timing: benchmarks/harness.py (peers
interleaved, median), OMP_NUM_THREADS threads (2 unless set); the machine may be shared: compare ratios of one run;
`OMP_NUM_THREADS=1 ... --cpu-time` times with the process's CPU time, which other processes do not distort.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

import numpy as np  # noqa: E402

import harness  # noqa: E402
harness.peers_at_target_isa()  # before a peer loads: an AVX2 build holds them to AVX2 too
from harness import Case  # noqa: E402

import asc.language as lang  # noqa: E402
from asc.examples import seed_tensor as st  # noqa: E402

THREADS = int(os.environ["OMP_NUM_THREADS"])


@lang.cube_kernel
def matmul_f32_out(A, B) -> lang.Tensor[lang.float32]:
    """A @ B with a float32 result (16-bit inputs accumulate in float32)."""
    return A @ B


def matmul_groups(torch, sizes, n16, n_torch_f16):
    import ml_dtypes
    rng = np.random.default_rng(0)
    for n in sizes:
        a = rng.standard_normal((n, n), np.float32)
        b = rng.standard_normal((n, n), np.float32)
        out = np.empty((n, n), np.float32)
        # (every lambda binds its arrays now: the groups are built before any runs)
        cases = [Case("asc", "@lang.cube_kernel A @ B", lambda a=a, b=b: st.matmul_any(a, b), 2 * n ** 3),
                 Case("numpy", "numpy.matmul (OpenBLAS)", lambda a=a, b=b, out=out: np.matmul(a, b, out=out),
                      2 * n ** 3)]
        if torch:
            ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.empty(n, n)
            cases.append(Case("torch", "torch.matmul", lambda ta=ta, tb=tb, tc=tc: torch.matmul(ta, tb, out=tc),
                              2 * n ** 3))
        yield f"float32 {n}^3", cases, lambda a=a, b=b: (st.matmul_any(a, b), a.astype(np.float64) @ b)
    for name, dt, n_torch in (("bfloat16", ml_dtypes.bfloat16, n16), ("float16", np.float16, n_torch_f16)):
        a = rng.standard_normal((n16, n16)).astype(dt)
        b = rng.standard_normal((n16, n16)).astype(dt)
        cases = [Case("asc", "@lang.cube_kernel A @ B (f32 out)", lambda a=a, b=b: matmul_f32_out(a, b),
                      2 * n16 ** 3)]
        if torch:
            tdt = getattr(torch, name)
            ta = torch.from_numpy(a[:n_torch, :n_torch].astype(np.float32)).to(tdt)
            tb = torch.from_numpy(b[:n_torch, :n_torch].astype(np.float32)).to(tdt)
            tc = torch.empty(n_torch, n_torch, dtype=tdt)
            cases.append(Case("torch", f"torch.matmul {name}", lambda ta=ta, tb=tb, tc=tc: torch.matmul(ta, tb, out=tc),
                              2 * n_torch ** 3, "" if n_torch == n16 else f"timed at {n_torch}^3"))
        yield f"{name} {n16}^3", cases, lambda a=a, b=b: (matmul_f32_out(a, b),
                                                           a.astype(np.float64) @ b.astype(np.float64))


def mlp_group(torch, m, k, h):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((m, k), np.float32)
    w1 = (rng.standard_normal((k, h)) / np.sqrt(k)).astype(np.float32)
    w2 = (rng.standard_normal((h, k)) / np.sqrt(h)).astype(np.float32)
    flops = 2 * m * k * h * 2
    cases = [Case("asc", "@lang.fused_kernel (seed fused_mlp)", lambda: st.fused_mlp(x, w1, w2), flops),
             Case("asc-unfused", "@lang.kernel, same code", lambda: st.mlp_unfused(x, w1, w2), flops)]
    if torch:
        tx, t1, t2 = torch.from_numpy(x), torch.from_numpy(w1), torch.from_numpy(w2)
        gelu = torch.nn.functional.gelu

        def eager():
            with torch.no_grad():
                return gelu(tx @ t1) @ t2
        cases.append(Case("torch", "torch eager", eager, flops))
        try:
            compiled = torch.compile(lambda a, b, c: gelu(a @ b) @ c)

            def comp():
                with torch.no_grad():
                    return compiled(tx, t1, t2)
            comp()
            cases.append(Case("torch.compile", "torch.compile", comp, flops))
        except Exception as e:  # no compiler for inductor: reported
            cases.append(Case("torch.compile", "torch.compile", None, flops, f"unavailable: {type(e).__name__}"))

    def check():
        import math
        t = x.astype(np.float64) @ w1
        erf = np.vectorize(math.erf)
        return st.fused_mlp(x, w1, w2), (0.5 * t * (1 + erf(t / math.sqrt(2)))) @ w2
    yield f"mlp {m}x{k}x{h}", cases, check


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="1024^3 and a smaller MLP only")
    p.add_argument("--runs", type=int, default=None)
    p.add_argument("--cpu-time", action="store_true", help="time with the process's CPU time (use with 1 thread)")
    p.add_argument("--out", default=os.path.join(os.getcwd(), "bench-results", "tensor.json"))
    args = p.parse_args()
    try:
        import torch
        torch.set_num_threads(THREADS)
    except ImportError:
        torch = None
    runs = args.runs or (5 if args.quick else 7)
    sizes = (1024,) if args.quick else (1024, 2048)
    n16 = 1024 if args.quick else 2048
    groups = list(matmul_groups(torch, sizes, n16, 512)) + list(
        mlp_group(torch, 256 if args.quick else 512, 1024, 4096))
    isa, isa_lines = harness.machine()
    print(f"asc tensor-level benchmark: {platform.processor() or platform.machine()}, {THREADS} threads, numpy "
          f"{np.__version__}" + (f", torch {torch.__version__}" if torch else "") + f"; median of {runs} calls\n"
          + isa_lines)
    hdr = f"{'case':<20} {'peer':<38} {'GFLOP/s':>9} {'ms':>9} {'asc / peer':>11}  note"
    print(hdr)
    print("-" * len(hdr))
    rows = []
    for title, cases, check in groups:
        live = [c for c in cases if c.fn is not None]
        from matmul import run_group          # harness.run_group with a choice of clock
        run_group(live, runs=runs, blocks=min(5, runs), pause=0.1,
                  clock=time.process_time if args.cpu_time else time.perf_counter)
        got, ref = check()
        err = float(np.max(np.abs(np.asarray(got, np.float64) - ref)) / max(1.0, float(np.max(np.abs(ref)))))
        rates = {c.peer: (c.nbytes / harness.median(c) / 1e9 if c.fn is not None and harness.median(c) else None)
                 for c in cases}
        asc_rate = rates.get("asc")
        for c in cases:
            m = harness.median(c) if c.fn is not None else None
            rate = rates[c.peer]
            ratio = "" if c.peer == "asc" or not rate or not asc_rate else f"{asc_rate / rate:.2f}x"
            print(f"{title:<20} {c.variant:<38} {rate or float('nan'):>9.1f} {(m or float('nan')) * 1e3:>9.2f} "
                  f"{ratio:>11}  {c.error or c.note}")
            rows.append({"case": title, "peer": c.peer, "variant": c.variant, "gflops": rate, "median_s": m,
                         "times_s": c.times, "note": c.error or c.note})
        others = [r for k, r in rates.items() if k not in ("asc", "asc-unfused") and r]
        if asc_rate and others:
            print(f"{'':<20} {'asc vs best peer':<38} {'':>9} {'':>9} {asc_rate / max(others):>10.2f}x  "
                  f"max rel err {err:.1e}")
        rows.append({"case": title, "asc_vs_best_peer": asc_rate / max(others) if asc_rate and others else None,
                     "max_rel_err_vs_float64": err})
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"benchmark": "tensor", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "threads": THREADS, "isa": isa, "clock": "cpu" if args.cpu_time else "wall", "rows": rows}, f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

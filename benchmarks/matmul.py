"""asc's cpu matrix unit (asc/include/asc_gemm.h) against NumPy (OpenBLAS) and torch, GFLOP/s, in the same run.

    python benchmarks/matmul.py [--quick] [--full] [--runs N] [--cpu-time] [--out FILE.json]

Columns: median GFLOP/s, median ms, asc median / peer median, best (fastest call) GFLOP/s.
Cases: float32 1024^3 and 2048^3 (asc_gemm_f32 vs numpy.matmul and torch.matmul, each writing into a preallocated
output), bfloat16 and float16 2048^3 with float32 accumulation (asc_gemm_bf16 / asc_gemm_f16, float32 out, vs torch
bf16 / f16 matmul). torch's CPU float16 matmul is very slow (about 0.4 GFLOP/s at 2048^3 here: 45 s per product), so by
default it is timed at 512^3, where it is faster (about 2.7 GFLOP/s: the ratio then flatters torch); --full times it
at 2048^3 too.
Timing (benchmarks/harness.py): peers interleaved in rotating blocks with a settle pause, median of >= 7 timed calls,
OMP_NUM_THREADS threads (2 unless set). The machine may be shared: compare the ratios of one run, not absolute rates;
`OMP_NUM_THREADS=1 ... --cpu-time` gives per-core rates that other processes' time slices do not distort.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
os.environ.setdefault("OMP_NUM_THREADS", "2")
os.environ.setdefault("OPENBLAS_NUM_THREADS", os.environ["OMP_NUM_THREADS"])
os.environ.setdefault("MKL_NUM_THREADS", os.environ["OMP_NUM_THREADS"])

import numpy as np  # noqa: E402

import harness  # noqa: E402
harness.peers_at_target_isa()  # before a peer loads: an AVX2 build holds them to AVX2 too
from harness import Case  # noqa: E402

THREADS = int(os.environ["OMP_NUM_THREADS"])

SHIM = r"""
#include "asc_gemm.h"
#define EXPORT extern "C" __attribute__((visibility("default")))
EXPORT void b_f32(int64_t M, int64_t N, int64_t K, const float* A, const float* B, float* C) {
  asc_gemm_f32(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}
EXPORT void b_bf16(int64_t M, int64_t N, int64_t K, const uint16_t* A, const uint16_t* B, float* C) {
  asc_gemm_bf16(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}
EXPORT void b_f16(int64_t M, int64_t N, int64_t K, const uint16_t* A, const uint16_t* B, float* C) {
  asc_gemm_f16(M, N, K, 1.0f, A, K, B, N, 0.0f, C, N);
}
EXPORT const char* b_isa(void) { return asc_gemm_isa(); }
"""


def build_asc():
    from asc.runtime import toolchain
    d = tempfile.mkdtemp(prefix="asc-bench-gemm-")
    so = os.path.join(d, "gemm.so")
    toolchain.build(SHIM, so, {}, "gemm-bench")
    lib = ctypes.CDLL(so)
    for f in (lib.b_f32, lib.b_bf16, lib.b_f16):
        f.argtypes = (ctypes.c_int64,) * 3 + (ctypes.c_void_p,) * 3
        f.restype = None
    lib.b_isa.restype = ctypes.c_char_p
    return lib, toolchain.compiler()


def asc_case(fn, n, a, b, c):
    pa, pb, pc = a.ctypes.data, b.ctypes.data, c.ctypes.data

    def run(keep=(a, b, c)):
        fn(n, n, n, pa, pb, pc)
    return run


def groups(lib, torch, sizes_f32, n16, n_torch_f16):
    """(title, n, [Case]) ; Case.nbytes carries the flop count"""
    import ml_dtypes
    rng = np.random.default_rng(0)
    for n in sizes_f32:
        a = rng.standard_normal((n, n), np.float32)
        b = rng.standard_normal((n, n), np.float32)
        c, c_np = np.empty((n, n), np.float32), np.empty((n, n), np.float32)
        cases = [Case("asc", "asc_gemm_f32", asc_case(lib.b_f32, n, a, b, c), 2 * n ** 3),
                 Case("numpy", "numpy.matmul (OpenBLAS)", lambda a=a, b=b, o=c_np: np.matmul(a, b, out=o), 2 * n ** 3)]
        if torch:
            ta, tb, tc = torch.from_numpy(a), torch.from_numpy(b), torch.empty(n, n)
            cases.append(Case("torch", "torch.matmul", lambda ta=ta, tb=tb, tc=tc: torch.matmul(ta, tb, out=tc),
                              2 * n ** 3))
        yield f"float32 {n}^3", "float32", n, cases, (c, a.astype(np.float64) @ b)
    for name, bits_dtype, fn, tdt, n_torch in (("bfloat16", ml_dtypes.bfloat16, lib.b_bf16, "bfloat16", n16),
                                               ("float16", np.float16, lib.b_f16, "float16", n_torch_f16)):
        a = rng.standard_normal((n16, n16)).astype(bits_dtype)
        b = rng.standard_normal((n16, n16)).astype(bits_dtype)
        c = np.empty((n16, n16), np.float32)
        cases = [Case("asc", f"asc_gemm_{'bf16' if name == 'bfloat16' else 'f16'} (f32 out)",
                      asc_case(fn, n16, a.view(np.uint16), b.view(np.uint16), c), 2 * n16 ** 3)]
        if torch:
            dt = getattr(torch, tdt)
            ta = torch.from_numpy(a[:n_torch, :n_torch].astype(np.float32)).to(dt)
            tb = torch.from_numpy(b[:n_torch, :n_torch].astype(np.float32)).to(dt)
            tc = torch.empty(n_torch, n_torch, dtype=dt)
            note = "" if n_torch == n16 else f"timed at {n_torch}^3"
            cases.append(Case("torch", f"torch.matmul {tdt} ({tdt} out)",
                              lambda ta=ta, tb=tb, tc=tc: torch.matmul(ta, tb, out=tc), 2 * n_torch ** 3, note))
        yield f"{name} {n16}^3", name, n16, cases, (c, a.astype(np.float64) @ b.astype(np.float64))


def run_group(cases, runs, blocks, pause, clock):
    """harness.run_group with a choice of clock: time.perf_counter (wall) or time.process_time (CPU time of the
    process: with one thread, immune to the time slices other processes take on a shared machine)."""
    live = []
    for c in cases:
        try:
            t0 = clock()
            c.fn()
            c.first = clock() - t0
            c.fn()
            live.append(c)
        except Exception as e:  # a peer that cannot run this case is reported, not fatal
            c.error = f"{type(e).__name__}: {str(e).splitlines()[0][:120]}"
    per_block = max(1, -(-runs // blocks))
    for r in range(blocks):
        order = live[r % len(live):] + live[:r % len(live)] if live else []
        for c in order:
            time.sleep(pause)
            c.fn()
            for _ in range(per_block):
                t0 = clock()
                c.fn()
                c.times.append(clock() - t0)
    return cases


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true", help="1024^3 only, fewer runs")
    p.add_argument("--full", action="store_true", help="also time torch float16 at 2048^3 (slow)")
    p.add_argument("--runs", type=int, default=None, help="timed calls per case (default 10, --quick 7)")
    p.add_argument("--cpu-time", action="store_true",
                   help="time with the process's CPU time instead of wall time (use with OMP_NUM_THREADS=1 on a "
                        "shared machine: other processes' time slices are then not counted)")
    p.add_argument("--out", default=os.path.join(os.getcwd(), "bench-results", "matmul.json"))
    args = p.parse_args()
    try:
        import torch
        torch.set_num_threads(THREADS)
    except ImportError:
        torch = None
    lib, cxx = build_asc()
    target, isa_lines = harness.machine()
    isa = lib.b_isa().decode()
    sizes = (1024,) if args.quick else (1024, 2048)
    n16 = 1024 if args.quick else 2048
    n_torch_f16 = n16 if args.full else 512
    runs = args.runs or (7 if args.quick else 10)
    print(f"asc matmul benchmark: {platform.processor() or platform.machine()}, {THREADS} threads, {cxx}, "
          f"asc_gemm micro-kernels: {isa}, numpy {np.__version__}"
          + (", CPU time" if args.cpu_time else ", wall time")
          + (f", torch {torch.__version__}" if torch else "") + f"; median of {runs} timed calls, peers interleaved\n"
          + isa_lines)
    rows = []
    hdr = f"{'case':<18} {'peer':<36} {'GFLOP/s':>9} {'ms':>9} {'asc / peer':>11} {'best GF/s':>10}  note"
    print(hdr)
    print("-" * len(hdr))
    for title, dtype, n, cases, (c_asc, ref) in groups(lib, torch, sizes, n16, n_torch_f16):
        run_group(cases, runs=runs, blocks=min(5, runs), pause=0.1,
                  clock=time.process_time if args.cpu_time else time.perf_counter)
        err = float(np.max(np.abs(c_asc - ref)) / max(1.0, float(np.max(np.abs(ref)))))
        rates = {}
        for c in cases:
            m = harness.median(c)
            rates[c.peer] = c.nbytes / m / 1e9 if m else None
        asc_rate = rates.get("asc")
        peers = [r for k, r in rates.items() if k != "asc" and r]
        best = max(peers) if peers else None
        for c in cases:
            m = harness.median(c)
            rate = rates[c.peer]
            ratio = "" if c.peer == "asc" or not rate or not asc_rate else f"{asc_rate / rate:.2f}x"
            note = c.error or c.note
            best_rate = c.nbytes / min(c.times) / 1e9 if c.times else float("nan")
            print(f"{title:<18} {c.variant:<36} {rate or float('nan'):>9.1f} {(m or float('nan')) * 1e3:>9.2f} "
                  f"{ratio:>11} {best_rate:>10.1f}  {note}")
            rows.append({"case": title, "dtype": dtype, "n": n, "peer": c.peer, "variant": c.variant,
                         "gflops": rate, "median_s": m, "times_s": c.times, "first_s": c.first, "note": note,
                         "flops": c.nbytes})
        if asc_rate and best:
            print(f"{'':<18} {'asc vs best peer':<36} {'':>9} {'':>9} {asc_rate / best:>10.2f}x {'':>10}  "
                  f"max rel err {err:.1e}")
        rows.append({"case": title, "asc_vs_best_peer": asc_rate / best if asc_rate and best else None,
                     "max_rel_err_vs_float64": err})
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"benchmark": "matmul", "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                   "machine": platform.processor() or platform.machine(), "threads": THREADS, "compiler": cxx,
                   "clock": "cpu" if args.cpu_time else "wall",
                   "isa": isa, "target_isa": target, "numpy": np.__version__, "torch": torch.__version__ if torch else None,
                   "rows": rows}, f, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()

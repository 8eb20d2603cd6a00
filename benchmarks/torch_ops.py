"""Forward+backward of asc torch ops against torch eager and torch.compile: SwiGLU (generated backward) and RMSNorm
(hand-written backward, and generated), float32 and bfloat16, and the overhead the torch custom-op wrapper adds to a
direct asc call. Prints a table and writes JSON to bench-results/torch_ops.json under the current directory.

    python benchmarks/torch_ops.py [--rows 2048 --cols 4096 --runs 9] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
import torch  # noqa: E402

import asc.torch as asct  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_kernels as K  # noqa: E402
import harness  # noqa: E402
harness.peers_at_target_isa()  # before a peer loads: an AVX2 build holds them to AVX2 too


def timed(fn, runs):
    fn()
    fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        time.sleep(0.02)
    return statistics.median(ts)


def torch_rmsnorm(x, w):
    xf = x.float()
    return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-6) * w.float()).to(x.dtype)


def torch_swiglu(a, b):
    return torch.nn.functional.silu(a) * b


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=2048)
    p.add_argument("--cols", type=int, default=4096)
    p.add_argument("--runs", type=int, default=9)
    p.add_argument("--out", default=os.path.join(os.getcwd(), "bench-results", "torch_ops.json"))
    a = p.parse_args()
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    R, C = a.rows, a.cols
    ops = {
        "float32": dict(swiglu=asct.op(K.swiglu_f32, name="asc_bench::swiglu_f32", autodiff=True),
                        rms_user=asct.op(K.rmsnorm_f32, name="asc_bench::rms_f32_user", backward=K.rmsnorm_f32_backward),
                        rms_auto=asct.op(K.rmsnorm_f32, name="asc_bench::rms_f32_auto", autodiff=True)),
        "bfloat16": dict(swiglu=asct.op(K.swiglu_bf16, name="asc_bench::swiglu_bf16", autodiff=True),
                         rms_user=asct.op(K.rmsnorm_bf16, name="asc_bench::rms_bf16_user",
                                          backward=K.rmsnorm_bf16_backward),
                         rms_auto=asct.op(K.rmsnorm_bf16, name="asc_bench::rms_bf16_auto", autodiff=True)),
    }
    compiled_swiglu = torch.compile(torch_swiglu)
    compiled_rms = torch.compile(torch_rmsnorm)
    results = []
    isa, isa_lines = harness.machine()
    print(f"forward+backward, {R}x{C}, {torch.get_num_threads()} threads, median of {a.runs} (ms)\n{isa_lines}")
    for dt_name, dt in (("float32", torch.float32), ("bfloat16", torch.bfloat16)):
        x = torch.randn(R, C, dtype=dt, requires_grad=True)
        y = torch.randn(R, C, dtype=dt, requires_grad=True)
        w = torch.ones(C, dtype=dt, requires_grad=True)
        g = torch.randn(R, C, dtype=dt)

        def fb(fn):
            def run():
                x.grad = y.grad = w.grad = None
                fn().backward(g)
            return run
        o = ops[dt_name]
        rows = [
            ("swiglu", "asc op (autodiff)", fb(lambda: o["swiglu"](x, y))),
            ("swiglu", "torch eager", fb(lambda: torch_swiglu(x, y))),
            ("swiglu", "torch.compile", fb(lambda: compiled_swiglu(x, y))),
            ("rmsnorm", "asc op (user backward)", fb(lambda: o["rms_user"](x, w))),
            ("rmsnorm", "asc op (autodiff)", fb(lambda: o["rms_auto"](x, w))),
            ("rmsnorm", "torch eager", fb(lambda: torch_rmsnorm(x, w))),
            ("rmsnorm", "torch.compile", fb(lambda: compiled_rms(x, w))),
        ]
        for name, peer, fn in rows:
            ms = timed(fn, a.runs) * 1e3
            results.append(dict(dtype=dt_name, op=name, peer=peer, ms=ms))
            print(f"  {dt_name:9s} {name:8s} {peer:24s} {ms:9.2f}")
    small, small2 = torch.randn(1, 16), torch.randn(1, 16)
    k = K.swiglu_f32
    direct = timed(lambda: [k(small, small2) for _ in range(1000)], a.runs) / 1000
    with torch.no_grad():
        via = timed(lambda: [ops["float32"]["swiglu"](small, small2) for _ in range(1000)], a.runs) / 1000
    print(f"  per call, 16 elements: direct asc call {direct * 1e6:.1f} us, through the torch op {via * 1e6:.1f} us")
    results.append(dict(op="call overhead", direct_us=direct * 1e6, torch_op_us=via * 1e6))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(dict(rows=R, cols=C, threads=torch.get_num_threads(), isa=isa, results=results), f, indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

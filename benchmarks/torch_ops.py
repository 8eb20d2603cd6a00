"""Forward+backward of asc ops (SwiGLU with generated backward, RMSNorm with a user backward) against torch eager,
and the overhead the torch custom-op wrapper adds to a direct asc call.

    python benchmarks/torch_ops.py [--rows 2048 --cols 4096]
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

os.environ.setdefault("OMP_NUM_THREADS", "2")
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
import train_mlp as M  # noqa: E402


def timed(fn, runs=9):
    fn()
    fn()
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
        time.sleep(0.02)
    return statistics.median(ts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--rows", type=int, default=2048)
    p.add_argument("--cols", type=int, default=4096)
    a = p.parse_args()
    torch.set_num_threads(int(os.environ["OMP_NUM_THREADS"]))
    R, C = a.rows, a.cols
    x = torch.randn(R, C, requires_grad=True)
    y = torch.randn(R, C, requires_grad=True)
    w = torch.ones(C, requires_grad=True)
    g = torch.randn(R, C)

    def fb(fn):
        def run():
            x.grad = y.grad = w.grad = None
            fn().backward(g)
        return run

    rows = [
        ("swiglu fwd+bwd", "asc op (autodiff)", fb(lambda: M.swiglu_op(x, y))),
        ("swiglu fwd+bwd", "torch eager", fb(lambda: torch.nn.functional.silu(x) * y)),
        ("rmsnorm fwd+bwd", "asc op (user backward)", fb(lambda: M.rmsnorm_op(x, w))),
        ("rmsnorm fwd+bwd", "torch eager",
         fb(lambda: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w)),
    ]
    print(f"float32 {R}x{C}, {torch.get_num_threads()} threads (median of 9)")
    for name, peer, fn in rows:
        print(f"  {name:16s} {peer:24s} {timed(fn) * 1e3:9.2f} ms")
    small = torch.randn(16)
    small2 = torch.randn(16)
    k = M.swiglu
    direct = timed(lambda: [k(small.view(1, 16), small2.view(1, 16)) for _ in range(1000)]) / 1000
    with torch.no_grad():
        op = timed(lambda: [M.swiglu_op(small.view(1, 16), small2.view(1, 16)) for _ in range(1000)]) / 1000
    print(f"  per call, 16 elements: direct asc call {direct * 1e6:.1f} us, through the torch op {op * 1e6:.1f} us")


if __name__ == "__main__":
    main()

"""What the debugging switches cost: memory check, numeric check (outputs, and intermediates) on the GELU and
SwiGLU benchmark kernels, as a ratio to the unchecked kernel timed in the same rounds; and the profiler's own
overhead per call (a 16-element kernel called in a loop, with and without lang.profiler()).

    python benchmarks/checks.py [--quick] [--runs N] [--out FILE.json]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
os.environ.setdefault("OMP_NUM_THREADS", "2")

import numpy as np  # noqa: E402

import harness  # noqa: E402
from harness import Case  # noqa: E402

import asc.language as lang  # noqa: E402
from asc.examples.seed import gelu_any, swiglu_any  # noqa: E402

VARIANTS = [("unchecked", {}), ("memory check", {"memory_check": True}),
            ("numeric check (outputs)", {"numeric_check": "outputs"}),
            ("numeric check (intermediates)", {"numeric_check": "intermediates"})]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--quick", action="store_true")
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--out", default=os.path.join(os.getcwd(), "bench-results", "checks.json"))
    a = p.parse_args()
    n, rows, cols = (1 << 24, 2048, 4096) if not a.quick else (1 << 20, 512, 1024)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(n).astype(np.float32)
    u, v = (rng.standard_normal((rows, cols)).astype(np.float32) for _ in range(2))
    results = []
    isa, isa_lines = harness.machine()
    print(isa_lines)
    for name, pyfunc, args in (("gelu erf f32", gelu_any.pyfunc, (x,)), ("swiglu f32", swiglu_any.pyfunc, (u, v))):
        cases = []
        for label, opts in VARIANTS:
            k = lang.kernel(**opts)(pyfunc)
            cases.append(Case(label, "", (lambda k=k: k(*args)), 1))
        harness.run_group(cases, runs=a.runs)
        base = harness.median(cases[0])
        print(f"{name}: unchecked {base * 1e3:.2f} ms")
        for c in cases[1:]:
            m = harness.median(c)
            print(f"  {c.peer:32s} {m * 1e3:9.2f} ms  {m / base:6.2f}x")
            results.append(dict(kernel=name, variant=c.peer, ms=m * 1e3, ratio=m / base))
    small = np.ones(16, np.float32)
    k = lang.kernel(gelu_any.pyfunc)
    k(small)

    def loop(count=20000):
        t0 = time.perf_counter()
        for _ in range(count):
            k(small)
        return (time.perf_counter() - t0) / count
    plain = min(loop() for _ in range(5))
    with lang.profiler():
        profiled = min(loop() for _ in range(5))
    print(f"profiler: {plain * 1e6:.2f} us per call without, {profiled * 1e6:.2f} us with "
          f"(+{(profiled - plain) * 1e6:.2f} us)")
    results.append(dict(kernel="gelu 16 elements", variant="profiler", us_plain=plain * 1e6, us_profiled=profiled * 1e6))
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"isa": isa, "results": results}, f, indent=1)
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()

"""A pyasc Matmul on the CPU twin: `python benchmarks/pyasc_matmul.py [--size 1024] [--runs 5] [--out FILE]`.

The kernel is the shape of pyasc's tutorial 03 (asc.adv.Matmul in a MIX kernel, the host's MultiCoreMatmulTiling
over 48 vector cores, float16 x float16 -> float32, launched on 24 AIC-AIV groups) and of tutorial 04 (the same on
the 24 cube cores, matmul_cube_only=True). Per variant: the first launch (translation and the C++ build, or a cache
hit) and the median of --runs launches after it, beside NumPy's float32 matmul of the same operands. Each result is
checked against NumPy (float64 reference) before it is timed."""
from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config


@asc.jit
def offsets(tiling: asc.adv.TCubeTiling):
    idx = asc.get_block_idx()
    m_blocks = tiling.m.ceildiv(tiling.single_core_m)
    m_index = idx % m_blocks
    n_index = idx // m_blocks
    tail_m = tiling.m - m_index * tiling.single_core_m
    if tail_m > tiling.single_core_m:
        tail_m = tiling.single_core_m
    tail_n = tiling.n - n_index * tiling.single_core_n
    if tail_n > tiling.single_core_n:
        tail_n = tiling.single_core_n
    return (m_index * tiling.k_a * tiling.single_core_m, n_index * tiling.single_core_n,
            m_index * tiling.n * tiling.single_core_m + n_index * tiling.single_core_n, tail_m, tail_n)


def _matmul(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
               workspace: asc.GlobalAddress):
    off_a, off_b, off_c, tail_m, tail_n = offsets(tiling)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    pipe = asc.TPipe()
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype))
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_tail(tail_m, tail_n)
        mm.iterate_all(gc)
        mm.end()


# one kernel body, two launches: MIX (1 AIC + 2 AIVs per block) and cube only (AIC blocks)
matmul_mix = asc.jit(_matmul)
matmul_cube = asc.jit(matmul_cube_only=True)(_matmul)


def tiling_for(m, n, k, dim):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(False)
    t.set_buffer_space(-1, -1, -1)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0, t.error
    return tl


def timed(fn, runs):
    t0 = time.perf_counter()
    fn()
    first = time.perf_counter() - t0
    ts = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return first, statistics.median(ts)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--out")
    args = p.parse_args()
    config.set_platform(config.Backend.CPU)
    n = args.size
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n)).astype(np.float16)
    b = rng.standard_normal((n, n)).astype(np.float16)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    ws = np.zeros(16 * 1024 * 1024, np.uint8)
    rows = []
    for name, kern, dim, blocks in (("pyasc Matmul, MIX (24 AIC + 48 AIV)", matmul_mix, 48, 24),
                                    ("pyasc Matmul, cube only (24 AIC)", matmul_cube, 24, 24)):
        tl = tiling_for(n, n, n, dim)
        c = np.zeros((n, n), np.float32)

        def go():
            kern[blocks, rt.current_stream()](a, b, c, tl, ws)
        first, med = timed(go, args.runs)
        np.testing.assert_allclose(c, ref, rtol=1e-4, atol=1e-3 * np.sqrt(n))
        rows.append({"workload": f"{name} {n}x{n}x{n} float16", "first_s": first, "median_s": med})
    af, bf = a.astype(np.float32), b.astype(np.float32)
    first, med = timed(lambda: af @ bf, args.runs)
    rows.append({"workload": f"NumPy float32 matmul {n}x{n}x{n}", "first_s": first, "median_s": med})
    for r in rows:
        print(f"{r['workload']:<60} first {r['first_s']:8.3f} s   median {r['median_s']:8.3f} s")
    if args.out:
        with open(args.out, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

"""pyasc's Matmul high-level API on the CPU twin (ascend-sim's lib/matmul_intf.h): float16 x float16 -> float32 and
float16, bias, transposed A / B, tails (M, N, K not multiples of the base block), one and many cores, MIX and
cube-only launches, the UB output block by block, each compared with NumPy; the translation to CANN's Matmul API;
and each rule of the emulation firing on a broken kernel with the call and the Python line."""
import inspect

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import MemoryCheckError
from asc.runtime.ascend_sim import AscendSimError

import pyasc_matmul_kernels as K

DT = {np.float16: host.DataType.DT_FLOAT16, np.float32: host.DataType.DT_FLOAT}
WS = np.zeros(16 * 1024 * 1024, np.uint8)


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


def tiling(m, n, k, dim=None, c=np.float32, bias=False, ta=False, tb=False, cpos=host.TPosition.GM, fix=None):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform()) if dim else \
        host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, ta)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, tb)
    t.set_c_type(cpos, host.CubeFormat.ND, DT[c])
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    if dim:
        t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(bias)
    if fix:
        t.set_fix_split(*fix)
    t.set_buffer_space(-1, -1, -1)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0, t.error
    return tl


def operands(m, n, k, seed):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float16)
    b = rng.standard_normal((k, n)).astype(np.float16)
    bias = rng.standard_normal(n).astype(np.float32)
    return a, b, bias


def check(c, a, b, bias=None):
    """c against A @ B (+ bias) in float64 of the float16 operands: within the bound of a float32 accumulation of K
    products (2 K u32 sum|a||b|, u32 = 2**-24), plus for a float16 C the rounding of the result (u16 = 2**-11,
    and the float16 subnormal spacing)."""
    k = a.shape[1]
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    ref = a64 @ b64 + (bias.astype(np.float64) if bias is not None else 0)
    tol = 2 * (k + 1) * 2.0 ** -24 * (np.abs(a64) @ np.abs(b64) + (np.abs(bias) if bias is not None else 0))
    if c.dtype == np.float16:
        tol = tol * (1 + 2.0 ** -11) + 2.0 ** -11 * np.abs(ref) + 2.0 ** -24
    err = np.abs(c.astype(np.float64) - ref)
    assert (err <= tol).all(), f"max error {err.max()} (bound {tol[np.unravel_index(err.argmax(), err.shape)]})"


def launch_gm(kernel, m, n, k, dim=None, c_dt=np.float32, with_bias=False, ta=False, tb=False, blocks=None, seed=0):
    """Launches kernel (mm_gm or mm_cube) on random operands; (tiling, c, a, b, bias)."""
    a, b, bias = operands(m, n, k, seed)
    tl = tiling(m, n, k, dim, c_dt, with_bias, ta, tb)
    c = np.zeros((m, n), c_dt)
    av = np.ascontiguousarray(a.T) if ta else a
    bv = np.ascontiguousarray(b.T) if tb else b
    if blocks is None:
        blocks = tl.used_core_num if kernel is K.mm_cube else -(-tl.used_core_num // 2)
    kernel[blocks, rt.current_stream()](av, bv, c, bias, tl, WS, ta, tb, with_bias)
    return tl, c, a, b, bias


def run_gm(kernel, m, n, k, dim=None, c_dt=np.float32, with_bias=False, ta=False, tb=False, blocks=None, seed=0):
    tl, c, a, b, bias = launch_gm(kernel, m, n, k, dim, c_dt, with_bias, ta, tb, blocks, seed)
    check(c, a, b, bias if with_bias else None)
    return tl


# ------------------------------------------------------------------ results against NumPy


@pytest.mark.parametrize("c_dt", [np.float32, np.float16])
def test_float16_inputs_give_float32_and_float16_c_on_many_cores(c_dt):
    tl = run_gm(K.mm_gm, 512, 1024, 512, dim=48, c_dt=c_dt)
    assert tl.used_core_num > 8


def test_one_core():
    tl = run_gm(K.mm_gm, 128, 160, 96)
    assert tl.used_core_num == 1 and (tl.single_core_m, tl.single_core_n) == (128, 160)


def test_bias():
    run_gm(K.mm_gm, 256, 384, 128, dim=8, with_bias=True)


@pytest.mark.parametrize("ta,tb", [(True, False), (False, True), (True, True)])
def test_transposed_a_and_b(ta, tb):
    run_gm(K.mm_gm, 144, 208, 112, dim=6, ta=ta, tb=tb, with_bias=True)


@pytest.mark.parametrize("m,n,k,dim", [(97, 300, 77, 12), (250, 33, 513, 5), (1, 17, 3, 1), (130, 1000, 40, 48)])
def test_tails_m_n_k_not_multiples_of_the_base(m, n, k, dim):
    tl = run_gm(K.mm_gm, m, n, k, dim=dim, with_bias=True, seed=m + n + k)
    assert m % tl.base_m or n % tl.base_n or k % tl.base_k


def test_tutorial_04_shape_on_the_cube_cores_only():
    tl = run_gm(K.mm_cube, 128, 30720, 64, dim=24)
    assert tl.used_core_num == 24


def test_cube_only_with_tails_transposes_and_float16_c():
    run_gm(K.mm_cube, 100, 700, 90, dim=24, c_dt=np.float16, ta=True, tb=True, with_bias=True)


@pytest.mark.parametrize("order", [host.MatrixTraverse.FIRSTM, host.MatrixTraverse.FIRSTN])
def ub_tiling(order, m, n, k):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.VECCALC, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(2)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_traverse(order)
    t.set_fix_split(128, 128, -1)
    t.set_buffer_space(-1, -1, -1)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0
    assert tl.iterate_order == (0 if order == host.MatrixTraverse.FIRSTM else 1)
    assert tl.single_core_m // tl.base_m > 1 and tl.single_core_n // tl.base_n > 1
    return tl


@pytest.mark.parametrize("order", [host.MatrixTraverse.FIRSTM, host.MatrixTraverse.FIRSTN])
def test_blocks_into_ub_in_the_tilings_order(order):
    """With step_m = step_n = 1 the blocks come M first (iterate_order 0) or N first (1), block by block: the
    placement tutorial 05 computes from `count` is right."""
    m, n, k = 512, 512, 192
    a, b, _ = operands(m, n, k, 3)
    tl = ub_tiling(order, m, n, k)
    tl.step_m = tl.step_n = 1
    c = np.zeros((m, n), np.float32)
    K.mm_ub[1, rt.current_stream()](a, b, c, tl, WS)
    check(c, a, b)


def canns_block_order(tl, m_blocks, n_blocks):
    """(M block, N block) in the order CANN's Norm scheduler gives them (scheduler_norm_base.h, MoveOnIterateOrderM
    / N): windows of step_m and step_n blocks; ORDER_M walks the N blocks of a window innermost, then the M blocks of
    the M window, then the M windows, then the N windows."""
    by_m = tl.iterate_order == 0
    outer, inner = (n_blocks, m_blocks) if by_m else (m_blocks, n_blocks)
    so, si = (tl.step_n, tl.step_m) if by_m else (tl.step_m, tl.step_n)
    seq = []
    for wo in range(0, outer, so):
        for wi in range(0, inner, si):
            for i in range(wi, min(wi + si, inner)):
                for o in range(wo, min(wo + so, outer)):
                    seq.append((i, o) if by_m else (o, i))
    return seq


@pytest.mark.parametrize("order", [host.MatrixTraverse.FIRSTM, host.MatrixTraverse.FIRSTN])
def test_iterate_gives_the_blocks_in_canns_stepped_order(order):
    """With step_n = 3 (or step_m = 2) the blocks come in windows, as on the NPU (CANN's scheduler; the CANN twin
    gives the same): each block written at `count` in turn, then compared with the block of A @ B the order says."""
    m, n, k = 512, 512, 192
    a, b, _ = operands(m, n, k, 3)
    tl = ub_tiling(order, m, n, k)
    assert (tl.step_m, tl.step_n) == (2, 3)
    mb, nb = tl.single_core_m // tl.base_m, tl.single_core_n // tl.base_n
    blocks = np.zeros((2, mb * nb, tl.base_m, tl.base_n), np.float32)    # per core, in the order they came
    K.mm_ub[1, rt.current_stream()](a, b, blocks, tl, WS, True)
    seq = canns_block_order(tl, mb, nb)
    block_by_block = sorted(seq, key=lambda p: (p[1], p[0]) if tl.iterate_order == 0 else p)
    assert len(set(seq)) == mb * nb and seq != block_by_block       # the windows change the order here
    ref = a.astype(np.float64) @ b.astype(np.float64)
    for core in range(2):
        r0 = core * tl.single_core_m if tl.single_core_m < m else 0
        c0 = core * tl.single_core_n if tl.single_core_n < n else 0
        for cnt, (bi, bj) in enumerate(seq):
            want = ref[r0 + bi * tl.base_m:r0 + (bi + 1) * tl.base_m, c0 + bj * tl.base_n:c0 + (bj + 1) * tl.base_n]
            np.testing.assert_allclose(blocks[core, cnt], want, rtol=1e-5, atol=1e-3)


def nz(x):
    """x (rows x cols, 16-bit) in NZ fractals: 16-element column strips, rows padded to 16, columns to 16."""
    r, c = x.shape
    p = np.zeros((-(-r // 16) * 16, -(-c // 16) * 16), x.dtype)
    p[:r, :c] = x
    return np.ascontiguousarray(p.reshape(p.shape[0], -1, 16).transpose(1, 0, 2)).reshape(-1)


@pytest.mark.parametrize("fa,fb", [("NZ", "ND"), ("ND", "NZ"), ("NZ", "NZ")])
def test_nz_operands(fa, fb):
    m, n, k = 80, 96, 48
    a, b, bias = operands(m, n, k, 7)
    tl = tiling(m, n, k)
    c = np.zeros((m, n), np.float32)
    K.mm_gm[1, rt.current_stream()](nz(a) if fa == "NZ" else a, nz(b) if fb == "NZ" else b, c, bias, tl, WS,
                                    False, False, False, getattr(asc.CubeFormat, fa), getattr(asc.CubeFormat, fb))
    check(c, a, b)


def test_insert_sync_shape_tiling_in_the_kernel_and_leaky_relu():
    m = n = k = 128
    rng = np.random.default_rng(5)
    a = ((rng.random((m, k), dtype=np.float32) - .5) * 10)
    b = ((rng.random((k, n), dtype=np.float32) - .5) * 10)
    c = np.zeros((m, n), np.float32)
    K.mm_auto[2, rt.current_stream()](a, b, c, 0.01, m, n, k, 64, 4, WS)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    lr = np.where(ref >= 0, ref, ref * np.float32(0.01))
    tol = 2 * (k + 1) * 2.0 ** -24 * (np.abs(a).astype(np.float64) @ np.abs(b))
    assert (np.abs(c - lr) <= tol).all()
    src = K.mm_auto.source(a, b, c, 0.01, m, n, k, 64, 4, WS)
    assert "TCubeTiling tiling{}; tiling.usedCoreNum = static_cast<int32_t>(4);" in src
    assert "asc_pipe" not in src and "pipe.InitBuffer(asc_auto_buf_0, 16384);" in src


# ------------------------------------------------------------------ the translation


def test_the_source_is_canns_matmul_api():
    m, n, k = 64, 64, 64
    a, b, bias = operands(m, n, k, 0)
    tl = tiling(m, n, k)
    src = K.mm_gm.source(a, b, np.zeros((m, n), np.float32), bias, tl, WS, True, False, True)
    assert '#include "lib/matmul_intf.h"' in src and '#include "kernel_tiling/kernel_tiling.h"' in src
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIC_1_2)" in src
    assert ("AscendC::Matmul<AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, true>, "
            "AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, half, false>, "
            "AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float, false>, "
            "AscendC::MatmulType<AscendC::TPosition::GM, CubeFormat::ND, float, false>> mm;") in src
    assert "REGIST_MATMUL_OBJ(&pipe, (GM_ADDR)((__gm__ uint8_t*)workspace), mm, &tiling);" in src
    for call in ("mm.SetTensorA(ga, true);", "mm.SetBias(gbias);", "mm.SetTail(tail_m, tail_n, -1);",
                 "mm.IterateAll(gc, 0);", "mm.End();", "tiling.usedCoreNum", "tiling.singleCoreM"):
        assert call in src, call
    assert "struct TCubeTiling" not in src          # CANN's own struct, from kernel_tiling.h
    cube = K.mm_cube.source(a, b, np.zeros((m, n), np.float32), bias, tl, WS, False, False, False)
    assert cube.index("#define ASCENDC_CUBE_ONLY") < cube.index('#include "kernel_operator.h"')
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_AIC_ONLY)" in cube and "if ((ASCEND_IS_AIC))" in cube
    ub = K.mm_ub.source(a, b, np.zeros((m, n), np.float32), tl, WS)
    assert "for (int64_t count = 0; mm.Iterate(false); ++count) {" in ub
    assert "mm.GetTensorC(t, 0, true);" in ub


def test_the_sim_tcube_tiling_header_matches_the_python_layout():
    import os
    import re
    from asc.ascendc.tiling import TCUBE_FIELDS
    from asc.runtime.ascend_sim import SIM_DIR
    with open(os.path.join(SIM_DIR, "kernel_tiling", "kernel_tiling.h")) as f:
        names = re.findall(r"int32_t (\w+) = 0;", f.read())
    assert names == [c for _, c in TCUBE_FIELDS]


# ------------------------------------------------------------------ the rules


def line_of(kernel_module, rule):
    src, first = inspect.getsourcelines(kernel_module)
    hits = [(first or 1) + i for i, s in enumerate(src) if s.rstrip().endswith(f"# RULE: {rule}")]
    assert len(hits) == 1, rule
    return f"pyasc_matmul_kernels.py:{hits[0]}"


def small(m=64, n=64, k=64, **fields):
    tl = tiling(m, n, k)
    for f, v in fields.items():
        setattr(tl, f, v)
    return tl


def broken(case, tl=None, b_dt=np.float16, c_shape=(64, 64), c_dt=np.float32, ws=WS):
    a = np.ones((64, 64), np.float16)
    b = np.ones((64, 64), b_dt)
    c = np.zeros(c_shape, c_dt)
    with pytest.raises((AscendSimError, MemoryCheckError)) as e:
        K.broken[1, rt.current_stream()](a, b, c, tl or small(), ws, case)
    return str(e.value)


def test_the_broken_kernel_runs_when_nothing_is_broken():
    c = np.zeros((64, 64), np.float32)
    K.broken[1, rt.current_stream()](np.ones((64, 64), np.float16), np.ones((64, 64), np.float16), c, small(), WS,
                                     "ok")
    assert (c == 64).all()


def test_a_matmul_on_vector_cores_only():
    msg = None
    with pytest.raises(AscendSimError) as e:
        K.on_vector_cores[1, rt.current_stream()](np.ones((64, 64), np.float16), np.ones((64, 64), np.float16),
                                                  np.zeros((64, 64), np.float32), small(), WS)
    msg = str(e.value)
    assert line_of(K, "vector_only") in msg and "REGIST_MATMUL_OBJ" in msg and "vector cores only" in msg


def test_methods_before_init():
    msg = broken("no_init")
    assert line_of(K, "no_init") in msg and "Matmul::SetTensorA" in msg and "not initialized" in msg


def test_iterate_before_set_tensor_b():
    msg = broken("no_b")
    assert line_of(K, "no_b") in msg and "Matmul::IterateAll" in msg and "SetTensorB was not called" in msg


def test_get_tensor_c_without_a_block():
    msg = broken("no_block")
    assert line_of(K, "no_block") in msg and "Matmul::GetTensorC" in msg and "no block to fetch" in msg


def test_get_tensor_c_into_a_too_small_ub_tensor():
    msg = broken("small_ub", small(base_m=64, base_n=64))
    assert line_of(K, "small_ub") in msg and "Matmul::GetTensorC" in msg and "accesses 4096 elements" in msg


def test_iterate_all_to_gm_needs_c_at_gm():
    msg = broken("c_not_gm")
    assert line_of(K, "c_not_gm") in msg and "needs C at TPosition::GM" in msg


def test_a_wrong_type_pair():
    msg = broken("ok", b_dt=np.float32)
    assert line_of(K, "tiling") in msg and "Matmul::Init" in msg and "A is half and B is float" in msg


def test_gm_outside_c():
    msg = broken("sized")
    assert line_of(K, "gm_bounds") in msg and "Matmul::IterateAll" in msg and "out of bounds for 'c'" in msg


def test_a_mix_kernel_without_workspace():
    msg = broken("ok", ws=np.zeros(0, np.uint8))
    assert line_of(K, "tiling") in msg and "the workspace is null" in msg


@pytest.mark.parametrize("fields,words", [
    (dict(base_m=256, base_k=256, single_core_m=256, single_core_k=256), "B of L0A"),
    (dict(base_n=256, base_k=256, base_m=16, single_core_n=256, single_core_k=256), "B of L0B"),
    (dict(base_m=256, base_n=256, base_k=16, db_l0c=1), "B of L0C"),
    (dict(depth_a1=64, depth_b1=64), "B of L1"),
    (dict(base_m=24), "whole 16 x 16 fractals"),
    (dict(base_k=8), "not a multiple of 16"),
    (dict(single_core_k=0), "singleCoreK = 0 is not positive"),
    (dict(iterate_order=2), "iterateOrder = 2"),
])
def test_tiling_budgets_and_fractals(fields, words):
    msg = broken("ok", small(**fields))
    assert line_of(K, "tiling") in msg and "Matmul::Init" in msg and words in msg

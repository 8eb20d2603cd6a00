"""pyasc's Matmul.iterate_batch (CANN's IterateBatch, the mix form into GM, LayoutMode.NORMAL) on the CPU twin:
batch_c = max(batch_a, batch_b) products of the core's part, the smaller side broadcast (batch i takes A's batch
i // (batch_c // batch_a) and B's i // (batch_c // batch_b)), matrix_stride_a / _b between the batches, tails and
one and many cores, each against NumPy; and the rules (batch counts not multiples of one another, A and B in
different layouts, the MDL template, en_sequential_write into GM) naming the call and the Python line."""
import inspect

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.errors import KernelTypeError
from asc.runtime.ascend_sim import AscendSimError

import pyasc_matmul_kernels as K
from test_pyasc_matmul import WS, check

NORMAL = asc.LayoutMode.NORMAL


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def mm_batch(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, tiling: asc.adv.TCubeTiling,
             workspace: asc.GlobalAddress, batch_a: int, batch_b: int, stride_a: int, stride_b: int,
             layout_a: asc.ConstExpr = NORMAL, mdl: asc.ConstExpr[bool] = False,
             seq: asc.ConstExpr[bool] = False):
    off_a, off_b, off_c, off_bias, tail_m, tail_n = K.offsets(tiling, False, False)
    ga = asc.GlobalTensor()
    gb = asc.GlobalTensor()
    gc = asc.GlobalTensor()
    ga.set_global_buffer(a + off_a)
    gb.set_global_buffer(b + off_b)
    gc.set_global_buffer(c + off_c)
    pipe = asc.TPipe()
    cfg = asc.adv.MatmulConfig()
    if mdl:
        cfg = asc.adv.MatmulConfig(do_norm=False, do_multi_data_load=True)
    mm = asc.adv.Matmul(a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, ga.dtype, False, layout_a),
                        b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gb.dtype, False, NORMAL),
                        c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, gc.dtype, False, NORMAL),
                        matmul_config=cfg)
    asc.adv.register_matmul(pipe, workspace, mm, tiling)
    if asc.get_block_idx() < tiling.used_core_num:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        mm.set_tail(tail_m, tail_n)
        mm.iterate_batch(gc, batch_a, batch_b, seq, stride_a, stride_b)  # RULE: batch
        mm.end()


def batch_tiling(m, n, k, ba, bb, dim, c_dt):
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND,
                 host.DataType.DT_FLOAT if c_dt == np.float32 else host.DataType.DT_FLOAT16)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(dim)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.set_buffer_space(-1, -1, -1)
    t.set_a_layout(ba, m, 1, 1, k)
    t.set_b_layout(bb, k, 1, 1, n)
    t.set_c_layout(max(ba, bb), m, 1, 1, n)
    t.set_batch_num(max(ba, bb))
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0, t.error
    return tl


def run(m, n, k, ba, bb, dim=4, c_dt=np.float32, pad_a=0, pad_b=0, seed=0, **kw):
    """A's batches m x k each, pad_a elements apart beyond m * k (matrix_stride_a = m * k + pad_a when padded)."""
    rng = np.random.default_rng(seed)
    sa, sb = m * k + pad_a, k * n + pad_b
    a = rng.standard_normal(ba * sa).astype(np.float16)
    b = rng.standard_normal(bb * sb).astype(np.float16)
    bc = max(ba, bb)
    c = np.zeros((bc, m, n), c_dt)
    tl = batch_tiling(m, n, k, ba, bb, dim, c_dt)
    mm_batch[-(-tl.used_core_num // 2), rt.current_stream()](a, b, c, tl, WS, ba, bb, sa if pad_a else 0,
                                                              sb if pad_b else 0, **kw)
    for i in range(bc):
        ia, ib = i // (bc // ba), i // (bc // bb)
        check(c[i], a[ia * sa:ia * sa + m * k].reshape(m, k), b[ib * sb:ib * sb + k * n].reshape(k, n))
    return tl


@pytest.mark.parametrize("c_dt", [np.float32, np.float16])
def test_equal_batches_on_many_cores(c_dt):
    tl = run(64, 64, 64, 3, 3, dim=4, c_dt=c_dt)
    assert tl.used_core_num > 1


def test_one_core_with_tails():
    run(40, 24, 72, 2, 2, dim=1)
    run(72, 40, 24, 2, 2, dim=4, seed=1)      # tails of M and N on the cores' parts


@pytest.mark.parametrize("ba,bb", [(1, 4), (4, 2), (6, 3)])
def test_the_smaller_side_is_broadcast(ba, bb):
    run(32, 48, 32, ba, bb, dim=2)


def test_matrix_strides_between_the_batches():
    run(32, 32, 48, 3, 3, dim=2, pad_a=80, pad_b=16)


def _line():
    src, first = inspect.getsourcelines(mm_batch)
    return f"test_pyasc_matmul_batch.py:{first + next(i for i, s in enumerate(src) if '# RULE: batch' in s)}"


def _fails(ba, bb, **kw):
    with pytest.raises(AscendSimError) as e:
        run(32, 32, 32, ba, bb, dim=1, **kw)
    msg = str(e.value)
    assert _line() in msg and "Matmul::IterateBatch" in msg
    return msg


def test_batch_counts_not_multiples_of_one_another():
    assert "not multiples of one another" in _fails(2, 3)


def test_a_and_b_in_different_layouts():
    assert "different LayoutModes" in _fails(2, 2, layout_a=asc.LayoutMode.NONE)


def test_the_mdl_template_has_no_batch_matmul():
    assert "Norm template only" in _fails(2, 2, mdl=True)


def test_sequential_write_into_gm_is_refused_at_the_call():
    with pytest.raises(KernelTypeError, match=rf"{_line()}:.*iterate_batch.*en_sequential_write must be False"):
        run(32, 32, 32, 2, 2, dim=1, seq=True)


def test_the_source_is_canns_iterate_batch():
    tl = batch_tiling(32, 32, 32, 2, 2, 1, np.float32)
    src = mm_batch.source(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float32), tl,
                          WS, 2, 2, 0, 0)
    assert "LayoutMode::NORMAL" in src
    assert "mm.IterateBatch(gc, batch_a, batch_b, false, stride_a, stride_b, 0, false, 0);" in src, src

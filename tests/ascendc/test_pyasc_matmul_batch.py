"""pyasc's Matmul.iterate_batch (CANN's IterateBatch, the mix form into GM, LayoutMode.NORMAL) on the CPU twin:
batch_c = max(batch_a, batch_b) products, the smaller side broadcast (batch i takes A's batch i // (batch_c //
batch_a) and B's i // (batch_c // batch_b)), matrix_stride_a / _b between the batches, shapes that are not
multiples of the base block, the batches split between one and many cores (each core whole matrices: CANN's
IterateBatch reads and writes a core's batches as contiguous matrices of its part), each against NumPy; and the
rules (a core's part smaller than the matrices, batch counts not multiples of one another, A and B in different
layouts, the MDL template, en_sequential_write into GM) naming the call and the Python line."""
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
             workspace: asc.GlobalAddress, batch_a: int, batch_b: int, stride_a: int, stride_b: int, cores: int,
             layout_a: asc.ConstExpr = NORMAL, mdl: asc.ConstExpr[bool] = False,
             seq: asc.ConstExpr[bool] = False, split: asc.ConstExpr[bool] = False):
    """Each of `cores` AIVs takes batch_c // cores of C's batches, with the A and B batches they read (whole
    matrices); with split, each takes a quarter of every matrix instead (its part of a multi-core tiling)."""
    batch_c = max(batch_a, batch_b)
    per = batch_c // cores
    v = asc.get_block_idx()
    sa = stride_a if stride_a != 0 else tiling.m * tiling.k_a
    sb = stride_b if stride_b != 0 else tiling.k_b * tiling.n
    first = v * per
    off_a = first * batch_a // batch_c * sa
    off_b = first * batch_b // batch_c * sb
    off_c = first * tiling.m * tiling.n
    if split:
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
    if v < cores:
        mm.set_tensor_a(ga)
        mm.set_tensor_b(gb)
        na, nb = max(1, batch_a * per // batch_c), max(1, batch_b * per // batch_c)
        mm.iterate_batch(gc, na, nb, seq, stride_a, stride_b)  # RULE: batch
        mm.end()


def batch_tiling(m, n, k, ba, bb, c_dt, dim=None):
    """The tiling of one core's whole matrices (MatmulApiTiling), or with dim a multi-core tiling that splits them."""
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform()) if dim else \
        host.MatmulApiTiling(host.get_ascendc_platform())
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT16, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND,
                 host.DataType.DT_FLOAT if c_dt == np.float32 else host.DataType.DT_FLOAT16)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    if dim:
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


def launch(m, n, k, ba, bb, cores=1, c_dt=np.float32, pad_a=0, pad_b=0, seed=0, dim=None, **kw):
    """A's batches m x k each, pad_a elements apart beyond m * k (matrix_stride_a = m * k + pad_a when padded);
    `cores` AIVs (MIX blocks of two) share C's batches. (tiling, c, a, b)."""
    rng = np.random.default_rng(seed)
    sa, sb = m * k + pad_a, k * n + pad_b
    a = rng.standard_normal(ba * sa).astype(np.float16)
    b = rng.standard_normal(bb * sb).astype(np.float16)
    c = np.zeros((max(ba, bb), m, n), c_dt)
    tl = batch_tiling(m, n, k, ba, bb, c_dt, dim)
    mm_batch[-(-cores // 2), rt.current_stream()](a, b, c, tl, WS, ba, bb, sa if pad_a else 0, sb if pad_b else 0,
                                                   cores, **kw)
    return tl, c, a, b


def check_batches(c, a, b, ba, bb, pad_a=0, pad_b=0):
    """Each batch of c against its A and B batches (the smaller side broadcast)."""
    bc, m, n = c.shape
    k = (a.size // ba - pad_a) // m
    sa, sb = m * k + pad_a, k * n + pad_b
    for i in range(bc):
        ia, ib = i // (bc // ba), i // (bc // bb)
        check(c[i], a[ia * sa:ia * sa + m * k].reshape(m, k), b[ib * sb:ib * sb + k * n].reshape(k, n))


def run(m, n, k, ba, bb, cores=1, c_dt=np.float32, pad_a=0, pad_b=0, seed=0, dim=None, **kw):
    tl, c, a, b = launch(m, n, k, ba, bb, cores, c_dt, pad_a, pad_b, seed, dim, **kw)
    check_batches(c, a, b, ba, bb, pad_a, pad_b)
    return tl


@pytest.mark.parametrize("c_dt", [np.float32, np.float16])
def test_equal_batches_on_many_cores(c_dt):
    tl = run(64, 64, 64, 4, 4, cores=4, c_dt=c_dt)
    assert (tl.single_core_m, tl.single_core_n, tl.single_core_k) == (64, 64, 64)


def test_shapes_that_are_not_multiples_of_the_base():
    run(40, 24, 72, 2, 2)
    run(72, 40, 24, 6, 6, cores=3, seed=1)


@pytest.mark.parametrize("ba,bb,cores", [(1, 4, 1), (4, 2, 1), (6, 3, 1), (4, 2, 2), (1, 4, 4)])
def test_the_smaller_side_is_broadcast(ba, bb, cores):
    run(32, 48, 32, ba, bb, cores=cores)


def test_matrix_strides_between_the_batches():
    run(32, 32, 48, 4, 4, cores=2, pad_a=80, pad_b=16)


def test_a_core_part_smaller_than_the_matrices_is_refused():
    """A multi-core tiling splits each 32 x 32 matrix into 16 x 16 parts (pyasc's test_matmul_iterate_batch does
    this): CANN's IterateBatch would read batch 1 of A at the core's offset + 16 * 32 elements (not 32 * 32) and
    write C's batch 1 16 * 16 elements on: refused at the call, naming the shapes."""
    with pytest.raises(AscendSimError) as e:
        run(32, 32, 32, 2, 2, cores=4, dim=16, split=True)
    msg = str(e.value)
    assert _line() in msg and "Matmul::IterateBatch" in msg
    assert "the core's part is 16 x 16 x 32 of M x N x K = 32 x 32 x 32" in msg
    assert "split the batches between the cores" in msg


def _line():
    src, first = inspect.getsourcelines(mm_batch)
    return f"test_pyasc_matmul_batch.py:{first + next(i for i, s in enumerate(src) if '# RULE: batch' in s)}"


def _fails(ba, bb, **kw):
    with pytest.raises(AscendSimError) as e:
        run(32, 32, 32, ba, bb, **kw)
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
        run(32, 32, 32, 2, 2, seq=True)


def test_the_source_is_canns_iterate_batch():
    tl = batch_tiling(32, 32, 32, 2, 2, np.float32)
    src = mm_batch.source(np.zeros(8, np.float16), np.zeros(8, np.float16), np.zeros(8, np.float32), tl,
                          WS, 2, 2, 0, 0, 1)
    assert "LayoutMode::NORMAL" in src
    assert "mm.IterateBatch(gc, na, nb, false, stride_a, stride_b, 0, false, 0);" in src, src

"""asc.lib.host, pyasc's Matmul host tiling: every tiling of a sweep of shapes (1 to large, primes), input types
(float16, bfloat16, float32, int8), bias, transposes and core counts stays within the 910B1's L1 / L0A / L0B / L0C /
BiasTable, is in whole fractals and splits the problem over cores that each have work; the tutorials' shapes get
the splits their kernels need; bad arguments return pyasc's -1 with a warning naming the argument; TCubeTiling
is the C struct's layout and a kernel reads it on the CPU twin. The budget rules are restated here, not taken from
asc.lib.host."""
import ctypes
import itertools
import warnings

import numpy as np
import pytest

import asc
import asc.lib.host as host
import asc.lib.runtime as rt
import asc.runtime.config as config
from asc.backends.ascend import soc
from asc.runtime import ascend_sim

DT = host.DataType
GM = host.TPosition.GM
ND = host.CubeFormat.ND

L1, L0A, L0B, L0C, BT = 512 * 1024 - 128, 64 * 1024, 64 * 1024, 128 * 1024, 1024
SIZE = {DT.DT_FLOAT16: 2, DT.DT_BF16: 2, DT.DT_FLOAT: 4, DT.DT_INT8: 1, DT.DT_INT32: 4}
C_OF = {DT.DT_FLOAT16: DT.DT_FLOAT, DT.DT_BF16: DT.DT_FLOAT, DT.DT_FLOAT: DT.DT_FLOAT, DT.DT_INT8: DT.DT_INT32}
BIAS_OF = {DT.DT_FLOAT16: DT.DT_FLOAT, DT.DT_BF16: DT.DT_FLOAT, DT.DT_FLOAT: DT.DT_FLOAT, DT.DT_INT8: DT.DT_INT32}


def ceil(a, b):
    return -(-a // b)


def align(a, b):
    return ceil(a, b) * b


def make(m, n, k, dtype=DT.DT_FLOAT16, bias=False, ta=False, tb=False, dim=24, cls=host.MultiCoreMatmulTiling,
         c_pos=GM, org=None):
    t = cls(host.get_ascendc_platform())
    assert t.set_a_type(GM, ND, dtype, ta) == 0
    assert t.set_b_type(GM, ND, dtype, tb) == 0
    assert t.set_c_type(c_pos, ND, C_OF[dtype]) == 0
    assert t.set_bias_type(GM, ND, BIAS_OF[dtype]) == 0
    if dim is not None:
        assert t.set_dim(dim) == 0
    assert t.set_org_shape(*(org or (m, n, k))) == 0
    assert t.set_shape(m, n, k) == 0
    assert t.enable_bias(bias) == 0
    assert t.set_buffer_space(-1, -1, -1) == 0
    return t


def tiling_of(t):
    tl = asc.adv.TCubeTiling()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert t.get_tiling(tl) == 0
    return tl


def granules(dtype, ta, tb):
    """(M, N, K) multiples of a base block: 16 x 32-byte fractals; K is 32 bytes (float32: 8) only where it is the
    inner axis of both A and B, else 16 rows as well; int8's 32-byte side is 32 elements."""
    c0 = 32 // SIZE[dtype]
    return (c0 if ta and c0 > 16 else 16, c0 if not tb and c0 > 16 else 16,
            c0 if (not ta and tb) else max(16, c0))


def assert_valid(tl, m, n, k, dtype, bias, ta, tb, dim):
    sa = SIZE[dtype]
    gm, gn, gk = granules(dtype, ta, tb)
    assert (tl.m, tl.n, tl.k_a, tl.k_b) == (m, n, k, k)
    # the split: every used core has work, together they cover C once
    mb, nb = ceil(m, tl.single_core_m), ceil(n, tl.single_core_n)
    assert tl.single_core_k == k
    assert tl.used_core_num == mb * nb, (mb, nb, tl.used_core_num)
    assert 1 <= tl.used_core_num <= dim
    assert (mb - 1) * tl.single_core_m < m <= mb * tl.single_core_m
    assert (nb - 1) * tl.single_core_n < n <= nb * tl.single_core_n
    # base blocks: whole fractals, no larger than the core's block
    assert tl.base_m % gm == 0 and tl.base_n % gn == 0 and tl.base_k % gk == 0, (tl.base_m, tl.base_n, tl.base_k)
    assert tl.base_m <= align(tl.single_core_m, gm) and tl.base_n <= align(tl.single_core_n, gn)
    assert tl.base_k <= align(tl.single_core_k, gk)
    # L0A / L0B with their ping-pong, 512-byte blocks (ascend-sim's L0 alignment); L0C float32 / int32 accumulators
    a_blk, b_blk = tl.base_m * tl.base_k * sa, tl.base_n * tl.base_k * sa
    assert a_blk % 512 == 0 and b_blk % 512 == 0
    assert tl.db_l0a in (1, 2) and tl.db_l0b in (1, 2) and tl.db_l0c in (1, 2)
    assert a_blk * tl.db_l0a <= L0A and b_blk * tl.db_l0b <= L0B
    assert tl.base_m * tl.base_n * 4 * tl.db_l0c <= L0C
    # L1: depth_a1 blocks of A, depth_b1 of B and the bias row; the BiasTable
    bias_row = tl.base_n * SIZE[BIAS_OF[dtype]] if bias else 0
    assert tl.is_bias == int(bias)
    assert tl.depth_a1 * a_blk + tl.depth_b1 * b_blk + bias_row <= L1
    assert bias_row <= BT
    assert tl.depth_a1 in (tl.step_m * tl.step_k_a, 2 * tl.step_m * tl.step_k_a)
    assert tl.depth_b1 in (tl.step_n * tl.step_k_b, 2 * tl.step_n * tl.step_k_b)
    kblocks = ceil(tl.single_core_k, tl.base_k)
    assert 1 <= tl.step_k_a <= kblocks and 1 <= tl.step_k_b <= kblocks
    if tl.step_k_a < kblocks:
        assert tl.step_m == 1
    if tl.step_k_b < kblocks:
        assert tl.step_n == 1
    assert 1 <= tl.step_m <= ceil(tl.single_core_m, tl.base_m) and 1 <= tl.step_n <= ceil(tl.single_core_n,
                                                                                            tl.base_n)
    assert tl.iterate_order in (0, 1)


SIZES = [1, 2, 15, 16, 17, 97, 128, 257, 1000, 4099, 30720, 65537]
CONFIGS = list(itertools.product([DT.DT_FLOAT16, DT.DT_BF16, DT.DT_FLOAT, DT.DT_INT8], [False, True],
                                 [False, True], [False, True], [1, 24, 48]))


@pytest.mark.parametrize("m", SIZES)
def test_sweep_stays_within_the_budgets(m):
    """12 x 12 shapes (n, k) per m, each with 4 of the 96 (dtype, bias, trans_a, trans_b, cores) configurations
    in turn, so that every configuration meets every size of every axis."""
    count = 0
    for j, (n, k) in enumerate(itertools.product(SIZES, SIZES)):
        for r in range(4):
            dtype, bias, ta, tb, dim = CONFIGS[(j * 4 + r + SIZES.index(m) * 5) % len(CONFIGS)]
            t = make(m, n, k, dtype, bias, ta, tb, dim)
            tl = tiling_of(t)
            assert_valid(tl, m, n, k, dtype, bias, ta, tb, dim)
            assert t.check(tl) == []
            assert t.get_core_num() == (tl.used_core_num, ceil(m, tl.single_core_m), ceil(n, tl.single_core_n))
            assert t.get_single_shape() == (tl.single_core_m, tl.single_core_n, tl.single_core_k)
            assert (t.get_base_m(), t.get_base_n(), t.get_base_k()) == (tl.base_m, tl.base_n, tl.base_k)
            count += 1
    assert count == len(SIZES) ** 2 * 4


@pytest.mark.parametrize("cls", [host.MatmulApiTiling, host.BatchMatmulTiling])
@pytest.mark.parametrize("dtype", [DT.DT_FLOAT16, DT.DT_FLOAT, DT.DT_INT8])
def test_single_core_tilings(cls, dtype):
    for m, n, k in [(1, 1, 1), (33, 65, 129), (1024, 1024, 1024), (7919, 13, 4099), (16, 30720, 64)]:
        tl = tiling_of(make(m, n, k, dtype, bias=True, dim=None, cls=cls))
        assert_valid(tl, m, n, k, dtype, True, False, False, 1)
        assert (tl.single_core_m, tl.single_core_n, tl.used_core_num) == (m, n, 1)


def test_more_cores_when_the_work_is_large():
    """Large problems use every core they are given; a 16 x 16 x 16 one uses one."""
    assert tiling_of(make(4096, 4096, 4096, dim=24)).used_core_num == 24
    assert tiling_of(make(4096, 4096, 4096, dim=48)).used_core_num == 48
    assert tiling_of(make(16, 16, 16, dim=24)).used_core_num == 1


def test_batch_fields_start_at_one_as_in_cann():
    """batchM, batchN, singleBatchM and singleBatchN are 1 in every tiling that does not set them (CANN's
    MatmulApiTilingBase starts them at 1, and CANN's IterateBatch reads them): never 0."""
    for dim in (None, 8):
        tl = tiling_of(make(256, 128, 64, dim=dim))
        assert (tl.batch_m, tl.batch_n, tl.single_batch_m, tl.single_batch_n) == (1, 1, 1, 1)


def test_tutorial_04_cube_only():
    """matmul_cube_only: m, k, n = 128, 64, 30720 float16 -> float32 on 24 cube cores: N over the cores,
    1280 columns each, in (128, 256, 64) blocks; the blocks of the kernel's calc_offsets cover C once."""
    tl = tiling_of(make(128, 30720, 64, dim=24))
    assert_valid(tl, 128, 30720, 64, DT.DT_FLOAT16, False, False, False, 24)
    assert (tl.used_core_num, tl.single_core_m, tl.single_core_n, tl.single_core_k) == (24, 128, 1280, 64)
    assert (tl.base_m, tl.base_n, tl.base_k) == (128, 256, 64)
    assert_calc_offsets_cover(tl)


def test_tutorial_03_mix():
    """matmul_mix: 512 x 1024 x 512 float16 with set_dim(48) (vector cores driving the Matmul); the kernel
    launches 24 blocks (48 vector cores) and each block index below used_core_num needs a non-empty tail."""
    tl = tiling_of(make(512, 1024, 512, dim=48))
    assert_valid(tl, 512, 1024, 512, DT.DT_FLOAT16, False, False, False, 48)
    assert 24 <= tl.used_core_num <= 48
    assert_calc_offsets_cover(tl)


def test_tutorial_05_leakyrelu():
    """matmul_leakyrelu: 1024 x 640 x 256, C in VECCALC, bias, set_dim(2), set_fix_split(256, 128, -1), FIRSTM:
    its kernel launches used_core_num // 2 blocks and copies whole base blocks without tails, so the split must
    be 2 cores whose blocks are whole multiples of 256 x 128 and divide M and N."""
    t = make(1024, 640, 256, bias=True, dim=2, c_pos=host.TPosition.VECCALC)
    assert t.set_traverse(host.MatrixTraverse.FIRSTM) == 0
    assert t.set_fix_split(256, 128, -1) == 0
    tl = tiling_of(t)
    assert_valid(tl, 1024, 640, 256, DT.DT_FLOAT16, True, False, False, 2)
    assert tl.used_core_num == 2 and (tl.base_m, tl.base_n) == (256, 128) and tl.iterate_order == 0
    assert tl.single_core_m % tl.base_m == 0 and tl.single_core_n % tl.base_n == 0
    assert 1024 % tl.single_core_m == 0 and 640 % tl.single_core_n == 0
    assert_calc_offsets_cover(tl)


def test_generalization_shapes():
    """pyasc's generalization/adv tests: float32 1024 x 512 x 256 (C in VECCALC, bias) and int8 on 16 cores."""
    tl = tiling_of(make(1024, 512, 256, DT.DT_FLOAT, bias=True, dim=16, c_pos=host.TPosition.VECCALC))
    assert_valid(tl, 1024, 512, 256, DT.DT_FLOAT, True, False, False, 16)
    assert tl.used_core_num == 16
    tl = tiling_of(make(1024, 512, 256, DT.DT_INT8, dim=16))
    assert_valid(tl, 1024, 512, 256, DT.DT_INT8, False, False, False, 16)


def assert_calc_offsets_cover(tl):
    """The tutorials' calc_offsets (m_index = block % m_blocks, n_index = block // m_blocks, tails clipped)
    for every block below used_core_num: positive tails, and the blocks cover C exactly once."""
    cover = np.zeros((tl.m, tl.n), np.int32)
    m_blocks = ceil(tl.m, tl.single_core_m)
    for block in range(tl.used_core_num):
        mi, ni = block % m_blocks, block // m_blocks
        tail_m = min(tl.m - mi * tl.single_core_m, tl.single_core_m)
        tail_n = min(tl.n - ni * tl.single_core_n, tl.single_core_n)
        assert tail_m > 0 and tail_n > 0, block
        cover[mi * tl.single_core_m:mi * tl.single_core_m + tail_m,
              ni * tl.single_core_n:ni * tl.single_core_n + tail_n] += 1
    assert (cover == 1).all()


def test_split_k_covers_k():
    t = make(64, 64, 8192, dim=24)
    t.enable_multi_core_split_k(True)
    tl = tiling_of(t)
    kb = ceil(8192, tl.single_core_k)
    assert kb > 1 and tl.used_core_num == ceil(64, tl.single_core_m) * ceil(64, tl.single_core_n) * kb
    assert tl.single_core_k % 16 == 0 and t.check(tl) == []
    t = make(64, 64, 8192, bias=True, dim=24)
    t.enable_multi_core_split_k(True)
    with pytest.warns(host.TilingWarning, match="K split takes no bias"):
        assert t.get_tiling(asc.adv.TCubeTiling()) == -1


def test_buffer_space_limits_the_tiling():
    t = make(1024, 1024, 1024, dim=1)
    assert t.set_buffer_space(64 * 1024, 32 * 1024) == 0
    tl = tiling_of(t)
    sa = 2
    assert tl.depth_a1 * tl.base_m * tl.base_k * sa + tl.depth_b1 * tl.base_n * tl.base_k * sa <= 64 * 1024
    assert tl.base_m * tl.base_n * 4 * tl.db_l0c <= 32 * 1024


def test_transposes_and_float32_k_granule():
    """float32 K may be 8 elements only when it is the inner axis of A and of B (A plain, B transposed)."""
    for ta, tb in itertools.product([False, True], repeat=2):
        tl = tiling_of(make(48, 48, 8, DT.DT_FLOAT, ta=ta, tb=tb, dim=1))
        assert tl.base_k == (8 if (not ta and tb) else 16), (ta, tb)


# ------------------------------------------------------------------ pyasc's conventions


def test_defaults_and_shapes_as_pyasc():
    t = host.MatmulApiTiling(host.get_ascendc_platform())     # float32 A, B, C unless set
    t.set_shape(32, 16, 8)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0 and (tl.m, tl.n, tl.k_a, tl.k_b) == (32, 16, 8, 8)
    t = host.MatmulApiTiling()
    t.set_org_shape(32, 16, 8, 4)
    tl = asc.adv.TCubeTiling()
    assert t.get_tiling(tl) == 0 and (tl.m, tl.n, tl.k_a, tl.k_b) == (32, 16, 8, 4)
    assert tl.single_core_k == 4
    t = host.MatmulApiTiling()
    t.set_org_shape(org_m_in=32, org_n_in=16, org_k_in=8)
    assert t.get_tiling(tl) == 0 and (tl.m, tl.n, tl.k_a, tl.k_b) == (32, 16, 8, 8)
    with pytest.raises(TypeError, match="set_org_shape: takes"):
        t.set_org_shape(32, 16)
    t = host.MultiCoreMatmulTiling()
    assert t.get_core_num() is None and t.get_single_shape() is None
    t.set_shape(32, 32, 32)
    t.set_fix_split(32, 16, 8)
    assert (t.get_base_m(), t.get_base_n(), t.get_base_k()) == (32, 16, 8)
    b = host.BatchMatmulTiling(host.get_ascendc_platform())
    b.set_shape(32, 32, 32)
    b.set_a_layout(2, 32, 1, 3, 64)
    b.set_batch_num(3)
    tl = asc.adv.TCubeTiling()
    assert b.get_tiling(tl) == 0 and b.get_core_num() == (1, 1, 1, 1, 1)
    assert (tl.a_layout_info_b, tl.a_layout_info_g, tl.a_layout_info_d, tl.batch_num) == (2, 3, 64, 3)


def test_platform():
    p = host.get_ascendc_platform()
    assert p.get_soc_version() == "Ascend910B1"
    assert (p.get_core_num_aic(), p.get_core_num_aiv(), p.get_core_num()) == (24, 48, 48)
    M = host.CoreMemType
    assert [p.get_core_mem_size(x) for x in (M.L1, M.L0_A, M.L0_B, M.L0_C, M.UB)] == \
        [512 * 1024, 65536, 65536, 131072, 196608]
    assert host.PlatformAscendCManager.get_instance(rt.get_soc_version().value) is p
    assert host.PlatformAscendCManager.get_instance("Ascend910B4").get_core_num_aic() == 20
    # the L2 each SoC reports is its own (the SoC table's): 96 MB on the Ascend910B4, not the B1's 192 MB
    assert host.PlatformAscendCManager.get_instance("Ascend910B4").get_core_mem_size(M.L2) == 96 * 1024 * 1024
    assert p.get_core_mem_size(M.L2) == 192 * 1024 * 1024
    with pytest.raises(ValueError, match="unknown SoC 'Ascend310P'"):
        host.PlatformAscendCManager.get_instance("Ascend310P")


def test_memory_sizes_agree_with_ascend_sim_and_properties():
    """One declaration (asc/chip.py) for the tiling, pyasc's properties and ascend-sim (its -D flags; the headers
    write no size: tests/test_chip.py)."""
    flags = dict(f[2:].split("=") for f in ascend_sim.chip_flags())
    assert {k: int(flags[k]) for k in ("ASC_CHIP_L1_BYTES", "ASC_CHIP_L0A_BYTES", "ASC_CHIP_L0B_BYTES",
                                       "ASC_CHIP_L0C_BYTES", "ASC_CHIP_L1_RESERVED")} == \
        {"ASC_CHIP_L1_BYTES": soc.L1_BYTES, "ASC_CHIP_L0A_BYTES": soc.L0A_BYTES, "ASC_CHIP_L0B_BYTES": soc.L0B_BYTES,
         "ASC_CHIP_L0C_BYTES": soc.L0C_BYTES, "ASC_CHIP_L1_RESERVED": soc.L1_RESERVED}
    assert soc.L1_RESERVED == 128
    assert asc.TOTAL_L1_SIZE.value == soc.L1_BYTES and asc.TOTAL_L0C_SIZE.value == soc.L0C_BYTES


# ------------------------------------------------------------------ bad arguments: -1 and a warning naming them


@pytest.mark.parametrize("call,args,named", [
    ("set_shape", (0, 16, 16), "set_shape: m must be a positive"),
    ("set_shape", (16, -5, 16), "set_shape: n must be a positive"),
    ("set_shape", (16, 16, 2 ** 31), "set_shape: k = 2147483648 does not fit"),
    ("set_org_shape", (16, 16, 16, 0), "set_org_shape: org_kb_in must be a positive"),
    ("set_fix_split", (0, -1, -1), "set_fix_split: base_m_in must be a positive"),
    ("set_buffer_space", (-7,), "set_buffer_space: l1_size must be a positive"),
    ("set_dim", (0,), r"set_dim: dim must be 1\.\.48"),
    ("set_dim", (49,), r"set_dim: dim must be 1\.\.48"),
    ("set_a_type", (GM, ND, DT.DT_INT64, False), "set_a_type: data_type DT_INT64 is not a type"),
    ("set_b_type", (GM, ND, DT.DT_DOUBLE, False), "set_b_type: data_type DT_DOUBLE is not a type"),
    ("set_c_type", (GM, ND, DT.DT_BOOL), "set_c_type: data_type DT_BOOL"),
    ("set_a_type", (host.TPosition.CO1, ND, DT.DT_FLOAT16, False), "set_a_type: pos TPosition.CO1"),
    ("set_batch_num", (0,), "set_batch_num: batch must be positive"),
])
def test_bad_values_return_minus_one_naming_the_argument(call, args, named):
    t = make(64, 64, 64)
    with pytest.warns(host.TilingWarning, match=named):
        assert getattr(t, call)(*args) == -1
    # the failure stays: get_tiling refuses, names it again, and leaves the tiling as it was
    tl = asc.adv.TCubeTiling(m=7)
    with pytest.warns(host.TilingWarning, match="get_tiling: an earlier call failed .*" + named.split(":")[0]):
        assert t.get_tiling(tl) == -1
    assert tl.m == 7 and tl.used_core_num == 0 and t.get_core_num() is None


@pytest.mark.parametrize("setup,named", [
    (lambda t: t.set_b_type(GM, ND, DT.DT_FLOAT, False), "set_b_type: data_type DT_FLOAT differs from A's"),
    (lambda t: t.set_c_type(GM, ND, DT.DT_INT32), "set_c_type: data_type DT_INT32 is not an output"),
    (lambda t: (t.enable_bias(True), t.set_bias_type(GM, ND, DT.DT_INT32)), "set_bias_type: data_type DT_INT32"),
    (lambda t: t.set_fix_split(20, -1, -1), "set_fix_split: base_m_in = 20 is not a multiple of 16"),
    (lambda t: t.set_fix_split(16, 16, 12), "set_fix_split: base_k_in = 12 is not a multiple of 16"),
    (lambda t: t.set_fix_split(512, 512, -1), "no base block fits"),
    (lambda t: t.set_shape(128, 64, 64), "set_shape: m = 128 exceeds the original shape's 64"),
    (lambda t: (t.set_org_shape(128, 128, 64), t.set_shape(128, 128, 64), t.set_single_shape(16, 16, -1)),
     "more than the 24 cores"),
])
def test_bad_combinations_fail_in_get_tiling(setup, named):
    t = make(64, 64, 64)
    setup(t)
    with pytest.warns(host.TilingWarning, match=named):
        assert t.get_tiling(asc.adv.TCubeTiling()) == -1
    assert t.error.startswith("get_tiling: ")


def test_wrong_kinds_are_type_errors_naming_the_argument():
    t = host.MultiCoreMatmulTiling()
    with pytest.raises(TypeError, match="set_shape: m is an int, got '16'"):
        t.set_shape("16", 16, 16)
    with pytest.raises(TypeError, match="set_a_type: pos is a host.TPosition"):
        t.set_a_type("GM", ND, DT.DT_FLOAT16, False)
    with pytest.raises(TypeError, match="set_a_type: data_type is a host.DataType"):
        t.set_a_type(GM, ND, np.float16, False)
    with pytest.raises(TypeError, match="set_a_type: is_trans is a bool"):
        t.set_a_type(GM, ND, DT.DT_FLOAT16, 1)
    with pytest.raises(TypeError, match="get_tiling: tiling is an asc.adv.TCubeTiling"):
        t.get_tiling({})
    with pytest.raises(TypeError, match="ascendc_platform is a host.PlatformAscendC"):
        host.MatmulApiTiling("Ascend910B1")
    assert t.set_a_type(GM, ND, asc.float16, False) == 0 and t.a.dtype == DT.DT_FLOAT16   # asc's own dtypes


# ------------------------------------------------------------------ TCubeTiling


def test_tcube_tiling_layout():
    """The 50 int32 fields of asc-devkit's TCubeTiling in its order: 200 bytes, usedCoreNum first, mxTypePara
    last; pyasc's Python names with their C names; constructible by keyword, no other fields."""
    T = asc.adv.TCubeTiling
    assert T is host.TCubeTiling
    c = T.ctypes_type()
    assert ctypes.sizeof(c) == 200
    names = list(T._asc_fields)
    assert names[:5] == ["used_core_num", "m", "n", "k_a", "k_b"] and names[-1] == "mx_type_para"
    assert c.base_m.offset == 8 * 4 and c.db_l0c.offset == 32 * 4 and c.batch_num.offset == 48 * 4
    t = T(used_core_num=3, base_k=64)
    assert (t.used_core_num, t.base_k, t.m) == (3, 64, 0)
    assert t.c_name("used_core_num") == "usedCoreNum" and t.c_name("k_a") == "Ka" and \
        t.c_name("share_l0c_size") == "shareL0CSize" and t.c_name("c_layout_info_s2") == "CLayoutInfoS2"
    assert t.to_ctypes().base_k == 64
    with pytest.raises(TypeError, match="no field 'basem'"):
        T(basem=1)
    with pytest.raises(AttributeError):
        t.basem = 1


@asc.jit
def read_tiling(out: asc.GlobalAddress, tiling: asc.adv.TCubeTiling):
    g = asc.GlobalTensor()
    g.set_global_buffer(out)
    tiling.share_l1_size = asc.property(asc.TOTAL_L1_SIZE)
    g.set_value(0, tiling.used_core_num)
    g.set_value(1, tiling.single_core_n)
    g.set_value(2, tiling.base_m * tiling.base_n)
    g.set_value(3, tiling.k_a)
    g.set_value(4, tiling.share_l1_size)
    g.set_value(5, tiling.db_l0c)
    g.set_value(6, tiling.mx_type_para)


def test_a_kernel_reads_the_tiling_on_the_cpu_twin():
    config.set_platform(config.Backend.CPU)
    tl = tiling_of(make(128, 30720, 64, dim=24))
    out = np.zeros(8, np.int32)
    read_tiling[1, rt.current_stream()](out, tl)
    assert out.tolist() == [24, 1280, 128 * 256, 64, 512 * 1024, tl.db_l0c, 0, 0]
    assert tl.share_l1_size != 512 * 1024        # the kernel's assignment is its own copy


def walk(tl, a, b, bias):
    """C as a Matmul following the tiling computes it: per used core its block (K parts summed, as the K split's
    atomic adds do), base blocks in iterate_order (the core's tail blocks clipped), K in base_k steps loaded to L1
    step_k_a / step_k_b base blocks at a time. Also checks that no base block is computed twice."""
    m, n, k = tl.m, tl.n, tl.k_a
    c = np.zeros((m, n))
    seen = set()
    mb, nb = ceil(m, tl.single_core_m), ceil(n, tl.single_core_n)
    for core in range(tl.used_core_num):
        mi, ni, ki = core % mb, core // mb % nb, core // (mb * nb)
        m0, n0, k0 = mi * tl.single_core_m, ni * tl.single_core_n, ki * tl.single_core_k
        tm, tn, tk = min(tl.single_core_m, m - m0), min(tl.single_core_n, n - n0), min(tl.single_core_k, k - k0)
        assert tm > 0 and tn > 0 and tk > 0
        mbl, nbl = ceil(tm, tl.base_m), ceil(tn, tl.base_n)
        order = [(i, j) for j in range(nbl) for i in range(mbl)] if tl.iterate_order == 0 else \
            [(i, j) for i in range(mbl) for j in range(nbl)]
        for i, j in order:
            r0, c0 = m0 + i * tl.base_m, n0 + j * tl.base_n
            r1, c1 = min(r0 + tl.base_m, m0 + tm), min(c0 + tl.base_n, n0 + tn)
            assert (r0, c0, k0) not in seen
            seen.add((r0, c0, k0))
            acc = np.zeros((r1 - r0, c1 - c0))
            for load in range(0, tk, tl.base_k * tl.step_k_a):          # one L1 load of A's K blocks
                for kk in range(load, min(load + tl.base_k * tl.step_k_a, tk), tl.base_k):
                    k1 = min(kk + tl.base_k, tk)
                    acc += a[r0:r1, k0 + kk:k0 + k1] @ b[k0 + kk:k0 + k1, c0:c1]
            c[r0:r1, c0:c1] += acc + (bias[c0:c1] if (tl.is_bias and ki == 0) else 0)
    return c


@pytest.mark.parametrize("m,n,k,dim,bias,split_k", [(128, 30720, 64, 24, False, False), (97, 1000, 257, 48, True,
                                                    False), (1, 4099, 17, 24, True, False), (513, 65, 1000, 7,
                                                    False, False), (64, 48, 8192, 24, False, True)])
def test_a_matmul_following_the_tiling_computes_a_at_b(m, n, k, dim, bias, split_k):
    t = make(m, n, k, bias=bias, dim=dim)
    if split_k:
        t.enable_multi_core_split_k(True)
    tl = tiling_of(t)
    rng = np.random.default_rng(m * n + k)
    a, b, bv = rng.standard_normal((m, k)), rng.standard_normal((k, n)), rng.standard_normal(n)
    np.testing.assert_allclose(walk(tl, a, b, bv), a @ b + (bv if bias else 0), rtol=1e-10, atol=1e-9)

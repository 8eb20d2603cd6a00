"""asc.lib.tiling_solver alone: a Problem built by hand (no tiling class, no setters, no platform object) solves to a
tiling within the budgets it is given, in whole fractals, over cores that each have work; smaller budgets and fewer
cores give smaller tilings; what cannot be tiled is Infeasible with the reason. The budget rules are restated here."""
import itertools

import pytest

import asc
from asc import chip
from asc.ascendc.enums import TPosition
from asc.lib import tiling_solver as ts
from asc.lib.tiling_enums import CubeFormat, DataType

DT = DataType
FULL = ts.Budget(l1=chip.L1_BYTES - chip.L1_RESERVED, l0a=chip.L0A_BYTES, l0b=chip.L0B_BYTES, l0c=chip.L0C_BYTES,
                 ub=chip.UB_BYTES, bt=chip.BT_BYTES)
B1 = chip.SOCS["Ascend910B1"]
MACHINE = ts.Machine(hbm_bytes_per_cycle=B1["hbm_gbs"] / B1["clock_ghz"])
SIZE = {DT.DT_FLOAT16: 2, DT.DT_FLOAT: 4, DT.DT_INT8: 1}
C_OF = {DT.DT_FLOAT16: DT.DT_FLOAT, DT.DT_FLOAT: DT.DT_FLOAT, DT.DT_INT8: DT.DT_INT32}


def problem(m, n, k, dtype=DT.DT_FLOAT16, bias=False, cores=24, budget=FULL, **kw):
    op = ts.Operand(TPosition.GM, CubeFormat.ND, dtype, False)
    c = ts.Operand(TPosition.GM, CubeFormat.ND, C_OF[dtype], False)
    return ts.Problem(m, n, k, (m, n, k, k), True, op, op, c, c if bias else None, budget, MACHINE, cores, **kw)


def within(fields, budget, dtype, bias, cores):
    """The restated budget rules (16-row fractals of 32-byte rows; L0 ping-pong; L1 depths and the bias row)."""
    f = fields
    s = SIZE[dtype]
    assert f["base_m"] % 16 == 0 and f["base_n"] % 16 == 0 and (f["base_k"] * s) % 32 == 0
    a_blk, b_blk = f["base_m"] * f["base_k"] * s, f["base_n"] * f["base_k"] * s
    assert a_blk * f["db_l0a"] <= budget.l0a and b_blk * f["db_l0b"] <= budget.l0b
    assert f["base_m"] * f["base_n"] * 4 * f["db_l0c"] <= budget.l0c
    bias_row = f["base_n"] * 4 if bias else 0
    assert f["depth_a1"] * a_blk + f["depth_b1"] * b_blk + bias_row <= budget.l1 and bias_row <= budget.bt
    mb, nb = -(-f["m"] // f["single_core_m"]), -(-f["n"] // f["single_core_n"])
    assert f["used_core_num"] == mb * nb <= cores


@pytest.mark.parametrize("dtype", [DT.DT_FLOAT16, DT.DT_FLOAT, DT.DT_INT8])
def test_solutions_stay_within_the_given_budgets(dtype):
    small = ts.Budget(l1=64 * 1024, l0a=16 * 1024, l0b=16 * 1024, l0c=32 * 1024, ub=chip.UB_BYTES, bt=chip.BT_BYTES)
    for (m, n, k), bias, budget, cores in itertools.product([(1, 1, 1), (97, 257, 1000), (4096, 4096, 4096)],
                                                            [False, True], [FULL, small], [1, 24]):
        fields, dims = ts.solve(problem(m, n, k, dtype, bias, cores, budget))
        within(fields, budget, dtype, bias, cores)
        assert dims[0] == fields["used_core_num"] and (fields["m"], fields["n"], fields["k_a"]) == (m, n, k)
        assert ts.check_tiling(asc.adv.TCubeTiling(**fields), *_ops(dtype, bias), budget, cores) == []


def _ops(dtype, bias):
    p = problem(1, 1, 1, dtype, bias)
    return p.a, p.b, p.bias


def test_smaller_budgets_give_smaller_blocks_and_more_cores_more_parts():
    big, _ = ts.solve(problem(2048, 2048, 2048))
    tight = ts.Budget(l1=64 * 1024, l0a=16 * 1024, l0b=16 * 1024, l0c=16 * 1024, ub=chip.UB_BYTES, bt=chip.BT_BYTES)
    small, _ = ts.solve(problem(2048, 2048, 2048, budget=tight))
    assert small["base_m"] * small["base_n"] < big["base_m"] * big["base_n"]
    assert ts.solve(problem(2048, 2048, 2048, cores=1))[0]["used_core_num"] == 1
    assert ts.solve(problem(2048, 2048, 2048, cores=24))[0]["used_core_num"] == 24


def test_the_callers_fixed_values_are_kept():
    fields, _ = ts.solve(problem(1024, 640, 256, fixed=(256, 128, -1), cores=2))
    assert (fields["base_m"], fields["base_n"], fields["used_core_num"]) == (256, 128, 2)
    fields, dims = ts.solve(problem(64, 64, 8192, k_split=True))
    assert dims[3] > 1 and fields["single_core_k"] < 8192


@pytest.mark.parametrize("kw,reason", [
    ({"fixed": (20, -1, -1)}, "base_m_in = 20 is not a multiple of 16"),
    ({"fixed": (512, 512, -1)}, "no base block fits"),
    ({"single": (16, 16, -1), "cores": 24}, "more than the 24 cores"),
])
def test_infeasible_names_the_reason(kw, reason):
    with pytest.raises(ts.Infeasible, match=reason):
        ts.solve(problem(128, 128, 64, **kw))

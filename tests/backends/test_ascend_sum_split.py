"""A sum of the whole loop into one element (mse's `out[0] += d * d`, then `out[0] = out[0] / N`) on the ascend
target runs on every vector core: fixed blocks of SUM_BLOCK elements, each summed into its own partial (element k
into lane k % 256, then ReduceSum), the partials in a GM workspace, and block 0 adds them in block order after the
hard SyncAll (a KERNEL_TYPE_MIX_AIV_1_0 kernel). The bits are those of that fixed order, the same for every core
count and tile size (checked against a NumPy model of the order), within the corpus's tolerance of the
interpreter's sequential float32 sum; ascend-sim refuses the kernel without its SyncAll."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from asc import compiler
from asc.backends import ascend
from asc.backends.ascend.soc import soc_info
from asc.backends.ascend.window_budget import SUM_BLOCK, SUM_COMBINE, SUM_LANES, SUM_PARTS
from asc.runtime import ascend_sim
from helpers import close, interpreted

N = lang.dim("N")


@lang.kernel
def sq_mean(a: lang.float32[N], b: lang.float32[N]) -> lang.float32[3]:
    out = lang.zeros(3, dtype=lang.float32)
    for i in range(N):
        d = a[i] - b[i]
        out[1] += d * d
    out[1] = out[1] / N
    return out


def _tree(v: np.ndarray) -> np.float32:
    """v (float32, a power of two long) summed as a binary tree of adjacent pairs, each addition in float32."""
    while len(v) > 1:
        v = (v[0::2] + v[1::2]).astype(np.float32)
    return v[0]


def _lanes_sum(x: np.ndarray) -> np.float32:
    """x (float32) into SUM_LANES lanes (element k into lane k % SUM_LANES, in order), then the lanes through
    ReduceSum as A2 adds them (asc-devkit ReduceSum.md, its key features: the count interface sums each 64-float
    repeat as a binary tree and adds the repeats' sums in order)."""
    lanes = np.zeros(SUM_LANES, np.float32)
    for k in range(0, len(x), SUM_LANES):
        part = x[k:k + SUM_LANES]
        lanes[:len(part)] += part
    total = _tree(lanes[:64])
    for r in range(64, SUM_LANES, 64):
        total = np.float32(total + _tree(lanes[r:r + 64]))
    return total


def model(a: np.ndarray, b: np.ndarray) -> np.float32:
    """The documented order: each block of SUM_BLOCK elements its own partial, the partials summed the same way."""
    d = (a - b) * (a - b)
    parts = np.array([_lanes_sum(d[k:k + SUM_BLOCK]) for k in range(0, len(d), SUM_BLOCK)], np.float32)
    return _lanes_sum(parts) if len(parts) else np.float32(0)


def _sim():
    return lang.kernel(target="ascend-sim")(sq_mean.pyfunc)


def _plan(*args):
    return ascend.plan(compiler.lower(sq_mean.specialization(args, {})[0].ir, "ascend"))


def _rand(n, seed):
    return np.random.default_rng(seed).standard_normal(n).astype(np.float32)


# 1 element; one block and a ragged tail; a tail of 3 after whole blocks; more partials per core than the UB keeps
# (SUM_PARTS) on 2 cores
SIZES = [1, 4095, SUM_BLOCK * 5 + 3, SUM_BLOCK * (2 * SUM_PARTS + 3) + 77]
SETTINGS = ({}, {"cores": 2}, {"cores": 3, "tile_cap": 256}, {"cores": 7, "tile_cap": 1024})


@pytest.mark.parametrize("n", SIZES)
def test_the_sum_is_the_fixed_order_on_every_core_count_and_tile_size(n):
    a, b = _rand(n, 1), _rand(n, 2)
    total = model(a, b)
    k = _sim()
    for s in SETTINGS:
        with ascend_sim.configured(**s):
            got = k(a, b)
        assert got[0] == 0 and got[2] == 0
        assert got[1] == np.float32(total / np.float32(n)), s       # bit for bit


@pytest.mark.parametrize("n", [7, 4099, 70001])
def test_the_sum_is_the_interpreters_within_the_corpus_tolerance(n):
    a, b = _rand(n, 3), _rand(n, 4)
    with ascend_sim.configured(cores=5, tile_cap=512):
        got = _sim()(a, b)
    close(got, interpreted(sq_mean)(a, b), np.float32, ulps=16)


def test_the_combine_reads_the_partials_in_several_tiles():
    """More blocks than the combine's tile holds (SUM_COMBINE partials): the tiles are added in order."""
    n = SUM_BLOCK * (SUM_COMBINE + 1) + 5
    a, b = _rand(n, 5), _rand(n, 6)
    with ascend_sim.configured(cores=6):
        got = _sim()(a, b)
    assert got[1] == np.float32(model(a, b) / np.float32(n))


def test_the_plan_uses_every_vector_core_and_a_workspace():
    n = 1 << 24
    a = np.zeros(n, np.float32)
    src = ascend.render(compiler.lower(sq_mean.specialization((a, a), {})[0].ir, "ascend"), warn=False)
    assert src.plan.kind == "window" and src.plan.sum_of is not None
    block_dim, values = ascend.tiling(src, {"N": n})
    assert block_dim == 48 and values["units"] == n // SUM_BLOCK and values["ws_sumParts"] == 4 * (n // SUM_BLOCK)
    assert "KERNEL_TASK_TYPE_DEFAULT(KERNEL_TYPE_MIX_AIV_1_0);" in src.text and "SyncAll();" in src.text
    assert [k for k, _, _ in src.entry_params][-2:] == ["gm", "tiling"]      # the workspace, then the tiling


def _source(n):
    a = np.zeros(n, np.float32)
    return ascend.render(compiler.lower(sq_mean.specialization((a, a), {})[0].ir, "ascend"), warn=False)


def _launch(src, text, n, cores):
    a, b = _rand(n, 7), _rand(n, 8)
    out = np.full(3, np.nan, np.float32)
    lib, _, _ = ascend_sim.build(text, src.name, src.entry_params)
    with ascend_sim.configured(cores=cores):
        block_dim, values, words = ascend_sim.tiling_words(src, {"N": n})
    parts = ascend_sim.device_empty(values["ws_sumParts"])
    ascend_sim.launch(lib, [a.ctypes.data, b.ctypes.data, out.ctypes.data, parts.ctypes.data], words, block_dim,
                      src, src.name)
    return out


def test_ascend_sim_refuses_reading_other_cores_partials_without_syncall():
    n = SUM_BLOCK * 6
    src = _source(n)
    assert src.text.count("SyncAll();") == 1
    _launch(src, src.text, n, 3)                                  # as rendered: runs
    # block 0's own partials still synchronized (PipeBarrier<PIPE_ALL>): the other blocks' are the race, refused
    # whichever of the read and the writes comes first
    with pytest.raises(ascend_sim.AscendSimError, match="(wrote|read) in the same phase"):
        _launch(src, src.text.replace("SyncAll();", "PipeBarrier<PIPE_ALL>();"), n, 3)


def test_ascend_sim_refuses_syncall_in_an_aiv_only_kernel_and_the_mix_form_in_a_vector_kernel():
    n = SUM_BLOCK * 2
    src = _source(n)
    aiv_only = src.text.replace("KERNEL_TYPE_MIX_AIV_1_0", "KERNEL_TYPE_AIV_ONLY")
    with pytest.raises(ascend_sim.AscendSimError, match="KERNEL_TYPE_MIX_AIV_1_0"):
        _launch(src, aiv_only, n, 2)
    with pytest.raises(ascend_sim.AscendSimError, match="isAIVOnly must be true"):
        _launch(src, src.text.replace("SyncAll();", "SyncAll<false>();"), n, 2)


def test_the_estimate_is_within_twice_the_gm_bound():
    n = 1 << 24
    a = np.zeros(n, np.float32)
    est = sq_mean.estimate("ascend", a, a, soc="Ascend910B1")
    bound = 2 * n * 4 / (soc_info("Ascend910B1")["hbm_gbs"] * 1e9)     # a and b read once
    assert est.block_dim == 48 and est.seconds < 2 * bound


def test_the_project_allocates_the_workspace(tmp_path):
    """`asc compile`'s host program allocates the partials' workspace and passes it before the tiling."""
    from asc.backends.ascend.project import write_project
    n = SUM_BLOCK * 3 + 1
    src = _source(n)
    write_project(src, {"N": n}, {}, str(tmp_path))
    main = (tmp_path / "main.cpp").read_text()
    assert "CHECK_ACL(aclrtMalloc(&sumPartsDev, 32, ACL_MEM_MALLOC_HUGE_FIRST));" in main     # 4 partials: 16 B
    assert "static_cast<uint8_t*>(sumPartsDev), static_cast<uint8_t*>(tilingDev));" in main
    assert "CHECK_ACL(aclrtFree(sumPartsDev));" in main


@lang.kernel
def tail_sum(a: lang.float32[N]) -> lang.float32[1]:
    out = lang.zeros(1, dtype=lang.float32)
    for i in range(3, N - 1):
        out[0] += a[i] * 2.0
    return out


@pytest.mark.parametrize("n", [4, 4100, SUM_BLOCK * 9 + 11])
def test_a_sum_over_a_sub_range_with_dynamic_shapes(n):
    """The blocks count from the loop's first index; the workspace is sized from the sizes at the call."""
    a = _rand(n, 9)
    k = lang.kernel(target="ascend-sim", dynamic_shape=True)(tail_sum.pyfunc)
    part = (a[3:n - 1] * np.float32(2.0)).astype(np.float32)
    blocks = np.array([_lanes_sum(part[i:i + SUM_BLOCK]) for i in range(0, len(part), SUM_BLOCK)], np.float32)
    want = _lanes_sum(blocks) if len(blocks) else np.float32(0)
    for s in ({"cores": 4}, {"cores": 3, "tile_cap": 256}):
        with ascend_sim.configured(**s):
            got = k(a)
        assert got[0] == want, s
    close(got, interpreted(tail_sum)(a), np.float32, ulps=16)

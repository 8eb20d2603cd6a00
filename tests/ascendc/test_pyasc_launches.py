"""Launches of pyasc kernels one after another, and the cross-core GM write rule (issue 17).

- ascend-sim's rule that two blocks may not write one 32-byte GM block with DataCopy is per launch: a kernel
  launched twice in a row on the same arrays, and another kernel after it, pass; blocks whose shares overlap fail
  naming DataCopy, both blocks and the Python line, and leave the caller's data unchanged. Overlapping shares are
  refused even where the blocks write the same values there: that is the pattern of pyasc's
  generalization/basic tests (whole tiles of 512 from a share of ceil(total / 16) elements), and CANN's own
  checker refuses it too (asc-tools npuchk, "GM memory multi-core overlap": the GM ranges cores write may not
  overlap, except with atomic add).
- a GlobalTensor set without a size (pyasc's `set_global_buffer(x + offset)`) is bounded by the tensor argument
  its buffer lies in: a read or write past the end names the argument, the index and the line. That is the first
  violation of pyasc's failing generalization cases (their last block copies a whole tile past the end of x, y and
  z); the overlap of two blocks' writes is reported at the end of the launch, when nothing else failed, so the
  report does not depend on the order the threads ran the blocks in.
- a TQue at VECCALC runs as on the NPU (CANN's API docs use `TQue<TPosition::VECCALC, 1> tmpQue`: Fma, Hypot,
  IsInf, ...; the NPU build compiles it), with an AscendRuleWarning at its line: Huawei's CPU-debug build asserts
  `pos != VECCALC` in GetBufferLogicPos and does not compile such a kernel (the CANN twin showed it).
- `asc.adv.SoftmaxTiling()` is emitted as `SoftMaxTiling`, the name CANN gives it at global scope (its generated
  kernel_tiling.h declares AscendC::tiling::SoftMaxTiling and exports it with a using-declaration);
  `AscendC::SoftMaxTiling` names nothing there, nor in ascend-sim.
"""
import inspect
import os
import subprocess

import numpy as np
import pytest

import asc
import asc.runtime.config as config
from asc.runtime import ascend_sim, toolchain
from asc.errors import MemoryCheckError
from asc.runtime.ascend_sim import AscendSimError

import pyasc_api_kernels as KA


@pytest.fixture(autouse=True)
def _cpu():
    config.set_platform(config.Backend.CPU)


@asc.jit
def scale_shift(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int], step: asc.ConstExpr[int],
                k: float):
    """Block b: z[b * step:][:n] = x[b * step:][:n] * k + 1, through a VECCALC scratch queue."""
    off = asc.get_block_idx() * step
    xg = asc.GlobalTensor()
    zg = asc.GlobalTensor()
    xg.set_global_buffer(x + off)
    zg.set_global_buffer(z + off)
    pipe = asc.TPipe()
    qi = asc.TQue(asc.TPosition.VECIN, 1)
    qt = asc.TQue(asc.TPosition.VECCALC, 1)
    qo = asc.TQue(asc.TPosition.VECOUT, 1)
    pipe.init_buffer(qi, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qt, 1, n * x.dtype.sizeof())
    pipe.init_buffer(qo, 1, n * x.dtype.sizeof())
    t = qi.alloc_tensor(x.dtype)
    asc.data_copy(t, xg, n)
    qi.enque(t)
    t = qi.deque(x.dtype)
    s = qt.alloc_tensor(x.dtype)
    asc.muls(s, t, k, n)
    o = qo.alloc_tensor(x.dtype)
    asc.adds(o, s, 1.0, n)
    qt.free_tensor(s)
    qi.free_tensor(t)
    qo.enque(o)
    o = qo.deque(x.dtype)
    asc.data_copy(zg, o, n)
    qo.free_tensor(o)


def _line(text):
    src, start = inspect.getsourcelines(scale_shift)
    return start + next(i for i, ln in enumerate(src) if text in ln)


def _expect(x, k):
    return (x * np.float32(k) + np.float32(1)).astype(np.float32)


def test_a_kernel_launched_twice_in_a_row_then_another():
    rng = np.random.default_rng(7)
    x1 = rng.standard_normal(16 * 64).astype(np.float32)
    x2 = rng.standard_normal(16 * 64).astype(np.float32)
    z = np.zeros_like(x1)
    scale_shift[16](x1, z, 64, 64, 2.0)           # every block its own 256 bytes of z
    np.testing.assert_array_equal(z, _expect(x1, 2.0))
    scale_shift[16](x2, z, 64, 64, 3.0)           # the same kernel and arrays again: a new launch, a new owner map
    np.testing.assert_array_equal(z, _expect(x2, 3.0))
    scale_shift[8](x1, z, 128, 128, 0.5)          # another specialization, other block boundaries
    np.testing.assert_array_equal(z, _expect(x1, 0.5))
    import bad_kernels as B
    B.overlapping_blocks[16](x2, z, 64, 64)       # another kernel on the same z
    np.testing.assert_array_equal(z, x2)


@pytest.mark.parametrize("step", [56, 63], ids=["aligned", "unaligned"])
def test_blocks_writing_one_32_byte_block_fail_with_api_and_line(step):
    """64 floats a block, blocks `step` apart: neighbours write 8 (1) of the same floats."""
    x = np.arange(4 * 64, dtype=np.float32)
    z = np.full(4 * 64, -1.0, np.float32)
    with pytest.raises(AscendSimError) as e:
        scale_shift[4](x, z, 64, step, 2.0)
    msg = str(e.value)
    assert "DataCopy: blocks" in msg and "both write the 32-byte GM block" in msg, msg
    assert f"{os.path.basename(__file__)}:{_line('asc.data_copy(zg, o, n)')}" in msg, msg
    assert (z == -1.0).all()                      # nothing written back
    scale_shift[4](x, z, 64, 64, 2.0)             # the next launch is clean
    np.testing.assert_array_equal(z, _expect(x, 2.0))


def test_same_values_on_overlapping_shares_are_still_refused():
    """pyasc's generalization tests' split: a share of ceil(total / 16) elements, a whole tile of 64 per block;
    every block writes x * k + 1 where they overlap, and CANN's checker still reports the overlap."""
    total = 1000
    share = -(-total // 16)                        # 63
    x = np.arange(share * 15 + 64, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.raises(AscendSimError, match=r"DataCopy: blocks \d+ and \d+ both write the 32-byte GM block"):
        scale_shift[16](x, z, 64, share, 2.0)


@pytest.mark.parametrize("threads", [1, 4])
def test_whole_tiles_past_the_end_are_reported_as_out_of_bounds_first(threads):
    """The failing pattern of pyasc's generalization/basic tests: 1000 floats on 16 blocks, a share of 63 and a
    whole tile of 64 per block. The last block reads past the end of x: that is reported (GlobalTensors set without
    a size are bounded by their argument), at the data_copy line, before the overlap of the shares, whatever the
    order the threads run the blocks in."""
    x = np.arange(1000, dtype=np.float32)
    z = np.zeros_like(x)
    with ascend_sim.configured(threads=threads):
        with pytest.raises(MemoryCheckError) as e:
            scale_shift[16](x, z, 64, 63, 2.0)
    msg = str(e.value)
    assert f"{os.path.basename(__file__)}:{_line('asc.data_copy(t, xg, n)')}" in msg, msg
    assert "index 1000 is out of bounds for axis 0 of 'x' with shape (1000,)" in msg, msg
    assert "DataCopy: GM access of elements [945, 1009) of a tensor argument of 1000 elements" in msg, msg
    assert "(block 15 of 16)" in msg, msg


def test_a_read_past_the_end_is_refused():
    """Reads past an argument (never seen by the guard zones, which catch writes) are refused too: block 1's
    share of x starts at its end."""
    x = np.arange(64, dtype=np.float32)
    z = np.zeros(128, np.float32)
    with pytest.raises(MemoryCheckError, match=r"index 64 is out of bounds for axis 0 of 'x' with shape \(64,\)"):
        scale_shift[2](x, z, 64, 64, 2.0)
    assert (z == 0).all()


# ------------------------------------------------------------------ SoftMaxTiling's name

def test_softmax_tiling_is_emitted_at_global_scope():
    x = np.zeros(4 * 64, np.float32)
    text = KA.softmax_rows.source(x, x, np.zeros(32, np.float32), np.zeros(32, np.float32), 4, 64, 1)
    assert "SoftMaxTiling()" in text and "AscendC::SoftMaxTiling" not in text


def _compiles(tmp_path, body):
    src = tmp_path / "t.cpp"
    src.write_text('#include "kernel_operator.h"\n' + body + "\n")
    cmd = toolchain.compiler().split() + ["-std=c++17", "-fsyntax-only", *ascend_sim.chip_flags(), "-I",
                                          ascend_sim.SIM_DIR, str(src)]
    return subprocess.run(cmd, capture_output=True, text=True).returncode == 0


def test_ascend_sim_declares_softmax_tiling_where_cann_does(tmp_path):
    assert _compiles(tmp_path, "SoftMaxTiling a; AscendC::tiling::SoftMaxTiling b; "
                               "static_assert(sizeof(a) == 16 * 4, \"16 uint32 fields\");")
    assert not _compiles(tmp_path, "AscendC::SoftMaxTiling a;")


def test_tque_at_veccalc_warns_at_its_line():
    @asc.jit
    def veccalc_queue(x: asc.GlobalAddress, z: asc.GlobalAddress, n: asc.ConstExpr[int]):
        xg = asc.GlobalTensor()
        zg = asc.GlobalTensor()
        xg.set_global_buffer(x)
        zg.set_global_buffer(z)
        pipe = asc.TPipe()
        qt = asc.TQue(asc.TPosition.VECCALC, 1)
        pipe.init_buffer(qt, 1, n * x.dtype.sizeof())
        t = qt.alloc_tensor(x.dtype)
        asc.data_copy(t, xg, n)
        asc.pipe_barrier(asc.PipeID.PIPE_ALL)
        asc.data_copy(zg, t, n)
        qt.free_tensor(t)

    from asc.errors import AscendRuleWarning
    x = np.arange(64, dtype=np.float32)
    z = np.zeros_like(x)
    with pytest.warns(AscendRuleWarning, match=r"TQue at TPosition.VECCALC.*CPU-debug.*asc.TBuf") as rec:
        veccalc_queue[1](x, z, 64)
    np.testing.assert_array_equal(z, x)
    src, start = inspect.getsourcelines(veccalc_queue)
    line = start + next(i for i, ln in enumerate(src) if "asc.TQue(" in ln)
    w = [r for r in rec if issubclass(r.category, AscendRuleWarning)][0]
    assert w.filename == __file__ and w.lineno == line, (w.filename, w.lineno, line)

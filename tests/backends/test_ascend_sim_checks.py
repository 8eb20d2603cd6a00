"""ascend-sim enforces the documented rules of the Ascend C API: each check fires on a deliberately broken kernel,
with the API call and the line (the Python line for generated kernels, the kernel .cpp line otherwise)."""
import numpy as np
import pytest
import ml_dtypes

import asc.language as lang
from asc.examples import seed as sk
from asc.runtime import ascend_sim
from asc.runtime.ascend_sim import AscendSimError
from helpers import rand

GM = [("gm", "x", "GM_ADDR"), ("gm", "y", "GM_ADDR"), ("tiling", "tiling", "GM_ADDR")]

PROLOGUE = """#include "kernel_operator.h"
using namespace AscendC;
"""


def run_cpp(body: str, n: int = 64, blocks: int = 1, dtype=np.float32, name="broken"):
    """Compiles a hand-written kernel `broken(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)` against ascend-sim and runs
    it on x = 0..n-1 (y: n zeros); returns y."""
    text = PROLOGUE + f'extern "C" __global__ __aicore__ void {name}(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)\n{{\n' \
        + body + "\n}\n"
    lib, _, _ = ascend_sim.build(text, name, GM)
    x = np.arange(n).astype(dtype)
    y = np.zeros(n, dtype)
    ascend_sim.launch(lib, [x.ctypes.data, y.ctypes.data], np.zeros(1, np.uint32), blocks, None, name)
    return y


SETUP = """
  TPipe pipe;
  TQue<TPosition::VECIN, 1> inQ;
  TQue<TPosition::VECOUT, 1> outQ;
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, 64);
  yGm.SetGlobalBuffer((__gm__ float*)y, 64);
"""


def test_a_correct_hand_written_kernel_runs():
    y = run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  pipe.InitBuffer(outQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, 64);
  inQ.EnQue(a);
  LocalTensor<float> b = inQ.DeQue<float>();
  LocalTensor<float> c = outQ.AllocTensor<float>();
  Muls(c, b, 2.0f, 64);
  outQ.EnQue(c);
  inQ.FreeTensor(b);
  LocalTensor<float> d = outQ.DeQue<float>();
  DataCopy(yGm, d, 64);
  outQ.FreeTensor(d);""", name="good")
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32))


def test_unified_buffer_over_capacity_at_init_buffer():
    with pytest.raises(AscendSimError, match=r"InitBuffer: Unified Buffer over capacity.*196608 B"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * 1024);
  pipe.InitBuffer(outQ, 2, 64 * 1024);""", name="over_ub")


def test_misaligned_copy_length():
    with pytest.raises(AscendSimError, match=r"DataCopy: count 10 x 4 B = 40 B is not a multiple of 32 B.*rounds it "
                                             r"down to 32 B.*DataCopyPad"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, 10);""", name="short_copy")


def test_misaligned_ub_operand():
    with pytest.raises(AscendSimError, match=r"Muls: UB operand start address \d+ is not 32-byte aligned"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, 64);
  Muls(a[3], a[3], 2.0f, 8);""", name="misaligned")


def test_deque_of_an_empty_queue():
    with pytest.raises(AscendSimError, match=r"TQue::DeQue: DeQue of an empty queue.*kernel \.cpp line \d+"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.DeQue<float>();""", name="empty_deque")


def test_queue_depth_and_protocol():
    with pytest.raises(AscendSimError, match=r"EnQue: the queue already holds 1 tensor\(s\), its depth is 1"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  LocalTensor<float> b = inQ.AllocTensor<float>();
  inQ.EnQue(a);
  inQ.EnQue(b);""", name="depth")
    with pytest.raises(AscendSimError, match=r"AllocTensor: all 2 buffers of the queue are in use"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  LocalTensor<float> b = inQ.AllocTensor<float>();
  LocalTensor<float> c = inQ.AllocTensor<float>();""", name="no_free")
    with pytest.raises(AscendSimError, match=r"FreeTensor: the tensor is still in the queue"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  inQ.EnQue(a);
  inQ.FreeTensor(a);""", name="free_queued")
    with pytest.raises(AscendSimError, match=r"kernel end: TQue buffer 0 was never released"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, 64);""", name="leak")


def test_read_of_never_written_ub():
    with pytest.raises(AscendSimError, match=r"Exp: reads element 32 of a LocalTensor<float> .* never written "
                                             r"\(poisoned with NaN\)"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, 32);
  Exp(a, a, 64);""", name="unwritten")


def test_scalar_read_needs_a_v_s_sync():
    body = SETUP + """
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 256);
  LocalTensor<float> a = buf.Get<float>();
  Duplicate(a, 3.0f, 64);
  %s
  yGm.SetValue(0, a.GetValue(0));"""
    with pytest.raises(AscendSimError, match=r"GetValue: scalar read of UB written by a vector instruction without "
                                             r"a V_S sync"):
        run_cpp(body % "", name="no_sync")
    y = run_cpp(body % "SetFlag<HardEvent::V_S>(0); WaitFlag<HardEvent::V_S>(0);", name="synced")
    assert y[0] == 3.0


def test_two_blocks_writing_one_32_byte_block():
    with pytest.raises(AscendSimError, match=r"DataCopy: blocks \d and \d both write the 32-byte GM block"):
        run_cpp(SETUP + """
  pipe.InitBuffer(outQ, 1, 64 * sizeof(float));
  LocalTensor<float> a = outQ.AllocTensor<float>();
  Duplicate(a, 1.0f, 8);
  SetFlag<HardEvent::V_MTE3>(0); WaitFlag<HardEvent::V_MTE3>(0);
  DataCopy(yGm[GetBlockIdx() * 4], a, 8);
  outQ.FreeTensor(a);""", blocks=2, name="overlap")


def test_cast_round_modes():
    with pytest.raises(AscendSimError, match=r"Cast: Cast float -> bfloat16_t does not accept RoundMode::CAST_NONE"):
        run_cpp(SETUP + """
  TBuf<TPosition::VECCALC> buf;
  pipe.InitBuffer(buf, 1024);
  LocalTensor<float> a = buf.Get<float>(64);
  LocalTensor<bfloat16_t> b = buf.GetWithOffset<bfloat16_t>(64, 512);
  Duplicate(a, 1.0f, 64);
  Cast(b, a, RoundMode::CAST_NONE, 64);""", name="bad_cast")


MODES = ["CAST_RINT", "CAST_FLOOR", "CAST_CEIL", "CAST_TRUNC", "CAST_ROUND"]


@pytest.mark.parametrize("target", ["half", "bfloat16_t"])
def test_cast_rounding_matches_the_definition(target):
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.standard_normal(3000) * 10, rng.standard_normal(500) * 1e-6,
                        [0.0, -0.0, 1.0, 65504.0, 65519.0, 65520.0, 1e6, -1e6, 2.0 ** -24, 3 * 2.0 ** -25],
                        np.linspace(-4, 4, 10)]).astype(np.float32)     # 3520 elements: whole 32-byte blocks
    n = len(x)
    npt = np.float16 if target == "half" else ml_dtypes.bfloat16
    for mode in MODES:
        text = PROLOGUE + f"""extern "C" __global__ __aicore__ void cast_{mode}(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{{
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b;
  pipe.InitBuffer(a, {n} * 4);
  pipe.InitBuffer(b, {n} * 2);
  GlobalTensor<float> xGm;
  GlobalTensor<{target}> yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, {n});
  yGm.SetGlobalBuffer((__gm__ {target}*)y, {n});
  LocalTensor<float> fa = a.Get<float>();
  LocalTensor<{target}> hb = b.Get<{target}>();
  DataCopy(fa, xGm, {n});
  PipeBarrier<PIPE_ALL>();
  Cast(hb, fa, RoundMode::{mode}, {n});
  PipeBarrier<PIPE_ALL>();
  DataCopy(yGm, hb, {n});
}}
"""
        lib, _, _ = ascend_sim.build(text, f"cast_{mode}", GM)
        y = np.zeros(n, npt)
        ascend_sim.launch(lib, [x.ctypes.data, y.ctypes.data], np.zeros(1, np.uint32), 1)
        y64 = y.astype(np.float64)
        with np.errstate(over="ignore"):
            near = x.astype(npt).astype(np.float64)                   # round to nearest even (NumPy/ml_dtypes)
        x64 = x.astype(np.float64)
        if mode == "CAST_RINT":
            np.testing.assert_array_equal(y64, near)
            continue
        fin = np.isfinite(y64) & np.isfinite(near)
        if mode == "CAST_FLOOR":
            assert np.all(y64[fin] <= x64[fin])
        elif mode == "CAST_CEIL":
            assert np.all(y64[fin] >= x64[fin])
        elif mode == "CAST_TRUNC":
            assert np.all(np.abs(y64[fin]) <= np.abs(x64[fin]))
        # each result is one of the two neighbours of x in the 16-bit format
        with np.errstate(over="ignore"):
            lo = np.where(near <= x64, near, np.nextafter(near.astype(npt), npt(-np.inf)).astype(np.float64))
            hi = np.where(near >= x64, near, np.nextafter(near.astype(npt), npt(np.inf)).astype(np.float64))
        ok = (y64 == lo) | (y64 == hi)
        assert np.all(ok[fin])


# ---- generated kernels: violations name the Python line

def _compiled(kernel, *args):
    k = lang.kernel(target="ascend-sim")(kernel.pyfunc)
    k(*args)
    return k._last


def test_over_budget_tile_names_the_python_line():
    x, y = rand(4096, np.float32, 1), rand(4096, np.float32, 2)
    spec = _compiled(sk.saxpy, np.float32(2.0), x, y)
    src = spec.ascend
    words = np.array([4096, 4096, 4096, 16384], np.uint32)     # total, perCore, lastCore, tile: 3 x 2 x 64 KB > UB
    a = np.array(2.0, np.float32)
    out = np.zeros(4096, np.float32)
    with pytest.raises(AscendSimError, match=r"seed\.py:\d+:\d+: ascend-sim: kernel 'saxpy': TPipe::InitBuffer: "
                                             r"Unified Buffer over capacity"):
        ascend_sim.launch(spec.lib, [a.ctypes.data, x.ctypes.data, y.ctypes.data, out.ctypes.data], words, 1, src,
                          "saxpy")
    line = int(str(src.python_loc(next(ln for ln, l in enumerate(src.text.splitlines(), 1)
                                       if "InitBuffer(xInQue_" in l))).split(":")[1])
    assert "for i in range(N)" in open(sk.__file__).read().splitlines()[line - 1]


# ---- pipes: a TBuf buffer has no queue to order MTE2 -> V and V -> MTE3

TBUF = SETUP + """
  TBuf<TPosition::VECCALC> buf, res;
  pipe.InitBuffer(buf, 64 * sizeof(float));
  pipe.InitBuffer(res, 64 * sizeof(float));
  LocalTensor<float> a = buf.Get<float>();
  LocalTensor<float> b = res.Get<float>();
  DataCopy(a, xGm, 64);
  %s
  Muls(b, a, 2.0f, 64);
  %s
  DataCopy(yGm, b, 64);"""
MTE2_V = "SetFlag<HardEvent::MTE2_V>(0); WaitFlag<HardEvent::MTE2_V>(0);"
V_MTE3 = "SetFlag<HardEvent::V_MTE3>(0); WaitFlag<HardEvent::V_MTE3>(0);"


def test_vector_read_of_a_tbuf_needs_an_mte2_v_sync():
    with pytest.raises(AscendSimError, match=r"Muls: vector read of UB bytes \[0, 256\) written by a GM->UB copy "
                                             r"\(MTE2\) without an MTE2_V sync"):
        run_cpp(TBUF % ("", V_MTE3), name="no_mte2_v")
    with pytest.raises(AscendSimError, match=r"Muls: vector read .* without an MTE2_V sync"):   # the wrong event
        run_cpp(TBUF % ("SetFlag<HardEvent::MTE2_S>(0); WaitFlag<HardEvent::MTE2_S>(0);", V_MTE3), name="wrong_ev")
    y = run_cpp(TBUF % (MTE2_V, V_MTE3), name="both_synced")
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32))
    y = run_cpp(TBUF % ("PipeBarrier<PIPE_ALL>();", "PipeBarrier<PIPE_ALL>();"), name="barriers")
    np.testing.assert_array_equal(y, 2 * np.arange(64, dtype=np.float32))


def test_copy_out_of_a_tbuf_needs_a_v_mte3_sync():
    with pytest.raises(AscendSimError, match=r"DataCopy: UB->GM copy of UB bytes \[256, 512\) written by a vector "
                                             r"instruction without a V_MTE3 sync"):
        run_cpp(TBUF % (MTE2_V, ""), name="no_v_mte3")


def test_a_set_flag_covers_only_the_writes_before_it():
    body = SETUP + """
  TBuf<TPosition::VECCALC> buf, res;
  pipe.InitBuffer(buf, 64 * sizeof(float));
  pipe.InitBuffer(res, 64 * sizeof(float));
  LocalTensor<float> a = buf.Get<float>();
  LocalTensor<float> b = res.Get<float>();
  SetFlag<HardEvent::MTE2_V>(0);
  DataCopy(a, xGm, 64);
  WaitFlag<HardEvent::MTE2_V>(0);
  Muls(b, a, 2.0f, 64);"""
    with pytest.raises(AscendSimError, match=r"Muls: vector read .* without an MTE2_V sync"):
        run_cpp(body, name="flag_before_copy")


def test_queues_synchronize_the_pipes():
    # the queue protocol (EnQue / DeQue of VECIN and VECOUT) is the sync: test_a_correct_hand_written_kernel_runs;
    # reading a VECIN tensor before its EnQue/DeQue is the race
    with pytest.raises(AscendSimError, match=r"Muls: vector read .* without an MTE2_V sync"):
        run_cpp(SETUP + """
  pipe.InitBuffer(inQ, 1, 64 * sizeof(float));
  pipe.InitBuffer(outQ, 1, 64 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  LocalTensor<float> c = outQ.AllocTensor<float>();
  DataCopy(a, xGm, 64);
  Muls(c, a, 2.0f, 64);
  inQ.FreeTensor(a);
  outQ.FreeTensor(c);""", name="before_deque")


def test_data_copy_pad_writes_only_its_valid_bytes_across_blocks():
    # block b writes elements [3b, 3b + 3): 12 bytes each, blocks 0, 1 and 2 share the first 32-byte block of y, which
    # DataCopyPad allows (only the valid bytes reach GM; DataCopy's whole blocks are owned per core)
    y = run_cpp(SETUP + """
  pipe.InitBuffer(outQ, 1, 64 * sizeof(float));
  LocalTensor<float> a = outQ.AllocTensor<float>();
  Duplicate(a, 1.0f + GetBlockIdx(), 8);
  outQ.EnQue(a);
  LocalTensor<float> b = outQ.DeQue<float>();
  DataCopyExtParams p(1, 3 * sizeof(float), 0, 0, 0);
  DataCopyPad(yGm[GetBlockIdx() * 3], b, p);
  outQ.FreeTensor(b);""", blocks=3, name="pad_shared")
    assert list(y[:10]) == [1.0] * 3 + [2.0] * 3 + [3.0] * 3 + [0.0]


SELECT_BODY = SETUP + """
  TBuf<TPosition::VECCALC> big, m, c;
  pipe.InitBuffer(big, %d);
  pipe.InitBuffer(m, 64);
  pipe.InitBuffer(c, 64 * sizeof(float));
  LocalTensor<float> a = c.Get<float>();
  LocalTensor<uint8_t> mask = m.Get<uint8_t>();
  Duplicate(a, 1.0f, 64);
  CompareScalar(mask, a, 0.0f, CMPMODE::GT, 64);
  Select(a, mask, a, a, SELMODE::VSEL_TENSOR_TENSOR_MODE, 64);"""


def test_select_needs_its_8_kb_of_unified_buffer():
    # 196608 B of UB, 8 KB of it Select's scratch on A2 (Select's docs): 188416 B for the kernel's buffers
    run_cpp(SELECT_BODY % (188416 - 64 - 256), name="select_fits")
    with pytest.raises(AscendSimError, match=r"Select: Select \(VSEL_TENSOR_TENSOR_MODE\) needs 8192 B of Unified "
                                             r"Buffer reserved .* handed out 188448 B .*at most 188416 B with Select"):
        run_cpp(SELECT_BODY % (188416 - 64 - 256 + 32), name="select_over")

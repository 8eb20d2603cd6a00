"""ascend-sim's Brcb (asc-devkit: each repeat spreads 8 source elements over 8 DataBlocks of the destination), and
the packed-row pattern the row plan emits with it: Brcb of per-row values, then a repeat-form Mul whose second
source has block stride 0 (one row's block read by every block of the row). Each documented rule fires on a broken
call, naming Brcb and the kernel .cpp line."""
import numpy as np
import pytest

from asc.runtime.ascend_sim import AscendSimError
from test_ascend_sim_checks import SETUP, run_cpp

# x = 0..63 in a, then the 8 values a[0..7] spread to 8 blocks of b
BRCB = SETUP + """
  TBuf<TPosition::VECCALC> bBuf;
  pipe.InitBuffer(inQ, 2, 64 * sizeof(float));
  pipe.InitBuffer(outQ, 2, 64 * sizeof(float));
  pipe.InitBuffer(bBuf, 128 * sizeof(float));
  LocalTensor<float> a = inQ.AllocTensor<float>();
  DataCopy(a, xGm, 64);
  inQ.EnQue(a);
  LocalTensor<float> s = inQ.DeQue<float>();
  LocalTensor<float> b = bBuf.Get<float>();
  LocalTensor<float> c = outQ.AllocTensor<float>();
"""
TAIL = """
  outQ.EnQue(c);
  inQ.FreeTensor(s);
  LocalTensor<float> d = outQ.DeQue<float>();
  DataCopy(yGm, d, 64);
  outQ.FreeTensor(d);"""


def test_brcb_spreads_each_value_over_a_block():
    y = run_cpp(BRCB + """
  Brcb(b, s, 1, BrcbRepeatParams(1, 8));
  Muls(c, b, 1.0f, 64);""" + TAIL, name="brcb_ok")
    np.testing.assert_array_equal(y, np.repeat(np.arange(8, dtype=np.float32), 8))


def test_brcb_block_strides():
    # block stride 2: blocks 0, 2, ..., 14 of b; the odd blocks are not written (Duplicate marks them first)
    y = run_cpp(BRCB + """
  Duplicate(b, -1.0f, 128);
  Brcb(b, s, 1, BrcbRepeatParams(2, 16));
  Muls(c, b, 1.0f, 64);""" + TAIL, name="brcb_stride")
    want = np.full((8, 8), -1.0, np.float32)
    want[0::2] = np.arange(4, dtype=np.float32)[:, None]
    np.testing.assert_array_equal(y, want.ravel())


def test_packed_rows_mul_by_a_per_row_value():
    # rows of 16 float32 (2 blocks), 4 rows: c[r, j] = s[16 r + j] * v[r], v = s[56..63] spread by Brcb; the Mul
    # reads v's block r for both blocks of row r (src1 block stride 0, repeat stride 1 block), mask 16 per row
    y = run_cpp(BRCB + """
  Brcb(b, s[56], 1, BrcbRepeatParams(1, 8));
  Duplicate(c, 0.0f, 64);
  Mul(c, s, b, (uint64_t)16, 4, BinaryRepeatParams(1, 1, 0, 2, 2, 1));""" + TAIL, name="brcb_rows")
    x = np.arange(64, dtype=np.float32)
    np.testing.assert_array_equal(y, (x.reshape(4, 16) * x[56:60, None]).ravel())


@pytest.mark.parametrize("call, msg", [
    ("Brcb(b, s[4], 1, BrcbRepeatParams(1, 8));", r"Brcb: UB operand start address \d+ is not 32-byte aligned"),
    ("Brcb(b, s[56], 2, BrcbRepeatParams(1, 8));", r"Brcb: repeatTime 2 reads 16 elements of a source "
                                                  r"LocalTensor<float> of 8 elements"),
    ("Brcb(b, s, 3, BrcbRepeatParams(1, 8));", r"Brcb: repeat 2 writes up to element 192 of a dst "
                                              r"LocalTensor<float> of 128 elements"),
    ("Brcb(b, s, 1, BrcbRepeatParams(0, 8));", r"Brcb: dstBlkStride is 0"),
    ("Brcb(b, b[32], 1, BrcbRepeatParams(1, 8));", r"Brcb: the destination overlaps the source"),
    ("Brcb(c, b, 1, BrcbRepeatParams(1, 8));", r"Brcb: reads element 0 of a LocalTensor<float> .* never written"),
])
def test_brcb_rules(call, msg):
    with pytest.raises(AscendSimError, match=msg + r".*kernel \.cpp line \d+"):
        run_cpp(BRCB + "  " + call + "\n  Duplicate(c, 0.0f, 64);" + TAIL, name="brcb_bad")


def test_brcb_repeat_zero_is_a_nop():
    y = run_cpp(BRCB + """
  Duplicate(b, 5.0f, 128);
  Brcb(b, s, 0, BrcbRepeatParams(1, 8));
  Muls(c, b, 1.0f, 64);""" + TAIL, name="brcb_nop")
    np.testing.assert_array_equal(y, np.full(64, 5.0, np.float32))

"""The sharedTmpBuffer of the advanced math APIs has a floor: Huawei's Erf / Sin / Cos split their work into chunks
of tmp / 4 / 3 floats rounded down to 32 and abort when that is 0 (found by the CANN twin on scalar math: 320 B, what
asc gave 8 elements, aborted Erf in Huawei's CheckTmpBufferSize). asc gives at least 384 B (soc.ADV_MIN_BYTES) in
row code and scalar code, and ascend-sim refuses less."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.backends.ascend.soc import ADV_MIN_BYTES, adv_tmp_bytes
from asc.runtime import ascend_sim
from asc.runtime.ascend_sim import AscendSimError
from helpers import close, interpreted

GM = [("gm", "x", "GM_ADDR"), ("gm", "y", "GM_ADDR"), ("tiling", "tiling", "GM_ADDR")]


def _erf_with_tmp(tmp_bytes: int):
    text = f"""#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void erf8(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{{
  TPipe pipe;
  TBuf<TPosition::VECCALC> buf, tmpBuf;
  pipe.InitBuffer(buf, 64);
  pipe.InitBuffer(tmpBuf, {tmp_bytes});
  LocalTensor<float> a = buf.GetWithOffset<float>(8, 0);
  LocalTensor<float> b = buf.GetWithOffset<float>(8, 32);
  LocalTensor<uint8_t> tmp = tmpBuf.Get<uint8_t>();
  Duplicate(a, 0.5f, 8);
  Erf(b, a, tmp, 8);
}}
"""
    lib, _, _ = ascend_sim.build(text, "erf8", GM)
    x, y = np.zeros(8, np.float32), np.zeros(8, np.float32)
    ascend_sim.launch(lib, [x.ctypes.data, y.ctypes.data], np.zeros(1, np.uint32), 1, None, "erf8")


def test_the_floor_of_the_temporary_buffer():
    assert ADV_MIN_BYTES == 384 and adv_tmp_bytes(8) == 384 and adv_tmp_bytes(1024) == 1024 * 8 + 256
    _erf_with_tmp(384)
    with pytest.raises(AscendSimError, match="sharedTmpBuffer has 320 B, 384 B are needed for 8 elements"):
        _erf_with_tmp(320)


@lang.kernel(target="ascend-sim")
def row_erf(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        r = lang.erf(s / C)
        for j in range(C):
            out[i, j] = lang.erf(x[i, j]) * r
    return out


@pytest.mark.parametrize("cols", [1, 8, 9, 300])
def test_short_rows_with_erf(cols):
    x = np.random.default_rng(cols).standard_normal((5, cols)).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = row_erf(x)
        src = row_erf.source("ascend", x)
    close(got, interpreted(row_erf)(x), np.float32, ulps=4)
    assert f"colsPad_ * 8 + 256 > {ADV_MIN_BYTES} ? colsPad_ * 8 + 256 : {ADV_MIN_BYTES}" in src

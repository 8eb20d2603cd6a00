"""The advanced math APIs (Tanh, Erf, Sigmoid, Sin, Cos, Floor, Ceil) do not support a destination overlapping the
source, in place (dst == src) included (the Ascend C docs of each). ascend-sim refuses it naming the API, and the
renderer never emits it: where a value would be computed in place it is computed into a free slot and copied."""
from __future__ import annotations

import re

import numpy as np
import pytest

import asc.language as lang
from asc.runtime import ascend_sim
from asc.runtime.ascend_sim import AscendSimError
from helpers import close, interpreted

N = lang.dim("N")
R = lang.dim("R")
C = lang.dim("C")

GM = [("gm", "x", "GM_ADDR"), ("gm", "y", "GM_ADDR"), ("tiling", "tiling", "GM_ADDR")]


def _run(api: str, dst: str, name: str):
    text = f"""#include "kernel_operator.h"
using namespace AscendC;
extern "C" __global__ __aicore__ void {name}(GM_ADDR x, GM_ADDR y, GM_ADDR tiling)
{{
  TPipe pipe;
  TBuf<TPosition::VECCALC> a, b, t;
  pipe.InitBuffer(a, 64 * sizeof(float));
  pipe.InitBuffer(b, 64 * sizeof(float));
  pipe.InitBuffer(t, 64 * 8 + 256);
  GlobalTensor<float> xGm, yGm;
  xGm.SetGlobalBuffer((__gm__ float*)x, 64);
  yGm.SetGlobalBuffer((__gm__ float*)y, 64);
  LocalTensor<float> fa = a.Get<float>();
  LocalTensor<float> fb = b.Get<float>();
  LocalTensor<uint8_t> tmp = t.Get<uint8_t>();
  DataCopy(fa, xGm, 64);
  PipeBarrier<PIPE_ALL>();
  {api}({dst}, fa, tmp, 64);
  PipeBarrier<PIPE_ALL>();
  DataCopy(yGm, {dst}, 64);
}}
"""
    lib, _, _ = ascend_sim.build(text, name, GM)
    x = np.linspace(-2, 2, 64).astype(np.float32)
    y = np.zeros(64, np.float32)
    ascend_sim.launch(lib, [x.ctypes.data, y.ctypes.data], np.zeros(1, np.uint32), 1, None, name)
    return x, y


@pytest.mark.parametrize("api", ["Tanh", "Erf", "Sigmoid"])
def test_ascend_sim_refuses_an_in_place_advanced_api(api):
    with pytest.raises(AscendSimError, match=rf"{api}: in place \(dst == src\): {api} does not support a "
                                             r"destination that overlaps its source"):
        _run(api, "fa", f"inplace_{api}")
    x, y = _run(api, "fb", f"apart_{api}")                  # the same call into another buffer runs
    ref = {"Tanh": np.tanh, "Erf": None, "Sigmoid": lambda v: 1 / (1 + np.exp(-v))}[api]
    if ref is not None:
        close(y, ref(x.astype(np.float64)), np.float32, ulps=4)


def test_ascend_sim_refuses_a_partial_overlap():
    with pytest.raises(AscendSimError, match=r"Tanh: dst and src overlap: Tanh does not support"):
        _run("Tanh", "fa[8]", "overlap_tanh")


def stored_then_tanh(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        a = x[i] * 2.0
        out[i] = a
        out[i] = lang.tanh(a)
    return out


def twice_rows(x: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for r in range(R):
        for c in range(C):
            out[r, c] = x[r, c] * 2.0
        for c in range(C):
            out[r, c] = lang.sigmoid(out[r, c])
    return out


def erf_of_stored(x: lang.float32[N]) -> lang.float32[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] + 1.0
        out[i] = lang.erf(out[i])
    return out


@pytest.mark.parametrize("fn, shape", [(stored_then_tanh, (1000,)), (twice_rows, (64, 40)), (erf_of_stored, (777,))])
def test_renderer_never_emits_an_advanced_api_in_place(fn, shape):
    k = lang.kernel(target="ascend-sim")(fn)
    x = np.random.default_rng(3).standard_normal(shape).astype(np.float32)
    src = k.source("ascend", x)
    calls = re.findall(r"\b(Tanh|Erf|Sigmoid)\((\w+(?:\[\w+\])?), (\w+(?:\[\w+\])?),", src)
    assert calls
    assert all(d != s for _, d, s in calls), calls
    close(k(x), interpreted(k)(x), np.float32, ulps=8)

"""The kernels of benchmarks/torch_ops.py: SwiGLU and RMSNorm in float32 (the ones examples/train_mlp.py trains
with) and bfloat16 (bfloat16 in, float32 math, bfloat16 out), and a hand-written RMSNorm backward for each."""
from __future__ import annotations

import os
import sys

import asc.language as lang

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples"))
from train_mlp import rmsnorm as rmsnorm_f32, rmsnorm_backward as rmsnorm_f32_backward  # noqa: E402,F401
from train_mlp import swiglu as swiglu_f32  # noqa: E402,F401


@lang.kernel
def swiglu_bf16(a: lang.bfloat16[R, C], b: lang.bfloat16[R, C]) -> lang.bfloat16[R, C]:
    out = lang.empty_like(a)
    for i in range(R):
        for j in range(C):
            z = lang.cast(a[i, j], lang.float32)
            out[i, j] = z * lang.sigmoid(z) * lang.cast(b[i, j], lang.float32)
    return out


@lang.kernel
def rmsnorm_bf16(x: lang.bfloat16[R, C], w: lang.bfloat16[C]) -> lang.bfloat16[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        ss = lang.float32(0.0)
        for j in range(C):
            xf = lang.cast(x[i, j], lang.float32)
            ss += xf * xf
        r = lang.rsqrt(ss / C + 1e-6)
        for j in range(C):
            out[i, j] = lang.cast(x[i, j], lang.float32) * r * lang.cast(w[j], lang.float32)
    return out


@lang.kernel
def rmsnorm_bf16_backward(x: lang.bfloat16[R, C], w: lang.bfloat16[C], g: lang.bfloat16[R, C]):
    dx = lang.empty_like(x)
    dwf = lang.zeros((C,), dtype=lang.float32)
    dw = lang.empty_like(w)
    rs = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        ss = lang.float32(0.0)
        dot = lang.float32(0.0)
        for j in range(C):
            xf = lang.cast(x[i, j], lang.float32)
            ss += xf * xf
            dot += lang.cast(g[i, j], lang.float32) * lang.cast(w[j], lang.float32) * xf
        r = lang.rsqrt(ss / C + 1e-6)
        rs[i] = r
        for j in range(C):
            xf = lang.cast(x[i, j], lang.float32)
            dx[i, j] = r * lang.cast(w[j], lang.float32) * lang.cast(g[i, j], lang.float32) - xf * (r * r * r) * dot / C
    for i in range(R):
        for j in range(C):
            dwf[j] += lang.cast(g[i, j], lang.float32) * lang.cast(x[i, j], lang.float32) * rs[i]
    for j in range(C):
        dw[j] = dwf[j]
    return dx, dw

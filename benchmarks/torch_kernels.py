"""The kernels of benchmarks/torch_ops.py: SwiGLU and RMSNorm in float32 and bfloat16 (bfloat16 in, float32 math,
bfloat16 out), and a hand-written RMSNorm backward for each, as a user writes them."""
from __future__ import annotations

import asc.language as lang


@lang.kernel
def swiglu_f32(a: lang.float32[R, C], b: lang.float32[R, C]) -> lang.float32[R, C]:
    out = lang.empty_like(a)
    for i in range(R):
        for j in range(C):
            out[i, j] = a[i, j] * lang.sigmoid(a[i, j]) * b[i, j]
    return out


@lang.kernel
def swiglu_bf16(a: lang.bfloat16[R, C], b: lang.bfloat16[R, C]) -> lang.bfloat16[R, C]:
    out = lang.empty_like(a)
    for i in range(R):
        for j in range(C):
            z = lang.cast(a[i, j], lang.float32)
            out[i, j] = z * lang.sigmoid(z) * lang.cast(b[i, j], lang.float32)
    return out


@lang.kernel
def rmsnorm_f32(x: lang.float32[R, C], w: lang.float32[C]) -> lang.float32[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        ss = 0.0
        for j in range(C):
            ss += x[i, j] * x[i, j]
        r = lang.rsqrt(ss / C + 1e-6)
        for j in range(C):
            out[i, j] = x[i, j] * r * w[j]
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
def rmsnorm_f32_backward(x: lang.float32[R, C], w: lang.float32[C], g: lang.float32[R, C]):
    dx = lang.empty_like(x)
    dw = lang.zeros_like(w)
    rs = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        ss = 0.0
        dot = 0.0
        for j in range(C):
            ss += x[i, j] * x[i, j]
            dot += g[i, j] * w[j] * x[i, j]
        r = lang.rsqrt(ss / C + 1e-6)
        rs[i] = r
        for j in range(C):
            dx[i, j] = r * w[j] * g[i, j] - x[i, j] * (r * r * r) * dot / C
    for i in range(R):
        for j in range(C):
            dw[j] += g[i, j] * x[i, j] * rs[i]
    return dx, dw


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

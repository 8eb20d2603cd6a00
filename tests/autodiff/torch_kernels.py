"""The operators of the PyTorch-integration tests, each with a hand-written backward kernel, in one dtype.

`load(dtype)` writes this file's TEMPLATE for that dtype next to the kernel cache and imports it (kernels need a
real source file), so the same operators exist in float64 (for gradcheck) and float32 (against torch's ops)."""
from __future__ import annotations

import importlib.util
import os
import tempfile

TEMPLATE = '''
from __future__ import annotations
import asc.language as lang
from asc.math import erf, exp, pi, sqrt


@lang.kernel
def gelu(x: lang.DT[N]) -> lang.DT[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = 0.5 * x[i] * (1.0 + erf(x[i] / sqrt(2.0)))
    return out


@lang.kernel
def gelu_bwd(x: lang.DT[N], g: lang.DT[N]) -> lang.DT[N]:
    dx = lang.empty_like(x)
    for i in range(N):
        cdf = 0.5 * (1.0 + erf(x[i] / sqrt(2.0)))
        pdf = exp(-0.5 * x[i] * x[i]) / sqrt(2.0 * pi)
        dx[i] = g[i] * (cdf + x[i] * pdf)
    return dx


@lang.kernel
def gelu_tanh(x: lang.DT[N]) -> lang.DT[N]:
    out = lang.empty_like(x)
    for i in range(N):
        xi = x[i]
        out[i] = 0.5 * xi * (1.0 + lang.tanh(sqrt(2 / pi) * (xi + 0.044715 * xi * xi * xi)))
    return out


@lang.kernel
def gelu_tanh_bwd(x: lang.DT[N], g: lang.DT[N]) -> lang.DT[N]:
    dx = lang.empty_like(x)
    for i in range(N):
        xi = x[i]
        t = lang.tanh(sqrt(2 / pi) * (xi + 0.044715 * xi * xi * xi))
        dt = (1.0 - t * t) * sqrt(2 / pi) * (1.0 + 3 * 0.044715 * xi * xi)
        dx[i] = g[i] * (0.5 * (1.0 + t) + 0.5 * xi * dt)
    return dx


@lang.kernel
def silu(x: lang.DT[N]) -> lang.DT[N]:
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * lang.sigmoid(x[i])
    return out


@lang.kernel
def silu_bwd(x: lang.DT[N], g: lang.DT[N]) -> lang.DT[N]:
    dx = lang.empty_like(x)
    for i in range(N):
        s = lang.sigmoid(x[i])
        dx[i] = g[i] * s * (1.0 + x[i] * (1.0 - s))
    return dx


@lang.kernel
def swiglu(a: lang.DT[R, C], b: lang.DT[R, C]) -> lang.DT[R, C]:
    out = lang.empty_like(a)
    for i in range(R):
        for j in range(C):
            out[i, j] = a[i, j] * lang.sigmoid(a[i, j]) * b[i, j]
    return out


@lang.kernel
def swiglu_bwd(a: lang.DT[R, C], b: lang.DT[R, C], g: lang.DT[R, C]):
    da = lang.empty_like(a)
    db = lang.empty_like(b)
    for i in range(R):
        for j in range(C):
            s = lang.sigmoid(a[i, j])
            da[i, j] = g[i, j] * b[i, j] * s * (1.0 + a[i, j] * (1.0 - s))
            db[i, j] = g[i, j] * a[i, j] * s
    return da, db


@lang.kernel
def softmax(x: lang.DT[R, C]) -> lang.DT[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            e = lang.exp(x[i, j] - m)
            out[i, j] = e
            s += e
        for j in range(C):
            out[i, j] = out[i, j] / s
    return out


@lang.kernel
def softmax_bwd(x: lang.DT[R, C], g: lang.DT[R, C]) -> lang.DT[R, C]:
    dx = lang.empty_like(x)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            s += lang.exp(x[i, j] - m)
        dot = 0.0
        for j in range(C):
            dot += g[i, j] * lang.exp(x[i, j] - m) / s
        for j in range(C):
            dx[i, j] = lang.exp(x[i, j] - m) / s * (g[i, j] - dot)
    return dx


@lang.kernel
def layernorm(x: lang.DT[R, C], w: lang.DT[C], b: lang.DT[C]) -> lang.DT[R, C]:
    out = lang.empty_like(x)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        mean = s / C
        v = 0.0
        for j in range(C):
            d = x[i, j] - mean
            v += d * d
        rstd = lang.rsqrt(v / C + 1e-5)
        for j in range(C):
            out[i, j] = (x[i, j] - mean) * rstd * w[j] + b[j]
    return out


@lang.kernel
def layernorm_bwd(x: lang.DT[R, C], w: lang.DT[C], b: lang.DT[C], g: lang.DT[R, C]):
    dx = lang.empty_like(x)
    dw = lang.zeros_like(w)
    db = lang.zeros_like(b)
    means = lang.empty((R,), dtype=lang.DT)
    rstds = lang.empty((R,), dtype=lang.DT)
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j]
        mean = s / C
        v = 0.0
        for j in range(C):
            d = x[i, j] - mean
            v += d * d
        rstd = lang.rsqrt(v / C + 1e-5)
        means[i] = mean
        rstds[i] = rstd
        sg = 0.0
        sgx = 0.0
        for j in range(C):
            gw = g[i, j] * w[j]
            sg += gw
            sgx += gw * (x[i, j] - mean) * rstd
        for j in range(C):
            xh = (x[i, j] - mean) * rstd
            dx[i, j] = rstd * (g[i, j] * w[j] - sg / C - xh * sgx / C)
    for i in range(R):
        for j in range(C):
            dw[j] += g[i, j] * (x[i, j] - means[i]) * rstds[i]
            db[j] += g[i, j]
    return dx, dw, db


@lang.kernel
def rmsnorm(x: lang.DT[R, C], w: lang.DT[C]) -> lang.DT[R, C]:
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
def rmsnorm_bwd(x: lang.DT[R, C], w: lang.DT[C], g: lang.DT[R, C]):
    dx = lang.empty_like(x)
    dw = lang.zeros_like(w)
    rs = lang.empty((R,), dtype=lang.DT)
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
def matmul(A: lang.DT[M, K], B: lang.DT[K, N]) -> lang.DT[M, N]:
    C = lang.empty((M, N), dtype=lang.DT)
    for i in range(M):
        for j in range(N):
            acc = 0.0
            for k in range(K):
                acc += A[i, k] * B[k, j]
            C[i, j] = acc
    return C


@lang.kernel
def matmul_bwd(A: lang.DT[M, K], B: lang.DT[K, N], G: lang.DT[M, N]):
    dA = lang.empty_like(A)
    dB = lang.empty_like(B)
    for i in range(M):
        for k in range(K):
            acc = 0.0
            for j in range(N):
                acc += G[i, j] * B[k, j]
            dA[i, k] = acc
    for k in range(K):
        for j in range(N):
            acc = 0.0
            for i in range(M):
                acc += A[i, k] * G[i, j]
            dB[k, j] = acc
    return dA, dB
'''

NAMES = ["gelu", "gelu_tanh", "silu", "swiglu", "softmax", "layernorm", "rmsnorm", "matmul"]


def load(dtype: str):
    folder = os.path.join(os.environ.get("ASC_CACHE_DIR") or tempfile.gettempdir(), "torch-test-kernels")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, f"asc_torch_kernels_{dtype}.py")
    # written to a file of this process and renamed into place: the xdist workers share the folder, and a worker
    # must never import a file another one is still writing
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w") as f:
        f.write(TEMPLATE.replace("DT", dtype))
    os.replace(tmp, path)
    spec = importlib.util.spec_from_file_location(f"asc_torch_kernels_{dtype}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

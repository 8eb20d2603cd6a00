"""Two small kernels whose emitted Ascend C is pinned by golden files (tests/backends/test_ascend_source.py)."""
import asc.language as lang


@lang.kernel
def scaled_silu(x, a: lang.float32):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = a * x[i] * lang.sigmoid(x[i])
    return out


@lang.kernel
def rmsnorm(x, w, eps: float = 1e-6):
    out = lang.empty_like(x)
    R, C = x.shape
    for i in range(R):
        s = 0.0
        for j in range(C):
            s += x[i, j] * x[i, j]
        r = lang.rsqrt(s / C + eps)
        for j in range(C):
            out[i, j] = x[i, j] * r * w[j]
    return out


@lang.kernel
def leaky_pick(x, y):
    out = lang.empty_like(x)
    for i in range(len(x)):
        v = x[i] if x[i] > 0 else 0.1 * x[i]
        out[i] = (y[i] * 2.0 if 0.5 < v - y[i] else lang.exp(v)) + 1.0
    return out

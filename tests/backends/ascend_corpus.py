"""A corpus of operator kernels for the Ascend target (issue 16, "Done when"), written here from the math in the
styles of real operator code: Triton's tutorials (vector add, fused softmax, layernorm writing mean and rstd),
llama2.c (RMSNorm, SwiGLU, RoPE, attention over a KV cache), FlashAttention (attention at tensor level), Liger's
cross-entropy (loss and gradient in one kernel), Megatron's bias-GELU (forward and backward), vLLM's top-k softmax
(MoE routing), PyTorch's Adam and SGD, Warp's wave equation (a 2-D stencil), llama.cpp's q8_0 quantization,
Black-Scholes, and products with epilogues and tails. Each kernel is written as a new user of asc would write it:
`@lang.kernel` with no target, element loops or tensor expressions.

CORPUS maps a name to (kernel, args_factory); `args_factory(case)` gives the arguments for `case` in CASES:
"one" (every free size 1, or the smallest the operator allows) and "awkward" (primes and sizes that are not
multiples of 8/16/32 elements, large enough to split over several vector cores). A factory may return None for a
case the operator has no such size for."""
from __future__ import annotations

import math

import ml_dtypes
import numpy as np

import asc.language as lang

BF16 = np.dtype(ml_dtypes.bfloat16)
CASES = ("one", "awkward")

N = lang.dim("N")
R = lang.dim("R")
C = lang.dim("C")


def _rand(shape, dtype=np.float32, seed=0, scale=2.0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) * scale).astype(dtype)


def _pos(shape, dtype=np.float32, seed=0, lo=0.5, hi=2.0):
    rng = np.random.default_rng(seed)
    return rng.uniform(lo, hi, shape).astype(dtype)


# ---------------------------------------------------------------------------------------------------------- maps

@lang.kernel
def vector_add(x: lang.float32[N], y: lang.float32[N]) -> lang.float32[N]:
    """Triton tutorial 01: z = x + y."""
    z = lang.empty_like(x)
    for i in range(N):
        z[i] = x[i] + y[i]
    return z


@lang.kernel
def swiglu_ffn(hb, hb2):
    """llama2.c's FFN gate: silu(w1 x) * (w3 x), for any float dtype (bfloat16 here)."""
    out = lang.empty_like(hb)
    for i in range(len(hb)):
        val = hb[i]
        val = val * (1.0 / (1.0 + lang.exp(-val)))
        out[i] = val * hb2[i]
    return out


@lang.kernel
def bias_gelu_fwd(x, bias):
    """Megatron's fused bias-GELU (tanh form): y = gelu(x + bias), bias broadcast over the rows."""
    out = lang.empty_like(x)
    rows, cols = x.shape
    for i in range(rows):
        for j in range(cols):
            v = x[i, j] + bias[j]
            out[i, j] = v * 0.5 * (1.0 + lang.tanh(0.79788456 * v * (1.0 + 0.044715 * v * v)))
    return out


@lang.kernel
def bias_gelu_bwd(g, x, bias):
    """Megatron's bias-GELU backward: d/dv of 0.5 v (1 + tanh(k v (1 + a v^2))) times the incoming gradient."""
    dx = lang.empty_like(x)
    rows, cols = x.shape
    for i in range(rows):
        for j in range(cols):
            v = x[i, j] + bias[j]
            t = lang.tanh(0.79788456 * v * (1.0 + 0.044715 * v * v))
            dt = (1.0 - t * t) * (0.79788456 + 0.1070322243 * v * v)
            dx[i, j] = g[i, j] * (0.5 * v * dt + 0.5 * (1.0 + t))
    return dx


@lang.kernel
def leaky_relu_clamp(x, slope: float = 0.01, hi: float = 6.0):
    """A leaky ReLU clamped above (ReLU6-style), with conditional expressions."""
    out = lang.empty_like(x)
    for i in range(len(x)):
        v = x[i] if x[i] > 0.0 else x[i] * slope
        out[i] = hi if v > hi else v
    return out


@lang.vectorize
def gelu_erf_elem(v):
    """The exact GELU of one element; @lang.vectorize makes it a kernel over arrays."""
    return 0.5 * v * (1.0 + lang.erf(v * 0.7071067811865476))


@lang.func
def _sigmoid(v):
    return 1.0 / (1.0 + lang.exp(-v))


@lang.kernel
def silu_func(x: lang.float32[N]) -> lang.float32[N]:
    """SiLU through a device function (inlined)."""
    out = lang.empty_like(x)
    for i in range(N):
        out[i] = x[i] * _sigmoid(x[i])
    return out


@lang.kernel
def black_scholes(S: lang.float32[N], K: lang.float32[N], T: lang.float32[N], r: float = 0.02,
                  sigma: float = 0.3):
    """European call and put prices (two outputs), with log, sqrt, erf and exp."""
    call = lang.empty_like(S)
    put = lang.empty_like(S)
    for i in range(N):
        sq = sigma * lang.sqrt(T[i])
        d1 = (lang.log(S[i] / K[i]) + (r + 0.5 * sigma * sigma) * T[i]) / sq
        d2 = d1 - sq
        nd1 = 0.5 * (1.0 + lang.erf(d1 * 0.7071067811865476))
        nd2 = 0.5 * (1.0 + lang.erf(d2 * 0.7071067811865476))
        disc = K[i] * lang.exp(-r * T[i])
        call[i] = S[i] * nd1 - disc * nd2
        put[i] = disc * (1.0 - nd2) - S[i] * (1.0 - nd1)
    return call, put


# ------------------------------------------------------------------------------------------------- optimizers

@lang.kernel
def adam_step(p: lang.float32[N], g: lang.float32[N], m: lang.float32[N], v: lang.float32[N],
              lr: float = 1e-3, beta1: float = 0.9, beta2: float = 0.999, eps: float = 1e-8,
              weight_decay: float = 0.01, step: int = 3):
    """PyTorch's Adam (L2 weight decay, bias-corrected), one step in place on p, m and v."""
    bc1 = 1.0 - beta1 ** step
    bc2 = 1.0 - beta2 ** step
    step_size = lr / bc1
    bc2_sqrt = lang.sqrt(bc2)
    for i in range(N):
        gi = g[i] + weight_decay * p[i]
        m[i] = beta1 * m[i] + (1.0 - beta1) * gi
        v[i] = beta2 * v[i] + (1.0 - beta2) * gi * gi
        denom = lang.sqrt(v[i]) / bc2_sqrt + eps
        p[i] = p[i] - step_size * m[i] / denom


@lang.kernel
def sgd_momentum(p: lang.float32[N], g: lang.float32[N], buf: lang.float32[N], lr: float = 0.1,
                 momentum: float = 0.9, dampening: float = 0.0, nesterov: bool = True):
    """PyTorch's SGD with momentum (and Nesterov), in place on p and the momentum buffer."""
    for i in range(N):
        b = momentum * buf[i] + (1.0 - dampening) * g[i]
        buf[i] = b
        d = g[i] + momentum * b if nesterov else b
        p[i] = p[i] - lr * d


# ---------------------------------------------------------------------------------------------------- rows

@lang.kernel
def softmax_fused(x):
    """Triton tutorial 02: a row softmax, max pass, exp-and-sum pass, scale pass (any float dtype)."""
    out = lang.empty_like(x)
    rows, cols = x.shape
    for i in range(rows):
        m = x[i, 0]
        for j in range(cols):
            m = max(m, x[i, j])
        den = 0.0
        for j in range(cols):
            e = lang.exp(x[i, j] - m)
            out[i, j] = e
            den += e
        for j in range(cols):
            out[i, j] = out[i, j] / den
    return out


@lang.kernel
def layernorm_fwd(x: lang.float32[R, C], w: lang.float32[C], b: lang.float32[C], eps: float = 1e-5):
    """Triton tutorial 05: layernorm that also writes each row's mean and rstd (for the backward)."""
    y = lang.empty_like(x)
    mean = lang.empty(R, dtype=lang.float32)
    rstd = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        acc = 0.0
        for j in range(C):
            acc += x[i, j]
        mu = acc / C
        var = 0.0
        for j in range(C):
            d = x[i, j] - mu
            var += d * d
        rs = 1.0 / lang.sqrt(var / C + eps)
        mean[i] = mu
        rstd[i] = rs
        for j in range(C):
            y[i, j] = (x[i, j] - mu) * rs * w[j] + b[j]
    return y, mean, rstd


@lang.kernel
def rmsnorm(x, weight, eps: float = 1e-5):
    """llama2.c's rmsnorm, row by row (float16 rows here)."""
    out = lang.empty_like(x)
    rows, cols = x.shape
    for i in range(rows):
        ss = 0.0
        for j in range(cols):
            ss += x[i, j] * x[i, j]
        ss = ss / cols + eps
        ss = 1.0 / lang.sqrt(ss)
        for j in range(cols):
            out[i, j] = weight[j] * (ss * x[i, j])
    return out


@lang.kernel
def online_softmax(x: lang.float32[R, C]) -> lang.float32[R, C]:
    """Softmax with the online normalizer: one pass keeps a running max and a sum rescaled when the max grows."""
    out = lang.empty_like(x)
    for i in range(R):
        m = -float("inf")
        s = 0.0
        for j in range(C):
            m_new = max(m, x[i, j])
            s = s * lang.exp(m - m_new) + lang.exp(x[i, j] - m_new)
            m = m_new
        for j in range(C):
            out[i, j] = lang.exp(x[i, j] - m) / s
    return out


@lang.kernel
def logsumexp_rows(x: lang.float32[R, C]) -> lang.float32[R]:
    """log(sum(exp(x))) of each row, stable (a per-row output)."""
    out = lang.empty(R, dtype=lang.float32)
    for i in range(R):
        m = x[i, 0]
        for j in range(C):
            m = max(m, x[i, j])
        s = 0.0
        for j in range(C):
            s += lang.exp(x[i, j] - m)
        out[i] = m + lang.log(s)
    return out


@lang.kernel
def cross_entropy_fwd_bwd(logits: lang.float32[R, C], target: lang.int32[R]):
    """Liger-style cross-entropy: per-row loss and, in the same pass, the gradient (softmax - onehot) / R."""
    loss = lang.empty(R, dtype=lang.float32)
    grad = lang.empty_like(logits)
    for i in range(R):
        m = logits[i, 0]
        for j in range(C):
            m = max(m, logits[i, j])
        s = 0.0
        for j in range(C):
            s += lang.exp(logits[i, j] - m)
        lse = m + lang.log(s)
        t = target[i]
        loss[i] = lse - logits[i, t]
        for j in range(C):
            p = lang.exp(logits[i, j] - lse)
            grad[i, j] = (p - 1.0 if j == t else p) / R
    return loss, grad


@lang.kernel
def column_sum(x: lang.float32[R, C]) -> lang.float32[C]:
    """The sum of each column over the rows (a bias gradient)."""
    out = lang.zeros(C, dtype=lang.float32)
    for i in range(R):
        for j in range(C):
            out[j] += x[i, j]
    return out


@lang.kernel
def mse_loss(a: lang.float32[N], b: lang.float32[N]) -> lang.float32[1]:
    """The mean squared error, one scalar."""
    out = lang.zeros(1, dtype=lang.float32)
    for i in range(N):
        d = a[i] - b[i]
        out[0] += d * d
    out[0] = out[0] / N
    return out


@lang.kernel
def dequant_q8_0(q: lang.int8[R, 32], d: lang.float16[R]) -> lang.float32[R, 32]:
    """llama.cpp's q8_0 dequantization: each block of 32 int8 values times its float16 scale."""
    out = lang.empty((R, 32), dtype=lang.float32)
    for i in range(R):
        di = lang.float32(d[i])
        for j in range(32):
            out[i, j] = lang.float32(q[i, j]) * di
    return out


@lang.kernel
def quant_q8_0(x: lang.float32[R, 32]):
    """llama.cpp's q8_0 quantization: per block of 32, d = amax / 127, q = round-half-away(x / d) as int8."""
    q = lang.empty((R, 32), dtype=lang.int8)
    d = lang.empty(R, dtype=lang.float16)
    for i in range(R):
        amax = 0.0
        for j in range(32):
            amax = max(amax, abs(x[i, j]))
        dd = amax / 127.0
        inv = 1.0 / dd if dd != 0.0 else 0.0
        d[i] = lang.float16(dd)
        for j in range(32):
            v = x[i, j] * inv
            r = lang.floor(v + 0.5) if v >= 0.0 else -lang.floor(0.5 - v)
            q[i, j] = lang.int8(r)
    return q, d


# ---------------------------------------------------------------------------------------------------- stencils

@lang.kernel
def heat_1d(u: lang.float32[N], alpha: float = 0.25) -> lang.float32[N]:
    """One explicit step of the 1-D heat equation; the two ends are held."""
    out = lang.empty_like(u)
    out[0] = u[0]
    out[N - 1] = u[N - 1]
    for i in range(1, N - 1):
        out[i] = u[i] + alpha * (u[i - 1] - 2.0 * u[i] + u[i + 1])
    return out


@lang.kernel
def wave_2d(u: lang.float32[R, C], u_prev: lang.float32[R, C], c2: float = 0.2) -> lang.float32[R, C]:
    """Warp-style wave equation step: u' = 2u - u_prev + c^2 dt^2/dx^2 * laplacian(u); zero on the boundary."""
    out = lang.zeros_like(u)
    for i in range(1, R - 1):
        for j in range(1, C - 1):
            lap = u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - 4.0 * u[i, j]
            out[i, j] = 2.0 * u[i, j] - u_prev[i, j] + c2 * lap
    return out


# ---------------------------------------------------------------------------------------------------- RoPE

@lang.kernel
def rope_neox(x: lang.float32[R, C], cos: lang.float32[R, N], sin: lang.float32[R, N]) -> lang.float32[R, C]:
    """Rotary embedding, rotate-half form: the first and second halves of each row are the pairs (C = 2N)."""
    out = lang.empty_like(x)
    for t in range(R):
        for j in range(N):
            a = x[t, j]
            b = x[t, j + N]
            out[t, j] = a * cos[t, j] - b * sin[t, j]
            out[t, j + N] = b * cos[t, j] + a * sin[t, j]
    return out


@lang.kernel
def rope_llama2c(q: lang.float32[R, C], pos0: int = 0, head_size: int = 8) -> lang.float32[R, C]:
    """llama2.c's RoPE: interleaved pairs, the frequencies computed in the kernel from the position."""
    out = lang.empty_like(q)
    half = C // 2
    for t in range(R):
        for p in range(half):
            i = 2 * p
            head_dim = i % head_size
            freq = 1.0 / lang.pow(10000.0, head_dim / head_size)
            val = (pos0 + t) * freq
            fcr = lang.cos(val)
            fci = lang.sin(val)
            v0 = q[t, i]
            v1 = q[t, i + 1]
            out[t, i] = v0 * fcr - v1 * fci
            out[t, i + 1] = v0 * fci + v1 * fcr
    return out


# ---------------------------------------------------------------------------------------------------- routing

@lang.kernel
def topk_softmax(gating: lang.float32[R, C], k: int = 2):
    """vLLM's MoE routing: softmax over the experts of each token, then the k largest (weight, expert) pairs,
    ties to the lower expert index."""
    weights = lang.empty((R, k), dtype=lang.float32)
    ids = lang.empty((R, k), dtype=lang.int32)
    probs = lang.empty(C, dtype=lang.float32)
    for i in range(R):
        m = gating[i, 0]
        for j in range(C):
            m = max(m, gating[i, j])
        s = 0.0
        for j in range(C):
            probs[j] = lang.exp(gating[i, j] - m)
            s += probs[j]
        for j in range(C):
            probs[j] = probs[j] / s
        for kk in range(k):
            best = 0
            bv = -1.0
            for j in range(C):
                if probs[j] > bv:
                    bv = probs[j]
                    best = j
            weights[i, kk] = bv
            ids[i, kk] = lang.cast(best, lang.int32)
            probs[best] = -2.0
    return weights, ids


# ---------------------------------------------------------------------------------------------------- attention

@lang.kernel
def attention_llama2c(q: lang.float32[R, C], k: lang.float32[R, C], v: lang.float32[R, C]) -> lang.float32[R, C]:
    """llama2.c's attention for one head over a KV cache: position t attends to 0..t (causal)."""
    out = lang.zeros_like(q)
    att = lang.empty(R, dtype=lang.float32)
    scale = 1.0 / lang.sqrt(lang.float32(C))
    for t in range(R):
        for s in range(t + 1):
            score = 0.0
            for d in range(C):
                score += q[t, d] * k[s, d]
            att[s] = score * scale
        m = att[0]
        for s in range(t + 1):
            m = max(m, att[s])
        tot = 0.0
        for s in range(t + 1):
            att[s] = lang.exp(att[s] - m)
            tot += att[s]
        for s in range(t + 1):
            a = att[s] / tot
            for d in range(C):
                out[t, d] += a * v[s, d]
    return out


@lang.kernel
def attention_tensor(q, k, v):
    """FlashAttention's math at tensor level: softmax(Q K^T / sqrt(d)) V."""
    d = q.shape[1]
    s = (q @ lang.transpose(k)) * (1.0 / math.sqrt(d))
    p = lang.softmax(s, axis=-1)
    return p @ v


# ---------------------------------------------------------------------------------------------------- products

@lang.kernel
def matmul_f16(a, b):
    """A plain product of float16 matrices (the cube path at multiples of 16)."""
    return a @ b


@lang.kernel
def matmul_tail(a, b):
    """A float32 product at sizes that are not multiples of 16 (tails in every dimension)."""
    return a @ b


@lang.kernel
def matmul_bias_relu(a, b, bias):
    """A product with a fused epilogue: relu(a @ b + bias)."""
    return lang.maximum(a @ b + bias, 0.0)


@lang.kernel
def matmul_bt_gelu(x, w):
    """x @ w^T (a weight stored [out, in], as in a linear layer) followed by GELU."""
    return lang.gelu(x @ lang.transpose(w))


@lang.kernel
def matmul_batched(a, b):
    """A batch of products (heads)."""
    return a @ b


# ---------------------------------------------------------------------------------------------------- the table

def _one_or(case, one, awkward):
    return one if case == "one" else awkward


def _vec(case):
    return _one_or(case, 1, 4099)           # 4099 is prime: 48 vector cores, a ragged last block


def _rows(case):
    return _one_or(case, (1, 1), (53, 37))  # 53 rows (more than the 48 cores) of 37 elements


f16, f32 = np.float16, np.float32


def _special(x, case):
    """x with NaN, infinities, zeros of both signs and huge values in its first elements (awkward case only)."""
    if case == "one":
        return x
    flat = x.reshape(-1)
    vals = [np.nan, np.inf, -np.inf, 0.0, -0.0, 1e4, -1e4, 6.0, -6.0]
    flat[:len(vals)] = np.array(vals, np.float64).astype(x.dtype)
    return x


def _softmax_rows(case, dtype, seed):
    x = _rand(_rows(case), dtype, seed)
    if case != "one":
        x[1, 3] = -np.inf                    # one -inf in a row: its exp is 0
        x[2, :] = -np.inf                    # a whole row of -inf: NaN (-inf - -inf), as NumPy
        x[3, 5] = np.nan                     # a NaN propagates to its row
        x[4, 7] = 80.0                       # exp would overflow without the max
    return (x,)


def _adam(case):
    n = _vec(case)
    return (_rand(n, f32, 1), _rand(n, f32, 2), _rand(n, f32, 3, 0.1), _pos(n, f32, 4, 0.0, 0.1),
            np.float32(1e-3), np.float32(0.9), np.float32(0.999), np.float32(1e-8), np.float32(0.01), 3)


def _ce(case):
    r, c = _one_or(case, (1, 1), (29, 97))
    rng = np.random.default_rng(7)
    return _rand((r, c), f32, 6), rng.integers(0, c, r).astype(np.int32)


def _q8(case):
    r = _one_or(case, 1, 61)
    x = _rand((r, 32), f32, 8)
    if r > 2:
        x[2] = 0.0                           # a block of zeros: d = 0, q = 0
        x[3, :6] = [127.0, 2.5, -2.5, 0.5, -0.5, -127.0]     # d = 1: ties round half away from zero
    return (x,)


def _dq8(case):
    r = _one_or(case, 1, 61)
    rng = np.random.default_rng(9)
    return rng.integers(-127, 128, (r, 32)).astype(np.int8), _pos(r, f16, 10, 0.001, 0.1)


def _rope(case):
    r, h = _one_or(case, (1, 1), (13, 19))
    ang = _pos((r, h), f32, 11, 0.0, 6.0)
    return _rand((r, 2 * h), f32, 12), np.cos(ang).astype(f32), np.sin(ang).astype(f32)


def _att(case):
    r, c = _one_or(case, (1, 1), (23, 13))
    return _rand((r, c), f32, 13, 1.0), _rand((r, c), f32, 14, 1.0), _rand((r, c), f32, 15, 1.0)


def _att_tensor(case):
    if case == "one":
        return _rand((1, 1), f16, 16, 0.5), _rand((1, 1), f16, 17, 0.5), _rand((1, 1), f16, 18, 0.5)
    return _rand((48, 32), f16, 16, 0.5), _rand((64, 32), f16, 17, 0.5), _rand((64, 16), f16, 18, 0.5)


def _mm16(case):
    m, k, n = _one_or(case, (16, 16, 16), (48, 80, 32))
    return _rand((m, k), f16, 19, 0.5), _rand((k, n), f16, 20, 0.5)


def _mm_tail(case):
    m, k, n = _one_or(case, (1, 1, 1), (17, 23, 19))
    return _rand((m, k), f32, 21), _rand((k, n), f32, 22)


def _mm_bias(case):
    m, k, n = _one_or(case, (16, 16, 16), (32, 48, 64))
    return _rand((m, k), f16, 23, 0.5), _rand((k, n), f16, 24, 0.5), _rand(n, f16, 25)


def _mm_bt(case):
    m, k, n = _one_or(case, (1, 1, 1), (7, 29, 11))
    return _rand((m, k), f32, 26), _rand((n, k), f32, 27)


def _mm_batch(case):
    b, m, k, n = _one_or(case, (1, 16, 16, 16), (3, 32, 16, 48))
    return _rand((b, m, k), f16, 28, 0.5), _rand((b, k, n), f16, 29, 0.5)


def _bs(case):
    n = _vec(case)
    return _pos(n, f32, 30, 50.0, 150.0), _pos(n, f32, 31, 50.0, 150.0), _pos(n, f32, 32, 0.1, 2.0)


CORPUS = {
    # maps
    "vector_add": (vector_add, lambda c: (_special(_rand(_vec(c), f32, 1), c), _rand(_vec(c), f32, 2))),
    "swiglu_ffn_bf16": (swiglu_ffn, lambda c: (_rand(_vec(c), BF16, 3), _rand(_vec(c), BF16, 4))),
    "bias_gelu_fwd_f16": (bias_gelu_fwd, lambda c: (_rand(_rows(c), f16, 5), _rand(_rows(c)[1], f16, 6))),
    "bias_gelu_bwd": (bias_gelu_bwd, lambda c: (_rand(_rows(c), f32, 7), _rand(_rows(c), f32, 8),
                                                _rand(_rows(c)[1], f32, 9))),
    "leaky_relu_clamp_f16": (leaky_relu_clamp, lambda c: (_special(_rand(_vec(c), f16, 10, 5.0), c),)),
    "gelu_vectorize_bf16": (gelu_erf_elem, lambda c: (_special(_rand(_rows(c), BF16, 11), c),)),
    "silu_func": (silu_func, lambda c: (_special(_rand(_vec(c), f32, 12), c),)),
    "black_scholes": (black_scholes, _bs),
    # optimizers
    "adam_step": (adam_step, _adam),
    "sgd_momentum": (sgd_momentum, lambda c: (_rand(_vec(c), f32, 13), _rand(_vec(c), f32, 14),
                                              _rand(_vec(c), f32, 15))),
    # rows
    "softmax_fused": (softmax_fused, lambda c: _softmax_rows(c, f32, 16)),
    "softmax_fused_f16": (softmax_fused, lambda c: _softmax_rows(c, f16, 17)),
    "layernorm_fwd": (layernorm_fwd, lambda c: (_rand(_rows(c), f32, 18), _rand(_rows(c)[1], f32, 19),
                                                _rand(_rows(c)[1], f32, 20))),
    "rmsnorm_f16": (rmsnorm, lambda c: (_rand(_rows(c), f16, 21), _rand(_rows(c)[1], f16, 22))),
    "online_softmax": (online_softmax, lambda c: _softmax_rows(c, f32, 23)),
    "logsumexp_rows": (logsumexp_rows, lambda c: _softmax_rows(c, f32, 24)),
    "cross_entropy_fwd_bwd": (cross_entropy_fwd_bwd, _ce),
    "column_sum": (column_sum, lambda c: (_rand(_rows(c), f32, 25),)),
    "mse_loss": (mse_loss, lambda c: (_rand(_vec(c), f32, 26), _rand(_vec(c), f32, 27))),
    "dequant_q8_0": (dequant_q8_0, _dq8),
    "quant_q8_0": (quant_q8_0, _q8),
    # stencils
    "heat_1d": (heat_1d, lambda c: (_rand(_one_or(c, 2, 4099), f32, 28),)),
    "wave_2d": (wave_2d, lambda c: (_rand(_one_or(c, (3, 3), (37, 41)), f32, 29),
                                    _rand(_one_or(c, (3, 3), (37, 41)), f32, 30))),
    # RoPE
    "rope_neox": (rope_neox, _rope),
    "rope_llama2c": (rope_llama2c, lambda c: (_rand(_one_or(c, (1, 2), (11, 38)), f32, 31), 5, 8)),
    # routing
    "topk_softmax": (topk_softmax, lambda c: (_rand(_one_or(c, (1, 2), (19, 13)), f32, 32), 2)),
    # attention
    "attention_llama2c": (attention_llama2c, _att),
    "attention_tensor_f16": (attention_tensor, _att_tensor),
    # products
    "matmul_f16": (matmul_f16, _mm16),
    "matmul_tail": (matmul_tail, _mm_tail),
    "matmul_bias_relu_f16": (matmul_bias_relu, _mm_bias),
    "matmul_bt_gelu": (matmul_bt_gelu, _mm_bt),
    "matmul_batched_f16": (matmul_batched, _mm_batch),
}

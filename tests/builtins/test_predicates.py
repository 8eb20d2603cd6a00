"""float("inf") / float("-inf") / float("nan"), round() (ties to even), math.isnan / isinf / isfinite and lang.where
(issue 15, item 11): the same answers on the interpreter, the cpu target and ascend-sim, against NumPy; the
ascend target refuses round() by name (it has no Ascend form yet)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError
from helpers import close, rand

TARGETS = ["interpret", "cpu", "ascend-sim"]
SPECIAL = [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.5, 2.4999998, -0.0, 0.0, 7.0, 1e30, -1e30, np.nan, np.inf, -np.inf]


def on(target, fn):
    return lang.kernel(target=target)(fn)


def _round_all(x: lang.Tensor):
    out = lang.empty_like(x)
    for i in range(len(x)):
        out[i] = round(x[i])
    return out


@pytest.mark.parametrize("target", ["interpret", "cpu"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_round_is_half_to_even(target, dtype):
    with np.errstate(over="ignore"):                    # 1e30 is inf in float16
        x = np.array(SPECIAL + list(rand(64, np.float64, 1, 20.0)), dtype=dtype)
    got = on(target, _round_all)(x)
    assert got.dtype == x.dtype
    np.testing.assert_array_equal(got, np.round(x))
    assert np.signbit(got[x == -0.5]).all()            # -0.5 rounds to -0.0, as NumPy


def quantize_q8(x: lang.float32[NB, 32]):
    """llama.cpp's quantize_row_q8_0: per block, d = amax / 127 and q = round(x / d) as int8."""
    q = lang.empty((NB, 32), dtype=lang.int8)
    d = lang.empty((NB,), dtype=lang.float32)
    for b in range(NB):
        amax = 0.0
        for j in range(32):
            amax = max(amax, abs(x[b, j]))
        db = amax / 127.0
        inv = 1.0 / db if db != 0.0 else 0.0
        for j in range(32):
            q[b, j] = lang.cast(round(x[b, j] * inv), lang.int8)
        d[b] = db
    return q, d


def _q8_ref(x):
    amax = np.abs(x).max(axis=1)
    d = (amax / np.float32(127.0)).astype(np.float32)
    inv = np.where(d != 0, np.float32(1.0) / np.where(d != 0, d, 1), 0).astype(np.float32)
    return np.round(x * inv[:, None]).astype(np.int8), d


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_q8_quantization_rounds_as_numpy(target):
    x = rand((6, 32), np.float32, 2)
    x[1] = 0.0                                           # a zero block
    x[2, :4] = [127 / 254, -381 / 254, 2.5 / 127, 0.5]    # ties, at the block's scale
    x[2, 4] = 1.0
    q, d = on(target, quantize_q8)(x)
    rq, rd = _q8_ref(x)
    np.testing.assert_array_equal(d, rd)
    np.testing.assert_array_equal(q, rq)


def test_round_on_ascend_is_refused_by_name():
    x = np.array([0.5, 1.5], np.float32)
    with pytest.raises(CompileError, match=r"ascend target: the math function round\(\) has no scalar form"):
        on("ascend-sim", _round_all)(x)


def causal_online_softmax(x: lang.float32[T, T]) -> lang.float32[T, T]:
    """FlashAttention's online softmax over a causal row: masked scores are float("-inf"), the running max starts
    there, and exp(-inf - m) is 0."""
    out = lang.empty_like(x)
    for i in range(T):
        m = float("-inf")
        s = 0.0
        for j in range(T):
            v = x[i, j] if j <= i else float("-inf")
            m_new = max(m, v)
            s = s * lang.exp(m - m_new) + lang.exp(v - m_new)
            m = m_new
        for j in range(T):
            v = x[i, j] if j <= i else float("-inf")
            out[i, j] = lang.exp(v - m) / s
    return out


@pytest.mark.parametrize("target", ["interpret", "cpu"])      # ascend: exp has no scalar form (a clear refusal)
def test_causal_online_softmax_from_float_minus_inf(target):
    x = rand((9, 9), np.float32, 3)
    got = on(target, causal_online_softmax)(x)
    masked = np.where(np.tril(np.ones((9, 9), bool)), x.astype(np.float64), -np.inf)
    e = np.exp(masked - masked.max(axis=1, keepdims=True))
    close(got, e / e.sum(axis=1, keepdims=True), np.float32, ulps=16)
    assert (got[np.triu_indices(9, 1)] == 0).all()


def nan_to_num(x: lang.float32[N], big: lang.float32) -> lang.float32[N]:
    """torch.nan_to_num: nan -> 0, +-inf -> +-big, the rest unchanged."""
    out = lang.empty_like(x)
    for i in range(N):
        v = x[i]
        out[i] = lang.where(math.isnan(v), 0.0, lang.where(math.isinf(v), lang.where(v > 0, big, -big), v))
    return out


def count_finite(x: lang.float32[N]) -> lang.int64[1]:
    out = lang.zeros((1,), dtype=lang.int64)
    for i in range(N):
        if math.isfinite(x[i]):
            out[0] += 1
    return out


@pytest.mark.parametrize("target", TARGETS)
def test_nan_to_num_and_finite_count(target):
    x = np.array(SPECIAL + list(rand(40, np.float32, 4)), np.float32)
    got = on(target, nan_to_num)(x, np.float32(3e38))
    np.testing.assert_array_equal(got, np.nan_to_num(x, nan=0.0, posinf=3e38, neginf=-3e38))
    assert on(target, count_finite)(x)[0] == np.isfinite(x).sum()


def masked_relu(x: lang.Tensor, keep: lang.Tensor):
    """Tensor level: lang.where with a tensor condition, broadcasting, a Python number."""
    return lang.where(keep, lang.where(x > 0, x, 0.0), -1.0)


def inf_mask(x: lang.Tensor):
    return lang.isinf(x), lang.isnan(x), lang.isfinite(x)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dtype", [np.float32, np.float16])
def test_tensor_level_where_and_predicates(target, dtype):
    with np.errstate(over="ignore"):
        x = np.array(SPECIAL[:13] + [np.nan, np.inf, -np.inf] + [1.25, -3.0], dtype=dtype)
    keep = (np.arange(len(x)) % 3 != 0)
    got = on(target, masked_relu)(x, keep)
    want = np.where(keep, np.where(x > 0, x, np.array(0.0, dtype)), np.array(-1.0, dtype))
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)               # nan > 0 is false: 0.0, as NumPy
    inf, nan, fin = on(target, inf_mask)(x)
    np.testing.assert_array_equal(inf, np.isinf(x))
    np.testing.assert_array_equal(nan, np.isnan(x))
    np.testing.assert_array_equal(fin, np.isfinite(x))


def sgd_skip_nonfinite(p: lang.float32[N], g: lang.float32[N], lr: float):
    """An in-place optimizer step that skips non-finite gradients (as GradScaler's inf check does per element)."""
    for i in range(N):
        if math.isfinite(g[i]):
            p[i] -= lr * g[i]


@pytest.mark.parametrize("target", ["interpret", "cpu"])
def test_inplace_step_skips_nonfinite(target):
    p = rand(20, np.float32, 5)
    g = rand(20, np.float32, 6)
    g[[2, 7, 11]] = [np.nan, np.inf, -np.inf]
    want = p.copy()
    ok = np.isfinite(g)
    want[ok] -= np.float32(0.1) * g[ok]
    on(target, sgd_skip_nonfinite)(p, g, 0.1)
    np.testing.assert_array_equal(p, want)


def test_where_of_python_numbers_and_float_strings_fold():
    def consts(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = lang.where(True, float("inf"), 1.0) + float("-inf") * 0.0 + x[i] * 0.0 + float("nan") * 0.0
        return out
    x = np.ones(3, np.float32)
    for target in ("interpret", "cpu"):
        assert np.isnan(on(target, consts)(x)).all()

    def bad(x: lang.float32[N]) -> lang.float32[N]:
        out = lang.empty_like(x)
        for i in range(N):
            out[i] = float("infinite")
        return out
    with pytest.raises(CompileError, match="could not convert string to float"):
        on("cpu", bad)(x)

"""The bits of 16-bit values (issue 38, item 3), over all 65,536 float16 and bfloat16 bit patterns on every target
(cpu, cpu with memory checks, interpret, ascend-sim), against a model written here from the rule in docs/tensors.md
("NaN bits"):

- a copy keeps the bits: `out[i] = x[i]`, through a local variable, a ternary choosing between loaded values,
  `out[:] = x`, slice assignments; so does `-x`, `abs(x)` and max / min choosing a NaN operand (they choose, as
  NumPy does: a signalling NaN is not quieted), but for -x on the ascend target, a multiplication by -1 there;
- widening (`lang.cast(x, lang.float32)`, every load) is exact: a NaN keeps its sign and payload;
- narrowing (a store, `lang.cast(v, lang.float16)`) rounds to nearest even, and a NaN keeps its sign and the top
  bits of its payload, not quieted (NumPy's float32 -> float16, for bfloat16 too); a payload with none of those bits
  set becomes 1;
- float16 <-> bfloat16 goes through float32; arithmetic is float32 arithmetic of the exact values, and the sign and
  payload of a NaN it gives are not specified (IEEE 754 leaves them open; C compilers compute `x * -1.0` as `-x`,
  NumPy's scalar `a + b` of two NaNs passes on b's payload, its arrays a's): those outputs are compared as NaN.

The model is NumPy arithmetic on float32 plus the two conversions written with integer operations below, not asc's
own functions. Before this rule, cpu and ascend-sim rewrote 2,044 float16 NaNs of a copy to 0x7e00 / 0xfe00, and the
interpreter and ascend-sim 252 bfloat16 NaNs to 0x7fc0 / 0xffc0 (cpu quieted 126)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import asc.language as lang
from helpers import on_target

BF16 = np.dtype(ml_dtypes.bfloat16)
F16 = np.dtype(np.float16)
ALL16 = np.arange(1 << 16, dtype=np.uint32).astype(np.uint16)
FORMAT = {F16: (13, 0x7c00, 0x3ff), BF16: (16, 0x7f80, 0x7f)}      # payload shift, exponent bits, payload mask
TARGETS = ["cpu", "cpu-checked", "interpret", "ascend-sim"]


# ---------------------------------------------------------------------------------------------------- the model

def widen(bits: np.ndarray, dt) -> np.ndarray:
    """16-bit patterns as float32, exactly (a NaN: sign, all-ones exponent, the payload shifted up)."""
    shift, exp, mask = FORMAT[dt]
    b = bits.astype(np.uint32)
    nan = (b & exp) == exp
    nan &= (b & mask) != 0
    with np.errstate(invalid="ignore"):
        f = bits.view(dt).astype(np.float32)
    u = f.view(np.uint32).copy()
    u[nan] = ((b[nan] & 0x8000) << 16) | 0x7f800000 | ((b[nan] & mask) << shift)
    return u.view(np.float32)


def narrow(f: np.ndarray, dt) -> np.ndarray:
    """float32 values as 16-bit patterns: to nearest even, a NaN by the rule (sign, top of the payload, 1 if none)."""
    shift, exp, mask = FORMAT[dt]
    f = np.asarray(f, np.float32)
    u = f.view(np.uint32)
    nan = np.isnan(f)
    with np.errstate(invalid="ignore", over="ignore"):
        out = f.astype(dt).view(np.uint16).copy()
    p = (u[nan] >> shift) & mask
    out[nan] = (((u[nan] >> 16) & 0x8000) | exp | p | (p == 0)).astype(np.uint16)
    return out


def maximum(a, b):
    """numpy.maximum with the bits: a NaN operand as it is (a if a is NaN, else b), the second on a tie."""
    return np.where((a > b) | np.isnan(a), a, b)


def minimum(a, b):
    return np.where((a < b) | np.isnan(a), a, b)


def float32_patterns(n: int) -> np.ndarray:
    """n float32 values for narrowing: every 16-bit pattern widened both ways, NaNs with payload bits only below
    the kept ones (-> 1), random NaNs, values that round to ties, subnormals, infinities."""
    rng = np.random.default_rng(38)
    parts = [widen(ALL16[::4], F16).view(np.uint32), widen(ALL16[1::4], BF16).view(np.uint32),
             np.array([0x7f800001, 0xff800001, 0x7f801fff, 0x7fc00001, 0xffc0ffff, 0x7f80ffff, 0x7fffffff,
                       0x7f808000, 0x7f802000, 0x7fa00000, 0x00000001, 0x80000001, 0x33000000, 0x33000001,
                       0x477fefff, 0x477ff000, 0x3f808000, 0x3f818000], np.uint32)]
    rest = n - sum(p.size for p in parts)
    nans = (rng.integers(0, 2, rest // 2, dtype=np.uint32) << 31) | 0x7f800000 | \
        rng.integers(1, 1 << 23, rest // 2, dtype=np.uint32)
    other = rng.integers(0, 1 << 32, rest - rest // 2, dtype=np.uint64).astype(np.uint32)
    return np.concatenate(parts + [nans, other]).view(np.float32)


# ---------------------------------------------------------------------------------------------------- the kernels

def element_f16(x, y, w):
    n = len(x)
    copy = lang.empty_like(x)
    via = lang.empty_like(x)
    pick = lang.empty_like(x)
    neg = lang.empty_like(x)
    ab = lang.empty_like(x)
    add = lang.empty_like(x)
    mul = lang.empty_like(x)
    mx = lang.empty_like(x)
    mn = lang.empty_like(x)
    wide = lang.empty((n,), dtype=lang.float32)
    other = lang.empty((n,), dtype=lang.bfloat16)
    narrowed = lang.empty_like(x)
    for i in range(n):
        copy[i] = x[i]
        v = x[i]
        via[i] = v
        pick[i] = x[i] if y[i] > 0.0 else x[n - 1 - i]
        neg[i] = -x[i]
        ab[i] = abs(x[i])
        add[i] = x[i] + y[i]
        mul[i] = x[i] * y[i]
        mx[i] = max(x[i], y[i])
        mn[i] = lang.minimum(y[i], x[i])
        wide[i] = lang.cast(x[i], lang.float32)
        other[i] = lang.cast(x[i], lang.bfloat16)
        narrowed[i] = w[i]
    return copy, via, pick, neg, ab, add, mul, mx, mn, wide, other, narrowed


def element_bf16(x, y, w):
    n = len(x)
    copy = lang.empty_like(x)
    via = lang.empty_like(x)
    pick = lang.empty_like(x)
    neg = lang.empty_like(x)
    ab = lang.empty_like(x)
    add = lang.empty_like(x)
    mul = lang.empty_like(x)
    mx = lang.empty_like(x)
    mn = lang.empty_like(x)
    wide = lang.empty((n,), dtype=lang.float32)
    other = lang.empty((n,), dtype=lang.float16)
    narrowed = lang.empty_like(x)
    for i in range(n):
        copy[i] = x[i]
        v = x[i]
        via[i] = v
        pick[i] = x[i] if y[i] > 0.0 else x[n - 1 - i]
        neg[i] = -x[i]
        ab[i] = abs(x[i])
        add[i] = x[i] + y[i]
        mul[i] = x[i] * y[i]
        mx[i] = max(x[i], y[i])
        mn[i] = lang.minimum(y[i], x[i])
        wide[i] = lang.cast(x[i], lang.float32)
        other[i] = lang.cast(x[i], lang.float16)
        narrowed[i] = lang.cast(w[i], lang.bfloat16)
    return copy, via, pick, neg, ab, add, mul, mx, mn, wide, other, narrowed


def vector_moves(x, y):
    """Every access at the loop's own index: the vector path of ascend-sim (the kernels above run as its scalar
    code), the cpu's blocks. (Four outputs a kernel: ascend-sim refuses eight, more than 8 queue buffers.)"""
    copy = lang.empty_like(x)
    pick = lang.empty_like(x)
    neg = lang.empty_like(x)
    ab = lang.empty_like(x)
    for i in range(len(x)):
        copy[i] = x[i]
        pick[i] = x[i] if y[i] > 0.0 else y[i]
        neg[i] = -x[i]
        ab[i] = abs(x[i])
    return copy, pick, neg, ab


def vector_arithmetic(x, y):
    add = lang.empty_like(x)
    mul = lang.empty_like(x)
    mx = lang.empty_like(x)
    wide = lang.empty(x.shape, dtype=lang.float32)
    for i in range(len(x)):
        add[i] = x[i] + y[i]
        mul[i] = x[i] * 2.0
        mx[i] = lang.maximum(x[i], y[i])
        wide[i] = lang.cast(x[i], lang.float32)
    return add, mul, mx, wide


def tensor_f16(x, y):
    n = len(x)
    full = lang.empty_like(x)
    full[:] = x
    halves = lang.empty_like(x)
    halves[0:n // 2] = x[n // 2:n]
    halves[n // 2:n] = x[0:n // 2]
    return full, halves, -x, x + y, lang.cast(x, lang.float32), lang.cast(x, lang.bfloat16)


def tensor_bf16(x, y):
    n = len(x)
    full = lang.empty_like(x)
    full[:] = x
    halves = lang.empty_like(x)
    halves[0:n // 2] = x[n // 2:n]
    halves[n // 2:n] = x[0:n // 2]
    return full, halves, -x, x + y, lang.cast(x, lang.float32), lang.cast(x, lang.float16)


ELEMENT = {F16: element_f16, BF16: element_bf16}
TENSOR = {F16: tensor_f16, BF16: tensor_bf16}
OTHER = {F16: BF16, BF16: F16}


def inputs(dt):
    rng = np.random.default_rng(3)
    x = ALL16.view(dt)
    y = (rng.standard_normal(x.size) * 3).astype(dt)
    return x, y


def bits(a) -> np.ndarray:
    a = np.asarray(a)
    return a.view(np.uint16 if a.dtype.itemsize == 2 else np.uint32)


ARITHMETIC = ("x + y", "x * y", "x * 2.0")        # outputs whose NaNs are compared as NaN (the sign and payload of
                                                # a NaN that arithmetic gives are not specified)


def arithmetic(name: str, target: str) -> bool:
    """Whether the output's NaNs are compared as NaN: arithmetic, and -x on the ascend target (Muls(x, -1.0f))."""
    return name in ARITHMETIC or (target == "ascend-sim" and name == "-x")


def assert_bits(name, got, want, dt=None):
    """The same bits; for arithmetic (dt given: the output's format), NaN for NaN, any bits."""
    got, want = bits(got), np.asarray(want)
    differ = got != want
    if dt is not None:
        shift, exp, mask = FORMAT[dt] if dt in FORMAT else (0, 0x7f800000, 0x7fffff)
        nan = lambda b: ((b & exp) == exp) & ((b & mask) != 0)  # noqa: E731
        differ = np.where(nan(want), ~nan(got), differ)
    bad = np.nonzero(differ)[0]
    assert bad.size == 0, (f"{name}: {bad.size} patterns differ, e.g. input 0x{ALL16[bad[0]]:04x}: "
                           f"0x{int(got[bad[0]]):x}, want 0x{int(want[bad[0]]):x}")


# ---------------------------------------------------------------------------------------------------- the tests

@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [F16, BF16], ids=["float16", "bfloat16"])
def test_every_pattern_through_element_code(dt, target):
    x, y = inputs(dt)
    w = float32_patterns(x.size)
    got = on_target(target, ELEMENT[dt])(x, y, w)
    xf, yf = widen(ALL16, dt), widen(bits(y), dt)
    with np.errstate(all="ignore"):
        want = {"copy": ALL16, "via a local": ALL16, "a ternary of loads": np.where(yf > 0, ALL16, ALL16[::-1]),
                "-x": ALL16 ^ 0x8000, "abs": ALL16 & 0x7fff, "x + y": narrow(xf + yf, dt),
                "x * y": narrow(xf * yf, dt), "max": narrow(maximum(xf, yf), dt), "minimum": narrow(minimum(yf, xf), dt),
                "cast to float32": xf.view(np.uint32), "cast to the other 16-bit": narrow(xf, OTHER[dt]),
                "float32 narrowed": narrow(w, dt)}
    assert len(got) == len(want)
    for (name, expect), g in zip(want.items(), got):
        assert_bits(f"{target} {dt.name} {name}", g, expect, dt if arithmetic(name, target) else None)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [F16, BF16], ids=["float16", "bfloat16"])
def test_every_pattern_through_tensor_code(dt, target):
    x, y = inputs(dt)
    got = on_target(target, TENSOR[dt])(x, y)
    xf, yf = widen(ALL16, dt), widen(bits(y), dt)
    h = ALL16.size // 2
    with np.errstate(all="ignore"):
        want = {"out[:] = x": ALL16, "slice assignments": np.concatenate([ALL16[h:], ALL16[:h]]),
                "-x": ALL16 ^ 0x8000, "x + y": narrow(xf + yf, dt), "cast to float32": xf.view(np.uint32),
                "cast to the other 16-bit": narrow(xf, OTHER[dt])}
    for (name, expect), g in zip(want.items(), got):
        assert_bits(f"{target} {dt.name} {name}", g, expect, dt if arithmetic(name, target) else None)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [F16, BF16], ids=["float16", "bfloat16"])
def test_every_pattern_through_vector_code(dt, target):
    x, y = inputs(dt)
    got = on_target(target, vector_moves)(x, y) + on_target(target, vector_arithmetic)(x, y)
    xf, yf = widen(ALL16, dt), widen(bits(y), dt)
    with np.errstate(all="ignore"):
        want = {"copy": ALL16, "a ternary of loads": np.where(yf > 0, ALL16, bits(y)), "-x": ALL16 ^ 0x8000,
                "abs": ALL16 & 0x7fff, "x + y": narrow(xf + yf, dt), "x * 2.0": narrow(xf * np.float32(2), dt),
                "maximum": narrow(maximum(xf, yf), dt), "cast to float32": xf.view(np.uint32)}
    for (name, expect), g in zip(want.items(), got):
        assert_bits(f"{target} {dt.name} {name}", g, expect, dt if arithmetic(name, target) else None)


def test_the_model_is_numpy_for_float16():
    """The model's float16 conversions are NumPy's software ones (the wheels' baseline has no F16C): the rule is
    NumPy's float16 rule, taken over for bfloat16. (ml_dtypes' bfloat16 narrowing instead makes NaNs canonical.)"""
    assert (widen(ALL16, F16).view(np.uint32) == ALL16.view(np.float16).astype(np.float32).view(np.uint32)).all()
    w = float32_patterns(1 << 16)
    with np.errstate(invalid="ignore"):
        assert (narrow(w, F16) == w.astype(np.float16).view(np.uint16)).all()
    assert (widen(ALL16, BF16).view(np.uint32) == ALL16.view(BF16).astype(np.float32).view(np.uint32)).all()
    finite = ~np.isnan(w)
    assert (narrow(w, BF16)[finite] == w[finite].astype(BF16).view(np.uint16)).all()


def transposed_f16(x):
    copy = lang.empty((x.shape[1], x.shape[0]), dtype=lang.float16)
    copy[:, :] = x.T
    return copy, lang.cast(x.T, lang.bfloat16), lang.cast(x.T, lang.float32)


def transposed_bf16(x):
    copy = lang.empty((x.shape[1], x.shape[0]), dtype=lang.bfloat16)
    copy[:, :] = x.T
    return copy, lang.cast(x.T, lang.float16), lang.cast(x.T, lang.float32)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("dt", [F16, BF16], ids=["float16", "bfloat16"])
def test_every_pattern_through_a_transposed_view(dt, target):
    """A view whose memory is not in row order: copied and converted with the same bits."""
    x = ALL16.reshape(256, 256).view(dt)
    got = on_target(target, transposed_f16 if dt == F16 else transposed_bf16)(x)
    t = ALL16.reshape(256, 256).T
    xf = widen(t.ravel(), dt).reshape(t.shape)
    want = {"copy": t, "cast to the other 16-bit": narrow(xf.ravel(), OTHER[dt]).reshape(t.shape),
            "cast to float32": xf.view(np.uint32)}
    for (name, expect), g in zip(want.items(), got):
        assert_bits(f"{target} {dt.name} {name}", np.asarray(g).ravel(), np.asarray(expect).ravel())

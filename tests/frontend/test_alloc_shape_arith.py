"""Arithmetic on sizes in allocation shapes (issue 38, item 6): `lang.zeros((bins + 1,))` with `bins` an int
argument was refused with "an allocation's shape must be made of constants and argument sizes", which it is.
+ - * // % of constants, int arguments and sizes of argument shapes (directly, or through a name assigned once) are
sizes: constants when shapes are specialized (one build per value of an int argument), computed at each call under
dynamic_shape=True (one build). A negative size or a division by zero is a ShapeError naming the line and the
argument values, the same on every target and in both modes; what is not a size (a tensor's data, a loop variable,
a float, a variable assigned twice) is refused at the line, saying what it is. Every target: cpu with and without
memory checks, the interpreter, ascend-sim; against NumPy."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import asc.language as lang
from asc.errors import CompileError, ShapeError
from helpers import rand

N = lang.dim("N")

# (target, memory check)
TARGETS = [("cpu", False), ("cpu", True), ("interpret", False), ("ascend-sim", False)]


def make(fn, target, checked, dynamic):
    opts = {"memory_check": True} if checked else {}
    return lang.kernel(target=target, dynamic_shape=dynamic, **opts)(fn)


def call(kern, *args):
    with warnings.catch_warnings():     # ascend-sim: some of these run as scalar code (a warning says so)
        warnings.simplefilter("ignore")
        return kern(*args)


def histogram(x: lang.int64[N], bins: int):
    h = lang.zeros((bins + 1,), dtype=lang.int32)       # bins + 1: the last counts the values past the end
    for i in range(N):
        h[x[i] if x[i] < bins else bins] += 1
    return h


def merged_rows(x: lang.float32[None, None, N]):
    B, H, L = x.shape
    out = lang.empty((B * H, L + 1), dtype=lang.float32)        # each row, then its sum
    for bh in range(B * H):
        s = 0.0
        for n in range(L):
            out[bh, n] = x[bh // H, bh % H, n]
            s += x[bh // H, bh % H, n]
        out[bh, L] = s
    return out


def grouped(x: lang.float32[N, None], G: int):
    C = x.shape[1]
    cg = C // G                                         # a name assigned once from sizes
    sums = lang.zeros((N, G), dtype=lang.float32)        # a temporary sized by an int argument
    out = lang.empty((N * G, cg + C % G + 1), dtype=lang.float32)
    for i in range(N):
        for g in range(G):
            for c in range(cg):
                sums[i, g] += x[i, g * cg + c]
    for i in range(N):
        for g in range(G):
            for c in range(cg + C % G + 1):
                out[i * G + g, c] = sums[i, g] if c == cg + C % G else (x[i, g * cg + c] if c < cg else -1.0)
    return out


def same_size_twice(x: lang.float32[N], k: int):
    a = lang.full((2 * k - 1,), 1.5, dtype=lang.float32)
    b = lang.zeros((2 * k - 1,), dtype=lang.float32)     # the same size: a + b needs no broadcast
    for i in range(2 * k - 1):
        b[i] = x[i % N]
    return a, b, a + b


def _grouped_ref(x, G):
    n, C = x.shape
    cg, r = C // G, C % G
    out = np.full((n * G, cg + r + 1), -1.0, np.float32)
    for i in range(n):
        for g in range(G):
            out[i * G + g, :cg] = x[i, g * cg:(g + 1) * cg]
            out[i * G + g, cg + r] = x[i, g * cg:(g + 1) * cg].astype(np.float64).sum()
    return out


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_size_argument_plus_one(target, checked, dynamic):
    kern = make(histogram, target, checked, dynamic)
    rng = np.random.default_rng(1)
    for bins in (5, 1, 5, 9, 0):
        x = rng.integers(0, 12, 100)
        got = call(kern, x, bins)
        assert got.shape == (bins + 1,)
        np.testing.assert_array_equal(got, np.bincount(np.minimum(x, bins), minlength=bins + 1))
    assert len(kern._cache) == (1 if dynamic else 4)
    if target == "cpu":     # the compiled launcher computed bins + 1 for the repeated signatures (no Python path)
        assert kern._launcher is not None and kern._launcher.calls >= (4 if dynamic else 1)


def floored(x: lang.float32[N], n: int):
    # // and % round toward minus infinity, as Python's (C's / and % round toward zero): (-8) // 3 is -3, (-8) % 3 is 1
    return lang.zeros(((n - 10) // 3 + 5, (n - 10) % 3 + 1, (n + 1) % (-4) + 4), dtype=lang.float32)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_floor_division_rounds_as_python(target, checked, dynamic):
    kern = make(floored, target, checked, dynamic)
    x = np.ones(2, np.float32)
    for n in (2, 2, 11, 0, 2):
        want = ((n - 10) // 3 + 5, (n - 10) % 3 + 1, (n + 1) % -4 + 4)
        assert call(kern, x, n).shape == want


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_products_and_sums_of_shape_sizes(target, checked, dynamic):
    kern = make(merged_rows, target, checked, dynamic)
    for shape in ((2, 3, 4), (1, 5, 1), (3, 1, 7)):
        x = rand(shape, np.float32, 2)
        got = call(kern, x)
        ref = np.concatenate([x.reshape(-1, shape[2]), x.astype(np.float64).sum(-1).reshape(-1, 1)], axis=1)
        assert got.shape == (shape[0] * shape[1], shape[2] + 1)
        np.testing.assert_array_equal(got[:, :-1], ref[:, :-1])
        np.testing.assert_allclose(got[:, -1], ref[:, -1], rtol=1e-6, atol=1e-5)
    assert len(kern._cache) == (1 if dynamic else 3)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_floor_division_modulo_and_temporaries(target, checked, dynamic):
    kern = make(grouped, target, checked, dynamic)
    if target == "ascend-sim" and dynamic:
        # the ascend emitter has no scalar form for a temporary whose size is known only at run time (as before for
        # lang.zeros((N, G)) with an int G): refused at the allocation, not run wrong
        with pytest.raises(CompileError, match=r"ascend target: a temporary tensor whose size is known only at run "
                                               r"time \('sums'"):
            call(kern, rand((2, 8), np.float32, 3), 2)
        return
    for n, C, G in ((2, 8, 2), (3, 7, 3), (1, 5, 5), (2, 6, 4)):
        x = rand((n, C), np.float32, 3)
        got = call(kern, x, G)
        ref = _grouped_ref(x, G)
        assert got.shape == ref.shape
        np.testing.assert_allclose(got, ref, rtol=1e-6, atol=1e-5)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_one_expression_is_one_size(target, checked, dynamic):
    kern = make(same_size_twice, target, checked, dynamic)
    x = rand((3,), np.float32, 4)
    for k in (1, 4, 2):
        a, b, got = call(kern, x, k)
        np.testing.assert_array_equal(a, np.full(2 * k - 1, 1.5, np.float32))
        np.testing.assert_array_equal(b, x[np.arange(2 * k - 1) % 3])
        np.testing.assert_array_equal(got, (1.5 + x[np.arange(2 * k - 1) % 3]).astype(np.float32))


# ------------------------------------------------------------------ what the arguments give: negative, division by 0

def smaller(x: lang.float32[N], bins: int):
    n = bins - 5
    return lang.zeros((n,), dtype=lang.float32)


def per_group(x: lang.float32[N], G: int):
    return lang.zeros((N // G, 2), dtype=lang.float32)


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_negative_size_names_the_line_and_the_values(target, checked, dynamic):
    kern = make(smaller, target, checked, dynamic)
    x = np.ones(4, np.float32)
    assert call(kern, x, 5).shape == (0,)               # zero is a size, as in NumPy
    with pytest.raises(ShapeError, match=r"test_alloc_shape_arith.py:\d+:\d+: smaller\(\): the size n of an "
                                         r"allocation is -2 \(bins=3\): a size must not be negative"):
        call(kern, x, 3)
    assert call(kern, x, 7).shape == (2,)               # and the kernel still serves good values


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("target,checked", TARGETS)
def test_division_by_zero_names_the_values(target, checked, dynamic):
    kern = make(per_group, target, checked, dynamic)
    x = np.ones(8, np.float32)
    assert call(kern, x, 3).shape == (2, 2)
    with pytest.raises(ShapeError, match=r"per_group\(\): the size N // G of an allocation divides by zero "
                                         r"\(8 // 0\) \(N=8, G=0\)"):
        call(kern, x, 0)


# ------------------------------------------------------------------ what is not a size: refused at the line

def from_data(x: lang.int32[N]):
    return lang.zeros((x[0] + 1,), dtype=lang.int32)


def from_loop(x: lang.float32[N]):
    s = 0.0
    for i in range(N):
        t = lang.zeros((i + 1,), dtype=lang.float32)
        s += t[0]
    return s


def true_division(x: lang.float32[N]):
    return lang.zeros((N / 2,), dtype=lang.float32)


def reassigned(x: lang.float32[N], bins: int):
    m = bins
    m = m + 1
    return lang.zeros((m,), dtype=lang.float32)


def float_argument(x: lang.float32[N], n: float):
    return lang.zeros((n * 2,), dtype=lang.float32)


RULE = (r"a size is a constant, an int argument, a size of an argument's shape \(a lang.dim, x.shape\[k\]\), a "
        r"variable assigned once from those, or \+ - \* // % of them")


@pytest.mark.parametrize("dynamic", [False, True])
@pytest.mark.parametrize("fn,args,line,message", [
    (from_data, (np.arange(4, dtype=np.int32),), "return lang.zeros((x[0] + 1,)",
     r"the size x\[0\] \+ 1 of an allocation is read from the data of tensor 'x': a shape must be known before the "
     r"kernel runs"),
    (from_loop, (np.ones(4, np.float32),), "t = lang.zeros((i + 1,)",
     r"the size i \+ 1 of an allocation uses the loop variable 'i': " + RULE),
    (true_division, (np.ones(4, np.float32),), "return lang.zeros((N / 2,)",
     r"the size N / 2 of an allocation uses the operator / \(a float: use //\): " + RULE),
    (reassigned, (np.ones(4, np.float32), 2), "return lang.zeros((m,)",
     r"the size m of an allocation uses the variable 'm', which is assigned more than once or from values that are "
     r"not sizes: " + RULE),
    (float_argument, (np.ones(4, np.float32), 2.0), "return lang.zeros((n * 2,)",
     r"the size n \* 2 of an allocation uses the float argument 'n': " + RULE),
])
@pytest.mark.parametrize("target", ["cpu", "interpret", "ascend-sim"])
def test_what_is_not_a_size_is_refused_at_the_line(fn, args, line, message, target, dynamic):
    kern = make(fn, target, False, dynamic)
    with pytest.raises(CompileError, match=message) as ei:
        call(kern, *args)
    text = str(ei.value)
    assert line in text and "test_alloc_shape_arith.py:" in text
    assert "must be made of constants and argument sizes" not in text

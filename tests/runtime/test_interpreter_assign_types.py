"""The interpreter gives a scalar variable its one type, as compiled code does: a weak value assigned to a variable
of a strong type (`m = -1e30` for a float32 running max, `s = 0` for an int8 sum) is converted where it is
assigned. Before, Python kept the literal's own type until an update replaced it, which a running max may never do
(no larger element, or an empty loop): the interpreter returned -1e30, compiled code float32(-1e30)."""
from __future__ import annotations

import numpy as np
import pytest

import asc.language as lang
from helpers import interpreted


@lang.kernel(dynamic_shape=True)
def running_max(y: lang.float32[N]):
    o = lang.empty((1,), dtype=lang.float64)
    q = -1e30
    for i in range(N):
        q = max(q, y[i])
    o[0] = q
    return o


@lang.kernel(dynamic_shape=True)
def several_targets(y: lang.float32[N], k: lang.int8[N]):
    o = lang.empty((4,), dtype=lang.float64)
    a = b = 0.1                # a chain: both float32 variables
    s, t = 0.1, 300            # a tuple: s float32, t stays a Python int
    u: float = 0.1             # an annotated one
    for i in range(N):
        a = lang.maximum(a, y[i])
        b += y[i]
        s = min(s, y[i])
        u = u if u > y[i] else y[i]
    o[0] = a + b
    o[1] = s
    o[2] = t
    o[3] = u
    return o


@lang.kernel(dynamic_shape=True)
def int8_sum(k: lang.int8[N]):
    o = lang.empty((1,), dtype=lang.int8)
    s = 0
    for i in range(N):
        s += k[i]
    o[0] = s
    return o


@pytest.mark.parametrize("n", [0, 1, 5])
def test_a_running_max_never_replaced_has_the_variables_type(n):
    y = np.full(n, -np.inf, np.float32)
    got, want = running_max(y), interpreted(running_max)(y)
    assert got.tolist() == want.tolist() == [float(np.float32(-1e30))]


@pytest.mark.parametrize("n", [0, 3])
def test_chains_tuples_and_annotations(n):
    y = np.full(n, -np.inf, np.float32)
    k = np.zeros(n, np.int8)
    got, want = several_targets(y, k), interpreted(several_targets)(y, k)
    f = float(np.float32(0.1))
    expect = [2 * f if n == 0 else -np.inf, -np.inf if n else f, 300.0, f]
    assert got.tolist() == want.tolist() == expect


def test_an_int8_sum_wraps_on_both_sides():
    k = np.full(300, 100, np.int8)
    got, want = int8_sum(k), interpreted(int8_sum)(k)
    assert got.tolist() == want.tolist() == [np.int8(np.int64(30000).astype(np.int8))]
